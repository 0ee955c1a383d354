/* The cells a path crosses (ptl_path_result.cells), from its points: each segment is walked
   through the portals it crosses (clearance.c, ptl_clear_trace, as the raycast walks), and where
   the path turns at a corner (a vertex), the cells around the vertex between the cell the segment
   in ends in and the one the segment out starts from are put between them (the path touches the
   vertex, which every one of them holds; walking round it through the portals that end at it
   keeps consecutive cells neighbours). */
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

/* The index of vertex v in cell c, or PTL_NONE. */
static uint32_t index_of(const ptl_navmesh* nm, uint32_t c, uint32_t v) {
    const ptl_blob_cell* cell = &nm->cells[c];
    for (uint32_t i = 0; i < cell->vert_count; ++i)
        if (nm->cell_verts[cell->first + i] == v) return i;
    return PTL_NONE;
}

/* Walks round vertex v from cell a toward cell b through the portals that end at v, in one turning
   sense (out through the edge that starts at v: `forward`; else the one that ends at it); writes
   the cells between them to `between` (at most `cap`); returns their count, or PTL_NONE when the
   walk meets a wall or goes round without finding b. */
static uint32_t fan(const ptl_navmesh* nm, uint32_t a, uint32_t b, uint32_t v, bool forward, uint32_t* between,
                    uint32_t cap) {
    uint32_t c = a, n = 0;
    for (uint32_t step = 0; step < cap; ++step) {
        uint32_t i = index_of(nm, c, v);
        if (i == PTL_NONE) return PTL_NONE;
        const uint32_t vc = nm->cells[c].vert_count;
        uint32_t edge = forward ? i : (i + vc - 1) % vc;
        uint32_t next = nm->cell_nbrs[nm->cells[c].first + edge];
        if (next == PTL_NONE || next == a) return PTL_NONE;
        if (next == b) return n;
        between[n++] = next;
        c = next;
    }
    return PTL_NONE;
}

/* The vertex of cell c within tol of (x, z) in both coordinates (the nearest), or PTL_NONE. */
static uint32_t vertex_near(const ptl_navmesh* nm, uint32_t c, double x, double z, double tol) {
    const ptl_blob_cell* cell = &nm->cells[c];
    uint32_t best = PTL_NONE;
    double best_d = INFINITY;
    for (uint32_t i = 0; i < cell->vert_count; ++i) {
        uint32_t v = nm->cell_verts[cell->first + i];
        double d = fmax(fabs(ptl_nm_vx(nm, v) - x), fabs(ptl_nm_vz(nm, v) - z));
        if (d <= tol && d < best_d) best = v, best_d = d;
    }
    return best;
}

/* Puts the cells round vertex v between cell a (where the way in ends) and cell b (where the way
   out starts), the shorter way round that gets there; false when neither does. */
static bool round_vertex(const ptl_navmesh* nm, uint32_t a, uint32_t b, uint32_t v, cell_out* o) {
    enum { FAN = 64 };
    uint32_t between[FAN];
    if (v == PTL_NONE) return false;
    uint32_t m1 = fan(nm, a, b, v, true, between, FAN), m2 = fan(nm, a, b, v, false, between, FAN);
    if (m1 == PTL_NONE && m2 == PTL_NONE) return false;
    bool fwd = m1 != PTL_NONE && (m2 == PTL_NONE || m1 <= m2);
    uint32_t m = fan(nm, a, b, v, fwd, between, FAN);
    for (uint32_t i = 0; i < m; ++i) put(o, between[i]);
    return true;
}

ptl_status ptl_query_path_cells(ptl_query* q, const ptl_qpoint* start, const float* pts, uint32_t n, ptl_path_result* res) {
    const ptl_navmesh* nm = q->nm;
    cell_out o = {res->cells, res->cell_capacity, 0, PTL_NONE};
    res->cell_count = 0;
    if (n == 0) return PTL_OK;
    ptl_qpoint s = *start;
    if (s.kind != PTL_QPOINT_VERTEX) s.cells = s.pair; /* the copy's own storage */
    uint32_t last = PTL_NONE;  /* the cell the previous segment ended in */
    uint32_t turn = PTL_NONE;  /* the vertex it ended at, if any */
    if (n == 1) put(&o, s.cell);
    for (uint32_t k = 0; k + 1 < n; ++k) {
        const float* b = &pts[3 * (k + 1)];
        /* A walk can stop short at a vertex the segment runs through along a wall (rounding): it
           goes on from that vertex, round it as at a turn. */
        for (uint32_t piece = 0;; ++piece) {
            if (piece == 64) return PTL_ERR_INTERNAL;
            /* the segment's cells into the corridor search's open list (done with by now; a segment
               crosses a convex cell at most once, so cell_count is room enough) */
            ptl_clear_trace_out tr = {.cells = q->cheap, .cell_capacity = nm->h->cell_count};
            if (!ptl_clear_trace(q, &s, b[0], b[2], &tr) || tr.cell_count == 0) return PTL_ERR_INTERNAL;
            if (last != PTL_NONE && tr.start != last && !round_vertex(nm, last, tr.start, turn, &o))
                return PTL_ERR_INTERNAL;
            for (uint32_t i = 0; i < tr.cell_count; ++i) put(&o, q->cheap[i]);
            last = tr.cell;
            if (!tr.hit) break;
            double x = s.x + tr.t * (b[0] - s.x), z = s.z + tr.t * (b[2] - s.z);
            turn = vertex_near(nm, last, x, z, 1e-6 * ptl_nm_plan_scale(nm));
            if (turn == PTL_NONE || tr.t <= 0) return PTL_ERR_INTERNAL;
            ptl_query_vertex_point(nm, turn, &s);
        }
        /* the next segment starts at b: its vertex when it is a corner, else a point in `last` */
        turn = vertex_near(nm, last, b[0], b[2], 0);
        if (turn != PTL_NONE) {
            ptl_query_vertex_point(nm, turn, &s);
        } else {
            memset(&s, 0, sizeof s);
            s.kind = PTL_QPOINT_CELL;
            s.x = b[0], s.z = b[2], s.y = b[1];
            s.cell = last, s.pair[0] = last, s.cells = s.pair, s.cell_count = 1;
        }
    }
    res->cell_count = o.count;
    return o.count > o.capacity ? PTL_TRUNCATED : PTL_OK;
}
