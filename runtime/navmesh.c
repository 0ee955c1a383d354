/* Loading a navmesh: one copy of the blob, then a structural validation pass that rejects anything
   inconsistent before a query can index out of bounds (STYLE: Data). The deep geometric checks
   (convexity, overlap) live in validate.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file_read.h"
#include "navmesh_internal.h"
#include "offmesh.h"

#define KNOWN_FLAGS (PTL_NAVMESH_LATTICE_POINTS | PTL_NAVMESH_RELAXED)

static ptl_status bad(ptl_error* err, const char* what) {
    return ptl_error_set(err, PTL_ERR_BAD_BLOB, "navmesh blob: %s", what);
}

/* Section [off, off + count * elem) must be 8-aligned and inside the blob, after the previous one. */
static bool section_ok(uint64_t off, uint64_t count, uint64_t elem, uint64_t* cursor, uint64_t size) {
    if (off % 8 != 0 || off < *cursor || off > size) return false;
    if (elem && count > (size - off) / elem) return false;
    *cursor = off + count * elem;
    return true;
}

static ptl_status check_header(const uint8_t* b, size_t size, ptl_error* err) {
    /* The magic first: a file that is no navmesh at all says so whatever its size. */
    if (size < 4 || b[0] != PTL_BLOB_MAGIC0 || b[1] != PTL_BLOB_MAGIC1 || b[2] != PTL_BLOB_MAGIC2 || b[3] != PTL_BLOB_MAGIC3)
        return bad(err, size < 4 ? "shorter than its header (truncated?)" : "wrong magic (not a .ptl file)");
    if (size < sizeof(ptl_blob_header)) return bad(err, "shorter than its header (truncated?)");
    const ptl_blob_header* h = (const ptl_blob_header*)b;
    if (h->endian != PTL_BLOB_ENDIAN) return bad(err, "written on a machine of the other byte order");
    if (h->version != PTL_BLOB_VERSION) {
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "navmesh blob: version %u, this library reads version %u",
                             h->version, PTL_BLOB_VERSION);
    }
    if (h->header_size != sizeof(ptl_blob_header)) return bad(err, "wrong header size");
    if (h->total_size != size) {
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "navmesh blob: size is %zu bytes, the header says %llu (truncated?)",
                             size, (unsigned long long)h->total_size);
    }
    if (ptl_blob_checksum(b, size) != h->checksum) return bad(err, "checksum mismatch (corrupted)");
    if (h->flags & ~KNOWN_FLAGS) return bad(err, "unknown flags");
    if (h->cell_count == 0 || h->vert_count < 3) return bad(err, "no cells");
    if (h->landmark_count > PTL_MAX_LANDMARKS) return bad(err, "too many landmarks");
    if (h->layer_count == 0) return bad(err, "no layers");
    if (h->height_count && (!(h->vox_cs > 0) || !(h->vox_ch > 0) || !isfinite(h->vox_cs) || !isfinite(h->vox_ch) ||
                            !isfinite(h->vox_origin[0]) || !isfinite(h->vox_origin[1]) || !isfinite(h->vox_origin[2])))
        return bad(err, "bad height grid parameters");
    if (h->tile_size == 0 ? h->tile_count != 1 || h->tiles_x > 1
                          : !(h->vox_cs > 0) || !isfinite(h->vox_cs) || h->tiles_x == 0 || h->tile_count == 0 ||
                                h->tile_count % h->tiles_x != 0)
        return bad(err, "bad tiling");
    if (h->grid_nx == 0 || h->grid_nz == 0 || (uint64_t)h->grid_nx * h->grid_nz > (1u << 26))
        return bad(err, "bad point-location grid size");
    if (!(h->grid_cell > 0) || !isfinite(h->grid_cell)) return bad(err, "bad point-location grid cell");
    for (int i = 0; i < 3; ++i)
        if (!isfinite(h->bmin[i]) || !isfinite(h->bmax[i]) || h->bmin[i] > h->bmax[i]) return bad(err, "bad bounds");
    /* The point-location grid spans the bounds (the bake makes grid_nx * grid_cell exceed the
       width; float rounding of the stored values may take back a few ulps): a point inside the
       bounds then lies in its own bucket, not clamped into the last one. */
    for (int i = 0; i < 3; i += 2) {
        const double span = (double)h->bmax[i] - h->bmin[i];
        const double cover = (double)(i ? h->grid_nz : h->grid_nx) * h->grid_cell;
        if (cover < span - 1e-6 * (span + fmax(fabs(h->bmin[i]), fabs(h->bmax[i])))) {
            return ptl_error_set(err, PTL_ERR_BAD_BLOB,
                                 "navmesh blob: grid_cell %.9g x %s %u does not cover the bounds (%.9g to %.9g)",
                                 h->grid_cell, i ? "grid_nz" : "grid_nx", i ? h->grid_nz : h->grid_nx, h->bmin[i],
                                 h->bmax[i]);
        }
    }
    if (!isfinite(h->walkable_area) || h->walkable_area < 0 || !isfinite(h->relax) || h->relax < 0)
        return bad(err, "bad area or relaxation");
    uint64_t cur = sizeof(ptl_blob_header);
    uint64_t gcount = (uint64_t)h->grid_nx * h->grid_nz + 1;
    if (!section_ok(h->off_verts, h->vert_count, 12, &cur, size) ||
        !section_ok(h->off_vert_flags, h->vert_count, 1, &cur, size) ||
        !section_ok(h->off_cells, h->cell_count, sizeof(ptl_blob_cell), &cur, size) ||
        !section_ok(h->off_cell_verts, h->cell_vert_total, 4, &cur, size) ||
        !section_ok(h->off_cell_nbrs, h->cell_vert_total, 4, &cur, size) ||
        !section_ok(h->off_portals, h->portal_count, sizeof(ptl_blob_portal), &cur, size) ||
        !section_ok(h->off_grid_offsets, gcount, 4, &cur, size) ||
        !section_ok(h->off_grid_items, h->grid_item_count, 4, &cur, size) ||
        !section_ok(h->off_cell_grids, h->height_count ? h->cell_count : 0, sizeof(ptl_blob_grid), &cur, size) ||
        !section_ok(h->off_heights, (uint64_t)h->height_count * sizeof(ptl_blob_hblock) + h->height_bytes, 1, &cur, size) ||
        !section_ok(h->off_links, h->link_count, sizeof(ptl_blob_link), &cur, size) ||
        !section_ok(h->off_lids, h->lid_count, sizeof(ptl_blob_lid), &cur, size) ||
        !section_ok(h->off_landmarks, (uint64_t)h->vert_count * h->landmark_count, 4, &cur, size))
        return bad(err, "a section lies outside the blob or overlaps another");
    if (h->hub_count == 0) {
        if (h->hub_entry_count || h->hub_edge_count || h->hub_bytes) return bad(err, "hub counts without hubs");
    } else {
        ptl_hub_layout l = ptl_hub_layout_of(h->hub_count, h->hub_entry_count, h->hub_edge_count);
        if (h->hub_count > h->vert_count || h->hub_entry_count > UINT32_MAX || h->hub_entry_count < h->hub_count ||
            h->hub_bytes != l.total || !section_ok(h->off_hubs, h->hub_bytes, 1, &cur, size))
            return bad(err, "the hubs section lies outside the blob or has bad counts");
    }
    if (h->offmesh_count && !section_ok(h->off_offmesh, h->offmesh_count, sizeof(ptl_blob_offmesh), &cur, size))
        return bad(err, "the off-mesh section lies outside the blob or overlaps another");
    return PTL_OK;
}

