/* Open field -> layers: connected sets of open spans, at most one per column, so that each layer
   is a 2D floor plan (ANavMG thesis, Oliva 2012, §6.2.2.2, "ordered flooding"), then the layers
   reachable from seed points (the same section's last step).

   Ordered flooding: the spans are visited bottom to top (floor, then z, then x). A span without a
   layer starts a new one. A span hands its layer to each linked neighbour that has none, unless
   the layer already has a span in that neighbour's column (a layer never covers a column twice);
   when a linked neighbour is in another layer, the two layers merge if their column sets do not
   overlap. Beyond the thesis, a span joins a layer (and two layers merge) only if every pair of its
   spans standing side by side is linked (links_agree): contours are traced from the columns a
   layer covers, so an unlinked pair inside one layer would become walkable. Ramps and stairs climb
   into the layer of the floor they start from; a bridge meets the floor below in plan and stays a layer of its own; a spiral ramp is cut where it would come back
   over itself. Each link is looked at after both its spans have a layer (when the later one is
   visited), and a failed merge stays failed (layers only grow), so at the end every linked pair of
   different layers overlaps in plan.

   Blocks: the flood runs in blocks of PTL_VX_LAYER_BLOCK x PTL_VX_LAYER_BLOCK columns fixed in the
   world's grid, each on its own (as jobs; the links leaving a block are not followed), and the
   block-layers are then stitched across block borders by the same rules (layer_stitch.c), the
   way Saupin et al. 2014 (§4.1.4, §4.3) stitch the regions of tiles. The blocks come a row at a
   time (layer_stream.c: bands of the world's rows, as the rows of tiles finish), so the layers
   depend neither on the threads nor on how the bake is tiled, and no open field of the whole world
   is needed. They are not the one flood's over the whole field where its choices depended on the
   order in which it reached a block: on Recast's meshes only nav_test changes (19 layers, 119 cells
   -> 18 layers, 107 cells; tests/test_voxel.c checks the rules on every layer set).

   Bookkeeping: layers are a union-find over layer ids with, per root, its span count, its spans as
   a linked list and its bounding box in columns. "Does layer L have a span in column c" scans the
   few spans of c; "do A and B overlap" first compares bounding boxes, then walks the smaller
   layer's spans and scans their columns, and remembers the pairs found overlapping (a hash set:
   only a cache, it never decides an answer, and is never iterated). Merging appends the smaller
   list to the larger. The visiting order of a block is a counting sort on the floor over its spans.
   Work is O(n log n) in the spans apart from repeated overlap scans of pairs that do not overlap,
   which then merge.

   Reachability, islands and the numbering of the layers are done on the stitched block-layers
   (layer_stream.c, the end of the stream). This file keeps the flood of one block. */
#include <string.h>

#include "../../runtime/internal.h"
#include "../voxel/col_index.h"
#include "../voxel/filter.h"
#include "../voxel/tiles.h"
#include "../voxel/vx_params.h"
#include "layer_stitch.h"
#include "layers.h"

/* A layer id's union-find node; size, list and box are meaningful at roots only. */
typedef struct lnode {
    uint32_t parent, size; /* spans */
    uint32_t head, tail;   /* first and last span of its list */
    int32_t box[4];        /* x0, z0, x1, z1 */
} lnode;

typedef struct flood {
    ptl_open_field* of;
    ptl_open_span* sp;   /* the field's spans: their `layer` is the flood's label, a layer id (not
                            necessarily a root; PTL_VX_NONE: none yet) */
    uint32_t* next;      /* span -> next span of its layer's list */
    PTL_ARRAY(lnode) ln; /* layer id -> node */
    ptl_pair_set seen;   /* root pairs found incompatible (a cache: a failed insert only forgets) */
    const ptl_allocator* a;
    uint32_t off[4];     /* the column offsets of the directions (ptl_filter_ncol), set once */
} flood;

static uint32_t find(flood* f, uint32_t l) {
    lnode* n = f->ln.data;
    while (n[l].parent != l) {
        n[l].parent = n[n[l].parent].parent;
        l = n[l].parent;
    }
    return l;
}

