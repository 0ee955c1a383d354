/* Clearance: how far a point is from the walls, and where the nearest point is that keeps a
   disc of radius r off them (issue 18, agents of any radius; issue 19, the wall distance query).

   A wall is an edge of a cell with no neighbour: the boundary of the walkable area (walls and
   ledges alike). Every vertex of the navmesh lies on such a boundary, so the corners a disc has to
   keep clear of are vertices of walls.

   The nearest wall of a point p is found by a sweep of what p sees, in plan: from p's cell, each
   portal that a window of sight reaches is crossed with the window narrowed to it (the cone from p
   through the part of the portal it sees), and each wall edge is clipped to the window. The nearest
   wall point is always seen (the segment to it crosses no wall before it), so the least distance
   to a clipped wall is the wall distance; windows further than the best distance so far are not
   crossed, so the sweep reads only the cells within that distance. On a 3D navmesh the sweep
   follows the surface through its portals, so a floor above or below in plan does not count, as
   for Detour's findDistanceToWall (which walks the polygons within the radius).

   The nearest point with clearance r: the points with clearance r or more are the walkable area
   minus the union of the walls' stadiums (each wall edge grown by r, a rectangle with a half disc
   at each end). The nearest of them to p lies on the boundary of that union (when p is not in it
   already): on one stadium, where the stadium's boundary is nearest to p (p pushed off a wall's
   line by r, or off a corner's circle), or where two stadiums' boundaries cross (p in a corner
   between two walls), or where a ray from p past a corner meets a stadium (the point must be seen
   from p: an agent is not moved through a wall). Those candidates are made from the walls near p
   (the cells within the search distance plus r, through portals), tried nearest first, and the
   first that keeps r from every wall it sees, and that p sees, is the answer. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clearance.h"

/* ---- The nearest wall: a sweep of sight from a point --------------------------------------- */

typedef ptl_clear_wall wall_best;

/* Clips segment a + t (b - a), t in [*t0, *t1], to the half-plane left of the ray from (px, pz)
   through (ux, uz) (sign +1) or right of it (sign -1), with a slack of `tol` in distance from
   the ray's line. False when nothing is left. */
static bool clip_ray(double px, double pz, double ux, double uz, double sign, double ax, double az, double dx,
                     double dz, double tol, double* t0, double* t1) {
    double rx = ux - px, rz = uz - pz;
    double len = sqrt(rx * rx + rz * rz);
    double f0 = sign * (rx * (az - pz) - rz * (ax - px)) + tol * len; /* >= 0 inside, at t = 0 */
    double df = sign * (rx * dz - rz * dx);                           /* its change per unit of t */
    if (df == 0) return f0 >= 0;
    double t = -f0 / df;
    if (df > 0) {
        if (t > *t0) *t0 = t;
    } else if (t < *t1) {
        *t1 = t;
    }
    return *t0 <= *t1;
}

/* The point of segment (ax, az)-(bx, bz) nearest (px, pz), and its distance. */
static double nearest_on_segment(double px, double pz, double ax, double az, double bx, double bz, double* ox,
                                 double* oz) {
    double dx = bx - ax, dz = bz - az;
    double l2 = dx * dx + dz * dz;
    double t = l2 > 0 ? ((px - ax) * dx + (pz - az) * dz) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    *ox = t == 1 ? bx : ax + t * dx;
    *oz = t == 1 ? bz : az + t * dz;
    return ptl_len2(px - *ox, pz - *oz);
}

enum { WINDOW_FULL = 1 };

/* The sweeps' stack: the upper half of the exact search's node pool (the disc search keeps its
   states in the lower half, disc_path.c). */
/* Pushes a window into `cell` at `depth` (the portals crossed from the apex, kept in the node's
   `refs`, which windows do not use otherwise). Every line of sight through a window crosses the
   same cells, each convex cell once: a chain deeper than the cells there are is no line of sight.
   On a navmesh whose floors overlap in plan, windows can otherwise go round and round between
   layers, each turn narrowing them by a rounding step (the doors world of tests/test_areas.c: a
   sweep of minutes), so such a chain is not followed. */
static bool push_window(ptl_query* q, uint32_t* top, uint32_t cell, uint32_t edge, bool full, double rx, double rz,
                        double lx, double lz, uint32_t depth) {
    if (*top >= q->max_nodes - q->max_nodes / 2) return false;
    ptl_snode* n = &q->nodes[q->max_nodes / 2 + (*top)++];
    n->cell = cell;
    n->edge = (uint16_t)edge;
    n->ends = full ? WINDOW_FULL : 0;
    n->rx = rx, n->rz = rz, n->lx = lx, n->lz = lz;
    n->refs = depth;
    return true;
}

/* Is the piece of a portal a window passes through a single point (within tol)? Such a window sees
   along one line only, grazing a vertex; the windows beside it include that line (clipping keeps a
   window's rays within tol), and on a navmesh whose floors overlap in plan a chain of such windows
   round a vertex can come back to where it started (nav_test.obj: the disc search's sweep filled
   2^19 windows), so it is not followed. */
static bool point_window(double x0, double z0, double x1, double z1, double tol) {
    return fabs(x1 - x0) <= tol && fabs(z1 - z0) <= tol;
}

/* Edge i of cell c (slots sa -> sb) clipped to window n of the sweep from (px, pz) (all of it in a
   full window): the piece (x0, z0)-(x1, z1) and the edge's direction (dx, dz); false when nothing of
   it is in the window. */
static bool clip_edge(double px, double pz, const ptl_snode* n, bool full, const ptl_slot* sa, const ptl_slot* sb, double tol,
                      double piece[4], double* dx, double* dz) {
    double ax = sa->x, az = sa->z;
    *dx = (double)sb->x - ax, *dz = (double)sb->z - az;
    double t0 = 0, t1 = 1;
    if (!full && (!clip_ray(px, pz, n->rx, n->rz, 1, ax, az, *dx, *dz, tol, &t0, &t1) ||
                  !clip_ray(px, pz, n->lx, n->lz, -1, ax, az, *dx, *dz, tol, &t0, &t1)))
        return false;
    piece[0] = ax + t0 * *dx, piece[1] = az + t0 * *dz;
    piece[2] = t1 == 1 ? sb->x : ax + t1 * *dx, piece[3] = t1 == 1 ? sb->z : az + t1 * *dz;
    return true;
}

static ptl_status sweep_walls(ptl_query* q, double px, double pz, const uint32_t* cells, uint32_t cell_count,
                              uint32_t skip_vert, double max_d, double stop_d, wall_best* best);

/* Is the edge sa -> sb's bounding box farther from (px, pz) than d by more than `slack`? Then so is
   any piece of it a window clips, and the sweep would pass over it: its clipping (two square roots
   and two divisions) and its distance are skipped. */
