/* Random points (runtime/random.c): every point on the mesh, inside the circle and reachable when
   asked; uniform by surface area (chi-square over 100,000 draws against areas this file computes
   itself from the cells' polygons and, on a sloped scene, from the input triangles under them);
   the same state gives the same points on any thread. */
#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_builder.h"
#include "query_reference.h"

enum { DRAWS = 100000 };
static const double PI = 3.14159265358979323846;

/* ---- Statistics ---------------------------------------------------------------------------------*/

/* Upper tail of the chi-square distribution with k degrees of freedom (Wilson and Hilferty 1931:
   (X / k)^(1/3) is close to normal), ample for thresholds of 1e-3. */
static double chi2_p(double x, double k) {
    double m = 1 - 2 / (9 * k), sd = sqrt(2 / (9 * k));
    return 0.5 * erfc((cbrt(x / k) - m) / sd / sqrt(2.0));
}

/* Chi-square of counts against expected weights (bins with an expected count under 5 pooled into
   one); writes the degrees of freedom. */
static double chi2(const uint32_t* count, const double* weight, uint32_t n, double* dof) {
    double total = 0, draws = 0;
    for (uint32_t i = 0; i < n; ++i) total += weight[i], draws += count[i];
    double x = 0, pool_e = 0, pool_o = 0;
    uint32_t bins = 0;
    for (uint32_t i = 0; i < n; ++i) {
        double e = draws * weight[i] / total;
        if (e < 5) {
            pool_e += e, pool_o += count[i];
            continue;
        }
        x += (count[i] - e) * (count[i] - e) / e, ++bins;
    }
    if (pool_e > 0) x += (pool_o - pool_e) * (pool_o - pool_e) / fmax(pool_e, 1e-300), ++bins;
    *dof = bins > 1 ? bins - 1 : 1;
    return x;
}

/* ---- Geometry, from the definitions -------------------------------------------------------------*/

typedef struct poly {
    double x[300], z[300];
    uint32_t n;
} poly;

static void cell_poly(const ptl_navmesh* nm, uint32_t c, poly* p) {
    ptl_cell_view v;
    cr_assert_eq(ptl_navmesh_get_cell(nm, c, &v), PTL_OK);
    cr_assert_leq(v.vert_count, 290);
    p->n = v.vert_count;
    for (uint32_t i = 0; i < v.vert_count; ++i) {
        const float* q = ptl_navmesh_vert(nm, v.verts[i]);
        p->x[i] = q[0], p->z[i] = q[2];
    }
}

static double area(const poly* p) {
    double s = 0;
    for (uint32_t i = 0; i < p->n; ++i) {
        uint32_t j = (i + 1) % p->n;
        s += p->x[i] * p->z[j] - p->x[j] * p->z[i];
    }
    return 0.5 * fabs(s);
}

/* p clipped to the left of a -> b (Sutherland-Hodgman). */
static void clip(poly* p, double ax, double az, double bx, double bz) {
    poly o = {.n = 0};
    for (uint32_t i = 0; i < p->n; ++i) {
        uint32_t j = (i + 1) % p->n;
        double si = (bx - ax) * (p->z[i] - az) - (bz - az) * (p->x[i] - ax);
        double sj = (bx - ax) * (p->z[j] - az) - (bz - az) * (p->x[j] - ax);
        if (si >= 0) o.x[o.n] = p->x[i], o.z[o.n] = p->z[i], ++o.n;
        if ((si >= 0) != (sj >= 0)) {
            double t = si / (si - sj);
            o.x[o.n] = p->x[i] + t * (p->x[j] - p->x[i]), o.z[o.n] = p->z[i] + t * (p->z[j] - p->z[i]), ++o.n;
        }
    }
    *p = o;
}

static double true_surface_of(const poly* cell, const ptl_trimesh* m);
/* The 3D area of the input triangles of m over cell c's polygon: each triangle's plan overlap with
   the cell times its secant. Only upward triangles (the walkable ones; this scene has no others). */
static double true_surface(const ptl_navmesh* nm, uint32_t c, const ptl_trimesh* m) {
    poly cell;
    cell_poly(nm, c, &cell);
    return true_surface_of(&cell, m);
}

