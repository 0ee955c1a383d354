/* Links across gaps (bake/voxel/filter.c rule 7, bake/layers/layer_merge.c; runtime.h ptl_link_view): two slabs
   2 m above a ground slab, side by side with a crack between them, bake into two walkable pieces
   joined by one link cell when the crack is narrower than max_gap and the floors are within
   max_climb; a path then crosses it. Scenes are built here, so the expected heights, gaps and path
   lengths are known exactly. */
#include <portolan/runtime.h>

#include "mesh_builder.h"
#include "test_util.h"

/* Ground slab under everything (so the slabs' walls stand on something, as in a level), slab A
   [0, 4] x [0, 4] with its top at 2, slab B [4 + crack, 8 + crack] x [0, 4] with its top at 2 + rise. */
static mesh_builder* two_slabs(float crack, float rise) {
    mesh_builder* b = calloc(1, sizeof *b);
    box(b, -1, -0.2f, -1, 9.5f + crack, 0, 5);
    box(b, 0, 1.8f, 0, 4, 2, 4);
    box(b, 4 + crack, 1.8f + rise, 0, 8 + crack, 2 + rise, 4);
    return b;
}

typedef struct baked {
    ptl_navmesh* nm;
    ptl_navmesh_info info;
    ptl_bake_stats st;
} baked;

static baked bake(mesh_builder* b, const ptl_bake_desc* d, const char* what) {
    ptl_trimesh m = as_trimesh(b);
    void* blob;
    size_t size;
    ptl_error err;
    baked r;
    memset(&r, 0, sizeof r);
    cr_assert_geq(ptl_bake_trimesh(&m, d, &blob, &size, &r.st, &err), 0, "%s: %s", what, err.message);
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &r.nm, &err), 0, "%s: %s", what, err.message);
    ptl_blob_free(blob, size, NULL);
    cr_assert_geq(ptl_navmesh_validate(r.nm, &err), 0, "%s: %s", what, err.message);
    ptl_navmesh_get_info(r.nm, &r.info);
    cr_assert_eq(r.info.link_count, r.st.links, "%s: the blob holds %u links, the bake reported %u", what,
                 r.info.link_count, r.st.links);
    return r;
}

/* A walkable cell's floor height at its first vertex. */
static float cell_y(const ptl_navmesh* nm, uint32_t c) {
    ptl_cell_view cv;
    cr_assert_geq(ptl_navmesh_get_cell(nm, c, &cv), 0);
    return ptl_navmesh_vert(nm, cv.verts[0])[1];
}

/* Every link: its cell is a convex quad listed among the last cells, with exactly two portals, to
   the two walkable cells it names (one on each slab), and spans the crack in plan. */
