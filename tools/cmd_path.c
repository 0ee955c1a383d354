/* `portolan path`: one query (--from/--to) or a batch (--pairs CSV, --scen Moving AI scenarios). */
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/query_internal.h"
#include "cli.h"

typedef struct path_opts {
    const char* nav;
    const char* pairs;
    const char* scen;
    const char* out;
    bool json, has_from, has_to, no_hubs, surface;
    float from[3], to[3], extents[3];
    double radius;
    ptl_path_mode mode;
    ptl_query_filter filter; /* --cost AREA=C, --exclude AREA */
    uint8_t** flags; /* a single path's off-mesh flags buffer (grown with the points), or NULL */
} path_opts;

static int parse(int argc, char** argv, path_opts* o) {
    memset(o, 0, sizeof *o);
    o->filter = ptl_query_filter_defaults();
    for (int i = 0; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            o->json = true;
            continue;
        }
        if (!strcmp(a, "--no-hubs")) {
            o->no_hubs = true;
            continue;
        }
        if (!strcmp(a, "--surface")) {
            o->surface = true;
            continue;
        }
        if (a[0] != '-' || !a[1]) {
            if (o->nav) return cli_error(EXIT_USAGE, "unexpected argument '%s'", a);
            o->nav = a;
            continue;
        }
        static const char* const VALUED[] = {"--from", "--to", "--extents", "--radius", "--mode",
                                             "--pairs", "--scen", "--out", "--cost", "--exclude", NULL};
        if (!cli_is_one_of(a, VALUED)) return cli_error(EXIT_USAGE, "unknown option '%s'", a);
        if (!v) return cli_error(EXIT_USAGE, "%s needs a value", a);
        ++i;
        if (!strcmp(a, "--from")) {
            if (!cli_parse_vec3(v, o->from)) return cli_error(EXIT_USAGE, "--from needs X,Y,Z (finite numbers)");
            o->has_from = true;
        } else if (!strcmp(a, "--to")) {
            if (!cli_parse_vec3(v, o->to)) return cli_error(EXIT_USAGE, "--to needs X,Y,Z (finite numbers)");
            o->has_to = true;
        } else if (!strcmp(a, "--extents")) {
            if (!cli_parse_extents(v, o->extents)) return cli_error(EXIT_USAGE, "--extents needs X,Y,Z >= 0");
        } else if (!strcmp(a, "--radius")) {
            if (!cli_parse_double(v, &o->radius) || o->radius < 0 || o->radius > 1e9)
                return cli_error(EXIT_USAGE, "--radius needs a number in 0..1e9");
        } else if (!strcmp(a, "--mode")) {
            if (!strcmp(v, "exact")) o->mode = PTL_PATH_EXACT;
            else if (!strcmp(v, "corridor")) o->mode = PTL_PATH_CORRIDOR;
            else return cli_error(EXIT_USAGE, "--mode is exact or corridor");
        } else if (cli_filter_option(a, v, &o->filter) < 0) {
            return EXIT_USAGE;
        } else if (!strcmp(a, "--pairs")) {
            o->pairs = v;
        } else if (!strcmp(a, "--scen")) {
            o->scen = v;
        } else if (!strcmp(a, "--out")) {
            o->out = v;
        }
    }
    if (!o->nav) return cli_error(EXIT_USAGE, "missing NAV.ptl");
    int batch = (o->pairs != NULL) + (o->scen != NULL);
    if (batch > 1) return cli_error(EXIT_USAGE, "give --pairs or --scen, not both");
    if (batch == 0 && !(o->has_from && o->has_to)) return cli_error(EXIT_USAGE, "give --from and --to, or --pairs or --scen");
    if (batch == 1 && (o->has_from || o->has_to)) return cli_error(EXIT_USAGE, "--from/--to do not mix with --pairs/--scen");
    if (batch == 0 && o->out) return cli_error(EXIT_USAGE, "--out goes with --pairs or --scen");
    return EXIT_OK;
}

/* Runs one query into a result whose point buffer (and cell buffer, when cbuf is not NULL) grows as
   needed. */
