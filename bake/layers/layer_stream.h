/* The layers band by band (layer_stream.c): the flood of each band's blocks, their borders paired,
   then the stitch into the layer map (layer_map.h). Private to the bake. */
#ifndef PTL_LAYER_STREAM_H
#define PTL_LAYER_STREAM_H

#include "../voxel/tiles.h"
#include "layer_map.h"

typedef struct ptl_layer_stream ptl_layer_stream;

/* A stream for the world `world` (ptl_vx_params_resolve: width and depth are the world's) with the
   seeds of ptl_lmap_build_layers and the jobs the bands' blocks run as (NULL: in turn). */
ptl_status ptl_lstream_create(const ptl_vx_params* world, const float* seeds, uint32_t seed_count,
                              const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_stream** out,
                              ptl_error* err);
void ptl_lstream_destroy(ptl_layer_stream* s);
/* The jobs the next bands' blocks run as (NULL: in turn, as when the stream runs inside a job). */
void ptl_lstream_set_jobs(ptl_layer_stream* s, const ptl_job_system* jobs);
/* The tile path, when the tiles' size is a multiple of PTL_LMAP_B: ptl_lstream_use_tiles once,
   then each tile's own columns (a field of w x d columns whose column (0, 0) is world column (x0,
   z0), plain index, col_of, gaps as in ptl_lstream_band) through ptl_lstream_tile, which only reads
   the stream and may run in the tile's job, and the tiles' results through ptl_lstream_add_tile in
   row-major order. ptl_lstream_tile gives PTL_ERR_NO_MEMORY or PTL_ERR_BAD_INPUT (2^32 block-layers)
   without a message. */
typedef struct ptl_tile_layers ptl_tile_layers;
ptl_status ptl_lstream_use_tiles(ptl_layer_stream* s, uint32_t tile_size, uint32_t tiles_x, uint32_t tiles_z,
                                 ptl_error* err);
ptl_status ptl_lstream_tile(const ptl_layer_stream* s, ptl_open_field* tile, int32_t x0, int32_t z0,
                            ptl_tile_layers** out);
ptl_status ptl_lstream_add_tile(ptl_layer_stream* s, ptl_tile_layers* t, ptl_error* err);
void ptl_lstream_tile_free(ptl_tile_layers* t, const ptl_layer_stream* s);
/* As ptl_lstream_add_tile, leaving `t` as it was (the tile cache adds a tile's kept layers to every
   rebake: tilecache_layers.c). */
ptl_status ptl_lstream_add_tile_kept(ptl_layer_stream* s, const ptl_tile_layers* t, ptl_error* err);
/* The bytes a tile's layers hold (its accumulators and edges). */
uint64_t ptl_lstream_tile_bytes(const ptl_tile_layers* t);

/* The next band: world rows [z0, z0 + band->p.depth) in full width, z0 the rows already given
   (a multiple of PTL_LMAP_B), depth PTL_LMAP_B unless it is the last band. `band` has a plain
   column index and col_of; its gaps have span as an index into its spans and other as an index
   inside the far column (ptl_vx_tile's convention). Its spans' `layer` gets their block-layer ids. */
ptl_status ptl_lstream_band(ptl_layer_stream* s, ptl_open_field* band, ptl_error* err);
/* After the last band: stitches, drops islands and unreached layers, numbers the layers (layers.c's
   order) and fills `ls` and `map`. The stream is destroyed whatever the outcome. */
ptl_status ptl_lstream_finish(ptl_layer_stream* s, ptl_layer_set* ls, ptl_layer_map* map, ptl_error* err);

#endif
