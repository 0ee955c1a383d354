/* Random points on the walkable surface, uniform by its 3D area (Detour's findRandomPoint is
   uniform by plan area and picks a tile first: recastnavigation#329).

   The surface is the one the height query reads (ptl_query_cell_y):
   - a cell with a height grid (3D bakes): the voxel floors of its columns. A column's slope is
     taken from the floors around it (Horn 1981, "Hill shading and the reflectance map", the 3 x 3
     finite differences with weights 1, 2, 1; a missing neighbour makes its row one-sided), and
     its surface is its plan area times sqrt(1 + gx^2 + gz^2), the secant of that slope (the
     area of a plane of that gradient over the column: Jenness 2004, "Calculating landscape
     surface area from digital elevation models", makes the same estimate per DEM cell). Where the
     point's column has no floor the weight is 1.
   - any other cell: the fan triangles (v0, vi, vi+1) of its vertices, each a plane (flat cells,
     2D bakes: weight 1).
   Link cells (the quads over gaps) are no surface: weight 0, never drawn.
   The first draw on a query (build_table) integrates each cell's surface area exactly for that
   density (each column's overlap with the convex cell, clipped, times its weight) into the query's
   cumulative table, with the largest weight of the cell: not at load, where it would cost every
   navmesh (the bake creates several) 1-4 ms on 3D bakes whether it draws or not. A draw picks a cell by binary search over the table,
   then a point uniform in plan in the cell (a fan triangle by plan area, a point uniform in it)
   and keeps it with probability weight / largest weight (rejection sampling: von Neumann 1951),
   so the point's density is the weight, which is the surface's area element. Walkable slopes keep
   the largest weight below 2 or so: a draw takes about one try.

   The generator is SplitMix64 (Steele, Lea and Flood 2014, "Fast splittable pseudorandom number
   generators"): the caller's 64-bit state advances by a constant per number, integers only, so
   the same state gives the same point on every machine and thread (the geometry after it is
   plain IEEE double arithmetic, without contraction under -std=c11). */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "query_internal.h"

/* Tries before a draw gives up rejecting (never reached for weights the bake gives: the chance a
   try is refused is below 1 - 1 / max weight). */
#define MAX_TRIES 4096u

