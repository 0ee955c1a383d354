/* Off-mesh links on a loaded navmesh (runtime.h, "Off-mesh links"): the table, ids with a salt, the
   index of the arcs that start in each cell, and the pieces of walkable space links join.

   Each link is one slot of a table that grows by doubling; a removed link's slot goes back to use
   with its salt raised, so an id (slot, salt) names one link for ever (Detour's salted polygon
   references). The salt is odd while the slot holds a live link. A link gives one arc (start ->
   end) or two (and end -> start); the exact search (search.c, offmesh_search.c) reads the arcs that
   start in a cell from a CSR index rebuilt by every change (O(cells + links)), so a search pays one
   array read per cell it enters. Pieces (navmesh.c, build_pieces) joined by any live link share a
   group (a union-find over pieces), so "start and goal in different groups" still proves that no
   path exists. Nothing here may run while a query on the navmesh runs. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "offmesh.h"

#define OM_SLOT_BITS 32

static ptl_offmesh_id make_id(uint32_t slot, uint32_t salt) { return ((uint64_t)salt << OM_SLOT_BITS) | slot; }

static bool live(const ptl_om_link* l) { return (l->salt & 1u) != 0; }

void ptl_om_end_point(const ptl_navmesh* nm, const ptl_om_end* e, ptl_qpoint* out) {
    memset(out, 0, sizeof *out);
    out->x = e->x, out->z = e->z, out->y = e->y;
    out->kind = (ptl_qpoint_kind)e->kind;
    out->cell = e->cell, out->vert = e->vert;
    out->pair[0] = e->pair[0], out->pair[1] = e->pair[1];
    out->cell_count = e->cell_count;
    out->cells = e->kind == PTL_QPOINT_VERTEX ? nm->vcell + nm->vcell_start[e->vert] : out->pair;
}

const ptl_om_link* ptl_om_arc(const ptl_navmesh* nm, uint32_t arc, const ptl_om_end** from, const ptl_om_end** to) {
    const ptl_om_link* l = &nm->om[arc >> 1];
    *from = &l->end[arc & 1];
    *to = &l->end[1 - (arc & 1)];
    return l;
}

/* Union-find over pieces, path halving. */
static uint32_t find(uint32_t* g, uint32_t p) {
    while (g[p] != p) p = g[p] = g[g[p]];
    return p;
}

/* Rebuilds the per-cell arc index and the piece groups from the live links. */
static ptl_status rebuild(ptl_navmesh* nm) {
    const uint32_t cells = nm->h->cell_count;
    ptl_allocator* a = &nm->alloc;
    ptl_mem_free(a, nm->om_cell_start, nm->om_cell_start ? ((size_t)cells + 1) * sizeof(uint32_t) : 0);
    ptl_mem_free(a, nm->piece_group, nm->piece_group ? (size_t)nm->piece_count * sizeof(uint32_t) : 0);
    nm->om_cell_start = NULL, nm->piece_group = NULL;
    ++nm->om_gen;
    if (nm->om_live == 0) return PTL_OK;
    nm->om_cell_start = ptl_mem_calloc(a, (size_t)cells + 1, sizeof(uint32_t));
    nm->piece_group = ptl_mem_alloc(a, (size_t)nm->piece_count * sizeof(uint32_t));
    if (!nm->om_cell_start || !nm->piece_group) return PTL_ERR_NO_MEMORY;
    uint32_t* start = nm->om_cell_start;
    for (uint32_t p = 0; p < nm->piece_count; ++p) nm->piece_group[p] = p;
    /* Count, prefix sums, fill (the arcs of a cell in arc order). */
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t arc = 0; arc < 2 * nm->om_used; ++arc) {
            const ptl_om_link* l = &nm->om[arc >> 1];
            if (!live(l) || ((arc & 1) && !l->desc.bidir)) continue;
            ptl_qpoint p;
            ptl_om_end_point(nm, &l->end[arc & 1], &p);
            for (uint32_t i = 0; i < p.cell_count; ++i) {
                if (pass == 0) ++start[p.cells[i] + 1];
                else nm->om_cell_arcs[start[p.cells[i]]++] = arc;
            }
            if (pass == 0) {
                ptl_qpoint q;
                ptl_om_end_point(nm, &l->end[1 - (arc & 1)], &q);
                uint32_t r = find(nm->piece_group, nm->cell_piece[p.cells[0]]);
                for (uint32_t i = 0; i < p.cell_count; ++i) nm->piece_group[find(nm->piece_group, nm->cell_piece[p.cells[i]])] = r;
                for (uint32_t i = 0; i < q.cell_count; ++i) nm->piece_group[find(nm->piece_group, nm->cell_piece[q.cells[i]])] = r;
            }
        }
        if (pass == 0) {
            for (uint32_t c = 0; c < cells; ++c) start[c + 1] += start[c];
        } else {
            for (uint32_t c = cells; c > 0; --c) start[c] = start[c - 1];
            start[0] = 0;
        }
    }
    for (uint32_t p = 0; p < nm->piece_count; ++p) nm->piece_group[p] = find(nm->piece_group, p);
    return PTL_OK;
}

