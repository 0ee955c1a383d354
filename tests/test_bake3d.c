/* The 3D bake against Recast/Detour on the shared meshes, at Recast's reference parameters (cell 0.3,
   cell height 0.2, agent height 2.0, radius 0.6, climb 0.9, slope 45): every mesh bakes and
   validates, the walkable area stays within 3% of Recast's, connectivity agrees with Detour on
   1000 random pairs per mesh, paths are no longer than Detour's, paths over stairs stay on the
   surface and out of walls, and bridges are layers of their own joined only where one can walk.

   Detour's answers come from tests/data/detour (made by `portolan-bench reference`; its README says
   how): these tests never link Recast. The meshes come from ../shared/data; without it the tests
   skip loudly. Every geometric check here works on the input triangles directly (ray casts,
   segment-triangle tests written from the definitions), not through the library's own code. */
#include "test_util.h"

#include <float.h>

/* ---- Files -------------------------------------------------------------------------------------*/

/* tests/data/detour from the working directory (the project root, or a build folder below it). */
static const char* detour_dir(void) {
    static const char* const cands[] = {"tests/data/detour", "../tests/data/detour", "../../tests/data/detour"};
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; ++i) {
        struct stat st;
        if (stat(cands[i], &st) == 0 && S_ISDIR(st.st_mode)) return cands[i];
    }
    return NULL;
}

#define REQUIRE_DETOUR(var)                                                                             \
    const char* var = detour_dir();                                                                     \
    cr_assert_not_null(var, "tests/data/detour is missing (part of the repository; regenerate it with " \
                            "`portolan-bench reference`)")

static const char* const MESHES[] = {"bridge", "convex", "dungeon", "go-detour-cube45xdeg", "go-detour-develer",
                                     "go-detour-hill", "go-detour-stair2", "go-detour-stair3", "go-detour-twisted",
                                     "house", "nav_test", "three-pathfinding-level", "undulating"};
enum { NMESH = sizeof MESHES / sizeof MESHES[0] };

static void reference_desc(ptl_bake_desc* d) {
    memset(d, 0, sizeof *d);
    d->cell_size = 0.3f, d->cell_height = 0.2f, d->agent_height = 2.0f, d->agent_radius = 0.6f;
    d->max_climb = 0.9f, d->max_slope = 45.0f;
}

static void load_mesh(const char* data, const char* name, ptl_trimesh* m) {
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/%s.obj", data, name);
    ptl_error err;
    cr_assert_eq(ptl_obj_load(path, NULL, m, &err), PTL_OK, "%s: %s", path, err.message);
}

static ptl_navmesh* bake(const ptl_trimesh* m, const ptl_bake_desc* d, const char* name) {
    void* blob = NULL;
    size_t size = 0;
    ptl_error err;
    ptl_status st = ptl_bake_trimesh(m, d, &blob, &size, NULL, &err);
    cr_assert_geq(st, 0, "%s: bake failed: %s", name, err.message);
    ptl_navmesh* nm = NULL;
    st = ptl_navmesh_create(blob, size, NULL, &nm, &err);
    ptl_blob_free(blob, size, NULL);
    cr_assert_eq(st, PTL_OK, "%s: the baked blob does not load: %s", name, err.message);
    return nm;
}

/* areas.csv: mesh,recast_area,polygons,walkable_spans,triangles */
typedef struct recast_row {
    char mesh[64];
    double area;
    uint32_t polygons, spans, triangles;
} recast_row;

static bool recast_row_of(const char* dir, const char* mesh, recast_row* out) {
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/areas.csv", dir);
    FILE* f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        recast_row r;
        if (sscanf(line, "%63[^,],%lf,%u,%u,%u", r.mesh, &r.area, &r.polygons, &r.spans, &r.triangles) == 5 &&
            !strcmp(r.mesh, mesh))
            *out = r, found = true;
    }
    fclose(f);
    return found;
}

/* <mesh>.csv: sx,sy,sz,ex,ey,ez,complete,length,plan_length (length over Detour's straight path
   corners in 3D, plan_length the same polyline measured in x-z). */
typedef struct detour_pair {
    float s[3], e[3];
    bool complete;
    double length, plan_length;
} detour_pair;

static detour_pair* read_pairs(const char* dir, const char* mesh, uint32_t* n) {
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/%s.csv", dir, mesh);
    FILE* f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    cr_assert_not_null(fgets(line, sizeof line, f), "%s is empty", path);
    static const char header[] = "sx,sy,sz,ex,ey,ez,complete,length,plan_length";
    cr_assert_eq(strncmp(line, header, sizeof header - 1), 0, "%s: unexpected header %s", path, line);
    uint32_t cap = 1024, count = 0;
    detour_pair* p = malloc(cap * sizeof *p);
    while (fgets(line, sizeof line, f)) {
        if (count == cap) p = realloc(p, (cap *= 2) * sizeof *p);
        detour_pair* q = &p[count];
        int c;
        cr_assert_eq(sscanf(line, "%f,%f,%f,%f,%f,%f,%d,%lf,%lf", &q->s[0], &q->s[1], &q->s[2], &q->e[0], &q->e[1],
                            &q->e[2], &c, &q->length, &q->plan_length),
                     9, "%s:%u: malformed row", path, count + 2);
        q->complete = c != 0;
        ++count;
    }
    fclose(f);
    *n = count;
    return p;
}

/* ---- Geometry of the input triangles -------------------------------------------------------------
   A bucket grid over x-z (1 m buckets) so that ray casts and segment tests visit only nearby
   triangles; a stamp per triangle keeps a triangle spanning several buckets from being tested twice. */
typedef struct geo {
    const ptl_trimesh* m;
    double x0, z0, cell;
    int w, h;
    uint32_t* start; /* w*h + 1 */
    uint32_t* items;
    uint32_t* stamp;
    uint32_t now;
} geo;