/* The root of span t's layer (t has one), written back as its label: labels only ever stand for
   their roots, so later look-ups of t start at the root instead of walking the merges again. */
static uint32_t span_root(flood* f, uint32_t t) {
    const uint32_t l = find(f, f->sp[t].layer);
    f->sp[t].layer = l;
    return l;
}

/* Is span t (with or without a layer) in root layer l? A label equal to l is l's span with no look-up
   (l being a root, find and the write-back would change nothing): most look-ups, as spans take the
   root of the span that hands them their layer. */
static inline bool in_layer(flood* f, uint32_t t, uint32_t l) {
    const uint32_t x = f->sp[t].layer;
    return x == l || (x != PTL_VX_NONE && span_root(f, t) == l);
}

/* The root of span t's layer (t has one), l being a root already known: no look-up when t's label
   is l. */
static inline uint32_t span_root_near(flood* f, uint32_t t, uint32_t l) {
    return f->sp[t].layer == l ? l : span_root(f, t);
}

static void box_add(int32_t* b, int32_t x, int32_t z) {
    if (x < b[0]) b[0] = x;
    if (z < b[1]) b[1] = z;
    if (x > b[2]) b[2] = x;
    if (z > b[3]) b[3] = z;
}

/* The column of span s in the block: x and z, which block_copy keeps in the span's pad (x | z << 8;
   a block is at most 32 columns wide), so the flood never divides its column index by the width. */
_Static_assert(PTL_VX_LAYER_BLOCK <= 256, "a block's x and z fit a byte each");
static inline uint32_t span_x(const flood* f, uint32_t s) {
    return f->sp[s].pad & 0xffu;
}
static inline uint32_t span_z(const flood* f, uint32_t s) {
    return (uint32_t)f->sp[s].pad >> 8;
}

/* Gives span s to root layer l. */
static void join(flood* f, uint32_t s, uint32_t l) {
    lnode* n = &f->ln.data[l];
    f->sp[s].layer = l;
    f->next[s] = PTL_VX_NONE;
    f->next[n->tail] = s;
    n->tail = s;
    ++n->size;
    box_add(n->box, (int32_t)span_x(f, s), (int32_t)span_z(f, s));
}

/* A new layer holding span s; PTL_VX_NONE when out of memory. */
static uint32_t new_layer(flood* f, uint32_t s) {
    const uint32_t l = f->ln.count;
    const int32_t x = (int32_t)span_x(f, s), z = (int32_t)span_z(f, s);
    lnode n = {l, 1, s, s, {x, z, x, z}};
    if (!PTL_PUSH(f->a, f->ln, n)) return PTL_VX_NONE;
    f->next[s] = PTL_VX_NONE;
    f->sp[s].layer = l;
    return l;
}

/* Does root layer l have a span in column c, whose first span is b? `width`: the column index's
   (ptl_col_index_at_w; the flood's functions are compiled once per width). */
static PTL_VX_INLINE_ALWAYS bool column_has(flood* f, uint32_t c, uint32_t b, uint32_t l, uint32_t width) {
    const uint32_t e = ptl_col_index_at_w(&f->of->col_index, c + 1, width);
    for (uint32_t t = b; t < e; ++t)
        if (in_layer(f, t, l)) return true;
    return false;
}

/* Column offsets of the neighbour directions (0: -x, 1: +z, 2: +x, 3: -z). */
/* Is span s linked to every span root layer l has in s's neighbouring columns? A layer must never
   hold two side-by-side spans that are not linked (a ledge higher than the climb, or the floor under
   a stair whose step is linked to the flight above): its contours come from the columns it covers,
   and would let a path walk across. With this rule every layer boundary between two linked spans
   is a junction seen from both sides, and every other one a wall. */
