/* The corridor path of a disc of radius r > 0 (PTL_PATH_CORRIDOR with a radius; issue 18).

   1. A* over the cells (corridor.c) that skips the portals a disc cannot cross: both ends on
      walls and nearer than 2 r.
   2. The sleeve of the corridor: its portals, and between them the vertices of each cell's sides
      (a cell is convex, so the segment from any vertex of its left side to any of its right side
      lies in it: a sequence of diagonals, as a triangulated channel gives).
   3. The funnel over those diagonals with a circle of radius r around every end (Demyen and
      Buro, "Efficient triangulation-based pathfinding", 2006, the funnel modified for circular
      units; Kallmann, "Shortest paths with arbitrary clearance from navigation meshes", 2010, §4):
      the funnel's sides are tangents from the apex's circle (or the start) to the circles of the
      left ends (passed counter-clockwise, the corner on the path's left) and of the right ends
      (clockwise); a side that crosses the other makes its circle the new apex.
   4. The path this gives keeps r from the sleeve's corners. Walls beyond the sleeve (Kallmann's
      "disturbances": a wall corner near a portal but not on it), a wall between two corners, or a
      tangent point outside a corner's normal cone would bring it nearer: every segment and arc is
      checked against the walls as the exact search checks them (disc_path.c), and where one fails
      the exact search answers instead. So the path always keeps r; it is the shortest within the
      corridor's cells where the check passes, never shorter than the exact path, and the exact
      one otherwise. */
#include <math.h>
#include <string.h>

#include "disc_internal.h"

typedef struct diag {
    uint32_t left, right; /* vertex ids; the goal: PTL_NONE for both */
} diag;

/* Does the segment between the vertices at indices a and b of convex cell cv (m vertices) lie on
   its boundary: are the vertices between them, one way round, on the line through them? Such a
   "diagonal" is no crossing of the cell (a straight side with several vertices on it). */
static bool on_side(const ptl_navmesh* nm, const uint32_t* cv, uint32_t m, uint32_t a, uint32_t b) {
    const double ax = ptl_nm_vx(nm, cv[a]), az = ptl_nm_vz(nm, cv[a]), bx = ptl_nm_vx(nm, cv[b]), bz = ptl_nm_vz(nm, cv[b]);
    const double dx = bx - ax, dz = bz - az, tol = 1e-9 * (dx * dx + dz * dz);
    for (int way = 0; way < 2; ++way) {
        uint32_t from = way ? b : a, to = way ? a : b, t = from;
        bool flat = true;
        for (t = t + 1 == m ? 0 : t + 1; t != to && flat; t = t + 1 == m ? 0 : t + 1) {
            double o = dx * (ptl_nm_vz(nm, cv[t]) - az) - dz * (ptl_nm_vx(nm, cv[t]) - ax);
            flat = fabs(o) <= tol;
        }
        if (flat) return true;
    }
    return false;
}

/* The diagonals of the sleeve from the start cell to `goal` into d (at most cap); how many, or
   PTL_NONE when they do not fit. */
static uint32_t sleeve(const ptl_query* q, uint32_t goal, diag* d, uint32_t cap) {
    const ptl_navmesh* nm = q->nm;
    uint32_t cells = 0;
    for (uint32_t c = goal; c != PTL_NONE; c = q->cc[c].parent) ++cells;
    /* the cells, start first, at the far end of d's room (4 bytes each, so cap - cells diagonals
       never reach them) */
    if (cells >= cap) return PTL_NONE;
    uint32_t* chain = (uint32_t*)(void*)(d + cap) - cells;
    cap -= cells;
    uint32_t k = cells, n = 0;
    for (uint32_t c = goal; c != PTL_NONE; c = q->cc[c].parent) chain[--k] = c;
    for (uint32_t i = 1; i < cells; ++i) {
        const uint32_t p = chain[i - 1], c = chain[i];
        const ptl_blob_cell* pc = &nm->cells[p];
        const uint32_t j = q->cc[c].edge, j1 = j + 1 == pc->vert_count ? 0 : j + 1;
        /* the portal from p: its end j + 1 on the traveller's left */
        const uint32_t lin = nm->cell_verts[pc->first + j1], rin = nm->cell_verts[pc->first + j];
        if (n == cap) return PTL_NONE;
        d[n++] = (diag){lin, rin};
        if (i + 1 == cells) break;
        /* the sides of c between this portal and the next: in c (counter-clockwise) the entry edge
           runs lin -> rin (index e) and the exit edge rout -> lout (index x); the right side runs
           forward from rin to rout, the left side backward from lin to lout */
        const ptl_blob_cell* cc = &nm->cells[c];
        const uint32_t m = cc->vert_count, x = q->cc[chain[i + 1]].edge, xl = x + 1 == m ? 0 : x + 1;
        const uint32_t* cv = nm->cell_verts + cc->first;
        uint32_t e = PTL_NONE;
        for (uint32_t t = 0; t < m && e == PTL_NONE; ++t)
            if (cv[t] == lin && cv[t + 1 == m ? 0 : t + 1] == rin) e = t;
        if (e == PTL_NONE) return PTL_NONE;
        uint32_t right = rin, ri = e + 1 == m ? 0 : e + 1;
        for (uint32_t t = e + 1 == m ? 0 : e + 1; t != x;) {
            t = t + 1 == m ? 0 : t + 1;
            if (t == x || t == e) break;
            if (on_side(nm, cv, m, e, t)) continue;
            if (n == cap) return PTL_NONE;
            d[n++] = (diag){lin, cv[t]};
            right = cv[t], ri = t;
        }
        for (uint32_t t = e; t != xl;) {
            t = t == 0 ? m - 1 : t - 1;
            if (t == xl || t == x) break;
            if (on_side(nm, cv, m, t, ri)) continue;
            if (n == cap) return PTL_NONE;
            d[n++] = (diag){cv[t], right};
        }
    }
    return n;
}