uint64_t ptl_random_next(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A double uniform in [0, 1): the top 53 bits. */
static double unit(uint64_t* state) { return (double)(ptl_random_next(state) >> 11) * 0x1.0p-53; }

/* ---- The surface's weight (area element over plan area) ---------------------------------------*/

static bool has_grid(const ptl_navmesh* nm, uint32_t c) {
    return nm->cell_grids && nm->cell_grids[c].w && nm->cell_grids[c].d;
}

/* Floor of column (x, z) of grid g in voxel heights, or -1 outside the grid or where it has none. */
static double floor_at(const ptl_navmesh* nm, const ptl_blob_grid* g, int64_t x, int64_t z) {
    if (x < 0 || z < 0 || x >= (int64_t)g->w || z >= (int64_t)g->d) return -1;
    uint16_t v = ptl_nm_grid_floor(nm, g, (uint32_t)x, (uint32_t)z);
    return v == PTL_HEIGHT_NONE ? -1 : (double)v;
}

/* The secant of the slope of a column from the floors f[dz + 1][dx + 1] around it (-1: none; the
   centre has one): Horn's 3 x 3 differences. `rise`: a voxel height per column, as a gradient. */
static double slope_weight(const double f[3][3], double rise) {
    double grad[2];
    for (int axis = 0; axis < 2; ++axis) {
        double sum = 0, wsum = 0;
        for (int k = 0; k < 3; ++k) {
            /* along x for axis 0 (row k), along z for axis 1 (column k) */
            double lo = axis == 0 ? f[k][0] : f[0][k], mid = axis == 0 ? f[k][1] : f[1][k];
            double hi = axis == 0 ? f[k][2] : f[2][k];
            double d;
            if (lo >= 0 && hi >= 0) d = 0.5 * (hi - lo);
            else if (mid >= 0 && hi >= 0) d = hi - mid;
            else if (mid >= 0 && lo >= 0) d = mid - lo;
            else continue;
            double w = k == 1 ? 2 : 1;
            sum += w * d, wsum += w;
        }
        grad[axis] = wsum > 0 ? rise * sum / wsum : 0;
    }
    return sqrt(1 + grad[0] * grad[0] + grad[1] * grad[1]);
}

/* Weight of column (x, z) of grid g: the secant of its slope, 1 where the column has no floor. */
static double column_weight(const ptl_navmesh* nm, const ptl_blob_grid* g, int64_t x, int64_t z) {
    if (floor_at(nm, g, x, z) < 0) return 1;
    double f[3][3];
    for (int dz = 0; dz < 3; ++dz)
        for (int dx = 0; dx < 3; ++dx) f[dz][dx] = floor_at(nm, g, x + dx - 1, z + dz - 1);
    return slope_weight(f, (double)nm->h->vox_ch / nm->h->vox_cs);
}

/* Area of the 3D triangle (a, b, c) over its plan area: its secant; 1 for a degenerate one. */
static double tri_weight(const float* a, const float* b, const float* c) {
    double ux = (double)b[0] - a[0], uy = (double)b[1] - a[1], uz = (double)b[2] - a[2];
    double vx = (double)c[0] - a[0], vy = (double)c[1] - a[1], vz = (double)c[2] - a[2];
    double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    double plan = fabs(ny);
    return plan > 0 ? sqrt(nx * nx + ny * ny + nz * nz) / plan : 1;
}

static const float* vtx(const ptl_navmesh* nm, uint32_t c, uint32_t i) {
    return nm->verts + 3 * (size_t)nm->cell_verts[nm->cells[c].first + i];
}

/* The surface's weight at (x, z) of cell c (the point inside it, or on its boundary). */
static double weight_at(const ptl_navmesh* nm, uint32_t c, double x, double z) {
    if (ptl_nm_is_link(nm, c)) return 0;
    if (has_grid(nm, c)) {
        const ptl_blob_grid* g = &nm->cell_grids[c];
        double fx = (x - nm->h->vox_origin[0]) / nm->h->vox_cs - g->x0, fz = (z - nm->h->vox_origin[2]) / nm->h->vox_cs - g->z0;
        if (!(fx >= 0 && fz >= 0 && fx < (double)g->w && fz < (double)g->d)) return 1;
        return column_weight(nm, g, (int64_t)fx, (int64_t)fz);
    }
    /* the fan triangle holding the point (the last one when rounding puts it in none) */
    const uint32_t n = nm->cells[c].vert_count;
    const float* a = vtx(nm, c, 0);
    for (uint32_t i = 1; i + 1 < n; ++i) {
        const float *b = vtx(nm, c, i), *d = vtx(nm, c, i + 1);
        if (i + 2 < n && ((double)d[0] - a[0]) * (z - a[2]) - ((double)d[2] - a[2]) * (x - a[0]) > 0) continue;
        return tri_weight(a, b, d);
    }
    return 1;
}

/* ---- Load: the cumulative table -----------------------------------------------------------------*/

/* Clips polygon (xs, zs; n points) to x >= lo (axis 0, sign +1), x <= hi (sign -1) and so on:
   Sutherland and Hodgman 1974. Writes to (ox, oz); returns the count. */
static uint32_t clip_half(const double* xs, const double* zs, uint32_t n, int axis, double bound, double sign, double* ox,
                          double* oz) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t j = i + 1 == n ? 0 : i + 1;
        double pi = (axis == 0 ? xs[i] : zs[i]) - bound, pj = (axis == 0 ? xs[j] : zs[j]) - bound;
        bool in_i = sign * pi >= 0, in_j = sign * pj >= 0;
        if (in_i) ox[m] = xs[i], oz[m] = zs[i], ++m;
        if (in_i != in_j) {
            double t = pi / (pi - pj);
            ox[m] = xs[i] + t * (xs[j] - xs[i]), oz[m] = zs[i] + t * (zs[j] - zs[i]), ++m;
        }
    }
    return m;
}

static double poly_area(const double* xs, const double* zs, uint32_t n) {
    double s = 0;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t j = i + 1 == n ? 0 : i + 1;
        s += xs[i] * zs[j] - xs[j] * zs[i];
    }
    return 0.5 * fabs(s);
}

