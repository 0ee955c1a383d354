/* Portolan gen: generated scenes for tools, demos, tests and benchmarks (not for a game: the
   library portolan_gen, pkg-config portolan-gen, sits beside the bake and uses its grid and
   triangle-mesh types).

   What it does
   - Grid maps: the built-in rooms scene of the demo and the README, and random-obstacle maps for
     scaling benchmarks (ptl_grid_generate); writes a grid as a Moving AI .map (ptl_grid_save).
   - 3D scenes: a multi-storey building, a bridge, undulating terrain (ptl_scene_generate); writes
     a triangle mesh as a Wavefront OBJ (ptl_trimesh_save_obj).
   - Scale scenes: K x K copies of a mesh (ptl_trimesh_copies), a grid map extruded into floors and
     walls (ptl_grid_extrude).
   Every generator is deterministic for a given desc.

   Minimal example
       ptl_grid g; ptl_error err;
       ptl_grid_gen_desc gd = {.width = 256, .height = 256, .seed = 1};
       if (ptl_grid_generate(&gd, &g, &err) < 0) { puts(err.message); return; }
       ptl_grid_save(&g, "rooms.map", &err);
       ptl_grid_free(&g);

   Ownership: as in bake.h, what a generator fills is freed with ptl_grid_free or ptl_trimesh_free. */
#ifndef PORTOLAN_GEN_H
#define PORTOLAN_GEN_H

#include "bake.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Generated grid maps -----------------------------------------------------------------------*/
/* Generated grid scenes (deterministic for a given desc): the built-in default scene of the demo and
   the README, and random-obstacle maps for scaling benchmarks. */
typedef enum ptl_grid_scene {
    PTL_GRID_SCENE_ROOMS = 0,  /* rooms and doors, pillars, diagonal walls, courtyards (the default) */
    PTL_GRID_SCENE_RANDOM = 1  /* independent random blocked cells at `density` (Moving AI random512 style) */
} ptl_grid_scene;

