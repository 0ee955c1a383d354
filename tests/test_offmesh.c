/* Off-mesh links (runtime/offmesh.c, the exact search's use of them in runtime/search.c): a ladder
   makes a roof nothing else reaches reachable, through both of its ends; removing it makes the roof
   unreachable again; stale ids are refused; links join far tiles; one-way links work one way; and
   every path's length is checked against an oracle that knows nothing of the search's links: the
   shortest way over the graph of start, goal and the links' ends, its edges the lengths of
   separate point-to-point paths on the same navmesh without links, plus the links' costs. */
#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "failing_alloc.h"
#include "mesh_builder.h"
#include "query_reference.h"

#define MAX_LINKS 8

/* Bakes the scene (agent radius 0, islands kept). */
static ptl_navmesh* bake_scene(mesh_builder* b, uint32_t tile_size, const ptl_offmesh_desc* links, uint32_t link_count) {
    const ptl_bake_desc d = {.keep_islands = true, .tile_size = tile_size, .offmesh = links, .offmesh_count = link_count};
    return bake_builder(b, &d);
}

/* The same navmesh loaded again from its blob and never given links: the oracle's. */
static ptl_navmesh* oracle_twin(const ptl_navmesh* nm) {
    size_t size;
    const void* blob = ptl_navmesh_blob(nm, &size);
    ptl_navmesh* nm0;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm0, NULL), PTL_OK);
    return nm0;
}

typedef struct found {
    ptl_status st;
    ptl_path_result res;
    float pts[3 * 256];
    uint8_t flags[256];
} found;

static void path(ptl_query* q, const float s[3], const float t[3], ptl_path_mode mode, found* out) {
    memset(out, 0, sizeof *out);
    ptl_path_request req = {.mode = mode, .extents = {0.5f, 1.0f, 0.5f}};
    memcpy(req.start, s, sizeof req.start);
    memcpy(req.goal, t, sizeof req.goal);
    out->res.points = out->pts, out->res.point_capacity = 256, out->res.flags = out->flags;
    out->st = ptl_query_find_path(q, &req, &out->res);
}

/* The length of the path on the navmesh without links (q0), +inf when there is none. */
static double mesh_dist(ptl_query* q0, const float a[3], const float b[3]) {
    found f;
    path(q0, a, b, PTL_PATH_EXACT, &f);
    return f.st == PTL_OK && f.res.found ? f.res.length : INFINITY;
}

/* The oracle: Floyd-Warshall over s, t and the live links' located ends. */
static double oracle(ptl_query* q0, const ptl_navmesh* nm, const float s[3], const float t[3]) {
    enum { N = 2 + 2 * MAX_LINKS };
    float p[N][3];
    double d[N][N];
    uint32_t links = ptl_navmesh_offmesh_count(nm), n = 2 + 2 * links;
    cr_assert(links <= MAX_LINKS);
    memcpy(p[0], s, sizeof p[0]);
    memcpy(p[1], t, sizeof p[1]);
    ptl_offmesh_view v[MAX_LINKS];
    for (uint32_t i = 0; i < links; ++i) {
        cr_assert_eq(ptl_navmesh_get_offmesh(nm, i, &v[i]), PTL_OK);
        memcpy(p[2 + 2 * i], v[i].start, sizeof p[0]);
        memcpy(p[3 + 2 * i], v[i].end, sizeof p[0]);
    }
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j = 0; j < n; ++j) d[i][j] = i == j ? 0 : mesh_dist(q0, p[i], p[j]);
    for (uint32_t i = 0; i < links; ++i) {
        d[2 + 2 * i][3 + 2 * i] = fmin(d[2 + 2 * i][3 + 2 * i], v[i].cost);
        if (v[i].desc.bidir) d[3 + 2 * i][2 + 2 * i] = fmin(d[3 + 2 * i][2 + 2 * i], v[i].cost);
    }
    for (uint32_t k = 0; k < n; ++k)
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = 0; j < n; ++j) d[i][j] = fmin(d[i][j], d[i][k] + d[k][j]);
    return d[0][1];
}

/* The corridor's lengths against the oracle's over a test: their sum and the worst ratio. */
static double corridor_sum, oracle_sum, corridor_worst;

/* The path from s to t has the oracle's length in exact mode, or none when the oracle has none; the
   corridor (A* over cells, links included: not always shortest) finds a path exactly then, never
   shorter than the oracle's. */
static void expect_oracle(ptl_query* q, ptl_query* q0, const ptl_navmesh* nm, const float s[3], const float t[3],
                          const char* what) {
    ptl_location ls, lt;
    if (ptl_query_locate(q0, s, (float[3]){0.5f, 1.0f, 0.5f}, &ls) != PTL_OK ||
        ptl_query_locate(q0, t, (float[3]){0.5f, 1.0f, 0.5f}, &lt) != PTL_OK)
        return; /* an end inside a wall */
    double want = oracle(q0, nm, s, t);
    for (int mode = 0; mode < 2; ++mode) {
        found f;
        path(q, s, t, mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT, &f);
        if (isinf(want)) {
            cr_expect(f.st == PTL_PARTIAL && !f.res.found, "%s: a path where none exists (%s)", what, ptl_status_name(f.st));
            continue;
        }
        cr_assert(f.st == PTL_OK && f.res.found, "%s: no path (%s), the oracle has one of %g", what, ptl_status_name(f.st), want);
        if (mode == 0) {
            cr_expect(fabs(f.res.length - want) <= 1e-4 * (1 + want), "%s (exact): length %.6f, the oracle's %.6f", what,
                      f.res.length, want);
        } else {
            cr_expect(f.res.length >= want - 1e-4 * (1 + want), "%s (corridor): length %.6f, shorter than the oracle's %.6f",
                      what, f.res.length, want);
            corridor_sum += f.res.length, oracle_sum += want;
            if (want > 0 && f.res.length / want > corridor_worst) corridor_worst = f.res.length / want;
        }
    }
}

