/* portolan-demo: bakes a scene on a thread (progress on screen and in the terminal) and shows every
   stage through debugdraw's GL sink, with a path tool, a stats panel and keyboard help.

   usage: portolan-demo [SCENE.obj|.map|.poly|.mesh] [--screenshot FILE.png] [--frames N] [--size WxH]
                        [--from X,Y,Z --to X,Y,Z] [--radius R] [--all] [--bench-frames N]
   No SCENE: the built-in generated building. With no display (no DISPLAY / WAYLAND_DISPLAY and no
   SDL_VIDEODRIVER) it renders headless through SDL's offscreen driver (EGL) and writes a screenshot. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO_UNUSED
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "demo.h"

/* ---- Layers the keys toggle --------------------------------------------------------------------*/
typedef enum layer_id {
    L_INPUT, L_VOXELS, L_SPANS, L_CONTOUR_RAW, L_CONTOUR, L_NOTCHES, L_CELLS, L_OUTLINE, L_PORTALS, L_LINKS,
    L_TILES, L_CORRIDOR, L_PATH, L_NEAREST, L_QUERIES, L_RANDOM, L_COUNT
} layer_id;

static const struct {
    SDL_Keycode key;
    const char* label;
    const char* name;
    bool on;
} LAYERS[L_COUNT] = {
    [L_INPUT] = {SDLK_1, "1", "input triangles", true},
    [L_VOXELS] = {SDLK_2, "2", "solid voxel spans", false},
    [L_SPANS] = {SDLK_3, "3", "walkable spans by layer", false},
    [L_CONTOUR_RAW] = {SDLK_4, "4", "raw contours + corner points", false},
    [L_CONTOUR] = {SDLK_5, "5", "simplified contours", false},
    [L_NOTCHES] = {SDLK_6, "6", "notches + their portals", false},
    [L_CELLS] = {SDLK_7, "7", "cells (filled by layer)", true},
    [L_OUTLINE] = {SDLK_8, "8", "cell walls", true},
    [L_PORTALS] = {SDLK_9, "9", "portals", true},
    [L_LINKS] = {SDLK_0, "0", "links + layer portals + off-mesh links", true},
    [L_TILES] = {SDLK_t, "T", "tiles", false},
    [L_CORRIDOR] = {SDLK_c, "C", "path corridor", true},
    [L_PATH] = {SDLK_p, "P", "path", true},
    [L_NEAREST] = {SDLK_n, "N", "nearest points (snaps)", true},
    [L_QUERIES] = {SDLK_g, "G", "raycast start->goal, wall distance, move along surface", true},
    [L_RANDOM] = {SDLK_m, "M", "500 random points (around the start)", false},
};

typedef struct app {
    SDL_Window* win;
    SDL_GLContext ctx;
    ptl_dd_gl* gl;
    ptl_dd_sink sink;
    demo_ui ui;
    demo_camera cam;
    demo_scene* scene;
    bool layer_on[L_COUNT];
    bool help;
    bool quit;
    int width, height;
    /* mouse */
    bool ldown, dragging, slider_drag;
    int down_x, down_y;
    bool next_is_goal;
    /* frame times */
    double frame_ms[120];
    int frame_n;
    uint32_t last_vertices;
    bool headless;
    char renderer[128];
    char note[256];     /* last message shown on screen */
    bool want_shot;     /* F12 */
    float slider_x, slider_y; /* where the radius slider was drawn (pixels), for hit tests */
    float cut;          /* storey cut: world height above which the scene is cut away (NaN: none) */
    float cut_default;
    double emit_ms;     /* CPU time of the last frame's ptl_dd_* calls into the sink */
    bool ceilings;      /* draw the input's ceilings (off: look into closed levels from above) */
    bool by_area;       /* V: cells of area > 0 in their area's colour */
} app;

/* ---- Drawing -----------------------------------------------------------------------------------*/

static const ptl_dd_color PANEL = PTL_DD_RGBA(12, 14, 20, 200);
static const ptl_dd_color TEXT = PTL_DD_RGBA(235, 235, 235, 255);
static const ptl_dd_color DIM = PTL_DD_RGBA(130, 130, 140, 255);
static const ptl_dd_color ACCENT = PTL_DD_RGBA(255, 210, 90, 255);

static double now_ms(void) {
    return (double)SDL_GetPerformanceCounter() * 1000.0 / (double)SDL_GetPerformanceFrequency();
}

