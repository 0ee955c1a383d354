/* Open field -> layers: connected sets of open spans, at most one per column, so that each layer
   is a 2D floor plan (ANavMG thesis, Oliva 2012, §6.2.2.2, "ordered flooding"), then the layers
   reachable from seed points (the same section's last step).

   Ordered flooding: the spans are visited bottom to top (floor, then z, then x). A span without a
   layer starts a new one. A span hands its layer to each linked neighbour that has none, unless
   the layer already has a span in that neighbour's column (a layer never covers a column twice);
   when a linked neighbour is in another layer, the two layers merge if their column sets do not
   overlap. Beyond the thesis, a span joins a layer (and two layers merge) only if every pair of its
   spans standing side by side is linked (links_agree): contours are traced from the columns a
   layer covers, so an unlinked pair inside one layer would become walkable. Ramps and stairs climb into the layer of the floor they start from; a bridge meets the
   floor below in plan and stays a layer of its own; a spiral ramp is cut where it would come back
   over itself. Each link is looked at after both its spans have a layer (when the later one is
   visited), and a failed merge stays failed (layers only grow), so at the end every linked pair of
   different layers overlaps in plan.

   Bookkeeping: layers are a union-find over layer ids with, per root, its span count, its spans as
   a linked list and its bounding box in columns. "Does layer L have a span in column c" scans the
   few spans of c; "do A and B overlap" first compares bounding boxes, then walks the smaller
   layer's spans and scans their columns, and remembers the pairs found overlapping (a hash set:
   only a cache, it never decides an answer, and is never iterated). Merging appends the smaller
   list to the larger. The visiting order comes a range of floors at a time from a counting sort on
   the floor (flood_layers), into a buffer of about n / 8 spans. Work is O(n log n) in the
   spans apart from repeated overlap scans of pairs that do not overlap, which then merge.

   Reachability: each seed is matched to an open span (see find_seed), and the spans connected to
   the seeds through links and gap links (filter.c rule 7) are flooded; since every layer is
   connected, a layer is either wholly reached or not at all, and the others are dropped (layer
   PTL_VX_NONE). A small island (min_island) is a layer linked to no other, by links or gap links.
   Layer ids are then dense, numbered in the order of their lowest span (floor, z, x). */
#include <math.h>
#include <string.h>

#include "../runtime/alloc.h"
#include "../runtime/error.h"
#include "voxel.h"

/* A layer id's union-find node; size, list and box are meaningful at roots only. */
typedef struct lnode {
    uint32_t parent, size; /* spans */
    uint32_t head, tail;   /* first and last span of its list */
    int32_t box[4];        /* x0, z0, x1, z1 */
} lnode;

typedef struct flood {
    ptl_open_field* of;
    ptl_open_span* sp;   /* the field's spans: their `layer` is the flood's label, a layer id (not
                            necessarily a root; PTL_VX_NONE: none yet) until number_layers */
    uint32_t* next;      /* span -> next span of its layer's list */
    PTL_ARRAY(lnode) ln; /* layer id -> node */
    uint64_t* seen;      /* overlapping pairs (min << 32 | max), UINT64_MAX: empty slot */
    uint32_t seen_cap, seen_count;
    const ptl_allocator* a;
} flood;

static uint32_t find(flood* f, uint32_t l) {
    lnode* n = f->ln.data;
    while (n[l].parent != l) {
        n[l].parent = n[n[l].parent].parent;
        l = n[l].parent;
    }
    return l;
}

static void box_add(int32_t* b, int32_t x, int32_t z) {
    if (x < b[0]) b[0] = x;
    if (z < b[1]) b[1] = z;
    if (x > b[2]) b[2] = x;
    if (z > b[3]) b[3] = z;
}

/* Gives span s to root layer l. */
static void join(flood* f, uint32_t s, uint32_t l) {
    uint32_t w = (uint32_t)f->of->p.width, c = f->of->col_of[s];
    lnode* n = &f->ln.data[l];
    f->sp[s].layer = l;
    f->next[s] = PTL_VX_NONE;
    f->next[n->tail] = s;
    n->tail = s;
    ++n->size;
    box_add(n->box, (int32_t)(c % w), (int32_t)(c / w));
}

