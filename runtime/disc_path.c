/* The shortest path of a disc of radius r > 0 (issue 18: any agent radius from one navmesh).

   The disc's centre moves in the free space shrunk by r: the walkable area minus every point
   nearer than r to a wall. A shortest path there is made of straight segments tangent to circles
   of radius r around the corners where the walkable boundary turns right (the obstacles' convex
   corners) and of arcs on those circles (the visibility graph of circles, or "tangent graph", of
   the motion-planning literature; Kallmann, "Shortest paths with arbitrary clearance from
   navigation meshes", 2010, §3, builds the same path on a triangulation). The search here is A* on
   that graph, built as it goes:
   - a state is a point where the path arrives on a corner's circle (tangent to it), with the side
     the path goes around it (the corner on its left: counter-clockwise, or on its right), its
     length g and the state it came from; the start is a state without a corner;
   - its successors are the tangents from its circle (or point) to the circles of the corners it
     sees, each way round, and to the goal. A tangent that keeps r from the walls has both its
     corners in sight of each other at r = 0 (the segment between the corners lies within r of
     the tangent, which no wall comes nearer than r to), so the corners a sweep of sight from the
     corner finds are enough;
   - a successor's segment, and the arc on the state's circle before it, are checked against the
     walls only when it is taken off the open list (lazy A*): a segment must cross the cells through
     portals and keep r from every wall near it, an arc likewise;
   - a state at a corner is dropped when an earlier one at the same corner and side arrived with a
     length that, plus the arc between the two arrivals, is no longer (it can continue every way
     the later one can, no longer).
   h is the straight line to the goal (admissible), so the first goal state taken off the list ends
   a shortest path. Exact up to floating point.

   Cost: each expansion replays what its corner sees (the sweep's lists, kept by the query across
   searches: clearance.c, ptl_clear_visible_vertex); successors are checked lazily. Far slower than
   the point search on open maps (bench/NOTES.md: clearance searches, and the sight lists kept); the
   bake's per-corner data of the design (issue 18) is the way to speed it up further. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "disc_internal.h"
#include "interval.h"

#define TWO_PI 6.283185307179586476925286766559

/* ---- Geometry ------------------------------------------------------------------------------- */

/* The tangent from circle (c1, side o1) to circle (c2, side o2) (a side of 0: a point), leaving
   along direction phi = beta + asin(r (o1 - o2) / d): with the right normal n(u) = (uz, -ux) of the
   direction u, a circle passed with side o touches the path at c + o r n(u). */
bool ptl_disc_tangent(double c1x, double c1z, int o1, double c2x, double c2z, int o2, double r, double* t1x,
                    double* t1z, double* t2x, double* t2z) {
    double dx = c2x - c1x, dz = c2z - c1z, d = ptl_len2(dx, dz);
    double k = r * (o1 - o2) / d;
    if (!(d > 0) || fabs(k) > 1) return false;
    /* the direction of D turned by asin(k): cos = sqrt(1 - k^2), sin = k */
    double c = sqrt(1 - k * k), ex = dx / d, ez = dz / d;
    double ux = ex * c - ez * k, uz = ex * k + ez * c;
    *t1x = c1x + o1 * r * uz, *t1z = c1z - o1 * r * ux;
    *t2x = c2x + o2 * r * uz, *t2z = c2z - o2 * r * ux;
    return (*t2x - *t1x) * ux + (*t2z - *t1z) * uz >= 0;
}

/* Angle swept going around (cx, cz) from the point at angle a (atan2, kept by the caller when it
   sweeps from one point to many) to (bx, bz) with side o (+1 counter-clockwise), in [0, 2 pi); sweep:
   from the point (ax, az). */
static double sweep_from(double a, double cx, double cz, double bx, double bz, int o) {
    double b = atan2(bz - cz, bx - cx);
    double d = o > 0 ? b - a : a - b;
    d = fmod(d, TWO_PI);
    if (d < 0) d += TWO_PI;
    if (d > TWO_PI - 1e-12) d = 0; /* the same point, rounded */
    return d;
}

static double sweep(double cx, double cz, double ax, double az, double bx, double bz, int o) {
    return sweep_from(atan2(az - cz, ax - cx), cx, cz, bx, bz, o);
}

/* An arc of the circle of radius r around (cx, cz): from unit direction (ax, az) sweeping `span`
   (radians, [0, 2 pi)) counter-clockwise (o = +1) or clockwise, ending at direction (bx, bz). */
typedef struct arc {
    double cx, cz, r, ax, az, bx, bz, span;
    int o;
} arc;

static arc make_arc(double cx, double cz, double r, double a0, double span, int o) {
    double a1 = a0 + o * span;
    return (arc){.cx = cx, .cz = cz, .r = r, .ax = cos(a0), .az = sin(a0), .bx = cos(a1), .bz = sin(a1), .span = span, .o = o};
}

/* Is direction (x, z) from the centre within the arc? Cross products against its ends (no angles). */
static bool in_arc(const arc* a, double x, double z) {
    double from = a->o * (a->ax * z - a->az * x), to = a->o * (x * a->bz - z * a->bx);
    if (a->span <= 3.141592653589793) return from >= 0 && to >= 0;
    return from >= 0 || to >= 0;
}

/* Squared distance from p to segment a-b. Always inline: the checks call it in their inner loops. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline double point_segment2(double px, double pz, double ax, double az, double bx, double bz) {
    double dx = bx - ax, dz = bz - az, l2 = dx * dx + dz * dz;
    double t = l2 > 0 ? ((px - ax) * dx + (pz - az) * dz) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double x = px - (ax + t * dx), z = pz - (az + t * dz);
    return x * x + z * z;
}

static double point_segment(double px, double pz, double ax, double az, double bx, double bz) {
    return sqrt(point_segment2(px, pz, ax, az, bx, bz));
}

static double segment_segment(double ax, double az, double bx, double bz, double cx, double cz, double ex, double ez) {
    double d1x = bx - ax, d1z = bz - az, d2x = ex - cx, d2z = ez - cz;
    double den = d1x * d2z - d1z * d2x;
    if (den != 0) {
        double t = ((cx - ax) * d2z - (cz - az) * d2x) / den, u = ((cx - ax) * d1z - (cz - az) * d1x) / den;
        if (t >= 0 && t <= 1 && u >= 0 && u <= 1) return 0;
    }
    double d = fmin(point_segment2(ax, az, cx, cz, ex, ez), point_segment2(bx, bz, cx, cz, ex, ez));
    return sqrt(fmin(d, fmin(point_segment2(cx, cz, ax, az, bx, bz), point_segment2(ex, ez, ax, az, bx, bz))));
}

/* Are the boxes of segment a-b and of segment c-e (or point c, e = c) apart by more than lim, by a
   margin (1e-9 of lim, and 1e-15 of the coordinates' sizes) far above the rounding of the distances
   the checks compute? Then every distance they compute between the two is over lim: a box test in
   front of a distance gives the distance's answer. */