static void draw_scene(app* a) {
    double t0 = now_ms();
    demo_scene* s = a->scene;
    const ptl_dd_sink* k = &a->sink;
    bool* on = a->layer_on;
    ptl_dd_gl_set_mode(a->gl, PTL_DD_GL_DEPTH);
    if (on[L_INPUT] && s->is3d) ptl_dd_trimesh(k, NULL, a->ceilings ? &s->mesh : &s->open_mesh, 0);
    bool baked = s->nm != NULL;
    if (baked) {
        if (on[L_VOXELS]) ptl_dd_solid_spans(k, NULL, s->dbg);
        if (on[L_SPANS]) ptl_dd_layers(k, NULL, s->dbg);
        if (on[L_CELLS]) ptl_dd_cells(k, NULL, s->nm, PTL_DD_CELLS_FILL | (a->by_area ? PTL_DD_CELLS_BY_AREA : 0));
        if (on[L_CORRIDOR] && s->corridor_count) ptl_dd_corridor(k, NULL, s->nm, s->corridor, s->corridor_count);
        if (on[L_OUTLINE]) ptl_dd_cells(k, NULL, s->nm, PTL_DD_CELLS_OUTLINE);
        if (on[L_PORTALS]) ptl_dd_portals(k, NULL, s->nm);
        if (on[L_LINKS]) ptl_dd_links(k, NULL, s->nm), ptl_dd_offmesh(k, NULL, s->nm);
        if (on[L_TILES]) ptl_dd_tiles(k, NULL, s->nm);
        demo_obstacles_draw(s, k);
        /* the bake's outlines are drawn over everything: they sit inside the surfaces they outline */
        ptl_dd_gl_set_mode(a->gl, PTL_DD_GL_OVERLAY);
        if (on[L_CONTOUR_RAW]) ptl_dd_contours(k, NULL, s->dbg, PTL_DD_CONTOUR_RAW);
        if (on[L_CONTOUR]) ptl_dd_contours(k, NULL, s->dbg, PTL_DD_CONTOUR_SIMPLIFIED);
        if (on[L_NOTCHES]) ptl_dd_notches(k, NULL, s->dbg);
        demo_obstacles_draw_tiles(s, k);
        if (on[L_NEAREST]) {
            if (s->has_start) ptl_dd_nearest(k, NULL, s->start_click, &s->start_loc);
            if (s->has_goal) ptl_dd_nearest(k, NULL, s->goal_click, &s->goal_loc);
        }
        if (on[L_QUERIES] && s->has_start && s->has_goal) {
            if (s->ray_status >= 0) {
                ptl_dd_ray ray = {.hit = s->ray.hit};
                memcpy(ray.start, s->start_loc.point, sizeof ray.start);
                memcpy(ray.end, s->goal, sizeof ray.end);
                memcpy(ray.hit_point, s->ray.point, sizeof ray.hit_point);
                memcpy(ray.normal, s->ray.normal, sizeof ray.normal);
                ptl_dd_raycast(k, NULL, &ray);
            }
            if (s->wall.found) ptl_dd_wall_distance(k, NULL, s->wall.from, s->wall.distance, s->wall.point);
            /* the move slides from where the straight move met the wall (the raycast's hit) */
            if (s->move_status >= 0)
                ptl_dd_move(k, NULL, s->start_loc.point, s->move.blocked && s->ray_status >= 0 && s->ray.hit ? s->ray.point : NULL,
                            s->move.point, s->goal);
        }
        if (on[L_RANDOM] && s->random_count) {
            /* uniform by surface area (ptl_query_random_point[_in_circle]), a little above the ground */
            k->begin(k->user, PTL_DD_POINTS, 4);
            for (uint32_t i = 0; i < s->random_count; ++i) {
                const float p[3] = {s->randoms[3 * i], s->randoms[3 * i + 1] + 0.05f, s->randoms[3 * i + 2]};
                k->vertex(k->user, p, PTL_DD_RGBA(255, 80, 200, 255));
            }
            k->end(k->user);
        }
        if (on[L_PATH] && s->path.found) ptl_dd_path(k, NULL, s->points, s->path.point_count);
        if (on[L_PATH] && s->path.found && s->radius_used > 0)
            ptl_dd_path_clearance(k, NULL, s->points, s->path.point_count, s->radius_used, s->turns, s->path.turn_count);
        if (on[L_PATH] && s->has_start && !s->has_goal) ptl_dd_path(k, NULL, s->start, 1);
    }
    double t1 = now_ms();
    ptl_dd_gl_set_clip_height(a->gl, a->cut);
    ptl_dd_gl_flush(a->gl, a->cam.view_proj, a->width, a->height);
    a->emit_ms = t1 - t0;
    ptl_dd_gl_set_clip_height(a->gl, NAN);
    a->last_vertices = ptl_dd_gl_last_vertex_count(a->gl);
}

/* The radius slider's box (pixels), kept in one place for drawing and hit tests. */
enum { SLIDER_W = 300, SLIDER_H = 16 };
static const float RADIUS_MAX = 2.0f;

static double median_frame_ms(const app* a) {
    int n = a->frame_n < 120 ? a->frame_n : 120;
    if (n == 0) return 0;
    double t[120];
    memcpy(t, a->frame_ms, sizeof(double) * (size_t)n);
    for (int i = 1; i < n; ++i) { /* insertion sort: 120 values */
        double v = t[i];
        int j = i;
        while (j > 0 && t[j - 1] > v) t[j] = t[j - 1], --j;
        t[j] = v;
    }
    return t[n / 2];
}

/* A panel of text lines: measured first so that the panel (drawn before the text, in the same
   overlay batch order) fits them. */
enum { PANEL_MAX = 40 };
typedef struct panel {
    char text[PANEL_MAX][160];
    ptl_dd_color color[PANEL_MAX];
    float gap_after[PANEL_MAX]; /* extra pixels below the line (room for the slider) */
    int n;
} panel;

static void panel_add(panel* p, ptl_dd_color c, const char* fmt, ...) {
    if (p->n >= PANEL_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->text[p->n], sizeof p->text[0], fmt, ap);
    va_end(ap);
    p->color[p->n] = c;
    p->gap_after[p->n] = 0;
    p->n++;
}

enum { LINE_H = 20 };

static float panel_width(demo_ui* ui, const panel* p) {
    float w = 0;
    for (int i = 0; i < p->n; ++i) w = fmaxf(w, demo_ui_text_width(ui, p->text[i]));
    return w + 12;
}

static float panel_height(const panel* p) {
    float h = 12;
    for (int i = 0; i < p->n; ++i) h += LINE_H + p->gap_after[i];
    return h;
}

/* Draws the panel at (x, y) (its top left); returns the y of each line in ys (when given). */
static void panel_draw(demo_ui* ui, const panel* p, float x, float y, float* ys) {
    demo_ui_rect(ui, x, y, panel_width(ui, p), panel_height(p), PANEL);
    y += 6;
    for (int i = 0; i < p->n; ++i) {
        demo_ui_text(ui, x + 6, y, p->text[i], p->color[i]);
        if (ys) ys[i] = y;
        y += LINE_H + p->gap_after[i];
    }
}

