/* The closest-element backend in OpenGL 4.3 (ptl_gpu, <portolan/gpu.h>): the scene goes into shader
   storage buffers once per decomposition, each batch of notches is one dispatch of the compute
   shader (closest_shader.h) and one readback. The only OpenGL in the bake (ANavMG §4.1, thesis §8.1:
   the GPU closest-element search; a compute shader walking a grid instead of a 1D depth render). */
#include <float.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glad/egl.h>
#include <glad/gl.h>
#include <portolan/gpu.h>

#include "../../../runtime/internal.h"
#include "closest_shader.h"

enum { BUF_VERTS, BUF_SEGS, BUF_BUCKETS, BUF_QUERIES, BUF_RESULTS, BUF_POOL, BUF_COUNT };

struct ptl_gpu {
    ptl_allocator alloc;
    ptl_closest_backend backend;
    pthread_mutex_t lock;
    bool own_context;
    pthread_t owner; /* the thread whose current context is used (use_current_context) */
    EGLDisplay dpy;
    EGLContext ctx;
    GLuint prog, buf[BUF_COUNT];
    GLint u_origin, u_cell, u_slop, u_nx, u_ny, u_nb, u_mode, u_cap, u_count;
    const ptl_closest_scene* scene; /* the one in the buffers, until released */
    uint32_t scene_nb;
    char renderer[128], version[128];
    ptl_gpu_stats stats;
};

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* ---- context -----------------------------------------------------------------------------------*/

/* Displays to try, in order: Mesa's surfaceless platform (no X, no device: llvmpipe in CI), then each
   EGL device (NVIDIA's headless driver offers devices, not the surfaceless platform), then the
   default display. A display is taken only once eglInitialize accepts it. */
static int try_display(EGLDisplay dpy, EGLint* major, EGLint* minor) {
    return dpy != EGL_NO_DISPLAY && eglInitialize(dpy, major, minor);
}

static EGLDisplay open_display(EGLint* major, EGLint* minor) {
    EGLDisplay dpy = EGL_NO_DISPLAY;
    if (eglGetPlatformDisplayEXT) dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (dpy == EGL_NO_DISPLAY && eglGetPlatformDisplay)
        dpy = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (try_display(dpy, major, minor)) return dpy;
    EGLDeviceEXT devices[8];
    EGLint ndev = 0;
    if (eglQueryDevicesEXT && eglGetPlatformDisplayEXT && eglQueryDevicesEXT(8, devices, &ndev)) {
        for (EGLint i = 0; i < ndev; ++i) {
            dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
            if (try_display(dpy, major, minor)) return dpy;
        }
    }
    dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    return try_display(dpy, major, minor) ? dpy : EGL_NO_DISPLAY;
}

static ptl_status egl_context(ptl_gpu* g, ptl_error* err) {
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
        return ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: no EGL library (libEGL.so.1: install libegl1 libegl-mesa0)");
    EGLint major = 0, minor = 0;
    g->dpy = open_display(&major, &minor);
    if (g->dpy == EGL_NO_DISPLAY)
        return ptl_error_set(err, PTL_ERR_UNSUPPORTED,
                             "gpu: no EGL display (no surfaceless Mesa platform, no EGL device, no default display)");
    if (!gladLoaderLoadEGL(g->dpy) || !eglBindAPI(EGL_OPENGL_API))
        return ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: EGL %d.%d cannot bind the OpenGL API", major, minor);
    const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    g->ctx = eglCreateContext(g->dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attrs);
    if (g->ctx == EGL_NO_CONTEXT)
        return ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: no OpenGL 4.3 core context on EGL %d.%d (EGL error 0x%x)",
                             major, minor, (unsigned)eglGetError());
    if (!eglMakeCurrent(g->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, g->ctx))
        return ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: the OpenGL context cannot be made current without a surface");
    if (!gladLoadGL((GLADloadfunc)eglGetProcAddress))
        return ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: OpenGL functions do not load through EGL");
    return PTL_OK;
}

/* ---- program and buffers -----------------------------------------------------------------------*/

static ptl_status build_program(ptl_gpu* g, ptl_error* err) {
    const char* src = ptl_closest_shader_src;
    GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    char log[400] = "";
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        glDeleteShader(sh);
        return ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: the compute shader does not compile: %s", log);
    }
    g->prog = glCreateProgram();
    glAttachShader(g->prog, sh);
    glLinkProgram(g->prog);
    glDeleteShader(sh);
    glGetProgramiv(g->prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        glGetProgramInfoLog(g->prog, sizeof log, NULL, log);
        return ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: the compute shader does not link: %s", log);
    }
