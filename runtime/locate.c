/* Point location: the nearest point of the mesh to a query point within a search box (Detour's
   findNearestPoly, with the box as a hard limit), and the cells that point belongs to under the
   rules the searches need:
   - inside one cell: that cell;
   - on the interior of an edge: the cells sharing it (one for a wall);
   - on a vertex: every cell around that vertex id (navmesh vcell). Where several vertex ids share
     the position (a pinch: free space touching itself at a point), a grid navmesh
     (PTL_NAVMESH_LATTICE_POINTS) picks the region of grid cell (x, y), the cell whose least corner
     the point is (Polyanya's and GPPC's rule, DESIGN.md), falling back to the diagonal directions
     (-,+), (+,-), (-,-) when that grid cell is blocked; any other navmesh reports the point as
     ambiguous (not found).
   A point is on the mesh when a cell's own polygon holds it; otherwise it moves to the nearest
   point of the mesh inside the box (the box only limits the search: a box that merely touches a
   cell at a vertex finds that vertex, a box that misses the mesh finds nothing).
   Tolerances are relative to the mesh's coordinate scale (query->loc_eps = 1e-6 x scale). A point
   inside a cell keeps its coordinates; a point within the tolerance of a vertex is put on the
   vertex, one within the tolerance of an edge (and not of its ends) on the edge's line, snapped
   or not, so that the point the searches use is where its kind says (the cells of a vertex, the
   two sides of an edge, hub labels and pockets are read from the kind). */
#include <math.h>
#include <string.h>

#include "query_internal.h"

static const float DEFAULT_EXTENTS[3] = {2, 4, 2};

float ptl_query_cell_y(const ptl_navmesh* nm, uint32_t cell, double x, double z) {
    const ptl_blob_cell* c = &nm->cells[cell];
    float gy;
    /* 3D bakes: the cell's grid of its layer's voxel floors, within one cell height of the input
       surface; flat cells and link cells have none (their vertices' plane). */
    /* (a damaged blob's height grid can overflow a float: its vertices' heights then, as for a flat
       cell; fuzz finding blob d6df07) */
    if (ptl_nm_cell_floor(nm, cell, x, z, &gy) && isfinite(gy)) return gy;
    const uint32_t* cv = nm->cell_verts + c->first;
    float y0 = nm->verts[3 * cv[0] + 1];
    bool flat = true;
    for (uint32_t i = 1; i < c->vert_count && flat; ++i) flat = nm->verts[3 * cv[i] + 1] == y0;
    if (flat) return y0;
    /* Barycentric interpolation in the fan triangle (v0, vi, vi+1) holding the point; the last
       non-degenerate one extrapolates when none holds it (a point just outside the cell), within
       the heights of the cell's vertices (far outside, a fan triangle's plane would run away). */
    double ax = ptl_nm_vx(nm, cv[0]), az = ptl_nm_vz(nm, cv[0]);
    double y = y0, ylo = y0, yhi = y0;
    for (uint32_t i = 1; i < c->vert_count; ++i) {
        double vy = nm->verts[3 * cv[i] + 1];
        ylo = vy < ylo ? vy : ylo, yhi = vy > yhi ? vy : yhi;
    }
    for (uint32_t i = 1; i + 1 < c->vert_count; ++i) {
        double bx = ptl_nm_vx(nm, cv[i]) - ax, bz = ptl_nm_vz(nm, cv[i]) - az;
        double cx = ptl_nm_vx(nm, cv[i + 1]) - ax, cz = ptl_nm_vz(nm, cv[i + 1]) - az;
        double det = bx * cz - bz * cx;
        if (det == 0) continue;
        double px = x - ax, pz = z - az;
        double u = (px * cz - pz * cx) / det, v = (bx * pz - bz * px) / det;
        y = y0 + u * (nm->verts[3 * cv[i] + 1] - y0) + v * (nm->verts[3 * cv[i + 1] + 1] - y0);
        if (u >= -1e-9 && v >= -1e-9 && u + v <= 1 + 1e-9) break;
    }
    return (float)(y < ylo ? ylo : y > yhi ? yhi : y);
}

static bool resolve_extents(const float* e, double out[3]) {
    if (!e || (e[0] == 0 && e[1] == 0 && e[2] == 0)) e = DEFAULT_EXTENTS;
    for (int i = 0; i < 3; ++i) {
        if (!isfinite(e[i]) || e[i] < 0) return false;
        out[i] = e[i];
    }
    return true;
}

/* Is (x, z) in the closed polygon of the cell, within `eps` (0: exactly)? The crossing rule, for a
   kinked cell (navmesh.cell_kinked), whose edges' half-planes leave out a part of it: a point on an
   edge, or within eps of one, is in; otherwise a ray towards +x crosses the boundary an odd number
   of times (each edge counted on the half-open span of z it covers). */
