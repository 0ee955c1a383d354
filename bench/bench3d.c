/* 3D benchmark, section `3d` of portolan-bench (bench/main.c, bench/bench.h).

   Every OBJ of DATA/meshes baked by Portolan (ptl_obj_load + ptl_bake_trimesh) and by Recast (solo,
   through bench/peer_recast.cpp) at Recast's reference parameters, in the same run:
   - per-stage bake times (median of 5 runs each side, every stage's median taken separately);
   - peak memory: Portolan's through a tracking ptl_allocator (peak live bytes of the bake, the
     output blob included; the OBJ load measured separately), Recast's through its rcAlloc hook
     (its working heap; Detour's tile data and query come from dtAlloc and are not in it, see the
     `Detour KB` column);
   - cells beside polygons, walkable areas in x-z and their ratio;
   - connectivity on BENCH_PAIRS pairs drawn on Detour's mesh (the pairs the tests read from
     tests/data/detour, see reference.c): our `found` against Detour's `complete`, mean lengths
     where both found a path;
   - the "Targets" table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { REPS = 5, NSTAGE = 8, MAX_LISTED = 16 };
static const char* const STAGE_NAMES[NSTAGE] = {"voxelize", "filter", "layers", "contours",
                                                "decompose", "merge", "landmarks", "other"};
enum { RC_NSTAGE = 8 };
static const char* const RC_STAGE_NAMES[RC_NSTAGE] = {"rasterize", "filter", "compact + erode", "regions",
                                                      "contours", "polymesh", "detail", "Detour data + init"};

/* Everything measured on one mesh. */
typedef struct mesh_run {
    const char* name;              /* file name, "dungeon.obj" */
    bool ok, rc_ok;
    char error[300];
    uint32_t triangles;
    /* Portolan */
    double load_ms;                /* ptl_obj_load, median */
    size_t load_peak;              /* [Units: bytes] peak live bytes of the load (the trimesh is most of it) */
    double ms[NSTAGE], ms_total;   /* medians; `other` is the call's wall time minus the named stages */
    size_t bake_peak;              /* [Units: bytes] */
    size_t bake_peak_no_landmarks; /* [Units: bytes] the same bake with no_landmarks (one untimed run) */
    uint64_t mismatches;           /* sizes passed to free/realloc that disagree with the block's (0 expected) */
    size_t leaked;                 /* [Units: bytes] still live after the bake and its blob were freed (0 expected) */
    ptl_bake_stats bs;             /* of the last run */
    size_t blob_bytes;
    bool valid;                    /* ptl_navmesh_validate passed */
    char invalid[200];
    /* Recast */
    double rc_ms[RC_NSTAGE], rc_total;
    peer_stats rc;                 /* of the last run */
    /* Connectivity */
    uint32_t pairs, detour_complete, found, agree, not_located, both;
    uint32_t listed;               /* disagreements explained below (at most MAX_LISTED) */
    struct {
        uint32_t pair;
        bool ours;                 /* Portolan found it (so Detour did not) */
        char why[240];
    } dis[MAX_LISTED];
    double len_ours, len_detour;   /* mean plan (x-z) length over pairs both found */
    double len3_ours, len3_detour; /* mean 3D length over the same pairs */
    double sum_ours, sum_detour;   /* plan lengths summed over those pairs (pooled over meshes) */
    double us_ours, us_detour;     /* median query time */
    /* Query times (query_times): median and p99 over the pairs, each pair's time the median of
       QUERY_ROUNDS interleaved runs; [0] exact, [1] corridor, [2] Detour (path + straight path),
       [3] exact following the surface. */
    double q_med[4], q_p99[4];
    double q_pair[BENCH_PAIRS]; /* each pair's exact time, the median of its rounds (pair order) */
} mesh_run;

static double ratio(double a, double b) { return b > 0 ? a / b : 0; }
static double mb(size_t bytes) { return bytes / 1048576.0; }

/* Per-run times, gathered before the medians are taken. */
typedef struct run_times {
    double load[REPS], stage[NSTAGE][REPS], total[REPS];
    double rc_stage[RC_NSTAGE][REPS], rc_total[REPS];
} run_times;

/* One Portolan run: load (tracked on its own) and bake (tracked); run k < 0 is the warm-up. Keeps the
   last blob in *blob (libc memory). */
