/* Allocation through the caller's allocator (STYLE: per instance, with a user pointer). */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

static void* libc_alloc(size_t size, void* user) {
    (void)user;
    return malloc(size);
}
static void* libc_realloc(void* p, size_t old_size, size_t new_size, void* user) {
    (void)user;
    (void)old_size;
    return realloc(p, new_size);
}
static void libc_free(void* p, size_t size, void* user) {
    (void)user;
    (void)size;
    free(p);
}

ptl_allocator ptl_allocator_resolve(const ptl_allocator* a) {
    if (a && a->alloc && a->realloc && a->free) return *a;
    ptl_allocator d = {libc_alloc, libc_realloc, libc_free, NULL};
    return d;
}

void* ptl_mem_alloc(const ptl_allocator* a, size_t size) {
    if (size == 0) size = 1;
    return a->alloc(size, a->user);
}

void* ptl_mem_calloc(const ptl_allocator* a, size_t count, size_t elem) {
    if (elem && count > SIZE_MAX / elem) return NULL;
    void* p = ptl_mem_alloc(a, count * elem);
    if (p) memset(p, 0, count * elem > 0 ? count * elem : 1);
    return p;
}

void* ptl_mem_realloc(const ptl_allocator* a, void* p, size_t old_size, size_t new_size) {
    if (!p) return ptl_mem_alloc(a, new_size);
    if (new_size == 0) new_size = 1;
    return a->realloc(p, old_size, new_size, a->user);
}

void ptl_mem_free(const ptl_allocator* a, void* p, size_t size) {
    /* ptl_mem_alloc turns a request for 0 bytes into 1: free with the size actually allocated. */
    if (p) a->free(p, size ? size : 1, a->user);
}

bool ptl_grow(const ptl_allocator* a, void** p, uint32_t* cap, uint64_t need, size_t elem) {
    if (need <= *cap) return true;
    if (need > UINT32_MAX) return false;
    uint64_t n = (uint64_t)*cap + *cap / 2;
    if (n < 16) n = 16;
    if (n < need) n = need;
    if (n > UINT32_MAX) n = UINT32_MAX;
    if (n > SIZE_MAX / elem) return false;
    void* q = ptl_mem_realloc(a, *p, (size_t)*cap * elem, (size_t)n * elem);
    if (!q) return false;
    *p = q;
    *cap = (uint32_t)n;
    return true;
}

void ptl_blob_free(void* blob, size_t size, const ptl_allocator* alloc) {
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_mem_free(&a, blob, size);
}
