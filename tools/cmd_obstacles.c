/* `portolan obstacles NAV.ptl --cache CACHE.ptc --ops OPS.csv -o OUT.ptl`: obstacles added, moved and
   removed on a baked navmesh through its tile cache (<portolan/tilecache.h>), each op brought up to
   date and timed. */
#include <portolan/tilecache.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The next field of *p up to `sep` (which is cut out), or NULL at the end (strsep, which C11 lacks). */
static char* next_field(char** p, char sep) {
    char* s = *p;
    if (!s) return NULL;
    char* e = strchr(s, sep);
    if (e) *e = 0, *p = e + 1;
    else *p = NULL;
    return s;
}

typedef struct obstacles_opts {
    const char *nav, *cache, *ops, *out, *times;
    bool json;
} obstacles_opts;

static int read_all(const char* path, void** data, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) return cli_error(EXIT_FAIL, "%s: cannot open", path);
    size_t cap = 1 << 16, n = 0;
    char* b = malloc(cap);
    for (size_t r; b && (r = fread(b + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            char* nb = realloc(b, cap *= 2);
            if (!nb) free(b);
            b = nb;
        }
    }
    const bool bad = ferror(f) || !b;
    fclose(f);
    if (bad) {
        free(b);
        return cli_error(EXIT_FAIL, "%s: cannot read", path);
    }
    *data = b, *size = n;
    return EXIT_OK;
}

static int parse_row(char* line, const char* path, unsigned no, cli_obstacle_op* r) {
    char* f[12];
    int n = 0;
    for (char *p = line, *s; n < 12 && (s = next_field(&p, ',')) != NULL;) f[n++] = s;
    if (n < 10) return cli_error(EXIT_FAIL, "%s:%u: %d fields, need op,id,shape,x,y,z,sx,sy,sz,yaw[,points]", path, no, n);
    memset(r, 0, sizeof *r);
    r->op = !strcmp(f[0], "add") ? 0 : !strcmp(f[0], "remove") ? 1 : !strcmp(f[0], "move") ? 2 : -1;
    if (r->op < 0) return cli_error(EXIT_FAIL, "%s:%u: op '%s' is not add, remove or move", path, no, f[0]);
    if (!cli_parse_uint(f[1], &r->id) || r->id >= (1u << 24)) return cli_error(EXIT_FAIL, "%s:%u: id needs 0..2^24-1", path, no);
    if (r->op == 1) return EXIT_OK;
    char* shape = f[2];
    char* at = strchr(shape, '@'); /* shape@AREA: an area volume (no geometry change) */
    if (at) {
        unsigned area;
        if (!cli_parse_uint(at + 1, &area) || area > PTL_AREA_MAX)
            return cli_error(EXIT_FAIL, "%s:%u: '%s': the area after @ needs 0..%u", path, no, shape, PTL_AREA_MAX);
        *at = 0;
        r->d.marks_area = true, r->d.area = (uint8_t)area;
    }
    r->d.kind = !strcmp(shape, "cylinder") ? PTL_OBSTACLE_CYLINDER : !strcmp(shape, "box") ? PTL_OBSTACLE_BOX
              : !strcmp(shape, "prism") ? PTL_OBSTACLE_PRISM : 0;
    if (!r->d.kind) return cli_error(EXIT_FAIL, "%s:%u: shape '%s' is not cylinder, box or prism", path, no, shape);
    double v[7];
    for (int k = 0; k < 7; ++k)
        if (!cli_parse_double(f[3 + k], &v[k])) return cli_error(EXIT_FAIL, "%s:%u: field %d is not a number", path, no, 4 + k);
    for (int k = 0; k < 3; ++k) r->d.pos[k] = (float)v[k], r->d.size[k] = (float)v[3 + k];
    r->d.yaw = (float)v[6];
    if (r->d.kind == PTL_OBSTACLE_PRISM) {
        char* p = n > 10 ? f[10] : NULL;
        unsigned c = 0;
        for (char* s; p && (s = next_field(&p, ';')) != NULL;) {
            float x, z;
            char tail;
            if (c == PTL_OBSTACLE_MAX_VERTS || sscanf(s, "%f %f%c", &x, &z, &tail) != 2)
                return cli_error(EXIT_FAIL, "%s:%u: points need \"x z;x z;...\" (3..%u)", path, no, PTL_OBSTACLE_MAX_VERTS);
            r->xz[2 * c] = x, r->xz[2 * c + 1] = z, ++c;
        }
        r->d.xz = r->xz, r->d.vert_count = c;
    }
    return EXIT_OK;
}

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int cli_read_obstacle_ops(const char* path, cli_obstacle_op_fn fn, void* user) {
    FILE* f = fopen(path, "r");
    if (!f) return cli_error(EXIT_FAIL, "%s: cannot open", path);
    char line[4096];
    unsigned no = 0;
    int code = EXIT_OK;
    while (code == EXIT_OK && fgets(line, sizeof line, f)) {
        ++no;
        line[strcspn(line, "\r\n")] = 0;
        if (no == 1) {
            if (strncmp(line, "op,id,shape,x,y,z,sx,sy,sz,yaw", 30) != 0)
                code = cli_error(EXIT_FAIL, "%s:1: the header must be op,id,shape,x,y,z,sx,sy,sz,yaw[,points]", path);
            continue;
        }
        if (!line[0]) continue;
        cli_obstacle_op r;
        if ((code = parse_row(line, path, no, &r)) == EXIT_OK) code = fn(user, &r, no);
    }
    fclose(f);
    if (code == EXIT_OK && no == 0) code = cli_error(EXIT_FAIL, "%s: empty (no header line)", path);
    return code;
}

