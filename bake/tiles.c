/* Tiled voxel stages (issue 5; Saupin et al. 2014 §2.1 and §4.1.4): the world's columns are cut
   into square tiles of `tile_size` columns; each tile rasterizes the triangles binned to it into a
   window of the world grid (its columns plus a border) and runs the filters there (filter.c), then
   keeps its own columns. The border is as wide as the filters look: a column's open spans depend on
   the solid spans at most (gap scan + erosion radius + ledge + link) columns away, and the
   rasterizer cuts triangles in world columns (voxelize.c), so every kept column is exactly the one a
   one-piece bake makes. Assembling the tiles' columns (ptl_vx_tiles_assemble) would give the
   one-piece open field, byte for byte, whatever the tile size, order or thread count; the bake does
   not assemble it (except for a debug capture, ptl_vx_tiles_bake): the tiles stream into the layer
   stage (ptl_vx_tiles_stream, layer_map.h), each tile flooding its own blocks in its job when the
   tile size is a multiple of the blocks', and every choice there is the whole field's, so the
   tiling leaves no vertex behind (the merge "without artificial vertices" of Saupin §4.3 happens at
   the level of columns and block-layers, where it is exact).

   A tile's job allocates only for its window: (tile_size + 2 border)^2 columns and their spans. */
#include <string.h>

#include "../runtime/alloc.h"
#include "../runtime/error.h"
#include "layer_map.h"
#include "progress.h"

static const int DX[4] = {-1, 0, 1, 0};
static const int DZ[4] = {0, 1, 0, -1};

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static int32_t clampi(int64_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : (int32_t)v; }

int32_t ptl_vx_tile_border(const ptl_vx_params* p) {
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

ptl_status ptl_vx_tiling_init(const ptl_vx_params* world, uint32_t tile_size, ptl_vx_tiling* out, ptl_error* err) {
    memset(out, 0, sizeof *out);
    if (tile_size < PTL_VX_MIN_TILE || tile_size > PTL_VX_MAX_TILE)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: tile_size %u is outside %u..%u columns", tile_size,
                             PTL_VX_MIN_TILE, PTL_VX_MAX_TILE);
    out->tile_size = (int32_t)tile_size;
    out->border = ptl_vx_tile_border(world);
    out->tiles_x = (int32_t)((world->world_width + (int32_t)tile_size - 1) / (int32_t)tile_size);
    out->tiles_z = (int32_t)((world->world_depth + (int32_t)tile_size - 1) / (int32_t)tile_size);
    return PTL_OK;
}

/* The window of tile (tx, tz): its columns and the border, clamped to the world. */
static void tile_window(const ptl_vx_params* world, const ptl_vx_tiling* t, int32_t tx, int32_t tz, ptl_vx_params* p) {
    *p = *world;
    const int64_t T = t->tile_size, B = t->border;
    int32_t x0 = clampi(tx * T - B, 0, world->world_width), x1 = clampi((tx + 1) * T + B, 0, world->world_width);
    int32_t z0 = clampi(tz * T - B, 0, world->world_depth), z1 = clampi((tz + 1) * T + B, 0, world->world_depth);
    p->ox = x0, p->oz = z0, p->width = x1 - x0, p->depth = z1 - z0;
    p->border = t->border;
}

