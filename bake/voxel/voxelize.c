/* Triangles -> solid heightfield: 2.5D spans with integer heights (Saupin et al. 2014, §2.2;
   the span representation of Recast's heightfield).

   Rasterization is conservative in x-z: a triangle goes into every column its closed footprint
   meets with positive area, so nothing is lost between column centres. The column gets the y range
   of the triangle's piece inside its square: [floor(ymin / ch), ceil(ymax / ch)] relative to bmin,
   at least one voxel tall. Nothing is clipped in a chain: per row of columns, the row's u range
   comes from the points where the triangle's edges cross the row's two lines; per column, the y
   range is the range over the piece's vertices, which are (the plane being linear, these are all
   the candidates) the triangle's vertices inside the square, the edges' crossings with the row
   lines inside it, and the ends of the triangle's cross-sections by the column's two lines clipped
   to the row. Each crossing is computed from the original edge (its first vertex plus its slope
   times the distance to the line), each clipped end from one cross-section, so no value depends
   on the order in which other cuts were made, and every column's value is the same whatever
   window (tile) computes it. Why this is exact enough and conservative: every point used lies on
   the triangle, up to the rounding of one multiply-add from the input vertices (about 1e-16 of the
   coordinates; vx_params.c keeps coordinates within a quarter voxel of exact), so a y range is
   narrower than the exact one by at most that, far below a voxel; and a column is left out only
   where the triangle's part in it is a sliver of that width (the boundary rules below decide ties
   exactly, on values computed the same way for every column). A level triangle (floors, most of
   many levels' input) needs only its rows' u ranges: every piece has its height. Vertices within
   1e-9 (relative) of a grid line are put on it first, so that a floor meant to end on a line
   (3 m on 0.3 m cells: 3 / 0.3 = 10.000000000000002) does not leak into the column beyond it.

   Which columns a triangle touches:
   - A triangle with area in plan (floors, ramps, slanted walls) counts where its piece has
     positive area: a floor whose edge lies exactly on a grid line does not leak into the column
     beyond it (a 3 m floor with 0.3 m cells is 10 columns, as in Recast).
   - A triangle that is vertical, or so nearly that its plan is a segment (width below 1e-6 of its
     length), counts wherever its closed footprint touches the closed square: a wall lying exactly
     on a grid line blocks both columns beside it, never neither (Recast does the same: points on a
     dividing line go to both sides).

   Walkable: the triangle's unit normal has y >= cos(max slope) (Recast: strictly greater; a 45
   degree face is walkable here, not there). The normal follows the winding, counter-clockwise seen
   from above facing up, as in Recast and ptl_trimesh. Taking |y| instead (so that badly wound
   floors work) was tried and is available as ptl_vx_params.walkable_both_sides, but it is not the
   default: real scenes model roofs and ceilings as single faces seen from below, and with |y| every
   one of them becomes a walkable floor with open sky above (dungeon.obj: +89% walkable area,
   convex.obj +93%, go-detour-twisted.obj +43% against Recast; the clearance filter cannot remove
   them, nothing is above them). Degenerate triangles (zero area) have no normal: solid, never
   walkable.

   Merging: spans of one column that overlap or touch ([a, b] and [b, c]) merge into one. The
   merged top is the highest top, its tag the tag of the surface that made it. The top is walkable
   when some walkable surface among the merged pieces lies within walkable_climb below it (Recast's
   flagMergeThr = walkableClimb, as RecastDemo passes: a curb or a thin step on a walkable floor
   keeps the column walkable; the low-obstacle filter does the same across separate spans); its tag
   is then that walkable surface's. Ties between equal tops go to the larger tag. These rules are
   associative and commutative, so the result does not depend on the order of the triangles
   (Recast's own merge compares against the already-merged top, which makes it order-dependent).

   Memory: one list head per column and a pool of spans, recycled when spans merge, and scratch
   for the widest sloped triangle (its column lines' cross-sections); the result is compacted into
   arrays (voxelize.h). Nothing is proportional to width * depth * height. */
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../../runtime/internal.h"
#include "col_index.h"
#include "voxelize.h"
#include "vx_params.h"

static double dmin(double a, double b) {
    return a < b ? a : b;
}
static double dmax(double a, double b) {
    return a > b ? a : b;
}

/* A span while rasterizing: its extent, its top and that surface's tag as one key (top << 16 |
   tag), and the highest walkable top merged into it with its tag, the same way (0: none; every
   top is >= 1). The merge rules of the overview are then the larger of two keys, with no branch
   to mispredict. */
typedef struct wspan {
    uint32_t tkey, wkey;
    uint16_t smin, pad;
    uint32_t next;
} wspan;

/* The sentinel node, pool entry 0, that ends every list: its extent (0xffff, 0xffff) lies above
   every span's (heights < PTL_VX_MAX_HEIGHT), so a walk up the list stops there. It also ends the
   free list (it is never free). */
#define END 0u

typedef struct raster {
    const ptl_vx_params* p;
    const ptl_allocator* a;
    uint32_t* head; /* width * depth list heads, END: empty */
    PTL_ARRAY(wspan) pool;
    uint32_t free_list;
    uint32_t live;
    /* scratch sized to the widest non-level triangle so far: the cross-sections of its column
       lines and the y ranges of a row's columns */
    PTL_ARRAY(struct xline) lines;
    PTL_ARRAY(struct wrange) acc;
} raster;

