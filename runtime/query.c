/* Creating and destroying a query: every buffer a search, a point location or the funnel needs is
   allocated here, sized by the navmesh and ptl_query_desc.max_nodes, so that queries never allocate
   (STYLE: Detour's rule). Also derives the table the searches' inner loops read, slots[first + i]:
   edge i of a cell with its first vertex's coordinates, the neighbour across it, the index of the
   same edge in the neighbour (a search crossing a portal knows its entry edge in O(1)), whether the
   neighbour is a dead end, and whether the vertex is a corner. Shortest paths turn only where the
   walkable boundary is reflex (Polyanya, Cui et al. 2017, §3); straight boundary vertices count as
   corners too, because float coordinates make "straight" and "slightly reflex" indistinguishable
   and paths along collinear runs turn there by zero (Polyanya's collinear successors). */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "offmesh.h"
#include "query_internal.h"

typedef struct sizes {
    size_t nodes, heap, succ, side, vis_seen, wall, vcorner, root_g, root_stamp, turns, slots, sedges, goal, seen, dead, cc, cheap, portals, fpoints;
    size_t boxes, occ, disc_rec, vert_rho, vcone, seg_memo, cell_off, cell_cost;
    size_t vc_head, vc_reach, vc_vert; /* visibility lists per vertex (clearance.c) */
    size_t lm_goal, alt_h, alt_stamp; /* landmark bounds: 0 when the navmesh has none */
    size_t corners, profile;          /* 3D navmeshes only */
    size_t surf_cum, surf_wmax, surf_scratch; /* random points (random.c) */
    size_t hub_d, hub_u32, hub_pend, heap2, hub_chain; /* hub labels only */
    size_t hub_cd, hub_vrec, hub_rq;                   /* hub labels; roots with lids only */
} sizes;

