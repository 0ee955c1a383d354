/* Move along the surface, heights and cells in a box (runtime/move.c) against brute force on exact
   geometry: grid maps (free squares), random rooms (polygon edges) and the shared 3D meshes with
   Detour's own inputs. A move must end on the mesh, never farther from the target than its start,
   at the target when the straight segment is free, and (grids) at a wall point at least as near the
   target as any wall point reached by a walk over the free squares within the move's circle; its
   cells run from its start cell to its end cell through portals. */
#include <math.h>

#include "../runtime/navmesh_format.h"
#include "../runtime/navmesh_internal.h"
#include "../runtime/query_internal.h"
#include "mesh_builder.h"
#include "query_reference.h"
#include "test_util.h"

static bool blocked_sq(const ptl_grid* g, long x, long y) { return !grid_free(g, (int)x, (int)y); }

/* Is (x, y) in a free square of the grid (closed)? */
static bool grid_point_free(const ptl_grid* g, double x, double y) {
    for (long j = (long)floor(y) - 1; j <= (long)floor(y); ++j)
        for (long i = (long)floor(x) - 1; i <= (long)floor(x); ++i)
            if (!blocked_sq(g, i, j) && x >= i && x <= i + 1 && y >= j && y <= j + 1) return true;
    return false;
}

