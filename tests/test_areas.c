/* Areas and query filters (bake.h ptl_area_name / ptl_area_volume, runtime.h ptl_query_filter).
   The scene is an OBJ written here: a 20 x 20 m floor of 1 m quads at y = 0, a wall across it at
   z = 9.6 .. 10.4 with two doors, the direct one at x = 9 .. 11 and a side one at x = 16 .. 18; the
   floor quads of the direct door's square [9, 11] x [9, 11] are group "mud", the others "floor".
   Mapped to area 5, the default path from (10, 0, 5) to (10, 0, 15) goes through the mud door;
   costing area 5 highly, or excluding it, sends it through the side door, and no query returns a
   point or a cell of an excluded area. Areas are checked from the input geometry itself: a point
   deeper than one voxel column inside the mud square must be in an area-5 cell, one farther than
   a column outside it in an area-0 cell (the rasterizer gives a boundary column either area). */
#include <portolan/runtime.h>

#include "../tools/jobs.h"
#include "test_util.h"

#define CS 0.3 /* the bake's default cell size */

static void add_quad(char** s, size_t* n, size_t* cap, int* nv, const char* g, const float v[4][3]) {
    if (*n + 512 > *cap) *s = realloc(*s, *cap = *cap * 2 + 4096);
    for (int k = 0; k < 4; ++k) *n += (size_t)sprintf(*s + *n, "v %g %g %g\n", v[k][0], v[k][1], v[k][2]);
    *n += (size_t)sprintf(*s + *n, "g %s\nf %d %d %d %d\n", g, *nv + 1, *nv + 2, *nv + 3, *nv + 4);
    *nv += 4;
}

/* The scene's OBJ text (malloc'd). */
static char* doors_obj(void) {
    char* s = NULL;
    size_t n = 0, cap = 0;
    int nv = 0;
    for (int x = 0; x < 20; ++x)
        for (int z = 0; z < 20; ++z) {
            const float q[4][3] = {{x, 0, z}, {x, 0, z + 1}, {x + 1, 0, z + 1}, {x + 1, 0, z}};
            add_quad(&s, &n, &cap, &nv, x >= 9 && x < 11 && z >= 9 && z < 11 ? "mud" : "floor", q);
        }
    const float xs[3][2] = {{0, 9}, {11, 16}, {18, 20}};
    for (int i = 0; i < 3; ++i) {
        const float x0 = xs[i][0], x1 = xs[i][1], z0 = 9.6f, z1 = 10.4f, h = 3;
        const float top[4][3] = {{x0, h, z0}, {x0, h, z1}, {x1, h, z1}, {x1, h, z0}};
        const float front[4][3] = {{x0, 0, z0}, {x1, 0, z0}, {x1, h, z0}, {x0, h, z0}};
        const float back[4][3] = {{x1, 0, z1}, {x0, 0, z1}, {x0, h, z1}, {x1, h, z1}};
        const float left[4][3] = {{x0, 0, z1}, {x0, 0, z0}, {x0, h, z0}, {x0, h, z1}};
        const float right[4][3] = {{x1, 0, z0}, {x1, 0, z1}, {x1, h, z1}, {x1, h, z0}};
        add_quad(&s, &n, &cap, &nv, "wall", top);
        add_quad(&s, &n, &cap, &nv, "wall", front);
        add_quad(&s, &n, &cap, &nv, "wall", back);
        add_quad(&s, &n, &cap, &nv, "wall", left);
        add_quad(&s, &n, &cap, &nv, "wall", right);
    }
    return s;
}

static const ptl_area_name MUD[] = {{.name = "mud", .area = 5}};
/* A convex volume (a diamond) around (4, 4) in plan, area 7. */
static const float DIAMOND[] = {4, 1.5f, 6.5f, 4, 4, 6.5f, 1.5f, 4};
static const ptl_area_volume VOLUME[] = {{.xz = DIAMOND, .vert_count = 4, .ymin = -1, .ymax = 1, .area = 7}};

