/* The closest-element backend's batches for the decomposition (closest_batch.c): the scene built
   from its vertices, segments and grid, the notches asked about, the exact choice among a notch's
   candidates; and the notch-by-notch pass answered from one batch (ptl_dc_pending_*). */
#ifndef PTL_CLOSEST_BATCH_H
#define PTL_CLOSEST_BATCH_H

#include "decompose.h"

enum { PTL_DCB_CAP = 64 }; /* candidates per notch (32 left 5% of brc202d's notches to the walk) */

/* The scene of ptl_closest_scene, built from the decomposition's vertices, segments and grid. */
typedef struct ptl_dcb_scene {
    ptl_closest_scene s;
    float* xy;
    uint32_t *vkey, *vflags, *seg, *seg_flags, *bstart, *bseg;
    uint32_t nv, ns, nb, nbseg;
} ptl_dcb_scene;

/* The notches asked about and what the backend answered. */
typedef struct ptl_dcb_batch {
    uint32_t count;
    uint32_t* notch;
    ptl_v2* r; /* 2 per query: r1, r2 (exact) */
    float *cone, *reach, *lb, *bound;
    uint32_t *seg, *cnt, *start; /* seg, lb: packed, query i's from start[i] (ptl_closest_batch) */
    uint8_t* settled; /* 1: closest element known (h), 0: walk */
    ptl_dc_hit* h;
} ptl_dcb_batch;

#define PTL_DCB_FIELDS(X)                                                                                    \
    X(notch, 1) X(r, 2) X(cone, 4) X(reach, 1) X(lb, PTL_DCB_CAP) X(bound, 1) X(seg, PTL_DCB_CAP) X(cnt, 1) \
    X(settled, 1) X(h, 1) X(start, 1)

bool ptl_dcb_scene_build(ptl_dc* d, ptl_dcb_scene* b);
void ptl_dcb_scene_free(ptl_dc* d, ptl_dcb_scene* b);
bool ptl_dcb_batch_alloc(ptl_dc* d, ptl_dcb_batch* q, uint32_t cap); /* cap queries; zeroes q first */
void ptl_dcb_batch_free(ptl_dc* d, ptl_dcb_batch* q, uint32_t cap);
/* The queries: every open notch of id < n with a reflex gap, in increasing order. */
bool ptl_dcb_queries(ptl_dc* d, uint32_t n, ptl_dcb_batch* q, bool* oom);
ptl_status ptl_dcb_ask(ptl_dc* d, const ptl_closest_scene* scene, ptl_dcb_batch* q, uint32_t mode, ptl_error* err);
/* Query i's closest element among its candidates (q->h[i]), and whether that settles it. */
void ptl_dcb_settle(ptl_dc* d, ptl_dcb_batch* q, uint32_t i);

/* The notch-by-notch pass (decompose.c, resolve_notch) answered from one batch: begin asks for the
   closest element of every open notch of id < n at once (scene as it is), note is told of every
   segment added since (a notch whose walk would meet it is asked again by walking), take gives a
   notch's first closest element when its answer still holds. Only without notch pairs in the pass
   (notch_slack <= 1: the pairs' search is state-dependent and stays the walk's). */
ptl_status ptl_dc_pending_begin(ptl_dc* d, uint32_t n, ptl_error* err);
void ptl_dc_pending_note(ptl_dc* d, uint32_t seg);
bool ptl_dc_pending_take(ptl_dc* d, uint32_t n, ptl_v2 u, ptl_v2 w, ptl_dc_hit* out);
void ptl_dc_pending_end(ptl_dc* d);

#endif
