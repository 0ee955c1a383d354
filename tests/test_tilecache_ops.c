/* The tile cache under many random operations (the acceptance of dynamic obstacles): random adds,
   moves and removes on dungeon, nav_test and a generated building, tiles of 32 and 64 columns.
   After every update the navmesh validates and no vertex lies strictly inside the walkable area on
   a tile border (checked here from the blob's vertices and cells and the tile grid worked out from
   the mesh's bounds, not from the library's check); at the end the navmesh matches a full bake of
   the world with the remaining obstacles as geometry (walkable area within 0.5%, cells within 5%);
   removing every obstacle gives the original bake's cells, area and bytes.

   PTL_TILECACHE_OPS sets the operations per world and tile size (default 60, which the sanitizer
   suite runs; scripts/test.sh runs the release build with 1000), PTL_TILECACHE_SEED is added to
   every seed (default 0: the operations of the committed runs). */
#include "tilecache_util.h"

static uint32_t ops_wanted(void) {
    const char* s = getenv("PTL_TILECACHE_OPS");
    const long n = s && *s ? strtol(s, NULL, 10) : 0;
    return n > 0 && n <= 100000 ? (uint32_t)n : 60u;
}

/* The tile grid of a bake of m in tiles of `tile` columns: lines x = ox + k side and z = oz + k side
   (the voxel grid starts at the mesh's min corner). */
typedef struct tile_grid {
    double ox, oz, side;
    uint32_t nx, nz; /* tiles across and down */
} tile_grid;

/* How far p lies from the nearest inner line of the grid along one axis (lines 1 .. n - 1). */
static double to_inner_line(double p, double o, double side, uint32_t n) {
    const double k = floor((p - o) / side + 0.5);
    if (k < 1 || k > (double)n - 1) return INFINITY;
    return fabs(p - (o + k * side));
}

/* A corner of a cell: its vertex, the cell's layer, its angle. */
typedef struct corner {
    uint32_t v, layer;
    double angle;
} corner;

static int corner_order(const void* a, const void* b) {
    const corner *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return x->layer < y->layer ? -1 : x->layer > y->layer;
}

/* The vertices of the navmesh on an inner tile border (within 1e-3 wu of a line) whose cells of one
   layer close a full turn around them in plan (2 pi, to 1e-4 radians): strictly inside the walkable
   area of that layer, a vertex the tiling left. The cells are convex, so a corner's angle is the
   unsigned angle between its two edges; link cells (quads across gaps) are left out. Cells of
   different layers meet at junctions (a layer's border, where the one-piece bake has the same
   vertices): *junctions counts the border vertices inside the union of the layers only.
   *on_border: the border vertices seen. Returns the count strictly inside a layer. */
static uint32_t inner_border_vertices(const ptl_navmesh* nm, const tile_grid* g, uint32_t* on_border, uint32_t* junctions,
                                      float where[3]) {
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    size_t count = 0, cap = 64;
    corner* cs = malloc(cap * sizeof *cs);
    double* turn = calloc(in.vert_count + 1, sizeof *turn); /* over every layer */
    cr_assert(cs && turn);
    for (uint32_t c = 0; c < in.cell_count; ++c) {
        ptl_cell_view cv;
        ptl_navmesh_get_cell(nm, c, &cv);
        if (cv.link != PTL_NONE) continue;
        for (uint32_t i = 0; i < cv.vert_count; ++i) {
            const float* p = ptl_navmesh_vert(nm, cv.verts[(i + cv.vert_count - 1) % cv.vert_count]);
            const float* v = ptl_navmesh_vert(nm, cv.verts[i]);
            const float* n = ptl_navmesh_vert(nm, cv.verts[(i + 1) % cv.vert_count]);
            if (to_inner_line(v[0], g->ox, g->side, g->nx) > 1e-3 && to_inner_line(v[2], g->oz, g->side, g->nz) > 1e-3) continue;
            const double ax = p[0] - v[0], az = p[2] - v[2], bx = n[0] - v[0], bz = n[2] - v[2];
            const corner k = {cv.verts[i], cv.layer, atan2(fabs(ax * bz - az * bx), ax * bx + az * bz)};
            if (count == cap) cs = realloc(cs, (cap *= 2) * sizeof *cs);
            cr_assert_not_null(cs);
            cs[count++] = k;
            turn[k.v] += k.angle;
        }
    }
    qsort(cs, count, sizeof *cs, corner_order);
    const double full = 2 * 3.14159265358979323846 - 1e-4;
    uint32_t inside = 0;
    *on_border = *junctions = 0;
    for (size_t i = 0, j; i < count; i = j) { /* one vertex: its corners, layer by layer */
        bool in_layer = false;
        for (j = i; j < count && cs[j].v == cs[i].v;) {
            double sum = 0;
            const uint32_t layer = cs[j].layer;
            for (; j < count && cs[j].v == cs[i].v && cs[j].layer == layer; ++j) sum += cs[j].angle;
            in_layer = in_layer || sum >= full;
        }
        ++*on_border;
        if (in_layer && !inside++) memcpy(where, ptl_navmesh_vert(nm, cs[i].v), 3 * sizeof *where);
        if (!in_layer && turn[cs[i].v] >= full) ++*junctions;
    }
    free(cs);
    free(turn);
    return inside;
}

