/* The tile cache as stored (tilecache_pack.h): a container around the part that holds every tile.

   Container layout (native byte order, checked by the endian marker): pack_header, then the
   payload. The payload is the stream, or the stream through the byte coder (method PTL_TC_PACK_LZ);
   the stream is the part's bytes, or with PTL_TC_PACK_SPANS the part's header and seeds as they are,
   six stream lengths (varints), then six streams of one field each:
     hdr:   per tile its ten part_tile fields (zigzag varints), then per gap the span (zigzag delta
            from the previous gap's), the other end (varint), dir and cols (bytes);
     cnt:   per column its span count (varint);
     floor: per span its floor as a zigzag delta from the reference span's (the span of the same
            rank in the column at -x, else at -z, as Recast's compact heightfield keeps neighbour
            columns alike), else from the span below it in its column (0 for the first);
     ceil:  per span its ceiling as a zigzag delta from the reference's, else from its own floor;
     tag:   per span its tag (varint);
     con:   per span its four links (bytes).
   Alike neighbours make the deltas mostly 0 and the links mostly repeat, which the byte coder then
   takes as runs. The checksum (the blob's, runtime/checksum.c, at the same offset) covers
   everything but itself; the unpacked part carries its own, checked when it is read. */
#include <stddef.h>
#include <string.h>

#include "../voxel/filter.h"
#include "parts.h"
#include "tilecache_pack.h"

#define PACK_VERSION 1u
#define PACK_ENDIAN 0x01020304u
#define LZ_MIN 4u         /* shortest match */
#define LZ_WINDOW 65535u  /* farthest match */
#define LZ_DEPTH 48       /* candidates tried per position */
#define LZ_NICE 128       /* a match this long ends the search (runs: halves the time, +0.5% bytes) */
#define LZ_HASH_BITS 16
#define LZ_EXPAND 256u    /* the byte coder's output per input byte is below this (a match of 255 per length byte) */
#define SPANS_EXPAND 5u   /* the stream's part per stream byte is below this (a column: 1 byte for 4) */

typedef struct pack_header {
    char magic[4];        /* "PTLC" */
    uint32_t version;
    uint32_t endian;
    uint32_t header_size;
    uint64_t total_size;  /* the container's bytes (at a part's and a blob's offset) */
    uint64_t checksum;
    uint64_t part_size;   /* the part it unpacks to */
    uint64_t stream_size; /* the stream before the byte coder */
    uint32_t method;      /* PTL_TC_PACK_* bits */
    uint32_t head_size;   /* with PTL_TC_PACK_SPANS: the part's header and seeds */
    uint32_t tile_count;  /* with PTL_TC_PACK_SPANS: the part's tiles */
    uint32_t pad;
} pack_header;
_Static_assert(offsetof(pack_header, total_size) == 16 && offsetof(pack_header, checksum) == 24, "pack layout");
_Static_assert(sizeof(pack_header) == 64 && sizeof(ptl_part_tile) == 40, "pack layout");

enum { S_HDR, S_CNT, S_FLOOR, S_CEIL, S_TAG, S_CON, S_COUNT };

/* ---- Byte buffers ------------------------------------------------------------------------------ */
typedef struct wbuf {
    uint8_t* p;
    size_t n, cap;
    const ptl_allocator* a;
    bool fail;
} wbuf;

static void put_bytes(wbuf* w, const void* src, size_t n) {
    if (w->fail) return;
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->n + n) cap += cap / 2;
        uint8_t* p = ptl_mem_realloc(w->a, w->p, w->cap, cap);
        if (!p) {
            w->fail = true;
            return;
        }
        w->p = p, w->cap = cap;
    }
    memcpy(w->p + w->n, src, n);
    w->n += n;
}
static void put_byte(wbuf* w, uint8_t v) { put_bytes(w, &v, 1); }
static void put_var(wbuf* w, uint32_t v) {
    uint8_t b[5];
    size_t n = 0;
    for (; v >= 0x80; v >>= 7) b[n++] = (uint8_t)(v | 0x80);
    b[n++] = (uint8_t)v;
    put_bytes(w, b, n);
}
static void put_zz(wbuf* w, int32_t v) { put_var(w, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31)); }
static void wbuf_free(wbuf* w) { ptl_mem_free(w->a, w->p, w->cap), w->p = NULL, w->n = w->cap = 0; }

typedef struct rbuf {
    const uint8_t* p;
    size_t n, at;
    bool bad; /* read past the end or a malformed varint */
} rbuf;

