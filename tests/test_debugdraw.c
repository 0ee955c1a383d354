/* debugdraw through a recording sink: every drawing emits exactly the primitives its mesh or bake
   stage implies (one filled polygon per walkable cell, one line per portal and per wall edge, one
   point per notch, ...), counted here from the runtime's and the bake-debug object's own accessors,
   and every vertex it emits is finite and inside the bounds of what it draws. Also: keeping the
   intermediates does not change the baked blob, and a path's corridor runs from its start cell to
   its goal cell through neighbours. Scenes: the generated building and rooms map (always), and the
   shared meshes and a Moving AI map (skipped loudly when ../shared/data is absent). */
#include "test_util.h"

#include <portolan/bake_debug.h>
#include <portolan/debugdraw.h>

/* ---- The recording sink --------------------------------------------------------------------------*/

enum { MAX_BATCHES = 1 << 16 };

typedef struct batch {
    ptl_dd_prim prim;
    float size;
    uint32_t verts;
} batch;

typedef struct rec {
    batch* b;
    uint32_t n;       /* batches */
    bool open;        /* inside begin ... end */
    uint32_t errors;  /* vertex outside begin/end, nested begin, end without begin */
    uint32_t nonfinite;
    uint32_t outside; /* vertices outside the box below (when set) */
    bool has_box;
    float lo[3], hi[3];
    uint64_t verts[3];     /* per primitive kind */
    uint32_t batches[3];   /* per primitive kind */
    uint32_t colour_hits;  /* vertices of colour `watch` */
    ptl_dd_color watch;
} rec;

static void r_begin(void* u, ptl_dd_prim prim, float size) {
    rec* r = u;
    if (r->open || r->n >= MAX_BATCHES || (unsigned)prim > PTL_DD_TRIS) {
        r->errors++;
        return;
    }
    r->open = true;
    r->b[r->n].prim = prim, r->b[r->n].size = size, r->b[r->n].verts = 0;
    r->batches[prim]++;
}

static void r_vertex(void* u, const float p[3], ptl_dd_color c) {
    rec* r = u;
    if (!r->open) {
        r->errors++;
        return;
    }
    r->b[r->n].verts++;
    r->verts[r->b[r->n].prim]++;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) r->nonfinite++;
    if (r->has_box)
        for (int k = 0; k < 3; ++k)
            if (!(p[k] >= r->lo[k] && p[k] <= r->hi[k])) {
                r->outside++;
                break;
            }
    if (c == r->watch) r->colour_hits++;
}

static void r_end(void* u) {
    rec* r = u;
    if (!r->open) {
        r->errors++;
        return;
    }
    r->open = false;
    r->n++;
}

static rec* rec_new(void) {
    rec* r = calloc(1, sizeof *r);
    r->b = calloc(MAX_BATCHES, sizeof *r->b);
    return r;
}
static void rec_reset(rec* r) {
    batch* b = r->b;
    memset(r, 0, sizeof *r);
    r->b = b;
}
static void rec_free(rec* r) {
    free(r->b);
    free(r);
}
static ptl_dd_sink rec_sink(rec* r) {
    ptl_dd_sink s = {r_begin, r_vertex, r_end, r};
    return s;
}
/* The box: the navmesh's bounds grown by `pad` (lifts, arrow heads). */
static void rec_box(rec* r, const float lo[3], const float hi[3], float pad) {
    r->has_box = true;
    for (int k = 0; k < 3; ++k) r->lo[k] = lo[k] - pad, r->hi[k] = hi[k] + pad;
}

/* Whole primitives in every batch, begin/end balanced, every vertex finite and in the box. */
static void rec_check(const rec* r, const char* what, const char* scene) {
    cr_assert_eq(r->errors, 0, "%s on %s: %u sink contract violations (vertex outside begin/end, nesting)", what,
                 scene, r->errors);
    cr_assert(!r->open, "%s on %s: a begin without its end", what, scene);
    cr_assert_eq(r->nonfinite, 0, "%s on %s: %u non-finite vertices", what, scene, r->nonfinite);
    cr_assert_eq(r->outside, 0, "%s on %s: %u vertices outside the drawn object's bounds", what, scene, r->outside);
    for (uint32_t i = 0; i < r->n; ++i) {
        uint32_t per = r->b[i].prim == PTL_DD_TRIS ? 3 : r->b[i].prim == PTL_DD_LINES ? 2 : 1;
        cr_assert_eq(r->b[i].verts % per, 0, "%s on %s: batch %u has %u vertices, not whole primitives", what, scene,
                     i, r->b[i].verts);
        cr_assert(isfinite(r->b[i].size) && r->b[i].size >= 0, "%s on %s: bad size %g", what, scene,
                  (double)r->b[i].size);
    }
}

/* ---- Scenes ------------------------------------------------------------------------------------*/

typedef struct scene {
    const char* name;
    ptl_trimesh mesh; /* 3D scenes */
    bool is3d;
    ptl_shape shape;  /* 2D scenes */
    ptl_bake_debug* dbg;
    ptl_bake_stats stats;
    ptl_navmesh* nm;
    void* blob;
    size_t size;
} scene;

static void bake_scene(scene* s) {
    cr_assert_eq(ptl_bake_debug_create(NULL, &s->dbg), PTL_OK);
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.debug = s->dbg;
    ptl_error err;
    ptl_status st = s->is3d ? ptl_bake_trimesh(&s->mesh, &d, &s->blob, &s->size, &s->stats, &err)
                            : ptl_bake_shape(&s->shape, &d, &s->blob, &s->size, &s->stats, &err);
    cr_assert_geq(st, 0, "%s: bake with debug failed: %s", s->name, err.message);
    cr_assert_eq(ptl_bake_debug_stage(s->dbg), PTL_BAKE_STAGE_DONE, "%s: the bake did not report done", s->name);
    cr_assert_eq(ptl_navmesh_create(s->blob, s->size, NULL, &s->nm, &err), PTL_OK, "%s: %s", s->name, err.message);
}