static void draw_ui(app* a) {
    demo_scene* s = a->scene;
    demo_ui* ui = &a->ui;
    panel st;
    st.n = 0;
    panel_add(&st, ACCENT, "Portolan demo");
    panel_add(&st, TEXT, "%.70s", s->name);
    if (s->is3d) panel_add(&st, TEXT, "input: %u triangles, %u vertices", s->mesh.tri_count, s->mesh.vert_count);
    else panel_add(&st, TEXT, "input: %u polygon vertices, %u rings", s->shape.vert_count, s->shape.ring_count);
    int state = SDL_AtomicGet(&s->state);
    const ptl_bake_stats* b = &s->stats;
    if (state == BAKE_DONE && s->nm) {
        if (s->is3d) {
            panel_add(&st, TEXT, "bake %.1f ms: voxelize %.1f  filter %.1f  layers %.1f", b->ms_total, b->ms_voxelize,
                      b->ms_filter, b->ms_layers);
            panel_add(&st, TEXT, "  contours %.1f  decompose %.1f  merge %.1f  landmarks %.1f", b->ms_contours,
                      b->ms_decompose, b->ms_merge, b->ms_landmarks);
        } else {
            panel_add(&st, TEXT, "bake %.1f ms: decompose %.1f  build %.1f  landmarks %.1f", b->ms_total,
                      b->ms_decompose, b->ms_build, b->ms_landmarks);
        }
        panel_add(&st, TEXT, "cells %u  portals %u  links %u  layers %u  vertices %u", s->info.cell_count,
                  s->info.portal_count, s->info.link_count, s->info.layer_count, s->info.vert_count);
        panel_add(&st, TEXT, "notches %u  spans %u  walkable %.0f m2", b->notches, b->spans, s->info.walkable_area);
        if (s->obs.tc)
            panel_add(&st, s->obs.on ? ACCENT : TEXT, "obstacles %u: rebuilt in %.1f ms, %u tiles (I: tool %s)", s->obs.count,
                      s->obs.update_ms, s->obs.rebuilt_count, s->obs.on ? "on" : "off");
        if (s->baked_on_gpu) panel_add(&st, ACCENT, "decomposed on the GPU: %.28s (U: CPU)", s->gpu_note);
        else panel_add(&st, TEXT, "decomposed on the CPU (U: GPU)");
    } else if (state == BAKE_FAILED) {
        panel_add(&st, PTL_DD_RGBA(255, 90, 90, 255), "bake failed: %.60s", s->err.message);
    } else {
        panel_add(&st, TEXT, "baking...");
    }
    if (s->use_gpu && !s->gpu) panel_add(&st, PTL_DD_RGBA(255, 90, 90, 255), "no GPU decomposition: %.60s", s->gpu_note);
    if (s->has_start && s->has_goal) {
        if (s->path.found)
            panel_add(&st, TEXT, "path %.2f m, %u points, %u corridor cells", s->path.length, s->path.point_count,
                      s->corridor_count);
        else
            panel_add(&st, TEXT, "path: not found (%s)", ptl_status_name(s->path_status));
        panel_add(&st, TEXT, "query %.1f us (%s, median of repeats)", s->query_us,
                  s->mode == PTL_PATH_CORRIDOR ? "corridor" : "exact");
        if (s->slice_steps > 0)
            panel_add(&st, s->slice_same ? TEXT : PTL_DD_RGBA(255, 90, 90, 255), "sliced: %u steps of %u expansions, %s", s->slice_steps,
                      DEMO_SLICE, s->slice_same ? "the same path" : "A DIFFERENT PATH");
        else
            panel_add(&st, DIM, "sliced: found whole at finish (%s)", s->slice_same ? "the same path" : "differs");
        if (s->ray_status >= 0 && s->wall.found)
            panel_add(&st, TEXT, "ray to goal: %s %.1f m; nearest wall %.2f m (G)", s->ray.hit ? "wall at" : "clear,",
                      s->ray.t * sqrtf((s->goal[0] - s->start[0]) * (s->goal[0] - s->start[0]) +
                                       (s->goal[2] - s->start[2]) * (s->goal[2] - s->start[2])),
                      s->wall.distance);
    } else {
        panel_add(&st, TEXT, s->has_start ? "path: click the goal" : "path: click the start");
    }
    if (s->radius_status == PTL_ERR_NOT_FOUND)
        panel_add(&st, ACCENT, "agent radius %.2f m: no room for it at the start or the goal", s->radius);
    else if (s->radius > 0 && s->path.found)
        panel_add(&st, TEXT, "agent radius %.2f m: %u turns   ([ ] or slider)", s->radius, s->path.turn_count);
    else
        panel_add(&st, TEXT, "agent radius %.2f m   ([ ] or drag the slider)", s->radius);
    int slider_line = st.n - 1;
    st.gap_after[slider_line] = SLIDER_H + 8;
    panel_add(&st, TEXT, "frame %.2f ms (median of %d), %u vertices", median_frame_ms(a), a->frame_n < 120 ? a->frame_n : 120,
              a->last_vertices);
    if (s->area_max > 0)
        panel_add(&st, TEXT, "area %u: %s (K)", s->area_max,
                  s->area_filter == 0 ? "cost 1" : s->area_filter == 1 ? "cost 10" : "excluded");
    if (a->cut == a->cut) panel_add(&st, TEXT, "storey cut at y = %.1f m (X off, PgUp/PgDn move)", a->cut);
    panel_add(&st, DIM, "%s", a->renderer);
    if (a->note[0]) panel_add(&st, ACCENT, "%s", a->note);
    float ys[PANEL_MAX];
    panel_draw(ui, &st, 6, 6, ys);
    float sx = a->slider_x = 12, sy = a->slider_y = ys[slider_line] + LINE_H;
    float f = s->radius / RADIUS_MAX;
    demo_ui_rect(ui, sx, sy + SLIDER_H / 2 - 2, SLIDER_W, 4, DIM);
    demo_ui_rect(ui, sx, sy + SLIDER_H / 2 - 2, SLIDER_W * f, 4, ACCENT);
    demo_ui_rect(ui, sx + SLIDER_W * f - 5, sy, 10, SLIDER_H, TEXT);

    /* help and layer toggles */
    if (a->help) {
        panel hp;
        hp.n = 0;
        panel_add(&hp, ACCENT, "keys (H hides)");
        panel_add(&hp, TEXT, "left click: start, then goal");
        panel_add(&hp, TEXT, "left drag: orbit (fly: look)");
        panel_add(&hp, TEXT, "right/middle drag: pan, wheel: zoom");
        panel_add(&hp, TEXT, "Tab: orbit/fly  WASD QE: move");
        panel_add(&hp, TEXT, "F: frame  B: bake again  L: all layers");
        panel_add(&hp, TEXT, "U: decompose on the GPU / the CPU");
        panel_add(&hp, TEXT, "I: obstacle tool %s (click: cylinder, shift: box,", s->obs.on ? "on" : "off");
        panel_add(&hp, TEXT, "   ctrl: area %u volume, drag: move, Del: remove)", DEMO_VOLUME_AREA);
        panel_add(&hp, TEXT, "[ ]: radius  O: exact / corridor  X PgUp PgDn: storey cut");
        panel_add(&hp, TEXT, "R: ceilings %s  F12: screenshot", a->ceilings ? "shown" : "hidden");
        panel_add(&hp, TEXT, "V: cells by area %s  K: area %u normal / cost 10 / excluded", a->by_area ? "on" : "off",
                  s->area_max);
        panel_add(&hp, TEXT, "Esc: quit");
        panel_add(&hp, ACCENT, "layers");
        for (int l = 0; l < L_COUNT; ++l)
            panel_add(&hp, a->layer_on[l] ? TEXT : DIM, "%s %s %s", a->layer_on[l] ? "[x]" : "[ ]", LAYERS[l].label,
                      LAYERS[l].name);
        float hw = panel_width(ui, &hp);
        panel_draw(ui, &hp, (float)a->width - hw - 6, 6, NULL);
    }

    /* progress bar while baking */
    if (state == BAKE_RUNNING) {
        const char* stage;
        float p = demo_scene_progress(s, &stage);
        float bw = (float)a->width * 0.5f, bx = ((float)a->width - bw) * 0.5f, by = (float)a->height * 0.5f;
        char line[128];
        demo_ui_rect(ui, bx - 10, by - 34, bw + 20, 70, PANEL);
        demo_ui_rect(ui, bx, by, bw, 20, DIM);
        demo_ui_rect(ui, bx, by, bw * p, 20, ACCENT);
        snprintf(line, sizeof line, "baking: %s...  %d%%", stage, (int)lroundf(p * 100));
        demo_ui_text(ui, bx, by - 26, line, TEXT);
    }
    demo_ui_flush(ui, a->width, a->height);
}