static bool boxes_apart(double ax, double az, double bx, double bz, double cx, double cz, double ex, double ez, double lim) {
    const double g1 = (cx < ex ? cx : ex) - (ax > bx ? ax : bx), g2 = (ax < bx ? ax : bx) - (cx > ex ? cx : ex);
    const double g3 = (cz < ez ? cz : ez) - (az > bz ? az : bz), g4 = (az < bz ? az : bz) - (cz > ez ? cz : ez);
    const double g12 = g1 > g2 ? g1 : g2, g34 = g3 > g4 ? g3 : g4, gap = g12 > g34 ? g12 : g34;
    return gap > lim && gap > lim * (1 + 1e-9) + 1e-15 * (fabs(ax) + fabs(az) + fabs(bx) + fabs(bz) + fabs(cx) + fabs(cz) +
                                                       fabs(ex) + fabs(ez));
}

/* Is segment a-b nearer than lim to segment c-e (segment_segment(...) < lim)? The squared
   distances of the four ends, stopping at the first clearly below lim, and the crossing test only
   when none is: most edges a check meets are far, a few very near. */
static bool segment_within(double ax, double az, double bx, double bz, double cx, double cz, double ex, double ez, double lim) {
    if (!(lim > 0) || boxes_apart(ax, az, bx, bz, cx, cz, ex, ez, lim)) return false;
    const double lim2 = lim * lim, sure = lim2 * (1 - 1e-9);
    double d = point_segment2(ax, az, cx, cz, ex, ez);
    if (d < sure) return true;
    double e = point_segment2(bx, bz, cx, cz, ex, ez);
    if (e < sure) return true;
    d = fmin(d, e), e = point_segment2(cx, cz, ax, az, bx, bz);
    if (e < sure) return true;
    d = fmin(d, e), e = point_segment2(ex, ez, ax, az, bx, bz);
    if (e < sure) return true;
    d = fmin(d, e);
    double d1x = bx - ax, d1z = bz - az, d2x = ex - cx, d2z = ez - cz;
    double den = d1x * d2z - d1z * d2x;
    if (den != 0) {
        double t = ((cx - ax) * d2z - (cz - az) * d2x) / den, u = ((cx - ax) * d1z - (cz - az) * d1x) / den;
        if (t >= 0 && t <= 1 && u >= 0 && u <= 1) return true;
    }
    return sqrt(d) < lim;
}

/* Distance between segment a-b and the arc: at an end of either, at the foot of the perpendicular
   from the centre, or 0 where they cross. */
static double segment_arc(double ax, double az, double bx, double bz, const arc* c) {
    double e0x = c->cx + c->r * c->ax, e0z = c->cz + c->r * c->az, e1x = c->cx + c->r * c->bx, e1z = c->cz + c->r * c->bz;
    double d = fmin(point_segment(e0x, e0z, ax, az, bx, bz), point_segment(e1x, e1z, ax, az, bx, bz));
    const double pts[2][2] = {{ax, az}, {bx, bz}};
    for (int k = 0; k < 2; ++k) {
        double px = pts[k][0] - c->cx, pz = pts[k][1] - c->cz;
        if (in_arc(c, px, pz)) d = fmin(d, fabs(ptl_len2(px, pz) - c->r));
    }
    double dx = bx - ax, dz = bz - az, l2 = dx * dx + dz * dz;
    if (l2 > 0) {
        double fx = ax - c->cx, fz = az - c->cz;
        double t = -(fx * dx + fz * dz) / l2;
        if (t > 0 && t < 1) {
            double px = fx + t * dx, pz = fz + t * dz;
            if (in_arc(c, px, pz)) d = fmin(d, fabs(ptl_len2(px, pz) - c->r));
        }
        /* crossings of the segment with the circle */
        double b = 2 * (fx * dx + fz * dz), cc = fx * fx + fz * fz - c->r * c->r, disc = b * b - 4 * l2 * cc;
        if (disc >= 0) {
            double sq = sqrt(disc);
            for (int k = -1; k <= 1; k += 2) {
                double u = (-b + k * sq) / (2 * l2);
                if (u >= 0 && u <= 1 && in_arc(c, fx + u * dx, fz + u * dz)) return 0;
            }
        }
    }
    return d;
}

/* ---- Checks against the walls ------------------------------------------------------------------ */

/* Starts a breadth-first walk over cells (queue q->cheap, marks q->seen_stamp): a new stamp, and
   `cells` queued once each. Returns the stamp; *tail the queue's length. */
static uint32_t bfs_start(ptl_query* q, const uint32_t* cells, uint32_t count, uint32_t* tail) {
    uint32_t stamp = ptl_query_next_stamp(q);
    *tail = 0;
    for (uint32_t k = 0; k < count; ++k)
        if (q->seen_stamp[cells[k]] != stamp) q->seen_stamp[cells[k]] = stamp, q->cheap[(*tail)++] = cells[k];
    return stamp;
}

/* Does the segment from point `from` (located) to (bx, bz) cross the cells through portals and keep
   `r` (less the tolerance) from every wall near it? Its end's cell to *end. The walls read are those
   of the cells within r of the segment, reached through portals from the start's cells. */
static bool segment_keeps(ptl_query* q, const ptl_qpoint* from, double bx, double bz, double r, double slack,
                          uint32_t* end) {
    *end = ptl_clear_walk(q, from, bx, bz);
    if (*end == PTL_NONE) return false;
    const ptl_navmesh* nm = q->nm;
    const double ax = from->x, az = from->z, lim = r - slack;
    /* the segment's box grown by r: an edge outside it is at least r away (no distance needed) */
    const double x0 = fmin(ax, bx) - r, x1 = fmax(ax, bx) + r, z0 = fmin(az, bz) - r, z1 = fmax(az, bz) + r;
    /* and an edge whose ends lie both on one side of the segment's line, r (with a margin for
       rounding) or more from it, is as far from the segment: two cross products, no distances */
    const double len = ptl_len2(bx - ax, bz - az), far = len > 0 ? (r * (1 + 1e-9) + 1e-12) * len : INFINITY;
    uint32_t head = 0, tail, stamp = bfs_start(q, from->cells, from->cell_count, &tail);
    while (head < tail) {
        const ptl_blob_cell* c = &nm->cells[q->cheap[head++]];
        for (uint32_t i = 0; i < c->vert_count; ++i) {
            const ptl_slot* sa = &q->slots[c->first + i];
            const ptl_slot* sb = &q->slots[c->first + (i + 1 == c->vert_count ? 0 : i + 1)];
            if ((sa->x < x0 && sb->x < x0) || (sa->x > x1 && sb->x > x1) || (sa->z < z0 && sb->z < z0) ||
                (sa->z > z1 && sb->z > z1))
                continue;
            const double ca = (bx - ax) * (sa->z - az) - (bz - az) * (sa->x - ax);
            const double cb = (bx - ax) * (sb->z - az) - (bz - az) * (sb->x - ax);
            if ((ca >= far && cb >= far) || (ca <= -far && cb <= -far)) continue;
            if (sa->nbr == PTL_NONE) {
                if (segment_within(ax, az, bx, bz, sa->x, sa->z, sb->x, sb->z, lim)) return false;
            } else if (q->seen_stamp[sa->nbr] != stamp && segment_within(ax, az, bx, bz, sa->x, sa->z, sb->x, sb->z, r)) {
                q->seen_stamp[sa->nbr] = stamp;
                q->cheap[tail++] = sa->nbr;
            }
        }
    }
    return true;
}

