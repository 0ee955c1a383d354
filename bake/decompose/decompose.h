/* State of one ANavMG decomposition (decompose.c), shared with convexity relaxation (relax.c). */
#ifndef PTL_DECOMPOSE_H
#define PTL_DECOMPOSE_H

#include <portolan/bake.h>

#include "../../runtime/internal.h"
#include "../shape/geom2.h"
#include "../shape/seggrid.h"

typedef struct ptl_dvert {
    ptl_v2 p;
    uint32_t next, prev;     /* neighbours along the boundary ring (free space on the left) */
    uint32_t out_seg;        /* the wall segment v -> next */
    uint32_t portals;        /* head of v's portal list (ptl_dref), sorted counter-clockwise */
    uint32_t portal_count;
    uint32_t twin;           /* next vertex at the same position (circular; itself when alone) */
    uint8_t notch;           /* reflex in the input shape */
    uint8_t real;            /* a notch the decomposition must resolve (after relaxation) */
    uint8_t closed;          /* no reflex gap left (set by reflex_gap; cleared when a portal goes) */
} ptl_dvert;

enum { PTL_DSEG_WALL = 0, PTL_DSEG_PORTAL = 1 }; /* ptl_dseg.kind */

typedef struct ptl_dseg {
    uint32_t a, b;  /* walls run a -> b with free space on the left; portals have no side */
    uint8_t kind;   /* 0 wall, 1 portal */
    uint8_t alive;  /* 0 once split (walls) or dropped (portals) */
    uint8_t pad[2]; /* pad[0]: 1 for a pocket's lid (decompose.c, add_lids): never dropped */
} ptl_dseg;

typedef struct ptl_dref {
    uint32_t seg;
    uint32_t next;
    double key; /* direction key at the vertex, counter-clockwise from its outgoing wall */
} ptl_dref;

typedef struct ptl_dc_pending ptl_dc_pending;

typedef struct ptl_dc {
    ptl_allocator alloc;
    PTL_ARRAY(ptl_dvert) v;
    PTL_ARRAY(ptl_dseg) s;
    PTL_ARRAY(ptl_dref) refs;
    PTL_ARRAY(ptl_v2) scratch_dirs;
    ptl_seggrid grid;
    uint32_t* stamp; /* per segment: id of the last query that looked at it */
    uint32_t stamp_cap, stamp_id;
    uint32_t notches, holes, outer_rings, split_points, dropped_portals;
    double extent;      /* [Units: wu] the largest |coordinate| of the shape */
    double tol;         /* [Units: wu] twice the input's precision (ptl_dc_precision): features this
                           close are one (a notch this near its neighbours' chord is straight) */
    double notch_slack; /* >= 1: how much longer a notch-to-notch portal may be than the closest one */
    bool lids;          /* pocket lids first (ptl_decompose_desc.lids) */
    const ptl_closest_backend* backend; /* NULL: the grid walk below (ptl_decompose_desc.backend) */
    uint32_t backend_fallbacks;         /* notches the backend's answer did not settle (walked) */
    struct ptl_dc_pending* pending;     /* the notch-by-notch pass's answers (closest_batch.c) */
    bool oom;           /* scratch memory failed where no status could be returned (sector_dirs) */
} ptl_dc;

/* A closest-element hit: segment, point, squared distance, which part of the segment. */
typedef struct ptl_dc_hit {
    uint32_t seg;
    ptl_v2 p;
    double d2;
    int end;     /* 0: interior, 1: at seg.a, 2: at seg.b */
    int snapped; /* a wall point within the input's tolerance of the end it was taken as */
} ptl_dc_hit;

/* Two notches one portal may join (pair_notches.c), or a candidate for one (closest_element). */
typedef struct ptl_dc_npair {
    uint32_t a, b; /* a < b */
    float d2;      /* 12 bytes a pair: Aurora extruded lists 70k of them */
} ptl_dc_npair;
typedef PTL_ARRAY(ptl_dc_npair) ptl_dc_npair_array;