/* ---- Screenshot --------------------------------------------------------------------------------*/

static bool write_screenshot(app* a, const char* path) {
    int w = a->width, h = a->height;
    unsigned char* px = malloc((size_t)w * (size_t)h * 3);
    if (!px) return false;
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px);
    stbi_flip_vertically_on_write(1);
    int ok = stbi_write_png(path, w, h, 3, px, w * 3);
    free(px);
    if (!ok) {
        fprintf(stderr, "portolan-demo: cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    /* the colours a checker looks for (tests/demo_headless.sh): the path and each layer's cells */
    ptl_dd_color pc = ptl_dd_default_color(PTL_DD_COL_PATH);
    printf("portolan-demo: wrote %s (%dx%d); colours: path=#%02x%02x%02x cells=", path, w, h, PTL_DD_R(pc),
           PTL_DD_G(pc), PTL_DD_B(pc));
    uint32_t nl = a->scene->info.layer_count ? a->scene->info.layer_count : 1;
    for (uint32_t l = 0; l < nl && l < 64; ++l) {
        ptl_dd_color c = ptl_dd_layer_color(l, 255);
        printf("%s#%02x%02x%02x", l ? "," : "", PTL_DD_R(c), PTL_DD_G(c), PTL_DD_B(c));
    }
    printf("\n");
    const demo_scene* sc = a->scene;
    if (sc->has_start && sc->has_goal)
        printf("portolan-demo: path from %.2f,%.2f,%.2f to %.2f,%.2f,%.2f: %s, length %.2f, %u points, %u corridor "
               "cells; sliced in %u steps of %u expansions: %s\n", sc->start[0], sc->start[1], sc->start[2], sc->goal[0],
               sc->goal[1], sc->goal[2], sc->path.found ? "found" : "not found", sc->path.length, sc->path.point_count,
               sc->corridor_count, sc->slice_steps, DEMO_SLICE, sc->slice_same ? "the same path" : "a different path");
    fflush(stdout);
    return true;
}

/* ---- Input -------------------------------------------------------------------------------------*/

static void set_defaults(app* a, bool all) {
    for (int l = 0; l < L_COUNT; ++l) a->layer_on[l] = all || LAYERS[l].on;
}

static bool in_slider(const app* a, float x, float y) {
    return x >= a->slider_x - 8 && x <= a->slider_x + SLIDER_W + 8 && y >= a->slider_y - 4 &&
           y <= a->slider_y + SLIDER_H + 4;
}

static void set_radius(app* a, float r) {
    if (r < 0) r = 0;
    if (r > RADIUS_MAX) r = RADIUS_MAX;
    r = roundf(r * 20.0f) / 20.0f; /* 5 cm steps */
    if (r == a->scene->radius) return;
    a->scene->radius = r;
    demo_scene_update_path(a->scene);
}

/* The scene's point under window pixel (x, y) (the storey cut and the ceilings as drawn). */
static bool pick(app* a, int x, int y, float hit[3]) {
    float o[3], d[3];
    demo_camera_ray(&a->cam, (float)x, (float)y, a->width, a->height, o, d);
    return demo_scene_pick(a->scene, o, d, a->ceilings, a->cut, hit);
}

/* I: the obstacle tool on or off (the first time bakes the scene's tile cache). */
static void obstacle_tool(app* a, bool on) {
    demo_scene* s = a->scene;
    if (on && (SDL_AtomicGet(&s->state) != BAKE_DONE || !demo_obstacles_enable(s))) {
        snprintf(a->note, sizeof a->note, "the obstacle tool needs a baked 3D scene");
        return;
    }
    s->obs.on = on;
}

static void click(app* a, int x, int y) {
    float o[3], d[3], hit[3];
    demo_camera_ray(&a->cam, (float)x, (float)y, a->width, a->height, o, d);
    demo_scene* s = a->scene;
    if (!demo_scene_pick(s, o, d, a->ceilings, a->cut, hit)) {
        snprintf(a->note, sizeof a->note, "nothing under the mouse");
        return;
    }
    a->note[0] = '\0';
    if (s->obs.on) { /* the obstacle tool: select the one under the mouse, or drop one there */
        const int i = demo_obstacles_at(s, hit);
        if (i >= 0 && !(SDL_GetModState() & KMOD_SHIFT)) s->obs.selected = i;
        else if (SDL_GetModState() & KMOD_CTRL) a->by_area = demo_obstacles_add(s, hit, DEMO_SHAPE_AREA) || a->by_area;
        else demo_obstacles_add(s, hit, (SDL_GetModState() & KMOD_SHIFT) ? DEMO_SHAPE_BOX : DEMO_SHAPE_CYLINDER);
        return;
    }
    if (!a->next_is_goal) {
        memcpy(s->start, hit, sizeof hit), memcpy(s->start_click, hit, sizeof hit);
        s->has_start = true, s->has_goal = false;
        const float ext[3] = {2, 4, 2};
        if (!s->q || ptl_query_locate(s->q, hit, ext, &s->start_loc) < 0) s->start_loc.cell = PTL_NONE;
        s->corridor_count = 0;
        memset(&s->path, 0, sizeof s->path);
        a->next_is_goal = true;
    } else {
        memcpy(s->goal, hit, sizeof hit), memcpy(s->goal_click, hit, sizeof hit);
        s->has_goal = true;
        demo_scene_update_path(s);
        a->next_is_goal = false;
    }
}

/* U and --gpu: the decomposition's closest-element search on the GPU (<portolan/gpu.h>), then a
   bake. The library's headless EGL context is made here, on the main thread, once, with the demo's
   context released first (libglvnd refuses an EGL context on a thread where a GLX one is current);
   ptl_gpu_create loads glad's GL functions through EGL and leaves no context current, so the demo's
   context is made current again and its functions loaded again (with libglvnd both loaders give the same
   per-thread dispatch, which the bake thread then uses with the GPU's context current on it). Not
   while a bake runs: the bake thread reads the desc and glad's pointers. */
static void gpu_toggle(app* a, bool on) {
    demo_scene* s = a->scene;
    if (SDL_AtomicGet(&s->state) == BAKE_RUNNING) return;
    s->use_gpu = on;
    if (on && !s->gpu) {
        ptl_error err;
        SDL_GL_MakeCurrent(a->win, NULL); /* libglvnd: no EGL context while a GLX one is current */
        if (ptl_gpu_create(NULL, &s->gpu, &err) < 0) {
            s->gpu = NULL;
            snprintf(s->gpu_note, sizeof s->gpu_note, "%.150s", err.message);
            fprintf(stderr, "portolan-demo: no GPU decomposition: %s\n", err.message);
        } else {
            snprintf(s->gpu_note, sizeof s->gpu_note, "%s, OpenGL %s", ptl_gpu_renderer(s->gpu), ptl_gpu_version(s->gpu));
        }
        if (SDL_GL_MakeCurrent(a->win, a->ctx) != 0 || !gladLoadGL((GLADloadfunc)SDL_GL_GetProcAddress)) {
            fprintf(stderr, "portolan-demo: the window's OpenGL context is lost: %s\n", SDL_GetError());
            a->quit = true;
            return;
        }
        if (!s->gpu) return;
    }
    demo_scene_bake_start(s);
}

static void handle_event(app* a, const SDL_Event* e) {
    switch (e->type) {
    case SDL_QUIT: a->quit = true; break;
    case SDL_KEYDOWN: {
        SDL_Keycode k = e->key.keysym.sym;
        for (int l = 0; l < L_COUNT; ++l)
            if (k == LAYERS[l].key) a->layer_on[l] = !a->layer_on[l];
        if (k == SDLK_ESCAPE) a->quit = true;
        else if (k == SDLK_h || k == SDLK_F1) a->help = !a->help;
        else if (k == SDLK_TAB) demo_camera_toggle_fly(&a->cam);
        else if (k == SDLK_f) demo_camera_frame(&a->cam, a->scene->bmin, a->scene->bmax);
        else if (k == SDLK_b) demo_scene_bake_start(a->scene);
        else if (k == SDLK_u && !e->key.repeat) gpu_toggle(a, !a->scene->use_gpu);
        else if (k == SDLK_i && !e->key.repeat) obstacle_tool(a, !a->scene->obs.on);
        else if ((k == SDLK_DELETE || k == SDLK_BACKSPACE) && a->scene->obs.on)
            demo_obstacles_remove(a->scene, a->scene->obs.selected);
        else if (k == SDLK_LEFTBRACKET) set_radius(a, a->scene->radius - 0.05f);
        else if (k == SDLK_RIGHTBRACKET) set_radius(a, a->scene->radius + 0.05f);
        else if (k == SDLK_F12) a->want_shot = true;
        else if (k == SDLK_r) a->ceilings = !a->ceilings;
        else if (k == SDLK_v) a->by_area = !a->by_area;
        else if (k == SDLK_k) {
            a->scene->area_filter = (a->scene->area_filter + 1) % 3;
            demo_scene_apply_area_filter(a->scene);
        }
        else if (k == SDLK_o) {
            a->scene->mode = a->scene->mode == PTL_PATH_EXACT ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT;
            demo_scene_update_path(a->scene);
        }
        else if (k == SDLK_x) a->cut = a->cut == a->cut ? NAN : (a->cut_default == a->cut_default ? a->cut_default : a->scene->bmax[1]);
        else if (k == SDLK_PAGEUP || k == SDLK_PAGEDOWN) {
            if (a->cut != a->cut) a->cut = a->scene->bmax[1];
            a->cut += k == SDLK_PAGEUP ? 0.5f : -0.5f;
        }
        else if (k == SDLK_l && !e->key.repeat) {
            /* L: every layer on (the bench's view), and back to the defaults */
            bool all = true;
            for (int l = 0; l < L_COUNT; ++l) all &= a->layer_on[l];
            set_defaults(a, !all);
        }
        break;
    }
    case SDL_MOUSEBUTTONDOWN:
        if (e->button.button == SDL_BUTTON_LEFT) {
            if (in_slider(a, (float)e->button.x, (float)e->button.y)) {
                a->slider_drag = true;
                set_radius(a, ((float)e->button.x - a->slider_x) / SLIDER_W * RADIUS_MAX);
            } else {
                a->ldown = true, a->dragging = false;
                a->down_x = e->button.x, a->down_y = e->button.y;
                float hit[3];
                if (a->scene->obs.on && pick(a, e->button.x, e->button.y, hit)) {
                    const int i = demo_obstacles_at(a->scene, hit);
                    if (i >= 0) a->scene->obs.selected = i, a->scene->obs.dragging = true;
                }
            }
        }
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button == SDL_BUTTON_LEFT) {
            if (a->ldown && !a->dragging && SDL_AtomicGet(&a->scene->state) == BAKE_DONE) click(a, e->button.x, e->button.y);
            a->ldown = a->dragging = a->slider_drag = false;
            a->scene->obs.dragging = false;
        }
        break;
    case SDL_MOUSEMOTION:
        if (a->slider_drag) {
            set_radius(a, ((float)e->motion.x - a->slider_x) / SLIDER_W * RADIUS_MAX);
        } else if (a->ldown) {
            if (abs(e->motion.x - a->down_x) + abs(e->motion.y - a->down_y) > 4) a->dragging = true;
            demo_obstacles* ob = &a->scene->obs;
            if (a->dragging && ob->dragging) { /* moved once a frame (run's loop), to the floor under the mouse */
                if (pick(a, e->motion.x, e->motion.y, ob->move_to)) ob->move_pending = true;
            } else if (a->dragging) {
                demo_camera_orbit(&a->cam, (float)e->motion.xrel, (float)e->motion.yrel);
            }
        } else if (e->motion.state & (SDL_BUTTON_RMASK | SDL_BUTTON_MMASK)) {
            demo_camera_pan(&a->cam, (float)e->motion.xrel, (float)e->motion.yrel, a->height);
        }
        break;
    case SDL_MOUSEWHEEL: demo_camera_zoom(&a->cam, (float)e->wheel.y); break;
    default: break;
    }
}