static inline bool beyond_best(double px, double pz, const ptl_slot* sa, const ptl_slot* sb, double d, double slack) {
    const double x0 = sa->x < sb->x ? sa->x : sb->x, x1 = sa->x < sb->x ? sb->x : sa->x;
    const double z0 = sa->z < sb->z ? sa->z : sb->z, z1 = sa->z < sb->z ? sb->z : sa->z;
    const double gx = px < x0 ? x0 - px : px > x1 ? px - x1 : 0, gz = pz < z0 ? z0 - pz : pz > z1 ? pz - z1 : 0;
    const double r = d + slack;
    return gx * gx + gz * gz > r * r;
}

ptl_status ptl_clear_nearest_wall(ptl_query* q, double px, double pz, uint32_t cell, double max_d, double stop_d,
                                  wall_best* best) {
    return sweep_walls(q, px, pz, &cell, 1, PTL_NONE, max_d, stop_d, best);
}

double ptl_clear_vertex_rho(ptl_query* q, uint32_t v) {
    if (q->vert_rho[v] >= 0) return q->vert_rho[v];
    const ptl_navmesh* nm = q->nm;
    wall_best b;
    double rho = 0; /* on failure (the stack overflowed): unknown, as near as can be */
    if (sweep_walls(q, ptl_nm_vx(nm, v), ptl_nm_vz(nm, v), nm->vcell + nm->vcell_start[v],
                    nm->vcell_start[v + 1] - nm->vcell_start[v], v, INFINITY, 0, &b) == PTL_OK)
        rho = b.found ? b.d : INFINITY;
    /* stored as a float rounded down, so that it stays a lower bound */
    float f = (float)rho;
    if ((double)f > rho) f = nextafterf(f, 0);
    q->vert_rho[v] = f;
    return f;
}

/* The sweep of ptl_clear_nearest_wall from the point (px, pz) of `cells` (every direction in each),
   leaving out the walls that end at vertex skip_vert (PTL_NONE: none). */
static ptl_status sweep_walls(ptl_query* q, double px, double pz, const uint32_t* cells, uint32_t cell_count,
                              uint32_t skip_vert, double max_d, double stop_d, wall_best* best) {
    const ptl_navmesh* nm = q->nm;
    const double tol = q->eps;
    /* beyond_best's margin: far more than the rounding of a clipped piece's ends and distance
       (~1e-16 of the coordinates), so that an edge it passes over could not have been kept */
    const double near_slack = 4 * q->eps + 1e-9 * (fabs(px) + fabs(pz));
    memset(best, 0, sizeof *best);
    best->d = max_d;
    uint32_t stamp = ptl_query_next_stamp(q);
    uint32_t top = 0;
    for (uint32_t k = 0; k < cell_count; ++k) {
        if (q->seen_stamp[cells[k]] == stamp) continue;
        q->seen_stamp[cells[k]] = stamp;
        if (!push_window(q, &top, cells[k], 0, true, 0, 0, 0, 0, 0)) return PTL_ERR_OUT_OF_NODES;
    }
    while (top > 0) {
        ptl_snode n = q->nodes[q->max_nodes / 2 + --top];
        const ptl_blob_cell* c = &nm->cells[n.cell];
        const bool full = n.ends & WINDOW_FULL;
        for (uint32_t i = 0; i < c->vert_count; ++i) {
            if (!full && i == n.edge) continue;
            if (skip_vert != PTL_NONE && q->slots[c->first + i].nbr == PTL_NONE &&
                (nm->cell_verts[c->first + i] == skip_vert ||
                 nm->cell_verts[c->first + (i + 1 == c->vert_count ? 0 : i + 1)] == skip_vert))
                continue;
            const ptl_slot* sa = &q->slots[c->first + i];
            const ptl_slot* sb = &q->slots[c->first + (i + 1 == c->vert_count ? 0 : i + 1)];
            if (beyond_best(px, pz, sa, sb, best->d, near_slack)) continue;
            double pc[4], dx, dz, wx, wz;
            if (!clip_edge(px, pz, &n, full, sa, sb, tol, pc, &dx, &dz)) continue;
            double x0 = pc[0], z0 = pc[1], x1 = pc[2], z1 = pc[3];
            double d = nearest_on_segment(px, pz, x0, z0, x1, z1, &wx, &wz);
            if (best->found ? d >= best->d : d > best->d) continue;
            if (sa->nbr == PTL_NONE) {
                *best = (wall_best){.d = d, .x = wx, .z = wz, .ex = dx, .ez = dz, .cell = n.cell, .found = true};
                if (d < stop_d) return PTL_OK;
                continue;
            }
            bool ok;
            if (d <= tol) {
                /* p lies on this portal: the cell beyond holds p as well, every direction open */
                if (q->seen_stamp[sa->nbr] == stamp) continue;
                q->seen_stamp[sa->nbr] = stamp;
                ok = push_window(q, &top, sa->nbr, 0, true, 0, 0, 0, 0, n.refs + 1);
            } else if (point_window(x0, z0, x1, z1, tol) || n.refs >= nm->h->cell_count) {
                continue;
            } else {
                /* seen from p, the edge's first vertex is on the right of the window */
                ok = push_window(q, &top, sa->nbr, sa->twin, false, x0, z0, x1, z1, n.refs + 1);
            }
            if (!ok) return PTL_ERR_OUT_OF_NODES;
        }
    }
    return PTL_OK;
}

/* Is (x, z) inside the window from (px, pz) through (rx, rz) (right) and (lx, lz) (left), within
   `tol` of its rays? */
static bool in_window(double px, double pz, const ptl_snode* n, double x, double z, double tol) {
    double rx = n->rx - px, rz = n->rz - pz, lx = n->lx - px, lz = n->lz - pz, vx = x - px, vz = z - pz;
    return rx * vz - rz * vx >= -tol * ptl_len2(rx, rz) && lx * vz - lz * vx <= tol * ptl_len2(lx, lz);
}

/* The sweep of sight from `from`: every vertex seen (the open segment to it crosses no wall) is
   passed to `seen` once per vertex stamp `vstamp` (q->root_stamp). `win` (NULL: every direction):
   the sweep starts in the cone from the apex counter-clockwise from direction (win[0], win[1]) to
   (win[2], win[3]) (under 180 degrees). Windows and vertices farther than max_d are left out. */
