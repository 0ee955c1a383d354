/* `portolan-bench radius`: paths for an agent radius from one navmesh (issue 18) beside Detour,
   which needs a bake per radius.

   - dungeon.obj: Portolan bakes once at radius 0 (Recast's reference parameters otherwise) and
     answers Detour's 1000 pairs (drawn on Recast's radius-0.6 bake, as in the 3D section) at radius
     0, 0.3, 0.6, 1 and 2 (exact and corridor modes); Recast bakes the mesh at each radius and Detour answers the
     same pairs on that bake (both snaps, findPath and findStraightPath). Each pair's time is the
     median of ROUNDS rounds, each kind running over all the pairs in turn; then the median and p99
     over the pairs. Lengths are compared where both reach the goal (Portolan's `found`, Detour's
     `complete`), as 3D polylines.
   - sc1/Aurora.map (2D, the default bake: 4 landmarks per piece): every 100th scenario at radius 0,
     0.5, 1 and 2 (one round).
   Blob: Portolan's one bake against Detour's four. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <portolan/runtime.h>

#include "bench.h"

enum { ROUNDS = 3, NRADII = 5 };
static const float RADII[NRADII] = {0, 0.3f, 0.6f, 1.0f, 2.0f};

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

typedef struct radius_row {
    double med, p99, mean_len;
    uint32_t found;
    double det_med, det_p99, det_mean_len;
    uint32_t det_complete;
    double len_ratio_med, len_within5; /* ours / Detour's over pairs both reach; share within 5% */
    double cor_med, cor_p99, cor_len_ratio; /* corridor mode; its mean length / exact's (pairs both reach) */
    uint32_t cor_found;
    uint32_t both;
    size_t det_bytes;
    double det_bake_ms;
} radius_row;

static double ours_once(ptl_query* q, const bench_pair* p, float r, ptl_path_mode mode, ptl_path_result* res, float* pts) {
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, p->start, sizeof req.start);
    memcpy(req.goal, p->goal, sizeof req.goal);
    req.extents[0] = 2, req.extents[1] = 4, req.extents[2] = 2;
    req.radius = r;
    req.mode = mode;
    memset(res, 0, sizeof *res);
    res->points = pts;
    res->point_capacity = 4096;
    double a = bench_now_ms();
    ptl_query_find_path(q, &req, res);
    return (bench_now_ms() - a) * 1e3;
}

/* Median and p99 over pairs of each pair's median over rounds (t: pairs x ROUNDS). */
static void stats(double* t, uint32_t n, double* med, double* p99) {
    double* per = malloc((size_t)n * sizeof(double));
    if (!per) return;
    for (uint32_t i = 0; i < n; ++i) {
        qsort(t + (size_t)i * ROUNDS, ROUNDS, sizeof(double), cmp_double);
        per[i] = t[(size_t)i * ROUNDS + ROUNDS / 2];
    }
    qsort(per, n, sizeof(double), cmp_double);
    *med = n ? per[n / 2] : 0;
    *p99 = n ? per[(size_t)((n - 1) * 0.99)] : 0;
    free(per);
}