static void keyboard_move(app* a, double dt) {
    const Uint8* ks = SDL_GetKeyboardState(NULL);
    float ext[3];
    for (int k = 0; k < 3; ++k) ext[k] = a->scene->bmax[k] - a->scene->bmin[k];
    float speed = 0.35f * sqrtf(ext[0] * ext[0] + ext[2] * ext[2]) * (float)dt;
    if (ks[SDL_SCANCODE_LSHIFT] || ks[SDL_SCANCODE_RSHIFT]) speed *= 3;
    float f = (float)(ks[SDL_SCANCODE_W] - ks[SDL_SCANCODE_S]), r = (float)(ks[SDL_SCANCODE_D] - ks[SDL_SCANCODE_A]);
    float u = (float)(ks[SDL_SCANCODE_E] - ks[SDL_SCANCODE_Q]);
    if (f != 0 || r != 0 || u != 0) demo_camera_move(&a->cam, f * speed, r * speed, u * speed);
}

/* ---- Main --------------------------------------------------------------------------------------*/

typedef struct options {
    const char* scene;
    const char* shot;
    int frames;
    int width, height;
    bool has_from, has_to, all;
    float from[3], to[3];
    float radius;
    bool corridor; /* --mode corridor */
    float cut;
    bool has_cut;
    int bench_frames;
    const char* layers; /* --layers KEYS: exactly these layers on (their keys, e.g. "27P") */
    int clicks;         /* --click PX,PY (up to 2): path-tool clicks at window pixels once baked */
    int obstacle_count; /* --obstacle / --obstacle-box / --obstacle-area X,Y,Z (up to 8): dropped once baked */
    float obstacles[8][3];
    int obstacle_shape[8]; /* DEMO_SHAPE_* */
    int click_px[2][2];
    const char* areas[16]; /* --area NAME=ID */
    int area_count;
    int area_filter;       /* --area-filter cost|exclude: the K key's state at the start */
    bool by_area;          /* --by-area */
    bool gpu;              /* --gpu: the first bake's decomposition on the GPU (key U) */
} options;

