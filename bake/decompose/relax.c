/* Convexity relaxation, ANavMG thesis §4.3: cells may keep concavities no deeper than a tolerance,
   which removes the fans of portals that rounded obstacles otherwise produce.
   1. Strings of consecutive notches are simplified with Ramer-Douglas-Peucker; only the notches that
      survive are "real" and get portals.
   2. After all portals exist, a portal is dispensable when removing it leaves both of its endpoints
      near-convex: the merged angle is at most pi, or the vertex lies within the tolerance of the
      chord joining its two neighbours in the merged cell. */
#include <math.h>
#include <string.h>

#include "decompose.h"
#include "relax.h"

/* Distance from q to the line through a and b (to a when a == b). */
static double line_dist(ptl_v2 a, ptl_v2 b, ptl_v2 q) {
    ptl_v2 ab = v2_sub(b, a);
    double l2 = v2_len2(ab);
    if (l2 == 0) return sqrt(v2_dist2(a, q));
    return fabs(v2_cross(ab, v2_sub(q, a))) / sqrt(l2);
}

/* RDP over ids[0..n): clears `real` on the interior points it drops. Iterative (explicit stack). */
static ptl_status rdp(ptl_dc* d, const uint32_t* ids, uint32_t n, double tol) {
    if (n < 3) return PTL_OK;
    PTL_ARRAY(uint32_t) stack = {0};
    ptl_status st = PTL_OK;
    if (!PTL_PUSH(&d->alloc, stack, 0) || !PTL_PUSH(&d->alloc, stack, n - 1)) st = PTL_ERR_NO_MEMORY;
    while (st == PTL_OK && stack.count) {
        uint32_t hi = stack.data[--stack.count], lo = stack.data[--stack.count];
        if (hi <= lo + 1) continue;
        ptl_v2 a = ptl_dc_pos(d, ids[lo]), b = ptl_dc_pos(d, ids[hi]);
        double far = -1;
        uint32_t at = lo;
        for (uint32_t i = lo + 1; i < hi; ++i) {
            double dist = line_dist(a, b, ptl_dc_pos(d, ids[i]));
            if (dist > far) far = dist, at = i;
        }
        if (far <= tol) {
            for (uint32_t i = lo + 1; i < hi; ++i) d->v.data[ids[i]].real = 0;
            continue;
        }
        if (!PTL_PUSH(&d->alloc, stack, lo) || !PTL_PUSH(&d->alloc, stack, at) ||
            !PTL_PUSH(&d->alloc, stack, at) || !PTL_PUSH(&d->alloc, stack, hi))
            st = PTL_ERR_NO_MEMORY;
    }
    PTL_ARRAY_FREE(&d->alloc, stack);
    return st;
}

ptl_status ptl_relax_notches(ptl_dc* d, const ptl_shape* s, double tol) {
    PTL_ARRAY(uint32_t) run = {0};
    ptl_status st = PTL_OK;
    for (uint32_t r = 0; r < s->ring_count && st == PTL_OK; ++r) {
        uint32_t b = s->ring_start[r], e = s->ring_start[r + 1], m = e - b;
        /* Start just after a convex vertex so runs never wrap; a ring of notches only (a convex
           hole) is cut at its first vertex and its farthest vertex. */
        uint32_t start = PTL_NONE;
        for (uint32_t i = b; i < e; ++i)
            if (!d->v.data[i].notch) start = i;
        if (start == PTL_NONE) {
            ptl_v2 p0 = ptl_dc_pos(d, b);
            uint32_t far = b;
            for (uint32_t i = b; i < e; ++i)
                if (v2_dist2(ptl_dc_pos(d, i), p0) > v2_dist2(ptl_dc_pos(d, far), p0)) far = i;
            run.count = 0;
            for (uint32_t i = b; i <= far && st == PTL_OK; ++i)
                if (!PTL_PUSH(&d->alloc, run, i)) st = PTL_ERR_NO_MEMORY;
            if (st == PTL_OK) st = rdp(d, run.data, run.count, tol);
            run.count = 0;
            for (uint32_t i = far; i <= e && st == PTL_OK; ++i)
                if (!PTL_PUSH(&d->alloc, run, i == e ? b : i)) st = PTL_ERR_NO_MEMORY;
            if (st == PTL_OK) st = rdp(d, run.data, run.count, tol);
            continue;
        }
        run.count = 0;
        for (uint32_t k = 1; k <= m && st == PTL_OK; ++k) {
            uint32_t i = b + (start - b + k) % m;
            if (d->v.data[i].notch) {
                if (!PTL_PUSH(&d->alloc, run, i)) st = PTL_ERR_NO_MEMORY;
                continue;
            }
            if (run.count) st = rdp(d, run.data, run.count, tol);
            run.count = 0;
        }
    }
    PTL_ARRAY_FREE(&d->alloc, run);
    return st;
}

/* The elements around v, counter-clockwise: far end of each (wall out, portals..., wall in). */
typedef struct around {
    uint32_t far[64];
    uint32_t seg[64];
    uint32_t n;
} around;