static int dungeon(const char* data, radius_row* rows, size_t* blob_bytes) {
    char path[2048];
    snprintf(path, sizeof path, "%s/meshes/dungeon.obj", data);
    ptl_trimesh m;
    ptl_error err;
    if (ptl_obj_load(path, NULL, &m, &err) < 0) return fprintf(stderr, "radius: %s\n", err.message), 1;
    ptl_bake_desc d;
    bench_reference_desc(&d);
    d.agent_radius = 0;
    void* blob = NULL;
    size_t size = 0;
    ptl_navmesh* nm = NULL;
    ptl_query* q = NULL;
    peer_mesh* pm[NRADII] = {0};
    bench_pair* pairs = calloc(BENCH_PAIRS, sizeof *pairs);
    double* t = calloc((size_t)BENCH_PAIRS * ROUNDS, sizeof(double));
    double* len = calloc((size_t)BENCH_PAIRS * NRADII, sizeof(double));
    double* dlen = calloc((size_t)BENCH_PAIRS * NRADII, sizeof(double));
    static float pts[3 * 4096];
    int rc = 1;
    if (!pairs || !t || !len || !dlen) goto done;
    if (ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err) < 0 || ptl_navmesh_create(blob, size, NULL, &nm, &err) < 0) {
        fprintf(stderr, "radius: bake: %s\n", err.message);
        goto done;
    }
    *blob_bytes = size;
    if (ptl_query_create(nm, &(ptl_query_desc){.max_nodes = 1u << 18}, &q) < 0) goto done;
    for (int k = 1; k < NRADII; ++k) {
        peer_params p;
        peer_params_reference(&p);
        p.agent_radius = RADII[k];
        peer_stats st;
        double a = bench_now_ms();
        if (peer_bake_triangles(m.verts, (int)m.vert_count, (const int*)m.tris, (int)m.tri_count, &p, &pm[k], &st) != 0) {
            fprintf(stderr, "radius: Recast at %.1f: %s\n", RADII[k], st.error);
            goto done;
        }
        rows[k].det_bake_ms = bench_now_ms() - a;
        rows[k].det_bytes = st.navmesh_bytes;
    }
    /* Detour's pairs of the 3D section: drawn on the radius-0.6 bake */
    if (bench_detour_pairs(pm[2], BENCH_PAIRS, BENCH_PAIR_SEED, pairs) != 0) goto done;
    for (int k = 0; k < NRADII; ++k) {
        radius_row* row = &rows[k];
        double sum = 0;
        for (int round = 0; round < ROUNDS; ++round)
            for (uint32_t i = 0; i < BENCH_PAIRS; ++i) {
                ptl_path_result res;
                t[(size_t)i * ROUNDS + round] = ours_once(q, &pairs[i], RADII[k], PTL_PATH_EXACT, &res, pts);
                if (round == 0) {
                    len[(size_t)k * BENCH_PAIRS + i] = res.found ? res.length : -1;
                    row->found += res.found;
                    if (res.found) sum += res.length;
                }
            }
        stats(t, BENCH_PAIRS, &row->med, &row->p99);
        row->mean_len = row->found ? sum / row->found : 0;
        /* the corridor mode, the same pairs */
        double cor_sum = 0, ex_sum = 0;
        for (int round = 0; round < ROUNDS; ++round)
            for (uint32_t i = 0; i < BENCH_PAIRS; ++i) {
                ptl_path_result res;
                t[(size_t)i * ROUNDS + round] = ours_once(q, &pairs[i], RADII[k], PTL_PATH_CORRIDOR, &res, pts);
                if (round == 0) {
                    row->cor_found += res.found;
                    if (res.found && len[(size_t)k * BENCH_PAIRS + i] >= 0)
                        cor_sum += res.length, ex_sum += len[(size_t)k * BENCH_PAIRS + i];
                }
            }
        stats(t, BENCH_PAIRS, &row->cor_med, &row->cor_p99);
        row->cor_len_ratio = ex_sum > 0 ? cor_sum / ex_sum : 0;
        if (k == 0) continue;
        sum = 0;
        for (int round = 0; round < ROUNDS; ++round)
            for (uint32_t i = 0; i < BENCH_PAIRS; ++i) {
                peer_path_result pr;
                peer_path(pm[k], pairs[i].start, pairs[i].goal, NULL, NULL, 0, &pr);
                t[(size_t)i * ROUNDS + round] = pr.us;
                if (round == 0) {
                    dlen[(size_t)k * BENCH_PAIRS + i] = pr.complete ? pr.length : -1;
                    row->det_complete += pr.complete;
                    if (pr.complete) sum += pr.length;
                }
            }
        stats(t, BENCH_PAIRS, &row->det_med, &row->det_p99);
        row->det_mean_len = row->det_complete ? sum / row->det_complete : 0;
        double* ratios = malloc(BENCH_PAIRS * sizeof(double));
        uint32_t n = 0, within = 0;
        for (uint32_t i = 0; ratios && i < BENCH_PAIRS; ++i) {
            double a = len[(size_t)k * BENCH_PAIRS + i], b = dlen[(size_t)k * BENCH_PAIRS + i];
            if (a < 0 || !(b > 0)) continue;
            ratios[n++] = a / b;
            within += fabs(a / b - 1) <= 0.05;
        }
        if (n) {
            qsort(ratios, n, sizeof(double), cmp_double);
            row->len_ratio_med = ratios[n / 2];
            row->len_within5 = (double)within / n;
        }
        row->both = n;
        free(ratios);
    }
    rc = 0;
