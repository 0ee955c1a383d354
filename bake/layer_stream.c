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

   At the end: the stitch (candidates in their flood order), then what layers.c did on the whole
   field, on the graph of block-layers: small islands (a layer linked to no other, by links or gap
   links), reachability from the seeds (every layer is connected, so a layer is reached wholly or not
   at all, and following links between layers is following them between spans), and the dense
   numbering in order of each layer's lowest span (floor, then the world's span order). Every choice
   is made as it was over the whole field, so the layers, and the navmesh, are the same bytes. */
#include <math.h>
#include <string.h>

#include "../runtime/alloc.h"
#include "../runtime/error.h"
#include "contours.h"
#include "layer_map.h"

static const int DX[4] = {-1, 0, 1, 0};
static const int DZ[4] = {0, 1, 0, -1};

/* The previous band's last row: per span its floor, its link into the next row, its block-layer. */
typedef struct strip_span {
    uint16_t floor;
    uint8_t con1;
    uint8_t pad;
    uint32_t bl;
} strip_span;

/* A gap link whose far end's block-layer is found at the end (the far end may lie in a later band). */
typedef struct sgap {
    uint32_t src_col, src_k, dst_col, dst_k, a;
    uint8_t dir, cols;
    uint16_t pad;
} sgap;

/* A seed's best span so far (find_seed's order: nearest column, then score, then span index). */
typedef struct seed_best {
    int64_t cx, cz;
    double hw;
    bool valid;   /* finite and inside +-1e9 columns */
    bool found;
    int64_t d2;
    double score;
    uint64_t t;   /* the span's index in the world's order */
    uint32_t bl;
} seed_best;

struct ptl_layer_stream {
    ptl_vx_params p;
    const ptl_job_system* jobs;
    ptl_allocator a;
    uint32_t nbx, nbz;
    int32_t z_next;  /* rows given */
    uint64_t total;  /* spans given */
    PTL_ARRAY(ptl_lmap_bl) bl;
    PTL_ARRAY(uint32_t) block_first;
    PTL_ARRAY(uint8_t) pool;
    PTL_ARRAY(ptl_lmap_link) links;
    PTL_ARRAY(sgap) gaps;
    ptl_pair_set conf;
    PTL_ARRAY(ptl_vx_candidate) cand;
    PTL_ARRAY(uint32_t) strip_start; /* W + 1 */
    PTL_ARRAY(strip_span) strip;
    uint64_t strip_first;            /* the strip's first span's index in the world's order */
    bool have_strip;
    seed_best* seeds;
    uint32_t seed_count;
    float first_seed[3];
};

