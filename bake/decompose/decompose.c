/* Near-optimal convex decomposition by notches: ANavMG (Oliva and Pelechano 2011/2012, §4; Oliva's
   thesis §4, §4.2, §4.3).

   Every notch (reflex vertex) gets a portal to the closest element inside its Area of Interest,
   the cone between the prolongations of its two incident edges (thesis §4, figure 9):
   - a vertex: a vertex-vertex portal, which may resolve the other vertex too when it is a notch
     whose own Area of Interest contains this one;
   - an edge: the best of the five candidates (the projection of the notch, the two points where the
     cone's sides meet the edge, the edge's endpoints) is the closest point of the edge clipped to
     the cone; the edge is split there (a new vertex, still on the boundary) and the portal drawn;
   - an earlier portal: a portal to one of its endpoints inside the cone, or, failing that, portals
     towards both ends (§4 "vertex-portal"), each checked for visibility against the scene (§4.2).
     Where an endpoint is hidden, the portal goes to the vertex that hides it: in the triangle between
     the notch, the hit point and the endpoint, the vertex at the smallest angle from the hit ray is
     visible from the notch (the triangle's other sides are the free ray and a part of the portal).
   A notch is handled as long as the largest angular gap between its incident elements exceeds pi,
   so a notch resolved by another's portal costs nothing, and one that needs two portals gets them.
   No portal ever ends in the interior of another: every vertex of the result lies on the boundary.

   Elements live in a uniform grid (seggrid.c); the closest element is found by walking buckets ring
   by ring around the notch, skipping buckets outside the cone, which makes the whole pass near
   linear on game maps instead of the quadratic brute force of the original CPU version (§4.1).

   A portal drawn for one notch may be made unnecessary by later ones (the notch is resolved by
   them too), so after the last notch every portal whose removal leaves both of its endpoints
   convex is removed, merging its two cells (the "dispensable portals" of §4.3 at zero tolerance,
   Hertel and Mehlhorn's rule): strictly convex cells, fewer of them (undulating.obj: 155 -> 143).
   Cells are then read off the planar graph of walls and portals (faces to the left of half-edges).
   Convexity relaxation (§4.3) is in relax.c.

   A rounded input (ptl_shape.precision q > 0: the 2D readers round to floats, what the blob
   stores) has collinear corners off their lines by the rounding (a rotated grid). Features within
   2 q are one: such a turn is straight (no notch), a corner that close outside a cone side is in
   the cone, a split point that close to a wall's end is that end, a gap that close to straight is
   closed; cells are then convex within 2 q, inside validation's tolerance. The readers refuse a
   vertex within 4 q of an edge (ptl_shape_validate), so nothing else is that close. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "closest_batch.h"
#include "decompose.h"
#include "relax.h"
#include "split_point.h"
#include "../shape/geom2.h"
#include "../shape/shape_build.h"

enum { MAX_STEPS_PER_NOTCH = 64 };
/* How far past the closest element a notch looks for a notch to pair with, in buckets of the
   segment grid (about one segment each, so the reach follows the density of the walls): at most
   `pair_slack` times the closest distance and at most this many buckets beyond it. Narrow passages
   pair across long distances, open spaces only nearby, and the search costs a few buckets per
   notch (unbounded, a pair_slack of 16 made Aurora's decomposition 12x slower for 2% fewer
   cells than this bound gives). */
enum { PAIR_EXTRA_BUCKETS = 3 };

/* The distance up to which a notch whose closest element is at squared distance `d2` takes a notch
   to pair with. */
static double pair_reach(double d2, double slack, double bucket) {
    double d = sqrt(d2), reach = d * slack, cap = d + PAIR_EXTRA_BUCKETS * bucket;
    return reach < cap ? reach : cap;
}

/* ---- elements ----------------------------------------------------------------------------------*/

#define P ptl_dc_pos
#define other_end ptl_dc_other_end

static bool add_seg(ptl_dc* d, uint32_t a, uint32_t b, uint8_t kind, uint32_t* out) {
    ptl_dseg s = {a, b, kind, 1, {0, 0}};
    uint32_t id = d->s.count;
    if (!PTL_PUSH(&d->alloc, d->s, s)) return false;
    if (!ptl_grow(&d->alloc, (void**)&d->stamp, &d->stamp_cap, d->s.count, sizeof(uint32_t))) return false;
    d->stamp[id] = 0;
    ptl_v2 pa = P(d, a), pb = P(d, b);
    if (!ptl_seggrid_insert(&d->grid, id, pa.x, pa.y, pb.x, pb.y)) return false;
    if (d->pending) ptl_dc_pending_note(d, id);
    *out = id;
    return true;
}

/* Direction keys at vertex v are counter-clockwise angles from its outgoing wall (v -> next). */
static double key_at(const ptl_dc* d, uint32_t v, ptl_v2 dir) {
    const ptl_dvert* x = &d->v.data[v];
    return v2_angle_key(v2_sub(P(d, x->next), x->p), dir);
}

/* Inserts portal `seg` into v's list, kept sorted by direction key. */
static bool link_portal(ptl_dc* d, uint32_t v, uint32_t seg) {
    double k = key_at(d, v, v2_sub(P(d, other_end(d, seg, v)), P(d, v)));
    ptl_dref r = {seg, PTL_NONE, k};
    uint32_t id = d->refs.count;
    if (!PTL_PUSH(&d->alloc, d->refs, r)) return false;
    uint32_t* at = &d->v.data[v].portals;
    while (*at != PTL_NONE && d->refs.data[*at].key < k) at = &d->refs.data[*at].next;
    d->refs.data[id].next = *at;
    *at = id;
    d->v.data[v].portal_count++;
    return true;
}

static bool add_portal(ptl_dc* d, uint32_t n, uint32_t v) {
    uint32_t seg;
    if (!add_seg(d, n, v, PTL_DSEG_PORTAL, &seg)) return false;
    return link_portal(d, n, seg) && link_portal(d, v, seg);
}

/* Recomputes the keys of v's portals after its outgoing wall changed direction and sorts them
   again. Keys are angles from the outgoing wall, and a split point off the wall's line by a
   rounding turns that wall: keys from the old and the new wall would not compare (two portals a
   hair apart in angle, one keyed before the split and one after, would swap). */
static void rekey_portals(ptl_dc* d, uint32_t v) {
    uint32_t list = d->v.data[v].portals;
    d->v.data[v].portals = PTL_NONE;
    while (list != PTL_NONE) {
        uint32_t r = list;
        list = d->refs.data[r].next;
        double k = key_at(d, v, v2_sub(P(d, other_end(d, d->refs.data[r].seg, v)), P(d, v)));
        d->refs.data[r].key = k;
        uint32_t* at = &d->v.data[v].portals;
        while (*at != PTL_NONE && d->refs.data[*at].key < k) at = &d->refs.data[*at].next;
        d->refs.data[r].next = *at;
        *at = r;
    }
}

