/* Query sets: Moving AI scenarios (.scen) and pairs CSV files.

   .scen (Sturtevant 2012): "version 1" (or "version 1.0", as the Baldur's Gate and WarCraft III
   sets write it), then rows "bucket map width height sx sy gx gy length" separated by tabs or
   spaces; the map name has no spaces. A point (x, y) is the lattice point (x, y), world (x, 0, y).

   Polyanya's hand-made mesh scenarios (polyanya/scenarios/test/) use the same layout for
   points on a .mesh: their coordinates are fractional, may be negative, and their width and height
   do not bound the mesh (bad-collinear2-rot90.scen has x = -3 with width 7). So the "point inside
   width x height" check applies to rows that name a grid map, not to rows whose map ends in .mesh
   or .poly; finiteness is checked everywhere.

   Pairs CSV: a header naming at least sx,sy,sz,ex,ey,ez in any order among other columns, then one
   query per row with the same number of fields. Blank lines are skipped in both formats. */
#include <portolan/bake.h>

#include <float.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "text_scan.h"

typedef PTL_ARRAY(ptl_query_item) item_array;

/* Hands the items to `out` in an exact-size array (ptl_query_set_free releases count items). */
static ptl_status finish_items(const ptl_allocator* a, item_array* items, ptl_query_set* out, const char* name,
                               ptl_error* err) {
    if (items->cap != items->count && items->data) {
        ptl_query_item* shrunk = ptl_mem_realloc(a, items->data, (size_t)items->cap * sizeof *items->data,
                                                 (size_t)items->count * sizeof *items->data);
        if (!shrunk) {
            PTL_ARRAY_FREE(a, *items);
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
        }
        items->data = shrunk;
    }
    out->items = items->data;
    out->count = items->count;
    return ptl_error_ok(err);
}

static bool ends_with(const char* s, size_t n, const char* suffix) {
    size_t k = strlen(suffix);
    if (n < k) return false;
    for (size_t i = 0; i < k; ++i) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return false;
    }
    return true;
}

/* A finite number that also fits a float (start and goal are stored as floats). */
static ptl_status parse_coord(const char* what, const char* s, size_t n, const char* name, uint32_t line,
                              double* out, ptl_error* err) {
    char show[32];
    ptl_num_result r = ptl_text_parse_double(s, n, out);
    if (r == PTL_NUM_NONFINITE)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: %s '%s' is not a finite number", name, line, what,
                             ptl_text_show(show, s, n));
    if (r != PTL_NUM_OK)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: %s '%s' is not a number", name, line, what,
                             ptl_text_show(show, s, n));
    if (fabs(*out) > FLT_MAX)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: %s '%s' is out of range", name, line, what,
                             ptl_text_show(show, s, n));
    return PTL_OK;
}

static ptl_status parse_uint(const char* what, const char* s, size_t n, const char* name, uint32_t line,
                             bool positive, uint32_t* out, ptl_error* err) {
    char show[32];
    int64_t v = 0;
    ptl_num_result r = ptl_text_parse_int(s, n, &v);
    if (r == PTL_NUM_SYNTAX)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: %s '%s' is not an integer", name, line, what,
                             ptl_text_show(show, s, n));
    if (r != PTL_NUM_OK || v < 0 || v > (int64_t)UINT32_MAX || (positive && v == 0))
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: %s %s is out of range", name, line, what,
                             ptl_text_show(show, s, n));
    *out = (uint32_t)v;
    return PTL_OK;
}

