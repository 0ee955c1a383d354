/* Contours of one layer (contours.c): the layer's columns as polygons with holes in the layer's
   lattice (local coordinates: column (x0 + u, z0 + v) is the unit square [u, u+1] x [v, v+1]), with
   each boundary edge marked as a wall or as a junction with another layer. Private to the bake. */
#ifndef PTL_CONTOURS_H
#define PTL_CONTOURS_H

#include "../layers/layer_map.h"

typedef struct ptl_layer_contour {
    int32_t x0, z0;     /* the layer's first column */
    uint32_t w, d;      /* columns covered */
    ptl_shape shape;    /* rings in local lattice units (lattice points, but for the corners of
                           corner_run, always between two walls); collinear vertices appear where a
                           wall turns into a junction (they stay: the two kinds of edge must not merge) */
    uint32_t* edge_to;  /* per shape vertex: the layer across the edge leaving it, PTL_NONE for a wall */
    uint32_t layer;     /* the layer (the map's id: ptl_contour_floor finds its columns) */
    ptl_allocator alloc;
} ptl_layer_contour;

/* The floor (voxels) of the layer's span in local column (u, v) of layer contour c, or -1 (outside
   the layer's columns, or no span of the layer there): a look into the layer map's block. */
static inline int32_t ptl_contour_floor(const ptl_layer_map* m, const ptl_layer_contour* c, int64_t u, int64_t v) {
    if (u < 0 || v < 0 || u >= (int64_t)c->w || v >= (int64_t)c->d) return -1;
    return ptl_lmap_layer_floor(m, c->layer, c->x0 + u, c->z0 + v);
}

/* Traces layer `layer` (corner points, Saupin et al. 2014 §4.1-4.2, through the grid tracer of
   shape_grid.c, whose turning rule is the slash/antislash rule of §4.1.2), marks junction edges,
   and simplifies the wall runs at `max_error` columns (the fewest notches, then the fewest vertices
   with the area between chords and outline counted in, among the chords within that distance of
   the points they replace; a closed ring from the start that gives it the fewest notches;
   Ramer-Douglas-Peucker splits a chord that is refused), never moving a junction, a pinch point or
   an end of a run, and never letting a simplified edge cross or touch another edge (a chord that
   would is split further). Last, a run of two or three vertices (a rounded corner) is replaced by
   one point within the tolerance of the outline wherever that leaves fewer notches: the only
   vertices that are not lattice points. */
ptl_status ptl_contour_layer(const ptl_layer_map* m, const ptl_layer_set* ls, uint32_t layer, double max_error,
                             const ptl_allocator* alloc, ptl_layer_contour* out, ptl_error* err);
void ptl_layer_contour_free(ptl_layer_contour* c);

/* Steps 1 and 2 alone: the layer's traced rings with a vertex wherever the kind of edge changes,
   in its local lattice, and where that lattice lies. This is the whole input of the simplification
   (steps 3 and 4), so two equal raw contours (ptl_contour_raw_equal) give the same contour: a
   rebake may keep a layer's contour and decomposition when its raw contour is the one it had. */
typedef struct ptl_contour_raw {
    int32_t x0, z0;
    uint32_t w, d, layer;
    uint32_t vert_count, ring_count;
    double* xy;           /* 2 * vert_count */
    uint32_t* kind;       /* per vertex: the kind of the edge leaving it (ptl_contour_edge_kind) */
    uint32_t* ring_start; /* ring_count + 1 */
    ptl_allocator alloc;
} ptl_contour_raw;

/* The plans of a layer's simplification (contours_plans.c): for each run of wall edges (or closed
   ring) of the last rebake, the chords the cheapest-path pass chose, keyed by the run's points. A
   rebake reads the plans of the one before and writes its own. Zeroed: empty. */
typedef struct ptl_contour_plan {
    uint64_t hash;
    double tol;
    uint32_t n;        /* points of the run */
    uint32_t cyclic;   /* a closed ring (start and path of plan_closed_ring) */
    uint32_t start;    /* closed ring: the start chosen, a position in the run */
    uint32_t np;       /* the path's length (0: a closed ring no plan keeps three vertices of) */
    uint32_t xy_at, path_at;
} ptl_contour_plan;

typedef struct ptl_contour_plans {
    uint32_t slots; /* power of two, 0: none */
    uint32_t* slot; /* plan index or PTL_NONE */
    struct { ptl_contour_plan* data; uint32_t count, cap; } plan;
    struct { double* data; uint32_t count, cap; } xy;
    struct { uint32_t* data; uint32_t count, cap; } path;
} ptl_contour_plans;

/* The plan of the run whose points are xy[0 .. 2n), or NULL; *hash: the run's key either way. */
const ptl_contour_plan* ptl_contour_plans_find(const ptl_contour_plans* p, const double* xy, uint32_t n, bool cyclic,
                                               double tol, uint64_t* hash);
/* false: out of memory (p as it was, but for room). */
bool ptl_contour_plans_add(ptl_contour_plans* p, const ptl_allocator* a, uint64_t hash, const double* xy, uint32_t n,
                           bool cyclic, double tol, uint32_t start, const uint32_t* path, uint32_t np);
void ptl_contour_plans_free(ptl_contour_plans* p, const ptl_allocator* a);
uint64_t ptl_contour_plans_bytes(const ptl_contour_plans* p);

/* PTL_ERR_NO_MEMORY (out zeroed), PTL_ERR_INVALID_ARG for a layer out of range. */
ptl_status ptl_contour_layer_raw(const ptl_layer_map* m, const ptl_layer_set* ls, uint32_t layer,
                                 const ptl_allocator* alloc, ptl_contour_raw* out);
/* Steps 3 and 4 on a copy of `raw`: ptl_contour_layer's result. `old` (NULL: none): plans to take
   where a run is the same; `plans` (NULL: none) gets this simplification's. */
ptl_status ptl_contour_from_raw(const ptl_contour_raw* raw, double max_error, const ptl_allocator* alloc,
                                const ptl_contour_plans* old, ptl_contour_plans* plans, ptl_layer_contour* out,
                                ptl_error* err);
bool ptl_contour_raw_equal(const ptl_contour_raw* a, const ptl_contour_raw* b);
void ptl_contour_raw_free(ptl_contour_raw* r);

/* The kind of the unit contour edge from lattice point (u, v) one step along (du, dv) (free space on
   its left, in the layer): the layer across it, or PTL_NONE for a wall. */
/* Edge kinds: PTL_NONE (a wall), a layer id (a junction: the column across belongs to that layer),
   or PTL_KIND_GAP | cols << 24 | layer (a gap link, filter.c: a span of that layer, possibly this
   one, faces this one across `cols` columns). Layer ids are below 2^24. */
#define PTL_KIND_GAP 0x80000000u
#define PTL_KIND_IS_GAP(k) ((k) != PTL_NONE && ((k) & PTL_KIND_GAP))
#define PTL_KIND_GAP_COLS(k) (((k) >> 24) & 0x7fu)
#define PTL_KIND_LAYER(k) ((k) & 0xffffffu)
uint32_t ptl_contour_edge_kind(const ptl_layer_map* m, const ptl_layer_contour* c, uint32_t layer, int64_t u,
                               int64_t v, int du, int dv);

/* World height (y) of local lattice point (u, v) of layer contour c: the highest floor among the
   layer's columns touching it, else the nearest of its columns within 3 (a simplified contour may
   pass just outside the columns). The merge and the debug capture use the same rule. */
double ptl_contour_height(const ptl_layer_map* m, const ptl_layer_contour* c, double u, double v);

#endif
