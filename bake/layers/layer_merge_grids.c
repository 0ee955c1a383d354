/* The merged cells' height grids (layer_merge_internal.h): each cell's window of its layer's
   floors, or one grid its layer's cells share, and the heights written in cell order. */
#include <math.h>
#include <string.h>

#include "layer_merge_internal.h"

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
/* Are layer l's cells, with their final vertices, those the memo kept (its floors being the kept ones)? */
static bool cells_kept(const ptl_layer_merge* lm, uint32_t l) {
    const ptl_merge_memo_layer* ml = &lm->m.memo->layer[l];
    const uint32_t c0 = lm->m.coff[l], c1 = lm->m.coff[l + 1];
    if (!lm->m.fsame[l] || ml->cn.count != c1 - c0) return false;
    for (uint32_t c = c0, at = 0; c < c1; ++c) {
        const uint32_t b = lm->cstart.data[c], n = lm->cstart.data[c + 1] - b;
        if (ml->cn.data[c - c0] != n || ml->cxyz.count < at + 3 * n) return false;
        for (uint32_t i = 0; i < n; ++i, at += 3)
            if (memcmp(&ml->cxyz.data[at], &lm->fxyz[3 * (size_t)lm->cverts.data[b + i]], 3 * sizeof(double))) return false;
    }
    return true;
}

