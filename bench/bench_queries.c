/* `portolan-bench queries`: the everyday queries beside Detour's on Detour's own inputs.

   On dungeon, nav_test and undulating, Portolan bakes at Recast's reference parameters with agent
   radius 0.6 (bench_reference_desc) and Recast bakes solo at the same (peer_params_reference), as
   the 3D section does. The rows of DATA/expected/detour_queries/<mesh>_{nearest,raycast,
   distance_to_wall,move_along_surface}.csv (1000 each, drawn by Detour on its bake) are asked of
   both in the same run: ROUNDS rounds, each over every row, ours and Detour's interleaved row by
   row (which goes first alternates by round); a row's time is its median over the rounds, then the
   median and p99 over the rows. Ours takes a point and locates it (ptl_query_locate's rules) inside
   the call; Detour's queries take the start's polygon, found by findNearestPoly first: both the
   query call alone ("Detour") and with that search ("Detour + locate") are given.
   Agreement (rows both answer): nearest, raycast hit points, wall points and move ends within
   0.1 m in plan; raycast and wall also agree on hit / found; each row that disagrees is put in a
   kind of disagreement (queries_explain.c), one table row per query. Heights of the move's end:
   against the input surface (the triangle under the end nearest it in height; and, for ends on a
   wall's contour, the surface within a voxel's width in plan), ours and Detour's (its end keeps
   the start's y; getPolyHeight on its last polygon, the detail mesh's, is also given). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include <portolan/bake.h>
#include <portolan/runtime.h>

#include "bench.h"
#include "peer_recast.h"
#include "queries_explain.h"

enum { ROUNDS = 5, MAX_ROWS = 1000, NKIND = 7, KIND_SECONDS = 120 };
/* K_MOVE_IN, K_RAYCAST_IN, K_WALL_IN: the move, the ray and the wall distance of an agent that knows
   its cell (ptl_query_move_along_surface_in, ptl_query_raycast_in, ptl_query_wall_distance_in; the
   start located before the clock starts), as Detour's moveAlongSurface, raycast and
   findDistanceToWall are given their start polygon. A row whose start ours does not locate (with the
   default extents) has no time of ours in these kinds. */
enum { K_NEAREST, K_RAYCAST, K_WALL, K_MOVE, K_MOVE_IN, K_RAYCAST_IN, K_WALL_IN };
static const char* const KIND_NAMES[NKIND] = {"nearest", "raycast", "wall distance", "move along surface",
                                              "move, start cell known", "raycast, start cell known",
                                              "wall distance, start cell known"};
/* --kind's names */
static const char* const KIND_KEYS[NKIND] = {"nearest", "raycast", "wall", "move", "move_in", "raycast_in", "wall_in"};
static const char* const KIND_FILES[NKIND] = {"nearest", "raycast", "distance_to_wall", "move_along_surface",
                                              "move_along_surface", "raycast", "distance_to_wall"};
/* the input columns of each file, in the order the queries read them */
static const char* const KIND_COLS[NKIND][7] = {{"px", "py", "pz", "hx", "hy", "hz", NULL},
                                                {"sx", "sy", "sz", "ex", "ey", "ez", NULL},
                                                {"px", "py", "pz", "max_radius", NULL},
                                                {"sx", "sy", "sz", "ex", "ey", "ez", NULL},
                                                {"sx", "sy", "sz", "ex", "ey", "ez", NULL},
                                                {"sx", "sy", "sz", "ex", "ey", "ez", NULL},
                                                {"px", "py", "pz", "max_radius", NULL}};

typedef struct kind_rows {
    float v[MAX_ROWS][6];
    uint32_t n;
} kind_rows;

