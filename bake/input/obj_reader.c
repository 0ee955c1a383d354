/* Wavefront OBJ triangle soups: one pass over the text, vertices and fan-triangulated faces.

   Read: `v x y z [w | r g b ...]` (the first three numbers are the position and must be finite
   floats; further numbers, such as w or vertex colours, are checked to be numbers and ignored),
   `f` with `i`, `i/t`, `i//n` or `i/t/n` (texture and normal indices are checked to be integers
   and ignored), and `g`, `o`, `usemtl` as per-triangle tags. Every other statement of the OBJ
   specification (vt, vn, vp, s, l, p, mtllib, free-form geometry...) is skipped; a statement the
   specification does not name is an error, which is what catches text that is not OBJ at all.
   Comments run from `#` to the end of the line; a line that ends with a backslash continues on the
   next one; CRLF line ends and a UTF-8 byte order mark are fine. A control byte (other than tab,
   CR, LF, VT, FF) anywhere but in a comment is an error, so binary files are refused on their
   first such byte.

   Choices where the specification is loose:
   - A polygon v0 v1 .. vn becomes the fan (v0, vi, vi+1). Fewer than 3 vertices is an error.
   - Positive indices must name a vertex already read (as in Recast's loader); negative indices
     count back from the last vertex read (-1 is the last one).
   - Tags: each distinct statement text ("g walls", "o Cube.001", "usemtl stone") gets an id in
     order of first appearance, and a triangle takes the id of the latest g, o or usemtl before
     it. They do not combine: `g a` then `usemtl m` tags the next faces "usemtl m" only. Combining
     would multiply the tags (every group times every material) for no use the bake has; the most
     recent statement is the finest distinction the file draws. A g, o or usemtl with no name goes
     back to tag 0.
   - bmin/bmax bound the vertices that triangles use. Unused vertices (a mesh's stray helper
     points, or vertices of skipped `l` and `p` elements) stay in `verts`, indices unchanged, but
     do not widen the bounds the voxel grid is sized from.
   Errors are PTL_ERR_PARSE with "NAME:LINE: problem", LINE being the physical line of the
   offending token. */
#include <portolan/bake.h>

#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "text_scan.h"

/* Statements of the OBJ specification (Wavefront, "Object Files (.obj)", Appendix B1) that carry
   nothing a triangle soup needs. */
static const char* const SKIPPED[] = {"vt", "vn", "vp", "s", "l", "p", "mtllib", "mg", "cstype", "deg", "bmat",
                                      "step", "curv", "curv2", "surf", "parm", "trim", "hole", "scrv", "sp", "end",
                                      "con", "bevel", "c_interp", "d_interp", "lod", "usemap", "maplib",
                                      "shadow_obj", "trace_obj", "ctech", "stech", "call", "csh", "res"};

/* Powers of ten exactly representable as doubles (the fast path of parse_real). */
static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#define MAX_TAGS 65536u /* tri_tag is 16 bits */

typedef struct tag_table {
    PTL_ARRAY(char) pool;    /* the names, each NUL-terminated; tag 0 is "" at offset 0 */
    PTL_ARRAY(uint32_t) off; /* per tag: offset of its name in pool */
    uint32_t* slots;         /* open addressing: tag id + 1, 0 for empty */
    uint32_t slot_cap;       /* a power of two, at least twice the tag count */
} tag_table;

typedef struct oreader {
    const char* p;
    const char* end;
    uint32_t line; /* physical line of the cursor, 1-based */
    const char* name;
    ptl_error* err;
    const ptl_allocator* a;
    PTL_ARRAY(float) verts;
    PTL_ARRAY(uint32_t) tris;
    PTL_ARRAY(uint16_t) tags;
    PTL_ARRAY(char) scratch; /* the tag statement being read */
    tag_table tt;
    uint16_t tag; /* current tag */
} oreader;

static ptl_status no_memory(oreader* r) {
    return ptl_error_set(r->err, PTL_ERR_NO_MEMORY, "%s:%u: out of memory", r->name, r->line);
}

