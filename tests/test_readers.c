/* Tests of the 2D readers and of free space as polygons with holes: grid maps, Polyanya poly and
   mesh files (test_readers_sets.c: scenarios and pairs CSV, malformed inputs, ptl_shape_validate
   and ptl_shape_get_stats, allocation failures).

   Real data comes from ../shared/data (relative to the working directory) or $PTL_DATA; tests
   that need it skip loudly when it is absent. Malformed inputs live in tests/data/bad, listed in
   its README.md with the message each must produce. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <portolan/bake.h>

#include "reader_data.h"

/* ---- Grid maps ----------------------------------------------------------------------------------*/

Test(grid, grid_contours_area_equals_passable_cells_on_all_maps) {
    NEED_DATA(data);
    name_list maps = all_maps(data);
    cr_assert_gt(maps.count, 20, "expected the benchmark maps under %s", data);
    for (size_t i = 0; i < maps.count; ++i) {
        const char* path = maps.names[i];
        ptl_grid g;
        ptl_shape s;
        ptl_error err;
        cr_assert_eq(ptl_grid_load(path, NULL, &g, &err), PTL_OK, "%s", err.message);
        long passable = count_passable_in_file(path);
        ptl_status st = ptl_shape_from_grid(&g, NULL, &s, &err);
        if (passable == 0) {
            cr_assert_eq(st, PTL_ERR_BAD_INPUT, "%s: a map without free cells must be BAD_INPUT", path);
            cr_assert(strstr(err.message, "no free cell"), "%s: %s", path, err.message);
            ptl_grid_free(&g);
            continue;
        }
        cr_assert_eq(st, PTL_OK, "%s: %s", path, err.message);
        ptl_shape_stats stats;
        ptl_shape_get_stats(&s, &stats);
        cr_assert_eq(stats.area, (double)passable, "%s: area %.1f, passable cells %ld", path, stats.area, passable);
        cr_assert_eq(ptl_shape_validate(&s, &err), PTL_OK, "%s: %s", path, err.message);
        cr_assert_eq(s.flags, (uint32_t)PTL_NAVMESH_LATTICE_POINTS, "%s", path);
        for (uint32_t v = 0; v < s.vert_count; ++v)
            cr_assert(s.xy[2 * v] == floor(s.xy[2 * v]) && s.xy[2 * v + 1] == floor(s.xy[2 * v + 1]),
                      "%s: vertex %u (%g, %g) is not a lattice point", path, v, s.xy[2 * v], s.xy[2 * v + 1]);
        uint32_t comps = free_components(&g);
        cr_assert_eq(stats.outer_rings, comps, "%s: %u outer rings but %u 4-connected free regions", path,
                     stats.outer_rings, comps);
        /* Every corner of free space is a vertex once, every pinch twice, nothing else. */
        long corners, pinches;
        lattice_corners(&g, &corners, &pinches);
        cr_assert_eq((long)s.vert_count, corners + 2 * pinches, "%s: %u vertices, expected %ld corners + 2 x %ld pinches",
                     path, s.vert_count, corners, pinches);
        cr_assert_leq(max_multiplicity(&s), 2, "%s: a point carries more than two vertices", path);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    free_list(&maps);
}

Test(grid, grid_pinch_duplicates_the_vertex_and_keeps_diagonal_regions_apart) {
    /* Both diagonal orientations of a 2x2 pinch: two regions, the centre vertex once in each. */
    static const char* const maps[2] = {"type octile\nheight 2\nwidth 2\nmap\n.@\n@.\n",
                                        "type octile\nheight 2\nwidth 2\nmap\n@.\n.@\n"};
    for (int m = 0; m < 2; ++m) {
        ptl_grid g;
        ptl_shape s;
        grid_shape(maps[m], &g, &s);
        ptl_shape_stats st;
        ptl_shape_get_stats(&s, &st);
        cr_assert_eq(s.ring_count, 2, "map %d", m);
        cr_assert_eq(st.outer_rings, 2);
        cr_assert_eq(st.holes, 0);
        cr_assert_eq(st.area, 2.0);
        cr_assert_eq(count_at(&s, 1, 1), 2, "the pinch point must appear once per region");
        for (uint32_t r = 0; r < 2; ++r) cr_assert_eq(ring_len(&s, r), 4);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
}

Test(grid, grid_pinch_between_a_hole_and_the_border_makes_one_ring_through_the_point_twice) {
    /* Blocked (1,1) and (2,2) touch at lattice point (2,2); (2,2) touches the map border. All free
       cells are one region, so one ring visits (2,2) twice and turns there both times. */
    ptl_grid g;
    ptl_shape s;
    grid_shape("type octile\nheight 3\nwidth 3\nmap\n...\n.@.\n..@\n", &g, &s);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(s.ring_count, 1);
    cr_assert_eq(st.outer_rings, 1);
    cr_assert_eq(st.area, 7.0);
    cr_assert_eq(count_at(&s, 2, 2), 2);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

Test(grid, grid_polyanya_hard_maps_have_one_outer_ring_per_region) {
    NEED_DATA(data);
    static const struct {
        const char* file;
        uint32_t outer, holes;
        double area;
    } cases[] = {{"hardmap-1.map", 1, 0, 7},  {"hardmap-4.map", 4, 0, 4}, {"hardmap-6.map", 4, 0, 36},
                 {"hardmap-7.map", 5, 1, 28}, {"hard.map", 2, 3, 62}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/polyanya/gridmaps/%s", data, cases[i].file);
        ptl_shape s;
        ptl_error err;
        cr_assert_eq(ptl_shape_load(path, NULL, &s, &err), PTL_OK, "%s", err.message);
        cr_assert_eq(ptl_shape_validate(&s, &err), PTL_OK, "%s", err.message);
        ptl_shape_stats st;
        ptl_shape_get_stats(&s, &st);
        cr_assert_eq(st.outer_rings, cases[i].outer, "%s: %u outer rings", path, st.outer_rings);
        cr_assert_eq(st.holes, cases[i].holes, "%s: %u holes", path, st.holes);
        cr_assert_eq(st.area, cases[i].area, "%s", path);
        ptl_shape_free(&s);
    }
}

Test(grid, grid_rings_start_at_their_first_edge_in_row_major_order_and_are_deterministic) {
    ptl_grid g;
    ptl_shape a, b;
    grid_shape("type octile\nheight 4\nwidth 5\nmap\n@....\n.....\n.@@..\n....@\n", &g, &a);
    ptl_error err;
    cr_assert_eq(ptl_shape_from_grid(&g, NULL, &b, &err), PTL_OK);
    cr_assert_eq(a.vert_count, b.vert_count);
    cr_assert_eq(a.ring_count, b.ring_count);
    cr_assert(!memcmp(a.xy, b.xy, a.vert_count * 2 * sizeof(double)));
    cr_assert(!memcmp(a.ring_start, b.ring_start, (a.ring_count + 1) * sizeof(uint32_t)));
    /* Ring 0 starts at the lowest, leftmost boundary point: (1, 0) since cell (0, 0) is blocked. */
    cr_assert_eq(a.xy[0], 1.0);
    cr_assert_eq(a.xy[1], 0.0);
    /* Ring starts come in row-major order of their first horizontal edge. */
    for (uint32_t r = 1; r < a.ring_count; ++r) {
        const double* p = &a.xy[2 * a.ring_start[r - 1]];
        const double* q = &a.xy[2 * a.ring_start[r]];
        cr_assert(p[1] < q[1] || (p[1] == q[1] && p[0] < q[0]), "ring %u starts before ring %u", r, r - 1);
    }
    ptl_shape_stats st;
    ptl_shape_get_stats(&a, &st);
    cr_assert_eq(st.area, 16.0);
    cr_assert_eq(st.holes, 1); /* the 2x1 block; the corner cells (0,0) and (4,3) touch the border */
    ptl_shape_free(&a);
    ptl_shape_free(&b);
    ptl_grid_free(&g);
}

Test(grid, grid_parse_accepts_crlf_any_header_order_and_trailing_blank_lines) {
    const char* text = "width 3\r\ntype octile\r\nheight 2\r\nmap\r\n.G.\r\nS@T\r\n\r\n   \r\n";
    ptl_grid g;
    parse_grid_text(text, &g);
    cr_assert_eq(g.width, 3);
    cr_assert_eq(g.height, 2);
    static const uint8_t want[6] = {1, 1, 1, 1, 0, 0};
    cr_assert(!memcmp(g.passable, want, 6), "passable: '.', 'G', 'S'; blocked: everything else");
    ptl_grid_free(&g);
}

Test(grid, grid_parse_names_line_and_column_of_a_bad_byte) {
    const char* text = "type octile\nheight 2\nwidth 3\nmap\n...\n.\x80.\n";
    ptl_grid g;
    ptl_error err;
    cr_assert_eq(ptl_grid_parse(text, strlen(text), "x.map", NULL, &g, &err), PTL_ERR_PARSE);
    cr_assert(strstr(err.message, "x.map:6: column 2: unexpected byte 0x80"), "%s", err.message);
}

Test(grid, grid_without_free_cells_is_bad_input_not_a_parse_error) {
    ptl_grid g;
    ptl_shape s;
    ptl_error err;
    parse_grid_text("type octile\nheight 1\nwidth 2\nmap\n@T\n", &g);
    cr_assert_eq(ptl_shape_from_grid(&g, NULL, &s, &err), PTL_ERR_BAD_INPUT);
    cr_assert_str_eq(err.message, "map has no free cell");
    ptl_grid_free(&g);
}

/* ---- Meshes -------------------------------------------------------------------------------------*/

static name_list all_meshes(const char* data) {
    char path[1024];
    snprintf(path, sizeof path, "%s/polyanya/meshes", data);
    name_list a = list_files(path, ".mesh");
    snprintf(path, sizeof path, "%s/polyanya/meshes/tests", data);
    name_list b = list_files(path, ".mesh");
    for (size_t i = 0; i < b.count; ++i) {
        a.names = realloc(a.names, (a.count + 1) * sizeof *a.names);
        a.names[a.count++] = b.names[i];
    }
    free(b.names);
    return a;
}

Test(mesh, mesh_free_space_area_equals_sum_of_polygon_areas_on_all_meshes) {
    NEED_DATA(data);
    name_list meshes = all_meshes(data);
    cr_assert_geq(meshes.count, 8, "expected Polyanya's meshes under %s", data);
    for (size_t i = 0; i < meshes.count; ++i) {
        ptl_shape s;
        ptl_error err;
        cr_assert_eq(ptl_shape_load(meshes.names[i], NULL, &s, &err), PTL_OK, "%s", err.message);
        cr_assert_eq(ptl_shape_validate(&s, &err), PTL_OK, "%s: %s", meshes.names[i], err.message);
        ptl_shape_stats st;
        ptl_shape_get_stats(&s, &st);
        double want = mesh_polygon_area(meshes.names[i]);
        /* The reader rounds coordinates to floats (bake.h): the area moves by about 2^-24 of
           it at most. */
        cr_assert(fabs(st.area - want) <= 1e-6 * fmax(1, want), "%s: area %.12g, polygons sum to %.12g",
                  meshes.names[i], st.area, want);
        cr_assert_eq(s.flags, 0u);
        ptl_shape_free(&s);
    }
    free_list(&meshes);
}

/* Polyanya's meshes of arena, aurora and hard are built from the grid maps of the same name: the
   free space, and after merging collinear runs the very same vertices, must come out of both. */
Test(mesh, mesh_and_grid_of_the_same_map_give_the_same_vertices) {
    NEED_DATA(data);
    static const char* const pairs[][2] = {{"polyanya/meshes/tests/hard.mesh", "polyanya/gridmaps/hard.map"},
                                           {"polyanya/meshes/arena.mesh", "polyanya/gridmaps/arena.map"},
                                           {"polyanya/meshes/aurora-merged.mesh", "polyanya/gridmaps/aurora.map"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
        char pm[1024], pg[1024];
        snprintf(pm, sizeof pm, "%s/%s", data, pairs[i][0]);
        snprintf(pg, sizeof pg, "%s/%s", data, pairs[i][1]);
        ptl_shape m, g;
        ptl_error err;
        cr_assert_eq(ptl_shape_load(pm, NULL, &m, &err), PTL_OK, "%s", err.message);
        cr_assert_eq(ptl_shape_load(pg, NULL, &g, &err), PTL_OK, "%s", err.message);
        cr_assert_eq(m.vert_count, g.vert_count, "%s: %u vertices, %s: %u", pm, m.vert_count, pg, g.vert_count);
        cr_assert_eq(m.ring_count, g.ring_count, "%s vs %s", pm, pg);
        qsort(m.xy, m.vert_count, 2 * sizeof(double), cmp_xy);
        qsort(g.xy, g.vert_count, 2 * sizeof(double), cmp_xy);
        cr_assert(!memcmp(m.xy, g.xy, m.vert_count * 2 * sizeof(double)), "%s vs %s: vertex sets differ", pm, pg);
        ptl_shape_free(&m);
        ptl_shape_free(&g);
    }
}

/* bad-collinear2 at 0, 45 and 90 degrees is one shape: the rotated copy's "collinear" points are
   collinear only up to rounding and must merge all the same. */
Test(mesh, mesh_rotated_copies_have_the_same_corners) {
    NEED_DATA(data);
    static const char* const rot[3] = {"rot0", "rot45", "rot90"};
    ptl_shape_stats st[3];
    for (int i = 0; i < 3; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/polyanya/meshes/tests/bad-collinear2-%s.mesh", data, rot[i]);
        ptl_shape s;
        ptl_error err;
        cr_assert_eq(ptl_shape_load(path, NULL, &s, &err), PTL_OK, "%s", err.message);
        cr_assert_eq(s.vert_count, 16, "%s: %u vertices", path, s.vert_count);
        ptl_shape_get_stats(&s, &st[i]);
        ptl_shape_free(&s);
    }
    for (int i = 1; i < 3; ++i) {
        cr_assert_eq(st[i].notches, st[0].notches);
        /* equal up to the readers' rounding to floats (bake.h) */
        cr_assert(fabs(st[i].area - st[0].area) < 1e-6 * st[0].area);
    }
}

/* Two triangles of free space touching only at (1, 1), and two obstacles touching at a vertex. */
Test(mesh, mesh_regions_touching_at_a_vertex_stay_apart) {
    const char* two = "mesh\n2\n5 2\n0 0 1 0\n1 0 1 0\n1 1 2 0 1\n2 1 1 1\n2 2 1 1\n"
                      "3 0 1 2 -1 -1 -1\n3 2 3 4 -1 -1 -1\n";
    ptl_shape s;
    ptl_error err;
    cr_assert_eq(ptl_mesh2d_parse(two, strlen(two), "two.mesh", NULL, &s, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_shape_validate(&s, &err), PTL_OK, "%s", err.message);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.outer_rings, 2);
    cr_assert_eq(count_at(&s, 1, 1), 2);
    ptl_shape_free(&s);

    /* Free cells SE [1,2]x[0,1] and NW [0,1]x[1,2] meeting at (1, 1), the SE one extended by a
       triangle below it (a real neighbour), so the pinch is between polygons of different sizes. */
    const char* pinch = "mesh\n2\n8 3\n"
                        "1 0 0\n2 0 0\n2 1 0\n1 1 0\n0 1 0\n0 2 0\n1 2 0\n1.5 -1 0\n"
                        "4 0 1 2 3 -1 2 -1 -1\n"  /* SE cell; polygon 2 across 0 -> 1 */
                        "4 4 3 6 5 -1 -1 -1 -1\n" /* NW cell */
                        "3 1 0 7 -1 0 -1\n";      /* the triangle; polygon 0 across 1 -> 0 */
    cr_assert_eq(ptl_mesh2d_parse(pinch, strlen(pinch), "pinch.mesh", NULL, &s, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_shape_validate(&s, &err), PTL_OK, "%s", err.message);
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.outer_rings, 2);
    cr_assert_eq(count_at(&s, 1, 1), 2);
    ptl_shape_free(&s);
}

/* Version 3 (vleue/polyanya meshes/v3/format.txt): 1-based vertex ids, a traversable flag per face,
   signed neighbour ids. A 4x4 square cut into four triangles around its centre, the bottom one an
   obstacle: free space is the other three, area 12, one ring with one notch at the centre. */
Test(mesh, mesh_version_3_takes_the_union_of_traversable_faces) {
    const char* v3 = "mesh\n3\n5 4\n0 0\n4 0\n4 4\n0 4\n2 2\n"
                     "0 3 1 2 5 -4 0 -2\n"
                     "1 3 2 3 5 -1 0 3\n"
                     "1 3 3 4 5 2 0 4\n"
                     "1 3 4 1 5 3 0 -1\n";
    ptl_shape s;
    ptl_error err;
    cr_assert_eq(ptl_mesh2d_parse(v3, strlen(v3), "v3.mesh", NULL, &s, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_shape_validate(&s, &err), PTL_OK, "%s", err.message);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_expect_eq(st.area, 12.0);
    cr_expect_eq(st.outer_rings, 1);
    cr_expect_eq(st.holes, 0);
    cr_expect_eq(s.vert_count, 5);
    cr_expect_eq(st.notches, 1);
    ptl_shape_free(&s);
    /* The same mesh with every face traversable is the whole square. */
    char all[256];
    snprintf(all, sizeof all, "%s", v3);
    char* first_face = strstr(all, "0 3 1 2 5");
    first_face[0] = '1';
    cr_assert_eq(ptl_mesh2d_parse(all, strlen(all), "v3all.mesh", NULL, &s, &err), PTL_OK, "%s", err.message);
    ptl_shape_get_stats(&s, &st);
    cr_expect_eq(st.area, 16.0);
    cr_expect_eq(s.vert_count, 4);
    ptl_shape_free(&s);
    /* Vertex ids count from 1: 0 is out of range; the flag is 0 or 1. */
    const char* zero = "mesh\n3\n3 1\n0 0\n1 0\n0 1\n1 3 0 1 2 0 0 0\n";
    cr_expect_eq(ptl_mesh2d_parse(zero, strlen(zero), "zero.mesh", NULL, &s, &err), PTL_ERR_PARSE);
    cr_expect(strstr(err.message, "zero.mesh:7"), "%s", err.message);
    const char* flag = "mesh\n3\n3 1\n0 0\n1 0\n0 1\n2 3 1 2 3 0 0 0\n";
    cr_expect_eq(ptl_mesh2d_parse(flag, strlen(flag), "flag.mesh", NULL, &s, &err), PTL_ERR_PARSE);
    cr_expect(strstr(err.message, "traversable flag"), "%s", err.message);
}

/* ---- Polygons -----------------------------------------------------------------------------------*/

Test(poly, poly_square_with_square_hole_has_exact_area) {
    ptl_shape s;
    poly_shape("poly\n1\n2\n4 0 0 4 0 4 4 0 4\n4 1 1 3 1 3 3 1 3\n", &s);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.area, 12.0);
    cr_assert_eq(st.outer_rings, 1);
    cr_assert_eq(st.holes, 1);
    cr_assert_eq(st.notches, 4);
    ptl_shape_free(&s);
}

Test(poly, poly_crossing_squares_give_their_symmetric_difference) {
    ptl_shape s;
    poly_shape("poly\n1\n2\n4 0 0 2 0 2 2 0 2\n4 1 1 3 1 3 3 1 3\n", &s);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.area, 6.0); /* 4 + 4 - 2 x 1 */
    /* Two L shapes that touch at the crossing points (2, 1) and (1, 2). */
    cr_assert_eq(st.outer_rings, 2);
    cr_assert_eq(count_at(&s, 2, 1), 2);
    cr_assert_eq(count_at(&s, 1, 2), 2);
    ptl_shape_free(&s);

    /* A diagonal crossing: a square and a diamond over its corner; intersections at x.5. */
    poly_shape("poly\n1\n2\n4 0 0 2 0 2 2 0 2\n4 2 1 3 2 2 3 1 2\n", &s);
    ptl_shape_get_stats(&s, &st);
    cr_assert(fabs(st.area - (4 + 2 - 2 * 0.5)) < 1e-12, "area %.17g", st.area);
    ptl_shape_free(&s);
}

Test(poly, poly_nested_polygons_alternate_free_and_blocked) {
    ptl_shape s;
    poly_shape("poly\n1\n3\n4 0 0 6 0 6 6 0 6\n4 1 1 5 1 5 5 1 5\n4 2 2 4 2 4 4 2 4\n", &s);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.area, 36.0 - 16.0 + 4.0);
    cr_assert_eq(st.outer_rings, 2);
    cr_assert_eq(st.holes, 1);
    ptl_shape_free(&s);
}

Test(poly, poly_shared_edges_cancel_and_collinear_runs_merge) {
    ptl_shape s;
    /* Two unit squares side by side (one clockwise): the shared edge cancels, one 2x1 rectangle. */
    poly_shape("poly\n1\n2\n4 0 0 1 0 1 1 0 1\n4 1 0 1 1 2 1 2 0\n", &s);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.area, 2.0);
    cr_assert_eq(s.ring_count, 1);
    cr_assert_eq(s.vert_count, 4);
    ptl_shape_free(&s);

    /* A square with a triangle glued below along part of its bottom edge (T-contacts). */
    poly_shape("poly\n1\n2\n4 0 0 6 0 6 6 0 6\n3 0 0 3 -2 6 0\n", &s);
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.area, 42.0);
    cr_assert_eq(s.vert_count, 5);
    ptl_shape_free(&s);
}

