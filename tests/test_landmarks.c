/* Landmarks (ALT bounds, bake/cpg/landmarks.c): the distances stored in the blob are the exact shortest
   lengths (checked against path queries), searches give the same lengths with and without them,
   and a blob with a broken distance is refused. */
#include "../runtime/navmesh_format.h"
#include "test_util.h"

/* `landmarks` 0: none. */
static void bake_map(const char* path, uint32_t landmarks, void** blob, size_t* size) {
    ptl_grid g;
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_grid_load(path, NULL, &g, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    ptl_bake_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.landmarks = landmarks, bd.no_landmarks = landmarks == 0;
    cr_assert_geq(ptl_bake_shape(&s, &bd, blob, size, NULL, &err), 0, "%s", err.message);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}

static double query_length(ptl_query* q, const float* a, const float* b) {
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, a, sizeof req.start);
    memcpy(req.goal, b, sizeof req.goal);
    ptl_path_result res;
    memset(&res, 0, sizeof res);
    ptl_status st = ptl_query_find_path(q, &req, &res);
    cr_assert(st == PTL_OK || st == PTL_TRUNCATED, "query failed: %s", ptl_status_name(st));
    return res.length;
}

/* The landmark of slot i of a piece is the vertex at distance 0 in that slot. */
Test(landmarks, stored_distances_are_the_exact_shortest_lengths) {
    TEST_REQUIRE_DATA(data);
    const char* maps[] = {"polyanya/gridmaps/arena.map", "grids/room512/64room_000.map", "grids/dao/den520d.map"};
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; ++m) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", data, maps[m]);
        void* blob;
        size_t size;
        bake_map(path, 4, &blob, &size);
        const ptl_blob_header* h = blob;
        cr_assert_eq(h->landmark_count, 4);
        const float* verts = (const float*)((const char*)blob + h->off_verts);
        const float* lm = (const float*)((const char*)blob + h->off_landmarks);
        const uint8_t* vflags = (const uint8_t*)blob + h->off_vert_flags;
        ptl_navmesh* nm;
        ptl_error err;
        cr_assert_geq(ptl_navmesh_create(blob, size, NULL, &nm, &err), 0, "%s", err.message);
        ptl_query* q;
        cr_assert_geq(ptl_query_create(nm, NULL, &q), 0);
        uint32_t checked = 0;
        for (uint32_t i = 0; i < h->landmark_count; ++i) {
            uint32_t landmark = PTL_NONE;
            for (uint32_t v = 0; v < h->vert_count && landmark == PTL_NONE; ++v)
                if (lm[(size_t)v * h->landmark_count + i] == 0) landmark = v;
            /* A point on a pinch is located in the region of grid cell (x, y), which may be the other
               copy of the vertex: compare only vertices whose position names them alone. */
            if (landmark == PTL_NONE || (vflags[landmark] & PTL_VERT_PINCH)) continue;
            /* Every 7th vertex with a finite distance: the query from the landmark agrees. */
            for (uint32_t v = 0; v < h->vert_count; v += 7) {
                float d = lm[(size_t)v * h->landmark_count + i];
                if (!isfinite(d) || v == landmark || (vflags[v] & PTL_VERT_PINCH)) continue;
                double len = query_length(q, &verts[3 * landmark], &verts[3 * v]);
                cr_expect(fabs(len - d) <= 1e-5 * (1 + len), "%s: landmark %u to vertex %u: stored %.6f, path %.6f",
                          path, i, v, d, len);
                ++checked;
            }
        }
        cr_expect_gt(checked, 10, "%s: no distance was checked", path);
        ptl_query_destroy(q);
        ptl_navmesh_destroy(nm);
        ptl_blob_free(blob, size, NULL);
    }
}

Test(landmarks, searches_give_the_same_lengths_with_and_without_landmarks) {
    TEST_REQUIRE_DATA(data);
    const char* maps[] = {"grids/dao/orz900d.map", "grids/gppc2023/maze512-4-0.map"};
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; ++m) {
        char path[1024], scen[1100];
        snprintf(path, sizeof path, "%s/%s", data, maps[m]);
        snprintf(scen, sizeof scen, "%s.scen", path);
        void *b0, *b1;
        size_t s0, s1;
        bake_map(path, 0, &b0, &s0);
        bake_map(path, 4, &b1, &s1);
        cr_expect_eq(((const ptl_blob_header*)b0)->landmark_count, 0);
        ptl_navmesh *n0, *n1;
        ptl_query *q0, *q1;
        ptl_error err;
        cr_assert_geq(ptl_navmesh_create(b0, s0, NULL, &n0, &err), 0, "%s", err.message);
        cr_assert_geq(ptl_navmesh_create(b1, s1, NULL, &n1, &err), 0, "%s", err.message);
        cr_assert_geq(ptl_query_create(n0, NULL, &q0), 0);
        cr_assert_geq(ptl_query_create(n1, NULL, &q1), 0);
        ptl_query_set qs;
        cr_assert_geq(ptl_scen_load(scen, NULL, &qs, &err), 0, "%s", err.message);
        uint32_t differ = 0;
        for (uint32_t i = 0; i < qs.count; ++i) {
            double a = query_length(q0, qs.items[i].start, qs.items[i].goal);
            double b = query_length(q1, qs.items[i].start, qs.items[i].goal);
            if (fabs(a - b) > 1e-6 * (1 + a) && differ++ < 3)
                cr_expect(0, "%s row %u: %.9f without landmarks, %.9f with", scen, i + 1, a, b);
        }
        cr_expect_eq(differ, 0, "%s: %u lengths differ", scen, differ);
        ptl_query_set_free(&qs);
        ptl_query_destroy(q0);
        ptl_query_destroy(q1);
        ptl_navmesh_destroy(n0);
        ptl_navmesh_destroy(n1);
        ptl_blob_free(b0, s0, NULL);
        ptl_blob_free(b1, s1, NULL);
    }
}

Test(landmarks, a_negative_or_nan_distance_is_refused_at_load) {
    ptl_grid_gen_desc gd = {.scene = PTL_GRID_SCENE_ROOMS, .width = 64, .height = 64, .seed = 3, .density = 0};
    ptl_grid g;
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_grid_generate(&gd, &g, &err), 0);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0);
    void* blob;
    size_t size;
    cr_assert_geq(ptl_bake_shape(&s, NULL, &blob, &size, NULL, &err), 0, "%s", err.message);
    ptl_blob_header* h = blob;
    cr_assert_gt(h->landmark_count, 0);
    float* lm = (float*)((char*)blob + h->off_landmarks);
    const float bad[2] = {-1.0f, NAN};
    for (int k = 0; k < 2; ++k) {
        float keep = lm[5];
        lm[5] = bad[k];
        h->checksum = ptl_blob_checksum(blob, size); /* a consistent blob with a wrong value */
        ptl_navmesh* nm;
        cr_expect_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_ERR_BAD_BLOB);
        cr_expect(strstr(err.message, "landmark"), "%s", err.message);
        lm[5] = keep;
    }
    ptl_blob_free(blob, size, NULL);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
}
