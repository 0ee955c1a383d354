/* Drawing the input and the bake's intermediates: triangles, voxel spans, layers, contours, notches. */
#include <math.h>

#include "dd_internal.h"

/* Shading of a face by its unit normal: a fixed light from above and aside, so that walls, floors
   and slopes read apart. */
static float shade(float nx, float ny, float nz) {
    const float lx = 0.32f, ly = 0.87f, lz = 0.37f; /* unit length */
    float d = nx * lx + ny * ly + nz * lz;
    return 0.55f + 0.45f * fabsf(d);
}

void ptl_dd_trimesh(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_trimesh* m, float max_slope) {
    if (!dd_ok(sink) || !m || !m->verts || !m->tris) return;
    dd_style st;
    dd_style_resolve(style, &st);
    float slope = max_slope > 0 && max_slope <= 90 ? max_slope : 45.0f;
    float walk_cos = cosf(slope * 3.14159265f / 180.0f);
    dd_begin(sink, PTL_DD_TRIS, 0);
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        const uint32_t* ix = &m->tris[3 * t];
        if (ix[0] >= m->vert_count || ix[1] >= m->vert_count || ix[2] >= m->vert_count) continue;
        const float *a = &m->verts[3 * ix[0]], *b = &m->verts[3 * ix[1]], *c = &m->verts[3 * ix[2]];
        float e0[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e1[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]};
        float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(len > 0) || !isfinite(len)) continue; /* degenerate: nothing to see */
        n[0] /= len, n[1] /= len, n[2] /= len;
        ptl_dd_color base = st.col[n[1] > walk_cos ? PTL_DD_COL_TRI_WALKABLE : PTL_DD_COL_TRI_STEEP];
        ptl_dd_color c0 = dd_scale(base, shade(n[0], n[1], n[2]));
        dd_vertexv(sink, a, 0, c0);
        dd_vertexv(sink, b, 0, c0);
        dd_vertexv(sink, c, 0, c0);
    }
    dd_end(sink);
}

/* One side of a span's box, between heights y0 and y1: side 0 faces -x, 1 +x, 2 -z, 3 +z. */
static void side(const ptl_dd_sink* s, int f, float x0, float z0, float x1, float z1, float y0, float y1,
                 ptl_dd_color c) {
    const float q[4][4][3] = {
        {{x0, y0, z0}, {x0, y0, z1}, {x0, y1, z1}, {x0, y1, z0}}, /* -x */
        {{x1, y0, z1}, {x1, y0, z0}, {x1, y1, z0}, {x1, y1, z1}}, /* +x */
        {{x1, y0, z0}, {x0, y0, z0}, {x0, y1, z0}, {x1, y1, z0}}, /* -z */
        {{x0, y0, z1}, {x1, y0, z1}, {x1, y1, z1}, {x0, y1, z1}}, /* +z */
    };
    static const int tri[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; ++k) dd_vertexv(s, q[f][tri[k]], 0, c);
}

/* Does column (x, s->z) hold a span with the same top as s (height and walkability)? */
static bool same_top(const ptl_bake_debug* dbg, const ptl_dbg_solid_span* s, int32_t x) {
    uint32_t n;
    const ptl_dbg_solid_span* col = ptl_bake_debug_solid_column(dbg, x, s->z, &n);
    for (uint32_t k = 0; k < n; ++k)
        if (col[k].smax == s->smax) return col[k].walkable == s->walkable;
    return false;
}

/* The stretches of a span's face f that no span of the neighbouring column covers, bottom to top
   (columns list their spans bottom to top, disjoint: one merge-like walk). */
typedef struct stretch_iter {
    const ptl_dbg_solid_span* nb;
    uint32_t nn, k, lo, end;
} stretch_iter;

static const int DX[4] = {-1, 1, 0, 0}, DZ[4] = {0, 0, -1, 1}; /* faces -x, +x, -z, +z */

static void stretch_init(stretch_iter* it, const ptl_bake_debug* dbg, const ptl_dbg_solid_span* s, int f) {
    it->nb = ptl_bake_debug_solid_column(dbg, s->x + DX[f], s->z + DZ[f], &it->nn);
    it->k = 0, it->lo = s->smin, it->end = s->smax;
}

static bool stretch_next(stretch_iter* it, uint32_t* a, uint32_t* b) {
    while (it->lo < it->end) {
        if (it->k < it->nn) {
            const ptl_dbg_solid_span* n = &it->nb[it->k++];
            if (n->smax <= it->lo) continue;
            if (n->smin >= it->end) {
                it->k = it->nn;
                continue;
            }
            uint32_t lo = it->lo;
            it->lo = n->smax;
            if (n->smin > lo) {
                *a = lo, *b = n->smin;
                return true;
            }
            continue;
        }
        *a = it->lo, *b = it->end;
        it->lo = it->end;
        return true;
    }
    return false;
}

