/* The voxel stages of the 3D bake, for one tile (issue 5 tiles the world; this issue bakes one):
   triangles -> 2.5D spans with integer heights (voxelize.c, Saupin et al. 2014 §2.2) -> filters
   (filter.c: slope, clearance, low obstacles, ledges, erosion; Saupin §2.3) -> walkable spans with
   their neighbours (the "open" heightfield) -> layers by ordered flooding and reachability from seeds
   (layers.c, ANavMG thesis §6.2.2.2). Private to the bake.

   Coordinates: column (cx, cz) is the square [bmin.x + cx*cs, +cs] x [bmin.z + cz*cs, +cs] in x-z;
   height h (an integer, "voxels") is world y = bmin.y + h*ch. A tile's grid is a window of the
   world's (ox, oz below) with a border of `border` columns on every side (tiles.c). */
#ifndef PTL_VOXEL_H
#define PTL_VOXEL_H

#include <portolan/bake.h>

#define PTL_VX_NONE 0xffffffffu
#define PTL_VX_MAX_HEIGHT 0xffffu /* heights are uint16: a tile spans at most 65535 cell heights */

/* Bake parameters in voxel units (ptl_vx_params_resolve turns a ptl_bake_desc into these). */
typedef struct ptl_vx_params {
    float cs, ch;            /* [Units: wu] cell size (x-z), cell height (y) */
    float bmin[3], bmax[3];  /* [Units: wu] the world's bounds (of column 0; a tile's window is offset) */
    int32_t width, depth;    /* columns along x and z, border included */
    /* The grid is a window of the world's: its column (0, 0) is the world's column (ox, oz), and the
       world has world_width x world_depth columns from bmin (tiles.c; 0, 0 and the grid's own size
       for one tile). Triangles are rasterized in world columns, so a column's spans do not depend
       on the window it is computed in. */
    int32_t ox, oz, world_width, world_depth;
    int32_t heights;         /* cell heights along y: every span lies in [0, heights], heights < PTL_VX_MAX_HEIGHT */
    int32_t border;          /* columns */
    int32_t walkable_height; /* [Units: voxels] agent height: ceil(agent_height / ch) */
    int32_t walkable_climb;  /* [Units: voxels] max climb: floor(max_climb / ch) */
    int32_t walkable_radius; /* [Units: columns] bake-time erosion: ceil(agent_radius / cs) */
    int32_t min_island;      /* [Units: columns] layers.c drops isolated layers (no link to any other)
                                smaller than this; 0 keeps everything */
    int32_t max_void;        /* [Units: columns] gap links cross at most this many columns of void
                                (filter.c); 0: no gap links */
    float walkable_slope_cos;/* cos(max_slope): a triangle whose unit normal's y is > this is walkable */
    int32_t walkable_both_sides; /* 0 (the default): the normal follows the winding (counter-clockwise
                                    seen from above faces up), as in Recast; 1: |normal y| counts, for
                                    meshes wound inconsistently, at the price of making the undersides of
                                    roofs with nothing above them walkable (dungeon.obj: +89% area) */
} ptl_vx_params;

/* The solid heightfield: per column, its spans sorted by height, disjoint (spans closer than
   `walkable_climb` are NOT merged: only overlapping or touching ones are). A span [smin, smax) is
   solid; its top smax is a potential floor. */
typedef struct ptl_vx_span {
    uint16_t smin, smax;
    uint16_t tag;     /* the triangle tag (ptl_trimesh.tri_tag) of the surface that made the top */
    uint8_t walkable; /* the top is a walkable surface (slope), or one merged into the span lies within
                         walkable_climb below it; before the filters */
    uint8_t pad;
} ptl_vx_span;

typedef struct ptl_heightfield {
    ptl_vx_params p;
    uint32_t* col_start; /* width * depth + 1: spans of column (cx, cz) are [col_start[i], col_start[i+1]), i = cz*width + cx */
    ptl_vx_span* spans;
    uint32_t span_count;
    ptl_allocator alloc;
} ptl_heightfield;

