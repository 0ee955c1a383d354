/* Merging the layers' decompositions into one cell-and-portal graph (ANavMG thesis §6.2.4).

   Each layer is decomposed on its own, its junctions with other layers taken as walls. Then, on
   every junction line (junctions are never simplified, so they run along lattice lines, exactly the
   same on both sides), each side's cell edges are cut at the other side's vertices: the thesis
   merges a vertex into the closest edge and removes the T-joints this makes; cutting at the same
   exact lattice positions on both sides leaves none to remove. The pieces then pair up one to one
   with reversed directions and become portals between the layers, and the vertices at each cut are
   unified. Heights: every vertex takes the highest voxel floor of its layer among the columns
   touching it, so cells follow ramps and stairs within one cell height; for the heights inside cells,
   each cell that is not flat carries the floor grid of its layer around it (navmesh_format.h). */
#include <math.h>
#include <string.h>

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
} merge;

static uint32_t find(uint32_t* p, uint32_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
}

/* A cell's own floors for its height grid. A layer may hold floors far apart in height side by
   side in plan with no link between them (the side of a flight and the ground beside it, with a
   column of ledge between them), and contour simplification may move both walls into that column:
   the window of columns around a cell then reaches floors that are not its surface, and a height
   lookup near its wall read the ground beside a flight. So a cell's grid keeps a floor of its
   layer only in a column whose square overlaps the cell (with some area): every point of the cell
   lies in such a column, or in one with no floor whose 3 x 3 neighbours include such columns (the
   runtime looks there, ptl_nm_cell_floor). `uv` is the cell in its layer's column coordinates,
   counter-clockwise. */
typedef struct cell_poly {
    const double* uv; /* 2 per vertex */
    uint32_t n;
} cell_poly;

/* The cell whose vertices are verts[first..end) (into xyz) in layer `lcl`'s column coordinates,
   written into `buf` (2 per vertex): made when needed, never kept for every cell at once. */
static cell_poly cell_poly_at(const ptl_layer_map* of, const ptl_layer_contour* lcl, const double* xyz,
                              const uint32_t* verts, uint32_t first, uint32_t end, double* buf) {
    for (uint32_t i = first; i < end; ++i) {
        const double* q = &xyz[3 * (size_t)verts[i]];
        buf[2 * (i - first)] = (q[0] - of->p.bmin[0]) / of->p.cs - lcl->x0;
        buf[2 * (i - first) + 1] = (q[2] - of->p.bmin[2]) / of->p.cs - lcl->z0;
    }
    return (cell_poly){buf, end - first};
}

/* The x-range of the cell within each row of columns z of z0 .. z1 (the strip z <= v <= z + 1) into
   lh[2 (z - z0)], lh[2 (z - z0) + 1]: lo < hi, or lo >= hi when the cell does not cross the strip
   with some area. The range is the span of the vertices inside the strip and of the points where
   edges cross its two lines; each vertex and each edge crossing is visited once and added to the
   rows it belongs to (the same values, compared by the same tests, as a scan of every edge per
   row: fmin and fmax do not depend on the order). vz0, vz1: the cell's range of v. */
static void cell_rows(const cell_poly* cp, double vz0, double vz1, int64_t z0, int64_t z1, double* lh) {
    for (int64_t z = z0; z <= z1; ++z) lh[2 * (z - z0)] = INFINITY, lh[2 * (z - z0) + 1] = -INFINITY;
#define ADD(z, x)                                                                   \
    do {                                                                            \
        if ((z) >= z0 && (z) <= z1) {                                               \
            double* r_ = &lh[2 * ((z) - z0)];                                       \
            r_[0] = fmin(r_[0], (x)), r_[1] = fmax(r_[1], (x));                     \
        }                                                                           \
    } while (0)
    for (uint32_t i = 0; i < cp->n; ++i) {
        const double* a = &cp->uv[2 * i];
        const double* b = &cp->uv[2 * (i + 1 == cp->n ? 0 : i + 1)];
        /* a lies in the strips z with z <= a.v <= z + 1: floor(a.v) and the one below */
        if (isfinite(a[1])) {
            const int64_t f = (int64_t)floor(a[1]);
            for (int64_t z = f - 1; z <= f; ++z)
                if (a[1] >= (double)z && a[1] <= (double)z + 1) ADD(z, a[0]);
        }
        /* the lines zl strictly between a.v and b.v: zl is the top line of strip zl - 1 and the
           bottom line of strip zl */
        const double lo = fmin(a[1], b[1]), hi = fmax(a[1], b[1]);
        if (!(lo < hi) || !isfinite(lo) || !isfinite(hi)) continue;
        const int64_t la = (int64_t)floor(lo), lb = (int64_t)ceil(hi);
        const int64_t ma = la > z0 ? la : z0, mb = lb < z1 + 1 ? lb : z1 + 1; /* lines of the window's strips */
        for (int64_t L = ma; L <= mb; ++L) {
            const double zl = (double)L;
            if ((a[1] < zl && b[1] > zl) || (a[1] > zl && b[1] < zl)) {
                const double x = a[0] + (b[0] - a[0]) * (zl - a[1]) / (b[1] - a[1]);
                ADD(L, x);
                ADD(L - 1, x);
            }
        }
    }
#undef ADD
    for (int64_t z = z0; z <= z1; ++z) /* a strip the cell only touches */
        if (vz0 >= (double)z + 1 || vz1 <= (double)z) lh[2 * (z - z0)] = INFINITY, lh[2 * (z - z0) + 1] = -INFINITY;
}

/* Fills ov[(z - z0) * w + (x - x0)] for the window x0..x1, z0..z1: 1 where the column's square
   overlaps the cell with some area; and run[2 (z - z0)], run[2 (z - z0) + 1], the first and last
   such x - x0 of the row (first > last: none). A column x of the row overlaps when x + 1 > lo and
   x < hi (the row's x-range), that is for the integers floor(lo) <= x <= ceil(hi) - 1: one run per
   row, its ends from floor and ceil (exact), clamped to the window as doubles before any conversion.
   lh: room for 2 doubles per row. */
static void cell_cover(const cell_poly* cp, int64_t x0, int64_t z0, int64_t x1, int64_t z1, uint8_t* ov, int64_t* run,
                       double* lh) {
    const int64_t w = x1 - x0 + 1;
    double vz0 = INFINITY, vz1 = -INFINITY;
    for (uint32_t i = 0; i < cp->n; ++i) vz0 = fmin(vz0, cp->uv[2 * i + 1]), vz1 = fmax(vz1, cp->uv[2 * i + 1]);
    cell_rows(cp, vz0, vz1, z0, z1, lh);
    for (int64_t z = z0; z <= z1; ++z) {
        uint8_t* row = ov + (z - z0) * w;
        int64_t* r = run + 2 * (z - z0);
        const double lo = lh[2 * (z - z0)], hi = lh[2 * (z - z0) + 1];
        memset(row, 0, (size_t)w);
        r[0] = 1, r[1] = 0;
        if (!(lo < hi)) continue;
        const double fa = fmax(floor(lo), (double)x0), fb = fmin(ceil(hi) - 1, (double)x1);
        if (!(fa <= fb)) continue;
        r[0] = (int64_t)fa - x0, r[1] = (int64_t)fb - x0;
        memset(row + r[0], 1, (size_t)(r[1] - r[0] + 1));
    }
}

