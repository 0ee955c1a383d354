/* Pockets: corners no shortest path between two outside points turns at.

   Walls run with free space on their left. Take two vertices a and b of one outline (a ring of
   walls) such that the segment a-b, the lid, lies in free space and the outline from a to b bends
   to its right, away from the free side: the outline and the lid enclose a pocket of free space (a
   bay between the steps of an irregular grid staircase, the inside of a U). When nothing else lies
   in the pocket (no other wall crosses or touches the lid, no other outline is inside), a path
   between two points outside the pocket that entered it would enter and leave through the lid,
   and the straight piece of lid between the two crossings is shorter than any detour inside. So no
   shortest path between two points outside the pocket turns at a corner strictly inside it. Both
   end points are outside when they lie strictly beyond the lid's line, away from the pocket.

   A search from s to t may therefore skip such corners (hubs.c: take no label from them; search.c:
   make no turn there). The lids are the chords a stack scan along each outline leaves (the
   outline's hull seen from the free side, as Graham's scan builds a hull), each checked; a lid
   that fails the check is split at the pocket's deepest vertex and the halves tried in turn.

   Computed when a navmesh is loaded, for one-layer navmeshes without links (2D bakes): in 3D, a
   layer's walls do not bound it where it joins another layer, so its outlines are not rings. */
#include <math.h>
#include <string.h>

#include "error.h"
#include "navmesh_internal.h"
#include "pockets.h"

/* ---- A bucket grid of the wall edges (CSR), for the lid tests ---------------------------------- */

typedef struct edge_grid {
    double x0, z0, cell;
    uint32_t nx, nz;
    uint32_t* start; /* nx * nz + 1 */
    uint32_t* items; /* wall edges by their first vertex */
    size_t item_count;
} edge_grid;

static inline uint32_t gx(const edge_grid* g, double x) {
    double f = (x - g->x0) / g->cell;
    return f <= 0 ? 0 : f >= g->nx - 1 ? g->nx - 1 : (uint32_t)f;
}
static inline uint32_t gz(const edge_grid* g, double z) {
    double f = (z - g->z0) / g->cell;
    return f <= 0 ? 0 : f >= g->nz - 1 ? g->nz - 1 : (uint32_t)f;
}

/* ---- Geometry ---------------------------------------------------------------------------------- */

static inline double orient(double ax, double az, double bx, double bz, double cx, double cz) {
    return (bx - ax) * (cz - az) - (bz - az) * (cx - ax);
}

/* Do the closed segments p-q and r-s meet (touching counts)? */
static bool segments_meet(double px, double pz, double qx, double qz, double rx, double rz, double sx, double sz) {
    double d1 = orient(px, pz, qx, qz, rx, rz), d2 = orient(px, pz, qx, qz, sx, sz);
    double d3 = orient(rx, rz, sx, sz, px, pz), d4 = orient(rx, rz, sx, sz, qx, qz);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
    /* collinear touching */
#define ON(ax, az, bx, bz, cx, cz) \
    (fmin(ax, bx) <= cx && cx <= fmax(ax, bx) && fmin(az, bz) <= cz && cz <= fmax(az, bz))
    if (d1 == 0 && ON(px, pz, qx, qz, rx, rz)) return true;
    if (d2 == 0 && ON(px, pz, qx, qz, sx, sz)) return true;
    if (d3 == 0 && ON(rx, rz, sx, sz, px, pz)) return true;
    if (d4 == 0 && ON(rx, rz, sx, sz, qx, qz)) return true;
#undef ON
    return false;
}

