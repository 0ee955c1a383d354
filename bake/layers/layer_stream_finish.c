/* The end of the layer stream (layer_stream.c): the stitch, then what layers.c did on the whole
   field, on the graph of block-layers (small islands, reachability from the seeds, the dense
   numbering in order of each layer's lowest span), and the layer map. */
#include <string.h>

#include "../../runtime/internal.h"
#include "layer_stream_internal.h"

static int cmp_sgap(const void* x, const void* y) {
    const ptl_lstream_gap *a = x, *b = y;
    if (a->src_col != b->src_col) return a->src_col < b->src_col ? -1 : 1;
    if (a->src_k != b->src_k) return a->src_k < b->src_k ? -1 : 1;
    return a->dir < b->dir ? -1 : a->dir > b->dir;
}
static int cmp_link(const void* x, const void* y) {
    const ptl_lmap_link *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    if (a->dir != b->dir) return a->dir < b->dir ? -1 : 1;
    return a->col < b->col ? -1 : a->col > b->col;
}
static int cmp_gap(const void* x, const void* y) {
    const ptl_lmap_gap *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    if (a->col != b->col) return a->col < b->col ? -1 : 1;
    return a->dir < b->dir ? -1 : a->dir > b->dir;
}
static int cmp_u64_pair(const void* x, const void* y) {
    const uint64_t a = ((const uint64_t*)x)[0], b = ((const uint64_t*)y)[0];
    return a < b ? -1 : a > b;
}

/* The end's state: the stream's block-layers (n of them) turned into layers and the map, in five
   steps (the stitch, per root, the graph of roots, dense ids, the map), each its own function. */
typedef struct finish {
    ptl_layer_stream* s;
    const ptl_allocator* a;
    ptl_layer_set* ls;
    ptl_layer_map* map;
    ptl_error* err;
    uint32_t n;               /* block-layers */
    size_t nn;                /* n + 1 */
    ptl_lmap_gap* gaps;       /* ngaps + 1: the gap links with both ends' block-layers */
    uint32_t ngaps;
    uint32_t* root;           /* nn: each block-layer's root after the stitch */
    uint64_t* key;            /* nn * 2: per root (lowest, root) */
    uint32_t* size;           /* nn: per root, its spans */
    uint8_t* keep;            /* nn: per root, kept */
    uint32_t* dense;          /* nn: per root, its layer */
    uint32_t* adj_start;      /* nn + 1 */
    uint32_t* adj;            /* adj_n */
    size_t adj_n;
    uint32_t* queue;          /* nn */
    uint32_t roots, kept;
} finish;

static ptl_status finish_oom(finish* f) {
    return ptl_error_set(f->err, PTL_ERR_NO_MEMORY, "layers: out of memory (%u block-layers)", f->n);
}

static void finish_free(finish* f) {
    const ptl_allocator* a = f->a;
    const size_t nn = f->nn;
    ptl_mem_free(a, f->root, nn * sizeof *f->root);
    ptl_mem_free(a, f->key, nn * 2 * sizeof *f->key);
    ptl_mem_free(a, f->size, nn * sizeof *f->size);
    ptl_mem_free(a, f->keep, nn);
    ptl_mem_free(a, f->dense, nn * sizeof *f->dense);
    ptl_mem_free(a, f->adj_start, (nn + 1) * sizeof *f->adj_start);
    ptl_mem_free(a, f->adj, f->adj_n * sizeof *f->adj);
    ptl_mem_free(a, f->queue, nn * sizeof *f->queue);
    ptl_mem_free(a, f->gaps, ((size_t)f->ngaps + 1) * sizeof *f->gaps);
}

/* Each block's block-layers (the pieces may come in any order of blocks): a counting sort. */
static ptl_status finish_blocks(finish* f) {
    const ptl_layer_stream* s = f->s;
    ptl_layer_map* map = f->map;
    const uint32_t n = f->n, nblocks = s->nbx * s->nbz;
    map->block_first = ptl_mem_calloc(f->a, (size_t)nblocks + 1, sizeof *map->block_first);
    map->block_first_cap = map->block_first ? nblocks + 1 : 0;
    map->block_bls = ptl_mem_alloc(f->a, f->nn * sizeof *map->block_bls);
    map->block_bls_cap = map->block_bls ? n + 1 : 0;
    if (!map->block_first || !map->block_bls) return finish_oom(f);
    for (uint32_t i = 0; i < n; ++i) map->block_first[s->acc.bl.data[i].block + 1]++;
    for (uint32_t b = 0; b < nblocks; ++b) map->block_first[b + 1] += map->block_first[b];
    for (uint32_t i = 0; i < n; ++i) map->block_bls[map->block_first[s->acc.bl.data[i].block]++] = i;
    for (uint32_t b = nblocks; b > 0; --b) map->block_first[b] = map->block_first[b - 1];
    map->block_first[0] = 0;
    return PTL_OK;
}

