/* The everyday queries beside the raycast: a move along the surface (Detour's moveAlongSurface),
   the surface height at a point of a cell (getPolyHeight) and the cells in a box (queryPolygons).

   A move from a point of the mesh toward a target's x-z first walks the straight segment through
   the portals it crosses (clearance.c, ptl_clear_trace, the raycast's walk): when no wall stops it,
   the move ends at the target. Otherwise it slides as Detour's does (DetourNavMeshQuery.cpp,
   moveAlongSurface): a breadth-first walk from the start's cells through the portals that come
   within the circle whose diameter is the move (closed, so every cell the straight segment crosses
   is reached), and the end is the point nearest the target of the walls of the cells reached, or
   the target itself when a reached cell holds it. The straight walk stops at a wall point nearer
   the target than the start, and that point is among those weighed: the end is never farther from
   the target than the start. Heights come from the surface (the bake's height grid of the end's
   cell, ptl_query_cell_y), not from a plane through the cell's corners. No allocation: the walk
   uses the query's per-cell arrays (seen_stamp, cheap, and cc[].parent for the way back). */
#include <math.h>
#include <string.h>

#include "clearance.h"

static bool finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* The point of segment a-b nearest (px, pz), and its squared distance. */
static double nearest_on_edge(double px, double pz, double ax, double az, double bx, double bz, double* ox, double* oz) {
    double dx = bx - ax, dz = bz - az, l2 = dx * dx + dz * dz;
    double t = l2 > 0 ? ((px - ax) * dx + (pz - az) * dz) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    *ox = t == 1 ? bx : ax + t * dx;
    *oz = t == 1 ? bz : az + t * dz;
    return (px - *ox) * (px - *ox) + (pz - *oz) * (pz - *oz);
}

/* Does cell c hold (x, z) in plan, boundary included (its vertices are counter-clockwise)? */
static bool cell_holds(const ptl_query* q, uint32_t c, double x, double z) {
    const ptl_blob_cell* cell = &q->nm->cells[c];
    const ptl_slot* s = q->slots + cell->first;
    const ptl_slot_edge* se = q->sedges + cell->first;
    for (uint32_t i = 0; i < cell->vert_count; ++i) {
        const double ax = s[i].x, az = s[i].z;
        if (se[i].ex * (z - az) - se[i].ez * (x - ax) < 0) return false;
    }
    return true;
}

/* Does cell c hold (x, z) within the point-location tolerance (a point a move ended at, rounded to
   floats, may lie a rounding step outside its cell)? The known-cell entries (moves, raycasts, heights)
   take a caller's cell by this test. */
bool ptl_query_cell_holds_within(const ptl_query* q, uint32_t c, double x, double z) {
    const ptl_blob_cell* cell = &q->nm->cells[c];
    const ptl_slot* s = q->slots + cell->first;
    const ptl_slot_edge* se = q->sedges + cell->first;
    for (uint32_t i = 0; i < cell->vert_count; ++i) {
        const double ax = s[i].x, az = s[i].z;
        const double cross = se[i].ex * (z - az) - se[i].ez * (x - ax);
        if (cross < 0 && cross < -q->loc_eps * se[i].len) return false;
    }
    return true;
}

/* The surface's height at (x, z) of cell c. On a 3D bake the cell's height grid holds, per voxel
   column, the top of its walkable span: the input surface's highest point over the column, rounded
   up to a voxel height (Recast's rasterisation, which the bake follows). Read as it is (what
   ptl_query_cell_y gives), it lies above the surface by half a voxel height on average plus, on a
   slope, the rise from the column's centre to its highest corner. Here the floors of the four
   columns around the point are interpolated bilinearly between their centres and lowered by that
   expected excess: half a voxel height, and for the gradient (gx, gz) the four floors show,
   (|gx| + |gz|) cs / 2 (the highest point of a plane over a square of side cs, above its centre).
   The result is kept at most the point's own column top (the surface under a column is never above
   it) and at least one voxel height below the lower of that top and the interpolated tops. On a
   slope the surface under a column falls up to the column's rise below its top less a voxel height
   (a bound at the own top alone held 31 of Detour's 1000 move ends on undulating.obj 0.2-0.43 m
   above the input surface); where the four tops fall away the interpolation follows them, and the
   bound keeps a gradient read from four rounded tops, which overshoots where a single column dips
   (a ledge beside the point), from pulling the estimate further. Cells without a grid (flat ones,
   links): their vertices' heights. */