/* Splits wall a -> b at q (strictly inside it) and returns the new vertex. */
static bool split_wall(ptl_dc* d, uint32_t seg, ptl_v2 q, uint32_t* out) {
    uint32_t a = d->s.data[seg].a, b = d->s.data[seg].b;
    ptl_dvert nv;
    memset(&nv, 0, sizeof nv);
    nv.p = q;
    nv.prev = a;
    nv.next = b;
    nv.portals = PTL_NONE;
    uint32_t id = d->v.count;
    nv.twin = id;
    if (!PTL_PUSH(&d->alloc, d->v, nv)) return false;
    d->s.data[seg].alive = 0;
    d->v.data[a].next = id;
    d->v.data[b].prev = id;
    uint32_t s1, s2;
    if (!add_seg(d, a, id, PTL_DSEG_WALL, &s1) || !add_seg(d, id, b, PTL_DSEG_WALL, &s2)) return false;
    d->v.data[a].out_seg = s1;
    d->v.data[id].out_seg = s2;
    rekey_portals(d, a);
    d->split_points++;
    *out = id;
    return true;
}

static uint32_t facing_copy(const ptl_dc* d, uint32_t v, ptl_v2 from);
static bool visible(ptl_dc* d, ptl_v2 p, ptl_v2 q);

/* The vertex notch n's portal to point q of wall `seg` ends at: a new vertex splitting the wall at
   q; on a rounded input, at the float point ptl_split_point_on_floats chooses. Where no float point
   near q can lie on the wall (q within a few float steps of a spike's tip, whose solid wedge is
   thinner than a float step there: any rounding folds the cells at the tip over each other), the
   wall's nearer end instead when the notch sees it: a vertex-vertex portal that need not resolve
   the whole gap, since resolve_notch closes what stays reflex with more portals (the side towards
   the wall is then the thin wedge's, convex; the other side looks away from it). False when memory
   runs out. */
static bool split_wall_for_notch(ptl_dc* d, uint32_t n, uint32_t seg, ptl_v2 q, uint32_t* out) {
    if (d->tol > 0) {
        const uint32_t a = d->s.data[seg].a, b = d->s.data[seg].b;
        ptl_v2 f;
        if (ptl_split_point_on_floats(d, a, b, q, &f)) return split_wall(d, seg, f, out);
        const ptl_v2 np = P(d, n);
        const uint32_t e = v2_dist2(P(d, a), q) <= v2_dist2(P(d, b), q) ? a : b;
        const uint32_t v = facing_copy(d, e, np);
        if (v != PTL_NONE && visible(d, np, P(d, v))) {
            *out = v;
            return true;
        }
    }
    return split_wall(d, seg, q, out);
}

/* ---- angular structure at a vertex -------------------------------------------------------------*/

/* The directions around v inside its free sector, counter-clockwise: the outgoing wall, the portals,
   then the incoming wall reversed. Returns the count (>= 2) or 0 when scratch memory fails. */
static uint32_t sector_dirs(ptl_dc* d, uint32_t v, ptl_v2** dirs) {
    const ptl_dvert* x = &d->v.data[v];
    uint32_t n = x->portal_count + 2;
    if (!PTL_RESERVE(&d->alloc, d->scratch_dirs, n)) {
        d->oom = true; /* callers that cannot report it leave it to ptl_dc_run */
        return 0;
    }
    ptl_v2* out = d->scratch_dirs.data;
    uint32_t k = 0;
    out[k++] = v2_sub(P(d, x->next), x->p);
    for (uint32_t r = x->portals; r != PTL_NONE; r = d->refs.data[r].next)
        out[k++] = v2_sub(P(d, other_end(d, d->refs.data[r].seg, v)), x->p);
    out[k++] = v2_sub(P(d, x->prev), x->p);
    *dirs = out;
    return k;
}

/* Finds the reflex gap at v (at most one gap can exceed pi). */
static bool reflex_gap(ptl_dc* d, uint32_t v, ptl_v2* u, ptl_v2* w, bool* oom) {
    ptl_v2* dirs;
    uint32_t n = sector_dirs(d, v, &dirs);
    *oom = n == 0;
    /* A portal that lands on the prolongation of a side (the edge of the Area of Interest) leaves
       the two directions opposite up to the rounding of its far end, whose error grows with the
       coordinates' magnitude, not with the directions' lengths (v2_reflex's own tolerance): a turn
       that small is straight, not a gap still open. The far end is a point interpolated on a wall,
       so its error follows the wall's end points, which may lie much farther out than v: the
       shape's extent bounds them. A rounded input (ptl_shape.precision) also has portals ending
       at a vertex within its tolerance of the side (closest_in_cone): straight within that too. */
    const double slack = fmax(0x1p-44 * d->extent, d->tol);
    for (uint32_t i = 0; i + 1 < n; ++i) {
        if (v2_reflex(dirs[i], dirs[i + 1]) &&
            !(v2_dot(dirs[i], dirs[i + 1]) < 0 &&
              -v2_cross(dirs[i], dirs[i + 1]) <= slack * (sqrt(v2_len2(dirs[i])) + sqrt(v2_len2(dirs[i + 1]))))) {
            *u = dirs[i];
            *w = dirs[i + 1];
            return true;
        }
    }
    if (n) d->v.data[v].closed = 1; /* portals only split gaps further (relax.c reopens on removal) */
    return false;
}

static bool in_cone(ptl_v2 n, ptl_v2 r1, ptl_v2 r2, ptl_v2 q);
static bool in_sector(const ptl_dc* d, uint32_t v, ptl_v2 dir);

/* Is v a notch still open whose Area of Interest contains p (so a portal v-p closes it)? */
static bool mutual_notch(ptl_dc* d, uint32_t v, ptl_v2 p) {
    if (d->v.data[v].closed) return false;
    ptl_v2 u, w;
    bool oom;
    if (!reflex_gap(d, v, &u, &w, &oom)) return false;
    return in_cone(P(d, v), v2_neg(w), v2_neg(u), p) && in_sector(d, v, v2_sub(p, P(d, v)));
}

/* True when direction `dir` leaving v lies strictly inside v's free sector and on no element. */
static bool in_sector(const ptl_dc* d, uint32_t v, ptl_v2 dir) {
    const ptl_dvert* x = &d->v.data[v];
    double k = key_at(d, v, dir), end = key_at(d, v, v2_sub(P(d, x->prev), x->p));
    if (!(k > 0 && k < end)) return false;
    for (uint32_t r = x->portals; r != PTL_NONE; r = d->refs.data[r].next)
        if (d->refs.data[r].key == k) return false;
    return true;
}

/* Of the vertices sharing v's position (pinch copies), the one whose free sector faces `from`. */
static uint32_t facing_copy(const ptl_dc* d, uint32_t v, ptl_v2 from) {
    uint32_t c = v;
    do {
        if (in_sector(d, c, v2_sub(from, P(d, c)))) return c;
        c = d->v.data[c].twin;
    } while (c != v);
    return PTL_NONE;
}

