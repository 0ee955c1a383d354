/* The rasterizer (bake/voxel/voxelize.c) against a brute-force reference: for each column, the
   triangle is clipped against the column's square afresh (Sutherland-Hodgman, in double, from the
   triangle's own vertices), and the piece's plan area and y range give the column's expected
   span. Written from the rules in voxelize.h, not from the rasterizer's code.

   Rules checked, one triangle per grid (cell size 1, cell height 1, bmin at the origin unless a
   case moves it, so grid units are world units):
   - A fat triangle (plan area well above zero) goes into a column iff its piece there has positive
     plan area. Pieces within 1e-7 of the boundary either way are left free (the rasterizer rounds
     there): a column must be present when the piece in the square shrunk by 1e-7 has area, and
     absent when the square grown by 1e-7 meets the triangle with no area at all.
   - A vertical or degenerate triangle (plan area exactly zero) goes into every column whose closed
     square its closed footprint touches; again 1e-7 either way is left free.
   - A present column holds one span [floor(wmin), ceil(wmax)] (at least one voxel tall) of the
     piece's y range [wmin, wmax], each end within 1e-6 voxels of the reference's: the rasterizer
     computes crossings from slopes, the reference from interpolation, and both round. */
#include "test_util.h"

#include "../bake/voxel/voxelize.h"

#define RW 24 /* grid columns along x and z */
#define RH 64 /* cell heights */

typedef struct rpoly {
    double p[16][3]; /* u, w, v as the rasterizer orders them: x, y, z */
    int n;
} rpoly;

/* The closed half of `in` with p[axis] * sign <= c * sign. */
static rpoly clip_half(const rpoly* in, int axis, double c, double sign) {
    rpoly out = {.n = 0};
    for (int i = 0, j = in->n - 1; i < in->n; j = i++) {
        double di = (in->p[i][axis] - c) * sign, dj = (in->p[j][axis] - c) * sign;
        if ((dj < 0 && di > 0) || (dj > 0 && di < 0)) {
            double t = dj / (dj - di);
            for (int k = 0; k < 3; ++k) out.p[out.n][k] = in->p[j][k] + (in->p[i][k] - in->p[j][k]) * t;
            out.p[out.n++][axis] = c;
        }
        if (di <= 0) memcpy(out.p[out.n++], in->p[i], sizeof in->p[i]);
    }
    return out;
}

/* The triangle's piece in the square [x - g, x + 1 + g] x [z - g, z + 1 + g] (g: grown, or shrunk
   when negative), its plan area and y range. */
static rpoly piece(const double t[3][3], int x, int z, double g, double* area, double* wmin, double* wmax) {
    rpoly p = {.n = 3};
    memcpy(p.p, t, 3 * sizeof t[0]);
    p = clip_half(&p, 0, x - g, -1);
    p = clip_half(&p, 0, x + 1 + g, 1);
    p = clip_half(&p, 2, z - g, -1);
    p = clip_half(&p, 2, z + 1 + g, 1);
    double s = 0;
    *wmin = HUGE_VAL, *wmax = -HUGE_VAL;
    for (int i = 0; i < p.n; ++i) {
        int j = (i + 1) % p.n;
        s += p.p[i][0] * p.p[j][2] - p.p[j][0] * p.p[i][2];
        *wmin = fmin(*wmin, p.p[i][1]), *wmax = fmax(*wmax, p.p[i][1]);
    }
    *area = fabs(s) / 2;
    return p;
}

/* Rasterizes the triangle `f` (world coordinates) alone and checks every column of the grid;
   `fat`: the triangle has plan area (else it is vertical or degenerate). Returns the number of
   columns it went into. */
