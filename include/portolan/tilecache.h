/* Portolan tile cache: dynamic obstacles on a baked 3D navmesh (bake library).

   What it does
   - A tile cache holds what a rebake needs per tile: the voxel stages' result (each walkable span's
     floor, ceiling, area tag and links, and the gap links), so obstacles never voxelize the world
     again. It is written next to the bake (ptl_tilecache_bake, `portolan bake --cache`) and loaded
     at run time (ptl_tilecache_create). A game that never rebakes links the runtime alone.
   - Obstacles (cylinder, axis-aligned or turned box, convex prism) are added, moved and removed
     through salted handles (a removed obstacle's handle is refused, never misread); there is no cap
     on their number. Each marks the tiles it overlaps dirty.
   - ptl_tilecache_update stamps the obstacles into the dirty tiles (in tile order) and rebakes the
     navmesh from the tiles: a walkable span is removed where an obstacle, widened by the agent
     radius, overlaps its column (the column's square, not only its centre, as the rasterizer
     sees geometry) and rises above its floor into the agent's height. The same obstacles give the
     same bytes whatever the order they were added or moved in; removing every obstacle gives the
     bytes of the original bake.

   The layers are kept per piece of 32 x 32 columns between updates, and an update floods again
   only the pieces holding a column whose spans changed; each layer whose traced outline and edge
   kinds did not change keeps its simplified contour and its decomposition, and a layer made again
   reuses the simplification's plan of every wall run whose points did not change; the merge
   still runs on the whole world. Rebuilding only the cells that overlap the dirty tiles inside a
   layer, and splicing them into a live navmesh while queries run, are the next steps. The blob it
   hands out is a plain navmesh blob (ptl_navmesh_create), the same bytes as full_rebake's.

   Minimal example
       void* cache; size_t cache_size; ptl_tilecache* tc; ptl_obstacle_ref ref; bool done;
       ptl_tilecache_bake(&mesh, &bake_desc, &cache, &cache_size, &err);   // bake_desc.tile_size set
       ptl_tilecache_create(cache, cache_size, NULL, &tc, &err);
       ptl_obstacle_desc o = {.kind = PTL_OBSTACLE_CYLINDER, .pos = {x, y, z}, .size = {0.5f, 2.0f}};
       ptl_tilecache_add(tc, &o, &ref, &err);
       ptl_tilecache_update(tc, 0, &done, &err);                            // 0: no budget
       const void* blob; size_t size; ptl_tilecache_blob(tc, &blob, &size); // owned by tc
       ptl_tilecache_destroy(tc); ptl_blob_free(cache, cache_size, NULL);

   Thread safety: a tile cache is used by one thread at a time; the blobs it hands out are read-only
   and may be loaded by any number of navmeshes. */
#ifndef PORTOLAN_TILECACHE_H
#define PORTOLAN_TILECACHE_H

#include "bake.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tile cache of the bake `desc` describes (desc->tile_size must be set: the cache's tiles are
   the bake's), to be freed with ptl_blob_free (with desc->alloc). Format: a part of a tiled bake that
   holds every tile (ptl_bake_trimesh_part: versioned, checksummed, the desc and a fingerprint of the
   mesh recorded), packed (magic "PTLC", versioned, checksummed, native byte order): its spans coded
   per column as small deltas, then a byte coder of repeats (LZ77), 1/48 to 1/58 of the part on
   the reference meshes (bench/NOTES.md).
   Off-mesh links are not in it: add them to the rebaked blobs at run time (ptl_navmesh_add_offmesh). */
ptl_status ptl_tilecache_bake(const ptl_trimesh* m, const ptl_bake_desc* desc, void** cache, size_t* size,
                              ptl_error* err);

typedef struct ptl_tilecache ptl_tilecache;

