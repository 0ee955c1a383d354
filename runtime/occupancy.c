/* Point location's occupancy mask: where in plan and at what heights a cell can give point location
   a point, coarsely, so that a search box in empty space (most of Detour's nearest-point inputs: a
   point in the air of a building, floors above and below farther than the box's half-height) is
   answered from a few words instead of the buckets' cells.

   The navmesh's plan bounds are cut into at most ptl_query_occupancy_tiles square tiles, the heights of the
   cells (q->cell_yr, ptl_query_cell_boxes) into PTL_OCC_BANDS bands; a tile holds one bit per band.
   A bit is set when some cell's polygon, grown by a margin, meets the tile (grown by the same) and
   the cell's height range meets the band. The mask is conservative: every point point location can
   take from a cell (a point within its tolerance of the polygon, or on an edge within the search
   box; its height within cell_yr) lies in a tile of that cell with its bits set, and the query side
   (ptl_query_occ_point, ptl_query_occ_box) maps the point or the box's corners with one monotone
   index function, so a box that finds no bit holds no such point. Filters are not taken into account (an excluded cell keeps its
   bits): the mask only says where nothing is.

   Which tiles a polygon meets: a row of tiles at a time, those between the least and the greatest
   x of its boundary within the row (mark_cell), exact for a convex cell and a superset for any
   other (a kinked cell's points, its crossing rule's, lie within its boundary's extent too). */
#include <math.h>
#include <string.h>

#include "query_internal.h"

/* The band bits of cell c's height range. */
static uint32_t cell_bands(const ptl_query* q, uint32_t c) {
    const float* r = q->cell_yr + 2 * (size_t)c;
    const double ym = q->occ_ymargin;
    if (isnan(r[0]) || isnan(r[1])) return ~0u;
    const uint32_t b0 = ptl_occ_index((double)r[0] - ym, q->occ_y0, q->occ_inv_band, PTL_OCC_BANDS - 1);
    const uint32_t b1 = ptl_occ_index((double)r[1] + ym, q->occ_y0, q->occ_inv_band, PTL_OCC_BANDS - 1);
    return b1 < b0 ? 0 : (uint32_t)((2ull << b1) - (1ull << b0));
}

/* Sets cell c's bits in the tiles its polygon meets (tile side t, margin m), a row of tiles at a
   time: the polygon's part in the row's strip (grown by m) reaches in x from the least to the
   greatest x of its edges' pieces in the strip (the leftmost and rightmost points of a polygon cut
   to a strip lie on its boundary), and every tile of the row between those (grown by m) is marked.
   For a convex cell each of them meets the polygon; for any other the marks only add tiles. */
static void mark_cell(ptl_query* q, uint32_t c, double t, double m) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_cell* cell = &nm->cells[c];
    const uint32_t* cv = nm->cell_verts + cell->first;
    const uint32_t n = cell->vert_count;
    const uint32_t bits = cell_bands(q, c);
    if (!n || !bits) return;
    double zlo = INFINITY, zhi = -INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        const double z = ptl_nm_vz(nm, cv[i]);
        zlo = z < zlo ? z : zlo, zhi = z > zhi ? z : zhi;
    }
    const uint32_t iz0 = ptl_grid_index(ptl_floor((zlo - 2 * m - q->occ_z0) / t), q->occ_nz);
    const uint32_t iz1 = ptl_grid_index(ptl_floor((zhi + 2 * m - q->occ_z0) / t), q->occ_nz);
    for (uint32_t iz = iz0; iz <= iz1; ++iz) {
        const double s0 = q->occ_z0 + iz * t - m, s1 = q->occ_z0 + (iz + 1) * t + m;
        double xlo = INFINITY, xhi = -INFINITY;
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t a = cv[i], b = cv[i + 1 == n ? 0 : i + 1];
            const double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a), bx = ptl_nm_vx(nm, b), bz = ptl_nm_vz(nm, b);
            if ((az < s0 && bz < s0) || (az > s1 && bz > s1)) continue;
            /* the edge's piece in the strip: its ends, or where it crosses the strip's sides */
            double u0 = 0, u1 = 1;
            if (az != bz) {
                const double ua = (s0 - az) / (bz - az), ub = (s1 - az) / (bz - az);
                const double lo = ua < ub ? ua : ub, hi = ua < ub ? ub : ua;
                u0 = lo > 0 ? lo : 0, u1 = hi < 1 ? hi : 1;
            }
            const double xa = ax + u0 * (bx - ax), xb = ax + u1 * (bx - ax);
            const double l = xa < xb ? xa : xb, h = xa < xb ? xb : xa;
            xlo = l < xlo ? l : xlo, xhi = h > xhi ? h : xhi;
            if (!(l == l && h == h)) xlo = -INFINITY, xhi = INFINITY; /* NaN: the whole row */
        }
        if (!(xlo <= xhi)) continue;
        const uint32_t ix0 = ptl_grid_index(ptl_floor((xlo - 2 * m - q->occ_x0) / t), q->occ_nx);
        const uint32_t ix1 = ptl_grid_index(ptl_floor((xhi + 2 * m - q->occ_x0) / t), q->occ_nx);
        uint32_t* row = q->occ + (size_t)iz * q->occ_nx;
        for (uint32_t ix = ix0; ix <= ix1; ++ix) row[ix] |= bits;
    }
}

