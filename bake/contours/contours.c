/* Contours of a layer: corner points, junctions, simplification (see contours.h).

   1. The layer's columns form a grid map; its exact contours come from the grid tracer
      (shape_grid.c), which walks the corner points of Saupin et al. 2014 §4.1.3 and turns at slash
      and antislash points so that regions touching at a corner stay apart (§4.1.2).
   2. Each unit edge of a contour separates a column of the layer from one that is not: it is a
      junction when the layer's span there links (a climbable step with headroom, filter.c) to a
      span of another layer, and a wall otherwise. A vertex is inserted wherever the kind changes,
      so that every edge has one kind.
   3. Wall runs are simplified with as few vertices as the tolerance allows (the min-# problem of
      Imai and Iri 1988; see min_chords), the tolerance in columns, Ramer-Douglas-Peucker (Douglas
      and Peucker 1973) taking over where a chord of that solution is refused. A ring with nothing
      fixed on it is simplified from the start that suits it best (plan_closed_ring). Junctions,
      pinch points and the ends of runs stay where they are, so the layers on
      both sides of a junction keep identical vertices there and can be stitched (layer_merge.c). A
      chord replaces a piece of chain only if it crosses or touches no other edge and the pocket
      between them holds no vertex; otherwise the chain is split at its farthest point, down to its
      original edges, so the result is always a set of simple, non-crossing rings.
   4. Then a run of two or three notches that a rounded corner left is replaced by one vertex off
      the lattice, within the tolerance of the outline (corner_run), under the same checks. */
#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "contours.h"
#include "../shape/geom2.h"
#include "../shape/seggrid.h"

enum { DIR_NEG_X = 0, DIR_POS_Z = 1, DIR_POS_X = 2, DIR_NEG_Z = 3 };

/* Kind of the unit edge from lattice point (u, v) one step along (du, dv): the layer across it, or
   PTL_NONE for a wall. Free space is on the left of the edge: that column is the layer's. */
uint32_t ptl_contour_edge_kind(const ptl_layer_map* m, const ptl_layer_contour* c, uint32_t layer, int64_t u,
                               int64_t v, int du, int dv) {
    int64_t lu, lv;
    int dir;
    if (du == 1) lu = u, lv = v, dir = DIR_NEG_Z;
    else if (dv == 1) lu = u - 1, lv = v, dir = DIR_POS_X;
    else if (du == -1) lu = u - 1, lv = v - 1, dir = DIR_POS_Z;
    else lu = u, lv = v - 1, dir = DIR_NEG_X;
    if (lu < 0 || lv < 0 || lu >= (int64_t)c->w || lv >= (int64_t)c->d) return PTL_NONE;
    return ptl_lmap_edge_kind(m, layer, c->x0 + lu, c->z0 + lv, dir);
}

typedef PTL_ARRAY(double) f64_array;
typedef PTL_ARRAY(uint32_t) u32_array;

/* Step 2: rings with a vertex wherever the kind of edge changes. */
static ptl_status split_kinds(const ptl_layer_map* map, const ptl_layer_contour* c, uint32_t layer, const ptl_shape* raw,
                              const ptl_allocator* a, f64_array* xy, u32_array* rs, u32_array* kind) {
    for (uint32_t r = 0; r < raw->ring_count; ++r) {
        if (!PTL_PUSH(a, *rs, xy->count / 2)) return PTL_ERR_NO_MEMORY;
        uint32_t b = raw->ring_start[r], m = raw->ring_start[r + 1] - b;
        for (uint32_t i = 0; i < m; ++i) {
            const double* p = &raw->xy[2 * (b + i)];
            const double* q = &raw->xy[2 * (b + (i + 1) % m)];
            int du = q[0] > p[0] ? 1 : q[0] < p[0] ? -1 : 0, dv = q[1] > p[1] ? 1 : q[1] < p[1] ? -1 : 0;
            int64_t steps = (int64_t)fabs(q[0] - p[0] + q[1] - p[1]);
            uint32_t prev = PTL_VX_NONE;
            for (int64_t k = 0; k < steps; ++k) {
                int64_t u = (int64_t)p[0] + du * k, v = (int64_t)p[1] + dv * k;
                uint32_t t = ptl_contour_edge_kind(map, c, layer, u, v, du, dv);
                if (k > 0 && t == prev) continue;
                if (!PTL_PUSH(a, *xy, (double)u) || !PTL_PUSH(a, *xy, (double)v) || !PTL_PUSH(a, *kind, t))
                    return PTL_ERR_NO_MEMORY;
                prev = t;
            }
        }
    }
    if (!PTL_PUSH(a, *rs, xy->count / 2)) return PTL_ERR_NO_MEMORY;
    return PTL_OK;
}

/* ---- Step 3: simplification ------------------------------------------------------------------ */

typedef struct simp {
    const ptl_allocator* a;
    const double* xy;      /* vertices (all rings) */
    uint32_t n;
    const uint32_t* ring_of;
    uint32_t* next;        /* current successor of a kept vertex in its ring */
    uint8_t* keep;         /* 1: vertex still in its ring */
    ptl_seggrid grid;
    PTL_ARRAY(uint32_t) sa; /* segment endpoints (vertex ids) */
    PTL_ARRAY(uint32_t) sb;
    PTL_ARRAY(uint8_t) alive;
    uint32_t* stamp;
    uint32_t stamp_cap, stamp_id;
} simp;

static ptl_v2 V(const simp* s, uint32_t i) { return v2(s->xy[2 * i], s->xy[2 * i + 1]); }

static bool add_segment(simp* s, uint32_t a, uint32_t b) {
    uint32_t id = s->sa.count;
    if (!PTL_PUSH(s->a, s->sa, a) || !PTL_PUSH(s->a, s->sb, b) || !PTL_PUSH(s->a, s->alive, 1)) return false;
    if (!ptl_grow(s->a, (void**)&s->stamp, &s->stamp_cap, s->sa.count, sizeof(uint32_t))) return false;
    s->stamp[id] = 0;
    ptl_v2 p = V(s, a), q = V(s, b);
    return ptl_seggrid_insert(&s->grid, id, p.x, p.y, q.x, q.y);
}

/* Does the chord from chain[0] to chain[clen-1] cross or touch any live segment other than those of
   the chain it replaces (both ends in the chain, marked by in_chain), or does the pocket between the
   chord and the chain hold any vertex of another edge? With `over`, the chain's point at position
   `over_at` is *over instead of its vertex's (a corner not yet placed, corner_run). */
