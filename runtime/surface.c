/* Paths that follow the surface (3D navmeshes, on request: ptl_path_request.follow_surface;
   otherwise a path is its corners). The searches return the corners of the path in plan; between
   two corners the path is straight in x-z, but the ground under it may bend: a ramp starts, a
   stair climbs, a deck crosses a floor. Each segment is walked through the cells it
   crosses (through their portals, so the layer under the path is always the right one, even where
   layers overlap in plan), the layer's floor heights are sampled along it, and the samples that the
   straight 3D line between kept points misses by more than the tolerance are added as path points
   (Ramer-Douglas-Peucker on the height profile). A staircase of regular steps lies within a step of
   its slope line and adds points only where it starts and ends. */
#include <math.h>
#include <string.h>

#include "query_internal.h"

enum { MAX_SAMPLES = 4096 };

/* Where the segment from (px, pz) along (dx, dz) leaves cell c, as a parameter t >= t0; the edge it
   leaves by in *edge (PTL_NONE when it stays inside up to t = 1).
   A cell's side may be several collinear edges (the vertices where its neighbours' portals end):
   they all give the same t, so among the edges that give the least t (up to rounding) the one
   whose span holds the exit point is taken, not the first listed. Taking the first sent a path
   that left through a portal into the wall beside it, and its heights then came from whatever
   cell of the layer lay under the rest of the segment (a floor under a landing). */
static double exit_t(const ptl_navmesh* nm, uint32_t c, double px, double pz, double dx, double dz, double t0,
                     uint32_t* edge) {
    const ptl_blob_cell* cell = &nm->cells[c];
    const uint32_t* cv = nm->cell_verts + cell->first;
    double best = INFINITY, best_out = INFINITY; /* best_out: how far outside its edge's span */
    *edge = PTL_NONE;
    for (uint32_t i = 0; i < cell->vert_count; ++i) {
        uint32_t a = cv[i], b = cv[i + 1 == cell->vert_count ? 0 : i + 1];
        double ax = ptl_nm_vx(nm, a), az = ptl_nm_vz(nm, a), ex = ptl_nm_vx(nm, b) - ax, ez = ptl_nm_vz(nm, b) - az;
        /* Inside is left of a->b: side(t) = e x (p + t d - a) >= 0; leaving where it turns negative. */
        double s0 = ex * (pz - az) - ez * (px - ax), ds = ex * dz - ez * dx;
        if (ds >= 0) continue; /* moving inwards or along the edge */
        double t = s0 / -ds;
        if (t < t0) t = t0;
        /* how far the exit point lies outside the span of a->b, in units of the edge's length */
        double el2 = ex * ex + ez * ez, u = el2 > 0 ? ((px + t * dx - ax) * ex + (pz + t * dz - az) * ez) / el2 : 0;
        double out = u < 0 ? -u : u > 1 ? u - 1 : 0;
        double tie = 1e-9 * (1 + fabs(t));
        if (t < best - tie || (t <= best + tie && out < best_out)) best = t < best ? t : best, best_out = out, *edge = i;
    }
    return best;
}

/* The height profile of one segment: samples (distance along, y) and their count. */
struct profile {
    double d[MAX_SAMPLES], y[MAX_SAMPLES];
    uint32_t n;
    uint8_t keep[MAX_SAMPLES];
};
typedef struct profile profile;

size_t ptl_query_profile_size(void) { return sizeof(profile); }

static void rdp(profile* pr, double tol) {
    uint32_t stack[2 * 64], top = 0;
    memset(pr->keep, 0, pr->n);
    pr->keep[0] = pr->keep[pr->n - 1] = 1;
    stack[top++] = 0, stack[top++] = pr->n - 1;
    while (top) {
        uint32_t hi = stack[--top], lo = stack[--top];
        if (hi <= lo + 1) continue;
        double far = 0;
        uint32_t at = lo;
        for (uint32_t k = lo + 1; k < hi; ++k) {
            double u = (pr->d[k] - pr->d[lo]) / (pr->d[hi] - pr->d[lo]);
            double e = fabs(pr->y[k] - (pr->y[lo] + u * (pr->y[hi] - pr->y[lo])));
            if (e > far) far = e, at = k;
        }
        if (far <= tol) continue;
        pr->keep[at] = 1;
        if (top + 4 > sizeof stack / sizeof stack[0]) continue; /* deep enough: keep what we have */
        stack[top++] = lo, stack[top++] = at, stack[top++] = at, stack[top++] = hi;
    }
}

