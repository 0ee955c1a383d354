/* Free space as polygons with holes (ptl_shape): loading any 2D input by extension, statistics,
   the invariant check, and release. The readers live in shape_grid.c, shape_poly.c and
   shape_mesh.c; the ring builder they share in shape_build.c. */
#include <portolan/bake.h>

#include <stdio.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "shape_build.h"
#include "shape_seg_index.h"

/* ---- Loading by extension --------------------------------------------------------------------*/

static bool has_ext(const char* path, const char* ext) {
    size_t n = strlen(path), k = strlen(ext);
    if (n < k) return false;
    for (size_t i = 0; i < k; ++i) {
        char c = path[n - k + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != ext[i]) return false;
    }
    return true;
}

ptl_status ptl_shape_load(const char* path, const ptl_input_desc* desc, ptl_shape* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_shape_load: out is NULL");
    memset(out, 0, sizeof *out);
    out->alloc = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    if (!path) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_shape_load: path is NULL");
    if (has_ext(path, ".poly")) return ptl_poly_load(path, desc, out, err);
    if (has_ext(path, ".mesh")) return ptl_mesh2d_load(path, desc, out, err);
    if (has_ext(path, ".map")) {
        ptl_grid g;
        ptl_status st = ptl_grid_load(path, desc, &g, err);
        if (st < 0) return st;
        st = ptl_shape_from_grid(&g, desc, out, err);
        ptl_grid_free(&g);
        if (st < 0 && err) {
            /* Name the file: ptl_shape_from_grid only knows the grid. */
            char msg[sizeof err->message];
            memcpy(msg, err->message, sizeof msg);
            ptl_error_set(err, st, "%s: %s", path, msg);
        }
        return st;
    }
    const char* dot = strrchr(path, '.');
    const char* slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return ptl_error_set(err, PTL_ERR_PARSE, "%s: no file extension (expected .map, .poly or .mesh)", path);
    return ptl_error_set(err, PTL_ERR_PARSE, "%s: unknown extension '%s' (expected .map, .poly or .mesh)", path, dot);
}

void ptl_shape_free(ptl_shape* s) {
    if (!s) return;
    ptl_mem_free(&s->alloc, s->xy, (size_t)s->vert_count * 2 * sizeof(double));
    if (s->ring_start) ptl_mem_free(&s->alloc, s->ring_start, ((size_t)s->ring_count + 1) * sizeof(uint32_t));
    ptl_allocator a = s->alloc;
    memset(s, 0, sizeof *s);
    s->alloc = a;
}

/* ---- Statistics --------------------------------------------------------------------------------*/

static double ring_area2(const ptl_shape* s, uint32_t r) {
    uint32_t b = s->ring_start[r], e = s->ring_start[r + 1];
    double sum = 0;
    for (uint32_t i = b; i < e; ++i) {
        uint32_t j = i + 1 < e ? i + 1 : b;
        sum += s->xy[2 * i] * s->xy[2 * j + 1] - s->xy[2 * j] * s->xy[2 * i + 1];
    }
    return sum;
}

void ptl_shape_get_stats(const ptl_shape* s, ptl_shape_stats* out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!s || !s->ring_start) return;
    for (uint32_t r = 0; r < s->ring_count; ++r) {
        double a2 = ring_area2(s, r);
        if (a2 > 0) out->outer_rings++;
        else if (a2 < 0) out->holes++;
        out->area += 0.5 * a2;
        uint32_t b = s->ring_start[r], e = s->ring_start[r + 1];
        for (uint32_t i = b; i < e; ++i) {
            uint32_t p = i > b ? i - 1 : e - 1, n = i + 1 < e ? i + 1 : b;
            /* Free space is on the left: a right turn is a reflex corner of free space. */
            if (ptl_orient2(s->xy[2 * p], s->xy[2 * p + 1], s->xy[2 * i], s->xy[2 * i + 1], s->xy[2 * n],
                            s->xy[2 * n + 1]) < 0)
                out->notches++;
        }
    }
}

