/* portolan-bench obstacles-many: the tile cache with 100,000 obstacles on a large world
   (TileCache's obstacle pool tops out near 65,536 because an obstacle handle holds its slot in 16
   bits, recastnavigation#440; ours has no cap). The world: the generated terrain (ptl_scene_generate,
   PTL_SCENE_TERRAIN, `size` m square), baked at Recast's reference parameters in tiles of 48 with its
   tile cache. Then, on one thread:
   - all `count` obstacles added (cylinders r 0.25 h 3 standing through the terrain, posts: placed
     uniformly at random from a fixed seed), then one update (no budget): time per obstacle, and the
     memory the cache holds per obstacle;
   - at that load, 20 single adds and 20 single removes, each with its update: the median time of one
     change when 100,000 obstacles are already in;
   - the navmesh of the end state checked (ptl_navmesh_create validates it), its cells and walkable
     area beside the obstacle-free bake's. */
#define _POSIX_C_SOURCE 200809L
#include <portolan/gen.h>
#include <portolan/runtime.h>
#include <portolan/tilecache.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

static uint32_t rng_next(uint32_t* s) { /* xorshift32 */
    uint32_t x = *s;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    return *s = x;
}

static double peak_rss_mib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static bool update_all(ptl_tilecache* tc, ptl_error* err) {
    bool done = false;
    while (!done)
        if (ptl_tilecache_update(tc, 0, &done, err) < 0) return false;
    return true;
}

#define MANY_SINGLES 20

