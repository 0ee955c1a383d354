/* The 2D bake: free space (ptl_shape) -> ANavMG decomposition -> runtime blob. */
#include <string.h>
#include <time.h>

#include <portolan/bake.h>

#include "../../runtime/internal.h"
#include "../cpg/hubs.h"
#include "../cpg/offmesh.h"
#include "bake_debug.h"
#include "../cpg/build.h"
#include "progress.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void ptl_bake_desc_resolve(const ptl_bake_desc* desc, ptl_bake_desc* out) {
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (!(d.cell_size > 0)) d.cell_size = 0.3f;
    if (!(d.cell_height > 0)) d.cell_height = 0.2f;
    if (!(d.agent_height > 0)) d.agent_height = 2.0f;
    if (!(d.agent_radius > 0)) d.agent_radius = 0.0f;
    if (!(d.max_climb > 0)) d.max_climb = 0.9f;
    if (!(d.max_slope > 0)) d.max_slope = 45.0f;
    if (!(d.relax > 0)) d.relax = 0.0;
    if (!(d.pair_slack > 0)) d.pair_slack = PTL_PAIR_SLACK_DEFAULT;
    else if (d.pair_slack < 1) d.pair_slack = 1.0;
    /* Hub searches bound more corners away with more landmarks, which cost little beside the
       labels (bench/RESULTS.md). The switches that turn a stage off leave its value 0, which the
       stages read as "none", so that resolving a resolved desc changes nothing. */
    if (d.no_landmarks) d.landmarks = 0;
    else if (d.landmarks == 0) d.landmarks = d.hubs ? 16 : 4;
    /* Hub labels cover only the corners outside pockets when the pockets are cut off: far fewer
       corners, smaller labels and faster queries (bench/RESULTS.md). */
    if (d.hubs) d.lids = true;
    if (d.no_simplify) d.max_error = 0;
    else if (d.max_error == 0) d.max_error = 1.3f;
    if (d.keep_islands) d.min_island = 0;
    else if (d.min_island == 0) d.min_island = 64;
    if (d.no_links) d.max_gap = 0;
    else if (d.max_gap == 0) d.max_gap = d.cell_size;
    *out = d;
}

ptl_status ptl_bake_shape(const ptl_shape* s, const ptl_bake_desc* desc, void** blob, size_t* size,
                          ptl_bake_stats* stats, ptl_error* err) {
    if (!s || !blob || !size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_bake_shape: NULL argument");
    ptl_bake_desc d;
    ptl_bake_desc_resolve(desc, &d);
    ptl_bake_debug_begin(d.debug);
    if (d.landmarks > 64)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: landmarks must be 0 (default) or 1..64 (no_landmarks: none)");
    double t0 = now_ms();
    ptl_bake_progress pg;
    ptl_progress_init(&pg, &d);
    ptl_progress_stage(&pg, "decompose", 0, 0.5f);
    ptl_decompose_desc dd = {.relax = d.relax, .pair_slack = d.pair_slack, .alloc = d.alloc, .lids = d.lids,
                             .backend = d.closest_backend};
    ptl_decomposition dc;
    ptl_status st = ptl_decompose(s, &dd, &dc, err);
    if (st >= 0 && d.debug) st = ptl_bake_debug_keep_shape(d.debug, s, &dc, err);
    if (st < 0) {
        ptl_decomposition_free(&dc);
        ptl_bake_debug_stage_done(d.debug, PTL_BAKE_STAGE_DONE);
        return st;
    }
    double t1 = now_ms();
    ptl_progress_stage(&pg, "build", 0.5f, 0.6f);
    st = ptl_bake_decomposition(&dc, &(ptl_blob_desc){.flags = s->flags, .alloc = d.alloc}, blob, size, err);
    /* Never hand out a navmesh that its own validation rejects; checked before the landmark
       searches, which assume a valid mesh. */
    if (st >= 0 && (st = ptl_cpg_check_blob(*blob, *size, d.alloc, err)) < 0) {
        ptl_blob_free(*blob, *size, d.alloc);
        *blob = NULL, *size = 0;
    }
    double t2 = now_ms();
    if (st >= 0) ptl_bake_debug_stage_done(d.debug, PTL_BAKE_STAGE_MERGE);
    if (st >= 0 && d.landmarks > 0) {
        ptl_progress_stage(&pg, "landmarks", 0.6f, 0.8f);
        void* with = NULL;
        size_t with_size = 0;
        st = ptl_bake_landmarks(*blob, *size, d.landmarks, &(ptl_landmarks_desc){.alloc = d.alloc}, &with, &with_size, err);
        ptl_blob_free(*blob, *size, d.alloc);
        *blob = with;
        *size = with_size;
    }
    double t3 = now_ms();
    ptl_bake_stats hs;
    memset(&hs, 0, sizeof hs);
    if (st >= 0 && d.hubs) ptl_progress_stage(&pg, "hubs", 0.8f, 0.99f);
    if (st >= 0 && d.hubs) st = ptl_bake_add_hubs(&d, blob, size, &hs, err);
    if (st >= 0 && d.offmesh_count) st = ptl_bake_add_offmesh(&d, blob, size, err);
    double t4 = now_ms();
    if (st >= 0 && stats) {
        memset(stats, 0, sizeof *stats);
        stats->hubs = hs.hubs, stats->hub_edges = hs.hub_edges;
        stats->hub_entries = hs.hub_entries, stats->hub_bytes = hs.hub_bytes;
        stats->ms_hubs = t4 - t3;
        stats->vertices = dc.vert_count;
        stats->cells = dc.cell_count;
        stats->portals = dc.portal_count;
        stats->tiles = 1;
        stats->layers = 1;
        stats->notches = dc.notches;
        stats->real_notches = dc.real_notches;
        stats->holes = dc.holes;
        for (uint32_t c = 0; c < dc.cell_count; ++c) {
            double a2 = 0;
            uint32_t b = dc.cell_start[c], n = dc.cell_start[c + 1] - b;
            for (uint32_t i = 0; i < n; ++i) {
                uint32_t v = dc.cell_verts[b + i], w = dc.cell_verts[b + (i + 1) % n];
                a2 += dc.xy[2 * v] * dc.xy[2 * w + 1] - dc.xy[2 * w] * dc.xy[2 * v + 1];
            }
            stats->walkable_area += a2 / 2;
        }
        stats->ms_decompose = t1 - t0;
        stats->ms_build = t2 - t1;
        stats->ms_landmarks = t3 - t2;
        stats->ms_total = t4 - t0;
        stats->landmarks = d.landmarks;
    }
    ptl_decomposition_free(&dc);
    if (st >= 0) ptl_progress_stage(&pg, "done", 1, 1);
    ptl_bake_debug_stage_done(d.debug, PTL_BAKE_STAGE_DONE);
    return st;
}