/* Does the arc of radius r around vertex v, from angle a0 sweeping `span` with side o, keep r (less
   the tolerance) from every wall other than at v itself? */
static bool arc_keeps(ptl_query* q, uint32_t v, double r, double a0, double span, int o) {
    if (span <= 0) return true;
    const ptl_navmesh* nm = q->nm;
    const double cx = ptl_nm_vx(nm, v), cz = ptl_nm_vz(nm, v), lim = r - 4 * q->eps;
    const arc the_arc = make_arc(cx, cz, r, a0, span, o);
    uint32_t head = 0, tail, stamp = bfs_start(q, nm->vcell + nm->vcell_start[v], nm->vcell_start[v + 1] - nm->vcell_start[v], &tail);
    while (head < tail) {
        const ptl_blob_cell* c = &nm->cells[q->cheap[head++]];
        for (uint32_t i = 0; i < c->vert_count; ++i) {
            const ptl_slot* sa = &q->slots[c->first + i];
            const ptl_slot* sb = &q->slots[c->first + (i + 1 == c->vert_count ? 0 : i + 1)];
            /* (the arc lies in the box of its circle) */
            if (sa->nbr == PTL_NONE) {
                if (!boxes_apart(sa->x, sa->z, sb->x, sb->z, cx - r, cz - r, cx + r, cz + r, lim) &&
                    segment_arc(sa->x, sa->z, sb->x, sb->z, &the_arc) < lim)
                    return false;
            } else if (q->seen_stamp[sa->nbr] != stamp && segment_segment(cx, cz, cx, cz, sa->x, sa->z, sb->x, sb->z) < 2 * r) {
                q->seen_stamp[sa->nbr] = stamp;
                q->cheap[tail++] = sa->nbr;
            }
        }
    }
    return true;
}

/* A located point at (x, z) in `cell`. */
static void cell_point(double x, double z, uint32_t cell, ptl_qpoint* out) { ptl_qpoint_in_cell(out, cell, x, 0, z); }

/* The angle of corner v's normal cone (between its walls' normals into the walkable side, clockwise
   from the arriving wall's), or -1 when v has no single pair of walls. */
static double cone_width(const ptl_query* q, uint32_t v) {
    /* kept per vertex with the walls (ptl_query_build_slots): the atan2 of their turn */
    return q->vcone[5 * (size_t)v + 4];
}

/* The memo entry for the segment from p's corner to s's (both corners), or NULL. */
static ptl_seg_memo* memo_slot(const ptl_query* q, const dstate* p, const dstate* s) {
    if (p->vert == PTL_NONE || s->vert == PTL_NONE || !q->seg_memo) return NULL;
    const uint32_t a = 2 * p->vert + (p->side > 0), b = 2 * s->vert + (s->side > 0);
    return &q->seg_memo[((a * 0x9E3779B1u) ^ (b * 0x85EBCA77u)) & (q->seg_memo_cap - 1)];
}

/* Does m hold the check of the segment into s at radius r: the same corners, sides and ends, bit
   for bit (the check is a function of those and the walls alone)? */
static bool memo_holds(const ptl_query* q, const ptl_seg_memo* m, const dstate* p, const dstate* s, double r) {
    return m->gen == q->seg_memo_gen && m->v1 == p->vert && m->v2 == s->vert && m->o1 == p->side && m->o2 == s->side &&
           m->r == r && m->dx == s->dx && m->dz == s->dz && m->ax == s->ax && m->az == s->az;
}

static bool memo_put(ptl_query* q, ptl_seg_memo* m, const dstate* p, const dstate* s, double r, bool ok) {
    if (m)
        *m = (ptl_seg_memo){.v1 = p->vert, .v2 = s->vert, .gen = q->seg_memo_gen, .cell = s->cell, .o1 = p->side,
                            .o2 = s->side, .ok = ok, .dy = s->dy, .ay = s->ay, .r = r, .dx = s->dx, .dz = s->dz,
                            .ax = s->ax, .az = s->az};
    return ok;
}

/* Checks the segment into state i and the arc before it on its parent's circle. A segment between
   two corners' circles is checked once per query and radius (the memo), its arc each time. */
bool ptl_disc_check_state(disc_search* ds, uint32_t i) {
    ptl_query* q = ds->q;
    dstate* s = &ds->st[i];
    const dstate* p = &ds->st[s->parent];
    ptl_seg_memo* m = memo_slot(q, p, s);
    ptl_qpoint from;
    if (p->vert == PTL_NONE) {
        if (s->parent == 0) from = *ds->s;
        else cell_point(p->ax, p->az, p->cell, &from);
    } else {
        const ptl_navmesh* nm = q->nm;
        double cx = ptl_nm_vx(nm, p->vert), cz = ptl_nm_vz(nm, p->vert);
        const double a0 = atan2(p->az - cz, p->ax - cx), span = sweep_from(a0, cx, cz, s->dx, s->dz, p->side);
        /* An arc whose ends lie in the corner's normal cone (in_normal_cone) and that sweeps no more
           than the cone's width lies in it, so the corner's own walls keep r from it; the other walls
           do when none comes within 2 r of the corner. Any other arc is checked against the walls (one
           that sweeps the long way round crosses the corner's own). */
        double width = cone_width(q, p->vert);
        if (!(width >= 0 && span <= width + 1e-9 && ptl_clear_vertex_rho(q, p->vert) >= 2 * ds->r) &&
            !arc_keeps(q, p->vert, ds->r, a0, span, p->side))
            return false;
        if (m && memo_holds(q, m, p, s, ds->r)) {
            if (!m->ok) return false;
            s->cell = m->cell, s->dy = m->dy, s->ay = m->ay;
            return true;
        }
        /* the departure point's cell: from the corner, straight out to it (inside the circle) */
        ptl_qpoint corner;
        ptl_query_vertex_point(nm, p->vert, &corner);
        uint32_t c = ptl_clear_walk(q, &corner, s->dx, s->dz);
        if (c == PTL_NONE) return memo_put(q, m, p, s, ds->r, false);
        cell_point(s->dx, s->dz, c, &from);
    }
    uint32_t end;
    if (!segment_keeps(q, &from, s->ax, s->az, ds->r, 4 * q->eps, &end)) return memo_put(q, m, p, s, ds->r, false);
    s->dy = ptl_query_cell_y(q->nm, from.cell, s->dx, s->dz);
    s->ay = ptl_query_cell_y(q->nm, end, s->ax, s->az);
    if (s->goal) {
        /* at the goal itself, not at its place in plan on another floor */
        bool holds = false;
        for (uint32_t k = 0; k < ds->t->cell_count && !holds; ++k) holds = ds->t->cells[k] == end;
        if (!holds) return false;
    }
    s->cell = end;
    return memo_put(q, m, p, s, ds->r, true);
}