void ptl_vx_tile_free(ptl_vx_tile* t, const ptl_allocator* a) {
    if (!t) return;
    ptl_vx_col_index_free(&t->cols, a);
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
    if (ptl_vx_col_index_init(&t->cols, (uint32_t)cols, 1, a) < 0) return PTL_ERR_NO_MEMORY;
    uint32_t n = 0;
    for (int32_t z = 0; z < t->d; ++z)
        for (int32_t x = 0; x < t->w; ++x) {
            uint32_t c = (uint32_t)(lz0 + z) * (uint32_t)p->width + (uint32_t)(lx0 + x);
            if (!ptl_vx_col_index_push(&t->cols, n, a)) return PTL_ERR_NO_MEMORY;
            n += ptl_vx_col_end(of, c) - ptl_vx_col_begin(of, c);
            t->solid_spans += hf->col_start[c + 1] - hf->col_start[c];
        }
    if (!ptl_vx_col_index_push(&t->cols, n, a)) return PTL_ERR_NO_MEMORY;
    t->spans = ptl_mem_alloc(a, (size_t)n * sizeof *t->spans);
    if (!t->spans) return PTL_ERR_NO_MEMORY;
    t->span_count = n;
    uint32_t i = 0;
    for (int32_t z = 0; z < t->d; ++z)
        for (int32_t x = 0; x < t->w; ++x) {
            uint32_t c = (uint32_t)(lz0 + z) * (uint32_t)p->width + (uint32_t)(lx0 + x);
            for (uint32_t s = ptl_vx_col_begin(of, c), e = ptl_vx_col_end(of, c); s < e; ++s)
                t->spans[i++] = ptl_vx_tspan_of(&of->spans[s]);
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
            o.span = ptl_vx_tile_col(t, (uint32_t)z * (uint32_t)t->w + (uint32_t)x) + (gp->span - ptl_vx_col_begin(of, c));
            o.other = gp->other - ptl_vx_col_begin(of, oc);
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

/* Bins of triangles per tile of the range, CSR. */
typedef struct bins {
    uint32_t* start; /* tiles + 1 */
    uint32_t* tris;
    uint32_t tiles, total;
} bins;

/* The tile rows and columns a triangle's window test could pass (a superset; voxelize.c decides). */
static void tri_tiles(const ptl_trimesh* m, const ptl_vx_params* w, const ptl_vx_tiling* t, uint32_t tri, int32_t* tx0,
                      int32_t* tz0, int32_t* tx1, int32_t* tz1) {
    double u0 = 1e300, u1 = -1e300, v0 = 1e300, v1 = -1e300;
    for (int k = 0; k < 3; ++k) {
        const float* s = m->verts + 3 * (size_t)m->tris[3 * (size_t)tri + k];
        double u = ((double)s[0] - w->bmin[0]) / w->cs, v = ((double)s[2] - w->bmin[2]) / w->cs;
        u0 = u < u0 ? u : u0, u1 = u > u1 ? u : u1, v0 = v < v0 ? v : v0, v1 = v > v1 ? v : v1;
    }
    /* columns touched, one more on each side, clamped (the triangle is finite: vx_params checked) */
    int64_t c0 = (int64_t)(u0 < -1e9 ? -1e9 : u0) - 2, c1 = (int64_t)(u1 > 1e9 ? 1e9 : u1) + 2;
    int64_t r0 = (int64_t)(v0 < -1e9 ? -1e9 : v0) - 2, r1 = (int64_t)(v1 > 1e9 ? 1e9 : v1) + 2;
    *tx0 = clampi(floor_div(c0 - t->border, t->tile_size), 0, t->tiles_x - 1);
    *tx1 = clampi(floor_div(c1 + t->border, t->tile_size), 0, t->tiles_x - 1);
    *tz0 = clampi(floor_div(r0 - t->border, t->tile_size), 0, t->tiles_z - 1);
    *tz1 = clampi(floor_div(r1 + t->border, t->tile_size), 0, t->tiles_z - 1);
}

/* Binning runs as jobs over chunks of the triangles: each chunk counts its triangles per tile, the
   counts become every (tile, chunk)'s place in the bins, and each chunk writes its triangles there,
   so a tile's triangles keep their index order whatever the threads. */
typedef struct bin_job {
    const ptl_trimesh* m;
    const ptl_vx_params* w;
    const ptl_vx_tiling* t;
    const int32_t* range;
    uint32_t chunks, per_chunk;
    uint32_t* at; /* chunks x tiles: the chunk's count, then its next slot, per tile */
    uint32_t* tris;
    int pass;
    const int32_t* rows; /* NULL, or per BIN_CHUNK_TRIS triangles: the first and last tile row they meet */
} bin_job;

enum { BIN_CHUNK_TRIS = 16384, BIN_MAX_COUNTERS = 1 << 22, BIN_ONCE_RUNS = 4 };

static void bin_chunk(void* data, uint32_t chunk) {
    const bin_job* j = data;
    const int32_t* range = j->range;
    const uint32_t rw = (uint32_t)(range[2] - range[0]), tiles = rw * (uint32_t)(range[3] - range[1]);
    uint32_t* at = j->at + (size_t)chunk * tiles;
    const uint32_t i0 = chunk * j->per_chunk;
    const uint32_t i1 = i0 + j->per_chunk < j->m->tri_count ? i0 + j->per_chunk : j->m->tri_count;
    for (uint32_t i = i0; i < i1; ++i) {
        if (j->rows && i % BIN_CHUNK_TRIS == 0) { /* a run of triangles that meets none of the range's rows */
            const int32_t* r = &j->rows[2 * (i / BIN_CHUNK_TRIS)];
            if (r[1] < range[1] || r[0] >= range[3]) {
                i += BIN_CHUNK_TRIS - 1;
                continue;
            }
        }
        int32_t x0, z0, x1, z1;
        tri_tiles(j->m, j->w, j->t, i, &x0, &z0, &x1, &z1);
        if (x0 < range[0]) x0 = range[0];
        if (z0 < range[1]) z0 = range[1];
        if (x1 > range[2] - 1) x1 = range[2] - 1;
        if (z1 > range[3] - 1) z1 = range[3] - 1;
        for (int32_t z = z0; z <= z1; ++z)
            for (int32_t x = x0; x <= x1; ++x) {
                uint32_t k = (uint32_t)(z - range[1]) * rw + (uint32_t)(x - range[0]);
                if (j->pass == 0) ++at[k];
                else j->tris[at[k]++] = i;
            }
    }
}

static ptl_status bin_triangles_rows(const ptl_trimesh* m, const ptl_vx_params* w, const ptl_vx_tiling* t,
                                     const int32_t range[4], const int32_t* rows, const ptl_job_system* jobs,
                                     const ptl_allocator* a, bins* b) {
    const int32_t rw = range[2] - range[0], rd = range[3] - range[1];
    b->tiles = (uint32_t)rw * (uint32_t)rd;
    b->start = ptl_mem_calloc(a, (size_t)b->tiles + 1, sizeof *b->start);
    if (!b->start) return PTL_ERR_NO_MEMORY;
    /* chunks of BIN_CHUNK_TRIS triangles, fewer when the tiles are many (chunks x tiles counters) */
    uint32_t chunks = (m->tri_count + BIN_CHUNK_TRIS - 1) / BIN_CHUNK_TRIS;
    if (chunks < 1) chunks = 1;
    if ((uint64_t)chunks * b->tiles > BIN_MAX_COUNTERS) chunks = (uint32_t)(BIN_MAX_COUNTERS / b->tiles);
    if (chunks < 1) chunks = 1;
    uint32_t per_chunk = (uint32_t)(((uint64_t)m->tri_count + chunks - 1) / chunks);
    if (rows) per_chunk = (per_chunk + BIN_CHUNK_TRIS - 1) / BIN_CHUNK_TRIS * BIN_CHUNK_TRIS; /* whole runs */
    if (rows) chunks = (uint32_t)(((uint64_t)m->tri_count + per_chunk - 1) / per_chunk);
    if (chunks < 1) chunks = 1;
    const size_t ncount = (size_t)chunks * b->tiles;
    uint32_t* at = ptl_mem_calloc(a, ncount, sizeof *at);
    if (!at) return PTL_ERR_NO_MEMORY;
    bin_job j = {m, w, t, range, chunks, per_chunk, at, NULL, 0, rows};
    ptl_status st = PTL_OK;
    for (int pass = 0; pass < 2 && st == PTL_OK; ++pass) {
        j.pass = pass, j.tris = b->tris;
        if (jobs && jobs->run && chunks > 1) jobs->run(jobs->user, bin_chunk, &j, chunks);
        else
            for (uint32_t c = 0; c < chunks; ++c) bin_chunk(&j, c);
        if (pass > 0) break;
        /* counts -> slots: tile by tile, chunk by chunk */
        uint64_t total = 0;
        for (uint32_t k = 0; k < b->tiles; ++k) {
            b->start[k] = (uint32_t)total;
            for (uint32_t c = 0; c < chunks; ++c) {
                uint32_t n = at[(size_t)c * b->tiles + k];
                at[(size_t)c * b->tiles + k] = (uint32_t)total;
                total += n;
            }
            if (total > UINT32_MAX) {
                st = PTL_ERR_NO_MEMORY;
                break;
            }
        }
        if (st != PTL_OK) break;
        b->start[b->tiles] = (uint32_t)total;
        b->total = (uint32_t)total;
        b->tris = ptl_mem_alloc(a, (size_t)b->total * sizeof *b->tris + 1);
        if (!b->tris) st = PTL_ERR_NO_MEMORY;
    }
    ptl_mem_free(a, at, ncount * sizeof *at);
    return st;
}

static ptl_status bin_triangles(const ptl_trimesh* m, const ptl_vx_params* w, const ptl_vx_tiling* t,
                                const int32_t range[4], const ptl_job_system* jobs, const ptl_allocator* a, bins* b) {
    return bin_triangles_rows(m, w, t, range, NULL, jobs, a, b);
}

/* Per run of BIN_CHUNK_TRIS triangles, the first and last tile row its triangles meet: a row of
   tiles is then binned without looking at the runs far from it (the triangles of a level are
   mostly stored near each other, so most runs meet one or two rows). */
typedef struct rows_job {
    const ptl_trimesh* m;
    const ptl_vx_params* w;
    const ptl_vx_tiling* t;
    int32_t* rows;
} rows_job;

static void rows_chunk(void* data, uint32_t chunk) {
    const rows_job* j = data;
    const uint32_t i0 = chunk * BIN_CHUNK_TRIS;
    const uint32_t i1 = i0 + BIN_CHUNK_TRIS < j->m->tri_count ? i0 + BIN_CHUNK_TRIS : j->m->tri_count;
    int32_t lo = INT32_MAX, hi = -1;
    for (uint32_t i = i0; i < i1; ++i) {
        int32_t x0, z0, x1, z1;
        tri_tiles(j->m, j->w, j->t, i, &x0, &z0, &x1, &z1);
        lo = z0 < lo ? z0 : lo, hi = z1 > hi ? z1 : hi;
    }
    j->rows[2 * chunk] = lo, j->rows[2 * chunk + 1] = hi;
}

typedef struct tile_job {
    const ptl_trimesh* m;
    const ptl_vx_params* world;
    const ptl_vx_tiling* t;
    const int32_t* range;    /* the tiles to run */
    const int32_t* brange;   /* the tiles `b` was binned for (holds range) */
    const bins* b;
    const ptl_allocator* a;
    ptl_vx_tile* out;
    ptl_error* errs;
} tile_job;

static void run_tile(void* data, uint32_t index) {
    tile_job* j = data;
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
    tile_window(j->world, j->t, t->tx, t->tz, &p);
    ptl_heightfield hf;
    ptl_open_field of;
    memset(&hf, 0, sizeof hf);
    memset(&of, 0, sizeof of);
    const uint32_t bi = (uint32_t)(t->tz - j->brange[1]) * (uint32_t)(j->brange[2] - j->brange[0]) +
                        (uint32_t)(t->tx - j->brange[0]);
    const uint32_t* tris = j->b->tris + j->b->start[bi];
    uint32_t count = j->b->start[bi + 1] - j->b->start[bi];
    ptl_status st = ptl_vx_rasterize(j->m, tris, count, &p, j->a, &hf, err);
    if (st >= 0) st = ptl_vx_build_open(&hf, j->a, &of, err);
    if (st >= 0 && extract(&of, &hf, t, j->a) < 0)
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory in tile (%d, %d)", t->tx, t->tz);
    if (st < 0) ptl_vx_tile_free(t, j->a);
    t->status = st < 0 ? st : PTL_OK;
    ptl_open_field_free(&of);
    ptl_heightfield_free(&hf);
}

/* Runs the tiles of `range` (inside `brange`, the range `b` was binned for) as jobs. */
static ptl_status run_tiles(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                           const int32_t range[4], const int32_t brange[4], const bins* b, const ptl_job_system* jobs,
                           const ptl_allocator* a, ptl_vx_tile** out, uint32_t* count, ptl_error* err) {
    const uint32_t n = (uint32_t)(range[2] - range[0]) * (uint32_t)(range[3] - range[1]);
    ptl_status st = PTL_OK;
    ptl_vx_tile* tiles = ptl_mem_calloc(a, n, sizeof *tiles);
    ptl_error* errs = ptl_mem_calloc(a, n, sizeof *errs);
    if (!tiles || !errs) {
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    } else {
        tile_job j = {m, world, t, range, brange, b, a, tiles, errs};
        if (jobs && jobs->run) jobs->run(jobs->user, run_tile, &j, n);
        else
            for (uint32_t i = 0; i < n; ++i) run_tile(&j, i);
        for (uint32_t i = 0; i < n && st >= 0; ++i) /* the first failure in tile order */
            if (tiles[i].status < 0) {
                st = tiles[i].status;
                if (err) *err = errs[i];
            }
    }
    ptl_mem_free(a, errs, (size_t)n * sizeof *errs);
    if (st < 0 && tiles) {
        for (uint32_t i = 0; i < n; ++i) ptl_vx_tile_free(&tiles[i], a);
        ptl_mem_free(a, tiles, (size_t)n * sizeof *tiles);
        tiles = NULL;
    }
    if (st >= 0) *out = tiles, *count = n;
    return st;
}

static void free_bins(bins* b, const ptl_allocator* a) {
    ptl_mem_free(a, b->start, ((size_t)b->tiles + 1) * sizeof *b->start);
    ptl_mem_free(a, b->tris, (size_t)b->total * sizeof *b->tris + 1);
    memset(b, 0, sizeof *b);
}

static bool range_ok(const ptl_vx_tiling* t, const int32_t range[4]) {
    return range[0] >= 0 && range[1] >= 0 && range[2] <= t->tiles_x && range[3] <= t->tiles_z && range[0] < range[2] &&
           range[1] < range[3];
}

ptl_status ptl_vx_tiles_build(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                              const int32_t range[4], const ptl_job_system* jobs, const ptl_allocator* alloc,
                              ptl_vx_tile** out, uint32_t* count, ptl_error* err) {
    *out = NULL;
    *count = 0;
    if (!range_ok(t, range))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: tile range %d:%d,%d:%d is outside the %d x %d tiles",
                             range[0], range[2], range[1], range[3], t->tiles_x, t->tiles_z);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    bins b;
    memset(&b, 0, sizeof b);
    ptl_status st = bin_triangles(m, world, t, range, jobs, &a, &b);
    if (st < 0) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
    else st = run_tiles(m, world, t, range, range, &b, jobs, &a, out, count, err);
    free_bins(&b, &a);
    return st;
}

/* A span of a field without col_of keeps its column in ceil and pad (voxel.h, ptl_vx_span_col). */
static void set_span_col(ptl_open_span* o, uint32_t c) {
    o->ceil = (uint16_t)(c & 0xffffu), o->pad = (uint16_t)(c >> 16);
}

/* Gaps by (span, dir), for ptl_sort (stable, allocator-backed). */
static int cmp_gap(const void* pa, const void* pb) {
    const ptl_vx_gap *x = pa, *y = pb;
    if (x->span != y->span) return x->span < y->span ? -1 : 1;
    return (x->dir > y->dir) - (x->dir < y->dir);
}

/* Checks that every tile is given exactly once, in its place, with well-formed columns, and fills
   at[tz * tiles_x + tx] with it (at: tiles_x * tiles_z entries); *total and *gaps get the spans and
   gaps of them all. */
static ptl_status place_tiles(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
                              uint32_t count, const ptl_vx_tile** at, uint64_t* total_out, uint64_t* gaps_out,
                              ptl_error* err) {
    const uint32_t W = (uint32_t)world->world_width, D = (uint32_t)world->world_depth;
    const uint32_t ntiles = (uint32_t)t->tiles_x * (uint32_t)t->tiles_z;
    const int32_t T = t->tile_size;
    ptl_status st = PTL_OK;
    uint64_t total = 0, gaps = 0;
    for (uint32_t i = 0; i < count && st >= 0; ++i) {
        const ptl_vx_tile* tl = tiles[i];
        const uint32_t k = (uint32_t)tl->tz * (uint32_t)t->tiles_x + (uint32_t)tl->tx;
        if (tl->tx < 0 || tl->tz < 0 || tl->tx >= t->tiles_x || tl->tz >= t->tiles_z) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) is outside the %d x %d tiles", tl->tx, tl->tz,
                               t->tiles_x, t->tiles_z);
            break;
        }
        if (at[k]) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) is given twice", tl->tx, tl->tz);
            break;
        }
        at[k] = tl;
        const int32_t x0 = tl->tx * T, z0 = tl->tz * T;
        if (tl->x0 != x0 || tl->z0 != z0 || tl->w != (x0 + T <= (int32_t)W ? T : (int32_t)W - x0) ||
            tl->d != (z0 + T <= (int32_t)D ? T : (int32_t)D - z0)) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) is out of place", tl->tx, tl->tz);
            break;
        }
        const uint32_t ncols = (uint32_t)tl->w * (uint32_t)tl->d;
        bool ok = tl->cols.cols == ncols && tl->cols.filled == ncols + 1 && ptl_vx_tile_col(tl, 0) == 0 &&
                  ptl_vx_tile_col(tl, ncols) == tl->span_count;
        for (uint32_t c = 0; c < ncols && ok; ++c) ok = ptl_vx_tile_col(tl, c) <= ptl_vx_tile_col(tl, c + 1);
        if (!ok) st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) is malformed", tl->tx, tl->tz);
        total += tl->span_count;
        gaps += tl->gap_count;
    }
    for (uint32_t k = 0; k < ntiles && st >= 0; ++k)
        if (!at[k])
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%u, %u) is missing (%u of %u tiles given)",
                               k % (uint32_t)t->tiles_x, k / (uint32_t)t->tiles_x, count, ntiles);
    if (st >= 0 && (total >= PTL_VX_NONE || gaps >= PTL_VX_NONE))
        st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: %llu open spans, more than 2^32", (unsigned long long)total);
    *total_out = total, *gaps_out = gaps;
    return st;
}