/* apply_ops' state: the cache, the --out table, the times so far, the handles by id. */
typedef struct apply_state {
    ptl_tilecache* tc;
    const char* path;
    FILE* times;
    double* us;
    unsigned n, cap, id_cap;
    ptl_obstacle_ref* refs; /* by id; salt 0: none */
} apply_state;

/* One op applied to the cache and brought up to date, timed. */
static int apply_one(void* user, const cli_obstacle_op* r, unsigned no) {
    apply_state* a = user;
    if (r->id >= a->id_cap) {
        unsigned nc = r->id + 1 > 2 * a->id_cap ? r->id + 1 : 2 * a->id_cap;
        ptl_obstacle_ref* nr = realloc(a->refs, (size_t)nc * sizeof *nr);
        if (!nr) return cli_error(EXIT_FAIL, "out of memory");
        memset(nr + a->id_cap, 0, (size_t)(nc - a->id_cap) * sizeof *nr);
        a->refs = nr, a->id_cap = nc;
    }
    if (a->n == a->cap) {
        double* nu = realloc(a->us, (size_t)(a->cap = a->cap * 2 + 64) * sizeof *nu);
        if (!nu) return cli_error(EXIT_FAIL, "out of memory");
        a->us = nu;
    }
    if (r->op == 0 && a->refs[r->id].salt) return cli_error(EXIT_FAIL, "%s:%u: id %u is present already", a->path, no, r->id);
    ptl_tilecache_info before, after;
    ptl_tilecache_get_info(a->tc, &before);
    ptl_error err;
    const double t0 = cli_now_ms();
    ptl_status st;
    if (r->op == 0) st = ptl_tilecache_add(a->tc, &r->d, &a->refs[r->id], &err);
    else if (r->op == 1) st = ptl_tilecache_remove(a->tc, a->refs[r->id], &err);
    else st = ptl_tilecache_move(a->tc, a->refs[r->id], &r->d, &err);
    if (st >= 0 && r->op == 1) a->refs[r->id].salt = 0;
    bool done = false;
    if (st >= 0) st = ptl_tilecache_update(a->tc, 0, &done, &err);
    a->us[a->n] = (cli_now_ms() - t0) * 1e3;
    if (st < 0) return cli_error(EXIT_FAIL, "%s:%u: %s", a->path, no, err.message);
    ptl_tilecache_get_info(a->tc, &after);
    /* this slice rebakes the whole navmesh: every cell goes and comes back */
    if (a->times)
        fprintf(a->times, "%u,%s,%u,%u,%u,%u,%.3f\n", a->n, r->op == 0 ? "add" : r->op == 1 ? "remove" : "move", r->id,
                after.last_tiles, before.cells, after.cells, a->us[a->n]);
    ++a->n;
    return EXIT_OK;
}

/* Applies every row of ops to tc, timing each (us[i]); `times` (may be NULL) gets the --out table. */
static int apply_ops(ptl_tilecache* tc, const obstacles_opts* o, FILE* times, double** us_out, unsigned* count) {
    apply_state a = {tc, o->ops, times, NULL, 0, 0, 0, NULL};
    int code = cli_read_obstacle_ops(o->ops, apply_one, &a);
    free(a.refs);
    *us_out = a.us, *count = a.n;
    return code;
}

