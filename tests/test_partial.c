/* Partial paths: an unreachable goal gives found = false, PTL_PARTIAL and the path to the reachable
   point nearest the goal (in plan). Checked on random grid maps, whose blocked squares wall regions
   off: the path ends at the brute-force nearest point of the start's region (cells reached
   through portals, found here from the public cell views) and is that point's shortest path (an
   exact query to it gives the same length). */
#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_reference.h"

/* The least distance in plan from (gx, gz) to the cells joined to `start` through portals. */
static double brute_nearest(const ptl_navmesh* nm, uint32_t start, double gx, double gz) {
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    uint32_t* queue = malloc(info.cell_count * sizeof *queue);
    uint8_t* seen = calloc(info.cell_count, 1);
    uint32_t head = 0, tail = 0;
    queue[tail++] = start, seen[start] = 1;
    double best = INFINITY;
    while (head < tail) {
        ptl_cell_view v;
        ptl_navmesh_get_cell(nm, queue[head++], &v);
        bool inside = true;
        for (uint32_t i = 0; i < v.vert_count; ++i) {
            const float* a = ptl_navmesh_vert(nm, v.verts[i]);
            const float* b = ptl_navmesh_vert(nm, v.verts[(i + 1) % v.vert_count]);
            double ex = b[0] - a[0], ez = b[2] - a[2], l2 = ex * ex + ez * ez;
            if (ex * (gz - a[2]) - ez * (gx - a[0]) < 0) inside = false;
            double t = l2 > 0 ? fmin(1, fmax(0, ((gx - a[0]) * ex + (gz - a[2]) * ez) / l2)) : 0;
            best = fmin(best, hypot(a[0] + t * ex - gx, a[2] + t * ez - gz));
            uint32_t n = v.neighbors[i];
            if (n != PTL_NONE && !seen[n]) seen[n] = 1, queue[tail++] = n;
        }
        if (inside) best = 0;
    }
    free(queue), free(seen);
    return best;
}