static sizes compute_sizes(const ptl_navmesh* nm, uint32_t max_nodes, uint32_t mcv, bool hubs, bool disc) {
    const ptl_blob_header* h = nm->h;
    sizes s;
    s.nodes = (size_t)max_nodes * sizeof(ptl_snode);
    s.heap = (size_t)max_nodes * sizeof(ptl_heap_item);
    s.succ = (size_t)3 * mcv * sizeof(ptl_snode);
    s.side = (size_t)2 * mcv * sizeof(double);
    s.vis_seen = (size_t)mcv * sizeof(uint32_t);
    s.wall = (size_t)h->vert_count * 2 * sizeof(uint32_t);
    s.vcorner = (size_t)h->vert_count;
    s.root_g = (size_t)h->vert_count * sizeof(double);
    s.root_stamp = (size_t)h->vert_count * sizeof(uint32_t);
    s.turns = (size_t)h->cell_vert_total * sizeof(ptl_turn);
    s.slots = (size_t)h->cell_vert_total * sizeof(ptl_slot);
    s.sedges = (size_t)h->cell_vert_total * sizeof(ptl_slot_edge);
    s.goal = (size_t)h->cell_count * sizeof(uint32_t);
    s.seen = (size_t)h->cell_count * sizeof(uint32_t);
    s.dead = (size_t)h->cell_count;
    s.cc = (size_t)h->cell_count * sizeof(ptl_ccell);
    s.cheap = (size_t)h->cell_count * sizeof(uint32_t);
    s.boxes = (size_t)h->cell_count * (4 * sizeof(double) + 2 * sizeof(float)); /* cell_box, then cell_yr */
    s.occ = (size_t)ptl_query_occupancy_tiles(nm) * sizeof(uint32_t);
    s.disc_rec = (size_t)h->vert_count * 2 * sizeof(ptl_disc_rec);
    s.vert_rho = (size_t)h->vert_count * sizeof(float);
    s.vcone = (size_t)h->vert_count * 5 * sizeof(double);
    /* at most 2 entries per vertex (a power of two, 64 to 8192: 4 KB to 512 KB) */
    uint32_t memo = 64;
    while (memo < 8192 && 2 * (uint64_t)memo <= (uint64_t)h->vert_count * 2) memo *= 2;
    s.seg_memo = (size_t)memo * sizeof(ptl_seg_memo);
    s.vc_head = (size_t)h->vert_count * 6 * sizeof(uint32_t);
    s.vc_reach = (size_t)h->vert_count * sizeof(double);
    /* room for 48 corners seen per vertex and list on average, at most 4 MB (when it is full the lists
       are dropped and built again) */
    uint64_t vc = (uint64_t)h->vert_count * 48;
    vc = vc < 4096 ? 4096 : vc > (1u << 20) ? (1u << 20) : vc;
    s.vc_vert = (size_t)vc * sizeof(uint32_t);
    if (!disc) s.disc_rec = s.vert_rho = s.vcone = s.seg_memo = s.vc_head = s.vc_reach = s.vc_vert = 0;
    s.portals = (size_t)h->cell_count * sizeof(ptl_funnel_portal);
    s.cell_off = (size_t)h->cell_count;
    s.cell_cost = (size_t)h->cell_count * sizeof(float);
    s.fpoints = ((size_t)h->cell_count + 2) * sizeof(ptl_funnel_point);
    s.surf_cum = ((size_t)h->cell_count + 1) * sizeof(double);
    s.surf_wmax = ((size_t)h->cell_count + 1) * sizeof(float);
    s.surf_scratch = ptl_random_scratch_doubles(nm) * sizeof(double);
    bool lm = h->landmark_count > 0;
    s.lm_goal = lm ? (size_t)h->landmark_count * sizeof(double) : 0;
    s.alt_h = lm ? (size_t)h->vert_count * sizeof(double) : 0;
    s.alt_stamp = lm ? (size_t)h->vert_count * sizeof(uint32_t) : 0;
    bool heights = h->vox_cs > 0; /* a 3D bake: paths follow the cells' heights */
    s.corners = ((size_t)h->vert_count + 2) * 3 * sizeof(float); /* any navmesh: the path's cells are walked from them */
    s.profile = heights ? ptl_query_profile_size() : 0;
    const size_t nh = hubs ? h->hub_count : 0;
    s.hub_d = 2 * nh * sizeof(double);
    s.hub_u32 = nh * sizeof(uint32_t);
    s.hub_pend = (4 * nh + 1024) * sizeof(ptl_heap_item); /* found again shorter through roots: 4x */
    s.hub_cd = nh * sizeof(double);
    const bool roots = hubs && nm->vert_lid;
    s.hub_vrec = roots ? PTL_HUB_VRECS * sizeof(ptl_hub_vrec) : 0;
    s.hub_rq = roots ? PTL_HUB_VRECS * sizeof(ptl_heap_item) : 0;
    s.heap2 = hubs ? (size_t)max_nodes * sizeof(ptl_heap_item) : 0;
    s.hub_chain = hubs ? ((size_t)h->vert_count + 2) * sizeof(uint32_t) : 0;
    return s;
}

static uint32_t max_cell_verts(const ptl_navmesh* nm) {
    uint32_t m = 3;
    for (uint32_t c = 0; c < nm->h->cell_count; ++c)
        if (nm->cells[c].vert_count > m) m = nm->cells[c].vert_count;
    return m;
}

