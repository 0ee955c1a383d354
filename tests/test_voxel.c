/* Tests of the voxel stages of the 3D bake (bake/voxel/): parameters, rasterization, filters,
   open field, layers and reachability, allocation failures. Hand-made meshes (voxel_scenes.h)
   check each rule with counts worked out by hand. test_voxel_tiled.c holds the column index, tiled
   fields, the real meshes of ../shared/data (bridges and the floors below them are different
   layers; the walkable voxel area stays within 3% of Recast's) and the layer map. */
#include "test_util.h"

#include "../bake/layers/layer_map.h"
#include "../bake/voxel/tiles.h"

#include "voxel_scenes.h"

/* ---- Parameters ---------------------------------------------------------------------------------*/

Test(voxel, params_resolve_recast_defaults_and_exact_grid) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 3, 3, 0, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_OK, "%s", err.message);
    cr_expect_float_eq(p.cs, 0.3f, 1e-7f);
    cr_expect_float_eq(p.ch, 0.2f, 1e-7f);
    cr_expect_eq(p.walkable_height, 10);
    cr_expect_eq(p.walkable_climb, 4);
    cr_expect_eq(p.walkable_radius, 0);
    cr_expect_float_eq(p.walkable_slope_cos, cosf(45.0f / 180.0f * 3.14159265f), 1e-6f);
    cr_expect_eq(p.width, 10, "a 3 m floor is 10 columns of 0.3, not 11");
    cr_expect_eq(p.depth, 10);
    cr_expect_eq(p.walkable_both_sides, 0);
    ptl_bake_desc d = {.agent_radius = 0.6f};
    cr_assert_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_OK);
    cr_expect_eq(p.walkable_radius, 2);
    mb_free(&b);
}

Test(voxel, params_refuse_bad_descs_and_grids) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 3, 3, 0, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_error err;
    ptl_bake_desc d = {.cell_size = -1};
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_INVALID_ARG);
    d = (ptl_bake_desc){.max_slope = 95};
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_INVALID_ARG);
    d = (ptl_bake_desc){.agent_height = NAN};
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_INVALID_ARG);
    /* 2^28 columns at most */
    d = (ptl_bake_desc){.cell_size = 0.0001f};
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "2^28") != NULL, "%s", err.message);
    /* 65535 heights at most */
    b.v[1] = 20000;
    d = ptl_bake_desc_defaults();
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "cell height") != NULL, "%s", err.message);
    b.v[1] = 0;
    /* no triangle */
    m.tri_count = 0;
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_BAD_INPUT);
    mb_free(&b);
}

Test(voxel, far_offsets_work_until_float_spacing_exceeds_a_quarter_voxel) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);
    for (uint32_t i = 0; i < b.nv; ++i) b.v[3 * i] += 65536.0f, b.v[3 * i + 2] -= 65536.0f; /* float spacing 1/128 */
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    cr_expect_eq(r.of.span_count, 18 * 18, "a 6 m floor far away is still 20 x 20 columns less the ledge ring");
    run_free(&r);
    for (uint32_t i = 0; i < b.nv; ++i) b.v[3 * i] += 1e7f; /* float spacing 1 m */
    ptl_vx_params p;
    ptl_error err;
    cr_expect_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "floats are") != NULL, "%s", err.message);
    mb_free(&b);
}

/* ---- Rasterization ------------------------------------------------------------------------------*/

