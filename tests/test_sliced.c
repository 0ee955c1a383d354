/* Sliced paths (runtime/sliced.c): begin, steps of a few expansions, finish give exactly what
   ptl_query_find_path gives (status, points bit for bit, length, cells, expansions), on random grids
   and on Detour's pairs of the shared 3D meshes, for every budget; any mode the slices do not
   spread is found whole at finish; another search on the same query ends the sliced one, which then
   says so instead of answering. */
#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_reference.h"
#include "test_util.h"

enum { CAP = 4096 };

typedef struct answer {
    ptl_status st;
    ptl_path_result res;
    float points[3 * CAP];
    uint32_t cells[CAP];
} answer;

static void clear(answer* a) {
    memset(&a->res, 0, sizeof a->res);
    a->res.points = a->points, a->res.point_capacity = CAP;
    a->res.cells = a->cells, a->res.cell_capacity = CAP;
}

/* The sliced answer with `budget` expansions a step; *steps and *sum: the steps and expansions. */
static void sliced(ptl_query* q, const ptl_path_request* req, uint32_t budget, answer* a, uint32_t* steps, uint64_t* sum) {
    clear(a);
    *steps = 0, *sum = 0;
    ptl_status st = ptl_query_path_begin(q, req);
    if (st < 0) {
        a->st = ptl_query_path_finish(q, &a->res);
        cr_assert_eq(a->st, st, "finish after a failed begin: %s, begin said %s", ptl_status_name(a->st), ptl_status_name(st));
        return;
    }
    for (;;) {
        uint32_t done = 0;
        st = ptl_query_path_step(q, budget, &done);
        ++*steps, *sum += done;
        if (st != PTL_IN_PROGRESS) break;
        cr_assert_geq(done, budget, "a step that goes on did its budget");
        cr_assert_lt(*steps, 1u << 24, "the steps end");
    }
    cr_assert_eq(st, PTL_OK, "%s", ptl_status_name(st));
    a->st = ptl_query_path_finish(q, &a->res);
}

static void same(const answer* a, const answer* b, const char* what) {
    cr_assert_eq(a->st, b->st, "%s: %s against %s", what, ptl_status_name(a->st), ptl_status_name(b->st));
    cr_assert(a->res.found == b->res.found && a->res.complete == b->res.complete, "%s", what);
    cr_assert(a->res.point_count == b->res.point_count && a->res.point_total == b->res.point_total, "%s: %u points, %u", what,
              a->res.point_count, b->res.point_count);
    cr_assert(memcmp(a->points, b->points, 3 * sizeof(float) * a->res.point_count) == 0, "%s: points differ", what);
    cr_assert(a->res.length == b->res.length, "%s: length %.17g against %.17g", what, a->res.length, b->res.length);
    cr_assert(a->res.start_cell == b->res.start_cell && a->res.goal_cell == b->res.goal_cell, "%s: cells", what);
    cr_assert(a->res.cell_count == b->res.cell_count && memcmp(a->cells, b->cells, sizeof(uint32_t) * a->res.cell_count) == 0,
              "%s: path cells", what);
    cr_assert_eq(a->res.nodes_expanded, b->res.nodes_expanded, "%s: expansions", what);
}

static void check_pair(ptl_query* q, const ptl_path_request* req, const char* what, uint32_t* long_ones) {
    static answer whole, part;
    clear(&whole);
    whole.st = ptl_query_find_path(q, req, &whole.res);
    const uint32_t budgets[] = {1, 7, 64, UINT32_MAX};
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; ++b) {
        uint32_t steps;
        uint64_t sum;
        sliced(q, req, budgets[b], &part, &steps, &sum);
        char label[256];
        snprintf(label, sizeof label, "%s, budget %u", what, budgets[b]);
        same(&part, &whole, label);
        /* a spread search: its steps did the expansions the result reports (a path answered
           without a search, or found whole, does them all at finish) */
        if (req->radius == 0 && req->mode == PTL_PATH_EXACT && whole.st == PTL_OK && sum > 0)
            cr_assert_eq(sum, part.res.nodes_expanded, "%s: %llu expansions in steps, %u reported", label,
                         (unsigned long long)sum, part.res.nodes_expanded);
        if (budgets[b] == 1 && steps > 3) ++*long_ones;
    }
}

