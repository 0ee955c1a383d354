/* Joining block-layers across block borders into layers (layer_stitch.c). Private to the bake. */
#ifndef PTL_LAYER_STITCH_H
#define PTL_LAYER_STITCH_H

#include <portolan/bake.h>

/* layer_stitch.c: a set of pairs (a << 32 | b), open addressing; zero-initialised is empty.
   ptl_pair_set_sorted sorts the keys in place at the start of the slots (*out, *count; still
   owned by the set). False: out of memory (the set is unchanged). */
static inline uint64_t ptl_pair_key(uint32_t a, uint32_t b) {
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}
typedef struct ptl_pair_set {
    uint64_t* slot; /* UINT64_MAX: empty */
    uint32_t cap, count;
} ptl_pair_set;
bool ptl_pair_set_has(const ptl_pair_set* s, uint64_t k);
bool ptl_pair_set_add(ptl_pair_set* s, uint64_t k, const ptl_allocator* a);
bool ptl_pair_set_sorted(ptl_pair_set* s, const ptl_allocator* a, uint64_t** out, uint32_t* count);
void ptl_pair_set_free(ptl_pair_set* s, const ptl_allocator* a);
/* A link across a block border, a candidate for the stitch: the block-layers it would join, taken
   in order of (key, dir), key being its lower floor << 32 | its span on the -x or -z side (its index
   in the world's order), dir 1 (a border z = k B) or 2 (x = k B). */
typedef struct ptl_vx_candidate {
    uint64_t key;
    uint32_t a, b;
    uint32_t dir;
} ptl_vx_candidate;
/* layer_stitch.c: the roots (root[id], n entries) of n block-layers once stitched: `conflicts`
   (a << 32 | b, a < b, sorted, no repeats) may never be one layer, the candidates (sorted by key,
   then dir) are taken in turn, each uniting its two components unless they conflict. */
ptl_status ptl_stitch_layers(uint32_t n, const uint64_t* conflicts, uint32_t conflict_count, const ptl_vx_candidate* cand,
                         uint32_t cand_count, const ptl_allocator* alloc, uint32_t* root, ptl_error* err);
int ptl_stitch_candidate_cmp(const void* x, const void* y);

#endif
