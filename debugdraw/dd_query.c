/* Drawing paths, corridors and query results, and finding a path's corridor. */
#include <float.h>
#include <math.h>

#include "dd_internal.h"

void ptl_dd_path(const ptl_dd_sink* sink, const ptl_dd_style* style, const float* pts, uint32_t count) {
    if (!dd_ok(sink) || !pts || count == 0) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_dd_color c = st.col[PTL_DD_COL_PATH];
    float dy = st.lift * 4;
    if (count > 1) {
        dd_begin(sink, PTL_DD_LINES, st.line_width * 2);
        for (uint32_t i = 0; i + 1 < count; ++i) {
            dd_vertexv(sink, &pts[3 * i], dy, c);
            dd_vertexv(sink, &pts[3 * (i + 1)], dy, c);
        }
        dd_end(sink);
    }
    dd_begin(sink, PTL_DD_POINTS, st.point_size);
    for (uint32_t i = 0; i < count; ++i) dd_vertexv(sink, &pts[3 * i], dy, c);
    dd_end(sink);
}

void ptl_dd_corridor(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm, const uint32_t* cells,
                     uint32_t count) {
    if (!dd_ok(sink) || !nm || !cells) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_dd_color c = st.col[PTL_DD_COL_CORRIDOR];
    for (uint32_t k = 0; k < count; ++k) {
        ptl_cell_view cv;
        if (ptl_navmesh_get_cell(nm, cells[k], &cv) != PTL_OK) continue;
        dd_begin(sink, PTL_DD_TRIS, 0);
        const float* v0 = ptl_navmesh_vert(nm, cv.verts[0]);
        for (uint32_t i = 1; v0 && i + 1 < cv.vert_count; ++i) {
            const float *a = ptl_navmesh_vert(nm, cv.verts[i]), *b = ptl_navmesh_vert(nm, cv.verts[i + 1]);
            dd_vertexv(sink, v0, st.lift * 1.6f, c);
            dd_vertexv(sink, a, st.lift * 1.6f, c);
            dd_vertexv(sink, b, st.lift * 1.6f, c);
        }
        dd_end(sink);
    }
}

/* Walking a path through the cells, in plan (x-z: the runtime's cells are convex there).

   Each segment o + t d (t in [0, 1]) is clipped against the current cell grown by `tol` (Cyrus-Beck:
   edge a -> b keeps its inside on the left, f(t) = cross(b - a, p(t) - a) / |b - a| >= -tol). Where
   the segment leaves the cell at t_out < 1, the next cell is found among the cells the segment
   touches between where it entered the current cell and t_out, reached through neighbours only (a
   breadth-first search: a handful, the fan around a vertex the path passes through): the one the
   segment goes on through the furthest. The cells on the way to it are listed too, so consecutive
   corridor cells are always neighbours. Working over the stretch rather than at the exit point
   matters where the segment leaves a cell at a grazing angle, a tolerance away from the vertex it
   passes. No allocation: the search is bounded by a small array on the stack. */
enum { FAN_MAX = 64 };

typedef struct clip_seg {
    double o[2], d[2]; /* x, z */
    double tol;        /* [Units: wu] */
} clip_seg;

/* The interval [*tin, *tout] of the segment inside the grown cell; false when empty or bad cell. */
static bool clip_cell(const ptl_navmesh* nm, uint32_t cell, const clip_seg* s, double* tin, double* tout) {
    ptl_cell_view cv;
    if (ptl_navmesh_get_cell(nm, cell, &cv) != PTL_OK || cv.vert_count < 3) return false;
    double lo = -INFINITY, hi = INFINITY;
    for (uint32_t i = 0; i < cv.vert_count; ++i) {
        const float *a = ptl_navmesh_vert(nm, cv.verts[i]), *b = ptl_navmesh_vert(nm, cv.verts[(i + 1) % cv.vert_count]);
        if (!a || !b) return false;
        double ex = (double)b[0] - a[0], ez = (double)b[2] - a[2], el = sqrt(ex * ex + ez * ez);
        if (!(el > 0)) continue;
        double f0 = (ex * (s->o[1] - a[2]) - ez * (s->o[0] - a[0])) / el; /* cross(e, o - a) / |e| */
        double fd = (ex * s->d[1] - ez * s->d[0]) / el;
        double lim = -s->tol - f0;
        if (fd > 0) lo = fmax(lo, lim / fd);
        else if (fd < 0) hi = fmin(hi, lim / fd);
        else if (f0 < -s->tol) return false;
    }
    *tin = lo, *tout = hi;
    return lo <= hi;
}

