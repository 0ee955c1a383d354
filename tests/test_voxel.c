/* Tests of the voxel stages of the 3D bake (bake/voxel/): parameters, rasterization, filters,
   open field, layers and reachability. Hand-made meshes check each rule with counts worked out by
   hand; the real meshes of ../shared/data check that everything voxelizes, that bridges and the
   floors below them are different layers, and that the walkable voxel area stays within 3% of
   Recast's (numbers recorded from bench/peer_recast, see RECAST_SPANS). */
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

static uint32_t mb_vert(mesh_b* b, float x, float y, float z) {
    if (b->nv == b->cv) b->v = realloc(b->v, 3 * sizeof(float) * (b->cv = b->cv ? 2 * b->cv : 64));
    b->v[3 * b->nv] = x, b->v[3 * b->nv + 1] = y, b->v[3 * b->nv + 2] = z;
    return b->nv++;
}

/* A triangle whose normal points along (nx, ny, nz) (the winding is chosen to match). */
static void mb_tri(mesh_b* b, const float* p0, const float* p1, const float* p2, float nx, float ny, float nz) {
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
static void mb_quad(mesh_b* b, const float* p0, const float* p1, const float* p2, const float* p3, float nx, float ny,
                    float nz) {
    mb_tri(b, p0, p1, p2, nx, ny, nz);
    mb_tri(b, p0, p2, p3, nx, ny, nz);
}

/* A horizontal quad at height y over [x0, x1] x [z0, z1], facing up (floor) or down (ceiling). */
static void mb_floor(mesh_b* b, float x0, float z0, float x1, float z1, float y, bool up) {
    float p[4][3] = {{x0, y, z0}, {x1, y, z0}, {x1, y, z1}, {x0, y, z1}};
    mb_quad(b, p[0], p[1], p[2], p[3], 0, up ? 1.f : -1.f, 0);
}

/* A vertical quad in the plane x = const (z0..z1, y0..y1). */
static void mb_wall_x(mesh_b* b, float x, float z0, float z1, float y0, float y1) {
    float p[4][3] = {{x, y0, z0}, {x, y0, z1}, {x, y1, z1}, {x, y1, z0}};
    mb_quad(b, p[0], p[1], p[2], p[3], 1, 0, 0);
}

/* A closed box with outward faces; `top_up` false turns the top face downwards (not walkable). */
static void mb_box(mesh_b* b, float x0, float y0, float z0, float x1, float y1, float z1, bool top_up) {
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
static void mb_ramp(mesh_b* b, float x0, float z0, float x1, float z1, float y0, float y1) {
    float p[4][3] = {{x0, y0, z0}, {x1, y1, z0}, {x1, y1, z1}, {x0, y0, z1}};
    mb_quad(b, p[0], p[1], p[2], p[3], 0, 1, 0);
}

static ptl_trimesh mb_mesh(const mesh_b* b) {
    ptl_trimesh m;
    memset(&m, 0, sizeof m);
    m.vert_count = b->nv, m.verts = b->v, m.tri_count = b->nt, m.tris = b->t, m.tri_tag = b->tag;
    return m;
}

static void mb_free(mesh_b* b) {
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

static void run_stages(const ptl_trimesh* m, const ptl_bake_desc* d, const float* seeds, uint32_t nseeds, run* r) {
    ptl_error err;
    memset(r, 0, sizeof *r);
    cr_assert_eq(ptl_vx_params_resolve(d, m, &r->p, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_voxelize_trimesh(m, NULL, 0, &r->p, NULL, &r->hf, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_filter_build_open(&r->hf, NULL, &r->of, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_lmap_build_layers(&r->of, seeds, nseeds, NULL, &r->ls, &err), PTL_OK, "%s", err.message);
}

static void run_free(run* r) {
    ptl_layer_set_free(&r->ls);
    ptl_open_field_free(&r->of);
    ptl_heightfield_free(&r->hf);
}

/* The column of world point (x, z). */
static uint32_t col_at(const ptl_vx_params* p, float x, float z) {
    int cx = (int)floorf((x - p->bmin[0]) / p->cs), cz = (int)floorf((z - p->bmin[2]) / p->cs);
    cr_assert(cx >= 0 && cz >= 0 && cx < p->width && cz < p->depth, "point (%g, %g) is off the grid", x, z);
    return (uint32_t)cz * (uint32_t)p->width + (uint32_t)cx;
}

/* The open span of column c whose floor is nearest world height y, or PTL_VX_NONE. */
static uint32_t open_at(const run* r, float x, float y, float z) {
    uint32_t c = col_at(&r->p, x, z), best = PTL_VX_NONE;
    float bd = 1e30f;
    for (uint32_t s = ptl_filter_col_begin(&r->of, c); s < ptl_filter_col_end(&r->of, c); ++s) {
        float d = fabsf(r->p.bmin[1] + r->of.spans[s].floor * r->p.ch - y);
        if (d < bd) bd = d, best = s;
    }
    return best;
}

static uint32_t spans_in(const ptl_heightfield* hf, uint32_t c) {
    return hf->col_start[c + 1] - hf->col_start[c];
}

/* Checks the invariants every open field and layer set must keep. */
static void check_invariants(const run* r) {
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
static bool layers_overlap(const run* r, uint32_t a, uint32_t b) {
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

/* ---- Parameters ---------------------------------------------------------------------------------*/

Test(voxel, params_resolve_recast_defaults_and_exact_grid) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 3, 3, 0, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_OK, "%s", err.message);
    cr_expect_float_eq(p.cs, 0.3f, 1e-7f);
    cr_expect_float_eq(p.ch, 0.2f, 1e-7f);
    cr_expect_eq(p.walkable_height, 10);
    cr_expect_eq(p.walkable_climb, 4);
    cr_expect_eq(p.walkable_radius, 0);
    cr_expect_float_eq(p.walkable_slope_cos, cosf(45.0f / 180.0f * 3.14159265f), 1e-6f);
    cr_expect_eq(p.width, 10, "a 3 m floor is 10 columns of 0.3, not 11");
    cr_expect_eq(p.depth, 10);
    cr_expect_eq(p.walkable_both_sides, 0);
    ptl_bake_desc d = {.agent_radius = 0.6f};
    cr_assert_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_OK);
    cr_expect_eq(p.walkable_radius, 2);
    mb_free(&b);
}

Test(voxel, params_refuse_bad_descs_and_grids) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 3, 3, 0, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_error err;
    ptl_bake_desc d = {.cell_size = -1};
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_INVALID_ARG);
    d = (ptl_bake_desc){.max_slope = 95};
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_INVALID_ARG);
    d = (ptl_bake_desc){.agent_height = NAN};
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_INVALID_ARG);
    /* 2^28 columns at most */
    d = (ptl_bake_desc){.cell_size = 0.0001f};
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "2^28") != NULL, "%s", err.message);
    /* 65535 heights at most */
    b.v[1] = 20000;
    d = (ptl_bake_desc){0};
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "cell height") != NULL, "%s", err.message);
    b.v[1] = 0;
    /* no triangle */
    m.tri_count = 0;
    cr_expect_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_ERR_BAD_INPUT);
    mb_free(&b);
}

Test(voxel, far_offsets_work_until_float_spacing_exceeds_a_quarter_voxel) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);
    for (uint32_t i = 0; i < b.nv; ++i) b.v[3 * i] += 65536.0f, b.v[3 * i + 2] -= 65536.0f; /* float spacing 1/128 */
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    cr_expect_eq(r.of.span_count, 18 * 18, "a 6 m floor far away is still 20 x 20 columns less the ledge ring");
    run_free(&r);
    for (uint32_t i = 0; i < b.nv; ++i) b.v[3 * i] += 1e7f; /* float spacing 1 m */
    ptl_vx_params p;
    ptl_error err;
    cr_expect_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "floats are") != NULL, "%s", err.message);
    mb_free(&b);
}