static void scene_free(scene* s) {
    ptl_navmesh_destroy(s->nm);
    ptl_blob_free(s->blob, s->size, NULL);
    ptl_bake_debug_destroy(s->dbg);
    if (s->is3d) ptl_trimesh_free(&s->mesh);
    else ptl_shape_free(&s->shape);
}

static void scene_building(scene* s) {
    memset(s, 0, sizeof *s);
    s->name = "generated building";
    s->is3d = true;
    ptl_scene_desc d = {.kind = PTL_SCENE_BUILDING, .size = 40, .storeys = 3, .seed = 1};
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&d, &s->mesh, &err), PTL_OK, "%s", err.message);
    bake_scene(s);
}

static void scene_bridge(scene* s) {
    memset(s, 0, sizeof *s);
    s->name = "generated bridge";
    s->is3d = true;
    ptl_scene_desc d = {.kind = PTL_SCENE_BRIDGE, .size = 32, .seed = 3};
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&d, &s->mesh, &err), PTL_OK, "%s", err.message);
    bake_scene(s);
}

static void scene_rooms(scene* s) {
    memset(s, 0, sizeof *s);
    s->name = "generated rooms map";
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 96, .height = 96, .seed = 1};
    ptl_grid g;
    ptl_error err;
    cr_assert_eq(ptl_grid_generate(&gd, &g, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_shape_from_grid(&g, NULL, &s->shape, &err), PTL_OK, "%s", err.message);
    ptl_grid_free(&g);
    bake_scene(s);
}

static void scene_obj(scene* s, const char* path, const char* name) {
    memset(s, 0, sizeof *s);
    s->name = name;
    s->is3d = true;
    ptl_error err;
    cr_assert_eq(ptl_obj_load(path, NULL, &s->mesh, &err), PTL_OK, "%s: %s", path, err.message);
    bake_scene(s);
}

static void scene_2d_file(scene* s, const char* path, const char* name) {
    memset(s, 0, sizeof *s);
    s->name = name;
    ptl_error err;
    cr_assert_eq(ptl_shape_load(path, NULL, &s->shape, &err), PTL_OK, "%s: %s", path, err.message);
    bake_scene(s);
}

/* ---- Expected counts, from the runtime's accessors ---------------------------------------------*/

typedef struct expect {
    uint32_t walkable_cells, fill_tri_verts, wall_edges, same_layer_portals, cross_layer_portals;
    uint32_t links, walk_links, step_links;
} expect;

static bool is_walkable(const ptl_navmesh* nm, uint32_t c, uint32_t* layer) {
    ptl_cell_view cv;
    if (ptl_navmesh_get_cell(nm, c, &cv) != PTL_OK || cv.link != PTL_NONE) return false;
    *layer = cv.layer;
    return true;
}

static expect count_mesh(const ptl_navmesh* nm) {
    expect e;
    memset(&e, 0, sizeof e);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    for (uint32_t c = 0; c < in.cell_count; ++c) {
        ptl_cell_view cv;
        cr_assert_eq(ptl_navmesh_get_cell(nm, c, &cv), PTL_OK);
        if (cv.link != PTL_NONE) continue;
        e.walkable_cells++;
        e.fill_tri_verts += 3 * (cv.vert_count - 2);
        for (uint32_t i = 0; i < cv.vert_count; ++i) e.wall_edges += cv.neighbors[i] == PTL_NONE;
    }
    for (uint32_t p = 0; p < in.portal_count; ++p) {
        ptl_portal_view pv;
        uint32_t l0, l1;
        cr_assert_eq(ptl_navmesh_get_portal(nm, p, &pv), PTL_OK);
        if (!is_walkable(nm, pv.cell[0], &l0) || !is_walkable(nm, pv.cell[1], &l1)) continue;
        if (l0 == l1) e.same_layer_portals++;
        else e.cross_layer_portals++;
    }
    e.links = in.link_count;
    for (uint32_t l = 0; l < in.link_count; ++l) {
        ptl_link_view lv;
        cr_assert_eq(ptl_navmesh_get_link(nm, l, &lv), PTL_OK);
        if (lv.kind == PTL_LINK_STEP) e.step_links++;
        else e.walk_links++;
    }
    return e;
}

/* ---- The checks, per scene ---------------------------------------------------------------------*/

static void check_navmesh_drawings(const scene* s, rec* r) {
    ptl_navmesh_info in;
    ptl_navmesh_get_info(s->nm, &in);
    expect e = count_mesh(s->nm);
    cr_assert_gt(e.walkable_cells, 0, "%s: no walkable cell", s->name);
    ptl_dd_sink sink = rec_sink(r);

    rec_reset(r);
    rec_box(r, in.bmin, in.bmax, 0.5f);
    ptl_dd_cells(&sink, NULL, s->nm, PTL_DD_CELLS_FILL);
    rec_check(r, "cells (fill)", s->name);
    cr_assert_eq(r->batches[PTL_DD_TRIS], e.walkable_cells, "%s: %u filled polygons for %u walkable cells", s->name,
                 r->batches[PTL_DD_TRIS], e.walkable_cells);
    cr_assert_eq(r->verts[PTL_DD_TRIS], e.fill_tri_verts, "%s: a cell's fan is not its vertex count - 2 triangles",
                 s->name);
    cr_assert_eq(r->verts[PTL_DD_LINES] + r->verts[PTL_DD_POINTS], 0);

    rec_reset(r);
    rec_box(r, in.bmin, in.bmax, 0.5f);
    ptl_dd_cells(&sink, NULL, s->nm, PTL_DD_CELLS_OUTLINE);
    rec_check(r, "cells (outline)", s->name);
    cr_assert_eq(r->verts[PTL_DD_LINES], 2ull * e.wall_edges, "%s: %llu outline lines for %u wall edges", s->name,
                 (unsigned long long)r->verts[PTL_DD_LINES] / 2, e.wall_edges);

    rec_reset(r);
    rec_box(r, in.bmin, in.bmax, 0.5f);
    r->watch = ptl_dd_default_color(PTL_DD_COL_PORTAL);
    ptl_dd_portals(&sink, NULL, s->nm);
    rec_check(r, "portals", s->name);
    cr_assert_eq(r->verts[PTL_DD_LINES], 2ull * e.same_layer_portals, "%s: %llu portal lines for %u portals",
                 s->name, (unsigned long long)r->verts[PTL_DD_LINES] / 2, e.same_layer_portals);
    cr_assert_eq(r->colour_hits, 2 * e.same_layer_portals, "%s: portals not in the portal colour", s->name);

    /* links: a filled quad per link; 5 lines per walk link, 6 per step link, one per cross-layer portal */
    rec_reset(r);
    rec_box(r, in.bmin, in.bmax, 1.0f);
    ptl_dd_links(&sink, NULL, s->nm);
    rec_check(r, "links", s->name);
    uint32_t tri_batches = r->batches[PTL_DD_TRIS];
    cr_assert_eq(tri_batches, e.links, "%s: %u link fills for %u links", s->name, tri_batches, e.links);
    cr_assert_eq(r->verts[PTL_DD_LINES], 2ull * (5 * e.walk_links + 6 * e.step_links + e.cross_layer_portals),
                 "%s: link lines: %llu, expected 5 x %u walk + 6 x %u step + %u layer portals", s->name,
                 (unsigned long long)r->verts[PTL_DD_LINES] / 2, e.walk_links, e.step_links, e.cross_layer_portals);

    rec_reset(r);
    rec_box(r, in.bmin, in.bmax, 0.01f);
    ptl_dd_tiles(&sink, NULL, s->nm);
    rec_check(r, "tiles", s->name);
    cr_assert_eq(r->verts[PTL_DD_LINES], 24, "%s: one tile = 12 lines", s->name);
}

