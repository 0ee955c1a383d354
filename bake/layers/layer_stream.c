/* Layers band by band (layer_map.h): the layer stage of the bake without the world's open field.

   A band is a row of blocks: PTL_VX_LAYER_BLOCK rows of the world's columns in full width, given in
   order from z = 0. For each band:
   1. Each block floods its own columns (layers.c, the ordered flood of ANavMG §6.2.2.2 inside the
      block), as jobs; its block-layers get ids that continue the previous bands'.
   2. Each block describes its block-layers for the map (columns, floors, tags) and lists its links
      between different block-layers as runs (jobs again).
   3. The borders: between the band's blocks (x = k B) and with the previous band's last row (kept as
      a strip), the conflict pairs and candidates of the stitch (layer_stitch.c) and the links across
      the border as runs; the seeds' nearest spans among the band's; the gap links, whose far ends
      are matched at the end.
   The band is then the caller's again (a row of tiles can be freed as soon as its rows are given).
   When the tiles' size is a multiple of the block size, each tile does all this for its own blocks
   inside its job (ptl_lstream_tile: the blocks of a tile need only the tile's columns), keeping the
   four edges of its columns as strips, and the tiles are then added in order (ptl_lstream_add_tile:
   their ids offset, the borders between tiles paired from the strips): no row of tiles is ever
   held, only each tile while it runs.

   At the end: the stitch (candidates in their flood order), then what layers.c did on the whole
   field, on the graph of block-layers: small islands (a layer linked to no other, by links or gap
   links), reachability from the seeds (every layer is connected, so a layer is reached wholly or not
   at all, and following links between layers is following them between spans), and the dense
   numbering in order of each layer's lowest span (floor, then the world's span order). Every choice
   is made as it was over the whole field, so the layers, and the navmesh, are the same bytes. The
   world's span order is (column, place in the column): a span is named by its position key,
   floor << 44 | column << 16 | place, whatever piece of the world it was seen in. */
#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "../contours/contours.h"
#include "layer_stream_internal.h"

static const int DX[4] = {-1, 0, 1, 0};
static const int DZ[4] = {0, 1, 0, -1};

/* A span's position in the world's order: its column (below 2^28) and its place in the column. */
static inline uint64_t pos_key(uint32_t col, uint32_t k) { return (uint64_t)col << 16 | k; }
static inline uint64_t floor_key(uint32_t floor, uint64_t pos) { return (uint64_t)floor << 44 | pos; }

/* A tile's layers (ptl_lstream_tile), until ptl_lstream_add_tile. */
struct ptl_tile_layers {
    int32_t tx, tz;
    ptl_lstream_acc acc;
    ptl_lstream_strip edge[4]; /* the spans along its four sides (EDGE_*), for the borders with its neighbours */
    ptl_status st;
};
enum { EDGE_LEFT = 0, EDGE_FIRST_ROW = 1, EDGE_RIGHT = 2, EDGE_LAST_ROW = 3 };

static void strip_free(ptl_lstream_strip* t, const ptl_allocator* a) {
    PTL_ARRAY_FREE(a, t->start);
    PTL_ARRAY_FREE(a, t->sp);
    memset(t, 0, sizeof *t);
}

static void lacc_free(ptl_lstream_acc* c, uint32_t seed_count, const ptl_allocator* a) {
    PTL_ARRAY_FREE(a, c->bl);
    PTL_ARRAY_FREE(a, c->pool);
    PTL_ARRAY_FREE(a, c->links);
    PTL_ARRAY_FREE(a, c->gaps);
    PTL_ARRAY_FREE(a, c->conf);
    ptl_pair_set_free(&c->conf_set, a);
    PTL_ARRAY_FREE(a, c->cand);
    ptl_mem_free(a, c->seeds, (size_t)seed_count * sizeof *c->seeds);
    memset(c, 0, sizeof *c);
}

static bool lacc_init(ptl_lstream_acc* c, uint32_t seed_count, const ptl_allocator* a) {
    memset(c, 0, sizeof *c);
    if (!seed_count) return true;
    c->seeds = ptl_mem_calloc(a, seed_count, sizeof *c->seeds);
    return c->seeds != NULL;
}

ptl_status ptl_lstream_create(const ptl_vx_params* world, const float* seeds, uint32_t seed_count,
                              const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_stream** out,
                              ptl_error* err) {
    *out = NULL;
    if (seed_count && !seeds) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "layers: NULL seeds");
    for (uint32_t i = 0; i < 3 * seed_count; ++i)
        if (!isfinite(seeds[i])) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "layers: seed %u is not finite", i / 3);
    if ((uint64_t)world->width * (uint64_t)world->depth > (1u << 28))
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "layers: more than 2^28 columns");
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_layer_stream* s = ptl_mem_calloc(&a, 1, sizeof *s);
    if (!s) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory");
    s->p = *world;
    s->p.ox = s->p.oz = 0, s->p.border = 0;
    s->jobs = jobs && jobs->run ? jobs : NULL;
    s->a = a;
    s->nbx = ((uint32_t)world->width + PTL_LMAP_B - 1) / PTL_LMAP_B;
    s->nbz = ((uint32_t)world->depth + PTL_LMAP_B - 1) / PTL_LMAP_B;
    s->seed_count = seed_count;
    if (!lacc_init(&s->acc, seed_count, &a) || (seed_count && !(s->seeds = ptl_mem_calloc(&a, seed_count, sizeof *s->seeds)))) {
        ptl_lstream_destroy(s);
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory");
    }
    if (seed_count) {
        memcpy(s->first_seed, seeds, sizeof s->first_seed);
        const ptl_vx_params* p = &s->p;
        for (uint32_t i = 0; i < seed_count; ++i) {
            const float* pt = seeds + 3 * (size_t)i;
            ptl_lstream_seed_at* b = &s->seeds[i];
            double fu = ((double)pt[0] - p->bmin[0]) / p->cs, fv = ((double)pt[2] - p->bmin[2]) / p->cs;
            b->hw = ((double)pt[1] - p->bmin[1]) / p->ch;
            b->valid = fu > -1e9 && fu < 1e9 && fv > -1e9 && fv < 1e9;
            if (b->valid) b->cx = (int64_t)floor(fu), b->cz = (int64_t)floor(fv);
        }
    }
    *out = s;
    return ptl_error_ok(err);
}

