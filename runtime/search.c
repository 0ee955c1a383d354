/* Exact Euclidean shortest paths on the convex cells: an interval search in the style of Polyanya
   (Cui, Harabor and Grastien, "Compromise-free Pathfinding on a Navigation Mesh", IJCAI 2017).

   A search node is a root point r (the start or a vertex the path turns at), the length g of the
   path to it, and an interval [L, R] on an edge that every point of is visible from r; the node
   looks into the cell beyond the edge. Expanding a node projects the interval through that cell
   (§3.2): the rays r->R and r->L cut the cell's other edges into
   - observable successors, the parts between the rays: same root, same g;
   - non-observable successors, the parts right of r->R (left of r->L): the path turns at R (L),
     which must then be the edge's vertex and a corner of the walkable boundary; root R, g + |rR|.
   A node whose root lies on its edge's line (a collinear node) sees nothing through the interval;
   the path turns at the nearer end instead, and the cell's other edges are successors.
   h is the length of the shortest path from r through the interval to the goal, reflecting the
   goal across the interval's line when both lie on the same side (§3.3). The search ends when a
   node whose cell holds the goal is taken from the open list: its f is then the exact length.

   Pruning, from the paper (§4): a node whose root was reached before with a smaller g is dropped
   (root-level pruning); a node with a single successor is expanded at once, not queued
   (intermediate pruning); cells with one neighbour that do not hold the goal are never entered.
   Added here, both keeping every taut path (see expand_collinear and turn_claim):
   - a sweep around a turning point keeps the side of the line into it that the path turned to;
   - a turn identical to one made before (same vertex, cell, g, direction and side) is skipped.
   Without them, paths of equal length along lines through vertices (everywhere on grid maps)
   multiply: a 40%-random 512 x 512 map needed up to 13 million expansions for one query, 3,000
   with them. The node pool is reference-counted: it holds the open nodes and their ancestors.

   Everything is computed in the x-z plane; heights come from the cells' vertices. */
#include <math.h>
#include <string.h>

#include "interval.h"
#include "clearance.h"
#include "offmesh.h"

/* ---- Open list (interval.h) ------------------------------------------------------------------ */

static inline void heap_push(ptl_query* q, double f, float g, uint32_t node) { ptl_heap_push(q->heap, &q->heap_count, f, g, node); }
static inline uint32_t heap_pop(ptl_query* q) { return ptl_heap_pop(q->heap, &q->heap_count); }

/* ---- Geometry ------------------------------------------------------------------------------- */

/* ---- Expansion ------------------------------------------------------------------------------ */

typedef struct expansion {
    ptl_snode* out;
    uint32_t count;
    const ptl_slot* slots; /* the expanded cell's edges */
    const uint32_t* goal_stamp;
    uint32_t stamp;
    bool all; /* one-to-all: dead ends too */
    const ptl_query* q; /* for the pockets (q->pockets_on) */
} expansion;

/* Is cell c inside a pocket both ends of the search are outside of (pockets.c)? Out of line: the
   test below is inlined in the expansions' loops over edges, and 3D navmeshes have no pockets. */
static bool cell_skipped(const ptl_query* q, uint32_t c) { return ptl_nm_cell_skips(q->nm, c, &q->pk); }

/* A neighbour worth entering: not a wall, not a dead end unless it holds the goal (or the search has
   no goal and must see everything), not inside a pocket both ends are outside of. Forced inline:
   gcc made it a call per edge of every expanded cell (bench/NOTES.md, "undulating p99"). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool enterable(const expansion* e, const ptl_slot* sl) {
    if (!(sl->open || (sl->nbr != PTL_NONE && (e->all || e->goal_stamp[sl->nbr] == e->stamp)))) return false;
    return !e->q->pockets_on || !cell_skipped(e->q, sl->nbr);
}

/* May the path turn at the vertex of slot `slot` of cell `cell`: a corner, and not one inside a
   pocket both ends are outside of. */
static inline bool turnable(const ptl_query* q, const ptl_blob_cell* cell, uint32_t slot) {
    if (!q->slots[cell->first + slot].corner) return false;
    return !q->pockets_on || !ptl_nm_pocket_skips(q->nm, q->nm->cell_verts[cell->first + slot], &q->pk);
}

/* One-to-all: vertex `slot` of a cell is seen from (ox, oz) at path length g + the straight line. */
static inline void record_seen(ptl_query* q, uint32_t vert, double ox, double oz, double x, double z, double g) {
    double d = g + sqrt((x - ox) * (x - ox) + (z - oz) * (z - oz));
    if (d < q->record[vert]) q->record[vert] = d;
}

/* Successor on edge j of the expanded cell (interval.h, ptl_iv_put). */
static inline void put(expansion* e, uint32_t j, double x0, double z0, double x1, double z1, double t0, double t1,
                       uint32_t root, double ox, double oz, double g, uint8_t turned) {
    ptl_iv_put(&e->out[e->count++], &e->slots[j], x0, z0, x1, z1, t0, t1, root, ox, oz, g, turned);
}

/* Claims the turn to `side` at the cell's vertex in cell-vertex slot `slot`, reached with length g
   arriving along (dx, dz): false when this search made the same turn in the same cell before (same
   g within eps, same direction), whose successors would be identical. Paths of equal length along
   one line reach a vertex through different roots (r->v, and r->a->v with a on the line turning by
   zero); root-level pruning keeps both (equal g), and without this their duplicates multiply down
   the search. The cell is part of the key: one turn's region can span several cells around the
   vertex, each expanding its own part. */
static bool turn_claim(ptl_query* q, uint32_t slot, double g, double dx, double dz, uint8_t side) {
    ptl_turn* t = &q->turns[slot];
    if (t->stamp != q->stamp || g < t->g - q->eps) {
        t->stamp = q->stamp;
        t->g = g, t->dx = dx, t->dz = dz;
        t->sides = side;
        return true;
    }
    if (g > t->g + q->eps) return true; /* worse: root-level pruning decides */
    double cross = dx * t->dz - dz * t->dx, dot = dx * t->dx + dz * t->dz;
    if (dot <= 0 || cross * cross > 1e-18 * (dx * dx + dz * dz) * (t->dx * t->dx + t->dz * t->dz)) return true;
    if ((t->sides & side) == side) return false;
    t->sides |= side;
    return true;
}

/* The entry edge of a node's cell runs from a (the interval's left side, seen from the root) to b
   (its right side): the cell's vertices k and k + 1. */
typedef struct entry {
    const ptl_blob_cell* cell;
    const ptl_slot* sl; /* the cell's edges */
    uint32_t nv, k, k1;
    double ax, az, bx, bz;
} entry;

/* A collinear node: the root lies on the entry edge's line. Turn at the nearer end, which must be a
   vertex and a corner; from there the whole cell is visible. The cell lies left of a->b, so the path
   turns left at a (the root is beyond a, arriving along a->b) and right at b.
   A node whose root already is that vertex continues the sweep around it after a turn there. A
   taut path that turned right at the vertex leaves it to the right of the line from the previous
   turning point through it (left: to the left), so the sweep keeps only that side of the cells
   around the vertex. Polyanya sweeps whole cells; then the left and the right sweeps of a vertex
   that ends intervals on both sides both flood the cells beyond it. */
