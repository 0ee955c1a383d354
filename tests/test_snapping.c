/* Snapping a query point to the mesh (runtime/locate.c): a point is on the mesh only when a cell's
   own polygon holds it; otherwise it moves to the nearest point of the mesh inside the search box,
   and a box that holds no part of the mesh finds nothing. Checked on the unit diamond of Polyanya's
   square.mesh against an independent reference (Dykstra's alternating projections onto the diamond
   and the box), at exactly one extent from a vertex, one float step either side, and on edges and
   vertices; and on grid bakes with lids and hubs, where a goal in a wall must end on the wall. */
#include <float.h>

#include "../runtime/query_internal.h"
#include "test_util.h"

static ptl_navmesh* load_shape_navmesh(const ptl_shape* s, uint32_t hubs) {
    ptl_bake_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.hubs = hubs;
    void* blob;
    size_t size;
    ptl_error err;
    cr_assert_geq(ptl_bake_shape(s, &bd, &blob, &size, NULL, &err), 0, "bake: %s", err.message);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "load: %s", err.message);
    ptl_blob_free(blob, size, NULL);
    return nm;
}

/* The diamond |x| + |z| <= 1 (four triangles around the origin). */
static ptl_navmesh* diamond(const char* data) {
    char path[1024];
    snprintf(path, sizeof path, "%s/polyanya/meshes/tests/square.mesh", data);
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_mesh2d_load(path, NULL, &s, &err), 0, "%s", err.message);
    ptl_navmesh* nm = load_shape_navmesh(&s, 0);
    ptl_shape_free(&s);
    return nm;
}

typedef struct found_path {
    float pts[3 * 64];
    ptl_path_result res;
    ptl_status status;
} found_path;

static void path(ptl_query* q, float sx, float sz, float gx, float gz, const float* ext, found_path* o) {
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    req.start[0] = sx, req.start[2] = sz;
    req.goal[0] = gx, req.goal[2] = gz;
    if (ext) memcpy(req.extents, ext, sizeof req.extents);
    memset(&o->res, 0, sizeof o->res);
    o->res.points = o->pts, o->res.point_capacity = 64;
    o->status = ptl_query_find_path(q, &req, &o->res);
}

/* ---- An independent reference: the nearest point of (diamond within the box) ------------------*/

static void proj_diamond(double x, double z, double* ox, double* oz) {
    if (fabs(x) + fabs(z) <= 1) {
        *ox = x, *oz = z;
        return;
    }
    /* the nearest point of the edge in p's quadrant */
    double sx = x < 0 ? -1 : 1, sz = z < 0 ? -1 : 1;
    double ax = fabs(x), az = fabs(z);
    double t = (ax - az + 1) / 2; /* on the segment (0, 1) -> (1, 0), x = t */
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    *ox = sx * t, *oz = sz * (1 - t);
}

/* Dykstra's projection onto the intersection of the diamond and the box; the box must meet it. */
static void reference_nearest(double px, double pz, const double box[4], double* ox, double* oz) {
    double x = px, z = pz, P[2] = {0, 0}, Q[2] = {0, 0};
    for (int it = 0; it < 20000; ++it) {
        double yx = fmin(fmax(x + P[0], box[0]), box[1]), yz = fmin(fmax(z + P[1], box[2]), box[3]);
        P[0] = x + P[0] - yx, P[1] = z + P[1] - yz;
        double nx, nz;
        proj_diamond(yx + Q[0], yz + Q[1], &nx, &nz);
        Q[0] = yx + Q[0] - nx, Q[1] = yz + Q[1] - nz;
        x = nx, z = nz;
    }
    *ox = x, *oz = z;
}

/* Does the box meet the diamond: is the box's L1 distance from the origin at most 1? */
static bool box_meets_diamond(const double box[4]) {
    double dx = fmax(0, fmax(box[0], -box[1])), dz = fmax(0, fmax(box[2], -box[3]));
    return dx + dz <= 1;
}

