/* A path that takes off-mesh links, followed over the surface and walked through its cells: leg by
   leg. The searches (search.c, corridor.c) give its corners with PTL_PATH_POINT_OFFMESH on each
   point where a link starts; the next point is the link's end, where the next leg starts. Each leg
   lies on the mesh and is followed (surface.c) and walked (path_cells.c) on its own, from the
   start's cell or from the cell of the link's end; the link's segment itself has no surface under
   it and no cells, and counts its cost. */
#include <string.h>

#include "offmesh.h"

/* The arc whose start is point a and whose end is point b (as written to a path: floats), its
   end located: the cells the next leg starts from. false when none matches (a bug). */
static bool link_between(const ptl_navmesh* nm, const float a[3], const float b[3], const ptl_om_link** link,
                         const ptl_om_end** end) {
    for (uint32_t arc = 0; arc < 2 * nm->om_used; ++arc) {
        const ptl_om_link* l = &nm->om[arc >> 1];
        if (!(l->salt & 1u) || ((arc & 1) && !l->desc.bidir)) continue;
        const ptl_om_end *from, *to;
        ptl_om_arc(nm, arc, &from, &to);
        if ((float)from->x == a[0] && (float)from->z == a[2] && from->y == a[1] && (float)to->x == b[0] &&
            (float)to->z == b[2] && to->y == b[1]) {
            *link = l, *end = to;
            return true;
        }
    }
    return false;
}

/* What has been written so far: points and cells up to the caller's capacities, counted whole. */
typedef struct legs_out {
    ptl_path_result* res;
    uint32_t points, cells;
    double length;
    ptl_status st;
} legs_out;

/* Leg corners[a..b] from point sp (the start, or a link's end): its points, followed over the
   surface on request, and its cells. */
static void put_leg(ptl_query* q, const ptl_qpoint* sp, const float* corners, uint32_t a, uint32_t b, bool surface,
                    uint8_t last_flag, legs_out* o) {
    ptl_path_result* res = o->res;
    const uint32_t n = b - a + 1;
    const uint32_t pfrom = o->points < res->point_capacity ? o->points : res->point_capacity;
    ptl_path_result leg;
    memset(&leg, 0, sizeof leg);
    leg.points = res->points ? res->points + 3 * (size_t)pfrom : NULL;
    leg.point_capacity = res->point_capacity - pfrom;
    if (surface) {
        if (ptl_query_follow_surface(q, corners + 3 * (size_t)a, n, sp->cell, &leg) < 0) o->st = PTL_ERR_INTERNAL;
        o->length += leg.length;
    } else {
        leg.point_total = n;
        leg.point_count = n < leg.point_capacity ? n : leg.point_capacity;
        if (leg.point_count) memcpy(leg.points, corners + 3 * (size_t)a, 3 * sizeof(float) * leg.point_count);
    }
    if (res->flags) {
        for (uint32_t i = 0; i < leg.point_count; ++i) res->flags[pfrom + i] = 0;
        if (leg.point_count == leg.point_total && leg.point_count) res->flags[pfrom + leg.point_count - 1] = last_flag;
    }
    o->points += leg.point_total;
    if (res->cell_capacity > 0) {
        const uint32_t cfrom = o->cells < res->cell_capacity ? o->cells : res->cell_capacity;
        ptl_path_result cl;
        memset(&cl, 0, sizeof cl);
        cl.cells = res->cells + cfrom;
        cl.cell_capacity = res->cell_capacity - cfrom;
        ptl_status cs = ptl_query_path_cells(q, sp, corners + 3 * (size_t)a, n, &cl);
        if (cs < 0) o->st = cs;
        o->cells += cl.cell_count;
    }
}

ptl_status ptl_om_path_legs(ptl_query* q, const ptl_qpoint* sp, const float* corners, const uint8_t* flags, uint32_t n,
                            double length, bool surface, ptl_path_result* res) {
    const ptl_navmesh* nm = q->nm;
    legs_out o = {res, 0, 0, 0, PTL_OK};
    ptl_qpoint from = *sp;
    uint32_t a = 0;
    for (uint32_t i = 0; i < n && o.st >= 0; ++i) {
        const bool link = (flags[i] & PTL_PATH_POINT_OFFMESH) && i + 1 < n;
        if (!link && i + 1 < n) continue;
        put_leg(q, &from, corners, a, i, surface, link ? PTL_PATH_POINT_OFFMESH : 0, &o);
        if (!link) break;
        const ptl_om_link* l;
        const ptl_om_end* end;
        if (!link_between(nm, &corners[3 * i], &corners[3 * i + 3], &l, &end)) return PTL_ERR_INTERNAL;
        o.length += l->cost;
        ptl_om_end_point(nm, end, &from);
        a = i + 1;
    }
    if (o.st < 0) return o.st;
    res->point_total = o.points;
    res->point_count = o.points < res->point_capacity ? o.points : res->point_capacity;
    res->length = surface ? o.length : length;
    res->cell_count = o.cells;
    return res->point_count < o.points || o.cells > res->cell_capacity ? PTL_TRUNCATED : PTL_OK;
}
