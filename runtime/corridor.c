/* The corridor search (PTL_PATH_CORRIDOR): A* over the cells, then the funnel over the portals of
   the cell sequence it found. Faster than the exact search on open maps, never shorter, and
   usually within a few percent (the corridor A* picks may not hold the shortest path).

   Costs are measured through points: each cell is entered at one point of the portal it was
   reached through, the point of that portal nearest to the straight way from the previous entry
   point to the goal (the shortest path entry -> portal -> goal, as in Polyanya's heuristic). g is
   the length of the polyline of entry points, h the straight line from the entry point to the
   goal; h is consistent with these costs, and a cell is expanded once (closed set, no reopening:
   the entry point of a cell depends on the way it was reached, so its g is a heuristic measure in
   any case). With a query filter that weighs areas (filter.c) each step costs its length times the
   cost of the cell it crosses (the cell left), and h is the straight line times the least cost of
   an included area, so that it stays a lower bound of the weighted cost (Detour's A* with a
   dtQueryFilter does the same with its heuristic scale). */
#include <math.h>

#include "interval.h"
#include "query_internal.h"

/* ---- Open list: a binary min-heap of cells on cc[c].f, with decrease-key ---------------------- */

static void sift_up(ptl_query* q, uint32_t i) {
    uint32_t* h = q->cheap;
    ptl_ccell* cc = q->cc;
    uint32_t c = h[i];
    double f = cc[c].f;
    while (i > 0) {
        uint32_t p = (i - 1) >> 1;
        if (cc[h[p]].f <= f) break;
        h[i] = h[p];
        cc[h[i]].heap_pos = i;
        i = p;
    }
    h[i] = c;
    cc[c].heap_pos = i;
}

static uint32_t pop_min(ptl_query* q) {
    uint32_t* h = q->cheap;
    ptl_ccell* cc = q->cc;
    uint32_t top = h[0];
    cc[top].heap_pos = PTL_NONE;
    uint32_t n = --q->cheap_count;
    if (n == 0) return top;
    uint32_t last = h[n];
    double f = cc[last].f;
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && cc[h[c + 1]].f < cc[h[c]].f) ++c;
        if (cc[h[c]].f >= f) break;
        h[i] = h[c];
        cc[h[i]].heap_pos = i;
        i = c;
    }
    h[i] = last;
    cc[last].heap_pos = i;
    return top;
}

/* The point x of segment [a, b] minimising |p - x| + |x - g|: reflect g across the segment's line
   when it is on p's side, meet the line p-g', clamp to the segment. */
static void portal_point(double px, double pz, double gx, double gz, double ax, double az, double bx, double bz,
                         double* ox, double* oz) {
    double dx = bx - ax, dz = bz - az;
    ptl_iv_reflect(px, pz, &gx, &gz, ax, az, bx, bz);
    double ex = gx - px, ez = gz - pz;
    double denom = dx * ez - dz * ex;
    double u;
    if (denom != 0) {
        u = ((px - ax) * ez - (pz - az) * ex) / denom;
    } else {
        /* Parallel: the end nearer to p. */
        double da = (ax - px) * (ax - px) + (az - pz) * (az - pz), db = (bx - px) * (bx - px) + (bz - pz) * (bz - pz);
        u = da <= db ? 0 : 1;
    }
    if (!(u > 0)) *ox = ax, *oz = az;
    else if (!(u < 1)) *ox = bx, *oz = bz;
    else *ox = ax + u * dx, *oz = az + u * dz;
}

static void open_cell(ptl_query* q, uint32_t c, double g, double x, double z, uint32_t parent, uint32_t edge,
                      const ptl_qpoint* t, uint32_t stamp) {
    ptl_ccell* cc = &q->cc[c];
    bool fresh = cc->stamp != stamp;
    cc->stamp = stamp;
    cc->g = g;
    cc->f = g + q->h_scale * sqrt((t->x - x) * (t->x - x) + (t->z - z) * (t->z - z)); /* filter.c: the least cost */
    cc->x = x, cc->z = z;
    cc->parent = parent;
    cc->edge = (uint16_t)edge;
    if (fresh) {
        cc->closed = 0;
        cc->heap_pos = q->cheap_count++;
        q->cheap[cc->heap_pos] = c;
    }
    sift_up(q, cc->heap_pos);
}

/* The height of a corner of the funnel's path (not its start or goal): its vertex's, or the goal
   cell's floor there. */
