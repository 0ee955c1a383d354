/* Hub labels over the corners, for exact shortest paths in microseconds (runtime hubs.c).

   A Euclidean shortest path between two points turns only at corners of the walkable boundary, and
   between two turns it is a straight segment that touches the boundary tangentially at both ends
   (Lozano-Pérez and Wesley's visibility graph; only the "taut" edges are needed, the sparse
   visibility graph of Oh and Leong). So the exact distance between two corners is their distance in
   that graph, and the distance between two points is the minimum, over the corners a seen from the
   start and b seen from the goal, of |s a| + d(a, b) + |b g| (or |s g| when they see each other).

   The bake builds the graph and answers d(a, b) for the runtime with a 2-hop labelling (Cohen,
   Halperin, Kaplan and Zwick 2003), computed by pruned landmark labelling (Akiba, Iwata and
   Yoshida, SIGMOD 2013): every corner gets a list of (hub, distance) pairs such that for any two
   corners some hub on a shortest path between them is in both lists. The corners are taken in
   order of decreasing degree in the graph (open places see many corners and lie on many paths);
   from each, a Dijkstra search adds the corner as a hub to every vertex it reaches, except where
   the labels built so far already give a distance as short (the search is pruned there). Each
   entry also keeps the next corner towards its hub, so that the runtime can unpack a path.
   The same idea over a visibility graph is what Du, Shen and Cheema's Euclidean Hub Labeling
   (2023) does; unlike it, the labels of the query points are not precomputed per region here: the
   runtime finds the corners a point sees with a bounded search over the cells.

   Which corners: vertices where a path may turn (the runtime's corner test, query.c) that end a
   portal; a strictly reflex vertex always does (its cell would not be convex otherwise). With
   pocket lids (ptl_decompose_desc.lids) not those inside a pocket, whose cells the sweeps do not
   enter either.

   Deterministic: the graph is built per corner (in any order, on any thread) and sorted; the
   labelling runs in one thread in a fixed order. */
#include <math.h>
#include <string.h>

#include <portolan/bake.h>

#include "../../runtime/internal.h"
#include "hubs.h"

/* The labels' searches never ask for a disc's path: no room for one (ptl_query_switches). */
static const ptl_query_switches hub_switches = {.no_disc = true};

/* Shortest-path trees sampled to rank the hubs: on Aurora (19,869 corners) 16 trees give labels of
   130 entries on average, 64 give 118, 256 give 118 again; degree order (Akiba et al.'s default for
   social networks) gives 430. */
enum { HUB_ORDER_SAMPLES = 64 };

/* ---- The corners and the graph ---------------------------------------------------------------- */

typedef struct graph {
    uint32_t n;          /* corners */
    uint32_t* vert;      /* corner -> vertex id (in rank order once ranked) */
    uint32_t* corner_of; /* vertex id -> corner, PTL_NONE when the vertex is none */
    uint32_t* start;     /* CSR, n + 1 */
    uint32_t* nbr;       /* corner indices */
    double* w;           /* [Units: wu] edge lengths */
    uint64_t edge_count; /* directed: twice the undirected edges */
} graph;

/* One corner's visibility sweep: the corners it sees with a taut edge between them. */
typedef struct sweep {
    const graph* g;
    const ptl_query* q;
    uint32_t self;      /* the corner swept from */
    uint32_t* mark;     /* per corner: == stamp when seen already */
    uint32_t stamp;
    PTL_ARRAY(uint32_t) out;
    const ptl_allocator* a;
    bool failed;
} sweep;

static void on_seen(void* user, uint32_t vert) {
    sweep* s = user;
    uint32_t c = s->g->corner_of[vert];
    if (c == PTL_NONE || c == s->self || s->mark[c] == s->stamp) return;
    s->mark[c] = s->stamp;
    const ptl_navmesh* nm = s->q->nm;
    uint32_t u = s->g->vert[s->self];
    double ux = ptl_nm_vx(nm, u), uz = ptl_nm_vz(nm, u), vx = ptl_nm_vx(nm, vert), vz = ptl_nm_vz(nm, vert);
    /* Two vertices at one place are the two sides of a pinch, which no path crosses (or, in 3D,
       two floors one above the other, which no path joins in a straight line). */
    if (ux == vx && uz == vz) return;
    if (!ptl_vis_tangent(s->q, vert, ux, uz) || !ptl_vis_tangent(s->q, u, vx, vz)) return;
    if (!PTL_PUSH(s->a, s->out, c)) s->failed = true;
}

