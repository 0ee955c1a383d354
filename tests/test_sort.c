/* ptl_sort (runtime/sort.c): the stable, allocator-backed sort the library uses instead of qsort.
   The reference order is computed independently: qsort over element indices, with the index as
   the last key, which is a total order and so has exactly one answer, the stable one. */
#include "test_util.h"

#include <stdint.h>

#include "../runtime/alloc.h"
#include "failing_alloc.h"

static uint64_t next_rand(uint64_t* s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* The elements compare by their first key_len bytes only (as unsigned bytes, most significant
   first); the rest is payload that tells equal keys apart. A file-scope setting because qsort's
   comparator has no context pointer; each test sets it before sorting. */
static size_t key_len;

static int cmp_key(const void* a, const void* b) { return memcmp(a, b, key_len); }

static const unsigned char* ref_base;
static size_t ref_size;

static int cmp_ref(const void* pa, const void* pb) {
    size_t i = *(const size_t*)pa, j = *(const size_t*)pb;
    int c = memcmp(ref_base + i * ref_size, ref_base + j * ref_size, key_len);
    if (c) return c;
    return (i > j) - (i < j);
}

/* The stable order of v: equal keys in their input order. */
static unsigned char* reference_sort(const unsigned char* v, size_t n, size_t size) {
    size_t* idx = malloc((n ? n : 1) * sizeof *idx);
    size_t bytes = n * size;
    unsigned char* out = malloc(bytes ? bytes : 1);
    cr_assert(idx && out);
    for (size_t i = 0; i < n; ++i) idx[i] = i;
    ref_base = v, ref_size = size;
    qsort(idx, n, sizeof *idx, cmp_ref);
    for (size_t i = 0; i < n; ++i) memcpy(out + i * size, v + idx[i] * size, size);
    free(idx);
    return out;
}

enum { PATTERN_RANDOM, PATTERN_SORTED, PATTERN_REVERSED, PATTERN_EQUAL, PATTERN_COUNT };

/* n elements of `size` bytes: key bytes below `key_values`, arranged by `pattern`, and random
   payload bytes. */
static unsigned char* make_input(size_t n, size_t size, unsigned key_values, int pattern, uint64_t* seed) {
    size_t bytes = n * size;
    unsigned char* v = malloc(bytes ? bytes : 1);
    cr_assert(v);
    for (size_t i = 0; i < n * size; ++i) v[i] = (unsigned char)next_rand(seed);
    for (size_t i = 0; i < n; ++i) {
        unsigned char* e = v + i * size;
        for (size_t k = 0; k < key_len; ++k) {
            if (pattern == PATTERN_EQUAL) e[k] = 0;
            else if (pattern == PATTERN_RANDOM) e[k] = (unsigned char)(next_rand(seed) % key_values);
            else {
                /* A key that rises (or falls) with i: digit k of i in base key_values, most
                   significant first, wrapping round when key_len bytes cannot count to n. */
                size_t r = pattern == PATTERN_SORTED ? i : n - 1 - i, d = r;
                for (size_t j = k + 1; j < key_len; ++j) d /= key_values;
                e[k] = (unsigned char)(d % key_values);
            }
        }
    }
    return v;
}


static const size_t COUNTS[] = {0, 1, 2, 15, 16, 17, 1000, 100000};
/* 100 is wider than the insertion sort's 64-byte swap buffer. */
static const size_t SIZES[] = {1, 4, 12, 24, 100};

/* One input against the reference: same bytes, and memory only through the allocator (one
   buffer of n * size bytes beyond 16 elements, none up to 16, all of it given back). */
static void check_one(size_t n, size_t size, size_t klen, unsigned key_values, int pattern, uint64_t* seed) {
    key_len = klen;
    unsigned char* v = make_input(n, size, key_values, pattern, seed);
    unsigned char* want = reference_sort(v, n, size);
    tracking c = {0, -1, 0, 0};
    ptl_allocator a = {t_alloc, t_realloc, t_free, &c};
    cr_assert(ptl_sort(v, n, size, cmp_key, &a), "n %zu size %zu: ptl_sort failed", n, size);
    cr_assert(n * size == 0 || memcmp(v, want, n * size) == 0,
              "n %zu, size %zu, key %zu bytes below %u, pattern %d: not the stable order", n, size, klen, key_values,
              pattern);
    long want_allocs = n > 16 ? 1 : 0;
    cr_assert_eq(c.allocs, want_allocs, "n %zu size %zu: %ld allocations, expected %ld", n, size, c.allocs, want_allocs);
    cr_assert_eq(c.frees, want_allocs, "n %zu size %zu: %ld frees for %ld allocations", n, size, c.frees, c.allocs);
    cr_assert_eq(c.reallocs, 0);
    cr_assert_eq(c.live_bytes, 0, "n %zu size %zu: %zu bytes not given back", n, size, c.live_bytes);
    if (want_allocs) cr_assert_eq(c.last_size, n * size, "the buffer must be count * size bytes");
    free(v);
    free(want);
}

Test(sort, agrees_with_the_stable_reference_on_every_count_and_element_size) {
    uint64_t seed = 20240601;
    for (size_t ci = 0; ci < sizeof COUNTS / sizeof COUNTS[0]; ++ci)
        for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; ++si) {
            size_t n = COUNTS[ci], size = SIZES[si];
            /* Many ties: one key byte of three values. */
            check_one(n, size, 1, 3, PATTERN_RANDOM, &seed);
            /* Few ties: up to three key bytes of any value (all of a 1-byte element). */
            size_t klen = size < 3 ? size : 3;
            for (int pattern = 0; pattern < PATTERN_COUNT; ++pattern) check_one(n, size, klen, 256, pattern, &seed);
        }
}

