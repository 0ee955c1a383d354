/* What a tool sees of a tile cache (ptl_tilecache_tile) and how debugdraw draws it
   (ptl_dd_obstacle, ptl_dd_tilecache_tiles; the demo's obstacle tool): the tiles' boxes tile the
   world, an obstacle's tiles are dirty until an update and stamped after it, and every drawn vertex
   lies on the obstacle or tile it stands for. */
#include <portolan/debugdraw.h>
#include <portolan/tilecache.h>
#include <stdlib.h>

#include "mesh_builder.h"
#include "test_util.h"

/* ---- a recording sink: counts, bounds, colours --------------------------------------------------*/
typedef struct view_rec {
    uint32_t errors, nonfinite, verts[3], batches;
    bool open;
    ptl_dd_prim prim;
    float lo[3], hi[3];       /* of every vertex */
    ptl_dd_color watch;       /* counted in `watched` */
    uint32_t watched;
    const ptl_obstacle_desc* box; /* when set: vertices outside the turned box count in `outside` */
    uint32_t outside;
} view_rec;

static void v_begin(void* u, ptl_dd_prim prim, float size) {
    view_rec* r = u;
    (void)size;
    if (r->open) r->errors++;
    r->open = true, r->prim = prim, r->batches++;
}
static void v_vertex(void* u, const float p[3], ptl_dd_color c) {
    view_rec* r = u;
    if (!r->open) r->errors++;
    r->verts[r->prim]++;
    for (int k = 0; k < 3; ++k) {
        if (!isfinite(p[k])) r->nonfinite++;
        r->lo[k] = fminf(r->lo[k], p[k]), r->hi[k] = fmaxf(r->hi[k], p[k]);
    }
    if (c == r->watch) r->watched++;
    if (r->box) { /* into the box's frame (the inverse of the yaw turn) */
        const ptl_obstacle_desc* b = r->box;
        const float dx = p[0] - b->pos[0], dz = p[2] - b->pos[2], c0 = cosf(b->yaw), s0 = sinf(b->yaw);
        const float lx = dx * c0 - dz * s0, lz = dx * s0 + dz * c0, e = 1e-4f;
        if (fabsf(lx) > b->size[0] + e || fabsf(lz) > b->size[2] + e || fabsf(p[1] - b->pos[1]) > b->size[1] + e) r->outside++;
    }
}
static void v_end(void* u) {
    view_rec* r = u;
    if (!r->open) r->errors++;
    r->open = false;
}
static ptl_dd_sink sink_of(view_rec* r) {
    memset(r, 0, sizeof *r);
    for (int k = 0; k < 3; ++k) r->lo[k] = INFINITY, r->hi[k] = -INFINITY;
    return (ptl_dd_sink){v_begin, v_vertex, v_end, r};
}

/* ---- a cache of a 40 x 40 m floor, tiles of 32 columns -------------------------------------------*/
static ptl_tilecache* floor_cache(void) {
    static mesh_builder b;
    memset(&b, 0, sizeof b);
    floor_quad(&b, 0, 0, 40, 40, 0);
    ptl_trimesh m = as_trimesh(&b);
    ptl_bake_desc d = ptl_bake_desc_defaults();
    d.tile_size = 32;
    void* cache = NULL;
    size_t size = 0;
    ptl_error err;
    cr_assert_eq(ptl_tilecache_bake(&m, &d, &cache, &size, &err), PTL_OK, "%s", err.message);
    ptl_tilecache* tc = NULL;
    cr_assert_eq(ptl_tilecache_create(cache, size, NULL, &tc, &err), PTL_OK, "%s", err.message);
    ptl_blob_free(cache, size, NULL);
    return tc;
}

static uint32_t flags_at(const ptl_tilecache* tc, float x, float z) {
    ptl_tilecache_info info;
    ptl_tilecache_get_info(tc, &info);
    for (uint32_t tz = 0; tz < info.tiles_z; ++tz)
        for (uint32_t tx = 0; tx < info.tiles_x; ++tx) {
            float lo[3], hi[3];
            const uint32_t f = ptl_tilecache_tile(tc, tx, tz, lo, hi);
            if (x >= lo[0] && x < hi[0] && z >= lo[2] && z < hi[2]) return f;
        }
    cr_assert_fail("(%g, %g) lies in no tile", (double)x, (double)z);
    return 0;
}

static void update(ptl_tilecache* tc) {
    bool done = false;
    ptl_error err;
    cr_assert_eq(ptl_tilecache_update(tc, 0, &done, &err), PTL_OK, "%s", err.message);
    cr_assert(done);
}

