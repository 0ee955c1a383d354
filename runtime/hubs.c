/* Exact Euclidean shortest paths with hub labels (the blob's hubs section, bake/cpg/hubs.c).

   A shortest path from s to t is either the segment s-t or s -> a -> ... -> b -> t, where a is a
   corner s sees along a line tangent to the walls at a, b likewise for t, and the middle is a
   shortest path between corners, whose length the labels give: d(a, b) = min over the hubs h in
   both labels of d(a, h) + d(h, b). So

       d(s, t) = min( |s t| if visible, min over a, b, h of |s a| + d(a, h) + d(h, b) + |b t| ).

   Two searches that never turn (visibility.c) find the corners each end sees, one from s and one
   from t, taken in turn by the smaller key. A node's key is the length of the shortest way from its
   end through its interval to the other end (Polyanya §3.3), a lower bound of every path that
   leaves that end through the interval; each side keeps, per hub, the shortest |s a| + d(a, h) over
   the corners it has found, and every improvement is added to the other side's value for the same
   hub. Once both open lists' smallest keys reach the best length found, no corner not yet found
   can start or end a shorter path: the first corner a* of a shortest path is seen through a node
   whose key is at most its length, and so is the last one. The searches cover only the part of
   each end's visible region inside the ellipse of that length around s and t.

   With pocket lids (pockets.c) the corners inside pockets have no label. An end inside a pocket
   turns at them itself: its search starts a new sweep at each such corner it sees (tangent), from
   that corner with the length so far as the root (Polyanya's turn, kept to the pocket), so the
   corners with labels are reached with their shortest length through the pocket.

   The corners in the middle are unpacked from the visibility graph: from a, the neighbour w with
   |a w| + d(w, h) = d(a, h) (the labels hold h for the next corner of the labelling's shortest-path
   tree), until h, and likewise from b. Everything is in the x-z plane; heights come from the
   vertices, and on request a 3D path follows the surface (ptl_query_find_path). */
#include <math.h>
#include <string.h>

#include "interval.h"
#include "query_internal.h"

typedef struct side {
    ptl_heap_item* heap; /* open nodes */
    uint32_t count;
    ptl_heap_item* pend; /* corners found, keyed by a lower bound of a path through them */
    uint32_t pend_count;
    double lo[PTL_MAX_LANDMARKS], hi[PTL_MAX_LANDMARKS]; /* landmark bounds of `to` */
    double* d;          /* per hub, at 2 * hub (the sides interleaved: one cache line holds both): the
                           shortest |from a| + d(a, hub) so far, +inf: none */
    uint32_t* taken;    /* the corners taken in */
    uint32_t taken_count;
    const ptl_qpoint* from; /* this side's end */
    const ptl_qpoint* to;   /* the other end */
    uint32_t target;        /* goal_stamp of the cells holding `to` */
    uint32_t* seen;         /* per hub: found this search (stamp), so cd and cfrom are set */
    uint32_t pend_cap;
    double* cd;             /* per hub: the shortest length from the end found (through roots) */
    uint32_t* cfrom;        /* per hub: the root it was seen from (a vertex; PTL_NONE: the end) */
    bool in_pocket;         /* the end is in a pocket (of the navmesh's lids) it must turn in: */
    ptl_pocket_ends ends;   /* those pockets (only the end's own, and not one whose lid it sees
                               whole from the cell next to the lid: no path turns inside that one) */
    /* Vertices of the ends' pockets this side has turned at (roots) or seen (meets): a small
       stamped hash table (ptl_hub_vrec), PTL_HUB_VRECS entries. */
    ptl_hub_vrec* vrec;
    uint32_t vrec_cap;      /* a power of two */
    ptl_heap_item* rq;      /* roots waiting for their sweep, keyed by a lower bound */
    uint32_t rq_count, rq_cap;
} side;

/* Side's record of vertex v this search; create: make one when there is none (NULL when the table
   is full: the search gives up, ptl_query_find_path falls back to the interval search). */
static ptl_hub_vrec* vrec_get(const side* sd, uint32_t v, uint32_t stamp, bool create) {
    ptl_hub_vrec* t = sd->vrec;
    const uint32_t mask = sd->vrec_cap - 1;
    uint32_t i = (v * 2654435761u) & mask;
    for (uint32_t n = 0; n <= mask; ++n, i = (i + 1) & mask) {
        ptl_hub_vrec* r = &t[i];
        if (r->stamp != stamp) {
            if (!create) return NULL;
            memset(r, 0, sizeof *r);
            r->v = v, r->stamp = stamp;
            r->root_par = r->meet_from = PTL_NONE;
            return r;
        }
        if (r->v == v) return r;
    }
    return NULL;
}

