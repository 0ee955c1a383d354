/* Generated 3D scenes (the demo's and the README's default scene, test and benchmark inputs), and
   writing a triangle mesh as OBJ.

   Every solid is a closed box (or a wedge, or a sheared box for sloped railings) with its own
   vertices, its triangles counter-clockwise seen from outside, so floors face +y. Sizes are metric
   and chosen for Recast's reference agent (height 2.0, radius 0.6, max climb 0.9, max slope 45°;
   see ../shared/data/README.md): storeys 3 m from floor to floor with 0.25 m slabs (2.75 m clear),
   doors 2.1 m wide and 2.4 m high, stairs of 16 risers of 0.1875 m and 0.3 m treads in lanes
   2.1 m wide, a 20° ramp 2.2 m wide, corridors 3 m wide. Doors and lanes are wide because a
   conservative voxelization at cell size 0.3 can take up to a cell off each side of an opening,
   and a radius 0.6 agent still needs 1.2 m.

   Determinism: the PRNG is splitmix64 (as in gen_grid.c) and the geometry uses only +, -, *, /,
   sqrt and floor on doubles (no libm transcendental functions, whose last bit may differ between
   C libraries), so a desc gives the same vertices everywhere.

   Triangle counts (seed 0): BUILDING 40 m / 3 storeys 3,400; 120 m / 3 storeys 48,000; 256 m /
   64 storeys (the limits) 4.8 million. BRIDGE 40 m 400; 4096 m 250,000 (crates are capped).
   TERRAIN 40 m 3,600; 1024 m 2.2 million (2 per square metre, plus skirts and rocks). */
#include <portolan/gen.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/internal.h"

/* ---- Sizes ([Units: wu = m]) ---------------------------------------------------------------------*/
#define STOREY_H 3.0    /* floor to floor */
#define SLAB_T 0.25     /* slab thickness: 2.75 m clear under each slab */
#define RISERS 16       /* per storey: 3.0 / 16 = 0.1875 m */
#define TREAD 0.3
#define LANE_W 2.1      /* one stair flight */
#define WALL_T 0.15     /* interior walls */
#define OUTER_T 0.3     /* outer walls */
#define RAIL_T 0.1
#define RAIL_H 1.0      /* above the 0.9 m climb: railings block */
#define DOOR_W 2.1      /* 1.8 m or more stays open after voxelization at 0.3: radius 0.6 passes */
#define DOOR_H 2.4
#define CORRIDOR 3.0
#define MARGIN 3.0      /* ground around a building */
#define HALL_X 13.0     /* the hall holding the ramp and the stairwell, along x */
#define RAMP_W 2.2
#define TAN20 0.36397023426620234 /* the ramp's slope, tan(20°) */
#define HEADROOM_STEPS 0 /* steps at each flight's foot under the slab: none, the whole flight is open above (2.375 m of headroom over the first steps shrinks below 2 m once voxelized: floors round up, ceilings down) */

/* Limits of ptl_scene_desc.size per kind (bake.h). */
#define BUILDING_MIN 24.0
#define BUILDING_MAX 256.0
#define BRIDGE_MIN 24.0
#define BRIDGE_MAX 4096.0
#define TERRAIN_MIN 8.0
#define TERRAIN_MAX 1024.0
#define MAX_STOREYS 64u

/* Tag names: a triangle's tag says what it belongs to (the demo colours by it; the bake may use it
   as an area type). Ids in the output are assigned in order of first use, which is also the order
   ptl_obj_parse assigns them when it reads the mesh back from ptl_trimesh_save_obj. */
enum { T_FLOOR = 1, T_WALL, T_STAIRS, T_RAMP, T_RAILING, T_FURNITURE, T_PILLAR, T_BRIDGE, T_CRATE, T_TERRAIN, T_ROCK,
       T_COUNT };
static const char* const TAG_NAMES[T_COUNT] = {"",          "g floor",   "g wall",   "g stairs",
                                               "g ramp",    "g railing", "g furniture", "g pillar",
                                               "g bridge",  "g crate",   "g terrain", "g rock"};

/* ---- PRNG (splitmix64) ---------------------------------------------------------------------------*/
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng* r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double unit(rng* r) { return (double)(next(r) >> 11) * (1.0 / 9007199254740992.0); }
static double uniform(rng* r, double lo, double hi) { return lo + (hi - lo) * unit(r); }
static bool chance(rng* r, double p) { return unit(r) < p; }

/* ---- Mesh builder ---------------------------------------------------------------------------------*/
typedef struct builder {
    const ptl_allocator* a;
    PTL_ARRAY(float) v;
    PTL_ARRAY(uint32_t) t;
    PTL_ARRAY(uint16_t) tag;
    uint16_t cur;
    bool oom;
} builder;

static uint32_t vert(builder* b, double x, double y, double z) {
    if (b->oom || !PTL_RESERVE(b->a, b->v, (uint64_t)b->v.count + 3)) {
        b->oom = true;
        return 0;
    }
    float* p = b->v.data + b->v.count;
    p[0] = (float)x;
    p[1] = (float)y;
    p[2] = (float)z;
    b->v.count += 3;
    return b->v.count / 3 - 1;
}

static void tri(builder* b, uint32_t i, uint32_t j, uint32_t k) {
    if (b->oom || !PTL_RESERVE(b->a, b->t, (uint64_t)b->t.count + 3) || !PTL_PUSH(b->a, b->tag, b->cur)) {
        b->oom = true;
        return;
    }
    uint32_t* p = b->t.data + b->t.count;
    p[0] = i;
    p[1] = j;
    p[2] = k;
    b->t.count += 3;
}

static void quad(builder* b, uint32_t i, uint32_t j, uint32_t k, uint32_t l) {
    tri(b, i, j, k);
    tri(b, i, k, l);
}

