/* `portolan gen`: the built-in generated scenes, as Moving AI maps (`gen grid`) or as OBJ
   triangle soups (`gen building|bridge|terrain`). */
#include <string.h>

#include "cli.h"

#define GEN_USAGE                                                                                   \
    "usage: portolan gen grid [--scene rooms|random] [--width W] [--height H] [--seed N] [--density F] " \
    "-o OUT.map\n       portolan gen building|bridge|terrain [--size S] [--storeys N] [--seed N] -o OUT.obj"

static int gen_grid(int argc, char** argv) {
    ptl_grid_gen_desc d;
    memset(&d, 0, sizeof d);
    const char* out = NULL;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return cli_error(EXIT_USAGE, "%s needs a value", a);
        ++i;
        unsigned u;
        double f;
        if (!strcmp(a, "-o")) out = v;
        else if (!strcmp(a, "--scene")) {
            if (!strcmp(v, "rooms")) d.scene = PTL_GRID_SCENE_ROOMS;
            else if (!strcmp(v, "random")) d.scene = PTL_GRID_SCENE_RANDOM;
            else return cli_error(EXIT_USAGE, "--scene is rooms or random");
        } else if (!strcmp(a, "--width") || !strcmp(a, "--height") || !strcmp(a, "--seed")) {
            if (!cli_parse_uint(v, &u)) return cli_error(EXIT_USAGE, "%s needs a non-negative integer", a);
            if (a[2] == 'w') d.width = u;
            else if (a[2] == 'h') d.height = u;
            else d.seed = u;
        } else if (!strcmp(a, "--density")) {
            if (!cli_parse_double(v, &f) || f < 0 || f > 0.9) return cli_error(EXIT_USAGE, "--density is 0..0.9");
            d.density = (float)f;
        } else {
            return cli_error(EXIT_USAGE, "unknown option '%s'", a);
        }
    }
    if (!out) return cli_error(EXIT_USAGE, "missing -o OUT.map");
    ptl_grid g;
    ptl_error err;
    if (ptl_grid_generate(&d, NULL, &g, &err) < 0) return cli_error(EXIT_USAGE, "%s", err.message);
    ptl_status s = ptl_grid_save(&g, out, &err);
    ptl_grid_free(&g);
    if (s < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    return EXIT_OK;
}

/* gen building|bridge|terrain: the desc's limits are checked by ptl_scene_generate, whose message
   names them; they are usage errors here. */
static int gen_scene(ptl_scene_kind kind, int argc, char** argv) {
    ptl_scene_desc d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    const char* out = NULL;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return cli_error(EXIT_USAGE, "%s needs a value", a);
        ++i;
        unsigned u;
        double f;
        if (!strcmp(a, "-o")) out = v;
        else if (!strcmp(a, "--size")) {
            if (!cli_parse_double(v, &f) || !(f > 0)) return cli_error(EXIT_USAGE, "--size needs a positive number");
            d.size = (float)f;
        } else if (!strcmp(a, "--storeys") || !strcmp(a, "--seed")) {
            if (!cli_parse_uint(v, &u)) return cli_error(EXIT_USAGE, "%s needs a non-negative integer", a);
            if (a[3] == 't') {
                if (kind != PTL_SCENE_BUILDING) return cli_error(EXIT_USAGE, "--storeys applies to gen building");
                if (u == 0) return cli_error(EXIT_USAGE, "--storeys needs at least 1");
                d.storeys = u;
            } else {
                d.seed = u;
            }
        } else {
            return cli_error(EXIT_USAGE, "unknown option '%s'", a);
        }
    }
    if (!out) return cli_error(EXIT_USAGE, "missing -o OUT.obj");
    ptl_trimesh m;
    ptl_error err;
    if (ptl_scene_generate(&d, NULL, &m, &err) < 0)
        return cli_error(err.status == PTL_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL, "%s", err.message);
    ptl_status s = ptl_trimesh_save_obj(&m, out, &err);
    ptl_trimesh_free(&m);
    if (s < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    return EXIT_OK;
}

int cli_gen(int argc, char** argv) {
    if (argc >= 1 && !strcmp(argv[0], "grid")) return gen_grid(argc, argv);
    if (argc >= 1 && !strcmp(argv[0], "building")) return gen_scene(PTL_SCENE_BUILDING, argc, argv);
    if (argc >= 1 && !strcmp(argv[0], "bridge")) return gen_scene(PTL_SCENE_BRIDGE, argc, argv);
    if (argc >= 1 && !strcmp(argv[0], "terrain")) return gen_scene(PTL_SCENE_TERRAIN, argc, argv);
    return cli_error(EXIT_USAGE, GEN_USAGE);
}