typedef struct hub_search {
    ptl_query* q;
    side sd[2];
    uint32_t stamp;
    double best;          /* [Units: wu] the shortest path found so far */
    uint32_t best_hub;    /* the hub it passes, PTL_NONE: a straight segment from a root */
    int best_side;        /* with best_hub PTL_NONE: the side whose root saw the other end, */
    uint32_t best_root;   /* and that root (PTL_NONE: the end itself); */
    uint32_t best_meet;   /* or a root of side best_side the other side saw (PTL_NONE: none) */
    uint32_t expansions;
    bool out_of_nodes;
    uint32_t lm[PTL_ACTIVE_LANDMARKS]; /* the landmarks this search uses (the best ones for s, t) */
    ptl_pocket_ends pk;                /* for skipping pockets (q->use_pockets) */
    uint32_t lm_count;
} hub_search;

/* The label entry of hub `h` in hub c's label (binary search: labels are sorted by hub), or -1. */
static inline int64_t label_find(const ptl_navmesh* nm, uint32_t c, uint32_t h) {
    uint32_t lo = nm->hub_label_start[c], hi = nm->hub_label_start[c + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (nm->hub_hub[mid] < h) lo = mid + 1;
        else hi = mid;
    }
    return lo < nm->hub_label_start[c + 1] && nm->hub_hub[lo] == h ? (int64_t)lo : -1;
}

/* The landmark bound of vertex v's distance to side k's other end. */
static double corner_alt_v(const hub_search* hs, int k, uint32_t v) {
    const ptl_navmesh* nm = hs->q->nm;
    const side* me = &hs->sd[k];
    const float* dv = nm->landmarks + (size_t)v * hs->q->lm_count;
    double alt = 0;
    for (uint32_t j = 0; j < hs->lm_count; ++j) {
        uint32_t i = hs->lm[j];
        double dr = dv[i], x = me->lo[i] - dr, y = dr - me->hi[i];
        double h = x > y ? x : y;
        if (!(h > alt)) continue; /* also skips NaN from infinite distances */
        double slack = PTL_ALT_SLACK * (fabs(me->lo[i]) + fabs(me->hi[i]) + 2 * dr);
        if (h - slack > alt) alt = h - slack;
    }
    return alt;
}

/* The landmark bound of corner c's distance to side k's other end. */
static double corner_alt(const hub_search* hs, int k, uint32_t c) { return corner_alt_v(hs, k, hs->q->nm->hub_vert[c]); }

static void push(hub_search* hs, int k, const ptl_snode* n);
static void find_corner(hub_search* hs, int k, uint32_t slot, double rx, double rz, double g, uint32_t root);

/* Roots inside an end's pocket. A taut path bends round the walls at a root v, so it goes on into
   the half-plane of the line from the previous root through v that holds the walls (Polyanya's
   non-observable successors); v's sweep keeps to it. */
/* Side k may turn at vertex v, a corner inside its end's pocket, reached with length g from root
   `from`: v becomes a root (unless it was one with a length as short before), queued with a lower
   bound of any path through it; its sweep (sweep_root) waits until it comes out first. */
static void turn_at(hub_search* hs, int k, uint32_t v, double g, uint32_t from) {
    ptl_query* q = hs->q;
    const ptl_navmesh* nm = q->nm;
    side* me = &hs->sd[k];
    ptl_hub_vrec* r = vrec_get(me, v, hs->stamp, true);
    if (!r) {
        hs->out_of_nodes = true;
        return;
    }
    if (r->has_root && !(g < r->root_g)) return;
    r->has_root = 1, r->root_g = g, r->root_par = from;
    const ptl_hub_vrec* o = vrec_get(&hs->sd[1 - k], v, hs->stamp, false);
    if (o && o->has_meet && g + o->meet_d < hs->best)
        hs->best = g + o->meet_d, hs->best_hub = PTL_NONE, hs->best_side = k, hs->best_meet = v;
    double vx = ptl_nm_vx(nm, v), vz = ptl_nm_vz(nm, v);
    double rest = sqrt((vx - me->to->x) * (vx - me->to->x) + (vz - me->to->z) * (vz - me->to->z));
    if (hs->lm_count) rest = fmax(rest, corner_alt_v(hs, k, v));
    if (g + rest >= hs->best) return;
    if (me->rq_count >= me->rq_cap) {
        hs->out_of_nodes = true;
        return;
    }
    ptl_heap_push(me->rq, &me->rq_count, g + rest, (float)g, v);
}

