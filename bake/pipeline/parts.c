/* Bakes spread over machines: a part holds the voxel stages' result (tiles.c) for a range of tiles
   and everything the later stages need (the resolved desc, seeds included); the merge assembles
   the tiles of every part and runs the later stages, so the result is the blob a one-machine bake
   makes. Any scheduler can run the parts (README: GNU parallel).

   Part layout (native byte order, checked by the endian marker; all offsets 4-aligned):
     part_header (its config compared byte for byte between parts), seeds (3 floats each), then per
     tile: part_tile, col_start[w * d + 1], spans[span_count], gaps[gap_count].
   The checksum (the blob's, runtime/checksum.c) covers everything but itself. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "../layers/layer_stream.h"
#include "../voxel/areas.h"
#include "../voxel/tiles.h"
#include "bake3d.h"
#include "parts.h"

#define PART_VERSION 1u
#define PART_ENDIAN 0x01020304u

typedef struct part_config {
    ptl_vx_params world;
    ptl_vx_tiling tiling;
    uint64_t mesh_fingerprint;
    uint32_t tri_count, vert_count;
    double relax, pair_slack;
    float max_error;
    int32_t landmarks;
    uint32_t seed_count;
    uint32_t hubs;
} part_config;

typedef struct part_header {
    char magic[4];
    uint32_t version;
    uint32_t endian;
    uint32_t header_size;
    uint64_t total_size;
    uint64_t checksum;
    int32_t range[4]; /* tiles [range[0], range[2]) x [range[1], range[3]) */
    uint32_t tile_count;
    uint32_t config_size;
    part_config config;
} part_header;

typedef ptl_part_tile part_tile;

_Static_assert(offsetof(part_header, checksum) == 24, "part checksum where the blob's is");
_Static_assert(sizeof(part_header) % 8 == 0 && sizeof(part_tile) % 4 == 0, "part layout");
_Static_assert(sizeof(ptl_open_span) % 4 == 0 && sizeof(ptl_vx_gap) % 4 == 0, "part layout");

static uint64_t fingerprint(const ptl_trimesh* m) {
    uint64_t h = ptl_hash64(PTL_HASH_BASIS, &m->tri_count, sizeof m->tri_count);
    h = ptl_hash64(h, &m->vert_count, sizeof m->vert_count);
    h = ptl_hash64(h, m->verts, (uint64_t)m->vert_count * 3 * sizeof *m->verts);
    h = ptl_hash64(h, m->tris, (uint64_t)m->tri_count * 3 * sizeof *m->tris);
    if (m->tri_tag) h = ptl_hash64(h, m->tri_tag, (uint64_t)m->tri_count * sizeof *m->tri_tag);
    return h;
}

static uint64_t tile_bytes(const ptl_vx_tile* t) {
    return sizeof(part_tile) + ((uint64_t)t->w * (uint64_t)t->d + 1) * 4 + (uint64_t)t->span_count * sizeof(ptl_open_span) +
           (uint64_t)t->gap_count * sizeof(ptl_vx_gap);
}