/* The one floor height of the columns of the window x0..x1, z0..z1 that overlap the cell (`run`:
   its rows' runs, cell_cover), -2 for more than one, -1 for none. Each row's run is read at once
   (ptl_lmap_layer_floor_row, into `row`: room for the window's width), the floors being
   ptl_contour_floor's (the window lies inside the layer's grid). */
static int32_t cell_own_height(const ptl_layer_map* of, const ptl_layer_contour* lcl, int64_t x0, int64_t z0,
                               int64_t z1, const int64_t* run, uint16_t* row) {
    int32_t h = -1;
    for (int64_t z = 0; z <= z1 - z0 && h != -2; ++z) {
        const int64_t a = run[2 * z], b = run[2 * z + 1];
        if (a > b) continue;
        ptl_lmap_layer_floor_row(of, lcl->layer, lcl->x0 + x0 + a, lcl->z0 + z0 + z, (uint32_t)(b - a + 1),
                                 PTL_HEIGHT_NONE, row);
        for (int64_t i = 0; i <= b - a && h != -2; ++i)
            if (row[i] != PTL_HEIGHT_NONE) h = h == -1 || h == (int32_t)row[i] ? (int32_t)row[i] : -2;
    }
    return h;
}

/* Could a height lookup from the cell read a floor of its layer that is not its own, in the window
   x0..x1, z0..z1 (`run`: its rows' runs, cell_cover)? A floor of a column that does not overlap the
   cell, next to one that does (the runtime looks at the 3 x 3 columns around a point), with no
   floor of the cell within two columns of it within a climb of it: a floor across a wall or a
   ledge, not the same ground running on past the cell's edge. Such a cell never shares its layer's grid. */
static bool cell_foreign(const ptl_layer_map* of, const ptl_layer_contour* lcl, int64_t x0, int64_t z0, int64_t x1,
                         int64_t z1, const int64_t* run) {
    const int64_t w = x1 - x0 + 1, d = z1 - z0 + 1;
    /* the cell covers (x, z) of the window: its row's run holds x (runs lie within 0 .. w - 1) */
#define OV(x, z) ((z) >= 0 && (z) < d && run[2 * (z)] <= (x) && (x) <= run[2 * (z) + 1])
    for (int64_t z = 0; z < d; ++z) {
        const int64_t za = z > 0 ? z - 1 : 0, zb = z + 1 < d ? z + 1 : d - 1;
        /* only columns within one of a run of rows za .. zb can pass the test below: x from the
           lowest run start - 1 to the highest run end + 1 (the window's columns outside are skipped) */
        int64_t xa = w, xb = -1;
        for (int64_t nz = za; nz <= zb; ++nz)
            if (run[2 * nz] <= run[2 * nz + 1]) {
                xa = run[2 * nz] - 1 < xa ? run[2 * nz] - 1 : xa;
                xb = run[2 * nz + 1] + 1 > xb ? run[2 * nz + 1] + 1 : xb;
            }
        if (xa < 0) xa = 0;
        if (xb > w - 1) xb = w - 1;
        for (int64_t x = xa; x <= xb; ++x) {
            if (OV(x, z)) continue;
            /* does the cell cover one of the 3 x 3 columns around (the window clipped to the grid):
               a run meets x - 1 .. x + 1 (runs lie within the window, so no clipping is needed) */
            bool read = false;
            for (int64_t nz = za; nz <= zb; ++nz)
                read |= run[2 * nz] <= x + 1 && run[2 * nz + 1] >= x - 1 && run[2 * nz] <= run[2 * nz + 1];
            if (!read) continue;
            const int32_t fe = ptl_contour_floor(of, lcl, x0 + x, z0 + z);
            if (fe < 0) continue;
            bool near_own = false; /* a floor of the cell within a climb of it, two columns around */
            for (int64_t nz = z - 2; nz <= z + 2 && !near_own; ++nz)
                for (int64_t nx = x - 2; nx <= x + 2 && !near_own; ++nx) {
                    if (!OV(nx, nz)) continue;
                    const int32_t f = ptl_contour_floor(of, lcl, x0 + nx, z0 + nz);
                    near_own = f >= 0 && f - fe <= of->p.walkable_climb && fe - f <= of->p.walkable_climb;
                }
            if (!near_own) return true;
        }
    }
#undef OV
    return false;
}

static double layer_height(const merge* m, uint32_t l, double u, double v) {
    return ptl_contour_height(m->of, &m->lc[l], u, v);
}

static bool add_vertex(merge* m, uint32_t layer, double gu, double gv, double y) {
    const ptl_vx_params* p = &m->of->p;
    uint32_t id = m->vlayer.count;
    return PTL_PUSH(m->a, m->xyz, p->bmin[0] + gu * p->cs) && PTL_PUSH(m->a, m->xyz, y) &&
           PTL_PUSH(m->a, m->xyz, p->bmin[2] + gv * p->cs) && PTL_PUSH(m->a, m->lat, gu) && PTL_PUSH(m->a, m->lat, gv) &&
           PTL_PUSH(m->a, m->vlayer, layer) && PTL_PUSH(m->a, m->parent, id);
}

/* Same group: same line (or pair of lines across a gap) between the same layers. */
static bool same_group(const jedge* a, const jedge* b) {
    return a->line_axis == b->line_axis && a->gline == b->gline && a->gap == b->gap && a->lo_layer == b->lo_layer &&
           a->hi_layer == b->hi_layer;
}

/* Sort orders for ptl_sort (alloc.h). */
static int cmp_jedge(const void* pa, const void* pb) {
    const jedge *a = pa, *b = pb;
    if (a->line_axis != b->line_axis) return a->line_axis < b->line_axis ? -1 : 1;
    if (a->gline != b->gline) return a->gline < b->gline ? -1 : 1;
    if (a->gap != b->gap) return a->gap < b->gap ? -1 : 1;
    if (a->lo_layer != b->lo_layer) return a->lo_layer < b->lo_layer ? -1 : 1;
    if (a->hi_layer != b->hi_layer) return a->hi_layer < b->hi_layer ? -1 : 1;
    double am = fmin(a->ta, a->tb), bm = fmin(b->ta, b->tb);
    if (am != bm) return am < bm ? -1 : 1;
    if (a->side != b->side) return a->side < b->side ? -1 : 1;
    return a->cell < b->cell ? -1 : a->cell > b->cell;
}