static ptl_status bad_byte(oreader* r, unsigned char c) {
    return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: unexpected byte 0x%02x (not an OBJ text file?)", r->name,
                         r->line, (unsigned)c);
}

/* Length of a line continuation starting at p (a backslash, optional CR, then LF), or 0. A
   backslash at the very end of the file continues into nothing. */
static size_t continuation(const char* p, const char* end) {
    if (*p != '\\') return 0;
    if (p + 1 == end) return 1;
    if (p[1] == '\n') return 2;
    if (p[1] == '\r' && p + 2 < end && p[2] == '\n') return 3;
    if (p[1] == '\r' && p + 2 == end) return 2;
    return 0;
}

static bool is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static bool is_control(unsigned char c) { return (c < 0x20 && !is_blank(c) && c != '\n') || c == 0x7f; }

/* Moves to the next token of the current statement: 1 when there is one, 0 at the end of the
   statement (the cursor is then on its '\n', or at the end of the text), negative on a bad byte. */
static int skip_blanks(oreader* r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t')) r->p++;
    for (;;) {
        if (r->p >= r->end) return 0;
        unsigned char c = (unsigned char)*r->p;
        if (is_blank(c)) {
            r->p++;
            continue;
        }
        if (c == '\n') return 0;
        if (c == '#') { /* a comment ends the statement; it does not continue with a backslash */
            const char* nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
            r->p = nl ? nl : r->end;
            return 0;
        }
        size_t k = continuation(r->p, r->end);
        if (k) {
            r->p += k;
            if (r->p[-1] == '\n') r->line++;
            continue;
        }
        if (is_control(c)) return bad_byte(r, c);
        return 1;
    }
}

/* The token at the cursor (skip_blanks returned 1): printable bytes (and any byte >= 0x80, so
   UTF-8 names pass) up to a blank, a line end or a line continuation. */
static ptl_status next_token(oreader* r, const char** s, size_t* n) {
    const char* b = r->p;
    const char* p = r->p;
    for (;;) {
        while (p < r->end && (unsigned char)*p > ' ' && *p != '\\' && *p != 0x7f) ++p;
        if (p < r->end && *p == '\\' && !continuation(p, r->end)) {
            ++p;
            continue;
        }
        break;
    }
    r->p = p;
    if (p < r->end && is_control((unsigned char)*p)) return bad_byte(r, (unsigned char)*p);
    *s = b;
    *n = (size_t)(p - b);
    return PTL_OK;
}

/* Past the end of a skipped statement, following continuations. */
static ptl_status skip_statement(oreader* r) {
    for (;;) {
        int k = skip_blanks(r);
        if (k <= 0) return k;
        const char* s;
        size_t n;
        ptl_status st = next_token(r, &s, &n);
        if (st < 0) return st;
    }
}

/* A decimal number: [+-] digits [. digits] [(e|E) [+-] digits], at least one mantissa digit.
   Up to 19 significant digits with a power of ten within 1e±22 (every coordinate any exporter
   writes) the value is exact: an integer below 2^53 times or divided by an exact power of ten is
   one correctly rounded operation (Clinger's fast path). Anything else goes to strtod after the
   same syntax check. nan and inf are PTL_NUM_NONFINITE, like text_scan's parser. */
