/* Pairing notches before the notch-by-notch pass of the decomposition (decompose.c), with the
   closest-element search either walked here on the CPU or asked of a backend for all notches at
   once (ptl_closest_backend: the GPU's compute shader, ANavMG §4.1's GPU search in OpenGL 4.3).

   One portal between two notches that lie in each other's Area of Interest resolves both (the
   vertex-vertex case of §4). Notch by notch, that chance is taken only when the partner is the
   nearest one in reach at the moment the notch comes up, so a notch often pairs with a partner that
   a shorter pair needed, or takes a portal to a wall that a later partner could have used. So before
   the notch-by-notch pass, every notch lists the notches in reach (the same reach: pair_reach of its
   closest element, see closest_element) that would pair with it, and the pairs are taken shortest
   first, each while both notches are still open and see each other: a greedy matching. The
   remaining notches then go through resolve_notch. nav_test.obj 98 -> 97 cells, undulating.obj
   104 -> 100, orz900d.map 2,786 -> 2,671, Aurora.map 12,899 -> 12,222. The listing walks each
   notch's reach once more (the notch-by-notch pass walks it again for the notches left): orz900d's
   decomposition takes 24 ms instead of 16, Aurora's 117 instead of 68 (70k pairs; keeping only
   each notch's 4 nearest saved 15% of the time for 68 more cells).

   The listing sees one fixed scene (no portal is drawn until every notch is listed), so its searches
   are independent and batch well: a backend returns, per notch, candidates with float lower bounds
   of their distances; here the exact double test and tie-break (ptl_dc_closest_in_cone,
   ptl_dc_better) choose among them, and a notch whose answer does not settle it (its best is not
   strictly below the bound of what was not returned, or too many partners) is walked as before.
   The pairs then go through the same sort and greedy matching: the blob is the walk's, byte for
   byte. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "closest_batch.h"
#include "decompose.h"

#define P ptl_dc_pos
typedef ptl_dc_hit hit;
typedef ptl_dc_npair npair;
typedef ptl_dc_npair_array npair_array;


/* The pairs' order: shorter first, then by (a, b): a total order (equal pairs are equal bytes),
   so any correct sort gives the same array. An LSD radix sort on (d2, a, b) in digits of 11 bits,
   least significant first, each pass stable (skipped when every pair has the same digit); d2 >= 0
   is never -0 or NaN, so its bits order as its value. libc's qsort took 4-5% of the decomposition
   (12-byte elements moved by memcpy, compared through a function pointer: 44 M instructions on a
   256 x 256 random map). tmp: count entries. */
static inline uint32_t npair_digit(const npair* p, uint32_t pass) { /* pass 0..8: b, a, d2; 3 digits each */
    uint32_t key;
    if (pass < 3) key = p->b;
    else if (pass < 6) key = p->a;
    else memcpy(&key, &p->d2, sizeof key);
    return (key >> (11 * (pass % 3))) & 2047;
}

static void sort_pairs(npair* p, npair* tmp, uint32_t count, uint32_t* hist /* 2048 */) {
    npair *src = p, *dst = tmp;
    for (uint32_t pass = 0; pass < 9; ++pass) {
        memset(hist, 0, 2048 * sizeof(uint32_t));
        for (uint32_t i = 0; i < count; ++i) hist[npair_digit(&src[i], pass)]++;
        if (hist[npair_digit(&src[0], pass)] == count) continue; /* one digit: the order stands */
        for (uint32_t k = 0, sum = 0; k < 2048; ++k) {
            const uint32_t c = hist[k];
            hist[k] = sum, sum += c;
        }
        for (uint32_t i = 0; i < count; ++i) dst[hist[npair_digit(&src[i], pass)]++] = src[i];
        npair* t = src;
        src = dst, dst = t;
    }
    if (src != p) memcpy(p, src, (size_t)count * sizeof(npair));
}