/* The open heightfield: one entry per walkable floor that survived the filters, with the space above
   it. Neighbour links are 4-connected (0: -x, 1: +z, 2: +x, 3: -z): the neighbour's floor is within
   walkable_climb and the opening shared by both is at least walkable_height tall. */
typedef struct ptl_open_span {
    uint16_t floor;   /* [Units: voxels] the walkable surface's height */
    uint16_t ceil;    /* [Units: voxels] bottom of the next solid span above (PTL_VX_MAX_HEIGHT: open sky);
                         in a field without col_of (assembled from tiles, ptl_vx_tiles_bake), ceil and
                         pad hold the span's column instead (ptl_vx_span_col): nothing reads the
                         ceiling once the filters are done, and the world's field saves 4 bytes a span */
    uint16_t tag;
    /* The connected span in each neighbour column, as its index inside that column (Recast's
       compact span does the same), or PTL_VX_NOCON; ptl_vx_nbr gives the span's index. A link to a
       span past the 255th of its column is not kept (255 floors stacked in one column). */
    uint8_t con[4];
    uint16_t pad;
    uint32_t layer;   /* layers.c: the layer, or PTL_VX_NONE (unreachable or not walkable) */
} ptl_open_span;
_Static_assert(sizeof(ptl_open_span) == 16, "open span layout");
#define PTL_VX_NOCON 0xffu

/* A gap link (filter.c): span `span` faces span `other` across `cols` columns in direction `dir`
   (0: -x, 1: +z, 2: +x, 3: -z) with no link between them; always listed in both directions. */
typedef struct ptl_vx_gap {
    uint32_t span, other;
    uint8_t dir, cols;
    uint16_t pad;
} ptl_vx_gap;

/* Where each column's spans start in a field whose spans are in column order. A world-sized open
   field has an entry per voxel column of the world, and on large worlds most columns are empty
   (dungeon.obj copied 8x8: 5.2M columns for 1.1M open spans; a uint32 per column was the largest
   array at the bake's peak), so the index has two levels: `base`, the first span of each block of
   PTL_VX_COL_BLOCK columns, and per column the offset of its first span from its block's base in
   `width` bytes: 1 when every offset fits 8 bits, else 2 when they fit 16 (about 1.25 or 2.25
   bytes per column). Width 4 is a plain index: off holds the starts themselves and base is unused
   (a block holding more than 65535 spans, or a tile-sized field, filter.c). Columns 0 .. cols are
   indexed, column `cols` being the end of the spans, so a column's end is the next one's start
   without a test for the last. ptl_vx_col_begin and ptl_vx_col_end read it; col_index.c builds it. */
#define PTL_VX_COL_BLOCK 16u
typedef struct ptl_vx_col_index {
    uint32_t* base;  /* cols / PTL_VX_COL_BLOCK + 1 entries; NULL for a plain index (width 4) */
    union {
        uint8_t* u8;
        uint16_t* u16;
        uint32_t* u32;
        void* any;
    } off;           /* cols + 1 entries of `width` bytes */
    uint32_t cols;   /* columns of the field */
    uint32_t width;  /* bytes per entry of off: 1, 2 or 4 (plain) */
    uint32_t filled; /* entries of off set so far (ptl_vx_col_index_push) */
} ptl_vx_col_index;

/* The start of column c (0 .. cols) in index x, whose width is `width`: a loop that reads the index
   many times can be compiled once per width (a constant here), which spares it the choice of the
   width at every read (the layer flood: 10% of its time on a flat world). */
static inline uint32_t ptl_vx_col_index_at_w(const ptl_vx_col_index* x, uint32_t c, uint32_t width) {
    switch (width) {
    case 1: return x->base[c / PTL_VX_COL_BLOCK] + x->off.u8[c];
    case 2: return x->base[c / PTL_VX_COL_BLOCK] + x->off.u16[c];
    default: return x->off.u32[c];
    }
}
/* The start of column c (0 .. cols) in index x. */
static inline uint32_t ptl_vx_col_index_at(const ptl_vx_col_index* x, uint32_t c) {
    return ptl_vx_col_index_at_w(x, c, x->width);
}
/* For the functions compiled once per width: inlined where the width is a constant. */
#if defined(__GNUC__)
#define PTL_VX_INLINE_ALWAYS inline __attribute__((always_inline))
#else
#define PTL_VX_INLINE_ALWAYS inline
#endif

