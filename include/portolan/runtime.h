/* Portolan runtime: the cell-and-portal graph (CPG) and the queries a game asks every frame.

   What it does
   - Loads a baked navigation mesh (`.ptl` blob): convex cells in the x-z plane (y up), the
     portals between them, and a point-location index. Loading is one copy of the blob plus a
     validation pass that rejects anything inconsistent (bad magic, byte order, size, checksum,
     out-of-range indices, asymmetric portals).
   - Answers path queries: the exact Euclidean shortest path through the cells (an interval search
     in the style of Polyanya, Cui, Harabor and Grastien 2017), or A* over the cells followed by the
     funnel (string pulling) when an approximate corridor is enough.

   Minimal example
       ptl_navmesh* nm; ptl_error err;
       if (ptl_navmesh_load_file("level.ptl", NULL, &nm, &err) < 0) { puts(err.message); return; }
       ptl_query* q; ptl_query_create(nm, NULL, &q);   // NULL desc: every default
       float pts[3 * 64];
       ptl_path_request req = { .start = {1, 0, 1}, .goal = {40, 0, 12} };
       ptl_path_result res = { .points = pts, .point_capacity = 64 };
       ptl_query_find_path(q, &req, &res);
       ptl_query_destroy(q); ptl_navmesh_destroy(nm);

   Ownership
   - Every object is created from a `ptl_*_desc` (NULL or zeroed: every default; the
     `ptl_*_desc_defaults()` functions fill one in) whose `alloc` is the allocator (NULL: libc), and
     freed with its `_destroy`. Outputs go to caller buffers with capacities; the library reports counts and
     truncation and never hands out memory the caller must free.
   - A navmesh is immutable after creation: any number of threads may query it, each with its own
     `ptl_query` (which holds all scratch memory, so queries never allocate after creation).

   Conventions: world space is y-up, metres; the navigation plane is x-z. Cell vertices are listed
   counter-clockwise in the (x, z) plane taken as a mathematical (x right, z up) plane. */
#ifndef PORTOLAN_RUNTIME_H
#define PORTOLAN_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status ------------------------------------------------------------------------------------
   0 is success, positive is success with a caveat, negative is failure. Names and messages come
   from one table: ptl_status_name(), ptl_status_message(). */
typedef enum ptl_status {
    PTL_OK = 0,
    PTL_PARTIAL = 1,          /* a result that stops short of what was asked (partial path) */
    PTL_TRUNCATED = 2,        /* the result did not fit the caller's buffer; the count says how much was written */
    PTL_IN_PROGRESS = 3,      /* a sliced search goes on: call ptl_query_path_step again */
    PTL_ERR_INVALID_ARG = -1, /* the caller passed a NULL, out-of-range or non-finite argument */
    PTL_ERR_NO_MEMORY = -2,   /* the allocator returned NULL */
    PTL_ERR_IO = -3,          /* a file could not be opened, read or written */
    PTL_ERR_PARSE = -4,       /* an input file is malformed */
    PTL_ERR_BAD_INPUT = -5,   /* the input is well formed but unusable (empty, no free space, self-intersecting) */
    PTL_ERR_BAD_BLOB = -6,    /* a navmesh blob failed validation (magic, version, size, checksum, indices) */
    PTL_ERR_INVALID_MESH = -7,/* a navmesh violates an invariant (convexity, overlap, portal symmetry) */
    PTL_ERR_NOT_FOUND = -8,   /* a query point has no mesh within the search extents */
    PTL_ERR_OUT_OF_NODES = -9,/* a search ran out of its node pool (raise ptl_query_desc.max_nodes) */
    PTL_ERR_UNSUPPORTED = -10,/* a feature this build does not offer */
    PTL_ERR_INTERNAL = -11,   /* an internal invariant failed: a bug, please report it with the input */
    PTL_ERR_STALE = -12       /* a reference made under another version of a live navmesh (live.h) */
} ptl_status;

const char* ptl_status_name(ptl_status s);    /* "PTL_ERR_PARSE" */
const char* ptl_status_message(ptl_status s); /* "an input file is malformed" */

/* An error report: the status and a message naming the file, the line and the problem where they
   are known. Every function that can fail on caller input takes an optional ptl_error*. */
typedef struct ptl_error {
    ptl_status status;
    char message[512];
} ptl_error;

/* ---- Allocator ---------------------------------------------------------------------------------
   Per instance, with a user pointer (libtess2/libuv style). A zeroed or NULL allocator means libc.
   `realloc` receives the old size so arena or tracking allocators need no headers. */
typedef struct ptl_allocator {
    void* (*alloc)(size_t size, void* user);
    void* (*realloc)(void* ptr, size_t old_size, size_t new_size, void* user);
    void (*free)(void* ptr, size_t size, void* user);
    void* user;
} ptl_allocator;

#define PTL_NONE 0xffffffffu /* "no cell", "no portal", "no vertex" */

/* ---- Navmesh -----------------------------------------------------------------------------------*/
typedef struct ptl_navmesh ptl_navmesh;

/* Flags stored in the blob. */
enum {
    /* Built from a grid map: a query point exactly on a vertex shared by regions that touch only at
       that point belongs to the region of grid cell (x, y), the cell whose least corner it is
       (Polyanya's and GPPC's rule). Without this flag such a point is ambiguous and not found. */
    PTL_NAVMESH_LATTICE_POINTS = 1u << 0,
    /* Cells may be near-convex: the bake used convexity relaxation (ANavMG thesis §4.3). */
    PTL_NAVMESH_RELAXED = 1u << 1
};

