/* Contour simplification (bake/contours/contours.c): whatever chooses the vertices (fewest notches first,
   Ramer-Douglas-Peucker where a chord is refused, one corner off the lattice for a run of notches),
   every corner point of the voxel outline stays within the tolerance of the simplified edges that
   replaced it, every corner off the lattice within the tolerance of the outline, and the other
   vertices are raw points in the same order. On generated scenes, a turned box keeps close to its
   four notches. */
#include <float.h>

#include "test_util.h"

#include <portolan/bake_debug.h>

#include "mesh_builder.h"

static const char* const MESHES[] = {"dungeon.obj", "nav_test.obj", "undulating.obj"};

/* Distance from (px, pz) to the segment a-b. */
static double seg_dist(const float* a, const float* b, double px, double pz) {
    const double ex = (double)b[0] - a[0], ez = (double)b[2] - a[2], l2 = ex * ex + ez * ez;
    double t = l2 > 0 ? ((px - a[0]) * ex + (pz - a[2]) * ez) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(px - (a[0] + t * ex), pz - (a[2] + t * ez));
}

/* World coordinates are floats: the rounding of a point off the lattice grows with its distance
   from the origin (undulating.obj lies near x = 5000). */
static double slack(const float* p) { return 4 * FLT_EPSILON * fmax(fabs((double)p[0]), fabs((double)p[2])); }

static bool same_plan(const float* a, const float* b) { return a[0] == b[0] && a[2] == b[2]; }

/* Position of simplified vertex v on raw ring [rb, rb + rn) at or after position `from` (in ring
   order, at most rn - 1 steps on), or UINT32_MAX. */
static uint32_t find_on_raw(const ptl_dbg_contour* raw, uint32_t rb, uint32_t rn, uint32_t from, const float* v) {
    for (uint32_t s = 0; s < rn; ++s)
        if (same_plan(&raw->verts[3 * (rb + (from + s) % rn)], v)) return (from + s) % rn;
    return UINT32_MAX;
}

/* Checks one layer: each simplified ring follows its raw ring. Its vertices are raw points in ring
   order, but for the corners that replace runs of notches (contours.c, corner_run): between two
   consecutive vertices found on the raw ring, every raw point lies within the tolerance of the
   simplified path between them, and every corner within the tolerance of the raw path. */
