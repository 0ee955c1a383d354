/* Contours of a layer: corner points, junctions, simplification (see contours.h).

   1. The layer's columns form a grid map; its exact contours come from the grid tracer
      (shape_grid.c), which walks the corner points of Saupin et al. 2014 §4.1.3 and turns at slash
      and antislash points so that regions touching at a corner stay apart (§4.1.2).
   2. Each unit edge of a contour separates a column of the layer from one that is not: it is a
      junction when the layer's span there links (a climbable step with headroom, filter.c) to a
      span of another layer, and a wall otherwise. A vertex is inserted wherever the kind changes,
      so that every edge has one kind.
   3. Wall runs are simplified with as few vertices as the tolerance allows (the min-# problem of
      Imai and Iri 1988; see min_chords), the tolerance in columns, Ramer-Douglas-Peucker (Douglas
      and Peucker 1973) taking over where a chord of that solution is refused. A ring with nothing
      fixed on it is simplified from the start that suits it best (plan_closed_ring). Junctions,
      pinch points and the ends of runs stay where they are, so the layers on
      both sides of a junction keep identical vertices there and can be stitched (layer_merge.c). A
      chord replaces a piece of chain only if it crosses or touches no other edge and the pocket
      between them holds no vertex; otherwise the chain is split at its farthest point, down to its
      original edges, so the result is always a set of simple, non-crossing rings.
   4. Then a run of two or three notches that a rounded corner left is replaced by one vertex off
      the lattice, within the tolerance of the outline (corner_run), under the same checks. */
#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "contours_internal.h"

enum { DIR_NEG_X = 0, DIR_POS_Z = 1, DIR_POS_X = 2, DIR_NEG_Z = 3 };

/* Kind of the unit edge from lattice point (u, v) one step along (du, dv): the layer across it, or
   PTL_NONE for a wall. Free space is on the left of the edge: that column is the layer's. */
uint32_t ptl_contour_edge_kind(const ptl_layer_map* m, const ptl_layer_contour* c, uint32_t layer, int64_t u,
                               int64_t v, int du, int dv) {
    int64_t lu, lv;
    int dir;
    if (du == 1) lu = u, lv = v, dir = DIR_NEG_Z;
    else if (dv == 1) lu = u - 1, lv = v, dir = DIR_POS_X;
    else if (du == -1) lu = u - 1, lv = v - 1, dir = DIR_POS_Z;
    else lu = u, lv = v - 1, dir = DIR_NEG_X;
    if (lu < 0 || lv < 0 || lu >= (int64_t)c->w || lv >= (int64_t)c->d) return PTL_NONE;
    return ptl_lmap_edge_kind(m, layer, c->x0 + lu, c->z0 + lv, dir);
}

/* Step 2: rings with a vertex wherever the kind of edge changes. */
static ptl_status split_kinds(const ptl_layer_map* map, const ptl_layer_contour* c, uint32_t layer, const ptl_shape* raw,
                              const ptl_allocator* a, ptl_contours_f64* xy, ptl_contours_u32* rs, ptl_contours_u32* kind) {
    for (uint32_t r = 0; r < raw->ring_count; ++r) {
        if (!PTL_PUSH(a, *rs, xy->count / 2)) return PTL_ERR_NO_MEMORY;
        uint32_t b = raw->ring_start[r], m = raw->ring_start[r + 1] - b;
        for (uint32_t i = 0; i < m; ++i) {
            const double* p = &raw->xy[2 * (b + i)];
            const double* q = &raw->xy[2 * (b + (i + 1) % m)];
            int du = q[0] > p[0] ? 1 : q[0] < p[0] ? -1 : 0, dv = q[1] > p[1] ? 1 : q[1] < p[1] ? -1 : 0;
            int64_t steps = (int64_t)fabs(q[0] - p[0] + q[1] - p[1]);
            uint32_t prev = PTL_VX_NONE;
            for (int64_t k = 0; k < steps; ++k) {
                int64_t u = (int64_t)p[0] + du * k, v = (int64_t)p[1] + dv * k;
                uint32_t t = ptl_contour_edge_kind(map, c, layer, u, v, du, dv);
                if (k > 0 && t == prev) continue;
                if (!PTL_PUSH(a, *xy, (double)u) || !PTL_PUSH(a, *xy, (double)v) || !PTL_PUSH(a, *kind, t))
                    return PTL_ERR_NO_MEMORY;
                prev = t;
            }
        }
    }
    if (!PTL_PUSH(a, *rs, xy->count / 2)) return PTL_ERR_NO_MEMORY;
    return PTL_OK;
}

/* ---- The layer ------------------------------------------------------------------------------- */

