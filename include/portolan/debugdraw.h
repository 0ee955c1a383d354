/* Portolan debugdraw: every stage of the bake and every query as coloured points, lines and
   triangles, sent to a sink the caller provides.

   What it does
   - `ptl_dd_*` functions walk a navmesh, a bake's intermediates (<portolan/bake_debug.h>), an input
     mesh or a query result and call the sink's begin / vertex / end with world-space positions and
     colours. They never allocate and never touch a graphics API: the caller's sink turns the
     primitives into draw calls (<portolan/debugdraw_gl.h> is a ready-made OpenGL 3.3 core sink)
     or anything else (a test records them; a tool could write them to a file).
   - What can be drawn: input triangles (walkable or not), solid voxel spans, walkable spans by layer,
     contours (raw corner points and simplified vertices), cells (filled by layer, outlined),
     portals, notches and the portal each one created, links (walk, step up, step down, and portals
     between layers), tiles, paths and their corridors, and query results (nearest point, raycast
     hit, distance to the nearest wall).

   Minimal example
       static void my_begin(void* u, ptl_dd_prim prim, float size) { ... }
       static void my_vertex(void* u, const float p[3], ptl_dd_color c) { ... }
       static void my_end(void* u) { ... }
       ptl_dd_sink sink = { my_begin, my_vertex, my_end, &my_state };
       ptl_dd_cells(&sink, NULL, nm, PTL_DD_CELLS_FILL | PTL_DD_CELLS_OUTLINE);
       ptl_dd_portals(&sink, NULL, nm);
       ptl_dd_path(&sink, NULL, res.points, res.point_count);

   Sink contract: every function calls begin(prim, size) ... end() one or more times; between them
   it sends a whole number of primitives (1 vertex per point, 2 per line, 3 per triangle, triangles
   counter-clockwise seen from above where that has a meaning). `size` is the point size or line
   width in pixels the style asks for. Each cell's fill is one begin ... end of its own (a polygon
   as a triangle fan), so a sink can tell polygons apart.

   Ownership: nothing is retained; the inputs are read during the call only. A NULL sink, navmesh or
   debug object draws nothing. Colours: ptl_dd_color is 8-bit RGBA packed as 0xAABBGGRR (red in
   the low byte, the byte order of an RGBA8 vertex attribute on little-endian machines). */
#ifndef PORTOLAN_DEBUGDRAW_H
#define PORTOLAN_DEBUGDRAW_H

#include "bake.h"
#include "bake_debug.h"
#include "runtime.h"
#include "tilecache.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t ptl_dd_color;
#define PTL_DD_RGBA(r, g, b, a) \
    ((ptl_dd_color)(r) | ((ptl_dd_color)(g) << 8) | ((ptl_dd_color)(b) << 16) | ((ptl_dd_color)(a) << 24))
#define PTL_DD_R(c) ((c) & 0xffu)
#define PTL_DD_G(c) (((c) >> 8) & 0xffu)
#define PTL_DD_B(c) (((c) >> 16) & 0xffu)
#define PTL_DD_A(c) (((c) >> 24) & 0xffu)

typedef enum ptl_dd_prim { PTL_DD_POINTS = 0, PTL_DD_LINES = 1, PTL_DD_TRIS = 2 } ptl_dd_prim;

typedef struct ptl_dd_sink {
    void (*begin)(void* user, ptl_dd_prim prim, float size); /* size: [Units: px] point size or line width */
    void (*vertex)(void* user, const float pos[3], ptl_dd_color color);
    void (*end)(void* user);
    void* user;
} ptl_dd_sink;

