/* Step 3 of the contours (contours.c): wall runs simplified with as few vertices, then notches, as
   the tolerance allows, under checks that keep the rings simple and apart; then step 4 (corners,
   contours_corner.c). */
#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "contours_internal.h"

/* Vertex i of the rings. */
static inline ptl_v2 V(const ptl_contours_simp* s, uint32_t i) { return ptl_contours_v(s, i); }

bool ptl_contours_add_segment(ptl_contours_simp* s, uint32_t a, uint32_t b) {
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
bool ptl_contours_chord_ok(ptl_contours_simp* s, const uint8_t* in_chain, const uint32_t* chain, uint32_t clen, const ptl_v2* over,
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

void ptl_contours_cone_init(ptl_contours_cone* c, ptl_v2 o) {
    c->o = o;
    c->r = c->l = v2(0, 0);
    c->open = true;
}

/* Is direction d within the arc r -> l (narrower than a half turn)? */
static inline bool in_arc(ptl_v2 r, ptl_v2 l, ptl_v2 d) { return v2_cross(r, d) >= 0 && v2_cross(d, l) >= 0; }

/* Narrows the cone to the rays passing within tol of q, whose offset from the apex is d (|d|^2 =
   r2); false once it is empty. */
static inline bool cone_narrow(ptl_contours_cone* c, ptl_v2 d, double r2, double tol) {
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

bool ptl_contours_cone_add(ptl_contours_cone* c, ptl_v2 q, double tol) {
    const ptl_v2 d = v2_sub(q, c->o);
    return cone_narrow(c, d, v2_len2(d), tol);
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
static bool chord_sweeps(ptl_contours_simp* s, chord_table* t, int dir, double tol, uint64_t* off, void* bits_array) {
    PTL_ARRAY(uint8_t)* bits = bits_array;
    const uint32_t n = t->n;
    uint64_t nbits = 0;
    for (uint32_t i = 0; i < n; ++i) {
        off[i] = nbits;
        /* the farthest a chord from i may reach */
        uint32_t lmax = t->cyclic ? n - 1 : dir > 0 ? n - 1 - i : i;
        if (lmax > CHORD_REACH) lmax = CHORD_REACH;
        if (!PTL_RESERVE(s->a, *bits, nbits / 8 + lmax / 8 + 2)) return false;
        ptl_contours_cone c;
        ptl_contours_cone_init(&c, V(s, t->pts[i]));
        for (uint32_t len = 1; len <= lmax; ++len) {
            const uint32_t j = dir > 0 ? (i + len >= n ? i + len - n : i + len) : (i >= len ? i - len : i + n - len);
            /* does the cone hold q (a point off the apex, in the arc or any while the cone is
               open), then the cone narrowed by q: one offset and length for both, in line */
            const ptl_v2 d = v2_sub(V(s, t->pts[j]), c.o);
            const double r2 = v2_len2(d);
            if ((nbits & 7) == 0) bits->data[nbits / 8] = 0;
            if (r2 != 0 && (c.open || in_arc(c.r, c.l, d))) bits->data[nbits / 8] |= (uint8_t)(1u << (nbits & 7));
            ++nbits;
            if (!cone_narrow(&c, d, r2, tol)) break;
        }
    }
    off[n] = nbits;
    return true;
}

static ptl_status chord_table_build(ptl_contours_simp* s, const uint32_t* pts, uint32_t n, bool cyclic, double tol, chord_table* t) {
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
static ptl_status min_chords(ptl_contours_simp* s, const chord_table* t, uint32_t start, double tol, uint32_t* path, uint32_t* np,
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
static ptl_status apply_chords(ptl_contours_simp* s, const uint32_t* chain, const uint32_t* path, uint32_t np, double tol,
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
            bool ok = ptl_contours_chord_ok(s, in_chain, chain + lo, hi - lo + 1, NULL, 0);
            for (uint32_t k = lo; k <= hi; ++k) in_chain[chain[k]] = 0;
            if (ok) {
                for (uint32_t k = lo; k < hi; ++k) s->alive.data[seg_of[chain[k]]] = 0;
                for (uint32_t k = lo + 1; k < hi; ++k) s->keep[chain[k]] = 0;
                s->next[chain[lo]] = chain[hi];
                seg_of[chain[lo]] = s->sa.count;
                if (!ptl_contours_add_segment(s, chain[lo], chain[hi])) st = PTL_ERR_NO_MEMORY;
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

/* The points of run[0 .. n) gathered in s->run_xy (a plan's key). false: out of memory. */
static bool gather_run(ptl_contours_simp* s, const uint32_t* run, uint32_t n) {
    if (!PTL_RESERVE(s->a, s->run_xy, (uint64_t)n * 2 + 1)) return false;
    for (uint32_t i = 0; i < n; ++i)
        s->run_xy.data[2 * i] = s->xy[2 * run[i]], s->run_xy.data[2 * i + 1] = s->xy[2 * run[i] + 1];
    s->run_xy.count = 2 * n;
    return true;
}

/* Simplifies the chain of ring vertices chain[0 .. clen), all of whose edges are walls: the chords
   of min_chords (or of the kept plan of the same points: contours_plans.c), applied by apply_chords. */
static ptl_status simplify_chain(ptl_contours_simp* s, const uint32_t* chain, uint32_t clen, double tol, uint8_t* in_chain,
                                 uint32_t* seg_of, uint32_t* path) {
    if (clen < 3) return PTL_OK;
    uint32_t np = 0;
    uint64_t h = 0;
    const ptl_contour_plan* q = NULL;
    if ((s->plans || s->old_plans) && !gather_run(s, chain, clen)) return PTL_ERR_NO_MEMORY;
    if (s->plans || s->old_plans) q = ptl_contour_plans_find(s->old_plans, s->run_xy.data, clen, false, tol, &h);
    ptl_status st = PTL_OK;
    if (q) {
        np = q->np;
        memcpy(path, s->old_plans->path.data + q->path_at, (size_t)np * sizeof *path);
    } else {
        chord_table t;
        double cost;
        st = chord_table_build(s, chain, clen, false, tol, &t);
        if (st == PTL_OK) st = min_chords(s, &t, 0, tol, path, &np, &cost);
        chord_table_free(s->a, &t);
    }
    if (st == PTL_OK && s->plans && !ptl_contour_plans_add(s->plans, s->a, h, s->run_xy.data, clen, false, tol, 0, path, np))
        st = PTL_ERR_NO_MEMORY;
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

static ptl_status plan_closed_ring_made(ptl_contours_simp* s, uint32_t b, uint32_t m, double tol, uint32_t* chain,
                                        uint32_t* path, uint32_t* out_np, uint32_t* out_start) {
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
    *out_np = 0, *out_start = 0;
    if (st == PTL_OK && best_notches != UINT32_MAX) { /* the chain from the winner's start */
        for (uint32_t i = 0; i <= m; ++i) chain[i] = b + (best_start + i) % m;
        *out_np = best_np, *out_start = best_start;
    }
    chord_table_free(s->a, &t);
    ptl_mem_free(s->a, trial, ((size_t)m + 1) * sizeof(uint32_t));
    return st;
}

/* plan_closed_ring_made, or the kept plan of a ring of the same points (contours_plans.c). */
static ptl_status plan_closed_ring(ptl_contours_simp* s, uint32_t b, uint32_t m, double tol, uint32_t* chain, uint32_t* path,
                                   uint32_t* out_np) {
    if (!s->plans && !s->old_plans) {
        uint32_t start;
        return plan_closed_ring_made(s, b, m, tol, chain, path, out_np, &start);
    }
    for (uint32_t i = 0; i < m; ++i) chain[i] = b + i;
    if (!gather_run(s, chain, m)) return PTL_ERR_NO_MEMORY;
    uint64_t h;
    const ptl_contour_plan* q = ptl_contour_plans_find(s->old_plans, s->run_xy.data, m, true, tol, &h);
    uint32_t start = 0;
    ptl_status st = PTL_OK;
    if (q) {
        start = q->start, *out_np = q->np;
        if (q->np) {
            for (uint32_t i = 0; i <= m; ++i) chain[i] = b + (start + i) % m;
            memcpy(path, s->old_plans->path.data + q->path_at, (size_t)q->np * sizeof *path);
        }
    } else {
        st = plan_closed_ring_made(s, b, m, tol, chain, path, out_np, &start);
    }
    if (st == PTL_OK && s->plans && !ptl_contour_plans_add(s->plans, s->a, h, s->run_xy.data, m, true, tol, start, path, *out_np))
        st = PTL_ERR_NO_MEMORY;
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

/* A simplification's scratch beside its state: per vertex, fixed (never moved or dropped), in the
   chain being replaced, its segment; two lists of vertices. */
typedef struct simp_scratch {
    uint8_t* fixed;
    uint8_t* in_chain;
    uint32_t* seg_of;
    uint32_t* chain;
    uint32_t* path;
} simp_scratch;

/* The state and scratch for n vertices, with every ring's segments in the grid. */
static ptl_status simp_init(ptl_contours_simp* s, simp_scratch* w, const ptl_allocator* a, const ptl_contours_f64* xy,
                            const ptl_contours_u32* rs) {
    const uint32_t n = xy->count / 2, rings = rs->count - 1;
    s->a = a;
    s->xy = xy->data;
    s->n = n;
    w->fixed = ptl_mem_calloc(a, (size_t)n + 1, 1);
    w->in_chain = ptl_mem_calloc(a, (size_t)n + 1, 1);
    w->seg_of = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    w->chain = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    w->path = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    s->next = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    s->keep = ptl_mem_alloc(a, (size_t)n + 1);
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        x0 = fmin(x0, xy->data[2 * i]), x1 = fmax(x1, xy->data[2 * i]);
        y0 = fmin(y0, xy->data[2 * i + 1]), y1 = fmax(y1, xy->data[2 * i + 1]);
    }
    if (!w->fixed || !w->in_chain || !w->seg_of || !w->chain || !w->path || !s->next || !s->keep ||
        !ptl_seggrid_init(&s->grid, a, x0, y0, x1, y1, n))
        return PTL_ERR_NO_MEMORY;
    memset(s->keep, 1, (size_t)n + 1);
    for (uint32_t r = 0; r < rings; ++r) {
        uint32_t b = rs->data[r], m = rs->data[r + 1] - b;
        for (uint32_t i = 0; i < m; ++i) {
            uint32_t k = b + i;
            s->next[k] = b + (i + 1) % m;
            w->seg_of[k] = s->sa.count;
            if (!ptl_contours_add_segment(s, k, s->next[k])) return PTL_ERR_NO_MEMORY;
        }
    }
    return PTL_OK;
}

static void simp_free(ptl_contours_simp* s, simp_scratch* w) {
    const ptl_allocator* a = s->a;
    const size_t n1 = (size_t)s->n + 1;
    ptl_seggrid_free(&s->grid);
    PTL_ARRAY_FREE(a, s->sa);
    PTL_ARRAY_FREE(a, s->sb);
    PTL_ARRAY_FREE(a, s->alive);
    ptl_mem_free(a, s->stamp, (size_t)s->stamp_cap * sizeof(uint32_t));
    ptl_mem_free(a, w->fixed, n1);
    ptl_mem_free(a, w->in_chain, n1);
    ptl_mem_free(a, w->seg_of, n1 * sizeof(uint32_t));
    ptl_mem_free(a, w->chain, n1 * sizeof(uint32_t));
    ptl_mem_free(a, w->path, n1 * sizeof(uint32_t));
    ptl_mem_free(a, s->next, n1 * sizeof(uint32_t));
    ptl_mem_free(a, s->keep, n1);
    PTL_ARRAY_FREE(a, s->run_xy);
}

/* Ring r: a closed ring as a whole, else its chains of wall edges between fixed vertices. */
static ptl_status simplify_ring(ptl_contours_simp* s, simp_scratch* w, const ptl_contours_u32* rs,
                                const ptl_contours_u32* kind, uint32_t r, double tol) {
    uint32_t b = rs->data[r], m = rs->data[r + 1] - b, start = PTL_NONE;
    ptl_status st = PTL_OK;
    for (uint32_t k = b; k < b + m && start == PTL_NONE; ++k)
        if (w->fixed[k]) start = k;
    if (start == PTL_NONE) {
        uint32_t np = 0;
        st = plan_closed_ring(s, b, m, tol, w->chain, w->path, &np);
        if (st != PTL_OK) return st;
        if (np >= 4) return apply_chords(s, w->chain, w->path, np, tol, w->in_chain, w->seg_of);
    }
    fix_spread(s->xy, b, m, w->fixed); /* whatever else is fixed: no ring falls below 3 */
    start = PTL_NONE;
    for (uint32_t k = b; k < b + m && start == PTL_NONE; ++k)
        if (w->fixed[k]) start = k;
    uint32_t k = start;
    do {
        uint32_t clen = 0;
        w->chain[clen++] = k;
        uint32_t j = k;
        bool wall = kind->data[k] == PTL_NONE;
        do {
            j = b + (j - b + 1) % m;
            w->chain[clen++] = j;
        } while (!w->fixed[j]);
        if (wall) st = simplify_chain(s, w->chain, clen, tol, w->in_chain, w->seg_of, w->path);
        k = j;
    } while (k != start && st == PTL_OK);
    return st;
}

/* Compacts the kept vertices of every ring. */
static void simplify_compact(const ptl_contours_simp* s, ptl_contours_f64* xy, ptl_contours_u32* rs,
                             ptl_contours_u32* kind) {
    const uint32_t rings = rs->count - 1;
    uint32_t w = 0, rw = 0;
    for (uint32_t r = 0; r < rings; ++r) {
        uint32_t b = rs->data[r], e = rs->data[r + 1];
        rs->data[rw++] = w;
        for (uint32_t k = b; k < e; ++k) {
            if (!s->keep[k]) continue;
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

ptl_status ptl_contours_simplify(const ptl_allocator* a, double tol, const ptl_contour_plans* old,
                                 ptl_contour_plans* plans, ptl_contours_f64* xy, ptl_contours_u32* rs,
                                 ptl_contours_u32* kind) {
    const uint32_t n = xy->count / 2, rings = rs->count - 1;
    ptl_contours_simp s;
    simp_scratch w;
    memset(&s, 0, sizeof s);
    memset(&w, 0, sizeof w);
    s.old_plans = old, s.plans = plans;
    ptl_status st = simp_init(&s, &w, a, xy, rs);
    if (st == PTL_OK) st = fixed_vertices(a, xy->data, n, rs->data, rings, kind->data, w.fixed);
    /* Ring by ring, in order (deterministic). */
    for (uint32_t r = 0; r < rings && st == PTL_OK && tol > 0; ++r) st = simplify_ring(&s, &w, rs, kind, r, tol);
    if (st == PTL_OK && tol > 0) { /* path is free now: the corners' scratch, no more memory at the peak */
        memset(w.path, 0, (size_t)n + 1);
        st = ptl_contours_corners(&s, xy->data, rs->data, rings, tol, w.fixed, w.in_chain, w.seg_of, (uint8_t*)w.path,
                                  w.chain);
    }
    if (st == PTL_OK) simplify_compact(&s, xy, rs, kind);
    simp_free(&s, &w);
    return st;
}
