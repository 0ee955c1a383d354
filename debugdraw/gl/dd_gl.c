/* The OpenGL 3.3 core sink of debugdraw (<portolan/debugdraw_gl.h>). The only debugdraw source that
   touches OpenGL. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>
#include <portolan/debugdraw_gl.h>

typedef struct vtx {
    float pos[3];
    uint32_t color; /* RGBA8, red in the low byte */
    float size;     /* px: line width or point size (0 for triangles) */
} vtx;
_Static_assert(sizeof(vtx) == 20, "vertex layout");

typedef struct batch {
    vtx* v;
    uint32_t count, cap;
} batch;

enum { PRIM_KINDS = 3, MODES = 2 };

struct ptl_dd_gl {
    ptl_allocator alloc;
    GLuint prog[PRIM_KINDS];  /* indexed by ptl_dd_prim: points, lines, triangles */
    GLint vp_loc[PRIM_KINDS], viewport_loc[PRIM_KINDS], clip_loc[PRIM_KINDS];
    float clip_y;             /* world height above which fragments are cut (FLT_MAX: none) */
    GLuint vao, vbo;
    size_t vbo_bytes;
    batch b[MODES][PRIM_KINDS];
    ptl_dd_gl_mode mode;
    ptl_dd_prim prim;
    float size;
    bool oom;                 /* a batch could not grow: the rest of the frame is dropped */
    uint32_t last_count;
};

static void* mem_alloc(const ptl_allocator* a, size_t n) { return a->alloc ? a->alloc(n, a->user) : malloc(n); }
static void mem_free(const ptl_allocator* a, void* p, size_t n) {
    if (!p) return;
    if (a->free) a->free(p, n, a->user);
    else free(p);
}
static void* mem_realloc(const ptl_allocator* a, void* p, size_t old_n, size_t n) {
    return a->realloc ? a->realloc(p, old_n, n, a->user) : realloc(p, n);
}

static void set_err(ptl_error* err, ptl_status s, const char* msg, const char* log) {
    if (!err) return;
    err->status = s;
    snprintf(err->message, sizeof err->message, "%s%s%s", msg, log ? ": " : "", log ? log : "");
}

/* ---- shaders ----------------------------------------------------------------------------------*/

static const char* VS =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec4 a_col;\n"
    "layout(location = 2) in float a_size;\n"
    "uniform mat4 u_vp;\n"
    "out vec4 v_col;\n"
    "out float v_size;\n"
    "out float v_y;\n"
    "void main() { gl_Position = u_vp * vec4(a_pos, 1.0); v_col = a_col; v_size = a_size; v_y = a_pos.y; }\n";

/* u_clip_y: fragments of world height above it are cut away (the sink's clip height). */
static const char* FS =
    "#version 330 core\n"
    "in vec4 g_col;\n"
    "in float g_y;\n"
    "uniform float u_clip_y;\n"
    "out vec4 o_col;\n"
    "void main() { if (g_y > u_clip_y) discard; o_col = g_col; }\n";

/* Triangles need no geometry stage (llvmpipe runs one on the CPU, at a cost per vertex): their
   vertex shader feeds the fragment shader directly. */
static const char* VS_TRI =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec4 a_col;\n"
    "uniform mat4 u_vp;\n"
    "out vec4 g_col;\n"
    "out float g_y;\n"
    "void main() { gl_Position = u_vp * vec4(a_pos, 1.0); g_col = a_col; g_y = a_pos.y; }\n";

/* Lines: clipped against the near plane in clip space (a screen-space offset of a point behind the
   eye is meaningless), then widened to a quad of v_size pixels. */