done:
    for (int k = 0; k < NRADII; ++k) peer_free(pm[k]);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    if (blob) ptl_blob_free(blob, size, NULL);
    ptl_trimesh_free(&m);
    free(pairs), free(t), free(len), free(dlen);
    return rc;
}

static void aurora(const char* data, bool quick) {
    static const float R2[4] = {0, 0.5f, 1, 2};
    char map[2048], scen[2048];
    snprintf(map, sizeof map, "%s/grids/sc1/Aurora.map", data);
    snprintf(scen, sizeof scen, "%s/grids/sc1/Aurora.map.scen", data);
    ptl_grid g;
    ptl_shape s;
    ptl_query_set qs;
    ptl_error err;
    if (ptl_grid_load(map, NULL, &g, &err) < 0) {
        fprintf(stderr, "radius: %s\n", err.message);
        return;
    }
    if (ptl_shape_from_grid(&g, NULL, &s, &err) < 0 || ptl_scen_load(scen, NULL, &qs, &err) < 0) {
        fprintf(stderr, "radius: %s\n", err.message);
        ptl_grid_free(&g);
        return;
    }
    s.flags = PTL_NAVMESH_LATTICE_POINTS;
    void* blob = NULL;
    size_t size = 0;
    ptl_navmesh* nm = NULL;
    ptl_query* q = NULL;
    /* the default 2D bake (`portolan bake`): 4 landmarks per piece, which bound the disc search too */
    if (ptl_bake_shape(&s, NULL, &blob, &size, NULL, &err) < 0) goto out;
    if (ptl_navmesh_create(blob, size, NULL, &nm, &err) < 0 || ptl_query_create(nm, &(ptl_query_desc){.max_nodes = 1u << 20}, &q) < 0)
        goto out;
    uint32_t step = quick ? 400 : 100, n = 0;
    printf("\n### sc1/Aurora (2D): every %uth scenario, one round\n\n", step);
    printf("| radius | mode | queries | found | median us | p99 us | mean length | median / radius 0 |\n"
           "|---:|---|---:|---:|---:|---:|---:|---:|\n");
    double* t = malloc(((size_t)qs.count / step + 1) * sizeof(double));
    static float pts[3 * 4096];
    double med0[2] = {0, 0};
    for (int km = 0; t && km < 8; ++km) {
        const int k = km / 2, mode = km % 2;
        uint32_t found = 0;
        double sum = 0;
        n = 0;
        for (uint32_t i = 0; i < qs.count; i += step) {
            ptl_path_request req;
            memset(&req, 0, sizeof req);
            memcpy(req.start, qs.items[i].start, sizeof req.start);
            memcpy(req.goal, qs.items[i].goal, sizeof req.goal);
            req.radius = R2[k];
            req.mode = mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT;
            ptl_path_result res = {.points = pts, .point_capacity = 4096};
            double a = bench_now_ms();
            ptl_query_find_path(q, &req, &res);
            t[n++] = (bench_now_ms() - a) * 1e3;
            found += res.found;
            if (res.found) sum += res.length;
        }
        qsort(t, n, sizeof(double), cmp_double);
        double med = t[n / 2], p99 = t[(size_t)((n - 1) * 0.99)];
        if (k == 0) med0[mode] = med;
        printf("| %.1f | %s | %u | %u | %.1f | %.1f | %.2f | %.1f |\n", R2[k], mode ? "corridor" : "exact", n, found, med, p99,
               found ? sum / found : 0, med0[mode] > 0 ? med / med0[mode] : 0);
    }
    free(t);
out:
    if (!q) fprintf(stderr, "radius: Aurora: %s\n", err.message);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    if (blob) ptl_blob_free(blob, size, NULL);
    ptl_query_set_free(&qs);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

int bench_radius_run(const char* data, bool quick) {
    radius_row rows[NRADII];
    memset(rows, 0, sizeof rows);
    size_t blob_bytes = 0;
    printf("# Paths for an agent radius (issue 18)\n\n");
    printf("One Portolan bake at radius 0 answers every radius (exact mode: the shortest path of a disc, "
           "runtime/disc_path.c; the corridor mode below it); Recast bakes dungeon.obj once per radius and Detour answers on that bake. "
           "Detour's 1000 pairs of the 3D section (drawn on its radius-0.6 bake); each pair's time the median of "
           "%d rounds, each kind over all pairs in turn; then the median and p99 over the pairs (us). "
           "Lengths as 3D polylines where both reach the goal.\n\n",
           ROUNDS);
    if (dungeon(data, rows, &blob_bytes) != 0) return 1;
    printf("### dungeon.obj\n\n");
    printf("| radius | found | median us | p99 us | mean length | median / radius 0 | Detour complete | Detour median us | "
           "Detour p99 us | median / Detour | p99 / Detour | length / Detour (median) | within 5%% |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    size_t det_bytes = 0;
    double det_ms = 0;
    for (int k = 0; k < NRADII; ++k) {
        const radius_row* r = &rows[k];
        printf("| %.1f | %u | %.2f | %.2f | %.3f | %.1f |", RADII[k], r->found, r->med, r->p99, r->mean_len,
               rows[0].med > 0 ? r->med / rows[0].med : 0);
        if (k == 0) {
            printf(" - | - | - | - | - | - | - |\n");
            continue;
        }
        printf(" %u | %.2f | %.2f | %.2f | %.2f | %.4f | %.1f%% |\n", r->det_complete, r->det_med, r->det_p99,
               r->det_med > 0 ? r->med / r->det_med : 0, r->det_p99 > 0 ? r->p99 / r->det_p99 : 0, r->len_ratio_med,
               100 * r->len_within5);
        det_bytes += r->det_bytes;
        det_ms += r->det_bake_ms;
    }
    printf("\nThe corridor mode (runtime/disc_funnel.c: A* over the cells a disc can cross, the funnel with "
           "circles, every piece checked, the exact search where a check fails), the same pairs:\n\n");
    printf("| radius | found | median us | p99 us | median / radius 0 | median / exact | median / Detour | p99 / Detour | "
           "length / exact (sum) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < NRADII; ++k) {
        const radius_row* r = &rows[k];
        printf("| %.1f | %u | %.2f | %.2f | %.1f | %.2f |", RADII[k], r->cor_found, r->cor_med, r->cor_p99,
               rows[0].cor_med > 0 ? r->cor_med / rows[0].cor_med : 0, r->med > 0 ? r->cor_med / r->med : 0);
        if (k == 0) printf(" - | - | %.4f |\n", r->cor_len_ratio);
        else
            printf(" %.2f | %.2f | %.4f |\n", r->det_med > 0 ? r->cor_med / r->det_med : 0,
                   r->det_p99 > 0 ? r->cor_p99 / r->det_p99 : 0, r->cor_len_ratio);
    }
    printf("\nBlob: Portolan's one bake %.1f KB (no clearance data yet: 1.0x the radius-0 blob) against Detour's four "
           "bakes (0.3, 0.6, 1, 2) %.1f KB together (%.2fx), which took Recast %.0f ms.\n",
           blob_bytes / 1024.0, det_bytes / 1024.0, det_bytes ? (double)blob_bytes / det_bytes : 0, det_ms);
    aurora(data, quick);
    printf("\n");
    return 0;
}
