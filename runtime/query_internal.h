/* The query object: all scratch memory of the searches, sized by the navmesh at creation so that a
   query never allocates afterwards (STYLE: Recast/Detour's rule). Private to the runtime; shared by
   query.c (create/destroy), locate.c (point location), search.c (exact interval search) and
   corridor.c (A* over cells + funnel).

   Per-cell and per-vertex arrays are tagged with a generation stamp instead of being cleared: a
   search takes a new stamp and treats every entry with another stamp as unset, so starting a
   search is O(1) whatever the mesh size. */
#ifndef PTL_QUERY_INTERNAL_H
#define PTL_QUERY_INTERNAL_H

#include <string.h>

#include "funnel.h"
#include "navmesh_internal.h"

/* ptl_query_desc.max_nodes 0: PTL_QUERY_NODES_PER_VERT per vertex, within [PTL_QUERY_DEFAULT_MIN_NODES,
   PTL_QUERY_DEFAULT_MAX_NODES] */
#define PTL_QUERY_DEFAULT_MAX_NODES 65536u
#define PTL_QUERY_DEFAULT_MIN_NODES 4096u
#define PTL_QUERY_NODES_PER_VERT 16u
#define PTL_QUERY_MIN_MAX_NODES 64u

/* A node of the exact search (Polyanya, Cui, Harabor and Grastien 2017, §3): a root point and an
   interval on an edge, seen from the root; `cell` is the cell beyond the interval. Left and right
   are as seen from the root looking through the interval into `cell`: the right end lies towards
   the cell's vertex edge+1, the left end towards vertex edge. */
typedef struct ptl_snode {
    double lx, lz, rx, rz; /* the interval's ends */
    double ox, oz;         /* the root */
    double g;              /* [Units: wu] length of the path from the start to the root */
    uint32_t parent;       /* pool index of a node whose root is the previous turning point (PTL_NONE: none);
                              the next free node while the node is on the free list */
    uint32_t root;         /* vertex id of the root; PTL_NONE when the root is the start point */
    uint32_t cell;         /* the cell beyond the interval */
    uint32_t refs;         /* pool nodes whose parent this node is */
    uint16_t edge;         /* the interval's edge, as an index in `cell` */
    uint8_t ends;          /* PTL_END_* and PTL_TURNED_* flags */
    uint8_t done;          /* expanded or dropped: recycled as soon as refs is 0 */
} ptl_snode;

/* ptl_snode.ends: which ends of the interval are exactly the edge's vertices, and for a node whose
   root is a turning point, the side the path turned to there (see search.c, taut sweeps). */
enum { PTL_END_RIGHT = 1u << 0, PTL_END_LEFT = 1u << 1, PTL_TURNED_RIGHT = 1u << 2, PTL_TURNED_LEFT = 1u << 3 };

typedef struct ptl_heap_item {
    double f;
    uint32_t node;
    float g; /* tie-break: on equal f the larger g first */
} ptl_heap_item;

/* Edge i of a cell (cell-vertex slot first + i), packed so that an expansion reads one cell's
   edges from one run of memory instead of four arrays indexed by vertex and cell. */
typedef struct ptl_slot {
    float x, z;      /* the edge's first vertex (the cell's vertex i) */
    uint32_t nbr;    /* the cell across the edge, PTL_NONE for a wall */
    uint16_t twin;   /* the edge's index in nbr */
    uint8_t corner;  /* a path may turn at vertex i: reflex or straight on the walkable boundary */
    uint8_t open;    /* nbr exists and is not a dead end (at most one neighbour) */
} ptl_slot;

/* Edge i of a cell (slot first + i) as the point walks read it: from slot i's vertex to slot i + 1's,
   in doubles ((double) of the floats, subtracted: what the walks computed per edge before), and its
   length (ptl_len2 of them). Built with the slots, once. */
typedef struct ptl_slot_edge {
    double ex, ez, len;
} ptl_slot_edge;

/* The turns a search made at one vertex of one cell, to skip exact duplicates: paths of equal
   length that arrive along the same line (e.g. r->v, and r->a->v with a on the line) turn
   identically. */
typedef struct ptl_turn {
    double g;        /* [Units: wu] length to the vertex of the turns recorded */
    double dx, dz;   /* the direction they arrived in (not normalised) */
    uint32_t stamp;  /* generation: unset unless it equals the query's stamp */
    uint8_t sides;   /* PTL_TURNED_* already made */
    uint8_t pad[3];
} ptl_turn;

/* Per-cell state of the corridor search (A* over cells). */
typedef struct ptl_ccell {
    double g, f;        /* [Units: wu] path length to the entry point; g + straight line to the goal */
    double x, z;        /* entry point: where the path crosses into the cell */
    uint32_t stamp;     /* generation: the entry is unset unless it equals the query's stamp */
    uint32_t parent;    /* the cell the path came from (PTL_NONE at a start cell) */
    uint32_t heap_pos;  /* index in the open list, PTL_NONE when not in it */
    uint32_t arc;       /* the off-mesh link's arc it was entered by from `parent`, else PTL_NONE */
    uint16_t edge;      /* the crossed edge, as an index in `parent` (not used with `arc`) */
    uint8_t closed;
    uint8_t pad;
} ptl_ccell;

