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
   field's grid, each on its own (as jobs; the links leaving a block are not followed), and the
   block-layers are then stitched across block borders by the same rules (layer_stitch.c), the
   way Saupin et al. 2014 (§4.1.4, §4.3) stitch the regions of tiles. The layers then depend
   neither on the threads nor on how the bake is tiled (the tiles assemble the same field), the
   stage runs in parallel, and a bake streamed tile by tile can flood its blocks inside the tiles
   (bench/NOTES.md). They are not the one flood's over the whole field where its choices depended
   on the order in which it reached a block: on Recast's meshes only nav_test changes (19 layers,
   119 cells -> 18 layers, 107 cells; tests/test_voxel.c checks the rules on every layer set).

   Bookkeeping: layers are a union-find over layer ids with, per root, its span count, its spans as
   a linked list and its bounding box in columns. "Does layer L have a span in column c" scans the
   few spans of c; "do A and B overlap" first compares bounding boxes, then walks the smaller
   layer's spans and scans their columns, and remembers the pairs found overlapping (a hash set:
   only a cache, it never decides an answer, and is never iterated). Merging appends the smaller
   list to the larger. The visiting order of a block is a counting sort on the floor over its spans.
   Work is O(n log n) in the spans apart from repeated overlap scans of pairs that do not overlap,
   which then merge.

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
    ptl_pair_set seen;   /* root pairs found incompatible (a cache: a failed insert only forgets) */
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
    uint64_t k = ptl_pair_key(a, b);
    if (ptl_pair_set_has(&f->seen, k)) return true;
    uint32_t small = f->ln.data[a].size <= f->ln.data[b].size ? a : b, big = small == a ? b : a;
    const ptl_vx_col_index* ix = &f->of->col_index;
    for (uint32_t s = f->ln.data[small].head; s != PTL_VX_NONE; s = f->next[s]) {
        const uint32_t c = f->of->col_of[s];
        if (column_has(f, c, ptl_vx_col_index_at(ix, c), big, ix->width) || !links_agree(f, s, big, ix->width)) {
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

/* Islands, seeds and dense numbering (the end of ptl_vx_build_layers, after the stitch):
   the spans carry layer ids of f's union-find, ids in order of their lowest span. f->next, when
   set, has a span's room and serves as the seeds' queue. */
static ptl_status finish_layers(flood* f, const float* seeds, uint32_t seed_count, ptl_layer_set* out, ptl_error* err) {
    ptl_open_field* of = f->of;
    const ptl_allocator* a = f->a;
    const uint32_t n = of->span_count;
    const size_t sz = n ? n : 1;
    const size_t nl = f->ln.count ? f->ln.count : 1;
    ptl_status st = PTL_OK;
    uint8_t* keep = ptl_mem_alloc(a, nl);
    uint32_t* dense = ptl_mem_alloc(a, nl * sizeof *dense);
    uint32_t* queue = f->next ? f->next : seed_count ? ptl_mem_alloc(a, sz * sizeof *queue) : NULL;
    if (!keep || !dense || (seed_count && !queue)) goto oom;
    memset(keep, 1, nl);
    /* Small islands: layers linked to no other and under min_island spans (their roots' `dense`
       entry is borrowed as a "linked" flag until the numbering below). */
    if (of->p.min_island > 0) {
        for (uint32_t l = 0; l < f->ln.count; ++l) dense[l] = 0;
        for (uint32_t s = 0; s < n; ++s) {
            uint32_t r = find(f, f->sp[s].layer);
            if (f->ln.data[r].size >= (uint32_t)of->p.min_island) continue; /* no island whatever its links */
            for (int d = 0; d < 4; ++d) {
                uint32_t t = ptl_vx_nbr(of, s, d);
                if (t != PTL_VX_NONE && find(f, f->sp[t].layer) != r) dense[r] = 1;
            }
        }
        for (uint32_t g = 0; g < of->gap_count; ++g) { /* a gap link joins its layers too */
            uint32_t r = find(f, f->sp[of->gaps[g].span].layer), q = find(f, f->sp[of->gaps[g].other].layer);
            if (r != q) dense[r] = dense[q] = 1;
        }
        for (uint32_t l = 0; l < f->ln.count; ++l)
            if (find(f, l) == l && !dense[l] && f->ln.data[l].size < (uint32_t)of->p.min_island) {
                keep[l] = 0;
                out->dropped_islands++;
            }
    }
    if (seed_count) {
        memset(keep, 0, nl);
        /* the layer lists are not needed any more: `next` becomes the flood's queue */
        uint8_t* mark = ptl_mem_alloc(a, sz);
        if (!mark) goto oom;
        out->seeds_found = reach(f, seeds, seed_count, queue, mark, keep);
        ptl_mem_free(a, mark, sz);
        if (out->seeds_found == 0) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT,
                               "layers: none of the %u seeds lies on walkable space (the first is at %g, %g, %g; a "
                               "seed must be within the agent height above a floor, or the climb below it)",
                               seed_count, (double)seeds[0], (double)seeds[1], (double)seeds[2]);
            goto done;
        }
    }
    st = number_layers(f, keep, dense, out, err);
    if (st >= 0) {
        uint32_t roots = 0;
        for (uint32_t l = 0; l < f->ln.count; ++l) roots += f->ln.data[l].parent == l;
        out->dropped_layers = roots - out->layer_count;
    }
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory (%u spans)", n);
done:
    if (queue && queue != f->next) ptl_mem_free(a, queue, sz * sizeof *queue);
    ptl_mem_free(a, keep, nl);
    ptl_mem_free(a, dense, nl * sizeof *dense);
    return st;
}

