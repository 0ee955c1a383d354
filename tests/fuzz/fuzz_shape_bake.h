/* What the .poly and .mesh targets do with a shape a reader accepted: the reader promises the ring
   invariants (bake.h, ptl_shape), and the bake promises a blob that validates or an error, never a
   bad blob and never PTL_ERR_INTERNAL for a shape the reader let through; and the decomposition's
   batched search (ptl_closest_backend_ref) bakes the same bytes as its grid walk. */
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
    /* The batched closest-element search (the GPU's algorithm, its plain C reference) gives the
       walk's bytes: its float bounds must hold on hostile coordinates too. */
    const ptl_bake_desc ref = {.closest_backend = ptl_closest_backend_ref()};
    void* blob2 = NULL;
    size_t size2 = 0;
    ptl_status st2 = ptl_bake_shape(s, &ref, &blob2, &size2, NULL, &err);
    if (st2 != st || size2 != size || memcmp(blob, blob2, size) != 0)
        fuzz_fail("%s: the reference closest-element backend baked other bytes (%s)", what, ptl_status_name(st2));
    ptl_blob_free(blob2, size2, NULL);
    ptl_blob_free(blob, size, NULL);
}

#endif
