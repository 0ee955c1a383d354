/* The points of a path on a 3D navmesh: by default the corners only (the start, the navmesh
   vertices the path turns at, the goal), joined by straight 3D segments; with
   ptl_path_request.follow_surface, also the points where the ground under the path bends. Both
   are the same route: the same corners in the same order, the same length in plan; only the
   heights between the corners differ. Checked on a generated terrain (slopes everywhere, a few
   obstacles to turn around) in both search modes. */
#include <math.h>

#include "../runtime/navmesh_internal.h"
#include "test_util.h"

enum { CAP = 4096, PAIRS = 40 };

typedef struct one_path {
    ptl_status st;
    ptl_path_result res;
    float pts[3 * CAP];
} one_path;

static void run(ptl_query* q, const float* s, const float* g, ptl_path_mode mode, bool surface, one_path* p) {
    ptl_path_request req = {.mode = mode, .follow_surface = surface};
    memcpy(req.start, s, sizeof req.start);
    memcpy(req.goal, g, sizeof req.goal);
    memset(&p->res, 0, sizeof p->res);
    p->res.points = p->pts;
    p->res.point_capacity = CAP;
    p->st = ptl_query_find_path(q, &req, &p->res);
}

static double seg(const float* a, const float* b, bool plan_only) {
    double dx = (double)b[0] - a[0], dy = plan_only ? 0 : (double)b[1] - a[1], dz = (double)b[2] - a[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static double polyline(const one_path* p, bool plan_only) {
    double len = 0;
    for (uint32_t i = 1; i < p->res.point_count; ++i) len += seg(&p->pts[3 * i - 3], &p->pts[3 * i], plan_only);
    return len;
}

/* Is p at a navmesh vertex in plan (its height may come from the floor there)? */
static bool is_vertex(const ptl_navmesh* nm, const float* p) {
    for (uint32_t v = 0; v < nm->h->vert_count; ++v)
        if (nm->verts[3 * v] == p[0] && nm->verts[3 * v + 2] == p[2]) return true;
    return false;
}

Test(path_points, paths_on_a_3d_navmesh_turn_only_at_corners_unless_asked_to_follow_the_surface, .timeout = 60) {
    ptl_scene_desc d = {.kind = PTL_SCENE_TERRAIN, .size = 40, .seed = 7};
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&d, &m, &err), PTL_OK, "%s", err.message);
    void* blob;
    size_t size;
    cr_assert_eq(ptl_bake_trimesh(&m, NULL, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    const uint32_t cells = nm->h->cell_count;
    cr_assert_gt(cells, 4);
    static one_path corners, surface;
    uint32_t found = 0, turned = 0, bent = 0;
    for (int mode = 0; mode < 2; ++mode) {
        for (uint32_t k = 0; k < PAIRS; ++k) {
            float s[3], g[3];
            uint32_t a = (k * 7919u) % cells, b = (k * 104729u + cells / 2) % cells;
            cr_assert_eq(ptl_navmesh_cell_centroid(nm, a, s), PTL_OK);
            cr_assert_eq(ptl_navmesh_cell_centroid(nm, b, g), PTL_OK);
            run(q, s, g, (ptl_path_mode)mode, false, &corners);
            run(q, s, g, (ptl_path_mode)mode, true, &surface);
            cr_assert_eq(corners.st, surface.st, "pair %u: status %d by corners, %d following the surface", k,
                         corners.st, surface.st);
            cr_assert_eq(corners.res.found, surface.res.found, "pair %u", k);
            if (!corners.res.found) continue;
            ++found;
            const uint32_t n = corners.res.point_count;
            cr_assert(corners.st == PTL_OK && n >= 1 && n == corners.res.point_total, "pair %u", k);
            /* Between the ends, corners only: navmesh vertices, where the path turns. */
            for (uint32_t i = 1; i + 1 < n; ++i)
                cr_assert(is_vertex(nm, &corners.pts[3 * i]), "mode %d pair %u: point %u (%.3f, %.3f, %.3f) is no corner",
                          mode, k, i, corners.pts[3 * i], corners.pts[3 * i + 1], corners.pts[3 * i + 2]);
            turned += n > 2;
            /* The length is the corners' 3D polyline. */
            cr_expect_float_eq(corners.res.length, polyline(&corners, false), 1e-9 * (1 + corners.res.length),
                               "mode %d pair %u", mode, k);
            /* The same route: the corners come in the same order in the surface-following path,
               which has the same length in plan, and is no shorter in 3D. */
            uint32_t j = 0;
            for (uint32_t i = 0; i < n; ++i) {
                while (j < surface.res.point_count && (surface.pts[3 * j] != corners.pts[3 * i] ||
                                                       surface.pts[3 * j + 2] != corners.pts[3 * i + 2]))
                    ++j;
                cr_assert_lt(j, surface.res.point_count, "mode %d pair %u: corner %u is not on the surface path",
                             mode, k, i);
            }
            double plan_c = polyline(&corners, true), plan_s = polyline(&surface, true);
            cr_expect(fabs(plan_c - plan_s) <= 1e-4 * (1 + plan_c), "mode %d pair %u: plan %.6f by corners, %.6f along the surface",
                      mode, k, plan_c, plan_s);
            cr_expect_geq(surface.res.length, corners.res.length - 1e-4 * (1 + corners.res.length),
                          "mode %d pair %u", mode, k);
            bent += surface.res.point_count > n;
        }
    }
    fprintf(stderr, "path_points: %u paths found, %u turning at corners, %u with points where the ground bends\n",
            found, turned, bent);
    /* The scene exercises both: paths that turn, and ground that bends under them. */
    cr_expect_gt(turned, 0);
    cr_expect_gt(bent, 0);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    ptl_trimesh_free(&m);
}