/* A hexahedron from its 8 corners, corner c = (x bit 1, y bit 2, z bit 4) of an axis-aligned box
   or of one sheared in y (a sloped railing): every face stays planar and faces outward. */
static void hexa(builder* b, const double c[8][3]) {
    uint32_t v[8];
    for (int i = 0; i < 8; ++i) v[i] = vert(b, c[i][0], c[i][1], c[i][2]);
    quad(b, v[2], v[6], v[7], v[3]); /* +y */
    quad(b, v[0], v[1], v[5], v[4]); /* -y */
    quad(b, v[1], v[3], v[7], v[5]); /* +x */
    quad(b, v[0], v[4], v[6], v[2]); /* -x */
    quad(b, v[4], v[5], v[7], v[6]); /* +z */
    quad(b, v[0], v[2], v[3], v[1]); /* -z */
}

static void box(builder* b, double x0, double y0, double z0, double x1, double y1, double z1) {
    if (x1 - x0 < 1e-3 || y1 - y0 < 1e-3 || z1 - z0 < 1e-3) return; /* nothing left after clipping */
    double c[8][3];
    for (int i = 0; i < 8; ++i) {
        c[i][0] = i & 1 ? x1 : x0;
        c[i][1] = i & 2 ? y1 : y0;
        c[i][2] = i & 4 ? z1 : z0;
    }
    hexa(b, c);
}

/* A solid ramp over [x0, x1] x [z0, z1] rising along +x from y0 (at x0) to y1 (at x1). */
static void wedge(builder* b, double x0, double x1, double z0, double z1, double y0, double y1) {
    uint32_t l0 = vert(b, x0, y0, z0), l1 = vert(b, x0, y0, z1);
    uint32_t h0 = vert(b, x1, y0, z0), h1 = vert(b, x1, y0, z1);
    uint32_t t0 = vert(b, x1, y1, z0), t1 = vert(b, x1, y1, z1);
    quad(b, l0, l1, t1, t0); /* the slope */
    quad(b, l0, h0, h1, l1); /* bottom */
    quad(b, h0, t0, t1, h1); /* high end (+x) */
    tri(b, l0, t0, h0);      /* -z side */
    tri(b, l1, h1, t1);      /* +z side */
}

/* A railing on a slope along x: from (xa, ya) to (xb, yb) at z in [z0, z1], RAIL_H tall. */
static void sloped_rail(builder* b, double xa, double ya, double xb, double yb, double z0, double z1) {
    double c[8][3];
    for (int i = 0; i < 8; ++i) {
        c[i][0] = i & 1 ? xb : xa;
        c[i][1] = (i & 1 ? yb : ya) + (i & 2 ? RAIL_H : 0.0);
        c[i][2] = i & 4 ? z1 : z0;
    }
    hexa(b, c);
}

/* ---- Building parts -------------------------------------------------------------------------------*/
typedef struct rect {
    double x0, z0, x1, z1;
} rect;

static int cmp_double(const void* pa, const void* pb) {
    double a = *(const double*)pa, b = *(const double*)pb;
    return (a > b) - (a < b);
}

/* A slab over `r` at [y0, y1] minus rectangular holes, as few boxes as a greedy cover of the
   grid that the hole edges cut gives. */
#define MAX_HOLES 4
static void slab(builder* b, rect r, double y0, double y1, const rect* holes, int nh) {
    double xs[2 + 2 * MAX_HOLES], zs[2 + 2 * MAX_HOLES];
    int nx = 0, nz = 0;
    xs[nx++] = r.x0, xs[nx++] = r.x1, zs[nz++] = r.z0, zs[nz++] = r.z1;
    for (int h = 0; h < nh; ++h) {
        xs[nx++] = fmin(fmax(holes[h].x0, r.x0), r.x1), xs[nx++] = fmin(fmax(holes[h].x1, r.x0), r.x1);
        zs[nz++] = fmin(fmax(holes[h].z0, r.z0), r.z1), zs[nz++] = fmin(fmax(holes[h].z1, r.z0), r.z1);
    }
    if (!ptl_sort(xs, (size_t)nx, sizeof *xs, cmp_double, b->a) ||
        !ptl_sort(zs, (size_t)nz, sizeof *zs, cmp_double, b->a)) {
        b->oom = true;
        return;
    }
    int ux = 1, uz = 1;
    for (int i = 1; i < nx; ++i) if (xs[i] != xs[ux - 1]) xs[ux++] = xs[i];
    for (int i = 1; i < nz; ++i) if (zs[i] != zs[uz - 1]) zs[uz++] = zs[i];
    bool fill[2 * MAX_HOLES + 1][2 * MAX_HOLES + 1]; /* [z cell][x cell]: solid and not yet covered */
    for (int j = 0; j + 1 < uz; ++j)
        for (int i = 0; i + 1 < ux; ++i) {
            double cx = 0.5 * (xs[i] + xs[i + 1]), cz = 0.5 * (zs[j] + zs[j + 1]);
            bool in_hole = false;
            for (int h = 0; h < nh; ++h)
                in_hole |= cx > holes[h].x0 && cx < holes[h].x1 && cz > holes[h].z0 && cz < holes[h].z1;
            fill[j][i] = !in_hole;
        }
    for (int j = 0; j + 1 < uz; ++j)
        for (int i = 0; i + 1 < ux; ++i) {
            if (!fill[j][i]) continue;
            int i1 = i + 1;
            while (i1 + 1 < ux && fill[j][i1]) ++i1;
            int j1 = j + 1;
            for (bool grow = true; grow && j1 + 1 < uz; j1 += grow) {
                for (int k = i; k < i1; ++k) grow &= fill[j1][k];
            }
            for (int jj = j; jj < j1; ++jj)
                for (int k = i; k < i1; ++k) fill[jj][k] = false;
            box(b, xs[i], y0, zs[j], xs[i1], y1, zs[j1]);
        }
}

