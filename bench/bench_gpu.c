/* `portolan-bench gpu [--quick]`: the decomposition with the closest-element search on the CPU
   (the grid walk), on the GPU (<portolan/gpu.h>, OpenGL 4.3) and through the plain C reference
   backend (the GPU's algorithm on the CPU), against notch count on generated random-obstacle maps
   (ptl_grid_generate), from the paper's scale (ANavMG §4.1: 965 vertices) to about 100,000 notches.
   The GPU's time is split into upload, dispatch and readback (ptl_gpu_stats); the rest of its
   decomposition is the CPU's: the exact choice among candidates, the walk where an answer does not
   settle a notch, the sequential pass over the notches left and the cells. Wall-clock times, the
   fastest of the runs. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <portolan/gpu.h>

#include "bench.h"

typedef struct gpu_row {
    double cpu, gpu, ref, upload, dispatch, readback;
    double cpu_time; /* [Units: ms] process CPU time of the fastest run, every thread (llvmpipe's too) */
    uint32_t verts, notches, fallbacks;
} gpu_row;

/* The fastest of `runs` decompositions of s with `backend` (NULL: the CPU walk); the GPU's parts of
   that fastest run when gpu is given. */
static double process_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double time_decompose(const ptl_shape* s, const ptl_closest_backend* backend, ptl_gpu* gpu, int runs,
                             gpu_row* r) {
    double best = 1e300;
    for (int i = 0; i < runs; ++i) {
        ptl_decompose_desc dd = ptl_decompose_desc_defaults();
        dd.backend = backend;
        ptl_decomposition dc;
        ptl_error err;
        if (gpu) ptl_gpu_reset_stats(gpu);
        double t0 = bench_now_ms(), c0 = process_ms();
        ptl_status st = ptl_decompose(s, &dd, &dc, &err);
        double t = bench_now_ms() - t0, c = process_ms() - c0;
        if (st < 0) {
            fprintf(stderr, "bench gpu: %s\n", err.message);
            return -1;
        }
        if (t < best) {
            best = t;
            r->cpu_time = c;
            r->verts = dc.vert_count, r->notches = dc.notches;
            if (backend) r->fallbacks = dc.backend_fallbacks;
            if (gpu) {
                ptl_gpu_stats gs;
                ptl_gpu_get_stats(gpu, &gs);
                r->upload = gs.ms_upload, r->dispatch = gs.ms_dispatch, r->readback = gs.ms_readback;
            }
        }
        ptl_decomposition_free(&dc);
    }
    return best;
}

int bench_gpu_run(bool quick) {
    ptl_gpu* gpu = NULL;
    ptl_error err;
    if (ptl_gpu_create(NULL, &gpu, &err) < 0) {
        fprintf(stderr, "bench gpu: %s\n", err.message);
        return 1;
    }
    printf("## GPU closest-element search (ANavMG §4.1)\n\n");
    bench_print_machine();
    printf("GPU: %s, OpenGL %s.\n\n", ptl_gpu_renderer(gpu), ptl_gpu_version(gpu));
    printf("Random-obstacle maps (`portolan gen grid --scene random --seed 1`, density 0.25), decomposition only,\n"
           "fastest of the runs [ms]. GPU = upload + dispatch + readback + the CPU's part (exact choice, walks\n"
           "where an answer does not settle a notch, the sequential pass, the cells).\n\n");
    printf("Wall-clock on a shared machine; \"CPU time\" is the process's over every thread (llvmpipe's\n"
           "too) for the same runs, what the machine's load does not inflate.\n\n");
    printf("| map | vertices | notches | CPU | GPU | upload | dispatch | readback | CPU part | reference | walked | CPU/GPU "
           "| CPU time: CPU | CPU time: GPU |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    static const uint32_t sides[] = {38, 64, 128, 160, 256, 384, 512};
    const size_t count = quick ? 4 : sizeof sides / sizeof sides[0];
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; ++i) {
        ptl_grid g;
        ptl_shape s;
        ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_RANDOM, .width = sides[i], .height = sides[i], .seed = 1};
        if (ptl_grid_generate(&gd, &g, &err) < 0 || ptl_shape_from_grid(&g, NULL, &s, &err) < 0) {
            fprintf(stderr, "bench gpu: %s\n", err.message);
            rc = 1;
            break;
        }
        ptl_grid_free(&g);
        const int runs = sides[i] <= 160 ? 3 : 1;
        gpu_row r = {0}, rc0 = {0};
        r.cpu = time_decompose(&s, NULL, NULL, runs, &rc0);
        r.gpu = time_decompose(&s, ptl_gpu_backend(gpu), gpu, runs, &r);
        r.verts = rc0.verts, r.notches = rc0.notches;
        gpu_row rr = {0};
        r.ref = time_decompose(&s, ptl_closest_backend_ref(), NULL, runs, &rr);
        ptl_shape_free(&s);
        if (r.cpu < 0 || r.gpu < 0 || r.ref < 0) {
            rc = 1;
            break;
        }
        const double part = r.gpu - r.upload - r.dispatch - r.readback;
        printf("| random %ux%u | %u | %u | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %u | %.2f | %.1f | %.1f |\n",
               sides[i], sides[i], r.verts, r.notches, r.cpu, r.gpu, r.upload, r.dispatch, r.readback, part, r.ref,
               r.fallbacks, r.cpu / r.gpu, rc0.cpu_time, r.cpu_time);
        fflush(stdout);
    }
    printf("\n");
    ptl_gpu_destroy(gpu);
    return rc;
}