typedef struct ptl_tilecache_desc {
    const ptl_job_system* jobs; /* the rebakes' layers, contours and decompositions; NULL: in turn */
    const ptl_allocator* alloc; /* NULL: libc */
    /* false (default): each piece's layers are kept (32 x 32 columns, the layer map's blocks) and an
       update floods again only those holding a column the stamps changed. true: every update
       rebakes the whole world from the tiles (the reference the kept layers are tested against:
       the same bytes; slower, and less memory) */
    bool full_rebake;
} ptl_tilecache_desc;

ptl_tilecache_desc ptl_tilecache_desc_defaults(void);

/* Loads a cache (copied: the caller keeps `cache`; packed as ptl_tilecache_bake writes it, or an
   unpacked part that holds every tile) and bakes its navmesh with no obstacle (the bake's bytes). A damaged cache (truncated, corrupted, another version, not every tile) is
   PTL_ERR_BAD_BLOB or PTL_ERR_BAD_INPUT naming the problem; PTL_ERR_NO_MEMORY. */
ptl_status ptl_tilecache_create(const void* cache, size_t size, const ptl_tilecache_desc* desc, ptl_tilecache** out,
                                ptl_error* err);
void ptl_tilecache_destroy(ptl_tilecache* tc);

typedef enum ptl_obstacle_kind {
    PTL_OBSTACLE_CYLINDER = 1, /* pos: centre of the base; size[0]: radius, size[1]: height */
    PTL_OBSTACLE_BOX = 2,      /* pos: centre; size: half extents; yaw: turn about +y (0: axis-aligned) */
    PTL_OBSTACLE_PRISM = 3     /* xz: a convex polygon (either winding) extruded from pos[1] up size[1] */
} ptl_obstacle_kind;

#define PTL_OBSTACLE_MAX_VERTS 16u /* [Limit] corners of a prism */

typedef struct ptl_obstacle_desc {
    ptl_obstacle_kind kind;
    float pos[3];        /* [Units: wu] */
    float size[3];       /* [Units: wu] [Limit: > 0 where used, finite] */
    float yaw;           /* [Units: radians] box only */
    const float* xz;     /* prism: 2 * vert_count (x, z); copied */
    uint32_t vert_count; /* prism: [Limit: 3..PTL_OBSTACLE_MAX_VERTS], strictly convex */
    /* false (default): an obstacle, which removes the walkable spans it covers (its footprint grown
       by the agent radius). true: an area volume (a door closed, a floor on fire): no geometry
       changes; the walkable spans whose column centre lies in the footprint (not grown; boundary
       included) and whose floor lies in the shape's height range get `area`, as a bake's
       ptl_area_volume would give them (the same columns: a full bake with that volume gives the
       same navmesh). Where obstacles and volumes overlap, obstacles win; where volumes overlap,
       the highest area wins, so the order of adds never matters. Query filters (runtime.h) then
       cost or exclude the area. */
    bool marks_area;
    uint8_t area; /* with marks_area [Limit: 0..PTL_AREA_MAX] (0: ground again) */
} ptl_obstacle_desc;

/* An obstacle's handle: slot and generation. A handle whose obstacle was removed is stale. */
typedef struct ptl_obstacle_ref {
    uint32_t index;
    uint32_t salt;
} ptl_obstacle_ref;

/* Adds an obstacle; marks the tiles it overlaps dirty. PTL_ERR_INVALID_ARG for a malformed desc
   (unknown kind, non-finite or non-positive size, a prism that is not convex); PTL_ERR_NO_MEMORY. */
ptl_status ptl_tilecache_add(ptl_tilecache* tc, const ptl_obstacle_desc* o, ptl_obstacle_ref* out, ptl_error* err);
/* Gives obstacle `ref` a new shape or place (the tiles of both marked dirty). PTL_ERR_NOT_FOUND for
   a stale or unknown handle; PTL_ERR_INVALID_ARG as ptl_tilecache_add. */
