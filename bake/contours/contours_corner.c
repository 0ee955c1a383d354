/* Step 4 of the contours (contours.c): a run of two or three notches that a rounded corner left is
   replaced by one vertex off the lattice, within the tolerance of the outline. */
#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "contours_internal.h"

/* Vertex i of the rings. */
static inline ptl_v2 V(const ptl_contours_simp* s, uint32_t i) { return ptl_contours_v(s, i); }

/* ---- One notch for a corner -----------------------------------------------------------------
   The chords above join points of the voxel outline. Around a corner of an obstacle rounded by the
   erosion (a disc of the agent's radius swept along its sides) and cut into steps by the voxels,
   often no single outline point lies within the tolerance of both sides, and the corner keeps two
   or three notches a short edge apart (nav_test.obj's boxes turned 5 degrees: most of them). So,
   once a ring is simplified, each run of two or three consecutive movable vertices between kept
   vertices p and q may be replaced by one point Y anywhere within the tolerance of the outline
   when that leaves fewer notches at p, Y and q than there were at p, the run and q. Y lies on the
   layer's boundary as the new edges describe it (every vertex still on an obstacle boundary,
   DESIGN.md; nothing is added inside the walkable area), and every outline point from p to q stays
   within the tolerance of p -> Y -> q, as with any chord. Candidates for Y: where the lines of the
   edges before and after the run meet (the sides kept as they are), and, for each place where the
   outline may pass from the first new edge to the second, the meeting points of the sides and
   middles of the two cones of directions from p and from q that pass within the tolerance of the
   outline points on their side (the cones of the chord table). The fewest notches win, then the
   smallest sum of squared distances from the outline points to the new edges. The new edges are
   checked as chords are (chord_ok); a moved vertex stays where it is. nav_test.obj: 97 -> 88
   cells. */
enum { CORNER_RUN = 3 }; /* the longest run replaced */

static double seg_dist2(ptl_v2 q, ptl_v2 a, ptl_v2 b) {
    const ptl_v2 ab = v2_sub(b, a);
    const double l2 = v2_len2(ab);
    double t = l2 > 0 ? v2_dot(v2_sub(q, a), ab) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return v2_dist2(q, v2_add(a, v2_scale(ab, t)));
}

static inline int notch3(ptl_v2 a, ptl_v2 b, ptl_v2 c) { return v2_orient(a, b, c) < 0; }

typedef struct corner {
    ptl_contours_simp* s;
    double* xy;       /* the vertices, writable */
    uint32_t rb, rm;  /* the ring: vertices rb .. rb + rm */
    double tol, tol2;
    uint8_t* fixed;   /* never moved or dropped; a moved vertex joins them */
    uint8_t* in_chain;
    uint32_t* seg_of;
    uint8_t* tried;   /* per vertex: the runs from it were tried and nothing around it moved since */
    PTL_ARRAY(ptl_contours_cone) cones; /* scratch */
    bool oom;
    /* the run under study */
    uint32_t pp, p, q, qq, a, b;
    int best_n;
    double best_fit;
    ptl_v2 best;
} corner;

static inline uint32_t ring_step(const corner* c, uint32_t i, uint32_t by) { return c->rb + (i - c->rb + by) % c->rm; }

/* Candidate Y for the run: kept when it leaves fewer notches than the best so far, or as many with
   a smaller sum of squared distances. Y must lie within the tolerance of the outline from a to b,
   every outline point from p to q within it of p -> Y -> q, and p, Y, q must not fold back. */
static void corner_try(corner* c, ptl_v2 Y) {
    const ptl_contours_simp* s = c->s;
    const ptl_v2 vp = V(s, c->p), vq = V(s, c->q);
    const int nn = notch3(V(s, c->pp), vp, Y) + notch3(vp, Y, vq) + notch3(Y, vq, V(s, c->qq));
    if (nn > c->best_n || (nn == c->best_n && c->best_fit == INFINITY)) return; /* needs fewer than the run's */
    if (v2_orient(vp, Y, vq) == 0 && v2_dot(v2_sub(Y, vp), v2_sub(vq, Y)) <= 0) return;
    bool near = false;
    for (uint32_t i = c->a; i != c->b && !near; i = ring_step(c, i, 1))
        near = seg_dist2(Y, V(s, i), V(s, ring_step(c, i, 1))) <= c->tol2;
    if (!near) return;
    const double bound = nn < c->best_n ? INFINITY : c->best_fit;
    double sum = 0;
    for (uint32_t i = c->p;; i = ring_step(c, i, 1)) {
        const ptl_v2 r = V(s, i);
        const double d = fmin(seg_dist2(r, vp, Y), seg_dist2(r, Y, vq));
        if (d > c->tol2 || (sum += d) >= bound) return;
        if (i == c->q) break;
    }
    c->best_n = nn, c->best_fit = sum, c->best = Y;
}

/* The rays of a cone to meet: its sides and its middle, or, while it is open, the direction to the
   outline point `toward`. */
