/* Triangles -> solid heightfield: 2.5D spans with integer heights (Saupin et al. 2014, §2.2;
   the span representation of Recast's heightfield).

   Rasterization is conservative in x-z: a triangle goes into every column its closed footprint
   meets with positive area, so nothing is lost between column centres. The triangle is cut along
   the grid lines (Sutherland-Hodgman against each side of the column's square; the cut along
   z = row + 1 is shared by the row above and the cut along x = col + 1 by the next column, so each
   line is computed once), and the column gets the y range of the piece inside its square:
   [floor(ymin / ch), ceil(ymax / ch)] relative to bmin, at least one voxel tall. Squares that
   lie wholly inside a triangle skip the clipping: their range is the triangle's plane at the
   square's corners (most of the work on scenes with large floors); a level triangle skips it
   everywhere (its height is the same in every piece). A row's pieces are cut keeping only (u, y)
   and, for the part inside the column, only its y range (split_u), which is all a span needs.

   Which columns a triangle touches:
   - A triangle with area in plan (floors, ramps, slanted walls) counts where its piece has
     positive area: a floor whose edge lies exactly on a grid line does not leak into the column
     beyond it (a 3 m floor with 0.3 m cells is 10 columns, as in Recast).
   - A triangle that is vertical, or so nearly that its plan is a segment (width below 1e-6 of its
     length), counts wherever its closed footprint touches the closed square: a wall lying exactly
     on a grid line blocks both columns beside it, never neither (Recast does the same: points on a
     dividing line go to both sides).

   Walkable: the triangle's unit normal has y >= cos(max slope) (Recast: strictly greater; a 45
   degree face is walkable here, not there). The normal follows the winding, counter-clockwise seen
   from above facing up, as in Recast and ptl_trimesh. Taking |y| instead (so that badly wound
   floors work) was tried and is available as ptl_vx_params.walkable_both_sides, but it is not the
   default: real scenes model roofs and ceilings as single faces seen from below, and with |y| every
   one of them becomes a walkable floor with open sky above (dungeon.obj: +89% walkable area,
   convex.obj +93%, go-detour-twisted.obj +43% against Recast; the clearance filter cannot remove
   them, nothing is above them). Degenerate triangles (zero area) have no normal: solid, never
   walkable.

   Merging: spans of one column that overlap or touch ([a, b] and [b, c]) merge into one. The
   merged top is the highest top, its tag the tag of the surface that made it. The top is walkable
   when some walkable surface among the merged pieces lies within walkable_climb below it (Recast's
   flagMergeThr = walkableClimb, as RecastDemo passes: a curb or a thin step on a walkable floor
   keeps the column walkable; the low-obstacle filter does the same across separate spans); its tag
   is then that walkable surface's. Ties between equal tops go to the larger tag. These rules are
   associative and commutative, so the result does not depend on the order of the triangles
   (Recast's own merge compares against the already-merged top, which makes it order-dependent).

   Memory: one list head per column and a pool of spans, recycled when spans merge; the result is
   compacted into arrays (voxelize.h). Nothing is proportional to width * depth * height. */
#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "voxelize.h"
#include "vx_params.h"

static double dmin(double a, double b) {
    return a < b ? a : b;
}
static double dmax(double a, double b) {
    return a > b ? a : b;
}

/* A span while rasterizing: its extent, the tag of its top, and the highest walkable top merged
   into it (0: none; every top is >= 1) with that surface's tag. */
typedef struct wspan {
    uint16_t smin, smax, ttag, wtop, wtag, pad;
    uint32_t next;
} wspan;

typedef struct raster {
    const ptl_vx_params* p;
    const ptl_allocator* a;
    uint32_t* head; /* width * depth list heads, PTL_VX_NONE: empty */
    PTL_ARRAY(wspan) pool;
    uint32_t free_list;
    uint32_t live;
} raster;

/* Merges b's extent and tags into a (they overlap or touch): the rules in the overview. */
static void merge_into(wspan* a, const wspan* b) {
    if (b->smin < a->smin) a->smin = b->smin;
    if (b->smax > a->smax || (b->smax == a->smax && b->ttag > a->ttag)) a->smax = b->smax, a->ttag = b->ttag;
    if (b->wtop > a->wtop || (b->wtop == a->wtop && b->wtag > a->wtag)) a->wtop = b->wtop, a->wtag = b->wtag;
}

