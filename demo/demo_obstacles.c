/* The demo's obstacle tool (key I): dynamic obstacles on the 3D scene through a tile cache
   (<portolan/tilecache.h>). The first use bakes the scene's cache (tiles of DEMO_OBSTACLE_TILE
   columns) and installs its navmesh; then a click drops a cylinder (shift: a turned box), a drag
   moves one, Del removes the selected one. Every change updates the cache at once (no budget), and
   its blob becomes the scene's navmesh; the path is planned again. debugdraw draws the obstacles,
   the tiles waiting for an update and the tiles the last update rebuilt. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"

static double now_ms(void) { return (double)SDL_GetPerformanceCounter() * 1000.0 / (double)SDL_GetPerformanceFrequency(); }

void demo_obstacles_free(demo_obstacles* o) {
    ptl_tilecache_destroy(o->tc);
    free(o->rebuilt);
    memset(o, 0, sizeof *o);
    o->selected = -1;
}

/* The cache's navmesh as the scene's (a copy: the cache owns its blob until its next update). */
static bool install(demo_scene* s) {
    const void* blob;
    size_t size;
    ptl_tilecache_blob(s->obs.tc, &blob, &size);
    void* copy = malloc(size ? size : 1);
    if (!copy) return false;
    memcpy(copy, blob, size);
    ptl_query_destroy(s->q);
    ptl_navmesh_destroy(s->nm);
    s->q = NULL, s->nm = NULL;
    ptl_blob_free(s->blob, s->blob_size, NULL);
    s->blob = copy, s->blob_size = size;
    return demo_scene_install(s);
}

/* Updates the cache (the tiles waiting are the ones it rebuilds: kept for drawing) and installs
   its navmesh. */
static void update(demo_scene* s) {
    demo_obstacles* o = &s->obs;
    o->rebuilt_count = 0;
    for (uint32_t z = 0; z < o->tiles_z; ++z)
        for (uint32_t x = 0; x < o->tiles_x; ++x) {
            const bool dirty = (ptl_tilecache_tile(o->tc, x, z, NULL, NULL) & PTL_TILE_DIRTY) != 0;
            o->rebuilt[z * o->tiles_x + x] = dirty;
            o->rebuilt_count += dirty;
        }
    ptl_error err;
    bool done = false;
    const double t0 = now_ms();
    if (ptl_tilecache_update(o->tc, 0, &done, &err) < 0 || !done) {
        fprintf(stderr, "portolan-demo: obstacle update failed: %s\n", err.message);
        return;
    }
    o->update_ms = now_ms() - t0;
    ptl_tilecache_get_info(o->tc, &o->info);
    if (!install(s)) return;
    printf("portolan-demo: obstacles %u: navmesh rebuilt in %.1f ms (%u tiles: stamp %.1f, layers %.1f, contours %.1f, "
           "decompose %.1f, merge %.1f): %u cells, walkable %.0f m2\n",
           o->info.obstacles, o->update_ms, o->rebuilt_count, o->info.ms_stamp, o->info.ms_layers, o->info.ms_contours,
           o->info.ms_decompose, o->info.ms_merge, s->info.cell_count, s->info.walkable_area);
    fflush(stdout);
}

bool demo_obstacles_enable(demo_scene* s) {
    demo_obstacles* o = &s->obs;
    if (o->tc) return true;
    if (!s->is3d || SDL_AtomicGet(&s->state) != BAKE_DONE || !s->nm) {
        fprintf(stderr, "portolan-demo: the obstacle tool needs a baked 3D scene\n");
        return false;
    }
    /* the scene's bake, tiled, without the debug intermediates, the progress or the GPU */
    ptl_bake_desc d = s->desc;
    d.debug = NULL, d.progress = NULL, d.progress_user = NULL, d.closest_backend = NULL;
    d.tile_size = DEMO_OBSTACLE_TILE;
    void* cache = NULL;
    size_t size = 0;
    ptl_error err;
    const double t0 = now_ms();
    if (ptl_tilecache_bake(&s->mesh, &d, &cache, &size, &err) < 0 ||
        ptl_tilecache_create(cache, size, NULL, &o->tc, &err) < 0) {
        fprintf(stderr, "portolan-demo: no tile cache: %s\n", err.message);
        ptl_blob_free(cache, size, NULL);
        o->tc = NULL;
        return false;
    }
    ptl_blob_free(cache, size, NULL);
    ptl_tilecache_get_info(o->tc, &o->info);
    o->tiles_x = o->info.tiles_x, o->tiles_z = o->info.tiles_z;
    o->rebuilt = calloc((size_t)o->tiles_x * o->tiles_z + 1, 1);
    o->selected = -1;
    if (!o->rebuilt || !install(s)) {
        demo_obstacles_free(o);
        return false;
    }
    printf("portolan-demo: tile cache of %u x %u tiles (%u columns each, %.0f KB) baked in %.1f ms: %u cells\n", o->tiles_x,
           o->tiles_z, o->info.tile_size, (double)o->info.cache_bytes / 1024.0, now_ms() - t0, s->info.cell_count);
    fflush(stdout);
    return true;
}