static void check_links(const baked* r, float crack, float rise, float max_gap, const char* what) {
    for (uint32_t i = 0; i < r->info.link_count; ++i) {
        ptl_link_view l;
        cr_assert_geq(ptl_navmesh_get_link(r->nm, i, &l), 0);
        cr_expect_eq(l.cell, r->info.cell_count - r->info.link_count + i, "%s: link %u's cell %u is not in place", what,
                     i, l.cell);
        cr_expect_lt(l.cells[0], l.cells[1], "%s", what);
        ptl_cell_view cv;
        cr_assert_geq(ptl_navmesh_get_cell(r->nm, l.cell, &cv), 0);
        cr_expect_eq(cv.link, i, "%s: cell %u names link %u, not %u", what, l.cell, cv.link, i);
        cr_expect_eq(cv.vert_count, 4u, "%s: a link cell is a quad", what);
        uint32_t nb[2], k = 0;
        double x0 = INFINITY, x1 = -INFINITY;
        for (uint32_t j = 0; j < cv.vert_count; ++j) {
            if (cv.neighbors[j] != PTL_NONE && k < 2) nb[k++] = cv.neighbors[j];
            const float* p = ptl_navmesh_vert(r->nm, cv.verts[j]);
            x0 = fmin(x0, p[0]), x1 = fmax(x1, p[0]);
        }
        cr_assert_eq(k, 2u, "%s: link cell %u has %u portals", what, l.cell, k);
        cr_expect((nb[0] == l.cells[0] && nb[1] == l.cells[1]) || (nb[0] == l.cells[1] && nb[1] == l.cells[0]),
                  "%s: link %u's portals lead to %u and %u, it names %u and %u", what, i, nb[0], nb[1], l.cells[0],
                  l.cells[1]);
        for (int s = 0; s < 2; ++s) {
            ptl_cell_view w;
            cr_assert_geq(ptl_navmesh_get_cell(r->nm, l.cells[s], &w), 0);
            cr_expect_eq(w.link, PTL_NONE, "%s: a link joins walkable cells", what);
        }
        /* In plan it covers the crack (x in [4, 4 + crack]) and no more than the columns the bake may
           cross: max_gap of void plus the ledge column on each side, with a cell of rounding. */
        cr_expect(x0 <= 4 + 1e-3 && x1 >= 4 + crack - 1e-3, "%s: link %u spans x %.3f..%.3f, the crack 4..%.3f", what,
                  i, x0, x1, 4 + crack);
        cr_expect_leq(x1 - x0, max_gap + 2 * 0.3 + 0.3 + 1e-3, "%s: link %u is %.3f wide", what, i, x1 - x0);
        cr_expect(fabs(l.gap - (x1 - x0)) < 1e-3, "%s: link %u's gap %.3f, its quad %.3f wide", what, i, l.gap, x1 - x0);
        /* rise: floor on cells[1]'s side minus cells[0]'s, the slabs' difference within a voxel. */
        float y0 = cell_y(r->nm, l.cells[0]), y1 = cell_y(r->nm, l.cells[1]);
        cr_expect(fabs(l.rise - (y1 - y0)) <= 0.2f + 1e-3, "%s: link %u rises %.3f, its cells %.3f -> %.3f", what, i,
                  l.rise, y0, y1);
        cr_expect(fabs(fabs(l.rise) - fabs(rise)) <= 0.2f + 1e-3, "%s: link %u rises %.3f, the slabs %.3f", what, i,
                  l.rise, rise);
        cr_expect_eq(l.kind, fabsf(rise) < 0.1f ? PTL_LINK_WALK : PTL_LINK_STEP, "%s: link %u is of kind %d", what, i,
                     (int)l.kind);
    }
}

/* Path from slab A's middle to slab B's, in both modes; returns whether it was found (the same in
   both), checking a found path against the straight line and the slabs' heights. */
static bool crosses(const baked* r, float crack, float rise, const char* what) {
    ptl_query* q;
    cr_assert_geq(ptl_query_create(r->nm, NULL, &q), 0, "%s: no query", what);
    float pts[3 * 64];
    bool found[2];
    for (int mode = 0; mode < 2; ++mode) {
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        req.start[0] = 1.5f, req.start[1] = 2, req.start[2] = 2;
        req.goal[0] = 6.5f + crack, req.goal[1] = 2 + rise, req.goal[2] = 2;
        req.mode = mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT;
        ptl_path_result res;
        memset(&res, 0, sizeof res);
        res.points = pts, res.point_capacity = 64;
        ptl_status st = ptl_query_find_path(q, &req, &res);
        cr_assert_geq(st, 0, "%s: %s", what, ptl_status_message(st));
        found[mode] = res.found;
        if (!res.found) continue;
        cr_expect(res.complete, "%s: the path stops short", what);
        double plan = 5 + crack;
        cr_expect_geq(res.length, plan - 1e-4, "%s: the path (%.4f) is shorter than the straight line", what, res.length);
        cr_expect_leq(res.length, hypot(plan, rise) + 0.25, "%s: the path (%.4f) is not straight (%.4f)", what,
                      res.length, hypot(plan, rise));
        for (uint32_t i = 0; i < res.point_count; ++i) {
            const float* p = &pts[3 * i];
            cr_expect(p[1] >= 2 + fminf(rise, 0) - 0.3f && p[1] <= 2 + fmaxf(rise, 0) + 0.3f, "%s: point %u at height %.3f", what, i, p[1]);
            cr_expect(p[2] > 0 && p[2] < 4, "%s: point %u off the slabs (z %.3f)", what, i, p[2]);
        }
    }
    cr_expect_eq(found[0], found[1], "%s: the exact search says %d, the corridor %d", what, found[0], found[1]);
    ptl_query_destroy(q);
    return found[0];
}

