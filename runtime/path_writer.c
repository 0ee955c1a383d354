/* Writing a path from its goal back to its start (the searches find it in that order). */
#include <math.h>

#include "query_internal.h"

/* The length is the polyline's, heights included (a game measures a path in 3D; for 2D inputs every
   height is 0 and this is the plane length). */
static void emit_back(ptl_back_writer* w, double x, double z, float y) {
    if (w->k > 0) {
        double dy = (double)y - w->ly;
        w->length += sqrt((x - w->lx) * (x - w->lx) + (z - w->lz) * (z - w->lz) + dy * dy);
    }
    w->ly = y;
    if (w->res) {
        uint32_t i = w->total - 1 - w->k;
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

void ptl_pw_put(ptl_back_writer* w, double x, double z, float y) {
    if (w->has_pending && x == w->px && z == w->pz) return;
    if (w->has_pending && !(w->k > 0 && straight_through(w, w->px, w->pz, w->py, x, z, y))) emit_back(w, w->px, w->pz, w->py);
    w->has_pending = true;
    w->px = x, w->pz = z, w->py = y;
}

/* Writes the last point. */
void ptl_pw_flush(ptl_back_writer* w) {
    if (w->has_pending) emit_back(w, w->px, w->pz, w->py);
    w->has_pending = false;
}
