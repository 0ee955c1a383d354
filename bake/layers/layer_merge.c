/* Merging the layers' decompositions into one cell-and-portal graph (ANavMG thesis §6.2.4).

   Each layer is decomposed on its own, its junctions with other layers taken as walls. Then, on
   every junction line (junctions are never simplified, so they run along lattice lines, exactly the
   same on both sides), each side's cell edges are cut at the other side's vertices: the thesis
   merges a vertex into the closest edge and removes the T-joints this makes; cutting at the same
   exact lattice positions on both sides leaves none to remove. The pieces then pair up one to one
   with reversed directions and become portals between the layers, and the vertices at each cut are
   unified. Heights: every vertex takes the highest voxel floor of its layer among the columns
   touching it, so cells follow ramps and stairs within one cell height; for the heights inside cells,
   each cell that is not flat carries the floor grid of its layer around it (navmesh_format.h). */
#include <math.h>
#include <string.h>

#include "layer_merge_internal.h"


static uint32_t find(uint32_t* p, uint32_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
}

static double layer_height(const merge* m, uint32_t l, double u, double v) {
    return ptl_contour_height(m->of, &m->lc[l], u, v);
}

static bool add_vertex(merge* m, uint32_t layer, double gu, double gv, double y) {
    const ptl_vx_params* p = &m->of->p;
    uint32_t id = m->vlayer.count;
    return PTL_PUSH(m->a, m->xyz, p->bmin[0] + gu * p->cs) && PTL_PUSH(m->a, m->xyz, y) &&
           PTL_PUSH(m->a, m->xyz, p->bmin[2] + gv * p->cs) && PTL_PUSH(m->a, m->lat, gu) && PTL_PUSH(m->a, m->lat, gv) &&
           PTL_PUSH(m->a, m->vlayer, layer) && PTL_PUSH(m->a, m->parent, id);
}

/* Same group: same line (or pair of lines across a gap) between the same layers. */
static bool same_group(const jedge* a, const jedge* b) {
    return a->line_axis == b->line_axis && a->gline == b->gline && a->gap == b->gap && a->lo_layer == b->lo_layer &&
           a->hi_layer == b->hi_layer;
}

/* Sort orders for ptl_sort (alloc.h). */
static int cmp_jedge(const void* pa, const void* pb) {
    const jedge *a = pa, *b = pb;
    if (a->line_axis != b->line_axis) return a->line_axis < b->line_axis ? -1 : 1;
    if (a->gline != b->gline) return a->gline < b->gline ? -1 : 1;
    if (a->gap != b->gap) return a->gap < b->gap ? -1 : 1;
    if (a->lo_layer != b->lo_layer) return a->lo_layer < b->lo_layer ? -1 : 1;
    if (a->hi_layer != b->hi_layer) return a->hi_layer < b->hi_layer ? -1 : 1;
    double am = fmin(a->ta, a->tb), bm = fmin(b->ta, b->tb);
    if (am != bm) return am < bm ? -1 : 1;
    if (a->side != b->side) return a->side < b->side ? -1 : 1;
    return a->cell < b->cell ? -1 : a->cell > b->cell;
}

static int cmp_jpoint(const void* pa, const void* pb) {
    const jpoint *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    if (a->side != b->side) return a->side < b->side ? -1 : 1;
    return a->vert < b->vert ? -1 : a->vert > b->vert;
}


