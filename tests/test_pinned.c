/* Outputs pinned by value: the blob's own checksum (the header's, ptl_navmesh_info.checksum), its
   size and its cell count for reference bakes of the shared data, through the public C API the way
   `portolan bake` and `portolan merge` call it (tools/cmd_bake.c, tools/cmd_merge.c). A refactor
   shows it changed no output by leaving this suite green.

   A change that means to change bake output updates the table below in the same commit and says
   why in its message (which inputs changed, and what the change does to them). Run with
   PTL_PIN_PRINT=1 to get every row as baked today, ready to paste (the table's columns: input
   under ../shared/data, bake, checksum, bytes, cells). */
#include <inttypes.h>
#include <portolan/runtime.h>

#include "../tools/jobs.h"
#include "test_util.h"

/* The bakes, each named by the command line that makes the same blob. "reference" is Recast's
   reference parameters (../shared/data/README.md): the defaults but for an agent radius of 0.6. */
typedef enum pin_bake {
    PIN_3D_DEFAULT,   /* portolan bake IN.obj */
    PIN_3D_REFERENCE, /* portolan bake IN.obj --agent-radius 0.6 (explicitly every reference value) */
    PIN_3D_TILED_1,   /* portolan bake IN.obj --agent-radius 0.6 --tile-size 64 --threads 1 */
    PIN_3D_TILED_2,   /* ... --threads 2 */
    PIN_3D_PARTS,     /* three parts of --tile-size 64 (--tiles), baked and merged on 2 threads */
    PIN_2D_DEFAULT,   /* portolan bake IN.map|.mesh */
    PIN_2D_LIDS,      /* ... --lids */
    PIN_2D_HUBS,      /* ... --hubs */
    PIN_2D_HUBS_2,    /* ... --hubs --threads 2 */
} pin_bake;

static const char* const bake_names[] = {
    [PIN_3D_DEFAULT] = "default (portolan bake IN)",
    [PIN_3D_REFERENCE] = "reference (cell 0.3, cell height 0.2, agent height 2, radius 0.6, climb 0.9, slope 45)",
    [PIN_3D_TILED_1] = "reference, --tile-size 64 --threads 1",
    [PIN_3D_TILED_2] = "reference, --tile-size 64 --threads 2",
    [PIN_3D_PARTS] = "reference, --tile-size 64, parts --tiles 2:3,0:2 / 0:1,0:5 / 2:99,3:99 on 2 threads, merged",
    [PIN_2D_DEFAULT] = "default (portolan bake IN)",
    [PIN_2D_LIDS] = "--lids",
    [PIN_2D_HUBS] = "--hubs",
    [PIN_2D_HUBS_2] = "--hubs --threads 2",
};
static const char* const bake_ids[] = {
    [PIN_3D_DEFAULT] = "PIN_3D_DEFAULT", [PIN_3D_REFERENCE] = "PIN_3D_REFERENCE", [PIN_3D_TILED_1] = "PIN_3D_TILED_1",
    [PIN_3D_TILED_2] = "PIN_3D_TILED_2", [PIN_3D_PARTS] = "PIN_3D_PARTS",         [PIN_2D_DEFAULT] = "PIN_2D_DEFAULT",
    [PIN_2D_LIDS] = "PIN_2D_LIDS",       [PIN_2D_HUBS] = "PIN_2D_HUBS",           [PIN_2D_HUBS_2] = "PIN_2D_HUBS_2",
};

typedef struct pin {
    const char* input; /* relative to ../shared/data */
    pin_bake bake;
    uint64_t checksum; /* ptl_navmesh_info.checksum */
    uint64_t bytes;    /* blob size */
    uint32_t cells;
} pin;

/* What the code bakes today (the truth pinned).
     input under ../shared/data            bake              checksum                bytes  cells */