static float surface_y(const ptl_query* q, uint32_t c, double x, double z) {
    const ptl_navmesh* nm = q->nm;
    if (!nm->cell_grids || !nm->cell_grids[c].w) return ptl_query_cell_yq(q, c, x, z);
    const ptl_blob_header* h = nm->h;
    const ptl_blob_grid* g = &nm->cell_grids[c];
    const double cs = h->vox_cs, ch = h->vox_ch;
    /* (a multiplication by the query's 1 / cs, off the chain of dependent loads and arithmetic that
       the height is; it may differ from a division in the last bit, and the own column below is
       read only 1e-6 clear of its sides) */
    double u = (x - h->vox_origin[0]) * q->inv_vox_cs - 0.5, w = (z - h->vox_origin[2]) * q->inv_vox_cs - 0.5;
    double iu = ptl_floor(u), iw = ptl_floor(w), fu = u - iu, fw = w - iw;
    /* the grid's column of the lower-left of the four, in integers (a point that far out is off the
       grid anyway: -1, no column) */
    const bool near = fabs(iu) < 1e15 && fabs(iw) < 1e15;
    const int64_t gx0 = near ? (int64_t)iu - g->x0 : -1, gz0 = near ? (int64_t)iw - g->z0 : -1;
    uint16_t v[4];
    if (!near || !ptl_nm_grid_quad(nm, g, gx0, gz0, v))
        for (int k = 0; k < 4; ++k) {
            const int64_t gx = gx0 + (k & 1), gz = gz0 + (k >> 1);
            v[k] = PTL_HEIGHT_NONE;
            if (near && gx >= 0 && gz >= 0 && gx < (int64_t)g->w && gz < (int64_t)g->d)
                v[k] = ptl_nm_grid_floor(nm, g, (uint32_t)gx, (uint32_t)gz);
        }
    const bool any = (v[0] & v[1] & v[2] & v[3]) != PTL_HEIGHT_NONE;
    if (!any) return ptl_query_cell_y(nm, c, x, z);
    /* A column without a floor (beyond the cell's walkable edge: the point is near its contour)
       takes the floor of one of the four that has one: of its two neighbours among them the one
       nearer the point, else the diagonal. The four are the columns whose centres are nearest the
       point, so for the point's own column this is the floor ptl_query_cell_y finds (the nearest
       column with one) but for ties. */
    float f[4];
    for (int k = 0; k < 4; ++k) {
        int src = k;
        if (v[k] == PTL_HEIGHT_NONE) {
            const int a = k ^ 1, b = k ^ 2;
            const double da = (fu - (a & 1)) * (fu - (a & 1)) + (fw - (a >> 1)) * (fw - (a >> 1));
            const double db = (fu - (b & 1)) * (fu - (b & 1)) + (fw - (b >> 1)) * (fw - (b >> 1));
            const bool ha = v[a] != PTL_HEIGHT_NONE, hb = v[b] != PTL_HEIGHT_NONE;
            src = ha && (!hb || da <= db) ? a : hb ? b : 3 - k;
        }
        f[k] = h->vox_origin[1] + (float)v[src] * h->vox_ch;
    }
    /* The point's own column top (ptl_query_cell_y): the one of the four its column is; where the
       point lies within 1e-6 of its column's side, as ptl_query_cell_y finds it (a tie). */
    const int ko = (fu >= 0.5) + 2 * (fw >= 0.5);
    const double ou = fu >= 0.5 ? fu - 0.5 : fu + 0.5, ow = fw >= 0.5 ? fw - 0.5 : fw + 0.5;
    float own = f[ko];
    if (!(isfinite(own) && ou > 1e-6 && ou < 1 - 1e-6 && ow > 1e-6 && ow < 1 - 1e-6)) own = ptl_query_cell_y(nm, c, x, z);
    const double yi = (1 - fw) * ((1 - fu) * f[0] + fu * f[1]) + fw * ((1 - fu) * f[2] + fu * f[3]);
    double gx = (f[1] - f[0] + f[3] - f[2]) / (2 * cs), gz = (f[2] - f[0] + f[3] - f[1]) / (2 * cs);
    double y = yi - (0.5 * ch + 0.5 * cs * (fabs(gx) + fabs(gz)));
    const double lo = yi < own ? yi - ch : own - ch;
    return (float)(y < lo ? lo : y > own ? own : y);
}