typedef struct builder {
    uint32_t nv;
    const double* xz;  /* 2 per vertex */
    uint32_t* lid;     /* out: 2 per vertex */
    const ptl_allocator* a;
    uint32_t* next;    /* per vertex: the next vertex along the walls (PTL_NONE) */
    uint32_t* ring_of; /* per vertex: its ring, PTL_NONE */
    uint32_t* rings;   /* ring vertices, ring after ring */
    uint32_t* rstart;  /* ring_count + 1 */
    uint32_t ring_count;
    uint32_t* stamp;   /* per wall edge (by first vertex), for the bucket walk */
    uint32_t stamp_now;
    edge_grid g;       /* wall edges */
    uint32_t* rep_start; /* per bucket of g: the rings whose first vertex lies in it (CSR) */
    uint32_t* reps;
    uint32_t* stack;   /* scratch, the largest ring + 1 */
    uint32_t* pending;    /* scratch: pairs of ring positions still to process */
    uint64_t budget;   /* steps left (scan steps, buckets and edges looked at): pathological outlines
                          (a long spiral whose every lid is blocked) stop here with fewer pockets */
} builder;

static double vx(const builder* b, uint32_t v) { return b->xz[2 * v]; }
static double vz(const builder* b, uint32_t v) { return b->xz[2 * v + 1]; }

/* Does any wall edge meet the lid a-c, other than at a or c (where it may only not run along it)? */
static bool lid_blocked(builder* b, uint32_t a, uint32_t c) {
    const edge_grid* g = &b->g;
    double ax = vx(b, a), az = vz(b, a), cx = vx(b, c), cz = vz(b, c);
    uint32_t x0 = gx(g, fmin(ax, cx)), x1 = gx(g, fmax(ax, cx)), z0 = gz(g, fmin(az, cz)), z1 = gz(g, fmax(az, cz));
    ++b->stamp_now;
    for (uint32_t z = z0; z <= z1; ++z) {
        for (uint32_t x = x0; x <= x1; ++x) {
            uint32_t k = z * g->nx + x;
            if (b->budget < 1 + g->start[k + 1] - g->start[k]) return true; /* out of budget: no pocket */
            b->budget -= 1 + g->start[k + 1] - g->start[k];
            for (uint32_t i = g->start[k]; i < g->start[k + 1]; ++i) {
                uint32_t u = g->items[i], w = b->next[u];
                if (b->stamp[u] == b->stamp_now) continue;
                b->stamp[u] = b->stamp_now;
                double ux = vx(b, u), uz = vz(b, u), wx = vx(b, w), wz = vz(b, w);
                if (u == a || u == c || w == a || w == c) {
                    uint32_t o = u == a || u == c ? w : u;
                    double ox = vx(b, o), oz = vz(b, o);
                    if (orient(ax, az, cx, cz, ox, oz) == 0 && fmin(ax, cx) <= ox && ox <= fmax(ax, cx) &&
                        fmin(az, cz) <= oz && oz <= fmax(az, cz))
                        return true;
                    continue;
                }
                if (segments_meet(ax, az, cx, cz, ux, uz, wx, wz)) return true;
            }
        }
    }
    return false;
}

/* Is (px, pz) strictly inside the polygon of ring r's positions p..q (cyclic), closed by the lid? */
static bool inside(const builder* b, uint32_t r, uint32_t p, uint32_t q, double px, double pz) {
    const uint32_t* ring = b->rings + b->rstart[r];
    const uint32_t n = b->rstart[r + 1] - b->rstart[r];
    bool in = false;
    for (uint32_t i = p, j = q; i <= q; j = i++) {
        uint32_t vi = ring[i % n], vj = ring[j % n];
        double xi = vx(b, vi), zi = vz(b, vi), xj = vx(b, vj), zj = vz(b, vj);
        if ((zi > pz) != (zj > pz) && px < (xj - xi) * (pz - zi) / (zj - zi) + xi) in = !in;
    }
    return in;
}

/* Is the pocket of ring r between positions p and q (q > p, the lid from ring[q] to ring[p]) clean:
   the lid touches no wall but at its ends, no chain vertex lies on it, no other ring inside? */
