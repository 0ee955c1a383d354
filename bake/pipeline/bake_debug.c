/* The bake's intermediates kept for debug drawing (<portolan/bake_debug.h>, bake_debug.h).

   Everything is copied into world coordinates at capture time, so that readers (debugdraw, tools)
   need none of the bake's private structures. Heights of contour and decomposition vertices follow
   layer_merge.c's rule (the highest floor of the layer among the columns touching the point, else
   the nearest of its columns), so the drawn stages sit where the final cells do. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "bake_debug.h"
#include "../shape/geom2.h"

typedef PTL_ARRAY(float) f32_array;
typedef PTL_ARRAY(uint32_t) u32_array;
typedef PTL_ARRAY(uint8_t) u8_array;

typedef struct dbg_contour {
    u32_array ring_start;
    f32_array verts;
    u8_array flags;
} dbg_contour;

typedef struct dbg_decomp {
    f32_array verts;
    u32_array cell_start, cell_verts, portal_verts, portal_notch, notches;
} dbg_decomp;

struct ptl_bake_debug {
    ptl_allocator alloc;
    atomic_int stage;
    ptl_dbg_grid grid;
    PTL_ARRAY(ptl_dbg_solid_span) solid;
    u32_array solid_col;     /* width * depth + 1: column (x, z)'s spans are [solid_col[z*width+x], +1) */
    PTL_ARRAY(ptl_dbg_open_span) open;
    uint32_t layer_count;
    dbg_contour* raw;        /* layer_count each (NULL until the contour stage) */
    dbg_contour* simplified;
    dbg_decomp* decomp;      /* layer_count (NULL until the decomposition stage) */
};

ptl_status ptl_bake_debug_create(const ptl_bake_debug_desc* desc, ptl_bake_debug** out) {
    if (!out) return PTL_ERR_INVALID_ARG;
    *out = NULL;
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    ptl_bake_debug* d = ptl_mem_calloc(&a, 1, sizeof *d);
    if (!d) return PTL_ERR_NO_MEMORY;
    d->alloc = a;
    atomic_init(&d->stage, PTL_BAKE_STAGE_NONE);
    *out = d;
    return PTL_OK;
}

static void contour_free(const ptl_allocator* a, dbg_contour* c) {
    PTL_ARRAY_FREE(a, c->ring_start);
    PTL_ARRAY_FREE(a, c->verts);
    PTL_ARRAY_FREE(a, c->flags);
}

static void decomp_free(const ptl_allocator* a, dbg_decomp* d) {
    PTL_ARRAY_FREE(a, d->verts);
    PTL_ARRAY_FREE(a, d->cell_start);
    PTL_ARRAY_FREE(a, d->cell_verts);
    PTL_ARRAY_FREE(a, d->portal_verts);
    PTL_ARRAY_FREE(a, d->portal_notch);
    PTL_ARRAY_FREE(a, d->notches);
}

/* Frees the per-layer arrays (they are sized by layer_count). */
static void free_layers(ptl_bake_debug* d) {
    const ptl_allocator* a = &d->alloc;
    for (uint32_t l = 0; l < d->layer_count; ++l) {
        if (d->raw) contour_free(a, &d->raw[l]);
        if (d->simplified) contour_free(a, &d->simplified[l]);
        if (d->decomp) decomp_free(a, &d->decomp[l]);
    }
    ptl_mem_free(a, d->raw, (size_t)d->layer_count * sizeof *d->raw);
    ptl_mem_free(a, d->simplified, (size_t)d->layer_count * sizeof *d->simplified);
    ptl_mem_free(a, d->decomp, (size_t)d->layer_count * sizeof *d->decomp);
    d->raw = d->simplified = NULL;
    d->decomp = NULL;
    d->layer_count = 0;
}

void ptl_bake_debug_clear(ptl_bake_debug* d) {
    if (!d) return;
    free_layers(d);
    PTL_ARRAY_FREE(&d->alloc, d->solid);
    PTL_ARRAY_FREE(&d->alloc, d->solid_col);
    PTL_ARRAY_FREE(&d->alloc, d->open);
    memset(&d->grid, 0, sizeof d->grid);
}

