/* `portolan gen`: the built-in generated scenes, as Moving AI maps (`gen grid`) or as OBJ
   triangle soups (`gen building|bridge|terrain`), and the scale scenes of the tiled-bake benchmark: K x K copies
   of any OBJ (`gen copy`) and a .map extruded into 3D (`gen extrude`); an OBJ with the obstacles an
   obstacles OPS.csv leaves, as closed prisms (`gen obstacles`: what a full bake compares with). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define GEN_USAGE                                                                                   \
    "usage: portolan gen grid [--scene rooms|random] [--width W] [--height H] [--seed N] [--density F] " \
    "-o OUT.map\n       portolan gen building|bridge|terrain [--size S] [--storeys N] [--seed N] -o OUT.obj\n" \
    "       portolan gen copy IN.obj --copies K [--spacing S | --gap G] [--json] -o OUT.obj\n"     \
    "       portolan gen extrude IN.map [--cell S] [--wall-height H] [--json] -o OUT.obj\n"     \
    "       portolan gen obstacles IN.obj --ops OPS.csv [--json] -o OUT.obj"

/* Checks one option of a command whose options all take a value (`valued`, NULL-terminated): a
   word that is no option, an unknown option and a missing value are usage errors, in that order,
   so that a misspelt option is named as such. */
static int option_value(const char* a, const char* v, const char* const* valued) {
    if (a[0] != '-' || !a[1]) return cli_error(EXIT_USAGE, "unexpected argument '%s'", a);
    if (!cli_is_one_of(a, valued)) return cli_error(EXIT_USAGE, "unknown option '%s'", a);
    if (!v) return cli_error(EXIT_USAGE, "%s needs a value", a);
    return EXIT_OK;
}

static int gen_grid(int argc, char** argv) {
    ptl_grid_gen_desc d;
    memset(&d, 0, sizeof d);
    const char* out = NULL;
    static const char* const VALUED[] = {"-o", "--scene", "--width", "--height", "--seed", "--density", NULL};
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = option_value(a, v, VALUED);
        if (r != EXIT_OK) return r;
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
            /* the generator's limits; 0 would silently mean its default size */
            if (a[2] != 's' && (u < 8 || u > 65536)) return cli_error(EXIT_USAGE, "%s needs cells in 8..65536", a);
            if (a[2] == 'w') d.width = u;
            else if (a[2] == 'h') d.height = u;
            else d.seed = u;
        } else {
            /* the desc's 0 is its default (0.25): an explicit 0 cannot be expressed, so it is refused */
            if (!cli_parse_double(v, &f) || !(f > 0) || f > 0.9)
                return cli_error(EXIT_USAGE, "--density needs a fraction > 0 and <= 0.9 (default 0.25)");
            d.density = (float)f;
        }
    }
    if (!out) return cli_error(EXIT_USAGE, "missing -o OUT.map");
    ptl_grid g;
    ptl_error err;
    if (ptl_grid_generate(&d, &g, &err) < 0)
        return cli_error(err.status == PTL_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL, "%s", err.message);
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
    static const char* const VALUED[] = {"-o", "--size", "--storeys", "--seed", NULL};
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = option_value(a, v, VALUED);
        if (r != EXIT_OK) return r;
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
        }
    }
    if (!out) return cli_error(EXIT_USAGE, "missing -o OUT.obj");
    ptl_trimesh m;
    ptl_error err;
    if (ptl_scene_generate(&d, &m, &err) < 0)
        return cli_error(err.status == PTL_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL, "%s", err.message);
    ptl_status s = ptl_trimesh_save_obj(&m, out, &err);
    ptl_trimesh_free(&m);
    if (s < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    return EXIT_OK;
}

/* The summary line of gen copy / gen extrude --json. */
static void print_mesh_json(const ptl_trimesh* m, double ms) {
    printf("{\"vertices\":%u,\"triangles\":%u,\"bmin\":[", m->vert_count, m->tri_count);
    for (int c = 0; c < 3; ++c) cli_json_number(stdout, m->bmin[c]), fputs(c < 2 ? "," : "],\"bmax\":[", stdout);
    for (int c = 0; c < 3; ++c) cli_json_number(stdout, m->bmax[c]), fputs(c < 2 ? "," : "],\"ms\":", stdout);
    cli_json_number(stdout, ms);
    fputs("}\n", stdout);
}