static bool portolan_once(const char* path, int k, run_times* t, mesh_run* r, void** blob, size_t* size) {
    ptl_bake_desc d;
    bench_reference_desc(&d);
    ptl_error err;
    bench_tracker load_tr = {0};
    ptl_allocator la = bench_tracker_allocator(&load_tr);
    ptl_trimesh m;
    double a = bench_now_ms();
    if (ptl_obj_load(path, &(ptl_input_desc){.alloc = &la}, &m, &err) < 0) {
        snprintf(r->error, sizeof r->error, "load: %.280s", err.message);
        return false;
    }
    double load_ms = bench_now_ms() - a;
    bench_tracker tr = {0};
    ptl_allocator ba = bench_tracker_allocator(&tr);
    d.alloc = &ba;
    void* out = NULL;
    size_t out_size = 0;
    ptl_bake_stats bs;
    a = bench_now_ms();
    ptl_status st = ptl_bake_trimesh(&m, &d, &out, &out_size, &bs, &err);
    double total = bench_now_ms() - a;
    ptl_trimesh_free(&m);
    if (st < 0) {
        snprintf(r->error, sizeof r->error, "bake: %.280s", err.message);
        return false;
    }
    /* The blob came from the tracker; keep a libc copy so it outlives the tracker. */
    free(*blob);
    *blob = malloc(out_size);
    memcpy(*blob, out, out_size);
    *size = out_size;
    ptl_blob_free(out, out_size, &ba);
    r->leaked = tr.live + load_tr.live; /* everything must be freed by now */
    r->mismatches = tr.mismatches + load_tr.mismatches;
    r->load_peak = load_tr.peak;
    r->bake_peak = tr.peak;
    r->triangles = bs.triangles;
    r->bs = bs;
    if (k < 0) return true;
    t->load[k] = load_ms;
    double named[NSTAGE - 1] = {bs.ms_voxelize, bs.ms_filter, bs.ms_layers, bs.ms_contours, bs.ms_decompose,
                                bs.ms_merge, bs.ms_landmarks};
    double sum = 0;
    for (int s = 0; s < NSTAGE - 1; ++s) t->stage[s][k] = named[s], sum += named[s];
    t->stage[NSTAGE - 1][k] = total - sum;
    t->total[k] = total;
    return true;
}

/* One Recast run on the loaded mesh; run k < 0 is the warm-up. Keeps the last navmesh in *pm. */
static bool recast_once(const ptl_trimesh* m, int k, run_times* t, mesh_run* r, peer_mesh** pm) {
    if (*pm) peer_free(*pm);
    *pm = NULL;
    if (bench_recast_bake_trimesh(m, pm, &r->rc) != 0) {
        fprintf(stderr, "portolan-bench: 3d: Recast on %s: %s\n", r->name, r->rc.error);
        return false;
    }
    if (k < 0) return true;
    const peer_stats* s = &r->rc;
    double v[RC_NSTAGE] = {s->ms_rasterize + s->ms_input, s->ms_filter, s->ms_compact, s->ms_regions,
                           s->ms_contours, s->ms_polymesh, s->ms_detail, s->ms_navmesh};
    for (int i = 0; i < RC_NSTAGE; ++i) t->rc_stage[i][k] = v[i];
    t->rc_total[k] = s->ms_total;
    return true;
}

/* Both bakes, run after run (a warm-up, then REPS timed runs alternating Portolan and Recast, so
   that load from elsewhere on the machine hits both sides alike). */
static void bake_both(const char* path, mesh_run* r, ptl_navmesh** nm_out, peer_mesh** pm_out) {
    run_times* t = calloc(1, sizeof *t);
    void* blob = NULL;
    size_t size = 0;
    peer_mesh* pm = NULL;
    ptl_trimesh m;
    ptl_error err;
    const bool loaded = t && ptl_obj_load(path, NULL, &m, &err) >= 0;
    bool rc_ok = loaded, ok = loaded;
    if (!loaded) snprintf(r->error, sizeof r->error, "load: %.280s", t ? err.message : "out of memory");
    for (int k = -1; k < REPS && (ok || rc_ok); ++k) {
        ok = ok && portolan_once(path, k, t, r, &blob, &size);
        rc_ok = rc_ok && recast_once(&m, k, t, r, &pm);
    }
    if (t && rc_ok) {
        for (int i = 0; i < RC_NSTAGE; ++i) r->rc_ms[i] = bench_median(t->rc_stage[i], REPS);
        r->rc_total = bench_median(t->rc_total, REPS);
        r->rc_ok = true;
        *pm_out = pm;
    } else if (pm) {
        peer_free(pm);
    }
    if (ok && loaded) {
        /* Peak without the landmark stage: what the voxel-to-blob pipeline itself needs. */
        bench_tracker tr = {0};
        ptl_allocator ba = bench_tracker_allocator(&tr);
        ptl_bake_desc d;
        bench_reference_desc(&d);
        d.no_landmarks = true;
        d.alloc = &ba;
        void* out = NULL;
        size_t out_size = 0;
        if (ptl_bake_trimesh(&m, &d, &out, &out_size, NULL, &err) >= 0) {
            r->bake_peak_no_landmarks = tr.peak;
            ptl_blob_free(out, out_size, &ba);
        }
    }
    if (loaded) ptl_trimesh_free(&m);
    if (ok) {
        r->load_ms = bench_median(t->load, REPS);
        for (int s = 0; s < NSTAGE; ++s) r->ms[s] = bench_median(t->stage[s], REPS);
        r->ms_total = bench_median(t->total, REPS);
        r->blob_bytes = size;
        ptl_navmesh* nm = NULL;
        if (ptl_navmesh_create(blob, size, NULL, &nm, &err) < 0) {
            snprintf(r->error, sizeof r->error, "navmesh: %.280s", err.message);
        } else {
            r->valid = ptl_navmesh_validate(nm, &err) >= 0;
            if (!r->valid) snprintf(r->invalid, sizeof r->invalid, "%.190s", err.message);
            r->ok = true;
            *nm_out = nm;
        }
    }
    free(blob);
    free(t);
}