/* One straight piece of wall, along x (axis 0) or z (axis 1) over [u0, u1], centred on c. */
static void wall_box(builder* b, int axis, double u0, double u1, double c, double t, double y0, double y1) {
    if (axis == 0) box(b, u0, y0, c - 0.5 * t, u1, y1, c + 0.5 * t);
    else box(b, c - 0.5 * t, y0, u0, c + 0.5 * t, y1, u1);
}

/* A wall over [u0, u1] with doorways centred at doors[] (sorted): full-height pieces between the
   doors and a lintel above each. */
static void wall(builder* b, int axis, double u0, double u1, double c, double t, double y0, double h,
                 const double* doors, int nd) {
    double at = u0;
    for (int i = 0; i < nd; ++i) {
        double d0 = doors[i] - 0.5 * DOOR_W, d1 = doors[i] + 0.5 * DOOR_W;
        wall_box(b, axis, at, d0, c, t, y0, y0 + h);
        wall_box(b, axis, d0, d1, c, t, y0 + DOOR_H, y0 + h);
        at = d1;
    }
    wall_box(b, axis, at, u1, c, t, y0, y0 + h);
}

/* A door centre in [lo, hi] keeping 0.3 m of wall beside the frame, or NAN when it does not fit. */
static double door_in(rng* r, double lo, double hi) {
    lo += 0.5 * DOOR_W + 0.3;
    hi -= 0.5 * DOOR_W + 0.3;
    return lo <= hi ? uniform(r, lo, hi) : NAN;
}

/* A wall with at most one door at probability p. */
static void wall_maybe_door(builder* b, rng* r, int axis, double u0, double u1, double c, double y0, double p) {
    double d = chance(r, p) ? door_in(r, u0, u1) : NAN;
    wall(b, axis, u0, u1, c, WALL_T, y0, STOREY_H - SLAB_T, &d, isnan(d) ? 0 : 1);
}

/* A few boxes inside a room, 1.4 m clear of its walls so no door is ever blocked; one in four
   is a low bench (0.45 m) that an agent can step onto. */
static void furnish(builder* b, rng* r, rect room, double y0) {
    int n = (int)(next(r) % 3);
    for (int i = 0; i < n; ++i) {
        double w = uniform(r, 0.6, 1.6), d = uniform(r, 0.6, 1.2);
        double h = chance(r, 0.25) ? 0.45 : uniform(r, 1.0, 1.9);
        double x0 = room.x0 + 1.4, x1 = room.x1 - 1.4 - w, z0 = room.z0 + 1.4, z1 = room.z1 - 1.4 - d;
        if (x1 < x0 || z1 < z0) return;
        double x = uniform(r, x0, x1), z = uniform(r, z0, z1);
        box(b, x, y0, z, x + w, y0 + h, z + d);
    }
}

/* The building's fixed layout (see building() for a plan). */
typedef struct bplan {
    double S;                  /* footprint side */
    double ix0, ix1, iz0, iz1; /* inside the outer walls */
    int blocks;                /* bands along z: room row, corridor, room row */
    double bd, row;            /* band depth, room row depth */
    double sx0, sx1;           /* stair flights' run */
    double lane[2][2];         /* z ranges of stair lanes A and B */
    double tube[3];            /* z centres of the stairwell's walls */
    double rx0, rx1;           /* ramp foot and top */
    double rz0, rz1;           /* ramp lane */
    uint32_t storeys;
} bplan;

static void plan_building(bplan* p, double S, uint32_t storeys) {
    p->S = S;
    p->storeys = storeys;
    p->ix0 = p->iz0 = MARGIN + OUTER_T;
    p->ix1 = p->iz1 = S - MARGIN - OUTER_T;
    double dz = p->iz1 - p->iz0;
    p->blocks = (int)(dz / 14.0);
    if (p->blocks < 1) p->blocks = 1;
    p->bd = dz / p->blocks;
    p->row = 0.5 * (p->bd - CORRIDOR);
    p->rz0 = p->iz0;
    p->rz1 = p->iz0 + RAMP_W;
    p->rx0 = p->ix0 + 2.0;
    p->rx1 = p->rx0 + STOREY_H / TAN20;
    p->sx0 = p->ix0 + 4.0;
    p->sx1 = p->sx0 + (RISERS - 1) * TREAD;
    double z = p->iz0 + 4.6; /* a 2.4 m walkway between the ramp and the stairwell */
    p->tube[0] = z + 0.5 * WALL_T;
    p->lane[0][0] = z + WALL_T, p->lane[0][1] = z + WALL_T + LANE_W;
    p->tube[1] = p->lane[0][1] + 0.5 * WALL_T;
    p->lane[1][0] = p->lane[0][1] + WALL_T, p->lane[1][1] = p->lane[1][0] + LANE_W;
    p->tube[2] = p->lane[1][1] + 0.5 * WALL_T;
}

/* Flight f climbs from floor f to floor f + 1: even flights in lane A towards +x, odd ones in
   lane B towards -x, so each arrives where the next one starts (a switchback). Each step is a
   solid box from the floor up to its tread. */
static void flight(builder* b, const bplan* p, uint32_t f) {
    double y0 = f * STOREY_H, rise = STOREY_H / RISERS;
    const double* lane = p->lane[f % 2];
    for (int i = 1; i < RISERS; ++i) {
        double a = f % 2 == 0 ? p->sx0 + (i - 1) * TREAD : p->sx1 - i * TREAD;
        box(b, a, y0, lane[0], a + TREAD, y0 + i * rise, lane[1]);
    }
}

/* Slab k (k = 1 .. storeys): openings above flight k-1 (all but its first HEADROOM_STEPS steps,
   which keep 2.375 m under the slab) and, on the first floor, above the ramp where it is more
   than 0.55 m high (2.2 m under the slab). */
