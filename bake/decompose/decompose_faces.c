/* The cells of a decomposition read off the planar graph of walls and live portals (the faces to
   the left of the half-edges), and the decomposition they make (decompose.h). */
#include <string.h>

#include "../../runtime/internal.h"
#include "decompose.h"

void ptl_dc_faces_free(ptl_dc* d, ptl_dc_faces* f) {
    const ptl_allocator* a = &d->alloc;
    ptl_mem_free(a, f->hstart, ((size_t)f->nv + 1) * sizeof(uint32_t));
    ptl_mem_free(a, f->hto, (size_t)f->nh * sizeof(uint32_t));
    ptl_mem_free(a, f->hseg, (size_t)f->nh * sizeof(uint32_t));
    ptl_mem_free(a, f->hface, (size_t)f->nh * sizeof(uint32_t));
    ptl_mem_free(a, f->hrev, (size_t)f->nh * sizeof(uint32_t));
    ptl_mem_free(a, f->seg_half, (size_t)f->ns * 2 * sizeof(uint32_t));
    PTL_ARRAY_FREE(a, f->cverts);
    PTL_ARRAY_FREE(a, f->cstart);
    PTL_ARRAY_FREE(a, f->chalf);
    memset(f, 0, sizeof *f);
}

/* Faces of the planar graph of walls and live portals: each is the region to the left of a cycle
   of half-edges, walked by turning at every vertex to the half-edge just clockwise of the one we
   arrived on. Walls have one half-edge (free space is on their left only), portals two. */
ptl_status ptl_dc_faces_build(ptl_dc* d, ptl_dc_faces* f, ptl_error* err) {
    const ptl_allocator* a = &d->alloc;
    memset(f, 0, sizeof *f);
    uint32_t nv = d->v.count, nh = 0;
    f->nv = nv;
    f->ns = d->s.count;
    f->hstart = ptl_mem_calloc(a, (size_t)nv + 1, sizeof(uint32_t));
    if (!f->hstart) goto oom;
    for (uint32_t v = 0; v < nv; ++v) {
        f->hstart[v] = nh;
        nh += 1 + d->v.data[v].portal_count;
    }
    f->hstart[nv] = nh;
    f->nh = nh;
    f->hto = ptl_mem_alloc(a, (size_t)nh * sizeof(uint32_t));
    f->hseg = ptl_mem_alloc(a, (size_t)nh * sizeof(uint32_t));
    f->hface = ptl_mem_alloc(a, (size_t)nh * sizeof(uint32_t));
    f->hrev = ptl_mem_alloc(a, (size_t)nh * sizeof(uint32_t));
    f->seg_half = ptl_mem_alloc(a, (size_t)f->ns * 2 * sizeof(uint32_t));
    if (!f->hto || !f->hseg || !f->hface || !f->hrev || !f->seg_half) goto oom;
    memset(f->seg_half, 0xff, (size_t)f->ns * 2 * sizeof(uint32_t));
    for (uint32_t v = 0; v < nv; ++v) {
        uint32_t h = f->hstart[v];
        f->hto[h] = d->v.data[v].next;
        f->hseg[h] = d->v.data[v].out_seg;
        ++h;
        for (uint32_t r = d->v.data[v].portals; r != PTL_NONE; r = d->refs.data[r].next, ++h) {
            uint32_t seg = d->refs.data[r].seg;
            f->hto[h] = ptl_dc_other_end(d, seg, v);
            f->hseg[h] = seg;
            f->seg_half[2 * seg + (d->s.data[seg].a == v ? 0 : 1)] = h;
        }
    }
    for (uint32_t h = 0; h < nh; ++h) {
        f->hface[h] = PTL_NONE;
        const ptl_dseg* s = &d->s.data[f->hseg[h]];
        f->hrev[h] = s->kind == PTL_DSEG_PORTAL ? f->seg_half[2 * f->hseg[h] + (f->hto[h] == s->a ? 0 : 1)] : PTL_NONE;
    }
    for (uint32_t h0 = 0; h0 < nh; ++h0) {
        if (f->hface[h0] != PTL_NONE) continue;
        if (!PTL_PUSH(a, f->cstart, f->cverts.count)) goto oom;
        uint32_t h = h0, guard = 0;
        do {
            const ptl_dseg* s = &d->s.data[f->hseg[h]];
            uint32_t from = s->kind == PTL_DSEG_WALL ? s->a : (f->hto[h] == s->a ? s->b : s->a);
            f->hface[h] = f->face_count;
            if (!PTL_PUSH(a, f->cverts, from) || !PTL_PUSH(a, f->chalf, h)) goto oom;
            uint32_t x = f->hto[h];
            /* Arriving by a wall, its reverse is the last direction of x's sector; by a portal, its
               reverse is one of x's portals, which all follow x's wall (index hstart[x]). */
            h = f->hrev[h] == PTL_NONE ? f->hstart[x + 1] - 1 : f->hrev[h] - 1;
            if (++guard > nh) return ptl_error_set(err, PTL_ERR_INTERNAL, "decompose: a face does not close");
        } while (h != h0);
        ++f->face_count;
    }
    if (!PTL_PUSH(a, f->cstart, f->cverts.count)) goto oom;
    return PTL_OK;
oom:
    return ptl_error_set(err, PTL_ERR_NO_MEMORY, "decompose: out of memory");
}

