/* The cells a path crosses (ptl_path_result.cells), both modes: consecutive cells share a portal,
   the first is the start's, the last the goal's, and every segment of the path lies in the union
   of the cells (checked at samples along it against the cells' polygons). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_builder.h"
#include "query_reference.h"

static bool neighbours(const ptl_navmesh* nm, uint32_t a, uint32_t b) {
    ptl_cell_view v;
    ptl_navmesh_get_cell(nm, a, &v);
    for (uint32_t i = 0; i < v.vert_count; ++i)
        if (v.neighbors[i] == b) return true;
    return false;
}

/* Is (x, z) in cell c (closed, within tol)? */
static bool in_cell(const ptl_navmesh* nm, uint32_t c, double x, double z, double tol) {
    ptl_cell_view v;
    ptl_navmesh_get_cell(nm, c, &v);
    for (uint32_t i = 0; i < v.vert_count; ++i) {
        const float* a = ptl_navmesh_vert(nm, v.verts[i]);
        const float* b = ptl_navmesh_vert(nm, v.verts[(i + 1) % v.vert_count]);
        double ex = b[0] - a[0], ez = b[2] - a[2], len = hypot(ex, ez);
        if (len > 0 && (ex * (z - a[2]) - ez * (x - a[0])) / len < -tol) return false;
    }
    return true;
}

/* Checks one path's cells; returns their count. */
static uint32_t check_cells(const ptl_navmesh* nm, const ptl_path_result* r, const char* what) {
    cr_assert(r->cell_count >= 1 && r->cell_count <= r->cell_capacity, "%s: %u cells", what, r->cell_count);
    cr_assert_eq(r->cells[0], r->start_cell, "%s: first cell %u, the start's %u", what, r->cells[0], r->start_cell);
    cr_assert_eq(r->cells[r->cell_count - 1], r->goal_cell, "%s: last cell %u, the goal's %u", what,
                 r->cells[r->cell_count - 1], r->goal_cell);
    for (uint32_t i = 0; i + 1 < r->cell_count; ++i)
        cr_assert(neighbours(nm, r->cells[i], r->cells[i + 1]), "%s: cells %u and %u (%u, %u) share no portal", what, i,
                  i + 1, r->cells[i], r->cells[i + 1]);
    /* 1e-4, and a few float steps of the coordinates: points where the ground bends (follow_surface)
       are rounded to floats on the segment between two corners, at 5000 m a step is 0.0005 */
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    double mag = fmax(fmax(fabs(in.bmin[0]), fabs(in.bmax[0])), fmax(fabs(in.bmin[2]), fabs(in.bmax[2])));
    const double tol = 1e-4 + 8 * FLT_EPSILON * mag;
    for (uint32_t k = 0; k + 1 < r->point_count; ++k) {
        const float *a = &r->points[3 * k], *b = &r->points[3 * k + 3];
        for (int s = 0; s <= 64; ++s) {
            double t = s / 64.0, x = a[0] + t * (b[0] - a[0]), z = a[2] + t * (b[2] - a[2]);
            bool inside = false;
            for (uint32_t i = 0; i < r->cell_count && !inside; ++i) inside = in_cell(nm, r->cells[i], x, z, tol);
            cr_assert(inside, "%s: segment %u at t %.3f (%g, %g) is in none of the path's cells", what, k, t, x, z);
        }
    }
    return r->cell_count;
}

