/* The tile cache as stored (tilecache_pack.c): a container around the part that holds every tile
   (parts.c), its spans coded per column as small deltas in streams of one field each, then the
   streams through a byte coder of repeats (LZ77). ptl_tilecache_bake writes it; ptl_tilecache_create
   unpacks it back into the part's exact bytes and reads that as before. Private to the bake. */
#ifndef PTL_TILECACHE_PACK_H
#define PTL_TILECACHE_PACK_H

#include <stdbool.h>

#include "../../runtime/internal.h"

/* Method bits of a packed cache (what ptl_tc_pack may choose) */
#define PTL_TC_PACK_SPANS 1u /* the tiles' spans as per-column deltas in streams (else the part's bytes) */
#define PTL_TC_PACK_LZ 2u    /* the byte coder of repeats over that (else stored) */

/* Packs `part` (a well-formed part of every tile, as ptl_bake_trimesh_part writes it) into *out,
   allocated with `a` (*out_size bytes, free with ptl_mem_free). methods: the PTL_TC_PACK_* bits to
   use (both: the default); the spans are coded only where the part is in the form the bake writes
   (zeroed padding), else its bytes go to the byte coder as they are. PTL_ERR_NO_MEMORY. */
ptl_status ptl_tc_pack(const void* part, size_t size, uint32_t methods, const ptl_allocator* a, void** out,
                       size_t* out_size, ptl_error* err);

/* Whether `data` begins as a packed cache does (its magic), whatever follows. */
bool ptl_tc_is_packed(const void* data, size_t size);

/* Unpacks a packed cache into the part it holds (*part allocated with `a`, *part_size bytes, free
   with ptl_mem_free); the part itself is not checked (ptl_part_world_read does). A damaged cache
   (truncated, checksum, sizes past what its bytes can hold, a stream that overruns) is
   PTL_ERR_BAD_BLOB naming the problem; every allocation is bounded by the cache's own size times
   the coders' largest expansion. PTL_ERR_NO_MEMORY. */
ptl_status ptl_tc_unpack(const void* data, size_t size, const ptl_allocator* a, void** part, size_t* part_size,
                         ptl_error* err);

#endif
