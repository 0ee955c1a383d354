/* Scale scenes: K x K copies of a mesh (ptl_trimesh_copies) and grid maps extruded into
   3D (ptl_grid_extrude). Counts and bounds are checked against numbers computed here from the
   definitions; the bakes of the results against the bake of the original (copies) or against the
   grid itself (extrusions: area column by column, connectivity by flood fill). Real data comes from
   ../shared/data; without it those tests skip loudly. Nothing large is baked here (Aurora is only
   extruded, dungeon only copied 2 x 2). */
#include "failing_alloc.h"
#include "test_util.h"

#include <unistd.h>

/* ---- Helpers -----------------------------------------------------------------------------------*/

static void load_dungeon(const char* data, ptl_trimesh* m) {
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/dungeon.obj", data);
    ptl_error err;
    cr_assert_eq(ptl_obj_load(path, NULL, m, &err), PTL_OK, "%s: %s", path, err.message);
}

static void load_map(const char* data, const char* rel, ptl_grid* g) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", data, rel);
    ptl_error err;
    cr_assert_eq(ptl_grid_load(path, NULL, g, &err), PTL_OK, "%s: %s", path, err.message);
}

/* Bakes, checks every invariant of the result and returns it loaded. */
static ptl_navmesh* bake_valid(const ptl_trimesh* m, const ptl_bake_desc* d, const char* what) {
    void* blob = NULL;
    size_t size = 0;
    ptl_error err;
    ptl_status st = ptl_bake_trimesh(m, d, &blob, &size, NULL, &err);
    cr_assert_geq(st, 0, "%s: bake failed: %s", what, err.message);
    ptl_navmesh* nm = NULL;
    st = ptl_navmesh_create(blob, size, NULL, &nm, &err);
    ptl_blob_free(blob, size, NULL);
    cr_assert_eq(st, PTL_OK, "%s: the blob does not load: %s", what, err.message);
    cr_assert_eq(ptl_navmesh_validate(nm, &err), PTL_OK, "%s: invalid navmesh: %s", what, err.message);
    return nm;
}

static double walkable_area(const ptl_navmesh* nm) {
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    return info.walkable_area;
}

/* Bounds of the vertices triangles use, from the arrays (not the struct's bmin/bmax). */
static void used_bounds(const ptl_trimesh* m, float bmin[3], float bmax[3]) {
    for (int c = 0; c < 3; ++c) bmin[c] = INFINITY, bmax[c] = -INFINITY;
    for (size_t k = 0; k < (size_t)m->tri_count * 3; ++k)
        for (int c = 0; c < 3; ++c) {
            float x = m->verts[(size_t)m->tris[k] * 3 + c];
            bmin[c] = fminf(bmin[c], x);
            bmax[c] = fmaxf(bmax[c], x);
        }
}

/* ---- Copies ------------------------------------------------------------------------------------*/

/* Every copy is the input moved by (i * pitch_x, 0, j * pitch_z): same triangles, same tags,
   vertices within one rounding of the exact sum; the whole is K times as long along x and z. */
static void check_copies(const ptl_trimesh* in, const ptl_trimesh* out, uint32_t K, double px, double pz) {
    cr_assert_eq(out->tri_count, K * K * in->tri_count);
    cr_assert_eq(out->vert_count, K * K * in->vert_count);
    cr_assert_eq(out->tag_count, in->tag_count ? in->tag_count : 1);
    for (uint32_t i = 1; i < out->tag_count; ++i) cr_assert_str_eq(out->tag_names[i], in->tag_names[i]);
    for (uint32_t j = 0; j < K; ++j)
        for (uint32_t i = 0; i < K; ++i) {
            size_t c = (size_t)j * K + i;
            for (size_t t = 0; t < in->tri_count; ++t) {
                size_t o = c * in->tri_count + t;
                cr_assert_eq(out->tri_tag[o], in->tri_tag ? in->tri_tag[t] : 0);
                for (int k = 0; k < 3; ++k)
                    cr_assert_eq(out->tris[o * 3 + k], in->tris[t * 3 + k] + c * in->vert_count,
                                 "copy (%u, %u) triangle %zu", i, j, t);
            }
            for (size_t v = 0; v < in->vert_count; ++v) {
                const float* a = in->verts + v * 3;
                const float* b = out->verts + (c * in->vert_count + v) * 3;
                double ex = a[0] + i * px, ez = a[2] + j * pz;
                cr_assert(fabs(b[0] - ex) <= 1e-6 * (fabs(ex) + 1) && b[1] == a[1] &&
                              fabs(b[2] - ez) <= 1e-6 * (fabs(ez) + 1),
                          "copy (%u, %u) vertex %zu: (%g, %g, %g), expected (%g, %g, %g)", i, j, v, b[0], b[1], b[2], ex,
                          a[1], ez);
            }
        }
    float bmin[3], bmax[3], cmin[3], cmax[3];
    used_bounds(in, bmin, bmax);
    used_bounds(out, cmin, cmax);
    for (int c = 0; c < 3; ++c) {
        cr_assert_eq(out->bmin[c], cmin[c], "bmin[%d] is not the used vertices' bound", c);
        cr_assert_eq(out->bmax[c], cmax[c], "bmax[%d] is not the used vertices' bound", c);
    }
    cr_assert_eq(cmin[0], bmin[0]);
    cr_assert_eq(cmin[1], bmin[1]);
    cr_assert_eq(cmin[2], bmin[2]);
    cr_assert_eq(cmax[1], bmax[1]);
    double wx = (double)bmax[0] - bmin[0], wz = (double)bmax[2] - bmin[2];
    cr_assert_float_eq((double)cmax[0] - cmin[0], (K - 1) * px + wx, 1e-4 * (K * px + wx));
    cr_assert_float_eq((double)cmax[2] - cmin[2], (K - 1) * pz + wz, 1e-4 * (K * pz + wz));
}

