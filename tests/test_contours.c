/* Contour simplification (bake/contours.c): whatever chooses the vertices (fewest notches first,
   Ramer-Douglas-Peucker where a chord is refused), every corner point of the voxel outline stays
   within the tolerance of the simplified edge that replaced it, and the simplified rings are the
   raw rings with points left out, in the same order. */
#include "test_util.h"

#include <portolan/bake_debug.h>

static const char* const MESHES[] = {"dungeon.obj", "nav_test.obj", "undulating.obj"};

/* Distance from (px, pz) to the line through a and b (to a when they coincide). */
static double line_dist(const float* a, const float* b, double px, double pz) {
    double ex = (double)b[0] - a[0], ez = (double)b[2] - a[2], l = hypot(ex, ez);
    if (l == 0) return hypot(px - a[0], pz - a[2]);
    return fabs(ex * (pz - a[2]) - ez * (px - a[0])) / l;
}

static bool same_plan(const float* a, const float* b) { return a[0] == b[0] && a[2] == b[2]; }

/* Checks one layer. */
static void check_layer(const char* name, uint32_t l, const ptl_dbg_contour* raw, const ptl_dbg_contour* simp,
                            double tol) {
    cr_assert_eq(raw->ring_count, simp->ring_count, "%s: layer %u: %u raw rings, %u simplified", name, l,
                 raw->ring_count, simp->ring_count);
    for (uint32_t r = 0; r < simp->ring_count; ++r) {
        uint32_t rb = raw->ring_start[r], rn = raw->ring_start[r + 1] - rb;
        uint32_t sb = simp->ring_start[r], sn = simp->ring_start[r + 1] - sb;
        cr_assert_geq(sn, 3, "%s: layer %u: ring %u collapsed to %u vertices", name, l, r, sn);
        /* where the simplified ring starts on the raw ring */
        uint32_t k0 = 0;
        while (k0 < rn && !same_plan(&raw->verts[3 * (rb + k0)], &simp->verts[3 * sb])) ++k0;
        cr_assert_lt(k0, rn, "%s: layer %u: ring %u starts off its raw ring", name, l, r);
        uint32_t k = k0;
        for (uint32_t i = 0; i < sn; ++i) {
            const float* a = &simp->verts[3 * (sb + i)];
            const float* b = &simp->verts[3 * (sb + (i + 1) % sn)];
            /* the raw points from a (at k) up to b, each within the tolerance of the line a-b */
            uint32_t steps = 0;
            for (;;) {
                k = (k + 1) % rn;
                ++steps;
                cr_assert_leq(steps, rn, "%s: layer %u: ring %u: vertex %u is not on its raw ring in order", name, l,
                              r, (sb + i + 1) % sn);
                const float* q = &raw->verts[3 * (rb + k)];
                if (same_plan(q, b) && (i + 1 < sn || k == k0)) break;
                double d = line_dist(a, b, q[0], q[2]);
                cr_assert_leq(d, tol * (1 + 1e-6) + 1e-4,
                              "%s: layer %u: raw point (%g, %g) lies %g from the edge (%g, %g)-(%g, %g), more than %g",
                              name, l, (double)q[0], (double)q[2], d, (double)a[0], (double)a[2], (double)b[0],
                              (double)b[2], tol);
            }
        }
    }
}

Test(contours, simplified_walls_stay_within_the_tolerance_of_every_raw_corner_point, .timeout = 120) {
    TEST_REQUIRE_DATA(data);
    for (size_t m = 0; m < sizeof MESHES / sizeof MESHES[0]; ++m) {
        char path[1024];
        snprintf(path, sizeof path, "%s/meshes/%s", data, MESHES[m]);
        ptl_trimesh tm;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(path, NULL, &tm, &err), PTL_OK, "%s: %s", path, err.message);
        ptl_bake_debug* dbg;
        cr_assert_eq(ptl_bake_debug_create(NULL, &dbg), PTL_OK);
        ptl_bake_desc d;
        memset(&d, 0, sizeof d);
        d.agent_radius = 0.6f; /* Recast's reference parameters otherwise */
        d.debug = dbg;
        ptl_bake_desc used;
        ptl_bake_desc_resolve(&d, &used);
        void* blob;
        size_t size;
        ptl_bake_stats bs;
        cr_assert_eq(ptl_bake_trimesh(&tm, &d, &blob, &size, &bs, &err), PTL_OK, "%s: %s", MESHES[m], err.message);
        const double tol = (double)used.max_error * used.cell_size; /* max_error is in cells */
        for (uint32_t l = 0; l < ptl_bake_debug_layer_count(dbg); ++l) {
            ptl_dbg_contour raw, simp;
            cr_assert_eq(ptl_bake_debug_get_contour(dbg, l, false, &raw), PTL_OK);
            cr_assert_eq(ptl_bake_debug_get_contour(dbg, l, true, &simp), PTL_OK);
            check_layer(MESHES[m], l, &raw, &simp, tol);
        }
        ptl_blob_free(blob, size, NULL);
        ptl_bake_debug_destroy(dbg);
        ptl_trimesh_free(&tm);
    }
}
