/* `portolan bake`, `portolan decompose` and `portolan info`. */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <portolan/gpu.h>

#include "areas_csv.h"
#include <portolan/tilecache.h>

#include "cli.h"
#include "jobs.h"

static const char* ext_of(const char* path) {
    const char* dot = strrchr(path, '.');
    const char* slash = strrchr(path, '/');
    return (dot && (!slash || dot > slash)) ? dot : "";
}

/* Loads any 2D input; a .obj gets a clear "not in this version" answer. */
static int load_shape(const char* input, ptl_shape* s) {
    ptl_error err;
    if (!strcmp(ext_of(input), ".obj"))
        return cli_error(EXIT_FAIL, "%s: decompose works on 2D inputs (.map, .poly, .mesh); bake takes .obj", input);
    if (ptl_shape_load(input, NULL, s, &err) < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    return EXIT_OK;
}

typedef struct bake_opts {
    const char* input;
    const char* out;
    const char* areas; /* --areas AREAS.csv */
    bool json, gpu, quiet, progress; /* progress: from the start, even with --json; quiet: never */
    ptl_bake_desc desc;
    unsigned threads, tile_size;
    bool part;
    unsigned tiles[4]; /* --tiles X0:X1,Z0:Z1 as x0, z0, x1, z1 */
    float seeds[3 * 64];
    const char* links; /* --links LINKS.csv */
    const char* cache; /* --cache CACHE.ptc */
} bake_opts;

/* Options shared by bake and decompose; returns -1 when `argv[*i]` is not one of them. */
static int parse_common(int argc, char** argv, int* i, bake_opts* o) {
    const char* a = argv[*i];
    const char* v = *i + 1 < argc ? argv[*i + 1] : NULL;
    double d;
    if (!strcmp(a, "--json")) return o->json = true, EXIT_OK;
    if (!strcmp(a, "--gpu")) return o->gpu = true, EXIT_OK;
    if (!strcmp(a, "--relax")) {
        if (!cli_parse_double(v, &d) || d < 0 || d > 1e30) return cli_error(EXIT_USAGE, "--relax needs a number in 0..1e30");
        o->desc.relax = d;
        ++*i;
        return EXIT_OK;
    }
    if (!strcmp(a, "--pair-slack")) {
        if (!cli_parse_double(v, &d) || d < 1 || d > 16) return cli_error(EXIT_USAGE, "--pair-slack needs a number in 1..16");
        o->desc.pair_slack = d;
        ++*i;
        return EXIT_OK;
    }
    return -1;
}

static int parse_bake_args(int argc, char** argv, bake_opts* o, bool is_bake) {
    memset(o, 0, sizeof *o);
    o->threads = 1;
    for (int i = 0; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = parse_common(argc, argv, &i, o);
        if (r > 0) return r;
        if (r == 0) continue;
        double d;
        float* fslot = NULL;
        double lo = 0, hi = 0; /* fslot's range; lo_open: lo itself is refused */
        bool lo_open = false;
        if (is_bake && !strcmp(a, "-o")) {
            if (!v) return cli_error(EXIT_USAGE, "-o needs a file name");
            o->out = v;
            ++i;
        } else if (is_bake && !strcmp(a, "--cell-size")) fslot = &o->desc.cell_size, lo_open = true, hi = 1e4;
        else if (is_bake && !strcmp(a, "--cell-height")) fslot = &o->desc.cell_height, lo_open = true, hi = 1e4;
        /* The desc's 0 means "the default" (2 m, 45 degrees): an agent of no height or a slope of 0
           degrees is not something the desc can express, so an explicit 0 is refused here rather
           than turned into the default. */
        else if (is_bake && !strcmp(a, "--agent-height")) fslot = &o->desc.agent_height, lo_open = true, hi = 1e4;
        else if (is_bake && !strcmp(a, "--agent-radius")) fslot = &o->desc.agent_radius, hi = 1e4;
        else if (is_bake && !strcmp(a, "--max-climb")) fslot = &o->desc.max_climb, hi = 1e4;
        else if (is_bake && !strcmp(a, "--max-slope")) fslot = &o->desc.max_slope, lo_open = true, hi = 90;
        else if (is_bake && !strcmp(a, "--quiet")) o->quiet = true;
        else if (is_bake && !strcmp(a, "--progress")) o->progress = true;
        else if (is_bake && !strcmp(a, "--landmarks")) {
            unsigned u;
            if (!cli_parse_uint(v, &u) || u > 64) return cli_error(EXIT_USAGE, "--landmarks needs an integer in 0..64");
            o->desc.landmarks = u, o->desc.no_landmarks = u == 0; /* 0 on the command line: none */
            ++i;
        } else if (is_bake && !strcmp(a, "--hubs")) {
            o->desc.hubs = true;
        } else if (!strcmp(a, "--lids")) {
            o->desc.lids = true;
        } else if (is_bake && !strcmp(a, "--tile-size")) {
            unsigned u;
            if (!cli_parse_uint(v, &u) || (u != 0 && (u < PTL_TILE_MIN || u > PTL_TILE_MAX)))
                return cli_error(EXIT_USAGE, "--tile-size needs cells in %u..%u (0: one tile)", PTL_TILE_MIN, PTL_TILE_MAX);
            o->tile_size = u;
            ++i;
        } else if (is_bake && !strcmp(a, "--tiles")) {
            unsigned x0, x1, z0, z1;
            char tail;
            if (!v || sscanf(v, "%u:%u,%u:%u%c", &x0, &x1, &z0, &z1, &tail) != 4 || x0 > x1 || z0 > z1)
                return cli_error(EXIT_USAGE, "--tiles needs X0:X1,Z0:Z1 with X0 <= X1 and Z0 <= Z1");
            o->part = true;
            o->tiles[0] = x0, o->tiles[1] = z0, o->tiles[2] = x1, o->tiles[3] = z1;
            ++i;
        } else if (is_bake && !strcmp(a, "--threads")) {
            unsigned u;
            if (!cli_parse_uint(v, &u) || u == 0 || u > 256) return cli_error(EXIT_USAGE, "--threads needs 1..256");
            o->threads = u;
            ++i;
        } else if (is_bake && !strcmp(a, "--seed")) {
            if (o->desc.seed_count == 64) return cli_error(EXIT_USAGE, "at most 64 --seed");
            if (!cli_parse_vec3(v, &o->seeds[3 * o->desc.seed_count])) return cli_error(EXIT_USAGE, "--seed needs X,Y,Z");
            o->desc.seed_count++;
            o->desc.seeds = o->seeds;
            ++i;
        } else if (is_bake && !strcmp(a, "--cache")) {
            if (!v) return cli_error(EXIT_USAGE, "--cache needs a file (CACHE.ptc)");
            o->cache = v;
            ++i;
        } else if (is_bake && !strcmp(a, "--areas")) {
            if (!v) return cli_error(EXIT_USAGE, "--areas needs a file (name,area)");
            o->areas = v;
            ++i;
        } else if (is_bake && !strcmp(a, "--max-gap")) {
            if (!cli_parse_double(v, &d) || d < 0 || d > 1000) return cli_error(EXIT_USAGE, "--max-gap needs metres in 0..1000");
            o->desc.max_gap = (float)d, o->desc.no_links = d == 0; /* 0 on the command line: no links */
            ++i;
        } else if (is_bake && !strcmp(a, "--max-error")) {
            if (!cli_parse_double(v, &d) || d < 0 || d > 100) return cli_error(EXIT_USAGE, "--max-error needs cells in 0..100");
            o->desc.max_error = (float)d, o->desc.no_simplify = d == 0; /* 0 on the command line: none */
            ++i;
        } else if (is_bake && !strcmp(a, "--links")) {
            if (!v) return cli_error(EXIT_USAGE, "--links needs LINKS.csv");
            o->links = v;
            ++i;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_error(EXIT_USAGE, "unknown option '%s'", a);
        } else if (!o->input) {
            o->input = a;
        } else {
            return cli_error(EXIT_USAGE, "unexpected argument '%s'", a);
        }
        if (fslot) {
            if (!cli_parse_double(v, &d) || d < lo || (lo_open && d == lo) || d > hi)
                return lo_open ? cli_error(EXIT_USAGE, "%s needs a number > %g and <= %g", a, lo, hi)
                               : cli_error(EXIT_USAGE, "%s needs a number in %g..%g", a, lo, hi);
            *fslot = (float)d;
            /* A climb of 0 is meaningful (no step up at all) but the desc reads 0 as its default
               (0.9 m). Climbs are whole cell heights rounded down (vx_params.c), so the smallest
               positive float is the desc's way to say "no climb" for any cell height. */
            if (fslot == &o->desc.max_climb && d == 0) *fslot = FLT_TRUE_MIN;
            ++i;
        }
    }
    if (!o->input) return cli_error(EXIT_USAGE, "missing INPUT");
    if (is_bake && !o->out) return cli_error(EXIT_USAGE, "missing -o OUT.ptl");
    return EXIT_OK;
}

/* --gpu: the decomposition's closest-element search on a headless OpenGL 4.3 context (<portolan/gpu.h>);
   no usable GL is a failure naming what is missing, never the CPU instead. */
static int gpu_open(const bake_opts* o, ptl_gpu** gpu) {
    *gpu = NULL;
    if (!o->gpu) return EXIT_OK;
    ptl_error err;
    if (ptl_gpu_create(NULL, gpu, &err) < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    return EXIT_OK;
}

/* --json: ,"gpu":{"renderer":..,"version":..,"ms":T} (T: upload, dispatch and readback). */
static void gpu_json(const ptl_gpu* gpu) {
    if (!gpu) return;
    ptl_gpu_stats gs;
    ptl_gpu_get_stats(gpu, &gs);
    printf(",\"gpu\":{\"renderer\":");
    cli_json_string(stdout, ptl_gpu_renderer(gpu));
    printf(",\"version\":");
    cli_json_string(stdout, ptl_gpu_version(gpu));
    printf(",\"ms\":");
    cli_json_number(stdout, gs.ms_upload + gs.ms_dispatch + gs.ms_readback);
    printf(",\"upload\":");
    cli_json_number(stdout, gs.ms_upload);
    printf(",\"dispatch\":");
    cli_json_number(stdout, gs.ms_dispatch);
    printf(",\"readback\":");
    cli_json_number(stdout, gs.ms_readback);
    printf(",\"queries\":%llu}", (unsigned long long)gs.queries);
}

/* Progress on stderr for a bake that runs past a second (ptl_bake_desc.progress): one line
   rewritten in place on a terminal, a line per stage elsewhere (logs, CI). */
typedef struct cli_progress {
    double t0, last_ms, after_ms;
    bool tty, shown;
    char stage[32];
    int pct;
} cli_progress;

static void show_progress(void* user, const char* stage, float fraction) {
    cli_progress* p = user;
    double now = cli_now_ms();
    bool done = !strcmp(stage, "done"), same = !strcmp(stage, p->stage);
    int pct = (int)(fraction * 100.0f);
    if (!p->shown && (done || now - p->t0 < p->after_ms)) return;
    if (p->tty) {
        if (!done && p->shown && same && (pct == p->pct || now - p->last_ms < 100)) return;
        fprintf(stderr, "\rportolan: bake: %-10s %3d%%%s", stage, pct, done ? "\n" : "");
    } else {
        if (same && p->shown) return;
        fprintf(stderr, "portolan: bake: %s %d%%\n", stage, pct);
    }
    fflush(stderr);
    p->shown = true, p->pct = pct, p->last_ms = now;
    snprintf(p->stage, sizeof p->stage, "%s", stage);
}

/* Ends a progress line left open on a terminal, so that an error message starts a line of its own. */
static void end_progress(const cli_progress* p) {
    if (p->tty && p->shown && strcmp(p->stage, "done") != 0) fputc('\n', stderr);
}

/* bake --tiles: one part of a bake spread over machines (ptl_bake_trimesh_part). */
static int bake_part(bake_opts* o, ptl_thread_jobs* jobs, const ptl_gpu* gpu, double t0) {
    ptl_error err;
    ptl_trimesh mesh;
    if (ptl_obj_load(o->input, NULL, &mesh, &err) < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    o->desc.tile_size = o->tile_size;
    if (o->threads > 1) o->desc.jobs = &jobs->sys;
    void* part = NULL;
    size_t size = 0;
    uint32_t world[2] = {0, 0};
    ptl_status st = ptl_bake_trimesh_part(&mesh, &o->desc, o->tiles, &part, &size, world, &err);
    ptl_trimesh_free(&mesh);
    if (st < 0) return cli_error_about(err.status == PTL_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL, o->input, err.message);
    int wr = cli_write_file(o->out, part, size);
    ptl_blob_free(part, size, NULL);
    if (wr != EXIT_OK) return wr;
    unsigned x1 = o->tiles[2] < world[0] ? o->tiles[2] : world[0] - 1, z1 = o->tiles[3] < world[1] ? o->tiles[3] : world[1] - 1;
    unsigned n = o->tiles[0] <= x1 && o->tiles[1] <= z1 ? (x1 - o->tiles[0] + 1) * (z1 - o->tiles[1] + 1) : 0;
    double t = cli_now_ms() - t0;
    if (o->json) {
        printf("{\"input\":");
        cli_json_string(stdout, o->input);
        printf(",\"part\":true,\"tiles\":%u,\"tiles_x\":%u,\"tiles_z\":%u,\"bytes\":%zu,\"threads\":%u,\"ms\":{\"total\":",
               n, world[0], world[1], size, jobs->threads);
        cli_json_number(stdout, t);
        printf("}");
        gpu_json(gpu);
        printf("}\n");
    } else {
        printf("%s -> %s: part with %u of %u x %u tiles, %zu bytes, %.2f ms\n", o->input, o->out, n, world[0], world[1],
               size, t);
    }
    return EXIT_OK;
}

/* info --json: "areas":{"ID":cells,..}, the walkable cells of each area id used (links left out). */
static void print_areas(const ptl_navmesh* nm, uint32_t cell_count) {
    uint32_t per[64] = {0};
    for (uint32_t c = 0; c < cell_count; ++c) {
        ptl_cell_view v;
        if (ptl_navmesh_get_cell(nm, c, &v) == PTL_OK && v.link == PTL_NONE && v.area < 64) ++per[v.area];
    }
    printf(",\"areas\":{");
    for (uint32_t a = 0, first = 1; a < 64; ++a)
        if (per[a]) printf("%s\"%u\":%u", first ? "" : ",", a, per[a]), first = 0;
    printf("}");
}

/* bake --cache: the tile cache of the same bake (<portolan/tilecache.h>), written to o->cache;
   EXIT_OK, or the exit code after the message. */
static int write_cache(const ptl_trimesh* m, const bake_opts* o) {
    void* cache = NULL;
    size_t size = 0;
    ptl_bake_desc d = o->desc;
    d.progress = NULL;
    ptl_error err;
    if (ptl_tilecache_bake(m, &d, &cache, &size, &err) < 0) return cli_error_about(EXIT_FAIL, o->input, err.message);
    int r = cli_write_file(o->cache, cache, size);
    ptl_blob_free(cache, size, NULL);
    return r;
}

/* cli_bake after its options: the bake, the file, the report. */
static int bake_run(bake_opts o, const ptl_gpu* gpu, double t0) {
    int r;
    double t1;
    void* blob = NULL;
    size_t size = 0;
    ptl_bake_stats st;
    ptl_error err;
    bool is3d = !strcmp(ext_of(o.input), ".obj");
    ptl_thread_jobs jobs;
    ptl_thread_jobs_init(&jobs, is3d || o.desc.hubs ? o.threads : 1);
    cli_progress prog = {t0, 0, o.progress ? 0 : 1000, isatty(fileno(stderr)) != 0, false, "", -1};
    if (!o.quiet && (!o.json || o.progress)) o.desc.progress = show_progress, o.desc.progress_user = &prog;
    if (o.part && !is3d) return cli_error(EXIT_USAGE, "--tiles applies to 3D (.obj) input");
    if (o.part && !o.tile_size) return cli_error(EXIT_USAGE, "--tiles needs --tile-size");
    if (o.part && o.links) return cli_error(EXIT_USAGE, "--links applies to whole bakes, not to --tiles parts");
    if (o.part) return bake_part(&o, &jobs, gpu, t0);
    if (o.cache && (!is3d || !o.tile_size)) return cli_error(EXIT_USAGE, "--cache needs 3D (.obj) input and --tile-size");
    ptl_offmesh_desc* links = NULL;
    if (o.links && (r = cli_read_links(o.links, &links, &o.desc.offmesh_count))) return r;
    o.desc.offmesh = links;
    if (is3d) {
        o.desc.tile_size = o.tile_size;
        if (o.threads > 1) o.desc.jobs = &jobs.sys;
        ptl_trimesh mesh;
        if (ptl_obj_load(o.input, NULL, &mesh, &err) < 0) return cli_error(EXIT_FAIL, "%s", err.message);
        t1 = cli_now_ms();
        ptl_status bst = ptl_bake_trimesh(&mesh, &o.desc, &blob, &size, &st, &err);
        if (bst >= 0 && o.cache && (r = write_cache(&mesh, &o)) != EXIT_OK) {
            ptl_trimesh_free(&mesh);
            free(links);
            ptl_blob_free(blob, size, NULL);
            return r;
        }
        ptl_trimesh_free(&mesh);
        free(links);
        if (bst < 0) end_progress(&prog);
        if (bst < 0) return cli_error_about(err.status == PTL_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL, o.input, err.message);
    } else {
        if (o.desc.seed_count) return cli_error(EXIT_USAGE, "--seed applies to 3D (.obj) input");
        if (o.tile_size) return cli_error(EXIT_USAGE, "--tile-size applies to 3D (.obj) input");
        if (o.threads > 1 && !o.desc.hubs)
            fprintf(stderr, "portolan: note: 2D bakes run on one thread but for --hubs (--threads %u ignored)\n", o.threads);
        if (o.threads > 1) o.desc.jobs = &jobs.sys;
        ptl_shape shape;
        if ((r = load_shape(o.input, &shape))) return r;
        t1 = cli_now_ms();
        ptl_status bst = ptl_bake_shape(&shape, &o.desc, &blob, &size, &st, &err);
        free(links);
        if (bst < 0) {
            ptl_shape_free(&shape);
            end_progress(&prog);
            return cli_error_about(err.status == PTL_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL, o.input, err.message);
        }
        ptl_shape_free(&shape);
    }
    double t2 = cli_now_ms();
    r = cli_write_file(o.out, blob, size);
    ptl_blob_free(blob, size, NULL);
    if (r != EXIT_OK) return r;
    double t3 = cli_now_ms();
    if (o.json) {
        printf("{\"input\":");
        cli_json_string(stdout, o.input);
        printf(",\"triangles\":%u,\"tiles\":%u,\"layers\":%u,\"cells\":%u,\"portals\":%u,\"links\":%u,\"vertices\":%u,"
               "\"notches\":%u,\"real_notches\":%u,\"holes\":%u,\"landmarks\":%u,\"hubs\":%u,\"hub_edges\":%u,"
               "\"hub_entries\":%llu,\"hub_bytes\":%llu,\"walkable_area\":",
               st.triangles, st.tiles, st.layers, st.cells, st.portals, st.links, st.vertices, st.notches,
               st.real_notches, st.holes, st.landmarks, st.hubs, st.hub_edges, (unsigned long long)st.hub_entries,
               (unsigned long long)st.hub_bytes);
        cli_json_number(stdout, st.walkable_area);
        if (is3d) printf(",\"spans\":%u,\"walkable_spans\":%u", st.spans, st.walkable_spans);
        printf(",\"bytes\":%zu,\"threads\":%u,\"ms\":{\"total\":", size, jobs.threads);
        cli_json_number(stdout, t3 - t0);
        printf(",\"read\":");
        cli_json_number(stdout, t1 - t0);
        if (is3d) {
            const char* names[] = {"voxelize", "filter", "layers", "contours"};
            const double vals[] = {st.ms_voxelize, st.ms_filter, st.ms_layers, st.ms_contours};
            for (int k = 0; k < 4; ++k) {
                printf(",\"%s\":", names[k]);
                cli_json_number(stdout, vals[k]);
            }
        }
        printf(",\"decompose\":");
        cli_json_number(stdout, st.ms_decompose);
        printf(",\"%s\":", is3d ? "merge" : "build");
        cli_json_number(stdout, is3d ? st.ms_merge : st.ms_build);
        printf(",\"landmarks\":");
        cli_json_number(stdout, st.ms_landmarks);
        printf(",\"hubs\":");
        cli_json_number(stdout, st.ms_hubs);
        printf(",\"write\":");
        cli_json_number(stdout, t3 - t2);
        printf("}");
        gpu_json(gpu);
        printf("}\n");
    } else {
        char links[32] = "";
        if (st.links) snprintf(links, sizeof links, " (and %u links)", st.links);
        printf("%s -> %s: %u cells%s, %u portals, %u vertices, %u notches, %u layers, walkable area %.6g, %zu bytes, %.2f ms\n",
               o.input, o.out, st.cells, links, st.portals, st.vertices, st.notches, st.layers, st.walkable_area, size,
               t3 - t0);
    }
    return EXIT_OK;
}

int cli_bake(int argc, char** argv) {
    bake_opts o;
    int r = parse_bake_args(argc, argv, &o, true);
    if (r) return r;
    double t0 = cli_now_ms();
    if (o.areas && strcmp(ext_of(o.input), ".obj") != 0) return cli_error(EXIT_USAGE, "--areas applies to 3D (.obj) input");
    cli_areas areas = {0};
    if (o.areas && (r = cli_areas_load(o.areas, &areas))) return r;
    o.desc.area_names = areas.names, o.desc.area_name_count = areas.count;
    ptl_gpu* gpu = NULL;
    if (!(r = gpu_open(&o, &gpu))) {
        o.desc.closest_backend = ptl_gpu_backend(gpu);
        r = bake_run(o, gpu, t0);
    }
    ptl_gpu_destroy(gpu);
    cli_areas_free(&areas);
    return r;
}

int cli_decompose(int argc, char** argv) {
    bake_opts o;
    int r = parse_bake_args(argc, argv, &o, false);
    if (r) return r;
    ptl_shape shape;
    if ((r = load_shape(o.input, &shape))) return r;
    ptl_gpu* gpu = NULL;
    if ((r = gpu_open(&o, &gpu))) {
        ptl_shape_free(&shape);
        return r;
    }
    ptl_decompose_desc dd = {.relax = o.desc.relax, .pair_slack = o.desc.pair_slack, .lids = o.desc.lids,
                             .backend = ptl_gpu_backend(gpu)};
    ptl_decomposition dc;
    ptl_error err;
    double t0 = cli_now_ms();
    ptl_status s = ptl_decompose(&shape, &dd, &dc, &err);
    double t1 = cli_now_ms();
    ptl_shape_free(&shape);
    if (s < 0) {
        ptl_gpu_destroy(gpu);
        return cli_error_about(EXIT_FAIL, o.input, err.message);
    }
    if (o.json) {
        printf("{\"vertices\":%u,\"notches\":%u,\"cells\":%u,\"portals\":%u,\"real_notches\":%u,\"holes\":%u,"
               "\"outer_rings\":%u,\"split_points\":%u,\"ms\":",
               dc.vert_count, dc.notches, dc.cell_count, dc.portal_count, dc.real_notches, dc.holes, dc.outer_rings,
               dc.split_points);
        cli_json_number(stdout, t1 - t0);
        gpu_json(gpu);
        printf("}\n");
    } else {
        printf("%s: %u vertices (%u added on edges), %u notches (%u kept), %u holes, %u pieces -> %u cells, %u portals, %.2f ms\n",
               o.input, dc.vert_count, dc.split_points, dc.notches, dc.real_notches, dc.holes, dc.outer_rings,
               dc.cell_count, dc.portal_count, t1 - t0);
    }
    ptl_decomposition_free(&dc);
    ptl_gpu_destroy(gpu);
    return EXIT_OK;
}

int cli_info(int argc, char** argv) {
    const char* path = NULL;
    bool json = false, validate = false;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--validate")) validate = true;
        else if (argv[i][0] == '-' && argv[i][1]) return cli_error(EXIT_USAGE, "unknown option '%s'", argv[i]);
        else if (!path) path = argv[i];
        else return cli_error(EXIT_USAGE, "unexpected argument '%s'", argv[i]);
    }
    if (!path) return cli_error(EXIT_USAGE, "missing NAV.ptl");
    ptl_navmesh* nm;
    ptl_error err;
    if (ptl_navmesh_load_file(path, NULL, &nm, &err) < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    int code = EXIT_OK;
    bool valid = true;
    if (validate && ptl_navmesh_validate(nm, &err) < 0) {
        valid = false;
        code = cli_error_about(EXIT_FAIL, path, err.message);
    }
    if (json) {
        printf("{\"file\":");
        cli_json_string(stdout, path);
        printf(",\"version\":%u,\"cells\":%u,\"portals\":%u,\"vertices\":%u,\"links\":%u,\"tiles\":%u,\"tile_size\":%u,"
               "\"layers\":%u,\"walkable_area\":",
               in.version, in.cell_count, in.portal_count, in.vert_count, in.link_count, in.tile_count, in.tile_size,
               in.layer_count);
        cli_json_number(stdout, in.walkable_area);
        printf(",\"relax\":");
        cli_json_number(stdout, in.relax);
        printf(",\"bytes\":%llu,\"checksum\":\"%016llx\",\"lattice_points\":%s",
               (unsigned long long)in.blob_size, (unsigned long long)in.checksum,
               (in.flags & PTL_NAVMESH_LATTICE_POINTS) ? "true" : "false");
        printf(",\"bmin\":[%g,%g,%g],\"bmax\":[%g,%g,%g]", in.bmin[0], in.bmin[1], in.bmin[2], in.bmax[0], in.bmax[1],
               in.bmax[2]);
        printf(",\"landmarks\":%u,\"lids\":%u,\"hubs\":%u,\"hub_entries\":%llu,\"hub_bytes\":%llu", in.landmark_count,
               in.lid_count, in.hub_count, (unsigned long long)in.hub_entries, (unsigned long long)in.hub_bytes);
        print_areas(nm, in.cell_count);
        printf(",\"offmesh\":%u", ptl_navmesh_offmesh_count(nm));
        if (validate) printf(",\"valid\":%s", valid ? "true" : "false");
        printf("}\n");
    } else {
        char hubs[64] = "";
        if (in.hub_count) snprintf(hubs, sizeof hubs, " (hub labels: %u corners, %llu bytes)", in.hub_count,
                                   (unsigned long long)in.hub_bytes);
        printf("%s: version %u, %u cells, %u portals, %u vertices, walkable area %.6g, %llu bytes%s%s\n", path, in.version,
               in.cell_count, in.portal_count, in.vert_count, in.walkable_area, (unsigned long long)in.blob_size, hubs,
               validate ? (valid ? ", valid" : ", INVALID") : "");
    }
    ptl_navmesh_destroy(nm);
    return code;
}