void ptl_layer_contour_free(ptl_layer_contour* c) {
    if (!c) return;
    ptl_mem_free(&c->alloc, c->edge_to, ((size_t)c->shape.vert_count + 1) * sizeof(uint32_t));
    ptl_shape_free(&c->shape);
    memset(c, 0, sizeof *c);
}

void ptl_contour_raw_free(ptl_contour_raw* r) {
    ptl_mem_free(&r->alloc, r->xy, ((size_t)r->vert_count * 2 + 1) * sizeof *r->xy);
    ptl_mem_free(&r->alloc, r->kind, ((size_t)r->vert_count + 1) * sizeof *r->kind);
    ptl_mem_free(&r->alloc, r->ring_start, ((size_t)r->ring_count + 1) * sizeof *r->ring_start);
    memset(r, 0, sizeof *r);
}

bool ptl_contour_raw_equal(const ptl_contour_raw* a, const ptl_contour_raw* b) {
    return a->x0 == b->x0 && a->z0 == b->z0 && a->w == b->w && a->d == b->d && a->layer == b->layer &&
           a->vert_count == b->vert_count && a->ring_count == b->ring_count &&
           !memcmp(a->ring_start, b->ring_start, ((size_t)a->ring_count + 1) * sizeof *a->ring_start) &&
           !memcmp(a->kind, b->kind, (size_t)a->vert_count * sizeof *a->kind) &&
           !memcmp(a->xy, b->xy, (size_t)a->vert_count * 2 * sizeof *a->xy);
}

ptl_status ptl_contour_layer_raw(const ptl_layer_map* m, const ptl_layer_set* ls, uint32_t layer,
                                 const ptl_allocator* alloc, ptl_contour_raw* out) {
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    out->alloc = a;
    if (layer >= ls->layer_count) return PTL_ERR_INVALID_ARG;
    const ptl_layer_info* li = &ls->layers[layer];
    ptl_layer_contour c; /* the frame split_kinds reads */
    memset(&c, 0, sizeof c);
    c.x0 = out->x0 = li->x0, c.z0 = out->z0 = li->z0;
    c.w = out->w = (uint32_t)(li->x1 - li->x0 + 1), c.d = out->d = (uint32_t)(li->z1 - li->z0 + 1);
    c.layer = out->layer = layer;
    ptl_contours_f64 rxy = {0};
    ptl_contours_u32 rstart = {0};
    ptl_status st = ptl_contours_trace(m, li, layer, &a, &rxy, &rstart);
    ptl_shape raw; /* a view of the traced rings (not freed as a shape) */
    memset(&raw, 0, sizeof raw);
    raw.xy = rxy.data, raw.vert_count = rxy.count / 2;
    raw.ring_start = rstart.data, raw.ring_count = rstart.count ? rstart.count - 1 : 0;
    ptl_contours_f64 xy = {0};
    ptl_contours_u32 rs = {0}, kind = {0};
    if (st == PTL_OK) st = split_kinds(m, &c, layer, &raw, &a, &xy, &rs, &kind);
    PTL_ARRAY_FREE(&a, rxy);
    PTL_ARRAY_FREE(&a, rstart);
    if (st == PTL_OK) {
        out->vert_count = xy.count / 2, out->ring_count = rs.count - 1;
        out->xy = ptl_mem_alloc(&a, ((size_t)out->vert_count * 2 + 1) * sizeof *out->xy);
        out->kind = ptl_mem_alloc(&a, ((size_t)out->vert_count + 1) * sizeof *out->kind);
        out->ring_start = ptl_mem_alloc(&a, ((size_t)out->ring_count + 1) * sizeof *out->ring_start);
        if (!out->xy || !out->kind || !out->ring_start) st = PTL_ERR_NO_MEMORY;
    }
    if (st == PTL_OK) {
        if (xy.count) memcpy(out->xy, xy.data, (size_t)xy.count * sizeof *out->xy);
        if (kind.count) memcpy(out->kind, kind.data, (size_t)kind.count * sizeof *out->kind);
        memcpy(out->ring_start, rs.data, (size_t)rs.count * sizeof *out->ring_start);
    }
    PTL_ARRAY_FREE(&a, xy);
    PTL_ARRAY_FREE(&a, rs);
    PTL_ARRAY_FREE(&a, kind);
    if (st < 0) ptl_contour_raw_free(out);
    return st;
}