typedef struct ptl_grid_gen_desc {
    ptl_grid_scene scene;
    uint32_t width, height; /* [Units: cells] [Limit: 8..65536] default 256 x 256 */
    uint32_t seed;          /* any value; 0 is a valid seed */
    float density;          /* RANDOM: fraction of blocked cells [Limit: 0..0.9] default 0.25 */
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_grid_gen_desc;

ptl_grid_gen_desc ptl_grid_gen_desc_defaults(void);
ptl_status ptl_grid_generate(const ptl_grid_gen_desc* desc, ptl_grid* out, ptl_error* err);
/* Writes a grid as a Moving AI .map file. */
ptl_status ptl_grid_save(const ptl_grid* g, const char* path, ptl_error* err);

/* ---- Generated 3D scenes (the built-in default scene of the demo and the README) -----------------*/
typedef enum ptl_scene_kind {
    PTL_SCENE_BUILDING = 0, /* multi-storey building: floors joined by stairwells and ramps (the default) */
    PTL_SCENE_BRIDGE = 1,   /* a bridge deck over a floor, reached by a ramp and a stair */
    PTL_SCENE_TERRAIN = 2   /* undulating terrain with a few obstacles */
} ptl_scene_kind;

typedef struct ptl_scene_desc {
    ptl_scene_kind kind;
    /* [Units: wu] side of the square footprint (x, z in 0..size) [Limit: BUILDING 24..256,
       BRIDGE 24..4096, TERRAIN 8..1024; outside: PTL_ERR_INVALID_ARG] default 40 */
    float size;
    uint32_t storeys; /* BUILDING: floors [Limit: 1..64] default 3; other kinds ignore it */
    uint32_t seed;
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_scene_desc;

ptl_scene_desc ptl_scene_desc_defaults(void);
ptl_status ptl_scene_generate(const ptl_scene_desc* desc, ptl_trimesh* out, ptl_error* err);
/* Writes a triangle mesh as a Wavefront OBJ file. */
ptl_status ptl_trimesh_save_obj(const ptl_trimesh* m, const char* path, ptl_error* err);

/* ---- Scale scenes: copies of a mesh, grid maps extruded into 3D ---------------------------------
   Both fill `out` (a new mesh, never the input; free with ptl_trimesh_free) and fail with
   PTL_ERR_INVALID_ARG (bad desc, or a result of 2^31 vertices or triangles or more),
   PTL_ERR_BAD_INPUT (no triangle, no free cell) or PTL_ERR_NO_MEMORY, leaving `out` empty.
   Copies: copy (i, j) is the mesh moved by (i * pitch_x, 0, j * pitch_z), copy (0, 0) in place;
   vertices and triangles are copied in copy order (j, then i), tags kept. */
typedef struct ptl_copies_desc {
    uint32_t copies; /* K: K x K copies [Limit: 1..4096] required (0: PTL_ERR_INVALID_ARG) */
    /* [Units: wu] pitch along x and z [Limit: >= 0, finite] default 0: the mesh's extent along each
       axis (bounds of the vertices triangles use) plus `gap`, copies touching edge to edge */
    float spacing;
    float gap; /* [Units: wu] between copies when spacing is 0 [Limit: >= 0, finite] default 0 */
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_copies_desc;

ptl_copies_desc ptl_copies_desc_defaults(void); /* copies stays 0: it has no default */
ptl_status ptl_trimesh_copies(const ptl_trimesh* in, const ptl_copies_desc* desc, ptl_trimesh* out, ptl_error* err);

/* A mesh plus obstacles (<portolan/tilecache.h> descs) as closed prisms: the geometry a full bake
   compares with the tile cache's stamped navmesh (`portolan gen obstacles`). Each obstacle is its
   footprint in plan (a box turned by its yaw, a prism's polygon, a cylinder's circumscribed
   24-gon) extruded over its height range, with sides, bottom and top; the input comes first
   unchanged (vertices, triangles, tags), the obstacles' triangles after it in the order given,
   tagged "g obstacles"; area volumes (ptl_obstacle_desc.marks_area) are no geometry and are left
   out (a full bake takes them as ptl_bake_desc.area_volumes). *out is allocated from `alloc` (NULL: libc; free with ptl_trimesh_free).
   PTL_ERR_INVALID_ARG naming a bad obstacle (as ptl_tilecache_add refuses it) or a bad mesh;
   PTL_ERR_NO_MEMORY. */
typedef struct ptl_obstacle_desc ptl_obstacle_desc;
ptl_status ptl_trimesh_with_obstacles(const ptl_trimesh* in, const ptl_obstacle_desc* obs, uint32_t count,
                                      const ptl_allocator* alloc, ptl_trimesh* out, ptl_error* err);

/* A floor quad (2 triangles at y = 0, tag "g floor") per free cell and a vertical wall quad (tag
   "g wall", facing the free cell) on every side between a free cell and a blocked or outside one;
   blocked cells get no floor and no top (a top would be walkable). Vertices are shared (indexed
   mesh). Cell (x, y) covers world [x * cell_size, (x+1) * cell_size] in x and the same in z. */
typedef struct ptl_extrude_desc {
    float cell_size;   /* [Units: wu] [Limit: > 0] default 1 (map (x, y) is world (x, 0, y)) */
    float wall_height; /* [Units: wu] [Limit: > 0] default 2 (taller than the default max climb 0.9) */
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_extrude_desc;

ptl_extrude_desc ptl_extrude_desc_defaults(void);
void ptl_extrude_desc_resolve(const ptl_extrude_desc* desc, ptl_extrude_desc* out);
ptl_status ptl_grid_extrude(const ptl_grid* g, const ptl_extrude_desc* desc, ptl_trimesh* out, ptl_error* err);

#ifdef __cplusplus
}
#endif

#endif