#define U(name) g->u_##name = glGetUniformLocation(g->prog, #name)
    U(origin), U(cell), U(slop), U(nx), U(ny), U(nb), U(mode), U(cap), U(count);
#undef U
    glGenBuffers(BUF_COUNT, g->buf);
    return glGetError() == GL_NO_ERROR ? PTL_OK : ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: OpenGL error setting up");
}

static void upload(GLuint buf, const void* data, size_t size) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(size ? size : 16), data, GL_STATIC_DRAW);
}

/* The scene into buffers 0-2 (vertices, segments, buckets), packed as the shader reads them. */
static ptl_status upload_scene(ptl_gpu* g, const ptl_closest_scene* s, ptl_error* err) {
    const uint32_t nb = s->nx * s->ny, nbs = s->bucket_start[nb];
    const size_t vsz = (size_t)s->vert_count * 4 * sizeof(float), ssz = (size_t)s->seg_count * 4 * sizeof(uint32_t);
    const size_t bsz = ((size_t)nb + 1 + nbs) * sizeof(uint32_t), total = vsz + ssz + bsz;
    char* tmp = ptl_mem_alloc(&g->alloc, total);
    if (!tmp) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "gpu: out of memory");
    float* v = (float*)tmp;
    for (uint32_t i = 0; i < s->vert_count; ++i) {
        v[4 * i] = s->xy[2 * i], v[4 * i + 1] = s->xy[2 * i + 1];
        memcpy(&v[4 * i + 2], &s->vkey[i], 4);
        memcpy(&v[4 * i + 3], &s->vflags[i], 4);
    }
    uint32_t* sg = (uint32_t*)(tmp + vsz);
    for (uint32_t i = 0; i < s->seg_count; ++i)
        sg[4 * i] = s->seg[2 * i], sg[4 * i + 1] = s->seg[2 * i + 1], sg[4 * i + 2] = s->seg_flags[i], sg[4 * i + 3] = 0;
    uint32_t* bk = (uint32_t*)(tmp + vsz + ssz);
    memcpy(bk, s->bucket_start, ((size_t)nb + 1) * sizeof(uint32_t));
    memcpy(bk + nb + 1, s->bucket_seg, (size_t)nbs * sizeof(uint32_t));
    upload(g->buf[BUF_VERTS], v, vsz);
    upload(g->buf[BUF_SEGS], sg, ssz);
    upload(g->buf[BUF_BUCKETS], bk, bsz);
    ptl_mem_free(&g->alloc, tmp, total);
    g->scene = s;
    g->scene_nb = nb;
    g->stats.scenes++;
    return PTL_OK;
}

/* One dispatch for queries [q0, q0 + n) of the batch, results copied into its arrays. The shader
   writes a header per query and its answers into a pool through an atomic counter (closest_shader.h):
   the headers and the used part of the pool are read back, copied by the driver
   (glGetBufferSubData), not read through a mapping of the GPU's memory. */
