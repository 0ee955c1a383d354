/* Static uniform segment grid (see shape_seg_index.h). */
#include "shape_seg_index.h"

#include <string.h>

/* Visits every bucket the segment's path crosses, in two modes: with `items` NULL it counts the
   segment in `counts[b]`; otherwise `counts[b]` is bucket b's fill cursor and `id` goes there. */
static void cover(const ptl_seg_index* g, const ptl_bseg* s, uint32_t id, uint32_t* counts, uint32_t* items) {
    uint32_t c0 = ptl_seg_index_col(g, fmin(s->ax, s->bx)), c1 = ptl_seg_index_col(g, fmax(s->ax, s->bx));
    uint32_t r0 = ptl_seg_index_row(g, fmin(s->ay, s->by)), r1 = ptl_seg_index_row(g, fmax(s->ay, s->by));
    for (uint32_t r = r0; r <= r1; ++r) {
        uint32_t lo = c0, hi = c1;
        if (r0 != r1 && c0 != c1) {
            /* The part of the segment inside this row's band of y. */
            double dy = s->by - s->ay;
            double ylo = g->y0 + (double)r * g->cell, yhi = ylo + g->cell;
            double t0 = (ylo - s->ay) / dy, t1 = (yhi - s->ay) / dy;
            if (t0 > t1) {
                double t = t0;
                t0 = t1;
                t1 = t;
            }
            if (t0 < 0) t0 = 0;
            if (t1 > 1) t1 = 1;
            double xa = s->ax + (s->bx - s->ax) * t0, xb = s->ax + (s->bx - s->ax) * t1;
            uint32_t a = ptl_seg_index_col(g, fmin(xa, xb)), b = ptl_seg_index_col(g, fmax(xa, xb));
            lo = a > c0 ? a - 1 : c0;
            hi = b < c1 ? b + 1 : c1;
            if (lo < c0) lo = c0;
        }
        uint32_t* row = counts + (size_t)r * g->nx;
        if (!items) {
            for (uint32_t c = lo; c <= hi; ++c) row[c]++;
        } else {
            for (uint32_t c = lo; c <= hi; ++c) items[row[c]++] = id;
        }
    }
}

bool ptl_seg_index_build(ptl_seg_index* g, const ptl_allocator* a, const ptl_bseg* segs, uint32_t count) {
    memset(g, 0, sizeof *g);
    g->alloc = *a;
    double xmin = 0, ymin = 0, xmax = 0, ymax = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const ptl_bseg* s = &segs[i];
        double lx = fmin(s->ax, s->bx), hx = fmax(s->ax, s->bx), ly = fmin(s->ay, s->by), hy = fmax(s->ay, s->by);
        if (i == 0 || lx < xmin) xmin = lx;
        if (i == 0 || hx > xmax) xmax = hx;
        if (i == 0 || ly < ymin) ymin = ly;
        if (i == 0 || hy > ymax) ymax = hy;
    }
    double w = xmax - xmin, h = ymax - ymin;
    double n = count < 1 ? 1 : (double)count;
    if (n > (double)(1u << 22)) n = (double)(1u << 22); /* at most ~4M buckets */
    double cell = sqrt(w / n) * sqrt(h); /* sqrt(w * h / n) without underflow or overflow */
    /* A thin box must not get more buckets along its long side than there are segments. */
    if (cell < w / n) cell = w / n;
    if (cell < h / n) cell = h / n;
    if (!(cell > 0) || !isfinite(cell)) cell = 1;
    g->cell = cell;
    g->x0 = xmin;
    g->y0 = ymin;
    g->nx = (uint32_t)(w / cell) + 1;
    g->ny = (uint32_t)(h / cell) + 1;
    size_t buckets = (size_t)g->nx * g->ny;
    g->start = ptl_mem_calloc(a, buckets + 1, sizeof(uint32_t));
    if (!g->start) goto oom;
    for (uint32_t i = 0; i < count; ++i) cover(g, &segs[i], i, g->start, NULL);
    uint64_t total = 0;
    for (size_t b = 0; b < buckets; ++b) {
        uint32_t c = g->start[b];
        g->start[b] = (uint32_t)total;
        total += c;
        if (total > UINT32_MAX) goto oom;
    }
    g->start[buckets] = (uint32_t)total;
    g->items = ptl_mem_alloc(a, ((size_t)total + 1) * sizeof(uint32_t)); /* + 1: never a 0-byte request */
    if (!g->items) goto oom;
    /* Fill with start[] as cursors, then shift the cursors back into starts. */
    for (uint32_t i = 0; i < count; ++i) cover(g, &segs[i], i, g->start, g->items);
    for (size_t b = buckets; b > 0; --b) g->start[b] = g->start[b - 1];
    g->start[0] = 0;
    return true;
oom:
    ptl_seg_index_free(g);
    return false;
}

void ptl_seg_index_free(ptl_seg_index* g) {
    size_t buckets = (size_t)g->nx * g->ny;
    if (g->start) {
        ptl_mem_free(&g->alloc, g->items, ((size_t)g->start[buckets] + 1) * sizeof(uint32_t));
        ptl_mem_free(&g->alloc, g->start, (buckets + 1) * sizeof(uint32_t));
    }
    ptl_allocator a = g->alloc;
    memset(g, 0, sizeof *g);
    g->alloc = a;
}