/* ---- The search ------------------------------------------------------------------------------- */

/* Is an arrival at corner v (side o) with length g at (x, z) no better than the best checked one? */
static bool dominated(const disc_search* ds, uint32_t v, int o, double g, double x, double z) {
    const ptl_disc_rec* rec = &ds->q->disc_rec[2 * v + (o > 0)];
    if (rec->stamp != ds->stamp) return false;
    const ptl_navmesh* nm = ds->q->nm;
    double cx = ptl_nm_vx(nm, v), cz = ptl_nm_vz(nm, v);
    return rec->g + ds->r * sweep_from(rec->a, cx, cz, x, z, o) <= g + ds->tol;
}

static void record(disc_search* ds, const dstate* s) {
    ptl_disc_rec* rec = &ds->q->disc_rec[2 * s->vert + (s->side > 0)];
    if (rec->stamp == ds->stamp && rec->g <= s->g) return;
    const ptl_navmesh* nm = ds->q->nm;
    double a = atan2(s->az - ptl_nm_vz(nm, s->vert), s->ax - ptl_nm_vx(nm, s->vert));
    *rec = (ptl_disc_rec){.g = s->g, .a = a, .stamp = ds->stamp};
}

/* A lower bound of the rest of the way from a state: the straight line, or the landmark bound of
   its corner's radius-0 distance to the goal less r (the point lies r from the corner, and a path of
   radius 0 is never longer than a disc's; Goldberg and Harrelson's ALT bounds, as in search.c). */
static double state_h(disc_search* ds, const dstate* s) {
    double h = ptl_len2(ds->t->x - s->ax, ds->t->z - s->az);
    ptl_query* q = ds->q;
    if (!ds->alt || s->vert == PTL_NONE) return h;
    uint32_t v = s->vert;
    if (q->alt_stamp[v] != ds->stamp) {
        q->alt_h[v] = ptl_alt_vertex(q->nm->landmarks + (size_t)v * q->lm_count, q->lm_goal_lo, q->lm_goal_hi, q->lm_count);
        q->alt_stamp[v] = ds->stamp;
    }
    double a = q->alt_h[v] - ds->r;
    return a > h ? a : h;
}

static void push_state(disc_search* ds, const dstate* s) {
    if (ds->error < 0) return;
    if (ds->count == ds->cap || ds->q->heap_count == ds->q->max_nodes) {
        ds->error = PTL_ERR_OUT_OF_NODES;
        return;
    }
    ds->st[ds->count] = *s;
    double h = state_h(ds, s);
    ptl_heap_push(ds->q->heap, &ds->q->heap_count, s->g + h, (float)s->g, ds->count);
    ++ds->count;
}

/* Can the path touch the circle around corner v at (x, z) and keep r from v's own walls? Only where
   v is the walls' nearest point: inside the cone of directions between the two walls' normals into
   the walkable side (the walls turn right at a corner: the cone turns clockwise from the arriving
   wall's normal to the leaving wall's). A point outside it is nearer than r to a wall of v, so no
   tangent or arc there keeps r: pruned before it is checked. True where v has no single pair of
   walls. */
bool ptl_disc_in_cone(const ptl_query* q, uint32_t v, double x, double z) { return ptl_disc_cone_miss(q, v, x, z) == 0; }

int ptl_disc_cone_miss(const ptl_query* q, uint32_t v, double x, double z) {
    uint32_t prev = q->wall[2 * v], next = q->wall[2 * v + 1];
    if (prev == PTL_NONE || next == PTL_NONE || prev == v || next == v) return 0;
    const ptl_navmesh* nm = q->nm;
    const double* n = q->vcone + 5 * (size_t)v; /* left normals: into the walkable side */
    const double n1x = n[0], n1z = n[1], n2x = n[2], n2z = n[3];
    double dx = x - ptl_nm_vx(nm, v), dz = z - ptl_nm_vz(nm, v);
    const double c1 = n1x * dz - n1z * dx, c2 = dx * n2z - dz * n2x;
    if (c1 <= 0 && c2 <= 0) return 0; /* within the cone without the tolerance (>= 0) */
    double tol = 1e-9 * sqrt((dx * dx + dz * dz) * (n1x * n1x + n1z * n1z + n2x * n2x + n2z * n2z));
    if (!(c1 <= tol)) return 1;
    return c2 <= tol ? 0 : 2;
}

/* Corners nearer than NEAR_RADII x r are looked for in every direction; farther ones only within
   asin(2 / NEAR_RADII) of the directions a path can leave the corner in. */
#define NEAR_RADII 4.0

/* The directions a path going around corner v with side o can leave it in, widened for the corners
   beyond NEAR_RADII x r: the departure point is o r (uz, -ux) from v for direction u, and lies in
   v's normal cone (in_normal_cone), so u is that cone turned a quarter turn towards o; a tangent to
   a corner d away turns from the direction to it by at most asin(2 r / d). As a window (win: from
   direction, counter-clockwise to direction); false when v has no single pair of walls or the
   window is not under a half turn (then every direction is swept). */