static uint32_t cell_towards(const ptl_navmesh* nm, uint32_t from, const float* p, const float* q);

/* Is (x, z) in cell c, or within `eps` (relative to its edges' lengths) outside it? */
static bool holds(const ptl_navmesh* nm, uint32_t c, double x, double z, double eps) {
    const ptl_blob_cell* cc = &nm->cells[c];
    const uint32_t* cv = nm->cell_verts + cc->first;
    for (uint32_t i = 0; i < cc->vert_count; ++i) {
        uint32_t a = cv[i], b = cv[i + 1 == cc->vert_count ? 0 : i + 1];
        double ex = ptl_nm_vx(nm, b) - ptl_nm_vx(nm, a), ez = ptl_nm_vz(nm, b) - ptl_nm_vz(nm, a);
        if (ex * (z - ptl_nm_vz(nm, a)) - ez * (x - ptl_nm_vx(nm, a)) < -eps) return false;
    }
    return true;
}

/* The cell of layer `layer` holding (x, z) (from the point-location buckets), else `fallback`. */
static uint32_t layer_cell_at(const ptl_navmesh* nm, uint32_t layer, double x, double z, uint32_t fallback) {
    uint32_t b = ptl_nm_bucket(nm, x, z);
    for (uint32_t i = nm->grid_offsets[b]; i < nm->grid_offsets[b + 1]; ++i) {
        uint32_t c = nm->grid_items[i];
        if (nm->cells[c].layer == layer && !ptl_nm_is_link(nm, c) && holds(nm, c, x, z, 1e-9)) return c;
    }
    return fallback;
}

/* Samples segment a -> b starting in cell `cell`; returns the cell it ends in. */
static uint32_t sample_segment(const ptl_navmesh* nm, uint32_t cell, const float* a, const float* b, double step,
                               profile* pr) {
    double dx = (double)b[0] - a[0], dz = (double)b[2] - a[2], len = sqrt(dx * dx + dz * dz);
    pr->n = 0;
    if (len == 0) return cell;
    if (len / step > MAX_SAMPLES - 2) step = len / (MAX_SAMPLES - 2);
    double t_step = step / len, t = 0;
    uint32_t c = cell, guard = 0;
    while (t < 1 && guard++ < 1u << 20) {
        uint32_t edge;
        double te = exit_t(nm, c, a[0], a[2], dx, dz, t, &edge);
        double tend = te < 1 ? te : 1;
        for (; t <= tend && pr->n < MAX_SAMPLES - 1; t += t_step) {
            double x = a[0] + t * dx, z = a[2] + t * dz;
            float y = ptl_query_cell_y(nm, c, x, z); /* the cell's grid, else its vertices */
            pr->d[pr->n] = t * len, pr->y[pr->n] = y;
            ++pr->n;
        }
        if (te >= 1 || edge == PTL_NONE) break;
        uint32_t next = nm->cell_nbrs[nm->cells[c].first + edge];
        if (next == PTL_NONE) {
            /* Leaving through a vertex, the tie picked a wall: the cell around it that holds the
               way on. None (grazing a wall by rounding): the rest takes this layer's heights. */
            float ex[3] = {(float)(a[0] + te * dx), 0, (float)(a[2] + te * dz)};
            next = cell_towards(nm, c, ex, b);
            if (next == c) {
                /* the heights of the cells of this layer under the rest (cells carry their own) */
                for (; t < 1 && pr->n < MAX_SAMPLES - 1; t += t_step) {
                    double x = a[0] + t * dx, z = a[2] + t * dz;
                    float y = ptl_query_cell_y(nm, layer_cell_at(nm, nm->cells[c].layer, x, z, c), x, z);
                    pr->d[pr->n] = t * len, pr->y[pr->n] = y;
                    ++pr->n;
                }
                break;
            }
        }
        c = next;
    }
    /* The corners themselves close the profile: their heights are the path's. */
    pr->d[0] = 0, pr->y[0] = a[1];
    if (pr->n == 0 || pr->d[pr->n - 1] < len) ++pr->n;
    pr->d[pr->n - 1] = len, pr->y[pr->n - 1] = b[1];
    return c;
}