static ptl_status sweep_visible(ptl_query* q, const ptl_qpoint* from, const double* win, double max_d, uint32_t vstamp,
                                void (*seen)(void* user, uint32_t vert), void* user) {
    const ptl_navmesh* nm = q->nm;
    const double tol = q->eps, px = from->x, pz = from->z;
    uint32_t stamp = ptl_query_next_stamp(q);
    uint32_t top = 0;
    const bool start_full = !win;
    const double wrx = win ? px + win[0] : 0, wrz = win ? pz + win[1] : 0, wlx = win ? px + win[2] : 0, wlz = win ? pz + win[3] : 0;
    for (uint32_t k = 0; k < from->cell_count; ++k) {
        if (q->seen_stamp[from->cells[k]] == stamp) continue;
        q->seen_stamp[from->cells[k]] = stamp;
        if (!push_window(q, &top, from->cells[k], 0xffff, start_full, wrx, wrz, wlx, wlz, 0)) return PTL_ERR_OUT_OF_NODES;
    }
    while (top > 0) {
        ptl_snode n = q->nodes[q->max_nodes / 2 + --top];
        const ptl_blob_cell* c = &nm->cells[n.cell];
        const bool full = n.ends & WINDOW_FULL;
        for (uint32_t i = 0; i < c->vert_count; ++i) {
            const ptl_slot* sa = &q->slots[c->first + i];
            uint32_t v = nm->cell_verts[c->first + i];
            if (q->root_stamp[v] != vstamp && (full || in_window(px, pz, &n, sa->x, sa->z, tol)) &&
                ptl_len2(sa->x - px, sa->z - pz) <= max_d) {
                q->root_stamp[v] = vstamp;
                seen(user, v);
            }
            if ((!full && i == n.edge) || sa->nbr == PTL_NONE) continue;
            const ptl_slot* sb = &q->slots[c->first + (i + 1 == c->vert_count ? 0 : i + 1)];
            double pc[4], dx, dz, wx, wz;
            if (!clip_edge(px, pz, &n, full, sa, sb, tol, pc, &dx, &dz)) continue;
            double x0 = pc[0], z0 = pc[1], x1 = pc[2], z1 = pc[3];
            double d = nearest_on_segment(px, pz, x0, z0, x1, z1, &wx, &wz);
            if (d > max_d) continue;
            bool ok;
            if (d <= tol) {
                /* the apex lies on this portal: the cell beyond holds it too, with the same window */
                if (q->seen_stamp[sa->nbr] == stamp) continue;
                q->seen_stamp[sa->nbr] = stamp;
                ok = push_window(q, &top, sa->nbr, 0xffff, start_full, wrx, wrz, wlx, wlz, n.refs + 1);
            } else if (point_window(x0, z0, x1, z1, tol) || n.refs >= nm->h->cell_count) {
                continue;
            } else {
                ok = push_window(q, &top, sa->nbr, sa->twin, false, x0, z0, x1, z1, n.refs + 1);
            }
            if (!ok) return PTL_ERR_OUT_OF_NODES;
        }
    }
    return PTL_OK;
}

ptl_status ptl_clear_visible(ptl_query* q, const ptl_qpoint* from, void (*seen)(void* user, uint32_t vert), void* user) {
    return sweep_visible(q, from, NULL, INFINITY, ptl_query_next_stamp(q), seen, user);
}

ptl_status ptl_clear_visible_cone(ptl_query* q, const ptl_qpoint* from, const double win[4], double near_d,
                                  void (*seen)(void* user, uint32_t vert), void* user) {
    uint32_t vstamp = ptl_query_next_stamp(q);
    ptl_status st = sweep_visible(q, from, NULL, near_d, vstamp, seen, user);
    if (st < 0) return st;
    return sweep_visible(q, from, win, INFINITY, vstamp, seen, user);
}

/* ---- The sweeps of sight from a vertex, kept (q->vc_*) ----------------------------------------- */

typedef struct vc_collect {
    ptl_query* q;
    uint32_t from; /* the vertex swept from */
    uint32_t n;
    bool over;
} vc_collect;

/* A sweep's `seen`: appends v after the list's entries so far, when v is a corner other than the
   one swept from (the disc search passes by the others: on grid maps most of what a corner sees). */
static void vc_add(void* user, uint32_t v) {
    vc_collect* c = user;
    ptl_query* q = c->q;
    if (v == c->from || !ptl_query_is_corner(q, v)) return;
    if (c->over || q->vc_used + c->n == q->vc_cap) {
        c->over = true;
        return;
    }
    q->vc_vert[q->vc_used + c->n++] = v;
}

/* A list's count when it cannot be kept (longer than all the room, or its sweep overflowed its
   stack): the sweep runs each time. */
#define VC_NEVER (PTL_NONE - 1)

/* List k of vertex v (0: every direction, at least `reach` far; 1 + (side > 0): the window win),
   built by its sweep on first use (list 0 again when it reaches less far: the old entries are left
   unused); false when it cannot be kept. When the room is full every list is dropped (the next
   calls build them again: the queries of one region keep theirs) and this call sweeps. */
static bool vc_list(ptl_query* q, uint32_t v, const ptl_qpoint* from, int k, const double* win, double reach,
                    uint32_t* start, uint32_t* count) {
    uint32_t* head = &q->vc_head[6 * v + 2 * k];
    if (head[1] == VC_NEVER) return false;
    if (head[1] == PTL_NONE || (k == 0 && !(q->vc_reach[v] >= reach))) {
        vc_collect c = {.q = q, .from = v};
        ptl_status st = sweep_visible(q, from, win, k ? INFINITY : reach, ptl_query_next_stamp(q), vc_add, &c);
        if (st < 0 || (c.over && q->vc_used == 0)) {
            head[1] = VC_NEVER;
            return false;
        }
        if (c.over) {
            memset(q->vc_head, 0xff, (size_t)q->nm->h->vert_count * 6 * sizeof(uint32_t));
            q->vc_used = 0;
            return false;
        }
        head[0] = q->vc_used, head[1] = c.n;
        q->vc_used += c.n;
        if (k == 0) q->vc_reach[v] = reach;
    }
    *start = head[0], *count = head[1];
    return true;
}