Test(partial, an_unreachable_goal_gives_the_shortest_path_to_the_nearest_reachable_point, .timeout = 120) {
    uint32_t partial = 0, reachable = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        ptl_grid g;
        ptl_shape s = grid_shape(8200 + seed, 24, 24, 33, &g);
        ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
        ptl_query* q = make_query(nm);
        uint64_t st = seed * 53;
        static float pts[3 * 512];
        static uint32_t cells[2048];
        for (int i = 0; i < 80; ++i) {
            double sx, sz, gx, gz;
            do sx = rng_int(&st, 0, 23) + 0.375, sz = rng_int(&st, 0, 23) + 0.625;
            while (!grid_free(&g, (int)sx, (int)sz));
            do gx = rng_int(&st, 0, 23) + 0.25, gz = rng_int(&st, 0, 23) + 0.75;
            while (!grid_free(&g, (int)gx, (int)gz));
            for (int mode = 0; mode < 2; ++mode) {
                ptl_path_request req = {.start = {(float)sx, 0, (float)sz}, .goal = {(float)gx, 0, (float)gz},
                                        .mode = mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT};
                ptl_path_result r = {.points = pts, .point_capacity = 512, .cells = cells, .cell_capacity = 2048};
                ptl_status status = ptl_query_find_path(q, &req, &r);
                if (status == PTL_OK) {
                    ++reachable;
                    continue;
                }
                char what[160];
                snprintf(what, sizeof what, "grid %lu %s (%g, %g) -> (%g, %g)", (unsigned long)seed, mode ? "corridor" : "exact",
                         sx, sz, gx, gz);
                cr_assert_eq(status, PTL_PARTIAL, "%s: %s", what, ptl_status_name(status));
                cr_assert(!r.found && !r.complete && r.point_count >= 1 && r.point_count == r.point_total, "%s", what);
                cr_assert(pts[0] == req.start[0] && pts[2] == req.start[2], "%s: starts at (%g, %g)", what, pts[0], pts[2]);
                /* it ends at a nearest point of the start's region */
                const float* end = &pts[3 * (r.point_count - 1)];
                double want = brute_nearest(nm, r.start_cell, gx, gz), got = hypot(end[0] - gx, end[2] - gz);
                cr_assert(want > 1e-9, "%s: the goal lies in the start's region (%g)", what, want);
                cr_assert(fabs(got - want) < 1e-5, "%s: ends %.9f from the goal, the nearest reachable point is %.9f", what,
                          got, want);
                /* the path's cells run from the start's to the end's, and the path is that point's shortest */
                cr_assert(r.cell_count >= 1 && r.cells[0] == r.start_cell, "%s", what);
                ptl_path_request to = req;
                memcpy(to.goal, end, sizeof to.goal);
                to.mode = PTL_PATH_EXACT;
                static float pts2[3 * 512];
                ptl_path_result r2 = {.points = pts2, .point_capacity = 512};
                double tol = 1e-6 * (1 + r.length);
                if (ptl_query_find_path(q, &to, &r2) != PTL_OK) {
                    /* an end on a pinch belongs to the region across it as a goal (the lattice rule):
                       ask for a point 1e-4 back along the last segment instead */
                    const float* prev = &pts[3 * (r.point_count - 2)];
                    double dx = prev[0] - end[0], dz = prev[2] - end[2], l = hypot(dx, dz);
                    cr_assert(r.point_count >= 2 && l > 0, "%s: the end point is not reachable", what);
                    to.goal[0] = (float)(end[0] + 1e-4 * dx / l), to.goal[2] = (float)(end[2] + 1e-4 * dz / l);
                    cr_assert_eq(ptl_query_find_path(q, &to, &r2), PTL_OK, "%s: the end point is not reachable", what);
                    tol = 2e-4 * (1 + r.length);
                }
                if (mode == 0)
                    cr_assert(fabs(r2.length - r.length) < tol, "%s: length %.9f, exact to its end %.9f", what, r.length,
                              r2.length);
                else
                    cr_assert(r.length >= r2.length - tol, "%s: corridor %.9f shorter than exact %.9f",
                              what, r.length, r2.length);
                double sum = 0;
                for (uint32_t k = 0; k + 1 < r.point_count; ++k)
                    sum += hypot(pts[3 * k + 3] - pts[3 * k], pts[3 * k + 5] - pts[3 * k + 2]);
                cr_assert(fabs(sum - r.length) < 1e-4 * (1 + sum), "%s: length %.9f, its points %.9f", what, r.length, sum);
                ++partial;
            }
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    fprintf(stderr, "partial: %u partial paths checked, %u reachable\n", partial, reachable);
    cr_assert_gt(partial, 100);
}

Test(partial, radius_paths_and_bad_ends_stay_as_they_were) {
    test_shape t;
    memset(&t, 0, sizeof t);
    const double a[] = {0, 0, 4, 0, 4, 4, 0, 4}, b[] = {6, 0, 10, 0, 10, 4, 6, 4};
    shape_ring(&t, a, 4);
    shape_ring(&t, b, 4);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    float pts[3 * 16];
    /* radius > 0: the path to the nearest point of the start's room, moved to keep the radius:
       (4, 2) on the room's wall -> (3.5, 2) */
    ptl_path_request req = {.start = {1, 0, 2}, .goal = {8, 0, 2}, .radius = 0.5f};
    ptl_path_result r = {.points = pts, .point_capacity = 16};
    cr_assert_eq(ptl_query_find_path(q, &req, &r), PTL_PARTIAL);
    cr_assert(!r.found && !r.complete && r.point_count >= 2, "%u points", r.point_count);
    const float* last = pts + 3 * (r.point_count - 1);
    cr_assert(fabsf(last[0] - 3.5f) < 1e-4f && fabsf(last[2] - 2) < 1e-4f && fabs(r.length - 2.5) < 1e-4, "ends at (%g, %g), length %g",
              last[0], last[2], r.length);
    /* radius 0, goal far outside both rooms: not found, no points */
    ptl_path_request far = {.start = {1, 0, 2}, .goal = {50, 0, 2}};
    cr_assert_eq(ptl_query_find_path(q, &far, &r), PTL_ERR_NOT_FOUND);
    cr_assert(!r.found && r.point_count == 0);
    /* truncated partial path: the count says how many there are */
    ptl_path_request around = {.start = {1, 0, 1}, .goal = {8, 0, 3}};
    ptl_path_result r1 = {.points = pts, .point_capacity = 1};
    cr_assert_eq(ptl_query_find_path(q, &around, &r1), PTL_PARTIAL);
    cr_assert(!r1.found && r1.point_count == 1 && r1.point_total == 2 && fabs(r1.length - hypot(3, 2)) < 1e-6);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

/* A disc too wide for a neck between two rooms (0.4 wide, radius 0.5): the path to the point of
   the near room nearest the goal that keeps the radius, just before the neck; the same in the
   corridor mode; every point keeps the radius from the neck's corners. */
Test(partial, a_disc_stopped_by_a_narrow_neck_gets_the_path_to_its_mouth) {
    test_shape t;
    memset(&t, 0, sizeof t);
    const double ring[] = {0, 0, 4.9, 0, 4.9, 1.8, 5.1, 1.8, 5.1, 0, 10, 0, 10, 4, 5.1, 4, 5.1, 2.2, 4.9, 2.2, 4.9, 4, 0, 4};
    shape_ring(&t, ring, 12);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    float pts[3 * 64];
    for (int mode = 0; mode < 2; ++mode) {
        ptl_path_request req = {.start = {1, 0, 2}, .goal = {8, 0, 2}, .radius = 0.5f,
                                .mode = mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT};
        ptl_path_result r = {.points = pts, .point_capacity = 64};
        cr_assert_eq(ptl_query_find_path(q, &req, &r), PTL_PARTIAL, "mode %d", mode);
        cr_assert(!r.found && r.point_count >= 2, "mode %d: %u points", mode, r.point_count);
        const float* last = pts + 3 * (r.point_count - 1);
        const double corner = 0.5 * 0.5 - 0.2 * 0.2;
        cr_assert(last[0] < 4.9f - 0.45f && last[0] > 4.9f - 0.6f && fabsf(last[2] - 2) < 0.05f, "mode %d: ends at (%g, %g)", mode,
                  last[0], last[2]);
        for (uint32_t i = 0; i < r.point_count; ++i) {
            const float* p = pts + 3 * i;
            double d1 = hypot(p[0] - 4.9, p[2] - 1.8), d2 = hypot(p[0] - 4.9, p[2] - 2.2);
            /* the room's walls (x = 4.9 beside the neck, z = 0 and 4, x = 0) and the neck's corners */
            const bool in_mouth = p[2] > 1.8 && p[2] < 2.2;
            const double x_max = in_mouth ? 4.9 - sqrt(corner) : 4.4;
            cr_assert(d1 >= 0.5 - 1e-5 && d2 >= 0.5 - 1e-5 && p[0] <= x_max + 1e-5 && p[0] >= 0.5 - 1e-5 && p[2] >= 0.5 - 1e-5 &&
                          p[2] <= 3.5 + 1e-5,
                      "mode %d: point %u (%g, %g) nearer than the radius to a wall", mode, i, p[0], p[2]);
        }
        /* radius 0 passes the neck */
        req.radius = 0;
        cr_assert_eq(ptl_query_find_path(q, &req, &r), PTL_OK);
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}
