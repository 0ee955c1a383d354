/* Drawing off-mesh links (runtime.h, "Off-mesh links"): arcs between their ends. */
#include <math.h>

#include "dd_internal.h"

enum { ARC_SEGMENTS = 16, CIRCLE_SEGMENTS = 12 };

/* The arc's point at t in [0, 1]: the straight segment a-b lifted by a parabola of height h over
   the higher end. */
static void arc_point(const float a[3], const float b[3], float h, float t, float out[3]) {
    for (int k = 0; k < 3; ++k) out[k] = a[k] + (b[k] - a[k]) * t;
    float top = fmaxf(a[1], b[1]) + h;
    /* a parabola through a (t 0), b (t 1) whose peak reaches about `top` */
    float lin = a[1] + (b[1] - a[1]) * t;
    out[1] = lin + 4 * t * (1 - t) * (top - 0.5f * (a[1] + b[1]));
}

static void head(const ptl_dd_sink* s, const float tip[3], const float from[3], ptl_dd_color c) {
    float dx = from[0] - tip[0], dy = from[1] - tip[1], dz = from[2] - tip[2];
    float len = sqrtf(dx * dx + dy * dy + dz * dz);
    if (!(len > 1e-6f)) return;
    float h = 0.3f / len;
    /* two wings: back along the arc, spread sideways in plan */
    float sx = -dz, sz = dx, sl = sqrtf(sx * sx + sz * sz);
    sx = sl > 1e-6f ? sx / sl * 0.15f : 0.15f, sz = sl > 1e-6f ? sz / sl * 0.15f : 0;
    for (int w = -1; w <= 1; w += 2) {
        dd_vertexv(s, tip, 0, c);
        dd_vertex(s, tip[0] + dx * h + sx * (float)w, tip[1] + dy * h, tip[2] + dz * h + sz * (float)w, c);
    }
}

void ptl_dd_offmesh(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm) {
    if (!dd_ok(sink) || !nm) return;
    dd_style st;
    dd_style_resolve(style, &st);
    const ptl_dd_color c = st.col[PTL_DD_COL_OFFMESH];
    const uint32_t n = ptl_navmesh_offmesh_count(nm);
    if (n == 0) return;
    dd_begin(sink, PTL_DD_LINES, st.line_width * 1.5f);
    for (uint32_t i = 0; i < n; ++i) {
        ptl_offmesh_view v;
        if (ptl_navmesh_get_offmesh(nm, i, &v) != PTL_OK) continue;
        float a[3] = {v.start[0], v.start[1] + st.lift, v.start[2]}, b[3] = {v.end[0], v.end[1] + st.lift, v.end[2]};
        float dx = b[0] - a[0], dz = b[2] - a[2];
        float h = fmaxf(0.25f * sqrtf(dx * dx + dz * dz + (b[1] - a[1]) * (b[1] - a[1])), 0.5f);
        float prev[3], p[3];
        arc_point(a, b, h, 0, prev);
        for (int k = 1; k <= ARC_SEGMENTS; ++k) {
            arc_point(a, b, h, (float)k / ARC_SEGMENTS, p);
            dd_vertexv(sink, prev, 0, c);
            dd_vertexv(sink, p, 0, c);
            for (int j = 0; j < 3; ++j) prev[j] = p[j];
        }
        float near_b[3], near_a[3];
        arc_point(a, b, h, 1 - 1.0f / ARC_SEGMENTS, near_b);
        arc_point(a, b, h, 1.0f / ARC_SEGMENTS, near_a);
        head(sink, b, near_b, c);
        if (v.desc.bidir) head(sink, a, near_a, c);
        for (int e = 0; e < 2; ++e) {
            const float* o = e ? b : a;
            for (int k = 0; k < CIRCLE_SEGMENTS; ++k) {
                float t0 = 6.2831853f * (float)k / CIRCLE_SEGMENTS, t1 = 6.2831853f * (float)(k + 1) / CIRCLE_SEGMENTS;
                dd_vertex(sink, o[0] + v.desc.radius * cosf(t0), o[1], o[2] + v.desc.radius * sinf(t0), c);
                dd_vertex(sink, o[0] + v.desc.radius * cosf(t1), o[1], o[2] + v.desc.radius * sinf(t1), c);
            }
        }
    }
    dd_end(sink);
}