/* Cell of the layer path starting at corner p going towards q: the cell around p (among those of
   `from` and its neighbours) that holds the point a little way along p -> q. */
static uint32_t cell_towards(const ptl_navmesh* nm, uint32_t from, const float* p, const float* q) {
    double dx = (double)q[0] - p[0], dz = (double)q[2] - p[2], len = sqrt(dx * dx + dz * dz);
    if (len == 0) return from;
    double eps = 1e-4 * (1 + len);
    double x = p[0] + dx / len * fmin(eps, 0.5 * len), z = p[2] + dz / len * fmin(eps, 0.5 * len);
    uint32_t cand[64], n = 0;
    cand[n++] = from;
    const ptl_blob_cell* c = &nm->cells[from];
    /* The cells sharing a vertex with `from` near p: those around its vertices at p. */
    for (uint32_t i = 0; i < c->vert_count && n < 64; ++i) {
        uint32_t v = nm->cell_verts[c->first + i];
        if (fabs(ptl_nm_vx(nm, v) - p[0]) > 1e-4 || fabs(ptl_nm_vz(nm, v) - p[2]) > 1e-4) continue;
        for (uint32_t k = nm->vcell_start[v]; k < nm->vcell_start[v + 1] && n < 64; ++k) cand[n++] = nm->vcell[k];
    }
    for (uint32_t k = 0; k < n; ++k)
        if (holds(nm, cand[k], x, z, 1e-9 * (1 + len))) return cand[k];
    return from;
}

ptl_status ptl_query_follow_surface(ptl_query* q, const float* corners, uint32_t count, uint32_t start_cell,
                                    ptl_path_result* res) {
    const ptl_navmesh* nm = q->nm;
    const double step = 0.5 * nm->h->vox_cs, tol = nm->h->vox_ch;
    profile* pr = q->profile;
    uint32_t total = 0, cell = start_cell;
    double length = 0;
    float last[3] = {0, 0, 0};
    for (uint32_t k = 0; k < count; ++k) {
        const float* a = &corners[3 * k];
        if (k + 1 == count) {
            if (total < res->point_capacity) memcpy(&res->points[3 * (size_t)total], a, 3 * sizeof(float));
            if (total) length += sqrt((a[0] - last[0]) * (a[0] - last[0]) + (a[1] - last[1]) * (a[1] - last[1]) +
                                      (a[2] - last[2]) * (a[2] - last[2]));
            ++total;
            break;
        }
        const float* b = &corners[3 * k + 3];
        cell = cell_towards(nm, cell, a, b);
        uint32_t end = sample_segment(nm, cell, a, b, step, pr);
        double dx = (double)b[0] - a[0], dz = (double)b[2] - a[2], len = sqrt(dx * dx + dz * dz);
        if (pr->n >= 2) rdp(pr, tol);
        for (uint32_t i = 0; i + 1 < pr->n || (pr->n < 2 && i == 0); ++i) {
            if (pr->n >= 2 && !pr->keep[i]) continue;
            float p[3];
            double u = pr->n >= 2 && len > 0 ? pr->d[i] / len : 0;
            p[0] = (float)(a[0] + u * dx), p[2] = (float)(a[2] + u * dz);
            p[1] = pr->n >= 2 ? (float)pr->y[i] : a[1];
            if (i == 0) memcpy(p, a, sizeof p);
            if (total) length += sqrt((p[0] - last[0]) * (p[0] - last[0]) + (p[1] - last[1]) * (p[1] - last[1]) +
                                      (p[2] - last[2]) * (p[2] - last[2]));
            if (total < res->point_capacity) memcpy(&res->points[3 * (size_t)total], p, sizeof p);
            memcpy(last, p, sizeof last);
            ++total;
        }
        cell = end;
    }
    res->point_total = total;
    res->point_count = total < res->point_capacity ? total : res->point_capacity;
    res->length = length;
    return res->point_count < total ? PTL_TRUNCATED : PTL_OK;
}
