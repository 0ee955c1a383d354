/* Partial paths: when the goal cannot be reached, the point of the start's piece of walkable space
   (navmesh cell_piece: the cells joined to the start's through portals) nearest the goal, in plan
   (x-z); among points equally near in plan (a floor under an unreachable roof), the one whose
   surface height is nearest the goal's. Brute force over the piece's cells (a convex polygon's
   nearest point: the goal itself inside it, else the nearest point of its edges): a partial path
   is the exception, and this allocates nothing. Link cells (gaps) are never the end. */
#include <math.h>
#include <string.h>

#include "query_internal.h"

/* The nearest point of cell c to (gx, gz) in plan: written to (*x, *z); returns the squared distance. */
static double nearest_in_cell(const ptl_navmesh* nm, uint32_t c, double gx, double gz, double* x, double* z) {
    const ptl_blob_cell* cell = &nm->cells[c];
    const uint32_t* cv = nm->cell_verts + cell->first;
    bool inside = true;
    double best = INFINITY;
    for (uint32_t i = 0; i < cell->vert_count; ++i) {
        uint32_t a = cv[i], b = cv[i + 1 == cell->vert_count ? 0 : i + 1];
        double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a), ex = ptl_nm_vx(nm, b) - ax, ez = ptl_nm_vz(nm, b) - az;
        if (ex * (gz - az) - ez * (gx - ax) < 0) inside = false;
        double l2 = ex * ex + ez * ez, t = l2 > 0 ? ((gx - ax) * ex + (gz - az) * ez) / l2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        /* an end of the edge exactly, so that a vertex is found as the vertex */
        double px = t == 0 ? ax : t == 1 ? ptl_nm_vx(nm, b) : ax + t * ex, pz = t == 0 ? az : t == 1 ? ptl_nm_vz(nm, b) : az + t * ez;
        double d = (px - gx) * (px - gx) + (pz - gz) * (pz - gz);
        if (d < best) best = d, *x = px, *z = pz;
    }
    if (inside) *x = gx, *z = gz, best = 0;
    return best;
}

static bool in_pieces(const ptl_navmesh* nm, const ptl_qpoint* s, uint32_t c) {
    for (uint32_t k = 0; k < s->cell_count; ++k)
        if (nm->cell_piece[s->cells[k]] == nm->cell_piece[c]) return true;
    return false;
}

ptl_status ptl_query_nearest_reachable(ptl_query* q, const ptl_qpoint* s, const float goal[3], ptl_qpoint* out) {
    const ptl_navmesh* nm = q->nm;
    const double gx = goal[0], gz = goal[2];
    uint32_t best_c = PTL_NONE;
    double best_d = INFINITY, best_dy = INFINITY, bx = 0, bz = 0;
    const double tie = q->eps * q->eps;
    for (uint32_t c = 0; c < nm->h->cell_count; ++c) {
        if (ptl_nm_is_link(nm, c) || !in_pieces(nm, s, c)) continue;
        double x = gx, z = gz, d = nearest_in_cell(nm, c, gx, gz, &x, &z);
        if (d > best_d + tie) continue;
        double dy = fabs((double)ptl_query_cell_y(nm, c, x, z) - goal[1]);
        if (d >= best_d - tie && dy >= best_dy) continue;
        best_c = c, best_d = d, best_dy = dy, bx = x, bz = z;
    }
    if (best_c == PTL_NONE) return PTL_ERR_NOT_FOUND;
    /* Located as a query point (its kind: inside, on an edge, on a vertex), in the box of a float
       step or two around it and a cell height or so (another floor is farther than that) */
    const float p[3] = {(float)bx, ptl_query_cell_y(nm, best_c, bx, bz), (float)bz};
    const double step = 4 * q->loc_eps;
    const float ext[3] = {(float)step, nm->h->vox_ch > 0 ? 0.5f * nm->h->vox_ch : 0.01f, (float)step};
    ptl_status st = ptl_query_locate_point(q, p, ext, out);
    if (st == PTL_OK && out->cell_count && in_pieces(nm, s, out->cell)) return PTL_OK;
    /* not found there (rounding, a pinch): the point as a point of its cell */
    memset(out, 0, sizeof *out);
    out->x = bx, out->z = bz, out->y = p[1];
    out->kind = PTL_QPOINT_CELL;
    out->cell = out->pair[0] = best_c;
    out->cells = out->pair;
    out->cell_count = 1;
    return PTL_OK;
}
