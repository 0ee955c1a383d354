/* The benchmark program (portolan-bench): its sections and what they share.

   portolan-bench [2d] [3d] [tiles] [radius] [reference] [--quick] [--data DIR] [--out DIR]
   - 2d (bench2d.c): the 2D tables (decomposition, queries, Recast/Detour on grid maps).
   - 3d (bench3d.c): the 3D tables (3D bake per stage, peak memory, cells, walkable area and
     connectivity beside Recast/Detour at Recast's reference parameters).
   - tiles (bench_tiles.c): the tiled tables (tiled bake on dungeon copies and extruded Aurora, 1 and
     2 threads, peak memory, beside Recast solo and tiled; time against triangles).
   - radius (bench_radius.c): paths for an agent radius from one radius-0 bake, beside Detour's
     bake per radius (dungeon), and on sc1/Aurora.
   - queries (bench_queries.c): nearest, raycast, wall distance and move along surface beside
     Detour's on Detour's inputs (dungeon, nav_test, undulating): times, ratios, agreement, heights.
   - reference (reference.c): writes the Detour reference data the tests read
     (tests/data/detour/, or --out DIR); prints nothing to stdout.
   With no section named, 2d, 3d, tiles, radius and queries run. Tables go to stdout as Markdown (bench/run.sh keeps them in
   bench/RESULTS.md); progress and problems go to stderr. Never part of the test run. */
#ifndef PORTOLAN_BENCH_H
#define PORTOLAN_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <portolan/bake.h>
#include <portolan/gen.h>

#include "peer_recast.h"

/* Each returns 0 on success, 1 when something it needs failed (it says what on stderr). */
int bench2d_run(const char* data, bool quick);
int bench3d_run(const char* data, bool quick);
/* `portolan-bench paths [--mesh NAME] [--dump] [--loop N]`: the 3d section's path-query table alone (meshes
   whose file name contains NAME), each mesh baked once; --dump lists every pair's exact time, --loop runs
   the exact queries N more times (for a profiler). */
int bench3d_paths_run(const char* data, const char* only, bool dump, int loop);
int bench_tiles_run(const char* data, bool quick);
int bench_radius_run(const char* data, bool quick); /* bench_radius.c: paths for an agent radius */
/* bench_queries.c: the everyday queries beside Detour's (only: one mesh, kind: one query kind, or NULL for all) */
int bench_queries_run(const char* data, bool quick, const char* only, const char* kind);
/* `portolan-bench gpu [--quick]` (bench_gpu.c): the decomposition's search on CPU, GPU and reference
   against notch count; needs an OpenGL 4.3 context. Not part of the default sections. */
int bench_gpu_run(bool quick);
int bench_random_run(const char* data);            /* bench_random.c: random points beside Detour */
int bench_tilecache_run(const char* data, const char* only, int rounds); /* bench_tilecache.c: obstacles */
/* Portolan's tile cache numbers of one mesh (dungeon, nav_test, undulating), kept by bench_tilecache_run
   for the TileCache table that follows it (bench_tilecache_peer.c) in the same run. */
#define BENCH_TC_MESHES 3
typedef struct bench_tc_ours {
    bool valid;
    double med_ms, p99_ms; /* add + update, the default cache */
    size_t cache_bytes;    /* the cache as stored (ptl_tilecache_bake's output) */
} bench_tc_ours;
extern bench_tc_ours bench_tc_ours_by_mesh[BENCH_TC_MESHES];
int bench_tilecache_peer_run(const char* data, const char* only, int rounds); /* DetourTileCache beside it */
/* The csv's obstacles as descs (cylinders r 1 h 2 standing 0.5 m below the ground point, boxes
   2x2x2 and 3x2x1 turned by yaw_rad on the same base); calls (may be NULL): each one's recorded
   add_update_calls (-1: none). The count, or -1. */
int bench_tc_read_obstacles(const char* path, ptl_obstacle_desc* out, int* calls, int cap);
int bench_tilecache_many_run(float size, uint32_t count, uint32_t seed); /* bench_tilecache_many.c */
/* `portolan-bench rss portolan|recast FILE`: loads FILE and bakes it tiled, prints the process's
   peak resident set in KiB (bench_tiles.c measures each bake as a process of its own with it). */
