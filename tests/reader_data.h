/* Shared by the reader tests (test_readers.c, test_readers_sets.c): locating ../shared/data and
   tests/data/bad, file lists, independent reference computations (passable cells, components,
   lattice corners, polygon areas) and shape helpers. */
#ifndef PTL_TEST_READER_DATA_H
#define PTL_TEST_READER_DATA_H

#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <portolan/bake.h>

/* ---- Locating data ------------------------------------------------------------------------------*/

static inline bool is_dir(const char* p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The project root seen from the working directory: the nearest of ., .., ../.., ../../..
   that holds tests/data/bad (tests may run from the root or from a build folder below it). */
static inline const char* project_root(void) {
    static const char* const cands[] = {".", "..", "../..", "../../.."};
    char p[256];
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; ++i) {
        snprintf(p, sizeof p, "%s/tests/data/bad", cands[i]);
        if (is_dir(p)) return cands[i];
    }
    return NULL;
}

/* The shared data folder: $PTL_DATA, else ../shared/data from the working directory, else
   ../shared/data from the project root; NULL when none exists (the caller skips). */
static inline const char* data_dir(void) {
    static char buf[300];
    const char* env = getenv("PTL_DATA");
    if (env && is_dir(env)) return env;
    if (is_dir("../shared/data")) return "../shared/data";
    const char* root = project_root();
    if (root) {
        snprintf(buf, sizeof buf, "%s/../shared/data", root);
        if (is_dir(buf)) return buf;
    }
    return NULL;
}

#define NEED_DATA(var)                                                                                  \
    const char* var = data_dir();                                                                       \
    if (!var) {                                                                                         \
        fprintf(stderr, "\n*** SKIPPED %s: test data not found: set PTL_DATA or run from the project "  \
                        "root next to ../shared/data ***\n", __func__);                                 \
        cr_skip_test("test data not found (../shared/data or $PTL_DATA)");                              \
    }

/* tests/data/bad (part of the repository), or $PTL_TEST_BAD. */
static inline const char* bad_dir(void) {
    static char buf[300];
    const char* env = getenv("PTL_TEST_BAD");
    if (env && is_dir(env)) return env;
    const char* root = project_root();
    if (!root) return NULL;
    snprintf(buf, sizeof buf, "%s/tests/data/bad", root);
    return buf;
}

typedef struct name_list {
    char** names;
    size_t count;
} name_list;

static inline int cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Files in `dir` whose names end with `ext`, as full paths, sorted. */
static inline name_list list_files(const char* dir, const char* ext) {
    name_list l = {NULL, 0};
    DIR* d = opendir(dir);
    if (!d) return l;
    struct dirent* e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name), k = strlen(ext);
        if (n <= k || strcmp(e->d_name + n - k, ext)) continue;
        l.names = realloc(l.names, (l.count + 1) * sizeof *l.names);
        size_t len = strlen(dir) + n + 2;
        l.names[l.count] = malloc(len);
        snprintf(l.names[l.count], len, "%s/%s", dir, e->d_name);
        l.count++;
    }
    closedir(d);
    if (l.count) qsort(l.names, l.count, sizeof *l.names, cmp_str);
    return l;
}

static inline void free_list(name_list* l) {
    for (size_t i = 0; i < l->count; ++i) free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->count = 0;
}

static inline char* read_text(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    buf[got] = '\0';
    if (len) *len = got;
    return buf;
}

/* All .map files of the grid benchmark folders and of Polyanya's grid maps. */
static inline name_list all_maps(const char* data) {
    name_list all = {NULL, 0};
    char path[1024];
    snprintf(path, sizeof path, "%s/grids", data);
    DIR* d = opendir(path);
    if (d) {
        struct dirent* e;
        name_list subs = {NULL, 0};
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char sub[1400];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            if (!is_dir(sub)) continue;
            subs.names = realloc(subs.names, (subs.count + 1) * sizeof *subs.names);
            subs.names[subs.count++] = strdup(sub);
        }
        closedir(d);
        if (subs.count) qsort(subs.names, subs.count, sizeof *subs.names, cmp_str);
        for (size_t i = 0; i < subs.count; ++i) {
            name_list l = list_files(subs.names[i], ".map");
            for (size_t k = 0; k < l.count; ++k) {
                all.names = realloc(all.names, (all.count + 1) * sizeof *all.names);
                all.names[all.count++] = l.names[k];
            }
            free(l.names);
        }
        free_list(&subs);
    }
    snprintf(path, sizeof path, "%s/polyanya/gridmaps", data);
    name_list l = list_files(path, ".map");
    for (size_t k = 0; k < l.count; ++k) {
        all.names = realloc(all.names, (all.count + 1) * sizeof *all.names);
        all.names[all.count++] = l.names[k];
    }
    free(l.names);
    return all;
}