ptl_status ptl_lstream_create(const ptl_vx_params* world, const float* seeds, uint32_t seed_count,
                              const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_stream** out,
                              ptl_error* err) {
    *out = NULL;
    if (seed_count && !seeds) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "layers: NULL seeds");
    for (uint32_t i = 0; i < 3 * seed_count; ++i)
        if (!isfinite(seeds[i])) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "layers: seed %u is not finite", i / 3);
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
    if (seed_count) {
        s->seeds = ptl_mem_calloc(&a, seed_count, sizeof *s->seeds);
        if (!s->seeds) {
            ptl_mem_free(&a, s, sizeof *s);
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory");
        }
        memcpy(s->first_seed, seeds, sizeof s->first_seed);
        const ptl_vx_params* p = &s->p;
        for (uint32_t i = 0; i < seed_count; ++i) {
            const float* pt = seeds + 3 * (size_t)i;
            seed_best* b = &s->seeds[i];
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
    PTL_ARRAY_FREE(&a, s->bl);
    PTL_ARRAY_FREE(&a, s->block_first);
    PTL_ARRAY_FREE(&a, s->pool);
    PTL_ARRAY_FREE(&a, s->links);
    PTL_ARRAY_FREE(&a, s->gaps);
    ptl_pair_set_free(&s->conf, &a);
    PTL_ARRAY_FREE(&a, s->cand);
    PTL_ARRAY_FREE(&a, s->strip_start);
    PTL_ARRAY_FREE(&a, s->strip);
    ptl_mem_free(&a, s->seeds, (size_t)s->seed_count * sizeof *s->seeds);
    ptl_mem_free(&a, s, sizeof *s);
}

/* ---- A band's blocks --------------------------------------------------------------------------- */

/* What a block gives the map. */
typedef struct map_out {
    PTL_ARRAY(ptl_lmap_bl) bl;
    PTL_ARRAY(uint8_t) pool;
    PTL_ARRAY(ptl_lmap_link) links;
    ptl_status st;
} map_out;

typedef struct band_work {
    ptl_vx_block_jobs bj;
    map_out* mo;
    const ptl_layer_stream* s;
} band_work;

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

/* Describes block b's block-layers (after ptl_vx_relabel_block): their columns, floors and tags,
   and the links from its spans to spans of other block-layers inside the band. */
static void map_block(void* data, uint32_t b) {
    band_work* j = data;
    const ptl_open_field* of = j->bj.of;
    const ptl_allocator* a = j->bj.a;
    map_out* o = &j->mo[b];
    o->st = PTL_OK;
    const uint32_t nl = j->bj.out[b].layer_count, base = j->bj.base[b];
    if (nl == 0) return;
    const uint32_t B = PTL_LMAP_B, W = (uint32_t)of->p.width, d = (uint32_t)of->p.depth;
    const uint32_t x0 = b * B, w = W - x0 < B ? W - x0 : B;
    const uint32_t bz = (uint32_t)j->s->z_next / B, zw = (uint32_t)j->s->z_next;
    uint32_t* at = ptl_mem_calloc(a, nl, sizeof *at); /* per block-layer: spans written so far */
    if (!at || !PTL_RESERVE(a, o->bl, nl)) goto oom;
    for (uint32_t i = 0; i < nl; ++i) {
        ptl_lmap_bl* r = &o->bl.data[i];
        memset(r, 0, sizeof *r);
        r->lowest = j->bj.out[b].lowest[i] + j->s->total; /* the band's index to the world's */
        r->world = PTL_VX_NONE;
        r->block = bz * j->s->nbx + b;
        r->floor_min = UINT16_MAX;
        r->x0 = r->z0 = UINT8_MAX;
    }
    o->bl.count = nl;
    /* Columns, bounds, floor range, tags. */
    for (uint32_t z = 0; z < d; ++z)
        for (uint32_t x = 0; x < w; ++x) {
            const uint32_t c = z * W + x0 + x;
            for (uint32_t sp = ptl_vx_col_begin(of, c), e = ptl_vx_col_end(of, c); sp < e; ++sp) {
                const ptl_open_span* os = &of->spans[sp];
                ptl_lmap_bl* r = &o->bl.data[os->layer - base];
                r->bits[z] |= 1u << x;
                if (r->count == 0) r->tag = os->tag;
                else if (os->tag != r->tag) r->tags_mixed = 1;
                r->count++;
                if (os->floor < r->floor_min) r->floor_min = os->floor;
                if (os->floor > r->floor_max) r->floor_max = os->floor;
                if (x < r->x0) r->x0 = (uint8_t)x;
                if (x > r->x1) r->x1 = (uint8_t)x;
                if (z < r->z0) r->z0 = (uint8_t)z;
                if (z > r->z1) r->z1 = (uint8_t)z;
            }
        }
    /* The pool: ranks, floors as offsets, tags. */
    for (uint32_t i = 0; i < nl; ++i) {
        ptl_lmap_bl* r = &o->bl.data[i];
        const uint32_t range = (uint32_t)r->floor_max - r->floor_min;
        r->fbits = range == 0 ? 0 : range < 16 ? 4 : range < 256 ? 8 : 16;
        if (!r->fbits && !r->tags_mixed) continue;
        const uint32_t fbytes = (r->count * r->fbits + 7) / 8, tbytes = r->tags_mixed ? 2 * r->count : 0;
        r->data = o->pool.count;
        if (!PTL_RESERVE(a, o->pool, (uint64_t)o->pool.count + 2 * B + fbytes + tbytes)) goto oom;
        uint8_t* q = o->pool.data + o->pool.count;
        memset(q, 0, 2 * B + fbytes + tbytes);
        uint16_t rank = 0;
        for (uint32_t z = 0; z < B; ++z) {
            memcpy(q + 2 * z, &rank, 2);
            rank = (uint16_t)(rank + __builtin_popcount(r->bits[z]));
        }
        o->pool.count += 2 * B + fbytes + tbytes;
    }
    for (uint32_t z = 0; z < d; ++z)
        for (uint32_t x = 0; x < w; ++x) {
            const uint32_t c = z * W + x0 + x;
            for (uint32_t sp = ptl_vx_col_begin(of, c), e = ptl_vx_col_end(of, c); sp < e; ++sp) {
                const ptl_open_span* os = &of->spans[sp];
                const uint32_t li = os->layer - base;
                const ptl_lmap_bl* r = &o->bl.data[li];
                const uint32_t k = at[li]++;
                if (!r->fbits && !r->tags_mixed) continue;
                uint8_t* q = o->pool.data + r->data + 2 * B;
                const uint32_t off = (uint32_t)os->floor - r->floor_min;
                if (r->fbits == 4) q[k / 2] |= (uint8_t)(off << (4 * (k & 1)));
                else if (r->fbits == 8) q[k] = (uint8_t)off;
                else if (r->fbits == 16) memcpy(q + 2 * k, &(uint16_t){(uint16_t)off}, 2);
                if (r->tags_mixed) memcpy(q + (r->count * r->fbits + 7) / 8 + 2 * k, &os->tag, 2);
            }
        }
    /* Links to other block-layers inside the band (those across its z borders: the strips). */
    for (uint32_t z = 0; z < d; ++z)
        for (uint32_t x = 0; x < w; ++x) {
            const uint32_t c = z * W + x0 + x;
            for (uint32_t sp = ptl_vx_col_begin(of, c), e = ptl_vx_col_end(of, c); sp < e; ++sp) {
                const ptl_open_span* os = &of->spans[sp];
                for (int dir = 0; dir < 4; ++dir) {
                    if (os->con[dir] == PTL_VX_NOCON) continue;
                    const int64_t nz = (int64_t)z + DZ[dir];
                    if (nz < 0 || nz >= (int64_t)d) continue;
                    const uint32_t nc = ptl_vx_ncol(of->p.width, c, dir);
                    const uint32_t t = ptl_vx_col_begin(of, nc) + os->con[dir];
                    if (of->spans[t].layer == os->layer) continue;
                    const uint32_t line = dir == 0 || dir == 2 ? x : z, place = dir == 0 || dir == 2 ? z : x;
                    ptl_lmap_link l = {os->layer, of->spans[t].layer, (zw + z) * W + x0 + x, (uint8_t)dir, 1,
                                       (uint16_t)(line * B + place)};
                    if (!PTL_PUSH(a, o->links, l)) goto oom;
                }
            }
        }
    if (!ptl_sort(o->links.data, o->links.count, sizeof *o->links.data, cmp_link_run, a)) goto oom;
    o->links.count = merge_runs(o->links.data, o->links.count);
    ptl_mem_free(a, at, nl * sizeof *at);
    return;
oom:
    ptl_mem_free(a, at, nl * sizeof *at);
    o->st = PTL_ERR_NO_MEMORY;
}

static void run_jobs(const ptl_layer_stream* s, ptl_job_fn fn, void* data, uint32_t n) {
    if (s->jobs && n > 1) s->jobs->run(s->jobs->user, fn, data, n);
    else
        for (uint32_t i = 0; i < n; ++i) fn(data, i);
}

/* The pairs across one border, from the spans p of column c0 (on its -x or -z side) to those of c1:
   a link is a candidate, any other pair a conflict. `last` dedups runs of one pair of block-layers
   (only the lowest key of a pair matters: layer_stitch.c). */
static bool border_pair(ptl_layer_stream* s, uint32_t la, uint32_t lb, bool linked, uint32_t f0, uint32_t f1,
                        uint64_t p_index, uint32_t dir) {
    if (!linked) return ptl_pair_set_add(&s->conf, ptl_pair_key(la, lb), &s->a);
    ptl_vx_candidate c = {(uint64_t)(f0 < f1 ? f0 : f1) << 32 | p_index, la, lb, dir};
    ptl_vx_candidate* last = s->cand.count ? &s->cand.data[s->cand.count - 1] : NULL;
    if (last && last->a == la && last->b == lb && last->dir == dir) {
        if (c.key < last->key) last->key = c.key;
        return true;
    }
    return PTL_PUSH(&s->a, s->cand, c);
}

/* Appends a link to the stream's runs along x (the z borders), extending the last run of the same
   pair and direction when it ends just before. */
static bool push_x_run(ptl_layer_stream* s, uint32_t* last, uint32_t a, uint32_t b, uint32_t col, uint8_t dir) {
    if (*last != PTL_VX_NONE) {
        ptl_lmap_link* r = &s->links.data[*last];
        if (r->a == a && r->b == b && r->dir == dir && r->col + r->len == col && r->len < 255) {
            r->len++;
            return true;
        }
    }
    ptl_lmap_link l = {a, b, col, dir, 1, 0};
    *last = s->links.count;
    return PTL_PUSH(&s->a, s->links, l);
}

ptl_status ptl_lstream_band(ptl_layer_stream* s, ptl_open_field* band, ptl_error* err) {
    const ptl_allocator* a = &s->a;
    const uint32_t B = PTL_LMAP_B, W = (uint32_t)s->p.width, D = (uint32_t)s->p.depth;
    const uint32_t d = (uint32_t)band->p.depth, zw = (uint32_t)s->z_next;
    if (band->p.width != s->p.width || d == 0 || d > B || zw + d > D || (d < B && zw + d != D) ||
        band->col_index.width != 4 || (band->span_count && !band->col_of))
        return ptl_error_set(err, PTL_ERR_INTERNAL, "layers: a band of %u rows at row %u does not fit", d, zw);
    if (s->total + band->span_count >= PTL_VX_NONE)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "layers: more than 2^32 open spans");
    const uint32_t nbx = s->nbx;
    ptl_status st = PTL_OK;
    ptl_vx_block_out* bo = ptl_mem_calloc(a, nbx, sizeof *bo);
    map_out* mo = ptl_mem_calloc(a, nbx, sizeof *mo);
    uint32_t* base = ptl_mem_alloc(a, ((size_t)nbx + 1) * sizeof *base);
    if (!bo || !mo || !base) goto oom;
    /* 1. The blocks' floods, and their ids over the world. */
    band_work bw = {{band, a, nbx, bo, base}, mo, s};
    run_jobs(s, ptl_vx_flood_block, &bw.bj, nbx);
    uint64_t n = s->bl.count;
    for (uint32_t b = 0; b < nbx; ++b) {
        if (bo[b].st < 0) goto oom;
        base[b] = (uint32_t)n;
        n += bo[b].layer_count;
    }
    if (n >= PTL_VX_NONE) {
        st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "layers: more than 2^32 block-layers");
        goto done;
    }
    run_jobs(s, ptl_vx_relabel_block, &bw.bj, nbx);
    for (uint32_t b = 0; b < nbx; ++b)
        for (uint32_t i = 0; i < bo[b].conflict_count; ++i) {
            const uint64_t k = bo[b].conflicts[i];
            if (!ptl_pair_set_add(&s->conf, ((uint64_t)base[b] + (k >> 32)) << 32 | (base[b] + (uint32_t)k), a)) goto oom;
        }
    /* 2. The blocks' descriptions, in block order. */
    run_jobs(s, map_block, &bw, nbx);
    for (uint32_t b = 0; b < nbx; ++b) {
        if (mo[b].st < 0) goto oom;
        if (!PTL_PUSH(a, s->block_first, s->bl.count)) goto oom;
        const uint32_t pool0 = s->pool.count;
        if (!PTL_RESERVE(a, s->bl, (uint64_t)s->bl.count + mo[b].bl.count) ||
            !PTL_RESERVE(a, s->pool, (uint64_t)s->pool.count + mo[b].pool.count) ||
            !PTL_RESERVE(a, s->links, (uint64_t)s->links.count + mo[b].links.count))
            goto oom;
        for (uint32_t i = 0; i < mo[b].bl.count; ++i) {
            ptl_lmap_bl r = mo[b].bl.data[i];
            r.data += pool0;
            s->bl.data[s->bl.count++] = r;
        }
        if (mo[b].pool.count) memcpy(s->pool.data + pool0, mo[b].pool.data, mo[b].pool.count);
        s->pool.count += mo[b].pool.count;
        if (mo[b].links.count)
            memcpy(s->links.data + s->links.count, mo[b].links.data, (size_t)mo[b].links.count * sizeof *s->links.data);
        s->links.count += mo[b].links.count;
    }
    /* 3. The borders between the band's blocks (x = k B), row by row. */
    for (uint32_t line = B; line < W; line += B)
        for (uint32_t z = 0; z < d; ++z) {
            const uint32_t c0 = z * W + line - 1, c1 = c0 + 1;
            const uint32_t b0 = ptl_vx_col_begin(band, c0), e0 = ptl_vx_col_end(band, c0);
            const uint32_t b1 = ptl_vx_col_begin(band, c1), e1 = ptl_vx_col_end(band, c1);
            for (uint32_t p = b0; p < e0; ++p)
                for (uint32_t q = b1; q < e1; ++q)
                    if (!border_pair(s, band->spans[p].layer, band->spans[q].layer, band->spans[p].con[2] == q - b1,
                                     band->spans[p].floor, band->spans[q].floor, s->total + p, 2))
                        goto oom;
        }
    /* ... and with the previous band's last row (z = zw), with the links across it. */
    if (s->have_strip) {
        uint32_t last_dn = PTL_VX_NONE, last_up = PTL_VX_NONE;
        for (uint32_t u = 0; u < W; ++u) {
            const uint32_t b1 = ptl_vx_col_begin(band, u), e1 = ptl_vx_col_end(band, u);
            for (uint32_t p = s->strip_start.data[u]; p < s->strip_start.data[u + 1]; ++p)
                for (uint32_t q = b1; q < e1; ++q) {
                    const strip_span* sp = &s->strip.data[p];
                    const bool linked = sp->con1 == q - b1;
                    const uint32_t lb = band->spans[q].layer;
                    if (!border_pair(s, sp->bl, lb, linked, sp->floor, band->spans[q].floor, s->strip_first + p, 1))
                        goto oom;
                    if (linked && (!push_x_run(s, &last_dn, sp->bl, lb, (zw - 1) * W + u, 1) ||
                                   !push_x_run(s, &last_up, lb, sp->bl, zw * W + u, 3)))
                        goto oom;
                }
        }
    }
    /* The seeds' nearest spans among the band's (find_seed's rule, in layers.c's words: the nearest
       column within walkable_radius + 1, then the highest floor at or below the seed, then the
       lowest above it, then the lower index). */
    for (uint32_t i = 0; i < s->seed_count; ++i) {
        seed_best* sb = &s->seeds[i];
        if (!sb->valid) continue;
        const ptl_vx_params* p = &s->p;
        const int64_t r = p->walkable_radius + 1;
        for (int64_t dz = -r; dz <= r; ++dz)
            for (int64_t dx = -r; dx <= r; ++dx) {
                const int64_t x = sb->cx + dx, z = sb->cz + dz;
                if (x < 0 || x >= p->width || z < (int64_t)zw || z >= (int64_t)(zw + d)) continue;
                const uint32_t c = (uint32_t)(z - zw) * W + (uint32_t)x;
                for (uint32_t t = ptl_vx_col_begin(band, c), e = ptl_vx_col_end(band, c); t < e; ++t) {
                    const double fl = band->spans[t].floor;
                    if (sb->hw < fl - p->walkable_climb || sb->hw > fl + p->walkable_height) continue;
                    const double score = fl <= sb->hw ? sb->hw - fl : p->walkable_height + (fl - sb->hw);
                    const int64_t d2 = dx * dx + dz * dz;
                    const uint64_t tw = s->total + t;
                    if (!sb->found || d2 < sb->d2 || (d2 == sb->d2 && score < sb->score) ||
                        (d2 == sb->d2 && score == sb->score && tw < sb->t))
                        sb->found = true, sb->d2 = d2, sb->score = score, sb->t = tw, sb->bl = band->spans[t].layer;
                }
            }
    }
    /* Gap links, their far ends to be matched at the end. */
    for (uint32_t g = 0; g < band->gap_count; ++g) {
        const ptl_vx_gap* gp = &band->gaps[g];
        const uint32_t c = band->col_of[gp->span], x = c % W, z = c / W, k = gp->cols + 1u;
        sgap r = {(zw + z) * W + x,
                  gp->span - ptl_vx_col_begin(band, c),
                  (uint32_t)((int64_t)(zw + z) + (int64_t)k * DZ[gp->dir & 3]) * W + (uint32_t)((int64_t)x + (int64_t)k * DX[gp->dir & 3]),
                  gp->other,
                  band->spans[gp->span].layer,
                  gp->dir,
                  gp->cols,
                  0};
        if (!PTL_PUSH(a, s->gaps, r)) goto oom;
    }
    /* 4. The last row, for the next band. */
    if (zw + d < D) {
        const uint32_t r0 = (d - 1) * W, first = ptl_vx_col_begin(band, r0), end = ptl_vx_col_begin(band, r0 + W);
        if (!PTL_RESERVE(a, s->strip_start, (uint64_t)W + 1) || !PTL_RESERVE(a, s->strip, (uint64_t)(end - first) + 1))
            goto oom;
        for (uint32_t u = 0; u <= W; ++u) s->strip_start.data[u] = ptl_vx_col_begin(band, r0 + u) - first;
        for (uint32_t t = first; t < end; ++t) {
            strip_span sp = {band->spans[t].floor, band->spans[t].con[1], 0, band->spans[t].layer};
            s->strip.data[t - first] = sp;
        }
        s->strip_first = s->total + first;
        s->have_strip = true;
    }
    s->total += band->span_count;
    s->z_next += (int32_t)d;
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory (a band of %u open spans)", band->span_count);
done:
    for (uint32_t b = 0; bo && b < nbx; ++b) ptl_vx_block_out_free(&bo[b], a);
    for (uint32_t b = 0; mo && b < nbx; ++b) {
        PTL_ARRAY_FREE(a, mo[b].bl);
        PTL_ARRAY_FREE(a, mo[b].pool);
        PTL_ARRAY_FREE(a, mo[b].links);
    }
    ptl_mem_free(a, bo, (size_t)nbx * sizeof *bo);
    ptl_mem_free(a, mo, (size_t)nbx * sizeof *mo);
    ptl_mem_free(a, base, ((size_t)nbx + 1) * sizeof *base);
    return st;
}

