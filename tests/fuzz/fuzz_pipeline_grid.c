/* The whole 2D pipeline on a small grid map decoded from the input: shape, bake without and with
   hub labels, validation of both blobs, then path queries checked against a brute-force oracle on
   the grid squares (fuzz_oracle.h): no sample of a path in a blocked cell or outside the map, no
   squeezing through a pinch (two blocked cells touching at a corner), length at least the straight
   line, exact with hubs equal to exact without, corridor no shorter than exact; and paths of radius
   0.25, 0.5 or 1, exact and corridor, keeping it from every blocked square (runtime/disc_path.c,
   disc_funnel.c), the corridor found wherever exact is and never shorter.
   Input: width - 1, height - 1 (each mod 32), flags (bit 0: lids on the bake without hubs), one
   bit per cell (1: blocked, row-major; missing bytes: free), then 8 bytes per query (at most 8):
   x and y of start and goal, each an integer byte (-1 .. width + 1) and a fraction byte (0 .. 159:
   k / 160; 160 .. 255: (k - 208) micrometres, points just off the lattice lines). No query bytes:
   queries between cell corners and centres chosen from the input's hash. */
#include "fuzz_oracle.h"

typedef struct grid_space {
    uint32_t w, h;
    const uint8_t* blocked; /* w * h */
} grid_space;

static int blocked_at(const grid_space* g, long x, long y) {
    return x < 0 || y < 0 || x >= (long)g->w || y >= (long)g->h || g->blocked[(size_t)y * g->w + (size_t)x];
}

/* Within eps of the closed square of a free cell. */
static int grid_inside(const void* space, double x, double y, double eps) {
    const grid_space* g = space;
    for (long cy = (long)floor(y - eps) - 1; cy <= (long)floor(y + eps); ++cy)
        for (long cx = (long)floor(x - eps) - 1; cx <= (long)floor(x + eps); ++cx)
            if (!blocked_at(g, cx, cy) && x >= cx - eps && x <= cx + 1 + eps && y >= cy - eps && y <= cy + 1 + eps) return 1;
    return 0;
}

/* The free quadrant around lattice point (px, py) that (x, y) lies in (closed), for a pinch whose
   free quadrants are qa and qb (0: x-y-, 1: x+y-, 2: x-y+, 3: x+y+); -1: neither. */
static int pinch_side(double x, double y, long px, long py, int qa, int qb) {
    for (int k = 0; k < 2; ++k) {
        int q = k ? qb : qa;
        bool xok = (q & 1) ? x >= px : x <= px, yok = (q & 2) ? y >= py : y <= py;
        if (xok && yok && !(x == px && y == py)) return q;
    }
    return -1;
}

/* A point `d` along the polyline from parameter (segment i, t), d < 0 going back; clamped. */
static void walk(const float* p, uint32_t n, uint32_t i, double t, double d, double out[2]) {
    double x = p[3 * i] + t * (p[3 * i + 3] - p[3 * i]), y = p[3 * i + 2] + t * (p[3 * i + 5] - p[3 * i + 2]);
    int dir = d < 0 ? -1 : 1;
    double left = fabs(d);
    long j = (long)i;
    while (left > 0) {
        double tx = dir > 0 ? p[3 * (j + 1)] : p[3 * j], ty = dir > 0 ? p[3 * (j + 1) + 2] : p[3 * j + 2];
        double len = hypot(tx - x, ty - y);
        if (len >= left) {
            x += (tx - x) * left / len, y += (ty - y) * left / len;
            break;
        }
        x = tx, y = ty, left -= len;
        j += dir;
        if (j < 0 || j + 1 >= (long)n) break;
    }
    out[0] = x, out[1] = y;
}