/* Clips the convex polygon in buf[0] (xs, zs: n points) to the box [x0, x1] x [z0, z1]; buf holds
   4 arrays of cap >= n + 4 doubles (two ping-pong polygons). The result is in buf[0], buf[1]. */
static uint32_t clip_box(double* const buf[4], uint32_t n, double x0, double x1, double z0, double z1) {
    n = clip_half(buf[0], buf[1], n, 0, x0, 1, buf[2], buf[3]);
    n = clip_half(buf[2], buf[3], n, 0, x1, -1, buf[0], buf[1]);
    n = clip_half(buf[0], buf[1], n, 1, z0, 1, buf[2], buf[3]);
    return clip_half(buf[2], buf[3], n, 1, z1, -1, buf[0], buf[1]);
}

static uint32_t load_cell(const ptl_navmesh* nm, uint32_t c, double* xs, double* zs) {
    const uint32_t n = nm->cells[c].vert_count;
    for (uint32_t i = 0; i < n; ++i) xs[i] = vtx(nm, c, i)[0], zs[i] = vtx(nm, c, i)[2];
    return n;
}

/* The columns of cell c's grid that its bounds touch: [x0, x1) x [z0, z1) (grids may be wider
   than their cell). */
static void grid_window(const ptl_navmesh* nm, uint32_t c, uint32_t* x0, uint32_t* x1, uint32_t* z0, uint32_t* z1) {
    const ptl_blob_grid* g = &nm->cell_grids[c];
    const double cs = nm->h->vox_cs, ox = nm->h->vox_origin[0] + g->x0 * cs, oz = nm->h->vox_origin[2] + g->z0 * cs;
    double bx0 = INFINITY, bx1 = -INFINITY, bz0 = INFINITY, bz1 = -INFINITY;
    for (uint32_t i = 0; i < nm->cells[c].vert_count; ++i) {
        const float* p = vtx(nm, c, i);
        bx0 = fmin(bx0, p[0]), bx1 = fmax(bx1, p[0]), bz0 = fmin(bz0, p[2]), bz1 = fmax(bz1, p[2]);
    }
    double fx0 = floor((bx0 - ox) / cs) - 1, fx1 = floor((bx1 - ox) / cs) + 2;
    double fz0 = floor((bz0 - oz) / cs) - 1, fz1 = floor((bz1 - oz) / cs) + 2;
    *x0 = (uint32_t)fmax(0, fmin(fx0, g->w)), *x1 = (uint32_t)fmax(0, fmin(fx1, g->w));
    *z0 = (uint32_t)fmax(0, fmin(fz0, g->d)), *z1 = (uint32_t)fmax(0, fmin(fz1, g->d));
    if (*x1 < *x0) *x1 = *x0;
    if (*z1 < *z0) *z1 = *z0;
}

/* Scratch of the load: 4 arrays of `cap` doubles (clipping), and the floors of a cell's grid
   window with a ring of none around it (-1: none). */
typedef struct surf_scratch {
    double* buf[4];
    double* floors;
} surf_scratch;

/* Where the horizontal line at z meets convex polygon (xs, zs; n points): its x-range in *lo, *hi;
   false when it misses it. */
static bool row_span(const double* xs, const double* zs, uint32_t n, double z, double* lo, double* hi) {
    *lo = INFINITY, *hi = -INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t j = i + 1 == n ? 0 : i + 1;
        double za = zs[i], zb = zs[j];
        if ((za < z && zb < z) || (za > z && zb > z)) continue;
        if (za == zb) {
            *lo = fmin(*lo, fmin(xs[i], xs[j])), *hi = fmax(*hi, fmax(xs[i], xs[j]));
            continue;
        }
        double x = xs[i] + (z - za) / (zb - za) * (xs[j] - xs[i]);
        *lo = fmin(*lo, x), *hi = fmax(*hi, x);
    }
    return *lo <= *hi;
}

/* A grid cell's surface: its plan area, plus each column's overlap with it times (weight - 1).
   A column wholly inside the convex cell overlaps it by cs^2: those of a row are the ones inside
   the cell's spans at both of the row's z (the left boundary of a convex polygon is convex in z,
   the right one concave); the others are clipped. */
