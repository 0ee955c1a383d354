/* Hub labels (bake/cpg/hubs.c, runtime/hubs.c): exact paths read off the labels give the interval
   search's found flags and lengths on generated maps and on 3D scenes, the section is the same bytes
   whatever the thread count, a damaged section is refused at load, and a landmark rebake drops it
   cleanly. (Every scenario of the game maps with hub labels: tests/test_paths.c.) */
#include "../runtime/navmesh_format.h"
#include "../runtime/query_internal.h"
#include "../tools/jobs.h"
#include "test_util.h"

static void bake_grid(const ptl_grid_gen_desc* gd, uint32_t hubs, const ptl_job_system* jobs, void** blob, size_t* size,
                      ptl_grid* keep) {
    ptl_grid g;
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_grid_generate(gd, &g, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    ptl_bake_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.hubs = hubs;
    bd.jobs = jobs;
    cr_assert_geq(ptl_bake_shape(&s, &bd, blob, size, NULL, &err), 0, "%s", err.message);
    ptl_shape_free(&s);
    if (keep) *keep = g;
    else ptl_grid_free(&g);
}

typedef struct pair_queries {
    ptl_query* hubs;  /* uses the labels */
    ptl_query* plain; /* ignores them */
} pair_queries;

static pair_queries make_queries(const ptl_navmesh* nm) {
    pair_queries p;
    ptl_query_desc qd = {.max_nodes = 1u << 18};
    cr_assert_geq(ptl_query_create(nm, &qd, &p.hubs), 0);
    cr_assert_geq(ptl_query_create_with_switches(nm, &qd, &(ptl_query_switches){.ignore_hubs = true}, &p.plain), 0);
    return p;
}

static void free_queries(pair_queries* p) {
    ptl_query_destroy(p->hubs);
    ptl_query_destroy(p->plain);
}

/* Length of a path in plan (x-z): what the exact searches minimise. In 3D the reported length
   follows the surface, and two routes of one plan length may differ there. */
static double plan_length(const float* p, uint32_t n) {
    double sum = 0;
    for (uint32_t i = 0; i + 1 < n; ++i) sum += hypot(p[3 * i + 3] - p[3 * i], p[3 * i + 5] - p[3 * i + 2]);
    return sum;
}

/* Both queries on one pair: the same found flag, the same length in plan, the same ends. */
static bool agree(pair_queries* p, const float s[3], const float g[3], uint32_t* found) {
    static float pa[3 * 4096], pb[3 * 4096];
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, s, sizeof req.start);
    memcpy(req.goal, g, sizeof req.goal);
    ptl_path_result a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.points = pa, a.point_capacity = 4096;
    b.points = pb, b.point_capacity = 4096;
    ptl_status sa = ptl_query_find_path(p->hubs, &req, &a);
    ptl_query_find_path(p->plain, &req, &b);
    cr_assert(sa == PTL_OK || sa == PTL_PARTIAL, "hub search: %s", ptl_status_name(sa));
    *found += a.found;
    if (a.found != b.found) return false;
    if (!a.found) return true;
    double la = plan_length(pa, a.point_count), lb = plan_length(pb, b.point_count);
    if (fabs(la - lb) > 1e-6 * (1 + lb)) {
        fprintf(stderr, "(%g %g %g) -> (%g %g %g): plan length %.9f with hubs, %.9f without\n", s[0], s[1], s[2], g[0],
                g[1], g[2], la, lb);
        return false;
    }
    const float* ea = &pa[3 * (a.point_count - 1)];
    const float* eb = &pb[3 * (b.point_count - 1)];
    return pa[0] == pb[0] && pa[2] == pb[2] && ea[0] == eb[0] && ea[2] == eb[2];
}

/* Up to `want` pairs of lattice points of free cells of g, from a fixed sequence seeded with `seed`,
   asked of both queries; counts the pairs, those that differ (reporting the first 3) and those found. */
typedef struct pair_run {
    uint32_t pairs, bad, found;
} pair_run;

static pair_run agree_on_grid(pair_queries* p, const ptl_grid* g, uint32_t seed, uint32_t want, const char* what) {
    pair_run r = {0, 0, 0};
    for (uint32_t k = 0; k < 4000 && r.pairs < want; ++k) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t a = (seed >> 8) % (g->width * g->height);
        seed = seed * 1664525u + 1013904223u;
        uint32_t b = (seed >> 8) % (g->width * g->height);
        if (!g->passable[a] || !g->passable[b]) continue;
        float s[3] = {(float)(a % g->width) + 0.5f, 0, (float)(a / g->width) + 0.5f};
        float t[3] = {(float)(b % g->width) + 0.25f, 0, (float)(b / g->width) + 0.75f};
        ++r.pairs;
        if (!agree(p, s, t, &r.found) && r.bad++ < 3)
            cr_expect(0, "%s: (%g, %g) -> (%g, %g): hubs and interval search differ", what, s[0], s[2], t[0], t[2]);
    }
    return r;
}

