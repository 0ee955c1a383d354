/* Writing a path from its goal back to its start (the searches find it in that order; a search from
   the goal writes it from the start, w->forward), and the straight path between ends in one cell. */
#include <math.h>

#include "query_internal.h"

/* The length is the polyline's, heights included (a game measures a path in 3D; for 2D inputs every
   height is 0 and this is the plane length). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void emit_back(ptl_back_writer* w, double x, double z, float y) {
    if (w->k > 0) {
        double dy = (double)y - w->ly;
        w->length += sqrt((x - w->lx) * (x - w->lx) + (z - w->lz) * (z - w->lz) + dy * dy);
    }
    w->ly = y;
    if (w->res) {
        uint32_t i = w->forward ? w->k : w->total - 1 - w->k;
        if (i < w->res->point_capacity) {
            float* p = w->res->points + 3 * (size_t)i;
            p[0] = (float)x, p[1] = y, p[2] = (float)z;
        }
    }
    w->lx = x, w->lz = z;
    ++w->k;
}

/* Does the path go straight through (bx, bz) from the last written point to (cx, cz)? */
static bool straight_through(const ptl_back_writer* w, double bx, double bz, float by, double cx, double cz, float cy) {
    double ax = w->lx, az = w->lz;
    if (by != w->ly || by != cy) return false;
    if ((bx - ax) * (cz - az) - (bz - az) * (cx - ax) != 0) return false;
    return (bx - ax) * (cx - bx) + (bz - az) * (cz - bz) > 0; /* onwards, not back */
}

/* ---- Paths that may hold off-mesh links (w->links): their ends are pinned (never merged with a
   neighbour or left out), a point's flags go to res->flags, and a link's segment counts its cost.
   Kept apart so that the writer of every other path does no more than before. */

static void emit_link_aware(ptl_back_writer* w) {
    const double length = w->length;
    const uint32_t k = w->k;
    emit_back(w, w->px, w->pz, w->py);
    if (k > 0 && (w->pflag & PTL_PATH_POINT_OFFMESH)) w->length = length + w->pcost;
    if (w->res && w->res->flags && w->total - 1 - k < w->res->point_capacity) w->res->flags[w->total - 1 - k] = w->pflag;
}

static void put_link_aware(ptl_back_writer* w, double x, double z, float y, bool pin, uint8_t flag, float cost) {
    if (w->has_pending && x == w->px && z == w->pz && !(pin && w->ppin)) {
        if (pin) w->py = y, w->ppin = true, w->pflag = flag, w->pcost = cost; /* the link's end stays */
        return;
    }
    if (w->has_pending && (w->ppin || pin || !(w->k > 0 && straight_through(w, w->px, w->pz, w->py, x, z, y))))
        emit_link_aware(w);
    w->has_pending = true;
    w->px = x, w->pz = z, w->py = y;
    w->ppin = pin, w->pflag = flag, w->pcost = cost;
}

void ptl_pw_put(ptl_back_writer* w, double x, double z, float y) {
    if (w->links) {
        put_link_aware(w, x, z, y, false, 0, 0);
        return;
    }
    if (w->has_pending && x == w->px && z == w->pz) return;
    if (w->has_pending && !(w->k > 0 && straight_through(w, w->px, w->pz, w->py, x, z, y))) emit_back(w, w->px, w->pz, w->py);
    w->has_pending = true;
    w->px = x, w->pz = z, w->py = y;
}

void ptl_pw_put_link(ptl_back_writer* w, double x, double z, float y, uint8_t flag, float cost) {
    put_link_aware(w, x, z, y, true, flag, cost);
}

/* Writes the last point. */
void ptl_pw_flush(ptl_back_writer* w) {
    if (w->has_pending) {
        if (w->links) emit_link_aware(w);
        else emit_back(w, w->px, w->pz, w->py);
    }
    w->has_pending = false;
}

/* The straight segment from s to t (query_internal.h): both ends' cells meet. */
ptl_status ptl_query_straight(const ptl_qpoint* s, const ptl_qpoint* t, ptl_path_result* res) {
    uint32_t total = s->x == t->x && s->z == t->z ? 1 : 2; /* start == goal: a path of one point */
    res->point_total = total;
    res->point_count = res->point_capacity < total ? res->point_capacity : total;
    for (uint32_t i = 0; i < res->point_count; ++i) {
        const ptl_qpoint* p = i + 1 == total ? t : s;
        res->points[3 * i] = (float)p->x, res->points[3 * i + 1] = p->y, res->points[3 * i + 2] = (float)p->z;
    }
    double dy = (double)t->y - s->y;
    res->length = sqrt((t->x - s->x) * (t->x - s->x) + (t->z - s->z) * (t->z - s->z) + dy * dy);
    res->found = res->complete = true;
    return res->point_count < total ? PTL_TRUNCATED : PTL_OK;
}