static double grid_surface(const ptl_navmesh* nm, uint32_t c, const surf_scratch* sc, double* wmax) {
    const ptl_blob_grid* g = &nm->cell_grids[c];
    const double cs = nm->h->vox_cs, ox = nm->h->vox_origin[0] + g->x0 * cs, oz = nm->h->vox_origin[2] + g->z0 * cs;
    const double rise = (double)nm->h->vox_ch / cs;
    uint32_t wx0, wx1, wz0, wz1;
    grid_window(nm, c, &wx0, &wx1, &wz0, &wz1);
    /* the window and one column around it (inside the grid) in fl, with a ring of none */
    const uint32_t gx0 = wx0 ? wx0 - 1 : 0, gz0 = wz0 ? wz0 - 1 : 0;
    const uint32_t gx1 = wx1 < g->w ? wx1 + 1 : g->w, gz1 = wz1 < g->d ? wz1 + 1 : g->d;
    const uint32_t W = gx1 - gx0 + 2;
    double* fl = sc->floors;
    for (uint32_t i = 0; i < W * (gz1 - gz0 + 2); ++i) fl[i] = -1;
    for (uint32_t z = gz0; z < gz1; ++z)
        for (uint32_t x = gx0; x < gx1; ++x) fl[(z - gz0 + 1) * W + x - gx0 + 1] = floor_at(nm, g, x, z);
    double* const* buf = sc->buf;
    const uint32_t n = load_cell(nm, c, buf[0], buf[1]);
    double bz0 = INFINITY, bz1 = -INFINITY;
    for (uint32_t i = 0; i < n; ++i) bz0 = fmin(bz0, buf[1][i]), bz1 = fmax(bz1, buf[1][i]);
    double area = poly_area(buf[0], buf[1], n), best = 1;
    for (uint32_t z = wz0; z < wz1; ++z) {
        const double z0 = oz + z * cs, z1 = z0 + cs;
        if (z1 < bz0 || z0 > bz1) continue;
        load_cell(nm, c, buf[0], buf[1]);
        double l0, h0, l1, h1, lo = INFINITY, hi = -INFINITY, rlo = INFINITY, rhi = -INFINITY;
        bool a = row_span(buf[0], buf[1], n, z0, &l0, &h0), b = row_span(buf[0], buf[1], n, z1, &l1, &h1);
        if (a && b) lo = fmax(l0, l1), hi = fmin(h0, h1); /* columns inside both spans are inside */
        /* the row's x-range: the spans at its ends and the vertices within it */
        if (a) rlo = fmin(rlo, l0), rhi = fmax(rhi, h0);
        if (b) rlo = fmin(rlo, l1), rhi = fmax(rhi, h1);
        for (uint32_t i = 0; i < n; ++i)
            if (buf[1][i] >= z0 && buf[1][i] <= z1) rlo = fmin(rlo, buf[0][i]), rhi = fmax(rhi, buf[0][i]);
        for (uint32_t x = wx0; x < wx1; ++x) {
            const double x0 = ox + x * cs, x1 = x0 + cs;
            if (x1 < rlo || x0 > rhi) continue;
            const double* f = &fl[(z - gz0 + 1) * W + x - gx0 + 1];
            if (f[0] < 0) continue;
            const double ff[3][3] = {{f[-(int64_t)W - 1], f[-(int64_t)W], f[-(int64_t)W + 1]}, {f[-1], f[0], f[1]},
                                     {f[W - 1], f[W], f[W + 1]}};
            /* every floor around level with this one (or none): flat, weight 1 (the usual case off slopes) */
            bool flat = true;
            for (int k = 0; k < 9 && flat; ++k) flat = ff[k / 3][k % 3] < 0 || ff[k / 3][k % 3] == f[0];
            if (flat) continue;
            double w = slope_weight(ff, rise);
            if (w == 1) continue;
            double part;
            if (x0 >= lo && x1 <= hi) {
                part = cs * cs;
            } else {
                uint32_t m = load_cell(nm, c, buf[0], buf[1]);
                part = poly_area(buf[0], buf[1], clip_box(buf, m, x0, x1, z0, z1));
            }
            if (part > 0) area += part * (w - 1), best = fmax(best, w);
        }
    }
    *wmax = best;
    return area;
}

