/* Tests of the query-set readers (Moving AI scenarios, pairs CSV), of malformed inputs (every
   file of tests/data/bad fails naming itself and the problem; a missing file is an I/O error),
   of ptl_shape_validate and ptl_shape_get_stats, and of the readers' allocator discipline.
   The data locators and reference computations are in reader_data.h. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <portolan/bake.h>

#include "reader_data.h"

/* ---- Scenarios and pairs ------------------------------------------------------------------------*/

Test(scen, scen_all_scenario_files_load_with_one_item_per_row) {
    NEED_DATA(data);
    name_list files = {NULL, 0};
    name_list maps = all_maps(data);
    for (size_t i = 0; i < maps.count; ++i) {
        char path[1100];
        snprintf(path, sizeof path, "%s.scen", maps.names[i]);
        FILE* f = fopen(path, "rb");
        if (!f) continue;
        fclose(f);
        files.names = realloc(files.names, (files.count + 1) * sizeof *files.names);
        files.names[files.count++] = strdup(path);
    }
    free_list(&maps);
    static const char* const subs[] = {"polyanya/scenarios", "polyanya/scenarios/test"};
    for (int k = 0; k < 2; ++k) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", data, subs[k]);
        name_list l = list_files(dir, ".scen");
        for (size_t i = 0; i < l.count; ++i) {
            files.names = realloc(files.names, (files.count + 1) * sizeof *files.names);
            files.names[files.count++] = l.names[i];
        }
        free(l.names);
    }
    cr_assert_gt(files.count, 25);
    for (size_t i = 0; i < files.count; ++i) {
        ptl_query_set qs;
        ptl_error err;
        cr_assert_eq(ptl_scen_load(files.names[i], NULL, &qs, &err), PTL_OK, "%s", err.message);
        long rows = nonblank_lines(files.names[i]) - 1;
        cr_assert_eq((long)qs.count, rows, "%s: %u items, %ld rows", files.names[i], qs.count, rows);
        cr_assert_gt(qs.map_width, 0);
        cr_assert_gt(qs.map_height, 0);
        for (uint32_t q = 0; q < qs.count; ++q) {
            cr_assert_eq(qs.items[q].start[1], 0.0f);
            cr_assert_eq(qs.items[q].goal[1], 0.0f);
        }
        ptl_query_set_free(&qs);
    }
    free_list(&files);
}