/* With pocket lids (what a hub bake of a 2D input does), and without (labels on every corner of
   the plain decomposition, ptl_bake_hubs on a default blob: its pockets come from the walls). */
Test(hubs, paths_on_generated_maps_equal_the_interval_search) {
    const ptl_grid_gen_desc maps[] = {{.scene = PTL_GRID_SCENE_ROOMS, .width = 128, .height = 96, .seed = 1, .density = 0},
                                      {.scene = PTL_GRID_SCENE_ROOMS, .width = 200, .height = 200, .seed = 7, .density = 0},
                                      {.scene = PTL_GRID_SCENE_RANDOM, .width = 96, .height = 96, .seed = 3, .density = 0.2f},
                                      {.scene = PTL_GRID_SCENE_RANDOM, .width = 64, .height = 128, .seed = 5, .density = 0.35f}};
    for (size_t mm = 0; mm < 2 * sizeof maps / sizeof maps[0]; ++mm) {
        const size_t m = mm / 2;
        void* blob;
        size_t size;
        ptl_grid g;
        if (mm % 2 == 0) {
            bake_grid(&maps[m], 1, NULL, &blob, &size, &g);
        } else {
            void* plain;
            size_t plain_size;
            ptl_error e2;
            bake_grid(&maps[m], 0, NULL, &plain, &plain_size, &g);
            cr_assert_geq(ptl_bake_hubs(plain, plain_size, NULL, &blob, &size, NULL, &e2), 0, "%s", e2.message);
            cr_assert_eq(((const ptl_blob_header*)blob)->lid_count, 0);
            ptl_blob_free(plain, plain_size, NULL);
        }
        ptl_navmesh* nm;
        ptl_error err;
        cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s", err.message);
        ptl_navmesh_info in;
        ptl_navmesh_get_info(nm, &in);
        cr_assert_gt(in.hub_count, 10, "map %zu: %u hubs", m, in.hub_count);
        pair_queries p = make_queries(nm);
        /* Some pairs are unreachable (random maps have closed pockets), and both searches must say so. */
        char what[32];
        snprintf(what, sizeof what, "map %zu", m);
        pair_run r = agree_on_grid(&p, &g, 12345u + (uint32_t)m, 600, what);
        cr_expect_eq(r.bad, 0, "map %zu: %u of %u pairs differ", m, r.bad, r.pairs);
        cr_expect_gt(r.found, r.pairs / 2, "map %zu: only %u of %u pairs found", m, r.found, r.pairs);
        free_queries(&p);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
        ptl_grid_free(&g);
    }
}

/* An end inside a pocket turns at the pocket's corners, which the hub search records in a small
   table per side (PTL_HUB_VRECS); a search that needs more gives up and ptl_query_find_path answers
   with the interval search. Shrunk tables make that happen on ordinary pairs: the answers must not
   change, and the fallback must have run (and not with the tables at their size). */
Test(hubs, a_search_whose_pocket_tables_overflow_falls_back_to_the_same_answers) {
    const ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 200, .height = 200, .seed = 7, .density = 0};
    void* blob;
    size_t size;
    ptl_grid g;
    bake_grid(&gd, 1, NULL, &blob, &size, &g);
    cr_assert_gt(((const ptl_blob_header*)blob)->lid_count, 0, "the hub bake cut no pocket");
    ptl_navmesh* nm;
    ptl_error err;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s", err.message);
    const uint32_t caps[] = {PTL_HUB_VRECS, 16, 2};
    uint32_t fallbacks[3] = {0};
    for (int k = 0; k < 3; ++k) {
        pair_queries p = make_queries(nm);
        p.hubs->hub_vrec_cap = caps[k];
        char what[32];
        snprintf(what, sizeof what, "tables of %u", caps[k]);
        pair_run r = agree_on_grid(&p, &g, 777u, 300, what);
        fallbacks[k] = p.hubs->hub_fallbacks;
        cr_expect_eq(r.bad, 0, "tables of %u: %u of %u pairs differ from the interval search", caps[k], r.bad, r.pairs);
        cr_expect_gt(r.found, r.pairs / 2, "tables of %u: only %u of %u pairs found", caps[k], r.found, r.pairs);
        free_queries(&p);
    }
    cr_expect_eq(fallbacks[0], 0, "%u searches fell back with tables of %u", fallbacks[0], PTL_HUB_VRECS);
    cr_expect_gt(fallbacks[2], 0, "no search fell back with tables of 2");
    cr_expect_leq(fallbacks[1], fallbacks[2], "more fallbacks with tables of 16 (%u) than of 2 (%u)", fallbacks[1],
                  fallbacks[2]);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    ptl_grid_free(&g);
}

