/* portolan-bench tilecache, its second table: DetourTileCache (peer_tilecache.h) on the same meshes
   and the same 150 obstacles as the first table, in the same run, beside Portolan's medians from it.
   The obstacles as ../shared/data/README.md gives them: cylinders r 1 h 2 with their base 0.5 m below
   the ground point, boxes 2x2x2 and boxes 3x2x1 turned by yaw_rad standing on the same base. The
   update calls column checks the setup against the csv's own counts (add_update_calls: one call
   rebuilds one tile, so equal counts mean TileCache touched the same tiles as where the csv was
   recorded). */
#define _POSIX_C_SOURCE 200809L
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "peer_tilecache.h"

#define TCP_MAX_OBS 256

bench_tc_ours bench_tc_ours_by_mesh[BENCH_TC_MESHES];

/* The csv's obstacles and their recorded update calls; the count, or -1. */
static int read_csv(const char* path, peer_tc_obstacle* out, int* csv_calls, int cap) {
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < cap) {
        char kind[64], status[32];
        float x, y, z, yaw;
        int touched = 0, calls = 0;
        if (sscanf(line, "%*d,%63[^,],%f,%f,%f,%f,%31[^,],%d,%d", kind, &x, &y, &z, &yaw, status, &touched, &calls) != 8)
            continue; /* the header */
        peer_tc_obstacle* o = &out[n];
        memset(o, 0, sizeof *o);
        if (!strcmp(kind, "cylinder_r1_h2")) {
            o->kind = 0;
            o->pos[0] = x, o->pos[1] = y - 0.5f, o->pos[2] = z;
            o->size[0] = 1.0f, o->size[1] = 2.0f;
        } else {
            const int turned = !strcmp(kind, "obb_3x2x1_yaw");
            o->kind = turned ? 2 : 1;
            o->pos[0] = x, o->pos[1] = y + 0.5f, o->pos[2] = z;
            o->size[0] = turned ? 1.5f : 1.0f, o->size[1] = 1.0f, o->size[2] = turned ? 0.5f : 1.0f;
            o->yaw = turned ? yaw : 0.0f;
        }
        csv_calls[n++] = calls;
    }
    fclose(f);
    return n;
}

static int one_mesh(const char* data, int idx, const char* name, int rounds) {
    char path[2048];
    static peer_tc_obstacle obs[TCP_MAX_OBS];
    static int csv_calls[TCP_MAX_OBS], calls[TCP_MAX_OBS];
    static double best[TCP_MAX_OBS];
    snprintf(path, sizeof path, "%s/expected/detour_queries/%s_tilecache_obstacles.csv", data, name);
    const int n = read_csv(path, obs, csv_calls, TCP_MAX_OBS);
    snprintf(path, sizeof path, "%s/meshes/%s.obj", data, name);
    ptl_trimesh m;
    ptl_error err;
    if (n <= 0 || ptl_obj_load(path, NULL, &m, &err) < 0) {
        fprintf(stderr, "portolan-bench: tilecache peer: %s: no obstacles or mesh\n", name);
        return 1;
    }
    int* tris = malloc(3u * m.tri_count * sizeof *tris);
    if (!tris) {
        ptl_trimesh_free(&m);
        return 1;
    }
    for (uint32_t i = 0; i < 3u * m.tri_count; ++i) tris[i] = (int)m.tris[i];
    peer_params p;
    peer_params_reference(&p);
    peer_tc_stats st;
    const int rc = peer_tilecache_run(m.verts, (int)m.vert_count, tris, (int)m.tri_count, &p, 48, obs, n, rounds, best,
                                      calls, &st);
    free(tris);
    ptl_trimesh_free(&m);
    if (rc) {
        fprintf(stderr, "portolan-bench: tilecache peer: %s: %s\n", name, st.error);
        return 1;
    }
    int same_calls = 0;
    for (int i = 0; i < n; ++i) same_calls += calls[i] == csv_calls[i];
    double med, p99;
    bench_med_p99(best, (size_t)n, &med, &p99);
    const bench_tc_ours* o = &bench_tc_ours_by_mesh[idx];
    char ratio[96] = "-", mem[96] = "-";
    if (o->valid) {
        snprintf(ratio, sizeof ratio, "%.1fx, p99 %.1fx", o->med_ms / med, o->p99_ms / p99);
        snprintf(mem, sizeof mem, "%.1fx (%zu KB)", (double)o->cache_bytes / (double)st.compressed_bytes,
                 o->cache_bytes / 1024);
    }
    printf("| %s | %d | %.3f ms, p99 %.3f | %d of %d | %u x %u, %u layers | %zu KB (%zu KB raw) | %s | %s |\n", name, n,
           med, p99, same_calls, n, st.tiles_x, st.tiles_z, st.layers, st.compressed_bytes / 1024,
           st.uncompressed_bytes / 1024, ratio, mem);
    return 0;
}

int bench_tilecache_peer_run(const char* data, const char* only, int rounds) {
    static const char* meshes[BENCH_TC_MESHES] = {"dungeon", "nav_test", "undulating"};
    printf("\nDetourTileCache in the same run (librecast-dev 1.5.1, tiles of 48, Recast's reference parameters, "
           "layers compressed with LZ4; the same obstacles accumulating; add + update until up to date, CPU time, "
           "min of %d rounds per obstacle). Update calls: obstacles whose add needed as many update calls (tiles "
           "rebuilt) as the csv records. Portolan / TileCache: the first table's default update and its cache "
           "against TileCache's compressed layers.\n\n",
           rounds);
    printf("| mesh | obstacles | TileCache add + update | update calls as the csv | tiles, layers | layers compressed "
           "| Portolan / TileCache time | Portolan's cache / TileCache's |\n|---|---|---|---|---|---|---|---|\n");
    int rc = 0;
    for (int i = 0; i < BENCH_TC_MESHES; ++i)
        if (!only || !strcmp(only, meshes[i])) rc |= one_mesh(data, i, meshes[i], rounds);
    printf("\n");
    return rc;
}
