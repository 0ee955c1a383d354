/* Polyanya polygon files (.poly, format version 1): "poly", 1, N, then N polygons "M x1 y1 .. xM yM".
   Free space is the symmetric difference of ALL polygons (spec/poly-v1.txt): a point is free when
   an odd number of polygons contain it. Polygons may cross each other; a single polygon may not
   cross or overlap itself.

   The symmetric difference, in four steps, all on doubles:
   1. Every edge of every polygon goes into one set, indexed by a uniform grid. Each pair of edges
      that share a bucket is tested once per bucket: a proper crossing splits both edges at the
      intersection point (computed once, so both pieces end on the same doubles); an endpoint
      strictly inside another edge splits that edge there; collinear overlaps split each edge at
      the other's endpoints. Pairs from the same polygon that cross or overlap are rejected.
      Computed crossings that are one point in exact arithmetic are then snapped together (1b).
   2. After splitting, overlapping collinear pieces coincide exactly. A piece covered an even
      number of times is not boundary (the parity of coverage does not change across it) and is
      dropped; an odd one is kept once.
   3. Each kept piece is oriented so that the side with odd coverage is on its left: a ray from
      the piece's midpoint, along the axis it is not parallel to and towards the nearer side of
      the grid, counts the kept pieces it crosses (half-open rule at vertices); the parity is
      that of the point just beside the piece on the ray's side. One ray per connected group of
      pieces is enough: the orientation propagates through the vertices (orient_pieces).
   4. The oriented pieces are chained into rings by ptl_shape_build (shape_build.h), which merges
      the collinear runs that splitting created and keeps pinch points apart. */
#include <portolan/bake.h>

#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "../shape/shape_build.h"
#include "text_scan.h"

/* ---- Reading -----------------------------------------------------------------------------------*/

typedef struct poly_data {
    PTL_ARRAY(double) xy;      /* all points, after dropping repeats */
    PTL_ARRAY(uint32_t) start; /* per polygon, into xy / 2; one more at the end */
    PTL_ARRAY(uint32_t) line;  /* per polygon: the line of its point count */
    double q;                  /* the precision the points were rounded to (ptl_shape_snap) */
} poly_data;

static ptl_status poly_tok(ptl_text_tokens* t, const char* name, const char* what, const char** s, size_t* n,
                           ptl_error* err) {
    if (ptl_text_next_token(t, s, n)) return PTL_OK;
    return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: unexpected end of file: expected %s", name, t->line, what);
}

static ptl_status read_poly(ptl_text_tokens* t, const char* name, size_t len, const ptl_allocator* a, poly_data* d,
                            ptl_error* err) {
    const char* s;
    size_t n;
    char show[32], what[64];
    ptl_status st;
    int64_t count = 0, m = 0;
    if (!ptl_text_next_token(t, &s, &n))
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:1: empty file (expected 'poly')", name);
    if (!(n == 4 && !memcmp(s, "poly", 4)))
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: expected 'poly' header, found '%s'", name, t->line,
                             ptl_text_show(show, s, n));
    if ((st = poly_tok(t, name, "the format version", &s, &n, err)) < 0) return st;
    if (!(n == 1 && s[0] == '1'))
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: unsupported poly version '%s' (expected 1)", name, t->line,
                             ptl_text_show(show, s, n));
    if ((st = poly_tok(t, name, "the polygon count", &s, &n, err)) < 0) return st;
    ptl_num_result r = ptl_text_parse_int(s, n, &count);
    if (r == PTL_NUM_SYNTAX)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon count '%s' is not an integer", name, t->line,
                             ptl_text_show(show, s, n));
    if (r == PTL_NUM_OK && count < 0)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: negative polygon count %lld", name, t->line, (long long)count);
    if (r != PTL_NUM_OK || (uint64_t)count > len / 2)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon count %s is more than the file can hold", name,
                             t->line, ptl_text_show(show, s, n));
    for (int64_t p = 0; p < count; ++p) {
        snprintf(what, sizeof what, "polygon %lld of %lld", (long long)p, (long long)count);
        if ((st = poly_tok(t, name, what, &s, &n, err)) < 0) return st;
        uint32_t line = t->line;
        r = ptl_text_parse_int(s, n, &m);
        if (r == PTL_NUM_SYNTAX)
            return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon %lld: point count '%s' is not an integer", name,
                                 line, (long long)p, ptl_text_show(show, s, n));
        if (r != PTL_NUM_OK || m < 0 || (uint64_t)m > len / 2)
            return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon %lld: point count %s is out of range", name, line,
                                 (long long)p, ptl_text_show(show, s, n));
        if (!PTL_PUSH(a, d->start, d->xy.count / 2) || !PTL_PUSH(a, d->line, line))
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
        for (int64_t i = 0; i < m; ++i) {
            double xy[2];
            for (int c = 0; c < 2; ++c) {
                if (!ptl_text_next_token(t, &s, &n))
                    return ptl_error_set(err, PTL_ERR_PARSE,
                                         "%s:%u: unexpected end of file: polygon %lld announces %lld points, the file "
                                         "ends at point %lld", name, t->line, (long long)p, (long long)m, (long long)i);
                r = ptl_text_parse_double(s, n, &xy[c]);
                if (r == PTL_NUM_NONFINITE)
                    return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon %lld: %s '%s' is not a finite number", name,
                                         t->line, (long long)p, c ? "y" : "x", ptl_text_show(show, s, n));
                if (r != PTL_NUM_OK)
                    return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon %lld: %s '%s' is not a number", name,
                                         t->line, (long long)p, c ? "y" : "x", ptl_text_show(show, s, n));
                if (fabs(xy[c]) > PTL_BAKE_COORD_MAX)
                    return ptl_error_set(err, PTL_ERR_PARSE,
                                         "%s:%u: polygon %lld: %s '%s' is beyond +-%g (PTL_BAKE_COORD_MAX), more than "
                                         "the navmesh's float coordinates hold", name, t->line, (long long)p,
                                         c ? "y" : "x", ptl_text_show(show, s, n), PTL_BAKE_COORD_MAX);
                xy[c] += 0.0; /* -0.0 and 0.0 are one coordinate */
            }
            if (!PTL_PUSH(a, d->xy, xy[0]) || !PTL_PUSH(a, d->xy, xy[1]))
                return ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
        }
    }
    if (!PTL_PUSH(a, d->start, d->xy.count / 2)) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
    if (ptl_text_next_token(t, &s, &n))
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: trailing data '%s' after the %lld polygons the header announces",
                             name, t->line, ptl_text_show(show, s, n), (long long)count);
    return PTL_OK;
}

