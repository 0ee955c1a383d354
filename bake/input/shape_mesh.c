/* Polyanya navigation meshes (.mesh, format version 2; Cui, Harabor and Grastien 2017): free
   space is the union of the traversable polygons, so its boundary is every polygon edge with no
   neighbour (-1) across it.

   Layout (spec/mesh-v2.txt): "mesh", the version, V and P, then V vertices "x y n p1 .. pn" and
   P polygons "n v1 .. vn p1 .. pn"; whitespace-insensitive. In version 2, p[i] is the polygon
   across the edge from v[i-1] to v[i] (version 1 used v[i] to v[i+1]).

   Version 3 (the format of vleue/polyanya's meshes/v3/format.txt) lists V vertices "x y" and P
   faces "t n v1 .. vn p1 .. pn" where t is 1 for a traversable face and 0 for an obstacle, vertex
   ids count from 1, and p[i] (across v[i-1] -> v[i], as in version 2) is k > 0 for face k, -k for
   face k across a constrained edge, and 0 for none. Free space is the union of the traversable
   faces: an edge is a wall when its face is traversable and the face across is none or an
   obstacle. A constrained edge between two traversable faces has free space on both sides, so
   it is no wall of the union (DESIGN.md: free space = union of traversable polygons).

   Checked, with the line of the offending token: counts, indices in range, polygons of at least
   3 vertices listed counter-clockwise (positive area), and symmetric neighbours (polygon A naming
   B across edge (u, v) requires B to name A across (v, u)). The vertices' own polygon lists are
   range-checked and otherwise ignored, as Polyanya itself mostly does. */
#include <portolan/bake.h>

#include <math.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "../shape/shape_build.h"
#include "text_scan.h"

typedef struct mreader {
    ptl_text_tokens t;
    const char* name;
    size_t len;
    ptl_error* err;
} mreader;

static ptl_status next_tok(mreader* r, const char* what, const char** s, size_t* n) {
    if (ptl_text_next_token(&r->t, s, n)) return PTL_OK;
    return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: unexpected end of file: expected %s", r->name, r->t.line, what);
}

static ptl_status next_int(mreader* r, const char* what, int64_t lo, int64_t hi, int64_t* out) {
    const char* s;
    size_t n;
    char show[32];
    ptl_status st = next_tok(r, what, &s, &n);
    if (st < 0) return st;
    ptl_num_result res = ptl_text_parse_int(s, n, out);
    if (res == PTL_NUM_SYNTAX)
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: %s '%s' is not an integer", r->name, r->t.line, what,
                             ptl_text_show(show, s, n));
    if (res != PTL_NUM_OK || *out < lo || *out > hi)
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: %s %s is out of range [%lld, %lld]", r->name, r->t.line,
                             what, ptl_text_show(show, s, n), (long long)lo, (long long)hi);
    return PTL_OK;
}

static ptl_status next_num(mreader* r, const char* what, double* out) {
    const char* s;
    size_t n;
    char show[32];
    ptl_status st = next_tok(r, what, &s, &n);
    if (st < 0) return st;
    ptl_num_result res = ptl_text_parse_double(s, n, out);
    if (res == PTL_NUM_NONFINITE)
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: %s '%s' is not a finite number", r->name, r->t.line, what,
                             ptl_text_show(show, s, n));
    if (res != PTL_NUM_OK)
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: %s '%s' is not a number", r->name, r->t.line, what,
                             ptl_text_show(show, s, n));
    return PTL_OK;
}

/* A coordinate the navmesh's floats can hold (PTL_BAKE_COORD_MAX). */
static ptl_status next_coord(mreader* r, const char* what, double* out) {
    ptl_status st = next_num(r, what, out);
    if (st >= 0 && fabs(*out) > PTL_BAKE_COORD_MAX)
        return ptl_error_set(r->err, PTL_ERR_PARSE,
                             "%s:%u: %s %g is beyond +-%g (PTL_BAKE_COORD_MAX), more than the navmesh's float "
                             "coordinates hold", r->name, r->t.line, what, *out, PTL_BAKE_COORD_MAX);
    *out += 0.0; /* -0.0 and 0.0 are one coordinate */
    return st;
}

/* A count read from the file, bounded by what a file of this size could hold so that a corrupt
   count cannot ask for a huge allocation. */
