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
    const uint32_t n = q->cnt[i] < PTL_DCB_CAP ? q->cnt[i] : PTL_DCB_CAP;
    for (uint32_t k = 0; k < n; ++k) {
        const uint32_t seg = q->seg[(size_t)i * PTL_DCB_CAP + k];
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
                           .out_count = q->cnt, .out_bound = q->bound};
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