Test(gen_scale, copies_of_a_generated_scene_are_k_squared_moved_copies_edge_to_edge) {
    ptl_trimesh m, c;
    ptl_error err;
    ptl_scene_desc sd = {.kind = PTL_SCENE_BUILDING, .size = 30.0f, .storeys = 2, .seed = 5};
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    for (uint32_t K = 1; K <= 3; ++K) {
        ptl_copies_desc d = {.copies = K, .spacing = 0, .gap = 0};
        cr_assert_eq(ptl_trimesh_copies(&m, &d, &c, &err), PTL_OK, "%s", err.message);
        /* default pitch: the extent, so copies touch edge to edge */
        check_copies(&m, &c, K, (double)m.bmax[0] - m.bmin[0], (double)m.bmax[2] - m.bmin[2]);
        cr_assert_float_eq((double)c.bmax[0] - c.bmin[0], K * ((double)m.bmax[0] - m.bmin[0]), 1e-4 * K * 30);
        ptl_trimesh_free(&c);
    }
    /* Baked: a valid navmesh with four times the walkable area. The building's ground reaches the
       edge of its bounds, where the ledge rule takes the outermost column off (a drop off the grid).
       Copies 3 m apart keep those ledges: four times the area. Copies edge to edge join their
       grounds along the inner seams, whose columns stop being ledges: more area, by at most one
       column (0.3 m) on each side of each seam. */
    ptl_navmesh* one = bake_valid(&m, NULL, "building");
    double a1 = walkable_area(one), L = (double)m.bmax[0] - m.bmin[0];
    cr_assert_gt(a1, 100.0, "building: walkable area %.2f", a1);
    cr_assert_float_eq(L, (double)m.bmax[2] - m.bmin[2], 1e-3, "a square footprint");
    for (int touch = 0; touch < 2; ++touch) {
        ptl_copies_desc two = {.copies = 2, .spacing = 0, .gap = touch ? 0.0f : 3.0f};
        cr_assert_eq(ptl_trimesh_copies(&m, &two, &c, &err), PTL_OK, "%s", err.message);
        ptl_navmesh* four = bake_valid(&c, NULL, "building 2x2");
        double a4 = walkable_area(four), seams = touch ? 2 * 2 * (2 * L) * 0.3 + 4 * 0.09 : 0;
        cr_log_info("building 2x2 %s: walkable area %.2f, 4 x single %.2f, seam allowance %.2f",
                    touch ? "edge to edge" : "3 m apart", a4, 4 * a1, seams);
        cr_assert(a4 >= 4 * a1 * 0.99 && a4 <= (4 * a1 + seams) * 1.01,
                  "building 2x2 %s: walkable area %.2f, 4 x single %.2f (+ up to %.2f of seams)",
                  touch ? "edge to edge" : "3 m apart", a4, 4 * a1, seams);
        ptl_navmesh_destroy(four);
        ptl_trimesh_free(&c);
    }
    ptl_navmesh_destroy(one);
    ptl_copies_desc gap = {.copies = 2, .spacing = 0, .gap = 1.5f};
    cr_assert_eq(ptl_trimesh_copies(&m, &gap, &c, &err), PTL_OK, "%s", err.message);
    check_copies(&m, &c, 2, (double)m.bmax[0] - m.bmin[0] + 1.5, (double)m.bmax[2] - m.bmin[2] + 1.5);
    ptl_trimesh_free(&c);
    ptl_copies_desc pitch = {.copies = 3, .spacing = 100.0f, .gap = 0};
    cr_assert_eq(ptl_trimesh_copies(&m, &pitch, &c, &err), PTL_OK, "%s", err.message);
    check_copies(&m, &c, 3, 100.0, 100.0);
    ptl_trimesh_free(&c);
    ptl_trimesh_free(&m);
}