static void bind(ptl_navmesh* nm) {
    const ptl_blob_header* h = (const ptl_blob_header*)nm->blob;
    nm->h = h;
    nm->verts = (const float*)(nm->blob + h->off_verts);
    nm->vert_flags = nm->blob + h->off_vert_flags;
    nm->cells = (const ptl_blob_cell*)(nm->blob + h->off_cells);
    nm->cell_verts = (const uint32_t*)(nm->blob + h->off_cell_verts);
    nm->cell_nbrs = (const uint32_t*)(nm->blob + h->off_cell_nbrs);
    nm->portals = (const ptl_blob_portal*)(nm->blob + h->off_portals);
    nm->grid_offsets = (const uint32_t*)(nm->blob + h->off_grid_offsets);
    nm->grid_items = (const uint32_t*)(nm->blob + h->off_grid_items);
    nm->landmarks = h->landmark_count ? (const float*)(nm->blob + h->off_landmarks) : NULL;
    nm->cell_grids = h->height_count ? (const ptl_blob_grid*)(nm->blob + h->off_cell_grids) : NULL;
    nm->hblocks = (const ptl_blob_hblock*)(nm->blob + h->off_heights);
    nm->hdata = nm->blob + h->off_heights + (size_t)h->height_count * sizeof(ptl_blob_hblock);
    nm->links = (const ptl_blob_link*)(nm->blob + h->off_links);
    nm->lids = h->lid_count ? (const ptl_blob_lid*)(nm->blob + h->off_lids) : NULL;
    if (h->hub_count) {
        ptl_hub_layout l = ptl_hub_layout_of(h->hub_count, h->hub_entry_count, h->hub_edge_count);
        const uint8_t* s = nm->blob + h->off_hubs;
        nm->hub_dist = (const double*)(s + l.dist);
        nm->hub_hub = (const uint32_t*)(s + l.hub);
        nm->hub_hop = (const uint16_t*)(s + l.hop);
        nm->hub_label_start = (const uint32_t*)(s + l.label_start);
        nm->hub_vert = (const uint32_t*)(s + l.vert);
        nm->hub_adj_start = (const uint32_t*)(s + l.adj_start);
        nm->hub_adj = (const uint32_t*)(s + l.adj);
    }
}

/* The hubs section (navmesh_format.h): labels ordered and ending in their own hub, lengths finite,
   hub vertices distinct vertices of cells, the visibility graph sorted and symmetric. Also derives
   vert_hub, which the searches use to find a vertex's label. */
static ptl_status check_hubs(ptl_navmesh* nm, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    const uint32_t n = h->hub_count;
    char msg[160];
    if (n == 0) return PTL_OK;
    nm->vert_hub = ptl_mem_alloc(&nm->alloc, (size_t)h->vert_count * sizeof(uint32_t));
    if (!nm->vert_hub) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "navmesh: out of memory");
    memset(nm->vert_hub, 0xff, (size_t)h->vert_count * sizeof(uint32_t));
    if (nm->hub_label_start[0] != 0 || nm->hub_label_start[n] != h->hub_entry_count || nm->hub_adj_start[0] != 0 ||
        nm->hub_adj_start[n] != h->hub_edge_count)
        return bad(err, "hub labels or hub graph do not cover their arrays");
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t v = nm->hub_vert[i], b = nm->hub_label_start[i], e = nm->hub_label_start[i + 1];
#define HUB_BAD() (snprintf(msg, sizeof msg, "hub %u is inconsistent (vertex, label or neighbours)", i), bad(err, msg))
        if (v >= h->vert_count || nm->vert_hub[v] != PTL_NONE || nm->vcell_start[v] == nm->vcell_start[v + 1] ||
            e <= b || e > h->hub_entry_count || nm->hub_hub[e - 1] != i || nm->hub_dist[e - 1] != 0)
            return HUB_BAD();
        nm->vert_hub[v] = i;
        for (uint32_t k = b; k < e; ++k)
            if (!(nm->hub_dist[k] >= 0) || !isfinite(nm->hub_dist[k]) || (k > b && nm->hub_hub[k] <= nm->hub_hub[k - 1]))
                return HUB_BAD();
        uint32_t ab = nm->hub_adj_start[i], ae = nm->hub_adj_start[i + 1];
        if (ae < ab || ae > h->hub_edge_count) return HUB_BAD();
        for (uint32_t k = b; k < e; ++k)
            if (nm->hub_hop[k] != PTL_HUB_NO_HOP && nm->hub_hop[k] >= ae - ab) return HUB_BAD();
        for (uint32_t k = ab; k < ae; ++k) {
            uint32_t j = nm->hub_adj[k];
            if (j >= n || j == i || (k > ab && j <= nm->hub_adj[k - 1])) return HUB_BAD();
        }
