/* Clearance queries (runtime/clearance.c) against brute force on exact geometry: the wall distance
   against every edge of the free space's rings, and the nearest point with clearance r against a
   fine lattice of points around the query point (clearance by every ring edge, visibility by the
   exact segment test of query_reference.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_reference.h"

/* Distance from (x, y) to the nearest edge of the free space's rings, and that edge's point. */
static double brute_wall(const ptl_shape* s, double x, double y, double* wx, double* wy) {
    double best = INFINITY;
    for (uint32_t v = 0; v < s->vert_count; ++v) {
        uint32_t w = ring_next(s, v);
        double ax = s->xy[2 * v], ay = s->xy[2 * v + 1], bx = s->xy[2 * w], by = s->xy[2 * w + 1];
        double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
        double t = l2 > 0 ? ((x - ax) * dx + (y - ay) * dy) / l2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double px = ax + t * dx, py = ay + t * dy, d = hypot(x - px, y - py);
        if (d < best) {
            best = d;
            if (wx) *wx = px, *wy = py;
        }
    }
    return best;
}

typedef struct test_map {
    ptl_shape shape;
    test_shape room; /* storage for room shapes */
    ptl_grid grid;
    bool is_grid;
    ptl_navmesh* nm;
} test_map;

static void make_map(int k, test_map* m) {
    memset(m, 0, sizeof *m);
    if (k % 2 == 0) {
        random_room(&m->room, 1000 + (uint64_t)k);
        m->shape = as_ptl_shape(&m->room, 0);
        m->nm = bake_test_shape(&m->room, 0);
    } else {
        m->is_grid = true;
        m->shape = grid_shape(2000 + (uint64_t)k, 24, 24, 22, &m->grid);
        m->nm = bake_ptl_shape(&m->shape, PTL_NAVMESH_LATTICE_POINTS);
    }
}

static void free_map(test_map* m) {
    ptl_navmesh_destroy(m->nm);
    if (m->is_grid) {
        ptl_shape_free(&m->shape);
        ptl_grid_free(&m->grid);
    }
}

/* A random point of the free space with coordinates in steps of 1/64 (exact in floats), strictly
   inside it (not on a wall: the lattice rule would move such a point between regions). */
static void free_point(const test_map* m, uint64_t* st, double* x, double* y) {
    double w = m->is_grid ? m->grid.width : 40, h = m->is_grid ? m->grid.height : 40;
    do {
        *x = rng_int(st, 0, (int)(w * 64)) / 64.0;
        *y = rng_int(st, 0, (int)(h * 64)) / 64.0;
    } while (!in_free_space(&m->shape, *x, *y) || brute_wall(&m->shape, *x, *y, NULL, NULL) < 1e-3);
}

