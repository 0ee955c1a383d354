/* Keeping the bake's intermediates for debug drawing (bake_debug.c, public side in
   <portolan/bake_debug.h>). Private to the bake: the stages call these with their own structures.
   Every function accepts a NULL debug object and then does nothing (the default: no copies). */
#ifndef PTL_BAKE_DEBUG_INTERNAL_H
#define PTL_BAKE_DEBUG_INTERNAL_H

#include <portolan/bake_debug.h>

#include "../contours/contours.h"

/* Drops what an earlier bake kept and sets the stage to PTL_BAKE_STAGE_NONE. */
void ptl_bake_debug_begin(ptl_bake_debug* dbg);
/* Records that stage `s` is finished (an atomic store, read by ptl_bake_debug_stage). */
void ptl_bake_debug_stage_done(ptl_bake_debug* dbg, ptl_bake_stage s);

/* After rasterization: copies the solid spans; marks PTL_BAKE_STAGE_VOXELIZE done. */
ptl_status ptl_bake_debug_keep_heightfield(ptl_bake_debug* dbg, const ptl_heightfield* hf, ptl_error* err);
/* After layering: copies the open spans and their layers; marks PTL_BAKE_STAGE_LAYERS done. */
ptl_status ptl_bake_debug_keep_open(ptl_bake_debug* dbg, const ptl_open_field* of, uint32_t layer_count,
                                    ptl_error* err);
/* After the contours: copies the simplified contours of the `nl` layers and traces the raw ones
   again (simplification off); marks PTL_BAKE_STAGE_CONTOURS done. */
ptl_status ptl_bake_debug_keep_contours(ptl_bake_debug* dbg, const ptl_layer_map* map, const ptl_layer_set* ls,
                                        const ptl_layer_contour* lc, uint32_t nl, ptl_error* err);
/* After the decompositions (dc[l] decomposes lc[l].shape); marks PTL_BAKE_STAGE_DECOMPOSE done. */
ptl_status ptl_bake_debug_keep_decomps(ptl_bake_debug* dbg, const ptl_layer_map* map, const ptl_layer_contour* lc,
                                       const ptl_decomposition* dc, uint32_t nl, ptl_error* err);
/* 2D bakes: the shape as layer 0's contours (raw = simplified) and its decomposition, at y = 0;
   marks PTL_BAKE_STAGE_DECOMPOSE done. */
ptl_status ptl_bake_debug_keep_shape(ptl_bake_debug* dbg, const ptl_shape* s, const ptl_decomposition* dc,
                                     ptl_error* err);

#endif
