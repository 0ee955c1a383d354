/* Interval geometry shared by the searches over the convex cells (search.c: the exact interval
   search; visibility.c: what a point sees; hubs.c: the exact search with hub labels): the lower
   bound of a path through an interval (Polyanya, Cui, Harabor and Grastien 2017, §3.3), the part of
   an edge on one side of a ray, and writing a successor node. Private to the runtime. */
#ifndef PTL_INTERVAL_H
#define PTL_INTERVAL_H

#include <math.h>

#include "query_internal.h"

/* Reflects g across the line of segment L-R when it lies on o's side (strictly), so that a straight
   line from o to the reflection crosses the line where the shortest way o -> line -> g does. */
static inline void ptl_iv_reflect(double ox, double oz, double* gx, double* gz, double lx, double lz, double rx,
                                  double rz) {
    double dx = rx - lx, dz = rz - lz;
    double so = dx * (oz - lz) - dz * (ox - lx);
    double sg = dx * (*gz - lz) - dz * (*gx - lx);
    double len2 = dx * dx + dz * dz;
    if (((so > 0 && sg > 0) || (so < 0 && sg < 0)) && len2 > 0) {
        double t = 2 * sg / len2;
        *gx += t * dz;
        *gz -= t * dx;
    }
}

/* Length of the shortest path from o through the segment [L, R] to g (Polyanya §3.3): reflect g
   across the segment's line when it lies on o's side, then go straight if the line o-g' meets the
   segment, else through the nearer end. */
static inline double ptl_iv_h(double ox, double oz, double gx, double gz, double lx, double lz, double rx, double rz) {
    double dx = rx - lx, dz = rz - lz;
    ptl_iv_reflect(ox, oz, &gx, &gz, lx, lz, rx, rz);
    double ex = gx - ox, ez = gz - oz;
    double denom = dx * ez - dz * ex;
    /* The line o-g' meets the segment's line at u = num / denom (L at 0, R at 1); no division. */
    double num = (ox - lx) * ez - (oz - lz) * ex;
    if (denom < 0) num = -num, denom = -denom;
    if (denom > 0 && num >= 0 && num <= denom) return sqrt(ex * ex + ez * ez);
    double vl = sqrt((lx - ox) * (lx - ox) + (lz - oz) * (lz - oz)) + sqrt((gx - lx) * (gx - lx) + (gz - lz) * (gz - lz));
    if (denom > 0 && num < 0) return vl;
    double vr = sqrt((rx - ox) * (rx - ox) + (rz - oz) * (rz - oz)) + sqrt((gx - rx) * (gx - rx) + (gz - rz) * (gz - rz));
    /* Beyond R, or o, g' and the segment's line parallel (then through the better end). */
    return denom > 0 || vr < vl ? vr : vl;
}

/* The part of [0, 1] where (1 - t) a + t b >= 0, for a linear function with values a at 0, b at 1. */
static inline bool ptl_iv_nonneg(double a, double b, double* t0, double* t1) {
    if (a >= 0) {
        *t0 = 0;
        *t1 = b >= 0 ? 1 : a / (a - b);
        return true;
    }
    if (b < 0) return false;
    *t0 = a / (a - b);
    *t1 = 1;
    return true;
}

/* Writes successor s on the edge of `slot` (the expanded cell's edge from w0, its first vertex and
   the successor's right side, to w1): the part [t0, t1], t measured from w0, seen from root (ox, oz)
   reached with length g. */
static inline void ptl_iv_put(ptl_snode* s, const ptl_slot* slot, double x0, double z0, double x1, double z1, double t0,
                              double t1, uint32_t root, double ox, double oz, double g, uint8_t turned) {
    if (t0 == 0) s->rx = x0, s->rz = z0;
    else s->rx = x0 + t0 * (x1 - x0), s->rz = z0 + t0 * (z1 - z0);
    if (t1 == 1) s->lx = x1, s->lz = z1;
    else s->lx = x0 + t1 * (x1 - x0), s->lz = z0 + t1 * (z1 - z0);
    s->ends = (uint8_t)((t0 == 0 ? PTL_END_RIGHT : 0) | (t1 == 1 ? PTL_END_LEFT : 0) | turned);
    s->ox = ox, s->oz = oz, s->g = g, s->root = root;
    s->cell = slot->nbr;
    s->edge = slot->twin;
}

/* The exact searches' node pool (query_internal.h): a recycled node or a new one; PTL_NONE when full. */
static inline uint32_t ptl_pool_take(ptl_query* q) {
    uint32_t i = q->free_head;
    if (i != PTL_NONE) q->free_head = q->nodes[i].parent;
    else if (q->node_count < q->max_nodes) i = q->node_count++;
    return i;
}

/* Open lists: a binary min-heap on f. */

/* Ties on f go to the larger g: the deeper node is nearer the goal. */
static inline bool ptl_heap_before(const ptl_heap_item* a, const ptl_heap_item* b) {
    return a->f < b->f || (a->f == b->f && a->g > b->g);
}

static inline void ptl_heap_push(ptl_heap_item* h, uint32_t* count, double f, float g, uint32_t node) {
    ptl_heap_item it = {f, node, g};
    uint32_t i = (*count)++;
    while (i > 0) {
        uint32_t p = (i - 1) >> 1;
        if (!ptl_heap_before(&it, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = it;
}

static inline uint32_t ptl_heap_pop(ptl_heap_item* h, uint32_t* count) {
    uint32_t top = h[0].node;
    uint32_t n = --(*count);
    if (n == 0) return top;
    ptl_heap_item last = h[n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ptl_heap_before(&h[c + 1], &h[c])) ++c;
        if (!ptl_heap_before(&h[c], &last)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

/* Landmark (ALT) bounds. Distances are stored as floats: a bound built from them may be too large
   by their rounding (2^-24 relative each); taking this much off keeps it a lower bound. */
#define PTL_ALT_SLACK 2.5e-7

/* A lower bound of the distance between a vertex with landmark distances d[k] and a point whose
   distances lie in [lo, hi] (ptl_query_point_bounds). */
static inline double ptl_alt_vertex(const float* d, const double* lo, const double* hi, uint32_t k) {
    double best = 0;
    for (uint32_t i = 0; i < k; ++i) {
        double dr = d[i];
        double x = lo[i] - dr, y = dr - hi[i];
        double h = x > y ? x : y;
        if (!(h > best)) continue; /* also skips NaN from infinite bounds */
        double slack = PTL_ALT_SLACK * (fabs(lo[i]) + fabs(hi[i]) + 2 * dr);
        if (h - slack > best) best = h - slack;
    }
    return best;
}

#endif