static const pin pins[] = {
    {"meshes/bridge.obj",                  PIN_3D_DEFAULT,   0x935cb39057ce7607,    1960,     1},
    {"meshes/bridge.obj",                  PIN_3D_REFERENCE, 0x53e3c04565fa38f1,    1968,     1},
    {"meshes/convex.obj",                  PIN_3D_DEFAULT,   0x43d020c06cd94697,    1024,     1},
    {"meshes/convex.obj",                  PIN_3D_REFERENCE, 0xbe283d5b39ced014,     856,     1},
    {"meshes/dungeon.obj",                 PIN_3D_DEFAULT,   0xcef6230ca87128a2,   43624,    90},
    {"meshes/dungeon.obj",                 PIN_3D_REFERENCE, 0x2d8d73ea82a4f144,   19248,    50},
    {"meshes/go-detour-cube45xdeg.obj",    PIN_3D_DEFAULT,   0xf9ba830a6a3b6794,    2136,     1},
    {"meshes/go-detour-cube45xdeg.obj",    PIN_3D_REFERENCE, 0x983b80313a9c5ba9,    1864,     1},
    {"meshes/go-detour-develer.obj",       PIN_3D_DEFAULT,   0x77d5dab2a0949f32,   12664,    63},
    {"meshes/go-detour-develer.obj",       PIN_3D_REFERENCE, 0xbd604b17849501d2,    3952,    21},
    {"meshes/go-detour-hill.obj",          PIN_3D_DEFAULT,   0x92c4e80f19cfb364,    3232,     9},
    {"meshes/go-detour-hill.obj",          PIN_3D_REFERENCE, 0x02f9683e8c5c4ef4,    2528,     6},
    {"meshes/go-detour-stair2.obj",        PIN_3D_DEFAULT,   0x68b4d34f268f221c,     696,     2},
    {"meshes/go-detour-stair2.obj",        PIN_3D_REFERENCE, 0xa6caa3b23a9ff9b3,     696,     2},
    {"meshes/go-detour-stair3.obj",        PIN_3D_DEFAULT,   0x526ea74e5b49fc11,    4512,     8},
    {"meshes/go-detour-stair3.obj",        PIN_3D_REFERENCE, 0xc59027425a8dd7ca,    3528,     8},
    {"meshes/go-detour-twisted.obj",       PIN_3D_DEFAULT,   0x1518daf22da16cd3,   13128,    41},
    {"meshes/go-detour-twisted.obj",       PIN_3D_REFERENCE, 0x6f4d4a15445afeb4,    6680,    19},
    {"meshes/house.obj",                   PIN_3D_DEFAULT,   0x7571526cefbd08bb,    4288,    11},
    {"meshes/house.obj",                   PIN_3D_REFERENCE, 0x14c963231ab2f5a5,    2432,     4},
    {"meshes/nav_test.obj",                PIN_3D_DEFAULT,   0x2707c860fe10b472,   51136,   136},
    {"meshes/nav_test.obj",                PIN_3D_REFERENCE, 0x1b759bdeac696af8,   37552,    88},
    {"meshes/three-pathfinding-level.obj", PIN_3D_DEFAULT,   0x6991401c1256c9b6,   18456,    69},
    {"meshes/three-pathfinding-level.obj", PIN_3D_REFERENCE, 0x4821d6600315d3ea,    1992,     6},
    {"meshes/undulating.obj",              PIN_3D_DEFAULT,   0x3c5fe174ae3072e6,   94184,   127},
    {"meshes/undulating.obj",              PIN_3D_REFERENCE, 0xbfa76a73a4e93740,   86616,    95},
    {"meshes/dungeon.obj",                 PIN_3D_TILED_1,   0xde0e4c554481e2ec,   19248,    50},
    {"meshes/dungeon.obj",                 PIN_3D_TILED_2,   0xde0e4c554481e2ec,   19248,    50},
    {"meshes/dungeon.obj",                 PIN_3D_PARTS,     0xde0e4c554481e2ec,   19248,    50},
    {"grids/dao/arena.map",                PIN_2D_DEFAULT,   0x408a1acffedaab16,    6912,    33},
    {"grids/dao/arena.map",                PIN_2D_LIDS,      0x254d4c473f849590,    8144,    49},
    {"grids/dao/arena.map",                PIN_2D_HUBS,      0x24317a604e8e3139,   23552,    49},
    {"grids/gppc2023/rmtst01.map",         PIN_2D_DEFAULT,   0x4d9f3a457b786614,   24712,   131},
    {"grids/gppc2023/rmtst01.map",         PIN_2D_LIDS,      0xc63a07964a00ee55,   30240,   211},
    {"grids/gppc2023/rmtst01.map",         PIN_2D_HUBS,      0x30effa78b9482cad,   76304,   211},
    {"grids/dao/den520d.map",              PIN_2D_DEFAULT,   0x8337cf755fab1294,  105896,   580},
    {"grids/dao/den520d.map",              PIN_2D_LIDS,      0x4bace1f6ac64572c,  129024,   932},
    {"grids/dao/den520d.map",              PIN_2D_HUBS,      0x8c6613619fbcb627,  437000,   932},
    {"polyanya/meshes/arena.mesh",         PIN_2D_DEFAULT,   0x277a0a4c0a7c16f3,    6912,    33},
    {"polyanya/meshes/arena.mesh",         PIN_2D_LIDS,      0x9f2ec08cb0104e78,    8152,    49},
    {"polyanya/meshes/arena.mesh",         PIN_2D_HUBS,      0xead0fff56ef8ddb6,   23552,    49},
    {"polyanya/meshes/arena-merged.mesh",  PIN_2D_DEFAULT,   0xf64d8193d705b142,    6912,    33},
    {"polyanya/meshes/arena-merged.mesh",  PIN_2D_LIDS,      0xa8131cff135ad30c,    8144,    49},
    {"polyanya/meshes/arena-merged.mesh",  PIN_2D_HUBS,      0xe53520eebb13bfac,   23552,    49},
    {"polyanya/meshes/tests/hard.mesh",    PIN_2D_DEFAULT,   0x9b654351621e80f8,    2960,    14},
    {"polyanya/meshes/tests/hard.mesh",    PIN_2D_LIDS,      0xc0904717750b3f06,    3248,    17},
    {"polyanya/meshes/tests/hard.mesh",    PIN_2D_HUBS,      0x455ab78c159413b4,    7032,    17},
    {"polyanya/meshes/aurora-merged.mesh", PIN_2D_DEFAULT,   0xaef2825e98e4bf7a, 2262856, 12217},
    {"polyanya/meshes/aurora-merged.mesh", PIN_2D_LIDS,      0x36fa71af55312887, 2813248, 21178},
    {"polyanya/meshes/aurora-merged.mesh", PIN_2D_HUBS,      0x25b58bcabe127a21, 9315888, 21178},
    {"grids/dao/den520d.map",              PIN_2D_HUBS_2,    0x8c6613619fbcb627,  437000,   932},
};