/* Reads the named columns of a CSV with a header; returns the rows read, or -1. */
static int read_rows(const char* path, const char* const* cols, kind_rows* out) {
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    int idx[7] = {-1, -1, -1, -1, -1, -1, -1}, ncol = 0;
    out->n = 0;
    if (!fgets(line, sizeof line, f)) return fclose(f), -1;
    int c = 0;
    for (char* tok = strtok(line, ",\r\n"); tok; tok = strtok(NULL, ",\r\n"), ++c)
        for (int k = 0; cols[k]; ++k)
            if (!strcmp(tok, cols[k])) idx[k] = c;
    while (cols[ncol]) {
        if (idx[ncol] < 0) return fclose(f), -1;
        ++ncol;
    }
    while (out->n < MAX_ROWS && fgets(line, sizeof line, f)) {
        float vals[64];
        int nv = 0;
        for (char* p = line; nv < 64;) {
            vals[nv++] = strtof(p, NULL);
            p = strchr(p, ',');
            if (!p) break;
            ++p;
        }
        for (int k = 0; k < ncol; ++k) out->v[out->n][k] = idx[k] < nv ? vals[idx[k]] : 0;
        ++out->n;
    }
    fclose(f);
    return (int)out->n;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* Median and p99 over rows of each row's median over rounds (t: rows x ROUNDS, sorted in place). */
static void stats(double* t, uint32_t n, double* med, double* p99) {
    static double per[MAX_ROWS];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (isnan(t[(size_t)i * ROUNDS])) continue; /* a row not timed (NAN in every round) */
        qsort(t + (size_t)i * ROUNDS, ROUNDS, sizeof(double), cmp_double);
        per[m++] = t[(size_t)i * ROUNDS + ROUNDS / 2];
    }
    qsort(per, m, sizeof(double), cmp_double);
    *med = m ? per[m / 2] : 0;
    *p99 = m ? per[(size_t)((m - 1) * 0.99)] : 0;
}

/* The height of the input triangle under (x, z) nearest y (NAN when none is under it). */
static double surface_near(const ptl_trimesh* m, double x, double z, double y) {
    double best = NAN;
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        const float* a = &m->verts[3 * (size_t)m->tris[3 * t]];
        const float* b = &m->verts[3 * (size_t)m->tris[3 * t + 1]];
        const float* c = &m->verts[3 * (size_t)m->tris[3 * t + 2]];
        double d = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
        if (fabs(d) < 1e-12) continue;
        double u = ((x - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (z - a[2])) / d;
        double v = ((b[0] - a[0]) * (z - a[2]) - (x - a[0]) * (b[2] - a[2])) / d;
        if (u < -1e-6 || v < -1e-6 || u + v > 1 + 1e-6) continue;
        double h = a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1]);
        if (isnan(best) || fabs(h - y) < fabs(best - y)) best = h;
    }
    return best;
}

/* The point of segment a-b nearest (x, z) in plan, as a fraction along it. */
static double seg_t(double x, double z, const float* a, const float* b) {
    double dx = b[0] - a[0], dz = b[2] - a[2], l2 = dx * dx + dz * dz;
    double t = l2 > 0 ? ((x - a[0]) * dx + (z - a[2]) * dz) / l2 : 0;
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

/* The least |y - h| over the input triangles within `reach` of (x, z) in plan, h the triangle's
   height at its point nearest (x, z) (NAN when none is that near): the surface within a voxel's
   resolution in plan. An end on a wall (a move that slid) lies on the bake's contour, up to a
   cell from the input's edge of the walkable surface, where the triangle under the point itself
   may be a slope or the ground below a ledge. */
static double surface_within(const ptl_trimesh* m, double x, double z, double y, double reach) {
    double best = NAN;
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        const float* v[3];
        for (int k = 0; k < 3; ++k) v[k] = &m->verts[3 * (size_t)m->tris[3 * t + k]];
        double d = (v[1][0] - v[0][0]) * (v[2][2] - v[0][2]) - (v[2][0] - v[0][0]) * (v[1][2] - v[0][2]);
        if (fabs(d) < 1e-12) continue;
        double u = ((x - v[0][0]) * (v[2][2] - v[0][2]) - (v[2][0] - v[0][0]) * (z - v[0][2])) / d;
        double w = ((v[1][0] - v[0][0]) * (z - v[0][2]) - (x - v[0][0]) * (v[1][2] - v[0][2])) / d;
        double h;
        if (u >= -1e-6 && w >= -1e-6 && u + w <= 1 + 1e-6) {
            h = v[0][1] + u * (v[1][1] - v[0][1]) + w * (v[2][1] - v[0][1]);
        } else {
            double bd = INFINITY;
            h = NAN;
            for (int k = 0; k < 3; ++k) {
                const float* a = v[k];
                const float* b = v[(k + 1) % 3];
                double s = seg_t(x, z, a, b), px = a[0] + s * (b[0] - a[0]), pz = a[2] + s * (b[2] - a[2]);
                double dd = hypot(px - x, pz - z);
                if (dd < bd) bd = dd, h = a[1] + s * (b[1] - a[1]);
            }
            if (bd > reach) continue;
        }
        if (isnan(best) || fabs(h - y) < best) best = fabs(h - y);
    }
    return best;
}

