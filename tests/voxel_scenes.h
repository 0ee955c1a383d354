/* Shared by the voxel tests (test_voxel.c, test_voxel_tiled.c): meshes built by hand, the voxel
   stages run on them with the invariants every layer set must keep, and an allocator that fails
   at the N-th call. */
#ifndef PTL_TEST_VOXEL_SCENES_H
#define PTL_TEST_VOXEL_SCENES_H

#include "test_util.h"

#include "../bake/layers/layer_map.h"
#include "../bake/voxel/tiles.h"

/* ---- Building meshes by hand --------------------------------------------------------------------*/

typedef struct mesh_b {
    float* v;
    uint32_t nv, cv;
    uint32_t* t;
    uint16_t* tag;
    uint32_t nt, ct;
} mesh_b;

static inline uint32_t mb_vert(mesh_b* b, float x, float y, float z) {
    if (b->nv == b->cv) b->v = realloc(b->v, 3 * sizeof(float) * (b->cv = b->cv ? 2 * b->cv : 64));
    b->v[3 * b->nv] = x, b->v[3 * b->nv + 1] = y, b->v[3 * b->nv + 2] = z;
    return b->nv++;
}

/* A triangle whose normal points along (nx, ny, nz) (the winding is chosen to match). */
static inline void mb_tri(mesh_b* b, const float* p0, const float* p1, const float* p2, float nx, float ny, float nz) {
    float e0[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, e1[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
    float n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]};
    bool flip = n[0] * nx + n[1] * ny + n[2] * nz < 0;
    if (b->nt == b->ct) {
        b->ct = b->ct ? 2 * b->ct : 64;
        b->t = realloc(b->t, 3 * sizeof(uint32_t) * b->ct);
        b->tag = realloc(b->tag, sizeof(uint16_t) * b->ct);
    }
    uint32_t a = mb_vert(b, p0[0], p0[1], p0[2]);
    uint32_t c1 = mb_vert(b, p1[0], p1[1], p1[2]);
    uint32_t c2 = mb_vert(b, p2[0], p2[1], p2[2]);
    b->t[3 * b->nt] = a, b->t[3 * b->nt + 1] = flip ? c2 : c1, b->t[3 * b->nt + 2] = flip ? c1 : c2;
    b->tag[b->nt++] = 0;
}

/* A planar quad p0 p1 p2 p3 (in order around it) facing along n. */
static inline void mb_quad(mesh_b* b, const float* p0, const float* p1, const float* p2, const float* p3, float nx, float ny,
                    float nz) {
    mb_tri(b, p0, p1, p2, nx, ny, nz);
    mb_tri(b, p0, p2, p3, nx, ny, nz);
}

/* A horizontal quad at height y over [x0, x1] x [z0, z1], facing up (floor) or down (ceiling). */
static inline void mb_floor(mesh_b* b, float x0, float z0, float x1, float z1, float y, bool up) {
    float p[4][3] = {{x0, y, z0}, {x1, y, z0}, {x1, y, z1}, {x0, y, z1}};
    mb_quad(b, p[0], p[1], p[2], p[3], 0, up ? 1.f : -1.f, 0);
}

/* A vertical quad in the plane x = const (z0..z1, y0..y1). */
static inline void mb_wall_x(mesh_b* b, float x, float z0, float z1, float y0, float y1) {
    float p[4][3] = {{x, y0, z0}, {x, y0, z1}, {x, y1, z1}, {x, y1, z0}};
    mb_quad(b, p[0], p[1], p[2], p[3], 1, 0, 0);
}