static ptl_navmesh* bake_doors(const ptl_bake_desc* d, void** blob_out, size_t* size_out) {
    char* text = doors_obj();
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_obj_parse(text, strlen(text), "doors.obj", NULL, &m, &err), PTL_OK, "%s", err.message);
    free(text);
    void* blob;
    size_t size;
    cr_assert_geq(ptl_bake_trimesh(&m, d, &blob, &size, NULL, &err), 0, "%s", err.message);
    ptl_trimesh_free(&m);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_navmesh_validate(nm, &err), 0, "%s", err.message);
    if (blob_out) *blob_out = blob, *size_out = size;
    else ptl_blob_free(blob, size, NULL);
    return nm;
}

static uint32_t area_of(const ptl_navmesh* nm, uint32_t c) {
    ptl_cell_view v;
    cr_assert_eq(ptl_navmesh_get_cell(nm, c, &v), PTL_OK);
    return v.area;
}

/* Is (x, z) inside the convex polygon (either winding, boundary included)? */
static bool in_poly(const float* xz, int n, double x, double z) {
    int sign = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        double c = ((double)xz[2 * i] - xz[2 * j]) * (z - xz[2 * j + 1]) - ((double)xz[2 * i + 1] - xz[2 * j + 1]) * (x - xz[2 * j]);
        int s = c > 0 ? 1 : c < 0 ? -1 : 0;
        if (s && sign && s != sign) return false;
        if (s) sign = s;
    }
    return true;
}

/* The area a point must have (-1: either) from the input: the mud square, the volume when given. */
static int expected_area(double x, double z, bool volume) {
    if (volume) {
        /* a column's centre within the volume marks it: deeper than a column inside, surely 7 */
        bool deep = true, near = false;
        for (int k = 0; k < 8; ++k) {
            const double a = k * 0.7853981633974483, dx = CS * 1.5 * cos(a), dz = CS * 1.5 * sin(a);
            deep &= in_poly(DIAMOND, 4, x + dx, z + dz);
            near |= in_poly(DIAMOND, 4, x + dx, z + dz);
        }
        if (deep) return 7;
        if (near || in_poly(DIAMOND, 4, x, z)) return -1;
    }
    const double lo = 9, hi = 11, m = CS * 1.01;
    if (x > lo + m && x < hi - m && z > lo + m && z < hi - m) return 5;
    if (x < lo - m || x > hi + m || z < lo - m || z > hi + m) return 0;
    return -1;
}

/* Cells never mix areas: the centroid and points between it and each vertex of every walkable cell
   have the area the input gives them (or lie within a column of an area's border). */
static void check_cells_single_area(const ptl_navmesh* nm, bool volume, uint32_t* seen_areas) {
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    for (uint32_t c = 0; c < in.cell_count; ++c) {
        ptl_cell_view v;
        cr_assert_eq(ptl_navmesh_get_cell(nm, c, &v), PTL_OK);
        if (v.link != PTL_NONE) continue;
        seen_areas[v.area] = 1;
        double cx = 0, cz = 0;
        for (uint32_t i = 0; i < v.vert_count; ++i) cx += ptl_navmesh_vert(nm, v.verts[i])[0], cz += ptl_navmesh_vert(nm, v.verts[i])[2];
        cx /= v.vert_count, cz /= v.vert_count;
        for (uint32_t i = 0; i <= v.vert_count; ++i) {
            double x = cx, z = cz;
            if (i < v.vert_count) {
                const float* p = ptl_navmesh_vert(nm, v.verts[i]);
                x = cx + 0.95 * (p[0] - cx), z = cz + 0.95 * (p[2] - cz);
            }
            const int want = expected_area(x, z, volume);
            cr_expect(want < 0 || (uint32_t)want == v.area, "cell %u (area %u) holds (%g, %g), of area %d", c, v.area, x, z,
                      want);
        }
    }
}

