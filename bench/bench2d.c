/* 2D benchmark: decomposition time, cells and notches per map; Portolan's cells beside
   Polyanya's merged meshes; per-query median and p99 over scenarios; a scaling table of generated
   random-obstacle maps from 1k to 1M vertices; the same maps baked and queried with Recast/Detour
   (bench/peer_recast.cpp) in the same run, as ratios. Prints Markdown; bench/run.sh keeps it in
   bench/RESULTS.md. Never part of the test run.
   Section `2d` of portolan-bench (bench/main.c, bench/bench.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <portolan/bake.h>
#include <portolan/gen.h>

#include "../runtime/query_internal.h"
#include "../tools/jobs.h"
#include "bench.h"
#include "peer_recast.h"

static int cmp_d(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
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
        double a = bench_now_ms();
        if (ptl_decompose(s, NULL, &d, &err) < 0) {
            fprintf(stderr, "bench: %s\n", err.message);
            exit(1);
        }
        t[i] = bench_now_ms() - a;
        if (i + 1 < reps) ptl_decomposition_free(&d);
    }
    r.ms_decompose = bench_median(t, reps);
    void* blob;
    size_t size;
    double a = bench_now_ms();
    ptl_bake_decomposition(&d, &(ptl_blob_desc){.flags = s->flags}, &blob, &size, &err);
    r.ms_build = bench_now_ms() - a;
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

/* What the 2D targets are checked against, gathered while the tables run. */
typedef struct targets {
    double orz_decompose_ms;       /* dao/orz900d: decomposition, median */
    double orz_bake_ms;            /* dao/orz900d: read + shape + decompose + build */
    double aurora_exact_us, aurora_corridor_us, aurora_detour_us; /* medians over its scenarios */
    double aurora_hubs_us;         /* exact with hub labels (the best landmark count of table_hubs) */
    double aurora_hub_mb;          /* its hubs section */
    bool aurora_hubs_lids;         /* with pocket lids */
    double scale_first, scale_last; /* us per vertex at the smallest and largest generated map */
    uint32_t scale_n0, scale_n1;
    uint32_t literal_bound_fails;  /* maps where cells > notches + holes + 1 (multi-piece maps) */
} targets;

static void table_maps(const char* data, int reps, targets* tg) {
    printf("## Decomposition per map\n\n");
    printf("Cells against the near-optimality bound notches + holes + pieces (ANavMG §4: one portal per notch, "
           "one cell more per hole and per connected piece). Times: median of %d runs; `shape` is the contour "
           "extraction from the grid.\n\n", reps);
    printf("`n+h+1` tells whether the bound as first stated (notches + holes + 1) holds too; it cannot on a map "
           "of several separate convex pieces (hardmap-4: four pieces, no notch, four cells).\n\n");
    printf("| map | size | vertices | notches | holes | pieces | cells | bound | cells/bound | n+h+1 | shape ms | "
           "decompose ms | build ms |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
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
            double a = bench_now_ms();
            ptl_status st = ptl_shape_from_grid(&g, NULL, &s, &err);
            double shape_ms = bench_now_ms() - a;
            if (st < 0) {
                printf("| %s/%s | %ux%u | - | - | - | - | - | - | - | - | - | - | - |\n", MAP_DIRS[k], names[i],
                       g.width, g.height);
                ptl_grid_free(&g);
                free(names[i]);
                continue;
            }
            dc_row r = measure_shape(&s, reps);
            uint32_t bound = r.notches + r.holes + r.pieces;
            bool literal = r.cells <= r.notches + r.holes + 1;
            tg->literal_bound_fails += !literal;
            printf("| %s/%s | %ux%u | %u | %u | %u | %u | %u | %u | %.3f | %s | %.2f | %.2f | %.2f |\n", MAP_DIRS[k],
                   names[i], g.width, g.height, r.verts, r.notches, r.holes, r.pieces, r.cells, bound,
                   bound ? (double)r.cells / bound : 0, literal ? "yes" : "no", shape_ms, r.ms_decompose, r.ms_build);
            if (!strcmp(MAP_DIRS[k], "grids/dao") && !strcmp(names[i], "orz900d.map")) {
                tg->orz_decompose_ms = r.ms_decompose;
                tg->orz_bake_ms = shape_ms + r.ms_decompose + r.ms_build;
            }
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
    uint32_t partial;        /* Detour: a corridor that stops short of the goal (found, not complete) */
    uint32_t out_of_nodes;   /* Detour: searches that ran out of nodes */
    double median, p99, mean, mean_len;
} q_row;

/* Per-query outcome, kept so path lengths can be compared scenario by scenario. */
typedef struct q_each {
    bool found;   /* Portolan: found; Detour: complete (the corridor reaches the goal's polygon) */
    double length;
} q_each;

static void finish_row(q_row* r, double* t, uint32_t n, double sum_t, double sum_len) {
    qsort(t, n, sizeof(double), cmp_d);
    r->n = n;
    r->median = n ? t[n / 2] : 0;
    r->p99 = n ? t[(size_t)((n - 1) * 0.99)] : 0;
    r->mean = n ? sum_t / n : 0;
    r->mean_len = r->found ? sum_len / r->found : 0;
}

/* `each` (may be NULL): qs->count entries. */
static q_row run_queries(ptl_query* q, const ptl_query_set* qs, ptl_path_mode mode, q_each* each) {
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
        double a = bench_now_ms();
        ptl_query_find_path(q, &req, &res);
        t[i] = (bench_now_ms() - a) * 1e3;
        sum_t += t[i];
        if (res.found) ++r.found, sum_len += res.length;
        if (each) each[i].found = res.found, each[i].length = res.found ? res.length : 0;
    }
    finish_row(&r, t, qs->count, sum_t, sum_len);
    free(t);
    return r;
}

