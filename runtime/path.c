/* The path query's entry points (ptl_query_find_path, and the sliced API's finish through
   ptl_query_path_located): checks, point location, and the dispatch by radius and mode to the
   interval search (search.c), the hub labels (hubs.c), the corridor (corridor.c) or a disc's
   searches (disc_path.c, disc_funnel.c), then the surface and the cells on request, and the
   partial path to the nearest reachable point (partial.c) when the goal cannot be reached. */
#include <math.h>
#include <string.h>

#include "clearance.h"
#include "interval.h"
#include "offmesh.h"

/* The exact path: read off the hub labels when the navmesh has them (hubs.c), else searched (and
   when the hub search runs out of room). */
static ptl_status exact(ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t, ptl_path_result* res) {
    if (q->run.state == PTL_RUN_DONE) return ptl_query_run_result(q, res); /* a sliced search that has run */
    /* hub labels are exact for the unfiltered mesh without links */
    if (!q->use_hubs || q->any_off || q->weighted || q->nm->om_live) return ptl_query_exact(q, s, t, res);
    ptl_status st = ptl_query_hub_path(q, s, t, res);
    /* The hub search's tables for the ends' pockets (or its pools) were too small: search. */
    if (st == PTL_ERR_OUT_OF_NODES) {
        ++q->hub_fallbacks;
        st = ptl_query_exact(q, s, t, res);
    }
    return st;
}

static bool finite3(const float p[3]) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

/* A path of radius r > 0 (disc_path.c): the ends moved to keep r, then the disc search. */
static ptl_status disc_path(ptl_query* q, const ptl_path_request* req, ptl_qpoint* sp, ptl_qpoint* gp,
                            ptl_path_result* res) {
    const double r = req->radius, reach = ptl_clear_reach(req->extents);
    ptl_qpoint* ends[2] = {sp, gp};
    ptl_disc_ends de;
    for (int k = 0; k < 2; ++k) {
        double x, z;
        uint32_t cell;
        ptl_status st = ptl_clear_move(q, ends[k], r, reach, &x, &z, &cell, &de.roomy[k]);
        if (st < 0) return st;
        if (x != ends[k]->x || z != ends[k]->z) ptl_qpoint_in_cell(ends[k], cell, x, 0, z);
    }
    res->start_cell = sp->cell;
    double tol = req->arc_tolerance > 0 ? req->arc_tolerance : 0.05 * r;
    ptl_status st = req->mode == PTL_PATH_CORRIDOR
                        ? ptl_query_disc_corridor(q, sp, gp, r, tol, &de, res->turns, res->turn_capacity, res)
                        : ptl_query_disc_path(q, sp, gp, r, tol, &de, res->turns, res->turn_capacity, res);
    if (st == PTL_PARTIAL) {
        /* The disc cannot reach the goal: the path to the point nearest the goal of the cells it
           may reach (through portals at least 2 r wide), moved to keep r (within the extents'
           reach), when the disc reaches that (runtime.h); found false. */
        ptl_qpoint np, cp;
        ptl_disc_ends pe = {{de.roomy[0], PTL_NONE}};
        double x, z;
        uint32_t cell;
        if (ptl_query_nearest_reached(q, sp, req->goal, r, &np) == PTL_OK &&
            ptl_clear_move(q, &np, r, reach, &x, &z, &cell, &pe.roomy[1]) == PTL_OK) {
            ptl_qpoint_in_cell(&cp, cell, x, ptl_query_cell_y(q->nm, cell, x, z), z);
            ptl_status pst = req->mode == PTL_PATH_CORRIDOR
                                 ? ptl_query_disc_corridor(q, sp, &cp, r, tol, &pe, res->turns, res->turn_capacity, res)
                                 : ptl_query_disc_path(q, sp, &cp, r, tol, &pe, res->turns, res->turn_capacity, res);
            if (pst >= 0 && res->found) {
                res->found = res->complete = false;
                return PTL_PARTIAL;
            }
            if (pst < 0) st = pst;
        }
    }
    if (st == PTL_ERR_OUT_OF_NODES || st == PTL_PARTIAL || st < 0) {
        res->point_count = res->point_total = res->turn_count = 0;
        res->found = res->complete = false;
        res->length = 0;
        res->goal_cell = PTL_NONE;
    }
    return st;
}