/* ---- Colours -----------------------------------------------------------------------------------*/
typedef enum ptl_dd_color_id {
    PTL_DD_COL_TRI_WALKABLE = 0,  /* input triangles flat enough to walk on (before shading) */
    PTL_DD_COL_TRI_STEEP,         /* input triangles too steep */
    PTL_DD_COL_SPAN_WALKABLE,     /* solid voxel spans whose top is walkable */
    PTL_DD_COL_SPAN_SOLID,        /* the other solid spans */
    PTL_DD_COL_SPAN_UNREACHED,    /* walkable spans in no kept layer */
    PTL_DD_COL_CONTOUR_RAW,       /* raw contour edges */
    PTL_DD_COL_CONTOUR_WALL,      /* simplified contour: wall edges */
    PTL_DD_COL_CONTOUR_JUNCTION,  /* simplified contour: edges bordering another layer */
    PTL_DD_COL_CONTOUR_GAP,       /* simplified contour: edges facing a gap a link crosses */
    PTL_DD_COL_CORNER,            /* raw contour corner points */
    PTL_DD_COL_SIMPLIFIED_VERT,   /* simplified contour vertices */
    PTL_DD_COL_CELL_OUTLINE,      /* cell edges that are walls */
    PTL_DD_COL_PORTAL,            /* portals between cells of one layer */
    PTL_DD_COL_LINK_WALK,         /* walk links */
    PTL_DD_COL_LINK_STEP_UP,      /* step links, the way up */
    PTL_DD_COL_LINK_STEP_DOWN,    /* step links, the way down */
    PTL_DD_COL_LINK_LAYER,        /* portals between cells of different layers */
    PTL_DD_COL_TILE,              /* tile bounds */
    PTL_DD_COL_PATH,              /* paths */
    PTL_DD_COL_CORRIDOR,          /* cells of a path's corridor */
    PTL_DD_COL_NEAREST,           /* nearest-point queries */
    PTL_DD_COL_RAY,               /* raycasts: the free part */
    PTL_DD_COL_RAY_HIT,           /* raycasts: the hit point and the blocked part */
    PTL_DD_COL_WALL_DISTANCE,     /* distance-to-wall queries */
    PTL_DD_COL_CLEARANCE,         /* the band an agent's disc sweeps along a path of radius > 0 */
    PTL_DD_COL_TURN,              /* a path's turns around corners: arcs and their spokes */
    PTL_DD_COL_MOVE,              /* moves along the surface: the way to the end, and on to the target */
    PTL_DD_COL_OFFMESH,           /* off-mesh links (jumps, ladders, teleports) */
    PTL_DD_COL_OBSTACLE,          /* dynamic obstacles of a tile cache (<portolan/tilecache.h>) */
    PTL_DD_COL_TILE_DIRTY,        /* tile cache: tiles waiting for an update */
    PTL_DD_COL_TILE_REBUILT,      /* tile cache: tiles the last update rebuilt */
    PTL_DD_COL_COUNT
} ptl_dd_color_id;

/* The default colour of each element. */
ptl_dd_color ptl_dd_default_color(ptl_dd_color_id id);
/* The fill colour of a layer: well-separated hues (golden-ratio steps), deterministic, opaque;
   `alpha` replaces the alpha. */
ptl_dd_color ptl_dd_layer_color(uint32_t layer, uint8_t alpha);
/* A strong colour per area id 1..63 (ptl_cell_view.area), unlike the layers' pastels. */
ptl_dd_color ptl_dd_area_color(uint32_t area, uint8_t alpha);
/* A distinct colour per index (notches and their portals). */
ptl_dd_color ptl_dd_index_color(uint32_t index);

/* How the ptl_dd_* functions draw; NULL or zeroed: every default. */
typedef struct ptl_dd_style {
    /* Drawings of the navmesh and queries are raised this much above the surface, so that it does
       not hide them. [Units: wu] [Limit: >= 0] default 0.05 */
    float lift;
    bool no_lift;       /* true: drawn on the surface itself (lift ignored) */
    float line_width;   /* [Units: px] default 2 */
    float point_size;   /* [Units: px] default 7 */
    uint8_t fill_alpha; /* alpha of cell and layer fills; default 255 (opaque) */
    const ptl_dd_color* palette; /* PTL_DD_COL_COUNT colours replacing the defaults; NULL: the defaults */
} ptl_dd_style;

ptl_dd_style ptl_dd_style_defaults(void);

/* ---- Input ---------------------------------------------------------------------------------------*/
/* The triangles, walkable (normal within max_slope of up, winding counter-clockwise seen from above)
   or too steep, shaded by their normal. max_slope: [Units: degrees] 0: 45. One TRIS batch. */
