/* Raycast (issue 19): how far a straight move in plan from a point of the mesh gets before a wall.
   The ray walks from the start's cell through the portals its segment crosses (clearance.c,
   ptl_clear_trace: at a vertex a portal is taken before a wall, so a ray grazing a corner or
   running along a wall passes; a ray into a pinch, where two regions touch at a point, stops there)
   and stops at the first wall edge it meets. On a 3D navmesh it follows the surface through its
   portals, so it goes up a ramp and stops at a ledge, as Detour's raycast does over polygons. */
#include <math.h>
#include <string.h>

#include "clearance.h"

static bool finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* Clears *out but for the caller's cell buffer; false for bad arguments. */
static bool raycast_begin(const ptl_query* q, const float start[3], const float end[3], const float extents[3],
                          ptl_raycast_hit* out) {
    uint32_t* cells = out->cells;
    uint32_t cap = out->cell_capacity;
    memset(out, 0, sizeof *out);
    out->cells = cells, out->cell_capacity = cap;
    out->start_cell = out->end_cell = PTL_NONE;
    return q && start && end && finite3(start) && finite3(end) && (!extents || finite3(extents)) && (!cap || cells);
}

/* The ray from the located start s toward end's x-z. With `held` (not NULL): s is a caller's point
   of one cell, not located, and *held false (nothing else done) when that cell does not hold it
   within the point-location tolerance (tested on the walk's first step). */
static ptl_status raycast_from(ptl_query* q, const ptl_qpoint* s, const float end[3], ptl_raycast_hit* out, bool* held) {
    const uint32_t cap = out->cell_capacity;
    out->start_cell = s->cell;
    ptl_clear_trace_out tr = {.cells = out->cells, .cell_capacity = cap};
    bool walked = held ? ptl_clear_trace_held(q, s, end[0], end[2], &tr, held) : ptl_clear_trace(q, s, end[0], end[2], &tr);
    if (held && !*held) return PTL_OK;
    if (!walked) return PTL_ERR_INTERNAL;
    double x = s->x + tr.t * (end[0] - s->x), z = s->z + tr.t * (end[2] - s->z);
    out->start_cell = tr.start;
    out->hit = tr.hit;
    out->t = (float)tr.t;
    out->end_cell = tr.cell;
    out->cell_count = tr.cell_count;
    out->point[0] = (float)x, out->point[2] = (float)z;
    out->point[1] = ptl_query_cell_yq(q, tr.cell, x, z);
    if (tr.hit) {
        /* the wall's normal into the walkable side: the left of its edge (cells are counter-clockwise) */
        const ptl_blob_cell* c = &q->nm->cells[tr.cell];
        const ptl_slot* a = &q->slots[c->first + tr.edge];
        const ptl_slot* b = &q->slots[c->first + (tr.edge + 1 == c->vert_count ? 0 : tr.edge + 1)];
        double ex = (double)b->x - a->x, ez = (double)b->z - a->z, len = ptl_len2(ex, ez);
        if (len > 0) out->normal[0] = (float)(-ez / len), out->normal[2] = (float)(ex / len);
    }
    return tr.cell_count > cap && cap > 0 ? PTL_TRUNCATED : PTL_OK;
}

ptl_status ptl_query_raycast(ptl_query* q, const float start[3], const float end[3], const float extents[3],
                             ptl_raycast_hit* out) {
    if (!out) return PTL_ERR_INVALID_ARG;
    if (!raycast_begin(q, start, end, extents, out)) return PTL_ERR_INVALID_ARG;
    ptl_qpoint s;
    ptl_status st = ptl_query_locate_point(q, start, extents, &s);
    if (st < 0) return st;
    return raycast_from(q, &s, end, out, NULL);
}

ptl_status ptl_query_raycast_in(ptl_query* q, uint32_t cell, const float start[3], const float end[3], ptl_raycast_hit* out) {
    if (!out) return PTL_ERR_INVALID_ARG;
    if (!raycast_begin(q, start, end, NULL, out)) return PTL_ERR_INVALID_ARG;
    if (cell >= q->nm->h->cell_count || ptl_query_cell_off(q, cell)) return ptl_query_raycast(q, start, end, NULL, out);
    ptl_qpoint s;
    ptl_qpoint_in_cell(&s, cell, start[0], start[1], start[2]);
    bool held;
    ptl_status st = raycast_from(q, &s, end, out, &held);
    return held ? st : ptl_query_raycast(q, start, end, NULL, out);
}