static bool departure_window(const disc_search* ds, uint32_t v, int o, double win[4]) {
    const ptl_query* q = ds->q;
    uint32_t prev = q->wall[2 * v], next = q->wall[2 * v + 1];
    if (prev == PTL_NONE || next == PTL_NONE || prev == v || next == v) return false;
    const ptl_navmesh* nm = q->nm;
    double vx = ptl_nm_vx(nm, v), vz = ptl_nm_vz(nm, v);
    double ix = vx - ptl_nm_vx(nm, prev), iz = vz - ptl_nm_vz(nm, prev);
    double ox = ptl_nm_vx(nm, next) - vx, oz = ptl_nm_vz(nm, next) - vz;
    double li = ptl_len2(ix, iz), lo = ptl_len2(ox, oz);
    if (!(li > 0) || !(lo > 0)) return false;
    /* the cone: from n1 clockwise to n2 (left normals of the arriving and leaving walls) */
    double n1x = -iz / li, n1z = ix / li, n2x = -oz / lo, n2z = ox / lo;
    double width = atan2(n1x * n2z - n1z * n2x, n1x * n2x + n1z * n2z); /* counter-clockwise n1 -> n2 */
    width = width <= 0 ? -width : TWO_PI - width;                      /* clockwise */
    const double alpha = asin(2.0 / NEAR_RADII);
    if (!(width + 2 * alpha < 3.1415926535 - 1e-6)) return false;
    /* departure directions: the cone turned a quarter turn counter-clockwise (o = +1) or clockwise;
       as a counter-clockwise window from the turned n2 to the turned n1, widened by alpha */
    double rx = o > 0 ? -n2z : n2z, rz = o > 0 ? n2x : -n2x, lx = o > 0 ? -n1z : n1z, lz = o > 0 ? n1x : -n1x;
    double ca = cos(alpha), sa = sin(alpha);
    win[0] = rx * ca + rz * sa, win[1] = -rx * sa + rz * ca; /* clockwise by alpha */
    win[2] = lx * ca - lz * sa, win[3] = lx * sa + lz * ca;  /* counter-clockwise by alpha */
    return true;
}

/* The successors of state `ds->expanding` through the tangents to the circle of corner w. */
static void tangents_to(disc_search* ds, uint32_t w) {
    const dstate* s = &ds->st[ds->expanding];
    if (w == s->vert || !ptl_query_is_corner(ds->q, w)) return;
    const ptl_navmesh* nm = ds->q->nm;
    double ox = s->vert == PTL_NONE ? s->ax : ptl_nm_vx(nm, s->vert), oz = s->vert == PTL_NONE ? s->az : ptl_nm_vz(nm, s->vert);
    int o1 = s->vert == PTL_NONE ? 0 : s->side;
    double wx = ptl_nm_vx(nm, w), wz = ptl_nm_vz(nm, w);
    for (int o2 = -1; o2 <= 1; o2 += 2) {
        dstate n = {.parent = ds->expanding, .vert = w, .cell = PTL_NONE, .side = (int8_t)o2};
        if (!ptl_disc_tangent(ox, oz, o1, wx, wz, o2, ds->r, &n.dx, &n.dz, &n.ax, &n.az)) continue;
        if ((o1 && !ptl_disc_in_cone(ds->q, s->vert, n.dx, n.dz)) || !ptl_disc_in_cone(ds->q, w, n.ax, n.az)) continue;
        double arc = o1 ? ds->r * sweep_from(ds->expanding_a, ox, oz, n.dx, n.dz, o1) : 0;
        n.g = s->g + arc + ptl_len2(n.ax - n.dx, n.az - n.dz);
        if (dominated(ds, w, o2, n.g, n.ax, n.az)) continue;
        push_state(ds, &n);
    }
}

static void successor_seen(void* user, uint32_t v) { tangents_to((disc_search*)user, v); }

/* The successor at the goal. */
static void tangent_to_goal(disc_search* ds) {
    const dstate* s = &ds->st[ds->expanding];
    const ptl_navmesh* nm = ds->q->nm;
    dstate n = {.parent = ds->expanding, .vert = PTL_NONE, .cell = PTL_NONE, .goal = 1, .ax = ds->t->x, .az = ds->t->z};
    if (s->vert == PTL_NONE) {
        n.dx = s->ax, n.dz = s->az;
        n.g = s->g + ptl_len2(n.ax - n.dx, n.az - n.dz);
    } else {
        double ox = ptl_nm_vx(nm, s->vert), oz = ptl_nm_vz(nm, s->vert), tx, tz;
        if (!ptl_disc_tangent(ox, oz, s->side, n.ax, n.az, 0, ds->r, &n.dx, &n.dz, &tx, &tz)) return;
        if (!ptl_disc_in_cone(ds->q, s->vert, n.dx, n.dz)) return;
        n.g = s->g + ds->r * sweep(ox, oz, s->ax, s->az, n.dx, n.dz, s->side) + ptl_len2(n.ax - n.dx, n.az - n.dz);
    }
    push_state(ds, &n);
}

/* ---- Output ----------------------------------------------------------------------------------- */

typedef struct out_writer {
    ptl_query* q;
    ptl_path_result* res;
    ptl_qpoint last; /* the last point written, located */
    double r;
    uint32_t total;
    double length;
    /* While an arc is written: the walls near its corner (nearer than the arc's polyline can come
       to them plus r), 4 doubles each, so that its points and segments are checked against them
       alone; near_count PTL_NONE: none gathered (check through the mesh). */
    const double* near;
    uint32_t near_count;
    /* The start [0] and the goal [1], and the cell where ptl_clear_move's sweep from each met no wall
       within r (PTL_NONE: not known). */
    const ptl_qpoint* end[2];
    uint32_t roomy[2];
} out_writer;

/* Is (x, z), located in `cell`, an end whose floats keep r unmoved: the end itself, in the cell
   where the sweep from it met no wall within r, and equal to its floats? ptl_clear_float_point
   would find the same (its walk from the cell to the point stays in it; its sweep is that one). */
static bool roomy_end(const out_writer* w, double x, double z, uint32_t cell) {
    if ((double)(float)x != x || (double)(float)z != z) return false;
    for (int k = 0; k < 2; ++k)
        if (w->roomy[k] != PTL_NONE && cell == w->roomy[k] && x == w->end[k]->x && z == w->end[k]->z) return true;
    return false;
}

/* The walls within `reach` of vertex v (reached through the portals within it, so on its floor),
   as segments into out (4 doubles each, at most cap); how many, or PTL_NONE when they do not fit. */
static uint32_t near_walls(ptl_query* q, uint32_t v, double reach, double* out, uint32_t cap) {
    const ptl_navmesh* nm = q->nm;
    const double cx = ptl_nm_vx(nm, v), cz = ptl_nm_vz(nm, v);
    uint32_t head = 0, tail, n = 0, stamp = bfs_start(q, nm->vcell + nm->vcell_start[v], nm->vcell_start[v + 1] - nm->vcell_start[v], &tail);
    while (head < tail) {
        const ptl_blob_cell* c = &nm->cells[q->cheap[head++]];
        for (uint32_t i = 0; i < c->vert_count; ++i) {
            const ptl_slot* sa = &q->slots[c->first + i];
            const ptl_slot* sb = &q->slots[c->first + (i + 1 == c->vert_count ? 0 : i + 1)];
            double d = point_segment(cx, cz, sa->x, sa->z, sb->x, sb->z);
            if (d >= reach) continue;
            if (sa->nbr != PTL_NONE) {
                if (q->seen_stamp[sa->nbr] != stamp) q->seen_stamp[sa->nbr] = stamp, q->cheap[tail++] = sa->nbr;
                continue;
            }
            if (n == cap) return PTL_NONE;
            double* o = out + 4 * (size_t)n++;
            o[0] = sa->x, o[1] = sa->z, o[2] = sb->x, o[3] = sb->z;
        }
    }
    return n;
}

