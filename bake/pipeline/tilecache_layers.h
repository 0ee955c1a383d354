/* The tile cache's layers kept per piece of the world (tilecache_layers.c), so that a rebake floods
   again only the pieces whose columns an update changed. Private to the bake. */
#ifndef PTL_TC_LAYERS_H
#define PTL_TC_LAYERS_H

#include "../layers/layer_stream.h"
#include "parts.h"

/* The world cut into pieces of PTL_LMAP_B x PTL_LMAP_B columns (the layer map's blocks, whatever the
   cache's tile size), each piece's flood and edges (ptl_lstream_tile) kept until its columns change. */
typedef struct ptl_tc_layers {
    ptl_layer_stream* proto; /* the tile path's settings, only read (ptl_lstream_tile) */
    uint32_t px, pz;         /* pieces across and down */
    ptl_tile_layers** piece; /* px * pz, row order */
    uint8_t* dirty;          /* per piece: to flood again */
    uint32_t dirty_count;
    uint64_t bytes;          /* held by the pieces (the info's memory) */
    ptl_layer_memo memo;     /* each layer's raw contour, contour and decomposition of the last rebake */
} ptl_tc_layers;

/* Every piece dirty, none flooded yet. */
ptl_status ptl_tc_layers_init(ptl_tc_layers* L, const ptl_part_world* w, const ptl_allocator* a, ptl_error* err);
void ptl_tc_layers_free(ptl_tc_layers* L, const ptl_allocator* a);
/* Marks dirty the pieces holding a column of tile view `after` that differs from `before` (the same
   tile's previous view: spans, links, gap links). */
void ptl_tc_layers_mark_changed(ptl_tc_layers* L, const ptl_vx_tile* before, const ptl_vx_tile* after);
/* ptl_tc_layers_mark_changed where the two views have the same spans in every column (the tile's
   marks unchanged, only its neighbours' changed): links differ only in the border columns, so only
   those and the columns holding a gap link in either view are compared. */
void ptl_tc_layers_mark_changed_edges(ptl_tc_layers* L, const ptl_vx_tile* before, const ptl_vx_tile* after);
/* Marks dirty the piece holding local column k of tile t. */
void ptl_tc_layers_mark_local(ptl_tc_layers* L, const ptl_vx_tile* t, uint32_t k);
/* Marks dirty the pieces that hold a column of tile t. */
void ptl_tc_layers_mark_tile(ptl_tc_layers* L, const ptl_vx_tile* t);
/* Floods the dirty pieces again from the tiles as they stand (views: each tile's current view, row
   order), as jobs when given; a piece whose flood failed stays dirty. PTL_ERR_NO_MEMORY,
   PTL_ERR_BAD_INPUT (2^32 block-layers), without a message. */
ptl_status ptl_tc_layers_flood(ptl_tc_layers* L, const ptl_part_world* w, const ptl_vx_tile* const* views,
                               const ptl_job_system* jobs, const ptl_allocator* a);
/* ptl_tc_layers_flood, then streams every piece's layers in order and bakes the navmesh from
   them (ptl_part_world_finish), keeping the contour and decomposition of each layer whose raw
   contour did not change (L->memo). PTL_ERR_NO_MEMORY; the pieces left dirty are flooded next time. */
ptl_status ptl_tc_layers_bake(ptl_tc_layers* L, const ptl_part_world* w, const ptl_vx_tile* const* views,
                              const ptl_job_system* jobs, const ptl_allocator* a, void** blob, size_t* size,
                              ptl_bake_stats* bs, ptl_error* err);

#endif