ptl_status ptl_vx_tiles_assemble(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
                                 uint32_t count, const ptl_allocator* alloc, ptl_open_field* out, ptl_error* err) {
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const uint32_t W = (uint32_t)world->world_width, D = (uint32_t)world->world_depth;
    const size_t cols = (size_t)W * D;
    const uint32_t ntiles = (uint32_t)t->tiles_x * (uint32_t)t->tiles_z;
    const int32_t T = t->tile_size;
    /* every tile exactly once, in its place, with well-formed columns; `at` finds a world
       column's tile when the column index is built in the world's column order */
    const ptl_vx_tile** at = ptl_mem_calloc(&a, ntiles, sizeof *at);
    if (!at) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    uint64_t total = 0, gaps = 0;
    ptl_status st = place_tiles(world, t, tiles, count, at, &total, &gaps, err);
    if (st < 0) {
        ptl_mem_free(&a, at, (size_t)ntiles * sizeof *at);
        return st;
    }

    out->p = *world;
    out->p.ox = out->p.oz = 0, out->p.width = (int32_t)W, out->p.depth = (int32_t)D, out->p.border = 0;
    out->alloc = a;
    /* The column index in the world's column order, each column's spans from its tile. */
    bool ok = ptl_vx_col_index_init(&out->col_index, (uint32_t)cols, 1, &a) >= 0;
    uint32_t placed = 0;
    for (uint32_t gz = 0; gz < D && ok; ++gz)
        for (int32_t tx = 0; tx < t->tiles_x && ok; ++tx) {
            const ptl_vx_tile* tl = at[gz / (uint32_t)T * (uint32_t)t->tiles_x + (uint32_t)tx];
            const uint32_t k0 = (gz - (uint32_t)tl->z0) * (uint32_t)tl->w;
            for (int32_t x = 0; x < tl->w && ok; ++x) {
                ok = ptl_vx_col_index_push(&out->col_index, placed, &a);
                placed += ptl_vx_tile_col(tl, k0 + (uint32_t)x + 1) - ptl_vx_tile_col(tl, k0 + (uint32_t)x);
            }
        }
    ptl_mem_free(&a, at, (size_t)ntiles * sizeof *at);
    if (!ok || !ptl_vx_col_index_push(&out->col_index, placed, &a)) goto oom;
    out->spans = ptl_mem_alloc(&a, (size_t)total * sizeof *out->spans); /* columns in the spans: no col_of */
    if (!out->spans) goto oom;
    out->span_count = out->span_cap = (uint32_t)total;
    if (gaps) {
        out->gaps = ptl_mem_alloc(&a, (size_t)gaps * sizeof *out->gaps);
        if (!out->gaps) goto oom;
        out->gap_count = (uint32_t)gaps;
    }
    uint32_t gk = 0;
    for (uint32_t i = 0; i < count && st >= 0; ++i) {
        const ptl_vx_tile* tl = tiles[i];
        const uint32_t ncols = (uint32_t)tl->w * (uint32_t)tl->d;
        for (uint32_t k = 0; k < ncols && st >= 0; ++k) {
            uint32_t gx = (uint32_t)tl->x0 + k % (uint32_t)tl->w, gz = (uint32_t)tl->z0 + k / (uint32_t)tl->w;
            uint32_t c = gz * W + gx;
            uint32_t base = ptl_vx_col_begin(out, c);
            for (uint32_t j = ptl_vx_tile_col(tl, k), je = ptl_vx_tile_col(tl, k + 1); j < je; ++j) {
                ptl_open_span o = ptl_vx_open_of(&tl->spans[j]);
                for (int d = 0; d < 4; ++d) {
                    if (o.con[d] == PTL_VX_NOCON) continue;
                    int64_t nx = (int64_t)gx + DX[d], nz = (int64_t)gz + DZ[d];
                    uint32_t nc = (uint32_t)(nz * W + nx);
                    if (nx < 0 || nz < 0 || nx >= W || nz >= D ||
                        o.con[d] >= ptl_vx_col_end(out, nc) - ptl_vx_col_begin(out, nc)) {
                        st = ptl_error_set(err, PTL_ERR_BAD_INPUT,
                                           "bake: tile (%d, %d) links column (%u, %u) to a span its neighbour lacks",
                                           tl->tx, tl->tz, gx, gz);
                        break;
                    }
                }
                set_span_col(&o, c);
                out->spans[base + (j - ptl_vx_tile_col(tl, k))] = o;
            }
        }
        for (uint32_t g = 0; g < tl->gap_count && st >= 0; ++g) {
            const ptl_vx_gap* gp = &tl->gaps[g];
            if (gp->span >= tl->span_count || gp->dir > 3) {
                st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) has a malformed gap", tl->tx, tl->tz);
                break;
            }
            /* the span's column: the last whose start is <= span (binary search) */
            uint32_t lo = 0, hi = ncols;
            while (hi - lo > 1) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (ptl_vx_tile_col(tl, mid) <= gp->span) lo = mid;
                else hi = mid;
            }
            uint32_t gx = (uint32_t)tl->x0 + lo % (uint32_t)tl->w, gz = (uint32_t)tl->z0 + lo / (uint32_t)tl->w;
            int kk = gp->cols + 1;
            int64_t ox = (int64_t)gx + kk * DX[gp->dir], oz = (int64_t)gz + kk * DZ[gp->dir];
            uint32_t oc = (uint32_t)(oz * W + ox);
            if (ox < 0 || oz < 0 || ox >= W || oz >= D ||
                gp->other >= ptl_vx_col_end(out, oc) - ptl_vx_col_begin(out, oc)) {
                st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) has a gap to a missing span", tl->tx, tl->tz);
                break;
            }
            ptl_vx_gap o = *gp;
            o.span = ptl_vx_col_begin(out, gz * W + gx) + (gp->span - ptl_vx_tile_col(tl, lo));
            o.other = ptl_vx_col_begin(out, oc) + gp->other;
            out->gaps[gk++] = o;
        }
    }
    if (st < 0) {
        ptl_open_field_free(out);
        return st;
    }
    if (!ptl_sort(out->gaps, out->gap_count, sizeof *out->gaps, cmp_gap, &a)) goto oom;
    return ptl_error_ok(err);