/* ---- Blocks ------------------------------------------------------------------------------------ */

/* What the flood of one block leaves: its spans labelled with block-layer ids 0 .. layer_count - 1
   (in the field's spans), and the pairs of them that may never be one layer. */
typedef struct block_out {
    uint32_t layer_count;
    uint64_t* lowest; /* per block-layer: its lowest span, floor << 32 | the span's index in the field */
    uint32_t lowest_cap;
    uint64_t* conflicts; /* a << 32 | b, a < b, sorted, no repeats */
    uint32_t conflict_count, conflict_cap;
    ptl_status st;
} block_out;

typedef struct block_jobs {
    ptl_open_field* of;
    const ptl_allocator* a;
    uint32_t nbx; /* blocks along x */
    block_out* out;
    const uint32_t* base; /* per block: its first block-layer's id over the field (relabel_block) */
} block_jobs;

/* Block b's spans' block-layers to ids over the field (its rows are ranges of the field's spans). */
static void relabel_block(void* data, uint32_t b) {
    block_jobs* j = data;
    ptl_open_field* of = j->of;
    const uint32_t B = PTL_VX_LAYER_BLOCK, W = (uint32_t)of->p.width, D = (uint32_t)of->p.depth;
    const uint32_t x0 = (b % j->nbx) * B, z0 = (b / j->nbx) * B;
    const uint32_t w = W - x0 < B ? W - x0 : B, d = D - z0 < B ? D - z0 : B, base = j->base[b];
    for (uint32_t z = 0; z < d; ++z) {
        const uint32_t c = (z0 + z) * W + x0, e = ptl_vx_col_begin(of, c + w);
        for (uint32_t s = ptl_vx_col_begin(of, c); s < e; ++s) of->spans[s].layer += base;
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
            for (uint32_t i = b; i < e; ++i) {
                for (uint32_t j = i + 1; j < e; ++j)
                    if (!ptl_pair_set_add(&set, ptl_pair_key(sp[i].layer, sp[j].layer), a)) goto oom;
                for (int dir = 1; dir <= 2; ++dir) { /* +z, +x */
                    const uint32_t nx = x + (dir == 2), nz = z + (dir == 1);
                    if (nx >= w || nz >= d) continue;
                    const uint32_t nc = nz * w + nx;
                    for (uint32_t k = cs[nc]; k < cs[nc + 1]; ++k)
                        if (sp[i].con[dir] != k - cs[nc] && !ptl_pair_set_add(&set, ptl_pair_key(sp[i].layer, sp[k].layer), a))
                            goto oom;
                }
            }
        }
    if (!ptl_pair_set_sorted(&set, a, &o->conflicts, &o->conflict_count)) goto oom;
    o->conflict_cap = set.cap;
    return true;
oom:
    ptl_pair_set_free(&set, a);
    return false;
}