/* Detour's pairs (the reference data's) answered by both. */
static void connectivity(ptl_navmesh* nm, peer_mesh* pm, mesh_run* r) {
    bench_pair* pairs = calloc(BENCH_PAIRS, sizeof *pairs);
    double* t_ours = calloc(BENCH_PAIRS, sizeof(double));
    double* t_det = calloc(BENCH_PAIRS, sizeof(double));
    uint32_t* piece = bench_cell_pieces(nm);
    ptl_query* q = NULL;
    if (!pairs || !t_ours || !t_det || !piece || bench_detour_pairs(pm, BENCH_PAIRS, BENCH_PAIR_SEED, pairs) != 0 ||
        ptl_query_create(nm, NULL, &q) < 0)
        goto done;
    static float pts[3 * 4096];
    double sum_o = 0, sum_d = 0, sum3_o = 0, sum3_d = 0;
    for (uint32_t i = 0; i < BENCH_PAIRS; ++i) {
        const bench_pair* p = &pairs[i];
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        memcpy(req.start, p->start, sizeof req.start);
        memcpy(req.goal, p->goal, sizeof req.goal);
        req.extents[0] = 2, req.extents[1] = 4, req.extents[2] = 2;
        ptl_path_result res;
        memset(&res, 0, sizeof res);
        res.points = pts;
        res.point_capacity = 4096;
        double a = bench_now_ms();
        ptl_status st = ptl_query_find_path(q, &req, &res);
        t_ours[i] = (bench_now_ms() - a) * 1e3;
        peer_path_result pr;
        peer_path(pm, p->start, p->goal, NULL, NULL, 0, &pr);
        t_det[i] = pr.us;
        r->not_located += st == PTL_ERR_NOT_FOUND;
        r->found += res.found;
        r->detour_complete += p->complete;
        r->agree += res.found == p->complete;
        if (res.found && p->complete) {
            double plan = 0;
            for (uint32_t k = 1; k < res.point_count; ++k)
                plan += hypot(pts[3 * k] - pts[3 * k - 3], pts[3 * k + 2] - pts[3 * k - 1]);
            ++r->both, sum_o += plan, sum_d += p->plan_length, sum3_o += res.length, sum3_d += p->length;
        }
        if (res.found != p->complete && r->listed < MAX_LISTED) {
            r->dis[r->listed].pair = i;
            r->dis[r->listed].ours = res.found;
            bench_explain_disagreement(q, piece, pm, p, st, &res, r->dis[r->listed].why, sizeof r->dis[0].why);
            ++r->listed;
        }
    }
    r->pairs = BENCH_PAIRS;
    r->len_ours = r->both ? sum_o / r->both : 0;
    r->len_detour = r->both ? sum_d / r->both : 0;
    r->len3_ours = r->both ? sum3_o / r->both : 0;
    r->len3_detour = r->both ? sum3_d / r->both : 0;
    r->sum_ours = sum_o, r->sum_detour = sum_d;
    r->us_ours = bench_median(t_ours, BENCH_PAIRS);
    r->us_detour = bench_median(t_det, BENCH_PAIRS);
done:
    ptl_query_destroy(q);
    free(piece);
    free(pairs);
    free(t_ours);
    free(t_det);
}

#define QUERY_ROUNDS 5
#define QUERY_KINDS 4

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* One timed query of pair p (us): kind 0 exact, 1 corridor, 2 Detour, 3 exact following the surface. */
static double time_pair(ptl_query* q, peer_mesh* pm, const bench_pair* p, int kind, float* pts) {
    if (kind == 2) {
        peer_path_result pr;
        peer_path(pm, p->start, p->goal, NULL, NULL, 0, &pr);
        return pr.us;
    }
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, p->start, sizeof req.start);
    memcpy(req.goal, p->goal, sizeof req.goal);
    req.extents[0] = 2, req.extents[1] = 4, req.extents[2] = 2;
    req.mode = kind == 1 ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT;
    req.follow_surface = kind == 3;
    ptl_path_result res;
    memset(&res, 0, sizeof res);
    res.points = pts;
    res.point_capacity = 4096;
    double a = bench_now_ms();
    ptl_query_find_path(q, &req, &res);
    return (bench_now_ms() - a) * 1e3;
}

/* The query times of Detour's pairs, ours (exact, corridor, exact following the surface) beside
   Detour's (both snaps, findPath and findStraightPath). Each kind runs over all the pairs in turn,
   QUERY_ROUNDS rounds of that, so that the machine's noise falls on all alike while no kind runs
   in the caches another left (a query right after the same pair's query of another kind finds its
   cells warm: one query per pair, pair after pair, is a game's many agents); each pair's time is
   the median of its rounds. */
