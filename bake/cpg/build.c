/* Writing the runtime blob from a decomposition: vertices lifted to the x-z plane (2D (x, y) is
   world (x, 0, y)), cells and their neighbours, portals, and a point-location grid whose buckets
   list every cell whose bounds overlap them. Deterministic: the output depends only on the input
   arrays and their order. */
#include <float.h>
#include <math.h>
#include <string.h>

#include <portolan/bake.h>

#include "../../runtime/internal.h"
#include "build.h"
#include "../shape/geom2.h"

static uint64_t align8(uint64_t x) { return (x + 7) & ~(uint64_t)7; }

/* floor(f) clamped to the buckets 0..n-1 before the conversion (NaN: 0). */
static int64_t bucket_index(double f, uint32_t n) {
    f = floor(f);
    if (!(f > 0)) return 0;
    return f >= (double)n ? (int64_t)n - 1 : (int64_t)f;
}

/* Edge index of `cell` which runs a -> b. */
static uint32_t find_edge(const ptl_cpg_in* d, uint32_t cell, uint32_t a, uint32_t b) {
    uint32_t s = d->cell_start[cell], n = d->cell_start[cell + 1] - s;
    for (uint32_t i = 0; i < n; ++i)
        if (d->cell_verts[s + i] == a && d->cell_verts[s + (i + 1) % n] == b) return i;
    return PTL_NONE;
}

/* ---- Height grids in blocks (navmesh_format.h, ptl_blob_hblock) ------------------------------- */

typedef struct hpack {
    ptl_blob_grid* grids;          /* cell_count: the input's, `first` becoming a block index */
    PTL_ARRAY(ptl_blob_hblock) blocks;
    PTL_ARRAY(uint8_t) data;
} hpack;

/* Packs the 8 x 8 block (bx, bz) of the w x d floor grid at `h` (row-major). */
static bool pack_block(const ptl_allocator* a, hpack* hp, const uint16_t* h, uint32_t w, uint32_t d, uint32_t bx,
                       uint32_t bz) {
    const uint32_t B = PTL_HEIGHT_BLOCK;
    uint16_t v[PTL_HEIGHT_BLOCK * PTL_HEIGHT_BLOCK];
    uint32_t lo = PTL_HEIGHT_NONE, hi = 0;
    bool none = false;
    for (uint32_t z = 0; z < B; ++z)
        for (uint32_t x = 0; x < B; ++x) {
            const uint32_t gx = bx * B + x, gz = bz * B + z;
            const uint16_t f = gx < w && gz < d ? h[(size_t)gz * w + gx] : (uint16_t)PTL_HEIGHT_NONE;
            v[z * B + x] = f;
            if (f == PTL_HEIGHT_NONE) {
                none = true;
                continue;
            }
            lo = f < lo ? f : lo, hi = f > hi ? f : hi;
        }
    ptl_blob_hblock blk = {0, (uint16_t)lo, PTL_HBLOCK_FLAT, 0};
    if (lo == PTL_HEIGHT_NONE || (lo == hi && !none)) return PTL_PUSH(a, hp->blocks, blk); /* nothing to store */
    const uint32_t range = hi - lo;
    blk.kind = range < 15 ? PTL_HBLOCK_U4 : range < 255 ? PTL_HBLOCK_U8 : PTL_HBLOCK_U16;
    if (blk.kind == PTL_HBLOCK_U16 && (hp->data.count & 1) && !PTL_PUSH(a, hp->data, 0)) return false;
    blk.data = hp->data.count;
    const uint32_t n = ptl_hblock_bytes(blk.kind);
    if (!PTL_RESERVE(a, hp->data, (uint64_t)hp->data.count + n)) return false;
    uint8_t* out = hp->data.data + hp->data.count;
    memset(out, 0, n);
    for (uint32_t i = 0; i < B * B; ++i) {
        const uint32_t f = v[i];
        if (blk.kind == PTL_HBLOCK_U4) out[i / 2] |= (uint8_t)((f == PTL_HEIGHT_NONE ? 15u : f - lo) << (4 * (i & 1)));
        else if (blk.kind == PTL_HBLOCK_U8) out[i] = (uint8_t)(f == PTL_HEIGHT_NONE ? 255u : f - lo);
        else memcpy(out + 2 * i, &v[i], 2);
    }
    hp->data.count += n;
    return PTL_PUSH(a, hp->blocks, blk);
}

