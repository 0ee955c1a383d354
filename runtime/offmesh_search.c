/* What the exact search (search.c) needs of the off-mesh links before it starts: the query's
   per-arc state matched to the navmesh's table, and the arcs' lower bounds toward the goal.

   With links the straight line to the goal is no longer a lower bound: an arc from S to E of cost c
   may beat it. The search's heuristic becomes h(x) = min(|x - goal|, min_i |x - S_i| + k_i) (each
   distance taken through the node's interval, Polyanya §3.3), where k_i is a lower bound of the way
   from S_i on: c_i + D(E_i), D(p) = min(|p - goal|, min_j |p - S_j| + k_j), the shortest path over
   the straight lines between the arcs' ends (a Dijkstra over the arcs from the goal, O(A^2) for A
   arcs, when A <= OM_EXACT_ARCS; beyond, k_i = c_i + min(|E_i - goal|, min_j c_j), weaker, O(A)).
   Only arcs with k_i < |S_i - goal| can make the minimum smaller than the straight line anywhere
   (|x - S_i| + k_i >= |x - goal| otherwise, by the triangle inequality); those go to om_useful and
   each node's key then costs one bound per useful arc (offmesh.h, ptl_om_h). A ladder's arc
   (cost at least the distance between its ends) is never useful; a cheap teleport is. So per query
   the links cost O(A^2) (A <= 32) or O(A) once, and O(useful) per node. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "offmesh.h"

#define OM_EXACT_ARCS 32u

void ptl_om_query_free(ptl_query* q) {
    size_t n = q->om_arc_cap;
    ptl_mem_free(&q->alloc, q->om_g, n * sizeof(double));
    ptl_mem_free(&q->alloc, q->om_k, n * sizeof(double));
    ptl_mem_free(&q->alloc, q->om_stamp, n * sizeof(uint32_t));
    ptl_mem_free(&q->alloc, q->om_done, n * sizeof(uint32_t));
    ptl_mem_free(&q->alloc, q->om_useful, 3 * n * sizeof(double));
    q->om_g = q->om_k = q->om_useful = NULL;
    q->om_stamp = q->om_done = NULL;
    q->om_arc_cap = 0;
    ptl_mem_free(&q->alloc, q->om_corners, 3 * (size_t)q->om_corner_cap * sizeof(float));
    ptl_mem_free(&q->alloc, q->om_flags, q->om_corner_cap);
    q->om_corners = NULL, q->om_flags = NULL;
    q->om_corner_cap = 0;
}

uint32_t ptl_om_corner_cap(const ptl_navmesh* nm, uint32_t arcs) {
    return nm->h->vert_count + nm->h->cell_count + 2 + 2 * arcs;
}

/* Matches the query to the navmesh's links: arrays for every arc, and slots that enter a dead-end
   cell when it holds a link's start (query.c opens no edge into a dead end). */
static ptl_status sync(ptl_query* q) {
    const ptl_navmesh* nm = q->nm;
    if (q->om_gen == nm->om_gen) return PTL_OK;
    uint32_t need = 2 * nm->om_cap;
    if (need > q->om_arc_cap) {
        ptl_om_query_free(q);
        size_t n = need;
        q->om_g = ptl_mem_alloc(&q->alloc, n * sizeof(double));
        q->om_k = ptl_mem_alloc(&q->alloc, n * sizeof(double));
        q->om_stamp = ptl_mem_calloc(&q->alloc, n, sizeof(uint32_t));
        q->om_done = ptl_mem_calloc(&q->alloc, n, sizeof(uint32_t));
        q->om_useful = ptl_mem_alloc(&q->alloc, 3 * n * sizeof(double));
        q->om_arc_cap = need;
        q->om_corner_cap = ptl_om_corner_cap(nm, need);
        q->om_corners = ptl_mem_alloc(&q->alloc, 3 * (size_t)q->om_corner_cap * sizeof(float));
        q->om_flags = ptl_mem_alloc(&q->alloc, q->om_corner_cap);
        if (!q->om_g || !q->om_k || !q->om_stamp || !q->om_done || !q->om_useful || !q->om_corners || !q->om_flags) {
            ptl_om_query_free(q);
            return PTL_ERR_NO_MEMORY;
        }
    }
    for (uint32_t c = 0; c < nm->h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            ptl_slot* s = &q->slots[cell->first + i];
            s->open = s->nbr != PTL_NONE && (!q->dead_end[s->nbr] || ptl_om_cell_has_arcs(nm, s->nbr));
        }
    }
    q->om_gen = nm->om_gen;
    return PTL_OK;
}