static bool chord_ok(simp* s, const uint8_t* in_chain, const uint32_t* chain, uint32_t clen, const ptl_v2* over,
                     uint32_t over_at) {
#define CV(k) (over && (k) == over_at ? *over : V(s, chain[k]))
    ptl_v2 pa = CV(0), pb = CV(clen - 1), ab = v2_sub(pb, pa);
    double len2 = v2_len2(ab);
    if (len2 == 0) return false;
    /* Bounds of the chain (the pocket lies inside them). */
    double x0 = pa.x, x1 = pa.x, y0 = pa.y, y1 = pa.y;
    for (uint32_t k = 0; k < clen; ++k) {
        ptl_v2 p = CV(k);
        x0 = fmin(x0, p.x), x1 = fmax(x1, p.x), y0 = fmin(y0, p.y), y1 = fmax(y1, p.y);
    }
    const ptl_seggrid* g = &s->grid;
    uint32_t stamp = ++s->stamp_id;
    int64_t ix0 = ptl_seggrid_ix(g, x0), ix1 = ptl_seggrid_ix(g, x1), iy0 = ptl_seggrid_iy(g, y0), iy1 = ptl_seggrid_iy(g, y1);
    for (int64_t y = iy0; y <= iy1; ++y) {
        for (int64_t x = ix0; x <= ix1; ++x) {
            for (uint32_t i = g->head[y * g->nx + x]; i != PTL_NONE; i = g->nodes[i].next) {
                uint32_t seg = g->nodes[i].seg;
                if (s->stamp[seg] == stamp) continue;
                s->stamp[seg] = stamp;
                if (!s->alive.data[seg]) continue;
                uint32_t e[2] = {s->sa.data[seg], s->sb.data[seg]};
                if (in_chain[e[0]] && in_chain[e[1]]) continue; /* part of the chain being replaced */
                ptl_v2 p = V(s, e[0]), q = V(s, e[1]);
                double o1 = v2_orient(pa, pb, p), o2 = v2_orient(pa, pb, q);
                double o3 = v2_orient(p, q, pa), o4 = v2_orient(p, q, pb);
                if (((o1 < 0 && o2 > 0) || (o1 > 0 && o2 < 0)) && ((o3 < 0 && o4 > 0) || (o3 > 0 && o4 < 0)))
                    return false;
                /* The same segment as the chord (retraced: a zero-width spike). */
                if ((v2_eq(p, pa) && v2_eq(q, pb)) || (v2_eq(p, pb) && v2_eq(q, pa))) return false;
                /* An end of this segment on the open chord, or an end of the chord inside it. */
                ptl_v2 ends[2] = {p, q};
                double os[2] = {o1, o2};
                for (int j = 0; j < 2; ++j) {
                    if (os[j] != 0 || v2_eq(ends[j], pa) || v2_eq(ends[j], pb)) continue;
                    double t = v2_dot(v2_sub(ends[j], pa), ab);
                    if (t > 0 && t < len2) return false;
                }
                ptl_v2 pq = v2_sub(q, p);
                double l2 = v2_len2(pq);
                ptl_v2 cends[2] = {pa, pb};
                double oc[2] = {o3, o4};
                for (int j = 0; j < 2; ++j) {
                    if (oc[j] != 0 || v2_eq(cends[j], p) || v2_eq(cends[j], q)) continue;
                    double t = v2_dot(v2_sub(cends[j], p), pq);
                    if (t > 0 && t < l2) return false;
                }
                /* A vertex of another edge strictly inside the pocket (chain + chord, even-odd). */
                for (int j = 0; j < 2; ++j) {
                    if (in_chain[e[j]]) continue;
                    ptl_v2 t = ends[j];
                    if (t.x < x0 || t.x > x1 || t.y < y0 || t.y > y1) continue;
                    bool inside = false; /* the pocket: the chain, closed by the chord */
                    for (uint32_t k = 0; k < clen; ++k) {
                        ptl_v2 u = CV(k), w = CV((k + 1) % clen);
                        if ((u.y > t.y) != (w.y > t.y) && t.x < (w.x - u.x) * (t.y - u.y) / (w.y - u.y) + u.x)
                            inside = !inside;
                    }
                    if (inside) return false;
                }
            }
        }
    }
#undef CV
    return true;
}

/* ---- Fewest notches ------------------------------------------------------------------------------
   Ramer-Douglas-Peucker keeps the farthest point of every chord that is off by more than the
   tolerance, and around a rounded corner or along a bumpy side of an eroded obstacle that often
   keeps two or three vertices where one would do, some of them notches. Each notch costs the
   decomposition a portal, about a cell (ANavMG §4); a convex vertex costs nothing. So a wall chain
   is simplified as a shortest path over the chords that stay within the tolerance of every point
   they replace (the min-# problem of Imai and Iri 1988, here with a cost): fewest right turns
   (notches), then the fewest vertices, each chord costing one vertex plus the area between it and
   the points it replaces, at one vertex per 4 tol^2 of area. Counting vertices alone cuts long
   slivers off convex outlines (convex.obj 17.7 m2 with RDP, 16.3 counting vertices only; the
   closed rings of go-detour-hill.obj lost 3% of its area); the area only as a tie-break still lost
   them on closed rings. At that rate a chord along a voxel staircase (about a quarter column of
   area per column of length) costs about what the vertex it saves does, so bumpy runs still get
   one chord, while a sliver along a whole side keeps its corner. The turn at a vertex is judged with the chord that reached it on its
   own best path, so the notch count is greedy, not exact. Which chords are within tolerance is
   decided with angular cones (Chan and Chin 1996): seen from one end, the directions whose ray
   passes within the tolerance of every point so far narrow as points are added, so one sweep from
   each vertex finds all its chords; a chord is within tolerance of its points (as a segment) when
   it is so seen from both ends. The vertices stay points of the voxel outline. */

/* Directions from `o` whose ray passes within the tolerance of every point added: an arc of
   directions narrower than a half turn, from `r` counter-clockwise to `l` (no trigonometry: the
   sides of the arc one point allows are its direction turned either way by asin(tol / distance)). */
typedef struct cone {
    ptl_v2 o, r, l;
    bool open; /* no point farther than the tolerance yet: every direction */
} cone;

static void cone_init(cone* c, ptl_v2 o) {
    c->o = o;
    c->r = c->l = v2(0, 0);
    c->open = true;
}

/* Is direction d within the arc r -> l (narrower than a half turn)? */
static bool in_arc(ptl_v2 r, ptl_v2 l, ptl_v2 d) { return v2_cross(r, d) >= 0 && v2_cross(d, l) >= 0; }

static bool cone_has(const cone* c, ptl_v2 q) {
    ptl_v2 d = v2_sub(q, c->o);
    if (v2_len2(d) == 0) return false;
    return c->open || in_arc(c->r, c->l, d);
}

/* Narrows the cone to the rays passing within tol of q; false once it is empty. */
static bool cone_add(cone* c, ptl_v2 q, double tol) {
    ptl_v2 d = v2_sub(q, c->o);
    double r2 = v2_len2(d);
    if (r2 <= tol * tol) return true; /* within tol of o, so of every ray */
    /* d turned by -/+ asin(tol / |d|), scaled by |d| (only directions matter) */
    double cs = sqrt(r2 - tol * tol);
    ptl_v2 perp = v2(-d.y, d.x);
    ptl_v2 nr = v2_sub(v2_scale(d, cs), v2_scale(perp, tol)), nl = v2_add(v2_scale(d, cs), v2_scale(perp, tol));
    if (c->open) {
        c->open = false;
        c->r = nr, c->l = nl;
        return true;
    }
    /* The intersection of two arcs narrower than a half turn: each side is whichever of the two
       lies within the other arc. */
    ptl_v2 rr = in_arc(c->r, c->l, nr) ? nr : c->r, ll = in_arc(c->r, c->l, nl) ? nl : c->l;
    if (!in_arc(nr, nl, rr) || !in_arc(nr, nl, ll) || v2_cross(rr, ll) < 0) return false;
    c->r = rr, c->l = ll;
    return true;
}

