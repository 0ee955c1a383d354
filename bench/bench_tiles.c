/* Tiled bake benchmark, section `tiles` of portolan-bench (bench/main.c, bench/bench.h).

   Scenes made by the library's own scale generators: dungeon.obj copied K x K (ptl_trimesh_copies,
   K = 1, 2, 4, 8: about 10k to 649k triangles) and sc1/Aurora.map extruded into 3D
   (ptl_grid_extrude: a floor quad per free cell, 2 m walls; about 1.1M triangles). Each is baked at
   Recast's reference parameters, in the same run:
   - Portolan's default bake (1 thread; its voxel stages in hidden tiles of 192 columns), in tiles
     of TILE columns on 1 and on 2 threads (the CLI's pthread job system, tools/jobs.c); times are
     medians of the runs, the OBJ load not included
     (the meshes are generated in memory); peak memory through the tracking allocator on the
     1-thread runs (live bytes of the bake, the blob included; the input mesh is the caller's);
   - Recast solo and tiled (RC_TILE voxels, RecastDemo's Sample_TileMesh pipeline, one thread: its
     tiles are built in turn), times and peak heap (rcAlloc) from bench/peer_recast.cpp;
   - cells against Detour polygons, walkable areas;
   - the tiled-bake targets and the time against triangles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../tools/jobs.h"
#include "bench.h"

enum { TILE = 256, SMALL_TILE = 64, RC_TILE = 64, MAX_SCENES = 8 };

typedef struct scene_run {
    char name[64];
    uint32_t triangles;
    bool ok;
    char error[300];
    double ms_whole, ms_tiled1, ms_tiled2;     /* medians */
    double ms_small1;                          /* median, tiles of SMALL_TILE, 1 thread */
    size_t peak_whole, peak_tiled;             /* [Units: bytes] */
    ptl_bake_stats whole, tiled;               /* of the last runs */
    bool same;                                 /* tiled and one-piece blobs equal past the header */
    double rc_solo_ms, rc_tiled_ms;            /* medians */
    size_t rc_solo_peak, rc_tiled_peak;
    uint32_t rc_polys_solo, rc_polys_tiled;
    double rc_area_tiled;
    bool rc_solo_ok, rc_tiled_ok;
    long rss_ours_kb, rss_rc_kb; /* process peaks (load + tiled bake), -1: not measured */
    char rc_error[200];
} scene_run;

static double mib(size_t b) { return b / 1048576.0; }
static double ratio(double a, double b) { return b > 0 ? a / b : 0; }

/* One Portolan bake; returns its wall time in ms, or < 0 with r->error set. */
static double bake_once(const ptl_trimesh* m, uint32_t tile, unsigned threads, bench_tracker* tr, void** blob,
                        size_t* size, ptl_bake_stats* bs, scene_run* r) {
    ptl_bake_desc d;
    bench_reference_desc(&d);
    d.tile_size = tile;
    ptl_thread_jobs jobs;
    ptl_thread_jobs_init(&jobs, threads);
    if (threads > 1) d.jobs = &jobs.sys;
    ptl_allocator ta;
    if (tr) {
        ta = bench_tracker_allocator(tr);
        d.alloc = &ta;
    }
    ptl_error err;
    double t = bench_now_ms();
    ptl_status st = ptl_bake_trimesh(m, &d, blob, size, bs, &err);
    t = bench_now_ms() - t;
    if (st < 0) {
        snprintf(r->error, sizeof r->error, "bake (tile %u, %u threads): %.200s", tile, threads, err.message);
        return -1;
    }
    return t;
}

static void free_blob(void* blob, size_t size, bench_tracker* tr) {
    if (tr) {
        ptl_allocator a = bench_tracker_allocator(tr);
        ptl_blob_free(blob, size, &a);
    } else {
        ptl_blob_free(blob, size, NULL);
    }
}

