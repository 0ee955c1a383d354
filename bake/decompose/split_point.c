/* Split points of a rounded input on the floats the blob stores (ptl_split_point_on_floats,
   split_point.h). */
#include <float.h>
#include <math.h>

#include "../shape/geom2.h"
#include "decompose.h"
#include "split_point.h"

#define P ptl_dc_pos

/* Whether moving the split point q of wall a -> b to c crosses (or lands on) another wall at a's
   or b's position: near a sharp corner the solid wedge between two walls can be thinner than a
   float step. Walls elsewhere are at least 4 q from a -> b (the readers' rule), farther than the
   move. */
static bool move_crosses_wall(const ptl_dc* d, uint32_t a, uint32_t b, ptl_v2 q, ptl_v2 c) {
    const uint32_t ends[2] = {a, b};
    for (int e = 0; e < 2; ++e) {
        uint32_t t = ends[e];
        do {
            const ptl_dvert* x = &d->v.data[t];
            const uint32_t from[2] = {x->prev, t}, to[2] = {t, x->next};
            for (int k = 0; k < 2; ++k) {
                if (from[k] == a && to[k] == b) continue;
                const ptl_v2 u = P(d, from[k]), v = P(d, to[k]);
                const double sq = v2_orient(u, v, q), sc = v2_orient(u, v, c);
                if ((sq > 0 && sc <= 0) || (sq < 0 && sc >= 0) || (sq == 0 && sc > 0)) return true;
            }
            t = x->twin;
        } while (t != ends[e]);
    }
    return false;
}

bool ptl_split_point_on_floats(const ptl_dc* d, uint32_t a, uint32_t b, ptl_v2 q, ptl_v2* out) {
    const ptl_v2 pa = P(d, a), pb = P(d, b);
    const float fx = (float)q.x, fy = (float)q.y;
    const float xs[3] = {fx, nextafterf(fx, -INFINITY), nextafterf(fx, INFINITY)};
    const float ys[3] = {fy, nextafterf(fy, -INFINITY), nextafterf(fy, INFINITY)};
    ptl_v2 best[2] = {q, q}; /* [0]: on the line or solid side, [1]: on the free side */
    double best_d2[2] = {DBL_MAX, DBL_MAX};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            const ptl_v2 c = v2(xs[i], ys[j]);
            const double d2 = v2_dist2(c, q);
            const int free_side = v2_orient(pa, pb, c) > 0;
            if (d2 >= best_d2[free_side] || v2_eq(c, pa) || v2_eq(c, pb) || move_crosses_wall(d, a, b, q, c)) continue;
            best[free_side] = c;
            best_d2[free_side] = d2;
        }
    }
    if (best_d2[0] == DBL_MAX && best_d2[1] == DBL_MAX) return false;
    *out = best_d2[0] < DBL_MAX ? best[0] : best[1];
    return true;
}
