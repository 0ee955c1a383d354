/* The funnel algorithm (string pulling): the shortest path from a start to a goal through a
   sequence of portals, each crossed from its right end to its left end as seen when travelling.
   Private to the runtime; the corridor search uses it, and the clearance queries will build on it
   (Kallmann 2010 keeps a radius from each corner the funnel turns at, hence the vertex ids). */
#ifndef PTL_FUNNEL_H
#define PTL_FUNNEL_H

#include <stdint.h>

/* A portal in the x-z plane (x right, z up taken as a math plane). `left` and `right` are as seen by
   a traveller crossing it; the vertex ids (PTL_NONE when not a vertex) come back with the corners. */
typedef struct ptl_funnel_portal {
    double left[2], right[2]; /* x, z */
    uint32_t left_vert, right_vert;
} ptl_funnel_portal;

typedef struct ptl_funnel_point {
    double x, z;
    uint32_t vert; /* vertex id of a corner; PTL_NONE for the start and the goal */
} ptl_funnel_point;

/* Writes the taut path start, corners..., goal (at most `capacity` points to `out`, which may be
   NULL when capacity is 0) and returns how many points the whole path has (equal consecutive
   points are merged: 1 when start == goal and the corridor is empty).
   O(n) amortised, O(n^2) worst case (restarts from the apex; Mononen's "simple stupid funnel"). */
uint32_t ptl_funnel(const ptl_funnel_portal* portals, uint32_t count, const double start[2], const double goal[2],
                    ptl_funnel_point* out, uint32_t capacity);

#endif
