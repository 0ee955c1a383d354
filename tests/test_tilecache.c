/* The tile cache (bake/pipeline/tilecache.c): obstacles stamped into cached tiles give a valid navmesh with no
   walkable point inside an obstacle, the same bytes whatever the order of the operations, the
   original bake's bytes once every obstacle is gone, and the navmesh a full bake makes of the
   world with the obstacles as geometry (within the tolerances of comparable_to_geometry). */
#include <stdlib.h>

#include "failing_alloc.h"
#include "mesh_builder.h"
#include "tilecache_util.h"

/* The distance from p to the polygon's boundary, negative outside (xz counter-clockwise). */
static float inside_by(const float* xz, uint32_t n, const float p[3]) {
    float best = INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t j = (i + 1) % n;
        const float ex = xz[2 * j] - xz[2 * i], ez = xz[2 * j + 1] - xz[2 * i + 1], len = sqrtf(ex * ex + ez * ez);
        const float side = (ex * (p[2] - xz[2 * i + 1]) - ez * (p[0] - xz[2 * i])) / len; /* > 0: left of the edge */
        best = fminf(best, side);
    }
    return best;
}

/* No point well inside an obstacle (its centre, and half way to each corner of a box or prism) has
   mesh within 5 cm in plan. "Well inside": 0.45 m (1.5 cells) from the obstacle's sides, since
   the contours' simplification (max_error 1.3 cells) may move a wall that far into it. */