/* The same over any convex polygon. */
static double true_surface_of(const poly* cell, const ptl_trimesh* m) {
    double sum = 0;
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        const float* a = &m->verts[3 * (size_t)m->tris[3 * t]];
        const float* b = &m->verts[3 * (size_t)m->tris[3 * t + 1]];
        const float* d = &m->verts[3 * (size_t)m->tris[3 * t + 2]];
        double ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2], vx = d[0] - a[0], vy = d[1] - a[1], vz = d[2] - a[2];
        double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        if (ny <= 0) continue; /* clockwise in plan seen from above: facing up (y up, z toward the viewer) */
        poly p = *cell;
        /* the triangle counter-clockwise in the (x, z) plane: a, d, b */
        clip(&p, a[0], a[2], d[0], d[2]);
        clip(&p, d[0], d[2], b[0], b[2]);
        clip(&p, b[0], b[2], a[0], a[2]);
        if (p.n >= 3) sum += area(&p) * sqrt(nx * nx + ny * ny + nz * nz) / ny;
    }
    return sum;
}

static bool is_link(const ptl_navmesh* nm, uint32_t c) {
    ptl_cell_view v;
    ptl_navmesh_get_cell(nm, c, &v);
    return v.link != PTL_NONE;
}

/* Draws DRAWS points, checks each is on the mesh (located at distance ~0 with its height), and
   counts them per cell. */
static void draw_counts(const ptl_navmesh* nm, ptl_query* q, uint64_t seed, uint32_t* count) {
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    memset(count, 0, info.cell_count * sizeof *count);
    uint64_t st = seed;
    const float ext[3] = {0.01f, 1, 0.01f};
    for (int i = 0; i < DRAWS; ++i) {
        ptl_location l;
        cr_assert_eq(ptl_query_random_point(q, &st, &l), PTL_OK);
        cr_assert_lt(l.cell, info.cell_count);
        ++count[l.cell];
        if (i % 10) continue; /* locate every tenth */
        ptl_location back;
        cr_assert_eq(ptl_query_locate(q, l.point, ext, &back), PTL_OK);
        cr_assert_lt(back.distance, 1e-4, "point %d (%g, %g, %g) located %g away", i, l.point[0], l.point[1], l.point[2],
                     back.distance);
        cr_assert(fabsf(back.point[1] - l.point[1]) < 1e-4f, "point %d: height %g, located %g", i, l.point[1], back.point[1]);
    }
}

/* ---- 2D: grid maps, cells of very different sizes -----------------------------------------------*/

Test(random, points_are_on_the_mesh_and_uniform_by_area_on_grid_maps, .timeout = 120) {
    for (uint64_t seed = 1; seed <= 2; ++seed) {
        ptl_grid g;
        ptl_shape s = grid_shape(7100 + seed, 24, 24, 22, &g);
        ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
        ptl_query* q = make_query(nm);
        ptl_navmesh_info info;
        ptl_navmesh_get_info(nm, &info);
        uint32_t* count = calloc(info.cell_count, sizeof *count);
        double* w = calloc(info.cell_count, sizeof *w);
        double lo = INFINITY, hi = 0;
        for (uint32_t c = 0; c < info.cell_count; ++c) {
            poly p;
            cell_poly(nm, c, &p);
            w[c] = is_link(nm, c) ? 0 : area(&p);
            if (w[c] > 0) lo = fmin(lo, w[c]), hi = fmax(hi, w[c]);
            cr_assert(fabs(ptl_query_cell_surface_area(q, c) - w[c]) < 1e-9 * (1 + w[c]));
        }
        draw_counts(nm, q, seed * 977, count);
        /* every point in free space (every tenth checked above for location; here all of them) */
        uint64_t st = seed * 977;
        for (int i = 0; i < 2000; ++i) {
            ptl_location l;
            ptl_query_random_point(q, &st, &l);
            cr_assert(in_free_space(&s, l.point[0], l.point[2]) || fmin(fabs(l.point[0] - roundf(l.point[0])),
                                                                       fabs(l.point[2] - roundf(l.point[2]))) < 1e-5);
        }
        double dof, x = chi2(count, w, info.cell_count, &dof), p = chi2_p(x, dof);
        fprintf(stderr, "random: grid %lu: %u cells, areas %.2f .. %.2f, chi-square %.1f on %.0f dof, p %.3f\n",
                (unsigned long)seed, info.cell_count, lo, hi, x, dof, p);
        cr_assert_gt(hi / lo, 10, "cells of very different sizes");
        cr_assert_gt(p, 1e-3, "grid %lu: chi-square %.1f on %.0f dof", (unsigned long)seed, x, dof);
        free(count), free(w);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_shape_free(&s);
        ptl_grid_free(&g);
    }
}

