/* Portolan live navmesh: a navmesh that changes (a tile cache's rebakes around dynamic obstacles,
   a streamed level) while any number of threads keep querying it.

   What it does
   - A ptl_live holds versions of a navmesh. ptl_live_publish loads a new blob off to the side
     (validated like ptl_navmesh_create; a bad one changes nothing) and swaps it in atomically; an
     older version stays alive until the last query pinned on it ends, then it is freed.
   - Each query thread owns a ptl_live_query: begin pins the current version for the queries that
     follow (one consistent navmesh however many publishes happen meanwhile) and hands out the
     ptl_query to call; end closes it. The ptl_query is made again only when the version changed
     since the thread's last begin (its memory is sized by the navmesh, runtime.h); queries
     themselves never allocate. A live query keeps the version it last ran on pinned until its
     next begin or its destroy (a query reads its navmesh when it is destroyed): an idle thread
     holds at most one old version alive.
   - Cell ids are per version. A cell a game keeps across frames is kept as a ptl_live_ref (the
     cell and its version's salt): resolved under a later version it is reported stale
     (PTL_ERR_STALE), never misread as another cell.

   Minimal example
       ptl_live* live; ptl_live_create(blob, size, NULL, &live, &err);
       // each query thread:
       ptl_live_query* lq; ptl_live_query_create(live, NULL, &lq, &err);
       uint64_t version; ptl_query* q = ptl_live_query_begin(lq, &version, &err);
       ptl_query_find_path(q, &req, &res);           // any number of queries, one version
       ptl_live_query_end(lq);
       // the thread that rebakes (ptl_tilecache_update, then):
       ptl_tilecache_blob(tc, &b, &n); ptl_live_publish(live, b, n, &err);

   Thread safety: publish, acquire / release, begin / end and version may be called from any
   threads at once (a spin lock guards a few pointer moves; loading a blob happens outside it). One
   ptl_live_query belongs to one thread at a time. Destroy queries, then the live navmesh, once no
   thread uses them. Off-mesh links added at run time (ptl_navmesh_add_offmesh) do not apply to a
   live navmesh's versions: put them in the blob first (ptl_navmesh_blob_with_offmesh). */
#ifndef PORTOLAN_LIVE_H
#define PORTOLAN_LIVE_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ptl_live ptl_live;
typedef struct ptl_live_query ptl_live_query;

typedef struct ptl_live_desc {
    const ptl_allocator* alloc;      /* NULL: libc (the versions' navmeshes use it too) */
    const ptl_navmesh_desc* navmesh; /* how each version is loaded; NULL: defaults (its alloc: ours) */
} ptl_live_desc;

/* Version 1 from `blob` (copied). Errors: those of ptl_navmesh_create, PTL_ERR_NO_MEMORY. */
ptl_status ptl_live_create(const void* blob, size_t size, const ptl_live_desc* desc, ptl_live** out, ptl_error* err);
/* Frees every version: no query may be pinned (ptl_live_query_end first). NULL: nothing. */
void ptl_live_destroy(ptl_live* live);

/* Loads `blob` (copied) and makes it the current version (the previous number + 1). On any error
   (PTL_ERR_BAD_BLOB, PTL_ERR_NO_MEMORY, ...) the current version stays. */
ptl_status ptl_live_publish(ptl_live* live, const void* blob, size_t size, ptl_error* err);
/* The current version's number (1 after create). */
uint64_t ptl_live_version(ptl_live* live);

/* Pins the current version: its navmesh stays valid until ptl_live_release; *version (may be NULL)
   gets its number. For readers that are not queries (drawing, a tool); NULL for a NULL live. */
const ptl_navmesh* ptl_live_acquire(ptl_live* live, uint64_t* version);
void ptl_live_release(ptl_live* live, const ptl_navmesh* nm);

/* A query object of this live navmesh (desc as ptl_query_create's; NULL: defaults), its query made
   for the current version at once. Errors: ptl_query_create's (a bad desc: PTL_ERR_INVALID_ARG),
   PTL_ERR_NO_MEMORY. */
ptl_status ptl_live_query_create(ptl_live* live, const ptl_query_desc* desc, ptl_live_query** out, ptl_error* err);
void ptl_live_query_destroy(ptl_live_query* lq); /* ends it first if pinned */

/* Pins the current version and returns the ptl_query bound to it (valid until end), *version (may
   be NULL) its number. NULL on error: PTL_ERR_INVALID_ARG (already begun), or ptl_query_create's
   error for a new version (PTL_ERR_NO_MEMORY; nothing stays pinned). */
ptl_query* ptl_live_query_begin(ptl_live_query* lq, uint64_t* version, ptl_error* err);
void ptl_live_query_end(ptl_live_query* lq);
/* The pinned version's navmesh (between begin and end; NULL otherwise): its cells, for drawing or
   checking what the queries answered. */
const ptl_navmesh* ptl_live_query_navmesh(const ptl_live_query* lq);

/* A cell of a version, kept across versions: the cell and the low 32 bits of the version's number
   (0 is never a salt). */
typedef struct ptl_live_ref {
    uint32_t cell;
    uint32_t salt;
} ptl_live_ref;

/* The reference of `cell` of the pinned version (between begin and end); {PTL_NONE, 0} otherwise
   or for an out-of-range cell. */
ptl_live_ref ptl_live_query_ref(const ptl_live_query* lq, uint32_t cell);
/* The cell `ref` names in the pinned version: PTL_OK; PTL_ERR_STALE when it was made under another
   version; PTL_ERR_INVALID_ARG outside begin / end or for a malformed ref. */
ptl_status ptl_live_query_resolve(const ptl_live_query* lq, ptl_live_ref ref, uint32_t* cell);

#ifdef __cplusplus
}
#endif
#endif
