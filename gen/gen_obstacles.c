/* A triangle mesh plus obstacles as closed prisms: the geometry a full bake of a world with
   obstacles is compared with (the tile cache's stamped navmesh, issue 20's acceptance), for
   `portolan gen obstacles` and the tests.

   Each obstacle is its footprint in plan extruded over its height range, as the tile cache reads
   the desc (bake/pipeline/tilecache_obstacle.c): a box (turned by its yaw) or a prism is its convex
   polygon; a cylinder is the regular 24-gon circumscribed about its circle, so that the geometry
   covers every column the circle does. Every obstacle is closed: its sides, its bottom and its top
   (fans over the convex footprint). The input's vertices and triangles come first, unchanged and
   in order, with their tags; the obstacles' triangles follow in the order given, tagged
   "g obstacles". */
#include <portolan/gen.h>
#include <portolan/tilecache.h>

#include <math.h>
#include <string.h>

#include "../bake/pipeline/tilecache_obstacle.h"
#include "../runtime/internal.h"

enum { CYL_SIDES = 24 };

static const char OBSTACLE_TAG[] = "g obstacles";

/* The footprint's corners (counter-clockwise, as the shape holds them) and its height range. */
static uint32_t footprint(const ptl_tc_shape* s, float* xz) {
    if (s->n) {
        memcpy(xz, s->xz, 2 * sizeof(float) * s->n);
        return s->n;
    }
    const double r = (double)s->r / cos(3.14159265358979323846 / CYL_SIDES);
    for (int i = 0; i < CYL_SIDES; ++i) {
        const double a = 2 * 3.14159265358979323846 * i / CYL_SIDES;
        xz[2 * i] = (float)(s->cx + r * cos(a)), xz[2 * i + 1] = (float)(s->cz + r * sin(a));
    }
    return CYL_SIDES;
}

static void free_out(ptl_trimesh* out, uint32_t nv, uint32_t nt, uint32_t ntag) {
    const ptl_allocator* a = &out->alloc;
    ptl_mem_free(a, out->verts, (size_t)nv * 3 * sizeof(float));
    ptl_mem_free(a, out->tris, (size_t)nt * 3 * sizeof(uint32_t));
    ptl_mem_free(a, out->tri_tag, (size_t)nt * sizeof(uint16_t));
    if (out->tag_names) {
        for (uint32_t i = 0; i < ntag; ++i)
            if (out->tag_names[i]) ptl_mem_free(a, out->tag_names[i], strlen(out->tag_names[i]) + 1);
        ptl_mem_free(a, out->tag_names, (size_t)ntag * sizeof(char*));
    }
    ptl_allocator keep = out->alloc;
    memset(out, 0, sizeof *out);
    out->alloc = keep;
}

/* The tag names: the input's (tag 0 "") and "g obstacles" last. */
static bool copy_names(const ptl_trimesh* in, uint32_t ntag, ptl_trimesh* out) {
    const ptl_allocator* a = &out->alloc;
    out->tag_names = ptl_mem_calloc(a, ntag, sizeof(char*));
    if (!out->tag_names) return false;
    out->tag_count = ntag;
    for (uint32_t i = 0; i < ntag; ++i) {
        const char* s = i + 1 == ntag ? OBSTACLE_TAG
                        : i > 0 && in->tag_names && i < in->tag_count && in->tag_names[i] ? in->tag_names[i]
                                                                                         : "";
        const size_t len = strlen(s) + 1;
        if (!(out->tag_names[i] = ptl_mem_alloc(a, len))) return false;
        memcpy(out->tag_names[i], s, len);
    }
    return true;
}