#undef HUB_BAD
    }
    /* Symmetric: j lists i wherever i lists j (binary search in j's sorted list). */
    for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t k = nm->hub_adj_start[i]; k < nm->hub_adj_start[i + 1]; ++k) {
            uint32_t j = nm->hub_adj[k], lo = nm->hub_adj_start[j], hi = nm->hub_adj_start[j + 1];
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (nm->hub_adj[mid] < i) lo = mid + 1;
                else hi = mid;
            }
            if (lo == nm->hub_adj_start[j + 1] || nm->hub_adj[lo] != i) return bad(err, "the hub graph is not symmetric");
        }
    }
    return PTL_OK;
}

/* Index ranges and the cell/portal adjacency: every array index a query follows is checked here. */
static ptl_status check_topology(const ptl_navmesh* nm, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    char msg[160];
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < h->vert_count; ++v) {
        const float* p = nm->verts + 3 * v;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            snprintf(msg, sizeof msg, "vertex %u is not finite", v);
            return bad(err, msg);
        }
        for (int k = 0; k < 3; ++k) lo[k] = fminf(lo[k], p[k]), hi[k] = fmaxf(hi[k], p[k]);
    }
    /* The bounds are the vertices' (the bake stores exactly their box): the queries' tolerances
       scale with them and point location rejects points outside them, so looser bounds would
       make every point "on" the mesh and tighter ones would lose cells. */
    for (int k = 0; k < 3; ++k) {
        if (h->bmin[k] != lo[k] || h->bmax[k] != hi[k]) {
            snprintf(msg, sizeof msg, "bmin/bmax[%d] (%.9g to %.9g) are not the vertices' bounds (%.9g to %.9g)", k,
                     h->bmin[k], h->bmax[k], lo[k], hi[k]);
            return bad(err, msg);
        }
    }
    uint32_t next = 0, nbr_edges = 0;
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        if (cell->layer >= h->layer_count) {
            snprintf(msg, sizeof msg, "cell %u names layer %u of %u", c, cell->layer, h->layer_count);
            return bad(err, msg);
        }
        if (cell->tag > PTL_BLOB_MAX_AREA) {
            snprintf(msg, sizeof msg, "cell %u has area %u, above %u", c, cell->tag, PTL_BLOB_MAX_AREA);
            return bad(err, msg);
        }
        if (cell->first != next || cell->vert_count < 3 || (uint64_t)next + cell->vert_count > h->cell_vert_total) {
            snprintf(msg, sizeof msg, "cell %u has a bad vertex range", c);
            return bad(err, msg);
        }
        next += cell->vert_count;
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            uint32_t v = nm->cell_verts[cell->first + i];
            uint32_t w = nm->cell_verts[cell->first + (i + 1) % cell->vert_count];
            uint32_t n = nm->cell_nbrs[cell->first + i];
            if (v >= h->vert_count || v == w) {
                snprintf(msg, sizeof msg, "cell %u vertex %u is out of range or repeated", c, i);
                return bad(err, msg);
            }
            if (n == PTL_NONE) continue;
            if (n >= h->cell_count || n == c) {
                snprintf(msg, sizeof msg, "cell %u edge %u has a bad neighbour", c, i);
                return bad(err, msg);
            }
            ++nbr_edges;
        }
    }
    if (next != h->cell_vert_total) return bad(err, "cell vertex lists do not cover the array");
    if (nbr_edges != 2 * h->portal_count) return bad(err, "portal count does not match the neighbour edges");
    for (uint32_t p = 0; p < h->portal_count; ++p) {
        const ptl_blob_portal* pt = &nm->portals[p];
#define PORTAL_BAD() (snprintf(msg, sizeof msg, "portal %u is inconsistent with its cells", p), bad(err, msg))
        if (pt->cell[0] >= h->cell_count || pt->cell[1] >= h->cell_count || pt->cell[0] >= pt->cell[1])
            return PORTAL_BAD();
        const ptl_blob_cell* a = &nm->cells[pt->cell[0]];
        const ptl_blob_cell* b = &nm->cells[pt->cell[1]];
        if (pt->edge[0] >= a->vert_count || pt->edge[1] >= b->vert_count) return PORTAL_BAD();
        uint32_t ea = a->first + pt->edge[0], eb = b->first + pt->edge[1];
        uint32_t a0 = nm->cell_verts[ea], a1 = nm->cell_verts[a->first + (pt->edge[0] + 1u) % a->vert_count];
        uint32_t b0 = nm->cell_verts[eb], b1 = nm->cell_verts[b->first + (pt->edge[1] + 1u) % b->vert_count];
        /* Symmetric: each cell names the other across the same edge, walked in opposite directions. */
        if (nm->cell_nbrs[ea] != pt->cell[1] || nm->cell_nbrs[eb] != pt->cell[0] || a0 != b1 || a1 != b0 ||
            pt->vert[0] != a0 || pt->vert[1] != a1)
            return PORTAL_BAD();
#undef PORTAL_BAD
    }
    uint32_t buckets = h->grid_nx * h->grid_nz;
    if (nm->grid_offsets[0] != 0 || nm->grid_offsets[buckets] != h->grid_item_count)
        return bad(err, "point-location grid offsets do not cover its items");
    for (uint32_t i = 0; i < buckets; ++i)
        if (nm->grid_offsets[i] > nm->grid_offsets[i + 1]) return bad(err, "point-location grid offsets decrease");
    for (uint32_t i = 0; i < h->grid_item_count; ++i)
        if (nm->grid_items[i] >= h->cell_count) return bad(err, "point-location grid names a cell out of range");
    for (uint32_t i = 0; i < h->height_count; ++i) {
        const ptl_blob_hblock* k = &nm->hblocks[i];
        const uint32_t n = ptl_hblock_bytes(k->kind);
        if (k->kind > PTL_HBLOCK_U16 || (uint64_t)k->data + n > h->height_bytes ||
            (k->kind == PTL_HBLOCK_U16 && (k->data & 1))) {
            snprintf(msg, sizeof msg, "height block %u is malformed (kind %u, data at %u of %u bytes)", i, k->kind,
                     k->data, h->height_bytes);
            return bad(err, msg);
        }
    }
    for (uint32_t c = 0; nm->cell_grids && c < h->cell_count; ++c) {
        const ptl_blob_grid* g = &nm->cell_grids[c];
        /* blocks of 8 x 8 columns covering w x d (none when either is 0: no grid) */
        uint64_t n = !g->w || !g->d ? 0 : ((uint64_t)g->w + PTL_HEIGHT_BLOCK - 1) / PTL_HEIGHT_BLOCK * (((uint64_t)g->d + PTL_HEIGHT_BLOCK - 1) / PTL_HEIGHT_BLOCK);
        if ((n && !h->height_count) || (uint64_t)g->first + n > h->height_count ||
            (n && (c >= h->cell_count - h->link_count || !(h->vox_cs > 0)))) {
            snprintf(msg, sizeof msg,
                     "cell %u's height grid lies outside the heights section, or the cell cannot have one", c);
            return bad(err, msg);
        }
    }
    /* Links: the last link_count cells, each joining two walkable cells and bordering only them. */
    if (h->link_count >= h->cell_count) return bad(err, "more links than walkable cells");
    uint32_t first_link = h->cell_count - h->link_count;
    for (uint32_t i = 0; i < h->link_count; ++i) {
        const ptl_blob_link* l = &nm->links[i];
        snprintf(msg, sizeof msg, "link %u is inconsistent with its cells", i);
        if (l->cell != first_link + i || l->cells[0] >= l->cells[1] || l->cells[1] >= first_link ||
            l->kind > PTL_LINK_STEP || !isfinite(l->rise) || !(l->gap >= 0) || !isfinite(l->gap))
            return bad(err, msg);
        const ptl_blob_cell* lc = &nm->cells[l->cell];
        for (uint32_t k = 0; k < lc->vert_count; ++k) {
            uint32_t n = nm->cell_nbrs[lc->first + k];
            if (n != PTL_NONE && n != l->cells[0] && n != l->cells[1]) return bad(err, msg);
        }
    }
    /* Landmark distances: lengths (>= 0, or +inf for landmarks of no use to the vertex). */
    for (uint64_t i = 0; i < (uint64_t)h->vert_count * h->landmark_count; ++i) {
        float d = nm->landmarks[i];
        if (!(d >= 0)) return bad(err, "a landmark distance is negative or NaN");
    }
    return PTL_OK;
}