/* ---- Rasterization ------------------------------------------------------------------------------*/

Test(voxel, flat_quad_is_one_layer_with_exact_column_count) {
    /* cell 0.25 is exact in binary: the quad's edges lie exactly on grid lines, which must not leak
       into the columns beyond them, here or at the shared edge of the two halves */
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 1.5f, 3, 1, true);
    mb_floor(&b, 1.5f, 0, 3, 3, 1, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.cell_size = 0.25f};
    run r;
    run_stages(&m, &d, NULL, 0, &r);
    cr_expect_eq(r.p.width, 12);
    cr_expect_eq(r.p.depth, 12);
    cr_expect_eq(r.hf.span_count, 144, "one span per column, no leak beyond the edges");
    for (uint32_t c = 0; c < 144; ++c) {
        cr_expect_eq(spans_in(&r.hf, c), 1);
        const ptl_vx_span* s = &r.hf.spans[r.hf.col_start[c]];
        cr_expect(s->walkable && s->smin == 0 && s->smax == 1, "flat floor at the grid's base: [0, 1)");
    }
    /* the outer ring is a ledge (a drop off the floor's edge), as in Recast */
    cr_expect_eq(r.of.span_count, 100);
    cr_expect_eq(r.ls.layer_count, 1);
    cr_expect_eq(r.ls.layers[0].span_count, 100);
    cr_expect(r.ls.layers[0].x0 == 1 && r.ls.layers[0].x1 == 10 && r.ls.layers[0].z0 == 1 && r.ls.layers[0].z1 == 10);
    check_invariants(&r);
    run_free(&r);
    mb_free(&b);
}

Test(voxel, thin_floors_and_walls_between_column_centres_are_not_lost) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);        /* the grid: 0..6 with cell 0.25 */
    mb_floor(&b, 1.06f, 1, 1.19f, 5, 2, true); /* a strip inside column 4 [1.0, 1.25], no centre */
    mb_floor(&b, 2.2f, 1, 2.3f, 5, 3, true);   /* a strip across the line x = 2.25: columns 8 and 9 */
    mb_wall_x(&b, 3.6f, 1, 5, 0, 2.5f);        /* a zero-thickness wall inside column 14 */
    mb_wall_x(&b, 4.5f, 1, 5, 0, 2.5f);        /* a wall exactly on the line between columns 17 and 18 */
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.cell_size = 0.25f, .cell_height = 0.25f};
    run r;
    run_stages(&m, &d, NULL, 0, &r);
    for (float z = 1.1f; z < 4.9f; z += 0.25f) {
        uint32_t c = col_at(&r.p, 1.1f, z);
        cr_expect_eq(spans_in(&r.hf, c), 2, "thin strip in its column (z %g)", z);
        cr_expect_eq(r.hf.spans[r.hf.col_start[c] + 1].smax, 8 + 1, "strip at y = 2: [8, 9)");
        cr_expect_eq(spans_in(&r.hf, col_at(&r.p, 0.9f, z)), 1);
        cr_expect_eq(spans_in(&r.hf, col_at(&r.p, 1.3f, z)), 1);
        for (int k = 8; k <= 9; ++k) cr_expect_eq(spans_in(&r.hf, (uint32_t)(col_at(&r.p, 0, z) + k)), 2);
        cr_expect_eq(spans_in(&r.hf, col_at(&r.p, 1.9f, z)), 1);
        cr_expect_eq(spans_in(&r.hf, col_at(&r.p, 2.6f, z)), 1);
        /* walls: one column tall [0, 10) (2.5 m), the one on the line in both columns beside it */
        uint32_t w[3] = {col_at(&r.p, 3.6f, z), col_at(&r.p, 4.4f, z), col_at(&r.p, 4.6f, z)};
        for (int k = 0; k < 3; ++k) {
            cr_expect_eq(spans_in(&r.hf, w[k]), 1);
            cr_expect_eq(r.hf.spans[r.hf.col_start[w[k]]].smax, 10, "wall column %d at z %g", k, z);
            cr_expect_eq(r.hf.spans[r.hf.col_start[w[k]]].walkable, 0);
        }
        cr_expect_eq(r.hf.spans[r.hf.col_start[col_at(&r.p, 3.4f, z)]].smax, 1, "nothing leaks beside the wall");
        cr_expect_eq(r.hf.spans[r.hf.col_start[col_at(&r.p, 4.8f, z)]].smax, 1);
    }
    run_free(&r);
    mb_free(&b);
}

Test(voxel, slopes_steeper_than_max_slope_are_not_walkable) {
    for (int k = 0; k < 2; ++k) {
        float deg = k == 0 ? 40.0f : 50.0f;
        mesh_b b = {0};
        mb_ramp(&b, 0, 0, 6, 6, 0, 6 * tanf(deg / 180.0f * 3.14159265f));
        ptl_trimesh m = mb_mesh(&b);
        run r;
        run_stages(&m, NULL, NULL, 0, &r);
        uint32_t walk = 0;
        for (uint32_t s = 0; s < r.hf.span_count; ++s) walk += r.hf.spans[s].walkable;
        if (k == 0) {
            cr_expect_eq(walk, r.hf.span_count, "a 40 degree ramp is walkable");
            cr_expect_gt(r.of.span_count, 0);
        } else {
            cr_expect_eq(walk, 0, "a 50 degree ramp is not");
            cr_expect_eq(r.of.span_count, 0);
        }
        run_free(&r);
        mb_free(&b);
    }
}

Test(voxel, winding_decides_up_unless_both_sides_are_asked_for) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 3, 3, 0, false); /* wound as a ceiling */
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_heightfield hf;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_OK);
    cr_assert_eq(ptl_voxelize_trimesh(&m, NULL, 0, &p, NULL, &hf, &err), PTL_OK);
    for (uint32_t s = 0; s < hf.span_count; ++s) cr_expect_eq(hf.spans[s].walkable, 0);
    ptl_heightfield_free(&hf);
    p.walkable_both_sides = 1;
    cr_assert_eq(ptl_voxelize_trimesh(&m, NULL, 0, &p, NULL, &hf, &err), PTL_OK);
    for (uint32_t s = 0; s < hf.span_count; ++s) cr_expect_eq(hf.spans[s].walkable, 1);
    ptl_heightfield_free(&hf);
    mb_free(&b);
}

Test(voxel, degenerate_triangles_are_solid_but_never_walkable) {
    mesh_b b = {0};
    float a[3] = {1, 1, 1}, c[3] = {1.5f, 1, 1.5f}, e[3] = {2, 1, 2}; /* collinear */
    mb_tri(&b, a, c, e, 0, 1, 0);
    float q[3] = {0, 0, 0};
    mb_tri(&b, q, q, q, 0, 1, 0); /* a point */
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_heightfield hf;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_OK);
    cr_assert_eq(ptl_voxelize_trimesh(&m, NULL, 0, &p, NULL, &hf, &err), PTL_OK);
    cr_expect_geq(hf.span_count, 8, "the diagonal segment crosses at least 7 columns, plus the point");
    for (uint32_t s = 0; s < hf.span_count; ++s) cr_expect_eq(hf.spans[s].walkable, 0);
    ptl_heightfield_free(&hf);
    mb_free(&b);
}