/* A new layer holding span s; PTL_VX_NONE when out of memory. */
static uint32_t new_layer(flood* f, uint32_t s) {
    uint32_t w = (uint32_t)f->of->p.width, c = f->of->col_of[s], l = f->ln.count;
    int32_t x = (int32_t)(c % w), z = (int32_t)(c / w);
    lnode n = {l, 1, s, s, {x, z, x, z}};
    if (!PTL_PUSH(f->a, f->ln, n)) return PTL_VX_NONE;
    f->next[s] = PTL_VX_NONE;
    f->sp[s].layer = l;
    return l;
}

/* Does root layer l have a span in column c, whose first span is b? `width`: the column index's
   (ptl_vx_col_index_at_w; the flood's functions are compiled once per width). */
static PTL_VX_INLINE_ALWAYS bool column_has(flood* f, uint32_t c, uint32_t b, uint32_t l, uint32_t width) {
    const uint32_t e = ptl_vx_col_index_at_w(&f->of->col_index, c + 1, width);
    for (uint32_t t = b; t < e; ++t)
        if (f->sp[t].layer != PTL_VX_NONE && find(f, f->sp[t].layer) == l) return true;
    return false;
}

static uint64_t pair_key(uint32_t a, uint32_t b) {
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

static uint32_t slot_of(uint64_t k, uint32_t cap) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k & (cap - 1);
}

static bool seen_has(const flood* f, uint64_t k) {
    if (!f->seen_cap) return false;
    for (uint32_t i = slot_of(k, f->seen_cap);; i = (i + 1) & (f->seen_cap - 1)) {
        if (f->seen[i] == k) return true;
        if (f->seen[i] == UINT64_MAX) return false;
    }
}