/* Copies written as OBJ read back as the same mesh (tags included): the CLI's path. */
Test(gen_scale, copies_survive_an_obj_round_trip) {
    ptl_trimesh m, c, r;
    ptl_error err;
    ptl_scene_desc sd = {.kind = PTL_SCENE_BRIDGE, .size = 30.0f, .storeys = 0, .seed = 2};
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    ptl_copies_desc d = {.copies = 2, .spacing = 0, .gap = 0};
    cr_assert_eq(ptl_trimesh_copies(&m, &d, &c, &err), PTL_OK, "%s", err.message);
    char path[] = "/tmp/ptl_copiesXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(ptl_trimesh_save_obj(&c, path, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_obj_load(path, NULL, &r, &err), PTL_OK, "%s", err.message);
    remove(path);
    cr_assert_eq(r.tri_count, c.tri_count);
    cr_assert_eq(r.vert_count, c.vert_count);
    cr_assert_eq(memcmp(r.verts, c.verts, (size_t)c.vert_count * 3 * sizeof(float)), 0);
    cr_assert_eq(memcmp(r.tris, c.tris, (size_t)c.tri_count * 3 * sizeof(uint32_t)), 0);
    for (uint32_t t = 0; t < c.tri_count; ++t)
        cr_assert_str_eq(r.tag_names[r.tri_tag[t]], c.tag_names[c.tri_tag[t]], "triangle %u", t);
    ptl_trimesh_free(&r);
    ptl_trimesh_free(&c);
    ptl_trimesh_free(&m);
}

/* dungeon.obj copied 2 x 2 edge to edge bakes to four dungeons: the walkable area is 4 times the
   single bake's within 1% (the copies sit at different offsets from the voxel grid, so their
   voxelizations differ slightly; where copies touch, floors may join, which adds no area). */
Test(gen_scale, dungeon_copied_2x2_bakes_to_four_times_the_walkable_area, .timeout = 120) {
    TEST_REQUIRE_DATA(data);
    ptl_trimesh m, c;
    ptl_error err;
    load_dungeon(data, &m);
    ptl_copies_desc d = {.copies = 2, .spacing = 0, .gap = 0};
    cr_assert_eq(ptl_trimesh_copies(&m, &d, &c, &err), PTL_OK, "%s", err.message);
    check_copies(&m, &c, 2, (double)m.bmax[0] - m.bmin[0], (double)m.bmax[2] - m.bmin[2]);
    cr_assert_eq(c.tri_count, 4u * 10133u, "dungeon.obj has 10,133 triangles (../shared/data/README.md)");
    ptl_navmesh* one = bake_valid(&m, NULL, "dungeon.obj");
    ptl_navmesh* four = bake_valid(&c, NULL, "dungeon.obj 2x2");
    double a1 = walkable_area(one), a4 = walkable_area(four);
    cr_assert_gt(a1, 100.0);
    cr_assert(fabs(a4 - 4 * a1) <= 0.01 * 4 * a1, "2x2 copy: walkable area %.2f, 4 x single %.2f (%.3f%%)", a4, 4 * a1,
              100.0 * (a4 / (4 * a1) - 1));
    ptl_navmesh_destroy(one);
    ptl_navmesh_destroy(four);
    ptl_trimesh_free(&c);
    ptl_trimesh_free(&m);
}

/* Bad arguments get a status and a message, never a crash, and leave `out` empty. */
static void expect_copies_error(const ptl_trimesh* in, const ptl_copies_desc* d, ptl_status want, const char* needle) {
    ptl_trimesh out;
    ptl_error err;
    memset(&err, 0, sizeof err);
    ptl_status st = ptl_trimesh_copies(in, d, &out, &err);
    cr_assert_eq(st, want, "got %s (%s), want %s", ptl_status_name(st), err.message, ptl_status_name(want));
    cr_assert_eq(err.status, want);
    cr_assert(strstr(err.message, needle), "message '%s' lacks '%s'", err.message, needle);
    cr_assert(out.tri_count == 0 && out.vert_count == 0 && !out.verts && !out.tris, "out is not empty on failure");
    ptl_trimesh_free(&out);
}