void ptl_query_destroy(ptl_query* q) {
    if (!q) return;
    ptl_allocator a = q->alloc;
    sizes s = compute_sizes(q->nm, q->max_nodes, q->max_cell_verts, q->use_hubs, q->use_disc);
    ptl_om_query_free(q);
    ptl_mem_free(&a, q->nodes, s.nodes);
    ptl_mem_free(&a, q->heap, s.heap);
    ptl_mem_free(&a, q->succ, s.succ);
    ptl_mem_free(&a, q->side, s.side);
    ptl_mem_free(&a, q->vis_seen, s.vis_seen);
    ptl_mem_free(&a, q->wall, s.wall);
    ptl_mem_free(&a, q->vcorner, s.vcorner);
    ptl_mem_free(&a, q->root_g, s.root_g);
    ptl_mem_free(&a, q->root_stamp, s.root_stamp);
    ptl_mem_free(&a, q->turns, s.turns);
    ptl_mem_free(&a, q->slots, s.slots);
    ptl_mem_free(&a, q->sedges, s.sedges);
    ptl_mem_free(&a, q->goal_stamp, s.goal);
    ptl_mem_free(&a, q->seen_stamp, s.seen);
    ptl_mem_free(&a, q->dead_end, s.dead);
    ptl_mem_free(&a, q->cc, s.cc);
    ptl_mem_free(&a, q->cheap, s.cheap);
    ptl_mem_free(&a, q->cell_box, s.boxes);
    ptl_mem_free(&a, q->occ, s.occ);
    ptl_mem_free(&a, q->disc_rec, s.disc_rec);
    ptl_mem_free(&a, q->vert_rho, s.vert_rho);
    ptl_mem_free(&a, q->vcone, s.vcone);
    ptl_mem_free(&a, q->seg_memo, s.seg_memo);
    ptl_mem_free(&a, q->vc_head, s.vc_head);
    ptl_mem_free(&a, q->vc_reach, s.vc_reach);
    ptl_mem_free(&a, q->vc_vert, s.vc_vert);
    ptl_mem_free(&a, q->cell_off, s.cell_off);
    ptl_mem_free(&a, q->cell_cost, s.cell_cost);
    ptl_mem_free(&a, q->portals, s.portals);
    ptl_mem_free(&a, q->fpoints, s.fpoints);
    ptl_mem_free(&a, q->lm_goal_lo, s.lm_goal);
    ptl_mem_free(&a, q->lm_goal_hi, s.lm_goal);
    ptl_mem_free(&a, q->alt_h, s.alt_h);
    ptl_mem_free(&a, q->alt_stamp, s.alt_stamp);
    ptl_mem_free(&a, q->corners, s.corners);
    ptl_mem_free(&a, q->profile, s.profile);
    ptl_mem_free(&a, q->surf_cum, s.surf_cum);
    ptl_mem_free(&a, q->surf_wmax, s.surf_wmax);
    ptl_mem_free(&a, q->surf_scratch, s.surf_scratch);
    for (int k = 0; k < 2; ++k) {
        if (k == 0) ptl_mem_free(&a, q->hub_d[0], s.hub_d);
        ptl_mem_free(&a, q->hub_taken[k], s.hub_u32);
        ptl_mem_free(&a, q->hub_seen[k], s.hub_u32);
        ptl_mem_free(&a, q->hub_pend[k], s.hub_pend);
        ptl_mem_free(&a, q->hub_cd[k], s.hub_cd);
        ptl_mem_free(&a, q->hub_cfrom[k], s.hub_u32);
        ptl_mem_free(&a, q->hub_vrec[k], s.hub_vrec);
        ptl_mem_free(&a, q->hub_rq[k], s.hub_rq);
    }
    ptl_mem_free(&a, q->heap2, s.heap2);
    ptl_mem_free(&a, q->hub_chain, s.hub_chain);
    ptl_mem_free(&a, q, sizeof *q);
}

/* Is v a corner: do the walls arriving at v and leaving it (free space on their left) turn right or
   go straight (within 1e-6 of the angle's sine)? A vertex without exactly that pair of walls is one,
   conservatively. wall[2v] is the vertex before v along the walls, wall[2v + 1] the one after. */
static bool is_corner(const ptl_navmesh* nm, const uint32_t* wall, uint32_t v) {
    uint32_t prev = wall[2 * v], next = wall[2 * v + 1];
    if (prev == PTL_NONE || next == PTL_NONE || next == v || prev == v) return true;
    double ax = ptl_nm_vx(nm, v) - ptl_nm_vx(nm, prev), az = ptl_nm_vz(nm, v) - ptl_nm_vz(nm, prev);
    double bx = ptl_nm_vx(nm, next) - ptl_nm_vx(nm, v), bz = ptl_nm_vz(nm, next) - ptl_nm_vz(nm, v);
    double cross = ax * bz - az * bx; /* > 0: the boundary turns left, a convex corner of free space */
    return !(cross > 1e-6 * sqrt((ax * ax + az * az) * (bx * bx + bz * bz)));
}

bool ptl_query_is_corner(const ptl_query* q, uint32_t v) { return q->vcorner[v] != 0; }