/* Adds [smin, smax) to column `col`, merging with the spans it overlaps or touches. The first
   of those takes the new span in place (most pieces of a triangle land on a span already there,
   so no node is taken or given back) and absorbs the ones after it that it now reaches; it stays
   between the same neighbours, as it only grows towards spans it does not reach. */
static bool add_span(raster* r, uint32_t col, uint16_t smin, uint16_t smax, bool walkable, uint16_t tag) {
    wspan s = {smin, smax, tag, walkable ? smax : 0, walkable ? tag : 0, 0, PTL_VX_NONE};
    uint32_t prev = PTL_VX_NONE, cur = r->head[col];
    while (cur != PTL_VX_NONE) {
        wspan* c = &r->pool.data[cur];
        if (c->smin > s.smax) break;
        if (c->smax < s.smin) {
            prev = cur, cur = c->next;
            continue;
        }
        merge_into(c, &s);
        for (uint32_t nx = c->next; nx != PTL_VX_NONE && r->pool.data[nx].smin <= c->smax; nx = c->next) {
            wspan* o = &r->pool.data[nx];
            merge_into(c, o);
            c->next = o->next;
            o->next = r->free_list;
            r->free_list = nx;
            --r->live;
        }
        return true;
    }
    uint32_t id;
    if (r->free_list != PTL_VX_NONE) {
        id = r->free_list;
        r->free_list = r->pool.data[id].next;
    } else {
        if (!PTL_RESERVE(r->a, r->pool, (uint64_t)r->pool.count + 1)) return false;
        id = r->pool.count++;
    }
    s.next = cur;
    r->pool.data[id] = s;
    if (prev == PTL_VX_NONE) r->head[col] = id;
    else r->pool.data[prev].next = id;
    ++r->live;
    return true;
}

/* A polygon vertex in grid units: u = x / cs, w = y / ch, v = z / cs, all relative to bmin. */
enum { U = 0, W = 1, V = 2, MAXV = 16 };

/* Splits polygon `in` along coordinate `axis` = c into the closed halves `lo` (<= c) and `hi`
   (>= c); points on the line go to both, crossing points get exactly c. Points within 1e-9
   (relative) of the line are put on it, so that rounding cannot make a convex piece wave around
   the line and cross it more than twice. The pieces cut here are convex with at most 7 vertices
   (a triangle within two v lines and two u lines); a split gives at most n + crossings <= 2n
   vertices, so inputs beyond MAXV / 2 (impossible for convex pieces) are cut short to stay in
   bounds. */
static void split(const double (*in)[3], int n, int axis, double c, double (*lo)[3], int* nlo, double (*hi)[3],
                  int* nhi) {
    /* hi == NULL: only the half <= c is wanted (the last row); the same values for it */
    if (n > MAXV / 2) n = MAXV / 2;
    const double eps = 1e-9 * (c < 1 ? 1 : c);
    double dj = in[n - 1][axis] - c;
    if (dj <= eps && dj >= -eps) dj = 0;
    int a = 0, b = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        double di = in[i][axis] - c;
        if (di <= eps && di >= -eps) di = 0;
        if ((dj < 0 && di > 0) || (dj > 0 && di < 0)) {
            double t = dj / (dj - di);
            double x[3];
            for (int k = 0; k < 3; ++k) x[k] = in[j][k] + (in[i][k] - in[j][k]) * t;
            x[axis] = c;
            memcpy(lo[a++], x, sizeof x);
            if (hi) memcpy(hi[b++], x, sizeof x);
        }
        if (di <= 0) {
            memcpy(lo[a], in[i], sizeof in[i]);
            lo[a++][axis] = di == 0 ? c : in[i][axis];
        }
        if (di >= 0 && hi) {
            memcpy(hi[b], in[i], sizeof in[i]);
            hi[b++][axis] = di == 0 ? c : in[i][axis];
        }
        dj = di;
    }
    *nlo = a, *nhi = b;
}