static void upper_slab(builder* b, const bplan* p, uint32_t k) {
    rect holes[2];
    int nh = 0;
    if (k < p->storeys) {
        uint32_t f = k - 1;
        const double* lane = p->lane[f % 2];
        double keep = HEADROOM_STEPS * TREAD;
        holes[nh++] = f % 2 == 0 ? (rect){p->sx0 + keep, lane[0], p->sx1, lane[1]}
                                 : (rect){p->sx0, lane[0], p->sx1 - keep, lane[1]};
        if (k == 1) holes[nh++] = (rect){p->rx0 + 1.5, p->rz0, p->rx1, p->rz1};
    }
    rect r = {MARGIN, MARGIN, p->S - MARGIN, p->S - MARGIN};
    slab(b, r, k * STOREY_H - SLAB_T, k * STOREY_H, holes, nh);
}

/* The ramp from the ground to the first floor, a railing along its open side, and railings
   around its opening on the first floor. */
static void ramp(builder* b, const bplan* p) {
    b->cur = T_RAMP;
    wedge(b, p->rx0, p->rx1, p->rz0, p->rz1, 0.0, STOREY_H);
    b->cur = T_RAILING;
    sloped_rail(b, p->rx0, 0.0, p->rx1, STOREY_H, p->rz1 - RAIL_T, p->rz1);
    double y = STOREY_H, hx = p->rx0 + 1.5;
    box(b, hx, y, p->rz1, p->rx1, y + RAIL_H, p->rz1 + RAIL_T);
    box(b, hx - RAIL_T, y, p->rz0, hx, y + RAIL_H, p->rz1 + RAIL_T);
}

/* Splits [x0, x1] into rooms 5 to 9 m wide (the last one 4 to 13 m); returns the boundaries. */
#define MAX_ROOMS 64
#define MAX_BANDS 24 /* a 256 m building has 17 */
static int split_row(rng* r, double x0, double x1, double* xs) {
    int n = 0;
    xs[n++] = x0;
    double at = x0;
    while (x1 - at > 13.0 && n < MAX_ROOMS) {
        at += uniform(r, 5.0, 9.0);
        xs[n++] = at;
    }
    xs[n++] = x1;
    return n;
}

static bool near_any(double x, const double* xs, int n, double d) {
    for (int i = 0; i < n; ++i)
        if (fabs(x - xs[i]) < d) return true;
    return false;
}

/* Rooms of one band on one storey: two rows of rooms along a corridor, every room with a door to
   the corridor, some with doors to their neighbours, the hall or the east corridor. xs[0] and
   xs[1] are the rows' room boundaries (south, north). */
static void band_rooms(builder* b, rng* r, const bplan* p, int band, double y0, double* const xs[2], const int nxs[2]) {
    double z0 = p->iz0 + band * p->bd, h = STOREY_H - SLAB_T;
    double rows[2][2] = {{z0, z0 + p->row}, {z0 + p->row + CORRIDOR, z0 + p->bd}};
    for (int s = 0; s < 2; ++s) {
        const double* x = xs[s];
        int n = nxs[s];
        if (n < 2) continue;
        double rz0 = rows[s][0], rz1 = rows[s][1], cz = s == 0 ? rz1 : rz0;
        double doors[MAX_ROOMS];
        for (int i = 0; i + 1 < n; ++i) doors[i] = door_in(r, x[i] + WALL_T, x[i + 1] - WALL_T);
        b->cur = T_WALL;
        wall(b, 0, x[0], x[n - 1], cz, WALL_T, y0, h, doors, n - 1);
        for (int i = 1; i + 1 < n; ++i) wall_maybe_door(b, r, 1, rz0, rz1, x[i], y0, 0.35);
        if (band == 0) wall_maybe_door(b, r, 1, rz0, rz1, x[0], y0, 0.5); /* hall side */
        wall_maybe_door(b, r, 1, rz0, rz1, x[n - 1], y0, 0.5);            /* east corridor side */
        b->cur = T_FURNITURE;
        for (int i = 0; i + 1 < n; ++i) furnish(b, r, (rect){x[i], rz0, x[i + 1], rz1}, y0);
    }
}

/* The wall between band k and band k+1 (back to back room rows), with a door every 12 m or so
   where it meets no partition on either side. */
static void band_boundary(builder* b, rng* r, const bplan* p, int band, double y0, const double* north, int nn,
                          const double* south, int ns) {
    double z = p->iz0 + (band + 1) * p->bd, x0 = p->ix0, x1 = p->ix1 - CORRIDOR;
    double doors[64];
    int nd = 0;
    int want = 1 + (int)((x1 - x0) / 12.0);
    for (int tries = 0; tries < 4 * want && nd < want && nd < 64; ++tries) {
        double d = door_in(r, x0, x1);
        double clear = 0.5 * DOOR_W + 0.4;
        if (isnan(d) || near_any(d, north, nn, clear) || near_any(d, south, ns, clear) || near_any(d, doors, nd, DOOR_W + 1.0))
            continue;
        if (band == 0 && fabs(d - (p->ix0 + HALL_X)) < clear) continue;
        doors[nd++] = d;
    }
    if (!ptl_sort(doors, (size_t)nd, sizeof *doors, cmp_double, b->a)) {
        b->oom = true;
        return;
    }
    b->cur = T_WALL;
    wall(b, 0, x0, x1, z, WALL_T, y0, STOREY_H - SLAB_T, doors, nd);
}

/* Outer walls of storey k: doors on the ground floor only (into the hall, at every corridor's
   end on the west and east sides, and at both ends of the east corridor). */