static PTL_VX_INLINE_ALWAYS bool links_agree(flood* f, uint32_t s, uint32_t l, uint32_t width) {
    const ptl_open_field* of = f->of;
    const ptl_vx_col_index* ix = &of->col_index;
    const uint32_t w = (uint32_t)of->p.width, c = of->col_of[s], x = span_x(f, s), z = span_z(f, s);
    const bool in[4] = {x > 0, z + 1 < (uint32_t)of->p.depth, x + 1 < w, z > 0};
    for (int d = 0; d < 4; ++d) {
        if (!in[d]) continue;
        const uint32_t nc = c + f->off[d];
        const uint32_t b = ptl_col_index_at_w(ix, nc, width), e = ptl_col_index_at_w(ix, nc + 1, width);
        for (uint32_t t = b; t < e; ++t)
            if (t - b != of->spans[s].con[d] && in_layer(f, t, l))
                return false;
    }
    return true;
}

/* May roots a and b merge: no common column, and every pair of their spans side by side linked?
   Incompatible pairs are remembered (layers only grow, so they stay incompatible). */
static bool incompatible(flood* f, uint32_t a, uint32_t b) {
    const int32_t *ba = f->ln.data[a].box, *bb = f->ln.data[b].box;
    /* Boxes apart by more than a column: neither shared columns nor side-by-side spans. */
    if (ba[0] > bb[2] + 1 || bb[0] > ba[2] + 1 || ba[1] > bb[3] + 1 || bb[1] > ba[3] + 1) return false;
    uint64_t k = ptl_pair_key(a, b);
    if (ptl_pair_set_has(&f->seen, k)) return true;
    uint32_t small = f->ln.data[a].size <= f->ln.data[b].size ? a : b, big = small == a ? b : a;
    const ptl_vx_col_index* ix = &f->of->col_index;
    for (uint32_t s = f->ln.data[small].head; s != PTL_VX_NONE; s = f->next[s]) {
        const uint32_t c = f->of->col_of[s];
        if (column_has(f, c, ptl_col_index_at(ix, c), big, ix->width) || !links_agree(f, s, big, ix->width)) {
            (void)ptl_pair_set_add(&f->seen, k, f->a);
            return true;
        }
    }
    return false;
}

/* Merges roots a and b; the larger (then the lower id) stays the root. */
static uint32_t merge(flood* f, uint32_t a, uint32_t b) {
    lnode* n = f->ln.data;
    if (n[b].size > n[a].size || (n[b].size == n[a].size && b < a)) {
        uint32_t t = a;
        a = b, b = t;
    }
    n[b].parent = a;
    n[a].size += n[b].size;
    f->next[n[a].tail] = n[b].head;
    n[a].tail = n[b].tail;
    box_add(n[a].box, n[b].box[0], n[b].box[1]);
    box_add(n[a].box, n[b].box[2], n[b].box[3]);
    return a;
}

/* Visits the spans list[0 .. count) in turn (list NULL: spans 0 .. count - 1), `width` being the
   column index's (compiled once per width, see ptl_col_index_at_w). */
static PTL_VX_INLINE_ALWAYS bool flood_spans_w(flood* f, const uint32_t* list, uint32_t count, uint32_t width) {
    const ptl_open_field* of = f->of;
    const ptl_vx_col_index* ix = &of->col_index;
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t s = list ? list[i] : i;
        uint32_t l = f->sp[s].layer == PTL_VX_NONE ? new_layer(f, s) : span_root(f, s);
        if (l == PTL_VX_NONE) return false;
        for (int d = 0; d < 4; ++d) {
            const uint32_t k = f->sp[s].con[d]; /* ptl_filter_nbr, at this width */
            if (k == PTL_VX_NOCON) continue;
            const uint32_t nc = of->col_of[s] + f->off[d], b = ptl_col_index_at_w(ix, nc, width), t = b + k;
            if (f->sp[t].layer == PTL_VX_NONE) {
                if (!column_has(f, nc, b, l, width) && links_agree(f, t, l, width)) join(f, t, l);
                continue;
            }
            uint32_t m = span_root_near(f, t, l);
            if (m != l && !incompatible(f, l, m)) l = merge(f, l, m);
        }
    }
    return true;
}