static uint32_t expand_collinear(ptl_query* q, const ptl_snode* n, const entry* en, expansion* e) {
    const ptl_navmesh* nm = q->nm;
    const ptl_slot* sl = en->sl;
    const double ox = n->ox, oz = n->oz, eps = q->eps;
    double dl = (n->lx - ox) * (n->lx - ox) + (n->lz - oz) * (n->lz - oz);
    double dr = (n->rx - ox) * (n->rx - ox) + (n->rz - oz) * (n->rz - oz);
    uint32_t at;
    double tx, tz, d2;
    uint8_t turned;
    if (dl < dr) {
        if (!(n->ends & PTL_END_LEFT) || !turnable(q, en->cell, en->k)) return 0;
        at = en->k, tx = en->ax, tz = en->az, d2 = dl, turned = PTL_TURNED_LEFT;
    } else {
        if (!(n->ends & PTL_END_RIGHT) || !turnable(q, en->cell, en->k1)) return 0;
        at = en->k1, tx = en->bx, tz = en->bz, d2 = dr, turned = PTL_TURNED_RIGHT;
    }
    uint32_t turn = nm->cell_verts[en->cell->first + at];
    double g = n->g + sqrt(d2);
    if (q->record) /* the whole (convex) cell is visible from the turning point, a vertex of it */
        for (uint32_t m = 0; m < en->nv; ++m)
            record_seen(q, nm->cell_verts[en->cell->first + m], tx, tz, sl[m].x, sl[m].z, g);
    double cdx = 0, cdz = 0, ce2 = 0; /* the sweep's side line, when it has one */
    if (d2 > 0) {
        if (!turn_claim(q, en->cell->first + at, g, tx - ox, tz - oz, turned)) return 0;
    } else {
        turned = n->ends & (PTL_TURNED_RIGHT | PTL_TURNED_LEFT);
        if (turned && n->parent != PTL_NONE) {
            cdx = tx - q->nodes[n->parent].ox, cdz = tz - q->nodes[n->parent].oz;
            ce2 = eps * eps * (cdx * cdx + cdz * cdz);
        }
        /* Each cell around the vertex is swept once per turn. On a flat mesh the side line ends
           the sweep; where layers wind around a vertex (a spiral ramp, stairs around a pillar)
           the cells around it add up to more than a full turn and the sweep would come back to
           the cells it started from forever: the claim stops it there (the same cell, g and
           turn give the same successors). */
        if (!turn_claim(q, en->cell->first + at, g, ce2 > 0 ? cdx : 1.0, ce2 > 0 ? cdz : 0.0,
                        turned ? turned : (uint8_t)(PTL_TURNED_RIGHT | PTL_TURNED_LEFT)))
            return 0;
    }
    for (uint32_t m = 0, j = en->k1; m + 1 < en->nv; ++m) {
        uint32_t j1 = j + 1 == en->nv ? 0 : j + 1;
        if (enterable(e, &sl[j])) {
            double x0 = sl[j].x, z0 = sl[j].z, x1 = sl[j1].x, z1 = sl[j1].z, t0 = 0, t1 = 1;
            bool keep = true;
            if (ce2 > 0) {
                double s0 = cdx * (z0 - tz) - cdz * (x0 - tx), s1 = cdx * (z1 - tz) - cdz * (x1 - tx);
                if (s0 * s0 <= ce2) s0 = 0;
                if (s1 * s1 <= ce2) s1 = 0;
                keep = turned == PTL_TURNED_RIGHT ? ptl_iv_nonneg(-s0, -s1, &t0, &t1) : ptl_iv_nonneg(s0, s1, &t0, &t1);
                keep = keep && t1 > t0;
            }
            if (keep) put(e, j, x0, z0, x1, z1, t0, t1, turn, tx, tz, g, turned);
        }
        j = j1;
    }
    return e->count;
}

/* A node whose root is behind the entry edge: the rays r->R and r->L cut the cell's other edges
   into the parts right of r->R (turn at b), between the rays (observable) and left of r->L (turn
   at a). The side of each vertex is the cross product with each ray, a signed distance scaled by
   the ray's length (sr > 0: left of the right ray, inside; sv < 0: right of the left ray, inside),
   snapped to 0 within eps; no square root, the tolerance is compared squared. Vertex m is the m-th
   after the entry edge, counter-clockwise (m = 0: b). */
static uint32_t expand_cone(ptl_query* q, const ptl_snode* n, const entry* en, expansion* e) {
    const ptl_navmesh* nm = q->nm;
    const ptl_slot* sl = en->sl;
    const uint32_t nv = en->nv, k = en->k, k1 = en->k1;
    const double ox = n->ox, oz = n->oz, eps = q->eps;
    const double urx = n->rx - ox, urz = n->rz - oz, ulx = n->lx - ox, ulz = n->lz - oz;
    const double er2 = eps * eps * (urx * urx + urz * urz), el2 = eps * eps * (ulx * ulx + ulz * ulz);
    double* sr = q->side;
    double* sv = q->side + q->max_cell_verts;
    for (uint32_t m = 0, j = k1; m < nv; ++m) {
        double dx = sl[j].x - ox, dz = sl[j].z - oz;
        double a = urx * dz - urz * dx, b = ulx * dz - ulz * dx;
        sr[m] = a * a <= er2 ? 0 : a;
        sv[m] = b * b <= el2 ? 0 : b;
        j = j + 1 == nv ? 0 : j + 1;
    }
    /* By construction b is not left of the right ray and a not right of the left ray. */
    if ((n->ends & PTL_END_RIGHT) || sr[0] > 0) sr[0] = 0;
    if ((n->ends & PTL_END_LEFT) || sv[nv - 1] < 0) sv[nv - 1] = 0;
    if (q->record) {
        /* The vertices inside the closed cone are seen from the root; the others from an end of the
           interval that is the edge's vertex (the convex cell shows all its vertices from there):
           a path bends around it. Recorded here, not only through successors, because a vertex
           whose edges in this cell are walls (the back of an alcove) starts no successor. */
        const double dr = sqrt(urx * urx + urz * urz), dl = sqrt(ulx * ulx + ulz * ulz);
        for (uint32_t m = 0, j = k1; m < nv; ++m) {
            uint32_t v = nm->cell_verts[en->cell->first + j];
            if (sr[m] >= 0 && sv[m] <= 0) record_seen(q, v, ox, oz, sl[j].x, sl[j].z, n->g);
            else if (sr[m] < 0 && (n->ends & PTL_END_RIGHT)) record_seen(q, v, en->bx, en->bz, sl[j].x, sl[j].z, n->g + dr);
            else if (sv[m] > 0 && (n->ends & PTL_END_LEFT)) record_seen(q, v, en->ax, en->az, sl[j].x, sl[j].z, n->g + dl);
            j = j + 1 == nv ? 0 : j + 1;
        }
    }
    /* Turning at an end: it must be the edge's vertex and a corner, and not a turn made before
       (claimed when the first successor of the turn appears: 1 yes, 0 no, -1 not asked yet). */
    const bool can_r = (n->ends & PTL_END_RIGHT) && turnable(q, en->cell, k1),
               can_l = (n->ends & PTL_END_LEFT) && turnable(q, en->cell, k);
    int turn_r = -1, turn_l = -1;
    double gr = 0, gl = 0;
    for (uint32_t m = 0, j = k1; m + 1 < nv; ++m) {
        uint32_t j1 = j + 1 == nv ? 0 : j + 1;
        if (enterable(e, &sl[j])) {
            double x0 = sl[j].x, z0 = sl[j].z, x1 = sl[j1].x, z1 = sl[j1].z;
            double a = sr[m], b = sr[m + 1], c = sv[m], d = sv[m + 1];
            double t0, t1, u0, u1;
            if (can_r && turn_r && ptl_iv_nonneg(-a, -b, &t0, &t1) && t1 > t0) {
                if (turn_r < 0) {
                    gr = n->g + sqrt(urx * urx + urz * urz);
                    turn_r = turn_claim(q, en->cell->first + k1, gr, urx, urz, PTL_TURNED_RIGHT);
                }
                if (turn_r)
                    put(e, j, x0, z0, x1, z1, t0, t1, nm->cell_verts[en->cell->first + k1], en->bx, en->bz, gr,
                        PTL_TURNED_RIGHT);
            }
            if (ptl_iv_nonneg(a, b, &t0, &t1) && ptl_iv_nonneg(-c, -d, &u0, &u1)) {
                if (u0 > t0) t0 = u0;
                if (u1 < t1) t1 = u1;
                if (t1 > t0) put(e, j, x0, z0, x1, z1, t0, t1, n->root, ox, oz, n->g, 0);
            }
            if (can_l && turn_l && ptl_iv_nonneg(c, d, &t0, &t1) && t1 > t0) {
                if (turn_l < 0) {
                    gl = n->g + sqrt(ulx * ulx + ulz * ulz);
                    turn_l = turn_claim(q, en->cell->first + k, gl, ulx, ulz, PTL_TURNED_LEFT);
                }
                if (turn_l)
                    put(e, j, x0, z0, x1, z1, t0, t1, nm->cell_verts[en->cell->first + k], en->ax, en->az, gl,
                        PTL_TURNED_LEFT);
            }
        }
        j = j1;
    }
    return e->count;
}