/* The junction edges of every layer's cells. */
static ptl_status collect_junctions(merge* m, jedge_array* out) {
    for (uint32_t l = 0; l < m->layers; ++l) {
        const ptl_decomposition* d = &m->dc[l];
        const ptl_layer_contour* c = &m->lc[l];
        for (uint32_t cell = 0; cell < d->cell_count; ++cell) {
            uint32_t b = d->cell_start[cell], n = d->cell_start[cell + 1] - b;
            for (uint32_t i = 0; i < n; ++i) {
                if (d->cell_nbrs[b + i] != PTL_NONE) continue;
                uint32_t va = d->cell_verts[b + i], vb = d->cell_verts[b + (i + 1) % n];
                double ua = d->xy[2 * va], wa = d->xy[2 * va + 1], ub = d->xy[2 * vb], wb = d->xy[2 * vb + 1];
                int du = ub > ua ? 1 : ub < ua ? -1 : 0, dv = wb > wa ? 1 : wb < wa ? -1 : 0;
                if ((du != 0) == (dv != 0)) continue; /* diagonal: a simplified wall */
                double fixed = du ? wa : ua;
                if (fixed != floor(fixed)) continue;
                double mid = du ? 0.5 * (ua + ub) : 0.5 * (wa + wb);
                int64_t k = (int64_t)floor(mid);
                int64_t su = du ? (du > 0 ? k : k + 1) : (int64_t)ua, sv = dv ? (dv > 0 ? k : k + 1) : (int64_t)wa;
                uint32_t kind = ptl_contour_edge_kind(m->of, c, l, su, sv, du, dv);
                if (kind == PTL_NONE) continue;
                jedge e;
                e.line_axis = du ? 0 : 1;
                e.line = (int64_t)fixed + (du ? c->z0 : c->x0);
                if (PTL_KIND_IS_GAP(kind)) {
                    /* The wall side (right of the edge) faces -z, +x, +z, -x for du = 1, dv = 1,
                       du = -1, dv = -1 (ptl_contour_edge_kind); the other side's edge lies `gap`
                       lines that way. */
                    uint32_t other = PTL_KIND_LAYER(kind);
                    e.gap = PTL_KIND_GAP_COLS(kind);
                    int64_t across = e.line + ((du == 1 || dv == -1) ? -(int64_t)e.gap : (int64_t)e.gap);
                    e.gline = across < e.line ? across : e.line;
                    e.side = e.line == e.gline ? 0 : 1;
                    e.lo_layer = e.side == 0 ? l : other;
                    e.hi_layer = e.side == 0 ? other : l;
                } else {
                    uint32_t other = kind;
                    e.gap = 0;
                    e.gline = e.line;
                    e.side = l;
                    e.lo_layer = l < other ? l : other;
                    e.hi_layer = l < other ? other : l;
                }
                e.ta = (du ? ua : wa) + (du ? c->x0 : c->z0);
                e.tb = (du ? ub : wb) + (du ? c->x0 : c->z0);
                e.cell = m->coff[l] + cell;
                e.edge = i;
                e.layer = l;
                e.va = m->voff[l] + va;
                e.vb = m->voff[l] + vb;
                if (!PTL_PUSH(m->a, *out, e)) return PTL_ERR_NO_MEMORY;
            }
        }
    }
    return ptl_sort(out->data, out->count, sizeof *out->data, cmp_jedge, m->a) ? PTL_OK : PTL_ERR_NO_MEMORY;
}

static int cmp_cut(const void* pa, const void* pb) {
    const cut *a = pa, *b = pb;
    if (a->cell != b->cell) return a->cell < b->cell ? -1 : 1;
    if (a->edge != b->edge) return a->edge < b->edge ? -1 : 1;
    return a->along < b->along ? -1 : a->along > b->along;
}

static int cmp_piece(const void* pa, const void* pb) {
    const piece *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->t0 != b->t0) return a->t0 < b->t0 ? -1 : 1;
    if (a->t1 != b->t1) return a->t1 < b->t1 ? -1 : 1;
    if (a->side != b->side) return a->side < b->side ? -1 : 1;
    return a->cell < b->cell ? -1 : a->cell > b->cell;
}