Test(voxel, flat_quad_is_one_layer_with_exact_column_count) {
    /* cell 0.25 is exact in binary: the quad's edges lie exactly on grid lines, which must not leak
       into the columns beyond them, here or at the shared edge of the two halves */
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 1.5f, 3, 1, true);
    mb_floor(&b, 1.5f, 0, 3, 3, 1, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.cell_size = 0.25f};
    run r;
    run_stages(&m, &d, NULL, 0, &r);
    cr_expect_eq(r.p.width, 12);
    cr_expect_eq(r.p.depth, 12);
    cr_expect_eq(r.hf.span_count, 144, "one span per column, no leak beyond the edges");
    for (uint32_t c = 0; c < 144; ++c) {
        cr_expect_eq(spans_in(&r.hf, c), 1);
        const ptl_vx_span* s = &r.hf.spans[r.hf.col_start[c]];
        cr_expect(s->walkable && s->smin == 0 && s->smax == 1, "flat floor at the grid's base: [0, 1)");
    }
    /* the outer ring is a ledge (a drop off the floor's edge), as in Recast */
    cr_expect_eq(r.of.span_count, 100);
    cr_expect_eq(r.ls.layer_count, 1);
    cr_expect_eq(r.ls.layers[0].span_count, 100);
    cr_expect(r.ls.layers[0].x0 == 1 && r.ls.layers[0].x1 == 10 && r.ls.layers[0].z0 == 1 && r.ls.layers[0].z1 == 10);
    check_invariants(&r);
    run_free(&r);
    mb_free(&b);
}

Test(voxel, thin_floors_and_walls_between_column_centres_are_not_lost) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);        /* the grid: 0..6 with cell 0.25 */
    mb_floor(&b, 1.06f, 1, 1.19f, 5, 2, true); /* a strip inside column 4 [1.0, 1.25], no centre */
    mb_floor(&b, 2.2f, 1, 2.3f, 5, 3, true);   /* a strip across the line x = 2.25: columns 8 and 9 */
    mb_wall_x(&b, 3.6f, 1, 5, 0, 2.5f);        /* a zero-thickness wall inside column 14 */
    mb_wall_x(&b, 4.5f, 1, 5, 0, 2.5f);        /* a wall exactly on the line between columns 17 and 18 */
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.cell_size = 0.25f, .cell_height = 0.25f};
    run r;
    run_stages(&m, &d, NULL, 0, &r);
    for (float z = 1.1f; z < 4.9f; z += 0.25f) {
        uint32_t c = col_at(&r.p, 1.1f, z);
        cr_expect_eq(spans_in(&r.hf, c), 2, "thin strip in its column (z %g)", z);
        cr_expect_eq(r.hf.spans[r.hf.col_start[c] + 1].smax, 8 + 1, "strip at y = 2: [8, 9)");
        cr_expect_eq(spans_in(&r.hf, col_at(&r.p, 0.9f, z)), 1);
        cr_expect_eq(spans_in(&r.hf, col_at(&r.p, 1.3f, z)), 1);
        for (int k = 8; k <= 9; ++k) cr_expect_eq(spans_in(&r.hf, (uint32_t)(col_at(&r.p, 0, z) + k)), 2);
        cr_expect_eq(spans_in(&r.hf, col_at(&r.p, 1.9f, z)), 1);
        cr_expect_eq(spans_in(&r.hf, col_at(&r.p, 2.6f, z)), 1);
        /* walls: one column tall [0, 10) (2.5 m), the one on the line in both columns beside it */
        uint32_t w[3] = {col_at(&r.p, 3.6f, z), col_at(&r.p, 4.4f, z), col_at(&r.p, 4.6f, z)};
        for (int k = 0; k < 3; ++k) {
            cr_expect_eq(spans_in(&r.hf, w[k]), 1);
            cr_expect_eq(r.hf.spans[r.hf.col_start[w[k]]].smax, 10, "wall column %d at z %g", k, z);
            cr_expect_eq(r.hf.spans[r.hf.col_start[w[k]]].walkable, 0);
        }
        cr_expect_eq(r.hf.spans[r.hf.col_start[col_at(&r.p, 3.4f, z)]].smax, 1, "nothing leaks beside the wall");
        cr_expect_eq(r.hf.spans[r.hf.col_start[col_at(&r.p, 4.8f, z)]].smax, 1);
    }
    run_free(&r);
    mb_free(&b);
}

