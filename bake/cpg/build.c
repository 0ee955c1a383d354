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

void ptl_blob_free(void* blob, size_t size, const ptl_allocator* alloc) {
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_mem_free(&a, blob, size);
}

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

ptl_status ptl_cpg_build(const ptl_cpg_in* d, const ptl_allocator* alloc, void** blob, size_t* size, ptl_error* err) {
    if (!d || !blob || !size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_cpg_build: NULL argument");
    *blob = NULL;
    *size = 0;
    if (d->cell_count == 0) return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: no cells");
    ptl_allocator a = ptl_allocator_resolve(alloc);
    uint32_t total = d->cell_start[d->cell_count];
    for (uint32_t c = 0; c < d->cell_count; ++c)
        if (d->cell_start[c + 1] - d->cell_start[c] > PTL_MAX_CELL_VERTS)
            return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: cell %u has more than %u vertices", c, PTL_MAX_CELL_VERTS);

    /* Bounds and the point-location grid: about two cells per bucket. Every coordinate must survive
       the conversion to the blob's floats, and every bucket index below is clamped in double before
       it becomes an integer, so that no input can index past the grid. */
    double x0 = DBL_MAX, z0 = DBL_MAX, x1 = -DBL_MAX, z1 = -DBL_MAX;
    double y0 = DBL_MAX, y1 = -DBL_MAX;
    for (uint32_t v = 0; v < d->vert_count; ++v) {
        const double* p = &d->xyz[3 * v];
        if (!(fabs(p[0]) <= PTL_BAKE_COORD_MAX && fabs(p[1]) <= PTL_BAKE_COORD_MAX && fabs(p[2]) <= PTL_BAKE_COORD_MAX))
            return ptl_error_set(err, PTL_ERR_BAD_INPUT,
                                 "bake: vertex %u (%g, %g, %g) is not finite or beyond +-%g, more than the navmesh's "
                                 "float coordinates hold", v, p[0], p[1], p[2], PTL_BAKE_COORD_MAX);
        x0 = fmin(x0, p[0]), x1 = fmax(x1, p[0]);
        y0 = fmin(y0, p[1]), y1 = fmax(y1, p[1]);
        z0 = fmin(z0, p[2]), z1 = fmax(z1, p[2]);
    }
    double w = fmax(x1 - x0, 1e-6), h = fmax(z1 - z0, 1e-6);
    double cell = sqrt(w * h / (d->cell_count / 2.0 + 1));
    if (cell < w / 4096) cell = w / 4096;
    if (cell < h / 4096) cell = h / 4096;
    /* At most 4097 buckets a side; the sizes are checked before they become integers. */
    const double fnx = floor(w / cell) + 1, fnz = floor(h / cell) + 1;
    float cellf = (float)cell;
    if (!(cellf > 0 && cellf <= FLT_MAX && fnx >= 1 && fnx <= 4097 && fnz >= 1 && fnz <= 4097))
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: no point-location grid fits the bounds (%g, %g)-(%g, %g)",
                             x0, z0, x1, z1);
    const uint32_t nx = (uint32_t)fnx, nz = (uint32_t)fnz;
    /* Buckets are computed with the float values stored in the blob, exactly as the runtime will. */
    float bx0 = (float)x0, bz0 = (float)z0;
    uint32_t* counts = ptl_mem_calloc(&a, (size_t)nx * nz + 1, sizeof(uint32_t));
    uint32_t* range = ptl_mem_alloc(&a, (size_t)d->cell_count * 4 * sizeof(uint32_t));
    if (!counts || !range) {
        ptl_mem_free(&a, counts, ((size_t)nx * nz + 1) * sizeof(uint32_t));
        ptl_mem_free(&a, range, (size_t)d->cell_count * 4 * sizeof(uint32_t));
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    }
    uint64_t items = 0;
    hpack hp;
    memset(&hp, 0, sizeof hp);
    for (uint32_t c = 0; c < d->cell_count; ++c) {
        double cx0 = DBL_MAX, cz0 = DBL_MAX, cx1 = -DBL_MAX, cz1 = -DBL_MAX;
        for (uint32_t i = d->cell_start[c]; i < d->cell_start[c + 1]; ++i) {
            uint32_t v = d->cell_verts[i];
            float fx = (float)d->xyz[3 * v], fz = (float)d->xyz[3 * v + 2];
            cx0 = fmin(cx0, fx), cx1 = fmax(cx1, fx), cz0 = fmin(cz0, fz), cz1 = fmax(cz1, fz);
        }
        const double fx0 = (cx0 - bx0) / cellf, fx1 = (cx1 - bx0) / cellf;
        const double fz0 = (cz0 - bz0) / cellf, fz1 = (cz1 - bz0) / cellf;
        int64_t ix0 = bucket_index(fx0, nx), ix1 = bucket_index(fx1, nx);
        int64_t iz0 = bucket_index(fz0, nz), iz1 = bucket_index(fz1, nz);
        /* A point on a bucket border may be looked up in either bucket: widen by one where it touches. */
        if (ix0 > 0 && fx0 == (double)ix0) --ix0;
        if (iz0 > 0 && fz0 == (double)iz0) --iz0;
        range[4 * c] = (uint32_t)ix0, range[4 * c + 1] = (uint32_t)ix1;
        range[4 * c + 2] = (uint32_t)iz0, range[4 * c + 3] = (uint32_t)iz1;
        for (int64_t z = iz0; z <= iz1; ++z)
            for (int64_t x = ix0; x <= ix1; ++x) counts[z * nx + x + 1]++, ++items;
    }
    if (items > UINT32_MAX) {
        ptl_mem_free(&a, counts, ((size_t)nx * nz + 1) * sizeof(uint32_t));
        ptl_mem_free(&a, range, (size_t)d->cell_count * 4 * sizeof(uint32_t));
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: point-location index too large");
    }
    for (uint64_t i = 0; i < (uint64_t)nx * nz; ++i) counts[i + 1] += counts[i];

    ptl_blob_header hd;
    memset(&hd, 0, sizeof hd);
    hd.magic[0] = PTL_BLOB_MAGIC0, hd.magic[1] = PTL_BLOB_MAGIC1, hd.magic[2] = PTL_BLOB_MAGIC2;
    hd.magic[3] = PTL_BLOB_MAGIC3;
    hd.version = PTL_BLOB_VERSION;
    hd.endian = PTL_BLOB_ENDIAN;
    hd.header_size = sizeof hd;
    hd.flags = d->flags | (d->relax > 0 ? PTL_NAVMESH_RELAXED : 0);
    hd.vert_count = d->vert_count;
    hd.cell_count = d->cell_count;
    hd.cell_vert_total = total;
    hd.portal_count = d->portal_count;
    hd.tile_count = d->tile_size ? d->tiles_x * d->tiles_z : 1;
    hd.tile_size = d->tile_size;
    hd.tiles_x = d->tile_size ? d->tiles_x : 1;
    hd.layer_count = d->layer_count ? d->layer_count : 1;
    hd.vox_cs = d->vox_cs, hd.vox_ch = d->vox_ch;
    memcpy(hd.vox_origin, d->vox_origin, sizeof hd.vox_origin);
    hd.grid_nx = nx;
    hd.grid_nz = nz;
    hd.grid_item_count = (uint32_t)items;
    hd.bmin[0] = bx0, hd.bmin[1] = (float)y0, hd.bmin[2] = bz0;
    hd.bmax[0] = (float)x1, hd.bmax[1] = (float)y1, hd.bmax[2] = (float)z1;
    hd.grid_cell = cellf;
    hd.relax = d->relax;
    uint64_t off = sizeof hd;
    hd.off_verts = off, off = align8(off + (uint64_t)d->vert_count * 12);
    hd.off_vert_flags = off, off = align8(off + d->vert_count);
    hd.off_cells = off, off = align8(off + (uint64_t)d->cell_count * sizeof(ptl_blob_cell));
    hd.off_cell_verts = off, off = align8(off + (uint64_t)total * 4);
    hd.off_cell_nbrs = off, off = align8(off + (uint64_t)total * 4);
    hd.off_portals = off, off = align8(off + (uint64_t)d->portal_count * sizeof(ptl_blob_portal));
    hd.off_grid_offsets = off, off = align8(off + ((uint64_t)nx * nz + 1) * 4);
    hd.off_grid_items = off, off = align8(off + items * 4);
    /* one grid per cell, or none at all when no cell has one */
    const uint32_t grid_count = d->height_count && d->cell_grids ? d->cell_count : 0;
    if (grid_count && !pack_heights(d, &a, &hp)) {
        hpack_free(&a, &hp, d->cell_count);
        ptl_mem_free(&a, counts, ((size_t)nx * nz + 1) * sizeof(uint32_t));
        ptl_mem_free(&a, range, (size_t)d->cell_count * 4 * sizeof(uint32_t));
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory packing height grids");
    }
    hd.height_count = hp.blocks.count;
    hd.height_bytes = hp.data.count;
    hd.off_cell_grids = off, off = align8(off + (uint64_t)grid_count * sizeof(ptl_blob_grid));
    hd.off_heights = off;
    off = align8(off + (uint64_t)hp.blocks.count * sizeof(ptl_blob_hblock) + hp.data.count);
    hd.link_count = d->link_count;
    hd.off_links = off, off = align8(off + (uint64_t)d->link_count * sizeof(ptl_blob_link));
    uint32_t lids = 0;
    for (uint32_t p = 0; p < d->portal_count; ++p) lids += d->portals[p].pocket == 1 || d->portals[p].pocket == 2;
    hd.lid_count = lids;
    hd.off_lids = off, off = align8(off + (uint64_t)lids * sizeof(ptl_blob_lid));
    hd.off_landmarks = off; /* empty here: ptl_bake_landmarks adds them (landmarks.c) */
    hd.off_hubs = off;      /* and ptl_bake_hubs the hubs (hubs.c) */
    hd.total_size = off;

    uint8_t* b = ptl_mem_calloc(&a, (size_t)off, 1);
    ptl_status st = PTL_OK;
    if (!b) {
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory (%llu bytes)", (unsigned long long)off);
        goto done;
    }
    float* verts = (float*)(b + hd.off_verts);
    uint8_t* vflags = b + hd.off_vert_flags;
    for (uint32_t v = 0; v < d->vert_count; ++v) {
        verts[3 * v] = (float)d->xyz[3 * v];
        verts[3 * v + 1] = (float)d->xyz[3 * v + 1];
        verts[3 * v + 2] = (float)d->xyz[3 * v + 2];
    }
    /* Vertex flags: pinch copies (same position, another vertex) and notches (reflex in a cell
       neighbourhood is not known here; a vertex is a notch when its walls turn right). */
    {
        uint32_t* wall_next = ptl_mem_alloc(&a, (size_t)d->vert_count * 2 * sizeof(uint32_t));
        if (!wall_next) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
            goto done;
        }
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
        ptl_mem_free(&a, wall_next, (size_t)d->vert_count * 2 * sizeof(uint32_t));
        /* Pinch copies: vertices sharing a position, found by sorting ids by position. */
        uint32_t* order = ptl_mem_alloc(&a, (size_t)d->vert_count * sizeof(uint32_t));
        if (!order) {
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
            goto done;
        }
        for (uint32_t v = 0; v < d->vert_count; ++v) order[v] = v;
        /* Shell sort by (x, z, id): deterministic, in place, no context pointer needed. */
        for (uint32_t gap = d->vert_count / 2; gap > 0; gap /= 2) {
            for (uint32_t i = gap; i < d->vert_count; ++i) {
                uint32_t t = order[i], j = i;
                for (; j >= gap; j -= gap) {
                    uint32_t u = order[j - gap];
                    const double* pu = &d->xyz[3 * u];
                    const double* pt = &d->xyz[3 * t];
                    int c = pu[0] != pt[0] ? (pu[0] < pt[0] ? -1 : 1)
                            : pu[2] != pt[2] ? (pu[2] < pt[2] ? -1 : 1)
                            : pu[1] != pt[1] ? (pu[1] < pt[1] ? -1 : 1)
                                             : (u < t ? -1 : 1);
                    if (c < 0) break;
                    order[j] = u;
                }
                order[j] = t;
            }
        }
        for (uint32_t i = 0; i + 1 < d->vert_count; ++i) {
            uint32_t u = order[i], v = order[i + 1];
            /* Same position, heights included: vertices of overlapping layers are no pinch. */
            if (verts[3 * u] == verts[3 * v] && verts[3 * u + 1] == verts[3 * v + 1] && verts[3 * u + 2] == verts[3 * v + 2]) {
                vflags[u] |= PTL_VERT_PINCH;
                vflags[v] |= PTL_VERT_PINCH;
            }
        }
        ptl_mem_free(&a, order, (size_t)d->vert_count * sizeof(uint32_t));
    }
    ptl_blob_cell* cells = (ptl_blob_cell*)(b + hd.off_cells);
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
        if (c < d->cell_count - d->link_count) area += a2 / 2; /* link cells span gaps, not floor */
    }
    hd.walkable_area = area;
    memcpy(b + hd.off_cell_verts, d->cell_verts, (size_t)total * 4);
    memcpy(b + hd.off_cell_nbrs, d->cell_nbrs, (size_t)total * 4);
    ptl_blob_portal* portals = (ptl_blob_portal*)(b + hd.off_portals);
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
        if (e0 == PTL_NONE || e1 == PTL_NONE || c0 == c1) {
            st = ptl_error_set(err, PTL_ERR_INTERNAL, "bake: portal %u does not match its cells", p);
            goto done;
        }
        portals[p].cell[0] = c0, portals[p].cell[1] = c1;
        portals[p].edge[0] = (uint16_t)e0, portals[p].edge[1] = (uint16_t)e1;
        portals[p].vert[0] = a0, portals[p].vert[1] = a1;
    }
    ptl_blob_lid* lid_out = (ptl_blob_lid*)(b + hd.off_lids);
    for (uint32_t p = 0, k = 0; p < d->portal_count; ++p) {
        const ptl_decomp_portal* dp = &d->portals[p];
        if (dp->pocket == 1 || dp->pocket == 2) lid_out[k].portal = p, lid_out[k++].inner = dp->cell[dp->pocket - 1];
    }
    if (grid_count) {
        memcpy(b + hd.off_cell_grids, hp.grids, (size_t)grid_count * sizeof(ptl_blob_grid));
        memcpy(b + hd.off_heights, hp.blocks.data, (size_t)hp.blocks.count * sizeof(ptl_blob_hblock));
        memcpy(b + hd.off_heights + (size_t)hp.blocks.count * sizeof(ptl_blob_hblock), hp.data.data, hp.data.count);
    }
    if (d->link_count) memcpy(b + hd.off_links, d->links, (size_t)d->link_count * sizeof(ptl_blob_link));
    uint32_t* goff = (uint32_t*)(b + hd.off_grid_offsets);
    uint32_t* gitems = (uint32_t*)(b + hd.off_grid_items);
    memcpy(goff, counts, ((size_t)nx * nz + 1) * sizeof(uint32_t));
    for (uint32_t c = 0; c < d->cell_count; ++c)
        for (uint32_t z = range[4 * c + 2]; z <= range[4 * c + 3]; ++z)
            for (uint32_t x = range[4 * c]; x <= range[4 * c + 1]; ++x) gitems[counts[(size_t)z * nx + x]++] = c;
    memcpy(b, &hd, sizeof hd);
    ((ptl_blob_header*)b)->checksum = ptl_blob_checksum(b, off);
    *blob = b;
    *size = (size_t)off;
    b = NULL;