static bool gather(const ptl_dc* d, uint32_t v, around* ar) {
    const ptl_dvert* x = &d->v.data[v];
    if (x->portal_count + 2 > 64) return false; /* too crowded to reason about: keep as is */
    ar->n = 0;
    ar->far[ar->n] = x->next;
    ar->seg[ar->n++] = x->out_seg;
    for (uint32_t r = x->portals; r != PTL_NONE; r = d->refs.data[r].next) {
        ar->seg[ar->n] = d->refs.data[r].seg;
        ar->far[ar->n++] = ptl_dc_other_end(d, d->refs.data[r].seg, v);
    }
    ar->far[ar->n] = x->prev;
    ar->seg[ar->n++] = PTL_NONE;
    return true;
}

static bool near_convex(const ptl_dc* d, uint32_t v, uint32_t far_a, uint32_t far_b, double tol) {
    ptl_v2 p = ptl_dc_pos(d, v), a = ptl_dc_pos(d, far_a), b = ptl_dc_pos(d, far_b);
    if (!v2_reflex(v2_sub(a, p), v2_sub(b, p))) return true;
    return line_dist(a, b, p) <= tol;
}

bool ptl_relax_too_deep(const ptl_dc* d, uint32_t v, double tol) {
    around ar;
    if (!gather(d, v, &ar)) return false;
    for (uint32_t i = 0; i + 1 < ar.n; ++i)
        if (!near_convex(d, v, ar.far[i], ar.far[i + 1], tol)) return true;
    return false;
}

/* Is portal `seg` removable as seen from its endpoint v? */
static bool dispensable_at(const ptl_dc* d, uint32_t v, uint32_t seg, double tol) {
    around ar;
    if (!gather(d, v, &ar)) return false;
    for (uint32_t i = 1; i + 1 < ar.n; ++i)
        if (ar.seg[i] == seg) return near_convex(d, v, ar.far[i - 1], ar.far[i + 1], tol);
    return false;
}

static void unlink_ref(ptl_dc* d, uint32_t v, uint32_t seg) {
    uint32_t* at = &d->v.data[v].portals;
    while (*at != PTL_NONE && d->refs.data[*at].seg != seg) at = &d->refs.data[*at].next;
    if (*at == PTL_NONE) return;
    *at = d->refs.data[*at].next;
    d->v.data[v].portal_count--;
    d->v.data[v].closed = 0; /* a gap may open again */
}

static uint32_t find(uint32_t* parent, uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* Do face sets `a` (listed from `first` through `ring`) and `b` share a vertex besides the ends of
   portal `skip`? Merging them across `skip` would then make a cell that touches itself there:
   wrapped around a hole, or pinched at a vertex. Cost: the size of set a (the smaller one). */
static bool touch_elsewhere(const ptl_dc* d, const ptl_dc_faces* fc, uint32_t* parent, const uint32_t* ring,
                            uint32_t first, uint32_t b, uint32_t skip) {
    uint32_t pa = d->s.data[skip].a, pb = d->s.data[skip].b;
    uint32_t f = first;
    do {
        for (uint32_t i = fc->cstart.data[f]; i < fc->cstart.data[f + 1]; ++i) {
            uint32_t x = fc->cverts.data[i];
            if (x == pa || x == pb) continue;
            /* The faces around x are the faces of the half-edges leaving x. */
            for (uint32_t h = fc->hstart[x]; h < fc->hstart[x + 1]; ++h)
                if (find(parent, fc->hface[h]) == b) return true;
        }
        f = ring[f];
    } while (f != first);
    return false;
}

ptl_status ptl_relax_drop_dispensable(ptl_dc* d, const ptl_dc_faces* fc, double tol) {
    size_t nf = (size_t)fc->face_count + 1;
    uint32_t* parent = ptl_mem_alloc(&d->alloc, nf * 3 * sizeof(uint32_t));
    if (!parent) return PTL_ERR_NO_MEMORY;
    uint32_t* ring = parent + nf; /* faces of a set, as a circular list */
    uint32_t* size = ring + nf;
    for (uint32_t f = 0; f < fc->face_count; ++f) parent[f] = ring[f] = f, size[f] = 1;
    for (uint32_t i = 0; i < fc->ns; ++i) {
        ptl_dseg* s = &d->s.data[i];
        if (!s->alive || s->kind != 1 || s->pad[0]) continue; /* pad[0]: a pocket's lid stays */
        uint32_t fa = find(parent, fc->hface[fc->seg_half[2 * i]]), fb = find(parent, fc->hface[fc->seg_half[2 * i + 1]]);
        if (fa == fb) continue;
        if (!dispensable_at(d, s->a, i, tol) || !dispensable_at(d, s->b, i, tol)) continue;
        if (size[fa] > size[fb]) {
            uint32_t t = fa; fa = fb; fb = t;
        }
        if (touch_elsewhere(d, fc, parent, ring, fa, fb, i)) continue;
        parent[fa] = fb;
        size[fb] += size[fa];
        uint32_t t = ring[fa];
        ring[fa] = ring[fb];
        ring[fb] = t;
        s->alive = 0;
        unlink_ref(d, s->a, i);
        unlink_ref(d, s->b, i);
        d->dropped_portals++;
    }
    ptl_mem_free(&d->alloc, parent, nf * 3 * sizeof(uint32_t));
    return PTL_OK;
}
