/* Portolan bake intermediates: what each stage of a bake produced, kept for debug drawing.

   What it does
   - A ptl_bake_debug is created by the caller and named in ptl_bake_desc.debug. The bake then copies
     into it, in world coordinates, what every stage made: the solid voxel spans, the open (walkable)
     spans with their layer, each layer's contours (raw corner points and simplified), and each
     layer's convex decomposition (cells, notches, and the portal each notch created).
     debugdraw (<portolan/debugdraw.h>) draws all of it; a tool may read it directly.
   - It also reports the bake's progress (the last stage finished), readable from another thread
     while the bake runs, so a demo can show a progress bar.

   Minimal example
       ptl_bake_debug* dbg; ptl_bake_debug_create(NULL, &dbg);
       ptl_bake_desc desc = { .debug = dbg };
       ptl_bake_trimesh(&mesh, &desc, &blob, &size, &stats, &err);
       uint32_t n; const ptl_dbg_open_span* s = ptl_bake_debug_open_spans(dbg, &n);
       ...
       ptl_bake_debug_destroy(dbg);

   Ownership: the debug object owns everything the accessors return; pointers stay valid until the
   next bake that uses the object, ptl_bake_debug_clear or ptl_bake_debug_destroy. One bake at a
   time may use an object. A bake without a debug object (the default) copies nothing and costs
   nothing more.

   2D inputs (ptl_bake_shape): no voxel stages; one layer (0) whose contours are the shape's rings
   at y = 0 (raw and simplified are the same) and its decomposition. */
#ifndef PORTOLAN_BAKE_DEBUG_H
#define PORTOLAN_BAKE_DEBUG_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ptl_bake_debug ptl_bake_debug; /* also named (as a struct) by ptl_bake_desc.debug */

typedef struct ptl_bake_debug_desc {
    const ptl_allocator* alloc; /* NULL: libc */
} ptl_bake_debug_desc;

ptl_bake_debug_desc ptl_bake_debug_desc_defaults(void);

/* PTL_ERR_INVALID_ARG (NULL out), PTL_ERR_NO_MEMORY. */
ptl_status ptl_bake_debug_create(const ptl_bake_debug_desc* desc, ptl_bake_debug** out);
void ptl_bake_debug_destroy(ptl_bake_debug* dbg);
/* Drops what the last bake kept (a bake does this itself when it starts). */
void ptl_bake_debug_clear(ptl_bake_debug* dbg);

/* ---- Progress ----------------------------------------------------------------------------------*/
typedef enum ptl_bake_stage {
    PTL_BAKE_STAGE_NONE = 0,   /* not started */
    PTL_BAKE_STAGE_VOXELIZE,   /* the following name the last stage finished */
    PTL_BAKE_STAGE_FILTER,
    PTL_BAKE_STAGE_LAYERS,
    PTL_BAKE_STAGE_CONTOURS,
    PTL_BAKE_STAGE_DECOMPOSE,
    PTL_BAKE_STAGE_MERGE,      /* the blob is built (2D: the decomposition's blob) */
    PTL_BAKE_STAGE_DONE,       /* the bake returned (successfully or not) */
    PTL_BAKE_STAGE_COUNT
} ptl_bake_stage;

/* The last stage the current (or last) bake finished. Safe to call from any thread while a bake
   runs on another (an atomic read); everything else here must wait for the bake to return. */
ptl_bake_stage ptl_bake_debug_stage(const ptl_bake_debug* dbg);
const char* ptl_bake_stage_name(ptl_bake_stage s); /* "voxelize", ... */

/* ---- Voxels ------------------------------------------------------------------------------------
   The grid: column (x, z) is the square [bmin.x + x*cs, +cs] x [bmin.z + z*cs, +cs]; height h is
   world y = bmin.y + h*ch. All zero for 2D inputs. */
typedef struct ptl_dbg_grid {
    float bmin[3];
    float cs, ch;          /* [Units: wu] cell size, cell height */
    int32_t width, depth;  /* columns */
} ptl_dbg_grid;

typedef struct ptl_dbg_solid_span {
    int32_t x, z;          /* column */
    uint16_t smin, smax;   /* [Units: voxels] solid from smin to smax; smax is a potential floor */
    uint8_t walkable;      /* the top is walkable (slope), before the filters */
    uint8_t pad[3];
} ptl_dbg_solid_span;