static const char* GS_LINE =
    "#version 330 core\n"
    "layout(lines) in;\n"
    "layout(triangle_strip, max_vertices = 4) out;\n"
    "in vec4 v_col[];\n"
    "in float v_size[];\n"
    "in float v_y[];\n"
    "uniform vec2 u_viewport;\n"
    "out vec4 g_col;\n"
    "out float g_y;\n"
    "void main() {\n"
    "  vec4 p0 = gl_in[0].gl_Position, p1 = gl_in[1].gl_Position;\n"
    "  const float nearw = 1e-4;\n"
    "  float d0 = p0.w + p0.z, d1 = p1.w + p1.z;\n" /* distance to the near plane z = -w */
    "  if (d0 < 0.0 && d1 < 0.0) return;\n"
    "  if (d0 < 0.0) p0 = mix(p0, p1, d0 / (d0 - d1) + nearw);\n"
    "  if (d1 < 0.0) p1 = mix(p1, p0, d1 / (d1 - d0) + nearw);\n"
    "  vec2 s0 = p0.xy / p0.w * u_viewport, s1 = p1.xy / p1.w * u_viewport;\n"
    "  vec2 d = s1 - s0;\n"
    "  float l = length(d);\n"
    "  d = l > 1e-6 ? d / l : vec2(1.0, 0.0);\n"
    "  vec2 n = vec2(-d.y, d.x) * v_size[0] / u_viewport;\n" /* NDC spans 2 over the viewport: half-width */
    "  g_col = v_col[0]; g_y = v_y[0]; gl_Position = vec4(p0.xy + n * p0.w, p0.zw); EmitVertex();\n"
    "  g_col = v_col[0]; g_y = v_y[0]; gl_Position = vec4(p0.xy - n * p0.w, p0.zw); EmitVertex();\n"
    "  g_col = v_col[1]; g_y = v_y[1]; gl_Position = vec4(p1.xy + n * p1.w, p1.zw); EmitVertex();\n"
    "  g_col = v_col[1]; g_y = v_y[1]; gl_Position = vec4(p1.xy - n * p1.w, p1.zw); EmitVertex();\n"
    "  EndPrimitive();\n"
    "}\n";

/* Points: squares of v_size pixels, rounded in the fragment shader. */
static const char* GS_POINT =
    "#version 330 core\n"
    "layout(points) in;\n"
    "layout(triangle_strip, max_vertices = 4) out;\n"
    "in vec4 v_col[];\n"
    "in float v_size[];\n"
    "in float v_y[];\n"
    "uniform vec2 u_viewport;\n"
    "out vec4 g_col;\n"
    "out vec2 g_uv;\n"
    "out float g_y;\n"
    "void main() {\n"
    "  vec4 p = gl_in[0].gl_Position;\n"
    "  if (p.w + p.z < 0.0) return;\n"
    "  vec2 h = vec2(v_size[0]) / u_viewport * p.w;\n"
    "  for (int i = 0; i < 4; ++i) {\n"
    "    vec2 c = vec2(i & 1, i >> 1) * 2.0 - 1.0;\n"
    "    g_col = v_col[0]; g_uv = c; g_y = v_y[0]; gl_Position = vec4(p.xy + c * h, p.zw); EmitVertex();\n"
    "  }\n"
    "  EndPrimitive();\n"
    "}\n";

static const char* FS_POINT =
    "#version 330 core\n"
    "in vec4 g_col;\n"
    "in vec2 g_uv;\n"
    "in float g_y;\n"
    "uniform float u_clip_y;\n"
    "out vec4 o_col;\n"
    "void main() { if (dot(g_uv, g_uv) > 1.0 || g_y > u_clip_y) discard; o_col = g_col; }\n";

static GLuint compile(GLenum type, const char* src, ptl_error* err) {
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[400];
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        set_err(err, PTL_ERR_UNSUPPORTED, "debugdraw GL: a shader does not compile", log);
        glDeleteShader(sh);
        return 0;
    }
    return sh;
}