/* Where a query point lies (locate.c). */
typedef enum ptl_qpoint_kind {
    PTL_QPOINT_CELL = 0,   /* inside one cell */
    PTL_QPOINT_EDGE = 1,   /* on the interior of an edge: the cell(s) sharing it */
    PTL_QPOINT_VERTEX = 2  /* on a vertex: the cells around that vertex id */
} ptl_qpoint_kind;

#define PTL_QPOINT_OWN 16u

typedef struct ptl_qpoint {
    double x, z;            /* the point the search uses: the input when it is on the mesh, else the snapped point */
    float y;                /* height of the mesh there */
    float distance;         /* [Units: wu] from the input point */
    ptl_qpoint_kind kind;
    uint32_t cell;          /* a cell containing the point */
    uint32_t edge;          /* PTL_QPOINT_EDGE: edge index in `cell` */
    uint32_t vert;          /* PTL_QPOINT_VERTEX: the vertex id (after the pinch rule) */
    uint32_t pair[2];       /* storage for the cell set of the CELL and EDGE kinds */
    uint32_t own[PTL_QPOINT_OWN]; /* a vertex's cells less those a query filter excludes (filter.c) */
    const uint32_t* cells;  /* the cells the point belongs to (a search starts or ends in any of them) */
    uint32_t cell_count;
    bool ambiguous;         /* on a pinch vertex of a mesh without PTL_NAVMESH_LATTICE_POINTS */
} ptl_qpoint;

/* The interval search between its slices (search.c; the sliced API in sliced.c): its ends, its
   count of expansions and its goal stamp; the one-shot search goes through it too. */
enum { PTL_RUN_NONE = 0, PTL_RUN_GOING = 1, PTL_RUN_DONE = 2 };
typedef struct ptl_search_run {
    ptl_qpoint s, t;          /* the ends (copies: ptl_qpoint_copy) */
    uint64_t expansions, limit;
    uint32_t stamp;           /* q->stamp when it began: another search since ends it */
    uint32_t fin;             /* PTL_RUN_DONE with PTL_OK: the pool node that reached the goal */
    ptl_status status;        /* PTL_RUN_DONE: PTL_OK (fin), PTL_PARTIAL (exhausted) or an error */
    uint8_t state;            /* PTL_RUN_* */
    bool alt_later;           /* the landmark bounds are still to be taken (3D navmeshes) */
    bool links;               /* the search uses off-mesh links (q->om_on when it began) */
    bool reversed;            /* s and t are the request's goal and start (search.c, search_begin) */
    /* The sliced API: its request and located ends, and whether it is begun (and sliced: an exact
       radius-0 search; otherwise the path is found whole in ptl_query_path_finish). */
    ptl_path_request req;
    ptl_qpoint sp, gp;
    uint8_t sliced;           /* 0: none begun; 1: begun, found whole at finish; 2: begun, searching */
    ptl_status begin_status;  /* a failure of the ends' location, reported at finish */
} ptl_search_run;

/* *out = (x, y, z) as a point of cell `cell` alone (PTL_QPOINT_CELL): a point a query knows the
   cell of (a caller's cell, a partial path's end, a moved end). */
static inline void ptl_qpoint_in_cell(ptl_qpoint* out, uint32_t cell, double x, float y, double z) {
    /* every field but `own` (a vertex's filtered cells, read for PTL_QPOINT_VERTEX only): the
       known-cell queries make one a call, and clearing the 64 bytes of `own` was a tenth of a move */
    out->x = x, out->y = y, out->z = z;
    out->distance = 0;
    out->kind = PTL_QPOINT_CELL;
    out->cell = out->pair[0] = cell;
    out->pair[1] = 0;
    out->edge = out->vert = 0;
    out->cells = out->pair;
    out->cell_count = 1;
    out->ambiguous = false;
}

/* *dst = *src, its cell list kept pointing at its own storage when it did. */
static inline void ptl_qpoint_copy(ptl_qpoint* dst, const ptl_qpoint* src) {
    *dst = *src;
    if (src->cells == src->pair) dst->cells = dst->pair;
    else if (src->cells == src->own) dst->cells = dst->own;
}

struct ptl_query {
    const ptl_navmesh* nm;
    ptl_allocator alloc;
    uint32_t max_nodes;
    uint32_t max_cell_verts;
    uint32_t stamp;      /* current generation of every stamped array */
    double eps;          /* [Units: wu] geometric tolerance of the searches: 1e-9 x the coordinate scale */
    double inv_vox_cs;   /* [Units: 1/wu] 1 / the height grids' voxel size (0: none); the move's end height */
    double wall_tol;     /* [Units: wu] how far a vertex may lie off its neighbours' chord on the
                            wrong side and its cell still be convex (ptl_nm_cell_reflex: the
                            navmesh's tolerance plus its relaxation): ptl_vis_tangent's */
    double loc_eps;      /* [Units: wu] point-location tolerance: 1e-6 x the coordinate scale (the
                            largest coordinate magnitude of the mesh, at least 1) */

