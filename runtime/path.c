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

/* The most off-mesh links one disc path takes (more: the path without links). */
#define DISC_MAX_LINKS 16u

/* What the legs of a disc path through links wrote so far: points, turns, cells expanded, length. */
typedef struct disc_legs {
    uint32_t points, turns, expanded;
    double length;
} disc_legs;

/* One leg: the disc path from a to b written after the legs before it (w), its last point flagged
   `flag` (where a link starts). PTL_PARTIAL when the disc cannot make it. */
static ptl_status disc_leg(ptl_query* q, const ptl_path_request* req, const ptl_qpoint* a, const ptl_qpoint* b,
                           const ptl_disc_ends* de, double r, double tol, uint8_t flag, ptl_path_result* res, disc_legs* w) {
    ptl_path_result leg = *res;
    const bool room = res->points && w->points < res->point_capacity;
    leg.points = room ? res->points + 3 * (size_t)w->points : res->points;
    leg.point_capacity = room ? res->point_capacity - w->points : 0;
    leg.flags = NULL, leg.cells = NULL, leg.cell_capacity = 0;
    const bool turn_room = res->turns && w->turns < res->turn_capacity;
    leg.turns = turn_room ? res->turns + w->turns : NULL;
    leg.turn_capacity = turn_room ? res->turn_capacity - w->turns : 0;
    leg.turn_count = 0;
    ptl_status st = req->mode == PTL_PATH_CORRIDOR
                        ? ptl_query_disc_corridor(q, a, b, r, tol, de, leg.turns, leg.turn_capacity, &leg)
                        : ptl_query_disc_path(q, a, b, r, tol, de, leg.turns, leg.turn_capacity, &leg);
    w->expanded += leg.nodes_expanded;
    if (st < 0 || st == PTL_PARTIAL || !leg.found) return st < 0 ? st : PTL_PARTIAL;
    for (uint32_t i = 0; res->flags && i < leg.point_total && w->points + i < res->point_capacity; ++i)
        res->flags[w->points + i] = i + 1 == leg.point_total ? flag : 0;
    w->points += leg.point_total, w->turns += leg.turn_count, w->length += leg.length;
    res->goal_cell = leg.goal_cell;
    return PTL_OK;
}

/* A disc path through off-mesh links (runtime.h): the corridor's A* at radius r, through the links,
   picks the links; each link's ends are moved to keep r (within the request's reach), then each
   leg between them is a disc path of its own (the request's mode), the links' costs added and the
   steps from each link's own end to its moved one (the disc takes the link where it has room, and
   its path is not the shorter for the ends having moved). So the
   path keeps r everywhere and takes each link from a point with room for the disc; the exact mode
   is shortest within each leg, over the links the corridor chose. PTL_ERR_NOT_FOUND: no link on
   the way (or more than DISC_MAX_LINKS, or an end without room): the caller's path without links. */
static ptl_status disc_link_path(ptl_query* q, const ptl_path_request* req, const ptl_qpoint* sp, const ptl_qpoint* gp,
                                 const ptl_disc_ends* de, double r, double reach, double tol, ptl_path_result* res) {
    uint32_t arcs[DISC_MAX_LINKS], expanded = 0;
    const uint32_t n = ptl_query_disc_link_route(q, sp, gp, r, arcs, DISC_MAX_LINKS, &expanded);
    if (n == 0 || n == PTL_NONE) return PTL_ERR_NOT_FOUND;
    /* the legs' ends: the start, each link's two ends moved to keep r, the goal */
    ptl_qpoint ends[2 * DISC_MAX_LINKS];
    uint32_t roomy[2 * DISC_MAX_LINKS];
    double stepped = 0; /* how far the moved ends lie from the links' own ends */
    for (uint32_t i = 0; i < n; ++i) {
        const ptl_om_end *from, *to;
        ptl_om_arc(q->nm, arcs[i], &from, &to);
        const ptl_om_end* e[2] = {from, to};
        for (int k = 0; k < 2; ++k) {
            ptl_qpoint p;
            double x, z;
            uint32_t cell;
            ptl_om_end_point(q->nm, e[k], &p);
            ptl_status st = ptl_clear_move(q, &p, r, reach, &x, &z, &cell, &roomy[2 * i + k]);
            if (st < 0 && st != PTL_ERR_NOT_FOUND) return st;
            if (st < 0) return PTL_ERR_NOT_FOUND;
            const float y = ptl_query_cell_y(q->nm, cell, x, z);
            ptl_qpoint_in_cell(&ends[2 * i + k], cell, x, y, z);
            stepped += sqrt((x - e[k]->x) * (x - e[k]->x) + ((double)y - e[k]->y) * ((double)y - e[k]->y) +
                            (z - e[k]->z) * (z - e[k]->z));
        }
    }
    disc_legs w = {0, 0, expanded, stepped};
    for (uint32_t i = 0; i <= n; ++i) {
        const ptl_qpoint* a = i == 0 ? sp : &ends[2 * i - 1];
        const ptl_qpoint* b = i == n ? gp : &ends[2 * i];
        const ptl_disc_ends le = {{i == 0 ? de->roomy[0] : roomy[2 * i - 1], i == n ? de->roomy[1] : roomy[2 * i]}};
        ptl_status st = disc_leg(q, req, a, b, &le, r, tol, i == n ? 0 : PTL_PATH_POINT_OFFMESH, res, &w);
        if (st < 0 && st != PTL_ERR_OUT_OF_NODES) return st;
        if (st != PTL_OK) return PTL_ERR_NOT_FOUND;
        if (i < n) w.length += q->nm->om[arcs[i] >> 1].cost;
    }
    res->start_cell = sp->cell;
    res->nodes_expanded = w.expanded;
    res->point_total = w.points;
    res->point_count = w.points < res->point_capacity ? w.points : res->point_capacity;
    res->turn_count = w.turns < res->turn_capacity ? w.turns : res->turn_capacity;
    res->length = w.length;
    res->found = res->complete = true;
    return res->point_count < w.points ? PTL_TRUNCATED : PTL_OK;
}

/* A path of radius r > 0 (disc_path.c): the ends moved to keep r, then the disc search; through
   off-mesh links when the navmesh has some and the disc's corridor takes one (disc_link_path). */
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
    if (q->nm->om_live || q->om_gen != q->nm->om_gen) {
        ptl_status st = ptl_om_begin(q, gp);
        if (st < 0) return st;
        if (q->om_on) {
            st = disc_link_path(q, req, sp, gp, &de, r, reach, tol, res);
            if (st != PTL_ERR_NOT_FOUND) return st;
            res->point_count = res->point_total = res->turn_count = 0; /* the path without links */
        }
    }
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
        if (pst == PTL_OK) {
            q->to_nearest = true;
            pst = point_path(q, req, sp, &np, res);
            q->to_nearest = false;
        }
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