/* Chords span at most this many chain points: bounds the work on very long straight runs (a chain
   longer than that gets a vertex every so many points there, on the line). */
enum { CHORD_REACH = 1024 };

/* Which chords are within tolerance, for a run of points pts[0..n): a chord from point i forward by
   len points is when the cone swept forward from i holds the point it reaches (fwd) and the cone
   swept back from that point holds i (bwd). A cyclic run (a closed ring) wraps around, so the
   table serves every start. Bit (i, len) of each direction is bit off[i] + len - 1; a sweep stops
   where its cone empties, so each point has a short run of bits. */
typedef struct chord_table {
    const uint32_t* pts;
    uint32_t n;
    bool cyclic;
    uint64_t* foff; /* n + 1 */
    uint64_t* boff; /* n + 1 */
    PTL_ARRAY(uint8_t) fbits;
    PTL_ARRAY(uint8_t) bbits;
} chord_table;

static void chord_table_free(const ptl_allocator* a, chord_table* t) {
    ptl_mem_free(a, t->foff, ((size_t)t->n + 1) * sizeof(uint64_t));
    ptl_mem_free(a, t->boff, ((size_t)t->n + 1) * sizeof(uint64_t));
    PTL_ARRAY_FREE(a, t->fbits);
    PTL_ARRAY_FREE(a, t->bbits);
    memset(t, 0, sizeof *t);
}

static inline bool chord_bit(const uint64_t* off, const uint8_t* bits, uint32_t i, uint32_t len) {
    const uint64_t bit = off[i] + len - 1;
    return bit < off[i + 1] && (bits[bit / 8] >> (bit & 7) & 1);
}

/* One direction's sweeps (dir +1: forward, -1: backward). */
static bool chord_sweeps(simp* s, chord_table* t, int dir, double tol, uint64_t* off, void* bits_array) {
    PTL_ARRAY(uint8_t)* bits = bits_array;
    const uint32_t n = t->n;
    uint64_t nbits = 0;
    for (uint32_t i = 0; i < n; ++i) {
        off[i] = nbits;
        /* the farthest a chord from i may reach */
        uint32_t lmax = t->cyclic ? n - 1 : dir > 0 ? n - 1 - i : i;
        if (lmax > CHORD_REACH) lmax = CHORD_REACH;
        if (!PTL_RESERVE(s->a, *bits, nbits / 8 + lmax / 8 + 2)) return false;
        cone c;
        cone_init(&c, V(s, t->pts[i]));
        for (uint32_t len = 1; len <= lmax; ++len) {
            const uint32_t j = dir > 0 ? (i + len >= n ? i + len - n : i + len) : (i >= len ? i - len : i + n - len);
            const ptl_v2 q = V(s, t->pts[j]);
            if ((nbits & 7) == 0) bits->data[nbits / 8] = 0;
            if (cone_has(&c, q)) bits->data[nbits / 8] |= (uint8_t)(1u << (nbits & 7));
            ++nbits;
            if (!cone_add(&c, q, tol)) break;
        }
    }
    off[n] = nbits;
    return true;
}

static ptl_status chord_table_build(simp* s, const uint32_t* pts, uint32_t n, bool cyclic, double tol, chord_table* t) {
    memset(t, 0, sizeof *t);
    t->pts = pts, t->n = n, t->cyclic = cyclic;
    t->foff = ptl_mem_alloc(s->a, ((size_t)n + 1) * sizeof(uint64_t));
    t->boff = ptl_mem_alloc(s->a, ((size_t)n + 1) * sizeof(uint64_t));
    if (!t->foff || !t->boff || !chord_sweeps(s, t, 1, tol, t->foff, &t->fbits) ||
        !chord_sweeps(s, t, -1, tol, t->boff, &t->bbits)) {
        chord_table_free(s->a, t);
        return PTL_ERR_NO_MEMORY;
    }
    /* Both directions folded into the backward bits: bit (j, len) then says the chord from
       len points before j to j is usable, the one test the cheapest-path passes make. */
    for (uint32_t j = 0; j < n; ++j) {
        for (uint32_t len = 1; len <= t->boff[j + 1] - t->boff[j]; ++len) {
            const uint64_t bit = t->boff[j] + len - 1;
            const uint32_t i = j >= len ? j - len : j + n - len;
            if (!chord_bit(t->foff, t->fbits.data, i, len)) t->bbits.data[bit / 8] &= (uint8_t)~(1u << (bit & 7));
        }
    }
    return PTL_OK;
}

/* The cheapest path over the table's chords from point `start` to the end of the run (a cyclic
   run: around to `start` again), as positions from the start (0 .. last) in path[0..*np). Its cost
   (*cost: vertices and area, see above). */
static ptl_status min_chords(simp* s, const chord_table* t, uint32_t start, double tol, uint32_t* path, uint32_t* np,
                             double* cost) {
    const ptl_allocator* a = s->a;
    const uint32_t n = t->n, last = t->cyclic ? n : n - 1 - start; /* positions 0 .. last */
    const size_t np1 = (size_t)last + 1;
    uint32_t* best = ptl_mem_alloc(a, np1 * 3 * sizeof(uint32_t));
    double* area = ptl_mem_alloc(a, np1 * 2 * sizeof(double));
    ptl_status st = PTL_OK;
    if (!best || !area) {
        st = PTL_ERR_NO_MEMORY;
        goto done;
    }
    uint32_t* turns = best + np1; /* notches on the best path to each position */
    uint32_t* prev = turns + np1;
    double* pre = area + np1; /* twice the area swept from the start along the run, for chord areas */
    /* ring index of position p (p <= n, start < n): no division in the loops */
#define RI(p) (start + (p) >= n ? start + (p) - n : start + (p))
#define AT(p) (t->pts[RI(p)])
    const ptl_v2 o = V(s, AT(0));
    const double area_weight = 0.125 / (tol * tol); /* per unit of twice the area: see above */
    pre[0] = 0;
    for (uint32_t p = 1; p <= last; ++p) pre[p] = pre[p - 1] + v2_cross(v2_sub(V(s, AT(p - 1)), o), v2_sub(V(s, AT(p)), o));
    /* A chord i -> j costs a notch at i if the turn there (from i's own best chord) is to the
       right, one vertex, and the area between it and the points it replaces. */
    best[0] = 0, turns[0] = 0, prev[0] = PTL_NONE, area[0] = 0;
    for (uint32_t j = 1; j <= last; ++j) {
        best[j] = UINT32_MAX, turns[j] = UINT32_MAX, prev[j] = PTL_NONE, area[j] = INFINITY;
        const uint32_t rj = RI(j);
        const ptl_v2 pj = V(s, t->pts[rj]);
        const uint32_t lmax = (uint32_t)(t->boff[rj + 1] - t->boff[rj]) < j ? (uint32_t)(t->boff[rj + 1] - t->boff[rj]) : j;
        for (uint32_t len = 1; len <= lmax; ++len) {
            const uint32_t i = j - len, ri = rj >= len ? rj - len : rj + n - len;
            if (!chord_bit(t->boff, t->bbits.data, rj, len)) continue; /* both directions (chord_table_build) */
            const ptl_v2 pi = V(s, t->pts[ri]);
            uint32_t tn = turns[i] + (prev[i] != PTL_NONE && v2_orient(V(s, AT(prev[i])), pi, pj) < 0);
            uint32_t b = best[i] + 1;
            double ar = area[i] + 1 + area_weight * fabs(pre[j] - pre[i] + v2_cross(v2_sub(pj, o), v2_sub(pi, o)));
            if (tn < turns[j] || (tn == turns[j] && (ar < area[j] || (ar == area[j] && b < best[j]))))
                best[j] = b, turns[j] = tn, prev[j] = i, area[j] = ar;
        }
    }
#undef AT
#undef RI
    /* Adjacent points are always a chord, so every position is reached. */
    uint32_t k = 0;
    for (uint32_t j = last; j != PTL_NONE; j = prev[j]) path[k++] = j;
    for (uint32_t x = 0; x < k / 2; ++x) {
        uint32_t tmp = path[x];
        path[x] = path[k - 1 - x];
        path[k - 1 - x] = tmp;
    }
    *np = k;
    *cost = area[last];
done:
    ptl_mem_free(a, best, np1 * 3 * sizeof(uint32_t));
    ptl_mem_free(a, area, np1 * 2 * sizeof(double));
    return st;
}