static ptl_status next_count(mreader* r, const char* what, int64_t* out) {
    const char* s;
    size_t n;
    char show[32];
    ptl_status st = next_tok(r, what, &s, &n);
    if (st < 0) return st;
    ptl_num_result res = ptl_text_parse_int(s, n, out);
    if (res == PTL_NUM_SYNTAX)
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: %s '%s' is not an integer", r->name, r->t.line, what,
                             ptl_text_show(show, s, n));
    if (res == PTL_NUM_OK && *out < 0)
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: negative %s %lld", r->name, r->t.line, what, (long long)*out);
    if (res != PTL_NUM_OK || (uint64_t)*out > r->len / 2 || *out > (int64_t)(UINT32_MAX / 4))
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: %s %s is more than the file can hold", r->name, r->t.line,
                             what, ptl_text_show(show, s, n));
    return PTL_OK;
}

/* A directed polygon edge u -> v, and the neighbour polygon across it. */
typedef struct medge {
    uint32_t u, v, poly, nbr; /* nbr: PTL_NONE for -1 */
} medge;

static int cmp_medge(const void* pa, const void* pb) {
    const medge *a = pa, *b = pb;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return (a->poly > b->poly) - (a->poly < b->poly);
}

/* Edges grouped by their start vertex (CSR), each group sorted by end vertex: linear in the mesh
   size up to the small per-vertex sorts, where one global sort of all edges dominated the load. */
typedef struct edge_table {
    uint32_t* start; /* nv + 1 */
    medge* es;
} edge_table;

static const medge* find_edge(const edge_table* t, uint32_t u, uint32_t v) {
    uint32_t lo = t->start[u], hi = t->start[u + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->es[mid].v < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < t->start[u + 1] && t->es[lo].v == v ? &t->es[lo] : NULL;
}

typedef struct mesh_data {
    uint32_t nv, np;
    int version;         /* 2 or 3 */
    double q;            /* the precision the vertices were rounded to (ptl_shape_snap) */
    uint8_t* trav;       /* np: 1 for a traversable polygon (always 1 in version 2), 0 for an obstacle,
                            COLLAPSED for one that the rounding left with no area (snap_mesh) */
    double* xy;          /* 2 * nv */
    uint32_t* pstart;    /* np + 1 */
    uint32_t* pline;     /* np: line of each polygon's first token */
    PTL_ARRAY(uint32_t) pv;  /* vertex ids of all polygons */
    PTL_ARRAY(uint32_t) pn;  /* neighbour per edge (PTL_NONE for -1) */
} mesh_data;

static ptl_status read_mesh(mreader* r, const ptl_allocator* a, mesh_data* m) {
    const char* s;
    size_t n;
    char show[32];
    ptl_status st;
    if (!ptl_text_next_token(&r->t, &s, &n))
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:1: empty file (expected 'mesh')", r->name);
    if (!(n == 4 && !memcmp(s, "mesh", 4)))
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: expected 'mesh' header, found '%s'", r->name, r->t.line,
                             ptl_text_show(show, s, n));
    if ((st = next_tok(r, "the format version", &s, &n)) < 0) return st;
    if (!(n == 1 && (s[0] == '2' || s[0] == '3')))
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: unsupported mesh version '%s' (expected 2 or 3)", r->name,
                             r->t.line, ptl_text_show(show, s, n));
    int64_t nv, np, v;
    if ((st = next_count(r, "vertex count", &nv)) < 0) return st;
    if ((st = next_count(r, "polygon count", &np)) < 0) return st;
    m->nv = (uint32_t)nv;
    m->np = (uint32_t)np;
    m->version = s[0] - '0';
    const int v3 = m->version == 3;
    /* One spare element each: counts may be 0 and an allocation is never of size 0. */
    m->xy = ptl_mem_alloc(a, ((size_t)nv + 1) * 2 * sizeof(double));
    m->pstart = ptl_mem_alloc(a, ((size_t)np + 1) * sizeof(uint32_t));
    m->pline = ptl_mem_alloc(a, ((size_t)np + 1) * sizeof(uint32_t));
    m->trav = ptl_mem_alloc(a, (size_t)np + 1);
    if (!m->xy || !m->pstart || !m->pline || !m->trav)
        return ptl_error_set(r->err, PTL_ERR_NO_MEMORY, "%s: out of memory", r->name);
    for (uint32_t i = 0; i < m->nv; ++i) {
        int64_t k;
        if ((st = next_coord(r, "vertex x", &m->xy[2 * i])) < 0) return st;
        if ((st = next_coord(r, "vertex y", &m->xy[2 * i + 1])) < 0) return st;
        if (v3) continue; /* version 3 vertices are just coordinates */
        if ((st = next_count(r, "vertex neighbour count", &k)) < 0) return st;
        for (int64_t j = 0; j < k; ++j)
            if ((st = next_int(r, "vertex's polygon index", -1, np - 1, &v)) < 0) return st;
    }
    for (uint32_t p = 0; p < m->np; ++p) {
        int64_t k, t = 1;
        if (v3 && (st = next_int(r, "face traversable flag (0 or 1)", 0, 1, &t)) < 0) return st;
        m->trav[p] = (uint8_t)t;
        if ((st = next_count(r, "polygon vertex count", &k)) < 0) return st;
        m->pline[p] = r->t.line;
        if (k < 3)
            return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: polygon %u has %lld vertices (at least 3)", r->name,
                                 r->t.line, p, (long long)k);
        m->pstart[p] = m->pv.count;
        if (!PTL_RESERVE(a, m->pv, (uint64_t)m->pv.count + (uint64_t)k) ||
            !PTL_RESERVE(a, m->pn, (uint64_t)m->pn.count + (uint64_t)k))
            return ptl_error_set(r->err, PTL_ERR_NO_MEMORY, "%s: out of memory", r->name);
        for (int64_t j = 0; j < k; ++j) {
            if ((st = next_int(r, "polygon's vertex index", v3, nv - 1 + v3, &v)) < 0) return st;
            m->pv.data[m->pv.count++] = (uint32_t)(v - v3);
        }
        for (int64_t j = 0; j < k; ++j) {
            if (v3) {
                /* signed, 1-based; the sign (constrained or not) does not change the union */
                if ((st = next_int(r, "face's neighbour id", -np, np, &v)) < 0) return st;
                m->pn.data[m->pn.count++] = v == 0 ? PTL_NONE : (uint32_t)((v < 0 ? -v : v) - 1);
            } else {
                if ((st = next_int(r, "polygon's neighbour index", -1, np - 1, &v)) < 0) return st;
                m->pn.data[m->pn.count++] = v < 0 ? PTL_NONE : (uint32_t)v;
            }
        }
    }
    m->pstart[m->np] = m->pv.count;
    if (ptl_text_next_token(&r->t, &s, &n))
        return ptl_error_set(r->err, PTL_ERR_PARSE, "%s:%u: trailing data '%s' after the last polygon", r->name,
                             r->t.line, ptl_text_show(show, s, n));
    return PTL_OK;
}

