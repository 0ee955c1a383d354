/* The peer: Recast/Detour (Debian's librecast-dev 1.5.1, 32-bit polygon references) behind a small C
   interface, so the C benchmarks can bake and query the same input with the library game developers
   compare Portolan with, in the same run, and report ratios.

   What it does
   - peer_bake_grid: extrudes a grid map into floor triangles (two per free cell at y = 0; cell (x, y)
     is the square [x, x+1] x [y, y+1] at world (x, 0, y); blocked cells have no floor and no walls)
     and bakes them like peer_bake_triangles.
   - peer_bake_triangles: the standard Recast pipeline on a triangle soup (mark walkable slopes,
     rasterize, filter, compact heightfield, erode, distance field + watershed regions, contours,
     polygon mesh, detail mesh, Detour tile data), solo or tiled, into a dtNavMesh with a query.
   - peer_path: findNearestPoly for start and goal, findPath, findStraightPath, timed as one query.
   - peer_random_point: dtNavMeshQuery::findRandomPoint.

   Minimal example
       peer_params p; peer_params_grid(&p);
       peer_mesh* m; peer_stats st;
       if (peer_bake_grid(passable, w, h, &p, &m, &st) != 0) { puts(st.error); return; }
       float a[3] = {1, 0, 1}, b[3] = {40, 0, 12};
       peer_path_result r;
       peer_path(m, a, b, NULL, NULL, 0, &r);  // r.found, r.complete, r.length, r.us
       peer_free(m);

   Ownership: peer_mesh owns the Detour navmesh, its tile data and its query object; peer_free
   releases everything. Inputs are only read during the call.

   Threads: a peer_mesh holds one dtNavMeshQuery, so one thread per mesh. The bake installs a
   counting allocator into Recast's process-wide allocator hook for its duration (to report the
   peak heap) and restores the default afterwards: do not bake on two threads at once. */
#ifndef PORTOLAN_BENCH_PEER_RECAST_H
#define PORTOLAN_BENCH_PEER_RECAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bake parameters. Start from peer_params_reference() (3D scenes) or peer_params_grid() (grid maps)
   and change what you need; every field is used as given. */
typedef struct peer_params {
    float cell_size;      /* voxel size in x-z. [Units: wu] [Limit: > 0] */
    float cell_height;    /* voxel size in y. [Units: wu] [Limit: > 0] */
    float agent_height;   /* [Units: wu] [Limit: > 0] */
    float agent_radius;   /* erodes the walkable area by ceil(radius / cell_size) voxels. [Units: wu] [Limit: >= 0] */
    float max_climb;      /* [Units: wu] [Limit: >= 0] */
    float max_slope;      /* [Units: degrees] [Limit: 0..90) */
    int tile_size;        /* tile side in voxels; 0: one solo tile over the whole input. [Units: vx] [Limit: 0 or >= 16] */
    float max_edge_len;   /* longest contour edge along walls; 0: unlimited. [Units: wu] [Limit: >= 0] */
    float max_error;      /* contour simplification tolerance. [Units: vx] [Limit: >= 0] */
    int region_min_size;  /* isolated regions smaller than size^2 voxels are removed. [Units: vx] [Limit: >= 0] */
    int region_merge_size;/* regions smaller than size^2 voxels are merged into neighbours. [Units: vx] [Limit: >= 0] */
    int verts_per_poly;   /* [Limit: 3..6] (Detour's DT_VERTS_PER_POLYGON is 6) */
    float detail_sample_dist;      /* detail mesh sampling step in cells; < 0.9: no sampling. [Units: cell_size] */
    float detail_sample_max_error; /* detail mesh height tolerance in cell heights. [Units: cell_height] */
    /* Run rcFilterLedgeSpans (Recast's default pipeline). A span next to a column with no floor within
       max_climb is a ledge and becomes unwalkable. */
    bool filter_ledges;
} peer_params;