/* What the searches assume of each cell's shape: convex (within validation's tolerance, or the
   blob's relaxation), so that what a point sees of a cell is what lies between two rays; and a
   height grid, where the cell has one, over the bounds and reaching the cell (vox_cs and
   vox_origin agree with the grids). Queries stay within their buffers on any cell: these are
   for right answers. */
static ptl_status check_cell_shapes(const ptl_navmesh* nm, ptl_error* err) {
    const ptl_blob_header* h = nm->h;
    const double tol = ptl_nm_tolerance(nm);
    char msg[200];
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        const uint32_t* cv = nm->cell_verts + cell->first;
        uint32_t i = ptl_nm_cell_reflex(nm, c, tol);
        if (i != PTL_NONE) {
            snprintf(msg, sizeof msg, "cell %u is not convex at its vertex %u (%.9g, %.9g)", c, i, ptl_nm_vx(nm, cv[i]),
                     ptl_nm_vz(nm, cv[i]));
            return bad(err, msg);
        }
        const ptl_blob_grid* g = nm->cell_grids ? &nm->cell_grids[c] : NULL;
        if (!g || !g->w || !g->d) continue;
        /* A grid (a cell's window, or its whole layer's) lies over the navmesh's bounds in
           columns, give or take their own size and a few columns (layers' grids may reach past
           their simplified contours): a voxel size far too large puts every vertex in one
           column, and a grid of many columns then reaches far past them. */
        const double lo_u = ((double)h->bmin[0] - h->vox_origin[0]) / h->vox_cs, hi_u = ((double)h->bmax[0] - h->vox_origin[0]) / h->vox_cs;
        const double lo_w = ((double)h->bmin[2] - h->vox_origin[2]) / h->vox_cs, hi_w = ((double)h->bmax[2] - h->vox_origin[2]) / h->vox_cs;
        const double mu = 8 + (hi_u - lo_u), mw = 8 + (hi_w - lo_w);
        if (!(g->x0 >= lo_u - mu && (double)g->x0 + g->w <= hi_u + mu && g->z0 >= lo_w - mw &&
              (double)g->z0 + g->d <= hi_w + mw)) {
            snprintf(msg, sizeof msg,
                     "cell %u's height grid (columns %d + %u, %d + %u) reaches past the bounds: vox_cs %.9g or "
                     "vox_origin disagree with it",
                     c, g->x0, g->w, g->z0, g->d, h->vox_cs);
            return bad(err, msg);
        }
        /* and it reaches the cell: a vertex of the cell lies on it, within two columns (the bake
           puts every vertex there; one is enough to catch a voxel size or origin that does not
           belong to the grids, which puts none anywhere near) */
        bool reached = false;
        for (uint32_t k = 0; k < cell->vert_count && !reached; ++k) {
            double u = (ptl_nm_vx(nm, cv[k]) - h->vox_origin[0]) / h->vox_cs - g->x0;
            double w = (ptl_nm_vz(nm, cv[k]) - h->vox_origin[2]) / h->vox_cs - g->z0;
            reached = u >= -2 && w >= -2 && u <= (double)g->w + 2 && w <= (double)g->d + 2;
        }
        if (!reached) {
            snprintf(msg, sizeof msg,
                     "cell %u's height grid (columns %d + %u, %d + %u) is nowhere near the cell: vox_cs %.9g or "
                     "vox_origin disagree with it",
                     c, g->x0, g->w, g->z0, g->d, h->vox_cs);
            return bad(err, msg);
        }
    }
    return PTL_OK;
}


