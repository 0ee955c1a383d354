/* Tests of the voxel stages at scale (bake/voxel.h): the open field's compact column index, tiled
   fields and their assembly (and its allocation failures), every mesh of ../shared/data against
   Recast's walkable area, random stacked scenes across block borders, and the layer map. The
   hand-made scenes and the invariant checks are in voxel_scenes.h. */
#include "test_util.h"

#include "../bake/layers/layer_map.h"
#include "../bake/voxel/tiles.h"
#include "voxel_scenes.h"

/* ---- The open field's column index --------------------------------------------------------------*/

/* Pushes the starts of columns whose span counts are count[0 .. cols) (then the end) into a
   compact index; false when a push fails. */
static bool push_counts(ptl_vx_col_index* x, const uint32_t* count, uint32_t cols, const ptl_allocator* a) {
    uint32_t start = 0;
    for (uint32_t c = 0; c < cols; ++c) {
        if (!ptl_col_index_push(x, start, a)) return false;
        start += count[c];
    }
    return ptl_col_index_push(x, start, a);
}

/* Does entry c of x read as the sum of count[0 .. c)? */
static void expect_starts(const ptl_vx_col_index* x, const uint32_t* count, uint32_t entries, const char* what) {
    uint32_t start = 0;
    for (uint32_t c = 0; c < entries; ++c) {
        cr_assert_eq(ptl_col_index_at(x, c), start, "%s: column %u starts at %u, read %u", what, c, start,
                     ptl_col_index_at(x, c));
        if (c + 1 < entries) start += count[c];
    }
}