/* ---- queries against the element grid ----------------------------------------------------------*/

typedef ptl_dc_hit hit;

/* Clips t in [*t0, *t1] to c + t k >= 0. */
static void clip(double c, double k, double* t0, double* t1) {
    if (k == 0) {
        if (c < 0) *t1 = -1;
        return;
    }
    double t = -c / k;
    if (k > 0) {
        if (t > *t0) *t0 = t;
    } else if (t < *t1) {
        *t1 = t;
    }
}

/* For a rounded input (tol > 0): the nearer end of segment `seg` that lies outside the closed cone
   by at most the tolerance, as a hit on that end. */
static bool end_near_cone(const ptl_dc* d, uint32_t seg, ptl_v2 n, ptl_v2 r1, ptl_v2 r2, hit* out) {
    if (!(d->tol > 0)) return false;
    const ptl_dseg* s = &d->s.data[seg];
    const double w1 = d->tol * sqrt(v2_len2(r1)), w2 = d->tol * sqrt(v2_len2(r2));
    out->seg = PTL_NONE;
    out->d2 = DBL_MAX;
    for (int e = 0; e < 2; ++e) {
        const ptl_v2 q = P(d, e ? s->b : s->a), dq = v2_sub(q, n);
        const double c1 = v2_cross(r1, dq), c2 = -v2_cross(r2, dq), d2 = v2_len2(dq);
        if (c1 >= 0 && c2 >= 0) continue; /* inside: the clip finds it */
        /* outside one side, within the tolerance of that side's ray (not behind the apex: a thin
           cone's two widened sides also meet behind it) */
        const bool near1 = c1 < 0 && c1 >= -w1 && c2 >= 0 && v2_dot(r1, dq) > 0;
        const bool near2 = c2 < 0 && c2 >= -w2 && c1 >= 0 && v2_dot(r2, dq) > 0;
        if (!(near1 || near2) || d2 == 0 || d2 >= out->d2) continue;
        out->seg = seg;
        out->p = q;
        out->d2 = d2;
        out->end = e ? 2 : 1;
        out->snapped = 0;
    }
    return out->seg != PTL_NONE;
}

/* Closest point to n of segment s clipped to the closed cone {q : r1 x (q-n) >= 0, r2 x (q-n) <= 0}
   (the five-candidate rule of thesis §4, computed directly). Axis-aligned cases are snapped so that
   grid inputs give exact lattice points. */
static bool clipped_closest(const ptl_dc* d, uint32_t seg, ptl_v2 n, ptl_v2 r1, ptl_v2 r2, hit* out) {
    const ptl_dseg* s = &d->s.data[seg];
    ptl_v2 a = P(d, s->a), b = P(d, s->b), dv = v2_sub(b, a), an = v2_sub(a, n);
    double t0 = 0, t1 = 1;
    clip(v2_cross(r1, an), v2_cross(r1, dv), &t0, &t1);
    double lo_before = t0, hi_before = t1; /* after the r1 side: tells which side clipped last */
    clip(-v2_cross(r2, an), -v2_cross(r2, dv), &t0, &t1);
    if (t0 > t1) return false;
    int lo_r2 = t0 != lo_before, hi_r2 = t1 != hi_before;
    double tp = v2_dot(v2_sub(n, a), dv) / v2_len2(dv), t = tp;
    ptl_v2 ray = v2(0, 0);
    bool on_ray = false;
    out->snapped = 0;
    if (t <= t0) {
        t = t0;
        if (t0 > 0) on_ray = true, ray = lo_r2 ? r2 : r1;
    } else if (t >= t1) {
        t = t1;
        if (t1 < 1) on_ray = true, ray = hi_r2 ? r2 : r1;
    }
    ptl_v2 p;
    out->end = 0;
    if (t <= 0) {
        p = a;
        out->end = 1;
    } else if (t >= 1) {
        p = b;
        out->end = 2;
    } else {
        p = v2_add(a, v2_scale(dv, t));
        if (dv.x == 0) p.x = a.x;
        if (dv.y == 0) p.y = a.y;
        if (on_ray) {
            if (ray.x == 0) p.x = n.x;
            if (ray.y == 0) p.y = n.y;
        } else {
            if (dv.x == 0) p.y = n.y;
            if (dv.y == 0) p.x = n.x;
        }
        if (v2_eq(p, a)) out->end = 1;
        else if (v2_eq(p, b)) out->end = 2;
    }
    out->seg = seg;
    out->p = p;
    out->d2 = v2_dist2(p, n);
    return out->d2 > 0;
}

/* The closest element point of segment `seg` in the cone of notch n; for a rounded input, an end
   within the tolerance outside a side is in the cone (a rotated grid's collinear corners: a wall
   along a side is in or out by the rounding of its ends, and the corner is what closes the notch). */
/* Inlined into the walk as before pair_notches.c's batches called it too (a call per segment there
   costs 4% of a grid map's decomposition). */
static inline __attribute__((always_inline)) bool closest_in_cone(const ptl_dc* d, uint32_t seg, ptl_v2 n, ptl_v2 r1,
                                                                  ptl_v2 r2, hit* out) {
    bool found = clipped_closest(d, seg, n, r1, r2, out);
    if (!(d->tol > 0)) return found;
    /* A point within the input's tolerance of an end is that end: the blob stores floats, and a
       split point that rounds onto (or next to) a vertex leaves a cell of no area between them. */
    const ptl_dseg* s = &d->s.data[seg];
    if (found && out->end == 0 && s->kind == PTL_DSEG_WALL) {
        const double t2 = d->tol * d->tol;
        if (v2_dist2(out->p, P(d, s->a)) <= t2) out->p = P(d, s->a), out->end = 1, out->snapped = 1;
        else if (v2_dist2(out->p, P(d, s->b)) <= t2) out->p = P(d, s->b), out->end = 2, out->snapped = 1;
        if (out->snapped) out->d2 = v2_dist2(out->p, n);
    }
    hit e;
    if (end_near_cone(d, seg, n, r1, r2, &e) && (!found || e.d2 < out->d2)) {
        *out = e;
        found = true;
    }
    return found;
}

#define touches ptl_dc_touches

/* Is a hit better than the best so far? Closer wins; at equal distance a vertex beats an edge
   point (it may resolve two notches), and a wall beats a portal (no T-junction to avoid). */
static bool better(const ptl_dc* d, const hit* h, const hit* best) {
    if (best->seg == PTL_NONE) return true;
    if (h->d2 != best->d2) return h->d2 < best->d2;
    int hv = h->end != 0, bv = best->end != 0;
    if (hv != bv) return hv > bv;
    int hw = d->s.data[h->seg].kind == PTL_DSEG_WALL, bw = d->s.data[best->seg].kind == PTL_DSEG_WALL;
    if (hw != bw) return hw > bw;
    return h->seg < best->seg;
}

