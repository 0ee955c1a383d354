/* `portolan`: the command-line program. Its contract (commands, options, JSON fields, exit codes)
   is in ../shared/DESIGN.md; tools outside the project depend on it, so it only grows. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* Each command's usage, printed by `portolan COMMAND --help` (stdout, exit 0) and, all together, by
   `portolan --help`. */
static const struct command_usage {
    const char* name;
    const char* text;
} USAGES[] = {
    {"bake",
     "  bake INPUT -o OUT.ptl [--relax D] [--pair-slack F] [--landmarks N] [--lids] [--hubs] [--quiet] [--progress]\n"
     "       [--json]\n"
     "       INPUT: .obj (3D), .map, .poly or .mesh (2D); N: 0 none, default 4 (16 with --hubs)\n"
     "       --lids: 2D, pockets cut off first (more cells, faster searches)\n"
     "       --hubs: hub labels for exact paths in microseconds (bigger blob, seconds of bake)\n"
     "       progress: a bake that runs past a second shows its stage and percentage on stderr (not with\n"
     "       --json); --progress: from the start, even with --json; --quiet: never\n"
     "       3D: [--cell-size S] [--cell-height H] [--agent-height H] [--agent-radius R] [--max-climb C]\n"
     "           [--max-slope DEG] [--max-error CELLS] [--max-gap M] [--seed X,Y,Z]... [--tile-size CELLS]\n"
     "           [--threads N]   (--max-gap: widest crack a link steps over, default one cell; 0: no links)\n"
     "       3D, one part of a bake spread over machines: --tile-size CELLS --tiles X0:X1,Z0:Z1 -o PART.ptl\n"
     "           (tile columns X0..X1 and rows Z0..Z1, inclusive; ranges past the world are clamped)\n"
     "       3D, with the tile cache that obstacles rebake from: --tile-size CELLS --cache CACHE.ptc\n"},
    {"obstacles",
     "  obstacles NAV.ptl --cache CACHE.ptc --ops OPS.csv -o OUT.ptl [--out TIMES.csv] [--json]\n"
     "       OPS: op,id,shape,x,y,z,sx,sy,sz,yaw[,points]  op: add | remove | move; shape: cylinder (sx radius,\n"
     "       sy height, base at y) | box (half extents sx,sy,sz about x,y,z, turned by yaw) | prism (points\n"
     "       \"x z;x z;...\" convex, base y, height sy); shape@AREA (box@5): an area volume instead, the\n"
     "       walkable floor inside it gets area AREA (0..63), no geometry change; each op applied, the\n"
     "       navmesh updated, timed\n"
     "       --out: idx,op,id,tiles,cells_removed,cells_added,us\n"},
    {"merge", "  merge PART.ptl... -o OUT.ptl [--threads N] [--json]   the navmesh of parts holding every tile once\n"},
    {"info", "  info NAV.ptl [--validate] [--json]              describe a navmesh; --validate checks every invariant\n"},
    {"path",
     "  path NAV.ptl --from X,Y,Z --to X,Y,Z [--json]   shortest path between two points\n"
     "  path NAV.ptl (--pairs F.csv | --scen F.scen) [--out RESULTS.csv] [--json]\n"
     "       [--extents X,Y,Z] [--mode exact|corridor] [--radius R] [--no-hubs] [--surface]\n"
     "       [--cost AREA=C]... [--exclude AREA]...\n"
     "       --radius R: the path of a disc of radius R (its ends moved to keep R from the walls)\n"
     "       --cost AREA=C: area AREA (0..63) costs C times its length; --exclude AREA: never entered\n"
     "       --surface: 3D navmeshes: points where the ground bends too (default: the corners only)\n"},
    {"query",
     "  query NAV.ptl KIND --in IN.csv --out OUT.csv [--extents X,Y,Z] [--radius R] [--seed N] [--json]\n"
     "       [--cost AREA=C]... [--exclude AREA]...   (the query filter, as for path)\n"
     "       one query per row of IN (a header naming its columns; others are ignored), each timed\n"
     "       nearest  IN: px,py,pz             OUT: idx,found,x,y,z,cell,dist,us   (the nearest point of the mesh)\n"
     "       wall     IN: px,py,pz,max_radius  OUT: idx,found,dist,x,y,z,nx,nz,us (the nearest wall within max_radius)\n"
     "       clear    IN: px,py,pz[,radius]    OUT: idx,found,x,y,z,cell,dist,us   (the nearest point keeping radius,\n"
     "                                         or --radius, from every wall)\n"
     "       raycast  IN: sx,sy,sz,ex,ey,ez    OUT: idx,hit,t,x,y,z,nx,nz,cells,us (cells: c;c;...)\n"
     "       move     IN: sx,sy,sz,ex,ey,ez    OUT: idx,x,y,z,cell,us             (toward e, sliding along walls)\n"
     "       random   IN: n | cx,cy,cz,r       OUT: idx,x,y,z,cell,us             (n points uniform by surface area,\n"
     "                [--seed N]                                                 or one per row in that circle)\n"},
    {"decompose", "  decompose INPUT [--relax D] [--pair-slack F] [--lids] [--json]  convex decomposition statistics\n"},
    {"draw",
     "  draw NAV.ptl -o OUT.png [--size PX] [--from X,Y,Z --to X,Y,Z [--radius R]] [--window X0,Z0,X1,Z1]\n"
     "       [--layer N | --band Y0,Y1]\n"
     "                                                  top-view picture (and a path, start and goal marked;\n"
     "                                                  --window: a part of x-z; --layer: one storey, 0 the\n"
     "                                                  lowest; --band: the cells whose heights meet Y0..Y1;\n"
     "                                                  --radius: an agent's path and the band it sweeps)\n"},
    {"gen",
     "  gen grid [--scene rooms|random] [--width W] [--height H] [--seed N] [--density F] -o OUT.map\n"
     "                                                  a generated 2D scene (the built-in default: rooms;\n"
     "                                                  width and height 8..65536, at most 2^28 cells)\n"
     "  gen building|bridge|terrain [--size S] [--storeys N] [--seed N] -o OUT.obj\n"
     "                                                  a generated 3D scene (size: footprint side in m, default 40;\n"
     "                                                  building 24..256, 1..64 storeys, default 3; bridge 24..4096;\n"
     "                                                  terrain 8..1024)\n"
     "  gen copy IN.obj --copies K [--spacing S | --gap G] [--json] -o OUT.obj\n"
     "                                                  K x K copies side by side in x-z (default: edge to edge)\n"
     "  gen extrude IN.map [--cell S] [--wall-height H] [--json] -o OUT.obj\n"
     "                                                  a floor quad per free cell, walls (default 2 m) around them\n"
     "  gen obstacles IN.obj --ops OPS.csv [--json] -o OUT.obj\n"
     "                                                  IN plus the obstacles OPS.csv leaves (as for `obstacles`),\n"
     "                                                  as closed prisms: the geometry a full bake compares with\n"},
};