static double nearest_on(double px, double py, double ax, double ay, double bx, double by) {
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/* The brute force of the slide over free squares: breadth first from the start's square through
   the square sides within the circle of diameter s-t; the least distance from t to a reached
   square's wall sides (0 when a reached square holds t). The library walks cells (unions of
   squares) through portals within the same circle, so it reaches at least these squares and its
   end can be no farther. */
static double brute_slide(const ptl_grid* g, double sx, double sy, double tx, double ty) {
    int w = (int)g->width;
    static int queue[64 * 64];
    static unsigned char seen[64 * 64];
    memset(seen, 0, sizeof seen);
    double mx = 0.5 * (sx + tx), my = 0.5 * (sy + ty), r = 0.5 * hypot(tx - sx, ty - sy) + 1e-9;
    int head = 0, tail = 0, s0 = (int)floor(sy) * w + (int)floor(sx);
    queue[tail++] = s0, seen[s0] = 1;
    double best = hypot(tx - sx, ty - sy);
    static const int DX[4] = {1, 0, -1, 0}, DY[4] = {0, 1, 0, -1};
    while (head < tail) {
        int c = queue[head++], x = c % w, y = c / w;
        if (tx >= x && tx <= x + 1 && ty >= y && ty <= y + 1) return 0;
        for (int k = 0; k < 4; ++k) {
            /* the side toward direction k */
            double ax = x + (DX[k] > 0), ay = y + (DY[k] > 0), bx = ax, by = ay;
            if (DX[k]) ay = y, by = y + 1;
            else ax = x, bx = x + 1;
            int nx = x + DX[k], ny = y + DY[k];
            if (!grid_free(g, nx, ny)) {
                best = fmin(best, nearest_on(tx, ty, ax, ay, bx, by));
                continue;
            }
            int n = ny * w + nx;
            if (seen[n] || nearest_on(mx, my, ax, ay, bx, by) > r) continue;
            seen[n] = 1, queue[tail++] = n;
        }
    }
    return best;
}

/* The cells run from start_cell to end_cell, each the neighbour of the one before. */
static void check_chain(const ptl_navmesh* nm, const ptl_move_result* m, const uint32_t* cells, uint32_t cap) {
    cr_assert(m->cell_count >= 1 && m->cell_count <= cap, "cell count %u", m->cell_count);
    cr_assert_eq(cells[0], m->start_cell);
    cr_assert_eq(cells[m->cell_count - 1], m->end_cell);
    for (uint32_t k = 1; k < m->cell_count; ++k) {
        ptl_cell_view v;
        cr_assert_eq(ptl_navmesh_get_cell(nm, cells[k - 1], &v), PTL_OK);
        bool nb = false;
        for (uint32_t i = 0; i < v.vert_count; ++i) nb |= v.neighbors[i] == cells[k];
        cr_assert(nb, "cells %u and %u of the move are not neighbours", cells[k - 1], cells[k]);
    }
}

Test(move, matches_brute_force_on_random_grids, .timeout = 120) {
    int free_moves = 0, slides = 0, to_target = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        ptl_grid g;
        ptl_shape s = grid_shape(5000 + seed, 20, 20, 25, &g);
        ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
        ptl_query* q = make_query(nm);
        uint64_t st = seed * 37;
        uint32_t cells[512];
        for (int i = 0; i < 300; ++i) {
            double sx, sy, ex, ey;
            do sx = rng_int(&st, 1, 159) / 8.0, sy = rng_int(&st, 1, 159) / 8.0;
            while (!grid_free(&g, (int)sx, (int)sy) || sx == floor(sx) || sy == floor(sy));
            /* short moves (a frame's) and long ones */
            int reach = i % 2 ? 24 : 160;
            ex = sx + rng_int(&st, -reach, reach) / 8.0, ey = sy + rng_int(&st, -reach, reach) / 8.0;
            float a[3] = {(float)sx, 0, (float)sy}, b[3] = {(float)ex, 0, (float)ey};
            ptl_move_result m = {.cells = cells, .cell_capacity = 512};
            ptl_status status = ptl_query_move_along_surface(q, a, b, NULL, &m);
            cr_assert(status == PTL_OK, "%s", ptl_status_name(status));
            double x = m.point[0], y = m.point[2];
            const char* what = "grid";
            cr_assert(grid_point_free(&g, x, y), "%s %lu (%g, %g)->(%g, %g): end (%g, %g) off the free space", what,
                      (unsigned long)seed, sx, sy, ex, ey, x, y);
            cr_assert_eq(m.point[1], 0);
            double d = hypot(ex - x, ey - y), d0 = hypot(ex - sx, ey - sy);
            cr_assert_leq(d, d0 + 1e-6, "(%g, %g)->(%g, %g): end (%g, %g) farther from the target", sx, sy, ex, ey, x, y);
            ptl_raycast_hit h;
            memset(&h, 0, sizeof h);
            cr_assert_eq(ptl_query_raycast(q, a, b, NULL, &h), PTL_OK);
            cr_assert_eq(m.blocked, h.hit, "(%g, %g)->(%g, %g): blocked %d, raycast hit %d", sx, sy, ex, ey, m.blocked, h.hit);
            if (!h.hit) {
                cr_assert(x == b[0] && y == b[2], "(%g, %g)->(%g, %g): a free move ends at (%g, %g)", sx, sy, ex, ey, x, y);
                ++free_moves;
            } else {
                double bs = brute_slide(&g, sx, sy, ex, ey);
                cr_assert_leq(d, bs + 1e-6, "(%g, %g)->(%g, %g): end (%g, %g) at %.6f, a walk over the squares reaches %.6f",
                              sx, sy, ex, ey, x, y, d, bs);
                /* no nearer than the raycast's hit point either way round: the slide starts there */
                cr_assert_leq(d, hypot(ex - h.point[0], ey - h.point[2]) + 1e-6);
                if (d > 0) {
                    /* a slid end that is not the target lies on a wall: a blocked square or the map's edge touches it */
                    bool wall = false;
                    for (int k = 0; k < 9; ++k) wall |= !grid_point_free(&g, x + (k % 3 - 1) * 1e-4, y + (k / 3 - 1) * 1e-4);
                    cr_assert(wall, "(%g, %g)->(%g, %g): end (%g, %g) is neither the target nor on a wall", sx, sy, ex, ey, x, y);
                } else {
                    ++to_target;
                }
                ++slides;
            }
            check_chain(nm, &m, cells, 512);
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
    fprintf(stderr, "move: grids: %d free moves, %d slides (%d of them around to the target)\n", free_moves, slides, to_target);
    cr_assert_gt(free_moves, 300);
    cr_assert_gt(slides, 300);
}

Test(move, ends_in_free_space_on_random_rooms, .timeout = 120) {
    int slides = 0;
    for (int k = 0; k < 8; ++k) {
        test_shape room;
        random_room(&room, 3000 + (uint64_t)k);
        ptl_shape s = as_ptl_shape(&room, 0);
        ptl_navmesh* nm = bake_test_shape(&room, 0);
        ptl_query* q = make_query(nm);
        uint64_t st = 11 + (uint64_t)k;
        uint32_t cells[512];
        for (int i = 0; i < 300; ++i) {
            double sx, sy, ex, ey;
            random_free_point(&s, &st, &sx, &sy);
            ex = rng_int(&st, 0, 160) / 4.0, ey = rng_int(&st, 0, 160) / 4.0;
            float a[3] = {(float)sx, 0, (float)sy}, b[3] = {(float)ex, 0, (float)ey};
            ptl_move_result m = {.cells = cells, .cell_capacity = 512};
            cr_assert_eq(ptl_query_move_along_surface(q, a, b, NULL, &m), PTL_OK);
            /* on the mesh: it locates to itself (within the point-location tolerance) */
            ptl_location loc;
            cr_assert_eq(ptl_query_locate(q, m.point, (float[3]){1e-3f, 1, 1e-3f}, &loc), PTL_OK);
            cr_assert_lt(hypot(loc.point[0] - m.point[0], loc.point[2] - m.point[2]), 1e-4, "room %d: end (%g, %g) off the mesh",
                         k, m.point[0], m.point[2]);
            double d = hypot(ex - m.point[0], ey - m.point[2]), d0 = hypot(ex - sx, ey - sy);
            cr_assert_leq(d, d0 + 1e-5);
            ptl_raycast_hit h;
            memset(&h, 0, sizeof h);
            cr_assert_eq(ptl_query_raycast(q, a, b, NULL, &h), PTL_OK);
            if (!h.hit) cr_assert(m.point[0] == b[0] && m.point[2] == b[2] && !m.blocked);
            else {
                cr_assert_leq(d, hypot(ex - h.point[0], ey - h.point[2]) + 1e-5);
                ++slides;
            }
            check_chain(nm, &m, cells, 512);
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
    }
    cr_assert_gt(slides, 200);
}

Test(move, slides_along_a_wall_and_refuses_bad_input) {
    ptl_grid g;
    ptl_error err;
    /* 4 x 4, blocked (1,1) and (2,2): a pinch at (2, 2) */
    const char* text = "type octile\nheight 4\nwidth 4\nmap\n....\n.@..\n..@.\n....\n";
    cr_assert_geq(ptl_grid_parse(text, strlen(text), "pinch", NULL, &g, &err), 0, "%s", err.message);
    ptl_shape s;
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
    ptl_query* q = make_query(nm);
    ptl_move_result m;
    memset(&m, 0, sizeof m);
    /* into the block (1,1) from the left, aiming at (1.25, 1.5): stops at the wall x = 1 (the
       block's bottom, also reached, is farther); aiming at (1.5, 1.25): the bottom is nearer */
    cr_assert_eq(ptl_query_move_along_surface(q, (float[3]){0.5f, 0, 1.5f}, (float[3]){1.25f, 0, 1.5f}, NULL, &m), PTL_OK);
    cr_expect(m.blocked && m.point[0] == 1 && m.point[2] == 1.5f, "(%g, %g)", m.point[0], m.point[2]);
    cr_assert_eq(ptl_query_move_along_surface(q, (float[3]){0.5f, 0, 1.5f}, (float[3]){1.5f, 0, 1.25f}, NULL, &m), PTL_OK);
    cr_expect(m.blocked && m.point[0] == 1.5f && m.point[2] == 1, "(%g, %g)", m.point[0], m.point[2]);
    /* off the map to the left: stops on the map's edge x = 0 */
    cr_assert_eq(ptl_query_move_along_surface(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){-3, 0, 0.75f}, NULL, &m), PTL_OK);
    cr_expect(m.blocked && m.point[0] == 0 && m.point[2] == 0.75f, "(%g, %g)", m.point[0], m.point[2]);
    /* a move to itself */
    cr_assert_eq(ptl_query_move_along_surface(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){0.5f, 0, 0.5f}, NULL, &m), PTL_OK);
    cr_expect(!m.blocked && m.point[0] == 0.5f && m.point[2] == 0.5f && m.cell_count == 1);
    uint32_t one[1];
    m.cells = one, m.cell_capacity = 1;
    cr_assert_eq(ptl_query_move_along_surface(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){3.5f, 0, 3.5f}, NULL, &m), PTL_TRUNCATED);
    cr_expect(m.cell_count > 1 && one[0] == m.start_cell);
    cr_expect_eq(ptl_query_move_along_surface(q, (float[3]){NAN, 0, 0}, (float[3]){1, 0, 1}, NULL, &m), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_move_along_surface(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){1, 0, INFINITY}, NULL, &m), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_move_along_surface(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){1, 0, 1}, NULL, NULL), PTL_ERR_INVALID_ARG);
    m.cells = NULL, m.cell_capacity = 4;
    cr_expect_eq(ptl_query_move_along_surface(q, (float[3]){0.5f, 0, 0.5f}, (float[3]){1, 0, 1}, NULL, &m), PTL_ERR_INVALID_ARG);
    m.cells = NULL, m.cell_capacity = 0;
    cr_expect_eq(ptl_query_move_along_surface(q, (float[3]){50, 0, 50}, (float[3]){1, 0, 1}, NULL, &m), PTL_ERR_NOT_FOUND);
    cr_expect_eq(m.end_cell, PTL_NONE);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

