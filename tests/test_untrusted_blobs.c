/* Blobs and parts whose checksum is right but whose contents are not what a bake writes (edited on
   purpose, or written by a buggy tool): ptl_navmesh_create refuses every header field a query
   relies on when it is inconsistent, naming the field; the merge refuses part settings out of
   range before computing with them; and queries on what create accepts, or with absurd query
   points and boxes, answer with a status and never read or write out of bounds (ASan, UBSan). */
#include <float.h>
#include <stddef.h>

#include "../runtime/navmesh_format.h"
#include "mesh_builder.h"
#include "test_util.h"

typedef struct blob {
    uint8_t* data;
    size_t size;
} blob;

static blob bake_map(const char* map) {
    ptl_grid g;
    ptl_shape s;
    ptl_error err;
    cr_assert_geq(ptl_grid_parse(map, strlen(map), "test", NULL, &g, &err), 0, "%s", err.message);
    cr_assert_geq(ptl_shape_from_grid(&g, NULL, &s, &err), 0, "%s", err.message);
    void* data;
    size_t size;
    cr_assert_geq(ptl_bake_shape(&s, NULL, &data, &size, NULL, &err), 0, "%s", err.message);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
    blob b = {malloc(size), size};
    memcpy(b.data, data, size);
    ptl_blob_free(data, size, NULL);
    return b;
}

/* A room with a pillar: several cells, portals, buckets. */
static const char* ROOM = "type octile\nheight 8\nwidth 8\nmap\n"
                          "........\n........\n........\n...@@...\n...@@...\n........\n........\n........\n";

static ptl_blob_header* header(blob* b) { return (ptl_blob_header*)b->data; }

/* Puts the checksum right again after an edit. */
static void reseal(blob* b) {
    uint64_t sum = ptl_blob_checksum(b->data, b->size);
    memcpy(b->data + offsetof(ptl_blob_header, checksum), &sum, sizeof sum);
}

/* create refuses the blob with PTL_ERR_BAD_BLOB and a message naming `field`. */
static void expect_refused(blob* b, const char* field, const char* what) {
    reseal(b);
    ptl_navmesh* nm = NULL;
    ptl_error err;
    ptl_status s = ptl_navmesh_create(b->data, b->size, NULL, &nm, &err);
    cr_expect_eq(s, PTL_ERR_BAD_BLOB, "%s: create says %s (%s)", what, ptl_status_name(s), err.message);
    cr_expect(strstr(err.message, field) != NULL, "%s: the message \"%s\" does not name %s", what, err.message, field);
    cr_expect_null(nm);
    ptl_navmesh_destroy(nm);
}

Test(untrusted_blobs, a_point_location_grid_that_does_not_cover_the_bounds_is_refused) {
    blob ref = bake_map(ROOM);
    const float cells[] = {1e-19f, 1e-30f, 1e-45f, 0.01f};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; ++i) {
        blob b = {malloc(ref.size), ref.size};
        memcpy(b.data, ref.data, ref.size);
        header(&b)->grid_cell = cells[i];
        char what[64];
        snprintf(what, sizeof what, "grid_cell %g", (double)cells[i]);
        expect_refused(&b, "grid_cell", what);
        free(b.data);
    }
    free(ref.data);
}

Test(untrusted_blobs, bounds_other_than_the_vertices_box_are_refused) {
    blob ref = bake_map(ROOM);
    for (int k = 0; k < 6; ++k) {
        blob b = {malloc(ref.size), ref.size};
        memcpy(b.data, ref.data, ref.size);
        ptl_blob_header* h = header(&b);
        /* far out (with a grid cell that still covers them), or just inside the vertices */
        switch (k) {
        case 0: h->bmax[0] = 1e20f, h->grid_cell = 1e20f; break;
        case 1: h->bmin[2] = -1e20f, h->grid_cell = 1e20f; break;
        case 2: h->bmin[0] = -1e20f, h->bmax[0] = 1e20f, h->grid_cell = 1e20f; break;
        case 3: h->bmax[1] = 1e20f; break;
        case 4: h->bmax[0] = nextafterf(h->bmax[0], 0); break;
        default: h->bmin[2] = nextafterf(h->bmin[2], 10); break;
        }
        char what[32];
        snprintf(what, sizeof what, "bounds edit %d", k);
        expect_refused(&b, "bmin/bmax", what);
        free(b.data);
    }
    free(ref.data);
}