/* Could any point of the bucket box lie in the cone? (Conservative.) */
static bool box_meets_cone(const ptl_seggrid* g, int64_t ix, int64_t iy, ptl_v2 n, ptl_v2 r1, ptl_v2 r2, double tol) {
    double x0 = g->x0 + (double)ix * g->cell - n.x - tol, y0 = g->y0 + (double)iy * g->cell - n.y - tol;
    double x1 = x0 + g->cell + 2 * tol, y1 = y0 + g->cell + 2 * tol;
    ptl_v2 c[4] = {{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}};
    bool in1 = false, in2 = false;
    for (int i = 0; i < 4; ++i) {
        if (v2_cross(r1, c[i]) >= 0) in1 = true;
        if (v2_cross(r2, c[i]) <= 0) in2 = true;
    }
    return in1 && in2;
}

static bool mutual_notch(ptl_dc* d, uint32_t v, ptl_v2 np);

typedef ptl_dc_npair npair;
typedef ptl_dc_npair_array npair_array;

/* The closest element to notch n inside the cone (r1 -> r2 counter-clockwise, < pi). Also finds,
   in *mutual, the nearest vertex in the cone that is an unresolved notch whose own Area of Interest
   contains n, up to `slack` times the closest distance: one portal to it resolves both notches.
   With `cand` (and slack > 1), instead of *mutual: every notch in the cone that starts a wall among
   the elements walked (a = the notch, d2), a superset of those within pair_reach of the closest
   element; NULL on out of memory is reported through d->oom. */
static hit closest_element(ptl_dc* d, uint32_t n, ptl_v2 r1, ptl_v2 r2, double slack, hit* mutual,
                           npair_array* cand) {
    const ptl_seggrid* g = &d->grid;
    ptl_v2 np = P(d, n);
    hit best = {PTL_NONE, {0, 0}, DBL_MAX, 0, 0};
    mutual->seg = PTL_NONE;
    mutual->snapped = 0;
    mutual->d2 = DBL_MAX;
    uint32_t stamp = ++d->stamp_id;
    int64_t cx = ptl_seggrid_ix(g, np.x), cy = ptl_seggrid_iy(g, np.y);
    for (int64_t k = 0;; ++k) {
        if (k > 0 && best.seg != PTL_NONE) { /* nothing closer than the closest, no pair beyond reach */
            double dmin = (double)(k - 1) * g->cell;
            if (dmin > (slack > 1 ? pair_reach(best.d2, slack, g->cell) : sqrt(best.d2))) break;
        }
        if (cx - k < 0 && cy - k < 0 && cx + k >= g->nx && cy + k >= g->ny) break;
        for (int64_t y = cy - k; y <= cy + k; ++y) {
            if (y < 0 || y >= g->ny) continue;
            bool edge_row = y == cy - k || y == cy + k;
            int64_t step = edge_row ? 1 : 2 * k;
            for (int64_t x = cx - k; x <= cx + k; x += step ? step : 1) {
                if (x < 0 || x >= g->nx || g->head[y * g->nx + x] == PTL_NONE) continue;
                if (!box_meets_cone(g, x, y, np, r1, r2, d->tol)) continue;
                for (uint32_t i = g->head[y * g->nx + x]; i != PTL_NONE; i = g->nodes[i].next) {
                    uint32_t seg = g->nodes[i].seg;
                    if (d->stamp[seg] == stamp) continue;
                    d->stamp[seg] = stamp;
                    if (!d->s.data[seg].alive || touches(d, seg, np)) continue;
                    hit h;
                    if (closest_in_cone(d, seg, np, r1, r2, &h) && better(d, &h, &best)) best = h;
                    if (slack <= 1) continue;
                    if (cand) {
                        const ptl_dseg* sg = &d->s.data[seg];
                        const uint32_t v = sg->a; /* each vertex once: it starts one wall */
                        if (sg->kind != PTL_DSEG_WALL || !d->v.data[v].real) continue;
                        const ptl_v2 dq = v2_sub(P(d, v), np);
                        if (v2_cross(r1, dq) < 0 || v2_cross(r2, dq) > 0) continue;
                        npair c = {v, 0, (float)v2_len2(dq)};
                        if (!PTL_PUSH(&d->alloc, *cand, c)) d->oom = true;
                        continue;
                    }
                    for (int e = 0; e < 2; ++e) {
                        uint32_t v = e ? d->s.data[seg].b : d->s.data[seg].a;
                        ptl_v2 q = P(d, v);
                        double d2 = v2_dist2(q, np);
                        if (d2 >= mutual->d2 || !d->v.data[v].real) continue;
                        ptl_v2 dq = v2_sub(q, np);
                        if (v2_cross(r1, dq) < 0 || v2_cross(r2, dq) > 0 || !mutual_notch(d, v, np)) continue;
                        mutual->seg = seg;
                        mutual->p = q;
                        mutual->d2 = d2;
                        mutual->end = e ? 2 : 1;
                    }
                }
            }
        }
    }
    return best;
}

/* Does segment p -> q pass through no element (touching only at its own ends)? (§4.2) */
static bool visible(ptl_dc* d, ptl_v2 p, ptl_v2 q) {
    const ptl_seggrid* g = &d->grid;
    uint32_t stamp = ++d->stamp_id;
    int64_t y0 = ptl_seggrid_iy(g, fmin(p.y, q.y)), y1 = ptl_seggrid_iy(g, fmax(p.y, q.y));
    ptl_v2 pq = v2_sub(q, p);
    double len2 = v2_len2(pq);
    for (int64_t y = y0; y <= y1; ++y) {
        int64_t x0, x1;
        if (!ptl_seggrid_row_span(g, p.x, p.y, q.x, q.y, y, &x0, &x1)) continue;
        for (int64_t x = x0; x <= x1; ++x) {
            for (uint32_t i = g->head[y * g->nx + x]; i != PTL_NONE; i = g->nodes[i].next) {
                uint32_t seg = g->nodes[i].seg;
                if (d->stamp[seg] == stamp) continue;
                d->stamp[seg] = stamp;
                if (!d->s.data[seg].alive) continue;
                ptl_v2 a = P(d, d->s.data[seg].a), b = P(d, d->s.data[seg].b);
                double o1 = v2_orient(p, q, a), o2 = v2_orient(p, q, b);
                double o3 = v2_orient(a, b, p), o4 = v2_orient(a, b, q);
                if (((o1 < 0 && o2 > 0) || (o1 > 0 && o2 < 0)) && ((o3 < 0 && o4 > 0) || (o3 > 0 && o4 < 0)))
                    return false;
                /* An endpoint of the element on the open segment p-q: the portal would graze it. */
                ptl_v2 e[2] = {a, b};
                double o[2] = {o1, o2};
                for (int j = 0; j < 2; ++j) {
                    if (o[j] != 0 || v2_eq(e[j], p) || v2_eq(e[j], q)) continue;
                    double t = v2_dot(v2_sub(e[j], p), pq);
                    if (t > 0 && t < len2) return false;
                }
            }
        }
    }
    return true;
}

