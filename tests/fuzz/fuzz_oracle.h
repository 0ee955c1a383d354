/* The path oracle of the whole-pipeline targets: a brute-force test of free space (the caller's
   `inside`) checked along every path, and the properties every pair of answers must have. */
#ifndef PTL_FUZZ_ORACLE_H
#define PTL_FUZZ_ORACLE_H

#include "fuzz_common.h"

#define FUZZ_PATH_POINTS 1024u
#define FUZZ_WALL_EPS 1e-4      /* [Units: wu] how deep a sample may go into a wall (float rounding) */
#define FUZZ_SAMPLES_PER_WU 64.0

/* 1 when the 2D point (x, y) is within eps of free space (closed), 0 when it is not. */
typedef int (*fuzz_inside_fn)(const void* space, double x, double y, double eps);

typedef struct fuzz_answer {
    ptl_status status;
    ptl_path_result res;
    float pts[3 * FUZZ_PATH_POINTS];
    float at[2][3]; /* where start and goal were located (ptl_query_locate); NaN when not found */
} fuzz_answer;

static inline void fuzz_ask(ptl_query* q, const float s[2], const float g[2], ptl_path_mode mode, fuzz_answer* a) {
    ptl_path_request req = {.start = {s[0], 0, s[1]}, .goal = {g[0], 0, g[1]}, .mode = mode};
    memset(&a->res, 0, sizeof a->res);
    a->res.points = a->pts;
    a->res.point_capacity = FUZZ_PATH_POINTS;
    a->status = ptl_query_find_path(q, &req, &a->res);
    const float* ends[2] = {req.start, req.goal};
    for (int e = 0; e < 2; ++e) {
        ptl_location loc;
        if (ptl_query_locate(q, ends[e], NULL, &loc) >= 0) memcpy(a->at[e], loc.point, sizeof loc.point);
        else a->at[e][0] = a->at[e][1] = a->at[e][2] = NAN;
    }
}

/* One answer on its own: a known status; for a path, its length is its polyline's, at least the
   straight line, it starts and ends at the query points when they are on the mesh, and no sample
   of it is in a wall. `pinch_ambiguous`: a point where regions touch at a single point may be
   not found (any navmesh but a grid's, runtime.h). `keep_margin`: how deep inside free space a
   point must be for the path to keep it (a rounded input may lose a sliver of free space thinner
   than that, within the readers' area tolerance, bake.h; 0 for exact inputs). */
static inline bool fuzz_deep_inside(fuzz_inside_fn inside, const void* space, double x, double y, double m) {
    return inside(space, x, y, 0) &&
           (m == 0 || (inside(space, x - m, y, 0) && inside(space, x + m, y, 0) && inside(space, x, y - m, 0) &&
                       inside(space, x, y + m, 0)));
}