static bool clean(builder* b, uint32_t r, uint32_t p, uint32_t q) {
    const uint32_t* ring = b->rings + b->rstart[r];
    const uint32_t n = b->rstart[r + 1] - b->rstart[r];
    uint32_t a = ring[p % n], c = ring[q % n];
    double ax = vx(b, a), az = vz(b, a), cx = vx(b, c), cz = vz(b, c);
    double x0 = fmin(ax, cx), x1 = fmax(ax, cx), z0 = fmin(az, cz), z1 = fmax(az, cz);
    for (uint32_t i = p + 1; i < q; ++i) {
        uint32_t v = ring[i % n];
        if (orient(ax, az, cx, cz, vx(b, v), vz(b, v)) >= 0) return false; /* on the lid, or not a pocket */
        x0 = fmin(x0, vx(b, v)), x1 = fmax(x1, vx(b, v)), z0 = fmin(z0, vz(b, v)), z1 = fmax(z1, vz(b, v));
    }
    if (lid_blocked(b, a, c)) return false;
    const edge_grid* g = &b->g;
    for (uint32_t z = gz(g, z0); z <= gz(g, z1); ++z) {
        for (uint32_t x = gx(g, x0); x <= gx(g, x1); ++x) {
            uint32_t k = z * g->nx + x;
            if (b->budget < 1) return false;
            b->budget -= 1;
            for (uint32_t i = b->rep_start[k]; i < b->rep_start[k + 1]; ++i) {
                uint32_t o = b->reps[i];
                if (o == r) continue;
                uint32_t v = b->rings[b->rstart[o]];
                if (b->budget < q - p + 1) return false;
                b->budget -= q - p + 1;
                if (inside(b, r, p, q, vx(b, v), vz(b, v))) return false;
            }
        }
    }
    return true;
}

/* The pockets of ring r's chain between positions p and q (cyclic, q > p): a stack scan keeps the
   chain's vertices that are not right of the chord from the kept one before to the next (Graham's
   scan along the outline, from the free side); each chord left with vertices under it is a lid,
   taken when clean and split at its deepest vertex otherwise. */
static void chain_pockets(builder* b, uint32_t r, uint32_t p0, uint32_t q0) {
    const uint32_t* ring = b->rings + b->rstart[r];
    const uint32_t n = b->rstart[r + 1] - b->rstart[r];
    uint32_t* pending = b->pending;
    uint32_t npending = 0;
    pending[npending++] = p0, pending[npending++] = q0;
    while (npending) {
        uint32_t q = pending[--npending], p = pending[--npending];
        if (q - p < 2) continue;
        uint32_t* st = b->stack;
        uint32_t k = 0;
        if (b->budget < q - p + 1) return;
        b->budget -= q - p + 1;
        for (uint32_t i = p; i <= q; ++i) {
            uint32_t w = ring[i % n];
            while (k >= 2) {
                uint32_t u = ring[st[k - 2] % n], v = ring[st[k - 1] % n];
                if (orient(vx(b, u), vz(b, u), vx(b, w), vz(b, w), vx(b, v), vz(b, v)) >= 0) break;
                --k; /* v right of u -> w: under that chord */
            }
            st[k++] = i;
        }
        /* Each chord with vertices under it. The scan's stack is reused by the splits below, so
           the chords are handled after it. */
        for (uint32_t j = 0; j + 1 < k; ++j) {
            uint32_t s0 = st[j], s1 = st[j + 1];
            if (s1 - s0 < 2) continue;
            if (clean(b, r, s0, s1)) {
                uint32_t a = ring[s0 % n], c = ring[s1 % n];
                for (uint32_t i = s0 + 1; i < s1; ++i) b->lid[2 * ring[i % n]] = a, b->lid[2 * ring[i % n] + 1] = c;
            } else if (s1 - s0 > 2) {
                /* split at the vertex farthest right of the chord */
                uint32_t a = ring[s0 % n], c = ring[s1 % n], m = s0 + 1;
                double best = 0;
                for (uint32_t i = s0 + 1; i < s1; ++i) {
                    uint32_t v = ring[i % n];
                    double o = -orient(vx(b, a), vz(b, a), vx(b, c), vz(b, c), vx(b, v), vz(b, v));
                    if (o > best) best = o, m = i;
                }
                pending[npending++] = s0, pending[npending++] = m;
                pending[npending++] = m, pending[npending++] = s1;
            }
        }
    }
}

/* Ring r's pockets: the scan starts at its lowest-x vertex (a vertex of its convex hull, which no
   lid can pass beyond) and goes once around. */