ptl_status ptl_bake_trimesh_part(const ptl_trimesh* m, const ptl_bake_desc* desc, const uint32_t tiles[4], void** part,
                                 size_t* size, uint32_t tiles_out[2], ptl_error* err) {
    if (!m || !tiles || !part || !size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_bake_trimesh_part: NULL argument");
    *part = NULL;
    *size = 0;
    ptl_bake_desc d;
    ptl_bake_desc_resolve(desc, &d);
    ptl_status st = ptl_bake3d_check_desc(&d, err);
    if (st < 0) return st;
    if (!d.tile_size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake part: tile_size must be set");
    if (m->tri_count == 0) return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: the mesh has no triangle");
    if (tiles[0] > tiles[2] || tiles[1] > tiles[3])
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake part: tile range %u:%u,%u:%u is empty", tiles[0], tiles[2],
                             tiles[1], tiles[3]);
    if (d.seed_count > (1u << 20) || (d.seed_count && !d.seeds))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake part: bad seeds");
    ptl_allocator a = ptl_allocator_resolve(d.alloc);
    ptl_vx_params p;
    ptl_vx_tiling tl;
    if ((st = ptl_vx_params_resolve(&d, m, &p, err)) < 0) return st;
    if ((st = ptl_tiles_tiling_init(&p, d.tile_size, &tl, err)) < 0) return st;
    if (tiles_out) tiles_out[0] = (uint32_t)tl.tiles_x, tiles_out[1] = (uint32_t)tl.tiles_z;
    int32_t range[4];
    for (int k = 0; k < 4; ++k) {
        uint32_t lim = (uint32_t)(k & 1 ? tl.tiles_z : tl.tiles_x);
        range[k] = (int32_t)(tiles[k] < lim ? tiles[k] : lim);
    }
    range[2] = (int32_t)(tiles[2] < (uint32_t)tl.tiles_x ? tiles[2] + 1 : (uint32_t)tl.tiles_x);
    range[3] = (int32_t)(tiles[3] < (uint32_t)tl.tiles_z ? tiles[3] + 1 : (uint32_t)tl.tiles_z);
    ptl_vx_tile* built = NULL;
    uint32_t count = 0;
    if (range[0] < range[2] && range[1] < range[3]) {
        uint16_t* tri_area = NULL; /* the triangles' areas as their tags (bake3d.c does the same) */
        if ((st = ptl_areas_of_triangles(m, &d, &a, &tri_area, err)) < 0) return st;
        ptl_trimesh am = *m;
        am.tri_tag = tri_area;
        st = ptl_tiles_build(&am, &p, &tl, range, d.jobs, &a, &built, &count, err);
        ptl_mem_free(&a, tri_area, (size_t)(m->tri_count ? m->tri_count : 1) * sizeof *tri_area);
        if (st < 0) return st;
    } else {
        range[0] = range[2], range[1] = range[3]; /* past the world: a part with no tile */
    }
    part_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "PTLT", 4);
    h.version = PART_VERSION, h.endian = PART_ENDIAN, h.header_size = sizeof h;
    memcpy(h.range, range, sizeof h.range);
    h.tile_count = count;
    h.config_size = sizeof h.config;
    h.config.world = p;
    /* the volumes are marked in the tiles' spans already; the merge never filters again */
    h.config.world.volumes = NULL, h.config.world.volume_count = 0;
    h.config.tiling = tl;
    h.config.mesh_fingerprint = fingerprint(m);
    h.config.tri_count = m->tri_count, h.config.vert_count = m->vert_count;
    h.config.relax = d.relax;
    h.config.pair_slack = d.pair_slack; /* resolved, as bake3d.c uses it */
    /* -1 records "none" as the part format always has. */
    h.config.max_error = d.no_simplify ? -1.0f : d.max_error;
    h.config.landmarks = d.no_landmarks ? -1 : (int32_t)d.landmarks;
    h.config.hubs = d.hubs;
    h.config.seed_count = d.seed_count;
    uint64_t total = sizeof h + (uint64_t)d.seed_count * 12;
    for (uint32_t i = 0; i < count; ++i) total += tile_bytes(&built[i]);
    uint8_t* b = total <= SIZE_MAX ? ptl_mem_alloc(&a, (size_t)total) : NULL;
    if (!b) {
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake part: out of memory (%llu bytes)", (unsigned long long)total);
    } else {
        h.total_size = total;
        uint64_t at = sizeof h;
        if (d.seed_count) memcpy(b + at, d.seeds, (size_t)d.seed_count * 12), at += (uint64_t)d.seed_count * 12;
        for (uint32_t i = 0; i < count; ++i) {
            const ptl_vx_tile* t = &built[i];
            part_tile pt = {t->tx, t->tz, t->x0, t->z0, t->w, t->d, t->span_count, t->gap_count, t->solid_spans, 0};
            memcpy(b + at, &pt, sizeof pt), at += sizeof pt;
            size_t n = ((size_t)t->w * (size_t)t->d + 1) * 4;
            for (uint32_t k = 0; k < n / 4; ++k) { /* the part keeps a uint32 start per column */
                const uint32_t v = ptl_tiles_tile_col(t, k);
                memcpy(b + at, &v, 4), at += 4;
            }
            for (uint32_t s = 0; s < t->span_count; ++s) { /* padding zeroed: parts are compared by bytes */
                ptl_open_span o = ptl_tiles_open_of(&t->spans[s]); /* the part keeps the open span's layout */
                memcpy(b + at, &o, sizeof o), at += sizeof o;
            }
            for (uint32_t g = 0; g < t->gap_count; ++g) {
                ptl_vx_gap o = t->gaps[g];
                o.pad = 0;
                memcpy(b + at, &o, sizeof o), at += sizeof o;
            }
        }
        memcpy(b, &h, sizeof h);
        uint64_t sum = ptl_blob_checksum(b, total);
        memcpy(b + offsetof(part_header, checksum), &sum, sizeof sum);
        *part = b;
        *size = (size_t)total;
    }
    for (uint32_t i = 0; i < count; ++i) ptl_tiles_tile_free(&built[i], &a);
    ptl_mem_free(&a, built, (size_t)count * sizeof *built);
    if (st >= 0) ptl_error_ok(err);
    return st;
}