Test(voxel, slopes_steeper_than_max_slope_are_not_walkable) {
    for (int k = 0; k < 2; ++k) {
        float deg = k == 0 ? 40.0f : 50.0f;
        mesh_b b = {0};
        mb_ramp(&b, 0, 0, 6, 6, 0, 6 * tanf(deg / 180.0f * 3.14159265f));
        ptl_trimesh m = mb_mesh(&b);
        run r;
        run_stages(&m, NULL, NULL, 0, &r);
        uint32_t walk = 0;
        for (uint32_t s = 0; s < r.hf.span_count; ++s) walk += r.hf.spans[s].walkable;
        if (k == 0) {
            cr_expect_eq(walk, r.hf.span_count, "a 40 degree ramp is walkable");
            cr_expect_gt(r.of.span_count, 0);
        } else {
            cr_expect_eq(walk, 0, "a 50 degree ramp is not");
            cr_expect_eq(r.of.span_count, 0);
        }
        run_free(&r);
        mb_free(&b);
    }
}

Test(voxel, winding_decides_up_unless_both_sides_are_asked_for) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 3, 3, 0, false); /* wound as a ceiling */
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_heightfield hf;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_OK);
    cr_assert_eq(ptl_voxelize_trimesh(&m, NULL, 0, &p, NULL, &hf, &err), PTL_OK);
    for (uint32_t s = 0; s < hf.span_count; ++s) cr_expect_eq(hf.spans[s].walkable, 0);
    ptl_heightfield_free(&hf);
    p.walkable_both_sides = 1;
    cr_assert_eq(ptl_voxelize_trimesh(&m, NULL, 0, &p, NULL, &hf, &err), PTL_OK);
    for (uint32_t s = 0; s < hf.span_count; ++s) cr_expect_eq(hf.spans[s].walkable, 1);
    ptl_heightfield_free(&hf);
    mb_free(&b);
}

Test(voxel, degenerate_triangles_are_solid_but_never_walkable) {
    mesh_b b = {0};
    float a[3] = {1, 1, 1}, c[3] = {1.5f, 1, 1.5f}, e[3] = {2, 1, 2}; /* collinear */
    mb_tri(&b, a, c, e, 0, 1, 0);
    float q[3] = {0, 0, 0};
    mb_tri(&b, q, q, q, 0, 1, 0); /* a point */
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_heightfield hf;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_OK);
    cr_assert_eq(ptl_voxelize_trimesh(&m, NULL, 0, &p, NULL, &hf, &err), PTL_OK);
    cr_expect_geq(hf.span_count, 8, "the diagonal segment crosses at least 7 columns, plus the point");
    for (uint32_t s = 0; s < hf.span_count; ++s) cr_expect_eq(hf.spans[s].walkable, 0);
    ptl_heightfield_free(&hf);
    mb_free(&b);
}

Test(voxel, spans_merge_with_walkable_top_within_climb) {
    /* a floor at y = 0 and a thin non-walkable post on it (0.1 m wide: both its walls fall in one
       column, so its span reaches the floor's): 0.5 m high (top voxel 3, 2 above the floor's top)
       the merged top is walkable, within climb; 1.3 m high (top voxel 7, 6 above) it is not */
    for (int k = 0; k < 2; ++k) {
        float h = k == 0 ? 0.5f : 1.3f;
        mesh_b b = {0};
        mb_floor(&b, 0, 0, 3, 3, 0, true);
        mb_box(&b, 1.35f, 0, 1.05f, 1.45f, h, 1.95f, false); /* top facing down: not walkable */
        ptl_trimesh m = mb_mesh(&b);
        run r;
        run_stages(&m, NULL, NULL, 0, &r);
        uint32_t c = col_at(&r.p, 1.4f, 1.5f);
        cr_assert_eq(spans_in(&r.hf, c), 1, "the floor and the post merge");
        const ptl_vx_span* s = &r.hf.spans[r.hf.col_start[c]];
        cr_expect_eq(s->smin, 0);
        cr_expect_eq(s->smax, (uint16_t)ceilf(h / 0.2f));
        cr_expect_eq(s->walkable, k == 0, "walkable top iff within climb of the floor (h = %g)", h);
        run_free(&r);
        mb_free(&b);
    }
}

