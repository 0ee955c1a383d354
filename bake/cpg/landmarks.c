/* Landmarks for the searches: ALT lower bounds (Goldberg and Harrelson, "Computing the shortest path:
   A* search meets graph theory", SODA 2005). For a landmark L and any two points a and b, the
   triangle inequality gives d(a, b) >= |d(L, b) - d(L, a)|; with the exact geodesic distance from a
   few landmarks to every vertex stored in the blob, a search bounds the remaining length from each
   turning point far better than the straight line where obstacles force detours.

   Per piece of walkable space (cells joined by portals) the landmarks are spread by farthest-point
   sampling: the first is the vertex farthest from the piece's first vertex, each next one the vertex
   farthest from all chosen so far. Distances are exact: one interval search without a goal per
   landmark (runtime search.c), so a piece costs (landmarks + 1) of those. Deterministic: ties go to
   the lowest vertex id, and nothing depends on timing or memory addresses. */
#include <math.h>
#include <string.h>

#include <portolan/bake.h>

#include "../../runtime/internal.h"
#include "landmarks.h"

/* Pieces smaller than this many cells get no landmarks: their searches are short anyway. */
enum { MIN_CELLS_PER_LANDMARK = 8 };

static uint64_t align8(uint64_t x) { return (x + 7) & ~(uint64_t)7; }

/* The node pool of the distance searches grows up to this many nodes per cell edge (plus a
   little), never to more than 2^24: the searches' memory is bounded by the navmesh's size. The
   shared maps need far less (random512-10-0: 65,536 nodes for 174,551 cell edges). */
enum { MAX_NODES_PER_EDGE = 16, MAX_NODES_FLOOR = 4096 };

/* The distance searches never locate a point: their queries skip the cells' boxes. */
static const ptl_query_switches lm_switches = {.no_cell_boxes = true, .no_disc = true};

/* One-to-all distances from v, growing the node pool when a large piece needs it, up to the bound
   above (then PTL_ERR_OUT_OF_NODES). */
static ptl_status distances(const ptl_navmesh* nm, ptl_query** q, const ptl_allocator* a, uint32_t v, double* dist) {
    const uint64_t cap64 = (uint64_t)nm->h->cell_vert_total * MAX_NODES_PER_EDGE + MAX_NODES_FLOOR;
    const uint32_t cap = cap64 < (1u << 24) ? (uint32_t)cap64 : (1u << 24);
    for (;;) {
        ptl_status st = ptl_query_vertex_distances(*q, v, dist);
        if (st != PTL_ERR_OUT_OF_NODES || (*q)->max_nodes >= cap) return st;
        uint32_t more = (*q)->max_nodes * 4;
        if (more > cap) more = cap;
        ptl_query_destroy(*q);
        ptl_query_desc qd = {.max_nodes = more, .alloc = a};
        if ((st = ptl_query_create_with_switches(nm, &qd, &lm_switches, q)) < 0) return st;
    }
}

/* One piece's landmarks: farthest-point selection from a seed vertex, each landmark's distances
   written to its piece's vertices only, so pieces run side by side (piece_job). */
typedef struct lm_ctx {
    const ptl_navmesh* nm;
    const ptl_allocator* a;
    uint32_t count, jobs;     /* job j does the pieces p with p % jobs == j */
    const uint32_t* piece;    /* per vertex */
    const uint32_t* pstart;   /* per piece + 1: its vertices in pverts, in increasing order */
    const uint32_t* pverts;
    const uint32_t* cells_in; /* per piece */
    float* lm;
    ptl_status* st;           /* per piece */
} lm_ctx;