Test(voxel, spans_merge_with_walkable_top_within_climb) {
    /* a floor at y = 0 and a thin non-walkable post on it (0.1 m wide: both its walls fall in one
       column, so its span reaches the floor's): 0.5 m high (top voxel 3, 2 above the floor's top)
       the merged top is walkable, within climb; 1.3 m high (top voxel 7, 6 above) it is not */
    for (int k = 0; k < 2; ++k) {
        float h = k == 0 ? 0.5f : 1.3f;
        mesh_b b = {0};
        mb_floor(&b, 0, 0, 3, 3, 0, true);
        mb_box(&b, 1.35f, 0, 1.05f, 1.45f, h, 1.95f, false); /* top facing down: not walkable */
        ptl_trimesh m = mb_mesh(&b);
        run r;
        run_stages(&m, NULL, NULL, 0, &r);
        uint32_t c = col_at(&r.p, 1.4f, 1.5f);
        cr_assert_eq(spans_in(&r.hf, c), 1, "the floor and the post merge");
        const ptl_vx_span* s = &r.hf.spans[r.hf.col_start[c]];
        cr_expect_eq(s->smin, 0);
        cr_expect_eq(s->smax, (uint16_t)ceilf(h / 0.2f));
        cr_expect_eq(s->walkable, k == 0, "walkable top iff within climb of the floor (h = %g)", h);
        run_free(&r);
        mb_free(&b);
    }
}

Test(voxel, low_obstacle_on_a_walkable_span_becomes_walkable) {
    /* a hollow box 0.5 m high with a non-walkable top over a floor: inside it, the floor [0, 1)
       and the top [2, 3) are separate spans; the top is within climb of the walkable span below,
       so it becomes walkable (Recast's low hanging obstacles); the floor below loses clearance */
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);
    mb_box(&b, 1.05f, 0, 1.05f, 4.95f, 0.5f, 4.95f, false);
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    uint32_t c = col_at(&r.p, 3, 3);
    cr_assert_eq(spans_in(&r.hf, c), 2);
    cr_expect_eq(r.hf.spans[r.hf.col_start[c] + 1].walkable, 0, "not walkable as rasterized");
    uint32_t s = open_at(&r, 3, 0.5f, 3);
    cr_assert_neq(s, PTL_VX_NONE);
    cr_expect_eq(r.of.spans[s].floor, 3);
    cr_expect_eq(ptl_filter_col_end(&r.of, c) - ptl_filter_col_begin(&r.of, c), 1, "the floor under it has no clearance");
    run_free(&r);
    mb_free(&b);
}

Test(voxel, triangle_order_does_not_change_the_heightfield) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);
    mb_box(&b, 1, 0, 1, 2, 0.6f, 2, false);
    mb_box(&b, 3, 0.3f, 3, 4, 2.2f, 5, true);
    mb_ramp(&b, 2, 0, 5, 1, 0, 1.5f);
    mb_floor(&b, 0.5f, 0.5f, 5.5f, 5.5f, 2.6f, false);
    ptl_trimesh m = mb_mesh(&b);
    ptl_vx_params p;
    ptl_heightfield h1, h2;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(NULL, &m, &p, &err), PTL_OK);
    cr_assert_eq(ptl_voxelize_trimesh(&m, NULL, 0, &p, NULL, &h1, &err), PTL_OK);
    uint32_t* rev = malloc(sizeof(uint32_t) * b.nt);
    for (uint32_t i = 0; i < b.nt; ++i) rev[i] = b.nt - 1 - i;
    cr_assert_eq(ptl_voxelize_trimesh(&m, rev, b.nt, &p, NULL, &h2, &err), PTL_OK);
    cr_assert_eq(h1.span_count, h2.span_count);
    cr_expect_eq(memcmp(h1.spans, h2.spans, h1.span_count * sizeof *h1.spans), 0);
    cr_expect_eq(memcmp(h1.col_start, h2.col_start, ((size_t)p.width * p.depth + 1) * sizeof(uint32_t)), 0);
    free(rev);
    ptl_heightfield_free(&h1);
    ptl_heightfield_free(&h2);
    mb_free(&b);
}

/* ---- Filters ------------------------------------------------------------------------------------*/

Test(voxel, box_on_floor_removes_the_floor_under_it_and_its_top_needs_walkable_and_clearance) {
    /* floor 0..6, box (1.95..4.05)^2 x 0..2: columns 6..13 under the box (0.3 cells) */
    for (int k = 0; k < 3; ++k) {
        mesh_b b = {0};
        mb_floor(&b, 0, 0, 6, 6, 0, true);
        mb_box(&b, 1.95f, 0, 1.95f, 4.05f, 2, 4.05f, k != 1);
        if (k == 2) mb_floor(&b, 1, 1, 5, 5, 3.5f, false); /* a ceiling 1.5 m above the box top */
        ptl_trimesh m = mb_mesh(&b);
        run r;
        run_stages(&m, NULL, NULL, 0, &r);
        uint32_t on_box = 0;
        for (uint32_t s = 0; s < r.of.span_count; ++s) {
            uint32_t c = ptl_filter_span_col(&r.of, s);
            int x = (int)(c % (uint32_t)r.p.width), z = (int)(c / (uint32_t)r.p.width);
            bool inside = x >= 6 && x <= 13 && z >= 6 && z <= 13;
            if (inside) {
                cr_expect_eq(r.of.spans[s].floor, 10, "no floor under the box, only its top (y = 2)");
                ++on_box;
            }
        }
        /* the top's rim is a ledge (2 m drop): 6 x 6 left when walkable with open sky */
        cr_expect_eq(on_box, k == 0 ? 36u : 0u, "case %d", k);
        if (k == 0) {
            uint32_t top = open_at(&r, 3, 2, 3), ground = open_at(&r, 0.5f, 0, 0.5f);
            cr_assert_neq(top, PTL_VX_NONE);
            cr_assert_neq(ground, PTL_VX_NONE);
            cr_expect_neq(r.of.spans[top].layer, r.of.spans[ground].layer, "the roof is a layer of its own");
        }
        check_invariants(&r);
        run_free(&r);
        mb_free(&b);
    }
}

Test(voxel, low_ceiling_removes_floor_clearance) {
    for (int k = 0; k < 2; ++k) {
        float ceil_y = k == 0 ? 1.5f : 2.2f;
        mesh_b b = {0};
        mb_floor(&b, 0, 0, 9, 6, 0, true);
        mb_box(&b, 3, ceil_y, -1, 6, ceil_y + 0.3f, 7, true); /* a slab across the floor */
        ptl_trimesh m = mb_mesh(&b);
        run r;
        run_stages(&m, NULL, NULL, 0, &r);
        uint32_t s = open_at(&r, 4.5f, 0, 3);
        if (k == 0) {
            cr_expect(s == PTL_VX_NONE || r.of.spans[s].floor > 5, "no floor under a 1.5 m ceiling");
        } else {
            cr_assert_neq(s, PTL_VX_NONE, "a 2.2 m ceiling leaves room");
            cr_expect_eq(r.of.spans[s].floor, 1);
            cr_expect_eq(r.of.spans[s].ceil, 11, "the slab's bottom, floor(2.2 / 0.2)");
        }
        check_invariants(&r);
        run_free(&r);
        mb_free(&b);
    }
}