typedef struct ptl_dbg_open_span {
    int32_t x, z;          /* column */
    uint16_t floor, ceil;  /* [Units: voxels] the floor and the solid above it (65535: open sky) */
    uint32_t layer;        /* PTL_NONE: not in any kept layer (unreachable from the seeds, an island) */
} ptl_dbg_open_span;

void ptl_bake_debug_get_grid(const ptl_bake_debug* dbg, ptl_dbg_grid* out);
/* The solid heightfield after rasterization (none for a tiled bake, ptl_bake_desc.tile_size > 0:
   its tiles are voxelized apart and never form one heightfield). */
const ptl_dbg_solid_span* ptl_bake_debug_solid_spans(const ptl_bake_debug* dbg, uint32_t* count);
/* The solid spans of column (x, z), bottom to top, disjoint: a slice of ptl_bake_debug_solid_spans
   (spans are listed column by column, z-major). NULL and *count = 0 outside the grid. */
const ptl_dbg_solid_span* ptl_bake_debug_solid_column(const ptl_bake_debug* dbg, int32_t x, int32_t z,
                                                      uint32_t* count);
/* The walkable spans that survived the filters, with their layer after flooding. */
const ptl_dbg_open_span* ptl_bake_debug_open_spans(const ptl_bake_debug* dbg, uint32_t* count);
/* Layers the bake produced (open-span layer ids are below this). */
uint32_t ptl_bake_debug_layer_count(const ptl_bake_debug* dbg);

/* ---- Contours ----------------------------------------------------------------------------------
   Rings of one layer in world space (x, the layer's floor height there, z), free space on the left
   of every edge in the (x, z) plane taken as a mathematical (x right, z up) plane: outer rings run
   counter-clockwise, holes clockwise. Vertex flags say what the edge leaving the vertex borders and
   whether the vertex is a notch (reflex). */
enum {
    PTL_DBG_VERT_JUNCTION = 1u << 0, /* the edge leaving this vertex borders another layer (else a wall) */
    PTL_DBG_VERT_NOTCH = 1u << 1,    /* reflex vertex (interior angle > pi) */
    PTL_DBG_VERT_GAP = 1u << 2       /* the edge leaving this vertex faces a gap a link crosses */
};

typedef struct ptl_dbg_contour {
    uint32_t layer;
    uint32_t ring_count;
    const uint32_t* ring_start; /* ring_count + 1: ring r is vertices [ring_start[r], ring_start[r+1]) */
    uint32_t vert_count;
    const float* verts;         /* 3 * vert_count, world space */
    const uint8_t* flags;       /* vert_count: PTL_DBG_VERT_* */
} ptl_dbg_contour;

/* simplified = false: the raw contour, every corner point of the voxel outline (Saupin et al. 2014
   §4.1); true: simplified (the rings the decomposition gets): chords between corner points within
   the tolerance of the outline, and a corner off the lattice where one replaced a run of notches.
   PTL_ERR_INVALID_ARG for a layer >= ptl_bake_debug_layer_count. */
ptl_status ptl_bake_debug_get_contour(const ptl_bake_debug* dbg, uint32_t layer, bool simplified, ptl_dbg_contour* out);

/* ---- Convex decomposition per layer (ANavMG, Oliva and Pelechano §4) ---------------------------*/
typedef struct ptl_dbg_decomp {
    uint32_t layer;
    uint32_t vert_count;
    const float* verts;         /* 3 * vert_count, world space: the contour's vertices, then the points
                                   added on walls by vertex-edge portals */
    uint32_t cell_count;
    const uint32_t* cell_start; /* cell_count + 1 into cell_verts */
    const uint32_t* cell_verts; /* counter-clockwise vertex ids */
    uint32_t portal_count;
    const uint32_t* portal_verts; /* 2 per portal: vertex ids */
    /* per portal: the notch (vertex id) whose resolution created it (ANavMG: each notch gets a
       portal to the closest element in its area of interest), or PTL_NONE */
    const uint32_t* portal_notch;
    uint32_t notch_count;
    const uint32_t* notches;    /* vertex ids of the notches (reflex vertices of the contour) */
} ptl_dbg_decomp;

/* PTL_ERR_INVALID_ARG for a layer >= ptl_bake_debug_layer_count. */
ptl_status ptl_bake_debug_get_decomp(const ptl_bake_debug* dbg, uint32_t layer, ptl_dbg_decomp* out);

#ifdef __cplusplus
}
#endif
#endif
