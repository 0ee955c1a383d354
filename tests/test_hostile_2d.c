/* The 2D bake on hostile input: generated hard cases (near-degenerate polygons, collinear runs,
   nearly coincident vertices, huge, tiny and far-offset coordinates, overlapping and nested .mesh
   polygons, bowties, wrong orientation, repeated points), damaged copies of a shared mesh, and
   every 2D file of the shared data. Each either fails with a clear negative status whose message
   names the polygon, or bakes into a navmesh that ptl_navmesh_validate accepts and whose walkable
   area is the input's within what the readers' documented rounding allows (precision_of). */
#include <float.h>
#include <stdarg.h>
#include <time.h>

#include "test_util.h"

/* The readers round coordinates to floats (steps of at most q = 2^(e - 24), 2^e the smallest power
   of two above the largest |coordinate|, bake.h) and drop bumps within 2 q of their chord: the
   boundary moves by at most 2 q, the area by at most 2 q per unit of perimeter. A wrong cell or a
   lost piece moves it by far more. */
static double precision_of(double max_abs) {
    int e = 0;
    frexp(max_abs, &e);
    return fmax(ldexp(1, e - 24), 0x1p-24);
}

/* ---- Text building and a deterministic generator -------------------------------------------------*/

typedef struct text {
    char* s;
    size_t n, cap;
} text;