ptl_status ptl_trimesh_with_obstacles(const ptl_trimesh* in, const ptl_obstacle_desc* obs, uint32_t count,
                                      const ptl_allocator* alloc, ptl_trimesh* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_trimesh_with_obstacles: out is NULL");
    memset(out, 0, sizeof *out);
    out->alloc = ptl_allocator_resolve(alloc);
    if (!in || (count && !obs) || in == out)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_trimesh_with_obstacles: NULL or shared argument");
    if ((in->tri_count && (!in->verts || !in->tris)) || (in->vert_count && !in->verts))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacles: the mesh's arrays are NULL");
    for (uint64_t k = 0; k < (uint64_t)in->tri_count * 3; ++k)
        if (in->tris[k] >= in->vert_count)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacles: triangle %llu names vertex %u of %u",
                                 (unsigned long long)(k / 3), in->tris[k], in->vert_count);
    uint64_t nv = in->vert_count, nt = in->tri_count;
    for (uint32_t i = 0; i < count; ++i) {
        ptl_tc_shape s;
        ptl_error e;
        if (ptl_tc_shape_of(&obs[i], &s, &e) < 0) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle %u: %s", i, e.message);
        if (s.area >= 0) continue; /* an area volume is no geometry */
        const uint32_t n = s.n ? s.n : CYL_SIDES;
        nv += 2 * n, nt += 4 * (uint64_t)n - 4;
    }
    const uint32_t ntag = (in->tag_count ? in->tag_count : 1) + 1;
    if (nv > 0x7fffffffu || nt > 0x7fffffffu || ntag > 0xffffu)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacles: %llu vertices, %llu triangles or %u tags is too many",
                             (unsigned long long)nv, (unsigned long long)nt, ntag);
    const ptl_allocator* a = &out->alloc;
    out->verts = ptl_mem_alloc(a, (size_t)nv * 3 * sizeof(float));
    out->tris = ptl_mem_alloc(a, (size_t)nt * 3 * sizeof(uint32_t));
    out->tri_tag = ptl_mem_alloc(a, (size_t)nt * sizeof(uint16_t));
    if (!out->verts || !out->tris || !out->tri_tag || !copy_names(in, ntag, out)) {
        free_out(out, (uint32_t)nv, (uint32_t)nt, ntag);
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "obstacles: out of memory");
    }
    if (in->vert_count) memcpy(out->verts, in->verts, (size_t)in->vert_count * 3 * sizeof(float));
    if (in->tri_count) memcpy(out->tris, in->tris, (size_t)in->tri_count * 3 * sizeof(uint32_t));
    for (uint32_t t = 0; t < in->tri_count; ++t) out->tri_tag[t] = in->tri_tag && in->tri_tag[t] < ntag - 1 ? in->tri_tag[t] : 0;
    uint32_t v = in->vert_count, t = in->tri_count;
    const uint16_t tag = (uint16_t)(ntag - 1);
    for (uint32_t i = 0; i < count; ++i) {
        ptl_tc_shape s;
        ptl_tc_shape_of(&obs[i], &s, NULL);
        if (s.area >= 0) continue;
        float xz[2 * CYL_SIDES];
        const uint32_t n = footprint(&s, xz), v0 = v;
        for (uint32_t k = 0; k < n; ++k)
            for (int up = 0; up < 2; ++up) {
                float* p = out->verts + 3 * (size_t)v++;
                p[0] = xz[2 * k], p[1] = up ? s.ymax : s.ymin, p[2] = xz[2 * k + 1];
            }
        for (uint32_t k = 0; k < n; ++k) {
            const uint32_t j = (k + 1) % n;
            const uint32_t tri[4][3] = {{v0 + 2 * k, v0 + 2 * j, v0 + 2 * j + 1}, {v0 + 2 * k, v0 + 2 * j + 1, v0 + 2 * k + 1},
                                        {v0, v0 + 2 * k + 2, v0 + 2 * k}, {v0 + 1, v0 + 2 * k + 1, v0 + 2 * k + 3}};
            const int fans = k >= 1 && k + 1 < n ? 4 : 2; /* the bottom and the top: fans from corner 0 */
            for (int f = 0; f < fans; ++f) {
                memcpy(out->tris + 3 * (size_t)t, tri[f], sizeof tri[f]);
                out->tri_tag[t++] = tag;
            }
        }
    }
    out->vert_count = v, out->tri_count = t;
    for (int c = 0; c < 3; ++c) out->bmin[c] = INFINITY, out->bmax[c] = -INFINITY;
    for (uint64_t k = 0; k < (uint64_t)t * 3; ++k)
        for (int c = 0; c < 3; ++c) {
            const float x = out->verts[3 * (size_t)out->tris[k] + c];
            out->bmin[c] = fminf(out->bmin[c], x), out->bmax[c] = fmaxf(out->bmax[c], x);
        }
    if (t == 0)
        for (int c = 0; c < 3; ++c) out->bmin[c] = out->bmax[c] = 0;
    return ptl_error_ok(err);
}
