/* A uniform grid of segments for the decomposition: segments are inserted as portals appear and
   killed when an edge is split, so buckets are linked lists in one pool (no per-bucket arrays).
   Queries walk buckets ring by ring around a point, which keeps "closest element to a notch"
   near constant time on game maps and the whole decomposition near n log n. */
#ifndef PTL_SEGGRID_H
#define PTL_SEGGRID_H

#include <portolan/runtime.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ptl_seggrid_node {
    uint32_t seg;
    uint32_t next;
} ptl_seggrid_node;

typedef struct ptl_seggrid {
    ptl_allocator alloc;
    double x0, y0, cell; /* origin and bucket side */
    uint32_t nx, ny;
    uint32_t* head;      /* nx * ny, PTL_NONE = empty */
    ptl_seggrid_node* nodes;
    uint32_t node_count, node_cap;
} ptl_seggrid;

/* Sizes the grid so that `expected` segments spread over the box give about one per bucket. */
bool ptl_seggrid_init(ptl_seggrid* g, const ptl_allocator* a, double x0, double y0, double x1, double y1,
                      uint32_t expected);
void ptl_seggrid_free(ptl_seggrid* g);
/* The buckets segment a-b crosses in bucket row `iy`: columns [*x0, *x1] (widened by one on each
   side so rounding never drops a bucket it touches). False when the row is outside its span. */
bool ptl_seggrid_row_span(const ptl_seggrid* g, double ax, double ay, double bx, double by, int64_t iy, int64_t* x0,
                          int64_t* x1);
/* Adds segment `seg` (a -> b) to every bucket it crosses. */
bool ptl_seggrid_insert(ptl_seggrid* g, uint32_t seg, double ax, double ay, double bx, double by);
static inline int64_t ptl_seggrid_ix(const ptl_seggrid* g, double x) {
    double f = (x - g->x0) / g->cell;
    int64_t i = f < 0 ? 0 : (int64_t)f;
    return i >= g->nx ? g->nx - 1 : i;
}
static inline int64_t ptl_seggrid_iy(const ptl_seggrid* g, double y) {
    double f = (y - g->y0) / g->cell;
    int64_t i = f < 0 ? 0 : (int64_t)f;
    return i >= g->ny ? g->ny - 1 : i;
}

#endif
