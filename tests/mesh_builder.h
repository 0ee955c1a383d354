/* A small triangle-mesh builder for tests that make their own 3D scenes from quads and boxes, so
   the expected walkable area and heights are known exactly. */
#ifndef PTL_TEST_MESH_BUILDER_H
#define PTL_TEST_MESH_BUILDER_H

#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <portolan/runtime.h>
#include <string.h>

typedef struct mesh_builder {
    float v[3 * 4096];
    uint32_t t[3 * 4096];
    uint32_t nv, nt;
} mesh_builder;

static inline uint32_t vert(mesh_builder* b, float x, float y, float z) {
    b->v[3 * b->nv] = x, b->v[3 * b->nv + 1] = y, b->v[3 * b->nv + 2] = z;
    return b->nv++;
}
static inline void tri(mesh_builder* b, uint32_t a, uint32_t c, uint32_t d) {
    b->t[3 * b->nt] = a, b->t[3 * b->nt + 1] = c, b->t[3 * b->nt + 2] = d;
    ++b->nt;
}
/* An upward-facing quad [x0, x1] x [z0, z1] at height y (counter-clockwise seen from above). */
static inline void floor_quad(mesh_builder* b, float x0, float z0, float x1, float z1, float y) {
    uint32_t a = vert(b, x0, y, z0), c = vert(b, x0, y, z1), d = vert(b, x1, y, z1), e = vert(b, x1, y, z0);
    tri(b, a, c, d);
    tri(b, a, d, e);
}
/* A closed box (a solid obstacle). */
static inline void box(mesh_builder* b, float x0, float y0, float z0, float x1, float y1, float z1) {
    uint32_t v[8];
    for (int i = 0; i < 8; ++i) v[i] = vert(b, i & 1 ? x1 : x0, i & 2 ? y1 : y0, i & 4 ? z1 : z0);
    const int f[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (int k = 0; k < 6; ++k) {
        tri(b, v[f[k][0]], v[f[k][1]], v[f[k][2]]);
        tri(b, v[f[k][0]], v[f[k][2]], v[f[k][3]]);
    }
}

static inline ptl_trimesh as_trimesh(mesh_builder* b) {
    ptl_trimesh m;
    memset(&m, 0, sizeof m);
    m.vert_count = b->nv, m.verts = b->v, m.tri_count = b->nt, m.tris = b->t;
    static uint16_t tags[4096];
    m.tri_tag = tags;
    m.bmin[0] = m.bmin[1] = m.bmin[2] = INFINITY;
    m.bmax[0] = m.bmax[1] = m.bmax[2] = -INFINITY;
    for (uint32_t i = 0; i < 3 * b->nt; ++i) {
        const float* p = &b->v[3 * b->t[i]];
        for (int k = 0; k < 3; ++k) m.bmin[k] = fminf(m.bmin[k], p[k]), m.bmax[k] = fmaxf(m.bmax[k], p[k]);
    }
    return m;
}

/* The scene baked with d and loaded (the blob freed); a test failure when either step fails. */
static inline ptl_navmesh* bake_builder(mesh_builder* b, const ptl_bake_desc* d) {
    ptl_trimesh m = as_trimesh(b);
    void* blob = NULL;
    size_t size = 0;
    ptl_error err;
    cr_assert_geq(ptl_bake_trimesh(&m, d, &blob, &size, NULL, &err), 0, "bake: %s", err.message);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "load: %s", err.message);
    ptl_blob_free(blob, size, NULL);
    return nm;
}

#endif
