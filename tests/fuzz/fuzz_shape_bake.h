/* What the .poly and .mesh targets do with a shape a reader accepted: the reader promises the ring
   invariants (bake.h, ptl_shape), and the bake promises a blob that validates or an error, never a
   bad blob and never PTL_ERR_INTERNAL for a shape the reader let through. */
#ifndef PTL_FUZZ_SHAPE_BAKE_H
#define PTL_FUZZ_SHAPE_BAKE_H

#include "fuzz_common.h"

/* Small enough that one bake stays in milliseconds. */
#define FUZZ_SHAPE_BAKE_MAX_VERTS 256u

static inline void fuzz_shape_check_and_bake(ptl_shape* s, const char* what) {
    ptl_error err = {0};
    if (ptl_shape_validate(s, &err) < 0) fuzz_fail("%s: the reader returned an invalid shape: %s", what, err.message);
    ptl_shape_stats stats;
    ptl_shape_get_stats(s, &stats);
    if (s->vert_count > FUZZ_SHAPE_BAKE_MAX_VERTS) return;
    void* blob = NULL;
    size_t size = 0;
    ptl_status st = ptl_bake_shape(s, NULL, &blob, &size, NULL, &err);
    if (st == PTL_ERR_INTERNAL) fuzz_fail("%s: the bake failed on a shape its reader accepted: %s", what, err.message);
    if (st < 0) return;
    fuzz_check_blob_valid(blob, size, what);
    ptl_blob_free(blob, size, NULL);
}

#endif