/* Reads part `k`'s tiles into `out` (arrays allocated; counts checked against the part's size). */
static ptl_status read_part(const uint8_t* b, size_t size, uint32_t k, const part_header* h, const ptl_allocator* a,
                            ptl_vx_tile* out, ptl_error* err) {
    uint64_t at = sizeof *h + (uint64_t)h->config.seed_count * 12;
    for (uint32_t i = 0; i < h->tile_count; ++i) {
        ptl_vx_tile* t = &out[i];
        part_tile pt;
        if (at + sizeof pt > size) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: truncated at tile %u", k, i);
        memcpy(&pt, b + at, sizeof pt), at += sizeof pt;
        const ptl_vx_tiling* tl = &h->config.tiling;
        int32_t T = tl->tile_size;
        bool ok = pt.tx >= h->range[0] && pt.tx < h->range[2] && pt.tz >= h->range[1] && pt.tz < h->range[3] &&
                  pt.x0 == pt.tx * T && pt.z0 == pt.tz * T && pt.w > 0 && pt.d > 0 && pt.w <= T && pt.d <= T &&
                  pt.x0 + pt.w <= h->config.world.world_width && pt.z0 + pt.d <= h->config.world.world_depth;
        if (!ok) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: tile %u is out of place", k, i);
        uint64_t cols = (uint64_t)pt.w * (uint64_t)pt.d;
        uint64_t need = (cols + 1) * 4 + (uint64_t)pt.span_count * sizeof(ptl_open_span) + (uint64_t)pt.gap_count * sizeof(ptl_vx_gap);
        if (need > size - at) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: truncated in tile %u", k, i);
        t->tx = pt.tx, t->tz = pt.tz, t->x0 = pt.x0, t->z0 = pt.z0, t->w = pt.w, t->d = pt.d;
        t->solid_spans = pt.solid_spans;
        if (ptl_col_index_init(&t->cols, (uint32_t)cols, 1, a) < 0)
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "merge: out of memory");
        uint32_t last = 0;
        for (uint64_t c = 0; c <= cols; ++c) {
            uint32_t v;
            memcpy(&v, b + at, 4), at += 4;
            if ((c == 0 && v != 0) || v < last || (c == cols && v != pt.span_count))
                return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: tile %u's columns are malformed", k, i);
            if (!ptl_col_index_push(&t->cols, v, a)) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "merge: out of memory");
            last = v;
        }
        t->spans = ptl_mem_alloc(a, (size_t)pt.span_count * sizeof *t->spans);
        if (!t->spans) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "merge: out of memory");
        t->span_count = pt.span_count;
        for (uint32_t s = 0; s < t->span_count; ++s) {
            ptl_open_span o;
            memcpy(&o, b + at, sizeof o), at += sizeof o;
            if (o.layer != PTL_VX_NONE || o.floor > o.ceil)
                return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: tile %u has a malformed span", k, i);
            /* a span's tag is its area (areas.c): the layer stages keep it in a byte at the borders
               of the pieces they flood apart (layer_stream.c's strips); a bake without areas has
               every tag 0 (its layer stage never cuts at area borders, and the tile cache's kept
               floods rely on that when an area volume turns the cut on) */
            if (o.tag > PTL_AREA_MAX)
                return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: tile %u has a span of area %u, above %u", k, i,
                                     o.tag, PTL_AREA_MAX);
            if (o.tag && !h->config.world.has_areas)
                return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: tile %u has a span of area %u in a bake without areas",
                                     k, i, o.tag);
            t->spans[s] = ptl_tiles_tspan_of(&o);
        }
        if (pt.gap_count) {
            t->gaps = ptl_mem_alloc(a, (size_t)pt.gap_count * sizeof *t->gaps);
            if (!t->gaps) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "merge: out of memory");
            t->gap_count = pt.gap_count;
            memcpy(t->gaps, b + at, (size_t)pt.gap_count * sizeof *t->gaps), at += (uint64_t)pt.gap_count * sizeof *t->gaps;
        }
    }
    if (at != size) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: %llu bytes after its last tile", k,
                                         (unsigned long long)(size - at));
    return PTL_OK;
}