/* navmesh.cell_kinked: a right turn (within validation's tolerance of the chord) whose far
   neighbour lies beyond the line of the shorter edge by more than a tenth of the location tolerance
   (1e-6 of the coordinate scale, query.c). Allocated only when some cell is kinked. */
static ptl_status find_kinked_cells(ptl_navmesh* nm) {
    const ptl_blob_header* h = nm->h;
    const double limit = 0.1 * PTL_NM_LOC_REL * ptl_nm_plan_scale(nm);
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const uint32_t* cv = nm->cell_verts + nm->cells[c].first;
        const uint32_t n = nm->cells[c].vert_count;
        bool kinked = false;
        for (uint32_t i = 0; i < n && !kinked; ++i) {
            const uint32_t p = cv[i == 0 ? n - 1 : i - 1], q = cv[i], r = cv[i + 1 == n ? 0 : i + 1];
            const double qx = ptl_nm_vx(nm, q), qz = ptl_nm_vz(nm, q);
            const double ax = ptl_nm_vx(nm, p) - qx, az = ptl_nm_vz(nm, p) - qz;
            const double bx = ptl_nm_vx(nm, r) - qx, bz = ptl_nm_vz(nm, r) - qz;
            const double o = bx * az - bz * ax; /* orient(p, q, r): negative for a right turn */
            if (!(o < 0)) continue;
            const double shorter = sqrt(fmin(ax * ax + az * az, bx * bx + bz * bz));
            kinked = -o > limit * shorter;
        }
        if (!kinked) continue;
        if (!nm->cell_kinked) {
            nm->cell_kinked = ptl_mem_alloc(&nm->alloc, h->cell_count);
            if (!nm->cell_kinked) return PTL_ERR_NO_MEMORY;
            memset(nm->cell_kinked, 0, h->cell_count);
        }
        nm->cell_kinked[c] = 1;
    }
    return PTL_OK;
}

/* Pieces of walkable space: cells joined through portals (breadth-first over the neighbours). The
   breadth-first queue, one piece after another, is kept: the cells of piece p are
   piece_cells[piece_first[p] .. piece_first[p + 1]). */
static ptl_status build_pieces(ptl_navmesh* nm) {
    const ptl_blob_header* h = nm->h;
    nm->cell_piece = ptl_mem_alloc(&nm->alloc, (size_t)h->cell_count * sizeof(uint32_t));
    nm->piece_cells = ptl_mem_alloc(&nm->alloc, (size_t)h->cell_count * sizeof(uint32_t));
    nm->piece_first = ptl_mem_alloc(&nm->alloc, ((size_t)h->cell_count + 1) * sizeof(uint32_t));
    if (!nm->cell_piece || !nm->piece_cells || !nm->piece_first) return PTL_ERR_NO_MEMORY;
    uint32_t* queue = nm->piece_cells;
    memset(nm->cell_piece, 0xff, (size_t)h->cell_count * sizeof(uint32_t));
    uint32_t pieces = 0, tail = 0;
    for (uint32_t c0 = 0; c0 < h->cell_count; ++c0) {
        if (nm->cell_piece[c0] != PTL_NONE) continue;
        uint32_t head = tail;
        nm->piece_first[pieces] = tail;
        queue[tail++] = c0;
        nm->cell_piece[c0] = pieces;
        while (head < tail) {
            const ptl_blob_cell* cell = &nm->cells[queue[head++]];
            for (uint32_t i = 0; i < cell->vert_count; ++i) {
                uint32_t n = nm->cell_nbrs[cell->first + i];
                if (n != PTL_NONE && nm->cell_piece[n] == PTL_NONE) {
                    nm->cell_piece[n] = pieces;
                    queue[tail++] = n;
                }
            }
        }
        ++pieces;
    }
    nm->piece_first[pieces] = tail;
    nm->piece_count = pieces;
    return PTL_OK;
}

static ptl_status build_vertex_cells(ptl_navmesh* nm) {
    const ptl_blob_header* h = nm->h;
    nm->vcell_start = ptl_mem_calloc(&nm->alloc, (size_t)h->vert_count + 1, sizeof(uint32_t));
    nm->vcell = ptl_mem_alloc(&nm->alloc, (size_t)h->cell_vert_total * sizeof(uint32_t));
    if (!nm->vcell_start || !nm->vcell) return PTL_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < h->cell_vert_total; ++i) nm->vcell_start[nm->cell_verts[i] + 1]++;
    for (uint32_t v = 0; v < h->vert_count; ++v) nm->vcell_start[v + 1] += nm->vcell_start[v];
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            uint32_t v = nm->cell_verts[cell->first + i];
            /* Fill from the end backwards so the slot is found without a second cursor array. */
            nm->vcell[--nm->vcell_start[v + 1]] = c;
        }
    }
    /* After the backwards fill, vcell_start[v + 1] points at the start of v's run: shift back. */
    for (uint32_t v = 0; v < h->vert_count; ++v) nm->vcell_start[v] = nm->vcell_start[v + 1];
    nm->vcell_start[h->vert_count] = h->cell_vert_total;
    return PTL_OK;
}