static bool polygon_holds(const ptl_navmesh* nm, const ptl_blob_cell* c, double x, double z, double eps) {
    const uint32_t* cv = nm->cell_verts + c->first;
    uint32_t n = c->vert_count;
    bool odd = false;
    double ax = ptl_nm_vx(nm, cv[n - 1]), az = ptl_nm_vz(nm, cv[n - 1]);
    for (uint32_t i = 0; i < n; ++i) {
        double bx = ptl_nm_vx(nm, cv[i]), bz = ptl_nm_vz(nm, cv[i]);
        double ex = bx - ax, ez = bz - az, len2 = ex * ex + ez * ez;
        double t = len2 > 0 ? ((x - ax) * ex + (z - az) * ez) / len2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double dx = ax + t * ex - x, dz = az + t * ez - z;
        if (dx * dx + dz * dz <= eps * eps || (x == ax && z == az)) return true;
        double cross = ex * (z - az) - ez * (x - ax);
        if (cross == 0 && (x - ax) * (x - bx) <= 0 && (z - az) * (z - bz) <= 0) return true; /* on the edge */
        if ((az <= z) != (bz <= z) && (ez > 0 ? cross > 0 : cross < 0)) odd = !odd;
        ax = bx, az = bz;
    }
    return odd;
}

/* Is (x, z) in the closed cell within `eps` (the return value), and is it in exactly (*exact, what
   cell_holds below answers: every edge has it on its left or on its line, or, for a kinked cell,
   the crossing rule)? One pass over the edges for both; exact inside points cost no square root.
   *exact is set only when the point is within eps. *deep: every edge has the point on its left
   by more than 2 eps (cross > 2 eps len, the same cross as classify computes), so that it is
   within eps of no edge and no vertex: classify's answer is the cell alone, and it may skip its
   search (the factor 2 leaves room for rounding). */
static bool cell_contains(const ptl_query* q, uint32_t cell, double x, double z, double eps, bool* exact, bool* deep) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_cell* c = &nm->cells[cell];
    const ptl_slot* sl = q->slots + c->first;
    const ptl_slot_edge* se = q->sedges + c->first;
    uint32_t n = c->vert_count;
    const double eps2 = 2 * eps;
    bool outside = false; /* an edge has the point strictly on its right */
    bool inner = true;    /* every edge so far has it on its left by more than 2 eps */
    /* (the answers do not depend on the order of the edges) */
    for (uint32_t i = 0; i < n; ++i) {
        const double ax = sl[i].x, az = sl[i].z, ex = se[i].ex, ez = se[i].ez;
        double cross = ex * (z - az) - ez * (x - ax);
        if (cross < 0) {
            if (cross * cross > eps * eps * (ex * ex + ez * ez)) {
                if (!(ptl_nm_cell_kinked(nm, cell) && polygon_holds(nm, c, x, z, eps))) return false;
                *exact = polygon_holds(nm, c, x, z, 0);
                *deep = false;
                return true;
            }
            outside = true;
        }
        inner &= cross > eps2 * se[i].len;
    }
    *exact = !outside || (ptl_nm_cell_kinked(nm, cell) && polygon_holds(nm, c, x, z, 0));
    *deep = inner;
    return true;
}

/* The range of heights ptl_query_cell_y gives for cell c: its vertices' (the fan's interpolation is
   clamped to them), and its height grid's floors (blocks bounded by their base and their kind's
   largest offset; 16-bit blocks read). Float arithmetic as ptl_query_cell_y's, which is monotone in
   the floor, so the bounds are exact ones. A NaN anywhere, or a block whose offsets wrap (a damaged
   blob): not known. */