/* ---- 3D: the shared meshes with Detour's inputs ------------------------------------------------ */

/* Reads Detour's move inputs (sx..ez) of `mesh`; returns the count (at most cap). */
static uint32_t read_moves(const char* data, const char* mesh, float (*rows)[6], uint32_t cap) {
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/expected/detour_queries/%s_move_along_surface.csv", data, mesh);
    FILE* f = fopen(path, "r");
    cr_assert(f, "%s", path);
    uint32_t n = 0;
    cr_assert(fgets(line, sizeof line, f));
    while (n < cap && fgets(line, sizeof line, f)) {
        unsigned idx;
        float* r = rows[n];
        if (sscanf(line, "%u,%f,%f,%f,%f,%f,%f", &idx, &r[0], &r[1], &r[2], &r[3], &r[4], &r[5]) == 7) ++n;
    }
    fclose(f);
    return n;
}

Test(move, on_the_shared_meshes_ends_on_the_surface_never_farther, .timeout = 240) {
    TEST_REQUIRE_DATA(data);
    const char* meshes[] = {"dungeon", "nav_test", "undulating"};
    static float rows[4096][6];
    for (size_t mi = 0; mi < 3; ++mi) {
        char path[1024];
        snprintf(path, sizeof path, "%s/meshes/%s.obj", data, meshes[mi]);
        ptl_trimesh tm;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(path, NULL, &tm, &err), PTL_OK, "%s", err.message);
        void* blob;
        size_t size;
        ptl_bake_desc bd = ptl_bake_desc_defaults();
        bd.agent_radius = 0.6f;
        cr_assert_eq(ptl_bake_trimesh(&tm, &bd, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
        ptl_navmesh* nm;
        cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
        ptl_query* q = make_query(nm);
        uint32_t n = read_moves(data, meshes[mi], rows, 4096), done = 0, slid = 0, linked = 0, heights = 0, off = 0;
        ptl_navmesh_info info;
        ptl_navmesh_get_info(nm, &info);
        uint32_t cells[1024];
        double worst = 0, err_sum = 0, base_sum = 0;
        uint32_t within = 0, base_within = 0;
        for (uint32_t i = 0; i < n; ++i) {
            const float* r = rows[i];
            ptl_move_result m = {.cells = cells, .cell_capacity = 1024};
            ptl_status st = ptl_query_move_along_surface(q, r, r + 3, NULL, &m);
            if (st == PTL_ERR_NOT_FOUND) continue;
            cr_assert_eq(st, PTL_OK, "%s row %u: %s", meshes[mi], i, ptl_status_name(st));
            ++done, slid += m.blocked;
            check_chain(nm, &m, cells, 1024);
            for (uint32_t k = 0; k < m.cell_count; ++k) {
                ptl_cell_view v;
                ptl_navmesh_get_cell(nm, cells[k], &v);
                linked += v.link != PTL_NONE;
            }
            /* never farther in plan than the located start */
            ptl_location s;
            cr_assert_eq(ptl_query_locate(q, r, NULL, &s), PTL_OK);
            double d0 = hypot(r[3] - s.point[0], r[5] - s.point[2]), d = hypot(r[3] - m.point[0], r[5] - m.point[2]);
            cr_assert_leq(d, d0 + 1e-4, "%s row %u: end %.5f from the target, start %.5f", meshes[mi], i, d, d0);
            /* on the mesh, at the height of its cell's surface there */
            float y;
            cr_assert_eq(ptl_query_height(q, m.end_cell, m.point[0], m.point[2], &y), PTL_OK, "%s row %u", meshes[mi], i);
            cr_assert_eq(y, m.point[1]);
            /* an agent that knows its cell (the located start's) moves the same way without locating;
               from the end, knowing the end cell, a move back to the start keeps to that floor */
            ptl_move_result mi2 = {0};
            cr_assert_eq(ptl_query_move_along_surface_in(q, s.cell, s.point, r + 3, &mi2), PTL_OK);
            cr_assert(mi2.end_cell == m.end_cell && fabsf(mi2.point[0] - m.point[0]) < 1e-4f &&
                          fabsf(mi2.point[2] - m.point[2]) < 1e-4f,
                      "%s row %u: with the start's cell, ended at (%g, %g) in %u, not (%g, %g) in %u", meshes[mi], i,
                      mi2.point[0], mi2.point[2], mi2.end_cell, m.point[0], m.point[2], m.end_cell);
            ptl_move_result back = {0};
            cr_assert_eq(ptl_query_move_along_surface_in(q, m.end_cell, m.point, s.point, &back), PTL_OK);
            cr_assert_eq(back.start_cell, m.end_cell, "%s row %u: the move back starts in the cell the move ended in", meshes[mi], i);
            /* a cell that does not hold the start: located instead */
            ptl_move_result wrong = {0};
            uint32_t other = (s.cell + 1) % info.cell_count;
            cr_assert_eq(ptl_query_move_along_surface_in(q, other, r, r + 3, &wrong), PTL_OK);
            float oy;
            if (ptl_query_height(q, other, r[0], r[2], &oy) == PTL_ERR_NOT_FOUND) /* the cell does not hold the start */
                cr_assert(wrong.end_cell == m.end_cell && wrong.start_cell == m.start_cell && wrong.point[0] == m.point[0] &&
                              wrong.point[1] == m.point[1] && wrong.point[2] == m.point[2] && wrong.blocked == m.blocked,
                          "%s row %u: a cell that does not hold the start moves as the located call", meshes[mi], i);
            /* the input surface (undulating has one layer: the triangle under the point) */
            double h;
            if (mi == 2 && test_triangle_height(&tm, m.point[0], m.point[2], &h)) {
                double e = m.point[1] - h, above = nm->h->vox_cs * sqrt(2.0) + nm->h->vox_ch + 1e-3;
                worst = fmax(worst, fabs(e));
                err_sum += fabs(e), within += fabs(e) <= nm->h->vox_ch + 1e-4;
                double eb = ptl_query_cell_y(nm, m.end_cell, m.point[0], m.point[2]) - h;
                base_sum += fabs(eb), base_within += fabs(eb) <= nm->h->vox_ch + 1e-4;
                cr_assert(e <= 0.9 && -e <= nm->h->vox_ch + 1e-3, "undulating row %u: end height %.3f, surface %.3f", i,
                          m.point[1], h);
                off += e > above;
                ++heights;
            }
        }
        fprintf(stderr, "move: %-10s %u of %u moves, %u slid, %u link cells crossed; heights: %u checked, worst %.3f, %u above a column's rise, "
                "mean error %.3f, %u within a cell height (column tops: %.3f, %u)\n",
                meshes[mi], done, n, slid, linked, heights, worst, off, heights ? err_sum / heights : 0, within,
                heights ? base_sum / heights : 0, base_within);
        cr_assert_gt(done, n / 2);
        if (mi == 2) cr_assert(heights > done / 2 && off <= heights / 100 && within >= heights * 99 / 100, "%u of %u heights within a cell height",
                               within, heights);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
        ptl_trimesh_free(&tm);
    }
}

/* ---- Heights and cells in a box ---------------------------------------------------------------- */

/* The height at a cell's centroid: never above the top of the point's column (ptl_query_locate's
   height), at most one voxel height below the least top of the four columns around it; at random
   points, against the terrain's own triangles within one voxel height at 90% of them (2873 of 2882;
   the column tops alone: about half). */
Test(move, height_follows_the_input_surface_inside_a_cell_and_is_refused_outside) {
    ptl_scene_desc d = {.kind = PTL_SCENE_TERRAIN, .size = 30, .seed = 3};
    ptl_trimesh tm;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&d, &tm, &err), PTL_OK, "%s", err.message);
    void* blob;
    size_t size;
    cr_assert_eq(ptl_bake_trimesh(&tm, NULL, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    ptl_query* q = make_query(nm);
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    uint32_t checked = 0, within = 0;
    for (uint32_t c = 0; c < info.cell_count; ++c) {
        float ctr[3], y;
        cr_assert_eq(ptl_navmesh_cell_centroid(nm, c, ctr), PTL_OK);
        cr_assert_eq(ptl_query_height(q, c, ctr[0], ctr[2], &y), PTL_OK);
        float top = ptl_query_cell_y(nm, c, ctr[0], ctr[2]);
        /* the least top of the four columns whose centres surround the point (on a slope the
           surface falls below the own column's top by up to the column's rise) */
        const double cs = nm->h->vox_cs, u = (ctr[0] - nm->h->vox_origin[0]) / cs - 0.5, w = (ctr[2] - nm->h->vox_origin[2]) / cs - 0.5;
        float least = top;
        for (int k = 0; k < 4; ++k) {
            float f;
            double px = nm->h->vox_origin[0] + (floor(u) + (k & 1) + 0.5) * cs, pz = nm->h->vox_origin[2] + (floor(w) + (k >> 1) + 0.5) * cs;
            if (ptl_nm_cell_floor(nm, c, px, pz, &f)) least = fminf(least, f);
        }
        cr_assert(y <= top && y >= least - nm->h->vox_ch - 1e-4f, "cell %u: height %.4f, column top %.4f, least of four %.4f", c, y,
                  top, least);

        /* far outside the cell */
        cr_assert_eq(ptl_query_height(q, c, info.bmax[0] + 10, ctr[2], &y), PTL_ERR_NOT_FOUND);
    }
    uint64_t st = 5;
    for (int i = 0; i < 3000; ++i) {
        float p[3] = {info.bmin[0] + (info.bmax[0] - info.bmin[0]) * (float)rng_int(&st, 0, 1000) / 1000, 0,
                      info.bmin[2] + (info.bmax[2] - info.bmin[2]) * (float)rng_int(&st, 0, 1000) / 1000};
        double h;
        if (!test_triangle_height(&tm, p[0], p[2], &h)) continue;
        p[1] = (float)h;
        ptl_location loc;
        float y;
        if (ptl_query_locate(q, p, (float[3]){1e-3f, 1, 1e-3f}, &loc) != PTL_OK || loc.point[0] != p[0] || loc.point[2] != p[2]) continue;
        cr_assert_eq(ptl_query_height(q, loc.cell, p[0], p[2], &y), PTL_OK);
        ++checked, within += fabs(y - h) <= nm->h->vox_ch + 1e-4;
    }
    fprintf(stderr, "move: terrain heights at %u points, %u within a voxel height of the triangles\n", checked, within);
    cr_assert(checked > 1000 && within >= checked * 90 / 100, "%u of %u", within, checked);
    float y;
    cr_expect_eq(ptl_query_height(q, info.cell_count, 0, 0, &y), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_height(q, 0, NAN, 0, &y), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_height(q, 0, 0, 0, NULL), PTL_ERR_INVALID_ARG);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    ptl_trimesh_free(&tm);
}

/* Does convex polygon (ccw) p meet the box, closed? Brute force: a polygon vertex in the box, a box
   corner in the polygon, or an edge crossing a box side. */
static bool seg_meet(double ax, double ay, double bx, double by, double cx, double cy, double dx, double dy) {
    double o1 = orient(ax, ay, bx, by, cx, cy), o2 = orient(ax, ay, bx, by, dx, dy);
    double o3 = orient(cx, cy, dx, dy, ax, ay), o4 = orient(cx, cy, dx, dy, bx, by);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) return true;
    return (o1 == 0 && fmin(ax, bx) <= cx && cx <= fmax(ax, bx) && fmin(ay, by) <= cy && cy <= fmax(ay, by)) ||
           (o2 == 0 && fmin(ax, bx) <= dx && dx <= fmax(ax, bx) && fmin(ay, by) <= dy && dy <= fmax(ay, by)) ||
           (o3 == 0 && fmin(cx, dx) <= ax && ax <= fmax(cx, dx) && fmin(cy, dy) <= ay && ay <= fmax(cy, dy)) ||
           (o4 == 0 && fmin(cx, dx) <= bx && bx <= fmax(cx, dx) && fmin(cy, dy) <= by && by <= fmax(cy, dy));
}