static uint8_t get_byte(rbuf* r) {
    if (r->at >= r->n) return r->bad = true, 0;
    return r->p[r->at++];
}
static uint32_t get_var(rbuf* r) {
    uint32_t v = 0;
    for (int s = 0; s < 35; s += 7) {
        uint8_t b = get_byte(r);
        if (s == 28 && b > 0x0f) return r->bad = true, 0;
        v |= (uint32_t)(b & 0x7f) << s;
        if (!(b & 0x80)) return v;
    }
    return r->bad = true, 0;
}
static int32_t get_zz(rbuf* r) {
    uint32_t v = get_var(r);
    return (int32_t)(v >> 1) ^ -(int32_t)(v & 1);
}

/* ---- The spans' streams ------------------------------------------------------------------------- */
static ptl_open_span span_at(const uint8_t* spans, uint32_t i) {
    ptl_open_span o;
    memcpy(&o, spans + (size_t)i * sizeof o, sizeof o);
    return o;
}

/* The reference of rank j in column c (x, z) of a tile w wide (col: its col_start), or -1. */
static int64_t ref_of(const uint32_t* col, uint32_t c, int32_t w, uint32_t j) {
    const uint32_t x = c % (uint32_t)w;
    if (x > 0 && col[c] - col[c - 1] > j) return (int64_t)col[c - 1] + j;
    if (c >= (uint32_t)w && col[c - (uint32_t)w + 1] - col[c - (uint32_t)w] > j) return (int64_t)col[c - (uint32_t)w] + j;
    return -1;
}

/* Codes the tile at b[*at] into the streams; false when the part is not in the bake's form. */
static bool code_tile(const uint8_t* b, size_t size, size_t* at, wbuf* s) {
    ptl_part_tile t;
    if (size - *at < sizeof t) return false;
    memcpy(&t, b + *at, sizeof t);
    const int32_t f[6] = {t.tx, t.tz, t.x0, t.z0, t.w, t.d};
    for (int k = 0; k < 6; ++k) put_zz(&s[S_HDR], f[k]);
    put_var(&s[S_HDR], t.span_count), put_var(&s[S_HDR], t.gap_count);
    put_var(&s[S_HDR], t.solid_spans), put_var(&s[S_HDR], t.pad);
    if (t.w <= 0 || t.d <= 0) return false;
    const uint64_t cols = (uint64_t)t.w * (uint64_t)t.d;
    const uint64_t need = sizeof t + (cols + 1) * 4 + (uint64_t)t.span_count * 16 + (uint64_t)t.gap_count * 12;
    if (need > size - *at) return false;
    const uint32_t* col = (const uint32_t*)(const void*)(b + *at + sizeof t); /* parts are 4-aligned */
    const uint8_t* spans = b + *at + sizeof t + (cols + 1) * 4;
    if (col[0] != 0 || col[cols] != t.span_count) return false;
    for (uint32_t c = 0; c < cols; ++c) {
        if (col[c + 1] < col[c]) return false;
        put_var(&s[S_CNT], col[c + 1] - col[c]);
        for (uint32_t j = 0; j < col[c + 1] - col[c]; ++j) {
            const ptl_open_span o = span_at(spans, col[c] + j);
            if (o.pad != 0 || o.layer != PTL_VX_NONE) return false;
            const int64_t r = ref_of(col, c, t.w, j);
            const ptl_open_span ro = span_at(spans, r >= 0 ? (uint32_t)r : col[c] + j - (j > 0));
            const int32_t below = j > 0 ? ro.floor : 0;
            put_zz(&s[S_FLOOR], (int32_t)o.floor - (r >= 0 ? (int32_t)ro.floor : below));
            put_zz(&s[S_CEIL], (int32_t)o.ceil - (r >= 0 ? (int32_t)ro.ceil : (int32_t)o.floor));
            put_var(&s[S_TAG], o.tag);
            put_bytes(&s[S_CON], o.con, 4);
        }
    }
    const uint8_t* gaps = spans + (size_t)t.span_count * 16;
    uint32_t prev = 0;
    for (uint32_t g = 0; g < t.gap_count; ++g) {
        ptl_vx_gap v;
        memcpy(&v, gaps + (size_t)g * sizeof v, sizeof v);
        if (v.pad != 0) return false;
        put_zz(&s[S_HDR], (int32_t)(v.span - prev));
        put_var(&s[S_HDR], v.other);
        put_byte(&s[S_HDR], v.dir), put_byte(&s[S_HDR], v.cols);
        prev = v.span;
    }
    *at += (size_t)need;
    return true;
}