static uint32_t umax32(uint32_t a, uint32_t b) {
    return a > b ? a : b;
}

/* Takes a node for a new span, to be linked at *link (in the heads or in the pool, which may
   move when it grows); NULL when out of memory. */
static wspan* take_node(raster* r, uint32_t** link) {
    uint32_t id = r->free_list;
    if (id != END) {
        r->free_list = r->pool.data[id].next;
    } else {
        if (r->pool.count == r->pool.cap) {
            /* a link inside the pool is kept as its offset (addresses compared as integers: the
               link may be a list head, outside the pool) */
            const uintptr_t old = (uintptr_t)r->pool.data, at = (uintptr_t)*link - old;
            const bool in_pool = r->pool.data && at < (uintptr_t)r->pool.cap * sizeof(wspan);
            if (!PTL_RESERVE(r->a, r->pool, (uint64_t)r->pool.count + 1)) return NULL;
            if (in_pool) *link = (uint32_t*)(void*)((char*)r->pool.data + at);
        }
        id = r->pool.count++;
    }
    **link = id;
    ++r->live;
    return &r->pool.data[id];
}

/* add_span's rare cases, from the first span c of the column at or above the piece (lo, hi), named
   by *link: the piece lies below c and the pool must grow for its node, or merged into c it
   reaches the spans after c, which c absorbs. False when out of memory. */
static PTL_VX_NOINLINE bool add_span_rare(raster* r, uint32_t* link, uint32_t lo, uint32_t hi, uint32_t tkey,
                                          uint32_t wkey) {
    wspan* pool = r->pool.data;
    wspan* c = &pool[*link];
    if (c->smin > hi) { /* the piece lies between the spans: a new node before c */
        const uint32_t next = *link;
        wspan* s = take_node(r, &link);
        if (!s) return false;
        *s = (wspan){tkey, wkey, (uint16_t)lo, 0, next};
        return true;
    }
    c->tkey = umax32(c->tkey, tkey), c->wkey = umax32(c->wkey, wkey);
    c->smin = (uint16_t)(lo < c->smin ? lo : c->smin);
    for (wspan* o = &pool[c->next]; o->smin <= c->tkey >> 16; o = &pool[c->next]) {
        const uint32_t nx = c->next;
        c->tkey = umax32(c->tkey, o->tkey), c->wkey = umax32(c->wkey, o->wkey);
        c->next = o->next;
        o->next = r->free_list;
        r->free_list = nx;
        --r->live;
    }
    return true;
}

/* Adds [lo, hi) to column `col` with the keys of its top (tkey = hi << 16 | tag; wkey = tkey when
   the surface is walkable, else 0), merging with the spans it overlaps or touches. The first of
   those takes the new span in place (most pieces of a triangle land on a span already there, so
   no node is taken or given back) and absorbs the ones after it that it now reaches; it stays
   between the same neighbours, as it only grows towards spans it does not reach. Every list ends
   at the sentinel (END), which lies above every span, so the walk tests one condition per node.
   The walk, a new node taken without growing the pool (most of them land in empty columns) and the
   common merge (into one span, absorbing none) are inlined where the pieces are made; the rest is
   add_span_rare (as a call, the whole saved and restored six registers). */
static PTL_VX_INLINE_ALWAYS bool add_span(raster* r, uint32_t col, uint32_t lo, uint32_t hi, uint32_t tkey, uint32_t wkey) {
    wspan* pool = r->pool.data;
    uint32_t* link = &r->head[col];
    wspan* c = &pool[*link];
    while (c->tkey >> 16 < lo) /* spans below the piece, not touching it */
        link = &c->next, c = &pool[*link];
    if (c->smin > hi) { /* between the spans (an empty column too): a new node before c */
        uint32_t id = r->free_list;
        if (id != END) r->free_list = pool[id].next;
        else if (r->pool.count < r->pool.cap) id = r->pool.count++;
        else return add_span_rare(r, link, lo, hi, tkey, wkey); /* the pool grows */
        pool[id] = (wspan){tkey, wkey, (uint16_t)lo, 0, *link};
        *link = id;
        ++r->live;
        return true;
    }
    const uint32_t t = umax32(c->tkey, tkey);
    if (pool[c->next].smin > t >> 16) { /* merged in place, reaching no span after it */
        c->tkey = t, c->wkey = umax32(c->wkey, wkey);
        c->smin = (uint16_t)(lo < c->smin ? lo : c->smin);
        return true;
    }
    return add_span_rare(r, link, lo, hi, tkey, wkey);
}

/* A triangle vertex in grid units: u = x / cs, w = y / ch, v = z / cs, all relative to bmin. */
enum { U = 0, W = 1, V = 2 };

/* The y range (grid units) of a triangle's part in one column, accumulated point by point. */
typedef struct wrange {
    double lo, hi;
} wrange;

static void wr_add(wrange* r, double w) {
    r->lo = dmin(r->lo, w), r->hi = dmax(r->hi, w);
}

/* The span of a triangle's piece whose y range is [wmin, wmax] (grid units), into *lo and *hi:
   [floor(wmin), ceil(wmax)] clamped to the grid, at least one voxel tall; false when the piece
   lies outside the grid's heights. */