static void query_times(ptl_navmesh* nm, peer_mesh* pm, mesh_run* r) {
    bench_pair* pairs = calloc(BENCH_PAIRS, sizeof *pairs);
    double* t = calloc((size_t)QUERY_KINDS * QUERY_ROUNDS * BENCH_PAIRS, sizeof(double));
    ptl_query* q = NULL;
    if (!pairs || !t || bench_detour_pairs(pm, BENCH_PAIRS, BENCH_PAIR_SEED, pairs) != 0 ||
        ptl_query_create(nm, NULL, &q) < 0)
        goto done;
    static float pts[3 * 4096];
    for (int round = 0; round < QUERY_ROUNDS; ++round) {
        for (int k = 0; k < QUERY_KINDS; ++k) {
            for (uint32_t i = 0; i < BENCH_PAIRS; ++i)
                t[((size_t)k * BENCH_PAIRS + i) * QUERY_ROUNDS + round] = time_pair(q, pm, &pairs[i], k, pts);
        }
    }
    double* per = calloc(BENCH_PAIRS, sizeof(double));
    if (!per) goto done;
    for (int k = 0; k < QUERY_KINDS; ++k) {
        for (uint32_t i = 0; i < BENCH_PAIRS; ++i) {
            double* v = &t[((size_t)k * BENCH_PAIRS + i) * QUERY_ROUNDS];
            qsort(v, QUERY_ROUNDS, sizeof(double), cmp_double);
            per[i] = v[QUERY_ROUNDS / 2];
            if (k == 0) r->q_pair[i] = per[i];
        }
        qsort(per, BENCH_PAIRS, sizeof(double), cmp_double);
        r->q_med[k] = per[BENCH_PAIRS / 2];
        r->q_p99[k] = per[(size_t)((BENCH_PAIRS - 1) * 0.99)];
    }
    free(per);
done:
    ptl_query_destroy(q);
    free(pairs);
    free(t);
}

/* ---- `portolan-bench paths`: the path-query table alone, for iterating on the runtime -------------- */

/* One mesh baked once each side (no stage times), then query_times as in the 3d section. With
   `dump`, every pair's exact time (the median of its rounds), expansions and points go to stdout,
   slowest first; with `loop` > 0, the exact kind then runs over all the pairs `loop` times more
   (untimed: for perf record). */
static void paths_one(const char* data, const char* name, bool dump, int loop) {
    char path[2048];
    snprintf(path, sizeof path, "%s/meshes/%s", data, name);
    mesh_run r;
    memset(&r, 0, sizeof r);
    r.name = name;
    ptl_trimesh m;
    ptl_error err;
    if (ptl_obj_load(path, NULL, &m, &err) < 0) {
        fprintf(stderr, "portolan-bench: paths: %s: %s\n", name, err.message);
        return;
    }
    ptl_bake_desc d;
    bench_reference_desc(&d);
    void* blob = NULL;
    size_t size = 0;
    peer_mesh* pm = NULL;
    ptl_navmesh* nm = NULL;
    bool ok = ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err) >= 0 && bench_recast_bake_trimesh(&m, &pm, &r.rc) == 0 &&
              ptl_navmesh_create(blob, size, NULL, &nm, &err) >= 0;
    ptl_trimesh_free(&m);
    if (ok) query_times(nm, pm, &r);
    if (ok)
        printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", name, r.q_med[0], r.q_p99[0],
               r.q_med[1], r.q_p99[1], r.q_med[3], r.q_p99[3], r.q_med[2], r.q_p99[2]);
    bench_pair* pairs = calloc(BENCH_PAIRS, sizeof *pairs);
    ptl_query* q = NULL;
    static float pts[3 * 4096];
    if (ok && (dump || loop > 0) && pairs && bench_detour_pairs(pm, BENCH_PAIRS, BENCH_PAIR_SEED, pairs) == 0 &&
        ptl_query_create(nm, NULL, &q) >= 0) {
        for (int k = 0; k < loop; ++k)
            for (uint32_t i = 0; i < BENCH_PAIRS; ++i) time_pair(q, pm, &pairs[i], 0, pts);
        for (uint32_t i = 0; dump && i < BENCH_PAIRS; ++i) {
            ptl_path_request req;
            memset(&req, 0, sizeof req);
            memcpy(req.start, pairs[i].start, sizeof req.start);
            memcpy(req.goal, pairs[i].goal, sizeof req.goal);
            req.extents[0] = 2, req.extents[1] = 4, req.extents[2] = 2;
            ptl_path_result res;
            memset(&res, 0, sizeof res);
            res.points = pts;
            res.point_capacity = 4096;
            ptl_query_find_path(q, &req, &res);
            const float* a = pairs[i].start;
            const float* b = pairs[i].goal;
            printf("pair %u exact %.3f us expansions %u points %u length %.6f %s straight %.3f\n", i, r.q_pair[i],
                   res.nodes_expanded, res.point_count, res.length, res.found ? "found" : "partial",
                   hypot(b[0] - a[0], b[2] - a[2]));
        }
    }
    ptl_query_destroy(q);
    free(pairs);
    if (pm) peer_free(pm);
    ptl_navmesh_destroy(nm);
    if (blob) ptl_blob_free(blob, size, NULL);
}

