/* The 3D bake's input promise: meshes with degenerate, duplicated and intersecting triangles, and
   holes, bake correctly; NaN/Inf coordinates, out-of-range indices, empty files and a 1e7 m offset
   are baked correctly or refused with a clear message; nothing crashes. Meshes are built here from
   quads so the expected walkable area is known exactly. */
#include "test_util.h"

#include "mesh_builder.h"

/* Bakes with the defaults (cell 0.3, radius 0) and validates; returns the walkable area. */
static double bake_area(mesh_builder* b, const char* what) {
    ptl_trimesh m = as_trimesh(b);
    void* blob;
    size_t size;
    ptl_bake_stats st;
    ptl_error err;
    cr_assert_geq(ptl_bake_trimesh(&m, NULL, &blob, &size, &st, &err), 0, "%s: %s", what, err.message);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s: %s", what, err.message);
    cr_expect_geq(ptl_navmesh_validate(nm, &err), 0, "%s: %s", what, err.message);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    return st.walkable_area;
}

Test(bake3d_input, degenerate_duplicated_and_intersecting_triangles_bake_like_the_clean_floor) {
    mesh_builder* clean = calloc(1, sizeof *clean);
    floor_quad(clean, 0, 0, 12, 9, 0);
    double want = bake_area(clean, "clean floor");
    /* A floor in the air drops on every side: the ledge filter (Recast's rule) removes its border
       ring of columns, 40 x 30 columns of 0.3 m becoming 38 x 28. */
    cr_expect(fabs(want - 38 * 28 * 0.09) < 0.5, "a 12 x 9 floor bakes to %.3f m2", want);

    mesh_builder* messy = calloc(1, sizeof *messy);
    floor_quad(messy, 0, 0, 12, 9, 0);
    floor_quad(messy, 0, 0, 12, 9, 0);             /* every triangle twice */
    floor_quad(messy, 3, 2, 8, 7, 0);              /* coplanar overlap */
    uint32_t a = vert(messy, 1, 0, 1), c = vert(messy, 5, 0, 1);
    tri(messy, a, c, a);                           /* a degenerate triangle (repeated index) */
    uint32_t p = vert(messy, 2, 0, 2), q = vert(messy, 4, 0, 4), r = vert(messy, 6, 0, 6);
    tri(messy, p, q, r);                           /* a zero-area triangle (collinear) */
    uint32_t s = vert(messy, 2, -0.05f, 3), t = vert(messy, 10, 0.05f, 3), u = vert(messy, 10, 0.05f, 6);
    tri(messy, s, u, t);                           /* slightly tilted, cutting through the floor */
    double got = bake_area(messy, "messy floor");
    cr_expect(fabs(got - want) < 0.05 * want, "messy floor %.3f m2, clean %.3f m2", got, want);
    free(clean);
    free(messy);
}

