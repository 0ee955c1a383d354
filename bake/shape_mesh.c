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

#include <string.h>

#include "../runtime/alloc.h"
#include "../runtime/error.h"
#include "shape_build.h"
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
    uint8_t* trav;       /* np: 1 for a traversable polygon (always 1 in version 2) */
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
        if ((st = next_num(r, "vertex x", &m->xy[2 * i])) < 0) return st;
        if ((st = next_num(r, "vertex y", &m->xy[2 * i + 1])) < 0) return st;
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

/* Every polygon: no vertex twice in a row, not its own neighbour, counter-clockwise. Counts the
   edges leaving each vertex into t->start[u + 2] on the way (for fill_edge_table). */
static ptl_status check_polygons(const mesh_data* m, const char* name, edge_table* t, ptl_error* err) {
    for (uint32_t p = 0; p < m->np; ++p) {
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
        uint32_t b = m->pstart[p], e = m->pstart[p + 1];
        for (uint32_t i = b; i < e; ++i) {
            uint32_t u = m->pv.data[i > b ? i - 1 : e - 1], v = m->pv.data[i], nbr = m->pn.data[i];
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

ptl_status ptl_mesh2d_parse(const char* text, size_t len, const char* name, const ptl_allocator* alloc,
                            ptl_shape* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_mesh2d_parse: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(alloc);
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
    ne = m.pv.count;
    if ((st = check_mesh(&m, name, &a, &segs, &nseg, err)) < 0) goto done;
    /* The helper keeps pinch points apart: where two obstacles touch at a vertex, the two free
       regions on either side get their own copy of it (shape_build.h). */
    st = ptl_shape_build(segs, nseg, name, out, err);
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

ptl_status ptl_mesh2d_load(const char* path, const ptl_allocator* alloc, ptl_shape* out, ptl_error* err) {
    if (!out) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_mesh2d_load: out is NULL");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    out->alloc = a;
    ptl_text_file f;
    ptl_status st = ptl_text_read_file(path, &a, &f, err);
    if (st < 0) return st;
    st = ptl_mesh2d_parse(f.data, f.size, path, &a, out, err);
    ptl_text_file_free(&a, &f);
    return st;
}