Test(path_cells, cells_are_neighbours_from_the_start_to_the_goal_and_hold_the_path_on_grids, .timeout = 120) {
    uint32_t paths = 0, longest = 0;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        ptl_grid g;
        ptl_shape s = grid_shape(9100 + seed, 30, 30, 25, &g);
        ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
        ptl_query* q = make_query(nm);
        uint64_t st = seed * 131;
        static float pts[3 * 1024];
        static uint32_t cells[4096];
        for (int i = 0; i < 60; ++i) {
            double sx, sz, gx, gz;
            /* ends strictly inside free squares: each in one cell */
            do sx = rng_int(&st, 0, 29) + 0.25 + 0.5 * rng_int(&st, 0, 1), sz = rng_int(&st, 0, 29) + 0.375;
            while (!grid_free(&g, (int)sx, (int)sz));
            do gx = rng_int(&st, 0, 29) + 0.625, gz = rng_int(&st, 0, 29) + 0.25 + 0.5 * rng_int(&st, 0, 1);
            while (!grid_free(&g, (int)gx, (int)gz));
            for (int mode = 0; mode < 2; ++mode) {
                ptl_path_request req = {.start = {(float)sx, 0, (float)sz}, .goal = {(float)gx, 0, (float)gz},
                                        .mode = mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT};
                ptl_path_result r = {.points = pts, .point_capacity = 1024, .cells = cells, .cell_capacity = 4096};
                ptl_status status = ptl_query_find_path(q, &req, &r);
                if (status == PTL_PARTIAL) continue;
                cr_assert_eq(status, PTL_OK, "%s", ptl_status_name(status));
                char what[128];
                snprintf(what, sizeof what, "grid %lu %s (%g, %g) -> (%g, %g)", (unsigned long)seed, mode ? "corridor" : "exact",
                         sx, sz, gx, gz);
                uint32_t n = check_cells(nm, &r, what);
                longest = n > longest ? n : longest;
                /* the same path without cells asked for; with too small a buffer: truncated, same count */
                ptl_path_result r2 = {.points = pts, .point_capacity = 1024};
                cr_assert_eq(ptl_query_find_path(q, &req, &r2), PTL_OK);
                cr_assert(r2.cell_count == 0 && fabs(r2.length - r.length) < 1e-9 * (1 + r.length));
                uint32_t few[2];
                ptl_path_result r3 = {.points = pts, .point_capacity = 1024, .cells = few, .cell_capacity = 2};
                cr_assert_eq(ptl_query_find_path(q, &req, &r3), n > 2 ? PTL_TRUNCATED : PTL_OK);
                cr_assert_eq(r3.cell_count, n);
                ++paths;
            }
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    fprintf(stderr, "path_cells: %u paths, up to %u cells\n", paths, longest);
    cr_assert_gt(paths, 500);
    cr_assert_gt(longest, 10);
}

Test(path_cells, a_3d_scene_of_ramps_and_pillars_and_bad_buffers) {
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 0, 0, 30, 20, 0);
    for (int i = 0; i < 4; ++i) box(b, 4 + 6 * i, -1, 4 + 3 * (i % 2), 6 + 6 * i, 3, 10 + 3 * (i % 2));
    floor_quad(b, 0, 20, 30, 24, 1.5f); /* a strip 1.5 up, above the climb: a ledge, a region apart */
    ptl_trimesh m = as_trimesh(b);
    ptl_error err;
    void* blob;
    size_t size;
    cr_assert_eq(ptl_bake_trimesh(&m, NULL, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    ptl_query* q = make_query(nm);
    static float pts[3 * 1024];
    static uint32_t cells[1024];
    uint32_t checked = 0;
    for (int i = 0; i < 40; ++i) {
        float sx = 1.5f + (float)(i % 5), sz = 1.5f + (float)(i % 7) * 2.5f, gx = 28.5f - (float)(i % 3), gz = 17.5f - (float)(i % 6) * 2.5f;
        for (int surface = 0; surface < 2; ++surface) {
            ptl_path_request req = {.start = {sx, 0, sz}, .goal = {gx, 0, gz}, .follow_surface = surface, .mode = i & 1};
            ptl_path_result r = {.points = pts, .point_capacity = 1024, .cells = cells, .cell_capacity = 1024};
            ptl_status st = ptl_query_find_path(q, &req, &r);
            if (st == PTL_PARTIAL || st == PTL_ERR_NOT_FOUND) continue;
            cr_assert_eq(st, PTL_OK, "%s", ptl_status_name(st));
            check_cells(nm, &r, "3d scene");
            ++checked;
        }
    }
    cr_assert_gt(checked, 40);
    /* cells asked for without a buffer */
    ptl_path_request req = {.start = {1.5f, 0, 1.5f}, .goal = {28, 0, 18}};
    ptl_path_result r = {.points = pts, .point_capacity = 1024, .cells = NULL, .cell_capacity = 4};
    cr_assert_eq(ptl_query_find_path(q, &req, &r), PTL_ERR_INVALID_ARG);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    free(b);
}

/* The shared meshes (skipped loudly without ../shared/data): random ends (ptl_query_random_point),
   both modes, with and without following the surface. */
Test(path_cells, cells_hold_the_paths_on_the_shared_meshes, .timeout = 240) {
    const char* env = getenv("PTL_DATA");
    const char* data = env && *env ? env : "../shared/data";
    static const char* const MESHES[] = {"dungeon", "nav_test", "undulating"};
    uint32_t checked = 0, partial = 0;
    for (int m = 0; m < 3; ++m) {
        char path[1024];
        snprintf(path, sizeof path, "%s/meshes/%s.obj", data, MESHES[m]);
        ptl_trimesh tm;
        ptl_error err;
        if (ptl_obj_load(path, NULL, &tm, &err) < 0) {
            fprintf(stderr, "SKIPPED %s: %s\n", path, err.message);
            cr_skip_test("shared data absent");
        }
        void* blob;
        size_t size;
        cr_assert_eq(ptl_bake_trimesh(&tm, NULL, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
        ptl_trimesh_free(&tm);
        ptl_navmesh* nm;
        cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
        ptl_query* q = make_query(nm);
        static float pts[3 * 4096];
        static uint32_t cells[4096];
        uint64_t st = 7 + m;
        for (int i = 0; i < 300; ++i) {
            ptl_location a, b;
            ptl_query_random_point(q, &st, &a);
            ptl_query_random_point(q, &st, &b);
            ptl_path_request req = {.mode = i & 1 ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT, .follow_surface = (i & 2) != 0};
            memcpy(req.start, a.point, sizeof req.start);
            memcpy(req.goal, b.point, sizeof req.goal);
            ptl_path_result r = {.points = pts, .point_capacity = 4096, .cells = cells, .cell_capacity = 4096};
            ptl_status s = ptl_query_find_path(q, &req, &r);
            cr_assert(s == PTL_OK || s == PTL_PARTIAL, "%s path %d: %s", MESHES[m], i, ptl_status_name(s));
            partial += s == PTL_PARTIAL;
            char what[128];
            snprintf(what, sizeof what, "%s path %d", MESHES[m], i);
            check_cells(nm, &r, what);
            ++checked;
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
    }
    fprintf(stderr, "path_cells: %u paths on the shared meshes (%u partial)\n", checked, partial);
}
