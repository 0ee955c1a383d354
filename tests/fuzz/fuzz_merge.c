/* The merge of a tiled bake's parts (ptl_bake_merge_parts, bake/pipeline/parts.c). The input is parts laid
   end to end, as seedgen writes them: each part's length is its header's total_size (clamped to
   what is left), and each part's size and checksum are fixed up (fuzz_common.h) so that mutations
   reach the checks after them. What the merge accepts must be a blob that validates. A single part is
   also loaded as a tile cache (<portolan/tilecache.h>), which must refuse it cleanly or give blobs
   that validate, with no obstacle and with one; a packed cache (magic PTLC, seeds *.ptc:
   bake/pipeline/tilecache_pack.c) keeps its size and checksum where a part does, so the same fix-up
   takes mutations into its decoders. */
#include <portolan/tilecache.h>

#include "fuzz_common.h"

#define FUZZ_MAX_PARTS 8

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    /* Each part in a buffer of its own, aligned as a caller's would be. */
    uint8_t* parts[FUZZ_MAX_PARTS];
    size_t sizes[FUZZ_MAX_PARTS];
    uint32_t count = 0;
    size_t at = 0;
    while (at < size && count < FUZZ_MAX_PARTS) {
        size_t left = size - at, len = left;
        if (left >= 24) {
            uint64_t total;
            memcpy(&total, data + at + 16, 8);
            if (total >= 24 && total < left) len = (size_t)total;
        }
        if (!(parts[count] = malloc(len))) break;
        memcpy(parts[count], data + at, len);
        fuzz_fix_size_and_checksum(parts[count], len);
        sizes[count++] = len;
        at += len;
    }
    void* blob = NULL;
    size_t bsize = 0;
    ptl_error err = {0};
    if (count && ptl_bake_merge_parts((const void* const*)parts, sizes, count, NULL, &blob, &bsize, NULL, &err) >= 0) {
        fuzz_check_blob_valid(blob, bsize, "merge");
        ptl_blob_free(blob, bsize, NULL);
    }
    ptl_tilecache* tc = NULL;
    if (count == 1 && ptl_tilecache_create(parts[0], sizes[0], NULL, &tc, &err) >= 0) {
        const void* b;
        size_t n;
        ptl_tilecache_blob(tc, &b, &n);
        fuzz_check_blob_valid(b, n, "tile cache");
        const ptl_obstacle_desc o = {.kind = PTL_OBSTACLE_CYLINDER, .pos = {0, -1, 0}, .size = {2, 3, 0}};
        /* and an area volume beside it (its floor's spans retagged, the layers cut at its border) */
        const ptl_obstacle_desc v = {.kind = PTL_OBSTACLE_BOX, .pos = {3, 0, 1}, .size = {2.5f, 4, 1.5f}, .yaw = 0.5f,
                                     .marks_area = true, .area = 9};
        ptl_obstacle_ref r;
        bool done;
        if (ptl_tilecache_add(tc, &o, &r, &err) >= 0 && ptl_tilecache_add(tc, &v, &r, &err) >= 0 &&
            ptl_tilecache_update(tc, 0, &done, &err) >= 0) {
            ptl_tilecache_blob(tc, &b, &n);
            fuzz_check_blob_valid(b, n, "tile cache with an obstacle and an area volume");
            /* the kept layers against the rebake of the whole world: the same bytes */
            ptl_tilecache_desc fd = ptl_tilecache_desc_defaults();
            fd.full_rebake = true;
            ptl_tilecache* full = NULL;
            if (ptl_tilecache_create(parts[0], sizes[0], &fd, &full, &err) >= 0 &&
                ptl_tilecache_add(full, &v, &r, &err) >= 0 && ptl_tilecache_add(full, &o, &r, &err) >= 0 &&
                ptl_tilecache_update(full, 0, &done, &err) >= 0) {
                const void* fb;
                size_t fn;
                ptl_tilecache_blob(full, &fb, &fn);
                if (fn != n || memcmp(fb, b, n) != 0) fuzz_fail("tile cache: kept layers and full rebake differ");
            }
            ptl_tilecache_destroy(full);
        }
        ptl_tilecache_destroy(tc);
    }
    for (uint32_t i = 0; i < count; ++i) free(parts[i]);
    return 0;
}
