/* Tiled bakes (bake/voxel/tiles.c): the tiles' columns come out exactly as in a one-piece bake,
   so the navmesh is the same bytes whatever the tile size, thread count or order in which the jobs
   run; only the header's tiling fields (and so its checksum) tell them apart. */
#include <portolan/bake_debug.h>
#include <portolan/runtime.h>

#include "../tools/jobs.h"
#include "failing_alloc.h"
#include "mesh_builder.h"
#include "test_util.h"

/* Header fields that record the tiling (navmesh_format.h): checksum, tile_count, tiles_x,
   tile_size. Everything else must match byte for byte. */
static bool same_but_tiling(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, size_t* at) {
    if (na != nb) {
        *at = na < nb ? na : nb;
        return false;
    }
    for (size_t i = 0; i < na; ++i) {
        bool tiling = (i >= 24 && i < 32) || (i >= 56 && i < 60) || (i >= 108 && i < 112) || (i >= 240 && i < 244);
        if (!tiling && a[i] != b[i]) {
            *at = i;
            return false;
        }
    }
    return true;
}

typedef struct blob {
    void* data;
    size_t size;
    ptl_bake_stats st;
} blob;

/* tile_size 0 here is the true one-piece bake: a bake that keeps its intermediates voxelizes the
   world in one piece (without one, tile_size 0 still runs the voxel stages in tiles of 192). */
static blob bake(const ptl_trimesh* m, uint32_t tile_size, const ptl_job_system* jobs, float radius, const char* what) {
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.tile_size = tile_size;
    d.jobs = jobs;
    d.agent_radius = radius;
    ptl_bake_debug* dbg = NULL;
    if (tile_size == 0) {
        cr_assert_eq(ptl_bake_debug_create(NULL, &dbg), PTL_OK);
        d.debug = dbg;
    }
    blob b;
    memset(&b, 0, sizeof b);
    ptl_error err;
    cr_assert_geq(ptl_bake_trimesh(m, &d, &b.data, &b.size, &b.st, &err), 0, "%s (tile %u): %s", what, tile_size,
                  err.message);
    ptl_bake_debug_destroy(dbg);
    return b;
}

/* Jobs in reverse order, on the calling thread. */
static void run_reversed(void* user, ptl_job_fn fn, void* data, uint32_t count) {
    (void)user;
    for (uint32_t i = count; i-- > 0;) fn(data, i);
}
/* Jobs in a scrambled order (a fixed permutation: i * 7919 mod count when coprime, else odd then even). */
static void run_scrambled(void* user, ptl_job_fn fn, void* data, uint32_t count) {
    (void)user;
    for (uint32_t k = 1; k < count; k += 2) fn(data, k);
    for (uint32_t k = 0; k < count; k += 2) fn(data, k);
}

/* K x K copies of m side by side (written here, independently of the library's generator). */
static ptl_trimesh copies(const ptl_trimesh* m, int k) {
    ptl_trimesh c;
    memset(&c, 0, sizeof c);
    float ex = m->bmax[0] - m->bmin[0], ez = m->bmax[2] - m->bmin[2];
    c.vert_count = m->vert_count * (uint32_t)(k * k);
    c.tri_count = m->tri_count * (uint32_t)(k * k);
    c.verts = malloc(sizeof(float) * 3 * c.vert_count);
    c.tris = malloc(sizeof(uint32_t) * 3 * c.tri_count);
    c.tri_tag = calloc(c.tri_count, sizeof(uint16_t));
    for (int i = 0; i < k * k; ++i) {
        float dx = (float)(i % k) * ex, dz = (float)(i / k) * ez;
        for (uint32_t v = 0; v < m->vert_count; ++v) {
            float* o = c.verts + 3 * ((size_t)i * m->vert_count + v);
            o[0] = m->verts[3 * v] + dx, o[1] = m->verts[3 * v + 1], o[2] = m->verts[3 * v + 2] + dz;
        }
        for (uint32_t t = 0; t < 3 * m->tri_count; ++t) c.tris[(size_t)i * 3 * m->tri_count + t] = m->tris[t] + (uint32_t)i * m->vert_count;
    }
    for (int j = 0; j < 3; ++j) c.bmin[j] = m->bmin[j], c.bmax[j] = m->bmax[j];
    c.bmax[0] = m->bmin[0] + (float)k * ex, c.bmax[2] = m->bmin[2] + (float)k * ez;
    return c;
}
static void free_copies(ptl_trimesh* c) {
    free(c->verts);
    free(c->tris);
    free(c->tri_tag);
}

