/* Generated grid scenes. The PRNG is splitmix64, so a desc gives the same map on every machine. */
#include <stdio.h>
#include <string.h>

#include <portolan/gen.h>

#include "../runtime/internal.h"

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng* r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint32_t below(rng* r, uint32_t n) { return n ? (uint32_t)(next(r) % n) : 0; }
static double unit(rng* r) { return (double)(next(r) >> 11) * (1.0 / 9007199254740992.0); }

static void fill(ptl_grid* g, long x0, long y0, long x1, long y1, uint8_t v) {
    for (long y = y0; y < y1; ++y)
        for (long x = x0; x < x1; ++x)
            if (x >= 0 && y >= 0 && x < (long)g->width && y < (long)g->height) g->passable[(size_t)y * g->width + x] = v;
}

/* Rooms on a jittered lattice, walls with doors, pillars and round obstacles in the rooms, a
   staircase diagonal wall, and a few blocked cells touching only at corners (pinches). */
static void rooms(ptl_grid* g, rng* r) {
    uint32_t w = g->width, h = g->height;
    fill(g, 0, 0, w, h, 1);
    uint32_t room = w < 64 || h < 64 ? 8 : 24;
    for (uint32_t y = room; y + 2 < h; y += room) {
        fill(g, 0, y, w, y + 1, 0);
        for (uint32_t x = 0; x < w; x += room) {
            uint32_t door = x + 2 + below(r, room - 6); /* a door of 2 or 3 cells in each room's wall */
            fill(g, door, y, door + 2 + below(r, 2), y + 1, 1);
        }
    }
    for (uint32_t x = room; x + 2 < w; x += room) {
        for (uint32_t y = 0; y < h; y += room) {
            if (below(r, 5) == 0) continue; /* some rooms merge into halls */
            fill(g, x, y, x + 1, y + room, 0);
            uint32_t door = y + 2 + below(r, room - 6);
            fill(g, x, door, x + 1, door + 2 + below(r, 2), 1);
        }
    }
    uint32_t things = w * h / 400;
    for (uint32_t i = 0; i < things; ++i) {
        long cx = below(r, w), cy = below(r, h);
        switch (below(r, 4)) {
        case 0: fill(g, cx, cy, cx + 2, cy + 2, 0); break; /* pillar */
        case 1: {                                        /* round obstacle */
            double rad = 1.5 + 3 * unit(r);
            for (long y = (long)(cy - rad); y <= (long)(cy + rad); ++y)
                for (long x = (long)(cx - rad); x <= (long)(cx + rad); ++x)
                    if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= rad * rad) fill(g, x, y, x + 1, y + 1, 0);
            break;
        }
        case 2: /* staircase wall */
            for (long k = 0; k < 6 + (long)below(r, 8); ++k) fill(g, cx + k, cy + k, cx + k + 2, cy + k + 1, 0);
            break;
        default: /* two blocked cells touching at a corner: a pinch */
            fill(g, cx, cy, cx + 1, cy + 1, 0);
            fill(g, cx + 1, cy + 1, cx + 2, cy + 2, 0);
            break;
        }
    }
}

ptl_status ptl_grid_generate(const ptl_grid_gen_desc* desc, ptl_grid* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_grid_generate: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_grid_gen_desc d;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.width == 0) d.width = 256;
    if (d.height == 0) d.height = 256;
    if (!(d.density > 0)) d.density = 0.25f;
    if (d.width < 8 || d.height < 8 || d.width > 65536 || d.height > 65536 || (uint64_t)d.width * d.height > (1u << 28))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "generate: size %ux%u is outside 8..65536 (at most 2^28 cells)",
                             d.width, d.height);
    if (!(d.density <= 0.9f)) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "generate: density must be in 0..0.9");
    if (d.scene != PTL_GRID_SCENE_ROOMS && d.scene != PTL_GRID_SCENE_RANDOM)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "generate: unknown scene %d", (int)d.scene);
    out->alloc = ptl_allocator_resolve(d.alloc);
    out->width = d.width;
    out->height = d.height;
    out->passable = ptl_mem_alloc(&out->alloc, (size_t)d.width * d.height);
    if (!out->passable) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "generate: out of memory");
    rng r = {((uint64_t)d.seed << 32) ^ 0x50544c4eull};
    if (d.scene == PTL_GRID_SCENE_ROOMS) {
        rooms(out, &r);
    } else {
        for (size_t i = 0; i < (size_t)d.width * d.height; ++i) out->passable[i] = unit(&r) >= d.density;
    }
    return ptl_error_ok(err);
}

ptl_status ptl_grid_save(const ptl_grid* g, const char* path, ptl_error* err) {
    if (!g || !path) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_grid_save: NULL argument");
    FILE* f = fopen(path, "w");
    if (!f) return ptl_error_set(err, PTL_ERR_IO, "%s: cannot open for writing", path);
    fprintf(f, "type octile\nheight %u\nwidth %u\nmap\n", g->height, g->width);
    for (uint32_t y = 0; y < g->height; ++y) {
        for (uint32_t x = 0; x < g->width; ++x) fputc(g->passable[(size_t)y * g->width + x] ? '.' : '@', f);
        fputc('\n', f);
    }
    bool failed = ferror(f) != 0; /* a write that failed before the last flush */
    if (fclose(f) != 0 || failed) return ptl_error_set(err, PTL_ERR_IO, "%s: write failed", path);
    return ptl_error_ok(err);
}