/* Locates p with half-extents e (x and z; y 4) and checks it against the reference. */
static void check_locate(ptl_query* q, float px, float pz, float e, const char* what) {
    float p[3] = {px, 0, pz}, ext[3] = {e, 4, e};
    double box[4] = {(double)px - e, (double)px + e, (double)pz - e, (double)pz + e};
    ptl_location loc;
    ptl_status s = ptl_query_locate(q, p, ext, &loc);
    if (!box_meets_diamond(box)) {
        cr_expect_eq(s, PTL_ERR_NOT_FOUND, "%s: (%.9g, %.9g) extent %.9g: the box misses the mesh, got %s at (%.9g, %.9g)",
                     what, px, pz, e, ptl_status_name(s), loc.point[0], loc.point[2]);
        return;
    }
    cr_assert_eq(s, PTL_OK, "%s: (%.9g, %.9g) extent %.9g: %s", what, px, pz, e, ptl_status_name(s));
    double rx, rz;
    reference_nearest(px, pz, box, &rx, &rz);
    double x = loc.point[0], z = loc.point[2];
    cr_expect(fabs(x) + fabs(z) <= 1 + 1e-6, "%s: (%.9g, %.9g) extent %.9g: located (%.9g, %.9g) is off the mesh", what,
              px, pz, e, x, z);
    cr_expect(x >= box[0] - 1e-6 && x <= box[1] + 1e-6 && z >= box[2] - 1e-6 && z <= box[3] + 1e-6,
              "%s: (%.9g, %.9g) extent %.9g: located (%.9g, %.9g) is outside the box", what, px, pz, e, x, z);
    cr_expect(hypot(x - rx, z - rz) <= 1e-4, "%s: (%.9g, %.9g) extent %.9g: located (%.9g, %.9g), nearest (%.9g, %.9g)",
              what, px, pz, e, x, z, rx, rz);
    cr_expect(fabs(loc.distance - hypot(px - rx, pz - rz)) <= 1e-4, "%s: (%.9g, %.9g): distance %.9g, reference %.9g",
              what, px, pz, loc.distance, hypot(px - rx, pz - rz));
}