Test(tiles, dungeon_4x4_same_bytes_for_1_2_4_8_threads_and_any_tile_order, .timeout = 600) {
    TEST_REQUIRE_DATA(data);
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/dungeon.obj", data);
    ptl_trimesh one;
    ptl_error err;
    cr_assert_geq(ptl_obj_load(path, NULL, &one, &err), 0, "%s", err.message);
    ptl_trimesh m = copies(&one, 4);
    blob ref = bake(&m, 64, NULL, 0, "dungeon 4x4, in turn");
    cr_expect_gt(ref.st.tiles, 16u, "dungeon 4x4 in %u tiles of 64 columns", ref.st.tiles);
    const unsigned threads[] = {1, 2, 4, 8};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; ++i) {
        ptl_thread_jobs j;
        ptl_thread_jobs_init(&j, threads[i]);
        blob b = bake(&m, 64, &j.sys, 0, "dungeon 4x4, threads");
        cr_expect(b.size == ref.size && memcmp(b.data, ref.data, b.size) == 0, "%u threads: the blob differs",
                  threads[i]);
        ptl_blob_free(b.data, b.size, NULL);
    }
    const ptl_job_system orders[] = {{run_reversed, NULL}, {run_scrambled, NULL}};
    for (int k = 0; k < 2; ++k) {
        blob b = bake(&m, 64, &orders[k], 0, "dungeon 4x4, job order");
        cr_expect(b.size == ref.size && memcmp(b.data, ref.data, b.size) == 0, "job order %d: the blob differs", k);
        ptl_blob_free(b.data, b.size, NULL);
    }
    /* Parts of tile ranges (three strips of tile columns, given to the merge out of order). */
    {
        uint32_t world[2];
        void* parts[3];
        size_t sizes[3];
        ptl_bake_desc d;
        memset(&d, 0, sizeof d);
        d.tile_size = 64;
        const uint32_t first[3] = {5, 0, 11};
        for (int k = 0; k < 3; ++k) {
            uint32_t r[4] = {first[k], 0, k == 0 ? 10 : k == 1 ? 4 : 999, 999};
            cr_assert_geq(ptl_bake_trimesh_part(&m, &d, r, &parts[k], &sizes[k], world, &err), 0, "%s", err.message);
        }
        blob mg;
        cr_assert_geq(ptl_bake_merge_parts((const void* const*)parts, sizes, 3, NULL, &mg.data, &mg.size, NULL, &err), 0,
                      "%s", err.message);
        cr_expect(mg.size == ref.size && memcmp(mg.data, ref.data, mg.size) == 0, "dungeon 4x4: merged parts differ");
        ptl_blob_free(mg.data, mg.size, NULL);
        for (int k = 0; k < 3; ++k) ptl_blob_free(parts[k], sizes[k], NULL);
    }
    /* The one-piece bake is the same navmesh (only the tiling fields of the header differ). */
    blob whole = bake(&m, 0, NULL, 0, "dungeon 4x4, one piece");
    size_t at = 0;
    cr_expect(same_but_tiling(whole.data, whole.size, ref.data, ref.size, &at),
              "dungeon 4x4: tiled and one-piece blobs differ at byte %zu", at);
    cr_expect_eq(whole.st.cells, ref.st.cells);
    cr_expect_eq(whole.st.spans, ref.st.spans, "solid spans %u one piece, %u over the tiles", whole.st.spans, ref.st.spans);
    /* Paths across tile borders: 1000 pairs of cell centres, on both navmeshes. */
    {
        ptl_navmesh *a, *b;
        cr_assert_geq(ptl_navmesh_create(whole.data, whole.size, NULL, &a, &err), 0, "%s", err.message);
        cr_assert_geq(ptl_navmesh_create(ref.data, ref.size, NULL, &b, &err), 0, "%s", err.message);
        ptl_query *qa, *qb;
        cr_assert_geq(ptl_query_create(a, NULL, &qa), 0);
        cr_assert_geq(ptl_query_create(b, NULL, &qb), 0);
        ptl_navmesh_info in;
        ptl_navmesh_get_info(a, &in);
        uint32_t seed = 12345, found = 0, crossing = 0;
        const double side = 64 * 0.3;
        /* cell centres; pairs within 30 m of each other (the copies are not joined to each other) */
        const uint32_t nc = in.cell_count - in.link_count;
        float* cen = calloc((size_t)nc * 3, sizeof *cen);
        for (uint32_t cell = 0; cell < nc; ++cell) {
            ptl_cell_view cv;
            ptl_navmesh_get_cell(a, cell, &cv);
            for (uint32_t v = 0; v < cv.vert_count; ++v)
                for (int k = 0; k < 3; ++k) cen[3 * cell + k] += ptl_navmesh_vert(a, cv.verts[v])[k] / (float)cv.vert_count;
        }
        for (int i = 0; i < 1000; ++i) {
            float c[2][3];
            seed = seed * 1664525u + 1013904223u;
            uint32_t c0 = (seed >> 8) % nc, c1 = c0;
            for (int tries = 0; tries < 200; ++tries) {
                seed = seed * 1664525u + 1013904223u;
                uint32_t k = (seed >> 8) % nc;
                if (k != c0 && hypot(cen[3 * k] - cen[3 * c0], cen[3 * k + 2] - cen[3 * c0 + 2]) < 30) {
                    c1 = k;
                    break;
                }
            }
            memcpy(c[0], &cen[3 * c0], sizeof c[0]);
            memcpy(c[1], &cen[3 * c1], sizeof c[1]);
            ptl_path_request req;
            memset(&req, 0, sizeof req);
            memcpy(req.start, c[0], sizeof req.start);
            memcpy(req.goal, c[1], sizeof req.goal);
            ptl_path_result ra, rb;
            memset(&ra, 0, sizeof ra);
            memset(&rb, 0, sizeof rb);
            ptl_status sa = ptl_query_find_path(qa, &req, &ra), sb = ptl_query_find_path(qb, &req, &rb);
            cr_expect_eq(sa, sb, "pair %d: status %d one piece, %d tiled", i, sa, sb);
            cr_expect_eq(ra.found, rb.found, "pair %d", i);
            if (!ra.found || !rb.found) continue;
            ++found;
            crossing += floor((c[0][0] - m.bmin[0]) / side) != floor((c[1][0] - m.bmin[0]) / side) ||
                        floor((c[0][2] - m.bmin[2]) / side) != floor((c[1][2] - m.bmin[2]) / side);
            cr_expect(fabs(ra.length - rb.length) <= 1e-3 * ra.length, "pair %d: %.6f one piece, %.6f tiled", i, ra.length,
                      rb.length);
        }
        cr_log_info("dungeon 4x4: %u of 1000 pairs found, %u of them across a tile border", found, crossing);
        cr_expect_gt(found, 500u, "only %u pairs found a path", found);
        cr_expect_gt(crossing, 250u, "only %u paths cross a tile border", crossing);
        free(cen);
        ptl_query_destroy(qa);
        ptl_query_destroy(qb);
        ptl_navmesh_destroy(a);
        ptl_navmesh_destroy(b);
    }
    ptl_blob_free(whole.data, whole.size, NULL);
    ptl_blob_free(ref.data, ref.size, NULL);
    free_copies(&m);
    ptl_trimesh_free(&one);
}

