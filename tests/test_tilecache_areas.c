/* Area volumes in the tile cache (ptl_obstacle_desc.marks_area): a door closed or a floor on fire
   without a geometry change. The truth: a full bake of the same mesh with the same polygon as a
   bake-time area volume (ptl_bake_desc.area_volumes, areas.c), computed by the voxel stage rather
   than by the cache's stamp. */
#include <criterion/criterion.h>
#include <portolan/tilecache.h>
#include <stdlib.h>
#include <string.h>

#include "tilecache_util.h"

/* The walkable plan area of tc's navmesh in each area id (areas[0..PTL_AREA_MAX]). */
static void area_totals(const ptl_tilecache* tc, double* areas) {
    const void* blob;
    size_t size;
    ptl_tilecache_blob(tc, &blob, &size);
    ptl_navmesh* nm = load(blob, size, "area totals");
    memset(areas, 0, (PTL_AREA_MAX + 1) * sizeof *areas);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    for (uint32_t c = 0; c < in.cell_count; ++c) {
        ptl_cell_view v;
        ptl_navmesh_get_cell(nm, c, &v);
        if (v.link != PTL_NONE) continue;
        double a = 0;
        for (uint32_t k = 0; k < v.vert_count; ++k) {
            const float* p = ptl_navmesh_vert(nm, v.verts[k]);
            const float* q = ptl_navmesh_vert(nm, v.verts[(k + 1) % v.vert_count]);
            a += 0.5 * ((double)p[2] * q[0] - (double)p[0] * q[2]);
        }
        cr_assert_leq(v.area, PTL_AREA_MAX);
        areas[v.area] += a < 0 ? -a : a;
    }
    ptl_navmesh_destroy(nm);
}

/* The full bake of m with the volumes as bake-time area volumes, tiles of `tile`. */
static void bake_with_volumes(const ptl_trimesh* m, uint32_t tile, const ptl_area_volume* v, uint32_t n, void** blob,
                              size_t* size) {
    ptl_bake_desc d = ptl_bake_desc_defaults();
    d.tile_size = tile;
    d.area_volumes = v;
    d.area_volume_count = n;
    ptl_error err;
    cr_assert_eq(ptl_bake_trimesh(m, &d, blob, size, NULL, &err), PTL_OK, "%s", err.message);
}

static ptl_tilecache* cache_of(const ptl_trimesh* m, uint32_t tile, void** cache, size_t* size) {
    ptl_bake_desc d = ptl_bake_desc_defaults();
    d.tile_size = tile;
    ptl_error err;
    cr_assert_eq(ptl_tilecache_bake(m, &d, cache, size, &err), PTL_OK, "%s", err.message);
    ptl_tilecache* tc = NULL;
    cr_assert_eq(ptl_tilecache_create(*cache, *size, NULL, &tc, &err), PTL_OK, "%s", err.message);
    return tc;
}

/* Prism volumes across tile borders and over the platform's edge give the bytes of a bake with the
   same polygons as bake-time volumes; removing them gives the bake's bytes back; the marked area
   is where the volume is. */
Test(tilecache_areas, volumes_give_the_bytes_of_a_bake_with_them_as_bake_volumes, .timeout = 300) {
    static mesh_builder b;
    ptl_trimesh m = building(&b);
    static const float door[8] = {12.1f, 18.3f, 19.6f, 17.2f, 19.9f, 23.7f, 12.4f, 24.4f};
    static const float fire[10] = {27.5f, 24.2f, 33.1f, 21.9f, 36.4f, 26.0f, 33.0f, 31.3f, 28.0f, 29.4f};
    const ptl_area_volume vols[2] = {{.xz = door, .vert_count = 4, .ymin = -1.0f, .ymax = 1.0f, .area = 7},
                                     {.xz = fire, .vert_count = 5, .ymin = -1.0f, .ymax = 2.0f, .area = 12}};
    for (uint32_t tile = 32; tile <= 64; tile += 32) {
        void *cache, *ref, *plain;
        size_t cache_size, ref_size, plain_size;
        ptl_tilecache* tc = cache_of(&m, tile, &cache, &cache_size);
        bake_with_volumes(&m, tile, vols, 2, &ref, &ref_size);
        bake_with_volumes(&m, tile, NULL, 0, &plain, &plain_size);
        cr_assert(same_blob(tc, plain, plain_size), "tiles of %u: the cache's first navmesh is not the bake's", tile);
        ptl_obstacle_ref r[2];
        ptl_error err;
        for (int k = 1; k >= 0; --k) { /* added in the other order than the bake's */
            const ptl_obstacle_desc o = {.kind = PTL_OBSTACLE_PRISM, .pos = {0, vols[k].ymin, 0},
                                         .size = {0, vols[k].ymax - vols[k].ymin, 0}, .xz = vols[k].xz,
                                         .vert_count = vols[k].vert_count, .marks_area = true, .area = vols[k].area};
            cr_assert_eq(ptl_tilecache_add(tc, &o, &r[k], &err), PTL_OK, "%s", err.message);
        }
        update(tc, 0);
        cr_expect(same_blob(tc, ref, ref_size), "tiles of %u: the volumes' navmesh is not the bake's with them", tile);
        double areas[PTL_AREA_MAX + 1];
        area_totals(tc, areas);
        /* the door volume: 7.5 x 6.5 m or so, all on open floor; the fire partly on the platform */
        cr_expect(areas[7] > 35 && areas[7] < 60, "tiles of %u: area 7 covers %.2f m2", tile, areas[7]);
        cr_expect(areas[12] > 40 && areas[12] < 80, "tiles of %u: area 12 covers %.2f m2", tile, areas[12]);
        for (int k = 0; k < 2; ++k) cr_assert_eq(ptl_tilecache_remove(tc, r[k], &err), PTL_OK);
        update(tc, 0);
        cr_expect(same_blob(tc, plain, plain_size), "tiles of %u: without the volumes, not the bake's bytes", tile);
        ptl_tilecache_destroy(tc);
        ptl_blob_free(cache, cache_size, NULL);
        ptl_blob_free(ref, ref_size, NULL);
        ptl_blob_free(plain, plain_size, NULL);
    }
}