enum { COLLAPSED = 2 };

static double face_area2(const mesh_data* m, uint32_t p) {
    double a2 = 0;
    for (uint32_t i = m->pstart[p], e = m->pstart[p + 1]; i < e; ++i) {
        uint32_t u = m->pv.data[i > m->pstart[p] ? i - 1 : e - 1], v = m->pv.data[i];
        a2 += m->xy[2 * u] * m->xy[2 * v + 1] - m->xy[2 * v] * m->xy[2 * u + 1];
    }
    return a2;
}

typedef struct vkey {
    double x, y;
    uint32_t id;
} vkey;

static int cmp_vkey(const void* pa, const void* pb) {
    const vkey *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Rounds the vertices to the readers' precision (ptl_shape_snap), makes vertices at one point one
   vertex (the lowest id), and drops each polygon's zero-length edges (repeated points) with their
   neighbour entries. A polygon that the rounding leaves with no area (a sliver whose vertices
   nearly coincide or were nearly collinear) is COLLAPSED: it adds nothing to the union, and the
   edges of its neighbours along it become boundary candidates that ptl_shape_build cancels
   against each other (they face each other across a line of no width). Rounding that changes the
   traversable polygons' area by more than PTL_SHAPE_AREA_TOLERANCE of it (features too small for
   the float coordinates this far from the origin) is PTL_ERR_PARSE naming the polygon. */
