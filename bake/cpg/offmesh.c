/* The bake's last pass: the off-mesh links of the desc, located on the baked navmesh and written
   as the blob's off-mesh section (runtime/offmesh_blob.c, navmesh_format.h). */
#include "offmesh.h"

#include "../../runtime/internal.h"

ptl_status ptl_bake_add_offmesh(const ptl_bake_desc* d, void** blob, size_t* size, ptl_error* err) {
    void* with = NULL;
    size_t with_size = 0;
    ptl_status st = d->offmesh ? ptl_om_blob_append(*blob, *size, d->offmesh, d->offmesh_count, d->alloc, &with,
                                                    &with_size, err)
                               : ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: offmesh_count > 0 with no offmesh array");
    ptl_blob_free(*blob, *size, d->alloc);
    *blob = st >= 0 ? with : NULL;
    *size = st >= 0 ? with_size : 0;
    return st;
}
