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

/* What a merge keeps of the one before, per layer index (the tile cache's rebakes): the layer's
   floor key (its frame and ptl_lmap_layer_floor_key), its decomposition's vertices with the heights
   they took, and its cells' final vertices with the grids and heights written for them. A layer
   whose floor key and decomposition's vertices are the kept ones takes the kept heights; one whose
   cells' final vertices are too takes the kept grids and heights: each a pure function of what is
   compared, so the same bytes. Zeroed: empty; owned by the caller (ptl_merge_memo_free). */
typedef struct ptl_merge_memo_layer ptl_merge_memo_layer;
typedef struct ptl_merge_memo {
    uint32_t count;
    ptl_merge_memo_layer* layer;
    uint32_t heights_kept, grids_kept; /* layers of the last merge that took them from the memo */
} ptl_merge_memo;
void ptl_merge_memo_free(ptl_merge_memo* mm, const ptl_allocator* a);
uint64_t ptl_merge_memo_bytes(const ptl_merge_memo* mm); /* [Units: bytes] held, approximately */

/* Reads `map` (the layers' columns), `lc` and `dc` (`dc[l]` decomposes `lc[l].shape`, local
   lattice coordinates of layer l); they stay the caller's. `*out` is the caller's to free with
   ptl_layer_merge_free; the tiling (NULL: one tile), recorded in the blob, must outlive it. `memo`
   (NULL: none) gives the merge before's layers and gets this one's (emptied on failure).
   PTL_ERR_NO_MEMORY (`*out` NULL). */
ptl_status ptl_merge_layers(const ptl_layer_map* map, const ptl_layer_contour* lc, const ptl_decomposition* dc,
                            uint32_t layers, double relax, const ptl_vx_tiling* tiling, const ptl_allocator* alloc,
                            ptl_merge_memo* memo, ptl_layer_merge** out, ptl_merge_stats* stats, ptl_error* err);
/* Writes the blob (ptl_cpg_build); `m` stays as it was. */
ptl_status ptl_layer_merge_write(const ptl_layer_merge* m, void** blob, size_t* size, ptl_error* err);
void ptl_layer_merge_free(ptl_layer_merge* m);

#endif
