/* The live navmesh (<portolan/live.h>): versions swapped in while queries run. A spin lock (C11
   atomic_flag: the runtime needs no threads library) guards the current version pointer, the pin
   counts and the list of retired versions still pinned; loading a blob and freeing a navmesh
   happen outside it. A version is freed by whoever drops its last pin once it is no longer
   current (release), or by publish when nobody pinned it. */
#include <portolan/live.h>

#include <stdatomic.h>
#include <string.h>

#include "alloc.h"
#include "error.h"

typedef struct live_version {
    ptl_navmesh* nm;
    uint64_t id;
    uint32_t pins;              /* under the lock */
    struct live_version* next;  /* the retired list */
} live_version;

struct ptl_live {
    ptl_allocator alloc;
    ptl_navmesh_desc nmd;
    atomic_flag lock;
    live_version* cur;
    live_version* retired;      /* no longer current, still pinned */
    uint64_t last_id;
};

struct ptl_live_query {
    ptl_live* live;
    ptl_query_desc desc;
    ptl_query* q;               /* made for `bound` (a query reads its navmesh when destroyed) */
    live_version* bound;        /* pinned while q exists, between begins too */
    bool open;                  /* between begin and end */
};

static void lock(ptl_live* l) {
    while (atomic_flag_test_and_set_explicit(&l->lock, memory_order_acquire)) {
    }
}
static void unlock(ptl_live* l) { atomic_flag_clear_explicit(&l->lock, memory_order_release); }

static void version_free(ptl_live* l, live_version* v) {
    if (!v) return;
    ptl_navmesh_destroy(v->nm);
    ptl_mem_free(&l->alloc, v, sizeof *v);
}

static ptl_status version_load(ptl_live* l, const void* blob, size_t size, live_version** out, ptl_error* err) {
    live_version* v = ptl_mem_alloc(&l->alloc, sizeof *v);
    if (!v) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "live navmesh: out of memory");
    memset(v, 0, sizeof *v);
    ptl_status st = ptl_navmesh_create(blob, size, &l->nmd, &v->nm, err);
    if (st < 0) {
        ptl_mem_free(&l->alloc, v, sizeof *v);
        return st;
    }
    *out = v;
    return PTL_OK;
}

ptl_status ptl_live_create(const void* blob, size_t size, const ptl_live_desc* desc, ptl_live** out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_live_create: NULL out");
    *out = NULL;
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    ptl_live* l = ptl_mem_alloc(&a, sizeof *l);
    if (!l) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "live navmesh: out of memory");
    memset(l, 0, sizeof *l);
    l->alloc = a;
    l->nmd = desc && desc->navmesh ? *desc->navmesh : ptl_navmesh_desc_defaults();
    if (!l->nmd.alloc && desc) l->nmd.alloc = desc->alloc;
    atomic_flag_clear(&l->lock);
    ptl_status st = version_load(l, blob, size, &l->cur, err);
    if (st < 0) {
        ptl_mem_free(&a, l, sizeof *l);
        return st;
    }
    l->cur->id = l->last_id = 1;
    *out = l;
    ptl_error_ok(err);
    return PTL_OK;
}

void ptl_live_destroy(ptl_live* l) {
    if (!l) return;
    version_free(l, l->cur);
    for (live_version* v = l->retired; v;) {
        live_version* next = v->next;
        version_free(l, v);
        v = next;
    }
    ptl_allocator a = l->alloc;
    ptl_mem_free(&a, l, sizeof *l);
}

ptl_status ptl_live_publish(ptl_live* l, const void* blob, size_t size, ptl_error* err) {
    if (!l) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_live_publish: NULL live navmesh");
    live_version* v;
    ptl_status st = version_load(l, blob, size, &v, err);
    if (st < 0) return st;
    live_version* drop = NULL;
    lock(l);
    live_version* old = l->cur;
    v->id = ++l->last_id;
    l->cur = v;
    if (old->pins == 0) {
        drop = old;
    } else {
        old->next = l->retired;
        l->retired = old;
    }
    unlock(l);
    version_free(l, drop);
    ptl_error_ok(err);
    return PTL_OK;
}

uint64_t ptl_live_version(ptl_live* l) {
    if (!l) return 0;
    lock(l);
    const uint64_t id = l->cur->id;
    unlock(l);
    return id;
}

static live_version* pin(ptl_live* l) {
    lock(l);
    live_version* v = l->cur;
    v->pins++;
    unlock(l);
    return v;
}

/* Drops a pin; frees the version when it was the last one on a retired version. */
static void unpin(ptl_live* l, live_version* v) {
    live_version* drop = NULL;
    lock(l);
    if (--v->pins == 0 && v != l->cur) {
        for (live_version** at = &l->retired; *at; at = &(*at)->next)
            if (*at == v) {
                *at = v->next;
                drop = v;
                break;
            }
    }
    unlock(l);
    version_free(l, drop);
}

