/* Polyanya mesh v2/v3 reader (ptl_mesh2d_parse), then a bake of small shapes (fuzz_shape_bake.h). */
#include "fuzz_shape_bake.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ptl_shape s;
    ptl_error err = {0};
    if (ptl_mesh2d_parse((const char*)data, size, "fuzz.mesh", NULL, &s, &err) < 0) return 0;
    fuzz_shape_check_and_bake(&s, "mesh");
    ptl_shape_free(&s);
    return 0;
}