oom:
    ptl_open_field_free(out);
    return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory assembling tiles");
}

/* The world's open field from the tiles (for a debug capture, which draws it), a row of tiles at a
   time: each row's tiles run as jobs, then their columns are appended to the world's field (a row
   of tiles covers whole rows of columns, so its spans follow the previous rows' in the world's
   order) and the tiles are freed. Links and gaps into rows not placed yet stay as indices inside
   their columns until the end. Peak memory: the world's field plus one row of tiles. */
/* The world's open field being assembled from tile rows, in row order (ptl_vx_tiles_bake). */
typedef struct assembly {
    ptl_open_field* out; /* its column index pushed as rows arrive */
    const ptl_allocator* a;
    uint32_t W;          /* world columns along x */
    PTL_ARRAY(ptl_open_span) spans;
    PTL_ARRAY(uint32_t) col_of;
    PTL_ARRAY(ptl_vx_gap) gaps; /* other: index inside its column until the end */
    PTL_ARRAY(uint32_t) gap_col; /* per gap: its span's column (the spans may not keep it) */
    bool keep_ceil;      /* col_of kept and the spans' ceilings with it; else columns in the spans */
    uint32_t solid_spans;
    ptl_status st;
    ptl_error err;
} assembly;

/* Grows an array of the field to exactly `need` entries (< 2^32, checked by the caller): each tile
   row adds a known number of spans, so the field stays at its size instead of up to half as large
   again (the growth of PTL_RESERVE), which is most of the voxel stages' peak on large worlds. */
static bool grow_exact(const ptl_allocator* a, void** p, uint32_t* cap, uint64_t need, size_t elem) {
    if (need <= *cap) return true;
    void* q = ptl_mem_realloc(a, *p, (size_t)*cap * elem, (size_t)need * elem);
    if (!q) return false;
    *p = q, *cap = (uint32_t)need;
    return true;
}

/* Appends one tile row (`count` tiles in x order) to the field: its columns' spans in world order
   (row by row of columns), then its gaps with their spans placed. */
static ptl_status assemble_row(assembly* as, const ptl_vx_tile* tiles, uint32_t count) {
    const ptl_allocator* a = as->a;
    const uint32_t W = as->W;
    const uint64_t total = as->spans.count;
    const int32_t z0 = tiles[0].z0, d = tiles[0].d;
    uint64_t row_spans = 0;
    for (uint32_t i = 0; i < count; ++i) row_spans += tiles[i].span_count, as->solid_spans += tiles[i].solid_spans;
    if (total + row_spans >= PTL_VX_NONE)
        return ptl_error_set(&as->err, PTL_ERR_BAD_INPUT, "bake: more than 2^32 open spans (%llu)",
                             (unsigned long long)(total + row_spans));
    if (!grow_exact(a, (void**)&as->spans.data, &as->spans.cap, total + row_spans, sizeof *as->spans.data) ||
        (as->keep_ceil &&
         !grow_exact(a, (void**)&as->col_of.data, &as->col_of.cap, total + row_spans, sizeof *as->col_of.data)))
        return ptl_error_set(&as->err, PTL_ERR_NO_MEMORY, "bake: out of memory (%llu open spans)",
                             (unsigned long long)(total + row_spans));
    for (int32_t z = 0; z < d; ++z)
        for (uint32_t i = 0; i < count; ++i) {
            const ptl_vx_tile* tl = &tiles[i];
            for (int32_t x = 0; x < tl->w; ++x) {
                uint32_t k = (uint32_t)z * (uint32_t)tl->w + (uint32_t)x;
                size_t c = (size_t)(z0 + z) * W + (size_t)(tl->x0 + x);
                if (!ptl_vx_col_index_push(&as->out->col_index, as->spans.count, a))
                    return ptl_error_set(&as->err, PTL_ERR_NO_MEMORY, "bake: out of memory (column index)");
                for (uint32_t j = ptl_vx_tile_col(tl, k), je = ptl_vx_tile_col(tl, k + 1); j < je; ++j) {
                    ptl_open_span o = ptl_vx_open_of(&tl->spans[j]);
                    if (as->keep_ceil) as->col_of.data[as->col_of.count++] = (uint32_t)c;
                    else set_span_col(&o, (uint32_t)c);
                    as->spans.data[as->spans.count++] = o;
                }
            }
        }
    /* Gaps: the span is placed now (its column's start plus its place in the column). */
    for (uint32_t i = 0; i < count; ++i) {
        const ptl_vx_tile* tl = &tiles[i];
        const uint32_t ncols = (uint32_t)tl->w * (uint32_t)tl->d;
        for (uint32_t g = 0; g < tl->gap_count; ++g) {
            ptl_vx_gap o = tl->gaps[g];
            uint32_t lo = 0, hi = ncols;
            while (hi - lo > 1) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (ptl_vx_tile_col(tl, mid) <= o.span) lo = mid;
                else hi = mid;
            }
            size_t c = (size_t)(tl->z0 + (int32_t)(lo / (uint32_t)tl->w)) * W + (size_t)(tl->x0 + (int32_t)(lo % (uint32_t)tl->w));
            o.span = ptl_vx_col_begin(as->out, (uint32_t)c) + (o.span - ptl_vx_tile_col(tl, lo));
            if (!PTL_PUSH(a, as->gaps, o) || !PTL_PUSH(a, as->gap_col, (uint32_t)c))
                return ptl_error_set(&as->err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        }
    }
    return PTL_OK;
}

