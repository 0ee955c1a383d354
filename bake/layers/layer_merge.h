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

/* `map` holds the layers' columns (freed here once read, before the blob is built, whatever the
   outcome after that point); `dc[l]` decomposes `lc[l].shape` (local lattice coordinates of layer l). Writes the blob, which
   records the tiling (NULL: one tile). */
ptl_status ptl_merge_layers(ptl_layer_map* map, const ptl_layer_contour* lc, const ptl_decomposition* dc,
                            uint32_t layers, double relax, const ptl_vx_tiling* tiling, const ptl_allocator* alloc,
                            void** blob, size_t* size, ptl_merge_stats* stats, ptl_error* err);

#endif