/* The world's voxel parameters as ptl_vx_params_resolve makes them (vx_params.c), checked before
   anything computes with them: each range is the one resolving enforces, so that tile borders,
   windows and column counts stay far from integer overflow. NULL when they are, else the first
   field out of range. */
static const char* world_field_out_of_range(const ptl_vx_params* w) {
    if (!(w->cs > 0) || !isfinite(w->cs)) return "cs";
    if (!(w->ch > 0) || !isfinite(w->ch)) return "ch";
    for (int k = 0; k < 3; ++k)
        if (!isfinite(w->bmin[k]) || !isfinite(w->bmax[k]) || w->bmin[k] > w->bmax[k]) return "bmin/bmax";
    if (w->world_width <= 0 || w->world_depth <= 0 ||
        (uint64_t)w->world_width * (uint64_t)w->world_depth > (1u << 28)) /* vx_params.c MAX_COLUMNS */
        return "world_width/world_depth";
    if (w->width != w->world_width || w->depth != w->world_depth || w->ox || w->oz) return "width/depth/ox/oz";
    if (w->heights < 1 || w->heights >= (int32_t)PTL_VX_MAX_HEIGHT) return "heights";
    if (w->walkable_height < 1 || w->walkable_height > 60000) return "walkable_height";
    if (w->walkable_climb < 0 || w->walkable_climb > 60000) return "walkable_climb";
    if (w->walkable_radius < 0 || w->walkable_radius > 30000) return "walkable_radius";
    if (w->max_void < 0 || w->max_void > 8) return "max_void";
    if (w->min_island < 0) return "min_island";
    if (!(w->walkable_slope_cos >= -1 && w->walkable_slope_cos <= 1)) return "walkable_slope_cos";
    if (w->walkable_both_sides != 0 && w->walkable_both_sides != 1) return "walkable_both_sides";
    if (w->volumes || w->volume_count) return "volumes";
    if (w->has_areas != 0 && w->has_areas != 1) return "has_areas";
    return NULL;
}

