/* What a point sees over the convex cells: the interval projection of the exact search (Polyanya,
   Cui, Harabor and Grastien 2017, §3.2) with the root fixed. A node is an interval of an edge,
   every point of which is visible from the root; expanding it keeps only the observable successors
   (the parts of the cell's other edges between the rays root->R and root->L) and reports the
   cell's vertices inside the closed cone between the rays: those the root sees. The search never
   turns, so the nodes reached from one point cover exactly the region visible from it.

   Rays that graze a vertex give zero-width intervals, which are dropped: what lies straight beyond a
   grazed corner is reached through that corner (the hub search, hubs.c, turns there by zero).
   Dead-end cells (at most one neighbour) are entered only when they hold the target (a stamped
   cell): a taut path between points outside such a cell never passes through it. Likewise, with
   q->vis_skip_pockets, the cells of the blob's pockets (pockets.c).

   Used by the exact search with hub labels (hubs.c: bounded fronts from the start and the goal)
   and by the bake (bake/cpg/hubs.c: the visibility graph of the corners). */
#include "interval.h"
#include "query_internal.h"

bool ptl_vis_start_on_edge(const ptl_query* q, const ptl_qpoint* s, uint32_t c, uint32_t j, uint32_t a, uint32_t b) {
    if (s->kind == PTL_QPOINT_VERTEX) return a == s->vert || b == s->vert;
    if (s->kind != PTL_QPOINT_EDGE) return false;
    if (c == s->cell) return j == s->edge;
    return c == s->pair[1] && j == q->slots[q->nm->cells[s->cell].first + s->edge].twin;
}

static inline bool enterable(const ptl_query* q, const ptl_slot* sl, uint32_t stamp) {
    if (!(sl->open || (sl->nbr != PTL_NONE && q->goal_stamp[sl->nbr] == stamp))) return false;
    return !q->vis_skip_pockets || q->goal_stamp[sl->nbr] == stamp || q->nm->cell_lid[sl->nbr] == PTL_NONE;
}

uint32_t ptl_vis_start(ptl_query* q, const ptl_qpoint* p, uint32_t stamp, uint32_t cell_index) {
    const ptl_navmesh* nm = q->nm;
    const uint32_t c = p->cells[cell_index];
    const ptl_blob_cell* cell = &nm->cells[c];
    const uint32_t* cv = nm->cell_verts + cell->first;
    const ptl_slot* sl = q->slots + cell->first;
    uint32_t count = 0;
    for (uint32_t j = 0; j < cell->vert_count; ++j) {
        uint32_t j1 = j + 1 == cell->vert_count ? 0 : j + 1;
        if (!enterable(q, &sl[j], stamp) || ptl_vis_start_on_edge(q, p, c, j, cv[j], cv[j1])) continue;
        ptl_snode* n = &q->succ[count++];
        ptl_iv_put(n, &sl[j], sl[j].x, sl[j].z, sl[j1].x, sl[j1].z, 0, 1, PTL_NONE, p->x, p->z, 0, 0);
        n->parent = PTL_NONE;
    }
    return count;
}

uint32_t ptl_vis_expand(ptl_query* q, const ptl_snode* n, uint32_t stamp, uint32_t* seen, uint32_t* seen_count) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_cell* cell = &nm->cells[n->cell];
    const uint32_t nv = cell->vert_count, k = n->edge, k1 = k + 1 == nv ? 0 : k + 1;
    const ptl_slot* sl = q->slots + cell->first;
    const double ox = n->ox, oz = n->oz, eps = q->eps;
    *seen_count = 0;
    /* A root on the entry edge's line sees nothing of the cell beyond the edge itself. */
    const double ex = sl[k1].x - sl[k].x, ez = sl[k1].z - sl[k].z;
    const double side = ex * (oz - sl[k].z) - ez * (ox - sl[k].x);
    if (side >= 0 || side * side <= eps * eps * (ex * ex + ez * ez)) return 0;
    const double urx = n->rx - ox, urz = n->rz - oz, ulx = n->lx - ox, ulz = n->lz - oz;
    const double er2 = eps * eps * (urx * urx + urz * urz), el2 = eps * eps * (ulx * ulx + ulz * ulz);
    double* sr = q->side;
    double* sv = q->side + q->max_cell_verts;
    /* Signed distances (scaled) of each vertex from the right ray (> 0: inside) and from the left
       ray (< 0: inside), snapped to 0 within eps, vertex m being the m-th after the entry edge. */
    for (uint32_t m = 0, j = k1; m < nv; ++m) {
        double dx = sl[j].x - ox, dz = sl[j].z - oz;
        double a = urx * dz - urz * dx, b = ulx * dz - ulz * dx;
        sr[m] = a * a <= er2 ? 0 : a;
        sv[m] = b * b <= el2 ? 0 : b;
        if (sr[m] >= 0 && sv[m] <= 0) seen[(*seen_count)++] = cell->first + j;
        j = j + 1 == nv ? 0 : j + 1;
    }
    uint32_t count = 0;
    for (uint32_t m = 0, j = k1; m + 1 < nv; ++m) {
        uint32_t j1 = j + 1 == nv ? 0 : j + 1;
        double t0, t1, u0, u1;
        if (enterable(q, &sl[j], stamp) && ptl_iv_nonneg(sr[m], sr[m + 1], &t0, &t1) &&
            ptl_iv_nonneg(-sv[m], -sv[m + 1], &u0, &u1)) {
            if (u0 > t0) t0 = u0;
            if (u1 < t1) t1 = u1;
            if (t1 > t0) {
                ptl_snode* s = &q->succ[count++];
                ptl_iv_put(s, &sl[j], sl[j].x, sl[j].z, sl[j1].x, sl[j1].z, t0, t1, n->root, ox, oz, n->g, 0);
                s->parent = PTL_NONE;
            }
        }
        j = j1;
    }
    return count;
}

