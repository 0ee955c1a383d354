/* 2D benchmark (issue 2): decomposition time, cells and notches per map; Portolan's cells beside
   Polyanya's merged meshes; per-query median and p99 over scenarios; a scaling table of generated
   random-obstacle maps from 1k to 1M vertices. Prints Markdown; bench/run.sh keeps it in
   bench/RESULTS.md. Never part of the test run.
   Usage: portolan-bench [--data DIR] [--quick] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include <portolan/bake.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_d(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static double median_of(double* v, size_t n) {
    qsort(v, n, sizeof *v, cmp_d);
    return n ? v[n / 2] : 0;
}

static void machine(void) {
    char model[256] = "unknown";
    FILE* f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char* c = strchr(line, ':');
                if (c) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = 0;
                }
                break;
            }
        }
        fclose(f);
    }
    struct utsname u;
    uname(&u);
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    printf("Machine: %s, %ld cores online, %s %s; compiler gcc %d.%d; run %s.\n\n", model, sysconf(_SC_NPROCESSORS_ONLN), u.sysname,
           u.release, __GNUC__, __GNUC_MINOR__, date);
}

typedef struct dc_row {
    uint32_t verts, notches, holes, pieces, cells, portals;
    double ms_shape, ms_decompose, ms_build;
} dc_row;

/* Decomposes a shape `reps` times, keeping the median time. */
static dc_row measure_shape(const ptl_shape* s, int reps) {
    dc_row r;
    memset(&r, 0, sizeof r);
    double t[16];
    ptl_decomposition d;
    ptl_error err;
    for (int i = 0; i < reps; ++i) {
        double a = now_ms();
        if (ptl_decompose(s, NULL, &d, &err) < 0) {
            fprintf(stderr, "bench: %s\n", err.message);
            exit(1);
        }
        t[i] = now_ms() - a;
        if (i + 1 < reps) ptl_decomposition_free(&d);
    }
    r.ms_decompose = median_of(t, reps);
    void* blob;
    size_t size;
    double a = now_ms();
    ptl_bake_decomposition(&d, s->flags, NULL, &blob, &size, &err);
    r.ms_build = now_ms() - a;
    ptl_blob_free(blob, size, NULL);
    r.verts = s->vert_count;
    r.notches = d.notches;
    r.holes = d.holes;
    r.pieces = d.outer_rings;
    r.cells = d.cell_count;
    r.portals = d.portal_count;
    ptl_decomposition_free(&d);
    return r;
}

static const char* MAP_DIRS[] = {"grids/bg512", "grids/dao", "grids/gppc2023", "grids/random512", "grids/room512",
                                 "grids/sc1", "grids/wc3_512", "polyanya/gridmaps"};

static int cmp_s(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

static void table_maps(const char* data, int reps) {
    printf("## Decomposition per map\n\n");
    printf("Cells against the near-optimality bound notches + holes + pieces (ANavMG §4: one portal per notch, "
           "one cell more per hole and per connected piece). Times: median of %d runs; `shape` is the contour "
           "extraction from the grid.\n\n", reps);
    printf("| map | size | vertices | notches | holes | pieces | cells | bound | cells/bound | shape ms | decompose ms | "
           "build ms |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t k = 0; k < sizeof MAP_DIRS / sizeof MAP_DIRS[0]; ++k) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", data, MAP_DIRS[k]);
        DIR* dd = opendir(dir);
        if (!dd) continue;
        char* names[256];
        int n = 0;
        struct dirent* e;
        while ((e = readdir(dd)) && n < 256) {
            size_t l = strlen(e->d_name);
            if (l > 4 && !strcmp(e->d_name + l - 4, ".map")) names[n++] = strdup(e->d_name);
        }
        closedir(dd);
        qsort(names, n, sizeof(char*), cmp_s);
        for (int i = 0; i < n; ++i) {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            ptl_grid g;
            ptl_shape s;
            ptl_error err;
            if (ptl_grid_load(path, NULL, &g, &err) < 0) continue;
            double a = now_ms();
            ptl_status st = ptl_shape_from_grid(&g, NULL, &s, &err);
            double shape_ms = now_ms() - a;
            if (st < 0) {
                printf("| %s/%s | %ux%u | - | - | - | - | - | - | - | - | - | - |\n", MAP_DIRS[k], names[i], g.width,
                       g.height);
                ptl_grid_free(&g);
                free(names[i]);
                continue;
            }
            dc_row r = measure_shape(&s, reps);
            uint32_t bound = r.notches + r.holes + r.pieces;
            printf("| %s/%s | %ux%u | %u | %u | %u | %u | %u | %u | %.3f | %.2f | %.2f | %.2f |\n", MAP_DIRS[k], names[i],
                   g.width, g.height, r.verts, r.notches, r.holes, r.pieces, r.cells, bound,
                   bound ? (double)r.cells / bound : 0, shape_ms, r.ms_decompose, r.ms_build);
            ptl_shape_free(&s);
            ptl_grid_free(&g);
            free(names[i]);
        }
    }
    printf("\n");
}