Test(sliced, same_paths_as_one_call_on_random_grids, .timeout = 120) {
    uint32_t pairs = 0, long_ones = 0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        ptl_grid g;
        ptl_shape s = grid_shape(7100 + seed, 24, 24, 28, &g);
        ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
        ptl_query* q = make_query(nm);
        if (seed % 3 == 0) {
            /* a filter that weighs the ground: the corridor's weighted A*, found whole at finish */
            ptl_query_filter f = ptl_query_filter_defaults();
            f.area_cost[0] = 2;
            cr_assert_eq(ptl_query_set_filter(q, &f), PTL_OK);
        }
        uint64_t st = seed * 977;
        for (int i = 0; i < 40; ++i) {
            ptl_path_request req;
            memset(&req, 0, sizeof req);
            req.start[0] = (float)(rng_int(&st, 1, 191) / 8.0), req.start[2] = (float)(rng_int(&st, 1, 191) / 8.0);
            req.goal[0] = (float)(rng_int(&st, 1, 191) / 8.0), req.goal[2] = (float)(rng_int(&st, 1, 191) / 8.0);
            req.mode = i % 5 == 4 ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT;
            req.radius = i % 7 == 6 ? 0.3f : 0;
            char what[128];
            snprintf(what, sizeof what, "grid %llu pair %d", (unsigned long long)seed, i);
            check_pair(q, &req, what, &long_ones);
            ++pairs;
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    cr_assert_gt(long_ones, pairs / 10, "%u of %u searches took more than three steps of one expansion", long_ones, pairs);
}

Test(sliced, same_paths_as_one_call_on_detours_pairs, .timeout = 240) {
    TEST_REQUIRE_DATA(data);
    const char* meshes[] = {"dungeon", "nav_test"};
    for (size_t mi = 0; mi < 2; ++mi) {
        void* blob;
        size_t size;
        ptl_navmesh* nm = test_bake_shared_mesh(data, meshes[mi], 0.6f, &blob, &size);
        ptl_query* q = make_query(nm);
        char path[1024];
        snprintf(path, sizeof path, "%s/expected/detour_queries/%s_findpath.csv", data, meshes[mi]);
        FILE* f = fopen(path, "r");
        cr_assert(f, "%s", path);
        char line[8192];
        cr_assert(fgets(line, sizeof line, f));
        uint32_t n = 0, long_ones = 0;
        while (n < 300 && fgets(line, sizeof line, f)) {
            ptl_path_request req;
            memset(&req, 0, sizeof req);
            unsigned idx;
            if (sscanf(line, "%u,%f,%f,%f,%f,%f,%f", &idx, &req.start[0], &req.start[1], &req.start[2], &req.goal[0],
                       &req.goal[1], &req.goal[2]) != 7)
                continue;
            req.follow_surface = n % 3 == 1;
            char what[128];
            snprintf(what, sizeof what, "%s pair %u", meshes[mi], idx);
            check_pair(q, &req, what, &long_ones);
            ++n;
        }
        fclose(f);
        cr_assert_gt(n, 200u);
        cr_assert_gt(long_ones, 10u, "%s: %u searches spread over more than three steps", meshes[mi], long_ones);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
    }
}

Test(sliced, another_search_ends_it_and_bad_calls_are_refused) {
    ptl_grid g;
    ptl_shape s = grid_shape(7301, 32, 32, 30, &g);
    ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
    ptl_query* q = make_query(nm);
    static answer a, b;
    clear(&a);
    /* no sliced search begun */
    cr_assert_eq(ptl_query_path_step(q, 10, NULL), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_path_finish(q, &a.res), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_path_begin(NULL, NULL), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_path_finish(q, NULL), PTL_ERR_INVALID_ARG);
    /* bad requests: refused at begin, and finish says so */
    ptl_path_request bad;
    memset(&bad, 0, sizeof bad);
    bad.start[0] = NAN;
    cr_assert_eq(ptl_query_path_begin(q, &bad), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_path_finish(q, &a.res), PTL_ERR_INVALID_ARG);
    bad.start[0] = 1e6f;
    cr_assert_eq(ptl_query_path_begin(q, &bad), PTL_ERR_NOT_FOUND);
    cr_assert_eq(ptl_query_path_finish(q, &a.res), PTL_ERR_NOT_FOUND);
    cr_assert(!a.res.found && a.res.point_count == 0);
    /* a long search: find the pair that takes the most expansions among some random ones */
    uint64_t st = 11;
    ptl_path_request req, best;
    uint32_t most = 0;
    for (int i = 0; i < 200; ++i) {
        memset(&req, 0, sizeof req);
        req.start[0] = (float)(rng_int(&st, 1, 255) / 8.0), req.start[2] = (float)(rng_int(&st, 1, 255) / 8.0);
        req.goal[0] = (float)(rng_int(&st, 1, 255) / 8.0), req.goal[2] = (float)(rng_int(&st, 1, 255) / 8.0);
        clear(&a);
        if (ptl_query_find_path(q, &req, &a.res) == PTL_OK && a.res.nodes_expanded > most) most = a.res.nodes_expanded, best = req;
    }
    cr_assert_gt(most, 20u);
    clear(&b);
    b.st = ptl_query_find_path(q, &best, &b.res);
    /* a path asked of the same query in the middle ends the sliced search: refused, not wrong */
    cr_assert_eq(ptl_query_path_begin(q, &best), PTL_OK);
    cr_assert_eq(ptl_query_path_step(q, 2, NULL), PTL_IN_PROGRESS);
    clear(&a);
    cr_assert_eq(ptl_query_find_path(q, &best, &a.res), b.st);
    cr_assert_eq(ptl_query_path_step(q, 2, NULL), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_path_finish(q, &a.res), PTL_ERR_INVALID_ARG);
    cr_assert(!a.res.found && a.res.point_count == 0);
    /* a move (a search of its own) likewise; a raycast leaves it be */
    cr_assert_eq(ptl_query_path_begin(q, &best), PTL_OK);
    cr_assert_eq(ptl_query_path_step(q, 2, NULL), PTL_IN_PROGRESS);
    ptl_raycast_hit hit = {0};
    cr_assert_geq(ptl_query_raycast(q, best.start, best.goal, NULL, &hit), 0);
    cr_assert_eq(ptl_query_path_step(q, 2, NULL), PTL_IN_PROGRESS);
    ptl_move_result mv = {0};
    cr_assert_geq(ptl_query_move_along_surface(q, best.start, best.goal, NULL, &mv), 0);
    clear(&a);
    cr_assert_eq(ptl_query_path_finish(q, &a.res), PTL_ERR_INVALID_ARG);
    /* finish before the steps are done: the rest is run, the same path */
    cr_assert_eq(ptl_query_path_begin(q, &best), PTL_OK);
    cr_assert_eq(ptl_query_path_step(q, 1, NULL), PTL_IN_PROGRESS);
    clear(&a);
    a.st = ptl_query_path_finish(q, &a.res);
    same(&a, &b, "finished early");
    /* and once finished, it is over */
    cr_assert_eq(ptl_query_path_step(q, 1, NULL), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_path_finish(q, &a.res), PTL_ERR_INVALID_ARG);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}