/* ---- 3D: slopes ----------------------------------------------------------------------------------*/

/* A quad [x0, x1] x [z0, z1] rising linearly from y0 at x0 to y1 at x1, facing up. */
static void ramp_quad(mesh_builder* b, float x0, float z0, float x1, float z1, float y0, float y1) {
    uint32_t a = vert(b, x0, y0, z0), c = vert(b, x0, y0, z1), d = vert(b, x1, y1, z1), e = vert(b, x1, y1, z0);
    tri(b, a, c, d);
    tri(b, a, d, e);
}
/* Likewise rising along z, from y0 at z0 to y1 at z1. */
static void ramp_quad_z(mesh_builder* b, float x0, float z0, float x1, float z1, float y0, float y1) {
    uint32_t a = vert(b, x0, y0, z0), c = vert(b, x0, y1, z1), d = vert(b, x1, y1, z1), e = vert(b, x1, y0, z0);
    tri(b, a, c, d);
    tri(b, a, d, e);
}

Test(random, points_are_uniform_by_surface_area_not_plan_area_on_slopes, .timeout = 120) {
    /* a floor, a ramp of 35 degrees up to a landing, a gentler ramp of 20 degrees up from the
       floor's other side (no step anywhere: the surface is continuous) */
    mesh_builder* b = calloc(1, sizeof *b);
    const float t35 = tanf(35 * (float)PI / 180), t20 = tanf(20 * (float)PI / 180);
    floor_quad(b, 0, 0, 8, 8, 0);
    ramp_quad(b, 8, 0, 14, 8, 0, 6 * t35);
    floor_quad(b, 14, 0, 20, 8, 6 * t35);
    ramp_quad_z(b, 0, 8, 8, 18, 0, 10 * t20);
    ptl_trimesh m = as_trimesh(b);
    ptl_error err;
    void* blob;
    size_t size;
    cr_assert_eq(ptl_bake_trimesh(&m, NULL, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    ptl_query* q = make_query(nm);
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    uint32_t* count = calloc(info.cell_count, sizeof *count);
    double *surf = calloc(info.cell_count, sizeof *surf), *plan = calloc(info.cell_count, sizeof *plan);
    double sum_true = 0, sum_ours = 0, sum_plan = 0, worst = 0;
    for (uint32_t c = 0; c < info.cell_count; ++c) {
        if (is_link(nm, c)) continue;
        poly p;
        cell_poly(nm, c, &p);
        plan[c] = area(&p), surf[c] = true_surface(nm, c, &m);
        double ours = ptl_query_cell_surface_area(q, c);
        sum_true += surf[c], sum_ours += ours, sum_plan += plan[c];
        worst = fmax(worst, fabs(ours - surf[c]) / surf[c]);
    }
    fprintf(stderr, "random: slopes: %u cells, plan %.2f, surface %.2f (the input's), %.2f (the navmesh's), worst cell %.2f%%\n",
            info.cell_count, sum_plan, sum_true, sum_ours, 100 * worst);
    cr_assert_lt(fabs(sum_ours - sum_true), 0.01 * sum_true, "surface %.3f, the input's %.3f", sum_ours, sum_true);
    draw_counts(nm, q, 4242, count);
    double dof, x = chi2(count, surf, info.cell_count, &dof), p = chi2_p(x, dof);
    double dof_plan, x_plan = chi2(count, plan, info.cell_count, &dof_plan), p_plan = chi2_p(x_plan, dof_plan);
    fprintf(stderr, "random: slopes: by surface chi-square %.1f on %.0f dof (p %.3f); by plan area %.1f (p %.2g)\n", x, dof,
            p, x_plan, p_plan);
    cr_assert_gt(p, 1e-3, "by surface: chi-square %.1f on %.0f dof", x, dof);
    cr_assert_lt(p_plan, 1e-6, "plan-area weighting should fail here: chi-square %.1f on %.0f dof", x_plan, dof_plan);
    /* within the cells: bins of 1 x 1 in plan, each expecting the input's surface over its part of
       the cells (and, for the counter-check, its plan area there) */
    enum { NX = 20, NZ = 18 };
    static uint32_t sq[NX * NZ];
    static double sq_surf[NX * NZ], sq_plan[NX * NZ];
    memset(sq, 0, sizeof sq);
    for (uint32_t c = 0; c < info.cell_count; ++c) {
        if (is_link(nm, c)) continue;
        for (int z = 0; z < NZ; ++z)
            for (int x = 0; x < NX; ++x) {
                poly p;
                cell_poly(nm, c, &p);
                clip(&p, x, z, x + 1, z), clip(&p, x + 1, z, x + 1, z + 1), clip(&p, x + 1, z + 1, x, z + 1), clip(&p, x, z + 1, x, z);
                if (p.n < 3) continue;
                sq_surf[z * NX + x] += true_surface_of(&p, &m), sq_plan[z * NX + x] += area(&p);
            }
    }
    uint64_t st = 77;
    for (int i = 0; i < DRAWS; ++i) {
        ptl_location l;
        ptl_query_random_point(q, &st, &l);
        int x = (int)floorf(l.point[0]), z = (int)floorf(l.point[2]);
        cr_assert(x >= 0 && z >= 0 && x < NX && z < NZ);
        ++sq[z * NX + x];
    }
    x = chi2(sq, sq_surf, NX * NZ, &dof), p = chi2_p(x, dof);
    x_plan = chi2(sq, sq_plan, NX * NZ, &dof_plan), p_plan = chi2_p(x_plan, dof_plan);
    fprintf(stderr, "random: slopes, squares of 1 x 1: by surface chi-square %.1f on %.0f dof (p %.3f); by plan area %.1f (p %.2g)\n",
            x, dof, p, x_plan, p_plan);
    cr_assert_gt(p, 1e-3, "squares by surface: chi-square %.1f on %.0f dof", x, dof);
    cr_assert_lt(p_plan, 1e-6, "squares by plan area should fail: chi-square %.1f on %.0f dof", x_plan, dof_plan);
    free(count), free(surf), free(plan), free(b);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
}

/* ---- Circles -------------------------------------------------------------------------------------*/

Test(random, points_in_a_circle_are_inside_it_reachable_and_uniform, .timeout = 120) {
    ptl_grid g;
    ptl_shape s = grid_shape(7301, 24, 24, 25, &g);
    ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
    ptl_query* q = make_query(nm);
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    uint32_t* reach = malloc(info.cell_count * sizeof *reach);
    uint8_t* in_list = malloc(info.cell_count);
    uint64_t pick = 99;
    int circles = 0;
    double worst_p = 1;
    for (int k = 0; k < 40 && circles < 4; ++k) {
        double cx, cz;
        random_free_point(&s, &pick, &cx, &cz);
        const float centre[3] = {(float)cx, 0, (float)cz}, r = 4.5f;
        uint32_t n;
        cr_assert_eq(ptl_query_cells_in_circle(q, centre, NULL, r, reach, info.cell_count, &n), PTL_OK);
        memset(in_list, 0, info.cell_count);
        for (uint32_t i = 0; i < n; ++i) in_list[reach[i]] = 1;
        /* bins: the free unit squares wholly inside the circle whose cell is reachable */
        uint32_t counts[400] = {0}, bins = 0, hits = 0;
        int bx[400], bz[400];
        for (int z = 0; z < 24; ++z)
            for (int x = 0; x < 24; ++x) {
                if (!grid_free(&g, x, z) || bins == 400) continue;
                bool inside = true;
                for (int cnr = 0; cnr < 4; ++cnr)
                    inside &= hypot(x + (cnr & 1) - cx, z + (cnr >> 1) - cz) <= r;
                ptl_location l;
                const float mid[3] = {x + 0.5f, 0, z + 0.5f}, ext[3] = {0.01f, 1, 0.01f};
                if (!inside || ptl_query_locate(q, mid, ext, &l) != PTL_OK || !in_list[l.cell]) continue;
                bx[bins] = x, bz[bins] = z, ++bins;
            }
        if (bins < 10) continue;
        ++circles;
        uint64_t st = 1000 + k;
        const int draws = DRAWS / 4;
        for (int i = 0; i < draws; ++i) {
            ptl_location l;
            cr_assert_eq(ptl_query_random_point_in_circle(q, centre, NULL, r, &st, &l), PTL_OK);
            cr_assert_leq(hypot(l.point[0] - cx, l.point[2] - cz), r * (1 + 1e-6));
            cr_assert(in_list[l.cell], "cell %u not reachable within the circle", l.cell);
            cr_assert(in_free_space(&s, l.point[0], l.point[2]) || fmin(fabs(l.point[0] - roundf(l.point[0])),
                                                                       fabs(l.point[2] - roundf(l.point[2]))) < 1e-5);
            for (uint32_t j = 0; j < bins; ++j)
                if (floorf(l.point[0]) == bx[j] && floorf(l.point[2]) == bz[j]) ++counts[j], ++hits;
        }
        double ones[400];
        for (uint32_t j = 0; j < bins; ++j) ones[j] = 1;
        double dof, x = chi2(counts, ones, bins, &dof), p = chi2_p(x, dof);
        worst_p = fmin(worst_p, p);
        cr_assert_gt(p, 1e-3, "circle at (%g, %g): chi-square %.1f on %.0f dof over %u squares", cx, cz, x, dof, bins);
        /* the squares' share of the draws: their area over the reachable area in the disc, at least
           their count over the disc's */
        cr_assert_gt(hits, (uint32_t)(draws * bins / (PI * r * r) * 0.9));
    }
    fprintf(stderr, "random: %d circles, least p %.3f\n", circles, worst_p);
    cr_assert_geq(circles, 3);
    /* radius 0: the centre; bad input */
    uint64_t st = 5;
    ptl_location l;
    double cx, cz;
    random_free_point(&s, &pick, &cx, &cz);
    const float centre[3] = {(float)cx, 0, (float)cz};
    cr_assert_eq(ptl_query_random_point_in_circle(q, centre, NULL, 0, &st, &l), PTL_OK);
    cr_assert(l.point[0] == centre[0] && l.point[2] == centre[2]);
    cr_assert_eq(ptl_query_random_point_in_circle(q, centre, NULL, -1, &st, &l), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_random_point_in_circle(q, centre, NULL, NAN, &st, &l), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_random_point_in_circle(q, centre, NULL, 1, NULL, &l), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_random_point(q, NULL, &l), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_query_random_point(NULL, &st, &l), PTL_ERR_INVALID_ARG);
    const float far[3] = {-100, 0, -100};
    cr_assert_eq(ptl_query_random_point_in_circle(q, far, NULL, 1, &st, &l), PTL_ERR_NOT_FOUND);
    free(reach), free(in_list);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

/* ---- Determinism ---------------------------------------------------------------------------------*/

typedef struct det_job {
    const ptl_navmesh* nm;
    float pts[3 * 500];
} det_job;

static void draw_sequence(const ptl_navmesh* nm, float* pts) {
    ptl_query* q;
    ptl_query_create(nm, NULL, &q);
    uint64_t st = 0x1234;
    for (int i = 0; i < 250; ++i) {
        ptl_location l;
        ptl_query_random_point(q, &st, &l);
        memcpy(pts + 3 * i, l.point, sizeof l.point);
    }
    const float centre[3] = {pts[0], pts[1], pts[2]};
    for (int i = 250; i < 500; ++i) {
        ptl_location l;
        ptl_query_random_point_in_circle(q, centre, NULL, 3, &st, &l);
        memcpy(pts + 3 * i, l.point, sizeof l.point);
    }
    ptl_query_destroy(q);
}

static void* det_thread(void* arg) {
    det_job* j = arg;
    draw_sequence(j->nm, j->pts);
    return NULL;
}

Test(random, the_same_state_gives_the_same_points_on_any_thread) {
    /* SplitMix64's published first output from state 0 */
    uint64_t st = 0;
    cr_assert_eq(ptl_random_next(&st), 0xe220a8397b1dcdafull);
    cr_assert_eq(st, 0x9e3779b97f4a7c15ull);
    ptl_grid g;
    ptl_shape s = grid_shape(7401, 24, 24, 25, &g);
    ptl_navmesh* nm = bake_ptl_shape(&s, PTL_NAVMESH_LATTICE_POINTS);
    static det_job a, b;
    a.nm = b.nm = nm;
    draw_sequence(nm, a.pts);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, det_thread, &b), 0);
    pthread_join(t, NULL);
    cr_assert(memcmp(a.pts, b.pts, sizeof a.pts) == 0);
    /* another state: other points */
    ptl_query* q = make_query(nm);
    uint64_t s1 = 1, s2 = 2;
    ptl_location l1, l2;
    ptl_query_random_point(q, &s1, &l1);
    ptl_query_random_point(q, &s2, &l2);
    cr_assert(l1.point[0] != l2.point[0] || l1.point[2] != l2.point[2]);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}