static bool flood_spans(flood* f, const uint32_t* list, uint32_t count) {
    switch (f->of->col_index.width) {
    case 1: return flood_spans_w(f, list, count, 1);
    case 2: return flood_spans_w(f, list, count, 2);
    default: return flood_spans_w(f, list, count, 4);
    }
}

/* links_agree in a field (plain index) whose every column holds at most one span: t's only
   neighbour in direction d is that column's span, which t is linked to unless con[d] is
   PTL_VX_NOCON, so only the unlinked sides are looked at (the same look-ups, in the same order). */
static bool links_agree_single(flood* f, uint32_t t, uint32_t l) {
    const ptl_open_field* of = f->of;
    const uint32_t* cs = of->col_index.off.u32;
    const uint8_t* con = f->sp[t].con;
    if (!((con[0] == PTL_VX_NOCON) | (con[1] == PTL_VX_NOCON) | (con[2] == PTL_VX_NOCON) | (con[3] == PTL_VX_NOCON)))
        return true; /* linked on every side (most spans): nothing to look at */
    const uint32_t w = (uint32_t)of->p.width, c = of->col_of[t], x = span_x(f, t), z = span_z(f, t);
    const bool in[4] = {x > 0, z + 1 < (uint32_t)of->p.depth, x + 1 < w, z > 0};
    for (int d = 0; d < 4; ++d) {
        if (con[d] != PTL_VX_NOCON || !in[d]) continue;
        const uint32_t nc = c + f->off[d], u = cs[nc];
        if (u < cs[nc + 1] && in_layer(f, u, l)) return false;
    }
    return true;
}

/* flood_spans in a field (plain index) whose every column holds at most one span (a block of a
   terrain, or of one storey): a neighbour t without a layer is alone in its column, so the column
   test (column_has) always passes, and links_agree_single replaces links_agree. The same joins and
   merges as flood_spans, in the same order. */
static bool flood_spans_single(flood* f, const uint32_t* list, uint32_t count) {
    const ptl_open_field* of = f->of;
    const uint32_t* cs = of->col_index.off.u32;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t s = list[i];
        uint32_t l = f->sp[s].layer == PTL_VX_NONE ? new_layer(f, s) : span_root(f, s);
        if (l == PTL_VX_NONE) return false;
        for (int d = 0; d < 4; ++d) {
            const uint32_t k = f->sp[s].con[d];
            if (k == PTL_VX_NOCON) continue;
            const uint32_t t = cs[of->col_of[s] + f->off[d]] + k;
            if (f->sp[t].layer == PTL_VX_NONE) {
                if (links_agree_single(f, t, l)) join(f, t, l);
                continue;
            }
            uint32_t m = span_root_near(f, t, l);
            if (m != l && !incompatible(f, l, m)) l = merge(f, l, m);
        }
    }
    return true;
}

void ptl_layer_set_free(ptl_layer_set* ls) {
    if (!ls) return;
    if (ls->alloc.free) ptl_mem_free(&ls->alloc, ls->layers, (size_t)ls->layer_count * sizeof *ls->layers);
    memset(ls, 0, sizeof *ls);
}

/* ---- Blocks ------------------------------------------------------------------------------------ */

typedef ptl_vx_block_out block_out;
typedef ptl_vx_block_jobs block_jobs;

void ptl_layers_block_out_free(ptl_vx_block_out* o, const ptl_allocator* a) {
    ptl_mem_free(a, o->conflicts, (size_t)o->conflict_cap * sizeof *o->conflicts);
    ptl_mem_free(a, o->lowest, (size_t)o->lowest_cap * sizeof *o->lowest);
    o->conflicts = NULL, o->lowest = NULL, o->conflict_cap = o->lowest_cap = 0;
}