static bool brute_meets(const ptl_navmesh* nm, uint32_t c, double x0, double x1, double z0, double z1) {
    ptl_cell_view v;
    ptl_navmesh_get_cell(nm, c, &v);
    const double bx[4] = {x0, x1, x1, x0}, bz[4] = {z0, z0, z1, z1};
    for (uint32_t i = 0; i < v.vert_count; ++i) {
        const float* p = ptl_navmesh_vert(nm, v.verts[i]);
        if (p[0] >= x0 && p[0] <= x1 && p[2] >= z0 && p[2] <= z1) return true;
    }
    for (int k = 0; k < 4; ++k) {
        bool in = true;
        for (uint32_t i = 0; i < v.vert_count && in; ++i) {
            const float* a = ptl_navmesh_vert(nm, v.verts[i]);
            const float* b = ptl_navmesh_vert(nm, v.verts[(i + 1) % v.vert_count]);
            in = orient(a[0], a[2], b[0], b[2], bx[k], bz[k]) >= 0;
        }
        if (in) return true;
    }
    for (uint32_t i = 0; i < v.vert_count; ++i) {
        const float* a = ptl_navmesh_vert(nm, v.verts[i]);
        const float* b = ptl_navmesh_vert(nm, v.verts[(i + 1) % v.vert_count]);
        for (int k = 0; k < 4; ++k)
            if (seg_meet(a[0], a[2], b[0], b[2], bx[k], bz[k], bx[(k + 1) % 4], bz[(k + 1) % 4])) return true;
    }
    return false;
}

