/* The layer map's lookups, the bands the layer stream is fed with, and the layers of a whole open
   field through the stream (layer_map.h). */
#include <string.h>

#include "../../runtime/internal.h"
#include "../contours/contours.h"
#include "../voxel/tiles.h"
#include "layer_map.h"
#include "layer_stream.h"

static const int DX[4] = {-1, 0, 1, 0};
static const int DZ[4] = {0, 1, 0, -1};

void ptl_layer_map_free(ptl_layer_map* m) {
    if (!m || !m->alloc.free) {
        if (m) memset(m, 0, sizeof *m);
        return;
    }
    const ptl_allocator* a = &m->alloc;
    ptl_mem_free(a, m->block_first, (size_t)m->block_first_cap * sizeof *m->block_first);
    ptl_mem_free(a, m->block_bls, (size_t)m->block_bls_cap * sizeof *m->block_bls);
    ptl_mem_free(a, m->bl, (size_t)m->bl_cap * sizeof *m->bl);
    ptl_mem_free(a, m->pool, m->pool_size);
    ptl_mem_free(a, m->links, (size_t)m->link_cap * sizeof *m->links);
    ptl_mem_free(a, m->gaps, (size_t)m->gap_cap * sizeof *m->gaps);
    ptl_mem_free(a, m->layer_first, ((size_t)m->layer_count + 1) * sizeof *m->layer_first);
    ptl_mem_free(a, m->layer_bls, (size_t)m->layer_bls_cap * sizeof *m->layer_bls);
    memset(m, 0, sizeof *m);
}

/* The place of column (lx, lz) among block-layer r's spans (bit order: rows, then x). */
static uint32_t rank_of(const ptl_layer_map* m, const ptl_lmap_bl* r, uint32_t lx, uint32_t lz) {
    uint16_t before;
    memcpy(&before, m->pool + r->data + 2 * lz, 2);
    return before + ptl_lmap_popcount(ptl_lmap_row(m, r, lz) & ((1u << lx) - 1u));
}

/* The floor of block-layer r's span of rank k (its fbits are not 0). */
static PTL_VX_INLINE_ALWAYS uint16_t floor_of_rank(const ptl_layer_map* m, const ptl_lmap_bl* r, uint32_t k) {
    const uint8_t* q = m->pool + r->data + 2 * PTL_LMAP_B;
    uint32_t off;
    if (r->fbits == 4) off = (uint32_t)(q[k / 2] >> (4 * (k & 1))) & 15u;
    else if (r->fbits == 8) off = q[k];
    else {
        uint16_t v;
        memcpy(&v, q + 2 * k, 2);
        off = v;
    }
    return (uint16_t)(r->floor_min + off);
}

uint16_t ptl_lmap_floor(const ptl_layer_map* m, uint32_t i, int64_t x, int64_t z) {
    const ptl_lmap_bl* r = &m->bl[i];
    if (!r->fbits) return r->floor_min;
    return floor_of_rank(m, r, rank_of(m, r, (uint32_t)(x % PTL_LMAP_B), (uint32_t)(z % PTL_LMAP_B)));
}