Test(gen_scale, copies_refuse_bad_arguments_with_clear_errors) {
    ptl_trimesh m;
    ptl_error err;
    ptl_scene_desc sd = {.kind = PTL_SCENE_BUILDING, .size = 24.0f, .storeys = 1, .seed = 0};
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    cr_assert_gt(m.tri_count, 128u);
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 0, .spacing = 0, .gap = 0}, PTL_ERR_INVALID_ARG, "outside 1..4096");
    expect_copies_error(&m, NULL, PTL_ERR_INVALID_ARG, "outside 1..4096");
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 4097, .spacing = 0, .gap = 0}, PTL_ERR_INVALID_ARG, "outside 1..4096");
    expect_copies_error(&m, &(ptl_copies_desc){.copies = UINT32_MAX, .spacing = 0, .gap = 0}, PTL_ERR_INVALID_ARG, "outside 1..4096");
    /* 4096^2 copies of more than 128 triangles: over 2^31, refused before allocating anything */
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 4096, .spacing = 0, .gap = 0}, PTL_ERR_INVALID_ARG, "more than 2^31 - 1");
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 2, .spacing = NAN, .gap = 0}, PTL_ERR_INVALID_ARG, "spacing");
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 2, .spacing = INFINITY, .gap = 0}, PTL_ERR_INVALID_ARG, "spacing");
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 2, .spacing = -1.0f, .gap = 0}, PTL_ERR_INVALID_ARG, "spacing");
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = NAN}, PTL_ERR_INVALID_ARG, "gap");
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = -0.5f}, PTL_ERR_INVALID_ARG, "gap");
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 2, .spacing = 5.0f, .gap = 1.0f}, PTL_ERR_INVALID_ARG, "not both");
    expect_copies_error(&m, &(ptl_copies_desc){.copies = 3, .spacing = 1e30f, .gap = 0}, PTL_ERR_INVALID_ARG, "float range");
    expect_copies_error(NULL, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = 0}, PTL_ERR_INVALID_ARG, "NULL");
    cr_assert_eq(ptl_trimesh_copies(&m, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = 0}, NULL, &err), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_trimesh_copies(&m, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = 0}, &m, &err), PTL_ERR_INVALID_ARG);
    cr_assert(strstr(err.message, "same mesh") && m.tri_count > 0, "in == out must be refused, leaving the mesh alone");

    /* An empty mesh, a wrong index, a non-finite vertex, a mesh flat in x. */
    ptl_trimesh e;
    memset(&e, 0, sizeof e);
    expect_copies_error(&e, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = 0}, PTL_ERR_BAD_INPUT, "no triangle");
    float v[9] = {0, 0, 0, 1, 0, 0, 0, 0, 1};
    uint32_t t[3] = {0, 2, 3};
    e.verts = v, e.vert_count = 3, e.tris = t, e.tri_count = 1;
    expect_copies_error(&e, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = 0}, PTL_ERR_INVALID_ARG, "names vertex 3 of 3");
    t[2] = 1;
    v[4] = NAN;
    expect_copies_error(&e, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = 0}, PTL_ERR_INVALID_ARG, "non-finite");
    v[4] = 0, v[3] = 0; /* every vertex at x = 0 */
    expect_copies_error(&e, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = 0}, PTL_ERR_BAD_INPUT, "no extent along x");
    ptl_trimesh c;
    cr_assert_eq(ptl_trimesh_copies(&e, &(ptl_copies_desc){.copies = 2, .spacing = 0, .gap = 1.0f}, &c, &err), PTL_OK, "a gap fixes it: %s",
                 err.message);
    cr_assert_eq(c.tri_count, 4u);
    cr_assert_eq(c.tag_count, 1u, "no tags in: tag 0 only");
    cr_assert_str_eq(c.tag_names[0], "");
    ptl_trimesh_free(&c);
    ptl_trimesh_free(&m);
}