/* The vertices of every layer in world space, with their layer's heights. */
static ptl_status merge_vertices(merge* m) {
    m->voff = ptl_mem_calloc(m->a, (size_t)m->layers + 1, sizeof(uint32_t));
    m->coff = ptl_mem_calloc(m->a, (size_t)m->layers + 1, sizeof(uint32_t));
    if (!m->voff || !m->coff) return PTL_ERR_NO_MEMORY;
    for (uint32_t l = 0; l < m->layers; ++l) {
        m->voff[l + 1] = m->voff[l] + m->dc[l].vert_count;
        m->coff[l + 1] = m->coff[l] + m->dc[l].cell_count;
    }
    for (uint32_t l = 0; l < m->layers; ++l) {
        /* with a memo: the heights of the merge before when the floors and the vertices are its */
        const ptl_decomposition* d = &m->dc[l];
        ptl_merge_memo_layer* ml = m->memo ? &m->memo->layer[l] : NULL;
        const bool kept = ml && m->fsame[l] && ml->dxy.count == 2 * d->vert_count &&
                          (!d->vert_count || !memcmp(ml->dxy.data, d->xy, 2 * (size_t)d->vert_count * sizeof *d->xy));
        if (ml && !kept && (!PTL_RESERVE(m->a, ml->dxy, 2 * (uint64_t)d->vert_count) ||
                            !PTL_RESERVE(m->a, ml->vy, (uint64_t)d->vert_count)))
            return PTL_ERR_NO_MEMORY;
        for (uint32_t v = 0; v < d->vert_count; ++v) {
            double u = d->xy[2 * v], w = d->xy[2 * v + 1];
            const double y = kept ? ml->vy.data[v] : layer_height(m, l, u, w);
            if (ml && !kept) ml->vy.data[v] = y;
            if (!add_vertex(m, l, u + m->lc[l].x0, w + m->lc[l].z0, y)) return PTL_ERR_NO_MEMORY;
        }
        if (ml && !kept) {
            if (d->vert_count) memcpy(ml->dxy.data, d->xy, 2 * (size_t)d->vert_count * sizeof *d->xy);
            ml->dxy.count = 2 * d->vert_count, ml->vy.count = d->vert_count;
        }
        if (kept) m->memo->heights_kept++;
    }
    return PTL_OK;
}

/* Groups: one per junction line and pair of layers (or pair of lines across a gap). Points of both
   sides on each group. */
static ptl_status merge_groups(ptl_layer_merge* lm) {
    const jedge_array* je = &lm->je;
    lm->group_of = ptl_mem_alloc(&lm->al, ((size_t)je->count + 1) * sizeof(uint32_t));
    lm->group_gap = ptl_mem_calloc(&lm->al, (size_t)je->count + 1, sizeof(uint32_t));
    if (!lm->group_of || !lm->group_gap) return PTL_ERR_NO_MEMORY;
    uint32_t groups = 0;
    for (uint32_t i = 0; i < je->count; ++i) {
        const jedge* e = &je->data[i];
        if (i > 0 && !same_group(&je->data[i - 1], e)) ++groups;
        lm->group_of[i] = groups;
        lm->group_gap[groups] = e->gap;
        jpoint a = {groups, e->ta, e->side, e->va}, b = {groups, e->tb, e->side, e->vb};
        if (!PTL_PUSH(&lm->al, lm->jp, a) || !PTL_PUSH(&lm->al, lm->jp, b)) return PTL_ERR_NO_MEMORY;
    }
    return ptl_sort(lm->jp.data, lm->jp.count, sizeof *lm->jp.data, cmp_jpoint, &lm->al) ? PTL_OK : PTL_ERR_NO_MEMORY;
}

/* Cuts: every point of one side strictly inside an edge of the other side on the same group, each
   a new vertex of this side, unified with the other side's by merge_unify. */
static ptl_status merge_cuts(ptl_layer_merge* lm) {
    merge* m = &lm->m;
    const ptl_allocator* al = &lm->al;
    PTL_ARRAY(jpoint) jp_new = {0};
    ptl_status st = PTL_OK;
    for (uint32_t i = 0, g0 = 0; i < lm->je.count && st >= 0; ++i) {
        const jedge* e = &lm->je.data[i];
        const uint32_t group = lm->group_of[i];
        while (g0 < lm->jp.count && lm->jp.data[g0].group < group) ++g0;
        double lo = fmin(e->ta, e->tb), hi = fmax(e->ta, e->tb);
        for (uint32_t k = g0; k < lm->jp.count && lm->jp.data[k].group == group && lm->jp.data[k].t < hi; ++k) {
            const jpoint* p = &lm->jp.data[k];
            if (p->side == e->side || p->t <= lo ||
                (k > g0 && lm->jp.data[k - 1].t == p->t && lm->jp.data[k - 1].side != e->side))
                continue; /* one cut per position */
            uint32_t nv = m->vlayer.count;
            const ptl_layer_contour* c = &m->lc[e->layer];
            double gu = e->line_axis == 0 ? p->t : (double)e->line, gv = e->line_axis == 0 ? (double)e->line : p->t;
            cut ct = {e->cell, e->edge, fabs(p->t - e->ta), nv};
            jpoint np = {group, p->t, e->side, nv};
            if (!add_vertex(m, e->layer, gu, gv, layer_height(m, e->layer, gu - c->x0, gv - c->z0)) ||
                !PTL_PUSH(al, lm->cuts, ct) || !PTL_PUSH(al, jp_new, np)) {
                st = PTL_ERR_NO_MEMORY;
                break;
            }
        }
    }
    for (uint32_t i = 0; i < jp_new.count && st >= 0; ++i)
        if (!PTL_PUSH(al, lm->jp, jp_new.data[i])) st = PTL_ERR_NO_MEMORY;
    PTL_ARRAY_FREE(al, jp_new);
    if (st >= 0 && (!ptl_sort(lm->cuts.data, lm->cuts.count, sizeof *lm->cuts.data, cmp_cut, al) ||
                    !ptl_sort(lm->jp.data, lm->jp.count, sizeof *lm->jp.data, cmp_jpoint, al)))
        st = PTL_ERR_NO_MEMORY;
    return st;
}