static void put(text* t, const char* fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (t->s && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        t->cap = (t->cap + (size_t)k + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
}

static uint64_t rng_state;
static double rnd(void) { /* xorshift64*, in [0, 1) */
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * 0x1p-53;
}

typedef struct pts {
    double xy[2 * 512];
    int n;
} pts;

static double perimeter(const pts* p) {
    double l = 0;
    for (int i = 0; i < p->n; ++i) {
        int j = (i + 1) % p->n;
        l += hypot(p->xy[2 * j] - p->xy[2 * i], p->xy[2 * j + 1] - p->xy[2 * i + 1]);
    }
    return l;
}

static double max_abs(const pts* p) {
    double m = 0;
    for (int i = 0; i < 2 * p->n; ++i) m = fmax(m, fabs(p->xy[i]));
    return m;
}

static double ring_area(const pts* p) {
    double a2 = 0;
    for (int i = 0; i < p->n; ++i) {
        int j = (i + 1) % p->n;
        a2 += p->xy[2 * i] * p->xy[2 * j + 1] - p->xy[2 * j] * p->xy[2 * i + 1];
    }
    return a2 / 2;
}

/* A star-shaped ring around (cx, cy), counter-clockwise: n corners at radius r (1 +- jitter / 2),
   with, when `hard`, runs of points along its edges off the line by 0, 1e-15, 1e-12 or 1e-9 of r
   and corners followed by a copy 1e-13 of r away. */
static void star(pts* p, int n, double cx, double cy, double r, double jitter, bool hard) {
    double cx0[64], cy0[64];
    for (int i = 0; i < n; ++i) {
        double a = 6.283185307179586 * i / n, rr = r * (1 + jitter * (rnd() - 0.5));
        cx0[i] = cx + rr * cos(a), cy0[i] = cy + rr * sin(a);
    }
    static const double off[4] = {0, 1e-15, 1e-12, 1e-9};
    p->n = 0;
    for (int i = 0; i < n; ++i) {
        int j = (i + 1) % n;
        p->xy[2 * p->n] = cx0[i], p->xy[2 * p->n + 1] = cy0[i], p->n++;
        if (!hard) continue;
        if (rnd() < 0.2) p->xy[2 * p->n] = cx0[i] + 1e-13 * r, p->xy[2 * p->n + 1] = cy0[i], p->n++;
        int k = (int)(rnd() * 4);
        for (int m = 1; m <= k; ++m) {
            double t = (double)m / (k + 1), e = off[(int)(rnd() * 4)] * r;
            p->xy[2 * p->n] = cx0[i] + (cx0[j] - cx0[i]) * t + e;
            p->xy[2 * p->n + 1] = cy0[i] + (cy0[j] - cy0[i]) * t - e;
            p->n++;
        }
    }
}

static void transform(pts* p, double scale, double offset) {
    for (int i = 0; i < 2 * p->n; ++i) p->xy[i] = p->xy[i] * scale + offset;
}

static void put_poly_ring(text* t, const pts* p, bool reverse) {
    put(t, "%d", p->n);
    for (int i = 0; i < p->n; ++i) {
        int k = reverse ? p->n - 1 - i : i;
        put(t, " %.17g %.17g", p->xy[2 * k], p->xy[2 * k + 1]);
    }
    put(t, "\n");
}

/* A .mesh (version 2) of the ring fanned from (cx, cy): triangle i is (centre, i, i + 1). */
static void put_fan_mesh(text* t, const pts* p, double cx, double cy) {
    int n = p->n;
    put(t, "mesh\n2\n%d %d\n%.17g %.17g 0\n", n + 1, n, cx, cy);
    for (int i = 0; i < n; ++i) put(t, "%.17g %.17g 0\n", p->xy[2 * i], p->xy[2 * i + 1]);
    for (int i = 0; i < n; ++i) /* neighbours across (c -> a), (a -> b), (b -> c): i + 1, i - 1, none */
        put(t, "3 0 %d %d %d %d -1\n", 1 + i, 1 + (i + 1) % n, (i + 1) % n, (i + n - 1) % n);
}

/* ---- The property every case must have ----------------------------------------------------------*/

typedef enum outcome { BAKED, REFUSED } outcome;

/* Parses and bakes `s` (a .poly when `poly`, else a .mesh). A failure must be a clear negative
   status (PTL_ERR_PARSE or PTL_ERR_BAD_INPUT, never PTL_ERR_INTERNAL) naming the input and a
   polygon or a line; a success must validate, and its walkable area must be `area` within `tol`
   (when area > 0). */
static outcome check_case_with(const char* what, const text* s, bool poly, double area, double tol,
                               const ptl_bake_desc* desc) {
    ptl_shape sh;
    ptl_error err;
    memset(&err, 0, sizeof err);
    ptl_status st = poly ? ptl_poly_parse(s->s, s->n, what, NULL, &sh, &err)
                         : ptl_mesh2d_parse(s->s, s->n, what, NULL, &sh, &err);
    if (st < 0) {
        cr_assert(st == PTL_ERR_PARSE || st == PTL_ERR_BAD_INPUT, "%s: status %s (%s)", what, ptl_status_name(st),
                  err.message);
        const size_t k = strlen(what);
        bool line = !strncmp(err.message, what, k) && err.message[k] == ':' && err.message[k + 1] >= '0' &&
                    err.message[k + 1] <= '9';
        cr_assert(strstr(err.message, what) && (line || strstr(err.message, "polygon")), "%s: unclear message '%s'",
                  what, err.message);
        if (getenv("PTL_TEST_VERBOSE")) fprintf(stderr, "refused: %s\n", err.message);
        return REFUSED;
    }
    cr_assert_eq(ptl_shape_validate(&sh, &err), PTL_OK, "%s: the reader's shape is invalid: %s", what, err.message);
    void* blob = NULL;
    size_t size = 0;
    ptl_bake_stats stats;
    st = ptl_bake_shape(&sh, desc, &blob, &size, &stats, &err);
    ptl_shape_free(&sh);
    cr_assert_geq(st, 0, "%s: bake failed (%s): %s", what, ptl_status_name(st), err.message);
    ptl_navmesh* nm = NULL;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s: %s", what, err.message);
    cr_assert_eq(ptl_navmesh_validate(nm, &err), PTL_OK, "%s: %s", what, err.message);
    ptl_navmesh_info info;
    ptl_navmesh_get_info(nm, &info);
    if (area > 0)
        cr_assert(fabs(info.walkable_area - area) <= tol + 1e-9 * area, "%s: walkable area %.12g, input %.12g (tolerance %g)",
                  what, info.walkable_area, area, tol);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    return BAKED;
}

static outcome check_case(const char* what, const text* s, bool poly, double area, double tol) {
    return check_case_with(what, s, poly, area, tol, NULL);
}

/* ---- Generated hard cases --------------------------------------------------------------------------*/

static const double scales[] = {1, 1e-3, 1e3, 1e12};
static const double offsets[] = {0, 1e4, -3.3e5};

Test(hostile_2d, near_degenerate_poly_shapes_bake_valid_meshes_of_the_right_area_or_are_refused_by_name) {
    rng_state = 0x9e3779b97f4a7c15ull;
    int baked = 0;
    for (int it = 0; it < 240; ++it) {
        double scale = scales[it % 4], offset = offsets[(it / 4) % 3] * scale;
        pts outer, hole;
        star(&outer, 5 + (int)(rnd() * 40), 0, 0, 10, (it & 1) ? 0.4 : 1.2, true);
        double area = ring_area(&outer) * scale * scale, per = perimeter(&outer) * scale, big = 0;
        text t = {0};
        /* Holes well inside the outer ring's inner radius (10 * (1 - 1.2 / 2) = 4), apart. */
        int holes = (int)(rnd() * 3);
        put(&t, "poly\n1\n%d\n", 1 + holes);
        transform(&outer, scale, offset);
        big = max_abs(&outer);
        put_poly_ring(&t, &outer, (it & 2) != 0); /* either orientation: .poly takes both */
        for (int h = 0; h < holes; ++h) {
            star(&hole, 3 + (int)(rnd() * 8), h ? 1.5 : -1.5, 0.5, 0.8, 0.5, (it & 4) != 0);
            area -= ring_area(&hole) * scale * scale;
            per += perimeter(&hole) * scale;
            transform(&hole, scale, offset);
            big = fmax(big, max_abs(&hole));
            put_poly_ring(&t, &hole, false);
        }
        char what[64];
        snprintf(what, sizeof what, "case%d.poly", it);
        baked += check_case(what, &t, true, area, 2 * precision_of(big) * per) == BAKED;
        free(t.s);
    }
    /* These scales and offsets are well inside what floats resolve: nearly all must bake. */
    cr_assert_geq(baked, 230, "only %d of 240 cases baked", baked);
}

Test(hostile_2d, near_degenerate_mesh_fans_bake_valid_meshes_of_the_right_area_or_are_refused_by_name) {
    rng_state = 0x2545f4914f6cdd1dull;
    int baked = 0;
    for (int it = 0; it < 240; ++it) {
        double scale = scales[it % 4], offset = offsets[(it / 4) % 3] * scale;
        pts ring;
        star(&ring, 5 + (int)(rnd() * 40), 0, 0, 10, (it & 1) ? 0.4 : 1.2, true);
        double area = ring_area(&ring) * scale * scale, per = perimeter(&ring) * scale;
        transform(&ring, scale, offset);
        text t = {0};
        put_fan_mesh(&t, &ring, offset, offset);
        char what[64];
        snprintf(what, sizeof what, "case%d.mesh", it);
        baked += check_case(what, &t, false, area, 2 * precision_of(max_abs(&ring)) * per) == BAKED;
        free(t.s);
    }
    cr_assert_geq(baked, 230, "only %d of 240 cases baked", baked);
}

/* Too small or too far from the origin for the navmesh's floats: refused, the polygon named. */
Test(hostile_2d, tiny_and_far_offset_polygons_are_refused_by_name) {
    static const struct {
        double scale, offset;
    } cases[] = {{1e-100, 0}, {1e-300, 0}, {1e-30, 0}, {1, 1e8}, {1, -1e8}, {1e-3, 1e4}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int kind = 0; kind < 2; ++kind) {
            rng_state = 12345 + c;
            pts ring;
            star(&ring, 12, 0, 0, 10, 0.5, false);
            transform(&ring, cases[c].scale, cases[c].offset);
            text t = {0};
            if (kind == 0) {
                put(&t, "poly\n1\n1\n");
                put_poly_ring(&t, &ring, false);
            } else {
                put_fan_mesh(&t, &ring, cases[c].offset, cases[c].offset);
            }
            char what[64];
            snprintf(what, sizeof what, "tiny%zu.%s", c, kind ? "mesh" : "poly");
            cr_assert_eq(check_case(what, &t, kind == 0, 0, 0), REFUSED, "%s: scale %g offset %g baked", what,
                         cases[c].scale, cases[c].offset);
            free(t.s);
        }
}

/* Far, but with features large enough for the floats there: baked, area kept. */
Test(hostile_2d, large_polygons_far_from_the_origin_bake) {
    static const double cases[][2] = {{1e3, 1e8}, {1e14, 1e15}, {1e17, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        rng_state = 777 + c;
        pts ring;
        star(&ring, 20, 0, 0, 10, 0.8, true);
        double area = ring_area(&ring) * cases[c][0] * cases[c][0], per = perimeter(&ring) * cases[c][0];
        transform(&ring, cases[c][0], cases[c][1]);
        text t = {0};
        put(&t, "poly\n1\n1\n");
        put_poly_ring(&t, &ring, false);
        char what[64];
        snprintf(what, sizeof what, "far%zu.poly", c);
        cr_assert_eq(check_case(what, &t, true, area, 2 * precision_of(max_abs(&ring)) * per), BAKED);
        free(t.s);
    }
}

/* ---- Hand-made shapes that broke the readers -------------------------------------------------------*/

static void expect_refused(const char* what, const char* src, bool poly, const char* needle) {
    text t = {0};
    put(&t, "%s", src);
    ptl_shape sh;
    ptl_error err;
    memset(&err, 0, sizeof err);
    ptl_status st = poly ? ptl_poly_parse(t.s, t.n, what, NULL, &sh, &err) : ptl_mesh2d_parse(t.s, t.n, what, NULL, &sh, &err);
    cr_assert_eq(st, PTL_ERR_PARSE, "%s: status %s (%s)", what, ptl_status_name(st), err.message);
    cr_assert(strstr(err.message, needle), "%s: message '%s' lacks '%s'", what, err.message, needle);
    free(t.s);
}

Test(hostile_2d, coordinates_beyond_what_floats_hold_are_parse_errors_naming_the_line) {
    expect_refused("big.poly", "poly\n1\n1\n4 0 0 1e39 0 10 10 0 10\n", true, "big.poly:4: polygon 0: x '1e39' is beyond");
    expect_refused("big.mesh", "mesh\n2\n4 1\n0 0 1 0\n1e39 0 1 0\n10 10 1 0\n0 10 1 0\n4 0 1 2 3 -1 -1 -1 -1\n", false,
                   "big.mesh:5: vertex x 1e+39 is beyond");
    expect_refused("big3.poly", "poly\n1\n2\n4 0 0 10 0 10 10 0 10\n3 2 2 1e39 3 2 4\n", true, "polygon 1: x '1e39'");
}

Test(hostile_2d, overlapping_mesh_polygons_are_refused_naming_both) {
    /* Two squares, the second over the first's corner. */
    expect_refused("overlap.mesh",
                   "mesh\n2\n8 2\n0 0 0\n2 0 0\n2 2 0\n0 2 0\n1 1 0\n3 1 0\n3 3 0\n1 3 0\n"
                   "4 0 1 2 3 -1 -1 -1 -1\n4 4 5 6 7 -1 -1 -1 -1\n",
                   false, "polygons 0 and 1 overlap");
    /* A square inside another: no edge crosses, the shape's check sees the nesting. */
    expect_refused("nested.mesh",
                   "mesh\n2\n8 2\n0 0 0\n4 0 0\n4 4 0\n0 4 0\n1 1 0\n2 1 0\n2 2 0\n1 2 0\n"
                   "4 0 1 2 3 -1 -1 -1 -1\n4 4 5 6 7 -1 -1 -1 -1\n",
                   false, "the polygons overlap or nest");
}

Test(hostile_2d, bowties_and_clockwise_polygons_are_refused_naming_the_polygon) {
    /* A bowtie with unequal lobes: positive area, so only the crossing gives it away. */
    expect_refused("bowtie.mesh", "mesh\n2\n4 1\n0 1 0\n4 0 0\n4 4 0\n0 0 0\n4 0 1 2 3 -1 -1 -1 -1\n", false,
                   "polygon 0 is self-intersecting: its edges");
    expect_refused("bowtie.poly", "poly\n1\n1\n4 0 1 4 0 4 4 0 0\n", true, "polygon 0 is self-intersecting: its edges");
    expect_refused("cw.mesh", "mesh\n2\n3 1\n0 0 0\n0 1 0\n1 0 0\n3 0 1 2 -1 -1 -1\n", false, "polygon 0 is clockwise");
}

Test(hostile_2d, repeated_points_are_dropped) {
    text t = {0};
    put(&t, "poly\n1\n1\n7 0 0 0 0 4 0 4 0 4 4 0 4 0 0\n");
    cr_assert_eq(check_case("repeat.poly", &t, true, 16, 0), BAKED);
    free(t.s);
    t = (text){0};
    /* Vertex 4 repeats vertex 1's position: one vertex after the rounding, its zero-length edge gone. */
    put(&t, "mesh\n2\n5 1\n0 0 0\n4 0 0\n4 4 0\n0 4 0\n4 0 0\n5 0 1 4 2 3 -1 -1 -1 -1 -1\n");
    cr_assert_eq(check_case("repeat.mesh", &t, false, 16, 0), BAKED);
    free(t.s);
}

/* A sliver triangle whose apex nearly touches its base collapses in the rounding: it adds nothing,
   and its neighbours on either side meet across the line it leaves. */
Test(hostile_2d, a_mesh_sliver_that_the_rounding_collapses_is_dropped) {
    /* The square [0, 4]^2 as 0 = (0, 1, 2, 4), the sliver 1 = (4, 2, 3) along the top edge and
       2 = (0, 4, 3), where vertex 4 is (2, 4 - 1e-12): on the top edge once rounded. */
    text t = {0};
    put(&t, "mesh\n2\n5 3\n0 0 0\n4 0 0\n4 4 0\n0 4 0\n2 %.17g 0\n", 4 - 1e-12);
    put(&t, "4 0 1 2 4 2 -1 -1 1\n3 4 2 3 2 0 -1\n3 0 4 3 -1 0 1\n");
    cr_assert_eq(check_case("sliver.mesh", &t, false, 16, 0), BAKED);
    free(t.s);
}

/* A notch whose Area of Interest reaches a wall that runs far out (69999, 7777777) gets a portal
   to a point split on that wall, along the prolongation of one of its sides: that point's rounding
   follows the wall's far end, not the notch, and the gap left must still count as closed. */
Test(hostile_2d, a_notch_closed_by_a_split_point_on_a_far_reaching_wall_bakes) {
    text t = {0};
    put(&t, "%s", "poly\n1\n1\n5 5 .6 3 5 69999 6 6 6 .6 6");
    cr_assert_eq(check_case("far_wall.poly", &t, true, 0, 0), BAKED);
    free(t.s);
    /* Features of a few units beside a coordinate of 7.8e6 (precision 0.5), or of a few hundred
       beside 1.2e11 (precision 8192): baked or refused by name (a vertex within 4 times the
       precision of an edge), never an internal error. */
    static const char* const near_limit[] = {
        "poly\n1\n2\n4  010 07777777 0 101 0 0 10\n4 3 1 3  33 6 06 3\n",
        "poly\n1\n2\n5 0 0 010 3\n3  11\n\r 2 483 0 1 4\n4 121454836483 11033\n3 0 3 1 5\n",
    };
    for (size_t i = 0; i < sizeof near_limit / sizeof near_limit[0]; ++i) {
        t = (text){0};
        put(&t, "%s", near_limit[i]);
        check_case("far_wall.poly", &t, true, 0, 0);
        free(t.s);
    }
}

/* A thin spike folds the outline back past the vertex where the pocket scan starts: the hull chord
   from there runs outside free space. With hubs (pocket lids drawn first) the bake must not draw
   it as a portal. */
Test(hostile_2d, a_thin_spike_gets_no_pocket_lid_outside_free_space) {
    static const char* const cases[] = {
        "poly\n1\n2\n4 0 0 10 0 10 10 16.99992 -8e-05\n3 16.99992 0.12497 9.99992 17.00002 9.99992 16.99992\n",
        "poly\n1\n1\n4 -1e-05 -7e-05 -8e-05 -8e-05 5.87492 -3e-05 13.99992 18.99992\n",
    };
    ptl_bake_desc desc = {.hubs = true};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        text t = {0};
        put(&t, "%s", cases[i]);
        cr_assert_eq(check_case_with("spike.poly", &t, true, 0, 0, &desc), BAKED);
        cr_assert_eq(check_case("spike.poly", &t, true, 0, 0), BAKED);
        free(t.s);
    }
}

/* Polygons whose walls run a few float steps apart (a slit of about 5 q, a spike thinner than a
   float step): a split point made in doubles and rounded when the blob is written would cross the
   slit and fold two cells over each other. The decomposition makes it on the floats the blob
   stores, on the wall's solid side or, in a solid wedge too thin for any float, on its free side
   without crossing another wall; where no float near the split point lies on the wall (two spikes
   nearly on top of each other: the split 2e-5 from a tip whose wedge is 1e-5 radians wide; a fuzz
   finding), the portal ends at the wall's nearer end. Every bake validates, and every
   vertex of the decomposition is a float. */
Test(hostile_2d, polygons_a_slit_of_a_few_float_steps_apart_bake_with_split_points_on_floats) {
    static const char* const cases[] = {
        "poly\n1\n3\n4 0 16.99999 0 16.99999 15 0 7.50002 24.99999\n"
        "3 19.37507 -6e-05 1.24996 17.00005 1.24992 18.99992\n3 1.24992 17.00005 10.00007 -7e-05 9.99992 -8e-05\n",
        "poly\n1\n3\n4 1.375 8.125 -8e-05 0.62492 9.99992 7.62497 7.62505 16.99995\n"
        "3 7.62498 17.00001 10.00002 16.99998 30.12496 16.99998\n3 16.99992 6.12492 2.49992 16.99997 16.99992 19.99992\n",
        "poly\n1\n3\n3 1.25001 16.99997 28.62501 -3e-05 28.62492 -8e-05\n"
        "3 16.99994 -6e-05 -5e-05 17.12504 7.50004 16.99995\n3 17.75 0 1.25006 1.24993 1.25002 16.99992\n",
        "poly\n1\n3\n4 0 0 15 0 31.87507 31.87507 7.50001 7.5\n"
        "3 7.50004 16.99995 25 19.00004 7.5 17.00001\n3 7.50004 16.99995 24.99992 19 1.24999 3.74999\n",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        text t = {0};
        put(&t, "%s", cases[i]);
        for (int lids = 0; lids < 2; ++lids) {
            ptl_bake_desc desc = ptl_bake_desc_defaults();
            desc.hubs = lids;
            cr_assert_eq(check_case_with("slit.poly", &t, true, 0, 0, &desc), BAKED, "case %zu, hubs %d", i, lids);
            ptl_shape sh;
            ptl_error err;
            cr_assert_geq(ptl_poly_parse(t.s, t.n, "slit.poly", NULL, &sh, &err), 0, "%s", err.message);
            ptl_decompose_desc dd = ptl_decompose_desc_defaults();
            dd.lids = lids;
            ptl_decomposition d;
            cr_assert_geq(ptl_decompose(&sh, &dd, &d, &err), 0, "case %zu: %s", i, err.message);
            for (uint32_t v = 0; v < 2 * d.vert_count; ++v)
                cr_expect_eq(d.xy[v], (double)(float)d.xy[v], "case %zu, lids %d: vertex %u is not a float", i, lids, v / 2);
            ptl_decomposition_free(&d);
            ptl_shape_free(&sh);
        }
        free(t.s);
    }
}

/* ---- ptl_bake_decomposition on coordinates the blob cannot hold -------------------------------------*/

Test(hostile_2d, a_vertex_beyond_float_range_is_refused_by_the_blob_writer) {
    double xy[] = {0, 0, 1e39, 0, 10, 10, 0, 10};
    uint32_t start[] = {0, 4}, verts[] = {0, 1, 2, 3}, nbrs[] = {PTL_NONE, PTL_NONE, PTL_NONE, PTL_NONE};
    ptl_decomposition d;
    memset(&d, 0, sizeof d);
    d.vert_count = 4, d.xy = xy, d.cell_count = 1, d.cell_start = start, d.cell_verts = verts, d.cell_nbrs = nbrs;
    void* blob = NULL;
    size_t size = 0;
    ptl_error err;
    ptl_status st = ptl_bake_decomposition(&d, NULL, &blob, &size, &err);
    cr_assert_eq(st, PTL_ERR_BAD_INPUT, "status %s: %s", ptl_status_name(st), err.message);
    cr_assert(strstr(err.message, "beyond"), "%s", err.message);
    cr_assert_null(blob);
}

/* ---- Damaged copies of a shared mesh ---------------------------------------------------------------*/

static char* read_all(const char* path, size_t* n) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* s = malloc((size_t)len + 1);
    *n = fread(s, 1, (size_t)len, f);
    fclose(f);
    s[*n] = 0;
    return s;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Vertex coordinates of arena-merged.mesh changed by a byte or two made polygons overlap, which
   once baked into overlapping cells and sent the landmark searches through 1.6 GB. Every
   single-digit change of the first 60 vertex coordinates: a valid navmesh or a named refusal,
   each within a second. */
Test(hostile_2d, damaged_copies_of_arena_merged_bake_valid_meshes_or_are_refused_quickly, .timeout = 300) {
    TEST_REQUIRE_DATA(data);
    char path[1024];
    snprintf(path, sizeof path, "%s/polyanya/meshes/arena-merged.mesh", data);
    size_t n = 0;
    char* src = read_all(path, &n);
    cr_assert_not_null(src, "%s", path);
    /* The vertex lines: after "mesh", "2" and the counts line. */
    char* p = src;
    for (int line = 0; line < 3; ++line) p = strchr(p, '\n') + 1;
    int done = 0, refused = 0;
    for (int v = 0; v < 60 && *p; ++v) {
        char* end = strchr(p, '\n');
        char* second = strchr(p, ' ');
        char* stop = second ? strchr(second + 1, ' ') : NULL; /* x and y: the first two tokens */
        for (char* c = p; stop && c < stop; ++c) {
            if (*c < '0' || *c > '9') continue;
            char keep = *c;
            *c = (char)('0' + (keep - '0' + 3) % 10);
            text t = {0};
            put(&t, "%s", src);
            *c = keep;
            char what[64];
            snprintf(what, sizeof what, "arena-merged-v%d-%ld.mesh", v, (long)(c - p));
            double t0 = now_s();
            refused += check_case(what, &t, false, 0, 0) == REFUSED;
            cr_assert_lt(now_s() - t0, 5.0, "%s took %.1f s", what, now_s() - t0); /* ASan: about 10x slower */
            free(t.s);
            ++done;
        }
        p = end + 1;
    }
    cr_assert_geq(done, 100, "only %d damaged copies", done);
    cr_assert_geq(refused, 1, "no damaged copy was refused: the damage missed");
    free(src);
}

/* ---- Every 2D file of the shared data ------------------------------------------------------------*/

static void bake_file_validates(const char* path) {
    ptl_shape sh;
    ptl_error err;
    ptl_status st = ptl_shape_load(path, NULL, &sh, &err);
    if (st < 0) { /* the two untraversable test maps have no free space: a named refusal */
        cr_assert(strstr(path, "untraversable"), "%s: %s", path, err.message);
        cr_assert_eq(st, PTL_ERR_BAD_INPUT, "%s: %s", path, err.message);
        return;
    }
    void* blob = NULL;
    size_t size = 0;
    ptl_bake_desc d = {.no_landmarks = true}; /* the geometry is what is checked here */
    st = ptl_bake_shape(&sh, &d, &blob, &size, NULL, &err);
    ptl_shape_free(&sh);
    cr_assert_geq(st, 0, "%s: %s", path, err.message);
    ptl_navmesh* nm = NULL;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s: %s", path, err.message);
    cr_assert_eq(ptl_navmesh_validate(nm, &err), PTL_OK, "%s: %s", path, err.message);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
}

/* Maps of more than 300 KB (Aurora, AcrosstheCape, orz900d) and the two aurora meshes are left to
   the release build's tests and benchmarks: under ASan they alone would take minutes. */
Test(hostile_2d, every_2d_file_of_the_shared_data_bakes_a_mesh_that_validates, .timeout = 600) {
    TEST_REQUIRE_DATA(data);
    char** maps = test_all_maps(data);
    int baked = 0;
    for (char** m = maps; *m; ++m) {
        struct stat st;
        if (stat(*m, &st) != 0 || st.st_size > 300000) continue;
        bake_file_validates(*m);
        ++baked;
    }
    test_free_list(maps);
    static const char* const dirs[] = {"polyanya/meshes", "polyanya/meshes/tests", "polyanya"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", data, dirs[i]);
        for (int kind = 0; kind < 2; ++kind) {
            char** l = test_list_files(path, kind ? ".poly" : ".mesh");
            for (char** m = l; *m; ++m) {
                if (strstr(*m, "aurora")) continue;
                bake_file_validates(*m);
                ++baked;
            }
            test_free_list(l);
        }
    }
    cr_assert_geq(baked, 20, "only %d files baked", baked);
}

/* ---- Memory bounded by the input -----------------------------------------------------------------*/

typedef struct counting {
    size_t now, peak;
} counting;
static void* count_alloc(size_t n, void* u) {
    counting* c = u;
    c->now += n, c->peak = c->now > c->peak ? c->now : c->peak;
    return malloc(n);
}
static void* count_realloc(void* p, size_t o, size_t n, void* u) {
    counting* c = u;
    c->now += n - o, c->peak = c->now > c->peak ? c->now : c->peak;
    return realloc(p, n);
}
static void count_free(void* p, size_t n, void* u) {
    counting* c = u;
    c->now -= p ? n : 0;
    free(p);
}

/* A square of side 1e-300 handed straight to the bake (no reader to refuse it) once sized the
   decomposition's grid from an area that underflowed to 0: 268 MB. Now a few kilobytes, and a
   refusal rather than a navmesh (its floats are all 0). */
Test(hostile_2d, a_tiny_shape_handed_to_the_bake_takes_memory_in_proportion_to_its_size) {
    double xy[] = {0, 0, 1e-300, 0, 1e-300, 1e-300, 0, 1e-300};
    uint32_t rs[] = {0, 4};
    counting c = {0, 0};
    ptl_allocator al = {count_alloc, count_realloc, count_free, &c};
    ptl_shape s = {4, xy, 1, rs, 0, al, 0};
    ptl_bake_desc d = {.alloc = &al};
    void* blob = NULL;
    size_t size = 0;
    ptl_error err;
    ptl_status st = ptl_bake_shape(&s, &d, &blob, &size, NULL, &err);
    cr_assert_lt(st, 0, "a navmesh of a square that floats cannot hold");
    cr_assert_null(blob);
    cr_assert_lt(c.peak, (size_t)1 << 20, "peak %zu bytes", c.peak);
    cr_assert_eq(c.now, 0, "%zu bytes not freed", c.now);
}

/* ---- Rotated grids: collinear corners that the rounding moves off their lines ----------------*/

/* A .mesh of the unit squares of a w x h grid that `rnd` leaves free (3 in 4), rotated by `angle`,
   scaled and moved. Rotated, the corners along each grid line are collinear only up to the
   float rounding: notches nearly straight, walls along the sides of a notch's Area of Interest,
   split points within rounding of a corner. */
static int put_rotated_grid_stray(text* t, int w, int h, double angle, double scale, double offset, double stray) {
    int id[12 * 12], n = 0;
    for (int i = 0; i < w * h; ++i) id[i] = rnd() < 0.75 ? n++ : -1;
    if (n == 0) id[0] = n++;
    const double c = cos(angle), s = sin(angle);
    put(t, "mesh\n2\n%d %d\n", (w + 1) * (h + 1) + (stray != 0), n);
    for (int y = 0; y <= h; ++y)
        for (int x = 0; x <= w; ++x)
            put(t, "%.17g %.17g 1 -1\n", (x * c - y * s) * scale + offset, (x * s + y * c) * scale + offset);
    /* a vertex no polygon uses, far away: it must not coarsen the precision the bake works to */
    if (stray != 0) put(t, "%.17g %.17g 1 -1\n", stray, -stray);
#define NB(x, y) ((x) < 0 || (y) < 0 || (x) >= w || (y) >= h ? -1 : id[(y) * w + (x)])
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (id[y * w + x] < 0) continue;
            int v = y * (w + 1) + x;
            /* version 2: p[i] is across v[i-1] -> v[i] (left, bottom, right, top) */
            put(t, "4 %d %d %d %d %d %d %d %d\n", v, v + 1, v + w + 2, v + w + 1, NB(x - 1, y), NB(x, y - 1),
                NB(x + 1, y), NB(x, y + 1));
        }
#undef NB
    return n;
}

static int put_rotated_grid(text* t, int w, int h, double angle, double scale, double offset) {
    return put_rotated_grid_stray(t, w, h, angle, scale, offset, 0);
}

Test(hostile_2d, rotated_grids_of_squares_bake_valid_meshes_of_the_right_area_with_and_without_lids, .timeout = 300) {
    rng_state = 0x853c49e6748fea9bull;
    static const double angles[] = {0.7853981633974483, 0.5235987755982988, 1.0471975511965976, 0.4636476090008061,
                                    0.6435011087932844, 2.0};
    static const double gscales[] = {1, 1e-3, 1e3, 0.7071067811865476};
    static const double goffsets[] = {0, 1e4, -3.3e3};
    int baked = 0, cases = 0;
    for (int it = 0; it < 400; ++it) {
        const int w = 2 + (int)(rnd() * 11), h = 2 + (int)(rnd() * 11);
        const double angle = angles[it % 6], scale = gscales[(it / 6) % 4], offset = goffsets[(it / 24) % 3];
        text t = {0};
        int squares = put_rotated_grid(&t, w, h, angle, scale, offset);
        /* the squares' corners are at most this far from the origin */
        double big = fabs(offset) + scale * hypot(w, h), per = 4.0 * squares * scale;
        char what[64];
        for (int lids = 0; lids < 2; ++lids) {
            snprintf(what, sizeof what, "rotated%d%s.mesh", it, lids ? "-lids" : "");
            ptl_bake_desc d = {.lids = (bool)lids};
            baked += check_case_with(what, &t, false, squares * scale * scale, 2 * precision_of(big) * per, &d) == BAKED;
            ++cases;
        }
        free(t.s);
    }
    /* Only squares of 1e-3 at 1e4 come near the float resolution there (2^-10): the rest bake. */
    cr_assert_geq(baked, cases * 8 / 10, "only %d of %d rotated grids baked", baked, cases);
}

/* Fuzz finding mesh cfd18e: a vertex listed in the file but used by no polygon, 1e4 times farther
   out than the mesh, set the reader's precision (2^-7 on a 7-unit mesh), and the decomposition
   then accepted cells turning by more than the navmesh's validation (sized by the vertices the blob
   holds) allows: PTL_ERR_INTERNAL. Every such grid must bake a valid navmesh of the right area. */
Test(hostile_2d, rotated_grids_with_a_far_unused_vertex_bake_valid_meshes, .timeout = 300) {
    rng_state = 0x2545f4914f6cdd1dull;
    static const double angles[] = {0.7853981633974483, 0.5235987755982988, 0.4636476090008061, 2.0};
    static const double strays[] = {7e4, 1e6, 3e7, 1e3};
    for (int it = 0; it < 120; ++it) {
        const int w = 2 + (int)(rnd() * 9), h = 2 + (int)(rnd() * 9);
        const double angle = angles[it % 4], stray = strays[(it / 4) % 4], scale = it % 3 ? 0.7071067811865476 : 1;
        text t = {0};
        int squares = put_rotated_grid_stray(&t, w, h, angle, scale, 0, stray);
        char what[64];
        snprintf(what, sizeof what, "rotated-stray%d.mesh", it);
        ptl_bake_desc d = {.lids = (bool)(it & 1)};
        double per = 4.0 * squares * scale;
        cr_assert_eq(check_case_with(what, &t, false, squares * scale * scale, 2 * precision_of(scale * hypot(w, h)) * per,
                                     &d),
                     BAKED, "%s was refused", what);
        free(t.s);
    }
}

/* The decomposition cannot tell which side of an edge a vertex this near it is on: refused. */
Test(hostile_2d, a_vertex_within_the_precision_of_another_polygons_edge_is_refused_by_name) {
    /* a unit square and, right of it, a triangle whose tip is 5e-7 from the square's right side */
    static const char mesh[] = "mesh\n2\n7 2\n"
                               "0 0 1 0\n1 0 1 0\n1 1 1 0\n0 1 1 0\n"
                               "1.0000005 0.5 1 1\n2 0 1 1\n2 1 1 1\n"
                               "4 0 1 2 3 -1 -1 -1 -1\n3 4 5 6 -1 -1 -1\n";
    text t = {(char*)mesh, sizeof mesh - 1, sizeof mesh};
    cr_assert_eq(check_case("near.mesh", &t, false, 0, 0), REFUSED);
    ptl_shape sh;
    ptl_error err = {0};
    cr_assert_eq(ptl_mesh2d_parse(mesh, sizeof mesh - 1, "near.mesh", NULL, &sh, &err), PTL_ERR_BAD_INPUT);
    cr_assert(strstr(err.message, "too near each other") && strstr(err.message, "(1, 0)-(1, 1)"), "%s", err.message);
}

/* A staircase of single blocked cells whose pocket lid runs from the map's edge through the
   staircase's inner corners, all on one line: the notch beside it closes with a portal to the
   nearest of those corners, never to one that a nearer corner on the same line hides. */
Test(hostile_2d, a_grid_pocket_lid_along_a_line_of_corners_bakes_with_lids) {
    static const char map[] = "type octile\nheight 19\nwidth 31\nmap\n"
                              "@..@.@.@@@@.....@@@@....@@@@@@@\n"
                              "@@@@@@@@@@@@@@@@@@@@@@@@@.@....\n"
                              "...@.......@.......@.......@...\n"
                              "....@.......@.......@.......@..\n"
                              ".....@.......@..............@.@\n"
                              "......@.@.@...@.......@.......@\n"
                              ".......@.......@.......@.......\n"
                              "@.......@.......@.......@......\n"
                              ".@.......@.......@.......@.....\n"
                              "..@.......@......@@@@@@@@.@..@@\n"
                              "@.........@@@@@@@@@@@@@@@@@@@@@\n"
                              "@@@@@@@@@@@@@@....@............\n"
                              "...............................\n...............................\n"
                              "...............................\n...............................\n"
                              "...............................\n...............................\n"
                              "...............................\n";
    ptl_grid g;
    ptl_error err = {0};
    cr_assert_eq(ptl_grid_parse(map, sizeof map - 1, "stairs.map", NULL, &g, &err), PTL_OK, "%s", err.message);
    ptl_shape sh;
    cr_assert_eq(ptl_shape_from_grid(&g, NULL, &sh, &err), PTL_OK, "%s", err.message);
    ptl_bake_desc d = {.lids = true};
    void* blob = NULL;
    size_t size = 0;
    cr_assert_eq(ptl_bake_shape(&sh, &d, &blob, &size, NULL, &err), PTL_OK, "%s", err.message);
    ptl_navmesh* nm = NULL;
    cr_assert_eq(ptl_navmesh_create(blob, size, NULL, &nm, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_navmesh_validate(nm, &err), PTL_OK, "%s", err.message);
    ptl_navmesh_destroy(nm);
    ptl_blob_free(blob, size, NULL);
    ptl_shape_free(&sh);
    ptl_grid_free(&g);
}
