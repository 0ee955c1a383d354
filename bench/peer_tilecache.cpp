/* DetourTileCache as a benchmark peer (peer_tilecache.h). Written against librecast-dev 1.5.1's
   public headers: Recast.h (the layer pipeline), DetourTileCacheBuilder.h (layers, compressor,
   allocator), DetourTileCache.h (cache, obstacles, update), DetourNavMesh.h. */
#include "peer_tilecache.h"

#include <DetourAlloc.h>
#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <DetourTileCache.h>
#include <DetourTileCacheBuilder.h>
#include <Recast.h>
#include <lz4.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vector>

namespace {

double cpu_ms() {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* TileCache leaves compression to its caller; LZ4 is in Debian. */
struct Lz4Compressor : public dtTileCacheCompressor {
    int maxCompressedSize(const int n) override { return LZ4_compressBound(n); }
    dtStatus compress(const unsigned char* in, const int n, unsigned char* out, const int cap, int* out_n) override {
        const int k = LZ4_compress_default((const char*)in, (char*)out, n, cap);
        if (k <= 0) return DT_FAILURE;
        *out_n = k;
        return DT_SUCCESS;
    }
    dtStatus decompress(const unsigned char* in, const int n, unsigned char* out, const int cap, int* out_n) override {
        const int k = LZ4_decompress_safe((const char*)in, (char*)out, n, cap);
        if (k < 0) return DT_FAILURE;
        *out_n = k;
        return DT_SUCCESS;
    }
};

/* Scratch memory of one tile build: bumped, released all at once by reset(); what does not fit the
   block is malloc'ed and freed at the next reset. */
struct BumpAlloc : public dtTileCacheAlloc {
    std::vector<unsigned char> block;
    size_t top = 0;
    std::vector<void*> spill;
    explicit BumpAlloc(size_t cap) : block(cap) {}
    ~BumpAlloc() override { reset(); }
    void reset() override {
        top = 0;
        for (void* p : spill) ::free(p);
        spill.clear();
    }
    void* alloc(const size_t size) override {
        const size_t n = (size + 15) & ~(size_t)15;
        if (top + n <= block.size()) {
            void* p = &block[top];
            top += n;
            return p;
        }
        void* p = ::malloc(n);
        if (p) spill.push_back(p);
        return p;
    }
    void free(void*) override {}
};

/* Every polygon walkable (the default query filter includes flag 1), area 0. */
struct FlagProcessAll : public dtTileCacheMeshProcess {
    void process(dtNavMeshCreateParams* p, unsigned char* areas, unsigned short* flags) override {
        for (int i = 0; i < p->polyCount; ++i) {
            if (areas[i] == RC_WALKABLE_AREA) areas[i] = 0;
            flags[i] = 1;
        }
    }
};

struct Layer {
    std::vector<unsigned char> data; /* dtBuildTileCacheLayer's output: header + compressed layer */
};

unsigned next_pow2(unsigned v) {
    unsigned p = 1;
    while (p < v) p <<= 1;
    return p;
}

/* The layers of tile (tx, tz); false with st->error on failure. */
bool tile_layers(rcContext* ctx, const rcConfig& base, const float* bmin, const float* verts, int nverts,
                 const int* tris, const unsigned char* walk, int ntris, int tx, int tz, Lz4Compressor* comp,
                 std::vector<Layer>& out, peer_tc_stats* st) {
    rcConfig cfg = base;
    const float tw = (float)cfg.tileSize * cfg.cs;
    cfg.bmin[0] = bmin[0] + (float)tx * tw - (float)cfg.borderSize * cfg.cs;
    cfg.bmin[1] = base.bmin[1];
    cfg.bmin[2] = bmin[2] + (float)tz * tw - (float)cfg.borderSize * cfg.cs;
    cfg.bmax[0] = bmin[0] + (float)(tx + 1) * tw + (float)cfg.borderSize * cfg.cs;
    cfg.bmax[1] = base.bmax[1];
    cfg.bmax[2] = bmin[2] + (float)(tz + 1) * tw + (float)cfg.borderSize * cfg.cs;
    rcHeightfield* hf = rcAllocHeightfield();
    rcCompactHeightfield* chf = rcAllocCompactHeightfield();
    rcHeightfieldLayerSet* lset = rcAllocHeightfieldLayerSet();
    bool ok = hf && chf && lset &&
              rcCreateHeightfield(ctx, *hf, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch);
    for (int t = 0; ok && t < ntris; ++t) {
        const float* a = &verts[3 * tris[3 * t]];
        const float* b = &verts[3 * tris[3 * t + 1]];
        const float* c = &verts[3 * tris[3 * t + 2]];
        if (fminf(a[0], fminf(b[0], c[0])) > cfg.bmax[0] || fmaxf(a[0], fmaxf(b[0], c[0])) < cfg.bmin[0] ||
            fminf(a[2], fminf(b[2], c[2])) > cfg.bmax[2] || fmaxf(a[2], fmaxf(b[2], c[2])) < cfg.bmin[2])
            continue;
        ok = rcRasterizeTriangle(ctx, a, b, c, walk[t], *hf, cfg.walkableClimb);
    }
    (void)nverts;
    if (ok) {
        rcFilterLowHangingWalkableObstacles(ctx, cfg.walkableClimb, *hf);
        rcFilterLedgeSpans(ctx, cfg.walkableHeight, cfg.walkableClimb, *hf);
        rcFilterWalkableLowHeightSpans(ctx, cfg.walkableHeight, *hf);
        ok = rcBuildCompactHeightfield(ctx, cfg.walkableHeight, cfg.walkableClimb, *hf, *chf) &&
             rcErodeWalkableArea(ctx, cfg.walkableRadius, *chf) &&
             rcBuildHeightfieldLayers(ctx, *chf, cfg.borderSize, cfg.walkableHeight, *lset);
    }
    for (int i = 0; ok && i < lset->nlayers; ++i) {
        const rcHeightfieldLayer* l = &lset->layers[i];
        dtTileCacheLayerHeader h;
        memset(&h, 0, sizeof h);
        h.magic = DT_TILECACHE_MAGIC;
        h.version = DT_TILECACHE_VERSION;
        h.tx = tx, h.ty = tz, h.tlayer = i;
        memcpy(h.bmin, l->bmin, sizeof h.bmin);
        memcpy(h.bmax, l->bmax, sizeof h.bmax);
        h.width = (unsigned char)l->width, h.height = (unsigned char)l->height;
        h.minx = (unsigned char)l->minx, h.maxx = (unsigned char)l->maxx;
        h.miny = (unsigned char)l->miny, h.maxy = (unsigned char)l->maxy;
        h.hmin = (unsigned short)l->hmin, h.hmax = (unsigned short)l->hmax;
        unsigned char* data = NULL;
        int size = 0;
        if (dtStatusFailed(dtBuildTileCacheLayer(comp, &h, l->heights, l->areas, l->cons, &data, &size))) {
            ok = false;
            break;
        }
        Layer L;
        L.data.assign(data, data + size);
        dtFree(data);
        out.push_back(std::move(L));
        st->uncompressed_bytes += sizeof h + 3u * (size_t)l->width * (size_t)l->height;
        st->compressed_bytes += (size_t)size;
    }
    if (!ok && !st->error[0]) snprintf(st->error, sizeof st->error, "tilecache peer: tile (%d, %d) failed", tx, tz);
    rcFreeHeightfieldLayerSet(lset);
    rcFreeCompactHeightfield(chf);
    rcFreeHeightField(hf);
    return ok;
}

int add_obstacle(dtTileCache* tc, const peer_tc_obstacle* o, dtObstacleRef* ref) {
    dtStatus s;
    if (o->kind == 0) {
        s = tc->addObstacle(o->pos, o->size[0], o->size[1], ref);
    } else if (o->kind == 1) {
        const float lo[3] = {o->pos[0] - o->size[0], o->pos[1] - o->size[1], o->pos[2] - o->size[2]};
        const float hi[3] = {o->pos[0] + o->size[0], o->pos[1] + o->size[1], o->pos[2] + o->size[2]};
        s = tc->addBoxObstacle(lo, hi, ref);
    } else {
        s = tc->addBoxObstacle(o->pos, o->size, o->yaw, ref);
    }
    return dtStatusFailed(s) ? -1 : 0;
}

} // namespace

extern "C" int peer_tilecache_run(const float* verts, int nverts, const int* tris, int ntris, const peer_params* params,
                                  int tile_size, const peer_tc_obstacle* obs, int n, int rounds, double* best_ms,
                                  int* calls, peer_tc_stats* st) {
    memset(st, 0, sizeof *st);
    peer_params ref;
    if (!params) peer_params_reference(&ref), params = &ref;
    if (!verts || !tris || nverts < 3 || ntris < 1 || tile_size < 16 || tile_size > 255 || n < 0) {
        snprintf(st->error, sizeof st->error, "tilecache peer: bad arguments");
        return -1;
    }
    float bmin[3], bmax[3];
    rcCalcBounds(verts, nverts, bmin, bmax);
    rcConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.cs = params->cell_size;
    cfg.ch = params->cell_height;
    cfg.walkableSlopeAngle = params->max_slope;
    cfg.walkableHeight = (int)ceilf(params->agent_height / params->cell_height);
    cfg.walkableClimb = (int)floorf(params->max_climb / params->cell_height);
    cfg.walkableRadius = (int)ceilf(params->agent_radius / params->cell_size);
    cfg.maxEdgeLen = (int)(params->max_edge_len / params->cell_size);
    cfg.maxSimplificationError = params->max_error;
    cfg.minRegionArea = params->region_min_size * params->region_min_size;
    cfg.mergeRegionArea = params->region_merge_size * params->region_merge_size;
    cfg.maxVertsPerPoly = params->verts_per_poly;
    cfg.tileSize = tile_size;
    cfg.borderSize = cfg.walkableRadius + 3;
    cfg.width = cfg.height = tile_size + 2 * cfg.borderSize;
    rcVcopy(cfg.bmin, bmin);
    rcVcopy(cfg.bmax, bmax);
    int gw = 0, gh = 0;
    rcCalcGridSize(bmin, bmax, cfg.cs, &gw, &gh);
    const int tw = (gw + tile_size - 1) / tile_size, th = (gh + tile_size - 1) / tile_size;
    st->tiles_x = (uint32_t)tw, st->tiles_z = (uint32_t)th;

    rcContext ctx(false);
    std::vector<unsigned char> walk((size_t)ntris, 0);
    rcMarkWalkableTriangles(&ctx, cfg.walkableSlopeAngle, verts, nverts, tris, ntris, walk.data());
    Lz4Compressor comp;
    std::vector<Layer> layers;
    for (int tz = 0; tz < th; ++tz)
        for (int tx = 0; tx < tw; ++tx)
            if (!tile_layers(&ctx, cfg, bmin, verts, nverts, tris, walk.data(), ntris, tx, tz, &comp, layers, st))
                return -1;
    st->layers = (uint32_t)layers.size();

    dtTileCacheParams tcp;
    memset(&tcp, 0, sizeof tcp);
    rcVcopy(tcp.orig, bmin);
    tcp.cs = cfg.cs, tcp.ch = cfg.ch;
    tcp.width = tcp.height = tile_size;
    tcp.walkableHeight = params->agent_height;
    tcp.walkableRadius = params->agent_radius;
    tcp.walkableClimb = params->max_climb;
    tcp.maxSimplificationError = params->max_error;
    tcp.maxTiles = (int)next_pow2((unsigned)layers.size() + 1);
    tcp.maxObstacles = n + 1;
    dtNavMeshParams nmp;
    memset(&nmp, 0, sizeof nmp);
    rcVcopy(nmp.orig, bmin);
    nmp.tileWidth = nmp.tileHeight = (float)tile_size * cfg.cs;
    nmp.maxTiles = (int)next_pow2((unsigned)layers.size() + 1);
    int tile_bits = 0;
    while ((1 << tile_bits) < nmp.maxTiles) ++tile_bits;
    nmp.maxPolys = 1 << (22 - tile_bits);

    for (int i = 0; i < n; ++i) best_ms[i] = 1e300, calls[i] = 0;
    BumpAlloc alloc(8u << 20);
    FlagProcessAll proc;
    int rc = 0;
    for (int r = 0; r < rounds && !rc; ++r) {
        dtTileCache* tc = dtAllocTileCache();
        dtNavMesh* nav = dtAllocNavMesh();
        if (!tc || !nav || dtStatusFailed(tc->init(&tcp, &alloc, &comp, &proc)) || dtStatusFailed(nav->init(&nmp))) {
            snprintf(st->error, sizeof st->error, "tilecache peer: init failed");
            rc = -1;
        }
        for (size_t i = 0; !rc && i < layers.size(); ++i) {
            unsigned char* copy = (unsigned char*)dtAlloc(layers[i].data.size(), DT_ALLOC_PERM);
            if (!copy) { rc = -1; break; }
            memcpy(copy, layers[i].data.data(), layers[i].data.size());
            if (dtStatusFailed(tc->addTile(copy, (int)layers[i].data.size(), DT_COMPRESSEDTILE_FREE_DATA, NULL))) {
                dtFree(copy);
                snprintf(st->error, sizeof st->error, "tilecache peer: addTile failed");
                rc = -1;
            }
        }
        for (int tz = 0; !rc && tz < th; ++tz)
            for (int tx = 0; !rc && tx < tw; ++tx)
                if (dtStatusFailed(tc->buildNavMeshTilesAt(tx, tz, nav))) {
                    snprintf(st->error, sizeof st->error, "tilecache peer: tile (%d, %d) did not build", tx, tz);
                    rc = -1;
                }
        for (int i = 0; !rc && i < n; ++i) {
            dtObstacleRef oref = 0;
            bool up = false;
            int k = 0;
            const double t0 = cpu_ms();
            if (add_obstacle(tc, &obs[i], &oref) < 0) {
                snprintf(st->error, sizeof st->error, "tilecache peer: obstacle %d refused", i);
                rc = -1;
                break;
            }
            while (!up && k < 1000) {
                if (dtStatusFailed(tc->update(0, nav, &up))) break;
                ++k;
            }
            const double ms = cpu_ms() - t0;
            if (!up) {
                snprintf(st->error, sizeof st->error, "tilecache peer: obstacle %d: update failed", i);
                rc = -1;
            }
            if (ms < best_ms[i]) best_ms[i] = ms;
            if (r == 0) calls[i] = k;
        }
        dtFreeTileCache(tc);
        dtFreeNavMesh(nav);
    }
    return rc;
}
