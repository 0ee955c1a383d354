/* `portolan query NAV KIND --in IN.csv --out OUT.csv`: one runtime query per input row, timed.
   Kinds: nearest (ptl_query_locate), wall (ptl_query_wall_distance), clear (ptl_query_clear_point),
   raycast (ptl_query_raycast; cells as "c;c;..."), move (ptl_query_move_along_surface), random
   (ptl_query_random_point and ptl_query_random_point_in_circle: IN column n, n points each, or
   cx,cy,cz,r, one point per row in that circle; --seed N is the generator's state, default 1). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <portolan/runtime.h>

#include "cli.h"

typedef enum query_kind { KIND_NEAREST, KIND_WALL, KIND_CLEAR, KIND_RAYCAST, KIND_MOVE, KIND_RANDOM } query_kind;

typedef struct query_opts {
    const char* nav;
    const char* kind_name;
    const char* in;
    const char* out;
    query_kind kind;
    bool json, has_radius, has_seed;
    double radius;
    float extents[3];
    uint64_t seed; /* random: the generator's state (--seed, default 1) */
    ptl_query_filter filter; /* --cost AREA=C, --exclude AREA */
} query_opts;

static int parse(int argc, char** argv, query_opts* o) {
    memset(o, 0, sizeof *o);
    o->filter = ptl_query_filter_defaults();
    for (int i = 0; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            o->json = true;
            continue;
        }
        if (a[0] != '-' || !a[1]) {
            if (!o->nav) o->nav = a;
            else if (!o->kind_name) o->kind_name = a;
            else return cli_error(EXIT_USAGE, "unexpected argument '%s'", a);
            continue;
        }
        static const char* const VALUED[] = {"--in", "--out", "--radius", "--extents", "--seed", "--cost", "--exclude", NULL};
        if (!cli_is_one_of(a, VALUED)) return cli_error(EXIT_USAGE, "unknown option '%s'", a);
        if (!v) return cli_error(EXIT_USAGE, "%s needs a value", a);
        ++i;
        int fo = cli_filter_option(a, v, &o->filter);
        if (fo < 0) return EXIT_USAGE;
        if (fo > 0) continue;
        if (!strcmp(a, "--in")) {
            o->in = v;
        } else if (!strcmp(a, "--out")) {
            o->out = v;
        } else if (!strcmp(a, "--radius")) {
            if (!cli_parse_double(v, &o->radius) || o->radius < 0 || o->radius > 1e9)
                return cli_error(EXIT_USAGE, "--radius needs a number in 0..1e9");
            o->has_radius = true;
        } else if (!strcmp(a, "--extents")) {
            if (!cli_parse_extents(v, o->extents)) return cli_error(EXIT_USAGE, "--extents needs X,Y,Z >= 0");
        } else if (!strcmp(a, "--seed")) {
            char* end;
            errno = 0;
            unsigned long long n = strtoull(v, &end, 10);
            if (!*v || *end || errno || v[0] == '-') return cli_error(EXIT_USAGE, "--seed needs an integer in 0..2^64-1");
            o->seed = n, o->has_seed = true;
        }
    }
    if (!o->nav) return cli_error(EXIT_USAGE, "missing NAV.ptl");
    if (!o->kind_name) return cli_error(EXIT_USAGE, "missing KIND (nearest, wall, clear, raycast, move or random)");
    if (!strcmp(o->kind_name, "nearest")) o->kind = KIND_NEAREST;
    else if (!strcmp(o->kind_name, "wall")) o->kind = KIND_WALL;
    else if (!strcmp(o->kind_name, "clear")) o->kind = KIND_CLEAR;
    else if (!strcmp(o->kind_name, "raycast")) o->kind = KIND_RAYCAST;
    else if (!strcmp(o->kind_name, "move")) o->kind = KIND_MOVE;
    else if (!strcmp(o->kind_name, "random")) o->kind = KIND_RANDOM;
    else return cli_error(EXIT_USAGE, "unknown query kind '%s' (nearest, wall, clear, raycast, move or random)", o->kind_name);
    if (o->has_seed && o->kind != KIND_RANDOM) return cli_error(EXIT_USAGE, "--seed is for random only");
    if (!o->has_seed) o->seed = 1;
    if (!o->in) return cli_error(EXIT_USAGE, "missing --in IN.csv");
    if (!o->out) return cli_error(EXIT_USAGE, "missing --out OUT.csv");
    return EXIT_OK;
}