/* ---- The end ----------------------------------------------------------------------------------- */

static int cmp_sgap(const void* x, const void* y) {
    const sgap *a = x, *b = y;
    if (a->src_col != b->src_col) return a->src_col < b->src_col ? -1 : 1;
    if (a->src_k != b->src_k) return a->src_k < b->src_k ? -1 : 1;
    return a->dir < b->dir ? -1 : a->dir > b->dir;
}
static int cmp_link(const void* x, const void* y) {
    const ptl_lmap_link *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    if (a->dir != b->dir) return a->dir < b->dir ? -1 : 1;
    return a->col < b->col ? -1 : a->col > b->col;
}
static int cmp_gap(const void* x, const void* y) {
    const ptl_lmap_gap *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    if (a->col != b->col) return a->col < b->col ? -1 : 1;
    return a->dir < b->dir ? -1 : a->dir > b->dir;
}
static int cmp_u64_pair(const void* x, const void* y) {
    const uint64_t a = ((const uint64_t*)x)[0], b = ((const uint64_t*)y)[0];
    return a < b ? -1 : a > b;
}

ptl_status ptl_lstream_finish(ptl_layer_stream* s, ptl_layer_set* ls, ptl_layer_map* map, ptl_error* err) {
    memset(ls, 0, sizeof *ls);
    memset(map, 0, sizeof *map);
    ptl_allocator al = s->a;
    const ptl_allocator* a = &al;
    ls->alloc = al;
    map->alloc = al;
    ptl_status st = PTL_OK;
    const uint32_t n = s->bl.count;
    const size_t nn = (size_t)n + 1;
    uint32_t* root = NULL;
    uint64_t* key = NULL;   /* per root: (lowest, root) */
    uint32_t* dense = NULL;
    uint8_t* keep = NULL;
    uint32_t* size = NULL;
    uint32_t* adj_start = NULL;
    uint32_t* adj = NULL;
    size_t adj_n = 0;
    uint32_t* queue = NULL;
    ptl_lmap_gap* gaps = NULL;
    uint64_t* conf = NULL;
    uint32_t nconf = 0, ngaps = s->gaps.count, roots = 0, kept = 0;
    if (s->z_next != s->p.depth) {
        st = ptl_error_set(err, PTL_ERR_INTERNAL, "layers: %d of %d rows given", s->z_next, s->p.depth);
        goto done;
    }
    if (!PTL_PUSH(a, s->block_first, n)) goto oom;
    /* Gap links' far ends: the mirror gap (every gap is listed from both ends) names its block-layer. */
    if (!ptl_sort(s->gaps.data, s->gaps.count, sizeof *s->gaps.data, cmp_sgap, a)) goto oom;
    gaps = ptl_mem_alloc(a, ((size_t)s->gaps.count + 1) * sizeof *gaps);
    if (!gaps) goto oom;
    for (uint32_t g = 0; g < s->gaps.count; ++g) {
        const sgap* r = &s->gaps.data[g];
        sgap k = {r->dst_col, r->dst_k, 0, 0, 0, (uint8_t)((r->dir + 2) & 3), 0, 0};
        uint32_t lo = 0, hi = s->gaps.count;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (cmp_sgap(&s->gaps.data[mid], &k) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo == s->gaps.count || cmp_sgap(&s->gaps.data[lo], &k) != 0) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "layers: a gap link without its other end (damaged tiles?)");
            goto done;
        }
        ptl_lmap_gap o = {r->a, s->gaps.data[lo].a, r->src_col, r->dir, r->cols, 0};
        gaps[g] = o;
    }
    PTL_ARRAY_FREE(a, s->gaps);
    /* 1. The stitch. */
    root = ptl_mem_alloc(a, nn * sizeof *root);
    if (!root) goto oom;
    if (!ptl_pair_set_sorted(&s->conf, a, &conf, &nconf) ||
        !ptl_sort(s->cand.data, s->cand.count, sizeof *s->cand.data, ptl_vx_candidate_cmp, a))
        goto oom;
    st = ptl_vx_stitch(n, conf, nconf, s->cand.data, s->cand.count, a, root, err);
    ptl_pair_set_free(&s->conf, a);
    PTL_ARRAY_FREE(a, s->cand);
    if (st < 0) goto done;
    /* 2. Per root: spans, lowest span. */
    key = ptl_mem_alloc(a, nn * 2 * sizeof *key);
    size = ptl_mem_calloc(a, nn, sizeof *size);
    keep = ptl_mem_alloc(a, nn);
    dense = ptl_mem_alloc(a, nn * sizeof *dense);
    if (!key || !size || !keep || !dense) goto oom;
    for (uint32_t i = 0; i < n; ++i) key[2 * i] = UINT64_MAX;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t r = root[i];
        size[r] += s->bl.data[i].count;
        if (s->bl.data[i].lowest < key[2 * r]) key[2 * r] = s->bl.data[i].lowest;
    }
    for (uint32_t i = 0; i < n; ++i) roots += root[i] == i;
    memset(keep, 1, nn);
    /* 3. The graph of roots: links and gap links between different ones (both ways). */
    adj_start = ptl_mem_calloc(a, nn + 1, sizeof *adj_start);
    if (!adj_start) goto oom;
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t i = 0; i < s->links.count + ngaps; ++i) {
            const uint32_t x = i < s->links.count ? s->links.data[i].a : gaps[i - s->links.count].a;
            const uint32_t y = i < s->links.count ? s->links.data[i].b : gaps[i - s->links.count].b;
            const uint32_t rx = root[x], ry = root[y];
            if (rx == ry) continue;
            if (pass == 0) adj_start[rx + 1]++, adj_start[ry + 1]++;
            else adj[adj_start[rx]++] = ry, adj[adj_start[ry]++] = rx;
        }
        if (pass == 0) {
            for (uint32_t i = 0; i < n; ++i) adj_start[i + 1] += adj_start[i];
            adj_n = (size_t)adj_start[n] + 1;
            adj = ptl_mem_alloc(a, adj_n * sizeof *adj);
            if (!adj) goto oom;
        } else {
            for (uint32_t i = n; i > 0; --i) adj_start[i] = adj_start[i - 1];
            adj_start[0] = 0;
        }
    }
    /* Small islands: a layer under min_island spans linked to no other. */
    if (s->p.min_island > 0)
        for (uint32_t r = 0; r < n; ++r)
            if (root[r] == r && size[r] < (uint32_t)s->p.min_island && adj_start[r] == adj_start[r + 1]) {
                keep[r] = 0;
                ls->dropped_islands++;
            }
    /* Seeds: what the seeds' layers reach. */
    if (s->seed_count) {
        memset(keep, 0, nn);
        queue = ptl_mem_alloc(a, nn * sizeof *queue);
        if (!queue) goto oom;
        uint32_t qn = 0;
        for (uint32_t i = 0; i < s->seed_count; ++i) {
            if (!s->seeds[i].found) continue;
            ls->seeds_found++;
            const uint32_t r = root[s->seeds[i].bl];
            if (!keep[r]) keep[r] = 1, queue[qn++] = r;
        }
        for (uint32_t q = 0; q < qn; ++q)
            for (uint32_t k = adj_start[queue[q]]; k < adj_start[queue[q] + 1]; ++k)
                if (!keep[adj[k]]) keep[adj[k]] = 1, queue[qn++] = adj[k];
        if (ls->seeds_found == 0) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT,
                               "layers: none of the %u seeds lies on walkable space (the first is at %g, %g, %g; a "
                               "seed must be within the agent height above a floor, or the climb below it)",
                               s->seed_count, (double)s->first_seed[0], (double)s->first_seed[1],
                               (double)s->first_seed[2]);
            goto done;
        }
    }
    /* 4. Dense ids for the kept roots in order of their lowest span. */
    for (uint32_t r = 0; r < n; ++r)
        if (root[r] == r && keep[r]) key[2 * kept] = key[2 * r], key[2 * kept + 1] = r, ++kept;
    if (!ptl_sort(key, kept, 2 * sizeof *key, cmp_u64_pair, a)) goto oom;
    for (uint32_t r = 0; r < n; ++r) dense[r] = PTL_VX_NONE;
    for (uint32_t i = 0; i < kept; ++i) dense[key[2 * i + 1]] = i;
    ls->layers = ptl_mem_calloc(a, kept ? kept : 1, sizeof *ls->layers);
    ls->layer_count = ls->layers ? kept : 0;
    map->layer_first = ptl_mem_calloc(a, (size_t)kept + 1, sizeof *map->layer_first);
    map->layer_count = map->layer_first ? kept : 0;
    map->layer_bls = ptl_mem_alloc(a, nn * sizeof *map->layer_bls);
    map->layer_bls_cap = map->layer_bls ? n + 1 : 0;
    if (!ls->layers || !map->layer_first || !map->layer_bls) goto oom;
    ls->dropped_layers = roots - kept;
    for (uint32_t l = 0; l < kept; ++l) {
        ptl_layer_info* li = &ls->layers[l];
        li->x0 = li->z0 = INT32_MAX, li->x1 = li->z1 = INT32_MIN;
        li->floor_min = UINT16_MAX, li->floor_max = 0;
    }
    for (uint32_t i = 0; i < n; ++i) {
        ptl_lmap_bl* r = &s->bl.data[i];
        r->world = dense[root[i]];
        if (r->world == PTL_VX_NONE) continue;
        ptl_layer_info* li = &ls->layers[r->world];
        const int32_t bx = (int32_t)(r->block % s->nbx * PTL_LMAP_B), bz = (int32_t)(r->block / s->nbx * PTL_LMAP_B);
        if (bx + r->x0 < li->x0) li->x0 = bx + r->x0;
        if (bx + r->x1 > li->x1) li->x1 = bx + r->x1;
        if (bz + r->z0 < li->z0) li->z0 = bz + r->z0;
        if (bz + r->z1 > li->z1) li->z1 = bz + r->z1;
        li->span_count += r->count;
        if (r->floor_min < li->floor_min) li->floor_min = r->floor_min;
        if (r->floor_max > li->floor_max) li->floor_max = r->floor_max;
        map->layer_first[r->world + 1]++;
    }
    for (uint32_t l = 0; l < kept; ++l) map->layer_first[l + 1] += map->layer_first[l];
    for (uint32_t l = 0; l < kept; ++l) dense[l] = map->layer_first[l]; /* dense, done with: each layer's next slot */
    for (uint32_t i = 0; i < n; ++i)
        if (s->bl.data[i].world != PTL_VX_NONE) map->layer_bls[dense[s->bl.data[i].world]++] = i;
    /* 5. The map. */
    if (!ptl_sort(s->links.data, s->links.count, sizeof *s->links.data, cmp_link, a) ||
        !ptl_sort(gaps, ngaps, sizeof *gaps, cmp_gap, a))
        goto oom;
    map->p = s->p;
    map->nbx = s->nbx, map->nbz = s->nbz;
    /* the arrays are handed over with their allocated sizes (ptl_layer_map_free) */
    map->block_first = s->block_first.data, map->block_first_cap = s->block_first.cap;
    map->bl = s->bl.data, map->bl_count = n, map->bl_cap = s->bl.cap;
    map->pool = s->pool.data, map->pool_size = s->pool.cap;
    map->links = s->links.data, map->link_count = s->links.count, map->link_cap = s->links.cap;
    map->gaps = gaps, map->gap_count = ngaps, map->gap_cap = ngaps + 1;
    memset(&s->block_first, 0, sizeof s->block_first);
    memset(&s->bl, 0, sizeof s->bl);
    memset(&s->pool, 0, sizeof s->pool);
    memset(&s->links, 0, sizeof s->links);
    gaps = NULL;
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory (%u block-layers)", n);
done:
    ptl_mem_free(a, root, nn * sizeof *root);
    ptl_mem_free(a, key, nn * 2 * sizeof *key);
    ptl_mem_free(a, size, nn * sizeof *size);
    ptl_mem_free(a, keep, nn);
    ptl_mem_free(a, dense, nn * sizeof *dense);
    ptl_mem_free(a, adj_start, (nn + 1) * sizeof *adj_start);
    ptl_mem_free(a, adj, adj_n * sizeof *adj);
    ptl_mem_free(a, queue, nn * sizeof *queue);
    ptl_mem_free(a, gaps, ((size_t)ngaps + 1) * sizeof *gaps);
    if (st < 0) {
        ptl_layer_set_free(ls);
        ptl_layer_map_free(map);
    }
    ptl_lstream_destroy(s);
    if (st >= 0) ptl_error_ok(err);
    return st;
}
