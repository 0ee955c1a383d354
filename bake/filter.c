/* Solid heightfield -> open field: the walkable floors, with the space above them and their
   neighbours (Saupin et al. 2014, §2.3; Recast's filters and compact heightfield, whose behaviour
   this reproduces so that walkable areas compare directly, see bench/).

   In order:
   1. Low obstacles (Recast's rcFilterLowHangingWalkableObstacles): a non-walkable span whose top
      is within walkable_climb above the top of the span right below it, when that one is walkable
      (as rasterized), becomes walkable with its tag: curbs, steps, thin boxes on a floor. It does
      not chain: only a span rasterized walkable lends its flag.
   2. Clearance (Saupin §2.3.2): a floor whose opening (up to the bottom of the next span, or open
      sky) is lower than walkable_height is not walkable. An opening of exactly walkable_height
      fits (Recast requires strictly more in its filters but exactly enough in its links; this
      bake uses "at least" everywhere).
   3. Ledges (Recast's rcFilterLedgeSpans): looking at the 4 neighbour columns, only at the
      openings there that overlap this floor's opening by at least walkable_height (the agent could
      step into them), a floor is a ledge, not walkable, when
      - a neighbour column lies outside the grid, or has an opening reaching down to nothing
        below it (a bottomless drop), or a floor more than walkable_climb below this one; or
      - the neighbour floors within walkable_climb of this one (this one included) span more than
        walkable_climb: a steep slope made of climbable steps.
      Neighbour floors count whether walkable or not; only the geometry matters, so the order of
      2 and 3 does not matter.
   4. Open spans: every walkable floor left, floor = top of its solid span, ceil = bottom of the
      next (PTL_VX_MAX_HEIGHT: open sky).
   5. Links, 4-connected: the neighbour column's lowest open span whose floor is within
      walkable_climb and whose opening overlaps this one by at least walkable_height (Recast's
      compact heightfield rule). Links are kept only when mutual, so the graph is symmetric (a
      one-way link needs walkable_height < 2 * walkable_climb; Recast would keep it).
   6. Erosion by walkable_radius (Recast's rcErodeWalkableArea): a chamfer distance (2 across a
      side, 3 across a corner, the corner reached through the first side's link) from the spans
      that miss a link, computed in two sweeps; spans closer than 2 * walkable_radius are removed
      with their links. A span missing a link has distance 0, so a radius of r columns removes r
      columns along every wall, the one touching the wall included. */
#include <string.h>

#include "../runtime/alloc.h"
#include "../runtime/error.h"
#include "voxel.h"

static const int DX[4] = {-1, 0, 1, 0};
static const int DZ[4] = {0, 1, 0, -1};

static int mini(int a, int b) {
    return a < b ? a : b;
}
static int maxi(int a, int b) {
    return a > b ? a : b;
}

/* Bottom of the span after `i` in a column ending at `end`, or open sky. */
static int ceil_of(const ptl_heightfield* hf, uint32_t i, uint32_t end) {
    return i + 1 < end ? hf->spans[i + 1].smin : (int)PTL_VX_MAX_HEIGHT;
}

/* Rule 3 above for the floor `bot` (opening up to `top`) of column (x, z). */
static bool is_ledge(const ptl_heightfield* hf, int x, int z, int bot, int top) {
    const ptl_vx_params* p = &hf->p;
    const int h = p->walkable_height, climb = p->walkable_climb;
    int amin = bot, amax = bot;
    for (int d = 0; d < 4; ++d) {
        int nx = x + DX[d], nz = z + DZ[d];
        if (nx < 0 || nz < 0 || nx >= p->width || nz >= p->depth) return true;
        uint32_t c = (uint32_t)nz * (uint32_t)p->width + (uint32_t)nx;
        uint32_t b = hf->col_start[c], e = hf->col_start[c + 1];
        int first = b < e ? hf->spans[b].smin : (int)PTL_VX_MAX_HEIGHT;
        if (mini(top, first) - bot >= h) return true; /* open down to nothing */
        for (uint32_t i = b; i < e; ++i) {
            int nbot = hf->spans[i].smax, ntop = ceil_of(hf, i, e);
            if (mini(top, ntop) - maxi(bot, nbot) < h) continue;
            if (nbot - bot < -climb) return true;
            if (nbot - bot <= climb) amin = mini(amin, nbot), amax = maxi(amax, nbot);
        }
    }
    return amax - amin > climb;
}