/* Every shared mesh, radius 0 and 0.6, tiles of 16 (borders wider than the tile) and 48 columns:
   the navmesh is the one-piece one, it validates (which includes every vertex lying on the walkable
   boundary: none strictly inside the walkable area, on a tile border or anywhere), and each cell's
   tiles hold its vertices. */
Test(tiles, every_shared_mesh_tiled_is_the_one_piece_navmesh, .timeout = 600) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** files = test_list_files(dir, ".obj");
    ptl_thread_jobs j;
    ptl_thread_jobs_init(&j, 2);
    int checked = 0;
    for (char** f = files; *f; ++f) {
        ptl_trimesh m;
        ptl_error err;
        cr_assert_geq(ptl_obj_load(*f, NULL, &m, &err), 0, "%s", err.message);
        for (int r = 0; r < 2; ++r) {
            float radius = r ? 0.6f : 0;
            blob whole = bake(&m, 0, NULL, radius, *f);
            const uint32_t sizes[] = {16, 64}; /* the band path and the tile path (layer_map.h) */
            for (int k = 0; k < 2; ++k) {
                blob t = bake(&m, sizes[k], &j.sys, radius, *f);
                size_t at = 0;
                cr_expect(same_but_tiling(whole.data, whole.size, t.data, t.size, &at),
                          "%s (radius %.1f, tiles of %u): differs from the one-piece bake at byte %zu", *f, radius,
                          sizes[k], at);
                ptl_navmesh* nm;
                cr_assert_geq(ptl_navmesh_create(t.data, t.size, NULL, &nm, &err), 0, "%s: %s", *f, err.message);
                cr_expect_geq(ptl_navmesh_validate(nm, &err), 0, "%s (tiles of %u): %s", *f, sizes[k], err.message);
                ptl_navmesh_info in;
                ptl_navmesh_get_info(nm, &in);
                cr_expect_eq(in.tile_size, sizes[k]);
                cr_expect_eq(in.tile_count, in.tiles_x * in.tiles_z);
                cr_expect_eq(in.tile_count, t.st.tiles);
                double side = sizes[k] * 0.3;
                for (uint32_t c = 0; c < in.cell_count; ++c) {
                    uint32_t tr[4];
                    cr_assert_eq(ptl_navmesh_cell_tiles(nm, c, tr), PTL_OK);
                    cr_assert(tr[0] <= tr[2] && tr[1] <= tr[3] && tr[2] < in.tiles_x && tr[3] < in.tiles_z,
                              "%s: cell %u's tiles %u..%u x %u..%u", *f, c, tr[0], tr[2], tr[1], tr[3]);
                    ptl_cell_view cv;
                    ptl_navmesh_get_cell(nm, c, &cv);
                    /* Exact overlap: some tile of the range, the one holding the centroid among them,
                       none outside the range. */
                    double mx = 0, mz = 0;
                    for (uint32_t v = 0; v < cv.vert_count; ++v)
                        mx += ptl_navmesh_vert(nm, cv.verts[v])[0] / cv.vert_count,
                            mz += ptl_navmesh_vert(nm, cv.verts[v])[2] / cv.vert_count;
                    uint32_t ctx = (uint32_t)floor((mx - in.tile_origin[0]) / in.tile_side);
                    uint32_t ctz = (uint32_t)floor((mz - in.tile_origin[1]) / in.tile_side);
                    uint32_t hits = 0;
                    for (uint32_t tz = tr[1]; tz <= tr[3]; ++tz)
                        for (uint32_t tx = tr[0]; tx <= tr[2]; ++tx) hits += ptl_navmesh_cell_in_tile(nm, c, tx, tz);
                    cr_expect_gt(hits, 0u, "%s: cell %u overlaps none of its tiles", *f, c);
                    cr_expect(ptl_navmesh_cell_in_tile(nm, c, ctx, ctz), "%s: cell %u not in its centroid's tile", *f, c);
                    if (tr[0] > 0) cr_expect(!ptl_navmesh_cell_in_tile(nm, c, tr[0] - 1, tr[1]), "%s: cell %u", *f, c);
                    if (tr[3] + 1 < in.tiles_z) cr_expect(!ptl_navmesh_cell_in_tile(nm, c, tr[2], tr[3] + 1), "%s: cell %u", *f, c);
                    for (uint32_t v = 0; v < cv.vert_count; ++v) {
                        const float* p = ptl_navmesh_vert(nm, cv.verts[v]);
                        /* tile columns from the mesh's min corner (the voxel origin), within rounding */
                        double tx = (p[0] - m.bmin[0]) / side, tz = (p[2] - m.bmin[2]) / side;
                        cr_expect(tx >= tr[0] - 1e-4 && tx <= tr[2] + 1 + 1e-4 && tz >= tr[1] - 1e-4 &&
                                      tz <= tr[3] + 1 + 1e-4,
                                  "%s: cell %u's vertex at tile (%.3f, %.3f) outside its tiles %u..%u x %u..%u", *f, c,
                                  tx, tz, tr[0], tr[2], tr[1], tr[3]);
                    }
                }
                ptl_navmesh_destroy(nm);
                ptl_blob_free(t.data, t.size, NULL);
                ++checked;
            }
            ptl_blob_free(whole.data, whole.size, NULL);
        }
        ptl_trimesh_free(&m);
    }
    cr_expect_geq(checked, 4 * 13, "only %d tiled bakes", checked);
    test_free_list(files);
}

