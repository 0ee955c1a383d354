/* Colours and styles of debugdraw. */
#include <math.h>
#include <string.h>

#include "dd_internal.h"

static const ptl_dd_color DEFAULTS[PTL_DD_COL_COUNT] = {
    [PTL_DD_COL_TRI_WALKABLE] = PTL_DD_RGBA(178, 186, 168, 255),
    [PTL_DD_COL_TRI_STEEP] = PTL_DD_RGBA(140, 118, 104, 255),
    [PTL_DD_COL_SPAN_WALKABLE] = PTL_DD_RGBA(120, 172, 214, 255),
    [PTL_DD_COL_SPAN_SOLID] = PTL_DD_RGBA(156, 146, 134, 255),
    [PTL_DD_COL_SPAN_UNREACHED] = PTL_DD_RGBA(110, 110, 110, 255),
    [PTL_DD_COL_CONTOUR_RAW] = PTL_DD_RGBA(255, 255, 255, 200),
    [PTL_DD_COL_CONTOUR_WALL] = PTL_DD_RGBA(16, 16, 24, 255),
    [PTL_DD_COL_CONTOUR_JUNCTION] = PTL_DD_RGBA(0, 216, 255, 255),
    [PTL_DD_COL_CONTOUR_GAP] = PTL_DD_RGBA(255, 0, 255, 255),
    [PTL_DD_COL_CORNER] = PTL_DD_RGBA(255, 255, 0, 255),
    [PTL_DD_COL_SIMPLIFIED_VERT] = PTL_DD_RGBA(255, 96, 0, 255),
    [PTL_DD_COL_CELL_OUTLINE] = PTL_DD_RGBA(24, 30, 42, 255),
    [PTL_DD_COL_PORTAL] = PTL_DD_RGBA(244, 244, 222, 255),
    [PTL_DD_COL_LINK_WALK] = PTL_DD_RGBA(0, 200, 80, 255),
    [PTL_DD_COL_LINK_STEP_UP] = PTL_DD_RGBA(255, 150, 0, 255),
    [PTL_DD_COL_LINK_STEP_DOWN] = PTL_DD_RGBA(0, 110, 255, 255),
    [PTL_DD_COL_LINK_LAYER] = PTL_DD_RGBA(230, 0, 170, 255),
    [PTL_DD_COL_TILE] = PTL_DD_RGBA(70, 70, 84, 255),
    [PTL_DD_COL_PATH] = PTL_DD_RGBA(255, 24, 24, 255),
    [PTL_DD_COL_CORRIDOR] = PTL_DD_RGBA(255, 224, 64, 150),
    [PTL_DD_COL_NEAREST] = PTL_DD_RGBA(0, 255, 255, 255),
    [PTL_DD_COL_RAY] = PTL_DD_RGBA(255, 255, 255, 255),
    [PTL_DD_COL_RAY_HIT] = PTL_DD_RGBA(255, 60, 200, 255),
    [PTL_DD_COL_WALL_DISTANCE] = PTL_DD_RGBA(140, 255, 60, 255),
    [PTL_DD_COL_CLEARANCE] = PTL_DD_RGBA(40, 200, 255, 230),
    [PTL_DD_COL_TURN] = PTL_DD_RGBA(255, 80, 220, 255),
    [PTL_DD_COL_MOVE] = PTL_DD_RGBA(255, 170, 0, 255),
    [PTL_DD_COL_OFFMESH] = PTL_DD_RGBA(255, 60, 200, 255),
    [PTL_DD_COL_OBSTACLE] = PTL_DD_RGBA(255, 120, 40, 170),
    [PTL_DD_COL_TILE_DIRTY] = PTL_DD_RGBA(255, 40, 40, 255),
    [PTL_DD_COL_TILE_REBUILT] = PTL_DD_RGBA(60, 255, 120, 255),
};

ptl_dd_color ptl_dd_default_color(ptl_dd_color_id id) {
    return (unsigned)id < PTL_DD_COL_COUNT ? DEFAULTS[id] : PTL_DD_RGBA(255, 0, 255, 255);
}

static ptl_dd_color hsv(float h, float s, float v, uint8_t a) {
    h = (h - floorf(h)) * 6.0f;
    int i = (int)h;
    float f = h - (float)i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    float r, g, b;
    switch (i % 6) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
    }
    return PTL_DD_RGBA((uint8_t)lroundf(r * 255), (uint8_t)lroundf(g * 255), (uint8_t)lroundf(b * 255), a);
}

/* Pastel hues a golden-ratio step apart: neighbouring layer ids never look alike, and none is the
   saturated red of paths. */
ptl_dd_color ptl_dd_layer_color(uint32_t layer, uint8_t alpha) {
    float h = 0.30f + 0.6180339887f * (float)(layer % 4096u);
    return hsv(h, 0.42f, 0.88f, alpha);
}

/* Saturated and darker than the layers' pastels, a golden-ratio step apart from area to area. */
ptl_dd_color ptl_dd_area_color(uint32_t area, uint8_t alpha) {
    float h = 0.08f + 0.6180339887f * (float)(area % 64u);
    return hsv(h, 0.9f, 0.7f, alpha);
}

ptl_dd_color ptl_dd_index_color(uint32_t index) {
    float h = 0.05f + 0.6180339887f * (float)(index % 4096u);
    return hsv(h, 0.85f, 1.0f, 255);
}

ptl_dd_color dd_scale(ptl_dd_color c, float k) {
    if (k < 0) k = 0;
    if (k > 1) k = 1;
    return PTL_DD_RGBA((uint8_t)lroundf((float)PTL_DD_R(c) * k), (uint8_t)lroundf((float)PTL_DD_G(c) * k),
                       (uint8_t)lroundf((float)PTL_DD_B(c) * k), PTL_DD_A(c));
}

ptl_dd_style ptl_dd_style_defaults(void) {
    return (ptl_dd_style){.lift = 0.05f, .line_width = 2.0f, .point_size = 7.0f, .fill_alpha = 255};
}

void dd_style_resolve(const ptl_dd_style* in, dd_style* out) {
    ptl_dd_style s;
    memset(&s, 0, sizeof s);
    if (in) s = *in;
    out->lift = s.no_lift ? 0.0f : s.lift > 0 ? s.lift : 0.05f;
    out->line_width = s.line_width > 0 ? s.line_width : 2.0f;
    out->point_size = s.point_size > 0 ? s.point_size : 7.0f;
    out->fill_alpha = s.fill_alpha ? s.fill_alpha : 255;
    memcpy(out->col, s.palette ? s.palette : DEFAULTS, sizeof out->col);
}