void ptl_lstream_set_jobs(ptl_layer_stream* s, const ptl_job_system* jobs) { s->jobs = jobs && jobs->run ? jobs : NULL; }

void ptl_lstream_destroy(ptl_layer_stream* s) {
    if (!s) return;
    ptl_allocator a = s->a;
    lacc_free(&s->acc, s->seed_count, &a);
    strip_free(&s->last_row, &a);
    strip_free(&s->tile_right, &a);
    for (uint32_t i = 0; s->tile_bottom && i < s->tiles_x; ++i) strip_free(&s->tile_bottom[i], &a);
    ptl_mem_free(&a, s->tile_bottom, (size_t)s->tiles_x * sizeof *s->tile_bottom);
    ptl_mem_free(&a, s->seeds, (size_t)s->seed_count * sizeof *s->seeds);
    ptl_mem_free(&a, s, sizeof *s);
}

/* ---- A piece's blocks -------------------------------------------------------------------------- */

/* What a block gives the map. */
typedef struct map_out {
    PTL_ARRAY(ptl_lmap_bl) bl;
    PTL_ARRAY(uint8_t) pool;
    PTL_ARRAY(ptl_lmap_link) links;
    ptl_status st;
} map_out;

/* A piece of the world: field f, whose column (0, 0) is the world's (wx0, wz0) (multiples of the
   block size), with blocks from there. */
typedef struct piece {
    ptl_vx_block_jobs bj;
    map_out* mo;
    const ptl_layer_stream* s;
    uint32_t wx0, wz0, nbx, nbz;
} piece;

/* The world column of field column c. */
static inline uint32_t world_col(const piece* pc, uint32_t c) {
    const uint32_t w = (uint32_t)pc->bj.of->p.width;
    return (pc->wz0 + c / w) * (uint32_t)pc->s->p.width + pc->wx0 + c % w;
}

/* Links sorted by (a, dir, b, line, place along the run): the run's local line and place are kept
   in pad (line * B + place) while sorting. */
static int cmp_link_run(const void* x, const void* y) {
    const ptl_lmap_link *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    if (a->dir != b->dir) return a->dir < b->dir ? -1 : 1;
    if (a->b != b->b) return a->b < b->b ? -1 : 1;
    return a->pad < b->pad ? -1 : a->pad > b->pad;
}

/* Merges consecutive links (sorted by cmp_link_run) into runs; returns the new count. */
static uint32_t merge_runs(ptl_lmap_link* l, uint32_t n) {
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (w > 0) {
            ptl_lmap_link* r = &l[w - 1];
            if (r->a == l[i].a && r->dir == l[i].dir && r->b == l[i].b && r->pad / PTL_LMAP_B == l[i].pad / PTL_LMAP_B &&
                r->pad % PTL_LMAP_B + r->len == l[i].pad % PTL_LMAP_B && r->len < 255) {
                r->len++;
                continue;
            }
        }
        l[w++] = l[i];
    }
    for (uint32_t i = 0; i < w; ++i) l[i].pad = 0;
    return w;
}

/* One block being described (map_block): where it lies, and per block-layer the spans written
   so far and its rows of columns. */
typedef struct block_map {
    const piece* j;
    const ptl_open_field* of;
    map_out* o;
    uint32_t nl, base;         /* its block-layers: ids base .. base + nl */
    uint32_t x0, z0, w, d, W;  /* its columns in the piece, and the piece's width */
    uint32_t* at;              /* nl */
    uint32_t* bits;            /* nl * B */
} block_map;

_Static_assert(PTL_LMAP_B <= 32, "a block's row of columns, and its rows, are bits of a uint32");

/* Block-layer ids, bounds, floor range, tags, and the links from its spans to spans of other
   block-layers inside the piece (those leaving it: the strips). */