Test(voxel, column_index_reads_every_start_back_at_1_2_and_4_bytes) {
    enum { N = 200 };
    static uint32_t count[N];
    const struct {
        const char* what;
        uint32_t cols, width;
    } cases[] = {
        {"sparse", N, 1},        {"20 floors a column", 100, 2}, {"a column of 70000", 64, 4},
        {"300, then 70000", 64, 4}, {"whole blocks, 20 floors", 32, 2}, {"no column", 0, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        memset(count, 0, sizeof count);
        for (uint32_t c = 0; c < cases[k].cols; ++c) {
            if (k == 0) count[c] = c % 7 == 0 ? 3 : 0;
            if (k == 1 || k == 4) count[c] = 20;
            if (k == 2) count[c] = c == 5 ? 70000 : 1;
            if (k == 3) count[c] = c == 3 ? 300 : c == 20 ? 70000 : 2;
        }
        tracking t = {0, -1, 0, 0};
        ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
        ptl_vx_col_index x;
        cr_assert_eq(ptl_col_index_init(&x, cases[k].cols, 1, &a), PTL_OK);
        cr_assert(push_counts(&x, count, cases[k].cols, &a), "%s", cases[k].what);
        cr_expect_eq(x.width, cases[k].width, "%s: %u bytes a column, expected %u", cases[k].what, x.width,
                     cases[k].width);
        cr_expect_eq(x.filled, cases[k].cols + 1);
        expect_starts(&x, count, cases[k].cols + 1, cases[k].what);
        ptl_col_index_free(&x, &a);
        cr_expect(t.live_blocks == 0 && t.live_bytes == 0, "%s: %ld blocks, %lld bytes not given back (or given back "
                  "with other sizes)", cases[k].what, t.live_blocks, t.live_bytes);
        /* the plain index reads the same */
        cr_assert_eq(ptl_col_index_init(&x, cases[k].cols, 4, &a), PTL_OK);
        cr_assert(push_counts(&x, count, cases[k].cols, &a));
        cr_expect_eq(x.width, 4);
        cr_expect_null(x.base);
        expect_starts(&x, count, cases[k].cols + 1, cases[k].what);
        ptl_col_index_free(&x, &a);
        cr_expect(t.live_blocks == 0 && t.live_bytes == 0);
    }
}

Test(voxel, column_index_out_of_memory_while_widening_keeps_what_was_pushed) {
    enum { N = 64 };
    uint32_t count[N];
    for (uint32_t c = 0; c < N; ++c) count[c] = c == 3 ? 300 : c == 20 ? 70000 : 2; /* widens twice */
    bool succeeded = false;
    for (long n = 0; n < 100 && !succeeded; ++n) {
        tracking t = {0, n, 0, 0};
        ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
        ptl_vx_col_index x;
        if (ptl_col_index_init(&x, N, 1, &a) < 0) {
            cr_assert_null(x.off.any);
            continue;
        }
        succeeded = push_counts(&x, count, N, &a);
        expect_starts(&x, count, x.filled, "pushed before the failure");
        ptl_col_index_free(&x, &a);
        cr_assert(t.live_blocks == 0 && t.live_bytes == 0, "failing at call %ld: %ld blocks, %lld bytes left", n,
                  t.live_blocks, t.live_bytes);
    }
    cr_expect(succeeded);
}

/* Floors stacked every 2.5 m over an 8 x 8 m square: about 20 open spans in each column, so a
   block of 16 columns holds more than 255 and the index needs 2 bytes a column. */
static void stacked_scene(mesh_b* b, int floors) {
    for (int i = 0; i < floors; ++i) mb_floor(b, 0, 0, 8, 8, 2.5f * (float)i, true);
}

/* The world's field of a tiled bake (tiles of 16 columns) against the one-piece field. */
static void expect_tiled_field_is_one_piece(const ptl_trimesh* m, uint32_t width) {
    ptl_bake_desc d = {.agent_radius = 0.3f};
    run r;
    run_stages(m, &d, NULL, 0, &r);
    ptl_vx_tiling t;
    ptl_error err;
    cr_assert_eq(ptl_tiles_tiling_init(&r.p, 16, &t, &err), PTL_OK);
    cr_assert_gt(t.tiles_x * t.tiles_z, 1, "several tiles");
    ptl_open_field of;
    uint32_t solid;
    cr_assert_eq(ptl_tiles_bake(m, &r.p, &t, NULL, NULL, true, &of, &solid, &err), PTL_OK, "%s", err.message);
    cr_expect_eq(of.col_index.width, width, "%u bytes a column, expected %u", of.col_index.width, width);
    cr_expect_eq(r.of.col_index.width, 4, "ptl_filter_build_open's index is plain");
    const uint32_t cols = (uint32_t)r.p.width * (uint32_t)r.p.depth;
    cr_assert_eq(of.span_count, r.of.span_count);
    for (uint32_t c = 0; c <= cols; ++c)
        cr_assert_eq(ptl_col_index_at(&of.col_index, c), ptl_col_index_at(&r.of.col_index, c), "column %u", c);
    for (uint32_t s = 0; s < r.of.span_count; ++s) r.of.spans[s].layer = PTL_VX_NONE; /* as they were before layers */
    cr_expect_eq(memcmp(of.spans, r.of.spans, (size_t)of.span_count * sizeof *of.spans), 0);
    cr_expect_eq(memcmp(of.col_of, r.of.col_of, (size_t)of.span_count * sizeof *of.col_of), 0);
    ptl_open_field_free(&of);
    /* Without the ceilings (the bake's default), the spans hold their columns: the same field but
       for ceil and pad, no col_of. */
    cr_assert_eq(ptl_tiles_bake(m, &r.p, &t, NULL, NULL, false, &of, &solid, &err), PTL_OK, "%s", err.message);
    cr_expect_null(of.col_of);
    cr_assert_eq(of.span_count, r.of.span_count);
    for (uint32_t s = 0; s < of.span_count; ++s) {
        cr_assert_eq(ptl_filter_span_col(&of, s), r.of.col_of[s], "span %u's column", s);
        ptl_open_span x = of.spans[s], y = r.of.spans[s];
        x.ceil = y.ceil, x.pad = y.pad;
        cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "span %u", s);
        for (int d = 0; d < 4; ++d) cr_assert_eq(ptl_filter_nbr(&of, s, d), ptl_filter_nbr(&r.of, s, d), "span %u", s);
    }
    ptl_open_field_free(&of);
    run_free(&r);
}

Test(voxel, tiled_world_field_has_a_compact_index_reading_as_the_one_piece_one) {
    mesh_b b = {0};
    bridge_scene(&b);
    ptl_trimesh m = mb_mesh(&b);
    expect_tiled_field_is_one_piece(&m, 1);
    mb_free(&b);
    stacked_scene(&b, 20);
    m = mb_mesh(&b);
    expect_tiled_field_is_one_piece(&m, 2);
    mb_free(&b);
}