static uint32_t mesh_polygons(const char* path) {
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    char w[16];
    unsigned v, nv, np;
    uint32_t r = fscanf(f, "%15s %u %u %u", w, &v, &nv, &np) == 4 ? np : 0;
    fclose(f);
    return r;
}

static void table_polyanya(const char* data) {
    printf("## Cells beside Polyanya's meshes\n\n");
    printf("Polyanya ships a constrained Delaunay triangulation of each map and a greedily merged version. "
           "Portolan decomposes the same free space (from the grid map, and from the union of Polyanya's own polygons).\n\n");
    printf("| map | Polyanya CDT | Polyanya merged | Portolan from .map | Portolan from merged .mesh | "
           "Portolan / merged |\n|---|---:|---:|---:|---:|---:|\n");
    const char* names[] = {"arena", "aurora"};
    for (int i = 0; i < 2; ++i) {
        char cdt[1024], merged[1024], map[1024];
        snprintf(cdt, sizeof cdt, "%s/polyanya/meshes/%s.mesh", data, names[i]);
        snprintf(merged, sizeof merged, "%s/polyanya/meshes/%s-merged.mesh", data, names[i]);
        snprintf(map, sizeof map, "%s/polyanya/gridmaps/%s.map", data, names[i]);
        ptl_grid g;
        ptl_shape s;
        ptl_error err;
        uint32_t from_map = 0, from_mesh = 0;
        if (ptl_grid_load(map, NULL, &g, &err) >= 0 && ptl_shape_from_grid(&g, NULL, &s, &err) >= 0) {
            from_map = measure_shape(&s, 1).cells;
            ptl_shape_free(&s);
            ptl_grid_free(&g);
        }
        if (ptl_mesh2d_load(merged, NULL, &s, &err) >= 0) {
            from_mesh = measure_shape(&s, 1).cells;
            ptl_shape_free(&s);
        }
        uint32_t pm = mesh_polygons(merged);
        printf("| %s | %u | %u | %u | %u | %.3f |\n", names[i], mesh_polygons(cdt), pm, from_map, from_mesh,
               pm ? (double)from_map / pm : 0);
    }
    printf("\n");
}

typedef struct q_row {
    uint32_t n, found;
    double median, p99, mean, mean_len;
} q_row;

static q_row run_queries(ptl_query* q, const ptl_query_set* qs, ptl_path_mode mode) {
    q_row r;
    memset(&r, 0, sizeof r);
    double* t = malloc(sizeof(double) * (qs->count + 1));
    static float pts[3 * 8192];
    double sum_t = 0, sum_len = 0;
    for (uint32_t i = 0; i < qs->count; ++i) {
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        memcpy(req.start, qs->items[i].start, sizeof req.start);
        memcpy(req.goal, qs->items[i].goal, sizeof req.goal);
        req.mode = mode;
        ptl_path_result res;
        memset(&res, 0, sizeof res);
        res.points = pts;
        res.point_capacity = 8192;
        double a = now_ms();
        ptl_query_find_path(q, &req, &res);
        t[i] = (now_ms() - a) * 1e3;
        sum_t += t[i];
        if (res.found) ++r.found, sum_len += res.length;
    }
    qsort(t, qs->count, sizeof(double), cmp_d);
    r.n = qs->count;
    r.median = qs->count ? t[qs->count / 2] : 0;
    r.p99 = qs->count ? t[(size_t)((qs->count - 1) * 0.99)] : 0;
    r.mean = qs->count ? sum_t / qs->count : 0;
    r.mean_len = r.found ? sum_len / r.found : 0;
    free(t);
    return r;
}