static ptl_status snap_mesh(mesh_data* m, const char* name, const ptl_allocator* a, ptl_error* err) {
    double* area = ptl_mem_alloc(a, ((size_t)m->np + 1) * sizeof(double));
    vkey* keys = ptl_mem_alloc(a, ((size_t)m->nv + 1) * sizeof(vkey));
    uint32_t* canon = ptl_mem_alloc(a, ((size_t)m->nv + 1) * sizeof(uint32_t));
    ptl_status st = PTL_OK;
    if (!area || !keys || !canon) {
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
        goto done;
    }
    for (uint32_t p = 0; p < m->np; ++p) area[p] = face_area2(m, p);
    /* The precision from the vertices the polygons use: a stray far vertex that no polygon lists
       must not coarsen the tolerances (it refused meshes and, in the decomposition, let cells turn
       past validation's tolerance: fuzz finding mesh cfd18e). */
    double used = 0;
    for (uint32_t i = 0; i < m->pv.count; ++i)
        used = fmax(used, fmax(fabs(m->xy[2 * m->pv.data[i]]), fabs(m->xy[2 * m->pv.data[i] + 1])));
    ptl_shape_snap(m->xy, m->nv);
    const double q = ptl_shape_precision_of(used);
    m->q = q;
    for (uint32_t v = 0; v < m->nv; ++v) keys[v] = (vkey){m->xy[2 * v], m->xy[2 * v + 1], v};
    if (!ptl_sort(keys, m->nv, sizeof *keys, cmp_vkey, a)) {
        st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
        goto done;
    }
    for (uint32_t i = 0, first = 0; i < m->nv; ++i) {
        if (i == 0 || keys[i].x != keys[i - 1].x || keys[i].y != keys[i - 1].y) first = keys[i].id;
        canon[keys[i].id] = first; /* sorted by id within a point: the lowest comes first */
    }
    double total = 0, moved = 0, worst = -1;
    uint32_t worst_p = 0, k = 0, b = 0, kept = 0, trav = 0;
    for (uint32_t p = 0; p < m->np; ++p) {
        const uint32_t e = m->pstart[p + 1], first = k; /* [b, e): the polygon's entries before compaction */
        m->pstart[p] = first;
        for (uint32_t i = b; i < e; ++i) {
            const uint32_t v = canon[m->pv.data[i]];
            if (k > first && m->pv.data[k - 1] == v) continue; /* entry i is the edge v[i-1] -> v[i] */
            m->pv.data[k] = v, m->pn.data[k] = m->pn.data[i], ++k;
        }
        /* The closing edge: an entry equal to the last kept one is a zero-length edge too. */
        while (k > first + 1 && m->pv.data[first] == m->pv.data[k - 1]) {
            memmove(m->pv.data + first, m->pv.data + first + 1, (size_t)(k - first - 1) * sizeof(uint32_t));
            memmove(m->pn.data + first, m->pn.data + first + 1, (size_t)(k - first - 1) * sizeof(uint32_t));
            --k;
        }
        b = e;
        m->pstart[p + 1] = k; /* for face_area2; the next polygon's start was read into b */
        const double a2 = k - first >= 3 ? face_area2(m, p) : 0;
        /* (A polygon turned clockwise by the rounding is reported by check_polygons; an obstacle
           of no area blocks nothing either.) */
        if (a2 == 0) m->trav[p] = COLLAPSED;
        if (!m->trav[p]) continue;
        ++trav, kept += m->trav[p] == 1;
        total += fabs(area[p]);
        moved += a2 - area[p]; /* signed: a shared edge moves both its polygons, the union not */
        if (fabs(a2 - area[p]) > worst) worst = fabs(a2 - area[p]), worst_p = p;
    }
    m->pstart[m->np] = k;
    m->pv.count = m->pn.count = k;
    if (st >= 0 && trav > 0 && kept == 0)
        st = ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon %u and every other traversable one have no area at the "
                           "input's precision (%g): too small for the navmesh's float coordinates", name, m->pline[worst_p],
                           worst_p, q);
    if (st >= 0 && fabs(moved) > PTL_SHAPE_AREA_TOLERANCE * total)
        st = ptl_error_set(err, PTL_ERR_PARSE,
                           "%s:%u: polygon %u is too small for the precision of coordinates this far from the origin "
                           "(%g): rounding changes the polygons' area by %.3g%% (move the input nearer the origin)",
                           name, m->pline[worst_p], worst_p, q, total > 0 ? 100 * fabs(moved) / total : 100.0);
done:
    ptl_mem_free(a, area, ((size_t)m->np + 1) * sizeof(double));
    ptl_mem_free(a, keys, ((size_t)m->nv + 1) * sizeof(vkey));
    ptl_mem_free(a, canon, ((size_t)m->nv + 1) * sizeof(uint32_t));
    return st;
}