/* Grows the table to hold one more slot. */
static ptl_status grow(ptl_navmesh* nm) {
    if (nm->om_used < nm->om_cap) return PTL_OK;
    uint32_t cap = nm->om_cap ? 2 * nm->om_cap : 8;
    if (cap > (UINT32_MAX >> 2)) return PTL_ERR_NO_MEMORY;
    ptl_om_link* t = ptl_mem_alloc(&nm->alloc, (size_t)cap * sizeof *t);
    uint32_t* arcs = ptl_mem_alloc(&nm->alloc, 2 * (size_t)cap * sizeof(uint32_t));
    if (!t || !arcs) {
        ptl_mem_free(&nm->alloc, t, t ? (size_t)cap * sizeof *t : 0);
        ptl_mem_free(&nm->alloc, arcs, arcs ? 2 * (size_t)cap * sizeof(uint32_t) : 0);
        return PTL_ERR_NO_MEMORY;
    }
    memset(t, 0, (size_t)cap * sizeof *t);
    if (nm->om_used) memcpy(t, nm->om, (size_t)nm->om_used * sizeof *t);
    ptl_mem_free(&nm->alloc, nm->om, (size_t)nm->om_cap * sizeof *t);
    ptl_mem_free(&nm->alloc, nm->om_cell_arcs, 2 * (size_t)nm->om_cap * sizeof(uint32_t));
    nm->om = t, nm->om_cell_arcs = arcs, nm->om_cap = cap;
    return PTL_OK;
}

void ptl_om_free(ptl_navmesh* nm) {
    ptl_allocator* a = &nm->alloc;
    uint32_t cells = nm->h ? nm->h->cell_count : 0;
    ptl_mem_free(a, nm->om, (size_t)nm->om_cap * sizeof(ptl_om_link));
    ptl_mem_free(a, nm->om_cell_arcs, 2 * (size_t)nm->om_cap * sizeof(uint32_t));
    ptl_mem_free(a, nm->om_cell_start, nm->om_cell_start ? ((size_t)cells + 1) * sizeof(uint32_t) : 0);
    ptl_mem_free(a, nm->piece_group, nm->piece_group ? (size_t)nm->piece_count * sizeof(uint32_t) : 0);
}

static bool finite3(const float p[3]) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

/* Locates one end within the link's radius. */
static ptl_status locate_end(ptl_query* q, const float p[3], float radius, const char* which, ptl_om_end* out,
                             ptl_error* err) {
    const float ext[3] = {radius, radius, radius};
    ptl_qpoint qp;
    ptl_status st = ptl_query_locate_point(q, p, ext, &qp);
    if (st < 0) {
        return ptl_error_set(err, st == PTL_ERR_INVALID_ARG ? st : PTL_ERR_NOT_FOUND,
                             "off-mesh link: its %s (%g, %g, %g) has no mesh within its radius %g%s", which, p[0], p[1],
                             p[2], radius, qp.ambiguous ? " (an ambiguous pinch point)" : "");
    }
    memset(out, 0, sizeof *out);
    out->x = qp.x, out->z = qp.z, out->y = qp.y;
    out->kind = qp.kind, out->cell = qp.cell, out->vert = qp.vert;
    out->pair[0] = qp.pair[0], out->pair[1] = qp.pair[1];
    out->cell_count = qp.cell_count;
    return PTL_OK;
}

