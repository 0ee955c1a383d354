/* Solid spans -> walkable spans with their neighbours, the "open" heightfield (filter.c: slope,
   clearance, low obstacles, ledges, erosion; Saupin §2.3). Private to the bake. */
#ifndef PTL_FILTER_H
#define PTL_FILTER_H

#include "col_index.h"
#include "voxelize.h"

/* The open heightfield: one entry per walkable floor that survived the filters, with the space above
   it. Neighbour links are 4-connected (0: -x, 1: +z, 2: +x, 3: -z): the neighbour's floor is within
   walkable_climb and the opening shared by both is at least walkable_height tall. */
typedef struct ptl_open_span {
    uint16_t floor;   /* [Units: voxels] the walkable surface's height */
    uint16_t ceil;    /* [Units: voxels] bottom of the next solid span above (PTL_VX_MAX_HEIGHT: open sky);
                         in a field without col_of (assembled from tiles, ptl_tiles_bake), ceil and
                         pad hold the span's column instead (ptl_filter_span_col): nothing reads the
                         ceiling once the filters are done, and the world's field saves 4 bytes a span */
    uint16_t tag;
    /* The connected span in each neighbour column, as its index inside that column (Recast's
       compact span does the same), or PTL_VX_NOCON; ptl_filter_nbr gives the span's index. A link to a
       span past the 255th of its column is not kept (255 floors stacked in one column). */
    uint8_t con[4];
    uint16_t pad;
    uint32_t layer;   /* layers.c: the layer, or PTL_VX_NONE (unreachable or not walkable) */
} ptl_open_span;
_Static_assert(sizeof(ptl_open_span) == 16, "open span layout");
#define PTL_VX_NOCON 0xffu

/* A gap link (filter.c): span `span` faces span `other` across `cols` columns in direction `dir`
   (0: -x, 1: +z, 2: +x, 3: -z) with no link between them; always listed in both directions. */
typedef struct ptl_vx_gap {
    uint32_t span, other;
    uint8_t dir, cols;
    uint16_t pad;
} ptl_vx_gap;

typedef struct ptl_open_field {
    ptl_vx_params p;
    ptl_vx_col_index col_index; /* width * depth columns: compact for the world's field (tiles.c),
                                   plain for the fields of ptl_filter_build_open */
    ptl_open_span* spans;
    uint32_t span_count;
    uint32_t* col_of;    /* span_count: the column index of each span; NULL: in the spans (ptl_filter_span_col) */
    uint32_t span_cap;   /* entries allocated in spans and col_of (>= span_count: erosion compacts in place) */
    ptl_vx_gap* gaps;    /* sorted by (span, dir) */
    uint32_t gap_count;
    ptl_allocator alloc;
} ptl_open_field;

/* The column next to column c (of a grid `width` wide) in direction d (0: -x, 1: +z, 2: +x, 3: -z);
   the caller knows it is inside the grid. */
static inline uint32_t ptl_filter_ncol(int32_t width, uint32_t c, int d) {
    const uint32_t off[4] = {(uint32_t)-1, (uint32_t)width, 1u, (uint32_t)-width};
    return c + off[d & 3];
}
/* Open field of's spans of column c are [ptl_filter_col_begin(of, c), ptl_filter_col_end(of, c)). */
static inline uint32_t ptl_filter_col_begin(const ptl_open_field* of, uint32_t c) {
    return ptl_col_index_at(&of->col_index, c);
}
static inline uint32_t ptl_filter_col_end(const ptl_open_field* of, uint32_t c) {
    return ptl_col_index_at(&of->col_index, c + 1);
}
/* The column of open span s. */
static inline uint32_t ptl_filter_span_col(const ptl_open_field* of, uint32_t s) {
    return of->col_of ? of->col_of[s] : (uint32_t)of->spans[s].ceil | (uint32_t)of->spans[s].pad << 16;
}
/* The index of open span s's linked neighbour in direction d, or PTL_VX_NONE. */
static inline uint32_t ptl_filter_nbr(const ptl_open_field* of, uint32_t s, int d) {
    uint32_t k = of->spans[s].con[d];
    return k == PTL_VX_NOCON ? PTL_VX_NONE : ptl_filter_col_begin(of, ptl_filter_ncol(of->p.width, ptl_filter_span_col(of, s), d)) + k;
}

/* filter.c: builds the open field from the solid one, applying, in order: low obstacles (a
   non-walkable top within walkable_climb above a walkable one becomes walkable: curbs, steps),
   clearance (the opening above a floor must be at least walkable_height), ledges (Recast's rule: a
   floor with a drop of more than walkable_climb to a neighbour column, or beside the grid's edge,
   or whose climbable neighbour floors differ by more than walkable_climb; details in filter.c),
   neighbour links (mutual), then erosion by walkable_radius (Recast's chamfer distance: removes
   walkable_radius columns along every wall, the one touching it included). Spans are sorted by
   floor within each column; `layer` is PTL_VX_NONE. */
ptl_status ptl_filter_build_open(const ptl_heightfield* hf, const ptl_allocator* alloc, ptl_open_field* out, ptl_error* err);
void ptl_open_field_free(ptl_open_field* of);

#endif