/* The stretches [a, b) of span s's face f (0: -x, 1: +x, 2: -z, 3: +z) that no span of the
   neighbouring column covers, found height by height (at most 256). */
static uint32_t open_stretches(const ptl_bake_debug* dbg, const ptl_dbg_solid_span* s, int f, uint32_t out[256][2]) {
    static const int dx[4] = {-1, 1, 0, 0}, dz[4] = {0, 0, -1, 1};
    uint32_t nn, n = 0;
    const ptl_dbg_solid_span* nb = ptl_bake_debug_solid_column(dbg, s->x + dx[f], s->z + dz[f], &nn);
    bool open_run = false;
    for (uint32_t h = s->smin; h < s->smax; ++h) {
        bool covered = false;
        for (uint32_t k = 0; k < nn && !covered; ++k) covered = nb[k].smin <= h && h < nb[k].smax;
        if (!covered && !open_run && n < 256) out[n][0] = h, out[n][1] = h + 1, n++;
        else if (!covered && n) out[n - 1][1] = h + 1;
        open_run = !covered;
    }
    return n;
}

/* Does column (x, z) hold a span of this walkability, containing [a, b), with [a, b) open on face f? */
static bool has_open(const ptl_bake_debug* dbg, int32_t x, int32_t z, int f, uint8_t walkable, uint32_t a, uint32_t b) {
    uint32_t n;
    const ptl_dbg_solid_span* col = ptl_bake_debug_solid_column(dbg, x, z, &n);
    for (uint32_t k = 0; k < n; ++k) {
        if (col[k].smin > a || col[k].smax < b || col[k].walkable != walkable) continue;
        uint32_t st[256][2];
        uint32_t ns = open_stretches(dbg, &col[k], f, st);
        for (uint32_t j = 0; j < ns; ++j)
            if (st[j][0] == a && st[j][1] == b) return true;
    }
    return false;
}

/* The voxel stages of a 3D bake (spans, layers) and its input triangles. */
static void check_voxel_drawings(const scene* s, rec* r, uint32_t nl) {
    const ptl_bake_debug* dbg = s->dbg;
    ptl_dd_sink sink = rec_sink(r);
    /* voxels: 10 triangles per solid span; 2 per open span, one colour per layer */
    ptl_dbg_grid g;
    ptl_bake_debug_get_grid(dbg, &g);
    cr_assert(g.cs > 0 && g.ch > 0 && g.width > 0 && g.depth > 0);
    uint32_t nsolid, nopen, in_layer = 0;
    ptl_bake_debug_solid_spans(dbg, &nsolid);
    const ptl_dbg_open_span* os = ptl_bake_debug_open_spans(dbg, &nopen);
    cr_assert_eq(nsolid, s->stats.spans, "%s: %u solid spans kept, the bake counted %u", s->name, nsolid,
                 s->stats.spans);
    for (uint32_t i = 0; i < nopen; ++i) {
        if (os[i].layer != PTL_NONE) {
            cr_assert_lt(os[i].layer, nl);
            in_layer++;
        }
        cr_assert(os[i].x >= 0 && os[i].x < g.width && os[i].z >= 0 && os[i].z < g.depth);
    }
    cr_assert_eq(in_layer, s->stats.walkable_spans, "%s: %u spans in layers, the bake counted %u", s->name, in_layer,
                 s->stats.walkable_spans);
    float glo[3] = {g.bmin[0], g.bmin[1], g.bmin[2]};
    float ghi[3] = {g.bmin[0] + g.cs * (float)g.width, g.bmin[1] + g.ch * 65536.0f, g.bmin[2] + g.cs * (float)g.depth};
    rec_reset(r);
    rec_box(r, glo, ghi, 0.5f);
    ptl_dd_solid_spans(&sink, NULL, dbg);
    rec_check(r, "solid spans", s->name);
    /* tops and the sides the neighbouring column leaves open, each merged along a run of equal ones:
       counted independently, height by height */
    uint64_t stretches = 0, runs = 0;
    const ptl_dbg_solid_span* all = ptl_bake_debug_solid_spans(dbg, &nsolid);
    for (uint32_t i = 0; i < nsolid; ++i) {
        uint32_t nc;
        const ptl_dbg_solid_span* col = ptl_bake_debug_solid_column(dbg, all[i].x, all[i].z, &nc);
        cr_assert(col && all + i >= col && all + i < col + nc, "%s: span %u is not in its column's slice", s->name, i);
        for (uint32_t k = 0; k + 1 < nc; ++k)
            cr_assert_lt(col[k].smax, col[k + 1].smin + 1u, "%s: a column's spans overlap or are unsorted", s->name);
        /* a run of tops starts here unless the column at x - 1 has a span with the same top */
        uint32_t nl2;
        const ptl_dbg_solid_span* left = ptl_bake_debug_solid_column(dbg, all[i].x - 1, all[i].z, &nl2);
        bool continues = false;
        for (uint32_t k = 0; k < nl2; ++k)
            continues |= left[k].smax == all[i].smax && left[k].walkable == all[i].walkable;
        runs += !continues;
        for (int f = 0; f < 4; ++f) {
            uint32_t st2[256][2];
            uint32_t ns = open_stretches(dbg, &all[i], f, st2);
            int rx = f < 2 ? 0 : 1, rz = f < 2 ? 1 : 0;
            for (uint32_t k = 0; k < ns; ++k)
                stretches += !has_open(dbg, all[i].x - rx, all[i].z - rz, f, all[i].walkable, st2[k][0], st2[k][1]);
        }
    }
    cr_assert_eq(r->verts[PTL_DD_TRIS], 6ull * (runs + stretches),
                 "%s: %llu span triangles, expected 2 x (%llu runs of tops + %llu runs of open sides)", s->name,
                 (unsigned long long)r->verts[PTL_DD_TRIS] / 3, (unsigned long long)runs,
                 (unsigned long long)stretches);
    rec_reset(r);
    rec_box(r, glo, ghi, 0.5f);
    ptl_dd_layers(&sink, NULL, dbg);
    rec_check(r, "layers", s->name);
    cr_assert_eq(r->verts[PTL_DD_TRIS], 6ull * nopen);

    /* input triangles: one per non-degenerate triangle, inside the mesh's bounds */
    rec_reset(r);
    rec_box(r, s->mesh.bmin, s->mesh.bmax, 1e-4f);
    ptl_dd_trimesh(&sink, NULL, &s->mesh, 0);
    rec_check(r, "input triangles", s->name);
    cr_assert_leq(r->verts[PTL_DD_TRIS], 3ull * s->mesh.tri_count);
    cr_assert_geq(r->verts[PTL_DD_TRIS], 3ull * s->mesh.tri_count * 9 / 10, "%s: most triangles are not drawn",
                  s->name);
}

