/* Queries at the edges of their contract: pinch points and the lattice rule, ambiguous points,
   truncated output, out-of-range and degenerate requests, point location, ends on vertices and
   edges, the node pool running out, and allocation (none after creation; failures at creation).
   The shared navmesh builders and the reference are in query_reference.h. */
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
    /* an agent radius: found, and with no point buffer truncated; a negative one is refused */
    req.radius = 0.5f;
    cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_TRUNCATED);
    cr_expect(res.found && res.point_count == 0 && res.point_total >= 2 && res.length >= sqrt(2) - 1e-9);
    req.radius = -0.5f;
    cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_ERR_INVALID_ARG);
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
    ptl_query_desc d = {.max_nodes = 10, .alloc = NULL};
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
    ptl_query_desc d = {.max_nodes = 64, .alloc = NULL};
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
    ptl_query_desc d = {.max_nodes = 0, .alloc = &a};
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
        ptl_query_desc d = {.max_nodes = 0, .alloc = &a};
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

/* The default pool (ptl_query_desc.max_nodes 0: sized by the navmesh) answers the pairs of
   Detour's 1,000 on the 3D meshes exactly as a pool of 2^20 nodes does: radius 0, and discs of 0.6
   and 2 (every 4th pair), both modes; and no disc search runs out of either (nav_test's did, on 2^20
   nodes: a sweep of sight cycled through windows of no width round a vertex where floors overlap). */
Test(query, the_default_pool_sized_by_the_navmesh_answers_like_a_large_one, .timeout = 600) {
    const char* dir = getenv("PTL_DATA") && *getenv("PTL_DATA") ? getenv("PTL_DATA") : "../shared/data";
    static const char* const meshes[] = {"dungeon", "nav_test", "undulating"};
    static const float radii[] = {0, 0.6f, 2};
    struct stat sb;
    if (stat(dir, &sb) != 0) cr_skip_test("shared data absent");
    for (int m = 0; m < 3; ++m) {
        char obj[1024], pairs[1024];
        snprintf(obj, sizeof obj, "%s/meshes/%s.obj", dir, meshes[m]);
        snprintf(pairs, sizeof pairs, "%s/expected/detour_queries/%s_findpath.csv", dir, meshes[m]);
        ptl_trimesh tm;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(obj, NULL, &tm, &err), PTL_OK, "%s", err.message);
        void* blob = NULL;
        size_t size = 0;
        cr_assert_eq(ptl_bake_trimesh(&tm, NULL, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
        ptl_navmesh* nm = NULL;
        cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
        ptl_query_set qs;
        cr_assert_eq(ptl_pairs_load(pairs, NULL, &qs, &err), PTL_OK, "%s", err.message);
        ptl_query *small = NULL, *large = NULL;
        ptl_query_desc d = ptl_query_desc_defaults();
        cr_assert_eq(ptl_query_create(nm, &d, &small), PTL_OK);
        cr_assert_eq(ptl_query_create(nm, &(ptl_query_desc){.max_nodes = 1u << 20}, &large), PTL_OK);
        static float pa[3 * 4096], pb[3 * 4096];
        uint32_t checked = 0;
        for (int k = 0; k < 3; ++k)
            for (int mode = 0; mode < 2; ++mode)
                for (uint32_t i = 0; i < qs.count; i += k ? 4 : 1) {
                    ptl_path_request req = {.radius = radii[k], .mode = mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT};
                    memcpy(req.start, qs.items[i].start, sizeof req.start);
                    memcpy(req.goal, qs.items[i].goal, sizeof req.goal);
                    ptl_path_result a = {.points = pa, .point_capacity = 4096}, b = {.points = pb, .point_capacity = 4096};
                    ptl_status sa = ptl_query_find_path(small, &req, &a), sl = ptl_query_find_path(large, &req, &b);
                    cr_assert_eq(sa, sl, "%s pair %u r %g mode %d: default pool %s, large %s", meshes[m], i, radii[k], mode,
                                 ptl_status_name(sa), ptl_status_name(sl));
                    cr_assert_neq(sl, PTL_ERR_OUT_OF_NODES, "%s pair %u r %g mode %d", meshes[m], i, radii[k], mode);
                    cr_assert(a.found == b.found && a.length == b.length && a.point_count == b.point_count,
                              "%s pair %u r %g mode %d: %.9g against %.9g", meshes[m], i, radii[k], mode, a.length, b.length);
                    ++checked;
                }
        ptl_query_destroy(small);
        ptl_query_destroy(large);
        ptl_query_set_free(&qs);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
        ptl_trimesh_free(&tm);
        cr_assert_geq(checked, 3000u);
    }
}