/* A cylinder of radius 0.6 m and height 2 m standing on p, a box 3 x 2 x 1 m turned by 30
   degrees, or an area volume: a 5 x 5 m box turned by 17 degrees from 1 m below p to 1 m above
   whose floor gets area DEMO_VOLUME_AREA (the K key costs or excludes it). */
static ptl_obstacle_desc shape_at(const float p[3], int shape) {
    ptl_obstacle_desc d;
    memset(&d, 0, sizeof d);
    if (shape == DEMO_SHAPE_AREA) {
        d.kind = PTL_OBSTACLE_BOX;
        memcpy(d.pos, p, sizeof d.pos);
        d.size[0] = 2.5f, d.size[1] = 1.0f, d.size[2] = 2.5f;
        d.yaw = 0.3f;
        d.marks_area = true, d.area = DEMO_VOLUME_AREA;
    } else if (shape == DEMO_SHAPE_BOX) {
        d.kind = PTL_OBSTACLE_BOX;
        d.pos[0] = p[0], d.pos[1] = p[1] + 1.0f, d.pos[2] = p[2];
        d.size[0] = 1.5f, d.size[1] = 1.0f, d.size[2] = 0.5f;
        d.yaw = 0.5235988f;
    } else {
        d.kind = PTL_OBSTACLE_CYLINDER;
        memcpy(d.pos, p, sizeof d.pos);
        d.size[0] = 0.6f, d.size[1] = 2.0f;
    }
    return d;
}

static int shape_of(const ptl_obstacle_desc* d) {
    return d->marks_area ? DEMO_SHAPE_AREA : d->kind == PTL_OBSTACLE_BOX ? DEMO_SHAPE_BOX : DEMO_SHAPE_CYLINDER;
}

bool demo_obstacles_add(demo_scene* s, const float p[3], int shape) {
    demo_obstacles* o = &s->obs;
    if (!demo_obstacles_enable(s)) return false;
    if (o->count == DEMO_MAX_OBSTACLES) {
        fprintf(stderr, "portolan-demo: at most %d obstacles in the demo\n", DEMO_MAX_OBSTACLES);
        return false;
    }
    ptl_obstacle_desc d = shape_at(p, shape);
    ptl_error err;
    if (ptl_tilecache_add(o->tc, &d, &o->ref[o->count], &err) < 0) {
        fprintf(stderr, "portolan-demo: obstacle refused: %s\n", err.message);
        return false;
    }
    o->desc[o->count] = d;
    o->selected = (int)o->count++;
    update(s);
    return true;
}

int demo_obstacles_at(const demo_scene* s, const float p[3]) {
    const demo_obstacles* o = &s->obs;
    for (int i = (int)o->count - 1; i >= 0; --i) { /* the last dropped first */
        const ptl_obstacle_desc* d = &o->desc[i];
        const float dx = p[0] - d->pos[0], dz = p[2] - d->pos[2];
        if (d->kind == PTL_OBSTACLE_CYLINDER && dx * dx + dz * dz <= d->size[0] * d->size[0]) return i;
        if (d->kind == PTL_OBSTACLE_BOX) {
            const float c = cosf(d->yaw), sn = sinf(d->yaw); /* into the box's frame: the inverse turn */
            const float lx = dx * c - dz * sn, lz = dx * sn + dz * c;
            if (fabsf(lx) <= d->size[0] && fabsf(lz) <= d->size[2]) return i;
        }
    }
    return -1;
}

void demo_obstacles_move(demo_scene* s, int i, const float p[3]) {
    demo_obstacles* o = &s->obs;
    if (!o->tc || i < 0 || i >= (int)o->count) return;
    ptl_obstacle_desc d = shape_at(p, shape_of(&o->desc[i]));
    ptl_error err;
    if (ptl_tilecache_move(o->tc, o->ref[i], &d, &err) < 0) {
        fprintf(stderr, "portolan-demo: obstacle not moved: %s\n", err.message);
        return;
    }
    o->desc[i] = d;
    update(s);
}

void demo_obstacles_remove(demo_scene* s, int i) {
    demo_obstacles* o = &s->obs;
    if (!o->tc || i < 0 || i >= (int)o->count) return;
    ptl_error err;
    if (ptl_tilecache_remove(o->tc, o->ref[i], &err) < 0) {
        fprintf(stderr, "portolan-demo: obstacle not removed: %s\n", err.message);
        return;
    }
    for (uint32_t k = (uint32_t)i; k + 1 < o->count; ++k) o->desc[k] = o->desc[k + 1], o->ref[k] = o->ref[k + 1];
    o->count--;
    o->selected = -1;
    update(s);
}

void demo_obstacles_draw(const demo_scene* s, const ptl_dd_sink* k) {
    const demo_obstacles* o = &s->obs;
    if (!o->tc) return;
    for (uint32_t i = 0; i < o->count; ++i)
        ptl_dd_obstacle(k, NULL, &o->desc[i], (int)i == o->selected ? PTL_DD_RGBA(255, 220, 60, 190) : 0);
}

void demo_obstacles_draw_tiles(const demo_scene* s, const ptl_dd_sink* k) {
    if (s->obs.tc) ptl_dd_tilecache_tiles(k, NULL, s->obs.tc, s->obs.rebuilt);
}