/* The stream of a part (layout: the file's comment); false when the part is not in the bake's form. */
static bool code_spans(const uint8_t* b, size_t size, const ptl_allocator* a, wbuf* out, uint32_t* head_size,
                       uint32_t* tile_count) {
    uint64_t head;
    uint32_t tiles;
    if (ptl_part_head(b, size, &head, &tiles, NULL) < 0 || head > UINT32_MAX) return false;
    wbuf s[S_COUNT];
    memset(s, 0, sizeof s);
    for (int k = 0; k < S_COUNT; ++k) s[k].a = a;
    size_t at = (size_t)head;
    bool ok = true;
    for (uint32_t i = 0; i < tiles && ok; ++i) ok = code_tile(b, size, &at, s);
    ok = ok && at == size;
    put_bytes(out, b, (size_t)head);
    for (int k = 0; k < S_COUNT; ++k) put_var(out, (uint32_t)s[k].n), ok = ok && s[k].n <= UINT32_MAX && !s[k].fail;
    for (int k = 0; k < S_COUNT; ++k) put_bytes(out, s[k].p, s[k].n), wbuf_free(&s[k]);
    *head_size = (uint32_t)head, *tile_count = tiles;
    return ok && !out->fail;
}

/* A part writer bounded by the size the header claims. */
typedef struct pwriter {
    uint8_t* p;
    size_t n, at;
} pwriter;

static bool pw_room(const pwriter* w, uint64_t n) { return n <= w->n - w->at; }

/* Decodes the spans of a tile whose header and col_start are written (col), from the streams. */
static bool decode_spans(pwriter* w, const uint32_t* col, uint64_t cols, int32_t tw, rbuf* s) {
    const size_t base = w->at;
    for (uint32_t c = 0; c < cols; ++c) {
        for (uint32_t j = 0; j < col[c + 1] - col[c]; ++j) {
            const int64_t r = ref_of(col, c, tw, j);
            ptl_open_span ro;
            memset(&ro, 0, sizeof ro);
            if (r >= 0 || j > 0) ro = span_at(w->p + base, r >= 0 ? (uint32_t)r : col[c] + j - 1);
            ptl_open_span o;
            memset(&o, 0, sizeof o);
            const int64_t fl = (int64_t)get_zz(&s[S_FLOOR]) + (r >= 0 || j > 0 ? ro.floor : 0);
            const int64_t ce = (int64_t)get_zz(&s[S_CEIL]) + (r >= 0 ? ro.ceil : fl);
            const uint32_t tag = get_var(&s[S_TAG]);
            for (int k = 0; k < 4; ++k) o.con[k] = get_byte(&s[S_CON]);
            if (fl < 0 || fl > UINT16_MAX || ce < 0 || ce > UINT16_MAX || tag > UINT16_MAX) return false;
            o.floor = (uint16_t)fl, o.ceil = (uint16_t)ce, o.tag = (uint16_t)tag, o.layer = PTL_VX_NONE;
            memcpy(w->p + base + (size_t)(col[c] + j) * sizeof o, &o, sizeof o);
        }
    }
    return true;
}