/* Inside the closed triangle (n, c, e), strictly inside the gap (u -> w) at n, the vertex at the
   smallest angle from the ray n -> c (ties: the nearest). Returns PTL_NONE when there is none. */
static uint32_t hiding_vertex(ptl_dc* d, uint32_t n, ptl_v2 c, uint32_t e, ptl_v2 u, ptl_v2 w) {
    const ptl_seggrid* g = &d->grid;
    ptl_v2 np = P(d, n), ep = P(d, e);
    double sign = v2_orient(np, c, ep) > 0 ? 1 : -1;
    double gap_end = v2_angle_key(u, w);
    uint32_t stamp = ++d->stamp_id;
    int64_t x0 = ptl_seggrid_ix(g, fmin(np.x, fmin(c.x, ep.x))), x1 = ptl_seggrid_ix(g, fmax(np.x, fmax(c.x, ep.x)));
    int64_t y0 = ptl_seggrid_iy(g, fmin(np.y, fmin(c.y, ep.y))), y1 = ptl_seggrid_iy(g, fmax(np.y, fmax(c.y, ep.y)));
    uint32_t best = PTL_NONE;
    ptl_v2 best_dq = v2(0, 0);
    double best_d2 = DBL_MAX;
    for (int64_t y = y0; y <= y1; ++y) {
        for (int64_t x = x0; x <= x1; ++x) {
            for (uint32_t i = g->head[y * g->nx + x]; i != PTL_NONE; i = g->nodes[i].next) {
                uint32_t seg = g->nodes[i].seg;
                if (d->stamp[seg] == stamp) continue;
                d->stamp[seg] = stamp;
                if (!d->s.data[seg].alive) continue;
                uint32_t ends[2] = {d->s.data[seg].a, d->s.data[seg].b};
                for (int j = 0; j < 2; ++j) {
                    ptl_v2 q = P(d, ends[j]);
                    if (v2_eq(q, np) || v2_eq(q, ep)) continue;
                    if (sign * v2_orient(np, c, q) < 0 || sign * v2_orient(c, ep, q) < 0 ||
                        sign * v2_orient(ep, np, q) < 0)
                        continue;
                    ptl_v2 dq = v2_sub(q, np);
                    double k = v2_angle_key(u, dq);
                    if (!(k > 0 && k < gap_end)) continue;
                    /* Every candidate lies on e's side of the ray n -> c, less than pi from it:
                       a smaller angle is a turn towards the ray, an exact sign (no atan2, whose
                       rounding differs between collinear vertices and then picks a far one that a
                       nearer one on the same line hides). */
                    double d2 = v2_len2(dq), o = best == PTL_NONE ? -1 : sign * v2_cross(best_dq, dq);
                    if (o < 0 || (o == 0 && d2 < best_d2)) {
                        best = ends[j];
                        best_dq = dq;
                        best_d2 = d2;
                    }
                }
            }
        }
    }
    return best;
}

/* ---- resolving one notch -----------------------------------------------------------------------*/

static bool in_cone(ptl_v2 n, ptl_v2 r1, ptl_v2 r2, ptl_v2 q) {
    ptl_v2 dq = v2_sub(q, n);
    return v2_cross(r1, dq) >= 0 && v2_cross(r2, dq) <= 0;
}

/* The closest element is the interior of an earlier portal (§4, §4.2). Adds one portal. */
static ptl_status resolve_by_portal(ptl_dc* d, uint32_t n, ptl_v2 u, ptl_v2 w, ptl_v2 r1, ptl_v2 r2,
                                    const hit* h) {
    ptl_v2 np = P(d, n);
    uint32_t ends[2] = {d->s.data[h->seg].a, d->s.data[h->seg].b};
    if (v2_dist2(P(d, ends[1]), np) < v2_dist2(P(d, ends[0]), np)) {
        uint32_t t = ends[0];
        ends[0] = ends[1];
        ends[1] = t;
    }
    /* An endpoint inside the Area of Interest, visible: one portal resolves the notch. */
    for (int i = 0; i < 2; ++i) {
        ptl_v2 e = P(d, ends[i]);
        if (!in_cone(np, r1, r2, e) || !visible(d, np, e)) continue;
        uint32_t v = facing_copy(d, ends[i], np);
        if (v == PTL_NONE) continue;
        return add_portal(d, n, v) ? PTL_OK : PTL_ERR_NO_MEMORY;
    }
    /* Otherwise towards an endpoint that lies in the gap, or the vertex hiding it. The caller loops
       until the gap is closed, so a second portal towards the other end follows when needed. */
    double gap_end = v2_angle_key(u, w);
    for (int i = 0; i < 2; ++i) {
        ptl_v2 e = P(d, ends[i]);
        double k = v2_angle_key(u, v2_sub(e, np));
        if (!(k > 0 && k < gap_end)) continue;
        uint32_t v = hiding_vertex(d, n, h->p, ends[i], u, w);
        if (v == PTL_NONE) v = ends[i];
        if (!visible(d, np, P(d, v))) continue;
        v = facing_copy(d, v, np);
        if (v == PTL_NONE) continue;
        return add_portal(d, n, v) ? PTL_OK : PTL_ERR_NO_MEMORY;
    }
    return PTL_ERR_INTERNAL;
}

