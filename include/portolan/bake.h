/* Portolan bake: everything that produces a navigation mesh.

   What it does (2D slice)
   - Reads Moving AI grid maps (.map), Polyanya polygon files (.poly v1: free space is the symmetric
     difference of all polygons) and Polyanya navigation meshes (.mesh v2/v3: free space is the union
     of the traversable polygons), and query sets (Moving AI .scen, pairs CSV). Every reader rejects
     malformed input with PTL_ERR_PARSE and a message "FILE:LINE: problem".
   - Turns each into free space as polygons with holes (ptl_shape): exact contours, collinear runs
     merged, and regions that touch only at a point kept apart by duplicating that vertex
     (Saupin et al. 2014, §4.1.2, slash and antislash points).
   - Decomposes free space into near-optimal convex cells (ANavMG: Oliva and Pelechano 2012, §4;
     Oliva's thesis §4, §4.2, §4.3) and bakes the cell-and-portal graph into a `.ptl` blob that the
     runtime loads.

   Minimal example
       ptl_grid g; ptl_shape s; ptl_error err; void* blob; size_t size;
       if (ptl_grid_load("arena.map", NULL, &g, &err) < 0) { puts(err.message); return; }
       ptl_shape_from_grid(&g, NULL, &s, &err);
       ptl_bake_shape(&s, NULL, &blob, &size, NULL, &err);  // blob: free with ptl_blob_free
       ...
       ptl_blob_free(blob, size, NULL); ptl_shape_free(&s); ptl_grid_free(&g);

   Descs: every function that allocates takes a `ptl_*_desc` (NULL or zeroed: every default) whose
   `alloc` is the allocator (NULL: libc); `ptl_*_desc_defaults()` returns a desc with the defaults
   filled in. Only ptl_blob_free takes an allocator itself: the one the blob was made with.

   Ownership: structs filled by `_load`/`_from_*`/`_generate` own their arrays, allocated with the
   desc's allocator and released by the matching `_free`. 2D (x, y) is world (x, 0, y). */
#ifndef PORTOLAN_BAKE_H
#define PORTOLAN_BAKE_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* [Units: wu] The largest |coordinate| any bake accepts (2^62, about 4.6e18): the navmesh stores
   floats, and squared distances between its points must stay finite in float too. Readers refuse
   larger coordinates with PTL_ERR_PARSE naming the line; the bakes with PTL_ERR_BAD_INPUT. */
#define PTL_BAKE_COORD_MAX 0x1p62

/* ---- Readers and conversions -------------------------------------------------------------------
   The desc of every `_load`, `_parse` and ptl_shape_from_grid. */
typedef struct ptl_input_desc {
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_input_desc;

ptl_input_desc ptl_input_desc_defaults(void);

/* ---- Grid maps (Moving AI .map) ----------------------------------------------------------------
   Cell (x, y) is the unit square [x, x+1] x [y, y+1]; row y of the file is y. Passable: '.', 'G',
   'S'; every other character is blocked. */
typedef struct ptl_grid {
    uint32_t width, height;
    uint8_t* passable; /* width * height, row-major, 1 = passable */
    ptl_allocator alloc;
} ptl_grid;

ptl_status ptl_grid_load(const char* path, const ptl_input_desc* desc, ptl_grid* out, ptl_error* err);
/* `name` is used in messages in place of a file name. */
ptl_status ptl_grid_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                          ptl_grid* out, ptl_error* err);
void ptl_grid_free(ptl_grid* g);

/* ---- Free space as polygons with holes ---------------------------------------------------------
   Rings are closed polylines; free space is on the left of every directed edge, so outer boundaries
   run counter-clockwise and holes clockwise (x right, y up). Consecutive vertices are distinct and
   never collinear; rings do not cross. Two vertices may share coordinates where free space touches
   itself at a single point (a pinch): each region keeps its own copy of the vertex. */