/* split() along u for a row's piece kept as (u, w) pairs (the columns of a row need nothing else):
   the part >= c goes to `hi`; of the part <= c only its vertex count and y range are kept, which is
   all a column's span needs. The same arithmetic as split(), so the same values. */
static void split_u(const double (*in)[2], int n, double c, int* nlo, double* wmin, double* wmax, double (*hi)[2],
                    int* nhi) {
    if (n > MAXV / 2) n = MAXV / 2;
    const double eps = 1e-9 * (c < 1 ? 1 : c);
    double dj = in[n - 1][0] - c;
    if (dj <= eps && dj >= -eps) dj = 0;
    int a = 0, b = 0;
    double lo = HUGE_VAL, up = -HUGE_VAL;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        double di = in[i][0] - c;
        if (di <= eps && di >= -eps) di = 0;
        if ((dj < 0 && di > 0) || (dj > 0 && di < 0)) {
            double t = dj / (dj - di);
            double w = in[j][1] + (in[i][1] - in[j][1]) * t;
            ++a, lo = dmin(lo, w), up = dmax(up, w);
            hi[b][0] = c, hi[b++][1] = w;
        }
        if (di <= 0) ++a, lo = dmin(lo, in[i][1]), up = dmax(up, in[i][1]);
        if (di >= 0) hi[b][0] = di == 0 ? c : in[i][0], hi[b++][1] = in[i][1];
        dj = di;
    }
    *nlo = a, *nhi = b, *wmin = lo, *wmax = up;
}

/* Twice the signed plan area, translated to the first vertex so that points on one grid line give
   exactly 0. */
static double plan_area2(const double (*p)[3], int n) {
    double s = 0;
    for (int i = 1; i + 1 < n; ++i)
        s += (p[i][U] - p[0][U]) * (p[i + 1][V] - p[0][V]) - (p[i + 1][U] - p[0][U]) * (p[i][V] - p[0][V]);
    return s;
}

/* Adds the span of a triangle's piece whose y range is [wmin, wmax] (grid units) to column (x, z):
   [floor(wmin), ceil(wmax)] clamped to the grid, at least one voxel tall. */
static bool emit(raster* r, double wmin, double wmax, int x, int z, bool walkable, uint16_t tag) {
    const int top = r->p->heights;
    if (wmax < 0 || wmin > top) return true;
    /* floor and ceil after clamping to [0, top], where truncation is exact */
    int lo = (int)dmax(0, wmin), hi = (int)dmin(top, wmax);
    if (hi < dmin(top, wmax)) ++hi;
    if (lo > top - 1) lo = top - 1;
    if (hi < lo + 1) hi = lo + 1;
    const ptl_vx_params* g = r->p; /* (x, z) is a world column inside the window */
    return add_span(r, (uint32_t)(z - g->oz) * (uint32_t)g->width + (uint32_t)(x - g->ox), (uint16_t)lo, (uint16_t)hi,
                    walkable, tag);
}

/* floor(v) clamped to [lo, hi], lo >= 0 (the same as truncating v clamped to [lo, hi]). */
static int floor_clamp(double v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi : (int)v;
}

/* The first cell whose closed interval [c, c + 1] a footprint starting at `lo` touches: floor(lo),
   or for a thin triangle starting exactly on a line, the cell before it too. */
static int first_cell(double lo, bool thin, int n) {
    int c = floor_clamp(lo, 0, n - 1);
    return thin && c > 0 && lo == c ? c - 1 : c;
}

/* The triangle being rasterized: its flags and, for a fat one, its plane w = w0 + a u + b v. */
typedef struct tri_ctx {
    bool walkable, thin;
    uint16_t tag;
    double w0, a, b;
} tri_ctx;

/* Adds the span [lo, hi] (grid units) to column (x, z): the plane's range over a whole square. */
static bool emit_square(raster* r, const tri_ctx* tc, int x, int z) {
    double lo = tc->w0 + tc->a * (tc->a >= 0 ? x : x + 1) + tc->b * (tc->b >= 0 ? z : z + 1);
    double hi = tc->w0 + tc->a * (tc->a >= 0 ? x + 1 : x) + tc->b * (tc->b >= 0 ? z + 1 : z);
    return emit(r, lo, hi, x, z, tc->walkable, tc->tag);
}

