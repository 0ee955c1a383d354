/* Layers from blocks (layers.c floods blocks of PTL_VX_LAYER_BLOCK x PTL_VX_LAYER_BLOCK columns
   on their own, in parallel): the block-layers that meet across block borders are stitched into
   the field's layers, as Saupin et al. 2014 (§4.1.4, §4.3) stitch the regions of tiles.

   The flood's rule for one layer is pairwise: no two of its spans share a column, and no two of its
   spans standing side by side are left unlinked (layers.c, links_agree). So two block-layers may be
   one layer only if no pair of their spans breaks the rule; such a pair makes them a conflict pair.
   Inside a block the conflicts come from the block's spans (layers.c); across a border from the two
   columns on either side of it (here). The links across borders are the candidates: taken in order
   of their lower floor (the flood's bottom-up order), each unites the two components it joins unless
   a member of one conflicts with a member of the other. Components only grow, so a refused pair of
   components stays refused (remembered, as in layers.c).

   Blocks are fixed in the world's columns, so the layers do not depend on how the bake is tiled nor
   on the threads. The pairs across borders are gathered band by band (layer_stream.c); this file
   unites. */
#include <string.h>

#include "../../runtime/internal.h"
#include "../voxel/vx_params.h"
#include "layer_stitch.h"

static int cmp_u64(const void* x, const void* y) {
    uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
    return a < b ? -1 : a > b;
}

/* ---- The world ------------------------------------------------------------------------------- */

int ptl_stitch_candidate_cmp(const void* x, const void* y) {
    const ptl_vx_candidate *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->dir < b->dir ? -1 : a->dir > b->dir;
}

typedef struct stitch {
    uint32_t* parent;
    uint32_t* members;   /* per root: block-layers in its component */
    uint32_t* next;      /* member list: next block-layer of the component, PTL_VX_NONE at the end */
    uint32_t* tail;      /* per root: last member */
    uint64_t* degree;    /* per root: conflicts of its members (the cost of scanning it) */
    uint32_t* cstart;    /* conflicts as lists: block-layer i's are adj[cstart[i] .. cstart[i + 1]) */
    uint32_t* adj;
    size_t adj_n;        /* entries allocated in adj */
    ptl_pair_set refused; /* root pairs found in conflict (only saves work: a failed insert forgets) */
    const ptl_allocator* a;
} stitch;

static uint32_t find(uint32_t* p, uint32_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
}

static uint32_t slot_of(uint64_t k, uint32_t cap) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k & (cap - 1);
}

bool ptl_pair_set_has(const ptl_pair_set* s, uint64_t k) {
    if (!s->cap) return false;
    for (uint32_t i = slot_of(k, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == k) return true;
        if (s->slot[i] == UINT64_MAX) return false;
    }
}

bool ptl_pair_set_add(ptl_pair_set* s, uint64_t k, const ptl_allocator* a) {
    if (2 * ((uint64_t)s->count + 1) > s->cap) {
        const uint32_t cap = s->cap ? 2 * s->cap : 64;
        uint64_t* t = ptl_mem_alloc(a, (size_t)cap * sizeof *t);
        if (!t) return false;
        memset(t, 0xff, (size_t)cap * sizeof *t);
        for (uint32_t i = 0; i < s->cap; ++i) {
            if (s->slot[i] == UINT64_MAX) continue;
            uint32_t j = slot_of(s->slot[i], cap);
            while (t[j] != UINT64_MAX) j = (j + 1) & (cap - 1);
            t[j] = s->slot[i];
        }
        ptl_mem_free(a, s->slot, (size_t)s->cap * sizeof *s->slot);
        s->slot = t, s->cap = cap;
    }
    uint32_t j = slot_of(k, s->cap);
    while (s->slot[j] != UINT64_MAX && s->slot[j] != k) j = (j + 1) & (s->cap - 1);
    if (s->slot[j] == UINT64_MAX) s->slot[j] = k, ++s->count;
    return true;
}

bool ptl_pair_set_sorted(ptl_pair_set* s, const ptl_allocator* a, uint64_t** out, uint32_t* count) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->cap; ++i)
        if (s->slot[i] != UINT64_MAX) s->slot[k++] = s->slot[i];
    *out = s->slot, *count = k;
    if (!ptl_sort(s->slot, k, sizeof *s->slot, cmp_u64, a)) return false;
    return true;
}

void ptl_pair_set_free(ptl_pair_set* s, const ptl_allocator* a) {
    ptl_mem_free(a, s->slot, (size_t)s->cap * sizeof *s->slot);
    memset(s, 0, sizeof *s);
}

/* Unites roots ra and rb unless a member of one conflicts with the other (scanning the side with
   fewer conflicts); the larger component (then the lower id) stays the root. */
