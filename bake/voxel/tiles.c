/* Tiled voxel stages (Saupin et al. 2014 §2.1 and §4.1.4): the world's columns are cut
   into square tiles of `tile_size` columns; each tile rasterizes the triangles binned to it into a
   window of the world grid (its columns plus a border) and runs the filters there (filter.c), then
   keeps its own columns. The border is as wide as the filters look: a column's open spans depend on
   the solid spans at most (gap scan + erosion radius + ledge + link) columns away, and the
   rasterizer cuts triangles in world columns (voxelize.c), so every kept column is exactly the one a
   one-piece bake makes. Assembling the tiles' columns (ptl_tiles_assemble) would give the
   one-piece open field, byte for byte, whatever the tile size, order or thread count; the bake does
   not assemble it (except for a debug capture, ptl_tiles_bake): the tiles stream into the layer
   stage (ptl_tiles_stream_mesh, layer_map.h), each tile flooding its own blocks in its job when the
   tile size is a multiple of the blocks', and every choice there is the whole field's, so the
   tiling leaves no vertex behind (the merge "without artificial vertices" of Saupin §4.3 happens at
   the level of columns and block-layers, where it is exact).

   A tile's job allocates only for its window: (tile_size + 2 border)^2 columns and their spans. In
   the streamed bake, tiles under PTL_VX_GROUP_COLS columns share a window per group of them, and
   each window takes the rows it shares with the one above it from there (tiles_stream.c). */
#include <string.h>

#include "../../runtime/internal.h"
#include "tiles_internal.h"

static const int DX[4] = {-1, 0, 1, 0};
static const int DZ[4] = {0, 1, 0, -1};

static int32_t clampi(int64_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : (int32_t)v; }

int32_t ptl_tiles_border(const ptl_vx_params* p) {
    /* In 64 bits and clamped: the parameters may come from a part's header (parts.c checks their
       ranges, but this must not overflow whatever it is given). */
    const int64_t r = p->walkable_radius;
    int64_t gap = 0;
    if (p->max_void > 0) { /* filter.c find_gap's reach */
        gap = 2 * (r + 1) + p->max_void + 1;
        if (gap > 127) gap = 127;
    }
    /* the scan reaches `gap` columns, whose spans depend on erosion (r), links and ledges (1 each),
       plus one column of margin */
    const int64_t b = gap + r + 3;
    return b > INT32_MAX ? INT32_MAX : b < INT32_MIN ? INT32_MIN : (int32_t)b;
}

ptl_status ptl_tiles_tiling_init(const ptl_vx_params* world, uint32_t tile_size, ptl_vx_tiling* out, ptl_error* err) {
    memset(out, 0, sizeof *out);
    if (tile_size < PTL_VX_MIN_TILE || tile_size > PTL_VX_MAX_TILE)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: tile_size %u is outside %u..%u columns", tile_size,
                             PTL_VX_MIN_TILE, PTL_VX_MAX_TILE);
    out->tile_size = (int32_t)tile_size;
    out->border = ptl_tiles_border(world);
    out->tiles_x = (int32_t)((world->world_width + (int32_t)tile_size - 1) / (int32_t)tile_size);
    out->tiles_z = (int32_t)((world->world_depth + (int32_t)tile_size - 1) / (int32_t)tile_size);
    return PTL_OK;
}

/* The window of tile (tx, tz): its columns and the border, clamped to the world. */
void ptl_tiles_window(const ptl_vx_params* world, const ptl_vx_tiling* t, int32_t tx, int32_t tz, ptl_vx_params* p) {
    *p = *world;
    const int64_t T = t->tile_size, B = t->border;
    int32_t x0 = clampi(tx * T - B, 0, world->world_width), x1 = clampi((tx + 1) * T + B, 0, world->world_width);
    int32_t z0 = clampi(tz * T - B, 0, world->world_depth), z1 = clampi((tz + 1) * T + B, 0, world->world_depth);
    p->ox = x0, p->oz = z0, p->width = x1 - x0, p->depth = z1 - z0;
    p->border = t->border;
}

void ptl_tiles_tile_free(ptl_vx_tile* t, const ptl_allocator* a) {
    if (!t) return;
    ptl_col_index_free(&t->cols, a);
    ptl_mem_free(a, t->spans, (size_t)t->span_count * sizeof *t->spans);
    ptl_mem_free(a, t->gaps, (size_t)t->gap_count * sizeof *t->gaps);
    t->spans = NULL, t->gaps = NULL;
    t->span_count = t->gap_count = 0;
}