ptl_status ptl_query_visible_vertices(ptl_query* q, const ptl_qpoint* p, void (*seen_fn)(void* user, uint32_t vert),
                                      void* user) {
    const ptl_navmesh* nm = q->nm;
    uint32_t stamp = ptl_query_next_stamp(q); /* no cell is a target: dead ends stay closed */
    uint32_t* seen = q->vis_seen;
    uint32_t top = 0, nseen;
    for (uint32_t i = 0; i < p->cell_count; ++i) {
        const ptl_blob_cell* cell = &nm->cells[p->cells[i]];
        for (uint32_t j = 0; j < cell->vert_count; ++j) seen_fn(user, nm->cell_verts[cell->first + j]);
        uint32_t m = ptl_vis_start(q, p, stamp, i);
        if (top + m > q->max_nodes) return PTL_ERR_OUT_OF_NODES;
        for (uint32_t k = 0; k < m; ++k) q->nodes[top] = q->succ[k], q->nodes[top++].refs = 0;
    }
    /* Depth first: the order does not matter, every visible part is reached once per way in. A
       window's depth (portals crossed, in `refs`) stays under the cell count: a line of sight
       crosses each convex cell once, and windows going round between cells that overlap in plan
       (several floors) are no line of sight (clearance.c, push_window). */
    while (top > 0) {
        ptl_snode n = q->nodes[--top];
        uint32_t m = ptl_vis_expand(q, &n, stamp, seen, &nseen);
        for (uint32_t k = 0; k < nseen; ++k) seen_fn(user, nm->cell_verts[seen[k]]);
        if (n.refs >= nm->h->cell_count) m = 0;
        if (top + m > q->max_nodes) return PTL_ERR_OUT_OF_NODES;
        for (uint32_t k = 0; k < m; ++k) q->nodes[top] = q->succ[k], q->nodes[top++].refs = n.refs + 1;
    }
    return PTL_OK;
}

bool ptl_vis_tangent(const ptl_query* q, uint32_t v, double x, double z) {
    const ptl_navmesh* nm = q->nm;
    uint32_t prev = q->wall[2 * v], next = q->wall[2 * v + 1];
    if (prev == PTL_NONE || next == PTL_NONE || prev == v || next == v) return true;
    double vx = ptl_nm_vx(nm, v), vz = ptl_nm_vz(nm, v);
    double dx = vx - x, dz = vz - z;
    double ax = ptl_nm_vx(nm, prev) - vx, az = ptl_nm_vz(nm, prev) - vz;
    double bx = ptl_nm_vx(nm, next) - vx, bz = ptl_nm_vz(nm, next) - vz;
    double ca = dx * az - dz * ax, cb = dx * bz - dz * bx;
    double d2 = dx * dx + dz * dz;
    /* A neighbour within the navmesh's convexity tolerance of the line counts as on it: a wall
       vertex that bends into the walkable side by less than that is no corner (its cell is convex
       within it, no portal ends there, no hub label has it), so the line from a point beyond it
       to v may pass it on the walls' side by as much, and v is where that path turns (a point on
       a wall 1e-7 rad off straight found no path through the corner below it with hub labels:
       regress/pipeline_poly/hub-tangent-past-a-nearly-straight-wall-vertex-871a54). */
    const double tl = q->wall_tol * sqrt(d2);
    double ta = fmax(1e-9 * sqrt(d2 * (ax * ax + az * az)), tl), tb = fmax(1e-9 * sqrt(d2 * (bx * bx + bz * bz)), tl);
    return !((ca > ta && cb < -tb) || (ca < -ta && cb > tb));
}
