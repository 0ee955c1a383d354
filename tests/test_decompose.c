/* Convex decomposition (ANavMG) on every grid map and Polyanya mesh of the shared data:
   convex cells that do not overlap, cover the free area exactly, have symmetric portals and only
   vertices on the free-space boundary; and near-optimal: cells <= notches + holes + 1 per piece. */
#include "test_util.h"

/* Independent checks of a decomposition against a shape; `grid` (may be NULL) adds exact
   lattice checks. Returns the number of problems, printing the first few. */
typedef struct dc_report {
    uint32_t cells, notches, holes, pieces;
    double area;
} dc_report;

static double cell_area2(const ptl_decomposition* d, uint32_t c) {
    double a2 = 0;
    uint32_t b = d->cell_start[c], n = d->cell_start[c + 1] - b;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t v = d->cell_verts[b + i], w = d->cell_verts[b + (i + 1) % n];
        a2 += d->xy[2 * v] * d->xy[2 * w + 1] - d->xy[2 * w] * d->xy[2 * v + 1];
    }
    return a2;
}

/* Every cell counter-clockwise and convex (turns left or straight; exact on lattice inputs): no
   vertex more than `tol` on the wrong side of the chord between its neighbours. */
static void expect_convex(const ptl_decomposition* d, const char* name, double tol) {
    for (uint32_t c = 0; c < d->cell_count; ++c) {
        uint32_t b = d->cell_start[c], n = d->cell_start[c + 1] - b;
        cr_expect(n >= 3 && cell_area2(d, c) > 0, "%s: cell %u is degenerate or clockwise", name, c);
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t p = d->cell_verts[b + (i + n - 1) % n], q = d->cell_verts[b + i], r = d->cell_verts[b + (i + 1) % n];
            double o = (d->xy[2 * q] - d->xy[2 * p]) * (d->xy[2 * r + 1] - d->xy[2 * q + 1]) -
                       (d->xy[2 * q + 1] - d->xy[2 * p + 1]) * (d->xy[2 * r] - d->xy[2 * q]);
            if (o < 0 && o < -tol * hypot(d->xy[2 * r] - d->xy[2 * p], d->xy[2 * r + 1] - d->xy[2 * p + 1])) {
                cr_expect(0, "%s: cell %u is not convex at (%g, %g)", name, c, d->xy[2 * q], d->xy[2 * q + 1]);
                return;
            }
        }
    }
}

/* Portals: each neighbour edge is matched by the reverse edge in the neighbour. */
static void expect_symmetric(const ptl_decomposition* d, const char* name) {
    uint32_t bad = 0, nbr_edges = 0;
    for (uint32_t c = 0; c < d->cell_count; ++c) {
        uint32_t b = d->cell_start[c], n = d->cell_start[c + 1] - b;
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t o = d->cell_nbrs[b + i];
            if (o == PTL_NONE) continue;
            ++nbr_edges;
            uint32_t v = d->cell_verts[b + i], w = d->cell_verts[b + (i + 1) % n];
            uint32_t ob = d->cell_start[o], on = d->cell_start[o + 1] - ob, found = 0;
            for (uint32_t j = 0; j < on; ++j)
                if (d->cell_verts[ob + j] == w && d->cell_verts[ob + (j + 1) % on] == v && d->cell_nbrs[ob + j] == c) found = 1;
            bad += !found;
        }
    }
    cr_expect_eq(bad, 0, "%s: %u portal edges are not matched by their neighbour", name, bad);
    cr_expect_eq(nbr_edges, 2 * d->portal_count, "%s: %u neighbour edges for %u portals", name, nbr_edges, d->portal_count);
}

/* Bakes and runs the runtime's own deep validation (overlap, fans, grid index, ...). */
static void expect_valid_blob(const ptl_decomposition* d, uint32_t flags, const char* name) {
    void* blob;
    size_t size;
    ptl_error err;
    cr_assert_geq(ptl_bake_decomposition(d, &(ptl_blob_desc){.flags = flags}, &blob, &size, &err), 0, "%s: bake: %s", name, err.message);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s: load: %s", name, err.message);
    ptl_status s = ptl_navmesh_validate(nm, &err);
    cr_expect_geq(s, 0, "%s: validate: %s", name, err.message);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
}

/* A point is on the free-space boundary of a grid when the cells around it are neither all free
   nor all blocked. */