ptl_status ptl_tilecache_move(ptl_tilecache* tc, ptl_obstacle_ref ref, const ptl_obstacle_desc* o, ptl_error* err);
/* PTL_ERR_NOT_FOUND for a stale or unknown handle. */
ptl_status ptl_tilecache_remove(ptl_tilecache* tc, ptl_obstacle_ref ref, ptl_error* err);

/* Brings the navmesh up to date: stamps the dirty tiles in tile order (row-major) until budget_us
   microseconds have passed (0: no budget; at least one tile per call), then, once no tile is left,
   rebakes the navmesh (that step is not split). *done: true when the blob is up to date. On failure
   the previous blob stays. */
ptl_status ptl_tilecache_update(ptl_tilecache* tc, uint32_t budget_us, bool* done, ptl_error* err);

/* The current navmesh blob (owned by tc; valid until the next update that rebakes, or destroy). */
void ptl_tilecache_blob(const ptl_tilecache* tc, const void** blob, size_t* size);

typedef struct ptl_tilecache_info {
    uint32_t tiles_x, tiles_z, tile_size; /* [Units: tiles, tiles, columns] */
    uint32_t obstacles;                   /* live */
    uint32_t dirty_tiles;                 /* waiting for an update */
    uint32_t stamped_tiles;               /* tiles whose spans differ from the cache's now */
    uint32_t last_tiles;                  /* tiles stamped by the last update that rebaked */
    uint32_t last_box[4];                 /* their bounds: tile x0, z0, x1, z1 inclusive (0s before any) */
    uint32_t cells;                       /* of the current blob */
    double walkable_area;                 /* [Units: wu^2] of the current blob */
    uint64_t cache_bytes;                 /* the cache as loaded */
    uint64_t memory_bytes;                /* held now: tiles, stamps, kept layers, obstacles, blob */
    uint64_t rebakes;                     /* blobs made so far (1 after create) */
    /* the last rebake's layers whose contour and decomposition were kept from the rebake before
       (their traced outline and edge kinds unchanged) and made again; 0, 0 with full_rebake */
    uint32_t layers_kept, layers_made;
    /* of layers_kept: those whose outline was not even traced again (the layer map's input to the
       trace, its columns, links and the layers across them, unchanged) */
    uint32_t layers_keyed;
    /* the last rebake's layers whose cells' height grids the merge took from the rebake before (the
       layer's floors and its cells' vertices unchanged) */
    uint32_t layers_grids_kept;
    /* the last rebake's tiles whose stamped copies were made again whole, and those brought up to
       date in place (their own marks unchanged: only their border columns' links and their gap links
       made again); every copy is made whole with full_rebake */
    uint32_t restamped_whole, restamped_edges;
    /* [Units: ms] the last rebake, wall clock: stamping (the update calls before it included), the
       layers from the tiles, contours, decompositions, merge, then landmarks and the checks */
    double ms_stamp, ms_layers, ms_contours, ms_decompose, ms_merge, ms_total;
} ptl_tilecache_info;

void ptl_tilecache_get_info(const ptl_tilecache* tc, ptl_tilecache_info* out);

enum {
    PTL_TILE_DIRTY = 1u,   /* an obstacle over it was added, moved or removed since its last update */
    PTL_TILE_STAMPED = 2u  /* obstacles remove spans of it now */
};

/* Tile (tx, tz) of the cache's grid (tx < tiles_x, tz < tiles_z; ptl_tilecache_info): its PTL_TILE_*
   flags, and its box in world units when bmin / bmax are not NULL (the columns it owns in x-z, the
   world's height in y). A tile outside the grid: 0 and an empty box (bmin > bmax). For drawing and
   tools (debugdraw's ptl_dd_tilecache_tiles); reads only. */
uint32_t ptl_tilecache_tile(const ptl_tilecache* tc, uint32_t tx, uint32_t tz, float bmin[3], float bmax[3]);

#ifdef __cplusplus
}
#endif
#endif