/* ---- Allocation failures (SQLite style, as tests/test_alloc_failure.c) ---------------------------*/
Test(gen_scale, allocation_failures_are_reported_and_leak_nothing) {
    ptl_trimesh m, out;
    ptl_grid g;
    ptl_error err;
    ptl_scene_desc sd = {.kind = PTL_SCENE_BRIDGE, .size = 24.0f, .storeys = 0, .seed = 0};
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 16, .height = 12, .seed = 1, .density = 0};
    cr_assert_eq(ptl_grid_generate(&gd, &g, &err), PTL_OK, "%s", err.message);
    for (int which = 0; which < 2; ++which) {
        for (long n = 0;; ++n) {
            tracking t = {0, n, 0, 0};
            ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
            ptl_status st = which == 0 ? ptl_trimesh_copies(&m, &(ptl_copies_desc){.copies = 2, .alloc = &a}, &out, &err)
                                       : ptl_grid_extrude(&g, &(ptl_extrude_desc){.alloc = &a}, &out, &err);
            if (st == PTL_OK) {
                ptl_trimesh_free(&out);
                cr_assert_eq(t.live_blocks, 0, "%ld blocks leaked after success", t.live_blocks);
                cr_assert_eq(t.live_bytes, 0, "%zu bytes out of balance after success", t.live_bytes);
                cr_assert_gt(n, 2, "fewer allocations than expected");
                break;
            }
            cr_assert_eq(st, PTL_ERR_NO_MEMORY, "%s, failing allocation %ld: %s", which ? "extrude" : "copies", n,
                         ptl_status_name(st));
            cr_assert(t.live_blocks == 0 && t.live_bytes == 0, "failing allocation %ld: %ld blocks (%zu bytes) leaked", n,
                      t.live_blocks, t.live_bytes);
            cr_assert(out.tri_count == 0 && !out.verts, "out not empty after failure");
        }
    }
    ptl_grid_free(&g);
    ptl_trimesh_free(&m);
}

/* ---- Extrusion ---------------------------------------------------------------------------------*/

/* Counts from the grid alone: free cells and sides between a free cell and a blocked or outside one. */
static void grid_counts(const ptl_grid* g, uint64_t* free_cells, uint64_t* wall_sides) {
    *free_cells = *wall_sides = 0;
    for (long y = 0; y < (long)g->height; ++y)
        for (long x = 0; x < (long)g->width; ++x) {
            if (!test_free(g, x, y)) continue;
            ++*free_cells;
            *wall_sides += !test_free(g, x + 1, y) + !test_free(g, x - 1, y) + !test_free(g, x, y + 1) +
                           !test_free(g, x, y - 1);
        }
}

static int cmp_vec3(const void* a, const void* b) { return memcmp(a, b, 3 * sizeof(float)); }

/* The extruded mesh of g, checked triangle by triangle: counts, floors at y = 0 facing up and
   covering exactly the free cells, walls vertical, wall_height tall, on free/blocked boundaries and
   facing the free side, no vertex duplicated. */
static void check_extrusion(const ptl_grid* g, const ptl_trimesh* m, double s, double h, const char* what) {
    uint64_t nf, nw;
    grid_counts(g, &nf, &nw);
    cr_assert_eq(m->tri_count, 2 * nf + 2 * nw, "%s: %u triangles, 2 x %llu free cells + 2 x %llu wall sides = %llu", what,
                 m->tri_count, (unsigned long long)nf, (unsigned long long)nw, (unsigned long long)(2 * nf + 2 * nw));
    cr_assert_eq(m->tag_count, 3u);
    uint64_t floors = 0, walls = 0;
    double floor_area = 0, wall_area = 0;
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        const float* p[3];
        for (int k = 0; k < 3; ++k) p[k] = m->verts + (size_t)m->tris[(size_t)t * 3 + k] * 3;
        double e1[3], e2[3], n[3];
        for (int c = 0; c < 3; ++c) e1[c] = (double)p[1][c] - p[0][c], e2[c] = (double)p[2][c] - p[0][c];
        n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double area = 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        double cx = (p[0][0] + p[1][0] + p[2][0]) / (3 * s), cz = (p[0][2] + p[1][2] + p[2][2]) / (3 * s);
        const char* tag = m->tag_names[m->tri_tag[t]];
        if (!strcmp(tag, "g floor")) {
            ++floors;
            for (int k = 0; k < 3; ++k) cr_assert_eq(p[k][1], 0.0f, "%s: floor triangle %u has a vertex off y = 0", what, t);
            cr_assert_gt(n[1], 0, "%s: floor triangle %u faces down", what, t);
            cr_assert(test_free(g, (long)floor(cx), (long)floor(cz)), "%s: floor triangle %u over a blocked cell", what, t);
            cr_assert_float_eq(area, 0.5 * s * s, 1e-4 * s * s);
            floor_area += area;
        } else {
            cr_assert_str_eq(tag, "g wall", "%s: triangle %u", what, t);
            ++walls;
            cr_assert(fabs(n[1]) < 1e-9 * s * h, "%s: wall triangle %u is not vertical", what, t);
            float ylo = fminf(p[0][1], fminf(p[1][1], p[2][1])), yhi = fmaxf(p[0][1], fmaxf(p[1][1], p[2][1]));
            cr_assert(ylo == 0.0f && yhi == (float)h, "%s: wall triangle %u spans y %g..%g", what, t, ylo, yhi);
            for (int k = 0; k < 3; ++k)
                cr_assert(p[k][1] == 0.0f || p[k][1] == (float)h, "%s: wall vertex at an odd height", what);
            /* a little in front of the wall is a free cell, a little behind it is not */
            double len = sqrt(n[0] * n[0] + n[2] * n[2]);
            double fx = cx + 0.25 * n[0] / len, fz = cz + 0.25 * n[2] / len;
            double bx = cx - 0.25 * n[0] / len, bz = cz - 0.25 * n[2] / len;
            cr_assert(test_free(g, (long)floor(fx), (long)floor(fz)) && !test_free(g, (long)floor(bx), (long)floor(bz)),
                      "%s: wall triangle %u does not face from a blocked cell into a free one", what, t);
            wall_area += area;
        }
    }
    cr_assert_eq(floors, 2 * nf, "%s: floor triangles", what);
    cr_assert_eq(walls, 2 * nw, "%s: wall triangles", what);
    cr_assert_float_eq(floor_area, nf * s * s, 1e-6 * nf * s * s);
    cr_assert_float_eq(wall_area, nw * s * h, 1e-6 * nw * s * h);
    /* indexed: no two vertices at the same place, and every vertex used */
    float* sorted = malloc((size_t)m->vert_count * 3 * sizeof(float));
    memcpy(sorted, m->verts, (size_t)m->vert_count * 3 * sizeof(float));
    qsort(sorted, m->vert_count, 3 * sizeof(float), cmp_vec3);
    for (uint32_t i = 1; i < m->vert_count; ++i)
        cr_assert_neq(memcmp(sorted + 3 * (i - 1), sorted + 3 * i, 3 * sizeof(float)), 0, "%s: duplicated vertex", what);
    free(sorted);
    uint8_t* used = calloc(m->vert_count, 1);
    for (size_t k = 0; k < (size_t)m->tri_count * 3; ++k) used[m->tris[k]] = 1;
    for (uint32_t i = 0; i < m->vert_count; ++i) cr_assert(used[i], "%s: vertex %u unused", what, i);
    free(used);
}