static void outer_walls(builder* b, const bplan* p, uint32_t k) {
    double y0 = k * STOREY_H, h = STOREY_H - SLAB_T, lo = MARGIN, hi = p->S - MARGIN;
    double cw = lo + 0.5 * OUTER_T, ce = hi - 0.5 * OUTER_T;
    double west[65], east[65], ends[1] = {p->ix1 - 0.5 * CORRIDOR};
    int nw = 0, ne = 0;
    if (k == 0) {
        west[nw++] = p->iz0 + 3.4; /* into the hall, between the ramp and the stairwell */
        for (int i = 0; i < p->blocks && i < 64; ++i) {
            double c = p->iz0 + i * p->bd + p->row + 0.5 * CORRIDOR;
            if (i > 0) west[nw++] = c;
            east[ne++] = c;
        }
    }
    b->cur = T_WALL;
    wall(b, 0, lo, hi, cw, OUTER_T, y0, h, ends, k == 0 ? 1 : 0);
    wall(b, 0, lo, hi, ce, OUTER_T, y0, h, ends, k == 0 ? 1 : 0);
    wall(b, 1, lo + OUTER_T, hi - OUTER_T, cw, OUTER_T, y0, h, west, nw);
    wall(b, 1, lo + OUTER_T, hi - OUTER_T, ce, OUTER_T, y0, h, east, ne);
}

/* Walls, pillars and furniture of storey k. */
static void storey(builder* b, rng* r, const bplan* p, uint32_t k) {
    double y0 = k * STOREY_H, h = STOREY_H - SLAB_T;
    outer_walls(b, p, k);
    if (p->storeys > 1) { /* the stairwell: two lanes between three walls, open at both ends */
        b->cur = T_WALL;
        for (int i = 0; i < 3; ++i) wall(b, 0, p->sx0, p->sx1, p->tube[i], WALL_T, y0, h, NULL, 0);
    }
    b->cur = T_PILLAR; /* in the hall, north of the stairwell */
    double pz0 = p->tube[2] + 1.5, pz1 = p->iz0 + p->bd - 1.5 - 0.5;
    for (int i = 0; i < 2 && pz1 > pz0; ++i) {
        double x = uniform(r, p->ix0 + 1.5, p->ix0 + HALL_X - 2.0), z = uniform(r, pz0, pz1);
        box(b, x, y0, z, x + 0.5, y0 + h, z + 0.5);
    }
    double xs[MAX_BANDS][2][MAX_ROOMS + 1];
    int nxs[MAX_BANDS][2];
    int blocks = p->blocks < MAX_BANDS ? p->blocks : MAX_BANDS;
    for (int band = 0; band < blocks; ++band) {
        double x0 = band == 0 ? p->ix0 + HALL_X : p->ix0, x1 = p->ix1 - CORRIDOR;
        for (int s = 0; s < 2; ++s) nxs[band][s] = x1 - x0 >= 4.0 ? split_row(r, x0, x1, xs[band][s]) : 0;
    }
    for (int band = 0; band < blocks; ++band) {
        double* rows[2] = {xs[band][0], xs[band][1]};
        band_rooms(b, r, p, band, y0, rows, nxs[band]);
        if (band + 1 < blocks)
            band_boundary(b, r, p, band, y0, xs[band][1], nxs[band][1], xs[band + 1][0], nxs[band + 1][0]);
    }
}

/* Plan (x right, z up; the ground extends MARGIN beyond the outer walls):
      +----------------------------------------------+--------+
      | rooms     | rooms     | rooms                |        |
      +---door----+---door----+---door---------------+  east  |
      | corridor (band 1)                               corri- |   bands repeat along z,
      +---door----+---door----+----------------------+  dor   |   14 to 28 m deep each
      | rooms     | rooms     | rooms                |  (3 m) |
      +-------door------+-----+----------------------+        |
      | hall  pillars   | rooms     | rooms          |        |
      |  [stair lane B] +---door----+---door---------+        |
      |  [stair lane A]   corridor (band 0)                   |
      |  walkway        +---door----+---door---------+        |
      |  [ramp       ]  | rooms     | rooms          |        |
      +-----------------+-----------+----------------+--------+
   The hall (13 m along x) holds the ramp against the south wall and the switchback stairwell;
   every storey repeats the bands with new rooms, doors and furniture. Outer doors (ground floor
   only) lead into the hall, to each corridor's ends and to both ends of the east corridor. */
static void building(builder* b, rng* r, double S, uint32_t storeys) {
    bplan p;
    plan_building(&p, S, storeys);
    b->cur = T_FLOOR;
    box(b, 0.0, -SLAB_T, 0.0, S, 0.0, S);
    for (uint32_t k = 1; k <= storeys; ++k) upper_slab(b, &p, k);
    for (uint32_t k = 0; k < storeys; ++k) storey(b, r, &p, k);
    b->cur = T_STAIRS;
    for (uint32_t f = 0; f + 1 < storeys; ++f) flight(b, &p, f);
    if (storeys > 1) ramp(b, &p);
}

/* ---- Bridge ---------------------------------------------------------------------------------------*/
static bool overlaps(rect a, rect b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.z0 < b.z1 && b.z0 < a.z1; }

/* Crates on the ground, kept out of the `keep` rectangles. */
static void crates(builder* b, rng* r, double S, const rect* keep, int nk, uint32_t count) {
    b->cur = T_CRATE;
    for (uint32_t i = 0; i < count; ++i) {
        double w = uniform(r, 0.8, 2.5), d = uniform(r, 0.8, 2.5);
        double h = chance(r, 0.2) ? 0.4 : uniform(r, 0.8, 2.0);
        double x = uniform(r, 1.0, S - 1.0 - w), z = uniform(r, 1.0, S - 1.0 - d);
        rect c = {x - 1.0, z - 1.0, x + w + 1.0, z + d + 1.0};
        bool clash = false;
        for (int k = 0; k < nk; ++k) clash |= overlaps(c, keep[k]);
        if (!clash) box(b, x, 0.0, z, x + w, h, z + d);
    }
}