Test(poly, poly_hole_touching_the_border_at_a_point_is_one_ring) {
    ptl_shape s;
    poly_shape("poly\n1\n2\n4 0 0 4 0 4 4 0 4\n4 2 0 3 1 2 2 1 1\n", &s);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.area, 14.0);
    cr_assert_eq(s.ring_count, 1);
    cr_assert_eq(count_at(&s, 2, 0), 2);
    ptl_shape_free(&s);
}

Test(poly, poly_squares_touching_at_a_corner_stay_two_regions) {
    ptl_shape s;
    poly_shape("poly\n1\n2\n4 0 0 1 0 1 1 0 1\n4 1 1 2 1 2 2 1 2\n", &s);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.area, 2.0);
    cr_assert_eq(st.outer_rings, 2);
    cr_assert_eq(count_at(&s, 1, 1), 2);
    ptl_shape_free(&s);
}

Test(poly, poly_input_orientation_does_not_matter) {
    ptl_shape a, b;
    poly_shape("poly\n1\n2\n4 0 0 4 0 4 4 0 4\n4 1 1 3 1 3 3 1 3\n", &a);
    poly_shape("poly\n1\n2\n4 0 4 4 4 4 0 0 0\n4 1 1 1 3 3 3 3 1\n", &b);
    ptl_shape_stats sa, sb;
    ptl_shape_get_stats(&a, &sa);
    ptl_shape_get_stats(&b, &sb);
    cr_assert_eq(sa.area, sb.area);
    cr_assert_eq(sa.holes, sb.holes);
    cr_assert_eq(sa.outer_rings, sb.outer_rings);
    ptl_shape_free(&a);
    ptl_shape_free(&b);
}

