/* `bake --areas AREAS.csv` (areas_csv.h). */
#include "areas_csv.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_areas_free(cli_areas* a) {
    free(a->names);
    free(a->text);
    memset(a, 0, sizeof *a);
}

/* Strips spaces and a carriage return around [s, s + strlen(s)). */
static char* trim(char* s) {
    while (*s == ' ' || *s == '\t') ++s;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
    return s;
}

/* Splits a line at its one comma; false when it has none or more than one. */
static bool split2(char* line, char** a, char** b) {
    char* c = strchr(line, ',');
    if (!c || strchr(c + 1, ',')) return false;
    *c = '\0';
    *a = trim(line), *b = trim(c + 1);
    return true;
}

static int fail(cli_areas* a, const char* path, unsigned line, const char* what, const char* s) {
    cli_areas_free(a);
    return cli_error(EXIT_FAIL, "%s:%u: %s%s%s%s", path, line, what, s ? " '" : "", s ? s : "", s ? "'" : "");
}

int cli_areas_load(const char* path, cli_areas* out) {
    memset(out, 0, sizeof *out);
    FILE* f = fopen(path, "rb");
    if (!f) return cli_error(EXIT_FAIL, "%s: cannot open", path);
    size_t cap = 4096, n = 0;
    out->text = malloc(cap);
    for (size_t got; out->text && (got = fread(out->text + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char* t = cap < ((size_t)1 << 26) ? realloc(out->text, cap *= 2) : NULL;
            if (!t) free(out->text);
            out->text = t;
        }
    }
    fclose(f);
    if (!out->text) return cli_error(EXIT_FAIL, "%s: too large or out of memory", path);
    out->text[n] = '\0';
    if (memchr(out->text, '\0', n)) return fail(out, path, 1, "a NUL byte in the file", NULL);
    int name_col = -1;
    unsigned line = 0;
    for (char *s = out->text, *next; s; s = next) {
        next = strchr(s, '\n');
        if (next) *next++ = '\0';
        ++line;
        char* l = trim(s);
        if (!*l || *l == '#') continue;
        char *a, *b;
        if (!split2(l, &a, &b)) return fail(out, path, line, "needs two columns, name,area", NULL);
        if (name_col < 0) { /* the header */
            if (!strcmp(a, "name") && !strcmp(b, "area")) name_col = 0;
            else if (!strcmp(a, "area") && !strcmp(b, "name")) name_col = 1;
            else return fail(out, path, line, "the header must be name,area; unknown column", strcmp(a, "name") && strcmp(a, "area") ? a : b);
            continue;
        }
        char* name = name_col == 0 ? a : b;
        const char* area = name_col == 0 ? b : a;
        unsigned v;
        if (!*name) return fail(out, path, line, "empty name", NULL);
        if (!cli_parse_uint(area, &v) || v < 1 || v > PTL_AREA_MAX)
            return fail(out, path, line, "area must be an integer in 1..63, got", area);
        ptl_area_name* t = realloc(out->names, (out->count + 1) * sizeof *t);
        if (!t) return fail(out, path, line, "out of memory", NULL);
        out->names = t;
        out->names[out->count++] = (ptl_area_name){.name = name, .area = (uint8_t)v};
    }
    if (name_col < 0) return fail(out, path, line ? line : 1, "no header (name,area)", NULL);
    return EXIT_OK;
}