/* Block b's spans' block-layers to ids over the field (its rows are ranges of the field's spans). */
void ptl_layers_relabel_block(void* data, uint32_t b) {
    block_jobs* j = data;
    ptl_open_field* of = j->of;
    const uint32_t B = PTL_VX_LAYER_BLOCK, W = (uint32_t)of->p.width, D = (uint32_t)of->p.depth;
    const uint32_t x0 = (b % j->nbx) * B, z0 = (b / j->nbx) * B;
    const uint32_t w = W - x0 < B ? W - x0 : B, d = D - z0 < B ? D - z0 : B, base = j->base[b];
    for (uint32_t z = 0; z < d; ++z) {
        const uint32_t c = (z0 + z) * W + x0, e = ptl_filter_col_begin(of, c + w);
        for (uint32_t s = ptl_filter_col_begin(of, c); s < e; ++s) of->spans[s].layer += base;
    }
}

/* The conflicts of a block's field whose spans carry block-layers: two spans in one column, or
   side by side inside the block and not linked (the pairs links_agree refuses). */
static bool block_conflicts(const ptl_open_field* bf, const ptl_allocator* a, block_out* o) {
    ptl_pair_set set; /* the same pairs come back column after column: kept once as they come */
    memset(&set, 0, sizeof set);
    const uint32_t w = (uint32_t)bf->p.width, d = (uint32_t)bf->p.depth;
    const uint32_t* cs = bf->col_index.off.u32;
    const ptl_open_span* sp = bf->spans;
    for (uint32_t z = 0; z < d; ++z)
        for (uint32_t x = 0; x < w; ++x) {
            const uint32_t c = z * w + x, b = cs[c], e = cs[c + 1];
            if (b == e) continue;
            /* the spans of the next columns in +z and in +x (none outside the block) */
            const uint32_t zb = z + 1 < d ? cs[c + w] : 0, ze = z + 1 < d ? cs[c + w + 1] : 0;
            const uint32_t xb = x + 1 < w ? cs[c + 1] : 0, xe = x + 1 < w ? cs[c + 2] : 0;
            for (uint32_t i = b; i < e; ++i) {
                for (uint32_t j = i + 1; j < e; ++j)
                    if (!ptl_pair_set_add(&set, ptl_pair_key(sp[i].layer, sp[j].layer), a)) goto oom;
                for (uint32_t k = zb; k < ze; ++k)
                    if (sp[i].con[1] != k - zb && !ptl_pair_set_add(&set, ptl_pair_key(sp[i].layer, sp[k].layer), a)) goto oom;
                for (uint32_t k = xb; k < xe; ++k)
                    if (sp[i].con[2] != k - xb && !ptl_pair_set_add(&set, ptl_pair_key(sp[i].layer, sp[k].layer), a)) goto oom;
            }
        }
    if (!ptl_pair_set_sorted(&set, a, &o->conflicts, &o->conflict_count)) goto oom;
    o->conflict_cap = set.cap;
    return true;
oom:
    ptl_pair_set_free(&set, a);
    return false;
}

/* Areas (areas.c): neighbouring spans of different areas are not linked inside a block, so the
   flood never puts them in one layer (a layer holds one area) and the block's conflicts keep them
   apart; the world's field keeps the link, so the border is a junction (layer_stream.c lists it as
   a link run, the stitch never pairs it: border_pair), which the merge turns into a portal
   (layer_merge.c): cells never mix areas. */
static void cut_area_borders(ptl_open_field* bf) {
    const uint32_t* cs = bf->col_index.off.u32;
    for (uint32_t s = 0; s < bf->span_count; ++s)
        for (int d = 0; d < 4; ++d) {
            const uint32_t k = bf->spans[s].con[d];
            if (k == PTL_VX_NOCON) continue;
            const uint32_t t = cs[ptl_filter_ncol(bf->p.width, bf->col_of[s], d)] + k;
            if (bf->spans[t].tag != bf->spans[s].tag) bf->spans[s].con[d] = PTL_VX_NOCON;
        }
}

/* Copies the block at (x0, z0) of `of` into bf (its size and arrays set, n spans), the links
   leaving the block cut; map: block span -> field span. True when every column of the block holds
   at most one span. */