Test(move, cells_in_box_match_brute_force_on_grids_and_rooms, .timeout = 120) {
    uint32_t total = 0;
    for (int k = 0; k < 8; ++k) {
        ptl_grid g;
        test_shape room;
        ptl_shape s;
        ptl_navmesh* nm;
        if (k % 2) {
            s = grid_shape(6000 + (uint64_t)k, 24, 24, 25, &g);
            nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
        } else {
            random_room(&room, 7000 + (uint64_t)k);
            nm = bake_test_shape(&room, 0);
        }
        ptl_query* q = make_query(nm);
        ptl_navmesh_info info;
        ptl_navmesh_get_info(nm, &info);
        uint64_t st = 99 + (uint64_t)k;
        static uint32_t cells[4096];
        static unsigned char mark[1 << 16];
        for (int i = 0; i < 200; ++i) {
            /* boxes with sides on the lattice (touching cells along edges and at corners) and off it */
            double x0 = rng_int(&st, -8, 168) / 4.0, z0 = rng_int(&st, -8, 168) / 4.0;
            double x1 = x0 + rng_int(&st, 0, 24) / 4.0, z1 = z0 + rng_int(&st, 0, 24) / 4.0;
            uint32_t n;
            cr_assert_eq(ptl_query_cells_in_box(q, (float[3]){(float)x0, -1, (float)z0}, (float[3]){(float)x1, 1, (float)z1},
                                                cells, 4096, &n),
                         PTL_OK);
            memset(mark, 0, info.cell_count);
            for (uint32_t j = 0; j < n; ++j) {
                cr_assert_eq(mark[cells[j]], 0, "cell %u twice", cells[j]);
                mark[cells[j]] = 1;
            }
            for (uint32_t c = 0; c < info.cell_count; ++c)
                cr_assert_eq(mark[c], brute_meets(nm, c, x0, x1, z0, z1), "map %d box [%g, %g] x [%g, %g]: cell %u", k, x0, x1,
                             z0, z1, c);
            total += n;
            /* above the floor: none */
            cr_assert_eq(ptl_query_cells_in_box(q, (float[3]){(float)x0, 1, (float)z0}, (float[3]){(float)x1, 2, (float)z1},
                                                cells, 4096, &n),
                         PTL_OK);
            cr_assert_eq(n, 0u);
        }
        uint32_t n;
        cr_assert_eq(ptl_query_cells_in_box(q, (float[3]){-100, -1, -100}, (float[3]){100, 1, 100}, cells, 1, &n), PTL_TRUNCATED);
        cr_assert_eq(n, info.cell_count);
        cr_expect_eq(ptl_query_cells_in_box(q, (float[3]){1, 0, 1}, (float[3]){0, 0, 2}, cells, 1, &n), PTL_ERR_INVALID_ARG);
        cr_expect_eq(ptl_query_cells_in_box(q, (float[3]){0, 0, 0}, (float[3]){1, NAN, 1}, cells, 1, &n), PTL_ERR_INVALID_ARG);
        cr_expect_eq(ptl_query_cells_in_box(q, (float[3]){0, 0, 0}, (float[3]){1, 1, 1}, NULL, 1, &n), PTL_ERR_INVALID_ARG);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        if (k % 2) {
            ptl_shape_free(&s);
            ptl_grid_free(&g);
        }
    }
    cr_assert_gt(total, 1000u);
}

