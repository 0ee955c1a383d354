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
    {"meshes/bridge.obj",                  PIN_3D_DEFAULT,   0x48fe1c2851445816,    1944,     1},
    {"meshes/bridge.obj",                  PIN_3D_REFERENCE, 0x7c3d27994b8de3c0,    1952,     1},
    {"meshes/convex.obj",                  PIN_3D_DEFAULT,   0x3301112075f1574f,    1008,     1},
    {"meshes/convex.obj",                  PIN_3D_REFERENCE, 0x7a404969cab0fa0d,     840,     1},
    {"meshes/dungeon.obj",                 PIN_3D_DEFAULT,   0x453baae4df5de1f5,   43608,    90},
    {"meshes/dungeon.obj",                 PIN_3D_REFERENCE, 0x258eb82d553d5562,   19232,    50},
    {"meshes/go-detour-cube45xdeg.obj",    PIN_3D_DEFAULT,   0x812624a7a6443fe0,    2120,     1},
    {"meshes/go-detour-cube45xdeg.obj",    PIN_3D_REFERENCE, 0xf0dd709d4febbe32,    1848,     1},
    {"meshes/go-detour-develer.obj",       PIN_3D_DEFAULT,   0x4a37532645fd6ac3,   12648,    63},
    {"meshes/go-detour-develer.obj",       PIN_3D_REFERENCE, 0x76712c82701c5670,    3936,    21},
    {"meshes/go-detour-hill.obj",          PIN_3D_DEFAULT,   0x884143e262b1288f,    3216,     9},
    {"meshes/go-detour-hill.obj",          PIN_3D_REFERENCE, 0x67a385df1dfe08d9,    2512,     6},
    {"meshes/go-detour-stair2.obj",        PIN_3D_DEFAULT,   0x45f702cc0dd0212c,     680,     2},
    {"meshes/go-detour-stair2.obj",        PIN_3D_REFERENCE, 0x4ae816e25fe54273,     680,     2},
    {"meshes/go-detour-stair3.obj",        PIN_3D_DEFAULT,   0x2f9dc86a820a8bef,    4496,     8},
    {"meshes/go-detour-stair3.obj",        PIN_3D_REFERENCE, 0x45582bc7ebd4a3f4,    3512,     8},
    {"meshes/go-detour-twisted.obj",       PIN_3D_DEFAULT,   0xe1a52b778fd70503,   13112,    41},
    {"meshes/go-detour-twisted.obj",       PIN_3D_REFERENCE, 0xb50766014a06b46e,    6664,    19},
    {"meshes/house.obj",                   PIN_3D_DEFAULT,   0x97b33be2ee818d28,    4272,    11},
    {"meshes/house.obj",                   PIN_3D_REFERENCE, 0x2491c525b140486c,    2416,     4},
    {"meshes/nav_test.obj",                PIN_3D_DEFAULT,   0x861e99255324fbc5,   51120,   136},
    {"meshes/nav_test.obj",                PIN_3D_REFERENCE, 0x3502366cdb61b378,   37536,    88},
    {"meshes/three-pathfinding-level.obj", PIN_3D_DEFAULT,   0x85910f5d696ccb40,   18440,    69},
    {"meshes/three-pathfinding-level.obj", PIN_3D_REFERENCE, 0xabf75386e8c1008d,    1976,     6},
    {"meshes/undulating.obj",              PIN_3D_DEFAULT,   0x600531521aae16ea,   94168,   127},
    {"meshes/undulating.obj",              PIN_3D_REFERENCE, 0x382d9c77e6890215,   86600,    95},
    {"meshes/dungeon.obj",                 PIN_3D_TILED_1,   0x4faac8dcf01fad0d,   19232,    50},
    {"meshes/dungeon.obj",                 PIN_3D_TILED_2,   0x4faac8dcf01fad0d,   19232,    50},
    {"meshes/dungeon.obj",                 PIN_3D_PARTS,     0x4faac8dcf01fad0d,   19232,    50},
    {"grids/dao/arena.map",                PIN_2D_DEFAULT,   0x2048c927181e209c,    6896,    33},
    {"grids/dao/arena.map",                PIN_2D_LIDS,      0x80de77972a46fdc6,    8128,    49},
    {"grids/dao/arena.map",                PIN_2D_HUBS,      0x5f4997c89475150c,   23536,    49},
    {"grids/gppc2023/rmtst01.map",         PIN_2D_DEFAULT,   0x83f3d3af393c0b5c,   24696,   131},
    {"grids/gppc2023/rmtst01.map",         PIN_2D_LIDS,      0x6e7c109a675eb53d,   30224,   211},
    {"grids/gppc2023/rmtst01.map",         PIN_2D_HUBS,      0xe3f3565d58eaf430,   76288,   211},
    {"grids/dao/den520d.map",              PIN_2D_DEFAULT,   0x312413316d72f5f6,  105880,   580},
    {"grids/dao/den520d.map",              PIN_2D_LIDS,      0xc31787981f8f8f09,  129008,   932},
    {"grids/dao/den520d.map",              PIN_2D_HUBS,      0x782627f9656af0d5,  436984,   932},
    {"polyanya/meshes/arena.mesh",         PIN_2D_DEFAULT,   0x941bb2c54a70a646,    6896,    33},
    {"polyanya/meshes/arena.mesh",         PIN_2D_LIDS,      0xc571af4ff722a23d,    8136,    49},
    {"polyanya/meshes/arena.mesh",         PIN_2D_HUBS,      0xfcd67b022d7188ae,   23536,    49},
    {"polyanya/meshes/arena-merged.mesh",  PIN_2D_DEFAULT,   0x7a006a72a8653077,    6896,    33},
    {"polyanya/meshes/arena-merged.mesh",  PIN_2D_LIDS,      0xd259dd43268414c7,    8128,    49},
    {"polyanya/meshes/arena-merged.mesh",  PIN_2D_HUBS,      0x726f90b60c45f3ce,   23536,    49},
    {"polyanya/meshes/tests/hard.mesh",    PIN_2D_DEFAULT,   0x94dcc95d3470346d,    2944,    14},
    {"polyanya/meshes/tests/hard.mesh",    PIN_2D_LIDS,      0x54bd35e203c67d06,    3232,    17},
    {"polyanya/meshes/tests/hard.mesh",    PIN_2D_HUBS,      0x28fff1bf38c7f3c6,    7016,    17},
    {"polyanya/meshes/aurora-merged.mesh", PIN_2D_DEFAULT,   0x908f35c022893759, 2262840, 12217},
    {"polyanya/meshes/aurora-merged.mesh", PIN_2D_LIDS,      0xd604721bbd5eea75, 2813232, 21178},
    {"polyanya/meshes/aurora-merged.mesh", PIN_2D_HUBS,      0xd9a1a34d427bc849, 9315872, 21178},
    {"grids/dao/den520d.map",              PIN_2D_HUBS_2,    0x782627f9656af0d5,  436984,   932},
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