static ptl_num_result parse_real(const char* s, size_t n, double* out) {
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    uint64_t m = 0;
    int sig = 0, e10 = 0;
    bool exact = true;
    size_t d0 = i;
    for (; i < n && (unsigned)(s[i] - '0') < 10; ++i) {
        unsigned d = (unsigned)(s[i] - '0');
        if (sig < 19) {
            m = m * 10 + d;
            sig += m != 0;
        } else {
            exact &= d == 0;
            ++e10;
        }
    }
    size_t mant = i - d0;
    if (i < n && s[i] == '.') {
        ++i;
        size_t f0 = i;
        for (; i < n && (unsigned)(s[i] - '0') < 10; ++i) {
            unsigned d = (unsigned)(s[i] - '0');
            if (sig < 19) {
                m = m * 10 + d;
                sig += m != 0;
                --e10;
            } else {
                exact &= d == 0;
            }
        }
        mant += i - f0;
    }
    if (mant == 0) {
        /* no digits: nan, inf, infinity, or not a number at all */
        double v;
        return ptl_text_parse_double(s, n, &v) == PTL_NUM_NONFINITE ? PTL_NUM_NONFINITE : PTL_NUM_SYNTAX;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        size_t x0 = i;
        int ev = 0;
        for (; i < n && (unsigned)(s[i] - '0') < 10; ++i)
            if (ev < 100000) ev = ev * 10 + (s[i] - '0');
        if (i == x0) return PTL_NUM_SYNTAX;
        e10 += eneg ? -ev : ev;
    }
    if (i != n) return PTL_NUM_SYNTAX;
    if (m == 0) {
        *out = neg ? -0.0 : 0.0;
        return PTL_NUM_OK;
    }
    if (exact && m <= (1ull << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)m;
        v = e10 < 0 ? v / POW10[-e10] : v * POW10[e10];
        *out = neg ? -v : v;
        return PTL_NUM_OK;
    }
    char buf[512];
    if (n >= sizeof buf) return PTL_NUM_SYNTAX;
    memcpy(buf, s, n);
    buf[n] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v)) return PTL_NUM_NONFINITE;
    *out = v;
    return PTL_NUM_OK;
}

/* The fast paths below take the common forms straight from the cursor and return the position
   after them, or NULL for anything else (exponents, long numbers, signs on indices, anything
   malformed), which then goes through next_token and the general parsers: those give the same
   value or the error message. */
static bool ends_token(const char* p, const char* end) {
    return p == end || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
}

/* [-]digits[.digits], at most 19 digits, so the value is m / 10^k with m < 2^53 exactly: one
   correctly rounded division, the result strtod gives. */
static const char* fast_real(const char* p, const char* end, double* out) {
    bool neg = false;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    uint64_t m = 0;
    const char* d0 = p;
    for (; p < end && (unsigned)(*p - '0') < 10 && p - d0 < 20; ++p) m = m * 10 + (uint64_t)(*p - '0');
    int digits = (int)(p - d0), frac = 0;
    if (p < end && *p == '.') {
        const char* f0 = ++p;
        for (; p < end && (unsigned)(*p - '0') < 10 && p - f0 < 20; ++p) m = m * 10 + (uint64_t)(*p - '0');
        frac = (int)(p - f0);
        digits += frac;
    }
    if (digits == 0 || digits > 19 || frac > 22 || m > (1ull << 53) || !ends_token(p, end)) return NULL;
    double v = frac ? (double)m / POW10[frac] : (double)m;
    *out = neg ? -v : v;
    return p;
}

/* Past an optional '-' and at least one digit, or NULL. */
static const char* skip_int(const char* p, const char* end) {
    if (p < end && *p == '-') ++p;
    const char* d0 = p;
    while (p < end && (unsigned)(*p - '0') < 10) ++p;
    return p == d0 ? NULL : p;
}

/* i, -i, i/t, i//n, i/t/n with i naming one of the `count` vertices read so far. */
static const char* fast_index(const char* p, const char* end, uint32_t count, uint32_t* out) {
    bool neg = p < end && *p == '-';
    p += neg;
    uint64_t v = 0;
    const char* d0 = p;
    for (; p < end && (unsigned)(*p - '0') < 10 && p - d0 < 10; ++p) v = v * 10 + (uint64_t)(*p - '0');
    if (p == d0) return NULL;
    if (p < end && *p == '/') {
        ++p;
        if (p < end && *p == '/') {
            if (!(p = skip_int(p + 1, end))) return NULL;
        } else {
            if (!(p = skip_int(p, end))) return NULL;
            if (p < end && *p == '/' && !(p = skip_int(p + 1, end))) return NULL;
        }
    }
    if (!ends_token(p, end) || v == 0 || v > count) return NULL;
    *out = neg ? (uint32_t)(count - v) : (uint32_t)(v - 1);
    return p;
}