    /* Exact search. */
    ptl_snode* nodes;    /* pool, max_nodes; a node lives while it is open or an ancestor of one */
    uint32_t node_count; /* pool entries ever used by the current search */
    uint32_t free_head;  /* recycled pool entries, linked through `parent` */
    ptl_heap_item* heap; /* open list, max_nodes */
    uint32_t heap_count;
    ptl_snode* succ;     /* successors of one expansion: 3 * max_cell_verts */
    double* side;        /* 2 * max_cell_verts: signed distances of a cell's vertices from the two rays */
    uint32_t* vis_seen;  /* max_cell_verts: the slots of the vertices one visibility expansion sees */
    bool vis_skip_pockets; /* visibility expansions enter no cell of a lid's pocket (nm->cell_lid) but
                              a target's */
    ptl_search_run run;    /* the search in progress (search.c, sliced.c) */
    bool to_nearest;       /* the exact search's goal is the reachable point nearest an unreachable
                              goal (path.c, a partial path): search_begin's direction rule */

    /* Per vertex. */
    uint32_t* wall;       /* 2 per vertex: the vertex before it along the walls and the one after
                             (PTL_NONE: none; the vertex itself: more than one) */
    uint8_t* vcorner;     /* 1 per vertex: is_corner of its walls (ptl_query_is_corner), with them */
    double* root_g;       /* best g at which a search reached the vertex as a root */
    uint32_t* root_stamp;

    /* Per cell-vertex slot (cell first + i): the edge i of the cell, packed for the searches, and
       the turns the current search made at the cell's vertex i within the cell (stamped). */
    ptl_slot* slots;
    ptl_slot_edge* sedges; /* the edges' vectors and lengths (the raycast's and the move's walks) */
    ptl_turn* turns;

    /* Query filter (filter.c): per cell 1 when excluded, and its cost (NULL: every cost 1); the
       slots, wall, corner and dead_end tables above are derived from the filter. */
    ptl_query_filter filter;
    uint8_t* cell_off;    /* cell_count */
    float* cell_cost;     /* cell_count, or NULL when `weighted` is false */
    double h_scale;       /* the least cost of an included area present: scales the A*'s heuristic */
    bool any_off;         /* some cell is excluded */
    bool weighted;        /* some included area present costs other than 1 */

    /* Per cell. */
    uint32_t* goal_stamp; /* the cell holds the goal of the current search */
    uint32_t* seen_stamp; /* visited by the current point location */
    uint8_t* dead_end;    /* 1: the cell has at most one neighbour */
    ptl_ccell* cc;        /* corridor search */
    uint32_t* cheap;      /* corridor open list (cell ids), cell_count */
    double* cell_box;     /* 4 per cell: x0, x1, z0, z1 holding every point point location may find the
                             cell to contain (its polygon and the tolerance around it; locate.c) */
    float* cell_yr;       /* 2 per cell, after cell_box's: the least and greatest height ptl_query_cell_y
                             can give for the cell (-inf, +inf when not known) */
    /* Point location's occupancy mask (occupancy.c): the plan bounds cut into at most
       ptl_query_occupancy_tiles square tiles, and per tile one bit per height band (32 bands over
       the cells' height ranges): set where a cell's polygon, with a margin, meets the tile and its
       height range (cell_yr) the band. A search box whose tiles have no bit of its bands set holds
       no cell point location would look at. occ_on false: not built (every box may hold one). */
    uint32_t* occ;
    bool occ_on;
    uint32_t occ_nx, occ_nz;
    double occ_x0, occ_z0, occ_inv_tile; /* [Units: wu, wu, 1/wu] */
    double occ_y0, occ_inv_band;         /* [Units: wu, 1/wu] */
    double occ_xlast, occ_zlast;         /* occ_nx - 1, occ_nz - 1 */
    double occ_ymargin;                  /* [Units: wu] added around the heights of a query */
    double vert_mag;      /* [Units: wu] the largest |x| or |z| of the cells' vertices (locate.c; +inf
                             without cell boxes or with a NaN) */
    uint32_t cheap_count;
    ptl_funnel_portal* portals; /* corridor portals, cell_count */
    ptl_funnel_point* fpoints;  /* the funnel's path, cell_count + 2 */

    /* Landmarks (ALT, Goldberg and Harrelson 2005): for the current search, lower and upper bounds
       of the goal's distance to each landmark of its piece, and per vertex a cached lower bound of
       its distance to the goal (stamped). */
    uint32_t lm_count;   /* landmarks per vertex in the navmesh (0: none) */
    double* lm_goal_lo;  /* lm_count */
    double* lm_goal_hi;  /* lm_count */
    double* alt_h;       /* per vertex */
    uint32_t* alt_stamp; /* per vertex */
    double alt_start;    /* the bound for the start point */
    bool alt_on;         /* the current search uses the landmarks */