/* Decodes one tile from the streams into w; false when the streams do not hold one. */
static bool decode_tile(pwriter* w, rbuf* s) {
    ptl_part_tile t;
    int32_t f[6];
    for (int k = 0; k < 6; ++k) f[k] = get_zz(&s[S_HDR]);
    t.tx = f[0], t.tz = f[1], t.x0 = f[2], t.z0 = f[3], t.w = f[4], t.d = f[5];
    t.span_count = get_var(&s[S_HDR]), t.gap_count = get_var(&s[S_HDR]);
    t.solid_spans = get_var(&s[S_HDR]), t.pad = get_var(&s[S_HDR]);
    if (s[S_HDR].bad || t.w <= 0 || t.d <= 0) return false;
    /* every count bounded by the stream bytes it takes: 1 a column, 4 a span, 4 a gap */
    const uint64_t cols = (uint64_t)t.w * (uint64_t)t.d;
    if (cols > s[S_CNT].n - s[S_CNT].at || t.span_count > (s[S_CON].n - s[S_CON].at) / 4 ||
        t.gap_count > (s[S_HDR].n - s[S_HDR].at) / 4)
        return false;
    const uint64_t need = sizeof t + (cols + 1) * 4 + (uint64_t)t.span_count * 16 + (uint64_t)t.gap_count * 12;
    if (!pw_room(w, need)) return false;
    memcpy(w->p + w->at, &t, sizeof t), w->at += sizeof t;
    uint32_t* col = (uint32_t*)(void*)(w->p + w->at); /* the writer's buffer is allocated, at a multiple of 4 */
    uint64_t sum = 0;
    col[0] = 0;
    for (uint64_t c = 0; c < cols; ++c) {
        sum += get_var(&s[S_CNT]);
        if (sum > t.span_count) return false;
        col[c + 1] = (uint32_t)sum;
    }
    if (sum != t.span_count || s[S_CNT].bad) return false;
    w->at += (size_t)(cols + 1) * 4;
    if (!decode_spans(w, col, cols, t.w, s)) return false;
    w->at += (size_t)t.span_count * 16;
    uint32_t prev = 0;
    for (uint32_t g = 0; g < t.gap_count; ++g) {
        ptl_vx_gap v;
        v.span = prev + (uint32_t)get_zz(&s[S_HDR]);
        v.other = get_var(&s[S_HDR]);
        v.dir = get_byte(&s[S_HDR]), v.cols = get_byte(&s[S_HDR]), v.pad = 0;
        memcpy(w->p + w->at, &v, sizeof v), w->at += sizeof v;
        prev = v.span;
    }
    for (int k = 0; k < S_COUNT; ++k)
        if (s[k].bad) return false;
    return true;
}

/* The part of a stream (code_spans's) into w, which is exactly the part's size. */
static bool decode_stream(const uint8_t* b, size_t n, uint32_t head, uint32_t tiles, pwriter* w) {
    if (head > n || head > w->n || head % 4) return false;
    memcpy(w->p, b, head), w->at = head;
    rbuf r = {b, n, head, false};
    uint32_t len[S_COUNT];
    for (int k = 0; k < S_COUNT; ++k) len[k] = get_var(&r);
    rbuf s[S_COUNT];
    size_t at = r.at;
    for (int k = 0; k < S_COUNT; ++k) {
        if (r.bad || len[k] > n - at) return false;
        s[k] = (rbuf){b + at, len[k], 0, false};
        at += len[k];
    }
    if (at != n) return false;
    for (uint32_t i = 0; i < tiles; ++i)
        if (!decode_tile(w, s)) return false;
    for (int k = 0; k < S_COUNT; ++k)
        if (s[k].at != s[k].n) return false;
    return w->at == w->n;
}

/* ---- The byte coder (LZ77: Ziv and Lempel, "A universal algorithm for sequential data
   compression", IEEE Trans. Inf. Theory 23(3), 1977; sequences laid out as LZ4's block format
   does, a token of two 4-bit lengths, but with the offset as a varint) ------------------------------ */
static void put_len(wbuf* w, uint32_t n) {
    for (; n >= 255; n -= 255) put_byte(w, 255);
    put_byte(w, (uint8_t)n);
}

static void put_seq(wbuf* w, const uint8_t* lit, uint32_t nlit, uint32_t mlen, uint32_t off) {
    const uint32_t m = mlen ? mlen - LZ_MIN : 0;
    put_byte(w, (uint8_t)((nlit < 15 ? nlit : 15) << 4 | (m < 15 ? m : 15)));
    if (nlit >= 15) put_len(w, nlit - 15);
    put_bytes(w, lit, nlit);
    if (!mlen) return;
    put_var(w, off);
    if (m >= 15) put_len(w, m - 15);
}

static uint32_t hash4(const uint8_t* p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return (v * 2654435761u) >> (32 - LZ_HASH_BITS);
}

/* The longest match of in[i..] among the positions chained from head (the nearest of equal
   length), its offset in *off; 0 when none. */
static uint32_t longest(const uint8_t* in, size_t n, size_t i, const int32_t* head, const int32_t* prev, uint32_t* off) {
    uint32_t best = 0;
    int32_t cand = head[hash4(in + i)];
    for (int depth = 0; cand >= 0 && depth < LZ_DEPTH && i - (size_t)cand <= LZ_WINDOW; ++depth) {
        uint32_t len = 0;
        while (i + len < n && in[(size_t)cand + len] == in[i + len]) ++len;
        if (len > best) best = len, *off = (uint32_t)(i - (size_t)cand);
        if (best >= LZ_NICE) break;
        cand = prev[cand];
    }
    return best;
}