/* ---- Overlap: no two edges of the traversable polygons cross ------------------------------------
   Free space is the union of the traversable polygons, taken here as a set of polygons that do not
   overlap (a conforming mesh, as Polyanya's are). Two edges that cross, or that run along each
   other with a common stretch without being the same edge, mean overlapping or self-intersecting
   polygons, which are refused naming both. Each undirected edge is tested once, through a uniform
   grid (shape_seg_index.h), on the rounded coordinates the blob will hold. */

typedef struct fedge {
    uint32_t poly, index; /* the polygon and the edge's index in it (edge i runs v[i] -> v[i+1]) */
    uint32_t u, v;
    uint32_t one_sided;   /* 1: free space on its left only (a wall, or beside a collapsed polygon) */
} fedge;

static ptl_status edge_pair(const mesh_data* m, const char* name, const fedge* f, const fedge* g, const ptl_bseg* s,
                            const ptl_bseg* t, ptl_error* err) {
    if ((f->u == g->u && f->v == g->v) || (f->u == g->v && f->v == g->u)) return PTL_OK; /* one edge, two sides */
    if (fmax(s->ax, s->bx) < fmin(t->ax, t->bx) || fmax(t->ax, t->bx) < fmin(s->ax, s->bx) ||
        fmax(s->ay, s->by) < fmin(t->ay, t->by) || fmax(t->ay, t->by) < fmin(s->ay, s->by))
        return PTL_OK;
    double o1 = ptl_orient2(s->ax, s->ay, s->bx, s->by, t->ax, t->ay);
    double o2 = ptl_orient2(s->ax, s->ay, s->bx, s->by, t->bx, t->by);
    double o3 = ptl_orient2(t->ax, t->ay, t->bx, t->by, s->ax, s->ay);
    double o4 = ptl_orient2(t->ax, t->ay, t->bx, t->by, s->bx, s->by);
    const char* what = NULL;
    double x = 0, y = 0;
    if (o1 == 0 && o2 == 0) {
        bool use_x = s->ax != s->bx;
        double a0 = use_x ? fmin(s->ax, s->bx) : fmin(s->ay, s->by), a1 = use_x ? fmax(s->ax, s->bx) : fmax(s->ay, s->by);
        double b0 = use_x ? fmin(t->ax, t->bx) : fmin(t->ay, t->by), b1 = use_x ? fmax(t->ax, t->bx) : fmax(t->ay, t->by);
        if (!(fmin(a1, b1) > fmax(a0, b0))) return PTL_OK;
        /* Two one-sided edges running opposite ways face each other: polygons on either side of a
           line (across a collapsed sliver, or a T-junction), no overlap. */
        if (f->one_sided && g->one_sided && (s->bx - s->ax) * (t->bx - t->ax) + (s->by - s->ay) * (t->by - t->ay) < 0)
            return PTL_OK;
        what = "overlap";
        double lo = fmax(a0, b0);
        bool on_s = use_x ? (fmin(s->ax, s->bx) == lo) : (fmin(s->ay, s->by) == lo);
        const ptl_bseg* w = on_s ? s : t;
        bool a_lo = use_x ? w->ax == lo : w->ay == lo;
        x = a_lo ? w->ax : w->bx, y = a_lo ? w->ay : w->by;
    } else if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) {
        what = "cross";
        double u = o3 / (o3 - o4);
        x = s->ax + (s->bx - s->ax) * u, y = s->ay + (s->by - s->ay) * u;
    } else {
        return PTL_OK;
    }
    const fedge *lo = f->poly <= g->poly ? f : g, *hi = f->poly <= g->poly ? g : f;
    if (lo->poly == hi->poly)
        return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon %u is self-intersecting: its edges %u and %u %s at "
                             "(%.9g, %.9g)", name, m->pline[lo->poly], lo->poly, lo->index < hi->index ? lo->index : hi->index,
                             lo->index < hi->index ? hi->index : lo->index, what, x, y);
    return ptl_error_set(err, PTL_ERR_PARSE,
                         "%s:%u: polygons %u and %u overlap: edge %u of polygon %u and edge %u of polygon %u %s at "
                         "(%.9g, %.9g) (free space is the union of polygons that must not overlap)",
                         name, m->pline[hi->poly], lo->poly, hi->poly, lo->index, lo->poly, hi->index, hi->poly, what, x, y);
}