Test(links, a_crack_between_slabs_is_crossed_by_one_walk_link) {
    mesh_builder* b = two_slabs(0.5f, 0);
    baked r = bake(b, NULL, "0.5 m crack");
    cr_expect_eq(r.info.link_count, 1u, "a 0.5 m crack: %u links", r.info.link_count);
    check_links(&r, 0.5f, 0, 0.3f, "0.5 m crack");
    cr_expect(crosses(&r, 0.5f, 0, "0.5 m crack"), "no path across the crack");
    /* Links cover no floor: the area is that of the three slabs' tops, whatever the link. */
    ptl_bake_desc none;
    memset(&none, 0, sizeof none);
    none.no_links = true;
    baked n = bake(b, &none, "0.5 m crack, no links");
    cr_expect_eq(n.info.link_count, 0u, "max_gap < 0 still made %u links", n.info.link_count);
    cr_expect(fabs(n.info.walkable_area - r.info.walkable_area) < 1e-6, "walkable area %.4f with links, %.4f without",
              r.info.walkable_area, n.info.walkable_area);
    cr_expect_not(crosses(&n, 0.5f, 0, "0.5 m crack, no links"), "a path crosses the crack with links disabled");
    ptl_navmesh_destroy(r.nm);
    ptl_navmesh_destroy(n.nm);
    free(b);
}

Test(links, a_step_across_a_crack_is_a_step_link_with_its_rise) {
    for (int sign = -1; sign <= 1; sign += 2) {
        /* 3 voxels (0.6 m) up or down: a step whatever the voxel rounding of the tops (one cell
           height, as in Recast), and within max_climb (0.9) even so. */
        float rise = 0.6f * (float)sign;
        mesh_builder* b = two_slabs(0.5f, rise);
        char what[64];
        snprintf(what, sizeof what, "0.5 m crack, %+.1f m step", rise);
        baked r = bake(b, NULL, what);
        cr_expect_eq(r.info.link_count, 1u, "%s: %u links", what, r.info.link_count);
        check_links(&r, 0.5f, rise, 0.3f, what);
        cr_expect(crosses(&r, 0.5f, rise, what), "%s: no path", what);
        ptl_navmesh_destroy(r.nm);
        free(b);
    }
}

Test(links, no_link_up_a_cliff_or_over_a_wide_gap) {
    /* 1.2 m up: more than max_climb (0.9). */
    mesh_builder* cliff = two_slabs(0.5f, 1.2f);
    baked c = bake(cliff, NULL, "cliff");
    cr_expect_eq(c.info.link_count, 0u, "a 1.2 m rise got %u links", c.info.link_count);
    cr_expect_not(crosses(&c, 0.5f, 1.2f, "cliff"), "a path climbs 1.2 m");
    ptl_navmesh_destroy(c.nm);
    free(cliff);
    /* A 1.2 m crack: too wide by default, crossed when max_gap allows it. */
    mesh_builder* wide = two_slabs(1.2f, 0);
    baked w = bake(wide, NULL, "wide crack");
    cr_expect_eq(w.info.link_count, 0u, "a 1.2 m crack got %u links with the default max_gap", w.info.link_count);
    cr_expect_not(crosses(&w, 1.2f, 0, "wide crack"), "a path jumps a 1.2 m crack");
    ptl_navmesh_destroy(w.nm);
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.max_gap = 1.2f;
    baked w2 = bake(wide, &d, "wide crack, max_gap 1.2");
    cr_expect_eq(w2.info.link_count, 1u, "a 1.2 m crack with max_gap 1.2: %u links", w2.info.link_count);
    check_links(&w2, 1.2f, 0, 1.2f, "wide crack, max_gap 1.2");
    cr_expect(crosses(&w2, 1.2f, 0, "wide crack, max_gap 1.2"), "no path over the 1.2 m crack with max_gap 1.2");
    ptl_navmesh_destroy(w2.nm);
    free(wide);
}