/* What ptl_dc_mutual_notch and ptl_dc_in_sector compute from a vertex alone, kept per notch while
   the pairs are listed and matched: its reflex gap (the scene changes only where the matching adds
   a portal, and match_pairs forgets both ends), the direction of its outgoing wall and the key of its
   incoming one. The same doubles as theirs, so the same answers: take_partners and the matching
   asked 230k times on a 256 x 256 random map, each rebuilding the gap. */
typedef struct gap_entry {
    ptl_v2 r1, r2; /* the Area of Interest: -w, -u of the gap (u, w) */
    ptl_v2 ref;    /* next - p: direction keys are taken from it (key_at) */
    double end;    /* key of prev - p: the free sector is (0, end) */
} gap_entry;
typedef struct gap_cache {
    uint8_t* state; /* per vertex < n: 0 not known, 1 no gap (closed), 2 open (entry filled) */
    gap_entry* e;
} gap_cache;

/* Fills v's entry; its Area of Interest r1, r2 when the gap is known (open), else looked up. */
static void gap_fill(ptl_dc* d, gap_cache* c, uint32_t v, const ptl_v2* r) {
    const ptl_dvert* x = &d->v.data[v];
    ptl_v2 u, w;
    bool oom; /* sector_dirs sets d->oom, which the caller reports */
    gap_entry* e = &c->e[v];
    e->ref = v2_sub(P(d, x->next), x->p);
    e->end = v2_angle_key(e->ref, v2_sub(P(d, x->prev), x->p));
    if (r) {
        e->r1 = r[0], e->r2 = r[1];
        c->state[v] = 2;
    } else if (!x->closed && ptl_dc_reflex_gap(d, v, &u, &w, &oom)) {
        e->r1 = v2_neg(w), e->r2 = v2_neg(u);
        c->state[v] = 2;
    } else {
        c->state[v] = 1;
    }
}

static const gap_entry* gap_of(ptl_dc* d, gap_cache* c, uint32_t v) {
    if (c->state[v] == 0) gap_fill(d, c, v, NULL);
    return c->state[v] == 2 ? &c->e[v] : NULL;
}

/* ptl_dc_in_sector with the keys of e (v's entry, open or not). */
static bool sector_has(const ptl_dc* d, uint32_t v, const gap_entry* e, ptl_v2 dir) {
    const double k = v2_angle_key(e->ref, dir);
    if (!(k > 0 && k < e->end)) return false;
    for (uint32_t r = d->v.data[v].portals; r != PTL_NONE; r = d->refs.data[r].next)
        if (d->refs.data[r].key == k) return false;
    return true;
}

/* ptl_dc_mutual_notch(d, v, p) through the cache. */
static bool mutual(ptl_dc* d, gap_cache* c, uint32_t v, ptl_v2 p) {
    const gap_entry* e = gap_of(d, c, v);
    if (!e) return false;
    const ptl_v2 dq = v2_sub(p, P(d, v));
    return v2_cross(e->r1, dq) >= 0 && v2_cross(e->r2, dq) <= 0 && sector_has(d, v, e, dq);
}

/* Appends the pair (n, v) for each candidate v that would pair with n: within n's reach, listed by
   the lower notch or by the higher when the lower's reach falls short of it (the conditions are
   symmetric, only the reaches differ). Notches are listed in increasing order, so reach2_of[v] is
   known for every v < n. */
static bool take_partners(ptl_dc* d, gap_cache* c, uint32_t n, const double* reach2_of, const uint32_t* vs,
                          uint32_t count, size_t stride, npair_array* pairs) {
    const ptl_v2 np = P(d, n);
    const double reach2 = reach2_of[n];
    gap_of(d, c, n);
    const gap_entry* en = &c->e[n]; /* ref and end are filled open or not */
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t v = *(const uint32_t*)((const char*)vs + k * stride);
        const ptl_v2 q = P(d, v);
        const double d2 = v2_dist2(q, np);
        if (v == n || d2 == 0 || d2 > reach2 || (v < n && d2 <= reach2_of[v])) continue;
        if (!sector_has(d, n, en, v2_sub(q, np)) || !mutual(d, c, v, np)) continue;
        npair pr = {n < v ? n : v, n < v ? v : n, (float)d2};
        if (!PTL_PUSH(&d->alloc, *pairs, pr)) return false;
    }
    return true;
}