static inline bool piece_span(int top, double wmin, double wmax, uint32_t* lo_out, uint32_t* hi_out) {
    if (wmax < 0 || wmin > top) return false;
    /* floor and ceil after clamping to [0, top], where truncation is exact */
    int lo = (int)dmax(0, wmin), hi = (int)dmin(top, wmax);
    if (hi < dmin(top, wmax)) ++hi;
    if (lo > top - 1) lo = top - 1;
    if (hi < lo + 1) hi = lo + 1;
    *lo_out = (uint32_t)lo, *hi_out = (uint32_t)hi;
    return true;
}

/* A triangle's surface as the spans take it: its tag and whether it is walkable. */
typedef struct surf {
    uint16_t tag;
    bool walkable;
} surf;

/* Adds the span of a piece with y range [wmin, wmax] to column `col` (piece_span). */
static PTL_VX_INLINE_ALWAYS bool emit_col(raster* r, double wmin, double wmax, uint32_t col, surf f) {
    uint32_t lo, hi;
    if (!piece_span(r->p->heights, wmin, wmax, &lo, &hi)) return true;
    const uint32_t tkey = hi << 16 | f.tag;
    return add_span(r, col, lo, hi, tkey, f.walkable ? tkey : 0);
}

/* The window's column of world column (x, z), which lies inside the window. */
static inline uint32_t col_of(const ptl_vx_params* g, int x, int z) {
    return (uint32_t)(z - g->oz) * (uint32_t)g->width + (uint32_t)(x - g->ox);
}

/* floor(v) clamped to [lo, hi], lo >= 0 (the same as truncating v clamped to [lo, hi]). */
static int floor_clamp(double v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi : (int)v;
}

/* The first cell whose closed interval [c, c + 1] a footprint starting at `lo` touches: floor(lo),
   or for a thin triangle starting exactly on a line, the cell before it too. */
static int first_cell(double lo, bool thin, int n) {
    int c = floor_clamp(lo, 0, n - 1);
    return thin && c > 0 && lo == c ? c - 1 : c;
}

/* The last cell a footprint ending at `hi` reaches: floor(hi), or for a fat triangle ending
   exactly on a line, the cell before it (beyond the line it has no area). */
static int last_cell(double hi, bool thin, int n) {
    int c = floor_clamp(hi, 0, n - 1);
    return !thin && hi == c ? c - 1 : c;
}

/* A point of a triangle's cross-section by a grid line: its position along the line (v on a
   column line u = c, u on a row line v = c) and its height. */
typedef struct xpt {
    double s, w;
} xpt;

/* The triangle's cross-section by the column line u = c: the points where its edges cross the line
   and its vertices on it (n <= 3; 3 only for a triangle lying in the plane u = c). With n == 2 the
   points are sorted by v and k is dw/dv between them (0 when they share v). */
typedef struct xline {
    xpt p[3];
    double k;
    int n;
} xline;

/* The triangle being rasterized, in grid units (u = x / cs, w = y / ch, v = z / cs from bmin),
   and for each edge e (from vertex e to vertex e + 1) its slopes along u and along v. byv / byu
   order the vertices by v / u; edge_v / edge_u are the edges from the first of that order to the
   last (the long one), from the first to the middle one and from the middle one to the last. */
typedef struct tri_ctx {
    double u[3], v[3], w[3];
    double dvdu[3], dwdu[3], dudv[3], dwdv[3];
    int byv[3], byu[3], edge_v[3], edge_u[3];
    bool walkable, thin;
    uint16_t tag;
} tri_ctx;

/* The edge joining vertices i and j (edge e runs from vertex e to vertex e + 1). */
static int edge_of(int i, int j) {
    return (i == 2 ? 0 : i + 1) == j ? i : j;
}

/* Vertex indices in increasing order of key[] (ties in index order, so the result is fixed): each
   vertex's rank is the number of vertices before it, counted without branches. */
static inline void order3(const double* key, int* o) {
    const int r0 = (key[1] < key[0]) + (key[2] < key[0]);
    const int r1 = (key[0] <= key[1]) + (key[2] < key[1]);
    const int r2 = (key[0] <= key[2]) + (key[1] <= key[2]);
    /* slot j takes the last vertex of rank j, or j itself when none has it (NaN keys): valid indices
       always; chosen in registers, where stores to computed slots read back at once stalled */
    for (int j = 0; j < 3; ++j) o[j] = r2 == j ? 2 : r1 == j ? 1 : r0 == j ? 0 : j;
}

/* The point where edge e crosses the row line v = c, from the edge's own first vertex and slope,
   so the value does not depend on any other cut. */
static xpt row_point(const tri_ctx* t, int e, double c) {
    double d = c - t->v[e];
    return (xpt){t->u[e] + t->dudv[e] * d, t->w[e] + t->dwdv[e] * d};
}

/* The points where the triangle's edges strictly cross the row line v = c (at most two): the
   long edge wherever c lies strictly between the lowest and highest v, and the short edge on c's
   side of the middle vertex. */
static inline int row_cross(const tri_ctx* t, double c, xpt* out) {
    const double v0 = t->v[t->byv[0]], v1 = t->v[t->byv[1]], v2 = t->v[t->byv[2]];
    if (!(c > v0 && c < v2)) return 0;
    out[0] = row_point(t, t->edge_v[0], c);
    if (c == v1) return 1;
    out[1] = row_point(t, t->edge_v[c < v1 ? 1 : 2], c);
    return 2;
}