static void ring_pockets(builder* b, uint32_t r) {
    const uint32_t* ring = b->rings + b->rstart[r];
    const uint32_t n = b->rstart[r + 1] - b->rstart[r];
    uint32_t s = 0;
    for (uint32_t i = 1; i < n; ++i) {
        double x = vx(b, ring[i]), z = vz(b, ring[i]), bx = vx(b, ring[s]), bz = vz(b, ring[s]);
        if (x < bx || (x == bx && z < bz)) s = i;
    }
    chain_pockets(b, r, s, s + n);
}

static bool build_grid(builder* b) {
    const uint32_t nv = b->nv;
    edge_grid* g = &b->g;
    size_t edges = 0;
    double x0 = INFINITY, z0 = INFINITY, x1 = -INFINITY, z1 = -INFINITY;
    for (uint32_t v = 0; v < nv; ++v) {
        if (b->next[v] == PTL_NONE) continue;
        ++edges;
        x0 = fmin(x0, vx(b, v)), x1 = fmax(x1, vx(b, v)), z0 = fmin(z0, vz(b, v)), z1 = fmax(z1, vz(b, v));
    }
    if (!edges) return true;
    double w = fmax(x1 - x0, 1e-9), d = fmax(z1 - z0, 1e-9);
    g->cell = sqrt(w * d / (double)edges) * 2;
    g->nx = (uint32_t)fmin(4096, floor(w / g->cell) + 1), g->nz = (uint32_t)fmin(4096, floor(d / g->cell) + 1);
    g->cell = fmax(w / g->nx, d / g->nz) * (1 + 1e-9);
    g->x0 = x0, g->z0 = z0;
    size_t buckets = (size_t)g->nx * g->nz;
    g->start = ptl_mem_calloc(b->a, buckets + 2, sizeof(uint32_t));
    if (!g->start) return false;
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t v = 0; v < nv; ++v) {
            uint32_t w2 = b->next[v];
            if (w2 == PTL_NONE) continue;
            uint32_t bx0 = gx(g, fmin(vx(b, v), vx(b, w2))), bx1 = gx(g, fmax(vx(b, v), vx(b, w2)));
            uint32_t bz0 = gz(g, fmin(vz(b, v), vz(b, w2))), bz1 = gz(g, fmax(vz(b, v), vz(b, w2)));
            for (uint32_t z = bz0; z <= bz1; ++z)
                for (uint32_t x = bx0; x <= bx1; ++x) {
                    size_t k = (size_t)z * g->nx + x;
                    if (pass == 0) g->start[k + 2]++;
                    else g->items[g->start[k + 1]++] = v;
                }
        }
        if (pass == 0) {
            for (size_t k = 0; k < buckets; ++k) g->start[k + 2] += g->start[k + 1];
            g->item_count = g->start[buckets + 1];
            g->items = ptl_mem_alloc(b->a, g->item_count * sizeof(uint32_t) + 4);
            if (!g->items) return false;
        }
    }
    return true;
}

/* Each ring's first vertex in the bucket of g that holds it (CSR). */
static bool build_reps(builder* b) {
    const edge_grid* g = &b->g;
    size_t buckets = (size_t)g->nx * g->nz;
    b->rep_start = ptl_mem_calloc(b->a, buckets + 2, sizeof(uint32_t));
    b->reps = ptl_mem_alloc(b->a, ((size_t)b->ring_count + 1) * sizeof(uint32_t));
    if (!b->rep_start || !b->reps) return false;
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t r = 0; r < b->ring_count; ++r) {
            uint32_t v = b->rings[b->rstart[r]];
            size_t k = (size_t)gz(g, vz(b, v)) * g->nx + gx(g, vx(b, v));
            if (pass == 0) b->rep_start[k + 2]++;
            else b->reps[b->rep_start[k + 1]++] = r;
        }
        if (pass == 0)
            for (size_t k = 0; k < buckets; ++k) b->rep_start[k + 2] += b->rep_start[k + 1];
    }
    return true;
}