Test(voxel, stairs_with_small_risers_are_one_layer) {
    /* ground 0..4 x 0..3 at y = 0, 12 steps of 0.18 m x 0.3 m from x = 4, a landing at 2.16 m */
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 4, 3, 0, true);
    for (int i = 0; i < 12; ++i) {
        float x0 = 4 + 0.3f * (float)i;
        mb_box(&b, x0, 0, 0, x0 + 0.3f, 0.18f * (float)(i + 1), 3, true);
    }
    mb_box(&b, 7.6f, 0, 0, 11, 2.16f, 3, true);
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    cr_expect_eq(r.ls.layer_count, 1);
    uint32_t lo = open_at(&r, 1, 0, 1.5f), hi = open_at(&r, 10, 2.16f, 1.5f);
    cr_assert(lo != PTL_VX_NONE && hi != PTL_VX_NONE);
    cr_expect_eq(r.of.spans[lo].layer, r.of.spans[hi].layer);
    cr_expect_eq(r.ls.layers[0].span_count, r.of.span_count);
    check_invariants(&r);
    run_free(&r);
    mb_free(&b);
}

/* A 12 x 4 floor with a bridge deck at 3 m over its middle, reached by 37 degree ramps from both
   ends, all 1.2 m wide. */
static void bridge_scene(mesh_b* b) {
    mb_floor(b, 0, 0, 12, 4, 0, true);
    mb_ramp(b, 0, 1.4f, 4, 2.6f, 0, 3);
    mb_floor(b, 4, 1.4f, 8, 2.6f, 3, true);
    mb_ramp(b, 12, 1.4f, 8, 2.6f, 0, 3);
}

Test(voxel, bridge_over_floor_makes_layers_that_do_not_share_columns) {
    mesh_b b = {0};
    bridge_scene(&b);
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    uint32_t deck = open_at(&r, 6, 3, 2), under = open_at(&r, 6, 0, 2), side = open_at(&r, 6, 0, 0.6f);
    cr_assert(deck != PTL_VX_NONE && under != PTL_VX_NONE && side != PTL_VX_NONE);
    uint32_t ld = r.of.spans[deck].layer, lu = r.of.spans[under].layer;
    cr_expect_neq(ld, lu, "deck and floor below are different layers");
    cr_expect_eq(r.of.spans[side].layer, lu);
    cr_expect_geq(r.ls.layer_count, 2);
    cr_expect(layers_overlap(&r, ld, lu), "they overlap in plan, which is why they are two layers");
    check_invariants(&r); /* and no layer has two spans in one column */
    run_free(&r);
    mb_free(&b);
}

/* The flood takes its spans a range of floors at a time (layers.c, flood_layers), in buffers of
   max(n / 8, 4096) spans: a ground of about 17,000 columns is one floor visited in pieces, and the
   platforms stacked above it and the bridge's ramps make ranges of several floors. */
Test(voxel, layer_flood_in_floor_ranges_and_pieces_keeps_every_invariant) {
    mesh_b b = {0};
    mb_floor(&b, -30, -30, 10, 10, 0, true);
    for (int i = 1; i <= 12; ++i) mb_floor(&b, -28, -28, -20, -20, 2.5f * (float)i, true);
    for (int i = 0; i < 3; ++i) mb_box(&b, -18 + 4 * (float)i, 0, -10, -16 + 4 * (float)i, 3 + (float)i, -8, true);
    bridge_scene(&b);
    ptl_trimesh m = mb_mesh(&b);
    run r;
    run_stages(&m, NULL, NULL, 0, &r);
    cr_assert_gt(r.of.span_count, 2 * 4096, "%u open spans", r.of.span_count);
    bool sorted = true;
    for (uint32_t s = 1; s < r.of.span_count; ++s) sorted = sorted && r.of.spans[s].floor >= r.of.spans[s - 1].floor;
    cr_assert(!sorted, "floors out of memory order: the flood gathers them");
    uint32_t* per_floor = calloc(PTL_VX_MAX_HEIGHT + 1, sizeof *per_floor), most = 0, floors = 0;
    for (uint32_t s = 0; s < r.of.span_count; ++s) floors += per_floor[r.of.spans[s].floor]++ == 0;
    for (uint32_t h = 0; h <= PTL_VX_MAX_HEIGHT; ++h) most = per_floor[h] > most ? per_floor[h] : most;
    free(per_floor);
    const uint32_t cap = r.of.span_count / 8 > 4096 ? r.of.span_count / 8 : 4096;
    cr_assert_gt(most, cap, "a floor of %u spans, more than a buffer of %u", most, cap);
    cr_assert_gt(floors, 12, "%u floors", floors);
    uint32_t deck = open_at(&r, 6, 3, 2), under = open_at(&r, 6, 0, 2);
    cr_assert(deck != PTL_VX_NONE && under != PTL_VX_NONE);
    cr_expect_neq(r.of.spans[deck].layer, r.of.spans[under].layer, "deck and floor below are different layers");
    uint32_t low = open_at(&r, -24, 2.5f, -24), high = open_at(&r, -24, 30, -24);
    cr_assert(low != PTL_VX_NONE && high != PTL_VX_NONE && low != high);
    cr_expect_neq(r.of.spans[low].layer, r.of.spans[high].layer, "stacked platforms are layers of their own");
    check_invariants(&r); /* layer ids in the order of their lowest spans, one span per layer per column */
    run_free(&r);
    mb_free(&b);
}

Test(voxel, erosion_by_radius_removes_two_columns_along_walls) {
    /* floor 0..6 (20 columns of 0.3), walls 0.2 m thick inside the edge columns (off the grid
       lines): 18 x 18 walkable columns; radius 0.6 = 2 columns removes 2 rings: 14 x 14 */
    for (int k = 0; k < 2; ++k) {
        mesh_b b = {0};
        mb_floor(&b, 0, 0, 6, 6, 0, true);
        mb_box(&b, 0.05f, 0, 0.05f, 0.25f, 2.5f, 5.95f, true);
        mb_box(&b, 5.75f, 0, 0.05f, 5.95f, 2.5f, 5.95f, true);
        mb_box(&b, 0.05f, 0, 0.05f, 5.95f, 2.5f, 0.25f, true);
        mb_box(&b, 0.05f, 0, 5.75f, 5.95f, 2.5f, 5.95f, true);
        ptl_trimesh m = mb_mesh(&b);
        ptl_bake_desc d = {.agent_radius = k == 0 ? 0 : 0.6f};
        run r;
        run_stages(&m, &d, NULL, 0, &r);
        uint32_t ground = 0;
        for (uint32_t s = 0; s < r.of.span_count; ++s) ground += r.of.spans[s].floor == 1;
        cr_expect_eq(ground, k == 0 ? 18u * 18u : 14u * 14u, "radius %d", k);
        check_invariants(&r);
        run_free(&r);
        mb_free(&b);
    }
}

/* ---- Layers and reachability --------------------------------------------------------------------*/

Test(voxel, seeds_drop_an_unreachable_island) {
    mesh_b b = {0};
    mb_floor(&b, 0, 0, 6, 6, 0, true);
    mb_floor(&b, 10, 0, 14, 4, 1, true); /* an island */
    ptl_trimesh m = mb_mesh(&b);
    run all;
    run_stages(&m, NULL, NULL, 0, &all);
    cr_expect_eq(all.ls.layer_count, 2);
    float seed[3] = {3, 0.1f, 3};
    run r;
    run_stages(&m, NULL, seed, 1, &r);
    cr_expect_eq(r.ls.layer_count, 1);
    cr_expect_eq(r.ls.seeds_found, 1);
    cr_expect_eq(r.ls.dropped_layers, 1);
    uint32_t kept = open_at(&r, 3, 0, 3), gone = open_at(&r, 12, 1, 2);
    cr_expect_eq(r.of.spans[kept].layer, 0);
    cr_expect_eq(r.of.spans[gone].layer, PTL_VX_NONE);
    cr_expect_eq(r.ls.layers[0].span_count, 18 * 18);
    check_invariants(&r);
    run_free(&r);
    /* a seed on the island keeps the island only; a seed over nothing is an error */
    float seed2[3] = {12, 1.5f, 2};
    run_stages(&m, NULL, seed2, 1, &r);
    cr_expect_eq(r.ls.layer_count, 1);
    cr_expect_eq(r.of.spans[open_at(&r, 12, 1, 2)].layer, 0);
    run_free(&r);
    float nowhere[3] = {8, 0, 2};
    ptl_layer_set ls;
    ptl_error err;
    cr_expect_eq(ptl_lmap_build_layers(&all.of, nowhere, 1, NULL, &ls, &err), PTL_ERR_BAD_INPUT);
    cr_expect(strstr(err.message, "seed") != NULL, "%s", err.message);
    run_free(&all);
    mb_free(&b);
}

