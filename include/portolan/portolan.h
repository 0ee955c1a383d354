/* Portolan: the umbrella header. One include for the whole library a game without OpenGL uses:
   the runtime (<portolan/runtime.h>: load a navmesh, find paths; <portolan/live.h>: a navmesh
   whose versions change while queries run), the bake (<portolan/bake.h>:
   readers, 2D and 3D bakes), its intermediates (<portolan/bake_debug.h>), the scene generators
   (<portolan/gen.h>, library portolan_gen) and debug
   drawing into a caller's sink (<portolan/debugdraw.h>). Each header opens with its own manual.

   Minimal example
       #include <portolan/portolan.h>
       ptl_navmesh* nm; ptl_error err;
       if (ptl_navmesh_load_file("level.ptl", NULL, &nm, &err) < 0) { puts(err.message); return; }

   Conventions shared by every header: functions return ptl_status (negative: failure, with a
   message in an optional ptl_error); options come in a `ptl_*_desc` where NULL or zero means the
   documented default, the allocator included (`alloc`, NULL: libc), and `ptl_*_desc_defaults()`
   returns one filled in; flags are `bool`; a function that takes ownership of a caller's buffer
   ends in `_adopt`. Link portolan_runtime, plus portolan_bake and portolan_debugdraw for those parts.

   Left out: <portolan/debugdraw_gl.h>, the OpenGL 3.3 sink, which needs a GL context and loader;
   include it where the game draws with OpenGL; and <portolan/gpu.h>, the decomposition's search on
   OpenGL 4.3 (library portolan_gpu). */
#ifndef PORTOLAN_H
#define PORTOLAN_H

#include "runtime.h"
#include "live.h"
#include "bake.h"
#include "tilecache.h"
#include "bake_debug.h"
#include "gen.h"
#include "debugdraw.h"

#endif
