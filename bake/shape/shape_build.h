/* Building a ptl_shape from directed boundary segments, for the .poly and .mesh readers (the grid
   reader traces its rings directly, see shape_grid.c). Private.

   Input: segments a -> b with free space on their LEFT, in any order, whose endpoints meet exactly
   (same doubles) wherever the boundary continues. Output: rings with free space on the left (outer
   boundaries counter-clockwise, holes clockwise), collinear runs merged (also runs that turn by
   less than about 1e-12 radians, where no other part of the boundary touches: see straight() in
   shape_build.c), zero-length edges dropped, and pinch points (free space touching itself at one
   point) kept apart by giving each visit of the point its own vertex (Saupin et al. 2014, §4.1.2).

   Chaining rule at a vertex V reached by segment P -> V: free space is on the left of P -> V, so
   seen from V it lies clockwise from the ray V->P. The ring continues along the outgoing segment
   met FIRST when turning clockwise from the ray V->P: the tightest left turn. Any other choice
   walks across a blocked sector into another region. Checked on the grid pinch: blocked cells SW
   and NE of V, free NW and SE. The incoming segments arrive from the west (heading east, NW free
   on their left) and from the east (heading west); the outgoing ones leave north (NW free on the
   left) and south. From the west, clockwise from the ray to the west the first outgoing ray is
   north: NW's ring turns left, north, and stays around NW; from the east the first is south and
   SE's ring stays around SE. Going straight or right would join NW and SE across the blocked
   diagonal. Rotated by 90 degrees this is the same configuration, so both pinch orientations
   (slash and antislash) are covered. Where several rings meet at a vertex, incoming and outgoing
   rays alternate around it and the rule pairs them one to one; when they do not alternate (bad
   input), a circular bracket matching still pairs every incoming segment with a distinct outgoing
   one, and the shape validator reports the result.

   Where no other part of the boundary touches it, a vertex within `tol` of the chord between its
   neighbours is merged too (pass the input's precision, ptl_shape_snap; 0: exactly collinear only,
   and the 1e-12 radian turns). */
#ifndef PTL_SHAPE_BUILD_H
#define PTL_SHAPE_BUILD_H

#include <portolan/bake.h>

#include "shape_seg_index.h"

/* Allocates exact-size xy (2 * verts doubles) and ring_start (rings + 1) arrays with s->alloc,
   which must already be set (resolved). Other fields are left alone. False when out of memory. */
bool ptl_shape_alloc(ptl_shape* s, uint32_t verts, uint32_t rings);

/* The precision of the 2D readers (.poly, .mesh): every input coordinate is rounded to the nearest
   float (what the navmesh stores, so that the decomposition works on the very vertices the blob
   will hold) and to a multiple of PTL_SHAPE_MIN_PRECISION (2^-24 wu; only coordinates below 0.5
   change). Returns q = 2^(e - 24), where 2^e is the smallest power of two above the largest
   |coordinate|, at least PTL_SHAPE_MIN_PRECISION: the float resolution at the input's largest
   coordinate, the scale of the readers' tolerances (collinear runs, touching features). */
#define PTL_SHAPE_MIN_PRECISION 0x1p-24
double ptl_shape_snap(double* xy, uint32_t points);
/* q for a largest |coordinate| of max_abs, as ptl_shape_snap computes it. */
double ptl_shape_precision_of(double max_abs);
/* One coordinate rounded as ptl_shape_snap does. */
double ptl_shape_round(double x);
/* The largest change of the input polygons' total area that the rounding may make (a fraction):
   more means features too small for the float coordinates at their distance from the origin. */
#define PTL_SHAPE_AREA_TOLERANCE 1e-3

/* ptl_shape_validate, telling apart (in *too_near, may be NULL) the one failure a rounded shape
   (precision > 0) adds: a vertex within 4 times the precision of an edge it neither ends nor
   touches exactly. */
ptl_status ptl_shape_check(const ptl_shape* s, ptl_error* err, bool* too_near);

/* Chains `segs` into rings as described above and fills `out` (whose `alloc` must be set; the
   other fields are overwritten). Segments of zero length are ignored; a segment and its exact
   reverse cancel (free space on both sides is no boundary). `name` names the input in messages.
   PTL_ERR_BAD_INPUT when the boundary is open (a vertex with more segments in than out), when a
   segment is repeated in the same direction (overlapping free space), or when nothing is left. */
ptl_status ptl_shape_build(const ptl_bseg* segs, uint32_t count, double tol, const char* name, ptl_shape* out,
                           ptl_error* err);

#endif
