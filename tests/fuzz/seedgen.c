/* Writes the seed corpora that cannot be plain files of ../shared/data: navmesh blobs (2D and 3D,
   with and without hubs), parts of tiled bakes (concatenated, as fuzz_merge reads them; tile caches) and the
   byte encodings of small grids that fuzz_pipeline_grid decodes. Deterministic.
   Usage: seedgen OUT_DIR [DATA_DIR]   (writes OUT_DIR/{blob,merge,pipeline_grid}/...) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <portolan/bake.h>
#include <portolan/gen.h>
#include <portolan/tilecache.h>

static const char* out_dir;

static void write_file(const char* sub, const char* name, const void* data, size_t size) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", out_dir, sub);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, sub, name);
    FILE* f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) fprintf(stderr, "seedgen: cannot write %s\n", path);
    if (f) fclose(f);
}

/* fuzz_pipeline_grid's encoding: width - 1, height - 1, flags, then one bit per cell (1: blocked),
   row-major, then query bytes (none here: the target derives its queries from the map then). */
static void write_grid_seed(const ptl_grid* g, const char* name) {
    if (g->width > 32 || g->height > 32) return;
    uint8_t b[3 + 128] = {(uint8_t)(g->width - 1), (uint8_t)(g->height - 1), 0};
    for (uint32_t i = 0; i < g->width * g->height; ++i)
        if (!g->passable[i]) b[3 + i / 8] |= (uint8_t)(1u << (i % 8));
    write_file("pipeline_grid", name, b, 3 + (g->width * g->height + 7) / 8);
}

static void write_grid_blobs(const ptl_grid* g, const char* name) {
    ptl_shape s;
    ptl_error err;
    if (ptl_shape_from_grid(g, NULL, &s, &err) < 0) return;
    /* Hub sections grow fast with the map: large seeds slow every execution. */
    uint32_t max_hubs = g->width * g->height <= 512 ? 2 : 1;
    /* Off-mesh links (blob version 6): a two-way link from the first free square's centre to the
       last's and a one-way link back, for the third blob of each grid. */
    ptl_offmesh_desc links[2];
    uint32_t first = PTL_NONE, last = PTL_NONE;
    for (uint32_t i = 0; i < g->width * g->height; ++i)
        if (g->passable[i]) last = i, first = first == PTL_NONE ? i : first;
    for (int k = 0; k < 2 && first != PTL_NONE; ++k) {
        const uint32_t a = k ? last : first, c = k ? first : last;
        links[k] = (ptl_offmesh_desc){.start = {(float)(a % g->width) + 0.5f, 0, (float)(a / g->width) + 0.5f},
                                      .end = {(float)(c % g->width) + 0.5f, 0, (float)(c / g->width) + 0.5f},
                                      .radius = 0.25f, .bidir = k == 0, .cost = k ? 1.0f : 0};
    }
    for (uint32_t hubs = 0; hubs < max_hubs + (first != PTL_NONE); ++hubs) {
        const bool with_links = hubs == max_hubs;
        ptl_bake_desc d = {.hubs = with_links ? false : hubs, .offmesh = with_links ? links : NULL,
                           .offmesh_count = with_links ? 2 : 0};
        void* blob;
        size_t size;
        if (ptl_bake_shape(&s, &d, &blob, &size, NULL, &err) < 0) {
            fprintf(stderr, "seedgen: %s: %s\n", name, err.message);
            continue;
        }
        char file[256];
        snprintf(file, sizeof file, "%s%s.ptl", name, with_links ? "-offmesh" : hubs ? "-hubs" : "");
        write_file("blob", file, blob, size);
        ptl_blob_free(blob, size, NULL);
    }
    ptl_shape_free(&s);
}

static void write_trimesh_seeds(const ptl_trimesh* m, const char* name) {
    ptl_error err;
    void* blob;
    size_t size;
    char file[256];
    if (ptl_bake_trimesh(m, NULL, &blob, &size, NULL, &err) >= 0) {
        snprintf(file, sizeof file, "%s.ptl", name);
        write_file("blob", file, blob, size);
        ptl_blob_free(blob, size, NULL);
    }
    /* Parts of a tiled bake: one part per row of tiles, concatenated (the whole set merges), and
       the whole range in one part. */
    ptl_bake_desc d = {.tile_size = 16};
    uint32_t all[4] = {0, 0, 1u << 16, 1u << 16}, tiles[2] = {0, 0};
    void* part;
    size_t psize;
    if (ptl_bake_trimesh_part(m, &d, all, &part, &psize, tiles, &err) < 0) {
        fprintf(stderr, "seedgen: %s parts: %s\n", name, err.message);
        return;
    }
    snprintf(file, sizeof file, "%s-whole.part", name);
    write_file("merge", file, part, psize);
    ptl_blob_free(part, psize, NULL);
    /* the same tiles as a tile cache stores them (packed: tilecache_pack.c) */
    if (ptl_tilecache_bake(m, &d, &part, &psize, &err) >= 0) {
        snprintf(file, sizeof file, "%s.ptc", name);
        write_file("merge", file, part, psize);
        ptl_blob_free(part, psize, NULL);
    }
    if (tiles[1] > 8) return;
    uint8_t* cat = NULL;
    size_t cat_size = 0;
    for (uint32_t z = 0; z < tiles[1]; ++z) {
        uint32_t row[4] = {0, z, tiles[0] - 1, z};
        if (ptl_bake_trimesh_part(m, &d, row, &part, &psize, NULL, &err) < 0) break;
        uint8_t* grown = realloc(cat, cat_size + psize);
        if (!grown) break;
        cat = grown;
        memcpy(cat + cat_size, part, psize);
        cat_size += psize;
        ptl_blob_free(part, psize, NULL);
    }
    snprintf(file, sizeof file, "%s-rows.part", name);
    write_file("merge", file, cat, cat_size);
    free(cat);
}