/* col_index.c. An index for `cols` columns, empty (filled 0): width 1 is the compact index (it
   widens to 2, then 4, when an offset needs it), width 4 the plain one. Entries are pushed in
   column order, cols + 1 of them (the last: the span count). The allocations have exact sizes
   (ptl_vx_col_index_free gives them back with the same). PTL_ERR_NO_MEMORY leaves x empty. */
ptl_status ptl_vx_col_index_init(ptl_vx_col_index* x, uint32_t cols, uint32_t width, const ptl_allocator* a);
void ptl_vx_col_index_free(ptl_vx_col_index* x, const ptl_allocator* a);
/* Pushes an entry that does not fit the current width (the slow path of ptl_vx_col_index_push). */
bool ptl_vx_col_index_push_wide(ptl_vx_col_index* x, uint32_t start, const ptl_allocator* a);
/* Sets the start of the next column (entry `filled`): starts never decrease, and there are at most
   cols + 1 entries. False when widening the index ran out of memory (x is then unchanged and still
   freed by ptl_vx_col_index_free). */
static inline bool ptl_vx_col_index_push(ptl_vx_col_index* x, uint32_t start, const ptl_allocator* a) {
    const uint32_t c = x->filled;
    if (x->width == 4) {
        x->off.u32[c] = start;
    } else {
        if (c % PTL_VX_COL_BLOCK == 0) x->base[c / PTL_VX_COL_BLOCK] = start;
        const uint32_t o = start - x->base[c / PTL_VX_COL_BLOCK];
        if (x->width == 1 && o <= 0xffu) x->off.u8[c] = (uint8_t)o;
        else if (x->width == 2 && o <= 0xffffu) x->off.u16[c] = (uint16_t)o;
        else return ptl_vx_col_index_push_wide(x, start, a);
    }
    x->filled = c + 1;
    return true;
}

typedef struct ptl_open_field {
    ptl_vx_params p;
    ptl_vx_col_index col_index; /* width * depth columns: compact for the world's field (tiles.c),
                                   plain for the fields of ptl_vx_build_open */
    ptl_open_span* spans;
    uint32_t span_count;
    uint32_t* col_of;    /* span_count: the column index of each span; NULL: in the spans (ptl_vx_span_col) */
    uint32_t span_cap;   /* entries allocated in spans and col_of (>= span_count: erosion compacts in place) */
    ptl_vx_gap* gaps;    /* sorted by (span, dir) */
    uint32_t gap_count;
    ptl_allocator alloc;
} ptl_open_field;

/* The column next to column c (of a grid `width` wide) in direction d (0: -x, 1: +z, 2: +x, 3: -z);
   the caller knows it is inside the grid. */
static inline uint32_t ptl_vx_ncol(int32_t width, uint32_t c, int d) {
    const uint32_t off[4] = {(uint32_t)-1, (uint32_t)width, 1u, (uint32_t)-width};
    return c + off[d & 3];
}
/* Open field of's spans of column c are [ptl_vx_col_begin(of, c), ptl_vx_col_end(of, c)). */
static inline uint32_t ptl_vx_col_begin(const ptl_open_field* of, uint32_t c) {
    return ptl_vx_col_index_at(&of->col_index, c);
}
static inline uint32_t ptl_vx_col_end(const ptl_open_field* of, uint32_t c) {
    return ptl_vx_col_index_at(&of->col_index, c + 1);
}
/* The column of open span s. */
static inline uint32_t ptl_vx_span_col(const ptl_open_field* of, uint32_t s) {
    return of->col_of ? of->col_of[s] : (uint32_t)of->spans[s].ceil | (uint32_t)of->spans[s].pad << 16;
}
/* The index of open span s's linked neighbour in direction d, or PTL_VX_NONE. */
static inline uint32_t ptl_vx_nbr(const ptl_open_field* of, uint32_t s, int d) {
    uint32_t k = of->spans[s].con[d];
    return k == PTL_VX_NOCON ? PTL_VX_NONE : ptl_vx_col_begin(of, ptl_vx_ncol(of->p.width, ptl_vx_span_col(of, s), d)) + k;
}

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

