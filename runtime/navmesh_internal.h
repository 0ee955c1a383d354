/* The navmesh object: the validated blob plus indexes derived from it at load time.
   Private to the runtime (the bake writes blobs through navmesh_format.h only). */
#ifndef PTL_NAVMESH_INTERNAL_H
#define PTL_NAVMESH_INTERNAL_H

#include <math.h>
#include <string.h>
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
    const ptl_blob_hblock* hblocks; /* height_count blocks of the cells' grids */
    const uint8_t* hdata;           /* their packed floors (height_bytes) */
    const ptl_blob_link* links;
    const ptl_blob_lid* lids;  /* lid_count, or NULL */
    /* Hub labels (navmesh_format.h; NULL when the blob has none). */
    const double* hub_dist;
    const uint32_t* hub_hub;
    const uint16_t* hub_hop;
    const uint32_t* hub_label_start;
    const uint32_t* hub_vert;
    const uint32_t* hub_adj_start;
    const uint32_t* hub_adj;
    uint32_t* vert_hub; /* derived at load: vertex -> hub, PTL_NONE for other vertices; NULL without hubs */
    /* Derived at load (pockets.c): per vertex, the lid (two vertex ids) of the clean pocket it lies
       strictly inside, PTL_NONE twice for none; NULL for navmeshes without pockets (3D). */
    uint32_t* pocket;
    uint32_t* cell_pocket; /* per cell likewise: the lid of the pocket it lies inside */
    /* Derived at load from the blob's lids (a bake with ptl_decompose_desc.lids; then pocket and
       cell_pocket stay NULL): per cell, the lid whose pocket holds it, and per vertex, the lid
       whose pocket holds every cell around it; PTL_NONE for none. NULL without lids. */
    uint32_t* cell_lid;
    uint32_t* vert_lid;
    /* Derived at load: the cells around each vertex (CSR), for queries that start on a vertex. */
    uint32_t* vcell_start; /* vert_count + 1 */
    uint32_t* vcell;
    /* Derived at load: the piece of walkable space (cells joined through portals) of each cell. */
    uint32_t* cell_piece;
    uint32_t piece_count;
    uint32_t* piece_cells; /* cell_count: the cells grouped by piece (navmesh.c, build_pieces) */
    uint32_t* piece_first; /* cell_count + 1 (piece_count + 1 used): where each piece's cells start */
    /* Derived at load (ptl_nm_cell_kinked): per cell, 1 when an edge's line cuts off a neighbouring
       vertex by more than a tenth of the location tolerance; NULL when no cell does (the usual
       case). Validation lets a cell turn right within its tolerance of the chord; on a short edge
       such a turn can be a real angle (two vertices a few float steps apart on a rounded input),
       and the half-planes of the cell's edges then leave out a part of it. */
    uint8_t* cell_kinked;
    /* Off-mesh links (offmesh.c): a table of slots that grows (a removed link's slot is reused
       with its salt raised), arcs 2 i (start -> end) and 2 i + 1 (end -> start, two-way links),
       and per cell the arcs that start in it (CSR over cells, rebuilt by every change). */
    struct ptl_om_link* om;
    uint32_t om_cap, om_used, om_live; /* slots allocated, used so far, holding a live link */
    uint32_t om_gen;                   /* raised by every add and remove */
    uint32_t om_gen_loaded;            /* om_gen once the blob's own links were read */
    uint32_t* om_cell_start;           /* cell_count + 1, or NULL without live links */
    uint32_t* om_cell_arcs;            /* 2 * om_cap */
    uint32_t* piece_group;             /* per piece: the pieces joined by links share one; NULL: none */
};

/* An end of an off-mesh link located on the mesh (the fields of a ptl_qpoint that outlive it). */
typedef struct ptl_om_end {
    double x, z;
    float y;
    uint32_t kind, cell, vert, pair[2], cell_count;
} ptl_om_end;

typedef struct ptl_om_link {
    ptl_offmesh_desc desc;
    ptl_om_end end[2]; /* [0] start, [1] end */
    float cost;        /* [Units: wu] resolved */
    uint32_t salt;     /* generation of the slot (odd: live) */
} ptl_om_link;