    /* Hub labels (hubs.c; only when the navmesh has them and no switch ignores them): per
       hub and per side of the search (0: the start's, 1: the goal's) the best length from that end
       to the hub through a corner it sees (+inf when none: a search puts back +inf for the hubs of
       the labels it took in), the corners each side took in, and those it has found (stamped). */
    bool use_hubs;
    bool use_disc; /* the disc search's arrays exist (ptl_query_switches.no_disc) */
    double* hub_d[2];        /* one block of 2 * hub_count, the sides interleaved: side k at [2 * hub + k] */
    uint32_t* hub_taken[2];  /* hub_count each */
    uint32_t* hub_seen[2];   /* hub_count each */
    double* hub_cd[2];       /* hub_count each: the shortest length to the hub's corner found */
    uint32_t* hub_cfrom[2];  /* hub_count each: the root it was found from */
    uint32_t hub_pend_cap;   /* entries of each hub_pend */
    /* With lids only (nm->vert_lid), per side: the vertices of the ends' pockets a search turned at
       or saw (a stamped hash table), and the roots waiting for their sweep; hub_vrec_cap each
       (PTL_HUB_VRECS; a power of two: tests lower it to make searches overflow). */
    struct ptl_hub_vrec* hub_vrec[2];
    ptl_heap_item* hub_rq[2];
    uint32_t hub_vrec_cap;
    uint32_t hub_fallbacks;           /* hub searches that ran out of room and fell back (search.c) */
    ptl_heap_item* heap2;             /* the goal side's open list, max_nodes */
    ptl_heap_item* hub_pend[2];       /* hub_pend_cap each: corners found, not yet taken in */
    uint32_t* hub_chain;              /* vert_count + 2: the vertices of one path */

    /* Pockets (pockets.c): the navmesh has them and no switch ignores them; on for the
       current exact search (one with a goal), and its start and goal in x-z. */
    bool use_pockets;
    bool pockets_on;
    ptl_pocket_ends pk;

    /* One-to-all distances (ptl_query_vertex_distances): when set, expansions record the length of
       the shortest path found so far to every vertex they see. Per vertex. */
    double* record;

    /* The disc search (disc_path.c): per vertex and side (2 v + (side > 0)), the best checked
       arrival on the corner's circle (stamped). */
    struct ptl_disc_rec* disc_rec;
    /* Per vertex: the distance to the nearest wall not ending at it, once a clearance query needed it
       (clearance.c, ptl_clear_vertex_rho); -1: not known yet. Kept across queries. */
    float* vert_rho;
    /* Per vertex, 5 doubles: the left normals (unnormalised: the walls' directions turned) of the
       walls arriving at it and leaving it, as ptl_disc_cone_miss uses them, and the angle of its
       normal cone (disc_path.c, cone_width); set with the walls (ptl_query_build_slots). NULL
       without the disc searches. */
    double* vcone;
    /* The checks of the disc searches' segments from one corner's circle to another's (disc_path.c,
       ptl_disc_check_state): a direct-mapped table of seg_memo_cap (a power of two) entries, each
       valid while its gen is seg_memo_gen (ptl_query_build_slots moves it on: the walls changed).
       Such a segment and its check depend on the two corners, their sides, r and the walls alone;
       the search's paths meet the same few corner pairs again and again. Kept across queries. */
    struct ptl_seg_memo* seg_memo;
    uint32_t seg_memo_cap, seg_memo_gen;
    /* Per vertex, three lists of the vertices it sees, in the order of the sweep of sight from it
       (clearance.c, ptl_clear_visible_vertex): every direction, and the departure windows of the disc
       search's two sides; built when a disc search first expands the vertex, kept across queries (they
       depend on the navmesh and the filter's walls only: ptl_query_build_slots empties them). vc_head:
       start and count per list (6 per vertex; count PTL_NONE: not built, PTL_NONE - 1: never kept);
       vc_vert holds vc_cap entries, vc_used of them taken;
       when the room is full they are all dropped; vc_reach: per vertex, the distance the
       every-direction list reaches (a list for a disc search's window stops at the near distance it
       asked for, as the sweep it stands for does: on open maps the whole view costs far more). */
    uint32_t* vc_head;
    double* vc_reach;
    uint32_t* vc_vert;
    uint32_t vc_cap, vc_used;

    /* The searches' corners (3 * (vert_count + 2): any path), when the path's cells are asked for
       or on 3D navmeshes (height grids) the path follows the surface; the height profile of one
       segment (surface.c) for the latter, NULL for 2D navmeshes. */
    float* corners;
    struct profile* profile;

    /* Random points (random.c): per cell, the surface area (3D) of the cells up to and including it
       and the largest ratio of surface to plan area within it (0: a link cell), built by the first
       draw (surf_ready), with the scratch that takes (surf_scratch: ptl_random_scratch_doubles). */
    double* surf_cum;     /* cell_count + 1 */
    float* surf_wmax;     /* cell_count + 1 */
    double* surf_scratch;
    bool surf_ready;

    /* Off-mesh links (offmesh_search.c): the navmesh's om_gen the slots and arrays below match,
       per arc (om_arc_cap: 2 per slot of the table) the best length found to its start (stamped)
       and whether it was taken from the open list (stamped), its bound k (a lower bound of the
       rest of the way from its start, its cost included), and the arcs that may beat the straight
       line (om_useful: start x, z and k each). om_on: the current search uses links. */
    uint32_t om_gen, om_arc_cap, om_useful_count;
    bool om_on;
    double* om_g;
    double* om_k;
    uint32_t* om_stamp;
    uint32_t* om_done;
    double* om_useful;
    /* A path's corners and their flags while it holds links and its surface or cells are asked for
       (path.c, offmesh_path.c): om_corner_cap points, grown with the table (ptl_om_corner_cap). */
    float* om_corners;
    uint8_t* om_flags;
    uint32_t om_corner_cap;
};