/* Tiled bakes (ptl_tiles_bake, and ptl_tiles_build + ptl_tiles_assemble) with an
   allocator failing at its n-th call; returns the status, everything freed. */
static ptl_status tiled_once(const ptl_trimesh* m, const ptl_vx_params* p, const ptl_vx_tiling* t, bool assemble,
                             const ptl_allocator* a) {
    ptl_error err;
    ptl_open_field of;
    ptl_status st;
    if (!assemble) {
        uint32_t solid;
        st = ptl_tiles_bake(m, p, t, NULL, a, false, &of, &solid, &err);
    } else {
        const int32_t all[4] = {0, 0, t->tiles_x, t->tiles_z};
        ptl_vx_tile* tiles = NULL;
        uint32_t n = 0;
        st = ptl_tiles_build(m, p, t, all, NULL, a, &tiles, &n, &err);
        if (st < 0) return st;
        const ptl_vx_tile* list[64];
        cr_assert_leq(n, 64);
        for (uint32_t i = 0; i < n; ++i) list[i] = &tiles[n - 1 - i]; /* any order */
        st = ptl_tiles_assemble(p, t, list, n, a, &of, &err);
        for (uint32_t i = 0; i < n; ++i) ptl_tiles_tile_free(&tiles[i], a);
        a->free(tiles, (size_t)n * sizeof *tiles, a->user); /* the array came from a (ptl_tiles_build) */
    }
    if (st >= 0) ptl_open_field_free(&of);
    return st;
}

Test(voxel, tiled_assembly_out_of_memory_at_every_allocation_fails_cleanly) {
    mesh_b b = {0};
    stacked_scene(&b, 20); /* the index widens to 2 bytes on the way */
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.agent_radius = 0.3f};
    ptl_vx_params p;
    ptl_vx_tiling t;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_OK);
    cr_assert_eq(ptl_tiles_tiling_init(&p, 16, &t, &err), PTL_OK);
    for (int assemble = 0; assemble < 2; ++assemble) {
        bool succeeded = false;
        for (long n = 0; n < 100000 && !succeeded; ++n) {
            tracking f = {0, n, 0, 0};
            ptl_allocator a = {t_alloc, t_realloc, t_free, &f};
            ptl_status st = tiled_once(&m, &p, &t, assemble, &a);
            cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "failing at call %ld: %s", n, ptl_status_name(st));
            succeeded = st == PTL_OK;
            cr_assert(f.live_blocks == 0 && f.live_bytes == 0, "%s failing at call %ld: %ld blocks, %lld bytes left",
                      assemble ? "assemble" : "tiles_bake", n, f.live_blocks, f.live_bytes);
        }
        cr_expect(succeeded);
    }
    mb_free(&b);
}

/* ---- Real meshes --------------------------------------------------------------------------------*/

static void reference_desc(ptl_bake_desc* d) {
    memset(d, 0, sizeof *d);
    d->cell_size = 0.3f, d->cell_height = 0.2f, d->agent_height = 2.0f, d->agent_radius = 0.6f;
    d->max_climb = 0.9f, d->max_slope = 45.0f;
}

static bool load_mesh(const char* data, const char* name, ptl_trimesh* m) {
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/%s", data, name);
    ptl_error err;
    ptl_status st = ptl_obj_load(path, NULL, m, &err);
    cr_assert_eq(st, PTL_OK, "%s: %s", path, err.message);
    return true;
}

Test(voxel, every_shared_obj_voxelizes_and_layers_with_recast_reference_parameters) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** files = test_list_files(dir, ".obj");
    int n = 0;
    ptl_bake_desc d;
    reference_desc(&d);
    for (char** f = files; *f; ++f, ++n) {
        ptl_trimesh m;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(*f, NULL, &m, &err), PTL_OK, "%s: %s", *f, err.message);
        run r;
        run_stages(&m, &d, NULL, 0, &r);
        cr_expect_gt(r.of.span_count, 0, "%s has walkable space", *f);
        cr_expect_gt(r.ls.layer_count, 0, "%s", *f);
        check_invariants(&r);
        run_free(&r);
        ptl_trimesh_free(&m);
    }
    cr_expect_geq(n, 10, "the shared meshes are there");
    test_free_list(files);
}