/* Remembers an overlapping pair; a failed allocation only forgets (the cache is optional). */
static void seen_add(flood* f, uint64_t k) {
    if (2 * (f->seen_count + 1) > f->seen_cap) {
        uint32_t cap = f->seen_cap ? 2 * f->seen_cap : 256;
        uint64_t* t = ptl_mem_alloc(f->a, (size_t)cap * sizeof *t);
        if (!t) return;
        memset(t, 0xff, (size_t)cap * sizeof *t);
        for (uint32_t i = 0; i < f->seen_cap; ++i) {
            if (f->seen[i] == UINT64_MAX) continue;
            uint32_t j = slot_of(f->seen[i], cap);
            while (t[j] != UINT64_MAX) j = (j + 1) & (cap - 1);
            t[j] = f->seen[i];
        }
        ptl_mem_free(f->a, f->seen, (size_t)f->seen_cap * sizeof *f->seen);
        f->seen = t, f->seen_cap = cap;
    }
    uint32_t j = slot_of(k, f->seen_cap);
    while (f->seen[j] != UINT64_MAX) j = (j + 1) & (f->seen_cap - 1);
    f->seen[j] = k;
    ++f->seen_count;
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
    const uint32_t w = (uint32_t)of->p.width, c = of->col_of[s], x = c % w, z = c / w;
    const bool in[4] = {x > 0, z + 1 < (uint32_t)of->p.depth, x + 1 < w, z > 0};
    for (int d = 0; d < 4; ++d) {
        if (!in[d]) continue;
        const uint32_t nc = ptl_vx_ncol(of->p.width, c, d);
        const uint32_t b = ptl_vx_col_index_at_w(ix, nc, width), e = ptl_vx_col_index_at_w(ix, nc + 1, width);
        for (uint32_t t = b; t < e; ++t)
            if (t - b != of->spans[s].con[d] && f->sp[t].layer != PTL_VX_NONE && find(f, f->sp[t].layer) == l)
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
    uint64_t k = pair_key(a, b);
    if (seen_has(f, k)) return true;
    uint32_t small = f->ln.data[a].size <= f->ln.data[b].size ? a : b, big = small == a ? b : a;
    const ptl_vx_col_index* ix = &f->of->col_index;
    for (uint32_t s = f->ln.data[small].head; s != PTL_VX_NONE; s = f->next[s]) {
        const uint32_t c = f->of->col_of[s];
        if (column_has(f, c, ptl_vx_col_index_at(ix, c), big, ix->width) || !links_agree(f, s, big, ix->width)) {
            seen_add(f, k);
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
   column index's (compiled once per width, see ptl_vx_col_index_at_w). */
static PTL_VX_INLINE_ALWAYS bool flood_spans_w(flood* f, const uint32_t* list, uint32_t count, uint32_t width) {
    const ptl_open_field* of = f->of;
    const ptl_vx_col_index* ix = &of->col_index;
    const int32_t w = of->p.width;
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t s = list ? list[i] : i;
        uint32_t l = f->sp[s].layer == PTL_VX_NONE ? new_layer(f, s) : find(f, f->sp[s].layer);
        if (l == PTL_VX_NONE) return false;
        for (int d = 0; d < 4; ++d) {
            const uint32_t k = f->sp[s].con[d]; /* ptl_vx_nbr, at this width */
            if (k == PTL_VX_NOCON) continue;
            const uint32_t nc = ptl_vx_ncol(w, of->col_of[s], d), b = ptl_vx_col_index_at_w(ix, nc, width), t = b + k;
            if (f->sp[t].layer == PTL_VX_NONE) {
                if (!column_has(f, nc, b, l, width) && links_agree(f, t, l, width)) join(f, t, l);
                continue;
            }
            uint32_t m = find(f, f->sp[t].layer);
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

/* The flood visits the spans in (floor, z, x) order. Within one floor that is memory order (a
   column has at most one span at a given floor, and columns are z-major), so the spans of a range
   of floors come in that order from a counting sort on the floor over the spans in memory order,
   which keeps the flood's accesses close together on large worlds. The order is never held whole
   (4 bytes a span, the largest array of the flood after the field's): the floors are cut into
   ranges of at most `cap` spans, about an eighth of the field, each gathered into one buffer by a
   pass over the spans' floors and flooded in turn; a floor holding more than `cap` spans is a range
   of its own, gathered and flooded a buffer at a time. */
#define PTL_VX_FLOOD_BATCH_MIN 4096u /* [Units: spans] the smallest buffer (unless the field is smaller) */

static bool flood_layers(flood* f, bool sorted) {
    const ptl_open_field* of = f->of;
    const ptl_open_span* sp = of->spans;
    const uint32_t n = of->span_count;
    if (sorted) return flood_spans(f, NULL, n); /* memory order is flood order (a flat world) */
    const uint32_t nh = PTL_VX_MAX_HEIGHT + 1;
    const uint32_t cap = n / 8 > PTL_VX_FLOOD_BATCH_MIN ? n / 8 : n < PTL_VX_FLOOD_BATCH_MIN ? n : PTL_VX_FLOOD_BATCH_MIN;
    uint32_t* count = ptl_mem_calloc(f->a, nh, sizeof *count); /* spans per floor */
    uint32_t* batch = ptl_mem_alloc(f->a, (size_t)cap * sizeof *batch);
    bool ok = count && batch;
    for (uint32_t s = 0; ok && s < n; ++s) ++count[sp[s].floor];
    for (uint32_t h = 0, h1; ok && h < nh; h = h1) {
        /* floors [h, h1): as many as fit the buffer, at least one */
        uint32_t total = count[h];
        for (h1 = h + 1; h1 < nh && (uint64_t)total + count[h1] <= cap; ++h1) total += count[h1];
        if (total <= cap) {
            uint32_t at = 0; /* count[g] becomes floor g's next place in the buffer */
            for (uint32_t g = h; g < h1; ++g) {
                const uint32_t c = count[g];
                count[g] = at, at += c;
            }
            for (uint32_t s = 0, left = total; left > 0; ++s) /* (stops at the range's last span) */
                if ((uint32_t)sp[s].floor - h < h1 - h) batch[count[sp[s].floor]++] = s, --left;
            ok = flood_spans(f, batch, total);
            continue;
        }
        for (uint32_t s = 0, left = total; ok && left > 0;) { /* floor h alone, cap spans at a time */
            uint32_t k = 0;
            for (; k < cap && s < n; ++s)
                if (sp[s].floor == h) batch[k++] = s;
            ok = flood_spans(f, batch, k);
            left -= k;
        }
    }
    ptl_mem_free(f->a, count, (size_t)nh * sizeof *count);
    ptl_mem_free(f->a, batch, (size_t)cap * sizeof *batch);
    return ok;
}

/* The open span a seed stands on: in the seed's column, or the nearest column within
   walkable_radius + 1 (the erosion may have pulled the floor away from a seed near a wall), among
   the floors from walkable_climb above the seed to walkable_height below it. Preferred: the nearest
   column, then the highest floor at or below the seed, then the lowest floor above it, then the
   lower index. PTL_VX_NONE when there is none. */
static uint32_t find_seed(const ptl_open_field* of, const float* pt) {
    const ptl_vx_params* p = &of->p;
    double fu = ((double)pt[0] - p->bmin[0]) / p->cs, fv = ((double)pt[2] - p->bmin[2]) / p->cs;
    double hw = ((double)pt[1] - p->bmin[1]) / p->ch;
    if (!(fu > -1e9 && fu < 1e9 && fv > -1e9 && fv < 1e9)) return PTL_VX_NONE;
    int64_t cx = (int64_t)floor(fu), cz = (int64_t)floor(fv), r = p->walkable_radius + 1;
    uint32_t best = PTL_VX_NONE;
    int64_t best_d2 = 0;
    double best_score = 0;
    for (int64_t dz = -r; dz <= r; ++dz)
        for (int64_t dx = -r; dx <= r; ++dx) {
            int64_t x = cx + dx, z = cz + dz;
            if (x < 0 || z < 0 || x >= p->width || z >= p->depth) continue;
            uint32_t c = (uint32_t)(z * p->width + x);
            for (uint32_t t = ptl_vx_col_begin(of, c), e = ptl_vx_col_end(of, c); t < e; ++t) {
                double fl = of->spans[t].floor;
                if (hw < fl - p->walkable_climb || hw > fl + p->walkable_height) continue;
                double score = fl <= hw ? hw - fl : p->walkable_height + (fl - hw);
                int64_t d2 = dx * dx + dz * dz;
                if (best == PTL_VX_NONE || d2 < best_d2 || (d2 == best_d2 && score < best_score) ||
                    (d2 == best_d2 && score == best_score && t < best))
                    best = t, best_d2 = d2, best_score = score;
            }
        }
    return best;
}

/* Marks in `keep` (per layer id, by root) the layers connected to the seeds. `queue` and `mark`
   have span_count entries. Returns the number of seeds that found a span. */
static uint32_t reach(flood* f, const float* seeds, uint32_t seed_count, uint32_t* queue, uint8_t* mark,
                      uint8_t* keep) {
    const ptl_open_field* of = f->of;
    uint32_t qn = 0, found = 0;
    memset(mark, 0, of->span_count);
    for (uint32_t i = 0; i < seed_count; ++i) {
        uint32_t s = find_seed(of, seeds + 3 * (size_t)i);
        if (s == PTL_VX_NONE) continue;
        ++found;
        if (!mark[s]) mark[s] = 1, queue[qn++] = s;
    }
    for (uint32_t q = 0; q < qn; ++q) {
        uint32_t s = queue[q];
        keep[find(f, f->sp[s].layer)] = 1;
        for (int d = 0; d < 4; ++d) {
            uint32_t t = ptl_vx_nbr(of, s, d);
            if (t != PTL_VX_NONE && !mark[t]) mark[t] = 1, queue[qn++] = t;
        }
        /* and across gap links (filter.c rule 7; sorted by span) */
        uint32_t lo = 0, hi = of->gap_count;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (of->gaps[mid].span < s) lo = mid + 1;
            else hi = mid;
        }
        for (; lo < of->gap_count && of->gaps[lo].span == s; ++lo) {
            uint32_t t = of->gaps[lo].other;
            if (!mark[t]) mark[t] = 1, queue[qn++] = t;
        }
    }
    return found;
}

void ptl_layer_set_free(ptl_layer_set* ls) {
    if (!ls) return;
    if (ls->alloc.free) ptl_mem_free(&ls->alloc, ls->layers, (size_t)ls->layer_count * sizeof *ls->layers);
    memset(ls, 0, sizeof *ls);
}

/* Dense ids in order of each kept layer's lowest span, written to the spans; fills `out`.
   `dense` has an entry per layer id. A layer's lowest span in (floor, z, x) order is the one that
   started the lowest of the layer ids merged into it: the flood visits the spans in that order and
   starts a layer id at each span it reaches unlabelled, every span labelled before its visit comes
   after the span that labels it, and ids are handed out in visiting order. So the kept roots are
   numbered in order of their lowest id, with no second pass over the spans in flood order. */
static ptl_status number_layers(flood* f, const uint8_t* keep, uint32_t* dense, ptl_layer_set* out, ptl_error* err) {
    ptl_open_field* of = f->of;
    uint32_t nl = 0;
    for (uint32_t l = 0; l < f->ln.count; ++l) dense[l] = PTL_VX_NONE;
    for (uint32_t l = 0; l < f->ln.count; ++l) {
        uint32_t r = find(f, l);
        if (keep[r] && dense[r] == PTL_VX_NONE) dense[r] = nl++;
    }
    out->layers = ptl_mem_calloc(f->a, nl ? nl : 1, sizeof *out->layers);
    if (!out->layers) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory");
    out->layer_count = nl;
    for (uint32_t l = 0; l < nl; ++l) {
        ptl_layer_info* li = &out->layers[l];
        li->x0 = li->z0 = INT32_MAX, li->x1 = li->z1 = INT32_MIN;
        li->floor_min = UINT16_MAX, li->floor_max = 0;
    }
    const ptl_vx_col_index ix = of->col_index; /* a local copy: the stores below cannot change it */
    uint32_t s = 0; /* spans are in column order: a column's first is the one after the last column's */
    for (int32_t z = 0, c = 0; z < of->p.depth; ++z)
        for (int32_t x = 0; x < of->p.width; ++x, ++c)
            for (const uint32_t e = ptl_vx_col_index_at(&ix, (uint32_t)c + 1); s < e; ++s) {
                uint32_t l = dense[find(f, f->sp[s].layer)];
                of->spans[s].layer = l;
                if (l == PTL_VX_NONE) continue;
                ptl_layer_info* li = &out->layers[l];
                if (x < li->x0) li->x0 = x;
                if (x > li->x1) li->x1 = x;
                if (z < li->z0) li->z0 = z;
                if (z > li->z1) li->z1 = z;
                ++li->span_count;
                uint16_t fl = of->spans[s].floor;
                if (fl < li->floor_min) li->floor_min = fl;
                if (fl > li->floor_max) li->floor_max = fl;
            }
    return PTL_OK;
}

ptl_status ptl_vx_build_layers(ptl_open_field* of, const float* seeds, uint32_t seed_count, const ptl_allocator* alloc,
                               ptl_layer_set* out, ptl_error* err) {
    if (!of || !out || (seed_count && !seeds))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_vx_build_layers: NULL argument");
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < 3 * seed_count; ++i)
        if (!isfinite(seeds[i]))
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "layers: seed %u is not finite", i / 3);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    out->alloc = a;
    const uint32_t n = of->span_count;
    flood f;
    memset(&f, 0, sizeof f);
    f.of = of, f.a = &a;
    const size_t sz = n ? n : 1;
    /* The flood's order: memory order when it is (floor, z, x) order already, else gathered a
       range of floors at a time (flood_layers). */
    bool sorted = true;
    for (uint32_t s = 1; s < n && sorted; ++s) sorted = of->spans[s].floor >= of->spans[s - 1].floor;
    uint8_t* keep = NULL;
    uint32_t* dense = NULL;
    size_t nl = 0;
    f.sp = of->spans;
    f.next = ptl_mem_alloc(&a, sz * sizeof *f.next);
    ptl_status st = PTL_OK;
    if (!f.next) goto oom;
    for (uint32_t s = 0; s < n; ++s) of->spans[s].layer = PTL_VX_NONE;
    if (!flood_layers(&f, sorted)) goto oom;
    nl = f.ln.count ? f.ln.count : 1;
    keep = ptl_mem_alloc(&a, nl);
    dense = ptl_mem_alloc(&a, nl * sizeof *dense);
    if (!keep || !dense) goto oom;
    memset(keep, 1, nl);
    /* Small islands: layers linked to no other and under min_island spans (their roots' `dense`
       entry is borrowed as a "linked" flag until the numbering below). */
    uint8_t* island = NULL;
    if (of->p.min_island > 0) {
        island = ptl_mem_calloc(&a, nl, 1);
        if (!island) goto oom;
        for (uint32_t l = 0; l < f.ln.count; ++l) dense[l] = 0;
        for (uint32_t s = 0; s < n; ++s) {
            uint32_t r = find(&f, f.sp[s].layer);
            if (f.ln.data[r].size >= (uint32_t)of->p.min_island) continue; /* no island whatever its links */
            for (int d = 0; d < 4; ++d) {
                uint32_t t = ptl_vx_nbr(of, s, d);
                if (t != PTL_VX_NONE && find(&f, f.sp[t].layer) != r) dense[r] = 1;
            }
        }
        for (uint32_t g = 0; g < of->gap_count; ++g) { /* a gap link joins its layers too */
            uint32_t r = find(&f, f.sp[of->gaps[g].span].layer), q = find(&f, f.sp[of->gaps[g].other].layer);
            if (r != q) dense[r] = dense[q] = 1;
        }
        for (uint32_t l = 0; l < f.ln.count; ++l)
            island[l] = find(&f, l) == l && !dense[l] && f.ln.data[l].size < (uint32_t)of->p.min_island;
    }
    if (island) {
        for (uint32_t l = 0; l < f.ln.count; ++l) {
            if (!island[l]) continue;
            keep[l] = 0;
            out->dropped_islands++;
        }
        ptl_mem_free(&a, island, nl);
    }
    if (seed_count) {
        memset(keep, 0, nl);
        /* the layer lists are not needed any more: `next` becomes the flood's queue */
        uint8_t* mark = ptl_mem_alloc(&a, sz);
        if (!mark) goto oom;
        out->seeds_found = reach(&f, seeds, seed_count, f.next, mark, keep);
        ptl_mem_free(&a, mark, sz);
        if (out->seeds_found == 0) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT,
                               "layers: none of the %u seeds lies on walkable space (the first is at %g, %g, %g; a "
                               "seed must be within the agent height above a floor, or the climb below it)",
                               seed_count, (double)seeds[0], (double)seeds[1], (double)seeds[2]);
            goto done;
        }
    }
    st = number_layers(&f, keep, dense, out, err);
    if (st >= 0) {
        uint32_t roots = 0;
        for (uint32_t l = 0; l < f.ln.count; ++l) roots += f.ln.data[l].parent == l;
        out->dropped_layers = roots - out->layer_count;
    }
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory (%u spans)", n);
done:
    ptl_mem_free(&a, f.next, sz * sizeof *f.next);
    PTL_ARRAY_FREE(&a, f.ln);
    ptl_mem_free(&a, f.seen, (size_t)f.seen_cap * sizeof *f.seen);
    ptl_mem_free(&a, keep, nl);
    ptl_mem_free(&a, dense, nl * sizeof *dense);
    if (st < 0) {
        for (uint32_t s = 0; s < n; ++s) of->spans[s].layer = PTL_VX_NONE;
        ptl_layer_set_free(out);
    } else {
        ptl_error_ok(err);
    }
    return st;
}