/* Side k's root v (turn_at) comes out first: the sweep from it. */
static void sweep_root(hub_search* hs, int k, uint32_t v) {
    ptl_query* q = hs->q;
    const ptl_navmesh* nm = q->nm;
    side* me = &hs->sd[k];
    const ptl_hub_vrec* r = vrec_get(me, v, hs->stamp, false);
    const double g = r->root_g;
    const uint32_t from = r->root_par;
    const double rx = from == PTL_NONE ? me->from->x : ptl_nm_vx(nm, from);
    const double rz = from == PTL_NONE ? me->from->z : ptl_nm_vz(nm, from);
    ptl_qpoint p;
    ptl_query_vertex_point(nm, v, &p);
    /* The walls' side of the line root -> v (0: both walls on it, a straight corner: no side). */
    const double dx = p.x - rx, dz = p.z - rz;
    double side_sign = 0;
    const uint32_t nb[2] = {q->wall[2 * v], q->wall[2 * v + 1]};
    for (int w = 0; w < 2 && side_sign == 0; ++w) {
        if (nb[w] == PTL_NONE || nb[w] == v) continue;
        double c = dx * (ptl_nm_vz(nm, nb[w]) - p.z) - dz * (ptl_nm_vx(nm, nb[w]) - p.x);
        double ww = (ptl_nm_vx(nm, nb[w]) - p.x) * (ptl_nm_vx(nm, nb[w]) - p.x) +
                    (ptl_nm_vz(nm, nb[w]) - p.z) * (ptl_nm_vz(nm, nb[w]) - p.z);
        if (c * c > 1e-18 * (dx * dx + dz * dz) * ww) side_sign = c > 0 ? 1 : -1;
    }
    if (nb[0] == PTL_NONE || nb[0] == v || nb[1] == PTL_NONE || nb[1] == v || (dx == 0 && dz == 0)) side_sign = 0;
    const double tol2 = q->eps * q->eps * (dx * dx + dz * dz);
    for (uint32_t i = 0; i < p.cell_count; ++i) {
        /* The other end in a cell around v: v sees it (the cell is convex). */
        if (q->goal_stamp[p.cells[i]] == me->target) {
            double dx = me->to->x - p.x, dz = me->to->z - p.z, d = g + sqrt(dx * dx + dz * dz);
            if (d < hs->best) hs->best = d, hs->best_hub = PTL_NONE, hs->best_side = k, hs->best_root = v, hs->best_meet = PTL_NONE;
        }
        /* The corners of the cells around v: v sees them, and no expansion reports them (an
           expansion reports the vertices of the cell it enters, and one entered through an edge on
           a line through v sees nothing). Without this, a root on a straight side of a sliver cell
           missed the next corner along that side (hrt201n.map: a 16-unit detour). */
        const ptl_blob_cell* cell = &nm->cells[p.cells[i]];
        for (uint32_t j = 0; j < cell->vert_count; ++j) find_corner(hs, k, cell->first + j, p.x, p.z, g, v);
        uint32_t m = ptl_vis_start(q, &p, me->target, i);
        for (uint32_t j = 0; j < m; ++j) {
            ptl_snode* n = &q->succ[j];
            n->root = v, n->g = g;
            if (side_sign != 0) {
                /* keep the part of the interval where cross(d, x - v) * side_sign >= 0 */
                double a = (dx * (n->rz - p.z) - dz * (n->rx - p.x)) * side_sign;
                double b = (dx * (n->lz - p.z) - dz * (n->lx - p.x)) * side_sign;
                if (a * a <= tol2 * ((n->rx - p.x) * (n->rx - p.x) + (n->rz - p.z) * (n->rz - p.z))) a = 0;
                if (b * b <= tol2 * ((n->lx - p.x) * (n->lx - p.x) + (n->lz - p.z) * (n->lz - p.z))) b = 0;
                if (a < 0 && b < 0) continue;
                if (a < 0 || b < 0) {
                    double t = a / (a - b), x = n->rx + t * (n->lx - n->rx), z = n->rz + t * (n->lz - n->rz);
                    if (a < 0) n->rx = x, n->rz = z, n->ends &= (uint8_t)~PTL_END_RIGHT;
                    else n->lx = x, n->lz = z, n->ends &= (uint8_t)~PTL_END_LEFT;
                }
            }
            push(hs, k, n);
        }
    }
}

/* Side k sees the vertex of slot `slot` (cell first + i) from root (rx, rz) (vertex `root`, or
   PTL_NONE for the end) reached with length g. A hub it can turn at (the line to it is tangent to
   the walls there) is queued with a lower bound of any path through it: its length from the end
   plus the larger of the straight line and the landmark bound to the other end; a corner inside
   the end's own pocket (no label) is turned at. */