static void check_bake_drawings(const scene* s, rec* r) {
    const ptl_bake_debug* dbg = s->dbg;
    ptl_dd_sink sink = rec_sink(r);
    uint32_t nl = ptl_bake_debug_layer_count(dbg);
    cr_assert_eq(nl, s->is3d ? s->stats.layers : 1u, "%s: the debug object holds %u layers, the bake made %u",
                 s->name, nl, s->stats.layers);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(s->nm, &in);
    float lo[3] = {in.bmin[0], in.bmin[1], in.bmin[2]}, hi[3] = {in.bmax[0], in.bmax[1], in.bmax[2]};

    /* contours: one line per ring edge and one point per vertex, per layer and kind */
    uint64_t raw_v = 0, simp_v = 0;
    for (uint32_t l = 0; l < nl; ++l) {
        ptl_dbg_contour c;
        cr_assert_eq(ptl_bake_debug_get_contour(dbg, l, false, &c), PTL_OK);
        cr_assert_gt(c.ring_count, 0, "%s: layer %u has no raw contour", s->name, l);
        cr_assert_eq(c.ring_start[c.ring_count], c.vert_count);
        raw_v += c.vert_count;
        cr_assert_eq(ptl_bake_debug_get_contour(dbg, l, true, &c), PTL_OK);
        cr_assert_gt(c.ring_count, 0, "%s: layer %u has no simplified contour", s->name, l);
        simp_v += c.vert_count;
        /* simplification only removes corner points */
        ptl_dbg_contour raw;
        ptl_bake_debug_get_contour(dbg, l, false, &raw);
        cr_assert_leq(c.vert_count, raw.vert_count, "%s: layer %u: simplified has more vertices than raw", s->name, l);
    }
    cr_assert_eq(ptl_bake_debug_get_contour(dbg, nl, false, &(ptl_dbg_contour){0}), PTL_ERR_INVALID_ARG);
    rec_reset(r);
    rec_box(r, lo, hi, 0.5f);
    ptl_dd_contours(&sink, NULL, dbg, PTL_DD_CONTOUR_RAW | PTL_DD_CONTOUR_SIMPLIFIED);
    rec_check(r, "contours", s->name);
    cr_assert_eq(r->verts[PTL_DD_LINES], 2 * (raw_v + simp_v), "%s: contour lines %llu, ring edges %llu", s->name,
                 (unsigned long long)r->verts[PTL_DD_LINES] / 2, (unsigned long long)(raw_v + simp_v));
    cr_assert_eq(r->verts[PTL_DD_POINTS], raw_v + simp_v);
    cr_assert_eq(r->batches[PTL_DD_LINES], 2 * nl);

    /* notches: one point per notch (as many as the bake counted), one line per decomposition portal */
    uint64_t notches = 0, portals = 0, cells = 0;
    for (uint32_t l = 0; l < nl; ++l) {
        ptl_dbg_decomp d;
        cr_assert_eq(ptl_bake_debug_get_decomp(dbg, l, &d), PTL_OK);
        cr_assert_gt(d.cell_count, 0, "%s: layer %u has no cells", s->name, l);
        notches += d.notch_count, portals += d.portal_count, cells += d.cell_count;
        for (uint32_t p = 0; p < d.portal_count; ++p)
            cr_assert(d.portal_verts[2 * p] < d.vert_count && d.portal_verts[2 * p + 1] < d.vert_count);
        for (uint32_t c = 0; c < d.cell_count; ++c)
            cr_assert_geq(d.cell_start[c + 1] - d.cell_start[c], 3, "%s: a cell with fewer than 3 vertices", s->name);
        /* every notch is resolved: the decomposition has at least one portal per notch created by it or
           ends at it (ANavMG §4: a notch is closed by a portal at it) */
        for (uint32_t k = 0; k < d.notch_count; ++k) {
            uint32_t v = d.notches[k], at = 0;
            for (uint32_t p = 0; p < d.portal_count && !at; ++p) at = d.portal_verts[2 * p] == v || d.portal_verts[2 * p + 1] == v;
            cr_assert(at, "%s: layer %u: notch at vertex %u has no portal", s->name, l, v);
        }
    }
    /* what was kept hangs together: simplification keeps corner points (every simplified vertex is a
       raw one, in plan, or a corner that replaced a run of them within the tolerance of the raw
       outline: contours.c, corner_run); the decomposition's first vertices are the simplified
       contour's; a portal's notch is one of the notches */
    ptl_bake_desc used, none;
    memset(&none, 0, sizeof none);
    ptl_bake_desc_resolve(&none, &used);
    const double tol = (double)used.max_error * used.cell_size * (1 + 1e-6) + 1e-4;
    for (uint32_t l = 0; l < nl; ++l) {
        ptl_dbg_contour raw, simp;
        ptl_dbg_decomp d;
        ptl_bake_debug_get_contour(dbg, l, false, &raw);
        ptl_bake_debug_get_contour(dbg, l, true, &simp);
        ptl_bake_debug_get_decomp(dbg, l, &d);
        for (uint32_t i = 0; i < simp.vert_count; ++i) {
            bool found = false;
            double near = INFINITY; /* distance to the raw outline */
            for (uint32_t r = 0; r < raw.ring_count && !found; ++r) {
                for (uint32_t j = raw.ring_start[r]; j < raw.ring_start[r + 1] && !found; ++j) {
                    const float* a = &raw.verts[3 * j];
                    const float* b = &raw.verts[3 * (j + 1 < raw.ring_start[r + 1] ? j + 1 : raw.ring_start[r])];
                    found = simp.verts[3 * i] == a[0] && simp.verts[3 * i + 2] == a[2];
                    const double ex = (double)b[0] - a[0], ez = (double)b[2] - a[2], l2 = ex * ex + ez * ez;
                    const double px = (double)simp.verts[3 * i] - a[0], pz = (double)simp.verts[3 * i + 2] - a[2];
                    double t = l2 > 0 ? (px * ex + pz * ez) / l2 : 0;
                    t = t < 0 ? 0 : t > 1 ? 1 : t;
                    near = fmin(near, hypot(px - t * ex, pz - t * ez));
                }
            }
            cr_assert(found || near <= tol, "%s: layer %u: simplified vertex %u (%g, %g) is %g from the raw outline",
                      s->name, l, i, (double)simp.verts[3 * i], (double)simp.verts[3 * i + 2], near);
        }
        cr_assert_geq(d.vert_count, simp.vert_count);
        for (uint32_t i = 0; i < simp.vert_count; ++i)
            cr_assert(d.verts[3 * i] == simp.verts[3 * i] && d.verts[3 * i + 2] == simp.verts[3 * i + 2],
                      "%s: layer %u: decomposition vertex %u is not the contour's", s->name, l, i);
        for (uint32_t p = 0; p < d.portal_count; ++p) {
            if (d.portal_notch[p] == PTL_NONE) continue;
            bool is_notch = false;
            for (uint32_t k = 0; k < d.notch_count && !is_notch; ++k) is_notch = d.notches[k] == d.portal_notch[p];
            cr_assert(is_notch, "%s: layer %u: portal %u names vertex %u as its notch", s->name, l, p, d.portal_notch[p]);
            cr_assert(simp.flags[d.portal_notch[p]] & PTL_DBG_VERT_NOTCH);
        }
    }
    cr_assert_eq(notches, s->stats.notches, "%s: %llu notches kept, the bake counted %u", s->name,
                 (unsigned long long)notches, s->stats.notches);
    if (!s->is3d) cr_assert_eq(cells, s->stats.cells, "%s: 2D decomposition cells %llu, navmesh %u", s->name,
                               (unsigned long long)cells, s->stats.cells);
    rec_reset(r);
    rec_box(r, lo, hi, 0.5f);
    ptl_dd_notches(&sink, NULL, dbg);
    rec_check(r, "notches", s->name);
    cr_assert_eq(r->verts[PTL_DD_POINTS], notches);
    cr_assert_eq(r->verts[PTL_DD_LINES], 2 * portals);

    if (!s->is3d) {
        /* no voxel stages */
        uint32_t n;
        ptl_bake_debug_solid_spans(dbg, &n);
        cr_assert_eq(n, 0);
        ptl_bake_debug_open_spans(dbg, &n);
        cr_assert_eq(n, 0);
        return;
    }
    check_voxel_drawings(s, r, nl);
}

