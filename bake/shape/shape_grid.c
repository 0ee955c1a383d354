/* Free space of a grid map as exact polygons with holes.

   The contours run along cell edges: every edge between a free and a blocked cell (outside the map
   is blocked) is a boundary edge, directed with the free cell on its left. The tracer walks from
   lattice point to lattice point and only emits a vertex where the direction changes, so runs are
   merged as they are walked and no vertex is ever collinear.

   Which way to go at a lattice point depends only on the two cells ahead (Saupin et al. 2014,
   §4.1: corner points are decided by the neighbour configuration). Walking with free on the left
   and blocked on the right:
     - the cell ahead-left is blocked  -> turn left;
     - else the cell ahead-right is free -> turn right;
     - else                              -> straight on.
   The first rule is what resolves the slash/antislash points of §4.1.2: where two blocked cells
   touch only at a corner (the other two cells free), the walk always turns so that the blocked
   cell stays on its right, never straight through. The point is then visited twice, once for each
   of the two free corners, which is exactly the duplicated vertex of §4.1.2, and the diagonal
   stays closed (no squeezing between blocked cells, DESIGN.md). There is one kind of pinch only:
   two diagonal cells free, the other two blocked.

   Linear time: each boundary edge is walked once; a row-major scan over horizontal edges finds
   ring starts (every ring has one), and a flag per horizontal edge marks it walked. */
#include <portolan/bake.h>

#include <string.h>

#include "../../runtime/internal.h"
#include "shape_build.h"

enum { DIR_E = 0, DIR_N = 1, DIR_W = 2, DIR_S = 3 };

typedef PTL_ARRAY(double) double_array;
typedef PTL_ARRAY(uint32_t) u32_array;

/* The walk's state: `cells` is the map with a one-cell blocked border, `pw` its row stride; a
   lattice point (px, py) is named by the padded index of the cell whose least corner it is, (px, py)
   itself, so the four cells around it are ne = i, nw = i - 1, se = i - pw, sw = i - pw - 1. */
typedef struct tracer {
    const uint8_t* cells;
    int64_t pw;
    int64_t la[4], ra[4]; /* per direction: offsets of the cells ahead-left and ahead-right */
    int64_t step[4];      /* per direction: offset to the next lattice point */
} tracer;

static void tracer_init(tracer* t, const uint8_t* cells, int64_t pw) {
    t->cells = cells;
    t->pw = pw;
    /* E: ahead are ne (left) and se (right); N: nw, ne; W: sw, nw; S: se, sw. */
    t->la[DIR_E] = 0, t->ra[DIR_E] = -pw;
    t->la[DIR_N] = -1, t->ra[DIR_N] = 0;
    t->la[DIR_W] = -pw - 1, t->ra[DIR_W] = -1;
    t->la[DIR_S] = -pw, t->ra[DIR_S] = -pw - 1;
    t->step[DIR_E] = 1, t->step[DIR_N] = pw, t->step[DIR_W] = -1, t->step[DIR_S] = -pw;
}

static inline int turn(const tracer* t, int64_t p, int d) {
    if (!t->cells[p + t->la[d]]) return (d + 1) & 3; /* left: also the pinch rule of §4.1.2 */
    if (t->cells[p + t->ra[d]]) return (d + 3) & 3;  /* right */
    return d;
}

/* Walks one ring from lattice point (x, y) and appends its corners. `first_edge_east` tells which
   way the horizontal edge that starts the ring runs (see the caller for why (x, y) is a corner). */
static bool trace_ring(const tracer* t, uint8_t* hdone, uint32_t w, uint32_t x, uint32_t y, bool first_edge_east,
                       const ptl_allocator* a, double_array* xy) {
    const int64_t pw = t->pw;
    int64_t p0 = (int64_t)(y + 1) * pw + (x + 1);
    int d0 = first_edge_east ? DIR_E : turn(t, p0, DIR_W);
    int64_t p = p0;
    int d = d0;
    int64_t px = x, py = y;
    static const int dx[4] = {1, 0, -1, 0}, dy[4] = {0, 1, 0, -1};
    if (!PTL_PUSH(a, *xy, (double)px) || !PTL_PUSH(a, *xy, (double)py)) return false;
    for (;;) {
        if (d == DIR_E) hdone[(size_t)py * w + (size_t)px] = 1;
        else if (d == DIR_W) hdone[(size_t)py * w + (size_t)(px - 1)] = 1;
        p += t->step[d];
        px += dx[d];
        py += dy[d];
        int nd = turn(t, p, d);
        if (p == p0 && nd == d0) break;
        if (nd != d) {
            if (!PTL_PUSH(a, *xy, (double)px) || !PTL_PUSH(a, *xy, (double)py)) return false;
        }
        d = nd;
    }
    return true;
}