typedef struct kind_result {
    double med, p99, dmed, dp99, lmed, lp99; /* ours, Detour alone, Detour + findNearestPoly [us] */
    double hmed, hp99;                       /* moves: Detour + getPolyHeight (the end's height) [us] */
    uint32_t rows, both, agree, found_diff;  /* rows; both answered; within 0.1 m; hit/found differ */
} kind_result;

typedef struct height_result {
    uint32_t n, ours_within, det_within, deth_within, deth_n; /* within one cell height (0.2) of the surface */
    uint32_t ours_near, det_near, deth_near;                   /* ... of the surface within a cell (0.3) in plan */
    double ours_med, det_med, deth_med;                        /* median |y - surface| */
} height_result;

static double plan_dist(const float* a, const float* b) { return hypot((double)a[0] - b[0], (double)a[2] - b[2]); }

/* One row of kind k: ours, timed; fills *pt (the answer point) and *flag (hit / found), and *ans
   (for queries_explain.c: the point, hit / found / slid, the wall distance); false when not
   answered. */
static bool ours_row(ptl_query* q, int k, const float* r, double* us, float pt[3], bool* flag, qx_answer* ans) {
    ptl_status st;
    double a;
    if (k == K_NEAREST) {
        ptl_location loc;
        a = bench_now_ms();
        st = ptl_query_locate(q, r, r + 3, &loc);
        *us = (bench_now_ms() - a) * 1e3;
        memcpy(pt, loc.point, 3 * sizeof(float)), *flag = st == PTL_OK, ans->flag = *flag;
    } else if (k == K_RAYCAST) {
        ptl_raycast_hit h;
        memset(&h, 0, sizeof h);
        a = bench_now_ms();
        st = ptl_query_raycast(q, r, r + 3, NULL, &h);
        *us = (bench_now_ms() - a) * 1e3;
        memcpy(pt, h.point, 3 * sizeof(float)), *flag = h.hit, ans->flag = h.hit;
    } else if (k == K_WALL) {
        ptl_wall_hit w;
        a = bench_now_ms();
        st = ptl_query_wall_distance(q, r, NULL, r[3], &w);
        *us = (bench_now_ms() - a) * 1e3;
        memcpy(pt, w.point, 3 * sizeof(float)), *flag = w.found, ans->flag = w.found, ans->dist = w.distance;
    } else if (k == K_MOVE) {
        ptl_move_result m;
        memset(&m, 0, sizeof m);
        a = bench_now_ms();
        st = ptl_query_move_along_surface(q, r, r + 3, NULL, &m);
        *us = (bench_now_ms() - a) * 1e3;
        memcpy(pt, m.point, 3 * sizeof(float)), *flag = true, ans->flag = m.blocked;
    } else if (k == K_RAYCAST_IN) {
        ptl_location loc;
        ptl_raycast_hit h;
        memset(&h, 0, sizeof h);
        st = ptl_query_locate(q, r, NULL, &loc);
        if (st < 0) return *us = NAN, false;
        a = bench_now_ms();
        st = ptl_query_raycast_in(q, loc.cell, loc.point, r + 3, &h);
        *us = (bench_now_ms() - a) * 1e3;
        memcpy(pt, h.point, 3 * sizeof(float)), *flag = h.hit, ans->flag = h.hit;
    } else if (k == K_WALL_IN) {
        ptl_location loc;
        ptl_wall_hit w;
        st = ptl_query_locate(q, r, NULL, &loc);
        if (st < 0) return *us = NAN, false;
        a = bench_now_ms();
        st = ptl_query_wall_distance_in(q, loc.cell, loc.point, r[3], &w);
        *us = (bench_now_ms() - a) * 1e3;
        memcpy(pt, w.point, 3 * sizeof(float)), *flag = w.found, ans->flag = w.found, ans->dist = w.distance;
    } else {
        ptl_location loc;
        ptl_move_result m;
        memset(&m, 0, sizeof m);
        st = ptl_query_locate(q, r, NULL, &loc);
        if (st < 0) return *us = NAN, false;
        a = bench_now_ms();
        st = ptl_query_move_along_surface_in(q, loc.cell, loc.point, r + 3, &m);
        *us = (bench_now_ms() - a) * 1e3;
        memcpy(pt, m.point, 3 * sizeof(float)), *flag = true, ans->flag = m.blocked;
    }
    memcpy(ans->point, pt, sizeof ans->point);
    return st >= 0;
}