/* ---- The input table: a header naming the columns, then rows of numbers ------------------------ */

#define MAX_COLS 6

typedef struct table {
    double* v;      /* MAX_COLS per row, in the order the kind asks for them */
    uint32_t rows;
    bool has[MAX_COLS];
} table;

/* The next field of a comma-separated line (in place: the comma becomes a NUL), trimmed. */
static char* next_field(char** cursor) {
    char* s = *cursor;
    if (!s) return NULL;
    char* comma = strchr(s, ',');
    if (comma) *comma = 0, *cursor = comma + 1;
    else *cursor = NULL;
    while (*s == ' ' || *s == '\t') ++s;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    return s;
}

/* Reads `path` into t: the columns `names` (NULL-terminated; those in `optional` may be absent).
   EXIT_OK, or EXIT_FAIL after a message naming the file and the line. */
static int read_table(const char* path, const char* const* names, const bool* optional, table* t) {
    memset(t, 0, sizeof *t);
    errno = 0;
    FILE* f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return cli_error(EXIT_FAIL, "%s: cannot open%s%s", path, e ? ": " : "", e ? strerror(e) : "");
    }
    size_t cap = 1 << 16, len = 0;
    char* text = malloc(cap + 1);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char* nt = cap < ((size_t)1 << 31) ? realloc(text, 2 * cap + 1) : NULL;
            if (!nt) {
                free(text);
                text = NULL;
                break;
            }
            text = nt, cap *= 2;
        }
    }
    bool read_error = ferror(f);
    fclose(f);
    if (!text) return cli_error(EXIT_FAIL, "%s: too large to read (out of memory)", path);
    if (read_error) {
        free(text);
        return cli_error(EXIT_FAIL, "%s: read error", path);
    }
    text[len] = 0;
    if (memchr(text, 0, len)) {
        free(text);
        return cli_error(EXIT_FAIL, "%s: not a text file (NUL byte)", path);
    }
    int code = EXIT_OK;
    int col_of[32]; /* input column -> wanted index, -1: ignored */
    int ncols = 0;
    uint32_t row_cap = 0, line_no = 0;
    char* line = text;
    bool header = true;
    while (line && code == EXIT_OK) {
        char* nl = strchr(line, '\n');
        if (nl) *nl = 0;
        ++line_no;
        char* cursor = line;
        char* probe = line;
        while (*probe == ' ' || *probe == '\t' || *probe == '\r') ++probe;
        if (*probe == 0) {
            line = nl ? nl + 1 : NULL;
            continue;
        }
        if (header) {
            for (char* fld; (fld = next_field(&cursor));) {
                if (ncols == 32) {
                    code = cli_error(EXIT_FAIL, "%s:%u: more than 32 columns", path, line_no);
                    break;
                }
                col_of[ncols] = -1;
                for (int k = 0; names[k]; ++k)
                    if (!strcmp(fld, names[k])) {
                        if (t->has[k]) code = cli_error(EXIT_FAIL, "%s:%u: column '%s' given twice", path, line_no, fld);
                        col_of[ncols] = k, t->has[k] = true;
                    }
                ++ncols;
            }
            for (int k = 0; names[k] && code == EXIT_OK; ++k)
                if (!t->has[k] && !optional[k]) code = cli_error(EXIT_FAIL, "%s:%u: the header has no column '%s'", path, line_no, names[k]);
            header = false;
        } else {
            if (t->rows == row_cap) {
                row_cap = row_cap ? 2 * row_cap : 256;
                double* nv = row_cap < (1u << 26) ? realloc(t->v, (size_t)row_cap * MAX_COLS * sizeof(double)) : NULL;
                if (!nv) {
                    code = cli_error(EXIT_FAIL, "%s:%u: too many rows", path, line_no);
                    break;
                }
                t->v = nv;
            }
            double* row = t->v + (size_t)t->rows * MAX_COLS;
            int c = 0;
            for (char* fld; (fld = next_field(&cursor)); ++c) {
                if (c >= ncols) {
                    code = cli_error(EXIT_FAIL, "%s:%u: more fields than the header's %d columns", path, line_no, ncols);
                    break;
                }
                if (col_of[c] < 0) continue;
                double d;
                if (!cli_parse_double(fld, &d) || !isfinite(d)) {
                    code = cli_error(EXIT_FAIL, "%s:%u: column '%s': '%s' is not a finite number", path, line_no,
                                     names[col_of[c]], fld);
                    break;
                }
                row[col_of[c]] = d;
            }
            if (code == EXIT_OK && c < ncols)
                code = cli_error(EXIT_FAIL, "%s:%u: %d fields, the header has %d columns", path, line_no, c, ncols);
            ++t->rows;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (code == EXIT_OK && header) code = cli_error(EXIT_FAIL, "%s: empty (no header line)", path);
    free(text);
    if (code != EXIT_OK) {
        free(t->v);
        t->v = NULL;
    }
    return code;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* A move along the surface (row: sx, sy, sz, ex, ey, ez): idx,x,y,z,cell,us; a start with no mesh
   within the extents: 0,0,0 and cell 4294967295. */
static ptl_status run_move(ptl_query* q, const float* ext, const double* row, uint32_t i, FILE* out, double* us, bool* found) {
    const float s[3] = {(float)row[0], (float)row[1], (float)row[2]}, e[3] = {(float)row[3], (float)row[4], (float)row[5]};
    ptl_move_result m;
    memset(&m, 0, sizeof m);
    double t0 = cli_now_ms();
    ptl_status st = ptl_query_move_along_surface(q, s, e, ext, &m);
    *us = (cli_now_ms() - t0) * 1e3;
    *found = st >= 0;
    if (st >= 0) fprintf(out, "%u,%.9g,%.9g,%.9g,%u,%.3f\n", i, m.point[0], m.point[1], m.point[2], m.end_cell, *us);
    else fprintf(out, "%u,0,0,0,%u,%.3f\n", i, PTL_NONE, *us);
    return st == PTL_ERR_NOT_FOUND ? PTL_OK : st;
}

/* Runs row `i` of the table and writes its output line. */
static ptl_status run_row(ptl_query* q, const query_opts* o, const double* row, bool has_radius_col, uint32_t i,
                          FILE* out, double* us, bool* found) {
    const float p[3] = {(float)row[0], (float)row[1], (float)row[2]};
    const float* ext = o->extents[0] != 0 || o->extents[1] != 0 || o->extents[2] != 0 ? o->extents : NULL;
    if (o->kind == KIND_MOVE) return run_move(q, ext, row, i, out, us, found);
    double t0 = cli_now_ms();
    ptl_status st;
    if (o->kind == KIND_RAYCAST) {
        static uint32_t cells[1u << 16];
        const float e[3] = {(float)row[3], (float)row[4], (float)row[5]};
        ptl_raycast_hit h = {.cells = cells, .cell_capacity = 1u << 16};
        st = ptl_query_raycast(q, p, e, ext, &h);
        *us = (cli_now_ms() - t0) * 1e3;
        *found = st >= 0;
        if (st >= 0) {
            fprintf(out, "%u,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,", i, h.hit, h.t, h.point[0], h.point[1], h.point[2], h.normal[0],
                    h.normal[2]);
            for (uint32_t k = 0; k < h.cell_count && k < h.cell_capacity; ++k) fprintf(out, "%s%u", k ? ";" : "", cells[k]);
            fprintf(out, ",%.3f\n", *us);
        } else {
            fprintf(out, "%u,0,0,0,0,0,0,0,,%.3f\n", i, *us);
        }
        return st == PTL_ERR_NOT_FOUND || st == PTL_TRUNCATED ? PTL_OK : st;
    }
    if (o->kind == KIND_WALL) {
        ptl_wall_hit hit;
        st = ptl_query_wall_distance(q, p, ext, (float)row[3], &hit);
        *us = (cli_now_ms() - t0) * 1e3;
        *found = st == PTL_OK && hit.found;
        fprintf(out, "%u,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.3f\n", i, *found, *found ? hit.distance : 0.0,
                *found ? hit.point[0] : 0.0, *found ? hit.point[1] : 0.0, *found ? hit.point[2] : 0.0,
                *found ? hit.normal[0] : 0.0, *found ? hit.normal[2] : 0.0, *us);
    } else {
        ptl_location loc;
        if (o->kind == KIND_NEAREST) st = ptl_query_locate(q, p, ext, &loc);
        else st = ptl_query_clear_point(q, p, ext, (float)(has_radius_col ? row[3] : o->radius), &loc);
        *us = (cli_now_ms() - t0) * 1e3;
        *found = st == PTL_OK;
        if (*found)
            fprintf(out, "%u,1,%.9g,%.9g,%.9g,%u,%.9g,%.3f\n", i, loc.point[0], loc.point[1], loc.point[2], loc.cell,
                    loc.distance, *us);
        else
            fprintf(out, "%u,0,0,0,0,%u,0,%.3f\n", i, PTL_NONE, *us);
    }
    return st == PTL_ERR_NOT_FOUND ? PTL_OK : st;
}

/* ---- random: n points per row (column n), or one point per row in the circle cx,cy,cz,r ---------- */

#define RANDOM_MAX_POINTS (1u << 26)

/* Checks the random table: either n (whole numbers, 0..2^26 in all) or cx,cy,cz,r (r >= 0); the
   number of output rows to *points. EXIT_OK, or EXIT_FAIL after a message. */
static int random_check(const query_opts* o, const table* t, uint32_t* points) {
    bool uniform = t->has[0], circle = t->has[1] && t->has[2] && t->has[3] && t->has[4];
    if (uniform == circle || (uniform && (t->has[1] || t->has[2] || t->has[3] || t->has[4])))
        return cli_error(EXIT_FAIL, "%s: random needs a column n, or the columns cx,cy,cz,r (not both)", o->in);
    uint64_t total = 0;
    for (uint32_t i = 0; i < t->rows; ++i) {
        const double* row = t->v + (size_t)i * MAX_COLS;
        if (uniform && (row[0] < 0 || row[0] != floor(row[0])))
            return cli_error(EXIT_FAIL, "%s: row %u: n is not a whole number >= 0", o->in, i);
        if (circle && row[4] < 0) return cli_error(EXIT_FAIL, "%s: row %u: r is negative", o->in, i);
        total += uniform ? (uint64_t)fmin(row[0], 2.0 * RANDOM_MAX_POINTS) : 1;
        if (total > RANDOM_MAX_POINTS) return cli_error(EXIT_FAIL, "%s: more than %u points asked", o->in, RANDOM_MAX_POINTS);
    }
    *points = (uint32_t)total;
    return EXIT_OK;
}

/* Writes the random points of table t (idx,x,y,z,cell,us), their times to times[], the found
   count to *found. A circle whose centre has no mesh within the extents gives cell PTL_NONE. */
static int random_run(ptl_query* q, const query_opts* o, const table* t, FILE* out, double* times, uint32_t* found) {
    const float* ext = o->extents[0] != 0 || o->extents[1] != 0 || o->extents[2] != 0 ? o->extents : NULL;
    uint64_t state = o->seed;
    uint32_t idx = 0;
    *found = 0;
    for (uint32_t i = 0; i < t->rows; ++i) {
        const double* row = t->v + (size_t)i * MAX_COLS;
        uint32_t n = t->has[0] ? (uint32_t)row[0] : 1;
        for (uint32_t k = 0; k < n; ++k, ++idx) {
            ptl_location l;
            double t0 = cli_now_ms();
            ptl_status st;
            if (t->has[0]) {
                st = ptl_query_random_point(q, &state, &l);
            } else {
                const float c[3] = {(float)row[1], (float)row[2], (float)row[3]};
                st = ptl_query_random_point_in_circle(q, c, ext, (float)row[4], &state, &l);
            }
            times[idx] = (cli_now_ms() - t0) * 1e3;
            if (st < 0 && st != PTL_ERR_NOT_FOUND) return cli_error(EXIT_FAIL, "%s: row %u: %s", o->in, i, ptl_status_message(st));
            if (st == PTL_OK) ++*found;
            else l.cell = PTL_NONE, l.point[0] = l.point[1] = l.point[2] = 0;
            fprintf(out, "%u,%.9g,%.9g,%.9g,%u,%.3f\n", idx, l.point[0], l.point[1], l.point[2], l.cell, times[idx]);
        }
    }
    return EXIT_OK;
}

int cli_query(int argc, char** argv) {
    query_opts o;
    int r = parse(argc, argv, &o);
    if (r) return r;
    static const char* const NAMES[6][7] = {{"px", "py", "pz", NULL},
                                            {"px", "py", "pz", "max_radius", NULL},
                                            {"px", "py", "pz", "radius", NULL},
                                            {"sx", "sy", "sz", "ex", "ey", "ez", NULL},
                                            {"sx", "sy", "sz", "ex", "ey", "ez", NULL},
                                            {"n", "cx", "cy", "cz", "r", NULL}};
    const bool optional[6][6] = {{false}, {false}, {false, false, false, true}, {false}, {false}, {true, true, true, true, true}};
    table t;
    if ((r = read_table(o.in, NAMES[o.kind], optional[o.kind], &t))) return r;
    bool radius_col = o.kind == KIND_CLEAR && t.has[3];
    if (o.kind == KIND_CLEAR && !radius_col && !o.has_radius) {
        free(t.v);
        return cli_error(EXIT_USAGE, "clear needs --radius R or a 'radius' column in %s", o.in);
    }
    for (uint32_t i = 0; i < t.rows && (o.kind == KIND_WALL || radius_col); ++i)
        if (t.v[(size_t)i * MAX_COLS + 3] < 0) {
            free(t.v);
            return cli_error(EXIT_FAIL, "%s: row %u: %s is negative", o.in, i, NAMES[o.kind][3]);
        }
    uint32_t out_rows = t.rows;
    if (o.kind == KIND_RANDOM && (r = random_check(&o, &t, &out_rows))) {
        free(t.v);
        return r;
    }
    ptl_navmesh* nm;
    ptl_error err;
    if (ptl_navmesh_load_file(o.nav, NULL, &nm, &err) < 0) {
        free(t.v);
        return cli_error(EXIT_FAIL, "%s", err.message);
    }
    ptl_query* q;
    ptl_query_desc qd = {.max_nodes = 1u << 20};
    if (ptl_query_create(nm, &qd, &q) < 0) {
        free(t.v);
        ptl_navmesh_destroy(nm);
        return cli_error(EXIT_FAIL, "cannot create a query (out of memory)");
    }
    (void)ptl_query_set_filter(q, &o.filter); /* costs checked by cli_filter_option */
    errno = 0;
    FILE* out = fopen(o.out, "w");
    double* times = malloc(((size_t)out_rows + 1) * sizeof(double));
    int code = EXIT_OK;
    if (!out) {
        int e = errno;
        code = cli_error(EXIT_FAIL, "%s: cannot open for writing%s%s", o.out, e ? ": " : "", e ? strerror(e) : "");
    } else if (!times) {
        code = cli_error(EXIT_FAIL, "out of memory");
    }
    uint32_t found = 0;
    double tsum = 0;
    if (code == EXIT_OK) {
        fprintf(out, o.kind == KIND_WALL      ? "idx,found,dist,x,y,z,nx,nz,us\n"
                     : o.kind == KIND_RAYCAST ? "idx,hit,t,x,y,z,nx,nz,cells,us\n"
                     : o.kind == KIND_MOVE    ? "idx,x,y,z,cell,us\n"
                     : o.kind == KIND_RANDOM  ? "idx,x,y,z,cell,us\n"
                                              : "idx,found,x,y,z,cell,dist,us\n");
        if (o.kind == KIND_RANDOM) {
            code = random_run(q, &o, &t, out, times, &found);
            for (uint32_t i = 0; i < out_rows; ++i) tsum += times[i];
        }
        for (uint32_t i = 0; i < t.rows && code == EXIT_OK && o.kind != KIND_RANDOM; ++i) {
            bool f;
            ptl_status st = run_row(q, &o, t.v + (size_t)i * MAX_COLS, radius_col, i, out, &times[i], &f);
            if (st < 0) code = cli_error(EXIT_FAIL, "%s: row %u: %s", o.in, i, ptl_status_message(st));
            found += f;
            tsum += times[i];
        }
    }
    if (out && code == EXIT_OK) code = cli_file_close(out, o.out);
    else if (out) fclose(out);
    if (code == EXIT_OK) {
        qsort(times, out_rows, sizeof(double), cmp_double);
        double median = out_rows ? times[out_rows / 2] : 0, p99 = out_rows ? times[(size_t)((out_rows - 1) * 0.99)] : 0;
        double mean = out_rows ? tsum / out_rows : 0;
        if (o.json) {
            printf("{\"queries\":%u,\"found\":%u,\"us\":{\"median\":", out_rows, found);
            cli_json_number(stdout, median);
            printf(",\"p99\":");
            cli_json_number(stdout, p99);
            printf(",\"mean\":");
            cli_json_number(stdout, mean);
            printf("}}\n");
        } else {
            printf("%u %s queries: %u found; us median %.2f p99 %.2f mean %.2f\n", out_rows, o.kind_name, found, median, p99, mean);
        }
    }
    free(times);
    free(t.v);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    return code;
}
