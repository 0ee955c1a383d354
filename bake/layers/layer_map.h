/* The layers without the open field (layer_map.c; built band by band by layer_stream.c). Private
   to the bake.

   The layer flood runs on blocks of PTL_VX_LAYER_BLOCK x PTL_VX_LAYER_BLOCK columns (layers.c), so
   the layers can be built from a stream of bands, each a row of blocks (32 rows of the world's
   columns): the bands are flooded, their block-layers described, their borders paired, and then the
   band is gone. What stays per block-layer is a few hundred bytes: which columns of its block it
   covers (a bitmap), their floors (offsets from its lowest, 4, 8 or 16 bits, or none when flat) and
   tags; per link between two block-layers, a run along a border. After the stitch (layer_stitch.c)
   each block-layer knows its layer, and the later stages (contours.c, layer_merge.c) ask the map
   what they asked the open field: is this column in layer L, its floor, its tag, and what lies
   across one of its edges. The world's open field (16 bytes an open span, tens of MB on large
   worlds) never exists (bench/NOTES.md, "Peak memory"). */
#ifndef PTL_LAYER_MAP_H
#define PTL_LAYER_MAP_H

#include <string.h>

#include "../voxel/tiles.h"
#include "layers.h"

#define PTL_LMAP_B PTL_VX_LAYER_BLOCK

/* A block-layer: the spans of one layer inside one block that the block's own flood connected. */
typedef struct ptl_lmap_bl {
    uint64_t lowest;           /* its lowest span: floor << 32 | the span's index in the world's order */
    uint32_t world;            /* its layer (PTL_VX_NONE: dropped, unreachable or an island) */
    uint32_t block;            /* its block: bz * nbx + bx */
    uint32_t count;            /* spans */
    uint32_t rows;             /* offset in the pool of its rows z0 .. z1, a uint32 each: bit x of row
                                  z set where it has a span in column (x, z) of the block */
    uint32_t data;             /* offset in the pool: uint16 rank[32] (spans before each row), then
                                  the floors, then the tags (when not flat / when mixed) */
    uint16_t floor_min, floor_max;
    uint16_t tag;              /* the one tag of its spans, when not mixed */
    uint8_t fbits;             /* floors: 0 (all floor_min), 4, 8 or 16 bits of offset from floor_min */
    uint8_t tags_mixed;        /* 1: a uint16 tag per span after the floors */
    uint8_t x0, z0, x1, z1;    /* its columns' bounds inside the block (inclusive) */
} ptl_lmap_bl;

/* A run of links from block-layer a to block-layer b (a != b): from world column col, len columns
   along +z (dir 0 or 2) or +x (dir 1 or 3), each column's span of a linked in direction dir to a
   span of b. */
typedef struct ptl_lmap_link {
    uint32_t a, b, col;
    uint8_t dir, len;
    uint16_t pad;
} ptl_lmap_link;

/* A gap link (filter.c): a's span in world column col faces b's across `cols` columns in dir. */
typedef struct ptl_lmap_gap {
    uint32_t a, b, col;
    uint8_t dir, cols;
    uint16_t pad;
} ptl_lmap_gap;

typedef struct ptl_layer_map {
    ptl_vx_params p;          /* the world's grid (ox = oz = 0, border 0) */
    uint32_t nbx, nbz;        /* blocks */
    uint32_t* block_first;    /* nbx * nbz + 1: block b's block-layers are block_bls[block_first[b] .. block_first[b + 1]) */
    uint32_t* block_bls;
    ptl_lmap_bl* bl;
    uint32_t bl_count;
    uint8_t* pool;
    uint32_t pool_size;       /* bytes allocated */
    ptl_lmap_link* links;     /* sorted by (a, dir, col) */
    uint32_t link_count;
    ptl_lmap_gap* gaps;       /* sorted by (a, col, dir) */
    uint32_t gap_count;
    uint32_t layer_count;
    uint32_t* layer_first;    /* layer_count + 1: layer l's block-layers are layer_bls[layer_first[l] ..] */
    uint32_t* layer_bls;
    uint32_t bl_cap, block_first_cap, block_bls_cap, link_cap, gap_cap, layer_bls_cap; /* entries allocated */
    ptl_allocator alloc;
} ptl_layer_map;

