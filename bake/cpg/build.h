/* Writing a runtime blob from any cell-and-portal graph (build.c): the 2D bake hands over its
   decomposition, the 3D bake its merged layers. Private to the bake. */
#ifndef PTL_CPG_BUILD_H
#define PTL_CPG_BUILD_H

#include <portolan/bake.h>

#include "../../runtime/internal.h"

typedef struct ptl_cpg_in {
    uint32_t vert_count;
    const double* xyz;         /* 3 per vertex, world */
    uint32_t cell_count;
    const uint32_t* cell_start; /* cell_count + 1 */
    const uint32_t* cell_verts; /* counter-clockwise in x-z */
    const uint32_t* cell_nbrs;  /* per edge: neighbour or PTL_NONE */
    const uint32_t* cell_layer; /* per cell; NULL: all 0 */
    const uint16_t* cell_tag;   /* per cell; NULL: all 0 */
    uint32_t portal_count;
    const ptl_decomp_portal* portals; /* v and cell as in ptl_decomposition */
    uint32_t flags;             /* PTL_NAVMESH_* */
    double relax;
    /* Layers (0: one) and the cells' height grids (cell_count of them into heights; NULL: none). */
    uint32_t layer_count;
    const ptl_blob_grid* cell_grids;
    uint32_t height_count;
    const uint16_t* heights;
    float vox_cs, vox_ch, vox_origin[3];
    /* The bake's tiles (voxel columns from vox_origin; 0: one tile), kept for rebakes per tile. */
    uint32_t tile_size, tiles_x, tiles_z;
    /* Links: the last link_count cells are link cells, link i's cell being
       cell_count - link_count + i (navmesh_format.h); they do not count in the walkable area. */
    uint32_t link_count;
    const ptl_blob_link* links;
} ptl_cpg_in;

ptl_status ptl_cpg_build(const ptl_cpg_in* in, const ptl_allocator* alloc, void** blob, size_t* size, ptl_error* err);

/* The bake's last line of defence: ptl_navmesh_validate on a blob it is about to hand out (the
   blob stays the caller's). PTL_ERR_INTERNAL naming the first violation, PTL_ERR_NO_MEMORY. */
ptl_status ptl_cpg_check_blob(void* blob, size_t size, const ptl_allocator* alloc, ptl_error* err);
/* ptl_cpg_check_blob that, when it passes, hands back in *keep the navmesh it checked, which has
   adopted the blob (ptl_bake_landmarks_nm takes it; a caller that does not destroys it after setting
   its blob to NULL). On failure *keep is NULL and the blob is still the caller's. */
ptl_status ptl_cpg_check_blob_keep(void* blob, size_t size, const ptl_allocator* alloc, ptl_navmesh** keep, ptl_error* err);

#endif