/* Header checks of part k; `first` is part 0's header (NULL for part 0 itself). */
static ptl_status check_header(const uint8_t* b, size_t size, uint32_t k, const part_header* first, part_header* h,
                               ptl_error* err) {
    if (!b || size < sizeof *h) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: truncated (%zu bytes)", k, size);
    memcpy(h, b, sizeof *h);
    if (memcmp(h->magic, "PTLT", 4) != 0)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: bad magic (not a part of a tiled bake)", k);
    if (h->endian != PART_ENDIAN) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: other byte order", k);
    if (h->version != PART_VERSION || h->header_size != sizeof *h || h->config_size != sizeof h->config)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: version %u, this build reads %u", k, h->version, PART_VERSION);
    if (h->total_size != size)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: truncated (%zu bytes of %llu)", k, size,
                             (unsigned long long)h->total_size);
    if (ptl_blob_checksum(b, size) != h->checksum)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: checksum mismatch (corrupted)", k);
    if (first && memcmp(&first->config, &h->config, sizeof h->config) != 0)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "part %u: baked from another mesh or with other settings than part 0", k);
    const ptl_vx_tiling* tl = &h->config.tiling;
    const ptl_vx_params* w = &h->config.world;
    const char* bad_field = world_field_out_of_range(w);
    if (bad_field) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: malformed settings (%s)", k, bad_field);
    if (tl->tile_size < (int32_t)PTL_TILE_MIN || tl->tile_size > (int32_t)PTL_TILE_MAX)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: malformed settings (tile_size)", k);
    if (tl->tiles_x != (w->world_width + tl->tile_size - 1) / tl->tile_size ||
        tl->tiles_z != (w->world_depth + tl->tile_size - 1) / tl->tile_size || tl->border != ptl_tiles_border(w))
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: malformed settings (tiles_x/tiles_z/border)", k);
    if (h->range[0] < 0 || h->range[1] < 0 || h->range[0] > h->range[2] || h->range[1] > h->range[3] ||
        h->range[2] > tl->tiles_x || h->range[3] > tl->tiles_z ||
        (uint64_t)h->tile_count != (uint64_t)(h->range[2] - h->range[0]) * (uint64_t)(h->range[3] - h->range[1]))
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: malformed tile range", k);
    if ((uint64_t)h->config.seed_count * 12 > size - sizeof *h)
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: truncated seeds", k);
    /* the later stages' settings, in the ranges a bake's desc takes (bake3d.c, decompose.c): a
       landmark count past 64 would size the landmark table by it */
    const part_config* c = &h->config;
    if (c->landmarks < -1 || c->landmarks > 64) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: malformed settings (landmarks)", k);
    if (c->hubs > 1) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: malformed settings (hubs)", k);
    if (!(c->relax >= 0) || !isfinite(c->relax)) return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: malformed settings (relax)", k);
    if (!(c->pair_slack >= 0 && c->pair_slack <= 16))
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: malformed settings (pair_slack)", k);
    if (!(c->max_error >= 0) || !isfinite(c->max_error))
        return ptl_error_set(err, PTL_ERR_BAD_BLOB, "part %u: malformed settings (max_error)", k);
    return PTL_OK;
}

ptl_status ptl_part_head(const void* part, size_t size, uint64_t* head, uint32_t* tile_count, ptl_error* err) {
    part_header h;
    ptl_status st = check_header(part, size, 0, NULL, &h, err);
    if (st < 0) return st;
    *head = sizeof h + (uint64_t)h.config.seed_count * 12;
    *tile_count = h.tile_count;
    return PTL_OK;
}

/* The layers of the world's tiles (each once, any order) with the settings of a part (layer_map.h),
   as a one-machine bake streams them; `ls` and `map` are freed on failure. */
static ptl_status stream_tiles(const part_config* c, const float* seeds, const ptl_vx_tile* const* list, uint32_t count,
                               const ptl_job_system* jobs, const ptl_allocator* a, ptl_layer_set* ls, ptl_layer_map* map,
                               ptl_error* err) {
    memset(ls, 0, sizeof *ls);
    memset(map, 0, sizeof *map);
    ptl_layer_stream* s = NULL;
    ptl_status st = ptl_lstream_create(&c->world, seeds, c->seed_count, jobs, a, &s, err);
    if (st >= 0) st = ptl_tiles_stream_parts(&c->world, &c->tiling, list, count, a, s, err);
    if (st >= 0) st = ptl_lstream_finish(s, ls, map, err);
    else ptl_lstream_destroy(s);
    if (st < 0) ptl_layer_set_free(ls), ptl_layer_map_free(map);
    return st;
}

/* The stages of bake3d.c after the layers, with the settings of a part. */
static ptl_status finish_tiles(const part_config* c, const float* seeds, ptl_layer_set* ls, ptl_layer_map* map,
                               const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_memo* memo, double t0,
                               void** blob, size_t* size, ptl_bake_stats* bs, ptl_error* err) {
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    ptl_bake_desc_resolve(&d, &d);
    d.relax = c->relax;
    d.no_simplify = !(c->max_error > 0);
    d.max_error = d.no_simplify ? 0.0f : c->max_error;
    d.no_landmarks = c->landmarks < 0;
    d.landmarks = d.no_landmarks ? 0 : (uint32_t)c->landmarks;
    d.hubs = c->hubs != 0;
    d.seeds = seeds, d.seed_count = c->seed_count;
    d.tile_size = (uint32_t)c->tiling.tile_size;
    d.jobs = jobs;
    d.alloc = alloc;
    bs->triangles = c->tri_count;
    return ptl_bake3d_finish(map, ls, &d, c->pair_slack, &c->tiling, memo, t0, blob, size, bs, err);
}