static float corner_y(const ptl_navmesh* nm, const ptl_funnel_point* p, uint32_t goal_cell) {
    return p->vert != PTL_NONE ? nm->verts[3 * p->vert + 1] : ptl_query_cell_y(nm, goal_cell, p->x, p->z);
}

/* Writes the funnel's path through the portals of the corridor ending at `goal_cell`. */
static ptl_status write_path(ptl_query* q, uint32_t goal_cell, const ptl_qpoint* s, const ptl_qpoint* t,
                             ptl_path_result* res) {
    const ptl_navmesh* nm = q->nm;
    uint32_t count = 0;
    for (uint32_t c = goal_cell; q->cc[c].parent != PTL_NONE; c = q->cc[c].parent) ++count;
    uint32_t i = count;
    for (uint32_t c = goal_cell; q->cc[c].parent != PTL_NONE; c = q->cc[c].parent) {
        uint32_t p = q->cc[c].parent;
        const ptl_blob_cell* pc = &nm->cells[p];
        uint32_t j = q->cc[c].edge, j1 = j + 1 == pc->vert_count ? 0 : j + 1;
        /* Crossing edge j of the parent (counter-clockwise there) from the parent's side: its end
           j + 1 is on the traveller's left. */
        uint32_t a = nm->cell_verts[pc->first + j], b = nm->cell_verts[pc->first + j1];
        ptl_funnel_portal* fp = &q->portals[--i];
        fp->left[0] = ptl_nm_vx(nm, b), fp->left[1] = ptl_nm_vz(nm, b), fp->left_vert = b;
        fp->right[0] = ptl_nm_vx(nm, a), fp->right[1] = ptl_nm_vz(nm, a), fp->right_vert = a;
    }
    double start[2] = {s->x, s->z}, goal[2] = {t->x, t->z};
    /* At most one corner per portal, plus the two ends: the buffer always holds the whole path. */
    ptl_funnel_point* pts = q->fpoints;
    uint32_t total = ptl_funnel(q->portals, count, start, goal, pts, q->nm->h->cell_count + 2);
    /* Corners that do not turn (exactly on the straight line between their neighbours, going on,
       at the same height) are left out, as the exact search does: the funnel keeps a corner at each
       portal end the path touches, and a path along aligned obstacle corners touches several. */
    if (total > 2) {
        uint32_t kept = 1;
        for (uint32_t k = 1; k + 1 < total; ++k) {
            const ptl_funnel_point *a = &pts[kept - 1], *b = &pts[k], *c = &pts[k + 1];
            bool straight = (b->x - a->x) * (c->z - a->z) - (b->z - a->z) * (c->x - a->x) == 0 &&
                            (b->x - a->x) * (c->x - b->x) + (b->z - a->z) * (c->z - b->z) > 0;
            if (straight) {
                const float ya = kept == 1 ? s->y : corner_y(nm, a, goal_cell), yb = corner_y(nm, b, goal_cell);
                const float yc = k + 2 == total ? t->y : corner_y(nm, c, goal_cell);
                straight = ya == yb && yb == yc;
            }
            if (!straight) pts[kept++] = *b;
        }
        pts[kept++] = pts[total - 1];
        total = kept;
    }
    /* Length of the polyline, heights included (as the exact search reports it). */
    double length = 0;
    float prev_y = s->y;
    res->point_total = total;
    res->point_count = total < res->point_capacity ? total : res->point_capacity;
    for (uint32_t k = 0; k < total; ++k) {
        float y;
        if (k == 0) y = s->y;
        else if (k + 1 == total) y = t->y;
        else y = corner_y(nm, &pts[k], goal_cell);
        if (k > 0) {
            double dx = pts[k].x - pts[k - 1].x, dz = pts[k].z - pts[k - 1].z, dy = (double)y - prev_y;
            length += sqrt(dx * dx + dz * dz + dy * dy);
        }
        prev_y = y;
        if (k < res->point_count) {
            float* out = res->points + 3 * (size_t)k;
            out[0] = (float)pts[k].x, out[1] = y, out[2] = (float)pts[k].z;
        }
    }
    res->length = length;
    res->found = res->complete = true;
    res->goal_cell = goal_cell;
    return res->point_count < total ? PTL_TRUNCATED : PTL_OK;
}

/* Can a disc of radius r (min_w2: about (2 r)^2) cross the portal from vertex a to b? Not where both
   ends lie on walls (the disc keeps r from each) and they are nearer than 2 r. */