/* ---- Validation --------------------------------------------------------------------------------*/

typedef struct vctx {
    const ptl_shape* s;
    uint32_t* ring_of; /* per vertex */
    ptl_bseg* segs;    /* per vertex: the edge from it to the next vertex of its ring */
    ptl_seg_index grid;
    ptl_error* err;
} vctx;

static inline uint32_t vnext(const vctx* c, uint32_t v) {
    uint32_t r = c->ring_of[v];
    return v + 1 < c->s->ring_start[r + 1] ? v + 1 : c->s->ring_start[r];
}
static inline uint32_t vprev(const vctx* c, uint32_t v) {
    uint32_t r = c->ring_of[v];
    return v > c->s->ring_start[r] ? v - 1 : c->s->ring_start[r + 1] - 1;
}
static inline double X(const vctx* c, uint32_t v) { return c->s->xy[2 * v]; }
static inline double Y(const vctx* c, uint32_t v) { return c->s->xy[2 * v + 1]; }
/* Vertex index within its ring, for messages. */
static inline uint32_t vlocal(const vctx* c, uint32_t v) { return v - c->s->ring_start[c->ring_of[v]]; }

static ptl_status fail_edges(const vctx* c, uint32_t i, uint32_t j, const char* what) {
    return ptl_error_set(c->err, PTL_ERR_BAD_INPUT,
                         "shape: ring %u edge %u (%.9g, %.9g)-(%.9g, %.9g) %s ring %u edge %u (%.9g, %.9g)-(%.9g, %.9g)",
                         c->ring_of[i], vlocal(c, i), X(c, i), Y(c, i), X(c, vnext(c, i)), Y(c, vnext(c, i)), what,
                         c->ring_of[j], vlocal(c, j), X(c, j), Y(c, j), X(c, vnext(c, j)), Y(c, vnext(c, j)));
}

/* Vertex v lies strictly inside edge e (of another place on the boundary). That is only a valid
   touch when v's ring comes from the blocked side of e and turns back there (its free wedge at v
   is convex and lies on e's right): two regions that touch at a point, one with a corner and one
   with a straight side. Anything else crosses e or puts free space on both sides of it. */
static ptl_status check_touch(const vctx* c, uint32_t v, uint32_t e) {
    uint32_t f = vnext(c, e), p = vprev(c, v), n = vnext(c, v);
    double sp = ptl_orient2(X(c, e), Y(c, e), X(c, f), Y(c, f), X(c, p), Y(c, p));
    double sn = ptl_orient2(X(c, e), Y(c, e), X(c, f), Y(c, f), X(c, n), Y(c, n));
    double turn = ptl_orient2(X(c, v), Y(c, v), X(c, n), Y(c, n), X(c, p), Y(c, p));
    if (sp < 0 && sn < 0 && turn > 0) return PTL_OK;
    return ptl_error_set(c->err, PTL_ERR_BAD_INPUT,
                         "shape: ring %u vertex %u (%.9g, %.9g) %s ring %u edge %u (%.9g, %.9g)-(%.9g, %.9g)",
                         c->ring_of[v], vlocal(c, v), X(c, v), Y(c, v),
                         (sp > 0 && sn < 0) || (sp < 0 && sn > 0) ? "crosses" : "touches the free side of",
                         c->ring_of[e], vlocal(c, e), X(c, e), Y(c, e), X(c, f), Y(c, f));
}

