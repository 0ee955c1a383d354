/* Raycast (runtime/raycast.c) against brute force on grid maps: the first parameter t at which the
   segment enters the open square of a blocked cell, leaves the map, or passes through a pinch (a
   lattice point where two diagonally opposite cells are blocked and it goes from one free cell to
   the other); the segment along walls and through grazed corners goes on. */
#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_reference.h"

/* Entering parameter of segment p + t d (t in [0, 1]) into the open box (x0, x1) x (y0, y1), or
   INFINITY when it never enters its interior. */
static double enter_open_box(double px, double py, double dx, double dy, double x0, double y0, double x1, double y1) {
    double lo = 0, hi = 1;
    const double p[2] = {px, py}, d[2] = {dx, dy}, a[2] = {x0, y0}, b[2] = {x1, y1};
    for (int k = 0; k < 2; ++k) {
        if (d[k] == 0) {
            if (!(p[k] > a[k] && p[k] < b[k])) return INFINITY;
            continue;
        }
        double t0 = (a[k] - p[k]) / d[k], t1 = (b[k] - p[k]) / d[k];
        if (t0 > t1) {
            double x = t0;
            t0 = t1, t1 = x;
        }
        lo = fmax(lo, t0), hi = fmin(hi, t1);
    }
    return lo < hi ? lo : INFINITY;
}

static bool blocked(const ptl_grid* g, long x, long y) { return !grid_free(g, (int)x, (int)y); }

/* The first contact of segment s -> e with the walls of the grid's free space (INFINITY: none). */
static double brute_ray(const ptl_grid* g, double sx, double sy, double ex, double ey) {
    double dx = ex - sx, dy = ey - sy, best = INFINITY;
    long x0 = (long)floor(fmin(sx, ex)) - 1, x1 = (long)floor(fmax(sx, ex)) + 1;
    long y0 = (long)floor(fmin(sy, ey)) - 1, y1 = (long)floor(fmax(sy, ey)) + 1;
    for (long y = y0; y <= y1; ++y)
        for (long x = x0; x <= x1; ++x)
            if (blocked(g, x, y)) best = fmin(best, enter_open_box(sx, sy, dx, dy, x, y, x + 1, y + 1));
    /* pinches the segment passes through exactly, from one free cell to the opposite one */
    for (long y = y0 + 1; y <= y1; ++y)
        for (long x = x0 + 1; x <= x1; ++x) {
            bool a = blocked(g, x - 1, y - 1), b = blocked(g, x, y - 1), c = blocked(g, x - 1, y), d = blocked(g, x, y);
            bool pinch = (a && d && !b && !c) || (b && c && !a && !d);
            if (!pinch || orient(sx, sy, ex, ey, x, y) != 0) continue;
            double t = fabs(dx) > fabs(dy) ? (x - sx) / dx : (y - sy) / dy;
            /* through the point, not just to it or from it */
            if (t > 0 && t < 1 && dx != 0 && dy != 0) best = fmin(best, t);
        }
    return best;
}