/* A closed box with outward faces; `top_up` false turns the top face downwards (not walkable). */
static inline void mb_box(mesh_b* b, float x0, float y0, float z0, float x1, float y1, float z1, bool top_up) {
    mb_floor(b, x0, z0, x1, z1, y1, top_up);
    mb_floor(b, x0, z0, x1, z1, y0, false);
    float c[8][3] = {{x0, y0, z0}, {x1, y0, z0}, {x1, y0, z1}, {x0, y0, z1},
                     {x0, y1, z0}, {x1, y1, z0}, {x1, y1, z1}, {x0, y1, z1}};
    mb_quad(b, c[0], c[1], c[5], c[4], 0, 0, -1);
    mb_quad(b, c[3], c[2], c[6], c[7], 0, 0, 1);
    mb_quad(b, c[0], c[3], c[7], c[4], -1, 0, 0);
    mb_quad(b, c[1], c[2], c[6], c[5], 1, 0, 0);
}

/* A ramp over [x0, x1] x [z0, z1] rising from y0 at x0 to y1 at x1 (top surface only). */
static inline void mb_ramp(mesh_b* b, float x0, float z0, float x1, float z1, float y0, float y1) {
    float p[4][3] = {{x0, y0, z0}, {x1, y1, z0}, {x1, y1, z1}, {x0, y0, z1}};
    mb_quad(b, p[0], p[1], p[2], p[3], 0, 1, 0);
}

static inline ptl_trimesh mb_mesh(const mesh_b* b) {
    ptl_trimesh m;
    memset(&m, 0, sizeof m);
    m.vert_count = b->nv, m.verts = b->v, m.tri_count = b->nt, m.tris = b->t, m.tri_tag = b->tag;
    return m;
}

static inline void mb_free(mesh_b* b) {
    free(b->v), free(b->t), free(b->tag);
    memset(b, 0, sizeof *b);
}

/* ---- Running the stages -------------------------------------------------------------------------*/

typedef struct run {
    ptl_vx_params p;
    ptl_heightfield hf;
    ptl_open_field of;
    ptl_layer_set ls;
} run;

