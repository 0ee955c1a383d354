/* Portolan GPU: the decomposition's closest-element search in OpenGL 4.3 compute shaders.

   ANavMG's GPU method (Oliva and Pelechano 2012, §4.1; Oliva's thesis §8.1) renders the scene from
   each notch to find its closest element. Here one compute shader invocation per notch walks a
   uniform grid of the segments (uploaded once per decomposition as shader storage buffers) and
   returns candidates with float lower bounds of their distances; the decomposition chooses among
   them with its exact double-precision test (ptl_closest_backend, <portolan/bake.h>), so a bake with
   the GPU is byte for byte the CPU's.

       ptl_gpu* gpu;
       ptl_error err;
       if (ptl_gpu_create(NULL, &gpu, &err) < 0) { puts(err.message); return 1; } // no GL 4.3
       ptl_bake_desc d = ptl_bake_desc_defaults();
       d.closest_backend = ptl_gpu_backend(gpu);
       ptl_bake_shape(&shape, &d, &blob, &size, NULL, &err);
       ptl_gpu_destroy(gpu);

   Context: by default a headless EGL context of its own (Mesa's surfaceless platform, llvmpipe
   without a GPU; else the first EGL device that initializes, as NVIDIA's headless driver offers;
   else the default EGL display), usable from any thread (calls are serialized and make
   it current in turn). With use_current_context, the GL context current on the calling thread (a
   demo's or a game's), which must stay current there; the bake must then run on that thread (no
   jobs). No usable OpenGL 4.3: ptl_gpu_create returns PTL_ERR_UNSUPPORTED and its message names what
   is missing. Nothing falls back to the CPU silently.

   Library portolan_gpu (links -ldl; glad opens libGL/libEGL itself). */
#ifndef PORTOLAN_GPU_H
#define PORTOLAN_GPU_H

#include <portolan/bake.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ptl_gpu ptl_gpu;

typedef struct ptl_gpu_desc {
    bool use_current_context;   /* default false: a headless EGL context of its own */
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_gpu_desc;

/* Time spent since ptl_gpu_create (or the last reset), summed over calls. */
typedef struct ptl_gpu_stats {
    double ms_upload;    /* [Units: ms] scenes and queries into buffers */
    double ms_dispatch;  /* [Units: ms] compute dispatches, to completion (glFinish) */
    double ms_readback;  /* [Units: ms] results mapped back */
    uint32_t scenes;     /* scenes uploaded */
    uint32_t batches;    /* dispatches */
    uint64_t queries;    /* notches asked about */
} ptl_gpu_stats;

/* desc may be NULL (defaults). Errors: PTL_ERR_UNSUPPORTED (no EGL, no display, no OpenGL 4.3 core
   context, the shader does not compile), PTL_ERR_NO_MEMORY, PTL_ERR_INVALID_ARG. */
ptl_status ptl_gpu_create(const ptl_gpu_desc* desc, ptl_gpu** out, ptl_error* err);
void ptl_gpu_destroy(ptl_gpu* gpu);
/* The backend for ptl_decompose_desc.backend and ptl_bake_desc.closest_backend; owned by gpu. */
const ptl_closest_backend* ptl_gpu_backend(ptl_gpu* gpu);
/* GL_RENDERER and GL_VERSION of the context (owned by gpu). */
const char* ptl_gpu_renderer(const ptl_gpu* gpu);
const char* ptl_gpu_version(const ptl_gpu* gpu);
void ptl_gpu_get_stats(const ptl_gpu* gpu, ptl_gpu_stats* out);
void ptl_gpu_reset_stats(ptl_gpu* gpu);

#ifdef __cplusplus
}
#endif

#endif
