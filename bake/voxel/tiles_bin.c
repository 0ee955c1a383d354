/* Triangles binned to the tiles they may touch (tiles.c), as jobs over chunks of triangles; a tile's
   triangles keep their index order whatever the threads. */
#include <string.h>

#include "../../runtime/internal.h"
#include "tiles_internal.h"

/* What tri_tiles reads of the grid and the tiling, with the cell size's reciprocal and, for a tile
   size that is a power of two (256 and 64, the bench's), its log2 (else -1). */
typedef struct bin_grid {
    double bx, bz, inv_cs;
    int32_t tile_size, border, tiles_x, tiles_z, shift;
} bin_grid;

static bin_grid grid_of(const ptl_vx_params* w, const ptl_vx_tiling* t) {
    int32_t shift = -1;
    for (int32_t k = 0; k < 31 && shift < 0; ++k)
        if (t->tile_size == (int32_t)1 << k) shift = k;
    bin_grid g = {w->bmin[0], w->bmin[2], 1.0 / w->cs, t->tile_size, t->border, t->tiles_x, t->tiles_z, shift};
    return g;
}

/* The tile of column c (a column bound plus or minus the border, in 64 bits: the border may be
   large), clamped to 0 .. n - 1; a shift for a power of two, else a 32-bit division (the tiles'
   columns fit 32 bits), four per triangle and the slowest part of tri_tiles. */
static int32_t tile_of(int64_t c, int32_t T, int32_t shift, int32_t n) {
    if (c < 0) return 0;
    if (c >= (int64_t)T * n) return n - 1;
    return shift >= 0 ? (int32_t)((uint32_t)c >> shift) : (int32_t)((uint32_t)c / (uint32_t)T);
}

static float fmin3(float a, float b, float c) {
    const float m = a < b ? a : b;
    return m < c ? m : c;
}
static float fmax3(float a, float b, float c) {
    const float m = a > b ? a : b;
    return m > c ? m : c;
}

/* The tile rows and columns a triangle's window test could pass (a superset; voxelize.c decides).
   The footprint is taken in floats (exact) and scaled by the cell size's reciprocal: that moves a
   column bound by an ulp at most, against the margin of two columns below. */
static void tri_tiles(const ptl_trimesh* m, const bin_grid* g, uint32_t tri, int32_t* tx0, int32_t* tz0, int32_t* tx1,
                      int32_t* tz1) {
    const uint32_t* ix = m->tris + 3 * (size_t)tri;
    const float *a = m->verts + 3 * (size_t)ix[0], *b = m->verts + 3 * (size_t)ix[1], *c = m->verts + 3 * (size_t)ix[2];
    const double u0 = ((double)fmin3(a[0], b[0], c[0]) - g->bx) * g->inv_cs;
    const double u1 = ((double)fmax3(a[0], b[0], c[0]) - g->bx) * g->inv_cs;
    const double v0 = ((double)fmin3(a[2], b[2], c[2]) - g->bz) * g->inv_cs;
    const double v1 = ((double)fmax3(a[2], b[2], c[2]) - g->bz) * g->inv_cs;
    /* columns touched, two more on each side, clamped (the triangle is finite: vx_params checked) */
    const int32_t c0 = (int32_t)(u0 < -1e9 ? -1e9 : u0 > 1e9 ? 1e9 : u0) - 2;
    const int32_t c1 = (int32_t)(u1 < -1e9 ? -1e9 : u1 > 1e9 ? 1e9 : u1) + 2;
    const int32_t r0 = (int32_t)(v0 < -1e9 ? -1e9 : v0 > 1e9 ? 1e9 : v0) - 2;
    const int32_t r1 = (int32_t)(v1 < -1e9 ? -1e9 : v1 > 1e9 ? 1e9 : v1) + 2;
    const int64_t B = g->border;
    const int32_t T = g->tile_size, sh = g->shift;
    *tx0 = tile_of(c0 - B, T, sh, g->tiles_x), *tx1 = tile_of(c1 + B, T, sh, g->tiles_x);
    *tz0 = tile_of(r0 - B, T, sh, g->tiles_z), *tz1 = tile_of(r1 + B, T, sh, g->tiles_z);
}

