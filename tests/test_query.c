/* Queries: point location, exact paths (interval search), corridor paths (A* + funnel).

   Navmeshes come from hand-made free spaces baked through the bake (ptl_decompose, then
   ptl_bake_decomposition) or from small grids (ptl_shape_from_grid). Path lengths are checked
   against hand computations and against an independent reference written here from the
   definitions: Dijkstra over the visibility graph of the free space's vertices, with an exact
   segment-in-free-space test (walls crossed, vertices passed through, pinches, even-odd inside). */
#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../runtime/funnel.h"
#include "failing_alloc.h"

/* ---- Building navmeshes ------------------------------------------------------------------------*/

typedef struct test_shape {
    double xy[2 * 512];
    uint32_t vert_count;
    uint32_t ring_start[65];
    uint32_t ring_count;
} test_shape;

static void shape_ring(test_shape* s, const double* pts, uint32_t n) {
    if (s->ring_count == 0) s->ring_start[0] = 0;
    memcpy(s->xy + 2 * s->vert_count, pts, 2 * n * sizeof(double));
    s->vert_count += n;
    s->ring_start[++s->ring_count] = s->vert_count;
}

static ptl_shape as_ptl_shape(const test_shape* t, uint32_t flags) {
    ptl_shape s;
    memset(&s, 0, sizeof s);
    s.vert_count = t->vert_count;
    s.xy = (double*)t->xy;
    s.ring_count = t->ring_count;
    s.ring_start = (uint32_t*)t->ring_start;
    s.flags = flags;
    return s;
}

static ptl_navmesh* bake_ptl_shape(const ptl_shape* s, uint32_t flags) {
    ptl_error err;
    ptl_decomposition d;
    cr_assert_geq(ptl_decompose(s, NULL, &d, &err), 0, "decompose: %s", err.message);
    void* blob;
    size_t size;
    cr_assert_geq(ptl_bake_decomposition(&d, flags, NULL, &blob, &size, &err), 0, "bake: %s", err.message);
    ptl_decomposition_free(&d);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "load: %s", err.message);
    ptl_blob_free(blob, size, NULL);
    return nm;
}

static ptl_navmesh* bake_test_shape(const test_shape* t, uint32_t flags) {
    ptl_shape s = as_ptl_shape(t, flags);
    ptl_error err;
    cr_assert_geq(ptl_shape_validate(&s, &err), 0, "test shape: %s", err.message);
    return bake_ptl_shape(&s, flags);
}

static ptl_query* make_query(const ptl_navmesh* nm) {
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    return q;
}

/* A 10 x 10 room with a 2 x 2 square obstacle in its middle. */
static void room_with_pillar(test_shape* s) {
    memset(s, 0, sizeof *s);
    const double outer[] = {0, 0, 10, 0, 10, 10, 0, 10};
    const double pillar[] = {4, 4, 4, 6, 6, 6, 6, 4}; /* clockwise: a hole */
    shape_ring(s, outer, 4);
    shape_ring(s, pillar, 4);
}

typedef struct path_out {
    ptl_status status;
    ptl_path_result res;
    float pts[3 * 256];
} path_out;

static void find(ptl_query* q, double sx, double sz, double gx, double gz, ptl_path_mode mode, path_out* out) {
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    req.start[0] = (float)sx, req.start[2] = (float)sz;
    req.goal[0] = (float)gx, req.goal[2] = (float)gz;
    req.mode = mode;
    memset(&out->res, 0, sizeof out->res);
    out->res.points = out->pts;
    out->res.point_capacity = 256;
    out->status = ptl_query_find_path(q, &req, &out->res);
}

/* ---- The reference: visibility graph over the free space (even-odd over all rings) -------------*/

static double orient(double ax, double ay, double bx, double by, double cx, double cy) {
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static uint32_t ring_of(const ptl_shape* s, uint32_t v) {
    uint32_t r = 0;
    while (s->ring_start[r + 1] <= v) ++r;
    return r;
}

static uint32_t ring_next(const ptl_shape* s, uint32_t v) {
    uint32_t r = ring_of(s, v);
    return v + 1 == s->ring_start[r + 1] ? s->ring_start[r] : v + 1;
}

static uint32_t ring_prev(const ptl_shape* s, uint32_t v) {
    uint32_t r = ring_of(s, v);
    return v == s->ring_start[r] ? s->ring_start[r + 1] - 1 : v - 1;
}

/* Closed free space: on a ring edge, or inside by the even-odd rule. */
static bool in_free_space(const ptl_shape* s, double x, double y) {
    bool inside = false;
    for (uint32_t v = 0; v < s->vert_count; ++v) {
        uint32_t w = ring_next(s, v);
        double ax = s->xy[2 * v], ay = s->xy[2 * v + 1], bx = s->xy[2 * w], by = s->xy[2 * w + 1];
        if (orient(ax, ay, bx, by, x, y) == 0 && fmin(ax, bx) <= x && x <= fmax(ax, bx) && fmin(ay, by) <= y &&
            y <= fmax(ay, by))
            return true;
        if ((ay > y) != (by > y) && x < ax + (y - ay) * (bx - ax) / (by - ay)) inside = !inside;
    }
    return inside;
}

/* Is direction d in the closed free sector of vertex copy v (between its walls, free on the left)? */
static bool in_sector(const ptl_shape* s, uint32_t v, double dx, double dy) {
    uint32_t p = ring_prev(s, v), n = ring_next(s, v);
    double vx = s->xy[2 * v], vy = s->xy[2 * v + 1];
    double nx = s->xy[2 * n] - vx, ny = s->xy[2 * n + 1] - vy, px = s->xy[2 * p] - vx, py = s->xy[2 * p + 1] - vy;
    double turn = nx * py - ny * px; /* > 0: the free sector from n to p is convex */
    double c1 = nx * dy - ny * dx, c2 = dx * py - dy * px;
    if (turn > 0) return c1 >= 0 && c2 >= 0;
    if (turn < 0) return !(c1 < 0 && c2 < 0);
    return c1 >= 0;
}

/* Does the segment p-q stay in the closed free space? pv, qv: vertex copies at the ends, or -1. */
static bool visible(const ptl_shape* s, double px, double py, long pv, double qx, double qy, long qv) {
    double dx = qx - px, dy = qy - py;
    if (dx == 0 && dy == 0) return pv == qv; /* never from one pinch copy to another */
    if (pv >= 0 && !in_sector(s, (uint32_t)pv, dx, dy)) return false;
    if (qv >= 0 && !in_sector(s, (uint32_t)qv, -dx, -dy)) return false;
    double ts[600];
    uint32_t nt = 0;
    ts[nt++] = 0, ts[nt++] = 1;
    for (uint32_t v = 0; v < s->vert_count; ++v) {
        uint32_t w = ring_next(s, v);
        double ax = s->xy[2 * v], ay = s->xy[2 * v + 1], bx = s->xy[2 * w], by = s->xy[2 * w + 1];
        double o1 = orient(px, py, qx, qy, ax, ay), o2 = orient(px, py, qx, qy, bx, by);
        double o3 = orient(ax, ay, bx, by, px, py), o4 = orient(ax, ay, bx, by, qx, qy);
        if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) return false;
        if (o1 != 0 || (long)v == pv || (long)v == qv) continue;
        double t = fabs(dx) > fabs(dy) ? (ax - px) / dx : (ay - py) / dy;
        if (!(t > 0 && t < 1)) continue;
        /* The segment passes through this vertex position: some copy there must hold both ways. */
        bool ok = false;
        for (uint32_t u = 0; u < s->vert_count && !ok; ++u)
            if (s->xy[2 * u] == ax && s->xy[2 * u + 1] == ay) ok = in_sector(s, u, dx, dy) && in_sector(s, u, -dx, -dy);
        if (!ok) return false;
        if (nt < 600) ts[nt++] = t;
    }
    for (uint32_t i = 1; i < nt; ++i)
        for (uint32_t j = i; j > 0 && ts[j - 1] > ts[j]; --j) {
            double t = ts[j];
            ts[j] = ts[j - 1], ts[j - 1] = t;
        }
    for (uint32_t i = 0; i + 1 < nt; ++i) {
        if (ts[i + 1] - ts[i] <= 0) continue;
        double t = 0.5 * (ts[i] + ts[i + 1]);
        if (!in_free_space(s, px + t * dx, py + t * dy)) return false;
    }
    return true;
}