static ptl_status parse_scen_row(const char* s, size_t n, const char* name, uint32_t line, ptl_query_item* it,
                                 uint32_t* w, uint32_t* h, ptl_error* err) {
    const char* f[10];
    size_t fn[10];
    uint32_t k = ptl_text_split_blank(s, n, f, fn, 10);
    if (k != 9)
        return ptl_error_set(err, PTL_ERR_PARSE,
                             "%s:%u: row has %u columns, expected 9 (bucket map width height sx sy gx gy length)",
                             name, line, k);
    ptl_status st;
    if ((st = parse_uint("bucket", f[0], fn[0], name, line, false, &it->bucket, err)) < 0) return st;
    if ((st = parse_uint("width", f[2], fn[2], name, line, true, w, err)) < 0) return st;
    if ((st = parse_uint("height", f[3], fn[3], name, line, true, h, err)) < 0) return st;
    static const char* const what[4] = {"sx", "sy", "gx", "gy"};
    double p[4], len;
    for (int i = 0; i < 4; ++i)
        if ((st = parse_coord(what[i], f[4 + i], fn[4 + i], name, line, &p[i], err)) < 0) return st;
    if ((st = parse_coord("length", f[8], fn[8], name, line, &len, err)) < 0) return st;
    bool mesh_points = ends_with(f[1], fn[1], ".mesh") || ends_with(f[1], fn[1], ".poly");
    if (!mesh_points) {
        for (int i = 0; i < 4; i += 2) {
            if (!(p[i] >= 0 && p[i] < *w && p[i + 1] >= 0 && p[i + 1] < *h))
                return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: %s (%g, %g) is outside the %u x %u map", name, line,
                                     i == 0 ? "start" : "goal", p[i], p[i + 1], *w, *h);
        }
    }
    it->start[0] = (float)p[0];
    it->start[1] = 0;
    it->start[2] = (float)p[1];
    it->goal[0] = (float)p[2];
    it->goal[1] = 0;
    it->goal[2] = (float)p[3];
    it->ref_length = len;
    return PTL_OK;
}

ptl_status ptl_scen_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                          ptl_query_set* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_scen_parse: out is NULL");
    memset(out, 0, sizeof *out);
    out->alloc = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    if (!text && len) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_scen_parse: text is NULL");
    if (!name) name = "<scen>";
    const ptl_allocator* a = &out->alloc;
    ptl_text_lines lines = {text, text + len, 0};
    const char* s;
    size_t n;
    char show[32];
    if (!ptl_text_next_line(&lines, &s, &n) || ptl_text_blank(s, n))
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:1: expected 'version 1'", name);
    {
        const char* f[3];
        size_t fn[3];
        uint32_t k = ptl_text_split_blank(s, n, f, fn, 3);
        bool ok = k == 2 && fn[0] == 7 && !memcmp(f[0], "version", 7) &&
                  ((fn[1] == 1 && f[1][0] == '1') || (fn[1] == 3 && !memcmp(f[1], "1.0", 3)));
        if (!ok)
            return ptl_error_set(err, PTL_ERR_PARSE, "%s:1: unsupported version line '%s' (expected 'version 1')",
                                 name, ptl_text_show(show, s, n));
    }
    item_array items = {0};
    ptl_status st = PTL_OK;
    while (ptl_text_next_line(&lines, &s, &n)) {
        if (ptl_text_blank(s, n)) continue;
        ptl_query_item it;
        memset(&it, 0, sizeof it);
        uint32_t w = 0, h = 0;
        if ((st = parse_scen_row(s, n, name, lines.line, &it, &w, &h, err)) < 0) goto fail;
        if (items.count == 0) {
            out->map_width = w;
            out->map_height = h;
        }
        if (!PTL_PUSH(a, items, it)) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
            goto fail;
        }
    }
    if ((st = finish_items(a, &items, out, name, err)) < 0) goto fail;
    return st;
fail:
    PTL_ARRAY_FREE(a, items);
    out->map_width = out->map_height = 0;
    out->items = NULL;
    out->count = 0;
    return st;
}

/* Trims spaces and tabs around a CSV field. */
static void trim(const char** s, size_t* n) {
    while (*n && (**s == ' ' || **s == '\t')) ++*s, --*n;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t')) --*n;
}

/* Splits a CSV line at commas (no quoting: the fields are numbers and names); returns the field
   count, which may exceed `max` (only the first `max` are stored). */
static uint32_t split_csv(const char* s, size_t n, const char** fs, size_t* fn, uint32_t max) {
    uint32_t k = 0;
    size_t b = 0;
    for (size_t i = 0; i <= n; ++i) {
        if (i == n || s[i] == ',') {
            if (k < max) {
                fs[k] = s + b;
                fn[k] = i - b;
                trim(&fs[k], &fn[k]);
            }
            ++k;
            b = i + 1;
        }
    }
    return k;
}

#define CSV_MAX_FIELDS 256u

static const char* const PAIR_COLUMNS[6] = {"sx", "sy", "sz", "ex", "ey", "ez"};