/* Unifies each side's vertex with the other side's at the same position of a group (a position a
   side holds twice, a pinch, is left alone). */
static void merge_unify(ptl_layer_merge* lm) {
    uint32_t* parent = lm->m.parent.data;
    const jpoint* jp = lm->jp.data;
    for (uint32_t i = 0; i < lm->jp.count;) {
        uint32_t j = i;
        while (j < lm->jp.count && jp[j].group == jp[i].group && jp[j].t == jp[i].t) ++j;
        if (lm->group_gap[jp[i].group]) { /* across a gap the two sides' points stay apart */
            i = j;
            continue;
        }
        uint32_t first = jp[i].side, a0 = PTL_NONE, b0 = PTL_NONE, na = 0, nb = 0;
        for (uint32_t k = i; k < j; ++k) {
            uint32_t r = find(parent, jp[k].vert);
            if (jp[k].side == first) {
                if (a0 == PTL_NONE || find(parent, a0) != r) ++na;
                a0 = a0 == PTL_NONE ? r : a0;
            } else {
                if (b0 == PTL_NONE || find(parent, b0) != r) ++nb;
                b0 = b0 == PTL_NONE ? r : b0;
            }
        }
        if (na == 1 && nb == 1) {
            uint32_t ra = find(parent, a0), rb = find(parent, b0);
            if (ra != rb) parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
        }
        i = j;
    }
}

/* The cells with the cuts inserted into their edges. */
static ptl_status merge_cells(ptl_layer_merge* lm) {
    const merge* m = &lm->m;
    const ptl_allocator* al = &lm->al;
    const cut* cuts = lm->cuts.data;
    uint32_t ci = 0;
    for (uint32_t l = 0; l < m->layers; ++l) {
        const ptl_decomposition* d = &m->dc[l];
        for (uint32_t cell = 0; cell < d->cell_count; ++cell) {
            uint32_t gc = m->coff[l] + cell;
            if (!PTL_PUSH(al, lm->cstart, lm->cverts.count) || !PTL_PUSH(al, lm->clayer, l)) return PTL_ERR_NO_MEMORY;
            uint32_t b = d->cell_start[cell], n = d->cell_start[cell + 1] - b;
            for (uint32_t i = 0; i < n; ++i) {
                uint32_t va = m->voff[l] + d->cell_verts[b + i];
                uint32_t nbr = d->cell_nbrs[b + i];
                if (!PTL_PUSH(al, lm->cverts, va) || !PTL_PUSH(al, lm->cnbrs, nbr == PTL_NONE ? PTL_NONE : m->coff[l] + nbr))
                    return PTL_ERR_NO_MEMORY;
                while (ci < lm->cuts.count && (cuts[ci].cell < gc || (cuts[ci].cell == gc && cuts[ci].edge < i))) ++ci;
                for (; ci < lm->cuts.count && cuts[ci].cell == gc && cuts[ci].edge == i; ++ci) {
                    if (!PTL_PUSH(al, lm->cverts, cuts[ci].vert) || !PTL_PUSH(al, lm->cnbrs, PTL_NONE))
                        return PTL_ERR_NO_MEMORY;
                }
            }
        }
    }
    lm->ncell = m->coff[m->layers];
    return PTL_PUSH(al, lm->cstart, lm->cverts.count) ? PTL_OK : PTL_ERR_NO_MEMORY;
}