static int check_triangle(const float f[9], bool fat, const float bmin[3], const char* what, int index) {
    float verts[9];
    memcpy(verts, f, sizeof verts);
    uint32_t tris[3] = {0, 1, 2};
    ptl_trimesh m = {.vert_count = 3, .verts = verts, .tri_count = 1, .tris = tris};
    ptl_vx_params p = {.cs = 1, .ch = 1, .width = RW, .depth = RW, .world_width = RW, .world_depth = RW,
                       .heights = RH, .walkable_height = 2, .walkable_climb = 1, .walkable_slope_cos = 0.7f};
    memcpy(p.bmin, bmin, sizeof p.bmin);
    ptl_heightfield hf;
    ptl_error err;
    cr_assert_eq(ptl_voxelize_trimesh(&m, NULL, 0, &p, NULL, &hf, &err), PTL_OK, "%s", err.message);
    double t[3][3];
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) t[k][c] = ((double)f[3 * k + c] - bmin[c]) / 1.0;
    int present = 0;
    for (int z = 0; z < RW; ++z)
        for (int x = 0; x < RW; ++x) {
            uint32_t c = (uint32_t)(z * RW + x), n = hf.col_start[c + 1] - hf.col_start[c];
            double a_in, a_out, a, lo, hi, l2, h2;
            rpoly in = piece(t, x, z, -1e-7, &a_in, &l2, &h2);
            rpoly out = piece(t, x, z, 1e-7, &a_out, &l2, &h2);
            rpoly ex = piece(t, x, z, 0, &a, &lo, &hi);
            bool must = fat ? a_in > 0 : in.n > 0, must_not = fat ? out.n == 0 || a_out == 0 : out.n == 0;
            cr_assert(n <= 1, "%s %d: column (%d, %d) holds %u spans", what, index, x, z, n);
            if (must) cr_assert_eq(n, 1, "%s %d: column (%d, %d) is missing (piece area %g)", what, index, x, z, a);
            if (must_not) cr_assert_eq(n, 0, "%s %d: column (%d, %d) is not touched but holds a span", what, index, x, z);
            if (n == 0) continue;
            ++present;
            const ptl_vx_span* s = &hf.spans[hf.col_start[c]];
            if (ex.n == 0) lo = l2, hi = h2; /* a touch the rasterizer took: the grown square's range */
            const double tol = 1e-6;
            int smin_lo = (int)floor(fmax(0, lo - tol)), smin_hi = (int)floor(fmax(0, lo + tol));
            int smax_lo = (int)ceil(fmin(RH, hi - tol)), smax_hi = (int)ceil(fmin(RH, hi + tol));
            cr_assert(s->smin >= smin_lo && s->smin <= smin_hi, "%s %d: column (%d, %d) starts at %u, piece from %.17g",
                      what, index, x, z, s->smin, lo);
            int top = s->smax;
            if (top == s->smin + 1 && smax_lo <= s->smin) smax_lo = top; /* at least one voxel tall */
            cr_assert(top >= smax_lo && top <= (smax_hi > s->smin + 1 ? smax_hi : s->smin + 1),
                      "%s %d: column (%d, %d) ends at %d, piece up to %.17g", what, index, x, z, top, hi);
        }
    ptl_heightfield_free(&hf);
    return present;
}

