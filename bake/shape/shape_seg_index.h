/* A static uniform grid over a set of 2D segments, for the shape readers and the shape validator:
   pairwise intersection tests restricted to segments that share a bucket, and ray casts that walk
   one row or column of buckets. Built once in two passes (count, fill) into flat arrays; the
   decomposition's ptl_seggrid (seggrid.h) is the dynamic counterpart, with insertion and removal.

   Buckets are squares sized so that there are about as many buckets as segments; a segment is
   listed in every bucket its path crosses (per bucket row, the column range it spans there, one
   bucket wider on each side so that rounding never drops a bucket it touches). Private. */
#ifndef PTL_SHAPE_SEG_INDEX_H
#define PTL_SHAPE_SEG_INDEX_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../runtime/internal.h"

/* A directed segment a -> b. */
typedef struct ptl_bseg {
    double ax, ay, bx, by;
} ptl_bseg;

typedef struct ptl_seg_index {
    double x0, y0;   /* lower-left corner of bucket (0, 0) */
    double cell;     /* bucket side [Units: wu] [Limit: > 0] */
    uint32_t nx, ny; /* buckets per row and per column */
    uint32_t* start; /* nx * ny + 1: bucket b lists items[start[b] .. start[b+1]) */
    uint32_t* items; /* segment ids */
    ptl_allocator alloc;
} ptl_seg_index;

/* False when out of memory (the index is then empty and safe to free). */
bool ptl_seg_index_build(ptl_seg_index* g, const ptl_allocator* a, const ptl_bseg* segs, uint32_t count);
void ptl_seg_index_free(ptl_seg_index* g);

static inline uint32_t ptl_seg_index_col(const ptl_seg_index* g, double x) {
    double f = floor((x - g->x0) / g->cell);
    if (!(f > 0)) return 0;
    return f >= (double)g->nx ? g->nx - 1 : (uint32_t)f;
}
static inline uint32_t ptl_seg_index_row(const ptl_seg_index* g, double y) {
    double f = floor((y - g->y0) / g->cell);
    if (!(f > 0)) return 0;
    return f >= (double)g->ny ? g->ny - 1 : (uint32_t)f;
}

/* Twice the signed area of (a, b, c): > 0 when c is left of a -> b. Exact for the small integers
   of grid maps; rounded like any double expression otherwise. */
static inline double ptl_orient2(double ax, double ay, double bx, double by, double cx, double cy) {
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/* For c already known to be on the line a-b: true when it lies strictly between a and b. */
static inline bool ptl_between_open(double ax, double ay, double bx, double by, double cx, double cy) {
    if (ax != bx) return ax < bx ? (ax < cx && cx < bx) : (bx < cx && cx < ax);
    return ay < by ? (ay < cy && cy < by) : (by < cy && cy < ay);
}

#endif
