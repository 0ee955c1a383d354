/* Bake parameters in voxel units: a ptl_bake_desc resolved against a mesh's bounds (vx_params.h).

   The conversions are Recast's (rcConfig), computed in float exactly as Recast's users do, so a
   Portolan grid and a Recast grid built from the same numbers have the same voxel parameters:
   heights round up (an agent must fit), climbs round down (never climb more than asked), the
   erosion radius rounds up. */
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../../runtime/internal.h"
#include "vx_params.h"

/* Grids larger than this many columns are refused: the per-column arrays alone would take GBs. */
#define MAX_COLUMNS (1u << 28)

/* The spacing between consecutive floats around |v|: the precision of a coordinate there. */
static double float_spacing(float v) {
    float a = fabsf(v);
    return (double)nextafterf(a, INFINITY) - (double)a;
}

/* Bounds over the vertices that triangles use (ptl_trimesh's definition; a stray unused vertex must
   not stretch the grid), computed here rather than read from bmin/bmax: a hand-built mesh need not
   fill them. Recast takes every vertex; on the shared meshes it is the same. */
#if defined(__SSE2__)
/* mesh_bounds' scan with the three coordinates of a vertex in one SSE2 register (x86-64 always has
   it): minps / maxps take the same values in the same order as the scalar selects (the new value
   when it is less, else the old one: the same zero sign too), and the finiteness of every
   coordinate is or-ed into a mask tested once. False when an index or a coordinate is bad: the
   scalar scan then finds the first one and says which. */
static bool mesh_bounds_sse(const ptl_trimesh* m, float bmin[3], float bmax[3]) {
    __m128 lo = _mm_set1_ps(INFINITY), hi = _mm_set1_ps(-INFINITY), bad = _mm_setzero_ps();
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), inf = _mm_set1_ps(INFINITY);
    uint32_t out_of_range = 0;
    for (size_t i = 0; i < 3 * (size_t)m->tri_count; ++i) {
        const uint32_t v = m->tris[i];
        out_of_range |= v >= m->vert_count;
        if (v >= m->vert_count) break;
        const float* p = m->verts + 3 * (size_t)v;
        /* x, y from one 8-byte load, z from a 4-byte one: nothing past the vertex is read */
        double xy;
        memcpy(&xy, p, sizeof xy);
        const __m128 c = _mm_movelh_ps(_mm_castpd_ps(_mm_set_sd(xy)), _mm_load_ss(p + 2));
        bad = _mm_or_ps(bad, _mm_cmpnlt_ps(_mm_and_ps(c, abs_mask), inf)); /* |c| >= inf, or NaN */
        lo = _mm_min_ps(c, lo), hi = _mm_max_ps(c, hi);
    }
    if (out_of_range || (_mm_movemask_ps(bad) & 7)) return false;
    float l[4], h[4];
    _mm_storeu_ps(l, lo), _mm_storeu_ps(h, hi);
    for (int k = 0; k < 3; ++k) bmin[k] = l[k], bmax[k] = h[k];
    return true;
}
#endif

static ptl_status mesh_bounds(const ptl_trimesh* m, float bmin[3], float bmax[3], ptl_error* err) {
    if (m->tri_count == 0) return ptl_error_set(err, PTL_ERR_BAD_INPUT, "voxelize: the mesh has no triangle");
    if (m->vert_count == 0 || !m->verts || !m->tris)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "voxelize: the mesh has triangles but no vertices");
#if defined(__SSE2__)
    if (mesh_bounds_sse(m, bmin, bmax)) return PTL_OK; /* else the scan below names the bad input */
#endif
    for (int k = 0; k < 3; ++k) bmin[k] = INFINITY, bmax[k] = -INFINITY;
    for (size_t i = 0; i < 3 * (size_t)m->tri_count; ++i) {
        uint32_t v = m->tris[i];
        if (v >= m->vert_count)
            return ptl_error_set(err, PTL_ERR_BAD_INPUT, "voxelize: triangle %zu refers to vertex %u of %u", i / 3, v,
                                 m->vert_count);
        for (int k = 0; k < 3; ++k) {
            float c = m->verts[3 * (size_t)v + k];
            if (!isfinite(c))
                return ptl_error_set(err, PTL_ERR_BAD_INPUT, "voxelize: vertex %u has a non-finite coordinate", v);
            /* selects, not branches (minss / maxss): the same values, and no misprediction per
               coordinate of an unsorted mesh (c is finite here) */
            bmin[k] = c < bmin[k] ? c : bmin[k];
            bmax[k] = c > bmax[k] ? c : bmax[k];
        }
    }
    return PTL_OK;
}

/* Refuses parameters that resolving would otherwise turn silently into defaults. */
static ptl_status check_desc(const ptl_bake_desc* d, ptl_error* err) {
    if (!d) return PTL_OK;
    const struct { float v; const char* name; } f[] = {
        {d->cell_size, "cell_size"},     {d->cell_height, "cell_height"}, {d->agent_height, "agent_height"},
        {d->agent_radius, "agent_radius"}, {d->max_climb, "max_climb"}, {d->max_slope, "max_slope"}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i)
        if (!isfinite(f[i].v) || f[i].v < 0)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: %s must be finite and >= 0 (0: default), got %g",
                                 f[i].name, (double)f[i].v);
    if (d->max_slope > 90)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: max_slope must be in 0..90 degrees, got %g",
                             (double)d->max_slope);
    return PTL_OK;
}

