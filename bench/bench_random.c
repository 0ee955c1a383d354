/* portolan-bench random: time per random point (ptl_query_random_point) beside Detour's
   findRandomPoint on the same meshes, in one process, alternating by round so that both see the
   same load. Per call: CLOCK_MONOTONIC around each call (median, p99; includes the clock's own
   cost, about 20 ns, for both); per round: thread CPU time of the whole round over its calls (the
   least of the rounds: the time with the fewest interruptions). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <portolan/bake.h>
#include <portolan/runtime.h>

#include "bench.h"
#include "peer_recast.h"

enum { ROUNDS = 30, PER_ROUND = 10000 };

static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static double pct(double* v, size_t n, double p) {
    bench_median(v, n); /* sorts */
    return n ? v[(size_t)((n - 1) * p)] : 0;
}

static int one_mesh(const char* data, const char* name) {
    char path[2048];
    snprintf(path, sizeof path, "%s/meshes/%s.obj", data, name);
    ptl_trimesh m;
    ptl_error err;
    if (ptl_obj_load(path, NULL, &m, &err) < 0) {
        fprintf(stderr, "portolan-bench: random: %s: %s\n", name, err.message);
        return 1;
    }
    ptl_bake_desc d;
    bench_reference_desc(&d);
    void* blob = NULL;
    size_t size = 0;
    peer_mesh* pm = NULL;
    ptl_navmesh* nm = NULL;
    peer_stats rc;
    double t0 = bench_now_ms();
    bool ok = ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err) >= 0;
    double t1 = bench_now_ms();
    ok = ok && ptl_navmesh_create(blob, size, NULL, &nm, &err) >= 0;
    double load_ms = bench_now_ms() - t1;
    (void)t0;
    ok = ok && bench_recast_bake_trimesh(&m, &pm, &rc) == 0;
    ptl_trimesh_free(&m);
    ptl_query* q = NULL;
    if (!ok || ptl_query_create(nm, NULL, &q) < 0) {
        fprintf(stderr, "portolan-bench: random: %s: bake failed\n", name);
        return 1;
    }
    double* ours = malloc(sizeof(double) * ROUNDS * PER_ROUND);
    double* theirs = malloc(sizeof(double) * ROUNDS * PER_ROUND);
    double cpu_ours = INFINITY, cpu_theirs = INFINITY;
    uint64_t state = 1;
    peer_random_seed(1);
    float sink = 0;
    for (int r = 0; r < ROUNDS; ++r) {
        double c0 = cpu_ms();
        for (int i = 0; i < PER_ROUND; ++i) {
            ptl_location l;
            double a = bench_now_ms();
            ptl_query_random_point(q, &state, &l);
            ours[r * PER_ROUND + i] = (bench_now_ms() - a) * 1e3;
            sink += l.point[0];
        }
        cpu_ours = fmin(cpu_ours, (cpu_ms() - c0) * 1e3 / PER_ROUND);
        c0 = cpu_ms();
        for (int i = 0; i < PER_ROUND; ++i) {
            float p[3];
            double a = bench_now_ms();
            peer_random_point(pm, p);
            theirs[r * PER_ROUND + i] = (bench_now_ms() - a) * 1e3;
            sink += p[0];
        }
        cpu_theirs = fmin(cpu_theirs, (cpu_ms() - c0) * 1e3 / PER_ROUND);
    }
    const size_t n = (size_t)ROUNDS * PER_ROUND;
    double om = bench_median(ours, n), op = pct(ours, n, 0.99), tm = bench_median(theirs, n), tp = pct(theirs, n, 0.99);
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    double surface = 0;
    for (uint32_t c = 0; c < info.cell_count; ++c) surface += ptl_query_cell_surface_area(q, c);
    printf("| %s | %u | %.1f | %.1f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f |%s\n", name, info.cell_count,
           info.walkable_area, surface, om, op, cpu_ours, tm, tp, cpu_theirs, load_ms, sink == 12345 ? " " : "");
    free(ours), free(theirs);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    peer_free(pm);
    return 0;
}

int bench_random_run(const char* data) {
    static const char* const MESHES[] = {"dungeon", "nav_test", "undulating"};
    printf("## Random points\n\n");
    bench_print_machine();
    printf("%d rounds of %d draws each, ours and Detour's alternating (Detour 1.5.1 findRandomPoint, its "
           "xorshift32 from peer_recast.cpp). us: per call, CLOCK_MONOTONIC; cpu: least thread CPU time of a "
           "round per call.\n\n", ROUNDS, PER_ROUND);
    printf("| mesh | cells | plan area | surface | ours median us | ours p99 | ours cpu | Detour median | Detour p99 | "
           "Detour cpu | load ms |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    int rc = 0;
    for (size_t i = 0; i < sizeof MESHES / sizeof MESHES[0]; ++i) rc |= one_mesh(data, MESHES[i]);
    printf("\n");
    return rc;
}