/* A generated scene, so the test runs without the shared data: a floor with boxes and a raised
   slab, tiles of 16 columns, every order and thread count. */
Test(tiles, generated_scene_tiled_matches_one_piece) {
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 0, 0, 30, 24, 0);
    for (int i = 0; i < 6; ++i) box(b, 2.0f + 4.5f * (float)i, 0, 3, 3.1f + 4.5f * (float)i, 2.5f, 5.5f + (float)i);
    box(b, 6, 0, 14, 20, 0.6f, 20); /* a slab to step onto */
    box(b, 12.05f, 0, 0, 12.35f, 3, 24); /* a thin wall across a tile border */
    ptl_trimesh m = as_trimesh(b);
    blob whole = bake(&m, 0, NULL, 0, "scene");
    ptl_thread_jobs j;
    ptl_thread_jobs_init(&j, 3);
    const ptl_job_system rev = {run_reversed, NULL};
    const ptl_job_system* systems[] = {NULL, &j.sys, &rev};
    blob first;
    memset(&first, 0, sizeof first);
    for (int k = 0; k < 3; ++k) {
        blob t = bake(&m, 16, systems[k], 0, "scene");
        size_t at = 0;
        cr_expect(same_but_tiling(whole.data, whole.size, t.data, t.size, &at), "jobs %d: differs at byte %zu", k, at);
        if (k == 0) first = t;
        else {
            cr_expect(t.size == first.size && memcmp(t.data, first.data, t.size) == 0, "jobs %d: not the same bytes", k);
            ptl_blob_free(t.data, t.size, NULL);
        }
    }
    cr_expect_gt(first.st.tiles, 1u);
    ptl_blob_free(first.data, first.size, NULL);
    ptl_blob_free(whole.data, whole.size, NULL);
    free(b);
}