Test(areas, cells_never_mix_areas_and_take_the_named_groups_area) {
    const ptl_bake_desc d = {.area_names = MUD, .area_name_count = 1};
    ptl_navmesh* nm = bake_doors(&d, NULL, NULL);
    uint32_t seen[64] = {0};
    check_cells_single_area(nm, false, seen);
    cr_expect(seen[0] && seen[5], "areas 0 and 5 both present");
    ptl_navmesh_destroy(nm);
    /* without a table every cell is area 0 */
    nm = bake_doors(NULL, NULL, NULL);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    for (uint32_t c = 0; c < in.cell_count; ++c) cr_expect_eq(area_of(nm, c), 0);
    ptl_navmesh_destroy(nm);
}

Test(areas, a_convex_volume_marks_its_cells_in_one_piece_or_tiles_the_same_bytes_on_two_threads) {
    static const uint32_t tiles[3] = {0, 16, 32};
    ptl_thread_jobs jobs;
    ptl_thread_jobs_init(&jobs, 2);
    for (int t = 0; t < 3; ++t) {
        ptl_bake_desc d = {
            .area_names = MUD, .area_name_count = 1, .area_volumes = VOLUME, .area_volume_count = 1, .tile_size = tiles[t]};
        void *blob, *blob2;
        size_t size, size2;
        ptl_navmesh* nm = bake_doors(&d, &blob, &size);
        uint32_t seen[64] = {0};
        check_cells_single_area(nm, true, seen);
        cr_expect(seen[0] && seen[5] && seen[7], "tile size %u: areas 0, 5 and 7 present", tiles[t]);
        ptl_navmesh_destroy(nm);
        d.jobs = &jobs.sys;
        ptl_navmesh_destroy(bake_doors(&d, &blob2, &size2));
        cr_expect(size == size2 && memcmp(blob, blob2, size) == 0, "tile size %u: 1 and 2 threads differ", tiles[t]);
        ptl_blob_free(blob, size, NULL);
        ptl_blob_free(blob2, size2, NULL);
    }
}

Test(areas, bad_area_tables_and_volumes_are_invalid_arguments) {
    const ptl_area_name zero[] = {{.name = "mud", .area = 0}}, big[] = {{.name = "mud", .area = 64}}, noname[] = {{.area = 3}};
    const ptl_area_volume two[] = {{.xz = DIAMOND, .vert_count = 2, .ymin = 0, .ymax = 1, .area = 3}};
    const ptl_area_volume upside[] = {{.xz = DIAMOND, .vert_count = 4, .ymin = 1, .ymax = 0, .area = 3}};
    const ptl_bake_desc bad[] = {{.area_names = zero, .area_name_count = 1}, {.area_names = big, .area_name_count = 1},
                                 {.area_names = noname, .area_name_count = 1}, {.area_volumes = two, .area_volume_count = 1},
                                 {.area_volumes = upside, .area_volume_count = 1}, {.area_name_count = 1}};
    char* text = doors_obj();
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_obj_parse(text, strlen(text), "doors.obj", NULL, &m, &err), PTL_OK);
    free(text);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        void* blob = NULL;
        size_t size = 0;
        cr_expect_eq(ptl_bake_trimesh(&m, &bad[i], &blob, &size, NULL, &err), PTL_ERR_INVALID_ARG, "case %zu", i);
        cr_expect(strstr(err.message, "area"), "case %zu names areas: %s", i, err.message);
        cr_expect_null(blob);
    }
    ptl_trimesh_free(&m);
}

typedef struct world {
    ptl_navmesh* nm;
    ptl_query* q;
} world;

static world doors_world(void) {
    const ptl_bake_desc d = {.area_names = MUD, .area_name_count = 1};
    world w;
    w.nm = bake_doors(&d, NULL, NULL);
    cr_assert_eq(ptl_query_create(w.nm, NULL, &w.q), PTL_OK);
    return w;
}

static void world_free(world* w) {
    ptl_query_destroy(w->q);
    ptl_navmesh_destroy(w->nm);
}

typedef struct path {
    ptl_status st;
    float pts[3 * 64];
    uint32_t cells[256];
    ptl_path_result res;
} path;