Test(scen, scen_row_maps_lattice_points_to_world_xz) {
    const char* text = "version 1.0\n\n3 maps/dao/arena.map 49 49 1 11 4 12 3.41421\n\n";
    ptl_query_set qs;
    ptl_error err;
    cr_assert_eq(ptl_scen_parse(text, strlen(text), "a.scen", NULL, &qs, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(qs.count, 1);
    cr_assert_eq(qs.map_width, 49);
    cr_assert_eq(qs.map_height, 49);
    const ptl_query_item* it = &qs.items[0];
    cr_assert(it->start[0] == 1 && it->start[1] == 0 && it->start[2] == 11);
    cr_assert(it->goal[0] == 4 && it->goal[1] == 0 && it->goal[2] == 12);
    cr_assert_eq(it->ref_length, 3.41421);
    cr_assert_eq(it->bucket, 3);
    ptl_query_set_free(&qs);

    /* No rows: valid and empty. */
    cr_assert_eq(ptl_scen_parse("version 1\n", 10, "e.scen", NULL, &qs, &err), PTL_OK);
    cr_assert_eq(qs.count, 0);
    cr_assert_eq(qs.map_width, 0);
    ptl_query_set_free(&qs);
}

Test(scen, scen_rows_on_meshes_are_not_bounded_by_width_and_height) {
    /* As in Polyanya's own test scenarios: coordinates on a mesh, not cells of a grid. */
    const char* text = "version 1\n0\tmeshes/x.mesh\t7\t2\t-0.0\t1.0\t-3.0\t4.0\t6\n";
    ptl_query_set qs;
    ptl_error err;
    cr_assert_eq(ptl_scen_parse(text, strlen(text), "m.scen", NULL, &qs, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(qs.items[0].goal[0], -3.0f);
    ptl_query_set_free(&qs);
    const char* grid = "version 1\n0\tmaps/x.map\t7\t2\t0\t1\t3\t4\t6\n";
    cr_assert_eq(ptl_scen_parse(grid, strlen(grid), "g.scen", NULL, &qs, &err), PTL_ERR_PARSE);
    cr_assert(strstr(err.message, "g.scen:2: goal (3, 4) is outside the 7 x 2 map"), "%s", err.message);
}

Test(scen, pairs_csv_reads_named_columns_in_any_order) {
    const char* text = "note, ez ,ey,ex,sz,sy,sx,extra\nfirst,6,5,4,3,2,1,x\n\nsecond,-1,-2,-3,0.5,0.25,1e2,\n";
    ptl_query_set qs;
    ptl_error err;
    cr_assert_eq(ptl_pairs_parse(text, strlen(text), "p.csv", NULL, &qs, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(qs.count, 2);
    cr_assert_eq(qs.map_width, 0);
    const ptl_query_item* a = &qs.items[0];
    cr_assert(a->start[0] == 1 && a->start[1] == 2 && a->start[2] == 3);
    cr_assert(a->goal[0] == 4 && a->goal[1] == 5 && a->goal[2] == 6);
    cr_assert_eq(a->ref_length, -1.0);
    cr_assert_eq(a->bucket, 0);
    cr_assert_eq(qs.items[1].start[0], 100.0f);
    ptl_query_set_free(&qs);
}

/* ---- Malformed inputs ---------------------------------------------------------------------------*/

Test(bad, bad_inputs_fail_with_their_file_name_and_the_expected_message) {
    const char* dir = bad_dir();
    cr_assert(dir, "tests/data/bad not found (run from the project root or set PTL_TEST_BAD)");
    char readme[1024];
    snprintf(readme, sizeof readme, "%s/README.md", dir);
    char* text = read_text(readme, NULL);
    cr_assert(text, "cannot read %s", readme);
    int checked = 0;
    char* save = NULL;
    for (char* line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char* tab = strchr(line, '\t');
        if (!tab || line[0] == '#') continue;
        *tab = '\0';
        const char* file = line;
        const char* expect = tab + 1;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, file);
        size_t n = strlen(file);
        ptl_error err;
        memset(&err, 0, sizeof err);
        ptl_status st;
        if (n > 5 && !strcmp(file + n - 5, ".scen")) {
            ptl_query_set qs;
            st = ptl_scen_load(path, NULL, &qs, &err);
            if (st >= 0) ptl_query_set_free(&qs);
        } else if (n > 4 && !strcmp(file + n - 4, ".csv")) {
            ptl_query_set qs;
            st = ptl_pairs_load(path, NULL, &qs, &err);
            if (st >= 0) ptl_query_set_free(&qs);
        } else if (n > 4 && !strcmp(file + n - 4, ".obj")) {
            ptl_trimesh m;
            st = ptl_obj_load(path, NULL, &m, &err);
            if (st >= 0) ptl_trimesh_free(&m);
        } else {
            ptl_shape s;
            st = ptl_shape_load(path, NULL, &s, &err);
            if (st >= 0) ptl_shape_free(&s);
        }
        cr_expect_lt(st, 0, "%s: loaded without error", file);
        cr_expect_eq(err.status, st, "%s: err.status must be the returned status", file);
        cr_expect(strstr(err.message, file) != NULL, "%s: message does not name the file: %s", file, err.message);
        cr_expect(strstr(err.message, expect) != NULL, "%s: message '%s' lacks '%s'", file, err.message, expect);
        ++checked;
    }
    free(text);
    cr_assert_geq(checked, 24, "README.md lists only %d files", checked);
    /* Every file in the folder is listed. */
    DIR* d = opendir(dir);
    struct dirent* e;
    char* listed = read_text(readme, NULL);
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) continue;
        char key[300];
        snprintf(key, sizeof key, "\n%s\t", e->d_name);
        cr_expect(strstr(listed, key) != NULL, "%s is not listed in README.md", e->d_name);
    }
    closedir(d);
    free(listed);
}

Test(bad, missing_file_is_an_io_error_naming_the_path) {
    ptl_shape s;
    ptl_error err;
    cr_assert_eq(ptl_shape_load("no/such/file.map", NULL, &s, &err), PTL_ERR_IO);
    cr_assert(strstr(err.message, "no/such/file.map"), "%s", err.message);
    ptl_query_set qs;
    cr_assert_eq(ptl_scen_load("no/such/file.scen", NULL, &qs, &err), PTL_ERR_IO);
}

/* ---- Validation and statistics ------------------------------------------------------------------*/

static ptl_shape make_shape(const double* xy, uint32_t n, const uint32_t* starts, uint32_t rings) {
    ptl_shape s;
    memset(&s, 0, sizeof s);
    s.vert_count = n;
    s.xy = (double*)xy;
    s.ring_count = rings;
    s.ring_start = (uint32_t*)starts;
    return s;
}

static void expect_invalid(const double* xy, uint32_t n, const uint32_t* starts, uint32_t rings, const char* what) {
    ptl_shape s = make_shape(xy, n, starts, rings);
    ptl_error err;
    cr_assert_eq(ptl_shape_validate(&s, &err), PTL_ERR_BAD_INPUT, "expected '%s' to be rejected", what);
    cr_assert(strstr(err.message, what), "message '%s' lacks '%s'", err.message, what);
}

Test(validate, validate_rejects_each_broken_invariant_with_ring_and_vertex) {
    /* A clockwise outer ring. */
    static const double cw[] = {0, 0, 0, 1, 1, 1, 1, 0};
    static const uint32_t s4[] = {0, 4};
    expect_invalid(cw, 4, s4, 1, "ring 0 is oriented the wrong way");
    /* A bowtie: its edges cross. */
    static const double bow[] = {0, 0, 2, 2, 2, 0, 0, 2};
    expect_invalid(bow, 4, s4, 1, "crosses");
    /* A collinear vertex. */
    static const double col[] = {0, 0, 1, 0, 2, 0, 2, 2};
    expect_invalid(col, 4, s4, 1, "ring 0 vertex 1 (1, 0) is collinear");
    /* A repeated vertex. */
    static const double rep[] = {0, 0, 1, 0, 1, 0, 1, 1};
    expect_invalid(rep, 4, s4, 1, "repeats the next vertex");
    /* Two overlapping squares. */
    static const double two[] = {0, 0, 2, 0, 2, 2, 0, 2, 1, 1, 3, 1, 3, 3, 1, 3};
    static const uint32_t s44[] = {0, 4, 8};
    expect_invalid(two, 8, s44, 2, "crosses");
    /* A hole outside any outer ring. */
    static const double hole[] = {0, 0, 1, 0, 1, 1, 0, 1, 5, 5, 5, 6, 6, 6, 6, 5};
    expect_invalid(hole, 8, s44, 2, "ring 1 is oriented the wrong way");
    /* A ring of two vertices. */
    static const double tiny[] = {0, 0, 1, 0};
    static const uint32_t s2[] = {0, 2};
    expect_invalid(tiny, 2, s2, 1, "fewer than 3 vertices");
    /* A triangle inside a square, sharing its corner (2, 2): the free wedges overlap there. */
    static const double inside[] = {0, 0, 2, 0, 2, 2, 0, 2, 2, 2, 1, 1.5, 1.5, 1};
    static const uint32_t s43[] = {0, 4, 7};
    expect_invalid(inside, 7, s43, 2, "cross or overlap");
    /* Two squares touching at a corner: valid, the point carries one vertex of each. */
    static const double touch[] = {0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 2, 1, 2, 2, 1, 2};
    ptl_shape ok = make_shape(touch, 8, s44, 2);
    ptl_error err;
    cr_assert_eq(ptl_shape_validate(&ok, &err), PTL_OK, "%s", err.message);
    /* A triangle whose apex touches the middle of a square's side from outside: valid. */
    static const double tee[] = {0, 0, 2, 0, 2, 2, 0, 2, 0, -1, 2, -1, 1, 0};
    ok = make_shape(tee, 7, s43, 2);
    cr_assert_eq(ptl_shape_validate(&ok, &err), PTL_OK, "%s", err.message);
    /* The same apex poking into the square: crosses. */
    static const double poke[] = {0, 0, 2, 0, 2, 2, 0, 2, 0, -1, 2, -1, 1, 1};
    expect_invalid(poke, 7, s43, 2, "crosses");
}

Test(validate, stats_count_rings_holes_notches_and_area) {
    /* An L shape (one notch) with a square hole. */
    static const double xy[] = {0, 0, 4, 0, 4, 2, 2, 2, 2, 4, 0, 4, 0.5, 0.5, 0.5, 1.5, 1.5, 1.5, 1.5, 0.5};
    static const uint32_t st[] = {0, 6, 10};
    ptl_shape s = make_shape(xy, 10, st, 2);
    ptl_error err;
    cr_assert_eq(ptl_shape_validate(&s, &err), PTL_OK, "%s", err.message);
    ptl_shape_stats stats;
    ptl_shape_get_stats(&s, &stats);
    cr_assert_eq(stats.outer_rings, 1);
    cr_assert_eq(stats.holes, 1);
    cr_assert_eq(stats.notches, 1 + 4); /* the L's inner corner and every corner of the hole */
    cr_assert_eq(stats.area, 12.0 - 1.0);
}

Test(validate, shape_load_dispatches_on_extension) {
    ptl_shape s;
    ptl_error err;
    cr_assert_eq(ptl_shape_load("level.obj", NULL, &s, &err), PTL_ERR_PARSE);
    cr_assert(strstr(err.message, "unknown extension '.obj'"), "%s", err.message);
    cr_assert_eq(ptl_shape_load("noext", NULL, &s, &err), PTL_ERR_PARSE);
    cr_assert(strstr(err.message, "no file extension"), "%s", err.message);
}

/* ---- Allocator discipline (SQLite style: fail the N-th allocation, for every N) ----------------*/

typedef struct tracker {
    long live;      /* bytes outstanding */
    long calls;     /* successful alloc/realloc calls */
    long fail_at;   /* the call that fails; -1: never */
    long mismatches;/* frees or reallocs whose size did not match the allocation */
} tracker;

#define HDR 16

static void* t_alloc(size_t size, void* user) {
    tracker* t = user;
    if (t->fail_at >= 0 && t->calls >= t->fail_at) return NULL;
    unsigned char* p = malloc(size + HDR);
    if (!p) return NULL;
    t->calls++;
    memcpy(p, &size, sizeof size);
    t->live += (long)size;
    return p + HDR;
}

static void* t_realloc(void* ptr, size_t old, size_t size, void* user) {
    tracker* t = user;
    if (t->fail_at >= 0 && t->calls >= t->fail_at) return NULL;
    unsigned char* p = (unsigned char*)ptr - HDR;
    size_t stored;
    memcpy(&stored, p, sizeof stored);
    if (stored != old) t->mismatches++;
    unsigned char* q = realloc(p, size + HDR);
    if (!q) return NULL;
    t->calls++;
    memcpy(q, &size, sizeof size);
    t->live += (long)size - (long)stored;
    return q + HDR;
}

static void t_free(void* ptr, size_t size, void* user) {
    tracker* t = user;
    unsigned char* p = (unsigned char*)ptr - HDR;
    size_t stored;
    memcpy(&stored, p, sizeof stored);
    if (stored != size) t->mismatches++;
    t->live -= (long)stored;
    free(p);
}

typedef enum { R_GRID_SHAPE, R_POLY, R_MESH, R_SCEN, R_PAIRS } reader_kind;

/* Runs one reader with the tracker; frees the result on success. */
static ptl_status run_reader(reader_kind k, const char* text, tracker* t) {
    ptl_allocator a = {t_alloc, t_realloc, t_free, t};
    ptl_input_desc in = {.alloc = &a};
    ptl_error err;
    ptl_status st;
    size_t n = strlen(text);
    if (k == R_GRID_SHAPE) {
        ptl_grid g;
        st = ptl_grid_parse(text, n, "t.map", &in, &g, &err);
        if (st < 0) return st;
        ptl_shape s;
        st = ptl_shape_from_grid(&g, &in, &s, &err);
        if (st >= 0) {
            ptl_status v = ptl_shape_validate(&s, &err);
            if (v < 0) st = v;
            cr_assert_eq(s.alloc.user, t, "the shape must keep the caller's allocator");
            ptl_shape_free(&s);
        }
        ptl_grid_free(&g);
        return st;
    }
    if (k == R_SCEN || k == R_PAIRS) {
        ptl_query_set qs;
        st = k == R_SCEN ? ptl_scen_parse(text, n, "t.scen", &in, &qs, &err) : ptl_pairs_parse(text, n, "t.csv", &in, &qs, &err);
        if (st >= 0) ptl_query_set_free(&qs);
        return st;
    }
    ptl_shape s;
    st = k == R_POLY ? ptl_poly_parse(text, n, "t.poly", &in, &s, &err) : ptl_mesh2d_parse(text, n, "t.mesh", &in, &s, &err);
    if (st >= 0) {
        ptl_status v = ptl_shape_validate(&s, &err);
        if (v < 0) st = v;
        ptl_shape_free(&s);
    }
    return st;
}

Test(alloc, readers_survive_every_failed_allocation_and_free_exactly_what_they_took) {
    static const struct {
        reader_kind k;
        const char* text;
    } cases[] = {
        {R_GRID_SHAPE, "type octile\nheight 3\nwidth 4\nmap\n.@..\n..@.\n@...\n"},
        {R_POLY, "poly\n1\n3\n4 0 0 2 0 2 2 0 2\n4 1 1 3 1 3 3 1 3\n3 5 5 6 5 5 6\n"},
        {R_MESH, "mesh\n2\n4 2\n0 0 2 0 -1\n1 0 3 0 1 -1\n1 1 2 1 -1\n0 1 3 -1 1 0\n3 0 1 2 1 -1 -1\n3 0 2 3 -1 0 -1\n"},
        {R_SCEN, "version 1\n0\tm.map\t9\t9\t1\t2\t3\t4\t5\n1\tm.map\t9\t9\t1\t2\t3\t4\t5\n"},
        {R_PAIRS, "sx,sy,sz,ex,ey,ez\n1,2,3,4,5,6\n7,8,9,10,11,12\n"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        tracker t = {0, 0, -1, 0};
        cr_assert_eq(run_reader(cases[c].k, cases[c].text, &t), PTL_OK, "case %zu", c);
        cr_assert_eq(t.live, 0, "case %zu leaks %ld bytes", c, t.live);
        cr_assert_eq(t.mismatches, 0, "case %zu frees with wrong sizes", c);
        long total = t.calls;
        cr_assert_gt(total, 0, "case %zu allocates nothing through the caller's allocator", c);
        for (long n = 0; n < total; ++n) {
            tracker f = {0, 0, n, 0};
            ptl_status st = run_reader(cases[c].k, cases[c].text, &f);
            cr_assert_eq(st, PTL_ERR_NO_MEMORY, "case %zu, failing allocation %ld: status %d", c, n, st);
            cr_assert_eq(f.live, 0, "case %zu, failing allocation %ld: leaks %ld bytes", c, n, f.live);
            cr_assert_eq(f.mismatches, 0, "case %zu, failing allocation %ld: size mismatch", c, n);
        }
    }
}