static void find_corner(hub_search* hs, int k, uint32_t slot, double rx, double rz, double g, uint32_t root) {
    ptl_query* q = hs->q;
    const ptl_navmesh* nm = q->nm;
    const uint32_t v = nm->cell_verts[slot];
    side* me = &hs->sd[k];
    if (v == root) return;
    const uint32_t c = nm->vert_hub[v];
    if (c == PTL_NONE) {
        const uint32_t l = nm->vert_lid ? nm->vert_lid[v] : PTL_NONE;
        if (l == PTL_NONE) return;
        double dx = ptl_nm_vx(nm, v) - rx, dz = ptl_nm_vz(nm, v) - rz, d = g + sqrt(dx * dx + dz * dz);
        side* other = &hs->sd[1 - k];
        if (other->in_pocket && ptl_pocket_ends_in(&other->ends, l)) {
            ptl_hub_vrec* r = vrec_get(me, v, hs->stamp, true);
            if (!r) {
                hs->out_of_nodes = true;
                return;
            }
            if (!r->has_meet || d < r->meet_d) {
                r->has_meet = 1, r->meet_d = d, r->meet_from = root;
                const ptl_hub_vrec* o = vrec_get(other, v, hs->stamp, false);
                if (o && o->has_root && d + o->root_g < hs->best)
                    hs->best = d + o->root_g, hs->best_hub = PTL_NONE, hs->best_side = 1 - k, hs->best_meet = v;
            }
        }
        if (me->in_pocket && ptl_pocket_ends_in(&me->ends, l) && q->slots[slot].corner && ptl_vis_tangent(q, v, rx, rz))
            turn_at(hs, k, v, d, root);
        return;
    }
    double vx = ptl_nm_vx(nm, v), vz = ptl_nm_vz(nm, v);
    double d = g + sqrt((vx - rx) * (vx - rx) + (vz - rz) * (vz - rz));
    if (me->seen[c] == hs->stamp && !(d < me->cd[c])) return;
    /* (with lids no hub is inside a pocket) */
    if (q->use_pockets && !nm->vert_lid && ptl_nm_pocket_skips(nm, v, &hs->pk)) return;
    if (!ptl_vis_tangent(q, v, rx, rz)) return;
    me->seen[c] = hs->stamp, me->cd[c] = d, me->cfrom[c] = root;
    double rest = sqrt((vx - me->to->x) * (vx - me->to->x) + (vz - me->to->z) * (vz - me->to->z));
    if (hs->lm_count) {
        double alt = corner_alt(hs, k, c);
        if (alt > rest) rest = alt;
    }
    if (d + rest >= hs->best) return;
    if (me->pend_count >= me->pend_cap) {
        hs->out_of_nodes = true;
        return;
    }
    ptl_heap_push(me->pend, &me->pend_count, d + rest, (float)d, c);
    /* taken in later, if at all: start fetching its label */
    __builtin_prefetch(nm->hub_hub + nm->hub_label_start[c]);
    __builtin_prefetch(nm->hub_dist + nm->hub_label_start[c]);
}

/* Takes in side k's corner c (found by find_corner): folds its label into the side's per-hub
   lengths and meets the other side's. */
static void take_corner(hub_search* hs, int k, uint32_t c) {
    const ptl_navmesh* nm = hs->q->nm;
    side* me = &hs->sd[k];
    double d = me->cd[c];
    me->taken[me->taken_count++] = c;
    double* mine = me->d;
    const double* theirs = hs->sd[1 - k].d;
    /* Most of a query's time is this loop. */
    double best = hs->best;
    uint32_t best_hub = hs->best_hub;
    /* Branch-free but for a new best: both sides' values of a hub share a cache line, and the hubs
       this side sets are put back to +inf from the taken labels at the end. */
    for (uint32_t e = nm->hub_label_start[c], end = nm->hub_label_start[c + 1]; e < end; ++e) {
        uint32_t h = nm->hub_hub[e];
        double val = d + nm->hub_dist[e], m = mine[2 * h];
        mine[2 * h] = val < m ? val : m;
        double total = val + theirs[2 * h];
        if (total < best) best = total, best_hub = h;
    }
    if (best_hub != hs->best_hub) hs->best_meet = PTL_NONE;
    hs->best = best, hs->best_hub = best_hub;
}

/* The corner of side k's taken ones through which the side reaches hub h shortest. */
static uint32_t via_corner(const hub_search* hs, int k, uint32_t h) {
    const ptl_navmesh* nm = hs->q->nm;
    const side* me = &hs->sd[k];
    uint32_t arg = PTL_NONE;
    double best = INFINITY;
    for (uint32_t i = 0; i < me->taken_count; ++i) {
        uint32_t c = me->taken[i];
        int64_t e = label_find(nm, c, h);
        if (e < 0) continue;
        double val = me->cd[c] + nm->hub_dist[e];
        if (val < best) best = val, arg = c;
    }
    return arg;
}

/* Is (x, z) inside the closed cone of node n (between its rays, within eps)? */
static bool in_cone(const ptl_query* q, const ptl_snode* n, double x, double z) {
    double urx = n->rx - n->ox, urz = n->rz - n->oz, ulx = n->lx - n->ox, ulz = n->lz - n->oz;
    double dx = x - n->ox, dz = z - n->oz;
    double a = urx * dz - urz * dx, b = ulx * dz - ulz * dx;
    double e = q->eps;
    return a >= -e * sqrt(urx * urx + urz * urz) && b <= e * sqrt(ulx * ulx + ulz * ulz);
}

/* A landmark lower bound of every path from the side's end through node n's interval to the other
   end: the distance to the interval plus the landmark bound of its points. A point x of the edge
   u-w the interval lies on has d(L, x) within |x u| of d(L, u) and within |x w| of d(L, w), so in
   [(d(L, u) + d(L, w) - |u w|) / 2, (d(L, u) + d(L, w) + |u w|) / 2]. */