/* Paths may not squeeze between two blocked cells that touch only at a corner (DESIGN.md). */
static void check_pinches(const grid_space* g, const fuzz_answer* a, const char* what) {
    if (a->status < 0 || !a->res.found || a->res.point_count != a->res.point_total) return;
    const float* p = a->pts;
    uint32_t n = a->res.point_count;
    for (long py = 1; py < (long)g->h; ++py)
        for (long px = 1; px < (long)g->w; ++px) {
            int b0 = blocked_at(g, px - 1, py - 1), b1 = blocked_at(g, px, py - 1), b2 = blocked_at(g, px - 1, py),
                b3 = blocked_at(g, px, py);
            int qa, qb;
            if (b0 && b3 && !b1 && !b2) qa = 1, qb = 2;
            else if (b1 && b2 && !b0 && !b3) qa = 0, qb = 3;
            else continue;
            for (uint32_t i = 0; i + 1 < n; ++i) {
                double ux = p[3 * i], uy = p[3 * i + 2], vx = p[3 * i + 3], vy = p[3 * i + 5];
                double dx = vx - ux, dy = vy - uy, l2 = dx * dx + dy * dy;
                double t = l2 > 0 ? ((px - ux) * dx + (py - uy) * dy) / l2 : 0;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                if (hypot(ux + t * dx - px, uy + t * dy - py) > 1e-6) continue;
                double before[2], after[2];
                walk(p, n, i, t, -0.05, before);
                walk(p, n, i, t, 0.05, after);
                int sb = pinch_side(before[0], before[1], px, py, qa, qb), sa = pinch_side(after[0], after[1], px, py, qa, qb);
                if (sb >= 0 && sa >= 0 && sb != sa)
                    fuzz_fail("%s: the path squeezes through the pinch at (%ld,%ld)", what, px, py);
            }
        }
}

/* Distance from (x, y) to the nearest blocked square (cells outside the map are blocked), looked
   for within `reach`. */
static double grid_clearance(const grid_space* g, double x, double y, double reach) {
    double best = reach;
    long r = (long)ceil(reach) + 1;
    for (long cy = (long)floor(y) - r; cy <= (long)floor(y) + r; ++cy)
        for (long cx = (long)floor(x) - r; cx <= (long)floor(x) + r; ++cx) {
            if (!blocked_at(g, cx, cy)) continue;
            double dx = x < cx ? cx - x : x > cx + 1 ? x - cx - 1 : 0, dy = y < cy ? cy - y : y > cy + 1 ? y - cy - 1 : 0;
            best = fmin(best, sqrt(dx * dx + dy * dy));
        }
    return best;
}

/* A path of radius r: a known status; for a path or a partial path, every sample of it keeps r
   (less the wall tolerance) from every blocked square, and when both ends keep r themselves (and so are not
   moved), it starts and ends where the radius-0 path does and is no shorter. The corridor mode
   (after the exact one, whose answer is kept in *exact) is found wherever exact is, never shorter. */
