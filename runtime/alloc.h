/* Allocation through the caller's ptl_allocator, growable arrays on top of it, and the library's
   sort, which takes its memory the same way. Private to the library (runtime and bake). */
#ifndef PTL_ALLOC_H
#define PTL_ALLOC_H

#include <portolan/runtime.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A complete allocator: the caller's when it sets alloc, realloc and free, libc otherwise. */
ptl_allocator ptl_allocator_resolve(const ptl_allocator* a);

void* ptl_mem_alloc(const ptl_allocator* a, size_t size);
void* ptl_mem_calloc(const ptl_allocator* a, size_t count, size_t elem);
void* ptl_mem_realloc(const ptl_allocator* a, void* p, size_t old_size, size_t new_size);
void ptl_mem_free(const ptl_allocator* a, void* p, size_t size);

/* Ensures *cap >= need (elements of `elem` bytes), growing by half again each time.
   Returns false on overflow or allocation failure, leaving *p and *cap unchanged. */
bool ptl_grow(const ptl_allocator* a, void** p, uint32_t* cap, uint64_t need, size_t elem);

/* Sorts `count` elements of `size` bytes at `base` by `cmp` (qsort's contract), keeping elements
   that compare equal in their input order, so the result is the same on every machine; use it
   instead of qsort, which may allocate behind the caller's back and is not stable on every libc.
   Up to 16 elements need no memory; more take one buffer of count * size bytes from `a`, resolved
   like every allocator here (ptl_allocator_resolve). Returns false only when that buffer cannot be
   had, and then `base` is left exactly as it was. Defined in sort.c. */
bool ptl_sort(void* base, size_t count, size_t size, int (*cmp)(const void*, const void*), const ptl_allocator* a);

/* A typed growable array: `PTL_ARRAY(double) xs = {0};` then PTL_PUSH(alloc, xs, v). */
#define PTL_ARRAY(T) struct { T* data; uint32_t count, cap; }
/* The capacity test is inlined (most reserves and pushes find room: a call each was measurable in
   the bake's inner loops); ptl_grow does the rest. */
static inline bool ptl_reserve(const ptl_allocator* a, void** p, uint32_t* cap, uint64_t need, size_t elem) {
    return need <= *cap || ptl_grow(a, p, cap, need, elem);
}
#define PTL_RESERVE(alloc, arr, n) \
    ptl_reserve((alloc), (void**)&(arr).data, &(arr).cap, (uint64_t)(n), sizeof(*(arr).data))
#define PTL_PUSH(alloc, arr, v) \
    (PTL_RESERVE(alloc, arr, (uint64_t)(arr).count + 1) ? ((arr).data[(arr).count++] = (v), true) : false)
#define PTL_ARRAY_FREE(alloc, arr) \
    (ptl_mem_free((alloc), (arr).data, (size_t)(arr).cap * sizeof(*(arr).data)), \
     (arr).data = NULL, (arr).count = (arr).cap = 0)

#endif