static void usage(FILE* f) {
    fprintf(f, "usage: portolan-demo [SCENE.obj|.map|.poly|.mesh] [--screenshot FILE.png] [--frames N] [--size WxH]\n"
               "                     [--from X,Y,Z --to X,Y,Z] [--click PX,PY]... [--radius R] [--mode exact|corridor] [--cut Y]\n"
               "                     [--all | --layers KEYS]\n"
               "                     [--bench-frames N] [--area NAME=ID]... [--by-area] [--area-filter cost|exclude] [--gpu]\n"
               "                     [--obstacle X,Y,Z]... [--obstacle-box X,Y,Z]... [--obstacle-area X,Y,Z]...\n"
               "  no SCENE: the built-in generated building; --all: every debugdraw layer on; --layers KEYS: only\n"
               "  the layers of these keys (1 input, 2 voxels, 3 spans, 4 raw contours, 5 contours, 6 notches, 7 cells,\n"
               "  8 walls, 9 portals, 0 links, T tiles, C corridor, P path, N snaps, G queries, M random points);\n"
               "  --cut Y: cut the scene away above height Y (the built-in scene starts cut at 7.7, above its top floor);\n"
               "  --screenshot: render N frames (default 3) after the bake and write the last, then exit;\n"
               "  --click PX,PY: a path-tool click at that window pixel once the bake is done (twice: start, goal);\n"
               "  --bench-frames N: render N frames after the bake and print the median frame time, then exit;\n"
               "  --area NAME=ID: the OBJ group or material NAME bakes as area ID (1..63); --by-area: cells coloured\n"
               "  by area (V); --area-filter: the highest area costs 10 or is excluded (K cycles);\n"
               "  --gpu: the decomposition's closest-element search on the GPU (OpenGL 4.3 through EGL; U toggles);\n"
               "  --obstacle / --obstacle-box X,Y,Z: a cylinder (0.6 m, 2 m high) or a turned box standing at X,Y,Z,\n"
               "  dropped through the scene's tile cache once baked (3D scenes; I: the obstacle tool);\n"
               "  --obstacle-area X,Y,Z: an area volume there instead (a 5 x 5 m box whose floor gets area 7, no geometry\n"
               "  change; cells coloured by area; with --area-filter the path pays for it or goes around).\n");
}

static bool parse_vec3(const char* s, float out[3]) {
    char* e;
    for (int k = 0; k < 3; ++k) {
        out[k] = strtof(s, &e);
        if (e == s || !isfinite(out[k])) return false;
        if (k < 2) {
            if (*e != ',') return false;
            s = e + 1;
        }
    }
    return *e == '\0';
}