Test(bake3d_input, a_floor_with_a_hole_and_intersecting_boxes_bakes_around_them) {
    mesh_builder* b = calloc(1, sizeof *b);
    /* A 12 x 12 floor made of four strips around a 4 x 4 hole. */
    floor_quad(b, 0, 0, 12, 4, 0);
    floor_quad(b, 0, 8, 12, 12, 0);
    floor_quad(b, 0, 4, 4, 8, 0);
    floor_quad(b, 8, 4, 12, 8, 0);
    /* Two boxes 3 m tall that intersect each other and the floor. */
    box(b, 1, -0.5f, 9, 3, 2.5f, 11);
    box(b, 2, -0.5f, 10, 4, 2.5f, 11.5f);
    ptl_trimesh m = as_trimesh(b);
    void* blob;
    size_t size;
    ptl_bake_stats st;
    ptl_error err;
    cr_assert_geq(ptl_bake_trimesh(&m, NULL, &blob, &size, &st, &err), 0, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s", err.message);
    cr_expect_geq(ptl_navmesh_validate(nm, &err), 0, "%s", err.message);
    /* Floor minus the hole and the boxes' union (7 m2), the border ring lost to ledges at most
       (outer 48 m and hole 16 m of edge, one 0.3 m column deep), plus the box tops at most. */
    double most = 144 - 16 - 7 + 7, least = 144 - 16 - 7 - (48 + 16) * 0.3 - 1;
    cr_expect(st.walkable_area <= most && st.walkable_area >= least, "walkable %.3f m2, expected %.1f..%.1f",
              st.walkable_area, least, most);
    ptl_query* q;
    cr_assert_geq(ptl_query_create(nm, NULL, &q), 0);
    const float small[3] = {0.5f, 0.5f, 0.5f};
    ptl_location loc;
    const float hole[3] = {6, 0, 6}, in_box[3] = {2.5f, 0, 10.5f}, floor_pt[3] = {6, 0, 1.5f};
    cr_expect_eq(ptl_query_locate(q, hole, small, &loc), PTL_ERR_NOT_FOUND, "the hole is not walkable");
    cr_expect_eq(ptl_query_locate(q, in_box, small, &loc), PTL_ERR_NOT_FOUND, "inside the boxes is not walkable");
    cr_expect_eq(ptl_query_locate(q, floor_pt, small, &loc), PTL_OK, "the floor is walkable");
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    free(b);
}

Test(bake3d_input, an_empty_mesh_and_a_far_offset_are_refused_with_a_message) {
    ptl_trimesh m;
    memset(&m, 0, sizeof m);
    void* blob;
    size_t size;
    ptl_error err;
    cr_expect_eq(ptl_bake_trimesh(&m, NULL, &blob, &size, NULL, &err), PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "no triangle"), "%s", err.message);
    /* 1e7 m from the origin, float spacing is 1 m: far coarser than a 0.2 m cell height. */
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 1e7f, 1e7f, 1e7f + 10, 1e7f + 10, 0);
    m = as_trimesh(b);
    ptl_status st = ptl_bake_trimesh(&m, NULL, &blob, &size, NULL, &err);
    if (st >= 0) {
        ptl_blob_free(blob, size, NULL);
        cr_expect(0, "a floor 1e7 m away should be refused (float precision), it baked");
    } else {
        cr_expect_eq(st, PTL_ERR_BAD_INPUT);
        cr_expect(strstr(err.message, "precision") || strstr(err.message, "float"), "%s", err.message);
    }
    free(b);
}

Test(bake3d_input, malformed_obj_files_fail_cleanly_through_the_whole_bake) {
    const char* texts[] = {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4\n", "v 0 0 0\nv nan 0 0\nv 0 0 1\nf 1 2 3\n",
                           "v 0 0 0\nv inf 0 0\nv 0 0 1\nf 1 2 3\n", "", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 -9\n"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; ++i) {
        ptl_trimesh m;
        ptl_error err;
        ptl_status st = ptl_obj_parse(texts[i], strlen(texts[i]), "bad.obj", NULL, &m, &err);
        cr_expect_eq(st, PTL_ERR_PARSE, "case %zu: %s", i, ptl_status_name(st));
        cr_expect(strstr(err.message, "bad.obj"), "case %zu: the message names the file: %s", i, err.message);
        if (st >= 0) ptl_trimesh_free(&m);
    }
}

/* Resolving a resolved desc changes nothing (the bake resolves, then the voxel stage resolves
   again): the switches that turn a stage off must not turn into defaults on the second pass. */
