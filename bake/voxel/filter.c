/* Solid heightfield -> open field: the walkable floors, with the space above them and their
   neighbours (Saupin et al. 2014, §2.3; Recast's filters and compact heightfield, whose behaviour
   this reproduces so that walkable areas compare directly, see bench/).

   In order:
   1. Low obstacles (Recast's rcFilterLowHangingWalkableObstacles): a non-walkable span whose top
      is within walkable_climb above the top of the span right below it, when that one is walkable
      (as rasterized), becomes walkable with its tag: curbs, steps, thin boxes on a floor. It does
      not chain: only a span rasterized walkable lends its flag.
   2. Clearance (Saupin §2.3.2): a floor whose opening (up to the bottom of the next span, or open
      sky) is lower than walkable_height is not walkable. An opening of exactly walkable_height
      fits (Recast requires strictly more in its filters but exactly enough in its links; this
      bake uses "at least" everywhere).
   3. Ledges (Recast's rcFilterLedgeSpans): looking at the 4 neighbour columns, only at the
      openings there that overlap this floor's opening by at least walkable_height (the agent could
      step into them), a floor is a ledge, not walkable, when
      - a neighbour column lies outside the grid, or has an opening reaching down to nothing
        below it (a bottomless drop), or a floor more than walkable_climb below this one; or
      - the neighbour floors within walkable_climb of this one (this one included) along one axis
        (the two x neighbours, or the two z neighbours) span more than walkable_climb: a steep
        slope made of climbable steps. Recast compares the four neighbours together; for a plane
        both rules give the same range (2 cs |grad| max(|cos|, |sin|) of its direction), but
        Recast's also calls a corner a slope: the side of a flight whose step behind is one voxel
        down and whose floor beside is a climbable step up (a flight rising through an opening
        next to the upper floor's slab, a landing beside the last steps). There the flight lost
        its edge columns, and with the erosion whole rows of steps.
      Neighbour floors count whether walkable or not; only the geometry matters, so the order of
      2 and 3 does not matter.
   4. Open spans: every walkable floor left, floor = top of its solid span, ceil = bottom of the
      next (PTL_VX_MAX_HEIGHT: open sky).
   5. Links, 4-connected: the neighbour column's lowest open span whose floor is within
      walkable_climb and whose opening overlaps this one by at least walkable_height (Recast's
      compact heightfield rule). Links are kept only when mutual, so the graph is symmetric (a
      one-way link needs walkable_height < 2 * walkable_climb; Recast would keep it).
   6. Erosion by walkable_radius (Recast's rcErodeWalkableArea): a chamfer distance (2 across a
      side, 3 across a corner, the corner reached through the first side's link) from the spans
      that miss a link, computed in two sweeps; spans closer than 2 * walkable_radius are removed
      with their links. A span missing a link has distance 0, so a radius of r columns removes r
      columns along every wall, the one touching the wall included.
   7. Gap links (find_gap below): a floor facing another across a narrow crack, within
      walkable_climb, with nothing in the agent's way over it; layer_merge.c turns them into link
      cells (Saupin et al. 2014 §5.2; Golodetz's walk and step links). */
#include <string.h>

#include "../../runtime/internal.h"
#include "col_index.h"
#include "areas.h"
#include "filter.h"
#include "voxelize.h"
#include "vx_params.h"

static const int DX[4] = {-1, 0, 1, 0};
static const int DZ[4] = {0, 1, 0, -1};

static int mini(int a, int b) {
    return a < b ? a : b;
}
static int maxi(int a, int b) {
    return a > b ? a : b;
}

/* Bottom of the span after `i` in a column ending at `end`, or open sky. */
static int ceil_of(const ptl_heightfield* hf, uint32_t i, uint32_t end) {
    return i + 1 < end ? hf->spans[i + 1].smin : (int)PTL_VX_MAX_HEIGHT;
}

/* Rule 3 for one neighbour column [b, e) of the floor `bot` (opening up to `top`): true when
   it makes the floor a ledge, else the neighbour floors within walkable_climb widen [*lo, *hi]. */
