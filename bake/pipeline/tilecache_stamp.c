/* Obstacles stamped into cached tiles (stamp.h). A stamped span is removed from its column, as the
   filters would remove a span whose opening an obstacle's geometry closes (filter.c: clearance);
   the spans that stay keep their floors, tags and links, renumbered. An area volume's span stays
   with its tag set to the area, as the bake's volumes set it (areas.c). */
#include <string.h>

#include "../../runtime/internal.h"
#include "../voxel/areas.h"
#include "tilecache_stamp.h"

/* Marks the spans of tile t one obstacle shape covers (PTL_TC_REMOVED). */
static uint32_t mark_obstacle(const ptl_tc_tiles* w, const ptl_vx_tile* t, const ptl_tc_shape* s, uint8_t* marks) {
    const ptl_vx_params* p = w->p;
    const float cs = p->cs, ch = p->ch, grow = (float)p->walkable_radius * cs;
    const float head = (float)p->walkable_height * ch;
    uint32_t count = 0;
    /* the columns of the tile the grown footprint's bounds reach */
    int32_t cx0 = (int32_t)((s->bmin[0] - grow - p->bmin[0]) / cs) - 1, cx1 = (int32_t)((s->bmax[0] + grow - p->bmin[0]) / cs) + 1;
    int32_t cz0 = (int32_t)((s->bmin[1] - grow - p->bmin[2]) / cs) - 1, cz1 = (int32_t)((s->bmax[1] + grow - p->bmin[2]) / cs) + 1;
    if (cx0 < t->x0) cx0 = t->x0;
    if (cz0 < t->z0) cz0 = t->z0;
    if (cx1 > t->x0 + t->w - 1) cx1 = t->x0 + t->w - 1;
    if (cz1 > t->z0 + t->d - 1) cz1 = t->z0 + t->d - 1;
    for (int32_t z = cz0; z <= cz1; ++z)
        for (int32_t x = cx0; x <= cx1; ++x) {
            const float x0 = p->bmin[0] + (float)x * cs, z0 = p->bmin[2] + (float)z * cs;
            if (!ptl_tc_shape_covers(s, x0, z0, x0 + cs, z0 + cs, grow)) continue;
            const uint32_t c = (uint32_t)(z - t->z0) * (uint32_t)t->w + (uint32_t)(x - t->x0);
            for (uint32_t i = ptl_tiles_tile_col(t, c), e = ptl_tiles_tile_col(t, c + 1); i < e; ++i) {
                const float fy = p->bmin[1] + (float)t->spans[i].floor * ch;
                if (marks[i] == PTL_TC_REMOVED || !(s->ymax > fy && s->ymin < fy + head)) continue;
                count += marks[i] == 0;
                marks[i] = PTL_TC_REMOVED;
            }
        }
    return count;
}

/* Marks the spans of tile t an area volume covers (PTL_TC_AREA + area): the columns whose centre
   lies in the footprint and the floors in its height range, as ptl_areas_mark_volumes does (the
   same arithmetic, in doubles). The highest area wins; a removed span stays removed. */
static uint32_t mark_area(const ptl_tc_tiles* w, const ptl_vx_tile* t, const ptl_tc_shape* s, uint8_t* marks) {
    const ptl_vx_params* p = w->p;
    const double cs = p->cs;
    int32_t x0, x1, z0, z1; /* the tile's own columns */
    if (!ptl_areas_col_range(s->bmin[0], s->bmax[0], p->bmin[0], cs, t->x0, t->w, &x0, &x1) ||
        !ptl_areas_col_range(s->bmin[1], s->bmax[1], p->bmin[2], cs, t->z0, t->d, &z0, &z1))
        return 0;
    const uint8_t mark = (uint8_t)(PTL_TC_AREA + s->area);
    uint32_t count = 0;
    for (int32_t z = z0; z <= z1; ++z)
        for (int32_t x = x0; x <= x1; ++x) {
            const double px = p->bmin[0] + ((double)(t->x0 + x) + 0.5) * cs, pz = p->bmin[2] + ((double)(t->z0 + z) + 0.5) * cs;
            if (!ptl_tc_shape_contains(s, px, pz)) continue;
            const uint32_t col = (uint32_t)z * (uint32_t)t->w + (uint32_t)x;
            for (uint32_t i = ptl_tiles_tile_col(t, col), e = ptl_tiles_tile_col(t, col + 1); i < e; ++i) {
                const double y = p->bmin[1] + (double)t->spans[i].floor * p->ch;
                if (marks[i] == PTL_TC_REMOVED || marks[i] >= mark || !(y >= s->ymin && y <= s->ymax)) continue;
                count += marks[i] == 0;
                marks[i] = mark;
            }
        }
    return count;
}

uint32_t ptl_tc_mark(const ptl_tc_tiles* w, const ptl_vx_tile* t, const ptl_tc_shape* const* shapes, uint32_t n,
                     uint8_t* marks) {
    uint32_t count = 0;
    memset(marks, 0, t->span_count);
    for (uint32_t k = 0; k < n; ++k)
        if (shapes[k]->area < 0) count += mark_obstacle(w, t, shapes[k], marks);
    for (uint32_t k = 0; k < n; ++k)
        if (shapes[k]->area >= 0) count += mark_area(w, t, shapes[k], marks);
    return count;
}