/* Checks one pair of edges i, j (i -> next(i), j -> next(j)) that share a bucket. */
static ptl_status check_pair(const vctx* c, uint32_t i, uint32_t j) {
    uint32_t i1 = vnext(c, i), j1 = vnext(c, j);
    if (i1 == j || j1 == i) return PTL_OK; /* consecutive: the corner test covered them */
    const ptl_bseg *s = &c->segs[i], *t = &c->segs[j];
    if (fmax(s->ax, s->bx) < fmin(t->ax, t->bx) || fmax(t->ax, t->bx) < fmin(s->ax, s->bx) ||
        fmax(s->ay, s->by) < fmin(t->ay, t->by) || fmax(t->ay, t->by) < fmin(s->ay, s->by))
        return PTL_OK;
    double o1 = ptl_orient2(s->ax, s->ay, s->bx, s->by, t->ax, t->ay);
    double o2 = ptl_orient2(s->ax, s->ay, s->bx, s->by, t->bx, t->by);
    double o3 = ptl_orient2(t->ax, t->ay, t->bx, t->by, s->ax, s->ay);
    double o4 = ptl_orient2(t->ax, t->ay, t->bx, t->by, s->bx, s->by);
    if (o1 == 0 && o2 == 0) {
        /* Collinear: any common stretch of positive length is an overlap. */
        bool use_x = s->ax != s->bx;
        double a0 = use_x ? fmin(s->ax, s->bx) : fmin(s->ay, s->by), a1 = use_x ? fmax(s->ax, s->bx) : fmax(s->ay, s->by);
        double b0 = use_x ? fmin(t->ax, t->bx) : fmin(t->ay, t->by), b1 = use_x ? fmax(t->ax, t->bx) : fmax(t->ay, t->by);
        if (fmin(a1, b1) > fmax(a0, b0)) return fail_edges(c, i, j, "overlaps");
        return PTL_OK;
    }
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)))
        return fail_edges(c, i, j, "crosses");
    /* A start vertex strictly inside the other edge (end vertices are the starts of the next
       edges, which share a bucket with this edge too). */
    if (o1 == 0 && ptl_between_open(s->ax, s->ay, s->bx, s->by, t->ax, t->ay)) return check_touch(c, j, i);
    if (o3 == 0 && ptl_between_open(t->ax, t->ay, t->bx, t->by, s->ax, s->ay)) return check_touch(c, i, j);
    return PTL_OK;
}

