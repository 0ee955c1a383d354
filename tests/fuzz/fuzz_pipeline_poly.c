/* The whole 2D pipeline on a few small polygons decoded from the input: written as a Polyanya poly
   v1 text (ptl_poly_parse decides what is acceptable), baked without and with hub labels, both
   blobs validated, then path queries checked against a brute-force oracle (fuzz_oracle.h) on the
   polygons as given: free space is where an odd number of them overlap (poly v1's symmetric
   difference). Coordinates on a 1/8 lattice in 0 .. 32, each moved by up to 8e-5 (near-collinear
   and nearly coincident vertices, as in meshes exported by games).
   Input: polygon count - 1 (mod 4), then per polygon: vertex count - 3 (mod 10), and 3 bytes per
   vertex: x * 8, y * 8, jitter (low and high nibble: (k - 8) * 1e-5 on x and y); then 4 bytes per
   query (at most 8): x * 8 + 8 and y * 8 + 8 of start and goal. No query bytes: queries between
   vertices and points of the bounds chosen from the input's hash. */
#include "fuzz_oracle.h"

#define MAX_POLYS 4
#define MAX_POLY_VERTS 12

typedef struct poly_space {
    uint32_t count;
    uint32_t n[MAX_POLYS];
    double xy[MAX_POLYS][2 * MAX_POLY_VERTS];
} poly_space;