void ptl_lmap_layer_floor_row(const ptl_layer_map* m, uint32_t l, int64_t x0, int64_t z, uint32_t n, uint16_t none,
                              uint16_t* out) {
    for (uint32_t i = 0; i < n; ++i) out[i] = none;
    const int64_t xa = x0 > 0 ? x0 : 0, xb = x0 + (int64_t)n < m->p.width ? x0 + (int64_t)n - 1 : m->p.width - 1;
    if (z < 0 || z >= m->p.depth || xa > xb) return;
    const uint32_t lz = (uint32_t)(z % PTL_LMAP_B), brow = (uint32_t)(z / PTL_LMAP_B) * m->nbx;
    for (int64_t bx0 = xa - xa % PTL_LMAP_B; bx0 <= xb; bx0 += PTL_LMAP_B) {
        const uint32_t a = (uint32_t)(xa > bx0 ? xa - bx0 : 0);
        const uint32_t e = (uint32_t)(xb < bx0 + PTL_LMAP_B - 1 ? xb - bx0 : PTL_LMAP_B - 1);
        const uint32_t want = (~0u << a) & (e == 31 ? ~0u : (2u << e) - 1u), b = brow + (uint32_t)(bx0 / PTL_LMAP_B);
        uint16_t* o = out + (bx0 - x0);
        uint32_t done = 0; /* columns taken by an earlier block-layer of l (ptl_lmap_find takes the first) */
        for (uint32_t k = m->block_first[b], kend = m->block_first[b + 1]; k < kend && done != want; ++k) {
            const ptl_lmap_bl* r = &m->bl[m->block_bls[k]];
            if (r->world != l) continue;
            const uint32_t row = ptl_lmap_row(m, r, lz), take = row & want & ~done;
            if (!take) continue;
            done |= take;
            if (!r->fbits) {
                for (uint32_t t = take; t; t &= t - 1) o[__builtin_ctz(t)] = r->floor_min;
                continue;
            }
            /* one running rank along the row: the rank of its first column taken, then one more per
               span of the row */
            uint16_t before;
            memcpy(&before, m->pool + r->data + 2 * lz, 2);
            const uint32_t lx = (uint32_t)__builtin_ctz(take), hx = 31u - (uint32_t)__builtin_clz(take);
            uint32_t rank = before + ptl_lmap_popcount(row & ((1u << lx) - 1u));
            const uint32_t span = row & (~0u << lx) & (hx == 31 ? ~0u : (2u << hx) - 1u); /* the row's spans lx .. hx */
            for (uint32_t t = span; t; t &= t - 1, ++rank) {
                const uint32_t x = (uint32_t)__builtin_ctz(t);
                if (take >> x & 1u) o[x] = floor_of_rank(m, r, rank);
            }
        }
    }
}

uint16_t ptl_lmap_tag(const ptl_layer_map* m, uint32_t i, int64_t x, int64_t z) {
    const ptl_lmap_bl* r = &m->bl[i];
    if (!r->tags_mixed) return r->tag;
    const uint32_t k = rank_of(m, r, (uint32_t)(x % PTL_LMAP_B), (uint32_t)(z % PTL_LMAP_B));
    uint16_t t;
    memcpy(&t, m->pool + r->data + 2 * PTL_LMAP_B + (r->count * r->fbits + 7) / 8 + 2 * k, 2);
    return t;
}

uint32_t ptl_lmap_edge_kind(const ptl_layer_map* m, uint32_t l, int64_t x, int64_t z, int dir) {
    const uint32_t i = ptl_lmap_find(m, l, x, z);
    if (i == PTL_VX_NONE) return PTL_NONE;
    const uint32_t W = (uint32_t)m->p.width, col = (uint32_t)z * W + (uint32_t)x;
    const uint32_t step = dir == 0 || dir == 2 ? W : 1;
    /* The runs of (i, dir): the first at or after (i, dir, 0). */
    uint32_t lo = 0, hi = m->link_count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const ptl_lmap_link* r = &m->links[mid];
        if (r->a < i || (r->a == i && r->dir < dir)) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < m->link_count && m->links[lo].a == i && m->links[lo].dir == dir; ++lo) {
        const ptl_lmap_link* r = &m->links[lo];
        if (col < r->col || (col - r->col) % step != 0 || (col - r->col) / step >= r->len) continue;
        const uint32_t o = m->bl[r->b].world;
        return o == PTL_VX_NONE || o == l ? PTL_NONE : o;
    }
    /* No link: a gap link? */
    lo = 0, hi = m->gap_count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const ptl_lmap_gap* g = &m->gaps[mid];
        if (g->a < i || (g->a == i && (g->col < col || (g->col == col && g->dir < dir)))) lo = mid + 1;
        else hi = mid;
    }
    if (lo == m->gap_count || m->gaps[lo].a != i || m->gaps[lo].col != col || m->gaps[lo].dir != dir) return PTL_NONE;
    const uint32_t o = m->bl[m->gaps[lo].b].world;
    if (o == PTL_VX_NONE || o >= (1u << 24)) return PTL_NONE;
    return PTL_KIND_GAP | ((uint32_t)m->gaps[lo].cols << 24) | o;
}

/* The first entry at or after block-layer i in an array sorted by its `a` first (links, gaps). */
#define FIRST_OF(arr, count, i, out)                                   \
    do {                                                               \
        uint32_t lo_ = 0, hi_ = (count);                               \
        while (lo_ < hi_) {                                            \
            const uint32_t mid_ = lo_ + (hi_ - lo_) / 2;               \
            if ((arr)[mid_].a < (i)) lo_ = mid_ + 1;                   \
            else hi_ = mid_;                                           \
        }                                                              \
        (out) = lo_;                                                   \
    } while (0)