Test(gen_scale, extruded_generated_grids_have_a_floor_per_free_cell_and_a_wall_per_boundary_side) {
    static const ptl_grid_gen_desc descs[] = {{.scene = PTL_GRID_SCENE_ROOMS, .width = 40, .height = 32, .seed = 3, .density = 0}, {.scene = PTL_GRID_SCENE_RANDOM, .width = 24, .height = 20, .seed = 9, .density = 0.35f}};
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; ++i) {
        ptl_grid g;
        ptl_trimesh m;
        ptl_error err;
        cr_assert_eq(ptl_grid_generate(&descs[i], &g, &err), PTL_OK, "%s", err.message);
        cr_assert_eq(ptl_grid_extrude(&g, NULL, &m, &err), PTL_OK, "%s", err.message);
        check_extrusion(&g, &m, 1.0, 2.0, "default desc");
        ptl_trimesh_free(&m);
        ptl_extrude_desc d = {.cell_size = 0.75f, .wall_height = 3.5f};
        cr_assert_eq(ptl_grid_extrude(&g, &d, &m, &err), PTL_OK, "%s", err.message);
        check_extrusion(&g, &m, 0.75, 3.5, "cell 0.75, walls 3.5");
        ptl_trimesh_free(&m);
        ptl_grid_free(&g);
    }
}

/* sc1/Aurora (1024 x 768), the scale scene of the tiled-bake benchmark: about 1.1 million triangles. Only
   extruded here (baking it is the benchmark's job). */
Test(gen_scale, extruded_aurora_is_a_1_1_million_triangle_scene, .timeout = 120) {
    TEST_REQUIRE_DATA(data);
    ptl_grid g;
    ptl_trimesh m;
    ptl_error err;
    load_map(data, "grids/sc1/Aurora.map", &g);
    cr_assert_eq(ptl_grid_extrude(&g, NULL, &m, &err), PTL_OK, "%s", err.message);
    uint64_t nf, nw;
    grid_counts(&g, &nf, &nw);
    cr_assert_eq(m.tri_count, 2 * nf + 2 * nw);
    cr_assert(m.tri_count > 1000000 && m.tri_count < 1200000, "Aurora: %u triangles", m.tri_count);
    for (size_t k = 0; k < (size_t)m.tri_count * 3; ++k) cr_assert_lt(m.tris[k], m.vert_count);
    cr_assert_eq(m.bmin[1], 0.0f);
    cr_assert_eq(m.bmax[1], 2.0f);
    ptl_trimesh_free(&m);
    ptl_grid_free(&g);
}