static void cell_height_range(const ptl_navmesh* nm, uint32_t c, float out[2]) {
    const ptl_blob_cell* cell = &nm->cells[c];
    const ptl_blob_header* h = nm->h;
    float lo = INFINITY, hi = -INFINITY;
    bool known = cell->vert_count > 0;
    for (uint32_t i = 0; i < cell->vert_count; ++i) {
        const float y = nm->verts[3 * nm->cell_verts[cell->first + i] + 1];
        known = known && !isnan(y);
        lo = y < lo ? y : lo, hi = y > hi ? y : hi;
    }
    const ptl_blob_grid* g = nm->cell_grids ? &nm->cell_grids[c] : NULL;
    if (known && g && g->w && g->d) {
        const uint32_t B = PTL_HEIGHT_BLOCK, blocks = ((g->w + B - 1) / B) * ((g->d + B - 1) / B);
        uint32_t vlo = PTL_HEIGHT_NONE, vhi = 0;
        for (uint32_t b = 0; b < blocks && known; ++b) {
            const ptl_blob_hblock* k = &nm->hblocks[g->first + b];
            uint32_t blo = k->base, bhi = k->base;
            if (k->kind == PTL_HBLOCK_FLAT) {
                if (k->base == PTL_HEIGHT_NONE) continue;
            } else if (k->kind == PTL_HBLOCK_U4 || k->kind == PTL_HBLOCK_U8) {
                bhi = k->base + (k->kind == PTL_HBLOCK_U4 ? 14u : 254u);
                known = bhi < PTL_HEIGHT_NONE;
            } else {
                blo = PTL_HEIGHT_NONE, bhi = 0;
                for (uint32_t i = 0; i < B * B; ++i) {
                    uint16_t v;
                    memcpy(&v, nm->hdata + k->data + 2 * i, 2);
                    if (v == PTL_HEIGHT_NONE) continue;
                    blo = v < blo ? v : blo, bhi = v > bhi ? v : bhi;
                }
                if (blo == PTL_HEIGHT_NONE) continue;
            }
            vlo = blo < vlo ? blo : vlo, vhi = bhi > vhi ? bhi : vhi;
        }
        if (known && vlo != PTL_HEIGHT_NONE) {
            const float ylo = h->vox_origin[1] + (float)vlo * h->vox_ch, yhi = h->vox_origin[1] + (float)vhi * h->vox_ch;
            known = !isnan(ylo) && !isnan(yhi);
            lo = ylo < lo ? ylo : lo, hi = yhi > hi ? yhi : hi;
        }
    }
    out[0] = known ? lo : -INFINITY, out[1] = known ? hi : INFINITY;
}

/* Can cell c give a height within ey of y (its height range: cell_height_range)? */
static inline bool height_in_reach(const ptl_query* q, uint32_t c, double y, double ey) {
    const float* r = q->cell_yr + 2 * (size_t)c;
    return !((double)r[0] - y > ey || y - (double)r[1] > ey);
}

/* Each cell's box: the bounds of the points cell_contains accepts, the cell's polygon with every
   edge's line moved out by the tolerance (eps). For a convex cell that is a convex polygon whose
   corner at vertex b, between edges with outward unit normals n1 and n2, lies at
   b + eps (n1 + n2) / (1 + n1.n2); a little more (1e-9 of the coordinates) covers rounding. A cell
   with a spike (edges turning back by nearly 180 degrees, whose moved corner runs far out), a
   zero-length edge or a reflex corner (a broken blob, or a kinked cell: navmesh.cell_kinked, whose
   points polygon_holds also accepts) gets an unbounded box: it is never skipped. */
void ptl_query_cell_boxes(ptl_query* q) {
    const ptl_navmesh* nm = q->nm;
    const double eps = q->loc_eps;
    for (uint32_t c = 0; c < nm->h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        const uint32_t* cv = nm->cell_verts + cell->first;
        const uint32_t n = cell->vert_count;
        double b[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
        bool bounded = n >= 3;
        for (uint32_t i = 0; i < n && bounded; ++i) {
            const uint32_t a = cv[i == 0 ? n - 1 : i - 1], v = cv[i], w = cv[i + 1 == n ? 0 : i + 1];
            const double vx = ptl_nm_vx(nm, v), vz = ptl_nm_vz(nm, v);
            const double e1x = vx - ptl_nm_vx(nm, a), e1z = vz - ptl_nm_vz(nm, a);
            const double e2x = ptl_nm_vx(nm, w) - vx, e2z = ptl_nm_vz(nm, w) - vz;
            const double l1 = sqrt(e1x * e1x + e1z * e1z), l2 = sqrt(e2x * e2x + e2z * e2z);
            if (!(l1 > 0 && l2 > 0) || e1x * e2z - e1z * e2x < 0) {
                bounded = false;
                break;
            }
            /* Outward normals (inside is left of each edge). */
            const double n1x = e1z / l1, n1z = -e1x / l1, n2x = e2z / l2, n2z = -e2x / l2;
            const double k = 1 + n1x * n2x + n1z * n2z;
            if (!(k > 1e-3)) {
                bounded = false;
                break;
            }
            const double x = vx + eps * (n1x + n2x) / k, z = vz + eps * (n1z + n2z) / k;
            b[0] = fmin(b[0], x), b[1] = fmax(b[1], x), b[2] = fmin(b[2], z), b[3] = fmax(b[3], z);
        }
        double* out = q->cell_box + 4 * (size_t)c;
        if (!bounded) {
            out[0] = out[2] = -INFINITY, out[1] = out[3] = INFINITY;
            continue;
        }
        const double slack = 1e-9 * (fabs(b[0]) + fabs(b[1]) + fabs(b[2]) + fabs(b[3]) + eps);
        out[0] = b[0] - slack, out[1] = b[1] + slack, out[2] = b[2] - slack, out[3] = b[3] + slack;
    }
    double mag = 0;
    for (uint32_t c = 0; c < nm->h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            const uint32_t v = nm->cell_verts[cell->first + i];
            const double ax = fabs(ptl_nm_vx(nm, v)), az = fabs(ptl_nm_vz(nm, v));
            mag = ax > mag ? ax : mag, mag = az > mag ? az : mag;
            if (isnan(ax) || isnan(az)) mag = INFINITY;
        }
    }
    q->vert_mag = mag;
    q->cell_yr = (float*)(void*)(q->cell_box + 4 * (size_t)nm->h->cell_count);
    for (uint32_t c = 0; c < nm->h->cell_count; ++c) cell_height_range(nm, c, q->cell_yr + 2 * (size_t)c);
}