typedef struct corridor_out {
    uint32_t* cells;
    uint32_t capacity, total, last;
} corridor_out;

static void emit(corridor_out* c, uint32_t cell) {
    if (cell == c->last) return;
    if (c->cells && c->total < c->capacity) c->cells[c->total] = cell;
    c->total++, c->last = cell;
}

/* From `cur`, which the segment crosses over [t, t_out], the next cell: breadth-first over the
   neighbours the segment touches within that stretch (their interval meets [t, t_out], within
   tolerance: the fan of cells around a vertex the path passes through), the one whose interval
   reaches furthest beyond t_out. Emits the cells on the way (not cur, emitted already) and returns
   the new cell, or PTL_NONE (the path leaves the mesh, or the fan is larger than FAN_MAX). */
static uint32_t step_on(const ptl_navmesh* nm, uint32_t cur, const clip_seg* s, double t, double t_out, double teps,
                        corridor_out* out) {
    uint32_t queue[FAN_MAX], parent[FAN_MAX];
    uint32_t head = 0, tail = 0, best = PTL_NONE;
    double best_t = t_out + teps;
    queue[tail] = cur, parent[tail++] = PTL_NONE;
    while (head < tail) {
        uint32_t k = head++;
        ptl_cell_view cv;
        if (ptl_navmesh_get_cell(nm, queue[k], &cv) != PTL_OK) continue;
        for (uint32_t i = 0; i < cv.vert_count; ++i) {
            uint32_t nb = cv.neighbors[i];
            if (nb == PTL_NONE) continue;
            bool seen = false;
            for (uint32_t j = 0; j < tail && !seen; ++j) seen = queue[j] == nb;
            double tin, tout;
            if (seen || tail == FAN_MAX || !clip_cell(nm, nb, s, &tin, &tout) || tin > t_out + teps ||
                tout < t - teps)
                continue;
            queue[tail] = nb, parent[tail] = k;
            if (tout > best_t) best_t = tout, best = tail;
            tail++;
        }
    }
    if (best == PTL_NONE) return PTL_NONE;
    /* the chain from cur to best, in order */
    uint32_t chain[FAN_MAX], n = 0;
    for (uint32_t k = best; k != 0 && k != PTL_NONE; k = parent[k]) chain[n++] = queue[k];
    while (n) emit(out, chain[--n]);
    return queue[best];
}

uint32_t ptl_dd_path_corridor(const ptl_navmesh* nm, uint32_t start_cell, const float* pts, uint32_t count,
                              uint32_t* cells, uint32_t capacity) {
    if (!nm || !pts || count == 0) return 0;
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    if (start_cell >= in.cell_count) return 0;
    /* tolerance: a millionth of the extent, and a few float ulps of the coordinates (a level far from
       the origin stores its vertices with that much rounding: edges of neighbouring cells need not
       be exactly collinear) */
    double scale = fmax(fmax(fabs(in.bmax[0] - in.bmin[0]), fabs(in.bmax[2] - in.bmin[2])), 1.0);
    double mag = fmax(fmax(fabs(in.bmin[0]), fabs(in.bmax[0])), fmax(fabs(in.bmin[2]), fabs(in.bmax[2])));
    double tol = 1e-6 * scale + 8.0 * FLT_EPSILON * mag;
    corridor_out out = {cells, capacity, 0, PTL_NONE};
    uint32_t cur = start_cell;
    emit(&out, cur);
    for (uint32_t i = 0; i + 1 < count; ++i) {
        clip_seg s = {{pts[3 * i], pts[3 * i + 2]},
                      {(double)pts[3 * (i + 1)] - pts[3 * i], (double)pts[3 * (i + 1) + 2] - pts[3 * i + 2]},
                      tol};
        double len = sqrt(s.d[0] * s.d[0] + s.d[1] * s.d[1]);
        if (!(len > 0)) continue;
        double teps = s.tol / len, t = 0;
        /* every step moves t forward by more than teps or enters a new cell of the fan: bounded */
        for (uint64_t guard = 0; guard < 4ull * in.cell_count + 16; ++guard) {
            double tin, tout;
            if (!clip_cell(nm, cur, &s, &tin, &tout) || tout < t) tout = t; /* numerically just outside */
            if (tout >= 1 - teps) break;  /* the segment ends in this cell */
            uint32_t next = step_on(nm, cur, &s, t, tout, teps, &out);
            if (next == PTL_NONE) return out.total; /* the path leaves the mesh */
            cur = next, t = tout;
        }
    }
    return out.total;
}