/* ---- Independent reference computations ---------------------------------------------------------*/

/* Passable cells counted straight from the file text (not through ptl_grid). */
static inline long count_passable_in_file(const char* path) {
    char* t = read_text(path, NULL);
    if (!t) return -1;
    char* p = strstr(t, "\nmap");
    long n = 0;
    if (p) {
        p = strchr(p + 1, '\n');
        for (; p && *p; ++p) n += *p == '.' || *p == 'G' || *p == 'S';
    }
    free(t);
    return n;
}

/* Number of 4-connected components of free cells. */
static inline uint32_t free_components(const ptl_grid* g) {
    size_t n = (size_t)g->width * g->height;
    uint8_t* seen = calloc(n, 1);
    uint32_t* stack = malloc(n * sizeof *stack);
    uint32_t comps = 0;
    for (size_t s = 0; s < n; ++s) {
        if (!g->passable[s] || seen[s]) continue;
        ++comps;
        size_t top = 0;
        stack[top++] = (uint32_t)s;
        seen[s] = 1;
        while (top) {
            uint32_t c = stack[--top];
            uint32_t x = c % g->width, y = c / g->width;
            uint32_t nb[4];
            int k = 0;
            if (x > 0) nb[k++] = c - 1;
            if (x + 1 < g->width) nb[k++] = c + 1;
            if (y > 0) nb[k++] = c - g->width;
            if (y + 1 < g->height) nb[k++] = c + g->width;
            for (int i = 0; i < k; ++i)
                if (g->passable[nb[i]] && !seen[nb[i]]) {
                    seen[nb[i]] = 1;
                    stack[top++] = nb[i];
                }
        }
    }
    free(seen);
    free(stack);
    return comps;
}

static inline bool cell_free(const ptl_grid* g, long x, long y) {
    if (x < 0 || y < 0 || x >= (long)g->width || y >= (long)g->height) return false;
    return g->passable[(size_t)y * g->width + (size_t)x] != 0;
}

/* Corners of free space on the lattice, by the 2x2 neighbourhood of each lattice point: one or
   three free cells is a corner (one vertex), two diagonal free cells is a pinch (two vertices). */
static inline void lattice_corners(const ptl_grid* g, long* corners, long* pinches) {
    *corners = *pinches = 0;
    for (long y = 0; y <= (long)g->height; ++y)
        for (long x = 0; x <= (long)g->width; ++x) {
            bool sw = cell_free(g, x - 1, y - 1), se = cell_free(g, x, y - 1), nw = cell_free(g, x - 1, y),
                 ne = cell_free(g, x, y);
            int n = sw + se + nw + ne;
            if (n == 1 || n == 3) ++*corners;
            else if (n == 2 && sw == ne) ++*pinches;
        }
}

