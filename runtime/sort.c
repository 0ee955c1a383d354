/* The library's one sort (see alloc.h): a stable bottom-up merge sort. libc's qsort is not used
   because it may allocate on its own (glibc) and is not stable everywhere (musl, the BSDs), which
   would make baked blobs depend on the machine. Runs of RUN elements are first sorted by insertion
   in place, then merged pairwise, doubling their length, between `base` and one buffer. The
   comparator always gets the element that came first in the input as its first argument, and an
   element moves ahead of an earlier one only when it compares strictly less. */
#include <stdint.h>
#include <string.h>

#include "alloc.h"

/* Inputs this small are sorted by insertion alone, without memory; longer ones start from runs of
   this length. Insertion is quadratic, but on a few elements it beats the merge's copies. */
enum { RUN = 16 };

/* Swaps two elements of `size` bytes through a small stack buffer, so that no element size needs
   memory of its own. */
static void swap_elems(unsigned char* p, unsigned char* q, size_t size) {
    unsigned char buf[64];
    while (size) {
        size_t c = size < sizeof buf ? size : sizeof buf;
        memcpy(buf, p, c);
        memcpy(p, q, c);
        memcpy(q, buf, c);
        p += c, q += c, size -= c;
    }
}

/* Insertion sort of n elements in place: each element moves back past the ones that compare
   greater than it, and stops at the first that does not, which keeps equal elements in order. */
static void insertion_sort(unsigned char* v, size_t n, size_t size, int (*cmp)(const void*, const void*)) {
    for (size_t i = 1; i < n; ++i)
        for (size_t j = i; j > 0 && cmp(v + (j - 1) * size, v + j * size) > 0; --j)
            swap_elems(v + (j - 1) * size, v + j * size, size);
}

/* Merges the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi). On ties the left run's
   element goes first, which is what makes the sort stable. */
static void merge_runs(const unsigned char* src, unsigned char* dst, size_t lo, size_t mid, size_t hi, size_t size,
                       int (*cmp)(const void*, const void*)) {
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        if (cmp(src + i * size, src + j * size) <= 0) memcpy(dst + k++ * size, src + i++ * size, size);
        else memcpy(dst + k++ * size, src + j++ * size, size);
    }
    /* One side is used up: the rest of the other is already in order. */
    if (i < mid) memcpy(dst + k * size, src + i * size, (mid - i) * size);
    else if (j < hi) memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

bool ptl_sort(void* base, size_t count, size_t size, int (*cmp)(const void*, const void*), const ptl_allocator* a) {
    if (count < 2 || size == 0) return true;
    unsigned char* v = base;
    if (count <= RUN) {
        insertion_sort(v, count, size, cmp);
        return true;
    }
    if (count > SIZE_MAX / size) return false;
    /* The buffer comes first: when it cannot be had, nothing has moved yet. */
    ptl_allocator al = ptl_allocator_resolve(a);
    const size_t bytes = count * size;
    unsigned char* tmp = ptl_mem_alloc(&al, bytes);
    if (!tmp) return false;
    for (size_t lo = 0, n; lo < count; lo += n) {
        n = count - lo < RUN ? count - lo : RUN;
        insertion_sort(v + lo * size, n, size, cmp);
    }
    /* Each pass merges pairs of runs of length w from src into dst. The bounds are computed so
       that nothing overflows even when count is close to SIZE_MAX. */
    unsigned char *src = v, *dst = tmp;
    for (size_t w = RUN; w < count; w = w > count / 2 ? count : 2 * w) {
        for (size_t lo = 0, mid, hi; lo < count; lo = hi) {
            mid = count - lo > w ? lo + w : count;
            hi = count - mid > w ? mid + w : count;
            merge_runs(src, dst, lo, mid, hi, size, cmp);
        }
        unsigned char* t = src;
        src = dst, dst = t;
    }
    if (src != v) memcpy(v, src, bytes);
    ptl_mem_free(&al, tmp, bytes);
    return true;
}