ptl_status ptl_dc_extract(ptl_dc* d, ptl_decomposition* out, ptl_error* err) {
    const ptl_allocator* a = &d->alloc;
    uint32_t nv = d->v.count;
    ptl_dc_faces fc;
    ptl_status st = ptl_dc_faces_build(d, &fc, err);
    if (st < 0) {
        ptl_dc_faces_free(d, &fc);
        return st;
    }
    uint32_t faces = fc.face_count;
    uint32_t* hrev = fc.hrev;
    uint32_t* hface = fc.hface;
    uint32_t* seg_half = fc.seg_half;
#define cverts fc.cverts
#define cstart fc.cstart
#define chalf fc.chalf
    /* Output arrays. */
    memset(out, 0, sizeof *out);
    out->alloc = d->alloc;
    out->vert_count = nv;
    out->xy = ptl_mem_alloc(a, (size_t)nv * 2 * sizeof(double));
    out->cell_count = faces;
    out->cell_start = ptl_mem_alloc(a, ((size_t)faces + 1) * sizeof(uint32_t));
    out->cell_verts = ptl_mem_alloc(a, (size_t)cverts.count * sizeof(uint32_t));
    out->cell_nbrs = ptl_mem_alloc(a, (size_t)cverts.count * sizeof(uint32_t));
    uint32_t portals = 0;
    for (uint32_t i = 0; i < d->s.count; ++i) portals += d->s.data[i].alive && d->s.data[i].kind == PTL_DSEG_PORTAL;
    out->portal_count = portals;
    out->portals = ptl_mem_alloc(a, (size_t)portals * sizeof(ptl_decomp_portal));
    if (!out->xy || !out->cell_start || !out->cell_verts || !out->cell_nbrs || !out->portals) {
        ptl_mem_free(a, out->xy, (size_t)nv * 2 * sizeof(double));
        ptl_mem_free(a, out->cell_start, ((size_t)faces + 1) * sizeof(uint32_t));
        ptl_mem_free(a, out->cell_verts, (size_t)cverts.count * sizeof(uint32_t));
        ptl_mem_free(a, out->cell_nbrs, (size_t)cverts.count * sizeof(uint32_t));
        ptl_mem_free(a, out->portals, (size_t)portals * sizeof(ptl_decomp_portal));
        memset(out, 0, sizeof *out);
        goto oom;
    }
    for (uint32_t v = 0; v < nv; ++v) {
        out->xy[2 * v] = d->v.data[v].p.x;
        out->xy[2 * v + 1] = d->v.data[v].p.y;
    }
    memcpy(out->cell_start, cstart.data, ((size_t)faces + 1) * sizeof(uint32_t));
    memcpy(out->cell_verts, cverts.data, (size_t)cverts.count * sizeof(uint32_t));
    for (uint32_t i = 0; i < cverts.count; ++i) {
        uint32_t h = chalf.data[i];
        out->cell_nbrs[i] = hrev[h] == PTL_NONE ? PTL_NONE : hface[hrev[h]];
    }
    uint32_t p = 0;
    for (uint32_t i = 0; i < d->s.count; ++i) {
        const ptl_dseg* s = &d->s.data[i];
        if (!s->alive || s->kind != PTL_DSEG_PORTAL) continue;
        ptl_decomp_portal* dp = &out->portals[p++];
        dp->v[0] = s->a;
        dp->v[1] = s->b;
        dp->pocket = s->pad[0] ? 2 : 0; /* a lid: the pocket right of a -> b, cell[1] */
        dp->cell[0] = hface[seg_half[2 * i]];
        dp->cell[1] = hface[seg_half[2 * i + 1]];
    }
    out->notches = d->notches;
    out->real_notches = 0;
    for (uint32_t v = 0; v < nv; ++v) out->real_notches += d->v.data[v].real;
    out->holes = d->holes;
    out->outer_rings = d->outer_rings;
    out->split_points = d->split_points;
    out->dropped_portals = d->dropped_portals;
    out->backend_fallbacks = d->backend_fallbacks;
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "decompose: out of memory");
done:
#undef cverts
#undef cstart
#undef chalf
    ptl_dc_faces_free(d, &fc);
    return st;
}