Test(tiles, bad_tile_sizes_are_refused) {
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 0, 0, 10, 10, 0);
    ptl_trimesh m = as_trimesh(b);
    const uint32_t bad[] = {1, 15, 65537, 0x80000000u};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        ptl_bake_desc d;
        memset(&d, 0, sizeof d);
        d.tile_size = bad[i];
        void* blob = (void*)1;
        size_t size = 1;
        ptl_error err;
        cr_expect_eq(ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err), PTL_ERR_INVALID_ARG, "tile_size %u", bad[i]);
        cr_expect_null(blob);
        cr_expect(strstr(err.message, "tile_size") != NULL, "message: %s", err.message);
    }
    free(b);
}

/* A bake spread over machines: parts of any split of the tiles, merged in any order, give the
   one-machine tiled bake's bytes; damaged, mismatched, missing and repeated parts are refused with
   a message naming the problem. */
Test(tiles, parts_of_any_split_merge_to_the_same_bytes, .timeout = 300) {
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 0, 0, 30, 24, 0);
    for (int i = 0; i < 6; ++i) box(b, 2.0f + 4.5f * (float)i, 0, 3, 3.1f + 4.5f * (float)i, 2.5f, 5.5f + (float)i);
    box(b, 6, 0, 14, 20, 0.6f, 20);
    ptl_trimesh m = as_trimesh(b);
    float seed[3] = {1, 0, 1};
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.tile_size = 16;
    d.seeds = seed, d.seed_count = 1;
    d.max_error = 2;
    blob ref;
    ptl_error err;
    cr_assert_geq(ptl_bake_trimesh(&m, &d, &ref.data, &ref.size, &ref.st, &err), 0, "%s", err.message);
    /* 100 x 80 columns: 7 x 5 tiles of 16. Splits: all in one part; by rows; by columns, in
       reverse order; single tiles with an empty part past the world. */
    typedef struct { uint32_t r[4]; } range;
    const range one[] = {{{0, 0, 99, 99}}};
    const range rows[] = {{{0, 0, 6, 1}}, {{0, 2, 6, 2}}, {{0, 3, 6, 4}}};
    const range cols[] = {{{5, 0, 6, 4}}, {{2, 0, 4, 4}}, {{0, 0, 1, 4}}};
    range singles[36];
    for (uint32_t k = 0; k < 35; ++k) singles[k] = (range){{k % 7, k / 7, k % 7, k / 7}};
    singles[35] = (range){{50, 50, 60, 60}};
    const range* splits[] = {one, rows, cols, singles};
    const uint32_t counts[] = {1, 3, 3, 36};
    for (int s = 0; s < 4; ++s) {
        void** parts = calloc(counts[s], sizeof *parts);
        size_t* sizes = calloc(counts[s], sizeof *sizes);
        for (uint32_t k = 0; k < counts[s]; ++k) {
            uint32_t world[2];
            cr_assert_geq(ptl_bake_trimesh_part(&m, &d, splits[s][k].r, &parts[k], &sizes[k], world, &err), 0,
                          "split %d part %u: %s", s, k, err.message);
            cr_expect(world[0] == 7 && world[1] == 5, "world of %u x %u tiles", world[0], world[1]);
        }
        ptl_thread_jobs j;
        ptl_thread_jobs_init(&j, 2);
        blob mg;
        cr_assert_geq(ptl_bake_merge_parts((const void* const*)parts, sizes, counts[s], &(ptl_merge_desc){.jobs = &j.sys}, &mg.data, &mg.size,
                                           &mg.st, &err),
                      0, "split %d: %s", s, err.message);
        cr_expect(mg.size == ref.size && memcmp(mg.data, ref.data, mg.size) == 0, "split %d: the merged blob differs", s);
        cr_expect_eq(mg.st.cells, ref.st.cells);
        ptl_blob_free(mg.data, mg.size, NULL);
        if (s == 1) {
            /* a missing part, a repeated part, a damaged part, a truncated part */
            cr_expect_eq(ptl_bake_merge_parts((const void* const*)parts, sizes, 2, NULL, &mg.data, &mg.size, NULL, &err),
                         PTL_ERR_BAD_INPUT);
            cr_expect(strstr(err.message, "missing") != NULL, "%s", err.message);
            const void* twice[4] = {parts[0], parts[1], parts[2], parts[1]};
            size_t twice_sizes[4] = {sizes[0], sizes[1], sizes[2], sizes[1]};
            cr_expect_eq(ptl_bake_merge_parts(twice, twice_sizes, 4, NULL, &mg.data, &mg.size, NULL, &err),
                         PTL_ERR_BAD_INPUT);
            ((uint8_t*)parts[1])[sizes[1] / 2] ^= 0x40;
            cr_expect_eq(ptl_bake_merge_parts((const void* const*)parts, sizes, 3, NULL, &mg.data, &mg.size, NULL, &err),
                         PTL_ERR_BAD_BLOB);
            cr_expect(strstr(err.message, "part 1") && strstr(err.message, "checksum"), "%s", err.message);
            ((uint8_t*)parts[1])[sizes[1] / 2] ^= 0x40;
            size_t short_sizes[3] = {sizes[0], sizes[1] - 5, sizes[2]};
            cr_expect_eq(ptl_bake_merge_parts((const void* const*)parts, short_sizes, 3, NULL, &mg.data, &mg.size, NULL,
                                              &err),
                         PTL_ERR_BAD_BLOB);
            cr_expect(strstr(err.message, "truncated") != NULL, "%s", err.message);
            cr_expect_null(mg.data);
        }
        for (uint32_t k = 0; k < counts[s]; ++k) ptl_blob_free(parts[k], sizes[k], NULL);
        free(parts);
        free(sizes);
    }
    /* Parts of other settings do not mix. */
    uint32_t all[4] = {0, 0, 99, 99}, left[4] = {0, 0, 2, 99}, right[4] = {3, 0, 99, 99};
    void* p[2];
    size_t ps[2];
    cr_assert_geq(ptl_bake_trimesh_part(&m, &d, left, &p[0], &ps[0], NULL, &err), 0, "%s", err.message);
    ptl_bake_desc other = d;
    other.agent_radius = 0.6f;
    cr_assert_geq(ptl_bake_trimesh_part(&m, &other, right, &p[1], &ps[1], NULL, &err), 0, "%s", err.message);
    blob mg;
    cr_expect_eq(ptl_bake_merge_parts((const void* const*)p, ps, 2, NULL, &mg.data, &mg.size, NULL, &err),
                 PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "other settings") != NULL, "%s", err.message);
    ptl_blob_free(p[0], ps[0], NULL);
    ptl_blob_free(p[1], ps[1], NULL);
    /* No tile size: refused. */
    ptl_bake_desc none = d;
    none.tile_size = 0;
    cr_expect_eq(ptl_bake_trimesh_part(&m, &none, all, &p[0], &ps[0], NULL, &err), PTL_ERR_INVALID_ARG);
    ptl_blob_free(ref.data, ref.size, NULL);
    free(b);
}