/* The vertex copy at (x, y) whose sector holds the point's neighbourhood, or -1 for a plain point. */
static long vertex_at(const ptl_shape* s, double x, double y) {
    for (uint32_t v = 0; v < s->vert_count; ++v)
        if (s->xy[2 * v] == x && s->xy[2 * v + 1] == y) return (long)v;
    return -1;
}

/* Shortest length from (sx, sy) to (gx, gy) in the free space; INFINITY when unreachable. */
static double reference_length(const ptl_shape* s, double sx, double sy, double gx, double gy) {
    uint32_t n = s->vert_count + 2; /* vertices, then start, then goal */
    double* dist = malloc(n * sizeof(double));
    bool* done = calloc(n, 1);
    long sv = vertex_at(s, sx, sy), gv = vertex_at(s, gx, gy);
    for (uint32_t i = 0; i < n; ++i) dist[i] = INFINITY;
    dist[n - 2] = 0;
    double result = INFINITY;
    for (;;) {
        uint32_t u = n;
        for (uint32_t i = 0; i < n; ++i)
            if (!done[i] && dist[i] < INFINITY && (u == n || dist[i] < dist[u])) u = i;
        if (u == n) break;
        done[u] = true;
        if (u == n - 1) {
            result = dist[u];
            break;
        }
        double ux = u == n - 2 ? sx : s->xy[2 * u], uy = u == n - 2 ? sy : s->xy[2 * u + 1];
        long uv = u == n - 2 ? sv : (long)u;
        for (uint32_t w = 0; w < n; ++w) {
            if (done[w] || w == n - 2) continue;
            double wx = w == n - 1 ? gx : s->xy[2 * w], wy = w == n - 1 ? gy : s->xy[2 * w + 1];
            long wv = w == n - 1 ? gv : (long)w;
            double d = dist[u] + hypot(wx - ux, wy - uy);
            if (d >= dist[w]) continue;
            if (visible(s, ux, uy, uv, wx, wy, wv)) dist[w] = d;
        }
    }
    free(dist);
    free(done);
    return result;
}

/* Does some vertex copy at (x, y) hold both directions (a path point there passes in free space)?
   True when no vertex is there. A zero direction is held by every copy. */
static bool passes_vertex(const ptl_shape* s, double x, double y, double ax, double ay, double bx, double by) {
    bool any = false;
    for (uint32_t u = 0; u < s->vert_count; ++u) {
        if (s->xy[2 * u] != x || s->xy[2 * u + 1] != y) continue;
        any = true;
        if ((ax == 0 && ay == 0 ? true : in_sector(s, u, ax, ay)) && (bx == 0 && by == 0 ? true : in_sector(s, u, bx, by)))
            return true;
    }
    return !any;
}

/* Every segment of a path stays in the free space, and the path passes every vertex it touches on
   the free side (never through a pinch from one region to the other). */
static bool path_inside(const ptl_shape* s, const ptl_path_result* r) {
    for (uint32_t k = 0; k < r->point_count; ++k) {
        const float* p = r->points + 3 * k;
        const float* a = k > 0 ? p - 3 : p;
        const float* b = k + 1 < r->point_count ? p + 3 : p;
        if (!passes_vertex(s, p[0], p[2], (double)a[0] - p[0], (double)a[2] - p[2], (double)b[0] - p[0],
                           (double)b[2] - p[2]))
            return false;
        if (k + 1 < r->point_count && !visible(s, p[0], p[2], -1, b[0], b[2], -1)) return false;
    }
    return true;
}

static double path_sum(const ptl_path_result* r) {
    double sum = 0;
    for (uint32_t k = 0; k + 1 < r->point_count; ++k) {
        const float* a = r->points + 3 * k;
        const float* b = r->points + 3 * k + 3;
        sum += hypot((double)b[0] - a[0], (double)b[2] - a[2]);
    }
    return sum;
}

/* ---- Random free spaces ------------------------------------------------------------------------*/

static uint32_t rng_next(uint64_t* st) {
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*st >> 33);
}
static int rng_int(uint64_t* st, int lo, int hi) { return lo + (int)(rng_next(st) % (uint32_t)(hi - lo + 1)); }

/* A 40 x 40 room with holes: rectangles, triangles and diamonds with integer corners inside boxes
   kept one unit apart (so the holes never touch). Integer coordinates make collinear and grazing
   configurations common, which is the point. */