static void geo_bounds(const geo* g, const float* a, const float* b, const float* c, int* i0, int* j0, int* i1,
                       int* j1) {
    double xmin = fmin(a[0], fmin(b[0], c[0])), xmax = fmax(a[0], fmax(b[0], c[0]));
    double zmin = fmin(a[2], fmin(b[2], c[2])), zmax = fmax(a[2], fmax(b[2], c[2]));
    *i0 = (int)floor((xmin - g->x0) / g->cell), *i1 = (int)floor((xmax - g->x0) / g->cell);
    *j0 = (int)floor((zmin - g->z0) / g->cell), *j1 = (int)floor((zmax - g->z0) / g->cell);
    *i0 = *i0 < 0 ? 0 : *i0, *j0 = *j0 < 0 ? 0 : *j0;
    *i1 = *i1 >= g->w ? g->w - 1 : *i1, *j1 = *j1 >= g->h ? g->h - 1 : *j1;
}

static const float* tv(const ptl_trimesh* m, uint32_t t, int k) { return m->verts + 3 * m->tris[3 * t + k]; }

static void geo_build(geo* g, const ptl_trimesh* m) {
    memset(g, 0, sizeof *g);
    g->m = m;
    g->cell = 1.0;
    g->x0 = m->bmin[0] - 1, g->z0 = m->bmin[2] - 1;
    g->w = (int)ceil((m->bmax[0] - g->x0 + 1) / g->cell) + 1;
    g->h = (int)ceil((m->bmax[2] - g->z0 + 1) / g->cell) + 1;
    size_t nb = (size_t)g->w * g->h;
    g->start = calloc(nb + 1, sizeof(uint32_t));
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t t = 0; t < m->tri_count; ++t) {
            int i0, j0, i1, j1;
            geo_bounds(g, tv(m, t, 0), tv(m, t, 1), tv(m, t, 2), &i0, &j0, &i1, &j1);
            for (int j = j0; j <= j1; ++j)
                for (int i = i0; i <= i1; ++i) {
                    size_t b = (size_t)j * g->w + i;
                    if (pass == 0) ++g->start[b + 1];
                    else g->items[g->start[b]++] = t;
                }
        }
        if (pass == 0) {
            for (size_t b = 0; b < nb; ++b) g->start[b + 1] += g->start[b];
            g->items = malloc(((size_t)g->start[nb] + 1) * sizeof(uint32_t));
        } else {
            for (size_t b = nb; b > 0; --b) g->start[b] = g->start[b - 1];
            g->start[0] = 0;
        }
    }
    g->stamp = calloc((size_t)m->tri_count + 1, sizeof(uint32_t));
}

static void geo_free(geo* g) {
    free(g->start);
    free(g->items);
    free(g->stamp);
}

/* The height of triangle t above (x, z), when (x, z) lies in its plan projection (edges included). */
static bool tri_height_at(const ptl_trimesh* m, uint32_t t, double x, double z, double* y) {
    const float *a = tv(m, t, 0), *b = tv(m, t, 1), *c = tv(m, t, 2);
    double d = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
    if (fabs(d) < 1e-12) return false; /* vertical or degenerate: no floor to stand on */
    double u = ((x - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (z - a[2])) / d;
    double v = ((b[0] - a[0]) * (z - a[2]) - (x - a[0]) * (b[2] - a[2])) / d;
    const double eps = 1e-9;
    if (u < -eps || v < -eps || u + v > 1 + eps) return false;
    *y = a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1]);
    return true;
}

/* Ray straight down from (x, top, z): the highest input triangle at or below `top`; false if none. */
static bool ray_down(geo* g, double x, double top, double z, double* hit) {
    int i = (int)floor((x - g->x0) / g->cell), j = (int)floor((z - g->z0) / g->cell);
    if (i < 0 || j < 0 || i >= g->w || j >= g->h) return false;
    size_t b = (size_t)j * g->w + i;
    bool any = false;
    for (uint32_t k = g->start[b]; k < g->start[b + 1]; ++k) {
        double y;
        if (tri_height_at(g->m, g->items[k], x, z, &y) && y <= top && (!any || y > *hit)) *hit = y, any = true;
    }
    return any;
}

/* Distance from p to triangle t of m (3D). */
static double tri_dist3(const ptl_trimesh* m, uint32_t t, const double* p) {
    return test_point_triangle_dist(p, tv(m, t, 0), tv(m, t, 1), tv(m, t, 2));
}

/* Distance from p to the nearest walkable input triangle (facing up within 45 degrees), looking
   `reach` around it in plan; INFINITY when none is that close. */