/* The neighbour across edge i of cell c as the query's filter sees it: none where either cell is
   excluded (filter.c), so that every search, sweep and walk treats the border as a wall. */
static inline uint32_t filtered_nbr(const ptl_query* q, uint32_t c, uint32_t nb) {
    return nb != PTL_NONE && q->any_off && (q->cell_off[c] || q->cell_off[nb]) ? PTL_NONE : nb;
}

bool ptl_query_build_slots(ptl_query* q) {
    const ptl_navmesh* nm = q->nm;
    const ptl_blob_header* h = nm->h;
    uint32_t* wall = q->wall;
    memset(wall, 0xff, (size_t)h->vert_count * 2 * sizeof(uint32_t));
    /* the sight lists and the corners' wall distances follow the walls (a filter's excluded cells
       turn portals into walls) */
    if (q->vc_head) memset(q->vc_head, 0xff, (size_t)h->vert_count * 6 * sizeof(uint32_t));
    q->vc_used = 0;
    for (uint32_t v = 0; q->vert_rho && v < h->vert_count; ++v) q->vert_rho[v] = -1;
    if (++q->seg_memo_gen == 0) { /* (after 2^32 filters: no entry may look valid) */
        if (q->seg_memo) memset(q->seg_memo, 0, (size_t)q->seg_memo_cap * sizeof(ptl_seg_memo));
        q->seg_memo_gen = 1;
    }
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        uint32_t n = 0;
        if (q->any_off && q->cell_off[c]) { /* not walkable: no walls of its own, never entered */
            q->dead_end[c] = 1;
            continue;
        }
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            if (filtered_nbr(q, c, nm->cell_nbrs[cell->first + i]) != PTL_NONE) {
                ++n;
                continue;
            }
            uint32_t v = nm->cell_verts[cell->first + i];
            uint32_t w = nm->cell_verts[cell->first + (i + 1 == cell->vert_count ? 0 : i + 1)];
            /* A second wall at the same vertex (not expected) marks it unknown: v itself. */
            wall[2 * v + 1] = wall[2 * v + 1] == PTL_NONE ? w : v;
            wall[2 * w] = wall[2 * w] == PTL_NONE ? v : w;
        }
        q->dead_end[c] = n <= 1;
    }
    for (uint32_t v = 0; v < h->vert_count; ++v) q->vcorner[v] = is_corner(nm, wall, v);
    /* the normal cones of the disc searches (disc_path.c, ptl_disc_cone_miss): the left normals of
       the walls arriving at v and leaving it, unnormalised, and the cone's angle (the walls' right
       turn; -1 for a left turn), 0, 0, 0, 0, -1 where v has no single pair of walls */
    for (uint32_t v = 0; q->vcone && v < h->vert_count; ++v) {
        const uint32_t prev = wall[2 * v], next = wall[2 * v + 1];
        double* n = q->vcone + 5 * (size_t)v;
        n[0] = n[1] = n[2] = n[3] = 0, n[4] = -1;
        if (prev == PTL_NONE || next == PTL_NONE || prev == v || next == v) continue;
        const double vx = ptl_nm_vx(nm, v), vz = ptl_nm_vz(nm, v);
        const double ix = vx - ptl_nm_vx(nm, prev), iz = vz - ptl_nm_vz(nm, prev);
        const double ox = ptl_nm_vx(nm, next) - vx, oz = ptl_nm_vz(nm, next) - vz;
        n[0] = -iz, n[1] = ix, n[2] = -oz, n[3] = ox;
        const double w = atan2(ix * oz - iz * ox, ix * ox + iz * oz); /* counter-clockwise turn of the walls */
        n[4] = w <= 0 ? -w : -1;
    }
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            ptl_slot* s = &q->slots[cell->first + i];
            uint32_t v = nm->cell_verts[cell->first + i], nb = filtered_nbr(q, c, nm->cell_nbrs[cell->first + i]);
            s->x = nm->verts[3 * v], s->z = nm->verts[3 * v + 2];
            s->nbr = nb;
            s->twin = 0xffff;
            s->corner = q->vcorner[v];
            s->open = nb != PTL_NONE && !q->dead_end[nb];
            const uint32_t w = nm->cell_verts[cell->first + (i + 1 == cell->vert_count ? 0 : i + 1)];
            ptl_slot_edge* e = &q->sedges[cell->first + i];
            e->ex = (double)nm->verts[3 * w] - nm->verts[3 * v], e->ez = (double)nm->verts[3 * w + 2] - nm->verts[3 * v + 2];
            e->len = sqrt(e->ex * e->ex + e->ez * e->ez); /* ptl_len2 (clearance.h) */
        }
    }
    for (uint32_t p = 0; p < h->portal_count; ++p) {
        const ptl_blob_portal* pt = &nm->portals[p];
        q->slots[nm->cells[pt->cell[0]].first + pt->edge[0]].twin = pt->edge[1];
        q->slots[nm->cells[pt->cell[1]].first + pt->edge[1]].twin = pt->edge[0];
    }
    return true;
}