static PTL_VX_INLINE_ALWAYS bool ledge_side(const ptl_vx_span* sp, uint32_t b, uint32_t e, int bot, int top, int h,
                                            int climb, int* lo, int* hi) {
    if (b == e) return top - bot >= h; /* an empty column: open down to nothing */
    if (mini(top, sp[b].smin) - bot >= h) return true; /* open down to nothing below its first span */
    /* the openings between spans, from the top down, then the last span's, which reaches the sky
       (peeled off the loop: a column of one span, terrain and most floors, runs no loop at all).
       The answer is an "or" and the range a min / max, so the order does not matter; going down,
       the walk stops at the first opening whose top lies below bot + h: it and every one under it
       (their tops are lower still) cannot overlap the floor's opening by h. In a stacked column
       most openings lie under the floor looked from. */
    for (const ptl_vx_span* q = sp + e - 1; q != sp + b; --q) { /* the opening under span q */
        const int ntop = q->smin;
        if (ntop - bot < h) break;
        const int nbot = q[-1].smax;
        if (mini(top, ntop) - maxi(bot, nbot) < h) continue;
        if (nbot - bot < -climb) return true;
        if (nbot - bot <= climb) *lo = mini(*lo, nbot), *hi = maxi(*hi, nbot);
    }
    const int nbot = sp[e - 1].smax;
    if (top - maxi(bot, nbot) < h) return false;
    if (nbot - bot < -climb) return true;
    if (nbot - bot <= climb) *lo = mini(*lo, nbot), *hi = maxi(*hi, nbot);
    return false;
}

/* Rule 3 above for the floor `bot` (opening up to `top`) of column c, whose four neighbour
   columns are c + off[d], all inside the grid (a column on the grid's edge is a ledge: the caller
   decides those). The sides are written out, without a loop over them to mispredict. */
static bool is_ledge(const ptl_heightfield* hf, uint32_t c, const uint32_t off[4], int bot, int top) {
    const ptl_vx_params* p = &hf->p;
    const int h = p->walkable_height, climb = p->walkable_climb;
    const ptl_vx_span* sp = hf->spans;
    const uint32_t* cs = hf->col_start;
    int xlo = bot, xhi = bot, zlo = bot, zhi = bot; /* the x sides (d = 0, 2) and the z sides (1, 3) */
    if (ledge_side(sp, cs[c + off[0]], cs[c + off[0] + 1], bot, top, h, climb, &xlo, &xhi) ||
        ledge_side(sp, cs[c + off[1]], cs[c + off[1] + 1], bot, top, h, climb, &zlo, &zhi) ||
        ledge_side(sp, cs[c + off[2]], cs[c + off[2] + 1], bot, top, h, climb, &xlo, &xhi) ||
        ledge_side(sp, cs[c + off[3]], cs[c + off[3] + 1], bot, top, h, climb, &zlo, &zhi))
        return true;
    return xhi - xlo > climb || zhi - zlo > climb;
}

void ptl_open_field_free(ptl_open_field* of) {
    if (!of) return;
    if (of->alloc.free) {
        ptl_col_index_free(&of->col_index, &of->alloc);
        ptl_mem_free(&of->alloc, of->spans, (size_t)of->span_cap * sizeof *of->spans);
        ptl_mem_free(&of->alloc, of->col_of, (size_t)of->span_cap * sizeof *of->col_of);
        ptl_mem_free(&of->alloc, of->gaps, (size_t)of->gap_count * sizeof *of->gaps);
    }
    memset(of, 0, sizeof *of);
}

/* The first column in [c, end) that holds a solid span, or end. Column starts never decrease, so
   the columns from c are empty while their starts equal c's: runs of them (a window's outside, the
   space between rooms) are crossed 8 columns at a time instead of one test and branch each. */
static inline uint32_t next_solid(const uint32_t* col_start, uint32_t c, uint32_t end) {
    const uint32_t v = col_start[c];
    while (c + 8 <= end && col_start[c + 8] == v) c += 8;
    while (c < end && col_start[c + 1] == v) ++c;
    return c;
}

