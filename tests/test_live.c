/* The live navmesh (<portolan/live.h>): versions, pins, stale references, bad publishes, memory
   given back, and queries on four threads while a fifth publishes obstacle updates (a few seconds
   here; tests/live_stress.sh runs the same under ThreadSanitizer). */
#include <portolan/gen.h>
#include <portolan/live.h>
#include <portolan/tilecache.h>

#include "failing_alloc.h"
#include "live_stress.h"
#include "mesh_builder.h"
#include "test_util.h"

/* Two blobs of one 20 x 20 m floor: without and with a wall across its middle (a door at one end). */
static void two_blobs(void** a, size_t* na, void** b, size_t* nb) {
    static mesh_builder m1, m2;
    memset(&m1, 0, sizeof m1), memset(&m2, 0, sizeof m2);
    floor_quad(&m1, 0, 0, 20, 20, 0);
    floor_quad(&m2, 0, 0, 20, 20, 0);
    box(&m2, 0, 0, 9.5f, 17, 3, 10.5f);
    ptl_trimesh t1 = as_trimesh(&m1), t2 = as_trimesh(&m2);
    ptl_bake_desc d = ptl_bake_desc_defaults();
    ptl_error err;
    cr_assert_eq(ptl_bake_trimesh(&t1, &d, a, na, NULL, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_bake_trimesh(&t2, &d, b, nb, NULL, &err), PTL_OK, "%s", err.message);
}

static float path_length(ptl_query* q) {
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    req.start[0] = 5, req.start[2] = 5, req.goal[0] = 5, req.goal[2] = 15;
    float pts[3 * 256];
    ptl_path_result res = {.points = pts, .point_capacity = 256};
    cr_assert_geq(ptl_query_find_path(q, &req, &res), 0);
    cr_assert(res.found);
    return res.length;
}

Test(live, versions_pins_and_stale_references) {
    void *a, *b;
    size_t na, nb;
    two_blobs(&a, &na, &b, &nb);
    ptl_live* live;
    ptl_error err;
    cr_assert_eq(ptl_live_create(a, na, NULL, &live, &err), PTL_OK, "%s", err.message);
    cr_expect_eq(ptl_live_version(live), 1u);
    ptl_live_query* lq;
    cr_assert_eq(ptl_live_query_create(live, NULL, &lq, &err), PTL_OK, "%s", err.message);

    uint64_t v = 0;
    ptl_query* q = ptl_live_query_begin(lq, &v, &err);
    cr_assert_not_null(q, "%s", err.message);
    cr_expect_eq(v, 1u);
    cr_expect_null(ptl_live_query_begin(lq, NULL, &err), "begun twice");
    cr_expect_eq(err.status, PTL_ERR_INVALID_ARG);
    const float open = path_length(q);
    cr_expect_float_eq(open, 10.0f, 1e-3f, "a straight path on the open floor: %g", (double)open);
    ptl_location loc;
    const float p[3] = {5, 0, 5}, ext[3] = {1, 2, 1};
    cr_assert_eq(ptl_query_locate(q, p, ext, &loc), PTL_OK);
    const ptl_live_ref ref = ptl_live_query_ref(lq, loc.cell);
    cr_expect_neq(ref.salt, 0u);
    uint32_t cell;
    cr_expect_eq(ptl_live_query_resolve(lq, ref, &cell), PTL_OK);
    cr_expect_eq(cell, loc.cell);
    cr_expect_eq(ptl_live_query_ref(lq, 1u << 30).cell, PTL_NONE, "an out-of-range cell has no reference");

    /* a publish while version 1 is pinned: this query keeps seeing version 1 */
    cr_assert_eq(ptl_live_publish(live, b, nb, &err), PTL_OK, "%s", err.message);
    cr_expect_eq(ptl_live_version(live), 2u);
    cr_expect_float_eq(path_length(q), open, 1e-5f, "the pinned version is unchanged");
    ptl_live_query_end(lq);
    cr_expect_eq(ptl_live_query_resolve(lq, ref, &cell), PTL_ERR_INVALID_ARG, "outside begin / end");
    cr_expect_null(ptl_live_query_navmesh(lq));

    q = ptl_live_query_begin(lq, &v, &err);
    cr_assert_not_null(q);
    cr_expect_eq(v, 2u);
    const float walled = path_length(q);
    cr_expect_gt(walled, open + 1, "version 2 has the wall: %g against %g", (double)walled, (double)open);
    cr_expect_eq(ptl_live_query_resolve(lq, ref, &cell), PTL_ERR_STALE, "a version-1 reference under version 2");
    cr_expect_eq(cell, PTL_NONE);
    cr_expect_str_eq(ptl_status_name(PTL_ERR_STALE), "PTL_ERR_STALE");
    ptl_live_query_end(lq);

    /* a damaged blob changes nothing */
    unsigned char* bad = malloc(nb);
    memcpy(bad, b, nb);
    bad[nb / 2] ^= 0x5a;
    cr_expect_eq(ptl_live_publish(live, bad, nb, &err), PTL_ERR_BAD_BLOB, "%s", err.message);
    cr_expect_eq(ptl_live_publish(live, bad, 7, &err), PTL_ERR_BAD_BLOB);
    cr_expect_eq(ptl_live_version(live), 2u);
    free(bad);

    /* acquire / release for readers that are not queries */
    uint64_t av = 0;
    const ptl_navmesh* nm = ptl_live_acquire(live, &av);
    cr_assert_not_null(nm);
    cr_expect_eq(av, 2u);
    cr_assert_eq(ptl_live_publish(live, a, na, &err), PTL_OK);
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info); /* still pinned: still valid after the publish */
    cr_expect_gt(info.cell_count, 0u);
    ptl_live_release(live, nm);
    ptl_live_release(live, NULL);
    cr_expect_null(ptl_live_acquire(NULL, NULL));

    ptl_live_query_destroy(lq);
    ptl_live_destroy(live);
    ptl_live_destroy(NULL);
    ptl_blob_free(a, na, NULL);
    ptl_blob_free(b, nb, NULL);
}