Test(bake3d_input, resolving_a_desc_twice_changes_nothing) {
    ptl_bake_desc cases[4] = {
        {0},
        {.keep_islands = true, .no_simplify = true, .no_links = true, .no_landmarks = true},
        {.min_island = 5, .max_error = 2.5f, .max_gap = 0.9f, .agent_radius = 0.6f, .hubs = true},
        {.keep_islands = true, .min_island = 7, .no_simplify = true, .max_error = 0.5f, .landmarks = 3, .no_landmarks = true},
    };
    for (int i = 0; i < 4; ++i) {
        ptl_bake_desc a, b;
        ptl_bake_desc_resolve(&cases[i], &a);
        ptl_bake_desc_resolve(&a, &b);
        cr_expect(a.min_island == b.min_island && a.max_error == b.max_error && a.max_gap == b.max_gap &&
                      a.landmarks == b.landmarks && a.cell_size == b.cell_size && a.agent_radius == b.agent_radius &&
                      a.lids == b.lids,
                  "case %d: min_island %u -> %u, max_error %g -> %g, max_gap %g -> %g", i, a.min_island, b.min_island,
                  a.max_error, b.max_error, a.max_gap, b.max_gap);
    }
    ptl_bake_desc r;
    ptl_bake_desc_resolve(&cases[1], &r);
    cr_expect(r.keep_islands && r.min_island == 0, "keep_islands keeps every piece (min_island %u)", r.min_island);
    cr_expect(r.no_simplify && r.max_error == 0, "no_simplify: no simplification (max_error %g)", r.max_error);
    cr_expect(r.no_links && r.max_gap == 0, "no_links: no links (max_gap %g)", r.max_gap);
    cr_expect_eq(r.landmarks, 0, "no_landmarks: none");
    ptl_bake_desc_resolve(&cases[3], &r);
    cr_expect(r.min_island == 0 && r.max_error == 0 && r.landmarks == 0, "a switch wins over the value beside it");
    ptl_bake_desc_resolve(&cases[2], &r);
    cr_expect(r.lids && r.landmarks == 16, "hubs turn lids on and raise the landmarks to 16 (%u)", r.landmarks);
}

/* ptl_bake_desc_defaults() holds the documented defaults, and resolves to what a zeroed desc
   resolves to, also after hubs or cell_size are set on it (their dependants stay automatic). */
Test(bake3d_input, the_defaults_function_resolves_like_a_zeroed_desc) {
    ptl_bake_desc d = ptl_bake_desc_defaults();
    cr_expect(d.cell_size == 0.3f && d.cell_height == 0.2f && d.agent_height == 2.0f && d.max_climb == 0.9f &&
              d.max_slope == 45.0f && d.max_error == 1.3f && d.min_island == 64 &&
              d.pair_slack == PTL_PAIR_SLACK_DEFAULT, "the documented defaults");
    for (int k = 0; k < 3; ++k) {
        ptl_bake_desc z = {0}, a, b;
        d = ptl_bake_desc_defaults();
        if (k == 1) z.hubs = d.hubs = true;
        if (k == 2) z.cell_size = d.cell_size = 0.5f;
        ptl_bake_desc_resolve(&z, &a);
        ptl_bake_desc_resolve(&d, &b);
        cr_expect(memcmp(&a, &b, sizeof a) == 0, "case %d: defaults() and a zeroed desc resolve alike", k);
    }
}

/* No negative "off" values: a negative (or NaN) max_gap or max_error is a caller error; the
   switches no_links and no_simplify say "none". */
Test(bake3d_input, negative_max_gap_or_max_error_is_an_invalid_argument) {
    static const char quad[] = "v 0 0 0\nv 10 0 0\nv 10 0 10\nv 0 0 10\nf 1 4 3 2\n";
    ptl_trimesh m;
    ptl_error perr;
    cr_assert_eq(ptl_obj_parse(quad, sizeof quad - 1, "quad.obj", NULL, &m, &perr), PTL_OK, "%s", perr.message);
    const ptl_bake_desc bad[4] = {{.max_gap = -1}, {.max_gap = NAN}, {.max_error = -0.5f}, {.max_error = NAN}};
    for (int i = 0; i < 4; ++i) {
        void* blob = NULL;
        size_t size = 0;
        ptl_error err;
        cr_expect_eq(ptl_bake_trimesh(&m, &bad[i], &blob, &size, NULL, &err), PTL_ERR_INVALID_ARG, "case %d", i);
        cr_expect(strstr(err.message, i < 2 ? "max_gap" : "max_error"), "case %d names the field: %s", i, err.message);
        cr_expect_null(blob);
    }
    ptl_trimesh_free(&m);
}
