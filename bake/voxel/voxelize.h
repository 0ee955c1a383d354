/* Triangles -> 2.5D solid spans with integer heights (voxelize.c, Saupin et al. 2014 §2.2).
   Private to the bake. */
#ifndef PTL_VOXELIZE_H
#define PTL_VOXELIZE_H

#include "vx_params.h"

/* The solid heightfield: per column, its spans sorted by height, disjoint (spans closer than
   `walkable_climb` are NOT merged: only overlapping or touching ones are). A span [smin, smax) is
   solid; its top smax is a potential floor. */
typedef struct ptl_vx_span {
    uint16_t smin, smax;
    uint16_t tag;     /* the triangle tag (ptl_trimesh.tri_tag) of the surface that made the top */
    uint8_t walkable; /* the top is a walkable surface (slope), or one merged into the span lies within
                         walkable_climb below it; before the filters */
    uint8_t pad;
} ptl_vx_span;

typedef struct ptl_heightfield {
    ptl_vx_params p;
    uint32_t* col_start; /* width * depth + 1: spans of column (cx, cz) are [col_start[i], col_start[i+1]), i = cz*width + cx */
    ptl_vx_span* spans;
    uint32_t span_count;
    ptl_allocator alloc;
} ptl_heightfield;

/* voxelize.c: rasterizes the triangles (all of them when `tris` is NULL, else the `count` listed)
   into `hf`. Conservative in x-z: every column whose square the triangle touches gets the
   triangle's y-range over that square, so no thin floor or wall is lost between columns.
   Degenerate (zero-area) triangles mark their columns solid but never walkable. */
ptl_status ptl_voxelize_trimesh(const ptl_trimesh* m, const uint32_t* tris, uint32_t count, const ptl_vx_params* p,
                            const ptl_allocator* alloc, ptl_heightfield* hf, ptl_error* err);
void ptl_heightfield_free(ptl_heightfield* hf);

#endif
