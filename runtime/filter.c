/* Query filters (runtime.h, ptl_query_filter): per-area costs and include / exclude masks, in the
   spirit of Detour's dtQueryFilter, applied by rebuilding the query's derived tables instead of
   testing a filter in every inner loop.

   Setting a filter (O(cells + cell edges)): each cell gets its excluded flag and its cost from its
   area; the per-edge table the searches read (query.c, ptl_query_build_slots: nbr, open, corner,
   twin) and the per-vertex walls are rebuilt so that an edge between an included and an excluded
   cell is a wall, and an excluded cell has no neighbour at all. Every query that walks the mesh
   through that table (the interval search, the corridor A*, the disc searches, raycast, move,
   clearance sweeps, cells in a circle, random points in a circle) then treats excluded cells as
   outside the mesh with no change to its loop; point location (locate.c), cells in a box (move.c),
   random points (random.c: the surface table weighs excluded cells 0) and partial paths
   (ptl_query_filter_nearest_reachable below) skip them explicitly.

   What stays valid: landmark distances (ALT) are exact distances in the unfiltered mesh; excluding
   cells only removes paths and costs are taken >= the least included cost, so after the heuristic's
   scaling they remain lower bounds (the exact search uses them only with every cost 1). Pockets
   (pockets.c) are parts of the mesh a path between two points outside them never needs; removing
   cells cannot make one needed. Hub labels are exact shortest lengths of the unfiltered mesh, which
   an exclusion or a cost breaks: search.c does not use them while any_off or weighted is set. */
#include <math.h>
#include <string.h>

#include "query_internal.h"

ptl_query_filter ptl_query_filter_defaults(void) {
    ptl_query_filter f;
    for (int a = 0; a < 64; ++a) f.area_cost[a] = 1.0f;
    f.include_mask = ~(uint64_t)0;
    f.exclude_mask = 0;
    return f;
}

ptl_query_filter ptl_query_get_filter(const ptl_query* q) { return q ? q->filter : ptl_query_filter_defaults(); }

bool ptl_query_cell_passable(const ptl_query* q, uint32_t cell) {
    return q && cell < q->nm->h->cell_count && !ptl_query_cell_off(q, cell);
}

/* Area a of the filter: excluded? */
static bool area_off(const ptl_query_filter* f, uint32_t a) {
    return !((f->include_mask >> a) & 1) || ((f->exclude_mask >> a) & 1);
}

ptl_status ptl_query_set_filter(ptl_query* q, const ptl_query_filter* f) {
    if (!q) return PTL_ERR_INVALID_ARG;
    const ptl_query_filter def = ptl_query_filter_defaults();
    if (!f) f = &def;
    for (int a = 0; a < 64; ++a)
        if (!isfinite(f->area_cost[a]) || !(f->area_cost[a] > 0)) return PTL_ERR_INVALID_ARG;
    const ptl_navmesh* nm = q->nm;
    const uint32_t n = nm->h->cell_count;
    bool any_off = false, weighted = false;
    double lo = INFINITY;
    for (uint32_t c = 0; c < n; ++c) {
        const uint32_t a = nm->cells[c].tag & 63u; /* validated <= 63 at load */
        const bool off = area_off(f, a);
        q->cell_off[c] = (uint8_t)off;
        q->cell_cost[c] = f->area_cost[a];
        any_off |= off;
        if (!off) {
            weighted |= f->area_cost[a] != 1.0f;
            lo = f->area_cost[a] < lo ? f->area_cost[a] : lo;
        }
    }
    const bool was_off = q->any_off;
    q->filter = *f;
    q->any_off = any_off;
    q->weighted = weighted;
    q->h_scale = weighted && isfinite(lo) ? lo : 1.0;
    /* the random points' surface table weighs excluded cells 0: built again at the next draw */
    if (any_off || was_off) q->surf_ready = false;
    (void)ptl_query_build_slots(q);
    return PTL_OK;
}