typedef struct ptl_shape {
    uint32_t vert_count;
    double* xy;           /* 2 * vert_count */
    uint32_t ring_count;
    uint32_t* ring_start; /* ring_count + 1 entries: ring r is vertices [ring_start[r], ring_start[r+1]) */
    uint32_t flags;       /* PTL_NAVMESH_* flags the shape implies (LATTICE_POINTS for grids) */
    ptl_allocator alloc;
    /* [Units: wu] the readers' rounding (.poly, .mesh); 0: exact (grids, caller's shapes). Features
       within 2x this touch (bake/decompose); a vertex within 4x this of an edge is refused (validate). */
    double precision;
} ptl_shape;

typedef struct ptl_shape_stats {
    uint32_t outer_rings;  /* counter-clockwise rings: connected pieces of free space */
    uint32_t holes;        /* clockwise rings */
    uint32_t notches;      /* reflex vertices (interior angle > pi) */
    double area;           /* [Units: wu^2] free area: outer areas minus hole areas */
} ptl_shape_stats;

ptl_status ptl_shape_from_grid(const ptl_grid* g, const ptl_input_desc* desc, ptl_shape* out, ptl_error* err);
/* Both 2D polygon readers (.poly, .mesh) round every coordinate to the nearest float (what the
   navmesh stores, so that the decomposition works on the very vertices the blob will hold) and to
   a multiple of 2^-24 wu (only coordinates below 0.5 change). Their tolerances scale with the
   precision q = 2^(e - 24), where 2^e is the smallest power of two above the largest |coordinate|
   (at least 2^-24; of a .mesh, the largest a polygon uses): the float resolution at the input's
   largest coordinate, kept in ptl_shape.precision. Points that the rounding makes coincide are merged (repeated points
   dropped), and a vertex within 2 q of the chord between its neighbours is dropped where nothing
   else touches it (collinear runs). Rounding that changes the polygons' total area by more than
   0.1% (features too small for floats this far from the origin: a 10-unit polygon at 1e8,
   anything at 1e-30) is PTL_ERR_PARSE naming the polygon, as is a coordinate beyond
   PTL_BAKE_COORD_MAX.

   Polyanya poly v1: the symmetric difference of all polygons (either orientation). A
   self-intersecting polygon (naming it and its two edges), a polygon with fewer than 3 distinct
   points or a non-finite coordinate is PTL_ERR_PARSE. Crossings between polygons are rounded like
   the vertices; where that brings a boundary onto another one, PTL_ERR_BAD_INPUT. */
ptl_status ptl_poly_load(const char* path, const ptl_input_desc* desc, ptl_shape* out, ptl_error* err);
ptl_status ptl_poly_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                          ptl_shape* out, ptl_error* err);
/* Polyanya mesh v2 and v3: the union of the traversable polygons, which must not overlap (as in a
   conforming navigation mesh). PTL_ERR_PARSE naming the polygons (and edges) for: a polygon listed
   clockwise (not turned round: the neighbour lists would no longer match its edges), a
   self-intersecting polygon (a bowtie), two polygons whose edges cross or overlap, a polygon inside
   another, asymmetric neighbours. Repeated points are dropped; a polygon that the rounding leaves
   with no area (a sliver) is dropped, its neighbours meeting across the line it leaves. */
ptl_status ptl_mesh2d_load(const char* path, const ptl_input_desc* desc, ptl_shape* out, ptl_error* err);
ptl_status ptl_mesh2d_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                            ptl_shape* out, ptl_error* err);
/* Any 2D input by extension: .map, .poly or .mesh. */
ptl_status ptl_shape_load(const char* path, const ptl_input_desc* desc, ptl_shape* out, ptl_error* err);
void ptl_shape_get_stats(const ptl_shape* s, ptl_shape_stats* out);
/* Checks the ring invariants above (orientation, no crossing, no zero-length or collinear edge)
   and, for a rounded shape (precision > 0), that no vertex lies within 4 times the precision of an
   edge it neither ends nor touches exactly. */
ptl_status ptl_shape_validate(const ptl_shape* s, ptl_error* err);
void ptl_shape_free(ptl_shape* s);

/* ---- Triangle soups (.obj) ----------------------------------------------------------------------
   Any triangles: holes, overlaps, duplicates and degenerate triangles are allowed (the voxel bake
   copes with them). y is up, metres. */