/* Does column (x, z) hold a span of this walkability whose face f leaves exactly [a, b) open? */
static bool has_stretch(const ptl_bake_debug* dbg, int32_t x, int32_t z, int f, uint8_t walkable, uint32_t a,
                        uint32_t b) {
    uint32_t n;
    const ptl_dbg_solid_span* col = ptl_bake_debug_solid_column(dbg, x, z, &n);
    for (uint32_t k = 0; k < n; ++k) {
        if (col[k].smin > a || col[k].smax < b) continue;
        if (col[k].walkable != walkable) return false;
        stretch_iter it;
        stretch_init(&it, dbg, &col[k], f);
        uint32_t p, q;
        while (stretch_next(&it, &p, &q))
            if (p == a && q == b) return true;
        return false;
    }
    return false;
}

/* Solid spans as boxes: their tops and the parts of their sides that no solid span of the
   neighbouring column covers (the rest is inside the solid and never seen), each merged with the
   same top or the same open stretch of the next columns into one quad (tops and the z-facing sides
   along x, the x-facing sides along z). On a level's heightfield that removes most of the cost. */
void ptl_dd_solid_spans(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_bake_debug* dbg) {
    if (!dd_ok(sink) || !dbg) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_dbg_grid g;
    ptl_bake_debug_get_grid(dbg, &g);
    uint32_t n;
    const ptl_dbg_solid_span* sp = ptl_bake_debug_solid_spans(dbg, &n);
    const float shade_x = shade(1, 0, 0), shade_z = shade(0, 0, 1), shade_top = shade(0, 1, 0);
    dd_begin(sink, PTL_DD_TRIS, 0);
    for (uint32_t i = 0; i < n; ++i) {
        const ptl_dbg_solid_span* s = &sp[i];
        float x0 = g.bmin[0] + (float)s->x * g.cs, z0 = g.bmin[2] + (float)s->z * g.cs;
        float y1 = g.bmin[1] + (float)s->smax * g.ch;
        ptl_dd_color c = st.col[s->walkable ? PTL_DD_COL_SPAN_WALKABLE : PTL_DD_COL_SPAN_SOLID];
        ptl_dd_color top = dd_scale(c, shade_top);
        if (!same_top(dbg, s, s->x - 1)) {
            /* the first top of a run along +x at this height: one quad for the whole run */
            int32_t x = s->x;
            while (same_top(dbg, s, x + 1)) ++x;
            float xe = g.bmin[0] + (float)(x + 1) * g.cs, z1 = z0 + g.cs;
            dd_vertex(sink, x0, y1, z0, top), dd_vertex(sink, x0, y1, z1, top), dd_vertex(sink, xe, y1, z1, top);
            dd_vertex(sink, x0, y1, z0, top), dd_vertex(sink, xe, y1, z1, top), dd_vertex(sink, xe, y1, z0, top);
        }
        for (int f = 0; f < 4; ++f) {
            ptl_dd_color sc = dd_scale(c, f < 2 ? shade_x : shade_z);
            int rx = f < 2 ? 0 : 1, rz = f < 2 ? 1 : 0; /* the run's direction, along the face */
            stretch_iter it;
            stretch_init(&it, dbg, s, f);
            uint32_t a, b;
            while (stretch_next(&it, &a, &b)) {
                if (has_stretch(dbg, s->x - rx, s->z - rz, f, s->walkable, a, b)) continue; /* drawn with its run */
                int32_t m = 1;
                while (has_stretch(dbg, s->x + m * rx, s->z + m * rz, f, s->walkable, a, b)) ++m;
                side(sink, f, x0, z0, x0 + g.cs * (float)(rx ? m : 1), z0 + g.cs * (float)(rz ? m : 1),
                     g.bmin[1] + (float)a * g.ch, g.bmin[1] + (float)b * g.ch, sc);
            }
        }
    }
    dd_end(sink);
}

void ptl_dd_layers(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_bake_debug* dbg) {
    if (!dd_ok(sink) || !dbg) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_dbg_grid g;
    ptl_bake_debug_get_grid(dbg, &g);
    uint32_t n;
    const ptl_dbg_open_span* sp = ptl_bake_debug_open_spans(dbg, &n);
    dd_begin(sink, PTL_DD_TRIS, 0);
    for (uint32_t i = 0; i < n; ++i) {
        ptl_dd_color c = sp[i].layer == PTL_NONE ? dd_with_alpha(st.col[PTL_DD_COL_SPAN_UNREACHED], st.fill_alpha)
                                                 : ptl_dd_layer_color(sp[i].layer, st.fill_alpha);
        /* a small inset so neighbouring columns of one layer read as a grid */
        float in = g.cs * 0.06f;
        float x0 = g.bmin[0] + (float)sp[i].x * g.cs + in, z0 = g.bmin[2] + (float)sp[i].z * g.cs + in;
        float x1 = x0 + g.cs - 2 * in, z1 = z0 + g.cs - 2 * in;
        float y = g.bmin[1] + (float)sp[i].floor * g.ch + st.lift * 0.5f;
        dd_vertex(sink, x0, y, z0, c), dd_vertex(sink, x0, y, z1, c), dd_vertex(sink, x1, y, z1, c);
        dd_vertex(sink, x0, y, z0, c), dd_vertex(sink, x1, y, z1, c), dd_vertex(sink, x1, y, z0, c);
    }
    dd_end(sink);
}