/* Writes the successors of n to q->succ (root, g, interval, cell, edge; not parent). */
static uint32_t expand(ptl_query* q, const ptl_snode* n) {
    entry en;
    en.cell = &q->nm->cells[n->cell];
    en.nv = en.cell->vert_count;
    en.sl = q->slots + en.cell->first;
    en.k = n->edge, en.k1 = en.k + 1 == en.nv ? 0 : en.k + 1;
    en.ax = en.sl[en.k].x, en.az = en.sl[en.k].z, en.bx = en.sl[en.k1].x, en.bz = en.sl[en.k1].z;
    const double ex = en.bx - en.ax, ez = en.bz - en.az;
    const double side = ex * (n->oz - en.az) - ez * (n->ox - en.ax); /* < 0: the root is behind the edge */
    expansion e = {q->succ, 0, en.sl, q->goal_stamp, q->stamp, q->record != NULL, q};
    if (side >= 0 || side * side <= q->eps * q->eps * (ex * ex + ez * ez)) return expand_collinear(q, n, &en, &e);
    return expand_cone(q, n, &en, &e);
}

/* Root-level pruning (Polyanya §4): false when the root was reached before with a smaller g. */
static inline bool root_ok(ptl_query* q, uint32_t root, double g) {
    if (root == PTL_NONE) return true;
    if (q->root_stamp[root] != q->stamp) {
        q->root_stamp[root] = q->stamp;
        q->root_g[root] = g;
        return true;
    }
    if (q->root_g[root] + q->eps < g) return false;
    if (g < q->root_g[root]) q->root_g[root] = g;
    return true;
}

/* ---- Node pool: reference-counted, so that it holds only the open nodes and their ancestors ----- */

/* Stores s (parent set) in the pool; PTL_NONE when the pool is full. */
static inline uint32_t node_new(ptl_query* q, const ptl_snode* s) {
    uint32_t i = ptl_pool_take(q);
    if (i == PTL_NONE) return PTL_NONE;
    ptl_snode* n = &q->nodes[i];
    *n = *s;
    n->refs = 0;
    n->done = 0;
    if (n->parent != PTL_NONE) q->nodes[n->parent].refs++;
    return i;
}

/* Node i is expanded or dropped: recycle it, and its ancestors, once nothing refers to them. */
static inline void node_release(ptl_query* q, uint32_t i) {
    q->nodes[i].done = 1;
    while (q->nodes[i].refs == 0 && q->nodes[i].done) {
        uint32_t p = q->nodes[i].parent;
        q->nodes[i].parent = q->free_head;
        q->nodes[i].done = 0;
        q->free_head = i;
        if (p == PTL_NONE) return;
        q->nodes[p].refs--;
        i = p;
    }
}

static inline bool push_node(ptl_query* q, const ptl_snode* s, double f) {
    uint32_t i = node_new(q, s);
    if (i == PTL_NONE) return false;
    heap_push(q, f, (float)s->g, i);
    return true;
}

/* ---- Path output ---------------------------------------------------------------------------- */

/* The height of the corner at an end of the goal's node's interval (turn 1: its left end, 2: its
   right end): the vertex's own, as at every other corner (the roots), so that a corner's height does
   not depend on the end a search started from (reversed, this corner is a root; search_begin picks
   the direction). The goal cell's floor there where the end is not the edge's vertex (no taut path
   turns there: kept for a mesh that rounding made odd). */
static float end_y(const ptl_navmesh* nm, const ptl_snode* fin, int turn, double x, double z) {
    const ptl_blob_cell* c = &nm->cells[fin->cell];
    uint32_t k = fin->edge;
    if (turn == 2) k = k + 1 == c->vert_count ? 0 : k + 1;
    if (fin->ends & (turn == 1 ? PTL_END_LEFT : PTL_END_RIGHT)) return nm->verts[3 * nm->cell_verts[c->first + k] + 1];
    return ptl_query_cell_y(nm, fin->cell, x, z);
}