ptl_status ptl_om_add(ptl_navmesh* nm, ptl_query* q, const ptl_offmesh_desc* desc, ptl_offmesh_id* id, ptl_error* err) {
    if (!finite3(desc->start) || !finite3(desc->end) || !isfinite(desc->radius) || !(desc->radius >= 0) ||
        !isfinite(desc->cost) || desc->area > 63)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG,
                             "off-mesh link: ends, radius and cost must be finite, radius >= 0, area 0..63");
    const float radius = desc->radius > 0 ? desc->radius : 1.0f;
    ptl_om_end ends[2];
    ptl_status st = locate_end(q, desc->start, radius, "start", &ends[0], err);
    if (st >= 0) st = locate_end(q, desc->end, radius, "end", &ends[1], err);
    if (st < 0) return st;
    if (grow(nm) < 0) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "off-mesh link: out of memory");
    /* A free slot (salt even), else a new one. */
    uint32_t slot = nm->om_used;
    for (uint32_t i = 0; i < nm->om_used; ++i)
        if (!live(&nm->om[i]) && nm->om[i].salt + 1 != 0) {
            slot = i;
            break;
        }
    if (slot == nm->om_used) ++nm->om_used;
    ptl_om_link* l = &nm->om[slot];
    l->desc = *desc;
    l->desc.radius = radius;
    l->end[0] = ends[0], l->end[1] = ends[1];
    double dx = ends[1].x - ends[0].x, dz = ends[1].z - ends[0].z, dy = (double)ends[1].y - ends[0].y;
    l->cost = desc->cost > 0 ? desc->cost : (float)sqrt(dx * dx + dy * dy + dz * dz);
    l->salt++;
    nm->om_live++;
    if (rebuild(nm) < 0) {
        l->salt++;
        nm->om_live--;
        rebuild(nm);
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "off-mesh link: out of memory");
    }
    if (id) *id = make_id(slot, l->salt);
    return ptl_error_ok(err);
}

ptl_status ptl_navmesh_add_offmesh(ptl_navmesh* nm, const ptl_offmesh_desc* desc, ptl_offmesh_id* id, ptl_error* err) {
    if (!nm || !desc) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_navmesh_add_offmesh: NULL argument");
    /* A small query to locate the ends (point location needs no search nodes). */
    ptl_query_desc qd = {.max_nodes = PTL_QUERY_MIN_MAX_NODES, .alloc = &nm->alloc};
    ptl_query* q;
    if (ptl_query_create(nm, &qd, &q) < 0) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "off-mesh link: out of memory");
    ptl_status st = ptl_om_add(nm, q, desc, id, err);
    ptl_query_destroy(q);
    return st;
}

ptl_status ptl_navmesh_remove_offmesh(ptl_navmesh* nm, ptl_offmesh_id id) {
    if (!nm) return PTL_ERR_INVALID_ARG;
    uint32_t slot = (uint32_t)(id & 0xffffffffu), salt = (uint32_t)(id >> OM_SLOT_BITS);
    if (slot >= nm->om_used || nm->om[slot].salt != salt || !live(&nm->om[slot])) return PTL_ERR_NOT_FOUND;
    nm->om[slot].salt++;
    nm->om_live--;
    /* Fewer links need no more memory than the index had; a failed allocation leaves no index, and
       the searches then see no link at all (safe: never a wrong path), so report it. */
    return rebuild(nm) < 0 ? PTL_ERR_NO_MEMORY : PTL_OK;
}

uint32_t ptl_navmesh_offmesh_count(const ptl_navmesh* nm) { return nm ? nm->om_live : 0; }

ptl_status ptl_navmesh_get_offmesh(const ptl_navmesh* nm, uint32_t i, ptl_offmesh_view* out) {
    if (!nm || !out) return PTL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    for (uint32_t s = 0; s < nm->om_used; ++s) {
        const ptl_om_link* l = &nm->om[s];
        if (!live(l) || i-- > 0) continue;
        out->id = make_id(s, l->salt);
        out->desc = l->desc;
        for (int k = 0; k < 2; ++k) {
            float* p = k ? out->end : out->start;
            p[0] = (float)l->end[k].x, p[1] = l->end[k].y, p[2] = (float)l->end[k].z;
        }
        out->start_cell = l->end[0].cell, out->end_cell = l->end[1].cell;
        out->cost = l->cost;
        return PTL_OK;
    }
    return PTL_ERR_INVALID_ARG;
}