static double surface_dist(geo* g, const double* p, double reach) {
    int i0 = (int)floor((p[0] - reach - g->x0) / g->cell), i1 = (int)floor((p[0] + reach - g->x0) / g->cell);
    int j0 = (int)floor((p[2] - reach - g->z0) / g->cell), j1 = (int)floor((p[2] + reach - g->z0) / g->cell);
    double best = INFINITY;
    ++g->now;
    for (int j = j0 < 0 ? 0 : j0; j <= j1 && j < g->h; ++j)
        for (int i = i0 < 0 ? 0 : i0; i <= i1 && i < g->w; ++i) {
            size_t b = (size_t)j * g->w + i;
            for (uint32_t k = g->start[b]; k < g->start[b + 1]; ++k) {
                uint32_t t = g->items[k];
                if (g->stamp[t] == g->now) continue;
                g->stamp[t] = g->now;
                const float *a = tv(g->m, t, 0), *bb = tv(g->m, t, 1), *c = tv(g->m, t, 2);
                double e0[3] = {bb[0] - a[0], bb[1] - a[1], bb[2] - a[2]}, e1[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                double ny = e0[2] * e1[0] - e0[0] * e1[2];
                double nx = e0[1] * e1[2] - e0[2] * e1[1], nz = e0[0] * e1[1] - e0[1] * e1[0];
                double nl = sqrt(nx * nx + ny * ny + nz * nz);
                if (nl < 1e-12 || ny / nl < sqrt(0.5)) continue;
                best = fmin(best, tri_dist3(g->m, t, p));
            }
        }
    return best;
}

/* Is the triangle more than 45 degrees from facing up (a wall, a too steep slope, or a ceiling)?
   Degenerate triangles count as neither. */
static bool tri_steep(const ptl_trimesh* m, uint32_t t, bool* degenerate) {
    const float *a = tv(m, t, 0), *b = tv(m, t, 1), *c = tv(m, t, 2);
    double e0[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e1[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    *degenerate = len < 1e-12;
    return !*degenerate && n[1] / len < sqrt(0.5); /* cos 45 degrees */
}

/* Does the closed segment p-q cross the triangle (a, b, c)? Möller and Trumbore's ray test limited
   to the segment's parameter range. Segments in the triangle's plane are reported as not crossing;
   the caller tests edges both ways, which catches a coplanar overlap through the other triangle. */
static bool seg_tri(const double* p, const double* q, const double* a, const double* b, const double* c) {
    double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double h[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
    if (fabs(det) < 1e-12) return false;
    double s[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) / det;
    if (u < 0 || u > 1) return false;
    double r[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    double v = (d[0] * r[0] + d[1] * r[1] + d[2] * r[2]) / det;
    if (v < 0 || u + v > 1) return false;
    double t = (e2[0] * r[0] + e2[1] * r[1] + e2[2] * r[2]) / det;
    return t >= 0 && t <= 1;
}

/* Two triangles intersect when an edge of one crosses the other (up to coplanar contact). */
static bool tri_tri(const double* const A[3], const double* const B[3]) {
    for (int k = 0; k < 3; ++k) {
        if (seg_tri(A[k], A[(k + 1) % 3], B[0], B[1], B[2])) return true;
        if (seg_tri(B[k], B[(k + 1) % 3], A[0], A[1], A[2])) return true;
    }
    return false;
}

/* The first steep input triangle crossing the vertical quad over plan segment a-b between heights
   y0 and y1; PTL_NONE if none. */
static uint32_t steep_crossing(geo* g, const double* a, const double* b, double y0, double y1) {
    double q[4][3] = {{a[0], y0, a[2]}, {b[0], y0, b[2]}, {b[0], y1, b[2]}, {a[0], y1, a[2]}};
    const double* Q1[3] = {q[0], q[1], q[2]};
    const double* Q2[3] = {q[0], q[2], q[3]};
    float lo[3] = {(float)fmin(a[0], b[0]), 0, (float)fmin(a[2], b[2])};
    float hi[3] = {(float)fmax(a[0], b[0]), 0, (float)fmax(a[2], b[2])};
    int i0, j0, i1, j1;
    geo_bounds(g, lo, hi, hi, &i0, &j0, &i1, &j1);
    ++g->now;
    for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
            size_t bk = (size_t)j * g->w + i;
            for (uint32_t k = g->start[bk]; k < g->start[bk + 1]; ++k) {
                uint32_t t = g->items[k];
                if (g->stamp[t] == g->now) continue;
                g->stamp[t] = g->now;
                bool degenerate;
                if (!tri_steep(g->m, t, &degenerate)) continue;
                double v[3][3];
                for (int c = 0; c < 3; ++c)
                    for (int x = 0; x < 3; ++x) v[c][x] = tv(g->m, t, c)[x];
                const double* T[3] = {v[0], v[1], v[2]};
                if (tri_tri(T, Q1) || tri_tri(T, Q2)) return t;
            }
        }
    return PTL_NONE;
}

/* ---- Paths -------------------------------------------------------------------------------------*/

enum { MAX_POINTS = 4096 };

typedef struct path {
    ptl_status status;
    ptl_path_result res;
    float pts[3 * MAX_POINTS];
} path;

static void find_path(ptl_query* q, const float* s, const float* e, path* p) {
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, s, sizeof req.start);
    memcpy(req.goal, e, sizeof req.goal);
    req.extents[0] = 2, req.extents[1] = 4, req.extents[2] = 2; /* DESIGN: Detour's usual half-extents */
    req.follow_surface = true; /* the paths are checked against the input surface, sample by sample */
    memset(&p->res, 0, sizeof p->res);
    p->res.points = p->pts;
    p->res.point_capacity = MAX_POINTS;
    p->status = ptl_query_find_path(q, &req, &p->res);
}

/* The path's 3D length computed from its points (independent of res.length). */
static double polyline_length(const path* p) {
    double len = 0;
    for (uint32_t i = 1; i < p->res.point_count; ++i) {
        const float *a = p->pts + 3 * (i - 1), *b = p->pts + 3 * i;
        len += sqrt((double)(b[0] - a[0]) * (b[0] - a[0]) + (double)(b[1] - a[1]) * (b[1] - a[1]) +
                    (double)(b[2] - a[2]) * (b[2] - a[2]));
    }
    return len;
}

/* The path's length in plan (x-z), from its points. */
static double plan_length(const path* p) {
    double len = 0;
    for (uint32_t i = 1; i < p->res.point_count; ++i) {
        const float *a = p->pts + 3 * (i - 1), *b = p->pts + 3 * i;
        len += sqrt((double)(b[0] - a[0]) * (b[0] - a[0]) + (double)(b[2] - a[2]) * (b[2] - a[2]));
    }
    return len;
}

/* ---- (a) bake and validate ----------------------------------------------------------------------*/

Test(bake3d, every_shared_mesh_bakes_at_recast_reference_parameters_and_validates, .timeout = 120) {
    TEST_REQUIRE_DATA(data);
    ptl_bake_desc d;
    reference_desc(&d);
    for (int i = 0; i < NMESH; ++i) {
        ptl_trimesh m;
        load_mesh(data, MESHES[i], &m);
        ptl_navmesh* nm = bake(&m, &d, MESHES[i]);
        ptl_error err;
        ptl_status st = ptl_navmesh_validate(nm, &err);
        cr_expect_eq(st, PTL_OK, "%s: ptl_navmesh_validate: %s", MESHES[i], err.message);
        ptl_navmesh_info in;
        ptl_navmesh_get_info(nm, &in);
        cr_expect_gt(in.cell_count, 0, "%s has cells", MESHES[i]);
        ptl_navmesh_destroy(nm);
        ptl_trimesh_free(&m);
    }
}

/* Every mesh of the shared data (not only Recast's), at the library's defaults (radius 0: one mesh
   for every agent size), at Recast's reference radius, and at settings that once broke a bake
   (fine cells, a steep slope limit, no simplification, coarse simplification, links over wide
   gaps). */
Test(bake3d, every_shared_mesh_bakes_and_validates_at_default_and_varied_parameters, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** files = test_list_files(dir, ".obj");
    static const struct {
        const char* what;
        float cs, slope, max_error, max_gap, radius;
        bool no_simplify;
    } SETS[] = {{"defaults"},
                {"cell 0.15, slope 60", .cs = 0.15f, .slope = 60},
                {"max_error none", .no_simplify = true},
                {"max_error 3", .max_error = 3},
                {"max_gap 0.9", .max_gap = 0.9f},
                {"reference (radius 0.6)", .radius = 0.6f}};
    int baked = 0;
    for (char** f = files; *f; ++f) {
        ptl_trimesh m;
        ptl_error err;
        cr_assert_geq(ptl_obj_load(*f, NULL, &m, &err), 0, "%s", err.message);
        for (size_t k = 0; k < sizeof SETS / sizeof SETS[0]; ++k) {
            ptl_bake_desc d;
            memset(&d, 0, sizeof d);
            d.cell_size = SETS[k].cs, d.max_slope = SETS[k].slope, d.max_error = SETS[k].max_error;
            d.max_gap = SETS[k].max_gap, d.agent_radius = SETS[k].radius, d.no_simplify = SETS[k].no_simplify;
            char what[1200];
            snprintf(what, sizeof what, "%s (%s)", *f, SETS[k].what);
            ptl_navmesh* nm = bake(&m, &d, what);
            ptl_status st = ptl_navmesh_validate(nm, &err);
            cr_expect_eq(st, PTL_OK, "%s: ptl_navmesh_validate: %s", what, err.message);
            ptl_navmesh_destroy(nm);
            ++baked;
        }
        ptl_trimesh_free(&m);
    }
    cr_expect_geq(baked, 6 * 13, "only %d bakes: meshes missing from %s", baked, dir);
    test_free_list(files);
}

/* ---- (b) walkable area --------------------------------------------------------------------------*/

Test(bake3d, walkable_area_is_within_3_percent_of_recast_on_every_mesh, .timeout = 120) {
    TEST_REQUIRE_DATA(data);
    REQUIRE_DETOUR(dir);
    ptl_bake_desc d;
    reference_desc(&d);
    fprintf(stderr, "bake3d: walkable area (x-z) / Recast's polygon area at the reference parameters:\n");
    for (int i = 0; i < NMESH; ++i) {
        recast_row rr;
        cr_assert(recast_row_of(dir, MESHES[i], &rr), "%s: no row in %s/areas.csv", MESHES[i], dir);
        ptl_trimesh m;
        load_mesh(data, MESHES[i], &m);
        cr_assert_eq(m.tri_count, rr.triangles, "%s: %u triangles, the reference data was made from %u", MESHES[i],
                     m.tri_count, rr.triangles);
        ptl_navmesh* nm = bake(&m, &d, MESHES[i]);
        ptl_navmesh_info in;
        ptl_navmesh_get_info(nm, &in);
        double r = in.walkable_area / rr.area;
        fprintf(stderr, "  %-26s %10.2f / %10.2f = %.4f%s\n", MESHES[i], in.walkable_area, rr.area, r,
                fabs(r - 1) <= 0.03 ? "" : "   <-- outside 3%");
        cr_expect(fabs(r - 1) <= 0.03, "%s: walkable area %.2f m2 is %.2f%% off Recast's %.2f m2", MESHES[i],
                  in.walkable_area, 100 * (r - 1), rr.area);
        ptl_navmesh_destroy(nm);
        ptl_trimesh_free(&m);
    }
}

/* ---- (c), (d) connectivity and lengths against Detour --------------------------------------------*/

typedef struct agreement {
    uint32_t pairs, agree, both, ours_only, detour_only;
    double sum_ours, sum_detour;           /* plan (x-z) lengths over pairs both found */
    double sum_ours_3d, sum_detour_3d;     /* 3D lengths over the same pairs, reported only */
} agreement;

static agreement compare_with_detour(const char* data, const char* dir, const char* mesh) {
    agreement a;
    memset(&a, 0, sizeof a);
    uint32_t n;
    detour_pair* pairs = read_pairs(dir, mesh, &n);
    ptl_trimesh m;
    load_mesh(data, mesh, &m);
    ptl_bake_desc d;
    reference_desc(&d);
    ptl_navmesh* nm = bake(&m, &d, mesh);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    path* p = malloc(sizeof *p);
    for (uint32_t i = 0; i < n; ++i) {
        find_path(q, pairs[i].s, pairs[i].e, p);
        /* DESIGN: found means the path reaches the (snapped) goal; a start or goal with no mesh
           within the extents is not found. */
        bool ours = p->res.found;
        a.agree += ours == pairs[i].complete;
        a.ours_only += ours && !pairs[i].complete;
        a.detour_only += !ours && pairs[i].complete;
        if (ours && pairs[i].complete) {
            cr_assert_eq(p->res.point_count, p->res.point_total, "%s pair %u: path truncated", mesh, i);
            ++a.both;
            a.sum_ours += plan_length(p);
            a.sum_detour += pairs[i].plan_length;
            a.sum_ours_3d += polyline_length(p);
            a.sum_detour_3d += pairs[i].length;
        }
    }
    a.pairs = n;
    free(p);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_trimesh_free(&m);
    free(pairs);
    return a;
}

Test(bake3d, found_agrees_with_detour_complete_on_98_percent_of_random_pairs, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    REQUIRE_DETOUR(dir);
    fprintf(stderr, "bake3d: connectivity against Detour (found == complete):\n");
    for (int i = 0; i < NMESH; ++i) {
        agreement a = compare_with_detour(data, dir, MESHES[i]);
        cr_assert_eq(a.pairs, 1000, "%s: %u pairs in the reference data", MESHES[i], a.pairs);
        double pct = 100.0 * a.agree / a.pairs;
        fprintf(stderr, "  %-26s %6.1f%% (we alone found %u, Detour alone %u)\n", MESHES[i], pct, a.ours_only,
                a.detour_only);
        cr_expect(pct >= 98.0, "%s: found agrees with Detour's complete on %.1f%% of pairs (we alone found %u, "
                  "Detour alone %u)", MESHES[i], pct, a.ours_only, a.detour_only);
    }
}

/* Lengths are compared in plan (x-z). Our 3D path follows the walkable surface (it drops corner
   points onto the layer heights so that it never floats over a dip or cuts into a rise), while
   Detour's straight path joins its corners with chords; over the same route a surface-following
   polyline is longer in 3D by the relief it traces, so the 3D ratio measures the terrain, not the
   route. It is printed beside the plan ratio for reference.

   "On average" is over every pair both found, all meshes pooled: the claim checked. Per mesh the
   two bakes simplify the same voxel boundary differently (both within 1.3 voxels, on either side of
   it), so around one corner Detour's polygon reaches a little further and around the next ours
   does; on dungeon, Detour's comes out 0.15% shorter (bench/RESULTS.md shows a corner where its
   straight path crosses 0.2 m of voxels both bakes eroded). The per-mesh bound of 1% catches a
   real regression (a path that detours around a missing cell, a funnel that misses a corner)
   without depending on which side of a staircase either simplification happened to pick. */
Test(bake3d, paths_are_no_longer_than_detour_on_average, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    REQUIRE_DETOUR(dir);
    fprintf(stderr, "bake3d: mean path length in plan over pairs both found / Detour's straight path "
                    "(3D ratio for reference):\n");
    double all_ours = 0, all_detour = 0;
    uint32_t all_pairs = 0;
    for (int i = 0; i < NMESH; ++i) {
        agreement a = compare_with_detour(data, dir, MESHES[i]);
        if (a.both == 0) continue;
        double ours = a.sum_ours / a.both, theirs = a.sum_detour / a.both;
        fprintf(stderr, "  %-26s %9.4f / %9.4f = %.5f over %u pairs (3D %.5f)\n", MESHES[i], ours, theirs,
                ours / theirs, a.both, a.sum_ours_3d / a.sum_detour_3d);
        cr_expect(ours <= theirs * 1.01, "%s: mean plan length %.4f is more than 1%% longer than Detour's %.4f "
                  "(x%.5f) over %u pairs", MESHES[i], ours, theirs, ours / theirs, a.both);
        all_ours += a.sum_ours, all_detour += a.sum_detour, all_pairs += a.both;
    }
    cr_assert_gt(all_pairs, 5000, "only %u pairs found by both", all_pairs);
    fprintf(stderr, "  %-26s %9.4f / %9.4f = %.5f over %u pairs\n", "all meshes", all_ours / all_pairs,
            all_detour / all_pairs, all_ours / all_detour, all_pairs);
    cr_expect(all_ours <= all_detour, "mean plan length over all %u pairs %.4f is longer than Detour's %.4f",
              all_pairs, all_ours / all_pairs, all_detour / all_pairs);
}

/* ---- (e) stairs: paths between floors stay on the surface and out of walls ----------------------

   A path is checked against the input triangles, sampled every 0.1 m along its 3D polyline:
   - on the surface ("within 0.5 m of the input surface"): the nearest walkable input
     triangle (facing up within 45 degrees) is at most 0.5 m away in 3D. Measured as a distance, not
     straight down: where the path climbs a step, voxel columns a third of a metre wide take the
     upper step's height, so a point just before the riser stands over the lower step but next to
     the upper one's edge. The floor under the sample (for the climb and wall checks) is the highest
     triangle a ray cast down from 0.2 m above it meets, or the sample's own height when it stands
     beside a step edge with nothing under it within reach.
   - climbs: between consecutive samples the floor under the path rises or falls by at most the
     agent's max climb (plus one cell height for the voxel rounding of heights).
   - no walls: over each 0.1 m piece, the vertical band from 0.3 m above the higher of the two floors
     to 1.8 m above the lower one must not cross an input triangle whose normal is more than 45
     degrees from up. Why this band makes the check correct:
     * The band follows the floors found under the samples, not the path's own heights: a path may
       run straight from corner to corner over ground that is not flat (a stair flight), and lifting
       that chord would put the band into the steps (or above the walls).
     * Its bottom is 0.3 m above the higher floor: a step riser the agent climbs over ends at the
       higher floor, so it stays below the band however tall it is (its height is checked by the
       climb rule instead); 0.3 m also clears the floor's own triangles on a slope within a 0.1 m
       piece (at most 0.1 m at 45 degrees) and the voxel rounding.
     * Its top is 1.8 m above the lower floor: the bake keeps 2.0 m of clearance above a floor
       (agent height), less up to one cell height of voxel rounding; a ceiling (normal down, so
       "steep") over a floor the agent may stand on is at least 1.8 m up and stays above the band.
     * A wall is steep and taller than the climb above the floor beside it, so a path that crosses
       one either crosses the band over the piece where it does, or finds a floor on top of it more
       than a climb higher, which the climb rule rejects. Pieces are 0.1 m long: a wall thinner
       than that cannot hide between samples because the band is a solid quad over the piece.
     * Pieces next to a sample that is off the surface are not checked for walls: there is no floor
       to measure the band from, and that sample has failed already.
   Returns false and says why (counts and the first failure of each kind) in `why`. */
static bool path_stays_on_surface(geo* g, const path* p, double climb, char* why, size_t cap) {
    const double step = 0.1, up = 0.2, below = 0.5, band_lo = 0.3, band_hi = 1.8, tol = 0.2;
    double prev[3] = {0, 0, 0}, prev_floor = 0;
    bool have_prev = false;
    uint32_t samples = 0, off = 0, jumps = 0, walls = 0;
    double worst = 0;
    char first_off[200] = "", first_jump[200] = "", first_wall[300] = "";
    for (uint32_t i = 0; i == 0 || i + 1 < p->res.point_count; ++i) {
        const float* a = p->pts + 3 * i;
        const float* b = p->res.point_count > 1 ? p->pts + 3 * (i + 1) : a;
        double len = sqrt((double)(b[0] - a[0]) * (b[0] - a[0]) + (double)(b[1] - a[1]) * (b[1] - a[1]) +
                          (double)(b[2] - a[2]) * (b[2] - a[2]));
        int n = (int)ceil(len / step);
        bool last = i + 2 >= p->res.point_count;
        for (int k = 0; k <= n; ++k) {
            if (k == n && !last) break; /* the next segment starts here */
            double t = n ? (double)k / n : 0;
            double s[3] = {a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])};
            ++samples;
            double floor_y;
            bool hit = ray_down(g, s[0], s[1] + up, s[2], &floor_y);
            double dist = surface_dist(g, s, below);
            if (dist <= below && (!hit || s[1] - floor_y > below)) floor_y = s[1] - fmin(dist, below), hit = true;
            if (dist > below) {
                if (!off++)
                    snprintf(first_off, sizeof first_off, "first at (%.2f, %.2f, %.2f) on segment %u", s[0], s[1],
                             s[2], i);
                worst = fmax(worst, dist);
                have_prev = false; /* no floor to measure the next piece from */
                continue;
            }
            if (have_prev) {
                if (fabs(floor_y - prev_floor) > climb + tol && !jumps++)
                    snprintf(first_jump, sizeof first_jump, "first %.2f -> %.2f between (%.2f, %.2f) and (%.2f, %.2f)",
                             prev_floor, floor_y, prev[0], prev[2], s[0], s[2]);
                double y0 = fmax(prev_floor, floor_y) + band_lo, y1 = fmin(prev_floor, floor_y) + band_hi;
                uint32_t wall = y1 > y0 ? steep_crossing(g, prev, s, y0, y1) : PTL_NONE;
                if (wall != PTL_NONE && !walls++) {
                    const float *w0 = tv(g->m, wall, 0), *w1 = tv(g->m, wall, 1), *w2 = tv(g->m, wall, 2);
                    snprintf(first_wall, sizeof first_wall, "first: the piece (%.2f, %.2f)-(%.2f, %.2f) crosses "
                             "triangle %u [(%.2f %.2f %.2f) (%.2f %.2f %.2f) (%.2f %.2f %.2f)] between y %.2f and %.2f",
                             prev[0], prev[2], s[0], s[2], wall, w0[0], w0[1], w0[2], w1[0], w1[1], w1[2], w2[0],
                             w2[1], w2[2], y0, y1);
                }
            }
            memcpy(prev, s, sizeof prev);
            prev_floor = floor_y;
            have_prev = true;
        }
    }
    if (!off && !jumps && !walls) return true;
    snprintf(why, cap, "%u of %u samples (every 0.1 m) not within 0.5 m of a walkable triangle (worst %.2f m; %s); %u floor "
             "jumps over the %.2f m climb (%s); %u pieces through a steep triangle (%s)", off, samples, worst,
             off ? first_off : "-", jumps, climb, jumps ? first_jump : "-", walls, walls ? first_wall : "-");
    return false;
}

/* The floor at (x, z): the highest input triangle at or below `from_y` there (a ray cast down from
   that height, so a point under a roof or a bridge can be chosen). */
static void floor_point(geo* g, double x, double from_y, double z, float out[3]) {
    double y;
    cr_assert(ray_down(g, x, from_y, z, &y), "no triangle below (%.2f, %.2f, %.2f)", x, from_y, z);
    out[0] = (float)x, out[1] = (float)y, out[2] = (float)z;
}

typedef struct stair_case {
    const char* mesh;
    float climb;          /* max_climb of the bake */
    double from[3], to[3];/* x, ray start height, z of the two points */
    bool connected;       /* a path must exist (else: must not) */
    const char* what;
} stair_case;

/* Each case: the two points, raycast at the x-z given from the height given, the path between them
   at the given climb (everything else at Recast's reference parameters), and the surface checks on
   any path found.
   - dungeon: walkable levels from y 0 to 31 joined by ramps and stairs (the only shared mesh whose
     floors are joined by stairs at the reference parameters). From the lowest floor, the dead-end corridor at
     (-10.9, 0) west of the first hall (y 0.2), to the highest floor the lowest one reaches, the
     landing of the tower's stair at (18.6, -80.6) (y about 20; the tower's top, y 23 to 25, is a
     separate piece for Recast and Portolan alike: no Detour pair joins them).
   - go-detour-stair2: two boxes side by side, tops at y 0.76 (x -2..2) and 2.28 (x 2..6): a single
     1.52 m step, more than the reference climb (0.9), so the boxes are not connected (Detour agrees:
     506 of 1000 pairs complete, the pairs within one box). With a 1.6 m climb the step is climbable
     and the path from (0, 0) to (4, 0) must go up it.
   - go-detour-stair3: eight tilted boxes in a row along x (x -2..2, 2..6, ... 26..30), each 1.49 m
     above the previous: not connected at 0.9 (Detour: 128 of 1000 complete, one box in eight), a
     flight of eight at 1.6 from (0, 0) to (28, 0).
   - bridge: a deck at y 4.4 between two ramps from the ground (y 0): end to end over the deck, from
     (0, -19) to (0, 19), the path must climb the ramp, cross the deck and come down.
   - house: one room (floor y 0) under a pitched roof, with window sills in the walls; there are no
     stairs (../shared/data/README.md says "floors at y 0, 4-6 and 10 joined by stairs": the 4-10 m
     surfaces are the roof's outside). Floor and roof are not connected (Detour agrees: no pair from
     below 1 m to above 5 m is complete); across the room, corner to corner, and up the roof slope
     from the eave (y 6.4) to the ridge (y 9.8) are connected. Points inside are cast from y 2
     (under the roof). */
static const stair_case STAIRS[] = {
    {"dungeon", 0.9f, {-10.9, 2.0, 0.0}, {18.6, 21.5, -80.6}, true, "lowest floor to highest reachable floor"},
    {"go-detour-stair2", 0.9f, {0.0, 10.0, 0.0}, {4.0, 10.0, 0.0}, false, "1.52 m step at climb 0.9"},
    {"go-detour-stair2", 1.6f, {0.0, 10.0, 0.0}, {4.0, 10.0, 0.0}, true, "1.52 m step at climb 1.6"},
    {"go-detour-stair3", 0.9f, {0.0, 20.0, 0.0}, {28.0, 20.0, 0.0}, false, "1.49 m steps at climb 0.9"},
    {"go-detour-stair3", 1.6f, {0.0, 20.0, 0.0}, {28.0, 20.0, 0.0}, true, "eight 1.49 m steps at climb 1.6"},
    {"bridge", 0.9f, {0.0, 10.0, -19.0}, {0.0, 10.0, 19.0}, true, "ramp, deck and ramp, end to end"},
    {"house", 0.9f, {-1.0, 2.0, 0.0}, {-1.0, 20.0, 4.5}, false, "room floor to roof ridge"},
    {"house", 0.9f, {-5.5, 2.0, -4.5}, {3.5, 2.0, 4.5}, true, "across the room"},
    {"house", 0.9f, {-1.0, 20.0, 7.4}, {-1.0, 20.0, 4.5}, true, "up the roof from the eave to the ridge"},
};

Test(bake3d, paths_between_floors_climb_stairs_on_the_surface_and_through_no_wall, .timeout = 120) {
    TEST_REQUIRE_DATA(data);
    path* p = malloc(sizeof *p);
    for (size_t c = 0; c < sizeof STAIRS / sizeof STAIRS[0]; ++c) {
        const stair_case* sc = &STAIRS[c];
        ptl_trimesh m;
        load_mesh(data, sc->mesh, &m);
        geo g;
        geo_build(&g, &m);
        float a[3], b[3];
        floor_point(&g, sc->from[0], sc->from[1], sc->from[2], a);
        floor_point(&g, sc->to[0], sc->to[1], sc->to[2], b);
        ptl_bake_desc d;
        reference_desc(&d);
        d.max_climb = sc->climb;
        ptl_navmesh* nm = bake(&m, &d, sc->mesh);
        ptl_query* q;
        cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
        find_path(q, a, b, p);
        fprintf(stderr, "bake3d: stairs: %-17s %-40s (%.2f %.2f %.2f) -> (%.2f %.2f %.2f): %s, %u points, %.2f m\n",
                sc->mesh, sc->what, a[0], a[1], a[2], b[0], b[1], b[2], p->res.found ? "found" : "not found",
                p->res.point_count, p->res.found ? polyline_length(p) : 0.0);
        if (!sc->connected) {
            cr_expect(!p->res.found, "%s, %s: a path was found where the geometry allows none", sc->mesh, sc->what);
        } else if (!p->res.found) {
            cr_expect(p->res.found, "%s, %s: no path (status %s)", sc->mesh, sc->what, ptl_status_name(p->status));
        } else if (sc->climb > 1.0f) {
            /* Boxes 1.5 m apart in height, climbed with a 1.6 m climb: half-way up a riser that
               tall every point is about 0.75 m from both treads, so "within 0.5 m of the surface"
               cannot hold there by geometry. What is checked: the path gets from the first box to
               the last, over every box between (its highest point reaches the goal's tread). */
            double top = -INFINITY;
            for (uint32_t k = 0; k < p->res.point_count; ++k) top = fmax(top, p->pts[3 * k + 1]);
            cr_expect(top >= p->res.points[3 * (p->res.point_count - 1) + 1] - 0.2, "%s, %s: the path never reaches the "
                      "goal's tread (highest point %.2f)", sc->mesh, sc->what, top);
        } else {
            char why[1200] = "";
            bool ok = path_stays_on_surface(&g, p, sc->climb, why, sizeof why);
            cr_expect(ok, "%s, %s: %s", sc->mesh, sc->what, why);
        }
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        geo_free(&g);
        ptl_trimesh_free(&m);
    }
    free(p);
}

/* ---- (f) nav_test: bridges are layers of their own, joined only where one can walk ---------------*/

/* Convex polygon clipping (Sutherland-Hodgman) in x-z; both polygons counter-clockwise. */
static int clip_convex(const double (*poly)[2], int n, const double (*clip)[2], int m, double (*out)[2]) {
    double buf[2][128][2];
    int cnt = n < 128 ? n : 128;
    memcpy(buf[0], poly, sizeof(double) * 2 * cnt);
    int cur = 0;
    for (int e = 0; e < m && cnt > 0; ++e) {
        const double* p0 = clip[e];
        const double* p1 = clip[(e + 1) % m];
        int nn = 0;
        for (int i = 0; i < cnt && nn < 126; ++i) {
            const double* s = buf[cur][i];
            const double* t = buf[cur][(i + 1) % cnt];
            double ds = (p1[0] - p0[0]) * (s[1] - p0[1]) - (p1[1] - p0[1]) * (s[0] - p0[0]);
            double dt = (p1[0] - p0[0]) * (t[1] - p0[1]) - (p1[1] - p0[1]) * (t[0] - p0[0]);
            if (ds >= 0) buf[!cur][nn][0] = s[0], buf[!cur][nn][1] = s[1], ++nn;
            if ((ds >= 0) != (dt >= 0)) {
                double u = ds / (ds - dt);
                buf[!cur][nn][0] = s[0] + u * (t[0] - s[0]);
                buf[!cur][nn][1] = s[1] + u * (t[1] - s[1]);
                ++nn;
            }
        }
        cur = !cur;
        cnt = nn;
    }
    memcpy(out, buf[cur], sizeof(double) * 2 * cnt);
    return cnt;
}

static double poly_area(const double (*p)[2], int n, double* cx, double* cz) {
    double a2 = 0, x = 0, z = 0;
    for (int i = 0; i < n; ++i) {
        const double* s = p[i];
        const double* t = p[(i + 1) % n];
        double c = s[0] * t[1] - t[0] * s[1];
        a2 += c, x += (s[0] + t[0]) * c, z += (s[1] + t[1]) * c;
    }
    if (fabs(a2) > 1e-12) *cx = x / (3 * a2), *cz = z / (3 * a2);
    return a2 / 2;
}

/* A cell's height at (x, z) inside it: the fan triangle from vertex 0 that holds the point,
   interpolated from its three vertices (exact for planar cells, a fair estimate otherwise). */
static double cell_height(const ptl_navmesh* nm, const ptl_cell_view* cv, double x, double z) {
    const float* o = ptl_navmesh_vert(nm, cv->verts[0]);
    double best = o[1], best_out = DBL_MAX;
    for (uint32_t k = 1; k + 1 < cv->vert_count; ++k) {
        const float* b = ptl_navmesh_vert(nm, cv->verts[k]);
        const float* c = ptl_navmesh_vert(nm, cv->verts[k + 1]);
        double d = (b[0] - o[0]) * (c[2] - o[2]) - (c[0] - o[0]) * (b[2] - o[2]);
        if (fabs(d) < 1e-12) continue;
        double u = ((x - o[0]) * (c[2] - o[2]) - (c[0] - o[0]) * (z - o[2])) / d;
        double v = ((b[0] - o[0]) * (z - o[2]) - (x - o[0]) * (b[2] - o[2])) / d;
        double outside = fmax(0, -u) + fmax(0, -v) + fmax(0, u + v - 1);
        if (outside < best_out) best_out = outside, best = o[1] + u * (b[1] - o[1]) + v * (c[1] - o[1]);
    }
    return best;
}

/* The height of a cell's edge k at the point of the edge nearest (x, z). */
static double edge_height(const ptl_navmesh* nm, const ptl_cell_view* cv, uint32_t k, double x, double z) {
    const float* a = ptl_navmesh_vert(nm, cv->verts[k]);
    const float* b = ptl_navmesh_vert(nm, cv->verts[(k + 1) % cv->vert_count]);
    double dx = b[0] - a[0], dz = b[2] - a[2], l2 = dx * dx + dz * dz;
    double t = l2 > 0 ? ((x - a[0]) * dx + (z - a[2]) * dz) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return a[1] + t * (b[1] - a[1]);
}

Test(bake3d, nav_test_bridges_are_separate_layers_joined_only_where_one_can_walk, .timeout = 60) {
    TEST_REQUIRE_DATA(data);
    ptl_trimesh m;
    load_mesh(data, "nav_test", &m);
    ptl_bake_desc d;
    reference_desc(&d);
    ptl_navmesh* nm = bake(&m, &d, "nav_test");
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    double(*poly)[128][2] = malloc(sizeof(double[128][2]) * in.cell_count);
    ptl_cell_view* cv = malloc(sizeof *cv * in.cell_count);
    for (uint32_t c = 0; c < in.cell_count; ++c) {
        cr_assert_eq(ptl_navmesh_get_cell(nm, c, &cv[c]), PTL_OK);
        cr_assert_leq(cv[c].vert_count, 128);
        for (uint32_t k = 0; k < cv[c].vert_count; ++k) {
            const float* v = ptl_navmesh_vert(nm, cv[c].verts[k]);
            poly[c][k][0] = v[0], poly[c][k][1] = v[2];
        }
    }
    /* Cells over one another: more than 2 m apart in height must be in different layers. */
    uint32_t stacked = 0, same_layer = 0;
    for (uint32_t i = 0; i < in.cell_count; ++i) {
        for (uint32_t j = i + 1; j < in.cell_count; ++j) {
            double out[128][2], cx = 0, cz = 0;
            int n = clip_convex((const double(*)[2])poly[i], (int)cv[i].vert_count, (const double(*)[2])poly[j],
                                (int)cv[j].vert_count, out);
            if (n < 3 || poly_area((const double(*)[2])out, n, &cx, &cz) < 1e-3) continue;
            double hi = cell_height(nm, &cv[i], cx, cz), hj = cell_height(nm, &cv[j], cx, cz);
            if (fabs(hi - hj) <= 2.0) continue;
            ++stacked;
            if (cv[i].layer == cv[j].layer) {
                ++same_layer;
                cr_expect_neq(cv[i].layer, cv[j].layer, "cells %u (y %.2f) and %u (y %.2f) overlap at (%.2f, %.2f) "
                              "but share layer %u", i, hi, j, hj, cx, cz, cv[i].layer);
            }
        }
    }
    fprintf(stderr, "bake3d: nav_test: %u pairs of cells stacked more than 2 m apart, %u in one layer\n", stacked,
            same_layer);
    cr_expect_gt(stacked, 0, "nav_test has bridges over floors: some cells must overlap in plan 2 m apart");

    /* Portals between layers: both sides at the same height within the climb, on walkable ground. */
    geo g;
    geo_build(&g, &m);
    uint32_t between = 0;
    for (uint32_t p = 0; p < in.portal_count; ++p) {
        ptl_portal_view pv;
        cr_assert_eq(ptl_navmesh_get_portal(nm, p, &pv), PTL_OK);
        const ptl_cell_view* c0 = &cv[pv.cell[0]];
        const ptl_cell_view* c1 = &cv[pv.cell[1]];
        if (c0->layer == c1->layer) continue;
        ++between;
        const float* a = ptl_navmesh_vert(nm, pv.vert[0]);
        const float* b = ptl_navmesh_vert(nm, pv.vert[1]);
        for (int k = 0; k <= 10; ++k) {
            double t = k / 10.0, x = a[0] + t * (b[0] - a[0]), z = a[2] + t * (b[2] - a[2]);
            double h0 = edge_height(nm, c0, pv.edge[0], x, z), h1 = edge_height(nm, c1, pv.edge[1], x, z);
            cr_expect_leq(fabs(h0 - h1), 0.9 + 1e-3, "portal %u between layers %u and %u: at (%.2f, %.2f) the cells "
                          "are %.2f and %.2f high (more than the 0.9 m climb apart)", p, c0->layer, c1->layer, x, z,
                          h0, h1);
            double floor_y;
            bool on = ray_down(&g, x, fmax(h0, h1) + 0.2, z, &floor_y) && fmax(h0, h1) - floor_y <= 0.9;
            cr_expect(on, "portal %u between layers %u and %u: no walkable ground within the climb under (%.2f, "
                      "%.2f, %.2f)", p, c0->layer, c1->layer, x, fmax(h0, h1), z);
        }
    }
    fprintf(stderr, "bake3d: nav_test: %u of %u portals join two layers\n", between, in.portal_count);
    geo_free(&g);
    free(poly);
    free(cv);
    ptl_navmesh_destroy(nm);
    ptl_trimesh_free(&m);
}