/* Tile rows per band: a band's tiles run as one batch of jobs, together with the assembly of the
   band before it, so the assembly hides behind the tiles and threads wait for each other once per
   band. Memory: two bands of tiles at a time. */
#define PTL_VX_BAND_ROWS 2

/* One batch: job 0 assembles the previous band (if any), jobs 1.. run this band's tiles. */
typedef struct band_job {
    tile_job tj;
    assembly* as;
    const ptl_vx_tile* prev; /* the previous band's tiles, rows of `rw` */
    uint32_t prev_count, rw;
} band_job;

static void run_band(void* data, uint32_t index) {
    band_job* j = data;
    if (index > 0) {
        run_tile(&j->tj, index - 1);
        return;
    }
    for (uint32_t r = 0; r < j->prev_count / j->rw && j->as->st >= 0; ++r)
        j->as->st = assemble_row(j->as, j->prev + (size_t)r * j->rw, j->rw);
}

static void free_tiles(ptl_vx_tile* tiles, uint32_t n, const ptl_allocator* a) {
    if (!tiles) return;
    for (uint32_t i = 0; i < n; ++i) ptl_vx_tile_free(&tiles[i], a);
    ptl_mem_free(a, tiles, (size_t)n * sizeof *tiles);
}

ptl_status ptl_vx_tiles_bake(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                             const ptl_job_system* jobs, const ptl_allocator* alloc, bool keep_ceil,
                             ptl_open_field* out, uint32_t* solid_spans, ptl_error* err) {
    memset(out, 0, sizeof *out);
    *solid_spans = 0;
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const uint32_t W = (uint32_t)world->world_width, D = (uint32_t)world->world_depth;
    const size_t cols = (size_t)W * D;
    out->p = *world;
    out->p.ox = out->p.oz = 0, out->p.width = (int32_t)W, out->p.depth = (int32_t)D, out->p.border = 0;
    out->alloc = a;
    /* The compact index (voxel.h), pushed in the world's column order as the rows arrive: no
       array of a uint32 per column is ever allocated. */
    if (ptl_vx_col_index_init(&out->col_index, (uint32_t)cols, 1, &a) < 0)
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory (%zu columns)", cols);
    assembly as;
    memset(&as, 0, sizeof as);
    as.out = out, as.a = &a, as.W = W, as.keep_ceil = keep_ceil;
    ptl_status st = PTL_OK;
    const int32_t all[4] = {0, 0, t->tiles_x, t->tiles_z};
    bins b; /* the triangles binned once for every tile */
    memset(&b, 0, sizeof b);
    if (bin_triangles(m, world, t, all, jobs, &a, &b) < 0)
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
    const uint32_t rw = (uint32_t)t->tiles_x;
    ptl_vx_tile* prev = NULL;
    uint32_t prev_n = 0;
    /* With a job system, band k runs beside the assembly of band k - 1 and the last pass only
       assembles; without one (nothing to overlap), each row is assembled as soon as it is done, so
       only one row of tiles is ever alive. */
    const bool overlap = jobs && jobs->run;
    const int32_t band = overlap ? PTL_VX_BAND_ROWS : 1;
    for (int32_t tz = 0; st >= 0 && (tz < t->tiles_z || prev); tz += band) {
        const int32_t tz1 = tz + band < t->tiles_z ? tz + band : t->tiles_z;
        const uint32_t n = tz < t->tiles_z ? (uint32_t)(tz1 - tz) * rw : 0;
        const int32_t range[4] = {0, tz, t->tiles_x, tz1};
        ptl_vx_tile* tiles = n ? ptl_mem_calloc(&a, n, sizeof *tiles) : NULL;
        ptl_error* errs = n ? ptl_mem_calloc(&a, n, sizeof *errs) : NULL;
        if (n && (!tiles || !errs)) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        } else {
            band_job j = {{m, world, t, range, all, &b, &a, tiles, errs}, &as, prev, prev_n, rw};
            const uint32_t count = n + 1;
            if (jobs && jobs->run) jobs->run(jobs->user, run_band, &j, count);
            else
                for (uint32_t i = 0; i < count; ++i) run_band(&j, i);
            /* the first failure in the bake's order: the earlier band's assembly, then tile order */
            if (as.st < 0) {
                st = as.st;
                if (err) *err = as.err;
            }
            for (uint32_t i = 0; i < n && st >= 0; ++i)
                if (tiles[i].status < 0) {
                    st = tiles[i].status;
                    if (err) *err = errs[i];
                }
        }
        ptl_mem_free(&a, errs, (size_t)n * sizeof *errs);
        free_tiles(prev, prev_n, &a);
        prev = tiles, prev_n = n;
        if (!overlap && st >= 0 && n) { /* this row now, in turn */
            band_job j = {{m, world, t, range, all, &b, &a, tiles, NULL}, &as, prev, prev_n, rw};
            run_band(&j, 0);
            if (as.st < 0) {
                st = as.st;
                if (err) *err = as.err;
            }
            free_tiles(prev, prev_n, &a);
            prev = NULL, prev_n = 0;
        }
    }
    free_tiles(prev, prev_n, &a);
    *solid_spans = as.solid_spans;
    PTL_ARRAY(ptl_open_span) spans = {as.spans.data, as.spans.count, as.spans.cap};
    PTL_ARRAY(uint32_t) col_of = {as.col_of.data, as.col_of.count, as.col_of.cap};
    PTL_ARRAY(ptl_vx_gap) gaps = {as.gaps.data, as.gaps.count, as.gaps.cap};
    const uint64_t total = spans.count;
    free_bins(&b, &a);
    if (st >= 0) {
        if (!ptl_vx_col_index_push(&out->col_index, (uint32_t)total, &a))
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory (column index)");
    }
    if (st >= 0) {
        /* Gaps' far ends: from indices inside their columns to the world's. */
        for (uint32_t g = 0; g < gaps.count; ++g) {
            ptl_vx_gap* gp = &gaps.data[g];
            uint32_t c = as.gap_col.data[g], x = c % W, z = c / W, k = gp->cols + 1u;
            uint32_t oc = (z + k * (uint32_t)DZ[gp->dir]) * W + x + k * (uint32_t)DX[gp->dir];
            gp->other += ptl_vx_col_begin(out, oc);
        }
        if (!ptl_sort(gaps.data, gaps.count, sizeof *gaps.data, cmp_gap, &a))
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    }
    PTL_ARRAY_FREE(&a, as.gap_col);
    if (st < 0) {
        PTL_ARRAY_FREE(&a, spans);
        PTL_ARRAY_FREE(&a, col_of);
        PTL_ARRAY_FREE(&a, gaps);
        ptl_open_field_free(out);
        return st;
    }
    /* Hand the arrays over (both grew through the same sizes, so they have the same capacity, which
       becomes span_cap), shrunk to their size when the allocator can. */
    uint32_t cap = spans.cap;
    if (!keep_ceil && spans.count && spans.count < cap) { /* no col_of to keep in step */
        void* ns = ptl_mem_realloc(&a, spans.data, (size_t)cap * sizeof *spans.data, (size_t)spans.count * sizeof *spans.data);
        if (ns) spans.data = ns, cap = spans.count;
    } else if (spans.count && spans.count < cap) {
        void* ns = ptl_mem_realloc(&a, spans.data, (size_t)cap * sizeof *spans.data, (size_t)spans.count * sizeof *spans.data);
        void* nc = ns ? ptl_mem_realloc(&a, col_of.data, (size_t)cap * sizeof *col_of.data,
                                        (size_t)spans.count * sizeof *col_of.data)
                      : NULL;
        if (ns && nc) spans.data = ns, col_of.data = nc, cap = spans.count;
        else if (ns) { /* spans shrank, col_of did not: grow spans back to the common capacity */
            spans.data = ptl_mem_realloc(&a, ns, (size_t)spans.count * sizeof *spans.data, (size_t)cap * sizeof *spans.data);
            if (!spans.data) ptl_mem_free(&a, ns, (size_t)spans.count * sizeof *spans.data);
        }
        if (!spans.data) {
            PTL_ARRAY_FREE(&a, col_of);
            PTL_ARRAY_FREE(&a, gaps);
            ptl_open_field_free(out);
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        }
    }
    out->spans = spans.data, out->col_of = col_of.data;
    out->span_count = spans.count, out->span_cap = cap;
    if (gaps.count) {
        out->gaps = ptl_mem_realloc(&a, gaps.data, (size_t)gaps.cap * sizeof *gaps.data, (size_t)gaps.count * sizeof *gaps.data);
        if (!out->gaps) {
            PTL_ARRAY_FREE(&a, gaps);
            ptl_open_field_free(out);
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        }
        out->gap_count = gaps.count;
    } else {
        PTL_ARRAY_FREE(&a, gaps);
    }
    return ptl_error_ok(err);
}