static void check_interiors(const void* blob, size_t size, const live_obstacle* obs, uint32_t n, const char* what) {
    ptl_navmesh* nm = load(blob, size, what);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    for (uint32_t k = 0; k < n; ++k) {
        float xz[48], c[2] = {obs[k].d.pos[0], obs[k].d.pos[2]};
        const uint32_t m = footprint(&obs[k], xz);
        if (obs[k].d.kind == PTL_OBSTACLE_PRISM) c[0] = (xz[0] + xz[2] + xz[4]) / 3, c[1] = (xz[1] + xz[3] + xz[5]) / 3;
        const float y = obs[k].d.kind == PTL_OBSTACLE_BOX ? obs[k].d.pos[1] - obs[k].d.size[1] : obs[k].d.pos[1];
        for (uint32_t i = 0; i <= m; ++i) {
            if (i > 0 && obs[k].d.kind == PTL_OBSTACLE_CYLINDER) break;
            const float p[3] = {i ? (c[0] + xz[2 * i - 2]) / 2 : c[0], y + 0.8f, i ? (c[1] + xz[2 * i - 1]) / 2 : c[1]};
            if (obs[k].d.kind != PTL_OBSTACLE_CYLINDER && fabsf(inside_by(xz, m, p)) < 0.45f) continue;
            const float ext[3] = {0.05f, 1.0f, 0.05f};
            ptl_location loc;
            cr_expect_neq(ptl_query_locate(q, p, ext, &loc), PTL_OK, "%s: obstacle %u (kind %d): %.2f,%.2f,%.2f is walkable",
                          what, k, (int)obs[k].d.kind, p[0], p[1], p[2]);
        }
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

/* Path lengths on the navmesh of the stamped cache and on a full bake with the obstacles as
   geometry, between random points of the first that both have within 0.5 m. */
static void compare_paths(const void* a, size_t na, const void* b, size_t nb, const char* what, uint64_t seed) {
    ptl_navmesh* ma = load(a, na, what);
    ptl_navmesh* mb = load(b, nb, what);
    ptl_query *qa, *qb;
    cr_assert_eq(ptl_query_create(ma, NULL, &qa), PTL_OK);
    cr_assert_eq(ptl_query_create(mb, NULL, &qb), PTL_OK);
    uint32_t pairs = 0, agree = 0, both = 0, close = 0;
    double worst = 0;
    for (int i = 0; i < 400 && pairs < 100; ++i) {
        ptl_location s, g, t;
        cr_assert_eq(ptl_query_random_point(qa, &seed, &s), PTL_OK);
        cr_assert_eq(ptl_query_random_point(qa, &seed, &g), PTL_OK);
        const float ext[3] = {0.5f, 1.0f, 0.5f};
        if (ptl_query_locate(qb, s.point, ext, &t) != PTL_OK || ptl_query_locate(qb, g.point, ext, &t) != PTL_OK) continue;
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        memcpy(req.start, s.point, sizeof req.start), memcpy(req.goal, g.point, sizeof req.goal);
        req.extents[0] = req.extents[2] = 0.5f, req.extents[1] = 1.0f;
        ptl_path_result ra, rb;
        memset(&ra, 0, sizeof ra), memset(&rb, 0, sizeof rb);
        ptl_query_find_path(qa, &req, &ra);
        ptl_query_find_path(qb, &req, &rb);
        ++pairs;
        if (ra.found != rb.found) continue;
        ++agree;
        if (!ra.found) continue;
        ++both;
        const double d = fabs(ra.length - rb.length);
        if (d <= 0.01 * rb.length + 0.3) ++close;
        if (d > worst) worst = d;
    }
    fprintf(stderr, "%s: %u pairs, %u agree on found, %u found by both, %u of them within 1%% + 0.3 m (largest difference %.3f m)\n",
            what, pairs, agree, both, close, worst);
    cr_expect_geq(pairs, 50u, "%s: too few pairs", what);
    cr_expect_geq(agree * 100, pairs * 95, "%s: %u of %u pairs agree on reachability", what, agree, pairs);
    cr_expect_geq(close * 100, both * 95, "%s: %u of %u lengths within 1%% + 0.3 m", what, close, both);
    ptl_query_destroy(qa), ptl_query_destroy(qb);
    ptl_navmesh_destroy(ma), ptl_navmesh_destroy(mb);
}

/* Random adds, moves and removes on m baked in tiles of `tile` columns; the checks of the file. */
static void run_ops(const ptl_trimesh* m, uint32_t tile, uint32_t ops, uint64_t seed, const char* what) {
    ptl_bake_desc d = ptl_bake_desc_defaults();
    d.tile_size = tile;
    ptl_error err;
    void *ref, *cache;
    size_t ref_size, cache_size;
    cr_assert_eq(ptl_bake_trimesh(m, &d, &ref, &ref_size, NULL, &err), PTL_OK, "%s: %s", what, err.message);
    cr_assert_eq(ptl_tilecache_bake(m, &d, &cache, &cache_size, &err), PTL_OK, "%s: %s", what, err.message);
    ptl_tilecache* tc;
    cr_assert_eq(ptl_tilecache_create(cache, cache_size, NULL, &tc, &err), PTL_OK, "%s: %s", what, err.message);
    cr_assert(same_blob(tc, ref, ref_size), "%s: the cache's navmesh is not the bake's", what);
    /* the same operations on a cache that rebakes the whole world from its tiles every time: the
       kept layers (tilecache_layers.c) must give its bytes after every update */
    ptl_tilecache_desc fd = ptl_tilecache_desc_defaults();
    fd.full_rebake = true;
    ptl_tilecache* full;
    cr_assert_eq(ptl_tilecache_create(cache, cache_size, &fd, &full, &err), PTL_OK, "%s: %s", what, err.message);
    ptl_obstacle_ref fref[64];
    ptl_navmesh* nm = load(ref, ref_size, what);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    live_obstacle live[64];
    uint32_t n = 0, kinds = 0;
    uint64_t layers_kept = 0, layers_made = 0, layers_keyed = 0, grids_kept = 0; /* the layers whose contours and decompositions were kept */
    uint64_t in_place = 0, whole = 0;           /* stamped copies brought up to date in place, made whole */
    uint64_t rng = seed, prng = seed ^ 0x9e3779b97f4a7c15ull;
    for (uint32_t op = 0; op < ops; ++op) {
        const uint32_t r = (uint32_t)(rng_next(&rng) % 10);
        ptl_location at;
        cr_assert_eq(ptl_query_random_point(q, &prng, &at), PTL_OK);
        if (n < 6 || (r < 5 && n < 64)) {
            live[n] = make_obstacle(kinds++, at.point, &rng);
            if (live[n].d.kind == PTL_OBSTACLE_PRISM) live[n].d.xz = live[n].xz;
            cr_assert_eq(ptl_tilecache_add(tc, &live[n].d, &live[n].ref, &err), PTL_OK, "%s: %s", what, err.message);
            cr_assert_eq(ptl_tilecache_add(full, &live[n].d, &fref[n], &err), PTL_OK, "%s: %s", what, err.message);
            ++n;
        } else if (r < 8) {
            const uint32_t k = (uint32_t)(rng_next(&rng) % n);
            live_obstacle o = make_obstacle(kinds++, at.point, &rng);
            o.ref = live[k].ref;
            live[k] = o;
            if (live[k].d.kind == PTL_OBSTACLE_PRISM) live[k].d.xz = live[k].xz;
            cr_assert_eq(ptl_tilecache_move(tc, live[k].ref, &live[k].d, &err), PTL_OK, "%s: %s", what, err.message);
            cr_assert_eq(ptl_tilecache_move(full, fref[k], &live[k].d, &err), PTL_OK, "%s: %s", what, err.message);
        } else {
            const uint32_t k = (uint32_t)(rng_next(&rng) % n);
            const ptl_obstacle_ref gone = live[k].ref;
            cr_assert_eq(ptl_tilecache_remove(tc, gone, &err), PTL_OK, "%s: %s", what, err.message);
            cr_expect_eq(ptl_tilecache_remove(tc, gone, &err), PTL_ERR_NOT_FOUND, "%s: a stale handle was taken", what);
            cr_assert_eq(ptl_tilecache_remove(full, fref[k], &err), PTL_OK, "%s: %s", what, err.message);
            fref[k] = fref[n - 1];
            live[k] = live[--n];
            if (live[k].d.kind == PTL_OBSTACLE_PRISM) live[k].d.xz = live[k].xz;
        }
        update(tc, 0);
        update(full, 0);
        const void* blob;
        size_t size;
        ptl_tilecache_blob(full, &blob, &size);
        cr_assert(same_blob(tc, blob, size), "%s: op %u: the kept layers' navmesh is not the full rebake's", what, op);
        ptl_tilecache_info li;
        ptl_tilecache_get_info(tc, &li);
        layers_kept += li.layers_kept, layers_made += li.layers_made, layers_keyed += li.layers_keyed, grids_kept += li.layers_grids_kept;
        in_place += li.restamped_edges, whole += li.restamped_whole;
        ptl_tilecache_blob(tc, &blob, &size);
        check_interiors(blob, size, live, n, what);
    }
    const void* blob;
    size_t size;
    ptl_tilecache_blob(tc, &blob, &size);
    /* the same obstacles added in reverse order, updated a tile at a time: the same bytes */
    ptl_tilecache* tc2;
    cr_assert_eq(ptl_tilecache_create(cache, cache_size, NULL, &tc2, &err), PTL_OK);
    for (uint32_t k = n; k-- > 0;) {
        ptl_obstacle_ref r2;
        cr_assert_eq(ptl_tilecache_add(tc2, &live[k].d, &r2, &err), PTL_OK);
    }
    update(tc2, 1);
    cr_expect(same_blob(tc2, blob, size), "%s: the same obstacles in another order gave other bytes", what);
    ptl_tilecache_destroy(tc2);
    ptl_tilecache_destroy(full);
    /* the full bake with the obstacles as geometry */
    void* geo;
    size_t geo_size;
    const ptl_bake_stats gs = geometry_bake(m, live, n, &d, what, &geo, &geo_size);
    ptl_tilecache_info info;
    ptl_tilecache_get_info(tc, &info);
    fprintf(stderr, "%s: %u obstacles: area %.2f vs geometry %.2f (%.3f%%), cells %u vs %u; cache %llu bytes\n", what, n,
            info.walkable_area, gs.walkable_area, 100 * (info.walkable_area / gs.walkable_area - 1), info.cells, gs.cells,
            (unsigned long long)info.cache_bytes);
    fprintf(stderr, "%s: layers kept %llu (%llu by key), made again %llu over %u updates\n", what,
            (unsigned long long)layers_kept, (unsigned long long)layers_keyed, (unsigned long long)layers_made, ops);
    cr_expect_gt(layers_kept, 0, "%s: no update kept a layer's contour and decomposition", what);
    /* the layers kept by key skip the trace: checked against the full rebake above */
    cr_expect_gt(layers_keyed, 0, "%s: no update kept a layer by its key", what);
    fprintf(stderr, "%s: layers whose height grids the merge kept: %llu\n", what, (unsigned long long)grids_kept);
    cr_expect_gt(grids_kept, 0, "%s: no update kept a layer's height grids in the merge", what);
    fprintf(stderr, "%s: stamped copies made whole %llu, in place %llu\n", what, (unsigned long long)whole,
            (unsigned long long)in_place);
    /* the copies brought up to date in place are checked against the full rebake's whole ones above */
    cr_expect_gt(in_place, 0, "%s: no stamped copy was brought up to date in place", what);
    cr_expect_leq(fabs(info.walkable_area / gs.walkable_area - 1), 0.01, "%s: walkable area %.2f vs %.2f", what,
                  info.walkable_area, gs.walkable_area);
    compare_paths(blob, size, geo, geo_size, what, seed);
    ptl_blob_free(geo, geo_size, NULL);
    /* everything removed: the original bytes */
    for (uint32_t k = 0; k < n; ++k) cr_assert_eq(ptl_tilecache_remove(tc, live[k].ref, &err), PTL_OK);
    update(tc, 0);
    cr_expect(same_blob(tc, ref, ref_size), "%s: removing every obstacle did not give the bake back", what);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_tilecache_destroy(tc);
    ptl_blob_free(cache, cache_size, NULL);
    ptl_blob_free(ref, ref_size, NULL);
}

Test(tilecache, obstacles_on_a_building_match_a_bake_with_them_as_geometry, .timeout = 600) {
    static mesh_builder b;
    ptl_trimesh m = building(&b);
    run_ops(&m, 32, 40, 7, "building, tiles of 32");
}

Test(tilecache, obstacles_on_dungeon_match_a_bake_with_them_as_geometry, .timeout = 900) {
    TEST_REQUIRE_DATA(data);
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/dungeon.obj", data);
    ptl_trimesh m;
    ptl_error err;
    cr_assert_geq(ptl_obj_load(path, NULL, &m, &err), 0, "%s", err.message);
    run_ops(&m, 48, 40, 11, "dungeon, tiles of 48");
    ptl_trimesh_free(&m);
}

/* Jobs in reverse order: the results must not depend on it. */
static void run_reversed(void* user, ptl_job_fn fn, void* data, uint32_t count) {
    (void)user;
    for (uint32_t i = count; i-- > 0;) fn(data, i);
}

/* The kept layers (tilecache_layers.c; its pieces flooded as `jobs`) against the full rebake on the
   same operations, after every update: the same bytes. Obstacles on random walkable points of every
   storey, each op updated. */
static void kept_vs_full(const ptl_trimesh* m, uint32_t tile, const ptl_job_system* jobs, uint32_t ops, uint64_t seed,
                         const char* what) {
    ptl_bake_desc d = ptl_bake_desc_defaults();
    d.tile_size = tile;
    ptl_error err;
    void* cache;
    size_t cache_size;
    cr_assert_eq(ptl_tilecache_bake(m, &d, &cache, &cache_size, &err), PTL_OK, "%s: %s", what, err.message);
    ptl_tilecache_desc fd = ptl_tilecache_desc_defaults();
    fd.full_rebake = true;
    ptl_tilecache_desc kd = ptl_tilecache_desc_defaults();
    kd.jobs = jobs;
    ptl_tilecache *kept, *full;
    cr_assert_eq(ptl_tilecache_create(cache, cache_size, &kd, &kept, &err), PTL_OK, "%s: %s", what, err.message);
    cr_assert_eq(ptl_tilecache_create(cache, cache_size, &fd, &full, &err), PTL_OK, "%s: %s", what, err.message);
    const void* b;
    size_t n0;
    ptl_tilecache_blob(full, &b, &n0);
    void* b0 = malloc(n0); /* the blob is the cache's until its next update */
    cr_assert(b0);
    memcpy(b0, b, n0);
    ptl_navmesh* nm = load(b0, n0, what);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    live_obstacle live[32];
    ptl_obstacle_ref fref[32];
    uint32_t n = 0, kinds = 0;
    uint64_t rng = seed, prng = seed ^ 0x9e3779b97f4a7c15ull;
    for (uint32_t op = 0; op < ops; ++op) {
        const uint32_t r = (uint32_t)(rng_next(&rng) % 10);
        ptl_location at;
        cr_assert_eq(ptl_query_random_point(q, &prng, &at), PTL_OK);
        live_obstacle o = make_obstacle(kinds++, at.point, &rng);
        if (n < 4 || (r < 5 && n < 32)) {
            live[n] = o;
            if (live[n].d.kind == PTL_OBSTACLE_PRISM) live[n].d.xz = live[n].xz;
            cr_assert_eq(ptl_tilecache_add(kept, &live[n].d, &live[n].ref, &err), PTL_OK, "%s: %s", what, err.message);
            cr_assert_eq(ptl_tilecache_add(full, &live[n].d, &fref[n], &err), PTL_OK, "%s: %s", what, err.message);
            ++n;
        } else if (r < 8) {
            const uint32_t k = (uint32_t)(rng_next(&rng) % n);
            o.ref = live[k].ref;
            live[k] = o;
            if (live[k].d.kind == PTL_OBSTACLE_PRISM) live[k].d.xz = live[k].xz;
            cr_assert_eq(ptl_tilecache_move(kept, live[k].ref, &live[k].d, &err), PTL_OK, "%s: %s", what, err.message);
            cr_assert_eq(ptl_tilecache_move(full, fref[k], &live[k].d, &err), PTL_OK, "%s: %s", what, err.message);
        } else {
            const uint32_t k = (uint32_t)(rng_next(&rng) % n);
            cr_assert_eq(ptl_tilecache_remove(kept, live[k].ref, &err), PTL_OK, "%s: %s", what, err.message);
            cr_assert_eq(ptl_tilecache_remove(full, fref[k], &err), PTL_OK, "%s: %s", what, err.message);
            fref[k] = fref[n - 1];
            live[k] = live[--n];
            if (live[k].d.kind == PTL_OBSTACLE_PRISM) live[k].d.xz = live[k].xz;
        }
        update(kept, op % 3 == 0 ? 1 : 0); /* some updates a tile at a time */
        update(full, 0);
        size_t nb;
        ptl_tilecache_blob(full, &b, &nb);
        cr_assert(same_blob(kept, b, nb), "%s: op %u: the kept layers' navmesh is not the full rebake's", what, op);
    }
    for (uint32_t k = 0; k < n; ++k) cr_assert_eq(ptl_tilecache_remove(kept, live[k].ref, &err), PTL_OK);
    update(kept, 0);
    cr_expect(same_blob(kept, b0, n0), "%s: removing every obstacle did not give the bake back", what);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_tilecache_destroy(kept);
    ptl_tilecache_destroy(full);
    free(b0);
    ptl_blob_free(cache, cache_size, NULL);
}

Test(tilecache, kept_layers_give_the_full_rebakes_bytes_on_the_generated_building, .timeout = 900) {
    ptl_scene_desc sd = ptl_scene_desc_defaults(); /* a 3-storey building: stairwells and ramps */
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    const ptl_job_system rev = {run_reversed, NULL};
    kept_vs_full(&m, 32, NULL, 30, 3, "generated building, tiles of 32");
    kept_vs_full(&m, 48, &rev, 30, 5, "generated building, tiles of 48, jobs in reverse order");
    ptl_trimesh_free(&m);
}

Test(tilecache, kept_layers_give_the_full_rebakes_bytes_on_dungeon, .timeout = 900) {
    TEST_REQUIRE_DATA(data);
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/dungeon.obj", data);
    ptl_trimesh m;
    ptl_error err;
    cr_assert_geq(ptl_obj_load(path, NULL, &m, &err), 0, "%s", err.message);
    const ptl_job_system rev = {run_reversed, NULL};
    kept_vs_full(&m, 64, &rev, 30, 13, "dungeon, tiles of 64, jobs in reverse order");
    ptl_trimesh_free(&m);
}

/* The generated building (*m, in b), its bake desc with tiles of `tile` columns (*d) and its tile
   cache (to be freed with ptl_blob_free). */
static void building_cache(mesh_builder* b, uint32_t tile, ptl_trimesh* m, ptl_bake_desc* d, void** cache, size_t* size) {
    *m = building(b);
    *d = ptl_bake_desc_defaults();
    d->tile_size = tile;
    ptl_error err;
    cr_assert_eq(ptl_tilecache_bake(m, d, cache, size, &err), PTL_OK, "%s", err.message);
}

Test(tilecache, damaged_caches_and_bad_obstacles_are_clear_errors) {
    static mesh_builder b;
    ptl_trimesh m;
    ptl_bake_desc d;
    void* cache;
    size_t size;
    ptl_error err;
    building_cache(&b, 32, &m, &d, &cache, &size);
    ptl_tilecache* tc = NULL;
    cr_expect_eq(ptl_tilecache_create(cache, size / 2, NULL, &tc, &err), PTL_ERR_BAD_BLOB);
    uint8_t* bad = malloc(size);
    memcpy(bad, cache, size);
    bad[size / 2] ^= 0x40;
    cr_expect_eq(ptl_tilecache_create(bad, size, NULL, &tc, &err), PTL_ERR_BAD_BLOB);
    cr_expect(strstr(err.message, "checksum") != NULL, "%s", err.message);
    free(bad);
    const uint32_t some[4] = {0, 0, 0, 0};
    void* part;
    size_t part_size;
    cr_assert_eq(ptl_bake_trimesh_part(&m, &d, some, &part, &part_size, NULL, &err), PTL_OK);
    cr_expect_eq(ptl_tilecache_create(part, part_size, NULL, &tc, &err), PTL_ERR_BAD_INPUT, "%s", err.message);
    ptl_blob_free(part, part_size, NULL);
    cr_assert_eq(ptl_tilecache_create(cache, size, NULL, &tc, &err), PTL_OK, "%s", err.message);
    ptl_obstacle_desc o = {.kind = PTL_OBSTACLE_CYLINDER, .pos = {5, 0, 5}, .size = {-1, 2, 0}};
    ptl_obstacle_ref r;
    cr_expect_eq(ptl_tilecache_add(tc, &o, &r, &err), PTL_ERR_INVALID_ARG);
    const float bowtie[8] = {0, 0, 1, 1, 1, 0, 0, 1};
    ptl_obstacle_desc p = {.kind = PTL_OBSTACLE_PRISM, .size = {0, 2, 0}, .xz = bowtie, .vert_count = 4};
    cr_expect_eq(ptl_tilecache_add(tc, &p, &r, &err), PTL_ERR_INVALID_ARG);
    o.size[0] = 1;
    o.pos[0] = 1e30f; /* off the world: no tile, no harm */
    cr_expect_eq(ptl_tilecache_add(tc, &o, &r, &err), PTL_OK, "%s", err.message);
    cr_expect_eq(ptl_tilecache_remove(tc, r, &err), PTL_OK);
    ptl_obstacle_ref stale = r;
    cr_expect_eq(ptl_tilecache_add(tc, &o, &r, &err), PTL_OK); /* the slot again, another salt */
    cr_expect_eq(r.index, stale.index);
    cr_expect_eq(ptl_tilecache_move(tc, stale, &o, &err), PTL_ERR_NOT_FOUND);
    ptl_tilecache_destroy(tc);
    ptl_blob_free(cache, size, NULL);
}

/* One run of create, add, move, remove and update with allocator a: every step ends in PTL_OK or
   PTL_ERR_NO_MEMORY, and destroy gives every byte back (checked by the caller). */
static void run_with(const void* cache, size_t size, const ptl_allocator* a) {
    ptl_tilecache_desc td = {.alloc = a};
    ptl_tilecache* tc;
    ptl_error err;
    ptl_status st = ptl_tilecache_create(cache, size, &td, &tc, &err);
    cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "create: %s", err.message);
    if (st < 0) return;
    const float tri[6] = {14, 14, 17, 14, 15, 17};
    const ptl_obstacle_desc o[3] = {
        {.kind = PTL_OBSTACLE_CYLINDER, .pos = {5, -0.2f, 5}, .size = {1, 2.5f, 0}},
        {.kind = PTL_OBSTACLE_BOX, .pos = {25, 1, 12}, .size = {1.5f, 1.2f, 0.5f}, .yaw = 0.7f},
        {.kind = PTL_OBSTACLE_PRISM, .pos = {0, -0.2f, 0}, .size = {0, 2.5f, 0}, .xz = tri, .vert_count = 3}};
    ptl_obstacle_ref r[3];
    bool have[3] = {false, false, false}, done;
    for (int k = 0; k < 3; ++k) {
        st = ptl_tilecache_add(tc, &o[k], &r[k], &err);
        cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "add: %s", err.message);
        have[k] = st == PTL_OK;
    }
    if (have[0]) {
        st = ptl_tilecache_move(tc, r[0], &o[1], &err);
        cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "move: %s", err.message);
    }
    st = ptl_tilecache_update(tc, 0, &done, &err);
    cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "update: %s", err.message);
    if (have[1]) {
        st = ptl_tilecache_remove(tc, r[1], &err);
        cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "remove: %s", err.message);
    }
    st = ptl_tilecache_update(tc, 0, &done, &err);
    cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "update: %s", err.message);
    ptl_tilecache_destroy(tc);
}