/* 3D: layers, ramps and stairs, links. Pairs of cell centroids. */
static void check_3d(const ptl_trimesh* mesh, const char* name) {
    ptl_bake_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.hubs = true;
    void* blob;
    size_t size;
    ptl_error err;
    cr_assert_geq(ptl_bake_trimesh(mesh, &bd, &blob, &size, NULL, &err), 0, "%s: %s", name, err.message);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s: %s", name, err.message);
    cr_assert_geq(ptl_navmesh_validate(nm, &err), 0, "%s: %s", name, err.message);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    cr_assert_gt(in.hub_count, 0, "%s: no hubs", name);
    pair_queries p = make_queries(nm);
    uint32_t bad = 0, pairs = 0, found = 0;
    for (uint32_t a = 0; a < in.cell_count; a += 3) {
        for (uint32_t b = a % 7; b < in.cell_count; b += 11) {
            float s[3], t[3];
            ptl_navmesh_cell_centroid(nm, a, s);
            ptl_navmesh_cell_centroid(nm, b, t);
            ++pairs;
            if (!agree(&p, s, t, &found) && bad++ < 3)
                cr_expect(0, "%s: cells %u -> %u: hubs and interval search differ", name, a, b);
        }
    }
    cr_expect_eq(bad, 0, "%s: %u of %u pairs differ", name, bad, pairs);
    cr_expect_gt(found, pairs / 10, "%s: only %u of %u found", name, found, pairs);
    free_queries(&p);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
}

Test(hubs, paths_on_the_built_in_building_equal_the_interval_search) {
    ptl_scene_desc sd = {.kind = PTL_SCENE_BUILDING, .size = 40, .storeys = 3, .seed = 1};
    ptl_trimesh m;
    ptl_error err;
    cr_assert_geq(ptl_scene_generate(&sd, &m, &err), 0, "%s", err.message);
    check_3d(&m, "building");
    ptl_trimesh_free(&m);
}

Test(hubs, paths_on_dungeon_and_nav_test_equal_the_interval_search, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    const char* names[] = {"dungeon.obj", "nav_test.obj"};
    for (int i = 0; i < 2; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/meshes/%s", data, names[i]);
        ptl_trimesh m;
        ptl_error err;
        cr_assert_geq(ptl_obj_load(path, NULL, &m, &err), 0, "%s", err.message);
        check_3d(&m, path);
        ptl_trimesh_free(&m);
    }
}

Test(hubs, the_section_is_the_same_bytes_on_one_or_two_threads) {
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 160, .height = 120, .seed = 11, .density = 0};
    ptl_thread_jobs jobs;
    ptl_thread_jobs_init(&jobs, 2);
    void *b1, *b2;
    size_t s1, s2;
    bake_grid(&gd, 1, NULL, &b1, &s1, NULL);
    bake_grid(&gd, 1, &jobs.sys, &b2, &s2, NULL);
    cr_assert_eq(s1, s2);
    cr_expect(memcmp(b1, b2, s1) == 0, "hub sections differ between one and two threads");
    cr_expect_gt(((const ptl_blob_header*)b1)->hub_count, 0);
    ptl_blob_free(b1, s1, NULL);
    ptl_blob_free(b2, s2, NULL);
}

/* Damages the blob by `edit`, re-checksums it and expects a refusal naming the hubs. */
static void expect_refused(void* blob, size_t size, const char* what) {
    ptl_blob_header* h = blob;
    h->checksum = ptl_blob_checksum(blob, size);
    ptl_navmesh* nm = NULL;
    ptl_error err;
    ptl_status st = ptl_navmesh_create(blob, size, NULL, &nm, &err);
    cr_expect_eq(st, PTL_ERR_BAD_BLOB, "%s: loaded (%s)", what, ptl_status_name(st));
    if (st >= 0) ptl_navmesh_destroy(nm);
    else cr_expect(strstr(err.message, "hub"), "%s: the message does not name the hubs: %s", what, err.message);
}