void ptl_dd_nearest(const ptl_dd_sink* sink, const ptl_dd_style* style, const float q[3], const ptl_location* loc) {
    if (!dd_ok(sink) || !q || !loc || loc->cell == PTL_NONE) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_dd_color c = st.col[PTL_DD_COL_NEAREST];
    dd_begin(sink, PTL_DD_LINES, st.line_width);
    dd_vertexv(sink, q, 0, c);
    dd_vertexv(sink, loc->point, st.lift * 4, c);
    dd_end(sink);
    dd_begin(sink, PTL_DD_POINTS, st.point_size);
    dd_vertexv(sink, q, 0, c);
    dd_vertexv(sink, loc->point, st.lift * 4, c);
    dd_end(sink);
}

void ptl_dd_raycast(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_dd_ray* r) {
    if (!dd_ok(sink) || !r) return;
    dd_style st;
    dd_style_resolve(style, &st);
    float dy = st.lift * 4;
    ptl_dd_color free_c = st.col[PTL_DD_COL_RAY], hit_c = st.col[PTL_DD_COL_RAY_HIT];
    dd_begin(sink, PTL_DD_LINES, st.line_width * 1.5f);
    dd_vertexv(sink, r->start, dy, free_c);
    dd_vertexv(sink, r->hit ? r->hit_point : r->end, dy, free_c);
    if (r->hit) {
        dd_vertexv(sink, r->hit_point, dy, hit_c);
        dd_vertexv(sink, r->end, dy, hit_c);
        float nl = sqrtf(r->normal[0] * r->normal[0] + r->normal[2] * r->normal[2]);
        if (nl > 0) {
            float tip[3] = {r->hit_point[0] + 0.5f * r->normal[0] / nl, r->hit_point[1], r->hit_point[2] + 0.5f * r->normal[2] / nl};
            dd_vertexv(sink, r->hit_point, dy, hit_c);
            dd_vertexv(sink, tip, dy, hit_c);
        }
    }
    dd_end(sink);
    dd_begin(sink, PTL_DD_POINTS, st.point_size);
    dd_vertexv(sink, r->start, dy, free_c);
    if (r->hit) dd_vertexv(sink, r->hit_point, dy, hit_c);
    dd_end(sink);
}

void ptl_dd_wall_distance(const ptl_dd_sink* sink, const ptl_dd_style* style, const float p[3], float distance,
                          const float wall_point[3]) {
    if (!dd_ok(sink) || !p || !(distance >= 0) || !isfinite(distance)) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_dd_color c = st.col[PTL_DD_COL_WALL_DISTANCE];
    float dy = st.lift * 4;
    dd_begin(sink, PTL_DD_LINES, st.line_width);
    for (int i = 0; i < 32; ++i) {
        float a0 = (float)i * (6.2831853f / 32), a1 = (float)(i + 1) * (6.2831853f / 32);
        dd_vertex(sink, p[0] + distance * cosf(a0), p[1] + dy, p[2] + distance * sinf(a0), c);
        dd_vertex(sink, p[0] + distance * cosf(a1), p[1] + dy, p[2] + distance * sinf(a1), c);
    }
    if (wall_point) {
        dd_vertexv(sink, p, dy, c);
        dd_vertexv(sink, wall_point, dy, c);
    }
    dd_end(sink);
    dd_begin(sink, PTL_DD_POINTS, st.point_size);
    dd_vertexv(sink, p, dy, c);
    if (wall_point) dd_vertexv(sink, wall_point, dy, c);
    dd_end(sink);
}