void ptl_open_field_free(ptl_open_field* of) {
    if (!of) return;
    if (of->alloc.free) {
        size_t cols = (size_t)of->p.width * (size_t)of->p.depth;
        ptl_mem_free(&of->alloc, of->col_start, (cols + 1) * sizeof *of->col_start);
        ptl_mem_free(&of->alloc, of->spans, (size_t)of->span_cap * sizeof *of->spans);
        ptl_mem_free(&of->alloc, of->col_of, (size_t)of->span_cap * sizeof *of->col_of);
    }
    memset(of, 0, sizeof *of);
}

/* Rules 1-3: the walkable flag of every solid span. */
static void filter_flags(const ptl_heightfield* hf, uint8_t* walk) {
    const ptl_vx_params* p = &hf->p;
    for (uint32_t i = 0; i < hf->span_count; ++i) walk[i] = hf->spans[i].walkable;
    for (int z = 0; z < p->depth; ++z) {
        for (int x = 0; x < p->width; ++x) {
            uint32_t c = (uint32_t)z * (uint32_t)p->width + (uint32_t)x;
            uint32_t b = hf->col_start[c], e = hf->col_start[c + 1];
            for (uint32_t i = b + 1; i < e; ++i) /* rule 1, from the rasterized flags only */
                if (!hf->spans[i].walkable && hf->spans[i - 1].walkable &&
                    hf->spans[i].smax - hf->spans[i - 1].smax <= p->walkable_climb)
                    walk[i] = 2; /* 2: walkable with the tag of the span below */
            for (uint32_t i = b; i < e; ++i) {
                if (!walk[i]) continue;
                int bot = hf->spans[i].smax, top = ceil_of(hf, i, e);
                if (top - bot < p->walkable_height || is_ledge(hf, x, z, bot, top)) walk[i] = 0;
            }
        }
    }
}

/* Rule 5 for span s of column (x, z). */
static void link_span(ptl_open_field* of, uint32_t s, int x, int z) {
    const ptl_vx_params* p = &of->p;
    const int h = p->walkable_height, climb = p->walkable_climb;
    ptl_open_span* a = &of->spans[s];
    for (int d = 0; d < 4; ++d) {
        a->nbr[d] = PTL_VX_NONE;
        int nx = x + DX[d], nz = z + DZ[d];
        if (nx < 0 || nz < 0 || nx >= p->width || nz >= p->depth) continue;
        uint32_t c = (uint32_t)nz * (uint32_t)p->width + (uint32_t)nx;
        for (uint32_t t = of->col_start[c]; t < of->col_start[c + 1]; ++t) {
            const ptl_open_span* b = &of->spans[t];
            int df = (int)b->floor - (int)a->floor;
            if (df < -climb || df > climb) continue;
            if (mini(a->ceil, b->ceil) - maxi(a->floor, b->floor) < h) continue;
            a->nbr[d] = t;
            break;
        }
    }
}

/* Rule 5, then keeps only mutual links. */
static void link_spans(ptl_open_field* of) {
    const ptl_vx_params* p = &of->p;
    for (int z = 0; z < p->depth; ++z)
        for (int x = 0; x < p->width; ++x) {
            uint32_t col = (uint32_t)z * (uint32_t)p->width + (uint32_t)x;
            for (uint32_t s = of->col_start[col]; s < of->col_start[col + 1]; ++s) link_span(of, s, x, z);
        }
    for (uint32_t s = 0; s < of->span_count; ++s)
        for (int d = 0; d < 4; ++d) {
            uint32_t t = of->spans[s].nbr[d];
            if (t != PTL_VX_NONE && of->spans[t].nbr[(d + 2) & 3] != s) of->spans[s].nbr[d] = PTL_VX_NONE;
        }
}