Test(snapping, a_point_one_extent_from_a_vertex_snaps_to_the_vertex) {
    TEST_REQUIRE_DATA(data);
    ptl_navmesh* nm = diamond(data);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    found_path o;
    path(q, 3, 0, 0, 0, NULL, &o);
    cr_assert_eq(o.status, PTL_OK, "%s", ptl_status_name(o.status));
    cr_expect(o.res.found && o.res.complete);
    cr_expect_float_eq(o.res.length, 1.0, 1e-9, "length %.9g (the start is 2 from the mesh)", o.res.length);
    cr_expect(o.pts[0] == 1 && o.pts[2] == 0, "the path starts at (%g, %g), not on the vertex (1, 0)", o.pts[0],
              o.pts[2]);
    /* Each vertex of the diamond, from exactly one extent away along each axis and diagonally. */
    const float vx[4] = {1, 0, -1, 0}, vz[4] = {0, 1, 0, -1};
    for (int v = 0; v < 4; ++v) {
        const float d[3][2] = {{2 * vx[v], 2 * vz[v]}, {2, 2}, {-2, 2}};
        for (int k = 0; k < 3; ++k) {
            float px = vx[v] + d[k][0], pz = vz[v] + d[k][1];
            check_locate(q, px, pz, 2, "one extent from a vertex");
            /* one float step of the extent either side: just misses, just holds the vertex */
            check_locate(q, px, pz, nextafterf(2, 0), "extent one step less");
            check_locate(q, px, pz, nextafterf(2, 4), "extent one step more");
            /* the point one float step either side */
            check_locate(q, nextafterf(px, px + 1), pz, 2, "point one step out");
            check_locate(q, nextafterf(px, px - 1), pz, 2, "point one step in");
        }
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

Test(snapping, points_on_vertices_and_edges_stay_where_they_are) {
    TEST_REQUIRE_DATA(data);
    ptl_navmesh* nm = diamond(data);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    const float pts[][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {0, 0}, {0.5f, 0.5f}, {-0.25f, 0.75f}, {0.5f, 0}, {0, -0.5f}};
    const float exts[] = {2, 1, 0.25f, 1e-6f, 0};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; ++i) {
        for (size_t k = 0; k < sizeof exts / sizeof exts[0]; ++k) {
            float p[3] = {pts[i][0], 0, pts[i][1]}, ext[3] = {exts[k], 4, exts[k]};
            ptl_location loc;
            /* a zero box means the default: either way the point is on the mesh */
            cr_assert_eq(ptl_query_locate(q, p, ext, &loc), PTL_OK, "(%g, %g) extent %g", p[0], p[2], exts[k]);
            cr_expect(loc.point[0] == p[0] && loc.point[2] == p[2] && loc.distance == 0,
                      "(%g, %g) extent %g: moved to (%.9g, %.9g)", p[0], p[2], exts[k], loc.point[0], loc.point[2]);
        }
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

/* Points on a lattice of quarter units around the diamond, where box sides meet its vertices and
   edges exactly, and a fixed pseudo-random sample, at several extents. */
Test(snapping, located_points_are_the_nearest_of_the_mesh_in_the_box) {
    TEST_REQUIRE_DATA(data);
    ptl_navmesh* nm = diamond(data);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    const float exts[] = {0.5f, 1, 2, 3.75f};
    for (size_t k = 0; k < sizeof exts / sizeof exts[0]; ++k)
        for (int i = -16; i <= 16; ++i)
            for (int j = -16; j <= 16; ++j) check_locate(q, 0.25f * (float)i, 0.25f * (float)j, exts[k], "lattice");
    uint32_t seed = 12345;
    for (int n = 0; n < 4000; ++n) {
        float v[3];
        for (int c = 0; c < 3; ++c) {
            seed = seed * 1664525u + 1013904223u;
            v[c] = (float)((seed >> 8) & 0xffff) / 65536.0f;
        }
        check_locate(q, 8 * v[0] - 4, 8 * v[1] - 4, 0.1f + 3 * v[2], "random");
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

/* A 6 x 6 map whose free space is the square [0, 3] x [0, 3] (the rest blocked): a goal at (5, 5)
   sees the free space in its default box only at the corner (3, 3), so the path ends there. With
   lids and hub labels (the bake cuts the pockets first) and without. */
Test(snapping, a_goal_in_a_wall_one_extent_from_a_corner_ends_on_the_corner) {
    const char* map = "type octile\nheight 6\nwidth 6\nmap\n...@@@\n...@@@\n...@@@\n@@@@@@\n@@@@@@\n@@@@@@\n";
    ptl_grid g;
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_grid_parse(map, strlen(map), "corner", NULL, &g, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    for (uint32_t hubs = 0; hubs < 2; ++hubs) {
        ptl_navmesh* nm = load_shape_navmesh(&s, hubs);
        for (int ignore = 0; ignore < 2; ++ignore) {
            ptl_query_switches sw = {.ignore_hubs = ignore != 0};
            ptl_query* q;
            cr_assert_eq(ptl_query_create_with_switches(nm, NULL, &sw, &q), PTL_OK);
            found_path o;
            path(q, 1, 1, 5, 5, NULL, &o);
            cr_assert_eq(o.status, PTL_OK, "hubs %u: %s", hubs, ptl_status_name(o.status));
            cr_expect(o.res.found, "hubs %u", hubs);
            const float* end = &o.pts[3 * (o.res.point_count - 1)];
            cr_expect(end[0] == 3 && end[2] == 3, "hubs %u ignore %d: the path ends at (%g, %g), inside the wall", hubs,
                      ignore, end[0], end[2]);
            cr_expect_float_eq(o.res.length, 2 * sqrt(2.0), 1e-6, "hubs %u: length %.9g", hubs, o.res.length);
            /* one float step farther: no mesh in the box */
            path(q, 1, 1, nextafterf(5, 6), 5, NULL, &o);
            cr_expect(!o.res.found, "hubs %u: a goal just past one extent was found", hubs);
            ptl_query_destroy(q);
        }
        ptl_navmesh_destroy(nm);
    }
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

/* Two pieces of free space touch at a point (a pinch) beside an edge of about the location
   tolerance: one cell's nearest vertex to the point is the short edge's other end, the point itself
   is a vertex of the next cell. The point is the pinch, ambiguous on a polygon navmesh: not found,
   with or without hubs (which bake other cells around it). */
Test(snapping, a_pinch_point_beside_a_short_edge_is_the_pinch_in_every_bake) {
    static const char poly[] = "poly\n1\n3\n"
                               "4 0 0 15.00001 12.62502 10.87492 18.99992 1.25 1.25\n"
                               "3 1.25002 16.99992 3.74996 14.87494 -8e-05 -8e-05\n"
                               "3 -8e-05 -8e-05 3.75 1.25 1.24999 3.74999\n";
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_poly_parse(poly, sizeof poly - 1, "pinch.poly", NULL, &s, &err), 0, "%s", err.message);
    for (uint32_t hubs = 0; hubs < 2; ++hubs) {
        ptl_navmesh* nm = load_shape_navmesh(&s, hubs);
        ptl_query* q;
        cr_assert_geq(ptl_query_create(nm, NULL, &q), 0);
        const float pinch[3] = {-8e-05f, 0, -8e-05f}, start[3] = {1.25002f, 0, 16.99992f};
        ptl_path_request req = {.start = {start[0], start[1], start[2]}, .goal = {pinch[0], pinch[1], pinch[2]}};
        float pts[3 * 16];
        ptl_path_result res = {.points = pts, .point_capacity = 16};
        cr_expect_eq(ptl_query_find_path(q, &req, &res), PTL_ERR_NOT_FOUND, "hubs %u", hubs);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
    }
    ptl_shape_free(&s);
}

/* Two polygons with corners 2e-5 apart (10 float steps at these coordinates): a notch closed,
   within the rounding, by a portal 2e-5 long that turns 10 degrees from the wall before it. The
   cell is convex within validation's tolerance (its vertex lies that near its neighbours' chord),
   but the short edge's line passes 0.9 below a point of the cell, which must be located in the
   cell and kept as it is, with and without hubs; so must a point a float step inside its edge. */
Test(snapping, a_point_of_a_cell_kinked_at_a_short_portal_is_located_in_it) {
    static const char poly[] = "poly\n1\n2\n"
                               "4 1e-05 20.87505 0 16.49992 19.00007 20.00003 25.25002 25.25004\n"
                               "5 25.25004 25.25004 10.00007 6.12494 9.99992 30.75007 14.87494 31.87492 31.87507 31.87507\n";
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_poly_parse(poly, sizeof poly - 1, "kinked.poly", NULL, &s, &err), 0, "%s", err.message);
    const float inside[][2] = {{12.75f, 24.375f}, {24.0f, 25.2f}, {20.0f, 28.0f}};
    for (uint32_t hubs = 0; hubs < 2; ++hubs) {
        ptl_navmesh* nm = load_shape_navmesh(&s, hubs);
        ptl_query* q;
        cr_assert_geq(ptl_query_create(nm, NULL, &q), 0);
        for (size_t i = 0; i < sizeof inside / sizeof inside[0]; ++i) {
            found_path o;
            path(q, inside[i][0], inside[i][1], 14.0f, 30.0f, NULL, &o);
            cr_assert_eq(o.status, PTL_OK, "hubs %u, (%g, %g)", hubs, inside[i][0], inside[i][1]);
            cr_expect(o.res.found && o.pts[0] == inside[i][0] && o.pts[2] == inside[i][1],
                      "hubs %u: (%g, %g) is in a cell but the path starts at (%g, %g)", hubs, inside[i][0],
                      inside[i][1], o.pts[0], o.pts[2]);
            ptl_location loc;
            const float p[3] = {inside[i][0], 0, inside[i][1]};
            cr_assert_geq(ptl_query_locate(q, p, NULL, &loc), 0);
            cr_expect(loc.point[0] == p[0] && loc.point[2] == p[2], "hubs %u: (%g, %g) located at (%g, %g)", hubs, p[0],
                      p[2], loc.point[0], loc.point[2]);
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
    }
    ptl_shape_free(&s);
}

/* Point location's occupancy mask (runtime/occupancy.c) only passes over boxes that hold no cell:
   on the multi-floor meshes, random boxes (points over the whole bounds and a few metres around,
   half-extents from 5 cm to 4 m) are located as a query without cell boxes and mask locates them
   (every cell looked at), the same bits; and the mask does answer most boxes in the air. */
Test(snapping, the_occupancy_mask_hides_no_point_of_the_3d_meshes, .timeout = 240) {
    TEST_REQUIRE_DATA(data);
    const char* meshes[] = {"dungeon", "nav_test"};
    for (size_t mi = 0; mi < 2; ++mi) {
        void* blob;
        size_t size;
        ptl_navmesh* nm = test_bake_shared_mesh(data, meshes[mi], 0.6f, &blob, &size);
        ptl_query *q, *plain;
        cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
        cr_assert_eq(ptl_query_create_with_switches(nm, NULL, &(ptl_query_switches){.no_cell_boxes = true}, &plain), PTL_OK);
        cr_assert(q->occ_on && !plain->occ_on);
        const ptl_blob_header* h = nm->h;
        uint32_t seed = 777, found = 0, empty = 0, n = 20000;
        for (uint32_t i = 0; i < n; ++i) {
            float v[6];
            for (int c = 0; c < 6; ++c) {
                seed = seed * 1664525u + 1013904223u;
                v[c] = (float)((seed >> 8) & 0xffff) / 65536.0f;
            }
            const float p[3] = {h->bmin[0] - 3 + v[0] * (h->bmax[0] - h->bmin[0] + 6), h->bmin[1] - 3 + v[1] * (h->bmax[1] - h->bmin[1] + 6),
                                h->bmin[2] - 3 + v[2] * (h->bmax[2] - h->bmin[2] + 6)};
            const float ext[3] = {0.05f + 4 * v[3], 0.05f + 4 * v[4], 0.05f + 4 * v[5]};
            ptl_location a, b;
            const ptl_status sa = ptl_query_locate(q, p, ext, &a), sb = ptl_query_locate(plain, p, ext, &b);
            cr_assert_eq(sa, sb, "%s box %u: %s, without the mask %s", meshes[mi], i, ptl_status_name(sa), ptl_status_name(sb));
            cr_assert(memcmp(&a, &b, sizeof a) == 0, "%s box %u: another point", meshes[mi], i);
            found += sa == PTL_OK;
            empty += !ptl_query_occupied(q, (double)p[0] - ext[0], (double)p[0] + ext[0], (double)p[2] - ext[2],
                                         (double)p[2] + ext[2], (double)p[1] - ext[1], (double)p[1] + ext[1]);
        }
        cr_log_info("%s: %u of %u boxes found a point, the mask answered %u", meshes[mi], found, n, empty);
        cr_expect_gt(found, n / 50, "%s: too few boxes on the mesh to compare", meshes[mi]);
        cr_expect_gt(empty, (n - found) / 2, "%s: the mask answered %u of %u empty boxes", meshes[mi], empty, n - found);
        ptl_query_destroy(plain);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
    }
}