static void table_queries(const char* data) {
    printf("## Path queries\n\n");
    printf("All scenarios of each map, one thread, warm (each query set run once before timing). `exact` is the "
           "Euclidean shortest path (interval search); `corridor` is A* over cells plus the funnel.\n\n");
    printf("| map | queries | cells | mode | found | median us | p99 us | mean us | mean length |\n"
           "|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
    const char* maps[] = {"grids/dao/orz900d.map", "grids/sc1/Aurora.map", "grids/room512/16room_000.map",
                          "grids/room512/64room_000.map"};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; ++i) {
        char map[1024], scen[1100];
        snprintf(map, sizeof map, "%s/%s", data, maps[i]);
        snprintf(scen, sizeof scen, "%s.scen", map);
        ptl_grid g;
        ptl_shape s;
        ptl_error err;
        ptl_query_set qs;
        if (ptl_grid_load(map, NULL, &g, &err) < 0 || ptl_shape_from_grid(&g, NULL, &s, &err) < 0 ||
            ptl_scen_load(scen, NULL, &qs, &err) < 0) {
            printf("| %s | (missing) |\n", maps[i]);
            continue;
        }
        void* blob;
        size_t size;
        ptl_bake_stats bs;
        ptl_bake_shape(&s, NULL, &blob, &size, &bs, &err);
        ptl_navmesh* nm;
        ptl_navmesh_create(blob, size, NULL, &nm, &err);
        ptl_blob_free(blob, size, NULL);
        ptl_query* q;
        ptl_query_desc qd = {1u << 20, NULL};
        ptl_query_create(nm, &qd, &q);
        const ptl_path_mode modes[] = {PTL_PATH_EXACT, PTL_PATH_CORRIDOR};
        const char* mname[] = {"exact", "corridor"};
        for (int m = 0; m < 2; ++m) {
            run_queries(q, &qs, modes[m]); /* warm-up */
            q_row r = run_queries(q, &qs, modes[m]);
            printf("| %s | %u | %u | %s | %u | %.2f | %.2f | %.2f | %.3f |\n", maps[i], r.n, bs.cells, mname[m], r.found,
                   r.median, r.p99, r.mean, r.mean_len);
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_query_set_free(&qs);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    printf("\n");
}

static void table_scaling(bool quick) {
    printf("## Scaling\n\n");
    printf("Generated maps with random obstacles (density 0.25, `portolan gen grid --scene random`), side chosen for "
           "the vertex count. `us/vertex` flat means linear; n log n grows it by log2(n) ratios (about x1.4 from 1k to 1M).\n\n");
    printf("| target vertices | map | vertices | cells | decompose ms | us/vertex | ns/(n log2 n) |\n"
           "|---:|---|---:|---:|---:|---:|---:|\n");
    const uint32_t targets[] = {1000, 4000, 16000, 64000, 256000, 1000000};
    int count = quick ? 4 : 6;
    for (int i = 0; i < count; ++i) {
        /* random density 0.25 gives about 0.6 vertices per cell */
        uint32_t side = (uint32_t)ceil(sqrt(targets[i] / 0.6));
        ptl_grid_gen_desc gd = {PTL_GRID_SCENE_RANDOM, side, side, 1, 0.25f};
        ptl_grid g;
        ptl_shape s;
        ptl_error err;
        ptl_grid_generate(&gd, NULL, &g, &err);
        ptl_shape_from_grid(&g, NULL, &s, &err);
        dc_row r = measure_shape(&s, targets[i] >= 256000 ? 1 : 3);
        double n = r.verts;
        printf("| %u | %ux%u | %u | %u | %.2f | %.3f | %.2f |\n", targets[i], side, side, r.verts, r.cells, r.ms_decompose,
               r.ms_decompose * 1e3 / n, r.ms_decompose * 1e6 / (n * log2(n)));
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    printf("\n");
}

int main(int argc, char** argv) {
    const char* data = "../shared/data";
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else {
            fprintf(stderr, "usage: portolan-bench [--data DIR] [--quick]\n");
            return 2;
        }
    }
    printf("# Portolan 2D benchmark\n\n");
    machine();
    table_maps(data, quick ? 1 : 5);
    table_polyanya(data);
    table_queries(data);
    table_scaling(quick);
    return 0;
}