typedef struct ptl_trimesh {
    uint32_t vert_count;
    float* verts;        /* 3 * vert_count */
    uint32_t tri_count;
    uint32_t* tris;      /* 3 * tri_count, vertex indices (counter-clockwise seen from the front) */
    uint16_t* tri_tag;   /* tri_count: the area tag of each triangle (0: no group or material) */
    uint32_t tag_count;  /* tags 1..tag_count-1 are named; tag 0 is unnamed */
    char** tag_names;    /* tag_count entries ("" for tag 0): "g name", "o name" or "usemtl name" */
    float bmin[3], bmax[3]; /* bounds of the vertices that triangles use (unused vertices are ignored) */
    ptl_allocator alloc;
} ptl_trimesh;

/* Wavefront OBJ: `v` and `f` (polygons are fan-triangulated; `i`, `i/t`, `i//n`, `i/t/n` and
   negative, relative indices), groups (`g`, `o`) and `usemtl` kept as per-triangle tags; other
   statements are ignored. Out-of-range indices, non-finite coordinates, malformed numbers and files
   with no triangle are PTL_ERR_PARSE naming the line. */
ptl_status ptl_obj_load(const char* path, const ptl_input_desc* desc, ptl_trimesh* out, ptl_error* err);
ptl_status ptl_obj_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc, ptl_trimesh* out,
                         ptl_error* err);
void ptl_trimesh_free(ptl_trimesh* m);

/* ---- Query sets (Moving AI .scen, pairs CSV) ---------------------------------------------------*/
typedef struct ptl_query_item {
    float start[3];
    float goal[3];
    double ref_length; /* .scen: the 9th column (octile length, or the expected length); CSV: -1 */
    uint32_t bucket;   /* .scen bucket; CSV: 0 */
} ptl_query_item;

typedef struct ptl_query_set {
    uint32_t count;
    ptl_query_item* items;
    uint32_t map_width, map_height; /* .scen: the map size the file names (0 for CSV) */
    ptl_allocator alloc;
} ptl_query_set;

/* Moving AI "version 1" scenarios; (x, y) lattice points map to world (x, 0, y). */
ptl_status ptl_scen_load(const char* path, const ptl_input_desc* desc, ptl_query_set* out, ptl_error* err);
ptl_status ptl_scen_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                          ptl_query_set* out, ptl_error* err);
/* A header naming at least sx,sy,sz,ex,ey,ez (any order, other columns ignored), then numbers. */
ptl_status ptl_pairs_load(const char* path, const ptl_input_desc* desc, ptl_query_set* out, ptl_error* err);
ptl_status ptl_pairs_parse(const char* text, size_t len, const char* name, const ptl_input_desc* desc,
                           ptl_query_set* out, ptl_error* err);
void ptl_query_set_free(ptl_query_set* qs);

/* ---- Convex decomposition (ANavMG) -------------------------------------------------------------*/
#define PTL_PAIR_SLACK_DEFAULT 16.0 /* ptl_decompose_desc.pair_slack and ptl_bake_desc.pair_slack */

/* Options of the decomposition:
   - relax (ANavMG thesis §4.3): runs of notches are simplified with Ramer-Douglas-Peucker at this
     tolerance, and portals whose removal leaves a cell no deeper than it below its convex hull are
     dropped; 0 still drops portals whose two cells together are convex.
   - pair_slack: a portal to an open notch that sees this one closes two notches at once (ANavMG §4,
     vertex-vertex); it is preferred when at most this many times longer than the closest element
     and within a few segment spacings of it (decompose.c), the pairs matched shortest first. Fewer,
     some thinner cells for more decomposition time (bench/RESULTS.md). Ignored with relax > 0.
   - lids: the pockets of the walls (runtime/pockets.c: a bay closed by a chord in free space that
     nothing else touches) are cut off first; their lids become portals that are never dropped and
     are recorded in the blob, so each pocket is exactly a set of cells and exact searches skip the
     pockets neither end is in. More cells (the notch bound no longer holds), faster exact queries
     (bench/RESULTS.md). Ignored with relax > 0. */
