/* Tiles into the world's open field (tiles.c): placed, checked, and their columns appended row by
   row in the world's order, gaps' far ends resolved at the end; the same field, byte for byte, as a
   one-piece bake's. */
#include <string.h>

#include "../../runtime/internal.h"
#include "tiles_internal.h"

static const int DX[4] = {-1, 0, 1, 0};
static const int DZ[4] = {0, 1, 0, -1};

/* A span of a field without col_of keeps its column in ceil and pad (voxel.h, ptl_filter_span_col). */
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
ptl_status ptl_tiles_assemble_place(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
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
        bool ok = tl->cols.cols == ncols && tl->cols.filled == ncols + 1 && ptl_tiles_tile_col(tl, 0) == 0 &&
                  ptl_tiles_tile_col(tl, ncols) == tl->span_count;
        for (uint32_t c = 0; c < ncols && ok; ++c) ok = ptl_tiles_tile_col(tl, c) <= ptl_tiles_tile_col(tl, c + 1);
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

/* The column index of `out` in the world's column order, each column's spans from its tile (`at`,
   ptl_tiles_assemble_place). */
static bool assemble_index(const ptl_vx_tiling* t, const ptl_vx_tile** at, const ptl_allocator* a, ptl_open_field* out) {
    const uint32_t W = (uint32_t)out->p.width, D = (uint32_t)out->p.depth;
    const int32_t T = t->tile_size;
    bool ok = ptl_col_index_init(&out->col_index, W * D, 1, a) >= 0;
    uint32_t placed = 0;
    for (uint32_t gz = 0; gz < D && ok; ++gz)
        for (int32_t tx = 0; tx < t->tiles_x && ok; ++tx) {
            const ptl_vx_tile* tl = at[gz / (uint32_t)T * (uint32_t)t->tiles_x + (uint32_t)tx];
            const uint32_t k0 = (gz - (uint32_t)tl->z0) * (uint32_t)tl->w;
            for (int32_t x = 0; x < tl->w && ok; ++x) {
                ok = ptl_col_index_push(&out->col_index, placed, a);
                placed += ptl_tiles_tile_col(tl, k0 + (uint32_t)x + 1) - ptl_tiles_tile_col(tl, k0 + (uint32_t)x);
            }
        }
    return ok && ptl_col_index_push(&out->col_index, placed, a);
}

/* Tile tl's spans into their world columns, each link checked against its neighbour column. */
static ptl_status assemble_spans(const ptl_vx_tile* tl, ptl_open_field* out, ptl_error* err) {
    const uint32_t W = (uint32_t)out->p.width, D = (uint32_t)out->p.depth;
    const uint32_t ncols = (uint32_t)tl->w * (uint32_t)tl->d;
    for (uint32_t k = 0; k < ncols; ++k) {
        uint32_t gx = (uint32_t)tl->x0 + k % (uint32_t)tl->w, gz = (uint32_t)tl->z0 + k / (uint32_t)tl->w;
        uint32_t c = gz * W + gx;
        uint32_t base = ptl_filter_col_begin(out, c);
        for (uint32_t j = ptl_tiles_tile_col(tl, k), je = ptl_tiles_tile_col(tl, k + 1); j < je; ++j) {
            ptl_open_span o = ptl_tiles_open_of(&tl->spans[j]);
            for (int d = 0; d < 4; ++d) {
                if (o.con[d] == PTL_VX_NOCON) continue;
                int64_t nx = (int64_t)gx + DX[d], nz = (int64_t)gz + DZ[d];
                uint32_t nc = (uint32_t)(nz * W + nx);
                if (nx < 0 || nz < 0 || nx >= W || nz >= D || o.con[d] >= ptl_filter_col_end(out, nc) - ptl_filter_col_begin(out, nc))
                    return ptl_error_set(err, PTL_ERR_BAD_INPUT,
                                         "bake: tile (%d, %d) links column (%u, %u) to a span its neighbour lacks", tl->tx,
                                         tl->tz, gx, gz);
            }
            set_span_col(&o, c);
            out->spans[base + (j - ptl_tiles_tile_col(tl, k))] = o;
        }
    }
    return PTL_OK;
}

/* Tile tl's gaps into out->gaps from *gk on, both ends as the world's span indices, checked. */
static ptl_status assemble_gaps(const ptl_vx_tile* tl, ptl_open_field* out, uint32_t* gk, ptl_error* err) {
    const uint32_t W = (uint32_t)out->p.width, D = (uint32_t)out->p.depth;
    const uint32_t ncols = (uint32_t)tl->w * (uint32_t)tl->d;
    for (uint32_t g = 0; g < tl->gap_count; ++g) {
        const ptl_vx_gap* gp = &tl->gaps[g];
        if (gp->span >= tl->span_count || gp->dir > 3)
            return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) has a malformed gap", tl->tx, tl->tz);
        /* the span's column: the last whose start is <= span (binary search) */
        uint32_t lo = 0, hi = ncols;
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (ptl_tiles_tile_col(tl, mid) <= gp->span) lo = mid;
            else hi = mid;
        }
        uint32_t gx = (uint32_t)tl->x0 + lo % (uint32_t)tl->w, gz = (uint32_t)tl->z0 + lo / (uint32_t)tl->w;
        int kk = gp->cols + 1;
        int64_t ox = (int64_t)gx + kk * DX[gp->dir], oz = (int64_t)gz + kk * DZ[gp->dir];
        uint32_t oc = (uint32_t)(oz * W + ox);
        if (ox < 0 || oz < 0 || ox >= W || oz >= D || gp->other >= ptl_filter_col_end(out, oc) - ptl_filter_col_begin(out, oc))
            return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: tile (%d, %d) has a gap to a missing span", tl->tx, tl->tz);
        ptl_vx_gap o = *gp;
        o.span = ptl_filter_col_begin(out, gz * W + gx) + (gp->span - ptl_tiles_tile_col(tl, lo));
        o.other = ptl_filter_col_begin(out, oc) + gp->other;
        out->gaps[(*gk)++] = o;
    }
    return PTL_OK;
}