/* Fills the cross-sections of the column lines u = c0 .. c1 (the same values whatever the window,
   as each depends on c and the triangle only): the edges strictly crossing the line (the long
   edge and the short one on c's side of the middle vertex) and the vertices on it. */
static void fill_lines(const tri_ctx* t, int c0, int c1, bool slopes, xline* L) {
    const int q0 = t->byu[0], q1 = t->byu[1], q2 = t->byu[2];
    const double u0 = t->u[q0], u1 = t->u[q1], u2 = t->u[q2];
    for (int c = c0; c <= c1; ++c) {
        xline* l = &L[c - c0];
        xpt pt[3];
        int n = 0;
        if (c > u0 && c < u2) {
            int e = t->edge_u[0];
            double d = c - t->u[e];
            pt[n++] = (xpt){t->v[e] + t->dvdu[e] * d, t->w[e] + t->dwdu[e] * d};
            if (c == u1) {
                pt[n++] = (xpt){t->v[q1], t->w[q1]};
            } else {
                e = t->edge_u[c < u1 ? 1 : 2], d = c - t->u[e];
                pt[n++] = (xpt){t->v[e] + t->dvdu[e] * d, t->w[e] + t->dwdu[e] * d};
            }
        } else { /* the vertices on the line, straight into l (the line's ends: most have none) */
            for (int k = 0; k < 3; ++k)
                if (t->u[k] == c) l->p[n++] = (xpt){t->v[k], t->w[k]};
            if (n == 2) pt[0] = l->p[0], pt[1] = l->p[1];
        }
        l->n = n;
        if (n == 2) {
            bool sw = pt[1].s < pt[0].s;
            l->p[0] = pt[sw], l->p[1] = pt[!sw];
            l->k = slopes && l->p[1].s > l->p[0].s ? (l->p[1].w - l->p[0].w) / (l->p[1].s - l->p[0].s) : 0;
        }
    }
}

/* Adds to `r` the heights of the cross-section `l` within the row strip z <= v <= z + 1 (its
   points in the strip and where it crosses the strip's sides); false when it misses the strip. */
static bool line_clip_few(const xline* l, double z, wrange* r);
static PTL_VX_INLINE_ALWAYS bool line_clip(const xline* l, double z, wrange* r) {
    if (l->n == 2) {
        /* the part in the strip is [sa, sb]; each of its ends takes the height along the
           cross-section from the nearer point: that point's own height where it lies in the strip
           (k * 0 adds nothing), with no branch to mispredict but the miss */
        const xpt* a = &l->p[0];
        const xpt* b = &l->p[1];
        double sa = dmax(a->s, z), sb = dmin(b->s, z + 1);
        if (sa > sb) return false;
        double wa = a->w + l->k * (sa - a->s), wb = b->w + l->k * (sb - b->s);
        r->lo = dmin(r->lo, dmin(wa, wb)), r->hi = dmax(r->hi, dmax(wa, wb));
        return true;
    }
    return line_clip_few(l, z, r);
}

/* line_clip for a cross-section of one point, or three (a triangle in the line's plane). */
static bool line_clip_few(const xline* l, double z, wrange* r) {
    bool any = false;
    for (int i = 0; i < l->n; ++i) {
        if (l->p[i].s >= z && l->p[i].s <= z + 1) wr_add(r, l->p[i].w), any = true;
        for (int j = i + 1; j < l->n; ++j)
            for (int side = 0; side < 2; ++side) {
                double c = z + side, di = l->p[i].s - c, dj = l->p[j].s - c;
                if ((di < 0 && dj > 0) || (di > 0 && dj < 0)) {
                    wr_add(r, l->p[i].w + (l->p[j].w - l->p[i].w) * (di / (di - dj)));
                    any = true;
                }
            }
    }
    return any;
}

/* Does line_clip find a part of `l` in the strip z <= v <= z + 1? (Its test, without the heights.) */
static inline bool line_hits(const xline* l, double z) {
    if (l->n == 2) return dmax(l->p[0].s, z) <= dmin(l->p[1].s, z + 1);
    wrange unused = {HUGE_VAL, -HUGE_VAL};
    return line_clip(l, z, &unused);
}

/* The columns xa .. xb of a row (more than one) of a triangle whose every piece is the span
   (lo, hi, tkey, wkey) (one_voxel): raster_row's multi-column pass without the heights. A column
   gets the span exactly when raster_row finds its piece non-empty: a point of `pts` in it (binned as
   there), or the left or right column line meeting the row strip (line_clip's test). Rows wider than
   62 columns (the mask) take raster_row's general pass, which gives the same spans (its heights,
   taken along lines filled without slopes, still lie in the triangle's range: one_voxel holds). */
static bool raster_row_one(raster* r, const xpt* pts, int np, double ru0, double ru1, int z, const xline* lines, int c0,
                           int xa, int xb, uint32_t col0, const uint32_t key[4]) {
    uint64_t in = 0; /* bit x - xa + 1: a point of pts in column x */
    for (int i = 0; i < np; ++i) {
        double u = dmax(xa - 1, dmin(pts[i].s, xb + 1));
        int k = (int)(u - xa) + 1;
        in |= (uint64_t)(u >= xa) << (k & 63);
    }
    bool left = ru0 <= xa && line_hits(&lines[xa - c0], z);
    for (int x = xa; x <= xb; ++x) {
        const bool right = ru1 >= x + 1 && line_hits(&lines[x + 1 - c0], z);
        if (((in >> (x - xa + 1) & 1) | left | right) && !add_span(r, col0 + (uint32_t)(x - xa), key[0], key[1], key[2], key[3]))
            return false;
        left = right;
    }
    return true;
}