/* Cell c's surface area and largest weight, integrated for weight_at. */
static double cell_surface(const ptl_navmesh* nm, uint32_t c, const surf_scratch* sc, float* wmax) {
    *wmax = 0;
    if (ptl_nm_is_link(nm, c)) return 0;
    const uint32_t n = nm->cells[c].vert_count;
    double area = 0, best = 1;
    if (has_grid(nm, c)) {
        area = grid_surface(nm, c, sc, &best);
    } else {
        const float* a = vtx(nm, c, 0);
        for (uint32_t i = 1; i + 1 < n; ++i) {
            const float *b = vtx(nm, c, i), *d = vtx(nm, c, i + 1);
            double plan = 0.5 * fabs(((double)b[0] - a[0]) * ((double)d[2] - a[2]) - ((double)b[2] - a[2]) * ((double)d[0] - a[0]));
            double w = tri_weight(a, b, d);
            area += plan * w, best = fmax(best, w);
        }
    }
    /* a float at or above every weight (the accept test compares doubles); exactly 1 for a flat cell */
    *wmax = best == 1 ? 1.0f : (float)best * (1 + 0x1p-20f);
    return area;
}

/* The clipping buffers' capacity: a cell's vertices and the 4 a box clip can add, and some. */
static size_t clip_cap(const ptl_navmesh* nm) {
    uint32_t mcv = 3;
    for (uint32_t c = 0; c < nm->h->cell_count; ++c) mcv = nm->cells[c].vert_count > mcv ? nm->cells[c].vert_count : mcv;
    return (size_t)mcv + 8;
}

size_t ptl_random_scratch_doubles(const ptl_navmesh* nm) {
    size_t grid = 0;
    for (uint32_t c = 0; c < nm->h->cell_count; ++c) {
        if (!has_grid(nm, c)) continue;
        uint32_t x0, x1, z0, z1;
        grid_window(nm, c, &x0, &x1, &z0, &z1);
        size_t gs = ((size_t)x1 - x0 + 4) * ((size_t)z1 - z0 + 4);
        grid = gs > grid ? gs : grid;
    }
    return 4 * clip_cap(nm) + grid;
}

/* Builds the query's surface table, once (the first draw): O(walkable voxel columns) on 3D
   navmeshes, about 40 ns each (bench/NOTES.md), O(cell vertices) on the others. */
static void build_table(ptl_query* q) {
    if (q->surf_ready) return;
    const ptl_navmesh* nm = q->nm;
    const size_t cap = clip_cap(nm);
    double* mem = q->surf_scratch;
    const surf_scratch sc = {{mem, mem + cap, mem + 2 * cap, mem + 3 * cap}, mem + 4 * cap};
    double sum = 0;
    for (uint32_t c = 0; c < nm->h->cell_count; ++c) {
        if (ptl_query_cell_off(q, c)) q->surf_wmax[c] = 0; /* the query's filter excludes it (filter.c) */
        else sum += cell_surface(nm, c, &sc, &q->surf_wmax[c]);
        q->surf_cum[c] = sum;
    }
    q->surf_ready = true;
}

double ptl_query_cell_surface_area(ptl_query* q, uint32_t cell) {
    if (!q || cell >= q->nm->h->cell_count) return 0;
    build_table(q);
    return q->surf_cum[cell] - (cell ? q->surf_cum[cell - 1] : 0);
}

/* ---- Draws --------------------------------------------------------------------------------------*/

