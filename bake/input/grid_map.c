/* Moving AI grid maps (.map): "type octile", "height H", "width W", "map", then H rows of W
   characters (Sturtevant, "Benchmarks for Grid-Based Pathfinding", 2012). Row y of the file is
   y, and cell (x, y) is the unit square [x, x+1] x [y, y+1]. Passable: '.', 'G', 'S'; any other
   printable character is blocked; anything unprintable is a malformed file. */
#include <portolan/bake.h>

#include <string.h>

#include "../../runtime/internal.h"
#include "text_scan.h"

/* Limits that keep w * h and every index into the grid (and into its lattice of (w+1) * (h+1)
   points) comfortably inside 32 bits; the largest benchmark maps are about 1500 x 1500. */
#define GRID_MAX_SIDE 65536u
#define GRID_MAX_CELLS (1u << 28)

static bool passable_char(char c) { return c == '.' || c == 'G' || c == 'S'; }

/* The first unprintable byte of a line, or -1. Header lines may separate key and value with a
   tab; in map rows a tab is as wrong as any other control byte. */
static long bad_byte(const char* s, size_t n, bool allow_tab) {
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && !(allow_tab && c == '\t')) || c >= 0x7f) return (long)i;
    }
    return -1;
}

/* Parses the value of a "height"/"width" header line. */
static ptl_status parse_side(const char* key, const char* v, size_t vn, const char* name, uint32_t line,
                             uint32_t* out, ptl_error* err) {
    char show[32];
    int64_t x = 0;
    ptl_num_result r = ptl_text_parse_int(v, vn, &x);
    if (r == PTL_NUM_SYNTAX)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: %s '%s' is not an integer", name, line, key,
                             ptl_text_show(show, v, vn));
    if (r == PTL_NUM_OK && x < 0)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: negative %s %lld", name, line, key, (long long)x);
    if (r == PTL_NUM_OK && x == 0)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: %s must be positive, got 0", name, line, key);
    if (r != PTL_NUM_OK || x > (int64_t)GRID_MAX_SIDE)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: %s %s is too large (limit %u)", name, line, key,
                             ptl_text_show(show, v, vn), GRID_MAX_SIDE);
    *out = (uint32_t)x;
    return PTL_OK;
}

/* Reads the header lines up to and including "map". They may come in any order, but type, height
   and width must all precede "map"; blank lines are skipped. */
static ptl_status parse_header(ptl_text_lines* it, const char* name, uint32_t* w, uint32_t* h, ptl_error* err) {
    bool have_type = false, have_w = false, have_h = false, any = false;
    const char* s;
    size_t n;
    char show[32];
    while (ptl_text_next_line(it, &s, &n)) {
        long bad = bad_byte(s, n, true);
        if (bad >= 0)
            return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: column %ld: unexpected byte 0x%02x in the header",
                                 name, it->line, bad + 1, (unsigned)(unsigned char)s[bad]);
        const char* f[3];
        size_t fn[3];
        uint32_t k = ptl_text_split_blank(s, n, f, fn, 3);
        if (k == 0) continue;
        any = true;
        if (k == 1 && fn[0] == 3 && !memcmp(f[0], "map", 3)) {
            if (!have_type) return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: missing 'type' line before 'map'", name, it->line);
            if (!have_h) return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: missing 'height' line before 'map'", name, it->line);
            if (!have_w) return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: missing 'width' line before 'map'", name, it->line);
            if ((uint64_t)*w * *h > GRID_MAX_CELLS)
                return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: map of %u x %u cells is too large (limit %u cells)",
                                     name, it->line, *w, *h, GRID_MAX_CELLS);
            return PTL_OK;
        }
        bool is_type = fn[0] == 4 && !memcmp(f[0], "type", 4);
        bool is_h = fn[0] == 6 && !memcmp(f[0], "height", 6);
        bool is_w = fn[0] == 5 && !memcmp(f[0], "width", 5);
        if (!is_type && !is_h && !is_w)
            return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: unknown header line '%s' (expected type, height, width or map)",
                                 name, it->line, ptl_text_show(show, s, n));
        if (k != 2)
            return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: header line '%s' must be a key and one value", name,
                                 it->line, ptl_text_show(show, s, n));
        if ((is_type && have_type) || (is_h && have_h) || (is_w && have_w))
            return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: duplicate header line '%s'", name, it->line,
                                 ptl_text_show(show, s, n));
        ptl_status st;
        if (is_type) {
            if (!(fn[1] == 6 && !memcmp(f[1], "octile", 6)))
                return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: map type '%s' is not supported (expected octile)",
                                     name, it->line, ptl_text_show(show, f[1], fn[1]));
            have_type = true;
        } else if (is_h) {
            if ((st = parse_side("height", f[1], fn[1], name, it->line, h, err)) < 0) return st;
            have_h = true;
        } else {
            if ((st = parse_side("width", f[1], fn[1], name, it->line, w, err)) < 0) return st;
            have_w = true;
        }
    }
    if (!any) return ptl_error_set(err, PTL_ERR_PARSE, "%s:1: empty file (expected a Moving AI map header)", name);
    return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: unexpected end of file: missing 'map' line", name, it->line);
}

