/* Pockets (runtime/pockets.c): the lids found close pockets of free space (each vertex under a lid
   lies on the pocket's side of it, and the lid's ends are on the vertex's ring), searches that skip
   the pockets give the lengths of searches that look everywhere (start and goal inside pockets,
   outside, in two different ones), and decompositions with the lids cut off first (--lids) do too.
   The shared scenarios with pockets and lids: tests/test_paths.c. */
#include "../runtime/navmesh_format.h"
#include "../runtime/navmesh_internal.h"
#include "../runtime/query_internal.h"
#include "test_util.h"

/* A hole with bays: irregular steps on its right side and a U-shaped bay opening downwards. */
static const char MAP[] = "type octile\nheight 14\nwidth 20\nmap\n"
                          "....................\n"
                          "....................\n"
                          "...@@@@@@@@@@.......\n"
                          "...@@@@@@@@@@@@.....\n"
                          "...@@@@@@@@@@.......\n"
                          "...@@@@@@@@@@@@@....\n"
                          "...@@@@@@@@@@@@.....\n"
                          "...@@@@@@@@@@@@@@...\n"
                          "...@@@@@@@@@@@@.....\n"
                          "...@@@.....@@@@.....\n"
                          "...@@@.....@@@@.....\n"
                          "...@@@.....@@@@.....\n"
                          "....................\n"
                          "....................\n";

static ptl_navmesh* bake(const ptl_grid* g, bool lids, bool hubs) {
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_shape_from_grid(g, NULL, &s, &err), 0, "%s", err.message);
    ptl_bake_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.lids = lids;
    bd.hubs = hubs;
    void* blob;
    size_t size;
    cr_assert_geq(ptl_bake_shape(&s, &bd, &blob, &size, NULL, &err), 0, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_navmesh_validate(nm, &err), 0, "%s", err.message);
    ptl_blob_free(blob, size, NULL);
    ptl_shape_free(&s);
    return nm;
}

Test(pockets, the_lids_close_pockets_on_the_vertices_side) {
    ptl_grid g;
    ptl_error err;
    cr_assert_geq(ptl_grid_parse(MAP, strlen(MAP), "pockets.map", NULL, &g, &err), 0, "%s", err.message);
    ptl_navmesh* nm = bake(&g, false, false);
    cr_assert_not_null(nm->pocket, "a 2D navmesh has pocket data");
    uint32_t under = 0;
    for (uint32_t v = 0; v < nm->h->vert_count; ++v) {
        uint32_t a = nm->pocket[2 * v], c = nm->pocket[2 * v + 1];
        if (a == PTL_NONE) continue;
        ++under;
        cr_expect(a < nm->h->vert_count && c < nm->h->vert_count && a != c && a != v && c != v, "vertex %u: lid %u-%u", v,
                  a, c);
        double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a), cx = ptl_nm_vx(nm, c), cz = ptl_nm_vz(nm, c);
        double o = (cx - ax) * (ptl_nm_vz(nm, v) - az) - (cz - az) * (ptl_nm_vx(nm, v) - ax);
        cr_expect(o != 0, "vertex %u lies on its lid's line", v);
        /* walls run with free space on their left: a pocket lies to the right of its lid a -> c */
        cr_expect(o < 0, "vertex %u is on the free side of its lid", v);
    }
    /* the steps (3 corners strictly under the hull of the right side) and the U's inside */
    cr_expect_geq(under, 5, "only %u vertices under a lid", under);
    ptl_navmesh_destroy(nm);
    ptl_grid_free(&g);
}

/* Every pair of lattice points of free cells (and points just inside the cells): the search that
   skips pockets gives the found flag and length of the one that looks everywhere. */
static void compare_all_pairs(const ptl_grid* g, ptl_navmesh* nm, uint32_t step, const char* what) {
    ptl_query *qp, *qa;
    ptl_query_desc qd = {.max_nodes = 1u << 16};
    ptl_query_switches all = {.ignore_hubs = true, .ignore_pockets = true};
    cr_assert_geq(ptl_query_create(nm, &qd, &qp), 0);
    cr_assert_geq(ptl_query_create_with_switches(nm, &qd, &all, &qa), 0);
    static float pa[3 * 1024], pb[3 * 1024];
    uint32_t n = g->width * g->height, pairs = 0, bad = 0;
    for (uint32_t i = 0; i < n; i += step) {
        if (!g->passable[i]) continue;
        for (uint32_t j = i % 3; j < n; j += step) {
            if (!g->passable[j] || i == j) continue;
            ptl_path_request req;
            memset(&req, 0, sizeof req);
            req.start[0] = (float)(i % g->width) + ((i & 1) ? 0.5f : 0), req.start[2] = (float)(i / g->width);
            req.goal[0] = (float)(j % g->width), req.goal[2] = (float)(j / g->width) + ((j & 2) ? 0.25f : 0);
            ptl_path_result a, b;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            a.points = pa, a.point_capacity = 1024;
            b.points = pb, b.point_capacity = 1024;
            ptl_query_find_path(qp, &req, &a);
            ptl_query_find_path(qa, &req, &b);
            ++pairs;
            if ((a.found != b.found || fabs(a.length - b.length) > 1e-9 * (1 + b.length)) && bad++ < 3)
                cr_expect(0, "%s: (%g, %g) -> (%g, %g): %d %.12f skipping pockets, %d %.12f without", what, req.start[0],
                          req.start[2], req.goal[0], req.goal[2], a.found, a.length, b.found, b.length);
        }
    }
    cr_expect_eq(bad, 0, "%s: %u of %u pairs differ", what, bad, pairs);
    cr_expect_gt(pairs, 100, "%s: only %u pairs", what, pairs);
    ptl_query_destroy(qp);
    ptl_query_destroy(qa);
}