void ptl_layer_map_free(ptl_layer_map* m);

/* The bits set in v. Written out (SWAR) because the x86-64 baseline has no popcnt instruction and
   gcc's __builtin_popcount becomes a call into libgcc (__popcountdi2, a table walk: 1% of a bake of
   undulating, where the contours and the merge ask block-layers for floors). */
static inline uint32_t ptl_lmap_popcount(uint32_t v) {
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* Row lz (0 .. PTL_LMAP_B - 1) of block-layer r's bits. */
static inline uint32_t ptl_lmap_row(const ptl_layer_map* m, const ptl_lmap_bl* r, uint32_t lz) {
    if (lz < r->z0 || lz > r->z1) return 0;
    uint32_t v;
    memcpy(&v, m->pool + r->rows + 4 * (lz - r->z0), 4);
    return v;
}

/* Layer l's block-layer holding world column (x, z), or PTL_VX_NONE. */
static inline uint32_t ptl_lmap_find(const ptl_layer_map* m, uint32_t l, int64_t x, int64_t z) {
    if (x < 0 || z < 0 || x >= m->p.width || z >= m->p.depth) return PTL_VX_NONE;
    const uint32_t b = (uint32_t)(z / PTL_LMAP_B) * m->nbx + (uint32_t)(x / PTL_LMAP_B);
    const uint32_t lx = (uint32_t)(x % PTL_LMAP_B), lz = (uint32_t)(z % PTL_LMAP_B);
    for (uint32_t k = m->block_first[b], e = m->block_first[b + 1]; k < e; ++k) {
        const uint32_t i = m->block_bls[k];
        if (m->bl[i].world == l && (ptl_lmap_row(m, &m->bl[i], lz) >> lx & 1u)) return i;
    }
    return PTL_VX_NONE;
}
/* The floor (voxels) and tag of block-layer i's span in world column (x, z) (which it covers). */
uint16_t ptl_lmap_floor(const ptl_layer_map* m, uint32_t i, int64_t x, int64_t z);
uint16_t ptl_lmap_tag(const ptl_layer_map* m, uint32_t i, int64_t x, int64_t z);
/* The floors of layer l in world columns x0 .. x0 + n - 1 of row z into out, `none` where l does
   not cover the column: ptl_lmap_layer_floor of each column, a block-layer's row decoded with one
   running rank instead of a lookup and a rank per column. */
void ptl_lmap_layer_floor_row(const ptl_layer_map* m, uint32_t l, int64_t x0, int64_t z, uint32_t n, uint16_t none,
                              uint16_t* out);
/* The floor of layer l in world column (x, z), or -1 when l does not cover it. */
static inline int32_t ptl_lmap_layer_floor(const ptl_layer_map* m, uint32_t l, int64_t x, int64_t z) {
    const uint32_t i = ptl_lmap_find(m, l, x, z);
    return i == PTL_VX_NONE ? -1 : (int32_t)ptl_lmap_floor(m, i, x, z);
}
/* What lies across side dir (0: -x, 1: +z, 2: +x, 3: -z) of layer l's span in world column (x, z):
   PTL_NONE (nothing linked: a wall; or l itself), another layer's id (a junction), or a gap link's
   kind (contours.h: PTL_KIND_GAP | cols << 24 | layer). */
uint32_t ptl_lmap_edge_kind(const ptl_layer_map* m, uint32_t l, int64_t x, int64_t z, int dir);
/* The whole input of layer l's raw contour (ptl_contour_layer_raw: the trace reads its bounds and
   its block-layers' bits, the edge kinds read their links and gap links and the layers at their far
   ends, as ptl_lmap_edge_kind maps them) written out as words: equal keys give equal raw contours,
   whatever else changed in the map (the tile cache skips the trace of a layer whose key is the one
   it had). Shaped as PTL_ARRAY(uint32_t). */
typedef struct ptl_lmap_key {
    uint32_t* data;
    uint32_t count, cap;
} ptl_lmap_key;
/* Layer l's key into *out (emptied first). false: out of memory. */
bool ptl_lmap_layer_key(const ptl_layer_map* m, const ptl_layer_info* li, uint32_t l, const ptl_allocator* a,
                        ptl_lmap_key* out);
/* Appends to *out what layer l's floors read (ptl_lmap_layer_floor, ptl_lmap_layer_floor_row): its
   block-layers' blocks, bits and floors. Equal keys give the same floor in every column. false: out
   of memory. */
bool ptl_lmap_layer_floor_key(const ptl_layer_map* m, uint32_t l, const ptl_allocator* a, ptl_lmap_key* out);
static inline bool ptl_lmap_key_equal(const ptl_lmap_key* x, const ptl_lmap_key* y) {
    return x->count == y->count && (!x->count || !memcmp(x->data, y->data, (size_t)x->count * sizeof *x->data));
}
/* The layer of the span with floor `floor` in world column (x, z), or PTL_VX_NONE (debug captures
   label an open field with it). */
uint32_t ptl_lmap_layer_at(const ptl_layer_map* m, int64_t x, int64_t z, uint16_t floor);

/* A band (ptl_lstream_band's form) being filled row by row; its arrays grow and are reused. */
typedef struct ptl_vx_band {
    ptl_open_field f;          /* p.width = world width; p.depth = rows so far */
    uint32_t col_cap, gap_cap;
} ptl_vx_band;
void ptl_lmap_band_reset(ptl_vx_band* b, const ptl_vx_params* world, const ptl_allocator* a);
void ptl_lmap_band_free(ptl_vx_band* b);
/* Appends world row z to band b from the tiles covering it (x order). PTL_ERR_NO_MEMORY, or
   PTL_ERR_BAD_INPUT past 2^32 spans. */
ptl_status ptl_lmap_band_add_tiles(ptl_vx_band* b, const ptl_vx_tile* const* tiles, uint32_t count, int32_t z);
/* Appends row z of a whole open field (spans in column order, gaps with far ends as span indices). */
ptl_status ptl_lmap_band_add_field(ptl_vx_band* b, const ptl_open_field* of, int32_t z);

/* The layers of a whole open field through the stream: its spans get their layers (PTL_VX_NONE:
   dropped), `ls` the layers and `map` (NULL: not wanted) the map. ptl_lmap_build_layers is this. */
ptl_status ptl_lmap_layers_of_field(ptl_open_field* of, const float* seeds, uint32_t seed_count, const ptl_job_system* jobs,
                                  const ptl_allocator* alloc, ptl_layer_set* ls, ptl_layer_map* map, ptl_error* err);

/* Ordered flooding into layers (layers.c, through the band stream of layer_map.c/layer_stream.c,
   which also gives the layer map the later stages read); with seeds (world points, NULL/0 for none), layers not
   reachable from a seed are dropped (their spans get PTL_VX_NONE). Layer ids are dense, 0.., in
   the order of each layer's lowest span (floor, then z, then x). A seed stands on the highest floor
   at most walkable_height below it (else the lowest at most walkable_climb above it) in its column
   or, failing that, the nearest column within walkable_radius + 1; seeds standing on nothing are
   ignored, and PTL_ERR_BAD_INPUT is returned when no seed stands on anything. */
ptl_status ptl_lmap_build_layers(ptl_open_field* of, const float* seeds, uint32_t seed_count, const ptl_allocator* alloc,
                               ptl_layer_set* out, ptl_error* err);
/* The same, the blocks flooded as jobs of `jobs` (NULL: in turn). The flood runs in blocks of
   PTL_VX_LAYER_BLOCK x PTL_VX_LAYER_BLOCK columns of the field, each on its own, and their
   block-layers are stitched across block borders by the same rules (layer_stitch.c), so the layers
   are the same whatever the threads or the bake's tiling; they differ from one flood over the whole
   field only where its choices depend on the order in which it reaches a block. */
ptl_status ptl_lmap_build_layers_jobs(ptl_open_field* of, const float* seeds, uint32_t seed_count,
                                    const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_set* out,
                                    ptl_error* err);

#endif