/* ---- Closest-element search backends ----------------------------------------------------------
   The decomposition's pairing pass asks, for every notch, for the closest element inside its Area of
   Interest (ANavMG §4) and for the open notches within reach of it; without notch pairs (relax > 0
   or pair_slack 1) the notch-by-notch pass asks for every notch's closest element once at its
   start. A backend answers for a batch of notches at once in float arithmetic, conservatively: it
   returns candidates with lower bounds of their distances, and the decomposition picks among them
   with its exact double test and tie-break, so the result is the CPU walk's byte for byte (a notch
   the answer does not settle, or that an earlier portal may change, is walked on the CPU;
   ptl_decomposition.backend_fallbacks counts those walks). With notch pairs the notch-by-notch
   pass is the walk's (its search depends on which notches are still open). Backends: the OpenGL 4.3
   compute one (<portolan/gpu.h>, library portolan_gpu) and ptl_closest_backend_ref() (plain C, the
   same contract, for tests). NULL in ptl_decompose_desc: the CPU grid walk alone.

   The scene (one per decomposition, kept by the backend until released): vertices as floats, a key
   per vertex equal for vertices at one position (a segment touching the notch is skipped), segments
   and a uniform grid listing every segment in each bucket it crosses. */
typedef struct ptl_closest_scene {
    uint32_t vert_count;
    const float* xy;             /* 2 per vertex, rounded to nearest */
    const uint32_t* vkey;        /* per vertex: equal exactly for vertices at the same position */
    const uint32_t* vflags;      /* per vertex: bit 0, an open notch (a partner for PARTNERS) */
    uint32_t seg_count;
    const uint32_t* seg;         /* 2 per segment: vertex a, vertex b */
    const uint32_t* seg_flags;   /* per segment: bit 0, a wall (starts at a) */
    float x0, y0, cell;          /* [Units: wu] grid origin and bucket side */
    uint32_t nx, ny;             /* buckets */
    const uint32_t* bucket_start;/* nx * ny + 1 offsets into bucket_seg (row-major, y outer) */
    const uint32_t* bucket_seg;
    float slop;                  /* [Units: wu] > every float error and the input's tolerance */
} ptl_closest_scene;

enum {
    PTL_CLOSEST_NEAREST = 0,  /* segments of smallest lower bound (at most `cap`, sorted by it;
                                 those beyond the least + 4 slop may be left out), and a bound no
                                 other segment in the cone goes below (FLT_MAX: none) */
    PTL_CLOSEST_PARTNERS = 1, /* every wall starting at an open notch within `reach` in the cone
                                 (any order); out_count > cap: too many, none returned */
};

typedef struct ptl_closest_batch {
    uint32_t mode;          /* PTL_CLOSEST_* */
    uint32_t count;         /* queries */
    uint32_t cap;           /* [Limit: 1..64] results per query */
    const uint32_t* notch;  /* count: the notch vertex */
    const float* cone;      /* 4 per query: r1, r2; the cone is r1 -> r2 counter-clockwise (< pi) */
    const float* reach;     /* count, PARTNERS only: [Units: wu] */
    uint32_t* out_seg;      /* count * cap of room, filled packed: query q's answers are
                               out_seg[out_start[q] .. out_start[q + 1]) (at most cap), so a batch
                               touches only the memory of what it answers */
    float* out_lb;          /* the same places, NEAREST: lower bounds of the exact clipped distances */
    uint32_t* out_start;    /* count + 1, written by the backend (out_start[0] = 0) */
    uint32_t* out_count;    /* count (PARTNERS: may exceed cap, then none are given) */
    float* out_bound;       /* count, NEAREST: every segment not returned is at least this far */
} ptl_closest_batch;

/* Calls come from the threads running decompositions, several at once in a parallel bake: a
   backend serializes them. find answers a batch against `scene`, which it may keep (uploaded)
   between calls with the same pointer until release(scene) says the scene is gone. A failure sets
   *err and returns a negative status (PTL_ERR_UNSUPPORTED: no usable device). */
typedef struct ptl_closest_backend {
    const char* name;
    void* user;
    ptl_status (*find)(void* user, const ptl_closest_scene* scene, ptl_closest_batch* batch, ptl_error* err);
    void (*release)(void* user, const ptl_closest_scene* scene);
} ptl_closest_backend;