/* An optionally signed decimal integer at s[*i], |v| <= 2^53. */
static bool parse_index_part(const char* s, size_t n, size_t* i, int64_t* v) {
    size_t k = *i;
    bool neg = false;
    if (k < n && (s[k] == '+' || s[k] == '-')) neg = s[k++] == '-';
    size_t d0 = k;
    int64_t x = 0;
    for (; k < n && (unsigned)(s[k] - '0') < 10; ++k) {
        if (x > ((int64_t)1 << 53) / 10) return false;
        x = x * 10 + (s[k] - '0');
    }
    if (k == d0) return false;
    *v = neg ? -x : x;
    *i = k;
    return true;
}

static ptl_status read_vertex(oreader* r) {
    double xyz[3];
    char show[32];
    for (int c = 0; c < 3; ++c) {
        int k = skip_blanks(r);
        if (k < 0) return k;
        if (k == 0)
            return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: vertex has %d coordinate%s, expected 3 (x y z)",
                                 r->name, r->line, c, c == 1 ? "" : "s");
        const char* q = fast_real(r->p, r->end, &xyz[c]);
        if (q) {
            r->p = q;
            continue; /* |value| < 2^53: finite as a float too */
        }
        const char* s;
        size_t n;
        ptl_status st = next_token(r, &s, &n);
        if (st < 0) return st;
        ptl_num_result res = parse_real(s, n, &xyz[c]);
        if (res == PTL_NUM_NONFINITE)
            return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: coordinate '%s' is not a finite number", r->name,
                                 r->line, ptl_text_show(show, s, n));
        if (res != PTL_NUM_OK)
            return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: coordinate '%s' is not a number", r->name, r->line,
                                 ptl_text_show(show, s, n));
        if (!isfinite((float)xyz[c]))
            return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: coordinate '%s' is beyond the range of a float",
                                 r->name, r->line, ptl_text_show(show, s, n));
    }
    /* w, or vertex colours: numbers, ignored (a w of nan would be odd but harms nothing here) */
    for (;;) {
        int k = skip_blanks(r);
        if (k < 0) return k;
        if (k == 0) break;
        const char* s;
        size_t n;
        double v;
        ptl_status st = next_token(r, &s, &n);
        if (st < 0) return st;
        if (parse_real(s, n, &v) == PTL_NUM_SYNTAX)
            return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: '%s' after the vertex position is not a number",
                                 r->name, r->line, ptl_text_show(show, s, n));
    }
    if (!PTL_RESERVE(r->a, r->verts, (uint64_t)r->verts.count + 3)) return no_memory(r);
    float* v = r->verts.data + r->verts.count;
    v[0] = (float)xyz[0];
    v[1] = (float)xyz[1];
    v[2] = (float)xyz[2];
    r->verts.count += 3;
    return PTL_OK;
}

/* One face vertex `i`, `i/t`, `i//n` or `i/t/n` into a vertex id. */
static ptl_status face_vertex(oreader* r, const char* s, size_t n, uint32_t* out) {
    char show[32];
    size_t i = 0;
    int64_t v, t;
    bool ok = parse_index_part(s, n, &i, &v);
    if (ok && i < n) { /* "/t", "//n" or "/t/n" */
        ok = s[i++] == '/';
        if (ok && i < n && s[i] != '/') ok = parse_index_part(s, n, &i, &t);
        if (ok && i < n) {
            ok = s[i++] == '/' && parse_index_part(s, n, &i, &t) && i == n;
        } else if (ok && i == n && s[i - 1] == '/') {
            ok = false; /* "i/" */
        }
    }
    if (!ok)
        return ptl_error_set(r->err, PTL_ERR_PARSE,
                             "%s:%u: face vertex '%s' is not an index (expected i, i/t, i//n or i/t/n)", r->name,
                             r->line, ptl_text_show(show, s, n));
    uint32_t count = r->verts.count / 3;
    if (v == 0)
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: vertex index 0 is invalid (OBJ indices start at 1)",
                             r->name, r->line);
    if (v > 0) {
        if (v > (int64_t)count)
            return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: vertex index %lld is out of range (%u vertices so far)",
                                 r->name, r->line, (long long)v, count);
        *out = (uint32_t)(v - 1);
    } else {
        if (-v > (int64_t)count)
            return ptl_error_set(r->err, PTL_ERR_PARSE,
                                 "%s:%u: relative vertex index %lld reaches before the first vertex (%u vertices so far)",
                                 r->name, r->line, (long long)v, count);
        *out = (uint32_t)((int64_t)count + v);
    }
    return PTL_OK;
}