static void check_layer(const char* name, uint32_t l, const ptl_dbg_contour* raw, const ptl_dbg_contour* simp,
                        double tol) {
    cr_assert_eq(raw->ring_count, simp->ring_count, "%s: layer %u: %u raw rings, %u simplified", name, l,
                 raw->ring_count, simp->ring_count);
    const double lim = tol * (1 + 1e-6) + 1e-4;
    for (uint32_t r = 0; r < simp->ring_count; ++r) {
        const uint32_t rb = raw->ring_start[r], rn = raw->ring_start[r + 1] - rb;
        const uint32_t sb = simp->ring_start[r], sn = simp->ring_start[r + 1] - sb;
        cr_assert_geq(sn, 3, "%s: layer %u: ring %u collapsed to %u vertices", name, l, r, sn);
        /* the first simplified vertex found on the raw ring anchors the walk */
        uint32_t i0 = 0, k0 = UINT32_MAX;
        for (; i0 < sn && k0 == UINT32_MAX; ++i0) k0 = find_on_raw(raw, rb, rn, 0, &simp->verts[3 * (sb + i0)]);
        if (k0 == UINT32_MAX) { /* all corners (a box's hole): the whole rings against each other */
            for (uint32_t t = 0; t < rn; ++t) {
                const float* q = &raw->verts[3 * (rb + t)];
                double d = INFINITY;
                for (uint32_t e = 0; e < sn; ++e)
                    d = fmin(d, seg_dist(&simp->verts[3 * (sb + e)], &simp->verts[3 * (sb + (e + 1) % sn)], q[0], q[2]));
                cr_assert_leq(d, lim + slack(q), "%s: layer %u: raw point (%g, %g) lies %g from the simplified ring",
                              name, l, (double)q[0], (double)q[2], d);
            }
            for (uint32_t e = 0; e < sn; ++e) {
                const float* c = &simp->verts[3 * (sb + e)];
                double d = INFINITY;
                for (uint32_t t = 0; t < rn; ++t)
                    d = fmin(d, seg_dist(&raw->verts[3 * (rb + t)], &raw->verts[3 * (rb + (t + 1) % rn)], c[0], c[2]));
                cr_assert_leq(d, lim + slack(c), "%s: layer %u: corner (%g, %g) lies %g from the raw ring", name, l,
                              (double)c[0], (double)c[2], d);
            }
            continue;
        }
        --i0;
        uint32_t i = i0, k = k0, walked = 0, corners = 0;
        do {
            /* the next vertex on the raw ring after simplified vertex i (raw position k) */
            uint32_t j = (i + 1) % sn, kj = UINT32_MAX;
            for (; j != i0; j = (j + 1) % sn) {
                const uint32_t at = find_on_raw(raw, rb, rn, (k + 1) % rn, &simp->verts[3 * (sb + j)]);
                /* found before wrapping past the anchor */
                if (at != UINT32_MAX && (at - k0 + rn) % rn > (k - k0 + rn) % rn) {
                    kj = at;
                    break;
                }
                ++corners;
            }
            if (j == i0) kj = k0;
            const uint32_t steps = (kj - k + rn) % rn ? (kj - k + rn) % rn : rn;
            walked += steps;
            cr_assert_leq(walked, rn, "%s: layer %u: ring %u is not its raw ring in order", name, l, r);
            /* the simplified path from i to j, the raw path from k to kj */
            for (uint32_t t = 0; t <= steps; ++t) {
                const float* q = &raw->verts[3 * (rb + (k + t) % rn)];
                double d = INFINITY;
                uint32_t e = i;
                do { /* once around when i is the only vertex on the raw ring */
                    d = fmin(d, seg_dist(&simp->verts[3 * (sb + e)], &simp->verts[3 * (sb + (e + 1) % sn)], q[0], q[2]));
                    e = (e + 1) % sn;
                } while (e != j);
                cr_assert_leq(d, lim + slack(q), "%s: layer %u: raw point (%g, %g) lies %g from the simplified ring, more than %g",
                              name, l, (double)q[0], (double)q[2], d, tol);
            }
            for (uint32_t e = (i + 1) % sn; e != j; e = (e + 1) % sn) {
                const float* c = &simp->verts[3 * (sb + e)];
                double d = INFINITY;
                for (uint32_t t = 0; t < steps; ++t)
                    d = fmin(d, seg_dist(&raw->verts[3 * (rb + (k + t) % rn)], &raw->verts[3 * (rb + (k + t + 1) % rn)],
                                         c[0], c[2]));
                cr_assert_leq(d, lim + slack(c), "%s: layer %u: corner (%g, %g) lies %g from the raw ring, more than %g", name, l,
                              (double)c[0], (double)c[2], d, tol);
            }
            i = j, k = kj;
        } while (i != i0);
        cr_assert_eq(walked, rn, "%s: layer %u: ring %u does not go once around its raw ring", name, l, r);
        cr_assert_lt(corners, sn, "%s: layer %u: ring %u", name, l, r);
    }
}

/* Bakes `m` at agent radius `radius` (defaults otherwise: Recast's reference parameters but the
   radius) keeping the contours, and checks every layer's simplified rings against the raw ones.
   The caller destroys *dbg and frees *blob (*size bytes). */
static ptl_bake_debug* bake_checked(const char* name, const ptl_trimesh* m, float radius, void** blob, size_t* size) {
    ptl_bake_debug* dbg;
    cr_assert_eq(ptl_bake_debug_create(NULL, &dbg), PTL_OK);
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.agent_radius = radius;
    d.no_landmarks = true; /* not needed here */
    d.debug = dbg;
    ptl_bake_desc used;
    ptl_bake_desc_resolve(&d, &used);
    ptl_error err;
    cr_assert_eq(ptl_bake_trimesh(m, &d, blob, size, NULL, &err), PTL_OK, "%s: %s", name, err.message);
    const double tol = (double)used.max_error * used.cell_size; /* max_error is in cells */
    for (uint32_t l = 0; l < ptl_bake_debug_layer_count(dbg); ++l) {
        ptl_dbg_contour raw, simp;
        cr_assert_eq(ptl_bake_debug_get_contour(dbg, l, false, &raw), PTL_OK);
        cr_assert_eq(ptl_bake_debug_get_contour(dbg, l, true, &simp), PTL_OK);
        check_layer(name, l, &raw, &simp, tol);
    }
    return dbg;
}