static ptl_status check_overlaps(const mesh_data* m, const char* name, const ptl_allocator* a, ptl_error* err) {
    PTL_ARRAY(fedge) fe = {0};
    PTL_ARRAY(ptl_bseg) segs = {0};
    ptl_seg_index g;
    memset(&g, 0, sizeof g);
    ptl_status st = PTL_OK;
    bool ok = true;
    for (uint32_t p = 0; p < m->np && ok; ++p) {
        if (m->trav[p] != 1) continue;
        uint32_t b = m->pstart[p], e = m->pstart[p + 1];
        for (uint32_t i = b; i < e && ok; ++i) {
            uint32_t u = m->pv.data[i], v = m->pv.data[i + 1 < e ? i + 1 : b];
            uint32_t nbr = m->pn.data[i + 1 < e ? i + 1 : b]; /* across v[i] -> v[i+1] */
            bool two_sided = nbr != PTL_NONE && m->trav[nbr] == 1;
            if (two_sided && u > v) continue; /* listed from the other side */
            ok = PTL_PUSH(a, fe, ((fedge){p, i - b, u, v, two_sided ? 0u : 1u})) &&
                 PTL_PUSH(a, segs, ((ptl_bseg){m->xy[2 * u], m->xy[2 * u + 1], m->xy[2 * v], m->xy[2 * v + 1]}));
        }
    }
    if (ok) ok = ptl_seg_index_build(&g, a, segs.data, segs.count);
    if (!ok) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory checking the polygons for overlaps", name);
    /* The first violation in bucket order; any will do, each names its polygons. */
    for (size_t b = 0; ok && st >= 0 && b < (size_t)g.nx * g.ny; ++b)
        for (uint32_t k = g.start[b]; st >= 0 && k < g.start[b + 1]; ++k)
            for (uint32_t l = k + 1; st >= 0 && l < g.start[b + 1]; ++l) {
                uint32_t i = g.items[k], j = g.items[l];
                st = edge_pair(m, name, &fe.data[i], &fe.data[j], &segs.data[i], &segs.data[j], err);
            }
    ptl_seg_index_free(&g);
    PTL_ARRAY_FREE(a, fe);
    PTL_ARRAY_FREE(a, segs);
    return st;
}

/* Every polygon: no vertex twice in a row, not its own neighbour, counter-clockwise. Counts the
   edges leaving each vertex into t->start[u + 2] on the way (for fill_edge_table). */
static ptl_status check_polygons(const mesh_data* m, const char* name, edge_table* t, ptl_error* err) {
    for (uint32_t p = 0; p < m->np; ++p) {
        if (m->trav[p] == COLLAPSED) continue;
        uint32_t b = m->pstart[p], e = m->pstart[p + 1];
        double area2 = 0;
        for (uint32_t i = b; i < e; ++i) {
            uint32_t prev = m->pv.data[i > b ? i - 1 : e - 1], cur = m->pv.data[i];
            if (prev == cur)
                return ptl_error_set(err, PTL_ERR_PARSE, "%s:%u: polygon %u lists vertex %u twice in a row", name,
                                     m->pline[p], p, cur);
            if (m->pn.data[i] == p)
                return ptl_error_set(err, PTL_ERR_PARSE,
                                     "%s:%u: polygon %u names itself as its neighbour across edge (%u, %u)", name,
                                     m->pline[p], p, prev, cur);
            area2 += m->xy[2 * prev] * m->xy[2 * cur + 1] - m->xy[2 * cur] * m->xy[2 * prev + 1];
            t->start[prev + 2]++;
        }
        if (!(area2 > 0))
            return ptl_error_set(err, PTL_ERR_PARSE,
                                 "%s:%u: polygon %u is %s (signed area %g; vertices must be listed counter-clockwise)",
                                 name, m->pline[p], p, area2 < 0 ? "clockwise" : "degenerate (zero area)", 0.5 * area2);
    }
    return PTL_OK;
}

/* Groups the directed edges by start vertex (counting sort on the counts check_polygons left),
   sorts each group by end vertex and rejects an edge that two polygons share in one direction. */