Test(voxel, low_obstacle_on_a_walkable_span_becomes_walkable) {
    /* a hollow box 0.5 m high with a non-walkable top over a floor: inside it, the floor [0, 1)
       and the top [2, 3) are separate spans; the top is within climb of the walkable span below,
       so it becomes walkable (Recast's low hanging obstacles); the floor below loses clearance */
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);
    mb_box(&b, 1.05f, 0, 1.05f, 4.95f, 0.5f, 4.95f, false);
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    uint32_t c = col_at(&r.p, 3, 3);
    cr_assert_eq(spans_in(&r.hf, c), 2);
    cr_expect_eq(r.hf.spans[r.hf.col_start[c] + 1].walkable, 0, "not walkable as rasterized");
    uint32_t s = open_at(&r, 3, 0.5f, 3);
    cr_assert_neq(s, PTL_VX_NONE);
    cr_expect_eq(r.of.spans[s].floor, 3);
    cr_expect_eq(ptl_filter_col_end(&r.of, c) - ptl_filter_col_begin(&r.of, c), 1, "the floor under it has no clearance");
    run_free(&r);
    mb_free(&b);
}

Test(voxel, triangle_order_does_not_change_the_heightfield) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);
    mb_box(&b, 1, 0, 1, 2, 0.6f, 2, false);
    mb_box(&b, 3, 0.3f, 3, 4, 2.2f, 5, true);
    mb_ramp(&b, 2, 0, 5, 1, 0, 1.5f);
    mb_floor(&b, 0.5f, 0.5f, 5.5f, 5.5f, 2.6f, false);
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_heightfield h1, h2;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_OK);
    cr_assert_eq(ptl_voxelize_trimesh(&m, NULL, 0, &p, NULL, &h1, &err), PTL_OK);
    uint32_t* rev = malloc(sizeof(uint32_t) * b.nt);
    for (uint32_t i = 0; i < b.nt; ++i) rev[i] = b.nt - 1 - i;
    cr_assert_eq(ptl_voxelize_trimesh(&m, rev, b.nt, &p, NULL, &h2, &err), PTL_OK);
    cr_assert_eq(h1.span_count, h2.span_count);
    cr_expect_eq(memcmp(h1.spans, h2.spans, h1.span_count * sizeof *h1.spans), 0);
    cr_expect_eq(memcmp(h1.col_start, h2.col_start, ((size_t)p.width * p.depth + 1) * sizeof(uint32_t)), 0);
    free(rev);
    ptl_heightfield_free(&h1);
    ptl_heightfield_free(&h2);
    mb_free(&b);
}

Test(voxel, a_piece_bridging_several_spans_of_a_column_merges_them_whatever_the_order) {
    /* three floors 1 m apart (tags 1, 2, 3) and a wall through them from 0 to 2.3 m (tag 4): the
       column the wall stands in is one span [0, 12), walkable with the top floor's tag (its top,
       voxel 11, is within climb of 12), whether the wall comes before, between or after them */
    mesh_b b = {0};
    for (int k = 0; k < 3; ++k) {
        mb_floor(&b, 0, 0, 3, 3, (float)k, true);
        b.tag[b.nt - 2] = b.tag[b.nt - 1] = (uint16_t)(k + 1);
    }
    mb_wall_x(&b, 1.45f, 1.05f, 1.95f, 0, 2.3f);
    b.tag[b.nt - 2] = b.tag[b.nt - 1] = 4;
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_OK);
    const uint32_t orders[4][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {6, 7, 0, 1, 2, 3, 4, 5}, {0, 1, 6, 4, 2, 7, 5, 3},
                                   {7, 5, 3, 1, 6, 4, 2, 0}};
    ptl_heightfield first;
    for (int o = 0; o < 4; ++o) {
        ptl_heightfield h;
        cr_assert_eq(ptl_voxelize_trimesh(&m, orders[o], 8, &p, NULL, &h, &err), PTL_OK);
        const uint32_t c = col_at(&p, 1.45f, 1.5f);
        cr_assert_eq(h.col_start[c + 1] - h.col_start[c], 1, "order %d: one span", o);
        const ptl_vx_span* s = &h.spans[h.col_start[c]];
        cr_expect_eq(s->smin, 0, "order %d", o);
        cr_expect_eq(s->smax, 12, "order %d: top %d", o, s->smax);
        cr_expect_eq(s->walkable, 1, "order %d", o);
        cr_expect_eq(s->tag, 3, "order %d", o);
        if (o == 0) {
            first = h;
            continue;
        }
        cr_assert_eq(h.span_count, first.span_count);
        cr_expect_eq(memcmp(h.spans, first.spans, h.span_count * sizeof *h.spans), 0, "order %d", o);
        cr_expect_eq(memcmp(h.col_start, first.col_start, ((size_t)p.width * p.depth + 1) * sizeof(uint32_t)), 0);
        ptl_heightfield_free(&h);
    }
    ptl_heightfield_free(&first);
    mb_free(&b);
}