/* The search by req->mode: the exact one (hub labels when the navmesh has them), or the corridor,
   also whenever the query's filter weighs areas (filter.c). Both take off-mesh links. */
static ptl_status search_by_mode(ptl_query* q, const ptl_path_request* req, const ptl_qpoint* sp, const ptl_qpoint* gp,
                                 ptl_path_result* res) {
    return req->mode == PTL_PATH_EXACT && !q->weighted ? exact(q, sp, gp, res) : ptl_query_corridor(q, sp, gp, res);
}

/* A path with off-mesh links whose surface or cells are asked for: the corners and their flags
   into the query's buffers for such paths (offmesh_search.c), then leg by leg (offmesh_path.c). */
static ptl_status link_path(ptl_query* q, const ptl_path_request* req, const ptl_qpoint* sp, const ptl_qpoint* gp,
                            bool surface, ptl_path_result* res) {
    ptl_path_result in = *res;
    in.points = q->om_corners;
    in.flags = q->om_flags;
    in.point_capacity = q->om_corner_cap;
    in.cells = NULL, in.cell_capacity = 0;
    ptl_status st = search_by_mode(q, req, sp, gp, &in);
    if (st == PTL_TRUNCATED) st = PTL_ERR_INTERNAL; /* the buffer holds any path (ptl_om_corner_cap) */
    if (st < 0 || !in.found) {
        res->found = res->complete = false, res->nodes_expanded = in.nodes_expanded;
        return st;
    }
    ptl_path_result out = in;
    out.points = res->points, out.point_capacity = res->point_capacity, out.flags = res->flags;
    out.cells = res->cells, out.cell_capacity = res->cell_capacity;
    st = ptl_om_path_legs(q, sp, in.points, in.flags, in.point_count, in.length, surface, &out);
    *res = out;
    return st;
}

/* The path of a point (radius 0) from sp to gp by req->mode, following the surface on request,
   with its cells when res asks. */
static ptl_status point_path(ptl_query* q, const ptl_path_request* req, const ptl_qpoint* sp, const ptl_qpoint* gp,
                             ptl_path_result* res) {
    ptl_status st;
    const bool surface = q->profile && req->follow_surface, cells = res->cell_capacity > 0;
    if (!surface && !cells) {
        st = search_by_mode(q, req, sp, gp, res);
    } else if (q->nm->om_live > 0) {
        /* (the query's link buffers are ready: any search with live links synced them) */
        if (!q->om_corners || q->om_gen != q->nm->om_gen) {
            ptl_status ss = ptl_om_begin(q, gp);
            if (ss < 0) return ss;
        }
        st = link_path(q, req, sp, gp, surface, res);
    } else {
        /* The corners into the query's buffer (it holds any path: a taut path visits each vertex
           at most once), then the path (following the surface on request) into the caller's, and
           the cells walked along the corners. */
        ptl_path_result in = *res;
        in.points = q->corners;
        in.point_capacity = q->nm->h->vert_count + 2;
        st = search_by_mode(q, req, sp, gp, &in);
        if (st >= 0 && in.found) {
            ptl_path_result out = in;
            out.points = res->points;
            out.point_capacity = res->point_capacity;
            if (surface) {
                st = ptl_query_follow_surface(q, in.points, in.point_count, sp->cell, &out);
            } else {
                out.point_count = in.point_count < out.point_capacity ? in.point_count : out.point_capacity;
                if (out.point_count) memcpy(out.points, in.points, 3 * sizeof(float) * out.point_count);
                st = out.point_count < out.point_total ? PTL_TRUNCATED : st;
            }
            if (cells) {
                ptl_status cs = ptl_query_path_cells(q, sp, in.points, in.point_count, &out);
                if (cs < 0) st = cs;
                else if (cs == PTL_TRUNCATED && st == PTL_OK) st = cs;
            }
            *res = out;
        } else {
            float* keep = res->points;
            uint32_t cap = res->point_capacity;
            *res = in;
            res->points = keep, res->point_capacity = cap, res->point_count = 0;
        }
    }
    return st;
}