static void random_room(test_shape* s, uint64_t seed) {
    memset(s, 0, sizeof *s);
    const double outer[] = {0, 0, 40, 0, 40, 40, 0, 40};
    shape_ring(s, outer, 4);
    uint64_t st = seed;
    int boxes[24][4];
    int nb = 0;
    for (int tries = 0; tries < 400 && nb < 18; ++tries) {
        int w = rng_int(&st, 2, 8), h = rng_int(&st, 2, 8);
        int x0 = rng_int(&st, 1, 39 - w), y0 = rng_int(&st, 1, 39 - h);
        bool clash = false;
        for (int i = 0; i < nb && !clash; ++i)
            clash = !(x0 + w + 1 <= boxes[i][0] || boxes[i][2] + 1 <= x0 || y0 + h + 1 <= boxes[i][1] || boxes[i][3] + 1 <= y0);
        if (clash) continue;
        boxes[nb][0] = x0, boxes[nb][1] = y0, boxes[nb][2] = x0 + w, boxes[nb][3] = y0 + h;
        ++nb;
        double x1 = x0 + w, y1 = y0 + h;
        int kind = rng_int(&st, 0, 2);
        if (kind == 0) {
            const double r[] = {x0, y0, x0, y1, x1, y1, x1, y0};
            shape_ring(s, r, 4);
        } else if (kind == 1 && w % 2 == 0 && h % 2 == 0) {
            double cx = x0 + w / 2, cy = y0 + h / 2;
            const double r[] = {cx, y0, x0, cy, cx, y1, x1, cy};
            shape_ring(s, r, 4);
        } else {
            /* A triangle with corners on the box's edges, clockwise. */
            double ax = x0, ay = rng_int(&st, y0, (int)y1);
            double bx = rng_int(&st, x0 + 1, (int)x1), by = y1;
            double cx = x1, cy = rng_int(&st, y0, (int)y1 - 1);
            if (orient(ax, ay, bx, by, cx, cy) == 0) cy = y0;
            if (orient(ax, ay, bx, by, cx, cy) > 0) {
                const double r[] = {ax, ay, cx, cy, bx, by};
                shape_ring(s, r, 3);
            } else {
                const double r[] = {ax, ay, bx, by, cx, cy};
                shape_ring(s, r, 3);
            }
        }
    }
}

/* A point of the free space with quarter-unit coordinates (exact in floats), not on a hole. */
static void random_free_point(const ptl_shape* s, uint64_t* st, double* x, double* y) {
    do {
        *x = rng_int(st, 0, 160) / 4.0;
        *y = rng_int(st, 0, 160) / 4.0;
    } while (!in_free_space(s, *x, *y));
}

/* ---- Tests -------------------------------------------------------------------------------------*/

Test(query, exact_paths_match_known_euclidean_lengths) {
    test_shape t;
    room_with_pillar(&t);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    struct {
        double sx, sz, gx, gz, len;
    } cases[] = {
        {1, 5, 9, 5, 2 * sqrt(10) + 2},     /* around the pillar, either side */
        {5, 1, 5, 9, 2 * sqrt(10) + 2},
        {1, 1, 9, 9, 2 * sqrt(34)},         /* the diagonal is blocked: via (4,6) or (6,4) */
        {0, 0, 10, 10, 2 * sqrt(52)},       /* corner to corner */
        {4, 5, 6, 5, 4},                    /* from wall to wall of the pillar: around two corners */
        {4, 4, 6, 6, 4},                    /* pillar corner to pillar corner */
        {1, 1, 2, 3, sqrt(5)},              /* in sight */
        {1, 9, 9, 9, 8},                    /* above the pillar */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        path_out o;
        find(q, cases[i].sx, cases[i].sz, cases[i].gx, cases[i].gz, PTL_PATH_EXACT, &o);
        cr_assert_eq(o.status, PTL_OK, "case %zu: %s", i, ptl_status_name(o.status));
        cr_expect(o.res.found && o.res.complete);
        cr_expect(fabs(o.res.length - cases[i].len) < 1e-9, "case %zu: length %.12f, expected %.12f", i, o.res.length,
                  cases[i].len);
        cr_expect(fabs(path_sum(&o.res) - o.res.length) < 1e-5, "case %zu: the points do not add up", i);
        cr_expect_eq(o.res.points[0], (float)cases[i].sx);
        cr_expect_eq(o.res.points[3 * (o.res.point_count - 1) + 2], (float)cases[i].gz);
    }
    /* An L-shaped room: the inner corner (4, 4) is the only turn. */
    test_shape l;
    memset(&l, 0, sizeof l);
    const double ring[] = {0, 0, 10, 0, 10, 4, 4, 4, 4, 10, 0, 10};
    shape_ring(&l, ring, 6);
    ptl_navmesh* nm2 = bake_test_shape(&l, 0);
    ptl_query* q2 = make_query(nm2);
    path_out o;
    find(q2, 8, 2, 2, 8, PTL_PATH_EXACT, &o);
    cr_expect(fabs(o.res.length - 2 * sqrt(20)) < 1e-9, "L room: %.12f", o.res.length);
    cr_expect_eq(o.res.point_total, 3);
    cr_expect(o.res.point_count == 3 && o.res.points[3] == 4 && o.res.points[5] == 4, "the path turns at (4, 4)");
    ptl_query_destroy(q2);
    ptl_navmesh_destroy(nm2);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

Test(query, exact_paths_match_a_visibility_graph_on_random_rooms, .timeout = 120) {
    int checked = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        test_shape t;
        random_room(&t, seed);
        ptl_shape s = as_ptl_shape(&t, 0);
        ptl_navmesh* nm = bake_test_shape(&t, 0);
        ptl_query* q = make_query(nm);
        uint64_t st = seed * 977;
        for (int k = 0; k < 25; ++k) {
            double sx, sy, gx, gy;
            random_free_point(&s, &st, &sx, &sy);
            random_free_point(&s, &st, &gx, &gy);
            /* Every fifth query starts or ends on a hole's vertex. */
            if (k % 5 == 4 && t.ring_count > 1) {
                uint32_t v = t.ring_start[1] + rng_next(&st) % (t.vert_count - t.ring_start[1]);
                sx = t.xy[2 * v], sy = t.xy[2 * v + 1];
            }
            double want = reference_length(&s, sx, sy, gx, gy);
            path_out o;
            find(q, sx, sy, gx, gy, PTL_PATH_EXACT, &o);
            cr_assert(o.res.found, "seed %llu: (%g,%g)->(%g,%g) not found (%s), reference %.9f", (unsigned long long)seed, sx,
                      sy, gx, gy, ptl_status_name(o.status), want);
            cr_expect(fabs(o.res.length - want) <= 1e-6 * (1 + want), "seed %llu: (%g,%g)->(%g,%g) length %.9f, reference %.9f",
                      (unsigned long long)seed, sx, sy, gx, gy, o.res.length, want);
            cr_expect(o.res.length >= hypot(gx - sx, gy - sy) - 1e-9, "shorter than the straight line");
            cr_expect(path_inside(&s, &o.res), "seed %llu: (%g,%g)->(%g,%g) leaves the free space", (unsigned long long)seed,
                      sx, sy, gx, gy);
            ++checked;
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
    }
    cr_expect_eq(checked, 300);
}

/* Small random grids: lattice points on walls and corners, pinches, collinear walls. */
static ptl_shape grid_shape(uint64_t seed, int w, int h, int blocked_percent, ptl_grid* g) {
    char text[8192];
    int n = snprintf(text, sizeof text, "type octile\nheight %d\nwidth %d\nmap\n", h, w);
    uint64_t st = seed;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) text[n++] = rng_int(&st, 0, 99) < blocked_percent ? '@' : '.';
        text[n++] = '\n';
    }
    ptl_error err;
    cr_assert_geq(ptl_grid_parse(text, (size_t)n, "random grid", NULL, g, &err), 0, "%s", err.message);
    ptl_shape s;
    cr_assert_geq(ptl_shape_from_grid(g, NULL, &s, &err), 0, "%s", err.message);
    return s;
}