static void unite(stitch* s, uint32_t ra, uint32_t rb) {
    const uint64_t k = ptl_pair_key(ra, rb);
    if (ptl_pair_set_has(&s->refused, k)) return;
    const uint32_t scan = s->degree[ra] <= s->degree[rb] ? ra : rb, other = scan == ra ? rb : ra;
    for (uint32_t m = scan; m != PTL_VX_NONE; m = s->next[m])
        for (uint32_t i = s->cstart[m]; i < s->cstart[m + 1]; ++i)
            if (find(s->parent, s->adj[i]) == other) {
                (void)ptl_pair_set_add(&s->refused, k, s->a);
                return;
            }
    uint32_t r = ra, q = rb;
    if (s->members[q] > s->members[r] || (s->members[q] == s->members[r] && q < r)) r = rb, q = ra;
    s->parent[q] = r;
    s->members[r] += s->members[q];
    s->degree[r] += s->degree[q];
    s->next[s->tail[r]] = q;
    s->tail[r] = s->tail[q];
}

ptl_status ptl_stitch_layers(uint32_t n, const uint64_t* conf, uint32_t nconf, const ptl_vx_candidate* cand,
                         uint32_t cand_count, const ptl_allocator* alloc, uint32_t* root, ptl_error* err) {
    ptl_allocator a = ptl_allocator_resolve(alloc);
    stitch s;
    memset(&s, 0, sizeof s);
    s.a = &a;
    ptl_status st = PTL_OK;
    const size_t nn = (size_t)n + 1;
    s.parent = root;
    s.members = ptl_mem_alloc(&a, nn * sizeof *s.members);
    s.next = ptl_mem_alloc(&a, nn * sizeof *s.next);
    s.tail = ptl_mem_alloc(&a, nn * sizeof *s.tail);
    s.degree = ptl_mem_calloc(&a, nn, sizeof *s.degree);
    s.cstart = ptl_mem_calloc(&a, nn + 1, sizeof *s.cstart);
    s.adj_n = (size_t)nconf * 2 + 1;
    s.adj = ptl_mem_alloc(&a, s.adj_n * sizeof *s.adj);
    if (!s.members || !s.next || !s.tail || !s.degree || !s.cstart || !s.adj) goto oom;
    for (uint32_t i = 0; i < nconf; ++i) {
        const uint32_t x = (uint32_t)(conf[i] >> 32), y = (uint32_t)conf[i];
        if (x == y || y >= n) { /* cannot come from blocks that obey the flood's rules */
            st = ptl_error_set(err, PTL_ERR_INTERNAL, "layers: block-layer %u conflicts with itself", x);
            goto done;
        }
        s.cstart[x + 1]++, s.cstart[y + 1]++;
    }
    for (uint32_t i = 0; i < n; ++i) s.degree[i] = s.cstart[i + 1], s.cstart[i + 1] += s.cstart[i];
    for (uint32_t i = 0; i < nconf; ++i) { /* cstart[i] runs ahead while filling, then steps back */
        const uint32_t x = (uint32_t)(conf[i] >> 32), y = (uint32_t)conf[i];
        s.adj[s.cstart[x]++] = y;
        s.adj[s.cstart[y]++] = x;
    }
    for (uint32_t i = n; i > 0; --i) s.cstart[i] = s.cstart[i - 1];
    s.cstart[0] = 0;
    for (uint32_t i = 0; i < n; ++i) s.parent[i] = i, s.members[i] = 1, s.next[i] = PTL_VX_NONE, s.tail[i] = i;
    for (uint32_t i = 0; i < cand_count; ++i) {
        if (cand[i].a >= n || cand[i].b >= n) {
            st = ptl_error_set(err, PTL_ERR_INTERNAL, "layers: a candidate joins no block-layer");
            goto done;
        }
        const uint32_t ra = find(s.parent, cand[i].a), rb = find(s.parent, cand[i].b);
        if (ra != rb) unite(&s, ra, rb);
    }
    for (uint32_t i = 0; i < n; ++i) s.parent[i] = find(s.parent, i);
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory stitching %u block-layers", n);
done:;
    const size_t nf = (size_t)n + 1;
    ptl_mem_free(&a, s.members, nf * sizeof *s.members);
    ptl_mem_free(&a, s.next, nf * sizeof *s.next);
    ptl_mem_free(&a, s.tail, nf * sizeof *s.tail);
    ptl_mem_free(&a, s.degree, nf * sizeof *s.degree);
    ptl_mem_free(&a, s.cstart, (nf + 1) * sizeof *s.cstart);
    ptl_mem_free(&a, s.adj, s.adj_n * sizeof *s.adj);
    ptl_pair_set_free(&s.refused, &a);
    return st;
}
