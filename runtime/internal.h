/* What the runtime shares with the bake (and the scene generators): the one runtime header that
   bake/ and gen/ include, so the seam between the two libraries is this list. Private to the
   library; a game includes <portolan/runtime.h> only.
   - alloc.h: the caller's allocator, growable arrays, the library's sort
   - error.h: filling a ptl_error
   - file_read.h: reading whole input files (the readers)
   - navmesh_format.h: the blob's layout (the blob writer, parts)
   - navmesh_internal.h: the navmesh object (the blob writer's checks, hub and landmark bakes)
   - query_internal.h: the query object (hubs and landmarks search the navmesh they annotate)
   - pockets.h: pocket lids (the decomposition draws them first) */
#ifndef PTL_RUNTIME_INTERNAL_H
#define PTL_RUNTIME_INTERNAL_H

#include "alloc.h"
#include "error.h"
#include "file_read.h"
#include "navmesh_format.h"
#include "navmesh_internal.h"
#include "offmesh.h"
#include "pockets.h"
#include "query_internal.h"

#endif
