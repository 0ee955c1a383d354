/* Stairs: generated flights of many shapes are baked and climbed from the ground to the top.

   Every scene is built here from boxes (tests/mesh_builder.h), so where the walkable surface is
   is known exactly: the path must be found and complete, end on the top landing, and every point
   of it (and every 5 cm along its segments) must lie within 0.5 m of the input triangles
   (a brute-force point-to-triangle distance over the whole scene). Flights: free-standing with
   open sides (solid steps and floating treads), between stairwell walls, rising through an
   opening in the floor above, turning by 90 degrees on a landing and switching back; rises of
   0.1 to 0.2 m and runs of 0.25 to 0.6 m, with the scene's origin on and off the voxel lattice
   so that risers fall on and between column boundaries. Each is baked at radius 0 and at
   Recast's reference radius 0.6.

   Where Debian's librecast-dev is present (PTL_HAVE_RECAST: premake5.lua looks for it) the same
   scenes go through Recast/Detour at the reference parameters (bench/peer_recast.cpp) in the same
   run: the table on stderr puts both answers side by side, and wherever Detour climbs a flight at
   radius 0.6 we must too. */
#include <criterion/criterion.h>
#include <math.h>
#include <portolan/bake.h>
#include <portolan/runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "mesh_builder.h"
#include "test_util.h"

#ifdef PTL_HAVE_RECAST
#include "../bench/peer_recast.h"
#endif

/* A closed box with every face counter-clockwise seen from outside (the top faces +y, so it is
   walkable where it is level; mesh_builder.h's box() is an obstacle whose winding does not matter). */