ptl_status ptl_bake_merge_parts(const void* const* parts, const size_t* sizes, uint32_t count,
                                const ptl_merge_desc* desc, void** blob, size_t* size, ptl_bake_stats* stats,
                                ptl_error* err) {
    const ptl_job_system* jobs = desc ? desc->jobs : NULL;
    const ptl_allocator* alloc = desc ? desc->alloc : NULL;
    if (!parts || !sizes || !blob || !size || count == 0)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_bake_merge_parts: NULL argument or no part");
    *blob = NULL;
    *size = 0;
    ptl_allocator a = ptl_allocator_resolve(alloc);
    double t0 = ptl_bake3d_now_ms();
    part_header first, h;
    ptl_status st = check_header(parts[0], sizes[0], 0, NULL, &first, err);
    uint64_t ntiles = 0;
    for (uint32_t k = 0; k < count && st >= 0; ++k) {
        st = check_header(parts[k], sizes[k], k, &first, &h, err);
        ntiles += h.tile_count;
    }
    if (st < 0) return st;
    if (ntiles > (uint64_t)first.config.tiling.tiles_x * (uint64_t)first.config.tiling.tiles_z)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "merge: %llu tiles given for %d x %d (some twice)",
                             (unsigned long long)ntiles, first.config.tiling.tiles_x, first.config.tiling.tiles_z);
    ptl_vx_tile* tiles = ptl_mem_calloc(&a, (size_t)ntiles + 1, sizeof *tiles);
    const ptl_vx_tile** list = ptl_mem_calloc(&a, (size_t)ntiles + 1, sizeof *list);
    float* seeds = first.config.seed_count ? ptl_mem_alloc(&a, (size_t)first.config.seed_count * 12) : NULL;
    if (!tiles || !list || (first.config.seed_count && !seeds)) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "merge: out of memory");
    uint32_t at = 0;
    ptl_bake_stats bs;
    memset(&bs, 0, sizeof bs);
    for (uint32_t k = 0; k < count && st >= 0; ++k) {
        check_header(parts[k], sizes[k], k, &first, &h, NULL);
        st = read_part(parts[k], sizes[k], k, &h, &a, tiles + at, err);
        for (uint32_t i = 0; i < h.tile_count; ++i) list[at + i] = &tiles[at + i], bs.spans += tiles[at + i].solid_spans;
        at += h.tile_count;
    }
    if (st >= 0 && seeds) memcpy(seeds, (const uint8_t*)parts[0] + sizeof first, (size_t)first.config.seed_count * 12);
    ptl_layer_set ls;
    ptl_layer_map map;
    double t = ptl_bake3d_now_ms();
    bs.ms_voxelize = 0; /* done where the parts were baked */
    /* The tiles stream into the layers band by band (layer_map.h), as in the one-machine bake. */
    if (st >= 0) st = stream_tiles(&first.config, seeds, list, at, jobs, &a, &ls, &map, err);
    for (uint32_t i = 0; i < at; ++i) ptl_tiles_tile_free(&tiles[i], &a);
    ptl_mem_free(&a, tiles, ((size_t)ntiles + 1) * sizeof *tiles);
    ptl_mem_free(&a, list, ((size_t)ntiles + 1) * sizeof *list);
    bs.ms_filter = 0;
    bs.ms_layers = ptl_bake3d_now_ms() - t;
    if (st >= 0) st = finish_tiles(&first.config, seeds, &ls, &map, jobs, alloc, NULL, t0, blob, size, &bs, err);
    ptl_mem_free(&a, seeds, (size_t)first.config.seed_count * 12);
    if (st >= 0 && stats) *stats = bs;
    if (st >= 0) ptl_error_ok(err);
    return st;
}

/* ---- A part holding every tile, read back whole (the tile cache, tilecache.c) ---------------- */
struct ptl_part_world {
    part_config config;
    float* seeds;
};

const ptl_vx_params* ptl_part_world_params(const ptl_part_world* w) { return &w->config.world; }
void ptl_part_world_set_has_areas(ptl_part_world* w, bool on) { w->config.world.has_areas = on ? 1 : 0; }
const ptl_vx_tiling* ptl_part_world_tiling(const ptl_part_world* w) { return &w->config.tiling; }