static inline void fuzz_check_answer(const fuzz_answer* a, const float s[2], const float g[2], fuzz_inside_fn inside,
                                     const void* space, bool pinch_ambiguous, double keep_margin, const char* what) {
    const ptl_path_result* r = &a->res;
    ptl_status st = a->status;
    if (st != PTL_OK && st != PTL_PARTIAL && st != PTL_TRUNCATED && st != PTL_ERR_NOT_FOUND && st != PTL_ERR_OUT_OF_NODES)
        fuzz_fail("%s: find_path (%g,%g)->(%g,%g) returned %s", what, s[0], s[1], g[0], g[1], ptl_status_name(st));
    int s_on = inside(space, s[0], s[1], 0), g_on = inside(space, g[0], g[1], 0);
    if (st == PTL_ERR_NOT_FOUND && s_on && g_on && !pinch_ambiguous)
        fuzz_fail("%s: start (%g,%g) and goal (%g,%g) are on the mesh but not found", what, s[0], s[1], g[0], g[1]);
    if (st < 0 || !r->found || r->point_count != r->point_total || r->point_count == 0) return;
    const float* p = a->pts;
    uint32_t n = r->point_count;
    double sum = 0;
    for (uint32_t i = 0; i + 1 < n; ++i) {
        const float* u = p + 3 * i;
        const float* v = u + 3;
        double dx = v[0] - u[0], dy = v[1] - u[1], dz = v[2] - u[2], len = sqrt(dx * dx + dy * dy + dz * dz);
        sum += len;
        int samples = (int)ceil(len * FUZZ_SAMPLES_PER_WU) + 1;
        for (int k = 0; k <= samples; ++k) {
            double t = (double)k / samples, x = u[0] + t * (v[0] - u[0]), z = u[2] + t * (v[2] - u[2]);
            if (!inside(space, x, z, FUZZ_WALL_EPS))
                fuzz_fail("%s: path (%g,%g)->(%g,%g): segment %u (%g,%g)-(%g,%g) enters a wall at (%g,%g)", what, s[0],
                          s[1], g[0], g[1], i, u[0], u[2], v[0], v[2], x, z);
        }
    }
    double tol = 1e-4 * (1.0 + r->length);
    if (fabs(sum - r->length) > tol)
        fuzz_fail("%s: path (%g,%g)->(%g,%g): length %.9g but its points add up to %.9g", what, s[0], s[1], g[0], g[1],
                  r->length, sum);
    const float* e = p + 3 * (n - 1);
    double line = hypot(e[0] - p[0], e[2] - p[2]);
    if (r->length < line - tol)
        fuzz_fail("%s: path (%g,%g)->(%g,%g): length %.9g below the straight line %.9g", what, s[0], s[1], g[0], g[1],
                  r->length, line);
    /* A point already on the mesh is kept as is (runtime.h, ptl_query_find_path), up to the location
       tolerance: a point within 1e-6 of the mesh's coordinate scale of a vertex or an edge is put
       on it (runtime/locate.c). The decoded maps and polygons lie within 64 units of the origin. */
    double keep = 1e-5 * (1.0 + fabs(s[0]) + fabs(s[1]) + fabs(g[0]) + fabs(g[1])) + 2e-6 * 64;
    if (fuzz_deep_inside(inside, space, s[0], s[1], keep_margin) && hypot(p[0] - s[0], p[2] - s[1]) > keep)
        fuzz_fail("%s: start (%g,%g) is on the mesh but the path starts at (%g,%g)", what, s[0], s[1], p[0], p[2]);
    if (fuzz_deep_inside(inside, space, g[0], g[1], keep_margin) && hypot(e[0] - g[0], e[2] - g[1]) > keep)
        fuzz_fail("%s: goal (%g,%g) is on the mesh but the path ends at (%g,%g)", what, g[0], g[1], e[0], e[2]);
}

/* Two answers to the same question on the same free space: the same reachability and, for two
   exact answers, the same length (within 1e-4 relative); `b` no shorter than `a` otherwise. */
static inline void fuzz_compare(const fuzz_answer* a, const fuzz_answer* b, bool equal, const float s[2],
                                const float g[2], const char* what) {
    if (a->status == PTL_ERR_OUT_OF_NODES || b->status == PTL_ERR_OUT_OF_NODES) return;
    /* A point off the mesh nearly as near to two pieces of it (within the location tolerance) may
       snap to either: the tie rule compares each cell's nearest point, and two decompositions of the
       same walls offer different points (a corner of one cell, the inside of another's edge). Two
       answers that located an end at different points answer different questions. */
    for (int e = 0; e < 2; ++e)
        if (!(hypot(a->at[e][0] - b->at[e][0], a->at[e][2] - b->at[e][2]) <= 1e-5) &&
            !(isnan(a->at[e][0]) && isnan(b->at[e][0])))
            return;
    bool fa = a->status >= 0 && a->res.found, fb = b->status >= 0 && b->res.found;
    if (fa != fb || (a->status == PTL_ERR_NOT_FOUND) != (b->status == PTL_ERR_NOT_FOUND))
        fuzz_fail("%s: (%g,%g)->(%g,%g): %s found=%d, the other %s found=%d", what, s[0], s[1], g[0], g[1],
                  ptl_status_name(a->status), fa, ptl_status_name(b->status), fb);
    if (!fa) return;
    /* A point off the mesh may have several nearest points (a tie), and two meshes of the same
       free space may pick different ones: then the paths answer different questions. */
    if (a->res.point_count && b->res.point_count) {
        const float *pa = a->pts, *pb = b->pts, *ea = pa + 3 * (a->res.point_count - 1), *eb = pb + 3 * (b->res.point_count - 1);
        if (hypot(pa[0] - pb[0], pa[2] - pb[2]) > 1e-5 || hypot(ea[0] - eb[0], ea[2] - eb[2]) > 1e-5) return;
    }
    double la = a->res.length, lb = b->res.length, tol = 1e-4 * (la > 1 ? la : 1);
    if (equal ? fabs(la - lb) > tol : lb < la - tol)
        fuzz_fail("%s: (%g,%g)->(%g,%g): lengths %.9g and %.9g", what, s[0], s[1], g[0], g[1], la, lb);
}

#endif