/* Gap links' far ends: the mirror gap (every gap is listed from both ends) names its block-layer. */
static ptl_status finish_gap_ends(finish* f) {
    ptl_layer_stream* s = f->s;
    const uint32_t count = s->acc.gaps.count;
    const ptl_lstream_gap* all = s->acc.gaps.data;
    if (!ptl_sort(s->acc.gaps.data, count, sizeof *s->acc.gaps.data, cmp_sgap, f->a)) return finish_oom(f);
    f->gaps = ptl_mem_alloc(f->a, ((size_t)count + 1) * sizeof *f->gaps);
    if (!f->gaps) return finish_oom(f);
    for (uint32_t g = 0; g < count; ++g) {
        const ptl_lstream_gap* r = &all[g];
        ptl_lstream_gap k = {r->dst_col, r->dst_k, 0, 0, 0, (uint8_t)((r->dir + 2) & 3), 0, 0};
        uint32_t lo = 0, hi = count;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (cmp_sgap(&all[mid], &k) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo == count || cmp_sgap(&all[lo], &k) != 0)
            return ptl_error_set(f->err, PTL_ERR_BAD_INPUT, "layers: a gap link without its other end (damaged tiles?)");
        ptl_lmap_gap o = {r->a, all[lo].a, r->src_col, r->dir, r->cols, 0};
        f->gaps[g] = o;
    }
    PTL_ARRAY_FREE(f->a, s->acc.gaps);
    return PTL_OK;
}

/* 1. The stitch: each block-layer's root. */
static ptl_status finish_stitch(finish* f) {
    ptl_layer_stream* s = f->s;
    uint64_t* conf = NULL;
    uint32_t nconf = 0;
    f->root = ptl_mem_alloc(f->a, f->nn * sizeof *f->root);
    if (!f->root) return finish_oom(f);
    if (!ptl_lstream_settle_conflicts(s) || !ptl_pair_set_sorted(&s->acc.conf_set, f->a, &conf, &nconf) ||
        !ptl_sort(s->acc.cand.data, s->acc.cand.count, sizeof *s->acc.cand.data, ptl_stitch_candidate_cmp, f->a))
        return finish_oom(f);
    ptl_status st = ptl_stitch_layers(f->n, conf, nconf, s->acc.cand.data, s->acc.cand.count, f->a, f->root, f->err);
    ptl_pair_set_free(&s->acc.conf_set, f->a);
    PTL_ARRAY_FREE(f->a, s->acc.cand);
    return st;
}

/* 2. Per root: its spans and its lowest span. */
static ptl_status finish_roots(finish* f) {
    const ptl_layer_stream* s = f->s;
    const uint32_t n = f->n;
    f->key = ptl_mem_alloc(f->a, f->nn * 2 * sizeof *f->key);
    f->size = ptl_mem_calloc(f->a, f->nn, sizeof *f->size);
    f->keep = ptl_mem_alloc(f->a, f->nn);
    f->dense = ptl_mem_alloc(f->a, f->nn * sizeof *f->dense);
    if (!f->key || !f->size || !f->keep || !f->dense) return finish_oom(f);
    for (uint32_t i = 0; i < n; ++i) f->key[2 * i] = UINT64_MAX;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t r = f->root[i];
        f->size[r] += s->acc.bl.data[i].count;
        if (s->acc.bl.data[i].lowest < f->key[2 * r]) f->key[2 * r] = s->acc.bl.data[i].lowest;
    }
    for (uint32_t i = 0; i < n; ++i) f->roots += f->root[i] == i;
    memset(f->keep, 1, f->nn);
    return PTL_OK;
}