bool ptl_lmap_layer_key(const ptl_layer_map* m, const ptl_layer_info* li, uint32_t l, const ptl_allocator* a,
                        ptl_lmap_key* out) {
    out->count = 0;
    const uint32_t k0 = m->layer_first[l], k1 = m->layer_first[l + 1];
    if (!PTL_RESERVE(a, *out, 6)) return false;
    const uint32_t head[6] = {l, (uint32_t)li->x0, (uint32_t)li->z0, (uint32_t)li->x1, (uint32_t)li->z1, k1 - k0};
    memcpy(out->data, head, sizeof head);
    out->count = 6;
    for (uint32_t k = k0; k < k1; ++k) {
        const uint32_t i = m->layer_bls[k];
        const ptl_lmap_bl* r = &m->bl[i];
        const uint32_t rows = (uint32_t)(r->z1 - r->z0 + 1);
        uint32_t g, e;
        FIRST_OF(m->links, m->link_count, i, g);
        for (e = g; e < m->link_count && m->links[e].a == i; ++e) {}
        uint32_t gg, ge;
        FIRST_OF(m->gaps, m->gap_count, i, gg);
        for (ge = gg; ge < m->gap_count && m->gaps[ge].a == i; ++ge) {}
        if (!PTL_RESERVE(a, *out, (uint64_t)out->count + 4 + rows + 3 * (uint64_t)(e - g) + 3 * (uint64_t)(ge - gg)))
            return false;
        out->data[out->count++] = r->block;
        out->data[out->count++] = (uint32_t)r->x0 | (uint32_t)r->z0 << 8 | (uint32_t)r->x1 << 16 | (uint32_t)r->z1 << 24;
        memcpy(out->data + out->count, m->pool + r->rows, 4 * (size_t)rows);
        out->count += rows;
        out->data[out->count++] = e - g;
        for (; g < e; ++g) { /* as ptl_lmap_edge_kind reads a link */
            const ptl_lmap_link* q = &m->links[g];
            const uint32_t o = m->bl[q->b].world;
            out->data[out->count++] = (uint32_t)q->dir | (uint32_t)q->len << 8;
            out->data[out->count++] = q->col;
            out->data[out->count++] = o == PTL_VX_NONE || o == l ? PTL_NONE : o;
        }
        out->data[out->count++] = ge - gg;
        for (; gg < ge; ++gg) { /* as ptl_lmap_edge_kind reads a gap link */
            const ptl_lmap_gap* q = &m->gaps[gg];
            const uint32_t o = m->bl[q->b].world;
            out->data[out->count++] = (uint32_t)q->dir | (uint32_t)q->cols << 8;
            out->data[out->count++] = q->col;
            out->data[out->count++] = o == PTL_VX_NONE || o >= (1u << 24) ? PTL_NONE : o;
        }
    }
    return true;
}
#undef FIRST_OF

bool ptl_lmap_layer_floor_key(const ptl_layer_map* m, uint32_t l, const ptl_allocator* a, ptl_lmap_key* out) {
    for (uint32_t k = m->layer_first[l]; k < m->layer_first[l + 1]; ++k) {
        const ptl_lmap_bl* r = &m->bl[m->layer_bls[k]];
        const uint32_t rows = (uint32_t)(r->z1 - r->z0 + 1);
        const uint32_t fbytes = r->fbits ? (r->count * r->fbits + 7) / 8 : 0, fwords = (fbytes + 3) / 4;
        if (!PTL_RESERVE(a, *out, (uint64_t)out->count + 4 + rows + fwords)) return false;
        uint32_t* o = out->data + out->count;
        o[0] = r->block;
        o[1] = (uint32_t)r->x0 | (uint32_t)r->z0 << 8 | (uint32_t)r->x1 << 16 | (uint32_t)r->z1 << 24;
        o[2] = (uint32_t)r->floor_min | (uint32_t)r->floor_max << 16;
        o[3] = r->fbits;
        memcpy(o + 4, m->pool + r->rows, 4 * (size_t)rows);
        if (fwords) o[4 + rows + fwords - 1] = 0; /* the last word's padding */
        if (fbytes) memcpy(o + 4 + rows, m->pool + r->data + 2 * PTL_LMAP_B, fbytes);
        out->count += 4 + rows + fwords;
    }
    return true;
}