static int cmp_jpoint(const void* pa, const void* pb) {
    const jpoint *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    if (a->side != b->side) return a->side < b->side ? -1 : 1;
    return a->vert < b->vert ? -1 : a->vert > b->vert;
}

typedef PTL_ARRAY(jedge) jedge_array;

/* The junction edges of every layer's cells. */
static ptl_status collect_junctions(merge* m, jedge_array* out) {
    for (uint32_t l = 0; l < m->layers; ++l) {
        const ptl_decomposition* d = &m->dc[l];
        const ptl_layer_contour* c = &m->lc[l];
        for (uint32_t cell = 0; cell < d->cell_count; ++cell) {
            uint32_t b = d->cell_start[cell], n = d->cell_start[cell + 1] - b;
            for (uint32_t i = 0; i < n; ++i) {
                if (d->cell_nbrs[b + i] != PTL_NONE) continue;
                uint32_t va = d->cell_verts[b + i], vb = d->cell_verts[b + (i + 1) % n];
                double ua = d->xy[2 * va], wa = d->xy[2 * va + 1], ub = d->xy[2 * vb], wb = d->xy[2 * vb + 1];
                int du = ub > ua ? 1 : ub < ua ? -1 : 0, dv = wb > wa ? 1 : wb < wa ? -1 : 0;
                if ((du != 0) == (dv != 0)) continue; /* diagonal: a simplified wall */
                double fixed = du ? wa : ua;
                if (fixed != floor(fixed)) continue;
                double mid = du ? 0.5 * (ua + ub) : 0.5 * (wa + wb);
                int64_t k = (int64_t)floor(mid);
                int64_t su = du ? (du > 0 ? k : k + 1) : (int64_t)ua, sv = dv ? (dv > 0 ? k : k + 1) : (int64_t)wa;
                uint32_t kind = ptl_contour_edge_kind(m->of, c, l, su, sv, du, dv);
                if (kind == PTL_NONE) continue;
                jedge e;
                e.line_axis = du ? 0 : 1;
                e.line = (int64_t)fixed + (du ? c->z0 : c->x0);
                if (PTL_KIND_IS_GAP(kind)) {
                    /* The wall side (right of the edge) faces -z, +x, +z, -x for du = 1, dv = 1,
                       du = -1, dv = -1 (ptl_contour_edge_kind); the other side's edge lies `gap`
                       lines that way. */
                    uint32_t other = PTL_KIND_LAYER(kind);
                    e.gap = PTL_KIND_GAP_COLS(kind);
                    int64_t across = e.line + ((du == 1 || dv == -1) ? -(int64_t)e.gap : (int64_t)e.gap);
                    e.gline = across < e.line ? across : e.line;
                    e.side = e.line == e.gline ? 0 : 1;
                    e.lo_layer = e.side == 0 ? l : other;
                    e.hi_layer = e.side == 0 ? other : l;
                } else {
                    uint32_t other = kind;
                    e.gap = 0;
                    e.gline = e.line;
                    e.side = l;
                    e.lo_layer = l < other ? l : other;
                    e.hi_layer = l < other ? other : l;
                }
                e.ta = (du ? ua : wa) + (du ? c->x0 : c->z0);
                e.tb = (du ? ub : wb) + (du ? c->x0 : c->z0);
                e.cell = m->coff[l] + cell;
                e.edge = i;
                e.layer = l;
                e.va = m->voff[l] + va;
                e.vb = m->voff[l] + vb;
                if (!PTL_PUSH(m->a, *out, e)) return PTL_ERR_NO_MEMORY;
            }
        }
    }
    return ptl_sort(out->data, out->count, sizeof *out->data, cmp_jedge, m->a) ? PTL_OK : PTL_ERR_NO_MEMORY;
}

/* A cut point to insert into cell `cell`'s edge `edge`, at `t` along the line from the edge's start. */
typedef struct cut {
    uint32_t cell, edge;
    double along; /* distance from the edge's start, in lattice units */
    uint32_t vert;
} cut;

static int cmp_cut(const void* pa, const void* pb) {
    const cut *a = pa, *b = pb;
    if (a->cell != b->cell) return a->cell < b->cell ? -1 : 1;
    if (a->edge != b->edge) return a->edge < b->edge ? -1 : 1;
    return a->along < b->along ? -1 : a->along > b->along;
}

/* A piece of a junction edge after the cuts, to be paired with the other side's. */
typedef struct piece {
    uint32_t group;
    double t0, t1;       /* t0 < t1 */
    uint32_t side, cell; /* jedge.side */
    uint32_t va, vb;     /* the piece's vertices in the cell's direction */
    uint32_t slot;       /* index of va in the cell's new vertex list */
} piece;

static int cmp_piece(const void* pa, const void* pb) {
    const piece *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->t0 != b->t0) return a->t0 < b->t0 ? -1 : 1;
    if (a->t1 != b->t1) return a->t1 < b->t1 ? -1 : 1;
    if (a->side != b->side) return a->side < b->side ? -1 : 1;
    return a->cell < b->cell ? -1 : a->cell > b->cell;
}

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

/* The vertices of every layer in world space, with their layer's heights. */
static ptl_status merge_vertices(merge* m) {
    m->voff = ptl_mem_calloc(m->a, (size_t)m->layers + 1, sizeof(uint32_t));
    m->coff = ptl_mem_calloc(m->a, (size_t)m->layers + 1, sizeof(uint32_t));
    if (!m->voff || !m->coff) return PTL_ERR_NO_MEMORY;
    for (uint32_t l = 0; l < m->layers; ++l) {
        m->voff[l + 1] = m->voff[l] + m->dc[l].vert_count;
        m->coff[l + 1] = m->coff[l] + m->dc[l].cell_count;
    }
    for (uint32_t l = 0; l < m->layers; ++l) {
        for (uint32_t v = 0; v < m->dc[l].vert_count; ++v) {
            double u = m->dc[l].xy[2 * v], w = m->dc[l].xy[2 * v + 1];
            if (!add_vertex(m, l, u + m->lc[l].x0, w + m->lc[l].z0, layer_height(m, l, u, w))) return PTL_ERR_NO_MEMORY;
        }
    }
    return PTL_OK;
}

/* Groups: one per junction line and pair of layers (or pair of lines across a gap). Points of both
   sides on each group. */
static ptl_status merge_groups(ptl_layer_merge* lm) {
    const jedge_array* je = &lm->je;
    lm->group_of = ptl_mem_alloc(&lm->al, ((size_t)je->count + 1) * sizeof(uint32_t));
    lm->group_gap = ptl_mem_calloc(&lm->al, (size_t)je->count + 1, sizeof(uint32_t));
    if (!lm->group_of || !lm->group_gap) return PTL_ERR_NO_MEMORY;
    uint32_t groups = 0;
    for (uint32_t i = 0; i < je->count; ++i) {
        const jedge* e = &je->data[i];
        if (i > 0 && !same_group(&je->data[i - 1], e)) ++groups;
        lm->group_of[i] = groups;
        lm->group_gap[groups] = e->gap;
        jpoint a = {groups, e->ta, e->side, e->va}, b = {groups, e->tb, e->side, e->vb};
        if (!PTL_PUSH(&lm->al, lm->jp, a) || !PTL_PUSH(&lm->al, lm->jp, b)) return PTL_ERR_NO_MEMORY;
    }
    return ptl_sort(lm->jp.data, lm->jp.count, sizeof *lm->jp.data, cmp_jpoint, &lm->al) ? PTL_OK : PTL_ERR_NO_MEMORY;
}