static PTL_VX_INLINE_ALWAYS bool map_block_scan_w(block_map* m, uint32_t b, uint32_t width) {
    const ptl_vx_col_index* ix = &m->of->col_index;
    uint32_t off[4]; /* the column offsets of the directions, once */
    for (int d = 0; d < 4; ++d) off[d] = ptl_filter_ncol(m->of->p.width, 0, d);
    const piece* j = m->j;
    const ptl_open_field* of = m->of;
    const ptl_allocator* a = j->bj.a;
    map_out* o = m->o;
    const uint32_t B = PTL_LMAP_B, W = m->W, D = (uint32_t)of->p.depth, base = m->base;
    for (uint32_t i = 0; i < m->nl; ++i) {
        ptl_lmap_bl* r = &o->bl.data[i];
        memset(r, 0, sizeof *r);
        const uint64_t lo = j->bj.out[b].lowest[i]; /* floor << 32 | index in the piece */
        const uint32_t sp = (uint32_t)lo, c = of->col_of[sp];
        r->lowest = floor_key((uint32_t)(lo >> 32), pos_key(world_col(j, c), sp - ptl_col_index_at_w(ix, c, width)));
        r->world = PTL_VX_NONE;
        r->block = (j->wz0 / B + b / j->nbx) * j->s->nbx + j->wx0 / B + b % j->nbx;
        r->floor_min = UINT16_MAX;
    }
    o->bl.count = m->nl;
    /* A block of one block-layer holds it in every span, so its links inside the block join that
       block-layer to itself and are not looked at; those leaving the block reach other blocks'. */
    const bool one = m->nl == 1;
    /* bit dir: the neighbour column is inside the piece (and, for one block-layer, outside the
       block); the z sides once per row, the x sides once per column of the block */
    uint32_t look_z[PTL_LMAP_B], look_x[PTL_LMAP_B];
    for (uint32_t z = 0; z < m->d; ++z) {
        const uint32_t gz = m->z0 + z;
        look_z[z] = (uint32_t)(gz + 1 < D) << 1 | (uint32_t)(gz > 0) << 3;
        if (one) look_z[z] &= ~((uint32_t)(z + 1 < m->d) << 1 | (uint32_t)(z > 0) << 3);
    }
    for (uint32_t x = 0; x < m->w; ++x) {
        const uint32_t gx = m->x0 + x;
        look_x[x] = (uint32_t)(gx > 0) | (uint32_t)(gx + 1 < W) << 2;
        if (one) look_x[x] &= ~((uint32_t)(x > 0) | (uint32_t)(x + 1 < m->w) << 2);
    }
    for (uint32_t z = 0; z < m->d; ++z)
        for (uint32_t x = 0; x < m->w; ++x) {
            const uint32_t c = (m->z0 + z) * W + m->x0 + x;
            const uint32_t look = look_z[z] | look_x[x];
            for (uint32_t sp = ptl_col_index_at_w(ix, c, width), e = ptl_col_index_at_w(ix, c + 1, width); sp < e; ++sp) {
                const ptl_open_span* os = &of->spans[sp];
                ptl_lmap_bl* r = &o->bl.data[os->layer - base];
                m->bits[(size_t)(os->layer - base) * B + z] |= 1u << x;
                if (r->count == 0) r->tag = os->tag;
                else if (os->tag != r->tag) r->tags_mixed = 1;
                r->count++;
                if (os->floor < r->floor_min) r->floor_min = os->floor;
                if (os->floor > r->floor_max) r->floor_max = os->floor;
                for (int dir = 0; dir < 4 && look; ++dir) {
                    if (os->con[dir] == PTL_VX_NOCON || !(look >> dir & 1u)) continue;
                    const uint32_t t = ptl_col_index_at_w(ix, c + off[dir], width) + os->con[dir];
                    if (of->spans[t].layer == os->layer) continue;
                    const uint32_t line = dir == 0 || dir == 2 ? x : z, place = dir == 0 || dir == 2 ? z : x;
                    ptl_lmap_link l = {os->layer, of->spans[t].layer, world_col(j, c), (uint8_t)dir, 1,
                                       (uint16_t)(line * B + place)};
                    if (!PTL_PUSH(a, o->links, l)) return false;
                }
            }
        }
    /* The bounds from the rows' bits, once per block-layer instead of four tests per span (a
       block-layer has a span, so a row with a bit). */
    for (uint32_t i = 0; i < m->nl; ++i) {
        ptl_lmap_bl* r = &o->bl.data[i];
        const uint32_t* rows = m->bits + (size_t)i * B;
        uint32_t any = 0, used = 0; /* the columns and the rows it has a span in */
        for (uint32_t z = 0; z < m->d; ++z) any |= rows[z], used |= (uint32_t)(rows[z] != 0) << z;
        r->x0 = (uint8_t)__builtin_ctz(any), r->x1 = (uint8_t)(31 - __builtin_clz(any));
        r->z0 = (uint8_t)__builtin_ctz(used), r->z1 = (uint8_t)(31 - __builtin_clz(used));
    }
    return true;
}

/* map_block_scan_w compiled once per width of the field's column index (a tile's own field has the
   plain one; see ptl_col_index_at_w): no choice of the width at every read. */
static bool map_block_scan(block_map* m, uint32_t b) {
    switch (m->of->col_index.width) {
    case 1: return map_block_scan_w(m, b, 1);
    case 2: return map_block_scan_w(m, b, 2);
    default: return map_block_scan_w(m, b, 4);
    }
}

/* The pool: each block-layer's rows, then (where floors vary or tags mix) its ranks, with room for
   its floors as offsets and its tags. *any_data: some block-layer needs that room. */
static bool map_block_pool(block_map* m, bool* any_data) {
    const ptl_allocator* a = m->j->bj.a;
    map_out* o = m->o;
    const uint32_t B = PTL_LMAP_B;
    *any_data = false;
    for (uint32_t i = 0; i < m->nl; ++i) {
        ptl_lmap_bl* r = &o->bl.data[i];
        const uint32_t nrows = (uint32_t)r->z1 - r->z0 + 1;
        r->rows = o->pool.count;
        if (!PTL_RESERVE(a, o->pool, (uint64_t)o->pool.count + 4 * nrows)) return false;
        memcpy(o->pool.data + o->pool.count, m->bits + (size_t)i * B + r->z0, 4 * (size_t)nrows);
        o->pool.count += 4 * nrows;
        const uint32_t range = (uint32_t)r->floor_max - r->floor_min;
        r->fbits = range == 0 ? 0 : range < 16 ? 4 : range < 256 ? 8 : 16;
        if (!r->fbits && !r->tags_mixed) continue;
        *any_data = true;
        const uint32_t fbytes = (r->count * r->fbits + 7) / 8, tbytes = r->tags_mixed ? 2 * r->count : 0;
        r->data = o->pool.count;
        if (!PTL_RESERVE(a, o->pool, (uint64_t)o->pool.count + 2 * B + fbytes + tbytes)) return false;
        uint8_t* q = o->pool.data + o->pool.count;
        memset(q, 0, 2 * B + fbytes + tbytes);
        uint16_t rank = 0;
        for (uint32_t z = 0; z < B; ++z) {
            memcpy(q + 2 * z, &rank, 2);
            rank = (uint16_t)(rank + ptl_lmap_popcount(m->bits[(size_t)i * B + z]));
        }
        o->pool.count += 2 * B + fbytes + tbytes;
    }
    return true;
}