/* The distance from (x, z), or from the segment to (ex, ez) when `seg`, to the nearest of the
   writer's near walls. */
static double near_distance(const out_writer* w, double x, double z, bool seg, double ex, double ez) {
    double best = INFINITY;
    if (!seg) {
        /* the least squared distance, then its square root: sqrt is monotone and correctly rounded,
           so this is the least of the distances */
        for (uint32_t k = 0; k < w->near_count; ++k) {
            const double* o = w->near + 4 * (size_t)k;
            double d = point_segment2(x, z, o[0], o[1], o[2], o[3]);
            best = d < best ? d : best;
        }
        return sqrt(best);
    }
    for (uint32_t k = 0; k < w->near_count; ++k) {
        const double* o = w->near + 4 * (size_t)k;
        double d = segment_segment(x, z, ex, ez, o[0], o[1], o[2], o[3]);
        best = d < best ? d : best;
    }
    return best;
}

/* Does the segment from (x, z) to (ex, ez) come nearer than lim to one of the writer's near walls:
   near_distance(w, x, z, true, ex, ez) < lim, stopping at the first such wall (segment_within is
   segment_segment(...) < lim)? */
static bool near_within(const out_writer* w, double x, double z, double ex, double ez, double lim) {
    for (uint32_t k = 0; k < w->near_count; ++k) {
        const double* o = w->near + 4 * (size_t)k;
        if (segment_within(x, z, ex, ez, o[0], o[1], o[2], o[3], lim)) return true;
    }
    return false;
}

/* Does (x, z) come nearer than lim to one of the writer's near walls (near_distance(w, x, z, false,
   0, 0) < lim), stopping at the first? */
static bool near_point_within(const out_writer* w, double x, double z, double lim) {
    /* sqrt(d2) < lim without the square root where d2 is clearly on one side of lim^2 */
    if (!(lim > 0)) return false;
    const double lim2 = lim * lim, lo = lim2 * (1 - 1e-9), hi = lim2 * (1 + 1e-9);
    for (uint32_t k = 0; k < w->near_count; ++k) {
        const double* o = w->near + 4 * (size_t)k;
        const double d2 = point_segment2(x, z, o[0], o[1], o[2], o[3]);
        if (d2 < lo || (d2 <= hi && sqrt(d2) < lim)) return true;
    }
    return false;
}

/* ptl_clear_float_point against the writer's near walls (a point of an arc's polyline): the floats
   of (x, z), or the ones up to two float steps away that keep r from them (the farthest when none
   does). */
static void near_float_point(const out_writer* w, double x, double z, float* fx, float* fz) {
    const float bx = (float)x, bz = (float)z;
    *fx = bx, *fz = bz;
    double best = -1;
    for (int ring = 0; ring <= 2; ++ring) {
        /* keep never exceeds r: once one keeps r, no later one is taken */
        for (int i = -ring; i <= ring && best < w->r; ++i)
            for (int j = -ring; j <= ring && best < w->r; ++j) {
                if (ring && abs(i) != ring && abs(j) != ring) continue;
                float cx = bx, cz = bz;
                for (int k = 0; k < abs(i); ++k) cx = nextafterf(cx, i > 0 ? INFINITY : -INFINITY);
                for (int k = 0; k < abs(j); ++k) cz = nextafterf(cz, j > 0 ? INFINITY : -INFINITY);
                double keep = fmin(near_distance(w, cx, cz, false, 0, 0), w->r);
                if (keep > best) best = keep, *fx = cx, *fz = cz;
            }
        if (best >= w->r) return;
    }
}

static void put_point_as(out_writer* w, double x, double z, bool sure, const ptl_qpoint* near);
static void put_point(out_writer* w, double x, double z) { put_point_as(w, x, z, false, NULL); }

/* sure: (x, z) keeps r by more than rounding moves it, so its floats need no check. Its cell: a
   walk from `near` (a located point at most a few float steps from it: the arrival point of a
   checked segment, whose cell the check found), or from the last point written (NULL). */
static void put_point_as(out_writer* w, double x, double z, bool sure, const ptl_qpoint* near) {
    uint32_t cell = w->total == 0 ? w->last.cell : ptl_clear_walk(w->q, near ? near : &w->last, x, z);
    if (cell == PTL_NONE) cell = w->last.cell; /* rounding at a wall: the previous point's cell */
    if (w->total > 0) {
        if (x == w->last.x && z == w->last.z) return;
        w->length += ptl_len2(x - w->last.x, z - w->last.z);
    }
    ptl_path_result* res = w->res;
    if (w->total < res->point_capacity) {
        float* p = res->points + 3 * w->total;
        if (sure) {
            p[0] = (float)x, p[2] = (float)z;
        } else if (w->near_count != PTL_NONE) {
            near_float_point(w, x, z, &p[0], &p[2]);
        } else if (roomy_end(w, x, z, cell)) {
            p[0] = (float)x, p[2] = (float)z;
        } else {
            ptl_clear_float_point(w->q, x, z, cell, w->r, &p[0], &p[2]);
        }
        p[1] = ptl_query_cell_y(w->q->nm, cell, x, z);
        res->point_count = w->total + 1;
    }
    ++w->total;
    cell_point(x, z, cell, &w->last);
}

/* Angles (as sweeps from the arc's start, in (0, span)) where a wall comes within r + tol of the
   arc around (cx, cz): the arc's point nearest the wall's nearest point to the corner. A polyline
   that touches the circle there (a tangent line at that angle) keeps r from such a wall even where
   the path is squeezed between it and the corner. From the writer's near walls; into `out` (at
   most cap), sorted; returns the count. */
static uint32_t touch_angles(const out_writer* w, double cx, double cz, double r, double tol, double a0, double span, int o,
                             double* out, uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->near_count && n < cap; ++k) {
        const double* s = w->near + 4 * (size_t)k;
        double d = point_segment(cx, cz, s[0], s[1], s[2], s[3]);
        if (d >= 2 * r + tol || d <= 0) continue;
        /* the wall's point nearest the corner, and the arc's angle toward it */
        double dx = s[2] - s[0], dz = s[3] - s[1], l2 = dx * dx + dz * dz;
        double t = l2 > 0 ? ((cx - s[0]) * dx + (cz - s[1]) * dz) / l2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double a = atan2(s[1] + t * dz - cz, s[0] + t * dx - cx);
        double u = o > 0 ? a - a0 : a0 - a;
        u = fmod(u, TWO_PI);
        if (u < 0) u += TWO_PI;
        if (u > 1e-9 && u < span - 1e-9) out[n++] = u;
    }
    for (uint32_t i = 1; i < n; ++i)
        for (uint32_t k = i; k > 0 && out[k - 1] > out[k]; --k) {
            double x = out[k];
            out[k] = out[k - 1], out[k - 1] = x;
        }
    return n;
}