static bool has_point(const found* f, const float p[3], uint8_t flag) {
    for (uint32_t i = 0; i < f->res.point_count; ++i)
        if (fabsf(f->pts[3 * i] - p[0]) < 1e-4f && fabsf(f->pts[3 * i + 1] - p[1]) < 1e-4f &&
            fabsf(f->pts[3 * i + 2] - p[2]) < 1e-4f && f->flags[i] == flag)
            return true;
    return false;
}

/* A 20 x 20 floor and a 4 x 4 roof 5 above it that nothing reaches. */
static void floor_and_roof(mesh_builder* b) {
    memset(b, 0, sizeof *b);
    floor_quad(b, 0, 0, 20, 20, 0);
    floor_quad(b, 4, 4, 8, 8, 5);
}

Test(offmesh, a_ladder_makes_the_roof_reachable_through_both_ends_and_removing_it_undoes_that, .timeout = 60) {
    static mesh_builder b;
    floor_and_roof(&b);
    ptl_navmesh* nm = bake_scene(&b, 0, NULL, 0);
    ptl_navmesh* nm0 = oracle_twin(nm);
    ptl_query* q = make_query(nm);
    ptl_query* q0 = make_query(nm0);
    const float s[3] = {15, 0, 15}, t[3] = {7, 5, 7};
    found f;
    path(q, s, t, PTL_PATH_EXACT, &f);
    cr_assert(f.st == PTL_PARTIAL && !f.res.found, "the roof is reachable before the ladder (%s)", ptl_status_name(f.st));

    ptl_offmesh_desc ladder = {.start = {3, 0, 6}, .end = {5, 5, 6}, .radius = 0.5f, .bidir = true};
    ptl_offmesh_id id;
    ptl_error err;
    cr_assert_eq(ptl_navmesh_add_offmesh(nm, &ladder, &id, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_navmesh_offmesh_count(nm), 1);
    ptl_offmesh_view v;
    cr_assert_eq(ptl_navmesh_get_offmesh(nm, 0, &v), PTL_OK);
    cr_expect_eq(v.id, id);
    cr_expect(fabsf(v.cost - hypotf(hypotf(v.end[0] - v.start[0], v.end[1] - v.start[1]), v.end[2] - v.start[2])) < 1e-5f);
    for (int dir = 0; dir < 2; ++dir) {
        const float* a = dir ? t : s;
        const float* c = dir ? s : t;
        path(q, a, c, PTL_PATH_EXACT, &f);
        cr_assert(f.st == PTL_OK && f.res.found, "dir %d: no path with the ladder (%s)", dir, ptl_status_name(f.st));
        cr_expect(has_point(&f, dir ? v.end : v.start, PTL_PATH_POINT_OFFMESH), "dir %d: the path misses the ladder's near end", dir);
        cr_expect(has_point(&f, dir ? v.start : v.end, 0), "dir %d: the path misses the ladder's far end", dir);
        double want = mesh_dist(q0, a, dir ? v.end : v.start) + v.cost + mesh_dist(q0, dir ? v.start : v.end, c);
        cr_expect(fabs(f.res.length - want) < 1e-4, "dir %d: length %.6f, expected %.6f", dir, f.res.length, want);
        expect_oracle(q, q0, nm, a, c, dir ? "roof -> floor" : "floor -> roof");
    }
    /* a path on the floor alone ignores the ladder */
    const float u[3] = {1, 0, 1}, w[3] = {19, 0, 19};
    expect_oracle(q, q0, nm, u, w, "floor -> floor");

    cr_assert_eq(ptl_navmesh_remove_offmesh(nm, id), PTL_OK);
    cr_expect_eq(ptl_navmesh_remove_offmesh(nm, id), PTL_ERR_NOT_FOUND, "a stale id is refused");
    cr_expect_eq(ptl_navmesh_remove_offmesh(nm, id + 1), PTL_ERR_NOT_FOUND, "an unknown id is refused");
    cr_expect_eq(ptl_navmesh_offmesh_count(nm), 0);
    path(q, s, t, PTL_PATH_EXACT, &f);
    cr_expect(f.st == PTL_PARTIAL && !f.res.found, "the roof is reachable after the ladder went (%s)", ptl_status_name(f.st));
    /* the slot is reused with another salt: the old id stays stale */
    ptl_offmesh_id id2;
    cr_assert_eq(ptl_navmesh_add_offmesh(nm, &ladder, &id2, NULL), PTL_OK);
    cr_expect_neq(id2, id);
    cr_expect_eq(ptl_navmesh_remove_offmesh(nm, id), PTL_ERR_NOT_FOUND);
    cr_expect_eq(ptl_navmesh_remove_offmesh(nm, id2), PTL_OK);
    ptl_query_destroy(q), ptl_query_destroy(q0);
    ptl_navmesh_destroy(nm), ptl_navmesh_destroy(nm0);
}

Test(offmesh, an_end_off_the_mesh_or_bad_fields_are_refused_clearly) {
    static mesh_builder b;
    floor_and_roof(&b);
    ptl_navmesh* nm = bake_scene(&b, 0, NULL, 0);
    ptl_offmesh_id id = 0;
    ptl_error err;
    ptl_offmesh_desc far = {.start = {3, 0, 6}, .end = {50, 0, 50}, .radius = 0.5f};
    cr_expect_eq(ptl_navmesh_add_offmesh(nm, &far, &id, &err), PTL_ERR_NOT_FOUND);
    cr_expect(strstr(err.message, "end") != NULL, "the error names the end: %s", err.message);
    ptl_offmesh_desc high = {.start = {3, 3, 6}, .end = {5, 5, 6}, .radius = 0.5f};
    cr_expect_eq(ptl_navmesh_add_offmesh(nm, &high, &id, &err), PTL_ERR_NOT_FOUND, "a start 3 above the floor, radius 0.5");
    cr_expect(strstr(err.message, "start") != NULL, "%s", err.message);
    ptl_offmesh_desc bad = {.start = {3, 0, 6}, .end = {5, 5, 6}, .radius = -1};
    cr_expect_eq(ptl_navmesh_add_offmesh(nm, &bad, &id, &err), PTL_ERR_INVALID_ARG);
    bad.radius = 0, bad.area = 64;
    cr_expect_eq(ptl_navmesh_add_offmesh(nm, &bad, &id, &err), PTL_ERR_INVALID_ARG);
    bad.area = 0, bad.start[0] = NAN;
    cr_expect_eq(ptl_navmesh_add_offmesh(nm, &bad, &id, &err), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_navmesh_offmesh_count(nm), 0);
    ptl_navmesh_destroy(nm);
}

/* Two floors 20 apart along x, in tiles of 16 columns (4.8 wu): a link joins tiles far apart. */
static void two_floors(mesh_builder* b) {
    memset(b, 0, sizeof *b);
    floor_quad(b, 0, 0, 10, 4, 0);
    floor_quad(b, 30, 0, 40, 4, 0);
}

Test(offmesh, a_link_across_far_tiles_works_and_a_one_way_link_only_one_way, .timeout = 60) {
    static mesh_builder b;
    two_floors(&b);
    ptl_navmesh* nm = bake_scene(&b, 16, NULL, 0);
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    cr_assert_geq(info.tile_count, 6, "tiles: %u", info.tile_count);
    ptl_navmesh* nm0 = oracle_twin(nm);
    ptl_query* q = make_query(nm);
    ptl_query* q0 = make_query(nm0);
    const float a[3] = {1, 0, 2}, c[3] = {39, 0, 2};
    ptl_offmesh_desc jump = {.start = {9, 0, 2}, .end = {31, 0, 2}, .radius = 0.5f, .bidir = false, .cost = 3};
    ptl_offmesh_id id;
    cr_assert_eq(ptl_navmesh_add_offmesh(nm, &jump, &id, NULL), PTL_OK);
    ptl_offmesh_view v;
    ptl_navmesh_get_offmesh(nm, 0, &v);
    uint32_t t0[4], t1[4];
    ptl_navmesh_cell_tiles(nm, v.start_cell, t0);
    ptl_navmesh_cell_tiles(nm, v.end_cell, t1);
    cr_expect(t1[0] > t0[2] + 1, "the ends' cells are in tiles far apart (%u..%u, %u..%u)", t0[0], t0[2], t1[0], t1[2]);
    found f;
    path(q, a, c, PTL_PATH_EXACT, &f);
    cr_assert(f.st == PTL_OK, "%s", ptl_status_name(f.st));
    cr_expect(fabs(f.res.length - (8 + 3 + 8)) < 1e-4, "length %.6f", f.res.length);
    expect_oracle(q, q0, nm, a, c, "one-way, its way");
    path(q, c, a, PTL_PATH_EXACT, &f);
    cr_expect(f.st == PTL_PARTIAL && !f.res.found, "a one-way link used backwards (%s)", ptl_status_name(f.st));
    expect_oracle(q, q0, nm, c, a, "one-way, against it");
    ptl_query_destroy(q), ptl_query_destroy(q0);
    ptl_navmesh_destroy(nm), ptl_navmesh_destroy(nm0);
}

/* A long corridor with cheap teleports: the path takes them exactly when they pay, chained or not
   (a heuristic that overestimated with links would end the search on a longer path). */
Test(offmesh, cheap_teleports_give_the_exact_shorter_path, .timeout = 120) {
    static mesh_builder b;
    memset(&b, 0, sizeof b);
    floor_quad(&b, 0, 0, 40, 4, 0);
    box(&b, 10, -1, 1, 11, 3, 4); /* walls to turn around */
    box(&b, 25, -1, 0, 26, 3, 3);
    ptl_navmesh* nm = bake_scene(&b, 0, NULL, 0);
    ptl_navmesh* nm0 = oracle_twin(nm);
    ptl_query* q = make_query(nm);
    ptl_query* q0 = make_query(nm0);
    const ptl_offmesh_desc links[] = {
        {.start = {2, 0, 2}, .end = {38, 0, 2}, .radius = 0.5f, .cost = 1},
        {.start = {5, 0, 3}, .end = {20, 0, 1}, .radius = 0.5f, .cost = 0.5f, .bidir = true},
        {.start = {21, 0, 3.5f}, .end = {35, 0, 0.5f}, .radius = 0.5f, .cost = 2},
    };
    uint64_t st = 7;
    for (uint32_t k = 0; k <= 3; ++k) {
        if (k > 0) cr_assert_eq(ptl_navmesh_add_offmesh(nm, &links[k - 1], NULL, NULL), PTL_OK);
        for (int i = 0; i < 40; ++i) {
            float s[3] = {(float)rng_int(&st, 1, 390) / 10, 0, (float)rng_int(&st, 1, 39) / 10};
            float t[3] = {(float)rng_int(&st, 1, 390) / 10, 0, (float)rng_int(&st, 1, 39) / 10};
            char what[96];
            snprintf(what, sizeof what, "%u links, (%g, %g) -> (%g, %g)", k, s[0], s[2], t[0], t[2]);
            expect_oracle(q, q0, nm, s, t, what);
        }
    }
    ptl_query_destroy(q), ptl_query_destroy(q0);
    ptl_navmesh_destroy(nm), ptl_navmesh_destroy(nm0);
}

/* ---- Bake-time links: the blob's off-mesh section (navmesh_format.h, version 6) ---------------- */
#include <stddef.h>

#include "../runtime/navmesh_format.h"

Test(offmesh, links_given_to_the_bake_round_trip_through_the_blob_and_a_damaged_section_is_refused, .timeout = 60) {
    static mesh_builder b;
    floor_and_roof(&b);
    const ptl_offmesh_desc links[] = {
        {.start = {3, 0, 6}, .end = {5, 5, 6}, .radius = 0.5f, .bidir = true, .area = 7, .user_id = 42},
        {.start = {15, 0, 1}, .end = {1, 0, 15}, .radius = 0.5f, .cost = 2.5f},
    };
    ptl_navmesh* nm = bake_scene(&b, 0, links, 2);
    cr_assert_eq(ptl_navmesh_offmesh_count(nm), 2);
    ptl_offmesh_view v0, v1;
    cr_assert_eq(ptl_navmesh_get_offmesh(nm, 0, &v0), PTL_OK);
    cr_assert_eq(ptl_navmesh_get_offmesh(nm, 1, &v1), PTL_OK);
    cr_expect(v0.desc.bidir && v0.desc.area == 7 && v0.desc.user_id == 42 && !v1.desc.bidir && v1.cost == 2.5f);
    cr_expect(fabsf(v0.end[1] - 5) < 0.3f && fabsf(v0.start[0] - 3) < 1e-5f, "ladder ends (%g %g %g) (%g %g %g)", v0.start[0],
              v0.start[1], v0.start[2], v0.end[0], v0.end[1], v0.end[2]);
    ptl_query* q = make_query(nm);
    found f;
    const float s[3] = {15, 0, 15}, t[3] = {7, 5, 7};
    path(q, s, t, PTL_PATH_EXACT, &f);
    cr_expect(f.st == PTL_OK && has_point(&f, v0.start, PTL_PATH_POINT_OFFMESH), "the baked ladder is used (%s)",
              ptl_status_name(f.st));
    ptl_query_destroy(q);

    /* the blob loads again with the same links */
    size_t size;
    const uint8_t* blob = ptl_navmesh_blob(nm, &size);
    ptl_navmesh* again;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &again, NULL), PTL_OK);
    ptl_offmesh_view w0;
    cr_assert_eq(ptl_navmesh_get_offmesh(again, 0, &w0), PTL_OK);
    cr_expect(memcmp(w0.start, v0.start, sizeof w0.start) == 0 && memcmp(w0.end, v0.end, sizeof w0.end) == 0 &&
              w0.start_cell == v0.start_cell && w0.end_cell == v0.end_cell && w0.cost == v0.cost);
    ptl_navmesh_destroy(again);

    /* damaged sections, checksum made right: refused with PTL_ERR_BAD_BLOB naming the section */
    const ptl_blob_header* h = (const ptl_blob_header*)blob;
    cr_assert_eq(h->version, 6u);
    cr_assert_eq(h->offmesh_count, 2u);
    uint8_t* copy = malloc(size);
    for (int kind = 0; kind < 6; ++kind) {
        memcpy(copy, blob, size);
        ptl_blob_header* hc = (ptl_blob_header*)copy;
        ptl_blob_offmesh* o = (ptl_blob_offmesh*)(copy + hc->off_offmesh);
        switch (kind) {
        case 0: o[0].start[1] = NAN; break;
        case 1: o[1].end_cell = 1u << 30; break;
        case 2: o[0].area = 64; break;
        case 3: o[1].end[0] = 50; break; /* off the mesh */
        case 4: hc->offmesh_count = 1000; break;
        case 5: o[0].radius = -1; break;
        }
        uint64_t sum = ptl_blob_checksum(copy, size);
        memcpy(copy + offsetof(ptl_blob_header, checksum), &sum, sizeof sum);
        ptl_navmesh* bad = NULL;
        ptl_error err;
        cr_expect_eq(ptl_navmesh_create(copy, size, NULL, &bad, &err), PTL_ERR_BAD_BLOB, "damage %d loads", kind);
        cr_expect(strstr(err.message, "off-mesh") != NULL, "damage %d: %s", kind, err.message);
        ptl_navmesh_destroy(bad);
    }
    free(copy);
    ptl_navmesh_destroy(nm);
}