static void solid(mesh_builder* b, float x0, float y0, float z0, float x1, float y1, float z1) {
    uint32_t v[8];
    for (int i = 0; i < 8; ++i) v[i] = vert(b, i & 1 ? x1 : x0, i & 2 ? y1 : y0, i & 4 ? z1 : z0);
    /* each face's corners counter-clockwise seen from outside: -x, +x, -y, +y, -z, +z */
    const int f[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (int k = 0; k < 6; ++k) {
        tri(b, v[f[k][0]], v[f[k][1]], v[f[k][2]]);
        tri(b, v[f[k][0]], v[f[k][2]], v[f[k][3]]);
    }
}

typedef struct stair_scene {
    char name[96];
    mesh_builder mb;
    float start[3], goal[3];
} stair_scene;

/* ---- Scenes ----------------------------------------------------------------------------------------*/

/* The ground: a 0.2 m slab whose top is at y = oy, covering [x0, x1] x [z0, z1]. */
static void ground(stair_scene* s, float x0, float z0, float x1, float z1, float oy) {
    solid(&s->mb, x0, oy - 0.2f, z0, x1, oy, z1);
}

/* A straight flight of n steps rising along +z from (x0, oy, z0), w wide: step i covers
   z0 + i run .. z0 + (i + 1) run and its tread is at oy + (i + 1) rise. Solid steps stand on the
   ground; floating treads are `rise` thick (open below). */
static void flight_z(stair_scene* s, float x0, float z0, float oy, float w, int n, float rise, float run, bool floating) {
    for (int i = 0; i < n; ++i) {
        float top = oy + (float)(i + 1) * rise, bot = floating ? top - rise : oy;
        solid(&s->mb, x0, bot, z0 + (float)i * run, x0 + w, top, z0 + (float)(i + 1) * run);
    }
}

/* The same along +x from (x0, oy, z0), w wide in z. */
static void flight_x(stair_scene* s, float x0, float z0, float oy, float w, int n, float rise, float run) {
    for (int i = 0; i < n; ++i)
        solid(&s->mb, x0 + (float)i * run, oy, z0, x0 + (float)(i + 1) * run, oy + (float)(i + 1) * rise, z0 + w);
}

/* Free-standing: a flight with open sides on a ground slab, and a solid landing at its top (4 m
   deep, as wide as the flight, open sides too), goal in the landing's middle. */
static void scene_free(stair_scene* s, float rise, float run, int n, float w, bool floating, float ox, float oz, float oy) {
    snprintf(s->name, sizeof s->name, "free %s rise %.2f run %.2f n %d w %.1f at (%.2f,%.2f,%.2f)",
             floating ? "treads" : "solid", rise, run, n, w, ox, oz, oy);
    float len = (float)n * run, top = oy + (float)n * rise;
    ground(s, ox - 5, oz - 5, ox + w + 5, oz + len + 9, oy);
    flight_z(s, ox, oz, oy, w, n, rise, run, floating);
    solid(&s->mb, ox, oy, oz + len, ox + w, top, oz + len + 4);
    s->start[0] = ox + 0.5f * w, s->start[1] = oy, s->start[2] = oz - 2.5f;
    s->goal[0] = ox + 0.5f * w, s->goal[1] = top, s->goal[2] = oz + len + 2;
}

/* A stairwell: the flight between two walls 2.8 m high above its top, the walls running on along
   the upper landing (a slab at the top height behind the flight), goal on that landing. */
static void scene_well(stair_scene* s, float rise, float run, int n, float w, float ox, float oz) {
    snprintf(s->name, sizeof s->name, "stairwell rise %.2f run %.2f n %d w %.1f at (%.2f,%.2f)", rise, run, n, w, ox, oz);
    float len = (float)n * run, top = (float)n * rise;
    ground(s, ox - 5, oz - 5, ox + w + 5, oz + len + 8, 0);
    flight_z(s, ox, oz, 0, w, n, rise, run, false);
    solid(&s->mb, ox - 0.2f, 0, oz, ox, top + 2.8f, oz + len + 4);
    solid(&s->mb, ox + w, 0, oz, ox + w + 0.2f, top + 2.8f, oz + len + 4);
    solid(&s->mb, ox, top - 0.25f, oz + len, ox + w, top, oz + len + 4);
    s->start[0] = ox + 0.5f * w, s->start[1] = 0, s->start[2] = oz - 2.5f;
    s->goal[0] = ox + 0.5f * w, s->goal[1] = top, s->goal[2] = oz + len + 2;
}

/* A storey: the flight rises from the ground floor through an opening in the upper floor's slab
   (0.25 m thick, its top level with the top tread), the opening over the whole flight and open
   at its far end onto the upper floor; goal on the upper floor beyond the flight. The slab runs
   along both sides of the flight, so the last steps have the upper floor beside them within a
   climb. */
static void scene_storey(stair_scene* s, float rise, float run, int n, float w, float ox, float oz) {
    snprintf(s->name, sizeof s->name, "through opening rise %.3f run %.2f n %d w %.1f at (%.2f,%.2f)", rise, run, n, w, ox,
             oz);
    float len = (float)n * run, top = (float)n * rise, t = 0.25f;
    ground(s, ox - 6, oz - 6, ox + w + 6, oz + len + 6, 0);
    flight_z(s, ox, oz, 0, w, n - 1, rise, run, false); /* the n-th rise is the step onto the slab */
    solid(&s->mb, ox - 6, top - t, oz - 6, ox + w + 6, top, oz); /* in front of the opening */
    solid(&s->mb, ox - 6, top - t, oz, ox, top, oz + len);       /* beside it */
    solid(&s->mb, ox + w, top - t, oz, ox + w + 6, top, oz + len);
    solid(&s->mb, ox - 6, top - t, oz + len - run, ox + w + 6, top, oz + len + 6); /* beyond it */
    s->start[0] = ox + 0.5f * w, s->start[1] = 0, s->start[2] = oz - 3;
    s->goal[0] = ox + 0.5f * w, s->goal[1] = top, s->goal[2] = oz + len + 3;
}

/* Turning: n steps along +z, a square landing, n more along +x from the landing's side, a top
   landing; all free-standing. */
static void scene_turn(stair_scene* s, float rise, float run, int n, float w, float ox, float oz) {
    snprintf(s->name, sizeof s->name, "turning rise %.2f run %.2f 2x%d w %.1f at (%.2f,%.2f)", rise, run, n, w, ox, oz);
    float len = (float)n * run, mid = (float)n * rise, top = 2 * mid;
    ground(s, ox - 5, oz - 5, ox + w + len + 9, oz + len + w + 5, 0);
    flight_z(s, ox, oz, 0, w, n, rise, run, false);
    solid(&s->mb, ox, 0, oz + len, ox + w, mid, oz + len + w); /* the landing */
    flight_x(s, ox + w, oz + len, mid, w, n, rise, run);
    solid(&s->mb, ox + w, 0, oz + len, ox + w + len, mid, oz + len + w); /* under the upper flight */
    solid(&s->mb, ox + w + len, 0, oz + len, ox + w + len + 4, top, oz + len + w);
    s->start[0] = ox + 0.5f * w, s->start[1] = 0, s->start[2] = oz - 2.5f;
    s->goal[0] = ox + w + len + 2, s->goal[1] = top, s->goal[2] = oz + len + 0.5f * w;
}

/* Switchback: n steps along +z in lane A, a landing across both lanes, n steps on from the
   landing back along -z in lane B (beside lane A, solid down to the ground), a top landing at the
   end of lane B. */
static void scene_switchback(stair_scene* s, float rise, float run, int n, float w, float ox, float oz) {
    snprintf(s->name, sizeof s->name, "switchback rise %.2f run %.2f 2x%d w %.1f at (%.2f,%.2f)", rise, run, n, w, ox, oz);
    float len = (float)n * run, mid = (float)n * rise, top = 2 * mid;
    ground(s, ox - 5, oz - 9, ox + 2 * w + 5, oz + len + w + 5, 0);
    flight_z(s, ox, oz, 0, w, n, rise, run, false);
    solid(&s->mb, ox, 0, oz + len, ox + 2 * w, mid, oz + len + w); /* the landing */
    for (int i = 0; i < n; ++i) /* lane B, from the landing back towards -z */
        solid(&s->mb, ox + w, 0, oz + len - (float)(i + 1) * run, ox + 2 * w, mid + (float)(i + 1) * rise,
            oz + len - (float)i * run);
    solid(&s->mb, ox + w, 0, oz - 4, ox + 2 * w, top, oz); /* the top landing */
    s->start[0] = ox + 0.5f * w, s->start[1] = 0, s->start[2] = oz - 2.5f;
    s->goal[0] = ox + 1.5f * w, s->goal[1] = top, s->goal[2] = oz - 2;
}

/* ---- Checks ----------------------------------------------------------------------------------------*/

/* Distance from p to the scene's triangles (brute force). */
static double surface_dist(const mesh_builder* mb, const double* p) {
    double best = INFINITY;
    for (uint32_t t = 0; t < mb->nt; ++t)
        best = fmin(best, test_point_triangle_dist(p, &mb->v[3 * mb->t[3 * t]], &mb->v[3 * mb->t[3 * t + 1]],
                                                   &mb->v[3 * mb->t[3 * t + 2]]));
    return best;
}

typedef struct climb_result {
    bool found, complete;
    double length, worst; /* worst: largest distance of a path sample from the input surface */
    double descent;       /* the path's height lost on the way, summed (a climb loses none) */
    float end[3];
} climb_result;

/* Bakes the scene at `radius` and finds the path from start to goal; checks nothing. */
static void climb(stair_scene* s, float radius, climb_result* out) {
    memset(out, 0, sizeof *out);
    ptl_trimesh m = as_trimesh(&s->mb);
    ptl_bake_desc d = {.agent_radius = radius};
    void* blob = NULL;
    size_t size = 0;
    ptl_error err;
    ptl_status st = ptl_bake_trimesh(&m, &d, &blob, &size, NULL, &err);
    cr_assert(st >= 0, "%s r %.1f: bake failed: %s", s->name, radius, err.message);
    ptl_navmesh* nm;
    cr_assert(ptl_navmesh_create(blob, size, NULL, &nm, &err) >= 0, "%s: %s", s->name, err.message);
    ptl_blob_free(blob, size, NULL);
    ptl_query* q;
    cr_assert(ptl_query_create(nm, NULL, &q) >= 0);
    float pts[3 * 512];
    ptl_path_request req = {.mode = PTL_PATH_EXACT};
    memcpy(req.start, s->start, sizeof req.start);
    memcpy(req.goal, s->goal, sizeof req.goal);
    req.extents[0] = 0.5f, req.extents[1] = 1.0f, req.extents[2] = 0.5f;
    req.follow_surface = true; /* the samples below check the polyline against the input surface */
    ptl_path_result res = {.points = pts, .point_capacity = 512};
    ptl_query_find_path(q, &req, &res);
    out->found = res.found, out->complete = res.complete, out->length = res.length;
    if (res.point_count > 0) memcpy(out->end, &pts[3 * (res.point_count - 1)], sizeof out->end);
    if (getenv("PTL_STAIRS_DUMP")) { /* debugging: the scene as OBJ and the path's points */
        char fn[128];
        snprintf(fn, sizeof fn, "stairs %s.obj", s->name);
        FILE* f = fopen(fn, "w");
        for (uint32_t i = 0; f && i < s->mb.nv; ++i) fprintf(f, "v %g %g %g\n", s->mb.v[3 * i], s->mb.v[3 * i + 1], s->mb.v[3 * i + 2]);
        for (uint32_t i = 0; f && i < s->mb.nt; ++i) fprintf(f, "f %u %u %u\n", s->mb.t[3 * i] + 1, s->mb.t[3 * i + 1] + 1, s->mb.t[3 * i + 2] + 1);
        if (f) fclose(f);
    }
    if (getenv("PTL_STAIRS_DUMP"))
        for (uint32_t i = 0; i < res.point_count; ++i)
            fprintf(stderr, "  %s r %.1f point %u: %.3f %.3f %.3f\n", s->name, radius, i, pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
    for (uint32_t i = 0; i < res.point_count; ++i) {
        const float* a = &pts[3 * i];
        const float* b = i + 1 < res.point_count ? &pts[3 * (i + 1)] : a;
        if (b[1] < a[1]) out->descent += a[1] - b[1];
        double l = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
        int k = (int)ceil(l / 0.05);
        for (int j = 0; j <= k; ++j) {
            double t = k ? (double)j / k : 0, p[3];
            for (int c = 0; c < 3; ++c) p[c] = a[c] + t * (b[c] - a[c]);
            out->worst = fmax(out->worst, surface_dist(&s->mb, p));
        }
    }
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
}

/* Detour's answer on the same scene at the reference parameters (radius 0.6): 1 complete, 0 not,
   -1 no peer. */
static int detour_climbs(stair_scene* s, double* length) {
#ifdef PTL_HAVE_RECAST
    int* tris = malloc(sizeof(int) * 3 * s->mb.nt);
    for (uint32_t i = 0; i < 3 * s->mb.nt; ++i) tris[i] = (int)s->mb.t[i];
    peer_mesh* pm = NULL;
    peer_stats ps;
    int ok = peer_bake_triangles(s->mb.v, (int)s->mb.nv, tris, (int)s->mb.nt, NULL, &pm, &ps);
    free(tris);
    if (ok != 0) return 0;
    float ext[3] = {0.5f, 1.0f, 0.5f};
    peer_path_result r;
    peer_path(pm, s->start, s->goal, ext, NULL, 0, &r);
    peer_free(pm);
    *length = r.length;
    return r.complete ? 1 : 0;
#else
    (void)s, (void)length;
    return -1;
#endif
}

/* Climbs the scene at radius 0 and 0.6 and checks both; prints one line with Detour beside. */
static void check_climbs(stair_scene* s) {
    double dl = 0;
    int dt = detour_climbs(s, &dl);
    for (int k = 0; k < 2; ++k) {
        float r = k ? 0.6f : 0.0f;
        climb_result c;
        climb(s, r, &c);
        fprintf(stderr, "stairs: %-62s r %.1f: %s length %6.2f, worst %.2f m off the surface, descends %.2f m", s->name,
                r, c.complete ? "climbs" : "CUT   ", c.length, c.worst, c.descent);
        if (k == 1 && dt >= 0) fprintf(stderr, "; Detour %s %6.2f", dt ? "climbs" : "cut   ", dl);
        fprintf(stderr, "\n");
        cr_expect(c.found && c.complete, "%s, radius %.1f: the top is not reached (path found %d)", s->name, r, c.found);
        if (!c.complete) continue;
        cr_expect(fabsf(c.end[1] - s->goal[1]) <= 0.5f, "%s, radius %.1f: the path ends at y %.2f, the top is at %.2f",
                  s->name, r, c.end[1], s->goal[1]);
        cr_expect(c.worst <= 0.5, "%s, radius %.1f: a point of the path is %.2f m from the input surface", s->name, r,
                  c.worst);
        /* every scene only climbs from start to goal: a path whose heights dip (to the ground beside
           a flight, under a landing) has taken them from the wrong floor */
        cr_expect(c.descent <= 0.3, "%s, radius %.1f: the path descends %.2f m on its way up", s->name, r, c.descent);
    }
}

/* ---- Tests -----------------------------------------------------------------------------------------*/

static const float RISES[] = {0.1f, 0.15f, 0.2f};
static const float RUNS[] = {0.25f, 0.3f, 0.4f, 0.6f};
/* Origins: on the voxel lattice (0), and off it in x, z and y by fractions of a cell. */
static const float OFFS[][3] = {{0, 0, 0}, {0.137f, 0.071f, 0.05f}, {-0.41f, 0.23f, 0.13f}};

Test(stairs, free_standing_flights_climb_to_the_top_at_every_rise_run_and_offset, .timeout = 240) {
    for (size_t i = 0; i < sizeof RISES / sizeof RISES[0]; ++i)
        for (size_t j = 0; j < sizeof RUNS / sizeof RUNS[0]; ++j)
            for (size_t o = 0; o < sizeof OFFS / sizeof OFFS[0]; ++o) {
                if (o == 2 && j % 2) continue; /* the last offset on half the runs: enough variety, half the time */
                static stair_scene s;
                memset(&s, 0, sizeof s);
                int n = (int)lroundf(3.2f / RISES[i]) < 24 ? (int)lroundf(3.2f / RISES[i]) : 24;
                scene_free(&s, RISES[i], RUNS[j], n, 3.0f, false, OFFS[o][0], OFFS[o][2], OFFS[o][1]);
                check_climbs(&s);
            }
}

Test(stairs, floating_treads_climb_like_solid_steps, .timeout = 120) {
    for (size_t i = 0; i < sizeof RISES / sizeof RISES[0]; ++i)
        for (size_t o = 0; o < 2; ++o) {
            static stair_scene s;
            memset(&s, 0, sizeof s);
            scene_free(&s, RISES[i], 0.3f, 16, 3.0f, true, OFFS[o][0], OFFS[o][2], OFFS[o][1]);
            check_climbs(&s);
        }
}

Test(stairs, flights_between_stairwell_walls_climb, .timeout = 120) {
    for (size_t i = 0; i < sizeof RISES / sizeof RISES[0]; ++i)
        for (size_t o = 0; o < 2; ++o) {
            static stair_scene s;
            memset(&s, 0, sizeof s);
            scene_well(&s, RISES[i], 0.3f, 16, 2.1f, OFFS[o][0], OFFS[o][2]);
            check_climbs(&s);
        }
}

/* The upper floor's slab beside the last steps is a climbable step up from them, while the step
   behind is one lower: Recast's steep-slope rule took such a step's edge columns for a slope, and
   the erosion then took whole rows of a 2.1 m flight (bake/voxel/filter.c, rule 3). */
Test(stairs, flights_through_an_opening_in_the_floor_above_reach_the_upper_floor, .timeout = 120) {
    const float widths[] = {2.1f, 3.0f};
    for (size_t w = 0; w < 2; ++w)
        for (size_t o = 0; o < 3; ++o) {
            static stair_scene s;
            memset(&s, 0, sizeof s);
            scene_storey(&s, 0.1875f, 0.3f, 16, widths[w], OFFS[o][0], OFFS[o][2]);
            check_climbs(&s);
        }
}

Test(stairs, turning_and_switchback_flights_climb, .timeout = 120) {
    for (size_t o = 0; o < 2; ++o) {
        static stair_scene s;
        memset(&s, 0, sizeof s);
        scene_turn(&s, 0.2f, 0.3f, 8, 2.4f, OFFS[o][0], OFFS[o][2]);
        check_climbs(&s);
        memset(&s, 0, sizeof s);
        scene_switchback(&s, 0.15f, 0.3f, 10, 2.4f, OFFS[o][0], OFFS[o][2]);
        check_climbs(&s);
    }
}
