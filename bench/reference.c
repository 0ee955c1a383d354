/* Detour's answers as reference data for the tests (section `reference` of portolan-bench), and the
   Recast/Detour helpers the 3D bench shares with it.

   For every OBJ of DATA/meshes, Recast bakes a solo navmesh at its reference parameters
   (peer_params_reference: cell 0.3, cell height 0.2, agent 2.0, radius 0.6, climb 0.9, slope 45,
   edge 12, error 1.3, regions 8 and 20, 6 vertices per polygon, detail 6 and 1, ledge filter); then
   BENCH_PAIRS pairs of points are drawn uniformly by area on Detour's mesh (findRandomPoint fed by
   the peer's xorshift32, reset to BENCH_PAIR_SEED for every mesh, so the file is the same on every
   run) and each pair is answered by Detour (findNearestPoly with extents 2, 4, 2, findPath,
   findStraightPath). Output, in OUT_DIR:
   - <mesh>.csv: sx,sy,sz,ex,ey,ez,complete,length,plan_length (plan_length: the straight path's
     length in x-z; one row per pair; floats printed with 9
     significant digits, so they read back as the same floats);
   - areas.csv: mesh,recast_area,polygons,walkable_spans,triangles (Recast's polygon area in x-z,
     its polygon count, the walkable voxels of its compact heightfield after erosion, the input);
   The README next to them says the same for a reader of the data. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

void bench_reference_desc(ptl_bake_desc* d) {
    memset(d, 0, sizeof *d);
    d->cell_size = 0.3f;
    d->cell_height = 0.2f;
    d->agent_height = 2.0f;
    d->agent_radius = 0.6f;
    d->max_climb = 0.9f;
    d->max_slope = 45.0f;
}

int bench_recast_bake_trimesh(const ptl_trimesh* m, peer_mesh** out, peer_stats* st) {
    int* tris = malloc(sizeof(int) * 3 * ((size_t)m->tri_count + 1));
    if (!tris) {
        memset(st, 0, sizeof *st);
        snprintf(st->error, sizeof st->error, "bench: out of memory");
        return -1;
    }
    for (size_t i = 0; i < 3 * (size_t)m->tri_count; ++i) tris[i] = (int)m->tris[i];
    peer_params p;
    peer_params_reference(&p);
    int r = peer_bake_triangles(m->verts, (int)m->vert_count, tris, (int)m->tri_count, &p, out, st);
    free(tris);
    return r;
}

int bench_detour_pairs(peer_mesh* pm, uint32_t n, uint32_t seed, bench_pair* out) {
    peer_random_seed(seed);
    for (uint32_t i = 0; i < n; ++i) {
        bench_pair* p = &out[i];
        if (peer_random_point(pm, p->start) != 0 || peer_random_point(pm, p->goal) != 0) return -1;
        peer_path_result r;
        float pts[3 * 512];
        peer_path(pm, p->start, p->goal, NULL, pts, 512, &r);
        p->complete = r.complete;
        p->length = r.length;
        /* The route's length in plan (x-z): what both path finders minimise, whatever the heights. */
        p->plan_length = 0;
        uint32_t n = r.corners < 512 ? r.corners : 512;
        for (uint32_t k = 1; k < n; ++k)
            p->plan_length += hypot((double)pts[3 * k] - pts[3 * k - 3], (double)pts[3 * k + 2] - pts[3 * k - 1]);
    }
    return 0;
}

static int make_dir(const char* dir) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char* c = buf + 1; *c; ++c) {
        if (*c != '/') continue;
        *c = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *c = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* The mesh's name without ".obj". */
static void stem(const char* file, char* out, size_t cap) {
    snprintf(out, cap, "%s", file);
    size_t l = strlen(out);
    if (l > 4 && !strcmp(out + l - 4, ".obj")) out[l - 4] = 0;
}

int bench_reference_run(const char* data, const char* out_dir) {
    char** meshes = bench_list_meshes(data);
    if (!meshes || !meshes[0]) {
        fprintf(stderr, "portolan-bench: reference: no .obj in %s/meshes\n", data);
        bench_free_list(meshes);
        return 1;
    }
    if (make_dir(out_dir) != 0) {
        fprintf(stderr, "portolan-bench: reference: cannot create %s\n", out_dir);
        bench_free_list(meshes);
        return 1;
    }
    char path[2048];
    snprintf(path, sizeof path, "%s/areas.csv", out_dir);
    FILE* areas = fopen(path, "w");
    if (!areas) {
        fprintf(stderr, "portolan-bench: reference: cannot write %s\n", path);
        bench_free_list(meshes);
        return 1;
    }
    fprintf(areas, "mesh,recast_area,polygons,walkable_spans,triangles\n");
    bench_pair* pairs = calloc(BENCH_PAIRS, sizeof *pairs);
    int rc = 0;
    for (char** f = meshes; *f && pairs; ++f) {
        char name[256];
        stem(*f, name, sizeof name);
        snprintf(path, sizeof path, "%s/meshes/%s", data, *f);
        ptl_trimesh m;
        ptl_error err;
        if (ptl_obj_load(path, NULL, &m, &err) < 0) {
            fprintf(stderr, "portolan-bench: reference: %s\n", err.message);
            rc = 1;
            continue;
        }
        peer_mesh* pm = NULL;
        peer_stats st;
        if (bench_recast_bake_trimesh(&m, &pm, &st) != 0) {
            fprintf(stderr, "portolan-bench: reference: Recast on %s: %s\n", *f, st.error);
            ptl_trimesh_free(&m);
            rc = 1;
            continue;
        }
        fprintf(areas, "%s,%.6f,%u,%u,%u\n", name, st.walkable_area, st.polygons, st.walkable_spans, m.tri_count);
        if (bench_detour_pairs(pm, BENCH_PAIRS, BENCH_PAIR_SEED, pairs) != 0) {
            fprintf(stderr, "portolan-bench: reference: %s: Detour drew no random point\n", *f);
            rc = 1;
        } else {
            snprintf(path, sizeof path, "%s/%s.csv", out_dir, name);
            FILE* csv = fopen(path, "w");
            if (!csv) {
                fprintf(stderr, "portolan-bench: reference: cannot write %s\n", path);
                rc = 1;
            } else {
                uint32_t complete = 0;
                fprintf(csv, "sx,sy,sz,ex,ey,ez,complete,length,plan_length\n");
                for (uint32_t i = 0; i < BENCH_PAIRS; ++i) {
                    const bench_pair* p = &pairs[i];
                    fprintf(csv, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%.6f,%.6f\n", p->start[0], p->start[1],
                            p->start[2], p->goal[0], p->goal[1], p->goal[2], p->complete ? 1 : 0, p->length,
                            p->plan_length);
                    complete += p->complete;
                }
                fclose(csv);
                fprintf(stderr, "reference: %-32s %4u polygons, area %9.2f, %4u of %u pairs complete\n", name,
                        st.polygons, st.walkable_area, complete, BENCH_PAIRS);
            }
        }
        peer_free(pm);
        ptl_trimesh_free(&m);
    }
    fclose(areas);
    free(pairs);
    bench_free_list(meshes);
    return rc;
}