/* The walls' rings: free space on their left, vertex after vertex along `next`. */
static bool build_rings(builder* b) {
    const uint32_t nv = b->nv;
    uint32_t total = 0;
    for (uint32_t v0 = 0; v0 < nv; ++v0) {
        if (b->next[v0] == PTL_NONE || b->ring_of[v0] != PTL_NONE) continue;
        uint32_t start = total, v = v0;
        bool ok = true;
        while (ok) {
            if (b->ring_of[v] != PTL_NONE || b->next[v] == PTL_NONE || b->next[v] == v) {
                ok = v == v0 && total > start;
                break;
            }
            b->ring_of[v] = b->ring_count;
            b->rings[total++] = v;
            v = b->next[v];
        }
        if (ok && v == v0) {
            b->rstart[b->ring_count++] = start;
        } else {
            for (uint32_t i = start; i < total; ++i) b->ring_of[b->rings[i]] = PTL_NONE - 1; /* left out */
            total = start;
        }
    }
    b->rstart[b->ring_count] = total;
    return true;
}

ptl_status ptl_pockets_find(uint32_t nv, const double* xz, uint32_t* next, const ptl_allocator* a, uint32_t* lid) {
    builder b;
    memset(&b, 0, sizeof b);
    b.nv = nv, b.xz = xz, b.lid = lid, b.a = a, b.next = next;
    b.budget = 256 * ((uint64_t)nv + 64);
    const size_t vb = ((size_t)nv + 1) * sizeof(uint32_t);
    memset(lid, 0xff, 2 * vb);
    b.ring_of = ptl_mem_alloc(a, vb);
    b.rings = ptl_mem_alloc(a, vb);
    b.rstart = ptl_mem_alloc(a, vb + sizeof(uint32_t));
    b.stamp = ptl_mem_calloc(a, (size_t)nv + 1, sizeof(uint32_t));
    b.stack = ptl_mem_alloc(a, 2 * vb);
    b.pending = ptl_mem_alloc(a, 8 * vb);
    bool ok = b.ring_of && b.rings && b.rstart && b.stamp && b.stack && b.pending;
    bool usable = true;
    if (ok) {
        memset(b.ring_of, 0xff, vb);
        ok = build_rings(&b) && build_grid(&b) && (!b.g.start || build_reps(&b));
        /* Walls that do not close into rings: no pockets at all, since a lid test that misses a
           wall could skip a corner a path needs. */
        for (uint32_t v = 0; ok && usable && v < nv; ++v)
            usable = next[v] == PTL_NONE || (next[v] != v && b.ring_of[v] < b.ring_count);
    }
    for (uint32_t r = 0; ok && usable && b.g.start && r < b.ring_count; ++r) ring_pockets(&b, r);
    if (!usable) memset(lid, 0xff, 2 * vb);
    ptl_mem_free(a, b.ring_of, vb);
    ptl_mem_free(a, b.rings, vb);
    ptl_mem_free(a, b.rstart, vb + sizeof(uint32_t));
    ptl_mem_free(a, b.stamp, ((size_t)nv + 1) * sizeof(uint32_t));
    ptl_mem_free(a, b.stack, 2 * vb);
    ptl_mem_free(a, b.pending, 8 * vb);
    ptl_mem_free(a, b.rep_start, b.rep_start ? ((size_t)b.g.nx * b.g.nz + 2) * sizeof(uint32_t) : 0);
    ptl_mem_free(a, b.reps, b.reps ? ((size_t)b.ring_count + 1) * sizeof(uint32_t) : 0);
    ptl_mem_free(a, b.g.start, b.g.start ? ((size_t)b.g.nx * b.g.nz + 2) * sizeof(uint32_t) : 0);
    ptl_mem_free(a, b.g.items, b.g.items ? b.g.item_count * sizeof(uint32_t) + 4 : 0);
    return ok ? PTL_OK : PTL_ERR_NO_MEMORY;
}

/* The pockets the bake's lids close: a flood from each lid's inner cell through every portal but
   lids. A flood that reaches the lid's other side, or a cell claimed twice, is a broken blob. */
