/* Paths of a disc (radius > 0, runtime/disc_path.c) against references built here from the exact
   geometry of the free space (its rings' edges), not from the navmesh:
   - a brute-force clearance check of every returned point and segment against every edge;
   - the exact optimum on small rooms: Dijkstra over the tangent graph of the circles around the
     free space's reflex corners, with clearance checked against every edge (segments exactly, arcs
     sampled finely);
   - a feasible path on grids: Dijkstra over a lattice of points that keep r plus a margin, linked
     to their 16 neighbours by segments that keep it too (an upper bound of the optimum);
   and the properties: found whenever a reference finds a path, never longer than the lattice's,
   equal to the exact optimum, no shorter than the radius-0 path, length never decreasing with r. */
#include <criterion/criterion.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <math.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_reference.h"
#include "test_util.h"
#include "../runtime/query_internal.h"

static double seg_point(double px, double py, double ax, double ay, double bx, double by) {
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(px - ax - t * dx, py - ay - t * dy);
}

static double seg_seg(double ax, double ay, double bx, double by, double cx, double cy, double dx, double dy) {
    double o1 = orient(ax, ay, bx, by, cx, cy), o2 = orient(ax, ay, bx, by, dx, dy);
    double o3 = orient(cx, cy, dx, dy, ax, ay), o4 = orient(cx, cy, dx, dy, bx, by);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) return 0;
    return fmin(fmin(seg_point(ax, ay, cx, cy, dx, dy), seg_point(bx, by, cx, cy, dx, dy)),
                fmin(seg_point(cx, cy, ax, ay, bx, by), seg_point(dx, dy, ax, ay, bx, by)));
}

/* Least distance from segment a-b to the free space's walls. */
static double seg_clearance(const ptl_shape* s, double ax, double ay, double bx, double by) {
    double best = INFINITY;
    for (uint32_t v = 0; v < s->vert_count; ++v) {
        uint32_t w = ring_next(s, v);
        best = fmin(best, seg_seg(ax, ay, bx, by, s->xy[2 * v], s->xy[2 * v + 1], s->xy[2 * w], s->xy[2 * w + 1]));
    }
    return best;
}

/* Every point in the free space, every segment keeping r (less 1e-6) from the walls and in the free
   space (its midpoint inside: a segment that keeps r > 0 crosses no wall). */
static void check_clear_path(const ptl_shape* s, const ptl_path_result* res, double r, const char* what) {
    for (uint32_t k = 0; k < res->point_count; ++k) {
        const float* p = res->points + 3 * k;
        cr_assert(in_free_space(s, p[0], p[2]), "%s: point %u (%g, %g) outside", what, k, p[0], p[2]);
        const float* b = k + 1 < res->point_count ? p + 3 : p;
        /* 1e-6, or two float steps of the coordinates where those are larger: a path squeezed
           between walls exactly 2 r apart keeps r only on points that floats cannot all hold */
        double mag = fmax(fmax(fabs(p[0]), fabs(p[2])), fmax(fabs(b[0]), fabs(b[2])));
        double c = seg_clearance(s, p[0], p[2], b[0], b[2]);
        cr_assert(c >= r - fmax(1e-6, 2.4e-7 * mag), "%s: segment %u (%.9g, %.9g)-(%.9g, %.9g) keeps %.9g < r %g", what, k, p[0], p[2], b[0], b[2], c, r);
        cr_assert(in_free_space(s, 0.5 * (p[0] + b[0]), 0.5 * (p[2] + b[2])), "%s: segment %u leaves", what, k);
    }
}

static ptl_status disc_find(ptl_query* q, double sx, double sy, double gx, double gy, double r, ptl_path_mode mode,
                            path_out* out, ptl_path_turn* turns, uint32_t turn_cap) {
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    req.start[0] = (float)sx, req.start[2] = (float)sy;
    req.goal[0] = (float)gx, req.goal[2] = (float)gy;
    req.radius = (float)r;
    req.mode = mode;
    memset(&out->res, 0, sizeof out->res);
    out->res.points = out->pts;
    out->res.point_capacity = 256;
    out->res.turns = turns;
    out->res.turn_capacity = turn_cap;
    return out->status = ptl_query_find_path(q, &req, &out->res);
}

/* ---- The exact reference: the tangent graph of the reflex corners' circles --------------------- */

#define MAX_CORNERS 128
#define ARC_SAMPLES 720

typedef struct tgraph {
    const ptl_shape* s;
    double r;
    double cx[MAX_CORNERS], cy[MAX_CORNERS];
    int n; /* corners; circle i is corner i / 2 with side +1 (even) or -1 (odd) */
} tgraph;

static bool reflex(const ptl_shape* s, uint32_t v) {
    uint32_t p = ring_prev(s, v), n = ring_next(s, v);
    return orient(s->xy[2 * p], s->xy[2 * p + 1], s->xy[2 * v], s->xy[2 * v + 1], s->xy[2 * n], s->xy[2 * n + 1]) < 0;
}

/* Tangent from circle/point 1 to circle/point 2 (side 0: a point); written from the definition:
   for a direction u, a circle passed with the centre on the left (side +1) touches at c + r (uy, -ux). */
