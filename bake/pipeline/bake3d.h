/* The 3D bake's stages after the open field (bake3d.c), shared by the whole bake and the merge of
   parts (parts.c). Private to the bake. */
#ifndef PTL_BAKE3D_H
#define PTL_BAKE3D_H

#include "../layers/layer_map.h"
#include "../voxel/tiles.h"

/* Desc checks the whole bake and the part bake share (landmarks, max_error, tile_size). */
ptl_status ptl_bake3d_check_desc(const ptl_bake_desc* d, ptl_error* err);

/* Contours, decomposition, merge and landmarks on the layers `ls` of `map` (layer_map.h). `d` is
   resolved; `pair_slack` is the one the decomposition uses; `bs` holds the earlier stages' numbers
   and gets the rest; `t0` (now_ms clock) is when the bake began. Frees `map` as soon as the merge no
   longer needs it, and `ls` at the end, whatever the outcome. */
ptl_status ptl_bake3d_finish(ptl_layer_map* map, ptl_layer_set* ls, const ptl_bake_desc* d, double pair_slack,
                             const ptl_vx_tiling* tiling, double t0, void** blob, size_t* size, ptl_bake_stats* bs,
                             ptl_error* err);

/* Milliseconds on a monotonic clock. */
double ptl_bake3d_now_ms(void);

#endif