Test(voxel, seeds_keep_layers_linked_to_theirs) {
    mesh_b b = {0};
    bridge_scene(&b);
    mb_floor(&b, 20, 0, 24, 4, 0, true); /* an island */
    ptl_trimesh m = mb_mesh(&b);
    float seed[3] = {6, 3.2f, 2}; /* on the deck */
    run r;
    run_stages(&m, NULL, seed, 1, &r);
    uint32_t under = open_at(&r, 6, 0, 2), island = open_at(&r, 22, 0, 2);
    cr_expect_neq(r.of.spans[under].layer, PTL_VX_NONE, "the floor is reached through the ramps");
    cr_expect_eq(r.of.spans[island].layer, PTL_VX_NONE);
    cr_expect_eq(r.ls.dropped_layers, 1);
    check_invariants(&r);
    run_free(&r);
    mb_free(&b);
}

Test(voxel, two_runs_give_identical_spans_and_layers) {
    mesh_b b = {0};
    bridge_scene(&b);
    mb_box(&b, 1, 0, 0.2f, 2, 1, 1, true);
    for (int i = 0; i < 6; ++i) mb_box(&b, 0.5f + 1.7f * (float)i, 0, 3.2f, 1.1f + 1.7f * (float)i, 0.3f * (float)i, 3.8f, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.agent_radius = 0.3f};
    run r1, r2;
    run_stages(&m, &d, NULL, 0, &r1);
    run_stages(&m, &d, NULL, 0, &r2);
    cr_assert_eq(r1.hf.span_count, r2.hf.span_count);
    cr_expect_eq(memcmp(r1.hf.spans, r2.hf.spans, r1.hf.span_count * sizeof *r1.hf.spans), 0);
    cr_assert_eq(r1.of.span_count, r2.of.span_count);
    cr_expect_eq(memcmp(r1.of.spans, r2.of.spans, r1.of.span_count * sizeof *r1.of.spans), 0);
    cr_assert_eq(r1.ls.layer_count, r2.ls.layer_count);
    cr_expect_eq(memcmp(r1.ls.layers, r2.ls.layers, r1.ls.layer_count * sizeof *r1.ls.layers), 0);
    run_free(&r1);
    run_free(&r2);
    mb_free(&b);
}

/* An allocator that fails at the N-th call, looped over N (SQLite style): every stage must fail
   cleanly with PTL_ERR_NO_MEMORY and give back every byte. */
typedef struct tracking {
    long calls, fail_at;
    long live_blocks;
    long long live_bytes;
} tracking;
static void* t_alloc(size_t size, void* user) {
    tracking* t = user;
    if (t->fail_at >= 0 && t->calls++ == t->fail_at) return NULL;
    void* p = malloc(size);
    if (p) t->live_blocks++, t->live_bytes += (long long)size;
    return p;
}
static void* t_realloc(void* p, size_t old_size, size_t new_size, void* user) {
    tracking* t = user;
    if (t->fail_at >= 0 && t->calls++ == t->fail_at) return NULL;
    void* q = realloc(p, new_size);
    if (q) t->live_bytes += (long long)new_size - (long long)old_size;
    return q;
}
static void t_free(void* p, size_t size, void* user) {
    tracking* t = user;
    if (!p) return;
    t->live_blocks--;
    t->live_bytes -= (long long)size;
    free(p);
}

Test(voxel, out_of_memory_at_every_allocation_fails_cleanly) {
    mesh_b b = {0};
    bridge_scene(&b);
    mb_floor(&b, 20, 0, 24, 4, 0, true);
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.agent_radius = 0.3f};
    float seed[3] = {6, 3.2f, 2};
    ptl_vx_params p;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_OK);
    bool succeeded = false;
    for (long n = 0; n < 100000 && !succeeded; ++n) {
        tracking t = {0, n, 0, 0};
        ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
        ptl_heightfield hf;
        ptl_open_field of;
        ptl_layer_set ls;
        ptl_status st = ptl_voxelize_trimesh(&m, NULL, 0, &p, &a, &hf, &err);
        if (st >= 0) {
            st = ptl_filter_build_open(&hf, &a, &of, &err);
            ptl_heightfield_free(&hf);
            if (st >= 0) {
                st = ptl_lmap_build_layers(&of, seed, 1, &a, &ls, &err);
                if (st >= 0) ptl_layer_set_free(&ls);
                ptl_open_field_free(&of);
            }
        }
        cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "failing at call %ld: %s", n, err.message);
        succeeded = st == PTL_OK;
        cr_assert_eq(t.live_blocks, 0, "failing at call %ld leaks %ld blocks", n, t.live_blocks);
        cr_assert_eq(t.live_bytes, 0, "failing at call %ld leaks %lld bytes", n, t.live_bytes);
    }
    cr_expect(succeeded);
    mb_free(&b);
}

/* ---- The open field's column index --------------------------------------------------------------*/

/* Pushes the starts of columns whose span counts are count[0 .. cols) (then the end) into a
   compact index; false when a push fails. */
static bool push_counts(ptl_vx_col_index* x, const uint32_t* count, uint32_t cols, const ptl_allocator* a) {
    uint32_t start = 0;
    for (uint32_t c = 0; c < cols; ++c) {
        if (!ptl_col_index_push(x, start, a)) return false;
        start += count[c];
    }
    return ptl_col_index_push(x, start, a);
}

/* Does entry c of x read as the sum of count[0 .. c)? */
static void expect_starts(const ptl_vx_col_index* x, const uint32_t* count, uint32_t entries, const char* what) {
    uint32_t start = 0;
    for (uint32_t c = 0; c < entries; ++c) {
        cr_assert_eq(ptl_col_index_at(x, c), start, "%s: column %u starts at %u, read %u", what, c, start,
                     ptl_col_index_at(x, c));
        if (c + 1 < entries) start += count[c];
    }
}