/* The u range [*lo, *hi] of the row polygon's vertices on the line v = c; false when none. */
static bool row_edge(const double (*p)[3], int n, double c, double* lo, double* hi) {
    bool any = false;
    for (int i = 0; i < n; ++i) {
        if (p[i][V] != c) continue;
        if (!any || p[i][U] < *lo) *lo = p[i][U];
        if (!any || p[i][U] > *hi) *hi = p[i][U];
        any = true;
    }
    return any;
}

/* Rasterizes row z of a triangle: `row` is the triangle's piece in the strip [z, z+1] (nr > 0).
   Columns whose square lies wholly inside a fat triangle take the plane's range at the square's
   corners (no clipping); the others are cut off one by one. For a convex piece spanning the whole
   strip, the squares inside are those between the larger of its left ends on v = z and v = z + 1
   and the smaller of its right ends. */
static bool raster_row(raster* r, const tri_ctx* tc, const double (*row)[3], int nr, int z) {
    const ptl_vx_params* p = r->p;
    double bufa[MAXV][2], bufb[MAXV][2], (*rp)[2] = bufa, (*rr)[2] = bufb, (*q)[2];
    double ru0 = row[0][U], ru1 = ru0;
    for (int i = 0; i < nr; ++i) {
        ru0 = dmin(ru0, row[i][U]), ru1 = dmax(ru1, row[i][U]);
        rp[i][0] = row[i][U], rp[i][1] = row[i][W];
    }
    /* World columns (the cuts do not depend on the window); only the window's are emitted. */
    const int xa = first_cell(ru0, tc->thin, p->world_width), xb = floor_clamp(ru1, 0, p->world_width - 1);
    const int wx0 = p->ox, wx1 = p->ox + p->width - 1;
    int ia = 1, ib = 0; /* whole squares: columns [ia, ib] */
    double l0, h0, l1, h1;
    if (!tc->thin && row_edge(row, nr, z, &l0, &h0) && row_edge(row, nr, z + 1, &l1, &h1)) {
        double l = dmax(l0, l1), h = dmin(h0, h1);
        ia = (int)dmax(xa, ceil(l)), ib = (int)dmin(xb, floor(h) - 1);
    }
    int nc, nrest;
    double wmin, wmax;
    if (xa == xb && ru0 >= xa && ru1 <= xa + 1) { /* the row lies in one column: it is the piece */
        if (xa < wx0 || xa > wx1 || (!tc->thin && xa == ru1)) return true;
        wmin = wmax = rp[0][1];
        for (int i = 1; i < nr; ++i) wmin = dmin(wmin, rp[i][1]), wmax = dmax(wmax, rp[i][1]);
        return emit(r, wmin, wmax, xa, z, tc->walkable, tc->tag);
    }
    if (ru0 < xa) {
        split_u((const double(*)[2])rp, nr, xa, &nc, &wmin, &wmax, rr, &nrest);
        q = rp, rp = rr, rr = q, nr = nrest;
    }
    for (int x = xa; x <= xb && x <= wx1 && nr > 0; ++x) {
        if (x == ia && ia <= ib) {
            for (; x <= ib; ++x)
                if (x >= wx0 && x <= wx1 && !emit_square(r, tc, x, z)) return false;
            split_u((const double(*)[2])rp, nr, x, &nc, &wmin, &wmax, rr, &nrest);
            q = rp, rp = rr, rr = q, nr = nrest;
            --x;
            continue;
        }
        if (ru1 < x + 1 || (!tc->thin && ru1 == x + 1)) {
            /* The last column the row reaches (a fat row ending on the line u = x + 1 only
               touches the next one): its piece is all that is left, with no point beyond the
               line, so split_u would keep every point's y and build nothing else. */
            nc = nr, nr = 0;
            wmin = wmax = rp[0][1];
            for (int i = 1; i < nc; ++i) wmin = dmin(wmin, rp[i][1]), wmax = dmax(wmax, rp[i][1]);
        } else {
            split_u((const double(*)[2])rp, nr, x + 1, &nc, &wmin, &wmax, rr, &nrest);
            q = rp, rp = rr, rr = q, nr = nrest;
        }
        /* A fat triangle meets every column strictly inside its row's u range with positive area;
           a column starting exactly at the row's last u is a mere touch (its piece lies on the line
           u = x: split_u puts every point there on it). */
        if (x >= wx0 && nc > 0 && (tc->thin || x != ru1) && !emit(r, wmin, wmax, x, z, tc->walkable, tc->tag))
            return false;
    }
    return true;
}