/* Does cell c hold (x, z) in plan, within 1e-4? (cells are convex, counter-clockwise) */
static bool cell_holds_plan(const ptl_navmesh* nm, uint32_t c, float x, float z) {
    ptl_cell_view cv;
    if (ptl_navmesh_get_cell(nm, c, &cv) != PTL_OK) return false;
    for (uint32_t i = 0; i < cv.vert_count; ++i) {
        const float *a = ptl_navmesh_vert(nm, cv.verts[i]), *b = ptl_navmesh_vert(nm, cv.verts[(i + 1) % cv.vert_count]);
        double ex = b[0] - a[0], ez = b[2] - a[2], l = sqrt(ex * ex + ez * ez);
        if (l > 0 && (ex * (z - a[2]) - ez * (x - a[0])) / l < -1e-4) return false;
    }
    return true;
}

/* Centroid of cell c, snapped onto the mesh (a centroid of vertex heights may float above a
   sloped cell). */
static void cell_point(const scene* s, ptl_query* q, uint32_t c, float out[3]) {
    ptl_cell_view cv;
    ptl_navmesh_get_cell(s->nm, c, &cv);
    out[0] = out[1] = out[2] = 0;
    for (uint32_t i = 0; i < cv.vert_count; ++i)
        for (int k = 0; k < 3; ++k) out[k] += ptl_navmesh_vert(s->nm, cv.verts[i])[k] / (float)cv.vert_count;
    ptl_location l;
    const float ext[3] = {2, 8, 2};
    if (ptl_query_locate(q, out, ext, &l) == PTL_OK) memcpy(out, l.point, sizeof l.point);
}

