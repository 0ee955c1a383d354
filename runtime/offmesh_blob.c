/* Off-mesh links in the blob (navmesh_format.h, version 6): written by the bake after its other
   passes (the last section), read into the navmesh's table at load. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "offmesh.h"

static bool finite3(const float p[3]) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

/* Does the located end hold the stored cell? */
static bool holds(const ptl_navmesh* nm, const ptl_om_end* e, uint32_t cell) {
    ptl_qpoint p;
    ptl_om_end_point(nm, e, &p);
    for (uint32_t i = 0; i < p.cell_count; ++i)
        if (p.cells[i] == cell) return true;
    return false;
}

ptl_status ptl_om_load(ptl_navmesh* nm, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    const ptl_blob_offmesh* b = (const ptl_blob_offmesh*)(nm->blob + h->off_offmesh);
    for (uint32_t i = 0; i < h->offmesh_count; ++i) {
        const ptl_blob_offmesh* o = &b[i];
        if (!finite3(o->start) || !finite3(o->end) || !(o->radius > 0) || !isfinite(o->radius) || !isfinite(o->cost) ||
            o->bidir > 1 || o->area > 63 || o->start_cell >= h->cell_count || o->end_cell >= h->cell_count)
            return ptl_error_set(err, PTL_ERR_BAD_BLOB,
                                 "navmesh blob: off-mesh link %u has a non-finite end, a bad radius, cost, area or flag, "
                                 "or a cell out of range", i);
    }
    ptl_query_desc qd = {.max_nodes = PTL_QUERY_MIN_MAX_NODES, .alloc = &nm->alloc};
    ptl_query* q;
    if (ptl_query_create(nm, &qd, &q) < 0) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "navmesh: out of memory");
    ptl_status st = PTL_OK;
    for (uint32_t i = 0; i < h->offmesh_count && st >= 0; ++i) {
        const ptl_blob_offmesh* o = &b[i];
        ptl_offmesh_desc d = {.radius = o->radius, .bidir = o->bidir != 0, .cost = o->cost, .area = o->area,
                              .user_id = o->user_id};
        memcpy(d.start, o->start, sizeof d.start);
        memcpy(d.end, o->end, sizeof d.end);
        ptl_offmesh_id id;
        st = ptl_om_add(nm, q, &d, &id, NULL);
        if (st == PTL_ERR_NO_MEMORY) {
            st = ptl_error_set(err, st, "navmesh: out of memory");
        } else if (st < 0 || !holds(nm, &nm->om[id & 0xffffffffu].end[0], o->start_cell) ||
                   !holds(nm, &nm->om[id & 0xffffffffu].end[1], o->end_cell)) {
            st = ptl_error_set(err, PTL_ERR_BAD_BLOB, "navmesh blob: off-mesh link %u: an end is not on the mesh in its cell", i);
        }
    }
    ptl_query_destroy(q);
    return st;
}

/* The stored form of a located link (the bake's and a live navmesh's): its ends as located, so that
   loading finds them at distance 0, and the cost as given. */
static void store_link(const ptl_om_link* l, float cost, ptl_blob_offmesh* o) {
    memset(o, 0, sizeof *o);
    for (int k = 0; k < 2; ++k) {
        float* p = k ? o->end : o->start;
        p[0] = (float)l->end[k].x, p[1] = l->end[k].y, p[2] = (float)l->end[k].z;
    }
    o->radius = l->desc.radius, o->cost = cost;
    o->start_cell = l->end[0].cell, o->end_cell = l->end[1].cell;
    o->user_id = l->desc.user_id, o->bidir = l->desc.bidir, o->area = l->desc.area;
}

ptl_status ptl_om_blob_append(const void* blob, size_t size, const ptl_offmesh_desc* links, uint32_t count,
                              const ptl_allocator* alloc, void** out, size_t* out_size, ptl_error* err) {
    *out = NULL, *out_size = 0;
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_navmesh* nm;
    ptl_navmesh_desc nd = {.alloc = &a};
    ptl_status st = ptl_navmesh_create(blob, size, &nd, &nm, err);
    if (st < 0) return st;
    if (nm->h->offmesh_count) {
        ptl_navmesh_destroy(nm);
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: the navmesh has off-mesh links already");
    }
    ptl_query_desc qd = {.max_nodes = PTL_QUERY_MIN_MAX_NODES, .alloc = &a};
    ptl_query* q;
    if (ptl_query_create(nm, &qd, &q) < 0) {
        ptl_navmesh_destroy(nm);
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    }
    const size_t base = (size + 7) & ~(size_t)7, total = base + (size_t)count * sizeof(ptl_blob_offmesh);
    uint8_t* nb = NULL;
    for (uint32_t i = 0; i < count && st >= 0; ++i) {
        ptl_error e;
        st = ptl_om_add(nm, q, &links[i], NULL, &e);
        if (st < 0) st = ptl_error_set(err, st, "bake: off-mesh link %u: %s", i, e.message);
    }
    if (st >= 0 && !(nb = ptl_mem_calloc(&a, 1, total))) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    if (st >= 0) {
        memcpy(nb, blob, size);
        ptl_blob_offmesh* o = (ptl_blob_offmesh*)(nb + base);
        for (uint32_t i = 0; i < count; ++i) store_link(&nm->om[i], links[i].cost, &o[i]);
        ptl_blob_header* h = (ptl_blob_header*)nb;
        h->offmesh_count = count, h->off_offmesh = base, h->total_size = total;
        h->checksum = 0;
        h->checksum = ptl_blob_checksum(nb, total);
        *out = nb, *out_size = total;
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    return st;
}

ptl_status ptl_navmesh_blob_with_offmesh(const ptl_navmesh* nm, const ptl_allocator* alloc, void** out, size_t* out_size,
                                         ptl_error* err) {
    if (out) *out = NULL;
    if (out_size) *out_size = 0;
    if (!nm || !out || !out_size)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_navmesh_blob_with_offmesh: NULL argument");
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const ptl_blob_header* h = nm->h;
    /* the loaded blob without its own off-mesh section (always the last one) */
    const size_t kept = h->offmesh_count ? (size_t)h->off_offmesh : nm->size;
    const uint32_t live = nm->om_live;
    const size_t base = (kept + 7) & ~(size_t)7, total = live ? base + (size_t)live * sizeof(ptl_blob_offmesh) : kept;
    uint8_t* nb = ptl_mem_calloc(&a, 1, total);
    if (!nb) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "navmesh: out of memory");
    memcpy(nb, nm->blob, kept);
    ptl_blob_offmesh* o = (ptl_blob_offmesh*)(nb + base);
    uint32_t n = 0;
    for (uint32_t s = 0; s < nm->om_used; ++s) {
        const ptl_om_link* l = &nm->om[s];
        if (l->salt & 1u) store_link(l, l->desc.cost, &o[n++]);
    }
    ptl_blob_header* nh = (ptl_blob_header*)nb;
    nh->offmesh_count = n, nh->off_offmesh = n ? base : 0, nh->total_size = total;
    nh->checksum = 0;
    nh->checksum = ptl_blob_checksum(nb, total);
    *out = nb, *out_size = total;
    return ptl_error_ok(err);
}
