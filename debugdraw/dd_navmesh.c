/* Drawing a navmesh: cells, portals, links, tiles. */
#include <math.h>

#include "dd_internal.h"

static void fan(const ptl_dd_sink* s, const ptl_navmesh* nm, const ptl_cell_view* cv, float dy, ptl_dd_color c) {
    dd_begin(s, PTL_DD_TRIS, 0);
    const float* v0 = ptl_navmesh_vert(nm, cv->verts[0]);
    for (uint32_t i = 1; v0 && i + 1 < cv->vert_count; ++i) {
        const float *a = ptl_navmesh_vert(nm, cv->verts[i]), *b = ptl_navmesh_vert(nm, cv->verts[i + 1]);
        if (!a || !b) continue;
        dd_vertexv(s, v0, dy, c);
        dd_vertexv(s, a, dy, c);
        dd_vertexv(s, b, dy, c);
    }
    dd_end(s);
}

void ptl_dd_cells(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm, uint32_t flags) {
    if (!dd_ok(sink) || !nm) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    if (flags & PTL_DD_CELLS_FILL) {
        for (uint32_t c = 0; c < in.cell_count; ++c) {
            ptl_cell_view cv;
            if (ptl_navmesh_get_cell(nm, c, &cv) != PTL_OK || cv.link != PTL_NONE) continue;
            const bool by_area = (flags & PTL_DD_CELLS_BY_AREA) && cv.area > 0;
            fan(sink, nm, &cv, st.lift, by_area ? ptl_dd_area_color(cv.area, st.fill_alpha) : ptl_dd_layer_color(cv.layer, st.fill_alpha));
        }
    }
    if (flags & PTL_DD_CELLS_OUTLINE) {
        dd_begin(sink, PTL_DD_LINES, st.line_width);
        ptl_dd_color oc = st.col[PTL_DD_COL_CELL_OUTLINE];
        for (uint32_t c = 0; c < in.cell_count; ++c) {
            ptl_cell_view cv;
            if (ptl_navmesh_get_cell(nm, c, &cv) != PTL_OK || cv.link != PTL_NONE) continue;
            for (uint32_t i = 0; i < cv.vert_count; ++i) {
                if (cv.neighbors[i] != PTL_NONE) continue;
                const float *a = ptl_navmesh_vert(nm, cv.verts[i]), *b = ptl_navmesh_vert(nm, cv.verts[(i + 1) % cv.vert_count]);
                if (!a || !b) continue;
                dd_vertexv(sink, a, st.lift * 1.2f, oc);
                dd_vertexv(sink, b, st.lift * 1.2f, oc);
            }
        }
        dd_end(sink);
    }
}

/* Is cell c walkable (not a link cell), and which layer? */
static bool walkable_cell(const ptl_navmesh* nm, uint32_t c, uint32_t* layer) {
    ptl_cell_view cv;
    if (ptl_navmesh_get_cell(nm, c, &cv) != PTL_OK || cv.link != PTL_NONE) return false;
    *layer = cv.layer;
    return true;
}

void ptl_dd_portals(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm) {
    if (!dd_ok(sink) || !nm) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    dd_begin(sink, PTL_DD_LINES, st.line_width);
    for (uint32_t p = 0; p < in.portal_count; ++p) {
        ptl_portal_view pv;
        uint32_t l0, l1;
        if (ptl_navmesh_get_portal(nm, p, &pv) != PTL_OK || !walkable_cell(nm, pv.cell[0], &l0) ||
            !walkable_cell(nm, pv.cell[1], &l1) || l0 != l1)
            continue;
        const float *a = ptl_navmesh_vert(nm, pv.vert[0]), *b = ptl_navmesh_vert(nm, pv.vert[1]);
        if (!a || !b) continue;
        dd_vertexv(sink, a, st.lift * 1.3f, st.col[PTL_DD_COL_PORTAL]);
        dd_vertexv(sink, b, st.lift * 1.3f, st.col[PTL_DD_COL_PORTAL]);
    }
    dd_end(sink);
}

/* Midpoint of the edge of cell cv that borders cell `other` (false when there is none). */
static bool edge_mid(const ptl_navmesh* nm, const ptl_cell_view* cv, uint32_t other, float out[3]) {
    for (uint32_t i = 0; i < cv->vert_count; ++i) {
        if (cv->neighbors[i] != other) continue;
        const float *a = ptl_navmesh_vert(nm, cv->verts[i]), *b = ptl_navmesh_vert(nm, cv->verts[(i + 1) % cv->vert_count]);
        if (!a || !b) return false;
        for (int k = 0; k < 3; ++k) out[k] = (a[k] + b[k]) * 0.5f;
        return true;
    }
    return false;
}

/* An arrow a -> b shifted sideways by `side` (plan), with a head at b and, when both, at a too:
   1 shaft + 2 lines per head. */
static void arrow(const ptl_dd_sink* s, const float a[3], const float b[3], float side, float dy, bool both,
                  ptl_dd_color c) {
    float dx = b[0] - a[0], dz = b[2] - a[2], len = sqrtf(dx * dx + dz * dz);
    float ux = len > 1e-6f ? dx / len : 1, uz = len > 1e-6f ? dz / len : 0;
    float px = -uz * side, pz = ux * side;
    float A[3] = {a[0] + px, a[1] + dy, a[2] + pz}, B[3] = {b[0] + px, b[1] + dy, b[2] + pz};
    dd_vertexv(s, A, 0, c);
    dd_vertexv(s, B, 0, c);
    float h = fminf(0.35f * (len > 0 ? len : 1), 0.4f);
    for (int end = 0; end < (both ? 2 : 1); ++end) {
        const float* tip = end == 0 ? B : A;
        float sx = end == 0 ? -ux : ux, sz = end == 0 ? -uz : uz; /* back along the shaft */
        for (int w = -1; w <= 1; w += 2) {
            /* wings at +-30 degrees from the shaft */
            float wx = sx * 0.866f - sz * 0.5f * (float)w, wz = sz * 0.866f + sx * 0.5f * (float)w;
            dd_vertexv(s, tip, 0, c);
            dd_vertex(s, tip[0] + wx * h, tip[1], tip[2] + wz * h, c);
        }
    }
}