static int on_grid_boundary(const ptl_grid* g, double x, double y) {
    int fx = x == floor(x), fy = y == floor(y);
    long cx = (long)floor(x), cy = (long)floor(y);
    if (fx && fy) {
        int f = test_free(g, cx - 1, cy - 1) + test_free(g, cx, cy - 1) + test_free(g, cx - 1, cy) + test_free(g, cx, cy);
        return f > 0 && f < 4;
    }
    if (fx) return test_free(g, cx - 1, cy) != test_free(g, cx, cy);
    if (fy) return test_free(g, cx, cy - 1) != test_free(g, cx, cy);
    return 0;
}

/* `pair_slack` as in ptl_decompose_desc (0: the default). */
static void check_grid_map_lids(const char* path, double relax, double pair_slack, uint32_t* strict_cells, bool lids) {
    ptl_grid g;
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_grid_load(path, NULL, &g, &err), 0, "%s", err.message);
    size_t passable = 0;
    for (size_t i = 0; i < (size_t)g.width * g.height; ++i) passable += g.passable[i];
    ptl_status st = ptl_shape_from_grid(&g, NULL, &s, &err);
    if (passable == 0) {
        cr_expect_eq(st, PTL_ERR_BAD_INPUT, "%s: a map with no free cell must be refused", path);
        ptl_grid_free(&g);
        return;
    }
    cr_assert_geq(st, 0, "%s", err.message);
    ptl_decompose_desc desc = {.relax = relax, .pair_slack = pair_slack, .alloc = NULL, .lids = lids};
    ptl_decomposition d;
    cr_assert_geq(ptl_decompose(&s, &desc, &d, &err), 0, "%s: %s", path, err.message);
    double area = 0;
    for (uint32_t c = 0; c < d.cell_count; ++c) area += cell_area2(&d, c) / 2;
    cr_expect(fabs(area - (double)passable) <= 1e-6, "%s: cells cover %.9f, free cells %zu", path, area, passable);
    if (relax == 0) expect_convex(&d, path, 1e-9);
    expect_symmetric(&d, path);
    uint32_t off = 0;
    for (uint32_t v = 0; v < d.vert_count; ++v) off += !on_grid_boundary(&g, d.xy[2 * v], d.xy[2 * v + 1]);
    cr_expect_eq(off, 0, "%s: %u vertices are not on the free-space boundary", path, off);
    /* Near-optimal (ANavMG §4): at most one cell per notch, plus one per hole and per piece. Pocket
       lids are portals of their own, one more cell each, at most one per notch they close over. */
    uint32_t bound = d.notches + d.holes + d.outer_rings;
    if (lids) bound *= 2;
    cr_expect_leq(d.cell_count, bound, "%s: %u cells > %u notches + %u holes + %u pieces%s", path, d.cell_count,
                  d.notches, d.holes, d.outer_rings, lids ? ", twice" : "");
    if (strict_cells) {
        if (relax == 0) *strict_cells = d.cell_count;
        else cr_expect_leq(d.cell_count, *strict_cells, "%s: relaxation added cells", path);
    }
    expect_valid_blob(&d, s.flags, path);
    ptl_decomposition_free(&d);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

static void check_grid_map(const char* path, double relax, double pair_slack, uint32_t* strict_cells) {
    check_grid_map_lids(path, relax, pair_slack, strict_cells, false);
}

Test(decompose, cells_are_convex_cover_the_free_cells_and_stay_near_optimal_on_all_grid_maps, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    char** maps = test_all_maps(data);
    int n = 0;
    for (char** p = maps; *p; ++p, ++n) check_grid_map(*p, 0, 0, NULL);
    cr_expect_geq(n, 30, "expected the shared grid maps, found %d", n);
    test_free_list(maps);
}

/* With the pockets cut off first: the same cells' properties (convex, covering, vertices on the
   boundary, a valid blob). */
Test(decompose, with_pocket_lids_cells_are_convex_and_cover_the_free_cells_on_all_grid_maps, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    char** maps = test_all_maps(data);
    int n = 0;
    for (char** p = maps; *p; ++p, ++n) check_grid_map_lids(*p, 0, 0, NULL, true);
    cr_expect_geq(n, 30, "expected the shared grid maps, found %d", n);
    test_free_list(maps);
}