static bool peer_row(peer_mesh* pm, int k, const float* r, peer_query_out* o) {
    if (k == K_NEAREST) return peer_query_nearest(pm, r, r + 3, o) == 0;
    if (k == K_RAYCAST || k == K_RAYCAST_IN) return peer_query_raycast(pm, r, r + 3, NULL, o) == 0;
    if (k == K_WALL || k == K_WALL_IN) return peer_query_wall(pm, r, r[3], NULL, o) == 0;
    return peer_query_move(pm, r, r + 3, NULL, o) == 0; /* K_MOVE and K_MOVE_IN */
}

/* Times and compares kind k on its rows; the move's heights go to *hr. */
static void run_kind(ptl_query* q, peer_mesh* pm, const ptl_trimesh* m, int k, const kind_rows* rows, kind_result* res,
                     height_result* hr, qx_counts* qx) {
    const qx_query qk = k == K_NEAREST ? QX_NEAREST : k == K_RAYCAST || k == K_RAYCAST_IN ? QX_RAYCAST : k == K_WALL || k == K_WALL_IN ? QX_WALL : QX_MOVE;
    static double t[4][MAX_ROWS * ROUNDS];
    static double dy[3][MAX_ROWS];
    memset(res, 0, sizeof *res);
    res->rows = rows->n;
    for (int round = 0; round < ROUNDS; ++round)
        for (uint32_t i = 0; i < rows->n; ++i) {
            const float* r = rows->v[i];
            float pt[3];
            bool flag, ok = false, dok = false;
            peer_query_out o;
            qx_answer ans = {{0, 0, 0}, false, 0};
            double us = 0;
            if ((round + i) % 2) ok = ours_row(q, k, r, &us, pt, &flag, &ans), dok = peer_row(pm, k, r, &o);
            else dok = peer_row(pm, k, r, &o), ok = ours_row(q, k, r, &us, pt, &flag, &ans);
            size_t at = (size_t)i * ROUNDS + round;
            t[0][at] = us, t[1][at] = dok ? o.us : o.us_locate, t[2][at] = dok ? o.us + (k == K_NEAREST ? 0 : o.us_locate) : o.us_locate;
            t[3][at] = dok && (k == K_MOVE || k == K_MOVE_IN) ? o.us_height : t[1][at];
            if (round) continue;
            if (!ok || !dok) continue;
            ++res->both;
            bool dflag = k == K_NEAREST || k == K_MOVE || k == K_MOVE_IN ? true : o.hit;
            if (dflag != flag) {
                ++res->found_diff;
                qx_explain(q, pm, qk, r, &ans, &o, qx);
                continue;
            }
            bool near = plan_dist(pt, o.point) <= 0.1;
            if ((k == K_WALL || k == K_WALL_IN) && !flag) near = true; /* neither found a wall within the radius */
            res->agree += near;
            if (!near) qx_explain(q, pm, qk, r, &ans, &o, qx);
            if (k != K_MOVE) continue;
            double s = surface_near(m, pt[0], pt[2], pt[1]);
            double sd = surface_near(m, o.point[0], o.point[2], o.point[1]);
            if (!isnan(s) && !isnan(sd)) {
                dy[0][hr->n] = fabs(pt[1] - s), hr->ours_within += dy[0][hr->n] <= 0.2 + 1e-4;
                dy[1][hr->n] = fabs(o.point[1] - sd), hr->det_within += dy[1][hr->n] <= 0.2 + 1e-4;
                hr->ours_near += surface_within(m, pt[0], pt[2], pt[1], 0.3) <= 0.2 + 1e-4;
                hr->det_near += surface_within(m, o.point[0], o.point[2], o.point[1], 0.3) <= 0.2 + 1e-4;
                ++hr->n;
                if (o.has_height) {
                    double e = fabs(o.poly_height - surface_near(m, o.point[0], o.point[2], o.poly_height));
                    dy[2][hr->deth_n++] = e, hr->deth_within += e <= 0.2 + 1e-4;
                    hr->deth_near += surface_within(m, o.point[0], o.point[2], o.poly_height, 0.3) <= 0.2 + 1e-4;
                }
            }
        }
    stats(t[0], rows->n, &res->med, &res->p99);
    stats(t[1], rows->n, &res->dmed, &res->dp99);
    stats(t[2], rows->n, &res->lmed, &res->lp99);
    stats(t[3], rows->n, &res->hmed, &res->hp99);
    if (k == K_MOVE) {
        qsort(dy[0], hr->n, sizeof(double), cmp_double);
        qsort(dy[1], hr->n, sizeof(double), cmp_double);
        qsort(dy[2], hr->deth_n, sizeof(double), cmp_double);
        hr->ours_med = hr->n ? dy[0][hr->n / 2] : 0;
        hr->det_med = hr->n ? dy[1][hr->n / 2] : 0;
        hr->deth_med = hr->deth_n ? dy[2][hr->deth_n / 2] : 0;
    }
}