/* ptl_navmesh_create, or with `adopt` the blob itself becomes the navmesh's (no copy; on failure the
   caller keeps it). */
static ptl_status create(const void* blob, size_t size, bool adopt, const ptl_navmesh_desc* desc, ptl_navmesh** out,
                         ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_navmesh_create: out is NULL");
    *out = NULL;
    if (!blob) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_navmesh_create: blob is NULL");
    ptl_status s = check_header(blob, size, err);
    if (s < 0) return s;
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    ptl_navmesh* nm = ptl_mem_calloc(&a, 1, sizeof *nm);
    if (!nm) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "navmesh: out of memory");
    nm->alloc = a;
    nm->blob = adopt ? (uint8_t*)(uintptr_t)blob : ptl_mem_alloc(&a, size);
    if (!nm->blob) {
        ptl_navmesh_destroy(nm);
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "navmesh: out of memory (%zu bytes)", size);
    }
    if (!adopt) memcpy(nm->blob, blob, size);
    nm->size = size;
    bind(nm);
    s = check_topology(nm, err);
    if (s >= 0) s = check_cell_shapes(nm, err);
    if (s >= 0 && (build_vertex_cells(nm) < 0 || build_pieces(nm) < 0))
        s = ptl_error_set(err, PTL_ERR_NO_MEMORY, "navmesh: out of memory");
    if (s >= 0 && find_kinked_cells(nm) < 0) s = ptl_error_set(err, PTL_ERR_NO_MEMORY, "navmesh: out of memory");
    if (s >= 0) s = check_hubs(nm, err);
    if (s >= 0) s = ptl_nm_build_pockets(nm, err);
    if (s >= 0 && nm->h->offmesh_count) s = ptl_om_load(nm, err);
    nm->om_gen_loaded = nm->om_gen;
    if (s < 0) {
        if (adopt) nm->blob = NULL, nm->size = 0; /* still the caller's */
        ptl_navmesh_destroy(nm);
        return s;
    }
    *out = nm;
    return ptl_error_ok(err);
}

ptl_navmesh_desc ptl_navmesh_desc_defaults(void) {
    return (ptl_navmesh_desc){.alloc = NULL};
}

ptl_status ptl_navmesh_create(const void* blob, size_t size, const ptl_navmesh_desc* desc, ptl_navmesh** out,
                              ptl_error* err) {
    return create(blob, size, false, desc, out, err);
}

ptl_status ptl_nm_create_adopt(void* blob, size_t size, const ptl_allocator* alloc, ptl_navmesh** out, ptl_error* err) {
    ptl_navmesh_desc d = {.alloc = alloc};
    return create(blob, size, true, &d, out, err);
}

ptl_status ptl_navmesh_load_file(const char* path, const ptl_navmesh_desc* desc, ptl_navmesh** out, ptl_error* err) {
    if (!out || !path) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_navmesh_load_file: NULL argument");
    *out = NULL;
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    char* buf;
    size_t len, cap;
    ptl_status s = ptl_file_read_all(path, PTL_BLOB_FILE_MAX, &a, &buf, &len, &cap, err);
    if (s < 0) return s;
    s = ptl_navmesh_create(buf, len, desc, out, err);
    if (s < 0 && err) {
        char m[2 * sizeof err->message];
        snprintf(m, sizeof m, "%s: %s", path, err->message);
        m[sizeof err->message - 1] = '\0'; /* long paths truncate the message, never overflow */
        memcpy(err->message, m, sizeof err->message);
    }
    ptl_mem_free(&a, buf, cap);
    return s;
}

void ptl_navmesh_destroy(ptl_navmesh* nm) {
    if (!nm) return;
    ptl_allocator a = nm->alloc;
    uint32_t vc = nm->h ? nm->h->vert_count : 0, total = nm->h ? nm->h->cell_vert_total : 0;
    ptl_mem_free(&a, nm->vcell_start, ((size_t)vc + 1) * sizeof(uint32_t));
    ptl_mem_free(&a, nm->vcell, (size_t)total * sizeof(uint32_t));
    ptl_mem_free(&a, nm->cell_piece, (size_t)(nm->h ? nm->h->cell_count : 0) * sizeof(uint32_t));
    ptl_mem_free(&a, nm->piece_cells, (size_t)(nm->h ? nm->h->cell_count : 0) * sizeof(uint32_t));
    ptl_mem_free(&a, nm->piece_first, ((size_t)(nm->h ? nm->h->cell_count : 0) + 1) * sizeof(uint32_t));
    ptl_mem_free(&a, nm->cell_kinked, nm->cell_kinked ? (size_t)nm->h->cell_count : 0);
    ptl_mem_free(&a, nm->vert_hub, nm->vert_hub ? (size_t)vc * sizeof(uint32_t) : 0);
    ptl_mem_free(&a, nm->pocket, nm->pocket ? 2 * ((size_t)vc + 1) * sizeof(uint32_t) : 0);
    ptl_mem_free(&a, nm->cell_pocket,
                 nm->cell_pocket ? 2 * ((size_t)(nm->h ? nm->h->cell_count : 0) + 1) * sizeof(uint32_t) : 0);
    ptl_mem_free(&a, nm->cell_lid, nm->cell_lid ? ((size_t)(nm->h ? nm->h->cell_count : 0) + 1) * sizeof(uint32_t) : 0);
    ptl_mem_free(&a, nm->vert_lid, nm->vert_lid ? ((size_t)vc + 1) * sizeof(uint32_t) : 0);
    ptl_om_free(nm);
    ptl_mem_free(&a, nm->blob, nm->size);
    ptl_mem_free(&a, nm, sizeof *nm);
}

const void* ptl_navmesh_blob(const ptl_navmesh* nm, size_t* size) {
    if (size) *size = nm ? nm->size : 0;
    return nm ? nm->blob : NULL;
}