ptl_status ptl_clear_visible_vertex(ptl_query* q, uint32_t v, int side, const double* win, double near_d,
                                    void (*seen)(void* user, uint32_t vert), void* user) {
    ptl_qpoint from;
    ptl_query_vertex_point(q->nm, v, &from);
    uint32_t a0, an, b0 = 0, bn = 0;
    if (!q->vc_head || !vc_list(q, v, &from, 0, NULL, win ? near_d : INFINITY, &a0, &an) ||
        (win && !vc_list(q, v, &from, 1 + (side > 0), win, INFINITY, &b0, &bn)))
        return win ? ptl_clear_visible_cone(q, &from, win, near_d, seen, user) : ptl_clear_visible(q, &from, seen, user);
    if (!win) {
        for (uint32_t i = 0; i < an; ++i) seen(user, q->vc_vert[a0 + i]);
        return PTL_OK;
    }
    /* ptl_clear_visible_cone's two sweeps: the one within near_d visits the windows of a sweep in
       every direction that reaches further that come within near_d, in the same order, so it sees
       the vertices of the every-direction list within near_d, in its order; then the window's, less
       those */
    uint32_t vstamp = ptl_query_next_stamp(q);
    const ptl_navmesh* nm = q->nm;
    for (uint32_t i = 0; i < an; ++i) {
        uint32_t w = q->vc_vert[a0 + i];
        /* the distance as sweep_visible takes it (the slots hold the vertices' coordinates) */
        if (!(ptl_len2(ptl_nm_vx(nm, w) - from.x, ptl_nm_vz(nm, w) - from.z) <= near_d)) continue;
        q->root_stamp[w] = vstamp;
        seen(user, w);
    }
    for (uint32_t i = 0; i < bn; ++i) {
        uint32_t w = q->vc_vert[b0 + i];
        if (q->root_stamp[w] == vstamp) continue;
        q->root_stamp[w] = vstamp;
        seen(user, w);
    }
    return PTL_OK;
}

/* Writes the hit of a sweep from (px, pz) on `cell`. */
static void fill_hit(const ptl_query* q, const wall_best* b, double px, double pz, float py, uint32_t cell,
                     float max_radius, ptl_wall_hit* out) {
    memset(out, 0, sizeof *out);
    out->cell = cell;
    out->from[0] = (float)px, out->from[1] = py, out->from[2] = (float)pz;
    out->wall_cell = PTL_NONE;
    if (!b->found) {
        out->distance = max_radius;
        return;
    }
    out->found = true;
    out->distance = (float)b->d;
    out->wall_cell = b->cell;
    out->point[0] = (float)b->x;
    out->point[1] = ptl_query_cell_yq(q, b->cell, b->x, b->z);
    out->point[2] = (float)b->z;
    double nx = px - b->x, nz = pz - b->z, len = ptl_len2(nx, nz);
    if (!(len > q->eps)) {
        /* on the wall: its normal into the walkable side (left of the edge) */
        nx = -b->ez, nz = b->ex, len = ptl_len2(nx, nz);
    }
    out->normal[0] = (float)(nx / len);
    out->normal[2] = (float)(nz / len);
}

static bool finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* Clears *out (no cell, no wall); false for bad arguments (out itself is checked by the caller). */
static bool wall_begin(const ptl_query* q, const float p[3], float max_radius, ptl_wall_hit* out) {
    memset(out, 0, sizeof *out);
    out->cell = out->wall_cell = PTL_NONE;
    return q && p && finite3(p) && max_radius >= 0 && isfinite(max_radius);
}

ptl_status ptl_query_wall_distance(ptl_query* q, const float p[3], const float extents[3], float max_radius,
                                   ptl_wall_hit* out) {
    if (!out || !wall_begin(q, p, max_radius, out) || (extents && !finite3(extents))) return PTL_ERR_INVALID_ARG;
    ptl_qpoint s;
    ptl_status st = ptl_query_locate_point(q, p, extents, &s);
    if (st < 0) return st;
    wall_best b;
    st = ptl_clear_nearest_wall(q, s.x, s.z, s.cell, max_radius, 0, &b);
    if (st < 0) return st;
    fill_hit(q, &b, s.x, s.z, s.y, s.cell, max_radius, out);
    return PTL_OK;
}

ptl_status ptl_query_wall_distance_in(ptl_query* q, uint32_t cell, const float p[3], float max_radius, ptl_wall_hit* out) {
    if (!out || !wall_begin(q, p, max_radius, out)) return PTL_ERR_INVALID_ARG;
    /* the caller's cell when it holds p (as the move's and the ray's known-cell entries take it) */
    if (cell >= q->nm->h->cell_count || ptl_query_cell_off(q, cell) || !ptl_query_cell_holds_within(q, cell, p[0], p[2]))
        return ptl_query_wall_distance(q, p, NULL, max_radius, out);
    wall_best b;
    ptl_status st = ptl_clear_nearest_wall(q, p[0], p[2], cell, max_radius, 0, &b);
    if (st < 0) return st;
    fill_hit(q, &b, p[0], p[2], p[1], cell, max_radius, out);
    return PTL_OK;
}

/* ---- The nearest point with clearance r ------------------------------------------------------ */

typedef struct seg {
    double ax, az, bx, bz;
} seg;

/* Distance between segments (plan). */
static double seg_seg_distance(const seg* a, const seg* b) {
    double x, z;
    double d = nearest_on_segment(a->ax, a->az, b->ax, b->az, b->bx, b->bz, &x, &z);
    d = fmin(d, nearest_on_segment(a->bx, a->bz, b->ax, b->az, b->bx, b->bz, &x, &z));
    d = fmin(d, nearest_on_segment(b->ax, b->az, a->ax, a->az, a->bx, a->bz, &x, &z));
    d = fmin(d, nearest_on_segment(b->bx, b->bz, a->ax, a->az, a->bx, a->bz, &x, &z));
    /* crossing segments */
    double d1x = a->bx - a->ax, d1z = a->bz - a->az, d2x = b->bx - b->ax, d2z = b->bz - b->az;
    double den = d1x * d2z - d1z * d2x;
    if (den != 0) {
        double t = ((b->ax - a->ax) * d2z - (b->az - a->az) * d2x) / den;
        double u = ((b->ax - a->ax) * d1z - (b->az - a->az) * d1x) / den;
        if (t >= 0 && t <= 1 && u >= 0 && u <= 1) d = 0;
    }
    return d;
}

/* The walls of the cells within plan distance `reach` of (px, pz), through portals from `cell`, into
   the exact search's open list (q->heap, unused here: max_nodes / 2 walls); false when there are
   more. */
static uint32_t wall_capacity(const ptl_query* q) { return (uint32_t)((size_t)q->max_nodes * sizeof(ptl_heap_item) / sizeof(seg)); }
/* ptl_clear_move keeps 9 doubles per gathered wall (at most max_nodes / 2 of them, sizeof(seg)
   being 2 heap items) in the lower half of the node pool (max_nodes / 2 nodes) */
_Static_assert(sizeof(seg) == 2 * sizeof(ptl_heap_item) && sizeof(ptl_snode) >= 9 * sizeof(double),
               "the walls' bounds and offset lines fit the node pool's lower half");