/* The floors and tags of the block-layers that need them, in their spans' order. */
static void map_block_data(block_map* m) {
    const ptl_open_field* of = m->of;
    const uint32_t B = PTL_LMAP_B;
    for (uint32_t z = 0; z < m->d; ++z)
        for (uint32_t x = 0; x < m->w; ++x) {
            const uint32_t c = (m->z0 + z) * m->W + m->x0 + x;
            for (uint32_t sp = ptl_filter_col_begin(of, c), e = ptl_filter_col_end(of, c); sp < e; ++sp) {
                const ptl_open_span* os = &of->spans[sp];
                const uint32_t li = os->layer - m->base;
                const ptl_lmap_bl* r = &m->o->bl.data[li];
                const uint32_t k = m->at[li]++;
                if (!r->fbits && !r->tags_mixed) continue;
                uint8_t* q = m->o->pool.data + r->data + 2 * B;
                const uint32_t off = (uint32_t)os->floor - r->floor_min;
                if (r->fbits == 4) q[k / 2] |= (uint8_t)(off << (4 * (k & 1)));
                else if (r->fbits == 8) q[k] = (uint8_t)off;
                else if (r->fbits == 16) memcpy(q + 2 * k, &(uint16_t){(uint16_t)off}, 2);
                if (r->tags_mixed) memcpy(q + (r->count * r->fbits + 7) / 8 + 2 * k, &os->tag, 2);
            }
        }
}

/* Describes block b's block-layers (after ptl_layers_relabel_block): their columns, floors and tags,
   and the links from its spans to spans of other block-layers inside the piece. */
static void map_block(void* data, uint32_t b) {
    piece* j = data;
    const ptl_open_field* of = j->bj.of;
    const ptl_allocator* a = j->bj.a;
    map_out* o = &j->mo[b];
    o->st = PTL_OK;
    const uint32_t nl = j->bj.out[b].layer_count;
    if (nl == 0) return;
    const uint32_t B = PTL_LMAP_B, W = (uint32_t)of->p.width, D = (uint32_t)of->p.depth;
    const uint32_t x0 = (b % j->nbx) * B, z0 = (b / j->nbx) * B;
    block_map m = {j, of, o, nl, j->bj.base[b], x0, z0, W - x0 < B ? W - x0 : B, D - z0 < B ? D - z0 : B, W, NULL, NULL};
    m.at = ptl_mem_calloc(a, nl, sizeof *m.at); /* per block-layer: spans written so far */
    m.bits = ptl_mem_calloc(a, (size_t)nl * B, sizeof *m.bits); /* per block-layer: its rows */
    bool any_data = false;
    bool ok = m.at && m.bits && PTL_RESERVE(a, o->bl, nl) && map_block_scan(&m, b) && map_block_pool(&m, &any_data);
    if (ok && any_data) map_block_data(&m);
    if (ok) ok = ptl_sort(o->links.data, o->links.count, sizeof *o->links.data, cmp_link_run, a);
    if (ok) o->links.count = merge_runs(o->links.data, o->links.count);
    ptl_mem_free(a, m.at, nl * sizeof *m.at);
    ptl_mem_free(a, m.bits, (size_t)nl * B * sizeof *m.bits);
    if (!ok) o->st = PTL_ERR_NO_MEMORY;
}

static void run_jobs(const ptl_job_system* jobs, ptl_job_fn fn, void* data, uint32_t n) {
    if (jobs && n > 1) jobs->run(jobs->user, fn, data, n);
    else
        for (uint32_t i = 0; i < n; ++i) fn(data, i);
}

/* A pair across a border, p on the -x or -z side (position key pp) and q: a link is a candidate, any
   other pair a conflict. A run of one pair of block-layers keeps one candidate, the lowest (only the
   lowest key of a pair matters: layer_stitch.c). */
static bool border_pair(ptl_lstream_acc* c, const ptl_allocator* a, uint32_t la, uint32_t lb, bool linked, uint32_t f0,
                        uint32_t f1, uint64_t pp, uint32_t dir) {
    if (!linked) return PTL_PUSH(a, c->conf, ptl_pair_key(la, lb));
    ptl_vx_candidate k = {floor_key(f0 < f1 ? f0 : f1, pp), la, lb, dir};
    ptl_vx_candidate* last = c->cand.count ? &c->cand.data[c->cand.count - 1] : NULL;
    if (last && last->a == la && last->b == lb && last->dir == dir) {
        if (k.key < last->key) last->key = k.key;
        return true;
    }
    return PTL_PUSH(a, c->cand, k);
}

/* Appends a link to the runs along a strip, extending the last run of the same pair and direction
   when it ends just before (`step`: columns between neighbours along the run). */
static bool push_run(ptl_lstream_acc* c, const ptl_allocator* a, uint32_t* last, uint32_t la, uint32_t lb, uint32_t col, uint8_t dir,
                     uint32_t step) {
    if (*last != PTL_VX_NONE) {
        ptl_lmap_link* r = &c->links.data[*last];
        if (r->a == la && r->b == lb && r->dir == dir && r->col + r->len * step == col && r->len < 255) {
            r->len++;
            return true;
        }
    }
    ptl_lmap_link l = {la, lb, col, dir, 1, 0};
    *last = c->links.count;
    return PTL_PUSH(a, c->links, l);
}

/* The pairs across the border between strips `lo` (on the -x or -z side) and `hi`, the links
   across it in both directions as runs: dir 2 (x borders) or 1 (z borders). */