static uint32_t cone_rays(const ptl_contours_cone* k, ptl_v2 toward, ptl_v2* d) {
    if (k->open) {
        d[0] = v2_sub(toward, k->o);
        return 1;
    }
    d[0] = k->r, d[1] = k->l;
    d[2] = v2_add(v2_scale(k->r, 1 / sqrt(v2_len2(k->r))), v2_scale(k->l, 1 / sqrt(v2_len2(k->l))));
    return 3;
}

/* Is y a vertex of a live edge outside the chain (chord_ok lets a chord end on one: a new pinch)? */
static bool on_vertex(ptl_contours_simp* s, const uint8_t* in_chain, ptl_v2 y) {
    const ptl_seggrid* g = &s->grid;
    for (uint32_t i = g->head[ptl_seggrid_iy(g, y.y) * g->nx + ptl_seggrid_ix(g, y.x)]; i != PTL_NONE; i = g->nodes[i].next) {
        const uint32_t seg = g->nodes[i].seg, e0 = s->sa.data[seg], e1 = s->sb.data[seg];
        if (!s->alive.data[seg]) continue;
        if ((!in_chain[e0] && v2_eq(V(s, e0), y)) || (!in_chain[e1] && v2_eq(V(s, e1), y))) return true;
    }
    return false;
}

/* Tries to replace the run L[0 .. k) between p = the vertex before L[0] and q (pp before p, qq
   after q) by one vertex. True when done: L[0] moves to Y, the others are dropped. */
static bool corner_run(corner* c, uint32_t pp, uint32_t p, const uint32_t* L, uint32_t k, uint32_t q, uint32_t qq) {
    ptl_contours_simp* s = c->s;
    const uint32_t a = L[0], b = L[k - 1];
    const ptl_v2 vp = V(s, p), vq = V(s, q);
    int own = 0; /* the run's notches: none, nothing to gain (measured: no corner lost) */
    for (uint32_t i = 0; i < k; ++i) own += notch3(V(s, i ? L[i - 1] : p), V(s, L[i]), V(s, i + 1 < k ? L[i + 1] : q));
    if (own == 0) return false;
    const int old = own + notch3(V(s, pp), vp, V(s, a)) + notch3(V(s, b), vq, V(s, qq));
    c->pp = pp, c->p = p, c->q = q, c->qq = qq, c->a = a, c->b = b;
    c->best_n = old, c->best_fit = INFINITY;
    { /* the sides as they are */
        const ptl_v2 va = V(s, a), vb = V(s, b), d1 = v2_sub(va, vp), d2 = v2_sub(vq, vb);
        const double den = v2_cross(d1, d2);
        const double t = den != 0 ? v2_cross(v2_sub(vb, va), d2) / den : 0;
        const double u = den != 0 ? v2_cross(v2_sub(vb, va), d1) / den : 0;
        if (t > 0 && u < 0) corner_try(c, v2_add(va, v2_scale(d1, t)));
    }
    /* Outline positions 0 (p) .. m (q); a at ia, b at ib. The edge p -> Y covers positions 1 .. j,
       Y -> q covers j + 1 .. m - 1, for j from ia - 1 to ib: the forward cone from p after j
       points, the backward cone from q after m - 1 - j. Both kept for those j only. */
    uint32_t m = 0, ia = 0, ib = 0;
    for (uint32_t i = p; i != q; i = ring_step(c, i, 1), ++m) {
        if (i == a) ia = m;
        if (i == b) ib = m;
    }
    const uint32_t j0 = ia - 1, w = ib - j0 + 1; /* ia >= 1 */
    if (!PTL_RESERVE(s->a, c->cones, 2 * (size_t)w)) {
        c->oom = true;
        return false;
    }
    ptl_contours_cone* fc = c->cones.data; /* fc[j - j0]: the cone from p over positions 1 .. j */
    ptl_contours_cone* bc = fc + w;        /* bc[j - j0]: the cone from q over positions m - 1 .. j + 1 */
    uint32_t fmax = 0, bmin = m; /* the cones are valid for j <= fmax and for j + 1 >= bmin */
    ptl_contours_cone k1;
    ptl_contours_cone_init(&k1, vp);
    for (uint32_t t = 0; t <= ib; ++t) {
        if (t > 0 && !ptl_contours_cone_add(&k1, V(s, ring_step(c, p, t)), c->tol)) break;
        if (t >= j0) fc[t - j0] = k1;
        fmax = t;
    }
    ptl_contours_cone_init(&k1, vq);
    for (uint32_t t = m; t >= ia; --t) {
        if (t < m && !ptl_contours_cone_add(&k1, V(s, ring_step(c, p, t)), c->tol)) break;
        if (t <= ib + 1) bc[t - 1 - j0] = k1;
        bmin = t;
    }
    const ptl_v2 pq = v2_sub(vq, vp);
    for (uint32_t j = j0; j <= ib && j <= fmax; ++j) {
        if (j + 1 < bmin) continue;
        ptl_v2 fd[3], bd[3];
        const uint32_t nf = cone_rays(&fc[j - j0], V(s, ring_step(c, p, j)), fd);
        const uint32_t nb = cone_rays(&bc[j - j0], V(s, ring_step(c, p, j + 1)), bd);
        for (uint32_t x = 0; x < nf; ++x) {
            for (uint32_t y = 0; y < nb; ++y) {
                const double den = v2_cross(fd[x], bd[y]);
                if (den == 0) continue;
                const double t = v2_cross(pq, bd[y]) / den, u = v2_cross(pq, fd[x]) / den;
                if (t > 0 && u > 0) corner_try(c, v2_add(vp, v2_scale(fd[x], t)));
            }
        }
    }
    if (c->best_n >= old) return false;
    /* The new edges must cross or touch nothing and gain no vertex: chord_ok on p .. b -> Y, then on
       Y -> b -> q (Y given as a point: it has no vertex yet). */
    uint32_t c1[CORNER_RUN + 2], c2[3] = {b, b, q};
    c1[0] = p;
    for (uint32_t i = 0; i < k; ++i) c1[1 + i] = L[i];
    c1[k + 1] = b;
    for (uint32_t i = 0; i < k + 1; ++i) c->in_chain[c1[i]] = 1;
    c->in_chain[q] = 1;
    const bool ok = !on_vertex(s, c->in_chain, c->best) && ptl_contours_chord_ok(s, c->in_chain, c1, k + 2, &c->best, k + 1) &&
                    ptl_contours_chord_ok(s, c->in_chain, c2, 3, &c->best, 0);
    for (uint32_t i = 0; i < k + 1; ++i) c->in_chain[c1[i]] = 0;
    c->in_chain[q] = 0;
    if (!ok) return false;
    s->alive.data[c->seg_of[p]] = 0;
    for (uint32_t i = 0; i < k; ++i) s->alive.data[c->seg_of[L[i]]] = 0;
    for (uint32_t i = 1; i < k; ++i) s->keep[L[i]] = 0;
    c->xy[2 * a] = c->best.x, c->xy[2 * a + 1] = c->best.y;
    c->fixed[a] = 1;
    s->next[a] = q;
    return true;
}