static bool ref_tangent(double x1, double y1, int o1, double x2, double y2, int o2, double r, double t[4]) {
    double dx = x2 - x1, dy = y2 - y1, d = hypot(dx, dy), k = r * (o1 - o2) / d;
    if (!(d > 0) || fabs(k) > 1) return false;
    double phi = atan2(dy, dx) + asin(k), ux = cos(phi), uy = sin(phi);
    t[0] = x1 + o1 * r * uy, t[1] = y1 - o1 * r * ux, t[2] = x2 + o2 * r * uy, t[3] = y2 - o2 * r * ux;
    return (t[2] - t[0]) * ux + (t[3] - t[1]) * uy >= 0;
}

static double ref_sweep(double cx, double cy, double ax, double ay, double bx, double by, int o) {
    double d = o > 0 ? atan2(by - cy, bx - cx) - atan2(ay - cy, ax - cx) : atan2(ay - cy, ax - cx) - atan2(by - cy, bx - cx);
    while (d < 0) d += 2 * M_PI;
    while (d >= 2 * M_PI) d -= 2 * M_PI;
    if (d > 2 * M_PI - 1e-9) d = 0;
    return d;
}

/* The arc keeps r (less 1e-7) from every edge, sampled every half degree or finer. */
static bool ref_arc_clear(const tgraph* g, int c, double ax, double ay, double span) {
    int o = c % 2 == 0 ? 1 : -1;
    double cx = g->cx[c / 2], cy = g->cy[c / 2], a0 = atan2(ay - cy, ax - cx);
    int n = (int)ceil(span / (2 * M_PI) * ARC_SAMPLES) + 1;
    for (int k = 0; k <= n; ++k) {
        double a = a0 + o * span * k / n, x = cx + g->r * cos(a), y = cy + g->r * sin(a);
        for (uint32_t v = 0; v < g->s->vert_count; ++v) {
            uint32_t w = ring_next(g->s, v);
            if (seg_point(x, y, g->s->xy[2 * v], g->s->xy[2 * v + 1], g->s->xy[2 * w], g->s->xy[2 * w + 1]) < g->r - 1e-7) return false;
        }
    }
    return true;
}

static bool ref_seg_ok(const tgraph* g, const double t[4]) {
    return seg_clearance(g->s, t[0], t[1], t[2], t[3]) >= g->r - 1e-7 && in_free_space(g->s, 0.5 * (t[0] + t[2]), 0.5 * (t[1] + t[3]));
}

/* Shortest length from (sx, sy) to (gx, gy) (both keeping r) for a disc of radius r: Dijkstra whose
   nodes are the tangent segments (arriving on a circle, or at the goal). */
static double reference_disc_length(const ptl_shape* s, double r, double sx, double sy, double gx, double gy) {
    tgraph g = {.s = s, .r = r};
    for (uint32_t v = 0; v < s->vert_count && g.n < MAX_CORNERS; ++v)
        if (reflex(s, v)) g.cx[g.n] = s->xy[2 * v], g.cy[g.n] = s->xy[2 * v + 1], ++g.n;
    int circles = 2 * g.n;
    /* edges: from the start (index circles) or a circle to a circle or the goal (index circles) */
    int max_e = (circles + 1) * (circles + 1);
    double* et = malloc((size_t)max_e * 4 * sizeof(double));
    int* efrom = malloc((size_t)max_e * sizeof(int));
    int* eto = malloc((size_t)max_e * sizeof(int));
    int ne = 0;
    for (int a = 0; a <= circles; ++a) {
        double x1 = a == circles ? sx : g.cx[a / 2], y1 = a == circles ? sy : g.cy[a / 2];
        int o1 = a == circles ? 0 : (a % 2 == 0 ? 1 : -1);
        for (int b = 0; b <= circles; ++b) {
            if (b != circles && a != circles && b / 2 == a / 2) continue;
            double x2 = b == circles ? gx : g.cx[b / 2], y2 = b == circles ? gy : g.cy[b / 2];
            int o2 = b == circles ? 0 : (b % 2 == 0 ? 1 : -1);
            double t[4];
            if (a == circles && b == circles) t[0] = sx, t[1] = sy, t[2] = gx, t[3] = gy;
            else if (!ref_tangent(x1, y1, o1, x2, y2, o2, r, t)) continue;
            if (!ref_seg_ok(&g, t)) continue;
            memcpy(et + 4 * ne, t, sizeof t);
            efrom[ne] = a, eto[ne] = b, ++ne;
        }
    }
    double* dist = malloc((size_t)ne * sizeof(double));
    bool* done = calloc((size_t)ne, 1);
    for (int e = 0; e < ne; ++e) dist[e] = efrom[e] == circles ? hypot(et[4 * e + 2] - et[4 * e], et[4 * e + 3] - et[4 * e + 1]) : INFINITY;
    double best = INFINITY;
    for (;;) {
        int u = -1;
        for (int e = 0; e < ne; ++e)
            if (!done[e] && dist[e] < INFINITY && (u < 0 || dist[e] < dist[u])) u = e;
        if (u < 0) break;
        done[u] = true;
        if (eto[u] == circles) {
            best = dist[u];
            break;
        }
        int c = eto[u], o = c % 2 == 0 ? 1 : -1;
        for (int e = 0; e < ne; ++e) {
            if (efrom[e] != c || done[e]) continue;
            double span = ref_sweep(g.cx[c / 2], g.cy[c / 2], et[4 * u + 2], et[4 * u + 3], et[4 * e], et[4 * e + 1], o);
            double d = dist[u] + r * span + hypot(et[4 * e + 2] - et[4 * e], et[4 * e + 3] - et[4 * e + 1]);
            if (d >= dist[e]) continue;
            if (!ref_arc_clear(&g, c, et[4 * u + 2], et[4 * u + 3], span)) continue;
            dist[e] = d;
        }
    }
    free(et), free(efrom), free(eto), free(dist), free(done);
    return best;
}

