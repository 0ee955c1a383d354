/* Failure paths on purpose (SQLite style): an allocator that fails at the N-th call (or at every
   call from the N-th on), looped over N, through the whole 2D pipeline (grid -> shape ->
   decomposition -> blob -> hub labels -> navmesh -> query) and a tiled 3D bake. Each run must end
   in PTL_ERR_NO_MEMORY or success, never crash, and give back every byte it took. */
#include "test_util.h"

#include <portolan/bake_debug.h>

#include "failing_alloc.h"
#include "mesh_builder.h"

/* Runs the pipeline once; returns the first failing status or PTL_OK. Frees everything it made. */
static ptl_status pipeline(const ptl_allocator* a, const char* map_text) {
    ptl_grid g;
    ptl_shape s;
    ptl_decomposition d;
    ptl_error err;
    const ptl_input_desc in = {.alloc = a};
    ptl_status st = ptl_grid_parse(map_text, strlen(map_text), "test.map", &in, &g, &err);
    if (st < 0) return st;
    st = ptl_shape_from_grid(&g, &in, &s, &err);
    ptl_grid_free(&g);
    if (st < 0) return st;
    ptl_decompose_desc dd = {.alloc = a, .lids = true}; /* with pocket lids: their portals, the blob's lids */
    st = ptl_decompose(&s, &dd, &d, &err);
    if (st >= 0) {
        void* blob;
        size_t size;
        st = ptl_bake_decomposition(&d, &(ptl_blob_desc){.flags = s.flags, .alloc = a}, &blob, &size, &err);
        ptl_decomposition_free(&d);
        if (st >= 0) { /* with hub labels, so that the query reads them */
            void* with;
            size_t with_size;
            st = ptl_bake_hubs(blob, size, &(ptl_hubs_desc){.jobs = NULL, .alloc = a}, &with, &with_size, NULL, &err);
            ptl_blob_free(blob, size, a);
            blob = with, size = with_size;
        }
        if (st >= 0) {
            ptl_navmesh_desc nd = {.alloc = a};
            ptl_navmesh* nm;
            st = ptl_navmesh_create(blob, size, &nd, &nm, &err);
            ptl_blob_free(blob, size, a);
            if (st >= 0) {
                ptl_query_desc qd = {.max_nodes = 256, .alloc = a};
                ptl_query* q;
                st = ptl_query_create(nm, &qd, &q);
                if (st >= 0) {
                    float pts[3 * 32];
                    ptl_path_request req = {{1, 0, 1}, {14, 0, 6}, {0, 0, 0}, 0, PTL_PATH_EXACT};
                    ptl_path_result res;
                    memset(&res, 0, sizeof res);
                    res.points = pts;
                    res.point_capacity = 32;
                    ptl_status qs = ptl_query_find_path(q, &req, &res);
                    cr_expect(qs >= 0 && res.found, "the query itself must not need memory: %s", ptl_status_name(qs));
                    ptl_query_destroy(q);
                }
                ptl_navmesh_destroy(nm);
            }
        }
    }
    ptl_shape_free(&s);
    return st;
}

static const char MAP[] = "type octile\nheight 8\nwidth 16\nmap\n"
                          "................\n"
                          "..@@@....@@@@...\n"
                          "..@@@....@......\n"
                          "......@.........\n"
                          ".....@.@@@@@@...\n"
                          "..@........@....\n"
                          "..@@@......@....\n"
                          "................\n";

/* Runs `run` once per allocation it makes, the n-th failing (and, with fail_after, every one after
   it too): each must end in PTL_ERR_NO_MEMORY and give back every byte. */
static void fail_each(ptl_status (*run)(const ptl_allocator*, const void*), const void* arg, bool fail_after) {
    tracking t = {.fail_at = -1};
    ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
    cr_assert_eq(run(&a, arg), PTL_OK, "the pipeline must work with a working allocator");
    cr_assert_eq(t.live_blocks, 0, "%ld blocks leaked", t.live_blocks);
    const long total = t.calls;
    cr_assert_gt(total, 10);
    for (long n = 0; n < total; ++n) {
        tracking f = {.fail_at = n, .fail_after = fail_after};
        ptl_allocator fa = {t_alloc, t_realloc, t_free, &f};
        ptl_status st = run(&fa, arg);
        cr_expect(st == PTL_ERR_NO_MEMORY, "failing allocation %ld%s of %ld gave %s, not PTL_ERR_NO_MEMORY", n,
                  fail_after ? " and after" : "", total, ptl_status_name(st));
        cr_expect(f.live_blocks == 0 && f.live_bytes == 0, "failing allocation %ld%s: %ld blocks (%zu bytes) leaked", n,
                  fail_after ? " and after" : "", f.live_blocks, f.live_bytes);
    }
}

