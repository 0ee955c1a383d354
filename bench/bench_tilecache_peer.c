/* portolan-bench tilecache, its second table: DetourTileCache (peer_tilecache.h) on the same meshes
   and the same 150 obstacles as the first table, in the same run, beside Portolan's medians from it.
   The obstacles are the first table's descs (bench_tc_read_obstacles), handed to the peer as they
   are. The
   update calls column checks the setup against the csv's own counts (add_update_calls: one call
   rebuilds one tile, so equal counts mean TileCache touched the same tiles as where the csv was
   recorded). */
#define _POSIX_C_SOURCE 200809L
#include <portolan/bake.h>
#include <portolan/tilecache.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "peer_tilecache.h"

#define TCP_MAX_OBS 256

bench_tc_ours bench_tc_ours_by_mesh[BENCH_TC_MESHES];

/* A desc of bench_tc_read_obstacles as the peer takes it (the same shape, the same numbers). */
static peer_tc_obstacle peer_obstacle(const ptl_obstacle_desc* d) {
    peer_tc_obstacle o;
    memset(&o, 0, sizeof o);
    o.kind = d->kind == PTL_OBSTACLE_CYLINDER ? 0 : d->yaw != 0 ? 2 : 1;
    memcpy(o.pos, d->pos, sizeof o.pos);
    memcpy(o.size, d->size, sizeof o.size);
    o.yaw = d->yaw;
    return o;
}

static int one_mesh(const char* data, int idx, const char* name, int rounds) {
    char path[2048];
    static peer_tc_obstacle obs[TCP_MAX_OBS];
    static ptl_obstacle_desc descs[TCP_MAX_OBS];
    static int csv_calls[TCP_MAX_OBS], calls[TCP_MAX_OBS];
    static double best[TCP_MAX_OBS];
    snprintf(path, sizeof path, "%s/expected/detour_queries/%s_tilecache_obstacles.csv", data, name);
    const int n = bench_tc_read_obstacles(path, descs, csv_calls, TCP_MAX_OBS);
    for (int i = 0; i < n; ++i) obs[i] = peer_obstacle(&descs[i]);
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