/* Every cell's grid in blocks, in cell order (the packing depends only on the input); cells whose
   grids start at the same entry (a layer's shared grid, layer_merge.c) share its blocks, found
   through a hash map from that entry to the first block. */
static bool pack_heights(const ptl_cpg_in* d, const ptl_allocator* a, hpack* hp) {
    hp->grids = ptl_mem_alloc(a, (size_t)d->cell_count * sizeof *hp->grids);
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)d->cell_count) cap *= 2;
    uint32_t* key = ptl_mem_alloc(a, (size_t)cap * 2 * sizeof *key); /* pairs (entry, block); UINT32_MAX: empty */
    bool ok = hp->grids && key;
    if (ok) {
        memcpy(hp->grids, d->cell_grids, (size_t)d->cell_count * sizeof *hp->grids);
        memset(key, 0xff, (size_t)cap * 2 * sizeof *key);
    }
    for (uint32_t c = 0; ok && c < d->cell_count; ++c) {
        ptl_blob_grid* g = &hp->grids[c];
        if (!g->w || !g->d) {
            g->first = 0;
            continue;
        }
        uint32_t slot = (g->first * 2654435761u) & (cap - 1);
        while (key[2 * slot] != UINT32_MAX && key[2 * slot] != g->first) slot = (slot + 1) & (cap - 1);
        if (key[2 * slot] == g->first) {
            g->first = key[2 * slot + 1];
            continue;
        }
        const uint16_t* h = d->heights + g->first;
        key[2 * slot] = g->first, key[2 * slot + 1] = hp->blocks.count;
        g->first = hp->blocks.count;
        const uint32_t bw = (g->w + PTL_HEIGHT_BLOCK - 1) / PTL_HEIGHT_BLOCK;
        const uint32_t bd = (g->d + PTL_HEIGHT_BLOCK - 1) / PTL_HEIGHT_BLOCK;
        for (uint32_t bz = 0; ok && bz < bd; ++bz)
            for (uint32_t bx = 0; ok && bx < bw; ++bx) ok = pack_block(a, hp, h, g->w, g->d, bx, bz);
    }
    ptl_mem_free(a, key, (size_t)cap * 2 * sizeof *key);
    return ok;
}

static void hpack_free(const ptl_allocator* a, hpack* hp, uint32_t cell_count) {
    ptl_mem_free(a, hp->grids, (size_t)cell_count * sizeof *hp->grids);
    PTL_ARRAY_FREE(a, hp->blocks);
    PTL_ARRAY_FREE(a, hp->data);
}