/* Cuts: every point of one side strictly inside an edge of the other side on the same group, each
   a new vertex of this side, unified with the other side's by merge_unify. */
static ptl_status merge_cuts(ptl_layer_merge* lm) {
    merge* m = &lm->m;
    const ptl_allocator* al = &lm->al;
    PTL_ARRAY(jpoint) jp_new = {0};
    ptl_status st = PTL_OK;
    for (uint32_t i = 0, g0 = 0; i < lm->je.count && st >= 0; ++i) {
        const jedge* e = &lm->je.data[i];
        const uint32_t group = lm->group_of[i];
        while (g0 < lm->jp.count && lm->jp.data[g0].group < group) ++g0;
        double lo = fmin(e->ta, e->tb), hi = fmax(e->ta, e->tb);
        for (uint32_t k = g0; k < lm->jp.count && lm->jp.data[k].group == group && lm->jp.data[k].t < hi; ++k) {
            const jpoint* p = &lm->jp.data[k];
            if (p->side == e->side || p->t <= lo ||
                (k > g0 && lm->jp.data[k - 1].t == p->t && lm->jp.data[k - 1].side != e->side))
                continue; /* one cut per position */
            uint32_t nv = m->vlayer.count;
            const ptl_layer_contour* c = &m->lc[e->layer];
            double gu = e->line_axis == 0 ? p->t : (double)e->line, gv = e->line_axis == 0 ? (double)e->line : p->t;
            cut ct = {e->cell, e->edge, fabs(p->t - e->ta), nv};
            jpoint np = {group, p->t, e->side, nv};
            if (!add_vertex(m, e->layer, gu, gv, layer_height(m, e->layer, gu - c->x0, gv - c->z0)) ||
                !PTL_PUSH(al, lm->cuts, ct) || !PTL_PUSH(al, jp_new, np)) {
                st = PTL_ERR_NO_MEMORY;
                break;
            }
        }
    }
    for (uint32_t i = 0; i < jp_new.count && st >= 0; ++i)
        if (!PTL_PUSH(al, lm->jp, jp_new.data[i])) st = PTL_ERR_NO_MEMORY;
    PTL_ARRAY_FREE(al, jp_new);
    if (st >= 0 && (!ptl_sort(lm->cuts.data, lm->cuts.count, sizeof *lm->cuts.data, cmp_cut, al) ||
                    !ptl_sort(lm->jp.data, lm->jp.count, sizeof *lm->jp.data, cmp_jpoint, al)))
        st = PTL_ERR_NO_MEMORY;
    return st;
}

/* Unifies each side's vertex with the other side's at the same position of a group (a position a
   side holds twice, a pinch, is left alone). */
static void merge_unify(ptl_layer_merge* lm) {
    uint32_t* parent = lm->m.parent.data;
    const jpoint* jp = lm->jp.data;
    for (uint32_t i = 0; i < lm->jp.count;) {
        uint32_t j = i;
        while (j < lm->jp.count && jp[j].group == jp[i].group && jp[j].t == jp[i].t) ++j;
        if (lm->group_gap[jp[i].group]) { /* across a gap the two sides' points stay apart */
            i = j;
            continue;
        }
        uint32_t first = jp[i].side, a0 = PTL_NONE, b0 = PTL_NONE, na = 0, nb = 0;
        for (uint32_t k = i; k < j; ++k) {
            uint32_t r = find(parent, jp[k].vert);
            if (jp[k].side == first) {
                if (a0 == PTL_NONE || find(parent, a0) != r) ++na;
                a0 = a0 == PTL_NONE ? r : a0;
            } else {
                if (b0 == PTL_NONE || find(parent, b0) != r) ++nb;
                b0 = b0 == PTL_NONE ? r : b0;
            }
        }
        if (na == 1 && nb == 1) {
            uint32_t ra = find(parent, a0), rb = find(parent, b0);
            if (ra != rb) parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
        }
        i = j;
    }
}

/* The cells with the cuts inserted into their edges. */
static ptl_status merge_cells(ptl_layer_merge* lm) {
    const merge* m = &lm->m;
    const ptl_allocator* al = &lm->al;
    const cut* cuts = lm->cuts.data;
    uint32_t ci = 0;
    for (uint32_t l = 0; l < m->layers; ++l) {
        const ptl_decomposition* d = &m->dc[l];
        for (uint32_t cell = 0; cell < d->cell_count; ++cell) {
            uint32_t gc = m->coff[l] + cell;
            if (!PTL_PUSH(al, lm->cstart, lm->cverts.count) || !PTL_PUSH(al, lm->clayer, l)) return PTL_ERR_NO_MEMORY;
            uint32_t b = d->cell_start[cell], n = d->cell_start[cell + 1] - b;
            for (uint32_t i = 0; i < n; ++i) {
                uint32_t va = m->voff[l] + d->cell_verts[b + i];
                uint32_t nbr = d->cell_nbrs[b + i];
                if (!PTL_PUSH(al, lm->cverts, va) || !PTL_PUSH(al, lm->cnbrs, nbr == PTL_NONE ? PTL_NONE : m->coff[l] + nbr))
                    return PTL_ERR_NO_MEMORY;
                while (ci < lm->cuts.count && (cuts[ci].cell < gc || (cuts[ci].cell == gc && cuts[ci].edge < i))) ++ci;
                for (; ci < lm->cuts.count && cuts[ci].cell == gc && cuts[ci].edge == i; ++ci) {
                    if (!PTL_PUSH(al, lm->cverts, cuts[ci].vert) || !PTL_PUSH(al, lm->cnbrs, PTL_NONE))
                        return PTL_ERR_NO_MEMORY;
                }
            }
        }
    }
    lm->ncell = m->coff[m->layers];
    return PTL_PUSH(al, lm->cstart, lm->cverts.count) ? PTL_OK : PTL_ERR_NO_MEMORY;
}

/* Junction pieces: consecutive vertex pairs of a cell that lie on one junction edge, sorted for
   pairing. */