/* Lists n's partners with the CPU walk: one walk around n finds both its closest element and its
   candidates (ptl_dc_closest_element). Stores n's reach. */
static bool list_partners(ptl_dc* d, gap_cache* c, uint32_t n, double* reach2_of, npair_array* cand,
                          npair_array* pairs) {
    ptl_v2 u, w;
    bool oom;
    reach2_of[n] = 0;
    if (!ptl_dc_reflex_gap(d, n, &u, &w, &oom)) return !oom;
    const ptl_v2 r1 = v2_neg(w), r2 = v2_neg(u);
    hit none;
    cand->count = 0;
    hit h = ptl_dc_closest_element(d, n, r1, r2, d->notch_slack, &none, cand);
    if (h.seg == PTL_NONE || d->oom) return !d->oom;
    const double reach = ptl_dc_pair_reach(h.d2, d->notch_slack, d->grid.cell);
    reach2_of[n] = reach * reach;
    return cand->count == 0 || take_partners(d, c, n, reach2_of, &cand->data[0].a, cand->count, sizeof(npair), pairs);
}

/* The open notches the backend found within reach of query i, as the walk's candidates: walls
   alive, starting at an open notch, not touching it, in the closed cone; each once (a vertex starts
   one wall, so a segment met twice is the same vertex: stamped). The order does not matter: the
   pairs are sorted by a total order. */
static uint32_t partner_verts(ptl_dc* d, ptl_dcb_batch* q, uint32_t i, uint32_t* out) {
    const ptl_v2 np = P(d, q->notch[i]), r1 = q->r[2 * i], r2 = q->r[2 * i + 1];
    const uint32_t stamp = ++d->stamp_id;
    uint32_t k = 0;
    for (uint32_t j = q->start[i]; j < q->start[i + 1]; ++j) {
        const uint32_t seg = q->seg[j];
        if (seg >= d->s.count || d->stamp[seg] == stamp) continue;
        d->stamp[seg] = stamp;
        const ptl_dseg* s = &d->s.data[seg];
        if (!s->alive || s->kind != PTL_DSEG_WALL || !d->v.data[s->a].real || ptl_dc_touches(d, seg, np)) continue;
        const ptl_v2 dq = v2_sub(P(d, s->a), np);
        if (v2_cross(r1, dq) < 0 || v2_cross(r2, dq) > 0) continue;
        out[k++] = s->a;
    }
    return k;
}

/* list_partners for every notch of id < n through the backend: two batches (closest elements,
   then partners within each reach), the walk where an answer does not settle a notch. */
static ptl_status list_with_backend(ptl_dc* d, gap_cache* c, uint32_t n, double* reach2, npair_array* cand,
                                    npair_array* pairs, ptl_error* err) {
    ptl_dcb_scene sb;
    ptl_dcb_batch q;
    const uint32_t cap = n + 1;
    bool oom = false;
    memset(&q, 0, sizeof q);
    ptl_status st = ptl_dcb_scene_build(d, &sb) && ptl_dcb_batch_alloc(d, &q, cap) ? PTL_OK : PTL_ERR_NO_MEMORY;
    if (st >= 0 && !ptl_dcb_queries(d, n, &q, &oom)) st = PTL_ERR_NO_MEMORY;
    for (uint32_t i = 0; st >= 0 && i < q.count; ++i) gap_fill(d, c, q.notch[i], &q.r[2 * i]); /* the gaps found */
    if (st >= 0 && q.count > 0) st = ptl_dcb_ask(d, &sb.s, &q, PTL_CLOSEST_NEAREST, err);
    for (uint32_t i = 0; st >= 0 && i < q.count; ++i) {
        ptl_dcb_settle(d, &q, i);
        q.reach[i] = -1; /* no partner search */
        if (!q.settled[i] || q.h[i].seg == PTL_NONE) continue;
        const double reach = ptl_dc_pair_reach(q.h[i].d2, d->notch_slack, d->grid.cell);
        reach2[q.notch[i]] = reach * reach;
        q.reach[i] = nextafterf((float)reach, FLT_MAX);
    }
    if (st >= 0 && q.count > 0) st = ptl_dcb_ask(d, &sb.s, &q, PTL_CLOSEST_PARTNERS, err);
    uint32_t vs[PTL_DCB_CAP];
    for (uint32_t i = 0; st >= 0 && i < q.count; ++i) {
        const uint32_t v = q.notch[i];
        bool ok;
        if (!q.settled[i] || q.cnt[i] > PTL_DCB_CAP) {
            d->backend_fallbacks++;
            ok = list_partners(d, c, v, reach2, cand, pairs);
        } else {
            ok = q.h[i].seg == PTL_NONE ||
                 take_partners(d, c, v, reach2, vs, partner_verts(d, &q, i, vs), sizeof(uint32_t), pairs);
        }
        if (!ok) st = PTL_ERR_NO_MEMORY;
    }
    d->backend->release(d->backend->user, &sb.s);
    ptl_dcb_batch_free(d, &q, cap);
    ptl_dcb_scene_free(d, &sb);
    return st;
}