int bench_tiles_rss_child(const char* who, const char* path);
int bench_reference_run(const char* data, const char* out_dir);

/* ---- measure.c: clocks, medians, the machine line, a peak-tracking allocator --------------------*/
double bench_now_ms(void);                 /* CLOCK_MONOTONIC [Units: ms] */
double bench_median(double* v, size_t n);  /* sorts v; the upper median; 0 for n = 0 */
double bench_cpu_ms(bool whole_process);   /* the calling thread's (or the process's) CPU time [Units: ms] */
/* The median and p99 of v[0..n) (left unsorted; a sorted copy); 0, 0 for n = 0. */
void bench_med_p99(const double* v, size_t n, double* med, double* p99);
void bench_print_machine(void);            /* "Machine: <cpu>, N cores online, <os>; compiler; run <date>." */

/* A ptl_allocator that counts live bytes and keeps their peak. Each block carries its size in a
   16-byte header, so a size the library passes to free or realloc that disagrees with what it
   allocated is caught (counted in `mismatches`) rather than silently skewing the count. */
typedef struct bench_tracker {
    size_t live, peak;      /* [Units: bytes] */
    uint64_t allocations;   /* alloc and realloc calls */
    uint64_t mismatches;    /* free/realloc calls whose size disagreed with the block's */
} bench_tracker;

/* An allocator bound to `t` (which must outlive every block allocated through it). */
ptl_allocator bench_tracker_allocator(bench_tracker* t);
/* Starts a new measurement: peak = live (blocks still alive keep counting). */
void bench_tracker_reset_peak(bench_tracker* t);

/* The .obj files of DIR/meshes, sorted, as malloc'd names ("dungeon.obj"); NULL-terminated. Free
   with bench_free_list. */
char** bench_list_meshes(const char* data);
void bench_free_list(char** list);

/* ---- reference.c: Recast/Detour on a triangle mesh, and Detour's answers on random pairs ---------*/
enum { BENCH_PAIRS = 1000 };          /* pairs per mesh, for the reference data and the 3D bench */
#define BENCH_PAIR_SEED 0x9e3779b9u   /* xorshift32 seed of peer_random_point, reset for every mesh */

typedef struct bench_pair {
    float start[3], goal[3]; /* drawn with Detour's findRandomPoint: start then goal, pair after pair */
    bool complete;           /* Detour's corridor reaches the goal's polygon and is not partial */
    double length;           /* [Units: wu] Detour's straight path as a 3D polyline (to the closest
                                point it reached when not complete) */
    double plan_length;      /* [Units: wu] the same path's length in plan (x-z) */
} bench_pair;

/* Recast's reference parameters (peer_params_reference) on `m`. Returns 0, or -1 with st->error. */
int bench_recast_bake_trimesh(const ptl_trimesh* m, peer_mesh** out, peer_stats* st);
/* `n` pairs on `pm` from seed `seed`, each answered by Detour with extents 2, 4, 2. Returns 0, or -1
   when the mesh has no polygon to draw from. */
int bench_detour_pairs(peer_mesh* pm, uint32_t n, uint32_t seed, bench_pair* out);
/* Recast's reference parameters as a ptl_bake_desc (cell 0.3, height 0.2, agent 2.0, radius 0.6,
   climb 0.9, slope 45; everything else Portolan's default). */
void bench_reference_desc(ptl_bake_desc* d);

/* ---- disagreements.c: why Portolan's `found` and Detour's `complete` differ on a pair ----------*/
/* The connected piece of every cell (through portals), malloc'd; NULL when out of memory. */
uint32_t* bench_cell_pieces(const ptl_navmesh* nm);
/* One sentence on why pair `p` disagrees: `st` and `ours` are Portolan's answer (ours->points
   holding the whole path), `piece` from bench_cell_pieces. Uses `pm`'s query (one thread). */
void bench_explain_disagreement(ptl_query* q, const uint32_t* piece, peer_mesh* pm, const bench_pair* p,
                                ptl_status st, const ptl_path_result* ours, char* why, size_t cap);

#endif