ptl_status ptl_navmesh_save_file(const ptl_navmesh* nm, const char* path, ptl_error* err) {
    if (!nm || !path) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_navmesh_save_file: NULL argument");
    /* links added or removed since the load: the blob with the live ones */
    void* with = NULL;
    size_t with_size = 0;
    if (nm->om_gen != nm->om_gen_loaded) {
        ptl_status st = ptl_navmesh_blob_with_offmesh(nm, &nm->alloc, &with, &with_size, err);
        if (st < 0) return st;
    }
    const void* data = with ? with : nm->blob;
    const size_t size = with ? with_size : nm->size;
    FILE* f = fopen(path, "wb");
    if (!f) {
        ptl_mem_free(&nm->alloc, with, with_size);
        return ptl_error_set(err, PTL_ERR_IO, "%s: cannot open for writing", path);
    }
    size_t put = fwrite(data, 1, size, f);
    int closed = fclose(f);
    ptl_mem_free(&nm->alloc, with, with_size);
    if (put != size || closed != 0) return ptl_error_set(err, PTL_ERR_IO, "%s: write failed", path);
    return ptl_error_ok(err);
}

void ptl_navmesh_get_info(const ptl_navmesh* nm, ptl_navmesh_info* out) {
    memset(out, 0, sizeof *out);
    if (!nm) return;
    const ptl_blob_header* h = nm->h;
    out->version = h->version;
    out->flags = h->flags;
    out->vert_count = h->vert_count;
    out->cell_count = h->cell_count;
    out->portal_count = h->portal_count;
    out->link_count = h->link_count;
    out->tile_count = h->tile_count;
    out->tile_size = h->tile_size;
    out->tiles_x = h->tile_size ? h->tiles_x : 1;
    out->tiles_z = h->tile_count / out->tiles_x;
    if (h->tile_size) {
        out->tile_origin[0] = h->vox_origin[0], out->tile_origin[1] = h->vox_origin[2];
        out->tile_side = (float)((double)h->tile_size * h->vox_cs);
    }
    out->layer_count = h->layer_count;
    memcpy(out->bmin, h->bmin, sizeof out->bmin);
    memcpy(out->bmax, h->bmax, sizeof out->bmax);
    out->walkable_area = h->walkable_area;
    out->relax = h->relax;
    out->blob_size = h->total_size;
    out->landmark_count = h->landmark_count;
    out->lid_count = h->lid_count;
    out->hub_count = h->hub_count;
    out->hub_entries = h->hub_entry_count;
    out->hub_bytes = h->hub_bytes;
    out->checksum = h->checksum;
}

const float* ptl_navmesh_vert(const ptl_navmesh* nm, uint32_t v) {
    if (!nm || v >= nm->h->vert_count) return NULL;
    return nm->verts + 3 * (size_t)v;
}

ptl_status ptl_navmesh_get_cell(const ptl_navmesh* nm, uint32_t cell, ptl_cell_view* out) {
    if (!nm || !out || cell >= nm->h->cell_count) return PTL_ERR_INVALID_ARG;
    const ptl_blob_cell* c = &nm->cells[cell];
    out->verts = nm->cell_verts + c->first;
    out->neighbors = nm->cell_nbrs + c->first;
    out->vert_count = c->vert_count;
    out->layer = c->layer;
    out->area = c->tag;
    uint32_t first_link = nm->h->cell_count - nm->h->link_count;
    out->link = cell >= first_link ? cell - first_link : PTL_NONE;
    return PTL_OK;
}

ptl_status ptl_navmesh_get_link(const ptl_navmesh* nm, uint32_t link, ptl_link_view* out) {
    if (!nm || !out || link >= nm->h->link_count) return PTL_ERR_INVALID_ARG;
    const ptl_blob_link* l = &nm->links[link];
    out->cell = l->cell;
    out->cells[0] = l->cells[0], out->cells[1] = l->cells[1];
    out->rise = l->rise, out->gap = l->gap;
    out->kind = (ptl_link_kind)l->kind;
    return PTL_OK;
}

ptl_status ptl_navmesh_get_portal(const ptl_navmesh* nm, uint32_t portal, ptl_portal_view* out) {
    if (!nm || !out || portal >= nm->h->portal_count) return PTL_ERR_INVALID_ARG;
    const ptl_blob_portal* p = &nm->portals[portal];
    for (int i = 0; i < 2; ++i) {
        out->cell[i] = p->cell[i];
        out->edge[i] = p->edge[i];
        out->vert[i] = p->vert[i];
    }
    return PTL_OK;
}

bool ptl_nm_cell_floor(const ptl_navmesh* nm, uint32_t c, double x, double z, float* y) {
    const ptl_blob_header* h = nm->h;
    if (!nm->cell_grids) return false;
    const ptl_blob_grid* ly = &nm->cell_grids[c];
    if (!ly->w || !ly->d) return false;
    double fx = (x - h->vox_origin[0]) / h->vox_cs - ly->x0, fz = (z - h->vox_origin[2]) / h->vox_cs - ly->z0;
    /* Beyond the grid and its one column around: no floor (and no integer conversion out of range). */
    if (!(fx >= -2 && fz >= -2 && fx <= (double)ly->w + 2 && fz <= (double)ly->d + 2)) return false;
    int64_t cx = (int64_t)floor(fx), cz = (int64_t)floor(fz);
    /* The column holding the point, or the nearest of the layer's columns around it: a point on a
       column's border, or on a contour simplified by up to a column, still finds its floor.
       A point clearly inside a column with a floor (not within 1e-6 of a column side, where the
       neighbour could tie) is nearer its centre than any other's: that column, without the
       search (the usual case: one read instead of nine). */
    const double ux = fx - (double)cx, uz = fz - (double)cz;
    if (cx >= 0 && cz >= 0 && cx < (int64_t)ly->w && cz < (int64_t)ly->d && ux > 1e-6 && ux < 1 - 1e-6 &&
        uz > 1e-6 && uz < 1 - 1e-6) {
        uint16_t v = ptl_nm_grid_floor(nm, ly, (uint32_t)cx, (uint32_t)cz);
        if (v != PTL_HEIGHT_NONE) {
            *y = h->vox_origin[1] + (float)v * h->vox_ch;
            return true;
        }
    }
    uint16_t best = PTL_HEIGHT_NONE;
    double best_d = 1e30;
    for (int64_t dz = -1; dz <= 1; ++dz) {
        for (int64_t dx = -1; dx <= 1; ++dx) {
            int64_t qx = cx + dx, qz = cz + dz;
            if (qx < 0 || qz < 0 || qx >= (int64_t)ly->w || qz >= (int64_t)ly->d) continue;
            uint16_t v = ptl_nm_grid_floor(nm, ly, (uint32_t)qx, (uint32_t)qz);
            if (v == PTL_HEIGHT_NONE) continue;
            double ex = fx - ((double)qx + 0.5), ez = fz - ((double)qz + 0.5);
            double d2 = ex * ex + ez * ez;
            if (d2 < best_d) best_d = d2, best = v;
        }
    }
    if (best == PTL_HEIGHT_NONE) return false;
    *y = h->vox_origin[1] + (float)best * h->vox_ch;
    return true;
}