/* ---- Links and layers ------------------------------------------------------------------------- */

Test(move, crosses_a_link_between_slabs_and_keeps_its_layer_under_a_bridge_deck) {
    for (int step = 0; step < 2; ++step) {
        /* two slabs 2 m up with a 0.5 m crack (a walk link), or the second 0.6 m higher (a step link) */
        float rise = step ? 0.6f : 0;
        mesh_builder* b = calloc(1, sizeof *b);
        box(b, -1, -0.2f, -1, 10, 0, 5);
        box(b, 0, 1.8f, 0, 4, 2, 4);
        box(b, 4.5f, 1.8f + rise, 0, 8.5f, 2 + rise, 4);
        ptl_trimesh tm = as_trimesh(b);
        void* blob;
        size_t size;
        ptl_error err;
        cr_assert_eq(ptl_bake_trimesh(&tm, NULL, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
        ptl_navmesh* nm;
        cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
        ptl_query* q = make_query(nm);
        uint32_t cells[64];
        ptl_move_result m = {.cells = cells, .cell_capacity = 64};
        cr_assert_eq(ptl_query_move_along_surface(q, (float[3]){1.5f, 2, 2}, (float[3]){7, 2 + rise, 2}, NULL, &m), PTL_OK);
        bool link = false;
        for (uint32_t k = 0; k < m.cell_count; ++k) {
            ptl_cell_view v;
            ptl_navmesh_get_cell(nm, cells[k], &v);
            link |= v.link != PTL_NONE;
        }
        cr_expect(!m.blocked && link && m.point[0] == 7 && m.point[2] == 2, "rise %g: blocked %d, link %d, end (%g, %g)", rise,
                  m.blocked, link, m.point[0], m.point[2]);
        cr_expect(fabsf(m.point[1] - (2 + rise)) <= 0.2f + 1e-3f, "rise %g: end height %.3f", rise, m.point[1]);
        /* past the slab's far end (x 8.5): slides to its edge, on the slab, not down to the ground */
        cr_assert_eq(ptl_query_move_along_surface(q, (float[3]){1.5f, 2, 2}, (float[3]){12, 2 + rise, 2}, NULL, &m), PTL_OK);
        cr_expect(m.blocked && m.point[0] < 8.6f && m.point[0] > 7.5f && fabsf(m.point[1] - (2 + rise)) <= 0.2f + 1e-3f,
                  "rise %g: end (%g, %g, %g)", rise, m.point[0], m.point[1], m.point[2]);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
        free(b);
    }
    /* the bridge scene: a deck over a floor; short moves from every cell keep to its layer */
    ptl_scene_desc d = {.kind = PTL_SCENE_BRIDGE, .seed = 1};
    ptl_trimesh tm;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&d, &tm, &err), PTL_OK, "%s", err.message);
    void* blob;
    size_t size;
    cr_assert_eq(ptl_bake_trimesh(&tm, NULL, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    ptl_query* q = make_query(nm);
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    cr_assert_gt(info.layer_count, 1u);
    uint32_t moved = 0;
    for (uint32_t c = 0; c < info.cell_count; ++c) {
        float p[3];
        ptl_navmesh_cell_centroid(nm, c, p);
        ptl_location loc;
        if (ptl_query_locate(q, p, (float[3]){1e-3f, 0.1f, 1e-3f}, &loc) != PTL_OK || loc.cell != c) continue;
        for (int k = 0; k < 8; ++k) {
            float t[3] = {loc.point[0] + 0.4f * cosf(k * 0.785f), loc.point[1], loc.point[2] + 0.4f * sinf(k * 0.785f)};
            ptl_move_result m;
            memset(&m, 0, sizeof m);
            cr_assert_eq(ptl_query_move_along_surface(q, loc.point, t, (float[3]){1e-3f, 0.1f, 1e-3f}, &m), PTL_OK);
            cr_expect_leq(fabsf(m.point[1] - loc.point[1]), 0.9f + 0.4f, "cell %u: a 0.4 m move from height %.3f ends at %.3f",
                          c, loc.point[1], m.point[1]);
            ++moved;
        }
    }
    cr_assert_gt(moved, 100u);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    ptl_trimesh_free(&tm);
}
