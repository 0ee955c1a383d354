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

/* A span's mark: 0 as cached; PTL_TC_REMOVED under an obstacle; PTL_TC_AREA + area under an area
   volume (its tag becomes the area). */
enum { PTL_TC_REMOVED = 1, PTL_TC_AREA = 2 };

/* Marks each span s of tile t the shapes cover, 0 for the others, and returns how many are marked.
   An obstacle covers a span when its column's square overlaps the footprint grown by the agent
   radius and the shape rises above the floor and starts below the agent's head (PTL_TC_REMOVED);
   an area volume (ptl_tc_shape.area >= 0) a span whose column centre lies in the footprint and
   whose floor lies in the shape's height range (PTL_TC_AREA + area; the highest area wins, a
   removed span stays removed). */
uint32_t ptl_tc_mark(const ptl_tc_tiles* w, const ptl_vx_tile* t, const ptl_tc_shape* const* shapes, uint32_t n,
                     uint8_t* removed);
/* Tile ti without its removed spans and with its areas set (removed[i]: tile i's marks, NULL when it
   has none): the links
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
