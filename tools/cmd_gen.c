/* `portolan gen grid`: the built-in generated scenes as Moving AI maps. */
#include <string.h>

#include "cli.h"

int cli_gen(int argc, char** argv) {
    if (argc < 1 || strcmp(argv[0], "grid") != 0)
        return cli_error(EXIT_USAGE, "usage: portolan gen grid [--scene rooms|random] [--width W] [--height H] [--seed N] "
                                     "[--density F] -o OUT.map");
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