static int parse_args(int argc, char** argv, options* o) {
    memset(o, 0, sizeof *o);
    o->frames = 3, o->width = 1280, o->height = 720;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--all")) {
            o->all = true;
        } else if (!strcmp(a, "--by-area")) {
            o->by_area = true;
        } else if (!strcmp(a, "--gpu")) {
            o->gpu = true;
        } else if (a[0] == '-' && a[1] == '-') {
            if (!v) return fprintf(stderr, "portolan-demo: %s needs a value\n", a), 2;
            ++i;
            if (!strcmp(a, "--screenshot")) o->shot = v;
            else if (!strcmp(a, "--area")) {
                const char* eq = strchr(v, '=');
                int id = eq ? atoi(eq + 1) : 0;
                if (!eq || eq == v || eq - v >= 64 || id < 1 || id > 63 || o->area_count == 16)
                    return fprintf(stderr, "portolan-demo: --area needs NAME=ID, ID in 1..63 (at most 16)\n"), 2;
                o->areas[o->area_count++] = v;
            } else if (!strcmp(a, "--area-filter")) {
                if (strcmp(v, "cost") && strcmp(v, "exclude"))
                    return fprintf(stderr, "portolan-demo: --area-filter is cost or exclude\n"), 2;
                o->area_filter = !strcmp(v, "cost") ? 1 : 2;
            }
            else if (!strcmp(a, "--frames")) {
                o->frames = atoi(v);
                if (o->frames < 1) return fprintf(stderr, "portolan-demo: --frames needs N >= 1\n"), 2;
            } else if (!strcmp(a, "--bench-frames")) {
                o->bench_frames = atoi(v);
                if (o->bench_frames < 1) return fprintf(stderr, "portolan-demo: --bench-frames needs N >= 1\n"), 2;
            } else if (!strcmp(a, "--size")) {
                if (sscanf(v, "%dx%d", &o->width, &o->height) != 2 || o->width < 64 || o->height < 64 ||
                    o->width > 8192 || o->height > 8192)
                    return fprintf(stderr, "portolan-demo: --size is WxH (64..8192)\n"), 2;
            } else if (!strcmp(a, "--obstacle") || !strcmp(a, "--obstacle-box") || !strcmp(a, "--obstacle-area")) {
                if (o->obstacle_count == 8 || !parse_vec3(v, o->obstacles[o->obstacle_count]))
                    return fprintf(stderr, "portolan-demo: %s is X,Y,Z (at most 8)\n", a), 2;
                o->obstacle_shape[o->obstacle_count++] = !strcmp(a, "--obstacle") ? DEMO_SHAPE_CYLINDER
                                                         : !strcmp(a, "--obstacle-box") ? DEMO_SHAPE_BOX : DEMO_SHAPE_AREA;
                if (!strcmp(a, "--obstacle-area")) o->by_area = true;
            } else if (!strcmp(a, "--from")) {
                if (!parse_vec3(v, o->from)) return fprintf(stderr, "portolan-demo: --from is X,Y,Z\n"), 2;
                o->has_from = true;
            } else if (!strcmp(a, "--to")) {
                if (!parse_vec3(v, o->to)) return fprintf(stderr, "portolan-demo: --to is X,Y,Z\n"), 2;
                o->has_to = true;
            } else if (!strcmp(a, "--layers")) {
                for (const char* c = v; *c; ++c) {
                    bool known = false;
                    for (int l = 0; l < L_COUNT; ++l) known |= (char)toupper((unsigned char)*c) == LAYERS[l].label[0];
                    if (!known) return fprintf(stderr, "portolan-demo: --layers takes layer keys (1234567890TCPN)\n"), 2;
                }
                o->layers = v;
            } else if (!strcmp(a, "--click")) {
                if (o->clicks == 2 || sscanf(v, "%d,%d", &o->click_px[o->clicks][0], &o->click_px[o->clicks][1]) != 2)
                    return fprintf(stderr, "portolan-demo: --click is PX,PY (at most twice)\n"), 2;
                o->clicks++;
            } else if (!strcmp(a, "--cut")) {
                o->cut = strtof(v, NULL);
                if (!isfinite(o->cut)) return fprintf(stderr, "portolan-demo: --cut needs a height\n"), 2;
                o->has_cut = true;
            } else if (!strcmp(a, "--mode")) {
                if (strcmp(v, "exact") && strcmp(v, "corridor"))
                    return fprintf(stderr, "portolan-demo: --mode is exact or corridor\n"), 2;
                o->corridor = !strcmp(v, "corridor");
            } else if (!strcmp(a, "--radius")) {
                o->radius = strtof(v, NULL);
                if (!(o->radius >= 0 && o->radius <= RADIUS_MAX))
                    return fprintf(stderr, "portolan-demo: --radius is 0..%g\n", (double)RADIUS_MAX), 2;
            } else {
                usage(stderr);
                return fprintf(stderr, "portolan-demo: unknown option '%s'\n", a), 2;
            }
        } else if (!o->scene) {
            o->scene = a;
        } else {
            usage(stderr);
            return fprintf(stderr, "portolan-demo: one scene at a time ('%s')\n", a), 2;
        }
    }
    if (o->has_from != o->has_to) return fprintf(stderr, "portolan-demo: --from and --to go together\n"), 2;
    return 0;
}

static bool open_window(app* a, const options* o) {
    /* No display and no driver asked for: render headless (SDL's offscreen driver, EGL) */
    const char* drv = getenv("SDL_VIDEODRIVER");
    const char* disp = getenv("DISPLAY");
    const char* wl = getenv("WAYLAND_DISPLAY");
    if ((!drv || !*drv) && (!disp || !*disp) && (!wl || !*wl)) {
        setenv("SDL_VIDEODRIVER", "offscreen", 1);
        a->headless = true;
    } else if (drv && !strcmp(drv, "offscreen")) {
        a->headless = true;
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "portolan-demo: SDL_Init: %s\n", SDL_GetError());
        return false;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    a->win = SDL_CreateWindow("Portolan demo", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, o->width, o->height,
                              SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!a->win) {
        fprintf(stderr, "portolan-demo: SDL_CreateWindow (%s driver): %s\n", SDL_GetCurrentVideoDriver(), SDL_GetError());
        return false;
    }
    a->ctx = SDL_GL_CreateContext(a->win);
    if (!a->ctx) {
        fprintf(stderr, "portolan-demo: no OpenGL 3.3 core context (%s driver): %s\n", SDL_GetCurrentVideoDriver(),
                SDL_GetError());
        return false;
    }
    if (!gladLoadGL((GLADloadfunc)SDL_GL_GetProcAddress)) {
        fprintf(stderr, "portolan-demo: cannot load the OpenGL functions\n");
        return false;
    }
    /* no vsync when measuring or rendering headless */
    SDL_GL_SetSwapInterval(o->bench_frames || o->shot || a->headless ? 0 : 1);
    snprintf(a->renderer, sizeof a->renderer, "%.40s, %.40s (%s)", (const char*)glGetString(GL_RENDERER),
             (const char*)glGetString(GL_VERSION), SDL_GetCurrentVideoDriver());
    ptl_error err;
    if (ptl_dd_gl_create(NULL, &a->gl, &err) < 0) {
        fprintf(stderr, "portolan-demo: %s\n", err.message);
        return false;
    }
    a->sink = ptl_dd_gl_sink(a->gl);
    if (!demo_ui_init(&a->ui, a->gl)) return false;
    printf("portolan-demo: OpenGL %s\n", a->renderer);
    return true;
}

static int cmp_double(const void* x, const void* y) {
    double p = *(const double*)x, q = *(const double*)y;
    return (p > q) - (p < q);
}