/* ---- The lattice reference (grids) ------------------------------------------------------------- */

/* The length of a shortest lattice path (spacing h, links to the 16 neighbours) between the lattice
   points nearest s and g, plus the straight pieces from s and to g; INFINITY when none. A link
   keeps r + margin when the smaller clearance of its ends, less half its length, does (every point
   of it is within half its length of an end), so the path found is feasible: an upper bound. */
/* Clearance of every lattice point (-1 outside the free space), for lattice_disc_length. */
static double* lattice_clearance(const ptl_shape* s, int w, int hgt, double h) {
    int nx = (int)(w / h) + 1, ny = (int)(hgt / h) + 1, n = nx * ny;
    double* clear = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i) {
        double x = (i % nx) * h, y = (i / nx) * h;
        clear[i] = in_free_space(s, x, y) ? seg_clearance(s, x, y, x, y) : -1;
    }
    return clear;
}

static double lattice_disc_length(const ptl_shape* s, const double* clear, int w, int hgt, double r, double h, double sx,
                                  double sy, double gx, double gy) {
    int nx = (int)(w / h) + 1, ny = (int)(hgt / h) + 1, n = nx * ny;
    double keep = r + 1e-3;
    int ends[2] = {-1, -1};
    double ed[2] = {INFINITY, INFINITY};
    const double pts[2][2] = {{sx, sy}, {gx, gy}};
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < n; ++i) {
            if (clear[i] < keep) continue;
            double x = (i % nx) * h, y = (i / nx) * h, d = hypot(x - pts[k][0], y - pts[k][1]);
            /* the end itself may keep only r (a moved end): its link keeps r, feasible still */
            if (d < ed[k] && d < 3 * h && seg_clearance(s, pts[k][0], pts[k][1], x, y) >= r - 1e-9) ed[k] = d, ends[k] = i;
        }
    double result = INFINITY;
    if (ends[0] >= 0 && ends[1] >= 0) {
        double* dist = malloc((size_t)n * sizeof(double));
        for (int i = 0; i < n; ++i) dist[i] = INFINITY;
        dist[ends[0]] = ed[0];
        static const int D[16][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1},
                                     {2, 1}, {2, -1}, {-2, 1}, {-2, -1}, {1, 2}, {1, -2}, {-1, 2}, {-1, -2}};
        /* Bellman-Ford by sweeps, forward then backward, until nothing changes */
        for (int pass = 0;; ++pass) {
            bool changed = false;
            for (int idx = 0; idx < n; ++idx) {
                int i = pass % 2 == 0 ? idx : n - 1 - idx;
                if (dist[i] == INFINITY) continue;
                int x = i % nx, y = i / nx;
                for (int k = 0; k < 16; ++k) {
                    int x2 = x + D[k][0], y2 = y + D[k][1], j = y2 * nx + x2;
                    if (x2 < 0 || y2 < 0 || x2 >= nx || y2 >= ny) continue;
                    double len = h * hypot(D[k][0], D[k][1]);
                    if (fmin(clear[i], clear[j]) - len / 2 < keep) continue;
                    if (dist[i] + len < dist[j] - 1e-12) dist[j] = dist[i] + len, changed = true;
                }
            }
            if (!changed) break;
        }
        result = dist[ends[1]] + ed[1];
        free(dist);
    }
    return result;
}

/* A random point of the free space (quarter units) that keeps `keep`; false after many tries. */
static bool clear_point_of(const ptl_shape* s, uint64_t* st, int w, int h, double keep, double* x, double* y) {
    for (int tries = 0; tries < 4000; ++tries) {
        *x = rng_int(st, 0, 4 * w) / 4.0, *y = rng_int(st, 0, 4 * h) / 4.0;
        if (in_free_space(s, *x, *y) && seg_clearance(s, *x, *y, *x, *y) >= keep) return true;
    }
    return false;
}

/* ---- Tests -------------------------------------------------------------------------------------- */