/* ---- Streaming the tiles into the layers (layer_map.h) ------------------------------------------ */

double ptl_bake3d_now_ms(void);

/* Gives the rows of one row of tiles (`rw` of them, x order) to the stream through `band`, handing
   each full band (PTL_VX_LAYER_BLOCK rows, or the world's last rows) over. */
static ptl_status stream_row(const ptl_vx_params* world, const ptl_vx_tile* const* row, uint32_t rw,
                             ptl_vx_band* band, ptl_layer_stream* s, double* ms, ptl_error* err) {
    for (int32_t z = row[0]->z0; z < row[0]->z0 + row[0]->d; ++z) {
        ptl_status st = ptl_vx_band_add_tiles(band, row, rw, z);
        if (st < 0)
            return ptl_error_set(err, st, st == PTL_ERR_NO_MEMORY ? "bake: out of memory (a band of the layers)"
                                                                   : "bake: more than 2^32 open spans in a band");
        if (band->f.p.depth == (int32_t)PTL_VX_LAYER_BLOCK || z + 1 == world->world_depth) {
            const double t = ptl_bake3d_now_ms();
            st = ptl_lstream_band(s, &band->f, err);
            *ms += ptl_bake3d_now_ms() - t;
            if (st < 0) return st;
            ptl_vx_band_reset(band, &band->f.p, &band->f.alloc);
        }
    }
    return PTL_OK;
}

static ptl_vx_params world_grid(const ptl_vx_params* world) {
    ptl_vx_params p = *world;
    p.ox = p.oz = 0, p.width = world->world_width, p.depth = world->world_depth, p.border = 0;
    return p;
}

/* ---- The tile path: each tile floods its own blocks in its job (layer_map.h) ------------------- */

/* The tile's own columns of the window's field as a field of their own (plain index, col_of; gaps'
   far ends as indices inside their columns). */
static ptl_status own_field(const ptl_open_field* of, const ptl_vx_tile* t, const ptl_allocator* a, ptl_open_field* out) {
    const ptl_vx_params* p = &of->p;
    const int32_t lx0 = t->x0 - p->ox, lz0 = t->z0 - p->oz;
    const uint32_t w = (uint32_t)t->w, d = (uint32_t)t->d, cols = w * d;
    memset(out, 0, sizeof *out);
    out->p = *p;
    out->p.width = (int32_t)w, out->p.depth = (int32_t)d, out->p.ox = t->x0, out->p.oz = t->z0, out->p.border = 0;
    out->alloc = *a;
    out->col_index.off.u32 = ptl_mem_alloc(a, ((size_t)cols + 1) * sizeof(uint32_t));
    if (!out->col_index.off.u32) return PTL_ERR_NO_MEMORY;
    out->col_index.width = 4, out->col_index.cols = cols, out->col_index.filled = cols + 1;
    uint32_t n = 0;
    for (uint32_t z = 0; z < d; ++z)
        for (uint32_t x = 0; x < w; ++x) {
            const uint32_t c = (uint32_t)(lz0 + (int32_t)z) * (uint32_t)p->width + (uint32_t)(lx0 + (int32_t)x);
            out->col_index.off.u32[z * w + x] = n;
            n += ptl_vx_col_end(of, c) - ptl_vx_col_begin(of, c);
        }
    out->col_index.off.u32[cols] = n;
    out->spans = ptl_mem_alloc(a, (size_t)n * sizeof *out->spans + 1);
    out->col_of = ptl_mem_alloc(a, (size_t)n * sizeof *out->col_of + 1);
    out->span_count = out->span_cap = n;
    if (!out->spans || !out->col_of) return PTL_ERR_NO_MEMORY;
    uint32_t i = 0;
    for (uint32_t z = 0; z < d; ++z)
        for (uint32_t x = 0; x < w; ++x) {
            const uint32_t c = (uint32_t)(lz0 + (int32_t)z) * (uint32_t)p->width + (uint32_t)(lx0 + (int32_t)x);
            for (uint32_t sp = ptl_vx_col_begin(of, c), e = ptl_vx_col_end(of, c); sp < e; ++sp) {
                out->spans[i] = of->spans[sp];
                out->spans[i].layer = PTL_VX_NONE;
                out->col_of[i++] = z * w + x;
            }
        }
    for (int pass = 0; pass < 2; ++pass) {
        uint32_t ng = 0;
        for (uint32_t g = 0; g < of->gap_count; ++g) {
            const ptl_vx_gap* gp = &of->gaps[g];
            const uint32_t c = of->col_of[gp->span];
            const int32_t x = (int32_t)(c % (uint32_t)p->width) - lx0, z = (int32_t)(c / (uint32_t)p->width) - lz0;
            if (x < 0 || z < 0 || x >= t->w || z >= t->d) continue;
            if (pass == 1) {
                const int k = gp->cols + 1;
                const uint32_t oc = (uint32_t)(lz0 + z + k * DZ[gp->dir]) * (uint32_t)p->width + (uint32_t)(lx0 + x + k * DX[gp->dir]);
                ptl_vx_gap o = *gp;
                o.span = out->col_index.off.u32[(uint32_t)z * w + (uint32_t)x] + (gp->span - ptl_vx_col_begin(of, c));
                o.other = gp->other - ptl_vx_col_begin(of, oc);
                out->gaps[ng] = o;
            }
            ++ng;
        }
        if (pass == 0) {
            if (!ng) break;
            out->gaps = ptl_mem_alloc(a, (size_t)ng * sizeof *out->gaps);
            if (!out->gaps) return PTL_ERR_NO_MEMORY;
        }
        out->gap_count = ng;
    }
    return PTL_OK;
}

static void free_own_field(ptl_open_field* f, const ptl_allocator* a) {
    ptl_mem_free(a, f->col_index.off.u32, ((size_t)f->col_index.cols + 1) * sizeof(uint32_t));
    ptl_mem_free(a, f->spans, (size_t)f->span_cap * sizeof *f->spans + 1);
    ptl_mem_free(a, f->col_of, (size_t)f->span_cap * sizeof *f->col_of + 1);
    ptl_mem_free(a, f->gaps, (size_t)f->gap_count * sizeof *f->gaps);
    memset(f, 0, sizeof *f);
}

typedef struct layers_job {
    tile_job tj;
    const ptl_layer_stream* s;
    ptl_tile_layers** out;
} layers_job;

/* Voxelizes and filters tile `index` of the range like run_tile, then floods its blocks into
   out[index] instead of keeping its columns. */
