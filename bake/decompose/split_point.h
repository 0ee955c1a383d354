/* The point a notch's portal splits a wall at, on a rounded input. */
#ifndef PTL_SPLIT_POINT_H
#define PTL_SPLIT_POINT_H

#include "decompose.h"

/* For a rounded input: the float point nearest q on the wall's line or on its solid side (the
   right of a -> b; free space is on the left of every wall), other than the wall's ends. The blob
   stores floats, and a split point made in doubles and rounded later may cross the line of a
   feature a few q away (two polygons a slit apart), folding the two cells at it over each other;
   a point decomposed where it will be stored cannot. Towards the solid side, the kink it makes in
   the wall is convex on the free side (no new notch); it moves by at most a float step per
   coordinate (q or less: the readers round to q), less than the 4 q the readers keep between a
   vertex and an edge it does not end, and never across another wall at the wall's ends.
   Where the solid side is a wedge thinner than a float step (two walls meeting at a spike), the
   nearest float point on the free side that crosses no wall: a kink within the rounding, on the
   side of the notch that made the point. Returns false when no float point qualifies (the solid
   wedge at an end is thinner than a float step that close to it: every candidate crosses the
   wedge's other wall), *out untouched: the caller ends the portal elsewhere. */
bool ptl_split_point_on_floats(const ptl_dc* d, uint32_t a, uint32_t b, ptl_v2 q, ptl_v2* out);

#endif
