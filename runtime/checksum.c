/* FNV-1a, 64-bit: the blob checksum. Simple, deterministic and fast enough for load-time checks
   (about 1 GB/s); it guards against corruption, not against tampering. */
#include <stddef.h>
#include <string.h>

#include "navmesh_format.h"

uint64_t ptl_fnv1a64(uint64_t h, const void* data, uint64_t size) {
    const unsigned char* p = (const unsigned char*)data;
    for (uint64_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t ptl_blob_checksum(const void* blob, uint64_t size) {
    const unsigned char* p = (const unsigned char*)blob;
    const uint64_t at = offsetof(ptl_blob_header, checksum);
    static const unsigned char zero[8] = {0};
    uint64_t h = ptl_fnv1a64(PTL_FNV_BASIS, p, at);
    h = ptl_fnv1a64(h, zero, 8);
    return ptl_fnv1a64(h, p + at + 8, size - at - 8);
}