uint32_t ptl_lmap_layer_at(const ptl_layer_map* m, int64_t x, int64_t z, uint16_t floor) {
    if (x < 0 || z < 0 || x >= m->p.width || z >= m->p.depth) return PTL_VX_NONE;
    const uint32_t b = (uint32_t)(z / PTL_LMAP_B) * m->nbx + (uint32_t)(x / PTL_LMAP_B);
    const uint32_t lx = (uint32_t)(x % PTL_LMAP_B), lz = (uint32_t)(z % PTL_LMAP_B);
    for (uint32_t k = m->block_first[b], e = m->block_first[b + 1]; k < e; ++k) {
        const uint32_t i = m->block_bls[k];
        if ((ptl_lmap_row(m, &m->bl[i], lz) >> lx & 1u) && m->bl[i].world != PTL_VX_NONE && ptl_lmap_floor(m, i, x, z) == floor)
            return m->bl[i].world;
    }
    return PTL_VX_NONE;
}

/* ---- Bands ------------------------------------------------------------------------------------- */

void ptl_lmap_band_reset(ptl_vx_band* b, const ptl_vx_params* world, const ptl_allocator* a) {
    if (!b->f.alloc.alloc) {
        memset(b, 0, sizeof *b);
        b->f.alloc = ptl_allocator_resolve(a);
        b->f.col_index.width = 4;
    }
    b->f.p = *world;
    b->f.p.ox = b->f.p.oz = 0, b->f.p.border = 0;
    b->f.p.depth = 0;
    b->f.span_count = 0;
    b->f.gap_count = 0;
    b->f.col_index.cols = 0, b->f.col_index.filled = 0;
}

void ptl_lmap_band_free(ptl_vx_band* b) {
    if (!b->f.alloc.alloc) return;
    const ptl_allocator* a = &b->f.alloc;
    ptl_mem_free(a, b->f.col_index.off.u32, (size_t)b->col_cap * sizeof(uint32_t));
    ptl_mem_free(a, b->f.spans, (size_t)b->f.span_cap * sizeof *b->f.spans);
    ptl_mem_free(a, b->f.col_of, (size_t)b->f.span_cap * sizeof *b->f.col_of);
    ptl_mem_free(a, b->f.gaps, (size_t)b->gap_cap * sizeof *b->f.gaps);
    memset(b, 0, sizeof *b);
}

/* Room for one more row of W columns and `spans` spans, `gaps` gaps. */
static bool band_room(ptl_vx_band* b, uint64_t spans, uint64_t gaps) {
    const ptl_allocator* a = &b->f.alloc;
    const uint64_t W = (uint64_t)b->f.p.width, cols = (uint64_t)(b->f.p.depth + 1) * W + 1;
    if (cols > b->col_cap) {
        const uint64_t cap = cols > (uint64_t)b->col_cap * 2 ? cols : (uint64_t)b->col_cap * 2;
        void* p = ptl_mem_realloc(a, b->f.col_index.off.u32, (size_t)b->col_cap * sizeof(uint32_t), (size_t)cap * sizeof(uint32_t));
        if (!p) return false;
        b->f.col_index.off.u32 = p, b->col_cap = (uint32_t)cap;
    }
    const uint64_t ns = (uint64_t)b->f.span_count + spans;
    if (ns > b->f.span_cap) {
        const uint64_t cap = ns > (uint64_t)b->f.span_cap * 3 / 2 ? ns : (uint64_t)b->f.span_cap * 3 / 2;
        void* p = ptl_mem_realloc(a, b->f.spans, (size_t)b->f.span_cap * sizeof *b->f.spans, (size_t)cap * sizeof *b->f.spans);
        if (!p) return false;
        b->f.spans = p;
        void* q = ptl_mem_realloc(a, b->f.col_of, (size_t)b->f.span_cap * sizeof *b->f.col_of, (size_t)cap * sizeof *b->f.col_of);
        if (!q) { /* spans grew, col_of did not: shrink spans back so both keep one capacity */
            void* back = ptl_mem_realloc(a, p, (size_t)cap * sizeof *b->f.spans, (size_t)b->f.span_cap * sizeof *b->f.spans);
            if (!back) { /* not even that: the band is lost (the caller fails and frees it), not its memory */
                ptl_mem_free(a, p, (size_t)cap * sizeof *b->f.spans);
                b->f.span_count = 0;
            }
            b->f.spans = back;
            return false;
        }
        b->f.col_of = q, b->f.span_cap = (uint32_t)cap;
    }
    const uint64_t ng = (uint64_t)b->f.gap_count + gaps;
    if (ng > b->gap_cap) {
        const uint64_t cap = ng > (uint64_t)b->gap_cap * 2 ? ng : (uint64_t)b->gap_cap * 2;
        void* p = ptl_mem_realloc(a, b->f.gaps, (size_t)b->gap_cap * sizeof *b->f.gaps, (size_t)cap * sizeof *b->f.gaps);
        if (!p) return false;
        b->f.gaps = p, b->gap_cap = (uint32_t)cap;
    }
    return true;
}