Test(clearance, wall_distance_matches_every_edge_on_rooms_and_grids, .timeout = 120) {
    const double radii[] = {0.3, 1.5, 4, 1000};
    int checked = 0, found = 0;
    for (int k = 0; k < 8; ++k) {
        test_map m;
        make_map(k, &m);
        ptl_query* q = make_query(m.nm);
        uint64_t st = 77 + (uint64_t)k;
        for (int i = 0; i < 150; ++i) {
            double x, y;
            free_point(&m, &st, &x, &y);
            double max_r = radii[i % 4];
            double wx, wy, d = brute_wall(&m.shape, x, y, &wx, &wy);
            float p[3] = {(float)x, 0, (float)y};
            ptl_wall_hit hit;
            cr_assert_eq(ptl_query_wall_distance(q, p, NULL, (float)max_r, &hit), PTL_OK, "map %d (%g, %g)", k, x, y);
            ++checked;
            /* an agent that knows its cell asks the same without locating (the located cell: the same
               sweep, the same answer); a cell that does not hold p is located instead */
            ptl_wall_hit hk, hw;
            cr_assert_eq(ptl_query_wall_distance_in(q, hit.cell, p, (float)max_r, &hk), PTL_OK);
            cr_assert(hk.found == hit.found && hk.distance == hit.distance && hk.cell == hit.cell &&
                          hk.point[0] == hit.point[0] && hk.point[2] == hit.point[2] && hk.wall_cell == hit.wall_cell,
                      "map %d (%g, %g): with its cell %d %.9f, located %d %.9f", k, x, y, hk.found, hk.distance, hit.found,
                      hit.distance);
            ptl_navmesh_info info;
            ptl_navmesh_get_info(m.nm, &info);
            const uint32_t other = (hit.cell + 1 + (uint32_t)i) % info.cell_count;
            cr_assert_eq(ptl_query_wall_distance_in(q, other, p, (float)max_r, &hw), PTL_OK);
            cr_assert(hw.found == hit.found && fabs(hw.distance - hit.distance) < 1e-6, "map %d (%g, %g): cell %u given, %d %.9f",
                      k, x, y, other, hw.found, hw.distance);
            if (fabs(d - max_r) < 1e-5) continue; /* on the limit: either answer */
            cr_assert_eq(hit.found, d < max_r, "map %d (%g, %g) radius %g: brute %.9f, found %d", k, x, y, max_r, d, hit.found);
            if (!hit.found) {
                cr_expect_eq(hit.distance, (float)max_r);
                continue;
            }
            ++found;
            cr_assert(fabs(hit.distance - d) < 1e-5, "map %d (%g, %g): distance %.9f, brute %.9f", k, x, y, hit.distance, d);
            /* the point is on a wall, at that distance, and the normal points from it to p */
            double on = brute_wall(&m.shape, hit.point[0], hit.point[2], NULL, NULL);
            cr_assert(on < 1e-5, "map %d: hit point (%g, %g) is %g off the walls", k, hit.point[0], hit.point[2], on);
            cr_assert(fabs(hypot(hit.point[0] - x, hit.point[2] - y) - d) < 1e-5);
            cr_assert(fabs(hypot(hit.normal[0], hit.normal[2]) - 1) < 1e-5 && hit.normal[1] == 0);
            cr_assert(fabs(hit.normal[0] * d - (x - hit.point[0])) < 1e-4 && fabs(hit.normal[2] * d - (y - hit.point[2])) < 1e-4,
                      "normal (%g, %g)", hit.normal[0], hit.normal[2]);
            cr_assert_eq(hit.from[0], p[0]);
            cr_assert_eq(hit.from[2], p[2]);
        }
        ptl_query_destroy(q);
        free_map(&m);
    }
    cr_assert_gt(found, checked / 2, "%d of %d found", found, checked);
}