static ptl_status grid_pipeline(const ptl_allocator* a, const void* map_text) {
    return pipeline(a, map_text);
}

Test(alloc_failure, every_allocation_failure_is_reported_and_leaks_nothing) {
    fail_each(grid_pipeline, MAP, false);
}

Test(alloc_failure, running_out_of_memory_at_any_allocation_is_reported_and_leaks_nothing) {
    fail_each(grid_pipeline, MAP, true);
}

/* A tiled 3D bake that keeps its intermediates: the tiles are assembled into the world's field
   (with the ceilings) before the layers, so this runs the assembly and its hand-over of arrays. */
static ptl_status tiled_debug_bake(const ptl_allocator* a, const void* mesh) {
    ptl_bake_debug* dbg = NULL;
    if (ptl_bake_debug_create(NULL, &dbg) < 0) return PTL_ERR_NO_MEMORY;
    ptl_bake_desc d = {.tile_size = 16, .alloc = a, .debug = dbg};
    void* blob = NULL;
    size_t size = 0;
    ptl_error err;
    ptl_status st = ptl_bake_trimesh(mesh, &d, &blob, &size, NULL, &err);
    if (blob) ptl_blob_free(blob, size, a);
    ptl_bake_debug_destroy(dbg);
    return st;
}

static ptl_trimesh small_scene(mesh_builder* b) {
    floor_quad(b, 0, 0, 9, 7, 0);
    box(b, 2, 0, 2, 3, 2.5f, 3);
    floor_quad(b, 5, 3, 8, 6, 1.0f);
    return as_trimesh(b);
}

Test(alloc_failure, a_tiled_bake_kept_for_debugging_fails_cleanly_at_every_allocation, .timeout = 300) {
    mesh_builder* b = calloc(1, sizeof *b);
    ptl_trimesh m = small_scene(b);
    fail_each(tiled_debug_bake, &m, false);
    free(b);
}

Test(alloc_failure, a_tiled_bake_kept_for_debugging_fails_cleanly_from_every_allocation_on, .timeout = 300) {
    mesh_builder* b = calloc(1, sizeof *b);
    ptl_trimesh m = small_scene(b);
    fail_each(tiled_debug_bake, &m, true);
    free(b);
}

/* A tiled bake whose tiles run in groups of several rows and columns (tiles_stream.c: tiles under
   256 columns share a window per group, and a group keeps the rows the group below shares: the
   strips): 2 x 2 groups of 16 x 16 tiles of 16 columns at cell size 1. Allocations fail one at a
   time (120 of them spread over the bake, to keep the test short, the first 40 all of them): each bake
   says so and leaks nothing. */
static ptl_status grouped_bake(const ptl_allocator* a, const void* mesh) {
    ptl_bake_desc d = {.tile_size = 16, .cell_size = 1, .cell_height = 0.5f, .alloc = a};
    void* blob = NULL;
    size_t size = 0;
    ptl_error err;
    ptl_status st = ptl_bake_trimesh(mesh, &d, &blob, &size, NULL, &err);
    if (blob) ptl_blob_free(blob, size, a);
    return st;
}

Test(alloc_failure, a_bake_in_groups_of_tiles_fails_cleanly_at_every_allocation, .timeout = 600) {
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 0, 0, 300, 290, 0);
    box(b, 40, 0, 40, 60, 3, 250);
    box(b, 250, 0, 100, 270, 3, 280);
    floor_quad(b, 120, 120, 200, 200, 1);
    ptl_trimesh m = as_trimesh(b);
    tracking t = {.fail_at = -1};
    ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
    cr_assert_eq(grouped_bake(&a, &m), PTL_OK);
    cr_assert_eq(t.live_blocks, 0);
    const long total = t.calls;
    cr_assert_gt(total, 100);
    const long stride = total / 120 + 1;
    for (long n = 0; n < total; n += n < 40 ? 1 : stride) {
        tracking f = {.fail_at = n};
        ptl_allocator fa = {t_alloc, t_realloc, t_free, &f};
        ptl_status st = grouped_bake(&fa, &m);
        cr_expect(st == PTL_ERR_NO_MEMORY, "failing allocation %ld of %ld gave %s", n, total, ptl_status_name(st));
        cr_expect(f.live_blocks == 0 && f.live_bytes == 0, "failing allocation %ld: %ld blocks leaked", n, f.live_blocks);
    }
    free(b);
}