Test(raycast, matches_brute_force_on_random_grids, .timeout = 120) {
    int hits = 0, misses = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        ptl_grid g;
        ptl_shape s = grid_shape(4000 + seed, 20, 20, 25, &g);
        ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
        ptl_query* q = make_query(nm);
        uint64_t st = seed * 31;
        uint32_t cells[256];
        for (int i = 0; i < 200; ++i) {
            double sx, sy, ex, ey;
            /* a start strictly inside a free cell; an end anywhere (often on lattice lines) */
            do sx = rng_int(&st, 1, 159) / 8.0, sy = rng_int(&st, 1, 159) / 8.0;
            while (!grid_free(&g, (int)sx, (int)sy) || sx == floor(sx) || sy == floor(sy));
            ex = rng_int(&st, 0, 160) / 8.0, ey = rng_int(&st, 0, 160) / 8.0;
            float a[3] = {(float)sx, 0, (float)sy}, b[3] = {(float)ex, 0, (float)ey};
            ptl_raycast_hit h = {.cells = cells, .cell_capacity = 256};
            ptl_status status = ptl_query_raycast(q, a, b, NULL, &h);
            cr_assert(status == PTL_OK, "%s", ptl_status_name(status));
            double t = brute_ray(&g, sx, sy, ex, ey);
            /* an agent that knows its cell casts the same ray without locating; a cell that does not
               hold the start is located instead */
            ptl_raycast_hit hk = {0}, hw = {0};
            cr_assert_eq(ptl_query_raycast_in(q, h.start_cell, a, b, &hk), PTL_OK);
            cr_assert(hk.hit == h.hit && hk.t == h.t && hk.end_cell == h.end_cell && hk.start_cell == h.start_cell,
                      "grid %lu (%g, %g)->(%g, %g): with the start's cell, hit %d t %g end %u; located: hit %d t %g end %u",
                      (unsigned long)seed, sx, sy, ex, ey, hk.hit, hk.t, hk.end_cell, h.hit, h.t, h.end_cell);
            ptl_navmesh_info info;
            ptl_navmesh_get_info(nm, &info);
            const uint32_t other = (h.start_cell + 1 + (uint32_t)i) % info.cell_count;
            cr_assert_eq(ptl_query_raycast_in(q, other, a, b, &hw), PTL_OK);
            cr_assert(hw.hit == h.hit && hw.t == h.t && hw.end_cell == h.end_cell);
            cr_assert_eq(h.hit, !isinf(t), "grid %lu (%g, %g)->(%g, %g): hit %d, brute t %g", (unsigned long)seed, sx, sy, ex, ey, h.hit, t);
            if (!h.hit) {
                cr_assert(h.t == 1 && h.point[0] == b[0] && h.point[2] == b[2]);
                ++misses;
                continue;
            }
            cr_assert(fabs(h.t - t) < 1e-6, "grid %lu (%g, %g)->(%g, %g): t %.9f, brute %.9f", (unsigned long)seed, sx, sy, ex, ey,
                      h.t, t);
            cr_assert(fabs(hypot(h.normal[0], h.normal[2]) - 1) < 1e-6 && h.normal[1] == 0);
            /* the normal of a grid wall is axis-aligned and faces the start's side */
            cr_assert((h.normal[0] * (sx - h.point[0]) + h.normal[2] * (sy - h.point[2])) >= -1e-6);
            cr_assert(h.cell_count >= 1 && h.cell_count <= 256 && cells[0] == h.start_cell && cells[h.cell_count - 1] == h.end_cell,
                      "count %u first %u start %u last %u end %u", h.cell_count, cells[0], h.start_cell, cells[h.cell_count ? h.cell_count - 1 : 0], h.end_cell);
            ++hits;
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    cr_assert_gt(hits, 200, "hits %d misses %d", hits, misses);
    cr_assert_gt(misses, 100, "hits %d misses %d", hits, misses);
}

Test(raycast, along_walls_through_corners_pinches_and_bad_input) {
    ptl_grid g;
    ptl_error err;
    /* 4 x 4, blocked (1,1) and (2,2): a pinch at (2, 2) */
    const char* text = "type octile\nheight 4\nwidth 4\nmap\n....\n.@..\n..@.\n....\n";
    cr_assert_geq(ptl_grid_parse(text, strlen(text), "pinch", NULL, &g, &err), 0, "%s", err.message);
    ptl_shape s;
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
    ptl_query* q = make_query(nm);
    ptl_raycast_hit h;
    memset(&h, 0, sizeof h);
    /* along the wall y = 1 from (0.5, 1) to (3.5, 1): the bottom of (1,1) is its boundary: no hit */
    cr_assert_eq(ptl_query_raycast(q, (float[3]){0.5f, 0, 1}, (float[3]){3.5f, 0, 1}, NULL, &h), PTL_OK);
    cr_expect(!h.hit && h.t == 1);
    /* into the block: from (0.5, 1.5) along +x, stops at x = 1 with the normal (-1, 0) */
    cr_assert_eq(ptl_query_raycast(q, (float[3]){0.5f, 0, 1.5f}, (float[3]){3.5f, 0, 1.5f}, NULL, &h), PTL_OK);
    cr_expect(h.hit && fabsf(h.point[0] - 1) < 1e-6 && h.normal[0] == -1 && h.normal[2] == 0, "%g (%g %g)", h.point[0], h.normal[0],
              h.normal[2]);
    /* through the pinch (2, 2) from (1.5, 2.5) to (2.5, 1.5): stops at the pinch */
    cr_assert_eq(ptl_query_raycast(q, (float[3]){1.5f, 0, 2.5f}, (float[3]){2.5f, 0, 1.5f}, NULL, &h), PTL_OK);
    cr_expect(h.hit && fabsf(h.t - 0.5f) < 1e-6, "t %g", h.t);
    /* a zero-length ray */
    cr_assert_eq(ptl_query_raycast(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){0.5f, 0, 0.5f}, NULL, &h), PTL_OK);
    cr_expect(!h.hit && h.t == 1);
    /* cells that do not fit */
    uint32_t one[1];
    h.cells = one, h.cell_capacity = 1;
    cr_assert_eq(ptl_query_raycast(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){3.5f, 0, 3.5f}, NULL, &h), PTL_TRUNCATED);
    cr_expect(h.cell_count > 1);
    /* bad input */
    cr_expect_eq(ptl_query_raycast(q, (float[3]){NAN, 0, 0}, (float[3]){1, 0, 1}, NULL, &h), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_raycast(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){1, 0, 1}, NULL, NULL), PTL_ERR_INVALID_ARG);
    h.cells = NULL, h.cell_capacity = 4;
    cr_expect_eq(ptl_query_raycast(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){1, 0, 1}, NULL, &h), PTL_ERR_INVALID_ARG);
    h.cells = NULL, h.cell_capacity = 0;
    cr_expect_eq(ptl_query_raycast(q, (float[3]){50, 0, 50}, (float[3]){1, 0, 1}, NULL, &h), PTL_ERR_NOT_FOUND);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}
