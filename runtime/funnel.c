/* The funnel algorithm over a portal sequence (Lee and Preparata 1984; the restarting form that
   Mononen calls the "simple stupid funnel"). The funnel is an apex and two boundary rays through
   the current left and right points; each portal narrows it, and when one side would cross the
   other the crossed point becomes a corner of the path and the new apex. */
#include "funnel.h"

#include <portolan/runtime.h>
#include <stdbool.h>

/* > 0 when c is left of the ray a->b (counter-clockwise), < 0 right, 0 on its line. */
static inline double orient(const double a[2], const double b[2], const double c[2]) {
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static inline bool same(const double a[2], const double b[2]) { return a[0] == b[0] && a[1] == b[1]; }

typedef struct writer {
    ptl_funnel_point* out;
    uint32_t capacity, count;
    double last[2];
} writer;

/* Appends p, merging it into the last point when equal. */
static void emit(writer* w, const double p[2], uint32_t vert) {
    if (w->count > 0 && same(w->last, p)) return;
    if (w->count < w->capacity) {
        w->out[w->count].x = p[0];
        w->out[w->count].z = p[1];
        w->out[w->count].vert = vert;
    }
    w->last[0] = p[0], w->last[1] = p[1];
    ++w->count;
}

uint32_t ptl_funnel(const ptl_funnel_portal* portals, uint32_t count, const double start[2], const double goal[2],
                    ptl_funnel_point* out, uint32_t capacity) {
    writer w = {out, out ? capacity : 0, 0, {0, 0}};
    emit(&w, start, PTL_NONE);
    double apex[2] = {start[0], start[1]}, left[2] = {start[0], start[1]}, right[2] = {start[0], start[1]};
    uint32_t apex_i = 0, left_i = 0, right_i = 0;
    uint32_t left_v = PTL_NONE, right_v = PTL_NONE;
    /* Portal i in 1..count is portals[i - 1]; portal count + 1 is the goal, a portal of zero width. */
    for (uint32_t i = 1; i <= count + 1; ++i) {
        const double* pl = i <= count ? portals[i - 1].left : goal;
        const double* pr = i <= count ? portals[i - 1].right : goal;
        uint32_t plv = i <= count ? portals[i - 1].left_vert : PTL_NONE;
        uint32_t prv = i <= count ? portals[i - 1].right_vert : PTL_NONE;

        /* Right side: the new right point narrows the funnel when it is left of (or on) the right ray. */
        if (orient(apex, right, pr) >= 0) {
            if (same(apex, right) || orient(apex, left, pr) < 0) {
                right[0] = pr[0], right[1] = pr[1], right_i = i, right_v = prv;
            } else {
                /* It crosses the left ray: the left point is a corner. Restart from it. */
                emit(&w, left, left_v);
                apex[0] = left[0], apex[1] = left[1], apex_i = left_i;
                right[0] = left[0], right[1] = left[1], right_i = left_i, right_v = left_v;
                i = apex_i;
                continue;
            }
        }
        /* Left side, mirrored. */
        if (orient(apex, left, pl) <= 0) {
            if (same(apex, left) || orient(apex, right, pl) > 0) {
                left[0] = pl[0], left[1] = pl[1], left_i = i, left_v = plv;
            } else {
                emit(&w, right, right_v);
                apex[0] = right[0], apex[1] = right[1], apex_i = right_i;
                left[0] = right[0], left[1] = right[1], left_i = right_i, left_v = right_v;
                i = apex_i;
                continue;
            }
        }
    }
    /* The goal closes the path, unless the last point is already there (a corner at the goal, or
       the start when start == goal: a path of one point). */
    emit(&w, goal, PTL_NONE);
    return w.count;
}
