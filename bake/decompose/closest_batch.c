/* The closest-element backend's batches (closest_batch.h): what the decomposition hands a backend
   (ptl_closest_backend, <portolan/bake.h>) and how it reads the answers back, exactly: a backend
   gives candidates with float lower bounds, the exact double test and tie-break choose among them
   (ANavMG §4.1's GPU search, made byte-identical to the CPU walk of decompose.c). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "closest_batch.h"

#define P ptl_dc_pos
typedef ptl_dc_hit hit;

void ptl_dcb_scene_free(ptl_dc* d, ptl_dcb_scene* b) {
    ptl_mem_free(&d->alloc, b->xy, (size_t)b->nv * 2 * sizeof(float));
    ptl_mem_free(&d->alloc, b->vkey, (size_t)b->nv * sizeof(uint32_t));
    ptl_mem_free(&d->alloc, b->vflags, (size_t)b->nv * sizeof(uint32_t));
    ptl_mem_free(&d->alloc, b->seg, (size_t)b->ns * 2 * sizeof(uint32_t));
    ptl_mem_free(&d->alloc, b->seg_flags, (size_t)b->ns * sizeof(uint32_t));
    ptl_mem_free(&d->alloc, b->bstart, ((size_t)b->nb + 1) * sizeof(uint32_t));
    ptl_mem_free(&d->alloc, b->bseg, (size_t)b->nbseg * sizeof(uint32_t));
}

bool ptl_dcb_scene_build(ptl_dc* d, ptl_dcb_scene* b) {
    const ptl_seggrid* g = &d->grid;
    memset(b, 0, sizeof *b);
    b->nv = d->v.count;
    b->ns = d->s.count;
    b->nb = g->nx * g->ny;
    for (uint32_t i = 0; i < b->nb; ++i)
        for (uint32_t k = g->head[i]; k != PTL_NONE; k = g->nodes[k].next) b->nbseg += d->s.data[g->nodes[k].seg].alive;
    const ptl_allocator* a = &d->alloc;
    b->xy = ptl_mem_alloc(a, (size_t)b->nv * 2 * sizeof(float));
    b->vkey = ptl_mem_alloc(a, (size_t)b->nv * sizeof(uint32_t));
    b->vflags = ptl_mem_alloc(a, (size_t)b->nv * sizeof(uint32_t));
    b->seg = ptl_mem_alloc(a, (size_t)b->ns * 2 * sizeof(uint32_t));
    b->seg_flags = ptl_mem_alloc(a, (size_t)b->ns * sizeof(uint32_t));
    b->bstart = ptl_mem_alloc(a, ((size_t)b->nb + 1) * sizeof(uint32_t));
    b->bseg = ptl_mem_alloc(a, ((size_t)b->nbseg + 1) * sizeof(uint32_t));
    b->nbseg += 1; /* what was allocated */
    if (!b->xy || !b->vkey || !b->vflags || !b->seg || !b->seg_flags || !b->bstart || !b->bseg) return false;
    for (uint32_t i = 0; i < b->nv; ++i) {
        const ptl_dvert* v = &d->v.data[i];
        b->xy[2 * i] = (float)v->p.x;
        b->xy[2 * i + 1] = (float)v->p.y;
        uint32_t key = i; /* the least id at this position: twins are exactly the vertices there */
        for (uint32_t t = v->twin; t != i; t = d->v.data[t].twin) key = t < key ? t : key;
        b->vkey[i] = key;
        b->vflags[i] = v->real ? 1u : 0u;
    }
    for (uint32_t i = 0; i < b->ns; ++i) {
        b->seg[2 * i] = d->s.data[i].a;
        b->seg[2 * i + 1] = d->s.data[i].b;
        b->seg_flags[i] = d->s.data[i].kind == PTL_DSEG_WALL ? 1u : 0u;
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < b->nb; ++i) {
        b->bstart[i] = at;
        for (uint32_t k = g->head[i]; k != PTL_NONE; k = g->nodes[k].next)
            if (d->s.data[g->nodes[k].seg].alive) b->bseg[at++] = g->nodes[k].seg;
    }
    b->bstart[b->nb] = at;
    /* Float positions are off by half an ulp of the extent, and the shader's sums and products by a
       few more; 2^-16 of the extent is 128 times that. The input's tolerance widens the cone and
       moves points to ends (decompose.c, closest_in_cone). */
    const float slop = (float)(d->tol + ldexp(d->extent + g->cell, -16));
    b->s = (ptl_closest_scene){.vert_count = b->nv, .xy = b->xy, .vkey = b->vkey, .vflags = b->vflags,
                               .seg_count = b->ns, .seg = b->seg, .seg_flags = b->seg_flags,
                               .x0 = (float)g->x0, .y0 = (float)g->y0, .cell = (float)g->cell,
                               .nx = g->nx, .ny = g->ny, .bucket_start = b->bstart, .bucket_seg = b->bseg,
                               .slop = slop};
    return true;
}