/* Resolves the desc (defaults filled) against the mesh bounds (of the vertices its triangles use)
   into voxel parameters for one tile covering the whole mesh: bmin is the mesh's, width and depth
   ceil(extent / cs). PTL_ERR_BAD_INPUT when the grid would exceed 2^28 columns or 65535 heights
   (with a message giving the sizes and suggesting a larger cell size), when floats at the mesh's
   coordinates are further apart than a quarter voxel (far from the origin), or for a mesh without
   triangles, with out-of-range indices or non-finite coordinates; PTL_ERR_INVALID_ARG for negative
   or non-finite desc values and a slope above 90. */
ptl_status ptl_vx_params_resolve(const ptl_bake_desc* desc, const ptl_trimesh* m, ptl_vx_params* out, ptl_error* err);

/* voxelize.c: rasterizes the triangles (all of them when `tris` is NULL, else the `count` listed)
   into `hf`. Conservative in x-z: every column whose square the triangle touches gets the
   triangle's y-range over that square, so no thin floor or wall is lost between columns.
   Degenerate (zero-area) triangles mark their columns solid but never walkable. */
ptl_status ptl_vx_rasterize(const ptl_trimesh* m, const uint32_t* tris, uint32_t count, const ptl_vx_params* p,
                            const ptl_allocator* alloc, ptl_heightfield* hf, ptl_error* err);
void ptl_heightfield_free(ptl_heightfield* hf);

/* filter.c: builds the open field from the solid one, applying, in order: low obstacles (a
   non-walkable top within walkable_climb above a walkable one becomes walkable: curbs, steps),
   clearance (the opening above a floor must be at least walkable_height), ledges (Recast's rule: a
   floor with a drop of more than walkable_climb to a neighbour column, or beside the grid's edge,
   or whose climbable neighbour floors differ by more than walkable_climb; details in filter.c),
   neighbour links (mutual), then erosion by walkable_radius (Recast's chamfer distance: removes
   walkable_radius columns along every wall, the one touching it included). Spans are sorted by
   floor within each column; `layer` is PTL_VX_NONE. */
ptl_status ptl_vx_build_open(const ptl_heightfield* hf, const ptl_allocator* alloc, ptl_open_field* out, ptl_error* err);
void ptl_open_field_free(ptl_open_field* of);

/* Ordered flooding into layers (layers.c, through the band stream of layer_map.c/layer_stream.c,
   which also gives the layer map the later stages read); with seeds (world points, NULL/0 for none), layers not
   reachable from a seed are dropped (their spans get PTL_VX_NONE). Layer ids are dense, 0.., in
   the order of each layer's lowest span (floor, then z, then x). A seed stands on the highest floor
   at most walkable_height below it (else the lowest at most walkable_climb above it) in its column
   or, failing that, the nearest column within walkable_radius + 1; seeds standing on nothing are
   ignored, and PTL_ERR_BAD_INPUT is returned when no seed stands on anything. */
ptl_status ptl_vx_build_layers(ptl_open_field* of, const float* seeds, uint32_t seed_count, const ptl_allocator* alloc,
                               ptl_layer_set* out, ptl_error* err);
/* The same, the blocks flooded as jobs of `jobs` (NULL: in turn). The flood runs in blocks of
   PTL_VX_LAYER_BLOCK x PTL_VX_LAYER_BLOCK columns of the field, each on its own, and their
   block-layers are stitched across block borders by the same rules (layer_stitch.c), so the layers
   are the same whatever the threads or the bake's tiling; they differ from one flood over the whole
   field only where its choices depend on the order in which it reaches a block. */