static int run(app* a, options* o) {
    demo_scene* s = a->scene;
    demo_camera_frame(&a->cam, s->bmin, s->bmax);
    s->radius = o->radius;
    s->mode = o->corridor ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT;
    /* the built-in building has a roof: look in through a cut 1.5 m above its top floor (6.2 m) */
    a->cut_default = s->builtin ? 7.7f : NAN;
    a->cut = o->has_cut ? o->cut : a->cut_default;
    if (o->has_from) {
        memcpy(s->start, o->from, sizeof s->start), memcpy(s->start_click, o->from, sizeof s->start);
        memcpy(s->goal, o->to, sizeof s->goal), memcpy(s->goal_click, o->to, sizeof s->goal);
        s->has_start = s->has_goal = true;
    }
    if (o->gpu) {
        gpu_toggle(a, true); /* starts the bake, or says why there is no GPU */
        if (!s->gpu) return 1;
        if (a->quit) return 1;
    } else if (!demo_scene_bake_start(s)) {
        return 1;
    }
    int ready_frames = 0, exit_code = 0;
    double* bench = o->bench_frames ? calloc((size_t)o->bench_frames * 2, sizeof(double)) : NULL;
    double* emit = bench ? bench + o->bench_frames : NULL;
    int bench_n = 0;
    double last = now_ms();
    while (!a->quit) {
        double t0 = now_ms(), dt = (t0 - last) / 1000.0;
        last = t0;
        SDL_Event e;
        while (SDL_PollEvent(&e)) handle_event(a, &e);
        if (s->obs.move_pending) { /* a drag's last position this frame */
            s->obs.move_pending = false;
            demo_obstacles_move(s, s->obs.selected, s->obs.move_to);
        }
        keyboard_move(a, dt);
        demo_scene_poll(s);
        int state = SDL_AtomicGet(&s->state);
        if (state == BAKE_FAILED && (o->shot || o->bench_frames)) {
            exit_code = 1;
            break;
        }
        SDL_GL_GetDrawableSize(a->win, &a->width, &a->height);
        glViewport(0, 0, a->width, a->height);
        glClearColor(0.16f, 0.18f, 0.22f, 1.0f);
        glClearDepth(1.0);
        glDepthMask(GL_TRUE);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        demo_camera_update(&a->cam, a->width, a->height);
        draw_scene(a);
        draw_ui(a);
        bool done = state == BAKE_DONE && s->nm;
        if (done && ready_frames == 0 && o->obstacle_count) {
            /* scripted obstacles (--obstacle, --obstacle-box): the tile cache's navmesh with them */
            for (int i = 0; i < o->obstacle_count; ++i)
                if (!demo_obstacles_add(s, o->obstacles[i], o->obstacle_shape[i])) exit_code = 1;
        }
        if (done && ready_frames == 0 && o->clicks) {
            /* scripted clicks (the camera is set: the first frame after the bake was drawn) */
            for (int c = 0; c < o->clicks; ++c) click(a, o->click_px[c][0], o->click_px[c][1]);
            printf("portolan-demo: clicked %d point%s: %s\n", o->clicks, o->clicks > 1 ? "s" : "",
                   a->note[0] ? a->note : "on the scene");
        }
        if (done) ++ready_frames;
        if (a->want_shot) {
            a->want_shot = false;
            write_screenshot(a, "portolan-demo.png");
        }
        if (o->shot && done && ready_frames >= o->frames + (o->bench_frames ? o->bench_frames : 0)) {
            if (!write_screenshot(a, o->shot)) exit_code = 1;
            a->quit = true;
        }
        SDL_GL_SwapWindow(a->win);
        glFinish(); /* the frame's time includes the rendering, not just its submission */
        double t1 = now_ms();
        a->frame_ms[a->frame_n++ % 120] = t1 - t0;
        if (a->frame_n >= 240) a->frame_n = 120 + a->frame_n % 120;
        if (bench && done && ready_frames > 2) { /* skip the first frames (buffers grow, shaders warm up) */
            emit[bench_n] = a->emit_ms;
            bench[bench_n++] = t1 - t0;
            if (bench_n == o->bench_frames) {
                qsort(bench, (size_t)bench_n, sizeof(double), cmp_double);
                qsort(emit, (size_t)bench_n, sizeof(double), cmp_double);
                double sum = 0;
                for (int i = 0; i < bench_n; ++i) sum += bench[i];
                printf("portolan-demo: frame time over %d frames at %dx%d, %u vertices drawn: median %.2f ms, "
                       "p90 %.2f ms, mean %.2f ms, min %.2f ms; of which debugdraw calls into the sink (CPU): "
                       "median %.2f ms (%s)\n",
                       bench_n, a->width, a->height, a->last_vertices, bench[bench_n / 2], bench[bench_n * 9 / 10],
                       sum / bench_n, bench[0], emit[bench_n / 2], a->renderer);
                fflush(stdout);
                if (!o->shot) a->quit = true;
                free(bench);
                bench = NULL;
            }
        }
    }
    free(bench);
    return exit_code;
}

int main(int argc, char** argv) {
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;
    app a;
    memset(&a, 0, sizeof a);
    a.help = true;
    set_defaults(&a, o.all);
    if (o.layers)
        for (int l = 0; l < L_COUNT; ++l)
            a.layer_on[l] = strchr(o.layers, LAYERS[l].label[0]) ||
                            strchr(o.layers, tolower((unsigned char)LAYERS[l].label[0]));
    a.scene = calloc(1, sizeof *a.scene);
    if (!a.scene) return 1;
    if (!demo_scene_load(a.scene, o.scene)) return 1;
    demo_scene* sc = a.scene; /* the bake's area table (--area NAME=ID), copied into the scene */
    for (int i = 0; i < o.area_count; ++i) {
        const char* eq = strchr(o.areas[i], '=');
        snprintf(sc->area_text[i], sizeof sc->area_text[i], "%.*s", (int)(eq - o.areas[i]), o.areas[i]);
        sc->area_names[i] = (ptl_area_name){.name = sc->area_text[i], .area = (uint8_t)atoi(eq + 1)};
    }
    sc->area_name_count = (uint32_t)o.area_count; /* demo_scene_bake_start puts them in the desc */
    sc->area_filter = o.area_filter;
    a.by_area = o.by_area;
    if (!open_window(&a, &o)) {
        demo_scene_free(a.scene);
        return 1;
    }
    if (a.headless && !o.shot && !o.bench_frames) {
        o.shot = "portolan-demo.png";
        printf("portolan-demo: no display: rendering headless (SDL offscreen driver) to %s\n", o.shot);
    }
    rc = run(&a, &o);
    demo_ui_free(&a.ui);
    ptl_dd_gl_destroy(a.gl);
    SDL_GL_DeleteContext(a.ctx);
    demo_scene_gpu_free(a.scene); /* before SDL_Quit, which may terminate the EGL display */
    SDL_DestroyWindow(a.win);
    SDL_Quit();
    demo_scene_free(a.scene);
    free(a.scene);
    return rc;
}