/* Paths between two far-apart cells and between 40 pseudo-random pairs of cells: drawn as count - 1
   lines and count points in the path colour; each corridor starts at the start cell, ends where the
   goal is, and steps only between neighbours. */
static void check_path_drawings(const scene* s, rec* r) {
    ptl_navmesh_info in;
    ptl_navmesh_get_info(s->nm, &in);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(s->nm, NULL, &q), PTL_OK);
    /* The walkable cells of the largest connected piece (so that most random pairs have a path);
       the first pair: least and largest x + z there. */
    uint32_t* comp = malloc(in.cell_count * sizeof *comp);
    uint32_t* stack = malloc(in.cell_count * sizeof *stack);
    uint32_t best_comp = 0, best_size = 0;
    for (uint32_t c = 0; c < in.cell_count; ++c) comp[c] = PTL_NONE;
    for (uint32_t c = 0; c < in.cell_count; ++c) {
        if (comp[c] != PTL_NONE) continue;
        uint32_t sp = 0, size = 0;
        comp[c] = c, stack[sp++] = c;
        while (sp) {
            ptl_cell_view cv;
            ptl_navmesh_get_cell(s->nm, stack[--sp], &cv);
            ++size;
            for (uint32_t k = 0; k < cv.vert_count; ++k) {
                uint32_t nb = cv.neighbors[k];
                if (nb != PTL_NONE && comp[nb] == PTL_NONE) comp[nb] = c, stack[sp++] = nb;
            }
        }
        if (size > best_size) best_size = size, best_comp = c;
    }
    uint32_t* walk = malloc(in.cell_count * sizeof *walk);
    uint32_t nw = 0, lo = PTL_NONE, hi = PTL_NONE;
    float best_lo = INFINITY, best_hi = -INFINITY;
    for (uint32_t c = 0; c < in.cell_count; ++c) {
        ptl_cell_view cv;
        ptl_navmesh_get_cell(s->nm, c, &cv);
        if (cv.link != PTL_NONE || comp[c] != best_comp) continue;
        walk[nw++] = c;
        const float* v = ptl_navmesh_vert(s->nm, cv.verts[0]);
        if (v[0] + v[2] < best_lo) best_lo = v[0] + v[2], lo = c;
        if (v[0] + v[2] > best_hi) best_hi = v[0] + v[2], hi = c;
    }
    cr_assert(lo != PTL_NONE);
    float* pts = malloc(3 * 4096 * sizeof(float));
    uint32_t* cells = malloc(8192 * sizeof(uint32_t));
    uint32_t found = 0, rng = 12345;
    for (int pair = 0; pair < 41; ++pair) {
        uint32_t ca = lo, cb = hi;
        if (pair > 0) {
            rng = rng * 1664525u + 1013904223u, ca = walk[(rng >> 8) % nw];
            rng = rng * 1664525u + 1013904223u, cb = walk[(rng >> 8) % nw];
        }
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        cell_point(s, q, ca, req.start);
        cell_point(s, q, cb, req.goal);
        ptl_path_result res = {.points = pts, .point_capacity = 4096};
        ptl_status st = ptl_query_find_path(q, &req, &res);
        if (st < 0 || !res.found) continue; /* another piece of the mesh, or an ambiguous point */
        found++;
        ptl_dd_sink sink = rec_sink(r);
        rec_reset(r);
        rec_box(r, in.bmin, in.bmax, 1.0f);
        r->watch = ptl_dd_default_color(PTL_DD_COL_PATH);
        ptl_dd_path(&sink, NULL, pts, res.point_count);
        rec_check(r, "path", s->name);
        cr_assert_eq(r->verts[PTL_DD_LINES], 2ull * (res.point_count - 1));
        cr_assert_eq(r->verts[PTL_DD_POINTS], res.point_count);
        cr_assert_eq(r->colour_hits, 3 * res.point_count - 2, "%s: path not in the path colour", s->name);

        uint32_t n = ptl_dd_path_corridor(s->nm, res.start_cell, pts, res.point_count, cells, 8192);
        cr_assert_gt(n, 0);
        cr_assert_leq(n, 8192);
        cr_assert_eq(cells[0], res.start_cell);
        /* it ends in the goal cell, or in a neighbour of it that holds the goal too (on their portal) */
        const float* g = &pts[3 * (res.point_count - 1)];
        cr_assert(cells[n - 1] == res.goal_cell || cell_holds_plan(s->nm, cells[n - 1], g[0], g[2]),
                  "%s: pair %d (cells %u -> %u): corridor of %u cells ends in cell %u, away from the goal (cell %u)",
                  s->name, pair, ca, cb, n, cells[n - 1], res.goal_cell);
        for (uint32_t i = 0; i + 1 < n; ++i) {
            ptl_cell_view cv;
            ptl_navmesh_get_cell(s->nm, cells[i], &cv);
            bool nb = false;
            for (uint32_t k = 0; k < cv.vert_count; ++k) nb |= cv.neighbors[k] == cells[i + 1];
            cr_assert(nb, "%s: corridor steps from cell %u to %u, not neighbours", s->name, cells[i], cells[i + 1]);
        }
        /* the count does not depend on the capacity, and nothing is written past it */
        uint32_t few[3] = {7, 7, 7};
        cr_assert_eq(ptl_dd_path_corridor(s->nm, res.start_cell, pts, res.point_count, few, 2), n);
        cr_assert_eq(few[2], 7);
        rec_reset(r);
        rec_box(r, in.bmin, in.bmax, 0.5f);
        ptl_dd_corridor(&sink, NULL, s->nm, cells, n);
        rec_check(r, "corridor", s->name);
        cr_assert_eq(r->batches[PTL_DD_TRIS], n);
    }
    cr_assert_geq(found, 10, "%s: only %u of 41 paths found: the path drawings are hardly checked", s->name, found);
    free(comp);
    free(stack);
    free(cells);
    free(pts);
    free(walk);
    ptl_query_destroy(q);
}

static void check_scene(scene* s) {
    rec* r = rec_new();
    check_navmesh_drawings(s, r);
    check_bake_drawings(s, r);
    check_path_drawings(s, r);
    rec_free(r);
}