static void run_tile_layers(void* data, uint32_t index) {
    layers_job* j = data;
    const int32_t rw = j->tj.range[2] - j->tj.range[0];
    ptl_vx_tile* t = &j->tj.out[index];
    ptl_error* err = &j->tj.errs[index];
    memset(t, 0, sizeof *t);
    j->out[index] = NULL;
    t->tx = j->tj.range[0] + (int32_t)(index % (uint32_t)rw);
    t->tz = j->tj.range[1] + (int32_t)(index / (uint32_t)rw);
    const int32_t T = j->tj.t->tile_size;
    t->x0 = t->tx * T, t->z0 = t->tz * T;
    t->w = (t->x0 + T <= j->tj.world->world_width ? T : j->tj.world->world_width - t->x0);
    t->d = (t->z0 + T <= j->tj.world->world_depth ? T : j->tj.world->world_depth - t->z0);
    ptl_vx_params p;
    tile_window(j->tj.world, j->tj.t, t->tx, t->tz, &p);
    ptl_heightfield hf;
    ptl_open_field of, own;
    memset(&hf, 0, sizeof hf);
    memset(&of, 0, sizeof of);
    memset(&own, 0, sizeof own);
    const uint32_t bi = (uint32_t)(t->tz - j->tj.brange[1]) * (uint32_t)(j->tj.brange[2] - j->tj.brange[0]) +
                        (uint32_t)(t->tx - j->tj.brange[0]);
    const uint32_t* tris = j->tj.b->tris + j->tj.b->start[bi];
    const uint32_t count = j->tj.b->start[bi + 1] - j->tj.b->start[bi];
    ptl_status st = ptl_vx_rasterize(j->tj.m, tris, count, &p, j->tj.a, &hf, err);
    if (st >= 0) st = ptl_vx_build_open(&hf, j->tj.a, &of, err);
    if (st >= 0) { /* the heightfield spans of its own columns (stats) */
        const int32_t lx0 = t->x0 - p.ox, lz0 = t->z0 - p.oz;
        for (int32_t z = 0; z < t->d; ++z)
            for (int32_t x = 0; x < t->w; ++x) {
                const uint32_t c = (uint32_t)(lz0 + z) * (uint32_t)p.width + (uint32_t)(lx0 + x);
                t->solid_spans += hf.col_start[c + 1] - hf.col_start[c];
            }
    }
    ptl_heightfield_free(&hf);
    if (st >= 0 && own_field(&of, t, j->tj.a, &own) < 0)
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory in tile (%d, %d)", t->tx, t->tz);
    ptl_open_field_free(&of);
    if (st >= 0) {
        st = ptl_lstream_tile(j->s, &own, t->x0, t->z0, &j->out[index]);
        if (st < 0)
            st = ptl_error_set(err, st, st == PTL_ERR_NO_MEMORY ? "bake: out of memory in the layers of tile (%d, %d)"
                                                                : "bake: more than 2^32 block-layers in tile (%d, %d)",
                               t->tx, t->tz);
    }
    free_own_field(&own, j->tj.a);
    t->status = st < 0 ? st : PTL_OK;
}

/* ptl_vx_tiles_stream when the tiles hold whole blocks: the tiles of a batch of rows run as jobs,
   each flooding its blocks; their results are added to the stream in row-major order. One tile's
   fields at a time per thread, and each tile's few block-layers and edges until it is added. */
static ptl_status stream_tile_layers(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                                     const ptl_job_system* jobs, const ptl_allocator* a, const int32_t* rows,
                                     ptl_layer_stream* s, uint32_t* solid_spans, double* ms_layers,
                                     const ptl_bake_progress* progress, ptl_error* err) {
    ptl_status st = ptl_lstream_use_tiles(s, (uint32_t)t->tile_size, (uint32_t)t->tiles_x, (uint32_t)t->tiles_z, err);
    const uint32_t rw = (uint32_t)t->tiles_x;
    const int32_t batch = jobs && jobs->run ? PTL_VX_BAND_ROWS : 1;
    bins b;
    memset(&b, 0, sizeof b);
    /* Without runs (a small mesh, see ptl_vx_tiles_stream), every tile's triangles are binned once. */
    const int32_t all[4] = {0, 0, t->tiles_x, t->tiles_z};
    if (st >= 0 && !rows && bin_triangles(m, world, t, all, jobs, a, &b) < 0)
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
    for (int32_t tz = 0; st >= 0 && tz < t->tiles_z; tz += batch) {
        ptl_progress_at(progress, (float)tz / (float)t->tiles_z); /* rows of tiles done */
        const int32_t tz1 = tz + batch < t->tiles_z ? tz + batch : t->tiles_z;
        const int32_t range[4] = {0, tz, t->tiles_x, tz1};
        const uint32_t n = (uint32_t)(tz1 - tz) * rw;
        ptl_vx_tile* tiles = ptl_mem_calloc(a, n, sizeof *tiles);
        ptl_error* errs = ptl_mem_calloc(a, n, sizeof *errs);
        ptl_tile_layers** out = ptl_mem_calloc(a, n, sizeof *out);
        if (rows) free_bins(&b, a);
        if (!tiles || !errs || !out) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        } else if (rows && bin_triangles_rows(m, world, t, range, rows, jobs, a, &b) < 0) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
        } else {
            layers_job lj = {{m, world, t, range, rows ? range : all, &b, a, tiles, errs}, s, out};
            if (jobs && jobs->run) jobs->run(jobs->user, run_tile_layers, &lj, n);
            else
                for (uint32_t i = 0; i < n; ++i) run_tile_layers(&lj, i);
            for (uint32_t i = 0; i < n && st >= 0; ++i) { /* in row-major order: the first failure is the bake's */
                if (tiles[i].status < 0) {
                    st = tiles[i].status;
                    if (err) *err = errs[i];
                    break;
                }
                *solid_spans += tiles[i].solid_spans;
                const double t0 = ptl_bake3d_now_ms();
                st = ptl_lstream_add_tile(s, out[i], err);
                *ms_layers += ptl_bake3d_now_ms() - t0;
            }
        }
        for (uint32_t i = 0; out && i < n; ++i) ptl_lstream_tile_free(out[i], s);
        ptl_mem_free(a, out, (size_t)n * sizeof *out);
        ptl_mem_free(a, errs, (size_t)n * sizeof *errs);
        ptl_mem_free(a, tiles, (size_t)n * sizeof *tiles);
    }
    free_bins(&b, a);
    return st;
}

/* One batch of ptl_vx_tiles_stream: job 0 streams the previous batch's rows of tiles (freeing each
   row's tiles once given), jobs 1.. run this batch's tiles. */
typedef struct stream_job {
    tile_job tj;
    ptl_vx_tile* prev; /* rows of rw tiles */
    uint32_t prev_count, rw;
    const ptl_vx_tile** row; /* rw pointers (scratch) */
    const ptl_vx_params* wp;
    ptl_vx_band* band;
    ptl_layer_stream* s;
    double ms;
    ptl_status st;
    ptl_error err;
} stream_job;

static void run_stream_batch(void* data, uint32_t index) {
    stream_job* j = data;
    if (index > 0) {
        run_tile(&j->tj, index - 1);
        return;
    }
    for (uint32_t r = 0; r < j->prev_count / j->rw; ++r) {
        for (uint32_t x = 0; x < j->rw; ++x) j->row[x] = &j->prev[(size_t)r * j->rw + x];
        if (j->st >= 0) j->st = stream_row(j->wp, j->row, j->rw, j->band, j->s, &j->ms, &j->err);
        for (uint32_t x = 0; x < j->rw; ++x) ptl_vx_tile_free(&j->prev[(size_t)r * j->rw + x], j->tj.a);
    }
}