static ptl_status read_face(oreader* r) {
    uint32_t first = 0, prev = 0, corners = 0;
    for (;;) {
        int k = skip_blanks(r);
        if (k < 0) return k;
        if (k == 0) break;
        const char* s;
        size_t n;
        uint32_t v = 0;
        const char* q = fast_index(r->p, r->end, r->verts.count / 3, &v);
        if (q) {
            r->p = q;
        } else {
            ptl_status st = next_token(r, &s, &n);
            if (st < 0) return st;
            if ((st = face_vertex(r, s, n, &v)) < 0) return st;
        }
        if (corners == 0) {
            first = v;
        } else if (corners >= 2) {
            if (!PTL_RESERVE(r->a, r->tris, (uint64_t)r->tris.count + 3)) return no_memory(r);
            if (!PTL_PUSH(r->a, r->tags, r->tag)) return no_memory(r);
            uint32_t* t = r->tris.data + r->tris.count;
            t[0] = first;
            t[1] = prev;
            t[2] = v;
            r->tris.count += 3;
        }
        prev = v;
        ++corners;
    }
    if (corners < 3)
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: face has %u vertices, at least 3 needed", r->name,
                             r->line, corners);
    return PTL_OK;
}

/* FNV-1a: the tag table's hash (names are short; any decent mix will do). */
static uint32_t hash_name(const char* s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static bool tags_rehash(oreader* r, uint32_t cap) {
    tag_table* t = &r->tt;
    uint32_t* slots = ptl_mem_calloc(r->a, cap, sizeof *slots);
    if (!slots) return false;
    for (uint32_t id = 1; id < t->off.count; ++id) {
        const char* nm = t->pool.data + t->off.data[id];
        uint32_t h = hash_name(nm, strlen(nm)) & (cap - 1);
        while (slots[h]) h = (h + 1) & (cap - 1);
        slots[h] = id + 1;
    }
    ptl_mem_free(r->a, t->slots, (size_t)t->slot_cap * sizeof *t->slots);
    t->slots = slots;
    t->slot_cap = cap;
    return true;
}

/* The id of the tag named by scratch (not NUL-terminated), adding it when new. */
static ptl_status tag_id(oreader* r, uint16_t* out) {
    tag_table* t = &r->tt;
    const char* s = r->scratch.data;
    size_t n = r->scratch.count;
    if (t->off.count == 0) { /* tag 0, unnamed */
        if (!PTL_PUSH(r->a, t->pool, '\0') || !PTL_PUSH(r->a, t->off, 0u)) return no_memory(r);
    }
    if ((uint64_t)t->off.count * 2 >= t->slot_cap && !tags_rehash(r, t->slot_cap ? t->slot_cap * 2 : 64))
        return no_memory(r);
    uint32_t h = hash_name(s, n) & (t->slot_cap - 1);
    for (; t->slots[h]; h = (h + 1) & (t->slot_cap - 1)) {
        uint32_t id = t->slots[h] - 1;
        const char* nm = t->pool.data + t->off.data[id];
        if (!strncmp(nm, s, n) && nm[n] == '\0') {
            *out = (uint16_t)id;
            return PTL_OK;
        }
    }
    if (t->off.count >= MAX_TAGS)
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: more than %u distinct g, o and usemtl names", r->name,
                             r->line, MAX_TAGS - 1);
    uint32_t id = t->off.count;
    if (!PTL_PUSH(r->a, t->off, t->pool.count)) return no_memory(r);
    if (!PTL_RESERVE(r->a, t->pool, (uint64_t)t->pool.count + n + 1)) return no_memory(r);
    memcpy(t->pool.data + t->pool.count, s, n);
    t->pool.data[t->pool.count + n] = '\0';
    t->pool.count += (uint32_t)n + 1;
    t->slots[h] = id + 1;
    *out = (uint16_t)id;
    return PTL_OK;
}

