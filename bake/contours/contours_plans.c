/* The simplification's plans kept between rebakes (contours.h, ptl_contour_plans). A plan is what
   min_chords chose for one chain of wall edges, or for one closed ring (plan_closed_ring: its
   start and path): a pure function of the run's points, in order, the tolerance and whether the run
   is closed, so a run whose points are the same as in the rebake before takes the plan it had. The
   checks against other edges (apply_chords, the corners) run again every time: only the chord
   table and the cheapest-path passes are skipped, and the contour is the same, byte for byte. */
#include <string.h>

#include "../../runtime/internal.h"
#include "contours_internal.h"

/* FNV-1a over the run's bytes, seeded with its shape; never 0 (an empty slot). */
static uint64_t plan_hash(const double* xy, uint32_t n, bool cyclic, double tol) {
    uint64_t h = 1469598103934665603ull;
    const uint8_t* b = (const uint8_t*)xy;
    const uint64_t head[3] = {n, cyclic, 0};
    uint64_t t;
    memcpy(&t, &tol, sizeof t);
    for (int k = 0; k < 3; ++k) h = (h ^ (k == 2 ? t : head[k])) * 1099511628211ull;
    for (size_t i = 0; i < (size_t)n * 2 * sizeof *xy; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h ? h : 1;
}

const ptl_contour_plan* ptl_contour_plans_find(const ptl_contour_plans* p, const double* xy, uint32_t n, bool cyclic,
                                               double tol, uint64_t* hash) {
    *hash = plan_hash(xy, n, cyclic, tol);
    if (!p || !p->slots) return NULL;
    for (uint32_t i = (uint32_t)*hash & (p->slots - 1);; i = (i + 1) & (p->slots - 1)) {
        const uint32_t e = p->slot[i];
        if (e == PTL_NONE) return NULL;
        const ptl_contour_plan* q = &p->plan.data[e];
        if (q->hash == *hash && q->n == n && q->cyclic == cyclic && q->tol == tol &&
            !memcmp(p->xy.data + q->xy_at, xy, (size_t)n * 2 * sizeof *xy))
            return q;
    }
}

static bool rehash(ptl_contour_plans* p, const ptl_allocator* a, uint32_t slots) {
    uint32_t* s = ptl_mem_alloc(a, (size_t)slots * sizeof *s);
    if (!s) return false;
    memset(s, 0xff, (size_t)slots * sizeof *s);
    for (uint32_t e = 0; e < p->plan.count; ++e) {
        uint32_t i = (uint32_t)p->plan.data[e].hash & (slots - 1);
        while (s[i] != PTL_NONE) i = (i + 1) & (slots - 1);
        s[i] = e;
    }
    ptl_mem_free(a, p->slot, (size_t)p->slots * sizeof *p->slot);
    p->slot = s, p->slots = slots;
    return true;
}

bool ptl_contour_plans_add(ptl_contour_plans* p, const ptl_allocator* a, uint64_t hash, const double* xy, uint32_t n,
                           bool cyclic, double tol, uint32_t start, const uint32_t* path, uint32_t np) {
    if ((uint64_t)p->plan.count * 2 + 2 > p->slots && !rehash(p, a, p->slots ? p->slots * 2 : 64)) return false;
    if (!PTL_RESERVE(a, p->plan, (uint64_t)p->plan.count + 1) || !PTL_RESERVE(a, p->xy, (uint64_t)p->xy.count + 2 * n) ||
        !PTL_RESERVE(a, p->path, (uint64_t)p->path.count + np))
        return false;
    const ptl_contour_plan q = {.hash = hash, .tol = tol, .n = n, .cyclic = cyclic, .start = start, .np = np,
                                .xy_at = p->xy.count, .path_at = p->path.count};
    memcpy(p->xy.data + p->xy.count, xy, (size_t)n * 2 * sizeof *xy);
    if (np) memcpy(p->path.data + p->path.count, path, (size_t)np * sizeof *path);
    p->xy.count += 2 * n, p->path.count += np;
    uint32_t i = (uint32_t)hash & (p->slots - 1);
    while (p->slot[i] != PTL_NONE) i = (i + 1) & (p->slots - 1);
    p->slot[i] = p->plan.count;
    p->plan.data[p->plan.count++] = q;
    return true;
}

void ptl_contour_plans_free(ptl_contour_plans* p, const ptl_allocator* a) {
    ptl_mem_free(a, p->slot, (size_t)p->slots * sizeof *p->slot);
    PTL_ARRAY_FREE(a, p->plan);
    PTL_ARRAY_FREE(a, p->xy);
    PTL_ARRAY_FREE(a, p->path);
    memset(p, 0, sizeof *p);
}

uint64_t ptl_contour_plans_bytes(const ptl_contour_plans* p) {
    return (uint64_t)p->slots * 4 + (uint64_t)p->plan.cap * sizeof *p->plan.data + (uint64_t)p->xy.cap * 8 +
           (uint64_t)p->path.cap * 4;
}