/* A point uniform in plan in the convex polygon (xs, zs; n points), from the fan's triangles. */
static void uniform_in_polygon(const double* xs, const double* zs, uint32_t n, uint64_t* rng, double* x, double* z) {
    double total = 0;
    for (uint32_t i = 1; i + 1 < n; ++i)
        total += fabs((xs[i] - xs[0]) * (zs[i + 1] - zs[0]) - (zs[i] - zs[0]) * (xs[i + 1] - xs[0]));
    double r = unit(rng) * total;
    uint32_t t = 1;
    for (; t + 2 < n; ++t) {
        double a = fabs((xs[t] - xs[0]) * (zs[t + 1] - zs[0]) - (zs[t] - zs[0]) * (xs[t + 1] - xs[0]));
        if (r < a) break;
        r -= a;
    }
    double u = unit(rng), v = unit(rng);
    if (u + v > 1) u = 1 - u, v = 1 - v;
    *x = xs[0] + u * (xs[t] - xs[0]) + v * (xs[t + 1] - xs[0]);
    *z = zs[0] + u * (zs[t] - zs[0]) + v * (zs[t + 1] - zs[0]);
}

static void put_location(const ptl_navmesh* nm, uint32_t c, double x, double z, ptl_location* out) {
    out->cell = c;
    out->point[0] = (float)x, out->point[2] = (float)z;
    out->point[1] = ptl_query_cell_y(nm, c, out->point[0], out->point[2]);
    out->distance = 0;
}