static uint16_t relax(uint16_t cur, uint16_t from, unsigned step) {
    unsigned v = (unsigned)from + step;
    return v < cur ? (uint16_t)v : cur;
}

/* Rule 6: marks in `gone` the spans the erosion removes; returns how many. */
static uint32_t erode(const ptl_open_field* of, uint16_t* dist, uint8_t* gone) {
    const ptl_vx_params* p = &of->p;
    const ptl_open_span* sp = of->spans;
    for (uint32_t s = 0; s < of->span_count; ++s) {
        bool inner = true;
        for (int d = 0; d < 4; ++d) inner = inner && sp[s].nbr[d] != PTL_VX_NONE;
        dist[s] = inner ? 0xffff : 0;
    }
    const uint32_t cols = (uint32_t)p->width * (uint32_t)p->depth;
    /* Forward sweep: (-1, 0), (-1, -1), (0, -1), (+1, -1). Column order is z-major, x-minor. */
    for (uint32_t c = 0; c < cols; ++c)
        for (uint32_t s = of->col_start[c]; s < of->col_start[c + 1]; ++s) {
            uint32_t a = sp[s].nbr[0], b = sp[s].nbr[3];
            if (a != PTL_VX_NONE) {
                dist[s] = relax(dist[s], dist[a], 2);
                if (sp[a].nbr[3] != PTL_VX_NONE) dist[s] = relax(dist[s], dist[sp[a].nbr[3]], 3);
            }
            if (b != PTL_VX_NONE) {
                dist[s] = relax(dist[s], dist[b], 2);
                if (sp[b].nbr[2] != PTL_VX_NONE) dist[s] = relax(dist[s], dist[sp[b].nbr[2]], 3);
            }
        }
    /* Backward sweep: (+1, 0), (+1, +1), (0, +1), (-1, +1). */
    for (uint32_t c = cols; c-- > 0;)
        for (uint32_t s = of->col_start[c + 1]; s-- > of->col_start[c];) {
            uint32_t a = sp[s].nbr[2], b = sp[s].nbr[1];
            if (a != PTL_VX_NONE) {
                dist[s] = relax(dist[s], dist[a], 2);
                if (sp[a].nbr[1] != PTL_VX_NONE) dist[s] = relax(dist[s], dist[sp[a].nbr[1]], 3);
            }
            if (b != PTL_VX_NONE) {
                dist[s] = relax(dist[s], dist[b], 2);
                if (sp[b].nbr[0] != PTL_VX_NONE) dist[s] = relax(dist[s], dist[sp[b].nbr[0]], 3);
            }
        }
    const uint32_t thr = 2u * (uint32_t)p->walkable_radius;
    uint32_t removed = 0;
    for (uint32_t s = 0; s < of->span_count; ++s) {
        gone[s] = dist[s] < thr;
        removed += gone[s];
    }
    return removed;
}

/* Keeps the spans not marked in `gone`, compacted in place (links renumbered, links to removed
   spans dropped); the arrays keep their size (span_cap). `map` has span_count entries of scratch. */