#define PTL_VX_LAYER_BLOCK 32u
ptl_status ptl_vx_build_layers_jobs(ptl_open_field* of, const float* seeds, uint32_t seed_count,
                                    const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_set* out,
                                    ptl_error* err);
/* layer_stitch.c: a set of pairs (a << 32 | b), open addressing; zero-initialised is empty.
   ptl_pair_set_sorted sorts the keys in place at the start of the slots (*out, *count; still
   owned by the set). False: out of memory (the set is unchanged). */
static inline uint64_t ptl_pair_key(uint32_t a, uint32_t b) {
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}
typedef struct ptl_pair_set {
    uint64_t* slot; /* UINT64_MAX: empty */
    uint32_t cap, count;
} ptl_pair_set;
bool ptl_pair_set_has(const ptl_pair_set* s, uint64_t k);
bool ptl_pair_set_add(ptl_pair_set* s, uint64_t k, const ptl_allocator* a);
bool ptl_pair_set_sorted(ptl_pair_set* s, const ptl_allocator* a, uint64_t** out, uint32_t* count);
void ptl_pair_set_free(ptl_pair_set* s, const ptl_allocator* a);
/* A link across a block border, a candidate for the stitch: the block-layers it would join, taken
   in order of (key, dir), key being its lower floor << 32 | its span on the -x or -z side (its index
   in the world's order), dir 1 (a border z = k B) or 2 (x = k B). */
typedef struct ptl_vx_candidate {
    uint64_t key;
    uint32_t a, b;
    uint32_t dir;
} ptl_vx_candidate;
/* layer_stitch.c: the roots (root[id], n entries) of n block-layers once stitched: `conflicts`
   (a << 32 | b, a < b, sorted, no repeats) may never be one layer, the candidates (sorted by key,
   then dir) are taken in turn, each uniting its two components unless they conflict. */
ptl_status ptl_vx_stitch(uint32_t n, const uint64_t* conflicts, uint32_t conflict_count, const ptl_vx_candidate* cand,
                         uint32_t cand_count, const ptl_allocator* alloc, uint32_t* root, ptl_error* err);
int ptl_vx_candidate_cmp(const void* x, const void* y);

/* layers.c: the flood of one block of a band (layer_stream.c). What the flood of block b leaves:
   its spans labelled with block-layer ids 0 .. layer_count - 1 (ptl_vx_relabel_block then adds
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
    const uint32_t* base; /* per block: its first block-layer's id (ptl_vx_relabel_block) */
} ptl_vx_block_jobs;
/* Job functions over the blocks (index b: bz * nbx + bx). */
void ptl_vx_flood_block(void* block_jobs, uint32_t b);
void ptl_vx_relabel_block(void* block_jobs, uint32_t b);
void ptl_vx_block_out_free(ptl_vx_block_out* o, const ptl_allocator* a);
void ptl_layer_set_free(ptl_layer_set* ls);

/* ---- tiles.c: the voxel stages in tiles ----------------------------------------------------------*/
/* Tiles of the voxel stages when the caller asks for none (bake3d.c): on Recast's meshes at its
   reference parameters they keep the peak under Recast's (dungeon, nav_test, undulating) for a few
   percent more bake time; a world at most this wide is one tile. */
#define PTL_VX_AUTO_TILE 192u
#define PTL_VX_MIN_TILE PTL_TILE_MIN
#define PTL_VX_MAX_TILE PTL_TILE_MAX

typedef struct ptl_vx_tiling {
    int32_t tile_size;       /* [Units: columns] */
    int32_t border;          /* [Units: columns] ptl_vx_tile_border */
    int32_t tiles_x, tiles_z;
} ptl_vx_tiling;

/* A tile's open span as the tile keeps it until its rows are streamed (tiles.c): the open span
   without its layer (not flooded yet) and padding, 10 bytes instead of 16 (a row of tiles is alive
   at a time, and on large worlds it is a good part of the bake's peak). */