static double interval_alt(const hub_search* hs, const side* me, const ptl_snode* n) {
    const ptl_query* q = hs->q;
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_cell* cell = &nm->cells[n->cell];
    uint32_t j1 = n->edge + 1u == cell->vert_count ? 0 : n->edge + 1u;
    uint32_t u = nm->cell_verts[cell->first + n->edge], w = nm->cell_verts[cell->first + j1];
    const uint32_t k = q->lm_count;
    const float* du = nm->landmarks + (size_t)u * k;
    const float* dw = nm->landmarks + (size_t)w * k;
    double ux = ptl_nm_vx(nm, u) - ptl_nm_vx(nm, w), uz = ptl_nm_vz(nm, u) - ptl_nm_vz(nm, w);
    double half = 0.5 * sqrt(ux * ux + uz * uz);
    double best = 0;
    for (uint32_t j = 0; j < hs->lm_count; ++j) {
        uint32_t i = hs->lm[j];
        double mid = 0.5 * ((double)du[i] + dw[i]);
        double x = me->lo[i] - (mid + half), y = (mid - half) - me->hi[i];
        double h = x > y ? x : y;
        if (!(h > best)) continue; /* also skips NaN from infinite distances */
        double slack = PTL_ALT_SLACK * (fabs(me->lo[i]) + fabs(me->hi[i]) + 2 * fabs(mid) + 2 * half);
        if (h - slack > best) best = h - slack;
    }
    if (best == 0) return 0;
    /* the nearest point of the interval */
    double dx = n->rx - n->lx, dz = n->rz - n->lz, len2 = dx * dx + dz * dz;
    double t = len2 > 0 ? ((n->ox - n->lx) * dx + (n->oz - n->lz) * dz) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double px = n->lx + t * dx - n->ox, pz = n->lz + t * dz - n->oz;
    return n->g + sqrt(px * px + pz * pz) + best;
}

static void push(hub_search* hs, int k, const ptl_snode* n) {
    ptl_query* q = hs->q;
    if (hs->out_of_nodes) return;
    side* me = &hs->sd[k];
    double f = n->g + ptl_iv_h(n->ox, n->oz, me->to->x, me->to->z, n->lx, n->lz, n->rx, n->rz);
    if (f >= hs->best) return;
    if (q->use_pockets && ptl_nm_cell_skips(q->nm, n->cell, &hs->pk)) return;
    if (hs->lm_count) {
        double alt = interval_alt(hs, me, n);
        if (alt > f) {
            f = alt;
            if (f >= hs->best) return;
        }
    }
    uint32_t i = ptl_pool_take(q);
    if (i == PTL_NONE) {
        hs->out_of_nodes = true;
        return;
    }
    q->nodes[i] = *n;
    ptl_heap_push(me->heap, &me->count, f, 0, i);
}

static void start_side(hub_search* hs, int k) {
    ptl_query* q = hs->q;
    const ptl_navmesh* nm = q->nm;
    side* me = &hs->sd[k];
    for (uint32_t i = 0; i < me->from->cell_count; ++i) {
        const ptl_blob_cell* cell = &nm->cells[me->from->cells[i]];
        for (uint32_t j = 0; j < cell->vert_count; ++j) find_corner(hs, k, cell->first + j, me->from->x, me->from->z, 0, PTL_NONE);
    }
    for (uint32_t i = 0; i < me->from->cell_count; ++i) {
        uint32_t m = ptl_vis_start(q, me->from, me->target, i);
        for (uint32_t j = 0; j < m; ++j) push(hs, k, &q->succ[j]);
    }
}

static void expand_side(hub_search* hs, int k, uint32_t ni) {
    ptl_query* q = hs->q;
    side* me = &hs->sd[k];
    ptl_snode n = q->nodes[ni];
    q->nodes[ni].parent = q->free_head;
    q->free_head = ni;
    hs->expansions++;
    if (q->goal_stamp[n.cell] == me->target && in_cone(q, &n, me->to->x, me->to->z)) {
        double dx = me->to->x - n.ox, dz = me->to->z - n.oz;
        double d = n.g + sqrt(dx * dx + dz * dz);
        if (d < hs->best)
            hs->best = d, hs->best_hub = PTL_NONE, hs->best_side = k, hs->best_root = n.root, hs->best_meet = PTL_NONE;
    }
    uint32_t ns, m = ptl_vis_expand(q, &n, me->target, q->vis_seen, &ns);
    /* The successors first: a turn at a corner (turn_at) writes its own to q->succ. */
    for (uint32_t j = 0; j < m; ++j) push(hs, k, &q->succ[j]);
    for (uint32_t j = 0; j < ns; ++j) find_corner(hs, k, q->vis_seen[j], n.ox, n.oz, n.g, n.root);
}

/* Appends to chain the corners after c up to hub h (c itself not included): each label entry names
   the next corner towards its hub (the labelling's shortest-path tree), whose label holds the hub
   too. An entry without one (a list too long for its 16 bits) is resolved by looking for the
   neighbour w with |c w| + d(w, h) = d(c, h); only a neighbour with |c w| + |w h| <= d(c, h) can be
   one, which the coordinates tell before its label is searched. */
