/* The desc conventions of the public headers: each `ptl_*_desc_defaults()` returns the documented
   defaults, and a desc from it gives what a zeroed (or NULL) desc gives. */
#include <criterion/criterion.h>
#include <string.h>

#include <portolan/portolan.h>

Test(descs, generators_give_the_same_output_from_defaults_as_from_null) {
    ptl_error err;
    ptl_grid a, b;
    ptl_grid_gen_desc gd = ptl_grid_gen_desc_defaults();
    cr_expect(gd.width == 256 && gd.height == 256 && gd.density == 0.25f && gd.scene == PTL_GRID_SCENE_ROOMS);
    gd.width = gd.height = 64;
    ptl_grid_gen_desc zd = {.width = 64, .height = 64};
    cr_assert_eq(ptl_grid_generate(&gd, &a, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_grid_generate(&zd, &b, &err), PTL_OK, "%s", err.message);
    cr_expect(a.width == b.width && a.height == b.height && memcmp(a.passable, b.passable, (size_t)a.width * a.height) == 0);
    ptl_trimesh m, n;
    ptl_scene_desc sd = ptl_scene_desc_defaults();
    cr_expect(sd.size == 40.0f && sd.storeys == 3 && sd.kind == PTL_SCENE_BUILDING);
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_scene_generate(NULL, &n, &err), PTL_OK, "%s", err.message);
    cr_expect(m.vert_count == n.vert_count && m.tri_count == n.tri_count &&
              memcmp(m.verts, n.verts, 3 * sizeof(float) * m.vert_count) == 0);
    ptl_trimesh_free(&n);
    ptl_extrude_desc ed = ptl_extrude_desc_defaults(), er;
    ptl_extrude_desc_resolve(NULL, &er);
    cr_expect(ed.cell_size == er.cell_size && ed.wall_height == er.wall_height && ed.cell_size == 1.0f);
    ptl_copies_desc cd = ptl_copies_desc_defaults();
    cr_expect_eq(cd.copies, 0, "copies has no default");
    cd.copies = 2;
    cr_assert_eq(ptl_trimesh_copies(&m, &cd, &n, &err), PTL_OK, "%s", err.message);
    cr_expect_eq(n.tri_count, 4 * m.tri_count);
    ptl_trimesh_free(&n);
    ptl_trimesh_free(&m);
    ptl_grid_free(&a);
    ptl_grid_free(&b);
}

Test(descs, decomposition_and_queries_from_defaults_match_null_descs) {
    ptl_error err;
    ptl_grid g;
    ptl_shape s;
    ptl_grid_gen_desc gd = {.width = 48, .height = 40, .seed = 3};
    cr_assert_eq(ptl_grid_generate(&gd, &g, &err), PTL_OK, "%s", err.message);
    ptl_input_desc in = ptl_input_desc_defaults();
    cr_assert_eq(ptl_shape_from_grid(&g, &in, &s, &err), PTL_OK, "%s", err.message);
    ptl_decompose_desc dd = ptl_decompose_desc_defaults();
    cr_expect(dd.relax == 0 && dd.pair_slack == PTL_PAIR_SLACK_DEFAULT && !dd.lids);
    ptl_decomposition d1, d2;
    cr_assert_eq(ptl_decompose(&s, &dd, &d1, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_decompose(&s, NULL, &d2, &err), PTL_OK, "%s", err.message);
    cr_expect(d1.cell_count == d2.cell_count && d1.portal_count == d2.portal_count);
    void *b1, *b2;
    size_t z1, z2;
    ptl_blob_desc bd = ptl_blob_desc_defaults();
    bd.flags = s.flags;
    cr_assert_eq(ptl_bake_decomposition(&d1, &bd, &b1, &z1, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_bake_decomposition(&d2, &(ptl_blob_desc){.flags = s.flags}, &b2, &z2, &err), PTL_OK, "%s",
                 err.message);
    cr_expect(z1 == z2 && memcmp(b1, b2, z1) == 0, "the same blob");
    ptl_navmesh_desc nd = ptl_navmesh_desc_defaults();
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(b1, z1, &nd, &nm, &err), PTL_OK, "%s", err.message);
    ptl_query_desc qd = ptl_query_desc_defaults();
    cr_expect_eq(qd.max_nodes, 0u, "0: sized by the navmesh");
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, &qd, &q), PTL_OK);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(b1, z1, NULL);
    ptl_blob_free(b2, z2, NULL);
    ptl_decomposition_free(&d1);
    ptl_decomposition_free(&d2);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

Test(descs, a_2d_bake_from_defaults_is_the_bake_from_a_zeroed_desc_with_and_without_hubs) {
    ptl_error err;
    ptl_grid g;
    ptl_shape s;
    ptl_grid_gen_desc gd = {.width = 40, .height = 32, .seed = 5};
    cr_assert_eq(ptl_grid_generate(&gd, &g, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_shape_from_grid(&g, NULL, &s, &err), PTL_OK, "%s", err.message);
    for (int hubs = 0; hubs < 2; ++hubs) {
        ptl_bake_desc a = ptl_bake_desc_defaults(), z = {.hubs = hubs != 0};
        a.hubs = hubs != 0;
        void *b1, *b2;
        size_t z1, z2;
        cr_assert_eq(ptl_bake_shape(&s, &a, &b1, &z1, NULL, &err), PTL_OK, "%s", err.message);
        cr_assert_eq(ptl_bake_shape(&s, &z, &b2, &z2, NULL, &err), PTL_OK, "%s", err.message);
        cr_expect(z1 == z2 && memcmp(b1, b2, z1) == 0, "hubs %d: the same blob", hubs);
        ptl_blob_free(b1, z1, NULL);
        ptl_blob_free(b2, z2, NULL);
    }
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

Test(descs, debug_objects_and_styles_have_defaults) {
    ptl_bake_debug_desc dd = ptl_bake_debug_desc_defaults();
    ptl_bake_debug* dbg;
    cr_assert_eq(ptl_bake_debug_create(&dd, &dbg), PTL_OK);
    ptl_bake_debug_destroy(dbg);
    ptl_dd_style st = ptl_dd_style_defaults();
    cr_expect(st.lift == 0.05f && st.line_width == 2.0f && st.point_size == 7.0f && st.fill_alpha == 255 && !st.no_lift);
    ptl_landmarks_desc ld = ptl_landmarks_desc_defaults();
    ptl_hubs_desc hd = ptl_hubs_desc_defaults();
    ptl_merge_desc md = ptl_merge_desc_defaults();
    cr_expect(!ld.jobs && !ld.alloc && !hd.jobs && !hd.alloc && !md.jobs && !md.alloc);
}
