/* The `.ptl` blob: one header, then flat arrays of plain structs addressed by offsets (STYLE: no
   pointers on disk, one read and a validation pass to load). Private: shared by runtime and bake.

   Layout (every section 8-byte aligned, in this order):
     header | verts (float x,y,z) | vert_flags (u8) | cells | cell_verts (u32) | cell_nbrs (u32) |
     portals | grid_offsets (u32, nx*nz+1) | grid_items (u32 cell ids) | cell_grids |
     heights (height blocks, then the blocks' packed data) |
     links | lids (may be empty) | landmarks (float, landmark_count per vertex; may be empty) |
     hubs (may be empty) | offmesh (may be empty)
   Links (runtime.h) are cells too: link i's cell is cell cell_count - link_count + i, so the link
   cells come last, after every walkable cell.
   3D bakes add, per cell that needs one, a grid of its layer's voxel floor heights around the
   cell, so that the height of any point of a cell is known within one cell height (DESIGN.md,
   Heights); a flat cell (one floor height under and around it, its vertices at that height) and
   every cell of a 2D bake (every height 0) have none: their vertices give the heights.
   All integers and floats are in the writer's byte order; `endian` holds PTL_BLOB_ENDIAN as written,
   so a reader on another byte order sees 0x04030201 and refuses the blob.
   The checksum is ptl_hash64 (checksum.c: FNV-1a's multiply over 64-bit words) over the whole blob
   with the checksum field taken as zero. Version 2: the header's tiling fields and this checksum
   (version 1 hashed bytes). Version 3: height grids per cell (version 2 had one per layer, over the
   layer's bounding box). Version 4: the hub labels section (its fields at the header's end).
   Version 5: the height grids are stored in blocks of 8 x 8 columns, each packed as 4-bit or 8-bit
   offsets from the block's lowest floor when they fit (ptl_blob_hblock): a third of the size.
   Version 6: a cell's tag is its area id 0..63 (ptl_bake_desc's area names and volumes; 0 without
   them), no longer the raw OBJ group or material tag of the triangle under its centroid; cells
   never mix areas (bake/layers/layers.c). And the off-mesh links given at bake time
   (ptl_blob_offmesh; runtime offmesh.c), the last section: each link's ends as located on the mesh
   and the cells holding them. Loading checks the ends finite, the cells in range, the other fields
   in their limits, and locates each end again (it must lie on the mesh, in a cell that holds the
   stored one's point).

   Hubs (bake/cpg/hubs.c, runtime hubs.c): the corners of the walkable boundary where shortest paths
   turn, ranked (hub i is the i-th in the labelling order), each with a label, and their visibility
   graph. The section holds, each part 8-aligned, in this order (ptl_hub_layout):
     dist (f64, hub_entry_count) | hub (u32, hub_entry_count) | hop (u16, hub_entry_count) |
     label_start (u32, hub_count + 1) |
     vert (u32, hub_count: the hub's vertex) | adj_start (u32, hub_count + 1) | adj (u32, hub_edge_count)
   Hub i's label is entries label_start[i] .. label_start[i + 1] - 1: the hubs (increasing, the last
   being i itself at 0), the exact length of the shortest path to each, and the first step of that
   path as an index into the hub's adj list (PTL_HUB_NO_HOP for the hub itself, or where the list is
   too long for 16 bits). adj lists, per hub, the hubs it sees along a line tangent to the walls at
   both ends (sorted, symmetric, no hub twice). */
#ifndef PTL_NAVMESH_FORMAT_H
#define PTL_NAVMESH_FORMAT_H

#include <stdint.h>

#define PTL_BLOB_MAGIC0 'P'
#define PTL_BLOB_MAGIC1 'T'
#define PTL_BLOB_MAGIC2 'L'
#define PTL_BLOB_MAGIC3 'N'
#define PTL_BLOB_VERSION 6u
#define PTL_BLOB_MAX_AREA 63u /* ptl_blob_cell.tag: area ids 0..63 (PTL_AREA_MAX) */
#define PTL_BLOB_ENDIAN 0x01020304u
#define PTL_MAX_CELL_VERTS 65535u

/* vert_flags */
enum {
    PTL_VERT_PINCH = 1u << 0, /* another vertex shares this position (regions touching at a point) */
    PTL_VERT_NOTCH = 1u << 1  /* reflex vertex of the walkable boundary (interior angle > pi) */
};

