/* The tile cache peer: DetourTileCache (Debian's librecast-dev 1.5.1) behind a small C interface, so
   `portolan-bench tilecache` times TileCache's add + update in the same run as ours, on the same
   obstacles, instead of quoting numbers measured elsewhere.

   What it does
   - Builds the tile cache the way TileCache's users do (Recast's documented layer pipeline): per
     tile of `tile_size` voxels plus a border of walkable radius + 3, rasterize the triangles that
     touch it, filter (low-hanging obstacles, ledges if asked, low height), build the compact
     heightfield, erode by the agent radius, split into heightfield layers
     (rcBuildHeightfieldLayers), and store each layer compressed with LZ4 (Debian's liblz4;
     TileCache leaves the compressor to its user; RecastDemo uses FastLZ, so compressed sizes differ
     a little from the ones quoted in ../shared/data/README.md).
   - Each round: a fresh dtTileCache and dtNavMesh from copies of those layers, every tile built,
     then for each obstacle in order (accumulating, never removed): add it, and call update() until
     the cache says it is up to date. That add + update is timed (the thread's CPU time) and the
     update calls counted (one call rebuilds one tile).
   - A bump allocator serves TileCache's per-tile scratch memory (reset at each tile build), as
     TileCache's documentation asks of a caller that wants speed.

   Obstacles: kind 0 a cylinder (pos is its base centre; radius, height in size[0], size[1]), kind 1
   an axis-aligned box (pos its centre, half sizes in size[0..2]), kind 2 a box turned by yaw about
   y (pos its centre, half sizes, yaw in radians as dtTileCache::addBoxObstacle takes it).

   Threads: one call at a time (TileCache and Recast's allocator hooks are not shared). */
#ifndef PORTOLAN_BENCH_PEER_TILECACHE_H
#define PORTOLAN_BENCH_PEER_TILECACHE_H

#include <stddef.h>
#include <stdint.h>

#include "peer_recast.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct peer_tc_obstacle {
    int kind;      /* 0 cylinder, 1 box, 2 turned box */
    float pos[3];  /* [Units: wu] */
    float size[3]; /* see above. [Units: wu] */
    float yaw;     /* [Units: radians] */
} peer_tc_obstacle;

typedef struct peer_tc_stats {
    uint32_t tiles_x, tiles_z;
    uint32_t layers;              /* heightfield layers over all tiles */
    size_t compressed_bytes;      /* the layers as stored (LZ4, with TileCache's layer headers) */
    size_t uncompressed_bytes;    /* the same layers before compression */
    char error[256];              /* why it failed; empty on success */
} peer_tc_stats;

/* verts: 3 floats a vertex (y up); tris: 3 indices a triangle. params NULL: peer_params_reference
   (its tile_size is ignored: tile_size here). For each obstacle i, best_ms[i] receives the minimum
   over `rounds` rounds of its add + update (CPU ms) and calls[i] the update calls of the first
   round. Returns 0, or -1 with stats->error set. */
int peer_tilecache_run(const float* verts, int nverts, const int* tris, int ntris, const peer_params* params,
                       int tile_size, const peer_tc_obstacle* obs, int n, int rounds, double* best_ms, int* calls,
                       peer_tc_stats* stats);

#ifdef __cplusplus
}
#endif

#endif
