/* Partial paths: when the goal cannot be reached, the point of the start's piece of walkable space
   (navmesh cell_piece: the cells joined to the start's through portals) nearest the goal, in plan
   (x-z); among points equally near in plan (a floor under an unreachable roof), the one whose
   surface height is nearest the goal's. Brute force over the piece's cells (navmesh piece_cells;
   a convex polygon's nearest point: the goal itself inside it, else the nearest point of its
   edges), skipping a cell whose box is farther than the best so far; this allocates nothing. Link
   cells (gaps) are never the end. */
#include <math.h>
#include <string.h>

#include "query_internal.h"

/* The nearest point of cell c to (gx, gz) in plan: written to (*x, *z); returns the squared distance.
   The cell's vertices are read from the query's slots (the same floats as the navmesh's vertices,
   one run per cell, without the vertex ids' indirection). */
static double nearest_in_cell(const ptl_query* q, uint32_t c, double gx, double gz, double* x, double* z) {
    const ptl_blob_cell* cell = &q->nm->cells[c];
    const ptl_slot* sl = q->slots + cell->first;
    const uint32_t n = cell->vert_count;
    bool inside = true;
    double best = INFINITY;
    double ax = sl[0].x, az = sl[0].z;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t i1 = i + 1 == n ? 0 : i + 1;
        const double bx = sl[i1].x, bz = sl[i1].z, ex = bx - ax, ez = bz - az;
        if (ex * (gz - az) - ez * (gx - ax) < 0) inside = false;
        double l2 = ex * ex + ez * ez, t = l2 > 0 ? ((gx - ax) * ex + (gz - az) * ez) / l2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        /* an end of the edge exactly, so that a vertex is found as the vertex */
        double px = t == 0 ? ax : t == 1 ? bx : ax + t * ex, pz = t == 0 ? az : t == 1 ? bz : az + t * ez;
        double d = (px - gx) * (px - gx) + (pz - gz) * (pz - gz);
        if (d < best) best = d, *x = px, *z = pz;
        ax = bx, az = bz;
    }
    if (inside) *x = gx, *z = gz, best = 0;
    return best;
}

/* For filter.c (kept apart so that the loop below keeps its inlined copy). */
double ptl_query_nearest_in_cell(const ptl_query* q, uint32_t c, double gx, double gz, double* x, double* z) {
    return nearest_in_cell(q, c, gx, gz, x, z);
}

/* The best point so far. */
typedef struct best {
    uint32_t c;
    double d, dy, x, z;
} best;

/* Scans the cells piece_cells[from .. to) for a point nearer the goal than b's. */
static inline void scan(const ptl_query* q, uint32_t from, uint32_t to, const float goal[3], best* b) {
    const ptl_navmesh* nm = q->nm;
    const double gx = goal[0], gz = goal[2], tie = q->eps * q->eps;
    for (uint32_t pi = from; pi < to; ++pi) {
        const uint32_t c = nm->piece_cells[pi];
        /* a cell whose box (q->cell_box: it holds the cell) is farther than the best cannot hold a
           nearer point */
        const double* box = q->cell_box + 4 * (size_t)c;
        const double ox = gx < box[0] ? box[0] - gx : gx > box[1] ? gx - box[1] : 0;
        const double oz = gz < box[2] ? box[2] - gz : gz > box[3] ? gz - box[3] : 0;
        if (ox * ox + oz * oz > b->d + tie || ptl_nm_is_link(nm, c)) continue;
        double x = gx, z = gz, d = nearest_in_cell(q, c, gx, gz, &x, &z);
        if (d > b->d + tie) continue;
        /* heights only to break a tie in plan (the best's own taken when it first meets one) */
        double dy = INFINITY;
        if (d >= b->d - tie) {
            if (isinf(b->dy)) b->dy = fabs((double)ptl_query_cell_y(nm, b->c, b->x, b->z) - goal[1]);
            dy = fabs((double)ptl_query_cell_y(nm, c, x, z) - goal[1]);
            if (dy >= b->dy) continue;
        }
        b->c = c, b->d = d, b->dy = dy, b->x = x, b->z = z;
    }
}

ptl_status ptl_query_nearest_reachable(ptl_query* q, const ptl_qpoint* s, const float goal[3], ptl_qpoint* out) {
    if (q->any_off) return ptl_query_filter_nearest_reachable(q, s, goal, out); /* pieces are the unfiltered mesh's */
    const ptl_navmesh* nm = q->nm;
    best b = {PTL_NONE, INFINITY, INFINITY, 0, 0};
    /* With off-mesh links, every piece joined to the start's by links (navmesh piece_group). */
    const uint32_t* group = nm->piece_group;
    for (uint32_t k = 0; k < s->cell_count; ++k) {
        const uint32_t piece = nm->cell_piece[s->cells[k]];
        bool again = false; /* a start on a pinch: each of its pieces once */
        for (uint32_t j = 0; j < k && !again; ++j)
            again = group ? group[nm->cell_piece[s->cells[j]]] == group[piece] : nm->cell_piece[s->cells[j]] == piece;
        if (again) continue;
        if (!group) {
            scan(q, nm->piece_first[piece], nm->piece_first[piece + 1], goal, &b);
            continue;
        }
        for (uint32_t p = 0; p < nm->piece_count; ++p)
            if (group[p] == group[piece]) scan(q, nm->piece_first[p], nm->piece_first[p + 1], goal, &b);
    }
    const uint32_t best_c = b.c;
    const double bx = b.x, bz = b.z;
    if (best_c == PTL_NONE) return PTL_ERR_NOT_FOUND;
    /* The nearest point of the piece to a goal outside it lies on the piece's boundary (a wall or a
       ledge of best_c, or a corner): a point of that cell, which the search can end at. */
    ptl_qpoint_in_cell(out, best_c, bx, ptl_query_cell_y(nm, best_c, bx, bz), bz);
    return PTL_OK;
}