/* ptl_snode.ends flags of the exact search with off-mesh links (search.c): a link node (cell: the
   arc, g: the length to its start, lx, lz: the point the way to it turned at, rx that point's
   height, when PTL_NODE_TURN), and a node whose goal length is final (its key is exact). */
enum { PTL_NODE_LINK = 1u << 4, PTL_NODE_TURN = 1u << 5, PTL_NODE_FINAL = 1u << 6 };

/* A memo of the check of a segment from corner v1's circle (side o1) to corner v2's (side o2) at
   radius r (query.seg_memo): the segment's ends as the search computed them (a hit needs them
   bit for bit) and what the check gave: ok, the cell of the arrival, the ends' heights. */
typedef struct ptl_seg_memo {
    uint32_t v1, v2, gen, cell;
    int8_t o1, o2;
    uint8_t ok, pad;
    float dy, ay;
    double r, dx, dz, ax, az;
} ptl_seg_memo;

typedef struct ptl_disc_rec {
    double g;       /* [Units: wu] length to the arrival point */
    double a;       /* the arrival point's angle around the corner (atan2, radians) */
    uint32_t stamp; /* generation: unset unless it equals the search's */
    uint32_t pad;
} ptl_disc_rec;

/* Does a shortest path possibly turn at vertex v: do the walls at v turn right or go straight (or is
   v not on exactly one pair of walls)? (query.c) */
bool ptl_query_is_corner(const ptl_query* q, uint32_t v);
/* move.c: does cell c hold (x, z) within the point-location tolerance (each edge's line at most
   loc_eps outside)? How the known-cell entries (moves, raycasts, heights) take a caller's cell. */
bool ptl_query_cell_holds_within(const ptl_query* q, uint32_t c, double x, double z);
/* Derives slots, wall, corners and dead_end from the navmesh and the query's filter (query.c). */
bool ptl_query_build_slots(ptl_query* q);
/* filter.c: is cell c excluded by the query's filter? */
static inline bool ptl_query_cell_off(const ptl_query* q, uint32_t c) { return q->any_off && q->cell_off[c]; }
/* filter.c: the cost of crossing cell c per unit length (1 unless the filter weighs areas). */
static inline double ptl_query_cell_cost(const ptl_query* q, uint32_t c) { return q->weighted ? q->cell_cost[c] : 1.0; }
/* filter.c: a located point's cells less the excluded ones (a vertex's copied into out->own);
   false when none is left. */
bool ptl_query_filter_point(const ptl_query* q, ptl_qpoint* p);
/* filter.c: ptl_query_nearest_reachable under a filter that excludes cells (the navmesh's pieces
   are the unfiltered mesh's): breadth first over the filtered cells from s. */
ptl_status ptl_query_filter_nearest_reachable(ptl_query* q, const ptl_qpoint* s, const float goal[3], ptl_qpoint* out);
/* filter.c: the same, over the cells reached from s through portals a disc of `radius` can cross
   (ptl_query_portal_wide; 0: every portal), the query's filter applied. */
ptl_status ptl_query_nearest_reached(ptl_query* q, const ptl_qpoint* s, const float goal[3], double radius, ptl_qpoint* out);
/* corridor.c: can a disc cross the portal from vertex a to b (min_w2: about (2 r)^2)? Not where
   both ends lie on walls nearer than that. */
bool ptl_query_portal_wide(const ptl_query* q, uint32_t a, uint32_t b, double min_w2);

/* Switches for comparisons in tests and benchmarks, kept out of the public ptl_query_desc: both
   give the same lengths, more slowly. ignore_hubs: exact paths search the cells as if the navmesh
   had no hub labels. ignore_pockets: exact searches look into every pocket (runtime/pockets.c). */
typedef struct ptl_query_switches {
    bool ignore_hubs;
    bool ignore_pockets;
    /* every cell's box and height range left unbounded (no cell is skipped: locates stay right,
       only slower), for queries that never locate a point, such as the landmarks' distance
       searches: the boxes and ranges (ptl_query_cell_boxes) read every cell's height grid */
    bool no_cell_boxes;
    /* no room for paths of a disc (radius > 0 is PTL_ERR_UNSUPPORTED): the bake's own queries
       (landmarks, hub labels) never ask for one, and the disc search's records, memo and sight
       lists (up to a few MB on a big navmesh) would count in the bake's peak */
    bool no_disc;
} ptl_query_switches;

/* ptl_query_create with switches (NULL: none, as ptl_query_create). */
ptl_status ptl_query_create_with_switches(const ptl_navmesh* nm, const ptl_query_desc* desc,
                                          const ptl_query_switches* sw, ptl_query** out);

/* A fresh generation for the stamped arrays (clears them once every 2^32 searches). */
uint32_t ptl_query_next_stamp(ptl_query* q);

/* Locates p under the rules of the path queries: the nearest point of the mesh within the box of
   half-extents `extents` (NULL or all zero: 2, 4, 2), then the cells it belongs to. PTL_OK, or
   PTL_ERR_NOT_FOUND (no mesh in the box, or an ambiguous pinch point: out->ambiguous), or
   PTL_ERR_INVALID_ARG (non-finite or negative input). */
ptl_status ptl_query_locate_point(ptl_query* q, const float p[3], const float extents[3], ptl_qpoint* out);