/* A deck 3.2 to 3.8 m high along x at mid z, a 20° ramp up at the west end and a straight stair
   (19 risers of 0.17 to 0.2 m) at the east end, railings on all three, pillars under the deck,
   crates on the ground. The ground runs under the deck (2.9 m clear or more). */
static void bridge(builder* b, rng* r, double S) {
    const double half = 1.5, deck_t = 0.3;
    double zc = 0.5 * S, z0 = zc - half, z1 = zc + half;
    double h = 3.2 + 0.6 * unit(r);
    double rise = h / 19, xr0 = 2.0, xr1 = xr0 + h / TAN20, xs1 = S - 2.0, xs0 = xs1 - 18 * TREAD;
    b->cur = T_FLOOR;
    box(b, 0.0, -SLAB_T, 0.0, S, 0.0, S);
    b->cur = T_RAMP;
    wedge(b, xr0, xr1, z0, z1, 0.0, h);
    b->cur = T_STAIRS;
    for (int i = 1; i <= 18; ++i) box(b, xs1 - i * TREAD, 0.0, z0, xs1 - (i - 1) * TREAD, i * rise, z1);
    b->cur = T_BRIDGE;
    box(b, xr1, h - deck_t, z0, xs0, h, z1);
    b->cur = T_RAILING;
    for (int s = 0; s < 2; ++s) {
        double a = s ? z1 - RAIL_T : z0, c = s ? z1 : z0 + RAIL_T;
        box(b, xr1, h, a, xs0, h + RAIL_H, c);
        sloped_rail(b, xr0, 0.0, xr1, h, a, c);
        sloped_rail(b, xs0, h, xs1, rise, a, c);
    }
    b->cur = T_PILLAR;
    int np = (int)((xs0 - xr1) / 8.0);
    for (int i = 1; i <= np; ++i) {
        double x = xr1 + (xs0 - xr1) * i / (np + 1);
        box(b, x - 0.3, 0.0, zc - 0.3, x + 0.3, h - deck_t, zc + 0.3);
    }
    rect keep[1] = {{0.0, z0 - 1.0, S, z1 + 1.0}};
    double n = S * S / 150.0;
    crates(b, r, S, keep, 1, n > 20000 ? 20000u : (uint32_t)n);
}

/* ---- Terrain --------------------------------------------------------------------------------------*/
/* Value noise: a hash of the lattice point gives a value in [-1, 1]; quintic fade between. */
static double lattice(uint64_t seed, int64_t ix, int64_t iz) {
    rng h = {seed ^ ((uint64_t)ix * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)iz * 0xc2b2ae3d27d4eb4full)};
    return 2.0 * unit(&h) - 1.0;
}
static double fade(double t) { return t * t * t * (t * (t * 6 - 15) + 10); }
static double noise(uint64_t seed, double x, double z) {
    double fx = floor(x), fz = floor(z);
    int64_t ix = (int64_t)fx, iz = (int64_t)fz;
    double u = fade(x - fx), v = fade(z - fz);
    double a = lattice(seed, ix, iz), bb = lattice(seed, ix + 1, iz);
    double c = lattice(seed, ix, iz + 1), d = lattice(seed, ix + 1, iz + 1);
    return (a + (bb - a) * u) + ((c + (d - c) * u) - (a + (bb - a) * u)) * v;
}

/* Three octaves (32 m / 3 m, 16 m / 1 m, 8 m / 0.25 m): slopes mostly under 25°, at worst about
   35°. Then ridges: tents 1 to 1.6 m wide each side and 1.8 to 3 m high (48° to 72°) along
   segments 6 to 16 m long. */
static void terrain_heights(rng* r, int n, double step, double* hgt) {
    uint64_t seed = next(r);
    static const double cell[3] = {32.0, 16.0, 8.0}, amp[3] = {3.0, 1.0, 0.25};
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            double y = 0;
            for (int o = 0; o < 3; ++o) y += amp[o] * noise(seed + (uint64_t)o, i * step / cell[o], j * step / cell[o]);
            hgt[(size_t)j * (n + 1) + i] = y;
        }
    double S = n * step;
    uint32_t ridges = (uint32_t)(S * S / 3000.0);
    if (ridges < 2) ridges = 2;
    for (uint32_t k = 0; k < ridges; ++k) {
        double ax = uniform(r, 0, S), az = uniform(r, 0, S), dx = uniform(r, -1, 1), dz = uniform(r, -1, 1);
        double len = uniform(r, 6.0, 16.0), w = uniform(r, 1.0, 1.6), top = uniform(r, 1.8, 3.0);
        double dl = sqrt(dx * dx + dz * dz);
        if (dl < 1e-3) dx = 1, dz = 0, dl = 1;
        dx *= len / dl, dz *= len / dl;
        double bx = ax + dx, bz = az + dz;
        int i0 = (int)floor((fmin(ax, bx) - w) / step), i1 = (int)ceil((fmax(ax, bx) + w) / step);
        int j0 = (int)floor((fmin(az, bz) - w) / step), j1 = (int)ceil((fmax(az, bz) + w) / step);
        for (int j = j0 < 0 ? 0 : j0; j <= j1 && j <= n; ++j)
            for (int i = i0 < 0 ? 0 : i0; i <= i1 && i <= n; ++i) {
                double px = i * step - ax, pz = j * step - az;
                double t = (px * dx + pz * dz) / (len * len);
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                double ex = px - t * dx, ez = pz - t * dz, d = sqrt(ex * ex + ez * ez);
                if (d < w) hgt[(size_t)j * (n + 1) + i] += top * (1.0 - d / w);
            }
    }
}