/* Are cells a and b in one piece of walkable space, or in pieces joined by off-mesh links (either
   way: a test that no path exists never errs)? */
static inline bool ptl_nm_same_piece(const ptl_navmesh* nm, uint32_t a, uint32_t b) {
    uint32_t pa = nm->cell_piece[a], pb = nm->cell_piece[b];
    return pa == pb || (nm->piece_group && nm->piece_group[pa] == nm->piece_group[pb]);
}

/* The coordinate scale in plan, at least 1: the largest |x| or |z| of the bounds. The queries'
   tolerances are relative to it (query.c: ptl_query.eps, loc_eps = PTL_NM_LOC_REL x scale). */
#define PTL_NM_LOC_REL 1e-6
static inline double ptl_nm_plan_scale(const ptl_navmesh* nm) {
    double scale = 1;
    for (int i = 0; i < 3; i += 2) scale = fmax(scale, fmax(fabs(nm->h->bmin[i]), fabs(nm->h->bmax[i])));
    return scale;
}

/* Is cell c kinked (navmesh.cell_kinked)? */
static inline bool ptl_nm_cell_kinked(const ptl_navmesh* nm, uint32_t c) { return nm->cell_kinked && nm->cell_kinked[c]; }

/* ptl_navmesh_create without the copy: the navmesh takes `blob` (`size` bytes from `alloc`, freed
   with the navmesh); on failure the caller keeps it. For the bake's own stages (landmarks.c). */
ptl_status ptl_nm_create_adopt(void* blob, size_t size, const ptl_allocator* alloc, ptl_navmesh** out, ptl_error* err);

/* Derives the pockets (pockets.c): from the blob's lids when it has them (cell_lid, vert_lid;
   PTL_ERR_BAD_BLOB when a lid does not close its pocket), else from the walls of a 2D navmesh
   (pocket, cell_pocket, which may stay NULL). PTL_ERR_NO_MEMORY. */
ptl_status ptl_nm_build_pockets(ptl_navmesh* nm, ptl_error* err);

/* x-z coordinates of vertex v as doubles. */
static inline double ptl_nm_vx(const ptl_navmesh* nm, uint32_t v) { return nm->verts[3 * v]; }
static inline double ptl_nm_vz(const ptl_navmesh* nm, uint32_t v) { return nm->verts[3 * v + 2]; }

/* Are (sx, sz) and (tx, tz) both strictly beyond the line of lid a-c, on the other side from vertex
   v (which lies inside the pocket)? */
static inline bool ptl_nm_beyond_lid(const ptl_navmesh* nm, uint32_t a, uint32_t c, uint32_t v, double sx, double sz,
                                     double tx, double tz) {
    double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a);
    double dx = ptl_nm_vx(nm, c) - ax, dz = ptl_nm_vz(nm, c) - az;
    double inner = dx * (ptl_nm_vz(nm, v) - az) - dz * (ptl_nm_vx(nm, v) - ax);
    double os = dx * (sz - az) - dz * (sx - ax), ot = dx * (tz - az) - dz * (tx - ax);
    /* beyond the line by more than rounding: 1e-9 of the lid's length times the distance */
    double len = fabs(dx) + fabs(dz);
    double es = 1e-9 * len * (fabs(sx - ax) + fabs(sz - az)), et = 1e-9 * len * (fabs(tx - ax) + fabs(tz - az));
    return inner > 0 ? os < -es && ot < -et : os > es && ot > et;
}

/* A search's ends, for skipping pockets: their positions in x-z and, with lids, the pockets (lid
   ids) they lie in. */
#define PTL_POCKET_END_LIDS 6u
typedef struct ptl_pocket_ends {
    double sx, sz, tx, tz;
    /* The pockets the ends are in: a point inside one is in one, a point on a lid's end may be in
       several (each with a cell around it). lid_count > PTL_POCKET_END_LIDS: too many to list,
       no pocket is skipped. */
    uint32_t lids[2 * PTL_POCKET_END_LIDS];
    uint32_t lid_count;
} ptl_pocket_ends;

