/* Reading text inputs for the bake's readers (.map, .scen, pairs CSV, .poly, .mesh): one read of
   the whole file, line and token iteration that tracks line numbers, and strict number parsing.
   Private. Header-only (static inline) so that every reader shares one definition of "a number"
   and "a line" without a catch-all util.c, and the readers stay separately compilable. */
#ifndef PTL_TEXT_SCAN_H
#define PTL_TEXT_SCAN_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/internal.h"

/* A file's bytes, allocated from `alloc`; `cap` is what to hand back to ptl_mem_free. */
typedef struct ptl_text_file {
    char* data;
    size_t size, cap;
} ptl_text_file;

/* Reads all of `path` (at most PTL_TEXT_FILE_MAX bytes; a directory or a device is refused with a
   message): file_read.c's rules, shared with the blob and OBJ readers. */
static inline ptl_status ptl_text_read_file(const char* path, const ptl_allocator* a, ptl_text_file* out,
                                            ptl_error* err) {
    memset(out, 0, sizeof *out);
    return ptl_file_read_all(path, PTL_TEXT_FILE_MAX, a, &out->data, &out->size, &out->cap, err);
}

static inline void ptl_text_file_free(const ptl_allocator* a, ptl_text_file* f) {
    ptl_mem_free(a, f->data, f->cap);
    memset(f, 0, sizeof *f);
}

static inline bool ptl_text_is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* A cursor over lines: `next_line` yields each line without its "\n" or "\r\n". */
typedef struct ptl_text_lines {
    const char* p;
    const char* end;
    uint32_t line; /* 1-based number of the line last returned */
} ptl_text_lines;

static inline bool ptl_text_next_line(ptl_text_lines* it, const char** s, size_t* n) {
    *s = it->end;
    *n = 0;
    if (it->p >= it->end) return false;
    const char* b = it->p;
    const char* nl = memchr(b, '\n', (size_t)(it->end - b));
    const char* e = nl ? nl : it->end;
    it->p = nl ? nl + 1 : it->end;
    if (e > b && e[-1] == '\r') --e;
    *s = b;
    *n = (size_t)(e - b);
    it->line++;
    return true;
}

/* True when the line holds nothing but blanks (spaces, tabs, a stray '\r'). */
static inline bool ptl_text_blank(const char* s, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!ptl_text_is_space(s[i])) return false;
    return true;
}

/* A cursor over whitespace-separated tokens that knows the line of each token. */
typedef struct ptl_text_tokens {
    const char* p;
    const char* end;
    uint32_t line; /* line of the token last returned (or of the end of input once exhausted) */
} ptl_text_tokens;

static inline bool ptl_text_next_token(ptl_text_tokens* t, const char** s, size_t* n) {
    *s = t->end;
    *n = 0;
    while (t->p < t->end && ptl_text_is_space(*t->p)) {
        if (*t->p == '\n') t->line++;
        t->p++;
    }
    if (t->p >= t->end) return false;
    const char* b = t->p;
    while (t->p < t->end && !ptl_text_is_space(*t->p)) t->p++;
    *s = b;
    *n = (size_t)(t->p - b);
    return true;
}

/* Copies a token into `buf` for a message: at most 24 characters, anything unprintable as '?'. */
static inline const char* ptl_text_show(char buf[32], const char* s, size_t n) {
    size_t k = 0;
    for (; k < n && k < 24; ++k) {
        unsigned char c = (unsigned char)s[k];
        buf[k] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (k < n) buf[k++] = '~';
    buf[k] = '\0';
    return buf;
}

typedef enum ptl_num_result {
    PTL_NUM_OK = 0,
    PTL_NUM_SYNTAX,    /* not a number at all */
    PTL_NUM_NONFINITE, /* nan, inf, or a value beyond the range of a double */
    PTL_NUM_RANGE      /* an integer outside the range the caller asked for */
} ptl_num_result;

/* A decimal number: [+-] digits [. digits] [(e|E) [+-] digits], nothing else. The character check
   comes first so that "nan", "inf" and C99 hex floats, which strtod would accept, are refused with
   a clear reason. strtod does the conversion (correct rounding); it reads the C locale's decimal
   point, which is what a program has unless it calls setlocale(LC_NUMERIC, ...) itself. */
static inline ptl_num_result ptl_text_parse_double(const char* s, size_t n, double* out) {
    char buf[80];
    if (n == 0) return PTL_NUM_SYNTAX;
    if (n >= sizeof buf) return PTL_NUM_SYNTAX;
    bool digits = false, alpha = false;
    for (size_t i = 0; i < n; ++i) {
        char c = s[i];
        if (c >= '0' && c <= '9') digits = true;
        else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) alpha = true;
    }
    if (alpha && !digits) {
        /* nan, inf, infinity (any case, any sign): a spelled-out non-finite value */
        size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
        char w[16];
        size_t k = 0;
        for (; i < n && k + 1 < sizeof w; ++i) w[k++] = (char)(s[i] | 0x20);
        w[k] = '\0';
        if (!strcmp(w, "nan") || !strcmp(w, "inf") || !strcmp(w, "infinity")) return PTL_NUM_NONFINITE;
        return PTL_NUM_SYNTAX;
    }
    for (size_t i = 0; i < n; ++i) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E'))
            return PTL_NUM_SYNTAX;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    char* end = NULL;
    double v = strtod(buf, &end);
    if (end != buf + n || !digits) return PTL_NUM_SYNTAX;
    if (!isfinite(v)) return PTL_NUM_NONFINITE;
    *out = v;
    return PTL_NUM_OK;
}

/* A decimal integer with optional sign, |value| <= 2^53 (so it is also exact as a double). */
static inline ptl_num_result ptl_text_parse_int(const char* s, size_t n, int64_t* out) {
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    if (i == n) return PTL_NUM_SYNTAX;
    int64_t v = 0;
    for (; i < n; ++i) {
        if (s[i] < '0' || s[i] > '9') return PTL_NUM_SYNTAX;
        if (v > ((int64_t)1 << 53) / 10) return PTL_NUM_RANGE;
        v = v * 10 + (s[i] - '0');
    }
    if (v > ((int64_t)1 << 53)) return PTL_NUM_RANGE;
    *out = neg ? -v : v;
    return PTL_NUM_OK;
}

/* Splits `s` at runs of spaces and tabs into at most `max` fields; returns the field count
   (which may exceed `max`: only the first `max` are stored). */
static inline uint32_t ptl_text_split_blank(const char* s, size_t n, const char** fs, size_t* fn, uint32_t max) {
    uint32_t k = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t')) ++i;
        if (i >= n) break;
        size_t b = i;
        while (i < n && s[i] != ' ' && s[i] != '\t') ++i;
        if (k < max) {
            fs[k] = s + b;
            fn[k] = i - b;
        }
        ++k;
    }
    return k;
}

#endif