Test(decompose, relaxed_cells_stay_within_tolerance_and_never_add_cells_on_all_grid_maps, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    char** maps = test_all_maps(data);
    for (char** p = maps; *p; ++p) {
        uint32_t strict = 0;
        /* relaxation keeps the paper's rule (no notch pairing): compare with the strict cells of
           the same rule */
        check_grid_map(*p, 0, 1, &strict);
        check_grid_map(*p, 1.0, 0, &strict);
    }
    test_free_list(maps);
}

/* Polyanya meshes: free space is the union of the mesh polygons; the decomposition must cover the
   same area (computed here from the file's polygons, independently of the reader). */
static double mesh_file_area(const char* path) {
    FILE* f = fopen(path, "r");
    cr_assert(f, "%s", path);
    char word[64];
    int version, nv, np;
    cr_assert(fscanf(f, "%63s %d %d %d", word, &version, &nv, &np) == 4);
    double* xy = malloc(sizeof(double) * 2 * (size_t)nv);
    for (int i = 0; i < nv; ++i) {
        int k;
        cr_assert(fscanf(f, "%lf %lf %d", &xy[2 * i], &xy[2 * i + 1], &k) == 3);
        for (int j = 0; j < k; ++j) cr_assert(fscanf(f, "%*d") == 0);
    }
    double area = 0;
    for (int i = 0; i < np; ++i) {
        int m;
        cr_assert(fscanf(f, "%d", &m) == 1);
        int* v = malloc(sizeof(int) * (size_t)m);
        for (int j = 0; j < m; ++j) cr_assert(fscanf(f, "%d", &v[j]) == 1);
        for (int j = 0; j < m; ++j) cr_assert(fscanf(f, "%*d") == 0);
        double a2 = 0;
        for (int j = 0; j < m; ++j) {
            int p = v[j], q = v[(j + 1) % m];
            a2 += xy[2 * p] * xy[2 * q + 1] - xy[2 * q] * xy[2 * p + 1];
        }
        area += a2 / 2;
        free(v);
    }
    free(xy);
    fclose(f);
    return area;
}

static void check_mesh(const char* path) {
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_mesh2d_load(path, NULL, &s, &err), 0, "%s", err.message);
    ptl_decomposition d;
    cr_assert_geq(ptl_decompose(&s, NULL, &d, &err), 0, "%s: %s", path, err.message);
    double area = 0, want = mesh_file_area(path);
    for (uint32_t c = 0; c < d.cell_count; ++c) area += cell_area2(&d, c) / 2;
    cr_expect(fabs(area - want) <= 1e-6 * fmax(1, want), "%s: cells cover %.9f, polygons %.9f", path, area, want);
    /* A rounded input's turns within twice its precision of straight are straight (bake.h). */
    expect_convex(&d, path, 1e-9 + 2 * s.precision);
    expect_symmetric(&d, path);
    cr_expect_leq(d.cell_count, d.notches + d.holes + d.outer_rings, "%s: %u cells > %u notches + %u holes + %u pieces",
                  path, d.cell_count, d.notches, d.holes, d.outer_rings);
    /* Every vertex is a shape vertex or lies on a shape edge: on a rounded input, within a float
       step of it (a split point is made on the floats the blob stores, on the wall's solid side). */
    const double on_edge = 1e-9 + 1.5 * s.precision;
    uint32_t off = 0;
    for (uint32_t v = s.vert_count; v < d.vert_count; ++v) {
        double px = d.xy[2 * v], py = d.xy[2 * v + 1], best = INFINITY;
        for (uint32_t r = 0; r < s.ring_count; ++r) {
            uint32_t b = s.ring_start[r], m = s.ring_start[r + 1] - b;
            for (uint32_t i = 0; i < m; ++i) {
                const double* a = &s.xy[2 * (b + i)];
                const double* c = &s.xy[2 * (b + (i + 1) % m)];
                double ex = c[0] - a[0], ey = c[1] - a[1], l2 = ex * ex + ey * ey;
                double t = ((px - a[0]) * ex + (py - a[1]) * ey) / l2;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                best = fmin(best, hypot(a[0] + t * ex - px, a[1] + t * ey - py));
            }
        }
        off += best > on_edge;
    }
    cr_expect_eq(off, 0, "%s: %u added vertices are off the boundary", path, off);
    expect_valid_blob(&d, s.flags, path);
    ptl_decomposition_free(&d);
    ptl_shape_free(&s);
}

