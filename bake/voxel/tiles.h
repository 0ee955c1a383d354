/* The voxel stages in tiles (tiles.c): each tile voxelized and filtered on its own (as jobs), then
   assembled into the world's open field or streamed into the layers band by band. Private to the
   bake. */
#ifndef PTL_TILES_H
#define PTL_TILES_H

#include "filter.h"

/* Tiles of the voxel stages when the caller asks for none (bake3d.c): on Recast's meshes at its
   reference parameters they keep the peak under Recast's (dungeon, nav_test, undulating) for a few
   percent more bake time; a world at most this wide is one tile. */
#define PTL_VX_AUTO_TILE 192u
#define PTL_VX_MIN_TILE PTL_TILE_MIN
#define PTL_VX_MAX_TILE PTL_TILE_MAX

typedef struct ptl_vx_tiling {
    int32_t tile_size;       /* [Units: columns] */
    int32_t border;          /* [Units: columns] ptl_tiles_border */
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
static inline ptl_vx_tspan ptl_tiles_tspan_of(const ptl_open_span* o) {
    ptl_vx_tspan t = {o->floor, o->ceil, o->tag, {o->con[0], o->con[1], o->con[2], o->con[3]}};
    return t;
}
static inline ptl_open_span ptl_tiles_open_of(const ptl_vx_tspan* t) {
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
    ptl_vx_col_index cols; /* w * d columns (compact: about 1.25 bytes a column); ptl_tiles_tile_col */
    ptl_vx_tspan* spans;
    uint32_t span_count;
    ptl_vx_gap* gaps;
    uint32_t gap_count;
    uint32_t solid_spans; /* heightfield spans of its columns (for the stats) */
    ptl_status status;
} ptl_vx_tile;
/* The first span of tile t's column k (0 .. w * d; column w * d: the span count). */
static inline uint32_t ptl_tiles_tile_col(const ptl_vx_tile* t, uint32_t k) { return ptl_col_index_at(&t->cols, k); }
/* The local column holding span s of t (a binary search of its column index). */
static inline uint32_t ptl_tiles_col_of_span(const ptl_vx_tile* t, uint32_t s) {
    uint32_t c = 0;
    for (uint32_t hi = (uint32_t)t->w * (uint32_t)t->d; c < hi;) {
        const uint32_t mid = (c + hi) / 2;
        if (ptl_tiles_tile_col(t, mid + 1) <= s) c = mid + 1;
        else hi = mid;
    }
    return c;
}

/* The border a tile needs so that its columns come out as in one piece: how far the filters look. */
int32_t ptl_tiles_border(const ptl_vx_params* world);
/* The tiling of `world` (from ptl_vx_params_resolve) by tiles of tile_size columns;
   PTL_ERR_INVALID_ARG outside PTL_VX_MIN_TILE..PTL_VX_MAX_TILE. */
ptl_status ptl_tiles_tiling_init(const ptl_vx_params* world, uint32_t tile_size, ptl_vx_tiling* out, ptl_error* err);
/* Voxelizes and filters the tiles [range[0], range[2]) x [range[1], range[3]) as jobs (jobs NULL:
   in turn); *out gets their results in row order (count = tiles of the range). */
ptl_status ptl_tiles_build(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                              const int32_t range[4], const ptl_job_system* jobs, const ptl_allocator* alloc,
                              ptl_vx_tile** out, uint32_t* count, ptl_error* err);
void ptl_tiles_tile_free(ptl_vx_tile* t, const ptl_allocator* a);
/* Every tile of the world, a row of tiles at a time (the row's tiles as jobs), appended to the
   world's open field as each row finishes: ptl_tiles_build + ptl_tiles_assemble with one row of
   tiles alive at a time. `solid_spans` gets the heightfield spans of all columns (stats). Only a
   bake with a debug capture holds the world's field; the others stream the tiles into the layers
   (ptl_tiles_stream_mesh, layer_map.h). */
/* keep_ceil: keep the spans' ceilings and a col_of array (a debug capture draws the openings);
   else the columns go into the spans (ptl_filter_span_col), 4 bytes a span less. */
ptl_status ptl_tiles_bake(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                             const ptl_job_system* jobs, const ptl_allocator* alloc, bool keep_ceil,
                             ptl_open_field* out, uint32_t* solid_spans, ptl_error* err);
/* The world's open field from every tile's columns, each tile given once in any order (tiles from
   several ptl_tiles_build calls, or read back from parts); checks that they fit together. The
   spans hold their columns (no col_of, as ptl_tiles_bake without keep_ceil). */
ptl_status ptl_tiles_assemble(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
                                 uint32_t count, const ptl_allocator* alloc, ptl_open_field* out, ptl_error* err);


typedef struct ptl_layer_stream ptl_layer_stream; /* layer_stream.h */
/* tiles.c: the voxel stages in tiles (a row of tiles at a time, as jobs) streamed into `s` band by
   band; each row of tiles is freed once its rows are given, so no world-sized field ever exists.
   `ms_layers` gets the time spent in the stream; the rows of tiles done go to `progress` (progress.h,
   from the calling thread; NULL: none). */
struct ptl_bake_progress;
ptl_status ptl_tiles_stream_mesh(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                               const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_stream* s,
                               uint32_t* solid_spans, double* ms_layers, const struct ptl_bake_progress* progress,
                               ptl_error* err);
/* tiles.c: every tile of the world (from parts, in any order, each once) streamed into `s`. */
ptl_status ptl_tiles_stream_parts(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
                               uint32_t count, const ptl_allocator* alloc, ptl_layer_stream* s, ptl_error* err);

#endif
