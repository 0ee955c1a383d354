/* Areas of the 3D bake (areas.c): the name -> area table applied to the triangles' tags, and the
   convex area volumes applied to the open field's spans (Recast's rcMarkConvexPolyArea). A span's
   `tag` carries its area from the voxelizer on; the layer stage keeps areas apart (layers.c).
   Private to the bake. */
#ifndef PTL_AREAS_H
#define PTL_AREAS_H

#include "filter.h"

/* Refuses an area table or volume out of its limits (PTL_ERR_INVALID_ARG naming the entry). */
ptl_status ptl_areas_check(const ptl_bake_desc* d, ptl_error* err);

/* The area of each triangle of m from the desc's names (*out: tri_count entries, free with
   ptl_mem_free(a, *out, tri_count * 2)); *out NULL when the desc names no area (every triangle 0). */
ptl_status ptl_areas_of_triangles(const ptl_trimesh* m, const ptl_bake_desc* d, const ptl_allocator* a, uint16_t** out,
                                  ptl_error* err);

/* Marks the spans of `of` (a tile's window or the world's field, with col_of) with the volumes of
   of->p (ptl_vx_params.volumes), in order: a span whose column centre lies in a volume's polygon
   and whose floor lies in its y range gets its area. */
void ptl_areas_mark_volumes(ptl_open_field* of);
/* Is (x, z) inside the convex polygon xz (n corners, either winding), its boundary included? The
   volumes' test, shared with the tile cache's area-marking obstacles (the same columns). */
bool ptl_areas_in_convex(const float* xz, uint32_t n, double x, double z);
/* The columns [*c0, *c1] of a window (n columns from world column o) whose centres may lie in
   [lo, hi]; false when none. Shared with the tile cache's area volumes, like ptl_areas_in_convex. */
bool ptl_areas_col_range(double lo, double hi, double bmin, double cs, int32_t o, int32_t n, int32_t* c0, int32_t* c1);

#endif