static bool pair_strips(ptl_lstream_acc* c, const ptl_allocator* a, const ptl_lstream_strip* lo, const ptl_lstream_strip* hi,
                        uint32_t dir) {
    uint32_t last_fwd = PTL_VX_NONE, last_back = PTL_VX_NONE;
    const uint32_t n = lo->start.count - 1;
    for (uint32_t u = 0; u < n; ++u) {
        const uint32_t b1 = hi->start.data[u], e1 = hi->start.data[u + 1];
        const uint32_t c0 = lo->col0 + u * lo->step, c1 = hi->col0 + u * hi->step;
        for (uint32_t p = lo->start.data[u]; p < lo->start.data[u + 1]; ++p)
            for (uint32_t q = b1; q < e1; ++q) {
                const ptl_lstream_strip_span *sp = &lo->sp.data[p], *sq = &hi->sp.data[q];
                /* spans of different areas are linked (a junction) but never stitched (layers.c) */
                const bool linked = sp->con == q - b1;
                if (!border_pair(c, a, sp->bl, sq->bl, linked && sp->area == sq->area, sp->floor, sq->floor,
                                 pos_key(c0, p - lo->start.data[u]), dir))
                    return false;
                if (linked && (!push_run(c, a, &last_fwd, sp->bl, sq->bl, c0, (uint8_t)dir, lo->step) ||
                               !push_run(c, a, &last_back, sq->bl, sp->bl, c1, (uint8_t)((dir + 2) & 3), hi->step)))
                    return false;
            }
    }
    return true;
}

/* The spans of the piece's columns c0, c0 + step, ... (n of them) as a strip, links across `side`. */
static bool keep_strip(ptl_lstream_strip* t, const ptl_allocator* a, const piece* pc, uint32_t c0, uint32_t step, uint32_t n,
                       int side) {
    const ptl_open_field* of = pc->bj.of;
    t->start.count = t->sp.count = 0;
    if (!PTL_RESERVE(a, t->start, (uint64_t)n + 1)) return false;
    for (uint32_t u = 0; u < n; ++u) {
        const uint32_t c = c0 + u * step;
        t->start.data[t->start.count++] = t->sp.count;
        for (uint32_t s = ptl_filter_col_begin(of, c), e = ptl_filter_col_end(of, c); s < e; ++s) {
            ptl_lstream_strip_span sp = {of->spans[s].floor, of->spans[s].con[side], (uint8_t)of->spans[s].tag, of->spans[s].layer};
            if (!PTL_PUSH(a, t->sp, sp)) return false;
        }
    }
    t->start.data[t->start.count++] = t->sp.count;
    t->col0 = world_col(pc, c0);
    t->step = step == 1 ? 1 : (uint32_t)pc->s->p.width;
    t->set = true;
    return true;
}

/* Steps 1-3 on a piece (a band or a tile), into `c`: its blocks flooded and described, the borders
   inside it paired, the seeds' nearest spans and the gap links taken. The piece's spans get their
   block-layers (ids after c's). */
/* Appends the blocks' results (block-layers, pool, links, conflicts with their ids offset by
   base[b]) to the accumulator. */
static bool piece_gather(const ptl_vx_block_out* bo, const map_out* mo, const uint32_t* base, uint32_t nb, ptl_lstream_acc* c,
                         const ptl_allocator* a) {
    for (uint32_t b = 0; b < nb; ++b) {
        if (mo[b].st < 0) return false;
        for (uint32_t i = 0; i < bo[b].conflict_count; ++i) {
            const uint64_t k = bo[b].conflicts[i];
            if (!PTL_PUSH(a, c->conf, ((uint64_t)base[b] + (k >> 32)) << 32 | (base[b] + (uint32_t)k))) return false;
        }
        const uint32_t pool0 = c->pool.count;
        if (!PTL_RESERVE(a, c->bl, (uint64_t)c->bl.count + mo[b].bl.count) ||
            !PTL_RESERVE(a, c->pool, (uint64_t)c->pool.count + mo[b].pool.count) ||
            !PTL_RESERVE(a, c->links, (uint64_t)c->links.count + mo[b].links.count))
            return false;
        for (uint32_t i = 0; i < mo[b].bl.count; ++i) {
            ptl_lmap_bl r = mo[b].bl.data[i];
            r.data += pool0, r.rows += pool0;
            c->bl.data[c->bl.count++] = r;
        }
        if (mo[b].pool.count) memcpy(c->pool.data + pool0, mo[b].pool.data, mo[b].pool.count);
        c->pool.count += mo[b].pool.count;
        if (mo[b].links.count)
            memcpy(c->links.data + c->links.count, mo[b].links.data, (size_t)mo[b].links.count * sizeof *c->links.data);
        c->links.count += mo[b].links.count;
    }
    return true;
}

/* The borders between the piece's blocks: x = k B (dir 2), then z = k B (dir 1). */
static bool piece_borders(const piece* pc, ptl_lstream_acc* c, const ptl_allocator* a) {
    const ptl_open_field* f = pc->bj.of;
    const uint32_t B = PTL_LMAP_B, w = (uint32_t)f->p.width, d = (uint32_t)f->p.depth;
    for (int dir = 2; dir >= 1; --dir) {
        const uint32_t lines = dir == 2 ? w : d, along = dir == 2 ? d : w;
        for (uint32_t line = B; line < lines; line += B)
            for (uint32_t u = 0; u < along; ++u) {
                const uint32_t c0 = dir == 2 ? u * w + line - 1 : (line - 1) * w + u;
                const uint32_t c1 = ptl_filter_ncol(f->p.width, c0, dir), wc0 = world_col(pc, c0);
                const uint32_t b0 = ptl_filter_col_begin(f, c0), e0 = ptl_filter_col_end(f, c0);
                const uint32_t b1 = ptl_filter_col_begin(f, c1), e1 = ptl_filter_col_end(f, c1);
                for (uint32_t p = b0; p < e0; ++p)
                    for (uint32_t q = b1; q < e1; ++q)
                        if (!border_pair(c, a, f->spans[p].layer, f->spans[q].layer,
                                         f->spans[p].con[dir] == q - b1 && f->spans[p].tag == f->spans[q].tag,
                                         f->spans[p].floor, f->spans[q].floor, pos_key(wc0, p - b0), (uint32_t)dir))
                            return false;
            }
    }
    return true;
}

/* The seeds' nearest spans among the piece's (find_seed's rule, in layers.c's words: the nearest
   column within walkable_radius + 1, then the highest floor at or below the seed, then the lowest
   above it, then the first in the world's order). */
