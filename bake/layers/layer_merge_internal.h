/* The layer merge's state (layer_merge.c), shared with its height grids (layer_merge_grids.c).
   Private to the bake. */
#ifndef PTL_LAYER_MERGE_INTERNAL_H
#define PTL_LAYER_MERGE_INTERNAL_H

#include "../../runtime/internal.h"
#include "../contours/contours.h"
#include "../cpg/build.h"
#include "layer_merge.h"

/* A cell edge of a layer lying on a junction line. */
typedef struct jedge {
    uint32_t line_axis;  /* 0: constant global z (runs along x); 1: constant global x */
    int64_t line;        /* the constant global lattice coordinate */
    uint32_t gap;        /* 0: a junction; else a gap link across this many columns */
    int64_t gline;       /* the group's line: `line` for a junction, the lower of the two sides' lines for a gap */
    uint32_t side;       /* which side of the group: the layer for a junction, 0 (on gline) or 1 for a gap */
    uint32_t lo_layer, hi_layer; /* the two layers: ordered for a junction, side 0's then side 1's for a gap */
    double ta, tb;       /* global lattice coordinate along the line of the edge's start and end */
    uint32_t cell;       /* global cell id */
    uint32_t edge;       /* edge index in the cell (before insertions) */
    uint32_t layer;      /* the side this edge belongs to */
    uint32_t va, vb;     /* global vertex ids */
} jedge;

/* A point on a junction line: a vertex of some side at lattice position t. */
typedef struct jpoint {
    uint32_t group;
    double t;
    uint32_t side; /* jedge.side */
    uint32_t vert;
} jpoint;

typedef struct merge {
    const ptl_allocator* a;
    const ptl_layer_map* of; /* the layers' columns, floors and edges */
    const ptl_layer_contour* lc;
    const ptl_decomposition* dc;
    uint32_t layers;
    uint32_t* voff;       /* layers + 1: first global vertex of each layer */
    uint32_t* coff;       /* layers + 1: first global cell of each layer */
    PTL_ARRAY(double) xyz;
    PTL_ARRAY(double) lat;     /* 2 per vertex: global lattice x, z */
    PTL_ARRAY(uint32_t) vlayer;
    PTL_ARRAY(uint32_t) parent; /* union-find over vertices */
    ptl_merge_memo* memo;       /* NULL: none */
    uint8_t* fsame;             /* with a memo, per layer: its floor key is the kept one */
    ptl_lmap_key* fkeys;        /* with a memo, per layer: its floor key (to the memo at the end) */
} merge;

/* One layer of a ptl_merge_memo (layer_merge.h). */
struct ptl_merge_memo_layer {
    ptl_lmap_key fkey;        /* frame (x0, z0, w, d, layer) then ptl_lmap_layer_floor_key */
    PTL_ARRAY(double) dxy;    /* the decomposition's vertices, 2 each */
    PTL_ARRAY(double) vy;     /* the heights they took (ptl_contour_height) */
    PTL_ARRAY(uint32_t) cn;   /* per cell: its final vertices' count */
    PTL_ARRAY(double) cxyz;   /* the cells' final vertices, 3 each, cell after cell */
    PTL_ARRAY(ptl_blob_grid) grids; /* per cell: its grid as written, `first` from the layer's first height */
    PTL_ARRAY(uint16_t) heights;    /* the heights the layer's cells wrote, in order */
};

typedef PTL_ARRAY(jedge) jedge_array;

/* A cut point to insert into cell `cell`'s edge `edge`, at `t` along the line from the edge's start. */
typedef struct cut {
    uint32_t cell, edge;
    double along; /* distance from the edge's start, in lattice units */
    uint32_t vert;
} cut;

/* A piece of a junction edge after the cuts, to be paired with the other side's. */
typedef struct piece {
    uint32_t group;
    double t0, t1;       /* t0 < t1 */
    uint32_t side, cell; /* jedge.side */
    uint32_t va, vb;     /* the piece's vertices in the cell's direction */
    uint32_t slot;       /* index of va in the cell's new vertex list */
} piece;

/* The merge's state: `m` the vertices, then one array per phase's product. What the blob is built
   from (the cells, portals, links, grids and heights, the final vertices) stays after the merge;
   the rest is working state (merge_drop_work), dropped before the blob is built, which is the
   bake's high point on large worlds. */
struct ptl_layer_merge {
    ptl_allocator al;
    merge m;
    double relax;
    const ptl_vx_tiling* tiling;
    /* working state: junction edges, their groups, points, cuts and pieces, the link cells' quads */
    jedge_array je;
    uint32_t* group_of;  /* je.count + 1: the group of each junction edge */
    uint32_t* group_gap; /* je.count + 1: per group, its gap (0: a junction) */
    PTL_ARRAY(jpoint) jp;
    PTL_ARRAY(cut) cuts;
    PTL_ARRAY(piece) pieces;
    PTL_ARRAY(uint32_t) lverts; /* 4 per link cell */
    PTL_ARRAY(uint32_t) lnbrs;
    PTL_ARRAY(uint32_t) llayer;
    uint32_t* remap; /* vertices + 1: the final vertex of each */
    /* per layer: its one floor height (-1: no column, -2: more than one), its cells' grids' total
       size, where its shared grid starts in `heights` (UINT32_MAX: not written) */
    struct lgrid_info {
        int32_t flat;
        uint32_t first;
        uint64_t cost;
    }* lgrid;
    PTL_ARRAY(double) cuv;   /* one cell in its layer's column coordinates (cell_poly_at) */
    uint8_t* cforeign;       /* ncell + 1: a lookup in the cell could read a floor that is not its own */
    uint8_t* greuse;         /* with a memo, layers + 1: the layer's grids and heights are the memo's */
    PTL_ARRAY(uint8_t) colst; /* a cell's window: which columns it overlaps (cell_cover) */
    PTL_ARRAY(int64_t) colrun; /* the same as one run of columns per row of the window (cell_cover) */
    PTL_ARRAY(double) colrange; /* each row's x-range of the cell (cell_rows) */
    PTL_ARRAY(uint16_t) crow;  /* a row of the window's floors (cell_own_height) */
    /* the graph */
    uint32_t ncell, nfinal, junction_portals;
    PTL_ARRAY(uint32_t) cstart;
    PTL_ARRAY(uint32_t) cverts;
    PTL_ARRAY(uint32_t) cnbrs;
    PTL_ARRAY(uint32_t) clayer;
    PTL_ARRAY(uint16_t) ctag;
    PTL_ARRAY(ptl_decomp_portal) portals;
    PTL_ARRAY(ptl_blob_grid) cgrids;
    PTL_ARRAY(uint16_t) heights;
    PTL_ARRAY(ptl_blob_link) links;
    double* fxyz; /* 3 per final vertex, room for vertices + 1 */
    size_t fxyz_n;
    /* the map's grid, kept for the blob (the map itself may be gone by then) */
    float vox_cs, vox_ch, vox_origin[3];
};

/* The cells' height grids (layer_merge_grids.c): their windows, then the heights. */
ptl_status ptl_merge_grid_windows(ptl_layer_merge* lm);
ptl_status ptl_merge_heights(ptl_layer_merge* lm);

/* The memo (layer_merge_grids.c): room for every layer and their floor keys before the merge; after
   it, the keys kept (st >= 0) or the memo emptied (st < 0: a layer's entries may be half made). */
ptl_status ptl_merge_memo_begin(ptl_layer_merge* lm);
void ptl_merge_memo_end(ptl_layer_merge* lm, ptl_status st);

#endif