Test(tilecache, every_allocation_failure_is_no_memory_and_leaks_nothing, .timeout = 600) {
    static mesh_builder b;
    ptl_trimesh m;
    ptl_bake_desc d;
    void* cache;
    size_t size;
    building_cache(&b, 64, &m, &d, &cache, &size);
    tracking count = {.fail_at = -1};
    ptl_allocator a = {t_alloc, t_realloc, t_free, &count};
    run_with(cache, size, &a);
    cr_assert_eq(count.live_blocks, 0);
    cr_assert_eq(count.live_bytes, 0u);
    const long step = count.calls / 300 + 1;
    for (long n = 0; n < count.calls; n += step) {
        for (int after = 0; after < 2; ++after) {
            tracking t = {.fail_at = n, .fail_after = after != 0};
            ptl_allocator fa = {t_alloc, t_realloc, t_free, &t};
            run_with(cache, size, &fa);
            cr_assert_eq(t.live_blocks, 0, "failing at call %ld%s: %ld blocks leaked", n, after ? " and after" : "", t.live_blocks);
            cr_assert_eq(t.live_bytes, 0u, "failing at call %ld%s: %zu bytes off", n, after ? " and after" : "", t.live_bytes);
        }
    }
    ptl_blob_free(cache, size, NULL);
}