ptl_status ptl_tiles_assemble(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
                                 uint32_t count, const ptl_allocator* alloc, ptl_open_field* out, ptl_error* err) {
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const uint32_t W = (uint32_t)world->world_width, D = (uint32_t)world->world_depth;
    const uint32_t ntiles = (uint32_t)t->tiles_x * (uint32_t)t->tiles_z;
    /* every tile exactly once, in its place, with well-formed columns; `at` finds a world
       column's tile when the column index is built in the world's column order */
    const ptl_vx_tile** at = ptl_mem_calloc(&a, ntiles, sizeof *at);
    if (!at) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    uint64_t total = 0, gaps = 0;
    ptl_status st = ptl_tiles_assemble_place(world, t, tiles, count, at, &total, &gaps, err);
    if (st < 0) {
        ptl_mem_free(&a, at, (size_t)ntiles * sizeof *at);
        return st;
    }
    out->p = *world;
    out->p.ox = out->p.oz = 0, out->p.width = (int32_t)W, out->p.depth = (int32_t)D, out->p.border = 0;
    out->alloc = a;
    const bool indexed = assemble_index(t, at, &a, out);
    ptl_mem_free(&a, at, (size_t)ntiles * sizeof *at);
    if (!indexed) goto oom;
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
        st = assemble_spans(tiles[i], out, err);
        if (st >= 0) st = assemble_gaps(tiles[i], out, &gk, err);
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
/* The world's open field being assembled from tile rows, in row order (ptl_tiles_bake). */
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
                if (!ptl_col_index_push(&as->out->col_index, as->spans.count, a))
                    return ptl_error_set(&as->err, PTL_ERR_NO_MEMORY, "bake: out of memory (column index)");
                for (uint32_t j = ptl_tiles_tile_col(tl, k), je = ptl_tiles_tile_col(tl, k + 1); j < je; ++j) {
                    ptl_open_span o = ptl_tiles_open_of(&tl->spans[j]);
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
                if (ptl_tiles_tile_col(tl, mid) <= o.span) lo = mid;
                else hi = mid;
            }
            size_t c = (size_t)(tl->z0 + (int32_t)(lo / (uint32_t)tl->w)) * W + (size_t)(tl->x0 + (int32_t)(lo % (uint32_t)tl->w));
            o.span = ptl_filter_col_begin(as->out, (uint32_t)c) + (o.span - ptl_tiles_tile_col(tl, lo));
            if (!PTL_PUSH(a, as->gaps, o) || !PTL_PUSH(a, as->gap_col, (uint32_t)c))
                return ptl_error_set(&as->err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        }
    }
    return PTL_OK;
}