/* Rasterizes row z of a triangle. Its part in the strip z <= v <= z + 1 is a convex polygon whose
   vertices are `pts` (the triangle's vertices in the strip and its edges' crossings with the two
   row lines; u range [ru0, ru1]). A column's part of it is a convex polygon whose vertices are
   those of `pts` within the column, and the ends of the triangle's cross-sections by the column's
   two lines clipped to the strip; the plane is linear, so its y range over the part is the range
   over these points. Every point is computed from the triangle's own vertices and edges, never
   from another cut (see the overview). `lines` holds the cross-sections of the lines c0 .. c1;
   `w_level` is the height of a level triangle (NAN otherwise), whose every part has that height;
   `one`, when not NULL, the span (lo, hi, tkey, wkey) of every piece of a one_voxel triangle. */
static bool raster_row(raster* r, const tri_ctx* tc, const xpt* pts, int np, double ru0, double ru1, int z,
                       const xline* lines, int c0, int c1, double w_level, const uint32_t* one) {
    const ptl_vx_params* p = r->p;
    if (tc->thin ? ru1 < 0 || ru0 > p->world_width : ru1 <= 0 || ru0 >= p->world_width) return true;
    /* within the lines filled for the triangle (c0 .. c1), which a crossing rounded past the
       triangle's own range would leave */
    int xa = first_cell(ru0, tc->thin, p->world_width), xb = last_cell(ru1, tc->thin, p->world_width);
    if (xa < c0) xa = c0;
    if (xb > c1 - 1) xb = c1 - 1;
    if (xa > xb) return true;
    const surf f = {tc->tag, tc->walkable};
    const uint32_t col0 = col_of(p, xa, z);
    if (w_level == w_level) { /* every piece is the same span */
        uint32_t lo, hi;
        if (!piece_span(p->heights, w_level, w_level, &lo, &hi)) return true;
        const uint32_t tkey = hi << 16 | f.tag, wkey = f.walkable ? tkey : 0;
        for (uint32_t c = col0; c <= col0 + (uint32_t)(xb - xa); ++c)
            if (!add_span(r, c, lo, hi, tkey, wkey)) return false;
        return true;
    }
    if (!lines || (xa == xb && ru0 >= xa && ru1 <= xa + 1)) { /* the row lies in one column: it is the piece */
        if (one) return add_span(r, col0, one[0], one[1], one[2], one[3]);
        wrange wr = {pts[0].w, pts[0].w};
        for (int i = 1; i < np; ++i) wr_add(&wr, pts[i].w);
        return emit_col(r, wr.lo, wr.hi, col0, f);
    }
    /* Each point's height goes to its column floor(u) (acc[x - xa + 1]; the slots on either
       side take the points beyond the row's columns): one pass without a branch per point and
       column, where testing every point in every column mispredicted the most. */
    if (one && xb - xa + 3 <= 64) return raster_row_one(r, pts, np, ru0, ru1, z, lines, c0, xa, xb, col0, one);
    wrange* acc = r->acc.data;
    for (int i = 0; i < xb - xa + 3; ++i) acc[i] = (wrange){HUGE_VAL, -HUGE_VAL};
    for (int i = 0; i < np; ++i) {
        /* floor(u) - xa + 1 for u in [xa, xb + 1], 0 before xa: u - xa is exact there (both are
           multiples of u's ulp and the difference is smaller than u), so truncating it is floor */
        double u = dmax(xa - 1, dmin(pts[i].s, xb + 1));
        int k = (int)(u - xa) + 1;
        wrange* a = &acc[u < xa ? 0 : k];
        a->lo = dmin(a->lo, pts[i].w), a->hi = dmax(a->hi, pts[i].w);
    }
    wrange left = {HUGE_VAL, -HUGE_VAL};
    if (ru0 <= xa) line_clip(&lines[xa - c0], z, &left); /* else the line misses the row */
    for (int x = xa; x <= xb; ++x) {
        wrange wr = acc[x - xa + 1];
        wr.lo = dmin(wr.lo, left.lo), wr.hi = dmax(wr.hi, left.hi);
        left = (wrange){HUGE_VAL, -HUGE_VAL};
        if (ru1 >= x + 1 && line_clip(&lines[x + 1 - c0], z, &left)) wr.lo = dmin(wr.lo, left.lo), wr.hi = dmax(wr.hi, left.hi);
        /* Nothing is found only where rounding made a sliver of the row miss both lines. */
        if (wr.lo <= wr.hi && !emit_col(r, wr.lo, wr.hi, col0 + (uint32_t)(x - xa), f)) return false;
    }
    return true;
}

/* x rounded to the nearest integer when within 1e-9 (relative) of it: a vertex meant to lie on a
   grid line (a 3 m floor on 0.3 m cells: 3 / 0.3 = 10.000000000000002) is put on it, so the floor
   does not leak into the column beyond. */
static double snap_line(double x) {
    if (!(x > -0.5 && x < 1e15)) return x; /* before the grid's first line, or far beyond it: no line to snap to */
    double n = (double)(int64_t)(x + 0.5);
    return fabs(x - n) <= 1e-9 * dmax(1, n) ? n : x;
}