Test(disc_path, pillar_room_known_lengths_turns_and_refusals) {
    test_shape t;
    room_with_pillar(&t);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    ptl_shape s = as_ptl_shape(&t, 0);
    path_out o;
    ptl_path_turn turns[8];
    /* (1, 5) to (9, 5) at r = 1: tangent to the circles around (4, 4) and (6, 4) (or their mirror
       images above); by symmetry both ways are equally long. */
    cr_assert_eq(disc_find(q, 1, 5, 9, 5, 1, PTL_PATH_EXACT, &o, turns, 8), PTL_OK);
    double ref = reference_disc_length(&s, 1, 1, 5, 9, 5);
    cr_expect(fabs(o.res.length - ref) < 1e-6, "length %.9f, reference %.9f", o.res.length, ref);
    /* by hand: from (1, 5) tangent to the circle at (4, 4): d = sqrt(10), tangent length 3, then the
       arc, the 2 m along the pillar, the arc and the tangent to (9, 5) */
    double d = sqrt(10), tl = sqrt(d * d - 1), ang = atan2(-1, 3) + M_PI / 2 - asin(1 / d);
    (void)ang;
    cr_expect(o.res.length > 2 * tl + 2, "%.9f", o.res.length);
    cr_assert_eq(o.res.turn_count, 2);
    cr_expect(turns[0].radius == 1 && fabs(hypot(turns[0].entry[0] - turns[0].corner[0], turns[0].entry[2] - turns[0].corner[2]) - 1) < 1e-5);
    cr_expect(turns[0].side == turns[1].side && turns[0].angle > 0);
    check_clear_path(&s, &o.res, 1, "pillar r 1");
    /* the points start and end at the request's ends, which keep r */
    cr_expect(o.res.points[0] == 1 && o.res.points[2] == 5);
    /* radius 2: the 4 m passages still pass (exactly), the start is moved off the wall */
    cr_assert_eq(disc_find(q, 1, 5, 9, 5, 2, PTL_PATH_EXACT, &o, NULL, 0), PTL_OK);
    check_clear_path(&s, &o.res, 2, "pillar r 2");
    cr_expect(o.res.points[0] >= 2 - 1e-6);
    /* radius 2.5: nothing keeps it within reach of the start */
    cr_expect_eq(disc_find(q, 1, 5, 9, 5, 2.5, PTL_PATH_EXACT, &o, NULL, 0), PTL_ERR_NOT_FOUND);
    cr_expect(!o.res.found && o.res.point_count == 0);
    /* the corridor mode gives the same path for now */
    cr_assert_eq(disc_find(q, 1, 5, 9, 5, 1, PTL_PATH_CORRIDOR, &o, NULL, 0), PTL_OK);
    cr_expect(fabs(o.res.length - ref) < 1e-6);
    /* bad radius */
    cr_expect_eq(disc_find(q, 1, 5, 9, 5, -1, PTL_PATH_EXACT, &o, NULL, 0), PTL_ERR_INVALID_ARG);
    cr_expect_eq(disc_find(q, 1, 5, 9, 5, NAN, PTL_PATH_EXACT, &o, NULL, 0), PTL_ERR_INVALID_ARG);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

Test(disc_path, exact_on_random_rooms_matches_the_tangent_graph, .timeout = 600) {
    const double radii[] = {0.25, 0.5, 1, 2};
    int compared = 0, unreachable = 0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        test_shape t;
        random_room(&t, 300 + seed);
        ptl_navmesh* nm = bake_test_shape(&t, 0);
        ptl_query* q = make_query(nm);
        ptl_shape s = as_ptl_shape(&t, 0);
        uint64_t st = seed * 7919;
        for (int i = 0; i < 8; ++i) {
            double r = radii[i % 4], sx, sy, gx, gy;
            /* ends that keep r (the reference does not move them) */
            do random_free_point(&s, &st, &sx, &sy);
            while (seg_clearance(&s, sx, sy, sx, sy) < r + 1e-3);
            do random_free_point(&s, &st, &gx, &gy);
            while (seg_clearance(&s, gx, gy, gx, gy) < r + 1e-3);
            path_out o;
            ptl_status status = disc_find(q, sx, sy, gx, gy, r, PTL_PATH_EXACT, &o, NULL, 0);
            double ref = reference_disc_length(&s, r, sx, sy, gx, gy);
            if (isinf(ref)) {
                cr_assert_eq(status, PTL_PARTIAL, "room %lu (%g, %g)->(%g, %g) r %g: the reference finds none, got %s",
                             (unsigned long)seed, sx, sy, gx, gy, r, ptl_status_name(status));
                ++unreachable;
                continue;
            }
            cr_assert_eq(status, PTL_OK, "room %lu (%g, %g)->(%g, %g) r %g: %s", (unsigned long)seed, sx, sy, gx, gy, r,
                         ptl_status_name(status));
            cr_assert(fabs(o.res.length - ref) < 1e-6, "room %lu (%g, %g)->(%g, %g) r %g: length %.9f, optimum %.9f",
                      (unsigned long)seed, sx, sy, gx, gy, r, o.res.length, ref);
            check_clear_path(&s, &o.res, r, "random room");
            /* no shorter than the radius-0 path */
            path_out z;
            find(q, sx, sy, gx, gy, PTL_PATH_EXACT, &z);
            cr_assert(z.res.found && o.res.length >= z.res.length - 1e-9);
            ++compared;
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
    }
    cr_assert_gt(compared, 30, "compared %d, unreachable %d", compared, unreachable);
}

Test(disc_path, grids_no_longer_than_a_lattice_and_monotone_in_r, .timeout = 600) {
    const double radii[] = {0.25, 0.5, 1, 2};
    int compared = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        ptl_grid g;
        ptl_shape s = grid_shape(900 + seed, 24, 24, 7, &g);
        ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
        ptl_query* q = make_query(nm);
        double* clear = lattice_clearance(&s, 24, 24, 0.125);
        uint64_t st = seed * 104729;
        for (int i = 0; i < 5; ++i) {
            double sx, sy, gx, gy;
            if (!clear_point_of(&s, &st, 24, 24, 2.01, &sx, &sy) || !clear_point_of(&s, &st, 24, 24, 2.01, &gx, &gy)) continue;
            double prev = 0;
            for (int k = 0; k < 4; ++k) {
                double r = radii[k];
                path_out o;
                ptl_status status = disc_find(q, sx, sy, gx, gy, r, PTL_PATH_EXACT, &o, NULL, 0);
                double lat = lattice_disc_length(&s, clear, 24, 24, r, 0.125, sx, sy, gx, gy);
                if (status == PTL_PARTIAL) {
                    cr_assert(isinf(lat), "grid %lu (%g, %g)->(%g, %g) r %g: not found, the lattice has %.6f", (unsigned long)seed,
                              sx, sy, gx, gy, r, lat);
                    prev = INFINITY;
                    continue;
                }
                cr_assert_eq(status, PTL_OK, "%s", ptl_status_name(status));
                cr_assert(o.res.length <= lat + 1e-6, "grid %lu (%g, %g)->(%g, %g) r %g: %.9f longer than the lattice's %.9f",
                          (unsigned long)seed, sx, sy, gx, gy, r, o.res.length, lat);
                cr_assert(o.res.length >= prev - 1e-9, "r %g: %.9f shorter than at a smaller radius (%.9f)", r, o.res.length, prev);
                prev = o.res.length;
                check_clear_path(&s, &o.res, r, "grid");
                ++compared;
            }
        }
        free(clear);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    cr_assert_gt(compared, 40, "compared %d", compared);
}

/* PTL_PATH_CORRIDOR with a radius (disc_funnel.c): the funnel with circles over the corridor, each
   piece checked, the exact search where a check fails. Its path keeps r (brute force against the
   walls), is found wherever the exact one is, and is never shorter than the exact optimum; on
   these maps it is mostly that optimum (the corridor holds the shortest path). */
Test(disc_path, corridor_mode_keeps_r_and_is_never_shorter_than_exact, .timeout = 600) {
    const double radii[] = {0.25, 0.5, 1, 2};
    int compared = 0, equal = 0;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        ptl_grid g;
        test_shape t;
        ptl_shape s;
        const bool grid = seed % 2 == 0;
        if (grid) {
            s = grid_shape(1700 + seed, 24, 24, 7, &g);
        } else {
            random_room(&t, 500 + seed);
            s = as_ptl_shape(&t, 0);
        }
        ptl_navmesh* nm = grid ? bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS) : bake_test_shape(&t, 0);
        ptl_query* q = make_query(nm);
        uint64_t st = seed * 15485863;
        for (int i = 0; i < 12; ++i) {
            double r = radii[i % 4], sx, sy, gx, gy;
            if (grid) {
                if (!clear_point_of(&s, &st, 24, 24, 2.01, &sx, &sy) || !clear_point_of(&s, &st, 24, 24, 2.01, &gx, &gy)) continue;
            } else {
                do random_free_point(&s, &st, &sx, &sy);
                while (seg_clearance(&s, sx, sy, sx, sy) < r + 1e-3);
                do random_free_point(&s, &st, &gx, &gy);
                while (seg_clearance(&s, gx, gy, gx, gy) < r + 1e-3);
            }
            path_out e, c;
            ptl_status se = disc_find(q, sx, sy, gx, gy, r, PTL_PATH_EXACT, &e, NULL, 0);
            ptl_status sc = disc_find(q, sx, sy, gx, gy, r, PTL_PATH_CORRIDOR, &c, NULL, 0);
            /* found wherever exact is (a squeeze exactly 2 r wide may let only the corridor through, by
               rounding: its path is checked like any) */
            cr_assert(se != PTL_OK || sc == PTL_OK, "map %lu (%g, %g)->(%g, %g) r %g: corridor %s, exact %s", (unsigned long)seed,
                      sx, sy, gx, gy, r, ptl_status_name(sc), ptl_status_name(se));
            if (sc == PTL_OK && se != PTL_OK) check_clear_path(&s, &c.res, r, "corridor where exact finds none");
            if (se != PTL_OK) continue;
            check_clear_path(&s, &c.res, r, grid ? "corridor, grid" : "corridor, room");
            cr_assert(c.res.length >= e.res.length - 1e-6, "map %lu (%g, %g)->(%g, %g) r %g: corridor %.9f shorter than exact %.9f",
                      (unsigned long)seed, sx, sy, gx, gy, r, c.res.length, e.res.length);
            equal += c.res.length <= e.res.length + 1e-6;
            ++compared;
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        if (grid) {
            ptl_shape_free(&s);
            ptl_grid_free(&g);
        }
    }
    cr_log_info("disc corridor: %d of %d paths equal to the exact optimum", equal, compared);
    cr_assert_gt(compared, 40, "compared %d", compared);
}