/* The query point at vertex v itself: kind PTL_QPOINT_VERTEX, the cells around v (the first as its
   cell; cell_count 0 for a vertex no cell uses). */
void ptl_query_vertex_point(const ptl_navmesh* nm, uint32_t v, ptl_qpoint* out);

/* Fills q->cell_box (q->loc_eps set): a query point outside a cell's box is not in the cell,
   and no nearer to it than to the box, which point location reads before the cell's vertices;
   and q->cell_yr (in the same allocation), so that a cell on another floor than the point's box
   is passed over before its polygon or its heights are read. */
void ptl_query_cell_boxes(ptl_query* q);

/* Point location's occupancy mask (q->occ; occupancy.c). */
#define PTL_OCC_TILES_PER_CELL 32u
#define PTL_OCC_MIN_TILES 256u
#define PTL_OCC_MAX_TILES 4096u
#define PTL_OCC_BANDS 32u
#define PTL_OCC_DEFAULT_HALF_HEIGHT 4.0 /* [Units: wu] locate.c's default extents' y */
/* The tiles of q->occ: PTL_OCC_TILES_PER_CELL per cell, within [PTL_OCC_MIN_TILES, PTL_OCC_MAX_TILES]
   (4 bytes each: at most 16 KB). */
uint32_t ptl_query_occupancy_tiles(const ptl_navmesh* nm);
/* Fills q->occ from the cells' polygons and q->cell_yr (after ptl_query_cell_boxes) and sets
   q->occ_on (false for a navmesh without cells or with non-finite vertices, and where the mask
   could answer only boxes over a few gaps in plan: occupancy.c). */
void ptl_query_occupancy_build(ptl_query* q);

/* floor((v - o) * inv) clamped to [0, last], monotone in v (finite or infinite v; not NaN): the
   occupancy mask's index of a coordinate (a clamped value truncates as floor does). */
static inline uint32_t ptl_occ_index(double v, double o, double inv, double last) {
    double f = (v - o) * inv;
    f = f > 0 ? f : 0;
    f = f < last ? f : last;
    return (uint32_t)f;
}

/* The occupancy mask's bands of the heights [y0, y1] (widened by q->occ_ymargin). */
static inline uint32_t ptl_query_occ_bands(const ptl_query* q, double y0, double y1) {
    const double last = PTL_OCC_BANDS - 1;
    const uint32_t b0 = ptl_occ_index(y0 - q->occ_ymargin, q->occ_y0, q->occ_inv_band, last);
    const uint32_t b1 = ptl_occ_index(y1 + q->occ_ymargin, q->occ_y0, q->occ_inv_band, last);
    return (uint32_t)((2ull << b1) - (1ull << b0));
}

/* Can a cell give point location a point (x, z) in plan with a height in `bands`
   (ptl_query_occ_bands)? False only when none can (q->occ_on). A point lies in the tile its index
   gives up to rounding, far less than the margin the tiles were marked with (occupancy.c). */
static inline bool ptl_query_occ_point(const ptl_query* q, double x, double z, uint32_t bands) {
    if (!q->occ_on) return true;
    const uint32_t ix = ptl_occ_index(x, q->occ_x0, q->occ_inv_tile, q->occ_xlast);
    const uint32_t iz = ptl_occ_index(z, q->occ_z0, q->occ_inv_tile, q->occ_zlast);
    return (q->occ[(size_t)iz * q->occ_nx + ix] & bands) != 0;
}

/* ... a point in [x0, x1] x [z0, z1] (its tiles: those of its corners' indices and between, so
   every point of the box is in one of them, the index being monotone). */
static inline bool ptl_query_occ_box(const ptl_query* q, double x0, double x1, double z0, double z1, uint32_t bands) {
    if (!q->occ_on) return true;
    const uint32_t ix0 = ptl_occ_index(x0, q->occ_x0, q->occ_inv_tile, q->occ_xlast);
    const uint32_t ix1 = ptl_occ_index(x1, q->occ_x0, q->occ_inv_tile, q->occ_xlast);
    const uint32_t iz0 = ptl_occ_index(z0, q->occ_z0, q->occ_inv_tile, q->occ_zlast);
    const uint32_t iz1 = ptl_occ_index(z1, q->occ_z0, q->occ_inv_tile, q->occ_zlast);
    for (uint32_t iz = iz0; iz <= iz1; ++iz) {
        const uint32_t* row = q->occ + (size_t)iz * q->occ_nx;
        uint32_t any = 0;
        for (uint32_t ix = ix0; ix <= ix1; ++ix) any |= row[ix];
        if (any & bands) return true;
    }
    return false;
}

/* Can a cell of the navmesh give point location a point in [x0, x1] x [z0, z1] in plan with a
   height in [y0, y1]? False only when none can; true when it may. */
static inline bool ptl_query_occupied(const ptl_query* q, double x0, double x1, double z0, double z1, double y0, double y1) {
    return !q->occ_on || ptl_query_occ_box(q, x0, x1, z0, z1, ptl_query_occ_bands(q, y0, y1));
}

/* Height of the mesh at (x, z) on `cell`, from the cell's vertices. */
float ptl_query_cell_y(const ptl_navmesh* nm, uint32_t cell, double x, double z);

/* ptl_query_cell_y, the same value, with q->cell_yr to skip the vertex scan of a cell without a
   height grid whose vertices are all at one height (its range is one value: that height). Most
   cells of a 3D bake on flat floors are such cells. */