/* Detour: findNearestPoly x2 + findPath + findStraightPath per scenario (peer_path). Counts and
   lengths are over complete paths, the ones that reach the goal as Portolan's `found` does. */
static q_row run_peer_queries(peer_mesh* m, const ptl_query_set* qs, q_each* each) {
    q_row r;
    memset(&r, 0, sizeof r);
    double* t = malloc(sizeof(double) * (qs->count + 1));
    double sum_t = 0, sum_len = 0;
    for (uint32_t i = 0; i < qs->count; ++i) {
        peer_path_result res;
        peer_path(m, qs->items[i].start, qs->items[i].goal, NULL, NULL, 0, &res);
        t[i] = res.us;
        sum_t += res.us;
        if (res.complete) ++r.found, sum_len += res.length;
        else if (res.found) ++r.partial;
        r.out_of_nodes += res.out_of_nodes;
        if (each) each[i].found = res.complete, each[i].length = res.complete ? res.length : 0;
    }
    finish_row(&r, t, qs->count, sum_t, sum_len);
    free(t);
    return r;
}

/* One map of the comparison with Recast/Detour. */
typedef struct peer_cmp {
    const char* map;
    uint32_t w, h, queries;
    double ptl_ms;                 /* shape + decompose + build + landmarks (the default bake) */
    uint32_t cells;
    size_t ptl_bytes;
    peer_stats rc;                 /* Recast's bake (medians of ms_total over the runs; other stages of the last) */
    q_row q[3];                    /* exact, corridor, detour */
    uint32_t common;               /* scenarios all three answered */
    double len[3];                 /* mean length over the common scenarios */
    uint32_t detour_shorter[2];    /* common scenarios where Detour is shorter than exact / corridor by > 1e-3 */
    double most_shorter[2];        /* the largest such difference */
    bool ok;
} peer_cmp;

static double ratio(double a, double b) { return b > 0 ? a / b : 0; }