/* Sweeps from corner c, growing the query's pool when the sweep needs it. */
static ptl_status sweep_corner(ptl_query** qp, const ptl_allocator* a, sweep* s, uint32_t c) {
    const ptl_navmesh* nm = (*qp)->nm;
    uint32_t v = s->g->vert[c];
    ptl_qpoint p;
    ptl_query_vertex_point(nm, v, &p);
    for (;;) {
        s->q = *qp;
        s->self = c;
        s->out.count = 0;
        ++s->stamp;
        (*qp)->vis_skip_pockets = nm->cell_lid != NULL;
        ptl_status st = ptl_query_visible_vertices(*qp, &p, on_seen, s);
        if (st != PTL_ERR_OUT_OF_NODES) return s->failed ? PTL_ERR_NO_MEMORY : st;
        uint32_t more = (*qp)->max_nodes * 4;
        if (more > (1u << 24)) return st;
        ptl_query_destroy(*qp);
        *qp = NULL;
        ptl_query_desc qd = {.max_nodes = more, .alloc = a};
        if ((st = ptl_query_create_with_switches(nm, &qd, &hub_switches, qp)) < 0) return st;
    }
}

typedef struct graph_ctx {
    const ptl_navmesh* nm;
    const ptl_allocator* a;
    graph* g;
    uint32_t jobs;
    PTL_ARRAY(uint64_t) * pairs; /* per job: (min << 32 | max) corner pairs */
    ptl_status* st;              /* per job */
} graph_ctx;

static void graph_job(void* data, uint32_t j) {
    graph_ctx* c = data;
    const graph* g = c->g;
    ptl_query* q = NULL;
    ptl_query_desc qd = {.max_nodes = 1u << 12, .alloc = c->a};
    sweep s;
    memset(&s, 0, sizeof s);
    s.g = g, s.a = c->a;
    s.mark = ptl_mem_calloc(c->a, (size_t)g->n + 1, sizeof(uint32_t));
    ptl_status st = s.mark ? ptl_query_create_with_switches(c->nm, &qd, &hub_switches, &q) : PTL_ERR_NO_MEMORY;
    for (uint32_t k = j; k < g->n && st >= 0; k += c->jobs) {
        if ((st = sweep_corner(&q, c->a, &s, k)) < 0) break;
        for (uint32_t i = 0; i < s.out.count; ++i) {
            uint32_t d = s.out.data[i], lo = k < d ? k : d, hi = k < d ? d : k;
            if (!PTL_PUSH(c->a, c->pairs[j], (uint64_t)lo << 32 | hi)) {
                st = PTL_ERR_NO_MEMORY;
                break;
            }
        }
    }
    c->st[j] = st;
    PTL_ARRAY_FREE(c->a, s.out);
    ptl_mem_free(c->a, s.mark, ((size_t)g->n + 1) * sizeof(uint32_t));
    ptl_query_destroy(q);
}