Test(pockets, skipping_them_changes_no_path_on_a_map_of_bays) {
    ptl_grid g;
    ptl_error err;
    cr_assert_geq(ptl_grid_parse(MAP, strlen(MAP), "pockets.map", NULL, &g, &err), 0, "%s", err.message);
    for (int lids = 0; lids < 2; ++lids) {
        for (int hubs = 0; hubs < 2; ++hubs) {
            ptl_navmesh* nm = bake(&g, lids, hubs);
            char what[64];
            snprintf(what, sizeof what, "bays, lids %d hubs %d", lids, hubs);
            compare_all_pairs(&g, nm, 1, what);
            ptl_navmesh_destroy(nm);
        }
    }
    ptl_grid_free(&g);
}

Test(pockets, skipping_them_changes_no_path_on_generated_maps, .timeout = 300) {
    const ptl_grid_gen_desc maps[] = {{.scene = PTL_GRID_SCENE_ROOMS, .width = 96, .height = 64, .seed = 2, .density = 0}, {.scene = PTL_GRID_SCENE_RANDOM, .width = 64, .height = 64, .seed = 9, .density = 0.3f}};
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; ++m) {
        ptl_grid g;
        ptl_error err;
        cr_assert_geq(ptl_grid_generate(&maps[m], &g, &err), 0, "%s", err.message);
        for (int lids = 0; lids < 2; ++lids) {
            ptl_navmesh* nm = bake(&g, lids, lids);
            char what[64];
            snprintf(what, sizeof what, "generated map %zu, lids and hubs %d", m, lids);
            compare_all_pairs(&g, nm, 37, what);
            ptl_navmesh_destroy(nm);
        }
        ptl_grid_free(&g);
    }
}

/* A square spiral of 1-cell walls: every outline is one long ring whose lids are blocked by the
   next turn. The pocket scan must stay cheap (its work is bounded) and the paths exact. */
Test(pockets, a_spiral_loads_and_its_paths_stay_exact, .timeout = 120) {
    enum { N = 121 };
    static char text[64 + N * (N + 1)];
    int off = snprintf(text, sizeof text, "type octile\nheight %d\nwidth %d\nmap\n", N, N);
    static char cell[N][N];
    memset(cell, '.', sizeof cell);
    /* walls on the rings of a spiral: a square ring every 2 cells, each with a gap at a turning corner */
    for (int r = 1; r < N / 2; r += 2) {
        int lo = r, hi = N - 1 - r;
        for (int i = lo; i <= hi; ++i) cell[lo][i] = cell[hi][i] = cell[i][lo] = cell[i][hi] = '@';
        cell[lo][lo + 1 + (r % 4 == 1 ? 0 : hi - lo - 2)] = '.'; /* the gap alternates sides */
    }
    for (int y = 0; y < N; ++y) {
        memcpy(text + off, cell[y], N);
        off += N;
        text[off++] = '\n';
    }
    ptl_grid g;
    ptl_error err;
    cr_assert_geq(ptl_grid_parse(text, (size_t)off, "spiral.map", NULL, &g, &err), 0, "%s", err.message);
    ptl_navmesh* nm = bake(&g, true, false);
    compare_all_pairs(&g, nm, 613, "spiral");
    ptl_navmesh_destroy(nm);
    ptl_grid_free(&g);
}

/* The lids section (a --lids bake): a lid naming a portal out of range, a cell not on its portal,
   or the outer side of its portal (its "pocket" would then be the rest of the map, reaching other
   lids) is refused at load, naming the lid. */
Test(pockets, a_damaged_lids_section_is_refused_at_load) {
    ptl_grid g;
    ptl_error err;
    cr_assert_geq(ptl_grid_parse(MAP, strlen(MAP), "pockets.map", NULL, &g, &err), 0, "%s", err.message);
    ptl_shape s;
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    ptl_bake_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.lids = true;
    void* blob;
    size_t size;
    cr_assert_geq(ptl_bake_shape(&s, &bd, &blob, &size, NULL, &err), 0, "%s", err.message);
    ptl_blob_header* h = blob;
    cr_assert_geq(h->lid_count, 2, "the map of bays has lids");
    for (int k = 0; k < 3; ++k) {
        void* copy = malloc(size);
        memcpy(copy, blob, size);
        ptl_blob_header* c = copy;
        ptl_blob_lid* lids = (ptl_blob_lid*)((char*)copy + c->off_lids);
        const ptl_blob_portal* portals = (const ptl_blob_portal*)((const char*)copy + c->off_portals);
        const ptl_blob_portal* p = &portals[lids[0].portal];
        if (k == 0) lids[0].portal = c->portal_count;
        if (k == 1) lids[0].inner = c->cell_count;
        if (k == 2) lids[0].inner = p->cell[0] == lids[0].inner ? p->cell[1] : p->cell[0];
        c->checksum = ptl_blob_checksum(copy, size);
        ptl_navmesh* nm = NULL;
        ptl_status st = ptl_navmesh_create(copy, size, NULL, &nm, &err);
        cr_expect_eq(st, PTL_ERR_BAD_BLOB, "damage %d: loaded (%s)", k, ptl_status_name(st));
        if (st >= 0) ptl_navmesh_destroy(nm);
        else cr_expect(strstr(err.message, "lid"), "damage %d: %s", k, err.message);
        free(copy);
    }
    ptl_blob_free(blob, size, NULL);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}