Test(voxel, column_index_reads_every_start_back_at_1_2_and_4_bytes) {
    enum { N = 200 };
    static uint32_t count[N];
    const struct {
        const char* what;
        uint32_t cols, width;
    } cases[] = {
        {"sparse", N, 1},        {"20 floors a column", 100, 2}, {"a column of 70000", 64, 4},
        {"300, then 70000", 64, 4}, {"whole blocks, 20 floors", 32, 2}, {"no column", 0, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        memset(count, 0, sizeof count);
        for (uint32_t c = 0; c < cases[k].cols; ++c) {
            if (k == 0) count[c] = c % 7 == 0 ? 3 : 0;
            if (k == 1 || k == 4) count[c] = 20;
            if (k == 2) count[c] = c == 5 ? 70000 : 1;
            if (k == 3) count[c] = c == 3 ? 300 : c == 20 ? 70000 : 2;
        }
        tracking t = {0, -1, 0, 0};
        ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
        ptl_vx_col_index x;
        cr_assert_eq(ptl_col_index_init(&x, cases[k].cols, 1, &a), PTL_OK);
        cr_assert(push_counts(&x, count, cases[k].cols, &a), "%s", cases[k].what);
        cr_expect_eq(x.width, cases[k].width, "%s: %u bytes a column, expected %u", cases[k].what, x.width,
                     cases[k].width);
        cr_expect_eq(x.filled, cases[k].cols + 1);
        expect_starts(&x, count, cases[k].cols + 1, cases[k].what);
        ptl_col_index_free(&x, &a);
        cr_expect(t.live_blocks == 0 && t.live_bytes == 0, "%s: %ld blocks, %lld bytes not given back (or given back "
                  "with other sizes)", cases[k].what, t.live_blocks, t.live_bytes);
        /* the plain index reads the same */
        cr_assert_eq(ptl_col_index_init(&x, cases[k].cols, 4, &a), PTL_OK);
        cr_assert(push_counts(&x, count, cases[k].cols, &a));
        cr_expect_eq(x.width, 4);
        cr_expect_null(x.base);
        expect_starts(&x, count, cases[k].cols + 1, cases[k].what);
        ptl_col_index_free(&x, &a);
        cr_expect(t.live_blocks == 0 && t.live_bytes == 0);
    }
}

Test(voxel, column_index_out_of_memory_while_widening_keeps_what_was_pushed) {
    enum { N = 64 };
    uint32_t count[N];
    for (uint32_t c = 0; c < N; ++c) count[c] = c == 3 ? 300 : c == 20 ? 70000 : 2; /* widens twice */
    bool succeeded = false;
    for (long n = 0; n < 100 && !succeeded; ++n) {
        tracking t = {0, n, 0, 0};
        ptl_allocator a = {t_alloc, t_realloc, t_free, &t};
        ptl_vx_col_index x;
        if (ptl_col_index_init(&x, N, 1, &a) < 0) {
            cr_assert_null(x.off.any);
            continue;
        }
        succeeded = push_counts(&x, count, N, &a);
        expect_starts(&x, count, x.filled, "pushed before the failure");
        ptl_col_index_free(&x, &a);
        cr_assert(t.live_blocks == 0 && t.live_bytes == 0, "failing at call %ld: %ld blocks, %lld bytes left", n,
                  t.live_blocks, t.live_bytes);
    }
    cr_expect(succeeded);
}

/* Floors stacked every 2.5 m over an 8 x 8 m square: about 20 open spans in each column, so a
   block of 16 columns holds more than 255 and the index needs 2 bytes a column. */
static void stacked_scene(mesh_b* b, int floors) {
    for (int i = 0; i < floors; ++i) mb_floor(b, 0, 0, 8, 8, 2.5f * (float)i, true);
}

/* The world's field of a tiled bake (tiles of 16 columns) against the one-piece field. */
static void expect_tiled_field_is_one_piece(const ptl_trimesh* m, uint32_t width) {
    ptl_bake_desc d = {.agent_radius = 0.3f};
    run r;
    run_stages(m, &d, NULL, 0, &r);
    ptl_vx_tiling t;
    ptl_error err;
    cr_assert_eq(ptl_tiles_tiling_init(&r.p, 16, &t, &err), PTL_OK);
    cr_assert_gt(t.tiles_x * t.tiles_z, 1, "several tiles");
    ptl_open_field of;
    uint32_t solid;
    cr_assert_eq(ptl_tiles_bake(m, &r.p, &t, NULL, NULL, true, &of, &solid, &err), PTL_OK, "%s", err.message);
    cr_expect_eq(of.col_index.width, width, "%u bytes a column, expected %u", of.col_index.width, width);
    cr_expect_eq(r.of.col_index.width, 4, "ptl_filter_build_open's index is plain");
    const uint32_t cols = (uint32_t)r.p.width * (uint32_t)r.p.depth;
    cr_assert_eq(of.span_count, r.of.span_count);
    for (uint32_t c = 0; c <= cols; ++c)
        cr_assert_eq(ptl_col_index_at(&of.col_index, c), ptl_col_index_at(&r.of.col_index, c), "column %u", c);
    for (uint32_t s = 0; s < r.of.span_count; ++s) r.of.spans[s].layer = PTL_VX_NONE; /* as they were before layers */
    cr_expect_eq(memcmp(of.spans, r.of.spans, (size_t)of.span_count * sizeof *of.spans), 0);
    cr_expect_eq(memcmp(of.col_of, r.of.col_of, (size_t)of.span_count * sizeof *of.col_of), 0);
    ptl_open_field_free(&of);
    /* Without the ceilings (the bake's default), the spans hold their columns: the same field but
       for ceil and pad, no col_of. */
    cr_assert_eq(ptl_tiles_bake(m, &r.p, &t, NULL, NULL, false, &of, &solid, &err), PTL_OK, "%s", err.message);
    cr_expect_null(of.col_of);
    cr_assert_eq(of.span_count, r.of.span_count);
    for (uint32_t s = 0; s < of.span_count; ++s) {
        cr_assert_eq(ptl_filter_span_col(&of, s), r.of.col_of[s], "span %u's column", s);
        ptl_open_span x = of.spans[s], y = r.of.spans[s];
        x.ceil = y.ceil, x.pad = y.pad;
        cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "span %u", s);
        for (int d = 0; d < 4; ++d) cr_assert_eq(ptl_filter_nbr(&of, s, d), ptl_filter_nbr(&r.of, s, d), "span %u", s);
    }
    ptl_open_field_free(&of);
    run_free(&r);
}

Test(voxel, tiled_world_field_has_a_compact_index_reading_as_the_one_piece_one) {
    mesh_b b = {0};
    bridge_scene(&b);
    ptl_trimesh m = mb_mesh(&b);
    expect_tiled_field_is_one_piece(&m, 1);
    mb_free(&b);
    stacked_scene(&b, 20);
    m = mb_mesh(&b);
    expect_tiled_field_is_one_piece(&m, 2);
    mb_free(&b);
}

/* Tiled bakes (ptl_tiles_bake, and ptl_tiles_build + ptl_tiles_assemble) with an
   allocator failing at its n-th call; returns the status, everything freed. */
static ptl_status tiled_once(const ptl_trimesh* m, const ptl_vx_params* p, const ptl_vx_tiling* t, bool assemble,
                             const ptl_allocator* a) {
    ptl_error err;
    ptl_open_field of;
    ptl_status st;
    if (!assemble) {
        uint32_t solid;
        st = ptl_tiles_bake(m, p, t, NULL, a, false, &of, &solid, &err);
    } else {
        const int32_t all[4] = {0, 0, t->tiles_x, t->tiles_z};
        ptl_vx_tile* tiles = NULL;
        uint32_t n = 0;
        st = ptl_tiles_build(m, p, t, all, NULL, a, &tiles, &n, &err);
        if (st < 0) return st;
        const ptl_vx_tile* list[64];
        cr_assert_leq(n, 64);
        for (uint32_t i = 0; i < n; ++i) list[i] = &tiles[n - 1 - i]; /* any order */
        st = ptl_tiles_assemble(p, t, list, n, a, &of, &err);
        for (uint32_t i = 0; i < n; ++i) ptl_tiles_tile_free(&tiles[i], a);
        a->free(tiles, (size_t)n * sizeof *tiles, a->user); /* the array came from a (ptl_tiles_build) */
    }
    if (st >= 0) ptl_open_field_free(&of);
    return st;
}

