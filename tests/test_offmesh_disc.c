/* Off-mesh links for agents of radius r > 0: a ladder from a floor to a roof nothing else reaches
   carries a disc too, from points with room for it; the path keeps r from every boundary on both
   levels (checked against the two rectangles' edges, exact geometry); a roof too narrow for the disc
   stays unreachable; removing the ladder makes the roof unreachable again. */
#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <string.h>

#include "mesh_builder.h"
#include "query_reference.h"

/* A 20 x 20 floor at y 0 and a 4 x 4 roof ([4, 8] x [4, 8]) at y 5 above it. */
static ptl_navmesh* floor_and_roof(void) {
    static mesh_builder b;
    memset(&b, 0, sizeof b);
    floor_quad(&b, 0, 0, 20, 20, 0);
    floor_quad(&b, 4, 4, 8, 8, 5);
    const ptl_bake_desc d = {.keep_islands = true};
    return bake_builder(&b, &d);
}

typedef struct found {
    ptl_status st;
    ptl_path_result res;
    float pts[3 * 512];
    uint8_t flags[512];
    ptl_path_turn turns[128];
} found;

static void path(ptl_query* q, const float s[3], const float t[3], double r, ptl_path_mode mode, found* out) {
    memset(out, 0, sizeof *out);
    ptl_path_request req = {.mode = mode, .radius = (float)r, .extents = {2.0f, 1.0f, 2.0f}};
    memcpy(req.start, s, sizeof req.start);
    memcpy(req.goal, t, sizeof req.goal);
    out->res.points = out->pts, out->res.point_capacity = 512, out->res.flags = out->flags;
    out->res.turns = out->turns, out->res.turn_capacity = 128;
    out->st = ptl_query_find_path(q, &req, &out->res);
}

/* The clearance of (x, z) on the level at height y: its distance to the nearest edge of that
   level's rectangle (negative outside it). */
static double clearance(double x, double y, double z) {
    const double lo = y > 2.5 ? 4 : 0, hi = y > 2.5 ? 8 : 20;
    return fmin(fmin(x - lo, hi - x), fmin(z - lo, hi - z));
}

/* Every point keeps r on its level, each segment stays on one level (the rectangles are convex: its
   ends keep r, so does the segment) except the link's jump, which starts at a flagged point; and
   exactly `links` points are flagged. */
static void expect_keeps_r(const found* f, double r, uint32_t links, const char* what) {
    uint32_t flagged = 0;
    for (uint32_t i = 0; i < f->res.point_count; ++i) {
        const float* p = &f->pts[3 * i];
        cr_expect_geq(clearance(p[0], p[1], p[2]), r - 1e-4, "%s: point %u (%.4f, %.4f, %.4f) is %.5f from a wall, r %.2f",
                      what, i, p[0], p[1], p[2], clearance(p[0], p[1], p[2]), r);
        flagged += f->flags[i] == PTL_PATH_POINT_OFFMESH;
        if (i + 1 < f->res.point_count && f->flags[i] != PTL_PATH_POINT_OFFMESH)
            cr_expect_lt(fabsf(p[4] - p[1]), 1.0f, "%s: segment %u leaves its level without a link", what, i);
    }
    cr_expect_eq(flagged, links, "%s: %u points start a link, expected %u", what, flagged, links);
}

Test(offmesh_disc, a_ladder_carries_a_disc_from_points_with_room_and_the_path_keeps_r, .timeout = 60) {
    ptl_navmesh* nm = floor_and_roof();
    ptl_query* q = make_query(nm);
    const float s[3] = {15, 0, 15}, t[3] = {6, 5, 6};
    found f;
    path(q, s, t, 0.5, PTL_PATH_CORRIDOR, &f);
    cr_assert(f.st == PTL_PARTIAL && !f.res.found, "the roof is reachable before the ladder (%s)", ptl_status_name(f.st));
    /* the ladder's top is 1 m from the roof's edge: a disc of 1.5 must step in from it */
    ptl_offmesh_desc ladder = {.start = {3, 0, 6}, .end = {5, 5, 6}, .radius = 0.5f, .bidir = true};
    ptl_offmesh_id id;
    ptl_error err;
    cr_assert_eq(ptl_navmesh_add_offmesh(nm, &ladder, &id, &err), PTL_OK, "%s", err.message);
    for (int mode = 0; mode < 2; ++mode) {
        const ptl_path_mode m = mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT;
        double prev = 0;
        for (int k = 0; k < 4; ++k) {
            const double r = k == 0 ? 0 : k == 1 ? 0.25 : k == 2 ? 0.5 : 1.5;
            for (int dir = 0; dir < 2; ++dir) {
                char what[96];
                snprintf(what, sizeof what, "%s, r %.2f, %s", mode ? "corridor" : "exact", r, dir ? "roof -> floor" : "floor -> roof");
                path(q, dir ? t : s, dir ? s : t, r, m, &f);
                cr_assert(f.st == PTL_OK && f.res.found && f.res.complete, "%s: %s", what, ptl_status_name(f.st));
                expect_keeps_r(&f, r, 1, what);
                if (dir == 0) {
                    cr_expect_geq(f.res.length, prev - 1e-6, "%s: length %.6f below the smaller radius's %.6f", what,
                                  f.res.length, prev);
                    prev = f.res.length;
                }
            }
        }
        /* a disc wider than the roof cannot stand on it: no path, never a wrong one */
        path(q, s, t, 2.5, m, &f);
        cr_expect(!f.res.found, "%s, r 2.5: a path onto a 4 m roof", mode ? "corridor" : "exact");
    }
    /* paths on the floor alone take no link */
    const float u[3] = {1, 0, 1}, w[3] = {19, 0, 19};
    path(q, u, w, 0.5, PTL_PATH_EXACT, &f);
    cr_assert(f.st == PTL_OK && f.res.found);
    expect_keeps_r(&f, 0.5, 0, "floor -> floor");
    cr_assert_eq(ptl_navmesh_remove_offmesh(nm, id), PTL_OK);
    path(q, s, t, 0.5, PTL_PATH_EXACT, &f);
    cr_expect(f.st == PTL_PARTIAL && !f.res.found, "the roof is reachable after the ladder went (%s)", ptl_status_name(f.st));
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}