/* One batch: job 0 assembles the previous band (if any), jobs 1.. run this band's tiles. */
typedef struct band_job {
    ptl_tiles_job tj;
    assembly* as;
    const ptl_vx_tile* prev; /* the previous band's tiles, rows of `rw` */
    uint32_t prev_count, rw;
} band_job;

static void run_band(void* data, uint32_t index) {
    band_job* j = data;
    if (index > 0) {
        ptl_tiles_run_job(&j->tj, index - 1);
        return;
    }
    for (uint32_t r = 0; r < j->prev_count / j->rw && j->as->st >= 0; ++r)
        j->as->st = assemble_row(j->as, j->prev + (size_t)r * j->rw, j->rw);
}

/* Runs the tiles band by band (all: the whole tiling, binned in `b`) and assembles them in row
   order. With a job system, band k runs beside the assembly of band k - 1 and the last pass only
   assembles; without one (nothing to overlap), each row is assembled as soon as it is done, so only
   one row of tiles is ever alive. */
static ptl_status assemble_bands(assembly* as, const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
                                 const ptl_job_system* jobs, const ptl_tiles_bins* b, const int32_t all[4],
                                 ptl_error* err) {
    const ptl_allocator* a = as->a;
    const uint32_t rw = (uint32_t)t->tiles_x;
    ptl_vx_tile* prev = NULL;
    uint32_t prev_n = 0;
    const bool overlap = jobs && jobs->run;
    const int32_t band = overlap ? PTL_VX_BAND_ROWS : 1;
    ptl_status st = PTL_OK;
    for (int32_t tz = 0; st >= 0 && (tz < t->tiles_z || prev); tz += band) {
        const int32_t tz1 = tz + band < t->tiles_z ? tz + band : t->tiles_z;
        const uint32_t n = tz < t->tiles_z ? (uint32_t)(tz1 - tz) * rw : 0;
        const int32_t range[4] = {0, tz, t->tiles_x, tz1};
        ptl_vx_tile* tiles = n ? ptl_mem_calloc(a, n, sizeof *tiles) : NULL;
        ptl_error* errs = n ? ptl_mem_calloc(a, n, sizeof *errs) : NULL;
        if (n && (!tiles || !errs)) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
        } else {
            band_job j = {{m, world, t, range, all, b, a, tiles, errs}, as, prev, prev_n, rw};
            const uint32_t count = n + 1;
            if (overlap) jobs->run(jobs->user, run_band, &j, count);
            else
                for (uint32_t i = 0; i < count; ++i) run_band(&j, i);
            /* the first failure in the bake's order: the earlier band's assembly, then tile order */
            if (as->st < 0) {
                st = as->st;
                if (err) *err = as->err;
            }
            for (uint32_t i = 0; i < n && st >= 0; ++i)
                if (tiles[i].status < 0) {
                    st = tiles[i].status;
                    if (err) *err = errs[i];
                }
        }
        ptl_mem_free(a, errs, (size_t)n * sizeof *errs);
        ptl_tiles_free_all(prev, prev_n, a);
        prev = tiles, prev_n = n;
        if (!overlap && st >= 0 && n) { /* this row now, in turn */
            band_job j = {{m, world, t, range, all, b, a, tiles, NULL}, as, prev, prev_n, rw};
            run_band(&j, 0);
            if (as->st < 0) {
                st = as->st;
                if (err) *err = as->err;
            }
            ptl_tiles_free_all(prev, prev_n, a);
            prev = NULL, prev_n = 0;
        }
    }
    ptl_tiles_free_all(prev, prev_n, a);
    return st;
}

