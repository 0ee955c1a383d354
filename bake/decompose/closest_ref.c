/* The closest-element backend contract (ptl_closest_backend, <portolan/bake.h>) in plain C: the
   algorithm of the GPU's compute shader (bake/decompose/gpu/closest_gl.c) line for line, so that
   the decomposition's use of a backend is tested without a GPU, and the shader has a reference.

   Per notch: the grid's buckets ring by ring around it (ANavMG §4.1 searches the scene from each
   notch; a uniform grid culls it as in decompose.c), every segment in a bucket that may meet the
   cone widened by the scene's slop; a segment's lower bound is its float distance to the notch
   clipped to that widened cone, less the slop. Rings stop when their nearest point is farther than
   what is kept (NEAREST) or than the reach (PARTNERS); NEAREST answers only the kept segments
   within 4 slops of the least lower bound. */
#include <float.h>
#include <math.h>
#include <string.h>

#include <portolan/bake.h>

#include "../../runtime/internal.h"

static float crossf(float ax, float ay, float bx, float by) { return ax * by - ay * bx; }

/* Clips t in [*t0, *t1] to c + k t >= 0. */
static void clipf(float c, float k, float* t0, float* t1) {
    if (k == 0) {
        if (c < 0) *t1 = -1;
        return;
    }
    float t = -c / k;
    if (k > 0) {
        if (t > *t0) *t0 = t;
    } else if (t < *t1) {
        *t1 = t;
    }
}

/* Float distance from the notch (origin) to segment a-b (relative coordinates) clipped to the cone
   whose sides are widened by w1, w2 (cross products); < 0 when it misses the cone. */
static float clipped_dist(float ax, float ay, float bx, float by, const float* r, float w1, float w2) {
    const float dx = bx - ax, dy = by - ay;
    float t0 = 0, t1 = 1;
    clipf(crossf(r[0], r[1], ax, ay) + w1, crossf(r[0], r[1], dx, dy), &t0, &t1);
    clipf(-crossf(r[2], r[3], ax, ay) + w2, -crossf(r[2], r[3], dx, dy), &t0, &t1);
    if (t0 > t1) return -1;
    const float l2 = dx * dx + dy * dy;
    float t = l2 > 0 ? -(ax * dx + ay * dy) / l2 : 0;
    t = t < t0 ? t0 : t > t1 ? t1 : t;
    const float px = ax + dx * t, py = ay + dy * t;
    return sqrtf(px * px + py * py);
}

/* Could a point of the box (relative, widened by the slop) lie in the widened cone? */
static bool box_meets(float x0, float y0, float x1, float y1, const float* r, float w1, float w2) {
    const float cx[4] = {x0, x1, x0, x1}, cy[4] = {y0, y0, y1, y1};
    bool in1 = false, in2 = false;
    for (int i = 0; i < 4; ++i) {
        if (crossf(r[0], r[1], cx[i], cy[i]) >= -w1) in1 = true;
        if (crossf(r[2], r[3], cx[i], cy[i]) <= w2) in2 = true;
    }
    return in1 && in2;
}

typedef struct kept {
    uint32_t n, cap;
    uint32_t* seg;
    float* lb;
    float evicted; /* the least lower bound dropped */
} kept;

/* Keeps the `cap` least lower bounds, sorted. A segment seen again (it lies in several buckets) has
   the same bound, computed the same way: duplicates are looked for among equal bounds only. */
static void keep(kept* k, uint32_t seg, float lb) {
    uint32_t at = k->n;
    while (at > 0 && k->lb[at - 1] > lb) at--;
    for (uint32_t j = at; j > 0 && k->lb[j - 1] == lb; --j)
        if (k->seg[j - 1] == seg) return;
    if (at == k->cap) {
        if (lb < k->evicted) k->evicted = lb;
        return;
    }
    if (k->n == k->cap) {
        if (k->lb[k->n - 1] < k->evicted) k->evicted = k->lb[k->n - 1];
        k->n--;
    }
    for (uint32_t j = k->n; j > at; --j) k->seg[j] = k->seg[j - 1], k->lb[j] = k->lb[j - 1];
    k->n++;
    k->seg[at] = seg;
    k->lb[at] = lb;
}