static inline float ptl_query_cell_yq(const ptl_query* q, uint32_t cell, double x, double z) {
    const ptl_navmesh* nm = q->nm;
    if (!nm->cell_grids || !nm->cell_grids[cell].w || !nm->cell_grids[cell].d) {
        const float* r = q->cell_yr + 2 * (size_t)cell;
        if (r[0] == r[1]) return nm->verts[3 * nm->cell_verts[nm->cells[cell].first] + 1];
    }
    return ptl_query_cell_y(nm, cell, x, z);
}

/* Bounds of point p's distance to each landmark, from the vertices of a cell holding p (all of them
   visible from p: the cell is convex; the 6 nearest): d(L, v) - |vp| <= d(L, p) <= d(L, v) + |vp|. A landmark its
   piece does not have gives (-inf, +inf). lo and hi hold q->lm_count values (search.c). */
void ptl_query_point_bounds(const ptl_query* q, const ptl_qpoint* p, double* lo, double* hi);


/* Landmarks per search: of the navmesh's, the `max` with the largest bound between two points whose
   landmark distances lie in [alo, ahi] and [blo, bhi] (Goldberg and Harrelson's active landmarks,
   ties: the lower index), written to out; returns how many (landmarks of another piece are none). */
uint32_t ptl_query_active_landmarks(uint32_t k, const double* alo, const double* ahi, const double* blo,
                                    const double* bhi, uint32_t max, uint32_t* out);
#define PTL_ACTIVE_LANDMARKS 6u

/* A vertex of an end's pocket in the hub search (hubs.c): a root it turned at, a corner of the
   other end's pocket it saw, or both. */
#define PTL_HUB_VRECS 4096u /* per side; a search that needs more falls back to the interval search */
typedef struct ptl_hub_vrec {
    uint32_t v, stamp;   /* the vertex; unset unless stamp is the search's */
    double root_g;       /* [Units: wu] length to v as a root */
    double meet_d;       /* [Units: wu] length to v seen (a corner of the other end's pocket) */
    uint32_t root_par;   /* the root v was turned at from (PTL_NONE: the end) */
    uint32_t meet_from;  /* the root v was seen from */
    uint8_t has_root, has_meet;
    uint8_t pad[6];
} ptl_hub_vrec;

/* The ends of a search from s to t for skipping pockets (search.c). */
void ptl_query_pocket_ends(const ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, ptl_pocket_ends* out);

/* The exact path with hub labels (hubs.c), when q->use_hubs: same contract as ptl_query_exact. */
ptl_status ptl_query_hub_path(ptl_query* q, const ptl_qpoint* start, const ptl_qpoint* goal, ptl_path_result* res);

/* The two searches (search.c, corridor.c). `res` is reset by the caller; start and goal are located. */
ptl_status ptl_query_exact(ptl_query* q, const ptl_qpoint* start, const ptl_qpoint* goal, ptl_path_result* res);
ptl_status ptl_query_corridor(ptl_query* q, const ptl_qpoint* start, const ptl_qpoint* goal, ptl_path_result* res);
/* The corridor search's A* over the cells alone: the cell holding the goal that it reached (its
   chain back to a start cell through q->cc[].parent and .edge, the edge of the parent crossed), or
   PTL_NONE. radius > 0 skips the portals a disc of that radius cannot cross (both ends on walls,
   nearer than 2 radius). */
uint32_t ptl_query_corridor_cells(ptl_query* q, const ptl_qpoint* start, const ptl_qpoint* goal, double radius,
                                  uint32_t* expanded);
/* The off-mesh links a disc of radius r takes from start to goal: the corridor's A* as above, also
   through the links (q->om_on: ptl_om_begin first), their arcs in the order taken into arcs[0..cap).
   How many (0: the way takes none), or PTL_NONE when the goal is not reached or more than cap links
   are taken; *expanded: the cells expanded. */
uint32_t ptl_query_disc_link_route(ptl_query* q, const ptl_qpoint* start, const ptl_qpoint* goal, double radius,
                                   uint32_t* arcs, uint32_t cap, uint32_t* expanded);

/* Exact shortest-path lengths from vertex `v` to every vertex of its piece of walkable space
   (others: +inf), written to dist[vert_count]: an interval search without a goal that records the
   length at which it sees each vertex. For the bake's landmarks. */
ptl_status ptl_query_vertex_distances(ptl_query* q, uint32_t v, double* dist);

/* visibility.c: what a point sees (a search that never turns).
   Does the start point s lie on edge j (vertices a, b) of its cell c, so that the edge leads nowhere new? */
bool ptl_vis_start_on_edge(const ptl_query* q, const ptl_qpoint* s, uint32_t c, uint32_t j, uint32_t a, uint32_t b);
/* Writes to q->succ the nodes rooted at p through the edges of p's cell cells[cell_index] (g 0, root
   PTL_NONE, no parent); returns their count. Cells stamped `stamp` in goal_stamp are targets: dead
   ends are entered only when they are. */
uint32_t ptl_vis_start(ptl_query* q, const ptl_qpoint* p, uint32_t stamp, uint32_t cell_index);
/* Expands n keeping its root: the observable successors to q->succ (returned count; root, g, parent
   copied from n), and the slots (cell first + i) of the cell's vertices inside the closed cone to
   seen[max_cell_verts] (*seen_count of them). */