Test(voxel, nav_test_bridges_and_the_floor_below_are_different_layers) {
    TEST_REQUIRE_DATA(data);
    ptl_trimesh m;
    load_mesh(data, "nav_test.obj", &m);
    ptl_bake_desc d;
    reference_desc(&d);
    run r;
    run_stages(&m, &d, NULL, 0, &r);
    /* pairs of layers whose columns overlap in plan: bridges over floors, floors over floors */
    const uint32_t cols = (uint32_t)r.p.width * (uint32_t)r.p.depth, nl = r.ls.layer_count;
    uint8_t* pair = calloc((size_t)nl * nl, 1);
    uint32_t overlapping = 0;
    for (uint32_t c = 0; c < cols; ++c)
        for (uint32_t s = ptl_filter_col_begin(&r.of, c); s < ptl_filter_col_end(&r.of, c); ++s)
            for (uint32_t t = s + 1; t < ptl_filter_col_end(&r.of, c); ++t) {
                uint32_t a = r.of.spans[s].layer, b = r.of.spans[t].layer;
                if (a == PTL_VX_NONE || b == PTL_VX_NONE) continue; /* a dropped island */
                cr_assert_neq(a, b, "one layer twice in column %u", c);
                if (!pair[(size_t)a * nl + b]) pair[(size_t)a * nl + b] = 1, ++overlapping;
            }
    cr_expect_gt(overlapping, 0, "layers overlapping in plan (bridges over floors)");
    free(pair);
    check_invariants(&r);
    run_free(&r);
    ptl_trimesh_free(&m);
}

/* Recast 1.5.1 (Debian's librecast, through bench/peer_recast's peer_stats.walkable_spans): walkable
   compact-heightfield spans after erosion with the reference parameters, solo bake. */
static const struct {
    const char* file;
    uint32_t spans;
} RECAST_SPANS[] = {{"dungeon.obj", 17498}, {"nav_test.obj", 45069}, {"undulating.obj", 97770}, {"house.obj", 2657}};

Test(voxel, walkable_area_is_within_3_percent_of_recast) {
    TEST_REQUIRE_DATA(data);
    ptl_bake_desc d;
    reference_desc(&d);
    for (size_t i = 0; i < sizeof RECAST_SPANS / sizeof RECAST_SPANS[0]; ++i) {
        ptl_trimesh m;
        load_mesh(data, RECAST_SPANS[i].file, &m);
        run r;
        run_stages(&m, &d, NULL, 0, &r);
        double ours = r.of.span_count, theirs = RECAST_SPANS[i].spans;
        cr_expect(fabs(ours - theirs) <= 0.03 * theirs, "%s: %u walkable spans, Recast %u (%+.2f%%)",
                  RECAST_SPANS[i].file, r.of.span_count, RECAST_SPANS[i].spans, 100 * (ours - theirs) / theirs);
        run_free(&r);
        ptl_trimesh_free(&m);
    }
}

/* Layers across block borders (layers.c floods blocks of PTL_VX_LAYER_BLOCK columns, layer_stitch.c
   stitches them): random scenes of overlapping platforms, ramps and boxes, 30 x 30 m at 0.3 m
   columns (a hundred columns: several blocks each way), keep every rule of the flood
   (check_invariants: one span of a layer per column, no unlinked neighbours in a layer, no two
   linked layers that could be one, ids in order of their lowest spans), and the layers are the
   same flooded in turn or as jobs on three threads (blocks in any order). */
#include "../tools/jobs.h"

/* A random scene of 30 x 30 m over several blocks: a floor, and 14 platforms (bridges), ramps up
   from the ground and boxes; `seed` advances. */
static void random_stacked_scene(mesh_b* b, uint32_t* seed) {
    mb_floor(b, 0, 0, 30, 30, 0, true);
    for (int k = 0; k < 14; ++k) {
        float v[6];
        for (int i = 0; i < 6; ++i) {
            *seed = *seed * 1664525u + 1013904223u;
            v[i] = (float)((*seed >> 8) % 10000) / 10000.0f;
        }
        const float x0 = 28 * v[0], z0 = 28 * v[1], w = 2 + 14 * v[2], d = 2 + 14 * v[3];
        const float x1 = x0 + w > 30 ? 30 : x0 + w, z1 = z0 + d > 30 ? 30 : z0 + d;
        const float y = 0.6f + 6 * v[4];
        switch (k % 3) {
        case 0: mb_floor(b, x0, z0, x1, z1, y, true); break;
        case 1: mb_ramp(b, x0, z0, x1, z1, 0, y * v[5]); break;
        default: mb_box(b, x0, 0, z0, x0 + 1 + 2 * v[5], 2.5f, z0 + 1 + 2 * v[5], true); break;
        }
    }
}