Test(hubs, a_damaged_section_is_refused_at_load) {
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 96, .height = 96, .seed = 2, .density = 0};
    void* blob;
    size_t size;
    bake_grid(&gd, 1, NULL, &blob, &size, NULL);
    ptl_blob_header* h = blob;
    cr_assert_gt(h->hub_count, 4);
    void* copy = malloc(size);
    ptl_hub_layout l = ptl_hub_layout_of(h->hub_count, h->hub_entry_count, h->hub_edge_count);
    for (int k = 0; k < 8; ++k) {
        memcpy(copy, blob, size);
        ptl_blob_header* c = copy;
        uint8_t* sec = (uint8_t*)copy + c->off_hubs;
        double* dist = (double*)(sec + l.dist);
        uint32_t* hub = (uint32_t*)(sec + l.hub);
        uint16_t* hop = (uint16_t*)(sec + l.hop);
        uint32_t* lstart = (uint32_t*)(sec + l.label_start);
        uint32_t* vert = (uint32_t*)(sec + l.vert);
        uint32_t* astart = (uint32_t*)(sec + l.adj_start);
        uint32_t* adj = (uint32_t*)(sec + l.adj);
        uint32_t n = c->hub_count, last = lstart[2] - 1; /* hub 1's own entry */
        const char* what = "";
        switch (k) {
        case 0: what = "a label not ending in its own hub", hub[last] = 0; break;
        case 1: what = "a NaN length", dist[lstart[3]] = NAN; break;
        case 2: what = "a hub vertex out of range", vert[n - 1] = c->vert_count; break;
        case 3: what = "two hubs on one vertex", vert[1] = vert[0]; break;
        case 4: {
            /* hub i lists x < its first neighbour instead of it, and x does not list i */
            what = "an asymmetric graph";
            bool done = false;
            for (uint32_t i = 0; i < n && !done; ++i) {
                if (astart[i + 1] == astart[i]) continue;
                for (uint32_t x = 0; x < adj[astart[i]] && !done; ++x) {
                    bool lists = false;
                    for (uint32_t e = astart[x]; e < astart[x + 1]; ++e) lists = lists || adj[e] == i;
                    if (x != i && !lists) adj[astart[i]] = x, done = true;
                }
            }
            cr_assert(done);
            break;
        }
        case 5: what = "a hop past the neighbour list", hop[lstart[3]] = (uint16_t)(astart[4] - astart[3] + 1); break;
        case 6: what = "more hubs than vertices", c->hub_count = c->vert_count + 1; break;
        case 7: what = "a section size that does not match the counts", c->hub_bytes += 8; break;
        }
        /* cases 6 and 7 change the header only; each damage keeps the blob's size */
        expect_refused(copy, size, what);
    }
    free(copy);
    ptl_blob_free(blob, size, NULL);
}

Test(hubs, a_landmark_rebake_drops_the_section_and_the_blob_stays_valid) {
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 96, .height = 64, .seed = 4, .density = 0};
    void* blob;
    size_t size;
    bake_grid(&gd, 1, NULL, &blob, &size, NULL);
    cr_assert_gt(((const ptl_blob_header*)blob)->hub_count, 0);
    void* out;
    size_t out_size;
    ptl_error err;
    cr_assert_geq(ptl_bake_landmarks(blob, size, 8, NULL, &out, &out_size, &err), 0, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(out, out_size, NULL, &nm, &err), 0, "%s", err.message);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    cr_expect_eq(in.hub_count, 0);
    cr_expect_eq(in.landmark_count, 8);
    ptl_navmesh_destroy(nm);
    /* and labels added again on top give a valid blob */
    void* again;
    size_t again_size;
    ptl_hub_stats hs;
    cr_assert_geq(ptl_bake_hubs(out, out_size, NULL, &again, &again_size, &hs, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_navmesh_create(again, again_size, NULL, &nm, &err), 0, "%s", err.message);
    ptl_navmesh_get_info(nm, &in);
    cr_expect_eq(in.hub_count, hs.hubs);
    cr_expect_eq(in.hub_bytes, hs.bytes);
    cr_expect_gt(hs.entries, hs.hubs, "every label holds its own hub and more");
    ptl_navmesh_destroy(nm);
    ptl_blob_free(again, again_size, NULL);
    ptl_blob_free(out, out_size, NULL);
    ptl_blob_free(blob, size, NULL);
}

/* A poly v1 text baked with hub labels (and pocket lids with `lids`) and loaded; the blob is the
   caller's. */
static ptl_navmesh* bake_poly_text(const char* text, bool lids, void** blob, size_t* size) {
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_poly_parse(text, strlen(text), "test.poly", NULL, &s, &err), 0, "%s", err.message);
    ptl_bake_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.hubs = 1;
    bd.lids = lids;
    cr_assert_geq(ptl_bake_shape(&s, &bd, blob, size, NULL, &err), 0, "%s", err.message);
    ptl_shape_free(&s);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(*blob, *size, NULL, &nm, &err), 0, "%s", err.message);
    return nm;
}