static ptl_status lid_pockets(ptl_navmesh* nm, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    const ptl_allocator* a = &nm->alloc;
    const size_t cb = ((size_t)h->cell_count + 1) * sizeof(uint32_t), vb = ((size_t)h->vert_count + 1) * sizeof(uint32_t);
    nm->cell_lid = ptl_mem_alloc(a, cb);
    nm->vert_lid = ptl_mem_alloc(a, vb);
    uint32_t* is_lid = ptl_mem_calloc(a, (size_t)h->portal_count + 1, sizeof(uint32_t));
    uint8_t* lid_slot = ptl_mem_calloc(a, (size_t)h->cell_vert_total + 1, 1); /* cell edges that are lids */
    uint32_t* queue = ptl_mem_alloc(a, cb);
    ptl_status st = nm->cell_lid && nm->vert_lid && is_lid && lid_slot && queue ? PTL_OK : PTL_ERR_NO_MEMORY;
    if (st < 0) goto done;
    memset(nm->cell_lid, 0xff, cb);
    memset(nm->vert_lid, 0xff, vb);
    for (uint32_t i = 0; i < h->lid_count; ++i) {
        const ptl_blob_lid* l = &nm->lids[i];
        if (l->portal >= h->portal_count || is_lid[l->portal] ||
            (l->inner != nm->portals[l->portal].cell[0] && l->inner != nm->portals[l->portal].cell[1])) {
            st = ptl_error_set(err, PTL_ERR_BAD_BLOB, "navmesh blob: lid %u names a bad portal or cell", i);
            goto done;
        }
        is_lid[l->portal] = 1;
        const ptl_blob_portal* lp = &nm->portals[l->portal];
        lid_slot[nm->cells[lp->cell[0]].first + lp->edge[0]] = 1;
        lid_slot[nm->cells[lp->cell[1]].first + lp->edge[1]] = 1;
    }
    for (uint32_t i = 0; i < h->lid_count && st >= 0; ++i) {
        const ptl_blob_lid* l = &nm->lids[i];
        uint32_t head = 0, tail = 0;
        if (nm->cell_lid[l->inner] != PTL_NONE) st = PTL_ERR_BAD_BLOB;
        nm->cell_lid[l->inner] = i;
        queue[tail++] = l->inner;
        /* Through every portal but lids: a pocket holds no lid but its own (lids close disjoint
           pockets), so meeting another cell claimed, or a lid from inside other than at its own
           inner cell, means the lid does not close its pocket. */
        while (head < tail && st >= 0) {
            uint32_t c = queue[head++];
            const ptl_blob_cell* cell = &nm->cells[c];
            for (uint32_t k = 0; k < cell->vert_count; ++k) {
                uint32_t nb = nm->cell_nbrs[cell->first + k];
                if (nb == PTL_NONE || nm->cell_lid[nb] == i) continue;
                if (lid_slot[cell->first + k]) {
                    if (c != l->inner) st = PTL_ERR_BAD_BLOB;
                    continue;
                }
                if (nm->cell_lid[nb] != PTL_NONE) {
                    st = PTL_ERR_BAD_BLOB;
                    break;
                }
                nm->cell_lid[nb] = i;
                queue[tail++] = nb;
            }
        }
        if (st < 0) st = ptl_error_set(err, PTL_ERR_BAD_BLOB, "navmesh blob: lid %u does not close its pocket", i);
    }
    /* A vertex is inside a pocket when every cell around it is. */
    for (uint32_t v = 0; st >= 0 && v < h->vert_count; ++v) {
        uint32_t b = nm->vcell_start[v], e = nm->vcell_start[v + 1], id = b < e ? nm->cell_lid[nm->vcell[b]] : PTL_NONE;
        for (uint32_t k = b + 1; k < e && id != PTL_NONE; ++k)
            if (nm->cell_lid[nm->vcell[k]] != id) id = PTL_NONE;
        nm->vert_lid[v] = id;
    }
done:
    ptl_mem_free(a, is_lid, ((size_t)h->portal_count + 1) * sizeof(uint32_t));
    ptl_mem_free(a, lid_slot, (size_t)h->cell_vert_total + 1);
    ptl_mem_free(a, queue, cb);
    if (st == PTL_ERR_NO_MEMORY) st = ptl_error_set(err, st, "navmesh: out of memory");
    return st;
}

