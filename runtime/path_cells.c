/* The cells a path crosses (ptl_path_result.cells), from its points: each segment is walked
   through the portals it crosses (clearance.c, ptl_clear_trace, as the raycast walks) from the cell
   the last one ended in. Where a walk cannot leave that cell (the path turns at a corner and goes
   on from another cell round it), the cells holding the corner, reached through portals, are put
   between (the path touches the corner, which every one of them holds), so consecutive cells
   always share a portal. */
#include <math.h>
#include <string.h>

#include "clearance.h"

typedef struct cell_out {
    uint32_t* cells;
    uint32_t capacity, count, last;
} cell_out;

/* Appends c unless it is the last cell put. */
static void put(cell_out* o, uint32_t c) {
    if (o->count && o->last == c) return;
    if (o->count < o->capacity) o->cells[o->count] = c;
    ++o->count, o->last = c;
}

/* Does cell c hold (x, z), within tol of its edges? */
static bool holds(const ptl_navmesh* nm, uint32_t c, double x, double z, double tol) {
    const ptl_blob_cell* cell = &nm->cells[c];
    const uint32_t* cv = nm->cell_verts + cell->first;
    for (uint32_t i = 0; i < cell->vert_count; ++i) {
        uint32_t a = cv[i], b = cv[i + 1 == cell->vert_count ? 0 : i + 1];
        double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a), ex = ptl_nm_vx(nm, b) - ax, ez = ptl_nm_vz(nm, b) - az;
        double len = sqrt(ex * ex + ez * ez);
        if (len > 0 && ex * (z - az) - ez * (x - ax) < -tol * len) return false;
    }
    return true;
}

/* Walks toward b from (px, pz) as a point of cell c; true when it gets somewhere (the target, or
   a stop past the point itself). */
static bool walk_from(ptl_query* q, uint32_t c, double px, double pz, const float* b, ptl_clear_trace_out* tr) {
    ptl_qpoint s;
    ptl_qpoint_in_cell(&s, c, px, 0, pz);
    memset(tr, 0, sizeof *tr);
    tr->cells = q->cheap, tr->cell_capacity = q->nm->h->cell_count;
    return ptl_clear_trace(q, &s, b[0], b[2], tr) && tr->cell_count > 0 && !(tr->hit && tr->t <= 0);
}

/* One walk toward b from (px, pz), a point of cell `last`, its cells put into o. Where the walk cannot leave (a corner whose way on starts in a cell
   of another vertex id at the same place, a layer's seam, rounding), the cells holding the point
   that are reached from `last` through portals are tried nearest first, and the chain of them up
   to the one that gets somewhere is put before its walk: every cell of the chain holds the point,
   and each shares a portal with the next. The walk's cells go through q->cheap (the corridor
   search's open list, done with by now; a segment crosses a convex cell at most once, so
   cell_count is room enough). False when no cell round the point gets anywhere. */
static bool walk(ptl_query* q, uint32_t last, double px, double pz, const float* b, ptl_clear_trace_out* tr, cell_out* o) {
    const ptl_navmesh* nm = q->nm;
    if (!walk_from(q, last, px, pz, b, tr)) {
        /* breadth first over the cells holding the point */
        enum { ROUND = 64 };
        uint32_t cell[ROUND], parent[ROUND], head = 0, tail = 0, found = PTL_NONE;
        const double tol = 4 * q->loc_eps;
        cell[tail] = last, parent[tail++] = PTL_NONE;
        while (head < tail) {
            uint32_t at = head++, c = cell[at];
            if (at > 0 && walk_from(q, c, px, pz, b, tr)) {
                found = at;
                break;
            }
            const ptl_blob_cell* cc = &nm->cells[c];
            for (uint32_t i = 0; i < cc->vert_count && tail < ROUND; ++i) {
                uint32_t nb = q->slots[cc->first + i].nbr;
                bool seen = nb == PTL_NONE;
                for (uint32_t k = 0; k < tail && !seen; ++k) seen = cell[k] == nb;
                if (seen || !holds(nm, nb, px, pz, tol)) continue;
                cell[tail] = nb, parent[tail++] = at;
            }
        }
        if (found == PTL_NONE) return false;
        /* the chain from last to the cell found, in order (parents run backwards); walk_from
           left that cell's walk in tr and q->cheap */
        uint32_t chain[ROUND], len = 0;
        for (uint32_t at = found; at != PTL_NONE; at = parent[at]) chain[len++] = cell[at];
        while (len) put(o, chain[--len]);
    }
    for (uint32_t i = 0; i < tr->cell_count; ++i) put(o, q->cheap[i]);
    return true;
}