Test(voxel, random_stacked_scenes_keep_the_layer_rules_across_block_borders, .timeout = 300) {
    uint32_t seed = 20261124u, layered = 0;
    ptl_thread_jobs j;
    ptl_thread_jobs_init(&j, 3);
    for (int scene = 0; scene < 12; ++scene) {
        mesh_b b = {0};
        random_stacked_scene(&b, &seed);
        ptl_trimesh m = mb_mesh(&b);
        ptl_bake_desc desc = {.agent_radius = 0.3f};
        run r;
        run_stages(&m, &desc, NULL, 0, &r);
        cr_assert_gt(r.p.width, 2 * (int32_t)PTL_VX_LAYER_BLOCK, "scene %d spans several blocks", scene);
        check_invariants(&r);
        layered += r.ls.layer_count >= 3;
        /* the same layers from jobs */
        uint32_t* first = malloc((size_t)r.of.span_count * sizeof *first + 1);
        for (uint32_t s = 0; s < r.of.span_count; ++s) first[s] = r.of.spans[s].layer;
        ptl_layer_set ls;
        ptl_error err;
        cr_assert_eq(ptl_lmap_build_layers_jobs(&r.of, NULL, 0, &j.sys, NULL, &ls, &err), PTL_OK, "%s", err.message);
        cr_expect_eq(ls.layer_count, r.ls.layer_count, "scene %d", scene);
        for (uint32_t s = 0; s < r.of.span_count; ++s)
            cr_assert_eq(r.of.spans[s].layer, first[s], "scene %d: span %u's layer on threads", scene, s);
        ptl_layer_set_free(&ls);
        free(first);
        run_free(&r);
        mb_free(&b);
    }
    cr_expect_geq(layered, 6u, "only %u of 12 scenes have 3 layers or more", layered);
}

/* ---- The layer map (layer_map.h) ------------------------------------------------------------------
   The later stages read the layers from the map the band stream leaves, not from an open field: it
   must answer for every open span what the field answers (its layer, floor and tag; what lies
   across each of its sides: nothing, another layer through a link, or a gap link). */

#include "../bake/contours/contours.h"

static uint64_t map_junctions, map_gaps; /* sides checked that the map must find a layer across */