/* turn: 0 none, 1 at the interval's left end, 2 at its right end. */
static void walk_back(const ptl_query* q, const ptl_snode* fin, int turn, const ptl_qpoint* s, const ptl_qpoint* t,
                      ptl_back_writer* w) {
    const ptl_navmesh* nm = q->nm;
    ptl_pw_put(w, t->x, t->z, t->y);
    if (turn) {
        double x = turn == 1 ? fin->lx : fin->rx, z = turn == 1 ? fin->lz : fin->rz;
        ptl_pw_put(w, x, z, end_y(nm, fin, turn, x, z));
    }
    const ptl_snode* n = fin;
    for (;;) {
        if (n->ends & PTL_NODE_LINK) { /* an off-mesh link node: its start, then the way there */
            const ptl_om_end *from, *to;
            const ptl_om_link* l = ptl_om_arc(nm, n->cell, &from, &to);
            ptl_pw_put_link(w, from->x, from->z, from->y, PTL_PATH_POINT_OFFMESH, l->cost);
            if (n->ends & PTL_NODE_TURN) ptl_pw_put(w, n->lx, n->lz, (float)n->rx);
        }
        if (n->root == PTL_NONE) {
            if (n->parent == PTL_NONE) {
                ptl_pw_put(w, s->x, s->z, s->y);
                return;
            }
            /* a root at an off-mesh link's end: the link node is the parent */
            n = &q->nodes[n->parent];
            const ptl_om_end *from, *to;
            ptl_om_arc(nm, n->cell, &from, &to);
            ptl_pw_put_link(w, to->x, to->z, to->y, 0, 0);
            continue;
        }
        ptl_pw_put(w, n->ox, n->oz, nm->verts[3 * n->root + 1]);
        n = &q->nodes[n->parent];
    }
}

/* The cell of start s (of a search that found fin; turn as finish's) the path leaves s through: the
   one that holds a point just past s towards the path's next point (the root nearest s, else the
   turn, else the goal t); the request's goal cell of a reversed search, as a forward search ends in
   the cell it enters the goal by. */
static uint32_t start_cell_of(const ptl_query* q, const ptl_snode* fin, int turn, const ptl_qpoint* s,
                              const ptl_qpoint* t) {
    const ptl_navmesh* nm = q->nm;
    if (s->cell_count == 1) return s->cells[0];
    double px = turn == 1 ? fin->lx : turn == 2 ? fin->rx : t->x, pz = turn == 1 ? fin->lz : turn == 2 ? fin->rz : t->z;
    for (const ptl_snode* n = fin; n->root != PTL_NONE; n = &q->nodes[n->parent]) px = n->ox, pz = n->oz;
    double dx = px - s->x, dz = pz - s->z, d = sqrt(dx * dx + dz * dz);
    if (!(d > 0)) return s->cells[0];
    const double step = 1e-3 * (d < 1 ? d : 1), mx = s->x + step * dx / d, mz = s->z + step * dz / d;
    for (uint32_t i = 0; i < s->cell_count; ++i) {
        const ptl_blob_cell* c = &nm->cells[s->cells[i]];
        const ptl_slot* sl = q->slots + c->first;
        bool in = true;
        for (uint32_t j = 0; j < c->vert_count && in; ++j) {
            const ptl_slot* b = &sl[j + 1 == c->vert_count ? 0 : j + 1];
            double ex = b->x - sl[j].x, ez = b->z - sl[j].z;
            in = ex * (mz - sl[j].z) - ez * (mx - sl[j].x) >= -q->eps * sqrt(ex * ex + ez * ez);
        }
        if (in) return s->cells[i];
    }
    return s->cells[0];
}

static ptl_status finish(ptl_query* q, const ptl_snode* fin, const ptl_qpoint* s, const ptl_qpoint* t,
                         ptl_path_result* res) {
    /* The goal lies in fin's cell; the path bends at an end of the interval when the goal is not
       visible through it. */
    double ox = fin->ox, oz = fin->oz;
    double lx = fin->lx - ox, lz = fin->lz - oz, rx = fin->rx - ox, rz = fin->rz - oz;
    double gx = t->x - ox, gz = t->z - oz;
    int turn = 0;
    if (lx * gz - lz * gx > q->eps * sqrt(lx * lx + lz * lz)) turn = 1;
    else if (rx * gz - rz * gx < -q->eps * sqrt(rx * rx + rz * rz)) turn = 2;
    ptl_back_writer w = {NULL, 0, 0, 0, 0, 0, 0, false, 0, 0, 0};
    w.links = q->om_on;
    walk_back(q, fin, turn, s, t, &w);
    ptl_pw_flush(&w);
    ptl_back_writer out = {res, w.k, 0, 0, 0, 0, 0, false, 0, 0, 0};
    out.links = q->om_on;
    out.forward = q->run.reversed; /* a reversed search walks back from the request's start */
    walk_back(q, fin, turn, s, t, &out);
    ptl_pw_flush(&out);
    res->point_total = w.k;
    res->point_count = w.k < res->point_capacity ? w.k : res->point_capacity;
    res->length = w.length;
    res->found = res->complete = true;
    res->goal_cell = q->run.reversed ? start_cell_of(q, fin, turn, s, t) : fin->cell;
    return res->point_count < res->point_total ? PTL_TRUNCATED : PTL_OK;
}

/* ---- Landmark bounds (ALT) ------------------------------------------------------------------- */

void ptl_query_point_bounds(const ptl_query* q, const ptl_qpoint* p, double* lo, double* hi) {
    const ptl_navmesh* nm = q->nm;
    const uint32_t k = q->lm_count;
    for (uint32_t i = 0; i < k; ++i) lo[i] = -INFINITY, hi[i] = INFINITY;
    if (p->kind == PTL_QPOINT_VERTEX) {
        const float* d = nm->landmarks + (size_t)p->vert * k;
        for (uint32_t i = 0; i < k; ++i)
            if (isfinite(d[i])) lo[i] = hi[i] = d[i];
        return;
    }
    /* From the nearest vertices of the cell (the tightest bounds; big cells have dozens). */
    enum { NEAREST = 6 };
    const ptl_blob_cell* cell = &nm->cells[p->cells[0]];
    uint32_t pick[NEAREST];
    double pd[NEAREST];
    uint32_t np = 0;
    /* Picked by squared distance (a square root for each of dozens of vertices cost more than the
       rest of the bounds), the root taken of the picks only. */
    for (uint32_t j = 0; j < cell->vert_count; ++j) {
        uint32_t v = nm->cell_verts[cell->first + j];
        double dv = (nm->verts[3 * v] - p->x) * (nm->verts[3 * v] - p->x) +
                    (nm->verts[3 * v + 2] - p->z) * (nm->verts[3 * v + 2] - p->z);
        uint32_t at = np < NEAREST ? np++ : NEAREST;
        if (at == NEAREST) {
            if (dv >= pd[NEAREST - 1]) continue;
            at = NEAREST - 1;
        }
        while (at > 0 && pd[at - 1] > dv) pick[at] = pick[at - 1], pd[at] = pd[at - 1], --at;
        pick[at] = v, pd[at] = dv;
    }
    for (uint32_t j = 0; j < np; ++j) {
        const float* d = nm->landmarks + (size_t)pick[j] * k;
        const double dv = sqrt(pd[j]);
        for (uint32_t i = 0; i < k; ++i) {
            if (!isfinite(d[i])) continue;
            if (d[i] - dv > lo[i]) lo[i] = d[i] - dv;
            if (d[i] + dv < hi[i]) hi[i] = d[i] + dv;
        }
    }
}