ptl_status ptl_grid_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                          ptl_grid* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_grid_parse: out is NULL");
    memset(out, 0, sizeof *out);
    out->alloc = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    if (!text && len) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_grid_parse: text is NULL");
    if (!name) name = "<map>";
    ptl_text_lines it = {text, text + len, 0};
    uint32_t w = 0, h = 0;
    ptl_status st = parse_header(&it, name, &w, &h, err);
    if (st < 0) return st;

    uint8_t* cells = ptl_mem_alloc(&out->alloc, (size_t)w * h);
    if (!cells) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory for a %u x %u map", name, w, h);
    const char* s;
    size_t n;
    for (uint32_t y = 0; y < h; ++y) {
        if (!ptl_text_next_line(&it, &s, &n)) {
            st = ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: unexpected end of file: %u rows, expected %u", name,
                               it.line + 1, y, h);
            goto fail;
        }
        long bad = bad_byte(s, n, false);
        if (bad >= 0) {
            st = ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: column %ld: unexpected byte 0x%02x in row %u", name,
                               it.line, bad + 1, (unsigned)(unsigned char)s[bad], y);
            goto fail;
        }
        if (n != w) {
            st = ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: row %u has %zu characters, expected %u", name, it.line, y,
                               n, w);
            goto fail;
        }
        uint8_t* row = cells + (size_t)y * w;
        for (uint32_t x = 0; x < w; ++x) row[x] = passable_char(s[x]);
    }
    /* Editors and generators often leave blank lines at the end; anything else is an extra row. */
    while (ptl_text_next_line(&it, &s, &n)) {
        if (!ptl_text_blank(s, n)) {
            st = ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: more than %u rows (the header says height %u)", name,
                               it.line, h, h);
            goto fail;
        }
    }
    out->width = w;
    out->height = h;
    out->passable = cells;
    return ptl_error_ok(err);
fail:
    ptl_mem_free(&out->alloc, cells, (size_t)w * h);
    return st;
}

ptl_status ptl_grid_load(const char* path, const ptl_input_desc* desc, ptl_grid* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_grid_load: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    out->alloc = a;
    ptl_text_file f;
    ptl_status st = ptl_text_read_file(path, &a, &f, err);
    if (st < 0) return st;
    st = ptl_grid_parse(f.data, f.size, path, &(ptl_input_desc){.alloc = &a}, out, err);
    ptl_text_file_free(&a, &f);
    return st;
}

void ptl_grid_free(ptl_grid* g) {
    if (!g) return;
    ptl_mem_free(&g->alloc, g->passable, (size_t)g->width * g->height);
    ptl_allocator a = g->alloc;
    memset(g, 0, sizeof *g);
    g->alloc = a;
}