static double poly_area2(const double* xy, uint32_t b, uint32_t e) {
    double a2 = 0;
    for (uint32_t i = b; i < e; ++i) {
        uint32_t j = i + 1 < e ? i + 1 : b;
        a2 += xy[2 * i] * xy[2 * j + 1] - xy[2 * j] * xy[2 * i + 1];
    }
    return a2;
}

/* Rounds every point to the readers' precision (ptl_shape_snap), then drops the points equal to the
   one before (a closing copy of the first point too, and points the rounding made coincide). A
   polygon left with fewer than 3 points or no area, or rounding that changes the polygons' area by
   more than PTL_SHAPE_AREA_TOLERANCE of it (features too small for the float coordinates at this
   distance from the origin), is PTL_ERR_PARSE naming the polygon. */
static ptl_status snap_polys(poly_data* d, const char* name, const ptl_allocator* a, ptl_error* err) {
    const uint32_t np = d->start.count - 1;
    double* area = ptl_mem_alloc(a, ((size_t)np + 1) * sizeof(double));
    if (!area) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
    double total = 0, moved = 0, worst = -1;
    uint32_t worst_p = 0;
    for (uint32_t p = 0; p < np; ++p) area[p] = poly_area2(d->xy.data, d->start.data[p], d->start.data[p + 1]);
    const double q = ptl_shape_snap(d->xy.data, d->xy.count / 2);
    d->q = q;
    uint32_t k = 0;
    ptl_status st = PTL_OK;
    for (uint32_t p = 0; p < np && st >= 0; ++p) {
        const uint32_t b = d->start.data[p], e = d->start.data[p + 1], first = k;
        d->start.data[p] = first;
        for (uint32_t i = b; i < e; ++i) {
            const double x = d->xy.data[2 * i], y = d->xy.data[2 * i + 1];
            if (k > first && d->xy.data[2 * k - 2] == x && d->xy.data[2 * k - 1] == y) continue;
            d->xy.data[2 * k] = x, d->xy.data[2 * k + 1] = y, ++k;
        }
        while (k > first + 1 && d->xy.data[2 * k - 2] == d->xy.data[2 * first] &&
               d->xy.data[2 * k - 1] == d->xy.data[2 * first + 1])
            --k;
        const double a2 = k - first >= 3 ? poly_area2(d->xy.data, first, k) : 0;
        /* (A polygon of no area in the input too, a symmetric bowtie, is left to the
           self-intersection test, which names its edges.) */
        if ((k - first < 3 || (a2 == 0 && area[p] != 0)) && st >= 0)
            st = ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon %u has %s at the input's precision (%g)", name,
                               d->line.data[p], p, k - first < 3 ? "fewer than 3 distinct points" : "no area", q);
        total += fabs(area[p]);
        moved += fabs(a2 - area[p]);
        if (fabs(a2 - area[p]) > worst) worst = fabs(a2 - area[p]), worst_p = p;
    }
    d->start.data[np] = k;
    d->xy.count = 2 * k;
    if (st >= 0 && moved > PTL_SHAPE_AREA_TOLERANCE * total)
        st = ptl_error_set(err, PTL_ERR_PARSE,
                           "%s:%u: polygon %u is too small for the precision of coordinates this far from the origin "
                           "(%g): rounding changes the polygons' area by %.3g%% (move the input nearer the origin)",
                           name, d->line.data[worst_p], worst_p, q, 100 * moved / total);
    ptl_mem_free(a, area, ((size_t)np + 1) * sizeof(double));
    return st;
}

/* ---- Step 1: splitting -------------------------------------------------------------------------*/

static bool pt_less(double ax, double ay, double bx, double by) { return ax < bx || (ax == bx && ay < by); }

typedef struct split {
    uint32_t edge;
    uint32_t computed; /* 1: an intersection point computed here; 0: an input vertex (exact) */
    double t;          /* position along the edge, for ordering */
    double x, y;
} split;