/* ---- Tests -------------------------------------------------------------------------------------*/

Test(debugdraw, primitive_counts_match_the_mesh_on_the_generated_building) {
    scene s;
    scene_building(&s);
    check_scene(&s);
    scene_free(&s);
}

Test(debugdraw, primitive_counts_match_the_mesh_on_the_generated_bridge) {
    scene s;
    scene_bridge(&s);
    check_scene(&s);
    scene_free(&s);
}

Test(debugdraw, primitive_counts_match_the_mesh_on_the_generated_rooms_map) {
    scene s;
    scene_rooms(&s);
    check_scene(&s);
    scene_free(&s);
}

Test(debugdraw, primitive_counts_match_the_mesh_on_every_shared_obj_mesh) {
    TEST_REQUIRE_DATA(data);
    static const char* const names[] = {"dungeon", "bridge", "house", "nav_test", "go-detour-stair2",
                                        "three-pathfinding-level", "undulating"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/meshes/%s.obj", data, names[i]);
        scene s;
        scene_obj(&s, path, names[i]);
        check_scene(&s);
        scene_free(&s);
    }
}

Test(debugdraw, primitive_counts_match_the_mesh_on_a_moving_ai_map) {
    TEST_REQUIRE_DATA(data);
    char path[1024];
    snprintf(path, sizeof path, "%s/grids/dao/arena.map", data);
    struct stat stt;
    if (stat(path, &stt) != 0) {
        fprintf(stderr, "SKIPPED %s: %s is absent\n", __func__, path);
        cr_skip_test("%s absent", path);
    }
    scene s;
    scene_2d_file(&s, path, "arena.map");
    check_scene(&s);
    scene_free(&s);
}