/* Replaces each piece chain[path[k]] .. chain[path[k+1]] by its chord, each checked by chord_ok;
   a chord refused is split by RDP (an explicit stack of (first, last) positions in `chain`), down
   to the original edges. */
static ptl_status apply_chords(simp* s, const uint32_t* chain, const uint32_t* path, uint32_t np, double tol,
                               uint8_t* in_chain, uint32_t* seg_of) {
    PTL_ARRAY(uint32_t) stack = {0};
    ptl_status st = PTL_OK;
    /* Pushed last to first, so that the chords are taken in chain order. */
    for (uint32_t k = np - 1; st == PTL_OK && k > 0; --k)
        if (!PTL_PUSH(s->a, stack, path[k - 1]) || !PTL_PUSH(s->a, stack, path[k])) st = PTL_ERR_NO_MEMORY;
    while (st == PTL_OK && stack.count) {
        uint32_t hi = stack.data[--stack.count], lo = stack.data[--stack.count];
        if (hi <= lo + 1) continue;
        ptl_v2 a = V(s, chain[lo]), b = V(s, chain[hi]), ab = v2_sub(b, a);
        double l = sqrt(v2_len2(ab)), far = -1;
        uint32_t at = lo + 1;
        for (uint32_t k = lo + 1; k < hi; ++k) {
            double d = fabs(v2_cross(ab, v2_sub(V(s, chain[k]), a))) / l;
            if (d > far) far = d, at = k;
        }
        if (far <= tol) {
            for (uint32_t k = lo; k <= hi; ++k) in_chain[chain[k]] = 1;
            bool ok = chord_ok(s, in_chain, chain + lo, hi - lo + 1, NULL, 0);
            for (uint32_t k = lo; k <= hi; ++k) in_chain[chain[k]] = 0;
            if (ok) {
                for (uint32_t k = lo; k < hi; ++k) s->alive.data[seg_of[chain[k]]] = 0;
                for (uint32_t k = lo + 1; k < hi; ++k) s->keep[chain[k]] = 0;
                s->next[chain[lo]] = chain[hi];
                seg_of[chain[lo]] = s->sa.count;
                if (!add_segment(s, chain[lo], chain[hi])) st = PTL_ERR_NO_MEMORY;
                continue;
            }
        }
        if (!PTL_PUSH(s->a, stack, lo) || !PTL_PUSH(s->a, stack, at) || !PTL_PUSH(s->a, stack, at) ||
            !PTL_PUSH(s->a, stack, hi))
            st = PTL_ERR_NO_MEMORY;
    }
    PTL_ARRAY_FREE(s->a, stack);
    return st;
}

/* Simplifies the chain of ring vertices chain[0 .. clen), all of whose edges are walls: the chords
   of min_chords, applied by apply_chords. */
static ptl_status simplify_chain(simp* s, const uint32_t* chain, uint32_t clen, double tol, uint8_t* in_chain,
                                 uint32_t* seg_of, uint32_t* path) {
    if (clen < 3) return PTL_OK;
    chord_table t;
    uint32_t np = 0;
    double cost;
    ptl_status st = chord_table_build(s, chain, clen, false, tol, &t);
    if (st == PTL_OK) st = min_chords(s, &t, 0, tol, path, &np, &cost);
    chord_table_free(s->a, &t);
    return st == PTL_OK ? apply_chords(s, chain, path, np, tol, in_chain, seg_of) : st;
}

/* A ring with nothing fixed on it (no junction, no pinch) is closed: any of its points may start
   it. The cheapest path of min_chords counts the notches it makes at its inner vertices, not at
   its two ends, and fixing a start, say in the middle of a side or on a rounded corner, forces a
   vertex there, often a notch or two where none is needed. So the ring is simplified from its
   first point, then again from two of the vertices that path chose, a third and two thirds along
   it (likely corners of every good outline), and the closed outline with the fewest notches, then
   the lowest cost, is kept. Earlier, three spread-out points were fixed on every ring: nav_test.obj's
   main floor had 90 notches, then 80 (undulating.obj: 244 -> 211 over the mesh). A third restart
   changed no cell on any mesh once corner_run (below) ran after it, for 5% of the stage. Rings with fixed vertices
   (junctions, pinches) are still cut into chains between them. plan_closed_ring fills chain (ring
   order from the start, the start again at the end) and path, and *out_np: the path's length, 0
   when no plan keeps three vertices (the caller then fixes three, as before). */
enum { RING_RESTARTS = 2 };

