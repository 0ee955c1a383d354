/* The demo's scene: the input (a file or the built-in generated building), the bake on a thread of
   its own with its intermediates kept for drawing, the navmesh, and the path tool's queries. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demo.h"

static bool ends_with(const char* s, const char* ext) {
    size_t l = strlen(s), e = strlen(ext);
    return l >= e && strcmp(s + l - e, ext) == 0;
}

/* The file name without its folders: what the panel and the screenshots show (a full path would
   name the machine's folders in every published picture). */
static const char* base_name(const char* path) {
    const char* slash = strrchr(path, '/');
#if defined(_WIN32)
    const char* back = strrchr(path, '\\');
    if (back && (!slash || back > slash)) slash = back;
#endif
    return slash && slash[1] ? slash + 1 : path;
}

bool demo_scene_load(demo_scene* s, const char* path) {
    memset(s, 0, sizeof *s);
    SDL_AtomicSet(&s->state, BAKE_IDLE);
    s->path_status = PTL_ERR_NOT_FOUND;
    ptl_error err;
    if (!path) {
        ptl_scene_desc d = {.kind = PTL_SCENE_BUILDING, .size = 40, .storeys = 3, .seed = 1};
        if (ptl_scene_generate(&d, &s->mesh, &err) < 0) {
            fprintf(stderr, "portolan-demo: %s\n", err.message);
            return false;
        }
        s->is3d = s->builtin = true;
        snprintf(s->name, sizeof s->name, "built-in: generated building (40 m, 3 storeys, seed 1)");
    } else if (ends_with(path, ".obj")) {
        if (ptl_obj_load(path, NULL, &s->mesh, &err) < 0) {
            fprintf(stderr, "portolan-demo: %s\n", err.message);
            return false;
        }
        s->is3d = true;
        snprintf(s->name, sizeof s->name, "%s", base_name(path));
    } else if (ends_with(path, ".map") || ends_with(path, ".poly") || ends_with(path, ".mesh")) {
        if (ptl_shape_load(path, NULL, &s->shape, &err) < 0) {
            fprintf(stderr, "portolan-demo: %s\n", err.message);
            return false;
        }
        snprintf(s->name, sizeof s->name, "%s", base_name(path));
    } else {
        fprintf(stderr, "portolan-demo: %s: expected .obj, .map, .poly or .mesh\n", path);
        return false;
    }
    if (s->is3d) {
        /* ceilings: triangles whose front faces down (more than 30 degrees below the horizontal) */
        s->open_mesh = s->mesh;
        s->open_mesh.tris = malloc((size_t)s->mesh.tri_count * 3 * sizeof(uint32_t) + 1);
        s->open_mesh.tri_count = 0;
        if (!s->open_mesh.tris) return false;
        for (uint32_t t = 0; t < s->mesh.tri_count; ++t) {
            const uint32_t* ix = &s->mesh.tris[3 * t];
            const float *p0 = &s->mesh.verts[3 * ix[0]], *p1 = &s->mesh.verts[3 * ix[1]], *p2 = &s->mesh.verts[3 * ix[2]];
            float e0[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, e1[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
            float n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]};
            float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (len > 0 && n[1] / len < -0.5f) continue;
            memcpy(&s->open_mesh.tris[3 * s->open_mesh.tri_count++], ix, 3 * sizeof(uint32_t));
        }
        memcpy(s->bmin, s->mesh.bmin, sizeof s->bmin);
        memcpy(s->bmax, s->mesh.bmax, sizeof s->bmax);
    } else {
        s->bmin[0] = s->bmin[2] = INFINITY, s->bmax[0] = s->bmax[2] = -INFINITY;
        for (uint32_t i = 0; i < s->shape.vert_count; ++i) {
            float x = (float)s->shape.xy[2 * i], z = (float)s->shape.xy[2 * i + 1];
            s->bmin[0] = fminf(s->bmin[0], x), s->bmax[0] = fmaxf(s->bmax[0], x);
            s->bmin[2] = fminf(s->bmin[2], z), s->bmax[2] = fmaxf(s->bmax[2], z);
        }
        s->bmin[1] = s->bmax[1] = 0;
    }
    if (ptl_bake_debug_create(NULL, &s->dbg) < 0) {
        fprintf(stderr, "portolan-demo: out of memory\n");
        return false;
    }
    return true;
}