void ptl_bake_debug_destroy(ptl_bake_debug* d) {
    if (!d) return;
    ptl_bake_debug_clear(d);
    ptl_allocator a = d->alloc;
    ptl_mem_free(&a, d, sizeof *d);
}

void ptl_bake_debug_begin(ptl_bake_debug* d) {
    if (!d) return;
    ptl_bake_debug_clear(d);
    atomic_store(&d->stage, PTL_BAKE_STAGE_NONE);
}

void ptl_bake_debug_stage_done(ptl_bake_debug* d, ptl_bake_stage s) {
    if (d) atomic_store(&d->stage, (int)s);
}

ptl_bake_stage ptl_bake_debug_stage(const ptl_bake_debug* d) {
    if (!d) return PTL_BAKE_STAGE_NONE;
    return (ptl_bake_stage)atomic_load(&((ptl_bake_debug*)d)->stage);
}

const char* ptl_bake_stage_name(ptl_bake_stage s) {
    static const char* names[PTL_BAKE_STAGE_COUNT] = {"none",     "voxelize",  "filter", "layers",
                                                      "contours", "decompose", "merge",  "done"};
    return (unsigned)s < PTL_BAKE_STAGE_COUNT ? names[s] : "unknown";
}

/* ---- capture ----------------------------------------------------------------------------------*/