/* ---- Filters ------------------------------------------------------------------------------------*/

Test(voxel, box_on_floor_removes_the_floor_under_it_and_its_top_needs_walkable_and_clearance) {
    /* floor 0..6, box (1.95..4.05)^2 x 0..2: columns 6..13 under the box (0.3 cells) */
    for (int k = 0; k < 3; ++k) {
        mesh_b b = {0};
        mb_floor(&b, 0, 0, 6, 6, 0, true);
        mb_box(&b, 1.95f, 0, 1.95f, 4.05f, 2, 4.05f, k != 1);
        if (k == 2) mb_floor(&b, 1, 1, 5, 5, 3.5f, false); /* a ceiling 1.5 m above the box top */
        ptl_trimesh m = mb_mesh(&b);
        run r;
        run_stages(&m, NULL, NULL, 0, &r);
        uint32_t on_box = 0;
        for (uint32_t s = 0; s < r.of.span_count; ++s) {
            uint32_t c = ptl_filter_span_col(&r.of, s);
            int x = (int)(c % (uint32_t)r.p.width), z = (int)(c / (uint32_t)r.p.width);
            bool inside = x >= 6 && x <= 13 && z >= 6 && z <= 13;
            if (inside) {
                cr_expect_eq(r.of.spans[s].floor, 10, "no floor under the box, only its top (y = 2)");
                ++on_box;
            }
        }
        /* the top's rim is a ledge (2 m drop): 6 x 6 left when walkable with open sky */
        cr_expect_eq(on_box, k == 0 ? 36u : 0u, "case %d", k);
        if (k == 0) {
            uint32_t top = open_at(&r, 3, 2, 3), ground = open_at(&r, 0.5f, 0, 0.5f);
            cr_assert_neq(top, PTL_VX_NONE);
            cr_assert_neq(ground, PTL_VX_NONE);
            cr_expect_neq(r.of.spans[top].layer, r.of.spans[ground].layer, "the roof is a layer of its own");
        }
        check_invariants(&r);
        run_free(&r);
        mb_free(&b);
    }
}

Test(voxel, low_ceiling_removes_floor_clearance) {
    for (int k = 0; k < 2; ++k) {
        float ceil_y = k == 0 ? 1.5f : 2.2f;
        mesh_b b = {0};
        mb_floor(&b, 0, 0, 9, 6, 0, true);
        mb_box(&b, 3, ceil_y, -1, 6, ceil_y + 0.3f, 7, true); /* a slab across the floor */
        ptl_trimesh m = mb_mesh(&b);
        run r;
        run_stages(&m, NULL, NULL, 0, &r);
        uint32_t s = open_at(&r, 4.5f, 0, 3);
        if (k == 0) {
            cr_expect(s == PTL_VX_NONE || r.of.spans[s].floor > 5, "no floor under a 1.5 m ceiling");
        } else {
            cr_assert_neq(s, PTL_VX_NONE, "a 2.2 m ceiling leaves room");
            cr_expect_eq(r.of.spans[s].floor, 1);
            cr_expect_eq(r.of.spans[s].ceil, 11, "the slab's bottom, floor(2.2 / 0.2)");
        }
        check_invariants(&r);
        run_free(&r);
        mb_free(&b);
    }
}

