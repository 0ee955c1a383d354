/* The 3D bake: any triangle soup to a multi-layer cell-and-portal graph.
   voxelize.c -> filter.c -> layers.c -> contours.c -> decompose.c per layer -> layer_merge.c
   (-> landmarks.c). The voxel stages run in one piece or in tiles (tiles.c); contours and
   decompositions run per layer as jobs when the desc gives a job system. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "../../runtime/internal.h"
#include "../cpg/hubs.h"
#include "../cpg/offmesh.h"
#include "../cpg/landmarks.h"
#include "bake3d.h"
#include "../cpg/build.h"
#include "bake_debug.h"
#include "../layers/layer_map.h"
#include "../layers/layer_stream.h"
#include "../voxel/areas.h"
#include "../voxel/tiles.h"
#include "../layers/layer_merge.h"
#include "progress.h"

double ptl_bake3d_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Contours and decompositions of the layers, as jobs (each layer on its own). */
typedef struct layer_jobs {
    const ptl_layer_map* map;
    const ptl_layer_set* ls;
    double max_error;
    const ptl_decompose_desc* dd;
    const ptl_allocator* a;
    ptl_layer_contour* lc;
    ptl_decomposition* dc;
    ptl_status* st;
    ptl_error* errs;
    const ptl_layer_memo* memo; /* NULL: none */
    ptl_contour_raw* raw;       /* with a memo: each layer's raw contour */
    uint8_t* kept;              /* with a memo: 1 where lc[l] and dc[l] are the memo's (borrowed), 2 when by key */
    ptl_contour_plans* plans;   /* with a memo: each layer's simplification plans */
    ptl_lmap_key* keys;         /* with a memo: each layer's key */
} layer_jobs;

static void contour_job(void* data, uint32_t l) {
    layer_jobs* j = data;
    if (!j->memo) {
        j->st[l] = ptl_contour_layer(j->map, j->ls, l, j->max_error, j->a, &j->lc[l], &j->errs[l]);
        return;
    }
    /* The key first: equal to the kept one, the raw contour would be the kept one too. */
    if (!ptl_lmap_layer_key(j->map, &j->ls->layers[l], l, j->a, &j->keys[l])) j->st[l] = PTL_ERR_NO_MEMORY;
    else if (l < j->memo->count && ptl_lmap_key_equal(&j->keys[l], &j->memo->keys[l])) {
        j->kept[l] = 2;
        j->lc[l] = j->memo->lc[l];
        return;
    } else j->st[l] = ptl_contour_layer_raw(j->map, j->ls, l, j->a, &j->raw[l]);
    if (j->st[l] < 0) {
        ptl_error_set(&j->errs[l], j->st[l], "contours: out of memory");
        return;
    }
    if (l < j->memo->count && ptl_contour_raw_equal(&j->raw[l], &j->memo->raw[l])) {
        j->kept[l] = 1;
        j->lc[l] = j->memo->lc[l];
        return;
    }
    const ptl_contour_plans* old = l < j->memo->count ? &j->memo->plans[l] : NULL;
    j->st[l] = ptl_contour_from_raw(&j->raw[l], j->max_error, j->a, old, &j->plans[l], &j->lc[l], &j->errs[l]);
}
static void decompose_job(void* data, uint32_t l) {
    layer_jobs* j = data;
    if (j->kept && j->kept[l]) j->dc[l] = j->memo->dc[l], j->st[l] = PTL_OK;
    else j->st[l] = ptl_decompose(&j->lc[l].shape, j->dd, &j->dc[l], &j->errs[l]);
}
/* Runs fn over the layers; the first failure in layer order is the answer. */
static ptl_status run_layers(const ptl_job_system* jobs, ptl_job_fn fn, layer_jobs* j, uint32_t nl, ptl_error* err) {
    for (uint32_t l = 0; l < nl; ++l) j->st[l] = PTL_OK;
    if (jobs && jobs->run && nl > 1) jobs->run(jobs->user, fn, j, nl);
    else
        for (uint32_t l = 0; l < nl; ++l) fn(j, l);
    for (uint32_t l = 0; l < nl; ++l)
        if (j->st[l] < 0) {
            if (err) *err = j->errs[l];
            return j->st[l];
        }
    return PTL_OK;
}