static bool gather_walls(ptl_query* q, double px, double pz, uint32_t cell, double reach, uint32_t* count) {
    const ptl_navmesh* nm = q->nm;
    uint32_t stamp = ptl_query_next_stamp(q);
    uint32_t head = 0, tail = 0, n = 0;
    seg* walls = (seg*)(void*)q->heap;
    const uint32_t cap = wall_capacity(q);
    q->cheap[tail++] = cell;
    q->seen_stamp[cell] = stamp;
    while (head < tail) {
        const ptl_blob_cell* c = &nm->cells[q->cheap[head++]];
        for (uint32_t i = 0; i < c->vert_count; ++i) {
            const ptl_slot* sa = &q->slots[c->first + i];
            const ptl_slot* sb = &q->slots[c->first + (i + 1 == c->vert_count ? 0 : i + 1)];
            double x, z;
            if (nearest_on_segment(px, pz, sa->x, sa->z, sb->x, sb->z, &x, &z) > reach) continue;
            if (sa->nbr == PTL_NONE) {
                if (n == cap) return false;
                walls[n++] = (seg){sa->x, sa->z, sb->x, sb->z};
            } else if (q->seen_stamp[sa->nbr] != stamp) {
                q->seen_stamp[sa->nbr] = stamp;
                q->cheap[tail++] = sa->nbr;
            }
        }
    }
    *count = n;
    return true;
}

/* Where the segment from s to (tx, tz) leaves a cell (trace_from). */
typedef struct cell_exit {
    double best_t;  /* the exit's fraction along the segment */
    uint32_t exit;  /* the exit edge, PTL_NONE for none */
    bool outside;   /* the target is outside the cell */
} cell_exit;

/* The edge the segment leaves the cell through: among the edges whose half-plane the target is
   outside of, the one whose own extent the segment crosses (a cell may have collinear edges),
   nearest along the segment; at a vertex, a portal first. With `check`, also whether the cell
   holds s within the point-location tolerance, as ptl_query_cell_holds_within tests it (the same
   comparisons): false when it does not. Always inline, with `check` a constant at each call: the
   walk's other steps (and the walks from located points) then carry no test of it (as a call,
   or with the test in the loop, a walk took 2-5% more instructions). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool find_exit(const ptl_query* q, const ptl_qpoint* s, const ptl_blob_cell* cell, double tx, double tz,
                             const bool check, cell_exit* o) {
    const double eps = q->eps;
    double best_t = DBL_MAX;
    uint32_t exit = PTL_NONE;
    bool exit_open = false, outside = false;
    /* edge i runs from slot i's vertex along sedges[i] */
    const ptl_slot* sl = &q->slots[cell->first];
    const ptl_slot_edge* se = &q->sedges[cell->first];
    const uint32_t n = cell->vert_count;
    for (uint32_t i = 0; i < n; ++i) {
        const double ax = sl[i].x, az = sl[i].z, ex = se[i].ex, ez = se[i].ez;
        if (check) {
            const double cross_s = ex * (s->z - az) - ez * (s->x - ax);
            if (cross_s < 0 && cross_s < -q->loc_eps * se[i].len) return false;
        }
        /* the target on this edge's inner side (most edges) */
        const double cross_t = ex * (tz - az) - ez * (tx - ax);
        if (cross_t >= 0) continue;
        const double len = se[i].len;
        if (!(len > 0)) continue; /* an edge of no length (a damaged blob that loads): no side to cross */
        /* The sides and the crossing's place along the edge are compared in units of the edge's
           length times the tolerance (cross products and the dot product, not divided by the
           length): one division per edge the target is beyond, for the crossing's fraction, instead
           of five (a divsd is ~13 cycles of latency on the walk's chain). */
        const double tol = eps * len;
        if (cross_t >= -tol) continue; /* the target is inside, within the tolerance */
        outside = true;
        const double cross_s = ex * (s->z - az) - ez * (s->x - ax);
        if (cross_s < -tol) continue; /* the segment lies beyond this edge's line: not its exit */
        double t = cross_s / (cross_s - cross_t);
        double cx = s->x + t * (tx - s->x), cz = s->z + t * (tz - s->z);
        double along = (cx - ax) * ex + (cz - az) * ez; /* the crossing's place along the edge, times len^2 */
        if (along < -tol || along > len * len + tol) continue;
        bool open = sl[i].nbr != PTL_NONE;
        bool tie = fabs(t - best_t) <= 1e-12;
        if (exit == PTL_NONE || (!tie && t < best_t) || (tie && open && !exit_open)) best_t = t, exit = i, exit_open = open;
    }
    o->best_t = best_t, o->exit = exit, o->outside = outside;
    return true;
}

/* The walk of one start cell c0 (see ptl_clear_trace). With `held` (not NULL), the first step also
   tests that c0 holds the start within the point-location tolerance (find_exit's check, on the
   edges the step reads anyway): false with *held false when it does not. */
static bool trace_from(const ptl_query* q, const ptl_qpoint* s, uint32_t c0, double tx, double tz, ptl_clear_trace_out* out,
                       bool* held) {
    const ptl_navmesh* nm = q->nm;
    uint32_t c = c0, from = PTL_NONE;
    out->cell_count = 0;
    if (held) *held = true;
    for (uint32_t steps = 0; steps <= nm->h->cell_count; ++steps) {
        if (out->cells && out->cell_count < out->cell_capacity) out->cells[out->cell_count] = c;
        ++out->cell_count;
        const ptl_blob_cell* cell = &nm->cells[c];
        cell_exit e;
        if (held && steps == 0) {
            if (!find_exit(q, s, cell, tx, tz, true, &e)) return *held = false;
        } else {
            find_exit(q, s, cell, tx, tz, false, &e);
        }
        out->cell = c;
        if (!e.outside) { /* the target is in the cell */
            out->hit = false, out->t = 1, out->edge = PTL_NONE;
            return true;
        }
        if (e.exit == PTL_NONE) return false;
        uint32_t nb = q->slots[cell->first + e.exit].nbr;
        if (nb == PTL_NONE || nb == from) {
            out->hit = true, out->edge = e.exit;
            out->t = e.best_t < 0 ? 0 : e.best_t > 1 ? 1 : e.best_t;
            return true;
        }
        from = c;
        c = nb;
    }
    return false;
}