typedef struct ptl_navmesh_desc {
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_navmesh_desc;

ptl_navmesh_desc ptl_navmesh_desc_defaults(void);

typedef struct ptl_navmesh_info {
    uint32_t version;
    uint32_t flags;           /* PTL_NAVMESH_* */
    uint32_t vert_count;
    uint32_t cell_count;
    uint32_t portal_count;
    uint32_t link_count;
    uint32_t tile_count;      /* tiles_x * tiles_z */
    uint32_t tile_size;       /* [Units: voxel columns] of the bake's tiles (0: baked in one piece) */
    uint32_t tiles_x, tiles_z;
    /* Tile (tx, tz) covers x in tile_origin[0] + [tx, tx + 1) * tile_side and z likewise from
       tile_origin[1]. [Units: wu] All 0 for a mesh baked in one piece. */
    float tile_origin[2], tile_side;
    uint32_t layer_count;
    float bmin[3], bmax[3];   /* [Units: wu] bounds of all vertices */
    double walkable_area;     /* [Units: wu^2] sum of cell areas in plan (x-z) */
    double relax;             /* [Units: wu] convexity tolerance the bake used (0: strict) */
    uint64_t blob_size;       /* [Units: bytes] */
    uint64_t checksum;
    uint32_t landmark_count;  /* landmarks per vertex (ALT bounds of the exact search) */
    uint32_t lid_count;       /* pocket lids (a 2D bake with ptl_decompose_desc.lids), 0: none */
    uint32_t hub_count;       /* corners with a hub label (ptl_bake_desc.hubs), 0: none */
    uint64_t hub_entries;     /* their label entries */
    uint64_t hub_bytes;       /* [Units: bytes] of the blob's hubs section */
} ptl_navmesh_info;

/* A cell as the runtime sees it: `vert_count` vertex ids, counter-clockwise, and for each edge
   i (from verts[i] to verts[i+1]) the neighbouring cell across it, or PTL_NONE for a wall. */
typedef struct ptl_cell_view {
    const uint32_t* verts;
    const uint32_t* neighbors;
    uint32_t vert_count;
    uint32_t layer;
    uint32_t link;      /* PTL_NONE for a walkable cell; else the link (below) this cell spans */
    uint32_t area;      /* its area id 0..63 (ptl_bake_desc area names and volumes; 0: ground, and links) */
} ptl_cell_view;

/* Links (Saupin et al. 2014 §5.2; Golodetz's walk and step links): two cells whose wall edges face
   each other across a gap narrower than the bake's max_gap, with floors within max_climb of each
   other and nothing solid in between, joined where the voxels left them apart (separately modelled
   steps, a crack between slabs). In the graph a link is a cell of its own, the convex quad spanning
   the gap, with a portal to each side: searches, the funnel and point location treat it like any
   cell, `ptl_cell_view.link` tells it apart, and walkable_area leaves it out. */
typedef enum ptl_link_kind {
    PTL_LINK_WALK = 0, /* the two floors are within one voxel height of each other */
    PTL_LINK_STEP = 1  /* a step: cells[1]'s side is `rise` higher (negative: lower) */
} ptl_link_kind;

typedef struct ptl_link_view {
    uint32_t cell;      /* the link's own cell (the quad over the gap) */
    uint32_t cells[2];  /* the walkable cells it joins, cells[0] < cells[1] */
    float rise;         /* [Units: wu] floor height on cells[1]'s side minus cells[0]'s, at the middle */
    float gap;          /* [Units: wu] width of the gap in plan */
    ptl_link_kind kind;
} ptl_link_view;

typedef struct ptl_portal_view {
    uint32_t cell[2];  /* the two cells it joins; cell[0] < cell[1] */
    uint32_t edge[2];  /* the edge index inside each cell */
    uint32_t vert[2];  /* endpoints, as listed by cell[0] (vert[0] -> vert[1] counter-clockwise there) */
} ptl_portal_view;

/* Copies and validates `blob` (structure, indices, checksum). The caller keeps its buffer. */
ptl_status ptl_navmesh_create(const void* blob, size_t size, const ptl_navmesh_desc* desc,
                              ptl_navmesh** out, ptl_error* err);
ptl_status ptl_navmesh_load_file(const char* path, const ptl_navmesh_desc* desc, ptl_navmesh** out,
                                 ptl_error* err);
void ptl_navmesh_destroy(ptl_navmesh* nm);

/* The blob this navmesh was created from (byte-identical); valid until destroy. */
const void* ptl_navmesh_blob(const ptl_navmesh* nm, size_t* size);
ptl_status ptl_navmesh_save_file(const ptl_navmesh* nm, const char* path, ptl_error* err);

void ptl_navmesh_get_info(const ptl_navmesh* nm, ptl_navmesh_info* out);
const float* ptl_navmesh_vert(const ptl_navmesh* nm, uint32_t v); /* x, y, z; NULL when out of range */
ptl_status ptl_navmesh_get_cell(const ptl_navmesh* nm, uint32_t cell, ptl_cell_view* out);
ptl_status ptl_navmesh_get_portal(const ptl_navmesh* nm, uint32_t portal, ptl_portal_view* out);
ptl_status ptl_navmesh_get_link(const ptl_navmesh* nm, uint32_t link, ptl_link_view* out); /* link < link_count */
/* The mean of cell `cell`'s vertices (x, y, z): a point inside the convex cell, at the height of its
   vertices' mean. PTL_ERR_INVALID_ARG (out zeroed) for an out-of-range cell. */
ptl_status ptl_navmesh_cell_centroid(const ptl_navmesh* nm, uint32_t cell, float out[3]);
/* The tiles of the bake that cell `cell` overlaps (its bounds in plan, closed): tile columns
   out[0]..out[2] along x and rows out[1]..out[3] along z, inclusive; tile (tx, tz) covers voxel
   columns [tx, tx + 1) * tile_size from the grid's origin. For rebakes per tile. A mesh baked in one
   piece has the single tile (0, 0). */
ptl_status ptl_navmesh_cell_tiles(const ptl_navmesh* nm, uint32_t cell, uint32_t out[4]);
/* Does cell `cell` overlap tile (tx, tz) with some area (not only along an edge or at a corner)?
   Exact for the convex cell (a separating-axis test), where ptl_navmesh_cell_tiles is its bounds.
   false for out-of-range arguments; a mesh baked in one piece has the single tile (0, 0). */
bool ptl_navmesh_cell_in_tile(const ptl_navmesh* nm, uint32_t cell, uint32_t tx, uint32_t tz);

/* Deep check of every invariant: convex cells (within the stored relaxation tolerance), no overlap
   between cells of a layer, symmetric portals, vertices on the walkable boundary, checksum.
   Returns PTL_ERR_INVALID_MESH and names the first violation in err. O(n log n). */
ptl_status ptl_navmesh_validate(const ptl_navmesh* nm, ptl_error* err);

/* ---- Off-mesh links ------------------------------------------------------------------------------
   A jump, a ladder, a teleport: a way from one point of the mesh to another that the cells do not
   hold, one- or two-way, between any two cells of any tiles (not the navmesh's own links, the step
   and stair cells of ptl_link_view). Given at bake time (ptl_bake_desc.offmesh, stored in the blob)
   or added and removed on a loaded navmesh. Exact paths (PTL_PATH_EXACT, radius 0) use them and
   stay shortest, a link counting its cost (ptl_path_result.flags marks where one starts).
   PTL_PATH_CORRIDOR and paths under a filter that weighs areas take them too: the corridor's A*
   goes from a cell holding a link's start to the cell holding its end. follow_surface and the
   path's cells work leg by leg between links (the cells jump once per link, from a cell holding its
   start to one holding its end). Paths of a radius r > 0 take links too: the corridor's A* at r
   (portals at least 2 r wide) picks the links, each link's ends are moved to the nearest points
   that keep r (within the request's extents; none: the path without links), and each leg between
   them is a disc path in the request's mode (the exact mode is shortest within each leg, over the
   links the A* chose); the length counts the links' costs and the steps from their ends to the
   moved ones, and the point where a link starts is flagged. A partial path's nearest point is
   looked for in every piece joined to the start's by links (radius 0; a disc's partial path
   ignores links). Hub labels, landmarks and pockets are not used (they describe the mesh without
   links): exact paths search the cells (bench/NOTES.md, "Off-mesh links"). ptl_navmesh_blob gives
   the blob as loaded; ptl_navmesh_blob_with_offmesh and ptl_navmesh_save_file give it with the
   links live now (those added at run time kept, those removed gone).
   Adding or removing a link must not run while any query on that navmesh runs (no locking); each
   query picks the change up at its next path search, which may then allocate its per-link state
   (148 bytes per slot of the table, and 13 per vertex and per cell of the navmesh) through the
   query's allocator. */
typedef struct ptl_offmesh_desc {
    float start[3], end[3]; /* [Units: wu] the link's ends, each within `radius` of the mesh */
    /* [Units: wu] how far from the mesh an end may lie: it is moved to the nearest point of the mesh
       in the box of half-extents (radius, radius, radius) around it. 0: 1. [Limit: >= 0, finite] */
    float radius;
    bool bidir;       /* two-way (a ladder); false: start -> end only (a jump down) */
    /* [Units: wu] the length the link counts for in a path. <= 0: the 3D distance between the
       located ends. [Limit: finite] */
    float cost;
    uint8_t area;     /* area id 0..63, for query filters */
    uint32_t user_id; /* the caller's, returned by the view */
} ptl_offmesh_desc;

/* A link's id: its slot and the slot's generation (a removed link's id is refused, never reused). */
typedef uint64_t ptl_offmesh_id;

/* A link as stored: its desc (ends as given), the ends as located on the mesh, the cells holding
   them and the cost used. */
typedef struct ptl_offmesh_view {
    ptl_offmesh_id id;
    ptl_offmesh_desc desc;
    float start[3], end[3];         /* the located ends */
    uint32_t start_cell, end_cell;  /* a cell holding each */
    float cost;                     /* [Units: wu] resolved */
} ptl_offmesh_view;

/* Locates both ends and adds the link; *id receives its id. PTL_ERR_NOT_FOUND (err names the end)
   when an end has no mesh within its radius; PTL_ERR_INVALID_ARG for NULL or non-finite fields,
   a negative radius or an area over 63; PTL_ERR_NO_MEMORY. The table grows without a fixed cap. */
ptl_status ptl_navmesh_add_offmesh(ptl_navmesh* nm, const ptl_offmesh_desc* desc, ptl_offmesh_id* id, ptl_error* err);
/* Removes link `id`: PTL_OK, PTL_ERR_NOT_FOUND for an id that is not live (removed, stale, unknown). */
ptl_status ptl_navmesh_remove_offmesh(ptl_navmesh* nm, ptl_offmesh_id id);
/* Frees a blob or part with the allocator it was made with (so an allocator argument, not a desc). */
void ptl_blob_free(void* blob, size_t size, const ptl_allocator* alloc);
/* A copy of the navmesh's blob whose off-mesh section holds the links live now (in slot order, each
   as located: it loads back with the same links, ptl_navmesh_create), allocated from `alloc` (NULL:
   libc; free with ptl_blob_free). PTL_ERR_INVALID_ARG (NULL), PTL_ERR_NO_MEMORY. */
ptl_status ptl_navmesh_blob_with_offmesh(const ptl_navmesh* nm, const ptl_allocator* alloc, void** blob, size_t* size,
                                         ptl_error* err);
/* The live links: how many, and the i-th of them (i < count, in slot order; for drawing and
   listing; the order changes as links are added and removed). PTL_ERR_INVALID_ARG out of range. */
uint32_t ptl_navmesh_offmesh_count(const ptl_navmesh* nm);
ptl_status ptl_navmesh_get_offmesh(const ptl_navmesh* nm, uint32_t i, ptl_offmesh_view* out);

/* ---- Queries -----------------------------------------------------------------------------------
   A ptl_query holds every buffer the queries need, sized at creation from the navmesh and
   max_nodes; queries never allocate. Use one per thread. Memory: 96 bytes per pool node, plus
   about 280 per vertex (128 of them a memo of the disc paths' checked segments, at most 512 KB),
   190 per cell (and up to 128 more, at most 16 KB in all, for point location's occupancy mask)
   and 72 per cell edge of the navmesh, and 68 KB for the height profile of a 3D
   navmesh (dungeon.obj's bake, 261 vertices: 4,176 nodes by default, 0.57 MB); for
   random points 12 per cell and 8 per voxel column of the largest cell's grid window on a 3D bake.
   Exact paths on a navmesh with hub labels (ptl_bake_desc.hubs) read distances off the labels, and
   exact searches on 2D navmeshes skip the pockets neither end is in (runtime/pockets.c). */
typedef struct ptl_query ptl_query;

typedef struct ptl_query_desc {
    /* Node pool of the exact search: the open nodes and their ancestors, so it bounds the search
       frontier, not its length (the disc search keeps its states in half of it, the sweeps of the
       clearance queries their windows in the other half). 0: sized by the navmesh, 16 per vertex,
       at least 4096 and at most 65536 (the largest frontier of the exact search over Detour's
       1,000 pairs is 27 to 77 nodes on the shared 3D meshes, and over sc1/Aurora's scenarios
       1,148 for 37,134 vertices; a disc of radius 2 needs up to 4,816 on undulating.obj, 301
       vertices). [Units: nodes] [Limit: 0 or >= 64] default 0 */
    uint32_t max_nodes;
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_query_desc;

ptl_query_desc ptl_query_desc_defaults(void);

/* PTL_ERR_INVALID_ARG (NULL navmesh or out, max_nodes from 1 to 63), PTL_ERR_NO_MEMORY; *out is NULL
   on failure. */
ptl_status ptl_query_create(const ptl_navmesh* nm, const ptl_query_desc* desc, ptl_query** out);
void ptl_query_destroy(ptl_query* q);

/* ---- Query filters (areas) ---------------------------------------------------------------------
   Every cell has an area id 0..63 (ptl_cell_view.area; a 3D bake's ptl_bake_desc area names and
   volumes, else 0). A filter set on a query object applies to every query made with it afterwards:
   paths (exact, corridor, any radius), locate and nearest, raycast, move along the surface, wall
   distance and clear points, random points, cells in a circle or a box. An excluded cell (its area
   not in include_mask, or in exclude_mask) is never entered or returned, and its edges are walls
   for every query (paths, raycasts, moves and clearance stop at them, wall distance measures to
   them). Costs multiply lengths inside a cell of that area: with every included area present
   costing 1 the paths are the exact ones; otherwise a path (radius 0, either mode; the corridor
   mode with a radius) is an A* over cells minimising the sum over the cells crossed of the length
   of the polyline of portal entry points (ptl_path_mode's corridor) inside each cell times its
   area's cost (Detour's dtQueryFilter::getCost), then the funnel through that corridor: it
   optimises the weighted corridor, and `length` is the funnel path's plain length. The exact path
   of a disc (radius > 0, PTL_PATH_EXACT) keeps exclusions but ignores costs. Costs are any finite
   value > 0 (below 1 makes an area cheaper than ground); the A*'s heuristic is the straight line
   times the least cost of an included area present in the navmesh, so it stays admissible.
   Setting a filter takes O(cell edges) (the query's per-edge table is rebuilt; bench/NOTES.md);
   queries are then as fast as without one, except that hub labels (ptl_bake_desc.hubs) are exact
   for the unfiltered mesh only and are not used while anything is excluded or a cost is not 1.
   Off-mesh links (ptl_offmesh_desc.area): a link whose area the filter excludes, or whose start or
   end lies in an excluded cell, is never taken; area costs do not weigh a link (its own cost
   stands; the A* goes through links, its heuristic then the smaller of the straight line and the
   links' bounds, times the least cost but no more than 1). */
typedef struct ptl_query_filter {
    float area_cost[64];   /* [Limit: finite, > 0] default 1 */
    uint64_t include_mask; /* bit a: area a may be entered; default all (~0) */
    uint64_t exclude_mask; /* bit a: area a is never entered; default none (0) */
} ptl_query_filter;

/* Cost 1 everywhere, every area included, none excluded. */
ptl_query_filter ptl_query_filter_defaults(void);
/* Sets the filter of every later query made with q (copied; NULL: the defaults).
   PTL_ERR_INVALID_ARG (q NULL, a cost not finite or <= 0): the filter is then unchanged. */
ptl_status ptl_query_set_filter(ptl_query* q, const ptl_query_filter* f);
/* The filter in use (the defaults when none was set). */
ptl_query_filter ptl_query_get_filter(const ptl_query* q);
/* Whether the query's filter lets paths enter cell `cell` (false out of range). */
bool ptl_query_cell_passable(const ptl_query* q, uint32_t cell);

typedef enum ptl_path_mode {
    /* Euclidean shortest path: an interval search in the style of Polyanya (Cui, Harabor and
       Grastien 2017). Exact up to floating point (1e-9 of the coordinate scale). The default. */
    PTL_PATH_EXACT = 0,
    /* A* over the cells (each cell entered at the point of its portal nearest the way to the goal;
       g = length of the polyline of entry points, h = straight line; a cell holding the goal keeps
       the entry with the least g plus the straight line on to the goal), then the funnel over the
       portals: faster, never shorter than exact, usually within 1% (up to tens of percent when the
       cell sequence A* picks does not hold the shortest path). */
    PTL_PATH_CORRIDOR = 1
} ptl_path_mode;

/* Where a point lies on the mesh. */
typedef struct ptl_location {
    uint32_t cell;     /* PTL_NONE when not found */
    float point[3];    /* the nearest point on the mesh */
    float distance;    /* [Units: wu] from the query point to `point` */
} ptl_location;

/* Nearest point of the mesh (the part of it inside the box of half-extents `extents` around p;
   NULL or all zero: 2, 4, 2, Detour's usual value) and a cell holding it. A point inside a cell,
   within 1e-6 of the mesh's coordinate scale, is its own nearest point (distance 0, up to the
   height); one within that of a vertex or an edge is put on it. A point equally near (within that
   tolerance) to several points of the mesh snaps to the one with the least x, then z, then y, so
   every bake of the same walls snaps it to the same place. On a 3D navmesh the point's y is the
   walkable surface's height there (from the bake's height grid of the cell, within a cell height):
   the ground query for an agent walking a path of corners (ptl_path_request.follow_surface off).
   PTL_ERR_NOT_FOUND when no cell is in the box; PTL_ERR_INVALID_ARG for a non-finite point or a
   negative extent. */
ptl_status ptl_query_locate(ptl_query* q, const float p[3], const float extents[3], ptl_location* out);

typedef struct ptl_path_request {
    float start[3];
    float goal[3];
    float extents[3];   /* snap box half-extents; all zero: 2, 4, 2 */
    /* [Units: wu] The agent's radius: the path of a disc, every point of it at least this far from
       every wall (ptl_query_find_path). 0: a point. [Limit: >= 0, finite] */
    float radius;
    ptl_path_mode mode;
    /* 3D navmeshes: also put a point wherever the ground under the path bends (a ramp starts, a
       stair ends), so that the polyline follows the surface within one cell height. Off (the
       default): the corners only, joined by straight 3D segments, as a game that snaps its agents
       to the ground itself wants them (and several times faster). No effect on 2D navmeshes. */
    bool follow_surface;
    /* [Units: wu] radius > 0: how far the polyline may stray outside a circle it goes around (its
       arcs are written as tangent segments outside the circle). 0: 0.05 x radius. [Limit: >= 0] */
    float arc_tolerance;
} ptl_path_request;

/* A turn of a path of radius r > 0 around a corner: an arc of the circle of radius r around it. */
typedef struct ptl_path_turn {
    float corner[3];  /* the corner (a navmesh vertex): the circle's centre */
    float entry[3];   /* where the path meets the circle (y: the corner's) */
    float exit[3];    /* where it leaves it */
    float radius;     /* [Units: wu] */
    float angle;      /* [Units: rad] of the arc, >= 0 */
    int32_t side;     /* +1: the corner on the path's left (turning counter-clockwise), -1: on its right */
    uint32_t vert;    /* the corner's vertex id */
} ptl_path_turn;

typedef struct ptl_path_result {
    float* points;           /* caller buffer, 3 floats per point; may be NULL with capacity 0 */
    uint32_t point_capacity; /* in points */
    uint32_t point_count;    /* points written (the path is truncated when it did not fit) */
    uint32_t point_total;    /* points the whole path has */
    bool found;              /* a path reaches the (snapped) goal */
    bool complete;           /* and ends exactly at it (within 1e-4) */
    /* [Units: wu] of the whole path as a 3D polyline (the points returned), 0 when not found (the
       exact search minimises the length in plan, x-z) */
    double length;
    uint32_t start_cell, goal_cell;
    uint32_t nodes_expanded; /* search effort, for benchmarks */
    /* radius > 0: caller buffer for the path's turns around corners, in order (NULL with capacity
       0: none wanted); turn_count: how many were written (at most turn_capacity). */
    ptl_path_turn* turns;
    uint32_t turn_capacity;
    uint32_t turn_count;
    /* radius 0: caller buffer for the cells the path crosses, in order from the start's to the
       goal's, each sharing a portal with the next (where the path turns at a vertex, the cells
       around it between the way in and the way out; across an off-mesh link, a cell holding its
       start then one holding its end); NULL with capacity 0: none wanted, and none
       computed (a search is faster without). cell_count: how many there are (all of them; at most
       cell_capacity written). radius > 0: not filled (0). */
    uint32_t* cells;
    uint32_t cell_capacity;
    uint32_t cell_count;
    /* Off-mesh links: caller buffer of point_capacity flags, one per point (NULL: none wanted);
       PTL_PATH_POINT_OFFMESH on a point where an off-mesh link starts (the next point is its end;
       Detour's DT_STRAIGHTPATH_OFFMESH_CONNECTION). `length` counts a link's segment at its cost. */
    uint8_t* flags;
} ptl_path_result;
enum { PTL_PATH_POINT_OFFMESH = 1u };

/* The path from start to goal, by req->mode (PTL_PATH_EXACT or PTL_PATH_CORRIDOR).
   Start and goal are first snapped to the mesh within req->extents (a point already on the mesh is
   kept as is), then belong to the cells they lie in: one cell for a point inside it, both cells of
   an edge for a point on a portal, every cell around a vertex for a point on a vertex. Where
   regions touch at a single point (a pinch), a grid navmesh (PTL_NAVMESH_LATTICE_POINTS) gives
   the point to the region of grid cell (x, y), whose least corner it is (then, if that cell is
   blocked, to the region holding the direction (-1, +1), (+1, -1) or (-1, -1), in that order);
   on any other navmesh the point is ambiguous and not found.
   Points: the (snapped) start, the corners the path turns at (navmesh vertices), the (snapped)
   goal; equal consecutive points are merged, so a path from a point to itself has one point. With
   req->follow_surface on a 3D navmesh, also the points where the ground under the path bends.
   Returns PTL_OK; PTL_TRUNCATED when the points did not fit (point_total says how many there are,
   length is the whole path's); PTL_PARTIAL when the goal is unreachable: found = false, and (radius
   0) the path to the reachable point nearest the goal in plan (x-z; among points equally near, the
   one whose height is nearest the goal's), with its points, length, goal_cell and cells, the
   points possibly truncated (point_total says); radius > 0: the path of the disc to the point
   nearest the goal of the cells it may reach (through portals at least twice the radius wide),
   moved to keep the radius (ptl_query_clear_point's rule, within the extents' reach), when the
   disc reaches that point, else no points: near the nearest point the disc can reach, not
   always that point (which lies on the boundary of the space the radius keeps clear, not built). PTL_ERR_NOT_FOUND when start or goal has no mesh within the extents or is ambiguous;
   PTL_ERR_OUT_OF_NODES when the exact search's pool is full (raise ptl_query_desc.max_nodes);
   PTL_ERR_INVALID_ARG for NULL, non-finite or out-of-range arguments (a negative radius). On every
   error found = false and no points are returned.
   radius > 0 (any radius from one navmesh): the shortest path of a disc of that radius. Each end
   that is nearer than the radius to a wall is first moved to the nearest point that keeps it, and
   that it sees, at most min(extents x, z) away (ptl_query_clear_point; none: PTL_ERR_NOT_FOUND);
   the points start and end at the moved ends. The path keeps the radius from every wall: straight
   segments tangent to the circles of that radius around the corners it turns at, and arcs on them,
   written as tangent segments just outside the circle (within req->arc_tolerance); `length` is
   the true path's (its segments and arcs, each with the rise between its ends on a 3D navmesh, as
   for radius 0), and res->turns receives the arcs. Every point returned keeps the radius; a segment
   keeps it within two float steps of its coordinates (a path squeezed between walls exactly twice
   the radius apart passes through points that floats cannot all hold). PTL_PATH_EXACT: the
   shortest such path (runtime/disc_path.c: A* over the tangents between the corners' circles).
   PTL_PATH_CORRIDOR: A* over the cells a disc can cross (no portal between two walls' ends nearer
   than 2 radius), then the funnel with a circle of the radius around every corner of the corridor
   (runtime/disc_funnel.c); every segment and arc is checked against the walls, and where one fails
   (a wall beyond the corridor within the radius, a corridor the disc cannot follow) the exact
   search answers, so the path keeps the radius either way and is never shorter than the exact one.
   Both are slower than the point search (bench/NOTES.md); follow_surface is ignored. */
ptl_status ptl_query_find_path(ptl_query* q, const ptl_path_request* req, ptl_path_result* res);

/* ---- Sliced paths: one search spread over frames ------------------------------------------------
   A game with a frame budget begins a path, steps it a number of expansions per frame, and
   finishes it once a step says it is done:

       ptl_query_path_begin(q, &req);
       uint32_t done;
       while (ptl_query_path_step(q, 64, &done) == PTL_IN_PROGRESS) { ...next frame... }
       ptl_query_path_finish(q, &res);     // exactly what ptl_query_find_path(q, &req, &res) gives

   The exact search of a point (radius 0, PTL_PATH_EXACT) is what is spread: a step takes nodes off
   its open list until `max_expansions` expansions are done (a chain of single successors is
   followed to its end, so a step may go a few past). A path answered without that search (start
   and goal in one cell or in different pieces, a navmesh whose hub labels give it at once), a path
   of radius > 0 and a corridor path are found whole in ptl_query_path_finish; the partial path to
   the nearest reachable point, when the goal is unreachable, is searched there too. The query
   object holds the search: another query asked of the same ptl_query between begin and finish may
   end it (any that searches: paths, moves, wall distances, random points or cells in a circle, a
   point location that has to look around), and step and finish then return PTL_ERR_INVALID_ARG,
   never a wrong path. Use another ptl_query for other queries meanwhile. */

/* Checks the request (as ptl_query_find_path) and locates its ends. PTL_OK; the errors of
   ptl_query_find_path (PTL_ERR_INVALID_ARG, PTL_ERR_NOT_FOUND: finish then returns them too). */
ptl_status ptl_query_path_begin(ptl_query* q, const ptl_path_request* req);
/* Runs the search on (see above). PTL_IN_PROGRESS while it goes on; PTL_OK once finish can be
   called (the search reached the goal, ran dry, or is not spread); PTL_ERR_INVALID_ARG when no
   search is begun or another query ended it. *expansions_done (may be NULL): this step's. */
ptl_status ptl_query_path_step(ptl_query* q, uint32_t max_expansions, uint32_t* expansions_done);
/* Writes the result into res and ends the sliced search: the status and result of
   ptl_query_find_path for the request begun (a search still going on is run to its end first).
   PTL_ERR_INVALID_ARG when none is begun or another query ended it. */
ptl_status ptl_query_path_finish(ptl_query* q, ptl_path_result* res);

/* ---- Clearance ---------------------------------------------------------------------------------
   Walls are the edges of the walkable area with no cell beyond them (walls and ledges alike). Both
   queries measure in plan (x-z) and follow the surface: a floor above or below does not count. */

/* The nearest wall to a point. */
typedef struct ptl_wall_hit {
    bool found;         /* a wall lies within max_radius */
    float distance;     /* [Units: wu] in plan from `from` to `point`; max_radius when not found */
    float from[3];      /* the query point as located on the mesh (snapped within the extents) */
    float point[3];     /* the nearest wall point (height: the mesh's there) */
    float normal[3];    /* unit, in plan (y 0): from the wall point toward `from`; on the wall, the
                           wall's normal into the walkable side */
    uint32_t cell;      /* the cell `from` lies in */
    uint32_t wall_cell; /* the cell whose edge the wall point is on (PTL_NONE when not found) */
} ptl_wall_hit;

/* The wall nearest p within max_radius (inclusive), among the walls p sees across the surface
   (Detour's findDistanceToWall). p is first located as by ptl_query_locate (extents: NULL or zero
   for 2, 4, 2). Returns PTL_OK (found false when no wall is that near), PTL_ERR_NOT_FOUND (no mesh
   in the box), PTL_ERR_INVALID_ARG (NULL, non-finite, negative max_radius), PTL_ERR_OUT_OF_NODES
   (the sweep's windows outgrew the query's node pool: raise ptl_query_desc.max_nodes). */
ptl_status ptl_query_wall_distance(ptl_query* q, const float p[3], const float extents[3], float max_radius,
                                   ptl_wall_hit* out);
/* The same for an agent that knows its cell (as Detour's findDistanceToWall takes its start polygon):
   p is taken as a point of `cell` (out->from is p itself), with no point location, when the cell
   holds it in plan (within the point-location tolerance); otherwise it is located as by
   ptl_query_wall_distance with the default extents. The same statuses. */
ptl_status ptl_query_wall_distance_in(ptl_query* q, uint32_t cell, const float p[3], float max_radius, ptl_wall_hit* out);

/* Where an agent of radius `radius` can stand nearest to p: the nearest point (in plan) that keeps
   at least `radius` from every wall and that p sees (the straight way to it crosses no wall), at
   most min(extents x, z) from p (2 with NULL or zero extents). p is first located as by
   ptl_query_locate; a located point that keeps the radius is returned as it is. Its float
   coordinates keep the radius too (moved by a float step or two where rounding would bring them
   nearer; in a passage exactly twice the radius wide, only its middle keeps it). PTL_ERR_NOT_FOUND when p has no mesh in the box or no such point is that near;
   PTL_ERR_INVALID_ARG for NULL, non-finite or a negative radius; PTL_ERR_OUT_OF_NODES when more
   walls lie within the radius of p than max_nodes / 2 (the candidates are made from them; the
   sweep's windows as above). */
ptl_status ptl_query_clear_point(ptl_query* q, const float p[3], const float extents[3], float radius,
                                 ptl_location* out);

/* The cells within `radius` (in plan, closed) of p, which is first located as by ptl_query_locate:
   those reached from p's cells through portals that come within the radius, so on a 3D navmesh a
   floor above or below is left out (Detour's findPolysAroundCircle). Breadth-first order, p's cells
   first; at most `capacity` written to `cells`, *count is how many there are. PTL_OK, PTL_TRUNCATED
   (they did not fit), PTL_ERR_NOT_FOUND, PTL_ERR_INVALID_ARG (NULL, non-finite, negative radius). */
ptl_status ptl_query_cells_in_circle(ptl_query* q, const float p[3], const float extents[3], float radius, uint32_t* cells,
                                     uint32_t capacity, uint32_t* count);

/* ---- Raycast -------------------------------------------------------------------------------------*/
typedef struct ptl_raycast_hit {
    bool hit;             /* a wall stops the ray before `end` */
    float t;              /* the fraction of the way from the (located) start to `end` reached, in plan; 1
                             when not hit */
    float point[3];       /* where it stops: the hit point, or `end`'s x-z with the surface's height */
    float normal[3];      /* when hit: the wall's normal in plan (y 0), into the walkable side; else 0 */
    uint32_t start_cell, end_cell;
    uint32_t* cells;      /* caller buffer for the cells the ray passes through, in order (NULL with
                             capacity 0: none wanted) */
    uint32_t cell_capacity;
    uint32_t cell_count;  /* cells passed through (all of them; at most cell_capacity written) */
} ptl_raycast_hit;

/* A straight move in plan from `start` (located as by ptl_query_locate within `extents`) toward
   `end`'s x-z across the surface (Detour's raycast): it passes along walls and grazes corners, and
   stops at the first wall (or ledge) it would cross, or where two regions touch at a single point.
   Set out->cells and out->cell_capacity before the call to receive the cells. Returns PTL_OK,
   PTL_TRUNCATED (the cells did not fit; cell_count says how many there are), PTL_ERR_NOT_FOUND (no
   mesh within the extents of start), PTL_ERR_INVALID_ARG (NULL or non-finite). */
ptl_status ptl_query_raycast(ptl_query* q, const float start[3], const float end[3], const float extents[3],
                             ptl_raycast_hit* out);
/* The same ray for an agent that knows its cell (as Detour's raycast takes its start polygon):
   `start` is taken as a point of `cell`, with no point location, when the cell holds it in plan
   (within the point-location tolerance); otherwise it is located as by ptl_query_raycast with the
   default extents. */
ptl_status ptl_query_raycast_in(ptl_query* q, uint32_t cell, const float start[3], const float end[3], ptl_raycast_hit* out);

/* ---- Move along the surface, heights, cells in a box ------------------------------------------*/
typedef struct ptl_move_result {
    float point[3];       /* where the move ends: on the mesh, its height the surface's there */
    bool blocked;         /* a wall stopped the straight move: it slid (point may still be `end`'s x-z) */
    uint32_t start_cell, end_cell;
    uint32_t* cells;      /* caller buffer for the cells from start_cell to end_cell, in order (NULL with
                             capacity 0: none wanted) */
    uint32_t cell_capacity;
    uint32_t cell_count;  /* all of them; at most cell_capacity written */
} ptl_move_result;

/* A move in plan from `start` (located as by ptl_query_locate within `extents`) toward `end`'s x-z,
   sliding along walls (Detour's moveAlongSurface): when the straight segment is free (as
   ptl_query_raycast walks it) the move ends at `end`'s x-z; else at the point nearest `end` of the
   walls of the cells reached through portals within the circle whose diameter is the move (or at
   `end` when one of them holds it), never farther from `end` than the start. The end's height is the
   surface's there (ptl_query_height), not a plane through its cell's corners. Set out->cells and out->cell_capacity before the call to receive the cells. Returns
   PTL_OK, PTL_TRUNCATED (the cells did not fit; cell_count says how many there are),
   PTL_ERR_NOT_FOUND (no mesh within the extents of start), PTL_ERR_INVALID_ARG (NULL or non-finite). */
ptl_status ptl_query_move_along_surface(ptl_query* q, const float start[3], const float end[3], const float extents[3],
                                        ptl_move_result* out);

/* The same move for an agent that knows its cell (the end_cell of its last move, as Detour's
   moveAlongSurface takes the start polygon): `start` is taken as a point of `cell`, with no point
   location, when the cell holds it in plan (within the point-location tolerance); otherwise it is
   located as by ptl_query_move_along_surface with the default extents. */
ptl_status ptl_query_move_along_surface_in(ptl_query* q, uint32_t cell, const float start[3], const float end[3],
                                           ptl_move_result* out);

/* The surface's height at (x, z) of cell `cell` (Detour's getPolyHeight). On a 3D navmesh, from the
   bake's height grid of the cell: its voxel floors interpolated between column centres, less the
   voxelisation's upward bias (half a cell height, and on a slope the rise to a column's highest
   corner), so within one cell height of the input surface (undulating: 991 of Detour's 1000 move
   ends); never above ptl_query_locate's height (its column's top), and at most a cell height below
   the lower of that and the four nearest columns' tops interpolated. Else the cell's vertices'.
   PTL_OK; PTL_ERR_NOT_FOUND (*y 0) when (x, z) is not in the cell (beyond the point-location
   tolerance); PTL_ERR_INVALID_ARG for NULL, non-finite or an out-of-range cell. */
ptl_status ptl_query_height(ptl_query* q, uint32_t cell, float x, float z, float* y);

/* The cells that meet the box [bmin, bmax] (Detour's queryPolygons): in plan exactly (the convex
   cell and the box share a point, boundary included), in height by the range of the cell's
   vertices. In the order of the point-location buckets; at most `capacity` written to `cells`,
   *count is how many there are. PTL_OK, PTL_TRUNCATED (they did not fit), PTL_ERR_INVALID_ARG
   (NULL, non-finite, bmin above bmax on an axis). */
ptl_status ptl_query_cells_in_box(ptl_query* q, const float bmin[3], const float bmax[3], uint32_t* cells,
                                  uint32_t capacity, uint32_t* count);

/* ---- Random points ---------------------------------------------------------------------------
   Uniform by the walkable surface's 3D area (not its plan area: a slope of 45 degrees gets 1.41
   times the points of a flat floor of the same plan), on the surface the height query reads: the
   height grids' floors of a 3D bake (each column's slope from the floors around it), else the
   plane of each fan triangle of a cell's vertices. Link cells (gaps) are never drawn. The query's
   first draw builds its table of the cells' surface areas (O(walkable voxel columns) on a 3D bake:
   1-4 ms on the shared meshes; O(cell vertices) on 2D ones); a draw allocates nothing and then
   takes O(log cells).
   Deterministic: the only randomness is the caller's 64-bit state, advanced by SplitMix64 (Steele,
   Lea and Flood 2014; ptl_random_next): the same state gives the same points on every machine and
   thread. Any value is a valid state (seed it with a constant, a clock, a hash). */

/* The next number of the generator (SplitMix64): state += 0x9e3779b97f4a7c15, then a mix of it. */
uint64_t ptl_random_next(uint64_t* state);

/* [Units: wu^2] The surface area of cell `cell` random points are drawn by (0 for a link cell, a
   cell the query's filter excludes, an out-of-range cell or a NULL query); builds the query's
   table when no draw has (again after a filter that excludes cells is set or cleared). */
double ptl_query_cell_surface_area(ptl_query* q, uint32_t cell);

/* A point of the mesh, uniform by surface area: out->cell, out->point (height: the surface's there,
   as ptl_query_locate gives it), out->distance 0. Advances *rng_state. PTL_OK, PTL_ERR_NOT_FOUND (a
   mesh with no surface), PTL_ERR_INVALID_ARG (NULL). */
ptl_status ptl_query_random_point(ptl_query* q, uint64_t* rng_state, ptl_location* out);

/* A point uniform by surface area over the part of the mesh within `radius` in plan (closed) of
   `centre` (located first as by ptl_query_locate within `extents`, NULL or zero: 2, 4, 2) and
   reachable from it: in the cells ptl_query_cells_in_circle gives (so a floor above or below is
   left out; Detour's findRandomPointAroundCircle, whose point may lie outside the circle). The point
   itself lies inside the circle. Radius 0 (no area): the located centre. PTL_OK, PTL_ERR_NOT_FOUND
   (no mesh within the extents), PTL_ERR_INVALID_ARG (NULL, non-finite, negative radius). */
ptl_status ptl_query_random_point_in_circle(ptl_query* q, const float centre[3], const float extents[3], float radius,
                                            uint64_t* rng_state, ptl_location* out);

#ifdef __cplusplus
}
#endif
#endif
