/* Helpers of the tile cache's tests (test_tilecache.c, test_tilecache_ops.c,
   test_tilecache_areas.c): the small building they share, random obstacles of every kind, their
   footprints, the world with them as geometry (the gen library's prisms), loading and validating a
   blob, updating a cache to the end, comparing its blob. */
#ifndef PTL_TILECACHE_UTIL_H
#define PTL_TILECACHE_UTIL_H

#include <portolan/tilecache.h>

#include "mesh_builder.h"
#include "test_util.h"

/* A 40 x 40 m floor with a few walls and a raised platform behind a ramp-free step. */
static inline ptl_trimesh building(mesh_builder* b) {
    memset(b, 0, sizeof *b);
    floor_quad(b, 0, 0, 40, 40, 0);
    box(b, 10, 0, 0, 11, 3, 25);
    box(b, 20, 0, 15, 21, 3, 40);
    box(b, 28, 0, 8, 40, 3, 9);
    box(b, 30, 0, 20, 38, 0.3f, 30);
    return as_trimesh(b);
}

typedef struct live_obstacle {
    ptl_obstacle_desc d;
    float xz[8];
    ptl_obstacle_ref ref;
} live_obstacle;

static inline uint64_t rng_next(uint64_t* s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}
static inline float rng_unit(uint64_t* s) { return (float)(rng_next(s) & 0xffffff) / (float)0x1000000; }

/* An obstacle of kind (k % 4: cylinder, box, turned box, prism) standing on p, 2.5 high. */
static inline live_obstacle make_obstacle(uint32_t k, const float p[3], uint64_t* rng) {
    live_obstacle o;
    memset(&o, 0, sizeof o);
    const float base = p[1] - 0.3f, size = 0.5f + 0.4f * rng_unit(rng);
    o.d.pos[0] = p[0], o.d.pos[1] = base, o.d.pos[2] = p[2];
    switch (k % 4) {
    case 0:
        o.d.kind = PTL_OBSTACLE_CYLINDER, o.d.size[0] = size, o.d.size[1] = 2.5f;
        break;
    case 1:
    case 2:
        o.d.kind = PTL_OBSTACLE_BOX, o.d.pos[1] = base + 1.25f;
        o.d.size[0] = size, o.d.size[1] = 1.25f, o.d.size[2] = 0.5f + 0.4f * rng_unit(rng);
        o.d.yaw = k % 4 == 2 ? 0.2f + 1.2f * rng_unit(rng) : 0;
        break;
    default: /* a triangle */
        o.d.kind = PTL_OBSTACLE_PRISM, o.d.size[1] = 2.5f, o.d.vert_count = 3;
        for (int i = 0; i < 3; ++i) {
            const float a = 2.0944f * (float)i + rng_unit(rng);
            o.xz[2 * i] = p[0] + 1.2f * size * cosf(a), o.xz[2 * i + 1] = p[2] + 1.2f * size * sinf(a);
        }
        break;
    }
    return o;
}

/* The obstacle's footprint corners (a 24-gon for a cylinder), counter-clockwise in x, z. */
static inline uint32_t footprint(const live_obstacle* o, float* xz) {
    if (o->d.kind == PTL_OBSTACLE_CYLINDER) {
        for (int i = 0; i < 24; ++i) { /* circumscribed, so the geometry covers the circle */
            const float a = 6.2831853f * (float)i / 24, r = o->d.size[0] / cosf(3.14159265f / 24);
            xz[2 * i] = o->d.pos[0] + r * cosf(a), xz[2 * i + 1] = o->d.pos[2] + r * sinf(a);
        }
        return 24;
    }
    if (o->d.kind == PTL_OBSTACLE_PRISM) {
        memcpy(xz, o->xz, 6 * sizeof *xz);
        return 3;
    }
    const float c = cosf(o->d.yaw), s = sinf(o->d.yaw), corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int i = 0; i < 4; ++i) {
        const float lx = corner[i][0] * o->d.size[0], lz = corner[i][1] * o->d.size[2];
        xz[2 * i] = o->d.pos[0] + lx * c + lz * s, xz[2 * i + 1] = o->d.pos[2] - lx * s + lz * c;
    }
    return 4;
}

/* m plus the obstacles as closed prisms (the gen library's, which `portolan gen obstacles` writes). */
static inline ptl_trimesh with_obstacles(const ptl_trimesh* m, const live_obstacle* obs, uint32_t n) {
    ptl_obstacle_desc* d = malloc((n ? n : 1) * sizeof *d);
    cr_assert_not_null(d);
    for (uint32_t k = 0; k < n; ++k) d[k] = obs[k].d, d[k].xz = obs[k].xz;
    ptl_trimesh out;
    ptl_error err;
    cr_assert_eq(ptl_trimesh_with_obstacles(m, d, n, NULL, &out, &err), PTL_OK, "%s", err.message);
    free(d);
    return out;
}

/* The full bake of m with the obstacles as geometry (the same desc as the cache's): its stats, and
   its blob in *blob (the caller's) when blob is not NULL. */
static inline ptl_bake_stats geometry_bake(const ptl_trimesh* m, const live_obstacle* live, uint32_t n,
                                           const ptl_bake_desc* d, const char* what, void** blob, size_t* size) {
    ptl_trimesh mg = with_obstacles(m, live, n);
    void* geo;
    size_t geo_size;
    ptl_bake_stats gs;
    ptl_error err;
    cr_assert_eq(ptl_bake_trimesh(&mg, d, &geo, &geo_size, &gs, &err), PTL_OK, "%s: %s", what, err.message);
    ptl_trimesh_free(&mg);
    if (blob) *blob = geo, *size = geo_size;
    else ptl_blob_free(geo, geo_size, NULL);
    return gs;
}

static inline ptl_navmesh* load(const void* blob, size_t size, const char* what) {
    ptl_navmesh* nm = NULL;
    ptl_error err;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s: %s", what, err.message);
    cr_assert_eq(ptl_navmesh_validate(nm, &err), PTL_OK, "%s: %s", what, err.message);
    return nm;
}

static inline void update(ptl_tilecache* tc, uint32_t budget_us) {
    bool done = false;
    ptl_error err;
    for (int i = 0; !done; ++i) {
        cr_assert_eq(ptl_tilecache_update(tc, budget_us, &done, &err), PTL_OK, "%s", err.message);
        cr_assert_lt(i, 100000);
    }
}

static inline bool same_blob(const ptl_tilecache* tc, const void* b, size_t n) {
    const void* a;
    size_t na;
    ptl_tilecache_blob(tc, &a, &na);
    return na == n && memcmp(a, b, n) == 0;
}

#endif