/* raster_row() for a level fat triangle at height w: every column of the row's u range has a
   piece of positive area, except one starting exactly at the range's end, and every piece's y range
   is [w, w] (what cutting would compute: interpolating between equal heights gives them exactly),
   so no piece needs cutting. */
static bool raster_level_row(raster* r, const tri_ctx* tc, const double (*row)[3], int nr, int z, double w) {
    const ptl_vx_params* p = r->p;
    double ru0 = row[0][U], ru1 = ru0;
    for (int i = 1; i < nr; ++i) ru0 = dmin(ru0, row[i][U]), ru1 = dmax(ru1, row[i][U]);
    const int xa = first_cell(ru0, false, p->world_width), xb = floor_clamp(ru1, 0, p->world_width - 1);
    const int x0 = xa > p->ox ? xa : p->ox, x1 = xb < p->ox + p->width - 1 ? xb : p->ox + p->width - 1;
    for (int x = x0; x <= x1; ++x)
        if (x != ru1 && !emit(r, w, w, x, z, tc->walkable, tc->tag)) return false;
    return true;
}

/* Rasterizes one triangle (vertices in grid units). */
static bool raster_tri(raster* r, const double (*t)[3], bool walkable, uint16_t tag) {
    const ptl_vx_params* p = r->p;
    double umin = t[0][U], umax = umin, vmin = t[0][V], vmax = vmin, wmin = t[0][W], wmax = wmin;
    for (int i = 1; i < 3; ++i) {
        umin = dmin(umin, t[i][U]), umax = dmax(umax, t[i][U]);
        vmin = dmin(vmin, t[i][V]), vmax = dmax(vmax, t[i][V]);
        wmin = dmin(wmin, t[i][W]), wmax = dmax(wmax, t[i][W]);
    }
    if (umax < 0 || vmax < 0 || umin > p->world_width || vmin > p->world_depth || wmax < 0 || wmin > p->heights)
        return true;
    if (umax < p->ox || vmax < p->oz || umin > p->ox + p->width || vmin > p->oz + p->depth) return true; /* off the window */
    double e2 = 0;
    for (int i = 0, j = 2; i < 3; j = i++) {
        double du = t[i][U] - t[j][U], dv = t[i][V] - t[j][V];
        e2 = dmax(e2, du * du + dv * dv);
    }
    const double area2 = plan_area2(t, 3);
    tri_ctx tc = {walkable, fabs(area2) <= 1e-6 * e2, tag, 0, 0, 0};
    /* A thin triangle on a grid line touches the closed squares on both sides of it. */
    /* World rows and columns: a window (tiles.c) cuts the triangle exactly as the whole grid does. */
    const int z0 = first_cell(vmin, tc.thin, p->world_depth), z1 = floor_clamp(vmax, 0, p->world_depth - 1);
    const int x0 = first_cell(umin, tc.thin, p->world_width), x1 = floor_clamp(umax, 0, p->world_width - 1);
    const int wz0 = p->oz, wz1 = p->oz + p->depth - 1;
    if (x0 == x1 && z0 == z1 && umin >= x0 && umax <= x0 + 1 && vmin >= z0 && vmax <= z0 + 1 &&
        (!tc.thin || (umin > x0 && umax < x0 + 1 && vmin > z0 && vmax < z0 + 1))) {
        if (x0 < p->ox || x0 > p->ox + p->width - 1 || z0 < wz0 || z0 > wz1) return true;
        return emit(r, wmin, wmax, x0, z0, walkable, tag); /* only this square: a fat triangle has area there */
    }
    if (!tc.thin) {
        double du1 = t[1][U] - t[0][U], dv1 = t[1][V] - t[0][V], dw1 = t[1][W] - t[0][W];
        double du2 = t[2][U] - t[0][U], dv2 = t[2][V] - t[0][V], dw2 = t[2][W] - t[0][W];
        tc.a = (dw1 * dv2 - dw2 * dv1) / area2;
        tc.b = (du1 * dw2 - du2 * dw1) / area2;
        tc.w0 = t[0][W] - tc.a * t[0][U] - tc.b * t[0][V];
    }
    /* A level triangle (floors, most of the input of many levels) has one height everywhere. */
    const bool level = !tc.thin && t[0][W] == t[1][W] && t[1][W] == t[2][W];
    double bufa[MAXV][3], bufb[MAXV][3], row[MAXV][3], junk[MAXV][3];
    double (*poly)[3] = bufa, (*rest)[3] = bufb, (*s)[3];
    int n = 3, nr, nrest, nj;
    memcpy(poly, t, 3 * sizeof t[0]);
    if (vmin < z0) { /* drop what lies before the grid */
        split((const double(*)[3])poly, n, V, z0, junk, &nj, rest, &nrest);
        s = poly, poly = rest, rest = s, n = nrest;
    }
    for (int z = z0; z <= z1 && z <= wz1 && n > 0; ++z) {
        /* The last row (a fat triangle ending on the line v = z + 1 only touches the next one)
           needs no rest. */
        const bool last = vmax < z + 1 || (!tc.thin && vmax == z + 1);
        split((const double(*)[3])poly, n, V, z + 1, row, &nr, last ? NULL : rest, &nrest);
        if (last) nrest = 0;
        s = poly, poly = rest, rest = s, n = nrest;
        if (z < wz0) continue;
        /* A fat triangle meets the open strip of every row strictly inside its v range with
           positive area; only a row starting exactly at vmax can be a mere touch. */
        if (nr == 0 || (!tc.thin && z == vmax && plan_area2((const double(*)[3])row, nr) == 0)) continue;
        if (!(level ? raster_level_row(r, &tc, (const double(*)[3])row, nr, z, t[0][W])
                    : raster_row(r, &tc, (const double(*)[3])row, nr, z)))
            return false;
    }
    return true;
}