static int cmp_split(const void* pa, const void* pb) {
    const split *a = pa, *b = pb;
    if (a->edge != b->edge) return a->edge < b->edge ? -1 : 1;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    return (a->y > b->y) - (a->y < b->y);
}

typedef struct xor_ctx {
    const poly_data* d;
    const char* name;
    ptl_allocator a;
    uint32_t ne;
    ptl_bseg* edges;     /* per edge */
    uint32_t* poly_of;   /* per edge */
    PTL_ARRAY(split) splits;
    /* The self-intersection reported is the one of the lowest polygon, whatever the bucket order. */
    uint32_t bad_poly;
    char bad_msg[400];
} xor_ctx;

static bool add_split(xor_ctx* c, uint32_t e, double x, double y, bool computed) {
    const ptl_bseg* s = &c->edges[e];
    double dx = s->bx - s->ax, dy = s->by - s->ay;
    split sp = {e, computed, ((x - s->ax) * dx + (y - s->ay) * dy) / (dx * dx + dy * dy), x, y};
    return PTL_PUSH(&c->a, c->splits, sp);
}

static void self_error(xor_ctx* c, uint32_t p, uint32_t e, uint32_t f, const char* what, double x, double y) {
    if (p >= c->bad_poly) return;
    c->bad_poly = p;
    uint32_t first = c->d->start.data[p];
    /* Edge indices within the polygon: edge i runs from point i to point i + 1. */
    uint32_t ei = e - first, fi = f - first;
    snprintf(c->bad_msg, sizeof c->bad_msg, "%s:%u: polygon %u is self-intersecting: its edges %u and %u %s at (%.9g, %.9g)",
             c->name, c->d->line.data[p], p, ei, fi, what, x, y);
}

/* The crossing point of two segments, computed from a canonical form of the pair (each segment's
   endpoints in lexicographic order, the two segments in lexicographic order) so that coincident
   edges of different polygons give bit-identical points whichever pair they are found in. */
static void crossing_point(const ptl_bseg* s0, const ptl_bseg* t0, double* x, double* y) {
    ptl_bseg s = *s0, t = *t0;
    if (pt_less(s.bx, s.by, s.ax, s.ay)) s = (ptl_bseg){s.bx, s.by, s.ax, s.ay};
    if (pt_less(t.bx, t.by, t.ax, t.ay)) t = (ptl_bseg){t.bx, t.by, t.ax, t.ay};
    if (pt_less(t.ax, t.ay, s.ax, s.ay) || (t.ax == s.ax && t.ay == s.ay && pt_less(t.bx, t.by, s.bx, s.by))) {
        ptl_bseg k = s;
        s = t;
        t = k;
    }
    double o3 = ptl_orient2(t.ax, t.ay, t.bx, t.by, s.ax, s.ay);
    double o4 = ptl_orient2(t.ax, t.ay, t.bx, t.by, s.bx, s.by);
    double u = o3 / (o3 - o4);
    *x = s.ax + (s.bx - s.ax) * u;
    *y = s.ay + (s.by - s.ay) * u;
}

/* Tests edges e < f. False only when out of memory. */
static bool test_pair(xor_ctx* c, uint32_t e, uint32_t f) {
    const ptl_bseg *s = &c->edges[e], *t = &c->edges[f];
    if (fmax(s->ax, s->bx) < fmin(t->ax, t->bx) || fmax(t->ax, t->bx) < fmin(s->ax, s->bx) ||
        fmax(s->ay, s->by) < fmin(t->ay, t->by) || fmax(t->ay, t->by) < fmin(s->ay, s->by))
        return true;
    uint32_t p = c->poly_of[e], q = c->poly_of[f];
    bool same = p == q;
    bool adjacent = false;
    if (same) {
        /* Polygon edges are numbered consecutively, with the last one closing back to the first. */
        uint32_t first = c->d->start.data[p], last = c->d->start.data[p + 1] - 1;
        adjacent = f == e + 1 || (e == first && f == last);
    }
    double o1 = ptl_orient2(s->ax, s->ay, s->bx, s->by, t->ax, t->ay);
    double o2 = ptl_orient2(s->ax, s->ay, s->bx, s->by, t->bx, t->by);
    double o3 = ptl_orient2(t->ax, t->ay, t->bx, t->by, s->ax, s->ay);
    double o4 = ptl_orient2(t->ax, t->ay, t->bx, t->by, s->bx, s->by);
    if (o1 == 0 && o2 == 0) {
        bool use_x = s->ax != s->bx;
        double a0 = use_x ? fmin(s->ax, s->bx) : fmin(s->ay, s->by), a1 = use_x ? fmax(s->ax, s->bx) : fmax(s->ay, s->by);
        double b0 = use_x ? fmin(t->ax, t->bx) : fmin(t->ay, t->by), b1 = use_x ? fmax(t->ax, t->bx) : fmax(t->ay, t->by);
        if (!(fmin(a1, b1) > fmax(a0, b0))) return true; /* collinear, touching at most at a point */
        if (same) {
            double lo = fmax(a0, b0);
            bool on_s = use_x ? (s->ax == lo) : (s->ay == lo);
            self_error(c, p, e, f, "overlap", on_s ? s->ax : s->bx, on_s ? s->ay : s->by);
            return true;
        }
        if (ptl_between_open(s->ax, s->ay, s->bx, s->by, t->ax, t->ay) && !add_split(c, e, t->ax, t->ay, false)) return false;
        if (ptl_between_open(s->ax, s->ay, s->bx, s->by, t->bx, t->by) && !add_split(c, e, t->bx, t->by, false)) return false;
        if (ptl_between_open(t->ax, t->ay, t->bx, t->by, s->ax, s->ay) && !add_split(c, f, s->ax, s->ay, false)) return false;
        if (ptl_between_open(t->ax, t->ay, t->bx, t->by, s->bx, s->by) && !add_split(c, f, s->bx, s->by, false)) return false;
        return true;
    }
    if (adjacent) return true; /* they share one endpoint and are not collinear: nothing more */
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) {
        double x, y;
        crossing_point(s, t, &x, &y);
        if (same) {
            self_error(c, p, e, f, "cross", x, y);
            return true;
        }
        return add_split(c, e, x, y, true) && add_split(c, f, x, y, true);
    }
    /* An endpoint strictly inside the other edge: split that edge there. */
    if (o1 == 0 && ptl_between_open(s->ax, s->ay, s->bx, s->by, t->ax, t->ay) && !add_split(c, e, t->ax, t->ay, false)) return false;
    if (o2 == 0 && ptl_between_open(s->ax, s->ay, s->bx, s->by, t->bx, t->by) && !add_split(c, e, t->bx, t->by, false)) return false;
    if (o3 == 0 && ptl_between_open(t->ax, t->ay, t->bx, t->by, s->ax, s->ay) && !add_split(c, f, s->ax, s->ay, false)) return false;
    if (o4 == 0 && ptl_between_open(t->ax, t->ay, t->bx, t->by, s->bx, s->by) && !add_split(c, f, s->bx, s->by, false)) return false;
    return true;
}

