/* What the layer stream's files share, private to them: layer_stream.c (the stream, its pieces and
   tiles) and layer_stream_finish.c (its end). */
#ifndef PTL_LAYER_STREAM_INTERNAL_H
#define PTL_LAYER_STREAM_INTERNAL_H

#include "../../runtime/internal.h"
#include "layer_map.h"
#include "layer_stream.h"
#include "layer_stitch.h"
#include "../voxel/tiles.h"

/* One span of a strip (a row or column of spans kept from a piece for its neighbour). */
typedef struct ptl_lstream_strip_span {
    uint16_t floor;
    uint8_t con;  /* its link across the strip's side (PTL_VX_NOCON: none) */
    uint8_t area; /* its tag (an area id, 0..PTL_AREA_MAX: areas.c) */
    uint32_t bl;
} ptl_lstream_strip_span;

/* The spans of a line of columns: column u's are sp[start[u] .. start[u + 1]). */
typedef struct ptl_lstream_strip {
    PTL_ARRAY(uint32_t) start;
    PTL_ARRAY(ptl_lstream_strip_span) sp;
    uint32_t col0, step; /* world column of u = col0 + u * step */
    bool set;
} ptl_lstream_strip;

/* A gap link whose far end's block-layer is found at the end (the far end may lie in another piece). */
typedef struct ptl_lstream_gap {
    uint32_t src_col, src_k, dst_col, dst_k, a;
    uint8_t dir, cols;
    uint16_t pad;
} ptl_lstream_gap;

/* A seed's best span so far (find_seed's order: nearest column, then score, then position). */
typedef struct ptl_lstream_seed_best {
    bool found;
    int64_t d2;
    double score;
    uint64_t t;   /* the span's position key */
    uint32_t bl;
} ptl_lstream_seed_best;

typedef struct ptl_lstream_seed_at {
    int64_t cx, cz;
    double hw;
    bool valid; /* finite and inside +-1e9 columns */
} ptl_lstream_seed_at;

/* What pieces of the world (bands, tiles) tell the stream about their block-layers. */
typedef struct ptl_lstream_acc {
    PTL_ARRAY(ptl_lmap_bl) bl;
    PTL_ARRAY(uint8_t) pool;
    PTL_ARRAY(ptl_lmap_link) links;
    PTL_ARRAY(ptl_lstream_gap) gaps;
    PTL_ARRAY(uint64_t) conf; /* a << 32 | b, a < b, repeats allowed until the end */
    ptl_pair_set conf_set;    /* the stream's: the same pairs come back border after border */
    PTL_ARRAY(ptl_vx_candidate) cand;
    ptl_lstream_seed_best* seeds;
} ptl_lstream_acc;

struct ptl_layer_stream {
    ptl_vx_params p;
    const ptl_job_system* jobs;
    ptl_allocator a;
    uint32_t nbx, nbz;
    int32_t z_next;  /* band path: rows given */
    uint32_t tiles_added, tiles_x, tiles_z, tile_size; /* tile path */
    ptl_lstream_acc acc;
    ptl_lstream_strip last_row;           /* band path: the previous band's last row */
    ptl_lstream_strip* tile_bottom;       /* tile path: per tile column, the bottom row of the tile above */
    ptl_lstream_strip tile_right;         /* tile path: the right column of the tile before in the row */
    ptl_lstream_seed_at* seeds;
    uint32_t seed_count;
    float first_seed[3];
};

/* The stream's conflicts into its set (the same pairs come back border after border). */
bool ptl_lstream_settle_conflicts(ptl_layer_stream* s);

#endif