/* Binning runs as jobs over chunks of the triangles: each chunk counts its triangles per tile, the
   counts become every (tile, chunk)'s place in the bins, and each chunk writes its triangles there,
   so a tile's triangles keep their index order whatever the threads. */
typedef struct bin_job {
    const ptl_trimesh* m;
    bin_grid g;
    const int32_t* range;
    uint32_t chunks, per_chunk;
    uint32_t* at; /* chunks x tiles: the chunk's count, then its next slot, per tile */
    uint32_t* tris;
    int pass;
    const int32_t* rows; /* NULL, or per PTL_TILES_BIN_RUN triangles: the first and last tile row they meet */
    int32_t* ranges;     /* NULL, or 4 per triangle: its tile range, written by pass 0 and read by pass 1 */
} bin_job;

enum { BIN_MAX_COUNTERS = 1 << 22 };

static void bin_chunk(void* data, uint32_t chunk) {
    const bin_job* j = data;
    const int32_t* range = j->range;
    const uint32_t rw = (uint32_t)(range[2] - range[0]), tiles = rw * (uint32_t)(range[3] - range[1]);
    uint32_t* at = j->at + (size_t)chunk * tiles;
    const uint32_t i0 = chunk * j->per_chunk;
    const uint32_t i1 = i0 + j->per_chunk < j->m->tri_count ? i0 + j->per_chunk : j->m->tri_count;
    for (uint32_t i = i0; i < i1; ++i) {
        if (j->rows && i % PTL_TILES_BIN_RUN == 0) { /* a run of triangles that meets none of the range's rows */
            const int32_t* r = &j->rows[2 * (i / PTL_TILES_BIN_RUN)];
            if (r[1] < range[1] || r[0] >= range[3]) {
                i += PTL_TILES_BIN_RUN - 1;
                continue;
            }
        }
        int32_t x0, z0, x1, z1;
        int32_t* tr = j->ranges ? j->ranges + 4 * (size_t)i : NULL;
        if (tr && j->pass == 1) {
            x0 = tr[0], z0 = tr[1], x1 = tr[2], z1 = tr[3];
        } else {
            tri_tiles(j->m, &j->g, i, &x0, &z0, &x1, &z1);
            if (tr) tr[0] = x0, tr[1] = z0, tr[2] = x1, tr[3] = z1;
        }
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

ptl_status ptl_tiles_bin_triangles(const ptl_trimesh* m, const ptl_vx_params* w, const ptl_vx_tiling* t,
                                   const int32_t range[4], const int32_t* rows, const ptl_job_system* jobs,
                                   const ptl_allocator* a, ptl_tiles_bins* b) {
    const int32_t rw = range[2] - range[0], rd = range[3] - range[1];
    b->tiles = (uint32_t)rw * (uint32_t)rd;
    b->start = ptl_mem_calloc(a, (size_t)b->tiles + 1, sizeof *b->start);
    if (!b->start) return PTL_ERR_NO_MEMORY;
    /* chunks of PTL_TILES_BIN_CHUNK triangles, fewer when the tiles are many (chunks x tiles counters) */
    uint32_t chunks = (m->tri_count + PTL_TILES_BIN_CHUNK - 1) / PTL_TILES_BIN_CHUNK;
    if (chunks < 1) chunks = 1;
    if ((uint64_t)chunks * b->tiles > BIN_MAX_COUNTERS) chunks = (uint32_t)(BIN_MAX_COUNTERS / b->tiles);
    if (chunks < 1) chunks = 1;
    uint32_t per_chunk = (uint32_t)(((uint64_t)m->tri_count + chunks - 1) / chunks);
    if (rows) per_chunk = (per_chunk + PTL_TILES_BIN_RUN - 1) / PTL_TILES_BIN_RUN * PTL_TILES_BIN_RUN; /* whole runs */
    if (rows) chunks = (uint32_t)(((uint64_t)m->tri_count + per_chunk - 1) / per_chunk);
    if (chunks < 1) chunks = 1;
    const size_t ncount = (size_t)chunks * b->tiles;
    uint32_t* at = ptl_mem_calloc(a, ncount, sizeof *at);
    if (!at) return PTL_ERR_NO_MEMORY;
    /* A small mesh binned whole (rows NULL, at most PTL_TILES_BIN_ONCE_RUNS runs: 1 MB here at
       most) keeps each triangle's tile range from the count for the placement (tri_tiles once, not
       twice); a larger one computes it in both passes. */
    const bool keep = !rows && m->tri_count <= (uint32_t)PTL_TILES_BIN_ONCE_RUNS * PTL_TILES_BIN_RUN;
    const size_t nranges = keep ? 4 * (size_t)m->tri_count : 0;
    int32_t* ranges = nranges ? ptl_mem_alloc(a, nranges * sizeof *ranges) : NULL;
    if (nranges && !ranges) {
        ptl_mem_free(a, at, ncount * sizeof *at);
        return PTL_ERR_NO_MEMORY;
    }
    bin_job j = {m, grid_of(w, t), range, chunks, per_chunk, at, NULL, 0, rows, ranges};
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
    if (ranges) ptl_mem_free(a, ranges, nranges * sizeof *ranges);
    return st;
}

/* Per run of PTL_TILES_BIN_RUN triangles, the first and last tile row its triangles meet: a row of
   tiles is then binned without looking at the runs far from it (the triangles of a level are
   mostly stored near each other, so most runs meet one or two rows). */
typedef struct rows_job {
    const ptl_trimesh* m;
    bin_grid g;
    int32_t* rows;
} rows_job;

/* The runs of chunk `chunk` (PTL_TILES_BIN_CHUNK triangles). */
static void rows_chunk(void* data, uint32_t chunk) {
    const rows_job* j = data;
    const uint32_t n = j->m->tri_count, per = PTL_TILES_BIN_CHUNK / PTL_TILES_BIN_RUN;
    for (uint32_t run = chunk * per; run < (chunk + 1) * per && run * PTL_TILES_BIN_RUN < n; ++run) {
        const uint32_t i0 = run * PTL_TILES_BIN_RUN, i1 = i0 + PTL_TILES_BIN_RUN < n ? i0 + PTL_TILES_BIN_RUN : n;
        int32_t lo = INT32_MAX, hi = -1;
        for (uint32_t i = i0; i < i1; ++i) {
            int32_t x0, z0, x1, z1;
            tri_tiles(j->m, &j->g, i, &x0, &z0, &x1, &z1);
            lo = z0 < lo ? z0 : lo, hi = z1 > hi ? z1 : hi;
        }
        j->rows[2 * run] = lo, j->rows[2 * run + 1] = hi;
    }
}

void ptl_tiles_bin_rows(const ptl_trimesh* m, const ptl_vx_params* w, const ptl_vx_tiling* t, const ptl_job_system* jobs,
                        int32_t* rows) {
    const uint32_t chunks = (m->tri_count + PTL_TILES_BIN_CHUNK - 1) / PTL_TILES_BIN_CHUNK;
    rows_job rj = {m, grid_of(w, t), rows};
    if (jobs && jobs->run && chunks > 1) jobs->run(jobs->user, rows_chunk, &rj, chunks);
    else
        for (uint32_t c = 0; c < chunks; ++c) rows_chunk(&rj, c);
}

void ptl_tiles_bin_free(ptl_tiles_bins* b, const ptl_allocator* a) {
    ptl_mem_free(a, b->start, ((size_t)b->tiles + 1) * sizeof *b->start);
    ptl_mem_free(a, b->tris, (size_t)b->total * sizeof *b->tris + 1);
    memset(b, 0, sizeof *b);
}
