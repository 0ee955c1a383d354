/* The defaults of the bake library's public descs, side by side: each `ptl_*_desc_defaults()`
   returns its desc with every documented default filled in (a zeroed desc means the same). */
#include <portolan/bake.h>
#include <portolan/bake_debug.h>

ptl_input_desc ptl_input_desc_defaults(void) {
    return (ptl_input_desc){.alloc = NULL};
}

ptl_decompose_desc ptl_decompose_desc_defaults(void) {
    return (ptl_decompose_desc){.relax = 0.0, .pair_slack = PTL_PAIR_SLACK_DEFAULT, .lids = false};
}

ptl_bake_desc ptl_bake_desc_defaults(void) {
    /* landmarks and max_gap stay 0: their defaults follow hubs and cell_size (bake2d.c resolves). */
    return (ptl_bake_desc){.cell_size = 0.3f,
                           .cell_height = 0.2f,
                           .agent_height = 2.0f,
                           .agent_radius = 0.0f,
                           .max_climb = 0.9f,
                           .max_slope = 45.0f,
                           .pair_slack = PTL_PAIR_SLACK_DEFAULT,
                           .max_error = 1.3f,
                           .min_island = 64};
}

ptl_blob_desc ptl_blob_desc_defaults(void) {
    return (ptl_blob_desc){.flags = 0};
}

ptl_landmarks_desc ptl_landmarks_desc_defaults(void) {
    return (ptl_landmarks_desc){.jobs = NULL};
}

ptl_hubs_desc ptl_hubs_desc_defaults(void) {
    return (ptl_hubs_desc){.jobs = NULL};
}

ptl_merge_desc ptl_merge_desc_defaults(void) {
    return (ptl_merge_desc){.jobs = NULL};
}

ptl_bake_debug_desc ptl_bake_debug_desc_defaults(void) {
    return (ptl_bake_debug_desc){.alloc = NULL};
}