static void run_scene(const ptl_trimesh* m, const char* name, int reps, scene_run* r) {
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->triangles = m->tri_count;
    double w[8], t1[8], t2[8], t64[8], rs[8], rt[8];
    void *bw = NULL, *bt = NULL;
    size_t sw = 0, st = 0;
    r->ok = true;
    for (int k = 0; k < reps && r->ok; ++k) {
        bench_tracker trw = {0}, trt = {0};
        if (bw) free(bw), bw = NULL;
        void* b;
        size_t s;
        if ((w[k] = bake_once(m, 0, 1, &trw, &b, &s, &r->whole, r)) < 0) {
            r->ok = false;
            break;
        }
        bw = malloc(s), memcpy(bw, b, s), sw = s;
        free_blob(b, s, &trw);
        r->peak_whole = trw.peak;
        if ((t1[k] = bake_once(m, TILE, 1, &trt, &b, &s, &r->tiled, r)) < 0) {
            r->ok = false;
            break;
        }
        if (bt) free(bt);
        bt = malloc(s), memcpy(bt, b, s), st = s;
        free_blob(b, s, &trt);
        r->peak_tiled = trt.peak;
        ptl_bake_stats bs2;
        if ((t2[k] = bake_once(m, TILE, 2, NULL, &b, &s, &bs2, r)) < 0) {
            r->ok = false;
            break;
        }
        free_blob(b, s, NULL);
        if ((t64[k] = bake_once(m, SMALL_TILE, 1, NULL, &b, &s, &bs2, r)) < 0) {
            r->ok = false;
            break;
        }
        free_blob(b, s, NULL);
    }
    if (r->ok) {
        r->ms_small1 = bench_median(t64, (size_t)reps);
        r->ms_whole = bench_median(w, (size_t)reps);
        r->ms_tiled1 = bench_median(t1, (size_t)reps);
        r->ms_tiled2 = bench_median(t2, (size_t)reps);
        r->same = sw == st && sw > 256 && memcmp((char*)bw + 256, (char*)bt + 256, sw - 256) == 0;
    }
    free(bw);
    free(bt);
    /* Recast, solo and tiled. */
    int* tris = malloc(sizeof(int) * 3 * ((size_t)m->tri_count + 1));
    if (!tris) return;
    for (size_t i = 0; i < 3 * (size_t)m->tri_count; ++i) tris[i] = (int)m->tris[i];
    r->rc_solo_ok = r->rc_tiled_ok = true;
    for (int k = 0; k < reps; ++k) {
        for (int tiled = 0; tiled < 2; ++tiled) {
            if (!(tiled ? r->rc_tiled_ok : r->rc_solo_ok)) continue;
            peer_params p;
            peer_params_reference(&p);
            p.tile_size = tiled ? RC_TILE : 0;
            peer_mesh* pm = NULL;
            peer_stats ps;
            double t = bench_now_ms();
            int e = peer_bake_triangles(m->verts, (int)m->vert_count, tris, (int)m->tri_count, &p, &pm, &ps);
            t = bench_now_ms() - t;
            if (e != 0) {
                snprintf(r->rc_error, sizeof r->rc_error, "Recast %s: %.160s", tiled ? "tiled" : "solo", ps.error);
                if (tiled) r->rc_tiled_ok = false;
                else r->rc_solo_ok = false;
                continue;
            }
            peer_free(pm);
            if (tiled) {
                rt[k] = t, r->rc_tiled_peak = ps.peak_heap_bytes + ps.navmesh_bytes, r->rc_polys_tiled = ps.polygons;
                r->rc_area_tiled = ps.walkable_area;
            } else {
                rs[k] = t, r->rc_solo_peak = ps.peak_heap_bytes + ps.navmesh_bytes, r->rc_polys_solo = ps.polygons;
            }
        }
    }
    if (r->rc_solo_ok) r->rc_solo_ms = bench_median(rs, (size_t)reps);
    if (r->rc_tiled_ok) r->rc_tiled_ms = bench_median(rt, (size_t)reps);
    free(tris);
}

/* ---- Whole processes ----------------------------------------------------------------------------
   The target gives Recast's tiled bake of dungeon 8x8 as 26 MiB, a whole process's figure (the input
   mesh included), where the tables above count only the bakes' heaps. So each side also runs as a
   process of its own, this program started again as `portolan-bench rss portolan|recast FILE`:
   it loads the OBJ with the library's reader (the same input in memory for both), bakes it tiled
   (Portolan tiles of TILE columns, one thread; Recast tiles of RC_TILE voxels) and prints its peak
   resident set (getrusage's ru_maxrss, KiB), which covers the reading of the file, the mesh and
   the bake. */