static ptl_status resolve_notch(ptl_dc* d, uint32_t n, ptl_error* err) {
    for (int step = 0; step < MAX_STEPS_PER_NOTCH; ++step) {
        ptl_v2 u, w;
        bool oom;
        if (!reflex_gap(d, n, &u, &w, &oom)) return oom ? PTL_ERR_NO_MEMORY : PTL_OK;
        /* The Area of Interest of the gap: between the prolongations of its two sides. */
        ptl_v2 r1 = v2_neg(w), r2 = v2_neg(u);
        hit mutual = {PTL_NONE, {0, 0}, DBL_MAX, 0, 0}, h;
        if (step > 0 || !d->pending || !ptl_dc_pending_take(d, n, u, w, &h)) {
            if (d->pending) d->backend_fallbacks++;
            h = closest_element(d, n, r1, r2, d->notch_slack, &mutual, NULL);
        }
        ptl_v2 np = P(d, n);
        /* A notch-to-notch portal a little longer than the closest element closes two notches
           with one portal: fewer cells (the vertex-vertex case of thesis §4, widened). */
        if (mutual.seg != PTL_NONE && mutual.d2 > h.d2 && mutual.d2 <= h.d2 * d->notch_slack * d->notch_slack &&
            visible(d, np, mutual.p))
            h = mutual;
        if (h.seg == PTL_NONE) {
            return ptl_error_set(err, PTL_ERR_INTERNAL, "decompose: notch %u at (%.9g, %.9g) sees nothing in its area of interest",
                                 n, np.x, np.y);
        }
        const ptl_dseg* s = &d->s.data[h.seg];
        ptl_status st;
        if (h.end != 0) {
            uint32_t v = facing_copy(d, h.end == 1 ? s->a : s->b, np), q;
            hit raw;
            if (v == PTL_NONE && h.snapped && clipped_closest(d, h.seg, np, r1, r2, &raw)) {
                /* The end the point was taken as does not face the notch: split at the point. */
                st = split_wall_for_notch(d, n, h.seg, raw.p, &q) && add_portal(d, n, q) ? PTL_OK : PTL_ERR_NO_MEMORY;
            } else if (v == PTL_NONE) {
                return ptl_error_set(err, PTL_ERR_INTERNAL,
                                     "decompose: notch %u at (%.9g, %.9g): closest vertex does not face it", n, np.x, np.y);
            } else {
                st = add_portal(d, n, v) ? PTL_OK : PTL_ERR_NO_MEMORY;
            }
        } else if (s->kind == PTL_DSEG_WALL) {
            uint32_t q;
            st = split_wall_for_notch(d, n, h.seg, h.p, &q) && add_portal(d, n, q) ? PTL_OK : PTL_ERR_NO_MEMORY;
        } else {
            st = resolve_by_portal(d, n, u, w, r1, r2, &h);
        }
        if (st == PTL_ERR_NO_MEMORY) return ptl_error_set(err, st, "decompose: out of memory");
        if (st < 0) {
            return ptl_error_set(err, st, "decompose: notch %u at (%.9g, %.9g): no visible vertex to close it",
                                 n, np.x, np.y);
        }
    }
    ptl_v2 np = P(d, n);
    return ptl_error_set(err, PTL_ERR_INTERNAL, "decompose: notch %u at (%.9g, %.9g) still reflex after %d portals", n,
                         np.x, np.y, MAX_STEPS_PER_NOTCH);
}

/* ---- setup -------------------------------------------------------------------------------------*/

/* Links vertices sharing a position into circular twin lists (pinch copies), with an open-address
   hash on the coordinates' bits: linear time; the table order never reaches the output (each list
   is built in increasing vertex id). */
static uint64_t pos_hash(ptl_v2 p) {
    uint64_t x, y;
    double px = p.x == 0 ? 0 : p.x, py = p.y == 0 ? 0 : p.y; /* -0 and +0 are one position */
    memcpy(&x, &px, 8);
    memcpy(&y, &py, 8);
    /* Coordinates of small integers have all-zero low bits: mix fully (splitmix64's finalizer). */
    uint64_t h = x ^ (y * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull + (x << 6) + (x >> 2));
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

static bool link_twins(ptl_dc* d) {
    uint32_t n = d->v.count;
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)n) cap *= 2;
    uint32_t* slot = ptl_mem_alloc(&d->alloc, (size_t)cap * sizeof(uint32_t));
    if (!slot) return false;
    memset(slot, 0xff, (size_t)cap * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; ++i) {
        ptl_v2 p = P(d, i);
        uint32_t k = (uint32_t)pos_hash(p) & (cap - 1);
        while (slot[k] != PTL_NONE && !v2_eq(P(d, slot[k]), p)) k = (k + 1) & (cap - 1);
        if (slot[k] == PTL_NONE) {
            slot[k] = i; /* first vertex at p: a list of one */
            continue;
        }
        /* Insert i after the last vertex of p's circular list (the head's predecessor). */
        uint32_t head = slot[k], last = head;
        while (d->v.data[last].twin != head) last = d->v.data[last].twin;
        d->v.data[last].twin = i;
        d->v.data[i].twin = head;
    }
    ptl_mem_free(&d->alloc, slot, (size_t)cap * sizeof(uint32_t));
    return true;
}

/* The precision the decomposition works to: the reader's (ptl_shape.precision), but never coarser
   than the float resolution at the shape's own largest coordinate. A reader sizes its precision by
   every coordinate of the file, and a far point no ring uses (an unused vertex of a .mesh) would
   otherwise let cells turn by more than the navmesh's validation allows, which is sized by the
   vertices the blob holds (fuzz finding mesh cfd18e: q = 2^-7 from a stray 70071 on a 7-unit mesh). */
double ptl_dc_precision(const ptl_shape* s, double extent) {
    if (!(s->precision > 0)) return 0;
    int e = 0;
    frexp(extent, &e); /* extent < 2^e */
    return fmin(s->precision, fmax(ldexp(1.0, e - 24), PTL_SHAPE_MIN_PRECISION));
}

static ptl_status setup(ptl_dc* d, const ptl_shape* s, ptl_error* err) {
    uint32_t n = s->vert_count;
    if (!PTL_RESERVE(&d->alloc, d->v, (uint64_t)n + n / 4 + 16) || !PTL_RESERVE(&d->alloc, d->s, (uint64_t)n * 2 + 16))
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "decompose: out of memory");
    double x0 = DBL_MAX, y0 = DBL_MAX, x1 = -DBL_MAX, y1 = -DBL_MAX;
    for (uint32_t r = 0; r < s->ring_count; ++r) {
        uint32_t b = s->ring_start[r], e = s->ring_start[r + 1], m = e - b;
        double area2 = 0;
        for (uint32_t i = b; i < e; ++i) {
            ptl_dvert v;
            memset(&v, 0, sizeof v);
            v.p = v2(s->xy[2 * i], s->xy[2 * i + 1]);
            v.next = b + (i - b + 1) % m;
            v.prev = b + (i - b + m - 1) % m;
            v.portals = PTL_NONE;
            v.twin = i;
            d->v.data[d->v.count++] = v;
            x0 = fmin(x0, v.p.x), y0 = fmin(y0, v.p.y), x1 = fmax(x1, v.p.x), y1 = fmax(y1, v.p.y);
            ptl_v2 q = v2(s->xy[2 * v.next], s->xy[2 * v.next + 1]);
            area2 += v2_cross(v.p, q);
        }
        if (area2 > 0) d->outer_rings++;
        else d->holes++;
    }
    d->extent = fmax(fmax(fabs(x0), fabs(y0)), fmax(fabs(x1), fabs(y1)));
    d->tol = 2 * ptl_dc_precision(s, d->extent);
    for (uint32_t i = 0; i < n; ++i) {
        ptl_dvert* v = &d->v.data[i];
        /* A turn within the input's tolerance of straight is straight (the readers keep such a
           vertex only where another ring touches it): its Area of Interest would be a sliver
           along the wall, whose closest element is a point within rounding of the next vertex. */
        const ptl_v2 pv = P(d, v->prev), nv = P(d, v->next);
        const double o = v2_orient(pv, v->p, nv);
        v->notch = o < 0 && !(-o <= d->tol * sqrt(v2_dist2(pv, nv)));
        v->real = v->notch;
        d->notches += v->notch;
    }
    if (!link_twins(d) || !ptl_seggrid_init(&d->grid, &d->alloc, x0, y0, x1, y1, n))
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "decompose: out of memory");
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t seg;
        if (!add_seg(d, i, d->v.data[i].next, PTL_DSEG_WALL, &seg))
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "decompose: out of memory");
        d->v.data[i].out_seg = seg;
    }
    return PTL_OK;
}

