/* Helpers shared by the debugdraw sources: the resolved style and thin wrappers over the sink.
   Private to debugdraw. */
#ifndef PTL_DD_INTERNAL_H
#define PTL_DD_INTERNAL_H

#include <portolan/debugdraw.h>

typedef struct dd_style {
    float lift, line_width, point_size;
    uint8_t fill_alpha;
    ptl_dd_color col[PTL_DD_COL_COUNT];
} dd_style;

/* Defaults filled (a zero or NULL style is valid). */
void dd_style_resolve(const ptl_dd_style* in, dd_style* out);

static inline void dd_begin(const ptl_dd_sink* s, ptl_dd_prim prim, float size) {
    if (s->begin) s->begin(s->user, prim, size);
}
static inline void dd_end(const ptl_dd_sink* s) {
    if (s->end) s->end(s->user);
}
static inline void dd_vertex(const ptl_dd_sink* s, float x, float y, float z, ptl_dd_color c) {
    float p[3] = {x, y, z};
    s->vertex(s->user, p, c);
}
static inline void dd_vertexv(const ptl_dd_sink* s, const float p[3], float dy, ptl_dd_color c) {
    dd_vertex(s, p[0], p[1] + dy, p[2], c);
}
static inline bool dd_ok(const ptl_dd_sink* s) { return s && s->vertex; }

/* colour with its alpha replaced */
static inline ptl_dd_color dd_with_alpha(ptl_dd_color c, uint8_t a) { return (c & 0x00ffffffu) | ((ptl_dd_color)a << 24); }
/* colour with r, g, b scaled by k in [0, 1] */
ptl_dd_color dd_scale(ptl_dd_color c, float k);

#endif