static ptl_status plan_closed_ring(simp* s, uint32_t b, uint32_t m, double tol, uint32_t* chain, uint32_t* path,
                                   uint32_t* out_np) {
    for (uint32_t i = 0; i < m; ++i) chain[i] = b + i;
    chord_table t;
    uint32_t* trial = ptl_mem_alloc(s->a, ((size_t)m + 1) * sizeof(uint32_t)); /* path of each start */
    ptl_status st = trial ? chord_table_build(s, chain, m, true, tol, &t) : PTL_ERR_NO_MEMORY;
    if (st != PTL_OK) {
        ptl_mem_free(s->a, trial, ((size_t)m + 1) * sizeof(uint32_t));
        return st;
    }
    uint32_t best_np = 0;
    uint32_t best_start = 0, best_notches = UINT32_MAX, starts[1 + RING_RESTARTS], ns = 1, np = 0;
    double best_cost = INFINITY, cost;
    starts[0] = 0;
    for (uint32_t k = 0; k < ns && st == PTL_OK; ++k) {
        if ((st = min_chords(s, &t, starts[k], tol, trial, &np, &cost)) != PTL_OK) break;
        if (np < 4) continue; /* fewer than 3 vertices: the ring would collapse */
        uint32_t notches = 0;
        for (uint32_t i = 0; i + 1 < np; ++i) {
            const uint32_t pv = trial[i == 0 ? np - 2 : i - 1], nx = trial[i + 1];
            notches += v2_orient(V(s, chain[(starts[k] + pv) % m]), V(s, chain[(starts[k] + trial[i]) % m]),
                                 V(s, chain[(starts[k] + nx) % m])) < 0;
        }
        if (notches < best_notches || (notches == best_notches && cost < best_cost)) {
            best_notches = notches, best_cost = cost, best_start = starts[k], best_np = np;
            memcpy(path, trial, (size_t)np * sizeof(uint32_t));
        }
        if (k == 0) { /* restarts at vertices spread along the first outline */
            for (uint32_t r = 1; r <= RING_RESTARTS; ++r) {
                uint32_t v = trial[(uint64_t)(np - 1) * r / (RING_RESTARTS + 1)];
                bool seen = false;
                for (uint32_t q = 0; q < ns; ++q) seen |= starts[q] == v;
                if (!seen) starts[ns++] = v;
            }
        }
    }
    *out_np = 0;
    if (st == PTL_OK && best_notches != UINT32_MAX) { /* the chain from the winner's start */
        for (uint32_t i = 0; i <= m; ++i) chain[i] = b + (best_start + i) % m;
        *out_np = best_np;
    }
    chord_table_free(s->a, &t);
    ptl_mem_free(s->a, trial, ((size_t)m + 1) * sizeof(uint32_t));
    return st;
}

/* Marks vertices that must stay: ends of junction runs and pinch points (positions used twice). */
static ptl_status fixed_vertices(const ptl_allocator* a, const double* xy, uint32_t n, const uint32_t* rs,
                                 uint32_t rings, const uint32_t* kind, uint8_t* fixed) {
    /* Pinches: sort vertex ids by position. */
    uint32_t* ord = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    if (!ord) return PTL_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < n; ++i) ord[i] = i;
    for (uint32_t gap = n / 2; gap > 0; gap /= 2) {
        for (uint32_t i = gap; i < n; ++i) {
            uint32_t t = ord[i], j = i;
            for (; j >= gap; j -= gap) {
                uint32_t u = ord[j - gap];
                bool less = xy[2 * u] < xy[2 * t] || (xy[2 * u] == xy[2 * t] && (xy[2 * u + 1] < xy[2 * t + 1] ||
                                                                             (xy[2 * u + 1] == xy[2 * t + 1] && u < t)));
                if (less) break;
                ord[j] = u;
            }
            ord[j] = t;
        }
    }
    for (uint32_t i = 0; i + 1 < n; ++i) {
        uint32_t u = ord[i], v = ord[i + 1];
        if (xy[2 * u] == xy[2 * v] && xy[2 * u + 1] == xy[2 * v + 1]) fixed[u] = fixed[v] = 1;
    }
    ptl_mem_free(a, ord, ((size_t)n + 1) * sizeof(uint32_t));
    for (uint32_t r = 0; r < rings; ++r) {
        uint32_t b = rs[r], m = rs[r + 1] - b;
        for (uint32_t i = 0; i < m; ++i) {
            uint32_t k = b + i, prev = b + (i + m - 1) % m;
            if (kind[k] != PTL_NONE || kind[prev] != PTL_NONE) fixed[k] = 1; /* ends of junction edges */
        }
    }
    return PTL_OK;
}

/* Fixes three spread-out vertices of ring [b, b + m) so that it cannot collapse: the first, the
   farthest from it, the farthest from their line. */
static void fix_spread(const double* xy, uint32_t b, uint32_t m, uint8_t* fixed) {
    uint32_t f0 = b, f1 = b, f2 = b;
    double best = -1;
    for (uint32_t k = b; k < b + m; ++k) {
        double d = hypot(xy[2 * k] - xy[2 * f0], xy[2 * k + 1] - xy[2 * f0 + 1]);
        if (d > best) best = d, f1 = k;
    }
    ptl_v2 p = v2(xy[2 * f0], xy[2 * f0 + 1]), q = v2(xy[2 * f1], xy[2 * f1 + 1]);
    best = -1;
    for (uint32_t k = b; k < b + m; ++k) {
        double d = fabs(v2_orient(p, q, v2(xy[2 * k], xy[2 * k + 1])));
        if (d > best) best = d, f2 = k;
    }
    fixed[f0] = fixed[f1] = fixed[f2] = 1;
}

/* ---- One notch for a corner -----------------------------------------------------------------
   The chords above join points of the voxel outline. Around a corner of an obstacle rounded by the
   erosion (a disc of the agent's radius swept along its sides) and cut into steps by the voxels,
   often no single outline point lies within the tolerance of both sides, and the corner keeps two
   or three notches a short edge apart (nav_test.obj's boxes turned 5 degrees: most of them). So,
   once a ring is simplified, each run of two or three consecutive movable vertices between kept
   vertices p and q may be replaced by one point Y anywhere within the tolerance of the outline
   when that leaves fewer notches at p, Y and q than there were at p, the run and q. Y lies on the
   layer's boundary as the new edges describe it (every vertex still on an obstacle boundary,
   DESIGN.md; nothing is added inside the walkable area), and every outline point from p to q stays
   within the tolerance of p -> Y -> q, as with any chord. Candidates for Y: where the lines of the
   edges before and after the run meet (the sides kept as they are), and, for each place where the
   outline may pass from the first new edge to the second, the meeting points of the sides and
   middles of the two cones of directions from p and from q that pass within the tolerance of the
   outline points on their side (the cones of the chord table). The fewest notches win, then the
   smallest sum of squared distances from the outline points to the new edges. The new edges are
   checked as chords are (chord_ok); a moved vertex stays where it is. nav_test.obj: 97 -> 88
   cells. */
enum { CORNER_RUN = 3 }; /* the longest run replaced */

static double seg_dist2(ptl_v2 q, ptl_v2 a, ptl_v2 b) {
    const ptl_v2 ab = v2_sub(b, a);
    const double l2 = v2_len2(ab);
    double t = l2 > 0 ? v2_dot(v2_sub(q, a), ab) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return v2_dist2(q, v2_add(a, v2_scale(ab, t)));
}

static inline int notch3(ptl_v2 a, ptl_v2 b, ptl_v2 c) { return v2_orient(a, b, c) < 0; }

typedef struct corner {
    simp* s;
    double* xy;       /* the vertices, writable */
    uint32_t rb, rm;  /* the ring: vertices rb .. rb + rm */
    double tol, tol2;
    uint8_t* fixed;   /* never moved or dropped; a moved vertex joins them */
    uint8_t* in_chain;
    uint32_t* seg_of;
    uint8_t* tried;   /* per vertex: the runs from it were tried and nothing around it moved since */
    PTL_ARRAY(cone) cones; /* scratch */
    bool oom;
    /* the run under study */
    uint32_t pp, p, q, qq, a, b;
    int best_n;
    double best_fit;
    ptl_v2 best;
} corner;