ptl_status ptl_navmesh_cell_tiles(const ptl_navmesh* nm, uint32_t cell, uint32_t out[4]) {
    if (!nm || !out || cell >= nm->h->cell_count) return PTL_ERR_INVALID_ARG;
    const ptl_blob_header* h = nm->h;
    out[0] = out[1] = out[2] = out[3] = 0;
    if (h->tile_size == 0) return PTL_OK;
    const ptl_blob_cell* c = &nm->cells[cell];
    double x0 = INFINITY, x1 = -INFINITY, z0 = INFINITY, z1 = -INFINITY;
    for (uint32_t i = 0; i < c->vert_count; ++i) {
        const float* p = nm->verts + 3 * (size_t)nm->cell_verts[c->first + i];
        x0 = fmin(x0, p[0]), x1 = fmax(x1, p[0]), z0 = fmin(z0, p[2]), z1 = fmax(z1, p[2]);
    }
    const double side = (double)h->tile_size * h->vox_cs;
    const uint32_t nx = h->tiles_x, nz = h->tile_count / h->tiles_x;
    double b[4] = {(x0 - h->vox_origin[0]) / side, (z0 - h->vox_origin[2]) / side, (x1 - h->vox_origin[0]) / side,
                   (z1 - h->vox_origin[2]) / side};
    for (int k = 0; k < 4; ++k) {
        double f = floor(b[k]);
        uint32_t lim = (k & 1 ? nz : nx) - 1;
        out[k] = f < 0 ? 0 : f > lim ? lim : (uint32_t)f;
    }
    return PTL_OK;
}

bool ptl_navmesh_cell_in_tile(const ptl_navmesh* nm, uint32_t cell, uint32_t tx, uint32_t tz) {
    if (!nm || cell >= nm->h->cell_count) return false;
    const ptl_blob_header* h = nm->h;
    if (h->tile_size == 0) return tx == 0 && tz == 0;
    if (tx >= h->tiles_x || tz >= h->tile_count / h->tiles_x) return false;
    const double side = (double)h->tile_size * h->vox_cs;
    const double r[4] = {h->vox_origin[0] + tx * side, h->vox_origin[2] + tz * side, h->vox_origin[0] + (tx + 1) * side,
                         h->vox_origin[2] + (tz + 1) * side};
    const ptl_blob_cell* c = &nm->cells[cell];
    const uint32_t* cv = nm->cell_verts + c->first;
    const uint32_t n = c->vert_count;
    /* The rectangle's axes: the cell's bounds must overlap the open rectangle. */
    double x0 = INFINITY, x1 = -INFINITY, z0 = INFINITY, z1 = -INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        double x = ptl_nm_vx(nm, cv[i]), z = ptl_nm_vz(nm, cv[i]);
        x0 = fmin(x0, x), x1 = fmax(x1, x), z0 = fmin(z0, z), z1 = fmax(z1, z);
    }
    if (x1 <= r[0] || x0 >= r[2] || z1 <= r[1] || z0 >= r[3]) return false;
    /* The cell's edges (counter-clockwise, inside on the left): the rectangle must reach inside each. */
    const double cx[4] = {r[0], r[2], r[2], r[0]}, cz[4] = {r[1], r[1], r[3], r[3]};
    for (uint32_t i = 0; i < n; ++i) {
        double ax = ptl_nm_vx(nm, cv[i]), az = ptl_nm_vz(nm, cv[i]);
        double ex = ptl_nm_vx(nm, cv[(i + 1) % n]) - ax, ez = ptl_nm_vz(nm, cv[(i + 1) % n]) - az;
        bool inside = false;
        for (int k = 0; k < 4 && !inside; ++k) inside = ex * (cz[k] - az) - ez * (cx[k] - ax) > 0;
        if (!inside) return false;
    }
    return true;
}

ptl_status ptl_navmesh_cell_centroid(const ptl_navmesh* nm, uint32_t cell, float out[3]) {
    if (!out) return PTL_ERR_INVALID_ARG;
    out[0] = out[1] = out[2] = 0;
    if (!nm || cell >= nm->h->cell_count) return PTL_ERR_INVALID_ARG;
    const ptl_blob_cell* c = &nm->cells[cell];
    double s[3] = {0, 0, 0};
    for (uint32_t i = 0; i < c->vert_count; ++i) {
        const float* v = nm->verts + 3 * (size_t)nm->cell_verts[c->first + i];
        for (int k = 0; k < 3; ++k) s[k] += v[k];
    }
    for (int k = 0; k < 3; ++k) out[k] = (float)(s[k] / c->vert_count);
    return PTL_OK;
}