static void piece_seeds(const piece* pc, ptl_lstream_acc* c) {
    const ptl_layer_stream* s = pc->s;
    const ptl_open_field* f = pc->bj.of;
    const uint32_t w = (uint32_t)f->p.width, d = (uint32_t)f->p.depth;
    for (uint32_t i = 0; i < s->seed_count; ++i) {
        const ptl_lstream_seed_at* sa = &s->seeds[i];
        ptl_lstream_seed_best* sb = &c->seeds[i];
        if (!sa->valid) continue;
        const ptl_vx_params* p = &s->p;
        const int64_t r = p->walkable_radius + 1;
        for (int64_t dz = -r; dz <= r; ++dz)
            for (int64_t dx = -r; dx <= r; ++dx) {
                const int64_t x = sa->cx + dx - pc->wx0, z = sa->cz + dz - pc->wz0;
                if (x < 0 || x >= (int64_t)w || z < 0 || z >= (int64_t)d) continue;
                const uint32_t col = (uint32_t)z * w + (uint32_t)x;
                for (uint32_t t = ptl_filter_col_begin(f, col), e = ptl_filter_col_end(f, col); t < e; ++t) {
                    const double fl = f->spans[t].floor;
                    if (sa->hw < fl - p->walkable_climb || sa->hw > fl + p->walkable_height) continue;
                    const double score = fl <= sa->hw ? sa->hw - fl : p->walkable_height + (fl - sa->hw);
                    const int64_t d2 = dx * dx + dz * dz;
                    const uint64_t tk = pos_key(world_col(pc, col), t - ptl_filter_col_begin(f, col));
                    if (!sb->found || d2 < sb->d2 || (d2 == sb->d2 && score < sb->score) ||
                        (d2 == sb->d2 && score == sb->score && tk < sb->t))
                        sb->found = true, sb->d2 = d2, sb->score = score, sb->t = tk, sb->bl = f->spans[t].layer;
                }
            }
    }
}

/* Gap links, their far ends to be matched at the end. */
static bool piece_gaps(const piece* pc, ptl_lstream_acc* c, const ptl_allocator* a) {
    const ptl_open_field* f = pc->bj.of;
    const uint32_t W = (uint32_t)pc->s->p.width;
    for (uint32_t g = 0; g < f->gap_count; ++g) {
        const ptl_vx_gap* gp = &f->gaps[g];
        const uint32_t col = f->col_of[gp->span], k = gp->cols + 1u, wc = world_col(pc, col);
        const int64_t x = wc % W, z = wc / W;
        ptl_lstream_gap r = {wc,
                  gp->span - ptl_filter_col_begin(f, col),
                  (uint32_t)((z + (int64_t)k * DZ[gp->dir & 3]) * W + x + (int64_t)k * DX[gp->dir & 3]),
                  gp->other,
                  f->spans[gp->span].layer,
                  gp->dir,
                  gp->cols,
                  0};
        if (!PTL_PUSH(a, c->gaps, r)) return false;
    }
    return true;
}

static ptl_status piece_blocks(const ptl_layer_stream* s, ptl_open_field* f, uint32_t wx0, uint32_t wz0,
                               const ptl_job_system* jobs, ptl_lstream_acc* c, const ptl_allocator* a) {
    const uint32_t B = PTL_LMAP_B, w = (uint32_t)f->p.width, d = (uint32_t)f->p.depth;
    const uint32_t nbx = (w + B - 1) / B, nbz = (d + B - 1) / B, nb = nbx * nbz;
    ptl_status st = PTL_OK;
    ptl_vx_block_out* bo = ptl_mem_calloc(a, nb ? nb : 1, sizeof *bo);
    map_out* mo = ptl_mem_calloc(a, nb ? nb : 1, sizeof *mo);
    uint32_t* base = ptl_mem_alloc(a, ((size_t)nb + 1) * sizeof *base);
    if (!bo || !mo || !base) goto oom;
    piece pc = {{f, a, nbx, bo, base}, mo, s, wx0, wz0, nbx, nbz};
    run_jobs(jobs, ptl_layers_flood_block, &pc.bj, nb);
    uint64_t n = c->bl.count;
    for (uint32_t b = 0; b < nb; ++b) {
        if (bo[b].st < 0) goto oom;
        base[b] = (uint32_t)n;
        n += bo[b].layer_count;
    }
    if (n >= PTL_VX_NONE) {
        st = PTL_ERR_BAD_INPUT;
        goto done;
    }
    run_jobs(jobs, ptl_layers_relabel_block, &pc.bj, nb);
    run_jobs(jobs, map_block, &pc, nb);
    if (!piece_gather(bo, mo, base, nb, c, a) || !piece_borders(&pc, c, a)) goto oom;
    piece_seeds(&pc, c);
    if (!piece_gaps(&pc, c, a)) goto oom;
    goto done;
oom:
    st = PTL_ERR_NO_MEMORY;
done:
    for (uint32_t b = 0; bo && b < nb; ++b) ptl_layers_block_out_free(&bo[b], a);
    for (uint32_t b = 0; mo && b < nb; ++b) {
        PTL_ARRAY_FREE(a, mo[b].bl);
        PTL_ARRAY_FREE(a, mo[b].pool);
        PTL_ARRAY_FREE(a, mo[b].links);
    }
    ptl_mem_free(a, bo, (size_t)(nb ? nb : 1) * sizeof *bo);
    ptl_mem_free(a, mo, (size_t)(nb ? nb : 1) * sizeof *mo);
    ptl_mem_free(a, base, ((size_t)nb + 1) * sizeof *base);
    return st;
}

/* The stream's conflicts into its set (the same pairs come back border after border). */
bool ptl_lstream_settle_conflicts(ptl_layer_stream* s) {
    for (uint32_t i = 0; i < s->acc.conf.count; ++i)
        if (!ptl_pair_set_add(&s->acc.conf_set, s->acc.conf.data[i], &s->a)) return false;
    s->acc.conf.count = 0;
    return true;
}