static void query(const ptl_closest_scene* s, const ptl_closest_batch* b, uint32_t q) {
    const uint32_t n = b->notch[q], key = s->vkey[n];
    const float nx = s->xy[2 * n], ny = s->xy[2 * n + 1], slop = s->slop, *r = b->cone + 4 * q;
    const float w1 = slop * sqrtf(r[0] * r[0] + r[1] * r[1]), w2 = slop * sqrtf(r[2] * r[2] + r[3] * r[3]);
    const bool partners = b->mode == PTL_CLOSEST_PARTNERS;
    const float reach = partners ? b->reach[q] : 0;
    uint32_t kseg[64];
    float klb[64];
    kept k = {0, b->cap, kseg, klb, FLT_MAX};
    float unseen = FLT_MAX;
    uint32_t found = 0;
    int64_t cx = (int64_t)floorf((nx - s->x0) / s->cell), cy = (int64_t)floorf((ny - s->y0) / s->cell);
    cx = cx < 0 ? 0 : cx >= s->nx ? s->nx - 1 : cx;
    cy = cy < 0 ? 0 : cy >= s->ny ? s->ny - 1 : cy;
    for (int64_t ring = 0; !(partners && reach < 0); ++ring) {
        const float near = (float)(ring - 1) * s->cell - 2 * slop;
        const float limit = partners ? reach + slop : k.n == k.cap ? k.lb[k.n - 1] : k.n > 0 ? k.lb[0] + 4 * slop : FLT_MAX;
        if (near > limit) {
            unseen = near;
            break;
        }
        if (cx - ring < 0 && cy - ring < 0 && cx + ring >= s->nx && cy + ring >= s->ny) break;
        for (int64_t y = cy - ring; y <= cy + ring; ++y) {
            if (y < 0 || y >= s->ny) continue;
            const int64_t step = y == cy - ring || y == cy + ring ? 1 : 2 * ring;
            for (int64_t x = cx - ring; x <= cx + ring; x += step ? step : 1) {
                if (x < 0 || x >= s->nx) continue;
                const uint32_t bi = (uint32_t)(y * s->nx + x), i0 = s->bucket_start[bi], i1 = s->bucket_start[bi + 1];
                if (i0 == i1) continue;
                const float bx0 = s->x0 + (float)x * s->cell - nx - slop, by0 = s->y0 + (float)y * s->cell - ny - slop;
                if (!box_meets(bx0, by0, bx0 + s->cell + 2 * slop, by0 + s->cell + 2 * slop, r, w1, w2)) continue;
                for (uint32_t i = i0; i < i1; ++i) {
                    const uint32_t seg = s->bucket_seg[i], a = s->seg[2 * seg], e = s->seg[2 * seg + 1];
                    if (s->vkey[a] == key || s->vkey[e] == key) continue;
                    const float ax = s->xy[2 * a] - nx, ay = s->xy[2 * a + 1] - ny;
                    if (partners) {
                        if (!(s->seg_flags[seg] & 1) || !(s->vflags[a] & 1)) continue;
                        if (crossf(r[0], r[1], ax, ay) < -w1 || crossf(r[2], r[3], ax, ay) > w2) continue;
                        if (sqrtf(ax * ax + ay * ay) > reach + slop) continue;
                        bool dup = false;
                        for (uint32_t j = 0; j < found && j < b->cap; ++j) dup = dup || k.seg[j] == seg;
                        if (dup) continue;
                        if (found < b->cap) k.seg[found] = seg;
                        found++;
                        continue;
                    }
                    const float d = clipped_dist(ax, ay, s->xy[2 * e] - nx, s->xy[2 * e + 1] - ny, r, w1, w2);
                    if (d >= 0) keep(&k, seg, d - slop);
                }
            }
        }
    }
    /* Only a segment whose lower bound lies within 4 slops of the least can be the closest or tie
       with it (each true distance lies within [lb, lb + 2 slop]): the rest are dropped, their
       least bound joining the bound (shorter answers, less to read back). */
    uint32_t m = k.n;
    while (!partners && m > 1 && k.lb[m - 1] > k.lb[0] + 4 * slop) m--;
    float bound = unseen < k.evicted ? unseen : k.evicted;
    if (m < k.n && k.lb[m] < bound) bound = k.lb[m];
    if (partners) m = found <= b->cap ? found : 0;
    const uint32_t at = b->out_start[q];
    memcpy(b->out_seg + at, kseg, (size_t)m * sizeof(uint32_t));
    if (!partners) memcpy(b->out_lb + at, klb, (size_t)m * sizeof(float));
    b->out_start[q + 1] = at + m;
    b->out_count[q] = partners ? found : m;
    if (!partners) b->out_bound[q] = bound;
}

static ptl_status ref_find(void* user, const ptl_closest_scene* scene, ptl_closest_batch* b, ptl_error* err) {
    (void)user;
    if (!scene || !b || b->cap < 1 || b->cap > 64)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "closest backend: NULL scene or batch, or cap not in 1..64");
    b->out_start[0] = 0;
    for (uint32_t q = 0; q < b->count; ++q) query(scene, b, q);
    return PTL_OK;
}

static void ref_release(void* user, const ptl_closest_scene* scene) { (void)user, (void)scene; }

const ptl_closest_backend* ptl_closest_backend_ref(void) {
    static const ptl_closest_backend backend = {"reference", NULL, ref_find, ref_release};
    return &backend;
}
