/* Deep validation of a navmesh (`portolan info --validate`): every invariant the queries rely on,
   reported as the first violation found. Structural checks (indices, portal symmetry, checksum)
   already ran at load in navmesh.c; this adds the geometry. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "navmesh_internal.h"

#define PTL_TWO_PI 6.283185307179586
#define fail(err, ...) ptl_error_set((err), PTL_ERR_INVALID_MESH, "navmesh: " __VA_ARGS__)

static double vx(const ptl_navmesh* nm, uint32_t v) { return nm->verts[3 * v]; }
static double vz(const ptl_navmesh* nm, uint32_t v) { return nm->verts[3 * v + 2]; }

static double orient(const ptl_navmesh* nm, uint32_t a, uint32_t b, uint32_t c) {
    return (vx(nm, b) - vx(nm, a)) * (vz(nm, c) - vz(nm, a)) - (vz(nm, b) - vz(nm, a)) * (vx(nm, c) - vx(nm, a));
}

double ptl_nm_tolerance(const ptl_navmesh* nm) {
    /* Relative to the world's extent: the blob stores float coordinates. */
    double ext = 1;
    for (int i = 0; i < 3; ++i) ext = fmax(ext, fmax(fabs(nm->h->bmin[i]), fabs(nm->h->bmax[i])));
    return ext * 4e-7;
}

uint32_t ptl_nm_cell_reflex(const ptl_navmesh* nm, uint32_t c, double tol) {
    const double relax = nm->h->relax;
    const ptl_blob_cell* cell = &nm->cells[c];
    const uint32_t* v = nm->cell_verts + cell->first;
    const uint32_t n = cell->vert_count;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t p = v[i == 0 ? n - 1 : i - 1], q = v[i], r = v[i + 1 == n ? 0 : i + 1];
        double o = orient(nm, p, q, r);
        if (o >= 0) continue; /* the usual case, without a square root */
        double len = hypot(vx(nm, r) - vx(nm, p), vz(nm, r) - vz(nm, p));
        if (o >= -tol * (len + 1)) continue;
        double depth = len > 0 ? -o / len : 0;
        if (relax > 0 && depth <= relax + tol) continue;
        return i;
    }
    return PTL_NONE;
}

/* Cells are counter-clockwise with positive area, and convex: every turn is left or straight,
   or, in a relaxed mesh, a right turn whose vertex lies within `relax` of its neighbours' chord. */
static ptl_status check_cells(const ptl_navmesh* nm, double tol, ptl_error* err) {
    for (uint32_t c = 0; c < nm->h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        const uint32_t* v = nm->cell_verts + cell->first;
        uint32_t n = cell->vert_count;
        uint32_t i = ptl_nm_cell_reflex(nm, c, tol);
        if (i != PTL_NONE)
            return fail(err, "cell %u is not convex at its vertex %u (%.9g, %.9g)", c, i, vx(nm, v[i]), vz(nm, v[i]));
        double a2 = 0;
        for (uint32_t k = 0; k < n; ++k) {
            uint32_t q = v[k], r = v[(k + 1) % n];
            a2 += vx(nm, q) * vz(nm, r) - vx(nm, r) * vz(nm, q);
        }
        if (!(a2 > 0)) return fail(err, "cell %u has no positive area (clockwise?) near (%.9g, %.9g)", c, vx(nm, v[0]),
                                   vz(nm, v[0]));
    }
    return PTL_OK;
}

/* Every vertex is an end of some wall edge, or of an edge between cells of two layers (where a
   layer meets another: the only place a vertex may stand away from an obstacle): vertices lie on
   the walkable boundary, which is what makes paths with clearance possible later. */
static ptl_status check_boundary(const ptl_navmesh* nm, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    uint8_t* on = ptl_mem_calloc(&nm->alloc, h->vert_count, 1);
    if (!on) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "validate: out of memory");
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            uint32_t n = nm->cell_nbrs[cell->first + i];
            if (n != PTL_NONE && nm->cells[n].layer == cell->layer) continue;
            on[nm->cell_verts[cell->first + i]] = 1;
            on[nm->cell_verts[cell->first + (i + 1) % cell->vert_count]] = 1;
        }
    }
    ptl_status s = PTL_OK;
    for (uint32_t v = 0; v < h->vert_count && s == PTL_OK; ++v) {
        if (on[v]) continue;
        /* An unused vertex is harmless only if no cell names it. */
        if (nm->vcell_start[v] == nm->vcell_start[v + 1]) continue;
        s = fail(err, "vertex %u is not on the walkable boundary (%.9g, %.9g)", v, vx(nm, v), vz(nm, v));
    }
    ptl_mem_free(&nm->alloc, on, h->vert_count);
    return s;
}

/* Around each vertex the angles of one layer's cells add up to at most a full turn: cells of a layer
   that share a vertex do not fold over each other. Layers may overlap in plan (a floor under a
   bridge; two floors a step apart whose walls were simplified independently), so each layer is
   summed on its own. Link cells span gaps, over whatever lies below (a lower part of a layer,
   even their own), and are left out. */
