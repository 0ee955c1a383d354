/* Off-mesh links: the navmesh's table (offmesh.c) and what the exact search reads of it
   (offmesh_search.c, search.c). Private to the runtime. */
#ifndef PTL_OFFMESH_H
#define PTL_OFFMESH_H

#include "interval.h"

/* The query point of a located end (its cells: the pair or the cells around its vertex). */
void ptl_om_end_point(const ptl_navmesh* nm, const ptl_om_end* e, ptl_qpoint* out);
/* Arc `arc` (2 link + direction): its link, and the end it leaves from and the one it arrives at. */
const ptl_om_link* ptl_om_arc(const ptl_navmesh* nm, uint32_t arc, const ptl_om_end** from, const ptl_om_end** to);
/* Adds a link, locating its ends with q (a query on nm). */
ptl_status ptl_om_add(ptl_navmesh* nm, ptl_query* q, const ptl_offmesh_desc* desc, ptl_offmesh_id* id, ptl_error* err);
/* Reads the blob's off-mesh section into the table (navmesh create; offmesh_blob.c):
   PTL_ERR_BAD_BLOB naming the first bad link, PTL_ERR_NO_MEMORY. */
ptl_status ptl_om_load(ptl_navmesh* nm, ptl_error* err);
/* The bake's last pass (offmesh_blob.c): `blob` with the off-mesh section of `links` appended, each
   located on it (an end off the mesh: the error names the link), into *out (from `alloc`). */
ptl_status ptl_om_blob_append(const void* blob, size_t size, const ptl_offmesh_desc* links, uint32_t count,
                              const ptl_allocator* alloc, void** out, size_t* out_size, ptl_error* err);
/* Frees the table (navmesh destroy). */
void ptl_om_free(ptl_navmesh* nm);

/* The arcs that start in cell c: om_cell_arcs[om_cell_start[c] .. om_cell_start[c + 1]). */
static inline bool ptl_om_cell_has_arcs(const ptl_navmesh* nm, uint32_t c) {
    return nm->om_cell_start && nm->om_cell_start[c] != nm->om_cell_start[c + 1];
}

/* Prepares the exact search toward goal t on q's navmesh: q->om_on when the navmesh has live links
   (then the query's per-arc state matches the table, and its slots enter dead-end cells that hold
   a link's start), and the lower bounds k of the arcs (below). PTL_ERR_NO_MEMORY when the query
   could not grow its per-arc state. */
ptl_status ptl_om_begin(ptl_query* q, const ptl_qpoint* t);
/* ptl_om_h out of line (the searches' key function stays small enough to inline). */
double ptl_om_h_min(const ptl_query* q, const ptl_snode* n, double h_goal);
/* Does the query's filter exclude the link of arc `arc`: its area, or a cell an end lies in
   (filter.c)? Such a link is not taken. (Area costs do not weigh a link: its own cost stands.) */
bool ptl_om_link_filtered(const ptl_query* q, uint32_t arc);
/* Can an arc (of q->om_useful, after ptl_om_begin) make the way from s to t, in one cell, shorter
   than the straight line? */
bool ptl_om_may_beat(const ptl_query* q, const ptl_qpoint* s, const ptl_qpoint* t);
/* Points a path with links may have, over a table of `arcs` arcs: each leg between links at most
   one corner per vertex or per cell it crosses, and its two ends. */
uint32_t ptl_om_corner_cap(const ptl_navmesh* nm, uint32_t arcs);
/* A path with links written to `corners` and `flags` (n points), into res: the points where the
   surface bends added (follow_surface) and the cells crossed (res->cell_capacity), leg by leg from
   the start sp and each link's end (offmesh_path.c). `length` is the path's as the search found it
   (used without follow_surface). PTL_OK, PTL_TRUNCATED, PTL_ERR_INTERNAL (a cell walk met a wall). */
ptl_status ptl_om_path_legs(ptl_query* q, const ptl_qpoint* sp, const float* corners, const uint8_t* flags, uint32_t n,
                            double length, bool surface, ptl_path_result* res);
/* Frees the query's per-arc state (query destroy). */
void ptl_om_query_free(ptl_query* q);

/* The search's heuristic with links: the smaller of h_goal (Polyanya's bound through the node's
   interval to the goal) and, over the arcs that could beat the straight line (q->om_useful), the
   bound through the interval to the arc's start plus its k. */
static inline double ptl_om_h(const ptl_query* q, const ptl_snode* n, double h_goal) {
    const double* u = q->om_useful;
    for (uint32_t i = 0; i < q->om_useful_count; ++i, u += 3) {
        if (u[2] >= h_goal) continue; /* cannot beat the bound already taken */
        double h = u[2] + ptl_iv_h(n->ox, n->oz, u[0], u[1], n->lx, n->lz, n->rx, n->rz);
        if (h < h_goal) h_goal = h;
    }
    return h_goal;
}

#endif