/* One random operation on tc (as test_tilecache.c's: half adds up to 64 live, moves, removes) on a
   random walkable point of the original navmesh (q). */
static void random_op(ptl_tilecache* tc, ptl_query* q, live_obstacle* live, uint32_t* n, uint32_t* kinds, uint64_t* rng,
                      uint64_t* prng, const char* what) {
    const uint32_t r = (uint32_t)(rng_next(rng) % 10);
    ptl_location at;
    ptl_error err;
    cr_assert_eq(ptl_query_random_point(q, prng, &at), PTL_OK);
    if (*n < 6 || (r < 5 && *n < 64)) {
        live_obstacle* o = &live[*n];
        *o = make_obstacle((*kinds)++, at.point, rng);
        if (o->d.kind == PTL_OBSTACLE_PRISM) o->d.xz = o->xz;
        cr_assert_eq(ptl_tilecache_add(tc, &o->d, &o->ref, &err), PTL_OK, "%s: %s", what, err.message);
        ++*n;
    } else if (r < 8) {
        const uint32_t k = (uint32_t)(rng_next(rng) % *n);
        live_obstacle o = make_obstacle((*kinds)++, at.point, rng);
        o.ref = live[k].ref;
        live[k] = o;
        if (live[k].d.kind == PTL_OBSTACLE_PRISM) live[k].d.xz = live[k].xz;
        cr_assert_eq(ptl_tilecache_move(tc, live[k].ref, &live[k].d, &err), PTL_OK, "%s: %s", what, err.message);
    } else {
        const uint32_t k = (uint32_t)(rng_next(rng) % *n);
        cr_assert_eq(ptl_tilecache_remove(tc, live[k].ref, &err), PTL_OK, "%s: %s", what, err.message);
        live[k] = live[--*n];
        if (live[k].d.kind == PTL_OBSTACLE_PRISM) live[k].d.xz = live[k].xz;
    }
}