/* The greedy matching over the sorted pairs: each taken while both notches are still open and
   see each other. A portal changes the gaps of its two ends only: their cache entries go. */
static bool match_pairs(ptl_dc* d, gap_cache* c, const npair_array* pairs) {
    for (uint32_t k = 0; k < pairs->count; ++k) {
        const uint32_t a = pairs->data[k].a, b = pairs->data[k].b;
        if (!mutual(d, c, a, P(d, b)) || !mutual(d, c, b, P(d, a)) || !ptl_dc_visible(d, P(d, a), P(d, b))) continue;
        if (!ptl_dc_add_portal(d, a, b)) return false;
        c->state[a] = c->state[b] = 0;
    }
    return true;
}

ptl_status ptl_dc_pair_notches(ptl_dc* d, uint32_t n, ptl_error* err) {
    npair_array pairs = {0}, cand = {0};
    double* reach2 = ptl_mem_alloc(&d->alloc, ((size_t)n + 1) * sizeof(double));
    gap_cache c = {ptl_mem_calloc(&d->alloc, (size_t)n + 1, 1),
                   ptl_mem_alloc(&d->alloc, ((size_t)n + 1) * sizeof(gap_entry))};
    ptl_status st = reach2 && c.state && c.e ? PTL_OK : PTL_ERR_NO_MEMORY;
    if (st >= 0) memset(reach2, 0, ((size_t)n + 1) * sizeof(double));
    if (st >= 0 && d->backend) {
        st = list_with_backend(d, &c, n, reach2, &cand, &pairs, err);
    } else {
        for (uint32_t i = 0; i < n && st >= 0; ++i)
            if (d->v.data[i].real && !list_partners(d, &c, i, reach2, &cand, &pairs)) st = PTL_ERR_NO_MEMORY;
    }
    ptl_mem_free(&d->alloc, reach2, ((size_t)n + 1) * sizeof(double));
    PTL_ARRAY_FREE(&d->alloc, cand);
    if (st >= 0 && pairs.count > 1) {
        const size_t bytes = (size_t)pairs.count * sizeof(npair) + 2048 * sizeof(uint32_t);
        npair* tmp = ptl_mem_alloc(&d->alloc, bytes);
        if (tmp) sort_pairs(pairs.data, tmp, pairs.count, (uint32_t*)(tmp + pairs.count));
        else st = PTL_ERR_NO_MEMORY;
        ptl_mem_free(&d->alloc, tmp, bytes);
    }
    if (st >= 0 && !match_pairs(d, &c, &pairs)) st = PTL_ERR_NO_MEMORY;
    ptl_mem_free(&d->alloc, c.state, (size_t)n + 1);
    ptl_mem_free(&d->alloc, c.e, ((size_t)n + 1) * sizeof(gap_entry));
    PTL_ARRAY_FREE(&d->alloc, pairs);
    if (st == PTL_ERR_NO_MEMORY) return ptl_error_set(err, st, "decompose: out of memory");
    return st;
}