static ptl_status run_query(ptl_query* q, const path_opts* o, const float s[3], const float g[3], ptl_path_result* res,
                            float** buf, uint32_t* cap, uint32_t** cbuf, uint32_t* ccap, double* us) {
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, s, sizeof req.start);
    memcpy(req.goal, g, sizeof req.goal);
    memcpy(req.extents, o->extents, sizeof req.extents);
    req.mode = o->mode;
    req.radius = (float)o->radius;
    req.follow_surface = o->surface;
    for (;;) {
        memset(res, 0, sizeof *res);
        res->points = *buf;
        res->point_capacity = *cap;
        if (cbuf) res->cells = *cbuf, res->cell_capacity = *ccap;
        if (o->flags) res->flags = *o->flags; /* off-mesh link flags, *cap of them */
        double t0 = cli_now_ms();
        ptl_status st = ptl_query_find_path(q, &req, res);
        *us = (cli_now_ms() - t0) * 1e3;
        /* a partial path (the way to the point nearest an unreachable goal) may not fit either */
        bool short_of_room = res->point_count < res->point_total || (cbuf && res->cell_count > *ccap);
        if (st != PTL_TRUNCATED && !(st == PTL_PARTIAL && short_of_room)) return st;
        if (cbuf && res->cell_count > *ccap) {
            uint32_t* nc = realloc(*cbuf, (size_t)res->cell_count * 2 * sizeof(uint32_t));
            if (!nc) return PTL_ERR_NO_MEMORY;
            *cbuf = nc, *ccap = res->cell_count * 2;
        }
        if (res->point_count >= res->point_total) continue;
        uint32_t n = res->point_total * 2;
        float* nb = realloc(*buf, (size_t)n * 3 * sizeof(float));
        if (!nb) return PTL_ERR_NO_MEMORY;
        *buf = nb;
        if (o->flags) {
            uint8_t* nf = realloc(*o->flags, n);
            if (!nf) return PTL_ERR_NO_MEMORY;
            *o->flags = nf;
        }
        *cap = n;
    }
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static int single(ptl_query* q, const path_opts* o) {
    float* buf = NULL;
    uint32_t cap = 0, ccap = 256;
    uint32_t* cells = o->json ? malloc(ccap * sizeof(uint32_t)) : NULL;
    ptl_path_result res;
    double us;
    if (o->json && !cells) return cli_error(EXIT_FAIL, "out of memory");
    uint8_t* flags = NULL;
    path_opts with_flags = *o;
    with_flags.flags = &flags;
    ptl_status st = run_query(q, &with_flags, o->from, o->to, &res, &buf, &cap, o->json ? &cells : NULL, &ccap, &us);
    if (st < 0 && st != PTL_ERR_NOT_FOUND) {
        free(buf), free(cells), free(flags);
        return cli_error(EXIT_FAIL, "path query failed: %s", ptl_status_message(st));
    }
    if (o->json) {
        printf("{\"found\":%s,\"complete\":%s,\"length\":", res.found ? "true" : "false", res.complete ? "true" : "false");
        cli_json_number(stdout, res.length);
        printf(",\"radius\":");
        cli_json_number(stdout, (float)o->radius);
        printf(",\"points\":[");
        for (uint32_t i = 0; i < res.point_count; ++i) {
            printf(i ? ",[" : "[");
            for (int k = 0; k < 3; ++k) {
                if (k) putchar(',');
                cli_json_number(stdout, res.points[3 * i + k]);
            }
            putchar(']');
        }
        printf("],\"cells\":[");
        for (uint32_t i = 0; i < res.cell_count && i < res.cell_capacity; ++i) printf(i ? ",%u" : "%u", cells[i]);
        printf("],\"offmesh\":["); /* the points where an off-mesh link starts (the next is its end) */
        for (uint32_t i = 0, n = 0; flags && i < res.point_count; ++i)
            if (flags[i] & PTL_PATH_POINT_OFFMESH) printf(n++ ? ",%u" : "%u", i);
        printf("]}\n");
    } else if (!res.found && res.point_count == 0) {
        printf("no path (%s)\n", st == PTL_ERR_NOT_FOUND ? "start or goal is not on the mesh" : "goal unreachable");
    } else {
        if (!res.found) printf("goal unreachable; to the reachable point nearest it: ");
        printf("length %.9g, %u points:", res.length, res.point_count);
        for (uint32_t i = 0; i < res.point_count; ++i)
            printf(" (%g, %g, %g)", res.points[3 * i], res.points[3 * i + 1], res.points[3 * i + 2]);
        printf("\n");
    }
    free(buf), free(cells), free(flags);
    return EXIT_OK;
}