ptl_status ptl_bake_decomposition(const ptl_decomposition* d, const ptl_blob_desc* desc, void** blob, size_t* size,
                                  ptl_error* err) {
    if (!d || !blob || !size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_bake_decomposition: NULL argument");
    const uint32_t flags = desc ? desc->flags : 0;
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    double* xyz = ptl_mem_alloc(&a, ((size_t)d->vert_count + 1) * 3 * sizeof(double));
    if (!xyz) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    for (uint32_t v = 0; v < d->vert_count; ++v) { /* 2D (x, y) is world (x, 0, y) */
        xyz[3 * v] = d->xy[2 * v];
        xyz[3 * v + 1] = 0;
        xyz[3 * v + 2] = d->xy[2 * v + 1];
    }
    ptl_cpg_in in;
    memset(&in, 0, sizeof in);
    in.vert_count = d->vert_count;
    in.xyz = xyz;
    in.cell_count = d->cell_count;
    in.cell_start = d->cell_start;
    in.cell_verts = d->cell_verts;
    in.cell_nbrs = d->cell_nbrs;
    in.portal_count = d->portal_count;
    in.portals = d->portals;
    in.flags = flags;
    in.relax = d->relax;
    ptl_status st = ptl_cpg_build(&in, &a, blob, size, err);
    ptl_mem_free(&a, xyz, ((size_t)d->vert_count + 1) * 3 * sizeof(double));
    return st;
}

/* The blob writer's state: the input, the point-location grid planned over it, the header with
   its section offsets, then the blob, one writer per section. */
typedef struct cpg_writer {
    const ptl_cpg_in* d;
    ptl_allocator a;
    ptl_error* err;
    uint32_t total;         /* cell vertices, all cells */
    double x0, z0, x1, z1;  /* bounds in x-z */
    double y0, y1;
    uint32_t nx, nz;        /* point-location grid: buckets a side */
    float cellf, bx0, bz0;  /* its bucket size and origin, as the blob stores them */
    uint32_t* counts;       /* nx * nz + 1: items before each bucket */
    uint32_t* range;        /* 4 per cell: its buckets x0, x1, z0, z1 */
    uint64_t items;
    hpack hp;
    uint32_t grid_count;    /* height grids: one per cell, or none */
    uint8_t* vflags;        /* vert_count + 1: PTL_VERT_*, found before the blob is allocated */
    ptl_blob_header hd;
    uint8_t* b;
    uint64_t off;           /* the blob's size */
} cpg_writer;

static void cpg_writer_free(cpg_writer* w) {
    hpack_free(&w->a, &w->hp, w->d->cell_count);
    ptl_mem_free(&w->a, w->b, (size_t)w->off);
    ptl_mem_free(&w->a, w->counts, ((size_t)w->nx * w->nz + 1) * sizeof(uint32_t));
    ptl_mem_free(&w->a, w->range, (size_t)w->d->cell_count * 4 * sizeof(uint32_t));
    ptl_mem_free(&w->a, w->vflags, (size_t)w->d->vert_count + 1);
    w->b = NULL, w->counts = w->range = NULL, w->vflags = NULL;
}

/* Cells of at most PTL_MAX_CELL_VERTS vertices, and the bounds. Every coordinate must survive the
   conversion to the blob's floats. */
static ptl_status cpg_check_bounds(cpg_writer* w) {
    const ptl_cpg_in* d = w->d;
    if (d->cell_count == 0) return ptl_error_set(w->err, PTL_ERR_BAD_INPUT, "bake: no cells");
    w->total = d->cell_start[d->cell_count];
    for (uint32_t c = 0; c < d->cell_count; ++c)
        if (d->cell_start[c + 1] - d->cell_start[c] > PTL_MAX_CELL_VERTS)
            return ptl_error_set(w->err, PTL_ERR_BAD_INPUT, "bake: cell %u has more than %u vertices", c, PTL_MAX_CELL_VERTS);
    w->x0 = DBL_MAX, w->z0 = DBL_MAX, w->x1 = -DBL_MAX, w->z1 = -DBL_MAX;
    w->y0 = DBL_MAX, w->y1 = -DBL_MAX;
    for (uint32_t v = 0; v < d->vert_count; ++v) {
        const double* p = &d->xyz[3 * v];
        if (!(fabs(p[0]) <= PTL_BAKE_COORD_MAX && fabs(p[1]) <= PTL_BAKE_COORD_MAX && fabs(p[2]) <= PTL_BAKE_COORD_MAX))
            return ptl_error_set(w->err, PTL_ERR_BAD_INPUT,
                                 "bake: vertex %u (%g, %g, %g) is not finite or beyond +-%g, more than the navmesh's "
                                 "float coordinates hold", v, p[0], p[1], p[2], PTL_BAKE_COORD_MAX);
        w->x0 = fmin(w->x0, p[0]), w->x1 = fmax(w->x1, p[0]);
        w->y0 = fmin(w->y0, p[1]), w->y1 = fmax(w->y1, p[1]);
        w->z0 = fmin(w->z0, p[2]), w->z1 = fmax(w->z1, p[2]);
    }
    return PTL_OK;
}

/* The point-location grid: about two cells per bucket; every bucket index is clamped in double
   before it becomes an integer, so that no input can index past the grid. Buckets are computed
   with the float values stored in the blob, exactly as the runtime will. */
static ptl_status cpg_plan_grid(cpg_writer* w) {
    const ptl_cpg_in* d = w->d;
    double wx = fmax(w->x1 - w->x0, 1e-6), wz = fmax(w->z1 - w->z0, 1e-6);
    double cell = sqrt(wx * wz / (d->cell_count / 2.0 + 1));
    if (cell < wx / 4096) cell = wx / 4096;
    if (cell < wz / 4096) cell = wz / 4096;
    /* At most 4097 buckets a side; the sizes are checked before they become integers. */
    const double fnx = floor(wx / cell) + 1, fnz = floor(wz / cell) + 1;
    w->cellf = (float)cell;
    if (!(w->cellf > 0 && w->cellf <= FLT_MAX && fnx >= 1 && fnx <= 4097 && fnz >= 1 && fnz <= 4097))
        return ptl_error_set(w->err, PTL_ERR_BAD_INPUT, "bake: no point-location grid fits the bounds (%g, %g)-(%g, %g)",
                             w->x0, w->z0, w->x1, w->z1);
    const uint32_t nx = (uint32_t)fnx, nz = (uint32_t)fnz;
    w->nx = nx, w->nz = nz;
    w->bx0 = (float)w->x0, w->bz0 = (float)w->z0;
    w->counts = ptl_mem_calloc(&w->a, (size_t)nx * nz + 1, sizeof(uint32_t));
    w->range = ptl_mem_alloc(&w->a, (size_t)d->cell_count * 4 * sizeof(uint32_t));
    if (!w->counts || !w->range) return ptl_error_set(w->err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    for (uint32_t c = 0; c < d->cell_count; ++c) {
        double cx0 = DBL_MAX, cz0 = DBL_MAX, cx1 = -DBL_MAX, cz1 = -DBL_MAX;
        for (uint32_t i = d->cell_start[c]; i < d->cell_start[c + 1]; ++i) {
            uint32_t v = d->cell_verts[i];
            float fx = (float)d->xyz[3 * v], fz = (float)d->xyz[3 * v + 2];
            cx0 = fmin(cx0, fx), cx1 = fmax(cx1, fx), cz0 = fmin(cz0, fz), cz1 = fmax(cz1, fz);
        }
        const double fx0 = (cx0 - w->bx0) / w->cellf, fx1 = (cx1 - w->bx0) / w->cellf;
        const double fz0 = (cz0 - w->bz0) / w->cellf, fz1 = (cz1 - w->bz0) / w->cellf;
        int64_t ix0 = bucket_index(fx0, nx), ix1 = bucket_index(fx1, nx);
        int64_t iz0 = bucket_index(fz0, nz), iz1 = bucket_index(fz1, nz);
        /* A point on a bucket border may be looked up in either bucket: widen by one where it touches. */
        if (ix0 > 0 && fx0 == (double)ix0) --ix0;
        if (iz0 > 0 && fz0 == (double)iz0) --iz0;
        uint32_t* r = &w->range[4 * c];
        r[0] = (uint32_t)ix0, r[1] = (uint32_t)ix1, r[2] = (uint32_t)iz0, r[3] = (uint32_t)iz1;
        for (int64_t z = iz0; z <= iz1; ++z)
            for (int64_t x = ix0; x <= ix1; ++x) w->counts[z * nx + x + 1]++, ++w->items;
    }
    if (w->items > UINT32_MAX) return ptl_error_set(w->err, PTL_ERR_BAD_INPUT, "bake: point-location index too large");
    for (uint64_t i = 0; i < (uint64_t)nx * nz; ++i) w->counts[i + 1] += w->counts[i];
    return PTL_OK;
}

/* The header: counts, bounds and every section's offset (the height grids packed to know theirs). */
static ptl_status cpg_layout(cpg_writer* w) {
    const ptl_cpg_in* d = w->d;
    ptl_blob_header* hd = &w->hd;
    memset(hd, 0, sizeof *hd);
    hd->magic[0] = PTL_BLOB_MAGIC0, hd->magic[1] = PTL_BLOB_MAGIC1, hd->magic[2] = PTL_BLOB_MAGIC2;
    hd->magic[3] = PTL_BLOB_MAGIC3;
    hd->version = PTL_BLOB_VERSION;
    hd->endian = PTL_BLOB_ENDIAN;
    hd->header_size = sizeof *hd;
    hd->flags = d->flags | (d->relax > 0 ? PTL_NAVMESH_RELAXED : 0);
    hd->vert_count = d->vert_count;
    hd->cell_count = d->cell_count;
    hd->cell_vert_total = w->total;
    hd->portal_count = d->portal_count;
    hd->tile_count = d->tile_size ? d->tiles_x * d->tiles_z : 1;
    hd->tile_size = d->tile_size;
    hd->tiles_x = d->tile_size ? d->tiles_x : 1;
    hd->layer_count = d->layer_count ? d->layer_count : 1;
    hd->vox_cs = d->vox_cs, hd->vox_ch = d->vox_ch;
    memcpy(hd->vox_origin, d->vox_origin, sizeof hd->vox_origin);
    hd->grid_nx = w->nx;
    hd->grid_nz = w->nz;
    hd->grid_item_count = (uint32_t)w->items;
    hd->bmin[0] = w->bx0, hd->bmin[1] = (float)w->y0, hd->bmin[2] = w->bz0;
    hd->bmax[0] = (float)w->x1, hd->bmax[1] = (float)w->y1, hd->bmax[2] = (float)w->z1;
    hd->grid_cell = w->cellf;
    hd->relax = d->relax;
    uint64_t off = sizeof *hd;
    hd->off_verts = off, off = align8(off + (uint64_t)d->vert_count * 12);
    hd->off_vert_flags = off, off = align8(off + d->vert_count);
    hd->off_cells = off, off = align8(off + (uint64_t)d->cell_count * sizeof(ptl_blob_cell));
    hd->off_cell_verts = off, off = align8(off + (uint64_t)w->total * 4);
    hd->off_cell_nbrs = off, off = align8(off + (uint64_t)w->total * 4);
    hd->off_portals = off, off = align8(off + (uint64_t)d->portal_count * sizeof(ptl_blob_portal));
    hd->off_grid_offsets = off, off = align8(off + ((uint64_t)w->nx * w->nz + 1) * 4);
    hd->off_grid_items = off, off = align8(off + w->items * 4);
    w->grid_count = d->height_count && d->cell_grids ? d->cell_count : 0;
    if (w->grid_count && !pack_heights(d, &w->a, &w->hp))
        return ptl_error_set(w->err, PTL_ERR_NO_MEMORY, "bake: out of memory packing height grids");
    hd->height_count = w->hp.blocks.count;
    hd->height_bytes = w->hp.data.count;
    hd->off_cell_grids = off, off = align8(off + (uint64_t)w->grid_count * sizeof(ptl_blob_grid));
    hd->off_heights = off;
    off = align8(off + (uint64_t)w->hp.blocks.count * sizeof(ptl_blob_hblock) + w->hp.data.count);
    hd->link_count = d->link_count;
    hd->off_links = off, off = align8(off + (uint64_t)d->link_count * sizeof(ptl_blob_link));
    uint32_t lids = 0;
    for (uint32_t p = 0; p < d->portal_count; ++p) lids += d->portals[p].pocket == 1 || d->portals[p].pocket == 2;
    hd->lid_count = lids;
    hd->off_lids = off, off = align8(off + (uint64_t)lids * sizeof(ptl_blob_lid));
    hd->off_landmarks = off; /* empty here: ptl_bake_landmarks adds them (landmarks.c) */
    hd->off_hubs = off;      /* and ptl_bake_hubs the hubs (hubs.c) */
    hd->total_size = off;
    w->off = off;
    return PTL_OK;
}

/* Notches: a vertex is a notch when the walls through it turn right (reflex in a cell
   neighbourhood is not known here). */
static ptl_status cpg_write_notches(cpg_writer* w, uint8_t* vflags) {
    const ptl_cpg_in* d = w->d;
    uint32_t* wall_next = ptl_mem_alloc(&w->a, (size_t)d->vert_count * 2 * sizeof(uint32_t));
    if (!wall_next) return ptl_error_set(w->err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    memset(wall_next, 0xff, (size_t)d->vert_count * 2 * sizeof(uint32_t));
    for (uint32_t c = 0; c < d->cell_count; ++c) {
        uint32_t s = d->cell_start[c], n = d->cell_start[c + 1] - s;
        for (uint32_t i = 0; i < n; ++i) {
            if (d->cell_nbrs[s + i] != PTL_NONE) continue;
            uint32_t v = d->cell_verts[s + i], nx2 = d->cell_verts[s + (i + 1) % n];
            wall_next[2 * v] = nx2;     /* the wall leaving v */
            wall_next[2 * nx2 + 1] = v; /* the wall arriving at nx2 */
        }
    }
    for (uint32_t v = 0; v < d->vert_count; ++v) {
        uint32_t nx2 = wall_next[2 * v], pv = wall_next[2 * v + 1];
        if (nx2 == PTL_NONE || pv == PTL_NONE) continue;
        ptl_v2 p = v2(d->xyz[3 * pv], d->xyz[3 * pv + 2]), q = v2(d->xyz[3 * v], d->xyz[3 * v + 2]);
        ptl_v2 r = v2(d->xyz[3 * nx2], d->xyz[3 * nx2 + 2]);
        if (v2_orient(p, q, r) < 0) vflags[v] |= PTL_VERT_NOTCH;
    }
    ptl_mem_free(&w->a, wall_next, (size_t)d->vert_count * 2 * sizeof(uint32_t));
    return PTL_OK;
}

/* A vertex by position for the pinch search: ordered by (x, z, y, id), a total order. */
typedef struct vert_key {
    double x, z, y;
    uint32_t id;
} vert_key;

static int cmp_vert_key(const void* pa, const void* pb) {
    const vert_key *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    if (a->z != b->z) return a->z < b->z ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Pinch copies: vertices sharing a position as the blob stores it (heights included: vertices of
   overlapping layers are no pinch), found by sorting them by position. */
static ptl_status cpg_write_pinches(cpg_writer* w, uint8_t* vflags) {
    const ptl_cpg_in* d = w->d;
    vert_key* order = ptl_mem_alloc(&w->a, (size_t)d->vert_count * sizeof *order);
    if (!order) return ptl_error_set(w->err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    for (uint32_t v = 0; v < d->vert_count; ++v)
        order[v] = (vert_key){d->xyz[3 * v], d->xyz[3 * v + 2], d->xyz[3 * v + 1], v};
    if (!ptl_sort(order, d->vert_count, sizeof *order, cmp_vert_key, &w->a)) {
        ptl_mem_free(&w->a, order, (size_t)d->vert_count * sizeof *order);
        return ptl_error_set(w->err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    }
    const double* xyz = d->xyz;
    for (uint32_t i = 0; i + 1 < d->vert_count; ++i) {
        uint32_t u = order[i].id, v = order[i + 1].id;
        if ((float)xyz[3 * u] == (float)xyz[3 * v] && (float)xyz[3 * u + 1] == (float)xyz[3 * v + 1] &&
            (float)xyz[3 * u + 2] == (float)xyz[3 * v + 2]) {
            vflags[u] |= PTL_VERT_PINCH;
            vflags[v] |= PTL_VERT_PINCH;
        }
    }
    ptl_mem_free(&w->a, order, (size_t)d->vert_count * sizeof *order);
    return PTL_OK;
}

/* The vertices' flags, before the blob is allocated: their search's memory then never adds to the
   blob's. */
static ptl_status cpg_vert_flags(cpg_writer* w) {
    w->vflags = ptl_mem_calloc(&w->a, (size_t)w->d->vert_count + 1, 1);
    if (!w->vflags) return ptl_error_set(w->err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    ptl_status st = cpg_write_notches(w, w->vflags);
    return st < 0 ? st : cpg_write_pinches(w, w->vflags);
}

/* Vertices (as floats) and their flags. */
static void cpg_write_verts(cpg_writer* w) {
    const ptl_cpg_in* d = w->d;
    float* verts = (float*)(w->b + w->hd.off_verts);
    for (uint32_t v = 0; v < d->vert_count; ++v) {
        verts[3 * v] = (float)d->xyz[3 * v];
        verts[3 * v + 1] = (float)d->xyz[3 * v + 1];
        verts[3 * v + 2] = (float)d->xyz[3 * v + 2];
    }
    memcpy(w->b + w->hd.off_vert_flags, w->vflags, d->vert_count);
}

/* Cells, their vertices and neighbours, and the walkable area (link cells span gaps, not floor). */
static void cpg_write_cells(cpg_writer* w) {
    const ptl_cpg_in* d = w->d;
    ptl_blob_cell* cells = (ptl_blob_cell*)(w->b + w->hd.off_cells);
    double area = 0;
    for (uint32_t c = 0; c < d->cell_count; ++c) {
        uint32_t s = d->cell_start[c], n = d->cell_start[c + 1] - s;
        cells[c].first = s;
        cells[c].vert_count = (uint16_t)n;
        cells[c].layer = d->cell_layer ? d->cell_layer[c] : 0;
        cells[c].tag = d->cell_tag ? d->cell_tag[c] : 0;
        double a2 = 0;
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t v = d->cell_verts[s + i], u = d->cell_verts[s + (i + 1) % n];
            a2 += d->xyz[3 * v] * d->xyz[3 * u + 2] - d->xyz[3 * u] * d->xyz[3 * v + 2];
        }
        if (c < d->cell_count - d->link_count) area += a2 / 2;
    }
    w->hd.walkable_area = area;
    memcpy(w->b + w->hd.off_cell_verts, d->cell_verts, (size_t)w->total * 4);
    memcpy(w->b + w->hd.off_cell_nbrs, d->cell_nbrs, (size_t)w->total * 4);
}

/* Portals, each with the edge it is in both cells, then the pocket lids among them. */
static ptl_status cpg_write_portals(cpg_writer* w) {
    const ptl_cpg_in* d = w->d;
    ptl_blob_portal* portals = (ptl_blob_portal*)(w->b + w->hd.off_portals);
    for (uint32_t p = 0; p < d->portal_count; ++p) {
        const ptl_decomp_portal* dp = &d->portals[p];
        /* cell[0] is the smaller id; its counter-clockwise edge runs between the two endpoints. */
        uint32_t c0 = dp->cell[0], c1 = dp->cell[1], a0 = dp->v[0], a1 = dp->v[1];
        if (c0 > c1) {
            uint32_t t = c0; c0 = c1; c1 = t;
        }
        uint32_t e0 = find_edge(d, c0, a0, a1);
        if (e0 == PTL_NONE) {
            uint32_t t = a0; a0 = a1; a1 = t;
            e0 = find_edge(d, c0, a0, a1);
        }
        uint32_t e1 = find_edge(d, c1, a1, a0);
        if (e0 == PTL_NONE || e1 == PTL_NONE || c0 == c1)
            return ptl_error_set(w->err, PTL_ERR_INTERNAL, "bake: portal %u does not match its cells", p);
        portals[p].cell[0] = c0, portals[p].cell[1] = c1;
        portals[p].edge[0] = (uint16_t)e0, portals[p].edge[1] = (uint16_t)e1;
        portals[p].vert[0] = a0, portals[p].vert[1] = a1;
    }
    ptl_blob_lid* lid_out = (ptl_blob_lid*)(w->b + w->hd.off_lids);
    for (uint32_t p = 0, k = 0; p < d->portal_count; ++p) {
        const ptl_decomp_portal* dp = &d->portals[p];
        if (dp->pocket == 1 || dp->pocket == 2) lid_out[k].portal = p, lid_out[k++].inner = dp->cell[dp->pocket - 1];
    }
    return PTL_OK;
}

/* Height grids, links and the point-location grid's buckets. */
static void cpg_write_grids(cpg_writer* w) {
    const ptl_cpg_in* d = w->d;
    const ptl_blob_header* hd = &w->hd;
    if (w->grid_count) {
        memcpy(w->b + hd->off_cell_grids, w->hp.grids, (size_t)w->grid_count * sizeof(ptl_blob_grid));
        memcpy(w->b + hd->off_heights, w->hp.blocks.data, (size_t)w->hp.blocks.count * sizeof(ptl_blob_hblock));
        memcpy(w->b + hd->off_heights + (size_t)w->hp.blocks.count * sizeof(ptl_blob_hblock), w->hp.data.data,
               w->hp.data.count);
    }
    if (d->link_count) memcpy(w->b + hd->off_links, d->links, (size_t)d->link_count * sizeof(ptl_blob_link));
    uint32_t* goff = (uint32_t*)(w->b + hd->off_grid_offsets);
    uint32_t* gitems = (uint32_t*)(w->b + hd->off_grid_items);
    memcpy(goff, w->counts, ((size_t)w->nx * w->nz + 1) * sizeof(uint32_t));
    for (uint32_t c = 0; c < d->cell_count; ++c) {
        const uint32_t* r = &w->range[4 * c];
        for (uint32_t z = r[2]; z <= r[3]; ++z)
            for (uint32_t x = r[0]; x <= r[1]; ++x) gitems[w->counts[(size_t)z * w->nx + x]++] = c;
    }
}

ptl_status ptl_cpg_build(const ptl_cpg_in* d, const ptl_allocator* alloc, void** blob, size_t* size, ptl_error* err) {
    if (!d || !blob || !size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_cpg_build: NULL argument");
    *blob = NULL;
    *size = 0;
    cpg_writer w;
    memset(&w, 0, sizeof w);
    w.d = d, w.a = ptl_allocator_resolve(alloc), w.err = err;
    ptl_status st = cpg_check_bounds(&w);
    if (st >= 0) st = cpg_plan_grid(&w);
    if (st >= 0) st = cpg_layout(&w);
    if (st >= 0) st = cpg_vert_flags(&w);
    if (st >= 0) {
        w.b = ptl_mem_calloc(&w.a, (size_t)w.off, 1);
        if (!w.b) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory (%llu bytes)", (unsigned long long)w.off);
    }
    if (st >= 0) cpg_write_verts(&w), cpg_write_cells(&w);
    if (st >= 0) st = cpg_write_portals(&w);
    if (st >= 0) {
        cpg_write_grids(&w);
        memcpy(w.b, &w.hd, sizeof w.hd);
        ((ptl_blob_header*)w.b)->checksum = ptl_blob_checksum(w.b, w.off);
        *blob = w.b;
        *size = (size_t)w.off;
        w.b = NULL;
    }
    cpg_writer_free(&w);
    if (st >= 0) ptl_error_ok(err);
    return st;
}

ptl_status ptl_cpg_check_blob(void* blob, size_t size, const ptl_allocator* alloc, ptl_error* err) {
    return ptl_cpg_check_blob_keep(blob, size, alloc, NULL, err);
}

ptl_status ptl_cpg_check_blob_keep(void* blob, size_t size, const ptl_allocator* alloc, ptl_navmesh** keep, ptl_error* err) {
    if (keep) *keep = NULL;
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_navmesh* nm = NULL;
    ptl_error e;
    memset(&e, 0, sizeof e);
    /* Adopted, not copied: the check costs no second blob; the blob is handed back below. */
    ptl_status st = ptl_nm_create_adopt(blob, size, &a, &nm, &e);
    if (st >= 0) {
        st = ptl_navmesh_validate(nm, &e);
        if (st >= 0 && keep) {
            *keep = nm;
        } else {
            nm->blob = NULL, nm->size = 0; /* still the caller's */
            ptl_navmesh_destroy(nm);
        }
    }
    if (st == PTL_ERR_NO_MEMORY) return ptl_error_set(err, st, "bake: out of memory checking the navmesh");
    if (st < 0)
        return ptl_error_set(err, PTL_ERR_INTERNAL, "bake: the baked navmesh fails its own check (no navmesh written): %s",
                             e.message);
    return ptl_error_ok(err);
}