Test(tilecache_view, tiles_tile_the_world_and_say_which_are_dirty_and_stamped) {
    ptl_tilecache* tc = floor_cache();
    ptl_tilecache_info info;
    ptl_tilecache_get_info(tc, &info);
    cr_assert_geq(info.tiles_x, 2);
    cr_assert_geq(info.tiles_z, 2);
    float first_lo[3], last_hi[3], lo[3], hi[3], lo2[3], hi2[3];
    ptl_tilecache_tile(tc, 0, 0, first_lo, lo);
    ptl_tilecache_tile(tc, info.tiles_x - 1, info.tiles_z - 1, hi, last_hi);
    cr_expect(first_lo[0] <= 0 && first_lo[2] <= 0 && last_hi[0] >= 40 && last_hi[2] >= 40,
              "the tiles cover the floor: (%g, %g) .. (%g, %g)", (double)first_lo[0], (double)first_lo[2],
              (double)last_hi[0], (double)last_hi[2]);
    for (uint32_t tz = 0; tz < info.tiles_z; ++tz)
        for (uint32_t tx = 0; tx < info.tiles_x; ++tx) {
            cr_expect_eq(ptl_tilecache_tile(tc, tx, tz, lo, hi), 0u, "tile %u,%u flagged before any obstacle", tx, tz);
            cr_expect(lo[0] < hi[0] && lo[1] <= hi[1] && lo[2] < hi[2]);
            if (tx + 1 < info.tiles_x) { /* neighbours share their side */
                ptl_tilecache_tile(tc, tx + 1, tz, lo2, hi2);
                cr_expect_float_eq(hi[0], lo2[0], 1e-4f);
                cr_expect_float_eq(lo[2], lo2[2], 1e-4f);
            }
        }
    cr_expect_eq(ptl_tilecache_tile(tc, info.tiles_x, 0, lo, hi), 0u);
    cr_expect(lo[0] > hi[0], "a tile outside the grid has an empty box");
    cr_expect_eq(ptl_tilecache_tile(NULL, 0, 0, NULL, NULL), 0u);

    ptl_obstacle_desc o = {.kind = PTL_OBSTACLE_CYLINDER, .pos = {20, -0.5f, 20}, .size = {1, 3}};
    ptl_obstacle_ref ref;
    ptl_error err;
    cr_assert_eq(ptl_tilecache_add(tc, &o, &ref, &err), PTL_OK, "%s", err.message);
    cr_expect(flags_at(tc, 20, 20) & PTL_TILE_DIRTY, "the obstacle's tile waits for an update");
    cr_expect_eq(flags_at(tc, 1, 1), 0u, "a far tile is untouched");
    update(tc);
    cr_expect_eq(flags_at(tc, 20, 20), (uint32_t)PTL_TILE_STAMPED, "updated: stamped, no longer dirty");
    cr_expect_eq(flags_at(tc, 1, 1), 0u);
    cr_assert_eq(ptl_tilecache_remove(tc, ref, &err), PTL_OK);
    cr_expect(flags_at(tc, 20, 20) & PTL_TILE_DIRTY);
    update(tc);
    cr_expect_eq(flags_at(tc, 20, 20), 0u, "removed and updated: nothing stamped");
    ptl_tilecache_destroy(tc);
}