/* Rules 1-3: the walkable flag of every solid span; returns how many are walkable. */
static uint32_t filter_flags(const ptl_heightfield* hf, uint8_t* walk) {
    const ptl_vx_params* p = &hf->p;
    const uint32_t off[4] = {(uint32_t)-1, (uint32_t)p->width, 1u, (uint32_t)-p->width};
    uint32_t n = 0;
    for (int z = 0; z < p->depth; ++z) {
        const uint32_t row = (uint32_t)z * (uint32_t)p->width;
        for (int x = 0; x < p->width; ++x) {
            uint32_t c = row + (uint32_t)x;
            uint32_t b = hf->col_start[c], e = hf->col_start[c + 1];
            if (b == e) { /* on to the next solid column of the row (x + 1 after the loop's step) */
                x = (int)(next_solid(hf->col_start, c, row + (uint32_t)p->width) - row) - 1;
                continue;
            }
            /* a column on the grid's edge has a neighbour outside: every floor there is a ledge */
            const bool edge = x == 0 || z == 0 || x + 1 == p->width || z + 1 == p->depth;
            for (uint32_t i = b; i < e; ++i) {
                uint8_t wk = hf->spans[i].walkable;
                if (!wk && i > b && hf->spans[i - 1].walkable && /* rule 1, from the rasterized flags only */
                    hf->spans[i].smax - hf->spans[i - 1].smax <= p->walkable_climb)
                    wk = 2; /* 2: walkable with the tag of the span below */
                if (wk) {
                    int bot = hf->spans[i].smax, top = ceil_of(hf, i, e);
                    if (edge || top - bot < p->walkable_height || is_ledge(hf, c, off, bot, top)) wk = 0;
                }
                walk[i] = wk;
                n += wk != 0;
            }
        }
    }
    return n;
}

/* Can open spans a and b of neighbouring columns link? Their floors are within walkable_climb and
   the opening they share is at least walkable_height tall (symmetric in a and b). */
static bool can_link(const ptl_open_span* a, const ptl_open_span* b, int h, int climb) {
    int df = (int)b->floor - (int)a->floor;
    return df >= -climb && df <= climb && mini(a->ceil, b->ceil) - maxi(a->floor, b->floor) >= h;
}

/* The first span among [b0, b1) (only the first PTL_VX_NOCON of a column can be linked to) that
   can link to a, or PTL_VX_NONE. */
static uint32_t first_link(const ptl_open_span* sp, const ptl_open_span* a, uint32_t b0, uint32_t b1, int h, int climb) {
    if (b1 - b0 > PTL_VX_NOCON) b1 = b0 + PTL_VX_NOCON;
    for (uint32_t t = b0; t < b1; ++t)
        if (can_link(a, &sp[t], h, climb)) return t;
    return PTL_VX_NONE;
}

/* Rule 5 between column ca and its neighbour cb in direction d: a span links to the first span of
   the other column it can link to, and the link is kept when that one's first is it in return. */
static void link_columns_many(ptl_open_span* sp, uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1, int d, int h,
                              int climb) {
    for (uint32_t a = a0; a < a1 && a - a0 < PTL_VX_NOCON; ++a) {
        uint32_t b = first_link(sp, &sp[a], b0, b1, h, climb);
        if (b == PTL_VX_NONE || first_link(sp, &sp[b], a0, a1, h, climb) != a) continue;
        sp[a].con[d] = (uint8_t)(b - b0);
        sp[b].con[(d + 2) & 3] = (uint8_t)(a - a0);
    }
}

/* Rule 5 between column ca and its neighbour cb in direction d; the common case, one floor on
   each side, without a call. */
static inline void link_columns(ptl_open_field* of, uint32_t ca, uint32_t cb, int d, int h, int climb) {
    ptl_open_span* sp = of->spans;
    const uint32_t* cs = of->col_index.off.u32;
    const uint32_t a0 = cs[ca], a1 = cs[ca + 1];
    const uint32_t b0 = cs[cb], b1 = cs[cb + 1];
    if (a1 - a0 == 1 && b1 - b0 == 1) {
        if (can_link(&sp[a0], &sp[b0], h, climb)) sp[a0].con[d] = 0, sp[b0].con[(d + 2) & 3] = 0;
        return;
    }
    if (a0 < a1 && b0 < b1) link_columns_many(sp, a0, a1, b0, b1, d, h, climb);
}