static bool unpack(const ptl_navmesh* nm, uint32_t c, uint32_t h, uint32_t* chain, uint32_t* len, uint32_t cap) {
    const double hx = ptl_nm_vx(nm, nm->hub_vert[h]), hz = ptl_nm_vz(nm, nm->hub_vert[h]);
    while (c != h) {
        if (*len >= cap) return false; /* a cycle: the labels do not match the graph */
        int64_t ec = label_find(nm, c, h);
        if (ec < 0) return false;
        uint32_t next = PTL_NONE;
        if (nm->hub_hop[ec] != PTL_HUB_NO_HOP) {
            next = nm->hub_adj[nm->hub_adj_start[c] + nm->hub_hop[ec]];
        } else {
            const double dch = nm->hub_dist[ec], slack = 1e-9 * (1 + dch);
            double best = INFINITY;
            double cx = ptl_nm_vx(nm, nm->hub_vert[c]), cz = ptl_nm_vz(nm, nm->hub_vert[c]);
            for (uint32_t k = nm->hub_adj_start[c]; k < nm->hub_adj_start[c + 1]; ++k) {
                uint32_t w = nm->hub_adj[k];
                double wx = ptl_nm_vx(nm, nm->hub_vert[w]), wz = ptl_nm_vz(nm, nm->hub_vert[w]);
                double cw = sqrt((wx - cx) * (wx - cx) + (wz - cz) * (wz - cz));
                double wh = sqrt((hx - wx) * (hx - wx) + (hz - wz) * (hz - wz));
                if (cw + wh > dch + slack) continue;
                int64_t e = w == h ? -2 : label_find(nm, w, h);
                if (e == -1) continue;
                double val = cw + (e >= 0 ? nm->hub_dist[e] : 0);
                if (val < best) best = val, next = w;
            }
        }
        if (next == PTL_NONE) return false;
        chain[(*len)++] = next;
        c = next;
    }
    return true;
}

/* The points from the goal back to the start (ptl_back_writer), through the vertices of chain. */
static void write_back(const ptl_navmesh* nm, const uint32_t* chain, uint32_t len, const ptl_qpoint* s,
                       const ptl_qpoint* t, ptl_back_writer* w) {
    ptl_pw_put(w, t->x, t->z, t->y);
    for (uint32_t i = len; i-- > 0;) {
        uint32_t v = chain[i];
        ptl_pw_put(w, ptl_nm_vx(nm, v), ptl_nm_vz(nm, v), nm->verts[3 * v + 1]);
    }
    ptl_pw_put(w, s->x, s->z, s->y);
    ptl_pw_flush(w);
}

/* Appends the roots between side k's end and root r (a vertex, PTL_NONE: the end itself) in path
   order: for the start's side from the start to r, for the goal's side from r to the goal. */
static bool roots(const hub_search* hs, int k, uint32_t r, uint32_t* chain, uint32_t* len, uint32_t cap) {
    const side* me = &hs->sd[k];
    uint32_t first = *len;
    for (uint32_t v = r, steps = 0; v != PTL_NONE; ++steps) {
        if (*len >= cap || steps > cap) return false;
        chain[(*len)++] = v;
        const ptl_hub_vrec* rec = vrec_get(me, v, hs->stamp, false);
        if (!rec || !rec->has_root) return false;
        v = rec->root_par;
    }
    if (k == 0) /* collected from r back to the start: reverse */
        for (uint32_t i = first, j = *len ? *len - 1 : 0; i < j; ++i, --j) {
            uint32_t x = chain[i];
            chain[i] = chain[j];
            chain[j] = x;
        }
    return true;
}

/* Both sides of a hub search between s and t: side 0 searches from s towards the cells stamped
   st0 (those holding t), side 1 from t towards those stamped st1; landmarks and pocket ends. */
static void init_search(hub_search* hs, ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, uint32_t st0,
                        uint32_t st1) {
    memset(hs, 0, sizeof *hs);
    hs->q = q;
    hs->stamp = st1;
    hs->best = INFINITY;
    hs->best_hub = PTL_NONE;
    hs->best_meet = PTL_NONE;
    side* a = &hs->sd[0];
    side* b = &hs->sd[1];
    a->heap = q->heap, a->pend = q->hub_pend[0], a->from = s, a->to = t, a->target = st0;
    a->d = q->hub_d[0], a->taken = q->hub_taken[0], a->seen = q->hub_seen[0];
    a->cd = q->hub_cd[0], a->cfrom = q->hub_cfrom[0], a->pend_cap = q->hub_pend_cap;
    a->vrec = q->hub_vrec[0], a->rq = q->hub_rq[0], a->rq_cap = q->hub_vrec_cap, a->vrec_cap = q->hub_vrec_cap;
    b->heap = q->heap2, b->pend = q->hub_pend[1], b->from = t, b->to = s, b->target = st1;
    b->d = q->hub_d[1], b->taken = q->hub_taken[1], b->seen = q->hub_seen[1];
    b->cd = q->hub_cd[1], b->cfrom = q->hub_cfrom[1], b->pend_cap = q->hub_pend_cap;
    b->vrec = q->hub_vrec[1], b->rq = q->hub_rq[1], b->rq_cap = q->hub_vrec_cap, b->vrec_cap = q->hub_vrec_cap;
    if (q->lm_count) {
        ptl_query_point_bounds(q, t, a->lo, a->hi);
        ptl_query_point_bounds(q, s, b->lo, b->hi);
        hs->lm_count = ptl_query_active_landmarks(q->lm_count, a->lo, a->hi, b->lo, b->hi, PTL_ACTIVE_LANDMARKS, hs->lm);
    }
    if (q->use_pockets) ptl_query_pocket_ends(q, s, t, &hs->pk);
}