/* g, o, usemtl: the statement's text with single spaces ("g a b") names the tag. */
static ptl_status read_tag(oreader* r, const char* kw, size_t kn) {
    r->scratch.count = 0;
    if (!PTL_RESERVE(r->a, r->scratch, kn)) return no_memory(r);
    memcpy(r->scratch.data, kw, kn);
    r->scratch.count = (uint32_t)kn;
    bool named = false;
    for (;;) {
        int k = skip_blanks(r);
        if (k < 0) return k;
        if (k == 0) break;
        const char* s;
        size_t n;
        ptl_status st = next_token(r, &s, &n);
        if (st < 0) return st;
        if (!PTL_RESERVE(r->a, r->scratch, (uint64_t)r->scratch.count + n + 1)) return no_memory(r);
        r->scratch.data[r->scratch.count++] = ' ';
        memcpy(r->scratch.data + r->scratch.count, s, n);
        r->scratch.count += (uint32_t)n;
        named = true;
    }
    if (!named) {
        r->tag = 0;
        return PTL_OK;
    }
    return tag_id(r, &r->tag);
}

static bool word_is(const char* s, size_t n, const char* w) { return strlen(w) == n && !memcmp(s, w, n); }

static ptl_status statement(oreader* r, const char* s, size_t n) {
    char show[32];
    if (n == 1 && s[0] == 'v') return read_vertex(r);
    if (n == 1 && s[0] == 'f') return read_face(r);
    if (word_is(s, n, "g") || word_is(s, n, "o") || word_is(s, n, "usemtl")) return read_tag(r, s, n);
    for (size_t i = 0; i < sizeof SKIPPED / sizeof SKIPPED[0]; ++i)
        if (word_is(s, n, SKIPPED[i])) return skip_statement(r);
    return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: unknown statement '%s'", r->name, r->line,
                         ptl_text_show(show, s, n));
}

static void reader_free(oreader* r) {
    PTL_ARRAY_FREE(r->a, r->verts);
    PTL_ARRAY_FREE(r->a, r->tris);
    PTL_ARRAY_FREE(r->a, r->tags);
    PTL_ARRAY_FREE(r->a, r->scratch);
    PTL_ARRAY_FREE(r->a, r->tt.pool);
    PTL_ARRAY_FREE(r->a, r->tt.off);
    ptl_mem_free(r->a, r->tt.slots, (size_t)r->tt.slot_cap * sizeof *r->tt.slots);
    r->tt.slots = NULL;
    r->tt.slot_cap = 0;
}

