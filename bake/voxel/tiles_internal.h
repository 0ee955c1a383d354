/* What the tiles' files share, private to them: tiles.c (the tiles and their jobs), tiles_bin.c
   (triangles binned to tiles), tiles_assemble.c (tiles into the world's open field) and
   tiles_stream.c (tiles into the layer stream). */
#ifndef PTL_TILES_INTERNAL_H
#define PTL_TILES_INTERNAL_H

#include "../layers/layer_map.h"
#include "../layers/layer_stream.h"
#include "tiles.h"
#include "col_index.h"
#include "filter.h"
#include "voxelize.h"
#include "vx_params.h"
#include "../layers/layers.h"
#include "../pipeline/progress.h"

/* Tile rows per band: a band's tiles run as one batch of jobs, together with the assembly (or the
   streaming) of the band before it, so that work hides behind the tiles and threads wait for each
   other once per band. Memory: two bands of tiles at a time. */
#define PTL_VX_BAND_ROWS 2

/* Tiles narrower than this run in groups (tiles_stream.c): G x G tiles, G = PTL_VX_GROUP_COLS /
   tile_size, rasterized and filtered in one window, so that the border around the window is paid once
   per group. A group's window is as large as one tile of PTL_VX_GROUP_COLS columns (the bench's
   tiles), so the voxel stages' memory is what such a tile's is. */
#define PTL_VX_GROUP_COLS 256

/* The grouping of tiling t: tiles of G x tile_size columns with t's border (G = 1: t itself). */
static inline ptl_vx_tiling ptl_tiles_grouping(const ptl_vx_tiling* t) {
    ptl_vx_tiling g = *t;
    const int32_t G = t->tile_size < PTL_VX_GROUP_COLS ? PTL_VX_GROUP_COLS / t->tile_size : 1;
    g.tile_size = G * t->tile_size;
    g.tiles_x = (t->tiles_x + G - 1) / G, g.tiles_z = (t->tiles_z + G - 1) / G;
    return g;
}

/* Triangles per run: a row of tiles is binned without looking at the runs that meet none of its
   rows (short runs keep the rows a run meets close to its triangles' own); a mesh of at most
   PTL_TILES_BIN_ONCE_RUNS runs is binned once for every tile. Binning jobs take chunks of
   PTL_TILES_BIN_CHUNK triangles (whole runs). */
enum { PTL_TILES_BIN_RUN = 256, PTL_TILES_BIN_ONCE_RUNS = 256, PTL_TILES_BIN_CHUNK = 16384 };
_Static_assert(PTL_TILES_BIN_CHUNK % PTL_TILES_BIN_RUN == 0, "binning chunks are whole runs");

/* ---- tiles_bin.c -------------------------------------------------------------------------------- */

/* Bins of triangles per tile of the range, CSR. */
typedef struct ptl_tiles_bins {
    uint32_t* start; /* tiles + 1 */
    uint32_t* tris;
    uint32_t tiles, total;
} ptl_tiles_bins;

/* Bins the triangles to the tiles of `range` (x0, z0, x1, z1, ends excluded); `rows` (NULL: look at
   every triangle) holds, per run of PTL_TILES_BIN_RUN triangles, the first and last tile row its
   triangles meet (ptl_tiles_bin_rows). PTL_ERR_NO_MEMORY; `b` is then to be freed all the same. */
ptl_status ptl_tiles_bin_triangles(const ptl_trimesh* m, const ptl_vx_params* w, const ptl_vx_tiling* t,
                                   const int32_t range[4], const int32_t* rows, const ptl_job_system* jobs,
                                   const ptl_allocator* a, ptl_tiles_bins* b);
/* Fills rows (2 per run of PTL_TILES_BIN_RUN triangles). */
void ptl_tiles_bin_rows(const ptl_trimesh* m, const ptl_vx_params* w, const ptl_vx_tiling* t, const ptl_job_system* jobs,
                        int32_t* rows);
void ptl_tiles_bin_free(ptl_tiles_bins* b, const ptl_allocator* a);

/* ---- tiles.c ------------------------------------------------------------------------------------ */

/* The tiles of `range` run as jobs (ptl_tiles_run_job, index: the tile in the range, rows of x). */
typedef struct ptl_tiles_job {
    const ptl_trimesh* m;
    const ptl_vx_params* world;
    const ptl_vx_tiling* t;
    const int32_t* range;    /* the tiles to run */
    const int32_t* brange;   /* the tiles `b` was binned for (holds range) */
    const ptl_tiles_bins* b;
    const ptl_allocator* a;
    ptl_vx_tile* out;
    ptl_error* errs;
} ptl_tiles_job;

void ptl_tiles_run_job(void* data, uint32_t index);
/* The window of tile (tx, tz): its columns and the border, clamped to the world. */
void ptl_tiles_window(const ptl_vx_params* world, const ptl_vx_tiling* t, int32_t tx, int32_t tz, ptl_vx_params* p);
/* Frees n tiles and their array (NULL: nothing). */
void ptl_tiles_free_all(ptl_vx_tile* tiles, uint32_t n, const ptl_allocator* a);

/* ---- tiles_assemble.c --------------------------------------------------------------------------- */

/* Checks that every tile is given exactly once, in its place, with well-formed columns, and fills
   at[tz * tiles_x + tx] with it (at: tiles_x * tiles_z entries); *total and *gaps get the spans and
   gaps of them all. */
ptl_status ptl_tiles_assemble_place(const ptl_vx_params* world, const ptl_vx_tiling* t, const ptl_vx_tile* const* tiles,
                                    uint32_t count, const ptl_vx_tile** at, uint64_t* total_out, uint64_t* gaps_out,
                                    ptl_error* err);

#endif