Test(offmesh, a_bake_with_a_link_off_the_mesh_fails_naming_the_link) {
    static mesh_builder b;
    floor_and_roof(&b);
    ptl_trimesh m = as_trimesh(&b);
    const ptl_offmesh_desc links[] = {{.start = {3, 0, 6}, .end = {5, 5, 6}}, {.start = {3, 0, 6}, .end = {60, 0, 6}}};
    ptl_bake_desc d = {.keep_islands = true, .offmesh = links, .offmesh_count = 2};
    void* blob = NULL;
    size_t size = 0;
    ptl_error err;
    cr_expect_eq(ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err), PTL_ERR_NOT_FOUND);
    cr_expect(strstr(err.message, "link 1") != NULL && strstr(err.message, "end") != NULL, "%s", err.message);
    cr_expect_null(blob);
}

/* Random walled grid maps (many corners, dead ends, separate regions) with random links of random
   costs, one- and two-way, some starting in dead ends: every path has the oracle's length. */
Test(offmesh, random_links_on_walled_grid_maps_give_the_oracles_lengths, .timeout = 300) {
    corridor_sum = oracle_sum = corridor_worst = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        ptl_grid g;
        ptl_shape sh = grid_shape(9100 + seed, 20, 20, 30, &g);
        ptl_navmesh* nm = bake_ptl_shape(&sh, PTL_NAVMESH_LATTICE_POINTS);
        ptl_navmesh* nm0 = oracle_twin(nm);
        ptl_query* q = make_query(nm);
        ptl_query* q0 = make_query(nm0);
        uint64_t st = seed * 977;
        for (int k = 0; k < 3; ++k) {
            int ax, az, bx, bz;
            do ax = rng_int(&st, 0, 19), az = rng_int(&st, 0, 19);
            while (!grid_free(&g, ax, az));
            do bx = rng_int(&st, 0, 19), bz = rng_int(&st, 0, 19);
            while (!grid_free(&g, bx, bz));
            ptl_offmesh_desc d = {.start = {(float)ax + 0.5f, 0, (float)az + 0.5f}, .end = {(float)bx + 0.5f, 0, (float)bz + 0.5f},
                                  .radius = 0.25f, .bidir = k != 1, .cost = k == 2 ? 0.5f : 0};
            cr_assert_eq(ptl_navmesh_add_offmesh(nm, &d, NULL, NULL), PTL_OK);
        }
        for (int i = 0; i < 40; ++i) {
            int sx, sz, tx, tz;
            do sx = rng_int(&st, 0, 19), sz = rng_int(&st, 0, 19);
            while (!grid_free(&g, sx, sz));
            do tx = rng_int(&st, 0, 19), tz = rng_int(&st, 0, 19);
            while (!grid_free(&g, tx, tz));
            const float s[3] = {(float)sx + 0.375f, 0, (float)sz + 0.625f}, t[3] = {(float)tx + 0.25f, 0, (float)tz + 0.75f};
            char what[96];
            snprintf(what, sizeof what, "grid %u: (%g, %g) -> (%g, %g)", (unsigned)seed, s[0], s[2], t[0], t[2]);
            expect_oracle(q, q0, nm, s, t, what);
        }
        ptl_query_destroy(q), ptl_query_destroy(q0);
        ptl_navmesh_destroy(nm), ptl_navmesh_destroy(nm0);
        ptl_shape_free(&sh);
        ptl_grid_free(&g);
    }
    /* The corridor through links is as close to the shortest as the corridor on these maps without
       them (a few percent). */
    printf("offmesh: corridor paths through links %.2f%% longer than the shortest in all, at worst %.1f%%\n",
           100 * (corridor_sum / oracle_sum - 1), 100 * (corridor_worst - 1));
    cr_expect_leq(corridor_sum, 1.05 * oracle_sum, "the corridor's paths are %.1f%% longer in all",
                  100 * (corridor_sum / oracle_sum - 1));
}

