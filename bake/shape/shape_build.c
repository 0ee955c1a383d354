/* Chaining directed boundary segments into the rings of a ptl_shape (see shape_build.h). */
#include "shape_build.h"

#include <string.h>

#include "../../runtime/internal.h"

bool ptl_shape_alloc(ptl_shape* s, uint32_t verts, uint32_t rings) {
    s->xy = ptl_mem_alloc(&s->alloc, (size_t)verts * 2 * sizeof(double));
    s->ring_start = ptl_mem_alloc(&s->alloc, ((size_t)rings + 1) * sizeof(uint32_t));
    if (!s->xy || !s->ring_start) {
        ptl_mem_free(&s->alloc, s->xy, (size_t)verts * 2 * sizeof(double));
        ptl_mem_free(&s->alloc, s->ring_start, ((size_t)rings + 1) * sizeof(uint32_t));
        s->xy = NULL;
        s->ring_start = NULL;
        return false;
    }
    s->vert_count = verts;
    s->ring_count = rings;
    return true;
}

double ptl_shape_precision_of(double max_abs) {
    int e = 0;
    frexp(max_abs, &e); /* max_abs < 2^e */
    double q = ldexp(1.0, e - 24);
    return q >= PTL_SHAPE_MIN_PRECISION ? q : PTL_SHAPE_MIN_PRECISION;
}

double ptl_shape_snap(double* xy, uint32_t points) {
    double m = 0;
    for (size_t i = 0; i < 2 * (size_t)points; ++i) m = fmax(m, fabs(xy[i]));
    for (size_t i = 0; i < 2 * (size_t)points; ++i) xy[i] = ptl_shape_round(xy[i]);
    return ptl_shape_precision_of(m);
}

double ptl_shape_round(double x) {
    /* The float first (what the navmesh stores), then a multiple of the finest precision, which
       changes only values below 0.5 (above, float steps are multiples of it already). Scaling by
       a power of two is exact; nearbyint rounds half to even. */
    return nearbyint((double)(float)x / PTL_SHAPE_MIN_PRECISION) * PTL_SHAPE_MIN_PRECISION + 0.0;
}

/* ---- Vertex identification: endpoints with identical coordinates are one vertex ---------------*/

typedef struct endpoint {
    double x, y;
    uint32_t slot; /* 2 * segment + (0: a, 1: b) */
} endpoint;

static int cmp_endpoint(const void* pa, const void* pb) {
    const endpoint *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    return (a->slot > b->slot) - (a->slot < b->slot);
}

/* ---- Cancelling a segment against its reverse --------------------------------------------------*/

typedef struct edge_key {
    uint32_t lo, hi, id;
} edge_key;