/* Hands the arrays to `out` at their exact sizes (ptl_trimesh_free gives those sizes back). */
static ptl_status finish(oreader* r, ptl_trimesh* out) {
    const ptl_allocator* a = r->a;
    uint32_t nv = r->verts.count / 3, nt = r->tris.count / 3;
    uint32_t ntag = r->tt.off.count ? r->tt.off.count : 1;
    float* verts = ptl_mem_realloc(a, r->verts.data, (size_t)r->verts.cap * sizeof(float), (size_t)nv * 3 * sizeof(float));
    if (!verts) return no_memory(r);
    r->verts.data = verts;
    r->verts.cap = nv * 3;
    uint32_t* tris = ptl_mem_realloc(a, r->tris.data, (size_t)r->tris.cap * sizeof(uint32_t), (size_t)nt * 3 * sizeof(uint32_t));
    if (!tris) return no_memory(r);
    r->tris.data = tris;
    r->tris.cap = nt * 3;
    uint16_t* tags = ptl_mem_realloc(a, r->tags.data, (size_t)r->tags.cap * sizeof(uint16_t), (size_t)nt * sizeof(uint16_t));
    if (!tags) return no_memory(r);
    r->tags.data = tags;
    r->tags.cap = nt;
    char** names = ptl_mem_calloc(a, ntag, sizeof *names);
    if (!names) return no_memory(r);
    for (uint32_t i = 0; i < ntag; ++i) {
        const char* nm = r->tt.off.count ? r->tt.pool.data + r->tt.off.data[i] : "";
        size_t len = strlen(nm) + 1;
        names[i] = ptl_mem_alloc(a, len);
        if (!names[i]) {
            for (uint32_t k = 0; k < i; ++k) ptl_mem_free(a, names[k], strlen(names[k]) + 1);
            ptl_mem_free(a, names, (size_t)ntag * sizeof *names);
            return no_memory(r);
        }
        memcpy(names[i], nm, len);
    }
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < nt * 3; ++i) {
        const float* p = verts + (size_t)tris[i] * 3;
        for (int c = 0; c < 3; ++c) {
            if (p[c] < lo[c]) lo[c] = p[c];
            if (p[c] > hi[c]) hi[c] = p[c];
        }
    }
    out->vert_count = nv;
    out->verts = verts;
    out->tri_count = nt;
    out->tris = tris;
    out->tri_tag = tags;
    out->tag_count = ntag;
    out->tag_names = names;
    memcpy(out->bmin, lo, sizeof lo);
    memcpy(out->bmax, hi, sizeof hi);
    r->verts.data = NULL;
    r->tris.data = NULL;
    r->tags.data = NULL;
    r->verts.cap = r->tris.cap = r->tags.cap = 0;
    return PTL_OK;
}

/* Parses the whole lines of [text, end) (the last one ends the text or with a '\n' that does not
   continue the statement), the line number carried on in r. */
static ptl_status parse_lines(oreader* r, const char* text, const char* end, uint32_t* statements,
                              uint32_t* last_line) {
    r->p = text;
    r->end = end;
    ptl_status st = PTL_OK;
    while (st >= 0) {
        int k = skip_blanks(r);
        if (k < 0) {
            st = k;
            break;
        }
        if (k > 0) {
            const char* s;
            size_t n;
            if ((st = next_token(r, &s, &n)) < 0) break;
            *last_line = r->line;
            ++*statements;
            if ((st = statement(r, s, n)) < 0) break;
            /* every statement reader stops at the end of its statement */
        }
        if (r->p >= r->end) break;
        r->p++; /* the '\n' */
        r->line++;
    }
    return st;
}

/* After the last line: a mesh needs a face; the arrays become the mesh. */
static ptl_status parse_done(oreader* r, uint32_t statements, uint32_t last_line, ptl_trimesh* out) {
    if (r->tris.count == 0) {
        if (statements == 0) return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:1: empty file (no vertices and no faces)", r->name);
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: no faces: %u vertices but not one triangle", r->name,
                             last_line, r->verts.count / 3);
    }
    return finish(r, out);
}

static void reader_init(oreader* r, const char* name, const ptl_allocator* a, ptl_error* err) {
    memset(r, 0, sizeof *r);
    r->line = 1;
    r->name = name;
    r->err = err;
    r->a = a;
}

ptl_status ptl_obj_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc, ptl_trimesh* out,
                         ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_obj_parse: out is NULL");
    memset(out, 0, sizeof *out);
    out->alloc = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    if (!text && len) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_obj_parse: text is NULL");
    if (!name) name = "<obj>";
    oreader r;
    reader_init(&r, name, &out->alloc, err);
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) text += 3, len -= 3; /* a UTF-8 byte order mark */
    uint32_t statements = 0, last_line = 1;
    ptl_status st = parse_lines(&r, text, text + len, &statements, &last_line);
    if (st >= 0) st = parse_done(&r, statements, last_line, out);
    reader_free(&r);
    if (st < 0) return st;
    return ptl_error_ok(err);
}

