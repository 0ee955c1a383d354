/* The tile cache's layers kept per piece (tilecache_layers.h). The layer stream's tile path
   (layer_stream.c) floods each piece of the world on its own and pairs the pieces' borders as they
   are added in order; every choice it makes is the one made over the whole field, so the layers do
   not depend on how the world is cut. The cache cuts it into pieces of one layer-map block
   (PTL_LMAP_B columns, whatever its tiles' size), keeps each piece's flood and edges, and after an
   update floods again only the pieces holding a column whose spans, links or gap links changed: a
   piece's flood depends on its own columns alone. */
#include <string.h>

#include "../../runtime/internal.h"
#include "bake3d.h"
#include "tilecache_layers.h"

ptl_status ptl_tc_layers_init(ptl_tc_layers* L, const ptl_part_world* w, const ptl_allocator* a, ptl_error* err) {
    memset(L, 0, sizeof *L);
    const ptl_vx_params* p = ptl_part_world_params(w);
    uint32_t seed_count;
    const float* seeds = ptl_part_world_seeds(w, &seed_count);
    L->px = ((uint32_t)p->world_width + PTL_LMAP_B - 1) / PTL_LMAP_B;
    L->pz = ((uint32_t)p->world_depth + PTL_LMAP_B - 1) / PTL_LMAP_B;
    ptl_status st = ptl_lstream_create(p, seeds, seed_count, NULL, a, &L->proto, err);
    if (st >= 0) st = ptl_lstream_use_tiles(L->proto, PTL_LMAP_B, L->px, L->pz, err);
    const size_t n = (size_t)L->px * L->pz;
    L->piece = st >= 0 ? ptl_mem_calloc(a, n + 1, sizeof *L->piece) : NULL;
    L->dirty = st >= 0 ? ptl_mem_alloc(a, n + 1) : NULL;
    if (st >= 0 && (!L->piece || !L->dirty)) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    if (st < 0) return st;
    memset(L->dirty, 1, n);
    L->dirty_count = (uint32_t)n;
    return PTL_OK;
}

void ptl_tc_layers_free(ptl_tc_layers* L, const ptl_allocator* a) {
    const size_t n = (size_t)L->px * L->pz;
    for (size_t i = 0; L->piece && i < n; ++i) ptl_lstream_tile_free(L->piece[i], L->proto);
    ptl_mem_free(a, L->piece, (n + 1) * sizeof *L->piece);
    ptl_mem_free(a, L->dirty, n + 1);
    ptl_lstream_destroy(L->proto);
    ptl_layer_memo_free(&L->memo, a);
    memset(L, 0, sizeof *L);
}

static void mark_column(ptl_tc_layers* L, int32_t gx, int32_t gz) {
    const uint32_t i = (uint32_t)gz / PTL_LMAP_B * L->px + (uint32_t)gx / PTL_LMAP_B;
    L->dirty_count += !L->dirty[i];
    L->dirty[i] = 1;
}

void ptl_tc_layers_mark_tile(ptl_tc_layers* L, const ptl_vx_tile* t) {
    for (int32_t z = t->z0; z < t->z0 + t->d; z += (int32_t)PTL_LMAP_B - z % (int32_t)PTL_LMAP_B)
        for (int32_t x = t->x0; x < t->x0 + t->w; x += (int32_t)PTL_LMAP_B - x % (int32_t)PTL_LMAP_B) mark_column(L, x, z);
}

/* Whether gap links g[a0, a1) of one column (spans from s0) and h[b0, b1) (from t0) are the same. */
static bool same_gaps(const ptl_vx_gap* g, uint32_t a0, uint32_t a1, uint32_t s0, const ptl_vx_gap* h, uint32_t b0,
                      uint32_t b1, uint32_t t0) {
    if (a1 - a0 != b1 - b0) return false;
    for (uint32_t i = 0; i < a1 - a0; ++i) {
        const ptl_vx_gap* x = &g[a0 + i];
        const ptl_vx_gap* y = &h[b0 + i];
        if (x->span - s0 != y->span - t0 || x->other != y->other || x->dir != y->dir || x->cols != y->cols) return false;
    }
    return true;
}