/* The column index's end, and the gaps' far ends from indices inside their columns to the world's,
   sorted. */
static ptl_status assembly_finish(assembly* as, ptl_error* err) {
    const uint32_t W = as->W;
    ptl_open_field* out = as->out;
    if (!ptl_col_index_push(&out->col_index, as->spans.count, as->a))
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory (column index)");
    for (uint32_t g = 0; g < as->gaps.count; ++g) {
        ptl_vx_gap* gp = &as->gaps.data[g];
        uint32_t c = as->gap_col.data[g], x = c % W, z = c / W, k = gp->cols + 1u;
        uint32_t oc = (z + k * (uint32_t)DZ[gp->dir]) * W + x + k * (uint32_t)DX[gp->dir];
        gp->other += ptl_filter_col_begin(out, oc);
    }
    if (!ptl_sort(as->gaps.data, as->gaps.count, sizeof *as->gaps.data, cmp_gap, as->a))
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    return PTL_OK;
}

/* Hands the arrays over to the field. spans and col_of grew to their exact sizes together
   (grow_exact), so their common capacity is span_cap and there is nothing to shrink; the gaps
   grew by half again, and are shrunk to their size. */
static ptl_status assembly_hand_over(assembly* as, ptl_error* err) {
    ptl_open_field* out = as->out;
    out->spans = as->spans.data, out->col_of = as->col_of.data;
    out->span_count = as->spans.count, out->span_cap = as->spans.cap;
    as->spans.data = NULL, as->col_of.data = NULL;
    as->spans.count = as->spans.cap = as->col_of.count = as->col_of.cap = 0;
    if (!as->gaps.count) return PTL_OK;
    out->gaps = ptl_mem_realloc(as->a, as->gaps.data, (size_t)as->gaps.cap * sizeof *as->gaps.data,
                                (size_t)as->gaps.count * sizeof *as->gaps.data);
    if (!out->gaps) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    out->gap_count = as->gaps.count;
    as->gaps.data = NULL, as->gaps.count = as->gaps.cap = 0;
    return PTL_OK;
}

static void assembly_free(assembly* as) {
    PTL_ARRAY_FREE(as->a, as->spans);
    PTL_ARRAY_FREE(as->a, as->col_of);
    PTL_ARRAY_FREE(as->a, as->gaps);
    PTL_ARRAY_FREE(as->a, as->gap_col);
}

ptl_status ptl_tiles_bake(const ptl_trimesh* m, const ptl_vx_params* world, const ptl_vx_tiling* t,
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
    if (ptl_col_index_init(&out->col_index, (uint32_t)cols, 1, &a) < 0)
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory (%zu columns)", cols);
    assembly as;
    memset(&as, 0, sizeof as);
    as.out = out, as.a = &a, as.W = W, as.keep_ceil = keep_ceil;
    ptl_status st = PTL_OK;
    const int32_t all[4] = {0, 0, t->tiles_x, t->tiles_z};
    ptl_tiles_bins b; /* the triangles binned once for every tile */
    memset(&b, 0, sizeof b);
    if (ptl_tiles_bin_triangles(m, world, t, all, NULL, jobs, &a, &b) < 0)
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory binning triangles to tiles");
    if (st >= 0) st = assemble_bands(&as, m, world, t, jobs, &b, all, err);
    ptl_tiles_bin_free(&b, &a);
    *solid_spans = as.solid_spans;
    if (st >= 0) st = assembly_finish(&as, err);
    if (st >= 0) st = assembly_hand_over(&as, err);
    assembly_free(&as);
    if (st < 0) {
        ptl_open_field_free(out);
        return st;
    }
    return ptl_error_ok(err);
}
