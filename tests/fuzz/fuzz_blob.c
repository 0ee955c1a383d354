/* The navmesh loader (ptl_navmesh_create) on any bytes, then, for what it accepts, the deep
   validation and a few queries: locate, exact and corridor paths between points derived from the
   input (cell centroids, vertices, points in and around the bounds). ptl_navmesh_create promises to
   check everything a query relies on, so no query on an accepted blob may misbehave whatever
   ptl_navmesh_validate says of it. The size and checksum fields are fixed up first (fuzz_common.h),
   so that mutations reach the checks after them. */
#include "fuzz_common.h"

static void query_point(const ptl_navmesh* nm, const ptl_navmesh_info* info, uint64_t* rng, float p[3]) {
    uint64_t pick = fuzz_next(rng) % 4;
    if (pick == 0 && ptl_navmesh_cell_centroid(nm, (uint32_t)(fuzz_next(rng) % info->cell_count), p) == PTL_OK) return;
    if (pick == 1) {
        const float* v = ptl_navmesh_vert(nm, (uint32_t)(fuzz_next(rng) % info->vert_count));
        if (v) {
            memcpy(p, v, sizeof(float) * 3);
            return;
        }
    }
    /* In and around the bounds (a quarter of their size beyond each side). */
    for (int k = 0; k < 3; ++k) {
        double lo = info->bmin[k], hi = info->bmax[k], pad = (hi - lo) * 0.25 + 1.0;
        p[k] = (float)(lo - pad + fuzz_unit(rng) * (hi - lo + 2 * pad));
        if (!isfinite(p[k])) p[k] = info->bmin[k];
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    uint8_t* b = malloc(size ? size : 1);
    if (!b) return 0;
    memcpy(b, data, size);
    fuzz_fix_size_and_checksum(b, size);
    ptl_navmesh* nm = NULL;
    ptl_error err = {0};
    if (ptl_navmesh_create(b, size, NULL, &nm, &err) < 0) {
        free(b);
        return 0;
    }
    (void)ptl_navmesh_validate(nm, &err);
    /* the blob written again with its live links (what ptl_navmesh_save_file writes after a change)
       loads, with as many links */
    if (ptl_navmesh_offmesh_count(nm) > 0) {
        void* wb;
        size_t wsize;
        if (ptl_navmesh_blob_with_offmesh(nm, NULL, &wb, &wsize, &err) == PTL_OK) {
            ptl_navmesh* again;
            if (ptl_navmesh_create(wb, wsize, NULL, &again, &err) < 0)
                fuzz_fail("blob: its own links written again are refused: %s", err.message);
            if (ptl_navmesh_offmesh_count(again) != ptl_navmesh_offmesh_count(nm))
                fuzz_fail("blob: %u links written again load as %u", ptl_navmesh_offmesh_count(nm),
                          ptl_navmesh_offmesh_count(again));
            ptl_navmesh_destroy(again);
            ptl_blob_free(wb, wsize, NULL);
        }
    }
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    for (uint32_t c = 0; c < info.cell_count && c < 64; ++c) {
        ptl_cell_view cv;
        if (ptl_navmesh_get_cell(nm, c, &cv) < 0) fuzz_fail("blob: cell %u of %u has no view", c, info.cell_count);
    }
    ptl_query* q = NULL;
    ptl_query_desc qd = {.max_nodes = 4096};
    if (ptl_query_create(nm, &qd, &q) == PTL_OK) {
        uint64_t rng = ptl_hash64(PTL_HASH_BASIS, data, size);
        float pts[3 * 64];
        for (int i = 0; i < 4; ++i) {
            ptl_path_request req = {.mode = (i & 1) ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT};
            query_point(nm, &info, &rng, req.start);
            query_point(nm, &info, &rng, req.goal);
            ptl_location loc;
            (void)ptl_query_locate(q, req.start, NULL, &loc);
            ptl_path_result res = {.points = pts, .point_capacity = 64};
            ptl_status st = ptl_query_find_path(q, &req, &res);
            if (st >= 0 && res.found && !(res.length >= 0)) fuzz_fail("blob: path of length %g", res.length);
            if (res.point_count > res.point_capacity) fuzz_fail("blob: %u points written into 64", res.point_count);
            /* the same path by slices of a few expansions: the same status, length and points */
            if (ptl_query_path_begin(q, &req) >= 0) {
                float spts[3 * 64];
                uint32_t steps = 0;
                ptl_status ss;
                while ((ss = ptl_query_path_step(q, 1 + (uint32_t)(rng % 5), NULL)) == PTL_IN_PROGRESS && ++steps < 100000) {}
                ptl_path_result sres = {.points = spts, .point_capacity = 64};
                ptl_status fs = ptl_query_path_finish(q, &sres);
                if (ss != PTL_OK || fs != st || sres.found != res.found || sres.length != res.length ||
                    sres.point_count != res.point_count || memcmp(spts, pts, 3 * sizeof(float) * res.point_count) != 0)
                    fuzz_fail("blob: sliced path %s (step %s), length %g, %u points; whole %s, length %g, %u points",
                              ptl_status_name(fs), ptl_status_name(ss), sres.length, sres.point_count, ptl_status_name(st),
                              res.length, res.point_count);
            }
            /* an agent of some radius, the wall distance and the clear point */
            float radius = (float)(fuzz_unit(&rng) * 0.05 * (info.bmax[0] - info.bmin[0] + 1));
            if (!isfinite(radius)) radius = 1;
            req.radius = radius;
            res = (ptl_path_result){.points = pts, .point_capacity = 64};
            st = ptl_query_find_path(q, &req, &res);
            if (st >= 0 && res.found && !(res.length >= 0)) fuzz_fail("blob: radius %g: path of length %g", radius, res.length);
            if (res.point_count > res.point_capacity) fuzz_fail("blob: radius %g: %u points written into 64", radius, res.point_count);
            ptl_wall_hit hit;
            st = ptl_query_wall_distance(q, req.start, NULL, radius, &hit);
            if (st >= 0 && hit.found && !(hit.distance >= 0 && hit.distance <= radius * (1 + 1e-6) + 1e-6))
                fuzz_fail("blob: wall distance %g beyond max %g", hit.distance, radius);
            /* from any cell (located when it does not hold the point): the same bounds */
            st = ptl_query_wall_distance_in(q, (uint32_t)(rng % (info.cell_count + 2)), req.start, radius, &hit);
            if (st >= 0 && hit.found && !(hit.distance >= 0 && hit.distance <= radius * (1 + 1e-6) + 1e-6))
                fuzz_fail("blob: wall distance from a cell %g beyond max %g", hit.distance, radius);
            (void)ptl_query_clear_point(q, req.goal, NULL, radius, &loc);
            uint32_t cells[32];
            ptl_raycast_hit ray = {.cells = cells, .cell_capacity = 32};
            st = ptl_query_raycast(q, req.start, req.goal, NULL, &ray);
            if (st >= 0 && !(ray.t >= 0 && ray.t <= 1 && ray.cell_count >= 1))
                fuzz_fail("blob: raycast t %g over %u cells", ray.t, ray.cell_count);
            /* the same ray from the cell it started in, and from any cell (located when it does not hold it) */
            if (st >= 0) {
                ptl_raycast_hit again = {.cells = cells, .cell_capacity = 32};
                st = ptl_query_raycast_in(q, ray.start_cell, req.start, req.goal, &again);
                if (st >= 0 && !(again.t >= 0 && again.t <= 1 && again.cell_count >= 1))
                    fuzz_fail("blob: raycast from its cell t %g over %u cells", again.t, again.cell_count);
            }
            ptl_raycast_hit any = {0};
            (void)ptl_query_raycast_in(q, (uint32_t)(rng % (info.cell_count + 2)), req.start, req.goal, &any);
            /* random points (anywhere, in a circle) and a path's cells */
            uint64_t state = rng;
            st = ptl_query_random_point(q, &state, &loc);
            if (st >= 0 && !(loc.cell < info.cell_count && isfinite(loc.point[0]) && isfinite(loc.point[1]) && isfinite(loc.point[2])))
                fuzz_fail("blob: random point in cell %u of %u at (%g, %g, %g)", loc.cell, info.cell_count, loc.point[0],
                          loc.point[1], loc.point[2]);
            st = ptl_query_random_point_in_circle(q, req.start, NULL, radius, &state, &loc);
            if (st >= 0 && loc.cell >= info.cell_count) fuzz_fail("blob: random point in circle in cell %u", loc.cell);
            req.radius = 0;
            res = (ptl_path_result){.points = pts, .point_capacity = 64, .cells = cells, .cell_capacity = 32};
            st = ptl_query_find_path(q, &req, &res);
            for (uint32_t k = 0; st >= 0 && k < res.cell_count && k < 32; ++k)
                if (cells[k] >= info.cell_count) fuzz_fail("blob: path cell %u of %u", cells[k], info.cell_count);
            /* a move along the surface, then the same move from the cell it started in, and back */
            ptl_move_result mv = {.cells = cells, .cell_capacity = 32};
            st = ptl_query_move_along_surface(q, req.start, req.goal, NULL, &mv);
            if (st >= 0 && !(mv.end_cell < info.cell_count && isfinite(mv.point[0]) && isfinite(mv.point[1]) &&
                             isfinite(mv.point[2])))
                fuzz_fail("blob: move ended in cell %u of %u at (%g, %g, %g)", mv.end_cell, info.cell_count, mv.point[0],
                          mv.point[1], mv.point[2]);
            if (st >= 0) {
                ptl_move_result back = {0};
                st = ptl_query_move_along_surface_in(q, mv.end_cell, mv.point, req.start, &back);
                if (st >= 0 && back.end_cell >= info.cell_count) fuzz_fail("blob: move back ended in cell %u", back.end_cell);
            }
            (void)ptl_query_move_along_surface_in(q, (uint32_t)(rng % (info.cell_count + 2)), req.goal, req.start, &mv);
        }
        ptl_query_destroy(q);
    }
    ptl_navmesh_destroy(nm);
    free(b);
    return 0;
}