/* Dispatches on req->mode: PTL_PATH_EXACT runs the interval search above, PTL_PATH_CORRIDOR the A*
   over cells and the funnel (corridor.c). Both locate start and goal with the same rules
   (locate.c) and answer start and goal in a common cell with the straight segment. */
ptl_status ptl_query_path_check(const ptl_query* q, const ptl_path_request* req, ptl_path_result* res) {
    if (res) {
        res->point_count = res->point_total = 0;
        res->found = res->complete = false;
        res->length = 0;
        res->start_cell = res->goal_cell = PTL_NONE;
        res->nodes_expanded = 0;
        res->cell_count = 0;
        if ((res->point_capacity > 0 && !res->points) || (res->cell_capacity > 0 && !res->cells)) return PTL_ERR_INVALID_ARG;
        if (res->flags && res->point_capacity) memset(res->flags, 0, res->point_capacity);
        res->turn_count = 0;
    }
    if (!q || !req) return PTL_ERR_INVALID_ARG;
    if (!finite3(req->start) || !finite3(req->goal) || !finite3(req->extents) || !isfinite(req->radius))
        return PTL_ERR_INVALID_ARG;
    if (req->mode != PTL_PATH_EXACT && req->mode != PTL_PATH_CORRIDOR) return PTL_ERR_INVALID_ARG;
    if (!(req->radius >= 0) || !(req->arc_tolerance >= 0) || !isfinite(req->arc_tolerance)) return PTL_ERR_INVALID_ARG;
    return PTL_OK;
}

ptl_status ptl_query_path_located(ptl_query* q, const ptl_path_request* req, ptl_qpoint* sp, ptl_qpoint* gp,
                                  ptl_path_result* res) {
    res->start_cell = sp->cell;
    if (req->radius > 0) return q->use_disc ? disc_path(q, req, sp, gp, res) : PTL_ERR_UNSUPPORTED;
    ptl_status st = point_path(q, req, sp, gp, res);
    if (st == PTL_PARTIAL) {
        /* The goal is unreachable: the path to the reachable point nearest it (partial.c), found
           false. No such point (the goal's own piece, a search that gave up): no points. */
        ptl_qpoint np;
        ptl_status pst = ptl_query_nearest_reachable(q, sp, req->goal, &np);
        if (pst == PTL_OK) pst = point_path(q, req, sp, &np, res);
        if (pst >= 0 && res->found) {
            res->found = res->complete = false;
            return PTL_PARTIAL;
        }
        if (pst < 0 && pst != PTL_ERR_NOT_FOUND) st = pst;
    }
    if (st == PTL_ERR_OUT_OF_NODES || st == PTL_PARTIAL || st < 0) {
        res->point_count = res->point_total = res->cell_count = 0;
        res->found = res->complete = false;
        res->length = 0;
        res->goal_cell = PTL_NONE;
    }
    return st;
}

ptl_status ptl_query_find_path(ptl_query* q, const ptl_path_request* req, ptl_path_result* res) {
    if (!res) return PTL_ERR_INVALID_ARG;
    ptl_status st = ptl_query_path_check(q, req, res);
    if (st < 0) return st;
    q->run.sliced = 0, q->run.state = PTL_RUN_NONE; /* a sliced search on this query ends here */
    ptl_qpoint sp, gp;
    st = ptl_query_locate_point(q, req->start, req->extents, &sp);
    if (st < 0) return st;
    res->start_cell = sp.cell;
    st = ptl_query_locate_point(q, req->goal, req->extents, &gp);
    if (st < 0) return st;
    return ptl_query_path_located(q, req, &sp, &gp, res);
}

