/* The demo's text and panels: stb_easy_font quads turned into triangles and sent, in pixels,
   through the debugdraw GL sink in overlay mode (one sink for the scene and the UI). */
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "demo.h"

/* stb_easy_font's vertex: x, y, z, rgba8 */
typedef struct easy_vtx {
    float x, y, z;
    unsigned char c[4];
} easy_vtx;

bool demo_ui_init(demo_ui* ui, ptl_dd_gl* gl) {
    memset(ui, 0, sizeof *ui);
    ui->gl = gl;
    ui->sink = ptl_dd_gl_sink(gl);
    ui->scale = 2.0f;
    /* room for the longest line the demo prints (~270 bytes per character) */
    ui->quad_buf_size = 270 * 512;
    ui->quad_buf = malloc((size_t)ui->quad_buf_size);
    return ui->quad_buf != NULL;
}

void demo_ui_free(demo_ui* ui) {
    free(ui->quad_buf);
    ui->quad_buf = NULL;
}

/* Pixels are sent as x, y with z = 0; demo_ui_flush's projection maps them to the window. */
static void quad(demo_ui* ui, float x0, float y0, float x1, float y1, ptl_dd_color c) {
    const ptl_dd_sink* s = &ui->sink;
    float p[6][3] = {{x0, y0, 0}, {x1, y0, 0}, {x1, y1, 0}, {x0, y0, 0}, {x1, y1, 0}, {x0, y1, 0}};
    for (int i = 0; i < 6; ++i) s->vertex(s->user, p[i], c);
}

void demo_ui_rect(demo_ui* ui, float x, float y, float w, float h, ptl_dd_color c) {
    ptl_dd_gl_set_mode(ui->gl, PTL_DD_GL_OVERLAY);
    ui->sink.begin(ui->sink.user, PTL_DD_TRIS, 0);
    quad(ui, x, y, x + w, y + h, c);
    ui->sink.end(ui->sink.user);
}

float demo_ui_text_width(demo_ui* ui, const char* text) {
    return (float)stb_easy_font_width((char*)text) * ui->scale;
}

float demo_ui_text(demo_ui* ui, float x, float y, const char* text, ptl_dd_color c) {
    ptl_dd_gl_set_mode(ui->gl, PTL_DD_GL_OVERLAY);
    int n = stb_easy_font_print(0, 0, (char*)text, NULL, ui->quad_buf, ui->quad_buf_size);
    const easy_vtx* v = ui->quad_buf;
    float k = ui->scale;
    ui->sink.begin(ui->sink.user, PTL_DD_TRIS, 0);
    for (int q = 0; q < n; ++q) {
        const easy_vtx* a = &v[4 * q];
        const easy_vtx* b = &v[4 * q + 2]; /* the opposite corner */
        quad(ui, x + a->x * k, y + a->y * k, x + b->x * k, y + b->y * k, c);
    }
    ui->sink.end(ui->sink.user);
    return (float)stb_easy_font_height((char*)text) * k;
}

void demo_ui_flush(demo_ui* ui, int width, int height) {
    /* pixels (y down) to clip space, column-major */
    float w = (float)(width > 0 ? width : 1), h = (float)(height > 0 ? height : 1);
    const float m[16] = {2 / w, 0, 0, 0, 0, -2 / h, 0, 0, 0, 0, 1, 0, -1, 1, 0, 1};
    ptl_dd_gl_flush(ui->gl, m, width, height);
}