bool ptl_query_filter_point(const ptl_query* q, ptl_qpoint* p) {
    if (!q->any_off) return p->cell_count > 0;
    uint32_t kept = 0;
    if (p->cells == p->pair) {
        for (uint32_t i = 0; i < p->cell_count; ++i)
            if (p->pair[i] != PTL_NONE && !q->cell_off[p->pair[i]]) p->pair[kept++] = p->pair[i];
    } else {
        for (uint32_t i = 0; i < p->cell_count && kept < PTL_QPOINT_OWN; ++i)
            if (!q->cell_off[p->cells[i]]) p->own[kept++] = p->cells[i];
        p->cells = p->own;
    }
    p->cell_count = kept;
    if (kept == 0) { /* every cell at the point excluded: not a point of the filtered mesh */
        p->cell = PTL_NONE, p->ambiguous = false;
        return false;
    }
    p->cell = p->cells[0];
    if (p->kind == PTL_QPOINT_EDGE && kept == 1) p->edge = PTL_NONE, p->kind = PTL_QPOINT_CELL;
    return true;
}

ptl_status ptl_query_filter_nearest_reachable(ptl_query* q, const ptl_qpoint* s, const float goal[3], ptl_qpoint* out) {
    return ptl_query_nearest_reached(q, s, goal, 0, out);
}

ptl_status ptl_query_nearest_reached(ptl_query* q, const ptl_qpoint* s, const float goal[3], double radius, ptl_qpoint* out) {
    const ptl_navmesh* nm = q->nm;
    const double gx = goal[0], gz = goal[2], tie = q->eps * q->eps;
    /* 2 r less the checks' tolerance, as the corridor's A* (corridor.c) */
    const double min_w = radius > 0 ? fmax(0, 2 * radius - 8 * q->eps) : 0, min_w2 = min_w * min_w;
    uint32_t stamp = ptl_query_next_stamp(q), head = 0, tail = 0, best_c = PTL_NONE;
    double best_d = INFINITY, best_dy = INFINITY, bx = 0, bz = 0;
    for (uint32_t k = 0; k < s->cell_count; ++k)
        if (q->seen_stamp[s->cells[k]] != stamp) q->seen_stamp[s->cells[k]] = stamp, q->cheap[tail++] = s->cells[k];
    while (head < tail) {
        const uint32_t c = q->cheap[head++];
        const ptl_blob_cell* cell = &nm->cells[c];
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            const uint32_t nb = q->slots[cell->first + i].nbr;
            if (nb == PTL_NONE || q->seen_stamp[nb] == stamp) continue;
            if (min_w2 > 0 && !ptl_query_portal_wide(q, nm->cell_verts[cell->first + i],
                                                     nm->cell_verts[cell->first + (i + 1 == cell->vert_count ? 0 : i + 1)], min_w2))
                continue;
            q->seen_stamp[nb] = stamp, q->cheap[tail++] = nb;
        }
        if (ptl_nm_is_link(nm, c)) continue;
        double x = gx, z = gz, d = ptl_query_nearest_in_cell(q, c, gx, gz, &x, &z);
        if (d > best_d + tie) continue;
        double dy = INFINITY;
        if (d >= best_d - tie) { /* heights only to break a tie in plan, as partial.c */
            if (isinf(best_dy)) best_dy = fabs((double)ptl_query_cell_y(nm, best_c, bx, bz) - goal[1]);
            dy = fabs((double)ptl_query_cell_y(nm, c, x, z) - goal[1]);
            if (dy >= best_dy) continue;
        }
        best_c = c, best_d = d, best_dy = dy, bx = x, bz = z;
    }
    if (best_c == PTL_NONE) return PTL_ERR_NOT_FOUND;
    ptl_qpoint_in_cell(out, best_c, bx, ptl_query_cell_y(nm, best_c, bx, bz), bz);
    return PTL_OK;
}