/* Sum of the polygon areas of a Polyanya mesh, by a deliberately separate little parser. */
static inline double mesh_polygon_area(const char* path) {
    char* t = read_text(path, NULL);
    cr_assert(t, "cannot read %s", path);
    char* save = NULL;
    const char* sep = " \t\r\n";
    char* tok = strtok_r(t, sep, &save); /* mesh */
    tok = strtok_r(NULL, sep, &save);    /* version */
    long nv = strtol(strtok_r(NULL, sep, &save), NULL, 10);
    long np = strtol(strtok_r(NULL, sep, &save), NULL, 10);
    double* xy = malloc((size_t)(nv + 1) * 2 * sizeof(double));
    for (long i = 0; i < nv; ++i) {
        xy[2 * i] = strtod(strtok_r(NULL, sep, &save), NULL);
        xy[2 * i + 1] = strtod(strtok_r(NULL, sep, &save), NULL);
        long k = strtol(strtok_r(NULL, sep, &save), NULL, 10);
        for (long j = 0; j < k; ++j) strtok_r(NULL, sep, &save);
    }
    double area = 0;
    for (long p = 0; p < np; ++p) {
        long k = strtol(strtok_r(NULL, sep, &save), NULL, 10);
        long* v = malloc((size_t)k * sizeof(long));
        for (long j = 0; j < k; ++j) v[j] = strtol(strtok_r(NULL, sep, &save), NULL, 10);
        for (long j = 0; j < k; ++j) strtok_r(NULL, sep, &save);
        for (long j = 0; j < k; ++j) {
            long a = v[j], b = v[(j + 1) % k];
            area += 0.5 * (xy[2 * a] * xy[2 * b + 1] - xy[2 * b] * xy[2 * a + 1]);
        }
        free(v);
    }
    (void)tok;
    free(xy);
    free(t);
    return area;
}

/* Lines that are not blank. */
static inline long nonblank_lines(const char* path) {
    char* t = read_text(path, NULL);
    if (!t) return -1;
    long n = 0;
    bool any = false;
    for (char* p = t;; ++p) {
        if (*p == '\n' || *p == '\0') {
            n += any;
            any = false;
            if (!*p) break;
        } else if (*p != ' ' && *p != '\t' && *p != '\r') {
            any = true;
        }
    }
    free(t);
    return n;
}

/* ---- Shape helpers ------------------------------------------------------------------------------*/

static inline uint32_t ring_len(const ptl_shape* s, uint32_t r) { return s->ring_start[r + 1] - s->ring_start[r]; }

/* How many vertices sit at (x, y). */
static inline uint32_t count_at(const ptl_shape* s, double x, double y) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->vert_count; ++i) n += s->xy[2 * i] == x && s->xy[2 * i + 1] == y;
    return n;
}

static inline int cmp_xy(const void* pa, const void* pb) {
    const double *a = pa, *b = pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Largest number of vertices sharing one point. */
static inline uint32_t max_multiplicity(const ptl_shape* s) {
    double* xy = malloc((size_t)s->vert_count * 2 * sizeof(double));
    memcpy(xy, s->xy, (size_t)s->vert_count * 2 * sizeof(double));
    qsort(xy, s->vert_count, 2 * sizeof(double), cmp_xy);
    uint32_t best = 1, run = 1;
    for (uint32_t i = 1; i < s->vert_count; ++i) {
        run = (xy[2 * i] == xy[2 * i - 2] && xy[2 * i + 1] == xy[2 * i - 1]) ? run + 1 : 1;
        if (run > best) best = run;
    }
    free(xy);
    return best;
}

static inline void parse_grid_text(const char* text, ptl_grid* g) {
    ptl_error err;
    ptl_status st = ptl_grid_parse(text, strlen(text), "inline.map", NULL, g, &err);
    cr_assert_eq(st, PTL_OK, "grid parse failed: %s", err.message);
}

static inline void grid_shape(const char* text, ptl_grid* g, ptl_shape* s) {
    ptl_error err;
    parse_grid_text(text, g);
    ptl_status st = ptl_shape_from_grid(g, NULL, s, &err);
    cr_assert_eq(st, PTL_OK, "shape_from_grid failed: %s", err.message);
    st = ptl_shape_validate(s, &err);
    cr_assert_eq(st, PTL_OK, "shape invalid: %s", err.message);
}

static inline void poly_shape(const char* text, ptl_shape* s) {
    ptl_error err;
    ptl_status st = ptl_poly_parse(text, strlen(text), "inline.poly", NULL, s, &err);
    cr_assert_eq(st, PTL_OK, "poly parse failed: %s", err.message);
    st = ptl_shape_validate(s, &err);
    cr_assert_eq(st, PTL_OK, "poly shape invalid: %s", err.message);
}


#endif