static double seg_dist(double x, double y, const double* a, const double* b) {
    double dx = b[0] - a[0], dy = b[1] - a[1], l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((x - a[0]) * dx + (y - a[1]) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(a[0] + t * dx - x, a[1] + t * dy - y);
}

/* Within eps of a boundary, or inside an odd number of polygons. */
/* Parity of the polygons' symmetric difference at (x, y), boundaries not counted. */
static int poly_parity(const poly_space* ps, double x, double y) {
    int odd = 0;
    for (uint32_t k = 0; k < ps->count; ++k) {
        const double* v = ps->xy[k];
        uint32_t n = ps->n[k];
        bool in = false;
        for (uint32_t i = 0, j = n - 1; i < n; j = i++) {
            double yi = v[2 * i + 1], yj = v[2 * j + 1];
            if ((yi > y) != (yj > y) && x < (v[2 * j] - v[2 * i]) * (y - yi) / (yj - yi) + v[2 * i]) in = !in;
        }
        odd ^= in;
    }
    return odd;
}

/* In free space, or on its boundary (within eps of an edge with free space beside it: an edge that
   the symmetric difference cancels, free on neither side, is no part of the mesh). Beside each
   edge within eps, samples steps along it either way, growing four times from r (or an eighth of a
   shorter edge), and a millionth of r to either side, so that a sharp corner's thin wedge of free
   space is found too. */
static int poly_inside(const void* space, double x, double y, double eps) {
    const poly_space* ps = space;
    if (poly_parity(ps, x, y)) return 1;
    const double r = eps > 1e-6 ? eps : 1e-6; /* the decoded polygons lie within 64 units of the origin */
    for (uint32_t k = 0; k < ps->count; ++k) {
        const double* v = ps->xy[k];
        for (uint32_t i = 0, j = ps->n[k] - 1; i < ps->n[k]; j = i++) {
            const double *a = v + 2 * j, *b = v + 2 * i;
            if (seg_dist(x, y, a, b) > eps) continue;
            double dx = b[0] - a[0], dy = b[1] - a[1], len = hypot(dx, dy);
            if (!(len > 0)) continue;
            double ux = dx / len, uy = dy / len, t = ((x - a[0]) * ux + (y - a[1]) * uy);
            t = t < 0 ? 0 : t > len ? len : t;
            double cx = a[0] + t * ux, cy = a[1] + t * uy;
            /* steps of 4 times more along the edge, from an eighth of a short edge or r: a needle's
               wedge is wider farther in, and a polygon smaller than r is inside within its size */
            for (double step = len / 8 < r ? len / 8 : r; step <= len + r; step *= 4)
                for (int along = -1; along <= 1; along += 2)
                    for (int side = -1; side <= 1; side += 2) {
                        double qx = cx + along * step * ux - side * 1e-6 * r * uy;
                        double qy = cy + along * step * uy + side * 1e-6 * r * ux;
                        if (poly_parity(ps, qx, qy)) return 1;
                    }
        }
    }
    return 0;
}

/* Within `eps` of the inside of an edge, and not within it of the edge's ends: a query point there
   may sit on either side of an obstacle thinner than the runtime's location tolerance (1e-6 of the
   coordinate scale), and two bakes of the same walls may put it on different sides. */
static bool near_edge_inside(const poly_space* ps, double x, double y, double eps) {
    for (uint32_t k = 0; k < ps->count; ++k) {
        const double* v = ps->xy[k];
        for (uint32_t i = 0, j = ps->n[k] - 1; i < ps->n[k]; j = i++) {
            const double *a = v + 2 * j, *b = v + 2 * i;
            if (hypot(x - a[0], y - a[1]) <= eps || hypot(x - b[0], y - b[1]) <= eps) continue;
            if (seg_dist(x, y, a, b) <= eps) return true;
        }
    }
    return false;
}

/* Within `eps` of two distinct vertices: a corner where features thinner than the location
   tolerance meet (slivers of free space between polygons, a pinch point beside a ring's corner). A
   point there snaps to the nearest feature of the cell the runtime finds first within the
   tolerance, and two decompositions of the same walls cut the slivers into different cells: one
   bake may put the point on a pinch vertex (ambiguous, PTL_ERR_NOT_FOUND) where the other puts it
   in a sliver (stop 29's pipeline_poly finding, regress/pipeline_poly/exact-with-hubs-...). */
static bool near_vertex_cluster(const poly_space* ps, double x, double y, double eps) {
    double first[2] = {NAN, NAN};
    for (uint32_t k = 0; k < ps->count; ++k)
        for (uint32_t i = 0; i < ps->n[k]; ++i) {
            const double* a = ps->xy[k] + 2 * i;
            if (hypot(x - a[0], y - a[1]) > eps) continue;
            if (isnan(first[0])) first[0] = a[0], first[1] = a[1];
            else if (a[0] != first[0] || a[1] != first[1]) return true;
        }
    return false;
}

static ptl_status bake(const ptl_shape* s, uint32_t hubs, void** blob, size_t* size, ptl_navmesh** nm, ptl_query** q) {
    ptl_bake_desc d = {.hubs = hubs};
    ptl_error err = {0};
    ptl_status st = ptl_bake_shape(s, &d, blob, size, NULL, &err);
    if (st == PTL_ERR_INTERNAL) fuzz_fail("poly: the bake failed (hubs %u): %s", hubs, err.message);
    if (st < 0) return st;
    fuzz_check_blob_valid(*blob, *size, hubs ? "poly bake with hubs" : "poly bake");
    if (ptl_navmesh_create(*blob, *size, NULL, nm, &err) < 0) fuzz_fail("poly: %s", err.message);
    /* the old default pool, which these oracles were tuned on (the default now follows the navmesh) */
    if (ptl_query_create(*nm, &(ptl_query_desc){.max_nodes = 65536}, q) < 0) fuzz_fail("poly: no query object");
    return PTL_OK;
}

static fuzz_answer ans[3];

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    static poly_space ps;
    memset(&ps, 0, sizeof ps);
    size_t at = 1;
    ps.count = data[0] % MAX_POLYS + 1u;
    char text[MAX_POLYS * MAX_POLY_VERTS * 64 + 64];
    int len = snprintf(text, sizeof text, "poly\n1\n%u\n", ps.count);
    for (uint32_t k = 0; k < ps.count; ++k) {
        if (at >= size) return 0;
        uint32_t n = data[at++] % 10u + 3u;
        if (at + 3 * (size_t)n > size) return 0;
        ps.n[k] = n;
        len += snprintf(text + len, sizeof text - (size_t)len, "%u", n);
        for (uint32_t i = 0; i < n; ++i, at += 3) {
            ps.xy[k][2 * i] = data[at] / 8.0 + ((data[at + 2] & 15) - 8) * 1e-5;
            ps.xy[k][2 * i + 1] = data[at + 1] / 8.0 + ((data[at + 2] >> 4) - 8) * 1e-5;
            len += snprintf(text + len, sizeof text - (size_t)len, " %.17g %.17g", ps.xy[k][2 * i], ps.xy[k][2 * i + 1]);
        }
        len += snprintf(text + len, sizeof text - (size_t)len, "\n");
    }
    fuzz_dump(text, (size_t)len);
    ptl_shape s;
    ptl_error err = {0};
    if (ptl_poly_parse(text, (size_t)len, "fuzz.poly", NULL, &s, &err) < 0) return 0;
    if (ptl_shape_validate(&s, &err) < 0) fuzz_fail("poly: the reader returned an invalid shape: %s", err.message);
    void *b0 = NULL, *b1 = NULL;
    size_t z0 = 0, z1 = 0;
    ptl_navmesh *nm0 = NULL, *nm1 = NULL;
    ptl_query *q0 = NULL, *q1 = NULL;
    if (bake(&s, 0, &b0, &z0, &nm0, &q0) < 0 || bake(&s, 1, &b1, &z1, &nm1, &q1) < 0) goto done;

    uint64_t rng = ptl_hash64(PTL_HASH_BASIS, data, size);
    for (int k = 0; k < 8; ++k) {
        float st[2], go[2];
        if (at + 4 <= size) {
            st[0] = data[at] / 8.0f - 1, st[1] = data[at + 1] / 8.0f - 1;
            go[0] = data[at + 2] / 8.0f - 1, go[1] = data[at + 3] / 8.0f - 1;
            at += 4;
        } else if (at < size || k >= 4) {
            break;
        } else {
            /* A vertex of a polygon, or a point in the lattice's square. */
            float* pts[2] = {st, go};
            for (int e = 0; e < 2; ++e) {
                uint64_t r = fuzz_next(&rng);
                uint32_t poly = (uint32_t)(r % ps.count), v = (uint32_t)((r >> 8) % ps.n[poly]);
                if (r >> 40 & 1u) {
                    pts[e][0] = (float)ps.xy[poly][2 * v], pts[e][1] = (float)ps.xy[poly][2 * v + 1];
                } else {
                    pts[e][0] = (float)(((r >> 16) & 255) / 8.0), pts[e][1] = (float)(((r >> 24) & 255) / 8.0);
                }
            }
        }
        fuzz_ask(q0, st, go, PTL_PATH_EXACT, &ans[0]);
        fuzz_ask(q1, st, go, PTL_PATH_EXACT, &ans[1]);
        fuzz_ask(q0, st, go, PTL_PATH_CORRIDOR, &ans[2]);
        static const char* names[3] = {"exact", "exact with hubs", "corridor"};
        for (int i = 0; i < 3; ++i) fuzz_check_answer(&ans[i], st, go, poly_inside, &ps, true, 1e-4, names[i]);
        /* the decoded polygons lie within 64 units of the origin: the location tolerance is at most 6.4e-5 */
        if (near_edge_inside(&ps, st[0], st[1], 6.4e-5) || near_edge_inside(&ps, go[0], go[1], 6.4e-5) ||
            near_vertex_cluster(&ps, st[0], st[1], 6.4e-5) || near_vertex_cluster(&ps, go[0], go[1], 6.4e-5))
            continue;
        fuzz_compare(&ans[0], &ans[1], true, st, go, "exact without and with hubs");
        fuzz_compare(&ans[0], &ans[2], false, st, go, "exact and corridor");
    }
done:
    ptl_query_destroy(q0);
    ptl_query_destroy(q1);
    ptl_navmesh_destroy(nm0);
    ptl_navmesh_destroy(nm1);
    if (b0) ptl_blob_free(b0, z0, NULL);
    if (b1) ptl_blob_free(b1, z1, NULL);
    ptl_shape_free(&s);
    return 0;
}