static ptl_status dispatch(ptl_gpu* g, ptl_closest_batch* b, uint32_t q0, uint32_t n, ptl_error* err) {
    const uint32_t cap = b->cap;
    const size_t qsz = (size_t)n * 8 * sizeof(uint32_t), hsz = ((size_t)n + 1) * 4 * sizeof(uint32_t);
    const size_t psz = (size_t)n * cap * 2 * sizeof(uint32_t);
    uint32_t* qs = ptl_mem_alloc(&g->alloc, qsz > hsz ? qsz : hsz);
    if (!qs) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "gpu: out of memory");
    double t = now_ms();
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t q = q0 + i;
        float reach = b->mode == PTL_CLOSEST_PARTNERS ? b->reach[q] : 0;
        memcpy(&qs[8 * i], &b->cone[4 * (size_t)q], 4 * sizeof(float));
        qs[8 * i + 4] = b->notch[q];
        memcpy(&qs[8 * i + 5], &reach, 4);
        qs[8 * i + 6] = qs[8 * i + 7] = 0;
    }
    upload(g->buf[BUF_QUERIES], qs, qsz);
    static const uint32_t zero[4] = {0, 0, 0, 0};
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->buf[BUF_RESULTS]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)hsz, NULL, GL_DYNAMIC_READ);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof zero, zero); /* the pool's counter */
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->buf[BUF_POOL]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)psz, NULL, GL_DYNAMIC_READ);
    for (GLuint i = 0; i < BUF_COUNT; ++i) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, g->buf[i]);
    glUseProgram(g->prog);
    const ptl_closest_scene* s = g->scene;
    glUniform2f(g->u_origin, s->x0, s->y0);
    glUniform1f(g->u_cell, s->cell);
    glUniform1f(g->u_slop, s->slop);
    glUniform1ui(g->u_nx, s->nx);
    glUniform1ui(g->u_ny, s->ny);
    glUniform1ui(g->u_nb, g->scene_nb);
    glUniform1ui(g->u_mode, b->mode);
    glUniform1ui(g->u_cap, cap);
    glUniform1ui(g->u_count, n);
    double t1 = now_ms();
    g->stats.ms_upload += t1 - t;
    glDispatchCompute((n + 31) / 32, 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glFinish();
    double t2 = now_ms();
    g->stats.ms_dispatch += t2 - t1;
    uint32_t* h = qs; /* the headers, over the queries' copy */
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->buf[BUF_RESULTS]);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)hsz, h);
    const uint32_t used = h[0];
    uint32_t* pool = used <= (size_t)n * cap ? ptl_mem_alloc(&g->alloc, (size_t)used * 2 * sizeof(uint32_t) + 8) : NULL;
    if (!pool) {
        ptl_mem_free(&g->alloc, qs, qsz > hsz ? qsz : hsz);
        return ptl_error_set(err, used <= (size_t)n * cap ? PTL_ERR_NO_MEMORY : PTL_ERR_INTERNAL,
                             "gpu: %s", used <= (size_t)n * cap ? "out of memory" : "the pool overflowed");
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->buf[BUF_POOL]);
    if (used) glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)used * 2 * sizeof(uint32_t), pool);
    ptl_status st = PTL_OK;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t q = q0 + i, *hi = h + 4 + 4 * (size_t)i;
        const uint32_t cnt = hi[0], m = cnt <= cap ? cnt : 0, at = hi[2], to = b->out_start[q];
        if (at > used || m > used - at) { /* never: the shader's counter gave it room */
            st = ptl_error_set(err, PTL_ERR_INTERNAL, "gpu: query %u's answers lie outside the pool", q);
            break;
        }
        b->out_count[q] = cnt;
        if (b->mode == PTL_CLOSEST_NEAREST) memcpy(&b->out_bound[q], &hi[1], 4);
        for (uint32_t j = 0; j < m; ++j) { /* packed: out_start (<portolan/bake.h>) */
            b->out_seg[to + j] = pool[2 * ((size_t)at + j)];
            if (b->mode == PTL_CLOSEST_NEAREST) memcpy(&b->out_lb[to + j], &pool[2 * ((size_t)at + j) + 1], 4);
        }
        b->out_start[q + 1] = to + m;
    }
    ptl_mem_free(&g->alloc, pool, (size_t)used * 2 * sizeof(uint32_t) + 8);
    ptl_mem_free(&g->alloc, qs, qsz > hsz ? qsz : hsz);
    g->stats.ms_readback += now_ms() - t2;
    g->stats.batches++;
    GLenum e = glGetError();
    if (st >= 0 && e != GL_NO_ERROR) st = ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: OpenGL error 0x%x in a dispatch", e);
    return st;
}

/* Makes the context current on this thread (own context) or checks it is the owner's. */
static ptl_status enter(ptl_gpu* g, ptl_error* err) {
    if (!g->own_context) {
        if (!pthread_equal(g->owner, pthread_self()))
            return ptl_error_set(err, PTL_ERR_UNSUPPORTED,
                                 "gpu: the caller's OpenGL context is current on another thread (bake without jobs)");
        return PTL_OK;
    }
    if (!eglMakeCurrent(g->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, g->ctx))
        return ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: the OpenGL context cannot be made current on this thread");
    return PTL_OK;
}

