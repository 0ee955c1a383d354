/* The Recast/Detour peer of the benchmarks (interface and ownership: peer_recast.h).

   The pipeline is the one Recast documents (Recast.h, "Recast" group): mark walkable triangles,
   rasterize into a heightfield, filter, compact, erode, distance field and watershed regions,
   contours, polygon mesh, detail mesh, then dtCreateNavMeshData per tile and dtNavMesh::addTile.
   Tiled bakes pad each tile's heightfield by a border of walkableRadius + 3 voxels and hand that
   border to rcBuildRegions, so every tile's polygons stop exactly at the tile edge and Detour can
   stitch neighbouring tiles (Recast.h, rcConfig::borderSize).

   Globals, both forced by Recast's and Detour's C-style hooks and documented in the header:
   - the heap counters behind rcAllocSetCustom (installed only while a bake runs);
   - the xorshift32 state behind the bare float(*)() that dtNavMeshQuery::findRandomPoint takes. */
#include "peer_recast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <new>

#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <DetourNavMeshQuery.h>
#include <DetourStatus.h>
#include <Recast.h>
#include <RecastAlloc.h>

namespace {

/* Detour's node pool indexes nodes with 16 bits (DT_NULL_IDX is 0xffff): 65535 is its maximum. */
const int MAX_NODES = 65535;
/* A corridor on a 1024 x 768 map with 64-cell tiles stays far below this; findPath reports
   DT_BUFFER_TOO_SMALL (and we a partial path) if one ever does not. */
const int MAX_PATH_POLYS = 1 << 16;
const int MAX_CORNERS = 1 << 14;

double now_ms() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- Peak heap through Recast's allocator hook ------------------------------------------------
   Each block carries its size in front (16 bytes keep the payload aligned for any type Recast
   stores) so the free hook, which gets only the pointer, can subtract it. */
size_t heap_now, heap_peak;

void* counting_alloc(size_t size, rcAllocHint) {
    unsigned char* p = (unsigned char*)malloc(size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    heap_now += size;
    if (heap_now > heap_peak) heap_peak = heap_now;
    return p + 16;
}

void counting_free(void* ptr) {
    if (!ptr) return;
    unsigned char* p = (unsigned char*)ptr - 16;
    size_t size;
    memcpy(&size, p, sizeof size);
    heap_now -= size;
    free(p);
}

/* The same counters behind Detour's allocator hook (dtAllocSetCustom), for the size of a query. */
void* counting_dt_alloc(size_t size, dtAllocHint) { return counting_alloc(size, RC_ALLOC_PERM); }

/* ---- Random numbers for findRandomPoint -------------------------------------------------------*/
uint32_t rand_state = 2463534242u;

float rand_unit() {
    uint32_t x = rand_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rand_state = x;
    return (float)(x >> 8) * (1.0f / 16777216.0f); /* 24 bits: exactly representable, < 1 */
}

/* Keeps Recast's first error (and counts warnings) instead of dropping them. */
class LogContext : public rcContext {
public:
    explicit LogContext(peer_stats* st) : rcContext(true), st_(st) {}

protected:
    void doLog(const rcLogCategory category, const char* msg, const int len) override {
        if (category == RC_LOG_ERROR && !st_->error[0]) {
            snprintf(st_->error, sizeof st_->error, "recast: %.*s", len, msg);
        } else if (category == RC_LOG_WARNING) {
            if (!st_->warnings) snprintf(st_->warning, sizeof st_->warning, "%.*s", len, msg);
            ++st_->warnings;
        }
    }

private:
    peer_stats* st_;
};

/* Everything one bake needs: the soup, per-triangle areas, the tile-independent config and the
   triangles binned per tile (CSR: tile t owns bin_tris[bin_start[t] .. bin_start[t+1])). */
struct Soup {
    const float* verts;
    int nverts;
    const int* tris;
    int ntris;
    unsigned char* areas;
    float bmin[3], bmax[3];
    rcConfig cfg;
    bool tiled;
    bool filter_ledges;
    int grid_w, grid_h;   /* whole input in voxels */
    int tiles_x, tiles_z;
    float tile_world;     /* tile side in world units (tiled) */
    int* bin_start;
    int* bin_tris;
};

bool params_ok(const peer_params* p, peer_stats* st) {
    const float f[] = {p->cell_size, p->cell_height, p->agent_height, p->agent_radius, p->max_climb,
                       p->max_slope, p->max_edge_len, p->max_error, p->detail_sample_dist,
                       p->detail_sample_max_error};
    for (float v : f) {
        if (!isfinite(v)) {
            snprintf(st->error, sizeof st->error, "peer: non-finite parameter");
            return false;
        }
    }
    const char* bad = NULL;
    if (p->cell_size <= 0 || p->cell_height <= 0) bad = "cell_size and cell_height must be > 0";
    else if (p->agent_height <= 0) bad = "agent_height must be > 0";
    else if (p->agent_radius < 0 || p->max_climb < 0 || p->max_edge_len < 0 || p->max_error < 0) bad = "negative parameter";
    else if (p->max_slope < 0 || p->max_slope >= 90) bad = "max_slope must be in [0, 90)";
    else if (p->tile_size != 0 && (p->tile_size < 16 || p->tile_size > 4096)) bad = "tile_size must be 0 or 16..4096";
    else if (p->verts_per_poly < 3 || p->verts_per_poly > DT_VERTS_PER_POLYGON) bad = "verts_per_poly must be 3..6";
    else if (p->region_min_size < 0 || p->region_merge_size < 0) bad = "negative region size";
    if (bad) snprintf(st->error, sizeof st->error, "peer: %s", bad);
    return bad == NULL;
}

/* rcConfig from the parameters, the way Recast's documentation converts world units to voxels:
   heights round up (an agent must fit), climbs round down (never climb more than asked). */
void make_config(const peer_params* p, rcConfig* cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->cs = p->cell_size;
    cfg->ch = p->cell_height;
    cfg->walkableSlopeAngle = p->max_slope;
    cfg->walkableHeight = (int)ceilf(p->agent_height / p->cell_height);
    cfg->walkableClimb = (int)floorf(p->max_climb / p->cell_height);
    cfg->walkableRadius = (int)ceilf(p->agent_radius / p->cell_size);
    cfg->maxEdgeLen = (int)(p->max_edge_len / p->cell_size);
    cfg->maxSimplificationError = p->max_error;
    cfg->minRegionArea = p->region_min_size * p->region_min_size;
    cfg->mergeRegionArea = p->region_merge_size * p->region_merge_size;
    cfg->maxVertsPerPoly = p->verts_per_poly;
    cfg->detailSampleDist = p->detail_sample_dist < 0.9f ? 0 : p->cell_size * p->detail_sample_dist;
    cfg->detailSampleMaxError = p->cell_height * p->detail_sample_max_error;
}

/* Bins each triangle into every tile whose padded box its x-z bounds touch. */
bool bin_triangles(Soup* s) {
    const int ntiles = s->tiles_x * s->tiles_z;
    s->bin_start = (int*)calloc((size_t)ntiles + 1, sizeof(int));
    if (!s->bin_start) return false;
    if (!s->tiled) {
        s->bin_start[1] = s->ntris;
        return true; /* the one tile uses s->tris as is */
    }
    const float pad = (float)s->cfg.borderSize * s->cfg.cs;
    /* Two passes: count, then fill (counting sort keeps triangles in input order within a tile). */
    for (int pass = 0; pass < 2; ++pass) {
        int* fill = NULL;
        if (pass == 1) {
            for (int t = 0; t < ntiles; ++t) s->bin_start[t + 1] += s->bin_start[t];
            s->bin_tris = (int*)malloc(sizeof(int) * ((size_t)s->bin_start[ntiles] + 1));
            fill = (int*)malloc(sizeof(int) * (size_t)ntiles);
            if (!s->bin_tris || !fill) {
                free(fill);
                return false;
            }
            memcpy(fill, s->bin_start, sizeof(int) * (size_t)ntiles);
        }
        for (int i = 0; i < s->ntris; ++i) {
            const int* t = s->tris + 3 * i;
            float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
            for (int k = 0; k < 3; ++k) {
                const float* v = s->verts + 3 * t[k];
                lo[0] = fminf(lo[0], v[0]), hi[0] = fmaxf(hi[0], v[0]);
                lo[1] = fminf(lo[1], v[2]), hi[1] = fmaxf(hi[1], v[2]);
            }
            int x0 = (int)floorf((lo[0] - pad - s->bmin[0]) / s->tile_world);
            int x1 = (int)floorf((hi[0] + pad - s->bmin[0]) / s->tile_world);
            int z0 = (int)floorf((lo[1] - pad - s->bmin[2]) / s->tile_world);
            int z1 = (int)floorf((hi[1] + pad - s->bmin[2]) / s->tile_world);
            x0 = x0 < 0 ? 0 : x0, z0 = z0 < 0 ? 0 : z0;
            x1 = x1 >= s->tiles_x ? s->tiles_x - 1 : x1, z1 = z1 >= s->tiles_z ? s->tiles_z - 1 : z1;
            for (int z = z0; z <= z1; ++z) {
                for (int x = x0; x <= x1; ++x) {
                    const int tile = z * s->tiles_x + x;
                    if (pass == 0) ++s->bin_start[tile + 1];
                    else s->bin_tris[fill[tile]++] = i;
                }
            }
        }
        free(fill);
    }
    return true;
}

/* The Recast objects of one tile, freed together whatever stage failed. */
struct TileWork {
    rcHeightfield* hf = NULL;
    rcCompactHeightfield* chf = NULL;
    rcContourSet* cset = NULL;
    rcPolyMesh* pmesh = NULL;
    rcPolyMeshDetail* dmesh = NULL;
    ~TileWork() {
        rcFreeHeightField(hf);
        rcFreeCompactHeightfield(chf);
        rcFreeContourSet(cset);
        rcFreePolyMesh(pmesh);
        rcFreePolyMeshDetail(dmesh);
    }
};

/* Sum of polygon areas in x-z of a Recast polygon mesh (vertices are in voxels). */
double polymesh_area(const rcPolyMesh* pm) {
    double sum = 0;
    for (int i = 0; i < pm->npolys; ++i) {
        const unsigned short* poly = pm->polys + (size_t)i * 2 * pm->nvp;
        int n = 0;
        while (n < pm->nvp && poly[n] != RC_MESH_NULL_IDX) ++n;
        double twice = 0;
        for (int k = 0; k < n; ++k) {
            const unsigned short* a = pm->verts + 3 * poly[k];
            const unsigned short* b = pm->verts + 3 * poly[(k + 1) % n];
            twice += (double)a[0] * b[2] - (double)b[0] * a[2];
        }
        sum += fabs(twice) * 0.5;
    }
    return sum * (double)pm->cs * (double)pm->cs;
}

/* Bakes tile (tx, tz). Returns 1 with Detour tile data in *data, 0 for an empty tile, -1 on error. */
int bake_tile(LogContext* ctx, const Soup* s, int tx, int tz, const int* tris, const unsigned char* areas, int nt,
              unsigned char** data, int* size, peer_stats* st) {
    if (nt == 0) return 0;
    rcConfig cfg = s->cfg;
    if (s->tiled) {
        const float pad = (float)cfg.borderSize * cfg.cs;
        cfg.bmin[0] = s->bmin[0] + (float)tx * s->tile_world - pad;
        cfg.bmin[1] = s->bmin[1];
        cfg.bmin[2] = s->bmin[2] + (float)tz * s->tile_world - pad;
        cfg.bmax[0] = s->bmin[0] + (float)(tx + 1) * s->tile_world + pad;
        cfg.bmax[1] = s->bmax[1];
        cfg.bmax[2] = s->bmin[2] + (float)(tz + 1) * s->tile_world + pad;
        cfg.width = cfg.height = cfg.tileSize + 2 * cfg.borderSize;
    } else {
        memcpy(cfg.bmin, s->bmin, sizeof cfg.bmin);
        memcpy(cfg.bmax, s->bmax, sizeof cfg.bmax);
        cfg.width = s->grid_w;
        cfg.height = s->grid_h;
    }
    TileWork w;
    double t = now_ms();
    w.hf = rcAllocHeightfield();
    if (!w.hf || !rcCreateHeightfield(ctx, *w.hf, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch)) return -1;
    /* flagMergeThr = climb: spans of different triangles within one climb keep the walkable flag */
    if (!rcRasterizeTriangles(ctx, s->verts, s->nverts, tris, areas, nt, *w.hf, cfg.walkableClimb)) return -1;
    double t2 = now_ms();
    st->ms_rasterize += t2 - t, t = t2;

    rcFilterLowHangingWalkableObstacles(ctx, cfg.walkableClimb, *w.hf);
    if (s->filter_ledges) rcFilterLedgeSpans(ctx, cfg.walkableHeight, cfg.walkableClimb, *w.hf);
    rcFilterWalkableLowHeightSpans(ctx, cfg.walkableHeight, *w.hf);
    t2 = now_ms();
    st->ms_filter += t2 - t, t = t2;

    w.chf = rcAllocCompactHeightfield();
    if (!w.chf || !rcBuildCompactHeightfield(ctx, cfg.walkableHeight, cfg.walkableClimb, *w.hf, *w.chf)) return -1;
    rcFreeHeightField(w.hf);
    w.hf = NULL;
    if (cfg.walkableRadius > 0 && !rcErodeWalkableArea(ctx, cfg.walkableRadius, *w.chf)) return -1;
    t2 = now_ms();
    st->ms_compact += t2 - t, t = t2;
    /* walkable spans after erosion (untimed), tile border excluded */
    for (int z = cfg.borderSize; z < w.chf->height - cfg.borderSize; ++z) {
        for (int x = cfg.borderSize; x < w.chf->width - cfg.borderSize; ++x) {
            const rcCompactCell& c = w.chf->cells[x + z * w.chf->width];
            for (unsigned i = c.index, e = c.index + c.count; i < e; ++i)
                st->walkable_spans += w.chf->areas[i] != RC_NULL_AREA;
        }
    }
    t = now_ms();

    if (!rcBuildDistanceField(ctx, *w.chf)) return -1;
    if (!rcBuildRegions(ctx, *w.chf, cfg.borderSize, cfg.minRegionArea, cfg.mergeRegionArea)) return -1;
    t2 = now_ms();
    st->ms_regions += t2 - t, t = t2;

    w.cset = rcAllocContourSet();
    if (!w.cset || !rcBuildContours(ctx, *w.chf, cfg.maxSimplificationError, cfg.maxEdgeLen, *w.cset)) return -1;
    t2 = now_ms();
    st->ms_contours += t2 - t, t = t2;
    if (w.cset->nconts == 0) return 0;

    w.pmesh = rcAllocPolyMesh();
    if (!w.pmesh || !rcBuildPolyMesh(ctx, *w.cset, cfg.maxVertsPerPoly, *w.pmesh)) return -1;
    t2 = now_ms();
    st->ms_polymesh += t2 - t, t = t2;
    if (w.pmesh->npolys == 0) return 0;

    w.dmesh = rcAllocPolyMeshDetail();
    if (!w.dmesh ||
        !rcBuildPolyMeshDetail(ctx, *w.pmesh, *w.chf, cfg.detailSampleDist, cfg.detailSampleMaxError, *w.dmesh))
        return -1;
    t2 = now_ms();
    st->ms_detail += t2 - t, t = t2;

    /* Detour's default filter includes a polygon only when (flags & include) != 0 and excludes
       none: a zero flag would hide every polygon, so every walkable polygon gets flag 1. */
    for (int i = 0; i < w.pmesh->npolys; ++i) w.pmesh->flags[i] = w.pmesh->areas[i] != RC_NULL_AREA ? 1 : 0;
    st->polygons += (uint32_t)w.pmesh->npolys;
    st->vertices += (uint32_t)w.pmesh->nverts;
    st->detail_triangles += (uint32_t)w.dmesh->ntris;
    if ((uint32_t)w.pmesh->npolys > st->max_tile_polygons) st->max_tile_polygons = (uint32_t)w.pmesh->npolys;
    st->walkable_area += polymesh_area(w.pmesh);

    dtNavMeshCreateParams cp;
    memset(&cp, 0, sizeof cp);
    cp.verts = w.pmesh->verts;
    cp.vertCount = w.pmesh->nverts;
    cp.polys = w.pmesh->polys;
    cp.polyAreas = w.pmesh->areas;
    cp.polyFlags = w.pmesh->flags;
    cp.polyCount = w.pmesh->npolys;
    cp.nvp = w.pmesh->nvp;
    cp.detailMeshes = w.dmesh->meshes;
    cp.detailVerts = w.dmesh->verts;
    cp.detailVertsCount = w.dmesh->nverts;
    cp.detailTris = w.dmesh->tris;
    cp.detailTriCount = w.dmesh->ntris;
    cp.walkableHeight = (float)cfg.walkableHeight * cfg.ch;
    cp.walkableRadius = (float)cfg.walkableRadius * cfg.cs;
    cp.walkableClimb = (float)cfg.walkableClimb * cfg.ch;
    cp.tileX = tx;
    cp.tileY = tz;
    memcpy(cp.bmin, w.pmesh->bmin, sizeof cp.bmin);
    memcpy(cp.bmax, w.pmesh->bmax, sizeof cp.bmax);
    cp.cs = cfg.cs;
    cp.ch = cfg.ch;
    cp.buildBvTree = true;
    if (!dtCreateNavMeshData(&cp, data, size)) {
        snprintf(st->error, sizeof st->error,
                 "detour: dtCreateNavMeshData failed on tile (%d, %d) (%d vertices, %d polygons; 16-bit limits?)", tx,
                 tz, cp.vertCount, cp.polyCount);
        return -1;
    }
    st->ms_navmesh += now_ms() - t;
    st->navmesh_bytes += (size_t)*size;
    return 1;
}

int ilog2_ceil(unsigned v) {
    int b = 0;
    while ((1u << b) < v) ++b;
    return b;
}

struct TileData {
    unsigned char* data;
    int size;
};

}  // namespace

struct peer_mesh {
    dtNavMesh* nav = NULL;
    dtNavMeshQuery* query = NULL;
    dtQueryFilter filter;
    dtPolyRef polys[MAX_PATH_POLYS];
    float corners[3 * MAX_CORNERS];
    ~peer_mesh() {
        dtFreeNavMeshQuery(query);
        dtFreeNavMesh(nav);
    }
};

namespace {

/* Bakes every tile, then builds the navmesh. Heap accounting is on for the whole call. */
int bake_soup(Soup* s, peer_mesh** out, peer_stats* st, double t_start) {
    LogContext ctx(st);
    peer_mesh* m = NULL;
    TileData* tiles = NULL;
    int ntiles = 0, rc = -1;
    int* tile_tris = NULL;
    unsigned char* tile_areas = NULL;
    double t = now_ms();

    s->areas = (unsigned char*)calloc((size_t)s->ntris + 1, 1);
    if (!s->areas) goto oom;
    /* Walkable by slope only; Recast's documented first step. */
    rcMarkWalkableTriangles(&ctx, s->cfg.walkableSlopeAngle, s->verts, s->nverts, s->tris, s->ntris, s->areas);
    st->ms_rasterize += now_ms() - t;
    t = now_ms();
    if (!bin_triangles(s)) goto oom;
    st->ms_input += now_ms() - t;

    {
        const int total_tiles = s->tiles_x * s->tiles_z;
        int max_bin = 0;
        for (int i = 0; i < total_tiles; ++i) {
            const int n = s->bin_start[i + 1] - s->bin_start[i];
            max_bin = n > max_bin ? n : max_bin;
        }
        tiles = (TileData*)calloc((size_t)total_tiles, sizeof *tiles);
        if (!tiles) goto oom;
        if (s->tiled) {
            tile_tris = (int*)malloc(sizeof(int) * 3 * ((size_t)max_bin + 1));
            tile_areas = (unsigned char*)malloc((size_t)max_bin + 1);
            if (!tile_tris || !tile_areas) goto oom;
        }
        for (int tz = 0; tz < s->tiles_z; ++tz) {
            for (int tx = 0; tx < s->tiles_x; ++tx) {
                const int tile = tz * s->tiles_x + tx;
                const int n = s->bin_start[tile + 1] - s->bin_start[tile];
                const int* tris = s->tris;
                const unsigned char* areas = s->areas;
                if (s->tiled) {
                    for (int k = 0; k < n; ++k) {
                        const int tri = s->bin_tris[s->bin_start[tile] + k];
                        memcpy(tile_tris + 3 * k, s->tris + 3 * tri, 3 * sizeof(int));
                        tile_areas[k] = s->areas[tri];
                    }
                    tris = tile_tris, areas = tile_areas;
                }
                TileData td = {NULL, 0};
                const int r = bake_tile(&ctx, s, tx, tz, tris, areas, n, &td.data, &td.size, st);
                if (r < 0) {
                    if (!st->error[0]) snprintf(st->error, sizeof st->error, "recast: tile (%d, %d) failed", tx, tz);
                    goto fail;
                }
                if (r > 0) tiles[ntiles++] = td;
            }
        }
    }
    st->tiles = (uint32_t)ntiles;
    if (ntiles == 0) {
        snprintf(st->error, sizeof st->error, "recast: no walkable polygon");
        goto fail;
    }

    t = now_ms();
    m = new (std::nothrow) peer_mesh();
    if (!m) goto oom;
    m->nav = dtAllocNavMesh();
    m->query = dtAllocNavMeshQuery();
    if (!m->nav || !m->query) goto oom;
    {
        dtNavMeshParams np;
        memset(&np, 0, sizeof np);
        memcpy(np.orig, s->bmin, sizeof np.orig);
        np.tileWidth = s->tiled ? s->tile_world : (float)s->grid_w * s->cfg.cs;
        np.tileHeight = s->tiled ? s->tile_world : (float)s->grid_h * s->cfg.cs;
        np.maxTiles = ntiles;
        np.maxPolys = (int)st->max_tile_polygons;
        /* 32-bit references: salt + tile + polygon bits = 32, and Detour wants >= 10 salt bits. */
        const int bits = ilog2_ceil((unsigned)ntiles) + ilog2_ceil(st->max_tile_polygons);
        if (bits > 22) {
            snprintf(st->error, sizeof st->error,
                     "detour: %d tiles x %u polygons need %d reference bits, 32-bit refs allow 22: use smaller tiles",
                     ntiles, st->max_tile_polygons, bits);
            goto fail;
        }
        if (dtStatusFailed(m->nav->init(&np))) {
            snprintf(st->error, sizeof st->error, "detour: dtNavMesh::init failed");
            goto fail;
        }
    }
    for (int i = 0; i < ntiles; ++i) {
        /* DT_TILE_FREE_DATA: the navmesh owns the data once added; a failed addTile leaves it
           with us, so the remaining tiles are freed here. */
        dtStatus ts = m->nav->addTile(tiles[i].data, tiles[i].size, DT_TILE_FREE_DATA, 0, NULL);
        if (dtStatusFailed(ts)) {
            snprintf(st->error, sizeof st->error, "detour: addTile failed (status 0x%x)", ts);
            for (int k = i; k < ntiles; ++k) dtFree(tiles[k].data);
            ntiles = 0;
            goto fail;
        }
        tiles[i].data = NULL;
    }
    ntiles = 0;
    if (dtStatusFailed(m->query->init(m->nav, MAX_NODES))) {
        snprintf(st->error, sizeof st->error, "detour: dtNavMeshQuery::init failed");
        goto fail;
    }
    m->filter.setIncludeFlags(0xffff);
    m->filter.setExcludeFlags(0);
    st->ms_navmesh += now_ms() - t;
    *out = m;
    m = NULL;
    rc = 0;
    goto done;

oom:
    snprintf(st->error, sizeof st->error, "peer: out of memory");
fail:
    for (int i = 0; i < ntiles; ++i) dtFree(tiles[i].data);
    delete m;
done:
    free(tiles);
    free(tile_tris);
    free(tile_areas);
    free(s->areas);
    free(s->bin_start);
    free(s->bin_tris);
    st->ms_total = now_ms() - t_start;
    return rc;
}

/* Sets up bounds, config and tile grid for a soup and runs the bake with heap accounting on. */
int bake_common(const float* verts, int nverts, const int* tris, int ntris, const peer_params* p, peer_mesh** out,
                peer_stats* st, double t_start, double ms_input) {
    Soup s;
    memset(&s, 0, sizeof s);
    s.verts = verts, s.nverts = nverts, s.tris = tris, s.ntris = ntris;
    make_config(p, &s.cfg);
    s.filter_ledges = p->filter_ledges;
    rcCalcBounds(verts, nverts, s.bmin, s.bmax);
    /* rcCalcGridSize rounds the extent to the nearest whole cell, so up to half a cell of the mesh
       at the far x and z sides falls outside the grid and is not baked (on go-detour-stair2 a whole
       row of 16 walkable voxels). Portolan's grid covers the mesh; extending bmax to a whole number
       of cells gives Recast the same coverage, so areas and paths compare the same geometry. */
    for (int c = 0; c < 3; c += 2) {
        float cells = ceilf((s.bmax[c] - s.bmin[c]) / s.cfg.cs);
        s.bmax[c] = s.bmin[c] + cells * s.cfg.cs;
    }
    rcCalcGridSize(s.bmin, s.bmax, s.cfg.cs, &s.grid_w, &s.grid_h);
    s.tiled = p->tile_size > 0;
    if (s.tiled) {
        s.cfg.tileSize = p->tile_size;
        s.cfg.borderSize = s.cfg.walkableRadius + 3;
        s.tiles_x = (s.grid_w + p->tile_size - 1) / p->tile_size;
        s.tiles_z = (s.grid_h + p->tile_size - 1) / p->tile_size;
        s.tile_world = (float)p->tile_size * s.cfg.cs;
    } else {
        s.tiles_x = s.tiles_z = 1;
    }
    st->tiles_x = (uint32_t)s.tiles_x;
    st->tiles_z = (uint32_t)s.tiles_z;
    st->input_triangles = (uint32_t)ntris;
    st->ms_input = ms_input;

    heap_now = heap_peak = 0;
    rcAllocSetCustom(counting_alloc, counting_free);
    const int rc = bake_soup(&s, out, st, t_start);
    /* Every rcAlloc block of the bake is freed by now (Detour data comes from dtAlloc). */
    rcAllocSetCustom(NULL, NULL);
    st->peak_heap_bytes = heap_peak;
    return rc;
}

}  // namespace

extern "C" {

void peer_params_reference(peer_params* out) {
    memset(out, 0, sizeof *out);
    out->cell_size = 0.3f;
    out->cell_height = 0.2f;
    out->agent_height = 2.0f;
    out->agent_radius = 0.6f;
    out->max_climb = 0.9f;
    out->max_slope = 45.0f;
    out->tile_size = 0;
    out->max_edge_len = 12.0f;
    out->max_error = 1.3f;
    out->region_min_size = 8;
    out->region_merge_size = 20;
    out->verts_per_poly = 6;
    out->detail_sample_dist = 6.0f;
    out->detail_sample_max_error = 1.0f;
    out->filter_ledges = true;
}

void peer_params_grid(peer_params* out) {
    peer_params_reference(out);
    out->cell_size = 0.5f;
    out->agent_radius = 0.0f;
    out->tile_size = 128;
    out->filter_ledges = false;
}

int peer_bake_triangles(const float* verts, int nverts, const int* tris, int ntris, const peer_params* params,
                        peer_mesh** out, peer_stats* stats) {
    const double t0 = now_ms();
    memset(stats, 0, sizeof *stats);
    if (out) *out = NULL;
    peer_params ref;
    if (!params) peer_params_reference(&ref), params = &ref;
    if (!verts || !tris || !out || nverts < 3 || ntris < 1) {
        snprintf(stats->error, sizeof stats->error, "peer: empty or NULL input");
        return -1;
    }
    if (!params_ok(params, stats)) return -1;
    for (int i = 0; i < 3 * ntris; ++i) {
        if (tris[i] < 0 || tris[i] >= nverts) {
            snprintf(stats->error, sizeof stats->error, "peer: triangle %d has vertex index %d of %d", i / 3, tris[i],
                     nverts);
            return -1;
        }
    }
    return bake_common(verts, nverts, tris, ntris, params, out, stats, t0, 0);
}

int peer_bake_grid(const uint8_t* passable, uint32_t w, uint32_t h, const peer_params* params, peer_mesh** out,
                   peer_stats* stats) {
    const double t0 = now_ms();
    memset(stats, 0, sizeof *stats);
    if (out) *out = NULL;
    peer_params grid;
    if (!params) peer_params_grid(&grid), params = &grid;
    if (!passable || !out || w == 0 || h == 0 || ((uint64_t)w + 1) * ((uint64_t)h + 1) > 0x7fffffffu / 3) {
        snprintf(stats->error, sizeof stats->error, "peer: empty, NULL or oversized grid");
        return -1;
    }
    if (!params_ok(params, stats)) return -1;
    /* Lattice vertices (x, 0, z) for 0 <= x <= w, 0 <= z <= h; two floor triangles per free cell,
       counter-clockwise seen from above (normal +y, so rcMarkWalkableTriangles keeps them). */
    const size_t nv = (size_t)(w + 1) * (h + 1);
    size_t free_cells = 0;
    for (size_t i = 0; i < (size_t)w * h; ++i) free_cells += passable[i] != 0;
    if (free_cells == 0 || 2 * free_cells > 0x7fffffff / 3) {
        snprintf(stats->error, sizeof stats->error, "peer: grid has no free cell or too many");
        return -1;
    }
    float* verts = (float*)malloc(sizeof(float) * 3 * nv);
    int* tris = (int*)malloc(sizeof(int) * 6 * free_cells);
    if (!verts || !tris) {
        free(verts);
        free(tris);
        snprintf(stats->error, sizeof stats->error, "peer: out of memory");
        return -1;
    }
    for (uint32_t z = 0; z <= h; ++z) {
        for (uint32_t x = 0; x <= w; ++x) {
            float* v = verts + 3 * ((size_t)z * (w + 1) + x);
            v[0] = (float)x, v[1] = 0, v[2] = (float)z;
        }
    }
    int* t = tris;
    for (uint32_t z = 0; z < h; ++z) {
        for (uint32_t x = 0; x < w; ++x) {
            if (!passable[(size_t)z * w + x]) continue;
            const int a = (int)(z * (w + 1) + x), b = a + 1; /* (x, z), (x+1, z) */
            const int c = a + (int)(w + 1), d = c + 1;       /* (x, z+1), (x+1, z+1) */
            t[0] = a, t[1] = c, t[2] = d;
            t[3] = a, t[4] = d, t[5] = b;
            t += 6;
        }
    }
    const int r = bake_common(verts, (int)nv, tris, (int)(2 * free_cells), params, out, stats, t0, now_ms() - t0);
    free(verts);
    free(tris);
    stats->ms_total = now_ms() - t0;
    return r;
}

void peer_free(peer_mesh* m) { delete m; }

int peer_path(peer_mesh* m, const float start[3], const float goal[3], const float extents[3], float* points,
              uint32_t capacity, peer_path_result* out) {
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    if (!m || !start || !goal) return -1;
    static const float default_ext[3] = {2, 4, 2};
    const float* ext = extents ? extents : default_ext;
    const double t0 = now_ms();
    dtPolyRef sref = 0, gref = 0;
    float spos[3], gpos[3], epos[3];
    m->query->findNearestPoly(start, ext, &m->filter, &sref, spos);
    m->query->findNearestPoly(goal, ext, &m->filter, &gref, gpos);
    out->start_found = sref != 0;
    out->goal_found = gref != 0;
    int npolys = 0, ncorners = 0;
    if (sref && gref) {
        const dtStatus st = m->query->findPath(sref, gref, spos, gpos, &m->filter, m->polys, &npolys, MAX_PATH_POLYS);
        out->status = st;
        out->out_of_nodes = (st & DT_OUT_OF_NODES) != 0;
        if (npolys > 0) {
            memcpy(epos, gpos, sizeof epos);
            /* A partial corridor stops short of the goal polygon: aim at its closest point. */
            if (m->polys[npolys - 1] != gref) m->query->closestPointOnPoly(m->polys[npolys - 1], gpos, epos, NULL);
            m->query->findStraightPath(spos, epos, m->polys, npolys, m->corners, NULL, NULL, &ncorners, MAX_CORNERS, 0);
            out->found = true;
            out->complete = m->polys[npolys - 1] == gref && !(st & DT_PARTIAL_RESULT);
        }
    }
    out->us = (now_ms() - t0) * 1e3;
    out->polys = (uint32_t)npolys;
    out->corners = (uint32_t)ncorners;
    for (int i = 1; i < ncorners; ++i) {
        const float* a = m->corners + 3 * (i - 1);
        const float* b = m->corners + 3 * i;
        const double dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
        out->length += sqrt(dx * dx + dy * dy + dz * dz);
    }
    if (points) {
        const uint32_t n = (uint32_t)ncorners < capacity ? (uint32_t)ncorners : capacity;
        memcpy(points, m->corners, sizeof(float) * 3 * n);
    }
    return 0;
}

void peer_random_seed(uint32_t seed) { rand_state = seed ? seed : 2463534242u; }

int peer_random_point(peer_mesh* m, float out[3]) {
    if (!m || !out) return -1;
    dtPolyRef ref = 0;
    const dtStatus st = m->query->findRandomPoint(&m->filter, rand_unit, &ref, out);
    return dtStatusFailed(st) || !ref ? -1 : 0;
}

/* ---- The everyday queries (bench_queries.c) ---- */

static dtPolyRef start_poly(peer_mesh* m, const float p[3], const float extents[3], float pos[3], peer_query_out* out) {
    static const float default_ext[3] = {2, 4, 2};
    memset(out, 0, sizeof *out);
    dtPolyRef ref = 0;
    const double t0 = now_ms();
    m->query->findNearestPoly(p, extents ? extents : default_ext, &m->filter, &ref, pos);
    out->us_locate = (now_ms() - t0) * 1e3;
    return ref;
}

int peer_query_nearest(peer_mesh* m, const float p[3], const float extents[3], peer_query_out* out) {
    float pos[3];
    dtPolyRef ref = start_poly(m, p, extents, pos, out);
    out->us = out->us_locate;
    if (!ref) return -1;
    memcpy(out->point, pos, sizeof pos);
    return 0;
}

int peer_query_raycast(peer_mesh* m, const float s[3], const float e[3], const float extents[3], peer_query_out* out) {
    float pos[3], normal[3];
    dtPolyRef ref = start_poly(m, s, extents, pos, out);
    if (!ref) return -1;
    int n = 0;
    float t = 0;
    const double t0 = now_ms();
    m->query->raycast(ref, pos, e, &m->filter, &t, normal, m->polys, &n, MAX_PATH_POLYS);
    out->us = (now_ms() - t0) * 1e3;
    out->t = t;
    out->hit = t <= 1;
    const float u = out->hit ? t : 1;
    for (int k = 0; k < 3; ++k) out->point[k] = pos[k] + u * (e[k] - pos[k]);
    return 0;
}

int peer_query_wall(peer_mesh* m, const float p[3], float radius, const float extents[3], peer_query_out* out) {
    float pos[3], hit[3], normal[3];
    dtPolyRef ref = start_poly(m, p, extents, pos, out);
    if (!ref) return -1;
    float d = 0;
    const double t0 = now_ms();
    m->query->findDistanceToWall(ref, pos, radius, &m->filter, &d, hit, normal);
    out->us = (now_ms() - t0) * 1e3;
    out->dist = d;
    out->hit = d < radius;
    memcpy(out->point, hit, sizeof hit);
    return 0;
}

int peer_query_move(peer_mesh* m, const float s[3], const float e[3], const float extents[3], peer_query_out* out) {
    float pos[3];
    dtPolyRef ref = start_poly(m, s, extents, pos, out);
    if (!ref) return -1;
    int n = 0;
    const double t0 = now_ms();
    m->query->moveAlongSurface(ref, pos, e, &m->filter, out->point, m->polys, &n, MAX_PATH_POLYS);
    out->us = (now_ms() - t0) * 1e3;
    out->visited = (uint32_t)n;
    float h = 0;
    const double t1 = now_ms();
    out->has_height = n > 0 && dtStatusSucceed(m->query->getPolyHeight(m->polys[n - 1], out->point, &h));
    const double t2 = now_ms(), t3 = now_ms();
    /* the move and the height as one interval: the height's own interval less an empty one (the
       clock's cost, counted once in `us`) */
    out->us_height = out->us + ((t2 - t1) - (now_ms() - t3)) * 1e3;
    out->poly_height = h;
    return 0;
}

size_t peer_query_bytes(peer_mesh* m, int max_nodes) {
    if (!m || max_nodes < 1) return 0;
    heap_now = heap_peak = 0;
    dtAllocSetCustom(counting_dt_alloc, counting_free);
    dtNavMeshQuery* q = dtAllocNavMeshQuery();
    size_t bytes = 0;
    if (q && dtStatusSucceed(q->init(m->nav, max_nodes))) bytes = heap_now;
    dtFreeNavMeshQuery(q);
    dtAllocSetCustom(NULL, NULL);
    return bytes;
}

}  // extern "C"