static ptl_status merge_pieces(ptl_layer_merge* lm) {
    for (uint32_t i = 0; i < lm->je.count; ++i) {
        const jedge* e = &lm->je.data[i];
        uint32_t b = lm->cstart.data[e->cell], n = lm->cstart.data[e->cell + 1] - b;
        /* Locate the edge's start in the new list and walk to its end. */
        uint32_t k = 0;
        while (k < n && lm->cverts.data[b + k] != e->va) ++k;
        if (k == n) continue;
        for (;;) {
            uint32_t k1 = (k + 1) % n;
            uint32_t va = lm->cverts.data[b + k], vb = lm->cverts.data[b + k1];
            const double* pa = &lm->m.lat.data[2 * va];
            const double* pb = &lm->m.lat.data[2 * vb];
            double ta = e->line_axis == 0 ? pa[0] : pa[1], tb = e->line_axis == 0 ? pb[0] : pb[1];
            piece pc = {lm->group_of[i], fmin(ta, tb), fmax(ta, tb), e->side, e->cell, va, vb, k};
            if (!PTL_PUSH(&lm->al, lm->pieces, pc)) return PTL_ERR_NO_MEMORY;
            if (vb == e->vb) break;
            k = k1;
        }
    }
    return ptl_sort(lm->pieces.data, lm->pieces.count, sizeof *lm->pieces.data, cmp_piece, &lm->al) ? PTL_OK
                                                                                                    : PTL_ERR_NO_MEMORY;
}

/* A gap link between pieces p and q: a cell of its own over the gap, the quad between the two
   pieces (each runs counter-clockwise in its cell, so the quad walks both backwards; p->va and
   q->vb lie at the same position along the lines). */
static ptl_status merge_gap_link(ptl_layer_merge* lm, const piece* p, const piece* q) {
    const ptl_allocator* al = &lm->al;
    const double* xyz = lm->m.xyz.data;
    const ptl_vx_params* vp = &lm->m.of->p;
    uint32_t lc_id = lm->ncell + lm->links.count;
    uint32_t quad[4] = {p->vb, p->va, q->vb, q->va}, qn[4] = {p->cell, PTL_NONE, q->cell, PTL_NONE};
    for (int k = 0; k < 4; ++k)
        if (!PTL_PUSH(al, lm->lverts, quad[k]) || !PTL_PUSH(al, lm->lnbrs, qn[k])) return PTL_ERR_NO_MEMORY;
    lm->cnbrs.data[lm->cstart.data[p->cell] + p->slot] = lc_id;
    lm->cnbrs.data[lm->cstart.data[q->cell] + q->slot] = lc_id;
    ptl_decomp_portal d0 = {{p->va, p->vb}, {p->cell, lc_id}}, d1 = {{q->va, q->vb}, {q->cell, lc_id}};
    double y0 = 0.5 * (xyz[3 * p->va + 1] + xyz[3 * p->vb + 1]);
    double y1 = 0.5 * (xyz[3 * q->va + 1] + xyz[3 * q->vb + 1]);
    bool swap = q->cell < p->cell;
    ptl_blob_link bl;
    memset(&bl, 0, sizeof bl);
    bl.cell = lc_id;
    bl.cells[0] = swap ? q->cell : p->cell, bl.cells[1] = swap ? p->cell : q->cell;
    bl.rise = (float)(swap ? y0 - y1 : y1 - y0);
    bl.gap = (float)(lm->group_gap[p->group] * vp->cs);
    bl.kind = fabs(bl.rise) <= vp->ch * 1.001 ? PTL_LINK_WALK : PTL_LINK_STEP;
    if (!PTL_PUSH(al, lm->portals, d0) || !PTL_PUSH(al, lm->portals, d1) || !PTL_PUSH(al, lm->links, bl) ||
        !PTL_PUSH(al, lm->llayer, y0 <= y1 ? lm->m.vlayer.data[p->va] : lm->m.vlayer.data[q->va]))
        return PTL_ERR_NO_MEMORY;
    return PTL_OK;
}

/* Pairs the pieces into portals between layers (or gap links), then the portals inside each
   layer, then the link cells after every walkable cell (navmesh_format.h). */
static ptl_status merge_portals(ptl_layer_merge* lm) {
    const merge* m = &lm->m;
    const ptl_allocator* al = &lm->al;
    const piece* pieces = lm->pieces.data;
    uint32_t* parent = m->parent.data;
    for (uint32_t i = 0; i + 1 < lm->pieces.count; ++i) {
        const piece* p = &pieces[i];
        const piece* q = &pieces[i + 1];
        if (p->group != q->group || p->t0 != q->t0 || p->t1 != q->t1 || p->side == q->side) continue;
        /* Both ends unified, and no third piece at the same place (that would be ambiguous). */
        if (i + 2 < lm->pieces.count && pieces[i + 2].group == p->group && pieces[i + 2].t0 == p->t0 &&
            pieces[i + 2].t1 == p->t1)
            continue;
        if (lm->group_gap[p->group]) {
            if (merge_gap_link(lm, p, q) < 0) return PTL_ERR_NO_MEMORY;
            ++i;
            continue;
        }
        if (find(parent, p->va) != find(parent, q->vb) || find(parent, p->vb) != find(parent, q->va)) continue;
        lm->cnbrs.data[lm->cstart.data[p->cell] + p->slot] = q->cell;
        lm->cnbrs.data[lm->cstart.data[q->cell] + q->slot] = p->cell;
        ptl_decomp_portal dp = {{p->va, p->vb}, {p->cell, q->cell}};
        if (!PTL_PUSH(al, lm->portals, dp)) return PTL_ERR_NO_MEMORY;
        ++lm->junction_portals;
        ++i;
    }
    for (uint32_t l = 0; l < m->layers; ++l) {
        for (uint32_t p = 0; p < m->dc[l].portal_count; ++p) {
            const ptl_decomp_portal* s = &m->dc[l].portals[p];
            ptl_decomp_portal dp = {{m->voff[l] + s->v[0], m->voff[l] + s->v[1]},
                                    {m->coff[l] + s->cell[0], m->coff[l] + s->cell[1]}};
            if (!PTL_PUSH(al, lm->portals, dp)) return PTL_ERR_NO_MEMORY;
        }
    }
    for (uint32_t k = 0; k < lm->links.count; ++k) {
        for (int j = 0; j < 4; ++j)
            if (!PTL_PUSH(al, lm->cverts, lm->lverts.data[4 * k + j]) || !PTL_PUSH(al, lm->cnbrs, lm->lnbrs.data[4 * k + j]))
                return PTL_ERR_NO_MEMORY;
        if (!PTL_PUSH(al, lm->cstart, lm->cverts.count) || !PTL_PUSH(al, lm->clayer, lm->llayer.data[k]))
            return PTL_ERR_NO_MEMORY;
    }
    return PTL_OK;
}