/* Junction pieces: consecutive vertex pairs of a cell that lie on one junction edge, sorted for
   pairing. */
static ptl_status merge_pieces(ptl_layer_merge* lm) {
    for (uint32_t i = 0; i < lm->je.count; ++i) {
        const jedge* e = &lm->je.data[i];
        uint32_t b = lm->cstart.data[e->cell], n = lm->cstart.data[e->cell + 1] - b;
        /* Locate the edge's start in the new list and walk to its end. */
        uint32_t k = 0;
        while (k < n && lm->cverts.data[b + k] != e->va) ++k;
        if (k == n) continue;
        for (;;) {
            uint32_t k1 = (k + 1) % n;
            uint32_t va = lm->cverts.data[b + k], vb = lm->cverts.data[b + k1];
            const double* pa = &lm->m.lat.data[2 * va];
            const double* pb = &lm->m.lat.data[2 * vb];
            double ta = e->line_axis == 0 ? pa[0] : pa[1], tb = e->line_axis == 0 ? pb[0] : pb[1];
            piece pc = {lm->group_of[i], fmin(ta, tb), fmax(ta, tb), e->side, e->cell, va, vb, k};
            if (!PTL_PUSH(&lm->al, lm->pieces, pc)) return PTL_ERR_NO_MEMORY;
            if (vb == e->vb) break;
            k = k1;
        }
    }
    return ptl_sort(lm->pieces.data, lm->pieces.count, sizeof *lm->pieces.data, cmp_piece, &lm->al) ? PTL_OK
                                                                                                    : PTL_ERR_NO_MEMORY;
}

/* A gap link between pieces p and q: a cell of its own over the gap, the quad between the two
   pieces (each runs counter-clockwise in its cell, so the quad walks both backwards; p->va and
   q->vb lie at the same position along the lines). */
static ptl_status merge_gap_link(ptl_layer_merge* lm, const piece* p, const piece* q) {
    const ptl_allocator* al = &lm->al;
    const double* xyz = lm->m.xyz.data;
    const ptl_vx_params* vp = &lm->m.of->p;
    uint32_t lc_id = lm->ncell + lm->links.count;
    uint32_t quad[4] = {p->vb, p->va, q->vb, q->va}, qn[4] = {p->cell, PTL_NONE, q->cell, PTL_NONE};
    for (int k = 0; k < 4; ++k)
        if (!PTL_PUSH(al, lm->lverts, quad[k]) || !PTL_PUSH(al, lm->lnbrs, qn[k])) return PTL_ERR_NO_MEMORY;
    lm->cnbrs.data[lm->cstart.data[p->cell] + p->slot] = lc_id;
    lm->cnbrs.data[lm->cstart.data[q->cell] + q->slot] = lc_id;
    ptl_decomp_portal d0 = {{p->va, p->vb}, {p->cell, lc_id}}, d1 = {{q->va, q->vb}, {q->cell, lc_id}};
    double y0 = 0.5 * (xyz[3 * p->va + 1] + xyz[3 * p->vb + 1]);
    double y1 = 0.5 * (xyz[3 * q->va + 1] + xyz[3 * q->vb + 1]);
    bool swap = q->cell < p->cell;
    ptl_blob_link bl;
    memset(&bl, 0, sizeof bl);
    bl.cell = lc_id;
    bl.cells[0] = swap ? q->cell : p->cell, bl.cells[1] = swap ? p->cell : q->cell;
    bl.rise = (float)(swap ? y0 - y1 : y1 - y0);
    bl.gap = (float)(lm->group_gap[p->group] * vp->cs);
    bl.kind = fabs(bl.rise) <= vp->ch * 1.001 ? PTL_LINK_WALK : PTL_LINK_STEP;
    if (!PTL_PUSH(al, lm->portals, d0) || !PTL_PUSH(al, lm->portals, d1) || !PTL_PUSH(al, lm->links, bl) ||
        !PTL_PUSH(al, lm->llayer, y0 <= y1 ? lm->m.vlayer.data[p->va] : lm->m.vlayer.data[q->va]))
        return PTL_ERR_NO_MEMORY;
    return PTL_OK;
}

/* Pairs the pieces into portals between layers (or gap links), then the portals inside each
   layer, then the link cells after every walkable cell (navmesh_format.h). */