static int one_mesh(const char* data, const char* name, const char* kind) {
    char path[2048];
    snprintf(path, sizeof path, "%s/meshes/%s.obj", data, name);
    ptl_trimesh m;
    ptl_error err;
    if (ptl_obj_load(path, NULL, &m, &err) < 0) return fprintf(stderr, "queries: %s\n", err.message), 1;
    ptl_bake_desc d;
    bench_reference_desc(&d);
    d.agent_radius = 0.6f;
    void* blob = NULL;
    size_t size = 0;
    ptl_navmesh* nm = NULL;
    ptl_query* q = NULL;
    peer_mesh* pm = NULL;
    peer_stats pst;
    static kind_rows rows[NKIND];
    int rc = 1;
    if (ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err) < 0 || ptl_navmesh_create(blob, size, NULL, &nm, &err) < 0) {
        fprintf(stderr, "queries: %s: bake: %s\n", name, err.message);
        goto done;
    }
    if (ptl_query_create(nm, NULL, &q) < 0 || bench_recast_bake_trimesh(&m, &pm, &pst) != 0) {
        fprintf(stderr, "queries: %s: query or Recast bake failed\n", name);
        goto done;
    }
    for (int k = 0; k < NKIND; ++k) {
        snprintf(path, sizeof path, "%s/expected/detour_queries/%s_%s.csv", data, name, KIND_FILES[k]);
        if (read_rows(path, KIND_COLS[k], &rows[k]) < 0) {
            fprintf(stderr, "queries: cannot read %s\n", path);
            goto done;
        }
    }
    for (int k = 0; k < NKIND; ++k) {
        if (kind && strcmp(kind, KIND_KEYS[k])) continue;
        /* each kind in a child process with a time limit: a query that never returns (a runtime
           bug) costs its row of the table, not the run */
        fflush(stdout);
        pid_t child = fork();
        if (child > 0) {
            int status = 0;
            waitpid(child, &status, 0);
            if (!WIFEXITED(status))
                printf("| %s | %s | did not finish in %d s (a query of some row never returns) |  |  |  |  |  |  |  |  |\n", name,
                       KIND_NAMES[k], KIND_SECONDS);
            continue;
        }
        if (child == 0) alarm(KIND_SECONDS);
        kind_result r;
        height_result h;
        static qx_counts qx;
        memset(&h, 0, sizeof h);
        memset(&qx, 0, sizeof qx);
        run_kind(q, pm, &m, k, &rows[k], &r, &h, &qx);
        printf("| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f / %.2f | %.2f / %.2f | %u / %u (%.1f%%)%s |\n", name,
               KIND_NAMES[k], r.med, r.p99, r.dmed, r.dp99, r.lmed, r.lp99, r.dmed > 0 ? r.med / r.dmed : 0,
               r.dp99 > 0 ? r.p99 / r.dp99 : 0, r.lmed > 0 ? r.med / r.lmed : 0, r.lp99 > 0 ? r.p99 / r.lp99 : 0, r.agree,
               r.both, r.both ? 100.0 * r.agree / r.both : 0,
               r.found_diff ? (k == K_RAYCAST || k == K_RAYCAST_IN ? ", hit differs" : ", found differs") : "");
        if (r.found_diff) printf("|  |  |  |  |  |  |  |  |  |  | %u rows: %s |\n", r.found_diff, k == K_RAYCAST || k == K_RAYCAST_IN ? "hit differs" : "found differs");
        qx_print(k == K_NEAREST ? QX_NEAREST : k == K_RAYCAST || k == K_RAYCAST_IN ? QX_RAYCAST : k == K_WALL || k == K_WALL_IN ? QX_WALL : QX_MOVE, &qx);
        if (k == K_MOVE_IN)
            printf("|  | beside Detour + getPolyHeight | ours %.3f / %.3f | Detour's moveAlongSurface and getPolyHeight on its end "
                   "polygon (the end's height, which ours returns and Detour's move does not: its end keeps the start's y; "
                   "dtPathCorridor::movePosition asks both): %.3f / %.3f | %.2f / %.2f |  |  |  |  |  |\n",
                   r.med, r.p99, r.hmed, r.hp99, r.hmed > 0 ? r.med / r.hmed : 0, r.hp99 > 0 ? r.p99 / r.hp99 : 0);
        if (k == K_MOVE)
            printf("|  | move end height | ours: median %.3f m from the surface, %u / %u within 0.2 (%u within 0.2 of the surface "
                   "within 0.3 in plan) | Detour's end y: median %.3f, %u within 0.2 (%u) | getPolyHeight: median %.3f, %u / %u "
                   "within 0.2 (%u) |  |  |  |  |  |\n",
                   h.ours_med, h.ours_within, h.n, h.ours_near, h.det_med, h.det_within, h.det_near, h.deth_med, h.deth_within,
                   h.deth_n, h.deth_near);
        if (child == 0) fflush(stdout), _exit(0);
    }
    if (!kind) {
        /* memory of one query object: ours with the default desc (sized by the navmesh), Detour's
           dtNavMeshQuery with 2048 nodes (the size the issue compares with) */
        bench_tracker tr;
        memset(&tr, 0, sizeof tr);
        ptl_allocator a = bench_tracker_allocator(&tr);
        ptl_query* mq = NULL;
        uint64_t ours = 0;
        if (ptl_query_create(nm, &(ptl_query_desc){.alloc = &a}, &mq) == PTL_OK) ours = tr.live;
        ptl_query_destroy(mq);
        size_t det = peer_query_bytes(pm, 2048);
        printf("|  | query memory | ours %.0f KB (the default pool) | Detour's dtNavMeshQuery, 2048 nodes: %.0f KB | "
               "%.2fx |  |  |  |  |  |  |\n",
               ours / 1024.0, det / 1024.0, det ? (double)ours / det : 0);
    }
    rc = 0;