Test(voxel, stairs_with_small_risers_are_one_layer) {
    /* ground 0..4 x 0..3 at y = 0, 12 steps of 0.18 m x 0.3 m from x = 4, a landing at 2.16 m */
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 4, 3, 0, true);
    for (int i = 0; i < 12; ++i) {
        float x0 = 4 + 0.3f * (float)i;
        mb_box(&b, x0, 0, 0, x0 + 0.3f, 0.18f * (float)(i + 1), 3, true);
    }
    mb_box(&b, 7.6f, 0, 0, 11, 2.16f, 3, true);
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    cr_expect_eq(r.ls.layer_count, 1);
    uint32_t lo = open_at(&r, 1, 0, 1.5f), hi = open_at(&r, 10, 2.16f, 1.5f);
    cr_assert(lo != PTL_VX_NONE && hi != PTL_VX_NONE);
    cr_expect_eq(r.of.spans[lo].layer, r.of.spans[hi].layer);
    cr_expect_eq(r.ls.layers[0].span_count, r.of.span_count);
    check_invariants(&r);
    run_free(&r);
    mb_free(&b);
}

Test(voxel, bridge_over_floor_makes_layers_that_do_not_share_columns) {
    mesh_b b = {0};
    bridge_scene(&b);
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    uint32_t deck = open_at(&r, 6, 3, 2), under = open_at(&r, 6, 0, 2), side = open_at(&r, 6, 0, 0.6f);
    cr_assert(deck != PTL_VX_NONE && under != PTL_VX_NONE && side != PTL_VX_NONE);
    uint32_t ld = r.of.spans[deck].layer, lu = r.of.spans[under].layer;
    cr_expect_neq(ld, lu, "deck and floor below are different layers");
    cr_expect_eq(r.of.spans[side].layer, lu);
    cr_expect_geq(r.ls.layer_count, 2);
    cr_expect(layers_overlap(&r, ld, lu), "they overlap in plan, which is why they are two layers");
    check_invariants(&r); /* and no layer has two spans in one column */
    run_free(&r);
    mb_free(&b);
}

/* The flood takes its spans a range of floors at a time (layers.c, flood_layers), in buffers of
   max(n / 8, 4096) spans: a ground of about 17,000 columns is one floor visited in pieces, and the
   platforms stacked above it and the bridge's ramps make ranges of several floors. */
Test(voxel, layer_flood_in_floor_ranges_and_pieces_keeps_every_invariant) {
    mesh_b b = {0};
    mb_floor(&b, -30, -30, 10, 10, 0, true);
    for (int i = 1; i <= 12; ++i) mb_floor(&b, -28, -28, -20, -20, 2.5f * (float)i, true);
    for (int i = 0; i < 3; ++i) mb_box(&b, -18 + 4 * (float)i, 0, -10, -16 + 4 * (float)i, 3 + (float)i, -8, true);
    bridge_scene(&b);
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    cr_assert_gt(r.of.span_count, 2 * 4096, "%u open spans", r.of.span_count);
    bool sorted = true;
    for (uint32_t s = 1; s < r.of.span_count; ++s) sorted = sorted && r.of.spans[s].floor >= r.of.spans[s - 1].floor;
    cr_assert(!sorted, "floors out of memory order: the flood gathers them");
    uint32_t* per_floor = calloc(PTL_VX_MAX_HEIGHT + 1, sizeof *per_floor), most = 0, floors = 0;
    for (uint32_t s = 0; s < r.of.span_count; ++s) floors += per_floor[r.of.spans[s].floor]++ == 0;
    for (uint32_t h = 0; h <= PTL_VX_MAX_HEIGHT; ++h) most = per_floor[h] > most ? per_floor[h] : most;
    free(per_floor);
    const uint32_t cap = r.of.span_count / 8 > 4096 ? r.of.span_count / 8 : 4096;
    cr_assert_gt(most, cap, "a floor of %u spans, more than a buffer of %u", most, cap);
    cr_assert_gt(floors, 12, "%u floors", floors);
    uint32_t deck = open_at(&r, 6, 3, 2), under = open_at(&r, 6, 0, 2);
    cr_assert(deck != PTL_VX_NONE && under != PTL_VX_NONE);
    cr_expect_neq(r.of.spans[deck].layer, r.of.spans[under].layer, "deck and floor below are different layers");
    uint32_t low = open_at(&r, -24, 2.5f, -24), high = open_at(&r, -24, 30, -24);
    cr_assert(low != PTL_VX_NONE && high != PTL_VX_NONE && low != high);
    cr_expect_neq(r.of.spans[low].layer, r.of.spans[high].layer, "stacked platforms are layers of their own");
    check_invariants(&r); /* layer ids in the order of their lowest spans, one span per layer per column */
    run_free(&r);
    mb_free(&b);
}