static const char USAGE_TAIL[] = "\nErrors go to stderr; exit 0 on success, 1 on bad input or failure, 2 on bad usage.\n";

static void print_usage(FILE* f, const char* only) {
    if (!only) fputs("usage: portolan <command> [options]\n\n", f);
    for (size_t k = 0; k < sizeof USAGES / sizeof USAGES[0]; ++k) {
        if (!only) fputs(USAGES[k].text, f);
        else if (!strcmp(only, USAGES[k].name)) fprintf(f, "usage: portolan %s", USAGES[k].text + 2);
    }
    fputs(USAGE_TAIL, f);
}

static bool is_help(const char* a) {
    return !strcmp(a, "-h") || !strcmp(a, "--help");
}

int cli_error(int code, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("portolan: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int cli_error_about(int code, const char* subject, const char* message) {
    size_t n = strlen(subject);
    if (!strncmp(message, subject, n) && message[n] == ':') return cli_error(code, "%s", message);
    return cli_error(code, "%s: %s", subject, message);
}

double cli_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

bool cli_parse_double(const char* s, double* out) {
    if (!s || !*s) return false;
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v)) return false;
    *out = v;
    return true;
}

bool cli_parse_vec3(const char* s, float out[3]) {
    if (!s) return false;
    char buf[256];
    size_t n = strlen(s);
    if (n >= sizeof buf) return false;
    memcpy(buf, s, n + 1);
    char* parts[3];
    int k = 0;
    char* p = buf;
    for (;;) {
        if (k == 3) return false;
        parts[k++] = p;
        char* comma = strchr(p, ',');
        if (!comma) break;
        *comma = '\0';
        p = comma + 1;
    }
    if (k != 3) return false;
    for (int i = 0; i < 3; ++i) {
        double v;
        if (!cli_parse_double(parts[i], &v) || fabs(v) > 3.0e38) return false;
        out[i] = (float)v;
    }
    return true;
}

bool cli_parse_uint(const char* s, unsigned* out) {
    if (!s || !*s || *s == '-' || *s == '+') return false;
    char* end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v > 0xffffffffUL) return false;
    *out = (unsigned)v;
    return true;
}

/* --cost AREA=C (C finite and > 0) into the filter. */
static bool parse_cost(const char* v, ptl_query_filter* f) {
    const char* eq = strchr(v, '=');
    if (!eq || eq == v || eq - v > 8) return false;
    char area[9];
    memcpy(area, v, (size_t)(eq - v));
    area[eq - v] = '\0';
    unsigned a;
    double c;
    if (!cli_parse_uint(area, &a) || a > 63 || !cli_parse_double(eq + 1, &c) || !(c > 0) || c > 1e30) return false;
    f->area_cost[a] = (float)c;
    return true;
}