uint32_t ptl_query_occupancy_tiles(const ptl_navmesh* nm) {
    const uint64_t n = (uint64_t)nm->h->cell_count * PTL_OCC_TILES_PER_CELL;
    return n < PTL_OCC_MIN_TILES ? PTL_OCC_MIN_TILES : n > PTL_OCC_MAX_TILES ? PTL_OCC_MAX_TILES : (uint32_t)n;
}

void ptl_query_occupancy_build(ptl_query* q) {
    const ptl_navmesh* nm = q->nm;
    const uint32_t nc = nm->h->cell_count, cap = ptl_query_occupancy_tiles(nm);
    q->occ_on = false;
    /* the plan bounds of every vertex, and the heights of the cells */
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, ylo = INFINITY, yhi = -INFINITY;
    bool finite = nc > 0;
    for (uint32_t c = 0; c < nc && finite; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            const double x = ptl_nm_vx(nm, nm->cell_verts[cell->first + i]), z = ptl_nm_vz(nm, nm->cell_verts[cell->first + i]);
            finite = finite && isfinite(x) && isfinite(z);
            lo[0] = x < lo[0] ? x : lo[0], hi[0] = x > hi[0] ? x : hi[0];
            lo[1] = z < lo[1] ? z : lo[1], hi[1] = z > hi[1] ? z : hi[1];
        }
        const float* r = q->cell_yr + 2 * (size_t)c;
        if (isfinite(r[0])) ylo = r[0] < ylo ? r[0] : ylo, yhi = r[0] > yhi ? r[0] : yhi;
        if (isfinite(r[1])) ylo = r[1] < ylo ? r[1] : ylo, yhi = r[1] > yhi ? r[1] : yhi;
    }
    if (!finite || !(lo[0] <= hi[0]) || !(lo[1] <= hi[1])) return; /* nothing to bound: every box may hold a cell */
    /* The margin: far more than point location's tolerance (loc_eps, within which a point counts as
       in a cell) and the rounding of the index arithmetic. The grid covers every vertex with twice
       the margin to spare, so no point a cell can give falls off it. */
    const double scale = ptl_nm_plan_scale(nm);
    const double m = 4 * q->loc_eps + 1e-9 * scale;
    q->occ_x0 = lo[0] - 4 * m, q->occ_z0 = lo[1] - 4 * m;
    const double w = hi[0] - lo[0] + 8 * m, d = hi[1] - lo[1] + 8 * m;
    double t = sqrt(w * d / cap);
    if (!(t > 0)) t = w > d ? w : d;
    if (!(t > 0)) t = 1;
    uint32_t nx, nz;
    for (;;) {
        const double fx = ceil(w / t), fz = ceil(d / t);
        if (fx * fz <= cap) {
            nx = fx < 1 ? 1 : (uint32_t)fx, nz = fz < 1 ? 1 : (uint32_t)fz;
            break;
        }
        t *= 1.01;
    }
    q->occ_nx = nx, q->occ_nz = nz;
    q->occ_xlast = nx - 1, q->occ_zlast = nz - 1;
    q->occ_inv_tile = 1.0 / t;
    if (!(ylo <= yhi)) ylo = yhi = 0;
    q->occ_ymargin = 1e-6 * (1 + fabs(ylo) + fabs(yhi));
    q->occ_y0 = ylo;
    q->occ_inv_band = yhi > ylo ? PTL_OCC_BANDS / (yhi - ylo) : 1;
    memset(q->occ, 0, (size_t)nx * nz * sizeof(uint32_t));
    for (uint32_t c = 0; c < nc; ++c) mark_cell(q, c, t, m);
    /* A mask that would answer almost no box is not used: it costs each point location its check.
       It is when a quarter of the tiles or more are empty (boxes over gaps in plan), or when the
       cells' heights span more than two boxes of the default extents (ptl_query_locate's 4 up and
       down: boxes between floors). Not so a terrain filling its bounds (undulating.obj: 19 of 3,025
       tiles empty, 10.4 m of heights; none of Detour's 1,000 nearest boxes answered by the mask). */
    uint32_t empty = 0;
    for (uint32_t i = 0; i < nx * nz; ++i) empty += q->occ[i] == 0;
    q->occ_on = 4 * (uint64_t)empty >= (uint64_t)nx * nz || yhi - ylo > 4 * PTL_OCC_DEFAULT_HALF_HEIGHT;
}