bool ptl_query_portal_wide(const ptl_query* q, uint32_t a, uint32_t b, double min_w2) {
    if (q->wall[2 * a] == PTL_NONE && q->wall[2 * a + 1] == PTL_NONE) return true;
    if (q->wall[2 * b] == PTL_NONE && q->wall[2 * b + 1] == PTL_NONE) return true;
    const ptl_navmesh* nm = q->nm;
    double dx = ptl_nm_vx(nm, b) - ptl_nm_vx(nm, a), dz = ptl_nm_vz(nm, b) - ptl_nm_vz(nm, a);
    return dx * dx + dz * dz >= min_w2;
}

uint32_t ptl_query_corridor_cells(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, double radius,
                                  uint32_t* expanded_out) {
    const ptl_navmesh* nm = q->nm;
    /* 2 r less the checks' tolerance (a squeeze exactly 2 r wide passes within float steps) */
    const double min_w = radius > 0 ? fmax(0, 2 * radius - 8 * q->eps) : 0, min_w2 = min_w * min_w;
    uint32_t stamp = ptl_query_next_stamp(q);
    for (uint32_t i = 0; i < t->cell_count; ++i) q->goal_stamp[t->cells[i]] = stamp;
    q->cheap_count = 0;
    ptl_pocket_ends pk;
    if (q->use_pockets) ptl_query_pocket_ends(q, s, t, &pk);
    for (uint32_t i = 0; i < s->cell_count; ++i) {
        uint32_t c = s->cells[i];
        if (q->cc[c].stamp != stamp) open_cell(q, c, 0, s->x, s->z, PTL_NONE, 0, t, stamp);
    }
    uint32_t expanded = 0;
    while (q->cheap_count > 0) {
        uint32_t c = pop_min(q);
        if (q->goal_stamp[c] == stamp) {
            *expanded_out = expanded;
            return c;
        }
        ptl_ccell* cc = &q->cc[c];
        cc->closed = 1;
        ++expanded;
        const ptl_blob_cell* cell = &nm->cells[c];
        const uint32_t* cv = nm->cell_verts + cell->first;
        const ptl_slot* cn = q->slots + cell->first; /* the query filter's neighbours (filter.c) */
        const double cost = ptl_query_cell_cost(q, c);
        for (uint32_t j = 0; j < cell->vert_count; ++j) {
            uint32_t d = cn[j].nbr;
            if (d == PTL_NONE) continue;
            ptl_ccell* cd = &q->cc[d];
            if (cd->stamp == stamp && cd->closed) continue;
            if (q->dead_end[d] && q->goal_stamp[d] != stamp) continue;
            if (q->use_pockets && ptl_nm_cell_skips(nm, d, &pk)) continue;
            uint32_t j1 = j + 1 == cell->vert_count ? 0 : j + 1;
            if (min_w2 > 0 && !ptl_query_portal_wide(q, cv[j], cv[j1], min_w2)) continue;
            double x, z;
            portal_point(cc->x, cc->z, t->x, t->z, ptl_nm_vx(nm, cv[j]), ptl_nm_vz(nm, cv[j]), ptl_nm_vx(nm, cv[j1]),
                         ptl_nm_vz(nm, cv[j1]), &x, &z);
            double g = cc->g + cost * sqrt((x - cc->x) * (x - cc->x) + (z - cc->z) * (z - cc->z));
            if (cd->stamp == stamp && !(g < cd->g)) continue;
            open_cell(q, d, g, x, z, c, j, t, stamp);
        }
    }
    *expanded_out = expanded;
    return PTL_NONE;
}

ptl_status ptl_query_corridor(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, ptl_path_result* res) {
    uint32_t stamp = ptl_query_next_stamp(q);
    for (uint32_t i = 0; i < t->cell_count; ++i) q->goal_stamp[t->cells[i]] = stamp;
    for (uint32_t i = 0; i < s->cell_count; ++i) {
        if (q->goal_stamp[s->cells[i]] == stamp) {
            res->goal_cell = s->cells[i];
            return ptl_query_straight(s, t, res);
        }
    }
    uint32_t expanded = 0, goal = ptl_query_corridor_cells(q, s, t, 0, &expanded);
    res->nodes_expanded = expanded;
    return goal == PTL_NONE ? PTL_PARTIAL : write_path(q, goal, s, t, res);
}