const ptl_navmesh* ptl_live_acquire(ptl_live* l, uint64_t* version) {
    if (!l) return NULL;
    live_version* v = pin(l);
    if (version) *version = v->id;
    return v->nm;
}

void ptl_live_release(ptl_live* l, const ptl_navmesh* nm) {
    if (!l || !nm) return;
    live_version* v = NULL;
    lock(l);
    if (l->cur->nm == nm) v = l->cur;
    for (live_version* r = l->retired; r && !v; r = r->next)
        if (r->nm == nm) v = r;
    unlock(l);
    if (v) unpin(l, v); /* a pinned version is never freed: v stays valid between the two locks */
}

ptl_status ptl_live_query_create(ptl_live* l, const ptl_query_desc* desc, ptl_live_query** out, ptl_error* err) {
    if (!l || !out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_live_query_create: NULL argument");
    *out = NULL;
    ptl_live_query* lq = ptl_mem_alloc(&l->alloc, sizeof *lq);
    if (!lq) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "live navmesh: out of memory");
    memset(lq, 0, sizeof *lq);
    lq->live = l;
    lq->desc = desc ? *desc : ptl_query_desc_defaults();
    if (!lq->desc.alloc) lq->desc.alloc = l->nmd.alloc;
    /* the query of the current version now: a bad desc is refused here, and the first begin of a
       version that did not change allocates nothing */
    lq->bound = pin(l);
    const ptl_status st = ptl_query_create(lq->bound->nm, &lq->desc, &lq->q);
    if (st < 0) {
        unpin(l, lq->bound);
        ptl_mem_free(&l->alloc, lq, sizeof *lq);
        return ptl_error_set(err, st, "live navmesh: %s", ptl_status_message(st));
    }
    *out = lq;
    ptl_error_ok(err);
    return PTL_OK;
}

void ptl_live_query_destroy(ptl_live_query* lq) {
    if (!lq) return;
    ptl_query_destroy(lq->q); /* while its navmesh is still pinned */
    if (lq->bound) unpin(lq->live, lq->bound);
    ptl_mem_free(&lq->live->alloc, lq, sizeof *lq);
}

ptl_query* ptl_live_query_begin(ptl_live_query* lq, uint64_t* version, ptl_error* err) {
    if (!lq || lq->open) {
        ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_live_query_begin: %s", lq ? "already begun" : "NULL query");
        return NULL;
    }
    live_version* v = pin(lq->live);
    if (lq->bound && v->id == lq->bound->id) { /* ids, not pointers: a new navmesh may reuse a freed one's address */
        unpin(lq->live, v); /* the query's own pin holds it */
    } else {
        ptl_query_destroy(lq->q); /* its navmesh still pinned by lq->bound */
        lq->q = NULL;
        if (lq->bound) unpin(lq->live, lq->bound);
        lq->bound = v;
        const ptl_status st = ptl_query_create(v->nm, &lq->desc, &lq->q);
        if (st < 0) {
            lq->q = NULL;
            ptl_error_set(err, st, "live navmesh: no query for version %llu: %s", (unsigned long long)v->id,
                          ptl_status_message(st));
            return NULL;
        }
    }
    lq->open = true;
    if (version) *version = lq->bound->id;
    ptl_error_ok(err);
    return lq->q;
}

void ptl_live_query_end(ptl_live_query* lq) {
    if (lq) lq->open = false; /* the version stays pinned for the query's next begin or destroy */
}

const ptl_navmesh* ptl_live_query_navmesh(const ptl_live_query* lq) {
    return lq && lq->open ? lq->bound->nm : NULL;
}

static uint32_t salt_of(uint64_t id) {
    const uint32_t s = (uint32_t)id;
    return s ? s : 1u; /* 0 is never a salt: version 2^32 shares 1's (four billion publishes apart) */
}

ptl_live_ref ptl_live_query_ref(const ptl_live_query* lq, uint32_t cell) {
    ptl_live_ref r = {PTL_NONE, 0};
    if (!lq || !lq->open) return r;
    ptl_navmesh_info info;
    ptl_navmesh_get_info(lq->bound->nm, &info);
    if (cell >= info.cell_count) return r;
    r.cell = cell, r.salt = salt_of(lq->bound->id);
    return r;
}

ptl_status ptl_live_query_resolve(const ptl_live_query* lq, ptl_live_ref ref, uint32_t* cell) {
    if (cell) *cell = PTL_NONE;
    if (!lq || !lq->open || !cell || ref.salt == 0) return PTL_ERR_INVALID_ARG;
    if (ref.salt != salt_of(lq->bound->id)) return PTL_ERR_STALE;
    ptl_navmesh_info info;
    ptl_navmesh_get_info(lq->bound->nm, &info);
    if (ref.cell >= info.cell_count) return PTL_ERR_INVALID_ARG;
    *cell = ref.cell;
    return PTL_OK;
}