static void check_map_against_field(const ptl_open_field* of, const ptl_layer_map* m, const char* name) {
    const uint32_t W = (uint32_t)of->p.width;
    uint64_t covered = 0;
    for (uint32_t c = 0; c < W * (uint32_t)of->p.depth; ++c)
        for (uint32_t s = ptl_filter_col_begin(of, c); s < ptl_filter_col_end(of, c); ++s) {
            const ptl_open_span* sp = &of->spans[s];
            const int64_t x = c % W, z = c / W;
            cr_assert_eq(ptl_lmap_layer_at(m, x, z, sp->floor), sp->layer, "%s: span %u's layer", name, s);
            if (sp->layer == PTL_VX_NONE) continue;
            ++covered;
            const uint32_t i = ptl_lmap_find(m, sp->layer, x, z);
            cr_assert_neq(i, PTL_VX_NONE, "%s: layer %u misses column (%lld, %lld)", name, sp->layer, (long long)x, (long long)z);
            cr_assert_eq(ptl_lmap_floor(m, i, x, z), sp->floor, "%s: span %u's floor", name, s);
            cr_assert_eq(ptl_lmap_tag(m, i, x, z), sp->tag, "%s: span %u's tag", name, s);
            for (int d = 0; d < 4; ++d) {
                const int64_t nx = x + (d == 2) - (d == 0), nz = z + (d == 1) - (d == 3);
                bool inside = false; /* the neighbour column holds this layer: no edge there */
                if (nx >= 0 && nz >= 0 && nx < of->p.width && nz < of->p.depth) {
                    const uint32_t nc = (uint32_t)nz * W + (uint32_t)nx;
                    for (uint32_t t = ptl_filter_col_begin(of, nc); t < ptl_filter_col_end(of, nc); ++t)
                        inside |= of->spans[t].layer == sp->layer;
                }
                if (inside) continue;
                uint32_t want = PTL_NONE;
                const uint32_t n = ptl_filter_nbr(of, s, d);
                if (n != PTL_VX_NONE) {
                    const uint32_t o = of->spans[n].layer;
                    want = o == PTL_VX_NONE || o == sp->layer ? PTL_NONE : o;
                } else {
                    for (uint32_t g = 0; g < of->gap_count; ++g)
                        if (of->gaps[g].span == s && of->gaps[g].dir == d && of->spans[of->gaps[g].other].layer != PTL_VX_NONE)
                            want = PTL_KIND_GAP | (uint32_t)of->gaps[g].cols << 24 | of->spans[of->gaps[g].other].layer;
                }
                cr_assert_eq(ptl_lmap_edge_kind(m, sp->layer, x, z, d), want, "%s: span %u, side %d", name, s, d);
                if (want != PTL_NONE) ++*(PTL_KIND_IS_GAP(want) ? &map_gaps : &map_junctions);
            }
        }
    uint64_t in_map = 0;
    for (uint32_t i = 0; i < m->bl_count; ++i) in_map += m->bl[i].world != PTL_VX_NONE ? m->bl[i].count : 0;
    cr_assert_eq(in_map, covered, "%s: the map's block-layers hold every layered span once", name);
    for (uint32_t l = 0; l < m->layer_count; ++l)
        for (uint32_t k = m->layer_first[l]; k < m->layer_first[l + 1]; ++k)
            cr_assert_eq(m->bl[m->layer_bls[k]].world, l, "%s: layer %u lists a block-layer of another", name, l);
}

static void map_scene(const ptl_trimesh* m, const ptl_bake_desc* d, const char* name) {
    run r;
    run_stages(m, d, NULL, 0, &r);
    ptl_layer_set ls;
    ptl_layer_map map;
    ptl_error err;
    cr_assert_eq(ptl_lmap_layers_of_field(&r.of, NULL, 0, NULL, NULL, &ls, &map, &err), PTL_OK, "%s: %s", name, err.message);
    cr_assert_eq(ls.layer_count, r.ls.layer_count, "%s: the same layers through the map", name);
    check_map_against_field(&r.of, &map, name);
    ptl_layer_map_free(&map);
    ptl_layer_set_free(&ls);
    run_free(&r);
}

Test(voxel, layer_map_answers_what_the_field_answers_on_stacked_scenes_and_gaps) {
    uint32_t seed = 20261125u;
    map_junctions = map_gaps = 0;
    for (int scene = 0; scene < 6; ++scene) {
        mesh_b b = {0};
        mb_floor(&b, 31, 0, 45, 30, 0, true); /* across a crack from the scene: gap links */
        random_stacked_scene(&b, &seed);
        ptl_trimesh m = mb_mesh(&b);
        ptl_bake_desc desc = {.agent_radius = 0.3f, .max_gap = 1.5f};
        char name[32];
        snprintf(name, sizeof name, "scene %d", scene);
        map_scene(&m, &desc, name);
        mb_free(&b);
    }
    cr_expect_gt(map_junctions, 0, "junctions between layers were checked");
    cr_expect_gt(map_gaps, 0, "gap links were checked");
    cr_log_info("layer map: %llu junction sides, %llu gap sides checked", (unsigned long long)map_junctions,
                (unsigned long long)map_gaps);
}

Test(voxel, layer_map_answers_what_the_field_answers_on_every_shared_mesh, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** files = test_list_files(dir, ".obj");
    ptl_bake_desc d;
    reference_desc(&d);
    int n = 0;
    for (char** f = files; *f; ++f, ++n) {
        ptl_trimesh m;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(*f, NULL, &m, &err), PTL_OK, "%s: %s", *f, err.message);
        map_scene(&m, &d, *f);
        ptl_trimesh_free(&m);
    }
    cr_expect_geq(n, 10, "the shared meshes are there");
    test_free_list(files);
}