static void find(world* w, ptl_path_mode mode, float radius, path* p) {
    ptl_path_request req = {.start = {10, 0, 5}, .goal = {10, 0, 15}, .mode = mode, .radius = radius};
    memset(&p->res, 0, sizeof p->res);
    p->res.points = p->pts, p->res.point_capacity = 64;
    if (radius == 0) p->res.cells = p->cells, p->res.cell_capacity = 256;
    p->st = ptl_query_find_path(w->q, &req, &p->res);
}

/* Where the path crosses the wall's middle line z = 10: its x. */
static double crossing_x(const path* p) {
    for (uint32_t i = 0; i + 1 < p->res.point_count; ++i) {
        const float *a = p->pts + 3 * i, *b = p->pts + 3 * i + 3;
        if ((a[2] - 10) * (b[2] - 10) <= 0 && a[2] != b[2]) return a[0] + (b[0] - a[0]) * (10 - a[2]) / (b[2] - a[2]);
    }
    return NAN;
}

static bool path_has_area(const world* w, const path* p, uint32_t area) {
    for (uint32_t i = 0; i < p->res.cell_count && i < 256; ++i)
        if (area_of(w->nm, p->cells[i]) == area) return true;
    return false;
}

Test(areas, the_default_path_takes_the_direct_door_a_costly_or_excluded_area_the_other) {
    world w = doors_world();
    path p;
    for (int mode = 0; mode < 2; ++mode) {
        ptl_query_set_filter(w.q, NULL);
        find(&w, (ptl_path_mode)mode, 0, &p);
        cr_assert_eq(p.st, PTL_OK, "mode %d", mode);
        cr_expect_float_eq(p.res.length, 10.0, 1e-4, "mode %d: straight through the mud door", mode);
        cr_expect(path_has_area(&w, &p, 5), "mode %d: the path crosses the mud", mode);
        ptl_query_filter f = ptl_query_filter_defaults();
        f.area_cost[5] = 100;
        cr_assert_eq(ptl_query_set_filter(w.q, &f), PTL_OK);
        find(&w, (ptl_path_mode)mode, 0, &p);
        cr_assert_eq(p.st, PTL_OK);
        const double side = crossing_x(&p);
        cr_expect(side > 15.9 && side < 18.1, "mode %d, cost 100: through the side door, x %g", mode, side);
        cr_expect(!path_has_area(&w, &p, 5), "mode %d, cost 100: no mud cell", mode);
        /* a small cost keeps the mud door: 2 m of mud at cost 1.5 beats a 6 m detour */
        f.area_cost[5] = 1.5f;
        ptl_query_set_filter(w.q, &f);
        find(&w, (ptl_path_mode)mode, 0, &p);
        cr_expect(fabs(crossing_x(&p) - 10) < 1, "mode %d, cost 1.5: still the mud door", mode);
        f = ptl_query_filter_defaults();
        f.exclude_mask = 1ull << 5;
        ptl_query_set_filter(w.q, &f);
        find(&w, (ptl_path_mode)mode, 0, &p);
        cr_assert_eq(p.st, PTL_OK);
        cr_expect(crossing_x(&p) > 15.9, "mode %d, excluded: through the side door", mode);
        cr_expect(!path_has_area(&w, &p, 5), "mode %d, excluded: no mud cell", mode);
        /* include_mask without area 5 is the same */
        f = ptl_query_filter_defaults();
        f.include_mask = ~(1ull << 5);
        ptl_query_set_filter(w.q, &f);
        find(&w, (ptl_path_mode)mode, 0, &p);
        cr_expect(crossing_x(&p) > 15.9, "mode %d, not included: through the side door", mode);
    }
    /* a disc of radius 0.4 fits both doors (2 m wide): it too goes around an excluded area */
    for (int mode = 0; mode < 2; ++mode) {
        find(&w, (ptl_path_mode)mode, 0.4f, &p);
        cr_assert_geq(p.st, 0, "disc mode %d: %d", mode, p.st);
        cr_expect(crossing_x(&p) > 15.9, "disc mode %d, excluded: the side door (x %g)", mode, crossing_x(&p));
    }
    ptl_query_filter bad = ptl_query_filter_defaults();
    bad.area_cost[3] = 0;
    cr_expect_eq(ptl_query_set_filter(w.q, &bad), PTL_ERR_INVALID_ARG);
    bad.area_cost[3] = NAN;
    cr_expect_eq(ptl_query_set_filter(w.q, &bad), PTL_ERR_INVALID_ARG);
    cr_expect_eq(ptl_query_get_filter(w.q).include_mask, ~(1ull << 5), "a refused filter leaves the last one");
    world_free(&w);
}