void ptl_dcb_batch_free(ptl_dc* d, ptl_dcb_batch* q, uint32_t cap) {
#define FREE_FIELD(f, k) ptl_mem_free(&d->alloc, q->f, (size_t)cap * (k) * sizeof(*q->f));
    PTL_DCB_FIELDS(FREE_FIELD)
#undef FREE_FIELD
}

bool ptl_dcb_batch_alloc(ptl_dc* d, ptl_dcb_batch* q, uint32_t cap) {
    memset(q, 0, sizeof *q);
    bool ok = true;
#define ALLOC_FIELD(f, k) ok = ok && (q->f = ptl_mem_alloc(&d->alloc, (size_t)cap * (k) * sizeof(*q->f))) != NULL;
    PTL_DCB_FIELDS(ALLOC_FIELD)
#undef ALLOC_FIELD
    return ok;
}

/* The closest element among the backend's candidates, with the exact test and tie-break; settled
   when it lies strictly below the bound of every segment not returned (so none of those can win or
   tie), or when nothing is in the cone at all. */
void ptl_dcb_settle(ptl_dc* d, ptl_dcb_batch* q, uint32_t i) {
    const ptl_v2 np = P(d, q->notch[i]), r1 = q->r[2 * i], r2 = q->r[2 * i + 1];
    hit best = {PTL_NONE, {0, 0}, DBL_MAX, 0, 0};
    for (uint32_t k = q->start[i]; k < q->start[i + 1]; ++k) {
        const uint32_t seg = q->seg[k];
        hit h;
        if (seg >= d->s.count || !d->s.data[seg].alive || ptl_dc_touches(d, seg, np)) continue;
        if (ptl_dc_closest_in_cone(d, seg, np, r1, r2, &h) && ptl_dc_better(d, &h, &best)) best = h;
    }
    const double bound = q->bound[i];
    q->h[i] = best;
    q->settled[i] = best.seg == PTL_NONE ? bound >= FLT_MAX : sqrt(best.d2) * (1 + 0x1p-40) < bound;
}

ptl_status ptl_dcb_ask(ptl_dc* d, const ptl_closest_scene* scene, ptl_dcb_batch* q, uint32_t mode, ptl_error* err) {
    ptl_closest_batch b = {.mode = mode, .count = q->count, .cap = PTL_DCB_CAP, .notch = q->notch,
                           .cone = q->cone, .reach = q->reach, .out_seg = q->seg, .out_lb = q->lb,
                           .out_start = q->start, .out_count = q->cnt, .out_bound = q->bound};
    ptl_status st = d->backend->find(d->backend->user, scene, &b, err);
    if (st < 0 && err && err->status >= 0) ptl_error_set(err, st, "decompose: %s backend failed", d->backend->name);
    return st;
}

/* The queries: every open notch of id < n with a reflex gap, in increasing order. */
bool ptl_dcb_queries(ptl_dc* d, uint32_t n, ptl_dcb_batch* q, bool* oom) {
    q->count = 0;
    for (uint32_t i = 0; i < n; ++i) {
        ptl_v2 u, w;
        if (!d->v.data[i].real || !ptl_dc_reflex_gap(d, i, &u, &w, oom)) {
            if (*oom) return false;
            continue;
        }
        const uint32_t k = q->count++;
        q->notch[k] = i;
        q->r[2 * k] = v2_neg(w);
        q->r[2 * k + 1] = v2_neg(u);
        q->cone[4 * k] = (float)-w.x, q->cone[4 * k + 1] = (float)-w.y;
        q->cone[4 * k + 2] = (float)-u.x, q->cone[4 * k + 3] = (float)-u.y;
    }
    return true;
}


/* ---- the notch-by-notch pass from one batch ----------------------------------------------------
   Without notch pairs (notch_slack <= 1) the walk of closest_element returns the best element over
   every live segment, and it stops at the first ring of buckets whose nearest point lies beyond the
   best: rings 0 .. K-1 around the notch. A notch's answer from the batch still holds at its turn
   when its gap is the one asked about, its best segment is alive, and no segment added since in one
   of those buckets is better (one elsewhere is farther than the best, as every point outside those
   rings is). Each notch is registered in its square of rings; a segment added is tested against the
   notches registered in its buckets, and those it beats are walked. */

