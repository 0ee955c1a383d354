/* Exact paths near lattice lines: on small generated maps, start and goal points on grid lines,
   a fraction of a micrometre to a few hundred micrometres beside them (inside free space, inside
   walls, near corners), and anywhere. Three answers must agree: the hub labels and the interval
   search on a hub bake (with pocket lids), and the interval search on a plain bake (no lids, no
   hubs). A point within the location tolerance of a corner or an edge is on it for every search
   (runtime/locate.c); kept beside it, the searches disagreed about what it sees and which pocket
   it is in (a goal reported unreachable, or paths a metre too long). */
#include "../runtime/query_internal.h"
#include "test_util.h"

typedef struct baked {
    ptl_navmesh* nm;
    ptl_query* q;
} baked;

static baked bake(const ptl_shape* s, uint32_t hubs, bool ignore_hubs) {
    ptl_bake_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.hubs = hubs;
    void* blob;
    size_t size;
    ptl_error err;
    cr_assert_geq(ptl_bake_shape(s, &bd, &blob, &size, NULL, &err), 0, "bake: %s", err.message);
    baked b;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &b.nm, &err), 0, "load: %s", err.message);
    ptl_blob_free(blob, size, NULL);
    ptl_query_desc qd = {.max_nodes = 1u << 18};
    ptl_query_switches sw = {.ignore_hubs = ignore_hubs};
    cr_assert_eq(ptl_query_create_with_switches(b.nm, &qd, &sw, &b.q), PTL_OK);
    return b;
}

static void unbake(baked* b) {
    ptl_query_destroy(b->q);
    ptl_navmesh_destroy(b->nm);
}

typedef struct answer {
    bool found;
    double length;
} answer;

static answer ask(const baked* b, const float s[3], const float g[3]) {
    static float pts[3 * 4096];
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, s, sizeof req.start);
    memcpy(req.goal, g, sizeof req.goal);
    ptl_path_result res;
    memset(&res, 0, sizeof res);
    res.points = pts, res.point_capacity = 4096;
    ptl_status st = ptl_query_find_path(b->q, &req, &res);
    cr_assert(st == PTL_OK || st == PTL_PARTIAL || st == PTL_ERR_NOT_FOUND, "%s", ptl_status_name(st));
    answer a = {res.found, res.found ? res.length : 0};
    return a;
}