static bool in_mud_cell(const world* w, uint32_t c) { return c != PTL_NONE && area_of(w->nm, c) == 5; }

Test(areas, no_query_returns_a_point_or_a_cell_of_an_excluded_area) {
    world w = doors_world();
    ptl_query_filter f = ptl_query_filter_defaults();
    f.exclude_mask = 1ull << 5;
    cr_assert_eq(ptl_query_set_filter(w.q, &f), PTL_OK);
    /* random points: never in the mud */
    uint64_t rng = 12345;
    for (int i = 0; i < 5000; ++i) {
        ptl_location l;
        cr_assert_eq(ptl_query_random_point(w.q, &rng, &l), PTL_OK);
        cr_assert(!in_mud_cell(&w, l.cell) && expected_area(l.point[0], l.point[2], false) != 5, "random point (%g, %g)",
                  l.point[0], l.point[2]);
        const float c[3] = {10, 0, 8.5f};
        cr_assert_eq(ptl_query_random_point_in_circle(w.q, c, NULL, 3, &rng, &l), PTL_OK);
        cr_assert(!in_mud_cell(&w, l.cell) && expected_area(l.point[0], l.point[2], false) != 5, "random point in circle");
    }
    /* nearest: a point in the mud snaps out of it */
    for (float x = 9.2f; x < 11; x += 0.3f)
        for (float z = 9.2f; z < 11; z += 0.3f) {
            const float p[3] = {x, 0, z}, ext[3] = {3, 2, 3};
            ptl_location l;
            cr_assert_eq(ptl_query_locate(w.q, p, ext, &l), PTL_OK);
            cr_expect(!in_mud_cell(&w, l.cell) && expected_area(l.point[0], l.point[2], false) != 5, "nearest of (%g, %g)", x, z);
        }
    /* a move into the mud door stops at its border, its cells all passable */
    {
        const float s[3] = {10, 0, 5}, e[3] = {10, 0, 15};
        uint32_t cells[64];
        ptl_move_result m = {.cells = cells, .cell_capacity = 64};
        cr_assert_geq(ptl_query_move_along_surface(w.q, s, e, NULL, &m), 0);
        cr_expect(!in_mud_cell(&w, m.end_cell) && m.point[2] < 9.5f, "move ends at (%g, %g)", m.point[0], m.point[2]);
        for (uint32_t i = 0; i < m.cell_count && i < 64; ++i) cr_expect(!in_mud_cell(&w, cells[i]));
    }
    /* a raycast through the mud door hits its border */
    {
        const float s[3] = {10, 0, 5}, e[3] = {10, 0, 15};
        uint32_t cells[64];
        ptl_raycast_hit h = {.cells = cells, .cell_capacity = 64};
        cr_assert_geq(ptl_query_raycast(w.q, s, e, NULL, &h), 0);
        cr_expect(h.hit && h.point[2] < 9.5f, "raycast stops before the mud (%g)", h.point[2]);
        for (uint32_t i = 0; i < h.cell_count && i < 64; ++i) cr_expect(!in_mud_cell(&w, cells[i]));
    }
    /* the wall distance sees the mud's border as a wall */
    {
        const float p[3] = {10, 0, 8};
        ptl_wall_hit h;
        cr_assert_geq(ptl_query_wall_distance(w.q, p, NULL, 5, &h), 0);
        cr_expect(h.found && h.distance < 1.4f, "the mud border is %g away", h.distance);
    }
    /* cells in a circle and in a box: none of the mud */
    {
        const float p[3] = {10, 0, 8}, lo[3] = {8, -1, 8}, hi[3] = {12, 1, 12};
        uint32_t cells[64], n = 0;
        cr_assert_geq(ptl_query_cells_in_circle(w.q, p, NULL, 4, cells, 64, &n), 0);
        for (uint32_t i = 0; i < n && i < 64; ++i) cr_expect(!in_mud_cell(&w, cells[i]));
        cr_assert_geq(ptl_query_cells_in_box(w.q, lo, hi, cells, 64, &n), 0);
        for (uint32_t i = 0; i < n && i < 64; ++i) cr_expect(!in_mud_cell(&w, cells[i]));
    }
    /* a goal in the mud: no path reaches it, the partial path ends outside it */
    {
        ptl_path_request req = {.start = {10, 0, 5}, .goal = {10, 0, 10}};
        float pts[3 * 64];
        uint32_t cells[256];
        ptl_path_result r = {.points = pts, .point_capacity = 64, .cells = cells, .cell_capacity = 256};
        ptl_status st = ptl_query_find_path(w.q, &req, &r);
        cr_expect(st == PTL_PARTIAL || st == PTL_ERR_NOT_FOUND || (st >= 0 && r.goal_cell != PTL_NONE && !in_mud_cell(&w, r.goal_cell)),
                  "status %d", st);
        for (uint32_t i = 0; i < r.point_count; ++i) cr_expect(expected_area(pts[3 * i], pts[3 * i + 2], false) != 5);
        for (uint32_t i = 0; i < r.cell_count && i < 256; ++i) cr_expect(!in_mud_cell(&w, cells[i]));
    }
    /* back to the defaults: the mud is found again */
    ptl_query_set_filter(w.q, NULL);
    const float p[3] = {10, 0, 10};
    ptl_location l;
    cr_assert_eq(ptl_query_locate(w.q, p, NULL, &l), PTL_OK);
    cr_expect(in_mud_cell(&w, l.cell));
    world_free(&w);
}