Test(contours, simplified_walls_stay_within_the_tolerance_of_every_raw_corner_point, .timeout = 120) {
    TEST_REQUIRE_DATA(data);
    for (size_t m = 0; m < sizeof MESHES / sizeof MESHES[0]; ++m) {
        char path[1024];
        snprintf(path, sizeof path, "%s/meshes/%s", data, MESHES[m]);
        ptl_trimesh tm;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(path, NULL, &tm, &err), PTL_OK, "%s: %s", path, err.message);
        void* blob;
        size_t size;
        ptl_bake_debug* dbg = bake_checked(MESHES[m], &tm, 0.6f, &blob, &size);
        ptl_blob_free(blob, size, NULL);
        ptl_bake_debug_destroy(dbg);
        ptl_trimesh_free(&tm);
    }
}

/* A box turned by `ang` radians about the vertical through (cx, cz), half sizes hx, hz. */
static void turned_box(mesh_builder* b, float cx, float cz, float hx, float hz, float y0, float y1, float ang) {
    uint32_t v[8];
    const float c = cosf(ang), s = sinf(ang);
    for (int i = 0; i < 8; ++i) {
        const float x = i & 1 ? hx : -hx, z = i & 4 ? hz : -hz;
        v[i] = vert(b, cx + c * x - s * z, i & 2 ? y1 : y0, cz + s * x + c * z);
    }
    const int f[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (int k = 0; k < 6; ++k) {
        tri(b, v[f[k][0]], v[f[k][1]], v[f[k][2]]);
        tri(b, v[f[k][0]], v[f[k][2]], v[f[k][3]]);
    }
}

/* A box standing on a floor, turned by every odd degree: its hole in the floor's contour would
   ideally have four notches (one per corner). A closed ring may start anywhere, and the ring is
   simplified from its best start (contours.c, plan_closed_ring), and a run of notches left at a
   rounded corner becomes one corner (corner_run). Fixing three spread-out points instead gave 230
   notches over the 45 angles without erosion and 306 with Recast's 0.6 m (worst 7 and 8); the best
   start alone 201 and 282. The simplified rings also stay within the tolerance of every raw point. */
Test(contours, a_turned_box_leaves_a_hole_with_few_notches_at_every_angle, .timeout = 120) {
    const float radii[2] = {0, 0.6f};
    const uint32_t limit[2] = {186, 202}; /* measured 181 and 196 */
    for (int k = 0; k < 2; ++k) {
        uint32_t total = 0;
        for (int deg = 1; deg < 90; deg += 2) {
            static mesh_builder b;
            memset(&b, 0, sizeof b);
            floor_quad(&b, 0, 0, 20, 20, 0);
            turned_box(&b, 10.13f, 9.87f, 2.5f, 1.5f, -0.5f, 2.5f, (float)deg * 3.14159265f / 180);
            ptl_trimesh m = as_trimesh(&b);
            char name[64];
            snprintf(name, sizeof name, "box turned %d degrees", deg);
            void* blob;
            size_t size;
            ptl_bake_debug* dbg = bake_checked(name, &m, radii[k], &blob, &size);
            /* the floor: the layer with two rings (the box's top is a layer of its own) */
            ptl_dbg_contour simp;
            uint32_t floor = PTL_NONE;
            for (uint32_t l = 0; l < ptl_bake_debug_layer_count(dbg); ++l) {
                cr_assert_eq(ptl_bake_debug_get_contour(dbg, l, true, &simp), PTL_OK);
                if (simp.ring_count == 2) floor = l;
            }
            cr_assert_neq(floor, PTL_NONE, "%s: no layer with a hole", name);
            cr_assert_eq(ptl_bake_debug_get_contour(dbg, floor, true, &simp), PTL_OK);
            uint32_t holes = 0;
            for (uint32_t r = 0; r < simp.ring_count; ++r) {
                double a2 = 0;
                uint32_t notches = 0;
                for (uint32_t i = simp.ring_start[r]; i < simp.ring_start[r + 1]; ++i) {
                    const uint32_t j = i + 1 == simp.ring_start[r + 1] ? simp.ring_start[r] : i + 1;
                    a2 += (double)simp.verts[3 * i] * simp.verts[3 * j + 2] - (double)simp.verts[3 * j] * simp.verts[3 * i + 2];
                    notches += (simp.flags[i] & PTL_DBG_VERT_NOTCH) != 0;
                }
                if (a2 >= 0) {
                    cr_assert_eq(notches, 0, "%s: the floor's outline has %u notches", name, notches);
                    continue;
                }
                ++holes;
                cr_assert(notches >= 4 && notches <= 8, "%s: the box's hole has %u notches", name, notches);
                total += notches;
            }
            cr_assert_eq(holes, 1, "%s", name);
            ptl_blob_free(blob, size, NULL);
            ptl_bake_debug_destroy(dbg);
        }
        fprintf(stderr, "contours: turned box, radius %.1f: %u notches over 45 angles (ideal 180)\n", (double)radii[k], total);
        cr_assert_leq(total, limit[k], "radius %.1f: %u notches over 45 angles (ideal 180)", (double)radii[k], total);
    }
}

/* Boxes crowded on a floor at pseudo-random angles, some closer than the tolerance to each other:
   the corners that replace runs of notches (contours.c, corner_run) must leave simple rings that
   neither touch nor share a vertex where the raw outline does not (a new pinch), and a navmesh
   that validates. */
Test(contours, crowded_turned_boxes_keep_their_rings_apart, .timeout = 120) {
    uint32_t seed = 12345, corners = 0;
    for (int trial = 0; trial < 6; ++trial) {
        static mesh_builder b;
        memset(&b, 0, sizeof b);
        const float radii[6] = {0.6f, 0.6f, 0.6f, 0.6f, 0.3f, 0}, radius = radii[trial], step = 3.0f + 2 * radius;
        floor_quad(&b, 0, 0, 2.4f + 5 * step, 2.4f + 5 * step, 0);
        for (int i = 0; i < 5; ++i) {
            for (int j = 0; j < 5; ++j) {
                seed = seed * 1664525u + 1013904223u;
                const float ang = (float)(seed >> 8) / 16777216.0f * 1.5707963f;
                seed = seed * 1664525u + 1013904223u;
                const float jit = ((float)(seed >> 8) / 16777216.0f - 0.5f) * 0.6f;
                /* 2 x 1.4 m, turned: neighbours come within a column or two of each other once
                   eroded by the radius */
                turned_box(&b, 2.4f + step * ((float)i + 0.5f) + jit, 2.4f + step * ((float)j + 0.5f) - jit,
                           1.0f + 0.1f * (float)(trial % 2), 0.7f, -0.5f, 2.5f, ang);
            }
        }
        ptl_trimesh m = as_trimesh(&b);
        char name[64];
        snprintf(name, sizeof name, "crowded boxes %d", trial);
        void* blob;
        size_t size;
        ptl_bake_debug* dbg = bake_checked(name, &m, radius, &blob, &size);
        for (uint32_t l = 0; l < ptl_bake_debug_layer_count(dbg); ++l) {
            ptl_dbg_contour raw, simp;
            cr_assert_eq(ptl_bake_debug_get_contour(dbg, l, false, &raw), PTL_OK);
            cr_assert_eq(ptl_bake_debug_get_contour(dbg, l, true, &simp), PTL_OK);
            /* a position used twice by the simplified rings is used twice by the raw ones */
            for (uint32_t i = 0; i < simp.vert_count; ++i) {
                bool on_raw = false;
                for (uint32_t k = 0; k < raw.vert_count && !on_raw; ++k)
                    on_raw = raw.verts[3 * k] == simp.verts[3 * i] && raw.verts[3 * k + 2] == simp.verts[3 * i + 2];
                corners += !on_raw;
                for (uint32_t j = i + 1; j < simp.vert_count; ++j) {
                    if (simp.verts[3 * i] != simp.verts[3 * j] || simp.verts[3 * i + 2] != simp.verts[3 * j + 2]) continue;
                    uint32_t uses = 0;
                    for (uint32_t k = 0; k < raw.vert_count; ++k)
                        uses += raw.verts[3 * k] == simp.verts[3 * i] && raw.verts[3 * k + 2] == simp.verts[3 * i + 2];
                    cr_assert_geq(uses, 2, "%s: layer %u: vertices %u and %u share (%g, %g), a raw pinch nowhere", name, l,
                                  i, j, (double)simp.verts[3 * i], (double)simp.verts[3 * i + 2]);
                }
            }
        }
        ptl_navmesh* nm;
        ptl_error err;
        cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s: %s", name, err.message);
        cr_assert_eq(ptl_navmesh_validate(nm, &err), PTL_OK, "%s: %s", name, err.message);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
        ptl_bake_debug_destroy(dbg);
    }
    fprintf(stderr, "contours: crowded boxes: %u corners off the lattice over 6 scenes\n", corners);
    cr_assert_gt(corners, 40, "only %u corners off the lattice: the scenes no longer test them", corners); /* 67 */
}