/* Is (x, z) outside cell c's box? */
static inline bool outside_box(const ptl_query* q, uint32_t c, double x, double z) {
    const double* b = q->cell_box + 4 * (size_t)c;
    return x < b[0] || x > b[1] || z < b[2] || z > b[3];
}

/* Is (x, z) in the closed cell (exactly: every edge has it on its left or on its line, or, for a
   kinked cell, the crossing rule)? A cell that is not convex otherwise may answer no for some of
   its points: they are then snapped to its boundary, a wrong answer but never an access outside
   the cell's own arrays. */
static bool cell_holds(const ptl_query* q, uint32_t cell, double x, double z) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_cell* c = &nm->cells[cell];
    const ptl_slot* sl = q->slots + c->first;
    const ptl_slot_edge* se = q->sedges + c->first;
    for (uint32_t i = 0; i < c->vert_count; ++i) {
        const double ax = sl[i].x, az = sl[i].z;
        if (se[i].ex * (z - az) - se[i].ez * (x - ax) < 0) return ptl_nm_cell_kinked(nm, cell) && polygon_holds(nm, c, x, z, 0);
    }
    return true;
}

/* The part [t0, t1] of the segment a + t (b - a), t in [0, 1], inside the closed box
   [x0, x1] x [z0, z1] (Liang and Barsky); false when none is. */
static bool segment_in_box(double ax, double az, double ex, double ez, const double box[4], double* t0, double* t1) {
    const double p[4] = {-ex, ex, -ez, ez};
    const double r[4] = {ax - box[0], box[1] - ax, az - box[2], box[3] - az};
    double lo = 0, hi = 1;
    for (int k = 0; k < 4; ++k) {
        if (p[k] == 0) {
            if (r[k] < 0) return false;
            continue;
        }
        double t = r[k] / p[k];
        if (p[k] < 0) lo = t > lo ? t : lo;
        else hi = t < hi ? t : hi;
    }
    *t0 = lo, *t1 = hi;
    return lo <= hi;
}

/* Nearest point to p of the cell within the box (which is centred on p); squared distance, +inf
   when the cell does not reach into the box. The point is p itself only when the cell's own polygon
   holds it. Otherwise a nearest point lies on the cell's boundary inside the box (the segment from
   p to any point of the cell in the box crosses that boundary inside the box), so the edges, each
   cut to the box, are all that is searched: no clipped polygon is built, whatever the cell's shape. */
static double nearest_in_box(const ptl_query* q, uint32_t cell, double px, double pz, const double box[4],
                             double* ox, double* oz) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_cell* c = &nm->cells[cell];
    if (cell_holds(q, cell, px, pz)) {
        *ox = px, *oz = pz;
        return 0;
    }
    const uint32_t* cv = nm->cell_verts + c->first;
    uint32_t n = c->vert_count;
    double best = INFINITY;
    const double bs = fabs(box[0]) + fabs(box[1]) + fabs(box[2]) + fabs(box[3]);
    /* The margin of the test below, once: q->vert_mag bounds every vertex coordinate, so this is at
       least each edge's own 1e-6 (|ax| + |az| + |bx| + |bz| + bs); a larger margin passes over fewer
       edges, and segment_in_box finds no part of those either (the same answers). */
    const double m = 1e-6 * (4 * q->vert_mag + bs);
    const double out[4] = {box[0] - m, box[1] + m, box[2] - m, box[3] + m};
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t a = cv[i], b = cv[i + 1 == n ? 0 : i + 1];
        double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a);
        const double bx = ptl_nm_vx(nm, b), bz = ptl_nm_vz(nm, b);
        double ex = bx - ax, ez = bz - az;
        double t0, t1;
        if (ax >= box[0] && bx >= box[0] && ax <= box[1] && bx <= box[1] && az >= box[2] && bz >= box[2] && az <= box[3] &&
            bz <= box[3]) {
            /* both ends in the box: segment_in_box's answer without its divisions (rounding is
               monotone: box[1] >= bx gives box[1] - ax >= ex, a ratio >= 1, and so on) */
            t0 = 0, t1 = 1;
        } else {
            /* both ends beyond one side by more than 1e-6 of the magnitudes (rounding moves
               segment_in_box's ratios by ~1e-16 of them): it would find no part in the box */
            if ((ax < out[0] && bx < out[0]) || (ax > out[1] && bx > out[1]) || (az < out[2] && bz < out[2]) ||
                (az > out[3] && bz > out[3]))
                continue;
            if (!segment_in_box(ax, az, ex, ez, box, &t0, &t1)) continue;
        }
        double len2 = ex * ex + ez * ez;
        double t = len2 > 0 ? ((px - ax) * ex + (pz - az) * ez) / len2 : t0;
        t = t < t0 ? t0 : t > t1 ? t1 : t;
        /* The ends of the edge exactly, not a + 1 * e rounded: a vertex on the box stays itself. */
        double cx = t == 0 ? ax : t == 1 ? ptl_nm_vx(nm, b) : ax + t * ex;
        double cz = t == 0 ? az : t == 1 ? ptl_nm_vz(nm, b) : az + t * ez;
        /* A point cut at the box's side lies on it, not a rounding outside. */
        cx = cx < box[0] ? box[0] : cx > box[1] ? box[1] : cx;
        cz = cz < box[2] ? box[2] : cz > box[3] ? box[3] : cz;
        double d2 = (cx - px) * (cx - px) + (cz - pz) * (cz - pz);
        if (d2 < best) best = d2, *ox = cx, *oz = cz;
    }
    return best;
}