/* Portolan bake (shape + decompose + build + landmarks) of a grid, median time of `reps` runs. */
static ptl_navmesh* bake_portolan(const ptl_grid* g, int reps, peer_cmp* c, ptl_error* err) {
    double ptl_t[16];
    void* blob = NULL;
    size_t size = 0;
    ptl_bake_stats bs;
    for (int k = 0; k < reps; ++k) {
        if (blob) ptl_blob_free(blob, size, NULL);
        blob = NULL;
        ptl_shape s;
        memset(&s, 0, sizeof s);
        double a = bench_now_ms();
        bool ok = ptl_shape_from_grid(g, NULL, &s, err) >= 0;
        ok = ok && ptl_bake_shape(&s, NULL, &blob, &size, &bs, err) >= 0;
        ptl_t[k] = bench_now_ms() - a;
        ptl_shape_free(&s);
        if (!ok) return NULL;
    }
    ptl_navmesh* nm = NULL;
    ptl_status st = ptl_navmesh_create(blob, size, NULL, &nm, err);
    ptl_blob_free(blob, size, NULL);
    if (st < 0) return NULL;
    c->ptl_ms = bench_median(ptl_t, reps);
    c->cells = bs.cells;
    c->ptl_bytes = size;
    return nm;
}

/* Recast bake of the same grid (peer_params_grid), median time of `reps` runs. */
static peer_mesh* bake_recast(const ptl_grid* g, int reps, peer_cmp* c) {
    peer_mesh* pm = NULL;
    double rc_t[16];
    for (int k = 0; k < reps; ++k) {
        if (pm) peer_free(pm);
        pm = NULL;
        if (peer_bake_grid(g->passable, g->width, g->height, NULL, &pm, &c->rc) != 0) {
            fprintf(stderr, "bench: Recast bake of %s failed: %s\n", c->map, c->rc.error);
            return NULL;
        }
        rc_t[k] = c->rc.ms_total;
    }
    c->rc.ms_total = bench_median(rc_t, reps);
    return pm;
}

/* Mean lengths over the scenarios all three modes answered, and where Detour came out shorter. */
static void compare_lengths(q_each* const each[3], uint32_t n, peer_cmp* c) {
    double sum[3] = {0, 0, 0};
    for (uint32_t k = 0; k < n; ++k) {
        if (!each[0][k].found || !each[1][k].found || !each[2][k].found) continue;
        ++c->common;
        for (int m = 0; m < 3; ++m) sum[m] += each[m][k].length;
        for (int m = 0; m < 2; ++m) {
            double d = each[m][k].length - each[2][k].length;
            if (d > 1e-3) {
                ++c->detour_shorter[m];
                if (d > c->most_shorter[m]) c->most_shorter[m] = d;
            }
        }
    }
    for (int m = 0; m < 3; ++m) c->len[m] = c->common ? sum[m] / c->common : 0;
}

/* Bakes one map both ways, runs its scenarios in the three modes and prints its rows of the path
   query table; fills `c` for the comparison tables (c->ok when Recast's side worked too). */
static void measure_map(const char* data, const char* name, int reps, peer_cmp* c) {
    c->map = name;
    char map[1024], scen[1100];
    snprintf(map, sizeof map, "%s/%s", data, name);
    snprintf(scen, sizeof scen, "%s.scen", map);
    ptl_grid g;
    ptl_error err;
    ptl_query_set qs;
    if (ptl_grid_load(map, NULL, &g, &err) < 0) {
        printf("| %s | (missing) |\n", name);
        return;
    }
    if (ptl_scen_load(scen, NULL, &qs, &err) < 0) {
        printf("| %s | (missing) |\n", name);
        ptl_grid_free(&g);
        return;
    }
    ptl_navmesh* nm = bake_portolan(&g, reps, c, &err);
    if (!nm) {
        printf("| %s | (bake failed: %s) |\n", name, err.message);
        ptl_query_set_free(&qs);
        ptl_grid_free(&g);
        return;
    }
    c->w = g.width, c->h = g.height, c->queries = qs.count;
    peer_mesh* pm = bake_recast(&g, reps, c);

    ptl_query* q;
    ptl_query_desc qd = {.max_nodes = 1u << 20, .alloc = NULL};
    ptl_query_create(nm, &qd, &q);
    q_each* each[3];
    for (int m = 0; m < 3; ++m) each[m] = calloc(qs.count + 1, sizeof(q_each));
    const ptl_path_mode modes[] = {PTL_PATH_EXACT, PTL_PATH_CORRIDOR};
    const char* mname[] = {"exact", "corridor", "detour"};
    for (int m = 0; m < 3; ++m) {
        if (m < 2) {
            run_queries(q, &qs, modes[m], NULL); /* warm-up */
            c->q[m] = run_queries(q, &qs, modes[m], each[m]);
        } else if (pm) {
            run_peer_queries(pm, &qs, NULL); /* warm-up */
            c->q[m] = run_peer_queries(pm, &qs, each[m]);
        } else {
            continue;
        }
        printf("| %s | %u | %u | %s | %u | %.2f | %.2f | %.2f | %.3f |\n", name, c->q[m].n,
               m < 2 ? c->cells : c->rc.polygons, mname[m], c->q[m].found, c->q[m].median, c->q[m].p99, c->q[m].mean,
               c->q[m].mean_len);
    }
    if (pm) {
        compare_lengths(each, qs.count, c);
        c->ok = true;
        peer_free(pm);
    }
    for (int m = 0; m < 3; ++m) free(each[m]);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_query_set_free(&qs);
    ptl_grid_free(&g);
}