/* The layers' contours and decompositions, made per layer (as jobs). */
typedef struct bake_layers {
    const ptl_allocator* a;
    uint32_t nl;
    ptl_layer_contour* lc;
    ptl_decomposition* dc;
    ptl_status* lst;
    ptl_error* lerr;
    ptl_layer_memo* memo;  /* NULL: none */
    ptl_contour_raw* raw;  /* with a memo, per layer */
    uint8_t* kept;         /* with a memo, per layer: lc, dc and raw belong to the memo */
    ptl_contour_plans* plans; /* with a memo, per layer */
    ptl_lmap_key* keys;       /* with a memo, per layer */
} bake_layers;

static void bake_layers_free(bake_layers* bl) {
    for (uint32_t l = 0; l < bl->nl; ++l) {
        if (bl->raw) ptl_contour_raw_free(&bl->raw[l]); /* zeroed once the memo has it */
        if (bl->plans) ptl_contour_plans_free(&bl->plans[l], bl->a);
        if (bl->keys) PTL_ARRAY_FREE(bl->a, bl->keys[l]);
        if (bl->kept && bl->kept[l]) continue;
        if (bl->lc) ptl_layer_contour_free(&bl->lc[l]);
        if (bl->dc) ptl_decomposition_free(&bl->dc[l]);
    }
    ptl_mem_free(bl->a, bl->lc, (size_t)bl->nl * sizeof *bl->lc);
    ptl_mem_free(bl->a, bl->dc, (size_t)bl->nl * sizeof *bl->dc);
    ptl_mem_free(bl->a, bl->lst, (size_t)bl->nl * sizeof *bl->lst);
    ptl_mem_free(bl->a, bl->lerr, (size_t)bl->nl * sizeof *bl->lerr);
    ptl_mem_free(bl->a, bl->raw, (size_t)bl->nl * sizeof *bl->raw);
    ptl_mem_free(bl->a, bl->kept, bl->nl);
    ptl_mem_free(bl->a, bl->plans, (size_t)bl->nl * sizeof *bl->plans);
    ptl_mem_free(bl->a, bl->keys, (size_t)bl->nl * sizeof *bl->keys);
    memset(bl, 0, sizeof *bl);
}

void ptl_layer_memo_free(ptl_layer_memo* m, const ptl_allocator* a) {
    for (uint32_t l = 0; l < m->count; ++l) {
        ptl_contour_raw_free(&m->raw[l]);
        ptl_layer_contour_free(&m->lc[l]);
        ptl_decomposition_free(&m->dc[l]);
        ptl_contour_plans_free(&m->plans[l], a);
        PTL_ARRAY_FREE(a, m->keys[l]);
    }
    ptl_mem_free(a, m->plans, (size_t)m->count * sizeof *m->plans);
    ptl_mem_free(a, m->keys, (size_t)m->count * sizeof *m->keys);
    ptl_mem_free(a, m->raw, (size_t)m->count * sizeof *m->raw);
    ptl_mem_free(a, m->lc, (size_t)m->count * sizeof *m->lc);
    ptl_mem_free(a, m->dc, (size_t)m->count * sizeof *m->dc);
    ptl_merge_memo_free(&m->merge, a);
    memset(m, 0, sizeof *m);
}

uint64_t ptl_layer_memo_bytes(const ptl_layer_memo* m) {
    uint64_t b = (uint64_t)m->count * (sizeof *m->raw + sizeof *m->lc + sizeof *m->dc) + ptl_merge_memo_bytes(&m->merge);
    for (uint32_t l = 0; l < m->count; ++l) {
        b += (uint64_t)m->raw[l].vert_count * 20 + (uint64_t)m->raw[l].ring_count * 4;
        b += (uint64_t)m->lc[l].shape.vert_count * 20 + (uint64_t)m->lc[l].shape.ring_count * 4;
        const ptl_decomposition* d = &m->dc[l];
        b += (uint64_t)d->vert_count * 16 + (uint64_t)d->cell_count * 4 + (uint64_t)(d->cell_start ? d->cell_start[d->cell_count] : 0) * 8;
        b += (uint64_t)d->portal_count * sizeof *d->portals + ptl_contour_plans_bytes(&m->plans[l]);
        b += (uint64_t)m->keys[l].cap * sizeof *m->keys[l].data;
    }
    return b;
}