typedef struct candidate {
    uint32_t cell;
    double x, z, d2; /* nearest point and its squared 3D distance */
    float y;
    int8_t holds;    /* 1: the cell holds (x, z) exactly (cell_holds); 0: it does not; -1: not known */
    bool deep;       /* more than 2 eps inside every edge (cell_contains): classify's answer is the cell */
} candidate;

/* Fast path: a cell of p's bucket contains p (the usual case for a start or a goal). */
static bool find_containing(ptl_query* q, const float p[3], double ey, candidate* best) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_header* h = nm->h;
    double x = p[0], z = p[2];
    if (x < h->bmin[0] - q->loc_eps || x > h->bmax[0] + q->loc_eps || z < h->bmin[2] - q->loc_eps ||
        z > h->bmax[2] + q->loc_eps)
        return false;
    uint32_t b = ptl_nm_bucket(nm, x, z);
    best->cell = PTL_NONE;
    best->d2 = INFINITY;
    bool best_holds = false;
    for (uint32_t i = nm->grid_offsets[b]; i < nm->grid_offsets[b + 1]; ++i) {
        uint32_t c = nm->grid_items[i];
        bool holds, deep;
        if (ptl_query_cell_off(q, c) || outside_box(q, c, x, z) || !height_in_reach(q, c, p[1], ey) ||
            !cell_contains(q, c, x, z, q->loc_eps, &holds, &deep))
            continue;
        float y = ptl_query_cell_yq(q, c, x, z);
        double dy = (double)y - p[1];
        if (fabs(dy) > ey) continue;
        /* At equal height, a cell that holds the point exactly beats one that only comes within
           the tolerance of it: the point belongs to the first, and its cell set (and pocket)
           must say so. */
        if (dy * dy > best->d2 || (dy * dy == best->d2 && (best_holds || !holds))) continue;
        best->cell = c, best->x = x, best->z = z, best->y = y, best->d2 = dy * dy;
        best_holds = holds, best->deep = deep;
    }
    best->holds = best_holds;
    return best->cell != PTL_NONE;
}

/* Does a beat b as the nearest point? Nearer by more than the tolerance wins; within it the points
   tie (a point off the mesh can be as near to two pieces of it, such as a point on a wall between
   two rooms), and the least (x, z, y) wins. The first cell in the buckets' order would not do: two
   decompositions of the same walls (with and without hub labels, say) order their cells
   differently, and the same query would snap to different places and get different answers. */
static bool nearer(const candidate* a, const candidate* b, double eps) {
    if (b->cell == PTL_NONE) return true;
    double da = sqrt(a->d2), db = sqrt(b->d2);
    if (da < db - eps) return true;
    if (da > db + eps) return false;
    if (a->x != b->x) return a->x < b->x;
    if (a->z != b->z) return a->z < b->z;
    if (a->y != b->y) return a->y < b->y;
    return a->d2 < b->d2;
}