Test(decompose, polyanya_meshes_decompose_into_convex_cells_covering_their_polygons, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    const char* sub[] = {"polyanya/meshes", "polyanya/meshes/tests"};
    int n = 0;
    for (int i = 0; i < 2; ++i) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", data, sub[i]);
        char** l = test_list_files(dir, ".mesh");
        for (char** p = l; *p; ++p, ++n) check_mesh(*p);
        test_free_list(l);
    }
    cr_expect_geq(n, 11, "expected the Polyanya meshes, found %d", n);
}

/* Hand-made shapes with known answers: the classic ANavMG cases. */
static void decompose_rings(const double* xy, uint32_t nv, const uint32_t* rs, uint32_t nr, ptl_decomposition* d) {
    ptl_shape s;
    memset(&s, 0, sizeof s);
    s.xy = (double*)xy;
    s.vert_count = nv;
    s.ring_start = (uint32_t*)rs;
    s.ring_count = nr;
    ptl_error err;
    cr_assert_geq(ptl_decompose(&s, NULL, d, &err), 0, "%s", err.message);
}

Test(decompose, an_l_shape_needs_one_portal_and_a_cross_three) {
    const double L[] = {0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2};
    const uint32_t Lr[] = {0, 6};
    ptl_decomposition d;
    decompose_rings(L, 6, Lr, 1, &d);
    cr_expect_eq(d.cell_count, 2);
    cr_expect_eq(d.portal_count, 1);
    ptl_decomposition_free(&d);
    /* A plus sign: four notches, each pair facing each other resolved by vertex-vertex portals. */
    const double X[] = {1, 0, 2, 0, 2, 1, 3, 1, 3, 2, 2, 2, 2, 3, 1, 3, 1, 2, 0, 2, 0, 1, 1, 1};
    const uint32_t Xr[] = {0, 12};
    decompose_rings(X, 12, Xr, 1, &d);
    cr_expect_eq(d.notches, 4);
    cr_expect_eq(d.split_points, 0, "portals should join notches, not split edges");
    cr_expect_leq(d.cell_count, 4);
    expect_convex(&d, "cross", 0);
    ptl_decomposition_free(&d);
}

Test(decompose, a_notch_facing_an_earlier_portal_joins_its_endpoints_not_its_middle) {
    /* A room with a hole whose lower right corner is cut: the later notch's closest element is a
       portal made by an earlier notch (thesis §4.2); no vertex may be added off the boundary. */
    const double C[] = {0, 0, 10, 0, 10, 10, 0, 10, 4, 4, 4, 6, 6, 6, 6, 4.5, 5, 4.5, 5, 4};
    const uint32_t Cr[] = {0, 4, 10};
    ptl_decomposition d;
    decompose_rings(C, 10, Cr, 2, &d);
    expect_convex(&d, "comb", 1e-12);
    expect_symmetric(&d, "comb");
    double area = 0;
    for (uint32_t c = 0; c < d.cell_count; ++c) area += cell_area2(&d, c) / 2;
    cr_expect_float_eq(area, 100 - 3.5, 1e-9);
    cr_expect_leq(d.cell_count, d.notches + d.holes + 1);
    expect_valid_blob(&d, 0, "comb");
    ptl_decomposition_free(&d);
}

Test(decompose, bad_arguments_are_refused_with_a_status) {
    ptl_decomposition d;
    ptl_error err;
    cr_expect_eq(ptl_decompose(NULL, NULL, &d, &err), PTL_ERR_INVALID_ARG);
    ptl_shape empty;
    memset(&empty, 0, sizeof empty);
    cr_expect_eq(ptl_decompose(&empty, NULL, &d, &err), PTL_ERR_BAD_INPUT);
    const double sq[] = {0, 0, 1, 0, 1, 1, 0, 1};
    const uint32_t rs[] = {0, 4};
    ptl_shape s = {4, (double*)sq, 1, (uint32_t*)rs, 0, {0}};
    ptl_decompose_desc bad = {.relax = NAN, .pair_slack = 0, .alloc = NULL};
    cr_expect_eq(ptl_decompose(&s, &bad, &d, &err), PTL_ERR_INVALID_ARG);
    bad.relax = -1;
    cr_expect_eq(ptl_decompose(&s, &bad, &d, &err), PTL_ERR_INVALID_ARG);
}
