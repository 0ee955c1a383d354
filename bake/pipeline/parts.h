/* Parts of a tiled bake read back whole (parts.c): the tile cache (bake/pipeline/tilecache.c) is a part that
   holds every tile of the world, and rebakes the navmesh from its tiles as ptl_bake_merge_parts
   does. Private to the bake. */
#ifndef PTL_PARTS_H
#define PTL_PARTS_H

#include "../layers/layer_map.h"
#include "../voxel/tiles.h"
#include "bake3d.h"

/* A tile's record in a part: then col_start[w * d + 1] (uint32), spans[span_count]
   (ptl_open_span), gaps[gap_count] (ptl_vx_gap). */
typedef struct ptl_part_tile {
    int32_t tx, tz, x0, z0, w, d;
    uint32_t span_count, gap_count, solid_spans, pad;
} ptl_part_tile;

/* Checks part's header (as the merge does) and gives the bytes before its first tile (header and
   seeds) and its tile count. PTL_ERR_BAD_BLOB. */
ptl_status ptl_part_head(const void* part, size_t size, uint64_t* head, uint32_t* tile_count, ptl_error* err);

/* The settings a part records (voxel grid, tiling, seeds, the later stages' options). */
typedef struct ptl_part_world ptl_part_world;

/* Checks `part` (as the merge does: magic, version, size, checksum, settings, every tile's columns
   and spans) and that it holds every tile of its world; *tiles gets them in row order (tile
   tz * tiles_x + tx), each freed with ptl_tiles_tile_free, the array with alloc (tiles + 1 entries).
   PTL_ERR_BAD_BLOB for a damaged part, PTL_ERR_BAD_INPUT for one missing tiles. */
ptl_status ptl_part_world_read(const void* part, size_t size, const ptl_allocator* alloc, ptl_part_world** out,
                               ptl_vx_tile** tiles, ptl_error* err);
void ptl_part_world_free(ptl_part_world* w, const ptl_allocator* alloc);
const ptl_vx_params* ptl_part_world_params(const ptl_part_world* w);
/* Turns the world's has_areas on or off (the tile cache's area volumes: tags other than 0 appear
   after the bake). */
void ptl_part_world_set_has_areas(ptl_part_world* w, bool on);
const ptl_vx_tiling* ptl_part_world_tiling(const ptl_part_world* w);
/* The navmesh of every tile of w's world (list: each once, any order), as the merge of parts makes
   it; *bs gets the stats (ms_total: this call). */
ptl_status ptl_part_world_bake(const ptl_part_world* w, const ptl_vx_tile* const* list, uint32_t count,
                               const ptl_job_system* jobs, const ptl_allocator* alloc, void** blob, size_t* size,
                               ptl_bake_stats* bs, ptl_error* err);

/* The seeds w records (*count of them, x y z each). */
const float* ptl_part_world_seeds(const ptl_part_world* w, uint32_t* count);
/* The stages after the layers (contours, decompositions, merge, landmarks, checks) with w's
   settings, on layers the caller streamed (the tile cache: tilecache_layers.c); `ls` and `map` are
   freed whatever the outcome; t0 (ptl_bake3d_now_ms) is when the rebake began; bs as
   ptl_part_world_bake, its ms_layers set by the caller; memo (NULL: none) as ptl_bake3d_finish's. */
ptl_status ptl_part_world_finish(const ptl_part_world* w, ptl_layer_set* ls, ptl_layer_map* map,
                                 const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_memo* memo, double t0,
                                 void** blob, size_t* size, ptl_bake_stats* bs, ptl_error* err);

#endif