/* a -> b and b -> a: the hub search and the interval search agree, and both find a path. */
static void expect_found_both_ways(pair_queries* p, const float a[3], const float b[3]) {
    uint32_t found = 0;
    cr_expect(agree(p, a, b, &found), "(%g, %g) -> (%g, %g): hubs and interval search differ", a[0], a[2], b[0], b[2]);
    cr_expect_eq(found, 1, "(%g, %g) -> (%g, %g): no path", a[0], a[2], b[0], b[2]);
    found = 0;
    cr_expect(agree(p, b, a, &found), "(%g, %g) -> (%g, %g): hubs and interval search differ", b[0], b[2], a[0], a[2]);
    cr_expect_eq(found, 1, "(%g, %g) -> (%g, %g): no path", b[0], b[2], a[0], a[2]);
}

/* A fuzz finding (regress/pipeline_poly/...-9fe721): an outer ring whose notch (17, 1.25002) lies
   2e-5 off the line of a hole's edge (z = 1.25). The cell next to the pocket's lid is kinked there
   (navmesh.cell_kinked): from the notch the lid is not all in sight, the path turns at the hole's
   corner (3.875, 1.25) inside the pocket. The hub search took the notch for an end that sees its
   lid whole, left the pocket unturned and found no path to anywhere. */
Test(hubs, an_end_in_a_kinked_cell_next_to_its_lid_still_turns_in_its_pocket) {
    static const char POLY[] = "poly\n1\n3\n"
                               "4 0 0 21.5 1.0000000000000001e-05 17 1.2500199999999999 0 15\n"
                               "3 19.000019999999999 16.999919999999999 25 7.5 7.5 25.00001\n"
                               "3 1.25 1.25 3.875 1.25 30.12499 4.8749900000000004\n";
    void* blob;
    size_t size;
    ptl_navmesh* nm = bake_poly_text(POLY, true, &blob, &size);
    cr_assert_gt(((const ptl_blob_header*)blob)->lid_count, 0, "the bake has pocket lids");
    pair_queries p = make_queries(nm);
    const float notch[3] = {17, 0, 1.25002f};
    const float goals[][3] = {{0, 0, 15}, {0.5f, 0, 0.5f}, {1, 0, 10}, {20, 0, 0.2f}, {5, 0, 1.3f}, {10, 0, 4}};
    for (size_t i = 0; i < sizeof goals / sizeof goals[0]; ++i) expect_found_both_ways(&p, notch, goals[i]);
    free_queries(&p);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
}

/* A fuzz finding (regress/pipeline_poly/hub-tangent-past-a-nearly-straight-wall-vertex-871a54): the
   wall x = 17 runs through (17.00004, 3.87495), (17, 7.50004), (16.99992, 14.99992), bending into
   the walkable side at its middle vertex by 8e-7, under the navmesh's convexity tolerance (1e-5
   here): no portal ends there, so it has no hub label. A path from the tip (19, 0) to a point on
   the upper wall turns at the lower vertex, and the line from the goal to it passes the middle one
   on the walls' side by those 8e-7: the tangent test at the lower vertex (1e-9 relative) refused
   it from the goal's side, the two sides never met, and the hub search found no path (from points
   nearer the tip, a longer one). */
Test(hubs, a_corner_seen_past_a_nearly_straight_wall_vertex_is_a_turn) {
    static const char POLY[] = "poly\n1\n3\n"
                               "4 0.12494 -4.0000000000000003e-05 16.999919999999999 14.999919999999999 17 "
                               "7.5000400000000003 19.000019999999999 -8.0000000000000007e-05\n"
                               "3 17.000039999999998 3.8749500000000001 17 7.5000400000000003 19.500019999999999 "
                               "-8.0000000000000007e-05\n"
                               "3 17 1.25 1.25 8.75 1.2499199999999999 24.999919999999999\n";
    void* blob;
    size_t size;
    ptl_navmesh* nm = bake_poly_text(POLY, false, &blob, &size);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    cr_assert_gt(in.hub_count, 0, "the bake has hub labels");
    pair_queries p = make_queries(nm);
    const float goal[3] = {17.5f, 0, 14.125f};
    const float starts[][3] = {{19, 0, -8e-5f}, {18.9f, 0, 0.1f}, {18.5f, 0, 0.5f}, {18, 0, 1}, {17.5f, 0, 2}, {16, 0, 2}};
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; ++i) expect_found_both_ways(&p, goal, starts[i]);
    free_queries(&p);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
}