/* The bake of an extruded map against the grid, column by column. With voxels of 0.25 (a binary
   fraction, so every grid line of a 1 m map falls exactly on a column boundary), a free cell is
   4 x 4 columns. The voxelizer is conservative for vertical triangles (bake/voxel/voxelize.c): a wall
   lying on a column boundary goes into both columns beside it, so the column on the free side
   becomes a 2 m solid span that is not walkable; the same holds for a column that touches a wall
   only at its end (a corner). At agent radius 0 nothing else erodes: the wall column keeps the
   floor next to it off the ledge rule (it is a wall, not a drop). So the walkable area is exactly
   the columns that lie in a free cell and touch no wall, times 0.0625 m^2: per metre of wall the
   walls take one 0.25 m strip, never more. Contour simplification is off (max_error < 0) so the
   voxel outline is kept, and no island is dropped (min_island < 0). */
static uint64_t predicted_columns(const ptl_grid* g, int k) {
    uint64_t n = 0;
    for (long y = 0; y < (long)g->height; ++y)
        for (long x = 0; x < (long)g->width; ++x) {
            if (!test_free(g, x, y)) continue;
            /* a lattice point touches a wall unless all four cells around it are free */
            bool corner[2][2];
            for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2; ++b) {
                    long px = x + a, py = y + b;
                    corner[a][b] = !(test_free(g, px - 1, py - 1) && test_free(g, px, py - 1) && test_free(g, px - 1, py) &&
                                     test_free(g, px, py));
                }
            for (int j = 0; j < k; ++j)
                for (int i = 0; i < k; ++i) {
                    bool touch = (i == 0 && !test_free(g, x - 1, y)) || (i == k - 1 && !test_free(g, x + 1, y)) ||
                                 (j == 0 && !test_free(g, x, y - 1)) || (j == k - 1 && !test_free(g, x, y + 1));
                    if ((i == 0 || i == k - 1) && (j == 0 || j == k - 1)) touch |= corner[i != 0][j != 0];
                    n += !touch;
                }
        }
    return n;
}

static void check_extruded_bake(const ptl_grid* g, const char* what, uint32_t pairs) {
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_grid_extrude(g, NULL, &m, &err), PTL_OK, "%s", err.message);
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    /* keep_islands: keep the pockets of 1 x 1 and 2 x 3 free cells that generated maps have. */
    d.cell_size = 0.25f, d.no_simplify = true, d.keep_islands = true;
    ptl_navmesh* nm = bake_valid(&m, &d, what);
    uint64_t nf, nw;
    grid_counts(g, &nf, &nw);
    const double col = 0.25 * 0.25;
    double want = (double)predicted_columns(g, 4) * col, got = walkable_area(nm);
    cr_log_info("%s: %llu free cells, walkable area %.4f, predicted %.4f (free area minus %.4f of wall strips)", what,
                (unsigned long long)nf, got, want, (double)nf - want);
    cr_assert(fabs(got - want) <= 1e-4 * want, "%s: walkable area %.4f, predicted %.4f", what, got, want);
    /* The same as a bound on the free area: never more, and at most a 0.25 m strip per metre of
       wall plus, at a lattice point where free space turns around a blocked corner, one column
       touching the wall ends there only at its corner (at most half a column per wall side: each
       such point ends two wall sides). */
    cr_assert(got <= (double)nf + 1e-6 && got >= (double)nf - (0.25 + 0.5 * col) * (double)nw - 1e-6,
              "%s: area %.3f out of bounds", what, got);

    /* Paths between cell centres: found exactly when the cells are connected in the grid. */
    int* comp = test_components(g);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    uint32_t found = 0, unreachable = 0;
    for (uint32_t i = 0; i < pairs; ++i) {
        long c[2][2];
        for (int e = 0; e < 2; ++e) {
            do {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                c[e][0] = (long)(rng % g->width), c[e][1] = (long)((rng >> 32) % g->height);
            } while (!test_free(g, c[e][0], c[e][1]));
        }
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        req.start[0] = (float)c[0][0] + 0.5f, req.start[2] = (float)c[0][1] + 0.5f;
        req.goal[0] = (float)c[1][0] + 0.5f, req.goal[2] = (float)c[1][1] + 0.5f;
        ptl_path_result res;
        memset(&res, 0, sizeof res);
        ptl_status st = ptl_query_find_path(q, &req, &res);
        bool same = comp[c[0][1] * (long)g->width + c[0][0]] == comp[c[1][1] * (long)g->width + c[1][0]];
        cr_assert(st >= 0, "%s: path (%ld,%ld) -> (%ld,%ld): %s", what, c[0][0], c[0][1], c[1][0], c[1][1],
                  ptl_status_name(st));
        cr_assert_eq(res.found, same, "%s: path (%ld,%ld) -> (%ld,%ld): found %d, grid-connected %d", what, c[0][0],
                     c[0][1], c[1][0], c[1][1], res.found, same);
        if (same) {
            double dx = req.goal[0] - req.start[0], dz = req.goal[2] - req.start[2];
            cr_assert_geq(res.length, sqrt(dx * dx + dz * dz) - 1e-3);
        }
        found += res.found, unreachable += !same;
    }
    cr_assert_gt(found, pairs / 4, "%s: too few connected pairs to mean anything", what);
    cr_log_info("%s: %u of %u paths found, %u pairs unreachable in the grid", what, found, pairs, unreachable);
    free(comp);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_trimesh_free(&m);
}