/* ---- the bakes ---------------------------------------------------------------------------------*/

typedef struct baked {
    void* data;
    size_t size;
} baked;

static void bake_desc(pin_bake b, ptl_bake_desc* d) {
    if (b == PIN_3D_DEFAULT || b >= PIN_2D_DEFAULT) {
        *d = (ptl_bake_desc){.lids = b == PIN_2D_LIDS, .hubs = b == PIN_2D_HUBS || b == PIN_2D_HUBS_2};
        return;
    }
    *d = (ptl_bake_desc){.cell_size = 0.3f,
                         .cell_height = 0.2f,
                         .agent_height = 2.0f,
                         .agent_radius = 0.6f,
                         .max_climb = 0.9f,
                         .max_slope = 45.0f,
                         .tile_size = b == PIN_3D_REFERENCE ? 0 : 64};
}

/* The three parts `portolan bake --tiles` would write on three machines, handed to the merge out
   of order, as `portolan merge` does. */
static baked bake_parts(const ptl_trimesh* m, const ptl_bake_desc* d, ptl_thread_jobs* jobs, const char* input) {
    static const uint32_t ranges[3][4] = {{2, 0, 3, 2}, {0, 0, 1, 5}, {2, 3, 99, 99}};
    void* parts[3] = {NULL, NULL, NULL};
    size_t sizes[3] = {0, 0, 0};
    ptl_error err;
    for (int k = 0; k < 3; ++k)
        cr_assert_geq(ptl_bake_trimesh_part(m, d, ranges[k], &parts[k], &sizes[k], NULL, &err), 0, "%s, part %d: %s",
                      input, k, err.message);
    baked out = {NULL, 0};
    const ptl_merge_desc md = {.jobs = &jobs->sys};
    ptl_status st = ptl_bake_merge_parts((const void* const*)parts, sizes, 3, &md, &out.data, &out.size, NULL, &err);
    cr_assert_geq(st, 0, "%s, merge: %s", input, err.message);
    for (int k = 0; k < 3; ++k) ptl_blob_free(parts[k], sizes[k], NULL);
    return out;
}

static baked bake_one(const char* data, const pin* p) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", data, p->input);
    ptl_bake_desc d;
    bake_desc(p->bake, &d);
    ptl_thread_jobs jobs;
    bool two = p->bake == PIN_3D_TILED_2 || p->bake == PIN_3D_PARTS || p->bake == PIN_2D_HUBS_2;
    ptl_thread_jobs_init(&jobs, two ? 2 : 1);
    if (jobs.threads > 1) d.jobs = &jobs.sys;
    baked out = {NULL, 0};
    ptl_error err;
    if (p->bake < PIN_2D_DEFAULT) {
        ptl_trimesh m;
        cr_assert_geq(ptl_obj_load(path, NULL, &m, &err), 0, "%s: %s", p->input, err.message);
        if (p->bake == PIN_3D_PARTS) {
            out = bake_parts(&m, &d, &jobs, p->input);
        } else {
            cr_assert_geq(ptl_bake_trimesh(&m, &d, &out.data, &out.size, NULL, &err), 0, "%s, %s: %s", p->input,
                          bake_names[p->bake], err.message);
        }
        ptl_trimesh_free(&m);
    } else {
        ptl_shape s;
        cr_assert_geq(ptl_shape_load(path, NULL, &s, &err), 0, "%s: %s", p->input, err.message);
        cr_assert_geq(ptl_bake_shape(&s, &d, &out.data, &out.size, NULL, &err), 0, "%s, %s: %s", p->input,
                      bake_names[p->bake], err.message);
        ptl_shape_free(&s);
    }
    return out;
}

