/* The 3D bake's stages after the open field (bake3d.c), shared by the whole bake and the merge of
   parts (parts.c). Private to the bake. */
#ifndef PTL_BAKE3D_H
#define PTL_BAKE3D_H

#include "../contours/contours.h"
#include "../layers/layer_map.h"
#include "../layers/layer_merge.h"
#include "../voxel/tiles.h"

/* What a rebake keeps of the layers of the bake before it (the tile cache): per layer index, the
   raw contour (ptl_contour_raw: the simplification's whole input), the contour and the
   decomposition made from it. A layer whose raw contour equals the kept one at its index takes the
   kept contour and decomposition instead of simplifying and decomposing again: the same bytes as
   making them. The raw contour itself is not traced when the layer's key (the trace's whole input)
   equals the kept one. Zeroed: empty. Owned by the caller (ptl_layer_memo_free). */
typedef struct ptl_layer_memo {
    uint32_t count;
    ptl_contour_raw* raw;
    ptl_layer_contour* lc;
    ptl_decomposition* dc;
    ptl_contour_plans* plans; /* the simplification's plans (a layer made again takes those that fit) */
    ptl_lmap_key* keys;       /* each layer's key (ptl_lmap_layer_key): an equal key skips even the raw contour */
    uint32_t kept, made;      /* layers of the last bake taken from the memo, made again */
    uint32_t keyed;           /* of the kept: those whose key was the kept one (no raw contour traced) */
    ptl_merge_memo merge;     /* the merge's per layer: vertex heights, cells' grids and heights */
} ptl_layer_memo;

void ptl_layer_memo_free(ptl_layer_memo* m, const ptl_allocator* a);
uint64_t ptl_layer_memo_bytes(const ptl_layer_memo* m); /* [Units: bytes] held, approximately */

/* Desc checks the whole bake and the part bake share (landmarks, max_error, tile_size). */
ptl_status ptl_bake3d_check_desc(const ptl_bake_desc* d, ptl_error* err);

/* Contours, decomposition, merge and landmarks on the layers `ls` of `map` (layer_map.h). `d` is
   resolved; `pair_slack` is the one the decomposition uses; `bs` holds the earlier stages' numbers
   and gets the rest; `t0` (now_ms clock) is when the bake began. Frees `map` as soon as the merge no
   longer needs it, and `ls` at the end, whatever the outcome. `memo` (NULL: none) gives the layers
   of the bake before and gets this one's (once every layer's contour and decomposition is made). */
ptl_status ptl_bake3d_finish(ptl_layer_map* map, ptl_layer_set* ls, const ptl_bake_desc* d, double pair_slack,
                             const ptl_vx_tiling* tiling, ptl_layer_memo* memo, double t0, void** blob, size_t* size,
                             ptl_bake_stats* bs, ptl_error* err);

/* Milliseconds on a monotonic clock. */
double ptl_bake3d_now_ms(void);

#endif
