/* Ordered flooding of the open field into layers, block by block (layers.c, ANavMG thesis
   §6.2.2.2); the layers are numbered and stitched across blocks by layer_map.c, layer_stream.c and
   layer_stitch.c. Private to the bake. */
#ifndef PTL_LAYERS_H
#define PTL_LAYERS_H

#include "../voxel/filter.h"

/* A layer: connected open spans (4-neighbours, climbable steps), at most one per column. */
typedef struct ptl_layer_info {
    int32_t x0, z0, x1, z1; /* columns covered (inclusive bounds) */
    uint32_t span_count;
    uint16_t floor_min, floor_max;
} ptl_layer_info;

typedef struct ptl_layer_set {
    uint32_t layer_count;
    uint32_t dropped_islands; /* small isolated layers dropped (ptl_vx_params.min_island) */
    ptl_layer_info* layers;
    uint32_t seeds_found;    /* seeds that stood on an open span (the others were ignored) */
    uint32_t dropped_layers; /* layers not reachable from any seed, dropped */
    ptl_allocator alloc;
} ptl_layer_set;

/* The flood runs in blocks of PTL_VX_LAYER_BLOCK x PTL_VX_LAYER_BLOCK columns (layer_map.h). */
#define PTL_VX_LAYER_BLOCK 32u

/* layers.c: the flood of one block of a band (layer_stream.c). What the flood of block b leaves:
   its spans labelled with block-layer ids 0 .. layer_count - 1 (ptl_layers_relabel_block then adds
   base[b]), and the pairs of them that may never be one layer. */
typedef struct ptl_vx_block_out {
    uint32_t layer_count;
    uint64_t* lowest; /* per block-layer: its lowest span, floor << 32 | the span's index in the band */
    uint32_t lowest_cap;
    uint64_t* conflicts; /* a << 32 | b, a < b, sorted, no repeats */
    uint32_t conflict_count, conflict_cap;
    ptl_status st;
} ptl_vx_block_out;
typedef struct ptl_vx_block_jobs {
    ptl_open_field* of; /* the band (or any field): blocks of PTL_VX_LAYER_BLOCK columns from its (0, 0) */
    const ptl_allocator* a;
    uint32_t nbx; /* blocks along x */
    ptl_vx_block_out* out;
    const uint32_t* base; /* per block: its first block-layer's id (ptl_layers_relabel_block) */
} ptl_vx_block_jobs;
/* Job functions over the blocks (index b: bz * nbx + bx). */
void ptl_layers_flood_block(void* block_jobs, uint32_t b);
void ptl_layers_relabel_block(void* block_jobs, uint32_t b);
void ptl_layers_block_out_free(ptl_vx_block_out* o, const ptl_allocator* a);
void ptl_layer_set_free(ptl_layer_set* ls);

#endif