/* The first of gaps[0 .. n) (sorted by span) whose span is `span` or later. */
static uint32_t first_gap(const ptl_vx_gap* gaps, uint32_t n, uint32_t span) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (gaps[mid].span < span) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Closes the row just filled: the column index's end entry. */
static void band_row_done(ptl_vx_band* b) {
    b->f.p.depth++;
    b->f.col_index.cols = (uint32_t)b->f.p.depth * (uint32_t)b->f.p.width;
    b->f.col_index.off.u32[b->f.col_index.cols] = b->f.span_count;
    b->f.col_index.filled = b->f.col_index.cols + 1;
}

ptl_status ptl_lmap_band_add_tiles(ptl_vx_band* b, const ptl_vx_tile* const* tiles, uint32_t count, int32_t z) {
    uint64_t spans = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const ptl_vx_tile* t = tiles[i];
        const uint32_t r = (uint32_t)(z - t->z0) * (uint32_t)t->w;
        spans += ptl_tiles_tile_col(t, r + (uint32_t)t->w) - ptl_tiles_tile_col(t, r);
    }
    if (b->f.span_count + spans >= PTL_VX_NONE) return PTL_ERR_BAD_INPUT;
    if (!band_room(b, spans, 0)) return PTL_ERR_NO_MEMORY;
    const uint32_t W = (uint32_t)b->f.p.width, row = (uint32_t)b->f.p.depth;
    for (uint32_t i = 0; i < count; ++i) {
        const ptl_vx_tile* t = tiles[i];
        const uint32_t r = (uint32_t)(z - t->z0) * (uint32_t)t->w;
        /* the tile's gaps of this row: spans [first, end) of the tile */
        const uint32_t first = ptl_tiles_tile_col(t, r), end = ptl_tiles_tile_col(t, r + (uint32_t)t->w);
        const uint32_t base = b->f.span_count;
        for (int32_t x = 0; x < t->w; ++x) {
            const uint32_t c = row * W + (uint32_t)(t->x0 + x);
            b->f.col_index.off.u32[c] = b->f.span_count;
            for (uint32_t j = ptl_tiles_tile_col(t, r + (uint32_t)x), je = ptl_tiles_tile_col(t, r + (uint32_t)x + 1); j < je; ++j) {
                b->f.spans[b->f.span_count] = ptl_tiles_open_of(&t->spans[j]);
                b->f.col_of[b->f.span_count++] = c;
            }
        }
        for (uint32_t g = first_gap(t->gaps, t->gap_count, first); g < t->gap_count && t->gaps[g].span < end; ++g) {
            if (!band_room(b, 0, 1)) return PTL_ERR_NO_MEMORY;
            ptl_vx_gap o = t->gaps[g];
            o.span = base + (o.span - first);
            b->f.gaps[b->f.gap_count++] = o;
        }
    }
    band_row_done(b);
    return PTL_OK;
}

