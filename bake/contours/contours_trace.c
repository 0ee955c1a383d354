/* Step 1 of the contours (contours.c): tracing a layer's columns into rings. */
#include <string.h>

#include "../../runtime/internal.h"
#include "contours_internal.h"

/* ---- Step 1: tracing the layer's columns ------------------------------------------------------
   The walk of shape_grid.c (its turning rule is Saupin et al. 2014 §4.1.2's: at a lattice point the
   two columns ahead decide, the pinch points are kept apart), run on the layer map's bitmaps instead
   of a grid as large as the layer's bounds (a layer across sc1/Aurora extruded covers 8.7M columns:
   three such grids were the bake's peak). Coordinates here are aligned on blocks: column (x, z)
   is world column (ox + x, oz + z), ox and oz the first block's corner. Rings come out in the order
   of their first horizontal boundary edge in a row-major scan, each from that edge's first corner,
   exactly as ptl_shape_from_grid gives them. */
typedef struct ltrace {
    const uint32_t* rows;   /* per slot: PTL_LMAP_B rows of bits */
    uint32_t* slot;         /* per block of the layer's bounds: its slot, or PTL_NONE (none of the layer) */
    uint32_t nbw, nbd;      /* blocks */
    uint64_t* hdone;        /* per horizontal edge (x, y), y in 0 .. nbd * B: walked */
    uint64_t hw;            /* edges per row: nbw * B */
} ltrace;

static inline uint32_t lt_row(const ltrace* t, int64_t bx, int64_t y) {
    if (y < 0 || bx < 0 || bx >= (int64_t)t->nbw || y >= (int64_t)t->nbd * PTL_LMAP_B) return 0;
    const uint32_t s = t->slot[(uint64_t)(y / PTL_LMAP_B) * t->nbw + (uint64_t)bx];
    return s == PTL_NONE ? 0 : t->rows[(size_t)s * PTL_LMAP_B + (size_t)(y % PTL_LMAP_B)];
}
static inline int lt_cell(const ltrace* t, int64_t x, int64_t y) {
    if (x < 0) return 0;
    return (int)(lt_row(t, x / PTL_LMAP_B, y) >> (x % PTL_LMAP_B) & 1u);
}
static inline void lt_mark(ltrace* t, int64_t x, int64_t y) {
    const uint64_t i = (uint64_t)y * t->hw + (uint64_t)x;
    t->hdone[i / 64] |= 1ull << (i % 64);
}
static inline bool lt_done(const ltrace* t, int64_t x, int64_t y) {
    const uint64_t i = (uint64_t)y * t->hw + (uint64_t)x;
    return t->hdone[i / 64] >> (i % 64) & 1;
}

enum { T_E = 0, T_N = 1, T_W = 2, T_S = 3 };

/* The direction after lattice point (px, py) walking in d: the cells ahead-left and ahead-right
   (E: ne, se; N: nw, ne; W: sw, nw; S: se, sw, where ne is cell (px, py)). */
static inline int lt_turn(const ltrace* t, int64_t px, int64_t py, int d) {
    static const int lx[4] = {0, -1, -1, 0}, ly[4] = {0, 0, -1, -1}; /* ahead-left */
    static const int rx[4] = {0, 0, -1, -1}, ry[4] = {-1, 0, 0, -1}; /* ahead-right */
    if (!lt_cell(t, px + lx[d], py + ly[d])) return (d + 1) & 3;
    if (lt_cell(t, px + rx[d], py + ry[d])) return (d + 3) & 3;
    return d;
}

static bool lt_ring(ltrace* t, int64_t x, int64_t y, bool east, int64_t sx, int64_t sy, const ptl_allocator* a,
                    ptl_contours_f64* xy) {
    static const int dx[4] = {1, 0, -1, 0}, dy[4] = {0, 1, 0, -1};
    const int d0 = east ? T_E : lt_turn(t, x, y, T_W);
    int64_t px = x, py = y;
    int d = d0;
    if (!PTL_PUSH(a, *xy, (double)(px - sx)) || !PTL_PUSH(a, *xy, (double)(py - sy))) return false;
    for (;;) {
        if (d == T_E) lt_mark(t, px, py);
        else if (d == T_W) lt_mark(t, px - 1, py);
        px += dx[d], py += dy[d];
        const int nd = lt_turn(t, px, py, d);
        if (px == x && py == y && nd == d0) break;
        if (nd != d && (!PTL_PUSH(a, *xy, (double)(px - sx)) || !PTL_PUSH(a, *xy, (double)(py - sy)))) return false;
        d = nd;
    }
    return true;
}