/* A program of vertex shader vs, geometry shader gs (NULL: none) and fragment shader fs. */
static GLuint link_program(const char* vs, const char* gs, const char* fs, ptl_error* err) {
    GLuint v = compile(GL_VERTEX_SHADER, vs, err), g = v && gs ? compile(GL_GEOMETRY_SHADER, gs, err) : 0;
    GLuint f = v && (g || !gs) ? compile(GL_FRAGMENT_SHADER, fs, err) : 0;
    GLuint p = 0;
    if (f) {
        p = glCreateProgram();
        glAttachShader(p, v), glAttachShader(p, f);
        if (g) glAttachShader(p, g);
        glLinkProgram(p);
        GLint ok = 0;
        glGetProgramiv(p, GL_LINK_STATUS, &ok);
        if (!ok) {
            char log[400];
            glGetProgramInfoLog(p, sizeof log, NULL, log);
            set_err(err, PTL_ERR_UNSUPPORTED, "debugdraw GL: a program does not link", log);
            glDeleteProgram(p);
            p = 0;
        }
    }
    if (v) glDeleteShader(v);
    if (g) glDeleteShader(g);
    if (f) glDeleteShader(f);
    return p;
}

/* ---- the sink -----------------------------------------------------------------------------------*/

static void sink_begin(void* user, ptl_dd_prim prim, float size) {
    ptl_dd_gl* gl = user;
    gl->prim = (unsigned)prim < PRIM_KINDS ? prim : PTL_DD_TRIS;
    gl->size = size > 0 ? size : 1.0f;
}

static void sink_vertex(void* user, const float pos[3], ptl_dd_color color) {
    ptl_dd_gl* gl = user;
    batch* b = &gl->b[gl->mode][gl->prim];
    if (b->count == b->cap) {
        uint32_t cap = b->cap ? b->cap + b->cap / 2 : 4096;
        vtx* v = mem_realloc(&gl->alloc, b->v, (size_t)b->cap * sizeof(vtx), (size_t)cap * sizeof(vtx));
        if (!v) {
            gl->oom = true;
            return;
        }
        b->v = v, b->cap = cap;
    }
    vtx* o = &b->v[b->count++];
    o->pos[0] = pos[0], o->pos[1] = pos[1], o->pos[2] = pos[2];
    o->color = color;
    o->size = gl->size;
}

static void sink_end(void* user) { (void)user; }

ptl_dd_sink ptl_dd_gl_sink(ptl_dd_gl* gl) {
    ptl_dd_sink s = {sink_begin, sink_vertex, sink_end, gl};
    return s;
}

void ptl_dd_gl_set_clip_height(ptl_dd_gl* gl, float max_y) {
    if (gl) gl->clip_y = max_y == max_y ? max_y : FLT_MAX; /* NaN: no cut */
}

void ptl_dd_gl_set_mode(ptl_dd_gl* gl, ptl_dd_gl_mode mode) {
    if (gl) gl->mode = mode == PTL_DD_GL_OVERLAY ? PTL_DD_GL_OVERLAY : PTL_DD_GL_DEPTH;
}

ptl_dd_gl_desc ptl_dd_gl_desc_defaults(void) {
    return (ptl_dd_gl_desc){.alloc = NULL};
}