static void check_disc(ptl_query* q, const grid_space* g, const float s[2], const float t[2], float r, const fuzz_answer* zero,
                       ptl_path_mode mode, fuzz_answer* exact) {
    static fuzz_answer corridor;
    fuzz_answer* a = mode == PTL_PATH_EXACT ? exact : &corridor;
    ptl_path_request req = {.start = {s[0], 0, s[1]}, .goal = {t[0], 0, t[1]}, .radius = r, .mode = mode};
    memset(&a->res, 0, sizeof a->res);
    a->res.points = a->pts;
    a->res.point_capacity = FUZZ_PATH_POINTS;
    ptl_status st = a->status = ptl_query_find_path(q, &req, &a->res);
    if (st != PTL_OK && st != PTL_PARTIAL && st != PTL_TRUNCATED && st != PTL_ERR_NOT_FOUND && st != PTL_ERR_OUT_OF_NODES)
        fuzz_fail("radius %g: (%g,%g)->(%g,%g) returned %s", r, s[0], s[1], t[0], t[1], ptl_status_name(st));
    /* the corridor mode: found wherever the exact path is (where a squeeze exactly 2 r wide lets
       only one of them through by rounding, the corridor's path is checked below like any), never
       shorter */
    if (mode == PTL_PATH_CORRIDOR && exact->status != PTL_ERR_OUT_OF_NODES && st != PTL_ERR_OUT_OF_NODES) {
        if (exact->res.found && !a->res.found)
            fuzz_fail("radius %g: (%g,%g)->(%g,%g): corridor found %d, exact %d", r, s[0], s[1], t[0], t[1], a->res.found,
                      exact->res.found);
        if (a->res.found && a->res.length < exact->res.length - 1e-6)
            fuzz_fail("radius %g: (%g,%g)->(%g,%g): corridor %.9g shorter than exact %.9g", r, s[0], s[1], t[0], t[1],
                      a->res.length, exact->res.length);
    }
    /* a path, or a partial path (to a point near the nearest one the disc reaches): every sample keeps r */
    if (st < 0 || (!a->res.found && st != PTL_PARTIAL) || a->res.point_count != a->res.point_total) return;
    const float* p = a->pts;
    for (uint32_t i = 0; i + 1 < a->res.point_count; ++i) {
        double dx = p[3 * i + 3] - p[3 * i], dy = p[3 * i + 5] - p[3 * i + 2], len = sqrt(dx * dx + dy * dy);
        uint32_t n = (uint32_t)ceil(len * FUZZ_SAMPLES_PER_WU) + 1;
        for (uint32_t k = 0; k <= n; ++k) {
            double x = p[3 * i] + dx * k / n, y = p[3 * i + 2] + dy * k / n;
            double c = grid_clearance(g, x, y, r);
            if (c < r - FUZZ_WALL_EPS)
                fuzz_fail("radius %g: (%g,%g)->(%g,%g): the path passes (%g, %g), %g from a blocked square", r, s[0], s[1], t[0],
                          t[1], x, y, c);
        }
    }
    /* ends that keep r are where the radius-0 path has them (located: a point within the location
       tolerance of an edge or a vertex is put on it) */
    if (!a->res.found) return;
    bool keep = grid_clearance(g, s[0], s[1], r) >= r + 1e-4 && grid_clearance(g, t[0], t[1], r) >= r + 1e-4;
    if (!keep || zero->status != PTL_OK || !zero->res.found || zero->res.point_count == 0) return;
    const float* e = p + 3 * (a->res.point_count - 1);
    const float* zs = zero->pts;
    const float* ze = zero->pts + 3 * (zero->res.point_count - 1);
    if (p[0] != zs[0] || p[2] != zs[2] || e[0] != ze[0] || e[2] != ze[2])
        fuzz_fail("radius %g: (%.9g,%.9g)->(%.9g,%.9g): ends that keep r moved to (%.9g,%.9g), (%.9g,%.9g)", r, s[0], s[1], t[0], t[1], p[0], p[2],
                  e[0], e[2]);
    if (a->res.length < zero->res.length - 1e-6)
        fuzz_fail("radius %g: (%g,%g)->(%g,%g): length %.9g shorter than radius 0's %.9g", r, s[0], s[1], t[0], t[1], a->res.length,
                  zero->res.length);
}

static float coord(uint8_t i, uint8_t f, uint32_t span) {
    double x = (double)(i % (span + 3)) - 1.0;
    return (float)(f < 160 ? x + f / 160.0 : x + (f - 208) * 1e-6);
}

static ptl_status bake(const ptl_shape* s, uint32_t hubs, uint32_t lids, void** blob, size_t* size, ptl_navmesh** nm,
                       ptl_query** q) {
    ptl_bake_desc d = {.hubs = hubs, .lids = lids};
    ptl_error err = {0};
    ptl_status st = ptl_bake_shape(s, &d, blob, size, NULL, &err);
    if (st == PTL_ERR_INTERNAL) fuzz_fail("grid: the bake failed (hubs %u, lids %u): %s", hubs, lids, err.message);
    if (st < 0) return st;
    fuzz_check_blob_valid(*blob, *size, hubs ? "grid bake with hubs" : "grid bake");
    if (ptl_navmesh_create(*blob, *size, NULL, nm, &err) < 0) fuzz_fail("grid: %s", err.message);
    /* the old default pool, which these oracles were tuned on (the default now follows the navmesh) */
    if (ptl_query_create(*nm, &(ptl_query_desc){.max_nodes = 65536}, q) < 0) fuzz_fail("grid: no query object");
    return PTL_OK;
}