/* Where world column (x, z) lies: its tile and its first span there. */
typedef struct col_at {
    uint32_t tile, begin;
} col_at;

static col_at column(const ptl_tc_tiles* w, int32_t x, int32_t z) {
    const int32_t T = w->tl->tile_size;
    const uint32_t ti = (uint32_t)(z / T) * (uint32_t)w->tl->tiles_x + (uint32_t)(x / T);
    const ptl_vx_tile* t = &w->base[ti];
    col_at c = {ti, ptl_tiles_tile_col(t, (uint32_t)(z - t->z0) * (uint32_t)t->w + (uint32_t)(x - t->x0))};
    return c;
}

/* Span k (an index inside world column (x, z)) after the removals: its new index, or PTL_VX_NONE. */
static uint32_t renumber(const ptl_tc_tiles* w, const uint8_t* const* removed, int32_t x, int32_t z, uint32_t k) {
    const col_at c = column(w, x, z);
    const uint8_t* r = removed[c.tile];
    if (!r) return k;
    if (r[c.begin + k] == PTL_TC_REMOVED) return PTL_VX_NONE;
    uint32_t gone = 0;
    for (uint32_t i = 0; i < k; ++i) gone += r[c.begin + i] == PTL_TC_REMOVED;
    return k - gone;
}

static const int32_t DX[4] = {-1, 0, 1, 0}, DZ[4] = {0, 1, 0, -1}; /* 0: -x, 1: +z, 2: +x, 3: -z */

/* Span i of tile t (in world column (x, z)) as the stamped tile holds it: false when removed, else
   *s with its area set and its links renumbered. */
static bool stamped_span(const ptl_tc_tiles* w, const uint8_t* const* removed, const ptl_vx_tile* t, const uint8_t* r,
                         uint32_t i, int32_t x, int32_t z, ptl_vx_tspan* s) {
    if (r && r[i] == PTL_TC_REMOVED) return false;
    *s = t->spans[i];
    if (r && r[i] >= PTL_TC_AREA) s->tag = (uint16_t)(r[i] - PTL_TC_AREA);
    for (int d = 0; d < 4; ++d) {
        if (s->con[d] == PTL_VX_NOCON) continue;
        const uint32_t k = renumber(w, removed, x + DX[d], z + DZ[d], s->con[d]);
        s->con[d] = k == PTL_VX_NONE ? (uint8_t)PTL_VX_NOCON : (uint8_t)k;
    }
    return true;
}

/* The spans (links renumbered) and the column index of the stamped tile; keep[i]: span i's new index. */
static ptl_status stamp_spans(const ptl_tc_tiles* w, const uint8_t* const* removed, const ptl_vx_tile* t, const uint8_t* r,
                              const ptl_allocator* a, uint32_t* keep, ptl_vx_tile* out) {
    const uint32_t cols = (uint32_t)t->w * (uint32_t)t->d;
    if (ptl_col_index_init(&out->cols, cols, 1, a) < 0) return PTL_ERR_NO_MEMORY;
    out->spans = ptl_mem_alloc(a, ((size_t)t->span_count + 1) * sizeof *out->spans);
    if (!out->spans) return PTL_ERR_NO_MEMORY;
    uint32_t n = 0;
    for (uint32_t c = 0; c < cols; ++c) {
        if (!ptl_col_index_push(&out->cols, n, a)) return PTL_ERR_NO_MEMORY;
        const int32_t x = t->x0 + (int32_t)(c % (uint32_t)t->w), z = t->z0 + (int32_t)(c / (uint32_t)t->w);
        for (uint32_t i = ptl_tiles_tile_col(t, c), e = ptl_tiles_tile_col(t, c + 1); i < e; ++i) {
            keep[i] = PTL_VX_NONE;
            ptl_vx_tspan s;
            if (!stamped_span(w, removed, t, r, i, x, z, &s)) continue;
            keep[i] = n;
            out->spans[n++] = s;
        }
    }
    if (!ptl_col_index_push(&out->cols, n, a)) return PTL_ERR_NO_MEMORY;
    out->span_count = n;
    return PTL_OK;
}

