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
#include "offmesh.h"
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

/* The corridor's heuristic from (x, z): the straight line to the goal, or with off-mesh links the
   smaller of that and, over the links that may beat it (offmesh_search.c, q->om_useful), the line
   to a link's start plus its bound k. Scaled by the least cost of an included area (filter.c); with
   links by no more than 1, since a link's cost is not weighed. */
static double heuristic(const ptl_query* q, double x, double z, const ptl_qpoint* t) {
    double h = sqrt((t->x - x) * (t->x - x) + (t->z - z) * (t->z - z));
    if (q->om_on && q->om_useful_count) {
        const double* u = q->om_useful;
        for (uint32_t i = 0; i < q->om_useful_count; ++i, u += 3)
            if (u[2] < h) h = fmin(h, u[2] + sqrt((u[0] - x) * (u[0] - x) + (u[1] - z) * (u[1] - z)));
        return fmin(q->h_scale, 1.0) * h;
    }
    return q->h_scale * h;
}

static void open_cell(ptl_query* q, uint32_t c, double g, double x, double z, uint32_t parent, uint32_t edge,
                      uint32_t arc, const ptl_qpoint* t, uint32_t stamp) {
    ptl_ccell* cc = &q->cc[c];
    bool fresh = cc->stamp != stamp;
    cc->stamp = stamp;
    cc->g = g;
    cc->f = g + heuristic(q, x, z, t); /* filter.c: the least cost */
    cc->arc = arc;
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

/* The height of a corner of the funnel's path (not its start or goal): its vertex's, or the end
   cell's floor there. */
static float corner_y(const ptl_navmesh* nm, const ptl_funnel_point* p, uint32_t end_cell) {
    return p->vert != PTL_NONE ? nm->verts[3 * p->vert + 1] : ptl_query_cell_y(nm, end_cell, p->x, p->z);
}

/* A point of the corridor's path: where a leg starts or ends (the start, the goal, an off-mesh
   link's ends). */
typedef struct leg_end {
    double x, z;
    float y;
} leg_end;

/* The path written so far: points (res, up to its capacity), their count, the length. */
typedef struct path_out {
    ptl_path_result* res;
    uint32_t total;
    double length;
    float prev_y;
    double prev_x, prev_z;
} path_out;

/* Appends the funnel's path through `count` portals from a to b (one leg: the whole path, or the
   part between the start, links' ends and the goal), b in cell end_cell; b's point gets `flag`
   (PTL_PATH_POINT_OFFMESH where a link starts) and the link's cost, when b is not the goal, counts
   for the way on to the next leg's start. */
static void put_leg(ptl_query* q, const ptl_funnel_portal* portals, uint32_t count, const leg_end* a, const leg_end* b,
                    uint32_t end_cell, uint8_t flag, path_out* o) {
    const ptl_navmesh* nm = q->nm;
    double start[2] = {a->x, a->z}, goal[2] = {b->x, b->z};
    /* At most one corner per portal, plus the two ends: the buffer always holds the leg. */
    ptl_funnel_point* pts = q->fpoints;
    uint32_t total = ptl_funnel(portals, count, start, goal, pts, nm->h->cell_count + 2);
    /* Corners that do not turn (exactly on the straight line between their neighbours, going on,
       at the same height) are left out, as the exact search does: the funnel keeps a corner at each
       portal end the path touches, and a path along aligned obstacle corners touches several. */
    if (total > 2) {
        uint32_t kept = 1;
        for (uint32_t k = 1; k + 1 < total; ++k) {
            const ptl_funnel_point *pa = &pts[kept - 1], *pb = &pts[k], *pc = &pts[k + 1];
            bool straight = (pb->x - pa->x) * (pc->z - pa->z) - (pb->z - pa->z) * (pc->x - pa->x) == 0 &&
                            (pb->x - pa->x) * (pc->x - pb->x) + (pb->z - pa->z) * (pc->z - pb->z) > 0;
            if (straight) {
                const float ya = kept == 1 ? a->y : corner_y(nm, pa, end_cell), yb = corner_y(nm, pb, end_cell);
                const float yc = k + 2 == total ? b->y : corner_y(nm, pc, end_cell);
                straight = ya == yb && yb == yc;
            }
            if (!straight) pts[kept++] = *pb;
        }
        pts[kept++] = pts[total - 1];
        total = kept;
    }
    /* Length of the polyline, heights included (as the exact search reports it). A leg of one
       point (a link starting where the last one ended) still writes its point: links' ends are
       never merged. */
    ptl_path_result* res = o->res;
    for (uint32_t k = 0; k < total; ++k) {
        float y;
        if (k == 0) y = a->y;
        else if (k + 1 == total) y = b->y;
        else y = corner_y(nm, &pts[k], end_cell);
        if (k > 0) {
            double dx = pts[k].x - o->prev_x, dz = pts[k].z - o->prev_z, dy = (double)y - o->prev_y;
            o->length += sqrt(dx * dx + dz * dz + dy * dy);
        }
        o->prev_x = pts[k].x, o->prev_z = pts[k].z, o->prev_y = y;
        if (o->total < res->point_capacity) {
            float* out = res->points + 3 * (size_t)o->total;
            out[0] = (float)pts[k].x, out[1] = y, out[2] = (float)pts[k].z;
            if (res->flags) res->flags[o->total] = k + 1 == total ? flag : 0;
        }
        ++o->total;
    }
}

/* Writes the funnel's path through the portals of the corridor ending at `goal_cell`: one leg, or
   with off-mesh links one leg per stretch between them (a cell entered by a link: ccell.arc). */
static ptl_status write_path(ptl_query* q, uint32_t goal_cell, const ptl_qpoint* s, const ptl_qpoint* t,
                             ptl_path_result* res) {
    const ptl_navmesh* nm = q->nm;
    /* The chain of cells from the goal's back to the start's (the open list's array is free now). */
    uint32_t* chain = q->cheap;
    uint32_t n = 0;
    for (uint32_t c = goal_cell; c != PTL_NONE; c = q->cc[c].parent) chain[n++] = c;
    path_out o = {res, 0, 0, s->y, s->x, s->z};
    leg_end a = {s->x, s->z, s->y};
    uint32_t i = n - 1; /* the leg's first cell, chain[i] */
    for (;;) {
        /* The leg runs from chain[i] to chain[j]: the goal's cell, or the cell a link leaves. */
        uint32_t j = i;
        while (j > 0 && q->cc[chain[j - 1]].arc == PTL_NONE) --j;
        uint32_t count = 0;
        for (uint32_t k = i; k > j; --k) {
            const uint32_t p = chain[k], c = chain[k - 1];
            const ptl_blob_cell* pc = &nm->cells[p];
            uint32_t e = q->cc[c].edge, e1 = e + 1 == pc->vert_count ? 0 : e + 1;
            /* Crossing edge e of the parent (counter-clockwise there) from the parent's side: its
               end e + 1 is on the traveller's left. */
            uint32_t va = nm->cell_verts[pc->first + e], vb = nm->cell_verts[pc->first + e1];
            ptl_funnel_portal* fp = &q->portals[count++];
            fp->left[0] = ptl_nm_vx(nm, vb), fp->left[1] = ptl_nm_vz(nm, vb), fp->left_vert = vb;
            fp->right[0] = ptl_nm_vx(nm, va), fp->right[1] = ptl_nm_vz(nm, va), fp->right_vert = va;
        }
        if (j == 0) {
            const leg_end b = {t->x, t->z, t->y};
            put_leg(q, q->portals, count, &a, &b, goal_cell, 0, &o);
            break;
        }
        const ptl_om_end *from, *to;
        const ptl_om_link* l = ptl_om_arc(nm, q->cc[chain[j - 1]].arc, &from, &to);
        const leg_end b = {from->x, from->z, from->y};
        put_leg(q, q->portals, count, &a, &b, chain[j], PTL_PATH_POINT_OFFMESH, &o);
        /* the link: its cost, then the next leg from its end */
        o.length += l->cost;
        a = (leg_end){to->x, to->z, to->y};
        o.prev_x = to->x, o.prev_z = to->z, o.prev_y = to->y;
        i = j - 1;
    }
    res->point_total = o.total;
    res->point_count = o.total < res->point_capacity ? o.total : res->point_capacity;
    res->length = o.length;
    res->found = res->complete = true;
    res->goal_cell = goal_cell;
    return res->point_count < o.total ? PTL_TRUNCATED : PTL_OK;
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

/* Does a cell of s lie in the piece (or the group of pieces joined by links) of a cell of t? */
static bool ends_share_piece(const ptl_navmesh* nm, const ptl_qpoint* s, const ptl_qpoint* t) {
    for (uint32_t i = 0; i < s->cell_count; ++i)
        for (uint32_t j = 0; j < t->cell_count; ++j)
            if (ptl_nm_same_piece(nm, s->cells[i], t->cells[j])) return true;
    return false;
}

/* Is entering cell d at (x, z) with cost g better than its entry so far? Entries at different
   points compare by g alone (a heuristic measure, above), except in a cell holding the goal, where
   the cost on to the goal is known: the straight line in the convex cell. (A link landing in the
   goal's cell far from the goal has a small g and a long way on.) */
static bool better(const ptl_query* q, uint32_t d, double g, double x, double z, const ptl_qpoint* t, uint32_t stamp) {
    const ptl_ccell* cd = &q->cc[d];
    if (q->goal_stamp[d] != stamp) return g < cd->g;
    const double cost = ptl_query_cell_cost(q, d);
    const double on = sqrt((t->x - x) * (t->x - x) + (t->z - z) * (t->z - z));
    const double was = sqrt((t->x - cd->x) * (t->x - cd->x) + (t->z - cd->z) * (t->z - cd->z));
    return g + cost * on < cd->g + cost * was;
}

/* A* over the cells from s to t (ccell entries, q->cheap); with q->om_on also through the off-mesh
   links that start in a cell it expands (a link's end cell entered at the end's point, ccell.arc
   the arc). Returns the goal's cell reached, or PTL_NONE. */
static uint32_t corridor_cells(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, double radius,
                               uint32_t* expanded_out) {
    const ptl_navmesh* nm = q->nm;
    const bool links = q->om_on;
    /* 2 r less the checks' tolerance (a squeeze exactly 2 r wide passes within float steps) */
    const double min_w = radius > 0 ? fmax(0, 2 * radius - 8 * q->eps) : 0, min_w2 = min_w * min_w;
    uint32_t stamp = ptl_query_next_stamp(q);
    for (uint32_t i = 0; i < t->cell_count; ++i) q->goal_stamp[t->cells[i]] = stamp;
    q->cheap_count = 0;
    ptl_pocket_ends pk;
    /* (pockets describe the mesh without links: a link may lead into one) */
    const bool pockets = q->use_pockets && !links;
    if (pockets) ptl_query_pocket_ends(q, s, t, &pk);
    for (uint32_t i = 0; i < s->cell_count; ++i) {
        uint32_t c = s->cells[i];
        if (q->cc[c].stamp != stamp) open_cell(q, c, 0, s->x, s->z, PTL_NONE, 0, PTL_NONE, t, stamp);
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
            if (q->dead_end[d] && q->goal_stamp[d] != stamp && !(links && ptl_om_cell_has_arcs(nm, d))) continue;
            if (pockets && ptl_nm_cell_skips(nm, d, &pk)) continue;
            uint32_t j1 = j + 1 == cell->vert_count ? 0 : j + 1;
            if (min_w2 > 0 && !ptl_query_portal_wide(q, cv[j], cv[j1], min_w2)) continue;
            double x, z;
            portal_point(cc->x, cc->z, t->x, t->z, ptl_nm_vx(nm, cv[j]), ptl_nm_vz(nm, cv[j]), ptl_nm_vx(nm, cv[j1]),
                         ptl_nm_vz(nm, cv[j1]), &x, &z);
            double g = cc->g + cost * sqrt((x - cc->x) * (x - cc->x) + (z - cc->z) * (z - cc->z));
            if (cd->stamp == stamp && !better(q, d, g, x, z, t, stamp)) continue;
            open_cell(q, d, g, x, z, c, j, PTL_NONE, t, stamp);
        }
        if (!links || !ptl_om_cell_has_arcs(nm, c)) continue;
        /* The links from this cell: the way to the link's start (straight, the cell is convex),
           the link's own cost (area costs do not weigh it), on from its end. */
        for (uint32_t k = nm->om_cell_start[c]; k < nm->om_cell_start[c + 1]; ++k) {
            const uint32_t arc = nm->om_cell_arcs[k];
            if (ptl_om_link_filtered(q, arc)) continue;
            const ptl_om_end *from, *to;
            const ptl_om_link* l = ptl_om_arc(nm, arc, &from, &to);
            const uint32_t d = to->cell;
            ptl_ccell* cd = &q->cc[d];
            if (cd->stamp == stamp && cd->closed) continue;
            double g = cc->g + cost * sqrt((from->x - cc->x) * (from->x - cc->x) + (from->z - cc->z) * (from->z - cc->z)) +
                       l->cost;
            if (cd->stamp == stamp && !better(q, d, g, to->x, to->z, t, stamp)) continue;
            open_cell(q, d, g, to->x, to->z, c, 0, arc, t, stamp);
        }
    }
    *expanded_out = expanded;
    return PTL_NONE;
}

uint32_t ptl_query_corridor_cells(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, double radius,
                                  uint32_t* expanded_out) {
    q->om_on = false; /* a disc's corridor: no links (runtime.h) */
    return corridor_cells(q, s, t, radius, expanded_out);
}

uint32_t ptl_query_disc_link_route(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, double radius,
                                   uint32_t* arcs, uint32_t cap, uint32_t* expanded) {
    const uint32_t goal = corridor_cells(q, s, t, radius, expanded);
    if (goal == PTL_NONE) return PTL_NONE;
    uint32_t n = 0;
    for (uint32_t c = goal; c != PTL_NONE; c = q->cc[c].parent) {
        if (q->cc[c].arc == PTL_NONE) continue;
        if (n == cap) return PTL_NONE;
        arcs[n++] = q->cc[c].arc;
    }
    for (uint32_t i = 0; i < n / 2; ++i) {
        const uint32_t a = arcs[i];
        arcs[i] = arcs[n - 1 - i], arcs[n - 1 - i] = a;
    }
    return n;
}

ptl_status ptl_query_corridor(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, ptl_path_result* res) {
    /* off-mesh links (offmesh_search.c): q->om_on and their bounds toward t */
    q->om_on = false, q->om_useful_count = 0;
    if (q->nm->om_live || q->om_gen != q->nm->om_gen) {
        ptl_status st = ptl_om_begin(q, t);
        if (st < 0) return st;
    }
    uint32_t stamp = ptl_query_next_stamp(q);
    for (uint32_t i = 0; i < t->cell_count; ++i) q->goal_stamp[t->cells[i]] = stamp;
    for (uint32_t i = 0; i < s->cell_count; ++i) {
        if (q->goal_stamp[s->cells[i]] == stamp && !(q->om_on && ptl_om_may_beat(q, s, t))) {
            res->goal_cell = s->cells[i];
            return ptl_query_straight(s, t, res);
        }
    }
    /* No cell of the start in a piece (or a group of pieces joined by links) of the goal's: the
       search could only flood the start's piece to learn that (the exact search's check, taken
       over every cell of both ends, so a start on a pinch between pieces keeps its way). */
    if (t->cell_count && !ends_share_piece(q->nm, s, t)) return PTL_PARTIAL;
    uint32_t expanded = 0, goal = corridor_cells(q, s, t, 0, &expanded);
    res->nodes_expanded = expanded;
    return goal == PTL_NONE ? PTL_PARTIAL : write_path(q, goal, s, t, res);
}
