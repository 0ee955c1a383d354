/* Pockets of walkable space (pockets.c): the lids of the clean pockets of a set of rings. Shared by
   the runtime (searches skip the corners and cells inside pockets) and the bake (the decomposition
   draws the lids as portals first, so that cells follow them). Private. */
#ifndef PTL_POCKETS_H
#define PTL_POCKETS_H

#include "alloc.h"

/* Vertices 0..nv-1 at xz (2 doubles each); next[v]: the vertex after v along the walls (free space
   on their left), PTL_NONE where no wall leaves v. Writes to lid (2 per vertex, nv + 1 vertices'
   room) the lid (two vertex ids, in ring order) of the clean pocket each vertex lies strictly
   inside, PTL_NONE twice for none. Walls that do not close into simple rings give no pockets. */
ptl_status ptl_pockets_find(uint32_t nv, const double* xz, uint32_t* next, const ptl_allocator* a, uint32_t* lid);

#endif
