/* Heights inside cells (blob version 3, packed in blocks since version 5; navmesh_format.h): a cell that is not flat carries the grid
   of its layer's voxel floors around it, a flat one none (its vertices give its heights). Checked on
   the generated scenes (stairs, ramps, a bridge, terrain) and on real meshes: which cells carry a
   grid, that a grid covers its cell and has a floor wherever inside it one looks, that a flat
   cell's height is its vertices' everywhere, and that a blob whose grids are inconsistent is
   refused. */
#include <math.h>

#include "../runtime/navmesh_format.h"
#include "../runtime/navmesh_internal.h"
#include "../runtime/query_internal.h"
#include "test_util.h"

typedef struct grid_stats {
    uint32_t flat, gridded, links;
} grid_stats;

/* Checks every cell of `nm` (a 3D bake with voxel cell size cs and height ch); returns the counts. */
static grid_stats check_cells(const ptl_navmesh* nm, const char* name) {
    const ptl_blob_header* h = nm->h;
    const double cs = h->vox_cs, ch = h->vox_ch;
    grid_stats st = {0, 0, 0};
    cr_assert_gt(cs, 0, "%s: a 3D bake records its voxel size", name);
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        const uint32_t* cv = nm->cell_verts + cell->first;
        static const ptl_blob_grid none = {0, 0, 0, 0, 0, 0};
        const ptl_blob_grid* g = nm->cell_grids ? &nm->cell_grids[c] : &none; /* no heights: no grids */
        double cx = 0, cz = 0, ylo = INFINITY, yhi = -INFINITY;
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            const float* v = &nm->verts[3 * (size_t)cv[i]];
            cx += v[0], cz += v[2];
            ylo = fmin(ylo, v[1]), yhi = fmax(yhi, v[1]);
        }
        cx /= cell->vert_count, cz /= cell->vert_count;
        if (ptl_nm_is_link(nm, c)) {
            cr_assert(g->w == 0 && g->d == 0, "%s: link cell %u has a height grid", name, c);
            ++st.links;
            continue;
        }
        if (g->w == 0) {
            cr_assert_eq(g->d, 0, "%s: cell %u: grid %u x %u", name, c, g->w, g->d);
            cr_assert_eq(ylo, yhi, "%s: cell %u has no height grid but its vertices span %.3f .. %.3f", name, c, ylo,
                         yhi);
            ++st.flat;
        } else {
            /* the grid holds the column of every vertex (and one around, unless at the layer's edge) */
            for (uint32_t i = 0; i < cell->vert_count; ++i) {
                const float* v = &nm->verts[3 * (size_t)cv[i]];
                double u = (v[0] - h->vox_origin[0]) / cs, w = (v[2] - h->vox_origin[2]) / cs;
                cr_assert(u >= g->x0 - 1e-3 && u <= g->x0 + (double)g->w + 1e-3 && w >= g->z0 - 1e-3 &&
                              w <= g->z0 + (double)g->d + 1e-3,
                          "%s: cell %u's vertex %u (column %.2f, %.2f) lies outside its grid [%d, +%u] x [%d, +%u]",
                          name, c, i, u, w, g->x0, g->w, g->z0, g->d);
            }
            ++st.gridded;
        }
        /* inside the cell (its centroid, points near each vertex): a flat cell's height is its
           vertices', a gridded one finds a floor in its grid (the input surface there: the stairs
           test of test_bake3d.c follows paths over it) */
        for (uint32_t i = 0; i <= cell->vert_count; ++i) {
            double x = cx, z = cz;
            if (i < cell->vert_count) {
                const float* v = &nm->verts[3 * (size_t)cv[i]];
                x = cx + 0.9 * (v[0] - cx), z = cz + 0.9 * (v[2] - cz);
            }
            float y;
            if (g->w == 0) {
                cr_assert_eq(ptl_query_cell_y(nm, c, x, z), (float)ylo, "%s: flat cell %u at (%.3f, %.3f)", name, c, x, z);
            } else if (i == cell->vert_count || ptl_nm_cell_floor(nm, c, x, z, &y)) {
                /* a cell's grid holds only its own floors (the columns it overlaps): near a sharp
                   corner that simplification moved off its layer's voxels there may be none
                   around, and the height comes from the vertices (below) */
                cr_assert(ptl_nm_cell_floor(nm, c, x, z, &y), "%s: cell %u's grid has no floor at (%.3f, %.3f)", name, c,
                          x, z);
                cr_assert(y >= ylo - 64 * ch && y <= yhi + 64 * ch, "%s: cell %u at (%.3f, %.3f): height %.3f, vertices %.3f .. %.3f",
                          name, c, x, z, y, ylo, yhi);
            } else {
                y = ptl_query_cell_y(nm, c, x, z);
                cr_assert(y >= ylo && y <= yhi, "%s: cell %u at (%.3f, %.3f): no floor around, height %.3f outside its vertices' %.3f .. %.3f",
                          name, c, x, z, y, ylo, yhi);
            }
        }
    }
    return st;
}

