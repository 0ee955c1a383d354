/* Scale scenes, part 2: a grid map extruded into a 3D triangle mesh.

   Grid cell (x, y) is the square [x, x+1] x [y, y+1] of the map (DESIGN.md); in the world it is
   [x * s, (x+1) * s] x [y * s, (y+1) * s] in x-z at y = 0, s being the cell size (1 by default, so
   map (x, y) is world (x, 0, y) as for every other use of a .map). The mesh has:
   - a floor quad (2 triangles, facing +y) per free cell, tag "g floor";
   - a wall quad (2 triangles, vertical, from y = 0 to the wall height, facing the free cell) on
     every side of a free cell whose neighbour is blocked or outside the map, tag "g wall".
   Nothing covers blocked cells: no floor and no top. A top at the wall height would be a flat
   surface an agent could stand on (a 2 m wall is no taller than the default agent, so the bake
   would find a roof of walkable area over every blocked region); without it the 3D bake sees
   blocked regions as holes in the floor ringed by walls too high to climb, which is the grid's
   meaning. Floors are not merged into longer quads: one quad per free cell is what the scale
   tiled-bake benchmark uses (sc1/Aurora: about 1.1 million triangles).

   The mesh is indexed: a lattice point that any floor or wall touches has one vertex at y = 0,
   and one at the wall height if a wall ends there. Vertex ids: every floor-level vertex in lattice
   order (row by row, x fastest), then every top vertex in the same order. Triangles: floors in
   cell order, then walls in cell order (sides -z, +x, +z, -x of each cell). */
#include <portolan/gen.h>

#include <math.h>
#include <string.h>

#include "../runtime/internal.h"

#define COUNT_MAX 0x7fffffffull /* vertex and triangle counts stay below 2^31 (see gen_copies.c) */
#define EXTENT_MAX 1e7          /* [Units: wu] beyond this floats no longer hold a grid line to 1 mm */
#define NONE_ID 0xffffffffu

enum { TAG_FLOOR = 1, TAG_WALL = 2, TAG_COUNT = 3 };
static const char* const TAG_NAMES[TAG_COUNT] = {"", "g floor", "g wall"};

void ptl_extrude_desc_resolve(const ptl_extrude_desc* desc, ptl_extrude_desc* out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (desc) *out = *desc;
    if (out->cell_size == 0) out->cell_size = 1.0f;
    if (out->wall_height == 0) out->wall_height = 2.0f;
}

static bool is_free(const ptl_grid* g, int64_t x, int64_t y) {
    return x >= 0 && y >= 0 && x < (int64_t)g->width && y < (int64_t)g->height &&
           g->passable[(size_t)y * g->width + (size_t)x];
}

/* Sides of a cell: the neighbour's offset and the edge's two lattice corners (offsets from the
   cell's least corner), ordered so that the quad (b0, b1, t1, t0) faces into the cell. */
static const int SIDE[4][6] = {
    /* dx, dy, corner0 x, y, corner1 x, y */
    {0, -1, 0, 0, 1, 0}, /* -z: normal +z */
    {1, 0, 1, 0, 1, 1},  /* +x: normal -x */
    {0, 1, 1, 1, 0, 1},  /* +z: normal -z */
    {-1, 0, 0, 1, 0, 0}, /* -x: normal +x */
};

typedef struct counts {
    uint64_t free_cells, walls, bottoms, tops;
} counts;

/* Pass 1: marks the lattice points floors and walls use (bit 0: floor level, bit 1: top) and
   counts everything. `mark` has (w + 1) * (h + 1) zeroed entries. */
static void count(const ptl_grid* g, uint8_t* mark, counts* n) {
    const size_t lw = (size_t)g->width + 1;
    memset(n, 0, sizeof *n);
    for (uint32_t y = 0; y < g->height; ++y)
        for (uint32_t x = 0; x < g->width; ++x) {
            if (!g->passable[(size_t)y * g->width + x]) continue;
            ++n->free_cells;
            size_t p = (size_t)y * lw + x;
            mark[p] |= 1, mark[p + 1] |= 1, mark[p + lw] |= 1, mark[p + lw + 1] |= 1;
            for (int s = 0; s < 4; ++s) {
                if (is_free(g, (int64_t)x + SIDE[s][0], (int64_t)y + SIDE[s][1])) continue;
                ++n->walls;
                mark[(size_t)(y + SIDE[s][3]) * lw + x + SIDE[s][2]] |= 2;
                mark[(size_t)(y + SIDE[s][5]) * lw + x + SIDE[s][4]] |= 2;
            }
        }
    for (size_t p = 0; p < lw * ((size_t)g->height + 1); ++p) n->bottoms += mark[p] & 1, n->tops += mark[p] >> 1;
}