Test(untrusted_blobs, a_cell_made_non_convex_is_refused) {
    /* An open 4 x 4 room: one square cell. Its vertex (4, 4) moved to (1, 1) makes it reflex
       there, with the same bounds. */
    blob b = bake_map("type octile\nheight 4\nwidth 4\nmap\n....\n....\n....\n....\n");
    ptl_blob_header* h = header(&b);
    cr_assert_eq(h->cell_count, 1u);
    float* v = (float*)(b.data + h->off_verts);
    uint32_t moved = 0;
    for (uint32_t i = 0; i < h->vert_count; ++i)
        if (v[3 * i] == 4 && v[3 * i + 2] == 4) v[3 * i] = 1, v[3 * i + 2] = 1, ++moved;
    cr_assert_eq(moved, 1u);
    expect_refused(&b, "not convex", "moved vertex");
    free(b.data);
}

/* A convex 128-gon, one cell, reshaped into a comb: a flat bottom and a top of 63 teeth between
   z = 5 and z = 10. The blob claims a relaxation larger than the teeth, so create accepts it (a
   relaxed bake's cells may turn right that much); a query point in a notch between teeth with a
   box over the whole top cuts every tooth, which a clipped copy of the cell in a buffer sized by
   its vertex count does not hold. */
Test(untrusted_blobs, queries_on_a_comb_shaped_cell_stay_in_their_buffers) {
    const uint32_t n = 128;
    double* xy = malloc(2 * n * sizeof(double));
    for (uint32_t i = 0; i < n; ++i) {
        double a = 2 * 3.14159265358979 * i / n;
        xy[2 * i] = 3 + 3 * cos(a), xy[2 * i + 1] = 5 + 5 * sin(a);
    }
    uint32_t rings[2] = {0, n};
    ptl_shape s = {n, xy, 1, rings, 0, {0}};
    ptl_bake_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.no_landmarks = true;
    void* data;
    size_t size;
    ptl_error err;
    cr_assert_geq(ptl_bake_shape(&s, &bd, &data, &size, NULL, &err), 0, "%s", err.message);
    blob b = {malloc(size), size};
    memcpy(b.data, data, size);
    ptl_blob_free(data, size, NULL);
    free(xy);
    ptl_blob_header* h = header(&b);
    cr_assert_eq(h->cell_count, 1u);
    const ptl_blob_cell* cell = (const ptl_blob_cell*)(b.data + h->off_cells);
    cr_assert_eq(cell->vert_count, n);
    const uint32_t* cv = (const uint32_t*)(b.data + h->off_cell_verts);
    float* v = (float*)(b.data + h->off_verts);
    for (uint32_t k = 0; k < n; ++k) {
        float x, z;
        if (k == 0) x = 0, z = 0;
        else if (k == 1) x = 6.3f, z = 0;
        else x = 6.3f - 0.05f * (float)(k - 2), z = k % 2 == 0 ? 10.0f : 5.0f;
        v[3 * cv[k]] = x, v[3 * cv[k] + 2] = z;
    }
    h->bmin[0] = 0, h->bmax[0] = 6.3f, h->bmin[2] = 0, h->bmax[2] = 10;
    h->grid_cell = 16; /* every bucket lists the one cell: any bucket covers it all */
    h->relax = 100;
    reseal(&b);
    ptl_navmesh* nm;
    cr_assert_geq(ptl_navmesh_create(b.data, b.size, NULL, &nm, &err), 0, "%s", err.message);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    float pts[3 * 64];
    for (int i = 0; i < 40; ++i) {
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        /* in the notch between the tips at x = 3.0 and 3.1 (and others), above the valleys */
        req.start[0] = 3.05f - 0.1f * (float)(i % 20), req.start[2] = i < 20 ? 9 : 7.5f;
        req.goal[0] = 3, req.goal[2] = 1;
        req.extents[0] = 100, req.extents[1] = 4, req.extents[2] = 2;
        ptl_path_result res;
        memset(&res, 0, sizeof res);
        res.points = pts, res.point_capacity = 64;
        ptl_status st = ptl_query_find_path(q, &req, &res);
        cr_expect(st == PTL_OK || st == PTL_PARTIAL || st == PTL_ERR_NOT_FOUND, "%s", ptl_status_name(st));
        ptl_location loc;
        cr_expect_geq(ptl_query_locate(q, req.start, req.extents, &loc), PTL_ERR_NOT_FOUND);
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    free(b.data);
}

/* A ramp: its cells are not flat, so they carry height grids in voxel columns. */
static blob bake_ramp(void) {
    mesh_builder* mb = calloc(1, sizeof *mb);
    uint32_t a = vert(mb, 0, 0, 0), c = vert(mb, 0, 3, 10), d = vert(mb, 10, 3, 10), e = vert(mb, 10, 0, 0);
    tri(mb, a, c, d);
    tri(mb, a, d, e);
    ptl_trimesh m = as_trimesh(mb);
    void* data;
    size_t size;
    ptl_error err;
    cr_assert_geq(ptl_bake_trimesh(&m, NULL, &data, &size, NULL, &err), 0, "%s", err.message);
    free(mb);
    blob b = {malloc(size), size};
    memcpy(b.data, data, size);
    ptl_blob_free(data, size, NULL);
    return b;
}

Test(untrusted_blobs, voxel_sizes_that_disagree_with_the_height_grids_are_refused) {
    blob ref = bake_ramp();
    cr_assert_gt(header(&ref)->height_count, 0u, "the ramp has height grids");
    const float sizes[] = {1e-19f, 1e-6f, 1e20f};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        blob b = {malloc(ref.size), ref.size};
        memcpy(b.data, ref.data, ref.size);
        header(&b)->vox_cs = sizes[i];
        char what[64];
        snprintf(what, sizeof what, "vox_cs %g", (double)sizes[i]);
        expect_refused(&b, "vox_cs", what);
        free(b.data);
    }
    blob b = {malloc(ref.size), ref.size};
    memcpy(b.data, ref.data, ref.size);
    header(&b)->vox_origin[0] = 1e20f;
    expect_refused(&b, "vox_origin", "vox_origin 1e20");
    free(b.data);
    free(ref.data);
}