int bench3d_paths_run(const char* data, const char* only, bool dump, int loop) {
    char** meshes = bench_list_meshes(data);
    printf("| mesh | exact median | exact p99 | corridor median | corridor p99 | surface median | surface p99 | "
           "Detour median | Detour p99 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; meshes && meshes[i]; ++i)
        if (!only || strstr(meshes[i], only)) paths_one(data, meshes[i], dump, loop);
    bench_free_list(meshes);
    return meshes ? 0 : 1;
}

static void measure(const char* data, const char* name, mesh_run* r) {
    memset(r, 0, sizeof *r);
    r->name = name;
    char path[2048];
    snprintf(path, sizeof path, "%s/meshes/%s", data, name);
    fprintf(stderr, "3d: %s\n", name);
    ptl_navmesh* nm = NULL;
    peer_mesh* pm = NULL;
    bake_both(path, r, &nm, &pm);
    if (nm && pm) connectivity(nm, pm, r);
    if (nm && pm) query_times(nm, pm, r);
    if (pm) peer_free(pm);
    ptl_navmesh_destroy(nm);
}

static void table_bake(const mesh_run* runs, size_t n) {
    printf("| mesh | triangles | Portolan ms | Recast ms | time ratio | Portolan peak MB | Recast peak MB | "
           "memory ratio | cells | Recast polygons | cells / polygons | layers | blob KB | Detour KB |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n; ++i) {
        const mesh_run* r = &runs[i];
        if (!r->ok || !r->rc_ok) {
            printf("| %s | %s |\n", r->name, r->ok ? "(Recast failed)" : r->error);
            continue;
        }
        printf("| %s | %u | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %u | %u | %.3f | %u | %.0f | %.0f |\n", r->name,
               r->triangles, r->ms_total, r->rc_total, ratio(r->ms_total, r->rc_total), mb(r->bake_peak),
               mb(r->rc.peak_heap_bytes), ratio((double)r->bake_peak, (double)r->rc.peak_heap_bytes), r->bs.cells,
               r->rc.polygons, ratio(r->bs.cells, r->rc.polygons), r->bs.layers, r->blob_bytes / 1024.0,
               r->rc.navmesh_bytes / 1024.0);
    }
    printf("\n");
}

static void table_stages(const mesh_run* runs, size_t n) {
    printf("Portolan's stages (ms, median of %d runs each; `other` is the call's wall time minus the named stages: "
           "parameter checks, the navmesh the bake builds to report its walkable area, frees). The OBJ load is not "
           "part of the bake; its peak is the trimesh plus the reader's scratch.\n\n", REPS);
    printf("| mesh | load ms | load peak MB |");
    for (int s = 0; s < NSTAGE; ++s) printf(" %s |", STAGE_NAMES[s]);
    printf(" total | peak MB | peak MB without landmarks |\n|---|---:|---:|");
    for (int s = 0; s <= NSTAGE + 2; ++s) printf("---:|");
    printf("\n");
    for (size_t i = 0; i < n; ++i) {
        const mesh_run* r = &runs[i];
        if (!r->ok) continue;
        printf("| %s | %.2f | %.2f |", r->name, r->load_ms, mb(r->load_peak));
        for (int s = 0; s < NSTAGE; ++s) printf(" %.2f |", r->ms[s]);
        printf(" %.2f | %.2f | %.2f |\n", r->ms_total, mb(r->bake_peak), mb(r->bake_peak_no_landmarks));
    }
    printf("\nRecast's stages (ms, median of %d runs each; `rasterize` includes marking walkable triangles):\n\n", REPS);
    printf("| mesh |");
    for (int s = 0; s < RC_NSTAGE; ++s) printf(" %s |", RC_STAGE_NAMES[s]);
    printf(" total | warnings |\n|---|");
    for (int s = 0; s <= RC_NSTAGE + 1; ++s) printf("---:|");
    printf("\n");
    for (size_t i = 0; i < n; ++i) {
        const mesh_run* r = &runs[i];
        if (!r->rc_ok) continue;
        printf("| %s |", r->name);
        for (int s = 0; s < RC_NSTAGE; ++s) printf(" %.2f |", r->rc_ms[s]);
        printf(" %.2f | %u |\n", r->rc_total, r->rc.warnings);
    }
    printf("\n");
}

static void table_areas(const mesh_run* runs, size_t n) {
    printf("### Walkable area\n\n");
    printf("In x-z (m^2). `cells`: the sum of Portolan's cell areas (ptl_navmesh_info.walkable_area); `polygons`: "
           "the sum of Recast's polygon areas. Voxel areas are walkable voxels x 0.09 m^2: Portolan's are the ones its "
           "layers keep (after the filters, the 0.6 m erosion and the removal of small islands), Recast's the "
           "walkable spans of its compact heightfield after erosion (before its regions drop small islands); with "
           "the cell areas they tell whether a difference comes from the voxel stages or from the contours. "
           "`valid`: ptl_navmesh_validate on the baked mesh.\n\n");
    printf("| mesh | cells | polygons | ratio | voxel area | Recast voxel area | voxel ratio | valid |\n"
           "|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; ++i) {
        const mesh_run* r = &runs[i];
        if (!r->ok || !r->rc_ok) continue;
        double cs2 = 0.3 * 0.3;
        printf("| %s | %.2f | %.2f | %.4f | %.2f | %.2f | %.4f | %s |\n", r->name, r->bs.walkable_area,
               r->rc.walkable_area, ratio(r->bs.walkable_area, r->rc.walkable_area), r->bs.walkable_spans * cs2,
               r->rc.walkable_spans * cs2, ratio(r->bs.walkable_spans, r->rc.walkable_spans),
               r->valid ? "yes" : r->invalid);
    }
    printf("\n");
}

static void table_connectivity(const mesh_run* runs, size_t n) {
    printf("### Connectivity\n\n");
    printf("%d pairs per mesh drawn uniformly on Detour's mesh (findRandomPoint, fixed seed: the pairs of "
           "tests/data/detour). Both snap with extents 2, 4, 2. `agree`: Portolan's `found` equals Detour's "
           "`complete`; `not located`: Portolan found no cell within the extents of the start or the goal. Mean "
           "lengths over the pairs both answered, in plan (x-z), and the 3D ratio beside them: both paths join their "
           "corners with straight 3D segments (Portolan's default; with `follow_surface` its points also drop onto "
           "the layer heights where the ground bends, and it is longer in 3D by the relief it traces). Query times "
           "are medians, both snaps included (the next table has them in detail).\n\n",
           BENCH_PAIRS);
    printf("| mesh | Detour complete | Portolan found | agree | not located | both | mean length | Detour mean length | "
           "length ratio | 3D length ratio | median us | Detour median us |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n; ++i) {
        const mesh_run* r = &runs[i];
        if (!r->pairs) continue;
        printf("| %s | %u | %u | %.1f%% | %u | %u | %.3f | %.3f | %.4f | %.4f | %.2f | %.2f |\n", r->name,
               r->detour_complete, r->found, 100.0 * r->agree / r->pairs, r->not_located, r->both, r->len_ours,
               r->len_detour, ratio(r->len_ours, r->len_detour), ratio(r->len3_ours, r->len3_detour), r->us_ours,
               r->us_detour);
    }
    printf("\n");
    uint32_t total = 0;
    for (size_t i = 0; i < n; ++i) total += runs[i].pairs - runs[i].agree;
    if (!total) {
        printf("No disagreement on any mesh.\n\n");
        return;
    }
    printf("Every disagreement (the first %d per mesh), explained from both meshes' geometry "
           "(bench/disagreements.c: the path that reached the goal is walked every 0.1 m and located on the other "
           "side's mesh):\n\n| mesh | pair | reached the goal | why |\n|---|---:|---|---|\n", MAX_LISTED);
    for (size_t i = 0; i < n; ++i)
        for (uint32_t k = 0; k < runs[i].listed; ++k)
            printf("| %s | %u | %s | %s |\n", runs[i].name, runs[i].dis[k].pair,
                   runs[i].dis[k].ours ? "Portolan only" : "Detour only", runs[i].dis[k].why);
    printf("\n");
}

static void append(char* buf, size_t cap, const char* text);
static void short_name(const char* file, char* out, size_t cap);

static void table_query_times(const mesh_run* runs, size_t n) {
    printf("### Path query times\n\n");
    printf("Detour's %d pairs per mesh, both snaps included: Portolan's exact and corridor paths (corners only, "
           "the default), its exact path following the surface (`follow_surface`) and Detour's findPath + "
           "findStraightPath, each kind over all the pairs in turn; each pair's time is the median of %d such "
           "rounds, then the median and p99 over the pairs (us). Ratios are Portolan / Detour; the target is "
           "<= 0.5 for the median and the p99 of both modes.\n\n",
           BENCH_PAIRS, QUERY_ROUNDS);
    printf("| mesh | exact median | exact p99 | corridor median | corridor p99 | surface median | surface p99 | "
           "Detour median | Detour p99 | exact ratio (median, p99) | corridor ratio (median, p99) | met |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n");
    char miss[1024] = "";
    for (size_t i = 0; i < n; ++i) {
        const mesh_run* r = &runs[i];
        if (!r->pairs) continue;
        const double* m = r->q_med;
        const double* p = r->q_p99;
        double em = ratio(m[0], m[2]), ep = ratio(p[0], p[2]), cm = ratio(m[1], m[2]), cp = ratio(p[1], p[2]);
        bool met = em <= 0.5 && ep <= 0.5 && cm <= 0.5 && cp <= 0.5;
        printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f, %.2f | %.2f, %.2f | %s |\n", r->name,
               m[0], p[0], m[1], p[1], m[3], p[3], m[2], p[2], em, ep, cm, cp, met ? "yes" : "no");
        if (!met) {
            char nm[128];
            short_name(r->name, nm, sizeof nm);
            append(miss, sizeof miss, nm);
        }
    }
    printf("\nPath queries <= 0.5x Detour's (median and p99, exact and corridor) on every mesh: %s%s.\n\n",
           miss[0] ? "not met on " : "met on all", miss);
}