Test(clearance, wall_distance_on_walls_corners_and_bad_input) {
    test_shape t;
    room_with_pillar(&t);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    ptl_wall_hit hit;
    /* on the outer wall: distance 0, the normal into the room */
    float on_wall[3] = {3, 0, 0};
    cr_assert_eq(ptl_query_wall_distance(q, on_wall, NULL, 5, &hit), PTL_OK);
    cr_expect(hit.found && hit.distance == 0 && hit.normal[0] == 0 && hit.normal[2] == 1, "%g (%g, %g)", hit.distance,
              hit.normal[0], hit.normal[2]);
    /* near the pillar's corner (6, 6): the corner itself */
    float near_corner[3] = {7, 0, 7.5};
    cr_assert_eq(ptl_query_wall_distance(q, near_corner, NULL, 5, &hit), PTL_OK);
    cr_expect(hit.found && fabs(hit.distance - hypot(1, 1.5)) < 1e-6 && hit.point[0] == 6 && hit.point[2] == 6);
    /* max radius 0 away from walls: none */
    float mid[3] = {2, 0, 2};
    cr_assert_eq(ptl_query_wall_distance(q, mid, NULL, 0, &hit), PTL_OK);
    cr_expect(!hit.found && hit.wall_cell == PTL_NONE && hit.cell != PTL_NONE);
    /* bad input */
    float nan_p[3] = {NAN, 0, 1};
    cr_expect_eq(ptl_query_wall_distance(q, nan_p, NULL, 1, &hit), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_wall_distance(q, mid, NULL, -1, &hit), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_wall_distance(q, mid, NULL, INFINITY, &hit), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_wall_distance(q, mid, NULL, 1, NULL), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_wall_distance(NULL, mid, NULL, 1, &hit), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_wall_distance_in(q, 0, nan_p, 1, &hit), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_wall_distance_in(q, 0, mid, -1, &hit), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_wall_distance_in(q, 0, mid, 1, NULL), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_wall_distance_in(NULL, 0, mid, 1, &hit), PTL_ERR_INVALID_ARG);
    /* an out-of-range cell: located as without one */
    cr_assert_eq(ptl_query_wall_distance_in(q, UINT32_MAX, near_corner, 5, &hit), PTL_OK);
    cr_expect(hit.found && fabs(hit.distance - hypot(1, 1.5)) < 1e-6);
    float far[3] = {50, 0, 50};
    cr_expect_eq(ptl_query_wall_distance(q, far, NULL, 1, &hit), PTL_ERR_NOT_FOUND);
    cr_expect(!hit.found);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

/* The nearest lattice point (spacing h, within `reach` of p) that keeps r from every edge and that p
   sees; INFINITY when none. */
static double lattice_nearest(const ptl_shape* s, double px, double py, double r, double reach, double h) {
    int n = (int)ceil(reach / h);
    double best = INFINITY;
    for (int i = -n; i <= n; ++i)
        for (int j = -n; j <= n; ++j) {
            double x = px + i * h, y = py + j * h, d = hypot(i * h, j * h);
            if (d > reach || d >= best) continue;
            if (!in_free_space(s, x, y) || brute_wall(s, x, y, NULL, NULL) < r) continue;
            if (!visible(s, px, py, -1, x, y, -1)) continue;
            best = d;
        }
    return best;
}

Test(clearance, clear_point_is_clear_seen_and_no_farther_than_a_lattice, .timeout = 240) {
    const double radii[] = {0.25, 0.5, 1, 2};
    int moved = 0, kept = 0, none = 0;
    for (int k = 0; k < 6; ++k) {
        test_map m;
        make_map(k, &m);
        ptl_query* q = make_query(m.nm);
        uint64_t st = 500 + (uint64_t)k;
        for (int i = 0; i < 24; ++i) {
            double x, y;
            free_point(&m, &st, &x, &y);
            double r = radii[i % 4];
            float p[3] = {(float)x, 0, (float)y};
            ptl_location loc;
            ptl_status status = ptl_query_clear_point(q, p, NULL, (float)r, &loc);
            double lat = lattice_nearest(&m.shape, x, y, r + 1e-9, 2, 0.02);
            if (status == PTL_ERR_NOT_FOUND) {
                cr_assert(isinf(lat), "map %d (%g, %g) r %g: not found, the lattice has a point %g away", k, x, y, r, lat);
                ++none;
                continue;
            }
            cr_assert_eq(status, PTL_OK, "map %d: %s", k, ptl_status_name(status));
            double cx = loc.point[0], cy = loc.point[2];
            double clear = brute_wall(&m.shape, cx, cy, NULL, NULL);
            cr_assert(in_free_space(&m.shape, cx, cy) && clear >= r - 1e-6,
                      "map %d (%g, %g) r %g: (%.9g, %.9g) keeps only %.9g", k, x, y, r, cx, cy, clear);
            cr_assert(visible(&m.shape, x, y, -1, cx, cy, -1), "map %d: (%g, %g) does not see (%g, %g)", k, x, y, cx, cy);
            double d = hypot(cx - x, cy - y);
            cr_assert(d <= 2 + 1e-6);
            cr_assert(d <= lat + 1e-6, "map %d (%g, %g) r %g: moved %.9g, the lattice %.9g", k, x, y, r, d, lat);
            if (brute_wall(&m.shape, x, y, NULL, NULL) >= r) {
                cr_assert(cx == p[0] && cy == p[2], "a point that keeps r stays");
                ++kept;
            } else {
                ++moved;
            }
        }
        ptl_query_destroy(q);
        free_map(&m);
    }
    cr_assert_gt(moved, 20, "moved %d, kept %d, none %d", moved, kept, none);
}

Test(clearance, clear_point_in_corners_corridors_and_bad_input) {
    test_shape t;
    room_with_pillar(&t);
    ptl_navmesh* nm = bake_test_shape(&t, 0);
    ptl_query* q = make_query(nm);
    ptl_location loc;
    /* in the room's corner: pushed out along the diagonal to (r, r) */
    float corner[3] = {0.1f, 0, 0.2f};
    cr_assert_eq(ptl_query_clear_point(q, corner, NULL, 1, &loc), PTL_OK);
    cr_expect(fabs(loc.point[0] - 1) < 1e-5 && fabs(loc.point[2] - 1) < 1e-5, "(%g, %g)", loc.point[0], loc.point[2]);
    /* beside the pillar's corner (6, 6), outside it diagonally: onto the circle around the corner */
    float by_pillar[3] = {6.25f, 0, 6.25f};
    cr_assert_eq(ptl_query_clear_point(q, by_pillar, NULL, 1, &loc), PTL_OK);
    cr_expect(fabs(hypot(loc.point[0] - 6, loc.point[2] - 6) - 1) < 1e-5 && fabs(loc.point[0] - loc.point[2]) < 1e-5,
              "(%g, %g)", loc.point[0], loc.point[2]);
    /* the passage beside the pillar is 4 wide: radius 1.9 is pushed off the outer wall only */
    float side[3] = {5, 0, 1.5f};
    cr_assert_eq(ptl_query_clear_point(q, side, NULL, 1.9f, &loc), PTL_OK);
    cr_expect(fabs(loc.point[2] - 1.9) < 1e-5 && fabs(loc.point[0] - 5) < 1e-5, "(%g, %g)", loc.point[0], loc.point[2]);
    /* radius 2 fits the passage exactly, on its middle line */
    cr_assert_eq(ptl_query_clear_point(q, side, NULL, 2, &loc), PTL_OK);
    cr_expect(loc.point[2] == 2 && loc.point[0] == 5, "(%.9g, %.9g)", loc.point[0], loc.point[2]);
    /* the middle line is 0.5 away: out of reach of a box of 0.4 */
    const float small_box[3] = {0.4f, 4, 0.4f};
    cr_expect_eq(ptl_query_clear_point(q, side, small_box, 2, &loc), PTL_ERR_NOT_FOUND);
    /* nothing of radius 2.5 is within reach */
    cr_expect_eq(ptl_query_clear_point(q, side, NULL, 2.5f, &loc), PTL_ERR_NOT_FOUND);
    cr_expect_eq(loc.cell, PTL_NONE);
    /* radius 0: the located point */
    cr_assert_eq(ptl_query_clear_point(q, corner, NULL, 0, &loc), PTL_OK);
    cr_expect(loc.point[0] == corner[0] && loc.point[2] == corner[2] && loc.distance == 0);
    float nan_p[3] = {0, NAN, 0};
    cr_expect_eq(ptl_query_clear_point(q, nan_p, NULL, 1, &loc), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_clear_point(q, corner, NULL, -1, &loc), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_clear_point(q, corner, NULL, NAN, &loc), PTL_ERR_INVALID_ARG);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

/* Cells in a circle against a breadth-first search written here from the public cell views: from
   the cell holding the point through every portal within the radius; the same set, each cell
   within the radius of the point. */
static double seg_dist(double px, double py, const float* a, const float* b) {
    double dx = b[0] - a[0], dy = b[2] - a[2], l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((px - a[0]) * dx + (py - a[2]) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(px - a[0] - t * dx, py - a[2] - t * dy);
}

static int cmp_u32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

Test(clearance, cells_in_a_circle_match_a_search_over_the_cell_views, .timeout = 120) {
    int checked = 0;
    for (int k = 0; k < 6; ++k) {
        test_map m;
        make_map(k, &m);
        ptl_query* q = make_query(m.nm);
        ptl_navmesh_info info;
        ptl_navmesh_get_info(m.nm, &info);
        uint32_t* got = malloc(info.cell_count * sizeof(uint32_t));
        uint32_t* want = malloc(info.cell_count * sizeof(uint32_t));
        bool* seen = calloc(info.cell_count, 1);
        uint64_t st = 900 + (uint64_t)k;
        for (int i = 0; i < 60; ++i) {
            double x, y;
            free_point(&m, &st, &x, &y);
            float r = (float)(rng_int(&st, 0, 80) / 8.0);
            float p[3] = {(float)x, 0, (float)y};
            ptl_location loc;
            cr_assert_eq(ptl_query_locate(q, p, NULL, &loc), PTL_OK);
            uint32_t n = 0;
            cr_assert_eq(ptl_query_cells_in_circle(q, p, NULL, r, got, info.cell_count, &n), PTL_OK);
            /* the reference */
            memset(seen, 0, info.cell_count);
            uint32_t head = 0, tail = 0;
            want[tail++] = loc.cell, seen[loc.cell] = true;
            while (head < tail) {
                ptl_cell_view v;
                ptl_navmesh_get_cell(m.nm, want[head++], &v);
                for (uint32_t e = 0; e < v.vert_count; ++e) {
                    uint32_t nb = v.neighbors[e];
                    if (nb == PTL_NONE || seen[nb]) continue;
                    const float* a = ptl_navmesh_vert(m.nm, v.verts[e]);
                    const float* b = ptl_navmesh_vert(m.nm, v.verts[(e + 1) % v.vert_count]);
                    if (seg_dist(p[0], p[2], a, b) > r) continue;
                    seen[nb] = true;
                    want[tail++] = nb;
                }
            }
            cr_assert_eq(n, tail, "map %d (%g, %g) r %g: %u cells, the reference %u", k, x, y, r, n, tail);
            cr_assert_eq(got[0], loc.cell, "the point's cell first");
            qsort(got, n, sizeof *got, cmp_u32);
            qsort(want, tail, sizeof *want, cmp_u32);
            cr_assert(memcmp(got, want, n * sizeof *got) == 0, "map %d: the same cells", k);
            ++checked;
        }
        /* truncation, and bad input */
        uint32_t one[1], n = 0;
        float c[3] = {20, 0, 20};
        ptl_status ts = ptl_query_cells_in_circle(q, c, NULL, 1000, one, 1, &n);
        cr_expect(ts == PTL_TRUNCATED || (ts == PTL_OK && n == 1) || ts == PTL_ERR_NOT_FOUND, "%s", ptl_status_name(ts));
        cr_expect_eq(ptl_query_cells_in_circle(q, c, NULL, -1, one, 1, &n), PTL_ERR_INVALID_ARG);
        cr_expect_eq(ptl_query_cells_in_circle(q, c, NULL, 1, NULL, 1, &n), PTL_ERR_INVALID_ARG);
        cr_expect_eq(ptl_query_cells_in_circle(q, c, NULL, 1, one, 1, NULL), PTL_ERR_INVALID_ARG);
        free(got), free(want), free(seen);
        ptl_query_destroy(q);
        free_map(&m);
    }
    cr_assert_eq(checked, 360);
}

/* nav_test.obj baked at radius 0.6 (floors overlapping in plan): Detour's 1,000 wall-distance
   inputs each answer (the sweep of sight once cycled through windows of no width round a vertex
   there, rows 209, 239, 391, 572, 692, and never returned), with a distance no larger than the
   maximum and a wall point that far from the located point. */
Test(clearance, wall_distance_on_overlapping_floors_always_answers, .timeout = 120) {
    const char* dir = getenv("PTL_DATA") && *getenv("PTL_DATA") ? getenv("PTL_DATA") : "../shared/data";
    char obj[1024], csv[1024];
    snprintf(obj, sizeof obj, "%s/meshes/nav_test.obj", dir);
    snprintf(csv, sizeof csv, "%s/expected/detour_queries/nav_test_distance_to_wall.csv", dir);
    FILE* f = fopen(csv, "r");
    if (!f) cr_skip_test("shared data absent");
    ptl_trimesh tm;
    ptl_error err;
    cr_assert_eq(ptl_obj_load(obj, NULL, &tm, &err), PTL_OK, "%s", err.message);
    ptl_bake_desc d = ptl_bake_desc_defaults();
    d.agent_radius = 0.6f;
    void* blob = NULL;
    size_t size = 0;
    cr_assert_eq(ptl_bake_trimesh(&tm, &d, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
    ptl_navmesh* nm = NULL;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    ptl_query* q = NULL;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    char line[512];
    cr_assert(fgets(line, sizeof line, f) && strstr(line, "px,py,pz"), "header: %s", line);
    int rows = 0, found = 0;
    while (fgets(line, sizeof line, f)) {
        int idx;
        float p[3];
        if (sscanf(line, "%d,%f,%f,%f", &idx, &p[0], &p[1], &p[2]) != 4) continue;
        ptl_wall_hit hit;
        ptl_status st = ptl_query_wall_distance(q, p, NULL, 5, &hit);
        cr_assert(st == PTL_OK || st == PTL_ERR_NOT_FOUND, "row %d: %s", idx, ptl_status_name(st));
        ++rows;
        if (st != PTL_OK) continue;
        /* from the located point with its cell known: the same wall (Detour's findDistanceToWall form) */
        ptl_wall_hit hk;
        cr_assert_eq(ptl_query_wall_distance_in(q, hit.cell, hit.from, 5, &hk), PTL_OK, "row %d", idx);
        cr_assert(hk.found == hit.found && hk.cell == hit.cell && fabs(hk.distance - hit.distance) < 1e-4, "row %d: %d %g vs %d %g",
                  idx, hk.found, hk.distance, hit.found, hit.distance);
        if (!hit.found) continue;
        ++found;
        cr_assert(hit.distance <= 5 + 1e-5f, "row %d: %g beyond the maximum", idx, hit.distance);
        double dx = hit.point[0] - hit.from[0], dz = hit.point[2] - hit.from[2];
        cr_assert(fabs(sqrt(dx * dx + dz * dz) - hit.distance) < 1e-3, "row %d: the wall point is not that far", idx);
    }
    fclose(f);
    cr_assert_eq(rows, 1000);
    cr_assert_gt(found, 800, "%d found", found);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    ptl_trimesh_free(&tm);
}