/* Floods block b on its own: its columns copied into a field of their own, the links leaving the
   block cut, the ordered flood run there (the rules above, within the block), and the block-layers
   (ids in order of creation, so in order of their lowest span) written back to the field's spans,
   which no other block touches. */
static void flood_block(void* data, uint32_t b) {
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
        n += ptl_vx_col_begin(of, c + w) - ptl_vx_col_begin(of, c);
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
    f.next = ptl_mem_alloc(a, (size_t)n * sizeof *f.next);
    uint32_t* dense = NULL;
    size_t nl = 0;
    bool ok = cs && map && bf.spans && bf.col_of && f.next;
    if (ok) {
        uint32_t k = 0;
        for (uint32_t z = 0; z < d; ++z) {
            const uint32_t c0 = (z0 + z) * W + x0;
            if (ptl_vx_col_begin(of, c0 + w) == ptl_vx_col_begin(of, c0)) { /* an empty row */
                for (uint32_t x = 0; x < w; ++x) cs[z * w + x] = k;
                continue;
            }
            for (uint32_t x = 0; x < w; ++x) {
                const uint32_t c = c0 + x, e = ptl_vx_col_end(of, c);
                cs[z * w + x] = k;
                for (uint32_t s = ptl_vx_col_begin(of, c); s < e; ++s, ++k) {
                    ptl_open_span sp = of->spans[s];
                    if (x == 0) sp.con[0] = PTL_VX_NOCON; /* links leaving the block */
                    if (z + 1 == d) sp.con[1] = PTL_VX_NOCON;
                    if (x + 1 == w) sp.con[2] = PTL_VX_NOCON;
                    if (z == 0) sp.con[3] = PTL_VX_NOCON;
                    sp.layer = PTL_VX_NONE;
                    bf.spans[k] = sp, bf.col_of[k] = z * w + x, map[k] = s;
                }
            }
        }
        cs[(size_t)w * d] = n;
        bf.col_index.off.u32 = cs, bf.col_index.cols = w * d, bf.col_index.width = 4, bf.col_index.filled = w * d + 1;
        bf.span_count = bf.span_cap = n;
        /* The flood's (floor, z, x) order: a counting sort over the block's own floors. */
        uint32_t lo = UINT32_MAX, hi = 0;
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t h = bf.spans[i].floor;
            lo = h < lo ? h : lo, hi = h > hi ? h : hi;
        }
        const size_t nh = (size_t)(hi - lo) + 2;
        uint32_t* count = ptl_mem_calloc(a, nh, sizeof *count);
        uint32_t* order = ptl_mem_alloc(a, (size_t)n * sizeof *order);
        ok = count && order;
        if (ok) {
            for (uint32_t i = 0; i < n; ++i) ++count[bf.spans[i].floor - lo + 1];
            for (size_t h = 1; h < nh; ++h) count[h] += count[h - 1];
            for (uint32_t i = 0; i < n; ++i) order[count[bf.spans[i].floor - lo]++] = i;
            ok = flood_spans(&f, order, n);
        }
        if (ok) { /* ids in order of creation; a layer's lowest span is the first visited */
            nl = f.ln.count;
            dense = ptl_mem_alloc(a, (nl ? nl : 1) * sizeof *dense);
            o->lowest = ptl_mem_alloc(a, (nl ? nl : 1) * sizeof *o->lowest);
            o->lowest_cap = o->lowest ? (nl ? (uint32_t)nl : 1) : 0;
            ok = dense && o->lowest;
        }
        if (ok) {
            uint32_t k = 0;
            for (uint32_t l = 0; l < nl; ++l) dense[l] = find(&f, l) == l ? k++ : PTL_VX_NONE;
            o->layer_count = k;
            for (uint32_t l = 0; l < k; ++l) o->lowest[l] = UINT64_MAX;
            for (uint32_t i = 0; i < n; ++i) {
                const uint32_t sp = order[i], l = dense[find(&f, bf.spans[sp].layer)];
                if (o->lowest[l] == UINT64_MAX) o->lowest[l] = (uint64_t)bf.spans[sp].floor << 32 | map[sp];
            }
        }
        ptl_mem_free(a, count, nh * sizeof *count);
        ptl_mem_free(a, order, (size_t)n * sizeof *order);
    }
    if (ok) {
        for (uint32_t i = 0; i < n; ++i) {
            bf.spans[i].layer = dense[find(&f, bf.spans[i].layer)];
            of->spans[map[i]].layer = bf.spans[i].layer;
        }
        ok = block_conflicts(&bf, a, o);
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

static int cmp_key(const void* x, const void* y) {
    const uint64_t a = ((const uint64_t*)x)[0], b = ((const uint64_t*)y)[0];
    return a < b ? -1 : a > b;
}

/* Layers from stitched block-layers: the spans carry ids below n, ids with the same root[id] are
   one layer, lowest[id] is the id's lowest span (floor << 32 | index). Renumbers the roots in order
   of their lowest span (floor, then memory order: z, x), so that the numbering of finish_layers (by
   lowest id) follows the lowest spans as the flood's does, then finishes. */
static ptl_status finish_stitched(ptl_open_field* of, const uint32_t* root, const uint64_t* lowest, uint32_t n,
                                 const float* seeds, uint32_t seed_count, const ptl_allocator* a, ptl_layer_set* out,
                                 ptl_error* err) {
    const uint32_t ns = of->span_count;
    flood f;
    memset(&f, 0, sizeof f);
    f.of = of, f.a = a, f.sp = of->spans;
    ptl_status st = PTL_OK;
    uint64_t* key = ptl_mem_alloc(a, ((size_t)n + 1) * 2 * sizeof *key); /* pairs (lowest span key, root) */
    uint32_t* id = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof *id);
    if (!key || !id) goto oom;
    for (uint32_t l = 0; l < n; ++l) key[2 * l] = UINT64_MAX, key[2 * l + 1] = l;
    for (uint32_t l = 0; l < n; ++l)
        if (lowest[l] < key[2 * root[l]]) key[2 * root[l]] = lowest[l];
    uint32_t roots = 0;
    for (uint32_t l = 0; l < n; ++l)
        if (key[2 * l] != UINT64_MAX) key[2 * roots] = key[2 * l], key[2 * roots + 1] = l, ++roots;
    if (!ptl_sort(key, roots, 2 * sizeof *key, cmp_key, a)) goto oom;
    for (uint32_t i = 0; i < roots; ++i) id[key[2 * i + 1]] = i;
    if (!PTL_RESERVE(a, f.ln, (uint64_t)roots + 1)) goto oom;
    for (uint32_t i = 0; i < roots; ++i) {
        lnode nd = {i, 0, PTL_VX_NONE, PTL_VX_NONE, {0, 0, 0, 0}};
        f.ln.data[f.ln.count++] = nd;
    }
    for (uint32_t s = 0; s < ns; ++s) {
        const uint32_t l = id[root[of->spans[s].layer]];
        of->spans[s].layer = l;
        f.ln.data[l].size++;
    }
    st = finish_layers(&f, seeds, seed_count, out, err);
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory (%u block-layers)", n);
done:
    ptl_mem_free(a, key, ((size_t)n + 1) * 2 * sizeof *key);
    ptl_mem_free(a, id, ((size_t)n + 1) * sizeof *id);
    PTL_ARRAY_FREE(a, f.ln);
    return st;
}

