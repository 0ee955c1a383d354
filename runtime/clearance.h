/* Clearance geometry shared by the clearance queries (clearance.c) and the disc search
   (disc_path.c). Private to the runtime. Distances are in plan (x-z); walls are the edges of cells
   with no neighbour. The sweeps keep their stack in the upper half of the query's node pool. */
#ifndef PTL_CLEARANCE_H
#define PTL_CLEARANCE_H

#include "query_internal.h"

/* sqrt(x^2 + z^2): libm's hypot guards against overflow that plan coordinates (floats) cannot
   reach in doubles, at several times the cost. */
static inline double ptl_len2(double x, double z) { return sqrt(x * x + z * z); }

/* A wall point found by a sweep. */
typedef struct ptl_clear_wall {
    double d;           /* distance to the best wall point so far */
    double x, z;        /* the wall point */
    double ex, ez;      /* the wall edge's direction (the cell's interior on its left) */
    uint32_t cell;      /* the cell whose wall it is */
    bool found;
} ptl_clear_wall;

/* The wall nearest (px, pz), a point of cell `cell` (inside it or on its boundary), among the walls it
   sees within max_d (inclusive): a sweep of windows of sight through the portals. Stops as soon as
   one nearer than stop_d is found (0: never). PTL_ERR_OUT_OF_NODES when the windows overflow the
   stack. */
ptl_status ptl_clear_nearest_wall(ptl_query* q, double px, double pz, uint32_t cell, double max_d, double stop_d,
                                  ptl_clear_wall* best);

/* The distance from vertex v to the nearest wall that does not end at v, among those it sees; cached
   per query (q->vert_rho; the navmesh never changes). A lower bound (float rounded down); 0 when the
   sweep could not finish. */
double ptl_clear_vertex_rho(ptl_query* q, uint32_t v);

/* A walk along a segment in plan (ptl_clear_trace). */
typedef struct ptl_clear_trace_out {
    bool hit;                /* a wall stops it before the target */
    double t;                /* the fraction of the segment walked (1: to the target) */
    uint32_t start;          /* the start cell it walked from */
    uint32_t cell;           /* the cell it ends in (holding the target, or the wall) */
    uint32_t edge;           /* the wall's edge in `cell` when hit, else PTL_NONE */
    uint32_t* cells;         /* the cells passed through, in order (may be NULL) */
    uint32_t cell_capacity;  /* of cells */
    uint32_t cell_count;     /* cells the walk passed through (all of them, even past capacity) */
} ptl_clear_trace_out;

/* Walks from point s toward (tx, tz) through the portals its segment crosses, from the start cell
   that goes furthest (a point on an edge or a vertex belongs to several): at a vertex a portal is
   taken before a wall, so a segment grazing a corner passes. False when the walk lost its way
   (rounding at a vertex). */
bool ptl_clear_trace(const ptl_query* q, const ptl_qpoint* s, double tx, double tz, ptl_clear_trace_out* out);

/* ptl_clear_trace from a point s of one cell (ptl_qpoint_in_cell) that a caller gave without
   locating it: *held false (and false returned) when the cell does not hold s within the
   point-location tolerance (ptl_query_cell_holds_within), tested on the first step's edges. */
bool ptl_clear_trace_held(const ptl_query* q, const ptl_qpoint* s, double tx, double tz, ptl_clear_trace_out* out, bool* held);

/* The cell holding (tx, tz) reached from point s (from any of its cells) along the straight segment
   in plan, crossing only portals; PTL_NONE when a wall is in the way. */
uint32_t ptl_clear_walk(const ptl_query* q, const ptl_qpoint* s, double tx, double tz);

/* Calls seen(user, v) once for every vertex v that the located point `from` sees (the open segment
   between them crosses no wall): a sweep of windows of sight from its cells. PTL_ERR_OUT_OF_NODES
   when the windows overflow the stack. */
ptl_status ptl_clear_visible(ptl_query* q, const ptl_qpoint* from, void (*seen)(void* user, uint32_t vert), void* user);

/* The vertices `from` sees within near_d in every direction, and beyond it those in the cone
   counter-clockwise from direction (win[0], win[1]) to (win[2], win[3]) (under 180 degrees): each
   passed to `seen` once. */
ptl_status ptl_clear_visible_cone(ptl_query* q, const ptl_qpoint* from, const double win[4], double near_d,
                                  void (*seen)(void* user, uint32_t vert), void* user);

/* ptl_clear_visible (win NULL) or ptl_clear_visible_cone from vertex v, with the same vertices in
   the same order, less v itself and those that are not corners (ptl_query_is_corner), from the lists
   of what v sees that the query keeps (q->vc_*; built by the first call; a sweep as before where they
   cannot be kept: then every vertex). `win` must be the one window of v for `side` (the disc search's
   departure window: the lists are kept per vertex and side). */
ptl_status ptl_clear_visible_vertex(ptl_query* q, uint32_t v, int side, const double* win, double near_d,
                                    void (*seen)(void* user, uint32_t vert), void* user);

/* The nearest point to s (in plan) that keeps `radius` from every wall and that s sees, at most
   `reach` away: (*x, *z) in *cell. s itself when it keeps the radius. PTL_ERR_NOT_FOUND when none.
   *roomy (may be NULL): *cell when s itself was kept and the sweep from it in that cell met no wall
   within the radius at all (ptl_clear_float_point then keeps its floats when they equal it), else
   PTL_NONE. */
ptl_status ptl_clear_move(ptl_query* q, const ptl_qpoint* s, double radius, double reach, double* x, double* z,
                          uint32_t* cell, uint32_t* roomy);
/* Float coordinates for (x, z), a point of `cell` that keeps r, that keep r too where floats can:
   rounded, or moved by up to two float steps where rounding would bring them nearer. */
void ptl_clear_float_point(ptl_query* q, double x, double z, uint32_t cell, double r, float* fx, float* fz);

/* How far a clear point may move for a request's extents (NULL or zero: 2). */
double ptl_clear_reach(const float extents[3]);

/* The ends of a disc path as ptl_clear_move left them: roomy[0] for the start, [1] the goal
   (ptl_clear_move's *roomy; PTL_NONE: not known). Written as they are where their floats equal
   them and the writer locates them in that cell: ptl_clear_float_point would keep them. */
typedef struct ptl_disc_ends {
    uint32_t roomy[2];
} ptl_disc_ends;

/* The exact shortest path of a disc of radius r > 0 (disc_path.c): same contract as the searches of
   query_internal.h, start and goal already located and moved to keep r; ends may be NULL. */
ptl_status ptl_query_disc_path(ptl_query* q, const ptl_qpoint* start, const ptl_qpoint* goal, double r,
                               double tolerance, const ptl_disc_ends* ends, ptl_path_turn* turns, uint32_t turn_capacity,
                               ptl_path_result* res);
/* The corridor path of a disc (disc_funnel.c): A* over the cells a disc can cross, the funnel with
   circles, every piece checked; the exact search where a check fails. Same contract. */
ptl_status ptl_query_disc_corridor(ptl_query* q, const ptl_qpoint* start, const ptl_qpoint* goal, double r,
                                   double tolerance, const ptl_disc_ends* ends, ptl_path_turn* turns,
                                   uint32_t turn_capacity, ptl_path_result* res);

#endif
