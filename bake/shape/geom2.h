/* 2D geometry on doubles, shared by the bake stages. Inputs from grid maps are small integers, so
   the cross and dot products below are exact for them; other inputs get IEEE rounding and the
   callers keep their tolerances explicit. */
#ifndef PTL_GEOM2_H
#define PTL_GEOM2_H

#include <math.h>
#include <stdbool.h>

typedef struct ptl_v2 {
    double x, y;
} ptl_v2;

static inline ptl_v2 v2(double x, double y) { ptl_v2 r = {x, y}; return r; }
static inline ptl_v2 v2_sub(ptl_v2 a, ptl_v2 b) { return v2(a.x - b.x, a.y - b.y); }
static inline ptl_v2 v2_add(ptl_v2 a, ptl_v2 b) { return v2(a.x + b.x, a.y + b.y); }
static inline ptl_v2 v2_neg(ptl_v2 a) { return v2(-a.x, -a.y); }
static inline ptl_v2 v2_scale(ptl_v2 a, double s) { return v2(a.x * s, a.y * s); }
static inline double v2_cross(ptl_v2 a, ptl_v2 b) { return a.x * b.y - a.y * b.x; }
static inline double v2_dot(ptl_v2 a, ptl_v2 b) { return a.x * b.x + a.y * b.y; }
static inline double v2_len2(ptl_v2 a) { return a.x * a.x + a.y * a.y; }
static inline double v2_dist2(ptl_v2 a, ptl_v2 b) { return v2_len2(v2_sub(a, b)); }
static inline bool v2_eq(ptl_v2 a, ptl_v2 b) { return a.x == b.x && a.y == b.y; }
/* > 0 when c is left of a->b (counter-clockwise turn), < 0 right, 0 collinear. */
static inline double v2_orient(ptl_v2 a, ptl_v2 b, ptl_v2 c) { return v2_cross(v2_sub(b, a), v2_sub(c, a)); }

/* Counter-clockwise angle from `ref` to `d` as a monotone key in [0, 4): 0 for d along ref,
   1 a quarter turn, 2 opposite, ... Exact ordering for exact inputs; no trigonometry. */
static inline double v2_angle_key(ptl_v2 ref, ptl_v2 d) {
    double x = v2_dot(ref, d), y = v2_cross(ref, d);
    double s = fabs(x) + fabs(y);
    if (s == 0) return 0;
    double t = y / s; /* in [-1, 1] */
    if (x >= 0 && y >= 0) return t;      /* [0, 1] */
    if (x < 0) return 2 - t;             /* (1, 3) */
    return 4 + t;                        /* [3, 4) */
}

/* True when the counter-clockwise turn from a to b exceeds pi (a reflex gap between directions).
   Equal directions count as a full turn: two distinct elements never leave a gap of zero.
   A turn within 1e-12 radians of pi is straight: points computed on a prolongation (an Area of
   Interest side meeting an edge) carry rounding, and must not make a straight angle reflex. */
static inline bool v2_reflex(ptl_v2 a, ptl_v2 b) {
    double c = v2_cross(a, b), dot = v2_dot(a, b);
    if (dot < 0) return c < -1e-12 * sqrt(v2_len2(a) * v2_len2(b));
    return c < 0 || (c == 0 && dot > 0);
}

#endif