int bench_tiles_rss_child(const char* who, const char* path) {
    ptl_trimesh m;
    ptl_error err;
    if (ptl_obj_load(path, NULL, &m, &err) < 0) {
        fprintf(stderr, "portolan-bench rss: %s\n", err.message);
        return 1;
    }
    int rc = 0;
    if (!strcmp(who, "portolan")) {
        ptl_bake_desc d;
        memset(&d, 0, sizeof d);
        d.cell_size = 0.3f, d.cell_height = 0.2f, d.agent_radius = 0.6f, d.tile_size = TILE;
        void* blob;
        size_t size;
        if (ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err) < 0) {
            fprintf(stderr, "portolan-bench rss: %s\n", err.message);
            rc = 1;
        } else {
            ptl_blob_free(blob, size, NULL);
        }
    } else {
        peer_params p;
        peer_params_reference(&p);
        p.tile_size = RC_TILE;
        peer_mesh* pm = NULL;
        peer_stats ps;
        if (peer_bake_triangles(m.verts, (int)m.vert_count, (const int*)m.tris, (int)m.tri_count, &p, &pm, &ps) != 0) {
            fprintf(stderr, "portolan-bench rss: Recast: %s\n", ps.error);
            rc = 1;
        } else {
            peer_free(pm);
        }
    }
    ptl_trimesh_free(&m);
    struct rusage ru;
    if (rc == 0 && getrusage(RUSAGE_SELF, &ru) == 0) printf("%ld\n", ru.ru_maxrss);
    return rc;
}