Test(tilecache_view, obstacles_are_drawn_on_their_shapes_and_bad_ones_not_at_all) {
    view_rec r;
    ptl_dd_sink s = sink_of(&r);
    const ptl_obstacle_desc cyl = {.kind = PTL_OBSTACLE_CYLINDER, .pos = {5, 1, -3}, .size = {0.75f, 2}};
    ptl_dd_obstacle(&s, NULL, &cyl, 0);
    cr_expect_eq(r.errors, 0u);
    cr_expect_eq(r.nonfinite, 0u);
    cr_expect_gt(r.verts[PTL_DD_TRIS], 0u);
    cr_expect_eq(r.verts[PTL_DD_TRIS] % 3, 0u);
    cr_expect_eq(r.verts[PTL_DD_LINES] % 2, 0u);
    cr_expect(r.lo[1] >= 1 - 1e-5f && r.hi[1] <= 3 + 1e-5f, "between its base and top: %g .. %g", (double)r.lo[1], (double)r.hi[1]);
    cr_expect(r.lo[0] >= 5 - 0.75f - 1e-4f && r.hi[0] <= 5 + 0.75f + 1e-4f && r.lo[2] >= -3.75f - 1e-4f && r.hi[2] <= -2.25f + 1e-4f);

    const ptl_obstacle_desc bx = {.kind = PTL_OBSTACLE_BOX, .pos = {10, 2, 7}, .size = {1.5f, 1, 0.5f}, .yaw = 0.7f};
    s = sink_of(&r);
    r.box = &bx;
    ptl_dd_obstacle(&s, NULL, &bx, 0);
    cr_expect_gt(r.verts[PTL_DD_TRIS], 0u);
    cr_expect_eq(r.outside, 0u, "%u vertices off the turned box", r.outside);
    cr_expect(r.hi[0] - r.lo[0] > 2 * 1.5f * cosf(0.7f), "the box is turned, not axis-aligned");

    const float tri_xz[6] = {0, 0, 2, 0, 0, 2};
    const ptl_obstacle_desc prism = {.kind = PTL_OBSTACLE_PRISM, .pos = {0, 0.5f, 0}, .size = {0, 1.5f}, .xz = tri_xz, .vert_count = 3};
    s = sink_of(&r);
    r.watch = PTL_DD_RGBA(1, 2, 3, 255);
    ptl_dd_obstacle(&s, NULL, &prism, r.watch);
    cr_expect_eq(r.watched, r.verts[PTL_DD_TRIS], "the sides in the caller's colour");
    cr_expect(r.lo[0] >= 0 && r.hi[0] <= 2 && r.lo[2] >= 0 && r.hi[2] <= 2 && r.lo[1] >= 0.5f && r.hi[1] <= 2 + 1e-5f);

    ptl_obstacle_desc bad[4] = {cyl, cyl, bx, prism};
    bad[0].size[0] = 0;
    bad[1].pos[1] = NAN;
    bad[2].yaw = INFINITY;
    bad[3].vert_count = 2;
    for (int i = 0; i < 4; ++i) {
        s = sink_of(&r);
        ptl_dd_obstacle(&s, NULL, &bad[i], 0);
        cr_expect_eq(r.verts[0] + r.verts[1] + r.verts[2], 0u, "malformed obstacle %d drew something", i);
    }
    ptl_dd_obstacle(&s, NULL, NULL, 0);
    ptl_dd_obstacle(NULL, NULL, &cyl, 0);
}

Test(tilecache_view, dirty_and_rebuilt_tiles_are_outlined_where_they_are) {
    ptl_tilecache* tc = floor_cache();
    ptl_tilecache_info info;
    ptl_tilecache_get_info(tc, &info);
    view_rec r;
    ptl_dd_sink s = sink_of(&r);
    ptl_dd_tilecache_tiles(&s, NULL, tc, NULL);
    cr_expect_eq(r.verts[PTL_DD_LINES], 0u, "nothing dirty, nothing rebuilt: no line");

    ptl_obstacle_desc o = {.kind = PTL_OBSTACLE_BOX, .pos = {4, 0.5f, 4}, .size = {0.5f, 1, 0.5f}};
    ptl_obstacle_ref ref;
    ptl_error err;
    cr_assert_eq(ptl_tilecache_add(tc, &o, &ref, &err), PTL_OK, "%s", err.message);
    ptl_dd_style st = ptl_dd_style_defaults();
    s = sink_of(&r);
    r.watch = ptl_dd_default_color(PTL_DD_COL_TILE_DIRTY);
    ptl_dd_tilecache_tiles(&s, &st, tc, NULL);
    cr_expect_gt(r.watched, 0u, "the dirty tiles outlined");
    cr_expect_eq(r.watched, r.verts[PTL_DD_LINES]);
    cr_expect(r.hi[0] < 20 && r.hi[2] < 20, "only the tiles near the obstacle: up to (%g, %g)", (double)r.hi[0], (double)r.hi[2]);
    cr_expect(r.lo[0] <= 4 && r.hi[0] >= 4 && r.lo[2] <= 4 && r.hi[2] >= 4);

    update(tc);
    uint8_t* rebuilt = calloc((size_t)info.tiles_x * info.tiles_z, 1);
    rebuilt[info.tiles_x + 1] = 1; /* tile (1, 1) */
    s = sink_of(&r);
    r.watch = ptl_dd_default_color(PTL_DD_COL_TILE_REBUILT);
    ptl_dd_tilecache_tiles(&s, &st, tc, rebuilt);
    cr_expect_eq(r.watched, 24u, "one tile's box: two rectangles and four posts");
    float lo[3], hi[3];
    ptl_tilecache_tile(tc, 1, 1, lo, hi);
    cr_expect(r.lo[0] >= lo[0] - 1e-4f && r.hi[0] <= hi[0] + 1e-4f && r.lo[2] >= lo[2] - 1e-4f && r.hi[2] <= hi[2] + 1e-4f);
    free(rebuilt);
    ptl_dd_tilecache_tiles(&s, &st, NULL, NULL);
    ptl_tilecache_destroy(tc);
}
