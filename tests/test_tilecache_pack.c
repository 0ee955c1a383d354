/* The tile cache as stored (bake/pipeline/tilecache_pack.c): packed and unpacked back to the
   part's exact bytes with every method, and damaged packed caches (truncated at every offset,
   every byte flipped, sizes past what the bytes hold) refused with clear errors, never a crash,
   never an allocation the cache's size does not justify. */
#include <portolan/tilecache.h>
#include <stdlib.h>

#include "../bake/pipeline/tilecache_pack.h"
#include "mesh_builder.h"
#include "test_util.h"

/* A floor with walls, a low platform and a ramp: columns with one span and with two, links that
   differ, heights that change. */
static ptl_trimesh scene(mesh_builder* b) {
    memset(b, 0, sizeof *b);
    floor_quad(b, 0, 0, 30, 30, 0);
    box(b, 8, 0, 0, 9, 3, 18);
    box(b, 18, 0, 10, 30, 3, 11);
    box(b, 20, 0, 18, 27, 0.3f, 26);
    box(b, 3, 2.2f, 20, 12, 2.4f, 28); /* a shelf over the floor: two walkable spans a column */
    return as_trimesh(b);
}

static ptl_bake_desc scene_desc(void) {
    ptl_bake_desc d = ptl_bake_desc_defaults();
    d.tile_size = 16;
    return d;
}

/* The navmesh a cache's tile cache bakes with no obstacle (malloc'd copy), or NULL when refused. */
static void* blob_of(const void* cache, size_t size, size_t* n, ptl_status* st) {
    ptl_tilecache* tc = NULL;
    ptl_error err;
    *st = ptl_tilecache_create(cache, size, NULL, &tc, &err);
    if (*st < 0) return NULL;
    const void* b;
    ptl_tilecache_blob(tc, &b, n);
    void* copy = malloc(*n);
    memcpy(copy, b, *n);
    ptl_tilecache_destroy(tc);
    return copy;
}

Test(tilecache_pack, every_method_unpacks_to_the_parts_bytes_and_the_same_navmesh) {
    static mesh_builder mb;
    ptl_trimesh m = scene(&mb);
    ptl_bake_desc d = scene_desc();
    ptl_error err;
    const uint32_t all[4] = {0, 0, UINT32_MAX - 1, UINT32_MAX - 1};
    void* part;
    size_t part_size;
    cr_assert_eq(ptl_bake_trimesh_part(&m, &d, all, &part, &part_size, NULL, &err), PTL_OK, "%s", err.message);
    size_t ref_n;
    ptl_status st;
    void* ref = blob_of(part, part_size, &ref_n, &st); /* a plain part still loads */
    cr_assert_eq(st, PTL_OK);
    ptl_allocator a = ptl_allocator_resolve(NULL);
    size_t sizes[4];
    for (uint32_t meth = 0; meth < 4; ++meth) {
        void* packed;
        cr_assert_eq(ptl_tc_pack(part, part_size, meth, &a, &packed, &sizes[meth], &err), PTL_OK, "%s", err.message);
        cr_assert(ptl_tc_is_packed(packed, sizes[meth]));
        void* back;
        size_t back_size;
        cr_assert_eq(ptl_tc_unpack(packed, sizes[meth], &a, &back, &back_size, &err), PTL_OK, "method %u: %s", meth, err.message);
        cr_assert_eq(back_size, part_size, "method %u", meth);
        cr_assert(memcmp(back, part, part_size) == 0, "method %u: other bytes", meth);
        ptl_mem_free(&a, back, back_size);
        size_t n;
        void* blob = blob_of(packed, sizes[meth], &n, &st);
        cr_assert_eq(st, PTL_OK, "method %u", meth);
        cr_assert(n == ref_n && memcmp(blob, ref, n) == 0, "method %u: another navmesh", meth);
        free(blob);
        ptl_mem_free(&a, packed, sizes[meth]);
    }
    cr_expect_eq(sizes[0], part_size + 64, "stored: the part behind the header");
    cr_expect_lt(sizes[3], sizes[1], "the byte coder pays over the span streams");
    cr_expect_lt(sizes[3], sizes[2], "the span streams pay under the byte coder");
    void* cache;
    size_t cache_size;
    cr_assert_eq(ptl_tilecache_bake(&m, &d, &cache, &cache_size, &err), PTL_OK, "%s", err.message);
    cr_expect_eq(cache_size, sizes[3], "the bake packs with both");
    cr_expect_lt(cache_size * 8, part_size, "%zu packed of %zu", cache_size, part_size);
    ptl_blob_free(cache, cache_size, NULL);
    ptl_blob_free(part, part_size, NULL);
    free(ref);
}

/* Sets b's total size and checksum for its n bytes, as a writer would (fuzz_common.h does the same):
   the damage then reaches the decoders. */