static void many_ops(const ptl_trimesh* m, uint32_t tile, uint64_t seed, const char* what) {
    const uint32_t ops = ops_wanted();
    const char* more = getenv("PTL_TILECACHE_SEED");
    seed += more && *more ? strtoull(more, NULL, 10) : 0;
    ptl_bake_desc d = ptl_bake_desc_defaults(), rd;
    d.tile_size = tile;
    ptl_bake_desc_resolve(&d, &rd);
    ptl_error err;
    void *ref, *cache;
    size_t ref_size, cache_size;
    ptl_bake_stats rs;
    cr_assert_eq(ptl_bake_trimesh(m, &d, &ref, &ref_size, &rs, &err), PTL_OK, "%s: %s", what, err.message);
    cr_assert_eq(ptl_tilecache_bake(m, &d, &cache, &cache_size, &err), PTL_OK, "%s: %s", what, err.message);
    ptl_tilecache* tc;
    cr_assert_eq(ptl_tilecache_create(cache, cache_size, NULL, &tc, &err), PTL_OK, "%s: %s", what, err.message);
    ptl_navmesh* nm = load(ref, ref_size, what);
    ptl_navmesh_info ri;
    ptl_navmesh_get_info(nm, &ri);
    const double side = (double)tile * rd.cell_size;
    const tile_grid g = {m->bmin[0], m->bmin[2], side, (uint32_t)ceil((m->bmax[0] - m->bmin[0]) / side - 1e-9),
                         (uint32_t)ceil((m->bmax[2] - m->bmin[2]) / side - 1e-9)};
    cr_expect(ri.tiles_x == g.nx && ri.tiles_z == g.nz && fabs(ri.tile_side - side) < 1e-4 &&
                  fabs(ri.tile_origin[0] - g.ox) < 1e-4 && fabs(ri.tile_origin[1] - g.oz) < 1e-4,
              "%s: the blob's tile grid (%u x %u of %.3f from %.3f, %.3f) is not the mesh's (%u x %u of %.3f)", what,
              ri.tiles_x, ri.tiles_z, ri.tile_side, ri.tile_origin[0], ri.tile_origin[1], g.nx, g.nz, side);
    {
        uint32_t ob, oj;
        float at0[3];
        const uint32_t in0 = inner_border_vertices(nm, &g, &ob, &oj, at0);
        cr_assert_eq(in0, 0u, "%s: the bake: %u vertices strictly inside on a tile border, one at (%.3f, %.3f, %.3f)", what, in0,
                     at0[0], at0[1], at0[2]);
    }
    ptl_query* q;
    cr_assert_eq(ptl_query_create(nm, NULL, &q), PTL_OK);
    live_obstacle live[64];
    uint32_t n = 0, kinds = 0, border_seen = 0, junctions_seen = 0, most = 0;
    uint64_t rng = seed, prng = seed ^ 0x9e3779b97f4a7c15ull;
    for (uint32_t op = 0; op < ops; ++op) {
        random_op(tc, q, live, &n, &kinds, &rng, &prng, what);
        update(tc, op % 5 == 4 ? 1 : 0); /* some updates a tile at a time */
        const void* blob;
        size_t size;
        ptl_tilecache_blob(tc, &blob, &size);
        ptl_navmesh* cur = load(blob, size, what); /* creates and validates */
        uint32_t on_border, junctions;
        float at[3];
        const uint32_t inside = inner_border_vertices(cur, &g, &on_border, &junctions, at);
        cr_assert_eq(inside, 0u, "%s: op %u (%u obstacles): %u vertices strictly inside the walkable area on a tile border, "
                                 "one at (%.3f, %.3f, %.3f)", what, op, n, inside, at[0], at[1], at[2]);
        border_seen += on_border, junctions_seen += junctions;
        most = n > most ? n : most;
        ptl_navmesh_destroy(cur);
    }
    /* the full bake of the world with the remaining obstacles as geometry */
    const ptl_bake_stats gs = geometry_bake(m, live, n, &d, what, NULL, NULL);
    ptl_tilecache_info info;
    ptl_tilecache_get_info(tc, &info);
    const double da = info.walkable_area / gs.walkable_area - 1, dc = (double)info.cells / gs.cells - 1;
    fprintf(stderr, "%s: %u ops (up to %u obstacles live, %u at the end; %u vertices on tile borders seen, none inside "
                    "a layer, %u inside the union of layers at a junction): "
                    "area %.2f vs geometry %.2f (%+.3f%%), cells %u vs %u (%+.1f%%)\n",
            what, ops, most, n, border_seen, junctions_seen, info.walkable_area, gs.walkable_area, 100 * da, info.cells, gs.cells, 100 * dc);
    cr_expect_leq(fabs(da), 0.005, "%s: walkable area %.2f vs %.2f with the obstacles as geometry", what,
                  info.walkable_area, gs.walkable_area);
    cr_expect_leq(fabs(dc), 0.05, "%s: %u cells vs %u with the obstacles as geometry", what, info.cells, gs.cells);
    /* everything removed: the original bake */
    for (uint32_t k = 0; k < n; ++k) cr_assert_eq(ptl_tilecache_remove(tc, live[k].ref, &err), PTL_OK);
    update(tc, 0);
    ptl_tilecache_get_info(tc, &info);
    cr_expect_eq(info.cells, rs.cells, "%s: %u cells once every obstacle is gone, the bake has %u", what, info.cells, rs.cells);
    cr_expect_eq(info.walkable_area, rs.walkable_area, "%s: area %.4f once every obstacle is gone, the bake's %.4f", what,
                 info.walkable_area, rs.walkable_area);
    const void* blob;
    size_t size;
    ptl_tilecache_blob(tc, &blob, &size);
    cr_expect(size == ref_size && memcmp(blob, ref, size) == 0, "%s: removing every obstacle did not give the bake's bytes", what);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    ptl_tilecache_destroy(tc);
    ptl_blob_free(cache, cache_size, NULL);
    ptl_blob_free(ref, ref_size, NULL);
}

static void shared_mesh(const char* name, uint64_t seed) {
    TEST_REQUIRE_DATA(data);
    char path[1024], what[96];
    snprintf(path, sizeof path, "%s/meshes/%s.obj", data, name);
    ptl_trimesh m;
    ptl_error err;
    cr_assert_geq(ptl_obj_load(path, NULL, &m, &err), 0, "%s", err.message);
    for (uint32_t tile = 32; tile <= 64; tile *= 2) {
        snprintf(what, sizeof what, "%s, tiles of %u", name, tile);
        many_ops(&m, tile, seed + tile, what);
    }
    ptl_trimesh_free(&m);
}

Test(tilecache_ops, random_obstacles_on_dungeon_keep_the_navmesh_valid_and_match_a_bake, .timeout = 1800) {
    shared_mesh("dungeon", 101);
}

Test(tilecache_ops, random_obstacles_on_nav_test_keep_the_navmesh_valid_and_match_a_bake, .timeout = 1800) {
    shared_mesh("nav_test", 202);
}

Test(tilecache_ops, random_obstacles_on_a_generated_building_keep_the_navmesh_valid_and_match_a_bake, .timeout = 1800) {
    ptl_scene_desc sd = ptl_scene_desc_defaults(); /* a 3-storey building: stairwells and ramps */
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&sd, &m, &err), PTL_OK, "%s", err.message);
    many_ops(&m, 32, 303, "generated building, tiles of 32");
    many_ops(&m, 64, 304, "generated building, tiles of 64");
    ptl_trimesh_free(&m);
}