int bench_tilecache_many_run(float size, uint32_t count, uint32_t seed) {
    ptl_scene_desc sd = ptl_scene_desc_defaults();
    sd.kind = PTL_SCENE_TERRAIN;
    sd.size = size;
    ptl_trimesh m;
    ptl_error err;
    if (ptl_scene_generate(&sd, &m, &err) < 0) {
        fprintf(stderr, "portolan-bench: obstacles-many: %s\n", err.message);
        return 1;
    }
    ptl_bake_desc d;
    bench_reference_desc(&d);
    d.tile_size = 48;
    void* cache = NULL;
    size_t cache_size = 0;
    double t0 = bench_cpu_ms(true);
    const bool baked = ptl_tilecache_bake(&m, &d, &cache, &cache_size, &err) >= 0;
    const double bake_ms = bench_cpu_ms(true) - t0;
    float lo[3], hi[3];
    memcpy(lo, m.bmin, sizeof lo), memcpy(hi, m.bmax, sizeof hi);
    ptl_trimesh_free(&m);
    if (!baked) {
        fprintf(stderr, "portolan-bench: obstacles-many: %s\n", err.message);
        return 1;
    }
    ptl_tilecache* tc = NULL;
    ptl_obstacle_ref* refs = malloc((size_t)(count + MANY_SINGLES) * sizeof *refs);
    if (!refs || ptl_tilecache_create(cache, cache_size, NULL, &tc, &err) < 0) {
        fprintf(stderr, "portolan-bench: obstacles-many: %s\n", refs ? err.message : "out of memory");
        free(refs);
        ptl_blob_free(cache, cache_size, NULL);
        return 1;
    }
    ptl_blob_free(cache, cache_size, NULL);
    ptl_tilecache_info before, after;
    ptl_tilecache_get_info(tc, &before);
    uint32_t s = seed ? seed : 1u;
    ptl_obstacle_desc o;
    memset(&o, 0, sizeof o);
    o.kind = PTL_OBSTACLE_CYLINDER;
    o.size[0] = 0.25f, o.size[1] = hi[1] - lo[1] + 2.0f;
    int rc = 0;
    t0 = bench_cpu_ms(true);
    for (uint32_t i = 0; i < count && !rc; ++i) {
        o.pos[0] = lo[0] + (hi[0] - lo[0]) * (float)(rng_next(&s) >> 8) * 0x1p-24f;
        o.pos[1] = lo[1] - 1.0f;
        o.pos[2] = lo[2] + (hi[2] - lo[2]) * (float)(rng_next(&s) >> 8) * 0x1p-24f;
        if (ptl_tilecache_add(tc, &o, &refs[i], &err) < 0) rc = 1;
    }
    const double add_ms = bench_cpu_ms(true) - t0;
    t0 = bench_cpu_ms(true);
    if (!rc && !update_all(tc, &err)) rc = 1;
    const double update_ms = bench_cpu_ms(true) - t0;
    ptl_tilecache_info mid;
    ptl_tilecache_get_info(tc, &mid);
    double one_add[MANY_SINGLES], one_remove[MANY_SINGLES];
    for (int k = 0; k < MANY_SINGLES && !rc; ++k) {
        o.pos[0] = lo[0] + (hi[0] - lo[0]) * (float)(rng_next(&s) >> 8) * 0x1p-24f;
        o.pos[2] = lo[2] + (hi[2] - lo[2]) * (float)(rng_next(&s) >> 8) * 0x1p-24f;
        t0 = bench_cpu_ms(true);
        if (ptl_tilecache_add(tc, &o, &refs[count + (uint32_t)k], &err) < 0 || !update_all(tc, &err)) rc = 1;
        one_add[k] = bench_cpu_ms(true) - t0;
    }
    for (int k = 0; k < MANY_SINGLES && !rc; ++k) {
        t0 = bench_cpu_ms(true);
        if (ptl_tilecache_remove(tc, refs[(uint32_t)k * (count / MANY_SINGLES)], &err) < 0 || !update_all(tc, &err)) rc = 1;
        one_remove[k] = bench_cpu_ms(true) - t0;
    }
    if (rc) {
        fprintf(stderr, "portolan-bench: obstacles-many: %s\n", err.message);
        ptl_tilecache_destroy(tc);
        free(refs);
        return 1;
    }
    ptl_tilecache_get_info(tc, &after);
    const void* blob;
    size_t bsize;
    ptl_tilecache_blob(tc, &blob, &bsize);
    ptl_navmesh* nm = NULL;
    const bool valid = ptl_navmesh_create(blob, bsize, NULL, &nm, &err) >= 0;
    ptl_navmesh_destroy(nm);
    const double add_med = bench_median(one_add, MANY_SINGLES), remove_med = bench_median(one_remove, MANY_SINGLES);
    printf("## Tile cache: %u obstacles on a %.0f m terrain (tiles of 48, one thread)\n\n", count, (double)size);
    bench_print_machine();
    printf("Generated terrain %.0f x %.0f m, %u x %u tiles of 48 columns; cache %.1f MB, baked in %.0f ms (CPU). "
           "Obstacles: cylinders r 0.25 through the terrain at uniform random places (seed %u). CPU time of the "
           "process (the bake runs on one thread: no job system).\n\n",
           (double)size, (double)size, before.tiles_x, before.tiles_z, (double)cache_size / 1e6, bake_ms, seed);
    printf("| what | time | per obstacle | memory held | per obstacle |\n|---|---|---|---|---|\n");
    printf("| create (no obstacle) | | | %.1f MB | |\n", (double)before.memory_bytes / 1e6);
    printf("| add %u | %.0f ms | %.2f us | | |\n", count, add_ms, 1e3 * add_ms / count);
    printf("| one update for all (%u of %u tiles stamped; %u cells) | %.0f ms | %.2f us | %.1f MB | %.0f bytes |\n",
           mid.stamped_tiles, mid.tiles_x * mid.tiles_z, mid.cells, update_ms, 1e3 * update_ms / count,
           (double)mid.memory_bytes / 1e6, (double)(mid.memory_bytes - before.memory_bytes) / count);
    printf("| then one add + update (median of %d) | %.1f ms | | | |\n", MANY_SINGLES, add_med);
    printf("| then one remove + update (median of %d) | %.1f ms | | | |\n", MANY_SINGLES, remove_med);
    printf("| end: %u obstacles | | | %.1f MB | %.0f bytes |\n", after.obstacles, (double)after.memory_bytes / 1e6,
           (double)(after.memory_bytes - before.memory_bytes) / after.obstacles);
    printf("\nNavmesh: %u cells and %.0f m2 walkable without obstacles, %u cells and %.0f m2 with them (%s); "
           "process peak resident set %.0f MiB.\n\n",
           before.cells, before.walkable_area, after.cells, after.walkable_area,
           valid ? "it validates" : "IT DOES NOT VALIDATE", peak_rss_mib());
    ptl_tilecache_destroy(tc);
    free(refs);
    return valid ? 0 : 1;
}