uint32_t ptl_query_active_landmarks(uint32_t k, const double* alo, const double* ahi, const double* blo,
                                    const double* bhi, uint32_t max, uint32_t* out) {
    double val[PTL_MAX_LANDMARKS];
    for (uint32_t i = 0; i < k; ++i) {
        double x = alo[i] - bhi[i], y = blo[i] - ahi[i];
        val[i] = x > y ? x : y;
        if (!(val[i] > -INFINITY)) val[i] = -INFINITY; /* NaN: a landmark of another piece */
    }
    uint32_t n = 0;
    while (n < max && n < k) {
        uint32_t best = PTL_NONE;
        for (uint32_t i = 0; i < k; ++i)
            if (val[i] > -INFINITY && (best == PTL_NONE || val[i] > val[best])) best = i;
        if (best == PTL_NONE) break;
        out[n++] = best;
        val[best] = -INFINITY;
    }
    return n;
}

/* A lower bound of the distance between two points with landmark bounds (a) and (b). */
static double alt_bound(const double* alo, const double* ahi, const double* blo, const double* bhi, uint32_t k) {
    double best = 0;
    for (uint32_t i = 0; i < k; ++i) {
        double x = blo[i] - ahi[i], y = alo[i] - bhi[i];
        double h = x > y ? x : y;
        if (!(h > best)) continue; /* also skips NaN from infinite bounds */
        double slack = PTL_ALT_SLACK * (fabs(blo[i]) + fabs(ahi[i]) + fabs(alo[i]) + fabs(bhi[i]));
        if (h - slack > best) best = h - slack;
    }
    return best;
}

/* The landmark bound of root vertex r's distance to the goal, cached per search. */
static inline double root_alt(ptl_query* q, uint32_t r) {
    if (r == PTL_NONE) return q->alt_start;
    if (q->alt_stamp[r] == q->stamp) return q->alt_h[r];
    const uint32_t k = q->lm_count;
    double best = ptl_alt_vertex(q->nm->landmarks + (size_t)r * k, q->lm_goal_lo, q->lm_goal_hi, k);
    q->alt_stamp[r] = q->stamp;
    q->alt_h[r] = best;
    return best;
}

/* Shortest distance from (ox, oz) to the segment l-r: the one-to-all search's order key. */
static double seg_dist(double ox, double oz, double lx, double lz, double rx, double rz) {
    double dx = rx - lx, dz = rz - lz, len2 = dx * dx + dz * dz;
    double t = len2 > 0 ? ((ox - lx) * dx + (oz - lz) * dz) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double px = lx + t * dx - ox, pz = lz + t * dz - oz;
    return sqrt(px * px + pz * pz);
}

/* The key of a node: g + a lower bound of the rest. Towards a goal: the way through the interval
   (Polyanya §3.3), or the root's landmark bound when larger; without a goal (one-to-all): the
   distance to the interval, so that nodes come out in order of length (Dijkstra). */
#if defined(__GNUC__)
__attribute__((always_inline)) /* gcc outlined most of it once the links' term came in */
#endif
static inline double node_f(ptl_query* q, const ptl_snode* n, const ptl_qpoint* t, const bool links) {
    if (q->record) return n->g + seg_dist(n->ox, n->oz, n->lx, n->lz, n->rx, n->rz);
    double h = ptl_iv_h(n->ox, n->oz, t->x, t->z, n->lx, n->lz, n->rx, n->rz);
    if (links && q->om_useful_count) h = ptl_om_h_min(q, n, h);
    if (q->alt_on) {
        double a = root_alt(q, n->root);
        if (a > h) h = a;
    }
    return n->g + h;
}

/* ---- Off-mesh links (offmesh.h; offmesh_search.c prepares the search) -------------------------
   A link's start S acts as a goal point: a node entering a cell that holds S gives the exact length
   to S as finish() gives the goal's (straight through the interval, or turning at an end of it),
   and a link node for the arc with that length, keyed by it plus the arc's bound k. The link node
   taken from the open list with the best length to S seeds nodes from the link's end E as the
   start seeds its cells, at that length plus the link's cost. A node in the goal's cell no longer
   ends the search when its key was lowered by a link (the way on may still take one): it goes back
   as a final node keyed by its exact length. */

/* The link code stays out of the search's loop (inlined, it cost the search without links 3% more
   instructions: bench/NOTES.md, "Off-mesh links"). */
#if defined(__GNUC__)
#define OM_COLD __attribute__((noinline, cold))
#else
#define OM_COLD
#endif

/* The link node of arc `arc` reached at length g from base's root (its root, origin and parent),
   turning at (tx, tz, ty) on the way when `turn`; only when better than the arc's best so far. */
static bool push_link(ptl_query* q, uint32_t arc, const ptl_snode* base, double g, bool turn, double tx, double tz,
                      float ty) {
    if (ptl_om_link_filtered(q, arc)) return true;
    if (q->om_done[arc] == q->stamp || (q->om_stamp[arc] == q->stamp && !(g < q->om_g[arc] - q->eps))) return true;
    q->om_stamp[arc] = q->stamp;
    q->om_g[arc] = g;
    ptl_snode l = *base;
    l.g = g, l.cell = arc, l.edge = 0;
    l.ends = (uint8_t)(PTL_NODE_LINK | (turn ? PTL_NODE_TURN : 0));
    l.lx = tx, l.lz = tz, l.rx = ty, l.rz = 0;
    return push_node(q, &l, g + q->om_k[arc]);
}

/* The arcs that start in n's cell, reached through n's interval (finish()'s rule for the goal). */
OM_COLD static bool reach_links(ptl_query* q, const ptl_snode* n) {
    const ptl_navmesh* nm = q->nm;
    const double ox = n->ox, oz = n->oz;
    const double lx = n->lx - ox, lz = n->lz - oz, rx = n->rx - ox, rz = n->rz - oz;
    for (uint32_t i = nm->om_cell_start[n->cell]; i < nm->om_cell_start[n->cell + 1]; ++i) {
        const uint32_t arc = nm->om_cell_arcs[i];
        const ptl_om_end *from, *to;
        ptl_om_arc(nm, arc, &from, &to);
        const double gx = from->x - ox, gz = from->z - oz;
        int turn = 0;
        if (lx * gz - lz * gx > q->eps * sqrt(lx * lx + lz * lz)) turn = 1;
        else if (rx * gz - rz * gx < -q->eps * sqrt(rx * rx + rz * rz)) turn = 2;
        bool ok;
        if (turn) {
            double tx = turn == 1 ? n->lx : n->rx, tz = turn == 1 ? n->lz : n->rz;
            double g = n->g + sqrt((tx - ox) * (tx - ox) + (tz - oz) * (tz - oz)) +
                       sqrt((from->x - tx) * (from->x - tx) + (from->z - tz) * (from->z - tz));
            ok = push_link(q, arc, n, g, true, tx, tz, ptl_query_cell_y(nm, n->cell, tx, tz));
        } else {
            ok = push_link(q, arc, n, n->g + sqrt(gx * gx + gz * gz), false, 0, 0, 0);
        }
        if (!ok) return false;
    }
    return true;
}

/* Seeds from point p (the start: parent PTL_NONE; a link's end: parent its link node) reached at
   length g: nodes through its cells' edges (with `edges`), a final node in each of its cells that
   holds the goal, and the link nodes of the arcs that start in its cells. */