void ptl_part_world_free(ptl_part_world* w, const ptl_allocator* alloc) {
    if (!w) return;
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_mem_free(&a, w->seeds, (size_t)w->config.seed_count * 12);
    ptl_mem_free(&a, w, sizeof *w);
}

ptl_status ptl_part_world_read(const void* part, size_t size, const ptl_allocator* alloc, ptl_part_world** out,
                               ptl_vx_tile** tiles_out, ptl_error* err) {
    *out = NULL;
    *tiles_out = NULL;
    ptl_allocator a = ptl_allocator_resolve(alloc);
    part_header h;
    ptl_status st = check_header(part, size, 0, NULL, &h, err);
    if (st < 0) return st;
    const ptl_vx_tiling* tl = &h.config.tiling;
    const uint32_t n = (uint32_t)tl->tiles_x * (uint32_t)tl->tiles_z;
    if (h.range[0] != 0 || h.range[1] != 0 || h.range[2] != tl->tiles_x || h.range[3] != tl->tiles_z)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "tile cache: holds tiles %d:%d,%d:%d of %d x %d, not every tile",
                             h.range[0], h.range[2] - 1, h.range[1], h.range[3] - 1, tl->tiles_x, tl->tiles_z);
    ptl_part_world* w = ptl_mem_calloc(&a, 1, sizeof *w);
    ptl_vx_tile* tiles = ptl_mem_calloc(&a, (size_t)n + 1, sizeof *tiles);
    if (w) w->config = h.config;
    if (w && h.config.seed_count) w->seeds = ptl_mem_alloc(&a, (size_t)h.config.seed_count * 12);
    if (!w || !tiles || (h.config.seed_count && !w->seeds)) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    if (st >= 0 && w->seeds) memcpy(w->seeds, (const uint8_t*)part + sizeof h, (size_t)h.config.seed_count * 12);
    if (st >= 0) st = read_part(part, size, 0, &h, &a, tiles, err);
    /* ptl_tiles_build writes the tiles in row order; the cache indexes them so */
    for (uint32_t i = 0; i < n && st >= 0; ++i)
        if (tiles[i].tx != (int32_t)(i % (uint32_t)tl->tiles_x) || tiles[i].tz != (int32_t)(i / (uint32_t)tl->tiles_x))
            st = ptl_error_set(err, PTL_ERR_BAD_BLOB, "tile cache: tile %u is out of place", i);
    if (st < 0) {
        for (uint32_t i = 0; tiles && i < n; ++i) ptl_tiles_tile_free(&tiles[i], &a);
        ptl_mem_free(&a, tiles, ((size_t)n + 1) * sizeof *tiles);
        ptl_part_world_free(w, &a);
        return st;
    }
    *out = w;
    *tiles_out = tiles;
    return PTL_OK;
}

ptl_status ptl_part_world_bake(const ptl_part_world* w, const ptl_vx_tile* const* list, uint32_t count,
                               const ptl_job_system* jobs, const ptl_allocator* alloc, void** blob, size_t* size,
                               ptl_bake_stats* bs, ptl_error* err) {
    ptl_allocator a = ptl_allocator_resolve(alloc);
    *blob = NULL;
    *size = 0;
    memset(bs, 0, sizeof *bs);
    double t0 = ptl_bake3d_now_ms();
    ptl_layer_set ls;
    ptl_layer_map map;
    ptl_status st = stream_tiles(&w->config, w->seeds, list, count, jobs, &a, &ls, &map, err);
    bs->ms_layers = ptl_bake3d_now_ms() - t0;
    if (st >= 0) st = finish_tiles(&w->config, w->seeds, &ls, &map, jobs, alloc, NULL, t0, blob, size, bs, err);
    return st;
}

const float* ptl_part_world_seeds(const ptl_part_world* w, uint32_t* count) {
    *count = w->config.seed_count;
    return w->seeds;
}

ptl_status ptl_part_world_finish(const ptl_part_world* w, ptl_layer_set* ls, ptl_layer_map* map,
                                 const ptl_job_system* jobs, const ptl_allocator* alloc, ptl_layer_memo* memo, double t0,
                                 void** blob, size_t* size, ptl_bake_stats* bs, ptl_error* err) {
    *blob = NULL;
    *size = 0;
    return finish_tiles(&w->config, w->seeds, ls, map, jobs, alloc, memo, t0, blob, size, bs, err);
}