void ptl_dc_free(ptl_dc* d) {
    ptl_dc_pending_end(d);
    ptl_seggrid_free(&d->grid);
    PTL_ARRAY_FREE(&d->alloc, d->v);
    PTL_ARRAY_FREE(&d->alloc, d->s);
    PTL_ARRAY_FREE(&d->alloc, d->refs);
    PTL_ARRAY_FREE(&d->alloc, d->scratch_dirs);
    ptl_mem_free(&d->alloc, d->stamp, (size_t)d->stamp_cap * sizeof(uint32_t));
    d->stamp = NULL;
}

/* The lids of the shape's clean pockets (runtime/pockets.c) as the first portals: the notches
   inside a pocket then resolve against its lid and walls, and the cells outside follow the lids
   instead of spreading the pocket's notch fans across open space (a corridor between two irregular
   grid staircases becomes a few wide cells instead of a sliver per step), which is what searches
   cross. Lids end at ring vertices and are never split (ANavMG resolves a notch against a portal
   by its endpoints), so every vertex stays on the boundary. */
static ptl_status add_lids(ptl_dc* d, const ptl_shape* s) {
    const uint32_t n = s->vert_count;
    const size_t vb = ((size_t)n + 1) * sizeof(uint32_t);
    uint32_t* next = ptl_mem_alloc(&d->alloc, vb);
    uint32_t* lid = ptl_mem_alloc(&d->alloc, 2 * vb);
    ptl_status st = next && lid ? PTL_OK : PTL_ERR_NO_MEMORY;
    if (st >= 0) {
        for (uint32_t i = 0; i < n; ++i) next[i] = d->v.data[i].next;
        st = ptl_pockets_find(n, s->xy, next, &d->alloc, lid);
    }
    /* A lid that passes within twice the input's rounding (ptl_dc_precision) of a vertex under
       it only seems to close a pocket: the wall there was straight in intent, and the sliver
       between lid and wall would be a cell of no area. Such a lid is not drawn (the vertices under
       it are in no pocket); the vertices under a lid follow each other along their ring. */
    const double tol = d->tol;
    for (uint32_t i = 0; st >= 0 && tol > 0 && i < n; ++i) {
        uint32_t a = lid[2 * i], b = lid[2 * i + 1], prev = d->v.data[i].prev;
        if (a == PTL_NONE || (prev != a && lid[2 * prev] == a && lid[2 * prev + 1] == b)) continue;
        ptl_v2 pa = P(d, a), pb = P(d, b);
        double len = sqrt(v2_dist2(pa, pb));
        bool touches = false;
        uint32_t v = i;
        for (; v != b && lid[2 * v] == a && lid[2 * v + 1] == b; v = d->v.data[v].next)
            touches = touches || fabs(v2_cross(v2_sub(pb, pa), v2_sub(P(d, v), pa))) <= tol * len;
        if (!touches) continue;
        for (v = i; v != b && lid[2 * v] == a && lid[2 * v + 1] == b; v = d->v.data[v].next)
            lid[2 * v] = lid[2 * v + 1] = PTL_NONE;
    }
    /* One portal per lid: the vertices under a lid follow each other along their ring. The pocket
       lies right of a -> b (walls have free space on their left, and the outline under the lid
       bends away from it); the portal keeps that side (pad[0]) and is never dropped. A lid must
       leave both its ends into their free sectors: where a thin spike folds the outline back past
       the vertex the pocket scan starts from, a chord of the outline's hull can run outside free
       space, and a portal there would bound no cell. */
    for (uint32_t i = 0; st >= 0 && i < n; ++i) {
        uint32_t a = lid[2 * i], b = lid[2 * i + 1];
        if (a == PTL_NONE) continue;
        uint32_t prev = d->v.data[i].prev, seg;
        if (prev == a || lid[2 * prev] != a || lid[2 * prev + 1] != b) { /* the first vertex under it */
            const ptl_v2 ab = v2_sub(P(d, b), P(d, a));
            if (!in_sector(d, a, ab) || !in_sector(d, b, v2_neg(ab))) continue;
            if (!add_seg(d, a, b, PTL_DSEG_PORTAL, &seg) || !link_portal(d, a, seg) || !link_portal(d, b, seg))
                st = PTL_ERR_NO_MEMORY;
            else
                d->s.data[seg].pad[0] = 1;
        }
    }
    ptl_mem_free(&d->alloc, next, vb);
    ptl_mem_free(&d->alloc, lid, 2 * vb);
    return st;
}

/* A vertex exactly inside a wall of another part of the boundary (a corner touching a straight
   side from its blocked side: ptl_shape_validate allows it) splits that wall there, so that the
   touch is a pinch like any other (two vertices at one position, twins): the wall's side then
   has a vertex of its own at the point, which faces the free space on its side, and the notch at
   the corner no longer sees past the wall through the point. */
static bool split_touched_walls(ptl_dc* d, uint32_t n) {
    const ptl_seggrid* g = &d->grid;
    for (uint32_t v = 0; v < n; ++v) {
        const ptl_v2 p = P(d, v);
        uint32_t touched = PTL_NONE;
        const int64_t cx = ptl_seggrid_ix(g, p.x), cy = ptl_seggrid_iy(g, p.y);
        for (int64_t y = cy - 1; y <= cy + 1 && touched == PTL_NONE; ++y)
            for (int64_t x = cx - 1; x <= cx + 1 && touched == PTL_NONE; ++x) {
                if (x < 0 || y < 0 || x >= g->nx || y >= g->ny) continue;
                for (uint32_t i = g->head[y * g->nx + x]; i != PTL_NONE; i = g->nodes[i].next) {
                    const ptl_dseg* sg = &d->s.data[g->nodes[i].seg];
                    if (!sg->alive || sg->kind != PTL_DSEG_WALL) continue;
                    const ptl_v2 a = P(d, sg->a), b = P(d, sg->b);
                    if (v2_eq(a, p) || v2_eq(b, p) || v2_orient(a, b, p) != 0) continue;
                    if (v2_dot(v2_sub(p, a), v2_sub(b, a)) > 0 && v2_dot(v2_sub(p, b), v2_sub(a, b)) > 0) {
                        touched = g->nodes[i].seg;
                        break;
                    }
                }
            }
        if (touched == PTL_NONE) continue;
        uint32_t id;
        if (!split_wall(d, touched, p, &id)) return false;
        d->v.data[id].twin = d->v.data[v].twin;
        d->v.data[v].twin = id;
    }
    return true;
}