static fuzz_answer ans[3];

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 3) return 0;
    uint8_t cells[32 * 32] = {0};
    grid_space g = {.w = data[0] % 32u + 1, .h = data[1] % 32u + 1, .blocked = cells};
    uint32_t lids = data[2] & 1u, n = g.w * g.h, bytes = (n + 7) / 8;
    for (uint32_t i = 0; i < n; ++i) cells[i] = 3 + i / 8 < size && (data[3 + i / 8] >> (i % 8) & 1u);
    uint8_t pass[32 * 32];
    for (uint32_t i = 0; i < n; ++i) pass[i] = !cells[i];
    ptl_grid grid = {.width = g.w, .height = g.h, .passable = pass};
    if (getenv("FUZZ_DUMP")) {
        char text[64 + 33 * 32];
        int len = snprintf(text, sizeof text, "type octile\nheight %u\nwidth %u\nmap\n", g.h, g.w);
        for (uint32_t y = 0; y < g.h; ++y, text[len++] = '\n')
            for (uint32_t x = 0; x < g.w; ++x) text[len++] = cells[y * g.w + x] ? '@' : '.';
        fuzz_dump(text, (size_t)len);
    }
    ptl_shape s;
    ptl_error err = {0};
    if (ptl_shape_from_grid(&grid, NULL, &s, &err) < 0) return 0;
    void *b0 = NULL, *b1 = NULL;
    size_t z0 = 0, z1 = 0;
    ptl_navmesh *nm0 = NULL, *nm1 = NULL;
    ptl_query *q0 = NULL, *q1 = NULL;
    if (bake(&s, 0, lids, &b0, &z0, &nm0, &q0) < 0 || bake(&s, 1, 0, &b1, &z1, &nm1, &q1) < 0) goto done;

    size_t at = 3 + bytes;
    uint64_t rng = ptl_hash64(PTL_HASH_BASIS, data, size);
    for (int k = 0; k < 8; ++k) {
        float st[2], go[2];
        if (at + 8 <= size) {
            st[0] = coord(data[at], data[at + 1], g.w), st[1] = coord(data[at + 2], data[at + 3], g.h);
            go[0] = coord(data[at + 4], data[at + 5], g.w), go[1] = coord(data[at + 6], data[at + 7], g.h);
            at += 8;
        } else if (at < size || k >= 4) {
            break;
        } else {
            /* Corners and centres of cells, free or not. */
            float* pts[2] = {st, go};
            for (int e = 0; e < 2; ++e) {
                uint64_t r = fuzz_next(&rng);
                float half = (r >> 32 & 1u) ? 0.5f : 0.0f;
                pts[e][0] = (float)(r % (g.w + 1)) + (r % (g.w + 1) < g.w ? half : 0);
                pts[e][1] = (float)((r >> 8) % (g.h + 1)) + ((r >> 8) % (g.h + 1) < g.h ? half : 0);
            }
        }
        fuzz_ask(q0, st, go, PTL_PATH_EXACT, &ans[0]);
        fuzz_ask(q1, st, go, PTL_PATH_EXACT, &ans[1]);
        fuzz_ask(q0, st, go, PTL_PATH_CORRIDOR, &ans[2]);
        static const char* names[3] = {"exact", "exact with hubs", "corridor"};
        for (int i = 0; i < 3; ++i) {
            fuzz_check_answer(&ans[i], st, go, grid_inside, &g, false, 0, names[i]);
            check_pinches(&g, &ans[i], names[i]);
        }
        fuzz_compare(&ans[0], &ans[1], true, st, go, "exact without and with hubs");
        fuzz_compare(&ans[0], &ans[2], false, st, go, "exact and corridor");
        static const float radii[3] = {0.25f, 0.5f, 1.0f};
        static fuzz_answer disc_exact;
        check_disc(q0, &g, st, go, radii[k % 3], &ans[0], PTL_PATH_EXACT, &disc_exact);
        check_disc(q0, &g, st, go, radii[k % 3], &ans[0], PTL_PATH_CORRIDOR, &disc_exact);
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