static void table_peer_bake(const peer_cmp* cmp, size_t n, int reps) {
    peer_params pp;
    peer_params_grid(&pp);
    printf("## Against Recast/Detour\n\n");
    printf("The peer is Recast/Detour 1.5.1 (Debian's librecast-dev, 32-bit polygon references), called in the same "
           "run through `bench/peer_recast.cpp`. Each map is extruded into floor triangles (two per free cell at y = 0, "
           "no walls) and baked as a tiled navmesh: cell size %.2g (two voxels per map cell), cell height %.2g, agent "
           "height %.2g, radius %.2g, climb %.2g, slope %.0f, tiles of %d voxels, max edge %.0f wu, max error %.1f vx, "
           "region sizes %d and %d (%d and %d voxels), %d vertices per polygon, detail %.0f and %.0f; watershed "
           "regions; no ledge filter (a blocked cell is missing floor, not a cliff: the filter would strip half a map "
           "cell along every wall). Ratios are Portolan / Recast-Detour: below 1 means Portolan is smaller or faster.\n\n",
           pp.cell_size, pp.cell_height, pp.agent_height, pp.agent_radius, pp.max_climb, pp.max_slope, pp.tile_size,
           pp.max_edge_len, pp.max_error, pp.region_min_size, pp.region_merge_size,
           pp.region_min_size * pp.region_min_size, pp.region_merge_size * pp.region_merge_size, pp.verts_per_poly,
           pp.detail_sample_dist, pp.detail_sample_max_error);
    printf("### Bake\n\n");
    printf("Median of %d runs. Portolan: shape extraction + decomposition + build + 4 landmarks (the default bake). Recast: extrusion into triangles and "
           "binning into tiles + the whole pipeline to a Detour navmesh with its query object. `free area` is the map's "
           "free cells (m^2); Recast's `area` is the sum of its polygon areas in x-z (contour simplification lets "
           "polygons cut into blocked cells or leave free ones uncovered; small isolated islands are dropped).\n\n", reps);
    printf("| map | size | Portolan ms | Recast ms | time ratio | cells | Recast polygons | cells / polygons | "
           "Portolan KB | Detour KB | size ratio | tiles | free area | Recast area | Recast peak heap MB |\n"
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n; ++i) {
        const peer_cmp* c = &cmp[i];
        if (!c->ok) continue;
        printf("| %s | %ux%u | %.1f | %.1f | %.3f | %u | %u | %.3f | %.0f | %.0f | %.3f | %u | %.0f | %.0f | %.2f |\n",
               c->map, c->w, c->h, c->ptl_ms, c->rc.ms_total, ratio(c->ptl_ms, c->rc.ms_total), c->cells, c->rc.polygons,
               ratio(c->cells, c->rc.polygons), c->ptl_bytes / 1024.0, c->rc.navmesh_bytes / 1024.0,
               ratio((double)c->ptl_bytes, (double)c->rc.navmesh_bytes), c->rc.tiles,
               (double)c->rc.input_triangles / 2.0, c->rc.walkable_area, c->rc.peak_heap_bytes / 1048576.0);
    }
    printf("\nRecast's stages (ms, summed over tiles, last run):\n\n");
    printf("| map | extrude + bin | rasterize | filter | compact | regions | contours | polymesh | detail | Detour "
           "data + init | warnings |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n; ++i) {
        const peer_cmp* c = &cmp[i];
        if (!c->ok) continue;
        printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %u |\n", c->map, c->rc.ms_input,
               c->rc.ms_rasterize, c->rc.ms_filter, c->rc.ms_compact, c->rc.ms_regions, c->rc.ms_contours,
               c->rc.ms_polymesh, c->rc.ms_detail, c->rc.ms_navmesh, c->rc.warnings);
    }
    printf("\n");
}

