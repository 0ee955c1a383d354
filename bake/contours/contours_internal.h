/* What the contour files share, private to them: contours.c (edge kinds, the layer),
   contours_trace.c (step 1), contours_simplify.c (step 3) and contours_corner.c (step 4). */
#ifndef PTL_CONTOURS_INTERNAL_H
#define PTL_CONTOURS_INTERNAL_H

#include "contours.h"
#include "../shape/geom2.h"
#include "../shape/seggrid.h"

typedef PTL_ARRAY(double) ptl_contours_f64;
typedef PTL_ARRAY(uint32_t) ptl_contours_u32;

/* ---- contours_trace.c --------------------------------------------------------------------------- */

/* The rings of layer `layer`'s columns (xy: 2 per vertex, in the layer's lattice; starts: each
   ring's first vertex, then the end). */
ptl_status ptl_contours_trace(const ptl_layer_map* m, const ptl_layer_info* li, uint32_t layer, const ptl_allocator* a,
                              ptl_contours_f64* xy, ptl_contours_u32* starts);

/* ---- contours_simplify.c ------------------------------------------------------------------------ */

/* Simplifies the rings (xy, ring starts rs, each edge's kind) in place within tol columns; the
   plans of `old` (NULL: none) are taken where a run is the same, and `plans` (NULL: none) gets the
   plans of every run. */
ptl_status ptl_contours_simplify(const ptl_allocator* a, double tol, const ptl_contour_plans* old,
                                 ptl_contour_plans* plans, ptl_contours_f64* xy, ptl_contours_u32* rs,
                                 ptl_contours_u32* kind);

/* The simplification's state: the rings' vertices and which are kept, their live segments in a grid. */
typedef struct ptl_contours_simp {
    const ptl_allocator* a;
    const double* xy;      /* vertices (all rings) */
    uint32_t n;
    const uint32_t* ring_of;
    uint32_t* next;        /* current successor of a kept vertex in its ring */
    uint8_t* keep;         /* 1: vertex still in its ring */
    ptl_seggrid grid;
    PTL_ARRAY(uint32_t) sa; /* segment endpoints (vertex ids) */
    PTL_ARRAY(uint32_t) sb;
    PTL_ARRAY(uint8_t) alive;
    uint32_t* stamp;
    uint32_t stamp_cap, stamp_id;
    const ptl_contour_plans* old_plans; /* NULL: none */
    ptl_contour_plans* plans;           /* NULL: none */
    PTL_ARRAY(double) run_xy;           /* a run's points, gathered for its plan's key */
} ptl_contours_simp;

static inline ptl_v2 ptl_contours_v(const ptl_contours_simp* s, uint32_t i) { return v2(s->xy[2 * i], s->xy[2 * i + 1]); }

bool ptl_contours_add_segment(ptl_contours_simp* s, uint32_t a, uint32_t b);
/* Does the chord from chain[0] to chain[clen-1] cross or touch any live segment other than those of
   the chain it replaces (both ends in the chain, marked by in_chain), or does the pocket between the
   chord and the chain hold any vertex of another edge? With `over`, the chain's point at position
   `over_at` is *over instead of its vertex's (a corner not yet placed). */
bool ptl_contours_chord_ok(ptl_contours_simp* s, const uint8_t* in_chain, const uint32_t* chain, uint32_t clen,
                           const ptl_v2* over, uint32_t over_at);

/* Directions from `o` whose ray passes within the tolerance of every point added: an arc of
   directions narrower than a half turn, from `r` counter-clockwise to `l` (no trigonometry: the
   sides of the arc one point allows are its direction turned either way by asin(tol / distance)). */
typedef struct ptl_contours_cone {
    ptl_v2 o, r, l;
    bool open; /* no point farther than the tolerance yet: every direction */
} ptl_contours_cone;

void ptl_contours_cone_init(ptl_contours_cone* c, ptl_v2 o);
/* Narrows the cone to the rays passing within tol of q; false once it is empty. */
bool ptl_contours_cone_add(ptl_contours_cone* c, ptl_v2 q, double tol);

/* ---- contours_corner.c -------------------------------------------------------------------------- */

/* Step 4 on every ring (rings rs[0..rings]): runs of notches replaced by one vertex where the
   tolerance and ptl_contours_chord_ok allow. `fixed`, `in_chain`, `seg_of`: the simplification's;
   `tried` (n + 1 bytes, zeroed) and `list` (n + 1 entries): scratch. */
ptl_status ptl_contours_corners(ptl_contours_simp* s, double* xy, const uint32_t* rs, uint32_t rings, double tol,
                                uint8_t* fixed, uint8_t* in_chain, uint32_t* seg_of, uint8_t* tried, uint32_t* list);

#endif