Test(links, nothing_solid_over_the_gap) {
    /* A beam across the crack at head height (1 m above the slabs): the agent (2 m) cannot pass. */
    mesh_builder* b = two_slabs(0.5f, 0);
    box(b, 3.5f, 3.0f, -0.5f, 5.0f, 3.3f, 4.5f);
    baked r = bake(b, NULL, "beam over the crack");
    cr_expect_eq(r.info.link_count, 0u, "a link under a beam 1 m above the floor: %u", r.info.link_count);
    ptl_navmesh_destroy(r.nm);
    free(b);
}

/* Links on the shared meshes, where some appear by default (three-pathfinding's level has stair
   treads modelled apart): every one is well formed, and the mesh validates. */
Test(links, shared_meshes_with_wide_gaps_validate) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** files = test_list_files(dir, ".obj");
    uint32_t total = 0;
    for (char** f = files; *f; ++f) {
        ptl_trimesh m;
        ptl_error err;
        cr_assert_geq(ptl_obj_load(*f, NULL, &m, &err), 0, "%s", err.message);
        ptl_bake_desc d;
        memset(&d, 0, sizeof d);
        d.max_gap = 0.9f;
        void* blob;
        size_t size;
        ptl_bake_stats st;
        cr_assert_geq(ptl_bake_trimesh(&m, &d, &blob, &size, &st, &err), 0, "%s: %s", *f, err.message);
        ptl_navmesh* nm;
        cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s: %s", *f, err.message);
        cr_expect_geq(ptl_navmesh_validate(nm, &err), 0, "%s: %s", *f, err.message);
        ptl_navmesh_info info;
        ptl_navmesh_get_info(nm, &info);
        for (uint32_t i = 0; i < info.link_count; ++i) {
            ptl_link_view l;
            cr_assert_geq(ptl_navmesh_get_link(nm, i, &l), 0);
            cr_expect_leq(fabsf(l.rise), 0.9f + 0.2f + 1e-3f, "%s: link %u rises %.3f", *f, i, l.rise);
            cr_expect(l.gap > 0 && l.gap <= 0.9f + 2 * 0.3f + 0.3f + 1e-3f, "%s: link %u gap %.3f", *f, i, l.gap);
            cr_expect_eq(l.kind, fabsf(l.rise) <= 0.2f + 1e-3f ? PTL_LINK_WALK : PTL_LINK_STEP, "%s: link %u", *f, i);
        }
        total += info.link_count;
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
        ptl_trimesh_free(&m);
    }
    cr_log_info("links with max_gap 0.9 on the shared meshes: %u", total);
    test_free_list(files);
}

/* A piece smaller than min_island joined to the rest only by a gap link is not an island, and a
   seed on the rest reaches it across the link. */
Test(links, a_small_slab_across_a_crack_is_kept_and_reached_from_a_seed) {
    mesh_builder* b = calloc(1, sizeof *b);
    box(b, -1, -0.2f, -1, 8, 0, 5);
    box(b, 0, 1.8f, 0, 4, 2, 4);
    box(b, 4.5f, 1.8f, 1, 6.0f, 2, 2.5f); /* 5 x 5 columns, 3 x 3 after the ledge filter: under 64 */
    float seed[3] = {1.5f, 2, 2};
    for (int seeded = 0; seeded < 2; ++seeded) {
        ptl_bake_desc d;
        memset(&d, 0, sizeof d);
        if (seeded) d.seeds = seed, d.seed_count = 1;
        baked r = bake(b, &d, seeded ? "small slab, seeded" : "small slab");
        cr_expect_eq(r.info.link_count, 1u, "%s: %u links", seeded ? "seeded" : "unseeded", r.info.link_count);
        ptl_query* q;
        cr_assert_geq(ptl_query_create(r.nm, NULL, &q), 0);
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        req.start[0] = 1.5f, req.start[1] = 2, req.start[2] = 2;
        req.goal[0] = 5.25f, req.goal[1] = 2, req.goal[2] = 1.75f;
        float pts[3 * 32];
        ptl_path_result res;
        memset(&res, 0, sizeof res);
        res.points = pts, res.point_capacity = 32;
        cr_expect_geq(ptl_query_find_path(q, &req, &res), 0);
        cr_expect(res.found && res.complete, "%s: no path onto the small slab", seeded ? "seeded" : "unseeded");
        ptl_query_destroy(q);
        ptl_navmesh_destroy(r.nm);
    }
    free(b);
}