/* The memo takes this bake's layers (every contour and decomposition made): the kept ones stay,
   the others replace the memo's at their index, the memo's past the last layer go. The contours and
   decompositions stay in `bl` as borrowed. false: out of memory, the memo and `bl` as they were. */
static bool memo_take(bake_layers* bl) {
    ptl_layer_memo* m = bl->memo;
    const uint32_t nl = bl->nl;
    ptl_contour_raw* raw = ptl_mem_calloc(bl->a, nl, sizeof *raw); /* nl > 0: a bake has a layer */
    ptl_layer_contour* lc = ptl_mem_calloc(bl->a, nl, sizeof *lc);
    ptl_decomposition* dc = ptl_mem_calloc(bl->a, nl, sizeof *dc);
    ptl_contour_plans* plans = ptl_mem_calloc(bl->a, nl, sizeof *plans);
    ptl_lmap_key* keys = ptl_mem_calloc(bl->a, nl, sizeof *keys);
    if (!raw || !lc || !dc || !plans || !keys) {
        ptl_mem_free(bl->a, raw, (size_t)nl * sizeof *raw);
        ptl_mem_free(bl->a, lc, (size_t)nl * sizeof *lc);
        ptl_mem_free(bl->a, dc, (size_t)nl * sizeof *dc);
        ptl_mem_free(bl->a, plans, (size_t)nl * sizeof *plans);
        ptl_mem_free(bl->a, keys, (size_t)nl * sizeof *keys);
        return false;
    }
    m->kept = m->made = m->keyed = 0;
    for (uint32_t l = 0; l < nl; ++l) {
        keys[l] = bl->keys[l]; /* this bake's key: it gives the raw contour the memo keeps at l */
        memset(&bl->keys[l], 0, sizeof bl->keys[l]);
        m->keyed += bl->kept[l] == 2;
        if (bl->kept[l]) {
            raw[l] = m->raw[l], lc[l] = m->lc[l], dc[l] = m->dc[l], plans[l] = m->plans[l];
            memset(&m->raw[l], 0, sizeof m->raw[l]), memset(&m->lc[l], 0, sizeof m->lc[l]);
            memset(&m->dc[l], 0, sizeof m->dc[l]), memset(&m->plans[l], 0, sizeof m->plans[l]);
            ptl_contour_raw_free(&bl->raw[l]);
            ++m->kept;
        } else {
            raw[l] = bl->raw[l], lc[l] = bl->lc[l], dc[l] = bl->dc[l], plans[l] = bl->plans[l];
            memset(&bl->raw[l], 0, sizeof bl->raw[l]), memset(&bl->plans[l], 0, sizeof bl->plans[l]);
            bl->kept[l] = 1;
            ++m->made;
        }
    }
    const uint32_t kept = m->kept, made = m->made, keyed = m->keyed;
    const ptl_merge_memo merge = m->merge; /* the merge's memo is not the layers' to drop */
    memset(&m->merge, 0, sizeof m->merge);
    ptl_layer_memo_free(m, bl->a); /* what is left: the layers replaced or gone */
    m->merge = merge;
    m->count = nl, m->raw = raw, m->lc = lc, m->dc = dc, m->plans = plans, m->keys = keys;
    m->kept = kept, m->made = made, m->keyed = keyed;
    return true;
}

/* Contours, then decompositions, of every layer (kept in the debug capture if any); *t: the clock
   at the end of the last timed stage. */