static void dd_circle(const ptl_dd_sink* sink, float cx, float cy, float cz, float r, float a0, float span, int n,
                      ptl_dd_color c) {
    for (int i = 0; i < n; ++i) {
        float a = a0 + span * (float)i / (float)n, b = a0 + span * (float)(i + 1) / (float)n;
        dd_vertex(sink, cx + r * cosf(a), cy, cz + r * sinf(a), c);
        dd_vertex(sink, cx + r * cosf(b), cy, cz + r * sinf(b), c);
    }
}

void ptl_dd_path_clearance(const ptl_dd_sink* sink, const ptl_dd_style* style, const float* points, uint32_t count,
                           float radius, const ptl_path_turn* turns, uint32_t turn_count) {
    if (!dd_ok(sink) || !(radius > 0) || !isfinite(radius) || (count > 0 && !points)) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_dd_color band = st.col[PTL_DD_COL_CLEARANCE], turn = st.col[PTL_DD_COL_TURN];
    float dy = st.lift * 3;
    dd_begin(sink, PTL_DD_LINES, st.line_width);
    for (uint32_t i = 0; i + 1 < count; ++i) {
        const float* a = points + 3 * i;
        const float* b = a + 3;
        float dx = b[0] - a[0], dz = b[2] - a[2], len = sqrtf(dx * dx + dz * dz);
        if (!(len > 0)) continue;
        float nx = -dz / len * radius, nz = dx / len * radius;
        for (int side = -1; side <= 1; side += 2) {
            dd_vertex(sink, a[0] + side * nx, a[1] + dy, a[2] + side * nz, band);
            dd_vertex(sink, b[0] + side * nx, b[1] + dy, b[2] + side * nz, band);
        }
    }
    for (uint32_t k = 0; count > 0 && k < 2; ++k) {
        const float* p = points + 3 * (k ? count - 1 : 0);
        dd_circle(sink, p[0], p[1] + dy, p[2], radius, 0, 6.2831853f, 32, band);
    }
    for (uint32_t i = 0; turns && i < turn_count; ++i) {
        const ptl_path_turn* t = &turns[i];
        float y = t->corner[1] + dy;
        float a0 = atan2f(t->entry[2] - t->corner[2], t->entry[0] - t->corner[0]);
        int n = (int)ceilf(t->angle / 6.2831853f * 32);
        if (n < 1) n = 1;
        dd_circle(sink, t->corner[0], y, t->corner[2], t->radius, a0, (float)t->side * t->angle, n, turn);
        dd_vertex(sink, t->corner[0], y, t->corner[2], turn);
        dd_vertex(sink, t->entry[0], y, t->entry[2], turn);
        dd_vertex(sink, t->corner[0], y, t->corner[2], turn);
        dd_vertex(sink, t->exit[0], y, t->exit[2], turn);
    }
    dd_end(sink);
}

void ptl_dd_move(const ptl_dd_sink* sink, const ptl_dd_style* style, const float start[3], const float via[3],
                 const float end[3], const float target[3]) {
    if (!dd_ok(sink) || !start || !end) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_dd_color c = st.col[PTL_DD_COL_MOVE], faint = dd_with_alpha(c, (uint8_t)(PTL_DD_A(c) / 2));
    float dy = st.lift * 5;
    dd_begin(sink, PTL_DD_LINES, st.line_width * 2);
    dd_vertexv(sink, start, dy, c);
    if (via) {
        dd_vertexv(sink, via, dy, c);
        dd_vertexv(sink, via, dy, c);
    }
    dd_vertexv(sink, end, dy, c);
    if (target && (target[0] != end[0] || target[2] != end[2])) {
        dd_vertexv(sink, end, dy, faint);
        dd_vertexv(sink, target, dy, faint);
    }
    dd_end(sink);
    dd_begin(sink, PTL_DD_POINTS, st.point_size * 1.5f);
    dd_vertexv(sink, end, dy, c);
    dd_end(sink);
}