/* Replaces runs of ring [rb, rb + rm) until none can be (list: scratch of rm entries). A run is
   tried again only when a vertex within two of it moved or went. */
static ptl_status corner_ring(corner* c, uint32_t* list) {
    ptl_contours_simp* s = c->s;
    uint32_t n = 0;
    for (uint32_t i = c->rb; i < c->rb + c->rm; ++i)
        if (s->keep[i]) list[n++] = i;
    bool changed = true;
    while (changed && n >= 5 && !c->oom) {
        changed = false;
        for (uint32_t i = 0; i < n && n >= 5 && !c->oom; ++i) {
            if (c->tried[list[i]]) continue;
            c->tried[list[i]] = 1;
            uint32_t run[CORNER_RUN], k = 0;
            while (k < CORNER_RUN && k + 4 <= n && !c->fixed[list[(i + k) % n]]) {
                run[k] = list[(i + k) % n];
                ++k;
            }
            for (uint32_t len = k; len >= 2; --len) {
                const uint32_t p = list[(i + n - 1) % n], q = list[(i + len) % n];
                if (!corner_run(c, list[(i + n - 2) % n], p, run, len, q, list[(i + len + 1) % n])) continue;
                c->seg_of[p] = s->sa.count;
                if (!ptl_contours_add_segment(s, p, run[0])) return PTL_ERR_NO_MEMORY;
                c->seg_of[run[0]] = s->sa.count;
                if (!ptl_contours_add_segment(s, run[0], q)) return PTL_ERR_NO_MEMORY;
                uint32_t w = 0, z = 0;
                for (uint32_t j = 0; j < n; ++j) {
                    if (list[j] == run[0]) z = w;
                    if (s->keep[list[j]]) list[w++] = list[j];
                }
                n = w;
                /* to try again: the runs from z - 4 to z + 2, whose vertices (from two before to two
                   after) include the moved one */
                for (uint32_t d = 0; d <= CORNER_RUN + 3 && d < n; ++d) c->tried[list[(z + 2 + n - d) % n]] = 0;
                changed = true;
                break;
            }
        }
    }
    return c->oom ? PTL_ERR_NO_MEMORY : PTL_OK;
}

ptl_status ptl_contours_corners(ptl_contours_simp* s, double* xy, const uint32_t* rs, uint32_t rings, double tol,
                                uint8_t* fixed, uint8_t* in_chain, uint32_t* seg_of, uint8_t* tried, uint32_t* list) {
    corner cr = {.s = s, .xy = xy, .tol = tol, .tol2 = tol * tol, .fixed = fixed, .in_chain = in_chain,
                 .seg_of = seg_of, .tried = tried};
    ptl_status st = PTL_OK;
    for (uint32_t r = 0; r < rings && st == PTL_OK; ++r) {
        cr.rb = rs[r], cr.rm = rs[r + 1] - rs[r];
        st = corner_ring(&cr, list);
    }
    PTL_ARRAY_FREE(s->a, cr.cones);
    return st;
}
