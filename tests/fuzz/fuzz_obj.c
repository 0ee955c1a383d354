/* Wavefront OBJ reader (ptl_obj_parse): indices in range, finite vertices, tags named; then the 3D
   bake of small meshes (few triangles, a few metres across), whose blob must validate. */
#include "fuzz_common.h"

#define FUZZ_OBJ_BAKE_MAX_TRIS 64u
#define FUZZ_OBJ_BAKE_MAX_EXTENT 24.0f /* [Units: wu] 80 columns of 0.3 */

static void check_mesh(const ptl_trimesh* m) {
    for (uint32_t i = 0; i < 3 * m->vert_count; ++i)
        if (!isfinite(m->verts[i])) fuzz_fail("obj: vertex %u is not finite", i / 3);
    for (uint32_t i = 0; i < 3 * m->tri_count; ++i)
        if (m->tris[i] >= m->vert_count) fuzz_fail("obj: triangle %u uses vertex %u of %u", i / 3, m->tris[i], m->vert_count);
    for (uint32_t i = 0; m->tri_tag && i < m->tri_count; ++i)
        if (m->tri_tag[i] >= (m->tag_count ? m->tag_count : 1)) fuzz_fail("obj: triangle %u has tag %u of %u", i, m->tri_tag[i], m->tag_count);
    for (uint32_t i = 0; i < m->tag_count; ++i)
        if (!m->tag_names || !m->tag_names[i]) fuzz_fail("obj: tag %u has no name", i);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ptl_trimesh m;
    ptl_error err = {0};
    if (ptl_obj_parse((const char*)data, size, "fuzz.obj", NULL, &m, &err) < 0) return 0;
    check_mesh(&m);
    bool small = m.tri_count <= FUZZ_OBJ_BAKE_MAX_TRIS;
    for (int k = 0; k < 3; ++k)
        if (!(m.bmax[k] - m.bmin[k] <= FUZZ_OBJ_BAKE_MAX_EXTENT)) small = false;
    if (small) {
        void* blob = NULL;
        size_t bsize = 0;
        ptl_status st = ptl_bake_trimesh(&m, NULL, &blob, &bsize, NULL, &err);
        if (st == PTL_ERR_INTERNAL) fuzz_fail("obj: the 3D bake failed: %s", err.message);
        if (st >= 0) {
            fuzz_check_blob_valid(blob, bsize, "obj");
            ptl_blob_free(blob, bsize, NULL);
        }
    }
    ptl_trimesh_free(&m);
    return 0;
}