ptl_status ptl_dc_run(ptl_dc* d, const ptl_shape* s, double relax, ptl_error* err) {
    ptl_status st = setup(d, s, err);
    if (st < 0) return st;
    if (d->lids && !(relax > 0) && (st = add_lids(d, s)) < 0) return ptl_error_set(err, st, "decompose: out of memory");
    if (relax > 0) {
        st = ptl_relax_notches(d, s, relax);
        if (st < 0) return ptl_error_set(err, st, "decompose: out of memory");
    }
    uint32_t n = s->vert_count; /* vertices added by splits are never notches */
    /* A grid's rings never touch a wall inside it: the tracer keeps every point where two rings
       meet as a vertex of both. */
    if (!(s->flags & PTL_NAVMESH_LATTICE_POINTS) && !split_touched_walls(d, n)) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "decompose: out of memory");
    if (d->notch_slack > 1 && (st = ptl_dc_pair_notches(d, n, err)) >= 0 && d->oom)
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "decompose: out of memory");
    if (st < 0) return st;
    /* Without notch pairs, a backend answers the pass's first searches in one batch (closest_batch.c). */
    if (d->backend && !(d->notch_slack > 1) && (st = ptl_dc_pending_begin(d, n, err)) < 0) return st;
    for (uint32_t i = 0; i < n; ++i) {
        if (!d->v.data[i].real) continue;
        st = resolve_notch(d, i, err);
        if (st < 0) break;
    }
    ptl_dc_pending_end(d);
    if (st < 0) return st;
    { /* dispensable portals (at the relaxation's tolerance, 0 for strictly convex cells) */
        ptl_dc_faces fc;
        st = ptl_dc_faces_build(d, &fc, err);
        if (st >= 0) st = ptl_relax_drop_dispensable(d, &fc, relax);
        ptl_dc_faces_free(d, &fc);
        if (st < 0) return ptl_error_set(err, st, "decompose: %s", ptl_status_message(st));
    }
    if (relax > 0) {
        /* A notch relaxation ignored may still end up deeper than the tolerance in its cell (its
           neighbours there are not its ring neighbours): close those strictly. */
        uint32_t nv = d->v.count;
        for (uint32_t i = 0; i < nv; ++i) {
            if (!ptl_relax_too_deep(d, i, relax)) continue;
            st = resolve_notch(d, i, err);
            if (st < 0) return st;
        }
    }
    return d->oom ? ptl_error_set(err, PTL_ERR_NO_MEMORY, "decompose: out of memory") : PTL_OK;
}

ptl_status ptl_decompose(const ptl_shape* s, const ptl_decompose_desc* desc, ptl_decomposition* out, ptl_error* err) {
    if (!s || !out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_decompose: NULL argument");
    memset(out, 0, sizeof *out);
    double relax = desc ? desc->relax : 0;
    if (!(relax >= 0) || !isfinite(relax))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_decompose: relax must be a finite number >= 0");
    if (desc && (!isfinite(desc->pair_slack) || desc->pair_slack < 0 || desc->pair_slack > 16))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_decompose: pair_slack must be 0 (default) or 1..16");
    if (s->ring_count == 0 || s->vert_count < 3)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "decompose: the shape has no free space");
    ptl_dc d;
    memset(&d, 0, sizeof d);
    d.alloc = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    /* Pairing notches is for strictly convex cells: with relaxation it adds cells (random512-25-0 at
       relax 1: 3,634 cells with the paper's rule, 3,945 at a slack of 16) and can leave a cell
       turned inside out where a relaxed notch gets paired, so relaxed decompositions keep the
       paper's rule. */
    const double slack = desc && desc->pair_slack > 0 ? desc->pair_slack : PTL_PAIR_SLACK_DEFAULT;
    d.notch_slack = slack > 1 && !(relax > 0) ? slack : 1.0;
    d.lids = desc && desc->lids;
    d.backend = desc ? desc->backend : NULL;
    ptl_status st = ptl_dc_run(&d, s, relax, err);
    if (st >= 0) st = ptl_dc_extract(&d, out, err);
    if (st >= 0) out->relax = relax;
    ptl_dc_free(&d);
    if (st >= 0) ptl_error_ok(err);
    return st;
}

void ptl_decomposition_free(ptl_decomposition* dc) {
    if (!dc) return;
    const ptl_allocator* a = &dc->alloc;
    uint32_t total = dc->cell_start ? dc->cell_start[dc->cell_count] : 0;
    ptl_mem_free(a, dc->xy, (size_t)dc->vert_count * 2 * sizeof(double));
    ptl_mem_free(a, dc->cell_start, ((size_t)dc->cell_count + 1) * sizeof(uint32_t));
    ptl_mem_free(a, dc->cell_verts, (size_t)total * sizeof(uint32_t));
    ptl_mem_free(a, dc->cell_nbrs, (size_t)total * sizeof(uint32_t));
    ptl_mem_free(a, dc->portals, (size_t)dc->portal_count * sizeof(ptl_decomp_portal));
    memset(dc, 0, sizeof *dc);
}

/* ---- the pieces pair_notches.c uses ------------------------------------------------------------*/

double ptl_dc_pair_reach(double d2, double slack, double bucket) { return pair_reach(d2, slack, bucket); }
ptl_dc_hit ptl_dc_closest_element(ptl_dc* d, uint32_t n, ptl_v2 r1, ptl_v2 r2, double slack, ptl_dc_hit* mutual,
                                  ptl_dc_npair_array* cand) {
    return closest_element(d, n, r1, r2, slack, mutual, cand);
}
bool ptl_dc_closest_in_cone(const ptl_dc* d, uint32_t seg, ptl_v2 n, ptl_v2 r1, ptl_v2 r2, ptl_dc_hit* out) {
    return closest_in_cone(d, seg, n, r1, r2, out);
}
bool ptl_dc_better(const ptl_dc* d, const ptl_dc_hit* h, const ptl_dc_hit* best) { return better(d, h, best); }
bool ptl_dc_reflex_gap(ptl_dc* d, uint32_t v, ptl_v2* u, ptl_v2* w, bool* oom) { return reflex_gap(d, v, u, w, oom); }
bool ptl_dc_in_sector(const ptl_dc* d, uint32_t v, ptl_v2 dir) { return in_sector(d, v, dir); }
bool ptl_dc_mutual_notch(ptl_dc* d, uint32_t v, ptl_v2 p) { return mutual_notch(d, v, p); }
bool ptl_dc_visible(ptl_dc* d, ptl_v2 p, ptl_v2 q) { return visible(d, p, q); }
bool ptl_dc_add_portal(ptl_dc* d, uint32_t n, uint32_t v) { return add_portal(d, n, v); }