static int cmp_u64(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

static void graph_free(graph* g, const ptl_allocator* a, uint32_t nv) {
    ptl_mem_free(a, g->vert, ((size_t)g->n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, g->corner_of, ((size_t)nv + 1) * sizeof(uint32_t));
    ptl_mem_free(a, g->start, ((size_t)g->n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, g->nbr, (size_t)g->edge_count * sizeof(uint32_t));
    ptl_mem_free(a, g->w, (size_t)g->edge_count * sizeof(double));
    memset(g, 0, sizeof *g);
}

/* The corners (query.c's corner test on a vertex that ends a portal), then the taut visibility
   edges between them. */
/* The graph's vertices: the navmesh's corners that end a portal (outside pockets when there are
   lids); corner_of maps a navmesh vertex to its graph vertex (PTL_NONE: none). */
static ptl_status graph_corners(const ptl_navmesh* nm, const ptl_allocator* a, graph* g) {
    const ptl_blob_header* h = nm->h;
    const uint32_t nv = h->vert_count;
    ptl_query* q = NULL;
    ptl_query_desc qd = {.max_nodes = PTL_QUERY_MIN_MAX_NODES, .alloc = a};
    ptl_status st = ptl_query_create_with_switches(nm, &qd, &hub_switches, &q); /* for the slots: corner flags and dead ends */
    if (st < 0) return st;
    g->corner_of = ptl_mem_alloc(a, ((size_t)nv + 1) * sizeof(uint32_t));
    if (!g->corner_of) {
        ptl_query_destroy(q);
        return PTL_ERR_NO_MEMORY;
    }
    memset(g->corner_of, 0xff, ((size_t)nv + 1) * sizeof(uint32_t));
    uint32_t* is = g->corner_of; /* scratch: bit 0 a corner, bit 1 ends a portal */
    for (uint32_t v = 0; v < nv; ++v) is[v] = 0;
    for (uint32_t c = 0; c < h->cell_count; ++c) {
        const ptl_blob_cell* cell = &nm->cells[c];
        for (uint32_t i = 0; i < cell->vert_count; ++i) {
            const ptl_slot* sl = &q->slots[cell->first + i];
            uint32_t i1 = i + 1 == cell->vert_count ? 0 : i + 1;
            uint32_t v = nm->cell_verts[cell->first + i], w = nm->cell_verts[cell->first + i1];
            if (sl->corner) is[v] |= 1;
            if (sl->nbr != PTL_NONE) is[v] |= 2, is[w] |= 2;
        }
    }
    ptl_query_destroy(q);
    /* With lids, the corners inside pockets get no label: a path between two points outside a
       pocket never turns there, and a search from inside one turns at them itself (runtime
       hubs.c). */
    if (nm->vert_lid)
        for (uint32_t v = 0; v < nv; ++v)
            if (nm->vert_lid[v] != PTL_NONE) is[v] = 0;
    uint32_t n = 0;
    for (uint32_t v = 0; v < nv; ++v) n += is[v] == 3;
    g->n = n;
    g->vert = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    g->start = ptl_mem_calloc(a, (size_t)n + 1, sizeof(uint32_t));
    if (!g->vert || !g->start) return PTL_ERR_NO_MEMORY;
    n = 0;
    for (uint32_t v = 0; v < nv; ++v) {
        bool corner = is[v] == 3;
        if (corner) g->vert[n] = v;
        is[v] = corner ? n++ : PTL_NONE;
    }
    return PTL_OK;
}

typedef PTL_ARRAY(uint64_t) u64_array;

/* The visible pairs of corners (graph_job, as jobs), each undirected edge once, sorted. */
static ptl_status graph_pairs(const ptl_navmesh* nm, const ptl_job_system* jobs, const ptl_allocator* a, graph* g,
                              u64_array* all) {
    uint32_t nj = jobs && jobs->run ? 16 : 1;
    u64_array pairs[16];
    ptl_status jst[16];
    memset(pairs, 0, sizeof pairs);
    graph_ctx ctx = {nm, a, g, nj, (void*)pairs, jst};
    if (nj > 1) jobs->run(jobs->user, graph_job, &ctx, nj);
    else graph_job(&ctx, 0);
    ptl_status st = PTL_OK;
    uint64_t total = 0;
    for (uint32_t j = 0; j < nj; ++j) {
        if (jst[j] < 0 && st >= 0) st = jst[j];
        total += pairs[j].count;
    }
    if (st >= 0 && (total > UINT32_MAX / 2 || !PTL_RESERVE(a, *all, total + 1))) st = PTL_ERR_NO_MEMORY;
    for (uint32_t j = 0; j < nj; ++j) {
        if (st >= 0 && pairs[j].count) {
            memcpy(all->data + all->count, pairs[j].data, (size_t)pairs[j].count * sizeof(uint64_t));
            all->count += pairs[j].count;
        }
        PTL_ARRAY_FREE(a, pairs[j]);
    }
    if (st >= 0 && !ptl_sort(all->data, all->count, sizeof(uint64_t), cmp_u64, a)) st = PTL_ERR_NO_MEMORY;
    if (st < 0) return st;
    /* Undirected edges, each once (the two sweeps of a pair usually both find it). */
    uint32_t m = 0;
    for (uint32_t i = 0; i < all->count; ++i)
        if (i == 0 || all->data[i] != all->data[i - 1]) all->data[m++] = all->data[i];
    all->count = m;
    return PTL_OK;
}

/* The edges as CSR, both ways, weighted by their length. */
static ptl_status graph_csr(const ptl_navmesh* nm, const ptl_allocator* a, graph* g, const u64_array* all) {
    const uint32_t n = g->n;
    g->edge_count = 2 * (uint64_t)all->count;
    g->nbr = ptl_mem_alloc(a, (size_t)g->edge_count * sizeof(uint32_t));
    g->w = ptl_mem_alloc(a, (size_t)g->edge_count * sizeof(double));
    if (!g->nbr || !g->w) return PTL_ERR_NO_MEMORY;
    uint32_t* deg = g->start; /* counts, then the running positions */
    for (uint32_t i = 0; i < all->count; ++i) {
        deg[all->data[i] >> 32]++;
        deg[(uint32_t)all->data[i]]++;
    }
    uint32_t run = 0;
    for (uint32_t c = 0; c <= n; ++c) {
        uint32_t d = c < n ? deg[c] : 0;
        deg[c] = run;
        run += d;
    }
    for (uint32_t i = 0; i < all->count; ++i) {
        uint32_t u = (uint32_t)(all->data[i] >> 32), v = (uint32_t)all->data[i];
        double dx = ptl_nm_vx(nm, g->vert[u]) - ptl_nm_vx(nm, g->vert[v]);
        double dz = ptl_nm_vz(nm, g->vert[u]) - ptl_nm_vz(nm, g->vert[v]);
        double len = sqrt(dx * dx + dz * dz);
        g->nbr[g->start[u]] = v, g->w[g->start[u]++] = len;
        g->nbr[g->start[v]] = u, g->w[g->start[v]++] = len;
    }
    for (uint32_t c = n; c > 0; --c) g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    return PTL_OK;
}

static ptl_status build_graph(const ptl_navmesh* nm, const ptl_job_system* jobs, const ptl_allocator* a, graph* g) {
    memset(g, 0, sizeof *g);
    ptl_status st = graph_corners(nm, a, g);
    if (st < 0) return st;
    u64_array all = {0};
    st = graph_pairs(nm, jobs, a, g, &all);
    if (st >= 0) st = graph_csr(nm, a, g, &all);
    PTL_ARRAY_FREE(a, all);
    return st;
}

/* ---- Pruned landmark labelling --------------------------------------------------------------- */

typedef struct hl {
    uint32_t hub; /* the hub's rank */
    uint32_t hop; /* the next corner from the label's owner towards the hub (the hub itself there) */
    double d;     /* [Units: wu] */
} hl;
typedef PTL_ARRAY(hl) hl_list;

typedef struct qitem {
    double d;
    uint32_t v;
} qitem;
typedef PTL_ARRAY(qitem) qheap;

static bool qpush(const ptl_allocator* a, qheap* hp, double d, uint32_t v) {
    if (!PTL_RESERVE(a, *hp, (uint64_t)hp->count + 1)) return false;
    uint32_t i = hp->count++;
    while (i > 0) {
        uint32_t p = (i - 1) >> 1;
        if (hp->data[p].d < d || (hp->data[p].d == d && hp->data[p].v < v)) break;
        hp->data[i] = hp->data[p];
        i = p;
    }
    hp->data[i].d = d, hp->data[i].v = v;
    return true;
}

static qitem qpop(qheap* hp) {
    qitem top = hp->data[0], last = hp->data[--hp->count];
    uint32_t i = 0, n = hp->count;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && (hp->data[c + 1].d < hp->data[c].d ||
                          (hp->data[c + 1].d == hp->data[c].d && hp->data[c + 1].v < hp->data[c].v)))
            ++c;
        if (last.d < hp->data[c].d || (last.d == hp->data[c].d && last.v < hp->data[c].v)) break;
        hp->data[i] = hp->data[c];
        i = c;
    }
    if (n > 0) hp->data[i] = last;
    return top;
}

typedef struct labelling {
    uint32_t* order; /* rank -> corner */
    hl_list* label;  /* per corner, in rank order of their hubs */
    uint64_t entries;
} labelling;

static void labelling_free(labelling* L, const ptl_allocator* a, uint32_t n) {
    if (L->label)
        for (uint32_t c = 0; c < n; ++c) PTL_ARRAY_FREE(a, L->label[c]);
    ptl_mem_free(a, L->label, ((size_t)n + 1) * sizeof(hl_list));
    ptl_mem_free(a, L->order, ((size_t)n + 1) * sizeof(uint32_t));
    memset(L, 0, sizeof *L);
}

/* Sampled betweenness: the hubs that lie on most shortest paths first. Full Dijkstra trees from
   `samples` corners spread over the index range; a corner scores the number of corners below it in
   each tree (the paths from the root through it). */
static const double* g_score;
static int cmp_score(const void* pa, const void* pb) {
    uint32_t a = *(const uint32_t*)pa, b = *(const uint32_t*)pb;
    if (g_score[a] != g_score[b]) return g_score[a] > g_score[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

static ptl_status order_by_trees(const graph* g, const ptl_allocator* a, uint32_t samples, uint32_t* order) {
    const uint32_t n = g->n;
    double* score = ptl_mem_calloc(a, (size_t)n + 1, sizeof(double));
    double* dist = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(double));
    double* sub = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(double));
    uint32_t* parent = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    uint32_t* settled = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    uint8_t* done = ptl_mem_alloc(a, (size_t)n + 1);
    qheap hp = {0};
    ptl_status st = score && dist && sub && parent && settled && done ? PTL_OK : PTL_ERR_NO_MEMORY;
    if (samples > n) samples = n;
    for (uint32_t k = 0; k < samples && st >= 0; ++k) {
        uint32_t root = (uint32_t)(((uint64_t)k * n) / samples);
        for (uint32_t v = 0; v < n; ++v) dist[v] = INFINITY, done[v] = 0, parent[v] = PTL_NONE, sub[v] = 1;
        uint32_t ns = 0;
        hp.count = 0;
        dist[root] = 0;
        if (!qpush(a, &hp, 0, root)) st = PTL_ERR_NO_MEMORY;
        while (hp.count > 0 && st >= 0) {
            qitem it = qpop(&hp);
            uint32_t u = it.v;
            if (done[u]) continue;
            done[u] = 1;
            settled[ns++] = u;
            for (uint32_t e = g->start[u]; e < g->start[u + 1]; ++e) {
                uint32_t w = g->nbr[e];
                double nd = it.d + g->w[e];
                if (nd < dist[w]) {
                    dist[w] = nd, parent[w] = u;
                    if (!qpush(a, &hp, nd, w)) st = PTL_ERR_NO_MEMORY;
                }
            }
        }
        for (uint32_t i = ns; i-- > 0;) {
            uint32_t u = settled[i];
            score[u] += sub[u];
            if (parent[u] != PTL_NONE) sub[parent[u]] += sub[u];
        }
    }
    if (st >= 0) {
        for (uint32_t c = 0; c < n; ++c) order[c] = c;
        g_score = score;
        if (!ptl_sort(order, n, sizeof(uint32_t), cmp_score, a)) st = PTL_ERR_NO_MEMORY;
    }
    PTL_ARRAY_FREE(a, hp);
    ptl_mem_free(a, score, ((size_t)n + 1) * sizeof(double));
    ptl_mem_free(a, dist, ((size_t)n + 1) * sizeof(double));
    ptl_mem_free(a, sub, ((size_t)n + 1) * sizeof(double));
    ptl_mem_free(a, parent, ((size_t)n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, settled, ((size_t)n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, done, (size_t)n + 1);
    return st;
}

static ptl_status label_graph(const graph* g, const ptl_allocator* a, labelling* L) {
    const uint32_t n = g->n;
    memset(L, 0, sizeof *L);
    L->order = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    L->label = ptl_mem_calloc(a, (size_t)n + 1, sizeof(hl_list));
    double* T = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(double));
    double* dist = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(double));
    uint32_t* parent = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    uint32_t* seen = ptl_mem_calloc(a, (size_t)n + 1, sizeof(uint32_t));
    qheap hp = {0};
    ptl_status st = PTL_OK;
    if (!L->order || !L->label || !T || !dist || !parent || !seen) st = PTL_ERR_NO_MEMORY;
    if (st >= 0) {
        for (uint32_t c = 0; c < n; ++c) T[c] = INFINITY;
        st = order_by_trees(g, a, HUB_ORDER_SAMPLES, L->order);
    }
    for (uint32_t r = 0; r < n && st >= 0; ++r) {
        const uint32_t h = L->order[r];
        const hl_list* lh = &L->label[h];
        for (uint32_t i = 0; i < lh->count; ++i) T[lh->data[i].hub] = lh->data[i].d;
        hp.count = 0;
        dist[h] = 0, parent[h] = h, seen[h] = r + 1;
        if (!qpush(a, &hp, 0, h)) st = PTL_ERR_NO_MEMORY;
        while (hp.count > 0 && st >= 0) {
            qitem it = qpop(&hp);
            uint32_t u = it.v;
            if (it.d > dist[u]) continue;
            /* Pruned where the hubs so far give a path as short (Akiba et al. 2013, §4.2). */
            const hl_list* lu = &L->label[u];
            double best = INFINITY;
            for (uint32_t i = 0; i < lu->count; ++i) {
                double x = T[lu->data[i].hub] + lu->data[i].d;
                if (x < best) best = x;
            }
            /* Within rounding: the same path summed in another order (from u's side) may come out an
               ulp longer and must still prune, or labels grow by entries that carry nothing. */
            if (best <= it.d + 1e-12 * it.d) continue;
            hl e = {r, parent[u], it.d};
            if (!PTL_PUSH(a, L->label[u], e)) {
                st = PTL_ERR_NO_MEMORY;
                break;
            }
            L->entries++;
            for (uint32_t k = g->start[u]; k < g->start[u + 1]; ++k) {
                uint32_t w = g->nbr[k];
                double nd = it.d + g->w[k];
                if (seen[w] == r + 1 && !(nd < dist[w])) continue;
                seen[w] = r + 1, dist[w] = nd, parent[w] = u;
                if (!qpush(a, &hp, nd, w)) {
                    st = PTL_ERR_NO_MEMORY;
                    break;
                }
            }
        }
        for (uint32_t i = 0; i < lh->count; ++i) T[lh->data[i].hub] = INFINITY;
    }
    PTL_ARRAY_FREE(a, hp);
    ptl_mem_free(a, T, ((size_t)n + 1) * sizeof(double));
    ptl_mem_free(a, dist, ((size_t)n + 1) * sizeof(double));
    ptl_mem_free(a, parent, ((size_t)n + 1) * sizeof(uint32_t));
    ptl_mem_free(a, seen, ((size_t)n + 1) * sizeof(uint32_t));
    return st;
}

/* ---- The blob section ------------------------------------------------------------------------ */

static int cmp_u32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* Writes the blob with its hubs section (replacing any) to *out: hubs in rank order. */
static ptl_status write_blob(const ptl_navmesh* nm, const graph* g, const labelling* L, const ptl_allocator* a,
                             void** out, size_t* out_size) {
    const ptl_blob_header* h = nm->h;
    const uint32_t n = g->n;
    uint64_t off = h->off_hubs;
    ptl_hub_layout l = ptl_hub_layout_of(n, L->entries, g->edge_count);
    const uint64_t sec = n ? l.total : 0; /* no corners (a convex world): no section */
    uint64_t total = off + sec;
    uint32_t* rank = ptl_mem_alloc(a, ((size_t)n + 1) * sizeof(uint32_t));
    uint8_t* b = ptl_mem_alloc(a, (size_t)total);
    if (!rank || !b) {
        ptl_mem_free(a, rank, ((size_t)n + 1) * sizeof(uint32_t));
        ptl_mem_free(a, b, (size_t)total);
        return PTL_ERR_NO_MEMORY;
    }
    memcpy(b, nm->blob, (size_t)off);
    memset(b + off, 0, (size_t)sec);
    for (uint32_t r = 0; r < n; ++r) rank[L->order[r]] = r;
    uint8_t* s = b + off; /* with n == 0 nothing below is written */
    double* dist = (double*)(s + l.dist);
    uint32_t* hub = (uint32_t*)(s + l.hub);
    uint16_t* hop = (uint16_t*)(s + l.hop);
    uint32_t* lstart = (uint32_t*)(s + l.label_start);
    uint32_t* vert = (uint32_t*)(s + l.vert);
    uint32_t* astart = (uint32_t*)(s + l.adj_start);
    uint32_t* adj = (uint32_t*)(s + l.adj);
    uint32_t e = 0, k = 0;
    bool ok = true;
    for (uint32_t r = 0; r < n && ok; ++r) {
        uint32_t c = L->order[r];
        vert[r] = g->vert[c];
        astart[r] = k;
        uint32_t k0 = k;
        for (uint32_t i = g->start[c]; i < g->start[c + 1]; ++i) adj[k++] = rank[g->nbr[i]];
        ok = ptl_sort(adj + k0, k - k0, sizeof(uint32_t), cmp_u32, a);
        lstart[r] = e;
        for (uint32_t i = 0; i < L->label[c].count; ++i, ++e) {
            const hl* x = &L->label[c].data[i];
            hub[e] = x->hub, dist[e] = x->d, hop[e] = PTL_HUB_NO_HOP;
            if (x->hop == c) continue;
            /* the next corner's place in the sorted list */
            uint32_t want = rank[x->hop], lo = k0, hi = k;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (adj[mid] < want) lo = mid + 1;
                else hi = mid;
            }
            if (lo < k && adj[lo] == want && lo - k0 < PTL_HUB_NO_HOP) hop[e] = (uint16_t)(lo - k0);
        }
    }
    if (n) lstart[n] = e, astart[n] = k;
    ptl_mem_free(a, rank, ((size_t)n + 1) * sizeof(uint32_t));
    if (!ok) {
        ptl_mem_free(a, b, (size_t)total);
        return PTL_ERR_NO_MEMORY;
    }
    ptl_blob_header* nh = (ptl_blob_header*)b;
    nh->hub_count = n;
    nh->hub_edge_count = (uint32_t)g->edge_count;
    nh->hub_entry_count = L->entries;
    nh->off_hubs = off;
    nh->hub_bytes = sec;
    nh->total_size = total;
    nh->checksum = 0;
    nh->checksum = ptl_blob_checksum(b, (size_t)total);
    *out = b;
    *out_size = (size_t)total;
    return PTL_OK;
}