/* FNV-1a over the blob: the log line that lets a test compare a GPU bake's bytes with the CPU's. */
static uint64_t blob_hash(const void* blob, size_t size) {
    const unsigned char* b = blob;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* ptl_bake_desc.progress: runs on the bake thread; the main thread reads the two atomics. */
static void on_progress(void* user, const char* stage, float fraction) {
    demo_scene* s = user;
    SDL_AtomicSetPtr(&s->progress_stage, (void*)stage);
    SDL_AtomicSet(&s->progress_milli, (int)lroundf(fraction * 1000.0f));
}

static int bake_thread(void* user) {
    demo_scene* s = user;
    Uint64 t0 = SDL_GetPerformanceCounter();
    ptl_status st = s->is3d ? ptl_bake_trimesh(&s->mesh, &s->desc, &s->blob, &s->blob_size, &s->stats, &s->err)
                            : ptl_bake_shape(&s->shape, &s->desc, &s->blob, &s->blob_size, &s->stats, &s->err);
    s->bake_wall_ms = (double)(SDL_GetPerformanceCounter() - t0) * 1000.0 / (double)SDL_GetPerformanceFrequency();
    SDL_AtomicSet(&s->state, st < 0 ? BAKE_FAILED : BAKE_DONE);
    return 0;
}

bool demo_scene_bake_start(demo_scene* s) {
    if (SDL_AtomicGet(&s->state) == BAKE_RUNNING) return false;
    ptl_query_destroy(s->q);
    ptl_navmesh_destroy(s->nm);
    ptl_blob_free(s->blob, s->blob_size, NULL);
    s->q = NULL, s->nm = NULL, s->blob = NULL, s->blob_size = 0;
    const bool tool_on = s->obs.on;
    demo_obstacles_free(&s->obs); /* a new bake: a new cache once the tool is used again */
    s->obs.on = tool_on;
    s->corridor_count = 0;
    memset(&s->path, 0, sizeof s->path);
    memset(&s->desc, 0, sizeof s->desc);
    s->desc.debug = s->dbg; /* the stages' intermediates, for drawing */
    s->desc.progress = on_progress;
    s->desc.progress_user = s;
    if (s->area_name_count) s->desc.area_names = s->area_names, s->desc.area_name_count = s->area_name_count;
    s->baked_on_gpu = s->use_gpu && s->gpu;
    if (s->baked_on_gpu) s->desc.closest_backend = ptl_gpu_backend(s->gpu);
    SDL_AtomicSet(&s->progress_milli, 0);
    SDL_AtomicSetPtr(&s->progress_stage, NULL);
    s->last_stage_printed = NULL;
    s->progress_shown = false;
    SDL_AtomicSet(&s->state, BAKE_RUNNING);
    if (s->baked_on_gpu) printf("portolan-demo: baking %s, the decomposition's search on the GPU (%s)\n", s->name, s->gpu_note);
    else printf("portolan-demo: baking %s\n", s->name);
    fflush(stdout);
    s->thread = SDL_CreateThread(bake_thread, "ptl-bake", s);
    if (!s->thread) {
        fprintf(stderr, "portolan-demo: cannot start the bake thread: %s\n", SDL_GetError());
        SDL_AtomicSet(&s->state, BAKE_FAILED);
        return false;
    }
    return true;
}

float demo_scene_progress(demo_scene* s, const char** stage) {
    const char* name = SDL_AtomicGetPtr(&s->progress_stage);
    if (stage) *stage = name ? name : "started";
    return (float)SDL_AtomicGet(&s->progress_milli) / 1000.0f;
}

/* The terminal's progress bar: one line rewritten in place on a terminal, a line per stage elsewhere. */
static void print_progress(demo_scene* s, bool final) {
    const char* name;
    float f = demo_scene_progress(s, &name);
    if (name == s->last_stage_printed && !final && s->progress_shown) return;
    s->progress_shown = true;
    s->last_stage_printed = name;
    char bar[33];
    int n = (int)lroundf(f * 32);
    for (int i = 0; i < 32; ++i) bar[i] = i < n ? '#' : '.';
    bar[32] = '\0';
    bool tty = isatty(fileno(stdout));
    printf("%sbake [%s] %3d%% %-10s%s", tty ? "\r" : "", bar, (int)lroundf(f * 100),
           name, tty && !final ? "" : "\n");
    fflush(stdout);
}

bool demo_scene_poll(demo_scene* s) {
    int state = SDL_AtomicGet(&s->state);
    if (state == BAKE_IDLE) return false;
    if (!s->thread) return false;
    if (state == BAKE_RUNNING) {
        print_progress(s, false);
        return false;
    }
    SDL_WaitThread(s->thread, NULL);
    s->thread = NULL;
    print_progress(s, true);
    if (state == BAKE_FAILED) {
        fprintf(stderr, "portolan-demo: bake failed: %s\n", s->err.message);
        return false;
    }
    if (!demo_scene_install(s)) {
        SDL_AtomicSet(&s->state, BAKE_FAILED);
        return false;
    }
    const ptl_bake_stats* b = &s->stats;
    printf("portolan-demo: baked in %.1f ms (voxelize %.1f, filter %.1f, layers %.1f, contours %.1f, decompose %.1f, "
           "merge %.1f, landmarks %.1f): %u cells, %u portals, %u links, %u layers, %zu bytes (fnv1a %016llx), decomposed on the %s\n",
           b->ms_total, b->ms_voxelize, b->ms_filter, b->ms_layers, b->ms_contours, b->ms_decompose, b->ms_merge,
           b->ms_landmarks, s->info.cell_count, s->info.portal_count, s->info.link_count, s->info.layer_count,
           s->blob_size, (unsigned long long)blob_hash(s->blob, s->blob_size), s->baked_on_gpu ? "GPU" : "CPU");
    fflush(stdout);
    if (!(s->has_start && s->has_goal)) demo_scene_default_path(s);
    return true;
}

bool demo_scene_install(demo_scene* s) {
    ptl_query_destroy(s->q);
    ptl_navmesh_destroy(s->nm);
    s->q = NULL, s->nm = NULL;
    s->corridor_count = 0;
    ptl_error err;
    if (ptl_navmesh_create(s->blob, s->blob_size, NULL, &s->nm, &err) < 0) {
        fprintf(stderr, "portolan-demo: the baked navmesh does not load: %s\n", err.message);
        return false;
    }
    ptl_navmesh_get_info(s->nm, &s->info);
    if (s->builtin) {
        /* One off-mesh link to show them (key 0): a slow lift from the street to the top floor,
           the default path's ends, so costly that paths never take it. */
        ptl_offmesh_desc lift = {.start = {23.8f, 0.2f, 37.9f}, .end = {34.5f, 6.2f, 20.2f}, .radius = 1, .bidir = true,
                                 .cost = 1000};
        if (ptl_navmesh_add_offmesh(s->nm, &lift, NULL, &err) < 0)
            fprintf(stderr, "portolan-demo: note: no off-mesh link: %s\n", err.message);
    }
    if (ptl_query_create(s->nm, NULL, &s->q) < 0) {
        fprintf(stderr, "portolan-demo: out of memory for the query\n");
        ptl_navmesh_destroy(s->nm);
        s->nm = NULL;
        return false;
    }
    s->area_max = 0;
    for (uint32_t c = 0; c < s->info.cell_count; ++c) {
        ptl_cell_view v;
        if (ptl_navmesh_get_cell(s->nm, c, &v) == PTL_OK && v.area > s->area_max) s->area_max = v.area;
    }
    demo_scene_apply_area_filter(s); /* plans the path */
    return true;
}

void demo_scene_apply_area_filter(demo_scene* s) {
    if (!s->q) return;
    ptl_query_filter f = ptl_query_filter_defaults();
    if (s->area_max > 0 && s->area_filter == 1) f.area_cost[s->area_max] = 10;
    if (s->area_max > 0 && s->area_filter == 2) f.exclude_mask = (uint64_t)1 << s->area_max;
    (void)ptl_query_set_filter(s->q, &f);
    if (s->has_start && s->has_goal) demo_scene_update_path(s);
}

static double now_us(void) {
    return (double)SDL_GetPerformanceCounter() * 1e6 / (double)SDL_GetPerformanceFrequency();
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* Layer M's points: DEMO_RANDOM_POINTS from a fixed seed, in the circle around the start when one is set. */
static void update_randoms(demo_scene* s) {
    s->random_count = 0;
    s->random_radius = s->has_start ? DEMO_RANDOM_RADIUS : 0;
    if (!s->q) return;
    uint64_t state = 0x5eed;
    const float ext[3] = {2, 4, 2};
    for (uint32_t i = 0; i < DEMO_RANDOM_POINTS; ++i) {
        ptl_location l;
        ptl_status st = s->has_start ? ptl_query_random_point_in_circle(s->q, s->start, ext, DEMO_RANDOM_RADIUS, &state, &l)
                                     : ptl_query_random_point(s->q, &state, &l);
        if (st != PTL_OK) break;
        memcpy(&s->randoms[3 * s->random_count++], l.point, sizeof l.point);
    }
}

/* The path again, by slices of DEMO_SLICE expansions a frame's budget would allow: its steps and
   whether it is the one-call path (status, length, points). */
static void update_sliced(demo_scene* s, const ptl_path_request* req, ptl_status whole_st, const ptl_path_result* whole) {
    static float pts[3 * DEMO_MAX_PATH];
    s->slice_steps = 0, s->slice_same = false;
    if (ptl_query_path_begin(s->q, req) < 0) return;
    uint32_t done = 0, steps = 0, total = 0;
    ptl_status st;
    while ((st = ptl_query_path_step(s->q, DEMO_SLICE, &done)) == PTL_IN_PROGRESS) ++steps, total += done;
    if (total + done > 0) ++steps;
    ptl_path_result r = {.points = pts, .point_capacity = DEMO_MAX_PATH};
    ptl_status fs = ptl_query_path_finish(s->q, &r);
    s->slice_steps = steps;
    s->slice_same = st == PTL_OK && fs == whole_st && r.length == whole->length && r.point_count == whole->point_count &&
                    memcmp(pts, s->points, 3 * sizeof(float) * r.point_count) == 0;
}

void demo_scene_update_path(demo_scene* s) {
    update_randoms(s);
    s->corridor_count = 0;
    memset(&s->path, 0, sizeof s->path);
    s->path_status = PTL_ERR_NOT_FOUND;
    if (!s->q || !s->has_start || !s->has_goal) return;
    const float ext[3] = {2, 4, 2};
    if (ptl_query_locate(s->q, s->start_click, ext, &s->start_loc) < 0) s->start_loc.cell = PTL_NONE;
    if (ptl_query_locate(s->q, s->goal_click, ext, &s->goal_loc) < 0) s->goal_loc.cell = PTL_NONE;
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, s->start, sizeof req.start);
    memcpy(req.goal, s->goal, sizeof req.goal);
    req.radius = s->radius;
    req.mode = s->mode;
    req.follow_surface = true; /* drawn on the ground (radius 0; a disc's path has its own points) */
    /* the path's own cells (radius 0; across the lift too), else walked from the points below */
    ptl_path_result res = {.points = s->points, .point_capacity = DEMO_MAX_PATH, .turns = s->turns,
                           .turn_capacity = DEMO_MAX_TURNS, .cells = s->corridor, .cell_capacity = DEMO_MAX_CORRIDOR};
    ptl_status st = ptl_query_find_path(s->q, &req, &res);
    s->radius_status = req.radius > 0 && st < 0 ? st : PTL_OK;
    s->radius_used = req.radius;
    s->path = res;
    s->path_status = st;
    /* the everyday queries at the start: a raycast toward the goal and the nearest wall */
    memset(&s->ray, 0, sizeof s->ray);
    s->ray_status = ptl_query_raycast(s->q, s->start, s->goal, ext, &s->ray);
    if (ptl_query_wall_distance(s->q, s->start, ext, 10, &s->wall) < 0) s->wall.found = false;
    memset(&s->move, 0, sizeof s->move);
    s->move_status = ptl_query_move_along_surface(s->q, s->start, s->goal, ext, &s->move);
    /* the query's time: the median of repeated runs (up to 31 or 30 ms) */
    double t[31];
    int n = 0;
    double t_end = now_us() + 30000;
    while (n < 31 && (n < 3 || now_us() < t_end)) {
        ptl_path_result r2 = {.points = s->points, .point_capacity = DEMO_MAX_PATH};
        double t0 = now_us();
        ptl_query_find_path(s->q, &req, &r2);
        t[n++] = now_us() - t0;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    s->query_us = t[n / 2];
    update_sliced(s, &req, st, &res);
    if (st >= 0 && res.found && res.cell_count > 0)
        s->corridor_count = res.cell_count;
    else if (st >= 0 && res.found && res.point_count > 0)
        s->corridor_count = ptl_dd_path_corridor(s->nm, res.start_cell, s->points, res.point_count, s->corridor,
                                                 DEMO_MAX_CORRIDOR);
    if (s->corridor_count > DEMO_MAX_CORRIDOR) s->corridor_count = DEMO_MAX_CORRIDOR;
}

static void set_pair(demo_scene* s, const float a[3], const float b[3]) {
    memcpy(s->start, a, sizeof s->start), memcpy(s->start_click, a, sizeof s->start);
    memcpy(s->goal, b, sizeof s->goal), memcpy(s->goal_click, b, sizeof s->goal);
    s->has_start = s->has_goal = true;
    demo_scene_update_path(s);
}

void demo_scene_default_path(demo_scene* s) {
    if (!s->nm) return;
    if (s->builtin) {
        /* from the street to the top floor (the pair scripts/run.sh asks the CLI for) */
        set_pair(s, (const float[3]){23.8f, 0.2f, 37.9f}, (const float[3]){34.5f, 6.2f, 20.2f});
        if (s->path.found) return;
    }
    /* two far-apart cells: the one with the least x + z, and the first from the other end a path reaches */
    uint32_t n = s->info.cell_count, lo = PTL_NONE;
    float lo_key = INFINITY;
    for (uint32_t c = 0; c < n; ++c) {
        ptl_cell_view cv;
        if (ptl_navmesh_get_cell(s->nm, c, &cv) != PTL_OK || cv.link != PTL_NONE) continue;
        float m[3];
        ptl_navmesh_cell_centroid(s->nm, c, m);
        if (m[0] + m[2] < lo_key) lo_key = m[0] + m[2], lo = c;
    }
    if (lo == PTL_NONE) return;
    float a[3];
    ptl_navmesh_cell_centroid(s->nm, lo, a);
    ptl_location la;
    if (ptl_query_locate(s->q, a, (const float[3]){2, 8, 2}, &la) == PTL_OK) memcpy(a, la.point, sizeof a);
    float prev_key = INFINITY;
    for (int tries = 0; tries < 24; ++tries) {
        /* the cell with the largest x + z below the last one tried */
        uint32_t hi = PTL_NONE;
        float hi_key = -INFINITY;
        for (uint32_t c = 0; c < n; ++c) {
            ptl_cell_view cv;
            if (ptl_navmesh_get_cell(s->nm, c, &cv) != PTL_OK || cv.link != PTL_NONE) continue;
            float m[3];
            ptl_navmesh_cell_centroid(s->nm, c, m);
            float k = m[0] + m[2];
            if (k < prev_key && k > hi_key) hi_key = k, hi = c;
        }
        if (hi == PTL_NONE) break;
        prev_key = hi_key;
        float b[3];
        ptl_navmesh_cell_centroid(s->nm, hi, b);
        ptl_location lb;
        if (ptl_query_locate(s->q, b, (const float[3]){2, 8, 2}, &lb) == PTL_OK) memcpy(b, lb.point, sizeof b);
        set_pair(s, a, b);
        if (s->path.found) return;
    }
}

/* Ray-triangle (Moller-Trumbore): t of the hit, or INFINITY. front_only: only a triangle whose
   front (counter-clockwise) face looks at the ray's origin; det = -d . (e1 x e2) > 0 then. */
static float ray_tri(const float o[3], const float d[3], const float* a, const float* b, const float* c,
                     bool front_only) {
    float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    float p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    float det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (fabsf(det) < 1e-12f || (front_only && det < 0)) return INFINITY;
    float inv = 1.0f / det;
    float tv[3] = {o[0] - a[0], o[1] - a[1], o[2] - a[2]};
    float u = (tv[0] * p[0] + tv[1] * p[1] + tv[2] * p[2]) * inv;
    if (u < 0 || u > 1) return INFINITY;
    float q[3] = {tv[1] * e1[2] - tv[2] * e1[1], tv[2] * e1[0] - tv[0] * e1[2], tv[0] * e1[1] - tv[1] * e1[0]};
    float v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
    if (v < 0 || u + v > 1) return INFINITY;
    float t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
    return t > 0 ? t : INFINITY;
}

/* Keeps t as the best hit when it is nearer and below the cut. */
static void consider(float t, const float o[3], const float d[3], float cut, float* best) {
    if (t < *best && !(o[1] + d[1] * t > cut)) *best = t;
}

bool demo_scene_pick(const demo_scene* s, const float o[3], const float d[3], bool ceilings, float cut, float hit[3]) {
    float best = INFINITY;
    /* the input triangles as drawn, front faces only (a click goes through the back of a ceiling or
       a wall seen from outside, down to the floor; a click on a wall is snapped by the query: the
       nearest-point drawing shows where) */
    const ptl_trimesh* m = ceilings ? &s->mesh : &s->open_mesh;
    if (s->is3d)
        for (uint32_t t = 0; t < m->tri_count; ++t) {
            const uint32_t* ix = &m->tris[3 * t];
            consider(ray_tri(o, d, &m->verts[3 * ix[0]], &m->verts[3 * ix[1]], &m->verts[3 * ix[2]], true), o, d, cut,
                     &best);
        }
    /* the navmesh's cells */
    for (uint32_t c = 0; s->nm && c < s->info.cell_count; ++c) {
        ptl_cell_view cv;
        if (ptl_navmesh_get_cell(s->nm, c, &cv) != PTL_OK) continue;
        const float* v0 = ptl_navmesh_vert(s->nm, cv.verts[0]);
        for (uint32_t i = 1; i + 1 < cv.vert_count; ++i) {
            consider(ray_tri(o, d, v0, ptl_navmesh_vert(s->nm, cv.verts[i]), ptl_navmesh_vert(s->nm, cv.verts[i + 1]), false),
                     o, d, cut, &best);
        }
    }
    if (!isfinite(best)) return false;
    for (int k = 0; k < 3; ++k) hit[k] = o[k] + d[k] * best;
    return true;
}

void demo_scene_gpu_free(demo_scene* s) {
    if (s->thread) SDL_WaitThread(s->thread, NULL);
    s->thread = NULL;
    ptl_gpu_destroy(s->gpu);
    s->gpu = NULL;
}

void demo_scene_free(demo_scene* s) {
    if (s->thread) SDL_WaitThread(s->thread, NULL);
    demo_obstacles_free(&s->obs);
    ptl_gpu_destroy(s->gpu);
    ptl_query_destroy(s->q);
    ptl_navmesh_destroy(s->nm);
    ptl_blob_free(s->blob, s->blob_size, NULL);
    ptl_bake_debug_destroy(s->dbg);
    free(s->open_mesh.tris);
    if (s->is3d) ptl_trimesh_free(&s->mesh);
    else ptl_shape_free(&s->shape);
    memset(s, 0, sizeof *s);
}