typedef struct ptl_blob_header {
    char magic[4];
    uint32_t version;
    uint32_t endian;
    uint32_t header_size;
    uint64_t total_size;
    uint64_t checksum;
    uint32_t flags; /* PTL_NAVMESH_* */
    uint32_t vert_count;
    uint32_t cell_count;
    uint32_t cell_vert_total; /* entries in cell_verts and cell_nbrs */
    uint32_t portal_count;
    uint32_t link_count;
    uint32_t tile_count;
    uint32_t layer_count;
    uint32_t grid_nx, grid_nz;   /* point-location buckets along x and z */
    uint32_t grid_item_count;
    /* Distances per vertex to the landmarks of its piece of walkable space (ALT lower bounds for
       the searches, Goldberg and Harrelson 2005): vertex v's distance to landmark i of its piece is
       landmarks[v * landmark_count + i], exact geodesic length, +inf when the piece has fewer. */
    uint32_t landmark_count;
    float bmin[3], bmax[3];
    float grid_cell; /* [Units: wu] bucket side */
    uint32_t tiles_x; /* tiles along x (tile_count / tiles_x along z) */
    double walkable_area;
    double relax;
    uint64_t off_verts, off_vert_flags, off_cells, off_cell_verts, off_cell_nbrs, off_portals;
    uint64_t off_grid_offsets, off_grid_items, off_landmarks;
    uint64_t off_cell_grids, off_heights;
    uint32_t height_count;   /* height blocks (ptl_blob_hblock) at the start of the heights section */
    float vox_cs, vox_ch;    /* [Units: wu] voxel cell size and height of the height grids (0: none) */
    float vox_origin[3];     /* [Units: wu] world position of column 0, height 0 */
    uint32_t tile_size; /* [Units: voxel columns] of the bake's tiles, from vox_origin; 0: one tile */
    uint64_t off_links;
    uint32_t hub_count;       /* corners with a label; 0: no hubs section */
    uint32_t hub_edge_count;  /* entries of adj: twice the undirected edges of the visibility graph */
    uint64_t hub_entry_count; /* label entries of all hubs */
    uint64_t off_hubs;        /* == total_size when there are no hubs */
    uint64_t hub_bytes;       /* size of the hubs section (ptl_hub_layout's total) */
    /* Pocket lids (a 2D bake with ptl_decompose_desc.lids): portals that close a pocket of free
       space, each with the cell on the pocket's side; the pocket is the cells reached from it
       without crossing a lid. */
    uint32_t lid_count;
    uint32_t height_bytes; /* packed height data after the height blocks, in the heights section */
    uint64_t off_lids;
    /* Off-mesh links (ptl_blob_offmesh), after every other section; 0 and 0: none. */
    uint32_t offmesh_count;
    uint32_t offmesh_pad;
    uint64_t off_offmesh;
} ptl_blob_header;
_Static_assert(sizeof(ptl_blob_header) == 320, "blob header layout");

/* An off-mesh link given at bake time (runtime.h, ptl_offmesh_desc): its ends as located on the
   mesh, so that loading finds them at distance 0. */
typedef struct ptl_blob_offmesh {
    float start[3], end[3];          /* [Units: wu] finite */
    float radius;                    /* [Units: wu] > 0 */
    float cost;                      /* [Units: wu] as given (<= 0: the 3D distance), finite */
    uint32_t start_cell, end_cell;   /* a cell holding each end, < cell_count */
    uint32_t user_id;
    uint8_t bidir;                   /* 0 or 1 */
    uint8_t area;                    /* 0..63 */
    uint8_t pad[2];
} ptl_blob_offmesh;
_Static_assert(sizeof(ptl_blob_offmesh) == 48, "blob off-mesh link layout");

typedef struct ptl_blob_lid {
    uint32_t portal; /* into portals */
    uint32_t inner;  /* the portal's cell on the pocket's side */
} ptl_blob_lid;
_Static_assert(sizeof(ptl_blob_lid) == 8, "blob lid layout");

/* Offsets of the parts of the hubs section from off_hubs, and its size. */
typedef struct ptl_hub_layout {
    uint64_t dist, hub, hop, label_start, vert, adj_start, adj, total;
} ptl_hub_layout;
#define PTL_HUB_NO_HOP 0xffffu

static inline ptl_hub_layout ptl_hub_layout_of(uint64_t hubs, uint64_t entries, uint64_t edges) {
    ptl_hub_layout l;
#define PTL_A8(x) (((x) + 7) & ~(uint64_t)7)
    l.dist = 0;
    l.hub = l.dist + entries * 8;
    l.hop = PTL_A8(l.hub + entries * 4);
    l.label_start = PTL_A8(l.hop + entries * 2);
    l.vert = PTL_A8(l.label_start + (hubs + 1) * 4);
    l.adj_start = PTL_A8(l.vert + hubs * 4);
    l.adj = PTL_A8(l.adj_start + (hubs + 1) * 4);
    l.total = PTL_A8(l.adj + edges * 4);
#undef PTL_A8
    return l;
}