/* Final vertices: one per union-find class, in order of first appearance; heights: the highest. */
static ptl_status merge_final_vertices(ptl_layer_merge* lm) {
    const merge* m = &lm->m;
    uint32_t nv = m->vlayer.count;
    lm->remap = ptl_mem_alloc(&lm->al, ((size_t)nv + 1) * sizeof(uint32_t));
    lm->fxyz_n = ((size_t)nv + 1) * 3;
    lm->fxyz = ptl_mem_alloc(&lm->al, lm->fxyz_n * sizeof(double));
    if (!lm->remap || !lm->fxyz) return PTL_ERR_NO_MEMORY;
    memset(lm->remap, 0xff, ((size_t)nv + 1) * sizeof(uint32_t));
    uint32_t* parent = m->parent.data;
    for (uint32_t v = 0; v < nv; ++v) {
        uint32_t r = find(parent, v);
        if (lm->remap[r] == PTL_NONE) {
            lm->remap[r] = lm->nfinal++;
            memcpy(&lm->fxyz[3 * lm->remap[r]], &m->xyz.data[3 * r], 3 * sizeof(double));
        }
        double* y = &lm->fxyz[3 * lm->remap[r] + 1];
        if (m->xyz.data[3 * v + 1] > *y) *y = m->xyz.data[3 * v + 1];
    }
    for (uint32_t i = 0; i < lm->cverts.count; ++i) lm->cverts.data[i] = lm->remap[find(parent, lm->cverts.data[i])];
    for (uint32_t i = 0; i < lm->portals.count; ++i)
        for (int k = 0; k < 2; ++k) lm->portals.data[i].v[k] = lm->remap[find(parent, lm->portals.data[i].v[k])];
    return PTL_OK;
}

/* Cell areas: its layer's, the one tag of all the layer's spans (the layer stage never puts
   spans of two areas in one layer: layers.c, cut_area_borders); link cells: 0. */
static ptl_status merge_tags(ptl_layer_merge* lm) {
    const ptl_layer_map* of = lm->m.of;
    for (uint32_t c = 0; c < lm->ncell; ++c) {
        const uint32_t l = lm->clayer.data[c];
        uint16_t area = 0;
        if (l < of->layer_count && of->layer_first[l] < of->layer_first[l + 1]) {
            const ptl_lmap_bl* r = &of->bl[of->layer_bls[of->layer_first[l]]];
            area = r->tags_mixed ? 0 : r->tag;
        }
        if (!PTL_PUSH(&lm->al, lm->ctag, area)) return PTL_ERR_NO_MEMORY;
    }
    for (uint32_t k = 0; k < lm->links.count; ++k)
        if (!PTL_PUSH(&lm->al, lm->ctag, 0)) return PTL_ERR_NO_MEMORY;
    return PTL_OK;
}

/* Cell c in its layer's column coordinates, and which columns of the window x0..x1, z0..z1 it
   overlaps, into colst. */
static ptl_status merge_cover(ptl_layer_merge* lm, uint32_t c, int64_t x0, int64_t z0, int64_t x1, int64_t z1) {
    const ptl_allocator* al = &lm->al;
    if (!PTL_RESERVE(al, lm->colst, (uint64_t)(x1 - x0 + 1) * (uint64_t)(z1 - z0 + 1)) ||
        !PTL_RESERVE(al, lm->colrun, 2 * (uint64_t)(z1 - z0 + 1)) || !PTL_RESERVE(al, lm->colrange, 2 * (uint64_t)(z1 - z0 + 1)))
        return PTL_ERR_NO_MEMORY;
    if (!PTL_RESERVE(al, lm->cuv, 2 * (uint64_t)(lm->cstart.data[c + 1] - lm->cstart.data[c]))) return PTL_ERR_NO_MEMORY;
    const cell_poly cp = cell_poly_at(lm->m.of, &lm->m.lc[lm->clayer.data[c]], lm->fxyz, lm->cverts.data, lm->cstart.data[c],
                                      lm->cstart.data[c + 1], lm->cuv.data);
    cell_cover(&cp, x0, z0, x1, z1, lm->colst.data, lm->colrun.data, lm->colrange.data);
    return PTL_OK;
}

/* Does layer l share one grid among its cells (their grids together would be larger)? */
static bool layer_shares(const ptl_layer_merge* lm, uint32_t l) {
    return lm->lgrid[l].cost >= (uint64_t)lm->m.lc[l].w * lm->m.lc[l].d;
}

/* Cell c's window of columns (none for a flat cell or a link cell), its cost added to its layer's. */
static ptl_status merge_cell_window(ptl_layer_merge* lm, uint32_t c, ptl_blob_grid* g) {
    const ptl_layer_map* of = lm->m.of;
    const uint32_t l = lm->clayer.data[c];
    const ptl_layer_contour* lcl = &lm->m.lc[l];
    double u0 = 1e300, u1 = -1e300, v0 = 1e300, v1 = -1e300;
    for (uint32_t i = lm->cstart.data[c]; i < lm->cstart.data[c + 1]; ++i) {
        const double* q = &lm->fxyz[3 * (size_t)lm->cverts.data[i]];
        double u = (q[0] - of->p.bmin[0]) / of->p.cs - lcl->x0, v = (q[2] - of->p.bmin[2]) / of->p.cs - lcl->z0;
        u0 = u < u0 ? u : u0, u1 = u > u1 ? u : u1, v0 = v < v0 ? v : v0, v1 = v > v1 ? v : v1;
    }
    /* columns [floor(min) - 1, floor(max) + 1], clamped to the layer's grid */
    int64_t x0 = (int64_t)floor(u0 - 1e-6) - 1, x1 = (int64_t)floor(u1 + 1e-6) + 1;
    int64_t z0 = (int64_t)floor(v0 - 1e-6) - 1, z1 = (int64_t)floor(v1 + 1e-6) + 1;
    if (x0 < 0) x0 = 0;
    if (z0 < 0) z0 = 0;
    if (x1 > (int64_t)lcl->w - 1) x1 = (int64_t)lcl->w - 1;
    if (z1 > (int64_t)lcl->d - 1) z1 = (int64_t)lcl->d - 1;
    /* the one floor height of its own floors there, -2: more than one (a flat or empty layer: its own) */
    int32_t h = lm->lgrid[l].flat;
    if (h == -2) {
        if (x0 <= x1 && z0 <= z1) {
            if (merge_cover(lm, c, x0, z0, x1, z1) < 0 || !PTL_RESERVE(&lm->al, lm->crow, (uint64_t)(x1 - x0 + 1)))
                return PTL_ERR_NO_MEMORY;
            h = cell_own_height(of, lcl, x0, z0, z1, lm->colrun.data, lm->crow.data);
        } else {
            h = -1;
        }
    }
    if (h >= 0) { /* flat under and around it: and its vertices? (as ptl_contour_height writes them) */
        const double y = of->p.bmin[1] + (double)h * of->p.ch;
        for (uint32_t i = lm->cstart.data[c]; i < lm->cstart.data[c + 1] && h >= 0; ++i)
            if (lm->fxyz[3 * (size_t)lm->cverts.data[i] + 1] != y) h = -2;
    }
    if (h == -2 && x0 <= x1 && z0 <= z1) {
        g->x0 = (int32_t)x0, g->z0 = (int32_t)z0; /* local to the layer until written */
        g->w = (uint32_t)(x1 - x0 + 1), g->d = (uint32_t)(z1 - z0 + 1);
        lm->lgrid[l].cost += (uint64_t)g->w * g->d;
    }
    return PTL_OK;
}