/* Keeps the tile's own columns of the window's open field (links are indices inside their
   columns already), with gaps' far ends as indices inside their columns. */
static ptl_status extract(const ptl_open_field* of, const ptl_heightfield* hf, ptl_vx_tile* t, const ptl_allocator* a) {
    const ptl_vx_params* p = &of->p;
    const int32_t lx0 = t->x0 - p->ox, lz0 = t->z0 - p->oz;
    const size_t cols = (size_t)t->w * (size_t)t->d;
    if (ptl_col_index_init(&t->cols, (uint32_t)cols, 1, a) < 0) return PTL_ERR_NO_MEMORY;
    uint32_t n = 0;
    for (int32_t z = 0; z < t->d; ++z)
        for (int32_t x = 0; x < t->w; ++x) {
            uint32_t c = (uint32_t)(lz0 + z) * (uint32_t)p->width + (uint32_t)(lx0 + x);
            if (!ptl_col_index_push(&t->cols, n, a)) return PTL_ERR_NO_MEMORY;
            n += ptl_filter_col_end(of, c) - ptl_filter_col_begin(of, c);
            t->solid_spans += hf->col_start[c + 1] - hf->col_start[c];
        }
    if (!ptl_col_index_push(&t->cols, n, a)) return PTL_ERR_NO_MEMORY;
    t->spans = ptl_mem_alloc(a, (size_t)n * sizeof *t->spans);
    if (!t->spans) return PTL_ERR_NO_MEMORY;
    t->span_count = n;
    uint32_t i = 0;
    for (int32_t z = 0; z < t->d; ++z)
        for (int32_t x = 0; x < t->w; ++x) {
            uint32_t c = (uint32_t)(lz0 + z) * (uint32_t)p->width + (uint32_t)(lx0 + x);
            for (uint32_t s = ptl_filter_col_begin(of, c), e = ptl_filter_col_end(of, c); s < e; ++s)
                t->spans[i++] = ptl_tiles_tspan_of(&of->spans[s]);
        }
    /* Gaps leaving a kept span: span as the tile's index, other as its index in its column. */
    uint32_t ng = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t g = 0; g < of->gap_count; ++g) {
            const ptl_vx_gap* gp = &of->gaps[g];
            uint32_t c = of->col_of[gp->span];
            int32_t x = (int32_t)(c % (uint32_t)p->width) - lx0, z = (int32_t)(c / (uint32_t)p->width) - lz0;
            if (x < 0 || z < 0 || x >= t->w || z >= t->d) continue;
            if (pass == 0) {
                ++ng;
                continue;
            }
            int k = gp->cols + 1;
            uint32_t oc = (uint32_t)(lz0 + z + k * DZ[gp->dir]) * (uint32_t)p->width + (uint32_t)(lx0 + x + k * DX[gp->dir]);
            ptl_vx_gap o = *gp;
            o.span = ptl_tiles_tile_col(t, (uint32_t)z * (uint32_t)t->w + (uint32_t)x) + (gp->span - ptl_filter_col_begin(of, c));
            o.other = gp->other - ptl_filter_col_begin(of, oc);
            t->gaps[t->gap_count++] = o;
        }
        if (pass == 0 && ng) {
            t->gaps = ptl_mem_alloc(a, (size_t)ng * sizeof *t->gaps);
            if (!t->gaps) return PTL_ERR_NO_MEMORY;
        }
        if (pass == 0 && !ng) break;
    }
    return PTL_OK;
}