static uint16_t relax(uint16_t cur, uint16_t from, unsigned step) {
    unsigned v = (unsigned)from + step;
    return v < cur ? (uint16_t)v : cur;
}

/* Rule 6: finds the spans the erosion removes and returns how many. On return, idx[s] is what
   remove_spans needs: PTL_VX_NOCON for a removed span, else its index among the kept spans of its
   column (saturated at PTL_VX_NOCON - 1: links reach only a column's first PTL_VX_NOCON spans,
   whose new index is at most the old one). Each column's indices are written as soon as the
   backward sweep has settled its spans, while they are in cache. */
static uint32_t erode(const ptl_open_field* of, uint16_t* dist, uint8_t* idx) {
    const ptl_vx_params* p = &of->p;
    const ptl_open_span* sp = of->spans;
    const uint32_t cols = (uint32_t)p->width * (uint32_t)p->depth;
    const uint32_t* cs = of->col_index.off.u32;
    const uint32_t w = (uint32_t)p->width;
    /* A neighbour's neighbour is looked up in the column it lies in (known from the directions). */
#define NBR(col, s, d) (sp[s].con[d] == PTL_VX_NOCON ? PTL_VX_NONE : cs[(col) + off[d]] + sp[s].con[d])
    const uint32_t off[4] = {(uint32_t)-1, w, 1u, (uint32_t)-w};
    /* Forward sweep: (-1, 0), (-1, -1), (0, -1), (+1, -1). Column order is z-major, x-minor, so
       the spans it reads come before s and have their start values already, given as it goes:
       0 for a span missing a link, "far" for the others. */
    for (uint32_t c = 0; c < cols; ++c)
        for (uint32_t s = cs[c]; s < cs[c + 1]; ++s) {
            const uint8_t* con = sp[s].con;
            if ((con[0] == PTL_VX_NOCON) | (con[1] == PTL_VX_NOCON) | (con[2] == PTL_VX_NOCON) | (con[3] == PTL_VX_NOCON)) {
                dist[s] = 0; /* nothing is nearer the wall: no neighbour to look at */
                continue;
            }
            /* linked on every side: the two neighbours this sweep reads exist; the distance is kept
               in a register until it is final */
            const uint32_t a = cs[c - 1] + con[0], b = cs[c - w] + con[3];
            uint16_t dv = relax(relax(0xffff, dist[a], 2), dist[b], 2);
            const uint32_t a3 = NBR(c - 1, a, 3), b2 = NBR(c - w, b, 2);
            if (a3 != PTL_VX_NONE) dv = relax(dv, dist[a3], 3);
            if (b2 != PTL_VX_NONE) dv = relax(dv, dist[b2], 3);
            dist[s] = dv;
        }
    /* Backward sweep: (+1, 0), (+1, +1), (0, +1), (-1, +1); a span's distance is final once
       visited. */
    const uint32_t thr = 2u * (uint32_t)p->walkable_radius;
    uint32_t removed = 0;
    for (uint32_t c = cols; c-- > 0;) {
        const uint32_t b0 = cs[c], e0 = cs[c + 1];
        for (uint32_t s = e0; s-- > b0;) {
            uint16_t dv = dist[s];
            if (dv == 0) continue; /* a span missing a link (every other one has all four) */
            const uint32_t a = cs[c + 1] + sp[s].con[2], b = cs[c + w] + sp[s].con[1];
            dv = relax(relax(dv, dist[a], 2), dist[b], 2);
            const uint32_t a1 = NBR(c + 1, a, 1), b0n = NBR(c + w, b, 0);
            if (a1 != PTL_VX_NONE) dv = relax(dv, dist[a1], 3);
            if (b0n != PTL_VX_NONE) dv = relax(dv, dist[b0n], 3);
            dist[s] = dv;
        }
        uint32_t j = 0;
        for (uint32_t s = b0; s < e0; ++s) {
            const bool gone = dist[s] < thr;
            idx[s] = gone ? (uint8_t)PTL_VX_NOCON : (uint8_t)(j < PTL_VX_NOCON - 1 ? j : PTL_VX_NOCON - 1);
            j += !gone;
            removed += gone;
        }
    }
#undef NBR
    return removed;
}

