/* The decomposition's closest-element backends (ptl_closest_backend): the OpenGL 4.3 compute one
   (<portolan/gpu.h>) and the plain C reference give blobs byte for byte the CPU walk's, on grid
   maps, polygon meshes and a tiled 3D bake on two threads. The GL tests need a context: CI has
   Mesa's llvmpipe (scripts/setup.sh installs libegl1 libegl-mesa0 libgl1-mesa-dri); without one
   they fail, naming what is missing, never skip. Every shared map and mesh through the command
   line: tests/gpu_identical.sh. */
#include <portolan/gpu.h>
#include <portolan/runtime.h>

#include "../tools/jobs.h"
#include "test_util.h"

static ptl_gpu* open_gpu(void) {
    ptl_gpu* gpu = NULL;
    ptl_error err;
    ptl_status st = ptl_gpu_create(NULL, &gpu, &err);
    cr_assert_geq(st, 0, "no OpenGL 4.3 context for the GPU tests (%s): %s", ptl_status_name(st), err.message);
    return gpu;
}

/* Bakes `path` (2D or 3D by extension) with and without `backend`; asserts the same bytes. */
static void same_blob(const char* path, const ptl_bake_desc* base, const ptl_closest_backend* backend) {
    ptl_bake_desc d = *base;
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    ptl_error err;
    const size_t len = strlen(path);
    const bool is3d = len > 4 && !strcmp(path + len - 4, ".obj");
    if (is3d) {
        ptl_trimesh m;
        cr_assert_geq(ptl_obj_load(path, NULL, &m, &err), 0, "%s: %s", path, err.message);
        cr_assert_geq(ptl_bake_trimesh(&m, &d, &a, &na, NULL, &err), 0, "%s: %s", path, err.message);
        d.closest_backend = backend;
        cr_assert_geq(ptl_bake_trimesh(&m, &d, &b, &nb, NULL, &err), 0, "%s (%s): %s", path, backend->name, err.message);
        ptl_trimesh_free(&m);
    } else {
        ptl_shape s;
        cr_assert_geq(ptl_shape_load(path, NULL, &s, &err), 0, "%s: %s", path, err.message);
        cr_assert_geq(ptl_bake_shape(&s, &d, &a, &na, NULL, &err), 0, "%s: %s", path, err.message);
        d.closest_backend = backend;
        cr_assert_geq(ptl_bake_shape(&s, &d, &b, &nb, NULL, &err), 0, "%s (%s): %s", path, backend->name, err.message);
        ptl_shape_free(&s);
    }
    cr_expect(na == nb && memcmp(a, b, na) == 0, "%s: the %s backend's blob differs from the CPU's (%zu and %zu bytes)",
              path, backend->name, na, nb);
    ptl_blob_free(a, na, NULL);
    ptl_blob_free(b, nb, NULL);
}

/* The first map of every grids/ folder, polyanya's grid maps and meshes: a few seconds under ASan. */
static unsigned same_on_subset(const ptl_closest_backend* backend, double relax) {
    TEST_REQUIRE_DATA(data);
    static const char* const dirs[][2] = {{"grids/bg512", ".map"},    {"grids/dao", ".map"},       {"grids/gppc2023", ".map"},
                                          {"grids/random512", ".map"}, {"grids/room512", ".map"},   {"grids/sc1", ".map"},
                                          {"grids/wc3_512", ".map"},   {"polyanya/gridmaps", ".map"}, {"polyanya/meshes", ".mesh"}};
    const ptl_bake_desc d = {.relax = relax};
    unsigned n = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", data, dirs[i][0]);
        char** l = test_list_files(path, dirs[i][1]);
        const bool all = strncmp(dirs[i][0], "polyanya", 8) == 0;
        /* relaxed: small inputs only (a relaxed decomposition of a big map takes seconds; all of them:
           tests/gpu_identical.sh) */
        if (relax > 0 && !strstr(dirs[i][0], "dao") && !strstr(dirs[i][0], "wc3") && !strstr(dirs[i][0], "gridmaps")) {
            test_free_list(l);
            continue;
        }
        for (char** p = l; *p && (all || p == l); ++p) {
            if (strstr(*p, "untraversable")) continue; /* no free space: no bake */
            if (relax > 0 && strstr(*p, "aurora")) continue;
            same_blob(*p, &d, backend);
            ++n;
        }
        test_free_list(l);
    }
    return n;
}