static bool grid_free(const ptl_grid* g, int x, int y) {
    return x >= 0 && y >= 0 && x < (int)g->width && y < (int)g->height && g->passable[y * g->width + x];
}

/* The lattice point (x, y) with a free cell around it, not a pinch (those have their own test). */
static bool lattice_candidate(const ptl_grid* g, int x, int y) {
    int a = grid_free(g, x - 1, y - 1), b = grid_free(g, x, y - 1), c = grid_free(g, x - 1, y), d = grid_free(g, x, y);
    if ((a && d && !b && !c) || (b && c && !a && !d)) return false;
    return a || b || c || d;
}

Test(query, exact_paths_match_a_visibility_graph_on_random_grids, .timeout = 120) {
    int checked = 0, unreachable = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        ptl_grid g;
        ptl_shape s = grid_shape(seed, 16, 14, 30, &g);
        ptl_navmesh* nm = bake_ptl_shape(&s, s.flags);
        ptl_query* q = make_query(nm);
        uint64_t st = seed * 31;
        for (int k = 0; k < 30; ++k) {
            int sx, sy, gx, gy;
            do sx = rng_int(&st, 0, 16), sy = rng_int(&st, 0, 14);
            while (!lattice_candidate(&g, sx, sy));
            do gx = rng_int(&st, 0, 16), gy = rng_int(&st, 0, 14);
            while (!lattice_candidate(&g, gx, gy));
            double want = reference_length(&s, sx, sy, gx, gy);
            path_out o;
            find(q, sx, sy, gx, gy, PTL_PATH_EXACT, &o);
            if (want == INFINITY) {
                ++unreachable;
                cr_expect(!o.res.found && o.status == PTL_PARTIAL, "seed %llu: (%d,%d)->(%d,%d) should be unreachable",
                          (unsigned long long)seed, sx, sy, gx, gy);
                continue;
            }
            cr_expect(o.res.found, "seed %llu: (%d,%d)->(%d,%d) not found (%s), reference %.9f", (unsigned long long)seed, sx,
                      sy, gx, gy, ptl_status_name(o.status), want);
            cr_expect(fabs(o.res.length - want) <= 1e-6 * (1 + want), "seed %llu: (%d,%d)->(%d,%d) length %.9f, reference %.9f",
                      (unsigned long long)seed, sx, sy, gx, gy, o.res.length, want);
            cr_expect(path_inside(&s, &o.res), "seed %llu: (%d,%d)->(%d,%d) leaves the free space", (unsigned long long)seed,
                      sx, sy, gx, gy);
            path_out c;
            find(q, sx, sy, gx, gy, PTL_PATH_CORRIDOR, &c);
            cr_expect(c.res.found && c.res.length >= o.res.length - 1e-9 * (1 + want),
                      "seed %llu: corridor %.9f shorter than exact %.9f", (unsigned long long)seed, c.res.length, o.res.length);
            cr_expect(path_inside(&s, &c.res), "seed %llu: corridor path leaves the free space", (unsigned long long)seed);
            ++checked;
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    cr_expect_geq(checked, 200, "only %d reachable queries (%d unreachable)", checked, unreachable);
}

Test(query, paths_never_shorter_than_straight_line_and_stay_inside, .timeout = 60) {
    for (uint64_t seed = 20; seed < 26; ++seed) {
        test_shape t;
        random_room(&t, seed);
        ptl_shape s = as_ptl_shape(&t, 0);
        ptl_navmesh* nm = bake_test_shape(&t, 0);
        ptl_query* q = make_query(nm);
        uint64_t st = seed;
        for (int k = 0; k < 60; ++k) {
            double sx, sy, gx, gy;
            random_free_point(&s, &st, &sx, &sy);
            random_free_point(&s, &st, &gx, &gy);
            for (int mode = 0; mode < 2; ++mode) {
                path_out o;
                find(q, sx, sy, gx, gy, (ptl_path_mode)mode, &o);
                cr_assert(o.res.found, "mode %d: (%g,%g)->(%g,%g) not found", mode, sx, sy, gx, gy);
                /* An end within the location tolerance (1e-6 of the scale) of a vertex or an edge is
                   put on it, a move the float path points may not show: the bound is the straight
                   line less the 1e-4 within which a complete path ends at its points. */
                cr_expect(o.res.length >= hypot(gx - sx, gy - sy) - 2e-4, "mode %d: (%g,%g)->(%g,%g) shorter than the straight line",
                          mode, sx, sy, gx, gy);
                cr_expect(path_inside(&s, &o.res), "mode %d: (%g,%g)->(%g,%g) leaves the free space", mode, sx, sy, gx, gy);
                cr_expect(fabs(path_sum(&o.res) - o.res.length) <= 1e-5 * (1 + o.res.length), "mode %d: length != sum", mode);
            }
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
    }
}

Test(query, corridor_paths_no_shorter_than_exact) {
    int longer = 0, total = 0;
    for (uint64_t seed = 40; seed < 46; ++seed) {
        test_shape t;
        random_room(&t, seed);
        ptl_shape s = as_ptl_shape(&t, 0);
        ptl_navmesh* nm = bake_test_shape(&t, 0);
        ptl_query* q = make_query(nm);
        uint64_t st = seed;
        for (int k = 0; k < 60; ++k, ++total) {
            double sx, sy, gx, gy;
            random_free_point(&s, &st, &sx, &sy);
            random_free_point(&s, &st, &gx, &gy);
            path_out e, c;
            find(q, sx, sy, gx, gy, PTL_PATH_EXACT, &e);
            find(q, sx, sy, gx, gy, PTL_PATH_CORRIDOR, &c);
            cr_assert(e.res.found && c.res.found);
            cr_expect(c.res.length >= e.res.length - 1e-9 * (1 + e.res.length), "corridor %.9f < exact %.9f", c.res.length,
                      e.res.length);
            longer += c.res.length > e.res.length + 1e-6;
            cr_expect_eq(c.res.points[0], (float)sx);
            cr_expect_eq(c.res.points[3 * (c.res.point_count - 1) + 2], (float)gy);
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
    }
    cr_log_info("corridor paths longer than exact: %d of %d", longer, total);
}

Test(query, funnel_pulls_the_string_around_corners) {
    /* A corridor bending left around (2, 2): portals crossed left to right as seen when travelling. */
    ptl_funnel_portal p[3] = {
        {{2, 2}, {2, 0}, 7, 8},  /* travelling +x: left is +z */
        {{2, 2}, {4, 0}, 7, 9},
        {{2, 2}, {4, 4}, 7, 10}, /* now travelling +z: left is -x */
    };
    double s[2] = {0, 1}, g[2] = {1, 4};
    ptl_funnel_point out[8];
    uint32_t n = ptl_funnel(p, 3, s, g, out, 8);
    cr_assert_eq(n, 3, "start, the corner, the goal: got %u points", n);
    cr_expect(out[1].x == 2 && out[1].z == 2 && out[1].vert == 7);
    cr_expect(out[0].vert == PTL_NONE && out[2].vert == PTL_NONE);
    /* Straight through: no corner. */
    double g2[2] = {3, 3};
    n = ptl_funnel(p, 3, s, g2, out, 8);
    cr_expect_eq(n, 3, "(0,1)->(3,3) grazes (2,2)? %u points", n);
    double s3[2] = {0, 0.5}, g3[2] = {5, 1};
    ptl_funnel_portal straight[2] = {{{1, 2}, {1, 0}, 1, 2}, {{3, 2}, {3, 0}, 3, 4}};
    n = ptl_funnel(straight, 2, s3, g3, out, 8);
    cr_expect_eq(n, 2);
    /* Counting without a buffer. */
    cr_expect_eq(ptl_funnel(p, 3, s, g, NULL, 0), 3);
}

Test(query, unreachable_goal_reports_not_found) {
    test_shape t;
    memset(&t, 0, sizeof t);
    const double a[] = {0, 0, 4, 0, 4, 4, 0, 4}, b[] = {6, 0, 10, 0, 10, 4, 6, 4};
    shape_ring(&t, a, 4);
    shape_ring(&t, b, 4);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    for (int mode = 0; mode < 2; ++mode) {
        path_out o;
        find(q, 1, 1, 8, 1, (ptl_path_mode)mode, &o);
        cr_expect_eq(o.status, PTL_PARTIAL, "mode %d: %s", mode, ptl_status_name(o.status));
        cr_expect(!o.res.found && !o.res.complete);
        cr_expect_eq(o.res.point_count, 0);
        cr_expect_eq(o.res.point_total, 0);
        cr_expect_eq(o.res.length, 0);
        cr_expect_neq(o.res.start_cell, PTL_NONE);
        /* Reachable within each room. */
        find(q, 7, 1, 9, 3, (ptl_path_mode)mode, &o);
        cr_expect(o.res.found && fabs(o.res.length - sqrt(8)) < 1e-9);
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

/* A 4 x 4 grid whose blocked cells (1,1) and (2,2) touch at the point (2, 2): a pinch. */
static ptl_navmesh* pinch_navmesh(uint32_t flags, ptl_shape* out) {
    ptl_grid g;
    ptl_error err;
    const char* text = "type octile\nheight 4\nwidth 4\nmap\n....\n.@..\n..@.\n....\n";
    cr_assert_geq(ptl_grid_parse(text, strlen(text), "pinch", NULL, &g, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, out, &err), 0, "%s", err.message);
    ptl_grid_free(&g);
    out->flags = flags;
    return bake_ptl_shape(out, flags);
}

Test(query, pinch_point_lattice_rule) {
    ptl_shape s;
    ptl_navmesh* nm = pinch_navmesh(PTL_NAVMESH_LATTICE_POINTS, &s);
    ptl_query* q = make_query(nm);
    /* Grid cell (2, 2), whose least corner the point is, is blocked; the next direction, (-, +),
       is the free cell (1, 2): the point belongs to that region. */
    path_out o;
    find(q, 2, 2, 1.5, 2.5, PTL_PATH_EXACT, &o);
    cr_expect(o.res.found && fabs(o.res.length - sqrt(0.5)) < 1e-9, "into cell (1, 2): %.9f", o.res.length);
    /* To cell (2, 1) it must go around a blocked cell: three sides, then the half diagonal. */
    find(q, 2, 2, 2.5, 1.5, PTL_PATH_EXACT, &o);
    cr_expect(o.res.found && fabs(o.res.length - (3 + sqrt(0.5))) < 1e-9, "around: %.9f", o.res.length);
    /* Both ends on the pinch: same point. */
    find(q, 2, 2, 2, 2, PTL_PATH_EXACT, &o);
    cr_expect(o.res.found && o.res.length == 0);
    find(q, 2, 2, 2.5, 1.5, PTL_PATH_CORRIDOR, &o);
    cr_expect(o.res.found && o.res.length >= 3 + sqrt(0.5) - 1e-9);
    ptl_location loc;
    float p[3] = {2, 0, 2};
    cr_expect_eq(ptl_query_locate(q, p, NULL, &loc), PTL_OK);
    cr_expect(loc.distance == 0 && loc.point[0] == 2 && loc.point[2] == 2);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);

    /* The other diagonal: blocked (2,1) and (1,2), free (1,1) and (2,2); the point is cell (2, 2)'s. */
    ptl_grid g;
    ptl_error err;
    const char* text = "type octile\nheight 4\nwidth 4\nmap\n....\n..@.\n.@..\n....\n";
    cr_assert_geq(ptl_grid_parse(text, strlen(text), "pinch2", NULL, &g, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    ptl_grid_free(&g);
    nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
    q = make_query(nm);
    find(q, 2, 2, 2.5, 2.5, PTL_PATH_EXACT, &o);
    cr_expect(o.res.found && fabs(o.res.length - sqrt(0.5)) < 1e-9, "into cell (2, 2): %.9f", o.res.length);
    find(q, 2, 2, 1.5, 1.5, PTL_PATH_EXACT, &o);
    cr_expect(o.res.found && fabs(o.res.length - (3 + sqrt(0.5))) < 1e-9, "around to cell (1, 1): %.9f", o.res.length);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);
}

Test(query, ambiguous_point_without_lattice_flag_is_not_found) {
    ptl_shape s;
    ptl_navmesh* nm = pinch_navmesh(0, &s);
    ptl_query* q = make_query(nm);
    for (int mode = 0; mode < 2; ++mode) {
        path_out o;
        find(q, 2, 2, 0.5, 0.5, (ptl_path_mode)mode, &o);
        cr_expect_eq(o.status, PTL_ERR_NOT_FOUND, "start on the pinch: %s", ptl_status_name(o.status));
        cr_expect(!o.res.found && !o.res.complete && o.res.point_count == 0);
        find(q, 0.5, 0.5, 2, 2, (ptl_path_mode)mode, &o);
        cr_expect_eq(o.status, PTL_ERR_NOT_FOUND, "goal on the pinch: %s", ptl_status_name(o.status));
        /* Next to it is fine. */
        find(q, 2.01, 1.99, 0.5, 0.5, (ptl_path_mode)mode, &o);
        cr_expect(o.res.found, "near the pinch: %s", ptl_status_name(o.status));
    }
    /* Locating the point itself still works: it is on the mesh. */
    ptl_location loc;
    float p[3] = {2, 0, 2};
    cr_expect_eq(ptl_query_locate(q, p, NULL, &loc), PTL_OK);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);
}

Test(query, truncated_output_reports_truncated) {
    test_shape t;
    room_with_pillar(&t);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    for (int mode = 0; mode < 2; ++mode) {
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        req.start[0] = 1, req.start[2] = 5, req.goal[0] = 9, req.goal[2] = 5;
        req.mode = (ptl_path_mode)mode;
        float pts[3 * 2] = {0};
        ptl_path_result res;
        memset(&res, 0, sizeof res);
        res.points = pts;
        res.point_capacity = 2;
        cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_TRUNCATED);
        cr_expect_eq(res.point_count, 2);
        cr_expect_eq(res.point_total, 4);
        cr_expect(res.found && fabs(res.length - (2 * sqrt(10) + 2)) < 1e-9, "the length is the whole path's");
        cr_expect(pts[0] == 1 && pts[2] == 5, "the first points are written");
        /* No buffer at all: counts only. */
        res.points = NULL;
        res.point_capacity = 0;
        cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_TRUNCATED);
        cr_expect(res.point_count == 0 && res.point_total == 4 && res.found);
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

Test(query, out_of_range_queries_fail_cleanly) {
    test_shape t;
    room_with_pillar(&t);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    path_out o;
    find(q, NAN, 1, 2, 2, PTL_PATH_EXACT, &o);
    cr_expect_eq(o.status, PTL_ERR_INVALID_ARG);
    find(q, 1, 1, 2, INFINITY, PTL_PATH_CORRIDOR, &o);
    cr_expect_eq(o.status, PTL_ERR_INVALID_ARG);
    cr_expect(!o.res.found && o.res.point_count == 0 && o.res.length == 0);
    find(q, 100, 100, 2, 2, PTL_PATH_EXACT, &o);
    cr_expect_eq(o.status, PTL_ERR_NOT_FOUND, "far away: %s", ptl_status_name(o.status));
    cr_expect(!o.res.found);
    find(q, 1, 1, -1e30, 5, PTL_PATH_EXACT, &o);
    cr_expect_eq(o.status, PTL_ERR_NOT_FOUND);
    /* Off the mesh but within the default extents (2, 4, 2): snapped. */
    find(q, -1.5, 5, 11, 5, PTL_PATH_EXACT, &o);
    cr_expect_eq(o.status, PTL_OK);
    cr_expect(o.res.found && o.res.points[0] == 0 && o.res.points[2] == 5, "snapped onto the wall x = 0");
    cr_expect(fabs(o.res.length - (2 * sqrt(17) + 2)) < 1e-9, "(0,5)->(10,5): %.9f", o.res.length);
    /* Inside the pillar: the nearest walls are 1 away. */
    find(q, 5, 5, 1, 1, PTL_PATH_EXACT, &o);
    cr_expect(o.res.found, "from inside the pillar: %s", ptl_status_name(o.status));

    ptl_path_request req;
    memset(&req, 0, sizeof req);
    req.start[0] = req.start[2] = 1, req.goal[0] = req.goal[2] = 2;
    ptl_path_result res;
    memset(&res, 0, sizeof res);
    req.radius = 0.5f;
    cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_ERR_UNSUPPORTED);
    cr_expect(!res.found);
    req.radius = 0;
    req.mode = (ptl_path_mode)7;
    cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_ERR_INVALID_ARG);
    req.mode = PTL_PATH_EXACT;
    req.extents[0] = -1;
    cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_ERR_INVALID_ARG);
    req.extents[0] = 0;
    res.point_capacity = 4; /* with a NULL buffer */
    cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_ERR_INVALID_ARG);
    res.point_capacity = 0;
    cr_expect_eq(ptl_query_find_path(NULL, &req, &res), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_find_path(q, NULL, &res), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_find_path(q, &req, NULL), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_TRUNCATED, "no buffer: counts only");
    cr_expect(res.found && res.point_total == 2);

    ptl_location loc;
    float p[3] = {NAN, 0, 0};
    cr_expect_eq(ptl_query_locate(q, p, NULL, &loc), PTL_ERR_INVALID_ARG);
    cr_expect_eq(loc.cell, PTL_NONE);
    cr_expect_eq(ptl_query_locate(NULL, p, NULL, &loc), PTL_ERR_INVALID_ARG);

    ptl_query* bad;
    ptl_query_desc d = {10, NULL};
    cr_expect_eq(ptl_query_create(nm, &d, &bad), PTL_ERR_INVALID_ARG, "max_nodes below 64");
    cr_expect_null(bad);
    cr_expect_eq(ptl_query_create(NULL, NULL, &bad), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_create(nm, NULL, NULL), PTL_ERR_INVALID_ARG);
    ptl_query_destroy(NULL);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

Test(query, start_equals_goal_is_a_path_of_length_zero) {
    test_shape t;
    room_with_pillar(&t);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    const double pts[][2] = {{3, 3}, {4, 4}, {0, 5}, {4, 5}, {10, 10}};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; ++i) {
        for (int mode = 0; mode < 2; ++mode) {
            path_out o;
            find(q, pts[i][0], pts[i][1], pts[i][0], pts[i][1], (ptl_path_mode)mode, &o);
            cr_expect_eq(o.status, PTL_OK);
            cr_expect(o.res.found && o.res.complete && o.res.length == 0);
            cr_expect_eq(o.res.point_total, 1, "a path from a point to itself is that point");
            cr_expect(o.res.points[0] == (float)pts[i][0] && o.res.points[2] == (float)pts[i][1]);
        }
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

Test(query, locate_returns_the_nearest_point_within_the_extents) {
    test_shape t;
    room_with_pillar(&t);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    ptl_location loc;
    float in[3] = {2.5f, 0, 7.25f};
    cr_assert_eq(ptl_query_locate(q, in, NULL, &loc), PTL_OK);
    cr_expect(loc.distance == 0 && loc.point[0] == 2.5f && loc.point[2] == 7.25f && loc.cell != PTL_NONE);
    float out[3] = {-1, 0, 3};
    cr_assert_eq(ptl_query_locate(q, out, NULL, &loc), PTL_OK);
    cr_expect(loc.point[0] == 0 && loc.point[2] == 3 && fabsf(loc.distance - 1) < 1e-6f);
    float corner[3] = {11, 0, -1};
    cr_assert_eq(ptl_query_locate(q, corner, NULL, &loc), PTL_OK);
    cr_expect(loc.point[0] == 10 && loc.point[2] == 0 && fabsf(loc.distance - sqrtf(2)) < 1e-6f);
    float pillar[3] = {5, 0, 4.5f};
    cr_assert_eq(ptl_query_locate(q, pillar, NULL, &loc), PTL_OK);
    cr_expect(loc.point[0] == 5 && loc.point[2] == 4 && fabsf(loc.distance - 0.5f) < 1e-6f, "(%g, %g)", loc.point[0],
              loc.point[2]);
    float high[3] = {3, 5, 3};
    cr_expect_eq(ptl_query_locate(q, high, NULL, &loc), PTL_ERR_NOT_FOUND, "5 above the mesh, extents 4");
    float ext[3] = {1, 1, 1};
    float off[3] = {-1.5f, 0, 5};
    cr_expect_eq(ptl_query_locate(q, off, ext, &loc), PTL_ERR_NOT_FOUND, "1.5 away, extents 1");
    float wide[3] = {100, 1, 100};
    cr_expect_eq(ptl_query_locate(q, off, wide, &loc), PTL_OK);
    cr_expect(loc.point[0] == 0 && loc.point[2] == 5);
    float huge[3] = {1e30f, 1e30f, 1e30f};
    cr_expect_eq(ptl_query_locate(q, off, huge, &loc), PTL_OK);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

Test(query, paths_start_and_end_on_vertices_and_edges) {
    test_shape t;
    room_with_pillar(&t);
    ptl_shape s = as_ptl_shape(&t, 0);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    /* Every pair of vertices and edge midpoints of the free space's boundary, both modes. */
    double pts[16][2];
    uint32_t n = 0;
    for (uint32_t v = 0; v < t.vert_count; ++v) {
        uint32_t w = ring_next(&s, v);
        pts[n][0] = t.xy[2 * v], pts[n][1] = t.xy[2 * v + 1], ++n;
        pts[n][0] = 0.5 * (t.xy[2 * v] + t.xy[2 * w]), pts[n][1] = 0.5 * (t.xy[2 * v + 1] + t.xy[2 * w + 1]), ++n;
    }
    for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = 0; j < n; ++j) {
            double want = reference_length(&s, pts[i][0], pts[i][1], pts[j][0], pts[j][1]);
            path_out o;
            find(q, pts[i][0], pts[i][1], pts[j][0], pts[j][1], PTL_PATH_EXACT, &o);
            cr_expect(o.res.found && fabs(o.res.length - want) < 1e-9, "(%g,%g)->(%g,%g): %.9f, reference %.9f", pts[i][0],
                      pts[i][1], pts[j][0], pts[j][1], o.res.length, want);
            find(q, pts[i][0], pts[i][1], pts[j][0], pts[j][1], PTL_PATH_CORRIDOR, &o);
            cr_expect(o.res.found && o.res.length >= want - 1e-9 && path_inside(&s, &o.res));
        }
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

Test(query, out_of_nodes_is_reported) {
    /* The pool recycles nodes (it holds the open ones and their ancestors), so a small room never
       runs out: it takes a 40 x 40 grid with a quarter of its cells blocked. */
    ptl_grid g;
    ptl_shape s = grid_shape(7, 40, 40, 25, &g);
    ptl_navmesh* nm = bake_ptl_shape(&s, s.flags);
    ptl_query *small, *big;
    ptl_query_desc d = {64, NULL};
    cr_assert_eq(ptl_query_create(nm, &d, &small), PTL_OK);
    cr_assert_eq(ptl_query_create(nm, NULL, &big), PTL_OK);
    uint64_t st = 3;
    int out = 0;
    for (int k = 0; k < 100; ++k) {
        int sx, sy, gx, gy;
        do sx = rng_int(&st, 0, 40), sy = rng_int(&st, 0, 40);
        while (!lattice_candidate(&g, sx, sy));
        do gx = rng_int(&st, 0, 40), gy = rng_int(&st, 0, 40);
        while (!lattice_candidate(&g, gx, gy));
        path_out o, ref;
        find(small, sx, sy, gx, gy, PTL_PATH_EXACT, &o);
        find(big, sx, sy, gx, gy, PTL_PATH_EXACT, &ref);
        if (o.status == PTL_ERR_OUT_OF_NODES) {
            ++out;
            cr_expect(!o.res.found && o.res.point_count == 0 && o.res.point_total == 0 && o.res.length == 0);
            cr_expect(ref.res.found || ref.status == PTL_PARTIAL, "the default pool is enough: %s", ptl_status_name(ref.status));
        } else {
            /* Whatever fits in 64 nodes is the same answer. */
            cr_expect_eq(o.res.found, ref.res.found);
            cr_expect(fabs(o.res.length - ref.res.length) < 1e-9);
        }
    }
    cr_expect_gt(out, 0, "64 nodes should not be enough for every query on this grid");
    ptl_query_destroy(small);
    ptl_query_destroy(big);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

/* ---- Allocation ------------------------------------------------------------------------------*/


Test(query, queries_do_not_allocate_after_create) {
    test_shape t;
    random_room(&t, 7);
    ptl_shape s = as_ptl_shape(&t, 0);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    tracking c = {0, -1, 0, 0};
    ptl_allocator a = {t_alloc, t_realloc, t_free, &c};
    ptl_query_desc d = {0, &a};
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, &d, &q), PTL_OK);
    long allocs = c.allocs + c.reallocs, frees = c.frees;
    cr_expect_gt(allocs, 0, "the query's memory comes from its allocator");
    uint64_t st = 11;
    for (int k = 0; k < 100; ++k) {
        double sx, sy, gx, gy;
        random_free_point(&s, &st, &sx, &sy);
        random_free_point(&s, &st, &gx, &gy);
        path_out o;
        find(q, sx, sy, gx, gy, (ptl_path_mode)(k & 1), &o);
        cr_expect(o.res.found);
        ptl_location loc;
        float p[3] = {(float)sx - 3, 0, (float)sy};
        ptl_query_locate(q, p, NULL, &loc);
    }
    cr_expect_eq(c.allocs + c.reallocs, allocs, "allocations during queries");
    cr_expect_eq(c.frees, frees, "frees during queries");
    ptl_query_destroy(q);
    cr_expect_eq(c.live_blocks, 0, "destroy frees everything");
    cr_expect_eq(c.live_bytes, 0, "destroy frees every byte it allocated");
    ptl_navmesh_destroy(nm);
}

Test(query, creation_survives_allocation_failures) {
    test_shape t;
    room_with_pillar(&t);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    bool succeeded = false;
    for (size_t n = 0; n < 64 && !succeeded; ++n) {
        tracking f = {0, (long)n, 0, 0}; /* its n-th call fails */
        ptl_allocator a = {t_alloc, t_realloc, t_free, &f};
        ptl_query_desc d = {0, &a};
        ptl_query* q = (ptl_query*)&f; /* must be reset to NULL on failure */
        ptl_status st = ptl_query_create(nm, &d, &q);
        if (st == PTL_OK) {
            succeeded = true;
            path_out o;
            find(q, 1, 5, 9, 5, PTL_PATH_EXACT, &o);
            cr_expect(o.res.found);
            ptl_query_destroy(q);
        } else {
            cr_expect_eq(st, PTL_ERR_NO_MEMORY, "failing after %zu allocations: %s", n, ptl_status_name(st));
            cr_expect_null(q);
        }
        cr_expect_eq(f.live_bytes, 0, "failing after %zu allocations leaks %zu bytes", n, f.live_bytes);
        cr_expect_eq(f.live_blocks, 0, "failing after %zu allocations: unbalanced", n);
    }
    cr_expect(succeeded, "creation never succeeded within 64 allocations");
    ptl_navmesh_destroy(nm);
}

/* ---- Real data: Polyanya's hand-made meshes and scenarios ------------------------------------*/

static const char* data_dir(void) {
    const char* env = getenv("PTL_DATA");
    const char* dir = env && *env ? env : "../shared/data";
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

Test(query, polyanya_test_meshes_match_the_euclidean_optimum) {
    const char* data = data_dir();
    if (!data) {
        fprintf(stderr, "SKIPPED query::polyanya_test_meshes_match_the_euclidean_optimum: ../shared/data is absent "
                        "(set PTL_DATA to its location)\n");
        cr_skip_test("shared data absent: ../shared/data (or $PTL_DATA) not found");
    }
    const char* names[] = {"square", "bad-ambig", "bad-collinear", "bad-collinear2-rot0", "bad-collinear2-rot45",
                           "bad-collinear2-rot90"};
    int rows = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char mesh[1024], scen[1024];
        snprintf(mesh, sizeof mesh, "%s/polyanya/meshes/tests/%s.mesh", data, names[i]);
        snprintf(scen, sizeof scen, "%s/polyanya/scenarios/test/%s.scen", data, names[i]);
        ptl_shape s;
        ptl_error err;
        cr_assert_geq(ptl_mesh2d_load(mesh, NULL, &s, &err), 0, "%s", err.message);
        ptl_navmesh* nm = bake_ptl_shape(&s, s.flags);
        ptl_query* q = make_query(nm);
        ptl_query_set qs;
        cr_assert_geq(ptl_scen_load(scen, NULL, &qs, &err), 0, "%s", err.message);
        for (uint32_t k = 0; k < qs.count; ++k, ++rows) {
            const ptl_query_item* it = &qs.items[k];
            path_out o;
            find(q, it->start[0], it->start[2], it->goal[0], it->goal[2], PTL_PATH_EXACT, &o);
            if (it->ref_length < 0) {
                cr_expect(!o.res.found, "%s row %u: expected no path (ambiguous point), got %.9f", names[i], k + 1,
                          o.res.length);
                continue;
            }
            cr_expect(o.res.found, "%s row %u: not found (%s)", names[i], k + 1, ptl_status_name(o.status));
            /* The file gives some lengths for the lattice points next to the scenario's points
               (bad-collinear: 6 + sqrt(2) for points 0.001 off (1, 1)); the reference here is the
               visibility graph of the mesh's free space, and the file's value must agree with it
               to the precision the file gives, or within 0.5% when it rounds to the lattice. */
            double want = reference_length(&s, it->start[0], it->start[2], it->goal[0], it->goal[2]);
            cr_expect(fabs(o.res.length - want) <= 1e-6 * (1 + want), "%s row %u: length %.12f, reference %.12f", names[i],
                      k + 1, o.res.length, want);
            cr_expect(fabs(o.res.length - it->ref_length) <= 5e-3 * it->ref_length, "%s row %u: length %.9f, file %.9f",
                      names[i], k + 1, o.res.length, it->ref_length);
        }
        ptl_query_set_free(&qs);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_shape_free(&s);
    }
    cr_expect_geq(rows, 9);
}
