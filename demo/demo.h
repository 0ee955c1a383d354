/* portolan-demo: the SDL2 + OpenGL viewer of every bake stage and of path queries.
   Shared declarations of demo_scene.c (input, bake thread, queries), demo_camera.c (orbit and fly),
   demo_ui.c (text, panels, slider on top of the debugdraw GL sink) and demo_main.c (window, loop,
   screenshots). */
#ifndef PTL_DEMO_H
#define PTL_DEMO_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>
#include <portolan/bake.h>
#include <portolan/gen.h>
#include <portolan/gpu.h>
#include <portolan/bake_debug.h>
#include <portolan/debugdraw.h>
#include <portolan/debugdraw_gl.h>
#include <portolan/runtime.h>

/* ---- Scene: input, bake on a thread, navmesh, path --------------------------------------------*/
typedef enum demo_bake_state { BAKE_IDLE, BAKE_RUNNING, BAKE_DONE, BAKE_FAILED } demo_bake_state;

enum { DEMO_MAX_PATH = 4096, DEMO_MAX_CORRIDOR = 8192, DEMO_MAX_TURNS = 1024, DEMO_RANDOM_POINTS = 500 };
enum { DEMO_MAX_OBSTACLES = 64, DEMO_OBSTACLE_TILE = 32 /* [Units: columns] the tile cache's tiles */ };

/* The obstacle tool (key I, --obstacle; demo_obstacles.c): a tile cache of the 3D scene
   (<portolan/tilecache.h>), its obstacles, and what the last update rebuilt. */
typedef struct demo_obstacles {
    ptl_tilecache* tc;       /* NULL until the tool is first used on this bake */
    bool on;                 /* clicks drop obstacles instead of path ends */
    ptl_obstacle_desc desc[DEMO_MAX_OBSTACLES];
    ptl_obstacle_ref ref[DEMO_MAX_OBSTACLES];
    uint32_t count;
    int selected;            /* the one a drag moves and Del removes; -1: none */
    bool dragging;
    bool move_pending;       /* a drag moved the mouse since the last update (one update a frame) */
    float move_to[3];
    uint8_t* rebuilt;        /* tiles_x * tiles_z: the tiles the last update rebuilt */
    uint32_t tiles_x, tiles_z, rebuilt_count;
    double update_ms;        /* the last update, wall clock */
    ptl_tilecache_info info;
} demo_obstacles;