static uint64_t rng_state;
static double rnd(void) { /* uniform in [0, 1), a fixed sequence (xorshift64*) */
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

Test(voxel_raster, random_triangles_fill_exactly_the_columns_their_pieces_cover_with_their_y_ranges) {
    rng_state = 0x9e3779b97f4a7c15ull;
    const float origin[3] = {0, 0, 0};
    int checked = 0, columns = 0;
    for (int i = 0; i < 3000; ++i) {
        float f[9];
        int kind = i % 6;
        double cx = 2 + rnd() * (RW - 4), cz = 2 + rnd() * (RW - 4), size = kind == 4 ? 0.05 : 1 + rnd() * 10;
        for (int k = 0; k < 3; ++k) {
            f[3 * k] = (float)(cx + (rnd() - 0.5) * size), f[3 * k + 2] = (float)(cz + (rnd() - 0.5) * size);
            f[3 * k + 1] = (float)(10 + rnd() * (kind == 1 ? 40 : 4));
        }
        if (kind == 2) /* thin: the third vertex close to the first edge */
            for (int c = 0; c < 3; c += 2) f[6 + c] = (float)(f[c] + (f[3 + c] - f[c]) * 0.3 + (rnd() - 0.5) * 0.05);
        if (kind == 3) /* on the grid: integer and half coordinates */
            for (int k = 0; k < 9; ++k) f[k] = (float)(floor(f[k] * 2) / 2);
        if (kind == 5) /* partly outside the grid */
            for (int k = 0; k < 3; ++k) f[3 * k] = (float)(f[3 * k] - RW / 2.0 + (k == 0 ? -8 : 0));
        double ux = (double)f[3] - f[0], uz = (double)f[5] - f[2], vx = (double)f[6] - f[0], vz = (double)f[8] - f[2];
        double area2 = fabs(ux * vz - uz * vx), e2 = fmax(ux * ux + uz * uz, fmax(vx * vx + vz * vz, (vx - ux) * (vx - ux) + (vz - uz) * (vz - uz)));
        if (area2 <= 1e-4 * e2) continue; /* near the rasterizer's thin threshold: either rule may apply */
        columns += check_triangle(f, true, origin, "fat", i);
        ++checked;
    }
    cr_expect_gt(checked, 2000);
    cr_expect_gt(columns, 20000);
}

Test(voxel_raster, vertical_and_degenerate_triangles_fill_every_column_their_footprint_touches) {
    rng_state = 0x1234567887654321ull;
    const float origin[3] = {0, 0, 0};
    int columns = 0;
    for (int i = 0; i < 2000; ++i) {
        float f[9];
        int kind = i % 5;
        double x0 = 2 + rnd() * (RW - 4), z0 = 2 + rnd() * (RW - 4), dx = (rnd() - 0.5) * 12, dz = (rnd() - 0.5) * 12;
        if (kind == 1) dz = 0;                                 /* a wall along x */
        if (kind == 2) dx = 0, x0 = floor(x0);                 /* a wall along z, on a grid line */
        if (kind == 3) dx = dz = floor(dx);                    /* a diagonal wall through grid corners */
        if (kind == 4) x0 = floor(x0), z0 = floor(z0), dx = dz = 0; /* a vertical segment on a grid corner */
        double s[3] = {0, 1, rnd()}; /* where each vertex lies along the footprint */
        for (int k = 0; k < 3; ++k) {
            f[3 * k] = (float)(x0 + dx * s[k]), f[3 * k + 2] = (float)(z0 + dz * s[k]);
            f[3 * k + 1] = (float)(5 + rnd() * 30);
        }
        columns += check_triangle(f, false, origin, "vertical", i);
    }
    cr_expect_gt(columns, 10000);
}

Test(voxel_raster, far_from_the_origin_and_tiny_triangles_keep_the_rules) {
    rng_state = 0xdeadbeefcafef00dull;
    const float far[3] = {131072, -4096, 65536}; /* floats there are 1/64 apart: exact in double after bmin */
    for (int i = 0; i < 600; ++i) {
        float f[9];
        double size = i % 2 ? 0.5 : 8;
        double cx = 4 + rnd() * (RW - 8), cz = 4 + rnd() * (RW - 8);
        for (int k = 0; k < 3; ++k) {
            f[3 * k] = (float)(far[0] + floor((cx + (rnd() - 0.5) * size) * 64) / 64);
            f[3 * k + 1] = (float)(far[1] + 10 + floor(rnd() * 20 * 64) / 64);
            f[3 * k + 2] = (float)(far[2] + floor((cz + (rnd() - 0.5) * size) * 64) / 64);
        }
        double ux = (double)f[3] - f[0], uz = (double)f[5] - f[2], vx = (double)f[6] - f[0], vz = (double)f[8] - f[2];
        double area2 = ux * vz - uz * vx, e2 = fmax(ux * ux + uz * uz, vx * vx + vz * vz);
        if (area2 == 0) check_triangle(f, false, far, "far vertical", i);
        else if (fabs(area2) > 1e-4 * e2) check_triangle(f, true, far, "far", i);
    }
}