/* Does (x, z) keep `keep` from every wall it sees (reached from the last point written)? */
static bool vertex_keeps(out_writer* w, double x, double z, double keep) {
    if (w->near_count != PTL_NONE) return !near_point_within(w, x, z, keep);
    uint32_t cell = ptl_clear_walk(w->q, &w->last, x, z);
    if (cell == PTL_NONE) return false;
    ptl_clear_wall b;
    return ptl_clear_nearest_wall(w->q, x, z, cell, keep, keep, &b) == PTL_OK && !(b.found && b.d < keep);
}

/* Do the segments from the last point written to (x, z), and from there to the arc's exit (when
   `exit`), keep r less `slack`? */
static bool piece_segments_keep(out_writer* w, double x, double z, const double* exit, double r, double slack) {
    if (w->near_count != PTL_NONE)
        return !near_within(w, w->last.x, w->last.z, x, z, r - slack) &&
               (!exit || !near_within(w, x, z, exit[0], exit[1], r - slack));
    uint32_t end;
    if (!segment_keeps(w->q, &w->last, x, z, r, slack, &end)) return false;
    if (!exit) return true;
    ptl_qpoint at;
    cell_point(x, z, end, &at);
    return segment_keeps(w->q, &at, exit[0], exit[1], r, slack, &end);
}

/* Writes the polyline vertex for the piece [u0, u1] of the arc (sweeps from angle a0): the meeting
   point of the tangent lines at u0 and u1, at radius r / cos((u1 - u0) / 2). The tangent lines are
   first taken `margin` beyond the circle (two float steps of the coordinates), so that the segments
   between rounded vertices keep r where they touch it; where that brings the vertex, or a segment
   to it (or from it to the arc's exit, `exit` for the last piece), nearer than r to another wall (a
   squeeze), on the circle itself. Pieces wider than max_step are halved first (to a depth), and
   those that keep r neither way at most SQUEEZE_HALVINGS times: a piece of max_step / 64 hugs the
   circle as closely as it usefully can, and halving on to the depth limit made up to 2^24 pieces
   on a damaged blob whose walls overlap (a fuzz finding, 22 s for one path). */
#define SQUEEZE_HALVINGS 6
static void put_piece(out_writer* w, double cx, double cz, double r, double margin, double a0, int o, double u0, double u1,
                      double max_step, const double* exit, bool clear, int depth, int squeezes) {
    double h = 0.5 * (u1 - u0), a = a0 + o * (u0 + h), ca = cos(a), sa = sin(a);
    bool split = 2 * h > max_step && depth < 24;
    if (!split && clear) {
        /* no other wall near the corner: the vertex two float steps out keeps r, and so do its
           floats and the segments along the tangent lines */
        double rr = (r + margin) / cos(h);
        put_point_as(w, cx + rr * ca, cz + rr * sa, true, NULL);
        return;
    }
    if (!split) {
        const double slack = 4 * w->q->eps;
        double rr = (r + margin) / cos(h), x = cx + rr * ca, z = cz + rr * sa;
        if (vertex_keeps(w, x, z, r + 0.5 * margin) && piece_segments_keep(w, x, z, exit, r, 0)) {
            put_point(w, x, z);
            return;
        }
        rr = r / cos(h), x = cx + rr * ca, z = cz + rr * sa;
        if (depth >= 24 || squeezes >= SQUEEZE_HALVINGS ||
            (vertex_keeps(w, x, z, r - slack) && piece_segments_keep(w, x, z, exit, r, slack))) {
            put_point(w, x, z);
            return;
        }
    }
    const int sq = squeezes + !split;
    put_piece(w, cx, cz, r, margin, a0, o, u0, u0 + h, max_step, NULL, clear, depth + 1, sq);
    put_piece(w, cx, cz, r, margin, a0, o, u0 + h, u1, max_step, exit, clear, depth + 1, sq);
}

/* Writes the arc around v from (ax, az) (in cell `acell`) to (bx, bz) as a polyline outside the
   circle, within `tol` of it: the tangent lines at the ends, at the angles where walls come near
   (touch_angles) and at evenly spaced angles between, each meeting the next beyond the circle.
   a0: the angle of (ax, az) around v (atan2); span: the angle the arc sweeps (sweep_from). */
static void put_arc(out_writer* w, uint32_t v, double r, double ax, double az, uint32_t acell, double bx, double bz, int o,
                    double tol, double a0, double span) {
    const ptl_navmesh* nm = w->q->nm;
    double cx = ptl_nm_vx(nm, v), cz = ptl_nm_vz(nm, v);
    double margin = 2.4e-7 * fmax(1, fmax(fabs(cx), fabs(cz)) + r);
    /* No wall but the corner's own within 2 r + tol + 2 margins: nothing to squeeze against (the
       polyline lies within r + tol + margin of the corner, in its normal cone). Then the arc's ends
       too are written two float steps out from the circle, along its radius: the tangent segments
       to them keep r from the corner still (the segment's squared distance to the corner grows by
       the push), and their floats need no check. */
    const bool clear = ptl_clear_vertex_rho(w->q, v) >= 2 * r + tol + 2 * margin;
    const double push = clear ? (r + margin) / r : 1;
    /* scratch in the search's open list (no longer used): the touch angles in its first half, the
       walls near the corner in its second. Every point and segment of the arc's polyline lies
       within r + tol + margin of the corner, so the walls within r of them lie within
       2 r + tol + 2 margins of it. */
    double* u = (double*)(void*)w->q->heap;
    const uint32_t cap = w->q->max_nodes;
    w->near_count = PTL_NONE;
    if (!clear) {
        w->near = u + cap;
        w->near_count = near_walls(w->q, v, 2 * r + tol + 2 * margin, u + cap, cap / 4);
    }
    ptl_qpoint arrival;
    cell_point(ax, az, acell, &arrival);
    put_point_as(w, cx + (ax - cx) * push, cz + (az - cz) * push, clear, &arrival);
    if (span <= 0) {
        w->near_count = PTL_NONE;
        return;
    }
    double max_step = 2 * acos(r / (r + tol));
    uint32_t n = clear ? 0 : touch_angles(w, cx, cz, r, tol, a0, span, o, u + 1, cap - 2);
    u[0] = 0, u[n + 1] = span;
    const double exit[2] = {bx, bz};
    for (uint32_t k = 0; k <= n; ++k)
        if (u[k + 1] > u[k]) put_piece(w, cx, cz, r, margin, a0, o, u[k], u[k + 1], max_step, k == n ? exit : NULL, clear, 0, 0);
    put_point_as(w, cx + (bx - cx) * push, cz + (bz - cz) * push, clear, NULL);
    w->near_count = PTL_NONE;
}