Test(poly, poly_overlapping_collinear_edges_of_different_polygons_cancel_exactly) {
    ptl_shape s;
    /* Rectangles [0,4]x[0,1] and [1,3]x[0,2]: bottoms overlap on [1,3]; XOR = 4 + 4 - 2 x 2. */
    poly_shape("poly\n1\n2\n4 0 0 4 0 4 1 0 1\n4 1 0 3 0 3 2 1 2\n", &s);
    ptl_shape_stats st;
    ptl_shape_get_stats(&s, &st);
    cr_assert_eq(st.area, 4.0);
    ptl_shape_free(&s);
}

/* A small deterministic generator for the randomized cases (same cases on every run). */
static uint32_t rng_next(uint64_t* s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* Rectangles on the integer lattice: their symmetric difference is a grid map (cell parity), so
   the poly path (splitting, cancelling, orienting, chaining) must give exactly the vertices and
   rings the grid tracer gives for that map, pinches included. */
Test(poly, poly_xor_of_random_rectangles_matches_the_grid_tracer) {
    uint64_t seed = 12345;
    enum { N = 12 };
    for (int iter = 0; iter < 300; ++iter) {
        int count = 1 + (int)(rng_next(&seed) % 7);
        char text[4096];
        int len = snprintf(text, sizeof text, "poly\n1\n%d\n", count);
        uint8_t parity[N * N];
        memset(parity, 0, sizeof parity);
        for (int r = 0; r < count; ++r) {
            int x0 = (int)(rng_next(&seed) % N), x1 = (int)(rng_next(&seed) % N);
            int y0 = (int)(rng_next(&seed) % N), y1 = (int)(rng_next(&seed) % N);
            if (x0 == x1) x1 = x0 + 1 < N ? x0 + 1 : x0 - 1;
            if (y0 == y1) y1 = y0 + 1 < N ? y0 + 1 : y0 - 1;
            if (x0 > x1) { int t = x0; x0 = x1; x1 = t; }
            if (y0 > y1) { int t = y0; y0 = y1; y1 = t; }
            for (int y = y0; y < y1; ++y)
                for (int x = x0; x < x1; ++x) parity[y * N + x] ^= 1;
            /* Alternate orientations to show it does not matter. */
            if (r & 1) len += snprintf(text + len, sizeof text - (size_t)len, "4 %d %d %d %d %d %d %d %d\n", x0, y0, x0, y1, x1, y1, x1, y0);
            else len += snprintf(text + len, sizeof text - (size_t)len, "4 %d %d %d %d %d %d %d %d\n", x0, y0, x1, y0, x1, y1, x0, y1);
        }
        char map[N * (N + 1) + 64];
        int ml = snprintf(map, sizeof map, "type octile\nheight %d\nwidth %d\nmap\n", N, N);
        int free_cells = 0;
        for (int y = 0; y < N; ++y) {
            for (int x = 0; x < N; ++x) {
                map[ml++] = parity[y * N + x] ? '.' : '@';
                free_cells += parity[y * N + x];
            }
            map[ml++] = '\n';
        }
        map[ml] = '\0';
        ptl_shape ps, gs;
        ptl_error err;
        ptl_status st = ptl_poly_parse(text, strlen(text), "rects.poly", NULL, &ps, &err);
        if (free_cells == 0) {
            cr_assert_eq(st, PTL_ERR_BAD_INPUT, "iteration %d: %s", iter, err.message);
            continue;
        }
        cr_assert_eq(st, PTL_OK, "iteration %d: %s\n%s", iter, err.message, text);
        cr_assert_eq(ptl_shape_validate(&ps, &err), PTL_OK, "iteration %d: %s\n%s", iter, err.message, text);
        ptl_grid g;
        grid_shape(map, &g, &gs);
        cr_assert_eq(ps.ring_count, gs.ring_count, "iteration %d: %u rings vs grid %u\n%s", iter, ps.ring_count,
                     gs.ring_count, text);
        cr_assert_eq(ps.vert_count, gs.vert_count, "iteration %d: %u vertices vs grid %u\n%s", iter, ps.vert_count,
                     gs.vert_count, text);
        qsort(ps.xy, ps.vert_count, 2 * sizeof(double), cmp_xy);
        qsort(gs.xy, gs.vert_count, 2 * sizeof(double), cmp_xy);
        cr_assert(!memcmp(ps.xy, gs.xy, ps.vert_count * 2 * sizeof(double)), "iteration %d: vertex sets differ\n%s",
                  iter, text);
        ptl_shape_free(&ps);
        ptl_shape_free(&gs);
        ptl_grid_free(&g);
    }
}

static int cmp_double(const void* pa, const void* pb) {
    double a = *(const double*)pa, b = *(const double*)pb;
    return (a > b) - (a < b);
}

/* Area of the symmetric difference by scanlines: on each line y, the x intervals of odd parity
   from the crossings of all polygon edges (a method independent of the reader's). Midpoint rule
   in y, so the reference has a small error of its own. */
static double xor_area_scanlines(const double* tri, int count, double y0, double y1, int rows) {
    double area = 0, h = (y1 - y0) / rows;
    double xs[64];
    for (int r = 0; r < rows; ++r) {
        double y = y0 + (r + 0.5) * h;
        int n = 0;
        for (int t = 0; t < count; ++t)
            for (int k = 0; k < 3; ++k) {
                const double* a = &tri[6 * t + 2 * k];
                const double* b = &tri[6 * t + 2 * ((k + 1) % 3)];
                if ((a[1] > y) != (b[1] > y)) xs[n++] = a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
            }
        qsort(xs, (size_t)n, sizeof(double), cmp_double);
        for (int i = 0; i + 1 < n; i += 2) area += (xs[i + 1] - xs[i]) * h;
    }
    return area;
}

/* Triangles with small integer corners cross, touch and overlap along edges all the time; their
   symmetric difference must be a valid shape with the scanline area. */
static void random_triangles_case(uint64_t* seed, int iter, uint32_t range, int max_count) {
    int count = 1 + (int)(rng_next(seed) % (uint32_t)max_count);
    double tri[6 * 24];
    char text[4096];
    int kept = 0;
    for (int t = 0; t < count; ++t) {
        double* p = &tri[6 * kept];
        for (int k = 0; k < 6; ++k) p[k] = (double)(rng_next(seed) % range);
        double a2 = (p[2] - p[0]) * (p[5] - p[1]) - (p[3] - p[1]) * (p[4] - p[0]);
        if (a2 != 0) ++kept;
    }
    if (kept == 0) return;
    int len = snprintf(text, sizeof text, "poly\n1\n%d\n", kept);
    for (int t = 0; t < kept; ++t) {
        const double* p = &tri[6 * t];
        len += snprintf(text + len, sizeof text - (size_t)len, "3 %g %g %g %g %g %g\n", p[0], p[1], p[2], p[3], p[4], p[5]);
    }
    double want = xor_area_scanlines(tri, kept, 0, (double)range, (int)range * 4096);
    ptl_shape s;
    ptl_error err;
    ptl_status st = ptl_poly_parse(text, strlen(text), "tris.poly", NULL, &s, &err);
    if (want < 1e-6) {
        cr_assert(st == PTL_ERR_BAD_INPUT || st == PTL_OK, "iteration %d: %s", iter, err.message);
        if (st == PTL_OK) ptl_shape_free(&s);
        return;
    }
    cr_assert_eq(st, PTL_OK, "iteration %d: %s\n%s", iter, err.message, text);
    cr_assert_eq(ptl_shape_validate(&s, &err), PTL_OK, "iteration %d: %s\n%s", iter, err.message, text);
    ptl_shape_stats stats;
    ptl_shape_get_stats(&s, &stats);
    cr_assert(fabs(stats.area - want) < 1e-4, "iteration %d: area %.9f, scanlines %.9f\n%s", iter, stats.area, want,
              text);
    ptl_shape_free(&s);
}

/* Triangles with small integer corners cross, touch and overlap along edges all the time, and
   their crossings are inexact; their symmetric difference must be a valid shape with the
   scanline area. The second, crowded series puts many crossings on top of T-contacts. */
Test(poly, poly_xor_of_random_triangles_is_valid_and_has_the_scanline_area) {
    uint64_t seed = 777;
    for (int iter = 0; iter < 300; ++iter) random_triangles_case(&seed, iter, 9, 6);
    seed = 99;
    for (int iter = 0; iter < 300; ++iter) random_triangles_case(&seed, iter, 4, 20);
}