/* Obstacles win over volumes, the highest area wins where volumes overlap, and neither depends on
   the order of the adds; a volume of area 0 takes a floor back to ground; an area over
   PTL_AREA_MAX is refused. */
Test(tilecache_areas, overlaps_resolve_the_same_in_any_order) {
    static mesh_builder b;
    ptl_trimesh m = building(&b);
    const ptl_obstacle_desc obs[4] = {
        {.kind = PTL_OBSTACLE_BOX, .pos = {5, 0, 30}, .size = {4, 1, 4}, .marks_area = true, .area = 3},
        {.kind = PTL_OBSTACLE_CYLINDER, .pos = {7, -1, 32}, .size = {3, 3, 0}, .marks_area = true, .area = 9},
        {.kind = PTL_OBSTACLE_CYLINDER, .pos = {4, -1, 28}, .size = {1, 3, 0}},
        {.kind = PTL_OBSTACLE_BOX, .pos = {6, 0, 29}, .size = {1, 1, 1}, .yaw = 0.4f, .marks_area = true, .area = 0},
    };
    static const int orders[3][4] = {{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}};
    void* first = NULL;
    size_t first_size = 0;
    double first_areas[PTL_AREA_MAX + 1];
    for (int o = 0; o < 3; ++o) {
        void* cache;
        size_t cache_size;
        ptl_tilecache* tc = cache_of(&m, 32, &cache, &cache_size);
        ptl_obstacle_ref r;
        ptl_error err;
        for (int k = 0; k < 4; ++k) cr_assert_eq(ptl_tilecache_add(tc, &obs[orders[o][k]], &r, &err), PTL_OK, "%s", err.message);
        update(tc, 0);
        double areas[PTL_AREA_MAX + 1];
        area_totals(tc, areas);
        cr_expect(areas[3] > 10, "order %d: area 3 covers %.2f m2", o, areas[3]);
        cr_expect(areas[9] > 10, "order %d: area 9 covers %.2f m2", o, areas[9]);
        const void* blob;
        size_t size;
        ptl_tilecache_blob(tc, &blob, &size);
        if (o == 0) {
            first = malloc(size);
            memcpy(first, blob, size), first_size = size;
            memcpy(first_areas, areas, sizeof areas);
        } else {
            cr_expect(size == first_size && !memcmp(blob, first, size), "order %d: other bytes than order 0", o);
        }
        const ptl_obstacle_desc bad = {.kind = PTL_OBSTACLE_CYLINDER, .pos = {5, 0, 5}, .size = {1, 2, 0},
                                       .marks_area = true, .area = PTL_AREA_MAX + 1};
        cr_expect_eq(ptl_tilecache_add(tc, &bad, &r, &err), PTL_ERR_INVALID_ARG);
        cr_expect(strstr(err.message, "area") != NULL, "%s", err.message);
        ptl_tilecache_destroy(tc);
        ptl_blob_free(cache, cache_size, NULL);
    }
    /* Without the highest-wins rule, area 3's box would cover the cylinder's overlap in order 0 and
       lose it in order 1: the bytes above would differ. Here the cylinder's area 9 holds there: the
       box alone covers 64 m2 of floor, less what the obstacle, the cylinder and the ground box take. */
    cr_expect(first_areas[3] < 64 - 5, "area 3 covers %.2f m2: the cylinder's overlap should be area 9", first_areas[3]);
    free(first);
}