/* Slow path: the nearest point of (mesh within the box) over every cell of the buckets the box overlaps. */
static bool find_nearest(ptl_query* q, const float p[3], const double ext[3], candidate* best) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_header* h = nm->h;
    double x0 = (double)p[0] - ext[0], x1 = (double)p[0] + ext[0];
    double z0 = (double)p[2] - ext[2], z1 = (double)p[2] + ext[2];
    if (x1 < h->bmin[0] || x0 > h->bmax[0] || z1 < h->bmin[2] || z0 > h->bmax[2]) return false;
    if ((double)p[1] + ext[1] < h->bmin[1] || (double)p[1] - ext[1] > h->bmax[1]) return false;
    double fx0 = ptl_floor((x0 - h->bmin[0]) / h->grid_cell), fx1 = ptl_floor((x1 - h->bmin[0]) / h->grid_cell);
    double fz0 = ptl_floor((z0 - h->bmin[2]) / h->grid_cell), fz1 = ptl_floor((z1 - h->bmin[2]) / h->grid_cell);
    /* Clamp in floating point first: huge extents must not overflow the integer conversion. */
    uint32_t ix0 = ptl_grid_index(fx0, h->grid_nx), ix1 = ptl_grid_index(fx1, h->grid_nx);
    uint32_t iz0 = ptl_grid_index(fz0, h->grid_nz), iz1 = ptl_grid_index(fz1, h->grid_nz);
    uint32_t stamp = ptl_query_next_stamp(q);
    const double box[4] = {x0, x1, z0, z1};
    best->cell = PTL_NONE;
    best->d2 = INFINITY;
    double reach2 = INFINITY; /* squared plan distance past which no cell can win or tie */
    for (uint32_t iz = iz0; iz <= iz1; ++iz) {
        for (uint32_t ix = ix0; ix <= ix1; ++ix) {
            uint32_t b = iz * h->grid_nx + ix;
            for (uint32_t i = nm->grid_offsets[b]; i < nm->grid_offsets[b + 1]; ++i) {
                uint32_t c = nm->grid_items[i];
                if (q->seen_stamp[c] == stamp || ptl_query_cell_off(q, c)) continue;
                q->seen_stamp[c] = stamp;
                /* The cell lies in its box: no nearer than the box, and not in the search box
                   unless the boxes meet (checked with the box's rounding margin to spare). */
                const double* cb = q->cell_box + 4 * (size_t)c;
                if (cb[1] < x0 - q->eps || cb[0] > x1 + q->eps || cb[3] < z0 - q->eps || cb[2] > z1 + q->eps) continue;
                if (!height_in_reach(q, c, p[1], ext[1])) continue;
                const double bx = p[0] < cb[0] ? cb[0] - p[0] : p[0] > cb[1] ? p[0] - cb[1] : 0;
                const double bz = p[2] < cb[2] ? cb[2] - p[2] : p[2] > cb[3] ? p[2] - cb[3] : 0;
                if (bx * bx + bz * bz > reach2 * (1 + 1e-9)) continue;
                double nx = 0, nz = 0;
                double d2 = nearest_in_box(q, c, p[0], p[2], box, &nx, &nz);
                if (!(d2 < INFINITY && d2 <= reach2)) continue;
                float y = ptl_query_cell_yq(q, c, nx, nz);
                double dy = (double)y - p[1];
                if (fabs(dy) > ext[1]) continue;
                candidate cand = {c, nx, nz, d2 + dy * dy, y, -1, false};
                if (!nearer(&cand, best, q->loc_eps)) continue;
                *best = cand;
                reach2 = sqrt(best->d2) + q->loc_eps;
                reach2 *= reach2;
            }
        }
    }
    return best->cell != PTL_NONE;
}

/* Does `cell` hold the directions just off its vertex u along d (open sector)? */
static bool cell_holds_direction(const ptl_navmesh* nm, uint32_t cell, uint32_t u, double dx, double dz) {
    const ptl_blob_cell* c = &nm->cells[cell];
    const uint32_t* cv = nm->cell_verts + c->first;
    uint32_t n = c->vert_count;
    for (uint32_t i = 0; i < n; ++i) {
        if (cv[i] != u) continue;
        uint32_t next = cv[i + 1 == n ? 0 : i + 1], prev = cv[i == 0 ? n - 1 : i - 1];
        double ux = ptl_nm_vx(nm, u), uz = ptl_nm_vz(nm, u);
        double e1x = ptl_nm_vx(nm, next) - ux, e1z = ptl_nm_vz(nm, next) - uz;
        double e2x = ptl_nm_vx(nm, prev) - ux, e2z = ptl_nm_vz(nm, prev) - uz;
        return e1x * dz - e1z * dx > 0 && dx * e2z - dz * e2x > 0;
    }
    return false;
}

#define MAX_PINCH_COPIES 16

