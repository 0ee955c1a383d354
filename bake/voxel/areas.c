/* Areas of the 3D bake (areas.h). Names map the OBJ reader's tags (ptl_trimesh.tag_names) to area
   ids before voxelizing, so the voxelizer's tag rules (voxelize.c: the surface that makes a top
   gives its tag) carry areas instead of raw tags; volumes mark the walkable spans afterwards, as
   Recast's rcMarkConvexPolyArea marks the compact heightfield (Mononen, Recast, RecastArea.cpp):
   the span's column centre in the polygon, its floor in the y range. */
#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "areas.h"

ptl_status ptl_areas_check(const ptl_bake_desc* d, ptl_error* err) {
    if (d->area_name_count && !d->area_names)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: area_names is NULL with area_name_count %u", d->area_name_count);
    for (uint32_t i = 0; i < d->area_name_count; ++i) {
        const ptl_area_name* n = &d->area_names[i];
        if (!n->name || !n->name[0])
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: area name %u is empty", i);
        if (n->area < 1 || n->area > PTL_AREA_MAX)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: area of name '%s' is %u, outside 1..%u", n->name,
                                 n->area, PTL_AREA_MAX);
    }
    if (d->area_volume_count && !d->area_volumes)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: area_volumes is NULL with area_volume_count %u",
                             d->area_volume_count);
    for (uint32_t i = 0; i < d->area_volume_count; ++i) {
        const ptl_area_volume* v = &d->area_volumes[i];
        if (v->area > PTL_AREA_MAX)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: area volume %u has area %u, above %u", i, v->area,
                                 PTL_AREA_MAX);
        if (!v->xz || v->vert_count < 3 || v->vert_count > 256)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: area volume %u needs 3..256 corners, has %u", i,
                                 v->xz ? v->vert_count : 0);
        if (!(v->ymin <= v->ymax))
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: area volume %u has ymin > ymax (or NaN)", i);
        for (uint32_t k = 0; k < 2 * v->vert_count; ++k)
            if (!isfinite(v->xz[k]))
                return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: area volume %u has a non-finite corner", i);
    }
    return PTL_OK;
}

/* The bare name of a tag ("g name", "o name", "usemtl name" -> "name"). */
static const char* bare_name(const char* tag) {
    const char* s = strchr(tag, ' ');
    return s ? s + 1 : tag;
}

ptl_status ptl_areas_of_triangles(const ptl_trimesh* m, const ptl_bake_desc* d, const ptl_allocator* a, uint16_t** out,
                                  ptl_error* err) {
    *out = NULL;
    if (d->area_name_count == 0) return PTL_OK;
    uint8_t* of_tag = ptl_mem_calloc(a, m->tag_count ? m->tag_count : 1, 1);
    uint16_t* area = ptl_mem_alloc(a, (size_t)(m->tri_count ? m->tri_count : 1) * sizeof *area);
    if (!of_tag || !area) {
        ptl_mem_free(a, of_tag, m->tag_count ? m->tag_count : 1);
        ptl_mem_free(a, area, (size_t)(m->tri_count ? m->tri_count : 1) * sizeof *area);
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory (areas of %u triangles)", m->tri_count);
    }
    /* the last entry naming a tag wins, as later volumes do */
    for (uint32_t t = 1; t < m->tag_count && m->tag_names; ++t)
        for (uint32_t i = 0; i < d->area_name_count; ++i)
            if (m->tag_names[t] && strcmp(bare_name(m->tag_names[t]), d->area_names[i].name) == 0)
                of_tag[t] = d->area_names[i].area;
    for (uint32_t i = 0; i < m->tri_count; ++i) {
        const uint32_t t = m->tri_tag ? m->tri_tag[i] : 0;
        area[i] = t < m->tag_count ? of_tag[t] : 0;
    }
    ptl_mem_free(a, of_tag, m->tag_count ? m->tag_count : 1);
    *out = area;
    return PTL_OK;
}

bool ptl_areas_in_convex(const float* xz, uint32_t n, double x, double z) {
    int sign = 0;
    for (uint32_t i = 0, j = n - 1; i < n; j = i++) {
        const double ax = xz[2 * j], az = xz[2 * j + 1], bx = xz[2 * i], bz = xz[2 * i + 1];
        const double c = (bx - ax) * (z - az) - (bz - az) * (x - ax);
        const int s = c > 0 ? 1 : c < 0 ? -1 : 0;
        if (s == 0) continue;
        if (sign == 0) sign = s;
        else if (s != sign) return false;
    }
    return true;
}

bool ptl_areas_col_range(double lo, double hi, double bmin, double cs, int32_t o, int32_t n, int32_t* c0, int32_t* c1) {
    const double a = floor((lo - bmin) / cs - 0.5) - o, b = ceil((hi - bmin) / cs - 0.5) - o;
    if (b < 0 || a >= n) return false;
    *c0 = a < 0 ? 0 : (int32_t)a, *c1 = b >= n ? n - 1 : (int32_t)b;
    return true;
}

void ptl_areas_mark_volumes(ptl_open_field* of) {
    const ptl_vx_params* p = &of->p;
    const uint32_t w = (uint32_t)p->width;
    for (uint32_t k = 0; k < p->volume_count; ++k) {
        const ptl_area_volume* v = &p->volumes[k];
        float lo[2] = {v->xz[0], v->xz[1]}, hi[2] = {v->xz[0], v->xz[1]};
        for (uint32_t i = 1; i < v->vert_count; ++i)
            for (int a = 0; a < 2; ++a) {
                const float c = v->xz[2 * i + a];
                lo[a] = c < lo[a] ? c : lo[a], hi[a] = c > hi[a] ? c : hi[a];
            }
        int32_t x0, x1, z0, z1;
        if (!ptl_areas_col_range(lo[0], hi[0], p->bmin[0], p->cs, p->ox, p->width, &x0, &x1) ||
            !ptl_areas_col_range(lo[1], hi[1], p->bmin[2], p->cs, p->oz, p->depth, &z0, &z1))
            continue;
        for (int32_t cz = z0; cz <= z1; ++cz)
            for (int32_t cx = x0; cx <= x1; ++cx) {
                const uint32_t c = (uint32_t)cz * w + (uint32_t)cx;
                const uint32_t b = ptl_filter_col_begin(of, c), e = ptl_filter_col_end(of, c);
                if (b == e) continue;
                const double x = p->bmin[0] + ((double)(p->ox + cx) + 0.5) * p->cs;
                const double z = p->bmin[2] + ((double)(p->oz + cz) + 0.5) * p->cs;
                if (!ptl_areas_in_convex(v->xz, v->vert_count, x, z)) continue;
                for (uint32_t s = b; s < e; ++s) {
                    const double y = p->bmin[1] + (double)of->spans[s].floor * p->ch;
                    if (y >= v->ymin && y <= v->ymax) of->spans[s].tag = v->area;
                }
            }
    }
}
