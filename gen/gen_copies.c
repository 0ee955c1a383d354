/* Scale scenes, part 1: K x K copies of a triangle mesh laid side by side on the x-z plane.

   Copy (i, j) (i along x, j along z, both 0..K-1) is the input moved by (i * pitch_x, 0,
   j * pitch_z); copy (0, 0) stays where the input is. The default pitch is the extent of the
   mesh's bounds along each axis, so neighbouring copies touch edge to edge, the way Recast's demos
   tile dungeon.obj for their tiled bakes (dungeon.obj copied 8 x 8 is the benchmark
   scene). Copies keep every vertex (used or not) and every triangle's tag: copy c = j * K + i owns
   vertices [c * nv, (c + 1) * nv) and triangles [c * nt, (c + 1) * nt), in the input's order, so
   the output is deterministic and a copy's triangle t is the input's triangle t.

   Coordinates: a vertex of copy (i, j) is (float)(x + i * pitch_x) computed in double, so a copy
   is exact wherever the sum is representable, and rounds once otherwise. */
#include <portolan/gen.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "../runtime/internal.h"

/* K is at most this per side (K^2 = 16.7 million copies); the totals are limited separately. */
#define COPIES_MAX 4096u
/* Vertex and triangle counts of the output stay below 2^31 (ptl_trimesh counts are 32-bit, and
   3 * tri_count indices must be addressable by code that multiplies in 32 bits). */
#define COUNT_MAX 0x7fffffffull

/* Deep copy of the input's tag names; `n` >= 1. A missing name is "" (tag 0 always is). */
static ptl_status copy_names(const ptl_allocator* a, const ptl_trimesh* in, uint32_t n, char*** out) {
    char** names = ptl_mem_calloc(a, n, sizeof *names);
    if (!names) return PTL_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < n; ++i) {
        const char* s = in->tag_names && i < in->tag_count && in->tag_names[i] && i > 0 ? in->tag_names[i] : "";
        size_t len = strlen(s) + 1;
        names[i] = ptl_mem_alloc(a, len);
        if (!names[i]) {
            for (uint32_t k = 0; k < i; ++k) ptl_mem_free(a, names[k], strlen(names[k]) + 1);
            ptl_mem_free(a, names, (size_t)n * sizeof *names);
            return PTL_ERR_NO_MEMORY;
        }
        memcpy(names[i], s, len);
    }
    *out = names;
    return PTL_OK;
}

/* Checks the input's indices and the coordinates of the vertices triangles use, and measures
   their bounds (the input's own bmin/bmax are not trusted: a caller may build a ptl_trimesh by
   hand). */
static ptl_status check_input(const ptl_trimesh* in, double bmin[3], double bmax[3], ptl_error* err) {
    if (in->tri_count == 0) return ptl_error_set(err, PTL_ERR_BAD_INPUT, "copies: the mesh has no triangle");
    if (!in->verts || !in->tris) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "copies: the mesh's arrays are NULL");
    for (int c = 0; c < 3; ++c) bmin[c] = INFINITY, bmax[c] = -INFINITY;
    for (uint64_t k = 0; k < (uint64_t)in->tri_count * 3; ++k) {
        uint32_t v = in->tris[k];
        if (v >= in->vert_count)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "copies: triangle %llu names vertex %u of %u",
                                 (unsigned long long)(k / 3), v, in->vert_count);
        for (int c = 0; c < 3; ++c) {
            double x = in->verts[(size_t)v * 3 + c];
            if (!isfinite(x))
                return ptl_error_set(err, PTL_ERR_INVALID_ARG, "copies: vertex %u has a non-finite coordinate", v);
            bmin[c] = fmin(bmin[c], x);
            bmax[c] = fmax(bmax[c], x);
        }
    }
    return PTL_OK;
}

/* The pitch along x (axis 0) and z (axis 2) from the desc and the bounds. */
static ptl_status resolve_pitch(const ptl_copies_desc* d, const double bmin[3], const double bmax[3], double pitch[2],
                                ptl_error* err) {
    if (!isfinite(d->spacing) || d->spacing < 0)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "copies: spacing %g must be a finite number >= 0",
                             (double)d->spacing);
    if (!isfinite(d->gap) || d->gap < 0)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "copies: gap %g must be a finite number >= 0", (double)d->gap);
    if (d->spacing > 0 && d->gap > 0)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG,
                             "copies: give spacing (the pitch) or gap (added to the mesh's extent), not both");
    for (int k = 0; k < 2; ++k) {
        int c = k ? 2 : 0;
        pitch[k] = d->spacing > 0 ? (double)d->spacing : bmax[c] - bmin[c] + (double)d->gap;
        if (d->copies > 1 && !(pitch[k] > 0))
            return ptl_error_set(err, PTL_ERR_BAD_INPUT,
                                 "copies: the mesh has no extent along %c, so its copies would coincide; give a "
                                 "spacing or a gap", k ? 'z' : 'x');
        double far = fmax(fabs(bmin[c]), fabs(bmax[c])) + (double)(d->copies - 1) * pitch[k];
        if (!(far <= 1e30))
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "copies: %u copies %g apart reach beyond float range",
                                 d->copies, pitch[k]);
    }
    return PTL_OK;
}