/* Layer `layer`'s rings in its local lattice (column (li->x0 + u, li->z0 + v) is [u, u+1] x [v, v+1]). */
ptl_status ptl_contours_trace(const ptl_layer_map* m, const ptl_layer_info* li, uint32_t layer, const ptl_allocator* a,
                              ptl_contours_f64* xy, ptl_contours_u32* starts) {
    const uint32_t B = PTL_LMAP_B;
    const int64_t bx0 = li->x0 / (int32_t)B, bz0 = li->z0 / (int32_t)B;
    ltrace t;
    memset(&t, 0, sizeof t);
    t.nbw = (uint32_t)(li->x1 / (int32_t)B - bx0 + 1), t.nbd = (uint32_t)(li->z1 / (int32_t)B - bz0 + 1);
    t.hw = (uint64_t)t.nbw * B;
    const size_t nblocks = (size_t)t.nbw * t.nbd, nwords = (size_t)((((uint64_t)t.nbd * B + 1) * t.hw + 63) / 64);
    const uint32_t nbl = m->layer_first[layer + 1] - m->layer_first[layer];
    uint32_t* rows = ptl_mem_calloc(a, (size_t)nbl * B + 1, sizeof *rows);
    t.slot = ptl_mem_alloc(a, nblocks * sizeof *t.slot);
    t.hdone = ptl_mem_calloc(a, nwords, sizeof *t.hdone);
    ptl_status st = PTL_OK;
    if (!rows || !t.slot || !t.hdone) goto oom;
    t.rows = rows;
    memset(t.slot, 0xff, nblocks * sizeof *t.slot);
    uint32_t nslots = 0;
    for (uint32_t k = m->layer_first[layer]; k < m->layer_first[layer + 1]; ++k) { /* a block's block-layers of one layer: OR */
        const ptl_lmap_bl* r = &m->bl[m->layer_bls[k]];
        const size_t b = (size_t)((int64_t)(r->block / m->nbx) - bz0) * t.nbw + (size_t)((int64_t)(r->block % m->nbx) - bx0);
        if (t.slot[b] == PTL_NONE) t.slot[b] = nslots++;
        for (uint32_t z = r->z0; z <= r->z1; ++z) rows[(size_t)t.slot[b] * B + z] |= ptl_lmap_row(m, r, z);
    }
    const int64_t sx = li->x0 - bx0 * (int64_t)B, sy = li->z0 - bz0 * (int64_t)B;
    const int64_t H = (int64_t)t.nbd * B;
    for (int64_t y = 0; y <= H; ++y)
        for (uint32_t bx = 0; bx < t.nbw; ++bx) {
            const uint32_t above = lt_row(&t, bx, y), below = lt_row(&t, bx, y - 1);
            for (uint32_t e = above ^ below; e; e &= e - 1) {
                const int64_t x = (int64_t)bx * B + __builtin_ctz(e);
                if (lt_done(&t, x, y)) continue;
                if (!PTL_PUSH(a, *starts, xy->count / 2) || !lt_ring(&t, x, y, lt_cell(&t, x, y), sx, sy, a, xy)) goto oom;
            }
        }
    if (!PTL_PUSH(a, *starts, xy->count / 2)) goto oom;
    goto done;
oom:
    st = PTL_ERR_NO_MEMORY;
done:
    ptl_mem_free(a, rows, ((size_t)nbl * B + 1) * sizeof *rows);
    ptl_mem_free(a, t.slot, nblocks * sizeof *t.slot);
    ptl_mem_free(a, t.hdone, nwords * sizeof *t.hdone);
    return st;
}