static void table_peer_queries(const peer_cmp* cmp, size_t n) {
    printf("### Queries\n\n");
    printf("Times per query (both snaps included on each side). `found`: Portolan paths that reach the goal; for "
           "Detour, complete paths (the corridor ends in the goal's polygon), with partial corridors in brackets. Mean "
           "lengths are over the scenarios all three answered. Detour's straight path runs through its simplified "
           "polygons, which may cut up to the simplification error into blocked cells, so it can be shorter than the "
           "exact path: `Detour shorter` counts those scenarios (and the largest difference).\n\n");
    printf("| map | mode | found | median us | p99 us | median ratio | p99 ratio | common | mean length | length ratio | "
           "Detour shorter |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    const char* mname[] = {"exact", "corridor", "detour"};
    for (size_t i = 0; i < n; ++i) {
        const peer_cmp* c = &cmp[i];
        if (!c->ok) continue;
        for (int m = 0; m < 3; ++m) {
            char found[64], shorter[64];
            if (m < 2) {
                snprintf(found, sizeof found, "%u", c->q[m].found);
                snprintf(shorter, sizeof shorter, "%u (max %.3f)", c->detour_shorter[m], c->most_shorter[m]);
            } else {
                snprintf(found, sizeof found, "%u (%u)", c->q[m].found, c->q[m].partial);
                snprintf(shorter, sizeof shorter, "-");
            }
            printf("| %s | %s | %s | %.2f | %.2f | %.3f | %.3f | %u | %.3f | %.4f | %s |\n", c->map, mname[m], found,
                   c->q[m].median, c->q[m].p99, ratio(c->q[m].median, c->q[2].median),
                   ratio(c->q[m].p99, c->q[2].p99), c->common, c->len[m], ratio(c->len[m], c->len[2]), shorter);
        }
    }
    printf("\n");
}

static void table_queries(const char* data, int reps, targets* tg) {
    printf("## Path queries\n\n");
    printf("All scenarios of each map, one thread, warm (each query set run once before timing). `exact` is the "
           "Euclidean shortest path (interval search); `corridor` is A* over cells plus the funnel; `detour` is "
           "Recast/Detour on the same map (see below; `cells` is its polygon count, `found` its complete paths).\n\n");
    printf("| map | queries | cells | mode | found | median us | p99 us | mean us | mean length |\n"
           "|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
    const char* maps[] = {"grids/dao/orz900d.map", "grids/sc1/Aurora.map", "grids/room512/16room_000.map",
                          "grids/room512/64room_000.map"};
    enum { NMAPS = sizeof maps / sizeof maps[0] };
    peer_cmp cmp[NMAPS];
    memset(cmp, 0, sizeof cmp);
    for (size_t i = 0; i < NMAPS; ++i) measure_map(data, maps[i], reps, &cmp[i]);
    printf("\n");
    if (cmp[1].ok) {
        tg->aurora_exact_us = cmp[1].q[0].median;
        tg->aurora_corridor_us = cmp[1].q[1].median;
        tg->aurora_detour_us = cmp[1].q[2].median;
    }
    table_peer_bake(cmp, NMAPS, reps);
    table_peer_queries(cmp, NMAPS);
}

static void table_scaling(bool quick, targets* tg) {
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
        ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_RANDOM, .width = side, .height = side, .seed = 1, .density = 0.25f};
        ptl_grid g;
        ptl_shape s;
        ptl_error err;
        ptl_grid_generate(&gd, &g, &err);
        ptl_shape_from_grid(&g, NULL, &s, &err);
        dc_row r = measure_shape(&s, targets[i] >= 256000 ? 1 : 3);
        double n = r.verts;
        printf("| %u | %ux%u | %u | %u | %.2f | %.3f | %.2f |\n", targets[i], side, side, r.verts, r.cells, r.ms_decompose,
               r.ms_decompose * 1e3 / n, r.ms_decompose * 1e6 / (n * log2(n)));
        if (i == 0) tg->scale_first = r.ms_decompose * 1e3 / n, tg->scale_n0 = r.verts;
        tg->scale_last = r.ms_decompose * 1e3 / n, tg->scale_n1 = r.verts;
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    printf("\n");
}

/* data/rel (a .map) as a grid and its free space, and its .scen; the full path to `map`. False (and
   nothing to free) when any is missing or malformed. */
static bool load_map_scen(const char* data, const char* rel, char* map, size_t cap, ptl_grid* g, ptl_shape* s,
                          ptl_query_set* qs) {
    char scen[1100];
    ptl_error err;
    snprintf(map, cap, "%s/%s", data, rel);
    snprintf(scen, sizeof scen, "%s.scen", map);
    if (ptl_grid_load(map, NULL, g, &err) < 0) return false;
    if (ptl_shape_from_grid(g, NULL, s, &err) < 0) {
        ptl_grid_free(g);
        return false;
    }
    if (ptl_scen_load(scen, NULL, qs, &err) < 0) {
        ptl_shape_free(s);
        ptl_grid_free(g);
        return false;
    }
    return true;
}

/* Exact searches with and without landmarks (ALT bounds) on the same decomposition. */
static void table_landmarks(const char* data) {
    printf("## Landmarks\n\n");
    printf("The exact search with the landmark bounds baked by default (4 per piece) against none, on the same "
           "cells: bake time of the landmarks, blob size, median expansions and time over all scenarios.\n\n");
    printf("| map | landmarks | landmark ms | blob KB | median expansions | median us | p99 us |\n"
           "|---|---:|---:|---:|---:|---:|---:|\n");
    const char* maps[] = {"grids/dao/orz900d.map", "grids/sc1/Aurora.map", "grids/gppc2023/maze512-4-0.map",
                          "grids/room512/16room_000.map"};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; ++i) {
        char map[1024];
        ptl_grid g;
        ptl_shape s;
        ptl_error err;
        ptl_query_set qs;
        if (!load_map_scen(data, maps[i], map, sizeof map, &g, &s, &qs)) continue;
        const int32_t counts[] = {-1, 4};
        for (int k = 0; k < 2; ++k) {
            ptl_bake_desc bd;
            memset(&bd, 0, sizeof bd);
            bd.landmarks = counts[k];
            void* blob;
            size_t size;
            ptl_bake_stats bs;
            ptl_navmesh* nm;
            ptl_query* q;
            ptl_query_desc qd = {.max_nodes = 1u << 20, .alloc = NULL};
            if (ptl_bake_shape(&s, &bd, &blob, &size, &bs, &err) < 0) continue;
            ptl_navmesh_create(blob, size, NULL, &nm, &err);
            ptl_query_create(nm, &qd, &q);
            double* ex = malloc(sizeof(double) * (qs.count + 1));
            static float pts[3 * 8192];
            for (uint32_t j = 0; j < qs.count; ++j) {
                ptl_path_request req;
                memset(&req, 0, sizeof req);
                memcpy(req.start, qs.items[j].start, sizeof req.start);
                memcpy(req.goal, qs.items[j].goal, sizeof req.goal);
                ptl_path_result res;
                memset(&res, 0, sizeof res);
                res.points = pts;
                res.point_capacity = 8192;
                ptl_query_find_path(q, &req, &res);
                ex[j] = res.nodes_expanded;
            }
            run_queries(q, &qs, PTL_PATH_EXACT, NULL); /* warm-up */
            q_row r = run_queries(q, &qs, PTL_PATH_EXACT, NULL);
            printf("| %s | %d | %.1f | %.0f | %.0f | %.2f | %.2f |\n", maps[i], counts[k] < 0 ? 0 : counts[k],
                   bs.ms_landmarks, size / 1024.0, bench_median(ex, qs.count), r.median, r.p99);
            free(ex);
            ptl_query_destroy(q);
            ptl_navmesh_destroy(nm);
            ptl_blob_free(blob, size, NULL);
        }
        ptl_query_set_free(&qs);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    printf("\n");
}

/* Exact paths read off hub labels (ptl_bake_desc.hubs) against the interval search on the same navmesh:
   what the labels cost to bake and to keep, and what they save per query. */
static void table_hubs(const char* data, targets* tg) {
    printf("## Hub labels\n\n");
    printf("Exact paths with hub labels (`portolan bake --hubs`: the taut visibility graph of the corners and a "
           "pruned landmark labelling of it, bake/hubs.c; queries find the corners start and goal see and meet on "
           "the labels, runtime/hubs.c) against the interval search on the same navmesh (`--no-hubs`), 16 "
           "landmarks: labels on every corner of the default decomposition (ptl_bake_hubs on a default bake), and "
           "the hub bake (`--hubs`), which cuts the pockets off first (`lids`, runtime/pockets.c) and labels only "
           "the corners outside them. Both searches skip pockets that hold neither end. `hub ms`: the hub stage "
           "of the bake, its visibility sweeps on 2 "
           "threads; `entries`: label entries per corner; `same`: scenarios where both give the same found flag "
           "and length (1e-9 relative). Times per query, both snaps included, all scenarios, warm.\n\n");
    printf("| map | cells | landmarks | corners | entries | hub ms | hubs MB | blob MB | interval median us | "
           "interval p99 us | hubs median us | hubs p99 us | median ratio | same |\n"
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    const char* maps[] = {"grids/dao/orz900d.map", "grids/sc1/Aurora.map", "grids/room512/16room_000.map",
                          "grids/room512/64room_000.map", "grids/gppc2023/maze512-4-0.map"};
    ptl_thread_jobs jobs;
    ptl_thread_jobs_init(&jobs, 2);
    tg->aurora_hubs_us = INFINITY;
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; ++i) {
        char map[1024];
        ptl_grid g;
        ptl_shape s;
        ptl_error err;
        ptl_query_set qs;
        if (!load_map_scen(data, maps[i], map, sizeof map, &g, &s, &qs)) continue;
        /* k 0: labels on every corner of the plain decomposition (ptl_bake_hubs on a default bake
           with 16 landmarks); k 1: the hub bake (pockets cut off first, 16 landmarks). */
        for (int k = 0; k < 2; ++k) {
            const int32_t lm = 16;
            ptl_bake_desc bd;
            memset(&bd, 0, sizeof bd);
            bd.landmarks = lm;
            bd.hubs = k == 1;
            bd.jobs = &jobs.sys;
            void* blob;
            size_t size;
            ptl_bake_stats bs;
            ptl_navmesh* nm;
            ptl_query *qh, *qp;
            ptl_query_desc qd = {.max_nodes = 1u << 20};
            if (ptl_bake_shape(&s, &bd, &blob, &size, &bs, &err) < 0) {
                fprintf(stderr, "bench: %s: %s\n", map, err.message);
                continue;
            }
            if (k == 0) {
                void* with;
                size_t with_size;
                ptl_hub_stats hst;
                double t0 = bench_now_ms();
                if (ptl_bake_hubs(blob, size, &(ptl_hubs_desc){.jobs = &jobs.sys, .alloc = NULL}, &with, &with_size, &hst, &err) < 0) {
                    fprintf(stderr, "bench: %s: %s\n", map, err.message);
                    ptl_blob_free(blob, size, NULL);
                    continue;
                }
                bs.ms_hubs = bench_now_ms() - t0;
                bs.hubs = hst.hubs, bs.hub_entries = hst.entries, bs.hub_bytes = hst.bytes;
                ptl_blob_free(blob, size, NULL);
                blob = with, size = with_size;
            }
            ptl_navmesh_create(blob, size, NULL, &nm, &err);
            ptl_query_create(nm, &qd, &qh);
            ptl_query_create_with_switches(nm, &qd, &(ptl_query_switches){.ignore_hubs = true}, &qp);
            q_each* eh = malloc(sizeof(q_each) * (qs.count + 1));
            q_each* ep = malloc(sizeof(q_each) * (qs.count + 1));
            run_queries(qp, &qs, PTL_PATH_EXACT, NULL); /* warm-up */
            q_row rp = run_queries(qp, &qs, PTL_PATH_EXACT, ep);
            run_queries(qh, &qs, PTL_PATH_EXACT, NULL);
            q_row rh = run_queries(qh, &qs, PTL_PATH_EXACT, eh);
            uint32_t same = 0;
            for (uint32_t j = 0; j < qs.count; ++j)
                same += eh[j].found == ep[j].found && fabs(eh[j].length - ep[j].length) <= 1e-9 * (1 + ep[j].length);
            printf("| %s | %u%s | %d | %u | %.1f | %.0f | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f | %.3f | %u of %u |\n",
                   maps[i], bs.cells, k == 1 ? " (lids)" : "", lm, bs.hubs,
                   bs.hubs ? (double)bs.hub_entries / bs.hubs : 0, bs.ms_hubs,
                   bs.hub_bytes / 1048576.0, size / 1048576.0, rp.median, rp.p99, rh.median, rh.p99,
                   ratio(rh.median, rp.median), same, qs.count);
            if (strstr(maps[i], "Aurora") && rh.median < tg->aurora_hubs_us)
                tg->aurora_hubs_us = rh.median, tg->aurora_hub_mb = bs.hub_bytes / 1048576.0, tg->aurora_hubs_lids = k == 1;
            free(eh);
            free(ep);
            ptl_query_destroy(qh);
            ptl_query_destroy(qp);
            ptl_navmesh_destroy(nm);
            ptl_blob_free(blob, size, NULL);
        }
        ptl_query_set_free(&qs);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    printf("\n");
}

static void table_targets(const targets* tg) {
    printf("## Targets (2D)\n\n");
    printf("| target | measured | met |\n|---|---|---|\n");
    printf("| orz900d (1491x656) decomposed in under 50 ms | %.2f ms decomposition (%.2f ms shape + decomposition + "
           "build) | %s |\n", tg->orz_decompose_ms, tg->orz_bake_ms, tg->orz_decompose_ms < 50 ? "yes" : "no");
    printf("| median query under 20 us on Aurora | exact %.1f us, exact with hub labels %.1f us (%s%.0f MB of labels), "
           "corridor %.1f us (Detour %.1f us on the same map) | %s |\n", tg->aurora_exact_us, tg->aurora_hubs_us,
           tg->aurora_hubs_lids ? "pocket lids, " : "", tg->aurora_hub_mb, tg->aurora_corridor_us, tg->aurora_detour_us,
           tg->aurora_exact_us < 20 || tg->aurora_hubs_us < 20 ? "yes" : "no");
    double growth = tg->scale_first > 0 ? tg->scale_last / tg->scale_first : 0;
    double nlogn = tg->scale_n0 > 1 ? log2((double)tg->scale_n1) / log2((double)tg->scale_n0) : 0;
    printf("| decomposition grows close to n log n from 1k to 1M vertices | time per vertex grew x%.2f from %u to %u "
           "vertices (n log n: x%.2f) | %s |\n", growth, tg->scale_n0, tg->scale_n1, nlogn,
           growth <= 1.5 * nlogn ? "yes" : "no");
    printf("| cells <= notches + holes + 1 | per piece (notches + holes + pieces) on every map; literally on all but %u "
           "multi-piece maps | see the table |\n\n", tg->literal_bound_fails);
}

int bench2d_run(const char* data, bool quick) {
    printf("# Portolan 2D benchmark\n\n");
    targets tg;
    memset(&tg, 0, sizeof tg);
    table_maps(data, quick ? 1 : 5, &tg);
    table_polyanya(data);
    table_queries(data, quick ? 1 : 3, &tg);
    table_landmarks(data);
    table_hubs(data, &tg);
    table_scaling(quick, &tg);
    table_targets(&tg);
    return 0;
}