bool ptl_clear_trace(const ptl_query* q, const ptl_qpoint* s, double tx, double tz, ptl_clear_trace_out* out) {
    /* from each of the start's cells until one goes as far as the target, else the one stopped
       furthest (a point on an edge or a vertex belongs to several); the cells are written by a
       last walk from the chosen one */
    if (s->cell_count == 1) {
        out->start = s->cells[0];
        return trace_from(q, s, s->cells[0], tx, tz, out, NULL);
    }
    uint32_t best = PTL_NONE;
    double best_t = -1;
    ptl_clear_trace_out kept = {0};
    for (uint32_t k = 0; k < s->cell_count && best_t < 1; ++k) {
        ptl_clear_trace_out o = {0};
        if (!trace_from(q, s, s->cells[k], tx, tz, &o, NULL)) continue;
        double t = o.hit ? o.t : 2;
        if (t > best_t) best_t = t, best = s->cells[k], kept = o;
    }
    if (best == PTL_NONE) return false;
    out->start = best;
    if (out->cells && out->cell_capacity > 0) return trace_from(q, s, best, tx, tz, out, NULL);
    /* no cells asked for: the chosen walk's own answer (a walk is a function of its start) */
    out->hit = kept.hit, out->t = kept.t, out->cell = kept.cell, out->edge = kept.edge, out->cell_count = kept.cell_count;
    return true;
}

bool ptl_clear_trace_held(const ptl_query* q, const ptl_qpoint* s, double tx, double tz, ptl_clear_trace_out* out, bool* held) {
    out->start = s->cell;
    return trace_from(q, s, s->cell, tx, tz, out, held);
}

uint32_t ptl_clear_walk(const ptl_query* q, const ptl_qpoint* s, double tx, double tz) {
    ptl_clear_trace_out o = {0};
    return ptl_clear_trace(q, s, tx, tz, &o) && !o.hit ? o.cell : PTL_NONE;
}

/* Is (x, z) at least r from every wall its sweep sees, and seen from s? Its cell to *cell. */
static ptl_status keeps_clear(ptl_query* q, const ptl_qpoint* s, double x, double z, double r, uint32_t* cell,
                              bool* ok, bool* roomy) {
    *ok = *roomy = false;
    uint32_t c = ptl_clear_walk(q, s, x, z);
    if (c == PTL_NONE) return PTL_OK;
    wall_best b;
    double slack = 4 * q->eps;
    ptl_status st = ptl_clear_nearest_wall(q, x, z, c, r, r - slack, &b);
    if (st < 0) return st;
    *ok = !(b.found && b.d < r - slack);
    *roomy = !b.found;
    *cell = c;
    return PTL_OK;
}

/* Candidates: the points of the stadiums' boundaries described in the file's header. */
typedef struct cand_state {
    ptl_query* q;
    const ptl_qpoint* s;
    const seg* walls;
    const double* off; /* per wall, its two offset lines (offset_line, side -1 then +1): 8 doubles */
    uint32_t wall_count;
    double r, reach;
    double best_d, bx, bz;
    uint32_t best_cell;
    bool found;
    ptl_status error;
} cand_state;

/* Does (x, z) keep r from every gathered wall (a cheap test before the sweep)? */
static bool clear_of_gathered(const cand_state* cs, double x, double z) {
    double lim = cs->r - 4 * cs->q->eps, wx, wz;
    for (uint32_t i = 0; i < cs->wall_count; ++i) {
        const seg* w = &cs->walls[i];
        if (nearest_on_segment(x, z, w->ax, w->az, w->bx, w->bz, &wx, &wz) < lim) return false;
    }
    return true;
}

static void try_candidate(cand_state* cs, double x, double z) {
    if (cs->error < 0 || !isfinite(x) || !isfinite(z)) return;
    double d = ptl_len2(x - cs->s->x, z - cs->s->z);
    if (d > cs->reach) return;
    /* nearer by more than the tolerance, or as near and first in (x, z): the same walls give the
       same point whatever order the candidates come in */
    const double tol = cs->q->eps;
    if (cs->found && !(d < cs->best_d - tol || (d <= cs->best_d + tol && (x < cs->bx || (x == cs->bx && z < cs->bz)))))
        return;
    if (!clear_of_gathered(cs, x, z)) return;
    uint32_t cell;
    bool ok;
    bool roomy;
    ptl_status st = keeps_clear(cs->q, cs->s, x, z, cs->r, &cell, &ok, &roomy);
    if (st < 0) {
        cs->error = st;
        return;
    }
    if (!ok) return;
    cs->found = true;
    cs->best_d = d, cs->bx = x, cs->bz = z, cs->best_cell = cell;
}

/* The two offset lines of wall w at distance r: point and direction. */
static void offset_line(const seg* w, double r, int side, double* ox, double* oz, double* dx, double* dz) {
    *dx = w->bx - w->ax, *dz = w->bz - w->az;
    double len = ptl_len2(*dx, *dz);
    double nx = -*dz / len * r * side, nz = *dx / len * r * side;
    *ox = w->ax + nx, *oz = w->az + nz;
}

/* offset_line of gathered wall w at the radius, as ptl_clear_move computed it once per wall. */
static void offset_of(const cand_state* cs, const seg* w, int side, double* ox, double* oz, double* dx, double* dz) {
    const double* o = cs->off + 8 * (size_t)(w - cs->walls) + (side > 0 ? 4 : 0);
    *ox = o[0], *oz = o[1], *dx = o[2], *dz = o[3];
}

/* Points at parameter t of the offset line within the segment's span (the flat side of the stadium). */
static bool on_flat(const seg* w, double ox, double oz, double dx, double dz, double x, double z) {
    (void)ox, (void)oz;
    double t = ((x - w->ax) * dx + (z - w->az) * dz) / (dx * dx + dz * dz);
    return t >= -1e-12 && t <= 1 + 1e-12;
}

/* Intersections of line o + t d with the circle (cx, cz, r): up to two points. */
static int line_circle(double ox, double oz, double dx, double dz, double cx, double cz, double r, double out[4]) {
    double fx = ox - cx, fz = oz - cz;
    double a = dx * dx + dz * dz, b = 2 * (fx * dx + fz * dz), c = fx * fx + fz * fz - r * r;
    double disc = b * b - 4 * a * c;
    if (!(a > 0) || disc < 0) return 0;
    double sq = sqrt(disc);
    double t1 = (-b - sq) / (2 * a), t2 = (-b + sq) / (2 * a);
    out[0] = ox + t1 * dx, out[1] = oz + t1 * dz, out[2] = ox + t2 * dx, out[3] = oz + t2 * dz;
    return 2;
}

static void single_wall_candidates(cand_state* cs, const seg* w) {
    const double px = cs->s->x, pz = cs->s->z, r = cs->r;
    for (int side = -1; side <= 1; side += 2) {
        double ox, oz, dx, dz;
        offset_of(cs, w, side, &ox, &oz, &dx, &dz);
        double t = ((px - ox) * dx + (pz - oz) * dz) / (dx * dx + dz * dz);
        if (t >= 0 && t <= 1) try_candidate(cs, ox + t * dx, oz + t * dz);
    }
    const double ends[2][2] = {{w->ax, w->az}, {w->bx, w->bz}};
    for (int e = 0; e < 2; ++e) {
        double vx = px - ends[e][0], vz = pz - ends[e][1], len = ptl_len2(vx, vz);
        if (len > 0) try_candidate(cs, ends[e][0] + vx / len * r, ends[e][1] + vz / len * r);
    }
}

