/* Shared by the query tests (test_query.c, test_query_edges.c): navmeshes baked from hand-made
   free spaces, a path-finding wrapper, the reference (Dijkstra over the visibility graph of the free
   space's vertices, with an exact segment-in-free-space test) and random free spaces and grids. */
#ifndef PTL_TEST_QUERY_REFERENCE_H
#define PTL_TEST_QUERY_REFERENCE_H

#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Building navmeshes ------------------------------------------------------------------------*/

typedef struct test_shape {
    double xy[2 * 512];
    uint32_t vert_count;
    uint32_t ring_start[65];
    uint32_t ring_count;
} test_shape;

static inline void shape_ring(test_shape* s, const double* pts, uint32_t n) {
    if (s->ring_count == 0) s->ring_start[0] = 0;
    memcpy(s->xy + 2 * s->vert_count, pts, 2 * n * sizeof(double));
    s->vert_count += n;
    s->ring_start[++s->ring_count] = s->vert_count;
}

static inline ptl_shape as_ptl_shape(const test_shape* t, uint32_t flags) {
    ptl_shape s;
    memset(&s, 0, sizeof s);
    s.vert_count = t->vert_count;
    s.xy = (double*)t->xy;
    s.ring_count = t->ring_count;
    s.ring_start = (uint32_t*)t->ring_start;
    s.flags = flags;
    return s;
}

static inline ptl_navmesh* bake_ptl_shape(const ptl_shape* s, uint32_t flags) {
    ptl_error err;
    ptl_decomposition d;
    cr_assert_geq(ptl_decompose(s, NULL, &d, &err), 0, "decompose: %s", err.message);
    void* blob;
    size_t size;
    cr_assert_geq(ptl_bake_decomposition(&d, &(ptl_blob_desc){.flags = flags}, &blob, &size, &err), 0, "bake: %s", err.message);
    ptl_decomposition_free(&d);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "load: %s", err.message);
    ptl_blob_free(blob, size, NULL);
    return nm;
}

static inline ptl_navmesh* bake_test_shape(const test_shape* t, uint32_t flags) {
    ptl_shape s = as_ptl_shape(t, flags);
    ptl_error err;
    cr_assert_geq(ptl_shape_validate(&s, &err), 0, "test shape: %s", err.message);
    return bake_ptl_shape(&s, flags);
}

static inline ptl_query* make_query(const ptl_navmesh* nm) {
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    return q;
}

/* A 10 x 10 room with a 2 x 2 square obstacle in its middle. */
static inline void room_with_pillar(test_shape* s) {
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

static inline void find(ptl_query* q, double sx, double sz, double gx, double gz, ptl_path_mode mode, path_out* out) {
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

static inline double orient(double ax, double ay, double bx, double by, double cx, double cy) {
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static inline uint32_t ring_of(const ptl_shape* s, uint32_t v) {
    uint32_t r = 0;
    while (s->ring_start[r + 1] <= v) ++r;
    return r;
}

static inline uint32_t ring_next(const ptl_shape* s, uint32_t v) {
    uint32_t r = ring_of(s, v);
    return v + 1 == s->ring_start[r + 1] ? s->ring_start[r] : v + 1;
}

static inline uint32_t ring_prev(const ptl_shape* s, uint32_t v) {
    uint32_t r = ring_of(s, v);
    return v == s->ring_start[r] ? s->ring_start[r + 1] - 1 : v - 1;
}

/* Closed free space: on a ring edge, or inside by the even-odd rule. */
static inline bool in_free_space(const ptl_shape* s, double x, double y) {
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
static inline bool in_sector(const ptl_shape* s, uint32_t v, double dx, double dy) {
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
static inline bool visible(const ptl_shape* s, double px, double py, long pv, double qx, double qy, long qv) {
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
static inline long vertex_at(const ptl_shape* s, double x, double y) {
    for (uint32_t v = 0; v < s->vert_count; ++v)
        if (s->xy[2 * v] == x && s->xy[2 * v + 1] == y) return (long)v;
    return -1;
}

/* Shortest length from (sx, sy) to (gx, gy) in the free space; INFINITY when unreachable. */
static inline double reference_length(const ptl_shape* s, double sx, double sy, double gx, double gy) {
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
static inline bool passes_vertex(const ptl_shape* s, double x, double y, double ax, double ay, double bx, double by) {
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
static inline bool path_inside(const ptl_shape* s, const ptl_path_result* r) {
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

static inline double path_sum(const ptl_path_result* r) {
    double sum = 0;
    for (uint32_t k = 0; k + 1 < r->point_count; ++k) {
        const float* a = r->points + 3 * k;
        const float* b = r->points + 3 * k + 3;
        sum += hypot((double)b[0] - a[0], (double)b[2] - a[2]);
    }
    return sum;
}

/* ---- Random free spaces ------------------------------------------------------------------------*/

static inline uint32_t rng_next(uint64_t* st) {
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*st >> 33);
}
static inline int rng_int(uint64_t* st, int lo, int hi) { return lo + (int)(rng_next(st) % (uint32_t)(hi - lo + 1)); }

/* A 40 x 40 room with holes: rectangles, triangles and diamonds with integer corners inside boxes
   kept one unit apart (so the holes never touch). Integer coordinates make collinear and grazing
   configurations common, which is the point. */
static inline void random_room(test_shape* s, uint64_t seed) {
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
static inline void random_free_point(const ptl_shape* s, uint64_t* st, double* x, double* y) {
    do {
        *x = rng_int(st, 0, 160) / 4.0;
        *y = rng_int(st, 0, 160) / 4.0;
    } while (!in_free_space(s, *x, *y));
}

/* Small random grids: lattice points on walls and corners, pinches, collinear walls. */
static inline ptl_shape grid_shape(uint64_t seed, int w, int h, int blocked_percent, ptl_grid* g) {
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

static inline bool grid_free(const ptl_grid* g, int x, int y) {
    return x >= 0 && y >= 0 && x < (int)g->width && y < (int)g->height && g->passable[y * g->width + x];
}

/* The lattice point (x, y) with a free cell around it, not a pinch (those have their own test). */
static inline bool lattice_candidate(const ptl_grid* g, int x, int y) {
    int a = grid_free(g, x - 1, y - 1), b = grid_free(g, x, y - 1), c = grid_free(g, x - 1, y), d = grid_free(g, x, y);
    if ((a && d && !b && !c) || (b && c && !a && !d)) return false;
    return a || b || c || d;
}


#endif