typedef struct demo_scene {
    char name[256];        /* what the stats panel calls it */
    bool is3d;
    bool builtin;
    ptl_trimesh mesh;      /* 3D inputs */
    ptl_trimesh open_mesh; /* the input without its ceilings (triangles facing down): a view into closed
                              levels from above. Shares mesh's vertices; owns only its `tris`. */
    ptl_shape shape;       /* 2D inputs */
    ptl_bake_desc desc;
    ptl_bake_debug* dbg;
    /* the decomposition's closest-element search on the GPU (key U, --gpu; <portolan/gpu.h>): a
       headless EGL context of the library's own, made on the main thread (demo_main.c, gpu_toggle)
       and used from the bake thread; the same navmesh bytes as the CPU's */
    ptl_gpu* gpu;
    bool use_gpu;          /* the next bake asks the GPU */
    bool baked_on_gpu;     /* the bake shown ran its search there */
    char gpu_note[160];    /* the GPU's renderer, or why there is none */
    float bmin[3], bmax[3];/* bounds of the input (2D: of the shape at y = 0) */

    /* the bake thread writes these; the main thread reads them once `state` is BAKE_DONE/FAILED */
    SDL_Thread* thread;
    SDL_atomic_t state;    /* demo_bake_state */
    void* blob;
    size_t blob_size;
    ptl_bake_stats stats;
    ptl_error err;
    double bake_wall_ms;
    /* the bake's progress callback (ptl_bake_desc.progress, on the bake thread) writes these two */
    SDL_atomic_t progress_milli; /* fraction of the bake done, in thousandths */
    void* progress_stage;  /* const char*: the stage's name (the library's string, never freed) */
    const char* last_stage_printed;
    bool progress_shown;   /* the terminal's bar was printed for this bake */

    ptl_navmesh* nm;
    ptl_navmesh_info info;
    ptl_query* q;

    /* path tool */
    bool has_start, has_goal;
    float start[3], goal[3];
    float radius;          /* agent radius the slider asks for [Units: wu] */
    ptl_path_mode mode;    /* exact or corridor (key O) */
    float radius_used;     /* what the last query ran with */
    ptl_status path_status;
    ptl_status radius_status; /* PTL_OK, or the error the path query gave at radius > 0 */
    float points[3 * DEMO_MAX_PATH];
    ptl_path_turn turns[DEMO_MAX_TURNS]; /* the path's turns around corners (radius > 0) */
    ptl_raycast_hit ray;      /* from the start toward the goal (layer G) */
    ptl_status ray_status;
    ptl_wall_hit wall;        /* the nearest wall to the start, within 10 m (layer G) */
    ptl_move_result move;     /* a move along the surface from the start toward the goal (layer G) */
    ptl_status move_status;
    ptl_path_result path;
    double query_us;       /* median of repeated runs of the last query */
    /* the same path by slices of DEMO_SLICE expansions (ptl_query_path_begin / step / finish): the
       steps it took (0: found whole at finish) and whether it gave the same path */
    uint32_t slice_steps;
    bool slice_same;
    uint32_t corridor[DEMO_MAX_CORRIDOR];
    uint32_t corridor_count;
    ptl_location start_loc, goal_loc; /* snapped points (nearest-point query results) */
    float start_click[3], goal_click[3];
    /* layer M: random points, uniform by surface area, on the whole mesh or (once a start is set)
       within DEMO_RANDOM_RADIUS of it and reachable from it; the same seed every time */
    float randoms[3 * DEMO_RANDOM_POINTS];
    uint32_t random_count;
    float random_radius; /* 0: the whole mesh */
    /* areas: the bake's name -> area table (--area), the highest area id among the cells, and the
       query filter the K key cycles on it (0: none, 1: costing 10, 2: excluded) */
    ptl_area_name area_names[16];
    char area_text[16][64];
    uint32_t area_name_count;
    uint32_t area_max;
    int area_filter;
    demo_obstacles obs;
} demo_scene;
#define DEMO_RANDOM_RADIUS 8.0f
#define DEMO_SLICE 16u

/* Loads `path` (.obj, .map, .poly, .mesh) or, when NULL, generates the built-in scene (the
   three-storey building of `portolan gen building --size 40 --storeys 3 --seed 1`). */
bool demo_scene_load(demo_scene* s, const char* path);
/* Starts the bake on a thread (progress through the bake's progress callback). */
bool demo_scene_bake_start(demo_scene* s);
/* Called every frame: prints progress to the terminal, and when the bake has finished joins the
   thread and creates the navmesh and query. Returns true once, when the navmesh became ready. */
bool demo_scene_poll(demo_scene* s);
/* 0..1 progress of a running bake and the stage name. */
float demo_scene_progress(demo_scene* s, const char** stage);
/* Runs the path query between start and goal (when both are set) and the corridor. */
void demo_scene_update_path(demo_scene* s);
/* Applies s->area_filter to the query (cost 10 or exclusion of area s->area_max) and plans again. */
void demo_scene_apply_area_filter(demo_scene* s);
/* A default start and goal: the built-in scene's street-to-top-floor pair, else two far-apart cells
   joined by a path. */
void demo_scene_default_path(demo_scene* s);
/* The first point of the scene as drawn (the input's triangles, without its ceilings unless
   `ceilings`, and the navmesh's cells), below height `cut` (NaN: no cut), that the ray o + t d hits;
   false when none. */