static ptl_status check_vertex_fans(const ptl_navmesh* nm, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    for (uint32_t v = 0; v < h->vert_count; ++v) {
        uint32_t k0 = nm->vcell_start[v], k1 = nm->vcell_start[v + 1];
        for (uint32_t k = k0; k < k1; ++k) {
            if (ptl_nm_is_link(nm, nm->vcell[k])) continue;
            uint32_t layer = nm->cells[nm->vcell[k]].layer;
            bool first = true; /* sum each layer once, from its first cell in the list */
            for (uint32_t j = k0; j < k && first; ++j)
                first = ptl_nm_is_link(nm, nm->vcell[j]) || nm->cells[nm->vcell[j]].layer != layer;
            if (!first) continue;
            double sum = 0;
            for (uint32_t j = k; j < k1; ++j) {
                const ptl_blob_cell* cell = &nm->cells[nm->vcell[j]];
                if (cell->layer != layer || ptl_nm_is_link(nm, nm->vcell[j])) continue;
                const uint32_t* cv = nm->cell_verts + cell->first;
                uint32_t n = cell->vert_count;
                for (uint32_t i = 0; i < n; ++i) {
                    if (cv[i] != v) continue;
                    uint32_t p = cv[(i + n - 1) % n], r = cv[(i + 1) % n];
                    double ax = vx(nm, r) - vx(nm, v), az = vz(nm, r) - vz(nm, v);
                    double bx = vx(nm, p) - vx(nm, v), bz = vz(nm, p) - vz(nm, v);
                    double ang = atan2(ax * bz - az * bx, ax * bx + az * bz);
                    if (ang < 0) ang += PTL_TWO_PI;
                    sum += ang;
                }
            }
            if (sum > PTL_TWO_PI + 1e-6)
                return fail(err, "cells of layer %u overlap around vertex %u (%.9g, %.9g)", layer, v, vx(nm, v),
                            vz(nm, v));
        }
    }
    return PTL_OK;
}

/* Separating-axis test with tolerance: do the interiors of two convex cells overlap? */
static bool separated_by(const ptl_navmesh* nm, const ptl_blob_cell* a, const ptl_blob_cell* b, double tol) {
    const uint32_t* av = nm->cell_verts + a->first;
    const uint32_t* bv = nm->cell_verts + b->first;
    for (uint32_t i = 0; i < a->vert_count; ++i) {
        uint32_t p = av[i], q = av[(i + 1) % a->vert_count];
        double ex = vx(nm, q) - vx(nm, p), ez = vz(nm, q) - vz(nm, p);
        double len = hypot(ex, ez);
        if (len == 0) continue;
        /* Outward normal of a counter-clockwise edge is (ez, -ex); b must be entirely outside. */
        double minb = DBL_MAX;
        for (uint32_t j = 0; j < b->vert_count; ++j) {
            double d = ((vx(nm, bv[j]) - vx(nm, p)) * ez - (vz(nm, bv[j]) - vz(nm, p)) * ex) / len;
            if (d < minb) minb = d;
        }
        if (minb >= -tol) return true;
    }
    return false;
}

static ptl_status check_overlap(const ptl_navmesh* nm, double tol, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    uint32_t buckets = h->grid_nx * h->grid_nz;
    for (uint32_t g = 0; g < buckets; ++g) {
        for (uint32_t i = nm->grid_offsets[g]; i < nm->grid_offsets[g + 1]; ++i) {
            for (uint32_t j = i + 1; j < nm->grid_offsets[g + 1]; ++j) {
                uint32_t c = nm->grid_items[i], d = nm->grid_items[j];
                const ptl_blob_cell* a = &nm->cells[c];
                const ptl_blob_cell* b = &nm->cells[d];
                if (a->layer != b->layer || ptl_nm_is_link(nm, c) || ptl_nm_is_link(nm, d)) continue;
                if (separated_by(nm, a, b, tol) || separated_by(nm, b, a, tol)) continue;
                const float* p = nm->verts + 3 * nm->cell_verts[a->first];
                return fail(err, "cells %u and %u overlap (near %.9g, %.9g)", c < d ? c : d, c < d ? d : c, p[0], p[2]);
            }
        }
    }
    return PTL_OK;
}

/* Every cell is listed in each bucket its bounds overlap, so point location cannot miss it. */
static ptl_status check_grid(const ptl_navmesh* nm, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        double x0 = DBL_MAX, z0 = DBL_MAX, x1 = -DBL_MAX, z1 = -DBL_MAX;
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            uint32_t v = nm->cell_verts[cell->first + i];
            x0 = fmin(x0, vx(nm, v)), x1 = fmax(x1, vx(nm, v)), z0 = fmin(z0, vz(nm, v)), z1 = fmax(z1, vz(nm, v));
        }
        uint32_t b0 = ptl_nm_bucket(nm, x0, z0), b1 = ptl_nm_bucket(nm, x1, z1);
        for (uint32_t z = b0 / h->grid_nx; z <= b1 / h->grid_nx; ++z) {
            for (uint32_t x = b0 % h->grid_nx; x <= b1 % h->grid_nx; ++x) {
                uint32_t g = z * h->grid_nx + x;
                bool found = false;
                for (uint32_t i = nm->grid_offsets[g]; i < nm->grid_offsets[g + 1] && !found; ++i)
                    found = nm->grid_items[i] == c;
                if (!found) return fail(err, "cell %u is missing from point-location bucket %u (%.9g, %.9g)", c, g, x0, z0);
            }
        }
    }
    return PTL_OK;
}

ptl_status ptl_navmesh_validate(const ptl_navmesh* nm, ptl_error* err) {
    if (!nm) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_navmesh_validate: NULL navmesh");
    if (ptl_blob_checksum(nm->blob, nm->size) != nm->h->checksum)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "navmesh blob: checksum mismatch (corrupted)");
    double tol = ptl_nm_tolerance(nm);
    ptl_status s = check_cells(nm, tol, err);
    if (s >= 0) s = check_boundary(nm, err);
    if (s >= 0) s = check_vertex_fans(nm, err);
    if (s >= 0 && nm->h->relax == 0) s = check_overlap(nm, tol, err);
    if (s >= 0) s = check_grid(nm, err);
    if (s >= 0) ptl_error_ok(err);
    return s;
}