ptl_status ptl_trimesh_copies(const ptl_trimesh* in, const ptl_copies_desc* desc, ptl_trimesh* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_trimesh_copies: out is NULL");
    if (out == in) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_trimesh_copies: in and out are the same mesh");
    memset(out, 0, sizeof *out);
    out->alloc = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    if (!in) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_trimesh_copies: the input mesh is NULL");
    ptl_copies_desc d;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.copies < 1 || d.copies > COPIES_MAX)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "copies: %u copies per side is outside 1..%u", d.copies,
                             COPIES_MAX);
    double bmin[3], bmax[3], pitch[2];
    ptl_status st = check_input(in, bmin, bmax, err);
    if (st < 0) return st;
    if ((st = resolve_pitch(&d, bmin, bmax, pitch, err)) < 0) return st;

    const uint32_t K = d.copies;
    const uint64_t kk = (uint64_t)K * K, nv1 = in->vert_count, nt1 = in->tri_count;
    if (kk * nv1 > COUNT_MAX || kk * nt1 > COUNT_MAX)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG,
                             "copies: %u x %u copies of %llu vertices and %llu triangles make %llu vertices and %llu "
                             "triangles, more than 2^31 - 1",
                             K, K, (unsigned long long)nv1, (unsigned long long)nt1, (unsigned long long)(kk * nv1),
                             (unsigned long long)(kk * nt1));
    const ptl_allocator* a = &out->alloc;
    const uint32_t nv = (uint32_t)(kk * nv1), nt = (uint32_t)(kk * nt1);
    const uint32_t ntag = in->tag_count ? in->tag_count : 1;
    float* v = ptl_mem_alloc(a, (size_t)nv * 3 * sizeof *v);
    uint32_t* t = ptl_mem_alloc(a, (size_t)nt * 3 * sizeof *t);
    uint16_t* tg = ptl_mem_alloc(a, (size_t)nt * sizeof *tg);
    char** names = NULL;
    if (!v || !t || !tg || copy_names(a, in, ntag, &names) < 0) {
        ptl_mem_free(a, v, (size_t)nv * 3 * sizeof *v);
        ptl_mem_free(a, t, (size_t)nt * 3 * sizeof *t);
        ptl_mem_free(a, tg, (size_t)nt * sizeof *tg);
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "copies: out of memory for %u vertices and %u triangles", nv, nt);
    }
    for (uint32_t j = 0; j < K; ++j)
        for (uint32_t i = 0; i < K; ++i) {
            const uint64_t c = (uint64_t)j * K + i;
            const double dx = (double)i * pitch[0], dz = (double)j * pitch[1];
            float* pv = v + (size_t)(c * nv1 * 3);
            for (uint64_t k = 0; k < nv1; ++k) {
                const float* src = in->verts + k * 3;
                /* unused vertices may hold anything; only used ones were checked to be finite */
                pv[k * 3 + 0] = (float)((double)src[0] + dx);
                pv[k * 3 + 1] = src[1];
                pv[k * 3 + 2] = (float)((double)src[2] + dz);
            }
            uint32_t* pt = t + (size_t)(c * nt1 * 3);
            const uint32_t base = (uint32_t)(c * nv1);
            for (uint64_t k = 0; k < nt1 * 3; ++k) pt[k] = in->tris[k] + base;
            uint16_t* ptg = tg + (size_t)(c * nt1);
            if (in->tri_tag) memcpy(ptg, in->tri_tag, (size_t)nt1 * sizeof *ptg);
            else memset(ptg, 0, (size_t)nt1 * sizeof *ptg);
        }
    /* Bounds of the used vertices, measured on the output (each coordinate rounded once). */
    for (int c = 0; c < 3; ++c) out->bmin[c] = INFINITY, out->bmax[c] = -INFINITY;
    for (uint64_t k = 0; k < (uint64_t)nt * 3; ++k) {
        const float* p = v + (size_t)t[k] * 3;
        for (int c = 0; c < 3; ++c) {
            if (p[c] < out->bmin[c]) out->bmin[c] = p[c];
            if (p[c] > out->bmax[c]) out->bmax[c] = p[c];
        }
    }
    out->vert_count = nv, out->verts = v;
    out->tri_count = nt, out->tris = t, out->tri_tag = tg;
    out->tag_count = ntag, out->tag_names = names;
    return ptl_error_ok(err);
}
