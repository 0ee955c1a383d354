/* Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): oracle failures, checksum fix-ups for
   blobs and parts, a small deterministic generator for query points derived from the input.
   The sanitizers (ASan, UBSan) are the first oracle; `fuzz_fail` is the second: a property the
   library promises was broken, reported as a crash so that libFuzzer saves the input. */
#ifndef PTL_FUZZ_COMMON_H
#define PTL_FUZZ_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <portolan/bake.h>
#include <portolan/runtime.h>

#include "../../runtime/navmesh_format.h"

/* Prints "fuzz oracle: ..." and aborts: libFuzzer reports a deadly signal and writes crash-*. */
static inline void fuzz_fail(const char* fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void fuzz_fail(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz oracle: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* Blobs and parts carry their size and a checksum in the same place (bytes 16 and 24). A mutated
   input would almost always stop at "checksum mismatch"; fixing both lets the mutations reach what
   the loaders check after the checksum, which is what a damaged-but-rehashed file exercises. */
static inline void fuzz_fix_size_and_checksum(uint8_t* b, size_t size) {
    if (size < 32) return;
    uint64_t total = size;
    memcpy(b + 16, &total, 8);
    uint64_t sum = ptl_blob_checksum(b, size);
    memcpy(b + offsetof(ptl_blob_header, checksum), &sum, 8);
}

/* With FUZZ_DUMP=FILE in the environment, the pipeline targets write the input they decoded as a
   file the command line reads (a .map, a .poly), to reproduce a finding with `portolan`. */
static inline void fuzz_dump(const char* text, size_t len) {
    const char* path = getenv("FUZZ_DUMP");
    if (!path) return;
    FILE* f = fopen(path, "wb");
    if (f) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
}

/* splitmix64: query points and choices derived from the input, the same on every run. */
static inline uint64_t fuzz_next(uint64_t* s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline double fuzz_unit(uint64_t* s) { return (double)(fuzz_next(s) >> 11) * (1.0 / 9007199254740992.0); }

/* The bake hands out only meshes that its own validation accepts (bake.h, ptl_navmesh_validate). */
static inline void fuzz_check_blob_valid(const void* blob, size_t size, const char* what) {
    ptl_navmesh* nm = NULL;
    ptl_error err = {0};
    ptl_status st = ptl_navmesh_create(blob, size, NULL, &nm, &err);
    if (st < 0) fuzz_fail("%s: the bake's blob does not load: %s", what, err.message);
    st = ptl_navmesh_validate(nm, &err);
    if (st < 0) fuzz_fail("%s: the bake's blob fails validation: %s", what, err.message);
    ptl_navmesh_destroy(nm);
}

#endif
