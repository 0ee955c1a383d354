/* The 3D bake's stages after the open field (bake3d.c), shared by the whole bake and the merge of
   parts (parts.c). Private to the bake. */
#ifndef PTL_BAKE3D_H
#define PTL_BAKE3D_H

#include "voxel.h"

/* Desc checks the whole bake and the part bake share (landmarks, max_error, tile_size). */
ptl_status ptl_bake3d_check_desc(const ptl_bake_desc* d, ptl_error* err);

/* Layers, contours, decomposition, merge and landmarks on `of`. `d` is resolved; `pair_slack` is
   the one the decomposition uses; `bs` holds the voxel stages' numbers and gets the rest; `t0`
   (now_ms clock) is when the bake began. Frees `of`'s arrays (ptl_open_field_free) as soon as the
   merge no longer needs them, before the landmarks and hubs: the field is the largest thing the
   bake holds. */
ptl_status ptl_bake3d_finish(ptl_open_field* of, const ptl_bake_desc* d, double pair_slack, const ptl_vx_tiling* tiling,
                             double t0, void** blob, size_t* size, ptl_bake_stats* bs, ptl_error* err);

/* ptl_bake_landmarks with the pieces of walkable space as jobs (landmarks.c). */
ptl_status ptl_bake_landmarks_jobs(const void* blob, size_t size, uint32_t count, const ptl_job_system* jobs,
                                   const ptl_allocator* alloc, void** out, size_t* out_size, ptl_error* err);

/* Milliseconds on a monotonic clock. */
double ptl_bake3d_now_ms(void);
/* Replaces *blob by the blob with hub labels (hubs.c; d->jobs, d->alloc), filling bs's hub fields. */
ptl_status ptl_bake_add_hubs(const ptl_bake_desc* d, void** blob, size_t* size, ptl_bake_stats* bs, ptl_error* err);

#endif