ptl_query_desc ptl_query_desc_defaults(void) {
    return (ptl_query_desc){.max_nodes = 0, .alloc = NULL};
}

/* The pool a navmesh gets by default (ptl_query_desc.max_nodes 0). */
static uint32_t default_nodes(const ptl_navmesh* nm) {
    uint64_t n = (uint64_t)nm->h->vert_count * PTL_QUERY_NODES_PER_VERT;
    return n < PTL_QUERY_DEFAULT_MIN_NODES ? PTL_QUERY_DEFAULT_MIN_NODES
                                           : n > PTL_QUERY_DEFAULT_MAX_NODES ? PTL_QUERY_DEFAULT_MAX_NODES : (uint32_t)n;
}

/* Every cell's box and height range unbounded (ptl_query_switches.no_cell_boxes): no cell is skipped. */
static void cell_boxes_unbounded(ptl_query* q) {
    const uint32_t nc = q->nm->h->cell_count;
    q->cell_yr = (float*)(void*)(q->cell_box + 4 * (size_t)nc);
    q->vert_mag = INFINITY;
    for (uint32_t c = 0; c < nc; ++c) {
        double* b = q->cell_box + 4 * (size_t)c;
        b[0] = b[2] = -INFINITY, b[1] = b[3] = INFINITY;
        q->cell_yr[2 * c] = -INFINITY, q->cell_yr[2 * c + 1] = INFINITY;
    }
}

ptl_status ptl_query_create(const ptl_navmesh* nm, const ptl_query_desc* desc, ptl_query** out) {
    return ptl_query_create_with_switches(nm, desc, NULL, out);
}