/* What a query keeps across disc searches (the corners' sight lists and wall distances, the checked
   segments between two corners' circles) follows the filter's walls: a query that answered disc
   paths under one filter and then another gives the paths, bit for bit, of a fresh query with the
   second filter. The jambs of the mud door are corners whose segment along the door is clear until
   the mud is excluded. */
Test(areas, disc_paths_of_a_query_after_a_filter_change_are_those_of_a_fresh_query) {
    world w = doors_world();
    const float ends[][6] = {{4, 0, 5, 4, 0, 15}, {9.5f, 0, 8.5f, 9.5f, 0, 11.5f}, {2, 0, 2, 14, 0, 18}};
    ptl_query_filter none = ptl_query_filter_defaults(), mud = none;
    mud.exclude_mask = 1ull << 5;
    const ptl_query_filter* filters[] = {&none, &mud, &none, &mud};
    for (int k = 0; k < 4; ++k) {
        cr_assert_eq(ptl_query_set_filter(w.q, filters[k]), PTL_OK);
        ptl_query* fresh;
        cr_assert_eq(ptl_query_create(w.nm, NULL, &fresh), PTL_OK);
        cr_assert_eq(ptl_query_set_filter(fresh, filters[k]), PTL_OK);
        for (size_t i = 0; i < sizeof ends / sizeof ends[0]; ++i)
            for (int mode = 0; mode < 2; ++mode)
                for (int ri = 0; ri < 2; ++ri) {
                    ptl_path_request req = {.mode = (ptl_path_mode)mode, .radius = ri ? 0.6f : 0.45f};
                    memcpy(req.start, ends[i], sizeof req.start), memcpy(req.goal, ends[i] + 3, sizeof req.goal);
                    path a, b;
                    ptl_query* qs[2] = {w.q, fresh};
                    path* ps[2] = {&a, &b};
                    for (int j = 0; j < 2; ++j) {
                        memset(&ps[j]->res, 0, sizeof ps[j]->res);
                        ps[j]->res.points = ps[j]->pts, ps[j]->res.point_capacity = 64;
                        ps[j]->st = ptl_query_find_path(qs[j], &req, &ps[j]->res);
                    }
                    cr_assert_eq(a.st, b.st, "filter %d pair %zu mode %d r %g", k, i, mode, req.radius);
                    cr_assert(a.res.found == b.res.found && a.res.length == b.res.length &&
                                  a.res.point_count == b.res.point_count,
                              "filter %d pair %zu mode %d r %g: length %.17g, %.17g", k, i, mode, req.radius,
                              a.res.length, b.res.length);
                    cr_assert(!memcmp(a.pts, b.pts, 3 * sizeof(float) * a.res.point_count));
                    if (k % 2 && i == 0 && a.res.found)
                        cr_expect(crossing_x(&a) > 15.9, "mud excluded: the side door (x %g)", crossing_x(&a));
                }
        ptl_query_destroy(fresh);
    }
    world_free(&w);
}