void ptl_heightfield_free(ptl_heightfield* hf) {
    if (!hf) return;
    if (hf->alloc.free) {
        size_t cols = (size_t)hf->p.width * (size_t)hf->p.depth;
        ptl_mem_free(&hf->alloc, hf->col_start, (cols + 1) * sizeof *hf->col_start);
        ptl_mem_free(&hf->alloc, hf->spans, (size_t)hf->span_count * sizeof *hf->spans);
    }
    memset(hf, 0, sizeof *hf);
}

/* The lists -> compact arrays, resolving each span's walkable flag and tag. */
static ptl_status compact(raster* r, ptl_heightfield* hf, ptl_error* err) {
    const ptl_vx_params* p = r->p;
    size_t cols = (size_t)p->width * (size_t)p->depth;
    hf->col_start = ptl_mem_alloc(r->a, (cols + 1) * sizeof *hf->col_start);
    hf->spans = ptl_mem_alloc(r->a, (size_t)r->live * sizeof *hf->spans);
    hf->span_count = r->live; /* the size ptl_heightfield_free gives back, whatever failed */
    if (!hf->col_start || !hf->spans) return ptl_error_set(err, PTL_ERR_NO_MEMORY, "voxelize: out of memory");
    uint32_t k = 0;
    for (size_t c = 0; c < cols; ++c) {
        hf->col_start[c] = k;
        for (uint32_t i = r->head[c]; i != PTL_VX_NONE; i = r->pool.data[i].next) {
            const wspan* s = &r->pool.data[i];
            bool walk = s->wtop != 0 && (int32_t)s->smax - (int32_t)s->wtop <= p->walkable_climb;
            ptl_vx_span o = {s->smin, s->smax, walk ? s->wtag : s->ttag, walk, 0};
            hf->spans[k++] = o;
        }
    }
    hf->col_start[cols] = k;
    return k == r->live ? PTL_OK : ptl_error_set(err, PTL_ERR_INTERNAL, "voxelize: span count mismatch");
}