/* An end of the funnel: a corner's circle passed with `side`, or the start or the goal (a point). */
typedef struct fend {
    double x, z;
    uint32_t vert; /* PTL_NONE: a point */
    int side;
} fend;

/* The funnel's end for vertex v on one side: the circle of radius r around a corner; around a
   vertex where the walls turn left (a concave corner, which a disc never goes round) the point
   where the two walls' lines moved r into the walkable side meet, which the disc's centre cannot
   pass beyond: W = v + r (n1 + n2) / (1 + n1 . n2) for the walls' unit normals n1, n2. */
static fend vert_end(const ptl_query* q, uint32_t v, int side, double r) {
    const ptl_navmesh* nm = q->nm;
    const double vx = ptl_nm_vx(nm, v), vz = ptl_nm_vz(nm, v);
    const fend circle = {vx, vz, v, side};
    if (ptl_query_is_corner(q, v)) return circle;
    const uint32_t prev = q->wall[2 * v], next = q->wall[2 * v + 1];
    double ix = vx - ptl_nm_vx(nm, prev), iz = vz - ptl_nm_vz(nm, prev);
    double ox = ptl_nm_vx(nm, next) - vx, oz = ptl_nm_vz(nm, next) - vz;
    double li = ptl_len2(ix, iz), lo = ptl_len2(ox, oz);
    double n1x = -iz / li, n1z = ix / li, n2x = -oz / lo, n2z = ox / lo, k = 1 + n1x * n2x + n1z * n2z;
    if (!(k > 1e-9)) return circle; /* a turn back on itself: no such point */
    return (fend){vx + r * (n1x + n2x) / k, vz + r * (n1z + n2z) / k, PTL_NONE, 0};
}

static bool same_end(const fend* a, const fend* b) {
    return a->vert == b->vert && a->side == b->side && a->x == b->x && a->z == b->z;
}

/* Direction (unnormalised) of the tangent from a to b; false when there is none. */
static bool direction(const fend* a, const fend* b, double r, double* ux, double* uz) {
    double t1x, t1z, t2x, t2z;
    if (!ptl_disc_tangent(a->x, a->z, a->side, b->x, b->z, b->side, r, &t1x, &t1z, &t2x, &t2z)) return false;
    *ux = t2x - t1x, *uz = t2z - t1z;
    return true;
}

static double cross(double ax, double az, double bx, double bz) { return ax * bz - az * bx; }

/* Can the path run straight from `from` to the circle of `to` and keep r from both ends' own walls:
   the tangent exists and touches each circle inside its corner's normal cone (ptl_disc_in_cone)? */
static bool plausible(const ptl_query* q, const fend* from, const fend* to, double r) {
    double t1x, t1z, t2x, t2z;
    if (!ptl_disc_tangent(from->x, from->z, from->side, to->x, to->z, to->side, r, &t1x, &t1z, &t2x, &t2z)) return false;
    return (from->vert == PTL_NONE || ptl_disc_in_cone(q, from->vert, t1x, t1z)) &&
           (to->vert == PTL_NONE || ptl_disc_in_cone(q, to->vert, t2x, t2z));
}

typedef struct funnel_state {
    fend apex, side[2]; /* side[0]: the right side's end (passed clockwise), side[1]: the left's */
    double dir[2][2];   /* the tangent's direction from the apex to each side's end (unless at the apex) */
    uint32_t at[2];     /* the diagonal each side's end came from */
} funnel_state;