static int obstacles_run(const obstacles_opts* o) {
    void *nav = NULL, *cache = NULL;
    size_t nav_size = 0, cache_size = 0;
    int code = read_all(o->nav, &nav, &nav_size);
    if (code == EXIT_OK) code = read_all(o->cache, &cache, &cache_size);
    ptl_tilecache* tc = NULL;
    ptl_error err;
    if (code == EXIT_OK && ptl_tilecache_create(cache, cache_size, NULL, &tc, &err) < 0)
        code = cli_error_about(EXIT_FAIL, o->cache, err.message);
    if (code == EXIT_OK) {
        const void* b;
        size_t bs;
        ptl_tilecache_blob(tc, &b, &bs);
        if (bs != nav_size || memcmp(b, nav, bs) != 0)
            code = cli_error(EXIT_FAIL, "%s: not the navmesh of %s (bake both in one run: bake --cache)", o->nav, o->cache);
    }
    FILE* times = NULL;
    if (code == EXIT_OK && o->times && !(times = fopen(o->times, "w"))) code = cli_error(EXIT_FAIL, "%s: cannot write", o->times);
    if (times) fprintf(times, "idx,op,id,tiles,cells_removed,cells_added,us\n");
    double* us = NULL;
    unsigned n = 0;
    if (code == EXIT_OK) code = apply_ops(tc, o, times, &us, &n);
    if (times) {
        int c = cli_file_close(times, o->times);
        if (code == EXIT_OK) code = c;
    }
    if (code == EXIT_OK) {
        const void* b;
        size_t bs;
        ptl_tilecache_blob(tc, &b, &bs);
        code = cli_write_file(o->out, b, bs);
    }
    if (code == EXIT_OK) {
        ptl_tilecache_info in;
        ptl_tilecache_get_info(tc, &in);
        qsort(us, n, sizeof *us, cmp_double);
        const double med = n ? us[n / 2] : 0, p99 = n ? us[(size_t)((n - 1) * 0.99)] : 0, mx = n ? us[n - 1] : 0;
        if (o->json) {
            printf("{\"ops\":%u,\"us\":{\"median\":", n);
            cli_json_number(stdout, med);
            printf(",\"p99\":");
            cli_json_number(stdout, p99);
            printf(",\"max\":");
            cli_json_number(stdout, mx);
            printf("},\"cells\":%u,\"walkable_area\":", in.cells);
            cli_json_number(stdout, in.walkable_area);
            printf(",\"obstacles\":%u,\"cache_bytes\":%llu}\n", in.obstacles, (unsigned long long)in.cache_bytes);
        } else {
            printf("%s: %u ops, %u obstacles left, %u cells, %.2f m2 walkable; us per op: median %.0f, p99 %.0f, max %.0f\n",
                   o->out, n, in.obstacles, in.cells, in.walkable_area, med, p99, mx);
        }
    }
    free(us);
    ptl_tilecache_destroy(tc);
    free(nav);
    free(cache);
    return code;
}

int cli_obstacles(int argc, char** argv) {
    obstacles_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            o.json = true;
        } else if (!strcmp(a, "--cache") || !strcmp(a, "--ops") || !strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (!v) return cli_error(EXIT_USAGE, "%s needs a file", a);
            if (!strcmp(a, "--cache")) o.cache = v;
            else if (!strcmp(a, "--ops")) o.ops = v;
            else if (!strcmp(a, "-o")) o.out = v;
            else o.times = v;
            ++i;
        } else if (a[0] == '-' && a[1]) {
            return cli_error(EXIT_USAGE, "obstacles: unknown option %s", a);
        } else if (!o.nav) {
            o.nav = a;
        } else {
            return cli_error(EXIT_USAGE, "obstacles: one NAV.ptl (got %s too)", a);
        }
    }
    if (!o.nav) return cli_error(EXIT_USAGE, "obstacles: missing NAV.ptl");
    if (!o.cache) return cli_error(EXIT_USAGE, "missing --cache CACHE.ptc");
    if (!o.ops) return cli_error(EXIT_USAGE, "missing --ops OPS.csv");
    if (!o.out) return cli_error(EXIT_USAGE, "missing -o OUT.ptl");
    return obstacles_run(&o);
}