void ptl_tiles_run_job(void* data, uint32_t index) {
    ptl_tiles_job* j = data;
    const int32_t rw = j->range[2] - j->range[0];
    ptl_vx_tile* t = &j->out[index];
    ptl_error* err = &j->errs[index];
    memset(t, 0, sizeof *t);
    t->tx = j->range[0] + (int32_t)(index % (uint32_t)rw);
    t->tz = j->range[1] + (int32_t)(index / (uint32_t)rw);
    const int32_t T = j->t->tile_size;
    t->x0 = t->tx * T, t->z0 = t->tz * T;
    t->w = (t->x0 + T <= j->world->world_width ? T : j->world->world_width - t->x0);
    t->d = (t->z0 + T <= j->world->world_depth ? T : j->world->world_depth - t->z0);
    ptl_vx_params p;
    ptl_tiles_window(j->world, j->t, t->tx, t->tz, &p);
    ptl_heightfield hf;
    ptl_open_field of;
    memset(&hf, 0, sizeof hf);
    memset(&of, 0, sizeof of);
    const uint32_t bi = (uint32_t)(t->tz - j->brange[1]) * (uint32_t)(j->brange[2] - j->brange[0]) +
                        (uint32_t)(t->tx - j->brange[0]);
    const uint32_t* tris = j->b->tris + j->b->start[bi];
    uint32_t count = j->b->start[bi + 1] - j->b->start[bi];
    ptl_status st = ptl_voxelize_trimesh(j->m, tris, count, &p, j->a, &hf, err);
    if (st >= 0) st = ptl_filter_build_open(&hf, j->a, &of, err);
    if (st >= 0 && extract(&of, &hf, t, j->a) < 0)
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory in tile (%d, %d)", t->tx, t->tz);
    if (st < 0) ptl_tiles_tile_free(t, j->a);
    t->status = st < 0 ? st : PTL_OK;
    ptl_open_field_free(&of);
    ptl_heightfield_free(&hf);
}

/* Runs the tiles of `range` (inside `brange`, the range `b` was binned for) as jobs. */
static ptl_status run_tiles(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                           const int32_t range[4], const int32_t brange[4], const ptl_tiles_bins* b, const ptl_job_system* jobs,
                           const ptl_allocator* a, ptl_vx_tile** out, uint32_t* count, ptl_error* err) {
    const uint32_t n = (uint32_t)(range[2] - range[0]) * (uint32_t)(range[3] - range[1]);
    ptl_status st = PTL_OK;
    ptl_vx_tile* tiles = ptl_mem_calloc(a, n, sizeof *tiles);
    ptl_error* errs = ptl_mem_calloc(a, n, sizeof *errs);
    if (!tiles || !errs) {
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    } else {
        ptl_tiles_job j = {m, world, t, range, brange, b, a, tiles, errs};
        if (jobs && jobs->run) jobs->run(jobs->user, ptl_tiles_run_job, &j, n);
        else
            for (uint32_t i = 0; i < n; ++i) ptl_tiles_run_job(&j, i);
        for (uint32_t i = 0; i < n && st >= 0; ++i) /* the first failure in tile order */
            if (tiles[i].status < 0) {
                st = tiles[i].status;
                if (err) *err = errs[i];
            }
    }
    ptl_mem_free(a, errs, (size_t)n * sizeof *errs);
    if (st < 0 && tiles) {
        for (uint32_t i = 0; i < n; ++i) ptl_tiles_tile_free(&tiles[i], a);
        ptl_mem_free(a, tiles, (size_t)n * sizeof *tiles);
        tiles = NULL;
    }
    if (st >= 0) *out = tiles, *count = n;
    return st;
}

static bool range_ok(const ptl_vx_tiling* t, const int32_t range[4]) {
    return range[0] >= 0 && range[1] >= 0 && range[2] <= t->tiles_x && range[3] <= t->tiles_z && range[0] < range[2] &&
           range[1] < range[3];
}

ptl_status ptl_tiles_build(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                              const int32_t range[4], const ptl_job_system* jobs, const ptl_allocator* alloc,
                              ptl_vx_tile** out, uint32_t* count, ptl_error* err) {
    *out = NULL;
    *count = 0;
    if (!range_ok(t, range))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: tile range %d:%d,%d:%d is outside the %d x %d tiles",
                             range[0], range[2], range[1], range[3], t->tiles_x, t->tiles_z);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_tiles_bins b;
    memset(&b, 0, sizeof b);
    ptl_status st = ptl_tiles_bin_triangles(m, world, t, range, NULL, jobs, &a, &b);
    if (st < 0) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
    else st = run_tiles(m, world, t, range, range, &b, jobs, &a, out, count, err);
    ptl_tiles_bin_free(&b, &a);
    return st;
}

void ptl_tiles_free_all(ptl_vx_tile* tiles, uint32_t n, const ptl_allocator* a) {
    if (!tiles) return;
    for (uint32_t i = 0; i < n; ++i) ptl_tiles_tile_free(&tiles[i], a);
    ptl_mem_free(a, tiles, (size_t)n * sizeof *tiles);
}