/* tile_size 0 without intermediates kept: the voxel stages run in tiles of 192 columns, and the
   navmesh is the true one-piece bake's, byte for byte (tiling fields included: none recorded). */
Test(tiles, default_bake_in_hidden_tiles_is_the_one_piece_navmesh, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    const char* names[] = {"dungeon", "nav_test", "undulating", "house"};
    for (int i = 0; i < 4; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/meshes/%s.obj", data, names[i]);
        ptl_trimesh m;
        ptl_error err;
        cr_assert_geq(ptl_obj_load(path, NULL, &m, &err), 0, "%s", err.message);
        blob whole = bake(&m, 0, NULL, 0.6f, names[i]); /* debug kept: one piece */
        ptl_bake_desc d;
        memset(&d, 0, sizeof d);
        d.agent_radius = 0.6f;
        blob fast;
        cr_assert_geq(ptl_bake_trimesh(&m, &d, &fast.data, &fast.size, &fast.st, &err), 0, "%s", err.message);
        cr_expect(fast.size == whole.size && memcmp(fast.data, whole.data, fast.size) == 0,
                  "%s: the default bake differs from the one-piece bake", names[i]);
        cr_expect_eq(fast.st.tiles, 1u);
        ptl_blob_free(fast.data, fast.size, NULL);
        ptl_blob_free(whole.data, whole.size, NULL);
        ptl_trimesh_free(&m);
    }
}