/* A heightfield at about 1 m, closed by skirts and a bottom, with rocks (boxes) sunk into it. */
static ptl_status terrain(builder* b, rng* r, double S) {
    int n = (int)ceil(S - 1e-9);
    double step = S / n;
    size_t np = (size_t)(n + 1) * (n + 1);
    double* hgt = ptl_mem_alloc(b->a, np * sizeof *hgt);
    if (!hgt) return PTL_ERR_NO_MEMORY;
    terrain_heights(r, n, step, hgt);
    double lo = hgt[0];
    for (size_t i = 1; i < np; ++i) lo = fmin(lo, hgt[i]);
    double base = floor(lo) - 1.0;
    b->cur = T_TERRAIN;
    uint32_t first = b->v.count / 3;
    for (int j = 0; j <= n; ++j) /* the last row and column exactly at S */
        for (int i = 0; i <= n; ++i) vert(b, i == n ? S : i * step, hgt[(size_t)j * (n + 1) + i], j == n ? S : j * step);
#define TV(i, j) (first + (uint32_t)(j) * (uint32_t)(n + 1) + (uint32_t)(i))
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) quad(b, TV(i, j), TV(i, j + 1), TV(i + 1, j + 1), TV(i + 1, j));
    for (int i = 0; i < n; ++i) { /* skirts: -z, +z, -x, +x (one vertex per statement: a fixed order) */
        double u0 = i * step, u1 = i + 1 == n ? S : (i + 1) * step;
        uint32_t a = vert(b, u0, base, 0), c = vert(b, u1, base, 0);
        quad(b, a, TV(i, 0), TV(i + 1, 0), c);
        a = vert(b, u1, base, S), c = vert(b, u0, base, S);
        quad(b, a, TV(i + 1, n), TV(i, n), c);
        a = vert(b, 0, base, u1), c = vert(b, 0, base, u0);
        quad(b, a, TV(0, i + 1), TV(0, i), c);
        a = vert(b, S, base, u0), c = vert(b, S, base, u1);
        quad(b, a, TV(n, i), TV(n, i + 1), c);
    }
#undef TV
    uint32_t c00 = vert(b, 0, base, 0), c10 = vert(b, S, base, 0), c11 = vert(b, S, base, S), c01 = vert(b, 0, base, S);
    quad(b, c00, c10, c11, c01);
    b->cur = T_ROCK;
    double count = S * S / 250.0;
    uint32_t rocks = count < 3 ? 3u : count > 20000 ? 20000u : (uint32_t)count;
    for (uint32_t k = 0; k < rocks; ++k) {
        double w = uniform(r, 0.8, 2.5), d = uniform(r, 0.8, 2.5), h = uniform(r, 0.6, 2.0);
        if (w > S - 1 || d > S - 1) continue;
        double x = uniform(r, 0.5, S - 0.5 - w), z = uniform(r, 0.5, S - 0.5 - d);
        int i0 = (int)floor(x / step), i1 = (int)ceil((x + w) / step);
        int j0 = (int)floor(z / step), j1 = (int)ceil((z + d) / step);
        double gmin = INFINITY, gmax = -INFINITY;
        for (int j = j0; j <= j1 && j <= n; ++j)
            for (int i = i0; i <= i1 && i <= n; ++i) {
                gmin = fmin(gmin, hgt[(size_t)j * (n + 1) + i]);
                gmax = fmax(gmax, hgt[(size_t)j * (n + 1) + i]);
            }
        box(b, x, gmin - 0.3, z, x + w, gmax + h, z + d);
    }
    ptl_mem_free(b->a, hgt, np * sizeof *hgt);
    return PTL_OK;
}

/* ---- Output ---------------------------------------------------------------------------------------*/
/* Moves the builder's arrays into `out` at exact sizes, tags renumbered in order of first use. */
static ptl_status emit(builder* b, ptl_trimesh* out) {
    const ptl_allocator* a = b->a;
    uint32_t nv = b->v.count / 3, nt = b->t.count / 3;
    uint16_t map[T_COUNT] = {0};
    uint16_t order[T_COUNT];
    uint32_t ntag = 1;
    for (uint32_t i = 0; i < nt; ++i) {
        uint16_t t = b->tag.data[i];
        if (t && !map[t]) order[ntag] = t, map[t] = (uint16_t)ntag++;
        b->tag.data[i] = map[t];
    }
    float* v = ptl_mem_realloc(a, b->v.data, (size_t)b->v.cap * sizeof(float), (size_t)nv * 3 * sizeof(float));
    if (!v) return PTL_ERR_NO_MEMORY;
    b->v.data = v, b->v.cap = nv * 3;
    uint32_t* t = ptl_mem_realloc(a, b->t.data, (size_t)b->t.cap * sizeof(uint32_t), (size_t)nt * 3 * sizeof(uint32_t));
    if (!t) return PTL_ERR_NO_MEMORY;
    b->t.data = t, b->t.cap = nt * 3;
    uint16_t* tg = ptl_mem_realloc(a, b->tag.data, (size_t)b->tag.cap * sizeof(uint16_t), (size_t)nt * sizeof(uint16_t));
    if (!tg) return PTL_ERR_NO_MEMORY;
    b->tag.data = tg, b->tag.cap = nt;
    char** names = ptl_mem_calloc(a, ntag, sizeof *names);
    if (!names) return PTL_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < ntag; ++i) {
        const char* s = TAG_NAMES[i ? order[i] : 0];
        size_t len = strlen(s) + 1;
        names[i] = ptl_mem_alloc(a, len);
        if (!names[i]) {
            for (uint32_t k = 0; k < i; ++k) ptl_mem_free(a, names[k], strlen(names[k]) + 1);
            ptl_mem_free(a, names, ntag * sizeof *names);
            return PTL_ERR_NO_MEMORY;
        }
        memcpy(names[i], s, len);
    }
    for (int c = 0; c < 3; ++c) out->bmin[c] = INFINITY, out->bmax[c] = -INFINITY;
    for (uint32_t i = 0; i < nt * 3; ++i)
        for (int c = 0; c < 3; ++c) {
            float x = v[(size_t)t[i] * 3 + c];
            if (x < out->bmin[c]) out->bmin[c] = x;
            if (x > out->bmax[c]) out->bmax[c] = x;
        }
    out->vert_count = nv, out->verts = v;
    out->tri_count = nt, out->tris = t, out->tri_tag = tg;
    out->tag_count = ntag, out->tag_names = names;
    memset(&b->v, 0, sizeof b->v);
    memset(&b->t, 0, sizeof b->t);
    memset(&b->tag, 0, sizeof b->tag);
    return PTL_OK;
}

