/* Stitching the layers' decompositions into one blob (layer_merge.c). Private to the bake. */
#ifndef PTL_LAYER_MERGE_H
#define PTL_LAYER_MERGE_H

#include "../contours/contours.h"

typedef struct ptl_merge_stats {
    uint32_t cells, vertices, portals;
    uint32_t junction_edges;   /* cell edges found on junctions between layers */
    uint32_t junction_portals; /* pieces of them paired into portals */
    uint32_t links;            /* gap links, each a cell of its own (filter.c rule 7) */
} ptl_merge_stats;

/* The layers' cells merged into one cell-and-portal graph, ready to be written as a blob. It holds
   no pointer into the map, so the caller may free the map (the largest structure of the bake)
   before ptl_layer_merge_write, which is the bake's high point on large worlds. */
typedef struct ptl_layer_merge ptl_layer_merge;

/* Reads `map` (the layers' columns), `lc` and `dc` (`dc[l]` decomposes `lc[l].shape`, local
   lattice coordinates of layer l); they stay the caller's. `*out` is the caller's to free with
   ptl_layer_merge_free; the tiling (NULL: one tile), recorded in the blob, must outlive it.
   PTL_ERR_NO_MEMORY (`*out` NULL). */
ptl_status ptl_merge_layers(const ptl_layer_map* map, const ptl_layer_contour* lc, const ptl_decomposition* dc,
                            uint32_t layers, double relax, const ptl_vx_tiling* tiling, const ptl_allocator* alloc,
                            ptl_layer_merge** out, ptl_merge_stats* stats, ptl_error* err);
/* Writes the blob (ptl_cpg_build); `m` stays as it was. */
ptl_status ptl_layer_merge_write(const ptl_layer_merge* m, void** blob, size_t* size, ptl_error* err);
void ptl_layer_merge_free(ptl_layer_merge* m);

#endif