/* A shared grid map and its scenario pairs (lattice points (x, y) -> world (x, 0, y)). */
static bool load_map_and_scen(const char* map, const char* scen, ptl_grid* g, ptl_shape* s, ptl_query_set* qs) {
    char mp[512], sp[512];
    const char* dir = test_data_dir();
    if (!dir) return false;
    snprintf(mp, sizeof mp, "%s/%s", dir, map);
    snprintf(sp, sizeof sp, "%s/%s", dir, scen);
    ptl_error err;
    cr_assert_geq(ptl_grid_load(mp, NULL, g, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_shape_from_grid(g, NULL, s, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_scen_load(sp, NULL, qs, &err), 0, "%s", err.message);
    return true;
}

/* Scenario pairs of shared maps at r in {0.25, 0.5, 1, 2}: every path keeps r from every wall (brute
   force), is no shorter than the radius-0 path, gets no shorter as r grows, and its ends are the
   scenario's points or points keeping r at most 2 away; on arena, never longer than the lattice's
   path and found whenever it finds one. */
Test(disc_path, shared_maps_scenario_pairs, .timeout = 900) {
    TEST_REQUIRE_DATA(data);
    (void)data;
    static const struct {
        const char* map;
        const char* scen;
        int pairs;
        bool lattice;
    } MAPS[] = {{"polyanya/gridmaps/arena.map", "polyanya/scenarios/arena.scen", 24, true},
                {"grids/dao/arena2.map", "grids/dao/arena2.map.scen", 12, false},
                {"grids/room512/64room_000.map", "grids/room512/64room_000.map.scen", 6, false}};
    const double radii[] = {0.25, 0.5, 1, 2};
    int checked = 0, lattice_checked = 0;
    for (size_t m = 0; m < sizeof MAPS / sizeof MAPS[0]; ++m) {
        ptl_grid g;
        ptl_shape s;
        ptl_query_set qs;
        if (!load_map_and_scen(MAPS[m].map, MAPS[m].scen, &g, &s, &qs)) continue;
        ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
        ptl_query* q = make_query(nm);
        double* clear = MAPS[m].lattice ? lattice_clearance(&s, (int)g.width, (int)g.height, 0.25) : NULL;
        uint32_t step = qs.count / (uint32_t)MAPS[m].pairs + 1;
        for (uint32_t i = 0; i < qs.count; i += step) {
            const ptl_query_item* it = &qs.items[i];
            double sx = it->start[0], sy = it->start[2], gx = it->goal[0], gy = it->goal[2];
            path_out z;
            find(q, sx, sy, gx, gy, PTL_PATH_EXACT, &z);
            double prev = z.res.found ? z.res.length : INFINITY;
            for (int k = 0; k < 4; ++k) {
                double r = radii[k];
                path_out o;
                ptl_status st = disc_find(q, sx, sy, gx, gy, r, PTL_PATH_EXACT, &o, NULL, 0);
                bool ends_keep = seg_clearance(&s, sx, sy, sx, sy) >= r + 1e-3 && seg_clearance(&s, gx, gy, gx, gy) >= r + 1e-3;
                if (st != PTL_OK) {
                    cr_assert(st == PTL_PARTIAL || st == PTL_ERR_NOT_FOUND, "%s pair %u r %g: %s", MAPS[m].map, i, r,
                              ptl_status_name(st));
                    if (clear && ends_keep) {
                        double lat = lattice_disc_length(&s, clear, (int)g.width, (int)g.height, r, 0.25, sx, sy, gx, gy);
                        cr_assert(isinf(lat), "%s pair %u r %g: not found, the lattice has %.6f", MAPS[m].map, i, r, lat);
                    }
                    prev = INFINITY;
                    continue;
                }
                check_clear_path(&s, &o.res, r, MAPS[m].map);
                const float* a = o.res.points;
                const float* b = o.res.points + 3 * (o.res.point_count - 1);
                cr_assert(hypot(a[0] - sx, a[2] - sy) <= 2 + 1e-6 && hypot(b[0] - gx, b[2] - gy) <= 2 + 1e-6);
                if (ends_keep) {
                    cr_assert(a[0] == (float)sx && a[2] == (float)sy && b[0] == (float)gx && b[2] == (float)gy, "ends kept");
                    cr_assert(o.res.length >= z.res.length - 1e-6, "%s pair %u r %g: %.9f shorter than radius 0 (%.9f)", MAPS[m].map,
                              i, r, o.res.length, z.res.length);
                    cr_assert(!(prev < INFINITY) || o.res.length >= prev - 1e-6, "%s pair %u r %g: %.9f, less than at a smaller r (%.9f)",
                              MAPS[m].map, i, r, o.res.length, prev);
                }
                if (clear) {
                    /* the lattice between the path's own ends (moved to keep r where they did not) */
                    double lat = lattice_disc_length(&s, clear, (int)g.width, (int)g.height, r, 0.25, a[0], a[2], b[0], b[2]);
                    cr_assert(o.res.length <= lat + 1e-6, "%s pair %u r %g: %.9f longer than the lattice's %.9f", MAPS[m].map, i, r,
                              o.res.length, lat);
                    if (!isinf(lat)) ++lattice_checked;
                }
                prev = ends_keep ? o.res.length : INFINITY;
                ++checked;
            }
        }
        free(clear);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_query_set_free(&qs);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    cr_assert_gt(checked, 100, "checked %d", checked);
    cr_assert_gt(lattice_checked, 20, "lattice %d", lattice_checked);
}

/* ---- 3D: doors and stairs --------------------------------------------------------------------- */

#include "mesh_builder.h"

static ptl_status path3(ptl_query* q, const float s[3], const float g[3], float r, ptl_path_result* res, float* pts) {
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, s, sizeof req.start);
    memcpy(req.goal, g, sizeof req.goal);
    req.radius = r;
    memset(res, 0, sizeof *res);
    res->points = pts;
    res->point_capacity = 1024;
    return ptl_query_find_path(q, &req, res);
}

/* The least distance in plan from any segment of the path to the walls of the navmesh (its cells'
   edges without a neighbour), among the walls whose height range meets the segment's. */
static double path_wall_clearance(const ptl_navmesh* nm, const ptl_path_result* res) {
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    double best = INFINITY;
    for (uint32_t c = 0; c < info.cell_count; ++c) {
        ptl_cell_view v;
        ptl_navmesh_get_cell(nm, c, &v);
        for (uint32_t i = 0; i < v.vert_count; ++i) {
            if (v.neighbors[i] != PTL_NONE) continue;
            const float* a = ptl_navmesh_vert(nm, v.verts[i]);
            const float* b = ptl_navmesh_vert(nm, v.verts[(i + 1) % v.vert_count]);
            for (uint32_t k = 0; k + 1 < res->point_count; ++k) {
                const float* p = res->points + 3 * k;
                const float* q = p + 3;
                float lo = fminf(p[1], q[1]) - 1, hi = fmaxf(p[1], q[1]) + 1;
                if (fmaxf(a[1], b[1]) < lo || fminf(a[1], b[1]) > hi) continue; /* another storey */
                double d = seg_seg(p[0], p[2], q[0], q[2], a[0], a[2], b[0], b[2]);
                best = fmin(best, d);
            }
        }
    }
    return best;
}

Test(disc_path, a_3m_door_and_a_3m_staircase_pass_1_2_and_stop_2_0) {
    /* two rooms 10 x 10 joined by a door 3 m wide (z 3.5 .. 6.5) in a wall at x = 10 */
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 0, 0, 20, 10, 0);
    box(b, 9.8f, 0, -0.2f, 10.2f, 3, 3.5f);
    box(b, 9.8f, 0, 6.5f, 10.2f, 3, 10.2f);
    ptl_navmesh* nm = bake_builder(b, NULL);
    ptl_query* q = make_query(nm);
    float pts[3 * 1024];
    ptl_path_result res;
    const float s[3] = {5, 0, 2}, g[3] = {15, 0, 8};
    cr_assert_eq(path3(q, s, g, 1.2f, &res, pts), PTL_OK);
    cr_assert(res.found);
    double c = path_wall_clearance(nm, &res);
    cr_assert(c >= 1.2 - 1e-5, "door: the path keeps %.6f", c);
    cr_assert_eq(path3(q, s, g, 2.0f, &res, pts), PTL_PARTIAL, "a 3 m door stops a radius of 2");
    cr_assert(!res.found && res.point_count == 0);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);

    /* a staircase 3 m wide (z 3.5 .. 6.5, 15 steps of 0.2 up along x) from a floor at y 0 to a
       platform at y 3, ledges on both sides (walls for the disc, as every edge of the walkable
       area is) */
    memset(b, 0, sizeof *b);
    floor_quad(b, 0, 0, 10, 10, 0);
    /* treads only (no solid below them, nothing walkable under the platform either) */
    for (int k = 0; k < 15; ++k) floor_quad(b, 10 + 0.3f * k, 3.5f, 10 + 0.3f * (k + 1), 6.5f, 0.2f * (k + 1));
    floor_quad(b, 14.5f, 0, 24, 10, 3);
    nm = bake_builder(b, NULL);
    q = make_query(nm);
    const float s2[3] = {4, 0, 5}, g2[3] = {20, 3, 5};
    ptl_status st0 = path3(q, s2, g2, 0, &res, pts);
    cr_assert_eq(st0, PTL_OK, "%s", ptl_status_name(st0));
    cr_assert(res.found, "the stairs join the floors");
    cr_assert_eq(path3(q, s2, g2, 1.2f, &res, pts), PTL_OK);
    cr_assert(res.found);
    c = path_wall_clearance(nm, &res);
    cr_assert(c >= 1.2 - 1e-5, "stairs: the path keeps %.6f", c);
    cr_assert(fabsf(pts[3 * (res.point_count - 1) + 1] - 3) < 0.3f, "ends on the platform");
    cr_assert_eq(path3(q, s2, g2, 2.0f, &res, pts), PTL_PARTIAL, "a 3 m staircase stops a radius of 2");
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    free(b);
}