/* 3. The graph of roots: links and gap links between different ones (both ways). */
static ptl_status finish_graph(finish* f) {
    const ptl_layer_stream* s = f->s;
    const uint32_t n = f->n, nlinks = s->acc.links.count;
    f->adj_start = ptl_mem_calloc(f->a, f->nn + 1, sizeof *f->adj_start);
    if (!f->adj_start) return finish_oom(f);
    uint32_t* adj_start = f->adj_start;
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t i = 0; i < nlinks + f->ngaps; ++i) {
            const uint32_t x = i < nlinks ? s->acc.links.data[i].a : f->gaps[i - nlinks].a;
            const uint32_t y = i < nlinks ? s->acc.links.data[i].b : f->gaps[i - nlinks].b;
            const uint32_t rx = f->root[x], ry = f->root[y];
            if (rx == ry) continue;
            if (pass == 0) adj_start[rx + 1]++, adj_start[ry + 1]++;
            else f->adj[adj_start[rx]++] = ry, f->adj[adj_start[ry]++] = rx;
        }
        if (pass == 0) {
            for (uint32_t i = 0; i < n; ++i) adj_start[i + 1] += adj_start[i];
            f->adj_n = (size_t)adj_start[n] + 1;
            f->adj = ptl_mem_alloc(f->a, f->adj_n * sizeof *f->adj);
            if (!f->adj) return finish_oom(f);
        } else {
            for (uint32_t i = n; i > 0; --i) adj_start[i] = adj_start[i - 1];
            adj_start[0] = 0;
        }
    }
    return PTL_OK;
}

/* 3. What is kept: not the small islands (a layer under min_island spans linked to no other);
   with seeds, only what the seeds' layers reach. */
static ptl_status finish_keep(finish* f) {
    const ptl_layer_stream* s = f->s;
    ptl_layer_set* ls = f->ls;
    if (s->p.min_island > 0)
        for (uint32_t r = 0; r < f->n; ++r)
            if (f->root[r] == r && f->size[r] < (uint32_t)s->p.min_island && f->adj_start[r] == f->adj_start[r + 1]) {
                f->keep[r] = 0;
                ls->dropped_islands++;
            }
    if (!s->seed_count) return PTL_OK;
    memset(f->keep, 0, f->nn);
    f->queue = ptl_mem_alloc(f->a, f->nn * sizeof *f->queue);
    if (!f->queue) return finish_oom(f);
    uint32_t qn = 0;
    for (uint32_t i = 0; i < s->seed_count; ++i) {
        if (!s->acc.seeds[i].found) continue;
        ls->seeds_found++;
        const uint32_t r = f->root[s->acc.seeds[i].bl];
        if (!f->keep[r]) f->keep[r] = 1, f->queue[qn++] = r;
    }
    for (uint32_t q = 0; q < qn; ++q)
        for (uint32_t k = f->adj_start[f->queue[q]]; k < f->adj_start[f->queue[q] + 1]; ++k)
            if (!f->keep[f->adj[k]]) f->keep[f->adj[k]] = 1, f->queue[qn++] = f->adj[k];
    if (ls->seeds_found == 0)
        return ptl_error_set(f->err, PTL_ERR_BAD_INPUT,
                             "layers: none of the %u seeds lies on walkable space (the first is at %g, %g, %g; a "
                             "seed must be within the agent height above a floor, or the climb below it)",
                             s->seed_count, (double)s->first_seed[0], (double)s->first_seed[1], (double)s->first_seed[2]);
    return PTL_OK;
}

/* 4. Dense ids for the kept roots in order of their lowest span; each layer's bounds, spans and
   floors, and its block-layers in the map. */
static ptl_status finish_number(finish* f) {
    ptl_layer_stream* s = f->s;
    ptl_layer_set* ls = f->ls;
    ptl_layer_map* map = f->map;
    const uint32_t n = f->n;
    uint32_t kept = 0;
    for (uint32_t r = 0; r < n; ++r)
        if (f->root[r] == r && f->keep[r]) f->key[2 * kept] = f->key[2 * r], f->key[2 * kept + 1] = r, ++kept;
    f->kept = kept;
    if (!ptl_sort(f->key, kept, 2 * sizeof *f->key, cmp_u64_pair, f->a)) return finish_oom(f);
    for (uint32_t r = 0; r < n; ++r) f->dense[r] = PTL_VX_NONE;
    for (uint32_t i = 0; i < kept; ++i) f->dense[f->key[2 * i + 1]] = i;
    ls->layers = ptl_mem_calloc(f->a, kept ? kept : 1, sizeof *ls->layers);
    ls->layer_count = ls->layers ? kept : 0;
    map->layer_first = ptl_mem_calloc(f->a, (size_t)kept + 1, sizeof *map->layer_first);
    map->layer_count = map->layer_first ? kept : 0;
    map->layer_bls = ptl_mem_alloc(f->a, f->nn * sizeof *map->layer_bls);
    map->layer_bls_cap = map->layer_bls ? n + 1 : 0;
    if (!ls->layers || !map->layer_first || !map->layer_bls) return finish_oom(f);
    ls->dropped_layers = f->roots - kept;
    for (uint32_t l = 0; l < kept; ++l) {
        ptl_layer_info* li = &ls->layers[l];
        li->x0 = li->z0 = INT32_MAX, li->x1 = li->z1 = INT32_MIN;
        li->floor_min = UINT16_MAX, li->floor_max = 0;
    }
    for (uint32_t i = 0; i < n; ++i) {
        ptl_lmap_bl* r = &s->acc.bl.data[i];
        r->world = f->dense[f->root[i]];
        if (r->world == PTL_VX_NONE) continue;
        ptl_layer_info* li = &ls->layers[r->world];
        const int32_t bx = (int32_t)(r->block % s->nbx * PTL_LMAP_B), bz = (int32_t)(r->block / s->nbx * PTL_LMAP_B);
        if (bx + r->x0 < li->x0) li->x0 = bx + r->x0;
        if (bx + r->x1 > li->x1) li->x1 = bx + r->x1;
        if (bz + r->z0 < li->z0) li->z0 = bz + r->z0;
        if (bz + r->z1 > li->z1) li->z1 = bz + r->z1;
        li->span_count += r->count;
        if (r->floor_min < li->floor_min) li->floor_min = r->floor_min;
        if (r->floor_max > li->floor_max) li->floor_max = r->floor_max;
        map->layer_first[r->world + 1]++;
    }
    for (uint32_t l = 0; l < kept; ++l) map->layer_first[l + 1] += map->layer_first[l];
    for (uint32_t l = 0; l < kept; ++l) f->dense[l] = map->layer_first[l]; /* dense, done with: each layer's next slot */
    for (uint32_t i = 0; i < n; ++i)
        if (s->acc.bl.data[i].world != PTL_VX_NONE) map->layer_bls[f->dense[s->acc.bl.data[i].world]++] = i;
    return PTL_OK;
}