/* The slide: the breadth-first walk within the move's circle, from point s toward (tx, tz). Writes
   the end to (*x, *z) in *cell, a cell of the walk (their parents in q->cc, the walk's in
   seen_stamp): the target when a cell of the walk holds it, else the wall point of the walk's cells
   nearest the target, else (rounding only: the straight walk stopped at a wall, which the walk
   reaches) the start. Ties keep the first found, in the walk's order. */
static void slide(ptl_query* q, const ptl_qpoint* s, double tx, double tz, double* x, double* z, uint32_t* cell) {
    const ptl_navmesh* nm = q->nm;
    double mx = 0.5 * (s->x + tx), mz = 0.5 * (s->z + tz);
    double r = 0.5 * ptl_len2(tx - s->x, tz - s->z) + q->eps;
    double r2 = r * r * (1 + 1e-9);
    double best = (s->x - tx) * (s->x - tx) + (s->z - tz) * (s->z - tz);
    *x = s->x, *z = s->z, *cell = s->cell;
    uint32_t stamp = ptl_query_next_stamp(q), head = 0, tail = 0;
    for (uint32_t k = 0; k < s->cell_count; ++k) {
        uint32_t c = s->cells[k];
        if (q->seen_stamp[c] == stamp) continue;
        q->seen_stamp[c] = stamp, q->cc[c].parent = PTL_NONE, q->cheap[tail++] = c;
    }
    while (head < tail) {
        uint32_t cid = q->cheap[head++];
        if (cell_holds(q, cid, tx, tz)) {
            *x = tx, *z = tz, *cell = cid;
            return;
        }
        const ptl_blob_cell* c = &nm->cells[cid];
        const ptl_slot* sl = q->slots + c->first;
        for (uint32_t i = 0; i < c->vert_count; ++i) {
            const ptl_slot* sa = &sl[i];
            const ptl_slot* sb = &sl[i + 1 == c->vert_count ? 0 : i + 1];
            double ox, oz;
            if (sa->nbr == PTL_NONE) {
                double d = nearest_on_edge(tx, tz, sa->x, sa->z, sb->x, sb->z, &ox, &oz);
                if (d < best) best = d, *x = ox, *z = oz, *cell = cid;
                continue;
            }
            if (q->seen_stamp[sa->nbr] == stamp) continue;
            if (nearest_on_edge(mx, mz, sa->x, sa->z, sb->x, sb->z, &ox, &oz) > r2) continue;
            q->seen_stamp[sa->nbr] = stamp, q->cc[sa->nbr].parent = cid;
            q->cheap[tail++] = sa->nbr;
        }
    }
}

/* Writes the walk's cells from a start cell to `end` (parents in q->cc) to out, in order; returns
   the start cell. */
static uint32_t chain_cells(const ptl_query* q, uint32_t end, ptl_move_result* out) {
    uint32_t n = 0, first = end;
    for (uint32_t c = end; c != PTL_NONE; c = q->cc[c].parent) ++n, first = c;
    out->cell_count = n;
    uint32_t k = n;
    for (uint32_t c = end; c != PTL_NONE; c = q->cc[c].parent)
        if (--k < out->cell_capacity) out->cells[k] = c;
    return first;
}

/* The move from the located start s (its cell in out->start_cell). With `held` (not NULL): s is a
   caller's point of one cell, not located, and *held false (nothing else done) when that cell does
   not hold it within the point-location tolerance (tested on the straight walk's first step). */