/* Recast's reference parameters (RecastDemo's defaults; ../shared/data/README.md): cell 0.3, cell
   height 0.2, agent height 2.0, radius 0.6, climb 0.9, slope 45, edge 12 wu, error 1.3 vx, region
   sizes 8 and 20, 6 vertices per polygon, detail 6 and 1, ledge filter on, solo (tile_size 0). */
void peer_params_reference(peer_params* out);

/* The same pipeline scaled to a grid where one map cell is one metre: cell 0.5 (two voxels per map
   cell, so every map-cell edge is a voxel edge and contours start on the true boundary), cell
   height 0.2, agent height 2, radius 0 (Portolan's bake radius is 0 too), climb 0.9, slope 45,
   edge 12 wu (12 map cells = 24 voxels), error 1.3 vx, region sizes 8 and 20 (64 and 400
   voxels = 16 and 100 map cells), 6 vertices per polygon, detail 6 and 1, tiles of 128 voxels
   (64 map cells: how Recast users bake large maps; it bounds the working set, 0.6 MB peak heap
   on Aurora against 87 MB solo, and keeps every tile far inside Detour's 16-bit vertex
   coordinates and the 22 tile + polygon bits of 32-bit references), and no ledge filter: a grid
   has no walls, only missing floor, so the filter reads every blocked cell as a cliff and strips
   the voxel next to it, half a map cell along every wall, closing one-cell doors (on
   room512/64room_000 only 110 of 2030 scenarios stay complete with it). */
void peer_params_grid(peer_params* out);

typedef struct peer_stats {
    /* [Units: ms]; stage times are summed over tiles. */
    double ms_total;      /* everything below */
    double ms_input;      /* grid extrusion into triangles (grids) and binning triangles into tiles */
    double ms_rasterize;  /* rcMarkWalkableTriangles + rcCreateHeightfield + rcRasterizeTriangles */
    double ms_filter;     /* low-hanging obstacles, ledges, low-height spans */
    double ms_compact;    /* rcBuildCompactHeightfield + rcErodeWalkableArea */
    double ms_regions;    /* rcBuildDistanceField + rcBuildRegions (watershed) */
    double ms_contours;   /* rcBuildContours */
    double ms_polymesh;   /* rcBuildPolyMesh */
    double ms_detail;     /* rcBuildPolyMeshDetail */
    double ms_navmesh;    /* dtCreateNavMeshData, dtNavMesh::init, addTile, dtNavMeshQuery::init */
    uint32_t input_triangles;
    uint32_t tiles_x, tiles_z; /* tile grid */
    uint32_t tiles;       /* tiles with at least one polygon */
    uint32_t polygons;    /* Detour polygons (sum over tiles) */
    uint32_t vertices;    /* polygon-mesh vertices (sum over tiles; tile borders count twice) */
    uint32_t detail_triangles;
    uint32_t max_tile_polygons;
    double walkable_area; /* sum of polygon areas in x-z. [Units: wu^2] */
    /* Walkable spans of the compact heightfield after erosion (before regions, contours and
       polygon simplification), summed over tiles, tile borders excluded: times cell_size^2, the
       voxel walkable area, the fairest comparison with another voxel bake. */
    uint32_t walkable_spans;
    size_t navmesh_bytes; /* Detour tile data, summed */
    size_t peak_heap_bytes; /* peak of Recast's own heap (rcAlloc) during the bake */
    uint32_t warnings;    /* Recast log warnings (contour or region trouble); the first is kept below */
    char warning[160];
    char error[256];      /* why the bake failed; empty on success */
} peer_stats;

typedef struct peer_mesh peer_mesh;

/* `passable`: w * h bytes, row-major (row y is z = y), non-zero = free. `params` NULL: peer_params_grid.
   Returns 0 on success, -1 on failure (stats->error says why); `stats` is required. */
int peer_bake_grid(const uint8_t* passable, uint32_t w, uint32_t h, const peer_params* params, peer_mesh** out,
                   peer_stats* stats);

