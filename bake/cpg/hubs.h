/* Hub labels for exact paths written into a blob (hubs.c). Private to the bake. */
#ifndef PTL_HUBS_BAKE_H
#define PTL_HUBS_BAKE_H

#include <portolan/bake.h>

/* Replaces *blob by the blob with hub labels (hubs.c; d->jobs, d->alloc), filling bs's hub fields. */
ptl_status ptl_bake_add_hubs(const ptl_bake_desc* d, void** blob, size_t* size, ptl_bake_stats* bs, ptl_error* err);

#endif