/* Fuzz finding (pipeline_grid, 2026-11-27): with no other wall within 2 r of a corner, the search
   took an arc's ends being in the corner's normal cone for the arc lying in it, and an arc the long
   way round corner (6, 11) ran through the blocked square [6, 7] x [10, 11]. */
Test(disc_path, an_arc_the_long_way_round_a_corner_is_checked) {
    const char* text = "type octile\nheight 19\nwidth 7\nmap\n.@..@@.\n@.....@\n@..@@..\n.......\n.....@@\n......@\n..@@...\n"
                       "@@.....\n.....@@\n..@..@@\n.@.@..@\n@......\n.......\n..@@.@.\n.......\n.......\n.......\n.......\n.......\n";
    ptl_grid g;
    ptl_error err;
    cr_assert_geq(ptl_grid_parse(text, strlen(text), "finding", NULL, &g, &err), 0, "%s", err.message);
    ptl_shape s;
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
    ptl_query* q = make_query(nm);
    path_out o;
    cr_assert_eq(disc_find(q, 4.5, 1.5, 6, 11, 0.25, PTL_PATH_EXACT, &o, NULL, 0), PTL_OK);
    check_clear_path(&s, &o.res, 0.25, "finding");
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

/* The sight lists a query keeps across disc searches (clearance.c, q->vc_*) stand for the sweeps
   they replace, and its memo of checked segments between corners (q->seg_memo) for the checks: a
   query that has answered many searches at several radii, one whose room for them is so small that
   it fills and is emptied again and again (and whose memo has one entry, which every segment
   overwrites), and a fresh query give the same paths, bit for bit. */
Test(disc_path, kept_sight_lists_give_the_paths_of_a_fresh_query, .timeout = 600) {
    const double radii[] = {0.25, 1, 0.5, 2};
    test_shape t;
    random_room(&t, 307);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* warm = make_query(nm);
    ptl_query* tight = make_query(nm);
    tight->vc_cap = 40;      /* a few lists at a time */
    tight->seg_memo_cap = 1; /* every segment in the same entry */
    ptl_shape s = as_ptl_shape(&t, 0);
    uint64_t st = 4242;
    int found = 0;
    for (int i = 0; i < 48; ++i) {
        double r = radii[i % 4], sx, sy, gx, gy;
        random_free_point(&s, &st, &sx, &sy);
        random_free_point(&s, &st, &gx, &gy);
        for (int m = 0; m < 2; ++m) {
            ptl_path_mode mode = m ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT;
            ptl_query* fresh = make_query(nm);
            path_out a, b, c;
            ptl_status sa = disc_find(fresh, sx, sy, gx, gy, r, mode, &a, NULL, 0);
            ptl_status sb = disc_find(warm, sx, sy, gx, gy, r, mode, &b, NULL, 0);
            ptl_status sc = disc_find(tight, sx, sy, gx, gy, r, mode, &c, NULL, 0);
            ptl_query_destroy(fresh);
            cr_assert(sa == sb && sa == sc, "pair %d r %g: %s, %s, %s", i, r, ptl_status_name(sa), ptl_status_name(sb),
                      ptl_status_name(sc));
            cr_assert(a.res.found == b.res.found && a.res.found == c.res.found);
            cr_assert(a.res.length == b.res.length && a.res.length == c.res.length, "pair %d r %g: %.17g %.17g %.17g", i,
                      r, a.res.length, b.res.length, c.res.length);
            uint32_t n = a.res.point_count;
            cr_assert(n == b.res.point_count && n == c.res.point_count);
            cr_assert(!memcmp(a.pts, b.pts, 3 * sizeof(float) * n) && !memcmp(a.pts, c.pts, 3 * sizeof(float) * n));
            found += a.res.found;
        }
    }
    cr_assert_gt(found, 20, "found %d", found);
    ptl_query_destroy(tight);
    ptl_query_destroy(warm);
    ptl_navmesh_destroy(nm);
}

static uint32_t memo_entries(const ptl_query* q) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < q->seg_memo_cap; ++i) n += q->seg_memo[i].gen == q->seg_memo_gen;
    return n;
}