OM_COLD static bool seed_point(ptl_query* q, const ptl_qpoint* p, double g, uint32_t parent, const ptl_qpoint* t,
                               bool edges) {
    const ptl_navmesh* nm = q->nm;
    expansion e = {q->succ, 0, NULL, q->goal_stamp, q->stamp, false, q};
    ptl_snode base;
    memset(&base, 0, sizeof base);
    base.ox = base.lx = base.rx = p->x, base.oz = base.lz = base.rz = p->z;
    base.g = g, base.root = PTL_NONE, base.parent = parent;
    for (uint32_t i = 0; i < p->cell_count; ++i) {
        const uint32_t c = p->cells[i];
        const ptl_blob_cell* cell = &nm->cells[c];
        const uint32_t* cv = nm->cell_verts + cell->first;
        e.slots = q->slots + cell->first;
        if (q->goal_stamp[c] == q->stamp) {
            ptl_snode fin = base;
            fin.cell = c, fin.ends = PTL_NODE_FINAL;
            const double d = sqrt((t->x - p->x) * (t->x - p->x) + (t->z - p->z) * (t->z - p->z));
            if (!push_node(q, &fin, g + d)) return false;
        }
        for (uint32_t j = 0; edges && j < cell->vert_count; ++j) {
            uint32_t j1 = j + 1 == cell->vert_count ? 0 : j + 1;
            if (!enterable(&e, &e.slots[j]) || ptl_vis_start_on_edge(q, p, c, j, cv[j], cv[j1])) continue;
            e.count = 0;
            put(&e, j, e.slots[j].x, e.slots[j].z, e.slots[j1].x, e.slots[j1].z, 0, 1, PTL_NONE, p->x, p->z, g, 0);
            ptl_snode* n = &q->succ[0];
            n->parent = parent;
            if (ptl_om_cell_has_arcs(nm, n->cell) && !reach_links(q, n)) return false;
            if (!push_node(q, n, node_f(q, n, t, true))) return false;
        }
        if (!ptl_om_cell_has_arcs(nm, c)) continue; /* (no index at all after a failed rebuild) */
        for (uint32_t k = nm->om_cell_start[c]; k < nm->om_cell_start[c + 1]; ++k) {
            const uint32_t arc = nm->om_cell_arcs[k];
            const ptl_om_end *from, *to;
            ptl_om_arc(nm, arc, &from, &to);
            double d = sqrt((from->x - p->x) * (from->x - p->x) + (from->z - p->z) * (from->z - p->z));
            if (!push_link(q, arc, &base, g + d, false, 0, 0, 0)) return false;
        }
    }
    return true;
}

/* A link node taken from the open list: the first with the best length to its start seeds its end. */
OM_COLD static ptl_status link_pop(ptl_query* q, uint32_t ni, const ptl_qpoint* t) {
    const uint32_t arc = q->nodes[ni].cell;
    const double g = q->nodes[ni].g;
    bool ok = true;
    if (q->om_done[arc] != q->stamp && !(g > q->om_g[arc] + q->eps)) {
        q->om_done[arc] = q->stamp;
        const ptl_om_end *from, *to;
        const ptl_om_link* l = ptl_om_arc(q->nm, arc, &from, &to);
        ptl_qpoint e;
        ptl_om_end_point(q->nm, to, &e);
        ok = seed_point(q, &e, g + l->cost, ni, t, true);
    }
    node_release(q, ni);
    return ok ? PTL_OK : PTL_ERR_OUT_OF_NODES;
}

/* A node in the goal's cell, taken from the open list on a search with links: its key may be a
   link's bound, lower than the goal's through this interval. Then the goal goes back as a final node keyed by its
   exact length, and the node is expanded on: 0 (-1: out of nodes); else 1, the goal's length is
   final. */
OM_COLD static int goal_with_links(ptl_query* q, const ptl_snode* n, const ptl_qpoint* t) {
    const double key = node_f(q, n, t, true); /* as it was pushed (no landmarks with links) */
    double c = n->g + ptl_iv_h(n->ox, n->oz, t->x, t->z, n->lx, n->lz, n->rx, n->rz);
    if (c <= key + q->eps) return 1;
    ptl_snode fin = *n;
    fin.ends |= PTL_NODE_FINAL;
    return push_node(q, &fin, c) ? 0 : -1;
}

/* ---- The search ----------------------------------------------------------------------------- */

/* Adds the pockets (lid ids) that hold point p to e: those of its cells (a point on a lid, or at a
   lid's end, belongs to the cells on every side). */
static void point_lids(const ptl_navmesh* nm, const ptl_qpoint* p, ptl_pocket_ends* e) {
    for (uint32_t i = 0; nm->cell_lid && i < p->cell_count; ++i) {
        uint32_t l = nm->cell_lid[p->cells[i]];
        if (l == PTL_NONE || (e->lid_count <= 2 * PTL_POCKET_END_LIDS && ptl_pocket_ends_in(e, l))) continue;
        if (e->lid_count < 2 * PTL_POCKET_END_LIDS) e->lids[e->lid_count] = l;
        if (e->lid_count <= 2 * PTL_POCKET_END_LIDS) e->lid_count++;
    }
}

void ptl_query_pocket_ends(const ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, ptl_pocket_ends* out) {
    out->sx = s->x, out->sz = s->z, out->tx = t->x, out->tz = t->z;
    out->lid_count = 0;
    point_lids(q->nm, s, out);
    point_lids(q->nm, t, out);
}

enum { ALT_AFTER = 128 }; /* expansions before a search on a 3D navmesh takes the landmark bounds */

/* The landmark bounds of both ends: from here on the search's keys take them too. */
static void take_landmark_bounds(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t) {
    double slo[PTL_MAX_LANDMARKS], shi[PTL_MAX_LANDMARKS];
    ptl_query_point_bounds(q, t, q->lm_goal_lo, q->lm_goal_hi);
    ptl_query_point_bounds(q, s, slo, shi);
    q->alt_start = alt_bound(slo, shi, q->lm_goal_lo, q->lm_goal_hi, q->lm_count);
    q->alt_on = true;
}

/* Queues the nodes from the start s through its cells' edges towards t (g 0, no parent), and the
   link nodes of the arcs that start in its cells with `links`. False when the pool is full. */
static bool seed_start(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, uint32_t stamp, bool links) {
    const ptl_navmesh* nm = q->nm;
    expansion e = {q->succ, 0, NULL, q->goal_stamp, stamp, q->record != NULL, q};
    for (uint32_t i = 0; i < s->cell_count; ++i) {
        uint32_t c = s->cells[i];
        const ptl_blob_cell* cell = &nm->cells[c];
        const uint32_t* cv = nm->cell_verts + cell->first;
        e.slots = q->slots + cell->first;
        for (uint32_t j = 0; j < cell->vert_count; ++j) {
            uint32_t j1 = j + 1 == cell->vert_count ? 0 : j + 1;
            if (q->record) record_seen(q, cv[j], s->x, s->z, e.slots[j].x, e.slots[j].z, 0);
            if (!enterable(&e, &e.slots[j]) || ptl_vis_start_on_edge(q, s, c, j, cv[j], cv[j1])) continue;
            e.count = 0;
            put(&e, j, e.slots[j].x, e.slots[j].z, e.slots[j1].x, e.slots[j1].z, 0, 1, PTL_NONE, s->x, s->z, 0, 0);
            ptl_snode* n = &q->succ[0];
            n->parent = PTL_NONE;
            if (links && ptl_om_cell_has_arcs(nm, n->cell) && !reach_links(q, n)) return false;
            if (!push_node(q, n, node_f(q, n, t, links))) return false;
        }
    }
    return !links || seed_point(q, s, 0, PTL_NONE, t, false);
}