/* Adding, searching and removing with an allocator that fails at each call in turn: every failure is
   PTL_ERR_NO_MEMORY (or a search without links), nothing leaks, the navmesh stays usable. */
Test(offmesh, out_of_memory_at_every_allocation_fails_cleanly, .timeout = 120) {
    static mesh_builder b;
    floor_and_roof(&b);
    ptl_navmesh* base = bake_scene(&b, 0, NULL, 0);
    size_t size;
    const void* blob = ptl_navmesh_blob(base, &size);
    const ptl_offmesh_desc ladder = {.start = {3, 0, 6}, .end = {5, 5, 6}, .radius = 0.5f, .bidir = true};
    const float s[3] = {15, 0, 15}, t[3] = {7, 5, 7};
    bool done = false;
    for (long n = 0; n < 400 && !done; ++n) {
        tracking tr = {.fail_at = -1};
        ptl_allocator a = {t_alloc, t_realloc, t_free, &tr};
        ptl_navmesh* nm;
        cr_assert_eq(ptl_navmesh_create(blob, size, &(ptl_navmesh_desc){.alloc = &a}, &nm, NULL), PTL_OK);
        ptl_query* q;
        cr_assert_eq(ptl_query_create(nm, &(ptl_query_desc){.alloc = &a}, &q), PTL_OK);
        tr.fail_at = tr.calls + n, tr.fail_after = true;
        ptl_offmesh_id id = 0;
        ptl_status st = ptl_navmesh_add_offmesh(nm, &ladder, &id, NULL);
        cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "n %ld: add: %s", n, ptl_status_name(st));
        found f;
        path(q, s, t, PTL_PATH_EXACT, &f);
        cr_assert(f.st == PTL_OK || f.st == PTL_PARTIAL || f.st == PTL_ERR_NO_MEMORY, "n %ld: path: %s", n,
                  ptl_status_name(f.st));
        if (st == PTL_OK) {
            st = ptl_navmesh_remove_offmesh(nm, id);
            cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "n %ld: remove: %s", n, ptl_status_name(st));
        }
        done = tr.calls < tr.fail_at; /* nothing failed: every allocation was tried */
        tr.fail_at = -1;
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        cr_assert_eq(tr.live_blocks, 0, "n %ld: %ld blocks leaked", n, tr.live_blocks);
    }
    cr_expect(done, "the allocations never all succeeded");
    ptl_navmesh_destroy(base);
}

