/* Portolan debugdraw, OpenGL 3.3 core sink: draws what the ptl_dd_* functions emit, in a game's own
   render loop.

   What it does
   - Collects points, lines and triangles from any ptl_dd_* call into CPU-side batches (per mode:
     depth-tested or overlay), then ptl_dd_gl_flush streams them into one vertex buffer (orphaned
     each flush) and draws them: triangles, then lines (expanded to screen-space quads of the asked
     width by a geometry shader, as core profiles have no wide lines), then round points.
   - Modes: PTL_DD_GL_DEPTH tests and writes depth like the scene around it (drawings are hidden
     behind walls); PTL_DD_GL_OVERLAY draws on top of everything, after the depth-tested batches.

   Minimal example (a GL 3.3+ core context is current and glad has loaded it: gladLoadGL(...))
       ptl_dd_gl* gl; ptl_error err;
       if (ptl_dd_gl_create(NULL, &gl, &err) < 0) { puts(err.message); return; }
       ptl_dd_sink sink = ptl_dd_gl_sink(gl);
       // every frame, after drawing the scene:
       ptl_dd_cells(&sink, NULL, nm, PTL_DD_CELLS_FILL | PTL_DD_CELLS_OUTLINE);
       ptl_dd_gl_set_mode(gl, PTL_DD_GL_OVERLAY);
       ptl_dd_path(&sink, NULL, pts, n);
       ptl_dd_gl_flush(gl, view_proj, width, height);   // column-major, as glUniformMatrix4fv takes it
       ...
       ptl_dd_gl_destroy(gl);   // with the context still current

   Ownership and state: the sink owns its GL objects (one program per primitive kind, one vertex
   array, one buffer) and its batches, which grow to the largest frame seen and are then reused: a
   steady scene allocates nothing per frame. flush binds its own program, vertex array and buffer
   and sets blending and depth state; it restores the depth test, depth function, depth mask,
   blending, blend function, face culling, program, vertex array and array buffer it found.
   Functions load through glad (glad/, generated for GL 4.3 core, a superset of the 3.3 used
   here): a game using another loader compiles the sink's source against that loader's header
   instead. Not thread-safe: one
   context, one thread. Triangles are drawn without a geometry stage; lines and points use one
   (screen-space width). */
#ifndef PORTOLAN_DEBUGDRAW_GL_H
#define PORTOLAN_DEBUGDRAW_GL_H

#include "debugdraw.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ptl_dd_gl ptl_dd_gl;

typedef enum ptl_dd_gl_mode {
    PTL_DD_GL_DEPTH = 0,   /* depth-tested and depth-writing (the default) */
    PTL_DD_GL_OVERLAY = 1  /* on top of everything */
} ptl_dd_gl_mode;

typedef struct ptl_dd_gl_desc {
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_dd_gl_desc;

ptl_dd_gl_desc ptl_dd_gl_desc_defaults(void);

/* Compiles the shaders. PTL_ERR_UNSUPPORTED when no GL 3.3 core functions are loaded or a shader
   does not compile (the message holds the driver's log); PTL_ERR_NO_MEMORY. */
ptl_status ptl_dd_gl_create(const ptl_dd_gl_desc* desc, ptl_dd_gl** out, ptl_error* err);
void ptl_dd_gl_destroy(ptl_dd_gl* gl);

/* The sink that batches into `gl`. */
ptl_dd_sink ptl_dd_gl_sink(ptl_dd_gl* gl);
/* Mode of the primitives that follow (until the next call). */
void ptl_dd_gl_set_mode(ptl_dd_gl* gl, ptl_dd_gl_mode mode);
/* Cuts away everything depth-tested above world height max_y (a storey cut: look into a building
   through its roof); overlay batches are never cut. Applies to the flushes that follow.
   FLT_MAX or NaN: no cut (the default). */
void ptl_dd_gl_set_clip_height(ptl_dd_gl* gl, float max_y);
/* Draws and empties the batches. view_proj: 16 floats, column-major; viewport: [Units: px] the
   size of the target the lines and points are sized against. */
void ptl_dd_gl_flush(ptl_dd_gl* gl, const float view_proj[16], int viewport_width, int viewport_height);
/* Vertices drawn by the last flush (for statistics). */
uint32_t ptl_dd_gl_last_vertex_count(const ptl_dd_gl* gl);

#ifdef __cplusplus
}
#endif
#endif