uint32_t ptl_vis_expand(ptl_query* q, const ptl_snode* n, uint32_t stamp, uint32_t* seen, uint32_t* seen_count);
/* Is the line from (x, z) to vertex v tangent to the walls at v (both wall neighbours of v on one
   side of it, or on it), so that a taut path can turn at v? True when unsure (no or several walls). */
bool ptl_vis_tangent(const ptl_query* q, uint32_t v, double x, double z);
/* Calls seen_fn for every vertex visible from p (repeats possible); PTL_ERR_OUT_OF_NODES when the
   node pool cannot hold the sweep's stack. */
ptl_status ptl_query_visible_vertices(ptl_query* q, const ptl_qpoint* p, void (*seen_fn)(void* user, uint32_t vert),
                                      void* user);

/* surface.c: writes to res the path through `count` corners with the points where the surface under
   it bends added (3D navmeshes), and its length. PTL_TRUNCATED when the points did not fit. */
ptl_status ptl_query_follow_surface(ptl_query* q, const float* corners, uint32_t count, uint32_t start_cell,
                                    ptl_path_result* res);
size_t ptl_query_profile_size(void);

/* Puts path points from the goal back to the start: a counting pass (res NULL) measures the path,
   a second pass writes point i to index total - 1 - i. Equal consecutive points are merged (a
   path from a point to itself is that one point), and a corner that does not turn (exactly on the
   straight line between its neighbours, at their height: a path grazing a row of aligned obstacle
   corners touches each) is left out. Each point waits as `pending` until the next one shows
   whether it turns. */
typedef struct ptl_back_writer {
    ptl_path_result* res;
    uint32_t total, k;
    double lx, lz, length; /* the last point written */
    float ly;
    bool has_pending;
    double px, pz; /* the point waiting */
    float py;
    /* Off-mesh links: the waiting point is a link's end (pinned: never merged or left out), with its
       flags (PTL_PATH_POINT_OFFMESH: the segment to the point after it is the link, counted at
       pcost). */
    bool links; /* the path may hold off-mesh links: the points go through the slower writer */
    bool ppin;
    uint8_t pflag;
    float pcost;
    bool forward; /* the points come from the path's start: written first to last */
} ptl_back_writer;
/* Adds a point before the ones given so far (path_writer.c; after them with w->forward). */
void ptl_pw_put(ptl_back_writer* w, double x, double z, float y);
/* Adds an off-mesh link's end: flag PTL_PATH_POINT_OFFMESH for its start (the link's cost in
   `cost`), 0 for its end. */
void ptl_pw_put_link(ptl_back_writer* w, double x, double z, float y, uint8_t flag, float cost);
/* Writes the last point (the start). */
void ptl_pw_flush(ptl_back_writer* w);

/* path_cells.c: the cells the path through points pts[0..n) (3 floats each; the first is `start`)
   crosses, to res->cells (res->cell_capacity) and res->cell_count. PTL_OK, PTL_TRUNCATED,
   PTL_ERR_INTERNAL (a segment's walk met a wall: rounding). Uses q->cheap. */
ptl_status ptl_query_path_cells(ptl_query* q, const ptl_qpoint* start, const float* pts, uint32_t n, ptl_path_result* res);

/* partial.c: the point of start s's piece of walkable space nearest `goal` in plan (ties: the nearest
   height), located as a query point into out. PTL_ERR_NOT_FOUND when the piece has no cell. */
ptl_status ptl_query_nearest_reachable(ptl_query* q, const ptl_qpoint* s, const float goal[3], ptl_qpoint* out);
/* partial.c: the nearest point of cell c to (gx, gz) in plan into (*x, *z); its squared distance. */
double ptl_query_nearest_in_cell(const ptl_query* q, uint32_t c, double gx, double gz, double* x, double* z);

/* search.c, for the sliced API (sliced.c): a request's checks (res cleared when given); the path
   between located ends as ptl_query_find_path finds it (an exact search run by slices before is
   taken as it ended, in q->run); the interval search set up (PTL_IN_PROGRESS, else it was answered
   at once) and run for a budget of expansions (PTL_IN_PROGRESS while it goes on). */
ptl_status ptl_query_path_check(const ptl_query* q, const ptl_path_request* req, ptl_path_result* res);
ptl_status ptl_query_path_located(ptl_query* q, const ptl_path_request* req, ptl_qpoint* sp, ptl_qpoint* gp,
                                  ptl_path_result* res);
ptl_status ptl_query_search_begin(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t);
ptl_status ptl_query_search_step(ptl_query* q, uint64_t budget);
/* search.c: the answer of a sliced search that has run (q->run done): its path written to res (or
   its failure), once. */
ptl_status ptl_query_run_result(ptl_query* q, ptl_path_result* res);

/* random.c: the doubles of scratch the surface table takes to build on navmesh nm. */
size_t ptl_random_scratch_doubles(const ptl_navmesh* nm);

/* Writes a straight path start -> goal (same cell). Shared by both searches. */
ptl_status ptl_query_straight(const ptl_qpoint* start, const ptl_qpoint* goal, ptl_path_result* res);

#endif
