/* Bake parameters in voxel units (vx_params.c), shared by every voxel and layer stage of the 3D
   bake. Private to the bake.

   Coordinates: column (cx, cz) is the square [bmin.x + cx*cs, +cs] x [bmin.z + cz*cs, +cs] in x-z;
   height h (an integer, "voxels") is world y = bmin.y + h*ch. A tile's grid is a window of the
   world's (ox, oz below) with a border of `border` columns on every side (tiles.c). */
#ifndef PTL_VX_PARAMS_H
#define PTL_VX_PARAMS_H

#include <portolan/bake.h>

#define PTL_VX_NONE 0xffffffffu
#define PTL_VX_MAX_HEIGHT 0xffffu /* heights are uint16: a tile spans at most 65535 cell heights */

/* Bake parameters in voxel units (ptl_vx_params_resolve turns a ptl_bake_desc into these). */
typedef struct ptl_vx_params {
    float cs, ch;            /* [Units: wu] cell size (x-z), cell height (y) */
    float bmin[3], bmax[3];  /* [Units: wu] the world's bounds (of column 0; a tile's window is offset) */
    int32_t width, depth;    /* columns along x and z, border included */
    /* The grid is a window of the world's: its column (0, 0) is the world's column (ox, oz), and the
       world has world_width x world_depth columns from bmin (tiles.c; 0, 0 and the grid's own size
       for one tile). Triangles are rasterized in world columns, so a column's spans do not depend
       on the window it is computed in. */
    int32_t ox, oz, world_width, world_depth;
    int32_t heights;         /* cell heights along y: every span lies in [0, heights], heights < PTL_VX_MAX_HEIGHT */
    int32_t border;          /* columns */
    int32_t walkable_height; /* [Units: voxels] agent height: ceil(agent_height / ch) */
    int32_t walkable_climb;  /* [Units: voxels] max climb: floor(max_climb / ch) */
    int32_t walkable_radius; /* [Units: columns] bake-time erosion: ceil(agent_radius / cs) */
    int32_t min_island;      /* [Units: columns] layers.c drops isolated layers (no link to any other)
                                smaller than this; 0 keeps everything */
    int32_t max_void;        /* [Units: columns] gap links cross at most this many columns of void
                                (filter.c); 0: no gap links */
    float walkable_slope_cos;/* cos(max_slope): a triangle whose unit normal's y is > this is walkable */
    int32_t walkable_both_sides; /* 0 (the default): the normal follows the winding (counter-clockwise
                                    seen from above faces up), as in Recast; 1: |normal y| counts, for
                                    meshes wound inconsistently, at the price of making the undersides of
                                    roofs with nothing above them walkable (dungeon.obj: +89% area) */
    const ptl_area_volume* volumes; /* the desc's area volumes (areas.c), marked by the filter */
    uint32_t volume_count;
    int32_t has_areas;       /* 1: the desc has area names or volumes, so spans may carry areas (layers.c
                                keeps them apart); 0: every span's tag is 0 */
} ptl_vx_params;

/* Resolves the desc (defaults filled) against the mesh bounds (of the vertices its triangles use)
   into voxel parameters for one tile covering the whole mesh: bmin is the mesh's, width and depth
   ceil(extent / cs). PTL_ERR_BAD_INPUT when the grid would exceed 2^28 columns or 65535 heights
   (with a message giving the sizes and suggesting a larger cell size), when floats at the mesh's
   coordinates are further apart than a quarter voxel (far from the origin), or for a mesh without
   triangles, with out-of-range indices or non-finite coordinates; PTL_ERR_INVALID_ARG for negative
   or non-finite desc values and a slope above 90. */
ptl_status ptl_vx_params_resolve(const ptl_bake_desc* desc, const ptl_trimesh* m, ptl_vx_params* out, ptl_error* err);

#endif