/* An end inside a pocket turns at the pocket's corners itself (no labels there): marks each side
   whose end is in a pocket and keeps the lids it must leave through. PTL_ERR_INTERNAL when such an
   end has no room to record its pocket's vertices. */
static ptl_status find_pocket_ends(hub_search* hs) {
    const ptl_query* q = hs->q;
    const ptl_navmesh* nm = q->nm;
    hs->sd[0].in_pocket = hs->sd[1].in_pocket = false;
    if (!nm->vert_lid) return PTL_OK;
    for (int k = 0; k < 2; ++k) {
        side* sd = &hs->sd[k];
        ptl_query_pocket_ends(q, sd->from, sd->from, &sd->ends);
        if (sd->ends.lid_count > 2 * PTL_POCKET_END_LIDS) {
            sd->in_pocket = true;
            continue;
        }
        /* An end in the cell next to its pocket's lid sees all of the lid (the cell is convex):
           a path from it leaves the pocket straight, no turn inside. Not so in a kinked cell
           (navmesh.cell_kinked): an end on the far side of its kink must turn there (a notch 2e-5
           off a hole's edge line, regress/pipeline_poly/...-9fe721), so that pocket is kept. */
        uint32_t kept = 0;
        for (uint32_t i = 0; i < sd->ends.lid_count; ++i) {
            uint32_t l = sd->ends.lids[i], inner = nm->lids[l].inner;
            bool sees = false;
            if (!ptl_nm_cell_kinked(nm, inner))
                for (uint32_t c = 0; c < sd->from->cell_count && !sees; ++c) sees = sd->from->cells[c] == inner;
            if (!sees) sd->ends.lids[kept++] = l;
        }
        sd->ends.lid_count = kept;
        sd->in_pocket = kept > 0;
    }
    if ((hs->sd[0].in_pocket || hs->sd[1].in_pocket) && !q->hub_vrec[0]) return PTL_ERR_INTERNAL;
    return PTL_OK;
}

/* Takes whatever is smallest next, an open node of either side or a corner or root waiting to be
   taken in, until nothing left can beat the best length found or the node pool runs out. */
static void run_search(hub_search* hs) {
    side* a = &hs->sd[0];
    side* b = &hs->sd[1];
    while (!hs->out_of_nodes) {
        double f[6] = {a->count ? a->heap[0].f : INFINITY,       b->count ? b->heap[0].f : INFINITY,
                       a->pend_count ? a->pend[0].f : INFINITY,  b->pend_count ? b->pend[0].f : INFINITY,
                       a->rq_count ? a->rq[0].f : INFINITY,      b->rq_count ? b->rq[0].f : INFINITY};
        int m = 0;
        for (int i = 1; i < 6; ++i)
            if (f[i] < f[m]) m = i;
        if (!(f[m] < hs->best)) break;
        side* sd = &hs->sd[m & 1];
        if (m < 2) {
            expand_side(hs, m, ptl_heap_pop(sd->heap, &sd->count));
        } else if (m < 4) {
            float g = sd->pend[0].g;
            uint32_t c = ptl_heap_pop(sd->pend, &sd->pend_count);
            if (g == (float)sd->cd[c]) take_corner(hs, m - 2, c); /* else a stale entry: found shorter since */
        } else {
            float g = sd->rq[0].g;
            uint32_t v = ptl_heap_pop(sd->rq, &sd->rq_count);
            const ptl_hub_vrec* r = vrec_get(sd, v, hs->stamp, false);
            if (r && g == (float)r->root_g) sweep_root(hs, m - 4, v);
        }
    }
}

/* Puts every hub of a taken label back to +inf, as the next search expects. */
static void reset_labels(hub_search* hs) {
    const ptl_navmesh* nm = hs->q->nm;
    for (int k = 0; k < 2; ++k) {
        const side* sd = &hs->sd[k];
        for (uint32_t i = 0; i < sd->taken_count; ++i) {
            uint32_t c = sd->taken[i];
            for (uint32_t e = nm->hub_label_start[c]; e < nm->hub_label_start[c + 1]; ++e) sd->d[2 * nm->hub_hub[e]] = INFINITY;
        }
    }
}

/* The vertices of the best path into q->hub_chain: the start's roots, a, up to the hub, then from
   b up to the hub reversed, the goal's roots; or the roots of the side that saw the other end.
   `via` is a, the hub, b. false on an inconsistency (a bug). */
