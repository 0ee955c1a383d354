/* The bake's off-mesh links pass (bake/cpg/offmesh.c). */
#ifndef PTL_BAKE_OFFMESH_H
#define PTL_BAKE_OFFMESH_H

#include <portolan/bake.h>

/* Appends d->offmesh to *blob (runtime offmesh_blob.c locates each link on it); on failure *blob is
   freed and NULL, and err names the link. */
ptl_status ptl_bake_add_offmesh(const ptl_bake_desc* d, void** blob, size_t* size, ptl_error* err);

#endif