static void contour(const ptl_dd_sink* sink, const dd_style* st, const ptl_dbg_contour* c, bool simplified) {
    if (!c->vert_count) return;
    dd_begin(sink, PTL_DD_LINES, simplified ? st->line_width * 1.5f : st->line_width);
    for (uint32_t r = 0; r < c->ring_count; ++r) {
        uint32_t b = c->ring_start[r], e = c->ring_start[r + 1];
        for (uint32_t i = b; i < e; ++i) {
            uint32_t j = i + 1 < e ? i + 1 : b;
            ptl_dd_color col = st->col[PTL_DD_COL_CONTOUR_RAW];
            if (simplified)
                col = st->col[c->flags[i] & PTL_DBG_VERT_JUNCTION ? PTL_DD_COL_CONTOUR_JUNCTION
                              : c->flags[i] & PTL_DBG_VERT_GAP    ? PTL_DD_COL_CONTOUR_GAP
                                                                  : PTL_DD_COL_CONTOUR_WALL];
            float dy = st->lift * (simplified ? 2.0f : 1.5f);
            dd_vertexv(sink, &c->verts[3 * i], dy, col);
            dd_vertexv(sink, &c->verts[3 * j], dy, col);
        }
    }
    dd_end(sink);
    dd_begin(sink, PTL_DD_POINTS, simplified ? st->point_size : st->point_size * 0.6f);
    ptl_dd_color pc = st->col[simplified ? PTL_DD_COL_SIMPLIFIED_VERT : PTL_DD_COL_CORNER];
    for (uint32_t i = 0; i < c->vert_count; ++i)
        dd_vertexv(sink, &c->verts[3 * i], st->lift * (simplified ? 2.0f : 1.5f), pc);
    dd_end(sink);
}

void ptl_dd_contours(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_bake_debug* dbg, uint32_t flags) {
    if (!dd_ok(sink) || !dbg) return;
    dd_style st;
    dd_style_resolve(style, &st);
    uint32_t nl = ptl_bake_debug_layer_count(dbg);
    for (uint32_t l = 0; l < nl; ++l) {
        ptl_dbg_contour c;
        if ((flags & PTL_DD_CONTOUR_RAW) && ptl_bake_debug_get_contour(dbg, l, false, &c) == PTL_OK)
            contour(sink, &st, &c, false);
        if ((flags & PTL_DD_CONTOUR_SIMPLIFIED) && ptl_bake_debug_get_contour(dbg, l, true, &c) == PTL_OK)
            contour(sink, &st, &c, true);
    }
}

void ptl_dd_notches(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_bake_debug* dbg) {
    if (!dd_ok(sink) || !dbg) return;
    dd_style st;
    dd_style_resolve(style, &st);
    uint32_t nl = ptl_bake_debug_layer_count(dbg), rank0 = 0;
    for (uint32_t l = 0; l < nl; ++l) {
        ptl_dbg_decomp d;
        if (ptl_bake_debug_get_decomp(dbg, l, &d) != PTL_OK || !d.vert_count) continue;
        float dy = st.lift * 2.5f;
        dd_begin(sink, PTL_DD_POINTS, st.point_size);
        for (uint32_t k = 0; k < d.notch_count; ++k)
            if (d.notches[k] < d.vert_count) dd_vertexv(sink, &d.verts[3 * d.notches[k]], dy, ptl_dd_index_color(rank0 + k));
        dd_end(sink);
        dd_begin(sink, PTL_DD_LINES, st.line_width * 1.5f);
        for (uint32_t p = 0; p < d.portal_count; ++p) {
            uint32_t a = d.portal_verts[2 * p], b = d.portal_verts[2 * p + 1];
            if (a >= d.vert_count || b >= d.vert_count) continue;
            ptl_dd_color c = st.col[PTL_DD_COL_PORTAL];
            if (d.portal_notch[p] != PTL_NONE) {
                /* the notch's rank: notches are listed in increasing vertex order */
                uint32_t lo = 0, hi = d.notch_count;
                while (lo < hi) {
                    uint32_t mid = (lo + hi) / 2;
                    if (d.notches[mid] < d.portal_notch[p]) lo = mid + 1;
                    else hi = mid;
                }
                c = ptl_dd_index_color(rank0 + lo);
            }
            dd_vertexv(sink, &d.verts[3 * a], dy, c);
            dd_vertexv(sink, &d.verts[3 * b], dy, c);
        }
        dd_end(sink);
        rank0 += d.notch_count;
    }
}