static bool block_copy(const ptl_open_field* of, uint32_t x0, uint32_t z0, ptl_open_field* bf, uint32_t* cs,
                       uint32_t* map, uint32_t n) {
    const uint32_t W = (uint32_t)of->p.width, w = (uint32_t)bf->p.width, d = (uint32_t)bf->p.depth;
    uint32_t k = 0;
    bool single = true;
    for (uint32_t z = 0; z < d; ++z) {
        const uint32_t c0 = (z0 + z) * W + x0;
        if (ptl_filter_col_begin(of, c0 + w) == ptl_filter_col_begin(of, c0)) { /* an empty row */
            for (uint32_t x = 0; x < w; ++x) cs[z * w + x] = k;
            continue;
        }
        for (uint32_t x = 0; x < w; ++x) {
            const uint32_t c = c0 + x, e = ptl_filter_col_end(of, c);
            cs[z * w + x] = k;
            single &= e - ptl_filter_col_begin(of, c) <= 1;
            for (uint32_t s = ptl_filter_col_begin(of, c); s < e; ++s, ++k) {
                /* copied whole, then changed in place (not built on the stack: its narrow stores
                   read back as 16 bytes would stall) */
                ptl_open_span* sp = &bf->spans[k];
                *sp = of->spans[s];
                if (x == 0) sp->con[0] = PTL_VX_NOCON; /* links leaving the block */
                if (z + 1 == d) sp->con[1] = PTL_VX_NOCON;
                if (x + 1 == w) sp->con[2] = PTL_VX_NOCON;
                if (z == 0) sp->con[3] = PTL_VX_NOCON;
                sp->layer = PTL_VX_NONE;
                sp->pad = (uint16_t)(x | z << 8); /* the flood's span_x, span_z */
                bf->col_of[k] = z * w + x, map[k] = s;
            }
        }
    }
    cs[(size_t)w * d] = n;
    bf->col_index.off.u32 = cs, bf->col_index.cols = w * d, bf->col_index.width = 4, bf->col_index.filled = w * d + 1;
    bf->span_count = bf->span_cap = n;
    if (bf->p.has_areas) cut_area_borders(bf); /* a bake without areas: every tag 0, nothing to cut */
    return single;
}

/* Floods the block's n spans in the flood's (floor, z, x) order (a counting sort over the block's
   own floors); then the block-layers get ids in order of creation (*dense, *nl: the flood's layers
   to those ids), a layer's lowest span being the first visited. */
static bool block_flood(flood* f, const ptl_open_field* bf, const uint32_t* map, uint32_t n, bool single,
                        const ptl_allocator* a, block_out* o, uint32_t** dense, size_t* nl) {
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t h = bf->spans[i].floor;
        lo = h < lo ? h : lo, hi = h > hi ? h : hi;
    }
    const size_t nh = (size_t)(hi - lo) + 2;
    uint32_t* count = ptl_mem_calloc(a, nh, sizeof *count);
    uint32_t* order = ptl_mem_alloc(a, (size_t)n * sizeof *order);
    bool ok = count && order;
    if (ok) {
        for (uint32_t i = 0; i < n; ++i) ++count[bf->spans[i].floor - lo + 1];
        for (size_t h = 1; h < nh; ++h) count[h] += count[h - 1];
        for (uint32_t i = 0; i < n; ++i) order[count[bf->spans[i].floor - lo]++] = i;
        ok = single ? flood_spans_single(f, order, n) : flood_spans(f, order, n);
    }
    if (ok) {
        *nl = f->ln.count;
        *dense = ptl_mem_alloc(a, (*nl ? *nl : 1) * sizeof **dense);
        o->lowest = ptl_mem_alloc(a, (*nl ? *nl : 1) * sizeof *o->lowest);
        o->lowest_cap = o->lowest ? (*nl ? (uint32_t)*nl : 1) : 0;
        ok = *dense && o->lowest;
    }
    if (ok) {
        uint32_t k = 0;
        for (uint32_t l = 0; l < *nl; ++l) (*dense)[l] = find(f, l) == l ? k++ : PTL_VX_NONE;
        o->layer_count = k;
        for (uint32_t l = 0; l < k; ++l) o->lowest[l] = UINT64_MAX;
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t sp = order[i], l = (*dense)[find(f, bf->spans[sp].layer)];
            if (o->lowest[l] == UINT64_MAX) o->lowest[l] = (uint64_t)bf->spans[sp].floor << 32 | map[sp];
        }
    }
    ptl_mem_free(a, count, nh * sizeof *count);
    ptl_mem_free(a, order, (size_t)n * sizeof *order);
    return ok;
}