/* Is lid l's pocket one that an end is in? */
static inline bool ptl_pocket_ends_in(const ptl_pocket_ends* e, uint32_t l) {
    if (e->lid_count > 2 * PTL_POCKET_END_LIDS) return true;
    for (uint32_t i = 0; i < e->lid_count; ++i)
        if (e->lids[i] == l) return true;
    return false;
}

/* Can a search between those ends skip corner v: is v inside a pocket neither end is in (lids), or
   strictly inside a pocket of the walls whose lid both ends are strictly beyond (pockets.c)? */
static inline bool ptl_nm_pocket_skips(const ptl_navmesh* nm, uint32_t v, const ptl_pocket_ends* e) {
    if (nm->vert_lid) {
        uint32_t l = nm->vert_lid[v];
        return l != PTL_NONE && !ptl_pocket_ends_in(e, l);
    }
    if (!nm->pocket || nm->pocket[2 * v] == PTL_NONE) return false;
    return ptl_nm_beyond_lid(nm, nm->pocket[2 * v], nm->pocket[2 * v + 1], v, e->sx, e->sz, e->tx, e->tz);
}

/* Can it skip cell c: does c lie inside such a pocket? */
static inline bool ptl_nm_cell_skips(const ptl_navmesh* nm, uint32_t c, const ptl_pocket_ends* e) {
    if (nm->cell_lid) {
        uint32_t l = nm->cell_lid[c];
        return l != PTL_NONE && !ptl_pocket_ends_in(e, l);
    }
    if (!nm->cell_pocket || nm->cell_pocket[2 * c] == PTL_NONE) return false;
    uint32_t a = nm->cell_pocket[2 * c], b = nm->cell_pocket[2 * c + 1];
    /* a vertex of the cell inside the pocket: one that is neither lid end */
    const ptl_blob_cell* cell = &nm->cells[c];
    uint32_t v = nm->cell_verts[cell->first];
    for (uint32_t k = 1; (v == a || v == b) && k < cell->vert_count; ++k) v = nm->cell_verts[cell->first + k];
    return ptl_nm_beyond_lid(nm, a, b, v, e->sx, e->sz, e->tx, e->tz);
}

/* floor(v), the same value (a -0.0 may come back as +0.0: callers index or subtract with it), without
   libm's call for the values a query meets (|v| < 2^52); others, NaN and infinities through floor. */
static inline double ptl_floor(double v) {
    if (!(fabs(v) < 4503599627370496.0)) return floor(v);
    const double t = (double)(int64_t)v;
    return t > v ? t - 1 : t;
}

/* floor(f) clamped to [0, n - 1] as a grid index, as (uint32_t)fmax(0, fmin(f, n - 1)) gives it (NaN: n - 1),
   without libm's calls. */
static inline uint32_t ptl_grid_index(double f, uint32_t n) {
    const double m = (double)(n - 1);
    const double v = f < m ? f : m;
    return (uint32_t)(v > 0 ? v : 0);
}

/* Is cell c a link cell (navmesh_format.h: the last link_count cells)? */
static inline bool ptl_nm_is_link(const ptl_navmesh* nm, uint32_t c) {
    return c >= nm->h->cell_count - nm->h->link_count;
}

/* The floor at index i (row-major in the block) of height block k, PTL_HEIGHT_NONE where the layer
   has none. */
static inline uint16_t ptl_nm_hblock_floor(const ptl_navmesh* nm, const ptl_blob_hblock* k, uint32_t i) {
    const uint8_t* p = nm->hdata + k->data;
    uint32_t v;
    switch (k->kind) {
    case PTL_HBLOCK_FLAT: return k->base;
    case PTL_HBLOCK_U4: v = (p[i / 2] >> (4 * (i & 1))) & 15u; return v == 15u ? PTL_HEIGHT_NONE : (uint16_t)(k->base + v);
    case PTL_HBLOCK_U8: return p[i] == 255u ? PTL_HEIGHT_NONE : (uint16_t)(k->base + p[i]);
    default: {
        uint16_t w;
        memcpy(&w, p + 2 * i, 2);
        return w;
    }
    }
}