static ptl_status fill_edge_table(const mesh_data* m, const char* name, const ptl_allocator* a, edge_table* t,
                                  ptl_error* err) {
    /* start[u + 2] held u's count: after the prefix sum start[u + 1] is u's fill cursor, and
       after the fill it is u's end, i.e. start[u + 1] proper. */
    for (uint32_t u = 0; u < m->nv; ++u) t->start[u + 2] += t->start[u + 1];
    for (uint32_t p = 0; p < m->np; ++p) {
        if (m->trav[p] == COLLAPSED) continue;
        uint32_t b = m->pstart[p], e = m->pstart[p + 1];
        for (uint32_t i = b; i < e; ++i) {
            /* Version 2: p[i] is across the edge v[i-1] -> v[i]. */
            uint32_t prev = m->pv.data[i > b ? i - 1 : e - 1], cur = m->pv.data[i];
            t->es[t->start[prev + 1]++] = (medge){prev, cur, p, m->pn.data[i]};
        }
    }
    for (uint32_t u = 0; u < m->nv; ++u) {
        uint32_t b = t->start[u], e = t->start[u + 1];
        if (!ptl_sort(t->es + b, e - b, sizeof(medge), cmp_medge, a))
            return ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
        for (uint32_t i = b; i + 1 < e; ++i)
            if (t->es[i].v == t->es[i + 1].v)
                return ptl_error_set(err, PTL_ERR_PARSE,
                                     "%s:%u: polygons %u and %u both have edge (%u, %u) in the same direction (they overlap)",
                                     name, m->pline[t->es[i + 1].poly], t->es[i].poly, t->es[i + 1].poly, u, t->es[i].v);
    }
    return PTL_OK;
}

/* Symmetric neighbours, in polygon order so that the first violation reported is the earliest in
   the file; edges with no neighbour become boundary segments. */
static ptl_status check_neighbours(const mesh_data* m, const char* name, const edge_table* t, ptl_bseg* segs,
                                   uint32_t* nb, ptl_error* err) {
    for (uint32_t p = 0; p < m->np; ++p) {
        if (m->trav[p] == COLLAPSED) continue;
        uint32_t b = m->pstart[p], e = m->pstart[p + 1];
        for (uint32_t i = b; i < e; ++i) {
            uint32_t u = m->pv.data[i > b ? i - 1 : e - 1], v = m->pv.data[i], nbr = m->pn.data[i];
            if (nbr != PTL_NONE && m->trav[nbr] == COLLAPSED) {
                /* Across a polygon of no area: a boundary candidate, cancelled by the neighbour on
                   the polygon's far side (ptl_shape_build), if there is one. */
                if (m->trav[p]) segs[(*nb)++] = (ptl_bseg){m->xy[2 * u], m->xy[2 * u + 1], m->xy[2 * v], m->xy[2 * v + 1]};
                continue;
            }
            const medge* y = find_edge(t, v, u);
            if (nbr == PTL_NONE) {
                if (y && y->nbr == PTL_NONE)
                    return ptl_error_set(err, PTL_ERR_PARSE,
                                         "%s:%u: polygons %u and %u share edge (%u, %u) but neither names the other "
                                         "(asymmetric neighbours)", name, m->pline[p], p, y->poly, u, v);
                if (y && y->nbr != p) continue; /* y names another polygon: reported from y's side */
                if (y)
                    return ptl_error_set(err, PTL_ERR_PARSE,
                                         "%s:%u: polygon %u names polygon %u across edge (%u, %u), but polygon %u "
                                         "names none across it (asymmetric neighbours)", name, m->pline[p], y->poly, p,
                                         v, u, p);
                if (m->trav[p]) segs[(*nb)++] = (ptl_bseg){m->xy[2 * u], m->xy[2 * u + 1], m->xy[2 * v], m->xy[2 * v + 1]};
                continue;
            }
            if (!y || y->poly != nbr)
                return ptl_error_set(err, PTL_ERR_PARSE,
                                     "%s:%u: polygon %u names polygon %u across edge (%u, %u), but polygon %u has no edge "
                                     "(%u, %u) (asymmetric neighbours)", name, m->pline[p], p, nbr, u, v, nbr, v, u);
            if (y->nbr != p)
                return ptl_error_set(err, PTL_ERR_PARSE,
                                     "%s:%u: polygon %u names polygon %u across edge (%u, %u), but polygon %u names %lld "
                                     "across it (asymmetric neighbours)", name, m->pline[p], p, nbr, u, v, nbr,
                                     y->nbr == PTL_NONE ? -1LL : (long long)y->nbr);
            /* Version 3: a traversable face beside an obstacle face is walled there. */
            if (m->trav[p] && !m->trav[nbr])
                segs[(*nb)++] = (ptl_bseg){m->xy[2 * u], m->xy[2 * u + 1], m->xy[2 * v], m->xy[2 * v + 1]};
        }
    }
    return PTL_OK;
}

/* All checks; on success `*segs_out` holds the boundary segments (free space on their left, as
   the polygons are counter-clockwise), allocated for pv.count + 1 entries. */