/* Appends ", text" (or "text" to an empty list). */
static void append(char* buf, size_t cap, const char* text) {
    size_t l = strlen(buf);
    if (l + 2 < cap) snprintf(buf + l, cap - l, "%s%s", l ? ", " : "", text);
}

/* Appends "name value" to a list. */
static void note(char* buf, size_t cap, const char* name, const char* fmt, double v) {
    char num[64], item[256];
    snprintf(num, sizeof num, fmt, v);
    snprintf(item, sizeof item, "%s %s", name, num);
    append(buf, cap, item);
}

/* The allocator contract (runtime.h: free and realloc get the block's size, so arena allocators need
   no headers), checked by the tracking allocator on the last run of each mesh. */
static void table_allocator(const mesh_run* runs, size_t n) {
    char bad[2048] = "";
    for (size_t i = 0; i < n; ++i) {
        const mesh_run* r = &runs[i];
        if (!r->mismatches && !r->leaked) continue;
        char item[256];
        snprintf(item, sizeof item, "%s (%llu sizes, %zu bytes leaked)", r->name, (unsigned long long)r->mismatches,
                 r->leaked);
        append(bad, sizeof bad, item);
    }
    if (!bad[0]) {
        printf("Allocator contract (the last load + bake of each mesh through the tracking allocator): every size "
               "passed to free and realloc matched the block's; nothing leaked.\n\n");
        return;
    }
    printf("Allocator contract broken (the last load + bake of each mesh through the tracking allocator; runtime.h "
           "promises free and realloc the block's size, so an arena allocator needs no headers): %s. The peaks "
           "above count each block at the size it was allocated with.\n\n", bad);
}