/* The vertex id at v's position that a point there belongs to; PTL_NONE when ambiguous. */
static uint32_t resolve_pinch(const ptl_navmesh* nm, uint32_t v) {
    uint32_t copies[MAX_PINCH_COPIES];
    uint32_t count = 0;
    float fx = nm->verts[3 * v], fz = nm->verts[3 * v + 2];
    uint32_t b = ptl_nm_bucket(nm, fx, fz);
    for (uint32_t i = nm->grid_offsets[b]; i < nm->grid_offsets[b + 1] && count < MAX_PINCH_COPIES; ++i) {
        const ptl_blob_cell* c = &nm->cells[nm->grid_items[i]];
        for (uint32_t k = 0; k < c->vert_count && count < MAX_PINCH_COPIES; ++k) {
            uint32_t u = nm->cell_verts[c->first + k];
            if (nm->verts[3 * u] != fx || nm->verts[3 * u + 2] != fz) continue;
            bool known = false;
            for (uint32_t j = 0; j < count && !known; ++j) known = copies[j] == u;
            if (!known) copies[count++] = u;
        }
    }
    if (count <= 1) return v; /* flagged, but alone here: nothing to choose */
    if (!(nm->h->flags & PTL_NAVMESH_LATTICE_POINTS)) return PTL_NONE;
    /* Grid cell (x, y) first, then the other diagonal neighbours, as DESIGN.md orders them. */
    static const double dirs[4][2] = {{1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
    for (int d = 0; d < 4; ++d) {
        for (uint32_t j = 0; j < count; ++j) {
            uint32_t u = copies[j];
            for (uint32_t k = nm->vcell_start[u]; k < nm->vcell_start[u + 1]; ++k)
                if (cell_holds_direction(nm, nm->vcell[k], u, dirs[d][0], dirs[d][1])) return u;
        }
    }
    return PTL_NONE;
}

/* Sorts the located point into cell / edge / vertex and fills the cell set. */
static void classify(ptl_query* q, const candidate* cand, bool snapped, ptl_qpoint* out) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_cell* c = &nm->cells[cand->cell];
    const uint32_t* cv = nm->cell_verts + c->first;
    const uint32_t* cn = nm->cell_nbrs + c->first;
    uint32_t n = c->vert_count;
    double x = cand->x, z = cand->z, tol2 = q->loc_eps * q->loc_eps;
    out->x = x, out->z = z, out->y = cand->y;
    out->cell = cand->cell;
    out->edge = PTL_NONE;
    out->vert = PTL_NONE;
    out->ambiguous = false;
    if (cand->deep && !snapped) {
        /* within eps of no vertex and no edge (cell_contains), and inside: the cell alone */
        out->kind = PTL_QPOINT_CELL;
        out->pair[0] = cand->cell;
        out->cells = out->pair;
        out->cell_count = 1;
        return;
    }
    uint32_t near_v = PTL_NONE;
    double near_d2 = tol2;
    for (uint32_t i = 0; i < n; ++i) {
        double dx = ptl_nm_vx(nm, cv[i]) - x, dz = ptl_nm_vz(nm, cv[i]) - z;
        double d2 = dx * dx + dz * dz;
        if (d2 <= near_d2) near_d2 = d2, near_v = cv[i];
    }
    if (near_v != PTL_NONE && near_d2 > 0) {
        /* A vertex of a cell around that one may be nearer still, the point itself (a pinch copy,
           or a corner beside a short edge): the point is the nearest vertex, not the first cell's. */
        const uint32_t u0 = near_v;
        for (uint32_t k = nm->vcell_start[u0]; k < nm->vcell_start[u0 + 1]; ++k) {
            const ptl_blob_cell* o = &nm->cells[nm->vcell[k]];
            for (uint32_t i = 0; i < o->vert_count; ++i) {
                const uint32_t u = nm->cell_verts[o->first + i];
                double dx = ptl_nm_vx(nm, u) - x, dz = ptl_nm_vz(nm, u) - z;
                double d2 = dx * dx + dz * dz;
                if (d2 < near_d2) near_d2 = d2, near_v = u;
            }
        }
    }
    if (near_v != PTL_NONE) {
        uint32_t v = near_v;
        if (nm->vert_flags[v] & PTL_VERT_PINCH) {
            uint32_t r = resolve_pinch(nm, v);
            if (r == PTL_NONE) out->ambiguous = true;
            else v = r;
        }
        out->kind = PTL_QPOINT_VERTEX;
        out->vert = v;
        out->cells = nm->vcell + nm->vcell_start[v];
        out->cell_count = nm->vcell_start[v + 1] - nm->vcell_start[v];
        out->cell = out->cells[0];
        /* The point is the vertex, snapped or not: the searches take a vertex point's cells and
           label (hubs) from the vertex, so its coordinates must be the vertex's too. Kept within
           the tolerance away, a path would start beside the corner it is said to start at (on a
           wall, or just inside one) and the searches disagree about what it sees. */
        out->x = ptl_nm_vx(nm, v), out->z = ptl_nm_vz(nm, v), out->y = nm->verts[3 * v + 1];
        return;
    }
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t a = cv[i], b = cv[i + 1 == n ? 0 : i + 1];
        double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a);
        double ex = ptl_nm_vx(nm, b) - ax, ez = ptl_nm_vz(nm, b) - az;
        double len2 = ex * ex + ez * ez;
        double cross = ex * (z - az) - ez * (x - ax);
        if (cross * cross > tol2 * len2) continue;
        double t = ((x - ax) * ex + (z - az) * ez) / len2;
        if (!(t > 0 && t < 1)) continue;
        out->kind = PTL_QPOINT_EDGE;
        out->edge = i;
        out->pair[0] = cand->cell;
        out->pair[1] = cn[i];
        out->cells = out->pair;
        out->cell_count = cn[i] == PTL_NONE ? 1 : 2;
        /* Likewise a point said to be on the edge is on its line: one within the tolerance beside
           it moves onto it (a point exactly on it stays, unrounded). */
        if (snapped || cross != 0) out->x = ax + t * ex, out->z = az + t * ez;
        return;
    }
    if (!snapped && !(cand->holds >= 0 ? cand->holds : cell_holds(q, cand->cell, x, z))) {
        /* Within the tolerance of the cell near a corner, but neither inside it nor near enough to
           an edge or a vertex to be put on it: put it on the cell's nearest point (on its
           boundary) and sort that. */
        const double all[4] = {-INFINITY, INFINITY, -INFINITY, INFINITY};
        candidate on = *cand;
        on.deep = false;
        nearest_in_box(q, cand->cell, x, z, all, &on.x, &on.z);
        classify(q, &on, true, out);
        return;
    }
    out->kind = PTL_QPOINT_CELL;
    out->pair[0] = cand->cell;
    out->cells = out->pair;
    out->cell_count = 1;
}