/* The contract above in plain C (static, stateless, thread-safe): what the GPU backend is checked
   against, and how the batched resolution is tested without a GPU. */
const ptl_closest_backend* ptl_closest_backend_ref(void);

typedef struct ptl_decompose_desc {
    double relax;      /* [Units: wu] [Limit: >= 0] default 0: strict convexity */
    double pair_slack; /* [Limit: 1..16] default PTL_PAIR_SLACK_DEFAULT; 1: the paper's closest element */
    const ptl_allocator* alloc; /* NULL: libc */
    bool lids;         /* default false: the plain ANavMG decomposition */
    const ptl_closest_backend* backend; /* NULL: the CPU grid walk; the output is the same */
} ptl_decompose_desc;

ptl_decompose_desc ptl_decompose_desc_defaults(void);

typedef struct ptl_decomp_portal {
    uint32_t v[2];     /* endpoints (vertex ids) */
    uint32_t cell[2];  /* cells on the left and on the right of v[0] -> v[1] */
    uint32_t pocket;   /* 0; with lids (ptl_decompose_desc.lids), 1 or 2 for a pocket's lid: the
                          pocket is on the side of cell[pocket - 1] */
} ptl_decomp_portal;

typedef struct ptl_decomposition {
    uint32_t vert_count;
    double* xy;            /* 2 * vert_count: the shape's vertices, then the points added on edges */
    uint32_t cell_count;
    uint32_t* cell_start;  /* cell_count + 1 entries into cell_verts / cell_nbrs */
    uint32_t* cell_verts;  /* counter-clockwise vertex ids */
    uint32_t* cell_nbrs;   /* per cell edge (verts[i] -> verts[i+1]): neighbour cell or PTL_NONE */
    uint32_t portal_count;
    ptl_decomp_portal* portals;
    /* Statistics */
    uint32_t notches;      /* reflex vertices of the input shape */
    uint32_t real_notches; /* notches left after relaxation (== notches when relax = 0) */
    uint32_t holes;        /* clockwise rings */
    uint32_t outer_rings;  /* counter-clockwise rings */
    uint32_t split_points; /* points added on edges (vertex-edge portals) */
    uint32_t dropped_portals; /* dispensable portals removed (their two cells merged) */
    uint32_t backend_fallbacks; /* notches a backend (ptl_decompose_desc.backend) left to the walk */
    double relax;
    ptl_allocator alloc;
} ptl_decomposition;

ptl_status ptl_decompose(const ptl_shape* s, const ptl_decompose_desc* desc, ptl_decomposition* out,
                         ptl_error* err);
void ptl_decomposition_free(ptl_decomposition* d);

/* ---- Bake --------------------------------------------------------------------------------------*/
/* An engine's job system, for the bake's parallel stages (the library starts no thread of its own).
   run(user, fn, data, count) calls fn(data, i) once for every i in [0, count), on any threads and
   in any order, and returns when every call has returned. The jobs allocate through the bake's
   allocator, which must then be thread-safe (libc's is). The result never depends on the order or
   the number of threads. */
typedef void (*ptl_job_fn)(void* data, uint32_t index);
typedef struct ptl_job_system {
    void (*run)(void* user, ptl_job_fn fn, void* data, uint32_t count);
    void* user;
} ptl_job_system;

#define PTL_TILE_MIN 16u    /* [Units: columns] smallest ptl_bake_desc.tile_size */
#define PTL_TILE_MAX 65536u /* [Units: columns] largest */

/* ---- Areas (3D) ----------------------------------------------------------------------------------
   Every cell of a 3D bake has an area id 0..PTL_AREA_MAX (0: ground, the default), which query
   filters (runtime.h, ptl_query_filter) cost or exclude. Cells never mix areas: the layer stage
   treats neighbouring spans of different areas as separate layers, so an area's border becomes a
   junction between layers and the merge a portal between cells (bake/layers/layers.c). */
#define PTL_AREA_MAX 63u

/* The triangles of the OBJ group, object or material `name` (ptl_trimesh.tag_names "g name",
   "o name" or "usemtl name", matched by the bare name) get area `area`. */
typedef struct ptl_area_name {
    const char* name;
    uint8_t area; /* [Limit: 1..PTL_AREA_MAX] */
} ptl_area_name;

