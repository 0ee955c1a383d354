/* The live navmesh under load (tests/live_stress.h). Every query thread loops: begin (pin the
   current version), locate random points, find paths and raycasts between them, and check each
   answer against the pinned version (every path point and hit point lies on that version's
   navmesh: a locate of it finds a cell within 0.5 m of height), keep a reference to a cell, end;
   a reference kept from an earlier version must resolve as stale. The obstacle thread adds, moves
   and removes cylinders and boxes through a tile cache and publishes every update. */
#include "live_stress.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <portolan/gen.h>
#include <portolan/live.h>
#include <portolan/tilecache.h>

typedef struct shared {
    ptl_live* live;
    ptl_tilecache* tc;
    float bmin[3], bmax[3];
    atomic_bool stop;
    atomic_uint_fast64_t answers, invalid, publishes, versions, stale_ok;
    pthread_mutex_t err_lock;
    char first_error[256];
} shared;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rng(uint64_t* s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}
static float unit(uint64_t* s) { return (float)(rng(s) & 0xffffff) / (float)0x1000000; }

static void fail(shared* sh, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(shared* sh, const char* fmt, ...) {
    atomic_fetch_add(&sh->invalid, 1);
    pthread_mutex_lock(&sh->err_lock);
    if (!sh->first_error[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(sh->first_error, sizeof sh->first_error, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&sh->err_lock);
}

/* Is p on the pinned navmesh (a cell under it within 0.5 m of height)? */
static bool on_mesh(ptl_query* q, const float p[3]) {
    const float ext[3] = {0.05f, 0.5f, 0.05f};
    ptl_location loc;
    return ptl_query_locate(q, p, ext, &loc) == PTL_OK && loc.cell != PTL_NONE;
}

static void* query_thread(void* user) {
    shared* sh = user;
    ptl_live_query* lq;
    ptl_error err;
    if (ptl_live_query_create(sh->live, NULL, &lq, &err) < 0) {
        fail(sh, "ptl_live_query_create: %.200s", err.message);
        return NULL;
    }
    uint64_t seed = (uint64_t)(uintptr_t)&lq, last_version = 0;
    ptl_live_ref kept = {PTL_NONE, 0};
    uint64_t kept_version = 0;
    float pts[3 * 2048];
    while (!atomic_load(&sh->stop)) {
        uint64_t version;
        ptl_query* q = ptl_live_query_begin(lq, &version, &err);
        if (!q) {
            fail(sh, "ptl_live_query_begin: %.200s", err.message);
            break;
        }
        if (version != last_version) atomic_fetch_add(&sh->versions, 1), last_version = version;
        ptl_navmesh_info info;
        ptl_navmesh_get_info(ptl_live_query_navmesh(lq), &info);
        const uint32_t cell_count = info.cell_count;
        { /* a reader that is not a query: a second pin, of whatever version is current now */
            const ptl_navmesh* nm = ptl_live_acquire(sh->live, NULL);
            ptl_navmesh_info now;
            ptl_navmesh_get_info(nm, &now);
            if (now.cell_count == 0) fail(sh, "version %llu: an acquired navmesh has no cell", (unsigned long long)version);
            ptl_live_release(sh->live, nm);
        }
        if (kept.salt && kept_version != version) { /* a reference from an older version */
            uint32_t c;
            if (ptl_live_query_resolve(lq, kept, &c) == PTL_ERR_STALE) atomic_fetch_add(&sh->stale_ok, 1);
            else fail(sh, "a reference of version %llu was not stale under version %llu", (unsigned long long)kept_version, (unsigned long long)version);
        }
        for (int k = 0; k < 8; ++k) {
            float a[3], b[3];
            for (int i = 0; i < 3; ++i) {
                a[i] = sh->bmin[i] + (sh->bmax[i] - sh->bmin[i]) * unit(&seed);
                b[i] = sh->bmin[i] + (sh->bmax[i] - sh->bmin[i]) * unit(&seed);
            }
            const float ext[3] = {2, 4, 2};
            ptl_location la;
            const ptl_status ls = ptl_query_locate(q, a, ext, &la);
            atomic_fetch_add(&sh->answers, 1);
            if (ls == PTL_OK && (la.cell >= cell_count || !on_mesh(q, la.point)))
                fail(sh, "version %llu: a located point (%g, %g) is off the mesh", (unsigned long long)version, (double)la.point[0], (double)la.point[2]);
            if (ls == PTL_OK && k == 0) kept = ptl_live_query_ref(lq, la.cell), kept_version = version;
            ptl_path_request req;
            memset(&req, 0, sizeof req);
            memcpy(req.start, a, sizeof req.start);
            memcpy(req.goal, b, sizeof req.goal);
            ptl_path_result res = {.points = pts, .point_capacity = 2048};
            const ptl_status ps = ptl_query_find_path(q, &req, &res);
            atomic_fetch_add(&sh->answers, 1);
            if (ps >= 0 && res.found)
                for (uint32_t i = 0; i < res.point_count; ++i)
                    if (!on_mesh(q, &pts[3 * i])) {
                        fail(sh, "version %llu: a path point (%g, %g) is off the mesh", (unsigned long long)version, (double)pts[3 * i], (double)pts[3 * i + 2]);
                        break;
                    }
            ptl_raycast_hit hit;
            if (ptl_query_raycast(q, a, b, ext, &hit) == PTL_OK) {
                atomic_fetch_add(&sh->answers, 1);
                if (!(hit.t >= 0 && hit.t <= 1) || !isfinite(hit.point[0]) || !isfinite(hit.point[2]))
                    fail(sh, "version %llu: a raycast fraction or point out of range (t %g, x %g)", (unsigned long long)version, (double)hit.t, (double)hit.point[0]);
            }
        }
        ptl_live_query_end(lq);
    }
    ptl_live_query_destroy(lq);
    return NULL;
}

static void* obstacle_thread(void* user) {
    shared* sh = user;
    uint64_t seed = 7;
    ptl_obstacle_ref refs[16];
    int live = 0;
    ptl_error err;
    while (!atomic_load(&sh->stop)) {
        const uint32_t op = (uint32_t)(rng(&seed) % 3);
        ptl_obstacle_desc d;
        memset(&d, 0, sizeof d);
        d.pos[0] = sh->bmin[0] + (sh->bmax[0] - sh->bmin[0]) * unit(&seed);
        d.pos[1] = sh->bmin[1] + 3.0f * (float)(rng(&seed) % 3);
        d.pos[2] = sh->bmin[2] + (sh->bmax[2] - sh->bmin[2]) * unit(&seed);
        if (rng(&seed) & 1) d.kind = PTL_OBSTACLE_CYLINDER, d.size[0] = 0.5f + unit(&seed), d.size[1] = 2.5f;
        else d.kind = PTL_OBSTACLE_BOX, d.size[0] = 1, d.size[1] = 1.5f, d.size[2] = 0.5f, d.yaw = 3.0f * unit(&seed);
        ptl_status st = PTL_OK;
        if ((op == 0 || live == 0) && live < 16) st = ptl_tilecache_add(sh->tc, &d, &refs[live++], &err);
        else if (op == 1) st = ptl_tilecache_move(sh->tc, refs[rng(&seed) % (uint64_t)live], &d, &err);
        else {
            const int i = (int)(rng(&seed) % (uint64_t)live);
            st = ptl_tilecache_remove(sh->tc, refs[i], &err);
            refs[i] = refs[--live];
        }
        bool done = false;
        if (st >= 0) st = ptl_tilecache_update(sh->tc, 0, &done, &err);
        const void* blob;
        size_t size;
        ptl_tilecache_blob(sh->tc, &blob, &size);
        if (st >= 0) st = ptl_live_publish(sh->live, blob, size, &err);
        if (st < 0) {
            fail(sh, "obstacle thread: %.200s", err.message);
            break;
        }
        atomic_fetch_add(&sh->publishes, 1);
    }
    return NULL;
}

int live_stress_run(int threads, double seconds, live_stress_result* out) {
    memset(out, 0, sizeof *out);
    static shared sh;
    memset(&sh, 0, sizeof sh);
    pthread_mutex_init(&sh.err_lock, NULL);
    ptl_error err;
    ptl_scene_desc sd = {.kind = PTL_SCENE_BUILDING, .size = 40, .storeys = 3, .seed = 1};
    ptl_trimesh m;
    if (ptl_scene_generate(&sd, &m, &err) < 0) return snprintf(out->first_error, sizeof out->first_error, "%.200s", err.message), -1;
    ptl_bake_desc bd = ptl_bake_desc_defaults();
    bd.tile_size = 32;
    void* cache = NULL;
    size_t size = 0;
    ptl_status st = ptl_tilecache_bake(&m, &bd, &cache, &size, &err);
    if (st >= 0) st = ptl_tilecache_create(cache, size, NULL, &sh.tc, &err);
    ptl_blob_free(cache, size, NULL);
    const void* blob;
    size_t bsize;
    if (st >= 0) {
        ptl_tilecache_blob(sh.tc, &blob, &bsize);
        st = ptl_live_create(blob, bsize, NULL, &sh.live, &err);
    }
    memcpy(sh.bmin, m.bmin, sizeof sh.bmin);
    memcpy(sh.bmax, m.bmax, sizeof sh.bmax);
    ptl_trimesh_free(&m);
    if (st < 0) {
        snprintf(out->first_error, sizeof out->first_error, "%.200s", err.message);
        ptl_tilecache_destroy(sh.tc);
        return -1;
    }
    pthread_t q[16], w;
    if (threads > 16) threads = 16;
    for (int i = 0; i < threads; ++i) pthread_create(&q[i], NULL, query_thread, &sh);
    pthread_create(&w, NULL, obstacle_thread, &sh);
    const double t_end = now_s() + seconds;
    while (now_s() < t_end && !atomic_load(&sh.invalid)) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    atomic_store(&sh.stop, true);
    for (int i = 0; i < threads; ++i) pthread_join(q[i], NULL);
    pthread_join(w, NULL);
    out->answers = atomic_load(&sh.answers), out->invalid = atomic_load(&sh.invalid);
    out->publishes = atomic_load(&sh.publishes), out->versions_seen = atomic_load(&sh.versions);
    out->stale_ok = atomic_load(&sh.stale_ok);
    memcpy(out->first_error, sh.first_error, sizeof out->first_error);
    ptl_live_destroy(sh.live);
    ptl_tilecache_destroy(sh.tc);
    pthread_mutex_destroy(&sh.err_lock);
    return 0;
}