/* 5. The map: the block-layers, pool, links and gap links handed over from the stream, with their
   allocated sizes (ptl_layer_map_free). */
static ptl_status finish_map(finish* f) {
    ptl_layer_stream* s = f->s;
    ptl_layer_map* map = f->map;
    if (!ptl_sort(s->acc.links.data, s->acc.links.count, sizeof *s->acc.links.data, cmp_link, f->a) ||
        !ptl_sort(f->gaps, f->ngaps, sizeof *f->gaps, cmp_gap, f->a))
        return finish_oom(f);
    map->p = s->p;
    map->nbx = s->nbx, map->nbz = s->nbz;
    map->bl = s->acc.bl.data, map->bl_count = f->n, map->bl_cap = s->acc.bl.cap;
    map->pool = s->acc.pool.data, map->pool_size = s->acc.pool.cap;
    map->links = s->acc.links.data, map->link_count = s->acc.links.count, map->link_cap = s->acc.links.cap;
    map->gaps = f->gaps, map->gap_count = f->ngaps, map->gap_cap = f->ngaps + 1;
    memset(&s->acc.bl, 0, sizeof s->acc.bl);
    memset(&s->acc.pool, 0, sizeof s->acc.pool);
    memset(&s->acc.links, 0, sizeof s->acc.links);
    f->gaps = NULL;
    return PTL_OK;
}

ptl_status ptl_lstream_finish(ptl_layer_stream* s, ptl_layer_set* ls, ptl_layer_map* map, ptl_error* err) {
    memset(ls, 0, sizeof *ls);
    memset(map, 0, sizeof *map);
    ptl_allocator al = s->a;
    ls->alloc = al;
    map->alloc = al;
    finish f;
    memset(&f, 0, sizeof f);
    f.s = s, f.a = &al, f.ls = ls, f.map = map, f.err = err;
    f.n = s->acc.bl.count, f.nn = (size_t)f.n + 1, f.ngaps = s->acc.gaps.count;
    ptl_status st = PTL_OK;
    if (s->tile_size ? s->tiles_added != s->tiles_x * s->tiles_z : s->z_next != s->p.depth)
        st = ptl_error_set(err, PTL_ERR_INTERNAL, "layers: %d of %d rows, %u of %u tiles given", s->z_next, s->p.depth,
                           s->tiles_added, s->tiles_x * s->tiles_z);
    if (st >= 0) st = finish_blocks(&f);
    if (st >= 0) st = finish_gap_ends(&f);
    if (st >= 0) st = finish_stitch(&f);
    if (st >= 0) st = finish_roots(&f);
    if (st >= 0) st = finish_graph(&f);
    if (st >= 0) st = finish_keep(&f);
    if (st >= 0) st = finish_number(&f);
    if (st >= 0) st = finish_map(&f);
    finish_free(&f);
    if (st < 0) {
        ptl_layer_set_free(ls);
        ptl_layer_map_free(map);
    }
    ptl_lstream_destroy(s);
    if (st >= 0) ptl_error_ok(err);
    return st;
}