static void remove_spans(ptl_open_field* of, const uint8_t* gone, uint32_t* map) {
    const uint32_t n = of->span_count;
    uint32_t k = 0;
    for (uint32_t s = 0; s < n; ++s) map[s] = gone[s] ? PTL_VX_NONE : k++;
    for (uint32_t s = 0; s < n; ++s) {
        if (gone[s]) continue;
        ptl_open_span o = of->spans[s];
        for (int d = 0; d < 4; ++d)
            if (o.nbr[d] != PTL_VX_NONE) o.nbr[d] = map[o.nbr[d]];
        of->spans[map[s]] = o;
        of->col_of[map[s]] = of->col_of[s];
    }
    /* col_start from the (sorted) column of each kept span */
    const uint32_t cols = (uint32_t)of->p.width * (uint32_t)of->p.depth;
    uint32_t c = 0;
    for (uint32_t s = 0; s < k; ++s)
        while (c <= of->col_of[s]) of->col_start[c++] = s;
    while (c <= cols) of->col_start[c++] = k;
    of->span_count = k;
}

ptl_status ptl_vx_build_open(const ptl_heightfield* hf, const ptl_allocator* alloc, ptl_open_field* out, ptl_error* err) {
    if (!hf || !out || (hf->span_count && (!hf->spans || !hf->col_start)))
        return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_vx_build_open: NULL argument");
    memset(out, 0, sizeof *out);
    ptl_allocator a = ptl_allocator_resolve(alloc);
    const ptl_vx_params* p = &hf->p;
    const size_t cols = (size_t)p->width * (size_t)p->depth;
    const uint32_t ns = hf->span_count;
    uint8_t* walk = ptl_mem_alloc(&a, ns);
    uint16_t* dist = NULL;
    uint32_t* map = NULL;
    uint32_t n = 0;
    ptl_status st = PTL_OK;
    out->p = *p;
    out->alloc = a;
    out->col_start = ptl_mem_alloc(&a, (cols + 1) * sizeof *out->col_start);
    if (!walk || !out->col_start) goto oom;
    filter_flags(hf, walk);

    for (uint32_t i = 0; i < ns; ++i) n += walk[i] != 0;
    out->spans = ptl_mem_alloc(&a, (size_t)n * sizeof *out->spans);
    out->col_of = ptl_mem_alloc(&a, (size_t)n * sizeof *out->col_of);
    if (!out->spans || !out->col_of) {
        ptl_mem_free(&a, out->spans, (size_t)n * sizeof *out->spans);
        ptl_mem_free(&a, out->col_of, (size_t)n * sizeof *out->col_of);
        out->spans = NULL, out->col_of = NULL;
        goto oom;
    }
    out->span_count = out->span_cap = n;
    uint32_t k = 0;
    for (size_t c = 0; c < cols; ++c) {
        out->col_start[c] = k;
        uint32_t b = hf->col_start[c], e = hf->col_start[c + 1];
        for (uint32_t i = b; i < e; ++i) {
            if (!walk[i]) continue;
            ptl_open_span o;
            memset(&o, 0, sizeof o);
            o.floor = hf->spans[i].smax;
            o.ceil = (uint16_t)ceil_of(hf, i, e);
            o.tag = walk[i] == 2 ? hf->spans[i - 1].tag : hf->spans[i].tag;
            o.layer = PTL_VX_NONE;
            out->col_of[k] = (uint32_t)c;
            out->spans[k++] = o;
        }
    }
    out->col_start[cols] = k;
    link_spans(out);

    if (p->walkable_radius > 0 && n > 0) {
        dist = ptl_mem_alloc(&a, (size_t)n * sizeof *dist);
        map = ptl_mem_alloc(&a, (size_t)n * sizeof *map);
        if (!dist || !map) goto oom;
        /* `walk` is reused as the removal mark (n <= ns) */
        if (erode(out, dist, walk) > 0) remove_spans(out, walk, map);
    }
    goto done;
oom:
    st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "filter: out of memory (%u spans)", ns);
    ptl_open_field_free(out);
done:
    ptl_mem_free(&a, walk, ns);
    ptl_mem_free(&a, dist, (size_t)n * sizeof *dist);
    ptl_mem_free(&a, map, (size_t)n * sizeof *map);
    if (st >= 0) ptl_error_ok(err);
    return st;
}