static ptl_navmesh* bake_mesh(const ptl_trimesh* m, void** blob, size_t* size) {
    ptl_error err;
    cr_assert_eq(ptl_bake_trimesh(m, NULL, blob, size, NULL, &err), PTL_OK, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(*blob, *size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    return nm;
}

Test(heights, flat_cells_have_no_grid_the_others_one_covering_them_on_generated_scenes) {
    const ptl_scene_kind kinds[] = {PTL_SCENE_BUILDING, PTL_SCENE_BRIDGE, PTL_SCENE_TERRAIN};
    const char* names[] = {"building", "bridge", "terrain"};
    for (int k = 0; k < 3; ++k) {
        ptl_scene_desc d = {.kind = kinds[k], .size = 40, .storeys = 3, .seed = 7};
        ptl_trimesh m;
        ptl_error err;
        cr_assert_eq(ptl_scene_generate(&d, &m, &err), PTL_OK, "%s", err.message);
        void* blob;
        size_t size;
        ptl_navmesh* nm = bake_mesh(&m, &blob, &size);
        grid_stats st = check_cells(nm, names[k]);
        fprintf(stderr, "heights: %-8s %u flat cells without a grid, %u with one, %u links, %u height blocks\n",
                names[k], st.flat, st.gridded, st.links, nm->h->height_count);
        /* floors are flat, stairs and ramps are not; terrain is all slopes */
        if (kinds[k] != PTL_SCENE_TERRAIN) cr_expect_gt(st.flat, 0, "%s: no flat cell", names[k]);
        cr_expect_gt(st.gridded, 0, "%s: no cell with a grid", names[k]);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
        ptl_trimesh_free(&m);
    }
}

Test(heights, cells_and_their_grids_agree_on_every_shared_mesh, .timeout = 120) {
    TEST_REQUIRE_DATA(data);
    const char* meshes[] = {"dungeon", "nav_test", "undulating", "house", "go-detour-stair3", "go-detour-twisted"};
    for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/meshes/%s.obj", data, meshes[i]);
        ptl_trimesh m;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(path, NULL, &m, &err), PTL_OK, "%s", err.message);
        void* blob;
        size_t size;
        ptl_navmesh* nm = bake_mesh(&m, &blob, &size);
        grid_stats st = check_cells(nm, meshes[i]);
        fprintf(stderr, "heights: %-18s %u flat, %u gridded, %u links, %u height blocks, blob %zu bytes\n",
                meshes[i], st.flat, st.gridded, st.links, nm->h->height_count, size);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
        ptl_trimesh_free(&m);
    }
}

/* Rewrites the checksum after a change, so that only the validation can refuse the blob. */
static ptl_status reload(void* blob, size_t size, ptl_error* err) {
    ((ptl_blob_header*)blob)->checksum = ptl_blob_checksum(blob, size);
    ptl_navmesh* nm = NULL;
    ptl_status st = ptl_navmesh_create(blob, size, NULL, &nm, err);
    ptl_navmesh_destroy(nm);
    return st;
}

