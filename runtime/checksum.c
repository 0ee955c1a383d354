/* The blob checksum: FNV-1a's multiply over 64-bit words (plus a shift to carry high bits down),
   then bytes for the tail. Deterministic and fast (several GB/s); it guards against corruption, not
   against tampering. A chunked hash (ptl_hash64(ptl_hash64(h, a), b)) equals the hash of the
   concatenation only when the first chunk is a multiple of 8 bytes long. */
#include <stddef.h>
#include <string.h>

#include "navmesh_format.h"

uint64_t ptl_hash64(uint64_t h, const void* data, uint64_t size) {
    const unsigned char* p = (const unsigned char*)data;
    uint64_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

uint64_t ptl_blob_checksum(const void* blob, uint64_t size) {
    const unsigned char* p = (const unsigned char*)blob;
    const uint64_t at = offsetof(ptl_blob_header, checksum); /* 24: the chunks stay word-aligned */
    static const unsigned char zero[8] = {0};
    uint64_t h = ptl_hash64(PTL_HASH_BASIS, p, at);
    h = ptl_hash64(h, zero, 8);
    return ptl_hash64(h, p + at + 8, size - at - 8);
}