static ptl_status check_desc(const ptl_scene_desc* desc, ptl_scene_desc* d, ptl_error* err) {
    memset(d, 0, sizeof *d);
    if (desc) *d = *desc;
    static const char* const kinds[3] = {"building", "bridge", "terrain"};
    static const double lo[3] = {BUILDING_MIN, BRIDGE_MIN, TERRAIN_MIN}, hi[3] = {BUILDING_MAX, BRIDGE_MAX, TERRAIN_MAX};
    if ((unsigned)d->kind > (unsigned)PTL_SCENE_TERRAIN)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "scene: unknown kind %d", (int)d->kind);
    if (d->size == 0) d->size = 40.0f;
    if (d->storeys == 0) d->storeys = 3;
    int k = (int)d->kind;
    if (!(d->size >= lo[k] && d->size <= hi[k]))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "scene: size %g is outside %g..%g for a %s", (double)d->size,
                             lo[k], hi[k], kinds[k]);
    if (d->kind == PTL_SCENE_BUILDING && d->storeys > MAX_STOREYS)
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "scene: %u storeys is outside 1..%u", d->storeys, MAX_STOREYS);
    return PTL_OK;
}

ptl_status ptl_scene_generate(const ptl_scene_desc* desc, ptl_trimesh* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_scene_generate: out is NULL");
    memset(out, 0, sizeof *out);
    out->alloc = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    ptl_scene_desc d;
    ptl_status st = check_desc(desc, &d, err);
    if (st < 0) return st;
    builder b;
    memset(&b, 0, sizeof b);
    b.a = &out->alloc;
    rng r = {((uint64_t)d.seed << 32) ^ 0x53434e45ull ^ ((uint64_t)d.kind << 8)};
    double S = d.size;
    if (d.kind == PTL_SCENE_BUILDING) building(&b, &r, S, d.storeys);
    else if (d.kind == PTL_SCENE_BRIDGE) bridge(&b, &r, S);
    else st = terrain(&b, &r, S);
    if (st >= 0 && b.oom) st = PTL_ERR_NO_MEMORY;
    if (st >= 0) st = emit(&b, out);
    PTL_ARRAY_FREE(b.a, b.v);
    PTL_ARRAY_FREE(b.a, b.t);
    PTL_ARRAY_FREE(b.a, b.tag);
    if (st < 0) return ptl_error_set(err, st, "scene: out of memory");
    return ptl_error_ok(err);
}

/* The shortest of %.7g, %.8g, %.9g that reads back (strtod, then to float, as ptl_obj_parse does)
   as the same float; %.9g always does. */
static int format_float(char* buf, size_t cap, float x) {
    for (int prec = 7; prec < 9; ++prec) {
        int n = snprintf(buf, cap, "%.*g", prec, (double)x);
        if ((float)strtod(buf, NULL) == x) return n;
    }
    return snprintf(buf, cap, "%.9g", (double)x);
}

ptl_status ptl_trimesh_save_obj(const ptl_trimesh* m, const char* path, ptl_error* err) {
    if (!m || !path) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_trimesh_save_obj: NULL argument");
    if ((m->vert_count && !m->verts) || (m->tri_count && !m->tris))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_trimesh_save_obj: mesh arrays are NULL");
    for (uint64_t i = 0; i < (uint64_t)m->tri_count * 3; ++i)
        if (m->tris[i] >= m->vert_count)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_trimesh_save_obj: triangle %llu names vertex %u of %u",
                                 (unsigned long long)(i / 3), m->tris[i], m->vert_count);
    FILE* f = fopen(path, "w");
    if (!f) return ptl_error_set(err, PTL_ERR_IO, "%s: cannot open for writing", path);
    fprintf(f, "# Portolan triangle mesh: %u vertices, %u triangles\n", m->vert_count, m->tri_count);
    char line[128], num[3][32];
    for (uint32_t i = 0; i < m->vert_count; ++i) {
        for (int c = 0; c < 3; ++c) format_float(num[c], sizeof num[c], m->verts[(size_t)i * 3 + c]);
        snprintf(line, sizeof line, "v %s %s %s\n", num[0], num[1], num[2]);
        fputs(line, f);
    }
    uint32_t cur = 0;
    for (uint32_t i = 0; i < m->tri_count; ++i) {
        uint32_t t = m->tri_tag ? m->tri_tag[i] : 0;
        if (t != cur) {
            if (t == 0) fputs("g\n", f); /* back to no tag: ptl_obj_parse reads a bare g as tag 0 */
            else if (m->tag_names && t < m->tag_count && m->tag_names[t] && m->tag_names[t][0])
                fprintf(f, "%s\n", m->tag_names[t]);
            else fprintf(f, "g tag%u\n", t);
            cur = t;
        }
        const uint32_t* v = m->tris + (size_t)i * 3;
        fprintf(f, "f %u %u %u\n", v[0] + 1, v[1] + 1, v[2] + 1);
    }
    bool failed = ferror(f) != 0;
    if (fclose(f) != 0 || failed) return ptl_error_set(err, PTL_ERR_IO, "%s: write failed", path);
    return ptl_error_ok(err);
}
