/* The navmesh object: the validated blob plus indexes derived from it at load time.
   Private to the runtime (the bake writes blobs through navmesh_format.h only). */
#ifndef PTL_NAVMESH_INTERNAL_H
#define PTL_NAVMESH_INTERNAL_H

#include <portolan/runtime.h>

#include "navmesh_format.h"

struct ptl_navmesh {
    ptl_allocator alloc;
    uint8_t* blob;
    size_t size;
    const ptl_blob_header* h;
    const float* verts;        /* 3 per vertex */
    const uint8_t* vert_flags; /* PTL_VERT_* */
    const ptl_blob_cell* cells;
    const uint32_t* cell_verts;
    const uint32_t* cell_nbrs;
    const ptl_blob_portal* portals;
    const uint32_t* grid_offsets;
    const uint32_t* grid_items;
    const float* landmarks;    /* landmark_count per vertex, or NULL */
    const ptl_blob_grid* cell_grids; /* one per cell; NULL when no cell has a grid (no heights) */
    const uint16_t* heights;
    const ptl_blob_link* links;
    /* Hub labels (navmesh_format.h; NULL when the blob has none). */
    const double* hub_dist;
    const uint32_t* hub_hub;
    const uint16_t* hub_hop;
    const uint32_t* hub_label_start;
    const uint32_t* hub_vert;
    const uint32_t* hub_adj_start;
    const uint32_t* hub_adj;
    uint32_t* vert_hub; /* derived at load: vertex -> hub, PTL_NONE for other vertices; NULL without hubs */
    /* Derived at load: the cells around each vertex (CSR), for queries that start on a vertex. */
    uint32_t* vcell_start; /* vert_count + 1 */
    uint32_t* vcell;
    /* Derived at load: the piece of walkable space (cells joined through portals) of each cell. */
    uint32_t* cell_piece;
    uint32_t piece_count;
};

/* x-z coordinates of vertex v as doubles. */
static inline double ptl_nm_vx(const ptl_navmesh* nm, uint32_t v) { return nm->verts[3 * v]; }
static inline double ptl_nm_vz(const ptl_navmesh* nm, uint32_t v) { return nm->verts[3 * v + 2]; }

/* Is cell c a link cell (navmesh_format.h: the last link_count cells)? */
static inline bool ptl_nm_is_link(const ptl_navmesh* nm, uint32_t c) {
    return c >= nm->h->cell_count - nm->h->link_count;
}

/* Height of cell c's floor at (x, z) from its height grid; false when the cell has none (a flat
   cell, a link cell, any cell of a 2D bake: its vertices give its heights, ptl_query_cell_y) or the
   grid has no floor there (within one column). */
bool ptl_nm_cell_floor(const ptl_navmesh* nm, uint32_t c, double x, double z, float* y);

/* Bucket of the point-location grid holding (x, z), clamped to the grid. */
uint32_t ptl_nm_bucket(const ptl_navmesh* nm, double x, double z);

#endif