/* A convex area volume (Recast's rcMarkConvexPolyArea): every walkable span whose floor lies inside
   the convex polygon `xz` in plan (its boundary included) and within [ymin, ymax] gets `area`;
   later volumes win over earlier ones and over names. */
typedef struct ptl_area_volume {
    const float* xz;     /* 2 * vert_count: x, z of the polygon's corners, either winding */
    uint32_t vert_count; /* [Limit: 3..256] */
    float ymin, ymax;    /* [Units: wu] */
    uint8_t area;        /* [Limit: 0..PTL_AREA_MAX] (0 takes a volume back to ground) */
} ptl_area_volume;

/* Options of the bake, zero meaning the default. Where shown the defaults are Recast's reference
   values. Notes on the longer ones:
   - landmarks: per piece of walkable space, whose exact distances to every vertex go into the blob
     (4 bytes per vertex each) to bound exact searches (ALT; bake/landmarks.c). A piece whose
     distance search outgrows 16 nodes per cell edge (at most 2^24) gets fewer, never a failure.
   - hubs (bake/hubs.c): the corners where shortest paths turn, the taut visibility graph between
     them and a 2-hop labelling of its distances; ptl_query_find_path reads exact distances off the
     labels instead of searching. 2D bakes with hubs cut the pockets off first (lids) and label only
     the corners outside them. Much faster exact queries for a bigger blob (bench/RESULTS.md).
   - max_error (3D): every corner point of the voxel outline stays within it of the simplified
     walls, and the corners that replace a rounded one (bake/contours.c) within it of the outline.
     Junctions between layers never move.
   - min_island (3D): an isolated piece of walkable space (linked to no other) smaller than this is
     dropped (tops of crates, gaps between table legs), like Recast's minimum region size.
   - max_gap (3D): links (runtime.h) step over at most this much void between two walkable floors
     within max_climb of each other, with nothing solid rising into the agent's height over the gap;
     measured in whole columns of void, the edge columns the filters remove on both sides included.
   - tile_size (3D): voxelize and filter in square tiles of this many columns (Saupin et al. 2014
     §2.1, §4.1.4), each with a border wide enough for every filter, so each column comes out as in
     a one-piece bake; the later stages run on the assembled whole, so the blob is the same whatever
     the tile order or thread count (it records the tile size, ptl_navmesh_info). The voxel stages'
     memory is bounded by the tile size. 0: one tile over everything, whose voxel stages still run
     in hidden tiles of 192 columns (the same bytes) unless `debug` keeps the heightfield.
   - progress(progress_user, stage, fraction): the stage running ("voxelize", "layers",
     "contours", "decompose", "merge", "build", "landmarks", "hubs", then "done" with 1) and the
     fraction of the bake done, never decreasing; called only on the bake's calling thread. */