static void fix_up(uint8_t* b, size_t n) {
    if (n < 32) return;
    uint64_t total = n;
    memcpy(b + 16, &total, 8);
    const uint64_t sum = ptl_blob_checksum(b, n);
    memcpy(b + 24, &sum, 8);
}

/* Every outcome of a damaged cache: a clear error, or (a flip the coding makes no difference to)
   the navmesh of the good one. */
static void expect_refused(const uint8_t* b, size_t n, const void* ref, size_t ref_n, const char* what, size_t at) {
    size_t got_n;
    ptl_status st;
    void* got = blob_of(b, n, &got_n, &st);
    cr_assert(st == PTL_ERR_BAD_BLOB || st == PTL_ERR_BAD_INPUT || (st == PTL_OK && got_n == ref_n && !memcmp(got, ref, ref_n)),
              "%s at %zu: status %d", what, at, (int)st);
    free(got);
}

Test(tilecache_pack, truncated_and_flipped_caches_are_clear_errors, .timeout = 600) {
    static mesh_builder mb;
    ptl_trimesh m = scene(&mb);
    ptl_bake_desc d = scene_desc();
    ptl_error err;
    void* cache;
    size_t size;
    cr_assert_eq(ptl_tilecache_bake(&m, &d, &cache, &size, &err), PTL_OK, "%s", err.message);
    size_t ref_n;
    ptl_status st;
    void* ref = blob_of(cache, size, &ref_n, &st);
    cr_assert_eq(st, PTL_OK);
    uint8_t* b = malloc(size);
    for (size_t n = 0; n < size; ++n) { /* truncated: as read, then with size and checksum made right */
        memcpy(b, cache, n);
        cr_assert_eq(ptl_tilecache_create(b, n, NULL, &(ptl_tilecache*){NULL}, &err), PTL_ERR_BAD_BLOB, "at %zu", n);
        fix_up(b, n);
        expect_refused(b, n, ref, ref_n, "truncated, fixed up", n);
    }
    for (size_t at = 0; at < size; ++at) { /* one byte flipped: as read, then with the checksum made right */
        memcpy(b, cache, size);
        b[at] ^= (uint8_t)(1u << (at % 8));
        ptl_tilecache* tc = NULL;
        cr_assert_eq(ptl_tilecache_create(b, size, NULL, &tc, &err), PTL_ERR_BAD_BLOB, "at %zu", at);
        if (at >= 4) { /* past the magic (a part then) */
            fix_up(b, size);
            expect_refused(b, size, ref, ref_n, "flipped, fixed up", at);
        }
    }
    free(b);
    free(ref);
    ptl_blob_free(cache, size, NULL);
}

/* An allocator that keeps its largest request. */
static size_t largest;
static void* big_alloc(size_t n, void* u) {
    (void)u;
    if (n > largest) largest = n;
    return malloc(n);
}
static void* big_realloc(void* p, size_t old, size_t n, void* u) {
    (void)u, (void)old;
    if (n > largest) largest = n;
    return realloc(p, n);
}
static void big_free(void* p, size_t n, void* u) { (void)n, (void)u, free(p); }

Test(tilecache_pack, sizes_a_header_cannot_hold_are_refused_before_any_allocation) {
    static mesh_builder mb;
    ptl_trimesh m = scene(&mb);
    ptl_bake_desc d = scene_desc();
    ptl_error err;
    void* cache;
    size_t size;
    cr_assert_eq(ptl_tilecache_bake(&m, &d, &cache, &size, &err), PTL_OK, "%s", err.message);
    uint8_t* b = malloc(size);
    const ptl_allocator a = {big_alloc, big_realloc, big_free, NULL};
    const ptl_tilecache_desc td = {.alloc = &a};
    const struct {
        size_t at, width;
        uint64_t v;
    } cases[] = {{32, 8, UINT64_MAX / 2}, {32, 8, (uint64_t)size * 1000}, {40, 8, UINT64_MAX / 3},
                 {40, 8, (uint64_t)size * 300}, {52, 4, UINT32_MAX}, {56, 4, UINT32_MAX}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
        memcpy(b, cache, size);
        memcpy(b + cases[k].at, &cases[k].v, cases[k].width); /* little-endian: the low bytes */
        fix_up(b, size);
        largest = 0;
        ptl_tilecache* tc = NULL;
        ptl_status st = ptl_tilecache_create(b, size, &td, &tc, &err);
        cr_expect_eq(st, PTL_ERR_BAD_BLOB, "case %zu: %s", k, err.message);
        cr_expect_leq(largest, (size_t)256 * size, "case %zu: %zu bytes allocated for a cache of %zu", k, largest, size);
        ptl_tilecache_destroy(tc);
    }
    free(b);
    ptl_blob_free(cache, size, NULL);
}