/* Distance from (px, py) to segment q. */
static double seg_dist(const ptl_bseg* q, double px, double py) {
    double dx = q->bx - q->ax, dy = q->by - q->ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((px - q->ax) * dx + (py - q->ay) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(q->ax + t * dx - px, q->ay + t * dy - py);
}

/* A rounded input (precision q > 0): no vertex within 4 q of an edge it does not end, unless it
   lies exactly on it (a touch, check_touch). Closer than that, the navmesh's float coordinates
   cannot tell which side of the edge the vertex is on, and the decomposition, which takes features
   within 2 q as touching (decompose.c), would see the vertex on both. */
static ptl_status check_clearance(const vctx* c, uint32_t* stamp) {
    const ptl_shape* s = c->s;
    const double tol = 4 * s->precision;
    const ptl_seg_index* g = &c->grid;
    for (uint32_t v = 0; v < s->vert_count; ++v) {
        const double x = X(c, v), y = Y(c, v);
        const uint32_t c0 = ptl_seg_index_col(g, x - tol), c1 = ptl_seg_index_col(g, x + tol);
        const uint32_t r0 = ptl_seg_index_row(g, y - tol), r1 = ptl_seg_index_row(g, y + tol);
        for (uint32_t row = r0; row <= r1; ++row)
            for (uint32_t col = c0; col <= c1; ++col) {
                const size_t b = (size_t)row * g->nx + col;
                for (uint32_t k = g->start[b]; k < g->start[b + 1]; ++k) {
                    const uint32_t e = g->items[k];
                    if (stamp[e] == v + 1) continue;
                    stamp[e] = v + 1;
                    const ptl_bseg* q = &c->segs[e];
                    if ((q->ax == x && q->ay == y) || (q->bx == x && q->by == y)) continue;
                    if (seg_dist(q, x, y) > tol) continue;
                    if (ptl_orient2(q->ax, q->ay, q->bx, q->by, x, y) == 0 &&
                        ptl_between_open(q->ax, q->ay, q->bx, q->by, x, y))
                        continue;
                    uint32_t f = vnext(c, e);
                    return ptl_error_set(c->err, PTL_ERR_BAD_INPUT,
                                         "shape: ring %u vertex %u (%.9g, %.9g) lies within %g (4 times the input's "
                                         "precision) of ring %u edge %u (%.9g, %.9g)-(%.9g, %.9g) without touching it",
                                         c->ring_of[v], vlocal(c, v), x, y, tol, c->ring_of[e], vlocal(c, e),
                                         X(c, e), Y(c, e), X(c, f), Y(c, f));
                }
            }
    }
    return PTL_OK;
}

/* Counter-clockwise angle of d from ref as a monotone key in [0, 4) (no trigonometry). */
static double angle_key(double rx, double ry, double dx, double dy) {
    double x = rx * dx + ry * dy, y = rx * dy - ry * dx;
    double s = fabs(x) + fabs(y);
    if (s == 0) return 0;
    double t = y / s;
    if (x >= 0 && y >= 0) return t;
    if (x < 0) return 2 - t;
    return 4 + t;
}

typedef struct pin {
    double x, y, key; /* key: angle of the outgoing edge */
    uint32_t v;
} pin;

static int cmp_pin(const void* pa, const void* pb) {
    const pin *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

/* Where several vertices share a point (a pinch), the free wedge of each visit (from its outgoing
   edge counter-clockwise to its incoming edge) must not overlap the next one's: regions may touch
   at the point but not cross there. */
static ptl_status check_pinches(const vctx* c, pin* pins, const ptl_allocator* a) {
    const ptl_shape* s = c->s;
    for (uint32_t v = 0; v < s->vert_count; ++v) {
        uint32_t n = vnext(c, v);
        pins[v] = (pin){X(c, v), Y(c, v), angle_key(1, 0, X(c, n) - X(c, v), Y(c, n) - Y(c, v)), v};
    }
    if (!ptl_sort(pins, s->vert_count, sizeof *pins, cmp_pin, a))
        return ptl_error_set(c->err, PTL_ERR_NO_MEMORY, "shape: out of memory validating %u vertices", s->vert_count);
    for (uint32_t i = 0; i < s->vert_count;) {
        uint32_t j = i + 1;
        while (j < s->vert_count && pins[j].x == pins[i].x && pins[j].y == pins[i].y) ++j;
        for (uint32_t k = i; j - i > 1 && k < j; ++k) {
            uint32_t u = pins[k].v, w = pins[k + 1 < j ? k + 1 : i].v;
            uint32_t un = vnext(c, u), up = vprev(c, u), wn = vnext(c, w);
            double ox = X(c, un) - X(c, u), oy = Y(c, un) - Y(c, u);
            double kin = angle_key(ox, oy, X(c, up) - X(c, u), Y(c, up) - Y(c, u));
            double knext = angle_key(ox, oy, X(c, wn) - X(c, u), Y(c, wn) - Y(c, u));
            if (!(knext > 0 && kin < knext))
                return ptl_error_set(c->err, PTL_ERR_BAD_INPUT,
                                     "shape: ring %u vertex %u and ring %u vertex %u at (%.9g, %.9g) cross or overlap "
                                     "(their free sides overlap)",
                                     c->ring_of[u], vlocal(c, u), c->ring_of[w], vlocal(c, w), X(c, u), Y(c, u));
        }
        i = j;
    }
    return PTL_OK;
}

/* Winding number of the whole shape just beside a point M of edge e, by a horizontal ray through
   the buckets of M's row (towards the nearer side of the box). Returns false when the ray grazes
   a vertex level with M at M itself, so that the caller picks another point. */
static bool winding_beside(const vctx* c, uint32_t e, double t, uint32_t* stamp, uint32_t stamp_id, bool* to_right,
                           int64_t* wind) {
    const ptl_bseg* s = &c->segs[e];
    double mx = s->ax + (s->bx - s->ax) * t, my = s->ay + (s->by - s->ay) * t;
    const ptl_seg_index* g = &c->grid;
    uint32_t row = ptl_seg_index_row(g, my), col = ptl_seg_index_col(g, mx);
    *to_right = g->nx - 1 - col <= col;
    int64_t w = 0;
    uint32_t c0 = *to_right ? col : 0, c1 = *to_right ? g->nx - 1 : col;
    for (uint32_t cc = c0; cc <= c1; ++cc) {
        size_t b = (size_t)row * g->nx + cc;
        for (uint32_t k = g->start[b]; k < g->start[b + 1]; ++k) {
            uint32_t f = g->items[k];
            if (f == e || stamp[f] == stamp_id) continue;
            stamp[f] = stamp_id;
            const ptl_bseg* q = &c->segs[f];
            if ((q->ay > my) == (q->by > my)) continue;
            double x = q->ax + (my - q->ay) * (q->bx - q->ax) / (q->by - q->ay);
            if (x == mx) return false;
            bool up = q->by > q->ay;
            if (*to_right && x > mx) w += up ? 1 : -1;
            if (!*to_right && x < mx) w += up ? -1 : 1;
        }
    }
    *wind = w;
    return true;
}

/* Free space on the left of every edge: the winding number is 1 just left of each ring's edges and
   0 just right (outer rings counter-clockwise, holes clockwise, islands in holes counter-clockwise
   again). Rings do not cross (checked before), so one edge per ring decides. */
static ptl_status check_orientation(const vctx* c, uint32_t* stamp) {
    const ptl_shape* s = c->s;
    static const double ts[] = {0.5, 0.3125, 0.6875, 0.40625, 0.59375, 0.21875, 0.78125};
    for (uint32_t r = 0; r < s->ring_count; ++r) {
        bool decided = false;
        for (uint32_t e = s->ring_start[r]; e < s->ring_start[r + 1] && !decided; ++e) {
            const ptl_bseg* q = &c->segs[e];
            if (q->ay == q->by) continue;
            for (size_t k = 0; k < sizeof ts / sizeof ts[0] && !decided; ++k) {
                bool right;
                int64_t w;
                uint32_t id = r * (uint32_t)(sizeof ts / sizeof ts[0]) + (uint32_t)k + 1;
                if (!winding_beside(c, e, ts[k], stamp, id, &right, &w)) continue;
                decided = true;
                /* An upward edge has free space on its -x side; a downward one on its +x side. */
                bool up = q->by > q->ay;
                int64_t want = (right != up) ? 1 : 0;
                if (w != want)
                    return ptl_error_set(c->err, PTL_ERR_BAD_INPUT,
                                         "shape: ring %u is oriented the wrong way or nested wrongly (winding %lld "
                                         "beside its edge %u at (%.9g, %.9g), expected %lld; free space must be on "
                                         "the left: outer rings counter-clockwise, holes clockwise)",
                                         r, (long long)w, e - s->ring_start[r], q->ax, q->ay,
                                         (long long)want);
            }
        }
    }
    return PTL_OK;
}

ptl_status ptl_shape_validate(const ptl_shape* s, ptl_error* err) { return ptl_shape_check(s, err, NULL); }

ptl_status ptl_shape_check(const ptl_shape* s, ptl_error* err, bool* too_near) {
    if (too_near) *too_near = false;
    if (!s) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_shape_validate: shape is NULL");
    if (s->ring_count == 0 || !s->ring_start || !s->xy)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "shape: no rings (no free space)");
    if (s->ring_start[0] != 0 || s->ring_start[s->ring_count] != s->vert_count)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "shape: ring_start must run from 0 to vert_count (%u)", s->vert_count);
    if (s->ring_count > UINT32_MAX / 8)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "shape: too many rings (%u)", s->ring_count);
    for (uint32_t r = 0; r < s->ring_count; ++r) {
        if (s->ring_start[r + 1] < s->ring_start[r] || s->ring_start[r + 1] - s->ring_start[r] < 3)
            return ptl_error_set(err, PTL_ERR_BAD_INPUT, "shape: ring %u has fewer than 3 vertices", r);
    }
    for (uint32_t v = 0; v < s->vert_count; ++v)
        if (!isfinite(s->xy[2 * v]) || !isfinite(s->xy[2 * v + 1]))
            return ptl_error_set(err, PTL_ERR_BAD_INPUT, "shape: vertex %u has a non-finite coordinate", v);

    ptl_allocator a = ptl_allocator_resolve(&s->alloc);
    vctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.err = err;
    ptl_status st = PTL_OK;
    size_t n = s->vert_count;
    uint32_t* stamp = NULL;
    pin* pins = NULL;
    c.ring_of = ptl_mem_alloc(&a, n * sizeof(uint32_t));
    c.segs = ptl_mem_alloc(&a, n * sizeof(ptl_bseg));
    if (!c.ring_of || !c.segs) goto oom;
    for (uint32_t r = 0; r < s->ring_count; ++r)
        for (uint32_t v = s->ring_start[r]; v < s->ring_start[r + 1]; ++v) c.ring_of[v] = r;

    /* Corners: consecutive vertices distinct and never collinear (this also rules out spikes). */
    for (uint32_t v = 0; v < s->vert_count; ++v) {
        uint32_t p = vprev(&c, v), nx = vnext(&c, v);
        c.segs[v] = (ptl_bseg){X(&c, v), Y(&c, v), X(&c, nx), Y(&c, nx)};
        if (X(&c, v) == X(&c, nx) && Y(&c, v) == Y(&c, nx)) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "shape: ring %u vertex %u (%.9g, %.9g) repeats the next vertex",
                               c.ring_of[v], vlocal(&c, v), X(&c, v), Y(&c, v));
            goto done;
        }
        if (ptl_orient2(X(&c, p), Y(&c, p), X(&c, v), Y(&c, v), X(&c, nx), Y(&c, nx)) == 0) {
            st = ptl_error_set(err, PTL_ERR_BAD_INPUT,
                               "shape: ring %u vertex %u (%.9g, %.9g) is collinear with its neighbours", c.ring_of[v],
                               vlocal(&c, v), X(&c, v), Y(&c, v));
            goto done;
        }
    }

    if (!ptl_seg_index_build(&c.grid, &a, c.segs, s->vert_count)) goto oom;
    const ptl_seg_index* g = &c.grid;
    for (size_t b = 0; b < (size_t)g->nx * g->ny; ++b) {
        for (uint32_t k = g->start[b]; k < g->start[b + 1]; ++k)
            for (uint32_t l = k + 1; l < g->start[b + 1]; ++l) {
                uint32_t i = g->items[k], j = g->items[l];
                if ((st = check_pair(&c, i < j ? i : j, i < j ? j : i)) < 0) goto done;
            }
    }

    pins = ptl_mem_alloc(&a, n * sizeof(pin));
    if (!pins) goto oom;
    if ((st = check_pinches(&c, pins, &a)) < 0) goto done;

    stamp = ptl_mem_calloc(&a, n, sizeof(uint32_t));
    if (!stamp) goto oom;
    if ((st = check_orientation(&c, stamp)) < 0) goto done;
    if (s->precision > 0) {
        memset(stamp, 0, n * sizeof(uint32_t));
        if ((st = check_clearance(&c, stamp)) < 0) {
            if (too_near) *too_near = true;
            goto done;
        }
    }

    st = ptl_error_ok(err);
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "shape: out of memory validating %u vertices", s->vert_count);
done:
    ptl_seg_index_free(&c.grid);
    ptl_mem_free(&a, c.ring_of, n * sizeof(uint32_t));
    ptl_mem_free(&a, c.segs, n * sizeof(ptl_bseg));
    ptl_mem_free(&a, pins, n * sizeof(pin));
    ptl_mem_free(&a, stamp, n * sizeof(uint32_t));
    return st;
}
