/* The defaults of the scene generators' descs: each `ptl_*_desc_defaults()` returns its desc with
   every documented default filled in (a zeroed desc means the same). */
#include <portolan/gen.h>

ptl_grid_gen_desc ptl_grid_gen_desc_defaults(void) {
    return (ptl_grid_gen_desc){.scene = PTL_GRID_SCENE_ROOMS, .width = 256, .height = 256, .density = 0.25f};
}

ptl_scene_desc ptl_scene_desc_defaults(void) {
    return (ptl_scene_desc){.kind = PTL_SCENE_BUILDING, .size = 40.0f, .storeys = 3};
}

ptl_copies_desc ptl_copies_desc_defaults(void) {
    return (ptl_copies_desc){.copies = 0, .spacing = 0.0f, .gap = 0.0f};
}

ptl_extrude_desc ptl_extrude_desc_defaults(void) {
    ptl_extrude_desc d;
    ptl_extrude_desc_resolve(NULL, &d);
    return d;
}