/* A link (runtime.h, ptl_link_view): its cell is cell_count - link_count + its index. */
typedef struct ptl_blob_link {
    uint32_t cell;
    uint32_t cells[2]; /* the walkable cells it joins, cells[0] < cells[1] < the first link cell */
    float rise;        /* [Units: wu] */
    float gap;         /* [Units: wu] */
    uint32_t kind;     /* ptl_link_kind */
} ptl_blob_link;
_Static_assert(sizeof(ptl_blob_link) == 24, "blob link layout");

/* A cell's height grid: its layer's floor heights over the voxel columns [x0, x0 + w) x [z0, z0 + d)
   (from vox_origin: the cell's bounds in plan and one column around them), PTL_HEIGHT_NONE where
   the layer has no floor, stored as ceil(w / 8) x ceil(d / 8) blocks of 8 x 8 columns, row-major,
   from height block `first` (cells sharing their layer's grid share its blocks). w = d = 0: no grid
   (heights from the vertices). One per cell, link cells included (they never have one), when the
   heights section is not empty; none at all when it is (every cell flat, or a 2D bake). */
typedef struct ptl_blob_grid {
    int32_t x0, z0;
    uint32_t w, d;
    uint32_t first;
    uint32_t pad;
} ptl_blob_grid;
_Static_assert(sizeof(ptl_blob_grid) == 24, "blob grid layout");
#define PTL_HEIGHT_BLOCK 8u

/* A block of 8 x 8 columns of a height grid (columns past the grid's edge count as no floor): its
   64 floors, row-major, packed after `data` bytes of the height data as its kind says. Floors in
   voxels over vox_origin[1]; a block's floors rarely span more than 14 voxels (a 45 degree slope
   climbs 1.5 voxels per column at Recast's reference cell sizes), so most blocks take 32 bytes
   instead of 128. */
typedef struct ptl_blob_hblock {
    uint32_t data;  /* byte offset into the height data (even for PTL_HBLOCK_U16) */
    uint16_t base;  /* the lowest floor of the block (PTL_HEIGHT_NONE for a block with none) */
    uint8_t kind;   /* ptl_hblock_kind */
    uint8_t pad;
} ptl_blob_hblock;
_Static_assert(sizeof(ptl_blob_hblock) == 8, "blob height block layout");

typedef enum ptl_hblock_kind {
    PTL_HBLOCK_FLAT = 0, /* every column at `base` (or none: base PTL_HEIGHT_NONE); no data */
    PTL_HBLOCK_U4 = 1,   /* 32 bytes: column i in byte i / 2 (low nibble for even i): base + v, 15: none */
    PTL_HBLOCK_U8 = 2,   /* 64 bytes: base + v, 255: none */
    PTL_HBLOCK_U16 = 3   /* 128 bytes: the floors as they are (PTL_HEIGHT_NONE: none) */
} ptl_hblock_kind;

/* Bytes of data of a block of this kind (kinds past PTL_HBLOCK_U16: none, a bad block). */
static inline uint32_t ptl_hblock_bytes(uint32_t kind) {
    return kind == PTL_HBLOCK_U4 ? 32u : kind == PTL_HBLOCK_U8 ? 64u : kind == PTL_HBLOCK_U16 ? 128u : 0u;
}
#define PTL_HEIGHT_NONE 0xffffu

#define PTL_MAX_LANDMARKS 64u

typedef struct ptl_blob_cell {
    uint32_t first;      /* into cell_verts / cell_nbrs */
    uint16_t vert_count; /* >= 3 */
    uint16_t tag;        /* the cell's area id, 0..PTL_BLOB_MAX_AREA (0: ground; link cells 0) */
    uint32_t layer;      /* < layer_count */
    uint32_t tile;
} ptl_blob_cell;
_Static_assert(sizeof(ptl_blob_cell) == 16, "blob cell layout");

typedef struct ptl_blob_portal {
    uint32_t cell[2];  /* cell[0] < cell[1] */
    uint16_t edge[2];  /* edge index in each cell */
    uint32_t vert[2];  /* endpoints in cell[0]'s counter-clockwise order */
} ptl_blob_portal;
_Static_assert(sizeof(ptl_blob_portal) == 20, "blob portal layout");

/* A 64-bit hash of `size` bytes (checksum.c), continuing from `h` (start with PTL_HASH_BASIS). */
#define PTL_HASH_BASIS 0xcbf29ce484222325ull
uint64_t ptl_hash64(uint64_t h, const void* data, uint64_t size);
/* The blob checksum: ptl_hash64 over the blob with the header's checksum field as zero. */
uint64_t ptl_blob_checksum(const void* blob, uint64_t size);

#endif