static ptl_status oom(ptl_error* err) { return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake debug: out of memory"); }

ptl_status ptl_bake_debug_keep_heightfield(ptl_bake_debug* d, const ptl_heightfield* hf, ptl_error* err) {
    if (!d) return PTL_OK;
    const ptl_vx_params* p = &hf->p;
    memcpy(d->grid.bmin, p->bmin, sizeof d->grid.bmin);
    d->grid.cs = p->cs, d->grid.ch = p->ch;
    d->grid.width = p->width, d->grid.depth = p->depth;
    size_t cols = (size_t)p->width * (size_t)p->depth;
    if (!PTL_RESERVE(&d->alloc, d->solid, hf->span_count) || !PTL_RESERVE(&d->alloc, d->solid_col, cols + 1))
        return oom(err);
    d->solid.count = 0;
    memcpy(d->solid_col.data, hf->col_start, (cols + 1) * sizeof(uint32_t));
    d->solid_col.count = (uint32_t)(cols + 1);
    for (int32_t z = 0; z < p->depth; ++z) {
        for (int32_t x = 0; x < p->width; ++x) {
            size_t c = (size_t)z * (size_t)p->width + (size_t)x;
            for (uint32_t i = hf->col_start[c]; i < hf->col_start[c + 1]; ++i) {
                ptl_dbg_solid_span s;
                memset(&s, 0, sizeof s);
                s.x = x, s.z = z;
                s.smin = hf->spans[i].smin, s.smax = hf->spans[i].smax;
                s.walkable = hf->spans[i].walkable;
                d->solid.data[d->solid.count++] = s;
            }
        }
    }
    ptl_bake_debug_stage_done(d, PTL_BAKE_STAGE_VOXELIZE);
    return PTL_OK;
}

ptl_status ptl_bake_debug_keep_open(ptl_bake_debug* d, const ptl_open_field* of, uint32_t layer_count, ptl_error* err) {
    if (!d) return PTL_OK;
    if (!PTL_RESERVE(&d->alloc, d->open, of->span_count)) return oom(err);
    d->open.count = 0;
    /* the grid again: a tiled bake assembles the open field without a whole solid heightfield (its
       solid spans are not kept) */
    memcpy(d->grid.bmin, of->p.bmin, sizeof d->grid.bmin);
    d->grid.cs = of->p.cs, d->grid.ch = of->p.ch;
    d->grid.width = of->p.width, d->grid.depth = of->p.depth;
    int32_t w = of->p.width;
    for (uint32_t i = 0; i < of->span_count; ++i) {
        const ptl_open_span* s = &of->spans[i];
        ptl_dbg_open_span o;
        const uint32_t c = ptl_filter_span_col(of, i);
        o.x = (int32_t)(c % (uint32_t)w), o.z = (int32_t)(c / (uint32_t)w);
        o.floor = s->floor, o.ceil = s->ceil;
        o.layer = s->layer == PTL_VX_NONE ? PTL_NONE : s->layer;
        d->open.data[d->open.count++] = o;
    }
    free_layers(d);
    d->layer_count = layer_count;
    ptl_bake_debug_stage_done(d, PTL_BAKE_STAGE_LAYERS);
    return PTL_OK;
}

/* A lattice point of layer contour c (or a 2D point when of is NULL) in world space. */
static bool push_point(const ptl_allocator* a, f32_array* out, const ptl_layer_map* of, const ptl_layer_contour* c,
                       double u, double v) {
    float x, y, z;
    if (of) {
        x = (float)(of->p.bmin[0] + ((double)c->x0 + u) * of->p.cs);
        z = (float)(of->p.bmin[2] + ((double)c->z0 + v) * of->p.cs);
        y = (float)ptl_contour_height(of, c, u, v);
    } else {
        x = (float)u, y = 0, z = (float)v;
    }
    return PTL_PUSH(a, *out, x) && PTL_PUSH(a, *out, y) && PTL_PUSH(a, *out, z);
}

/* Is vertex i of shape s reflex? (free space on the left: a right turn) */
static bool is_notch(const ptl_shape* s, uint32_t ring, uint32_t i) {
    uint32_t b = s->ring_start[ring], n = s->ring_start[ring + 1] - b, k = i - b;
    const double* p = &s->xy[2 * (b + (k + n - 1) % n)];
    const double* q = &s->xy[2 * i];
    const double* r = &s->xy[2 * (b + (k + 1) % n)];
    return (q[0] - p[0]) * (r[1] - q[1]) - (q[1] - p[1]) * (r[0] - q[0]) < 0;
}

/* Copies the rings of s (edge kinds from edge_to when given) into c. */
static bool copy_contour(const ptl_allocator* a, dbg_contour* c, const ptl_shape* s, const uint32_t* edge_to,
                         const ptl_layer_map* of, const ptl_layer_contour* lc) {
    if (!PTL_RESERVE(a, c->ring_start, s->ring_count + 1) || !PTL_RESERVE(a, c->flags, s->vert_count) ||
        !PTL_RESERVE(a, c->verts, (uint64_t)s->vert_count * 3))
        return false;
    for (uint32_t r = 0; r < s->ring_count; ++r) {
        c->ring_start.data[c->ring_start.count++] = s->ring_start[r];
        for (uint32_t i = s->ring_start[r]; i < s->ring_start[r + 1]; ++i) {
            if (!push_point(a, &c->verts, of, lc, s->xy[2 * i], s->xy[2 * i + 1])) return false;
            uint8_t f = 0;
            /* edge_to: PTL_NONE for a wall, a layer id for a junction, or a gap link's kind with the
               top bit set (contours.h, PTL_KIND_GAP). */
            if (edge_to && edge_to[i] != PTL_NONE) f |= edge_to[i] & 0x80000000u ? PTL_DBG_VERT_GAP : PTL_DBG_VERT_JUNCTION;
            if (is_notch(s, r, i)) f |= PTL_DBG_VERT_NOTCH;
            c->flags.data[c->flags.count++] = f;
        }
    }
    c->ring_start.data[c->ring_start.count++] = s->vert_count;
    return true;
}

ptl_status ptl_bake_debug_keep_contours(ptl_bake_debug* d, const ptl_layer_map* of, const ptl_layer_set* ls,
                                        const ptl_layer_contour* lc, uint32_t nl, ptl_error* err) {
    if (!d) return PTL_OK;
    const ptl_allocator* a = &d->alloc;
    if (nl != d->layer_count) return ptl_error_set(err, PTL_ERR_INTERNAL, "bake debug: %u contours for %u layers", nl,
                                                   d->layer_count);
    if (nl) {
        d->raw = ptl_mem_calloc(a, nl, sizeof *d->raw);
        d->simplified = ptl_mem_calloc(a, nl, sizeof *d->simplified);
        if (!d->raw || !d->simplified) return oom(err);
    }
    for (uint32_t l = 0; l < nl; ++l) {
        if (!copy_contour(a, &d->simplified[l], &lc[l].shape, lc[l].edge_to, of, &lc[l])) return oom(err);
        /* The raw outline: the same tracing with simplification off (tolerance 0 keeps every corner
           point; only collinear points inside a run of one kind go, as they do in the tracer). */
        ptl_layer_contour raw;
        ptl_status st = ptl_contour_layer(of, ls, l, 0.0, a, &raw, err);
        if (st < 0) return st;
        bool ok = copy_contour(a, &d->raw[l], &raw.shape, raw.edge_to, of, &raw);
        ptl_layer_contour_free(&raw);
        if (!ok) return oom(err);
    }
    ptl_bake_debug_stage_done(d, PTL_BAKE_STAGE_CONTOURS);
    return PTL_OK;
}

/* Copies decomposition dc of shape s into out (vertices through of/lc, or 2D when of is NULL). */
static bool copy_decomp(const ptl_allocator* a, dbg_decomp* out, const ptl_shape* s, const ptl_decomposition* dc,
                        const ptl_layer_map* of, const ptl_layer_contour* lc) {
    for (uint32_t v = 0; v < dc->vert_count; ++v)
        if (!push_point(a, &out->verts, of, lc, dc->xy[2 * v], dc->xy[2 * v + 1])) return false;
    uint32_t total = dc->cell_start[dc->cell_count];
    if (!PTL_RESERVE(a, out->cell_start, dc->cell_count + 1) || !PTL_RESERVE(a, out->cell_verts, total) ||
        !PTL_RESERVE(a, out->portal_verts, (uint64_t)dc->portal_count * 2) ||
        !PTL_RESERVE(a, out->portal_notch, dc->portal_count))
        return false;
    memcpy(out->cell_start.data, dc->cell_start, ((size_t)dc->cell_count + 1) * sizeof(uint32_t));
    out->cell_start.count = dc->cell_count + 1;
    memcpy(out->cell_verts.data, dc->cell_verts, (size_t)total * sizeof(uint32_t));
    out->cell_verts.count = total;
    /* Notches: reflex vertices of the shape (the decomposition's first vertices are the shape's). */
    uint8_t* notch = ptl_mem_calloc(a, (size_t)s->vert_count + 1, 1);
    if (!notch) return false;
    bool ok = true;
    for (uint32_t r = 0; r < s->ring_count && ok; ++r)
        for (uint32_t i = s->ring_start[r]; i < s->ring_start[r + 1] && ok; ++i)
            if (is_notch(s, r, i)) notch[i] = 1, ok = PTL_PUSH(a, out->notches, i);
    /* decompose.c adds every portal as (notch being resolved, element it reaches): v[0] is the notch
       whose resolution created the portal. */
    for (uint32_t p = 0; p < dc->portal_count && ok; ++p) {
        uint32_t v0 = dc->portals[p].v[0], v1 = dc->portals[p].v[1];
        out->portal_verts.data[out->portal_verts.count++] = v0;
        out->portal_verts.data[out->portal_verts.count++] = v1;
        out->portal_notch.data[out->portal_notch.count++] = v0 < s->vert_count && notch[v0] ? v0 : PTL_NONE;
    }
    ptl_mem_free(a, notch, (size_t)s->vert_count + 1);
    return ok;
}

ptl_status ptl_bake_debug_keep_decomps(ptl_bake_debug* d, const ptl_layer_map* of, const ptl_layer_contour* lc,
                                       const ptl_decomposition* dc, uint32_t nl, ptl_error* err) {
    if (!d) return PTL_OK;
    if (nl != d->layer_count) return ptl_error_set(err, PTL_ERR_INTERNAL, "bake debug: %u decompositions for %u layers",
                                                   nl, d->layer_count);
    if (nl) {
        d->decomp = ptl_mem_calloc(&d->alloc, nl, sizeof *d->decomp);
        if (!d->decomp) return oom(err);
    }
    for (uint32_t l = 0; l < nl; ++l)
        if (!copy_decomp(&d->alloc, &d->decomp[l], &lc[l].shape, &dc[l], of, &lc[l])) return oom(err);
    ptl_bake_debug_stage_done(d, PTL_BAKE_STAGE_DECOMPOSE);
    return PTL_OK;
}

ptl_status ptl_bake_debug_keep_shape(ptl_bake_debug* d, const ptl_shape* s, const ptl_decomposition* dc,
                                     ptl_error* err) {
    if (!d) return PTL_OK;
    free_layers(d);
    const ptl_allocator* a = &d->alloc;
    d->layer_count = 1;
    d->raw = ptl_mem_calloc(a, 1, sizeof *d->raw);
    d->simplified = ptl_mem_calloc(a, 1, sizeof *d->simplified);
    d->decomp = ptl_mem_calloc(a, 1, sizeof *d->decomp);
    if (!d->raw || !d->simplified || !d->decomp) return oom(err);
    if (!copy_contour(a, &d->raw[0], s, NULL, NULL, NULL) || !copy_contour(a, &d->simplified[0], s, NULL, NULL, NULL) ||
        !copy_decomp(a, &d->decomp[0], s, dc, NULL, NULL))
        return oom(err);
    ptl_bake_debug_stage_done(d, PTL_BAKE_STAGE_DECOMPOSE);
    return PTL_OK;
}

/* ---- read accessors ---------------------------------------------------------------------------*/

void ptl_bake_debug_get_grid(const ptl_bake_debug* d, ptl_dbg_grid* out) {
    if (!out) return;
    if (d) *out = d->grid;
    else memset(out, 0, sizeof *out);
}

const ptl_dbg_solid_span* ptl_bake_debug_solid_spans(const ptl_bake_debug* d, uint32_t* count) {
    if (count) *count = d ? d->solid.count : 0;
    return d ? d->solid.data : NULL;
}

const ptl_dbg_open_span* ptl_bake_debug_open_spans(const ptl_bake_debug* d, uint32_t* count) {
    if (count) *count = d ? d->open.count : 0;
    return d ? d->open.data : NULL;
}

const ptl_dbg_solid_span* ptl_bake_debug_solid_column(const ptl_bake_debug* d, int32_t x, int32_t z,
                                                      uint32_t* count) {
    if (count) *count = 0;
    if (!d || x < 0 || z < 0 || x >= d->grid.width || z >= d->grid.depth || !d->solid_col.count) return NULL;
    size_t c = (size_t)z * (size_t)d->grid.width + (size_t)x;
    if (count) *count = d->solid_col.data[c + 1] - d->solid_col.data[c];
    return d->solid.data + d->solid_col.data[c];
}

uint32_t ptl_bake_debug_layer_count(const ptl_bake_debug* d) { return d ? d->layer_count : 0; }

ptl_status ptl_bake_debug_get_contour(const ptl_bake_debug* d, uint32_t layer, bool simplified, ptl_dbg_contour* out) {
    if (!d || !out || layer >= d->layer_count) return PTL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->layer = layer;
    const dbg_contour* c = simplified ? d->simplified : d->raw;
    if (!c || c[layer].ring_start.count == 0) return PTL_OK; /* the bake stopped before this stage */
    c += layer;
    out->ring_count = c->ring_start.count - 1;
    out->ring_start = c->ring_start.data;
    out->vert_count = c->flags.count;
    out->verts = c->verts.data;
    out->flags = c->flags.data;
    return PTL_OK;
}

ptl_status ptl_bake_debug_get_decomp(const ptl_bake_debug* d, uint32_t layer, ptl_dbg_decomp* out) {
    if (!d || !out || layer >= d->layer_count) return PTL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->layer = layer;
    if (!d->decomp || d->decomp[layer].cell_start.count == 0) return PTL_OK;
    const dbg_decomp* c = &d->decomp[layer];
    out->vert_count = c->verts.count / 3;
    out->verts = c->verts.data;
    out->cell_count = c->cell_start.count - 1;
    out->cell_start = c->cell_start.data;
    out->cell_verts = c->cell_verts.data;
    out->portal_count = c->portal_notch.count;
    out->portal_verts = c->portal_verts.data;
    out->portal_notch = c->portal_notch.data;
    out->notch_count = c->notches.count;
    out->notches = c->notches.data;
    return PTL_OK;
}
