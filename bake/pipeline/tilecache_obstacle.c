/* Obstacle shapes (obstacle.h). A column is covered when the obstacle's footprint overlaps the
   column's square, which is what Recast's rasterizer does with geometry (a triangle marks every
   column it touches, rcRasterizeTriangles), so a stamped obstacle removes the columns its geometry
   would: the separating-axis test on two convex polygons, or the square's distance to a circle. */
#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "../voxel/areas.h"
#include "tilecache_obstacle.h"

static bool finite_pos(float v) { return isfinite(v) && v > 0; }

static void bounds_of_polygon(ptl_tc_shape* s) {
    s->bmin[0] = s->bmax[0] = s->xz[0];
    s->bmin[1] = s->bmax[1] = s->xz[1];
    for (uint32_t i = 1; i < s->n; ++i) {
        const float x = s->xz[2 * i], z = s->xz[2 * i + 1];
        s->bmin[0] = fminf(s->bmin[0], x), s->bmax[0] = fmaxf(s->bmax[0], x);
        s->bmin[1] = fminf(s->bmin[1], z), s->bmax[1] = fmaxf(s->bmax[1], z);
    }
}

/* Turns the polygon counter-clockwise (positive signed area in x, z) and checks strict convexity. */
static bool orient_convex(ptl_tc_shape* s) {
    double area = 0;
    for (uint32_t i = 0; i < s->n; ++i) {
        const uint32_t j = (i + 1) % s->n;
        area += (double)s->xz[2 * i] * s->xz[2 * j + 1] - (double)s->xz[2 * j] * s->xz[2 * i + 1];
    }
    if (!(fabs(area) > 0)) return false;
    if (area < 0)
        for (uint32_t i = 0, j = s->n - 1; i < j; ++i, --j)
            for (int k = 0; k < 2; ++k) {
                const float t = s->xz[2 * i + k];
                s->xz[2 * i + k] = s->xz[2 * j + k], s->xz[2 * j + k] = t;
            }
    for (uint32_t i = 0; i < s->n; ++i) {
        const uint32_t j = (i + 1) % s->n, k = (i + 2) % s->n;
        const double ax = (double)s->xz[2 * j] - s->xz[2 * i], az = (double)s->xz[2 * j + 1] - s->xz[2 * i + 1];
        const double bx = (double)s->xz[2 * k] - s->xz[2 * j], bz = (double)s->xz[2 * k + 1] - s->xz[2 * j + 1];
        if (!(ax * bz - az * bx > 0)) return false;
    }
    return true;
}

ptl_status ptl_tc_shape_of(const ptl_obstacle_desc* o, ptl_tc_shape* s, ptl_error* err) {
    memset(s, 0, sizeof *s);
    if (!o) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: NULL desc");
    for (int k = 0; k < 3; ++k)
        if (!isfinite(o->pos[k]) || !isfinite(o->size[k]))
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: non-finite position or size");
    if (!isfinite(o->yaw)) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: non-finite yaw");
    switch (o->kind) {
    case PTL_OBSTACLE_CYLINDER:
        if (!finite_pos(o->size[0]) || !finite_pos(o->size[1]))
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: a cylinder needs radius and height > 0");
        s->cx = o->pos[0], s->cz = o->pos[2], s->r = o->size[0];
        s->ymin = o->pos[1], s->ymax = o->pos[1] + o->size[1];
        s->bmin[0] = s->cx - s->r, s->bmax[0] = s->cx + s->r;
        s->bmin[1] = s->cz - s->r, s->bmax[1] = s->cz + s->r;
        break;
    case PTL_OBSTACLE_BOX: {
        if (!finite_pos(o->size[0]) || !finite_pos(o->size[1]) || !finite_pos(o->size[2]))
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: a box needs half extents > 0");
        const float c = cosf(o->yaw), sn = sinf(o->yaw);
        const float corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        s->n = 4;
        for (int i = 0; i < 4; ++i) { /* a turn by yaw about +y: x' = x cos + z sin, z' = -x sin + z cos */
            const float lx = corner[i][0] * o->size[0], lz = corner[i][1] * o->size[2];
            s->xz[2 * i] = o->pos[0] + lx * c + lz * sn;
            s->xz[2 * i + 1] = o->pos[2] - lx * sn + lz * c;
        }
        s->ymin = o->pos[1] - o->size[1], s->ymax = o->pos[1] + o->size[1];
        if (!orient_convex(s)) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: degenerate box");
        bounds_of_polygon(s);
        break;
    }
    case PTL_OBSTACLE_PRISM:
        if (!o->xz || o->vert_count < 3 || o->vert_count > PTL_OBSTACLE_MAX_VERTS)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: a prism needs 3..%u corners", PTL_OBSTACLE_MAX_VERTS);
        if (!finite_pos(o->size[1])) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: a prism needs a height > 0");
        s->n = o->vert_count;
        for (uint32_t i = 0; i < 2 * s->n; ++i) {
            if (!isfinite(o->xz[i])) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: non-finite prism corner");
            s->xz[i] = o->xz[i];
        }
        if (!orient_convex(s)) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: the prism's polygon is not strictly convex");
        s->ymin = o->pos[1], s->ymax = o->pos[1] + o->size[1];
        bounds_of_polygon(s);
        break;
    default:
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: unknown kind %d", (int)o->kind);
    }
    s->area = -1;
    if (o->marks_area) {
        if (o->area > PTL_AREA_MAX)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: area %u is over %u", (unsigned)o->area, PTL_AREA_MAX);
        s->area = (int16_t)o->area;
    }
    if (!isfinite(s->ymax) || !isfinite(s->bmin[0]) || !isfinite(s->bmax[0]) || !isfinite(s->bmin[1]) || !isfinite(s->bmax[1]))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "obstacle: too large");
    return PTL_OK;
}

bool ptl_tc_shape_covers(const ptl_tc_shape* s, float x0, float z0, float x1, float z1, float grow) {
    if (s->n == 0) {
        const float dx = fmaxf(fmaxf(x0 - s->cx, s->cx - x1), 0), dz = fmaxf(fmaxf(z0 - s->cz, s->cz - z1), 0);
        const float r = s->r + grow;
        return dx * dx + dz * dz < r * r;
    }
    x0 -= grow, z0 -= grow, x1 += grow, z1 += grow; /* the square grown (its corners too: conservative) */
    if (s->bmax[0] <= x0 || s->bmin[0] >= x1 || s->bmax[1] <= z0 || s->bmin[1] >= z1) return false;
    for (uint32_t i = 0; i < s->n; ++i) { /* the polygon's edges as separating axes */
        const uint32_t j = (i + 1) % s->n;
        /* outward normal of a counter-clockwise edge (positive area in x, z) */
        const float nx = s->xz[2 * j + 1] - s->xz[2 * i + 1], nz = -(s->xz[2 * j] - s->xz[2 * i]);
        const float edge = nx * s->xz[2 * i] + nz * s->xz[2 * i + 1];
        const float sq = fminf(nx * x0, nx * x1) + fminf(nz * z0, nz * z1);
        if (sq >= edge) return false;
    }
    return true;
}

bool ptl_tc_shape_contains(const ptl_tc_shape* s, double x, double z) {
    if (s->n == 0) {
        const double dx = x - s->cx, dz = z - s->cz;
        return dx * dx + dz * dz <= (double)s->r * s->r;
    }
    return ptl_areas_in_convex(s->xz, s->n, x, z);
}