Test(gen_scale, an_extruded_generated_grid_bakes_to_its_free_cells_less_one_column_per_wall, .timeout = 120) {
    ptl_grid g;
    ptl_error err;
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 48, .height = 40, .seed = 3, .density = 0};
    cr_assert_eq(ptl_grid_generate(&gd, &g, &err), PTL_OK, "%s", err.message);
    check_extruded_bake(&g, "rooms 48x40", 200);
    ptl_grid_free(&g);
    gd = (ptl_grid_gen_desc){.scene = PTL_GRID_SCENE_RANDOM, .width = 32, .height = 32, .seed = 4, .density = 0.3f};
    cr_assert_eq(ptl_grid_generate(&gd, &g, &err), PTL_OK, "%s", err.message);
    check_extruded_bake(&g, "random 32x32", 200);
    ptl_grid_free(&g);
}

Test(gen_scale, an_extruded_real_map_bakes_to_its_free_cells_less_one_column_per_wall, .timeout = 120) {
    TEST_REQUIRE_DATA(data);
    ptl_grid g;
    load_map(data, "grids/dao/arena.map", &g);
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_grid_extrude(&g, NULL, &m, &err), PTL_OK, "%s", err.message);
    check_extrusion(&g, &m, 1.0, 2.0, "arena.map");
    ptl_trimesh_free(&m);
    check_extruded_bake(&g, "arena.map", 200);
    ptl_grid_free(&g);
}

Test(gen_scale, extrusion_refuses_bad_arguments_with_clear_errors) {
    ptl_grid g;
    ptl_trimesh m;
    ptl_error err;
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 16, .height = 16, .seed = 1, .density = 0};
    cr_assert_eq(ptl_grid_generate(&gd, &g, &err), PTL_OK, "%s", err.message);
    const struct {
        ptl_extrude_desc d;
        const char* needle;
    } bad[] = {{{NAN, 0}, "cell size"},      {{-1.0f, 0}, "cell size"},     {{INFINITY, 0}, "cell size"},
               {{0, NAN}, "wall height"},    {{0, -2.0f}, "wall height"},   {{0, INFINITY}, "wall height"},
               {{1e6f, 0}, "larger than"},   {{0, 2e7f}, "larger than"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        memset(&err, 0, sizeof err);
        cr_assert_eq(ptl_grid_extrude(&g, &bad[i].d, &m, &err), PTL_ERR_INVALID_ARG, "case %zu", i);
        cr_assert(strstr(err.message, bad[i].needle), "case %zu: message '%s' lacks '%s'", i, err.message, bad[i].needle);
        cr_assert(m.tri_count == 0 && !m.verts);
    }
    cr_assert_eq(ptl_grid_extrude(NULL, NULL, &m, &err), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_grid_extrude(&g, NULL, NULL, &err), PTL_ERR_INVALID_ARG);
    memset(g.passable, 0, (size_t)g.width * g.height);
    cr_assert_eq(ptl_grid_extrude(&g, NULL, &m, &err), PTL_ERR_BAD_INPUT);
    cr_assert(strstr(err.message, "no free cell"), "%s", err.message);
    ptl_grid empty;
    memset(&empty, 0, sizeof empty);
    cr_assert_eq(ptl_grid_extrude(&empty, NULL, &m, &err), PTL_ERR_BAD_INPUT);
    cr_assert(strstr(err.message, "empty"), "%s", err.message);
    ptl_extrude_desc r;
    ptl_extrude_desc_resolve(NULL, &r);
    cr_assert(r.cell_size == 1.0f && r.wall_height == 2.0f, "defaults: cell 1, walls 2");
    ptl_grid_free(&g);
}