void ptl_dd_links(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm) {
    if (!dd_ok(sink) || !nm) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    for (uint32_t l = 0; l < in.link_count; ++l) {
        ptl_link_view lv;
        ptl_cell_view cv;
        if (ptl_navmesh_get_link(nm, l, &lv) != PTL_OK || ptl_navmesh_get_cell(nm, lv.cell, &cv) != PTL_OK) continue;
        ptl_dd_color c = st.col[lv.kind == PTL_LINK_STEP ? PTL_DD_COL_LINK_STEP_UP : PTL_DD_COL_LINK_WALK];
        fan(sink, nm, &cv, st.lift, dd_with_alpha(c, (uint8_t)(st.fill_alpha / 2 + 1)));
    }
    dd_begin(sink, PTL_DD_LINES, st.line_width * 1.5f);
    for (uint32_t l = 0; l < in.link_count; ++l) {
        ptl_link_view lv;
        ptl_cell_view cv;
        if (ptl_navmesh_get_link(nm, l, &lv) != PTL_OK || ptl_navmesh_get_cell(nm, lv.cell, &cv) != PTL_OK) continue;
        float m0[3], m1[3];
        if (!edge_mid(nm, &cv, lv.cells[0], m0)) ptl_navmesh_cell_centroid(nm, lv.cells[0], m0);
        if (!edge_mid(nm, &cv, lv.cells[1], m1)) ptl_navmesh_cell_centroid(nm, lv.cells[1], m1);
        float dy = st.lift * 3;
        if (lv.kind == PTL_LINK_STEP) {
            /* two arrows side by side: m0 -> m1 goes up when rise > 0 */
            ptl_dd_color up = st.col[PTL_DD_COL_LINK_STEP_UP], down = st.col[PTL_DD_COL_LINK_STEP_DOWN];
            arrow(sink, m0, m1, 0.08f, dy, false, lv.rise > 0 ? up : down);
            arrow(sink, m1, m0, 0.08f, dy, false, lv.rise > 0 ? down : up);
        } else {
            arrow(sink, m0, m1, 0, dy, true, st.col[PTL_DD_COL_LINK_WALK]);
        }
    }
    /* portals between layers */
    for (uint32_t p = 0; p < in.portal_count; ++p) {
        ptl_portal_view pv;
        uint32_t l0, l1;
        if (ptl_navmesh_get_portal(nm, p, &pv) != PTL_OK || !walkable_cell(nm, pv.cell[0], &l0) ||
            !walkable_cell(nm, pv.cell[1], &l1) || l0 == l1)
            continue;
        const float *a = ptl_navmesh_vert(nm, pv.vert[0]), *b = ptl_navmesh_vert(nm, pv.vert[1]);
        if (!a || !b) continue;
        dd_vertexv(sink, a, st.lift * 1.4f, st.col[PTL_DD_COL_LINK_LAYER]);
        dd_vertexv(sink, b, st.lift * 1.4f, st.col[PTL_DD_COL_LINK_LAYER]);
    }
    dd_end(sink);
}

void ptl_dd_tiles(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm) {
    if (!dd_ok(sink) || !nm) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    if (in.tile_count == 0 || !(in.bmax[0] >= in.bmin[0])) return;
    const float* lo = in.bmin;
    const float* hi = in.bmax;
    ptl_dd_color c = st.col[PTL_DD_COL_TILE];
    dd_begin(sink, PTL_DD_LINES, st.line_width);
    /* the 12 edges of the box: 4 along each axis */
    for (int axis = 0; axis < 3; ++axis) {
        for (int k = 0; k < 4; ++k) {
            float a[3], b[3];
            int u = (axis + 1) % 3, v = (axis + 2) % 3;
            a[axis] = lo[axis], b[axis] = hi[axis];
            a[u] = b[u] = (k & 1) ? hi[u] : lo[u];
            a[v] = b[v] = (k & 2) ? hi[v] : lo[v];
            dd_vertexv(sink, a, 0, c);
            dd_vertexv(sink, b, 0, c);
        }
    }
    /* A tiled bake: its tile grid at the bottom of the bounds, one line per tile edge in x and z. */
    if (in.tile_size > 0 && in.tile_side > 0) {
        for (uint32_t k = 0; k <= in.tiles_x; ++k) {
            float x = in.tile_origin[0] + (float)k * in.tile_side;
            float a[3] = {x, lo[1], in.tile_origin[1]}, b[3] = {x, lo[1], in.tile_origin[1] + (float)in.tiles_z * in.tile_side};
            dd_vertexv(sink, a, 0, c);
            dd_vertexv(sink, b, 0, c);
        }
        for (uint32_t k = 0; k <= in.tiles_z; ++k) {
            float z = in.tile_origin[1] + (float)k * in.tile_side;
            float a[3] = {in.tile_origin[0], lo[1], z}, b[3] = {in.tile_origin[0] + (float)in.tiles_x * in.tile_side, lo[1], z};
            dd_vertexv(sink, a, 0, c);
            dd_vertexv(sink, b, 0, c);
        }
    }
    dd_end(sink);
}