Test(live, a_retired_version_is_freed_by_its_last_reader_and_bad_descs_are_refused) {
    void *a, *b;
    size_t na, nb;
    two_blobs(&a, &na, &b, &nb);
    tracking t = {.fail_at = -1};
    ptl_allocator al = {t_alloc, t_realloc, t_free, &t};
    ptl_live_desc ld = {.alloc = &al};
    ptl_live* live;
    ptl_error err;
    cr_assert_eq(ptl_live_create(a, na, &ld, &live, &err), PTL_OK, "%s", err.message);
    const size_t one = t.live_bytes;
    cr_assert_gt(one, na, "the live navmesh's memory goes through its allocator");
    const ptl_navmesh* nm = ptl_live_acquire(live, NULL);
    cr_assert_eq(ptl_live_publish(live, b, nb, &err), PTL_OK);
    const size_t two = t.live_bytes;
    cr_expect_gt(two, one, "both versions alive while the first is pinned");
    ptl_live_release(live, nm);
    cr_expect_lt(t.live_bytes, two, "released: the first version is freed");
    cr_assert_eq(ptl_live_publish(live, a, na, &err), PTL_OK);
    cr_assert_eq(ptl_live_publish(live, b, nb, &err), PTL_OK);
    cr_expect_lt(t.live_bytes, two, "versions nobody pinned are freed at once");

    ptl_query_desc qd = ptl_query_desc_defaults();
    qd.max_nodes = 5; /* below the pool's minimum */
    ptl_live_query* lq = (ptl_live_query*)1;
    cr_expect_eq(ptl_live_query_create(live, &qd, &lq, &err), PTL_ERR_INVALID_ARG, "%s", err.message);
    cr_expect_null(lq);
    ptl_live_destroy(live);
    cr_expect_eq(t.live_blocks, 0, "every block given back");

    for (long fail = 0;; ++fail) { /* every allocation failure: no memory, nothing leaked */
        tracking f = {.fail_at = fail};
        ptl_allocator fa = {t_alloc, t_realloc, t_free, &f};
        ptl_live_desc fd = {.alloc = &fa};
        ptl_live* l2 = NULL;
        ptl_status st = ptl_live_create(a, na, &fd, &l2, &err);
        ptl_live_query* q2 = NULL;
        if (st >= 0) st = ptl_live_publish(l2, b, nb, &err);
        if (st >= 0) st = ptl_live_query_create(l2, NULL, &q2, &err);
        if (st >= 0 && !ptl_live_query_begin(q2, NULL, &err)) st = err.status;
        if (st >= 0) ptl_live_query_end(q2);
        ptl_live_query_destroy(q2);
        ptl_live_destroy(l2);
        cr_assert(st >= 0 || st == PTL_ERR_NO_MEMORY, "failure %ld: %s", fail, ptl_status_name(st));
        cr_assert_eq(f.live_blocks, 0, "failure %ld leaked %ld blocks", fail, f.live_blocks);
        if (st >= 0) break;
    }
    ptl_blob_free(a, na, NULL);
    ptl_blob_free(b, nb, NULL);
}

Test(live, four_query_threads_and_an_obstacle_thread_see_consistent_versions, .timeout = 300) {
    live_stress_result r;
    cr_assert_eq(live_stress_run(4, 3.0, &r), 0, "%s", r.first_error);
    cr_expect_eq(r.invalid, 0u, "%llu invalid answers; first: %s", (unsigned long long)r.invalid, r.first_error);
    cr_expect_gt(r.answers, 100u, "%llu answers", (unsigned long long)r.answers);
    cr_expect_gt(r.publishes, 2u, "%llu publishes", (unsigned long long)r.publishes);
    cr_expect_gt(r.versions_seen, 4u, "the query threads saw %llu versions", (unsigned long long)r.versions_seen);
    cr_expect_gt(r.stale_ok, 0u, "no reference was ever checked across versions");
}