static ptl_status move_from(ptl_query* q, const ptl_qpoint* s, const float end[3], ptl_move_result* out, bool* held) {
    uint32_t* cells = out->cells;
    const uint32_t cap = out->cell_capacity;
    double tx = end[0], tz = end[2];
    ptl_clear_trace_out tr = {.cells = cells, .cell_capacity = cap};
    bool walked = held ? ptl_clear_trace_held(q, s, tx, tz, &tr, held) : ptl_clear_trace(q, s, tx, tz, &tr);
    if (held && !*held) return PTL_OK;
    double x = tx, z = tz;
    uint32_t cell = tr.cell;
    if (walked && !tr.hit) {
        out->cell_count = tr.cell_count;
        out->start_cell = tr.start;
    } else {
        /* a wall (or a pinch) stops the straight move: slide */
        slide(q, s, tx, tz, &x, &z, &cell);
        out->blocked = true;
        out->start_cell = chain_cells(q, cell, out);
    }
    out->end_cell = cell;
    out->point[0] = (float)x, out->point[2] = (float)z;
    out->point[1] = surface_y(q, cell, out->point[0], out->point[2]);
    if (!isfinite(out->point[1])) out->point[1] = ptl_query_cell_y(q->nm, cell, out->point[0], out->point[2]); /* damaged heights */
    return out->cell_count > cap && cap > 0 ? PTL_TRUNCATED : PTL_OK;
}

/* Resets out (keeping the caller's cell buffer); false for bad arguments. */
static bool move_begin(const ptl_query* q, const float start[3], const float end[3], ptl_move_result* out) {
    /* each field but the caller's buffer (what a memset of the whole and the buffer put back did) */
    out->point[0] = out->point[1] = out->point[2] = 0;
    out->blocked = false;
    out->cell_count = 0;
    out->start_cell = out->end_cell = PTL_NONE;
    const uint32_t cap = out->cell_capacity;
    return q && start && end && finite3(start) && finite3(end) && !(cap && !out->cells);
}

ptl_status ptl_query_move_along_surface(ptl_query* q, const float start[3], const float end[3], const float extents[3],
                                        ptl_move_result* out) {
    if (!out) return PTL_ERR_INVALID_ARG;
    if (!move_begin(q, start, end, out) || (extents && !finite3(extents))) return PTL_ERR_INVALID_ARG;
    ptl_qpoint s;
    ptl_status st = ptl_query_locate_point(q, start, extents, &s);
    if (st < 0) return st;
    out->start_cell = s.cell;
    return move_from(q, &s, end, out, NULL);
}

ptl_status ptl_query_move_along_surface_in(ptl_query* q, uint32_t cell, const float start[3], const float end[3],
                                           ptl_move_result* out) {
    if (!out) return PTL_ERR_INVALID_ARG;
    if (!move_begin(q, start, end, out)) return PTL_ERR_INVALID_ARG;
    if (cell >= q->nm->h->cell_count || ptl_query_cell_off(q, cell)) return ptl_query_move_along_surface(q, start, end, NULL, out);
    ptl_qpoint s;
    ptl_qpoint_in_cell(&s, cell, start[0], start[1], start[2]);
    out->start_cell = cell;
    bool held;
    ptl_status st = move_from(q, &s, end, out, &held);
    return held ? st : ptl_query_move_along_surface(q, start, end, NULL, out);
}

ptl_status ptl_query_height(ptl_query* q, uint32_t cell, float x, float z, float* y) {
    if (y) *y = 0;
    if (!q || !y || !isfinite(x) || !isfinite(z) || cell >= q->nm->h->cell_count) return PTL_ERR_INVALID_ARG;
    /* within the point-location tolerance of the cell: outside each edge by at most loc_eps */
    if (!ptl_query_cell_holds_within(q, cell, x, z)) return PTL_ERR_NOT_FOUND;
    *y = surface_y(q, cell, x, z);
    if (!isfinite(*y)) *y = ptl_query_cell_y(q->nm, cell, x, z); /* damaged heights */
    return PTL_OK;
}

/* ---- Cells in a box ------------------------------------------------------------------------------ */