Test(debugdraw, keeping_the_intermediates_does_not_change_the_blob) {
    ptl_scene_desc sd = {.kind = PTL_SCENE_BUILDING, .size = 32, .storeys = 2, .seed = 7};
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    ptl_bake_debug* dbg;
    cr_assert_eq(ptl_bake_debug_create(NULL, &dbg), PTL_OK);
    void *b0, *b1;
    size_t s0, s1;
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    cr_assert_geq(ptl_bake_trimesh(&m, &d, &b0, &s0, NULL, &err), 0, "%s", err.message);
    d.debug = dbg;
    cr_assert_geq(ptl_bake_trimesh(&m, &d, &b1, &s1, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(s0, s1);
    cr_assert(memcmp(b0, b1, s0) == 0, "the blob differs when the bake keeps its intermediates");
    /* a second bake with the same object replaces what the first kept */
    uint32_t n0, n1;
    ptl_bake_debug_solid_spans(dbg, &n0);
    ptl_blob_free(b1, s1, NULL);
    cr_assert_geq(ptl_bake_trimesh(&m, &d, &b1, &s1, NULL, &err), 0, "%s", err.message);
    ptl_bake_debug_solid_spans(dbg, &n1);
    cr_assert_eq(n0, n1);
    ptl_bake_debug_clear(dbg);
    ptl_bake_debug_solid_spans(dbg, &n1);
    cr_assert_eq(n1, 0);
    cr_assert_eq(ptl_bake_debug_layer_count(dbg), 0);
    ptl_blob_free(b0, s0, NULL);
    ptl_blob_free(b1, s1, NULL);
    ptl_bake_debug_destroy(dbg);
    ptl_trimesh_free(&m);
}

Test(debugdraw, null_sinks_and_inputs_draw_nothing_and_do_not_crash) {
    rec* r = rec_new();
    ptl_dd_sink sink = rec_sink(r);
    ptl_dd_cells(NULL, NULL, NULL, 3);
    ptl_dd_cells(&sink, NULL, NULL, 3);
    ptl_dd_portals(&sink, NULL, NULL);
    ptl_dd_links(&sink, NULL, NULL);
    ptl_dd_tiles(&sink, NULL, NULL);
    ptl_dd_contours(&sink, NULL, NULL, 3);
    ptl_dd_notches(&sink, NULL, NULL);
    ptl_dd_solid_spans(&sink, NULL, NULL);
    ptl_dd_layers(&sink, NULL, NULL);
    ptl_dd_trimesh(&sink, NULL, NULL, 0);
    ptl_dd_path(&sink, NULL, NULL, 4);
    ptl_dd_nearest(&sink, NULL, NULL, NULL);
    ptl_dd_raycast(&sink, NULL, NULL);
    ptl_dd_wall_distance(&sink, NULL, (float[3]){0, 0, 0}, NAN, NULL);
    cr_assert_eq(r->n, 0);
    cr_assert_eq(r->errors, 0);
    ptl_dd_sink no_vertex = {r_begin, NULL, r_end, r};
    ptl_dd_path(&no_vertex, NULL, (float[6]){0, 0, 0, 1, 0, 1}, 2);
    cr_assert_eq(r->n, 0);
    cr_assert_eq(ptl_dd_path_corridor(NULL, 0, NULL, 0, NULL, 0), 0);
    /* an empty debug object: nothing to draw */
    ptl_bake_debug* dbg;
    cr_assert_eq(ptl_bake_debug_create(NULL, &dbg), PTL_OK);
    ptl_dd_contours(&sink, NULL, dbg, 3);
    ptl_dd_solid_spans(&sink, NULL, dbg);
    cr_assert_eq(r->verts[0] + r->verts[1] + r->verts[2], 0);
    cr_assert_eq(ptl_bake_debug_stage(dbg), PTL_BAKE_STAGE_NONE);
    cr_assert_eq(ptl_bake_debug_create(NULL, NULL), PTL_ERR_INVALID_ARG);
    ptl_bake_debug_destroy(dbg);
    ptl_bake_debug_destroy(NULL);
    rec_free(r);
}

Test(debugdraw, query_drawings_have_their_documented_shape) {
    rec* r = rec_new();
    ptl_dd_sink sink = rec_sink(r);
    ptl_location loc = {.cell = 3, .point = {1, 0, 1}, .distance = 1};
    ptl_dd_nearest(&sink, NULL, (float[3]){1, 1, 1}, &loc);
    rec_check(r, "nearest", "a point");
    cr_assert_eq(r->verts[PTL_DD_LINES], 2);
    cr_assert_eq(r->verts[PTL_DD_POINTS], 2);
    loc.cell = PTL_NONE;
    rec_reset(r);
    ptl_dd_nearest(&sink, NULL, (float[3]){1, 1, 1}, &loc);
    cr_assert_eq(r->n, 0, "a point not found draws nothing");
    rec_reset(r);
    ptl_dd_ray ray = {.start = {0, 0, 0}, .end = {4, 0, 0}, .hit = true, .hit_point = {2, 0, 0}, .normal = {-1, 0, 0}};
    ptl_dd_raycast(&sink, NULL, &ray);
    rec_check(r, "raycast", "a ray");
    cr_assert_eq(r->verts[PTL_DD_LINES], 6);
    cr_assert_eq(r->verts[PTL_DD_POINTS], 2);
    rec_reset(r);
    ptl_dd_wall_distance(&sink, NULL, (float[3]){0, 0, 0}, 2.0f, (float[3]){2, 0, 0});
    rec_check(r, "wall distance", "a point");
    cr_assert_eq(r->verts[PTL_DD_LINES], 2 * 33);
    cr_assert_eq(r->verts[PTL_DD_POINTS], 2);
    rec_reset(r);
    ptl_dd_move(&sink, NULL, (float[3]){0, 0, 0}, (float[3]){2, 0, 0}, (float[3]){2, 0, 1}, (float[3]){4, 0, 1});
    rec_check(r, "move", "a move");
    cr_assert_eq(r->verts[PTL_DD_LINES], 6, "start -> via -> end, and on to the target");
    cr_assert_eq(r->verts[PTL_DD_POINTS], 1);
    rec_reset(r);
    ptl_dd_move(&sink, NULL, (float[3]){0, 0, 0}, NULL, (float[3]){2, 0, 1}, (float[3]){2, 0, 1});
    cr_assert_eq(r->verts[PTL_DD_LINES], 2, "a move that reached its target: one line");
    /* layer colours are opaque by default and neighbours differ */
    for (uint32_t l = 0; l < 64; ++l) {
        cr_assert_eq(PTL_DD_A(ptl_dd_layer_color(l, 255)), 255);
        cr_assert_neq(ptl_dd_layer_color(l, 255), ptl_dd_layer_color(l + 1, 255));
        cr_assert_neq(ptl_dd_layer_color(l, 255), ptl_dd_default_color(PTL_DD_COL_PATH));
    }
    rec_free(r);
}

Test(debugdraw, a_tiled_bake_keeps_every_stage_but_the_solid_spans) {
    ptl_scene_desc sd = {.kind = PTL_SCENE_BUILDING, .size = 40, .storeys = 3, .seed = 1};
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    ptl_bake_debug* dbg;
    cr_assert_eq(ptl_bake_debug_create(NULL, &dbg), PTL_OK);
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.tile_size = 64;
    d.debug = dbg;
    void* blob;
    size_t size;
    ptl_bake_stats bs;
    cr_assert_geq(ptl_bake_trimesh(&m, &d, &blob, &size, &bs, &err), 0, "%s", err.message);
    uint32_t n, in_layer = 0;
    ptl_bake_debug_solid_spans(dbg, &n);
    cr_assert_eq(n, 0);
    const ptl_dbg_open_span* os = ptl_bake_debug_open_spans(dbg, &n);
    for (uint32_t i = 0; i < n; ++i) in_layer += os[i].layer != PTL_NONE;
    cr_assert_eq(in_layer, bs.walkable_spans);
    ptl_dbg_grid g;
    ptl_bake_debug_get_grid(dbg, &g);
    cr_assert(g.cs > 0 && g.width > 0, "the grid is kept for a tiled bake");
    cr_assert_eq(ptl_bake_debug_layer_count(dbg), bs.layers);
    for (uint32_t l = 0; l < bs.layers; ++l) {
        ptl_dbg_decomp dc;
        cr_assert_eq(ptl_bake_debug_get_decomp(dbg, l, &dc), PTL_OK);
        cr_assert_gt(dc.cell_count, 0);
    }
    ptl_blob_free(blob, size, NULL);
    ptl_bake_debug_destroy(dbg);
    ptl_trimesh_free(&m);
}

/* A tiled bake: the bounds box and the tile grid (tiles_x + 1 lines along z, tiles_z + 1 along x),
   every line inside the grid's extent at the floor of the bounds. */
Test(debugdraw, tiles_of_a_tiled_bake_are_drawn) {
    ptl_scene_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.kind = PTL_SCENE_TERRAIN;
    sd.size = 40;
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.tile_size = 32;
    void* blob;
    size_t size;
    cr_assert_geq(ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err), 0, "%s", err.message);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s", err.message);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    cr_assert(in.tile_size == 32 && in.tiles_x >= 2 && in.tiles_z >= 2, "tiles %u x %u of %u", in.tiles_x, in.tiles_z,
              in.tile_size);
    cr_expect(fabsf(in.tile_side - 32 * 0.3f) < 1e-4f, "tile side %g", in.tile_side);
    rec* r = rec_new();
    ptl_dd_sink sink = rec_sink(r);
    float lo[3] = {fminf(in.bmin[0], in.tile_origin[0]), in.bmin[1], fminf(in.bmin[2], in.tile_origin[1])};
    float hi[3] = {in.tile_origin[0] + in.tiles_x * in.tile_side, in.bmax[1], in.tile_origin[1] + in.tiles_z * in.tile_side};
    rec_box(r, lo, hi, 0.01f);
    ptl_dd_tiles(&sink, NULL, nm);
    rec_check(r, "tiles", "terrain in tiles of 32");
    cr_expect_eq(r->verts[PTL_DD_LINES], 2ull * (12 + in.tiles_x + 1 + in.tiles_z + 1), "%llu tile lines",
                 (unsigned long long)r->verts[PTL_DD_LINES] / 2);
    rec_free(r);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    ptl_trimesh_free(&m);
}