static uint32_t next(uint32_t* seed) {
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

/* A coordinate in [0, n]: a lattice value, beside one by a small offset, or anywhere. */
static float coordinate(uint32_t* seed, uint32_t n) {
    static const double offsets[] = {0, 1e-9, -1e-9, 1e-7, -1e-7, 1e-6, -1e-6, 3e-6, -3e-6, 1e-5, -1e-5, 3e-5, -3e-5,
                                     1e-4, -1e-4, 0.5};
    const uint32_t k = next(seed) % 20;
    if (k >= 16) return (float)((double)(next(seed) % 100000) / 100000.0 * n);
    return (float)((double)(next(seed) % (n + 1)) + offsets[k]);
}

Test(hub_sweep, hubs_and_interval_searches_agree_near_lattice_lines, .timeout = 300) {
    const ptl_grid_gen_desc maps[] = {
        {.scene = PTL_GRID_SCENE_RANDOM, .width = 8, .height = 8, .seed = 2, .density = 0.3f},    {.scene = PTL_GRID_SCENE_RANDOM, .width = 16, .height = 16, .seed = 36, .density = 0.3f},
        {.scene = PTL_GRID_SCENE_RANDOM, .width = 24, .height = 24, .seed = 0, .density = 0.3f},  {.scene = PTL_GRID_SCENE_RANDOM, .width = 24, .height = 24, .seed = 25, .density = 0.2f},
        {.scene = PTL_GRID_SCENE_RANDOM, .width = 12, .height = 16, .seed = 3, .density = 0.4f},  {.scene = PTL_GRID_SCENE_RANDOM, .width = 24, .height = 12, .seed = 20, .density = 0.1f},
        {.scene = PTL_GRID_SCENE_ROOMS, .width = 24, .height = 24, .seed = 38, .density = 0},     {.scene = PTL_GRID_SCENE_ROOMS, .width = 16, .height = 24, .seed = 22, .density = 0},
        {.scene = PTL_GRID_SCENE_ROOMS, .width = 48, .height = 40, .seed = 7, .density = 0},      {.scene = PTL_GRID_SCENE_RANDOM, .width = 48, .height = 40, .seed = 11, .density = 0.25f}};
    uint32_t pairs = 0, found = 0, bad = 0;
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; ++m) {
        ptl_grid g;
        ptl_shape s;
        ptl_error err;
        cr_assert_geq(ptl_grid_generate(&maps[m], &g, &err), 0, "%s", err.message);
        cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
        baked hub = bake(&s, 1, false), iv = bake(&s, 1, true), plain = bake(&s, 0, false);
        uint32_t seed = 977u * (uint32_t)m + 1;
        for (int k = 0; k < 500; ++k, ++pairs) {
            float a[3] = {coordinate(&seed, g.width), 0, coordinate(&seed, g.height)};
            float b[3] = {coordinate(&seed, g.width), 0, coordinate(&seed, g.height)};
            answer h = ask(&hub, a, b), i = ask(&iv, a, b), p = ask(&plain, a, b);
            found += h.found;
            /* The same mesh: the same answer. Another decomposition of the same walls: the same up
               to the location tolerance (1e-6 of the map's size) at each end, ends inside walls
               included (an end as near to two pieces of free space snaps to the same one whatever
               the cells: the least coordinates). */
            bool same = h.found == i.found && fabs(h.length - i.length) <= 1e-6 * (1 + i.length) &&
                        h.found == p.found && fabs(h.length - p.length) <= 1e-4;
            if (!same && bad++ < 5)
                cr_expect(0, "map %zu (%u x %u): (%.9g, %.9g) -> (%.9g, %.9g): hubs %d %.9f, interval %d %.9f, plain bake %d %.9f",
                          m, g.width, g.height, a[0], a[2], b[0], b[2], h.found, h.length, i.found, i.length, p.found,
                          p.length);
        }
        unbake(&hub), unbake(&iv), unbake(&plain);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    cr_log_info("hub sweep: %u pairs, %u found, %u disagree", pairs, found, bad);
    cr_expect_eq(bad, 0u, "%u of %u pairs disagree", bad, pairs);
    cr_expect_gt(found, pairs / 3);
}

/* A goal on the map's border below a wall, as near (0.5) to the corner of the start's room as to the
   corner of a closed pocket beside it: the bake with hub labels and the plain bake cut the free
   space into different cells, and each snapped the goal to the corner its first cell gave, so one
   found a path and the other called the goal unreachable. */
Test(hub_sweep, a_point_as_near_to_two_rooms_snaps_to_the_same_one_in_every_bake) {
    static const char map[] = "type octile\nheight 16\nwidth 16\nmap\n"
                              ".....@@...@.@.@.\n@@@@@@.@@@.@@.@@\n@.@..@@.@@.@@.@@\n.@@@@@@@.@@..@@@\n"
                              "@@..@@@@@@@@.@@.\n.......@.@.@...@\n..@....@.@......\n......@.@.@@....\n"
                              "....@@@@..@@..@.\n.........@.@....\n....@..@.@@@....\n..@.............\n"
                              "@..@.@@...@...@.\n.@.@...@@@..@@@.\n@@.@@@@@@...@@@@\n..@..@....@.@.@.\n";
    ptl_grid g;
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_grid_parse(map, sizeof map - 1, "pocket.map", NULL, &g, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    baked hub = bake(&s, 1, false), iv = bake(&s, 1, true), plain = bake(&s, 0, false);
    const float start[3] = {6.5f, 0, 15.5f}, goal[3] = {5.5f, 0, 16};
    answer h = ask(&hub, start, goal), i = ask(&iv, start, goal), p = ask(&plain, start, goal);
    cr_expect(h.found == p.found && i.found == p.found, "hubs %d, interval %d, plain bake %d", h.found, i.found,
              p.found);
    for (int k = 0; k < 3; ++k) {
        const baked* b = k == 0 ? &hub : k == 1 ? &iv : &plain;
        ptl_location loc;
        cr_assert_eq(ptl_query_locate(b->q, goal, NULL, &loc), PTL_OK);
        /* the corners (5, 16) and (6, 16) tie: the lesser x */
        cr_expect(loc.point[0] == 5 && loc.point[2] == 16, "bake %d: the goal snaps to (%g, %g)", k, loc.point[0],
                  loc.point[2]);
    }
    unbake(&hub), unbake(&iv), unbake(&plain);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}
