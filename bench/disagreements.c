/* Why Portolan and Detour disagree on whether a pair is connected (bench.h): each disagreement is
   explained from the geometry of both meshes, so bench/RESULTS.md can say what happened at every
   pair without anyone re-running it by hand.

   - Detour reached the goal, Portolan did not: Detour's straight path is walked every 0.1 m and
     each sample is located on Portolan's mesh (within PLAN_TOL in plan, VERT_TOL in height: the
     straight path's heights are chords between corners, not the surface). The first sample with
     no Portolan cell near it, or the first whose cell lies in another connected piece than the
     start's, says where Portolan's mesh is missing or cut.
   - Portolan reached the goal, Detour did not: Portolan's path is walked the same way against
     Detour's polygons (a findNearestPoly through peer_path with the same small extents).
   - Either side could not place the start or the goal within the 2, 4, 2 extents. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const float PLAN_TOL = 0.45f; /* [Units: wu] 1.5 voxels: Recast's contours may move 1.3 voxels */
static const float VERT_TOL = 2.0f;  /* [Units: wu] */
static const double STEP = 0.1;      /* [Units: wu] */

uint32_t* bench_cell_pieces(const ptl_navmesh* nm) {
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    uint32_t* piece = malloc(sizeof(uint32_t) * ((size_t)in.cell_count + 1));
    uint32_t* stack = malloc(sizeof(uint32_t) * ((size_t)in.cell_count + 1));
    if (!piece || !stack) {
        free(piece);
        free(stack);
        return NULL;
    }
    for (uint32_t c = 0; c < in.cell_count; ++c) piece[c] = PTL_NONE;
    uint32_t pieces = 0;
    for (uint32_t s = 0; s < in.cell_count; ++s) {
        if (piece[s] != PTL_NONE) continue;
        uint32_t top = 0;
        stack[top++] = s;
        piece[s] = pieces;
        while (top) {
            ptl_cell_view cv;
            ptl_navmesh_get_cell(nm, stack[--top], &cv);
            for (uint32_t k = 0; k < cv.vert_count; ++k) {
                uint32_t n = cv.neighbors[k];
                if (n != PTL_NONE && piece[n] == PTL_NONE) piece[n] = pieces, stack[top++] = n;
            }
        }
        ++pieces;
    }
    free(stack);
    return piece;
}

/* Calls visit(sample, user) every STEP along a polyline until it returns false; returns whether
   the walk reached the end. */
static bool walk(const float* pts, uint32_t n, bool (*visit)(const float* s, void* user), void* user) {
    for (uint32_t i = 0; i + 1 < n || (i == 0 && n == 1); ++i) {
        const float* a = pts + 3 * i;
        const float* b = n > 1 ? pts + 3 * (i + 1) : a;
        double len = sqrt((double)(b[0] - a[0]) * (b[0] - a[0]) + (double)(b[2] - a[2]) * (b[2] - a[2]));
        int steps = (int)ceil(len / STEP);
        for (int k = 0; k <= steps; ++k) {
            double t = steps ? (double)k / steps : 0;
            float s[3] = {(float)(a[0] + t * (b[0] - a[0])), (float)(a[1] + t * (b[1] - a[1])),
                          (float)(a[2] + t * (b[2] - a[2]))};
            if (!visit(s, user)) return false;
        }
    }
    return true;
}

typedef struct on_ours {
    ptl_query* q;
    const uint32_t* piece;
    uint32_t start_piece;
    float at[3];
    bool off;          /* stopped at a sample with no cell near */
    uint32_t other;    /* stopped at a sample in this other piece */
} on_ours;

static bool visit_ours(const float* s, void* user) {
    on_ours* o = user;
    const float ext[3] = {PLAN_TOL, VERT_TOL, PLAN_TOL};
    ptl_location loc;
    memcpy(o->at, s, sizeof o->at);
    if (ptl_query_locate(o->q, s, ext, &loc) < 0 || loc.cell == PTL_NONE) return o->off = true, false;
    if (o->start_piece == PTL_NONE) o->start_piece = o->piece[loc.cell];
    if (o->piece[loc.cell] != o->start_piece) return o->other = o->piece[loc.cell], false;
    return true;
}

typedef struct on_detour {
    peer_mesh* pm;
    float at[3];
} on_detour;

static bool visit_detour(const float* s, void* user) {
    on_detour* o = user;
    const float ext[3] = {PLAN_TOL, VERT_TOL, PLAN_TOL};
    peer_path_result r;
    memcpy(o->at, s, sizeof o->at);
    peer_path(o->pm, s, s, ext, NULL, 0, &r);
    return r.start_found;
}

void bench_explain_disagreement(ptl_query* q, const uint32_t* piece, peer_mesh* pm, const bench_pair* p,
                                ptl_status st, const ptl_path_result* ours, char* why, size_t cap) {
    static float dpts[3 * 4096];
    if (st == PTL_ERR_NOT_FOUND) {
        ptl_location a, b;
        bool sa = ptl_query_locate(q, p->start, NULL, &a) >= 0, gb = ptl_query_locate(q, p->goal, NULL, &b) >= 0;
        snprintf(why, cap, "Portolan has no cell within 2, 4, 2 of the %s", !sa && !gb ? "start and the goal"
                                                                                       : !sa ? "start" : "goal");
        return;
    }
    peer_path_result pr;
    peer_path(pm, p->start, p->goal, NULL, dpts, 4096, &pr);
    if (p->complete && !ours->found) {
        on_ours o = {q, piece, PTL_NONE, {0, 0, 0}, false, PTL_NONE};
        uint32_t n = pr.corners < 4096 ? pr.corners : 4096;
        if (walk(dpts, n, visit_ours, &o)) {
            snprintf(why, cap, "Detour's path stays on one piece of Portolan's cells (within %.2f m): Portolan's "
                     "search failed (status %s)", PLAN_TOL, ptl_status_name(st));
        } else if (o.off) {
            snprintf(why, cap, "Detour's path crosses (%.2f, %.2f, %.2f), more than %.2f m in plan from any Portolan "
                     "cell", o.at[0], o.at[1], o.at[2], PLAN_TOL);
        } else {
            snprintf(why, cap, "Detour's path goes from Portolan's piece %u into piece %u at (%.2f, %.2f, %.2f): no "
                     "portal joins them there", o.start_piece, o.other, o.at[0], o.at[1], o.at[2]);
        }
    } else if (ours->found && !p->complete) {
        on_detour o = {pm, {0, 0, 0}};
        uint32_t n = ours->point_count;
        if (walk(ours->points, n, visit_detour, &o)) {
            snprintf(why, cap, "Portolan's path stays on Detour's polygons (within %.2f m): Detour's %s", PLAN_TOL,
                     !pr.start_found || !pr.goal_found ? "snap found no polygon" : pr.found ? "corridor stops short "
                     "(partial)" : "search found nothing");
        } else {
            snprintf(why, cap, "Portolan's path crosses (%.2f, %.2f, %.2f), more than %.2f m in plan from Detour's "
                     "polygons", o.at[0], o.at[1], o.at[2], PLAN_TOL);
        }
    } else {
        snprintf(why, cap, "(no disagreement)");
    }
}