/* The first gap link of tile t at or after span s. */
static uint32_t first_gap(const ptl_vx_tile* t, uint32_t s) {
    uint32_t lo = 0, hi = t->gap_count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (t->gaps[mid].span < s) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Marks dirty the piece of local column k when the column's spans, links or gap links differ
   between the two views of one tile. */
static void check_column(ptl_tc_layers* L, const ptl_vx_tile* before, const ptl_vx_tile* after, uint32_t k) {
    const uint32_t w = (uint32_t)after->w;
    const int32_t gx = after->x0 + (int32_t)(k % w), gz = after->z0 + (int32_t)(k / w);
    if (L->dirty[(uint32_t)gz / PTL_LMAP_B * L->px + (uint32_t)gx / PTL_LMAP_B]) return; /* no need to look */
    const uint32_t s0 = ptl_tiles_tile_col(before, k), s1 = ptl_tiles_tile_col(before, k + 1);
    const uint32_t t0 = ptl_tiles_tile_col(after, k), t1 = ptl_tiles_tile_col(after, k + 1);
    bool same = s1 - s0 == t1 - t0 && (s1 == s0 || !memcmp(before->spans + s0, after->spans + t0,
                                                            (size_t)(s1 - s0) * sizeof *after->spans));
    if (same && (before->gap_count || after->gap_count)) {
        const uint32_t ga = first_gap(before, s0), gb = first_gap(after, t0);
        same = same_gaps(before->gaps, ga, first_gap(before, s1), s0, after->gaps, gb, first_gap(after, t1), t0);
    }
    if (!same) mark_column(L, gx, gz);
}

void ptl_tc_layers_mark_changed(ptl_tc_layers* L, const ptl_vx_tile* before, const ptl_vx_tile* after) {
    const uint32_t cols = (uint32_t)after->w * (uint32_t)after->d;
    for (uint32_t k = 0; k < cols; ++k) check_column(L, before, after, k);
}

void ptl_tc_layers_mark_changed_edges(ptl_tc_layers* L, const ptl_vx_tile* before, const ptl_vx_tile* after) {
    const uint32_t W = (uint32_t)after->w, D = (uint32_t)after->d;
    for (uint32_t k = 0; k < W * D; ++k) {
        const uint32_t x = k % W, z = k / W;
        if (x != 0 && x != W - 1 && z != 0 && z != D - 1) k += W - 2 - 1; /* to the row's last column */
        else check_column(L, before, after, k);
    }
    for (uint32_t g = 0; g < before->gap_count; ++g) check_column(L, before, after, ptl_tiles_col_of_span(before, before->gaps[g].span));
    for (uint32_t g = 0; g < after->gap_count; ++g) check_column(L, before, after, ptl_tiles_col_of_span(after, after->gaps[g].span));
}

void ptl_tc_layers_mark_local(ptl_tc_layers* L, const ptl_vx_tile* t, uint32_t k) {
    const uint32_t w = (uint32_t)t->w;
    mark_column(L, t->x0 + (int32_t)(k % w), t->z0 + (int32_t)(k / w));
}

typedef struct piece_job {
    const ptl_tc_layers* L;
    const ptl_vx_params* p;
    const ptl_vx_tiling* tl;
    const ptl_vx_tile* const* views;
    const uint32_t* which; /* the pieces to flood */
    ptl_tile_layers** out;
    ptl_status* st;
    const ptl_allocator* a;
} piece_job;

/* Piece i's columns as a field of their own (plain index, col_of, gaps' far ends inside their
   columns: ptl_lstream_tile's input), taken from the tiles' views. */
static ptl_status piece_field(const piece_job* j, uint32_t i, ptl_open_field* f, uint32_t* gap_cap) {
    const uint32_t T = (uint32_t)j->tl->tile_size, B = PTL_LMAP_B;
    const uint32_t x0 = i % j->L->px * B, z0 = i / j->L->px * B;
    const uint32_t W = (uint32_t)j->p->world_width, D = (uint32_t)j->p->world_depth;
    const uint32_t w = x0 + B < W ? B : W - x0, d = z0 + B < D ? B : D - z0, cols = w * d;
    memset(f, 0, sizeof *f);
    f->p = *j->p;
    f->p.width = (int32_t)w, f->p.depth = (int32_t)d, f->p.ox = (int32_t)x0, f->p.oz = (int32_t)z0, f->p.border = 0;
    f->alloc = *j->a;
    f->col_index.width = 4, f->col_index.cols = cols, f->col_index.filled = cols + 1;
    uint32_t* cs = f->col_index.off.u32 = ptl_mem_alloc(j->a, ((size_t)cols + 1) * sizeof *cs);
    if (!cs) return PTL_ERR_NO_MEMORY;
    uint32_t n = 0, ng = 0;
    for (int pass = 0; pass < 2; ++pass) {
        n = ng = 0;
        for (uint32_t c = 0; c < cols; ++c) {
            const uint32_t gx = x0 + c % w, gz = z0 + c / w;
            const ptl_vx_tile* t = j->views[gz / T * (uint32_t)j->tl->tiles_x + gx / T];
            const uint32_t k = (gz - (uint32_t)t->z0) * (uint32_t)t->w + (gx - (uint32_t)t->x0);
            const uint32_t s0 = ptl_tiles_tile_col(t, k), s1 = ptl_tiles_tile_col(t, k + 1);
            if (pass == 1) {
                cs[c] = n;
                for (uint32_t s = s0; s < s1; ++s) f->spans[n + s - s0] = ptl_tiles_open_of(&t->spans[s]), f->col_of[n + s - s0] = c;
            }
            for (uint32_t g = first_gap(t, s0); g < t->gap_count && t->gaps[g].span < s1; ++g, ++ng)
                if (pass == 1) {
                    f->gaps[ng] = t->gaps[g];
                    f->gaps[ng].span = n + (t->gaps[g].span - s0);
                }
            n += s1 - s0;
        }
        if (pass == 0) {
            f->spans = ptl_mem_alloc(j->a, ((size_t)n + 1) * sizeof *f->spans);
            f->col_of = ptl_mem_alloc(j->a, ((size_t)n + 1) * sizeof *f->col_of);
            f->gaps = ptl_mem_alloc(j->a, ((size_t)ng + 1) * sizeof *f->gaps);
            *gap_cap = ng;
            f->span_count = f->span_cap = n, f->gap_count = ng;
            if (!f->spans || !f->col_of || !f->gaps) return PTL_ERR_NO_MEMORY;
        }
    }
    cs[cols] = n;
    return PTL_OK;
}

static void flood_piece(void* data, uint32_t index) {
    const piece_job* j = data;
    const uint32_t i = j->which[index];
    ptl_open_field f;
    uint32_t gap_cap = 0;
    ptl_status st = piece_field(j, i, &f, &gap_cap);
    if (st >= 0) st = ptl_lstream_tile(j->L->proto, &f, f.p.ox, f.p.oz, &j->out[index]);
    ptl_mem_free(j->a, f.col_index.off.u32, ((size_t)f.col_index.cols + 1) * sizeof(uint32_t));
    ptl_mem_free(j->a, f.spans, ((size_t)f.span_cap + 1) * sizeof *f.spans);
    ptl_mem_free(j->a, f.col_of, ((size_t)f.span_cap + 1) * sizeof *f.col_of);
    ptl_mem_free(j->a, f.gaps, ((size_t)gap_cap + 1) * sizeof *f.gaps);
    j->st[index] = st;
}

ptl_status ptl_tc_layers_flood(ptl_tc_layers* L, const ptl_part_world* w, const ptl_vx_tile* const* views,
                              const ptl_job_system* jobs, const ptl_allocator* a) {
    const uint32_t n = L->dirty_count;
    if (!n) return PTL_OK;
    uint32_t* which = ptl_mem_alloc(a, (size_t)n * sizeof *which);
    ptl_tile_layers** out = ptl_mem_calloc(a, n, sizeof *out);
    ptl_status* sts = ptl_mem_calloc(a, n, sizeof *sts);
    ptl_status st = which && out && sts ? PTL_OK : PTL_ERR_NO_MEMORY;
    if (st >= 0) {
        for (uint32_t i = 0, k = 0; i < L->px * L->pz; ++i)
            if (L->dirty[i]) which[k++] = i;
        const piece_job j = {L, ptl_part_world_params(w), ptl_part_world_tiling(w), views, which, out, sts, a};
        if (jobs && jobs->run && n > 1) jobs->run(jobs->user, flood_piece, (void*)&j, n);
        else
            for (uint32_t k = 0; k < n; ++k) flood_piece((void*)&j, k);
        for (uint32_t k = 0; k < n; ++k) {
            if (sts[k] < 0) {
                if (st >= 0) st = sts[k];
                continue;
            }
            ptl_lstream_tile_free(L->piece[which[k]], L->proto);
            L->piece[which[k]] = out[k];
            L->dirty[which[k]] = 0, --L->dirty_count;
        }
    }
    ptl_mem_free(a, which, (size_t)n * sizeof *which);
    ptl_mem_free(a, out, (size_t)n * sizeof *out);
    ptl_mem_free(a, sts, (size_t)n * sizeof *sts);
    return st;
}

ptl_status ptl_tc_layers_bake(ptl_tc_layers* L, const ptl_part_world* w, const ptl_vx_tile* const* views,
                              const ptl_job_system* jobs, const ptl_allocator* a, void** blob, size_t* size,
                              ptl_bake_stats* bs, ptl_error* err) {
    *blob = NULL;
    *size = 0;
    memset(bs, 0, sizeof *bs);
    const double t0 = ptl_bake3d_now_ms();
    ptl_status st = ptl_tc_layers_flood(L, w, views, jobs, a);
    if (st < 0)
        return ptl_error_set(err, st, st == PTL_ERR_NO_MEMORY ? "tile cache: out of memory flooding the layers"
                                                              : "tile cache: more than 2^32 block-layers");
    uint32_t seed_count;
    const float* seeds = ptl_part_world_seeds(w, &seed_count);
    ptl_layer_stream* s = NULL;
    st = ptl_lstream_create(ptl_part_world_params(w), seeds, seed_count, jobs, a, &s, err);
    if (st >= 0) st = ptl_lstream_use_tiles(s, PTL_LMAP_B, L->px, L->pz, err);
    for (uint32_t i = 0; i < L->px * L->pz && st >= 0; ++i) st = ptl_lstream_add_tile_kept(s, L->piece[i], err);
    ptl_layer_set ls;
    ptl_layer_map map;
    memset(&ls, 0, sizeof ls);
    memset(&map, 0, sizeof map);
    if (st >= 0) st = ptl_lstream_finish(s, &ls, &map, err);
    else ptl_lstream_destroy(s);
    bs->ms_layers = ptl_bake3d_now_ms() - t0;
    if (st < 0) {
        ptl_layer_set_free(&ls), ptl_layer_map_free(&map);
        return st;
    }
    return ptl_part_world_finish(w, &ls, &map, jobs, a, &L->memo, t0, blob, size, bs, err);
}
