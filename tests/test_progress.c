/* The bake's progress reports (ptl_bake_desc.progress): every bake reports its stages from the
   calling thread, with fractions in [0, 1] that never decrease and end at "done" with 1, and the
   reports change no byte of the blob. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <portolan/bake.h>
#include <portolan/gen.h>
#include <string.h>

#include "../tools/jobs.h"

typedef struct seen {
    pthread_t caller;
    int calls, other_thread, out_of_range, decreasing;
    float last;
    char first[32], last_stage[32];
    bool saw_voxelize_between; /* a report inside the voxel stage, past its start */
} seen;

static void record(void* user, const char* stage, float f) {
    seen* s = user;
    if (!pthread_equal(pthread_self(), s->caller)) s->other_thread++;
    if (!(f >= 0 && f <= 1)) s->out_of_range++;
    if (s->calls && f < s->last) s->decreasing++;
    if (!s->calls) snprintf(s->first, sizeof s->first, "%s", stage);
    if (!strcmp(stage, "voxelize") && f > 0) s->saw_voxelize_between = true;
    snprintf(s->last_stage, sizeof s->last_stage, "%s", stage);
    s->last = f;
    s->calls++;
}

static void check(const seen* s, const char* first) {
    cr_assert_gt(s->calls, 2, "the bake reported %d times", s->calls);
    cr_assert_eq(s->other_thread, 0, "%d reports came from another thread than the caller's", s->other_thread);
    cr_assert_eq(s->out_of_range, 0, "%d fractions outside [0, 1]", s->out_of_range);
    cr_assert_eq(s->decreasing, 0, "%d reports went back", s->decreasing);
    cr_assert_str_eq(s->first, first);
    cr_assert_str_eq(s->last_stage, "done");
    cr_assert_eq(s->last, 1.0f);
}

Test(progress, a_3d_bake_on_four_threads_reports_every_stage_from_the_calling_thread_and_ends_done) {
    ptl_scene_desc sd = {.kind = PTL_SCENE_BUILDING, .size = 40, .storeys = 2, .seed = 1};
    ptl_trimesh m;
    ptl_error err;
    cr_assert_geq(ptl_scene_generate(&sd, &m, &err), 0, "%s", err.message);
    ptl_thread_jobs jobs;
    ptl_thread_jobs_init(&jobs, 4);
    seen s = {.caller = pthread_self()};
    /* small tiles: several rows of tiles, each reported */
    ptl_bake_desc d = {.jobs = &jobs.sys, .tile_size = 32, .progress = record, .progress_user = &s};
    void *blob, *plain;
    size_t size, plain_size;
    cr_assert_geq(ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err), 0, "%s", err.message);
    check(&s, "voxelize");
    cr_assert(s.saw_voxelize_between, "the voxel tiles reported no row done");
    d.progress = NULL, d.progress_user = NULL;
    cr_assert_geq(ptl_bake_trimesh(&m, &d, &plain, &plain_size, NULL, &err), 0, "%s", err.message);
    cr_assert(size == plain_size && !memcmp(blob, plain, size), "reporting progress changed the blob");
    ptl_blob_free(blob, size, NULL);
    ptl_blob_free(plain, plain_size, NULL);
    ptl_trimesh_free(&m);
}

Test(progress, a_2d_bake_with_hubs_reports_decompose_to_done) {
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 64, .height = 64, .seed = 3};
    ptl_grid g;
    ptl_shape sh;
    ptl_error err;
    cr_assert_geq(ptl_grid_generate(&gd, &g, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &sh, &err), 0, "%s", err.message);
    seen s = {.caller = pthread_self()};
    ptl_bake_desc d = {.hubs = true, .progress = record, .progress_user = &s};
    void* blob;
    size_t size;
    cr_assert_geq(ptl_bake_shape(&sh, &d, &blob, &size, NULL, &err), 0, "%s", err.message);
    check(&s, "decompose");
    ptl_blob_free(blob, size, NULL);
    ptl_shape_free(&sh);
    ptl_grid_free(&g);
}