/* Where the boundaries of stadiums a and b cross, and where the rays from p past a's corners meet b. */
static void pair_candidates(cand_state* cs, const seg* a, const seg* b) {
    const double r = cs->r;
    double out[4];
    const double ca[2][2] = {{a->ax, a->az}, {a->bx, a->bz}}, cb[2][2] = {{b->ax, b->az}, {b->bx, b->bz}};
    for (int sa = -1; sa <= 1; sa += 2) {
        double aox, aoz, adx, adz;
        offset_of(cs, a, sa, &aox, &aoz, &adx, &adz);
        for (int sb = -1; sb <= 1; sb += 2) {
            double box, boz, bdx, bdz;
            offset_of(cs, b, sb, &box, &boz, &bdx, &bdz);
            double den = adx * bdz - adz * bdx;
            if (den == 0) continue;
            double t = ((box - aox) * bdz - (boz - aoz) * bdx) / den;
            double x = aox + t * adx, z = aoz + t * adz;
            if (on_flat(a, aox, aoz, adx, adz, x, z) && on_flat(b, box, boz, bdx, bdz, x, z)) try_candidate(cs, x, z);
        }
        for (int e = 0; e < 2; ++e) {
            if (line_circle(aox, aoz, adx, adz, cb[e][0], cb[e][1], r, out) != 2) continue;
            for (int k = 0; k < 2; ++k)
                if (on_flat(a, aox, aoz, adx, adz, out[2 * k], out[2 * k + 1])) try_candidate(cs, out[2 * k], out[2 * k + 1]);
        }
    }
    for (int e = 0; e < 2; ++e) {
        for (int f = 0; f < 2; ++f) {
            /* two corners' circles */
            double dx = cb[f][0] - ca[e][0], dz = cb[f][1] - ca[e][1], d = ptl_len2(dx, dz);
            if (d > 0 && d <= 2 * r) {
                double h = sqrt(fmax(0, r * r - d * d / 4));
                double mx = ca[e][0] + dx / 2, mz = ca[e][1] + dz / 2;
                try_candidate(cs, mx - dz / d * h, mz + dx / d * h);
                try_candidate(cs, mx + dz / d * h, mz - dx / d * h);
            }
        }
    }
}

/* Where the ray from p past corner (vx, vz) meets the stadium of wall b. */
static void ray_candidates(cand_state* cs, double vx, double vz, const seg* b) {
    const double r = cs->r;
    double out[4];
    const double cb[2][2] = {{b->ax, b->az}, {b->bx, b->bz}};
    double px = cs->s->x, pz = cs->s->z, rx = vx - px, rz = vz - pz;
    if (!(rx != 0 || rz != 0)) return;
    for (int f = 0; f < 2; ++f)
        if (line_circle(px, pz, rx, rz, cb[f][0], cb[f][1], r, out) == 2)
            for (int k = 0; k < 2; ++k) try_candidate(cs, out[2 * k], out[2 * k + 1]);
    for (int sb = -1; sb <= 1; sb += 2) {
        double box, boz, bdx, bdz;
        offset_of(cs, b, sb, &box, &boz, &bdx, &bdz);
        double den = rx * bdz - rz * bdx;
        if (den == 0) continue;
        double t = ((box - px) * bdz - (boz - pz) * bdx) / den;
        double x = px + t * rx, z = pz + t * rz;
        if (t > 0 && on_flat(b, box, boz, bdx, bdz, x, z)) try_candidate(cs, x, z);
    }
}

/* A lower bound of p's distance to any candidate made from wall w (each lies within r of w, up to
   rounding): p's distance to w less r, less a margin of 1e-6 of the sizes involved. */
static double wall_bound(const cand_state* cs, const seg* w) {
    double x, z, d = nearest_on_segment(cs->s->x, cs->s->z, w->ax, w->az, w->bx, w->bz, &x, &z);
    double len = ptl_len2(w->bx - w->ax, w->bz - w->az);
    return d - cs->r - 1e-6 * (1 + cs->r + cs->reach + d + len);
}

/* Would try_candidate turn down every candidate at least `bound` from p, before any check? */
static bool beyond_take(const cand_state* cs, double bound) {
    if (bound > cs->reach) return true;
    return cs->found && bound > cs->best_d + cs->q->eps;
}

ptl_status ptl_clear_move(ptl_query* q, const ptl_qpoint* s, double radius, double reach, double* ox, double* oz,
                          uint32_t* ocell, uint32_t* roomy) {
    bool ok, none_near;
    uint32_t cell = s->cell;
    *ox = s->x, *oz = s->z;
    if (roomy) *roomy = PTL_NONE;
    ptl_status st = keeps_clear(q, s, s->x, s->z, radius, &cell, &ok, &none_near);
    if (st < 0) return st;
    if (ok && none_near && roomy) *roomy = cell;
    if (!ok) {
        cand_state cs = {.q = q, .s = s, .walls = (const seg*)(const void*)q->heap, .r = radius, .reach = reach};
        /* the walls near enough to shape a candidate, fewer than the buffer holds: a nearer reach
           when there are more; none that holds the walls within the radius itself: too many */
        while (!gather_walls(q, s->x, s->z, s->cell, cs.reach + cs.r, &cs.wall_count)) {
            if (cs.reach < q->eps) return PTL_ERR_OUT_OF_NODES;
            cs.reach = cs.reach * 0.5 < q->eps ? 0 : cs.reach * 0.5;
        }
        /* Every candidate lies within r of the walls it is made from (on a stadium's boundary), so
           it is at least (p's distance to such a wall) - r from p: a wall whose bound exceeds what
           try_candidate would still take (the reach, and once one is found the best distance plus
           the tolerance) makes no candidate it takes, and its candidates are not made. The bound
           (wall_bound) is lowered by a margin far above the rounding of the candidates (a line
           meeting a circle near its tangent is off by about sqrt(DBL_EPSILON) times the sizes), so
           the same candidates are taken in the same order: the same point. */
        double* bound = (double*)(void*)q->nodes; /* the node pool's lower half: unused here */
        double* off = bound + cs.wall_count;
        for (uint32_t i = 0; i < cs.wall_count; ++i) {
            bound[i] = wall_bound(&cs, &cs.walls[i]);
            for (int side = -1; side <= 1; side += 2) {
                double* o = off + 8 * (size_t)i + (side > 0 ? 4 : 0);
                offset_line(&cs.walls[i], cs.r, side, &o[0], &o[1], &o[2], &o[3]);
            }
        }
        cs.off = off;
        for (uint32_t i = 0; i < cs.wall_count && cs.error == PTL_OK; ++i) {
            if (!beyond_take(&cs, bound[i])) single_wall_candidates(&cs, &cs.walls[i]);
            /* the rays from p past this wall's first corner (every corner starts a wall) */
            for (uint32_t j = 0; j < cs.wall_count && cs.error == PTL_OK; ++j)
                if (!beyond_take(&cs, bound[j])) ray_candidates(&cs, cs.walls[i].ax, cs.walls[i].az, &cs.walls[j]);
            for (uint32_t j = i + 1; j < cs.wall_count && cs.error == PTL_OK; ++j) {
                const double b = fmax(bound[i], bound[j]);
                if (beyond_take(&cs, b) || !(seg_seg_distance(&cs.walls[i], &cs.walls[j]) <= 2 * cs.r)) continue;
                pair_candidates(&cs, &cs.walls[i], &cs.walls[j]);
                if (!beyond_take(&cs, b)) pair_candidates(&cs, &cs.walls[j], &cs.walls[i]);
            }
        }
        if (cs.error < 0) return cs.error;
        if (!cs.found) return PTL_ERR_NOT_FOUND;
        *ox = cs.bx, *oz = cs.bz, cell = cs.best_cell;
    }
    *ocell = cell;
    return PTL_OK;
}