ptl_status ptl_vx_params_resolve(const ptl_bake_desc* desc, const ptl_trimesh* m, ptl_vx_params* out, ptl_error* err) {
    if (!m || !out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_vx_params_resolve: NULL argument");
    memset(out, 0, sizeof *out);
    ptl_status st = check_desc(desc, err);
    if (st < 0) return st;
    ptl_bake_desc d;
    ptl_bake_desc_resolve(desc, &d);
    float lo[3], hi[3];
    st = mesh_bounds(m, lo, hi, err);
    if (st < 0) return st;

    /* The grid is relative to bmin, so large offsets are fine as long as floats can still tell
       apart points a quarter of a voxel apart there; beyond, the voxels would be noise. */
    static const char axis[3] = {'x', 'y', 'z'};
    for (int k = 0; k < 3; ++k) {
        float big = fmaxf(fabsf(lo[k]), fabsf(hi[k]));
        double spacing = float_spacing(big), voxel = k == 1 ? d.cell_height : d.cell_size;
        if (spacing > voxel / 4)
            return ptl_error_set(err, PTL_ERR_BAD_INPUT,
                                 "voxelize: %c coordinates reach %g where floats are %g apart, more than a quarter of "
                                 "the %s (%g): move the mesh nearer the origin or use larger voxels",
                                 axis[k], (double)big, spacing, k == 1 ? "cell height" : "cell size", voxel);
    }

    /* Columns: width = ceil(extent / cs), computed with the same double arithmetic as the
       rasterizer's vertex conversion, so a vertex exactly on bmax lands on the grid's last line
       (and is rasterized into the last column, the closed square's edge), never beyond. No
       padding: a floor of exactly 10 cells gives exactly 10 columns, as in Recast. (Recast rounds
       the extent to the nearest column instead, which cuts off up to half a column of geometry
       on the far sides: bridge.obj's 16.14 columns are 16 there, 17 here.) */
    double cs = d.cell_size, ch = d.cell_height;
    double wx = ((double)hi[0] - lo[0]) / cs, wz = ((double)hi[2] - lo[2]) / cs, hy = ((double)hi[1] - lo[1]) / ch;
    double width = fmax(1, ceil(wx)), depth = fmax(1, ceil(wz));
    /* Heights: a span's top is ceil(y / ch) and at least its bottom + 1, so the highest vertex
       makes tops up to floor(hy) + 1; one more keeps PTL_VX_MAX_HEIGHT free as "open sky". */
    double heights = floor(hy) + 1;
    if (width * depth > (double)MAX_COLUMNS)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT,
                             "voxelize: the grid would have %.0f x %.0f = %.3g columns, more than 2^28: use a larger "
                             "cell size (now %g) or bake in tiles",
                             width, depth, width * depth, cs);
    if (heights >= PTL_VX_MAX_HEIGHT)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT,
                             "voxelize: the mesh is %g high, %.0f cell heights, more than %u: use a larger cell height "
                             "(now %g) or bake in tiles",
                             (double)hi[1] - lo[1], heights, PTL_VX_MAX_HEIGHT - 1u, ch);

    out->cs = d.cell_size;
    out->ch = d.cell_height;
    out->width = (int32_t)width;
    out->depth = (int32_t)depth;
    out->heights = (int32_t)heights;
    out->border = 0;
    out->ox = out->oz = 0;
    out->world_width = out->width, out->world_depth = out->depth;
    for (int k = 0; k < 3; ++k) out->bmin[k] = lo[k];
    out->bmax[0] = (float)((double)lo[0] + width * cs);
    out->bmax[1] = (float)((double)lo[1] + heights * ch);
    out->bmax[2] = (float)((double)lo[2] + depth * cs);

    /* Recast's conversions, in float (see the top of the file). */
    float wh = ceilf(d.agent_height / d.cell_height), wc = floorf(d.max_climb / d.cell_height);
    float wr = ceilf(d.agent_radius / d.cell_size);
    if (wh > 60000 || wc > 60000)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG,
                             "bake: agent_height (%g) and max_climb (%g) must be below 60000 cell heights",
                             (double)d.agent_height, (double)d.max_climb);
    if (wr > 30000)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: agent_radius (%g) must be below 30000 cells",
                             (double)d.agent_radius);
    out->walkable_height = wh < 1 ? 1 : (int32_t)wh;
    out->walkable_climb = (int32_t)wc;
    out->walkable_radius = (int32_t)wr;
    out->min_island = d.min_island > 0 ? d.min_island : 0;
    /* Whole columns of void a link may cross; a few at most (the scan in filter.c is linear in it). */
    double void_cols = d.max_gap > 0 ? floor((double)d.max_gap / d.cell_size + 1e-4) : 0;
    out->max_void = void_cols > 8 ? 8 : (int32_t)void_cols;
    out->walkable_slope_cos = cosf(d.max_slope / 180.0f * 3.14159265358979f);
    out->volumes = d.area_volume_count ? d.area_volumes : NULL;
    out->volume_count = d.area_volumes ? d.area_volume_count : 0;
    out->has_areas = d.area_name_count > 0 || out->volume_count > 0;
    return ptl_error_ok(err);
}