/* The height block of grid g holding column (x, z) (inside its w x d). */
static inline const ptl_blob_hblock* ptl_nm_grid_block(const ptl_navmesh* nm, const ptl_blob_grid* g, uint32_t x, uint32_t z) {
    const uint32_t B = PTL_HEIGHT_BLOCK;
    return &nm->hblocks[g->first + (z / B) * ((g->w + B - 1) / B) + x / B];
}

/* The floor of column (x, z) of grid g (inside its w x d), PTL_HEIGHT_NONE where the layer has none.
   Inline: the heights of a move's end and of point location read a few columns per query. */
static inline uint16_t ptl_nm_grid_floor(const ptl_navmesh* nm, const ptl_blob_grid* g, uint32_t x, uint32_t z) {
    const uint32_t B = PTL_HEIGHT_BLOCK;
    return ptl_nm_hblock_floor(nm, ptl_nm_grid_block(nm, g, x, z), (z % B) * B + x % B);
}

/* The floors of the 2 x 2 columns (x, z), (x + 1, z), (x, z + 1), (x + 1, z + 1) of grid g, in that
   order, as ptl_nm_grid_floor gives each, when all four lie inside g and in one height block (one
   block header read for the four: a move's end height reads such a quad); false otherwise, v
   untouched. */
static inline bool ptl_nm_grid_quad(const ptl_navmesh* nm, const ptl_blob_grid* g, int64_t x, int64_t z, uint16_t v[4]) {
    const uint32_t B = PTL_HEIGHT_BLOCK;
    if (x < 0 || z < 0 || x + 1 >= (int64_t)g->w || z + 1 >= (int64_t)g->d) return false;
    const uint32_t ux = (uint32_t)x, uz = (uint32_t)z;
    if (ux % B == B - 1 || uz % B == B - 1) return false;
    const ptl_blob_hblock* k = ptl_nm_grid_block(nm, g, ux, uz);
    const uint32_t i = (uz % B) * B + ux % B;
    v[0] = ptl_nm_hblock_floor(nm, k, i), v[1] = ptl_nm_hblock_floor(nm, k, i + 1);
    v[2] = ptl_nm_hblock_floor(nm, k, i + B), v[3] = ptl_nm_hblock_floor(nm, k, i + B + 1);
    return true;
}

/* Height of cell c's floor at (x, z) from its height grid; false when the cell has none (a flat
   cell, a link cell, any cell of a 2D bake: its vertices give its heights, ptl_query_cell_y) or the
   grid has no floor there (within one column). */
bool ptl_nm_cell_floor(const ptl_navmesh* nm, uint32_t c, double x, double z, float* y);

/* The geometric tolerance of validation (validate.c): 4e-7 of the largest coordinate magnitude of
   the bounds, at least 1 (the blob stores float coordinates). */
double ptl_nm_tolerance(const ptl_navmesh* nm);
/* The first vertex (index in the cell) where cell c turns right by more than `tol` (or, in a
   relaxed navmesh, by more than the relaxation): PTL_NONE for a convex cell (validate.c). */
uint32_t ptl_nm_cell_reflex(const ptl_navmesh* nm, uint32_t c, double tol);

/* floor(f) clamped to [0, n - 1], clamped as a double first: f may be huge, infinite or NaN. */
static inline uint32_t ptl_nm_clamp_index(double f, uint32_t n) {
    if (!(f > 0)) return 0;
    return f >= (double)n - 1 ? n - 1 : (uint32_t)f;
}

/* Bucket of the point-location grid holding (x, z), clamped to the grid. Inline: every point
   location starts with it. */
static inline uint32_t ptl_nm_bucket(const ptl_navmesh* nm, double x, double z) {
    const ptl_blob_header* h = nm->h;
    const uint32_t ix = ptl_nm_clamp_index((x - h->bmin[0]) / h->grid_cell, h->grid_nx);
    const uint32_t iz = ptl_nm_clamp_index((z - h->bmin[2]) / h->grid_cell, h->grid_nz);
    return iz * h->grid_nx + ix;
}

#endif