Test(gpu, reference_backend_bakes_the_cpu_bytes_on_grid_maps_and_polygon_meshes, .timeout = 600) {
    cr_assert_gt(same_on_subset(ptl_closest_backend_ref(), 0), 10);
}

/* Relaxed: no notch pairs, the notch-by-notch pass answered from one batch (closest_batch.c). */
Test(gpu, reference_backend_bakes_the_cpu_bytes_with_relaxation, .timeout = 600) {
    cr_assert_gt(same_on_subset(ptl_closest_backend_ref(), 1.0), 8);
}

Test(gpu, gpu_backend_bakes_the_cpu_bytes_on_grid_maps_and_polygon_meshes_relaxed_or_not, .timeout = 600) {
    ptl_gpu* gpu = open_gpu();
    cr_assert_gt(same_on_subset(ptl_gpu_backend(gpu), 0), 10);
    cr_assert_gt(same_on_subset(ptl_gpu_backend(gpu), 1.0), 8);
    ptl_gpu_stats gs;
    ptl_gpu_get_stats(gpu, &gs);
    cr_expect_gt(gs.queries, 1000, "the GPU answered %llu queries", (unsigned long long)gs.queries);
    ptl_gpu_destroy(gpu);
}

Test(gpu, gpu_backend_bakes_the_cpu_bytes_on_a_tiled_3d_bake_on_two_threads, .timeout = 600) {
    TEST_REQUIRE_DATA(data);
    ptl_gpu* gpu = open_gpu();
    ptl_thread_jobs jobs;
    ptl_thread_jobs_init(&jobs, 2);
    const ptl_bake_desc d = {.agent_radius = 0.6f, .tile_size = 64, .jobs = &jobs.sys};
    const ptl_bake_desc one = {0};
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/dungeon.obj", data);
    same_blob(path, &d, ptl_gpu_backend(gpu));
    snprintf(path, sizeof path, "%s/meshes/nav_test.obj", data);
    same_blob(path, &one, ptl_gpu_backend(gpu));
    ptl_gpu_destroy(gpu);
}

Test(gpu, no_opengl_4_3_is_unsupported_and_says_so) {
    setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 1); /* Mesa then offers no 4.3 context (own process) */
    ptl_gpu* gpu = (ptl_gpu*)1;
    ptl_error err;
    ptl_status st = ptl_gpu_create(NULL, &gpu, &err);
    cr_assert_eq(st, PTL_ERR_UNSUPPORTED, "%s: %s", ptl_status_name(st), err.message);
    cr_expect_null(gpu);
    cr_expect(strstr(err.message, "4.3") != NULL, "the message names OpenGL 4.3: %s", err.message);
}

Test(gpu, a_decomposition_with_a_backend_reports_its_fallbacks_and_the_same_cells) {
    TEST_REQUIRE_DATA(data);
    char path[1024];
    snprintf(path, sizeof path, "%s/grids/dao/arena2.map", data);
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_shape_load(path, NULL, &s, &err), 0, "%s", err.message);
    ptl_decompose_desc dd = ptl_decompose_desc_defaults();
    ptl_decomposition a, b;
    cr_assert_geq(ptl_decompose(&s, &dd, &a, &err), 0, "%s", err.message);
    dd.backend = ptl_closest_backend_ref();
    cr_assert_geq(ptl_decompose(&s, &dd, &b, &err), 0, "%s", err.message);
    cr_expect_eq(a.backend_fallbacks, 0);
    cr_expect_lt(b.backend_fallbacks, a.notches / 10, "%u of %u notches walked", b.backend_fallbacks, a.notches);
    cr_expect_eq(a.cell_count, b.cell_count);
    cr_expect(a.cell_start[a.cell_count] == b.cell_start[b.cell_count] &&
              !memcmp(a.cell_verts, b.cell_verts, a.cell_start[a.cell_count] * sizeof(uint32_t)));
    ptl_decomposition_free(&a);
    ptl_decomposition_free(&b);
    ptl_shape_free(&s);
}