/* Would a search from s to t start with keys all above `key` (the least key of the search from t
   to s)? Its first keys are seed_start's: the straight-line bound through each enterable edge of s's
   cells (on a navmesh without pockets, links and landmarks at the start). Stops at the first edge
   at or under `key`, the common case: then the search stays as it is. False when no edge leads on. */
static bool starts_higher(const ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, double key) {
    const ptl_navmesh* nm = q->nm;
    bool any = false;
    for (uint32_t i = 0; i < s->cell_count; ++i) {
        uint32_t c = s->cells[i];
        const ptl_blob_cell* cell = &nm->cells[c];
        const ptl_slot* sl = q->slots + cell->first;
        for (uint32_t j = 0; j < cell->vert_count; ++j) {
            uint32_t j1 = j + 1 == cell->vert_count ? 0 : j + 1;
            bool in = sl[j].open;
            for (uint32_t k = 0; !in && sl[j].nbr != PTL_NONE && k < t->cell_count; ++k) in = t->cells[k] == sl[j].nbr;
            if (!in) continue;
            double h = ptl_iv_h(s->x, s->z, t->x, t->z, sl[j1].x, sl[j1].z, sl[j].x, sl[j].z);
            if (h > key) {
                any = true;
                continue;
            }
            const uint32_t* cv = nm->cell_verts + cell->first;
            if (!ptl_vis_start_on_edge(q, s, c, j, cv[j], cv[j1])) return false;
        }
    }
    return any;
}

/* A partial path's end (the reachable point nearest an unreachable goal) lies on its piece's rim,
   among walls and corners: a search from there at about the same first key expands more. Reversed
   only when its first key is this much above (relative): nav_test's p99 of instructions 40.4 k ->
   35.5 k, dungeon's 40.9 k -> 39.6 k (undulating has no partial paths). */
#define NEAREST_MARGIN 0.01

/* Sets up the interval search from s to t in q->run (t with no cells: one-to-all, recording into
   q->record) and queues the start's nodes. `links`: the search uses off-mesh links (q->om_on).
   PTL_IN_PROGRESS when expansions are to come (search_run); else the answer: the straight segment
   when an end's cells meet (written to res), PTL_PARTIAL when the ends lie in different pieces,
   PTL_ERR_OUT_OF_NODES.

   The direction: on a 3D navmesh (no pockets, links or one-to-all) the search runs from t to s
   (q->run.reversed; finish writes the path from s to t all the same) when t's first key is the
   larger. Both are lower bounds of the same length; the end whose bound starts nearer it usually
   has fewer nodes under it. Between floors (a path round a ramp back under the floor it started
   on) the straight line lets out every corner near the upper end: from there 40-54 expansions,
   from the lower end 10-20 (bench/NOTES.md, "Path query tails ... the direction"). Over Detour's
   1,000 pairs the 11th largest count of expansions: nav_test 42 -> 32, undulating 49 -> 41,
   dungeon 50 -> 38 (with NEAREST_MARGIN). The length is the same either way and so is every corner's height (end_y);
   where paths of equal length tie, or a straight run passes several vertices, the points may be
   others. */
static ptl_status search_begin(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, ptl_path_result* res,
                               const bool links) {
    const ptl_navmesh* nm = q->nm;
    ptl_search_run* run = &q->run;
    run->state = PTL_RUN_NONE;
    run->reversed = false;
    uint32_t stamp = ptl_query_next_stamp(q);
    for (uint32_t i = 0; i < t->cell_count; ++i) q->goal_stamp[t->cells[i]] = stamp;
    for (uint32_t i = 0; i < s->cell_count; ++i) {
        if (q->goal_stamp[s->cells[i]] == stamp && !(links && ptl_om_may_beat(q, s, t))) {
            res->goal_cell = s->cells[i];
            return ptl_query_straight(s, t, res);
        }
    }
    /* Start and goal in different pieces of walkable space (not joined by links): no path, and no
       search needed. */
    if (t->cell_count && !ptl_nm_same_piece(nm, s->cells[0], t->cells[0])) return PTL_PARTIAL;
    /* The landmark bounds cost the bounds of both ends and one per root, more than they save on a
       search of a few expansions (most searches on a level's navmesh: the interval heuristic alone
       leads them straight to the goal). So on a 3D navmesh they are taken once a search has gone on
       for ALT_AFTER expansions; the nodes queued before keep their keys, lower bounds too. On a 2D
       map (hundreds or thousands of expansions, between walls that hide the goal) they pay from
       the start: delayed there, a search expanded 1-8% more (bench, landmarks table). */
    q->alt_on = false;
    bool alt_later = q->lm_count && !q->record && !links; /* landmarks do not see links */
    if (alt_later && !(nm->h->vox_cs > 0)) {
        take_landmark_bounds(q, s, t);
        alt_later = false;
    }
    q->node_count = 0;
    q->free_head = PTL_NONE;
    q->heap_count = 0;
    /* Pockets only for a search with a goal (one-to-all searches must see everything). */
    q->pockets_on = q->use_pockets && !q->record && !links; /* nor do pockets */
    if (q->pockets_on) ptl_query_pocket_ends(q, s, t, &q->pk);
    if (!seed_start(q, s, t, stamp, links)) return PTL_ERR_OUT_OF_NODES;
    if (nm->h->vox_cs > 0 && !q->use_pockets && !q->record && !links && q->heap_count > 0 && t->cell_count &&
        starts_higher(q, t, s, q->heap[0].f * (q->to_nearest ? 1 + NEAREST_MARGIN : 1) + q->eps)) {
        const ptl_qpoint* x = s;
        s = t, t = x;
        stamp = ptl_query_next_stamp(q);
        for (uint32_t i = 0; i < t->cell_count; ++i) q->goal_stamp[t->cells[i]] = stamp;
        q->node_count = 0;
        q->free_head = PTL_NONE;
        q->heap_count = 0;
        if (!seed_start(q, s, t, stamp, false)) return PTL_ERR_OUT_OF_NODES;
        run->reversed = true;
    }
    ptl_qpoint_copy(&run->s, s);
    ptl_qpoint_copy(&run->t, t);
    run->stamp = stamp;
    run->alt_later = alt_later;
    run->links = links;
    run->expansions = 0;
    /* A guard against a livelock on a broken mesh (the pool recycles nodes, so it bounds nothing). */
    run->limit = (uint64_t)q->max_nodes * 16 + (uint64_t)nm->h->cell_count * 1024;
    run->fin = PTL_NONE;
    run->state = PTL_RUN_GOING;
    return PTL_IN_PROGRESS;
}