static void short_name(const char* file, char* out, size_t cap) {
    snprintf(out, cap, "%s", file);
    char* dot = strrchr(out, '.');
    if (dot) *dot = 0;
}

static void table_targets(const mesh_run* runs, size_t n, const mesh_run* main3[3]) {
    printf("## Targets (3D)\n\n");
    printf("| target | measured | met |\n|---|---|---|\n");
    char cells[512] = "", times[512] = "", mem[512] = "", area3[512] = "";
    bool cells_ok = true, time_ok = true, mem_ok = true, area3_ok = true;
    for (int k = 0; k < 3; ++k) {
        const mesh_run* r = main3[k];
        char nm[128];
        if (!r || !r->ok || !r->rc_ok) {
            cells_ok = time_ok = mem_ok = area3_ok = false;
            continue;
        }
        short_name(r->name, nm, sizeof nm);
        double c = ratio(r->bs.cells, r->rc.polygons), t = ratio(r->ms_total, r->rc_total);
        double m = ratio((double)r->bake_peak, (double)r->rc.peak_heap_bytes);
        double a = ratio(r->bs.walkable_area, r->rc.walkable_area);
        note(cells, sizeof cells, nm, "%.2fx", c);
        note(times, sizeof times, nm, "%.2fx", t);
        note(mem, sizeof mem, nm, "%.2fx", m);
        note(area3, sizeof area3, nm, "%.3fx", a);
        cells_ok = cells_ok && c <= 0.6, time_ok = time_ok && t <= 0.5, mem_ok = mem_ok && m <= 1.0;
        area3_ok = area3_ok && fabs(a - 1) <= 0.03;
    }
    printf("| cells <= 0.6x Recast's polygons (dungeon, nav_test, undulating) | %s | %s |\n", cells,
           cells_ok ? "yes" : "no");
    printf("| ... while covering the same area (within 3%%) | %s | %s |\n", area3, area3_ok ? "yes" : "no");
    printf("| bake time <= 0.5x Recast's solo bake, one thread (bench/NOTES.md: where the time goes) | %s | %s |\n", times, time_ok ? "yes" : "no");
    printf("| peak memory <= Recast's | %s | %s |\n", mem, mem_ok ? "yes" : "no");
    char area_bad[1024] = "", conn_bad[1024] = "", len_bad[1024] = "", invalid[1024] = "";
    double worst_area = 1, worst_conn = 100, all_ours = 0, all_detour = 0;
    uint32_t meshes = 0;
    for (size_t i = 0; i < n; ++i) {
        const mesh_run* r = &runs[i];
        char nm[128];
        short_name(r->name, nm, sizeof nm);
        ++meshes;
        if (!r->ok || !r->valid) append(invalid, sizeof invalid, nm);
        if (!r->ok || !r->rc_ok) continue;
        double a = ratio(r->bs.walkable_area, r->rc.walkable_area);
        if (fabs(a - 1) > fabs(worst_area - 1)) worst_area = a;
        if (fabs(a - 1) > 0.03) note(area_bad, sizeof area_bad, nm, "%.3fx", a);
        if (r->pairs) {
            double c = 100.0 * r->agree / r->pairs;
            if (c < worst_conn) worst_conn = c;
            if (c < 98) note(conn_bad, sizeof conn_bad, nm, "%.1f%%", c);
            if (r->len_ours > r->len_detour * (1 + 1e-3))
                note(len_bad, sizeof len_bad, nm, "%.4fx", ratio(r->len_ours, r->len_detour));
            all_ours += r->sum_ours, all_detour += r->sum_detour;
        }
    }
    printf("| `info --validate` passes on every mesh (%u) | %s | %s |\n", meshes, invalid[0] ? invalid : "all valid",
           invalid[0] ? "no" : "yes");
    printf("| walkable area within 3%% of Recast's on every mesh | worst %.3fx%s%s | %s |\n", worst_area,
           area_bad[0] ? "; outside: " : "", area_bad, area_bad[0] ? "no" : "yes");
    printf("| found = Detour's complete on >= 98%% of %d pairs per mesh | worst %.1f%%%s%s | %s |\n", BENCH_PAIRS,
           worst_conn, conn_bad[0] ? "; below: " : "", conn_bad, conn_bad[0] ? "no" : "yes");
    printf("| mean length (plan) where both found <= Detour's, over all pairs | %.4fx; meshes above 1.001x: %s | %s |\n",
           ratio(all_ours, all_detour), len_bad[0] ? len_bad : "none", all_ours <= all_detour ? "yes" : "no");
    printf("\nWhat bounds the cells (the notches the outlines leave) and the plan for 0.5x Recast's bake time: "
           "bench/NOTES.md, sections \"Cells\" and \"Bake time\".\n\n");
}

