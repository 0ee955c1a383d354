/* portolan-bench tilecache: add + update of the 150 obstacles DetourTileCache was timed with
   (../shared/data/expected/detour_queries/<mesh>_tilecache_obstacles.csv: 50 cylinders r 1 h 2, 50
   boxes 2x2x2, 50 boxes 3x2x1 turned by yaw_rad, base 0.5 m below the ground point), obstacles
   accumulating, on the tile cache of a bake at Recast's reference parameters, tiles of 48.
   Two caches run side by side, interleaved obstacle by obstacle (which goes first alternates):
   the default update and the full rebake (ptl_tilecache_desc.full_rebake). Each add + update is
   the calling thread's CPU time; the min over `rounds` rounds per obstacle, then median and p99
   over the 150. DetourTileCache runs after it on the same obstacles (bench_tilecache_peer.c: a
   second table, with the ratios). The patch column:
   the share of the navmesh's cells and walkable plan area that overlap the tiles an update stamped
   (after it; median and p99 over the obstacles): what a rebuild of the cells over the dirty tiles
   would redo. Layers kept / made: summed over the updates, the layers whose contour and
   decomposition an update kept and those it made again (the rest of the rebuild is whole). */
#define _POSIX_C_SOURCE 200809L
#include <portolan/tilecache.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define TC_MAX_OBS 256

int bench_tc_read_obstacles(const char* path, ptl_obstacle_desc* out, int* calls, int cap) {
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < cap) {
        char kind[64], status[32];
        float x, y, z, yaw;
        int touched = 0, ncalls = 0;
        const int got = sscanf(line, "%*d,%63[^,],%f,%f,%f,%f,%31[^,],%d,%d", kind, &x, &y, &z, &yaw, status, &touched, &ncalls);
        if (got < 5) continue; /* the header */
        if (calls) calls[n] = got == 8 ? ncalls : -1;
        ptl_obstacle_desc* o = &out[n];
        memset(o, 0, sizeof *o);
        if (!strcmp(kind, "cylinder_r1_h2")) {
            o->kind = PTL_OBSTACLE_CYLINDER;
            o->pos[0] = x, o->pos[1] = y - 0.5f, o->pos[2] = z;
            o->size[0] = 1.0f, o->size[1] = 2.0f;
        } else {
            const bool turned = !strcmp(kind, "obb_3x2x1_yaw");
            o->kind = PTL_OBSTACLE_BOX;
            o->pos[0] = x, o->pos[1] = y + 0.5f, o->pos[2] = z;
            o->size[0] = turned ? 1.5f : 1.0f, o->size[1] = 1.0f, o->size[2] = turned ? 0.5f : 1.0f;
            o->yaw = turned ? yaw : 0.0f;
        }
        ++n;
    }
    fclose(f);
    return n;
}

/* The cells of tc's navmesh that overlap tiles box[0..3] (the patch a rebuild over those tiles
   would replace) and their plan area; *total_cells and *total_area: the whole navmesh's. */
static void patch_of(const ptl_tilecache* tc, const uint32_t box[4], uint32_t* cells, double* area,
                     uint32_t* total_cells, double* total_area) {
    const void* blob;
    size_t size;
    ptl_tilecache_blob(tc, &blob, &size);
    ptl_navmesh* nm = NULL;
    *cells = *total_cells = 0, *area = *total_area = 0;
    if (ptl_navmesh_create(blob, size, NULL, &nm, NULL) < 0) return;
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    for (uint32_t c = 0; c < in.cell_count; ++c) {
        ptl_cell_view v;
        ptl_navmesh_get_cell(nm, c, &v);
        double a = 0;
        for (uint32_t k = 0; k < v.vert_count && v.link == PTL_NONE; ++k) {
            const float* p = ptl_navmesh_vert(nm, v.verts[k]);
            const float* q = ptl_navmesh_vert(nm, v.verts[(k + 1) % v.vert_count]);
            a += 0.5 * ((double)p[2] * q[0] - (double)p[0] * q[2]); /* counter-clockwise seen from +y */
        }
        a = a < 0 ? -a : a;
        ++*total_cells, *total_area += a;
        bool in_patch = false;
        for (uint32_t tz = box[1]; tz <= box[3] && !in_patch; ++tz)
            for (uint32_t tx = box[0]; tx <= box[2] && !in_patch; ++tx) in_patch = ptl_navmesh_cell_in_tile(nm, c, tx, tz);
        if (in_patch) ++*cells, *area += a;
    }
    ptl_navmesh_destroy(nm);
}

/* One add + update on tc, CPU ms; -1 on failure. */
static double add_update(ptl_tilecache* tc, const ptl_obstacle_desc* o) {
    ptl_obstacle_ref ref;
    ptl_error err;
    bool done = false;
    const double t0 = bench_cpu_ms(false);
    if (ptl_tilecache_add(tc, o, &ref, &err) < 0 || ptl_tilecache_update(tc, 0, &done, &err) < 0 || !done) {
        fprintf(stderr, "portolan-bench: tilecache: %s\n", err.message);
        return -1;
    }
    return bench_cpu_ms(false) - t0;
}