/* Rule 6 for a radius of 1 or 2 columns (the reference parameters' 0.6 on cells of 0.3 is 2):
   erode's result without the distances. A span's distance is below 2 * walkable_radius <= 4 only
   when it misses a link (0), or a span that does is its neighbour across a side (2) or across a
   corner by the sweeps' paths (3: s -x then -z, s -z then +x in the forward sweep, s +x then +z,
   s +z then -x in the backward one); every longer path costs 4 or more. Links are mutual, so the
   spans at those steps from a span B missing a link are B's linked neighbours and B +z then +x,
   B -x then +z, B -z then -x, B +x then -z (the second step turning from the first, d then
   d + 1). Each such B marks itself and, for a radius of 2, those spans: the same removals as erode,
   with the same idx (PTL_VX_NOCON, or the kept span's index in its column), and no pass over the
   spans linked on every side but the test that finds them. */
static uint32_t erode_near(const ptl_open_field* of, uint8_t* idx) {
    const ptl_vx_params* p = &of->p;
    const ptl_open_span* sp = of->spans;
    const uint32_t* cs = of->col_index.off.u32;
    const uint32_t w = (uint32_t)p->width;
    const uint32_t off[4] = {(uint32_t)-1, w, 1u, (uint32_t)-w};
    const bool two = p->walkable_radius == 2;
    const uint32_t n = of->span_count;
    memset(idx, 0, n);
    /* by span, the column from col_of: no pass over the (mostly empty) columns */
    for (uint32_t s = 0; s < n; ++s) {
        const uint8_t* con = sp[s].con;
        if (!((con[0] == PTL_VX_NOCON) | (con[1] == PTL_VX_NOCON) | (con[2] == PTL_VX_NOCON) | (con[3] == PTL_VX_NOCON)))
            continue;
        const uint32_t c = of->col_of[s];
        idx[s] = PTL_VX_NOCON;
        if (!two) continue;
        for (int d = 0; d < 4; ++d) {
            if (con[d] == PTL_VX_NOCON) continue;
            const uint32_t ac = c + off[d], a = cs[ac] + con[d];
            idx[a] = PTL_VX_NOCON;
            const int d2 = (d + 1) & 3;
            const uint8_t k = sp[a].con[d2];
            if (k != PTL_VX_NOCON) idx[cs[ac + off[d2]] + k] = PTL_VX_NOCON;
        }
    }
    uint32_t removed = 0, j = 0; /* j: the kept spans before s in its column */
    for (uint32_t s = 0; s < n; ++s) {
        j = s > 0 && of->col_of[s] == of->col_of[s - 1] ? j : 0;
        const bool gone = idx[s] == PTL_VX_NOCON;
        idx[s] = gone ? (uint8_t)PTL_VX_NOCON : (uint8_t)(j < PTL_VX_NOCON - 1 ? j : PTL_VX_NOCON - 1);
        j += !gone;
        removed += gone;
    }
    return removed;
}

/* Keeps the spans whose idx (from erode) is not PTL_VX_NOCON, compacted in place: a kept link
   becomes the new index of its target inside the target's column (the target's idx; a removed
   target's is PTL_VX_NOCON, which drops the link), and a column's spans start after the kept
   spans of the columns before it. The arrays keep their size (span_cap). The links are read
   through the old column index, so it is rewritten last. */