ptl_status ptl_disc_write_path(disc_search* ds, uint32_t goal, double tol, ptl_path_turn* turns, uint32_t turn_cap,
                             ptl_path_result* res) {
    /* the chain, start first: reverse the parent links in the states' `cell` field... kept apart in
       the node pool's spare states instead, so the checked cells stay */
    uint32_t n = 0;
    for (uint32_t i = goal; i != PTL_NONE; i = ds->st[i].parent) ++n;
    if (ds->count + n > ds->cap) return PTL_ERR_OUT_OF_NODES;
    uint32_t* chain = (uint32_t*)(void*)&ds->st[ds->count];
    uint32_t k = n;
    for (uint32_t i = goal; i != PTL_NONE; i = ds->st[i].parent) chain[--k] = i;
    out_writer w = {.q = ds->q, .res = res, .r = ds->r, .near_count = PTL_NONE, .end = {ds->s, ds->t},
                    .roomy = {ds->ends ? ds->ends->roomy[0] : PTL_NONE, ds->ends ? ds->ends->roomy[1] : PTL_NONE}};
    w.last = *ds->s;
    const ptl_navmesh* nm = ds->q->nm;
    double length = 0;
    res->turn_count = 0;
    put_point(&w, ds->st[chain[0]].ax, ds->st[chain[0]].az);
    for (uint32_t j = 1; j < n; ++j) {
        const dstate* s = &ds->st[chain[j]];
        /* lengths in 3D, as for radius 0: each segment and arc with the rise between its ends */
        double seg = ptl_len2(s->ax - s->dx, s->az - s->dz), rise = (double)s->ay - s->dy;
        length += sqrt(seg * seg + rise * rise);
        ptl_qpoint arrival; /* the segment's check found its end's cell: no walk along it again */
        cell_point(s->ax, s->az, s->cell, &arrival);
        if (s->vert == PTL_NONE) {
            put_point_as(&w, s->ax, s->az, false, &arrival);
            continue;
        }
        const dstate* next = &ds->st[chain[j + 1]];
        double cx = ptl_nm_vx(nm, s->vert), cz = ptl_nm_vz(nm, s->vert);
        double a0 = atan2(s->az - cz, s->ax - cx), span = sweep_from(a0, cx, cz, next->dx, next->dz, s->side);
        double arc_len = ds->r * span, arc_rise = (double)next->dy - s->ay;
        length += sqrt(arc_len * arc_len + arc_rise * arc_rise);
        put_arc(&w, s->vert, ds->r, s->ax, s->az, s->cell, next->dx, next->dz, s->side, tol, a0, span);
        if (res->turn_count < turn_cap && turns) {
            ptl_path_turn* t = &turns[res->turn_count];
            t->vert = s->vert;
            memcpy(t->corner, nm->verts + 3 * s->vert, sizeof t->corner);
            t->radius = (float)ds->r;
            t->side = s->side;
            t->angle = (float)span;
            t->entry[0] = (float)s->ax, t->entry[2] = (float)s->az;
            t->exit[0] = (float)next->dx, t->exit[2] = (float)next->dz;
            t->entry[1] = t->exit[1] = t->corner[1];
        }
        ++res->turn_count;
    }
    res->point_total = w.total;
    res->length = length;
    res->found = res->complete = true;
    res->goal_cell = w.last.cell;
    if (res->turn_count > turn_cap) res->turn_count = turn_cap;
    return w.total > res->point_capacity ? PTL_TRUNCATED : PTL_OK;
}

ptl_status ptl_query_disc_path(ptl_query* q, const ptl_qpoint* start, const ptl_qpoint* goal, double r,
                               double tolerance, const ptl_disc_ends* ends, ptl_path_turn* turns, uint32_t turn_capacity,
                               ptl_path_result* res) {
    disc_search ds = {.q = q, .s = start, .t = goal, .ends = ends, .r = r, .tol = q->eps};
    ds.st = (dstate*)(void*)q->nodes;
    ds.cap = (uint32_t)((size_t)(q->max_nodes / 2) * sizeof(ptl_snode) / sizeof(dstate));
    ds.stamp = ptl_query_next_stamp(q);
    q->heap_count = 0;
    /* start and goal in different pieces of walkable space: no path, and no search needed */
    if (q->nm->cell_piece[start->cell] != q->nm->cell_piece[goal->cell]) return PTL_PARTIAL;
    if (q->lm_count) {
        ptl_query_point_bounds(q, goal, q->lm_goal_lo, q->lm_goal_hi);
        ds.alt = true;
    }
    push_state(&ds, &(dstate){.ax = start->x, .az = start->z, .dx = start->x, .dz = start->z, .parent = PTL_NONE,
                              .vert = PTL_NONE, .cell = start->cell, .checked = 1});
    uint64_t expansions = 0;
    while (q->heap_count > 0 && ds.error == PTL_OK) {
        uint32_t i = ptl_heap_pop(q->heap, &q->heap_count);
        dstate* s = &ds.st[i];
        if (!s->checked) {
            if (s->vert != PTL_NONE && dominated(&ds, s->vert, s->side, s->g, s->ax, s->az)) continue;
            if (!ptl_disc_check_state(&ds, i)) continue;
            s->checked = 1;
        }
        if (s->goal) {
            res->nodes_expanded = (uint32_t)(expansions > UINT32_MAX ? UINT32_MAX : expansions);
            return ptl_disc_write_path(&ds, i, tolerance, turns, turn_capacity, res);
        }
        if (s->vert != PTL_NONE) record(&ds, s);
        ++expansions;
        ds.expanding = i;
        if (s->vert != PTL_NONE) ds.expanding_a = atan2(s->az - ptl_nm_vz(q->nm, s->vert), s->ax - ptl_nm_vx(q->nm, s->vert));
        tangent_to_goal(&ds);
        ptl_qpoint from;
        ptl_status st;
        double win[4];
        if (s->vert == PTL_NONE) {
            from = *start;
            st = ptl_clear_visible(q, &from, successor_seen, &ds);
        } else {
            bool cone = departure_window(&ds, s->vert, s->side, win);
            st = ptl_clear_visible_vertex(q, s->vert, s->side, cone ? win : NULL, NEAR_RADII * ds.r, successor_seen, &ds);
        }
        if (st < 0) return st;
    }
    res->nodes_expanded = (uint32_t)(expansions > UINT32_MAX ? UINT32_MAX : expansions);
    return ds.error < 0 ? ds.error : PTL_PARTIAL;
}