Test(voxel, tiled_assembly_out_of_memory_at_every_allocation_fails_cleanly) {
    mesh_b b = {0};
    stacked_scene(&b, 20); /* the index widens to 2 bytes on the way */
    ptl_trimesh m = mb_mesh(&b);
    ptl_bake_desc d = {.agent_radius = 0.3f};
    ptl_vx_params p;
    ptl_vx_tiling t;
    ptl_error err;
    cr_assert_eq(ptl_vx_params_resolve(&d, &m, &p, &err), PTL_OK);
    cr_assert_eq(ptl_tiles_tiling_init(&p, 16, &t, &err), PTL_OK);
    for (int assemble = 0; assemble < 2; ++assemble) {
        bool succeeded = false;
        for (long n = 0; n < 100000 && !succeeded; ++n) {
            tracking f = {0, n, 0, 0};
            ptl_allocator a = {t_alloc, t_realloc, t_free, &f};
            ptl_status st = tiled_once(&m, &p, &t, assemble, &a);
            cr_assert(st == PTL_OK || st == PTL_ERR_NO_MEMORY, "failing at call %ld: %s", n, ptl_status_name(st));
            succeeded = st == PTL_OK;
            cr_assert(f.live_blocks == 0 && f.live_bytes == 0, "%s failing at call %ld: %ld blocks, %lld bytes left",
                      assemble ? "assemble" : "tiles_bake", n, f.live_blocks, f.live_bytes);
        }
        cr_expect(succeeded);
    }
    mb_free(&b);
}

/* ---- Real meshes --------------------------------------------------------------------------------*/

static void reference_desc(ptl_bake_desc* d) {
    memset(d, 0, sizeof *d);
    d->cell_size = 0.3f, d->cell_height = 0.2f, d->agent_height = 2.0f, d->agent_radius = 0.6f;
    d->max_climb = 0.9f, d->max_slope = 45.0f;
}

static bool load_mesh(const char* data, const char* name, ptl_trimesh* m) {
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/%s", data, name);
    ptl_error err;
    ptl_status st = ptl_obj_load(path, NULL, m, &err);
    cr_assert_eq(st, PTL_OK, "%s: %s", path, err.message);
    return true;
}

Test(voxel, every_shared_obj_voxelizes_and_layers_with_recast_reference_parameters) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** files = test_list_files(dir, ".obj");
    int n = 0;
    ptl_bake_desc d;
    reference_desc(&d);
    for (char** f = files; *f; ++f, ++n) {
        ptl_trimesh m;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(*f, NULL, &m, &err), PTL_OK, "%s: %s", *f, err.message);
        run r;
        run_stages(&m, &d, NULL, 0, &r);
        cr_expect_gt(r.of.span_count, 0, "%s has walkable space", *f);
        cr_expect_gt(r.ls.layer_count, 0, "%s", *f);
        check_invariants(&r);
        run_free(&r);
        ptl_trimesh_free(&m);
    }
    cr_expect_geq(n, 10, "the shared meshes are there");
    test_free_list(files);
}

Test(voxel, nav_test_bridges_and_the_floor_below_are_different_layers) {
    TEST_REQUIRE_DATA(data);
    ptl_trimesh m;
    load_mesh(data, "nav_test.obj", &m);
    ptl_bake_desc d;
    reference_desc(&d);
    run r;
    run_stages(&m, &d, NULL, 0, &r);
    /* pairs of layers whose columns overlap in plan: bridges over floors, floors over floors */
    const uint32_t cols = (uint32_t)r.p.width * (uint32_t)r.p.depth, nl = r.ls.layer_count;
    uint8_t* pair = calloc((size_t)nl * nl, 1);
    uint32_t overlapping = 0;
    for (uint32_t c = 0; c < cols; ++c)
        for (uint32_t s = ptl_filter_col_begin(&r.of, c); s < ptl_filter_col_end(&r.of, c); ++s)
            for (uint32_t t = s + 1; t < ptl_filter_col_end(&r.of, c); ++t) {
                uint32_t a = r.of.spans[s].layer, b = r.of.spans[t].layer;
                if (a == PTL_VX_NONE || b == PTL_VX_NONE) continue; /* a dropped island */
                cr_assert_neq(a, b, "one layer twice in column %u", c);
                if (!pair[(size_t)a * nl + b]) pair[(size_t)a * nl + b] = 1, ++overlapping;
            }
    cr_expect_gt(overlapping, 0, "layers overlapping in plan (bridges over floors)");
    free(pair);
    check_invariants(&r);
    run_free(&r);
    ptl_trimesh_free(&m);
}

/* Recast 1.5.1 (Debian's librecast, through bench/peer_recast's peer_stats.walkable_spans): walkable
   compact-heightfield spans after erosion with the reference parameters, solo bake. */
static const struct {
    const char* file;
    uint32_t spans;
} RECAST_SPANS[] = {{"dungeon.obj", 17498}, {"nav_test.obj", 45069}, {"undulating.obj", 97770}, {"house.obj", 2657}};

Test(voxel, walkable_area_is_within_3_percent_of_recast) {
    TEST_REQUIRE_DATA(data);
    ptl_bake_desc d;
    reference_desc(&d);
    for (size_t i = 0; i < sizeof RECAST_SPANS / sizeof RECAST_SPANS[0]; ++i) {
        ptl_trimesh m;
        load_mesh(data, RECAST_SPANS[i].file, &m);
        run r;
        run_stages(&m, &d, NULL, 0, &r);
        double ours = r.of.span_count, theirs = RECAST_SPANS[i].spans;
        cr_expect(fabs(ours - theirs) <= 0.03 * theirs, "%s: %u walkable spans, Recast %u (%+.2f%%)",
                  RECAST_SPANS[i].file, r.of.span_count, RECAST_SPANS[i].spans, 100 * (ours - theirs) / theirs);
        run_free(&r);
        ptl_trimesh_free(&m);
    }
}

/* Layers across block borders (layers.c floods blocks of PTL_VX_LAYER_BLOCK columns, layer_stitch.c
   stitches them): random scenes of overlapping platforms, ramps and boxes, 30 x 30 m at 0.3 m
   columns (a hundred columns: several blocks each way), keep every rule of the flood
   (check_invariants: one span of a layer per column, no unlinked neighbours in a layer, no two
   linked layers that could be one, ids in order of their lowest spans), and the layers are the
   same flooded in turn or as jobs on three threads (blocks in any order). */
#include "../tools/jobs.h"

/* A random scene of 30 x 30 m over several blocks: a floor, and 14 platforms (bridges), ramps up
   from the ground and boxes; `seed` advances. */
static void random_stacked_scene(mesh_b* b, uint32_t* seed) {
    mb_floor(b, 0, 0, 30, 30, 0, true);
    for (int k = 0; k < 14; ++k) {
        float v[6];
        for (int i = 0; i < 6; ++i) {
            *seed = *seed * 1664525u + 1013904223u;
            v[i] = (float)((*seed >> 8) % 10000) / 10000.0f;
        }
        const float x0 = 28 * v[0], z0 = 28 * v[1], w = 2 + 14 * v[2], d = 2 + 14 * v[3];
        const float x1 = x0 + w > 30 ? 30 : x0 + w, z1 = z0 + d > 30 ? 30 : z0 + d;
        const float y = 0.6f + 6 * v[4];
        switch (k % 3) {
        case 0: mb_floor(b, x0, z0, x1, z1, y, true); break;
        case 1: mb_ramp(b, x0, z0, x1, z1, 0, y * v[5]); break;
        default: mb_box(b, x0, 0, z0, x0 + 1 + 2 * v[5], 2.5f, z0 + 1 + 2 * v[5], true); break;
        }
    }
}