ptl_status ptl_query_locate_point(ptl_query* q, const float p[3], const float extents[3], ptl_qpoint* out) {
    double ext[3];
    out->ambiguous = false;
    out->cell = PTL_NONE;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || !resolve_extents(extents, ext))
        return PTL_ERR_INVALID_ARG;
    candidate best;
    bool snapped = false;
    /* The occupancy mask (no cell can give a point there) first at p's own column, where a cell
       holding p would lie, then over the whole box. */
    const double x = p[0], y = p[1], z = p[2];
    const uint32_t bands = q->occ_on ? ptl_query_occ_bands(q, y - ext[1], y + ext[1]) : 0;
    if (!ptl_query_occ_point(q, x, z, bands) || !find_containing(q, p, ext[1], &best)) {
        if (!ptl_query_occ_box(q, x - ext[0], x + ext[0], z - ext[2], z + ext[2], bands)) return PTL_ERR_NOT_FOUND;
        if (!find_nearest(q, p, ext, &best)) return PTL_ERR_NOT_FOUND;
        snapped = best.d2 > 0;
    }
    classify(q, &best, snapped, out);
    if (q->any_off && !ptl_query_filter_point(q, out)) return PTL_ERR_NOT_FOUND; /* every cell at it excluded */
    double dx = out->x - p[0], dy = (double)out->y - p[1], dz = out->z - p[2];
    out->distance = (float)sqrt(dx * dx + dy * dy + dz * dz);
    return out->ambiguous ? PTL_ERR_NOT_FOUND : PTL_OK;
}

ptl_status ptl_query_locate(ptl_query* q, const float p[3], const float extents[3], ptl_location* out) {
    if (!out) return PTL_ERR_INVALID_ARG;
    out->cell = PTL_NONE;
    out->point[0] = out->point[1] = out->point[2] = 0;
    out->distance = 0;
    if (!q || !p) return PTL_ERR_INVALID_ARG;
    ptl_qpoint qp;
    ptl_status s = ptl_query_locate_point(q, p, extents, &qp);
    /* An ambiguous pinch point is still a point of the mesh: report it with the cell it was found in. */
    if (s < 0 && !(s == PTL_ERR_NOT_FOUND && qp.ambiguous)) return s;
    out->cell = qp.cell;
    out->point[0] = (float)qp.x, out->point[1] = qp.y, out->point[2] = (float)qp.z;
    out->distance = qp.distance;
    return PTL_OK;
}

void ptl_query_vertex_point(const ptl_navmesh* nm, uint32_t v, ptl_qpoint* out) {
    memset(out, 0, sizeof *out);
    out->kind = PTL_QPOINT_VERTEX;
    out->x = ptl_nm_vx(nm, v), out->z = ptl_nm_vz(nm, v), out->y = nm->verts[3 * v + 1];
    out->vert = v;
    out->cells = nm->vcell + nm->vcell_start[v];
    out->cell_count = nm->vcell_start[v + 1] - nm->vcell_start[v];
    out->cell = out->cell_count ? out->cells[0] : PTL_NONE;
}