done:
    hpack_free(&a, &hp, d->cell_count);
    ptl_mem_free(&a, b, (size_t)off);
    ptl_mem_free(&a, counts, ((size_t)nx * nz + 1) * sizeof(uint32_t));
    ptl_mem_free(&a, range, (size_t)d->cell_count * 4 * sizeof(uint32_t));
    if (st >= 0) ptl_error_ok(err);
    return st;
}

ptl_status ptl_cpg_check_blob(void* blob, size_t size, const ptl_allocator* alloc, ptl_error* err) {
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_navmesh* nm = NULL;
    ptl_error e;
    memset(&e, 0, sizeof e);
    /* Adopted, not copied: the check costs no second blob; the blob is handed back below. */
    ptl_status st = ptl_nm_create_adopt(blob, size, &a, &nm, &e);
    if (st >= 0) {
        st = ptl_navmesh_validate(nm, &e);
        nm->blob = NULL, nm->size = 0; /* still the caller's */
        ptl_navmesh_destroy(nm);
    }
    if (st == PTL_ERR_NO_MEMORY) return ptl_error_set(err, st, "bake: out of memory checking the navmesh");
    if (st < 0)
        return ptl_error_set(err, PTL_ERR_INTERNAL, "bake: the baked navmesh fails its own check (no navmesh written): %s",
                             e.message);
    return ptl_error_ok(err);
}
