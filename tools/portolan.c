/* `portolan`: the command-line program. Its contract (commands, options, JSON fields, exit codes)
   is in ../shared/DESIGN.md; tools outside the project depend on it, so it only grows. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char USAGE[] =
    "usage: portolan <command> [options]\n"
    "\n"
    "  bake INPUT -o OUT.ptl [--relax D] [--pair-slack F] [--landmarks N] [--lids] [--hubs] [--json]\n"
    "       INPUT: .obj (3D), .map, .poly or .mesh (2D); N: 0 none, default 4 (16 with --hubs)\n"
    "       --lids: 2D, pockets cut off first (more cells, faster searches)\n"
    "       --hubs: hub labels for exact paths in microseconds (bigger blob, seconds of bake)\n"
    "       3D: [--cell-size S] [--cell-height H] [--agent-height H] [--agent-radius R] [--max-climb C]\n"
    "           [--max-slope DEG] [--max-error CELLS] [--max-gap M] [--seed X,Y,Z]... [--tile-size CELLS]\n"
    "           [--threads N]   (--max-gap: widest crack a link steps over, default one cell; 0: no links)\n"
    "       3D, one part of a bake spread over machines: --tile-size CELLS --tiles X0:X1,Z0:Z1 -o PART.ptl\n"
    "           (tile columns X0..X1 and rows Z0..Z1, inclusive; ranges past the world are clamped)\n"
    "  merge PART.ptl... -o OUT.ptl [--threads N] [--json]   the navmesh of parts holding every tile once\n"
    "  info NAV.ptl [--validate] [--json]              describe a navmesh; --validate checks every invariant\n"
    "  path NAV.ptl --from X,Y,Z --to X,Y,Z [--json]   shortest path between two points\n"
    "  path NAV.ptl (--pairs F.csv | --scen F.scen) [--out RESULTS.csv] [--json]\n"
    "       [--extents X,Y,Z] [--mode exact|corridor] [--radius 0] [--no-hubs]\n"
    "  decompose INPUT [--relax D] [--pair-slack F] [--lids] [--json]  convex decomposition statistics\n"
    "  draw NAV.ptl -o OUT.png [--size PX] [--from X,Y,Z --to X,Y,Z] [--window X0,Z0,X1,Z1]\n"
    "                                                  top-view picture (and a path; --window: a part of x-z)\n"
    "  gen grid [--scene rooms|random] [--width W] [--height H] [--seed N] [--density F] -o OUT.map\n"
    "                                                  a generated 2D scene (the built-in default: rooms)\n"
    "  gen building|bridge|terrain [--size S] [--storeys N] [--seed N] -o OUT.obj\n"
    "                                                  a generated 3D scene (size: footprint side in m, default 40;\n"
    "                                                  building 24..256, 1..64 storeys, default 3; bridge 24..4096;\n"
    "                                                  terrain 8..1024)\n"
    "  gen copy IN.obj --copies K [--spacing S | --gap G] [--json] -o OUT.obj\n"
    "                                                  K x K copies side by side in x-z (default: edge to edge)\n"
    "  gen extrude IN.map [--cell S] [--wall-height H] [--json] -o OUT.obj\n"
    "                                                  a floor quad per free cell, walls (default 2 m) around them\n"
    "\n"
    "Errors go to stderr; exit 0 on success, 1 on bad input or failure, 2 on bad usage.\n";

int cli_error(int code, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("portolan: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
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

void cli_json_string(FILE* f, const char* s) {
    fputc('"', f);
    for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
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

int main(int argc, char** argv) {
    if (argc < 2) {
        fputs(USAGE, stderr);
        return cli_error(EXIT_USAGE, "missing command");
    }
    const char* cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(USAGE, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "bake")) return cli_bake(argc - 2, argv + 2);
    if (!strcmp(cmd, "info")) return cli_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "merge")) return cli_merge(argc - 2, argv + 2);
    if (!strcmp(cmd, "path")) return cli_path(argc - 2, argv + 2);
    if (!strcmp(cmd, "decompose")) return cli_decompose(argc - 2, argv + 2);
    if (!strcmp(cmd, "draw")) return cli_draw(argc - 2, argv + 2);
    if (!strcmp(cmd, "gen")) return cli_gen(argc - 2, argv + 2);
    fputs(USAGE, stderr);
    return cli_error(EXIT_USAGE, "unknown command '%s'", cmd);
}