ptl_status ptl_lstream_band(ptl_layer_stream* s, ptl_open_field* band, ptl_error* err) {
    const ptl_allocator* a = &s->a;
    const uint32_t B = PTL_LMAP_B, W = (uint32_t)s->p.width, D = (uint32_t)s->p.depth;
    const uint32_t d = (uint32_t)band->p.depth, zw = (uint32_t)s->z_next;
    if (s->tiles_added || band->p.width != s->p.width || d == 0 || d > B || zw + d > D || (d < B && zw + d != D) ||
        band->col_index.width != 4 || (band->span_count && !band->col_of))
        return ptl_error_set(err, PTL_ERR_INTERNAL, "layers: a band of %u rows at row %u does not fit", d, zw);
    ptl_status st = piece_blocks(s, band, 0, zw, s->jobs, &s->acc, a);
    if (st == PTL_ERR_BAD_INPUT) return ptl_error_set(err, st, "layers: more than 2^32 block-layers");
    if (st < 0) goto oom;
    /* The previous band's last row and this band's first (z = zw), with the links across. */
    piece pc = {{band, a, 0, NULL, NULL}, NULL, s, 0, zw, 0, 0};
    ptl_lstream_strip first;
    memset(&first, 0, sizeof first);
    if (s->last_row.set) {
        bool ok = keep_strip(&first, a, &pc, 0, 1, W, 3) && pair_strips(&s->acc, a, &s->last_row, &first, 1);
        strip_free(&first, a);
        if (!ok) goto oom;
    }
    if (zw + d < D && !keep_strip(&s->last_row, a, &pc, (d - 1) * W, 1, W, 1)) goto oom;
    if (!ptl_lstream_settle_conflicts(s)) goto oom;
    s->z_next += (int32_t)d;
    return ptl_error_ok(err);
oom:
    return ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory (a band of %u open spans)", band->span_count);
}

/* ---- Tiles --------------------------------------------------------------------------------------- */

void ptl_lstream_tile_free(ptl_tile_layers* t, const ptl_layer_stream* s) {
    if (!t) return;
    ptl_allocator a = s->a;
    lacc_free(&t->acc, s->seed_count, &a);
    for (int e = 0; e < 4; ++e) strip_free(&t->edge[e], &a);
    ptl_mem_free(&a, t, sizeof *t);
}

ptl_status ptl_lstream_tile(const ptl_layer_stream* s, ptl_open_field* f, int32_t x0, int32_t z0,
                            ptl_tile_layers** out) {
    const ptl_allocator* a = &s->a;
    *out = NULL;
    ptl_tile_layers* t = ptl_mem_calloc(a, 1, sizeof *t);
    if (!t) return PTL_ERR_NO_MEMORY;
    if (!lacc_init(&t->acc, s->seed_count, a)) {
        ptl_mem_free(a, t, sizeof *t);
        return PTL_ERR_NO_MEMORY;
    }
    t->tx = x0 / (int32_t)s->tile_size, t->tz = z0 / (int32_t)s->tile_size;
    const uint32_t w = (uint32_t)f->p.width, d = (uint32_t)f->p.depth;
    ptl_status st = piece_blocks(s, f, (uint32_t)x0, (uint32_t)z0, NULL, &t->acc, a);
    piece pc = {{f, a, 0, NULL, NULL}, NULL, s, (uint32_t)x0, (uint32_t)z0, 0, 0};
    if (st >= 0 && (!keep_strip(&t->edge[EDGE_LEFT], a, &pc, 0, w, d, 0) ||
                    !keep_strip(&t->edge[EDGE_FIRST_ROW], a, &pc, 0, 1, w, 3) ||
                    !keep_strip(&t->edge[EDGE_RIGHT], a, &pc, w - 1, w, d, 2) ||
                    !keep_strip(&t->edge[EDGE_LAST_ROW], a, &pc, (d - 1) * w, 1, w, 1)))
        st = PTL_ERR_NO_MEMORY;
    if (st < 0) {
        ptl_lstream_tile_free(t, s);
        return st;
    }
    *out = t;
    return PTL_OK;
}