/* The peak of `portolan-bench rss who path` run as a child process, in KiB; -1 on failure. */
static long child_rss_kb(const char* who, const char* path) {
    char self[1024], cmd[3200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return -1;
    self[n] = 0;
    snprintf(cmd, sizeof cmd, "'%s' rss %s '%s'", self, who, path);
    FILE* f = popen(cmd, "r");
    if (!f) return -1;
    long kb = -1;
    if (fscanf(f, "%ld", &kb) != 1) kb = -1;
    if (pclose(f) != 0) kb = -1;
    return kb;
}

/* Writes the scene to a temporary OBJ and measures both processes on it. */
static void measure_processes(const ptl_trimesh* m, scene_run* r) {
    r->rss_ours_kb = r->rss_rc_kb = -1;
    char path[] = "/tmp/portolan-bench-XXXXXX"; /* mkstemp's template: it replaces the six X with a unique name */
    int fd = mkstemp(path);
    if (fd < 0) return;
    close(fd);
    ptl_error err;
    if (ptl_trimesh_save_obj(m, path, &err) >= 0) {
        r->rss_ours_kb = child_rss_kb("portolan", path);
        r->rss_rc_kb = child_rss_kb("recast", path);
    }
    remove(path);
}

int bench_tiles_run(const char* data, bool quick) {
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/dungeon.obj", data);
    ptl_trimesh dungeon;
    ptl_error err;
    if (ptl_obj_load(path, NULL, &dungeon, &err) < 0) {
        fprintf(stderr, "portolan-bench: tiles: %s\n", err.message);
        return 1;
    }
    scene_run runs[MAX_SCENES];
    int n = 0, rc = 0;
    const uint32_t ks[] = {1, 2, 4, 8};
    for (int i = 0; i < 4 && (!quick || ks[i] <= 2); ++i) {
        ptl_copies_desc cd = {.copies = ks[i], .spacing = 0, .gap = 0};
        ptl_trimesh m;
        if (ptl_trimesh_copies(&dungeon, &cd, &m, &err) < 0) {
            fprintf(stderr, "portolan-bench: tiles: copies: %s\n", err.message);
            rc = 1;
            continue;
        }
        char name[64];
        snprintf(name, sizeof name, "dungeon %ux%u", ks[i], ks[i]);
        fprintf(stderr, "tiles: %s (%u triangles)\n", name, m.tri_count);
        run_scene(&m, name, quick ? 1 : 3, &runs[n]);
        runs[n].rss_ours_kb = runs[n].rss_rc_kb = -1;
        if (!quick && ks[i] == 8) measure_processes(&m, &runs[n]);
        ++n;
        ptl_trimesh_free(&m);
    }
    ptl_trimesh_free(&dungeon);
    if (!quick) {
        snprintf(path, sizeof path, "%s/grids/sc1/Aurora.map", data);
        ptl_grid g;
        ptl_trimesh m;
        if (ptl_grid_load(path, NULL, &g, &err) < 0 || ptl_grid_extrude(&g, NULL, &m, &err) < 0) {
            fprintf(stderr, "portolan-bench: tiles: Aurora: %s\n", err.message);
            rc = 1;
        } else {
            fprintf(stderr, "tiles: Aurora extruded (%u triangles)\n", m.tri_count);
            run_scene(&m, "sc1/Aurora extruded", 3, &runs[n]);
            measure_processes(&m, &runs[n++]);
            ptl_trimesh_free(&m);
            ptl_grid_free(&g);
        }
    }

    printf("## Tiled bake\n\n");
    printf("Recast's reference parameters (cell 0.3, radius 0.6). Portolan's default bake (tile_size 0: one navmesh tile, its voxel stages in hidden tiles of 192 columns, 1 thread) and in tiles of %d "
           "columns (1 and 2 threads); Recast solo and tiled (%d voxels, one thread), Recast 1.5.1 from "
           "librecast-dev in the same process. Times: medians of %d runs, bake only (meshes "
           "generated in memory). Peak: Portolan's live heap of the 1-thread bake (blob included), Recast's "
           "peak rcAlloc heap plus its Detour tile data (its output). `same` = the tiled blob equals the default blob past the header (both equal the true one-piece bake: tests/test_tiles.c).\n\n",
           TILE, RC_TILE, quick ? 1 : 3);
    printf("| scene | triangles | default ms | tiled 1T ms | tiled 2T ms | Recast solo ms | Recast tiled ms | "
           "2T / Recast's faster | peak MiB default | peak MiB tiled | Recast tiled MiB | cells | Recast polys "
           "(tiled) | same |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; ++i) {
        const scene_run* r = &runs[i];
        if (!r->ok) {
            printf("| %s | %u | failed: %s |||||||||||\n", r->name, r->triangles, r->error);
            rc = 1;
            continue;
        }
        double faster = r->rc_solo_ok && r->rc_tiled_ok ? fmin(r->rc_solo_ms, r->rc_tiled_ms)
                        : r->rc_tiled_ok               ? r->rc_tiled_ms
                                                       : r->rc_solo_ms;
        printf("| %s | %u | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.1f | %.1f | %.1f | %u | %u | %s |\n", r->name,
               r->triangles, r->ms_whole, r->ms_tiled1, r->ms_tiled2, r->rc_solo_ms, r->rc_tiled_ms,
               ratio(r->ms_tiled2, faster), mib(r->peak_whole), mib(r->peak_tiled), mib(r->rc_tiled_peak),
               r->tiled.cells, r->rc_polys_tiled, r->same ? "yes" : "NO");
        if (!r->same) rc = 1;
        if (r->rc_error[0]) printf("\n(%s: %s)\n", r->name, r->rc_error);
    }
    printf("\n### Whole processes: OBJ load and tiled bake\n\n"
           "Peak resident set of a process that reads the scene's OBJ with the library's reader and bakes it "
           "(Portolan: tiles of %d, 1 thread; Recast: tiles of %d voxels), `portolan-bench rss` started anew for "
           "each; the file's text, the mesh and the bake all count (the target quotes Recast's figure this way: 26 MiB "
           "on dungeon 8x8).\n\n| scene | Portolan MiB | Recast MiB | ratio |\n|---|---|---|---|\n",
           TILE, RC_TILE);
    for (int i = 0; i < n; ++i) {
        const scene_run* r = &runs[i];
        if (!r->ok || r->rss_ours_kb < 0) continue;
        printf("| %s | %.1f | %.1f | %.2f |\n", r->name, r->rss_ours_kb / 1024.0, r->rss_rc_kb / 1024.0,
               r->rss_rc_kb > 0 ? (double)r->rss_ours_kb / (double)r->rss_rc_kb : NAN);
    }
    printf("\n### Time against triangles (tiles of %d, 2 threads)\n\n| scene | triangles | ms | µs per 1k triangles "
           "| Recast tiled ms | µs per 1k triangles |\n|---|---|---|---|---|---|\n",
           TILE);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; ++i) {
        const scene_run* r = &runs[i];
        if (!r->ok) continue;
        double per = 1e3 * r->ms_tiled2 / (r->triangles / 1e3), rper = 1e3 * r->rc_tiled_ms / (r->triangles / 1e3);
        if (r->triangles >= 100000) lo = fmin(lo, per), hi = fmax(hi, per);
        printf("| %s | %u | %.0f | %.1f | %.0f | %.1f |\n", r->name, r->triangles, r->ms_tiled2, per, r->rc_tiled_ms, rper);
    }
    /* Targets */
    const scene_run* d8 = NULL;
    const scene_run* au = NULL;
    for (int i = 0; i < n; ++i) {
        if (!strcmp(runs[i].name, "dungeon 8x8") && runs[i].ok) d8 = &runs[i];
        if (strstr(runs[i].name, "Aurora") && runs[i].ok) au = &runs[i];
    }
    printf("\n### Tile size (1 thread)\n\nThe same bakes in tiles of %d and %d columns, one thread (medians): smaller "
           "tiles rebake faster around an obstacle, and each carries a border of columns it rasterizes and filters for "
           "its neighbours.\n\n| scene | tiles of %d ms | tiles of %d ms | ratio |\n|---|---|---|---|\n",
           SMALL_TILE, TILE, SMALL_TILE, TILE);
    for (int i = 0; i < n; ++i) {
        const scene_run* r = &runs[i];
        if (r->ok) printf("| %s | %.0f | %.0f | %.2f |\n", r->name, r->ms_small1, r->ms_tiled1, ratio(r->ms_small1, r->ms_tiled1));
    }
    printf("\n### Targets (tiles)\n\n| target | measured | met |\n|---|---|---|\n");
    if (d8) {
        printf("| dungeon 8x8: 1-thread bake (tiles of %d) <= 0.5x Recast's solo bake | %.0f ms / %.0f ms = %.2f | %s |\n", TILE,
               d8->ms_tiled1, d8->rc_solo_ms, ratio(d8->ms_tiled1, d8->rc_solo_ms),
               d8->rc_solo_ok && d8->ms_tiled1 <= 0.5 * d8->rc_solo_ms ? "yes" : "no");
        printf("| dungeon 8x8: tiles of %d within 10%% of tiles of %d (1 thread) | %.0f ms / %.0f ms = %.2f | %s |\n",
               SMALL_TILE, TILE, d8->ms_small1, d8->ms_tiled1, ratio(d8->ms_small1, d8->ms_tiled1),
               d8->ms_small1 <= 1.1 * d8->ms_tiled1 ? "yes" : "no");
    }
    for (int s = 0; s < 2; ++s) {
        const scene_run* r = s ? au : d8;
        if (!r) continue;
        double faster = fmin(r->rc_solo_ok ? r->rc_solo_ms : INFINITY, r->rc_tiled_ok ? r->rc_tiled_ms : INFINITY);
        printf("| %s: 2-thread bake <= 0.5x Recast's faster bake | %.0f ms / %.0f ms = %.2f | %s |\n", r->name,
               r->ms_tiled2, faster, ratio(r->ms_tiled2, faster), r->ms_tiled2 <= 0.5 * faster ? "yes" : "no");
        /* The target's reading: it quotes Recast's tiled bake of dungeon 8x8 at 26 MiB, a whole
           process (Recast's own heap is under 2 MiB); the heaps alone are shown beside it. */
        if (r->rss_ours_kb > 0 && r->rss_rc_kb > 0)
            printf("| %s: peak memory <= Recast's tiled bake (whole processes: OBJ load and bake, the quoted 26 MiB) | "
                   "%.1f MiB / %.1f MiB = %.2f | %s |\n",
                   r->name, r->rss_ours_kb / 1024.0, r->rss_rc_kb / 1024.0, (double)r->rss_ours_kb / (double)r->rss_rc_kb,
                   r->rss_ours_kb <= r->rss_rc_kb ? "yes" : "no");
        else
            printf("| %s: peak memory <= Recast's tiled bake (whole processes) | not measured | no |\n", r->name);
        printf("| %s: the bake's heap beside Recast's working heap and Detour data (not the same things: ours "
               "holds the blob and its landmarks, neither holds the mesh) | %.1f MiB / %.1f MiB = %.2f | (shown) |\n",
               r->name, mib(r->peak_tiled), mib(r->rc_tiled_peak), ratio((double)r->peak_tiled, (double)r->rc_tiled_peak));
    }
    if (au)
        printf("| the 1.1M-triangle scene (Aurora extruded, %u triangles) under 5 s on 2 threads | %.2f s | %s |\n",
               au->triangles, au->ms_tiled2 / 1e3, au->ms_tiled2 < 5000 ? "yes" : "no");
    if (hi > 0)
        printf("| time grows linearly with triangles (µs per 1k triangles from 100k up: within 2x) | %.1f .. %.1f | %s |\n",
               lo, hi, hi <= 2 * lo ? "yes" : "no");
    printf("\n");
    return rc;
}