ptl_status ptl_vx_tiles_stream(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                               const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_stream* s,
                               uint32_t* solid_spans, double* ms_layers, const ptl_bake_progress* progress,
                               ptl_error* err) {
    *solid_spans = 0;
    *ms_layers = 0;
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const ptl_vx_params wp = world_grid(world);
    ptl_vx_band band;
    memset(&band, 0, sizeof band);
    ptl_vx_band_reset(&band, &wp, &a);
    const uint32_t rw = (uint32_t)t->tiles_x;
    const ptl_vx_tile** row = ptl_mem_alloc(&a, (size_t)rw * sizeof *row);
    bins b; /* the triangles of a batch of tile rows */
    memset(&b, 0, sizeof b);
    /* Runs of triangles and the tile rows they meet, so that a batch of rows is binned without
       looking at the rest; a mesh of a few runs is binned once for every tile instead (its bins are
       small, and each batch would look at all of it). */
    const uint32_t nruns = (m->tri_count + BIN_CHUNK_TRIS - 1) / BIN_CHUNK_TRIS;
    const bool by_runs = nruns > BIN_ONCE_RUNS;
    int32_t* rows = by_runs ? ptl_mem_alloc(&a, ((size_t)nruns + 1) * 2 * sizeof *rows) : NULL;
    ptl_status st = row && (rows || !by_runs) ? PTL_OK : ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    if (st >= 0 && by_runs) {
        rows_job rj = {m, world, t, rows};
        if (jobs && jobs->run && nruns > 1) jobs->run(jobs->user, rows_chunk, &rj, nruns);
        else
            for (uint32_t c = 0; c < nruns; ++c) rows_chunk(&rj, c);
    }
    if (st >= 0 && t->tile_size % (int32_t)PTL_VX_LAYER_BLOCK == 0) {
        st = stream_tile_layers(m, world, t, jobs, &a, rows, s, solid_spans, ms_layers, progress, err);
        ptl_mem_free(&a, rows, ((size_t)nruns + 1) * 2 * sizeof *rows);
        ptl_mem_free(&a, row, (size_t)rw * sizeof *row);
        ptl_vx_band_free(&band);
        return st;
    }
    /* Without a job system, a row of tiles at a time, streamed as soon as it is done, so that one
       row of tiles is alive. With one, PTL_VX_BAND_ROWS rows of tiles run as one batch of jobs, and
       job 0 of each batch streams the batch before (the stream then runs its blocks in turn: a job
       may not start jobs), so the layers hide behind the tiles as the assembly of the world's field
       did; the last batch is streamed with the jobs. */
    const bool overlap = jobs && jobs->run;
    const int32_t batch = overlap ? PTL_VX_BAND_ROWS : 1;
    ptl_vx_tile* prev = NULL;
    uint32_t prev_n = 0;
    for (int32_t tz = 0; st >= 0 && (tz < t->tiles_z || prev); tz += batch) {
        ptl_progress_at(progress, (float)tz / (float)t->tiles_z); /* rows of tiles done */
        const int32_t tz1 = tz + batch < t->tiles_z ? tz + batch : t->tiles_z;
        const int32_t range[4] = {0, tz, t->tiles_x, tz1};
        const uint32_t n = tz < t->tiles_z ? (uint32_t)(tz1 - tz) * rw : 0;
        ptl_vx_tile* tiles = n ? ptl_mem_calloc(&a, n, sizeof *tiles) : NULL;
        ptl_error* errs = n ? ptl_mem_calloc(&a, n, sizeof *errs) : NULL;
        free_bins(&b, &a);
        if (n && (!tiles || !errs)) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        } else if (n && bin_triangles_rows(m, world, t, range, rows, jobs, &a, &b) < 0) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
        } else {
            stream_job sj = {{m, world, t, range, range, &b, &a, tiles, errs}, prev, prev_n, rw, row, &wp, &band, s,
                             0, PTL_OK, {0}};
            if (overlap && n) {
                ptl_lstream_set_jobs(s, NULL);
                jobs->run(jobs->user, run_stream_batch, &sj, n + 1);
                ptl_lstream_set_jobs(s, jobs);
            } else if (n) {
                for (uint32_t i = 0; i < n; ++i) run_tile(&sj.tj, i);
            } else {
                run_stream_batch(&sj, 0); /* the last batch, its blocks as jobs */
            }
            *ms_layers += sj.ms;
            /* the first failure in the bake's order: the earlier rows' stream, then the tiles' */
            if (sj.st < 0) {
                st = sj.st;
                if (err) *err = sj.err;
            }
            for (uint32_t i = 0; i < n && st >= 0; ++i)
                if (tiles[i].status < 0) {
                    st = tiles[i].status;
                    if (err) *err = errs[i];
                }
            for (uint32_t i = 0; i < n && st >= 0; ++i) *solid_spans += tiles[i].solid_spans;
        }
        ptl_mem_free(&a, errs, (size_t)n * sizeof *errs);
        free_tiles(prev, prev_n, &a);
        prev = tiles, prev_n = n;
        if (!overlap && st >= 0 && n) { /* this row now */
            stream_job sj = {{m, world, t, range, range, &b, &a, tiles, NULL}, prev, prev_n, rw, row, &wp, &band, s,
                             0, PTL_OK, {0}};
            run_stream_batch(&sj, 0);
            *ms_layers += sj.ms;
            if (sj.st < 0) {
                st = sj.st;
                if (err) *err = sj.err;
            }
            free_tiles(prev, prev_n, &a);
            prev = NULL, prev_n = 0;
        }
    }
    free_tiles(prev, prev_n, &a);
    free_bins(&b, &a);
    ptl_mem_free(&a, rows, ((size_t)nruns + 1) * 2 * sizeof *rows);
    ptl_mem_free(&a, row, (size_t)rw * sizeof *row);
    ptl_vx_band_free(&band);
    return st;
}

/* Spans in world column (x, z) of the placed tiles `at`. */
static uint32_t column_spans(const ptl_vx_tiling* t, const ptl_vx_tile* const* at, int64_t x, int64_t z) {
    const uint32_t T = (uint32_t)t->tile_size;
    const ptl_vx_tile* tl = at[(uint32_t)z / T * (uint32_t)t->tiles_x + (uint32_t)x / T];
    const uint32_t k = ((uint32_t)z - (uint32_t)tl->z0) * (uint32_t)tl->w + ((uint32_t)x - (uint32_t)tl->x0);
    return ptl_vx_tile_col(tl, k + 1) - ptl_vx_tile_col(tl, k);
}

/* Tiles read from parts (which a checksum does not make right): every link must reach a span of
   its neighbour column inside the world, every gap a span (sorted by span, as tiles keep them), as
   ptl_vx_tiles_assemble checks. The stream reads them without further checks. */
static ptl_status check_links(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* at,
                              ptl_error* err) {
    const int64_t W = world->world_width, D = world->world_depth;
    const uint32_t ntiles = (uint32_t)t->tiles_x * (uint32_t)t->tiles_z;
    for (uint32_t i = 0; i < ntiles; ++i) {
        const ptl_vx_tile* tl = at[i];
        const uint32_t ncols = (uint32_t)tl->w * (uint32_t)tl->d;
        for (uint32_t k = 0; k < ncols; ++k) {
            const int64_t gx = tl->x0 + (int64_t)(k % (uint32_t)tl->w), gz = tl->z0 + (int64_t)(k / (uint32_t)tl->w);
            for (uint32_t j = ptl_vx_tile_col(tl, k), je = ptl_vx_tile_col(tl, k + 1); j < je; ++j)
                for (int d = 0; d < 4; ++d) {
                    const uint8_t c = tl->spans[j].con[d];
                    if (c == PTL_VX_NOCON) continue;
                    const int64_t nx = gx + DX[d], nz = gz + DZ[d];
                    if (nx < 0 || nz < 0 || nx >= W || nz >= D || c >= column_spans(t, at, nx, nz))
                        return ptl_error_set(err, PTL_ERR_BAD_INPUT,
                                             "bake: tile (%d, %d) links column (%lld, %lld) to a span its neighbour lacks",
                                             tl->tx, tl->tz, (long long)gx, (long long)gz);
                }
        }
        for (uint32_t g = 0; g < tl->gap_count; ++g) {
            const ptl_vx_gap* gp = &tl->gaps[g];
            if (gp->span >= tl->span_count || gp->dir > 3 || (g > 0 && gp->span < tl->gaps[g - 1].span))
                return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) has a malformed gap", tl->tx, tl->tz);
            uint32_t lo = 0, hi = ncols;
            while (hi - lo > 1) {
                const uint32_t mid = lo + (hi - lo) / 2;
                if (ptl_vx_tile_col(tl, mid) <= gp->span) lo = mid;
                else hi = mid;
            }
            const int64_t kk = gp->cols + 1;
            const int64_t ox = tl->x0 + (int64_t)(lo % (uint32_t)tl->w) + kk * DX[gp->dir];
            const int64_t oz = tl->z0 + (int64_t)(lo / (uint32_t)tl->w) + kk * DZ[gp->dir];
            if (ox < 0 || oz < 0 || ox >= W || oz >= D || gp->other >= column_spans(t, at, ox, oz))
                return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) has a gap to a missing span", tl->tx, tl->tz);
        }
    }
    return PTL_OK;
}

ptl_status ptl_vx_stream_tiles(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
                               uint32_t count, const ptl_allocator* alloc, ptl_layer_stream* s, ptl_error* err) {
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const uint32_t ntiles = (uint32_t)t->tiles_x * (uint32_t)t->tiles_z;
    const ptl_vx_tile** list = ptl_mem_calloc(&a, ntiles, sizeof *list);
    if (!list) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    uint64_t total = 0, gaps = 0;
    ptl_status st = place_tiles(world, t, tiles, count, list, &total, &gaps, err);
    if (st >= 0) st = check_links(world, t, list, err);
    const ptl_vx_params wp = world_grid(world);
    ptl_vx_band band;
    memset(&band, 0, sizeof band);
    ptl_vx_band_reset(&band, &wp, &a);
    double ms = 0;
    for (int32_t tz = 0; tz < t->tiles_z && st >= 0; ++tz)
        st = stream_row(&wp, list + (size_t)tz * (uint32_t)t->tiles_x, (uint32_t)t->tiles_x, &band, s, &ms, err);
    ptl_vx_band_free(&band);
    ptl_mem_free(&a, list, (size_t)ntiles * sizeof *list);
    return st;
}