/* Query points and boxes at the ends of the float range, NaN and infinities: a status, no UB. */
Test(untrusted_blobs, absurd_query_points_and_boxes_get_a_status) {
    blob b = bake_map(ROOM);
    ptl_navmesh* nm;
    ptl_error err;
    cr_assert_geq(ptl_navmesh_create(b.data, b.size, NULL, &nm, &err), 0, "%s", err.message);
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    const float big = FLT_MAX, vals[] = {0.5f, -FLT_MAX, FLT_MAX, 1e20f, -1e20f, 1e-45f, NAN, INFINITY, -INFINITY};
    const size_t nv = sizeof vals / sizeof vals[0];
    uint32_t found = 0;
    for (size_t i = 0; i < nv; ++i) {
        for (size_t j = 0; j < nv; ++j) {
            for (size_t k = 0; k < nv; ++k) {
                float p[3] = {vals[i], 0, vals[j]}, e[3] = {vals[k], vals[k], vals[k]};
                bool bad = !isfinite(p[0]) || !isfinite(p[2]) || !isfinite(e[0]) || e[0] < 0;
                ptl_location loc;
                ptl_status s = ptl_query_locate(q, p, e, &loc);
                if (bad) cr_expect_eq(s, PTL_ERR_INVALID_ARG, "(%g, %g) box %g: %s", p[0], p[2], e[0], ptl_status_name(s));
                else cr_expect(s == PTL_OK || s == PTL_ERR_NOT_FOUND, "(%g, %g) box %g: %s", p[0], p[2], e[0], ptl_status_name(s));
                if (s == PTL_OK) {
                    ++found;
                    cr_expect(loc.point[0] >= 0 && loc.point[0] <= 8 && loc.point[2] >= 0 && loc.point[2] <= 8,
                              "(%g, %g) box %g: located off the mesh (%g, %g)", p[0], p[2], e[0], loc.point[0],
                              loc.point[2]);
                }
                ptl_path_request req;
                memset(&req, 0, sizeof req);
                memcpy(req.start, p, sizeof p);
                req.goal[0] = 7.5f, req.goal[2] = 7.5f;
                memcpy(req.extents, e, sizeof e);
                float pts[3 * 64];
                ptl_path_result res;
                memset(&res, 0, sizeof res);
                res.points = pts, res.point_capacity = 64;
                s = ptl_query_find_path(q, &req, &res);
                if (bad) cr_expect_eq(s, PTL_ERR_INVALID_ARG, "path from (%g, %g) box %g: %s", p[0], p[2], e[0],
                                      ptl_status_name(s));
                else cr_expect(s >= 0 || s == PTL_ERR_NOT_FOUND, "path from (%g, %g) box %g: %s", p[0], p[2], e[0],
                               ptl_status_name(s));
            }
        }
    }
    /* a box of the whole float range finds the mesh from anywhere */
    float p[3] = {-1e30f, 0, 1e30f}, e[3] = {big, big, big};
    ptl_location loc;
    cr_expect_eq(ptl_query_locate(q, p, e, &loc), PTL_OK);
    cr_expect_gt(found, 0u);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    free(b.data);
}