static int cmp_edge_key(const void* pa, const void* pb) {
    const edge_key *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* ---- Rays around a vertex -----------------------------------------------------------------------*/

typedef struct ray {
    double dx, dy;  /* from the vertex to the segment's other end */
    uint32_t edge;
    uint32_t out;   /* 1: outgoing segment, 0: incoming */
} ray;

/* 0 for directions in [0, pi), 1 for [pi, 2 pi). */
static int half_plane(double dx, double dy) { return (dy > 0 || (dy == 0 && dx > 0)) ? 0 : 1; }

/* Clockwise order starting just below angle 2 pi (any fixed start works: matching is circular).
   Equal directions: incoming first, then by segment id, so the order is total and deterministic. */
static int cmp_ray_cw(const void* pa, const void* pb) {
    const ray *a = pa, *b = pb;
    int ha = half_plane(a->dx, a->dy), hb = half_plane(b->dx, b->dy);
    if (ha != hb) return ha > hb ? -1 : 1; /* larger angles first */
    double c = a->dx * b->dy - a->dy * b->dx; /* > 0: b is counter-clockwise of a */
    if (c > 0) return 1;
    if (c < 0) return -1;
    if (a->out != b->out) return a->out ? 1 : -1;
    return (a->edge > b->edge) - (a->edge < b->edge);
}

/* Pairs each incoming segment at a vertex with the first outgoing one clockwise from it. Going
   round clockwise twice with a stack of pending incoming segments is a circular bracket matching:
   for alternating rays (valid input) the stack never holds more than one entry and this is
   exactly the rule; for anything else it still yields a one-to-one pairing. False when out of
   memory for the sort. */
static bool match_rays(const ptl_allocator* a, ray* rays, uint32_t n, uint32_t* stack, uint32_t* next, uint8_t* used) {
    if (!ptl_sort(rays, n, sizeof *rays, cmp_ray_cw, a)) return false;
    uint32_t top = 0;
    for (uint32_t i = 0; i < 2 * n; ++i) {
        ray* r = &rays[i % n];
        if (!r->out) {
            if (i < n) stack[top++] = r->edge;
        } else if (top > 0 && !used[r->edge]) {
            used[r->edge] = 1;
            next[stack[--top]] = r->edge;
        }
    }
    return true;
}

/* ---- Merging collinear runs ---------------------------------------------------------------------*/

/* True when v continues straight from p to n (no turn, no reversal): v is not a corner. The
   collinearity test is ptl_orient2(p, v, n), the very expression ptl_shape_validate and the
   notch count use, so that on inexact coordinates all three agree on what is collinear.

   With `loose`, a turn below about 1e-12 radians counts as straight too: inputs that are
   collinear in intent but not in doubles (a mesh rotated by 45 degrees, points like
   (0.7071067811865476, 2.121320343559643)) would otherwise keep corners of angle pi - 1e-16,
   which help nobody and make every later orientation test a coin toss. The caller only allows it
   where no other part of the boundary touches v, so moving the boundary by 1e-12 of an edge
   length cannot make it cross anything that was touching. */
static bool straight(const double* xy, uint32_t p, uint32_t v, uint32_t n, bool loose, double tol) {
    double ux = xy[2 * v] - xy[2 * p], uy = xy[2 * v + 1] - xy[2 * p + 1];
    double wx = xy[2 * n] - xy[2 * v], wy = xy[2 * n + 1] - xy[2 * v + 1];
    if (ux * wx + uy * wy <= 0) return false;
    double c = ptl_orient2(xy[2 * p], xy[2 * p + 1], xy[2 * v], xy[2 * v + 1], xy[2 * n], xy[2 * n + 1]);
    if (c == 0) return true;
    if (!loose) return false;
    /* Within `tol` of the chord p -> n: a bump no larger than the input's precision (the rounding
       of a run that was collinear in intent), whose notch would have an area of interest too thin
       for any portal to land in it robustly. */
    if (fabs(c) <= tol * hypot(ux + wx, uy + wy)) return true;
    return fabs(c) <= 0x1p-40 * sqrt((ux * ux + uy * uy) * (wx * wx + wy * wy));
}

typedef PTL_ARRAY(uint32_t) u32_array;

/* Removes the non-corner vertices of ring `r` (vertex ids, cyclic) in place; returns the new
   length. Work-list based so that a run of any length goes in one pass. The first surviving
   vertex in walk order stays first, which keeps the output order deterministic.

   `out_start` (CSR of outgoing segments per vertex) tells which vertices other parts of the
   boundary also pass through. Only a vertex nobody else touches may go by the loose test, and
   only if neither of its edges already spans a removed shared vertex: an exactly straight pass
   through a shared point leaves another ring touching that edge, and nudging the edge by a
   rounding error could move it to the wrong side of that point. gone[i] bit 1 marks removal;
   bit 2 marks that the edge from i to its current successor spans a removed shared vertex. */
static uint32_t merge_collinear(const double* xy, double tol, const uint32_t* out_start, uint32_t* r, uint32_t n, uint32_t* prv,
                                uint32_t* nxt, uint8_t* gone, uint32_t* work) {
    if (n < 3) return n;
    uint32_t top = 0;
    for (uint32_t i = 0; i < n; ++i) {
        prv[i] = i ? i - 1 : n - 1;
        nxt[i] = i + 1 < n ? i + 1 : 0;
        gone[i] = 0;
        work[top++] = n - 1 - i; /* popped in walk order */
    }
    uint32_t left = n;
    while (top > 0 && left >= 3) {
        uint32_t i = work[--top];
        if (gone[i] & 1u) continue;
        bool shared = out_start[r[i] + 1] - out_start[r[i]] > 1;
        bool loose = !shared && !(gone[i] & 2u) && !(gone[prv[i]] & 2u);
        if (!straight(xy, r[prv[i]], r[i], r[nxt[i]], loose, tol)) continue;
        uint32_t p = prv[i], q = nxt[i];
        gone[p] |= (uint8_t)((gone[i] & 2u) | (shared ? 2u : 0u));
        gone[i] |= 1u;
        --left;
        nxt[p] = q;
        prv[q] = p;
        /* Its neighbours may have become straight: look at them again. Each removal pushes two
           entries and there are at most n - 3 removals, so 3 * n slots suffice. */
        work[top++] = q;
        work[top++] = p;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (!(gone[i] & 1u)) r[k++] = r[i];
    return k;
}

/* ---- The builder, stage by stage ----------------------------------------------------------------*/

typedef struct build_work {
    ptl_allocator a;
    const char* name;
    ptl_error* err;
    uint32_t count;     /* input segments */
    double tol;         /* [Units: wu] nearly straight vertices within this of their chord go */
    uint32_t m, nv;     /* kept segments, vertices */
    size_t max_deg;     /* largest out-degree of a vertex */
    uint32_t* keep;     /* count: input index of each kept segment */
    endpoint* ends;     /* 2m */
    uint32_t* vid;      /* 2m: vertex of each endpoint slot */
    double* vxy;        /* 4m (2 per vertex, at most 2m vertices) */
    edge_key* keys;     /* m */
    uint8_t* alive;     /* m: not cancelled against its reverse */
    uint32_t *out_start, *out_list, *in_start, *in_list; /* CSR per vertex */
    uint32_t* next;     /* m: successor along the ring */
    uint8_t* used;      /* m */
    ray* rays;          /* 2 max_deg */
    uint32_t* stack;    /* max_deg */
    u32_array ring_verts, ring_starts, tmp;
    uint32_t *prv, *nxt, *work; /* m, m, 3m: merge_collinear scratch */
    uint8_t* gone;      /* m */
} build_work;

#define EU(w, k) (w)->vid[2 * (k)]
#define EV(w, k) (w)->vid[2 * (k) + 1]

static ptl_status oom(build_work* w) {
    return ptl_error_set(w->err, PTL_ERR_NO_MEMORY, "%s: out of memory building the boundary rings", w->name);
}
static ptl_status empty(build_work* w) {
    return ptl_error_set(w->err, PTL_ERR_BAD_INPUT, "%s: no free space (the boundary is empty)", w->name);
}

/* Keeps segments of positive length, in input order (ring order follows it); rejects NaN/inf. */
static ptl_status keep_segments(build_work* w, const ptl_bseg* segs) {
    if (w->count == 0) return empty(w);
    w->keep = ptl_mem_alloc(&w->a, (size_t)w->count * sizeof(uint32_t));
    if (!w->keep) return oom(w);
    for (uint32_t i = 0; i < w->count; ++i) {
        const ptl_bseg* s = &segs[i];
        if (!isfinite(s->ax) || !isfinite(s->ay) || !isfinite(s->bx) || !isfinite(s->by))
            return ptl_error_set(w->err, PTL_ERR_BAD_INPUT, "%s: boundary segment %u has a non-finite coordinate",
                                 w->name, i);
        if (s->ax == s->bx && s->ay == s->by) continue;
        w->keep[w->m++] = i;
    }
    return w->m ? PTL_OK : empty(w);
}

/* Endpoints with identical coordinates become one vertex. */
static ptl_status identify_vertices(build_work* w, const ptl_bseg* segs) {
    const uint32_t m = w->m;
    w->ends = ptl_mem_alloc(&w->a, (size_t)m * 2 * sizeof(endpoint));
    w->vid = ptl_mem_alloc(&w->a, (size_t)m * 2 * sizeof(uint32_t));
    w->vxy = ptl_mem_alloc(&w->a, (size_t)m * 4 * sizeof(double));
    if (!w->ends || !w->vid || !w->vxy) return oom(w);
    for (uint32_t k = 0; k < m; ++k) {
        const ptl_bseg* s = &segs[w->keep[k]];
        /* + 0.0 turns -0.0 into 0.0, so the two zeros are one coordinate in the output too. */
        w->ends[2 * k] = (endpoint){s->ax + 0.0, s->ay + 0.0, 2 * k};
        w->ends[2 * k + 1] = (endpoint){s->bx + 0.0, s->by + 0.0, 2 * k + 1};
    }
    if (!ptl_sort(w->ends, (size_t)m * 2, sizeof(endpoint), cmp_endpoint, &w->a)) return oom(w);
    for (uint32_t i = 0; i < 2 * m; ++i) {
        if (i == 0 || w->ends[i].x != w->ends[i - 1].x || w->ends[i].y != w->ends[i - 1].y) {
            w->vxy[2 * w->nv] = w->ends[i].x;
            w->vxy[2 * w->nv + 1] = w->ends[i].y;
            ++w->nv;
        }
        w->vid[w->ends[i].slot] = w->nv - 1;
    }
    return PTL_OK;
}

/* A segment and its reverse bound free space on both sides: no boundary, both go. Equal segments
   in the same direction mean free space counted twice: the input overlaps itself. */
static ptl_status cancel_reverse_pairs(build_work* w) {
    const uint32_t m = w->m;
    w->keys = ptl_mem_alloc(&w->a, (size_t)m * sizeof(edge_key));
    w->alive = ptl_mem_alloc(&w->a, (size_t)m);
    if (!w->keys || !w->alive) return oom(w);
    for (uint32_t k = 0; k < m; ++k) {
        uint32_t u = EU(w, k), v = EV(w, k);
        w->keys[k] = (edge_key){u < v ? u : v, u < v ? v : u, k};
        w->alive[k] = 1;
    }
    if (!ptl_sort(w->keys, m, sizeof(edge_key), cmp_edge_key, &w->a)) return oom(w);
    uint32_t alive = m;
    for (uint32_t i = 0; i < m;) {
        uint32_t j = i;
        while (j < m && w->keys[j].lo == w->keys[i].lo && w->keys[j].hi == w->keys[i].hi) ++j;
        /* Cancel forward against backward copies, earliest first. */
        for (uint32_t f = i, b = i;;) {
            while (f < j && EU(w, w->keys[f].id) != w->keys[f].lo) ++f;
            while (b < j && EU(w, w->keys[b].id) == w->keys[b].lo) ++b;
            if (f >= j || b >= j) break;
            w->alive[w->keys[f++].id] = 0;
            w->alive[w->keys[b++].id] = 0;
            alive -= 2;
        }
        uint32_t left = 0, any = 0;
        for (uint32_t t = i; t < j; ++t)
            if (w->alive[w->keys[t].id]) ++left, any = w->keys[t].id;
        if (left > 1) {
            const double* p = &w->vxy[2 * EU(w, any)];
            const double* q = &w->vxy[2 * EV(w, any)];
            return ptl_error_set(w->err, PTL_ERR_BAD_INPUT,
                                 "%s: boundary segment (%g, %g)-(%g, %g) appears %u times in the same direction "
                                 "(overlapping free space)", w->name, p[0], p[1], q[0], q[1], left);
        }
        i = j;
    }
    return alive ? PTL_OK : empty(w);
}

/* Outgoing and incoming segments per vertex (CSR); in and out degrees must agree. */
static ptl_status build_adjacency(build_work* w) {
    const uint32_t m = w->m, nv = w->nv;
    w->out_start = ptl_mem_calloc(&w->a, (size_t)nv + 1, sizeof(uint32_t));
    w->in_start = ptl_mem_calloc(&w->a, (size_t)nv + 1, sizeof(uint32_t));
    w->out_list = ptl_mem_alloc(&w->a, (size_t)m * sizeof(uint32_t));
    w->in_list = ptl_mem_alloc(&w->a, (size_t)m * sizeof(uint32_t));
    if (!w->out_start || !w->in_start || !w->out_list || !w->in_list) return oom(w);
    for (uint32_t k = 0; k < m; ++k) {
        if (!w->alive[k]) continue;
        w->out_start[EU(w, k) + 1]++;
        w->in_start[EV(w, k) + 1]++;
    }
    for (uint32_t v = 0; v < nv; ++v) {
        uint32_t no = w->out_start[v + 1], ni = w->in_start[v + 1];
        if (no != ni)
            return ptl_error_set(w->err, PTL_ERR_BAD_INPUT,
                                 "%s: the boundary is not closed at (%g, %g): %u segments arrive, %u leave", w->name,
                                 w->vxy[2 * v], w->vxy[2 * v + 1], ni, no);
        if (no > w->max_deg) w->max_deg = no;
        w->out_start[v + 1] += w->out_start[v];
        w->in_start[v + 1] += w->in_start[v];
    }
    /* Fill using out_start[v] / in_start[v] as cursors, then shift them back into starts. */
    for (uint32_t k = 0; k < m; ++k) {
        if (!w->alive[k]) continue;
        w->out_list[w->out_start[EU(w, k)]++] = k;
        w->in_list[w->in_start[EV(w, k)]++] = k;
    }
    for (uint32_t v = nv; v > 0; --v) {
        w->out_start[v] = w->out_start[v - 1];
        w->in_start[v] = w->in_start[v - 1];
    }
    w->out_start[0] = w->in_start[0] = 0;
    return PTL_OK;
}

/* The successor of every segment: the tightest left turn at its end (shape_build.h). */
static ptl_status pair_successors(build_work* w) {
    w->next = ptl_mem_alloc(&w->a, (size_t)w->m * sizeof(uint32_t));
    w->used = ptl_mem_calloc(&w->a, (size_t)w->m, 1);
    w->rays = ptl_mem_alloc(&w->a, w->max_deg * 2 * sizeof(ray));
    w->stack = ptl_mem_alloc(&w->a, w->max_deg * sizeof(uint32_t));
    if (!w->next || !w->used || !w->rays || !w->stack) return oom(w);
    for (uint32_t v = 0; v < w->nv; ++v) {
        uint32_t o0 = w->out_start[v], i0 = w->in_start[v], deg = w->out_start[v + 1] - o0;
        if (deg == 0) continue;
        if (deg == 1) {
            w->next[w->in_list[i0]] = w->out_list[o0];
            continue;
        }
        const double vx = w->vxy[2 * v], vy = w->vxy[2 * v + 1];
        uint32_t n = 0;
        for (uint32_t t = 0; t < deg; ++t) {
            uint32_t e = w->out_list[o0 + t], f = w->in_list[i0 + t];
            w->rays[n++] = (ray){w->vxy[2 * EV(w, e)] - vx, w->vxy[2 * EV(w, e) + 1] - vy, e, 1};
            w->rays[n++] = (ray){w->vxy[2 * EU(w, f)] - vx, w->vxy[2 * EU(w, f) + 1] - vy, f, 0};
        }
        if (!match_rays(&w->a, w->rays, n, w->stack, w->next, w->used)) return oom(w);
    }
    return PTL_OK;
}

/* Walks the rings in the order of their earliest segment and merges their collinear runs. A ring
   never has more vertices than there are segments, which bounds the scratch arrays. */
static ptl_status walk_rings(build_work* w) {
    const uint32_t m = w->m;
    w->prv = ptl_mem_alloc(&w->a, (size_t)m * sizeof(uint32_t));
    w->nxt = ptl_mem_alloc(&w->a, (size_t)m * sizeof(uint32_t));
    w->work = ptl_mem_alloc(&w->a, (size_t)m * 3 * sizeof(uint32_t));
    w->gone = ptl_mem_alloc(&w->a, (size_t)m);
    if (!w->prv || !w->nxt || !w->work || !w->gone) return oom(w);
    memset(w->used, 0, m);
    for (uint32_t k0 = 0; k0 < m; ++k0) {
        if (!w->alive[k0] || w->used[k0]) continue;
        w->tmp.count = 0;
        uint32_t k = k0;
        do {
            w->used[k] = 1;
            if (!PTL_PUSH(&w->a, w->tmp, EU(w, k))) return oom(w);
            k = w->next[k];
        } while (k != k0);
        uint32_t n = merge_collinear(w->vxy, w->tol, w->out_start, w->tmp.data, w->tmp.count, w->prv, w->nxt, w->gone, w->work);
        if (n < 3) continue; /* nothing but a straight line: no area */
        if (!PTL_PUSH(&w->a, w->ring_starts, w->ring_verts.count)) return oom(w);
        if (!PTL_RESERVE(&w->a, w->ring_verts, (uint64_t)w->ring_verts.count + n)) return oom(w);
        memcpy(w->ring_verts.data + w->ring_verts.count, w->tmp.data, (size_t)n * sizeof(uint32_t));
        w->ring_verts.count += n;
    }
    return w->ring_starts.count ? PTL_OK : empty(w);
}

static ptl_status emit(build_work* w, ptl_shape* out) {
    if (!ptl_shape_alloc(out, w->ring_verts.count, w->ring_starts.count)) return oom(w);
    for (uint32_t i = 0; i < w->ring_verts.count; ++i) {
        out->xy[2 * i] = w->vxy[2 * w->ring_verts.data[i]];
        out->xy[2 * i + 1] = w->vxy[2 * w->ring_verts.data[i] + 1];
    }
    memcpy(out->ring_start, w->ring_starts.data, (size_t)w->ring_starts.count * sizeof(uint32_t));
    out->ring_start[w->ring_starts.count] = w->ring_verts.count;
    return PTL_OK;
}

static void free_work(build_work* w) {
    const ptl_allocator* a = &w->a;
    const size_t m = w->m, nv = w->nv;
    ptl_mem_free(a, w->keep, (size_t)w->count * sizeof(uint32_t));
    ptl_mem_free(a, w->ends, m * 2 * sizeof(endpoint));
    ptl_mem_free(a, w->vid, m * 2 * sizeof(uint32_t));
    ptl_mem_free(a, w->vxy, m * 4 * sizeof(double));
    ptl_mem_free(a, w->keys, m * sizeof(edge_key));
    ptl_mem_free(a, w->alive, m);
    ptl_mem_free(a, w->out_start, (nv + 1) * sizeof(uint32_t));
    ptl_mem_free(a, w->in_start, (nv + 1) * sizeof(uint32_t));
    ptl_mem_free(a, w->out_list, m * sizeof(uint32_t));
    ptl_mem_free(a, w->in_list, m * sizeof(uint32_t));
    ptl_mem_free(a, w->next, m * sizeof(uint32_t));
    ptl_mem_free(a, w->used, m);
    ptl_mem_free(a, w->rays, w->max_deg * 2 * sizeof(ray));
    ptl_mem_free(a, w->stack, w->max_deg * sizeof(uint32_t));
    ptl_mem_free(a, w->prv, m * sizeof(uint32_t));
    ptl_mem_free(a, w->nxt, m * sizeof(uint32_t));
    ptl_mem_free(a, w->work, m * 3 * sizeof(uint32_t));
    ptl_mem_free(a, w->gone, m);
    PTL_ARRAY_FREE(a, w->ring_verts);
    PTL_ARRAY_FREE(a, w->ring_starts);
    PTL_ARRAY_FREE(a, w->tmp);
}

ptl_status ptl_shape_build(const ptl_bseg* segs, uint32_t count, double tol, const char* name, ptl_shape* out,
                           ptl_error* err) {
    ptl_allocator a = out->alloc;
    if (!a.alloc) a = ptl_allocator_resolve(NULL);
    memset(out, 0, sizeof *out);
    out->alloc = a;
    if (!segs && count) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_shape_build: segs is NULL");
    build_work w;
    memset(&w, 0, sizeof w);
    w.a = a;
    w.name = name ? name : "<shape>";
    w.err = err;
    w.count = count;
    w.tol = tol > 0 ? tol : 0;
    ptl_status st;
    if ((st = keep_segments(&w, segs)) >= 0 && (st = identify_vertices(&w, segs)) >= 0 &&
        (st = cancel_reverse_pairs(&w)) >= 0 && (st = build_adjacency(&w)) >= 0 && (st = pair_successors(&w)) >= 0 &&
        (st = walk_rings(&w)) >= 0)
        st = emit(&w, out);
    free_work(&w);
    if (st < 0) {
        memset(out, 0, sizeof *out);
        out->alloc = a;
        return st;
    }
    return ptl_error_ok(err);
}