/* A query filter that excludes a link's area: the link is not taken (the roof unreachable again),
   for that query object only; a sliced search through the link gives the one-call path. */
Test(offmesh, a_filter_that_excludes_the_links_area_leaves_it_untaken_and_slices_agree, .timeout = 60) {
    static mesh_builder b;
    floor_and_roof(&b);
    ptl_navmesh* nm = bake_scene(&b, 0, NULL, 0);
    ptl_offmesh_desc ladder = {.start = {3, 0, 6}, .end = {5, 5, 6}, .radius = 0.5f, .bidir = true, .area = 7};
    ptl_offmesh_id id;
    cr_assert_eq(ptl_navmesh_add_offmesh(nm, &ladder, &id, NULL), PTL_OK);
    ptl_query* q = make_query(nm);
    ptl_query* qf = make_query(nm);
    ptl_query_filter f = ptl_query_filter_defaults();
    f.exclude_mask = (uint64_t)1 << 7;
    cr_assert_eq(ptl_query_set_filter(qf, &f), PTL_OK);
    const float s[3] = {15, 0, 15}, t[3] = {7, 5, 7};
    found a, c;
    path(q, s, t, PTL_PATH_EXACT, &a);
    cr_assert(a.st == PTL_OK && a.res.found, "the ladder is taken without a filter (%s)", ptl_status_name(a.st));
    path(qf, s, t, PTL_PATH_EXACT, &c);
    cr_expect(c.st == PTL_PARTIAL && !c.res.found, "a filter excluding area 7 still took the ladder (%s)", ptl_status_name(c.st));
    /* excluding another area leaves it be */
    f.exclude_mask = (uint64_t)1 << 8;
    cr_assert_eq(ptl_query_set_filter(qf, &f), PTL_OK);
    path(qf, s, t, PTL_PATH_EXACT, &c);
    cr_expect(c.st == PTL_OK && c.res.found && fabs(c.res.length - a.res.length) < 1e-9);
    /* by slices of one expansion: the same path through the link */
    ptl_path_request req = {.mode = PTL_PATH_EXACT, .extents = {0.5f, 1.0f, 0.5f}};
    memcpy(req.start, s, sizeof req.start);
    memcpy(req.goal, t, sizeof req.goal);
    cr_assert_eq(ptl_query_path_begin(q, &req), PTL_OK);
    ptl_status st;
    uint32_t steps = 0;
    while ((st = ptl_query_path_step(q, 1, NULL)) == PTL_IN_PROGRESS) ++steps;
    cr_assert_eq(st, PTL_OK);
    found sl;
    memset(&sl, 0, sizeof sl);
    sl.res.points = sl.pts, sl.res.point_capacity = 256, sl.res.flags = sl.flags;
    sl.st = ptl_query_path_finish(q, &sl.res);
    cr_expect(sl.st == a.st && sl.res.length == a.res.length && sl.res.point_count == a.res.point_count &&
                  memcmp(sl.pts, a.pts, 3 * sizeof(float) * a.res.point_count) == 0 &&
                  memcmp(sl.flags, a.flags, a.res.point_count) == 0,
              "sliced through the link (%u steps): %s length %g, one call %s length %g", steps, ptl_status_name(sl.st),
              sl.res.length, ptl_status_name(a.st), a.res.length);
    ptl_query_destroy(q), ptl_query_destroy(qf);
    ptl_navmesh_destroy(nm);
}