ptl_status ptl_lmap_band_add_field(ptl_vx_band* b, const ptl_open_field* of, int32_t z) {
    const uint32_t W = (uint32_t)b->f.p.width, row = (uint32_t)b->f.p.depth;
    const uint32_t c0 = (uint32_t)z * W, first = ptl_filter_col_begin(of, c0), end = ptl_filter_col_begin(of, c0 + W);
    if (!band_room(b, end - first, 0)) return PTL_ERR_NO_MEMORY;
    const uint32_t base = b->f.span_count;
    for (uint32_t x = 0; x < W; ++x) {
        const uint32_t c = row * W + x;
        b->f.col_index.off.u32[c] = base + (ptl_filter_col_begin(of, c0 + x) - first);
    }
    if (end > first) memcpy(b->f.spans + base, of->spans + first, (size_t)(end - first) * sizeof *of->spans);
    for (uint32_t s = first; s < end; ++s) b->f.col_of[base + s - first] = row * W + (ptl_filter_span_col(of, s) - c0);
    b->f.span_count += end - first;
    /* gaps (sorted by span): far ends from the field's indices to indices inside their columns */
    for (uint32_t g = first_gap(of->gaps, of->gap_count, first); g < of->gap_count && of->gaps[g].span < end; ++g) {
        if (!band_room(b, 0, 1)) return PTL_ERR_NO_MEMORY;
        ptl_vx_gap o = of->gaps[g];
        const uint32_t c = ptl_filter_span_col(of, o.span), k = o.cols + 1u;
        const uint32_t oc = (uint32_t)((int64_t)c + (int64_t)k * (DZ[o.dir & 3] * (int64_t)W + DX[o.dir & 3]));
        o.span = base + (o.span - first);
        o.other -= ptl_filter_col_begin(of, oc);
        b->f.gaps[b->f.gap_count++] = o;
    }
    band_row_done(b);
    return PTL_OK;
}

/* ---- Layers of a whole field ----------------------------------------------------------------- */

/* The stream over a whole field's rows; its spans get their layers (PTL_VX_NONE: dropped). */
ptl_status ptl_lmap_layers_of_field(ptl_open_field* of, const float* seeds, uint32_t seed_count, const ptl_job_system* jobs,
                                  const ptl_allocator* alloc, ptl_layer_set* ls, ptl_layer_map* map, ptl_error* err) {
    ptl_layer_map own;
    if (!map) map = &own;
    memset(ls, 0, sizeof *ls);
    memset(map, 0, sizeof *map);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_vx_params world = of->p;
    ptl_layer_stream* s;
    ptl_status st = ptl_lstream_create(&world, seeds, seed_count, jobs, &a, &s, err);
    if (st < 0) return st;
    ptl_vx_band band;
    memset(&band, 0, sizeof band);
    ptl_lmap_band_reset(&band, &world, &a);
    const uint32_t W = (uint32_t)of->p.width;
    for (int32_t z0 = 0; z0 < of->p.depth && st >= 0; z0 += (int32_t)PTL_LMAP_B) {
        const int32_t z1 = z0 + (int32_t)PTL_LMAP_B < of->p.depth ? z0 + (int32_t)PTL_LMAP_B : of->p.depth;
        ptl_lmap_band_reset(&band, &world, &a);
        for (int32_t z = z0; z < z1 && st >= 0; ++z)
            if ((st = ptl_lmap_band_add_field(&band, of, z)) < 0) st = ptl_error_set(err, st, "layers: out of memory");
        if (st >= 0) st = ptl_lstream_band(s, &band.f, err);
        if (st >= 0) { /* the block-layer ids back to the field's spans (the band's are a copy of a range) */
            const uint32_t first = ptl_filter_col_begin(of, (uint32_t)z0 * W);
            for (uint32_t i = 0; i < band.f.span_count; ++i) of->spans[first + i].layer = band.f.spans[i].layer;
        }
    }
    ptl_lmap_band_free(&band);
    if (st < 0) {
        ptl_lstream_destroy(s);
    } else {
        st = ptl_lstream_finish(s, ls, map, err);
    }
    if (st >= 0)
        for (uint32_t i = 0; i < of->span_count; ++i) of->spans[i].layer = map->bl[of->spans[i].layer].world;
    else
        for (uint32_t i = 0; i < of->span_count; ++i) of->spans[i].layer = PTL_VX_NONE;
    if (map == &own) ptl_layer_map_free(&own);
    return st;
}

ptl_status ptl_lmap_build_layers(ptl_open_field* of, const float* seeds, uint32_t seed_count, const ptl_allocator* alloc,
                               ptl_layer_set* out, ptl_error* err) {
    return ptl_lmap_build_layers_jobs(of, seeds, seed_count, NULL, alloc, out, err);
}

ptl_status ptl_lmap_build_layers_jobs(ptl_open_field* of, const float* seeds, uint32_t seed_count,
                                    const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_set* out,
                                    ptl_error* err) {
    if (!of || !out || (seed_count && !seeds))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_lmap_build_layers: NULL argument");
    return ptl_lmap_layers_of_field(of, seeds, seed_count, jobs, alloc, out, NULL, err);
}