/* Offers end c of diagonal i to side k (0 right, 1 left). Returns PTL_NONE when a tangent is
   missing, else the index to go on after: i, or the diagonal of the new apex when the side crossed
   the other one (the apex's corner appended to corners[*n]). */
static uint32_t offer(const ptl_query* q, funnel_state* f, int k, const fend* c, uint32_t i, double r, fend* corners,
                      uint32_t* n) {
    fend* mine = &f->side[k];
    const fend* other = &f->side[1 - k];
    const double sgn = k == 0 ? 1 : -1; /* the right side tightens counter-clockwise, the left clockwise */
    if (same_end(c, &f->apex)) {
        *mine = f->apex, f->at[k] = i;
        return i;
    }
    const bool mine_at_apex = same_end(mine, &f->apex);
    if (same_end(c, mine) && !mine_at_apex) return i;
    double ux, uz;
    /* no tangent: two circles on opposite sides overlap (no way between them); a concave corner's
       point inside the apex's circle bounds nothing the circle does not */
    if (!direction(&f->apex, c, r, &ux, &uz)) return c->vert == PTL_NONE ? i : PTL_NONE;
    if (!mine_at_apex && sgn * cross(f->dir[k][0], f->dir[k][1], ux, uz) < 0) return i; /* wider: no change */
    if (!same_end(other, &f->apex)) {
        if (sgn * cross(f->dir[1 - k][0], f->dir[1 - k][1], ux, uz) > 0) {
            /* crossed the other side: the path turns around the other side's corner (the simple
               stupid funnel). Where the path cannot leave the apex straight to that circle and keep
               r from their walls (a side that only seems crossed: a corner behind the apex's line
               around a circle), it turns around this one first. */
            fend turn = *other;
            uint32_t at = f->at[1 - k];
            if (c->vert != PTL_NONE && !plausible(q, &f->apex, &turn, r)) turn = *c, at = i;
            corners[(*n)++] = turn;
            f->apex = f->side[0] = f->side[1] = turn;
            f->at[0] = f->at[1] = at;
            return at;
        }
    }
    *mine = *c, f->at[k] = i;
    f->dir[k][0] = ux, f->dir[k][1] = uz;
    return i;
}

/* The funnel over the diagonals and then the goal: the corners (vertex and side) into `corners`
   (room for count + 1 each time a corner is found); how many, or PTL_NONE when two circles on
   opposite sides overlap (a passage narrower than 2 r). Mononen's "simple stupid funnel" with the
   tangents of the circles for directions. */
static uint32_t funnel(const ptl_query* q, const diag* d, uint32_t count, const ptl_qpoint* s, const ptl_qpoint* t,
                       double r, fend* corners, uint32_t corner_cap) {
    funnel_state f = {.apex = {s->x, s->z, PTL_NONE, 0}};
    f.side[0] = f.side[1] = f.apex;
    const fend goal = {t->x, t->z, PTL_NONE, 0};
    uint32_t n = 0;
    /* consecutive diagonals share one end (a fan across each cell): its funnel end is kept */
    fend nr = goal, nl = goal;
    uint32_t vr = PTL_NONE, vl = PTL_NONE;
    for (uint32_t i = 0; i <= count; ++i) {
        if (n + 1 >= corner_cap) return PTL_NONE;
        if (i == count) nr = nl = goal, vr = vl = PTL_NONE; /* (a new apex may send i back) */
        if (i < count && d[i].right != vr) vr = d[i].right, nr = vert_end(q, vr, -1, r);
        if (i < count && d[i].left != vl) vl = d[i].left, nl = vert_end(q, vl, +1, r);
        uint32_t at = offer(q, &f, 0, &nr, i, r, corners, &n);
        if (at == i) at = offer(q, &f, 1, &nl, i, r, corners, &n);
        if (at == PTL_NONE) return PTL_NONE;
        i = at; /* after a new apex, on from the diagonal after its own */
    }
    return n;
}