ptl_status ptl_query_create_with_switches(const ptl_navmesh* nm, const ptl_query_desc* desc,
                                          const ptl_query_switches* sw, ptl_query** out) {
    if (!out) return PTL_ERR_INVALID_ARG;
    *out = NULL;
    if (!nm) return PTL_ERR_INVALID_ARG;
    uint32_t max_nodes = desc && desc->max_nodes ? desc->max_nodes : default_nodes(nm);
    if (max_nodes < PTL_QUERY_MIN_MAX_NODES) return PTL_ERR_INVALID_ARG;
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    ptl_query* q = ptl_mem_calloc(&a, 1, sizeof *q);
    if (!q) return PTL_ERR_NO_MEMORY;
    q->nm = nm;
    q->alloc = a;
    q->max_nodes = max_nodes;
    q->max_cell_verts = max_cell_verts(nm);
    q->use_hubs = nm->h->hub_count > 0 && !(sw && sw->ignore_hubs);
    q->hub_vrec_cap = PTL_HUB_VRECS;
    q->use_pockets = (nm->pocket || nm->cell_lid) && !(sw && sw->ignore_pockets);
    q->use_disc = !(sw && sw->no_disc);
    q->hub_pend_cap = 4 * nm->h->hub_count + 1024;
    sizes s = compute_sizes(nm, max_nodes, q->max_cell_verts, q->use_hubs, q->use_disc);
    q->nodes = ptl_mem_alloc(&a, s.nodes);
    q->heap = ptl_mem_alloc(&a, s.heap);
    q->succ = ptl_mem_alloc(&a, s.succ);
    q->side = ptl_mem_alloc(&a, s.side);
    q->vis_seen = ptl_mem_alloc(&a, s.vis_seen);
    q->wall = ptl_mem_alloc(&a, s.wall);
    q->vcorner = ptl_mem_alloc(&a, s.vcorner);
    q->root_g = ptl_mem_alloc(&a, s.root_g);
    q->root_stamp = ptl_mem_calloc(&a, 1, s.root_stamp);
    q->turns = ptl_mem_calloc(&a, 1, s.turns);
    q->slots = ptl_mem_alloc(&a, s.slots);
    q->sedges = ptl_mem_alloc(&a, s.sedges);
    q->goal_stamp = ptl_mem_calloc(&a, 1, s.goal);
    q->seen_stamp = ptl_mem_calloc(&a, 1, s.seen);
    q->dead_end = ptl_mem_alloc(&a, s.dead);
    q->cc = ptl_mem_calloc(&a, 1, s.cc);
    q->cheap = ptl_mem_alloc(&a, s.cheap);
    q->cell_box = ptl_mem_alloc(&a, s.boxes);
    q->occ = ptl_mem_alloc(&a, s.occ);
    if (q->use_disc) { /* (without: all NULL, which the clearing below and clearance.c check) */
        q->disc_rec = ptl_mem_calloc(&a, 1, s.disc_rec);
        q->vert_rho = ptl_mem_alloc(&a, s.vert_rho);
        q->vcone = ptl_mem_alloc(&a, s.vcone);
        q->seg_memo = ptl_mem_calloc(&a, 1, s.seg_memo); /* gen 0: never valid */
        q->vc_head = ptl_mem_alloc(&a, s.vc_head);
        q->vc_reach = ptl_mem_alloc(&a, s.vc_reach);
        q->vc_vert = ptl_mem_alloc(&a, s.vc_vert);
    }
    q->seg_memo_cap = (uint32_t)(s.seg_memo / sizeof(ptl_seg_memo));
    for (uint32_t v = 0; q->vert_rho && v < nm->h->vert_count; ++v) q->vert_rho[v] = -1;
    q->vc_cap = (uint32_t)(s.vc_vert / sizeof(uint32_t));
    q->cell_off = ptl_mem_calloc(&a, 1, s.cell_off);
    q->cell_cost = ptl_mem_alloc(&a, s.cell_cost);
    q->filter = ptl_query_filter_defaults();
    q->h_scale = 1;
    q->portals = ptl_mem_alloc(&a, s.portals);
    q->fpoints = ptl_mem_alloc(&a, s.fpoints);
    q->lm_count = nm->h->landmark_count;
    if (q->lm_count) {
        q->lm_goal_lo = ptl_mem_alloc(&a, s.lm_goal);
        q->lm_goal_hi = ptl_mem_alloc(&a, s.lm_goal);
        q->alt_h = ptl_mem_alloc(&a, s.alt_h);
        q->alt_stamp = ptl_mem_calloc(&a, 1, s.alt_stamp);
    }
    bool lm_ok = !q->lm_count || (q->lm_goal_lo && q->lm_goal_hi && q->alt_h && q->alt_stamp);
    q->corners = ptl_mem_alloc(&a, s.corners);
    lm_ok = lm_ok && q->corners;
    if (s.profile) {
        q->profile = ptl_mem_alloc(&a, s.profile);
        lm_ok = lm_ok && q->profile;
    }
    q->surf_cum = ptl_mem_alloc(&a, s.surf_cum);
    q->surf_wmax = ptl_mem_alloc(&a, s.surf_wmax);
    q->surf_scratch = ptl_mem_alloc(&a, s.surf_scratch);
    lm_ok = lm_ok && q->surf_cum && q->surf_wmax && q->surf_scratch;
    if (q->use_hubs) {
        for (int k = 0; k < 2; ++k) {
            if (k == 0) q->hub_d[0] = ptl_mem_alloc(&a, s.hub_d);
            q->hub_d[k] = q->hub_d[0] ? q->hub_d[0] + k : NULL;
            q->hub_taken[k] = ptl_mem_alloc(&a, s.hub_u32);
            q->hub_seen[k] = ptl_mem_calloc(&a, 1, s.hub_u32);
            q->hub_pend[k] = ptl_mem_alloc(&a, s.hub_pend);
            q->hub_cd[k] = ptl_mem_alloc(&a, s.hub_cd);
            q->hub_cfrom[k] = ptl_mem_alloc(&a, s.hub_u32);
            lm_ok = lm_ok && q->hub_cd[k] && q->hub_cfrom[k];
            if (s.hub_vrec) {
                q->hub_vrec[k] = ptl_mem_calloc(&a, 1, s.hub_vrec);
                q->hub_rq[k] = ptl_mem_alloc(&a, s.hub_rq);
                lm_ok = lm_ok && q->hub_vrec[k] && q->hub_rq[k];
            }
            lm_ok = lm_ok && q->hub_d[k] && q->hub_taken[k] && q->hub_seen[k] && q->hub_pend[k];
            for (uint32_t i = 0; q->hub_d[k] && i < nm->h->hub_count; ++i) q->hub_d[k][2 * i] = INFINITY;
        }
        q->heap2 = ptl_mem_alloc(&a, s.heap2);
        q->hub_chain = ptl_mem_alloc(&a, s.hub_chain);
        lm_ok = lm_ok && q->heap2 && q->hub_chain;
    }
    if (!lm_ok || !q->nodes || !q->heap || !q->succ || !q->side || !q->vis_seen || !q->wall || !q->vcorner || !q->root_g || !q->root_stamp || !q->turns || !q->slots || !q->sedges ||
        !q->goal_stamp || !q->seen_stamp || !q->dead_end || !q->cc || !q->cheap || !q->cell_box || !q->occ ||
        ((!q->disc_rec || !q->vert_rho || !q->vcone || !q->seg_memo || !q->vc_head || !q->vc_reach || !q->vc_vert) && s.disc_rec) || !q->portals || !q->fpoints ||
        !q->cell_off || !q->cell_cost || !ptl_query_build_slots(q)) {
        ptl_query_destroy(q);
        return PTL_ERR_NO_MEMORY;
    }
    const double scale = ptl_nm_plan_scale(nm);
    q->eps = 1e-9 * scale;
    q->loc_eps = PTL_NM_LOC_REL * scale;
    q->wall_tol = ptl_nm_tolerance(nm) + (nm->h->relax > 0 ? nm->h->relax : 0);
    q->inv_vox_cs = nm->h->vox_cs > 0 ? 1.0 / nm->h->vox_cs : 0;
    if (sw && sw->no_cell_boxes) cell_boxes_unbounded(q);
    else ptl_query_cell_boxes(q), ptl_query_occupancy_build(q);
    q->stamp = 0;
    *out = q;
    return PTL_OK;
}