Test(heights, a_grid_outside_the_heights_or_on_a_cell_that_cannot_have_one_is_refused) {
    ptl_scene_desc d = {.kind = PTL_SCENE_BUILDING, .size = 40, .storeys = 3, .seed = 7};
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&d, &m, &err), PTL_OK, "%s", err.message);
    void* blob;
    size_t size;
    ptl_navmesh_destroy(bake_mesh(&m, &blob, &size));
    ptl_blob_header* h = blob;
    ptl_blob_grid* grids = (ptl_blob_grid*)((char*)blob + h->off_cell_grids);
    uint32_t with = UINT32_MAX, without = UINT32_MAX;
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        if (grids[c].w && with == UINT32_MAX) with = c;
        if (!grids[c].w && without == UINT32_MAX) without = c;
    }
    cr_assert(with != UINT32_MAX && without != UINT32_MAX);
    const ptl_blob_grid keep = grids[with];
    /* past the end of the heights section, by its start or by its size */
    grids[with].first = h->height_count;
    cr_expect_eq(reload(blob, size, &err), PTL_ERR_BAD_BLOB);
    cr_expect(strstr(err.message, "height grid"), "%s", err.message);
    grids[with] = keep;
    grids[with].d = PTL_HEIGHT_BLOCK * (h->height_count + 1); /* more blocks than there are */
    cr_expect_eq(reload(blob, size, &err), PTL_ERR_BAD_BLOB);
    grids[with] = keep;
    cr_expect_eq(reload(blob, size, &err), PTL_OK, "%s", err.message);
    ptl_blob_free(blob, size, NULL);
    ptl_trimesh_free(&m);

    /* a 2D bake has no heights: its blob has no grid section at all (not a zero grid per cell) */
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 48, .height = 48, .seed = 3, .density = 0};
    ptl_grid g;
    ptl_shape s;
    cr_assert_geq(ptl_grid_generate(&gd, &g, &err), 0);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0);
    cr_assert_geq(ptl_bake_shape(&s, NULL, &blob, &size, NULL, &err), 0, "%s", err.message);
    h = blob;
    cr_expect_eq(h->height_count, 0);
    cr_expect_eq(h->off_cell_grids, h->off_heights, "a 2D blob spends %llu bytes on cell grids",
                 (unsigned long long)(h->off_heights - h->off_cell_grids));
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    float y;
    cr_expect(!ptl_nm_cell_floor(nm, 0, 1, 1, &y));
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

/* The packing of height grids into blocks (navmesh_format.h, ptl_blob_hblock) gives back every
   floor: two cells over grids that are not multiples of 8 columns, whose blocks need every kind
   (one floor, none at all, offsets under 15, under 255, and more), a third cell sharing the first
   one's grid; then a block whose data is moved past the end is refused. */