static ptl_status check(const ptl_grid* g, const ptl_extrude_desc* d, ptl_error* err) {
    if (!g) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_grid_extrude: the grid is NULL");
    if (g->width == 0 || g->height == 0 || !g->passable)
        return ptl_error_set(err, PTL_ERR_BAD_INPUT, "extrude: the grid is empty (%u x %u cells)", g->width, g->height);
    if (!(d->cell_size > 0) || !isfinite(d->cell_size))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "extrude: cell size %g must be a finite number > 0",
                             (double)d->cell_size);
    if (!(d->wall_height > 0) || !isfinite(d->wall_height))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "extrude: wall height %g must be a finite number > 0",
                             (double)d->wall_height);
    double side = (double)(g->width > g->height ? g->width : g->height) * d->cell_size;
    if (side > EXTENT_MAX || d->wall_height > EXTENT_MAX)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG,
                             "extrude: a %u x %u grid of %g m cells with %g m walls is larger than %g m", g->width,
                             g->height, (double)d->cell_size, (double)d->wall_height, EXTENT_MAX);
    return PTL_OK;
}

static ptl_status make_names(const ptl_allocator* a, char*** out) {
    char** names = ptl_mem_calloc(a, TAG_COUNT, sizeof *names);
    if (!names) return PTL_ERR_NO_MEMORY;
    for (int i = 0; i < TAG_COUNT; ++i) {
        size_t len = strlen(TAG_NAMES[i]) + 1;
        names[i] = ptl_mem_alloc(a, len);
        if (!names[i]) {
            for (int k = 0; k < i; ++k) ptl_mem_free(a, names[k], strlen(names[k]) + 1);
            ptl_mem_free(a, names, TAG_COUNT * sizeof *names);
            return PTL_ERR_NO_MEMORY;
        }
        memcpy(names[i], TAG_NAMES[i], len);
    }
    *out = names;
    return PTL_OK;
}

/* Pass 2: vertex ids replace the marks' bits (bottom id in `bot`, top id in `top`), vertices are
   written. */
static void place_vertices(const ptl_grid* g, const ptl_extrude_desc* d, const uint8_t* mark, uint64_t bottoms,
                           uint32_t* bot, uint32_t* top, float* v) {
    const size_t lw = (size_t)g->width + 1, np = lw * ((size_t)g->height + 1);
    uint32_t nb = 0, ntop = (uint32_t)bottoms;
    for (size_t p = 0; p < np; ++p) {
        bot[p] = top[p] = NONE_ID;
        float x = (float)((double)(p % lw) * d->cell_size), z = (float)((double)(p / lw) * d->cell_size);
        if (mark[p] & 1) {
            float* q = v + (size_t)nb * 3;
            q[0] = x, q[1] = 0.0f, q[2] = z;
            bot[p] = nb++;
        }
        if (mark[p] & 2) {
            float* q = v + (size_t)ntop * 3;
            q[0] = x, q[1] = d->wall_height, q[2] = z;
            top[p] = ntop++;
        }
    }
}

static uint32_t* quad(uint32_t* t, uint32_t a, uint32_t b, uint32_t c, uint32_t e) {
    t[0] = a, t[1] = b, t[2] = c;
    t[3] = a, t[4] = c, t[5] = e;
    return t + 6;
}

/* Pass 3: floors, then walls. */
static void place_triangles(const ptl_grid* g, const uint32_t* bot, const uint32_t* top, uint32_t* t, uint16_t* tg,
                            uint64_t free_cells, uint64_t walls) {
    const size_t lw = (size_t)g->width + 1;
    for (uint32_t y = 0; y < g->height; ++y)
        for (uint32_t x = 0; x < g->width; ++x) {
            if (!g->passable[(size_t)y * g->width + x]) continue;
            size_t p = (size_t)y * lw + x;
            /* (x, y), (x, y+1), (x+1, y+1), (x+1, y): counter-clockwise seen from +y */
            t = quad(t, bot[p], bot[p + lw], bot[p + lw + 1], bot[p + 1]);
        }
    for (uint32_t y = 0; y < g->height; ++y)
        for (uint32_t x = 0; x < g->width; ++x) {
            if (!g->passable[(size_t)y * g->width + x]) continue;
            for (int s = 0; s < 4; ++s) {
                if (is_free(g, (int64_t)x + SIDE[s][0], (int64_t)y + SIDE[s][1])) continue;
                size_t p0 = (size_t)(y + SIDE[s][3]) * lw + x + SIDE[s][2];
                size_t p1 = (size_t)(y + SIDE[s][5]) * lw + x + SIDE[s][4];
                t = quad(t, bot[p0], bot[p1], top[p1], top[p0]);
            }
        }
    for (uint64_t i = 0; i < 2 * free_cells; ++i) tg[i] = TAG_FLOOR;
    for (uint64_t i = 0; i < 2 * walls; ++i) tg[2 * free_cells + i] = TAG_WALL;
}

