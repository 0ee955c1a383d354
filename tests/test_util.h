/* Helpers shared by the tests: where the shared data is, independent geometric checks on grids.
   Everything here is written from the definitions (DESIGN.md conventions), not from the library's
   own code, so a test compares two independent answers. */
#ifndef PTL_TEST_UTIL_H
#define PTL_TEST_UTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <portolan/bake.h>
#include <portolan/gen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ../shared/data relative to the project root (the tests run from there), or $PTL_DATA. */
static inline const char* test_data_dir(void) {
    const char* env = getenv("PTL_DATA");
    const char* dir = env && *env ? env : "../shared/data";
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

/* Skips the current test, loudly, when the shared data is absent. */
#define TEST_REQUIRE_DATA(dir)                                                                          \
    const char* dir = test_data_dir();                                                                  \
    do {                                                                                                \
        if (!dir) {                                                                                     \
            fprintf(stderr, "SKIPPED %s: ../shared/data is absent (set PTL_DATA to its location)\n",    \
                    __func__);                                                                          \
            cr_skip_test("shared data absent: ../shared/data (or $PTL_DATA) not found");                \
        }                                                                                               \
    } while (0)

/* Files of `dir` ending in `ext`, sorted, as a NULL-terminated array of malloc'd full paths. */
/* Shared mesh DATA/meshes/NAME.obj baked at the default parameters but agent radius `radius` (0.6:
   Recast's reference bake, the one Detour's query inputs were drawn on) and loaded: the navmesh
   reads *blob, so destroy it before ptl_blob_free(*blob, *size, NULL). */
static inline ptl_navmesh* test_bake_shared_mesh(const char* data, const char* name, float radius, void** blob,
                                                 size_t* size) {
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/%s.obj", data, name);
    ptl_trimesh tm;
    ptl_error err;
    cr_assert_eq(ptl_obj_load(path, NULL, &tm, &err), PTL_OK, "%s", err.message);
    ptl_bake_desc bd = ptl_bake_desc_defaults();
    bd.agent_radius = radius;
    cr_assert_eq(ptl_bake_trimesh(&tm, &bd, blob, size, NULL, &err), PTL_OK, "%s: %s", name, err.message);
    ptl_trimesh_free(&tm);
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(*blob, *size, NULL, &nm, &err), PTL_OK, "%s: %s", name, err.message);
    return nm;
}

static inline int test_cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }
static inline char** test_list_files(const char* dir, const char* ext) {
    DIR* d = opendir(dir);
    size_t n = 0, cap = 16;
    char** out = calloc(cap, sizeof(char*));
    if (!d) return out;
    struct dirent* e;
    size_t el = strlen(ext);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= el || strcmp(e->d_name + l - el, ext) != 0) continue;
        if (n + 2 > cap) out = realloc(out, (cap *= 2) * sizeof(char*));
        size_t pl = strlen(dir) + l + 2;
        out[n] = malloc(pl);
        snprintf(out[n], pl, "%s/%s", dir, e->d_name);
        out[++n] = NULL;
    }
    closedir(d);
    qsort(out, n, sizeof(char*), test_cmp_str);
    return out;
}
static inline void test_free_list(char** l) {
    for (char** p = l; p && *p; ++p) free(*p);
    free(l);
}

/* All .map files of the shared data: every grids/ folder and polyanya/gridmaps. */
static inline char** test_all_maps(const char* data) {
    static const char* const dirs[] = {"grids/bg512", "grids/dao", "grids/gppc2023", "grids/random512", "grids/room512",
                                       "grids/sc1", "grids/wc3_512", "polyanya/gridmaps"};
    size_t n = 0;
    char** all = calloc(1, sizeof(char*));
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", data, dirs[i]);
        char** l = test_list_files(path, ".map");
        for (char** p = l; *p; ++p) {
            all = realloc(all, (n + 2) * sizeof(char*));
            all[n++] = *p;
            all[n] = NULL;
        }
        free(l);
    }
    return all;
}

/* ---- grid reference checks ---------------------------------------------------------------------*/

static inline int test_free(const ptl_grid* g, long x, long y) {
    return x >= 0 && y >= 0 && x < (long)g->width && y < (long)g->height && g->passable[(size_t)y * g->width + x];
}

/* 4-connected components of free cells (free space interiors connect exactly through shared cell
   sides; corner contacts never connect, by the no-squeezing rule). label[] = -1 for blocked. */
static inline int* test_components(const ptl_grid* g) {
    size_t n = (size_t)g->width * g->height;
    int* label = malloc(n * sizeof(int));
    size_t* stack = malloc(n * sizeof(size_t));
    for (size_t i = 0; i < n; ++i) label[i] = -1;
    int comp = 0;
    for (size_t s = 0; s < n; ++s) {
        if (!g->passable[s] || label[s] >= 0) continue;
        size_t top = 0;
        stack[top++] = s;
        label[s] = comp;
        while (top) {
            size_t c = stack[--top];
            long x = (long)(c % g->width), y = (long)(c / g->width);
            const long nb[4][2] = {{x + 1, y}, {x - 1, y}, {x, y + 1}, {x, y - 1}};
            for (int k = 0; k < 4; ++k) {
                if (!test_free(g, nb[k][0], nb[k][1])) continue;
                size_t i = (size_t)nb[k][1] * g->width + (size_t)nb[k][0];
                if (label[i] < 0) label[i] = comp, stack[top++] = i;
            }
        }
        ++comp;
    }
    free(stack);
    return label;
}

