/* Obstacle shapes of the tile cache (tilecache_obstacle.c): a desc turned into a footprint in plan (a circle
   or a convex polygon) and a height range, and the test that stamps a column. Private to the bake. */
#ifndef PTL_TC_OBSTACLE_H
#define PTL_TC_OBSTACLE_H

#include <portolan/tilecache.h>

typedef struct ptl_tc_shape {
    uint32_t n;                              /* 0: the circle (cx, cz, r); else polygon corners */
    float cx, cz, r;
    float xz[2 * PTL_OBSTACLE_MAX_VERTS];    /* counter-clockwise seen from +y (x right, z down the page) */
    float ymin, ymax;                        /* [Units: wu] */
    float bmin[2], bmax[2];                  /* footprint bounds in x, z */
    int16_t area;                            /* -1: an obstacle; 0..PTL_AREA_MAX: an area volume */
} ptl_tc_shape;

/* The shape of desc o; PTL_ERR_INVALID_ARG naming the problem. */
ptl_status ptl_tc_shape_of(const ptl_obstacle_desc* o, ptl_tc_shape* out, ptl_error* err);
/* Whether the footprint, grown by `grow` (the agent radius), overlaps the open square [x0, x1] x
   [z0, z1] (touching is not overlapping). */
bool ptl_tc_shape_covers(const ptl_tc_shape* s, float x0, float z0, float x1, float z1, float grow);
/* Whether point (x, z) lies in the footprint, its boundary included (area volumes: column centres). */
bool ptl_tc_shape_contains(const ptl_tc_shape* s, double x, double z);

#endif