ptl_status ptl_merge_grid_windows(ptl_layer_merge* lm) {
    const ptl_layer_map* of = lm->m.of;
    const uint32_t layers = lm->m.layers;
    lm->lgrid = ptl_mem_alloc(&lm->al, ((size_t)layers + 1) * sizeof *lm->lgrid);
    if (!lm->lgrid) return PTL_ERR_NO_MEMORY;
    for (uint32_t l = 0; l < layers; ++l) lm->lgrid[l].flat = -1, lm->lgrid[l].cost = 0, lm->lgrid[l].first = UINT32_MAX;
    lm->cforeign = ptl_mem_calloc(&lm->al, (size_t)lm->ncell + 1, 1);
    if (!lm->cforeign) return PTL_ERR_NO_MEMORY;
    if (lm->m.memo) { /* the layers whose grids and heights are the memo's: nothing to find for their cells */
        lm->greuse = ptl_mem_calloc(&lm->al, (size_t)layers + 1, 1);
        if (!lm->greuse) return PTL_ERR_NO_MEMORY;
        for (uint32_t l = 0; l < layers; ++l) lm->greuse[l] = cells_kept(lm, l);
    }
    for (uint32_t i = 0; i < of->bl_count; ++i) { /* a flat layer spares the scan of every cell's columns */
        const uint32_t l = of->bl[i].world;
        if (l >= layers) continue;
        const int32_t f = of->bl[i].floor_min, h = lm->lgrid[l].flat;
        lm->lgrid[l].flat = of->bl[i].floor_max == of->bl[i].floor_min && (h == -1 || h == f) ? f : -2;
    }
    for (uint32_t c = 0; c < lm->ncell + lm->links.count; ++c) { /* each cell's window, or none */
        ptl_blob_grid g = {0, 0, 0, 0, 0, 0};
        const bool reuse = c < lm->ncell && lm->greuse && lm->greuse[lm->clayer.data[c]];
        if (c < lm->ncell && !reuse && merge_cell_window(lm, c, &g) < 0) return PTL_ERR_NO_MEMORY;
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

static ptl_status layer_heights(ptl_layer_merge* lm, uint32_t l);

/* Layer l's grids and heights as the memo kept them, its heights from heights.count on. */
static ptl_status heights_from_memo(ptl_layer_merge* lm, uint32_t l) {
    const ptl_merge_memo_layer* ml = &lm->m.memo->layer[l];
    const uint32_t base = lm->heights.count, c0 = lm->m.coff[l];
    if (!PTL_RESERVE(&lm->al, lm->heights, (uint64_t)base + ml->heights.count)) return PTL_ERR_NO_MEMORY;
    if (ml->heights.count) memcpy(lm->heights.data + base, ml->heights.data, (size_t)ml->heights.count * sizeof(uint16_t));
    lm->heights.count += ml->heights.count;
    for (uint32_t c = c0; c < lm->m.coff[l + 1]; ++c) {
        lm->cgrids.data[c] = ml->grids.data[c - c0];
        if (lm->cgrids.data[c].w) lm->cgrids.data[c].first += base;
    }
    return PTL_OK;
}

/* The memo takes layer l's cells (their final vertices), grids and heights (from `seg` on). */
static ptl_status heights_to_memo(ptl_layer_merge* lm, uint32_t l, uint32_t seg) {
    ptl_merge_memo_layer* ml = &lm->m.memo->layer[l];
    const ptl_allocator* al = &lm->al;
    const uint32_t c0 = lm->m.coff[l], c1 = lm->m.coff[l + 1], nh = lm->heights.count - seg;
    const uint32_t nv = lm->cstart.data[c1] - lm->cstart.data[c0];
    ml->cn.count = ml->cxyz.count = ml->grids.count = ml->heights.count = 0;
    if (!PTL_RESERVE(al, ml->cn, c1 - c0) || !PTL_RESERVE(al, ml->cxyz, 3 * (uint64_t)nv) ||
        !PTL_RESERVE(al, ml->grids, c1 - c0) || !PTL_RESERVE(al, ml->heights, nh))
        return PTL_ERR_NO_MEMORY;
    for (uint32_t c = c0; c < c1; ++c) {
        const uint32_t b = lm->cstart.data[c], n = lm->cstart.data[c + 1] - b;
        ml->cn.data[ml->cn.count++] = n;
        for (uint32_t i = 0; i < n; ++i, ml->cxyz.count += 3)
            memcpy(&ml->cxyz.data[ml->cxyz.count], &lm->fxyz[3 * (size_t)lm->cverts.data[b + i]], 3 * sizeof(double));
        ptl_blob_grid g = lm->cgrids.data[c];
        if (g.w) g.first -= seg;
        ml->grids.data[ml->grids.count++] = g;
    }
    if (nh) memcpy(ml->heights.data, lm->heights.data + seg, (size_t)nh * sizeof(uint16_t));
    ml->heights.count = nh;
    return PTL_OK;
}

/* The heights, in cell order: a layer's shared grid once (the first cell that uses it writes it),
   a cell's own grid with the floors of the columns it does not overlap left out. */
ptl_status ptl_merge_heights(ptl_layer_merge* lm) {
    const uint32_t layers = lm->m.layers;
    const ptl_layer_contour* lc = lm->m.lc;
    { /* the heights' exact size first (the largest array of the merge on large worlds: no growth slack) */
        uint64_t total = 0;
        for (uint32_t l = 0; l < layers; ++l) lm->lgrid[l].first = UINT32_MAX;
        for (uint32_t l = 0; l < layers && lm->greuse; ++l)
            if (lm->greuse[l]) total += lm->m.memo->layer[l].heights.count;
        for (uint32_t c = 0; c < lm->ncell; ++c) {
            const ptl_blob_grid* g = &lm->cgrids.data[c];
            if (!g->w) continue;
            const uint32_t l = lm->clayer.data[c];
            if (lm->greuse && lm->greuse[l]) continue;
            if (lm->cforeign[c] || !layer_shares(lm, l)) total += (uint64_t)g->w * g->d;
            else if (lm->lgrid[l].first == UINT32_MAX) total += (uint64_t)lc[l].w * lc[l].d, lm->lgrid[l].first = 0;
        }
        for (uint32_t l = 0; l < layers; ++l) lm->lgrid[l].first = UINT32_MAX;
        if (!PTL_RESERVE(&lm->al, lm->heights, total)) return PTL_ERR_NO_MEMORY;
    }
    for (uint32_t l = 0; l < layers; ++l) {
        const uint32_t seg = lm->heights.count;
        ptl_status st = lm->greuse && lm->greuse[l] ? heights_from_memo(lm, l) : layer_heights(lm, l);
        if (st >= 0 && lm->m.memo && !lm->greuse[l]) st = heights_to_memo(lm, l, seg);
        if (st < 0) return st;
        if (lm->greuse && lm->greuse[l]) lm->m.memo->grids_kept++;
    }
    return PTL_OK;
}

/* Layer l's cells' heights (cells coff[l] .. coff[l + 1]), after the heights of the layers before. */
static ptl_status layer_heights(ptl_layer_merge* lm, uint32_t l) {
    const ptl_layer_contour* lcl = &lm->m.lc[l];
    for (uint32_t c = lm->m.coff[l]; c < lm->m.coff[l + 1]; ++c) {
        ptl_blob_grid* g = &lm->cgrids.data[c];
        if (!g->w) continue;
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

/* ---- The memo (layer_merge.h) ------------------------------------------------------------------ */

static void memo_layer_free(ptl_merge_memo_layer* ml, const ptl_allocator* a) {
    PTL_ARRAY_FREE(a, ml->fkey);
    PTL_ARRAY_FREE(a, ml->dxy);
    PTL_ARRAY_FREE(a, ml->vy);
    PTL_ARRAY_FREE(a, ml->cn);
    PTL_ARRAY_FREE(a, ml->cxyz);
    PTL_ARRAY_FREE(a, ml->grids);
    PTL_ARRAY_FREE(a, ml->heights);
}

void ptl_merge_memo_free(ptl_merge_memo* mm, const ptl_allocator* a) {
    for (uint32_t l = 0; l < mm->count; ++l) memo_layer_free(&mm->layer[l], a);
    ptl_mem_free(a, mm->layer, (size_t)mm->count * sizeof *mm->layer);
    memset(mm, 0, sizeof *mm);
}

uint64_t ptl_merge_memo_bytes(const ptl_merge_memo* mm) {
    uint64_t b = (uint64_t)mm->count * sizeof *mm->layer;
    for (uint32_t l = 0; l < mm->count; ++l) {
        const ptl_merge_memo_layer* ml = &mm->layer[l];
        b += (uint64_t)ml->fkey.cap * 4 + (uint64_t)(ml->dxy.cap + ml->vy.cap + ml->cxyz.cap) * 8 + (uint64_t)ml->cn.cap * 4;
        b += (uint64_t)ml->grids.cap * sizeof *ml->grids.data + (uint64_t)ml->heights.cap * 2;
    }
    return b;
}

ptl_status ptl_merge_memo_begin(ptl_layer_merge* lm) {
    merge* m = &lm->m;
    ptl_merge_memo* mm = m->memo;
    if (!mm) return PTL_OK;
    mm->heights_kept = mm->grids_kept = 0;
    const uint32_t layers = m->layers;
    if (mm->count < layers) { /* room for every layer: the new ones empty */
        ptl_merge_memo_layer* grown = ptl_mem_calloc(&lm->al, layers, sizeof *grown);
        if (!grown) return PTL_ERR_NO_MEMORY;
        if (mm->count) memcpy(grown, mm->layer, (size_t)mm->count * sizeof *grown);
        ptl_mem_free(&lm->al, mm->layer, (size_t)mm->count * sizeof *mm->layer);
        mm->layer = grown, mm->count = layers;
    }
    m->fsame = ptl_mem_calloc(&lm->al, (size_t)layers + 1, 1);
    m->fkeys = ptl_mem_calloc(&lm->al, (size_t)layers + 1, sizeof *m->fkeys);
    if (!m->fsame || !m->fkeys) return PTL_ERR_NO_MEMORY;
    const ptl_vx_params* p = &m->of->p;
    for (uint32_t l = 0; l < layers; ++l) {
        const ptl_layer_contour* c = &m->lc[l];
        /* the frame and the grid's numbers ptl_contour_height and the grids read, then the floors */
        const uint32_t head[5] = {(uint32_t)c->x0, (uint32_t)c->z0, c->w, c->d, c->layer};
        uint32_t grid[6];
        memcpy(grid, p->bmin, 3 * sizeof(float)), memcpy(grid + 3, &p->cs, sizeof(float));
        memcpy(grid + 4, &p->ch, sizeof(float)), memcpy(grid + 5, &p->walkable_climb, sizeof(uint32_t));
        ptl_lmap_key* k = &m->fkeys[l];
        if (!PTL_RESERVE(&lm->al, *k, 11)) return PTL_ERR_NO_MEMORY;
        memcpy(k->data, head, sizeof head), memcpy(k->data + 5, grid, sizeof grid);
        k->count = 11;
        if (!ptl_lmap_layer_floor_key(m->of, c->layer, &lm->al, k)) return PTL_ERR_NO_MEMORY;
        m->fsame[l] = ptl_lmap_key_equal(k, &mm->layer[l].fkey);
    }
    return PTL_OK;
}

void ptl_merge_memo_end(ptl_layer_merge* lm, ptl_status st) {
    merge* m = &lm->m;
    ptl_merge_memo* mm = m->memo;
    if (!mm) return;
    const uint32_t layers = m->layers;
    if (st >= 0) {
        for (uint32_t l = 0; l < layers; ++l) { /* each layer's entries are this merge's: so is its key */
            PTL_ARRAY_FREE(&lm->al, mm->layer[l].fkey);
            mm->layer[l].fkey = m->fkeys[l];
            memset(&m->fkeys[l], 0, sizeof m->fkeys[l]);
        }
        for (uint32_t l = layers; l < mm->count; ++l) memo_layer_free(&mm->layer[l], &lm->al); /* gone */
    } else {
        const uint32_t hk = mm->heights_kept, gk = mm->grids_kept;
        ptl_merge_memo_free(mm, &lm->al);
        mm->heights_kept = hk, mm->grids_kept = gk;
    }
    for (uint32_t l = 0; m->fkeys && l < layers; ++l) PTL_ARRAY_FREE(&lm->al, m->fkeys[l]);
    ptl_mem_free(&lm->al, m->fkeys, ((size_t)layers + 1) * sizeof *m->fkeys);
    ptl_mem_free(&lm->al, m->fsame, (size_t)layers + 1);
    ptl_mem_free(&lm->al, lm->greuse, (size_t)layers + 1);
    m->fkeys = NULL, m->fsame = NULL, lm->greuse = NULL;
}