static ptl_status merge_portals(ptl_layer_merge* lm) {
    const merge* m = &lm->m;
    const ptl_allocator* al = &lm->al;
    const piece* pieces = lm->pieces.data;
    uint32_t* parent = m->parent.data;
    for (uint32_t i = 0; i + 1 < lm->pieces.count; ++i) {
        const piece* p = &pieces[i];
        const piece* q = &pieces[i + 1];
        if (p->group != q->group || p->t0 != q->t0 || p->t1 != q->t1 || p->side == q->side) continue;
        /* Both ends unified, and no third piece at the same place (that would be ambiguous). */
        if (i + 2 < lm->pieces.count && pieces[i + 2].group == p->group && pieces[i + 2].t0 == p->t0 &&
            pieces[i + 2].t1 == p->t1)
            continue;
        if (lm->group_gap[p->group]) {
            if (merge_gap_link(lm, p, q) < 0) return PTL_ERR_NO_MEMORY;
            ++i;
            continue;
        }
        if (find(parent, p->va) != find(parent, q->vb) || find(parent, p->vb) != find(parent, q->va)) continue;
        lm->cnbrs.data[lm->cstart.data[p->cell] + p->slot] = q->cell;
        lm->cnbrs.data[lm->cstart.data[q->cell] + q->slot] = p->cell;
        ptl_decomp_portal dp = {{p->va, p->vb}, {p->cell, q->cell}};
        if (!PTL_PUSH(al, lm->portals, dp)) return PTL_ERR_NO_MEMORY;
        ++lm->junction_portals;
        ++i;
    }
    for (uint32_t l = 0; l < m->layers; ++l) {
        for (uint32_t p = 0; p < m->dc[l].portal_count; ++p) {
            const ptl_decomp_portal* s = &m->dc[l].portals[p];
            ptl_decomp_portal dp = {{m->voff[l] + s->v[0], m->voff[l] + s->v[1]},
                                    {m->coff[l] + s->cell[0], m->coff[l] + s->cell[1]}};
            if (!PTL_PUSH(al, lm->portals, dp)) return PTL_ERR_NO_MEMORY;
        }
    }
    for (uint32_t k = 0; k < lm->links.count; ++k) {
        for (int j = 0; j < 4; ++j)
            if (!PTL_PUSH(al, lm->cverts, lm->lverts.data[4 * k + j]) || !PTL_PUSH(al, lm->cnbrs, lm->lnbrs.data[4 * k + j]))
                return PTL_ERR_NO_MEMORY;
        if (!PTL_PUSH(al, lm->cstart, lm->cverts.count) || !PTL_PUSH(al, lm->clayer, lm->llayer.data[k]))
            return PTL_ERR_NO_MEMORY;
    }
    return PTL_OK;
}

/* Final vertices: one per union-find class, in order of first appearance; heights: the highest. */
static ptl_status merge_final_vertices(ptl_layer_merge* lm) {
    const merge* m = &lm->m;
    uint32_t nv = m->vlayer.count;
    lm->remap = ptl_mem_alloc(&lm->al, ((size_t)nv + 1) * sizeof(uint32_t));
    lm->fxyz_n = ((size_t)nv + 1) * 3;
    lm->fxyz = ptl_mem_alloc(&lm->al, lm->fxyz_n * sizeof(double));
    if (!lm->remap || !lm->fxyz) return PTL_ERR_NO_MEMORY;
    memset(lm->remap, 0xff, ((size_t)nv + 1) * sizeof(uint32_t));
    uint32_t* parent = m->parent.data;
    for (uint32_t v = 0; v < nv; ++v) {
        uint32_t r = find(parent, v);
        if (lm->remap[r] == PTL_NONE) {
            lm->remap[r] = lm->nfinal++;
            memcpy(&lm->fxyz[3 * lm->remap[r]], &m->xyz.data[3 * r], 3 * sizeof(double));
        }
        double* y = &lm->fxyz[3 * lm->remap[r] + 1];
        if (m->xyz.data[3 * v + 1] > *y) *y = m->xyz.data[3 * v + 1];
    }
    for (uint32_t i = 0; i < lm->cverts.count; ++i) lm->cverts.data[i] = lm->remap[find(parent, lm->cverts.data[i])];
    for (uint32_t i = 0; i < lm->portals.count; ++i)
        for (int k = 0; k < 2; ++k) lm->portals.data[i].v[k] = lm->remap[find(parent, lm->portals.data[i].v[k])];
    return PTL_OK;
}

