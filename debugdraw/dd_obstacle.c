/* Drawing a tile cache's obstacles and tiles (<portolan/tilecache.h>): the demo's obstacle tool. */
#include <math.h>

#include "dd_internal.h"

enum { CYLINDER_SIDES = 24 };

/* The obstacle's footprint in x-z (counter-clockwise seen from above), its base and top heights;
   0 corners for a desc ptl_tilecache_add would refuse. */
static uint32_t footprint(const ptl_obstacle_desc* o, float* xz, float* y0, float* y1) {
    for (int k = 0; k < 3; ++k)
        if (!isfinite(o->pos[k]) || !isfinite(o->size[k])) return 0;
    switch (o->kind) {
    case PTL_OBSTACLE_CYLINDER:
        if (!(o->size[0] > 0) || !(o->size[1] > 0)) return 0;
        for (int i = 0; i < CYLINDER_SIDES; ++i) {
            const float t = 6.2831853f * (float)i / CYLINDER_SIDES;
            xz[2 * i] = o->pos[0] + o->size[0] * cosf(t), xz[2 * i + 1] = o->pos[2] - o->size[0] * sinf(t);
        }
        *y0 = o->pos[1], *y1 = o->pos[1] + o->size[1];
        return CYLINDER_SIDES;
    case PTL_OBSTACLE_BOX: {
        if (!(o->size[0] > 0) || !(o->size[1] > 0) || !(o->size[2] > 0) || !isfinite(o->yaw)) return 0;
        const float c = cosf(o->yaw), s = sinf(o->yaw);
        static const float corner[4][2] = {{-1, -1}, {-1, 1}, {1, 1}, {1, -1}};
        for (int i = 0; i < 4; ++i) { /* a turn about +y: x' = x cos + z sin, z' = -x sin + z cos */
            const float x = corner[i][0] * o->size[0], z = corner[i][1] * o->size[2];
            xz[2 * i] = o->pos[0] + x * c + z * s, xz[2 * i + 1] = o->pos[2] - x * s + z * c;
        }
        *y0 = o->pos[1] - o->size[1], *y1 = o->pos[1] + o->size[1];
        return 4;
    }
    case PTL_OBSTACLE_PRISM:
        if (!o->xz || o->vert_count < 3 || o->vert_count > PTL_OBSTACLE_MAX_VERTS || !(o->size[1] > 0)) return 0;
        for (uint32_t i = 0; i < 2 * o->vert_count; ++i) {
            if (!isfinite(o->xz[i])) return 0;
            xz[i] = o->xz[i];
        }
        *y0 = o->pos[1], *y1 = o->pos[1] + o->size[1];
        return o->vert_count;
    }
    return 0;
}

void ptl_dd_obstacle(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_obstacle_desc* o, ptl_dd_color color) {
    if (!dd_ok(sink) || !o) return;
    dd_style st;
    dd_style_resolve(style, &st);
    /* an area volume: its area's colour, fainter (no geometry: the floor inside is coloured too) */
    const ptl_dd_color c = color ? color : o->marks_area ? ptl_dd_area_color(o->area, 70) : st.col[PTL_DD_COL_OBSTACLE];
    float xz[2 * (CYLINDER_SIDES > PTL_OBSTACLE_MAX_VERTS ? CYLINDER_SIDES : PTL_OBSTACLE_MAX_VERTS)], y0, y1;
    const uint32_t n = footprint(o, xz, &y0, &y1);
    if (n == 0) return;
    dd_begin(sink, PTL_DD_TRIS, 0); /* the sides and the top, translucent */
    for (uint32_t i = 0; i < n; ++i) {
        const float *a = &xz[2 * i], *b = &xz[2 * ((i + 1) % n)];
        dd_vertex(sink, a[0], y0, a[1], c), dd_vertex(sink, b[0], y0, b[1], c), dd_vertex(sink, b[0], y1, b[1], c);
        dd_vertex(sink, a[0], y0, a[1], c), dd_vertex(sink, b[0], y1, b[1], c), dd_vertex(sink, a[0], y1, a[1], c);
    }
    for (uint32_t i = 1; i + 1 < n; ++i) {
        dd_vertex(sink, xz[0], y1, xz[1], c);
        dd_vertex(sink, xz[2 * i], y1, xz[2 * i + 1], c);
        dd_vertex(sink, xz[2 * i + 2], y1, xz[2 * i + 3], c);
    }
    dd_end(sink);
    const ptl_dd_color e = dd_with_alpha(dd_scale(c, 0.6f), 255);
    dd_begin(sink, PTL_DD_LINES, st.line_width);
    for (uint32_t i = 0; i < n; ++i) {
        const float *a = &xz[2 * i], *b = &xz[2 * ((i + 1) % n)];
        dd_vertex(sink, a[0], y0, a[1], e), dd_vertex(sink, b[0], y0, b[1], e);
        dd_vertex(sink, a[0], y1, a[1], e), dd_vertex(sink, b[0], y1, b[1], e);
        if (n <= PTL_OBSTACLE_MAX_VERTS || i % 6 == 0) dd_vertex(sink, a[0], y0, a[1], e), dd_vertex(sink, a[0], y1, a[1], e);
    }
    dd_end(sink);
}

/* The rectangle of a tile's x-z box at height y. */
static void rect(const ptl_dd_sink* s, const float lo[3], const float hi[3], float y, ptl_dd_color c) {
    const float x[4] = {lo[0], hi[0], hi[0], lo[0]}, z[4] = {lo[2], lo[2], hi[2], hi[2]};
    for (int i = 0; i < 4; ++i) {
        dd_vertex(s, x[i], y, z[i], c);
        dd_vertex(s, x[(i + 1) % 4], y, z[(i + 1) % 4], c);
    }
}

void ptl_dd_tilecache_tiles(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_tilecache* tc,
                            const uint8_t* rebuilt) {
    if (!dd_ok(sink) || !tc) return;
    dd_style st;
    dd_style_resolve(style, &st);
    ptl_tilecache_info info;
    ptl_tilecache_get_info(tc, &info);
    dd_begin(sink, PTL_DD_LINES, st.line_width * 1.5f);
    for (uint32_t z = 0; z < info.tiles_z; ++z)
        for (uint32_t x = 0; x < info.tiles_x; ++x) {
            float lo[3], hi[3];
            const uint32_t f = ptl_tilecache_tile(tc, x, z, lo, hi);
            if (rebuilt && rebuilt[z * info.tiles_x + x]) {
                const ptl_dd_color c = st.col[PTL_DD_COL_TILE_REBUILT];
                rect(sink, lo, hi, lo[1], c), rect(sink, lo, hi, hi[1], c);
                const float cx[4] = {lo[0], hi[0], hi[0], lo[0]}, cz[4] = {lo[2], lo[2], hi[2], hi[2]};
                for (int i = 0; i < 4; ++i) dd_vertex(sink, cx[i], lo[1], cz[i], c), dd_vertex(sink, cx[i], hi[1], cz[i], c);
            }
            if (f & PTL_TILE_DIRTY) {
                const ptl_dd_color c = st.col[PTL_DD_COL_TILE_DIRTY];
                rect(sink, lo, hi, lo[1], c), rect(sink, lo, hi, hi[1], c);
            }
        }
    dd_end(sink);
}