/* Each edge's slopes along u and v: 1 / du and 1 / dv (0 for a zero difference) times the other
   differences. With SSE2 (always there on x86-64) the two reciprocals of an edge are one packed
   division, which gives the same bits (IEEE division either way), without the two branches. */
static void edge_slopes(tri_ctx* t) {
    for (int e = 0; e < 3; ++e) {
        const int f = e == 2 ? 0 : e + 1;
        const double du = t->u[f] - t->u[e], dv = t->v[f] - t->v[e], dw = t->w[f] - t->w[e];
#if defined(__SSE2__)
        const __m128d d = _mm_set_pd(dv, du);
        const __m128d q = _mm_and_pd(_mm_div_pd(_mm_set1_pd(1.0), d), _mm_cmpneq_pd(d, _mm_setzero_pd()));
        double inv[2];
        _mm_storeu_pd(inv, q);
        const double iu = inv[0], iv = inv[1];
#else
        const double iu = du != 0 ? 1 / du : 0, iv = dv != 0 ? 1 / dv : 0;
#endif
        t->dvdu[e] = dv * iu, t->dwdu[e] = dw * iu, t->dudv[e] = du * iv, t->dwdv[e] = dw * iv;
    }
}

/* Is every piece of the fat triangle `t`, whose heights span [wmin, wmax], the one span (k, k + 1)
   (into key: lo, hi, tkey, wkey)? So when [wmin, wmax] lies inside (k, k + 1) with a margin of
   1e-6 voxels on each side: every point a piece's y range is taken over (vertices, crossings with row
   and column lines, clipped ends of cross-sections) is an interpolation between two points of the
   triangle computed with a few roundings, within about 1e-11 of [wmin, wmax] (heights are below
   2^16), so floor and ceil of a piece's range are k and k + 1, piece_span's span. Many sloped floors
   rise less than a voxel across a triangle. */
static bool one_voxel(const tri_ctx* t, double wmin, double wmax, int top, uint32_t key[4]) {
    if (t->thin || !(wmin >= 0 && wmax <= top)) return false;
    const int k = (int)wmin;
    if (!(wmin - k > 1e-6 && wmax < k + 1 - 1e-6)) return false;
    key[0] = (uint32_t)k, key[1] = (uint32_t)k + 1;
    key[2] = key[1] << 16 | t->tag, key[3] = t->walkable ? key[2] : 0;
    return true;
}