ptl_status ptl_dd_gl_create(const ptl_dd_gl_desc* desc, ptl_dd_gl** out, ptl_error* err) {
    if (!out) {
        set_err(err, PTL_ERR_INVALID_ARG, "ptl_dd_gl_create: NULL out", NULL);
        return PTL_ERR_INVALID_ARG;
    }
    *out = NULL;
    if (!glCreateShader || !glGenVertexArrays || !glBufferSubData) {
        set_err(err, PTL_ERR_UNSUPPORTED, "debugdraw GL: no OpenGL 3.3 functions loaded (call gladLoadGL first)", NULL);
        return PTL_ERR_UNSUPPORTED;
    }
    ptl_allocator a = {0};
    if (desc && desc->alloc && desc->alloc->alloc && desc->alloc->realloc && desc->alloc->free) a = *desc->alloc;
    ptl_dd_gl* gl = mem_alloc(&a, sizeof *gl);
    if (!gl) {
        set_err(err, PTL_ERR_NO_MEMORY, "debugdraw GL: out of memory", NULL);
        return PTL_ERR_NO_MEMORY;
    }
    memset(gl, 0, sizeof *gl);
    gl->alloc = a;
    gl->clip_y = FLT_MAX;
    const char* vs[PRIM_KINDS] = {[PTL_DD_POINTS] = VS, [PTL_DD_LINES] = VS, [PTL_DD_TRIS] = VS_TRI};
    const char* gs[PRIM_KINDS] = {[PTL_DD_POINTS] = GS_POINT, [PTL_DD_LINES] = GS_LINE, [PTL_DD_TRIS] = NULL};
    const char* fs[PRIM_KINDS] = {[PTL_DD_POINTS] = FS_POINT, [PTL_DD_LINES] = FS, [PTL_DD_TRIS] = FS};
    for (int k = 0; k < PRIM_KINDS; ++k) {
        gl->prog[k] = link_program(vs[k], gs[k], fs[k], err);
        if (!gl->prog[k]) {
            ptl_dd_gl_destroy(gl);
            return PTL_ERR_UNSUPPORTED;
        }
        gl->vp_loc[k] = glGetUniformLocation(gl->prog[k], "u_vp");
        gl->viewport_loc[k] = glGetUniformLocation(gl->prog[k], "u_viewport");
        gl->clip_loc[k] = glGetUniformLocation(gl->prog[k], "u_clip_y");
    }
    GLint prev_vao = 0, prev_buf = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &prev_vao);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &prev_buf);
    glGenVertexArrays(1, &gl->vao);
    glGenBuffers(1, &gl->vbo);
    glBindVertexArray(gl->vao);
    glBindBuffer(GL_ARRAY_BUFFER, gl->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(vtx), (void*)offsetof(vtx, pos));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(vtx), (void*)offsetof(vtx, color));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(vtx), (void*)offsetof(vtx, size));
    glBindVertexArray((GLuint)prev_vao);
    glBindBuffer(GL_ARRAY_BUFFER, (GLuint)prev_buf);
    *out = gl;
    if (err) err->status = PTL_OK, err->message[0] = '\0';
    return PTL_OK;
}

void ptl_dd_gl_destroy(ptl_dd_gl* gl) {
    if (!gl) return;
    for (int k = 0; k < PRIM_KINDS; ++k)
        if (gl->prog[k]) glDeleteProgram(gl->prog[k]);
    if (gl->vbo) glDeleteBuffers(1, &gl->vbo);
    if (gl->vao) glDeleteVertexArrays(1, &gl->vao);
    for (int m = 0; m < MODES; ++m)
        for (int k = 0; k < PRIM_KINDS; ++k) mem_free(&gl->alloc, gl->b[m][k].v, (size_t)gl->b[m][k].cap * sizeof(vtx));
    ptl_allocator a = gl->alloc;
    mem_free(&a, gl, sizeof *gl);
}

uint32_t ptl_dd_gl_last_vertex_count(const ptl_dd_gl* gl) { return gl ? gl->last_count : 0; }