static void remove_spans(ptl_open_field* of, const uint8_t* idx) {
    uint32_t* cs = of->col_index.off.u32;
    const uint32_t w = (uint32_t)of->p.width, cols = w * (uint32_t)of->p.depth;
    const uint32_t off[4] = {(uint32_t)-1, w, 1u, (uint32_t)-w};
    uint32_t k = 0;
    for (uint32_t s = 0, n = of->span_count; s < n; ++s) { /* by span, the column from col_of */
        if (idx[s] == PTL_VX_NOCON) continue;
        const uint32_t c = of->col_of[s];
        /* the span is copied whole and its links rewritten in place: a copy built on the stack
           byte by byte and then read back as 16 bytes stalls (no store forwarding) */
        uint8_t con[4];
        memcpy(con, of->spans[s].con, 4);
        ptl_open_span* o = &of->spans[k]; /* k <= s */
        if (k != s) *o = of->spans[s];
        for (int d = 0; d < 4; ++d)
            if (con[d] != PTL_VX_NOCON) o->con[d] = idx[cs[c + off[d]] + con[d]];
        of->col_of[k++] = c;
    }
    k = 0;
    for (uint32_t c = 0, s = 0; c < cols; ++c) {
        const uint32_t e = cs[c + 1];
        cs[c] = k;
        for (; s < e; ++s) k += idx[s] != PTL_VX_NOCON;
    }
    cs[cols] = k;
    of->span_count = k;
}

/* Rule 7, gap links. Span s looks across its open side d (no link there) for the first column,
   k = 2 .. 2 (walkable_radius + 1) + max_void + 1 columns away, holding an open span t within
   walkable_climb of it whose opening overlaps s's by walkable_height. The columns in between are
   classified against H, the higher of the two floors, and L, the lower one minus walkable_climb:
   - blocked: a solid span reaches into (H, H + walkable_height), where the agent's body passes;
     an open span lies within [L, H + walkable_climb] (a floor the agent would meet but not link);
   - ground: a solid top in [L, H] (the ledge column at the edge, or one the erosion removed);
   - void: nothing there (a drop to a far lower floor, or to nothing).
   They must read ground*, void+, ground* with at most max_void void columns and at most
   walkable_radius + 1 ground ones on each side: a crack with the columns the ledge filter and the
   erosion took from its edges. Returns k, or 0 for no link (t is then undefined). */
static int find_gap(const ptl_heightfield* hf, const ptl_open_field* of, uint32_t s, int x, int z, int d,
                    uint32_t* t_out) {
    const ptl_vx_params* p = &of->p;
    const int h = p->walkable_height, climb = p->walkable_climb, side = p->walkable_radius + 1;
    const ptl_open_span* a = &of->spans[s];
    const int kmax = mini(2 * side + p->max_void + 1, 127); /* cols (k - 1) fits the 7 bits contours.h gives it */
    const uint32_t* cs = of->col_index.off.u32;
    for (int k = 1; k <= kmax; ++k) {
        int cx = x + k * DX[d], cz = z + k * DZ[d];
        if (cx < 0 || cz < 0 || cx >= p->width || cz >= p->depth) return 0;
        uint32_t c = (uint32_t)cz * (uint32_t)p->width + (uint32_t)cx;
        uint32_t t = PTL_VX_NONE;
        for (uint32_t i = cs[c]; i < cs[c + 1] && t == PTL_VX_NONE; ++i) {
            const ptl_open_span* b = &of->spans[i];
            int df = (int)b->floor - (int)a->floor;
            if (df >= -climb && df <= climb && mini(a->ceil, b->ceil) - maxi(a->floor, b->floor) >= h) t = i;
        }
        if (t == PTL_VX_NONE) continue;
        if (k < 2) return 0;
        const ptl_open_span* b = &of->spans[t];
        const int hi = maxi(a->floor, b->floor), lo = mini(a->floor, b->floor) - climb;
        int state = 0, ground0 = 0, voids = 0, ground1 = 0; /* 0: leading ground, 1: void, 2: trailing ground */
        for (int j = 1; j < k; ++j) {
            int gx = x + j * DX[d], gz = z + j * DZ[d];
            uint32_t g = (uint32_t)gz * (uint32_t)p->width + (uint32_t)gx;
            bool ground = false;
            for (uint32_t i = hf->col_start[g]; i < hf->col_start[g + 1]; ++i) {
                int smin = hf->spans[i].smin, smax = hf->spans[i].smax;
                if (smax > hi && smin < hi + h) return 0;
                if (smax >= lo && smax <= hi) ground = true;
            }
            for (uint32_t i = cs[g]; i < cs[g + 1]; ++i)
                if ((int)of->spans[i].floor >= lo && (int)of->spans[i].floor <= hi + climb) return 0;
            if (ground) {
                if (state == 1) state = 2;
                if (state == 0) ++ground0;
                else ++ground1;
            } else {
                if (state == 2) return 0;
                state = 1;
                ++voids;
            }
        }
        if (voids == 0 || voids > p->max_void || ground0 > side || ground1 > side) return 0;
        *t_out = t;
        return k;
    }
    return 0;
}

