/* Uniform segment grid (see seggrid.h). */
#include "seggrid.h"

#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"

bool ptl_seggrid_init(ptl_seggrid* g, const ptl_allocator* a, double x0, double y0, double x1, double y1,
                      uint32_t expected) {
    memset(g, 0, sizeof *g);
    g->alloc = *a;
    double w = x1 - x0, h = y1 - y0;
    if (!(w > 0)) w = 1;
    if (!(h > 0)) h = 1;
    double n = expected < 16 ? 16 : (double)expected;
    if (n > (double)(1u << 22)) n = (double)(1u << 22); /* at most 4M buckets */
    /* sqrt(w * h / n), without w * h underflowing to 0 for tiny extents (which would give every
       side its 8192 buckets: 268 MB for a 1e-300 square) or overflowing for huge ones. */
    double cell = sqrt(w / n) * sqrt(h);
    /* Never so thin that one side gets more than 4096 buckets per million segments. */
    if (cell < w / 8192) cell = w / 8192;
    if (cell < h / 8192) cell = h / 8192;
    g->cell = cell;
    g->x0 = x0;
    g->y0 = y0;
    g->nx = (uint32_t)(w / cell) + 1;
    g->ny = (uint32_t)(h / cell) + 1;
    g->head = ptl_mem_alloc(a, (size_t)g->nx * g->ny * sizeof(uint32_t));
    if (!g->head) return false;
    memset(g->head, 0xff, (size_t)g->nx * g->ny * sizeof(uint32_t));
    return true;
}

void ptl_seggrid_free(ptl_seggrid* g) {
    ptl_mem_free(&g->alloc, g->head, (size_t)g->nx * g->ny * sizeof(uint32_t));
    ptl_mem_free(&g->alloc, g->nodes, (size_t)g->node_cap * sizeof(ptl_seggrid_node));
    memset(g, 0, sizeof *g);
}

static bool push(ptl_seggrid* g, uint32_t bucket, uint32_t seg) {
    if (!ptl_grow(&g->alloc, (void**)&g->nodes, &g->node_cap, (uint64_t)g->node_count + 1, sizeof(ptl_seggrid_node)))
        return false;
    g->nodes[g->node_count].seg = seg;
    g->nodes[g->node_count].next = g->head[bucket];
    g->head[bucket] = g->node_count++;
    return true;
}

bool ptl_seggrid_row_span(const ptl_seggrid* g, double ax, double ay, double bx, double by, int64_t iy, int64_t* x0,
                          int64_t* x1) {
    int64_t ix0 = ptl_seggrid_ix(g, fmin(ax, bx)), ix1 = ptl_seggrid_ix(g, fmax(ax, bx));
    int64_t iy0 = ptl_seggrid_iy(g, fmin(ay, by)), iy1 = ptl_seggrid_iy(g, fmax(ay, by));
    if (iy < iy0 || iy > iy1) return false;
    if (ix0 == ix1 || iy0 == iy1 || ay == by) {
        *x0 = ix0;
        *x1 = ix1;
        return true;
    }
    double dy = by - ay;
    double ylo = g->y0 + (double)iy * g->cell, yhi = ylo + g->cell;
    double t0 = (ylo - ay) / dy, t1 = (yhi - ay) / dy;
    if (t0 > t1) {
        double t = t0;
        t0 = t1;
        t1 = t;
    }
    if (t0 < 0) t0 = 0;
    if (t1 > 1) t1 = 1;
    double xa = ax + (bx - ax) * t0, xb = ax + (bx - ax) * t1;
    int64_t lo = ptl_seggrid_ix(g, fmin(xa, xb)) - 1, hi = ptl_seggrid_ix(g, fmax(xa, xb)) + 1;
    *x0 = lo < ix0 ? ix0 : lo;
    *x1 = hi > ix1 ? ix1 : hi;
    return true;
}

bool ptl_seggrid_insert(ptl_seggrid* g, uint32_t seg, double ax, double ay, double bx, double by) {
    int64_t iy0 = ptl_seggrid_iy(g, fmin(ay, by)), iy1 = ptl_seggrid_iy(g, fmax(ay, by));
    for (int64_t y = iy0; y <= iy1; ++y) {
        int64_t x0, x1;
        if (!ptl_seggrid_row_span(g, ax, ay, bx, by, y, &x0, &x1)) continue;
        for (int64_t x = x0; x <= x1; ++x)
            if (!push(g, (uint32_t)(y * g->nx + x), seg)) return false;
    }
    return true;
}
