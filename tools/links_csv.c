/* `bake --links LINKS.csv`: off-mesh links, one per line: sx,sy,sz,ex,ey,ez,radius,bidir[,cost][,area]
   (ptl_offmesh_desc; bidir 0 or 1; cost <= 0 or absent: the 3D distance; area 0..63, absent: 0).
   Blank lines and lines starting with '#' are skipped, and a first line that starts with a letter
   (a header). The user id of a link is its line number. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Parses one row into d; NULL or what is wrong. */
static const char* parse_row(char* line, ptl_offmesh_desc* d) {
    double v[10];
    int n = 0;
    char* p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t') ++p;
        if (n == 10) return "more than 10 fields (sx,sy,sz,ex,ey,ez,radius,bidir[,cost][,area])";
        char* end;
        errno = 0;
        v[n] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v[n])) return "a field is not a finite number";
        ++n;
        p = end;
        while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
        if (*p == '\0') break;
        if (*p != ',') return "fields must be numbers separated by commas";
        ++p;
    }
    if (n < 8) return "fewer than 8 fields (sx,sy,sz,ex,ey,ez,radius,bidir[,cost][,area])";
    if (v[6] < 0) return "radius must be >= 0";
    if (v[7] != 0 && v[7] != 1) return "bidir must be 0 or 1";
    if (n == 10 && (v[9] < 0 || v[9] > 63 || v[9] != floor(v[9]))) return "area must be an integer in 0..63";
    memset(d, 0, sizeof *d);
    for (int k = 0; k < 3; ++k) d->start[k] = (float)v[k], d->end[k] = (float)v[3 + k];
    d->radius = (float)v[6];
    d->bidir = v[7] == 1;
    d->cost = n >= 9 ? (float)v[8] : 0;
    d->area = n == 10 ? (uint8_t)v[9] : 0;
    return NULL;
}

int cli_read_links(const char* path, ptl_offmesh_desc** out, uint32_t* count) {
    *out = NULL, *count = 0;
    FILE* f = fopen(path, "r");
    if (!f) return cli_error(EXIT_FAIL, "%s: cannot open", path);
    char line[1024];
    uint32_t cap = 0, n = 0, lineno = 0;
    ptl_offmesh_desc* links = NULL;
    int r = EXIT_OK;
    while (r == EXIT_OK && fgets(line, sizeof line, f)) {
        ++lineno;
        size_t len = strlen(line);
        if (len + 1 == sizeof line && line[len - 1] != '\n') {
            r = cli_error(EXIT_FAIL, "%s:%u: line too long", path, lineno);
            break;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        const char* s = line;
        while (*s == ' ' || *s == '\t') ++s;
        if (*s == '\0' || *s == '#' || (lineno == 1 && isalpha((unsigned char)*s))) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            ptl_offmesh_desc* grown = realloc(links, cap * sizeof *links);
            if (!grown) {
                r = cli_error(EXIT_FAIL, "%s: out of memory", path);
                break;
            }
            links = grown;
        }
        const char* why = parse_row(line, &links[n]);
        if (why) r = cli_error(EXIT_USAGE, "%s:%u: %s", path, lineno, why);
        else links[n++].user_id = lineno;
    }
    fclose(f);
    if (r != EXIT_OK) {
        free(links);
        return r;
    }
    *out = links, *count = n;
    return EXIT_OK;
}