void ptl_dd_gl_flush(ptl_dd_gl* gl, const float view_proj[16], int vw, int vh) {
    if (!gl) return;
    size_t total = 0;
    for (int m = 0; m < MODES; ++m)
        for (int k = 0; k < PRIM_KINDS; ++k) {
            /* whole primitives only (a caller breaking the sink contract loses its tail, not the frame) */
            uint32_t per = k == PTL_DD_TRIS ? 3 : k == PTL_DD_LINES ? 2 : 1;
            gl->b[m][k].count -= gl->b[m][k].count % per;
            total += gl->b[m][k].count;
        }
    gl->last_count = (uint32_t)total;
    if (total == 0 || gl->oom || !view_proj || vw <= 0 || vh <= 0) {
        for (int m = 0; m < MODES; ++m)
            for (int k = 0; k < PRIM_KINDS; ++k) gl->b[m][k].count = 0;
        gl->oom = false;
        return;
    }
    /* the caller's state, restored at the end */
    GLint prev_prog = 0, prev_vao = 0, prev_buf = 0, prev_src = 0, prev_dst = 0, prev_src_a = 0, prev_dst_a = 0;
    GLboolean prev_mask = GL_TRUE;
    GLint prev_func = GL_LESS;
    glGetIntegerv(GL_DEPTH_FUNC, &prev_func);
    GLboolean prev_depth = glIsEnabled(GL_DEPTH_TEST), prev_blend = glIsEnabled(GL_BLEND), prev_cull = glIsEnabled(GL_CULL_FACE);
    glGetIntegerv(GL_CURRENT_PROGRAM, &prev_prog);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &prev_vao);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &prev_buf);
    glGetIntegerv(GL_BLEND_SRC_RGB, &prev_src);
    glGetIntegerv(GL_BLEND_DST_RGB, &prev_dst);
    glGetIntegerv(GL_BLEND_SRC_ALPHA, &prev_src_a);
    glGetIntegerv(GL_BLEND_DST_ALPHA, &prev_dst_a);
    glGetBooleanv(GL_DEPTH_WRITEMASK, &prev_mask);

    glBindVertexArray(gl->vao);
    glBindBuffer(GL_ARRAY_BUFFER, gl->vbo);
    size_t bytes = total * sizeof(vtx);
    /* orphan the buffer every frame: the driver hands a fresh one while the last draws finish */
    if (bytes > gl->vbo_bytes) gl->vbo_bytes = bytes + bytes / 2;
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)gl->vbo_bytes, NULL, GL_STREAM_DRAW);
    size_t off = 0;
    GLint first[MODES][PRIM_KINDS];
    for (int m = 0; m < MODES; ++m)
        for (int k = 0; k < PRIM_KINDS; ++k) {
            first[m][k] = (GLint)(off / sizeof(vtx));
            size_t n = (size_t)gl->b[m][k].count * sizeof(vtx);
            if (n) glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)off, (GLsizeiptr)n, gl->b[m][k].v);
            off += n;
        }
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_CULL_FACE);
    static const GLenum prim_gl[PRIM_KINDS] = {[PTL_DD_POINTS] = GL_POINTS, [PTL_DD_LINES] = GL_LINES,
                                               [PTL_DD_TRIS] = GL_TRIANGLES};
    /* triangles first, then lines over them, then points over both */
    static const int order[PRIM_KINDS] = {PTL_DD_TRIS, PTL_DD_LINES, PTL_DD_POINTS};
    for (int m = 0; m < MODES; ++m) {
        if (m == PTL_DD_GL_DEPTH) {
            glEnable(GL_DEPTH_TEST);
            glDepthFunc(GL_LEQUAL);
            glDepthMask(GL_TRUE);
        } else {
            glDisable(GL_DEPTH_TEST);
            glDepthMask(GL_FALSE);
        }
        for (int o = 0; o < PRIM_KINDS; ++o) {
            int k = order[o];
            if (!gl->b[m][k].count) continue;
            glUseProgram(gl->prog[k]);
            glUniformMatrix4fv(gl->vp_loc[k], 1, GL_FALSE, view_proj);
            if (gl->viewport_loc[k] >= 0) glUniform2f(gl->viewport_loc[k], (float)vw, (float)vh);
            /* overlay batches are never cut (a path through the cut storeys stays visible) */
            if (gl->clip_loc[k] >= 0) glUniform1f(gl->clip_loc[k], m == PTL_DD_GL_DEPTH ? gl->clip_y : FLT_MAX);
            glDrawArrays(prim_gl[k], first[m][k], (GLsizei)gl->b[m][k].count);
            gl->b[m][k].count = 0;
        }
    }
    glUseProgram((GLuint)prev_prog);
    glBindVertexArray((GLuint)prev_vao);
    glBindBuffer(GL_ARRAY_BUFFER, (GLuint)prev_buf);
    glBlendFuncSeparate((GLenum)prev_src, (GLenum)prev_dst, (GLenum)prev_src_a, (GLenum)prev_dst_a);
    glDepthMask(prev_mask);
    glDepthFunc((GLenum)prev_func);
    if (prev_depth) glEnable(GL_DEPTH_TEST);
    else glDisable(GL_DEPTH_TEST);
    if (prev_blend) glEnable(GL_BLEND);
    else glDisable(GL_BLEND);
    if (prev_cull) glEnable(GL_CULL_FACE);
    else glDisable(GL_CULL_FACE);
}