/* Ends the run with status st (the expansions counted into res when there is one). */
static ptl_status run_end(ptl_query* q, ptl_status st, ptl_path_result* res) {
    q->run.state = PTL_RUN_DONE;
    q->run.status = st;
    if (res) res->nodes_expanded = (uint32_t)(q->run.expansions > UINT32_MAX ? UINT32_MAX : q->run.expansions);
    return st;
}

/* Goes on with the search set up by search_begin for at most `budget` expansions: PTL_IN_PROGRESS
   when they ran out first. Else the answer: with res, the path written (finish); without, PTL_OK
   and the goal's node kept in q->run.fin for a later finish (the sliced API). PTL_PARTIAL when
   the open list runs dry (one-to-all searches always). */
static ptl_status search_run(ptl_query* q, uint64_t budget, ptl_path_result* res) {
    ptl_search_run* run = &q->run;
    const ptl_qpoint* s = &run->s;
    const ptl_qpoint* t = &run->t;
    const uint32_t stamp = run->stamp;
    const bool links = run->links;
    const ptl_navmesh* nm = q->nm;
    const uint64_t stop = budget > UINT64_MAX - run->expansions ? UINT64_MAX : run->expansions + budget;
    while (q->heap_count > 0) {
        if (run->expansions >= stop) return PTL_IN_PROGRESS;
        if (run->alt_later && run->expansions >= ALT_AFTER) {
            take_landmark_bounds(q, s, t);
            run->alt_later = false;
        }
        uint32_t ni = heap_pop(q);
        ptl_snode cur = q->nodes[ni];
        bool final = (cur.ends & PTL_NODE_FINAL) != 0;
        if (cur.ends & PTL_NODE_LINK) {
            ptl_status st = link_pop(q, ni, t);
            if (st < 0) return run_end(q, st, res);
            continue;
        }
        if (!final && q->goal_stamp[cur.cell] == stamp) {
            int f = links ? goal_with_links(q, &cur, t) : 1;
            if (f < 0) return run_end(q, PTL_ERR_OUT_OF_NODES, res);
            final = f > 0;
        }
        if (final) {
            if (!res) {
                run->fin = ni;
                return run_end(q, PTL_OK, NULL);
            }
            run_end(q, PTL_OK, res);
            return finish(q, &q->nodes[ni], s, t, res);
        }
        if (cur.root != PTL_NONE && q->root_g[cur.root] + q->eps < cur.g) {
            node_release(q, ni);
            continue;
        }
        uint32_t ref = ni; /* a pool node with cur's root and chain, parent of successors that turn */
        for (;;) {
            if (++run->expansions > run->limit) return run_end(q, PTL_ERR_OUT_OF_NODES, res);
            uint32_t m = expand(q, &cur), kept = 0;
            for (uint32_t i = 0; i < m; ++i) {
                ptl_snode* n = &q->succ[i];
                if (!root_ok(q, n->root, n->g)) continue;
                n->parent = n->root == cur.root ? cur.parent : ref;
                if (links && ptl_om_cell_has_arcs(nm, n->cell) && !reach_links(q, n)) return PTL_ERR_OUT_OF_NODES;
                if (kept != i) q->succ[kept] = *n;
                ++kept;
            }
            if (kept == 1 && q->goal_stamp[q->succ[0].cell] != stamp) {
                /* Intermediate pruning: follow a lone successor without queueing it. It needs a pool
                   node only when it turns, to keep the chain of roots. */
                if (q->succ[0].root != cur.root) {
                    uint32_t i = node_new(q, &q->succ[0]);
                    if (i == PTL_NONE) return run_end(q, PTL_ERR_OUT_OF_NODES, res);
                    node_release(q, ref);
                    ref = i;
                }
                cur = q->succ[0];
                continue;
            }
            for (uint32_t i = 0; i < kept; ++i) {
                ptl_snode* n = &q->succ[i];
                if (!push_node(q, n, node_f(q, n, t, links))) return run_end(q, PTL_ERR_OUT_OF_NODES, res);
            }
            break;
        }
        node_release(q, ref);
    }
    return run_end(q, PTL_PARTIAL, res);
}

/* Readies the off-mesh links for a search to t (offmesh_search.c): q->om_on when the search uses
   them (never for one-to-all searches). */
static ptl_status links_begin(ptl_query* q, const ptl_qpoint* t) {
    q->om_on = false, q->om_useful_count = 0;
    if (!q->record && (q->nm->om_live || q->om_gen != q->nm->om_gen)) return ptl_om_begin(q, t);
    return PTL_OK;
}

/* The interval search from s to t, whole (t with no cells: one-to-all, recording into q->record). */
static ptl_status search(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, ptl_path_result* res) {
    ptl_status st = links_begin(q, t);
    if (st < 0) return st;
    st = search_begin(q, s, t, res, q->om_on);
    if (st != PTL_IN_PROGRESS) {
        if (st == PTL_PARTIAL) res->nodes_expanded = 0;
        q->run.state = PTL_RUN_NONE;
        return st;
    }
    st = search_run(q, UINT64_MAX, res);
    q->run.state = PTL_RUN_NONE;
    return st;
}


ptl_status ptl_query_exact(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, ptl_path_result* res) {
    return search(q, s, t, res);
}

ptl_status ptl_query_vertex_distances(ptl_query* q, uint32_t v, double* dist) {
    const ptl_navmesh* nm = q->nm;
    if (v >= nm->h->vert_count || !dist) return PTL_ERR_INVALID_ARG;
    for (uint32_t i = 0; i < nm->h->vert_count; ++i) dist[i] = INFINITY;
    ptl_qpoint s, t;
    ptl_query_vertex_point(nm, v, &s);
    if (s.cell_count == 0) return PTL_ERR_INVALID_ARG;
    memset(&t, 0, sizeof t);
    t.x = s.x, t.z = s.z;
    ptl_path_result res;
    memset(&res, 0, sizeof res);
    q->record = dist;
    ptl_status st = search(q, &s, &t, &res);
    q->record = NULL;
    dist[v] = 0;
    return st == PTL_PARTIAL ? PTL_OK : st;
}

ptl_status ptl_query_search_begin(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t) {
    ptl_path_result scratch;
    memset(&scratch, 0, sizeof scratch);
    ptl_status st = links_begin(q, t);
    if (st < 0) return st;
    st = search_begin(q, s, t, &scratch, q->om_on);
    /* answered at once (a common cell, different pieces): found whole at finish */
    if (st != PTL_IN_PROGRESS) q->run.state = PTL_RUN_NONE;
    return st;
}

ptl_status ptl_query_search_step(ptl_query* q, uint64_t budget) { return search_run(q, budget, NULL); }

ptl_status ptl_query_run_result(ptl_query* q, ptl_path_result* res) {
    ptl_search_run* run = &q->run;
    run->state = PTL_RUN_NONE;
    res->nodes_expanded = (uint32_t)(run->expansions > UINT32_MAX ? UINT32_MAX : run->expansions);
    if (run->status != PTL_OK) return run->status;
    return finish(q, &q->nodes[run->fin], &run->s, &run->t, res);
}