/* ---- Step 1b: snapping computed crossing points -------------------------------------------------
   Two computations of what is mathematically one point round differently: three edges through one
   point, or a third edge crossing two collinear overlapping edges. The pieces would then miss each
   other by an ulp, and neither chain nor cancel. So every computed crossing within eps (in x and
   in y) of an input vertex becomes that vertex, and computed crossings within eps of each other
   become one point (single-linkage clusters found through a hash grid of eps-sized cells; the
   lexicographically smallest point represents its cluster). Input vertices never move. eps is
   2^-26 of the input's scale: far above rounding error, far below any feature a map would have. */

typedef struct snap_pt {
    int64_t cx, cy; /* eps-sized cell */
    double x, y;
    uint32_t ref;   /* input vertex index, or split index */
    uint32_t exact; /* 1: input vertex */
} snap_pt;

static int cmp_snap(const void* pa, const void* pb) {
    const snap_pt *a = pa, *b = pb;
    if (a->cx != b->cx) return a->cx < b->cx ? -1 : 1;
    if (a->cy != b->cy) return a->cy < b->cy ? -1 : 1;
    if (a->exact != b->exact) return a->exact > b->exact ? -1 : 1;
    return (a->ref > b->ref) - (a->ref < b->ref);
}

static uint32_t uf_find(uint32_t* parent, uint32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* First index in sorted `p` whose cell is not before (cx, cy). */
static uint32_t snap_lower(const snap_pt* p, uint32_t n, int64_t cx, int64_t cy) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p[mid].cx < cx || (p[mid].cx == cx && p[mid].cy < cy)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool snap_crossings(xor_ctx* c) {
    uint32_t nc = 0;
    for (uint32_t i = 0; i < c->splits.count; ++i) nc += c->splits.data[i].computed;
    if (nc == 0) return true;
    const double* vxy = c->d->xy.data;
    double xmin = vxy[0], xmax = vxy[0], ymin = vxy[1], ymax = vxy[1], amax = 0;
    for (uint32_t v = 0; v < c->ne; ++v) {
        xmin = fmin(xmin, vxy[2 * v]), xmax = fmax(xmax, vxy[2 * v]);
        ymin = fmin(ymin, vxy[2 * v + 1]), ymax = fmax(ymax, vxy[2 * v + 1]);
        amax = fmax(amax, fmax(fabs(vxy[2 * v]), fabs(vxy[2 * v + 1])));
    }
    double scale = fmax(fmax(xmax - xmin, ymax - ymin), amax);
    double eps = ldexp(scale > 0 ? scale : 1, -26);
    uint32_t n = nc + c->ne;
    snap_pt* p = ptl_mem_alloc(&c->a, (size_t)n * sizeof *p);
    uint32_t* parent = ptl_mem_alloc(&c->a, (size_t)n * sizeof *parent);
    uint32_t* rep = ptl_mem_alloc(&c->a, (size_t)n * sizeof *rep);
    bool ok = p && parent && rep;
    if (ok) {
        uint32_t k = 0;
        for (uint32_t v = 0; v < c->ne; ++v) p[k++] = (snap_pt){0, 0, vxy[2 * v], vxy[2 * v + 1], v, 1};
        for (uint32_t i = 0; i < c->splits.count; ++i)
            if (c->splits.data[i].computed) p[k++] = (snap_pt){0, 0, c->splits.data[i].x, c->splits.data[i].y, i, 0};
        for (uint32_t i = 0; i < n; ++i) {
            p[i].cx = (int64_t)floor(p[i].x / eps);
            p[i].cy = (int64_t)floor(p[i].y / eps);
        }
        ok = ptl_sort(p, n, sizeof *p, cmp_snap, &c->a);
    }
    if (ok) {
        for (uint32_t i = 0; i < n; ++i) parent[i] = i, rep[i] = PTL_NONE;
        for (uint32_t i = 0; i < n; ++i) {
            if (p[i].exact) continue;
            for (int64_t dx = -1; dx <= 1; ++dx)
                for (int64_t dy = -1; dy <= 1; ++dy)
                    for (uint32_t j = snap_lower(p, n, p[i].cx + dx, p[i].cy + dy);
                         j < n && p[j].cx == p[i].cx + dx && p[j].cy == p[i].cy + dy; ++j) {
                        if (j == i || fabs(p[j].x - p[i].x) > eps || fabs(p[j].y - p[i].y) > eps) continue;
                        uint32_t a = uf_find(parent, i), b = uf_find(parent, j);
                        if (a != b) parent[a > b ? a : b] = a < b ? a : b;
                    }
        }
        /* Representative: the first input vertex of the cluster (by index), else its smallest point. */
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t r = uf_find(parent, i);
            uint32_t* b = &rep[r];
            if (*b == PTL_NONE) *b = i;
            else if (p[i].exact && (!p[*b].exact || p[i].ref < p[*b].ref)) *b = i;
            else if (!p[i].exact && !p[*b].exact && pt_less(p[i].x, p[i].y, p[*b].x, p[*b].y)) *b = i;
        }
        /* A cluster of crossings alone is rounded like every input vertex (snap_polys,
           ptl_shape_round): then every vertex of the shape is exactly what the navmesh stores.
           Moving a crossing by a rounding step may bring it onto another boundary that passes
           that close; the shape's check after the build refuses that (poly_xor). */
        for (uint32_t i = 0; i < n; ++i) {
            if (p[i].exact) continue;
            const snap_pt* r = &p[rep[uf_find(parent, i)]];
            c->splits.data[p[i].ref].x = r->exact ? r->x : ptl_shape_round(r->x);
            c->splits.data[p[i].ref].y = r->exact ? r->y : ptl_shape_round(r->y);
        }
    }
    ptl_mem_free(&c->a, p, (size_t)n * sizeof *p);
    ptl_mem_free(&c->a, parent, (size_t)n * sizeof *parent);
    ptl_mem_free(&c->a, rep, (size_t)n * sizeof *rep);
    return ok;
}