typedef struct ptl_vx_tspan {
    uint16_t floor, ceil, tag;
    uint8_t con[4];
} ptl_vx_tspan;
_Static_assert(sizeof(ptl_vx_tspan) == 10, "tile span layout");
static inline ptl_vx_tspan ptl_vx_tspan_of(const ptl_open_span* o) {
    ptl_vx_tspan t = {o->floor, o->ceil, o->tag, {o->con[0], o->con[1], o->con[2], o->con[3]}};
    return t;
}
static inline ptl_open_span ptl_vx_open_of(const ptl_vx_tspan* t) {
    ptl_open_span o = {t->floor, t->ceil, t->tag, {t->con[0], t->con[1], t->con[2], t->con[3]}, 0, PTL_VX_NONE};
    return o;
}

/* One tile's own columns of the open field: world columns [x0, x0 + w) x [z0, z0 + d), spans in
   column order (z-major), each link nbr[k] as an index inside the neighbour column; gaps with span
   as an index into `spans` and other as an index inside its column (the span's column plus
   (cols + 1) steps in direction dir). */
typedef struct ptl_vx_tile {
    int32_t tx, tz;
    int32_t x0, z0, w, d;
    ptl_vx_col_index cols; /* w * d columns (compact: about 1.25 bytes a column); ptl_vx_tile_col */
    ptl_vx_tspan* spans;
    uint32_t span_count;
    ptl_vx_gap* gaps;
    uint32_t gap_count;
    uint32_t solid_spans; /* heightfield spans of its columns (for the stats) */
    ptl_status status;
} ptl_vx_tile;
/* The first span of tile t's column k (0 .. w * d; column w * d: the span count). */
static inline uint32_t ptl_vx_tile_col(const ptl_vx_tile* t, uint32_t k) { return ptl_vx_col_index_at(&t->cols, k); }

/* The border a tile needs so that its columns come out as in one piece: how far the filters look. */
int32_t ptl_vx_tile_border(const ptl_vx_params* world);
/* The tiling of `world` (from ptl_vx_params_resolve) by tiles of tile_size columns;
   PTL_ERR_INVALID_ARG outside PTL_VX_MIN_TILE..PTL_VX_MAX_TILE. */
ptl_status ptl_vx_tiling_init(const ptl_vx_params* world, uint32_t tile_size, ptl_vx_tiling* out, ptl_error* err);
/* Voxelizes and filters the tiles [range[0], range[2]) x [range[1], range[3]) as jobs (jobs NULL:
   in turn); *out gets their results in row order (count = tiles of the range). */
ptl_status ptl_vx_tiles_build(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                              const int32_t range[4], const ptl_job_system* jobs, const ptl_allocator* alloc,
                              ptl_vx_tile** out, uint32_t* count, ptl_error* err);
void ptl_vx_tile_free(ptl_vx_tile* t, const ptl_allocator* a);
/* Every tile of the world, a row of tiles at a time (the row's tiles as jobs), appended to the
   world's open field as each row finishes: ptl_vx_tiles_build + ptl_vx_tiles_assemble with one row of
   tiles alive at a time. `solid_spans` gets the heightfield spans of all columns (stats). Only a
   bake with a debug capture holds the world's field; the others stream the tiles into the layers
   (ptl_vx_tiles_stream, layer_map.h). */
/* keep_ceil: keep the spans' ceilings and a col_of array (a debug capture draws the openings);
   else the columns go into the spans (ptl_vx_span_col), 4 bytes a span less. */
ptl_status ptl_vx_tiles_bake(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                             const ptl_job_system* jobs, const ptl_allocator* alloc, bool keep_ceil,
                             ptl_open_field* out, uint32_t* solid_spans, ptl_error* err);
/* The world's open field from every tile's columns, each tile given once in any order (tiles from
   several ptl_vx_tiles_build calls, or read back from parts); checks that they fit together. The
   spans hold their columns (no col_of, as ptl_vx_tiles_bake without keep_ceil). */
ptl_status ptl_vx_tiles_assemble(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
                                 uint32_t count, const ptl_allocator* alloc, ptl_open_field* out, ptl_error* err);

#endif