static int batch(ptl_query* q, const path_opts* o) {
    ptl_query_set qs;
    ptl_error err;
    ptl_status ls = o->scen ? ptl_scen_load(o->scen, NULL, &qs, &err) : ptl_pairs_load(o->pairs, NULL, &qs, &err);
    if (ls < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    FILE* out = NULL;
    if (o->out) {
        errno = 0;
        out = fopen(o->out, "w");
        if (!out) {
            int e = errno;
            ptl_query_set_free(&qs);
            return cli_error(EXIT_FAIL, "%s: cannot open for writing%s%s", o->out, e ? ": " : "", e ? strerror(e) : "");
        }
        fprintf(out, "idx,found,complete,length,points,us\n");
    }
    double* times = malloc(((size_t)qs.count + 1) * sizeof(double));
    float* buf = NULL;
    uint32_t cap = 0, found = 0, complete = 0;
    double sum = 0, tsum = 0;
    int code = EXIT_OK;
    if (!times) code = cli_error(EXIT_FAIL, "out of memory");
    for (uint32_t i = 0; i < qs.count && code == EXIT_OK; ++i) {
        ptl_path_result res;
        double us;
        ptl_status st = run_query(q, o, qs.items[i].start, qs.items[i].goal, &res, &buf, &cap, NULL, NULL, &us);
        if (st < 0 && st != PTL_ERR_NOT_FOUND) {
            code = cli_error(EXIT_FAIL, "query %u failed: %s", i, ptl_status_message(st));
            break;
        }
        times[i] = us;
        tsum += us;
        found += res.found;
        complete += res.complete;
        if (res.found) sum += res.length;
        if (out) {
            /* points: "x y z;x y z;..." so the CSV needs no quoting */
            fprintf(out, "%u,%d,%d,%.17g,", i, res.found, res.complete, res.length);
            for (uint32_t k = 0; k < res.point_count; ++k)
                fprintf(out, "%s%.9g %.9g %.9g", k ? ";" : "", res.points[3 * k], res.points[3 * k + 1],
                        res.points[3 * k + 2]);
            fprintf(out, ",%.3f\n", us);
        }
    }
    /* the table is closed, and its write checked, before a summary says the batch succeeded */
    if (out && code == EXIT_OK) code = cli_file_close(out, o->out);
    else if (out) fclose(out);
    if (code == EXIT_OK) {
        qsort(times, qs.count, sizeof(double), cmp_double);
        double median = qs.count ? times[qs.count / 2] : 0;
        double p99 = qs.count ? times[(size_t)((qs.count - 1) * 0.99)] : 0;
        double mean = qs.count ? tsum / qs.count : 0;
        if (o->json) {
            printf("{\"queries\":%u,\"found\":%u,\"complete\":%u,\"mean_length\":", qs.count, found, complete);
            cli_json_number(stdout, found ? sum / found : 0);
            printf(",\"sum_length\":");
            cli_json_number(stdout, sum);
            printf(",\"us\":{\"median\":");
            cli_json_number(stdout, median);
            printf(",\"p99\":");
            cli_json_number(stdout, p99);
            printf(",\"mean\":");
            cli_json_number(stdout, mean);
            printf("}}\n");
        } else {
            printf("%u queries: %u found, %u complete, mean length %.6g; us median %.2f p99 %.2f mean %.2f\n", qs.count,
                   found, complete, found ? sum / found : 0, median, p99, mean);
        }
    }
    free(times);
    free(buf);
    ptl_query_set_free(&qs);
    return code;
}

int cli_path(int argc, char** argv) {
    path_opts o;
    int r = parse(argc, argv, &o);
    if (r) return r;
    ptl_navmesh* nm;
    ptl_error err;
    if (ptl_navmesh_load_file(o.nav, NULL, &nm, &err) < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    ptl_query* q;
    ptl_query_desc qd = {.max_nodes = 1u << 20};
    /* --no-hubs is for comparisons, so it uses the runtime's internal switch, not a public field. */
    ptl_query_switches sw = {.ignore_hubs = o.no_hubs};
    if (ptl_query_create_with_switches(nm, &qd, &sw, &q) < 0) {
        ptl_navmesh_destroy(nm);
        return cli_error(EXIT_FAIL, "cannot create a query (out of memory)");
    }
    (void)ptl_query_set_filter(q, &o.filter); /* costs checked by cli_filter_option */
    r = (o.pairs || o.scen) ? batch(q, &o) : single(q, &o);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    return r;
}