ptl_status ptl_tc_stamp(const ptl_tc_tiles* w, const uint8_t* const* removed, uint32_t ti, const ptl_allocator* a,
                        ptl_vx_tile* out) {
    const ptl_vx_tile* t = &w->base[ti];
    const uint8_t* r = removed[ti];
    memset(out, 0, sizeof *out);
    out->tx = t->tx, out->tz = t->tz, out->x0 = t->x0, out->z0 = t->z0, out->w = t->w, out->d = t->d;
    out->solid_spans = t->solid_spans;
    uint32_t* keep = ptl_mem_alloc(a, ((size_t)t->span_count + 1) * sizeof *keep);
    ptl_status st = keep ? stamp_spans(w, removed, t, r, a, keep, out) : PTL_ERR_NO_MEMORY;
    if (st >= 0 && t->gap_count) {
        out->gaps = ptl_mem_alloc(a, (size_t)t->gap_count * sizeof *out->gaps);
        if (!out->gaps) st = PTL_ERR_NO_MEMORY;
    }
    /* the gap links of the spans that stay, to spans that stay (their order kept: sorted by span) */
    for (uint32_t g = 0; g < t->gap_count && st >= 0; ++g) {
        ptl_vx_gap gp = t->gaps[g];
        if (keep[gp.span] == PTL_VX_NONE) continue;
        const uint32_t c = ptl_tiles_col_of_span(t, gp.span);
        const int32_t steps = (int32_t)gp.cols + 1;
        const int32_t fx = t->x0 + (int32_t)(c % (uint32_t)t->w) + DX[gp.dir & 3] * steps;
        const int32_t fz = t->z0 + (int32_t)(c / (uint32_t)t->w) + DZ[gp.dir & 3] * steps;
        const uint32_t k = renumber(w, removed, fx, fz, gp.other);
        if (k == PTL_VX_NONE) continue;
        gp.span = keep[gp.span], gp.other = k;
        out->gaps[out->gap_count++] = gp;
    }
    ptl_mem_free(a, keep, ((size_t)t->span_count + 1) * sizeof *keep);
    return st;
}

/* Border column k of tile t made again into view (same layout: view's column k holds t's spans
   that stay, in order); true when a span changed. */
static bool stamp_border_column(const ptl_tc_tiles* w, const uint8_t* const* removed, const ptl_vx_tile* t,
                                const uint8_t* r, uint32_t k, ptl_vx_tile* view) {
    const int32_t x = t->x0 + (int32_t)(k % (uint32_t)t->w), z = t->z0 + (int32_t)(k / (uint32_t)t->w);
    uint32_t n = ptl_tiles_tile_col(view, k);
    bool changed = false;
    for (uint32_t i = ptl_tiles_tile_col(t, k), e = ptl_tiles_tile_col(t, k + 1); i < e; ++i) {
        ptl_vx_tspan s;
        if (!stamped_span(w, removed, t, r, i, x, z, &s)) continue;
        changed |= memcmp(&view->spans[n], &s, sizeof s) != 0;
        view->spans[n++] = s;
    }
    return changed;
}

ptl_status ptl_tc_stamp_edges(const ptl_tc_tiles* w, const uint8_t* const* removed, uint32_t ti, const ptl_allocator* a,
                              ptl_vx_tile* view, uint32_t* cols_out, uint32_t* n_out) {
    const ptl_vx_tile* t = &w->base[ti];
    const uint8_t* r = removed[ti];
    const uint32_t W = (uint32_t)t->w, D = (uint32_t)t->d;
    uint32_t n = 0;
    ptl_vx_gap* gaps = NULL;
    if (t->gap_count && !(gaps = ptl_mem_alloc(a, (size_t)t->gap_count * sizeof *gaps))) return PTL_ERR_NO_MEMORY;
    for (uint32_t k = 0; k < W * D; ++k) {
        const uint32_t x = k % W, z = k / W;
        if (x != 0 && x != W - 1 && z != 0 && z != D - 1) {
            k += W - 2 - 1; /* to the row's last column */
            continue;
        }
        if (stamp_border_column(w, removed, t, r, k, view)) cols_out[n++] = k;
    }
    /* the gap links as ptl_tc_stamp makes them: a span that stays is at its column's start in the
       view plus its index among the column's spans that stay */
    uint32_t ng = 0;
    for (uint32_t g = 0; g < t->gap_count; ++g) {
        ptl_vx_gap gp = t->gaps[g];
        const uint32_t c = ptl_tiles_col_of_span(t, gp.span);
        const int32_t cx = t->x0 + (int32_t)(c % W), cz = t->z0 + (int32_t)(c / W);
        const uint32_t own = renumber(w, removed, cx, cz, gp.span - ptl_tiles_tile_col(t, c));
        if (own == PTL_VX_NONE) continue;
        const int32_t steps = (int32_t)gp.cols + 1;
        const uint32_t k = renumber(w, removed, cx + DX[gp.dir & 3] * steps, cz + DZ[gp.dir & 3] * steps, gp.other);
        if (k == PTL_VX_NONE) continue;
        gp.span = ptl_tiles_tile_col(view, c) + own, gp.other = k;
        gaps[ng++] = gp;
    }
    if (ng != view->gap_count || (ng && memcmp(gaps, view->gaps, (size_t)ng * sizeof *gaps))) {
        for (uint32_t g = 0; g < view->gap_count; ++g) cols_out[n++] = ptl_tiles_col_of_span(view, view->gaps[g].span);
        for (uint32_t g = 0; g < ng; ++g) cols_out[n++] = ptl_tiles_col_of_span(view, gaps[g].span);
        if (ng) memcpy(view->gaps, gaps, (size_t)ng * sizeof *gaps);
        view->gap_count = ng;
    }
    ptl_mem_free(a, gaps, (size_t)t->gap_count * sizeof *gaps);
    *n_out = n;
    return PTL_OK;
}