static inline uint32_t ring_step(const corner* c, uint32_t i, uint32_t by) { return c->rb + (i - c->rb + by) % c->rm; }

/* Candidate Y for the run: kept when it leaves fewer notches than the best so far, or as many with
   a smaller sum of squared distances. Y must lie within the tolerance of the outline from a to b,
   every outline point from p to q within it of p -> Y -> q, and p, Y, q must not fold back. */
static void corner_try(corner* c, ptl_v2 Y) {
    const simp* s = c->s;
    const ptl_v2 vp = V(s, c->p), vq = V(s, c->q);
    const int nn = notch3(V(s, c->pp), vp, Y) + notch3(vp, Y, vq) + notch3(Y, vq, V(s, c->qq));
    if (nn > c->best_n || (nn == c->best_n && c->best_fit == INFINITY)) return; /* needs fewer than the run's */
    if (v2_orient(vp, Y, vq) == 0 && v2_dot(v2_sub(Y, vp), v2_sub(vq, Y)) <= 0) return;
    bool near = false;
    for (uint32_t i = c->a; i != c->b && !near; i = ring_step(c, i, 1))
        near = seg_dist2(Y, V(s, i), V(s, ring_step(c, i, 1))) <= c->tol2;
    if (!near) return;
    const double bound = nn < c->best_n ? INFINITY : c->best_fit;
    double sum = 0;
    for (uint32_t i = c->p;; i = ring_step(c, i, 1)) {
        const ptl_v2 r = V(s, i);
        const double d = fmin(seg_dist2(r, vp, Y), seg_dist2(r, Y, vq));
        if (d > c->tol2 || (sum += d) >= bound) return;
        if (i == c->q) break;
    }
    c->best_n = nn, c->best_fit = sum, c->best = Y;
}

/* The rays of a cone to meet: its sides and its middle, or, while it is open, the direction to the
   outline point `toward`. */
static uint32_t cone_rays(const cone* k, ptl_v2 toward, ptl_v2* d) {
    if (k->open) {
        d[0] = v2_sub(toward, k->o);
        return 1;
    }
    d[0] = k->r, d[1] = k->l;
    d[2] = v2_add(v2_scale(k->r, 1 / sqrt(v2_len2(k->r))), v2_scale(k->l, 1 / sqrt(v2_len2(k->l))));
    return 3;
}

/* Is y a vertex of a live edge outside the chain (chord_ok lets a chord end on one: a new pinch)? */
static bool on_vertex(simp* s, const uint8_t* in_chain, ptl_v2 y) {
    const ptl_seggrid* g = &s->grid;
    for (uint32_t i = g->head[ptl_seggrid_iy(g, y.y) * g->nx + ptl_seggrid_ix(g, y.x)]; i != PTL_NONE; i = g->nodes[i].next) {
        const uint32_t seg = g->nodes[i].seg, e0 = s->sa.data[seg], e1 = s->sb.data[seg];
        if (!s->alive.data[seg]) continue;
        if ((!in_chain[e0] && v2_eq(V(s, e0), y)) || (!in_chain[e1] && v2_eq(V(s, e1), y))) return true;
    }
    return false;
}

/* Tries to replace the run L[0 .. k) between p = the vertex before L[0] and q (pp before p, qq
   after q) by one vertex. True when done: L[0] moves to Y, the others are dropped. */
static bool corner_run(corner* c, uint32_t pp, uint32_t p, const uint32_t* L, uint32_t k, uint32_t q, uint32_t qq) {
    simp* s = c->s;
    const uint32_t a = L[0], b = L[k - 1];
    const ptl_v2 vp = V(s, p), vq = V(s, q);
    int own = 0; /* the run's notches: none, nothing to gain (measured: no corner lost) */
    for (uint32_t i = 0; i < k; ++i) own += notch3(V(s, i ? L[i - 1] : p), V(s, L[i]), V(s, i + 1 < k ? L[i + 1] : q));
    if (own == 0) return false;
    const int old = own + notch3(V(s, pp), vp, V(s, a)) + notch3(V(s, b), vq, V(s, qq));
    c->pp = pp, c->p = p, c->q = q, c->qq = qq, c->a = a, c->b = b;
    c->best_n = old, c->best_fit = INFINITY;
    { /* the sides as they are */
        const ptl_v2 va = V(s, a), vb = V(s, b), d1 = v2_sub(va, vp), d2 = v2_sub(vq, vb);
        const double den = v2_cross(d1, d2);
        const double t = den != 0 ? v2_cross(v2_sub(vb, va), d2) / den : 0;
        const double u = den != 0 ? v2_cross(v2_sub(vb, va), d1) / den : 0;
        if (t > 0 && u < 0) corner_try(c, v2_add(va, v2_scale(d1, t)));
    }
    /* Outline positions 0 (p) .. m (q); a at ia, b at ib. The edge p -> Y covers positions 1 .. j,
       Y -> q covers j + 1 .. m - 1, for j from ia - 1 to ib: the forward cone from p after j
       points, the backward cone from q after m - 1 - j. Both kept for those j only. */
    uint32_t m = 0, ia = 0, ib = 0;
    for (uint32_t i = p; i != q; i = ring_step(c, i, 1), ++m) {
        if (i == a) ia = m;
        if (i == b) ib = m;
    }
    const uint32_t j0 = ia - 1, w = ib - j0 + 1; /* ia >= 1 */
    if (!PTL_RESERVE(s->a, c->cones, 2 * (size_t)w)) {
        c->oom = true;
        return false;
    }
    cone* fc = c->cones.data; /* fc[j - j0]: the cone from p over positions 1 .. j */
    cone* bc = fc + w;        /* bc[j - j0]: the cone from q over positions m - 1 .. j + 1 */
    uint32_t fmax = 0, bmin = m; /* the cones are valid for j <= fmax and for j + 1 >= bmin */
    cone k1;
    cone_init(&k1, vp);
    for (uint32_t t = 0; t <= ib; ++t) {
        if (t > 0 && !cone_add(&k1, V(s, ring_step(c, p, t)), c->tol)) break;
        if (t >= j0) fc[t - j0] = k1;
        fmax = t;
    }
    cone_init(&k1, vq);
    for (uint32_t t = m; t >= ia; --t) {
        if (t < m && !cone_add(&k1, V(s, ring_step(c, p, t)), c->tol)) break;
        if (t <= ib + 1) bc[t - 1 - j0] = k1;
        bmin = t;
    }
    const ptl_v2 pq = v2_sub(vq, vp);
    for (uint32_t j = j0; j <= ib && j <= fmax; ++j) {
        if (j + 1 < bmin) continue;
        ptl_v2 fd[3], bd[3];
        const uint32_t nf = cone_rays(&fc[j - j0], V(s, ring_step(c, p, j)), fd);
        const uint32_t nb = cone_rays(&bc[j - j0], V(s, ring_step(c, p, j + 1)), bd);
        for (uint32_t x = 0; x < nf; ++x) {
            for (uint32_t y = 0; y < nb; ++y) {
                const double den = v2_cross(fd[x], bd[y]);
                if (den == 0) continue;
                const double t = v2_cross(pq, bd[y]) / den, u = v2_cross(pq, fd[x]) / den;
                if (t > 0 && u > 0) corner_try(c, v2_add(vp, v2_scale(fd[x], t)));
            }
        }
    }
    if (c->best_n >= old) return false;
    /* The new edges must cross or touch nothing and gain no vertex: chord_ok on p .. b -> Y, then on
       Y -> b -> q (Y given as a point: it has no vertex yet). */
    uint32_t c1[CORNER_RUN + 2], c2[3] = {b, b, q};
    c1[0] = p;
    for (uint32_t i = 0; i < k; ++i) c1[1 + i] = L[i];
    c1[k + 1] = b;
    for (uint32_t i = 0; i < k + 1; ++i) c->in_chain[c1[i]] = 1;
    c->in_chain[q] = 1;
    const bool ok = !on_vertex(s, c->in_chain, c->best) && chord_ok(s, c->in_chain, c1, k + 2, &c->best, k + 1) &&
                    chord_ok(s, c->in_chain, c2, 3, &c->best, 0);
    for (uint32_t i = 0; i < k + 1; ++i) c->in_chain[c1[i]] = 0;
    c->in_chain[q] = 0;
    if (!ok) return false;
    s->alive.data[c->seg_of[p]] = 0;
    for (uint32_t i = 0; i < k; ++i) s->alive.data[c->seg_of[L[i]]] = 0;
    for (uint32_t i = 1; i < k; ++i) s->keep[L[i]] = 0;
    c->xy[2 * a] = c->best.x, c->xy[2 * a + 1] = c->best.y;
    c->fixed[a] = 1;
    s->next[a] = q;
    return true;
}