/* Does the segment a-b stay in the free space of the grid (closed free cells, no crossing between
   blocked cells, no squeezing through a pinch where two blocked cells touch at a corner)?
   The segment is cut where it meets grid lines; each open piece must lie in a free cell's interior
   or on a grid line with a free cell on one side; each lattice point it passes diagonally must not
   be a pinch it crosses. Exact for lattice endpoints up to IEEE rounding of the crossings. */
static inline int test_segment_free(const ptl_grid* g, double ax, double ay, double bx, double by) {
    double dx = bx - ax, dy = by - ay;
    double ts[8192];
    int nt = 0;
    ts[nt++] = 0;
    ts[nt++] = 1;
    if (dx != 0) {
        long lo = (long)ceil(fmin(ax, bx)), hi = (long)floor(fmax(ax, bx));
        for (long x = lo; x <= hi && nt < 8190; ++x) ts[nt++] = ((double)x - ax) / dx;
    }
    if (dy != 0) {
        long lo = (long)ceil(fmin(ay, by)), hi = (long)floor(fmax(ay, by));
        for (long y = lo; y <= hi && nt < 8190; ++y) ts[nt++] = ((double)y - ay) / dy;
    }
    /* insertion sort: few crossings per segment on these maps */
    for (int i = 1; i < nt; ++i) {
        double t = ts[i];
        int j = i;
        while (j > 0 && ts[j - 1] > t) ts[j] = ts[j - 1], --j;
        ts[j] = t;
    }
    const double eps = 1e-9;
    for (int i = 0; i + 1 < nt; ++i) {
        double t0 = ts[i], t1 = ts[i + 1];
        if (t1 - t0 < 1e-12) continue;
        double tm = 0.5 * (t0 + t1);
        double mx = ax + dx * tm, my = ay + dy * tm;
        double rx = floor(mx + 0.5), ry = floor(my + 0.5);
        int on_v = fabs(mx - rx) < eps, on_h = fabs(my - ry) < eps;
        long cx = (long)floor(mx), cy = (long)floor(my);
        if (on_v && on_h) return 0; /* cannot happen for a piece of positive length */
        if (on_v) {
            if (!test_free(g, (long)rx - 1, cy) && !test_free(g, (long)rx, cy)) return 0;
        } else if (on_h) {
            if (!test_free(g, cx, (long)ry - 1) && !test_free(g, cx, (long)ry)) return 0;
        } else if (!test_free(g, cx, cy)) {
            return 0;
        }
    }
    /* Pinches crossed diagonally at interior lattice points. */
    if (dx != 0 && dy != 0) {
        for (int i = 0; i < nt; ++i) {
            double t = ts[i];
            if (t <= 1e-12 || t >= 1 - 1e-12) continue;
            double px = ax + dx * t, py = ay + dy * t;
            double rx = floor(px + 0.5), ry = floor(py + 0.5);
            if (fabs(px - rx) > eps || fabs(py - ry) > eps) continue;
            long x = (long)rx, y = (long)ry;
            long bxc = dx > 0 ? x - 1 : x, byc = dy > 0 ? y - 1 : y; /* cell before */
            long axc = dx > 0 ? x : x - 1, ayc = dy > 0 ? y : y - 1; /* cell after */
            if (!test_free(g, bxc, ayc) && !test_free(g, axc, byc)) return 0;
        }
    }
    return 1;
}


/* Distance from p to the closest point of triangle abc in 3D: the projection into its plane when
   that falls inside, else the closest point of its three edges (from the definition). */
static inline double test_point_segment_dist(const double* p, const float* a, const float* b) {
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    double t = l2 > 0 ? (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double d[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}
static inline double test_point_triangle_dist(const double* p, const float* a, const float* b, const float* c) {
    double e0[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e1[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]};
    double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (nl > 1e-12) {
        double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
        double h = (ap[0] * n[0] + ap[1] * n[1] + ap[2] * n[2]) / nl;
        double q[3] = {p[0] - h * n[0] / nl, p[1] - h * n[1] / nl, p[2] - h * n[2] / nl};
        const float* v[3] = {a, b, c};
        bool inside = true; /* q on the inner side of the three edges */
        for (int k = 0; k < 3 && inside; ++k) {
            const float *u = v[k], *w = v[(k + 1) % 3];
            double ed[3] = {w[0] - u[0], w[1] - u[1], w[2] - u[2]}, uq[3] = {q[0] - u[0], q[1] - u[1], q[2] - u[2]};
            double cr[3] = {ed[1] * uq[2] - ed[2] * uq[1], ed[2] * uq[0] - ed[0] * uq[2], ed[0] * uq[1] - ed[1] * uq[0]};
            inside = cr[0] * n[0] + cr[1] * n[1] + cr[2] * n[2] >= 0;
        }
        if (inside) return fabs(h);
    }
    return fmin(test_point_segment_dist(p, a, b), fmin(test_point_segment_dist(p, b, c), test_point_segment_dist(p, c, a)));
}

/* The height at (x, z) of the first triangle of m holding it in plan (barycentric); false when none does. */
static inline bool test_triangle_height(const ptl_trimesh* m, double x, double z, double* y) {
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        const float* a = &m->verts[3 * (size_t)m->tris[3 * t]];
        const float* b = &m->verts[3 * (size_t)m->tris[3 * t + 1]];
        const float* c = &m->verts[3 * (size_t)m->tris[3 * t + 2]];
        double d = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
        if (fabs(d) < 1e-12) continue;
        double u = ((x - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (z - a[2])) / d;
        double v = ((b[0] - a[0]) * (z - a[2]) - (x - a[0]) * (b[2] - a[2])) / d;
        if (u < 0 || v < 0 || u + v > 1) continue;
        *y = a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1]);
        return true;
    }
    return false;
}

#endif