/* Rasterizes one triangle (vertices in grid units). */
static bool raster_tri(raster* r, const double (*t)[3], bool walkable, uint16_t tag) {
    const ptl_vx_params* p = r->p;
    tri_ctx tc;
    for (int k = 0; k < 3; ++k) tc.u[k] = snap_line(t[k][U]), tc.v[k] = snap_line(t[k][V]), tc.w[k] = t[k][W];
    double umin = dmin(tc.u[0], dmin(tc.u[1], tc.u[2])), umax = dmax(tc.u[0], dmax(tc.u[1], tc.u[2]));
    double vmin = dmin(tc.v[0], dmin(tc.v[1], tc.v[2])), vmax = dmax(tc.v[0], dmax(tc.v[1], tc.v[2]));
    double wmin = dmin(tc.w[0], dmin(tc.w[1], tc.w[2])), wmax = dmax(tc.w[0], dmax(tc.w[1], tc.w[2]));
    if (umax < 0 || vmax < 0 || umin > p->world_width || vmin > p->world_depth || wmax < 0 || wmin > p->heights)
        return true;
    if (umax < p->ox || vmax < p->oz || umin > p->ox + p->width || vmin > p->oz + p->depth) return true; /* off the window */
    double e2 = 0;
    for (int i = 0, j = 2; i < 3; j = i++) {
        double du = tc.u[i] - tc.u[j], dv = tc.v[i] - tc.v[j];
        e2 = dmax(e2, du * du + dv * dv);
    }
    /* twice the signed plan area, translated to the first vertex so that points on one grid line
       give exactly 0 */
    const double area2 = (tc.u[1] - tc.u[0]) * (tc.v[2] - tc.v[0]) - (tc.u[2] - tc.u[0]) * (tc.v[1] - tc.v[0]);
    tc.walkable = walkable, tc.thin = fabs(area2) <= 1e-6 * e2, tc.tag = tag;
    /* a fat triangle only touching the grid's sides from outside has no area in it */
    if (!tc.thin && (umax <= 0 || vmax <= 0 || umin >= p->world_width || vmin >= p->world_depth)) return true;
    /* World rows and columns: a window (tiles.c) cuts the triangle exactly as the whole grid does.
       A thin triangle on a grid line touches the closed squares on both sides of it. */
    const int z0 = first_cell(vmin, tc.thin, p->world_depth), z1 = last_cell(vmax, tc.thin, p->world_depth);
    const int x0 = first_cell(umin, tc.thin, p->world_width), x1 = last_cell(umax, tc.thin, p->world_width);
    const int wz0 = p->oz, wz1 = p->oz + p->depth - 1;
    if (x0 == x1 && z0 == z1 && umin >= x0 && umax <= x0 + 1 && vmin >= z0 && vmax <= z0 + 1 &&
        (!tc.thin || (umin > x0 && umax < x0 + 1 && vmin > z0 && vmax < z0 + 1))) {
        if (x0 < p->ox || x0 > p->ox + p->width - 1 || z0 < wz0 || z0 > wz1) return true;
        return emit_col(r, wmin, wmax, col_of(p, x0, z0), (surf){tag, walkable}); /* only this square: a fat triangle has area there */
    }
    edge_slopes(&tc);
    order3(tc.v, tc.byv), order3(tc.u, tc.byu);
    tc.edge_v[0] = edge_of(tc.byv[0], tc.byv[2]), tc.edge_v[1] = edge_of(tc.byv[0], tc.byv[1]);
    tc.edge_v[2] = edge_of(tc.byv[1], tc.byv[2]);
    tc.edge_u[0] = edge_of(tc.byu[0], tc.byu[2]), tc.edge_u[1] = edge_of(tc.byu[0], tc.byu[1]);
    tc.edge_u[2] = edge_of(tc.byu[1], tc.byu[2]);
    /* A level triangle (floors, most of the input of many levels) has one height everywhere. */
    const double w_level = !tc.thin && tc.w[0] == tc.w[1] && tc.w[1] == tc.w[2] ? tc.w[0] : NAN;
    uint32_t one_key[4];
    const uint32_t* one = w_level != w_level && one_voxel(&tc, wmin, wmax, p->heights, one_key) ? one_key : NULL;
    const int c0 = x0 > p->ox ? x0 : p->ox, c1 = (x1 < p->ox + p->width - 1 ? x1 : p->ox + p->width - 1) + 1;
    /* Lines are read by rows reaching more than one column; a triangle within one column has
       none (lines = NULL: each row is its column's piece, whatever rounding does to its ends). */
    const xline* lines = NULL;
    if (w_level != w_level && c0 <= c1 && !(x0 == x1 && umin >= x0 && umax <= x0 + 1)) {
        if (!PTL_RESERVE(r->a, r->lines, (uint64_t)(c1 - c0) + 1) || !PTL_RESERVE(r->a, r->acc, (uint64_t)(c1 - c0) + 2))
            return false;
        fill_lines(&tc, c0, c1, !one, r->lines.data);
        lines = r->lines.data;
    }
    xpt lo[2] = {{0, 0}, {0, 0}}, hi[2] = {{0, 0}, {0, 0}}, pts[7];
    const int za = z0 > wz0 ? z0 : wz0, zb = z1 < wz1 ? z1 : wz1;
    int nlo = row_cross(&tc, za, lo);
    /* The vertices in order of v; those before j0 lie below the current strip. A strip holds the
       ones from j0 while v <= z + 1 (most strips none). The order of pts does not matter: each use
       takes minima and maxima, or a set of columns. */
    const int q0 = tc.byv[0], q1 = tc.byv[1], q2 = tc.byv[2];
    const double vs[4] = {tc.v[q0], tc.v[q1], tc.v[q2], HUGE_VAL};
    const xpt vp[3] = {{tc.u[q0], tc.w[q0]}, {tc.u[q1], tc.w[q1]}, {tc.u[q2], tc.w[q2]}};
    int j0 = 0;
    for (int z = za; z <= zb; ++z) {
        int nhi = row_cross(&tc, z + 1, hi), np = 0;
        pts[0] = lo[0], pts[1] = lo[1], np = nlo;
        while (vs[j0] < z) ++j0; /* vs[3] stops it */
        for (int j = j0; vs[j] <= z + 1; ++j) pts[np++] = vp[j];
        pts[np] = hi[0], pts[np + 1] = hi[1], lo[0] = hi[0], lo[1] = hi[1]; /* slots past nhi are unused */
        np += nhi, nlo = nhi;
        if (np == 0) continue;
        double ru0 = pts[0].s, ru1 = ru0;
        for (int i = 1; i < np; ++i) ru0 = dmin(ru0, pts[i].s), ru1 = dmax(ru1, pts[i].s);
        if (!raster_row(r, &tc, pts, np, ru0, ru1, z, lines, c0, c1, w_level, one)) return false;
    }
    return true;
}

void ptl_heightfield_free(ptl_heightfield* hf) {
    if (!hf) return;
    if (hf->alloc.free) {
        size_t cols = (size_t)hf->p.width * (size_t)hf->p.depth;
        ptl_mem_free(&hf->alloc, hf->col_start, (cols + 1) * sizeof *hf->col_start);
        ptl_mem_free(&hf->alloc, hf->spans, (size_t)hf->span_count * sizeof *hf->spans);
    }
    memset(hf, 0, sizeof *hf);
}

/* The lists -> compact arrays, resolving each span's walkable flag and tag. */
static ptl_status compact(raster* r, ptl_heightfield* hf, ptl_error* err) {
    const ptl_vx_params* p = r->p;
    size_t cols = (size_t)p->width * (size_t)p->depth;
    hf->col_start = ptl_mem_alloc(r->a, (cols + 1) * sizeof *hf->col_start);
    hf->spans = ptl_mem_alloc(r->a, (size_t)r->live * sizeof *hf->spans);
    hf->span_count = r->live; /* the size ptl_heightfield_free gives back, whatever failed */
    if (!hf->col_start || !hf->spans) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "voxelize: out of memory");
    uint32_t k = 0;
    for (size_t c = 0; c < cols; ++c) {
        hf->col_start[c] = k;
        for (uint32_t i = r->head[c]; i != END; i = r->pool.data[i].next) {
            const wspan* s = &r->pool.data[i];
            const uint32_t smax = s->tkey >> 16, wtop = s->wkey >> 16;
            bool walk = wtop != 0 && (int32_t)smax - (int32_t)wtop <= p->walkable_climb;
            ptl_vx_span o = {s->smin, (uint16_t)smax, (uint16_t)(walk ? s->wkey : s->tkey), walk, 0};
            hf->spans[k++] = o;
        }
    }
    hf->col_start[cols] = k;
    return k == r->live ? PTL_OK : ptl_error_set(err, PTL_ERR_INTERNAL, "voxelize: span count mismatch");
}