/* ---- Paths through links, followed over the surface, with their cells, under a weighing filter -- */

static bool cells_neighbours(const ptl_navmesh* nm, uint32_t a, uint32_t b) {
    ptl_cell_view v;
    ptl_navmesh_get_cell(nm, a, &v);
    for (uint32_t i = 0; i < v.vert_count; ++i)
        if (v.neighbors[i] == b) return true;
    return false;
}

/* A flat floor and, 20 away along x, a floor with a ridge 1 high across it at x = 35. */
static void floor_and_ridge(mesh_builder* b) {
    memset(b, 0, sizeof *b);
    floor_quad(b, 0, 0, 10, 4, 0);
    uint32_t a = vert(b, 30, 0, 0), c = vert(b, 30, 0, 4), d = vert(b, 35, 1, 4), e = vert(b, 35, 1, 0);
    uint32_t f = vert(b, 40, 0, 4), g = vert(b, 40, 0, 0);
    tri(b, a, c, d), tri(b, a, d, e);
    tri(b, e, d, f), tri(b, e, f, g);
}

Test(offmesh, paths_through_links_follow_the_surface_list_their_cells_and_take_a_weighing_filter, .timeout = 60) {
    static mesh_builder b;
    floor_and_ridge(&b);
    ptl_navmesh* nm = bake_scene(&b, 0, NULL, 0);
    ptl_query* q = make_query(nm);
    const ptl_offmesh_desc jump = {.start = {9, 0, 2}, .end = {31, 0.2f, 2}, .radius = 0.5f, .bidir = true, .cost = 3};
    cr_assert_eq(ptl_navmesh_add_offmesh(nm, &jump, NULL, NULL), PTL_OK);
    ptl_offmesh_view v;
    cr_assert_eq(ptl_navmesh_get_offmesh(nm, 0, &v), PTL_OK);
    const float s[3] = {1, 0, 1}, t[3] = {39, 0.2f, 3};
    for (int weighed = 0; weighed < 2; ++weighed) {
        ptl_query_filter flt = ptl_query_filter_defaults();
        if (weighed) flt.area_cost[0] = 2.5f; /* every cell of the scene: the corridor search */
        cr_assert_eq(ptl_query_set_filter(q, &flt), PTL_OK);
        for (int mode = 0; mode < 2; ++mode) {
            for (int dir = 0; dir < 2; ++dir) {
                const float* a = dir ? t : s;
                const float* c = dir ? s : t;
                /* the corners alone, then the same with the surface and the cells */
                found corners;
                path(q, a, c, mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT, &corners);
                cr_assert(corners.st == PTL_OK && corners.res.found, "w%d m%d d%d: no path (%s)", weighed, mode, dir,
                          ptl_status_name(corners.st));
                cr_expect(has_point(&corners, dir ? v.end : v.start, PTL_PATH_POINT_OFFMESH), "w%d m%d d%d: no link start",
                          weighed, mode, dir);
                static found f;
                memset(&f, 0, sizeof f);
                uint32_t cells[64];
                ptl_path_request req = {.mode = mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT, .extents = {0.5f, 1.0f, 0.5f},
                                        .follow_surface = true};
                memcpy(req.start, a, sizeof req.start);
                memcpy(req.goal, c, sizeof req.goal);
                f.res.points = f.pts, f.res.point_capacity = 256, f.res.flags = f.flags;
                f.res.cells = cells, f.res.cell_capacity = 64;
                f.st = ptl_query_find_path(q, &req, &f.res);
                cr_assert(f.st == PTL_OK && f.res.found, "w%d m%d d%d: no path with the surface (%s)", weighed, mode, dir,
                          ptl_status_name(f.st));
                /* the link's ends are kept, flagged as before */
                cr_expect(has_point(&f, dir ? v.end : v.start, PTL_PATH_POINT_OFFMESH), "w%d m%d d%d: no link start",
                          weighed, mode, dir);
                cr_expect(has_point(&f, dir ? v.start : v.end, 0), "w%d m%d d%d: no link end", weighed, mode, dir);
                uint32_t flagged = 0;
                for (uint32_t i = 0; i < f.res.point_count; ++i) flagged += f.flags[i] == PTL_PATH_POINT_OFFMESH;
                cr_expect_eq(flagged, 1, "w%d m%d d%d: %u links taken", weighed, mode, dir, flagged);
                /* the ridge: a point on it, about 1 high (the voxels flatten its top over a few wu) */
                bool ridge = false;
                for (uint32_t i = 0; i < f.res.point_count; ++i)
                    ridge |= fabsf(f.pts[3 * i] - 35) < 2 && fabsf(f.pts[3 * i + 1] - 1) < 0.3f;
                cr_expect(ridge, "w%d m%d d%d: the path does not go over the ridge", weighed, mode, dir);
                cr_expect_gt(f.res.length, corners.res.length + 0.05, "w%d m%d d%d: over the ridge %.4f, straight %.4f",
                             weighed, mode, dir, f.res.length, corners.res.length);
                /* the length: each leg's polyline and the link's cost */
                double len = 0;
                for (uint32_t i = 0; i + 1 < f.res.point_count; ++i) {
                    const float* p = &f.pts[3 * i];
                    len += f.flags[i] ? v.cost : sqrt((p[3] - p[0]) * (p[3] - p[0]) + (p[4] - p[1]) * (p[4] - p[1]) + (p[5] - p[2]) * (p[5] - p[2]));
                }
                cr_expect(fabs(len - f.res.length) < 1e-4, "w%d m%d d%d: length %.6f, its points' %.6f", weighed, mode, dir,
                          f.res.length, len);
                /* the cells: neighbours but once, where the link jumps from a cell holding its start to
                   one holding its end */
                cr_assert(f.res.cell_count >= 2 && f.res.cell_count <= 64, "w%d m%d d%d: %u cells", weighed, mode, dir,
                          f.res.cell_count);
                cr_expect_eq(cells[0], f.res.start_cell);
                cr_expect_eq(cells[f.res.cell_count - 1], f.res.goal_cell);
                uint32_t jumps = 0;
                for (uint32_t i = 0; i + 1 < f.res.cell_count; ++i) {
                    if (cells_neighbours(nm, cells[i], cells[i + 1])) continue;
                    ++jumps;
                    cr_expect(cells[i] == (dir ? v.end_cell : v.start_cell) && cells[i + 1] == (dir ? v.start_cell : v.end_cell),
                              "w%d m%d d%d: cells %u and %u are no link's", weighed, mode, dir, cells[i], cells[i + 1]);
                }
                cr_expect_eq(jumps, 1, "w%d m%d d%d: %u jumps between cells", weighed, mode, dir, jumps);
            }
        }
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

/* ---- Links added at run time saved with the navmesh ----------------------------------------- */

static bool same_view(const ptl_offmesh_view* a, const ptl_offmesh_view* b) {
    return !memcmp(a->start, b->start, sizeof a->start) && !memcmp(a->end, b->end, sizeof a->end) &&
           a->start_cell == b->start_cell && a->end_cell == b->end_cell && a->cost == b->cost &&
           a->desc.bidir == b->desc.bidir && a->desc.area == b->desc.area && a->desc.user_id == b->desc.user_id &&
           a->desc.radius == b->desc.radius;
}

Test(offmesh, links_added_at_run_time_are_saved_and_load_back, .timeout = 60) {
    static mesh_builder b;
    floor_and_roof(&b);
    const ptl_offmesh_desc baked = {.start = {15, 0, 2}, .end = {18, 0, 18}, .radius = 0.5f, .cost = 1, .user_id = 7};
    ptl_navmesh* nm = bake_scene(&b, 0, &baked, 1);
    size_t size0;
    const void* blob0 = ptl_navmesh_blob(nm, &size0);
    char file[] = "/tmp/ptl_offmesh_saveXXXXXX";
    int fd = mkstemp(file);
    cr_assert(fd >= 0);
    close(fd);
    /* unchanged: the file is the blob as loaded */
    cr_assert_eq(ptl_navmesh_save_file(nm, file, NULL), PTL_OK);
    ptl_navmesh* back;
    cr_assert_eq(ptl_navmesh_load_file(file, NULL, &back, NULL), PTL_OK);
    size_t size1;
    const void* blob1 = ptl_navmesh_blob(back, &size1);
    cr_expect(size1 == size0 && !memcmp(blob0, blob1, size0), "an unchanged navmesh saves other bytes");
    ptl_navmesh_destroy(back);
    /* a ladder added, the baked link removed and added again: both live links saved */
    const ptl_offmesh_desc ladder = {.start = {3, 0, 6}, .end = {5, 5, 6}, .radius = 0.5f, .bidir = true, .area = 3, .user_id = 42};
    ptl_offmesh_id id;
    cr_assert_eq(ptl_navmesh_add_offmesh(nm, &ladder, &id, NULL), PTL_OK);
    ptl_offmesh_view v0;
    cr_assert_eq(ptl_navmesh_get_offmesh(nm, 0, &v0), PTL_OK);
    cr_assert_eq(ptl_navmesh_remove_offmesh(nm, v0.id), PTL_OK);
    cr_assert_eq(ptl_navmesh_add_offmesh(nm, &baked, NULL, NULL), PTL_OK);
    cr_assert_eq(ptl_navmesh_offmesh_count(nm), 2);
    cr_assert_eq(ptl_navmesh_save_file(nm, file, NULL), PTL_OK);
    ptl_error err;
    cr_assert_eq(ptl_navmesh_load_file(file, NULL, &back, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_navmesh_validate(back, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_navmesh_offmesh_count(back), 2);
    for (uint32_t i = 0; i < 2; ++i) {
        ptl_offmesh_view a, c;
        cr_assert_eq(ptl_navmesh_get_offmesh(nm, i, &a), PTL_OK);
        cr_assert_eq(ptl_navmesh_get_offmesh(back, i, &c), PTL_OK);
        cr_expect(same_view(&a, &c), "link %u differs after the round trip", i);
    }
    /* the roof is reachable on the loaded navmesh through the saved ladder */
    ptl_query* q = make_query(back);
    found f;
    path(q, (float[3]){15, 0, 15}, (float[3]){7, 5, 7}, PTL_PATH_EXACT, &f);
    cr_expect(f.st == PTL_OK && f.res.found, "the roof is unreachable after the round trip (%s)", ptl_status_name(f.st));
    ptl_query_destroy(q);
    ptl_navmesh_destroy(back);
    /* every link removed: the blob has no off-mesh section and loads without links */
    for (uint32_t n = ptl_navmesh_offmesh_count(nm); n > 0; --n) {
        ptl_offmesh_view a;
        cr_assert_eq(ptl_navmesh_get_offmesh(nm, 0, &a), PTL_OK);
        cr_assert_eq(ptl_navmesh_remove_offmesh(nm, a.id), PTL_OK);
    }
    void* none;
    size_t none_size;
    cr_assert_eq(ptl_navmesh_blob_with_offmesh(nm, NULL, &none, &none_size, NULL), PTL_OK);
    cr_expect_lt(none_size, size0, "no link: a smaller blob");
    cr_assert_eq(ptl_navmesh_create(none, none_size, NULL, &back, &err), PTL_OK, "%s", err.message);
    cr_expect_eq(ptl_navmesh_offmesh_count(back), 0);
    ptl_navmesh_destroy(back);
    ptl_blob_free(none, none_size, NULL);
    cr_expect_eq(ptl_navmesh_blob_with_offmesh(NULL, NULL, &none, &none_size, NULL), PTL_ERR_INVALID_ARG);
    remove(file);
    ptl_navmesh_destroy(nm);
}