/* `verts`: 3 floats per vertex (y up); `tris`: 3 indices per triangle, counter-clockwise seen from
   above for floors (Recast's convention). `params` NULL: peer_params_reference. */
int peer_bake_triangles(const float* verts, int nverts, const int* tris, int ntris, const peer_params* params,
                        peer_mesh** out, peer_stats* stats);

void peer_free(peer_mesh* m);

typedef struct peer_path_result {
    bool start_found, goal_found; /* a polygon lies within the extents of the point */
    bool found;         /* findPath returned a non-empty corridor (it may stop short: see complete) */
    bool complete;      /* the corridor ends in the goal's polygon and Detour did not flag a partial result */
    bool out_of_nodes;  /* Detour's node pool ran out (DT_OUT_OF_NODES) */
    uint32_t polys;     /* corridor length */
    uint32_t corners;   /* straight-path points, start and end included */
    uint32_t status;    /* findPath's dtStatus */
    double length;      /* of the straight path. [Units: wu] */
    double us;          /* wall time of the whole query (both snaps, findPath, findStraightPath). [Units: us] */
} peer_path_result;

/* `extents`: snap box half-extents, NULL: 2, 4, 2. `points` (may be NULL): receives up to `capacity`
   straight-path points, 3 floats each. When the goal is unreachable the straight path runs to the
   point of the last corridor polygon closest to the goal. Returns 0, or -1 on bad arguments. */
int peer_path(peer_mesh* m, const float start[3], const float goal[3], const float extents[3], float* points,
              uint32_t capacity, peer_path_result* out);

/* A random point on the mesh, uniform by area (Detour's findRandomPoint). Detour takes a bare
   float(*)(), so the generator is a process-wide xorshift32 in peer_recast.cpp; peer_random_seed
   resets it (seed 0 is mapped to a fixed non-zero state). Returns 0, or -1 when the mesh is empty. */
void peer_random_seed(uint32_t seed);
int peer_random_point(peer_mesh* m, float out[3]);

/* The everyday queries of dtNavMeshQuery on one input row, for bench_queries.c. The start's polygon
   is found first (findNearestPoly within `extents`, NULL: 2, 4, 2); `us` times the query call alone
   (what a game holding its agent's polygon pays) and `us_locate` that findNearestPoly. Return 0, or
   -1 when the start has no polygon (nothing else is set). */
typedef struct peer_query_out {
    float point[3];   /* nearest: the point; raycast: the hit point (or the end); wall: the wall point;
                         move: the end */
    float t;          /* raycast: Detour's t (FLT_MAX when not hit) */
    float dist;       /* wall: the distance */
    bool hit;         /* raycast: a wall stops it; wall: one within the radius */
    uint32_t visited; /* move: polygons visited */
    bool has_height;  /* move: getPolyHeight on the end's polygon succeeded */
    float poly_height;/* move: getPolyHeight's height there (Detour's moveAlongSurface keeps the start's y) */
    double us, us_locate;
    double us_height; /* move: `us` plus getPolyHeight on the end's polygon, called right after it (a game
                         asks the height after each move, as dtPathCorridor::movePosition does: Detour's
                         end keeps the start's y), its interval less an empty one (the clock's own
                         cost, already in `us`) [us] */
} peer_query_out;
int peer_query_nearest(peer_mesh* m, const float p[3], const float extents[3], peer_query_out* out);
int peer_query_raycast(peer_mesh* m, const float s[3], const float e[3], const float extents[3], peer_query_out* out);
int peer_query_wall(peer_mesh* m, const float p[3], float radius, const float extents[3], peer_query_out* out);
int peer_query_move(peer_mesh* m, const float s[3], const float e[3], const float extents[3], peer_query_out* out);

/* The bytes a dtNavMeshQuery on this mesh allocates with max_nodes nodes (its node pools and open
   list), counted through Detour's allocator hook; 0 on failure. */
size_t peer_query_bytes(peer_mesh* m, int max_nodes);

#ifdef __cplusplus
}
#endif
#endif