static bool arc_live(const ptl_navmesh* nm, uint32_t arc) {
    const ptl_om_link* l = &nm->om[arc >> 1];
    return (l->salt & 1u) && (!(arc & 1) || l->desc.bidir);
}

static double dist(double ax, double az, double bx, double bz) { return sqrt((ax - bx) * (ax - bx) + (az - bz) * (az - bz)); }

/* k for at most OM_EXACT_ARCS arcs (listed in `arcs`): Dijkstra from the goal over the arcs. */
static void exact_bounds(ptl_query* q, const uint32_t* arcs, uint32_t n) {
    const ptl_navmesh* nm = q->nm;
    bool done[OM_EXACT_ARCS] = {false};
    for (uint32_t it = 0; it < n; ++it) {
        uint32_t best = PTL_NONE;
        for (uint32_t i = 0; i < n; ++i)
            if (!done[i] && (best == PTL_NONE || q->om_k[arcs[i]] < q->om_k[arcs[best]])) best = i;
        done[best] = true;
        const ptl_om_end *sj, *ej;
        ptl_om_arc(nm, arcs[best], &sj, &ej);
        const double kj = q->om_k[arcs[best]];
        for (uint32_t i = 0; i < n; ++i) {
            if (done[i]) continue;
            const ptl_om_end *si, *ei;
            const ptl_om_link* li = ptl_om_arc(nm, arcs[i], &si, &ei);
            double k = li->cost + dist(ei->x, ei->z, sj->x, sj->z) + kj;
            if (k < q->om_k[arcs[i]]) q->om_k[arcs[i]] = k;
        }
    }
}

ptl_status ptl_om_begin(ptl_query* q, const ptl_qpoint* t) {
    const ptl_navmesh* nm = q->nm;
    q->om_on = false;
    q->om_useful_count = 0;
    if (nm->om_live == 0) {
        /* Links removed since the last sync: put the slots back. */
        return q->om_gen == nm->om_gen ? PTL_OK : sync(q);
    }
    ptl_status st = sync(q);
    if (st < 0) return st;
    q->om_on = true;
    uint32_t arcs[OM_EXACT_ARCS], n = 0, total = 0;
    double cmin = INFINITY;
    for (uint32_t a = 0; a < 2 * nm->om_used; ++a) {
        if (!arc_live(nm, a)) continue;
        const ptl_om_end *s, *e;
        const ptl_om_link* l = ptl_om_arc(nm, a, &s, &e);
        q->om_k[a] = l->cost + dist(e->x, e->z, t->x, t->z);
        if (l->cost < cmin) cmin = l->cost;
        if (n < OM_EXACT_ARCS) arcs[n++] = a;
        ++total;
    }
    if (total <= OM_EXACT_ARCS) {
        exact_bounds(q, arcs, n);
    } else {
        for (uint32_t a = 0; a < 2 * nm->om_used; ++a) {
            if (!arc_live(nm, a)) continue;
            const ptl_om_end *s, *e;
            const ptl_om_link* l = ptl_om_arc(nm, a, &s, &e);
            q->om_k[a] = l->cost + fmin(dist(e->x, e->z, t->x, t->z), cmin);
        }
    }
    for (uint32_t a = 0; a < 2 * nm->om_used; ++a) {
        if (!arc_live(nm, a)) continue;
        const ptl_om_end *s, *e;
        ptl_om_arc(nm, a, &s, &e);
        if (!(q->om_k[a] < dist(s->x, s->z, t->x, t->z))) continue;
        double* u = q->om_useful + 3 * (size_t)q->om_useful_count++;
        u[0] = s->x, u[1] = s->z, u[2] = q->om_k[a];
    }
    return PTL_OK;
}

double ptl_om_h_min(const ptl_query* q, const ptl_snode* n, double h_goal) { return ptl_om_h(q, n, h_goal); }

bool ptl_om_link_filtered(const ptl_query* q, uint32_t arc) {
    const ptl_om_link* l = &q->nm->om[arc >> 1];
    const uint32_t a = l->desc.area & 63u;
    if (!((q->filter.include_mask >> a) & 1) || ((q->filter.exclude_mask >> a) & 1)) return true;
    return ptl_query_cell_off(q, l->end[0].cell) || ptl_query_cell_off(q, l->end[1].cell);
}

bool ptl_om_may_beat(const ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t) {
    const double d = dist(s->x, s->z, t->x, t->z);
    for (uint32_t i = 0; i < q->om_useful_count; ++i) {
        const double* u = q->om_useful + 3 * (size_t)i;
        if (u[2] + dist(u[0], u[1], s->x, s->z) < d) return true;
    }
    return false;
}
