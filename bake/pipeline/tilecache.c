/* The tile cache (tilecache.h): the cached tiles of a bake, the obstacles in salted slots, each
   listed in the tiles its footprint's bounds overlap, and the navmesh rebaked from the tiles with
   the obstacles stamped in (tilecache_stamp.c). A tile's stamp depends only on the set of obstacles over it,
   never on their order, so the blob does not either. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "../../runtime/internal.h"
#include "parts.h"
#include "tilecache_layers.h"
#include "tilecache_obstacle.h"
#include "tilecache_pack.h"
#include "tilecache_stamp.h"

typedef struct tc_obstacle {
    ptl_tc_shape shape;
    int32_t tiles[4]; /* the tiles its grown bounds overlap: x0, z0, x1, z1 inclusive */
    uint32_t salt;    /* odd while live, even while free: a handle is live when its salt matches */
} tc_obstacle;

typedef PTL_ARRAY(uint32_t) slot_list;

struct ptl_tilecache {
    ptl_allocator a;
    const ptl_job_system* jobs;
    ptl_part_world* world;
    ptl_tc_tiles w;
    ptl_vx_tile* base;       /* every tile, row order */
    uint32_t ntiles;
    uint8_t** removed;       /* per tile: its stamped spans, NULL when none */
    ptl_vx_tile* stamped;    /* per tile: the tile without them, when it or a neighbour has any */
    uint8_t* has_stamp;
    uint8_t* dirty;          /* per tile: obstacles over it changed since its marks */
    uint8_t* restamp;        /* per tile: its stamped copy is out of date */
    uint8_t* stale;          /* per tile: its marks changed since its current view was made */
    uint32_t dirty_count;
    slot_list* over;         /* per tile: the slots of the obstacles over it */
    PTL_ARRAY(tc_obstacle) obs;
    slot_list free_slots;
    uint32_t live;
    uint32_t live_areas;     /* live area volumes (ptl_obstacle_desc.marks_area) */
    bool base_has_areas;     /* the bake's desc had areas (ptl_vx_params.has_areas) */
    void* blob;
    size_t blob_size;
    uint64_t cache_bytes, rebakes;
    uint32_t last_tiles, pass_tiles, cells;
    uint32_t pass_whole, pass_edges, last_whole, last_edges; /* copies made whole, in place (restamp_tiles) */
    uint32_t pass_box[4], last_box[4]; /* bounds of the tiles stamped in this pass, in the last rebake's */
    double area;
    double pass_ms, last_ms_stamp; /* spent stamping in this pass, in the last rebake's */
    ptl_bake_stats last;  /* of the last rebake */
    ptl_tc_layers layers; /* each piece's flood, kept between rebakes (tilecache_layers.c) */
    bool has_layers;
    bool full;            /* desc.full_rebake: no layers kept, every rebake from the tiles in one stream */
};

ptl_tilecache_desc ptl_tilecache_desc_defaults(void) {
    ptl_tilecache_desc d;
    memset(&d, 0, sizeof d);
    return d;
}