/* The end of the last whole line of buf[0 .. n): just past its '\n', one that does not continue a
   statement (a backslash, optional CR, then LF); 0 when there is none. */
static size_t last_line_end(const char* buf, size_t n) {
    for (size_t i = n; i-- > 0;) {
        if (buf[i] != '\n') continue;
        size_t j = i;
        if (j > 0 && buf[j - 1] == '\r') --j;
        if (j > 0 && buf[j - 1] == '\\') continue; /* a continuation: the statement goes on */
        return i + 1;
    }
    return 0;
}

/* Reads the file a chunk of whole lines at a time (PTL_OBJ_CHUNK bytes, more for a longer line), so
   the text of a large level never sits in memory whole beside the mesh made from it. */
#define PTL_OBJ_CHUNK ((size_t)1 << 20)

ptl_status ptl_obj_load(const char* path, const ptl_input_desc* desc, ptl_trimesh* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_obj_load: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    out->alloc = a;
    if (!path) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "path is NULL");
    FILE* f;
    /* streamed a chunk at a time, so no size limit; a directory or a device is refused */
    ptl_status ost = ptl_file_open_read(path, UINT64_MAX, &f, NULL, err);
    if (ost < 0) return ost;
    oreader r;
    reader_init(&r, path, &a, err);
    size_t cap = PTL_OBJ_CHUNK, have = 0;
    char* buf = ptl_mem_alloc(&a, cap);
    uint32_t statements = 0, last_line = 1;
    bool eof = false, first = true;
    ptl_status st = buf ? PTL_OK : ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory reading the file", path);
    while (st >= 0) {
        if (!eof && have < cap) {
            const size_t got = fread(buf + have, 1, cap - have, f);
            have += got;
            if (got == 0) {
                if (ferror(f)) {
                    st = ptl_error_set(err, PTL_ERR_IO, "%s: read error", path);
                    break;
                }
                eof = true;
            }
        }
        size_t cut = eof ? have : last_line_end(buf, have);
        if (!eof && cut == 0) { /* no whole line yet */
            if (have < cap) continue;
            char* nb = cap * 2 > cap ? ptl_mem_realloc(&a, buf, cap, cap * 2) : NULL;
            if (!nb) {
                st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s:%u: out of memory (a line of more than %zu bytes)", path,
                                   r.line, cap);
                break;
            }
            buf = nb, cap *= 2;
            continue;
        }
        size_t skip = 0;
        if (first && cut >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) skip = 3; /* a UTF-8 byte order mark */
        first = false;
        st = parse_lines(&r, buf + skip, buf + cut, &statements, &last_line);
        memmove(buf, buf + cut, have - cut);
        have -= cut;
        if (eof && have == 0) break;
    }
    fclose(f);
    ptl_mem_free(&a, buf, cap);
    if (st >= 0) st = parse_done(&r, statements, last_line, out);
    reader_free(&r);
    if (st < 0) return st;
    return ptl_error_ok(err);
}

void ptl_trimesh_free(ptl_trimesh* m) {
    if (!m) return;
    const ptl_allocator* a = &m->alloc;
    if (m->alloc.free) {
        ptl_mem_free(a, m->verts, (size_t)m->vert_count * 3 * sizeof(float));
        ptl_mem_free(a, m->tris, (size_t)m->tri_count * 3 * sizeof(uint32_t));
        ptl_mem_free(a, m->tri_tag, (size_t)m->tri_count * sizeof(uint16_t));
        if (m->tag_names) {
            for (uint32_t i = 0; i < m->tag_count; ++i)
                if (m->tag_names[i]) ptl_mem_free(a, m->tag_names[i], strlen(m->tag_names[i]) + 1);
            ptl_mem_free(a, m->tag_names, (size_t)m->tag_count * sizeof *m->tag_names);
        }
    }
    ptl_allocator keep = m->alloc;
    memset(m, 0, sizeof *m);
    m->alloc = keep;
}