/* Damaged parts whose checksum was made to match (a part edited on purpose, or written by a buggy
   tool): the merge refuses them with a message or, when the damage leaves a consistent part,
   merges it; it never crashes or reads out of bounds (ASan). */
#include "../runtime/navmesh_format.h"
Test(tiles, parts_damaged_behind_a_valid_checksum_are_refused_or_merged, .timeout = 300) {
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 0, 0, 12, 9, 0);
    box(b, 3, 0, 3, 4, 2, 6);
    box(b, 7, 0, 1.5f, 7.3f, 3, 8);
    ptl_trimesh m = as_trimesh(b);
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.tile_size = 16;
    uint32_t all[4] = {0, 0, 99, 99};
    void* part;
    size_t size;
    ptl_error err;
    cr_assert_geq(ptl_bake_trimesh_part(&m, &d, all, &part, &size, NULL, &err), 0, "%s", err.message);
    uint8_t* copy = malloc(size);
    uint32_t seed = 7, refused = 0, merged = 0;
    for (int i = 0; i < 400; ++i) {
        memcpy(copy, part, size);
        int flips = 1 + (int)(i % 4);
        for (int k = 0; k < flips; ++k) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = 32 + (seed >> 4) % (size - 32); /* past the checksum */
            seed = seed * 1664525u + 1013904223u;
            copy[at] ^= (uint8_t)(1u << ((seed >> 9) % 8));
        }
        uint64_t sum = ptl_blob_checksum(copy, size);
        memcpy(copy + 24, &sum, sizeof sum);
        const void* parts[1] = {copy};
        void* blob = NULL;
        size_t bs = 0;
        ptl_status st = ptl_bake_merge_parts(parts, &size, 1, NULL, &blob, &bs, NULL, &err);
        if (st < 0) {
            ++refused;
            cr_expect(err.message[0] != '\0', "a refusal names its reason");
            cr_expect_null(blob);
        } else {
            ++merged;
            ptl_navmesh* nm;
            cr_expect_geq(ptl_navmesh_create(blob, bs, NULL, &nm, &err), 0, "a merged part loads: %s", err.message);
            ptl_navmesh_destroy(nm);
            ptl_blob_free(blob, bs, NULL);
        }
    }
    cr_log_info("damaged parts: %u refused, %u merged", refused, merged);
    cr_expect_gt(refused, 0u);
    free(copy);
    ptl_blob_free(part, size, NULL);
    free(b);
}

/* The streamed tiled bake (tiles -> bands -> layer map -> contours -> merge) and the merge of parts
   fail cleanly at every allocation: PTL_ERR_NO_MEMORY, every byte given back, and the bake works
   again after. A scene of 4 x 3 tiles of 16 columns (50 x 40 columns: two bands of the layer
   stream), with a platform over the floor (two layers) and a crack the gap links step over. */
Test(tiles, out_of_memory_at_every_allocation_of_a_streamed_bake_and_merge_fails_cleanly, .timeout = 300) {
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 0, 0, 13, 12, 0);
    floor_quad(b, 13.4f, 0, 15, 12, 0);
    box(b, 3, 0, 2, 4, 2.5f, 3);
    floor_quad(b, 6, 6, 11, 11, 2.6f);
    ptl_trimesh m = as_trimesh(b);
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.tile_size = 16, d.agent_radius = 0.3f, d.max_gap = 0.6f;
    const uint32_t all[4] = {0, 0, 100, 100};
    for (int what = 0; what < 4; ++what) { /* the bake, the merge of one part; tiles of 16 (bands), 32 (tiles) */
        d.tile_size = what < 2 ? 16 : 32;
        void* part = NULL;
        size_t part_size = 0;
        ptl_error err;
        if (what % 2 == 1)
            cr_assert_eq(ptl_bake_trimesh_part(&m, &d, all, &part, &part_size, NULL, &err), PTL_OK, "%s", err.message);
        long total = 0;
        for (long n = -1; n < total || n == -1; ++n) {
            tracking t = {0, n == -1 ? 1L << 40 : n, 0, 0, 0, 0, 0, 0}; /* -1: a counting run that never fails */
            ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
            ptl_bake_desc dd = d;
            dd.alloc = &a;
            void* blob = NULL;
            size_t size = 0;
            ptl_status st;
            if (what % 2 == 0) {
                st = ptl_bake_trimesh(&m, &dd, &blob, &size, NULL, &err);
            } else {
                const void* parts[1] = {part};
                st = ptl_bake_merge_parts(parts, &part_size, 1, &(ptl_merge_desc){.jobs = NULL, .alloc = &a}, &blob, &size, NULL, &err);
            }
            if (n == -1) {
                cr_assert_eq(st, PTL_OK, "%s", err.message);
                ptl_navmesh* nm;
                cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
                ptl_navmesh_info in;
                ptl_navmesh_get_info(nm, &in);
                cr_assert_eq(in.tiles_x * in.tiles_z, what < 2 ? 12u : 4u, "4 x 3 or 2 x 2 tiles");
                ptl_navmesh_destroy(nm);
                total = t.calls;
                cr_assert_gt(total, 50, "the bake allocates");
            } else {
                cr_assert(st == PTL_ERR_NO_MEMORY, "%s: failing allocation %ld of %ld gave %s: %s", what % 2 ? "merge" : "bake",
                          n, total, ptl_status_name(st), err.message);
            }
            if (blob) ptl_blob_free(blob, size, &a);
            cr_assert(t.live_blocks == 0 && t.live_bytes == 0, "%s: failing allocation %ld: %ld blocks (%zu bytes) left",
                      what % 2 ? "merge" : "bake", n, t.live_blocks, t.live_bytes);
        }
        cr_log_info("%s, tiles of %u: %ld allocations, each failed once", what % 2 ? "merge" : "bake", d.tile_size, total);
        if (part) ptl_blob_free(part, part_size, NULL);
    }
    free(b);
}