/* The cell whose cumulative range holds r (the first with surf_cum > r). */
static uint32_t pick_cell(const ptl_query* q, double r) {
    uint32_t lo = 0, hi = q->nm->h->cell_count - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (q->surf_cum[mid] > r) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* The query's scratch for up to max_cell_verts + 8 points, twice (clipping): its successor buffer,
   3 * max_cell_verts search nodes, unused outside a path search. */
static void scratch(ptl_query* q, double* buf[4]) {
    double* mem = (double*)(void*)q->succ;
    const size_t cap = (size_t)q->max_cell_verts + 8;
    for (int i = 0; i < 4; ++i) buf[i] = mem + i * cap;
}
/* 3 m nodes hold 4 (m + 8) doubles for every m >= 3 when they do for m = 3 */
_Static_assert(3 * 3 * sizeof(ptl_snode) >= 4 * (3 + 8) * sizeof(double), "random.c: the scratch fits the successor buffer");

static void init_location(ptl_location* out) {
    out->cell = PTL_NONE;
    out->point[0] = out->point[1] = out->point[2] = 0;
    out->distance = 0;
}

ptl_status ptl_query_random_point(ptl_query* q, uint64_t* rng_state, ptl_location* out) {
    if (out) init_location(out);
    if (!q || !rng_state || !out) return PTL_ERR_INVALID_ARG;
    const ptl_navmesh* nm = q->nm;
    if (nm->h->cell_count == 0) return PTL_ERR_NOT_FOUND;
    build_table(q);
    const double total = q->surf_cum[nm->h->cell_count - 1];
    if (!(total > 0)) return PTL_ERR_NOT_FOUND;
    double* buf[4];
    scratch(q, buf);
    uint32_t c = pick_cell(q, unit(rng_state) * total);
    uint32_t n = load_cell(nm, c, buf[0], buf[1]);
    double x = 0, z = 0;
    for (uint32_t k = 0; k < MAX_TRIES; ++k) {
        uniform_in_polygon(buf[0], buf[1], n, rng_state, &x, &z);
        if (q->surf_wmax[c] == 1 || unit(rng_state) * q->surf_wmax[c] < weight_at(nm, c, x, z)) break;
    }
    put_location(nm, c, x, z, out);
    return PTL_OK;
}

/* Cell c clipped to the box around (cx, cz) of half-side r, into buf[0], buf[1]; its point count. */
static uint32_t cell_in_box(const ptl_navmesh* nm, uint32_t c, double* const buf[4], double cx, double cz, double r) {
    uint32_t n = load_cell(nm, c, buf[0], buf[1]);
    return clip_box(buf, n, cx - r, cx + r, cz - r, cz + r);
}

/* The cells reachable from p's cells through portals that come within r of p (breadth first, as
   ptl_query_cells_in_circle), into q->cheap, with the mass of each one's envelope (its part of the
   box around the disc, in plan, times its largest weight), cumulated in q->cc[i].g. Returns the count. */
static uint32_t circle_cells(ptl_query* q, const ptl_qpoint* s, double r, double* const buf[4]) {
    const ptl_navmesh* nm = q->nm;
    uint32_t stamp = ptl_query_next_stamp(q), head = 0, tail = 0;
    double sum = 0;
    for (uint32_t k = 0; k < s->cell_count; ++k)
        if (q->seen_stamp[s->cells[k]] != stamp) q->seen_stamp[s->cells[k]] = stamp, q->cheap[tail++] = s->cells[k];
    while (head < tail) {
        uint32_t cid = q->cheap[head];
        double mass = 0;
        if (q->surf_wmax[cid] > 0) {
            uint32_t m = cell_in_box(nm, cid, buf, s->x, s->z, r);
            mass = m >= 3 ? poly_area(buf[0], buf[1], m) * q->surf_wmax[cid] : 0;
        }
        q->cc[head++].g = sum += mass;
        const ptl_blob_cell* c = &nm->cells[cid];
        for (uint32_t i = 0; i < c->vert_count; ++i) {
            const ptl_slot* sa = &q->slots[c->first + i];
            if (sa->nbr == PTL_NONE || q->seen_stamp[sa->nbr] == stamp) continue;
            const ptl_slot* sb = &q->slots[c->first + (i + 1 == c->vert_count ? 0 : i + 1)];
            /* the portal's nearest point to p within r (closed) */
            double ex = (double)sb->x - sa->x, ez = (double)sb->z - sa->z, l2 = ex * ex + ez * ez;
            double t = l2 > 0 ? ((s->x - sa->x) * ex + (s->z - sa->z) * ez) / l2 : 0;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            double dx = sa->x + t * ex - s->x, dz = sa->z + t * ez - s->z;
            if (dx * dx + dz * dz > r * r) continue;
            q->seen_stamp[sa->nbr] = stamp;
            q->cheap[tail++] = sa->nbr;
        }
    }
    return tail;
}

ptl_status ptl_query_random_point_in_circle(ptl_query* q, const float centre[3], const float extents[3], float radius,
                                            uint64_t* rng_state, ptl_location* out) {
    if (out) init_location(out);
    if (!q || !centre || !rng_state || !out || !isfinite(centre[0]) || !isfinite(centre[1]) || !isfinite(centre[2]) ||
        (extents && !(isfinite(extents[0]) && isfinite(extents[1]) && isfinite(extents[2]))) || !(radius >= 0) ||
        !isfinite(radius))
        return PTL_ERR_INVALID_ARG;
    ptl_qpoint s;
    ptl_status st = ptl_query_locate_point(q, centre, extents, &s);
    if (st < 0) return st;
    const ptl_navmesh* nm = q->nm;
    build_table(q);
    double* buf[4];
    scratch(q, buf);
    const double r = radius;
    uint32_t count = circle_cells(q, &s, r, buf);
    const double total = q->cc[count - 1].g;
    if (!(total > 0)) {
        /* a disc of no area (radius 0, or a point on a link only): the centre itself */
        put_location(nm, s.cell, s.x, s.z, out);
        out->point[1] = s.y;
        return PTL_OK;
    }
    /* Rejection from the envelope: a cell by envelope mass, a point uniform in its part of the box,
       kept with probability [in the disc] x weight / largest weight; a refusal draws the cell again. */
    uint32_t c = s.cell;
    double x = s.x, z = s.z;
    for (uint32_t k = 0; k < MAX_TRIES; ++k) {
        double pick = unit(rng_state) * total;
        uint32_t lo = 0, hi = count - 1;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (q->cc[mid].g > pick) hi = mid;
            else lo = mid + 1;
        }
        uint32_t cid = q->cheap[lo];
        uint32_t m = cell_in_box(nm, cid, buf, s.x, s.z, r);
        if (m < 3) continue;
        double px, pz;
        uniform_in_polygon(buf[0], buf[1], m, rng_state, &px, &pz);
        double u = unit(rng_state);
        if ((px - s.x) * (px - s.x) + (pz - s.z) * (pz - s.z) > r * r) continue;
        if (q->surf_wmax[cid] != 1 && u * q->surf_wmax[cid] >= weight_at(nm, cid, px, pz)) continue;
        c = cid, x = px, z = pz;
        break;
    }
    put_location(nm, c, x, z, out);
    return PTL_OK;
}