static bool build_chain(hub_search* hs, const uint32_t via[3], uint32_t* out_len) {
    const ptl_navmesh* nm = hs->q->nm;
    uint32_t* chain = hs->q->hub_chain;
    const uint32_t cap = nm->h->vert_count + 2;
    uint32_t len = 0;
    if (via[1] == PTL_NONE && hs->best_meet != PTL_NONE) {
        /* Side K's root v, seen by the other side from its root r. */
        const int K = hs->best_side;
        const uint32_t v = hs->best_meet;
        const ptl_hub_vrec* rec = vrec_get(&hs->sd[1 - K], v, hs->stamp, false);
        if (!rec) return false;
        const uint32_t r = rec->meet_from;
        if (K == 1) {
            if (!roots(hs, 0, r, chain, &len, cap) || !roots(hs, 1, v, chain, &len, cap)) return false;
        } else {
            if (!roots(hs, 0, v, chain, &len, cap) || !roots(hs, 1, r, chain, &len, cap)) return false;
        }
    } else if (via[1] == PTL_NONE) {
        if (!roots(hs, hs->best_side, hs->best_root, chain, &len, cap)) return false;
    } else {
        if (via[0] == PTL_NONE || via[2] == PTL_NONE) return false;
        if (!roots(hs, 0, hs->sd[0].cfrom[via[0]], chain, &len, cap)) return false;
        uint32_t first = len;
        chain[len++] = via[0];
        if (!unpack(nm, via[0], via[1], chain, &len, cap)) return false;
        uint32_t mid = len; /* chain ends with the hub */
        if (via[2] != via[1]) {
            chain[len++] = via[2];
            if (!unpack(nm, via[2], via[1], chain, &len, cap)) return false;
            --len; /* the hub, there already */
            for (uint32_t i = mid, j = len - 1; i < j; ++i, --j) {
                uint32_t x = chain[i];
                chain[i] = chain[j];
                chain[j] = x;
            }
        }
        for (uint32_t i = first; i < len; ++i) chain[i] = nm->hub_vert[chain[i]];
        if (!roots(hs, 1, hs->sd[1].cfrom[via[2]], chain, &len, cap)) return false;
    }
    *out_len = len;
    return true;
}

/* Writes the path through the chain's vertices to res: counted first, then written up to the
   caller's capacity. */
static ptl_status write_path(const ptl_navmesh* nm, const uint32_t* chain, uint32_t len, const ptl_qpoint* s,
                             const ptl_qpoint* t, ptl_path_result* res) {
    ptl_back_writer w;
    memset(&w, 0, sizeof w);
    write_back(nm, chain, len, s, t, &w);
    ptl_back_writer out;
    memset(&out, 0, sizeof out);
    out.res = res, out.total = w.k;
    write_back(nm, chain, len, s, t, &out);
    res->point_total = w.k;
    res->point_count = w.k < res->point_capacity ? w.k : res->point_capacity;
    res->length = w.length;
    res->found = res->complete = true;
    res->goal_cell = t->cells[0];
    return res->point_count < res->point_total ? PTL_TRUNCATED : PTL_OK;
}

ptl_status ptl_query_hub_path(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, ptl_path_result* res) {
    const ptl_navmesh* nm = q->nm;
    /* Two generations: cells holding t are the start side's targets, cells holding s the goal
       side's; the per-hub arrays use the second. */
    uint32_t st0 = ptl_query_next_stamp(q), st1 = ptl_query_next_stamp(q);
    if (st1 < st0) st0 = ptl_query_next_stamp(q), st1 = ptl_query_next_stamp(q); /* wrapped in between */
    for (uint32_t i = 0; i < t->cell_count; ++i) q->goal_stamp[t->cells[i]] = st0;
    for (uint32_t i = 0; i < s->cell_count; ++i) {
        if (q->goal_stamp[s->cells[i]] == st0) {
            res->goal_cell = s->cells[i];
            return ptl_query_straight(s, t, res);
        }
    }
    if (nm->cell_piece[s->cells[0]] != nm->cell_piece[t->cells[0]]) return PTL_PARTIAL;
    for (uint32_t i = 0; i < s->cell_count; ++i) q->goal_stamp[s->cells[i]] = st1;
    hub_search hs;
    init_search(&hs, q, s, t, st0, st1);
    if (find_pocket_ends(&hs) < 0) return PTL_ERR_INTERNAL;
    q->node_count = 0;
    q->free_head = PTL_NONE;
    start_side(&hs, 0);
    start_side(&hs, 1);
    run_search(&hs);
    res->nodes_expanded = hs.expansions;
    uint32_t via[3] = {PTL_NONE, hs.best_hub, PTL_NONE}; /* a, the hub, b */
    if (hs.best_hub != PTL_NONE) via[0] = via_corner(&hs, 0, hs.best_hub), via[2] = via_corner(&hs, 1, hs.best_hub);
    reset_labels(&hs);
    if (hs.out_of_nodes) return PTL_ERR_OUT_OF_NODES;
    if (!(hs.best < INFINITY)) return PTL_PARTIAL;
    uint32_t len = 0;
    if (!build_chain(&hs, via, &len)) return PTL_ERR_INTERNAL;
    return write_path(nm, q->hub_chain, len, s, t, res);
}