/* A part's voxel settings out of the range a bake makes, checksum made right: refused by name
   before the tile border (tiles.c) or any window is computed from them. */
#include "../bake/voxel/vx_params.h"
#define PART_WORLD_AT 56u /* parts.c: part_header's fields before its config, whose first field is the world */
Test(untrusted_blobs, part_settings_out_of_range_are_refused_by_name) {
    mesh_builder* mb = calloc(1, sizeof *mb);
    floor_quad(mb, 0, 0, 12, 9, 0);
    box(mb, 3, 0, 3, 4, 2, 6);
    ptl_trimesh m = as_trimesh(mb);
    ptl_bake_desc d;
    memset(&d, 0, sizeof d);
    d.tile_size = 16;
    d.agent_radius = 0.6f;
    uint32_t all[4] = {0, 0, 99, 99};
    void* part;
    size_t size;
    ptl_error err;
    cr_assert_geq(ptl_bake_trimesh_part(&m, &d, all, &part, &size, NULL, &err), 0, "%s", err.message);
    int32_t r;
    memcpy(&r, (uint8_t*)part + PART_WORLD_AT + offsetof(ptl_vx_params, walkable_radius), sizeof r);
    cr_assert_eq(r, 2, "the part's layout is not the one this test assumes (walkable_radius %d)", r);
    const struct {
        size_t at;
        int32_t value;
        const char* name;
    } edits[] = {{offsetof(ptl_vx_params, walkable_radius), INT32_MAX, "walkable_radius"},
                 {offsetof(ptl_vx_params, walkable_radius), -7, "walkable_radius"},
                 {offsetof(ptl_vx_params, max_void), INT32_MAX, "max_void"},
                 {offsetof(ptl_vx_params, world_width), INT32_MAX, "world_width"},
                 {offsetof(ptl_vx_params, heights), 0x7fff0000, "heights"},
                 {offsetof(ptl_vx_params, walkable_height), -1, "walkable_height"},
                 {offsetof(ptl_vx_params, walkable_climb), INT32_MIN, "walkable_climb"}};
    uint8_t* copy = malloc(size);
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; ++i) {
        memcpy(copy, part, size);
        memcpy(copy + PART_WORLD_AT + edits[i].at, &edits[i].value, sizeof edits[i].value);
        uint64_t sum = ptl_blob_checksum(copy, size);
        memcpy(copy + 24, &sum, sizeof sum);
        const void* parts[1] = {copy};
        void* out = NULL;
        size_t out_size = 0;
        ptl_status st = ptl_bake_merge_parts(parts, &size, 1, NULL, &out, &out_size, NULL, &err);
        cr_expect_eq(st, PTL_ERR_BAD_BLOB, "%s = %d: %s", edits[i].name, edits[i].value, ptl_status_name(st));
        cr_expect(strstr(err.message, edits[i].name) != NULL, "%s = %d: the message \"%s\" does not name it",
                  edits[i].name, edits[i].value, err.message);
        if (out) ptl_blob_free(out, out_size, NULL);
    }
    free(copy);
    ptl_blob_free(part, size, NULL);
    free(mb);
}