/* The cells' height grids, first their windows: a cell's layer's floors over the columns around its
   bounds (every column a runtime lookup inside those bounds looks at: the one holding the point and
   its neighbours), except for a flat cell (one floor height over those columns, every vertex at
   it), whose vertices give every height exactly. Where a layer's cells' grids together would be
   larger than the layer's own (thin cells across slopes, whose bounds overlap), its cells share
   that one instead: the same floors around every cell, at less cost; except a cell whose lookups
   could read a floor of the layer that is not its own (cell_foreign), which keeps its own grid of
   its own floors. */
static ptl_status merge_grid_windows(ptl_layer_merge* lm) {
    const ptl_layer_map* of = lm->m.of;
    const uint32_t layers = lm->m.layers;
    lm->lgrid = ptl_mem_alloc(&lm->al, ((size_t)layers + 1) * sizeof *lm->lgrid);
    if (!lm->lgrid) return PTL_ERR_NO_MEMORY;
    for (uint32_t l = 0; l < layers; ++l) lm->lgrid[l].flat = -1, lm->lgrid[l].cost = 0, lm->lgrid[l].first = UINT32_MAX;
    lm->cforeign = ptl_mem_calloc(&lm->al, (size_t)lm->ncell + 1, 1);
    if (!lm->cforeign) return PTL_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < of->bl_count; ++i) { /* a flat layer spares the scan of every cell's columns */
        const uint32_t l = of->bl[i].world;
        if (l >= layers) continue;
        const int32_t f = of->bl[i].floor_min, h = lm->lgrid[l].flat;
        lm->lgrid[l].flat = of->bl[i].floor_max == of->bl[i].floor_min && (h == -1 || h == f) ? f : -2;
    }
    for (uint32_t c = 0; c < lm->ncell + lm->links.count; ++c) { /* each cell's window, or none */
        ptl_blob_grid g = {0, 0, 0, 0, 0, 0};
        if (c < lm->ncell && merge_cell_window(lm, c, &g) < 0) return PTL_ERR_NO_MEMORY;
        if (!PTL_PUSH(&lm->al, lm->cgrids, g)) return PTL_ERR_NO_MEMORY;
    }
    for (uint32_t c = 0; c < lm->ncell; ++c) { /* which cells of the layers that share may not */
        const ptl_blob_grid* g = &lm->cgrids.data[c];
        const uint32_t l = lm->clayer.data[c];
        if (!g->w || !layer_shares(lm, l)) continue;
        const int64_t x1 = (int64_t)g->x0 + g->w - 1, z1 = (int64_t)g->z0 + g->d - 1;
        if (merge_cover(lm, c, g->x0, g->z0, x1, z1) < 0) return PTL_ERR_NO_MEMORY;
        lm->cforeign[c] = cell_foreign(of, &lm->m.lc[l], g->x0, g->z0, x1, z1, lm->colrun.data);
    }
    return PTL_OK;
}

/* The heights, in cell order: a layer's shared grid once (the first cell that uses it writes it),
   a cell's own grid with the floors of the columns it does not overlap left out. */
static ptl_status merge_heights(ptl_layer_merge* lm) {
    const uint32_t layers = lm->m.layers;
    const ptl_layer_contour* lc = lm->m.lc;
    { /* the heights' exact size first (the largest array of the merge on large worlds: no growth slack) */
        uint64_t total = 0;
        for (uint32_t l = 0; l < layers; ++l) lm->lgrid[l].first = UINT32_MAX;
        for (uint32_t c = 0; c < lm->ncell; ++c) {
            const ptl_blob_grid* g = &lm->cgrids.data[c];
            if (!g->w) continue;
            const uint32_t l = lm->clayer.data[c];
            if (lm->cforeign[c] || !layer_shares(lm, l)) total += (uint64_t)g->w * g->d;
            else if (lm->lgrid[l].first == UINT32_MAX) total += (uint64_t)lc[l].w * lc[l].d, lm->lgrid[l].first = 0;
        }
        for (uint32_t l = 0; l < layers; ++l) lm->lgrid[l].first = UINT32_MAX;
        if (!PTL_RESERVE(&lm->al, lm->heights, total)) return PTL_ERR_NO_MEMORY;
    }
    for (uint32_t c = 0; c < lm->ncell; ++c) {
        ptl_blob_grid* g = &lm->cgrids.data[c];
        if (!g->w) continue;
        const uint32_t l = lm->clayer.data[c];
        const ptl_layer_contour* lcl = &lc[l];
        const bool shared = !lm->cforeign[c] && layer_shares(lm, l);
        if (shared) g->x0 = 0, g->z0 = 0, g->w = lcl->w, g->d = lcl->d;
        if (shared && lm->lgrid[l].first != UINT32_MAX) {
            g->first = lm->lgrid[l].first;
        } else {
            g->first = lm->heights.count;
            if (shared) lm->lgrid[l].first = lm->heights.count;
            if (!shared && merge_cover(lm, c, g->x0, g->z0, (int64_t)g->x0 + g->w - 1, (int64_t)g->z0 + g->d - 1) < 0)
                return PTL_ERR_NO_MEMORY;
            if (!PTL_RESERVE(&lm->al, lm->heights, (uint64_t)lm->heights.count + (uint64_t)g->w * g->d))
                return PTL_ERR_NO_MEMORY;
            for (uint32_t z = 0; z < g->d; ++z) { /* the layer's floors a row at a time (ptl_contour_floor) */
                uint16_t* row = lm->heights.data + lm->heights.count;
                for (uint32_t x = 0; x < g->w; ++x) row[x] = PTL_HEIGHT_NONE;
                const int64_t ue = (int64_t)g->x0 + g->w, u0 = g->x0 > 0 ? g->x0 : 0, u1 = ue < lcl->w ? ue : lcl->w;
                const int64_t v = (int64_t)g->z0 + z;
                if (v >= 0 && v < (int64_t)lcl->d && u0 < u1)
                    ptl_lmap_layer_floor_row(lm->m.of, lcl->layer, lcl->x0 + u0, lcl->z0 + v, (uint32_t)(u1 - u0),
                                             PTL_HEIGHT_NONE, row + (u0 - g->x0));
                if (!shared)
                    for (uint32_t x = 0; x < g->w; ++x)
                        if (!lm->colst.data[z * g->w + x]) row[x] = PTL_HEIGHT_NONE;
                lm->heights.count += g->w;
            }
        }
        g->x0 += lcl->x0, g->z0 += lcl->z0; /* to the world's columns */
    }
    return PTL_OK;
}