void ptl_dd_trimesh(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_trimesh* m, float max_slope);

/* ---- Bake intermediates (<portolan/bake_debug.h>) --------------------------------------------------*/
/* Solid voxel spans as boxes: their tops and the stretches of their four sides no span of the
   neighbouring column covers, 2 triangles per run of equal tops (same height and walkability) along
   +x and per run of equal open stretches along the face (+x for the z-facing sides, +z for the
   x-facing ones). One TRIS batch. */
void ptl_dd_solid_spans(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_bake_debug* dbg);
/* Walkable spans as squares at their floor, one colour per layer (ptl_dd_layer_color), unreached
   ones grey: 2 triangles per span. One TRIS batch. */
void ptl_dd_layers(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_bake_debug* dbg);

enum {
    PTL_DD_CONTOUR_RAW = 1u << 0,        /* raw rings (a line per edge) and their corner points */
    PTL_DD_CONTOUR_SIMPLIFIED = 1u << 1  /* simplified rings, coloured by edge kind, and their vertices */
};
/* Per layer and kind asked for: one LINES batch (one line per ring edge) and one POINTS batch (one
   point per vertex). */
void ptl_dd_contours(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_bake_debug* dbg, uint32_t flags);
/* Per layer: the notches as points and each portal of the decomposition as a line, in the colour
   of the notch whose resolution created it (ptl_dd_index_color of the notch's rank; portals no
   notch created in the portal colour). One POINTS batch (one point per notch) and one LINES batch
   (one line per portal) per layer. */
void ptl_dd_notches(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_bake_debug* dbg);

/* ---- Navmesh ---------------------------------------------------------------------------------------*/
enum {
    PTL_DD_CELLS_FILL = 1u << 0,   /* each walkable cell filled in its layer's colour: one TRIS batch per cell */
    PTL_DD_CELLS_OUTLINE = 1u << 1, /* the cells' wall edges: one LINES batch, one line per wall edge */
    PTL_DD_CELLS_BY_AREA = 1u << 2  /* with FILL: cells of area > 0 in their area's colour (ptl_dd_area_color),
                                       area 0 (ground) in its layer's */
};
void ptl_dd_cells(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm, uint32_t flags);
/* Portals between cells of one layer, neither a link cell: one LINES batch, one line per portal.
   (Portals between layers are drawn by ptl_dd_links, portals of link cells with their link.) */
void ptl_dd_portals(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm);
/* Links: each link cell filled (one TRIS batch per link) and, in one LINES batch: a walk link as a
   double-headed arrow across its gap (5 lines), a step link as two arrows side by side, the way up in
   PTL_DD_COL_LINK_STEP_UP and the way down in PTL_DD_COL_LINK_STEP_DOWN (3 lines each); and every
   portal between cells of two different layers as one line in PTL_DD_COL_LINK_LAYER. */
void ptl_dd_links(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm);
/* Off-mesh links (runtime.h, ptl_navmesh_get_offmesh): in one LINES batch, each link as an arc of
   16 lines from its start to its end (rising a quarter of its length, at least 0.5, above the higher
   end), an arrowhead at the end (and at the start for a two-way link, 2 lines each), and a circle of
   its radius around each end (12 lines each), in PTL_DD_COL_OFFMESH. */
void ptl_dd_offmesh(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm);

/* ---- Tile cache ----------------------------------------------------------------------------------*/
/* An obstacle (<portolan/tilecache.h>): its sides as translucent triangles (one TRIS batch) and its
   edges (one LINES batch) in `color` (0: PTL_DD_COL_OBSTACLE, or an area volume's ptl_dd_area_color,
   fainter); a cylinder as a 24-sided prism. A
   malformed desc (ptl_tilecache_add would refuse it) draws nothing. */
void ptl_dd_obstacle(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_obstacle_desc* o, ptl_dd_color color);
/* The cache's tiles: those waiting for an update (PTL_TILE_DIRTY) outlined in PTL_DD_COL_TILE_DIRTY
   at the world's floor and top, and, where `rebuilt` is not NULL (tiles_x * tiles_z flags, row by
   row: the tiles the caller's last update rebuilt, read with ptl_tilecache_tile before it), their
   boxes in PTL_DD_COL_TILE_REBUILT. One LINES batch. */