static void one_piece(lm_ctx* c, uint32_t p, ptl_query** qp, double* dist, double* near) {
    const ptl_navmesh* nm = c->nm;
    const uint32_t count = c->count;
    const uint32_t* pv = c->pverts + c->pstart[p];
    const uint32_t n = c->pstart[p + 1] - c->pstart[p];
    uint32_t k = c->cells_in[p] / MIN_CELLS_PER_LANDMARK;
    if (k > count) k = count;
    if (k == 0 || n == 0) return;
    ptl_status st = distances(nm, qp, c->a, pv[0], dist);
    if (st == PTL_ERR_OUT_OF_NODES) st = PTL_OK, k = 0; /* no landmarks for this piece (above) */
    if (st >= 0 && k > 0) {
        for (uint32_t j = 0; j < n; ++j) near[pv[j]] = dist[pv[j]];
        for (uint32_t i = 0; i < k && st >= 0; ++i) {
            uint32_t far = PTL_NONE;
            for (uint32_t j = 0; j < n; ++j) {
                uint32_t v = pv[j];
                if (isfinite(near[v]) && (far == PTL_NONE || near[v] > near[far])) far = v;
            }
            if (far == PTL_NONE) break;
            /* A search that outgrows its bound leaves this landmark and the next ones out of the
               piece (+inf: no bound), which only makes its searches slower, never wrong. */
            if ((st = distances(nm, qp, c->a, far, dist)) == PTL_ERR_OUT_OF_NODES) {
                st = PTL_OK;
                break;
            }
            if (st < 0) break;
            for (uint32_t j = 0; j < n; ++j) {
                uint32_t v = pv[j];
                /* Stored rounded up would overstate nothing: bounds take their float rounding into
                   account (search.c, PTL_ALT_SLACK). Unseen vertices keep +inf (no bound). */
                c->lm[(size_t)v * count + i] = (float)dist[v];
                if (i == 0 || dist[v] < near[v]) near[v] = dist[v];
            }
        }
    }
    c->st[p] = st;
}

static void piece_job(void* data, uint32_t j) {
    lm_ctx* c = data;
    const uint32_t nv = c->nm->h->vert_count, np = c->nm->piece_count;
    ptl_query* q = NULL;
    ptl_query_desc qd = {.max_nodes = 1u << 10, .alloc = c->a}; /* grown on demand (distances()): small meshes stay small */
    double* dist = ptl_mem_alloc(c->a, (size_t)nv * sizeof(double));
    double* near = ptl_mem_alloc(c->a, (size_t)nv * sizeof(double)); /* distance to the nearest chosen landmark */
    bool ok = dist && near && ptl_query_create_with_switches(c->nm, &qd, &lm_switches, &q) >= 0;
    for (uint32_t p = j; p < np; p += c->jobs) {
        c->st[p] = ok ? PTL_OK : PTL_ERR_NO_MEMORY;
        if (ok) one_piece(c, p, &q, dist, near);
    }
    ptl_mem_free(c->a, dist, (size_t)nv * sizeof(double));
    ptl_mem_free(c->a, near, (size_t)nv * sizeof(double));
    ptl_query_destroy(q);
}

ptl_status ptl_bake_landmarks(const void* blob, size_t size, uint32_t count, const ptl_landmarks_desc* desc,
                              void** out, size_t* out_size, ptl_error* err) {
    return ptl_bake_landmarks_jobs(blob, size, count, desc ? desc->jobs : NULL, desc ? desc->alloc : NULL, out, out_size,
                                   err);
}

/* With `adopt`, the blob becomes the navmesh's (no copy of it beside the output) and is freed here
   whatever the outcome. */
static ptl_status landmarks(const void* blob, size_t size, bool adopt, uint32_t count, const ptl_job_system* jobs,
                            const ptl_allocator* alloc, void** out, size_t* out_size, ptl_error* err) {
    ptl_allocator a = ptl_allocator_resolve(alloc);
    if (!blob || !out || !out_size) {
        if (adopt && blob) ptl_mem_free(&a, (void*)(uintptr_t)blob, size);
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_bake_landmarks: NULL argument");
    }
    *out = NULL;
    *out_size = 0;
    ptl_navmesh_desc nd = {.alloc = &a};
    ptl_navmesh* nm = NULL;
    ptl_status st = count > PTL_MAX_LANDMARKS
                        ? ptl_error_set(err, PTL_ERR_INVALID_ARG, "landmarks: %u is more than %u", count, PTL_MAX_LANDMARKS)
                    : adopt ? ptl_nm_create_adopt((void*)(uintptr_t)blob, size, &a, &nm, err)
                            : ptl_navmesh_create(blob, size, &nd, &nm, err);
    if (st < 0) {
        if (adopt) ptl_mem_free(&a, (void*)(uintptr_t)blob, size);
        return st;
    }
    return ptl_bake_landmarks_nm(nm, count, jobs, &a, out, out_size, err);
}