/* Finds the six named columns in the header line; `nf` is its field count. */
static ptl_status parse_pairs_header(const char* s, size_t n, const char* name, uint32_t line, uint32_t col[6],
                                     uint32_t* nf, ptl_error* err) {
    const char* f[CSV_MAX_FIELDS];
    size_t fn[CSV_MAX_FIELDS];
    *nf = split_csv(s, n, f, fn, CSV_MAX_FIELDS);
    if (*nf > CSV_MAX_FIELDS)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: header has %u fields (limit %u)", name, line, *nf,
                             CSV_MAX_FIELDS);
    for (int c = 0; c < 6; ++c) {
        col[c] = PTL_NONE;
        for (uint32_t i = 0; i < *nf; ++i) {
            if (!(fn[i] == 2 && !memcmp(f[i], PAIR_COLUMNS[c], 2))) continue;
            if (col[c] != PTL_NONE)
                return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: header names column '%s' twice", name, line,
                                     PAIR_COLUMNS[c]);
            col[c] = i;
        }
        if (col[c] == PTL_NONE)
            return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: header has no '%s' column (it needs sx,sy,sz,ex,ey,ez)",
                                 name, line, PAIR_COLUMNS[c]);
    }
    return PTL_OK;
}

static ptl_status parse_pairs_row(const char* s, size_t n, const char* name, uint32_t line, const uint32_t col[6],
                                  uint32_t nf, ptl_query_item* it, ptl_error* err) {
    const char* f[CSV_MAX_FIELDS];
    size_t fn[CSV_MAX_FIELDS];
    uint32_t k = split_csv(s, n, f, fn, CSV_MAX_FIELDS);
    if (k != nf) return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: row has %u fields, the header has %u", name, line, k, nf);
    double v[6];
    ptl_status st;
    for (int c = 0; c < 6; ++c)
        if ((st = parse_coord(PAIR_COLUMNS[c], f[col[c]], fn[col[c]], name, line, &v[c], err)) < 0) return st;
    memset(it, 0, sizeof *it);
    for (int c = 0; c < 3; ++c) {
        it->start[c] = (float)v[c];
        it->goal[c] = (float)v[3 + c];
    }
    it->ref_length = -1;
    return PTL_OK;
}

ptl_status ptl_pairs_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                           ptl_query_set* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_pairs_parse: out is NULL");
    memset(out, 0, sizeof *out);
    out->alloc = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    if (!text && len) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_pairs_parse: text is NULL");
    if (!name) name = "<pairs>";
    const ptl_allocator* a = &out->alloc;
    ptl_text_lines lines = {text, text + len, 0};
    const char* s;
    size_t n;
    bool have = false;
    while (!have && ptl_text_next_line(&lines, &s, &n)) have = !ptl_text_blank(s, n);
    if (!have) return ptl_error_set(err, PTL_ERR_PARSE, "%s:1: empty file (expected a header naming sx,sy,sz,ex,ey,ez)", name);
    uint32_t col[6], nf;
    ptl_status st = parse_pairs_header(s, n, name, lines.line, col, &nf, err);
    if (st < 0) return st;
    item_array items = {0};
    while (ptl_text_next_line(&lines, &s, &n)) {
        if (ptl_text_blank(s, n)) continue;
        ptl_query_item it;
        if ((st = parse_pairs_row(s, n, name, lines.line, col, nf, &it, err)) < 0) {
            PTL_ARRAY_FREE(a, items);
            return st;
        }
        if (!PTL_PUSH(a, items, it)) {
            PTL_ARRAY_FREE(a, items);
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
        }
    }
    return finish_items(a, &items, out, name, err);
}

ptl_status ptl_scen_load(const char* path, const ptl_input_desc* desc, ptl_query_set* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_scen_load: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    out->alloc = a;
    ptl_text_file f;
    ptl_status st = ptl_text_read_file(path, &a, &f, err);
    if (st < 0) return st;
    st = ptl_scen_parse(f.data, f.size, path, &(ptl_input_desc){.alloc = &a}, out, err);
    ptl_text_file_free(&a, &f);
    return st;
}

ptl_status ptl_pairs_load(const char* path, const ptl_input_desc* desc, ptl_query_set* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_pairs_load: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    out->alloc = a;
    ptl_text_file f;
    ptl_status st = ptl_text_read_file(path, &a, &f, err);
    if (st < 0) return st;
    st = ptl_pairs_parse(f.data, f.size, path, &(ptl_input_desc){.alloc = &a}, out, err);
    ptl_text_file_free(&a, &f);
    return st;
}

void ptl_query_set_free(ptl_query_set* qs) {
    if (!qs) return;
    ptl_mem_free(&qs->alloc, qs->items, (size_t)qs->count * sizeof *qs->items);
    ptl_allocator a = qs->alloc;
    memset(qs, 0, sizeof *qs);
    qs->alloc = a;
}