void ptl_dd_tilecache_tiles(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_tilecache* tc,
                            const uint8_t* rebuilt);
/* The navmesh's bounds as a box (12 lines) and, for a tiled bake (ptl_navmesh_info.tile_size > 0),
   its tile grid at the bottom of the bounds: tiles_x + 1 lines along z and tiles_z + 1 along x. */
void ptl_dd_tiles(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm);

/* ---- Paths and queries --------------------------------------------------------------------------*/
/* A path: one LINES batch (count - 1 lines) and one POINTS batch (count points). */
void ptl_dd_path(const ptl_dd_sink* sink, const ptl_dd_style* style, const float* points, uint32_t count);
/* A path of an agent of radius `radius` > 0 (ptl_path_request.radius): in PTL_DD_COL_CLEARANCE the
   band its disc sweeps (each segment's two sides, `radius` off it, and the disc at the start and at
   the end, 32 lines each), in PTL_DD_COL_TURN each turn (ptl_path_turn) as its arc on the circle
   (up to 32 lines) with the spokes from the corner to where the arc starts and ends, all in one
   LINES batch. Nothing for a radius that is not positive and finite. */
void ptl_dd_path_clearance(const ptl_dd_sink* sink, const ptl_dd_style* style, const float* points, uint32_t count,
                           float radius, const ptl_path_turn* turns, uint32_t turn_count);
/* Cells filled in the corridor colour (one TRIS batch per cell, ids out of range skipped). */
void ptl_dd_corridor(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_navmesh* nm,
                     const uint32_t* cells, uint32_t count);
/* The corridor of a path: the cells it passes through, found by walking from cell to cell through
   portals along each segment in plan, starting in `start_cell` (ptl_path_result.start_cell). Where
   the path passes through a vertex, the cells around it between the one it leaves and the one it
   enters are listed too, so consecutive cells are always neighbours. Writes at most `capacity` ids
   to `cells` in path order (a cell entered twice is listed twice) and returns how many the whole
   corridor has; 0 when start_cell is out of range. Stops early where the path leaves the mesh.
   No allocation. */
uint32_t ptl_dd_path_corridor(const ptl_navmesh* nm, uint32_t start_cell, const float* points, uint32_t count,
                              uint32_t* cells, uint32_t capacity);

/* Nearest point: a line from the query point to the nearest point found and a point at each end.
   Nothing when loc->cell is PTL_NONE. */
void ptl_dd_nearest(const ptl_dd_sink* sink, const ptl_dd_style* style, const float query[3], const ptl_location* loc);

typedef struct ptl_dd_ray {
    float start[3], end[3];
    bool hit;          /* the ray was blocked */
    float hit_point[3];/* where (when hit) */
    float normal[3];   /* the wall's normal at the hit (x, z; y ignored); zero: none drawn */
} ptl_dd_ray;
/* A raycast: the free part in PTL_DD_COL_RAY, the blocked part, the hit point and the normal in
   PTL_DD_COL_RAY_HIT. */
void ptl_dd_raycast(const ptl_dd_sink* sink, const ptl_dd_style* style, const ptl_dd_ray* ray);
/* Distance to the nearest wall: a circle of that radius around the point (32 lines) and a line to the
   wall point. */
void ptl_dd_wall_distance(const ptl_dd_sink* sink, const ptl_dd_style* style, const float point[3], float distance,
                          const float wall_point[3]);
/* A move along the surface (ptl_query_move_along_surface) in PTL_DD_COL_MOVE: the way from `start`
   to `end`, through `via` when given (where the straight move met the wall it slid along: the
   raycast's hit point), a line at half opacity from `end` on to `target` when they differ, and a
   point at `end`. */
void ptl_dd_move(const ptl_dd_sink* sink, const ptl_dd_style* style, const float start[3], const float via[3],
                 const float end[3], const float target[3]);

#ifdef __cplusplus
}
#endif
#endif