static ptl_status bake_layers_run(bake_layers* bl, const ptl_bake_desc* d, double pair_slack, const ptl_layer_map* map,
                                  const ptl_layer_set* ls, ptl_bake_progress* pg, ptl_bake_stats* bs, double* t,
                                  ptl_error* err) {
    ptl_status st = PTL_OK;
    if (ls->layer_count == 0)
        st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: no walkable surface%s",
                           d->seed_count ? " reachable from the seeds" : " (check the agent height, climb and slope)");
    if (st >= 0) {
        const uint32_t nl = bl->nl = ls->layer_count;
        bl->lc = ptl_mem_calloc(bl->a, nl, sizeof *bl->lc);
        bl->dc = ptl_mem_calloc(bl->a, nl, sizeof *bl->dc);
        bl->lst = ptl_mem_calloc(bl->a, nl, sizeof *bl->lst);
        bl->lerr = ptl_mem_calloc(bl->a, nl, sizeof *bl->lerr);
        if (bl->memo) bl->raw = ptl_mem_calloc(bl->a, nl, sizeof *bl->raw), bl->kept = ptl_mem_calloc(bl->a, nl, 1);
        if (bl->memo) bl->plans = ptl_mem_calloc(bl->a, nl, sizeof *bl->plans);
        if (bl->memo) bl->keys = ptl_mem_calloc(bl->a, nl, sizeof *bl->keys);
        if (!bl->lc || !bl->dc || !bl->lst || !bl->lerr ||
            (bl->memo && (!bl->raw || !bl->kept || !bl->plans || !bl->keys)))
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    }
    ptl_decompose_desc dd = {.relax = d->relax, .pair_slack = pair_slack, .alloc = bl->a,
                             .backend = d->closest_backend};
    layer_jobs lj = {map, ls, d->max_error > 0 ? d->max_error : 0, &dd, bl->a, bl->lc, bl->dc, bl->lst, bl->lerr,
                     bl->memo, bl->raw, bl->kept, bl->plans, bl->keys};
    if (st >= 0) st = run_layers(d->jobs, contour_job, &lj, bl->nl, err);
    bs->ms_contours = ptl_bake3d_now_ms() - *t, *t = ptl_bake3d_now_ms();
    if (st >= 0 && d->debug)
        st = ptl_bake_debug_keep_contours(d->debug, map, ls, bl->lc, bl->nl, err), *t = ptl_bake3d_now_ms();
    if (st >= 0) ptl_progress_stage(pg, "decompose", 0.7f, 0.8f);
    if (st >= 0) st = run_layers(d->jobs, decompose_job, &lj, bl->nl, err);
    for (uint32_t l = 0; l < bl->nl && st >= 0; ++l) {
        bs->notches += bl->dc[l].notches;
        bs->real_notches += bl->dc[l].real_notches;
        bs->holes += bl->dc[l].holes;
    }
    if (st >= 0 && bl->memo && !memo_take(bl)) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "bake: out of memory");
    bs->ms_decompose = ptl_bake3d_now_ms() - *t, *t = ptl_bake3d_now_ms();
    if (st >= 0 && d->debug)
        st = ptl_bake_debug_keep_decomps(d->debug, map, bl->lc, bl->dc, bl->nl, err), *t = ptl_bake3d_now_ms();
    return st;
}

/* The layers merged and written as a blob, checked. The map goes before the blob is built: that
   is the bake's high point on large worlds. With `keep` (the landmarks to come), the checked
   navmesh is handed back there, holding the blob (*blob stays its address). */
static ptl_status bake_merge(ptl_layer_map* map, const bake_layers* bl, const ptl_bake_desc* d,
                             const ptl_vx_tiling* tiling, void** blob, size_t* size, ptl_merge_stats* ms,
                             ptl_navmesh** keep, ptl_error* err) {
    ptl_layer_merge* merged = NULL;
    ptl_merge_memo* mm = bl->memo ? &bl->memo->merge : NULL;
    ptl_status st = ptl_merge_layers(map, bl->lc, bl->dc, bl->nl, d->relax, tiling, bl->a, mm, &merged, ms, err);
    ptl_layer_map_free(map);
    if (st >= 0) st = ptl_layer_merge_write(merged, blob, size, err);
    ptl_layer_merge_free(merged);
    /* Never hand out a navmesh that its own validation rejects (the blob is freed by the caller on
       failure); checked before the landmark searches, which assume a valid mesh. */
    if (st >= 0) st = ptl_cpg_check_blob_keep(*blob, *size, bl->a, keep, err);
    return st;
}

