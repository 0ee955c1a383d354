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
#include "query_reference.h"

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

Test(query, unreachable_goal_gives_the_path_to_the_nearest_reachable_point) {
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
        /* found false, and the path to the reachable point nearest the goal: (4, 1) on room a's wall */
        cr_expect_eq(o.status, PTL_PARTIAL, "mode %d: %s", mode, ptl_status_name(o.status));
        cr_expect(!o.res.found && !o.res.complete);
        cr_expect_eq(o.res.point_count, 2);
        cr_expect_eq(o.res.point_total, 2);
        cr_expect(o.res.point_count == 2 && o.pts[3] == 4 && o.pts[5] == 1, "ends at (%g, %g)", o.pts[3], o.pts[5]);
        cr_expect(fabs(o.res.length - 3) < 1e-9, "length %g", o.res.length);
        cr_expect_neq(o.res.start_cell, PTL_NONE);
        /* Reachable within each room. */
        find(q, 7, 1, 9, 3, (ptl_path_mode)mode, &o);
        cr_expect(o.res.found && fabs(o.res.length - sqrt(8)) < 1e-9);
    }
    ptl_query_destroy(q);
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