static inline ptl_v2 ptl_dc_pos(const ptl_dc* d, uint32_t v) { return d->v.data[v].p; }
static inline uint32_t ptl_dc_other_end(const ptl_dc* d, uint32_t seg, uint32_t v) {
    const ptl_dseg* s = &d->s.data[seg];
    return s->a == v ? s->b : s->a;
}

/* Does segment seg end at q? (Inline: the batches' exact choice and partner lists call it per
   candidate, 340k times on a 256 x 256 random map.) */
static inline bool ptl_dc_touches(const ptl_dc* d, uint32_t seg, ptl_v2 q) {
    const ptl_dseg* s = &d->s.data[seg];
    return v2_eq(ptl_dc_pos(d, s->a), q) || v2_eq(ptl_dc_pos(d, s->b), q);
}

/* The faces (cells) of the graph of walls and live portals. */
typedef struct ptl_dc_faces {
    uint32_t nv, ns, nh, face_count;
    uint32_t* hstart;   /* nv + 1: half-edges leaving v are [hstart[v], hstart[v+1]), wall first */
    uint32_t* hto;      /* half-edge -> vertex it reaches */
    uint32_t* hseg;     /* half-edge -> segment */
    uint32_t* hface;    /* half-edge -> face on its left */
    uint32_t* hrev;     /* half-edge -> reverse (portals) or PTL_NONE (walls) */
    uint32_t* seg_half; /* 2 per segment: half-edge leaving a, half-edge leaving b (portals) */
    PTL_ARRAY(uint32_t) cverts; /* face vertex lists, counter-clockwise */
    PTL_ARRAY(uint32_t) cstart; /* face_count + 1 */
    PTL_ARRAY(uint32_t) chalf;  /* the half-edge leaving each listed vertex */
} ptl_dc_faces;

ptl_status ptl_dc_faces_build(ptl_dc* d, ptl_dc_faces* f, ptl_error* err);
void ptl_dc_faces_free(ptl_dc* d, ptl_dc_faces* f);

/* decompose.c, for pair_notches.c (see there). */
double ptl_dc_pair_reach(double d2, double slack, double bucket);
ptl_dc_hit ptl_dc_closest_element(ptl_dc* d, uint32_t n, ptl_v2 r1, ptl_v2 r2, double slack, ptl_dc_hit* mutual,
                                  ptl_dc_npair_array* cand);
bool ptl_dc_closest_in_cone(const ptl_dc* d, uint32_t seg, ptl_v2 n, ptl_v2 r1, ptl_v2 r2, ptl_dc_hit* out);
bool ptl_dc_better(const ptl_dc* d, const ptl_dc_hit* h, const ptl_dc_hit* best);
bool ptl_dc_reflex_gap(ptl_dc* d, uint32_t v, ptl_v2* u, ptl_v2* w, bool* oom);
bool ptl_dc_in_sector(const ptl_dc* d, uint32_t v, ptl_v2 dir);
bool ptl_dc_mutual_notch(ptl_dc* d, uint32_t v, ptl_v2 p);
bool ptl_dc_visible(ptl_dc* d, ptl_v2 p, ptl_v2 q);
bool ptl_dc_add_portal(ptl_dc* d, uint32_t n, uint32_t v);
/* pair_notches.c: the notches of ids < n that see each other paired first, shortest first. */
ptl_status ptl_dc_pair_notches(ptl_dc* d, uint32_t n, ptl_error* err);

ptl_status ptl_dc_run(ptl_dc* d, const ptl_shape* s, double relax, ptl_error* err);
ptl_status ptl_dc_extract(ptl_dc* d, ptl_decomposition* out, ptl_error* err);
void ptl_dc_free(ptl_dc* d);
/* The precision features are compared to (see decompose.c): min(ptl_shape.precision, the float
   resolution at `extent`, the shape's largest |coordinate|); 0 for an exact shape. */
double ptl_dc_precision(const ptl_shape* s, double extent);

#endif