ptl_status ptl_contour_from_raw(const ptl_contour_raw* r, double max_error, const ptl_allocator* alloc,
                                const ptl_contour_plans* old, ptl_contour_plans* plans, ptl_layer_contour* out,
                                ptl_error* err) {
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    out->alloc = a;
    out->x0 = r->x0, out->z0 = r->z0, out->w = r->w, out->d = r->d, out->layer = r->layer;
    ptl_contours_f64 xy = {0}; /* the simplification works in place: on copies */
    ptl_contours_u32 rs = {0}, kind = {0};
    ptl_status st = PTL_RESERVE(&a, xy, (uint64_t)r->vert_count * 2 + 1) && PTL_RESERVE(&a, kind, (uint64_t)r->vert_count + 1) &&
                    PTL_RESERVE(&a, rs, (uint64_t)r->ring_count + 1) ? PTL_OK : PTL_ERR_NO_MEMORY;
    if (st == PTL_OK) {
        if (r->vert_count) memcpy(xy.data, r->xy, (size_t)r->vert_count * 2 * sizeof *xy.data);
        if (r->vert_count) memcpy(kind.data, r->kind, (size_t)r->vert_count * sizeof *kind.data);
        memcpy(rs.data, r->ring_start, ((size_t)r->ring_count + 1) * sizeof *rs.data);
        xy.count = r->vert_count * 2, kind.count = r->vert_count, rs.count = r->ring_count + 1;
        st = ptl_contours_simplify(&a, max_error, old, plans, &xy, &rs, &kind);
    }
    if (st == PTL_OK) {
        uint32_t n = xy.count / 2;
        out->shape.alloc = a;
        out->shape.vert_count = n;
        out->shape.ring_count = rs.count - 1;
        out->shape.xy = ptl_mem_alloc(&a, (size_t)n * 2 * sizeof(double));
        out->shape.ring_start = ptl_mem_alloc(&a, (size_t)rs.count * sizeof(uint32_t));
        out->edge_to = ptl_mem_alloc(&a, ((size_t)n + 1) * sizeof(uint32_t));
        if (!out->shape.xy || !out->shape.ring_start || !out->edge_to) {
            st = PTL_ERR_NO_MEMORY;
        } else {
            memcpy(out->shape.xy, xy.data, (size_t)n * 2 * sizeof(double));
            memcpy(out->shape.ring_start, rs.data, (size_t)rs.count * sizeof(uint32_t));
            memcpy(out->edge_to, kind.data, (size_t)n * sizeof(uint32_t));
        }
    }
    PTL_ARRAY_FREE(&a, xy);
    PTL_ARRAY_FREE(&a, rs);
    PTL_ARRAY_FREE(&a, kind);
    if (st < 0) {
        ptl_layer_contour_free(out);
        return ptl_error_set(err, st, "contours: out of memory");
    }
    return ptl_error_ok(err);
}

ptl_status ptl_contour_layer(const ptl_layer_map* m, const ptl_layer_set* ls, uint32_t layer, double max_error,
                             const ptl_allocator* alloc, ptl_layer_contour* out, ptl_error* err) {
    memset(out, 0, sizeof *out);
    if (layer >= ls->layer_count) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "contours: no layer %u", layer);
    ptl_contour_raw raw;
    ptl_status st = ptl_contour_layer_raw(m, ls, layer, alloc, &raw);
    if (st < 0) return ptl_error_set(err, st, "contours: out of memory");
    st = ptl_contour_from_raw(&raw, max_error, alloc, NULL, NULL, out, err);
    ptl_contour_raw_free(&raw);
    return st;
}

/* Highest floor of the layer among the columns touching local point (u, v); the nearest of its
   columns within 3 when none touches (a simplified contour may pass just outside the columns). */
double ptl_contour_height(const ptl_layer_map* m, const ptl_layer_contour* c, double u, double v) {
    int64_t u0 = (int64_t)floor(u), v0 = (int64_t)floor(v);
    int64_t ua = u == (double)u0 ? u0 - 1 : u0, va = v == (double)v0 ? v0 - 1 : v0;
    int best = -1;
    for (int64_t z = va; z <= v0; ++z) {
        for (int64_t x = ua; x <= u0; ++x) {
            const int32_t f = ptl_contour_floor(m, c, x, z);
            if (f > best) best = f;
        }
    }
    if (best < 0) {
        double bd = 1e30;
        for (int64_t z = v0 - 3; z <= v0 + 3; ++z) {
            for (int64_t x = u0 - 3; x <= u0 + 3; ++x) {
                const int32_t f = ptl_contour_floor(m, c, x, z);
                if (f < 0) continue;
                double dx = (double)x + 0.5 - u, dz = (double)z + 0.5 - v, d2 = dx * dx + dz * dz;
                if (d2 < bd) bd = d2, best = f;
            }
        }
    }
    return m->p.bmin[1] + (double)(best < 0 ? 0 : best) * m->p.ch;
}