/* Writes `m` (and frees it); the time includes the generation that began at t0. */
static int save_generated(ptl_trimesh* m, const char* out, bool json, double t0) {
    ptl_error err;
    ptl_status s = ptl_trimesh_save_obj(m, out, &err);
    if (s >= 0 && json) print_mesh_json(m, cli_now_ms() - t0);
    ptl_trimesh_free(m);
    if (s < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    return EXIT_OK;
}

/* The command line of gen copy and gen extrude: IN first, then --json, -o OUT and options with a
   value, each of those handed to `opt` (EXIT_OK, or the usage error it reported). */
typedef int (*gen_opt_fn)(void* desc, const char* name, const char* value);
static int parse_scale(int argc, char** argv, const char* what, const char* const* valued, gen_opt_fn opt, void* desc,
                       const char** in, const char** out, bool* json) {
    if (argc < 2 || argv[1][0] == '-') return cli_error(EXIT_USAGE, "gen %s: missing IN\n" GEN_USAGE, what);
    *in = argv[1], *out = NULL, *json = false;
    for (int i = 2; i < argc; ++i) {
        const char* a = argv[i];
        if (!strcmp(a, "--json")) {
            *json = true;
            continue;
        }
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = option_value(a, v, valued);
        if (r != EXIT_OK) return r;
        ++i;
        if (!strcmp(a, "-o")) *out = v;
        else if (opt(desc, a, v) != EXIT_OK) return EXIT_USAGE;
    }
    if (!*out) return cli_error(EXIT_USAGE, "missing -o OUT.obj");
    return EXIT_OK;
}

static int copy_opt(void* desc, const char* a, const char* v) {
    ptl_copies_desc* d = desc;
    unsigned u;
    double f;
    if (!strcmp(a, "--copies")) {
        if (!cli_parse_uint(v, &u) || u < 1 || u > 4096) return cli_error(EXIT_USAGE, "--copies is 1..4096");
        d->copies = u;
    } else if (!strcmp(a, "--spacing")) {
        if (!cli_parse_double(v, &f) || !(f > 0) || f > 1e30) return cli_error(EXIT_USAGE, "--spacing needs a positive number");
        d->spacing = (float)f;
    } else if (!strcmp(a, "--gap")) {
        if (!cli_parse_double(v, &f) || !(f >= 0) || f > 1e30) return cli_error(EXIT_USAGE, "--gap needs a number >= 0");
        d->gap = (float)f;
    } else {
        return cli_error(EXIT_USAGE, "unknown option '%s'", a);
    }
    return EXIT_OK;
}

/* gen copy IN.obj --copies K [--spacing S | --gap G]: options are checked here (usage errors);
   what depends on the input (no triangle, more than 2^31 - 1 triangles in all) fails with 1. */
static int gen_copy(int argc, char** argv) {
    ptl_copies_desc d;
    memset(&d, 0, sizeof d);
    const char *in = NULL, *out = NULL;
    bool json = false;
    static const char* const VALUED[] = {"-o", "--copies", "--spacing", "--gap", NULL};
    int r = parse_scale(argc, argv, "copy", VALUED, copy_opt, &d, &in, &out, &json);
    if (r != EXIT_OK) return r;
    if (!d.copies) return cli_error(EXIT_USAGE, "gen copy: missing --copies K");
    if (d.spacing > 0 && d.gap > 0) return cli_error(EXIT_USAGE, "--spacing and --gap exclude each other");
    double t0 = cli_now_ms();
    ptl_trimesh src, m;
    ptl_error err;
    if (ptl_obj_load(in, NULL, &src, &err) < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    ptl_status s = ptl_trimesh_copies(&src, &d, &m, &err);
    ptl_trimesh_free(&src);
    if (s < 0) return cli_error_about(EXIT_FAIL, in, err.message);
    return save_generated(&m, out, json, t0);
}

static int extrude_opt(void* desc, const char* a, const char* v) {
    ptl_extrude_desc* d = desc;
    double f;
    if (strcmp(a, "--cell") != 0 && strcmp(a, "--wall-height") != 0) return cli_error(EXIT_USAGE, "unknown option '%s'", a);
    if (!cli_parse_double(v, &f) || !(f > 0) || f > 1e6) return cli_error(EXIT_USAGE, "%s needs a positive number", a);
    if (a[2] == 'c') d->cell_size = (float)f;
    else d->wall_height = (float)f;
    return EXIT_OK;
}

/* gen extrude IN.map [--cell S] [--wall-height H] */
static int gen_extrude(int argc, char** argv) {
    ptl_extrude_desc d;
    memset(&d, 0, sizeof d);
    const char *in = NULL, *out = NULL;
    bool json = false;
    static const char* const VALUED[] = {"-o", "--cell", "--wall-height", NULL};
    int r = parse_scale(argc, argv, "extrude", VALUED, extrude_opt, &d, &in, &out, &json);
    if (r != EXIT_OK) return r;
    double t0 = cli_now_ms();
    ptl_grid g;
    ptl_trimesh m;
    ptl_error err;
    if (ptl_grid_load(in, NULL, &g, &err) < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    ptl_status s = ptl_grid_extrude(&g, &d, &m, &err);
    ptl_grid_free(&g);
    if (s < 0) return cli_error_about(EXIT_FAIL, in, err.message);
    return save_generated(&m, out, json, t0);
}

/* gen obstacles' state: the obstacles present, by id (kind 0: none). */
typedef struct live_ops {
    cli_obstacle_op* by_id;
    unsigned cap;
    const char* path;
} live_ops;

/* One op of OPS.csv on the set of obstacles present: as `portolan obstacles` applies it (an id
   added twice, or moved or removed while absent, is an error naming the line). */
static int track_op(void* user, const cli_obstacle_op* r, unsigned no) {
    live_ops* l = user;
    if (r->id >= l->cap) {
        unsigned nc = r->id + 1 > 2 * l->cap ? r->id + 1 : 2 * l->cap;
        cli_obstacle_op* nb = realloc(l->by_id, (size_t)nc * sizeof *nb);
        if (!nb) return cli_error(EXIT_FAIL, "out of memory");
        memset(nb + l->cap, 0, (size_t)(nc - l->cap) * sizeof *nb);
        l->by_id = nb, l->cap = nc;
    }
    cli_obstacle_op* o = &l->by_id[r->id];
    const bool present = o->d.kind != 0;
    if (r->op == 0 && present) return cli_error(EXIT_FAIL, "%s:%u: id %u is present already", l->path, no, r->id);
    if (r->op != 0 && !present) return cli_error(EXIT_FAIL, "%s:%u: id %u is not present", l->path, no, r->id);
    if (r->op == 1) {
        memset(o, 0, sizeof *o);
        return EXIT_OK;
    }
    ptl_obstacle_desc check = r->d;
    ptl_trimesh none, out;
    memset(&none, 0, sizeof none);
    ptl_error err;
    /* the desc checked as the tile cache checks it */
    if (ptl_trimesh_with_obstacles(&none, &check, 1, NULL, &out, &err) < 0)
        return cli_error(EXIT_FAIL, "%s:%u: %s", l->path, no, err.message);
    ptl_trimesh_free(&out);
    *o = *r;
    o->d.xz = o->xz;
    return EXIT_OK;
}

/* gen obstacles IN.obj --ops OPS.csv -o OUT.obj: IN plus, as closed prisms, the obstacles present
   after every op (ptl_trimesh_with_obstacles), in the order of their ids. */
static int gen_obstacles(int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return cli_error(EXIT_USAGE, "gen obstacles: missing IN.obj\n" GEN_USAGE);
    const char *in = argv[1], *ops = NULL, *out = NULL;
    bool json = false;
    static const char* const VALUED[] = {"-o", "--ops", NULL};
    for (int i = 2; i < argc; ++i) {
        const char* a = argv[i];
        if (!strcmp(a, "--json")) {
            json = true;
            continue;
        }
        int r = option_value(a, i + 1 < argc ? argv[i + 1] : NULL, VALUED);
        if (r != EXIT_OK) return r;
        if (!strcmp(a, "-o")) out = argv[++i];
        else ops = argv[++i];
    }
    if (!ops) return cli_error(EXIT_USAGE, "gen obstacles: missing --ops OPS.csv");
    if (!out) return cli_error(EXIT_USAGE, "missing -o OUT.obj");
    const double t0 = cli_now_ms();
    live_ops l = {NULL, 0, ops};
    int code = cli_read_obstacle_ops(ops, track_op, &l);
    ptl_obstacle_desc* obs = NULL;
    uint32_t n = 0;
    if (code == EXIT_OK && l.cap && !(obs = malloc((size_t)l.cap * sizeof *obs))) code = cli_error(EXIT_FAIL, "out of memory");
    for (unsigned i = 0; code == EXIT_OK && i < l.cap; ++i)
        if (l.by_id[i].d.kind) obs[n] = l.by_id[i].d, obs[n].xz = l.by_id[i].xz, ++n;
    ptl_trimesh src, m;
    ptl_error err;
    if (code == EXIT_OK && ptl_obj_load(in, NULL, &src, &err) < 0) code = cli_error(EXIT_FAIL, "%s", err.message);
    else if (code == EXIT_OK) {
        ptl_status s = ptl_trimesh_with_obstacles(&src, obs, n, NULL, &m, &err);
        ptl_trimesh_free(&src);
        if (s < 0) code = cli_error_about(EXIT_FAIL, in, err.message);
        else code = save_generated(&m, out, json, t0);
    }
    free(obs);
    free(l.by_id);
    return code;
}

int cli_gen(int argc, char** argv) {
    if (argc >= 1 && !strcmp(argv[0], "obstacles")) return gen_obstacles(argc, argv);
    if (argc >= 1 && !strcmp(argv[0], "grid")) return gen_grid(argc, argv);
    if (argc >= 1 && !strcmp(argv[0], "building")) return gen_scene(PTL_SCENE_BUILDING, argc, argv);
    if (argc >= 1 && !strcmp(argv[0], "bridge")) return gen_scene(PTL_SCENE_BRIDGE, argc, argv);
    if (argc >= 1 && !strcmp(argv[0], "terrain")) return gen_scene(PTL_SCENE_TERRAIN, argc, argv);
    if (argc >= 1 && !strcmp(argv[0], "copy")) return gen_copy(argc, argv);
    if (argc >= 1 && !strcmp(argv[0], "extrude")) return gen_extrude(argc, argv);
    return cli_error(EXIT_USAGE, GEN_USAGE);
}