ptl_status ptl_bake_hubs(const void* blob, size_t size, const ptl_hubs_desc* desc, void** out, size_t* out_size,
                         ptl_hub_stats* stats, ptl_error* err) {
    const ptl_job_system* jobs = desc ? desc->jobs : NULL;
    if (!blob || !out || !out_size) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "ptl_bake_hubs: NULL argument");
    *out = NULL;
    *out_size = 0;
    if (stats) memset(stats, 0, sizeof *stats);
    ptl_allocator a = ptl_allocator_resolve(desc ? desc->alloc : NULL);
    ptl_navmesh_desc nd = {.alloc = &a};
    ptl_navmesh* nm = NULL;
    ptl_status st = ptl_navmesh_create(blob, size, &nd, &nm, err);
    if (st < 0) return st;
    graph g;
    labelling L;
    memset(&L, 0, sizeof L);
    st = build_graph(nm, jobs, &a, &g);
    if (st >= 0) st = label_graph(&g, &a, &L);
    if (st >= 0 && (L.entries > UINT32_MAX || g.edge_count > UINT32_MAX)) st = PTL_ERR_BAD_INPUT;
    if (st >= 0) st = write_blob(nm, &g, &L, &a, out, out_size);
    if (st >= 0 && stats) {
        stats->hubs = g.n;
        stats->edges = (uint32_t)(g.edge_count / 2);
        stats->entries = L.entries;
        stats->bytes = g.n ? ptl_hub_layout_of(g.n, L.entries, g.edge_count).total : 0;
    }
    labelling_free(&L, &a, g.n);
    graph_free(&g, &a, nm->h->vert_count);
    ptl_navmesh_destroy(nm);
    if (st < 0) return ptl_error_set(err, st, "hubs: %s", ptl_status_message(st));
    return ptl_error_ok(err);
}

ptl_status ptl_bake_add_hubs(const ptl_bake_desc* d, void** blob, size_t* size, ptl_bake_stats* bs, ptl_error* err) {
    void* with = NULL;
    size_t with_size = 0;
    ptl_hub_stats hs;
    ptl_status st = ptl_bake_hubs(*blob, *size, &(ptl_hubs_desc){.jobs = d->jobs, .alloc = d->alloc}, &with, &with_size,
                                  &hs, err);
    if (st < 0) return st;
    ptl_blob_free(*blob, *size, d->alloc);
    *blob = with;
    *size = with_size;
    bs->hubs = hs.hubs, bs->hub_edges = hs.edges;
    bs->hub_entries = hs.entries, bs->hub_bytes = hs.bytes;
    return st;
}