enum { MAX_REGISTERED_BUCKETS = 256 }; /* a notch whose rings cover more is walked */

struct ptl_dc_pending {
    ptl_dcb_batch q;
    uint32_t cap;
    uint32_t* slot;    /* per vertex of id < n: its query, or PTL_NONE */
    uint8_t* dirty;    /* per query */
    uint32_t* reg_start; /* nx * ny + 1 */
    uint32_t* reg;       /* query ids per bucket */
    uint32_t n, nb, nreg;
};

/* The buckets closest_element walks for query i: the square of rings 0 .. K-1 around the notch's
   bucket; false when it is too large to register (or the notch has no answer). */
static bool rings_of(const ptl_dc* d, const ptl_dcb_batch* q, uint32_t i, int64_t box[4]) {
    if (!q->settled[i] || q->h[i].seg == PTL_NONE) return false;
    const ptl_seggrid* g = &d->grid;
    const ptl_v2 np = P(d, q->notch[i]);
    const int64_t cx = ptl_seggrid_ix(g, np.x), cy = ptl_seggrid_iy(g, np.y);
    const double limit = sqrt(q->h[i].d2);
    int64_t k = 0;
    for (;; ++k) { /* closest_element's two stopping rules, the best known */
        if (k > 0 && (double)(k - 1) * g->cell > limit) break;
        if (cx - k < 0 && cy - k < 0 && cx + k >= g->nx && cy + k >= g->ny) break;
    }
    if (k < 1) k = 1;
    box[0] = cx - (k - 1) < 0 ? 0 : cx - (k - 1);
    box[1] = cy - (k - 1) < 0 ? 0 : cy - (k - 1);
    box[2] = cx + (k - 1) >= g->nx ? g->nx - 1 : cx + (k - 1);
    box[3] = cy + (k - 1) >= g->ny ? g->ny - 1 : cy + (k - 1);
    return (box[2] - box[0] + 1) * (box[3] - box[1] + 1) <= MAX_REGISTERED_BUCKETS;
}

static void pending_free(ptl_dc* d, ptl_dc_pending* p) {
    ptl_dcb_batch_free(d, &p->q, p->cap);
    ptl_mem_free(&d->alloc, p->slot, (size_t)p->n * sizeof(uint32_t));
    ptl_mem_free(&d->alloc, p->dirty, (size_t)p->cap * sizeof(uint8_t));
    ptl_mem_free(&d->alloc, p->reg_start, ((size_t)p->nb + 1) * sizeof(uint32_t));
    ptl_mem_free(&d->alloc, p->reg, (size_t)p->nreg * sizeof(uint32_t));
    ptl_mem_free(&d->alloc, p, sizeof *p);
}

/* Registers every query in the buckets of its rings (counting, then filling: two passes). */
static bool register_rings(ptl_dc* d, ptl_dc_pending* p) {
    const ptl_seggrid* g = &d->grid;
    p->nb = g->nx * g->ny;
    p->reg_start = ptl_mem_alloc(&d->alloc, ((size_t)p->nb + 1) * sizeof(uint32_t));
    if (!p->reg_start) return false;
    memset(p->reg_start, 0, ((size_t)p->nb + 1) * sizeof(uint32_t));
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t i = 0; i < p->q.count; ++i) {
            int64_t b[4];
            if (p->dirty[i]) continue;
            if (!rings_of(d, &p->q, i, b)) {
                p->dirty[i] = 1;
                continue;
            }
            for (int64_t y = b[1]; y <= b[3]; ++y)
                for (int64_t x = b[0]; x <= b[2]; ++x) {
                    const uint32_t k = (uint32_t)(y * g->nx + x);
                    if (pass == 0) p->reg_start[k + 1]++;
                    else p->reg[p->reg_start[k]++] = i;
                }
        }
        if (pass == 0) {
            for (uint32_t k = 0; k < p->nb; ++k) p->reg_start[k + 1] += p->reg_start[k];
            p->nreg = p->reg_start[p->nb];
            p->reg = ptl_mem_alloc(&d->alloc, ((size_t)p->nreg + 1) * sizeof(uint32_t));
            p->nreg += 1;
            if (!p->reg) return false;
        } else {
            for (uint32_t k = p->nb; k > 0; --k) p->reg_start[k] = p->reg_start[k - 1]; /* back to starts */
            p->reg_start[0] = 0;
        }
    }
    return true;
}