/* Replaces runs of ring [rb, rb + rm) until none can be (list: scratch of rm entries). A run is
   tried again only when a vertex within two of it moved or went. */
static ptl_status corner_ring(corner* c, uint32_t* list) {
    simp* s = c->s;
    uint32_t n = 0;
    for (uint32_t i = c->rb; i < c->rb + c->rm; ++i)
        if (s->keep[i]) list[n++] = i;
    bool changed = true;
    while (changed && n >= 5 && !c->oom) {
        changed = false;
        for (uint32_t i = 0; i < n && n >= 5 && !c->oom; ++i) {
            if (c->tried[list[i]]) continue;
            c->tried[list[i]] = 1;
            uint32_t run[CORNER_RUN], k = 0;
            while (k < CORNER_RUN && k + 4 <= n && !c->fixed[list[(i + k) % n]]) {
                run[k] = list[(i + k) % n];
                ++k;
            }
            for (uint32_t len = k; len >= 2; --len) {
                const uint32_t p = list[(i + n - 1) % n], q = list[(i + len) % n];
                if (!corner_run(c, list[(i + n - 2) % n], p, run, len, q, list[(i + len + 1) % n])) continue;
                c->seg_of[p] = s->sa.count;
                if (!add_segment(s, p, run[0])) return PTL_ERR_NO_MEMORY;
                c->seg_of[run[0]] = s->sa.count;
                if (!add_segment(s, run[0], q)) return PTL_ERR_NO_MEMORY;
                uint32_t w = 0, z = 0;
                for (uint32_t j = 0; j < n; ++j) {
                    if (list[j] == run[0]) z = w;
                    if (s->keep[list[j]]) list[w++] = list[j];
                }
                n = w;
                /* to try again: the runs from z - 4 to z + 2, whose vertices (from two before to two
                   after) include the moved one */
                for (uint32_t d = 0; d <= CORNER_RUN + 3 && d < n; ++d) c->tried[list[(z + 2 + n - d) % n]] = 0;
                changed = true;
                break;
            }
        }
    }
    return c->oom ? PTL_ERR_NO_MEMORY : PTL_OK;
}

static ptl_status simplify(const ptl_allocator* a, double tol, f64_array* xy, u32_array* rs, u32_array* kind) {
    uint32_t n = xy->count / 2, rings = rs->count - 1;
    simp s;
    memset(&s, 0, sizeof s);
    s.a = a;
    s.xy = xy->data;
    s.n = n;
    uint8_t* fixed = ptl_mem_calloc(a, (size_t)n + 1, 1);
    uint8_t* in_chain = ptl_mem_calloc(a, (size_t)n + 1, 1);
    uint32_t* seg_of = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    uint32_t* chain = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    uint32_t* path = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    s.next = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    s.keep = ptl_mem_alloc(a, (size_t)n + 1);
    ptl_status st = PTL_OK;
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        x0 = fmin(x0, xy->data[2 * i]), x1 = fmax(x1, xy->data[2 * i]);
        y0 = fmin(y0, xy->data[2 * i + 1]), y1 = fmax(y1, xy->data[2 * i + 1]);
    }
    if (!fixed || !in_chain || !seg_of || !chain || !path || !s.next || !s.keep || !ptl_seggrid_init(&s.grid, a, x0, y0, x1, y1, n)) {
        st = PTL_ERR_NO_MEMORY;
        goto done;
    }
    memset(s.keep, 1, (size_t)n + 1);
    for (uint32_t r = 0; r < rings && st == PTL_OK; ++r) {
        uint32_t b = rs->data[r], m = rs->data[r + 1] - b;
        for (uint32_t i = 0; i < m; ++i) {
            uint32_t k = b + i;
            s.next[k] = b + (i + 1) % m;
            seg_of[k] = s.sa.count;
            if (!add_segment(&s, k, s.next[k])) st = PTL_ERR_NO_MEMORY;
        }
    }
    if (st == PTL_OK) st = fixed_vertices(a, xy->data, n, rs->data, rings, kind->data, fixed);
    /* Ring by ring, in order (deterministic): a closed ring as a whole, else chains of wall edges
       between fixed vertices. */
    for (uint32_t r = 0; r < rings && st == PTL_OK && tol > 0; ++r) {
        uint32_t b = rs->data[r], m = rs->data[r + 1] - b, start = PTL_NONE;
        for (uint32_t k = b; k < b + m && start == PTL_NONE; ++k)
            if (fixed[k]) start = k;
        if (start == PTL_NONE) {
            uint32_t np = 0;
            st = plan_closed_ring(&s, b, m, tol, chain, path, &np);
            if (st != PTL_OK) break;
            if (np >= 4) {
                st = apply_chords(&s, chain, path, np, tol, in_chain, seg_of);
                continue;
            }
        }
        fix_spread(xy->data, b, m, fixed); /* whatever else is fixed: no ring falls below 3 */
        start = PTL_NONE;
        for (uint32_t k = b; k < b + m && start == PTL_NONE; ++k)
            if (fixed[k]) start = k;
        uint32_t k = start;
        do {
            uint32_t clen = 0;
            chain[clen++] = k;
            uint32_t j = k;
            bool wall = kind->data[k] == PTL_NONE;
            do {
                j = b + (j - b + 1) % m;
                chain[clen++] = j;
            } while (!fixed[j]);
            if (wall) st = simplify_chain(&s, chain, clen, tol, in_chain, seg_of, path);
            k = j;
        } while (k != start && st == PTL_OK);
    }
    corner cr = {.s = &s, .xy = xy->data, .tol = tol, .tol2 = tol * tol, .fixed = fixed, .in_chain = in_chain,
                 .seg_of = seg_of, .tried = (uint8_t*)path}; /* path is free now: no more memory at the peak */
    memset(path, 0, (size_t)n + 1);
    for (uint32_t r = 0; r < rings && st == PTL_OK && tol > 0; ++r) {
        cr.rb = rs->data[r], cr.rm = rs->data[r + 1] - rs->data[r];
        st = corner_ring(&cr, chain);
    }
    PTL_ARRAY_FREE(a, cr.cones);
    if (st == PTL_OK) {
        /* Compact the kept vertices. */
        uint32_t w = 0, rw = 0;
        for (uint32_t r = 0; r < rings; ++r) {
            uint32_t b = rs->data[r], e = rs->data[r + 1];
            rs->data[rw++] = w;
            for (uint32_t k = b; k < e; ++k) {
                if (!s.keep[k]) continue;
                xy->data[2 * w] = xy->data[2 * k];
                xy->data[2 * w + 1] = xy->data[2 * k + 1];
                kind->data[w] = kind->data[k];
                ++w;
            }
        }
        rs->data[rw] = w;
        xy->count = 2 * w;
        kind->count = w;
    }