ptl_status ptl_shape_from_grid(const ptl_grid* g, const ptl_input_desc* desc, ptl_shape* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_shape_from_grid: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    out->alloc = a;
    if (!g || (!g->passable && g->width && g->height))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_shape_from_grid: grid is NULL");
    const uint32_t w = g->width, h = g->height;
    if ((uint64_t)w * h > (1u << 28) || w > 65536 || h > 65536)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_shape_from_grid: %u x %u grid is too large", w, h);
    uint64_t free_cells = 0;
    for (size_t i = 0, n = (size_t)w * h; i < n; ++i) free_cells += g->passable[i] != 0;
    if (free_cells == 0) return ptl_error_set(err, PTL_ERR_BAD_INPUT, "map has no free cell");

    /* A blocked border makes "outside the map is blocked" free of bounds checks. */
    const int64_t pw = (int64_t)w + 2, ph = (int64_t)h + 2;
    size_t cells_size = (size_t)pw * (size_t)ph, hdone_size = (size_t)w * (h + 1);
    uint8_t* cells = ptl_mem_calloc(&a, cells_size, 1);
    uint8_t* hdone = ptl_mem_calloc(&a, hdone_size, 1);
    double_array xy = {0};
    u32_array starts = {0};
    ptl_status st = PTL_OK;
    if (!cells || !hdone) goto oom;
    for (uint32_t y = 0; y < h; ++y) {
        const uint8_t* src = g->passable + (size_t)y * w;
        uint8_t* dst = cells + (size_t)(y + 1) * (size_t)pw + 1;
        for (uint32_t x = 0; x < w; ++x) dst[x] = src[x] != 0;
    }
    tracer t;
    tracer_init(&t, cells, pw);

    /* Row-major scan of horizontal edges: edge (x, y) joins lattice points (x, y) and (x+1, y),
       between cells (x, y-1) below and (x, y) above. The first unwalked boundary edge of a ring
       in this order has its lattice point (x, y) at a corner of the ring: the edge from (x-1, y)
       is either no boundary or was walked with an earlier ring, so the ring turns at (x, y). An
       edge with free above runs east and the ring starts on it; one with free below runs west and
       the ring starts where that edge ends, (x, y). Either way the first vertex is (x, y) and
       rings come out in the order of their first edge in the scan. */
    for (uint32_t y = 0; y <= h; ++y) {
        const uint8_t* below = cells + (size_t)y * (size_t)pw + 1;
        const uint8_t* above = below + pw;
        const uint8_t* done = hdone + (size_t)y * w;
        for (uint32_t x = 0; x < w; ++x) {
            if (below[x] == above[x] || done[x]) continue;
            if (!PTL_PUSH(&a, starts, xy.count / 2)) goto oom;
            if (!trace_ring(&t, hdone, w, x, y, above[x] != 0, &a, &xy)) goto oom;
        }
    }
    if (!PTL_PUSH(&a, starts, xy.count / 2)) goto oom;

    /* The shape owns exact-size arrays (ptl_shape_free releases them by count). */
    if (!ptl_shape_alloc(out, xy.count / 2, starts.count - 1)) goto oom;
    memcpy(out->xy, xy.data, (size_t)xy.count * sizeof(double));
    memcpy(out->ring_start, starts.data, (size_t)starts.count * sizeof(uint32_t));
    out->flags = PTL_NAVMESH_LATTICE_POINTS;
    st = ptl_error_ok(err);
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "out of memory building the contours of a %u x %u map", w, h);
done:
    PTL_ARRAY_FREE(&a, xy);
    PTL_ARRAY_FREE(&a, starts);
    ptl_mem_free(&a, cells, cells_size);
    ptl_mem_free(&a, hdone, hdone_size);
    return st;
}