/* The least plan distance from segment a-b to segment c-d (the segments do not cross: walls stay
   outside a path that keeps clear of them). */
static double seg_seg(const float* a, const float* b, const float* c, const float* d) {
    double best = INFINITY;
    const float* ends[4][3] = {{a, c, d}, {b, c, d}, {c, a, b}, {d, a, b}};
    for (int k = 0; k < 4; ++k) {
        const float *p = ends[k][0], *u = ends[k][1], *v = ends[k][2];
        const double ex = v[0] - u[0], ez = v[2] - u[2], l2 = ex * ex + ez * ez;
        double t = l2 > 0 ? ((p[0] - u[0]) * ex + (p[2] - u[2]) * ez) / l2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        const double dx = u[0] + t * ex - p[0], dz = u[2] + t * ez - p[2];
        best = fmin(best, sqrt(dx * dx + dz * dz));
    }
    return best;
}

/* Found by the stop-28 helpers: on this world (its mud area splits the floor's cells), the exact
   disc search's sweep of sight went round between cells, narrowing each window by a rounding step,
   for minutes. Both pairs must answer at once, with paths that keep their radius from every wall
   of the floor (brute force over the navmesh's wall edges). */
Test(areas, exact_disc_paths_that_once_swept_for_minutes_answer_and_keep_their_radius, .timeout = 60) {
    world w = doors_world();
    const float ends[][7] = {{4, 0, 5, 4, 0, 15, 0.3f}, {12, 0, 4, 6, 0, 16, 0.45f}};
    ptl_navmesh_info info;
    ptl_navmesh_get_info(w.nm, &info);
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; ++i) {
        ptl_path_request req = {.mode = PTL_PATH_EXACT, .radius = ends[i][6]};
        memcpy(req.start, ends[i], sizeof req.start), memcpy(req.goal, ends[i] + 3, sizeof req.goal);
        path p;
        memset(&p.res, 0, sizeof p.res);
        p.res.points = p.pts, p.res.point_capacity = 64;
        p.st = ptl_query_find_path(w.q, &req, &p.res);
        cr_assert_geq(p.st, 0, "pair %zu: %s", i, ptl_status_name(p.st));
        cr_assert(p.res.found, "pair %zu: not found", i);
        double least = INFINITY;
        for (uint32_t c = 0; c < info.cell_count; ++c) {
            ptl_cell_view v;
            if (ptl_navmesh_get_cell(w.nm, c, &v) < 0 || v.link != PTL_NONE) continue;
            for (uint32_t e = 0; e < v.vert_count; ++e) {
                if (v.neighbors[e] != PTL_NONE) continue;
                const float *a = ptl_navmesh_vert(w.nm, v.verts[e]), *b = ptl_navmesh_vert(w.nm, v.verts[(e + 1) % v.vert_count]);
                if (a[1] > 1 || b[1] > 1) continue; /* the floor's walls, not the wall tops' */
                for (uint32_t k = 0; k + 1 < p.res.point_count; ++k)
                    least = fmin(least, seg_seg(&p.pts[3 * k], &p.pts[3 * k + 3], a, b));
            }
        }
        cr_expect_geq(least, req.radius - 1e-4, "pair %zu: %g from a wall at r %g", i, least, (double)req.radius);
    }
    world_free(&w);
}