typedef struct ptl_bake_desc {
    float cell_size;     /* 3D: [Units: wu] [Limit: > 0] default 0.3 */
    float cell_height;   /* 3D: [Units: wu] [Limit: > 0] default 0.2 */
    float agent_height;  /* 3D: [Units: wu] [Limit: >= 0] default 2.0 */
    float agent_radius;  /* 3D: [Units: wu] [Limit: >= 0] default 0 (clearance is a query parameter) */
    float max_climb;     /* 3D: [Units: wu] [Limit: >= 0] default 0.9 */
    float max_slope;     /* 3D: [Units: degrees] [Limit: 0..90] default 45 */
    double relax;        /* convexity relaxation, ptl_decompose_desc [Units: wu] default 0 */
    double pair_slack;   /* ptl_decompose_desc [Limit: 1..16] default PTL_PAIR_SLACK_DEFAULT */
    uint32_t landmarks;  /* [Limit: 0..64] default 0: 4, or 16 with hubs */
    bool no_landmarks;   /* true: none, whatever `landmarks` says */
    bool lids;           /* 2D: pocket lids (ptl_decompose_desc.lids); forced on by hubs */
    bool hubs;           /* hub labels for exact path queries; default false */
    bool no_simplify;    /* 3D: true: every corner point kept (max_error ignored) */
    float max_error;     /* 3D: contour simplification [Units: cells] [Limit: >= 0] default 1.3 */
    /* 3D: keep only what is reachable from these points (x, y, z each; ANavMG thesis §6.2.2.2);
       none: keep everything. */
    const float* seeds;
    uint32_t seed_count;
    uint32_t min_island; /* 3D: [Units: cells] default 64 (8 x 8) */
    bool keep_islands;   /* 3D: true: every isolated piece kept (min_island ignored) */
    bool no_links;       /* 3D: true: no links (max_gap ignored) */
    float max_gap;       /* 3D: [Units: wu] [Limit: >= 0] default 0: one cell; below one cell: no links */
    /* 3D: [Units: columns] [Limit: 0 or PTL_TILE_MIN..PTL_TILE_MAX] default 0: one tile */
    uint32_t tile_size;
    const ptl_job_system* jobs; /* tiles, contours and decompositions run as jobs; NULL: in turn */
    /* the decomposition's closest-element search (ptl_decompose_desc.backend); NULL: the CPU walk */
    const ptl_closest_backend* closest_backend;
    const ptl_allocator* alloc; /* NULL: libc */
    /* Keep every stage's intermediates in this caller-created object for debug drawing
       (<portolan/bake_debug.h>). NULL: keep nothing. */
    struct ptl_bake_debug* debug;
    void (*progress)(void* user, const char* stage, float fraction); /* NULL: no reports */
    void* progress_user;
    /* 3D: areas (ptl_area_name, ptl_area_volume); none: every cell area 0. A name that no tag
       has is ignored. */
    const ptl_area_name* area_names;
    uint32_t area_name_count;
    const ptl_area_volume* area_volumes;
    uint32_t area_volume_count;
    /* Off-mesh links (runtime.h, ptl_offmesh_desc), located on the baked mesh and stored in the blob
       (the last pass; an end off the mesh fails the bake, naming the link). NULL/0: none. Tiled
       parts (ptl_bake_trimesh_part) and their merge carry none. */
    const ptl_offmesh_desc* offmesh;
    uint32_t offmesh_count;
} ptl_bake_desc;

/* The defaults filled in. Fields whose default depends on another field stay 0 (landmarks: 4, or
   16 with hubs; max_gap: one cell_size), so that setting hubs or cell_size afterwards still works. */
ptl_bake_desc ptl_bake_desc_defaults(void);
/* Fills `out` with `desc` (or nothing) with every default resolved, so a caller sees what is used. */
void ptl_bake_desc_resolve(const ptl_bake_desc* desc, ptl_bake_desc* out);

typedef struct ptl_bake_stats {
    uint32_t vertices, cells, portals, links, tiles, layers, notches, real_notches, holes;
    uint32_t triangles, spans, walkable_spans, junction_portals;
    double walkable_area;
    uint32_t landmarks;
    uint32_t hubs, hub_edges;      /* hub labels (ptl_bake_desc.hubs): corners labelled, visibility edges */
    uint64_t hub_entries, hub_bytes;
    /* [Units: ms] wall-clock per stage (3D stages 0 for 2D inputs); tiled bakes count the filters and
       the layer flood in ms_voxelize, the stitch in ms_layers (ms_filter: only with `debug`) */
    double ms_total, ms_voxelize, ms_filter, ms_layers, ms_contours, ms_decompose, ms_merge, ms_build, ms_landmarks;
    double ms_hubs;
} ptl_bake_stats;