/* The slope test in single precision, operation for operation as Recast computes it (edge vectors,
   cross product, normalised by the reciprocal of its length, strictly above cos(max slope)). Only
   faces within a few ulps of the maximum slope depend on this: a quad at exactly 45 degrees splits
   into triangles some of which pass and some fail, in any precision. Recast's answer is the one the
   content was tuned against, so a face walkable there is walkable here and the reverse (the build
   uses -std=c11, so the compiler does not fuse these into FMAs). */
static bool slope_walkable(const double v[3][3], const ptl_vx_params* p) {
    float e0[3], e1[3];
    for (int c = 0; c < 3; ++c) {
        e0[c] = (float)v[1][c] - (float)v[0][c];
        e1[c] = (float)v[2][c] - (float)v[0][c];
    }
    float n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]};
    float d = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(d > 0)) return false;
    float ny = n[1] * (1.0f / d);
    return (p->walkable_both_sides ? fabsf(ny) : ny) > p->walkable_slope_cos;
}

ptl_status ptl_voxelize_trimesh(const ptl_trimesh* m, const uint32_t* tris, uint32_t count, const ptl_vx_params* p,
                            const ptl_allocator* alloc, ptl_heightfield* hf, ptl_error* err) {
    if (!m || !p || !hf) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_voxelize_trimesh: NULL argument");
    memset(hf, 0, sizeof *hf);
    if (p->width <= 0 || p->depth <= 0 || p->heights <= 0 || p->heights >= (int32_t)PTL_VX_MAX_HEIGHT ||
        (uint64_t)p->width * (uint64_t)p->depth > (1u << 28) || !(p->cs > 0) || !(p->ch > 0))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_voxelize_trimesh: parameters not from ptl_vx_params_resolve");
    if (m->tri_count && (!m->tris || !m->verts))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_voxelize_trimesh: mesh without arrays");
    const uint32_t n = tris ? count : m->tri_count;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t t = tris ? tris[i] : i;
        if (t >= m->tri_count)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_voxelize_trimesh: triangle %u of %u listed", t, m->tri_count);
        for (int k = 0; k < 3; ++k)
            if (m->tris[3 * (size_t)t + k] >= m->vert_count)
                return ptl_error_set(err, PTL_ERR_BAD_INPUT, "voxelize: triangle %u refers to vertex %u of %u", t,
                                     m->tris[3 * (size_t)t + k], m->vert_count);
    }
    ptl_allocator a = ptl_allocator_resolve(alloc);
    raster r;
    memset(&r, 0, sizeof r);
    r.p = p, r.a = &a, r.free_list = END;
    size_t cols = (size_t)p->width * (size_t)p->depth;
    r.head = ptl_mem_alloc(&a, cols * sizeof *r.head);
    ptl_status st = PTL_OK;
    if (!r.head || !PTL_RESERVE(&a, r.pool, 1))
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "voxelize: out of memory (%zu columns)", cols);
    if (st >= 0) {
        memset(r.head, 0, cols * sizeof *r.head); /* END */
        r.pool.data[END] = (wspan){0xffffu << 16, 0, 0xffffu, 0, END};
        r.pool.count = 1;
    }
    const double cs = p->cs, ch = p->ch;
    for (uint32_t i = 0; i < n && st >= 0; ++i) {
        uint32_t t = tris ? tris[i] : i;
        double v[3][3], g[3][3];
        for (int k = 0; k < 3; ++k) {
            const float* s = m->verts + 3 * (size_t)m->tris[3 * (size_t)t + k];
            for (int c = 0; c < 3; ++c) v[k][c] = s[c];
            /* The same expression as the grid size in vx_params.c (see there). */
            g[k][U] = ((double)s[0] - p->bmin[0]) / cs;
            g[k][W] = ((double)s[1] - p->bmin[1]) / ch;
            g[k][V] = ((double)s[2] - p->bmin[2]) / cs;
        }
        bool walkable = slope_walkable(v, p);
        uint16_t tag = m->tri_tag ? m->tri_tag[t] : 0;
        if (!raster_tri(&r, (const double(*)[3])g, walkable, tag))
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "voxelize: out of memory (%u spans)", r.pool.count);
    }
    /* the scratch goes back before the compaction takes its arrays: the stage's peak stays the lists
       and the result */
    PTL_ARRAY_FREE(&a, r.lines);
    PTL_ARRAY_FREE(&a, r.acc);
    if (st >= 0) {
        hf->p = *p;
        hf->alloc = a;
        st = compact(&r, hf, err);
        if (st < 0) ptl_heightfield_free(hf);
    }
    ptl_mem_free(&a, r.head, cols * sizeof *r.head);
    PTL_ARRAY_FREE(&a, r.pool);
    if (st >= 0) ptl_error_ok(err);
    return st;
}
