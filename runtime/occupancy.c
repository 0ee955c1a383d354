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

   Whether a polygon meets a tile: an edge (a segment) meets it (separating axes), or, when no edge
   comes near the tile, the tile's centre has a non-zero winding number, so the whole tile is inside.
   This holds for any polygon, convex or not: the points a kinked cell's crossing rule accepts have
   an odd crossing number, hence a non-zero winding number. */
#include <math.h>
#include <string.h>

#include "query_internal.h"

/* Does segment a-b come within the rectangle [x0, x1] x [z0, z1] (closed)? Its bounding box meets
   the rectangle and the rectangle's corners are not all strictly on one side of its line. */
static bool segment_meets_rect(double ax, double az, double bx, double bz, double x0, double x1, double z0, double z1) {
    if ((ax < x0 && bx < x0) || (ax > x1 && bx > x1) || (az < z0 && bz < z0) || (az > z1 && bz > z1)) return false;
    const double ex = bx - ax, ez = bz - az;
    const double c[4] = {ex * (z0 - az) - ez * (x0 - ax), ex * (z0 - az) - ez * (x1 - ax), ex * (z1 - az) - ez * (x0 - ax),
                         ex * (z1 - az) - ez * (x1 - ax)};
    const bool all_pos = c[0] > 0 && c[1] > 0 && c[2] > 0 && c[3] > 0;
    const bool all_neg = c[0] < 0 && c[1] < 0 && c[2] < 0 && c[3] < 0;
    return !all_pos && !all_neg;
}

/* The winding number of cell c's polygon around (x, z), for a point well away from its edges. */
static int winding(const ptl_navmesh* nm, uint32_t c, double x, double z) {
    const ptl_blob_cell* cell = &nm->cells[c];
    const uint32_t* cv = nm->cell_verts + cell->first;
    const uint32_t n = cell->vert_count;
    int w = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t a = cv[i], b = cv[i + 1 == n ? 0 : i + 1];
        const double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a), bx = ptl_nm_vx(nm, b), bz = ptl_nm_vz(nm, b);
        const double cross = (bx - ax) * (z - az) - (bz - az) * (x - ax);
        if (az <= z && bz > z && cross > 0) ++w;
        else if (az > z && bz <= z && cross < 0) --w;
    }
    return w;
}

/* The band bits of cell c's height range. */
static uint32_t cell_bands(const ptl_query* q, uint32_t c) {
    const float* r = q->cell_yr + 2 * (size_t)c;
    const double ym = q->occ_ymargin;
    if (isnan(r[0]) || isnan(r[1])) return ~0u;
    const uint32_t b0 = ptl_occ_index((double)r[0] - ym, q->occ_y0, q->occ_inv_band, PTL_OCC_BANDS - 1);
    const uint32_t b1 = ptl_occ_index((double)r[1] + ym, q->occ_y0, q->occ_inv_band, PTL_OCC_BANDS - 1);
    return b1 < b0 ? 0 : (uint32_t)((2ull << b1) - (1ull << b0));
}

/* Sets cell c's bits in the tiles its polygon meets (tile side t, margin m). */
static void mark_cell(ptl_query* q, uint32_t c, double t, double m) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_cell* cell = &nm->cells[c];
    const uint32_t* cv = nm->cell_verts + cell->first;
    const uint32_t n = cell->vert_count;
    const uint32_t bits = cell_bands(q, c);
    if (!n || !bits) return;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; ++i) {
        const double x = ptl_nm_vx(nm, cv[i]), z = ptl_nm_vz(nm, cv[i]);
        lo[0] = x < lo[0] ? x : lo[0], hi[0] = x > hi[0] ? x : hi[0];
        lo[1] = z < lo[1] ? z : lo[1], hi[1] = z > hi[1] ? z : hi[1];
    }
    const uint32_t ix0 = ptl_grid_index(ptl_floor((lo[0] - 2 * m - q->occ_x0) / t), q->occ_nx);
    const uint32_t ix1 = ptl_grid_index(ptl_floor((hi[0] + 2 * m - q->occ_x0) / t), q->occ_nx);
    const uint32_t iz0 = ptl_grid_index(ptl_floor((lo[1] - 2 * m - q->occ_z0) / t), q->occ_nz);
    const uint32_t iz1 = ptl_grid_index(ptl_floor((hi[1] + 2 * m - q->occ_z0) / t), q->occ_nz);
    for (uint32_t iz = iz0; iz <= iz1; ++iz) {
        for (uint32_t ix = ix0; ix <= ix1; ++ix) {
            uint32_t* w = &q->occ[(size_t)iz * q->occ_nx + ix];
            if ((*w & bits) == bits) continue;
            const double x0 = q->occ_x0 + ix * t - m, x1 = q->occ_x0 + (ix + 1) * t + m;
            const double z0 = q->occ_z0 + iz * t - m, z1 = q->occ_z0 + (iz + 1) * t + m;
            bool meets = false;
            for (uint32_t i = 0; i < n && !meets; ++i) {
                const uint32_t a = cv[i], b = cv[i + 1 == n ? 0 : i + 1];
                meets = segment_meets_rect(ptl_nm_vx(nm, a), ptl_nm_vz(nm, a), ptl_nm_vx(nm, b), ptl_nm_vz(nm, b), x0, x1, z0, z1);
            }
            if (meets || winding(nm, c, 0.5 * (x0 + x1), 0.5 * (z0 + z1)) != 0) *w |= bits;
        }
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