ptl_status ptl_grid_extrude(const ptl_grid* g, const ptl_extrude_desc* desc, ptl_trimesh* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_grid_extrude: out is NULL");
    memset(out, 0, sizeof *out);
    out->alloc = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    const ptl_allocator* a = &out->alloc;
    ptl_extrude_desc d;
    ptl_extrude_desc_resolve(desc, &d);
    ptl_status st = check(g, &d, err);
    if (st < 0) return st;

    const size_t np = ((size_t)g->width + 1) * ((size_t)g->height + 1);
    uint8_t* mark = ptl_mem_calloc(a, np, 1);
    if (!mark) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "extrude: out of memory for a %u x %u grid", g->width, g->height);
    counts n;
    count(g, mark, &n);
    const uint64_t nv64 = n.bottoms + n.tops, nt64 = 2 * (n.free_cells + n.walls);
    if (n.free_cells == 0) st = ptl_error_set(err, PTL_ERR_BAD_INPUT, "extrude: the grid has no free cell");
    else if (nv64 > COUNT_MAX || nt64 > COUNT_MAX)
        st = ptl_error_set(err, PTL_ERR_INVALID_ARG,
                           "extrude: the mesh would have %llu vertices and %llu triangles, more than 2^31 - 1",
                           (unsigned long long)nv64, (unsigned long long)nt64);
    if (st < 0) {
        ptl_mem_free(a, mark, np);
        return st;
    }
    const uint32_t nv = (uint32_t)nv64, nt = (uint32_t)nt64;
    uint32_t* bot = ptl_mem_alloc(a, np * sizeof *bot);
    uint32_t* top = ptl_mem_alloc(a, np * sizeof *top);
    float* v = ptl_mem_alloc(a, (size_t)nv * 3 * sizeof *v);
    uint32_t* t = ptl_mem_alloc(a, (size_t)nt * 3 * sizeof *t);
    uint16_t* tg = ptl_mem_alloc(a, (size_t)nt * sizeof *tg);
    char** names = NULL;
    if (bot && top && v && t && tg && make_names(a, &names) == PTL_OK) {
        place_vertices(g, &d, mark, n.bottoms, bot, top, v);
        place_triangles(g, bot, top, t, tg, n.free_cells, n.walls);
        out->vert_count = nv, out->verts = v;
        out->tri_count = nt, out->tris = t, out->tri_tag = tg;
        out->tag_count = TAG_COUNT, out->tag_names = names;
        /* Bounds of the used vertices: the free cells' box; y from 0 to the wall height when
           there is a wall, which there always is (the outermost free cells border the outside). */
        for (int c = 0; c < 3; ++c) out->bmin[c] = INFINITY, out->bmax[c] = -INFINITY;
        for (uint32_t i = 0; i < nv; ++i)
            for (int c = 0; c < 3; ++c) {
                float x = v[(size_t)i * 3 + c];
                if (x < out->bmin[c]) out->bmin[c] = x;
                if (x > out->bmax[c]) out->bmax[c] = x;
            }
        st = PTL_OK;
    } else {
        ptl_mem_free(a, v, (size_t)nv * 3 * sizeof *v);
        ptl_mem_free(a, t, (size_t)nt * 3 * sizeof *t);
        ptl_mem_free(a, tg, (size_t)nt * sizeof *tg);
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "extrude: out of memory for %u vertices and %u triangles", nv, nt);
    }
    ptl_mem_free(a, mark, np);
    ptl_mem_free(a, bot, np * sizeof *bot);
    ptl_mem_free(a, top, np * sizeof *top);
    return st < 0 ? st : ptl_error_ok(err);
}