/* Codes in[0, n) into w over hash chains of 4-byte prefixes, with one step of lazy matching (a
   match is put off for a longer one at the next byte, as gzip's deflate does). */
static bool lz_encode(const uint8_t* in, size_t n, const ptl_allocator* a, wbuf* w) {
    int32_t* head = ptl_mem_alloc(a, sizeof *head << LZ_HASH_BITS);
    int32_t* prev = ptl_mem_alloc(a, (n + 1) * sizeof *prev);
    if (!head || !prev || n > INT32_MAX) {
        ptl_mem_free(a, head, sizeof *head << LZ_HASH_BITS);
        ptl_mem_free(a, prev, (n + 1) * sizeof *prev);
        return false;
    }
    memset(head, 0xff, sizeof *head << LZ_HASH_BITS);
    size_t i = 0, lit = 0;
    while (i + LZ_MIN <= n) {
        uint32_t off = 0, next_off = 0;
        const uint32_t best = longest(in, n, i, head, prev, &off);
        const uint32_t h = hash4(in + i);
        prev[i] = head[h], head[h] = (int32_t)i;
        if (best < LZ_MIN || (i + 1 + LZ_MIN <= n && longest(in, n, i + 1, head, prev, &next_off) > best)) {
            ++i;
            continue;
        }
        put_seq(w, in + lit, (uint32_t)(i - lit), best, off);
        for (size_t k = i + 1; k < i + best && k + LZ_MIN <= n; ++k) {
            const uint32_t hk = hash4(in + k);
            prev[k] = head[hk], head[hk] = (int32_t)k;
        }
        i += best, lit = i;
    }
    if (lit < n || n == 0) put_seq(w, in + lit, (uint32_t)(n - lit), 0, 0);
    ptl_mem_free(a, head, sizeof *head << LZ_HASH_BITS);
    ptl_mem_free(a, prev, (n + 1) * sizeof *prev);
    return !w->fail;
}

static bool get_len(rbuf* r, uint64_t* v, uint64_t cap) {
    for (uint8_t b = 255; b == 255 && *v <= cap;) *v += (b = get_byte(r));
    return !r->bad && *v <= cap;
}

/* Decodes r into out[0, n), which it must fill exactly. */
static bool lz_decode(rbuf* r, uint8_t* out, size_t n) {
    size_t at = 0;
    while (at < n || r->at < r->n) {
        const uint8_t tok = get_byte(r);
        uint64_t nlit = tok >> 4, m = tok & 15;
        if (r->bad || (nlit == 15 && !get_len(r, &nlit, n - at))) return false;
        if (nlit > n - at || nlit > r->n - r->at) return false;
        memcpy(out + at, r->p + r->at, (size_t)nlit), at += (size_t)nlit, r->at += (size_t)nlit;
        if (at == n) return r->at == r->n; /* the last sequence: literals alone */
        const uint32_t off = get_var(r);
        if (r->bad || off == 0 || off > at || (m == 15 && !get_len(r, &m, n - at))) return false;
        m += LZ_MIN;
        if (m > n - at) return false;
        for (size_t k = 0; k < m; ++k, ++at) out[at] = out[at - off]; /* overlapping: a run */
    }
    return at == n;
}

/* ---- The container ------------------------------------------------------------------------------ */
bool ptl_tc_is_packed(const void* data, size_t size) { return data && size >= 4 && !memcmp(data, "PTLC", 4); }