Test(voxel, random_stacked_scenes_keep_the_layer_rules_across_block_borders, .timeout = 300) {
    uint32_t seed = 20261124u, layered = 0;
    ptl_thread_jobs j;
    ptl_thread_jobs_init(&j, 3);
    for (int scene = 0; scene < 12; ++scene) {
        mesh_b b = {0};
        random_stacked_scene(&b, &seed);
        ptl_trimesh m = mb_mesh(&b);
        ptl_bake_desc desc = {.agent_radius = 0.3f};
        run r;
        run_stages(&m, &desc, NULL, 0, &r);
        cr_assert_gt(r.p.width, 2 * (int32_t)PTL_VX_LAYER_BLOCK, "scene %d spans several blocks", scene);
        check_invariants(&r);
        layered += r.ls.layer_count >= 3;
        /* the same layers from jobs */
        uint32_t* first = malloc((size_t)r.of.span_count * sizeof *first + 1);
        for (uint32_t s = 0; s < r.of.span_count; ++s) first[s] = r.of.spans[s].layer;
        ptl_layer_set ls;
        ptl_error err;
        cr_assert_eq(ptl_lmap_build_layers_jobs(&r.of, NULL, 0, &j.sys, NULL, &ls, &err), PTL_OK, "%s", err.message);
        cr_expect_eq(ls.layer_count, r.ls.layer_count, "scene %d", scene);
        for (uint32_t s = 0; s < r.of.span_count; ++s)
            cr_assert_eq(r.of.spans[s].layer, first[s], "scene %d: span %u's layer on threads", scene, s);
        ptl_layer_set_free(&ls);
        free(first);
        run_free(&r);
        mb_free(&b);
    }
    cr_expect_geq(layered, 6u, "only %u of 12 scenes have 3 layers or more", layered);
}

/* ---- The layer map (layer_map.h) ------------------------------------------------------------------
   The later stages read the layers from the map the band stream leaves, not from an open field: it
   must answer for every open span what the field answers (its layer, floor and tag; what lies
   across each of its sides: nothing, another layer through a link, or a gap link). */

#include "../bake/contours/contours.h"

static uint64_t map_junctions, map_gaps; /* sides checked that the map must find a layer across */

static void check_map_against_field(const ptl_open_field* of, const ptl_layer_map* m, const char* name) {
    const uint32_t W = (uint32_t)of->p.width;
    uint64_t covered = 0;
    for (uint32_t c = 0; c < W * (uint32_t)of->p.depth; ++c)
        for (uint32_t s = ptl_filter_col_begin(of, c); s < ptl_filter_col_end(of, c); ++s) {
            const ptl_open_span* sp = &of->spans[s];
            const int64_t x = c % W, z = c / W;
            cr_assert_eq(ptl_lmap_layer_at(m, x, z, sp->floor), sp->layer, "%s: span %u's layer", name, s);
            if (sp->layer == PTL_VX_NONE) continue;
            ++covered;
            const uint32_t i = ptl_lmap_find(m, sp->layer, x, z);
            cr_assert_neq(i, PTL_VX_NONE, "%s: layer %u misses column (%lld, %lld)", name, sp->layer, (long long)x, (long long)z);
            cr_assert_eq(ptl_lmap_floor(m, i, x, z), sp->floor, "%s: span %u's floor", name, s);
            cr_assert_eq(ptl_lmap_tag(m, i, x, z), sp->tag, "%s: span %u's tag", name, s);
            for (int d = 0; d < 4; ++d) {
                const int64_t nx = x + (d == 2) - (d == 0), nz = z + (d == 1) - (d == 3);
                bool inside = false; /* the neighbour column holds this layer: no edge there */
                if (nx >= 0 && nz >= 0 && nx < of->p.width && nz < of->p.depth) {
                    const uint32_t nc = (uint32_t)nz * W + (uint32_t)nx;
                    for (uint32_t t = ptl_filter_col_begin(of, nc); t < ptl_filter_col_end(of, nc); ++t)
                        inside |= of->spans[t].layer == sp->layer;
                }
                if (inside) continue;
                uint32_t want = PTL_NONE;
                const uint32_t n = ptl_filter_nbr(of, s, d);
                if (n != PTL_VX_NONE) {
                    const uint32_t o = of->spans[n].layer;
                    want = o == PTL_VX_NONE || o == sp->layer ? PTL_NONE : o;
                } else {
                    for (uint32_t g = 0; g < of->gap_count; ++g)
                        if (of->gaps[g].span == s && of->gaps[g].dir == d && of->spans[of->gaps[g].other].layer != PTL_VX_NONE)
                            want = PTL_KIND_GAP | (uint32_t)of->gaps[g].cols << 24 | of->spans[of->gaps[g].other].layer;
                }
                cr_assert_eq(ptl_lmap_edge_kind(m, sp->layer, x, z, d), want, "%s: span %u, side %d", name, s, d);
                if (want != PTL_NONE) ++*(PTL_KIND_IS_GAP(want) ? &map_gaps : &map_junctions);
            }
        }
    uint64_t in_map = 0;
    for (uint32_t i = 0; i < m->bl_count; ++i) in_map += m->bl[i].world != PTL_VX_NONE ? m->bl[i].count : 0;
    cr_assert_eq(in_map, covered, "%s: the map's block-layers hold every layered span once", name);
    for (uint32_t l = 0; l < m->layer_count; ++l)
        for (uint32_t k = m->layer_first[l]; k < m->layer_first[l + 1]; ++k)
            cr_assert_eq(m->bl[m->layer_bls[k]].world, l, "%s: layer %u lists a block-layer of another", name, l);
}

static void map_scene(const ptl_trimesh* m, const ptl_bake_desc* d, const char* name) {
    run r;
    run_stages(m, d, NULL, 0, &r);
    ptl_layer_set ls;
    ptl_layer_map map;
    ptl_error err;
    cr_assert_eq(ptl_lmap_layers_of_field(&r.of, NULL, 0, NULL, NULL, &ls, &map, &err), PTL_OK, "%s: %s", name, err.message);
    cr_assert_eq(ls.layer_count, r.ls.layer_count, "%s: the same layers through the map", name);
    check_map_against_field(&r.of, &map, name);
    ptl_layer_map_free(&map);
    ptl_layer_set_free(&ls);
    run_free(&r);
}

Test(voxel, layer_map_answers_what_the_field_answers_on_stacked_scenes_and_gaps) {
    uint32_t seed = 20261125u;
    map_junctions = map_gaps = 0;
    for (int scene = 0; scene < 6; ++scene) {
        mesh_b b = {0};
        mb_floor(&b, 31, 0, 45, 30, 0, true); /* across a crack from the scene: gap links */
        random_stacked_scene(&b, &seed);
        ptl_trimesh m = mb_mesh(&b);
        ptl_bake_desc desc = {.agent_radius = 0.3f, .max_gap = 1.5f};
        char name[32];
        snprintf(name, sizeof name, "scene %d", scene);
        map_scene(&m, &desc, name);
        mb_free(&b);
    }
    cr_expect_gt(map_junctions, 0, "junctions between layers were checked");
    cr_expect_gt(map_gaps, 0, "gap links were checked");
    cr_log_info("layer map: %llu junction sides, %llu gap sides checked", (unsigned long long)map_junctions,
                (unsigned long long)map_gaps);
}

Test(voxel, layer_map_answers_what_the_field_answers_on_every_shared_mesh, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** files = test_list_files(dir, ".obj");
    ptl_bake_desc d;
    reference_desc(&d);
    int n = 0;
    for (char** f = files; *f; ++f, ++n) {
        ptl_trimesh m;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(*f, NULL, &m, &err), PTL_OK, "%s: %s", *f, err.message);
        map_scene(&m, &d, *f);
        ptl_trimesh_free(&m);
    }
    cr_expect_geq(n, 10, "the shared meshes are there");
    test_free_list(files);
}
