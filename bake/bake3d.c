/* The 3D bake: any triangle soup to a multi-layer cell-and-portal graph.
   voxelize.c -> filter.c -> layers.c -> contours.c -> decompose.c per layer -> layer_merge.c
   (-> landmarks.c). One tile covers the whole input for now (issue 5 tiles it). */
#include <math.h>
#include <string.h>
#include <time.h>

#include "../runtime/alloc.h"
#include "../runtime/error.h"
#include "layer_merge.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

ptl_status ptl_bake_trimesh(const ptl_trimesh* m, const ptl_bake_desc* desc, void** blob, size_t* size,
                            ptl_bake_stats* stats, ptl_error* err) {
    if (!m || !blob || !size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_bake_trimesh: NULL argument");
    *blob = NULL;
    *size = 0;
    ptl_bake_desc d;
    ptl_bake_desc_resolve(desc, &d);
    if (d.landmarks < -1 || d.landmarks > 64)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: landmarks must be -1 (none), 0 (default) or 1..64");
    if (!isfinite(d.max_error)) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: max_error must be finite");
    if (m->tri_count == 0) return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: the mesh has no triangle");
    ptl_allocator a = ptl_allocator_resolve(d.alloc);
    ptl_bake_stats bs;
    memset(&bs, 0, sizeof bs);
    bs.triangles = m->tri_count;
    ptl_heightfield hf;
    ptl_open_field of;
    ptl_layer_set ls;
    memset(&hf, 0, sizeof hf);
    memset(&of, 0, sizeof of);
    memset(&ls, 0, sizeof ls);
    ptl_layer_contour* lc = NULL;
    ptl_decomposition* dc = NULL;
    uint32_t nl = 0;
    double t0 = now_ms(), t;
    ptl_vx_params p;
    ptl_status st = ptl_vx_params_resolve(&d, m, &p, err);
    if (st >= 0) st = ptl_vx_rasterize(m, NULL, 0, &p, &a, &hf, err);
    t = now_ms(), bs.ms_voxelize = t - t0;
    if (st >= 0) st = ptl_vx_build_open(&hf, &a, &of, err);
    bs.spans = hf.span_count;
    ptl_heightfield_free(&hf);
    bs.ms_filter = now_ms() - t, t = now_ms();
    if (st >= 0) st = ptl_vx_build_layers(&of, d.seeds, d.seed_count, &a, &ls, err);
    bs.ms_layers = now_ms() - t, t = now_ms();
    if (st >= 0 && ls.layer_count == 0)
        st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: no walkable surface%s",
                           d.seed_count ? " reachable from the seeds" : " (check the agent height, climb and slope)");
    if (st >= 0) {
        nl = ls.layer_count;
        lc = ptl_mem_calloc(&a, nl, sizeof *lc);
        dc = ptl_mem_calloc(&a, nl, sizeof *dc);
        if (!lc || !dc) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    }
    for (uint32_t l = 0; l < nl && st >= 0; ++l) st = ptl_contour_layer(&of, &ls, l, d.max_error, &a, &lc[l], err);
    bs.ms_contours = now_ms() - t, t = now_ms();
    /* 3D contours carry many notches facing each other across corridors and around obstacles: a
       notch-to-notch portal up to twice the closest element's length closes two at once (about
       10% fewer cells on Recast's meshes). 2D inputs keep the paper's rule by default. */
    double pair_slack = desc && desc->pair_slack > 0 ? d.pair_slack : 2.0;
    ptl_decompose_desc dd = {d.relax, pair_slack, &a};
    for (uint32_t l = 0; l < nl && st >= 0; ++l) {
        st = ptl_decompose(&lc[l].shape, &dd, &dc[l], err);
        if (st < 0) break;
        bs.notches += dc[l].notches;
        bs.real_notches += dc[l].real_notches;
        bs.holes += dc[l].holes;
    }
    bs.ms_decompose = now_ms() - t, t = now_ms();
    ptl_merge_stats ms;
    memset(&ms, 0, sizeof ms);
    if (st >= 0) st = ptl_merge_layers(&of, lc, dc, nl, d.relax, &a, blob, size, &ms, err);
    bs.ms_merge = now_ms() - t, t = now_ms();
    for (uint32_t i = 0; i < of.span_count; ++i) bs.walkable_spans += of.spans[i].layer != PTL_VX_NONE;
    if (st >= 0 && d.landmarks > 0) {
        void* with = NULL;
        size_t with_size = 0;
        st = ptl_bake_landmarks(*blob, *size, (uint32_t)d.landmarks, &a, &with, &with_size, err);
        ptl_blob_free(*blob, *size, &a);
        *blob = with;
        *size = with_size;
        bs.landmarks = st >= 0 ? (uint32_t)d.landmarks : 0;
    }
    bs.ms_landmarks = now_ms() - t;
    if (st >= 0 && stats) {
        ptl_navmesh* nm;
        ptl_navmesh_desc nd = {&a};
        if (ptl_navmesh_create(*blob, *size, &nd, &nm, NULL) >= 0) {
            ptl_navmesh_info in;
            ptl_navmesh_get_info(nm, &in);
            bs.walkable_area = in.walkable_area;
            ptl_navmesh_destroy(nm);
        }
        bs.vertices = ms.vertices, bs.cells = ms.cells, bs.portals = ms.portals;
        bs.junction_portals = ms.junction_portals;
        bs.links = ms.links;
        bs.tiles = 1;
        bs.layers = nl;
        bs.ms_total = now_ms() - t0;
        *stats = bs;
    }
    if (st < 0 && *blob) {
        ptl_blob_free(*blob, *size, &a);
        *blob = NULL;
        *size = 0;
    }
    for (uint32_t l = 0; l < nl; ++l) {
        if (lc) ptl_layer_contour_free(&lc[l]);
        if (dc) ptl_decomposition_free(&dc[l]);
    }
    ptl_mem_free(&a, lc, (size_t)nl * sizeof *lc);
    ptl_mem_free(&a, dc, (size_t)nl * sizeof *dc);
    ptl_layer_set_free(&ls);
    ptl_open_field_free(&of);
    if (st >= 0) ptl_error_ok(err);
    return st;
}