static int cmp_gap(const ptl_vx_gap* a, const ptl_vx_gap* b) {
    if (a->span != b->span) return a->span < b->span ? -1 : 1;
    return a->dir < b->dir ? -1 : a->dir > b->dir;
}

/* Is (span, dir) -> other over cols listed? `gaps` sorted by (span, dir). */
static bool has_gap(const ptl_vx_gap* gaps, uint32_t n, uint32_t span, uint8_t dir, uint32_t other, uint8_t cols) {
    uint32_t lo = 0, hi = n;
    ptl_vx_gap key = {span, 0, dir, 0, 0};
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cmp_gap(&gaps[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && gaps[lo].span == span && gaps[lo].dir == dir && gaps[lo].other == other && gaps[lo].cols == cols;
}

/* Rule 7 over the field; keeps the mutual gaps only. */
static ptl_status find_gaps(const ptl_heightfield* hf, ptl_open_field* of, ptl_allocator* a) {
    const ptl_vx_params* p = &of->p;
    if (p->max_void <= 0) return PTL_OK;
    PTL_ARRAY(ptl_vx_gap) gaps = {0};
    /* by span, the column from col_of (no pass over the columns; spans are in column order) */
    for (uint32_t s = 0; s < of->span_count; ++s) {
        const uint8_t* con = of->spans[s].con;
        if (!((con[0] == PTL_VX_NOCON) | (con[1] == PTL_VX_NOCON) | (con[2] == PTL_VX_NOCON) | (con[3] == PTL_VX_NOCON)))
            continue; /* linked on every side (most spans): one test */
        const uint32_t col = of->col_of[s];
        const int x = (int)(col % (uint32_t)p->width), z = (int)(col / (uint32_t)p->width);
        for (int d = 0; d < 4; ++d) {
            if (of->spans[s].con[d] != PTL_VX_NOCON) continue;
            uint32_t t;
            int k = find_gap(hf, of, s, x, z, d, &t);
            if (!k) continue;
            ptl_vx_gap g = {s, t, (uint8_t)d, (uint8_t)(k - 1), 0};
            if (!PTL_PUSH(a, gaps, g)) {
                PTL_ARRAY_FREE(a, gaps);
                return PTL_ERR_NO_MEMORY;
            }
        }
    }
    /* Spans are visited in index order (columns z-major, spans in column order) and directions in
       order, so the list is sorted already. */
    uint32_t k = 0;
    for (uint32_t i = 0; i < gaps.count; ++i) {
        const ptl_vx_gap* g = &gaps.data[i];
        if (has_gap(gaps.data, gaps.count, g->other, (uint8_t)((g->dir + 2) & 3), g->span, g->cols)) gaps.data[k++] = *g;
    }
    if (k == 0) {
        PTL_ARRAY_FREE(a, gaps);
        return PTL_OK;
    }
    of->gaps = ptl_mem_alloc(a, (size_t)k * sizeof *of->gaps);
    if (!of->gaps) {
        PTL_ARRAY_FREE(a, gaps);
        return PTL_ERR_NO_MEMORY;
    }
    memcpy(of->gaps, gaps.data, (size_t)k * sizeof *of->gaps);
    of->gap_count = k;
    PTL_ARRAY_FREE(a, gaps);
    return PTL_OK;
}

ptl_status ptl_filter_build_open(const ptl_heightfield* hf, const ptl_allocator* alloc, ptl_open_field* out, ptl_error* err) {
    if (!hf || !out || (hf->span_count && (!hf->spans || !hf->col_start)))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_filter_build_open: NULL argument");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const ptl_vx_params* p = &hf->p;
    const size_t cols = (size_t)p->width * (size_t)p->depth;
    const uint32_t ns = hf->span_count;
    uint8_t* walk = ptl_mem_alloc(&a, ns);
    uint16_t* dist = NULL;
    uint32_t n = 0;
    ptl_status st = PTL_OK;
    out->p = *p;
    out->alloc = a;
    /* A plain index (ptl_vx_col_index width 4): this field is a tile's window (tiles.c), or a
       whole world kept with its heightfield (a debug bake), which is larger still; the stages
       below read it directly. */
    if (!walk || ptl_col_index_init(&out->col_index, (uint32_t)cols, 4, &a) < 0) goto oom;
    uint32_t* cs = out->col_index.off.u32;
    n = filter_flags(hf, walk);
    out->spans = ptl_mem_alloc(&a, (size_t)n * sizeof *out->spans);
    out->col_of = ptl_mem_alloc(&a, (size_t)n * sizeof *out->col_of);
    if (!out->spans || !out->col_of) {
        ptl_mem_free(&a, out->spans, (size_t)n * sizeof *out->spans);
        ptl_mem_free(&a, out->col_of, (size_t)n * sizeof *out->col_of);
        out->spans = NULL, out->col_of = NULL;
        goto oom;
    }
    out->span_count = out->span_cap = n;
    /* Rule 5 as the columns come: a column is linked to the ones before it in x and z once its
       spans are in (each pair of neighbour columns once, so the order does not matter). */
    const int h = p->walkable_height, climb = p->walkable_climb;
    const uint32_t w = (uint32_t)p->width;
    uint32_t k = 0;
    for (uint32_t z = 0, c = 0; z < (uint32_t)p->depth; ++z)
        for (uint32_t x = 0; x < w; ++x, ++c) {
            cs[c] = k;
            uint32_t b = hf->col_start[c], e = hf->col_start[c + 1];
            if (b == e) { /* a run of empty columns: each starts (and ends) at k */
                const uint32_t c1 = next_solid(hf->col_start, c, z * w + w);
                for (uint32_t j = c + 1; j < c1; ++j) cs[j] = k;
                x += c1 - c - 1, c = c1 - 1; /* the loop's step reaches c1 */
                continue;
            }
            for (uint32_t i = b; i < e; ++i) {
                if (!walk[i]) continue;
                /* every field written in place (a span built on the stack and copied stalls on
                   the 16-byte read of its narrow stores) */
                ptl_open_span* o = &out->spans[k];
                o->floor = hf->spans[i].smax;
                o->ceil = (uint16_t)ceil_of(hf, i, e);
                o->tag = walk[i] == 2 ? hf->spans[i - 1].tag : hf->spans[i].tag;
                memset(o->con, PTL_VX_NOCON, sizeof o->con);
                o->pad = 0;
                o->layer = PTL_VX_NONE;
                out->col_of[k++] = c;
            }
            cs[c + 1] = k;
            if (cs[c] == k) continue;
            if (x > 0) link_columns(out, c - 1, c, 2, h, climb);
            if (z > 0) link_columns(out, c - w, c, 1, h, climb);
        }
    cs[cols] = k; /* set above too, unless the grid has no column */
    out->col_index.filled = (uint32_t)cols + 1;

    /* `walk` is reused for the kept spans' new indices (n <= ns) */
    if (p->walkable_radius > 0 && p->walkable_radius <= 2 && n > 0) {
        if (erode_near(out, walk) > 0) remove_spans(out, walk);
    } else if (p->walkable_radius > 2 && n > 0) {
        dist = ptl_mem_alloc(&a, (size_t)n * sizeof *dist);
        if (!dist) goto oom;
        if (erode(out, dist, walk) > 0) remove_spans(out, walk);
    }
    if (find_gaps(hf, out, &a) < 0) goto oom;
    ptl_areas_mark_volumes(out);
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "filter: out of memory (%u spans)", ns);
    ptl_open_field_free(out);
done:
    ptl_mem_free(&a, walk, ns);
    ptl_mem_free(&a, dist, (size_t)n * sizeof *dist);
    if (st >= 0) ptl_error_ok(err);
    return st;
}