/* Landmarks and hub labels, as the desc asks, each timed. nm: the checked navmesh holding the blob
   (bake_merge), searched for the landmarks instead of a navmesh made again (taken here). */
static ptl_status bake_extras(const ptl_bake_desc* d, const ptl_allocator* a, void** blob, size_t* size, ptl_navmesh* nm,
                              ptl_bake_progress* pg, ptl_bake_stats* bs, double* t, ptl_error* err) {
    ptl_status st = PTL_OK;
    if (d->landmarks > 0) {
        ptl_progress_stage(pg, "landmarks", 0.87f, 0.95f);
        void* with = NULL;
        size_t with_size = 0;
        st = nm ? ptl_bake_landmarks_nm(nm, (uint32_t)d->landmarks, d->jobs, a, &with, &with_size, err)
                : ptl_bake_landmarks_adopt(*blob, *size, (uint32_t)d->landmarks, d->jobs, a, &with, &with_size, err);
        *blob = with; /* the blob without landmarks went with the navmesh of the landmark searches */
        *size = with_size;
        bs->landmarks = st >= 0 ? (uint32_t)d->landmarks : 0;
    }
    bs->ms_landmarks = ptl_bake3d_now_ms() - *t, *t = ptl_bake3d_now_ms();
    if (st >= 0 && d->hubs) ptl_progress_stage(pg, "hubs", 0.95f, 0.99f);
    if (st >= 0 && d->hubs) st = ptl_bake_add_hubs(d, blob, size, bs, err);
    bs->ms_hubs = ptl_bake3d_now_ms() - *t;
    return st;
}

/* The walkable area comes from the navmesh (a failure here is the bake's: no stats that lie). The
   navmesh adopts the blob for the while (no copy of it) and hands it back. */
static ptl_status bake_area(void* blob, size_t size, const ptl_allocator* a, ptl_bake_stats* bs, ptl_error* err) {
    ptl_navmesh* nm;
    ptl_status st = ptl_nm_create_adopt(blob, size, a, &nm, err);
    if (st >= 0) {
        ptl_navmesh_info in;
        ptl_navmesh_get_info(nm, &in);
        bs->walkable_area = in.walkable_area;
        nm->blob = NULL, nm->size = 0; /* still the caller's */
        ptl_navmesh_destroy(nm);
    }
    return st;
}

ptl_status ptl_bake3d_finish(ptl_layer_map* map, ptl_layer_set* lsp, const ptl_bake_desc* dp, double pair_slack,
                             const ptl_vx_tiling* tiling, ptl_layer_memo* memo, double t0, void** blob, size_t* size,
                             ptl_bake_stats* bs, ptl_error* err) {
    const ptl_bake_desc d = *dp;
    ptl_allocator a = ptl_allocator_resolve(d.alloc);
    const ptl_layer_set ls = *lsp;
    bake_layers bl;
    memset(&bl, 0, sizeof bl);
    bl.a = &a;
    bl.memo = memo;
    double t = ptl_bake3d_now_ms();
    ptl_bake_progress pg;
    ptl_progress_init(&pg, &d);
    ptl_progress_stage(&pg, "contours", 0.62f, 0.7f);
    ptl_status st = bake_layers_run(&bl, &d, pair_slack, map, &ls, &pg, bs, &t, err);
    const uint32_t nl = bl.nl;
    ptl_merge_stats ms;
    memset(&ms, 0, sizeof ms);
    if (st >= 0) ptl_progress_stage(&pg, "merge", 0.8f, 0.87f);
    ptl_navmesh* checked = NULL; /* with landmarks to search: the checked navmesh, holding the blob */
    if (st >= 0) st = bake_merge(map, &bl, &d, tiling, blob, size, &ms, d.landmarks > 0 ? &checked : NULL, err);
    bs->ms_merge = ptl_bake3d_now_ms() - t, t = ptl_bake3d_now_ms();
    if (st >= 0) ptl_bake_debug_stage_done(d.debug, PTL_BAKE_STAGE_MERGE);
    for (uint32_t l = 0; l < ls.layer_count; ++l) bs->walkable_spans += ls.layers[l].span_count;
    ptl_layer_map_free(map); /* nothing below reads it, nor the contours and decompositions */
    bake_layers_free(&bl);
    if (st >= 0) st = bake_extras(&d, &a, blob, size, checked, &pg, bs, &t, err);
    if (st >= 0 && d.offmesh_count) st = ptl_bake_add_offmesh(&d, blob, size, err);
    if (st >= 0) st = bake_area(*blob, *size, &a, bs, err);
    if (st >= 0) {
        bs->vertices = ms.vertices, bs->cells = ms.cells, bs->portals = ms.portals;
        bs->junction_portals = ms.junction_portals;
        bs->links = ms.links;
        bs->tiles = tiling ? (uint32_t)tiling->tiles_x * (uint32_t)tiling->tiles_z : 1;
        bs->layers = nl;
        bs->ms_total = ptl_bake3d_now_ms() - t0;
    }
    if (st < 0 && *blob) {
        ptl_blob_free(*blob, *size, &a);
        *blob = NULL;
        *size = 0;
    }
    ptl_layer_set_free(lsp);
    ptl_layer_map_free(map);
    return st;
}