/* Records sorted by a key with many ties: records of equal key keep their input order. */
typedef struct rec {
    uint32_t key, seq;
    uint8_t pad[4];
} rec;

static int cmp_rec_key(const void* pa, const void* pb) {
    const rec *a = pa, *b = pb;
    return (a->key > b->key) - (a->key < b->key);
}

Test(sort, equal_keys_keep_their_input_order) {
    static const size_t ns[] = {2, 3, 15, 16, 17, 31, 33, 1000, 4097, 100000};
    uint64_t seed = 7;
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; ++t) {
        size_t n = ns[t];
        rec* r = malloc(n * sizeof *r);
        cr_assert(r);
        for (size_t i = 0; i < n; ++i) r[i] = (rec){(uint32_t)(next_rand(&seed) % 7), (uint32_t)i, {0}};
        ptl_allocator a = ptl_allocator_resolve(NULL);
        cr_assert(ptl_sort(r, n, sizeof *r, cmp_rec_key, &a));
        for (size_t i = 1; i < n; ++i) {
            cr_assert(r[i - 1].key <= r[i].key, "n %zu: keys out of order at %zu", n, i);
            if (r[i - 1].key == r[i].key)
                cr_assert(r[i - 1].seq < r[i].seq, "n %zu: records %u and %u of key %u swapped", n, r[i - 1].seq,
                          r[i].seq, r[i].key);
        }
        free(r);
    }
}

Test(sort, a_null_allocator_means_libc) {
    key_len = 4;
    uint64_t seed = 99;
    unsigned char* v = make_input(1000, 12, 256, PATTERN_RANDOM, &seed);
    unsigned char* want = reference_sort(v, 1000, 12);
    cr_assert(ptl_sort(v, 1000, 12, cmp_key, NULL));
    cr_assert(memcmp(v, want, 1000 * 12) == 0);
    free(v);
    free(want);
}

/* Out of memory: false, no crash, nothing leaked, and the input untouched (which is more than
   still holding the same elements). Up to 16 elements need no memory and still succeed. */
Test(sort, a_failing_allocator_leaves_the_input_as_it_was) {
    static const size_t ns[] = {17, 1000, 100000};
    uint64_t seed = 3;
    key_len = 2;
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; ++t) {
        size_t n = ns[t], size = 24;
        unsigned char* v = make_input(n, size, 256, PATTERN_RANDOM, &seed);
        unsigned char* copy = malloc(n * size);
        cr_assert(copy);
        memcpy(copy, v, n * size);
        tracking tr = {0, 0, 0, 0};
        ptl_allocator a = {t_alloc, t_realloc, t_free, &tr};
        cr_assert_not(ptl_sort(v, n, size, cmp_key, &a), "n %zu: must report the failed allocation", n);
        cr_assert_eq(tr.calls, 1, "n %zu: one request for the buffer, no retry elsewhere", n);
        cr_assert_eq(tr.live_blocks, 0);
        cr_assert(memcmp(v, copy, n * size) == 0, "n %zu: the input changed although the sort failed", n);
        free(v);
        free(copy);
    }
    unsigned char small[16 * 4];
    for (size_t i = 0; i < sizeof small; ++i) small[i] = (unsigned char)next_rand(&seed);
    tracking tr = {0, 0, 0, 0};
    ptl_allocator a = {t_alloc, t_realloc, t_free, &tr};
    cr_assert(ptl_sort(small, 16, 4, cmp_key, &a));
    cr_assert_eq(tr.calls, 0);
    for (size_t i = 1; i < 16; ++i) cr_assert(memcmp(small + (i - 1) * 4, small + i * 4, key_len) <= 0);
}
