/* An allocator that fails at its N-th call (SQLite style) and counts what is live, for the tests
   of failure paths: every run must end in PTL_ERR_NO_MEMORY or success and give back every byte.
   Use: tracking t = {0, n, 0, 0}; ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
   (n = -1: it never fails and only counts). */
#ifndef PTL_TEST_FAILING_ALLOC_H
#define PTL_TEST_FAILING_ALLOC_H

#include <stdlib.h>

typedef struct tracking {
    long calls, fail_at; /* the call number that fails (-1: never) */
    long live_blocks;
    size_t live_bytes;
    long allocs, reallocs, frees; /* calls of each that succeeded (frees of NULL not counted) */
    size_t last_size;             /* of the last block allocated */
} tracking;

static inline void* t_alloc(size_t size, void* user) {
    tracking* t = user;
    if (t->fail_at >= 0 && t->calls++ == t->fail_at) return NULL;
    void* p = malloc(size);
    if (p) t->live_blocks++, t->live_bytes += size, t->allocs++, t->last_size = size;
    return p;
}
static inline void* t_realloc(void* p, size_t old_size, size_t new_size, void* user) {
    tracking* t = user;
    if (t->fail_at >= 0 && t->calls++ == t->fail_at) return NULL;
    void* q = realloc(p, new_size);
    if (q) t->live_bytes += new_size - old_size, t->reallocs++;
    return q;
}
static inline void t_free(void* p, size_t size, void* user) {
    tracking* t = user;
    if (!p) return;
    t->frees++;
    t->live_blocks--;
    t->live_bytes -= size;
    free(p);
}

#endif