/* The memo of checked segments between corners (q->seg_memo) stands for checks against the walls
   the query's filter leaves: setting a filter (even the default one) empties it, and the paths after
   are those of a fresh query. */
Test(disc_path, a_filter_empties_the_memo_of_checked_segments) {
    test_shape t;
    random_room(&t, 311);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    ptl_shape s = as_ptl_shape(&t, 0);
    uint64_t st = 99;
    double pairs[16][4];
    for (int i = 0; i < 16; ++i) {
        random_free_point(&s, &st, &pairs[i][0], &pairs[i][1]);
        random_free_point(&s, &st, &pairs[i][2], &pairs[i][3]);
        path_out a;
        disc_find(q, pairs[i][0], pairs[i][1], pairs[i][2], pairs[i][3], 0.25, PTL_PATH_EXACT, &a, NULL, 0);
    }
    cr_assert_gt(memo_entries(q), 0, "the searches checked segments between corners");
    ptl_query_filter f = ptl_query_filter_defaults();
    cr_assert_eq(ptl_query_set_filter(q, &f), PTL_OK);
    cr_assert_eq(memo_entries(q), 0);
    for (int i = 0; i < 16; ++i) {
        ptl_query* fresh = make_query(nm);
        path_out a, b;
        ptl_status sa = disc_find(q, pairs[i][0], pairs[i][1], pairs[i][2], pairs[i][3], 0.25, PTL_PATH_EXACT, &a, NULL, 0);
        ptl_status sb = disc_find(fresh, pairs[i][0], pairs[i][1], pairs[i][2], pairs[i][3], 0.25, PTL_PATH_EXACT, &b, NULL, 0);
        ptl_query_destroy(fresh);
        cr_assert(sa == sb && a.res.length == b.res.length && a.res.point_count == b.res.point_count);
        cr_assert(!memcmp(a.pts, b.pts, 3 * sizeof(float) * a.res.point_count));
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}