ptl_status ptl_bake3d_check_desc(const ptl_bake_desc* d, ptl_error* err) {
    if (d->landmarks > 64)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: landmarks must be 0 (default) or 1..64 (no_landmarks: none)");
    if (!(d->max_error >= 0) || !isfinite(d->max_error))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: max_error must be finite and >= 0 (no_simplify: none)");
    if (d->min_island > INT32_MAX) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: min_island is above 2^31 - 1");
    if (!(d->max_gap >= 0) || !isfinite(d->max_gap))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: max_gap must be finite and >= 0 (no_links: none)");
    if (d->tile_size && (d->tile_size < PTL_VX_MIN_TILE || d->tile_size > PTL_VX_MAX_TILE))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "bake: tile_size %u is outside %u..%u columns (0: one tile)",
                             d->tile_size, PTL_VX_MIN_TILE, PTL_VX_MAX_TILE);
    return ptl_areas_check(d, err);
}

ptl_status ptl_bake_trimesh(const ptl_trimesh* m, const ptl_bake_desc* desc, void** blob, size_t* size,
                            ptl_bake_stats* stats, ptl_error* err) {
    if (!m || !blob || !size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_bake_trimesh: NULL argument");
    *blob = NULL;
    *size = 0;
    ptl_bake_desc d;
    ptl_bake_desc_resolve(desc, &d);
    ptl_bake_debug_begin(d.debug);
    ptl_status st = ptl_bake3d_check_desc(&d, err);
    if (st < 0) return st;
    if (m->tri_count == 0) return ptl_error_set(err, PTL_ERR_BAD_INPUT, "bake: the mesh has no triangle");
    ptl_allocator a = ptl_allocator_resolve(d.alloc);
    /* The voxel stages see each triangle's area as its tag (areas.c); no names: every tag 0. */
    uint16_t* tri_area = NULL;
    if ((st = ptl_areas_of_triangles(m, &d, &a, &tri_area, err)) < 0) return st;
    ptl_trimesh am = *m;
    am.tri_tag = tri_area;
    const ptl_trimesh* m_in = m;
    m = &am;
    ptl_bake_stats bs;
    memset(&bs, 0, sizeof bs);
    bs.triangles = m->tri_count;
    ptl_open_field of;
    memset(&of, 0, sizeof of);
    ptl_layer_set ls;
    ptl_layer_map map;
    memset(&ls, 0, sizeof ls);
    memset(&map, 0, sizeof map);
    double t0 = ptl_bake3d_now_ms(), t;
    ptl_vx_params p;
    ptl_vx_tiling tiling;
    st = ptl_vx_params_resolve(&d, m, &p, err);
    /* The voxel stages run in tiles (tiles.c) unless the caller keeps the intermediates, which need
       the whole heightfield: with tile_size 0, tiles of PTL_VX_AUTO_TILE columns that bound their
       memory (the result is the one-piece bake's, byte for byte, and records no tiling). Without a
       debug capture the tiles stream into the layers band by band (layer_map.h): no open field of
       the whole world is ever held. */
    if (st >= 0 && (d.tile_size || !d.debug))
        st = ptl_tiles_tiling_init(&p, d.tile_size ? d.tile_size : PTL_VX_AUTO_TILE, &tiling, err);
    ptl_bake_progress pg;
    ptl_progress_init(&pg, &d);
    ptl_progress_stage(&pg, "voxelize", 0, 0.6f);
    if (st >= 0 && !d.debug) {
        ptl_layer_stream* s = NULL;
        st = ptl_lstream_create(&p, d.seeds, d.seed_count, d.jobs, &a, &s, err);
        if (st >= 0) st = ptl_tiles_stream_mesh(m, &p, &tiling, d.jobs, &a, s, &bs.spans, &bs.ms_layers, &pg, err);
        t = ptl_bake3d_now_ms();
        if (st >= 0) ptl_progress_stage(&pg, "layers", 0.6f, 0.62f);
        if (st >= 0) {
            st = ptl_lstream_finish(s, &ls, &map, err);
        } else {
            ptl_lstream_destroy(s);
        }
        bs.ms_layers += ptl_bake3d_now_ms() - t;
        bs.ms_voxelize = ptl_bake3d_now_ms() - t0 - bs.ms_layers;
        bs.ms_filter = 0; /* the filters run inside the tiles */
    } else if (st >= 0) {
        if (d.tile_size) {
            /* Tiles assembled into the world's field, which the capture keeps (with the ceilings). */
            st = ptl_tiles_bake(m, &p, &tiling, d.jobs, &a, true, &of, &bs.spans, err);
            t = ptl_bake3d_now_ms(), bs.ms_voxelize = t - t0;
            bs.ms_filter = 0;
        } else {
            ptl_heightfield hf;
            memset(&hf, 0, sizeof hf);
            st = ptl_voxelize_trimesh(m, NULL, 0, &p, &a, &hf, err);
            t = ptl_bake3d_now_ms(), bs.ms_voxelize = t - t0;
            if (st >= 0) st = ptl_bake_debug_keep_heightfield(d.debug, &hf, err), t = ptl_bake3d_now_ms(); /* untimed */
            if (st >= 0) st = ptl_filter_build_open(&hf, &a, &of, err);
            bs.spans = hf.span_count;
            ptl_heightfield_free(&hf);
            bs.ms_filter = ptl_bake3d_now_ms() - t;
        }
        ptl_bake_debug_stage_done(d.debug, PTL_BAKE_STAGE_FILTER);
        t = ptl_bake3d_now_ms();
        if (st >= 0) ptl_progress_stage(&pg, "layers", 0.6f, 0.62f);
        if (st >= 0) st = ptl_lmap_layers_of_field(&of, d.seeds, d.seed_count, d.jobs, &a, &ls, &map, err);
        bs.ms_layers = ptl_bake3d_now_ms() - t;
        if (st >= 0) st = ptl_bake_debug_keep_open(d.debug, &of, ls.layer_count, err);
        ptl_open_field_free(&of);
    }
    const double pair_slack = d.pair_slack; /* resolved: PTL_PAIR_SLACK_DEFAULT unless asked */
    if (st >= 0) st = ptl_bake3d_finish(&map, &ls, &d, pair_slack, d.tile_size ? &tiling : NULL, NULL, t0, blob, size, &bs, err);
    else ptl_layer_set_free(&ls), ptl_layer_map_free(&map);
    if (st >= 0 && stats) *stats = bs;
    if (st >= 0) ptl_progress_stage(&pg, "done", 1, 1);
    ptl_bake_debug_stage_done(d.debug, PTL_BAKE_STAGE_DONE);
    ptl_mem_free(&a, tri_area, (size_t)(m_in->tri_count ? m_in->tri_count : 1) * sizeof *tri_area);
    if (st >= 0) ptl_error_ok(err);
    return st;
}