Test(voxel, erosion_by_radius_removes_two_columns_along_walls) {
    /* floor 0..6 (20 columns of 0.3), walls 0.2 m thick inside the edge columns (off the grid
       lines): 18 x 18 walkable columns; radius 0.6 = 2 columns removes 2 rings: 14 x 14 */
    for (int k = 0; k < 2; ++k) {
        mesh_b b = {0};
        mb_floor(&b, 0, 0, 6, 6, 0, true);
        mb_box(&b, 0.05f, 0, 0.05f, 0.25f, 2.5f, 5.95f, true);
        mb_box(&b, 5.75f, 0, 0.05f, 5.95f, 2.5f, 5.95f, true);
        mb_box(&b, 0.05f, 0, 0.05f, 5.95f, 2.5f, 0.25f, true);
        mb_box(&b, 0.05f, 0, 5.75f, 5.95f, 2.5f, 5.95f, true);
        ptl_trimesh m = mb_mesh(&b);
        ptl_bake_desc d = {.agent_radius = k == 0 ? 0 : 0.6f};
        run r;
        run_stages(&m, &d, NULL, 0, &r);
        uint32_t ground = 0;
        for (uint32_t s = 0; s < r.of.span_count; ++s) ground += r.of.spans[s].floor == 1;
        cr_expect_eq(ground, k == 0 ? 18u * 18u : 14u * 14u, "radius %d", k);
        check_invariants(&r);
        run_free(&r);
        mb_free(&b);
    }
}

/* ---- Layers and reachability --------------------------------------------------------------------*/

Test(voxel, seeds_drop_an_unreachable_island) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);
    mb_floor(&b, 10, 0, 14, 4, 1, true); /* an island */
    ptl_trimesh m = mb_mesh(&b);
    run all;
    run_stages(&m, NULL, NULL, 0, &all);
    cr_expect_eq(all.ls.layer_count, 2);
    float seed[3] = {3, 0.1f, 3};
    run r;
    run_stages(&m, NULL, seed, 1, &r);
    cr_expect_eq(r.ls.layer_count, 1);
    cr_expect_eq(r.ls.seeds_found, 1);
    cr_expect_eq(r.ls.dropped_layers, 1);
    uint32_t kept = open_at(&r, 3, 0, 3), gone = open_at(&r, 12, 1, 2);
    cr_expect_eq(r.of.spans[kept].layer, 0);
    cr_expect_eq(r.of.spans[gone].layer, PTL_VX_NONE);
    cr_expect_eq(r.ls.layers[0].span_count, 18 * 18);
    check_invariants(&r);
    run_free(&r);
    /* a seed on the island keeps the island only; a seed over nothing is an error */
    float seed2[3] = {12, 1.5f, 2};
    run_stages(&m, NULL, seed2, 1, &r);
    cr_expect_eq(r.ls.layer_count, 1);
    cr_expect_eq(r.of.spans[open_at(&r, 12, 1, 2)].layer, 0);
    run_free(&r);
    float nowhere[3] = {8, 0, 2};
    ptl_layer_set ls;
    ptl_error err;
    cr_expect_eq(ptl_lmap_build_layers(&all.of, nowhere, 1, NULL, &ls, &err), PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "seed") != NULL, "%s", err.message);
    run_free(&all);
    mb_free(&b);
}

