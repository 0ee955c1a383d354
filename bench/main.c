/* portolan-bench: the benchmark program (sections and usage: bench/bench.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int usage(void) {
    fprintf(stderr, "usage: portolan-bench [2d] [3d] [tiles] [radius] [queries] [reference] [paths] [--quick] [--data DIR] [--out DIR]\n"
                    "  2d, 3d, tiles, radius, queries  benchmark tables (Markdown on stdout); default: all five\n"
                    "  paths      the 3D path-query table alone: [--mesh NAME] [--dump] [--loop N]\n"
                    "  queries [--mesh NAME] [--kind K]  the everyday queries on one mesh (dungeon, nav_test, undulating),\n"
                    "             one kind (nearest, raycast, wall, move, move_in, raycast_in)\n"
                    "  reference  write Detour's reference pairs and areas for the tests into --out DIR\n"
                    "             (default tests/data/detour)\n"
                    "usage: portolan-bench gpu [--quick]: the decomposition's search on CPU, GPU (OpenGL 4.3) and reference\n"
                    "usage: portolan-bench random [--data DIR]: time per random point beside Detour\n"
                    "usage: portolan-bench tilecache [--mesh NAME] [--rounds N] [--data DIR]: add + update of\n"
                    "  DetourTileCache's 150 obstacles, the default update beside the full rebake\n"
                    "usage: portolan-bench obstacles-many [--size S] [--count N]: N obstacles (default 100000) on a\n"
                    "  generated terrain of S m (default 512) through the tile cache: time and memory per obstacle\n"
                    "usage: portolan-bench rss portolan|recast FILE.obj\n"
                    "  load and bake FILE tiled in this process, print its peak resident set (KiB)\n");
    return 2;
}

int main(int argc, char** argv) {
    const char* data = "../shared/data";
    const char* out_dir = "tests/data/detour";
    bool quick = false, run2d = false, run3d = false, runtiles = false, reference = false, runradius = false;
    bool runqueries = false;
    bool paths = false, dump = false;
    const char* only = NULL, *kind = NULL;
    int loop = 0;
    if (argc == 4 && !strcmp(argv[1], "rss") && (!strcmp(argv[2], "portolan") || !strcmp(argv[2], "recast")))
        return bench_tiles_rss_child(argv[2], argv[3]);
    if (argc >= 2 && !strcmp(argv[1], "gpu")) return bench_gpu_run(argc >= 3 && !strcmp(argv[2], "--quick")) ? 1 : 0;
    if (argc >= 2 && !strcmp(argv[1], "random")) {
        if (argc == 4 && !strcmp(argv[2], "--data")) data = argv[3];
        else if (argc != 2) return usage();
        return bench_random_run(data) ? 1 : 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "obstacles-many")) {
        float size = 512;
        long count = 100000;
        for (int i = 2; i < argc; ++i) {
            if (!strcmp(argv[i], "--size") && i + 1 < argc) size = (float)atof(argv[++i]);
            else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = atol(argv[++i]);
            else return usage();
        }
        if (!(size >= 8 && size <= 1024) || count < 1 || count > 10000000) return usage();
        return bench_tilecache_many_run(size, (uint32_t)count, 20261127u) ? 1 : 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "tilecache")) {
        int rounds = 3;
        for (int i = 2; i < argc; ++i) {
            if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
            else if (!strcmp(argv[i], "--mesh") && i + 1 < argc) only = argv[++i];
            else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
            else return usage();
        }
        return bench_tilecache_run(data, only, rounds) ? 1 : 0;
    }
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "2d")) run2d = true;
        else if (!strcmp(argv[i], "3d")) run3d = true;
        else if (!strcmp(argv[i], "tiles")) runtiles = true;
        else if (!strcmp(argv[i], "radius")) runradius = true;
        else if (!strcmp(argv[i], "queries")) runqueries = true;
        else if (!strcmp(argv[i], "reference")) reference = true;
        else if (!strcmp(argv[i], "paths")) paths = true;
        else if (!strcmp(argv[i], "--mesh") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--kind") && i + 1 < argc) kind = argv[++i];
        else if (!strcmp(argv[i], "--dump")) dump = true;
        else if (!strcmp(argv[i], "--loop") && i + 1 < argc) loop = atoi(argv[++i]);
        else return usage();
    }
    if (paths) return bench3d_paths_run(data, only, dump, loop) ? 1 : 0;
    if (!run2d && !run3d && !runtiles && !reference && !runradius && !runqueries)
        run2d = run3d = runtiles = runradius = runqueries = true;
    int rc = 0;
    if (reference) rc |= bench_reference_run(data, out_dir);
    if (run2d || run3d || runtiles || runradius || runqueries) {
        printf("# Portolan benchmarks\n\n");
        bench_print_machine();
        printf("Sections:%s%s%s%s%s. Regenerate with `bash bench/run.sh` (release build).\n\n", run2d ? " 2D" : "",
               run3d ? " 3D" : "", runtiles ? " tiles" : "", runradius ? " radius" : "",
               runqueries ? " queries" : "");
    }
    if (run2d) rc |= bench2d_run(data, quick);
    if (run3d) rc |= bench3d_run(data, quick);
    if (runtiles) rc |= bench_tiles_run(data, quick);
    if (runradius) rc |= bench_radius_run(data, quick);
    if (runqueries) rc |= bench_queries_run(data, quick, only, kind);
    return rc ? 1 : 0;
}
