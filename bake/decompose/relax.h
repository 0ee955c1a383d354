/* Convexity relaxation of a decomposition (relax.c, ANavMG thesis §4.3): runs of notches
   simplified, dispensable portals dropped. Private to the bake. */
#ifndef PTL_RELAX_H
#define PTL_RELAX_H

#include "decompose.h"

ptl_status ptl_relax_notches(ptl_dc* d, const ptl_shape* s, double tolerance);
/* Drops dispensable portals; `faces` labels the cells before any is dropped, so that two cells
   are merged at most once (never into a cell that wraps around a hole). */
ptl_status ptl_relax_drop_dispensable(ptl_dc* d, const ptl_dc_faces* faces, double tolerance);
/* True when v has a reflex gap whose vertex lies deeper than `tolerance` below the chord joining
   the far ends of the gap's two sides (the cell there is not near-convex at v). */
bool ptl_relax_too_deep(const ptl_dc* d, uint32_t v, double tolerance);

#endif