/* ---- Step 2: cancelling pieces covered an even number of times ---------------------------------*/

/* A piece with its endpoints in canonical order (lo < hi lexicographically). */
typedef struct piece {
    double lx, ly, hx, hy;
    uint32_t id;
} piece;

static int cmp_piece(const void* pa, const void* pb) {
    const piece *a = pa, *b = pb;
    if (a->lx != b->lx) return a->lx < b->lx ? -1 : 1;
    if (a->ly != b->ly) return a->ly < b->ly ? -1 : 1;
    if (a->hx != b->hx) return a->hx < b->hx ? -1 : 1;
    if (a->hy != b->hy) return a->hy < b->hy ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* ---- Step 3: parity beside a piece -------------------------------------------------------------*/

/* Number of pieces crossed (mod 2) by the ray from the point at parameter t of piece e, along x
   when the piece is not horizontal and along y otherwise, towards the nearer side of the grid.
   Returns -1 when a crossing falls exactly on the start point: the caller tries another t. */
static int ray_parity(const ptl_seg_index* g, const ptl_bseg* ps, uint32_t e, double t, uint32_t* stamp, uint32_t id,
                      bool* along_x, bool* positive) {
    const ptl_bseg* s = &ps[e];
    double mx = s->ax + (s->bx - s->ax) * t, my = s->ay + (s->by - s->ay) * t;
    uint32_t col = ptl_seg_index_col(g, mx), row = ptl_seg_index_row(g, my);
    *along_x = s->ay != s->by;
    uint32_t lo, hi;
    if (*along_x) {
        *positive = g->nx - 1 - col <= col;
        lo = *positive ? col : 0;
        hi = *positive ? g->nx - 1 : col;
    } else {
        *positive = g->ny - 1 - row <= row;
        lo = *positive ? row : 0;
        hi = *positive ? g->ny - 1 : row;
    }
    unsigned crossings = 0;
    for (uint32_t k = lo; k <= hi; ++k) {
        size_t b = *along_x ? (size_t)row * g->nx + k : (size_t)k * g->nx + col;
        for (uint32_t i = g->start[b]; i < g->start[b + 1]; ++i) {
            uint32_t f = g->items[i];
            if (f == e || stamp[f] == id) continue;
            stamp[f] = id;
            const ptl_bseg* q = &ps[f];
            if (*along_x) {
                if ((q->ay > my) == (q->by > my)) continue;
                double x = q->ax + (my - q->ay) * (q->bx - q->ax) / (q->by - q->ay);
                if (x == mx) return -1;
                crossings += *positive ? x > mx : x < mx;
            } else {
                if ((q->ax > mx) == (q->bx > mx)) continue;
                double y = q->ay + (mx - q->ax) * (q->by - q->ay) / (q->bx - q->ax);
                if (y == my) return -1;
                crossings += *positive ? y > my : y < my;
            }
        }
    }
    return (int)(crossings & 1u);
}

/* Whether piece e must be flipped so that odd coverage is on its left, by one ray (see above). */
static bool flip_by_ray(const ptl_seg_index* g, const ptl_bseg* ps, uint32_t n, uint32_t e, uint32_t* stamp,
                        uint32_t* id) {
    static const double ts[] = {0.5, 0.3125, 0.6875, 0.40625, 0.59375, 0.21875, 0.78125, 0.125};
    int parity = -1;
    bool along_x = true, positive = true;
    for (size_t k = 0; k < sizeof ts / sizeof ts[0] && parity < 0; ++k) {
        if (++*id == 0) { /* wrapped: clear the stamps */
            memset(stamp, 0, ((size_t)n + 1) * sizeof(uint32_t));
            *id = 1;
        }
        parity = ray_parity(g, ps, e, ts[k], stamp, *id, &along_x, &positive);
    }
    if (parity < 0) parity = 0; /* every probe grazed a crossing: cannot happen without overlaps */
    /* Which way the free side must face: along x, free on +x means heading down (-y); along y,
       free on +y means heading east (+x). */
    bool free_positive = positive == (parity == 1);
    const ptl_bseg* s = &ps[e];
    if (along_x) return free_positive ? s->by > s->ay : s->by < s->ay;
    return free_positive ? s->bx < s->ax : s->bx > s->ax;
}

/* An end of a piece: slot = 2 * piece + (0: a, 1: b), with the direction to the other end. */
typedef struct pend {
    double x, y, dx, dy;
    uint32_t slot;
} pend;

static int cmp_pend_pos(const void* pa, const void* pb) {
    const pend *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    return (a->slot > b->slot) - (a->slot < b->slot);
}

/* Counter-clockwise angle order, ties by slot (they only arise from inconsistent input). */
static int cmp_pend_angle(const void* pa, const void* pb) {
    const pend *a = pa, *b = pb;
    int ha = (a->dy > 0 || (a->dy == 0 && a->dx > 0)) ? 0 : 1, hb = (b->dy > 0 || (b->dy == 0 && b->dx > 0)) ? 0 : 1;
    if (ha != hb) return ha < hb ? -1 : 1;
    double c = a->dx * b->dy - a->dy * b->dx;
    if (c != 0) return c > 0 ? -1 : 1;
    return (a->slot > b->slot) - (a->slot < b->slot);
}

/* Orients every piece with odd coverage on its left (step 3).

   One ray per connected component of pieces, not one per piece: around any vertex the sectors
   between consecutive pieces alternate between odd and even coverage (each piece is where the
   parity flips), so in counter-clockwise order the pieces alternately leave the vertex (odd
   sector on their left) and arrive at it. Knowing one piece's direction at a vertex fixes all the
   others there, and a search through the vertices carries it over the whole component. A vertex
   with an odd number of pieces (only possible through rounding) propagates nothing; the pieces
   it would have decided get their own ray. Near-linear: the rays cost O(sqrt n) each, one per
   component (islands, holes), instead of one per piece. */
static bool orient_pieces(ptl_bseg* ps, uint32_t n, const ptl_allocator* a) {
    ptl_seg_index g;
    memset(&g, 0, sizeof g);
    uint32_t* stamp = ptl_mem_calloc(a, (size_t)n + 1, sizeof(uint32_t));
    pend* ends = ptl_mem_alloc(a, (size_t)n * 2 * sizeof(pend));
    uint32_t* vstart = ptl_mem_alloc(a, ((size_t)n * 2 + 1) * sizeof(uint32_t));
    uint32_t* where = ptl_mem_alloc(a, (size_t)n * 2 * sizeof(uint32_t)); /* slot -> index in ends */
    uint32_t* vof = ptl_mem_alloc(a, (size_t)n * 2 * sizeof(uint32_t));   /* index in ends -> vertex */
    uint32_t* stack = ptl_mem_alloc(a, (size_t)n * sizeof(uint32_t));
    uint8_t* state = ptl_mem_calloc(a, (size_t)n, 1); /* 0 unknown, 1 keep, 2 flip */
    bool ok = stamp && ends && vstart && where && vof && stack && state && ptl_seg_index_build(&g, a, ps, n);
    if (ok) {
        for (uint32_t e = 0; e < n; ++e) {
            const ptl_bseg* s = &ps[e];
            ends[2 * e] = (pend){s->ax, s->ay, s->bx - s->ax, s->by - s->ay, 2 * e};
            ends[2 * e + 1] = (pend){s->bx, s->by, s->ax - s->bx, s->ay - s->by, 2 * e + 1};
        }
        /* Group the ends by vertex, then order each vertex's ends by angle. */
        ok = ptl_sort(ends, (size_t)n * 2, sizeof(pend), cmp_pend_pos, a);
    }
    if (ok) {
        uint32_t nv = 0;
        for (uint32_t i = 0; i < 2 * n; ++i) {
            if (i == 0 || ends[i].x != ends[i - 1].x || ends[i].y != ends[i - 1].y) vstart[nv++] = i;
            vof[i] = nv - 1; /* stays right: the angle sort below permutes within a vertex only */
        }
        vstart[nv] = 2 * n;
        for (uint32_t v = 0; ok && v < nv; ++v)
            if (vstart[v + 1] - vstart[v] > 2)
                ok = ptl_sort(ends + vstart[v], vstart[v + 1] - vstart[v], sizeof(pend), cmp_pend_angle, a);
    }
    if (ok) {
        for (uint32_t i = 0; i < 2 * n; ++i) where[ends[i].slot] = i;
        uint32_t id = 0;
        for (uint32_t e0 = 0; e0 < n; ++e0) {
            if (state[e0]) continue;
            state[e0] = flip_by_ray(&g, ps, n, e0, stamp, &id) ? 2 : 1;
            uint32_t top = 0;
            stack[top++] = e0;
            while (top) {
                uint32_t e = stack[--top];
                for (uint32_t end = 0; end < 2; ++end) {
                    uint32_t k = where[2 * e + end];
                    uint32_t v = vof[k];
                    uint32_t b = vstart[v], deg = vstart[v + 1] - b;
                    if (deg < 2 || (deg & 1u)) continue;
                    /* Does e leave this vertex? Ends alternate leave/arrive around it. */
                    bool leaves = (end == 0) == (state[e] == 1);
                    for (uint32_t j = 0; j < deg; ++j) {
                        uint32_t slot = ends[b + j].slot, f = slot / 2;
                        if (state[f]) continue;
                        bool f_leaves = leaves == (((j + deg - (k - b)) & 1u) == 0);
                        bool f_keep = f_leaves == ((slot & 1u) == 0);
                        state[f] = f_keep ? 1 : 2;
                        stack[top++] = f;
                    }
                }
            }
        }
        for (uint32_t e = 0; e < n; ++e) {
            if (state[e] != 2) continue;
            ptl_bseg* s = &ps[e];
            double tx = s->ax, ty = s->ay;
            s->ax = s->bx, s->ay = s->by;
            s->bx = tx, s->by = ty;
        }
    }
    ptl_seg_index_free(&g);
    ptl_mem_free(a, stamp, ((size_t)n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, ends, (size_t)n * 2 * sizeof(pend));
    ptl_mem_free(a, vstart, ((size_t)n * 2 + 1) * sizeof(uint32_t));
    ptl_mem_free(a, where, (size_t)n * 2 * sizeof(uint32_t));
    ptl_mem_free(a, vof, (size_t)n * 2 * sizeof(uint32_t));
    ptl_mem_free(a, stack, (size_t)n * sizeof(uint32_t));
    ptl_mem_free(a, state, (size_t)n);
    return ok;
}

/* ---- The whole reader ----------------------------------------------------------------------------*/

typedef PTL_ARRAY(ptl_bseg) bseg_array;

/* Step 1: every edge of every polygon, then every pair of edges sharing a bucket. False only when
   out of memory; a self-intersection is left in c->bad_poly / c->bad_msg. */
static bool find_splits(xor_ctx* c) {
    const poly_data* d = c->d;
    c->edges = ptl_mem_alloc(&c->a, (size_t)c->ne * sizeof(ptl_bseg));
    c->poly_of = ptl_mem_alloc(&c->a, (size_t)c->ne * sizeof(uint32_t));
    if (!c->edges || !c->poly_of) return false;
    for (uint32_t p = 0; p + 1 < d->start.count; ++p) {
        uint32_t b = d->start.data[p], e = d->start.data[p + 1];
        for (uint32_t i = b; i < e; ++i) {
            uint32_t j = i + 1 < e ? i + 1 : b;
            c->edges[i] = (ptl_bseg){d->xy.data[2 * i], d->xy.data[2 * i + 1], d->xy.data[2 * j], d->xy.data[2 * j + 1]};
            c->poly_of[i] = p;
        }
    }
    ptl_seg_index g;
    if (!ptl_seg_index_build(&g, &c->a, c->edges, c->ne)) return false;
    bool ok = true;
    for (size_t b = 0; ok && b < (size_t)g.nx * g.ny; ++b)
        for (uint32_t k = g.start[b]; ok && k < g.start[b + 1]; ++k)
            for (uint32_t l = k + 1; ok && l < g.start[b + 1]; ++l) {
                uint32_t e = g.items[k], f = g.items[l];
                ok = test_pair(c, e < f ? e : f, e < f ? f : e);
            }
    ptl_seg_index_free(&g);
    return ok;
}

/* Steps 1b and the cut: snaps the crossings, then cuts every edge at its split points in order. */
static bool cut_pieces(xor_ctx* c, bseg_array* raw) {
    if (!snap_crossings(c)) return false;
    if (!ptl_sort(c->splits.data, c->splits.count, sizeof(split), cmp_split, &c->a)) return false;
    for (uint32_t e = 0, k = 0; e < c->ne; ++e) {
        const ptl_bseg* s = &c->edges[e];
        double px = s->ax, py = s->ay;
        for (; k < c->splits.count && c->splits.data[k].edge == e; ++k) {
            const split* sp = &c->splits.data[k];
            if ((sp->x == px && sp->y == py) || (sp->x == s->bx && sp->y == s->by)) continue;
            if (!PTL_PUSH(&c->a, *raw, ((ptl_bseg){px, py, sp->x, sp->y}))) return false;
            px = sp->x, py = sp->y;
        }
        if (!PTL_PUSH(&c->a, *raw, ((ptl_bseg){px, py, s->bx, s->by}))) return false;
    }
    return true;
}

/* Step 2: identical pieces (either direction) cancel in pairs; an odd run keeps one. */
static bool cancel_even(const ptl_allocator* a, const bseg_array* raw, bseg_array* kept) {
    piece* pieces = ptl_mem_alloc(a, ((size_t)raw->count + 1) * sizeof(piece));
    if (!pieces) return false;
    for (uint32_t i = 0; i < raw->count; ++i) {
        const ptl_bseg* s = &raw->data[i];
        bool fwd = pt_less(s->ax, s->ay, s->bx, s->by);
        pieces[i] = fwd ? (piece){s->ax, s->ay, s->bx, s->by, i} : (piece){s->bx, s->by, s->ax, s->ay, i};
    }
    bool ok = ptl_sort(pieces, raw->count, sizeof(piece), cmp_piece, a);
    for (uint32_t i = 0; ok && i < raw->count;) {
        uint32_t j = i + 1;
        while (j < raw->count && pieces[j].lx == pieces[i].lx && pieces[j].ly == pieces[i].ly &&
               pieces[j].hx == pieces[i].hx && pieces[j].hy == pieces[i].hy)
            ++j;
        if ((j - i) & 1u) ok = PTL_PUSH(a, *kept, raw->data[pieces[i].id]);
        i = j;
    }
    ptl_mem_free(a, pieces, ((size_t)raw->count + 1) * sizeof(piece));
    return ok;
}

static ptl_status poly_xor(const poly_data* d, const char* name, ptl_shape* out, ptl_error* err) {
    xor_ctx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.name = name;
    c.a = out->alloc;
    c.bad_poly = UINT32_MAX;
    c.ne = d->xy.count / 2;
    if (c.ne == 0) return ptl_error_set(err, PTL_ERR_BAD_INPUT, "%s: no polygons (no free space)", name);
    bseg_array raw = {0}, kept = {0};
    ptl_status st = PTL_OK;
    bool oom = false;
    if (!find_splits(&c)) oom = true;
    else if (c.bad_poly != UINT32_MAX) st = ptl_error_set(err, PTL_ERR_PARSE, "%s", c.bad_msg);
    else if (!cut_pieces(&c, &raw) || !cancel_even(&c.a, &raw, &kept)) oom = true;
    else if (kept.count == 0) st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "%s: no free space (the polygons cancel out)", name);
    else if (!orient_pieces(kept.data, kept.count, &c.a)) oom = true;    /* step 3 */
    else st = ptl_shape_build(kept.data, kept.count, 2 * d->q, name, out, err);  /* step 4 */
    if (st >= 0) {
        /* Crossings rounded to the precision grid (snap_crossings) can touch a boundary that
           passes within the precision of them: refused here, never handed to the decomposition. */
        ptl_error e;
        memset(&e, 0, sizeof e);
        bool too_near = false;
        out->precision = d->q;
        if ((st = ptl_shape_check(out, &e, &too_near)) < 0) {
            if (too_near)
                st = ptl_error_set(err, st, "%s: the polygons' boundaries come too near each other for the input's "
                                   "precision: %s", name, e.message);
            else
                st = ptl_error_set(err, st == PTL_ERR_NO_MEMORY ? st : PTL_ERR_BAD_INPUT,
                                   "%s: the polygons' boundaries come within the input's precision (%g) of each other "
                                   "where they cross: %s", name, d->q, e.message);
            ptl_shape_free(out);
        }
    }
    if (oom) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory computing the symmetric difference", name);
    ptl_mem_free(&c.a, c.edges, (size_t)c.ne * sizeof(ptl_bseg));
    ptl_mem_free(&c.a, c.poly_of, (size_t)c.ne * sizeof(uint32_t));
    PTL_ARRAY_FREE(&c.a, c.splits);
    PTL_ARRAY_FREE(&c.a, raw);
    PTL_ARRAY_FREE(&c.a, kept);
    return st;
}

ptl_status ptl_poly_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                          ptl_shape* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_poly_parse: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    out->alloc = a;
    if (!text && len) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_poly_parse: text is NULL");
    if (!name) name = "<poly>";
    ptl_text_tokens t = {text, text + len, 1};
    poly_data d;
    memset(&d, 0, sizeof d);
    ptl_status st = read_poly(&t, name, len, &a, &d, err);
    if (st >= 0) st = snap_polys(&d, name, &a, err);
    if (st >= 0) st = poly_xor(&d, name, out, err);
    PTL_ARRAY_FREE(&a, d.xy);
    PTL_ARRAY_FREE(&a, d.start);
    PTL_ARRAY_FREE(&a, d.line);
    return st;
}

ptl_status ptl_poly_load(const char* path, const ptl_input_desc* desc, ptl_shape* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_poly_load: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    out->alloc = a;
    ptl_text_file f;
    ptl_status st = ptl_text_read_file(path, &a, &f, err);
    if (st < 0) return st;
    st = ptl_poly_parse(f.data, f.size, path, &(ptl_input_desc){.alloc = &a}, out, err);
    ptl_text_file_free(&a, &f);
    return st;
}