done:
    peer_free(pm);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    if (blob) ptl_blob_free(blob, size, NULL);
    ptl_trimesh_free(&m);
    return rc;
}

int bench_queries_run(const char* data, bool quick, const char* only, const char* kind) {
    (void)quick;
    printf("## Everyday queries beside Detour (Detour's inputs)\n\n");
    printf("Each mesh baked by both at Recast's reference parameters, agent radius 0.6 (Recast solo); the 1000 rows of "
           "`expected/detour_queries/<mesh>_<kind>.csv` each, %d rounds interleaved, a row's median over rounds, then "
           "median / p99 over rows [us]. Ours locates its point inside the call; Detour is timed on the query alone (its "
           "start polygon found beforehand) and with findNearestPoly. Ratios: ours / Detour (median / p99). Agreement: "
           "answers within 0.1 m in plan, over rows both answer.\n\n",
           ROUNDS);
    printf("| mesh | query | ours med | ours p99 | Detour med | Detour p99 | Detour+locate med | Detour+locate p99 | ratio | "
           "ratio vs +locate | agreement |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    static const char* const MESHES[3] = {"dungeon", "nav_test", "undulating"};
    int rc = 0;
    for (int i = 0; i < 3; ++i)
        if (!only || !strcmp(only, MESHES[i])) rc |= one_mesh(data, MESHES[i], kind);
    printf("\n");
    return rc;
}