ptl_status ptl_bake_landmarks_nm(ptl_navmesh* nm, uint32_t count, const ptl_job_system* jobs, const ptl_allocator* alloc,
                                 void** out, size_t* out_size, ptl_error* err) {
    ptl_allocator a = ptl_allocator_resolve(alloc);
    ptl_status st = PTL_OK;
    *out = NULL;
    *out_size = 0;
    const void* blob = nm->blob; /* the copy (or the blob itself) is read from here on */
    const ptl_blob_header* h = nm->h;
    const uint32_t nv = h->vert_count, np = nm->piece_count;
    uint32_t* piece = ptl_mem_alloc(&a, (size_t)nv * sizeof(uint32_t));
    uint32_t* cells_in = ptl_mem_calloc(&a, (size_t)np + 1, sizeof(uint32_t));
    ptl_status* pst = ptl_mem_calloc(&a, (size_t)np + 1, sizeof(ptl_status));
    uint32_t* pstart = ptl_mem_calloc(&a, (size_t)np + 2, sizeof(uint32_t));
    uint32_t* pverts = ptl_mem_alloc(&a, ((size_t)nv + 1) * sizeof(uint32_t));
    uint64_t off = h->off_landmarks, lm_bytes = (uint64_t)nv * count * sizeof(float);
    uint64_t total = align8(off + lm_bytes);
    uint8_t* b = ptl_mem_alloc(&a, (size_t)total);
    if (!piece || !cells_in || !pst || !pstart || !pverts || !b) {
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "landmarks: out of memory");
        goto done;
    }
    memcpy(b, blob, (size_t)off);
    memset(b + off, 0, (size_t)(total - off));
    float* lm = (float*)(b + off);
    for (uint64_t i = 0; i < (uint64_t)nv * count; ++i) lm[i] = INFINITY;
    for (uint32_t v = 0; v < nv; ++v)
        piece[v] = nm->vcell_start[v] < nm->vcell_start[v + 1] ? nm->cell_piece[nm->vcell[nm->vcell_start[v]]] : PTL_NONE;
    for (uint32_t c = 0; c < h->cell_count; ++c) cells_in[nm->cell_piece[c]]++;
    /* each piece's vertices, in increasing order (a counting sort) */
    for (uint32_t v = 0; v < nv; ++v)
        if (piece[v] != PTL_NONE) pstart[piece[v] + 2]++;
    for (uint32_t p = 0; p < np; ++p) pstart[p + 2] += pstart[p + 1];
    for (uint32_t v = 0; v < nv; ++v)
        if (piece[v] != PTL_NONE) pverts[pstart[piece[v] + 1]++] = v;
    if (count > 0) {
        /* A job per 1/16th of the pieces (each with one query and one set of scratch arrays). */
        uint32_t nj = jobs && jobs->run ? (np < 16 ? np : 16) : 1;
        lm_ctx ctx = {nm, &a, count, nj, piece, pstart, pverts, cells_in, lm, pst};
        if (nj > 1) jobs->run(jobs->user, piece_job, &ctx, nj);
        else piece_job(&ctx, 0);
        for (uint32_t p = 0; p < np; ++p) /* the first failure in piece order */
            if (pst[p] < 0) {
                st = pst[p];
                goto fail;
            }
    }
    ptl_blob_header* nh = (ptl_blob_header*)b;
    nh->landmark_count = count;
    nh->total_size = total;
    /* The hubs section, which followed the landmarks, is gone (ptl_bake_hubs adds it again). */
    nh->off_hubs = total;
    nh->hub_count = nh->hub_edge_count = 0;
    nh->hub_entry_count = nh->hub_bytes = 0;
    nh->checksum = 0;
    nh->checksum = ptl_blob_checksum(b, total);
    *out = b;
    *out_size = (size_t)total;
    b = NULL;
    st = ptl_error_ok(err);
    goto done;
fail:
    st = ptl_error_set(err, st, "landmarks: a distance search failed: %s", ptl_status_message(st));
done:
    ptl_mem_free(&a, b, (size_t)total);
    ptl_mem_free(&a, piece, (size_t)nv * sizeof(uint32_t));
    ptl_mem_free(&a, cells_in, ((size_t)np + 1) * sizeof(uint32_t));
    ptl_mem_free(&a, pst, ((size_t)np + 1) * sizeof(ptl_status));
    ptl_mem_free(&a, pstart, ((size_t)np + 2) * sizeof(uint32_t));
    ptl_mem_free(&a, pverts, ((size_t)nv + 1) * sizeof(uint32_t));
    ptl_navmesh_destroy(nm);
    return st;
}

ptl_status ptl_bake_landmarks_jobs(const void* blob, size_t size, uint32_t count, const ptl_job_system* jobs,
                                   const ptl_allocator* alloc, void** out, size_t* out_size, ptl_error* err) {
    return landmarks(blob, size, false, count, jobs, alloc, out, out_size, err);
}

ptl_status ptl_bake_landmarks_adopt(void* blob, size_t size, uint32_t count, const ptl_job_system* jobs,
                                    const ptl_allocator* alloc, void** out, size_t* out_size, ptl_error* err) {
    return landmarks(blob, size, true, count, jobs, alloc, out, out_size, err);
}
