/* Moving AI .map reader (ptl_grid_parse), then the grid's free space as polygons
   (ptl_shape_from_grid), whose rings must satisfy the invariants ptl_shape_validate checks. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ptl_grid g;
    ptl_error err = {0};
    if (ptl_grid_parse((const char*)data, size, "fuzz.map", NULL, &g, &err) < 0) return 0;
    if (g.passable == NULL && (uint64_t)g.width * g.height != 0) fuzz_fail("map: no cells for %ux%u", g.width, g.height);
    /* Bounded so that one input stays fast; the pipeline target bakes small grids. */
    if ((uint64_t)g.width * g.height <= 1u << 16) {
        ptl_shape s;
        if (ptl_shape_from_grid(&g, NULL, &s, &err) >= 0) {
            if (ptl_shape_validate(&s, &err) < 0) fuzz_fail("map: the grid's shape is invalid: %s", err.message);
            ptl_shape_free(&s);
        }
    }
    ptl_grid_free(&g);
    return 0;
}