ptl_status ptl_vx_build_layers(ptl_open_field* of, const float* seeds, uint32_t seed_count, const ptl_allocator* alloc,
                               ptl_layer_set* out, ptl_error* err) {
    return ptl_vx_build_layers_jobs(of, seeds, seed_count, NULL, alloc, out, err);
}

ptl_status ptl_vx_build_layers_jobs(ptl_open_field* of, const float* seeds, uint32_t seed_count,
                                    const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_set* out,
                                    ptl_error* err) {
    if (!of || !out || (seed_count && !seeds))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_vx_build_layers: NULL argument");
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < 3 * seed_count; ++i)
        if (!isfinite(seeds[i]))
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "layers: seed %u is not finite", i / 3);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    out->alloc = a;
    const uint32_t B = PTL_VX_LAYER_BLOCK, W = (uint32_t)of->p.width, D = (uint32_t)of->p.depth;
    const uint32_t nbx = (W + B - 1) / B, nbz = (D + B - 1) / B, nb = nbx * nbz;
    ptl_status st = PTL_OK;
    uint64_t total = 0;
    uint32_t* base = ptl_mem_alloc(&a, ((size_t)nb + 1) * sizeof *base);
    block_out* bo = ptl_mem_calloc(&a, nb ? nb : 1, sizeof *bo);
    PTL_ARRAY(uint64_t) conf = {0};
    uint32_t* root = NULL;
    uint64_t* lowest = NULL;
    if (!base || !bo) goto oom;
    /* 1. Each block floods its own columns (as jobs: they write disjoint spans). */
    block_jobs bj = {of, &a, nbx, bo, base};
    if (jobs && jobs->run && nb > 1) jobs->run(jobs->user, flood_block, &bj, nb);
    else
        for (uint32_t b = 0; b < nb; ++b) flood_block(&bj, b);
    for (uint32_t b = 0; b < nb; ++b) {
        if (bo[b].st < 0) goto oom;
        base[b] = (uint32_t)total;
        total += bo[b].layer_count;
        if (total >= PTL_VX_NONE) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "layers: more than 2^32 block-layers");
            goto done;
        }
    }
    /* 2. Block-layer ids over the field, in block order; the blocks' conflicts with them. */
    if (jobs && jobs->run && nb > 1) jobs->run(jobs->user, relabel_block, &bj, nb);
    else
        for (uint32_t b = 0; b < nb; ++b) relabel_block(&bj, b);
    for (uint32_t b = 0; b < nb; ++b) {
        if (!PTL_RESERVE(&a, conf, (uint64_t)conf.count + bo[b].conflict_count)) goto oom;
        for (uint32_t i = 0; i < bo[b].conflict_count; ++i) {
            const uint64_t k = bo[b].conflicts[i];
            conf.data[conf.count++] = ((uint64_t)base[b] + (k >> 32)) << 32 | (base[b] + (uint32_t)k);
        }
        ptl_mem_free(&a, bo[b].conflicts, (size_t)bo[b].conflict_cap * sizeof *bo[b].conflicts);
        bo[b].conflicts = NULL, bo[b].conflict_cap = 0;
    }
    /* 3. Stitched across block borders (layer_stitch.c), then islands, seeds and numbering. */
    root = ptl_mem_alloc(&a, ((size_t)total + 1) * sizeof *root);
    if (!root) goto oom;
    st = ptl_vx_stitch(of, B, (uint32_t)total, conf.data, conf.count, &a, root, err);
    PTL_ARRAY_FREE(&a, conf);
    lowest = st >= 0 ? ptl_mem_alloc(&a, ((size_t)total + 1) * sizeof *lowest) : NULL;
    if (st >= 0 && !lowest) goto oom;
    for (uint32_t b = 0; st >= 0 && b < nb; ++b)
        if (bo[b].layer_count) memcpy(lowest + base[b], bo[b].lowest, (size_t)bo[b].layer_count * sizeof *lowest);
    if (st >= 0) st = finish_stitched(of, root, lowest, (uint32_t)total, seeds, seed_count, &a, out, err);
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "layers: out of memory (%u spans)", of->span_count);
done:
    for (uint32_t b = 0; bo && b < nb; ++b) {
        ptl_mem_free(&a, bo[b].conflicts, (size_t)bo[b].conflict_cap * sizeof *bo[b].conflicts);
        ptl_mem_free(&a, bo[b].lowest, (size_t)bo[b].lowest_cap * sizeof *bo[b].lowest);
    }
    ptl_mem_free(&a, lowest, ((size_t)total + 1) * sizeof *lowest);
    ptl_mem_free(&a, bo, (size_t)(nb ? nb : 1) * sizeof *bo);
    ptl_mem_free(&a, base, ((size_t)nb + 1) * sizeof *base);
    ptl_mem_free(&a, root, ((size_t)total + 1) * sizeof *root);
    PTL_ARRAY_FREE(&a, conf);
    if (st < 0) {
        for (uint32_t s = 0; s < of->span_count; ++s) of->spans[s].layer = PTL_VX_NONE;
        ptl_layer_set_free(out);
    } else {
        ptl_error_ok(err);
    }
    return st;
}