ptl_status ptl_tilecache_bake(const ptl_trimesh* m, const ptl_bake_desc* desc, void** cache, size_t* size,
                              ptl_error* err) {
    if (!m || !desc || !cache || !size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_tilecache_bake: NULL argument");
    if (!desc->tile_size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "tile cache: the bake's tile_size must be set");
    const uint32_t all[4] = {0, 0, UINT32_MAX - 1, UINT32_MAX - 1};
    void* part = NULL;
    size_t part_size = 0;
    ptl_status st = ptl_bake_trimesh_part(m, desc, all, &part, &part_size, NULL, err);
    if (st < 0) return st;
    /* stored packed (tilecache_pack.c): the part's spans as deltas, through the byte coder */
    ptl_allocator a = ptl_allocator_resolve(desc->alloc);
    st = ptl_tc_pack(part, part_size, PTL_TC_PACK_SPANS | PTL_TC_PACK_LZ, &a, cache, size, err);
    ptl_blob_free(part, part_size, &a);
    if (st >= 0) ptl_error_ok(err);
    return st;
}

static uint64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void free_stamped(ptl_tilecache* tc, uint32_t i) {
    if (!tc->has_stamp[i]) return;
    ptl_vx_tile* t = &tc->stamped[i];
    ptl_col_index_free(&t->cols, &tc->a);
    ptl_mem_free(&tc->a, t->spans, ((size_t)tc->base[i].span_count + 1) * sizeof *t->spans);
    ptl_mem_free(&tc->a, t->gaps, (size_t)tc->base[i].gap_count * sizeof *t->gaps);
    memset(t, 0, sizeof *t);
    tc->has_stamp[i] = 0;
}

void ptl_tilecache_destroy(ptl_tilecache* tc) {
    if (!tc) return;
    ptl_allocator a = tc->a;
    for (uint32_t i = 0; i < tc->ntiles; ++i) {
        if (tc->has_stamp) free_stamped(tc, i);
        if (tc->removed && tc->removed[i]) ptl_mem_free(&a, tc->removed[i], tc->base[i].span_count + 1);
        if (tc->over) PTL_ARRAY_FREE(&a, tc->over[i]);
        if (tc->base) ptl_tiles_tile_free(&tc->base[i], &a);
    }
    const size_t n = tc->ntiles;
    ptl_mem_free(&a, tc->base, (n + 1) * sizeof *tc->base);
    ptl_mem_free(&a, tc->removed, (n + 1) * sizeof *tc->removed);
    ptl_mem_free(&a, tc->stamped, (n + 1) * sizeof *tc->stamped);
    ptl_mem_free(&a, tc->has_stamp, n + 1);
    ptl_mem_free(&a, tc->dirty, n + 1);
    ptl_mem_free(&a, tc->restamp, n + 1);
    ptl_mem_free(&a, tc->stale, n + 1);
    ptl_mem_free(&a, tc->over, (n + 1) * sizeof *tc->over);
    PTL_ARRAY_FREE(&a, tc->obs);
    PTL_ARRAY_FREE(&a, tc->free_slots);
    if (tc->blob) ptl_blob_free(tc->blob, tc->blob_size, &a);
    if (tc->has_layers) ptl_tc_layers_free(&tc->layers, &a);
    ptl_part_world_free(tc->world, &a);
    ptl_mem_free(&a, tc, sizeof *tc);
}

/* Bakes the navmesh of the tiles as they stand (stamped copies where there are) into tc's blob:
   from the kept pieces' layers, flooding again the dirty ones, once they are kept (has_layers);
   before, from the tiles in one stream (ptl_part_world_bake, which checks the tiles' links), then
   every piece is flooded for the next rebakes. */
static ptl_status rebake(ptl_tilecache* tc, ptl_error* err) {
    /* spans carry areas while a volume is live: the layer stage then cuts at area borders (a bake
       without areas has every tag 0 and nothing to cut: the same layers either way) */
    ptl_part_world_set_has_areas(tc->world, tc->base_has_areas || tc->live_areas > 0);
    const ptl_vx_tile** list = ptl_mem_alloc(&tc->a, ((size_t)tc->ntiles + 1) * sizeof *list);
    if (!list) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    for (uint32_t i = 0; i < tc->ntiles; ++i) list[i] = tc->has_stamp[i] ? &tc->stamped[i] : &tc->base[i];
    void* blob = NULL;
    size_t size = 0;
    ptl_bake_stats bs;
    ptl_status st;
    if (tc->has_layers) {
        st = ptl_tc_layers_bake(&tc->layers, tc->world, list, tc->jobs, &tc->a, &blob, &size, &bs, err);
    } else {
        st = ptl_part_world_bake(tc->world, list, tc->ntiles, tc->jobs, &tc->a, &blob, &size, &bs, err);
        if (st >= 0 && !tc->full) {
            st = ptl_tc_layers_init(&tc->layers, tc->world, &tc->a, err);
            tc->has_layers = true; /* freed by destroy even when incomplete */
            if (st >= 0) st = ptl_tc_layers_flood(&tc->layers, tc->world, list, tc->jobs, &tc->a);
            if (st < 0) ptl_blob_free(blob, size, &tc->a);
            if (st < 0 && err && err->status >= 0) ptl_error_set(err, st, "tile cache: out of memory flooding the layers");
        }
    }
    ptl_mem_free(&tc->a, list, ((size_t)tc->ntiles + 1) * sizeof *list);
    if (st < 0) return st;
    if (tc->blob) ptl_blob_free(tc->blob, tc->blob_size, &tc->a);
    tc->blob = blob, tc->blob_size = size;
    tc->cells = bs.cells, tc->area = bs.walkable_area;
    tc->last = bs;
    ++tc->rebakes;
    return PTL_OK;
}

ptl_status ptl_tilecache_create(const void* cache, size_t size, const ptl_tilecache_desc* desc, ptl_tilecache** out,
                                ptl_error* err) {
    if (!cache || !out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_tilecache_create: NULL argument");
    *out = NULL;
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    ptl_tilecache* tc = ptl_mem_calloc(&a, 1, sizeof *tc);
    if (!tc) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    tc->a = a;
    tc->jobs = desc ? desc->jobs : NULL;
    tc->full = desc && desc->full_rebake;
    tc->cache_bytes = size;
    void* part = NULL; /* a packed cache (tilecache_pack.c) unpacked; a part as it is */
    size_t part_size = 0;
    ptl_status st = ptl_tc_is_packed(cache, size) ? ptl_tc_unpack(cache, size, &a, &part, &part_size, err) : PTL_OK;
    if (st >= 0) st = ptl_part_world_read(part ? part : cache, part ? part_size : size, &a, &tc->world, &tc->base, err);
    if (part) ptl_mem_free(&a, part, part_size);
    if (st < 0) {
        ptl_mem_free(&a, tc, sizeof *tc);
        return st;
    }
    tc->w.p = ptl_part_world_params(tc->world);
    tc->base_has_areas = tc->w.p->has_areas != 0;
    tc->w.tl = ptl_part_world_tiling(tc->world);
    tc->w.base = tc->base;
    const size_t n = tc->ntiles = (uint32_t)tc->w.tl->tiles_x * (uint32_t)tc->w.tl->tiles_z;
    /* a gap link reaches past the next tile only with gaps wider than a tile; stamping renumbers
       the far ends in the neighbour tiles alone */
    for (uint32_t i = 0; i < n && st >= 0; ++i)
        for (uint32_t g = 0; g < tc->base[i].gap_count; ++g)
            if ((int32_t)tc->base[i].gaps[g].cols + 1 >= tc->w.tl->tile_size)
                st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "tile cache: a gap link wider than a tile");
    tc->removed = ptl_mem_calloc(&a, n + 1, sizeof *tc->removed);
    tc->stamped = ptl_mem_calloc(&a, n + 1, sizeof *tc->stamped);
    tc->has_stamp = ptl_mem_calloc(&a, n + 1, 1);
    tc->dirty = ptl_mem_calloc(&a, n + 1, 1);
    tc->restamp = ptl_mem_calloc(&a, n + 1, 1);
    tc->stale = ptl_mem_calloc(&a, n + 1, 1);
    tc->over = ptl_mem_calloc(&a, n + 1, sizeof *tc->over);
    if (st >= 0 && (!tc->removed || !tc->stamped || !tc->has_stamp || !tc->dirty || !tc->restamp || !tc->stale || !tc->over))
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    if (st >= 0) st = rebake(tc, err);
    if (st < 0) {
        ptl_tilecache_destroy(tc);
        return st;
    }
    *out = tc;
    ptl_error_ok(err);
    return PTL_OK;
}

/* The tiles the shape's bounds, grown by the agent radius and a column, overlap. */
static void tiles_of(const ptl_tilecache* tc, const ptl_tc_shape* s, int32_t r[4]) {
    const ptl_vx_params* p = tc->w.p;
    const float grow = (float)p->walkable_radius * p->cs + p->cs;
    const float span = (float)tc->w.tl->tile_size * p->cs;
    const float lo[2] = {(s->bmin[0] - grow - p->bmin[0]) / span, (s->bmin[1] - grow - p->bmin[2]) / span};
    const float hi[2] = {(s->bmax[0] + grow - p->bmin[0]) / span, (s->bmax[1] + grow - p->bmin[2]) / span};
    const int32_t lim[2] = {tc->w.tl->tiles_x - 1, tc->w.tl->tiles_z - 1};
    for (int k = 0; k < 2; ++k) {
        if (!(hi[k] >= 0) || !(lo[k] < (float)lim[k] + 1)) { /* off the world: no tile */
            r[0] = r[1] = 1, r[2] = r[3] = 0;
            return;
        }
        r[k] = lo[k] <= 0 ? 0 : (int32_t)lo[k];
        r[k + 2] = hi[k] >= (float)lim[k] ? lim[k] : (int32_t)hi[k];
    }
}

static void mark_dirty(ptl_tilecache* tc, const int32_t r[4]) {
    for (int32_t z = r[1]; z <= r[3]; ++z)
        for (int32_t x = r[0]; x <= r[2]; ++x) {
            const uint32_t i = (uint32_t)z * (uint32_t)tc->w.tl->tiles_x + (uint32_t)x;
            tc->dirty_count += !tc->dirty[i];
            tc->dirty[i] = 1;
        }
}

/* Lists slot k in the tiles of r (false: out of memory, nothing listed), or takes it off them. */
static bool list_slot(ptl_tilecache* tc, uint32_t k, const int32_t r[4]) {
    for (int32_t z = r[1]; z <= r[3]; ++z)
        for (int32_t x = r[0]; x <= r[2]; ++x) {
            slot_list* l = &tc->over[(uint32_t)z * (uint32_t)tc->w.tl->tiles_x + (uint32_t)x];
            if (!PTL_PUSH(&tc->a, *l, k)) {
                for (int32_t z2 = r[1]; z2 <= z; ++z2) /* undo the tiles listed so far */
                    for (int32_t x2 = r[0]; x2 <= r[2] && (z2 < z || x2 < x); ++x2)
                        --tc->over[(uint32_t)z2 * (uint32_t)tc->w.tl->tiles_x + (uint32_t)x2].count;
                return false;
            }
        }
    return true;
}
static void unlist_slot(ptl_tilecache* tc, uint32_t k, const int32_t r[4]) {
    for (int32_t z = r[1]; z <= r[3]; ++z)
        for (int32_t x = r[0]; x <= r[2]; ++x) {
            slot_list* l = &tc->over[(uint32_t)z * (uint32_t)tc->w.tl->tiles_x + (uint32_t)x];
            for (uint32_t j = 0; j < l->count; ++j)
                if (l->data[j] == k) {
                    l->data[j] = l->data[--l->count];
                    break;
                }
        }
}

ptl_status ptl_tilecache_add(ptl_tilecache* tc, const ptl_obstacle_desc* o, ptl_obstacle_ref* out, ptl_error* err) {
    if (!tc || !out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_tilecache_add: NULL argument");
    tc_obstacle ob;
    memset(&ob, 0, sizeof ob);
    ptl_status st = ptl_tc_shape_of(o, &ob.shape, err);
    if (st < 0) return st;
    tiles_of(tc, &ob.shape, ob.tiles);
    uint32_t k;
    if (tc->free_slots.count) {
        k = tc->free_slots.data[tc->free_slots.count - 1];
    } else {
        if (tc->obs.count == UINT32_MAX - 1 || !PTL_RESERVE(&tc->a, tc->obs, (uint64_t)tc->obs.count + 1))
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
        k = tc->obs.count;
        memset(&tc->obs.data[k], 0, sizeof tc->obs.data[k]);
    }
    if (!list_slot(tc, k, ob.tiles)) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    if (tc->free_slots.count && tc->free_slots.data[tc->free_slots.count - 1] == k) --tc->free_slots.count;
    else ++tc->obs.count;
    ob.salt = tc->obs.data[k].salt + 1; /* odd: live */
    tc->obs.data[k] = ob;
    ++tc->live;
    tc->live_areas += ob.shape.area >= 0;
    mark_dirty(tc, ob.tiles);
    out->index = k, out->salt = ob.salt;
    ptl_error_ok(err);
    return PTL_OK;
}

static tc_obstacle* live_slot(ptl_tilecache* tc, ptl_obstacle_ref ref) {
    if (ref.index >= tc->obs.count || !(ref.salt & 1u) || tc->obs.data[ref.index].salt != ref.salt) return NULL;
    return &tc->obs.data[ref.index];
}

ptl_status ptl_tilecache_move(ptl_tilecache* tc, ptl_obstacle_ref ref, const ptl_obstacle_desc* o, ptl_error* err) {
    if (!tc) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_tilecache_move: NULL argument");
    tc_obstacle* ob = live_slot(tc, ref);
    if (!ob) return ptl_error_set(err, PTL_ERR_NOT_FOUND, "tile cache: obstacle %u:%u is stale or unknown", ref.index, ref.salt);
    tc_obstacle nb = *ob;
    ptl_status st = ptl_tc_shape_of(o, &nb.shape, err);
    if (st < 0) return st;
    tiles_of(tc, &nb.shape, nb.tiles);
    unlist_slot(tc, ref.index, ob->tiles);
    if (!list_slot(tc, ref.index, nb.tiles)) {
        list_slot(tc, ref.index, ob->tiles); /* its old tiles' lists only shrank: room is there */
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    }
    mark_dirty(tc, ob->tiles);
    mark_dirty(tc, nb.tiles);
    tc->live_areas += (nb.shape.area >= 0) - (ob->shape.area >= 0);
    *ob = nb;
    ptl_error_ok(err);
    return PTL_OK;
}

ptl_status ptl_tilecache_remove(ptl_tilecache* tc, ptl_obstacle_ref ref, ptl_error* err) {
    if (!tc) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_tilecache_remove: NULL argument");
    tc_obstacle* ob = live_slot(tc, ref);
    if (!ob) return ptl_error_set(err, PTL_ERR_NOT_FOUND, "tile cache: obstacle %u:%u is stale or unknown", ref.index, ref.salt);
    if (!PTL_RESERVE(&tc->a, tc->free_slots, (uint64_t)tc->free_slots.count + 1))
        return ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    unlist_slot(tc, ref.index, ob->tiles);
    mark_dirty(tc, ob->tiles);
    tc->live_areas -= ob->shape.area >= 0;
    ob->salt += 1; /* even: free; the next add makes it odd again, so old handles stay stale */
    tc->free_slots.data[tc->free_slots.count++] = ref.index;
    --tc->live;
    ptl_error_ok(err);
    return PTL_OK;
}

/* Tile i's marks from the obstacles over it. Where they are the ones it had, nothing is restamped
   (a stamped copy depends only on the marks of its tile and its neighbours); where they changed,
   the tile and its neighbours are, and the tile's view is stale (its spans change). */
static ptl_status mark_tile(ptl_tilecache* tc, uint32_t i, const ptl_tc_shape** shapes) {
    const ptl_vx_tile* t = &tc->base[i];
    const slot_list* l = &tc->over[i];
    for (uint32_t j = 0; j < l->count; ++j) shapes[j] = &tc->obs.data[l->data[j]].shape;
    uint8_t* r = l->count ? ptl_mem_alloc(&tc->a, (size_t)t->span_count + 1) : NULL;
    if (!r && l->count) return PTL_ERR_NO_MEMORY;
    const uint32_t n = r ? ptl_tc_mark(&tc->w, t, shapes, l->count, r) : 0;
    if (r && n == 0) ptl_mem_free(&tc->a, r, (size_t)t->span_count + 1), r = NULL;
    uint8_t* old = tc->removed[i];
    if ((!r && !old) || (r && old && !memcmp(r, old, t->span_count))) {
        if (r) ptl_mem_free(&tc->a, r, (size_t)t->span_count + 1);
        return PTL_OK;
    }
    if (old) ptl_mem_free(&tc->a, old, (size_t)t->span_count + 1);
    const int32_t tx = (int32_t)(i % (uint32_t)tc->w.tl->tiles_x), tz = (int32_t)(i / (uint32_t)tc->w.tl->tiles_x);
    const int32_t nb[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (int k = 0; k < 5; ++k) {
        const int32_t x = tx + nb[k][0], z = tz + nb[k][1];
        if (x >= 0 && z >= 0 && x < tc->w.tl->tiles_x && z < tc->w.tl->tiles_z)
            tc->restamp[(uint32_t)z * (uint32_t)tc->w.tl->tiles_x + (uint32_t)x] = 1;
    }
    tc->stale[i] = 1;
    tc->removed[i] = r;
    return PTL_OK;
}

/* Whether tile i or one of its neighbours has marks (its links or gaps then need renumbering). */
static bool needs_copy(const ptl_tilecache* tc, uint32_t i) {
    const int32_t tx = (int32_t)(i % (uint32_t)tc->w.tl->tiles_x), tz = (int32_t)(i / (uint32_t)tc->w.tl->tiles_x);
    const int32_t nb[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (int k = 0; k < 5; ++k) {
        const int32_t x = tx + nb[k][0], z = tz + nb[k][1];
        if (x >= 0 && z >= 0 && x < tc->w.tl->tiles_x && z < tc->w.tl->tiles_z &&
            tc->removed[(uint32_t)z * (uint32_t)tc->w.tl->tiles_x + (uint32_t)x])
            return true;
    }
    return false;
}

/* Tile i's stamped copy brought up to date in place (ptl_tc_stamp_edges: its marks are those it
   was made with), the pieces of the columns that changed marked for their flood. */
static ptl_status restamp_edges(ptl_tilecache* tc, uint32_t i) {
    const ptl_vx_tile* t = &tc->base[i];
    const size_t cap = 2 * ((size_t)t->w + (size_t)t->d) + 2 * (size_t)t->gap_count;
    uint32_t* cols = ptl_mem_alloc(&tc->a, cap * sizeof *cols);
    uint32_t n = 0;
    ptl_status st = cols ? ptl_tc_stamp_edges(&tc->w, (const uint8_t* const*)tc->removed, i, &tc->a, &tc->stamped[i], cols, &n)
                         : PTL_ERR_NO_MEMORY;
    for (uint32_t k = 0; k < n && tc->has_layers; ++k) ptl_tc_layers_mark_local(&tc->layers, t, cols[k]);
    ptl_mem_free(&tc->a, cols, cap * sizeof *cols);
    return st;
}

/* The stamped copies of the tiles to restamp, made again; the pieces holding a column whose spans,
   links or gap links changed are marked for their flood (tilecache_layers.c). A tile whose own marks
   did not change (not stale) keeps its spans: only its border columns' links and its gap links can
   change, so its copy is brought up to date in place and only those columns are compared. The full
   rebake makes every copy whole (the tests compare the two). */
static ptl_status restamp_tiles(ptl_tilecache* tc) {
    for (uint32_t i = 0; i < tc->ntiles; ++i) {
        if (!tc->restamp[i]) continue;
        const bool copy = needs_copy(tc, i), fresh = !tc->stale[i] && !tc->full;
        if (copy && fresh && tc->has_stamp[i]) {
            ptl_status st = restamp_edges(tc, i);
            if (st < 0) return st;
            tc->restamp[i] = 0, ++tc->pass_edges;
            continue;
        }
        ptl_vx_tile nt;
        memset(&nt, 0, sizeof nt);
        ptl_status st = copy ? ptl_tc_stamp(&tc->w, (const uint8_t* const*)tc->removed, i, &tc->a, &nt) : PTL_OK;
        const ptl_vx_tile* before = tc->has_stamp[i] ? &tc->stamped[i] : &tc->base[i];
        const ptl_vx_tile* after = copy ? &nt : &tc->base[i];
        if (!tc->has_layers) {
        } else if (st >= 0 && fresh) ptl_tc_layers_mark_changed_edges(&tc->layers, before, after);
        else if (st >= 0) ptl_tc_layers_mark_changed(&tc->layers, before, after);
        else ptl_tc_layers_mark_tile(&tc->layers, &tc->base[i]);
        free_stamped(tc, i);
        if (copy) tc->stamped[i] = nt, tc->has_stamp[i] = 1; /* freed by free_stamped even when incomplete */
        if (st < 0) { /* the tile as cached until it is restamped: its pieces are flooded again then */
            free_stamped(tc, i);
            tc->stale[i] = 1;
            return st;
        }
        tc->restamp[i] = 0, tc->stale[i] = 0, tc->pass_whole += copy;
    }
    return PTL_OK;
}

ptl_status ptl_tilecache_update(ptl_tilecache* tc, uint32_t budget_us, bool* done, ptl_error* err) {
    if (!tc || !done) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_tilecache_update: NULL argument");
    *done = false;
    const uint64_t t0 = now_us();
    uint32_t most = 0; /* the most obstacles over one dirty tile: the shapes buffer */
    for (uint32_t i = 0; i < tc->ntiles; ++i)
        if (tc->dirty[i] && tc->over[i].count > most) most = tc->over[i].count;
    const ptl_tc_shape** shapes = ptl_mem_alloc(&tc->a, ((size_t)most + 1) * sizeof *shapes);
    if (!shapes) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "tile cache: out of memory");
    ptl_status st = PTL_OK;
    bool out_of_time = false;
    for (uint32_t i = 0; i < tc->ntiles && st >= 0 && !out_of_time; ++i) {
        if (!tc->dirty[i]) continue;
        st = mark_tile(tc, i, shapes);
        if (st < 0) break;
        const uint32_t tx = i % (uint32_t)tc->w.tl->tiles_x, tz = i / (uint32_t)tc->w.tl->tiles_x;
        if (!tc->pass_tiles) tc->pass_box[0] = tc->pass_box[2] = tx, tc->pass_box[1] = tc->pass_box[3] = tz;
        if (tx < tc->pass_box[0]) tc->pass_box[0] = tx;
        if (tx > tc->pass_box[2]) tc->pass_box[2] = tx;
        if (tz < tc->pass_box[1]) tc->pass_box[1] = tz; /* an add between budgeted calls */
        if (tz > tc->pass_box[3]) tc->pass_box[3] = tz;
        tc->dirty[i] = 0, --tc->dirty_count, ++tc->pass_tiles;
        out_of_time = budget_us && now_us() - t0 >= budget_us && tc->dirty_count;
    }
    ptl_mem_free(&tc->a, shapes, ((size_t)most + 1) * sizeof *shapes);
    if (st < 0) return ptl_error_set(err, st, "tile cache: out of memory");
    tc->pass_ms += (double)(now_us() - t0) * 1e-3;
    if (tc->dirty_count) return PTL_OK;
    if (!tc->pass_tiles) {
        *done = true;
        return PTL_OK;
    }
    const uint64_t t1 = now_us();
    st = restamp_tiles(tc);
    if (st < 0) return ptl_error_set(err, st, "tile cache: out of memory");
    tc->pass_ms += (double)(now_us() - t1) * 1e-3;
    st = rebake(tc, err);
    if (st < 0) return st;
    tc->last_tiles = tc->pass_tiles, tc->pass_tiles = 0;
    tc->last_whole = tc->pass_whole, tc->last_edges = tc->pass_edges, tc->pass_whole = tc->pass_edges = 0;
    memcpy(tc->last_box, tc->pass_box, sizeof tc->last_box);
    tc->last_ms_stamp = tc->pass_ms, tc->pass_ms = 0;
    *done = true;
    ptl_error_ok(err);
    return PTL_OK;
}

void ptl_tilecache_blob(const ptl_tilecache* tc, const void** blob, size_t* size) {
    *blob = tc ? tc->blob : NULL;
    *size = tc ? tc->blob_size : 0;
}

void ptl_tilecache_get_info(const ptl_tilecache* tc, ptl_tilecache_info* out) {
    memset(out, 0, sizeof *out);
    if (!tc) return;
    out->tiles_x = (uint32_t)tc->w.tl->tiles_x, out->tiles_z = (uint32_t)tc->w.tl->tiles_z;
    out->tile_size = (uint32_t)tc->w.tl->tile_size;
    out->obstacles = tc->live;
    out->dirty_tiles = tc->dirty_count;
    out->last_tiles = tc->last_tiles;
    memcpy(out->last_box, tc->last_box, sizeof out->last_box);
    out->cells = tc->cells;
    out->walkable_area = tc->area;
    out->cache_bytes = tc->cache_bytes;
    out->rebakes = tc->rebakes;
    if (tc->has_layers) out->layers_kept = tc->layers.memo.kept, out->layers_made = tc->layers.memo.made;
    if (tc->has_layers) out->layers_keyed = tc->layers.memo.keyed, out->layers_grids_kept = tc->layers.memo.merge.grids_kept;
    out->restamped_whole = tc->last_whole, out->restamped_edges = tc->last_edges;
    out->ms_stamp = tc->last_ms_stamp;
    out->ms_layers = tc->last.ms_layers, out->ms_contours = tc->last.ms_contours;
    out->ms_decompose = tc->last.ms_decompose, out->ms_merge = tc->last.ms_merge, out->ms_total = tc->last.ms_total;
    uint64_t mem = sizeof *tc + (uint64_t)tc->ntiles * (sizeof *tc->base * 2 + sizeof(void*) + 3 + sizeof *tc->over);
    for (uint32_t i = 0; i < tc->ntiles; ++i) {
        const ptl_vx_tile* t = &tc->base[i];
        const uint64_t cols = (uint64_t)t->w * (uint64_t)t->d + 1;
        mem += cols * 4 + (uint64_t)t->span_count * sizeof *t->spans + (uint64_t)t->gap_count * sizeof *t->gaps;
        mem += (uint64_t)tc->over[i].cap * 4;
        if (tc->removed[i]) mem += t->span_count + 1;
        if (tc->has_stamp[i]) {
            ++out->stamped_tiles;
            mem += cols * 4 + ((uint64_t)t->span_count + 1) * sizeof *t->spans + (uint64_t)t->gap_count * sizeof *t->gaps;
        }
    }
    if (tc->has_layers) mem += ptl_layer_memo_bytes(&tc->layers.memo);
    for (uint32_t i = 0; tc->has_layers && i < tc->layers.px * tc->layers.pz; ++i)
        if (tc->layers.piece[i]) mem += ptl_lstream_tile_bytes(tc->layers.piece[i]);
    mem += (uint64_t)tc->obs.cap * sizeof *tc->obs.data + (uint64_t)tc->free_slots.cap * 4 + tc->blob_size;
    out->memory_bytes = mem;
}

uint32_t ptl_tilecache_tile(const ptl_tilecache* tc, uint32_t tx, uint32_t tz, float bmin[3], float bmax[3]) {
    const bool in = tc && tx < (uint32_t)tc->w.tl->tiles_x && tz < (uint32_t)tc->w.tl->tiles_z;
    if (bmin && bmax) {
        if (!in) {
            for (int k = 0; k < 3; ++k) bmin[k] = 1, bmax[k] = 0;
        } else { /* the columns tiles_of counts in (tile_size of them from the world's origin) */
            const ptl_vx_params* p = tc->w.p;
            const float span = (float)tc->w.tl->tile_size * p->cs;
            bmin[0] = p->bmin[0] + (float)tx * span, bmax[0] = bmin[0] + span;
            bmin[2] = p->bmin[2] + (float)tz * span, bmax[2] = bmin[2] + span;
            bmin[1] = p->bmin[1], bmax[1] = p->bmax[1];
        }
    }
    if (!in) return 0;
    const uint32_t i = tz * (uint32_t)tc->w.tl->tiles_x + tx;
    return (tc->dirty[i] ? PTL_TILE_DIRTY : 0u) | (tc->removed[i] ? PTL_TILE_STAMPED : 0u);
}