/* The part [*t0, *t1] of the segment p -> b in cell c (within tol of its edges); false when it
   misses it. Cyrus and Beck 1978. */
static bool clip_cell(const ptl_navmesh* nm, uint32_t c, double px, double pz, const float* b, double tol, double* out0,
                      double* out1) {
    const ptl_blob_cell* cell = &nm->cells[c];
    const uint32_t* cv = nm->cell_verts + cell->first;
    const double dx = b[0] - px, dz = b[2] - pz;
    double t0 = 0, t1 = 1;
    for (uint32_t i = 0; i < cell->vert_count && t0 <= t1; ++i) {
        uint32_t a = cv[i], e = cv[i + 1 == cell->vert_count ? 0 : i + 1];
        double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a), ex = ptl_nm_vx(nm, e) - ax, ez = ptl_nm_vz(nm, e) - az;
        double len = sqrt(ex * ex + ez * ez);
        if (len == 0) continue;
        /* inside: f(t) = (e x (p + t d - a)) / |e| >= -tol */
        double f0 = (ex * (pz - az) - ez * (px - ax)) / len + tol, df = (ex * dz - ez * dx) / len;
        if (df == 0) {
            if (f0 < 0) return false;
        } else if (df > 0) {
            t0 = fmax(t0, -f0 / df);
        } else {
            t1 = fmin(t1, -f0 / df);
        }
    }
    *out0 = t0, *out1 = t1;
    return t0 <= t1;
}

/* The tolerant walk (the fallback where the exact one lost its way, or met a wall where rounding
   puts the segment a hair outside the cells): from `last`, whose part of the segment ends at t,
   breadth first through portals over the cells whose part of the segment holds t, to the one
   whose part goes furthest; its chain is put into o; again from there until a part reaches b.
   Uses q->cheap and q->cc (parents, stamped). Writes the cell holding b to *end; false when no
   cell goes on. */
static bool walk_tolerant(ptl_query* q, uint32_t last, double px, double pz, const float* b, cell_out* o, uint32_t* end) {
    const ptl_navmesh* nm = q->nm;
    const double tol = 4 * q->loc_eps, len = hypot(b[0] - px, b[2] - pz), teps = len > 0 ? tol / len : 1;
    double t0, t1;
    uint32_t cur = last;
    double t = clip_cell(nm, cur, px, pz, b, tol, &t0, &t1) ? t1 : 0;
    for (uint32_t guard = 0; t < 1 - teps; ++guard) {
        if (guard > nm->h->cell_count) return false;
        const uint32_t stamp = ptl_query_next_stamp(q);
        uint32_t head = 0, tail = 0, best = PTL_NONE;
        double best_t = t + teps;
        q->cheap[tail++] = cur, q->cc[cur].stamp = stamp, q->cc[cur].parent = PTL_NONE;
        while (head < tail) {
            uint32_t c = q->cheap[head++];
            if (c != cur && clip_cell(nm, c, px, pz, b, tol, &t0, &t1) && t1 > best_t) best_t = t1, best = c;
            const ptl_blob_cell* cc = &nm->cells[c];
            for (uint32_t i = 0; i < cc->vert_count; ++i) {
                uint32_t nb = q->slots[cc->first + i].nbr;
                if (nb == PTL_NONE || q->cc[nb].stamp == stamp) continue;
                if (!clip_cell(nm, nb, px, pz, b, tol, &t0, &t1) || t0 > t + teps || t1 < t - teps) continue;
                q->cc[nb].stamp = stamp, q->cc[nb].parent = c;
                q->cheap[tail++] = nb;
            }
        }
        if (best == PTL_NONE) return false;
        uint32_t depth = 0;
        for (uint32_t c = best; c != cur; c = q->cc[c].parent) ++depth;
        while (depth--) {
            uint32_t c = best;
            for (uint32_t k = 0; k < depth; ++k) c = q->cc[c].parent;
            put(o, c);
        }
        cur = best, t = best_t;
    }
    *end = cur;
    return true;
}