/* Cell areas: its layer's, the one tag of all the layer's spans (the layer stage never puts
   spans of two areas in one layer: layers.c, cut_area_borders); link cells: 0. */
static ptl_status merge_tags(ptl_layer_merge* lm) {
    const ptl_layer_map* of = lm->m.of;
    for (uint32_t c = 0; c < lm->ncell; ++c) {
        const uint32_t l = lm->clayer.data[c];
        uint16_t area = 0;
        if (l < of->layer_count && of->layer_first[l] < of->layer_first[l + 1]) {
            const ptl_lmap_bl* r = &of->bl[of->layer_bls[of->layer_first[l]]];
            area = r->tags_mixed ? 0 : r->tag;
        }
        if (!PTL_PUSH(&lm->al, lm->ctag, area)) return PTL_ERR_NO_MEMORY;
    }
    for (uint32_t k = 0; k < lm->links.count; ++k)
        if (!PTL_PUSH(&lm->al, lm->ctag, 0)) return PTL_ERR_NO_MEMORY;
    return PTL_OK;
}

/* Drops everything but what the blob is built from. */
static void merge_drop_work(ptl_layer_merge* lm) {
    const ptl_allocator* al = &lm->al;
    merge* m = &lm->m;
    const size_t nv1 = (size_t)m->vlayer.count + 1;
    ptl_mem_free(al, lm->remap, nv1 * sizeof(uint32_t));
    lm->remap = NULL;
    ptl_mem_free(al, m->voff, ((size_t)m->layers + 1) * sizeof(uint32_t));
    ptl_mem_free(al, m->coff, ((size_t)m->layers + 1) * sizeof(uint32_t));
    m->voff = m->coff = NULL;
    PTL_ARRAY_FREE(al, m->xyz);
    PTL_ARRAY_FREE(al, m->lat);
    PTL_ARRAY_FREE(al, m->parent);
    PTL_ARRAY_FREE(al, m->vlayer);
    ptl_mem_free(al, lm->group_of, ((size_t)lm->je.count + 1) * sizeof(uint32_t));
    ptl_mem_free(al, lm->group_gap, ((size_t)lm->je.count + 1) * sizeof(uint32_t));
    lm->group_of = lm->group_gap = NULL;
    PTL_ARRAY_FREE(al, lm->je);
    PTL_ARRAY_FREE(al, lm->jp);
    PTL_ARRAY_FREE(al, lm->cuts);
    PTL_ARRAY_FREE(al, lm->pieces);
    PTL_ARRAY_FREE(al, lm->lverts);
    PTL_ARRAY_FREE(al, lm->lnbrs);
    PTL_ARRAY_FREE(al, lm->llayer);
    ptl_mem_free(al, lm->lgrid, ((size_t)m->layers + 1) * sizeof *lm->lgrid);
    lm->lgrid = NULL;
    ptl_mem_free(al, lm->cforeign, (size_t)lm->ncell + 1);
    lm->cforeign = NULL;
    PTL_ARRAY_FREE(al, lm->cuv);
    PTL_ARRAY_FREE(al, lm->colst);
    PTL_ARRAY_FREE(al, lm->colrun);
    PTL_ARRAY_FREE(al, lm->crow);
    PTL_ARRAY_FREE(al, lm->colrange);
    m->of = NULL; /* the map may go now */
}

void ptl_layer_merge_free(ptl_layer_merge* lm) {
    if (!lm) return;
    const ptl_allocator al = lm->al;
    merge_drop_work(lm);
    ptl_mem_free(&al, lm->fxyz, lm->fxyz_n * sizeof(double));
    PTL_ARRAY_FREE(&al, lm->cstart);
    PTL_ARRAY_FREE(&al, lm->cverts);
    PTL_ARRAY_FREE(&al, lm->cnbrs);
    PTL_ARRAY_FREE(&al, lm->clayer);
    PTL_ARRAY_FREE(&al, lm->ctag);
    PTL_ARRAY_FREE(&al, lm->portals);
    PTL_ARRAY_FREE(&al, lm->cgrids);
    PTL_ARRAY_FREE(&al, lm->heights);
    PTL_ARRAY_FREE(&al, lm->links);
    ptl_mem_free(&al, lm, sizeof *lm);
}