/* Drops everything but what the blob is built from. */
static void merge_drop_work(ptl_layer_merge* lm) {
    const ptl_allocator* al = &lm->al;
    merge* m = &lm->m;
    const size_t nv1 = (size_t)m->vlayer.count + 1;
    ptl_mem_free(al, lm->remap, nv1 * sizeof(uint32_t));
    lm->remap = NULL;
    ptl_mem_free(al, m->voff, ((size_t)m->layers + 1) * sizeof(uint32_t));
    ptl_mem_free(al, m->coff, ((size_t)m->layers + 1) * sizeof(uint32_t));
    m->voff = m->coff = NULL;
    PTL_ARRAY_FREE(al, m->xyz);
    PTL_ARRAY_FREE(al, m->lat);
    PTL_ARRAY_FREE(al, m->parent);
    PTL_ARRAY_FREE(al, m->vlayer);
    ptl_mem_free(al, lm->group_of, ((size_t)lm->je.count + 1) * sizeof(uint32_t));
    ptl_mem_free(al, lm->group_gap, ((size_t)lm->je.count + 1) * sizeof(uint32_t));
    lm->group_of = lm->group_gap = NULL;
    PTL_ARRAY_FREE(al, lm->je);
    PTL_ARRAY_FREE(al, lm->jp);
    PTL_ARRAY_FREE(al, lm->cuts);
    PTL_ARRAY_FREE(al, lm->pieces);
    PTL_ARRAY_FREE(al, lm->lverts);
    PTL_ARRAY_FREE(al, lm->lnbrs);
    PTL_ARRAY_FREE(al, lm->llayer);
    ptl_mem_free(al, lm->lgrid, ((size_t)m->layers + 1) * sizeof *lm->lgrid);
    lm->lgrid = NULL;
    ptl_mem_free(al, lm->cforeign, (size_t)lm->ncell + 1);
    lm->cforeign = NULL;
    PTL_ARRAY_FREE(al, lm->cuv);
    PTL_ARRAY_FREE(al, lm->colst);
    PTL_ARRAY_FREE(al, lm->colrun);
    PTL_ARRAY_FREE(al, lm->crow);
    PTL_ARRAY_FREE(al, lm->colrange);
    m->of = NULL; /* the map may go now */
}

void ptl_layer_merge_free(ptl_layer_merge* lm) {
    if (!lm) return;
    const ptl_allocator al = lm->al;
    merge_drop_work(lm);
    ptl_mem_free(&al, lm->fxyz, lm->fxyz_n * sizeof(double));
    PTL_ARRAY_FREE(&al, lm->cstart);
    PTL_ARRAY_FREE(&al, lm->cverts);
    PTL_ARRAY_FREE(&al, lm->cnbrs);
    PTL_ARRAY_FREE(&al, lm->clayer);
    PTL_ARRAY_FREE(&al, lm->ctag);
    PTL_ARRAY_FREE(&al, lm->portals);
    PTL_ARRAY_FREE(&al, lm->cgrids);
    PTL_ARRAY_FREE(&al, lm->heights);
    PTL_ARRAY_FREE(&al, lm->links);
    ptl_mem_free(&al, lm, sizeof *lm);
}

static ptl_status merge_run(ptl_layer_merge* lm) {
    ptl_status st = merge_vertices(&lm->m);
    if (st >= 0) st = collect_junctions(&lm->m, &lm->je);
    if (st >= 0) st = merge_groups(lm);
    if (st >= 0) st = merge_cuts(lm);
    if (st >= 0) merge_unify(lm);
    if (st >= 0) st = merge_cells(lm);
    if (st >= 0) st = merge_pieces(lm);
    if (st >= 0) st = merge_portals(lm);
    if (st >= 0) st = merge_final_vertices(lm);
    if (st >= 0) st = merge_tags(lm);
    if (st >= 0) st = merge_grid_windows(lm);
    if (st >= 0) st = merge_heights(lm);
    return st;
}

ptl_status ptl_merge_layers(const ptl_layer_map* of, const ptl_layer_contour* lc, const ptl_decomposition* dc,
                            uint32_t layers, double relax, const ptl_vx_tiling* tiling, const ptl_allocator* alloc,
                            ptl_layer_merge** out, ptl_merge_stats* stats, ptl_error* err) {
    *out = NULL;
    ptl_allocator al = ptl_allocator_resolve(alloc);
    ptl_layer_merge* lm = ptl_mem_calloc(&al, 1, sizeof *lm);
    if (!lm) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "merge layers: out of memory");
    lm->al = al;
    lm->m.a = &lm->al;
    lm->m.of = of;
    lm->m.lc = lc;
    lm->m.dc = dc;
    lm->m.layers = layers;
    lm->relax = relax;
    lm->tiling = tiling;
    lm->vox_cs = of->p.cs, lm->vox_ch = of->p.ch;
    memcpy(lm->vox_origin, of->p.bmin, sizeof lm->vox_origin);
    ptl_status st = merge_run(lm);
    if (st < 0) {
        ptl_layer_merge_free(lm);
        return ptl_error_set(err, st, "merge layers: %s", st == PTL_ERR_NO_MEMORY ? "out of memory" : ptl_status_message(st));
    }
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->cells = lm->ncell;
        stats->vertices = lm->nfinal;
        stats->portals = lm->portals.count;
        stats->junction_portals = lm->junction_portals;
        stats->junction_edges = lm->je.count;
        stats->links = lm->links.count;
    }
    merge_drop_work(lm);
    *out = lm;
    return PTL_OK;
}

ptl_status ptl_layer_merge_write(const ptl_layer_merge* lm, void** blob, size_t* size, ptl_error* err) {
    ptl_cpg_in in;
    memset(&in, 0, sizeof in);
    in.vert_count = lm->nfinal;
    in.xyz = lm->fxyz;
    in.cell_count = lm->ncell + lm->links.count;
    in.link_count = lm->links.count;
    in.links = lm->links.data;
    in.cell_start = lm->cstart.data;
    in.cell_verts = lm->cverts.data;
    in.cell_nbrs = lm->cnbrs.data;
    in.cell_layer = lm->clayer.data;
    in.cell_tag = lm->ctag.data;
    in.portal_count = lm->portals.count;
    in.portals = lm->portals.data;
    in.relax = lm->relax;
    in.layer_count = lm->m.layers;
    in.cell_grids = lm->cgrids.data;
    in.height_count = lm->heights.count;
    in.heights = lm->heights.data;
    in.vox_cs = lm->vox_cs, in.vox_ch = lm->vox_ch;
    if (lm->tiling) {
        in.tile_size = (uint32_t)lm->tiling->tile_size;
        in.tiles_x = (uint32_t)lm->tiling->tiles_x, in.tiles_z = (uint32_t)lm->tiling->tiles_z;
    }
    memcpy(in.vox_origin, lm->vox_origin, sizeof in.vox_origin);
    return ptl_cpg_build(&in, &lm->al, blob, size, err);
}
