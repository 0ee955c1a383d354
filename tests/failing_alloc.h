/* An allocator that fails at its N-th call (SQLite style) and counts what is live, for the tests
   of failure paths: every run must end in PTL_ERR_NO_MEMORY or success and give back every byte.
   Use: tracking t = {.fail_at = n}; ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
   (n = -1: it never fails and only counts). With .fail_after set, every call from the N-th on
   fails, not only that one: a cleanup path that itself allocates (or gives back memory through
   a shrinking realloc) then fails too, which is what a process that ran out of memory sees. */
#ifndef PTL_TEST_FAILING_ALLOC_H
#define PTL_TEST_FAILING_ALLOC_H

#include <stdbool.h>
#include <stdlib.h>

typedef struct tracking {
    long calls, fail_at; /* the call number that fails (-1: never) */
    long live_blocks;
    size_t live_bytes;
    long allocs, reallocs, frees; /* calls of each that succeeded (frees of NULL not counted) */
    size_t last_size;             /* of the last block allocated */
    bool fail_after;              /* every call from fail_at on fails, not only that one */
} tracking;

static inline bool t_fails(tracking* t) {
    long call = t->calls++;
    return t->fail_at >= 0 && (t->fail_after ? call >= t->fail_at : call == t->fail_at);
}

static inline void* t_alloc(size_t size, void* user) {
    tracking* t = user;
    if (t_fails(t)) return NULL;
    void* p = malloc(size);
    if (p) t->live_blocks++, t->live_bytes += size, t->allocs++, t->last_size = size;
    return p;
}
static inline void* t_realloc(void* p, size_t old_size, size_t new_size, void* user) {
    tracking* t = user;
    if (t_fails(t)) return NULL;
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