int cli_filter_option(const char* a, const char* v, ptl_query_filter* f) {
    if (!strcmp(a, "--cost")) {
        if (!parse_cost(v, f)) return -cli_error(EXIT_USAGE, "--cost needs AREA=C (AREA in 0..63, C a number > 0)");
        return 1;
    }
    if (!strcmp(a, "--exclude")) {
        unsigned ar;
        if (!cli_parse_uint(v, &ar) || ar > 63) return -cli_error(EXIT_USAGE, "--exclude needs an area in 0..63");
        f->exclude_mask |= (uint64_t)1 << ar;
        return 1;
    }
    return 0;
}

bool cli_is_one_of(const char* name, const char* const* names) {
    for (; *names; ++names)
        if (!strcmp(name, *names)) return true;
    return false;
}

int cli_file_close(FILE* f, const char* path) {
    /* A buffered write that failed earlier left only the stream's error flag (its errno may be
       gone); the flush of what is still buffered usually fails again and says why. */
    errno = 0;
    bool failed = ferror(f) != 0;
    if (fflush(f) != 0) failed = true;
    int e = errno;
    if (fclose(f) != 0) {
        failed = true;
        if (!e) e = errno;
    }
    if (!failed) return EXIT_OK;
    return cli_error(EXIT_FAIL, "%s: cannot write%s%s", path, e ? ": " : "", e ? strerror(e) : "");
}

int cli_write_file(const char* path, const void* data, size_t size) {
    errno = 0;
    FILE* f = fopen(path, "wb");
    if (!f) {
        int e = errno;
        return cli_error(EXIT_FAIL, "%s: cannot write%s%s", path, e ? ": " : "", e ? strerror(e) : "");
    }
    if (fwrite(data, 1, size, f) != size) {
        int e = errno;
        fclose(f);
        return cli_error(EXIT_FAIL, "%s: cannot write%s%s", path, e ? ": " : "", e ? strerror(e) : "");
    }
    return cli_file_close(f, path);
}

void cli_json_string(FILE* f, const char* s) {
    fputc('"', f);
    for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

bool cli_parse_extents(const char* s, float out[3]) {
    if (!cli_parse_vec3(s, out) || out[0] < 0 || out[1] < 0 || out[2] < 0) return false;
    if (out[0] == 0 && out[1] == 0 && out[2] == 0) out[1] = FLT_TRUE_MIN;
    return true;
}

void cli_json_number(FILE* f, double v) {
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char buf[40];
    for (int prec = 6; prec <= 17; ++prec) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

/* Runs a command; a result on stdout that could not be written (a full disk, a closed pipe, a
   redirection to /dev/full) fails the command like a failed output file. */
static int finish(int code) {
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        int r = cli_error(EXIT_FAIL, "standard output: cannot write%s%s", e ? ": " : "", e ? strerror(e) : "");
        return code == EXIT_OK ? r : code;
    }
    return code;
}

/* After the "portolan: " line of a usage error of the whole command line (it comes first: scripts
   and the contract read the first line of stderr), the usage it refers to. */
static int usage_after(int code) {
    fputc('\n', stderr);
    print_usage(stderr, NULL);
    return code;
}

int main(int argc, char** argv) {
    if (argc < 2) return usage_after(cli_error(EXIT_USAGE, "missing command"));
    const char* cmd = argv[1];
    if (is_help(cmd) || !strcmp(cmd, "help")) {
        print_usage(stdout, NULL);
        return finish(EXIT_OK);
    }
    static const struct {
        const char* name;
        int (*run)(int, char**);
    } COMMANDS[] = {{"bake", cli_bake},   {"info", cli_info},           {"merge", cli_merge}, {"obstacles", cli_obstacles},
                    {"path", cli_path},   {"query", cli_query},         {"decompose", cli_decompose},
                    {"draw", cli_draw},   {"gen", cli_gen}};
    for (size_t k = 0; k < sizeof COMMANDS / sizeof COMMANDS[0]; ++k) {
        if (strcmp(cmd, COMMANDS[k].name) != 0) continue;
        /* `portolan CMD ... --help`: that command's usage, whatever else is on the line */
        for (int i = 2; i < argc; ++i)
            if (is_help(argv[i])) {
                print_usage(stdout, cmd);
                return finish(EXIT_OK);
            }
        return finish(COMMANDS[k].run(argc - 2, argv + 2));
    }
    return usage_after(cli_error(EXIT_USAGE, "unknown command '%s'", cmd));
}