/* Seeds and islands through the tile path (each tile floods its own blocks, layer_map.h): a seed
   standing on a tile corner (its search window spans four tiles), a platform nothing links to
   (dropped with a seed, kept without) and a pillar whose top is smaller than min_island: the tiled
   bakes (tiles of 32 and 64, threads or not) are the one-piece bake's. */
Test(tiles, seeds_and_islands_across_tiles_match_one_piece) {
    mesh_builder* b = calloc(1, sizeof *b);
    floor_quad(b, 0, 0, 30, 24, 0);
    box(b, 6, 0, 14, 20, 0.6f, 20);              /* a slab to step onto */
    box(b, 20, 3, 4, 27, 3.2f, 11);             /* a platform, unreachable (3 m up, no ramp) */
    box(b, 22.4f, 0, 16, 23.3f, 2.5f, 16.9f);  /* a pillar whose top is a small island */
    ptl_trimesh m = as_trimesh(b);
    ptl_thread_jobs j;
    ptl_thread_jobs_init(&j, 3);
    const float seed[3] = {9.6f, 0, 9.6f}; /* on the corner of tiles of 32 columns (0.3 m) */
    uint32_t unseeded = 0;
    for (int seeded = 0; seeded < 2; ++seeded) {
        ptl_bake_desc d;
        memset(&d, 0, sizeof d);
        if (seeded) d.seeds = seed, d.seed_count = 1;
        ptl_bake_debug* dbg = NULL;
        cr_assert_eq(ptl_bake_debug_create(NULL, &dbg), PTL_OK);
        d.debug = dbg; /* the true one-piece bake: the whole field, through bands */
        blob whole;
        ptl_error err;
        cr_assert_geq(ptl_bake_trimesh(&m, &d, &whole.data, &whole.size, &whole.st, &err), 0, "%s", err.message);
        ptl_bake_debug_destroy(dbg);
        d.debug = NULL;
        if (!seeded) unseeded = whole.st.layers;
        if (seeded) cr_expect_lt(whole.st.layers, unseeded, "the seed drops the platform (%u layers)", whole.st.layers);
        else cr_expect_geq(whole.st.layers, 2u, "the floor with the slab, the platform (%u layers)", whole.st.layers);
        cr_log_info("%s: %u layers, %u cells", seeded ? "seeded" : "unseeded", whole.st.layers, whole.st.cells);
        const uint32_t sizes[] = {32, 64};
        for (int k = 0; k < 4; ++k) {
            d.tile_size = sizes[k % 2];
            d.jobs = k < 2 ? NULL : &j.sys;
            blob t;
            cr_assert_geq(ptl_bake_trimesh(&m, &d, &t.data, &t.size, &t.st, &err), 0, "%s", err.message);
            size_t at = 0;
            cr_expect(same_but_tiling(whole.data, whole.size, t.data, t.size, &at),
                      "%s, tiles of %u%s: differs from one piece at byte %zu", seeded ? "seeded" : "unseeded", d.tile_size,
                      d.jobs ? ", threads" : "", at);
            cr_expect_eq(t.st.layers, whole.st.layers);
            ptl_blob_free(t.data, t.size, NULL);
        }
        ptl_blob_free(whole.data, whole.size, NULL);
    }
    free(b);
}