static inline void run_stages(const ptl_trimesh* m, const ptl_bake_desc* d, const float* seeds, uint32_t nseeds, run* r) {
    ptl_error err;
    memset(r, 0, sizeof *r);
    cr_assert_eq(ptl_vx_params_resolve(d, m, &r->p, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_voxelize_trimesh(m, NULL, 0, &r->p, NULL, &r->hf, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_filter_build_open(&r->hf, NULL, &r->of, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_lmap_build_layers(&r->of, seeds, nseeds, NULL, &r->ls, &err), PTL_OK, "%s", err.message);
}

static inline void run_free(run* r) {
    ptl_layer_set_free(&r->ls);
    ptl_open_field_free(&r->of);
    ptl_heightfield_free(&r->hf);
}

/* The column of world point (x, z). */
static inline uint32_t col_at(const ptl_vx_params* p, float x, float z) {
    int cx = (int)floorf((x - p->bmin[0]) / p->cs), cz = (int)floorf((z - p->bmin[2]) / p->cs);
    cr_assert(cx >= 0 && cz >= 0 && cx < p->width && cz < p->depth, "point (%g, %g) is off the grid", x, z);
    return (uint32_t)cz * (uint32_t)p->width + (uint32_t)cx;
}

/* The open span of column c whose floor is nearest world height y, or PTL_VX_NONE. */
static inline uint32_t open_at(const run* r, float x, float y, float z) {
    uint32_t c = col_at(&r->p, x, z), best = PTL_VX_NONE;
    float bd = 1e30f;
    for (uint32_t s = ptl_filter_col_begin(&r->of, c); s < ptl_filter_col_end(&r->of, c); ++s) {
        float d = fabsf(r->p.bmin[1] + r->of.spans[s].floor * r->p.ch - y);
        if (d < bd) bd = d, best = s;
    }
    return best;
}

static inline uint32_t spans_in(const ptl_heightfield* hf, uint32_t c) {
    return hf->col_start[c + 1] - hf->col_start[c];
}

/* Checks the invariants every open field and layer set must keep. */
static inline void check_invariants(const run* r) {
    const ptl_open_field* of = &r->of;
    const uint32_t cols = (uint32_t)r->p.width * (uint32_t)r->p.depth;
    cr_assert_eq(ptl_filter_col_begin(of, cols), of->span_count);
    for (uint32_t c = 0; c < cols; ++c)
        for (uint32_t s = ptl_filter_col_begin(of, c); s < ptl_filter_col_end(of, c); ++s) {
            cr_assert_eq(ptl_filter_span_col(of, s), c);
            cr_assert(s == ptl_filter_col_begin(of, c) || of->spans[s - 1].ceil <= of->spans[s].floor, "spans sorted");
            cr_assert(of->spans[s].ceil - of->spans[s].floor >= r->p.walkable_height, "clearance");
            for (int d = 0; d < 4; ++d) {
                uint32_t t = ptl_filter_nbr(of, s, d);
                if (t == PTL_VX_NONE) continue;
                cr_assert_eq(ptl_filter_nbr(of, t, (d + 2) & 3), s, "links are mutual");
                cr_assert(abs((int)of->spans[t].floor - (int)of->spans[s].floor) <= r->p.walkable_climb);
            }
        }
    /* at most one span of a layer per column; every linked pair of layers overlaps in plan */
    uint32_t nl = r->ls.layer_count;
    uint32_t* seen = calloc(cols, sizeof(uint32_t));
    uint32_t* count = calloc(nl + 1, sizeof(uint32_t));
    for (uint32_t l = 0; l < nl; ++l) {
        memset(seen, 0, cols * sizeof(uint32_t));
        for (uint32_t s = 0; s < of->span_count; ++s)
            if (of->spans[s].layer == l) {
                cr_assert_eq(seen[ptl_filter_span_col(of, s)], 0, "layer %u covers column %u twice", l, ptl_filter_span_col(of, s));
                seen[ptl_filter_span_col(of, s)] = 1;
                ++count[l];
            }
        cr_assert_eq(count[l], r->ls.layers[l].span_count);
    }
    for (uint32_t s = 0; s < of->span_count; ++s) {
        uint32_t l = of->spans[s].layer;
        cr_assert(l == PTL_VX_NONE || l < nl);
        for (int d = 0; d < 4; ++d) {
            uint32_t t = ptl_filter_nbr(of, s, d);
            if (t != PTL_VX_NONE) cr_assert_eq(of->spans[t].layer == PTL_VX_NONE, l == PTL_VX_NONE, "reach is closed");
        }
    }
    /* The flood's rules hold across block borders too (layers.c floods blocks, layer_stitch.c
       stitches them): no two spans of one layer stand side by side unlinked; and every linked
       pair of different layers may not be one layer (they share a column, or two of their spans
       stand side by side unlinked), so no union was missed. */
    const uint32_t W = (uint32_t)r->p.width, D = (uint32_t)r->p.depth;
    uint8_t* conflict = calloc((size_t)(nl ? nl : 1) * (nl ? nl : 1), 1);
    uint8_t* linked = calloc((size_t)(nl ? nl : 1) * (nl ? nl : 1), 1);
    for (uint32_t c = 0; c < cols; ++c)
        for (uint32_t s = ptl_filter_col_begin(of, c); s < ptl_filter_col_end(of, c); ++s) {
            const uint32_t l = of->spans[s].layer;
            if (l == PTL_VX_NONE) continue;
            for (uint32_t t = s + 1; t < ptl_filter_col_end(of, c); ++t)
                if (of->spans[t].layer != PTL_VX_NONE)
                    conflict[(size_t)l * nl + of->spans[t].layer] = conflict[(size_t)of->spans[t].layer * nl + l] = 1;
            const uint32_t x = c % W, z = c / W;
            const bool in[4] = {x > 0, z + 1 < D, x + 1 < W, z > 0};
            for (int d = 0; d < 4; ++d) {
                if (!in[d]) continue;
                const uint32_t nc = ptl_filter_ncol(r->p.width, c, d), b = ptl_filter_col_begin(of, nc);
                for (uint32_t t = b; t < ptl_filter_col_end(of, nc); ++t) {
                    const uint32_t m = of->spans[t].layer;
                    if (m == PTL_VX_NONE) continue;
                    if (of->spans[s].con[d] == t - b) {
                        if (m != l) linked[(size_t)l * nl + m] = 1;
                        continue;
                    }
                    cr_assert_neq(m, l, "layer %u holds spans %u and %u side by side, unlinked", l, s, t);
                    conflict[(size_t)l * nl + m] = conflict[(size_t)m * nl + l] = 1;
                }
            }
        }
    for (size_t k = 0; k < (size_t)nl * nl; ++k)
        cr_assert(!linked[k] || conflict[k], "layers %zu and %zu are linked and could be one", k / nl, k % nl);
    free(conflict);
    free(linked);
    /* layer ids in the order of each layer's lowest span (floor, then z, then x: within one floor,
       the spans' memory order) */
    uint32_t next_id = 0;
    for (uint32_t fl = 0, left = of->span_count; left > 0; ++fl)
        for (uint32_t s = 0; s < of->span_count; ++s) {
            if (of->spans[s].floor != fl) continue;
            --left;
            uint32_t l = of->spans[s].layer;
            if (l == PTL_VX_NONE || l < next_id) continue;
            cr_assert_eq(l, next_id, "layer %u's lowest span (%u) comes before layer %u's", l, s, next_id);
            ++next_id;
        }
    cr_assert_eq(next_id, nl);
    free(seen);
    free(count);
}

/* Do layers a and b share a column? */
static inline bool layers_overlap(const run* r, uint32_t a, uint32_t b) {
    const ptl_open_field* of = &r->of;
    const uint32_t cols = (uint32_t)r->p.width * (uint32_t)r->p.depth;
    for (uint32_t c = 0; c < cols; ++c) {
        bool ha = false, hb = false;
        for (uint32_t s = ptl_filter_col_begin(of, c); s < ptl_filter_col_end(of, c); ++s)
            ha |= of->spans[s].layer == a, hb |= of->spans[s].layer == b;
        if (ha && hb) return true;
    }
    return false;
}

/* An allocator that fails at the N-th call, looped over N (SQLite style): every stage must fail
   cleanly with PTL_ERR_NO_MEMORY and give back every byte. */
typedef struct tracking {
    long calls, fail_at;
    long live_blocks;
    long long live_bytes;
} tracking;
static inline void* t_alloc(size_t size, void* user) {
    tracking* t = user;
    if (t->fail_at >= 0 && t->calls++ == t->fail_at) return NULL;
    void* p = malloc(size);
    if (p) t->live_blocks++, t->live_bytes += (long long)size;
    return p;
}
static inline void* t_realloc(void* p, size_t old_size, size_t new_size, void* user) {
    tracking* t = user;
    if (t->fail_at >= 0 && t->calls++ == t->fail_at) return NULL;
    void* q = realloc(p, new_size);
    if (q) t->live_bytes += (long long)new_size - (long long)old_size;
    return q;
}
static inline void t_free(void* p, size_t size, void* user) {
    tracking* t = user;
    if (!p) return;
    t->live_blocks--;
    t->live_bytes -= (long long)size;
    free(p);
}

/* A 12 x 4 floor with a bridge deck at 3 m over its middle, reached by 37 degree ramps from both
   ends, all 1.2 m wide. */
static inline void bridge_scene(mesh_b* b) {
    mb_floor(b, 0, 0, 12, 4, 0, true);
    mb_ramp(b, 0, 1.4f, 4, 2.6f, 0, 3);
    mb_floor(b, 4, 1.4f, 8, 2.6f, 3, true);
    mb_ramp(b, 12, 1.4f, 8, 2.6f, 0, 3);
}

#endif