static int one_mesh(const char* data, int idx, const char* name, int rounds) {
    char path[2048];
    static ptl_obstacle_desc obs[TC_MAX_OBS];
    snprintf(path, sizeof path, "%s/expected/detour_queries/%s_tilecache_obstacles.csv", data, name);
    const int n = bench_tc_read_obstacles(path, obs, NULL, TC_MAX_OBS);
    snprintf(path, sizeof path, "%s/meshes/%s.obj", data, name);
    ptl_trimesh m;
    ptl_error err;
    if (n <= 0 || ptl_obj_load(path, NULL, &m, &err) < 0) {
        fprintf(stderr, "portolan-bench: tilecache: %s: no obstacles or mesh\n", name);
        return 1;
    }
    ptl_bake_desc d;
    bench_reference_desc(&d);
    d.tile_size = 48;
    void* cache = NULL;
    size_t cache_size = 0;
    const bool baked = ptl_tilecache_bake(&m, &d, &cache, &cache_size, &err) >= 0;
    ptl_trimesh_free(&m);
    if (!baked) {
        fprintf(stderr, "portolan-bench: tilecache: %s: %s\n", name, err.message);
        return 1;
    }
    static double best[2][TC_MAX_OBS], cell_frac[TC_MAX_OBS], area_frac[TC_MAX_OBS];
    uint64_t kept = 0, made = 0;
    bool same = true;
    for (int i = 0; i < n; ++i) best[0][i] = best[1][i] = 1e300;
    ptl_tilecache_info info[2];
    int rc = 0;
    for (int r = 0; r < rounds && !rc; ++r) {
        ptl_tilecache* tc[2] = {NULL, NULL};
        ptl_tilecache_desc td[2] = {ptl_tilecache_desc_defaults(), ptl_tilecache_desc_defaults()};
        td[1].full_rebake = true;
        for (int k = 0; k < 2 && !rc; ++k)
            if (ptl_tilecache_create(cache, cache_size, &td[k], &tc[k], &err) < 0) rc = 1;
        for (int i = 0; i < n && !rc; ++i)
            for (int j = 0; j < 2 && !rc; ++j) {
                const int k = (i + r + j) & 1; /* which goes first alternates */
                const double ms = add_update(tc[k], &obs[i]);
                if (ms < 0) rc = 1;
                else if (ms < best[k][i]) best[k][i] = ms;
                if (r == 0 && k == 0 && !rc) { /* the patch: the new navmesh's cells over the stamped tiles */
                    ptl_tilecache_info in;
                    ptl_tilecache_get_info(tc[k], &in);
                    uint32_t pc, tcells;
                    double pa, ta;
                    patch_of(tc[k], in.last_box, &pc, &pa, &tcells, &ta);
                    kept += in.layers_kept, made += in.layers_made;
                    cell_frac[i] = tcells ? 100.0 * pc / tcells : 0;
                    area_frac[i] = ta > 0 ? 100.0 * pa / ta : 0;
                }
            }
        for (int k = 0; k < 2 && !rc; ++k) ptl_tilecache_get_info(tc[k], &info[k]);
        const void *b0, *b1;
        size_t s0, s1;
        ptl_tilecache_blob(tc[0], &b0, &s0), ptl_tilecache_blob(tc[1], &b1, &s1);
        same = same && s0 == s1 && !memcmp(b0, b1, s0);
        ptl_tilecache_destroy(tc[0]);
        ptl_tilecache_destroy(tc[1]);
    }
    ptl_blob_free(cache, cache_size, NULL);
    if (rc) return rc;
    double med[2], p99[2], cf, cf99, af, af99;
    for (int k = 0; k < 2; ++k) bench_med_p99(best[k], (size_t)n, &med[k], &p99[k]);
    bench_med_p99(cell_frac, (size_t)n, &cf, &cf99);
    bench_med_p99(area_frac, (size_t)n, &af, &af99);
    bench_tc_ours_by_mesh[idx] = (bench_tc_ours){true, med[0], p99[0], cache_size};
    const double area_diff = 100.0 * (info[0].walkable_area - info[1].walkable_area) / info[1].walkable_area;
    printf("| %s | %d | %.3f ms, p99 %.3f | %.3f ms, p99 %.3f | %.2fx | %u / %u%s | %+.3f%% | %llu / %llu | %.0f%% / %.0f%% "
           "(p99 %.0f%% / %.0f%%) | %llu / %llu KB | %llu KB |\n",
           name, n, med[0], p99[0], med[1], p99[1], med[0] > 0 ? med[1] / med[0] : 0, info[0].cells, info[1].cells,
           same ? ", same bytes" : ", BYTES DIFFER", area_diff, (unsigned long long)kept, (unsigned long long)made, cf, af, cf99, af99,
           (unsigned long long)(info[0].memory_bytes / 1024), (unsigned long long)(info[1].memory_bytes / 1024),
           (unsigned long long)(cache_size / 1024));
    return 0;
}

int bench_tilecache_run(const char* data, const char* only, int rounds) {
    static const char* meshes[] = {"dungeon", "nav_test", "undulating"};
    if (rounds < 1) rounds = 3;
    printf("## Tile cache: add + update of DetourTileCache's 150 obstacles (tiles of 48, one thread)\n\n");
    bench_print_machine();
    printf("CPU time of the calling thread, min of %d rounds per obstacle, then median and p99 over the obstacles "
           "(obstacles accumulate). DetourTileCache in the same run: the second table.\n\n", rounds);
    printf("| mesh | obstacles | update (default) | full rebake | speed-up | cells: default / full | area vs full |"
           " layers kept / made | patch: cells / area of the mesh | memory held: default / full | cache |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n");
    int rc = 0;
    for (size_t i = 0; i < sizeof meshes / sizeof *meshes; ++i)
        if (!only || !strcmp(only, meshes[i])) rc |= one_mesh(data, (int)i, meshes[i], rounds);
    return rc | bench_tilecache_peer_run(data, only, rounds);
}