/* fuzz_pipeline_poly's encoding of polygons given in eighths: count - 1, then per polygon n - 3
   and x, y, jitter (0x88: none) per vertex. */
static void write_poly_seeds(void) {
    static const uint8_t square_hole[] = {1, 1, 0, 0, 0x88, 160, 0, 0x88, 160, 160, 0x88, 0, 160, 0x88,
                                          1, 40, 40, 0x88, 40, 100, 0x88, 100, 100, 0x88, 100, 40, 0x88};
    static const uint8_t comb[] = {0, 5, 0, 0, 0x88, 200, 0, 0x88, 200, 80, 0x88, 150, 80, 0x88, 150, 20, 0x88,
                                   100, 80, 0x88, 50, 20, 0x88, 0, 80, 0x88};
    static const uint8_t overlap[] = {2, 1, 0, 0, 0x88, 120, 0, 0x88, 120, 120, 0x88, 0, 120, 0x88,
                                      0, 60, 60, 0x89, 200, 60, 0x88, 60, 200, 0x98,
                                      0, 10, 10, 0x88, 30, 10, 0x88, 10, 30, 0x77};
    static const uint8_t pinch[] = {1, 1, 0, 0, 0x88, 80, 0, 0x88, 80, 80, 0x88, 0, 80, 0x88,
                                    1, 80, 80, 0x88, 160, 80, 0x88, 160, 160, 0x88, 80, 160, 0x88, 8, 8, 150, 150};
    write_file("pipeline_poly", "square_hole", square_hole, sizeof square_hole);
    write_file("pipeline_poly", "comb", comb, sizeof comb);
    write_file("pipeline_poly", "overlap", overlap, sizeof overlap);
    write_file("pipeline_poly", "pinch", pinch, sizeof pinch);
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: seedgen OUT_DIR [DATA_DIR]\n");
        return 2;
    }
    out_dir = argv[1];
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "seedgen: cannot create %s\n", out_dir);
        return 1;
    }
    ptl_error err;
    write_poly_seeds();
    static const struct { ptl_grid_scene scene; uint32_t w, h, seed; float density; } gens[] = {
        {PTL_GRID_SCENE_RANDOM, 8, 8, 1, 0.25f},  {PTL_GRID_SCENE_RANDOM, 16, 16, 2, 0.25f},
        {PTL_GRID_SCENE_RANDOM, 32, 32, 3, 0.05f}, {PTL_GRID_SCENE_RANDOM, 32, 20, 4, 0.1f},
        {PTL_GRID_SCENE_ROOMS, 32, 32, 5, 0},     {PTL_GRID_SCENE_ROOMS, 24, 16, 6, 0},
    };
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; ++i) {
        ptl_grid_gen_desc gd = {.scene = gens[i].scene, .width = gens[i].w, .height = gens[i].h, .seed = gens[i].seed,
                                .density = gens[i].density};
        ptl_grid g;
        if (ptl_grid_generate(&gd, &g, &err) < 0) continue;
        char name[64];
        snprintf(name, sizeof name, "gen%zu-%ux%u", i, g.width, g.height);
        write_grid_seed(&g, name);
        write_grid_blobs(&g, name);
        if (i == 1) {
            /* A small extruded grid: a 3D mesh whose tiled bake has a few tiles. */
            ptl_trimesh m;
            if (ptl_grid_extrude(&g, NULL, &m, &err) >= 0) {
                write_trimesh_seeds(&m, "extruded16");
                ptl_trimesh_free(&m);
            }
        }
        ptl_grid_free(&g);
    }
    if (argc > 2) {
        static const char* maps[] = {"hard", "hardmap-1", "hardmap-2", "hardmap-3", "hardmap-5", "hardmap-6", "hardmap-7"};
        for (size_t i = 0; i < sizeof maps / sizeof maps[0]; ++i) {
            char path[1024];
            snprintf(path, sizeof path, "%s/polyanya/gridmaps/%s.map", argv[2], maps[i]);
            ptl_grid g;
            if (ptl_grid_load(path, NULL, &g, &err) < 0) continue;
            write_grid_seed(&g, maps[i]);
            write_grid_blobs(&g, maps[i]);
            ptl_grid_free(&g);
        }
        static const char* meshes[] = {"bridge", "convex", "go-detour-stair2", "go-detour-stair3"};
        for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; ++i) {
            char path[1024];
            snprintf(path, sizeof path, "%s/meshes/%s.obj", argv[2], meshes[i]);
            ptl_trimesh m;
            if (ptl_obj_load(path, NULL, &m, &err) < 0) continue;
            write_trimesh_seeds(&m, meshes[i]);
            ptl_trimesh_free(&m);
        }
        static const char* polymeshes[] = {"tests/square", "tests/hard", "arena-merged"};
        for (size_t i = 0; i < sizeof polymeshes / sizeof polymeshes[0]; ++i) {
            char path[1024];
            snprintf(path, sizeof path, "%s/polyanya/meshes/%s.mesh", argv[2], polymeshes[i]);
            ptl_shape s;
            if (ptl_mesh2d_load(path, NULL, &s, &err) < 0) continue;
            void* blob;
            size_t size;
            if (ptl_bake_shape(&s, NULL, &blob, &size, NULL, &err) >= 0) {
                char name[128];
                snprintf(name, sizeof name, "mesh-%s.ptl", strrchr(polymeshes[i], '/') ? strrchr(polymeshes[i], '/') + 1 : polymeshes[i]);
                write_file("blob", name, blob, size);
                ptl_blob_free(blob, size, NULL);
            }
            ptl_shape_free(&s);
        }
    }
    return 0;
}