ptl_status ptl_query_disc_corridor(ptl_query* q, const ptl_qpoint* start, const ptl_qpoint* goal, double r,
                                   double tolerance, const ptl_disc_ends* ends, ptl_path_turn* turns,
                                   uint32_t turn_capacity, ptl_path_result* res) {
    if (q->nm->cell_piece[start->cell] != q->nm->cell_piece[goal->cell]) return PTL_PARTIAL;
    uint32_t expanded = 0, last = ptl_query_corridor_cells(q, start, goal, r, &expanded);
    /* every path of the disc crosses a chain of portals it can cross, so none: no path */
    if (last == PTL_NONE) {
        res->nodes_expanded = expanded;
        return PTL_PARTIAL;
    }
    /* room: the states in the first half of the node pool (as the exact search), the diagonals and
       the funnel's corners in the second (free again before the states are checked) */
    disc_search ds = {.q = q, .s = start, .t = goal, .ends = ends, .r = r, .tol = q->eps};
    ds.st = (dstate*)(void*)q->nodes;
    ds.cap = (uint32_t)((size_t)(q->max_nodes / 2) * sizeof(ptl_snode) / sizeof(dstate));
    ds.stamp = ptl_query_next_stamp(q);
    char* room = (char*)(void*)(q->nodes + q->max_nodes / 2);
    const size_t bytes = (size_t)(q->max_nodes - q->max_nodes / 2) * sizeof(ptl_snode);
    const uint32_t cap = (uint32_t)(bytes / 2 / sizeof(diag));
    diag* d = (diag*)(void*)room;
    fend* corners = (fend*)(void*)(room + bytes / 2);
    const uint32_t corner_cap = (uint32_t)(bytes / 2 / sizeof(fend));
    uint32_t count = sleeve(q, last, d, cap);
    uint32_t n = count != PTL_NONE ? funnel(q, d, count, start, goal, r, corners, corner_cap) : PTL_NONE;
    if (n == PTL_NONE || n + 2 > ds.cap) return ptl_query_disc_path(q, start, goal, r, tolerance, ends, turns, turn_capacity, res);
    /* the states: the start, a tangent arrival at each corner, the goal; each checked */
    ds.st[0] = (dstate){.ax = start->x, .az = start->z, .dx = start->x, .dz = start->z, .parent = PTL_NONE,
                        .vert = PTL_NONE, .cell = start->cell, .checked = 1};
    ds.count = 1;
    uint32_t inserted = 0;
    for (uint32_t k = 0; k <= n; ++k) {
        const dstate* p = &ds.st[ds.count - 1];
        const bool at_goal = k == n;
        const fend to = at_goal ? (fend){goal->x, goal->z, PTL_NONE, 0} : corners[k];
        double ox = p->vert == PTL_NONE ? p->ax : ptl_nm_vx(q->nm, p->vert);
        double oz = p->vert == PTL_NONE ? p->az : ptl_nm_vz(q->nm, p->vert);
        int o1 = p->vert == PTL_NONE ? 0 : p->side;
        dstate s = {.parent = ds.count - 1, .vert = to.vert, .cell = PTL_NONE, .side = (int8_t)to.side, .goal = at_goal};
        if (!ptl_disc_tangent(ox, oz, o1, to.x, to.z, to.side, r, &s.dx, &s.dz, &s.ax, &s.az))
            return ptl_query_disc_path(q, start, goal, r, tolerance, ends, turns, turn_capacity, res);
        /* A tangent touching a circle outside its corner's normal cone comes nearer than r to one of
           the corner's walls: the path goes round the corner at that wall's other end first (the
           sleeve left it out, or the funnel passed it), the same way round. */
        const int dep = o1 ? ptl_disc_cone_miss(q, p->vert, s.dx, s.dz) : 0;
        const int arr = dep == 0 && to.vert != PTL_NONE ? ptl_disc_cone_miss(q, to.vert, s.ax, s.az) : 0;
        if (dep || arr) {
            const uint32_t v = dep ? p->vert : to.vert, u = q->wall[2 * v + (dep ? dep : arr) - 1];
            if (u == PTL_NONE || u == v || u == p->vert || u == to.vert || !ptl_query_is_corner(q, u) || ++inserted > 32 ||
                n + 2 >= corner_cap || n + 3 > ds.cap)
                return ptl_query_disc_path(q, start, goal, r, tolerance, ends, turns, turn_capacity, res);
            memmove(corners + k + 1, corners + k, (size_t)(n - k) * sizeof *corners);
            corners[k] = vert_end(q, u, dep ? p->side : to.side, r);
            ++n, --k; /* this corner again, after the new one */
            continue;
        }
        if (at_goal) s.ax = goal->x, s.az = goal->z;
        s.g = p->g + ptl_len2(s.ax - s.dx, s.az - s.dz);
        ds.st[ds.count++] = s;
    }
    /* Then the checks, once the diagonals and corners (in the node pool's upper half) are no longer
       read: the checks' sweeps (ptl_clear_vertex_rho) keep their stack there. */
    for (uint32_t i = 1; i < ds.count; ++i) {
        if (!ptl_disc_check_state(&ds, i))
            return ptl_query_disc_path(q, start, goal, r, tolerance, ends, turns, turn_capacity, res);
        ds.st[i].checked = 1;
    }
    res->nodes_expanded = expanded;
    return ptl_disc_write_path(&ds, ds.count - 1, tolerance, turns, turn_capacity, res);
}