/* The walk's fallback (it lost its way, or met a wall where rounding puts the segment a hair
   outside the cells): breadth first from `last` through the portals of cells the segment meets
   (within tol; any cell when not `strict`) to the nearest cell holding b; that chain of cells is
   put into o and its last cell written to *end. Uses q->cheap (queue) and q->cc (visits and
   parents, stamped). */
static bool walk_fallback(ptl_query* q, uint32_t last, double px, double pz, const float* b, bool strict, cell_out* o,
                          uint32_t* end) {
    const ptl_navmesh* nm = q->nm;
    const double tol = 4 * q->loc_eps;
    const uint32_t stamp = ptl_query_next_stamp(q);
    uint32_t head = 0, tail = 0, found = PTL_NONE;
    q->cheap[tail++] = last, q->cc[last].stamp = stamp, q->cc[last].parent = PTL_NONE;
    while (head < tail && found == PTL_NONE) {
        uint32_t c = q->cheap[head++];
        if (holds(nm, c, b[0], b[2], tol)) {
            found = c;
            break;
        }
        const ptl_blob_cell* cc = &nm->cells[c];
        for (uint32_t i = 0; i < cc->vert_count; ++i) {
            uint32_t nb = q->slots[cc->first + i].nbr;
            double t0, t1;
            if (nb == PTL_NONE || q->cc[nb].stamp == stamp || (strict && !clip_cell(nm, nb, px, pz, b, tol, &t0, &t1)))
                continue;
            q->cc[nb].stamp = stamp, q->cc[nb].parent = c;
            q->cheap[tail++] = nb;
        }
    }
    if (found == PTL_NONE) return false;
    /* put the chain in order: the cell depth d from the end back, for d from the deepest */
    uint32_t depth = 0;
    for (uint32_t c = found; c != PTL_NONE; c = q->cc[c].parent) ++depth;
    while (depth--) {
        uint32_t c = found;
        for (uint32_t k = 0; k < depth; ++k) c = q->cc[c].parent;
        put(o, c);
    }
    *end = found;
    return true;
}

ptl_status ptl_query_path_cells(ptl_query* q, const ptl_qpoint* start, const float* pts, uint32_t n, ptl_path_result* res) {
    cell_out o = {res->cells, res->cell_capacity, 0, PTL_NONE};
    res->cell_count = 0;
    if (n == 0) return PTL_OK;
    const double tol = 4 * q->loc_eps;
    /* from the start's cell (a start on an edge or a vertex has several: the one it was located in,
       res->start_cell; the walk goes round the start to the one it leaves from) */
    uint32_t last = start->cell;
    double px = start->x, pz = start->z;
    put(&o, last);
    for (uint32_t k = 0; k + 1 < n; ++k) {
        const float* b = &pts[3 * (k + 1)];
        /* A walk can stop short at a vertex (a wall the segment runs along, rounding): it goes on
           from there. */
        for (uint32_t piece = 0;; ++piece) {
            if (piece == 64) return PTL_ERR_INTERNAL;
            double len = hypot(b[0] - px, b[2] - pz);
            ptl_clear_trace_out tr;
            if (!walk(q, last, px, pz, b, &tr, &o)) {
                /* the tolerant walk; failing that (not seen in tests), the nearest chain of cells to b's */
                uint32_t from = last;
                if (!walk_tolerant(q, from, px, pz, b, &o, &last) && !walk_fallback(q, from, px, pz, b, false, &o, &last))
                    return PTL_ERR_INTERNAL;
                break;
            }
            last = tr.cell;
            if (!tr.hit || (1 - tr.t) * len <= tol) break;
            px += tr.t * (b[0] - px), pz += tr.t * (b[2] - pz);
        }
        px = b[0], pz = b[2];
    }
    res->cell_count = o.count;
    return o.count > o.capacity ? PTL_TRUNCATED : PTL_OK;
}