/* Floods block b on its own: its columns copied into a field of their own, the links leaving the
   block cut, the ordered flood run there (the rules above, within the block), and the block-layers
   (ids in order of creation, so in order of their lowest span) written back to the field's spans,
   which no other block touches. */
void ptl_layers_flood_block(void* data, uint32_t b) {
    block_jobs* j = data;
    ptl_open_field* of = j->of;
    const ptl_allocator* a = j->a;
    block_out* o = &j->out[b];
    const uint32_t B = PTL_VX_LAYER_BLOCK, W = (uint32_t)of->p.width, D = (uint32_t)of->p.depth;
    const uint32_t x0 = (b % j->nbx) * B, z0 = (b / j->nbx) * B;
    const uint32_t w = W - x0 < B ? W - x0 : B, d = D - z0 < B ? D - z0 : B;
    /* A row of the block is a run of consecutive columns, so its spans are one range of the field's. */
    uint32_t n = 0;
    for (uint32_t z = 0; z < d; ++z) {
        const uint32_t c = (z0 + z) * W + x0;
        n += ptl_filter_col_begin(of, c + w) - ptl_filter_col_begin(of, c);
    }
    o->st = PTL_OK;
    if (n == 0) return;
    ptl_open_field bf;
    memset(&bf, 0, sizeof bf);
    bf.p = of->p;
    bf.p.width = (int32_t)w, bf.p.depth = (int32_t)d;
    bf.alloc = *a;
    uint32_t* cs = ptl_mem_alloc(a, ((size_t)w * d + 1) * sizeof *cs);
    uint32_t* map = ptl_mem_alloc(a, (size_t)n * sizeof *map); /* block span -> field span */
    bf.spans = ptl_mem_alloc(a, (size_t)n * sizeof *bf.spans);
    bf.col_of = ptl_mem_alloc(a, (size_t)n * sizeof *bf.col_of);
    flood f;
    memset(&f, 0, sizeof f);
    f.of = &bf, f.a = a, f.sp = bf.spans;
    for (int d = 0; d < 4; ++d) f.off[d] = ptl_filter_ncol((int32_t)w, 0, d);
    f.next = ptl_mem_alloc(a, (size_t)n * sizeof *f.next);
    uint32_t* dense = NULL;
    size_t nl = 0;
    bool ok = cs && map && bf.spans && bf.col_of && f.next;
    if (ok) {
        const bool single = block_copy(of, x0, z0, &bf, cs, map, n);
        ok = block_flood(&f, &bf, map, n, single, a, o, &dense, &nl);
    }
    if (ok) {
        for (uint32_t i = 0; i < n; ++i) {
            bf.spans[i].layer = dense[find(&f, bf.spans[i].layer)];
            of->spans[map[i]].layer = bf.spans[i].layer;
        }
        /* a conflict pairs two block-layers (two spans of one column, or side by side and not
           linked, are never in one: the flood's rules), so a block of one has none */
        if (o->layer_count > 1) ok = block_conflicts(&bf, a, o);
        else o->conflict_count = 0;
    }
    if (!ok) o->st = PTL_ERR_NO_MEMORY;
    ptl_mem_free(a, dense, (nl ? nl : 1) * sizeof *dense);
    ptl_mem_free(a, f.next, (size_t)n * sizeof *f.next);
    PTL_ARRAY_FREE(a, f.ln);
    ptl_pair_set_free(&f.seen, a);
    ptl_mem_free(a, cs, ((size_t)w * d + 1) * sizeof *cs);
    ptl_mem_free(a, map, (size_t)n * sizeof *map);
    ptl_mem_free(a, bf.spans, (size_t)n * sizeof *bf.spans);
    ptl_mem_free(a, bf.col_of, (size_t)n * sizeof *bf.col_of);
}