int bench3d_run(const char* data, bool quick) {
    (void)quick; /* the 3D meshes are small: --quick changes nothing here */
    char** meshes = bench_list_meshes(data);
    size_t n = 0;
    while (meshes && meshes[n]) ++n;
    if (n == 0) {
        fprintf(stderr, "portolan-bench: 3d: no .obj in %s/meshes\n", data);
        bench_free_list(meshes);
        return 1;
    }
    mesh_run* runs = calloc(n, sizeof *runs);
    for (size_t i = 0; i < n; ++i) measure(data, meshes[i], &runs[i]);

    static const char* const MAIN3[3] = {"dungeon.obj", "nav_test.obj", "undulating.obj"};
    const mesh_run* main3[3] = {NULL, NULL, NULL};
    mesh_run* others = calloc(n, sizeof *others);
    mesh_run firsts[3];
    size_t n_main = 0, n_others = 0;
    for (size_t i = 0; i < n; ++i) {
        int k = -1;
        for (int j = 0; j < 3; ++j) k = strcmp(runs[i].name, MAIN3[j]) ? k : j;
        if (k >= 0) main3[k] = &runs[i];
        else others[n_others++] = runs[i];
    }
    for (int j = 0; j < 3; ++j)
        if (main3[j]) firsts[n_main++] = *main3[j];

    peer_params pp;
    peer_params_reference(&pp);
    printf("# Portolan 3D benchmark\n\n");
    printf("Every OBJ of `../shared/data/meshes` baked by Portolan (`ptl_obj_load` + `ptl_bake_trimesh`, default bake: "
           "4 landmarks per piece) and by Recast/Detour 1.5.1 (Debian's librecast-dev, solo navmesh through "
           "`bench/peer_recast.cpp`) at Recast's reference parameters: cell %.2g, cell height %.2g, agent height %.2g, "
           "radius %.2g, climb %.2g, slope %.0f (Recast also: edge %.0f wu, error %.1f vx, regions %d and %d, %d "
           "vertices per polygon, detail %.0f and %.0f, ledge filter). Ratios are Portolan / Recast. Times are the "
           "median of %d runs; peak memory is the peak of live heap bytes during the bake: Portolan's through a "
           "tracking `ptl_allocator` (its output blob included), Recast's through its `rcAlloc` hook (its working "
           "heap; Detour's tile data, `Detour KB`, comes from `dtAlloc` and is not included).\n\n",
           pp.cell_size, pp.cell_height, pp.agent_height, pp.agent_radius, pp.max_climb, pp.max_slope, pp.max_edge_len,
           pp.max_error, pp.region_min_size, pp.region_merge_size, pp.verts_per_poly, pp.detail_sample_dist,
           pp.detail_sample_max_error, REPS);
    printf("## Bake beside Recast: dungeon, nav_test, undulating\n\n");
    table_bake(firsts, n_main);
    table_stages(firsts, n_main);
    printf("## Every other mesh\n\n");
    table_bake(others, n_others);
    table_stages(others, n_others);
    printf("## Quality beside Recast/Detour (every mesh)\n\n");
    table_areas(runs, n);
    table_connectivity(runs, n);
    table_query_times(runs, n);
    table_targets(runs, n, main3);
    table_allocator(runs, n);
    free(others);
    free(runs);
    bench_free_list(meshes);
    return 0;
}