#include <portolan/tilecache.h>

#include "../bake/voxel/filter.h"

/* A part whose span carries a tag above PTL_AREA_MAX (a span's tag is its area; the layer stages
   keep it in a byte where pieces of the world meet), or other than 0 in a bake without areas (whose
   layer stage never cuts at area borders), checksum made right: the merge and the tile cache refuse
   it by name. The tile cache once gave other layers than its full rebake there. */
Test(untrusted_blobs, a_part_span_of_an_area_above_the_limit_is_refused) {
    mesh_builder* mb = calloc(1, sizeof *mb);
    floor_quad(mb, 0, 0, 12, 9, 0);
    ptl_trimesh m = as_trimesh(mb);
    static const float far_away[6] = {100, 100, 101, 100, 101, 101}; /* a volume that gives the bake areas */
    const ptl_area_volume vol = {.xz = far_away, .vert_count = 3, .ymin = -1, .ymax = 1, .area = 3};
    for (int areas = 0; areas < 2; ++areas) {
        ptl_bake_desc d;
        memset(&d, 0, sizeof d);
        d.tile_size = 16;
        if (areas) d.area_volumes = &vol, d.area_volume_count = 1;
        void* part;
        size_t size;
        ptl_error err;
        const uint32_t every_tile[4] = {0, 0, 1u << 20, 1u << 20}; /* a plain part: the tile cache loads one too */
        cr_assert_geq(ptl_bake_trimesh_part(&m, &d, every_tile, &part, &size, NULL, &err), 0, "%s", err.message);
        uint32_t header_size, tile[10]; /* part_tile: tx, tz, x0, z0, w, d, span_count, ... (no seeds) */
        memcpy(&header_size, (uint8_t*)part + 12, sizeof header_size);
        memcpy(tile, (uint8_t*)part + header_size, sizeof tile);
        const size_t span0 = header_size + sizeof tile + ((size_t)tile[4] * tile[5] + 1) * 4;
        cr_assert_gt(tile[6], 0u);
        ptl_open_span s;
        memcpy(&s, (uint8_t*)part + span0, sizeof s);
        cr_assert(s.layer == PTL_VX_NONE && s.floor <= s.ceil && s.tag == 0, "the part's layout is not the one this test assumes");
        uint8_t* copy = malloc(size);
        const uint16_t tags[2] = {areas ? PTL_AREA_MAX : 0, areas ? PTL_AREA_MAX + 1 : 1};
        for (int k = 0; k < 2; ++k) {
            const uint16_t tag = tags[k];
            memcpy(copy, part, size);
            memcpy(copy + span0 + offsetof(ptl_open_span, tag), &tag, sizeof tag);
            uint64_t sum = ptl_blob_checksum(copy, size);
            memcpy(copy + 24, &sum, sizeof sum);
            const void* parts[1] = {copy};
            void* out = NULL;
            size_t out_size = 0;
            const ptl_status want = k ? PTL_ERR_BAD_BLOB : PTL_OK;
            ptl_status st = ptl_bake_merge_parts(parts, &size, 1, NULL, &out, &out_size, NULL, &err);
            cr_expect_eq(st, want, "merge, areas %d, area %u: %s (%s)", areas, tag, ptl_status_name(st), err.message);
            if (out) ptl_blob_free(out, out_size, NULL);
            ptl_tilecache* tc = NULL;
            st = ptl_tilecache_create(copy, size, NULL, &tc, &err);
            cr_expect_eq(st, want, "tile cache, areas %d, area %u: %s (%s)", areas, tag, ptl_status_name(st), err.message);
            if (want < 0) cr_expect(strstr(err.message, "area") != NULL, "the message \"%s\" does not name the area", err.message);
            ptl_tilecache_destroy(tc);
        }
        free(copy);
        ptl_blob_free(part, size, NULL);
    }
    free(mb);
}