ptl_status ptl_lstream_add_tile(ptl_layer_stream* s, ptl_tile_layers* t, ptl_error* err) {
    const ptl_allocator* a = &s->a;
    ptl_lstream_acc* c = &s->acc;
    const uint32_t tx = (uint32_t)t->tx, tz = (uint32_t)t->tz;
    if (s->z_next || !s->tile_size || t->tx < 0 || t->tz < 0 || tx >= s->tiles_x || tz >= s->tiles_z ||
        tz * s->tiles_x + tx != s->tiles_added)
        return ptl_error_set(err, PTL_ERR_INTERNAL, "layers: tile (%d, %d) out of order", t->tx, t->tz);
    const uint64_t n0 = c->bl.count;
    if (n0 + t->acc.bl.count >= PTL_VX_NONE) return ptl_error_set(err, PTL_ERR_BAD_INPUT, "layers: more than 2^32 block-layers");
    const uint32_t off = (uint32_t)n0, pool0 = c->pool.count;
    if (!PTL_RESERVE(a, c->bl, n0 + t->acc.bl.count) || !PTL_RESERVE(a, c->pool, (uint64_t)pool0 + t->acc.pool.count) ||
        !PTL_RESERVE(a, c->links, (uint64_t)c->links.count + t->acc.links.count) ||
        !PTL_RESERVE(a, c->gaps, (uint64_t)c->gaps.count + t->acc.gaps.count) ||
        !PTL_RESERVE(a, c->cand, (uint64_t)c->cand.count + t->acc.cand.count))
        goto oom;
    for (uint32_t i = 0; i < t->acc.bl.count; ++i) {
        ptl_lmap_bl r = t->acc.bl.data[i];
        r.data += pool0, r.rows += pool0;
        c->bl.data[c->bl.count++] = r;
    }
    if (t->acc.pool.count) memcpy(c->pool.data + pool0, t->acc.pool.data, t->acc.pool.count);
    c->pool.count += t->acc.pool.count;
    for (uint32_t i = 0; i < t->acc.links.count; ++i) {
        ptl_lmap_link l = t->acc.links.data[i];
        l.a += off, l.b += off;
        c->links.data[c->links.count++] = l;
    }
    for (uint32_t i = 0; i < t->acc.gaps.count; ++i) {
        ptl_lstream_gap g = t->acc.gaps.data[i];
        g.a += off;
        c->gaps.data[c->gaps.count++] = g;
    }
    for (uint32_t i = 0; i < t->acc.cand.count; ++i) {
        ptl_vx_candidate k = t->acc.cand.data[i];
        k.a += off, k.b += off;
        c->cand.data[c->cand.count++] = k;
    }
    for (uint32_t i = 0; i < t->acc.conf.count; ++i) {
        const uint64_t k = t->acc.conf.data[i];
        if (!ptl_pair_set_add(&c->conf_set, ((k >> 32) + off) << 32 | ((uint32_t)k + off), a)) goto oom;
    }
    for (uint32_t i = 0; i < s->seed_count; ++i) {
        const ptl_lstream_seed_best* tb = &t->acc.seeds[i];
        ptl_lstream_seed_best* sb = &c->seeds[i];
        if (tb->found && (!sb->found || tb->d2 < sb->d2 || (tb->d2 == sb->d2 && tb->score < sb->score) ||
                          (tb->d2 == sb->d2 && tb->score == sb->score && tb->t < sb->t))) {
            *sb = *tb;
            sb->bl = tb->bl + off;
        }
    }
    for (int e = 0; e < 4; ++e)
        for (uint32_t i = 0; i < t->edge[e].sp.count; ++i) t->edge[e].sp.data[i].bl += off;
    /* The borders with the tile before in the row and the tile above. */
    if (tx > 0 && !pair_strips(c, a, &s->tile_right, &t->edge[EDGE_LEFT], 2)) goto oom;
    if (tz > 0 && !pair_strips(c, a, &s->tile_bottom[tx], &t->edge[EDGE_FIRST_ROW], 1)) goto oom;
    if (!ptl_lstream_settle_conflicts(s)) goto oom;
    strip_free(&s->tile_right, a);
    s->tile_right = t->edge[EDGE_RIGHT];
    memset(&t->edge[EDGE_RIGHT], 0, sizeof t->edge[EDGE_RIGHT]);
    strip_free(&s->tile_bottom[tx], a);
    s->tile_bottom[tx] = t->edge[EDGE_LAST_ROW];
    memset(&t->edge[EDGE_LAST_ROW], 0, sizeof t->edge[EDGE_LAST_ROW]);
    s->tiles_added++;
    return ptl_error_ok(err);
oom:
    return ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory adding tile (%d, %d)", t->tx, t->tz);
}

static bool strip_copy(ptl_lstream_strip* d, const ptl_lstream_strip* t, const ptl_allocator* a) {
    memset(d, 0, sizeof *d);
    d->col0 = t->col0, d->step = t->step, d->set = t->set;
    if (!PTL_RESERVE(a, d->start, (uint64_t)t->start.count + 1) || !PTL_RESERVE(a, d->sp, (uint64_t)t->sp.count + 1))
        return false;
    if (t->start.count) memcpy(d->start.data, t->start.data, (size_t)t->start.count * sizeof *d->start.data);
    if (t->sp.count) memcpy(d->sp.data, t->sp.data, (size_t)t->sp.count * sizeof *d->sp.data);
    d->start.count = t->start.count, d->sp.count = t->sp.count;
    return true;
}

ptl_status ptl_lstream_add_tile_kept(ptl_layer_stream* s, const ptl_tile_layers* t, ptl_error* err) {
    ptl_tile_layers c = *t; /* its accumulators are only read; its edges are offset and taken: copies */
    bool ok = true;
    for (int e = 0; e < 4; ++e) ok = strip_copy(&c.edge[e], &t->edge[e], &s->a) && ok;
    ptl_status st = ok ? ptl_lstream_add_tile(s, &c, err)
                       : ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory adding tile (%d, %d)", t->tx, t->tz);
    for (int e = 0; e < 4; ++e) strip_free(&c.edge[e], &s->a);
    return st;
}

uint64_t ptl_lstream_tile_bytes(const ptl_tile_layers* t) {
    const ptl_lstream_acc* c = &t->acc;
    uint64_t n = sizeof *t + (uint64_t)c->bl.cap * sizeof *c->bl.data + c->pool.cap +
                 (uint64_t)c->links.cap * sizeof *c->links.data + (uint64_t)c->gaps.cap * sizeof *c->gaps.data +
                 (uint64_t)c->conf.cap * 8 + (uint64_t)c->cand.cap * sizeof *c->cand.data;
    for (int e = 0; e < 4; ++e) n += (uint64_t)t->edge[e].start.cap * 4 + (uint64_t)t->edge[e].sp.cap * sizeof *t->edge[e].sp.data;
    return n;
}

ptl_status ptl_lstream_use_tiles(ptl_layer_stream* s, uint32_t tile_size, uint32_t tiles_x, uint32_t tiles_z,
                                 ptl_error* err) {
    if (s->z_next || s->tiles_added || tile_size % PTL_LMAP_B != 0 || !tiles_x || !tiles_z)
        return ptl_error_set(err, PTL_ERR_INTERNAL, "layers: tiles of %u columns cannot be streamed", tile_size);
    s->tile_bottom = ptl_mem_calloc(&s->a, tiles_x, sizeof *s->tile_bottom);
    if (!s->tile_bottom) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory");
    s->tile_size = tile_size, s->tiles_x = tiles_x, s->tiles_z = tiles_z;
    return ptl_error_ok(err);
}
