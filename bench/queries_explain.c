/* Why ours and Detour's answers to the same everyday query differ (bench_queries.c): each row both
   answer whose answers disagree (points more than 0.1 m apart in plan, or hit / found differs) is
   put in one kind of disagreement by asking each library about the other's answer. The two meshes
   are different bakes of the same input (ours and Recast's erode, simplify contours and place walls
   differently), so most kinds name where the meshes differ; the counts and their measured distances
   go to bench/RESULTS.md under the queries table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "queries_explain.h"

/* Distance in plan between two points. */
static double plan(const float* a, const float* b) { return hypot((double)a[0] - b[0], (double)a[2] - b[2]); }

/* The box half-extents within which a point is said to lie on a mesh: a few centimetres in plan
   (rounding, contour simplification), a voxel or two in height (the two bakes' floors). */
static const float ON_MESH[3] = {0.05f, 0.5f, 0.05f};

static bool on_ours(ptl_query* q, const float p[3]) {
    ptl_location l;
    return ptl_query_locate(q, p, ON_MESH, &l) == PTL_OK && plan(l.point, p) <= 0.05;
}

static bool on_detour(peer_mesh* pm, const float p[3]) {
    peer_query_out o;
    return peer_query_nearest(pm, p, ON_MESH, &o) == 0 && plan(o.point, p) <= 0.05;
}

/* The distance from p to the nearest wall of ours / Detour's within 5 m (5 when none). */
static double wall_ours(ptl_query* q, const float p[3]) {
    ptl_wall_hit w;
    return ptl_query_wall_distance(q, p, NULL, 5, &w) == PTL_OK && w.found ? w.distance : 5;
}

static double wall_detour(peer_mesh* pm, const float p[3]) {
    peer_query_out o;
    return peer_query_wall(pm, p, 5, NULL, &o) == 0 && o.hit ? o.dist : 5;
}

static void add(qx_counts* c, int kind, double value) {
    qx_kind* k = &c->kinds[kind];
    if (k->n < QX_MAX_VALUES) k->values[k->n] = value;
    ++k->n;
}

void qx_explain(ptl_query* q, peer_mesh* pm, qx_query kind, const float* row, const qx_answer* ours,
                const peer_query_out* det, qx_counts* c) {
    if (kind == QX_NEAREST) {
        /* which ground one mesh covers and the other not; else which point is nearer the query */
        const bool a = on_detour(pm, ours->point), b = on_ours(q, det->point);
        if (!a || !b) {
            add(c, !a && !b ? 2 : !a ? 0 : 1, plan(ours->point, det->point));
            return;
        }
        double dx = ours->point[0] - row[0], dy = ours->point[1] - row[1], dz = ours->point[2] - row[2];
        double ex = det->point[0] - row[0], ey = det->point[1] - row[1], ez = det->point[2] - row[2];
        double d0 = sqrt(dx * dx + dy * dy + dz * dz), d1 = sqrt(ex * ex + ey * ey + ez * ez);
        add(c, d0 < d1 - 0.01 ? 3 : d1 < d0 - 0.01 ? 4 : 5, fabs(d0 - d1));
    } else if (kind == QX_RAYCAST) {
        /* a wall across the ray on one mesh only, or walls at different places: measured as the
           distance from one's hit point to the other's nearest wall */
        if (ours->flag && !det->hit) add(c, 0, wall_detour(pm, ours->point));
        else if (!ours->flag && det->hit) add(c, 1, wall_ours(q, det->point));
        else {
            /* both stopped, at walls the two bakes place differently: whose stops first, and how far
               apart the stops are */
            const double d0 = plan(ours->point, row), d1 = plan(det->point, row);
            add(c, d0 <= d1 ? 2 : 3, plan(ours->point, det->point));
        }
    } else if (kind == QX_WALL) {
        if (ours->flag != det->hit) {
            add(c, ours->flag ? 0 : 1, ours->flag ? ours->dist : det->dist);
            return;
        }
        /* both found walls at different places: which is nearer, by how much */
        add(c, ours->dist < det->dist - 0.01 ? 2 : det->dist < ours->dist - 0.01 ? 3 : 4, fabs(ours->dist - det->dist));
    } else {
        /* moves: who slid (a wall across the straight segment), and when both did, whose end is
           nearer the target */
        const float* target = row + 3;
        const bool det_slid = plan(det->point, target) > 1e-3;
        if (ours->flag && det_slid) {
            double d0 = plan(ours->point, target), d1 = plan(det->point, target);
            add(c, d0 < d1 - 1e-3 ? 0 : d1 < d0 - 1e-3 ? 1 : 2, fabs(d0 - d1));
        } else if (!ours->flag && det_slid) {
            add(c, 3, plan(ours->point, det->point));
        } else if (ours->flag && !det_slid) {
            add(c, 4, plan(ours->point, det->point));
        } else {
            add(c, 5, plan(ours->point, det->point));
        }
    }
}

static const char* const NAMES[QX_QUERIES][QX_KINDS] = {
    {"our point off Detour's mesh (ground only ours covers)", "Detour's point off ours (ground only Detour's covers)",
     "each off the other's mesh", "both on both meshes, ours nearer the query", "both on both, Detour's nearer",
     "both on both, as near (within 1 cm)"},
    {"ours hit, Detour's passed (distance from our hit to Detour's nearest wall)",
     "Detour's hit, ours passed (from its hit to our nearest wall)",
     "both hit, ours first (walls placed differently: the hits' distance)", "both hit, Detour's first (the hits' distance)",
     NULL, NULL},
    {"ours found a wall within the radius, Detour's none (our distance)",
     "Detour's found one, ours none (its distance)", "both found, ours nearer", "both found, Detour's nearer",
     "both found, as near (within 1 cm), at different points", NULL},
    {"both slid, ours nearer the target", "both slid, Detour's nearer the target", "both slid, as near",
     "Detour's slid, ours went straight (the ends' distance)", "ours slid, Detour's went straight (the ends' distance)",
     "neither slid"},
};

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

void qx_print(qx_query kind, qx_counts* c) {
    char line[2048];
    int at = 0;
    for (int k = 0; k < QX_KINDS; ++k) {
        qx_kind* e = &c->kinds[k];
        if (!e->n || !NAMES[kind][k]) continue;
        uint32_t n = e->n < QX_MAX_VALUES ? e->n : QX_MAX_VALUES;
        qsort(e->values, n, sizeof(double), cmp_double);
        at += snprintf(line + at, sizeof line - (size_t)at, "%s%s: %u (median %.3f m)", at ? "; " : "", NAMES[kind][k], e->n,
                       e->values[n / 2]);
        if (at >= (int)sizeof line) break;
    }
    if (at) printf("|  | disagreements | %s |  |  |  |  |  |  |  |  |\n", line);
}
