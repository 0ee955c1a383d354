/* Tiles streamed into the layer stage (tiles.c, layer_map.h): no open field of the whole world is
   held. Rows of tiles are given to the stream band by band, or, when the tile size is a multiple
   of the blocks', each tile floods its own blocks in its group's job (small tiles share one window
   per group, and a window shares its first rows with the one above it: see the strips). */
#include <string.h>

#include "../../runtime/internal.h"
#include "../pipeline/progress.h"
#include "tiles_internal.h"

static const int DX[4] = {-1, 0, 1, 0};
static const int DZ[4] = {0, 1, 0, -1};

double ptl_bake3d_now_ms(void);

/* Gives the rows of one row of tiles (`rw` of them, x order) to the stream through `band`, handing
   each full band (PTL_VX_LAYER_BLOCK rows, or the world's last rows) over. */
static ptl_status stream_row(const ptl_vx_params* world, const ptl_vx_tile* const* row, uint32_t rw,
                             ptl_vx_band* band, ptl_layer_stream* s, double* ms, ptl_error* err) {
    for (int32_t z = row[0]->z0; z < row[0]->z0 + row[0]->d; ++z) {
        ptl_status st = ptl_lmap_band_add_tiles(band, row, rw, z);
        if (st < 0)
            return ptl_error_set(err, st, st == PTL_ERR_NO_MEMORY ? "bake: out of memory (a band of the layers)"
                                                                   : "bake: more than 2^32 open spans in a band");
        if (band->f.p.depth == (int32_t)PTL_VX_LAYER_BLOCK || z + 1 == world->world_depth) {
            const double t = ptl_bake3d_now_ms();
            st = ptl_lstream_band(s, &band->f, err);
            *ms += ptl_bake3d_now_ms() - t;
            if (st < 0) return st;
            ptl_lmap_band_reset(band, &band->f.p, &band->f.alloc);
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
   far ends as indices inside their columns). The window's index is plain (ptl_filter_build_open) and
   a row of the tile is a run of consecutive columns of the window, so its spans are one range of the
   window's, copied whole; the window's spans carry no layer yet (PTL_VX_NONE). */
static ptl_status own_field(const ptl_open_field* of, const ptl_vx_tile* t, const ptl_allocator* a, ptl_open_field* out) {
    const ptl_vx_params* p = &of->p;
    const int32_t lx0 = t->x0 - p->ox, lz0 = t->z0 - p->oz;
    const uint32_t w = (uint32_t)t->w, d = (uint32_t)t->d, cols = w * d, W = (uint32_t)p->width;
    const uint32_t* wcs = of->col_index.off.u32; /* the window's plain index */
    memset(out, 0, sizeof *out);
    out->p = *p;
    out->p.width = (int32_t)w, out->p.depth = (int32_t)d, out->p.ox = t->x0, out->p.oz = t->z0, out->p.border = 0;
    out->alloc = *a;
    out->col_index.off.u32 = ptl_mem_alloc(a, ((size_t)cols + 1) * sizeof(uint32_t));
    if (!out->col_index.off.u32) return PTL_ERR_NO_MEMORY;
    out->col_index.width = 4, out->col_index.cols = cols, out->col_index.filled = cols + 1;
    uint32_t* cs = out->col_index.off.u32;
    uint32_t n = 0;
    for (uint32_t z = 0; z < d; ++z) {
        const uint32_t* row = wcs + (uint32_t)(lz0 + (int32_t)z) * W + (uint32_t)lx0;
        const uint32_t s0 = row[0];
        for (uint32_t x = 0; x < w; ++x) cs[z * w + x] = n + (row[x] - s0);
        n += row[w] - s0;
    }
    cs[cols] = n;
    out->spans = ptl_mem_alloc(a, (size_t)n * sizeof *out->spans + 1);
    out->col_of = ptl_mem_alloc(a, (size_t)n * sizeof *out->col_of + 1);
    out->span_count = out->span_cap = n;
    if (!out->spans || !out->col_of) return PTL_ERR_NO_MEMORY;
    for (uint32_t z = 0; z < d; ++z) { /* a span's column: its window column less the row's first, plus z * w */
        const uint32_t r0 = (uint32_t)(lz0 + (int32_t)z) * W + (uint32_t)lx0;
        const uint32_t k = cs[z * w], s0 = wcs[r0], nr = wcs[r0 + w] - s0, to = z * w - r0; /* modulo 2^32 */
        if (nr > 0) memcpy(out->spans + k, of->spans + s0, (size_t)nr * sizeof *out->spans);
        for (uint32_t j = 0; j < nr; ++j) out->col_of[k + j] = of->col_of[s0 + j] + to;
    }
    for (int pass = 0; pass < 2; ++pass) {
        uint32_t ng = 0;
        for (uint32_t g = 0; g < of->gap_count; ++g) {
            const ptl_vx_gap* gp = &of->gaps[g];
            const uint32_t c = of->col_of[gp->span];
            const int32_t x = (int32_t)(c % W) - lx0, z = (int32_t)(c / W) - lz0;
            if (x < 0 || z < 0 || x >= t->w || z >= t->d) continue;
            if (pass == 1) {
                const int k = gp->cols + 1;
                const uint32_t oc = (uint32_t)(lz0 + z + k * DZ[gp->dir]) * W + (uint32_t)(lx0 + x + k * DX[gp->dir]);
                ptl_vx_gap o = *gp;
                o.span = cs[(uint32_t)z * w + (uint32_t)x] + (gp->span - wcs[c]);
                o.other = gp->other - wcs[oc];
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

/* Tiles smaller than PTL_VX_GROUP_COLS columns run in groups of G x G (ptl_tiles_grouping): one job
   rasterizes and filters the group's columns plus one border around them all, then floods each of
   its tiles' blocks. The border is paid once per group instead of once per tile, and every column
   the group's window holds comes out as in one piece (the window's premise, tiles.c), so the tiles'
   results are the same bytes whatever the grouping. A group is a tile of the grouping `gt` (tiles
   of G * tile_size columns, the same border), to which the triangles are binned. */
typedef struct layers_job {
    ptl_tiles_job tj;    /* tj.range: the batch's tiles; tj.brange: the groups `tj.b` was binned for */
    const ptl_vx_tiling* gt;
    const int32_t* grange; /* the batch's groups (rows of gt->tiles_x) */
    int32_t group;       /* G */
    const ptl_layer_stream* s;
    ptl_tile_layers** out; /* per tile of tj.range, row-major */
    ptl_heightfield* strips; /* per column of groups: the rows the last group there shares with the next */
    ptl_heightfield* side;   /* without jobs: the columns the last group shares with the next in its row; else NULL */
} layers_job;

/* The heightfield spans of tile t's own columns (stats): a row of the tile is a run of the window's
   columns, so its count is the difference of two column starts. */
static void count_solid(const ptl_heightfield* hf, ptl_vx_tile* t) {
    const ptl_vx_params* p = &hf->p;
    const int32_t lx0 = t->x0 - p->ox, lz0 = t->z0 - p->oz;
    for (int32_t z = 0; z < t->d; ++z) {
        const uint32_t c = (uint32_t)(lz0 + z) * (uint32_t)p->width + (uint32_t)lx0;
        t->solid_spans += hf->col_start[c + (uint32_t)t->w] - hf->col_start[c];
    }
}

/* The window's field made tile t's own field in place (the group's last tile: nothing else reads the
   window after it), the same field own_field would copy out: each row of the tile's columns is moved
   down to its place (a row's spans are one range of the window's, and a row's new place never lies
   after its old one, so moving rows in order overwrites only what was read), the column index and
   the gaps rewritten in place likewise. The arrays keep their allocated sizes: *cols and *gaps get
   the window's column and gap counts, to be put back before ptl_open_field_free. False when out of
   memory (the field is then unchanged). */
static bool own_field_in_place(ptl_open_field* of, const ptl_vx_tile* t, const ptl_allocator* a, uint32_t* cols_out,
                               uint32_t* gaps_out) {
    const ptl_vx_params* p = &of->p;
    const int32_t lx0 = t->x0 - p->ox, lz0 = t->z0 - p->oz;
    const uint32_t w = (uint32_t)t->w, d = (uint32_t)t->d, W = (uint32_t)p->width;
    uint32_t* cs = of->col_index.off.u32; /* the window's plain index, rewritten to the tile's */
    uint32_t* base = ptl_mem_alloc(a, ((size_t)d + 1) * sizeof *base); /* the tile's first span of each row */
    if (!base) return false;
    base[0] = 0;
    for (uint32_t z = 0; z < d; ++z) {
        const uint32_t* row = cs + (uint32_t)(lz0 + (int32_t)z) * W + (uint32_t)lx0;
        base[z + 1] = base[z] + (row[w] - row[0]);
    }
    /* the gaps first, while the window's col_of and index are intact (gap g is read before entry
       ng <= g is written) */
    uint32_t ng = 0;
    for (uint32_t g = 0; g < of->gap_count; ++g) {
        const ptl_vx_gap gp = of->gaps[g];
        const uint32_t c = of->col_of[gp.span];
        const int32_t x = (int32_t)(c % W) - lx0, z = (int32_t)(c / W) - lz0;
        if (x < 0 || z < 0 || x >= t->w || z >= t->d) continue;
        const int k = gp.cols + 1;
        const uint32_t oc = (uint32_t)(lz0 + z + k * DZ[gp.dir]) * W + (uint32_t)(lx0 + x + k * DX[gp.dir]);
        const uint32_t r0 = (uint32_t)(lz0 + z) * W + (uint32_t)lx0;
        ptl_vx_gap o = gp;
        o.span = base[z] + (cs[r0 + (uint32_t)x] - cs[r0]) + (gp.span - cs[c]);
        o.other = gp.other - cs[oc];
        of->gaps[ng++] = o;
    }
    /* the spans and their columns, row by row; a span's column in the tile is its window column
       less the row's first, plus z * w (read before written: k0 <= s0, in increasing order) */
    for (uint32_t z = 0; z < d; ++z) {
        const uint32_t r0 = (uint32_t)(lz0 + (int32_t)z) * W + (uint32_t)lx0;
        const uint32_t s0 = cs[r0], n = cs[r0 + w] - s0, k0 = base[z];
        if (n > 0 && k0 != s0) memmove(of->spans + k0, of->spans + s0, (size_t)n * sizeof *of->spans);
        const uint32_t to = z * w - r0; /* modulo 2^32: col_of - r0 < w */
        for (uint32_t j = 0; j < n; ++j) of->col_of[k0 + j] = of->col_of[s0 + j] + to;
    }
    /* the index: entry z * w + x comes from (lz0 + z) * W + lx0 + x, never before it; a row's start
       is read before the row's entries are written */
    for (uint32_t z = 0; z < d; ++z) {
        const uint32_t r0 = (uint32_t)(lz0 + (int32_t)z) * W + (uint32_t)lx0, s0 = cs[r0];
        for (uint32_t x = 0; x < w; ++x) cs[z * w + x] = base[z] + (cs[r0 + x] - s0);
    }
    cs[w * d] = base[d];
    *cols_out = of->col_index.cols, *gaps_out = of->gap_count;
    of->col_index.cols = w * d, of->col_index.filled = w * d + 1;
    of->span_count = base[d];
    of->gap_count = ng;
    of->p.width = (int32_t)w, of->p.depth = (int32_t)d, of->p.ox = t->x0, of->p.oz = t->z0, of->p.border = 0;
    ptl_mem_free(a, base, ((size_t)d + 1) * sizeof *base);
    return true;
}

/* Tile t's own columns of the window `of` as a field of their own, flooded into *out. The group's
   last tile (`last`) takes the window itself (own_field_in_place) and frees it after its flood;
   the others copy their columns out (own_field). */
static ptl_status tile_layers(const layers_job* j, ptl_vx_tile* t, ptl_open_field* of, bool last,
                              ptl_tile_layers** out, ptl_error* err) {
    ptl_open_field own;
    memset(&own, 0, sizeof own);
    uint32_t wcols = 0, wgaps = 0;
    ptl_status st = PTL_OK;
    if (last) st = own_field_in_place(of, t, j->tj.a, &wcols, &wgaps) ? PTL_OK : PTL_ERR_NO_MEMORY;
    else st = own_field(of, t, j->tj.a, &own);
    if (st < 0) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory in tile (%d, %d)", t->tx, t->tz);
    if (st >= 0) {
        st = ptl_lstream_tile(j->s, last ? of : &own, t->x0, t->z0, out);
        if (st < 0)
            st = ptl_error_set(err, st, st == PTL_ERR_NO_MEMORY ? "bake: out of memory in the layers of tile (%d, %d)"
                                                                : "bake: more than 2^32 block-layers in tile (%d, %d)",
                               t->tx, t->tz);
    }
    if (last) {
        if (wcols) of->col_index.cols = wcols, of->gap_count = wgaps; /* the sizes it was allocated with */
        ptl_open_field_free(of);
    }
    free_own_field(&own, j->tj.a);
    return st;
}

/* Strips. The windows of two groups one above the other overlap in 2 x border rows (the first
   window's last rows, the second's first). The first group keeps its heightfield of those rows (a
   strip) and the second rasterizes only the rows after them: each column is rasterized the same
   whatever window holds it (voxelize.c), so the strip and the rest joined are the second window's
   heightfield, byte for byte, and the border costs the filters' reach, not the rasterization.
   Without a job system the groups of a row also run left to right, and the windows of two groups
   side by side overlap in 2 x border columns the same way: the left group keeps its heightfield of
   those columns (a side strip, all its rows) for the right one. With jobs, the groups of a row run
   at once and each rasterizes its columns itself; the bytes are the same either way. */

/* Rows [z0, end) of hf as a heightfield of their own in *out (empty when z0 is outside hf's rows);
   false when out of memory. */
static bool strip_keep(const ptl_heightfield* hf, int32_t z0, const ptl_allocator* a, ptl_heightfield* out) {
    memset(out, 0, sizeof *out);
    const ptl_vx_params* p = &hf->p;
    if (z0 <= p->oz || z0 >= p->oz + p->depth) return true;
    const uint32_t c0 = (uint32_t)(z0 - p->oz) * (uint32_t)p->width;
    const uint32_t cols = (uint32_t)(p->oz + p->depth - z0) * (uint32_t)p->width;
    const uint32_t s0 = hf->col_start[c0], n = hf->col_start[c0 + cols] - s0;
    out->p = *p, out->p.oz = z0, out->p.depth = p->oz + p->depth - z0;
    out->alloc = *a;
    out->col_start = ptl_mem_alloc(a, ((size_t)cols + 1) * sizeof *out->col_start);
    out->spans = ptl_mem_alloc(a, (size_t)n * sizeof *out->spans);
    out->span_count = n;
    if (!out->col_start || !out->spans) {
        ptl_heightfield_free(out);
        return false;
    }
    for (uint32_t c = 0; c <= cols; ++c) out->col_start[c] = hf->col_start[c0 + c] - s0;
    memcpy(out->spans, hf->spans + s0, (size_t)n * sizeof *out->spans);
    return true;
}

/* Columns [x0, end) of hf, all its rows, as a heightfield of their own in *out (a side strip; empty
   when x0 is outside hf's columns); false when out of memory. */
static bool side_keep(const ptl_heightfield* hf, int32_t x0, const ptl_allocator* a, ptl_heightfield* out) {
    memset(out, 0, sizeof *out);
    const ptl_vx_params* p = &hf->p;
    if (x0 <= p->ox || x0 >= p->ox + p->width) return true;
    const uint32_t W = (uint32_t)p->width, lx = (uint32_t)(x0 - p->ox), w = W - lx, d = (uint32_t)p->depth;
    uint32_t n = 0;
    for (uint32_t z = 0; z < d; ++z) n += hf->col_start[z * W + W] - hf->col_start[z * W + lx];
    out->p = *p, out->p.ox = x0, out->p.width = (int32_t)w;
    out->alloc = *a;
    out->col_start = ptl_mem_alloc(a, ((size_t)w * d + 1) * sizeof *out->col_start);
    out->spans = ptl_mem_alloc(a, (size_t)n * sizeof *out->spans);
    out->span_count = n;
    if (!out->col_start || !out->spans) {
        ptl_heightfield_free(out);
        return false;
    }
    uint32_t k = 0;
    for (uint32_t z = 0; z < d; ++z) {
        const uint32_t* row = hf->col_start + z * W + lx, s0 = row[0];
        for (uint32_t x = 0; x < w; ++x) out->col_start[z * w + x] = k + (row[x] - s0);
        memcpy(out->spans + k, hf->spans + s0, (size_t)(row[w] - s0) * sizeof *out->spans);
        k += row[w] - s0;
    }
    out->col_start[w * d] = n;
    return true;
}

/* Appends rows [z0, z1) of hf's columns to dst (columns in hf's order): each row's column starts
   from *k on, its spans copied after them. */
static void rows_append(const ptl_heightfield* hf, uint32_t z, uint32_t* cs, ptl_vx_span* spans, uint32_t* k) {
    const uint32_t w = (uint32_t)hf->p.width;
    const uint32_t* row = hf->col_start + z * w, s0 = row[0];
    for (uint32_t x = 0; x < w; ++x) cs[x] = *k + (row[x] - s0);
    if (row[w] > s0) memcpy(spans + *k, hf->spans + s0, (size_t)(row[w] - s0) * sizeof *spans);
    *k += row[w] - s0;
}

/* The heightfield of window p into *hf: the rows of `top` when they are the window's first rows, the
   columns of `side` (NULL: none) for the rows after them when they are the window's first columns,
   and the rest rasterized; without such strips, all of it. Both strips are freed either way. */
static ptl_status window_hf(const layers_job* j, const ptl_vx_params* p, const uint32_t* tris, uint32_t count,
                            ptl_heightfield* top, ptl_heightfield* side, ptl_heightfield* hf, ptl_error* err) {
    const ptl_allocator* a = j->tj.a;
    const bool use_top = top->col_start && top->p.oz == p->oz && top->p.ox == p->ox && top->p.width == p->width &&
                         top->p.depth <= p->depth;
    const int32_t td = use_top ? top->p.depth : 0;
    const bool use_side = side && side->col_start && side->p.ox == p->ox && side->p.oz == p->oz &&
                          side->p.depth == p->depth && side->p.width <= p->width && td < p->depth;
    const int32_t sw = use_side ? side->p.width : 0;
    ptl_status st = PTL_OK;
    if (!use_top && !use_side) {
        st = ptl_voxelize_trimesh(j->tj.m, tris, count, p, a, hf, err);
        goto done;
    }
    ptl_vx_params q = *p; /* what is left to rasterize */
    q.oz = p->oz + td, q.depth = p->depth - td, q.ox = p->ox + sw, q.width = p->width - sw;
    ptl_heightfield fresh;
    memset(&fresh, 0, sizeof fresh);
    if (q.depth > 0 && q.width > 0) st = ptl_voxelize_trimesh(j->tj.m, tris, count, &q, a, &fresh, err);
    const uint32_t W = (uint32_t)p->width, D = (uint32_t)p->depth, sc = (uint32_t)td * W;
    const uint32_t ss = use_side ? side->col_start[(uint32_t)td * (uint32_t)sw] : 0;
    const uint64_t n = (use_top ? (uint64_t)top->span_count : 0) + (use_side ? side->span_count - ss : 0) + fresh.span_count;
    if (st >= 0 && n > UINT32_MAX) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "voxelize: out of memory (%llu spans)", (unsigned long long)n);
    if (st >= 0) {
        memset(hf, 0, sizeof *hf);
        hf->p = *p, hf->alloc = *a;
        hf->col_start = ptl_mem_alloc(a, ((size_t)W * D + 1) * sizeof *hf->col_start);
        hf->spans = ptl_mem_alloc(a, (size_t)n * sizeof *hf->spans);
        hf->span_count = (uint32_t)n;
        if (!hf->col_start || !hf->spans) {
            ptl_heightfield_free(hf);
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "voxelize: out of memory (%llu spans)", (unsigned long long)n);
        }
    }
    if (st >= 0) {
        uint32_t k = 0;
        if (use_top) {
            memcpy(hf->col_start, top->col_start, (size_t)sc * sizeof *hf->col_start);
            memcpy(hf->spans, top->spans, (size_t)top->span_count * sizeof *hf->spans);
            k = top->span_count;
        }
        for (uint32_t z = (uint32_t)td; z < D; ++z) { /* each row: the side strip's columns, then the fresh ones */
            if (sw) rows_append(side, z, hf->col_start + z * W, hf->spans, &k);
            if (q.width > 0) rows_append(&fresh, z - (uint32_t)td, hf->col_start + z * W + (uint32_t)sw, hf->spans, &k);
        }
        hf->col_start[W * D] = k;
    }
    ptl_heightfield_free(&fresh);
done:
    ptl_heightfield_free(top);
    if (side) ptl_heightfield_free(side);
    return st;
}

/* Voxelizes and filters group (gx, gz) of the batch in one window, then floods each of its tiles'
   blocks into out[] (the tile's place in the batch). A failure goes to every tile of the group not
   done, so the first one in row-major order is the group's first failure. */
static void run_group(const layers_job* j, int32_t gx, int32_t gz) {
    const ptl_vx_tiling* t = j->tj.t;
    const int32_t T = t->tile_size, G = j->group;
    const int32_t* range = j->tj.range;
    const uint32_t rw = (uint32_t)(range[2] - range[0]);
    const int32_t tx0 = gx * G, tz0 = gz * G;
    const int32_t tx1 = tx0 + G < t->tiles_x ? tx0 + G : t->tiles_x, tz1 = tz0 + G < t->tiles_z ? tz0 + G : t->tiles_z;
    for (int32_t tz = tz0; tz < tz1; ++tz)
        for (int32_t tx = tx0; tx < tx1; ++tx) {
            const uint32_t k = (uint32_t)(tz - range[1]) * rw + (uint32_t)(tx - range[0]);
            ptl_vx_tile* tl = &j->tj.out[k];
            memset(tl, 0, sizeof *tl);
            j->out[k] = NULL;
            tl->tx = tx, tl->tz = tz, tl->x0 = tx * T, tl->z0 = tz * T;
            tl->w = (tl->x0 + T <= j->tj.world->world_width ? T : j->tj.world->world_width - tl->x0);
            tl->d = (tl->z0 + T <= j->tj.world->world_depth ? T : j->tj.world->world_depth - tl->z0);
        }
    const uint32_t k0 = (uint32_t)(tz0 - range[1]) * rw + (uint32_t)(tx0 - range[0]);
    ptl_error* err = &j->tj.errs[k0];
    ptl_vx_params p;
    ptl_tiles_window(j->tj.world, j->gt, gx, gz, &p);
    ptl_heightfield hf;
    ptl_open_field of;
    memset(&hf, 0, sizeof hf);
    memset(&of, 0, sizeof of);
    const uint32_t bi = (uint32_t)(gz - j->tj.brange[1]) * (uint32_t)(j->tj.brange[2] - j->tj.brange[0]) +
                        (uint32_t)(gx - j->tj.brange[0]);
    const uint32_t* tris = j->tj.b->tris + j->tj.b->start[bi];
    const uint32_t count = j->tj.b->start[bi + 1] - j->tj.b->start[bi];
    ptl_heightfield* strip = &j->strips[gx - j->grange[0]];
    ptl_status st = window_hf(j, &p, tris, count, strip, j->side, &hf, err);
    if (st >= 0) st = ptl_filter_build_open(&hf, j->tj.a, &of, err);
    for (int32_t tz = tz0; tz < tz1 && st >= 0; ++tz)
        for (int32_t tx = tx0; tx < tx1; ++tx)
            count_solid(&hf, &j->tj.out[(uint32_t)(tz - range[1]) * rw + (uint32_t)(tx - range[0])]);
    /* the rows the group below shares: from the start of its window on */
    if (st >= 0 && gz + 1 < j->gt->tiles_z &&
        !strip_keep(&hf, (int32_t)((int64_t)(gz + 1) * j->gt->tile_size - j->gt->border), j->tj.a, strip))
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory in tile (%d, %d)", tx0, tz0);
    /* the columns the next group of the row shares: from the start of its window on */
    if (st >= 0 && j->side && gx + 1 < j->gt->tiles_x) {
        ptl_vx_params pn;
        ptl_tiles_window(j->tj.world, j->gt, gx + 1, gz, &pn);
        if (!side_keep(&hf, pn.ox, j->tj.a, j->side))
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory in tile (%d, %d)", tx0, tz0);
    }
    ptl_heightfield_free(&hf);
    for (int32_t tz = tz0; tz < tz1; ++tz)
        for (int32_t tx = tx0; tx < tx1; ++tx) {
            const uint32_t k = (uint32_t)(tz - range[1]) * rw + (uint32_t)(tx - range[0]);
            if (st >= 0) {
                err = &j->tj.errs[k];
                st = tile_layers(j, &j->tj.out[k], &of, tz + 1 == tz1 && tx + 1 == tx1, &j->out[k], err);
            } else if (&j->tj.errs[k] != err) {
                j->tj.errs[k] = *err;
            }
            j->tj.out[k].status = st < 0 ? st : PTL_OK;
        }
    ptl_open_field_free(&of);
}

/* Column `index` of the batch's groups, top to bottom, each sharing its strip with the next. */
static void run_group_column(void* data, uint32_t index) {
    const layers_job* j = data;
    for (int32_t gz = j->grange[1]; gz < j->grange[3]; ++gz) run_group(j, j->grange[0] + (int32_t)index, gz);
}

/* ptl_tiles_stream_mesh when the tiles hold whole blocks: the columns of groups of a batch of rows
   run as jobs (each group after the one above it, whose strip it takes), each group flooding its
   tiles' blocks; the tiles' results are added to the stream in row-major order. One group's fields
   at a time per thread, a strip per column of groups, and each tile's few block-layers and edges
   until it is added. `rows`: per run of triangles, the rows of groups it meets (ptl_tiles_bin_rows on gt). */
static ptl_status stream_tile_layers(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                                     const ptl_vx_tiling* gt, const ptl_job_system* jobs, const ptl_allocator* a,
                                     const int32_t* rows, ptl_layer_stream* s, uint32_t* solid_spans,
                                     double* ms_layers, const ptl_bake_progress* progress, ptl_error* err) {
    ptl_status st = ptl_lstream_use_tiles(s, (uint32_t)t->tile_size, (uint32_t)t->tiles_x, (uint32_t)t->tiles_z, err);
    const uint32_t rw = (uint32_t)t->tiles_x;
    const int32_t G = gt->tile_size / t->tile_size;
    const int32_t batch = jobs && jobs->run ? PTL_VX_BAND_ROWS : 1; /* rows of groups */
    ptl_tiles_bins b;
    memset(&b, 0, sizeof b);
    ptl_heightfield* strips = ptl_mem_calloc(a, (size_t)gt->tiles_x, sizeof *strips);
    ptl_heightfield side; /* one thread: the groups of a row run left to right, sharing side strips */
    memset(&side, 0, sizeof side);
    if (st >= 0 && !strips) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    /* Without runs (a small mesh, see ptl_tiles_stream_mesh), every group's triangles are binned once. */
    const int32_t all[4] = {0, 0, gt->tiles_x, gt->tiles_z};
    if (st >= 0 && !rows && ptl_tiles_bin_triangles(m, world, gt, all, NULL, jobs, a, &b) < 0)
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
    for (int32_t gz = 0; st >= 0 && gz < gt->tiles_z; gz += batch) {
        const int32_t gz1 = gz + batch < gt->tiles_z ? gz + batch : gt->tiles_z;
        const int32_t grange[4] = {0, gz, gt->tiles_x, gz1};
        const int32_t tz1 = gz1 * G < t->tiles_z ? gz1 * G : t->tiles_z;
        const int32_t range[4] = {0, gz * G, t->tiles_x, tz1};
        const uint32_t n = (uint32_t)(tz1 - gz * G) * rw, ng = (uint32_t)gt->tiles_x; /* jobs: columns of groups */
        ptl_vx_tile* tiles = ptl_mem_calloc(a, n, sizeof *tiles);
        ptl_error* errs = ptl_mem_calloc(a, n, sizeof *errs);
        ptl_tile_layers** out = ptl_mem_calloc(a, n, sizeof *out);
        if (rows) ptl_tiles_bin_free(&b, a);
        if (!tiles || !errs || !out) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        } else if (rows && ptl_tiles_bin_triangles(m, world, gt, grange, rows, jobs, a, &b) < 0) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
        } else {
            layers_job lj = {{m, world, t, range, rows ? grange : all, &b, a, tiles, errs}, gt, grange, G, s, out, strips,
                             jobs && jobs->run ? NULL : &side};
            if (jobs && jobs->run) jobs->run(jobs->user, run_group_column, &lj, ng);
            else
                for (uint32_t i = 0; i < ng; ++i) run_group_column(&lj, i);
            ptl_heightfield_free(&side); /* the row's last group keeps none; a failed row may */
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
        if (st >= 0) ptl_progress_at(progress, (float)gz1 / (float)gt->tiles_z); /* rows of tiles done */
    }
    for (int32_t i = 0; strips && i < gt->tiles_x; ++i) ptl_heightfield_free(&strips[i]);
    ptl_mem_free(a, strips, (size_t)gt->tiles_x * sizeof *strips);
    ptl_tiles_bin_free(&b, a);
    return st;
}
/* One batch of ptl_tiles_stream_mesh: job 0 streams the previous batch's rows of tiles (freeing each
   row's tiles once given), jobs 1.. run this batch's tiles. */
typedef struct stream_job {
    ptl_tiles_job tj;
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
        ptl_tiles_run_job(&j->tj, index - 1);
        return;
    }
    for (uint32_t r = 0; r < j->prev_count / j->rw; ++r) {
        for (uint32_t x = 0; x < j->rw; ++x) j->row[x] = &j->prev[(size_t)r * j->rw + x];
        if (j->st >= 0) j->st = stream_row(j->wp, j->row, j->rw, j->band, j->s, &j->ms, &j->err);
        for (uint32_t x = 0; x < j->rw; ++x) ptl_tiles_tile_free(&j->prev[(size_t)r * j->rw + x], j->tj.a);
    }
}

/* Without a job system, a row of tiles at a time, streamed as soon as it is done, so that one row
   of tiles is alive. With one, PTL_VX_BAND_ROWS rows of tiles run as one batch of jobs, and job 0
   of each batch streams the batch before (the stream then runs its blocks in turn: a job may not
   start jobs), so the layers hide behind the tiles as the assembly of the world's field did; the
   last batch is streamed with the jobs. `base` holds what every batch shares; `b` the bins of the
   batch, rebinned for each (`rows`: ptl_tiles_bin_triangles). */
static ptl_status stream_batches(const stream_job* base, const ptl_job_system* jobs, const int32_t* rows,
                                 ptl_tiles_bins* b, const ptl_bake_progress* progress, uint32_t* solid_spans,
                                 double* ms_layers, ptl_error* err) {
    const ptl_vx_tiling* t = base->tj.t;
    const ptl_allocator* a = base->tj.a;
    const uint32_t rw = base->rw;
    const bool overlap = jobs && jobs->run;
    const int32_t batch = overlap ? PTL_VX_BAND_ROWS : 1;
    ptl_vx_tile* prev = NULL;
    uint32_t prev_n = 0;
    ptl_status st = PTL_OK;
    for (int32_t tz = 0; st >= 0 && (tz < t->tiles_z || prev); tz += batch) {
        ptl_progress_at(progress, (float)tz / (float)t->tiles_z); /* rows of tiles done */
        const int32_t tz1 = tz + batch < t->tiles_z ? tz + batch : t->tiles_z;
        const int32_t range[4] = {0, tz, t->tiles_x, tz1};
        const uint32_t n = tz < t->tiles_z ? (uint32_t)(tz1 - tz) * rw : 0;
        ptl_vx_tile* tiles = n ? ptl_mem_calloc(a, n, sizeof *tiles) : NULL;
        ptl_error* errs = n ? ptl_mem_calloc(a, n, sizeof *errs) : NULL;
        ptl_tiles_bin_free(b, a);
        stream_job sj = *base;
        sj.tj.range = sj.tj.brange = range, sj.tj.b = b, sj.tj.out = tiles, sj.tj.errs = errs;
        sj.prev = prev, sj.prev_count = prev_n;
        if (n && (!tiles || !errs)) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        } else if (n && ptl_tiles_bin_triangles(base->tj.m, base->tj.world, t, range, rows, jobs, a, b) < 0) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
        } else {
            if (overlap && n) {
                ptl_lstream_set_jobs(base->s, NULL);
                jobs->run(jobs->user, run_stream_batch, &sj, n + 1);
                ptl_lstream_set_jobs(base->s, jobs);
            } else if (n) {
                for (uint32_t i = 0; i < n; ++i) ptl_tiles_run_job(&sj.tj, i);
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
        ptl_mem_free(a, errs, (size_t)n * sizeof *errs);
        ptl_tiles_free_all(prev, prev_n, a);
        prev = tiles, prev_n = n;
        if (!overlap && st >= 0 && n) { /* this row now */
            stream_job now = *base;
            now.tj.range = now.tj.brange = range, now.tj.b = b, now.tj.out = tiles;
            now.prev = prev, now.prev_count = prev_n;
            run_stream_batch(&now, 0);
            *ms_layers += now.ms;
            if (now.st < 0) {
                st = now.st;
                if (err) *err = now.err;
            }
            ptl_tiles_free_all(prev, prev_n, a);
            prev = NULL, prev_n = 0;
        }
    }
    ptl_tiles_free_all(prev, prev_n, a);
    return st;
}

ptl_status ptl_tiles_stream_mesh(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                               const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_stream* s,
                               uint32_t* solid_spans, double* ms_layers, const ptl_bake_progress* progress,
                               ptl_error* err) {
    *solid_spans = 0;
    *ms_layers = 0;
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const ptl_vx_params wp = world_grid(world);
    ptl_vx_band band;
    memset(&band, 0, sizeof band);
    ptl_lmap_band_reset(&band, &wp, &a);
    const uint32_t rw = (uint32_t)t->tiles_x;
    const ptl_vx_tile** row = ptl_mem_alloc(&a, (size_t)rw * sizeof *row);
    ptl_tiles_bins b; /* the triangles of a batch of tile rows */
    memset(&b, 0, sizeof b);
    /* Runs of triangles and the tile rows they meet, so that a batch of rows is binned without
       looking at the rest; a mesh of a few runs is binned once for every tile instead (its bins are
       small, and each batch would look at all of it). */
    const uint32_t nruns = (m->tri_count + PTL_TILES_BIN_RUN - 1) / PTL_TILES_BIN_RUN;
    const bool by_runs = nruns > PTL_TILES_BIN_ONCE_RUNS;
    int32_t* rows = by_runs ? ptl_mem_alloc(&a, ((size_t)nruns + 1) * 2 * sizeof *rows) : NULL;
    ptl_status st = row && (rows || !by_runs) ? PTL_OK : ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    const bool by_tiles = t->tile_size % (int32_t)PTL_VX_LAYER_BLOCK == 0;
    const ptl_vx_tiling gt = ptl_tiles_grouping(t); /* jobs' windows: groups of tiles */
    if (st >= 0 && by_runs) ptl_tiles_bin_rows(m, world, by_tiles ? &gt : t, jobs, rows);
    if (st >= 0 && by_tiles) {
        st = stream_tile_layers(m, world, t, &gt, jobs, &a, rows, s, solid_spans, ms_layers, progress, err);
    } else if (st >= 0) {
        const stream_job base = {{m, world, t, NULL, NULL, NULL, &a, NULL, NULL}, NULL, 0, rw, row, &wp, &band, s,
                                 0, PTL_OK, {0}};
        st = stream_batches(&base, jobs, rows, &b, progress, solid_spans, ms_layers, err);
    }
    ptl_tiles_bin_free(&b, &a);
    ptl_mem_free(&a, rows, ((size_t)nruns + 1) * 2 * sizeof *rows);
    ptl_mem_free(&a, row, (size_t)rw * sizeof *row);
    ptl_lmap_band_free(&band);
    return st;
}

/* Spans in world column (x, z) of the placed tiles `at`. */
static uint32_t column_spans(const ptl_vx_tiling* t, const ptl_vx_tile* const* at, int64_t x, int64_t z) {
    const uint32_t T = (uint32_t)t->tile_size;
    const ptl_vx_tile* tl = at[(uint32_t)z / T * (uint32_t)t->tiles_x + (uint32_t)x / T];
    const uint32_t k = ((uint32_t)z - (uint32_t)tl->z0) * (uint32_t)tl->w + ((uint32_t)x - (uint32_t)tl->x0);
    return ptl_tiles_tile_col(tl, k + 1) - ptl_tiles_tile_col(tl, k);
}

/* Tiles read from parts (which a checksum does not make right): every link must reach a span of
   its neighbour column inside the world, every gap a span (sorted by span, as tiles keep them), as
   ptl_tiles_assemble checks. The stream reads them without further checks. */
static ptl_status check_links(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* at,
                              ptl_error* err) {
    const int64_t W = world->world_width, D = world->world_depth;
    const uint32_t ntiles = (uint32_t)t->tiles_x * (uint32_t)t->tiles_z;
    for (uint32_t i = 0; i < ntiles; ++i) {
        const ptl_vx_tile* tl = at[i];
        const uint32_t ncols = (uint32_t)tl->w * (uint32_t)tl->d;
        for (uint32_t k = 0; k < ncols; ++k) {
            const int64_t gx = tl->x0 + (int64_t)(k % (uint32_t)tl->w), gz = tl->z0 + (int64_t)(k / (uint32_t)tl->w);
            for (uint32_t j = ptl_tiles_tile_col(tl, k), je = ptl_tiles_tile_col(tl, k + 1); j < je; ++j)
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
                if (ptl_tiles_tile_col(tl, mid) <= gp->span) lo = mid;
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

ptl_status ptl_tiles_stream_parts(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
                               uint32_t count, const ptl_allocator* alloc, ptl_layer_stream* s, ptl_error* err) {
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const uint32_t ntiles = (uint32_t)t->tiles_x * (uint32_t)t->tiles_z;
    const ptl_vx_tile** list = ptl_mem_calloc(&a, ntiles, sizeof *list);
    if (!list) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    uint64_t total = 0, gaps = 0;
    ptl_status st = ptl_tiles_assemble_place(world, t, tiles, count, list, &total, &gaps, err);
    if (st >= 0) st = check_links(world, t, list, err);
    const ptl_vx_params wp = world_grid(world);
    ptl_vx_band band;
    memset(&band, 0, sizeof band);
    ptl_lmap_band_reset(&band, &wp, &a);
    double ms = 0;
    for (int32_t tz = 0; tz < t->tiles_z && st >= 0; ++tz)
        st = stream_row(&wp, list + (size_t)tz * (uint32_t)t->tiles_x, (uint32_t)t->tiles_x, &band, s, &ms, err);
    ptl_lmap_band_free(&band);
    ptl_mem_free(&a, list, (size_t)ntiles * sizeof *list);
    return st;
}