/* ---- Blob passes: building, landmarks, hubs, merging parts --------------------------------------*/
typedef struct ptl_blob_desc {
    uint32_t flags;             /* PTL_NAVMESH_* flags stored in the blob (ptl_shape.flags) default 0 */
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_blob_desc;

ptl_blob_desc ptl_blob_desc_defaults(void);
/* Builds the navmesh blob of a decomposition (cells, portals, point-location index). */
ptl_status ptl_bake_decomposition(const ptl_decomposition* d, const ptl_blob_desc* desc, void** blob, size_t* size,
                                  ptl_error* err);

typedef struct ptl_landmarks_desc {
    const ptl_job_system* jobs; /* the pieces of walkable space run as jobs; NULL: in turn */
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_landmarks_desc;

ptl_landmarks_desc ptl_landmarks_desc_defaults(void);
/* Replaces the landmark distances of a blob (`count` per vertex [Limit: 0..64]; 0 removes them)
   and writes the new blob to *out (free with ptl_blob_free). */
ptl_status ptl_bake_landmarks(const void* blob, size_t size, uint32_t count, const ptl_landmarks_desc* desc,
                              void** out, size_t* out_size, ptl_error* err);
/* What ptl_bake_hubs built. */
typedef struct ptl_hub_stats {
    uint32_t hubs;    /* corners with a label */
    uint32_t edges;   /* taut visibility edges between them */
    uint64_t entries; /* label entries */
    uint64_t bytes;   /* size of the blob's hubs section */
} ptl_hub_stats;

typedef struct ptl_hubs_desc {
    const ptl_job_system* jobs; /* the visibility sweeps run as jobs; NULL: in turn */
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_hubs_desc;

ptl_hubs_desc ptl_hubs_desc_defaults(void);
/* Replaces the hub labels of a blob (ptl_bake_desc.hubs) and writes the new blob to *out (free with
   ptl_blob_free). The labelling runs on the caller's thread. Deterministic. `stats` may be NULL. */
ptl_status ptl_bake_hubs(const void* blob, size_t size, const ptl_hubs_desc* desc, void** out, size_t* out_size,
                         ptl_hub_stats* stats, ptl_error* err);
/* Decompose + build (+ landmarks, + hubs). `stats` may be NULL. Both bakes check the navmesh they
   built with ptl_navmesh_validate before adding landmarks and hubs, and never hand out one that it
   rejects: PTL_ERR_INTERNAL naming the first violation instead (a bug; please report the input). */
ptl_status ptl_bake_shape(const ptl_shape* s, const ptl_bake_desc* desc, void** blob, size_t* size,
                          ptl_bake_stats* stats, ptl_error* err);
/* The 3D bake: voxelize, filter, layers, contours, decomposition per layer, merge (+ landmarks). */
ptl_status ptl_bake_trimesh(const ptl_trimesh* m, const ptl_bake_desc* desc, void** blob, size_t* size,
                            ptl_bake_stats* stats, ptl_error* err);

/* A bake spread over machines (or processes): each bakes the voxel stages of a range of tiles into
   a part, and ptl_bake_merge_parts turns parts that hold every tile once into the navmesh that
   ptl_bake_trimesh makes with the same desc: the same bytes. `tiles` is x0, z0, x1, z1, the tile
   columns x0..x1 and rows z0..z1, inclusive, clamped to the world's tiles (a range past them gives
   a part with no tile, which the merge accepts). desc->tile_size must be set. The part records the
   desc (seeds included) and a fingerprint of the mesh, so the merge needs neither and refuses parts
   of different meshes or settings. `tiles_out`, when not NULL, gets the world's tiles along x and z.
   Free a part with ptl_blob_free. */
ptl_status ptl_bake_trimesh_part(const ptl_trimesh* m, const ptl_bake_desc* desc, const uint32_t tiles[4], void** part,
                                 size_t* size, uint32_t tiles_out[2], ptl_error* err);
typedef struct ptl_merge_desc {
    const ptl_job_system* jobs; /* contours, decompositions and landmarks run as jobs; NULL: in turn */
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_merge_desc;

ptl_merge_desc ptl_merge_desc_defaults(void);
/* `desc` and `stats` may be NULL. Malformed, corrupted, mismatched, missing or repeated tiles:
   PTL_ERR_BAD_INPUT (PTL_ERR_BAD_BLOB for a damaged part) naming the part. */
ptl_status ptl_bake_merge_parts(const void* const* parts, const size_t* sizes, uint32_t count,
                                const ptl_merge_desc* desc, void** blob, size_t* size, ptl_bake_stats* stats,
                                ptl_error* err);
/* (ptl_blob_free, which frees a blob or part, is in runtime.h: a runtime-only game frees the blobs
   ptl_navmesh_blob_with_offmesh makes with it too.) */

#ifdef __cplusplus
}
#endif
#endif