bool demo_scene_pick(const demo_scene* s, const float o[3], const float d[3], bool ceilings, float cut, float hit[3]);
void demo_scene_free(demo_scene* s);
/* Loads s->blob as the navmesh (the built-in scene's lift added), a query, the area filter, and
   plans the path again; false (message printed) when it does not load. */
bool demo_scene_install(demo_scene* s);

/* The obstacle tool (demo_obstacles.c). enable bakes the scene's tile cache once (3D scenes only;
   false with a message otherwise) and puts its navmesh in place; add drops a cylinder, a turned
   box or an area volume (DEMO_SHAPE_*) standing on p; at finds the obstacle whose footprint holds p (-1: none); move and remove
   change one; each change updates the cache, installs its navmesh and re-plans the path. */
bool demo_obstacles_enable(demo_scene* s);
enum { DEMO_SHAPE_CYLINDER = 0, DEMO_SHAPE_BOX = 1, DEMO_SHAPE_AREA = 2 };
#define DEMO_VOLUME_AREA 7u /* the area the demo's volumes give their floor */
bool demo_obstacles_add(demo_scene* s, const float p[3], int shape);
int demo_obstacles_at(const demo_scene* s, const float p[3]);
void demo_obstacles_move(demo_scene* s, int i, const float p[3]);
void demo_obstacles_remove(demo_scene* s, int i);
void demo_obstacles_draw(const demo_scene* s, const ptl_dd_sink* k);       /* the obstacles (depth-tested) */
void demo_obstacles_draw_tiles(const demo_scene* s, const ptl_dd_sink* k); /* the cache's tiles (over all) */
void demo_obstacles_free(demo_obstacles* o);
/* Waits for the bake thread and destroys the GPU context (ptl_gpu_destroy makes its own context
   current on this thread, then none): call it once the demo's own GL work is over. */
void demo_scene_gpu_free(demo_scene* s);

/* ---- Camera ------------------------------------------------------------------------------------*/
typedef struct demo_camera {
    bool fly;                 /* fly mode (else orbit) */
    float target[3];          /* orbit centre */
    float yaw, pitch;         /* [Units: radians] */
    float distance;           /* orbit: from the target */
    float eye[3];             /* fly: position */
    float fov;                /* [Units: radians] vertical */
    float near_z, far_z;
    float view[16], proj[16], view_proj[16]; /* column-major */
} demo_camera;

void demo_camera_frame(demo_camera* c, const float bmin[3], const float bmax[3]);
void demo_camera_update(demo_camera* c, int width, int height);
void demo_camera_orbit(demo_camera* c, float dx_px, float dy_px);
void demo_camera_pan(demo_camera* c, float dx_px, float dy_px, int height);
void demo_camera_zoom(demo_camera* c, float steps);
/* Moves the eye (fly) or the target (orbit) by forward/right/up amounts in world units. */
void demo_camera_move(demo_camera* c, float fwd, float right, float up);
void demo_camera_toggle_fly(demo_camera* c);
/* The world ray under window pixel (x, y) (y down). */
void demo_camera_ray(const demo_camera* c, float x, float y, int width, int height, float o[3], float d[3]);

/* ---- UI: text and panels in pixels, through the debugdraw GL sink in overlay mode --------------*/
typedef struct demo_ui {
    ptl_dd_gl* gl;
    ptl_dd_sink sink;
    float scale;   /* text scale (stb_easy_font glyphs are 7 px high) */
    void* quad_buf;
    int quad_buf_size;
} demo_ui;

bool demo_ui_init(demo_ui* ui, ptl_dd_gl* gl);
void demo_ui_free(demo_ui* ui);
/* Text at pixel (x, y) (top left); returns its height in pixels. */
float demo_ui_text(demo_ui* ui, float x, float y, const char* text, ptl_dd_color c);
float demo_ui_text_width(demo_ui* ui, const char* text);
void demo_ui_rect(demo_ui* ui, float x, float y, float w, float h, ptl_dd_color c);
/* Draws the batched UI with a pixel projection. */
void demo_ui_flush(demo_ui* ui, int width, int height);

#endif