static ptl_status merge_run(ptl_layer_merge* lm) {
    ptl_status st = ptl_merge_memo_begin(lm);
    if (st >= 0) st = merge_vertices(&lm->m);
    if (st >= 0) st = collect_junctions(&lm->m, &lm->je);
    if (st >= 0) st = merge_groups(lm);
    if (st >= 0) st = merge_cuts(lm);
    if (st >= 0) merge_unify(lm);
    if (st >= 0) st = merge_cells(lm);
    if (st >= 0) st = merge_pieces(lm);
    if (st >= 0) st = merge_portals(lm);
    if (st >= 0) st = merge_final_vertices(lm);
    if (st >= 0) st = merge_tags(lm);
    if (st >= 0) st = ptl_merge_grid_windows(lm);
    if (st >= 0) st = ptl_merge_heights(lm);
    ptl_merge_memo_end(lm, st);
    return st;
}

ptl_status ptl_merge_layers(const ptl_layer_map* of, const ptl_layer_contour* lc, const ptl_decomposition* dc,
                            uint32_t layers, double relax, const ptl_vx_tiling* tiling, const ptl_allocator* alloc,
                            ptl_merge_memo* memo, ptl_layer_merge** out, ptl_merge_stats* stats, ptl_error* err) {
    *out = NULL;
    ptl_allocator al = ptl_allocator_resolve(alloc);
    ptl_layer_merge* lm = ptl_mem_calloc(&al, 1, sizeof *lm);
    if (!lm) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "merge layers: out of memory");
    lm->al = al;
    lm->m.a = &lm->al;
    lm->m.of = of;
    lm->m.lc = lc;
    lm->m.dc = dc;
    lm->m.layers = layers;
    lm->m.memo = memo;
    lm->relax = relax;
    lm->tiling = tiling;
    lm->vox_cs = of->p.cs, lm->vox_ch = of->p.ch;
    memcpy(lm->vox_origin, of->p.bmin, sizeof lm->vox_origin);
    ptl_status st = merge_run(lm);
    if (st < 0) {
        ptl_layer_merge_free(lm);
        return ptl_error_set(err, st, "merge layers: %s", st == PTL_ERR_NO_MEMORY ? "out of memory" : ptl_status_message(st));
    }
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->cells = lm->ncell;
        stats->vertices = lm->nfinal;
        stats->portals = lm->portals.count;
        stats->junction_portals = lm->junction_portals;
        stats->junction_edges = lm->je.count;
        stats->links = lm->links.count;
    }
    merge_drop_work(lm);
    *out = lm;
    return PTL_OK;
}

ptl_status ptl_layer_merge_write(const ptl_layer_merge* lm, void** blob, size_t* size, ptl_error* err) {
    ptl_cpg_in in;
    memset(&in, 0, sizeof in);
    in.vert_count = lm->nfinal;
    in.xyz = lm->fxyz;
    in.cell_count = lm->ncell + lm->links.count;
    in.link_count = lm->links.count;
    in.links = lm->links.data;
    in.cell_start = lm->cstart.data;
    in.cell_verts = lm->cverts.data;
    in.cell_nbrs = lm->cnbrs.data;
    in.cell_layer = lm->clayer.data;
    in.cell_tag = lm->ctag.data;
    in.portal_count = lm->portals.count;
    in.portals = lm->portals.data;
    in.relax = lm->relax;
    in.layer_count = lm->m.layers;
    in.cell_grids = lm->cgrids.data;
    in.height_count = lm->heights.count;
    in.heights = lm->heights.data;
    in.vox_cs = lm->vox_cs, in.vox_ch = lm->vox_ch;
    if (lm->tiling) {
        in.tile_size = (uint32_t)lm->tiling->tile_size;
        in.tiles_x = (uint32_t)lm->tiling->tiles_x, in.tiles_z = (uint32_t)lm->tiling->tiles_z;
    }
    memcpy(in.vox_origin, lm->vox_origin, sizeof in.vox_origin);
    return ptl_cpg_build(&in, &lm->al, blob, size, err);
}