#include "../bake/cpg/build.h"
Test(heights, packed_grids_give_back_every_floor) {
    /* three square cells side by side in x, counter-clockwise in x-z, sharing edges 1-2 and 4-5 */
    const double xyz[] = {0, 0, 0, 3, 0, 0, 3, 0, 3, 0, 0, 3, 6, 0, 0, 6, 0, 3, 9, 0, 0, 9, 0, 3};
    const uint32_t start[] = {0, 4, 8, 12};
    const uint32_t cv[] = {0, 1, 2, 3, 1, 4, 5, 2, 4, 6, 7, 5};
    const uint32_t cn[] = {PTL_NONE, 1, PTL_NONE, PTL_NONE, PTL_NONE, 2, PTL_NONE, 0, PTL_NONE, PTL_NONE, PTL_NONE, 1};
    const ptl_decomp_portal portals[] = {{{1, 2}, {0, 1}, 0}, {{4, 5}, {1, 2}, 0}};
    enum { W0 = 19, D0 = 13, W1 = 9, D1 = 17 };
    uint16_t* heights = malloc((W0 * D0 + W1 * D1) * sizeof *heights);
    for (uint32_t z = 0; z < D0; ++z)
        for (uint32_t x = 0; x < W0; ++x) {
            uint16_t v;
            if (x < 8 && z < 8) v = 500;                                    /* one floor: no data */
            else if (x >= 8 && x < 16 && z < 8) v = PTL_HEIGHT_NONE;          /* none at all */
            else if (x < 8) v = (x + z) % 3 ? (uint16_t)(100 + x + z) : PTL_HEIGHT_NONE; /* < 15 apart, holes */
            else if (x < 16) v = (uint16_t)(2000 + 17 * x + 3 * z);             /* < 255 apart */
            else v = (uint16_t)(x * 3000 + z);                                  /* far apart, partial block */
            heights[z * W0 + x] = v;
        }
    for (uint32_t i = 0; i < W1 * D1; ++i) heights[W0 * D0 + i] = (uint16_t)(i % 7 == 0 ? PTL_HEIGHT_NONE : 40000 + i % 200);
    ptl_blob_grid grids[3] = {{0, 0, W0, D0, 0, 0}, {5, -3, W1, D1, W0 * D0, 0}, {0, 0, W0, D0, 0, 0}};
    ptl_cpg_in in;
    memset(&in, 0, sizeof in);
    in.vert_count = 8;
    in.xyz = xyz;
    in.cell_count = 3;
    in.cell_start = start;
    in.cell_verts = cv;
    in.cell_nbrs = cn;
    in.portal_count = 2;
    in.portals = portals;
    in.cell_grids = grids;
    in.height_count = W0 * D0 + W1 * D1;
    in.heights = heights;
    in.vox_cs = 0.3f, in.vox_ch = 0.2f;
    void* blob;
    size_t size;
    ptl_error err;
    cr_assert_eq(ptl_cpg_build(&in, NULL, &blob, &size, &err), PTL_OK, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    uint32_t kinds[4] = {0, 0, 0, 0};
    for (uint32_t i = 0; i < nm->h->height_count; ++i) kinds[nm->hblocks[i].kind]++;
    cr_expect(kinds[PTL_HBLOCK_FLAT] >= 2 && kinds[PTL_HBLOCK_U4] >= 1 && kinds[PTL_HBLOCK_U8] >= 1 && kinds[PTL_HBLOCK_U16] >= 1,
              "blocks by kind: %u flat, %u u4, %u u8, %u u16", kinds[0], kinds[1], kinds[2], kinds[3]);
    /* 3 x 2 blocks for the first grid (shared by the third cell), 2 x 3 for the second */
    cr_expect_eq(nm->h->height_count, 12u);
    cr_expect_eq(nm->cell_grids[2].first, nm->cell_grids[0].first, "the shared grid was packed twice");
    for (uint32_t c = 0; c < 3; ++c) {
        const ptl_blob_grid* g = &nm->cell_grids[c];
        const uint16_t* h = heights + grids[c].first;
        cr_expect(g->x0 == grids[c].x0 && g->z0 == grids[c].z0 && g->w == grids[c].w && g->d == grids[c].d);
        for (uint32_t z = 0; z < g->d; ++z)
            for (uint32_t x = 0; x < g->w; ++x)
                cr_expect_eq(ptl_nm_grid_floor(nm, g, x, z), h[z * g->w + x], "cell %u column (%u, %u)", c, x, z);
    }
    ptl_navmesh_destroy(nm);
    /* a block's data past the end of the height data, or a kind that does not exist: refused */
    ptl_blob_header* hd = blob;
    ptl_blob_hblock* blocks = (ptl_blob_hblock*)((char*)blob + hd->off_heights);
    uint32_t b = 0;
    while (blocks[b].kind == PTL_HBLOCK_FLAT) ++b;
    const ptl_blob_hblock keep = blocks[b];
    blocks[b].data = hd->height_bytes - 8;
    cr_expect_eq(reload(blob, size, &err), PTL_ERR_BAD_BLOB);
    cr_expect(strstr(err.message, "height block"), "%s", err.message);
    blocks[b] = keep;
    blocks[b].kind = 7;
    cr_expect_eq(reload(blob, size, &err), PTL_ERR_BAD_BLOB);
    blocks[b] = keep;
    cr_expect_eq(reload(blob, size, &err), PTL_OK, "%s", err.message);
    ptl_blob_free(blob, size, NULL);
    free(heights);
}

/* The ground under an agent: ptl_query_locate's point, for a point inside a cell, carries the
   surface's height there (what a game asks when it walks a path of corners). Checked against the
   input triangles themselves on single-surface terrains (the generated one and undulating.obj):
   at random points, the height of the triangle under the point. A voxel floor is the top of its
   column's span, so it may lie above the triangle at the point by the rise across a column's
   diagonal (cs sqrt 2 tan 45 degrees, the steepest walkable slope) plus one cell height of
   rounding, and below it by a cell height: 99% of the points must be within that. A span's top
   may also come from a steeper triangle in the column that the walkable one reaches within the
   climb (Recast's merge rule), so every point must be within the default climb (0.9). */
static void check_ground(const ptl_trimesh* m, const char* name) {
    void* blob;
    size_t size;
    ptl_navmesh* nm = bake_mesh(m, &blob, &size);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    const double cs = nm->h->vox_cs, ch = nm->h->vox_ch, above = cs * sqrt(2.0) + ch + 1e-3, below = ch + 1e-3;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    uint32_t checked = 0, outside = 0;
    double worst_above = 0, worst_below = 0;
    for (int i = 0; i < 3000; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double fx = (double)(s >> 11) / 9007199254740992.0;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double fz = (double)(s >> 11) / 9007199254740992.0;
        double x = m->bmin[0] + fx * (m->bmax[0] - m->bmin[0]), z = m->bmin[2] + fz * (m->bmax[2] - m->bmin[2]), h;
        if (!test_triangle_height(m, x, z, &h)) continue;
        const float p[3] = {(float)x, (float)h, (float)z}, ext[3] = {1e-3f, 2, 1e-3f};
        ptl_location loc;
        if (ptl_query_locate(q, p, ext, &loc) != PTL_OK || loc.point[0] != p[0] || loc.point[2] != p[2]) continue;
        double e = loc.point[1] - h;
        worst_above = fmax(worst_above, e), worst_below = fmax(worst_below, -e);
        cr_assert(e <= 0.9 && -e <= below, "%s: at (%.3f, %.3f) the ground is %.3f, located at %.3f", name, x, z, h,
                  loc.point[1]);
        outside += e > above;
        ++checked;
    }
    fprintf(stderr, "heights: %-10s %u points located on the mesh, heights from %.3f below to %.3f above the input, "
            "%u more than a column's rise above\n", name, checked, worst_below, worst_above, outside);
    cr_assert_gt(checked, 1000, "%s: only %u of 3000 points checked", name, checked);
    cr_assert_leq(outside, checked / 100, "%s: %u of %u points more than %.3f above the input", name, outside, checked, above);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
}

Test(heights, a_located_point_carries_the_height_of_the_ground_under_it, .timeout = 120) {
    ptl_scene_desc d = {.kind = PTL_SCENE_TERRAIN, .size = 40, .seed = 7};
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&d, &m, &err), PTL_OK, "%s", err.message);
    check_ground(&m, "terrain");
    ptl_trimesh_free(&m);
    TEST_REQUIRE_DATA(data);
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/undulating.obj", data);
    cr_assert_eq(ptl_obj_load(path, NULL, &m, &err), PTL_OK, "%s", err.message);
    check_ground(&m, "undulating");
    ptl_trimesh_free(&m);
}