/* Float coordinates for (x, z), a point of `cell` that keeps r: the nearest floats, or where
   rounding brings them nearer than r to a wall, the floats within two steps that keep r (the
   nearest such, or the one that keeps the most). A point squeezed between walls exactly 2 r apart
   keeps r only where its floats fall on the middle. */
void ptl_clear_float_point(ptl_query* q, double x, double z, uint32_t cell, double r, float* fx, float* fz) {
    float bx = (float)x, bz = (float)z;
    *fx = bx, *fz = bz;
    if (!(r > 0)) return;
    ptl_qpoint at;
    memset(&at, 0, sizeof at);
    at.x = x, at.z = z, at.cell = at.pair[0] = cell, at.cells = at.pair, at.cell_count = 1;
    double best = -1;
    for (int ring = 0; ring <= 2; ++ring) {
        /* keep never exceeds r: once one keeps r, no later one is taken */
        for (int i = -ring; i <= ring && best < r; ++i)
            for (int j = -ring; j <= ring && best < r; ++j) {
                if (ring && abs(i) != ring && abs(j) != ring) continue;
                float cx = bx, cz = bz;
                for (int k = 0; k < abs(i); ++k) cx = nextafterf(cx, i > 0 ? INFINITY : -INFINITY);
                for (int k = 0; k < abs(j); ++k) cz = nextafterf(cz, j > 0 ? INFINITY : -INFINITY);
                uint32_t c = ptl_clear_walk(q, &at, cx, cz);
                if (c == PTL_NONE) continue;
                wall_best b;
                if (ptl_clear_nearest_wall(q, cx, cz, c, r, 0, &b) < 0) return;
                double keep = b.found ? b.d : r;
                if (keep > best) best = keep, *fx = cx, *fz = cz;
            }
        if (best >= r) return;
    }
}

/* The reach of a clear point: the box's half-extents in plan (default 2). */
double ptl_clear_reach(const float extents[3]) {
    if (extents && (extents[0] != 0 || extents[1] != 0 || extents[2] != 0)) return fmin(extents[0], extents[2]);
    return 2;
}

ptl_status ptl_query_clear_point(ptl_query* q, const float p[3], const float extents[3], float radius,
                                 ptl_location* out) {
    if (!out) return PTL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->cell = PTL_NONE;
    if (!q || !p || !finite3(p) || (extents && !finite3(extents)) || !(radius >= 0) || !isfinite(radius))
        return PTL_ERR_INVALID_ARG;
    ptl_qpoint s;
    ptl_status st = ptl_query_locate_point(q, p, extents, &s);
    if (st < 0) return st;
    double x, z;
    uint32_t cell;
    st = ptl_clear_move(q, &s, radius, ptl_clear_reach(extents), &x, &z, &cell, NULL);
    if (st < 0) return st;
    out->cell = cell;
    ptl_clear_float_point(q, x, z, cell, radius, &out->point[0], &out->point[2]);
    out->point[1] = ptl_query_cell_y(q->nm, cell, x, z);
    double dx = out->point[0] - p[0], dy = out->point[1] - p[1], dz = out->point[2] - p[2];
    out->distance = (float)sqrt(dx * dx + dy * dy + dz * dz);
    return PTL_OK;
}

/* ---- Cells in a circle ----------------------------------------------------------------------- */

ptl_status ptl_query_cells_in_circle(ptl_query* q, const float p[3], const float extents[3], float radius, uint32_t* cells,
                                     uint32_t capacity, uint32_t* count) {
    if (count) *count = 0;
    if (!q || !p || !count || !finite3(p) || (extents && !finite3(extents)) || !(radius >= 0) || !isfinite(radius) ||
        (capacity && !cells))
        return PTL_ERR_INVALID_ARG;
    ptl_qpoint s;
    ptl_status st = ptl_query_locate_point(q, p, extents, &s);
    if (st < 0) return st;
    /* breadth first from the cells holding the point, through the portals that come within the
       radius (closed): each cell reached meets the disc on that portal */
    const ptl_navmesh* nm = q->nm;
    uint32_t stamp = ptl_query_next_stamp(q), head = 0, tail = 0;
    for (uint32_t k = 0; k < s.cell_count; ++k)
        if (q->seen_stamp[s.cells[k]] != stamp) q->seen_stamp[s.cells[k]] = stamp, q->cheap[tail++] = s.cells[k];
    while (head < tail) {
        uint32_t cid = q->cheap[head++];
        if (head - 1 < capacity) cells[head - 1] = cid;
        const ptl_blob_cell* c = &nm->cells[cid];
        for (uint32_t i = 0; i < c->vert_count; ++i) {
            const ptl_slot* sa = &q->slots[c->first + i];
            if (sa->nbr == PTL_NONE || q->seen_stamp[sa->nbr] == stamp) continue;
            const ptl_slot* sb = &q->slots[c->first + (i + 1 == c->vert_count ? 0 : i + 1)];
            double x, z;
            if (nearest_on_segment(s.x, s.z, sa->x, sa->z, sb->x, sb->z, &x, &z) > radius) continue;
            q->seen_stamp[sa->nbr] = stamp;
            q->cheap[tail++] = sa->nbr;
        }
    }
    *count = tail;
    return tail > capacity ? PTL_TRUNCATED : PTL_OK;
}