ptl_status ptl_nm_build_pockets(ptl_navmesh* nm, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    if (h->lid_count) return lid_pockets(nm, err);
    if (h->layer_count != 1 || h->link_count != 0 || h->height_count != 0) return PTL_OK;
    const uint32_t nv = h->vert_count;
    const ptl_allocator* a = &nm->alloc;
    const size_t vb = ((size_t)nv + 1) * sizeof(uint32_t);
    uint32_t* next = ptl_mem_alloc(a, vb);
    double* xz = ptl_mem_alloc(a, ((size_t)nv + 1) * 2 * sizeof(double));
    nm->pocket = ptl_mem_alloc(a, 2 * vb);
    ptl_status st = next && xz && nm->pocket ? PTL_OK : PTL_ERR_NO_MEMORY;
    if (st >= 0) {
        memset(next, 0xff, vb);
        for (uint32_t v = 0; v < nv; ++v) xz[2 * v] = ptl_nm_vx(nm, v), xz[2 * v + 1] = ptl_nm_vz(nm, v);
        for (uint32_t c = 0; c < h->cell_count; ++c) {
            const ptl_blob_cell* cell = &nm->cells[c];
            for (uint32_t i = 0; i < cell->vert_count; ++i) {
                if (nm->cell_nbrs[cell->first + i] != PTL_NONE) continue;
                uint32_t v = nm->cell_verts[cell->first + i];
                uint32_t w = nm->cell_verts[cell->first + (i + 1 == cell->vert_count ? 0 : i + 1)];
                next[v] = next[v] == PTL_NONE ? w : v; /* v: more than one (not expected) */
            }
        }
        st = ptl_pockets_find(nv, xz, next, a, nm->pocket);
    }
    /* A cell whose vertices are all under one lid or its ends lies inside that pocket (it is convex
       and on the pocket's side of the lid's line, and walls and lid close the pocket). */
    if (st >= 0) {
        nm->cell_pocket = ptl_mem_alloc(a, 2 * ((size_t)h->cell_count + 1) * sizeof(uint32_t));
        if (!nm->cell_pocket) st = PTL_ERR_NO_MEMORY;
    }
    for (uint32_t c = 0; st >= 0 && c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        uint32_t la = PTL_NONE, lb = PTL_NONE;
        bool in = true;
        for (uint32_t i = 0; i < cell->vert_count && in; ++i) {
            uint32_t v = nm->cell_verts[cell->first + i];
            if (nm->pocket[2 * v] == PTL_NONE) continue;
            if (la == PTL_NONE) la = nm->pocket[2 * v], lb = nm->pocket[2 * v + 1];
            else in = nm->pocket[2 * v] == la && nm->pocket[2 * v + 1] == lb;
        }
        for (uint32_t i = 0; i < cell->vert_count && in && la != PTL_NONE; ++i) {
            uint32_t v = nm->cell_verts[cell->first + i];
            in = v == la || v == lb || (nm->pocket[2 * v] == la && nm->pocket[2 * v + 1] == lb);
        }
        nm->cell_pocket[2 * c] = in ? la : PTL_NONE;
        nm->cell_pocket[2 * c + 1] = in ? lb : PTL_NONE;
    }
    ptl_mem_free(a, next, vb);
    ptl_mem_free(a, xz, ((size_t)nv + 1) * 2 * sizeof(double));
    if (st < 0) {
        ptl_mem_free(a, nm->pocket, nm->pocket ? 2 * vb : 0);
        ptl_mem_free(a, nm->cell_pocket, nm->cell_pocket ? 2 * ((size_t)h->cell_count + 1) * sizeof(uint32_t) : 0);
        nm->pocket = nm->cell_pocket = NULL;
    }
    return st < 0 ? ptl_error_set(err, st, "navmesh: out of memory") : st;
}