ptl_status ptl_dc_pending_begin(ptl_dc* d, uint32_t n, ptl_error* err) {
    ptl_dc_pending* p = ptl_mem_alloc(&d->alloc, sizeof *p);
    if (!p) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "decompose: out of memory");
    memset(p, 0, sizeof *p);
    p->n = n;
    p->cap = n + 1;
    ptl_dcb_scene sb;
    bool oom = false;
    ptl_status st = ptl_dcb_batch_alloc(d, &p->q, p->cap) ? PTL_OK : PTL_ERR_NO_MEMORY;
    if (st >= 0) {
        p->slot = ptl_mem_alloc(&d->alloc, (size_t)n * sizeof(uint32_t));
        p->dirty = ptl_mem_alloc(&d->alloc, (size_t)p->cap * sizeof(uint8_t));
        if (!p->slot || !p->dirty) st = PTL_ERR_NO_MEMORY;
    }
    if (st >= 0 && !ptl_dcb_queries(d, n, &p->q, &oom)) st = PTL_ERR_NO_MEMORY;
    bool scene = st >= 0 && ptl_dcb_scene_build(d, &sb);
    if (st >= 0 && !scene) st = PTL_ERR_NO_MEMORY;
    if (st >= 0 && p->q.count > 0) st = ptl_dcb_ask(d, &sb.s, &p->q, PTL_CLOSEST_NEAREST, err);
    if (scene) {
        d->backend->release(d->backend->user, &sb.s);
        ptl_dcb_scene_free(d, &sb);
    }
    if (st >= 0) {
        memset(p->slot, 0xff, (size_t)n * sizeof(uint32_t));
        memset(p->dirty, 0, (size_t)p->cap);
        for (uint32_t i = 0; i < p->q.count; ++i) {
            ptl_dcb_settle(d, &p->q, i);
            p->slot[p->q.notch[i]] = i;
        }
        if (!register_rings(d, p)) st = PTL_ERR_NO_MEMORY;
    }
    if (st < 0) {
        pending_free(d, p);
        return st == PTL_ERR_NO_MEMORY ? ptl_error_set(err, st, "decompose: out of memory") : st;
    }
    d->pending = p;
    return PTL_OK;
}

void ptl_dc_pending_note(ptl_dc* d, uint32_t seg) {
    ptl_dc_pending* p = d->pending;
    const ptl_seggrid* g = &d->grid;
    const ptl_v2 a = P(d, d->s.data[seg].a), b = P(d, d->s.data[seg].b);
    const int64_t y0 = ptl_seggrid_iy(g, fmin(a.y, b.y)), y1 = ptl_seggrid_iy(g, fmax(a.y, b.y));
    for (int64_t y = y0; y <= y1; ++y) { /* the buckets ptl_seggrid_insert put it in */
        int64_t x0, x1;
        if (!ptl_seggrid_row_span(g, a.x, a.y, b.x, b.y, y, &x0, &x1)) continue;
        for (int64_t x = x0; x <= x1; ++x) {
            const uint32_t k = (uint32_t)(y * g->nx + x);
            for (uint32_t r = p->reg_start[k]; r < p->reg_start[k + 1]; ++r) {
                const uint32_t i = p->reg[r];
                if (p->dirty[i]) continue;
                /* Only a segment the notch's walk would prefer to its answer changes it (better is a
                   total order, and a worse one cannot stop the walk before the answer's ring). */
                const ptl_v2 np = P(d, p->q.notch[i]);
                hit h;
                if (!ptl_dc_touches(d, seg, np) && ptl_dc_closest_in_cone(d, seg, np, p->q.r[2 * i], p->q.r[2 * i + 1], &h) &&
                    ptl_dc_better(d, &h, &p->q.h[i]))
                    p->dirty[i] = 1;
            }
        }
    }
}

bool ptl_dc_pending_take(ptl_dc* d, uint32_t n, ptl_v2 u, ptl_v2 w, ptl_dc_hit* out) {
    ptl_dc_pending* p = d->pending;
    const uint32_t i = n < p->n ? p->slot[n] : PTL_NONE;
    if (i == PTL_NONE || p->dirty[i]) return false;
    p->dirty[i] = 1; /* the first step only: a second portal's search sees the first */
    const ptl_v2 r1 = p->q.r[2 * i], r2 = p->q.r[2 * i + 1];
    if (!(v2_eq(r1, v2_neg(w)) && v2_eq(r2, v2_neg(u))) || !d->s.data[p->q.h[i].seg].alive) return false;
    *out = p->q.h[i];
    return true;
}

void ptl_dc_pending_end(ptl_dc* d) {
    if (!d->pending) return;
    pending_free(d, d->pending);
    d->pending = NULL;
}