static void leave(ptl_gpu* g) {
    if (g->own_context) eglMakeCurrent(g->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

static ptl_status gl_find(void* user, const ptl_closest_scene* scene, ptl_closest_batch* b, ptl_error* err) {
    ptl_gpu* g = user;
    if (!scene || !b || b->cap < 1 || b->cap > 64)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "gpu: NULL scene or batch, or cap not in 1..64");
    pthread_mutex_lock(&g->lock);
    ptl_status st = enter(g, err);
    double t = now_ms();
    if (st >= 0 && g->scene != scene) st = upload_scene(g, scene, err);
    g->stats.ms_upload += now_ms() - t;
    enum { CHUNK = 65535 * 32 };
    b->out_start[0] = 0;
    for (uint32_t q0 = 0; st >= 0 && q0 < b->count; q0 += CHUNK)
        st = dispatch(g, b, q0, b->count - q0 < CHUNK ? b->count - q0 : CHUNK, err);
    g->stats.queries += b->count;
    leave(g);
    pthread_mutex_unlock(&g->lock);
    return st;
}

static void gl_release(void* user, const ptl_closest_scene* scene) {
    ptl_gpu* g = user;
    pthread_mutex_lock(&g->lock);
    if (g->scene == scene) g->scene = NULL;
    pthread_mutex_unlock(&g->lock);
}

/* ---- public ------------------------------------------------------------------------------------*/

ptl_status ptl_gpu_create(const ptl_gpu_desc* desc, ptl_gpu** out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_gpu_create: NULL out");
    *out = NULL;
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    ptl_gpu* g = ptl_mem_alloc(&a, sizeof *g);
    if (!g) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "gpu: out of memory");
    memset(g, 0, sizeof *g);
    g->alloc = a;
    g->own_context = !(desc && desc->use_current_context);
    g->owner = pthread_self();
    g->dpy = EGL_NO_DISPLAY;
    g->ctx = EGL_NO_CONTEXT;
    pthread_mutex_init(&g->lock, NULL);
    g->backend = (ptl_closest_backend){"gpu", g, gl_find, gl_release};
    ptl_status st;
    if (g->own_context) {
        st = egl_context(g, err);
    } else {
        st = gladLoaderLoadGL() ? PTL_OK
                                : ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: no OpenGL context current on this thread");
    }
    if (st >= 0) {
        const char* r = (const char*)glGetString(GL_RENDERER);
        const char* v = (const char*)glGetString(GL_VERSION);
        snprintf(g->renderer, sizeof g->renderer, "%s", r ? r : "?");
        snprintf(g->version, sizeof g->version, "%s", v ? v : "?");
        GLint major = 0, minor = 0;
        glGetIntegerv(GL_MAJOR_VERSION, &major);
        glGetIntegerv(GL_MINOR_VERSION, &minor);
        if (major * 10 + minor < 43 || !glDispatchCompute)
            st = ptl_error_set(err, PTL_ERR_UNSUPPORTED, "gpu: OpenGL %d.%d (%s) has no compute shaders: 4.3 needed",
                               major, minor, g->renderer);
    }
    if (st >= 0) st = build_program(g, err);
    if (st < 0) {
        ptl_gpu_destroy(g);
        return st;
    }
    leave(g);
    *out = g;
    ptl_error_ok(err);
    return PTL_OK;
}

void ptl_gpu_destroy(ptl_gpu* g) {
    if (!g) return;
    if (!g->own_context || (g->ctx != EGL_NO_CONTEXT && eglMakeCurrent(g->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, g->ctx))) {
        if (glDeleteBuffers && g->buf[0]) glDeleteBuffers(BUF_COUNT, g->buf);
        if (glDeleteProgram && g->prog) glDeleteProgram(g->prog);
    }
    if (g->own_context && g->dpy != EGL_NO_DISPLAY) {
        eglMakeCurrent(g->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (g->ctx != EGL_NO_CONTEXT) eglDestroyContext(g->dpy, g->ctx);
        /* No eglTerminate: the display is the process's, shared with any other ptl_gpu (or the
           caller's own EGL use), whose contexts it would destroy. */
    }
    pthread_mutex_destroy(&g->lock);
    ptl_allocator a = g->alloc;
    ptl_mem_free(&a, g, sizeof *g);
}

const ptl_closest_backend* ptl_gpu_backend(ptl_gpu* g) { return g ? &g->backend : NULL; }
const char* ptl_gpu_renderer(const ptl_gpu* g) { return g ? g->renderer : ""; }
const char* ptl_gpu_version(const ptl_gpu* g) { return g ? g->version : ""; }
void ptl_gpu_get_stats(const ptl_gpu* g, ptl_gpu_stats* out) {
    if (g && out) *out = g->stats;
}
void ptl_gpu_reset_stats(ptl_gpu* g) {
    if (g) memset(&g->stats, 0, sizeof g->stats);
}