/* Bakes every row whose input starts with `prefix` and whose bake is one of `kinds`, and compares
   it with the row; returns the rows seen. */
static unsigned check_pins(const char* data, const char* prefix, const pin_bake* kinds, size_t kind_count) {
    const char* env = getenv("PTL_PIN_PRINT");
    bool print = env && *env;
    unsigned seen = 0;
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; ++i) {
        const pin* p = &pins[i];
        bool mine = false;
        for (size_t k = 0; k < kind_count; ++k) mine |= p->bake == kinds[k];
        if (!mine || strncmp(p->input, prefix, strlen(prefix)) != 0) continue;
        ++seen;
        const char* what = bake_names[p->bake];
        baked b = bake_one(data, p);
        ptl_navmesh* nm = NULL;
        ptl_error err;
        cr_assert_geq(ptl_navmesh_create(b.data, b.size, NULL, &nm, &err), 0, "%s, %s: the blob does not load: %s",
                      p->input, what, err.message);
        ptl_navmesh_info in;
        ptl_navmesh_get_info(nm, &in);
        if (print)
            printf("    {\"%s\", %s, 0x%016" PRIx64 ", %" PRIu64 ", %u},\n", p->input, bake_ids[p->bake], in.checksum,
                   in.blob_size, in.cell_count);
        cr_expect_eq(in.checksum, p->checksum, "%s, %s: checksum expected 0x%016" PRIx64 ", got 0x%016" PRIx64,
                     p->input, what, p->checksum, in.checksum);
        cr_expect_eq(in.blob_size, p->bytes, "%s, %s: bytes expected %" PRIu64 ", got %" PRIu64, p->input, what,
                     p->bytes, in.blob_size);
        cr_expect_eq(in.cell_count, p->cells, "%s, %s: cells expected %u, got %u", p->input, what, p->cells,
                     in.cell_count);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(b.data, b.size, NULL);
    }
    return seen;
}

/* ---- the tests ---------------------------------------------------------------------------------*/

#define KINDS(...) (const pin_bake[]){__VA_ARGS__}, sizeof((const pin_bake[]){__VA_ARGS__}) / sizeof(pin_bake)

Test(pinned, every_shared_mesh_has_pins_at_default_and_reference_parameters) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** objs = test_list_files(dir, ".obj");
    cr_expect_not_null(objs[0], "%s holds no .obj", dir);
    for (char** o = objs; *o; ++o) {
        const char* name = *o + strlen(data) + 1;
        bool def = false, ref = false;
        for (size_t i = 0; i < sizeof pins / sizeof pins[0]; ++i) {
            if (strcmp(pins[i].input, name) != 0) continue;
            def |= pins[i].bake == PIN_3D_DEFAULT;
            ref |= pins[i].bake == PIN_3D_REFERENCE;
        }
        cr_expect(def && ref, "%s has no pinned %s bake: add its row to the table", name,
                  !def ? bake_names[PIN_3D_DEFAULT] : bake_names[PIN_3D_REFERENCE]);
    }
    test_free_list(objs);
}

Test(pinned, every_mesh_bakes_to_its_pinned_checksum_at_default_parameters, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    cr_expect_gt(check_pins(data, "meshes/", KINDS(PIN_3D_DEFAULT)), 0);
}

Test(pinned, every_mesh_bakes_to_its_pinned_checksum_at_reference_parameters, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    cr_expect_gt(check_pins(data, "meshes/", KINDS(PIN_3D_REFERENCE)), 0);
}

Test(pinned, a_tiled_bake_has_its_pinned_checksum_on_one_and_two_threads_and_merged_from_parts, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    cr_expect_eq(check_pins(data, "meshes/", KINDS(PIN_3D_TILED_1, PIN_3D_TILED_2, PIN_3D_PARTS)), 3);
}

Test(pinned, grid_maps_bake_to_their_pinned_checksums_with_and_without_lids_and_hubs, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    cr_expect_gt(check_pins(data, "grids/", KINDS(PIN_2D_DEFAULT, PIN_2D_LIDS, PIN_2D_HUBS, PIN_2D_HUBS_2)), 0);
}

Test(pinned, polygon_meshes_bake_to_their_pinned_checksums_with_and_without_lids_and_hubs, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    cr_expect_gt(check_pins(data, "polyanya/", KINDS(PIN_2D_DEFAULT, PIN_2D_LIDS, PIN_2D_HUBS, PIN_2D_HUBS_2)), 0);
}