/* The slope test in single precision, operation for operation as Recast computes it (edge vectors,
   cross product, normalised by the reciprocal of its length, strictly above cos(max slope)). Only
   faces within a few ulps of the maximum slope depend on this: a quad at exactly 45 degrees splits
   into triangles some of which pass and some fail, in any precision. Recast's answer is the one the
   content was tuned against, so a face walkable there is walkable here and the reverse (the build
   uses -std=c11, so the compiler does not fuse these into FMAs). */
static bool slope_walkable(const double v[3][3], const ptl_vx_params* p) {
    float e0[3], e1[3];
    for (int c = 0; c < 3; ++c) {
        e0[c] = (float)v[1][c] - (float)v[0][c];
        e1[c] = (float)v[2][c] - (float)v[0][c];
    }
    float n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]};
    float d = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(d > 0)) return false;
    float ny = n[1] * (1.0f / d);
    return (p->walkable_both_sides ? fabsf(ny) : ny) > p->walkable_slope_cos;
}

ptl_status ptl_voxelize_trimesh(const ptl_trimesh* m, const uint32_t* tris, uint32_t count, const ptl_vx_params* p,
                            const ptl_allocator* alloc, ptl_heightfield* hf, ptl_error* err) {
    if (!m || !p || !hf) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_voxelize_trimesh: NULL argument");
    memset(hf, 0, sizeof *hf);
    if (p->width <= 0 || p->depth <= 0 || p->heights <= 0 || p->heights >= (int32_t)PTL_VX_MAX_HEIGHT ||
        (uint64_t)p->width * (uint64_t)p->depth > (1u << 28) || !(p->cs > 0) || !(p->ch > 0))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_voxelize_trimesh: parameters not from ptl_vx_params_resolve");
    if (m->tri_count && (!m->tris || !m->verts))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_voxelize_trimesh: mesh without arrays");
    const uint32_t n = tris ? count : m->tri_count;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t t = tris ? tris[i] : i;
        if (t >= m->tri_count)
            return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_voxelize_trimesh: triangle %u of %u listed", t, m->tri_count);
        for (int k = 0; k < 3; ++k)
            if (m->tris[3 * (size_t)t + k] >= m->vert_count)
                return ptl_error_set(err, PTL_ERR_BAD_INPUT, "voxelize: triangle %u refers to vertex %u of %u", t,
                                     m->tris[3 * (size_t)t + k], m->vert_count);
    }
    ptl_allocator a = ptl_allocator_resolve(alloc);
    raster r;
    memset(&r, 0, sizeof r);
    r.p = p, r.a = &a, r.free_list = PTL_VX_NONE;
    size_t cols = (size_t)p->width * (size_t)p->depth;
    r.head = ptl_mem_alloc(&a, cols * sizeof *r.head);
    ptl_status st = PTL_OK;
    if (!r.head) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "voxelize: out of memory (%zu columns)", cols);
    if (st >= 0) memset(r.head, 0xff, cols * sizeof *r.head);
    const double cs = p->cs, ch = p->ch;
    for (uint32_t i = 0; i < n && st >= 0; ++i) {
        uint32_t t = tris ? tris[i] : i;
        double v[3][3], g[3][3];
        for (int k = 0; k < 3; ++k) {
            const float* s = m->verts + 3 * (size_t)m->tris[3 * (size_t)t + k];
            for (int c = 0; c < 3; ++c) v[k][c] = s[c];
            /* The same expression as the grid size in vx_params.c (see there). */
            g[k][U] = ((double)s[0] - p->bmin[0]) / cs;
            g[k][W] = ((double)s[1] - p->bmin[1]) / ch;
            g[k][V] = ((double)s[2] - p->bmin[2]) / cs;
        }
        bool walkable = slope_walkable(v, p);
        uint16_t tag = m->tri_tag ? m->tri_tag[t] : 0;
        if (!raster_tri(&r, (const double(*)[3])g, walkable, tag))
            st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "voxelize: out of memory (%u spans)", r.pool.count);
    }
    if (st >= 0) {
        hf->p = *p;
        hf->alloc = a;
        st = compact(&r, hf, err);
        if (st < 0) ptl_heightfield_free(hf);
    }
    ptl_mem_free(&a, r.head, cols * sizeof *r.head);
    PTL_ARRAY_FREE(&a, r.pool);
    if (st >= 0) ptl_error_ok(err);
    return st;
}
