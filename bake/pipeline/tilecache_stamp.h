/* Obstacles stamped into the cached tiles (tilecache_stamp.c). Private to the bake. */
#ifndef PTL_TC_STAMP_H
#define PTL_TC_STAMP_H

#include "../voxel/tiles.h"
#include "tilecache_obstacle.h"

/* The world's tiles as the cache holds them, in row order (tile tz * tiles_x + tx). */
typedef struct ptl_tc_tiles {
    const ptl_vx_params* p;
    const ptl_vx_tiling* tl;
    const ptl_vx_tile* base;
} ptl_tc_tiles;

/* Marks removed[s] = 1 for each span s of tile t that one of the shapes covers (its column's
   square overlaps the footprint grown by the agent radius, and the shape rises above its floor and
   starts below the agent's head), 0 for the others; returns how many are marked. */
uint32_t ptl_tc_mark(const ptl_tc_tiles* w, const ptl_vx_tile* t, const ptl_tc_shape* const* shapes, uint32_t n,
                     uint8_t* removed);
/* Tile ti without its removed spans (removed[i]: tile i's marks, NULL when it has none): the links
   and gap links of the spans that stay renumbered inside their columns, those to a removed span cut
   (in both directions: the neighbour tiles are restamped too). `out` gets its own arrays. */
ptl_status ptl_tc_stamp(const ptl_tc_tiles* w, const uint8_t* const* removed, uint32_t ti, const ptl_allocator* a,
                        ptl_vx_tile* out);
/* Tile ti's stamped copy `view`, made while removed[ti] was what it is now, brought up to date in
   place after its neighbours' marks changed: only the links of its border columns and its gap links
   can differ from ptl_tc_stamp's, so those are made again (the same bytes as a new ptl_tc_stamp).
   Writes the local columns whose spans or gap links changed into cols_out (room: 2 (w + d) plus
   twice the base tile's gap links; a column may come twice), their count in *n_out.
   PTL_ERR_NO_MEMORY leaves view as it was. */
ptl_status ptl_tc_stamp_edges(const ptl_tc_tiles* w, const uint8_t* const* removed, uint32_t ti, const ptl_allocator* a,
                              ptl_vx_tile* view, uint32_t* cols_out, uint32_t* n_out);

#endif