done:
    ptl_seggrid_free(&s.grid);
    PTL_ARRAY_FREE(a, s.sa);
    PTL_ARRAY_FREE(a, s.sb);
    PTL_ARRAY_FREE(a, s.alive);
    ptl_mem_free(a, s.stamp, (size_t)s.stamp_cap * sizeof(uint32_t));
    ptl_mem_free(a, fixed, (size_t)n + 1);
    ptl_mem_free(a, in_chain, (size_t)n + 1);
    ptl_mem_free(a, seg_of, ((size_t)n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, chain, ((size_t)n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, path, ((size_t)n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, s.next, ((size_t)n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, s.keep, (size_t)n + 1);
    return st;
}

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
                    f64_array* xy) {
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
static ptl_status trace_layer(const ptl_layer_map* m, const ptl_layer_info* li, uint32_t layer, const ptl_allocator* a,
                              f64_array* xy, u32_array* starts) {
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

/* ---- The layer ------------------------------------------------------------------------------- */

void ptl_layer_contour_free(ptl_layer_contour* c) {
    if (!c) return;
    ptl_mem_free(&c->alloc, c->edge_to, ((size_t)c->shape.vert_count + 1) * sizeof(uint32_t));
    ptl_shape_free(&c->shape);
    memset(c, 0, sizeof *c);
}

ptl_status ptl_contour_layer(const ptl_layer_map* m, const ptl_layer_set* ls, uint32_t layer, double max_error,
                             const ptl_allocator* alloc, ptl_layer_contour* out, ptl_error* err) {
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    out->alloc = a;
    if (layer >= ls->layer_count) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "contours: no layer %u", layer);
    const ptl_layer_info* li = &ls->layers[layer];
    out->x0 = li->x0, out->z0 = li->z0;
    out->w = (uint32_t)(li->x1 - li->x0 + 1), out->d = (uint32_t)(li->z1 - li->z0 + 1);
    out->layer = layer;
    f64_array rxy = {0};
    u32_array rstart = {0};
    ptl_status st = trace_layer(m, li, layer, &a, &rxy, &rstart);
    if (st < 0) {
        PTL_ARRAY_FREE(&a, rxy);
        PTL_ARRAY_FREE(&a, rstart);
        return ptl_error_set(err, st, "contours: out of memory");
    }
    ptl_shape raw; /* a view of the traced rings (not freed as a shape) */
    memset(&raw, 0, sizeof raw);
    raw.xy = rxy.data, raw.vert_count = rxy.count / 2;
    raw.ring_start = rstart.data, raw.ring_count = rstart.count ? rstart.count - 1 : 0;
    f64_array xy = {0};
    u32_array rs = {0}, kind = {0};
    st = split_kinds(m, out, layer, &raw, &a, &xy, &rs, &kind);
    PTL_ARRAY_FREE(&a, rxy);
    PTL_ARRAY_FREE(&a, rstart);
    if (st == PTL_OK) st = simplify(&a, max_error, &xy, &rs, &kind);
    if (st == PTL_OK) {
        uint32_t n = xy.count / 2;
        out->shape.alloc = a;
        out->shape.vert_count = n;
        out->shape.ring_count = rs.count - 1;
        out->shape.xy = ptl_mem_alloc(&a, (size_t)n * 2 * sizeof(double));
        out->shape.ring_start = ptl_mem_alloc(&a, (size_t)rs.count * sizeof(uint32_t));
        out->edge_to = ptl_mem_alloc(&a, ((size_t)n + 1) * sizeof(uint32_t));
        if (!out->shape.xy || !out->shape.ring_start || !out->edge_to) {
            st = PTL_ERR_NO_MEMORY;
        } else {
            memcpy(out->shape.xy, xy.data, (size_t)n * 2 * sizeof(double));
            memcpy(out->shape.ring_start, rs.data, (size_t)rs.count * sizeof(uint32_t));
            memcpy(out->edge_to, kind.data, (size_t)n * sizeof(uint32_t));
        }
    }
    PTL_ARRAY_FREE(&a, xy);
    PTL_ARRAY_FREE(&a, rs);
    PTL_ARRAY_FREE(&a, kind);
    if (st < 0) {
        ptl_layer_contour_free(out);
        return ptl_error_set(err, st, "contours: out of memory");
    }
    return ptl_error_ok(err);
}

/* Highest floor of the layer among the columns touching local point (u, v); the nearest of its
   columns within 3 when none touches (a simplified contour may pass just outside the columns). */
double ptl_contour_height(const ptl_layer_map* m, const ptl_layer_contour* c, double u, double v) {
    int64_t u0 = (int64_t)floor(u), v0 = (int64_t)floor(v);
    int64_t ua = u == (double)u0 ? u0 - 1 : u0, va = v == (double)v0 ? v0 - 1 : v0;
    int best = -1;
    for (int64_t z = va; z <= v0; ++z) {
        for (int64_t x = ua; x <= u0; ++x) {
            const int32_t f = ptl_contour_floor(m, c, x, z);
            if (f > best) best = f;
        }
    }
    if (best < 0) {
        double bd = 1e30;
        for (int64_t z = v0 - 3; z <= v0 + 3; ++z) {
            for (int64_t x = u0 - 3; x <= u0 + 3; ++x) {
                const int32_t f = ptl_contour_floor(m, c, x, z);
                if (f < 0) continue;
                double dx = (double)x + 0.5 - u, dz = (double)z + 0.5 - v, d2 = dx * dx + dz * dz;
                if (d2 < bd) bd = d2, best = f;
            }
        }
    }
    return m->p.bmin[1] + (double)(best < 0 ? 0 : best) * m->p.ch;
}