Test(voxel, seeds_keep_layers_linked_to_theirs) {
    mesh_b b = {0};
    bridge_scene(&b);
    mb_floor(&b, 20, 0, 24, 4, 0, true); /* an island */
    ptl_trimesh m = mb_mesh(&b);
    float seed[3] = {6, 3.2f, 2}; /* on the deck */
    run r;
    run_stages(&m, NULL, seed, 1, &r);
    uint32_t under = open_at(&r, 6, 0, 2), island = open_at(&r, 22, 0, 2);
    cr_expect_neq(r.of.spans[under].layer, PTL_VX_NONE, "the floor is reached through the ramps");
    cr_expect_eq(r.of.spans[island].layer, PTL_VX_NONE);
    cr_expect_eq(r.ls.dropped_layers, 1);
    check_invariants(&r);
    run_free(&r);
    mb_free(&b);
}

Test(voxel, two_runs_give_identical_spans_and_layers) {
    mesh_b b = {0};
    bridge_scene(&b);
    mb_box(&b, 1, 0, 0.2f, 2, 1, 1, true);
    for (int i = 0; i < 6; ++i) mb_box(&b, 0.5f + 1.7f * (float)i, 0, 3.2f, 1.1f + 1.7f * (float)i, 0.3f * (float)i, 3.8f, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.agent_radius = 0.3f};
    run r1, r2;
    run_stages(&m, &d, NULL, 0, &r1);
    run_stages(&m, &d, NULL, 0, &r2);
    cr_assert_eq(r1.hf.span_count, r2.hf.span_count);
    cr_expect_eq(memcmp(r1.hf.spans, r2.hf.spans, r1.hf.span_count * sizeof *r1.hf.spans), 0);
    cr_assert_eq(r1.of.span_count, r2.of.span_count);
    cr_expect_eq(memcmp(r1.of.spans, r2.of.spans, r1.of.span_count * sizeof *r1.of.spans), 0);
    cr_assert_eq(r1.ls.layer_count, r2.ls.layer_count);
    cr_expect_eq(memcmp(r1.ls.layers, r2.ls.layers, r1.ls.layer_count * sizeof *r1.ls.layers), 0);
    run_free(&r1);
    run_free(&r2);
    mb_free(&b);
}


Test(voxel, out_of_memory_at_every_allocation_fails_cleanly) {
    mesh_b b = {0};
    bridge_scene(&b);
    mb_floor(&b, 20, 0, 24, 4, 0, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.agent_radius = 0.3f};
    float seed[3] = {6, 3.2f, 2};
    ptl_vx_params p;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_OK);
    bool succeeded = false;
    for (long n = 0; n < 100000 && !succeeded; ++n) {
        tracking t = {0, n, 0, 0};
        ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
        ptl_heightfield hf;
        ptl_open_field of;
        ptl_layer_set ls;
        ptl_status st = ptl_voxelize_trimesh(&m, NULL, 0, &p, &a, &hf, &err);
        if (st >= 0) {
            st = ptl_filter_build_open(&hf, &a, &of, &err);
            ptl_heightfield_free(&hf);
            if (st >= 0) {
                st = ptl_lmap_build_layers(&of, seed, 1, &a, &ls, &err);
                if (st >= 0) ptl_layer_set_free(&ls);
                ptl_open_field_free(&of);
            }
        }
        cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "failing at call %ld: %s", n, err.message);
        succeeded = st == PTL_OK;
        cr_assert_eq(t.live_blocks, 0, "failing at call %ld leaks %ld blocks", n, t.live_blocks);
        cr_assert_eq(t.live_bytes, 0, "failing at call %ld leaks %lld bytes", n, t.live_bytes);
    }
    cr_expect(succeeded);
    mb_free(&b);
}