/* Does convex cell c meet the box [x0, x1] x [z0, z1] in plan (closed)? Separating axes: the box's
   two (its bounds against the cell's) and each edge's normal. */
static bool cell_meets_box(const ptl_query* q, uint32_t c, double x0, double x1, double z0, double z1) {
    const double* cb = q->cell_box + 4 * (size_t)c;
    if (cb[1] < x0 || cb[0] > x1 || cb[3] < z0 || cb[2] > z1) return false;
    const ptl_blob_cell* cell = &q->nm->cells[c];
    const ptl_slot* s = q->slots + cell->first;
    for (uint32_t i = 0; i < cell->vert_count; ++i) {
        const ptl_slot* b = &s[i + 1 == cell->vert_count ? 0 : i + 1];
        double ex = (double)b->x - s[i].x, ez = (double)b->z - s[i].z;
        /* the box corner furthest into the cell's side of the edge (left of it) */
        double px = -ez > 0 ? x1 : x0, pz = ex > 0 ? z1 : z0;
        if (ex * (pz - s[i].z) - ez * (px - s[i].x) < 0) return false;
    }
    return true;
}

ptl_status ptl_query_cells_in_box(ptl_query* q, const float bmin[3], const float bmax[3], uint32_t* cells,
                                  uint32_t capacity, uint32_t* count) {
    if (count) *count = 0;
    if (!q || !bmin || !bmax || !count || !finite3(bmin) || !finite3(bmax) || (capacity && !cells) ||
        bmin[0] > bmax[0] || bmin[1] > bmax[1] || bmin[2] > bmax[2])
        return PTL_ERR_INVALID_ARG;
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_header* h = nm->h;
    double x0 = bmin[0], x1 = bmax[0], z0 = bmin[2], z1 = bmax[2];
    if (x1 < h->bmin[0] || x0 > h->bmax[0] || z1 < h->bmin[2] || z0 > h->bmax[2]) return PTL_OK;
    /* the point-location buckets the box overlaps (each cell is listed in every bucket it overlaps) */
    double fx0 = floor((x0 - h->bmin[0]) / h->grid_cell), fx1 = floor((x1 - h->bmin[0]) / h->grid_cell);
    double fz0 = floor((z0 - h->bmin[2]) / h->grid_cell), fz1 = floor((z1 - h->bmin[2]) / h->grid_cell);
    uint32_t ix0 = (uint32_t)fmax(0, fmin(fx0, h->grid_nx - 1)), ix1 = (uint32_t)fmax(0, fmin(fx1, h->grid_nx - 1));
    uint32_t iz0 = (uint32_t)fmax(0, fmin(fz0, h->grid_nz - 1)), iz1 = (uint32_t)fmax(0, fmin(fz1, h->grid_nz - 1));
    uint32_t stamp = ptl_query_next_stamp(q), n = 0;
    for (uint32_t iz = iz0; iz <= iz1; ++iz)
        for (uint32_t ix = ix0; ix <= ix1; ++ix) {
            uint32_t b = iz * h->grid_nx + ix;
            for (uint32_t i = nm->grid_offsets[b]; i < nm->grid_offsets[b + 1]; ++i) {
                uint32_t c = nm->grid_items[i];
                if (q->seen_stamp[c] == stamp || ptl_query_cell_off(q, c)) continue;
                q->seen_stamp[c] = stamp;
                if (!cell_meets_box(q, c, x0, x1, z0, z1)) continue;
                /* heights: the cell's vertices' range (Detour's polygon bounds) */
                const uint32_t* cv = nm->cell_verts + nm->cells[c].first;
                float ylo = INFINITY, yhi = -INFINITY;
                for (uint32_t k = 0; k < nm->cells[c].vert_count; ++k) {
                    float vy = nm->verts[3 * cv[k] + 1];
                    ylo = vy < ylo ? vy : ylo, yhi = vy > yhi ? vy : yhi;
                }
                if (yhi < bmin[1] || ylo > bmax[1]) continue;
                if (n < capacity) cells[n] = c;
                ++n;
            }
        }
    *count = n;
    return n > capacity ? PTL_TRUNCATED : PTL_OK;
}