ptl_status ptl_tc_pack(const void* part, size_t size, uint32_t methods, const ptl_allocator* a, void** out,
                       size_t* out_size, ptl_error* err) {
    *out = NULL, *out_size = 0;
    pack_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "PTLC", 4);
    h.version = PACK_VERSION, h.endian = PACK_ENDIAN, h.header_size = sizeof h;
    h.part_size = size;
    wbuf stream = {NULL, 0, 0, a, false}, lz = {NULL, 0, 0, a, false};
    const uint8_t* s = part;
    size_t n = size;
    if ((methods & PTL_TC_PACK_SPANS) && code_spans(part, size, a, &stream, &h.head_size, &h.tile_count))
        h.method |= PTL_TC_PACK_SPANS, s = stream.p, n = stream.n;
    else if (stream.fail) return wbuf_free(&stream), ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory packing");
    else wbuf_free(&stream), h.head_size = h.tile_count = 0;
    h.stream_size = n;
    put_bytes(&lz, &h, sizeof h);
    if ((methods & PTL_TC_PACK_LZ) && lz_encode(s, n, a, &lz) && lz.n - sizeof h < n) {
        h.method |= PTL_TC_PACK_LZ;
    } else {
        lz.n = 0, lz.fail = false;
        put_bytes(&lz, &h, sizeof h), put_bytes(&lz, s, n);
    }
    wbuf_free(&stream);
    if (lz.fail) return wbuf_free(&lz), ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory packing");
    h.total_size = lz.n;
    memcpy(lz.p, &h, sizeof h);
    const uint64_t sum = ptl_blob_checksum(lz.p, lz.n);
    memcpy(lz.p + offsetof(pack_header, checksum), &sum, sizeof sum);
    /* exactly sized: the caller frees *out_size bytes */
    uint8_t* p = ptl_mem_realloc(a, lz.p, lz.cap, lz.n);
    if (!p) return wbuf_free(&lz), ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory packing");
    *out = p, *out_size = lz.n;
    return PTL_OK;
}

/* Header checks of a packed cache. */
static ptl_status check_pack_header(const uint8_t* b, size_t size, pack_header* h, ptl_error* err) {
    if (size < sizeof *h) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "tile cache: truncated (%zu bytes)", size);
    memcpy(h, b, sizeof *h);
    if (h->endian != PACK_ENDIAN) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "tile cache: other byte order");
    if (h->version != PACK_VERSION || h->header_size != sizeof *h)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "tile cache: version %u, this build reads %u", h->version, PACK_VERSION);
    if (h->total_size != size)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "tile cache: truncated (%zu bytes of %llu)", size,
                             (unsigned long long)h->total_size);
    if (ptl_blob_checksum(b, size) != h->checksum)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "tile cache: checksum mismatch (corrupted)");
    const uint64_t payload = size - sizeof *h;
    const bool lz = h->method & PTL_TC_PACK_LZ, spans = h->method & PTL_TC_PACK_SPANS;
    const bool ok = !(h->method & ~(PTL_TC_PACK_LZ | PTL_TC_PACK_SPANS)) && !h->pad &&
                    (lz ? h->stream_size <= payload * LZ_EXPAND : h->stream_size == payload) &&
                    (spans ? h->part_size <= h->stream_size * SPANS_EXPAND && h->head_size <= h->stream_size
                           : h->part_size == h->stream_size && !h->head_size && !h->tile_count) &&
                    h->part_size >= 32 && h->part_size <= SIZE_MAX / 2 && h->stream_size <= SIZE_MAX / 2;
    if (!ok) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "tile cache: malformed header (method or sizes past what its %llu bytes can hold)",
                                  (unsigned long long)payload);
    return PTL_OK;
}

ptl_status ptl_tc_unpack(const void* data, size_t size, const ptl_allocator* a, void** part, size_t* part_size,
                         ptl_error* err) {
    *part = NULL, *part_size = 0;
    const uint8_t* b = data;
    pack_header h;
    ptl_status st = check_pack_header(b, size, &h, err);
    if (st < 0) return st;
    const size_t sn = (size_t)h.stream_size, pn = (size_t)h.part_size;
    uint8_t* stream = NULL;
    const uint8_t* s = b + sizeof h;
    if (h.method & PTL_TC_PACK_LZ) {
        if (!(stream = ptl_mem_alloc(a, sn))) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
        rbuf r = {b + sizeof h, size - sizeof h, 0, false};
        if (!lz_decode(&r, stream, sn)) st = ptl_error_set(err, PTL_ERR_BAD_BLOB, "tile cache: malformed compressed data");
        s = stream;
    }
    uint8_t* out = NULL;
    if (st >= 0 && !(out = ptl_mem_alloc(a, pn))) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    if (st >= 0 && (h.method & PTL_TC_PACK_SPANS)) {
        pwriter w = {out, pn, 0};
        if (!decode_stream(s, sn, h.head_size, h.tile_count, &w))
            st = ptl_error_set(err, PTL_ERR_BAD_BLOB, "tile cache: malformed span streams");
    } else if (st >= 0) {
        memcpy(out, s, pn);
    }
    if (stream) ptl_mem_free(a, stream, sn);
    if (st < 0) {
        if (out) ptl_mem_free(a, out, pn);
        return st;
    }
    *part = out, *part_size = pn;
    return PTL_OK;
}
