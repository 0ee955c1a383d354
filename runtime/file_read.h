/* Opening and reading whole input files (navmesh blobs, the bake's text inputs, OBJ): one place
   that decides what a readable input is, so that a directory, a device or an absurdly large file
   is refused with a message naming it instead of reaching an allocation sized by ftell (which
   reports 2^63 - 1 for a directory on Linux). Private to the library; tools may use it. */
#ifndef PTL_FILE_READ_H
#define PTL_FILE_READ_H

#include <portolan/runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The largest file a whole-file reader takes: [Units: bytes]. Text inputs (.map, .scen, pairs
   CSV, .poly, .mesh) sit in memory whole while they are parsed; blobs are loaded whole. */
#define PTL_TEXT_FILE_MAX ((uint64_t)1 << 30)
#define PTL_BLOB_FILE_MAX ((uint64_t)1 << 36)

/* Opens `path` for reading in binary mode. Accepts a regular file of at most `max_bytes` bytes and
   a pipe (whose length is only known once read: ptl_file_read_all caps it while reading); refuses a
   directory, a device, a socket, or a larger file with PTL_ERR_IO and a message naming `path`.
   *known_size (when not NULL): the regular file's size, or UINT64_MAX for a pipe. */
ptl_status ptl_file_open_read(const char* path, uint64_t max_bytes, FILE** out, uint64_t* known_size, ptl_error* err);

/* Reads all of `path` (ptl_file_open_read's rules, at most `max_bytes`) into memory from `a`.
   On success *data holds *size bytes followed by at least one spare byte; hand *cap to
   ptl_mem_free. Reads in chunks, never trusting a length it was told. */
ptl_status ptl_file_read_all(const char* path, uint64_t max_bytes, const ptl_allocator* a, char** data, size_t* size,
                             size_t* cap, ptl_error* err);

#endif