static ptl_status check_mesh(const mesh_data* m, const char* name, const ptl_allocator* a, ptl_bseg** segs_out,
                             uint32_t* seg_count, ptl_error* err) {
    const uint32_t ne = m->pv.count;
    edge_table t;
    t.es = ptl_mem_alloc(a, ((size_t)ne + 1) * sizeof(medge));
    t.start = ptl_mem_calloc(a, (size_t)m->nv + 2, sizeof(uint32_t));
    ptl_bseg* segs = ptl_mem_alloc(a, ((size_t)ne + 1) * sizeof(ptl_bseg));
    uint32_t nb = 0;
    ptl_status st;
    if (!t.es || !t.start || !segs) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory", name);
    else if ((st = check_polygons(m, name, &t, err)) >= 0 && (st = fill_edge_table(m, name, a, &t, err)) >= 0)
        st = check_neighbours(m, name, &t, segs, &nb, err);
    ptl_mem_free(a, t.es, ((size_t)ne + 1) * sizeof(medge));
    ptl_mem_free(a, t.start, ((size_t)m->nv + 2) * sizeof(uint32_t));
    if (st < 0) {
        ptl_mem_free(a, segs, ((size_t)ne + 1) * sizeof(ptl_bseg));
        segs = NULL;
        nb = 0;
    }
    *segs_out = segs;
    *seg_count = nb;
    return st;
}

ptl_status ptl_mesh2d_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                            ptl_shape* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_mesh2d_parse: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    out->alloc = a;
    if (!text && len) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_mesh2d_parse: text is NULL");
    if (!name) name = "<mesh>";
    mreader r = {{text, text + len, 1}, name, len, err};
    mesh_data m;
    memset(&m, 0, sizeof m);
    ptl_bseg* segs = NULL;
    uint32_t nseg = 0, ne = 0;
    ptl_status st = read_mesh(&r, &a, &m);
    if (st < 0) goto done;
    if ((st = snap_mesh(&m, name, &a, err)) < 0) goto done;
    ne = m.pv.count;
    if ((st = check_mesh(&m, name, &a, &segs, &nseg, err)) < 0) goto done;
    if ((st = check_overlaps(&m, name, &a, err)) < 0) goto done;
    /* The helper keeps pinch points apart: where two obstacles touch at a vertex, the two free
       regions on either side get their own copy of it (shape_build.h). */
    st = ptl_shape_build(segs, nseg, 2 * m.q, name, out, err);
    /* What the edge test cannot see (a polygon inside another, a vertex on another's edge) the
       shape's own check can: nothing that fails it reaches the decomposition. */
    ptl_error e;
    memset(&e, 0, sizeof e);
    bool too_near = false;
    if (st >= 0) {
        out->precision = m.q;
        if ((st = ptl_shape_check(out, &e, &too_near)) < 0) {
            if (too_near)
                st = ptl_error_set(err, st, "%s: the polygons' boundaries come too near each other for the input's "
                                   "precision: %s", name, e.message);
            else
                st = ptl_error_set(err, st == PTL_ERR_NO_MEMORY ? st : PTL_ERR_PARSE,
                                   "%s: the polygons overlap or nest (free space is the union of polygons that must "
                                   "not overlap): %s", name, e.message);
            ptl_shape_free(out);
        }
    }
done:
    ptl_mem_free(&a, segs, ((size_t)ne + 1) * sizeof(ptl_bseg));
    ptl_mem_free(&a, m.xy, ((size_t)m.nv + 1) * 2 * sizeof(double));
    ptl_mem_free(&a, m.pstart, ((size_t)m.np + 1) * sizeof(uint32_t));
    ptl_mem_free(&a, m.pline, ((size_t)m.np + 1) * sizeof(uint32_t));
    ptl_mem_free(&a, m.trav, (size_t)m.np + 1);
    PTL_ARRAY_FREE(&a, m.pv);
    PTL_ARRAY_FREE(&a, m.pn);
    return st;
}

ptl_status ptl_mesh2d_load(const char* path, const ptl_input_desc* desc, ptl_shape* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_mesh2d_load: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    out->alloc = a;
    ptl_text_file f;
    ptl_status st = ptl_text_read_file(path, &a, &f, err);
    if (st < 0) return st;
    st = ptl_mesh2d_parse(f.data, f.size, path, &(ptl_input_desc){.alloc = &a}, out, err);
    ptl_text_file_free(&a, &f);
    return st;
}