uint32_t ptl_query_next_stamp(ptl_query* q) {
    if (q->stamp == UINT32_MAX) {
        const ptl_blob_header* h = q->nm->h;
        memset(q->root_stamp, 0, (size_t)h->vert_count * sizeof(uint32_t));
        for (uint32_t i = 0; i < q->om_arc_cap; ++i) q->om_stamp[i] = q->om_done[i] = 0;
        if (q->alt_stamp) memset(q->alt_stamp, 0, (size_t)h->vert_count * sizeof(uint32_t));
        for (uint32_t i = 0; i < h->cell_vert_total; ++i) q->turns[i].stamp = 0;
        memset(q->goal_stamp, 0, (size_t)h->cell_count * sizeof(uint32_t));
        memset(q->seen_stamp, 0, (size_t)h->cell_count * sizeof(uint32_t));
        for (uint32_t c = 0; c < h->cell_count; ++c) q->cc[c].stamp = 0;
        if (q->disc_rec) memset(q->disc_rec, 0, (size_t)h->vert_count * 2 * sizeof(ptl_disc_rec));
        for (int k = 0; q->use_hubs && k < 2; ++k) {
            memset(q->hub_seen[k], 0, (size_t)h->hub_count * sizeof(uint32_t));
            if (q->hub_vrec[k]) memset(q->hub_vrec[k], 0, PTL_HUB_VRECS * sizeof(ptl_hub_vrec));
        }
        q->stamp = 0;
    }
    return ++q->stamp;
}
