/* `portolan draw`: a top-view PNG of a navmesh (cells filled, portals light, walls dark) and,
   optionally, a path with its start and goal marked: the quickest way to see a wrong cell or a path
   through a wall. A multi-storey mesh seen from above overlays its storeys, so `--layer N` keeps
   one layer of the bake and `--band Y0,Y1` the cells whose heights meet a band (one storey); cells
   are filled from the lowest up, so without them the upper storeys are on top. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_WINDOWS_UTF8 0
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* The narrowest --window side, in metres: a micrometre, already finer than float coordinates
   a few metres from the origin (0.5 um apart at 4 m). */
#define WINDOW_MIN 1e-6

typedef struct canvas {
    int w, h;
    unsigned char* px; /* RGB */
    double x0, z0, scale; /* world -> pixel: (x - x0) * scale, (z - z0) * scale */
} canvas;

/* A pixel coordinate as an int clamped to [lo, hi]; NaN gives lo. Every double -> int conversion
   of the rasterizer goes through here: an out-of-range conversion is undefined behaviour, and an
   optimizer that may assume it away also drops the bounds checks that follow it. */
static int clamp_px(double v, int lo, int hi) {
    if (!(v >= lo)) return lo;
    if (!(v <= hi)) return hi;
    return (int)v;
}

static void put(canvas* c, int x, int y, const unsigned char rgb[3]) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h) return;
    memcpy(c->px + 3 * ((size_t)y * c->w + x), rgb, 3);
}

static void line(canvas* c, double ax, double az, double bx, double bz, const unsigned char rgb[3], int thick) {
    double x0 = (ax - c->x0) * c->scale, y0 = (az - c->z0) * c->scale;
    double x1 = (bx - c->x0) * c->scale, y1 = (bz - c->z0) * c->scale;
    /* Clip to the canvas (with a margin for the thickness) so that a zoomed --window costs the
       pixels it shows, not the length of the segment (Liang-Barsky). */
    double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0, m = thick + 1;
    const double pq[4][2] = {{-dx, x0 + m}, {dx, c->w + m - x0}, {-dy, y0 + m}, {dy, c->h + m - y0}};
    for (int k = 0; k < 4; ++k) {
        if (pq[k][0] == 0) {
            if (pq[k][1] < 0) return;
            continue;
        }
        double r = pq[k][1] / pq[k][0];
        if (pq[k][0] < 0) t0 = fmax(t0, r);
        else t1 = fmin(t1, r);
    }
    if (t0 > t1) return;
    x1 = x0 + t1 * dx, y1 = y0 + t1 * dy, x0 = x0 + t0 * dx, y0 = y0 + t0 * dy;
    /* clipped, the segment is at most the canvas's diagonal plus the margins long */
    int steps = clamp_px(ceil(fmax(fabs(x1 - x0), fabs(y1 - y0))), 0, 2 * (c->w + c->h) + 4 * m) + 1;
    for (int i = 0; i <= steps; ++i) {
        double t = (double)i / steps;
        int x = clamp_px(floor(x0 + (x1 - x0) * t), -m - 1, c->w + m);
        int y = clamp_px(floor(y0 + (y1 - y0) * t), -m - 1, c->h + m);
        for (int dy = -thick / 2; dy <= thick / 2; ++dy)
            for (int dx = -thick / 2; dx <= thick / 2; ++dx) put(c, x + dx, y + dy, rgb);
    }
}

/* Scanline fill of a polygon (even-odd; cells are convex or near-convex). */
static void fill_cell(canvas* c, const ptl_navmesh* nm, const ptl_cell_view* cv, const unsigned char rgb[3]) {
    double ymin = INFINITY, ymax = -INFINITY;
    for (uint32_t i = 0; i < cv->vert_count; ++i) {
        double y = (ptl_navmesh_vert(nm, cv->verts[i])[2] - c->z0) * c->scale;
        ymin = fmin(ymin, y), ymax = fmax(ymax, y);
    }
    for (int y = clamp_px(floor(ymin), 0, c->h), y1 = clamp_px(ceil(ymax), -1, c->h - 1); y <= y1; ++y) {
        double sy = y + 0.5, xs[64];
        int n = 0;
        for (uint32_t i = 0; i < cv->vert_count && n < 64; ++i) {
            const float* a = ptl_navmesh_vert(nm, cv->verts[i]);
            const float* b = ptl_navmesh_vert(nm, cv->verts[(i + 1) % cv->vert_count]);
            double ay = (a[2] - c->z0) * c->scale, by = (b[2] - c->z0) * c->scale;
            if ((ay <= sy) == (by <= sy)) continue;
            double ax = (a[0] - c->x0) * c->scale, bx = (b[0] - c->x0) * c->scale;
            xs[n++] = ax + (sy - ay) / (by - ay) * (bx - ax);
        }
        for (int i = 1; i < n; ++i)
            for (int j = i; j > 0 && xs[j - 1] > xs[j]; --j) {
                double t = xs[j]; xs[j] = xs[j - 1]; xs[j - 1] = t;
            }
        for (int i = 0; i + 1 < n; i += 2)
            for (int x = clamp_px(ceil(xs[i] - 0.5), 0, c->w), x1 = clamp_px(floor(xs[i + 1] - 0.5), -1, c->w - 1);
                 x <= x1; ++x)
                put(c, x, y, rgb);
    }
}

/* A filled disc with a dark rim: the start and goal markers, visible on any cell colour. */
static void marker(canvas* c, double wx, double wz, int radius, const unsigned char rgb[3]) {
    const unsigned char rim[3] = {10, 10, 10}, halo[3] = {255, 255, 255};
    double cx = (wx - c->x0) * c->scale, cy = (wz - c->z0) * c->scale;
    /* a point off the picture (a --from far outside a --window) leaves no mark */
    if (!(cx >= -radius - 4 && cx <= c->w + radius + 4 && cy >= -radius - 4 && cy <= c->h + radius + 4)) return;
    for (int dy = -radius - 3; dy <= radius + 3; ++dy)
        for (int dx = -radius - 3; dx <= radius + 3; ++dx) {
            double r = sqrt((double)dx * dx + (double)dy * dy);
            int x = (int)floor(cx) + dx, y = (int)floor(cy) + dy;
            if (r <= radius - 2) put(c, x, y, rgb);
            else if (r <= radius) put(c, x, y, rim);
            else if (r <= radius + 2) put(c, x, y, halo);
        }
}

/* A cell's height range and mean over its vertices. */
typedef struct cell_height {
    float lo, hi, mean;
    uint32_t index;
} cell_height;

static int by_mean_height(const void* a, const void* b) {
    const cell_height *x = a, *y = b;
    if (x->mean != y->mean) return x->mean < y->mean ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

typedef struct draw_opts {
    const char *nav, *out;
    unsigned size, layer;
    float from[3], to[3];
    bool has_from, has_to, has_window, has_layer, has_band;
    double win[4], band[2];
    double radius; /* --radius: the path of an agent of that radius, its band drawn */
} draw_opts;

/* --window X0,Z0,X1,Z1 into o->win; 0 or a usage error. */
static int parse_window(const char* v, draw_opts* o) {
    double* win = o->win;
    char tail;
    /* Coordinates within float range (a mesh has nothing beyond) and sides of at least
       WINDOW_MIN keep every pixel coordinate (world * at most 16384 / WINDOW_MIN) finite. */
    bool in_range = sscanf(v, "%lf,%lf,%lf,%lf%c", &win[0], &win[1], &win[2], &win[3], &tail) == 4;
    for (int k = 0; k < 4 && in_range; ++k) in_range = fabs(win[k]) <= FLT_MAX;
    if (!in_range || !(win[2] > win[0]) || !(win[3] > win[1]))
        return cli_error(EXIT_USAGE, "--window needs X0,Z0,X1,Z1 with X0 < X1 and Z0 < Z1 (finite, within float range)");
    /* (a micrometre typed in decimals, 3 to 3.000001, is a little less in binary) */
    if (!(win[2] - win[0] >= 0.999 * WINDOW_MIN) || !(win[3] - win[1] >= 0.999 * WINDOW_MIN))
        return cli_error(EXIT_USAGE, "--window %s: X1 - X0 and Z1 - Z0 must be at least %g m", v, WINDOW_MIN);
    o->has_window = true;
    return EXIT_OK;
}

/* The command line into `o`; EXIT_OK or a usage error (reported). */
static int parse_draw(int argc, char** argv, draw_opts* o) {
    memset(o, 0, sizeof *o);
    o->size = 1024;
    for (int i = 0; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-' || !a[1]) {
            if (o->nav) return cli_error(EXIT_USAGE, "unexpected argument '%s'", a);
            o->nav = a;
            continue;
        }
        static const char* const VALUED[] = {"-o", "--size", "--from", "--to", "--window", "--layer", "--band", "--radius", NULL};
        if (!cli_is_one_of(a, VALUED)) return cli_error(EXIT_USAGE, "unknown option '%s'", a);
        if (!v) return cli_error(EXIT_USAGE, "%s needs a value", a);
        ++i;
        if (!strcmp(a, "-o")) o->out = v;
        else if (!strcmp(a, "--size")) {
            if (!cli_parse_uint(v, &o->size) || o->size < 16 || o->size > 16384)
                return cli_error(EXIT_USAGE, "--size is 16..16384");
        } else if (!strcmp(a, "--from")) {
            if (!cli_parse_vec3(v, o->from)) return cli_error(EXIT_USAGE, "--from needs X,Y,Z");
            o->has_from = true;
        } else if (!strcmp(a, "--window")) {
            int r = parse_window(v, o);
            if (r) return r;
        } else if (!strcmp(a, "--layer")) {
            if (!cli_parse_uint(v, &o->layer)) return cli_error(EXIT_USAGE, "--layer needs a layer number (0, 1, ...)");
            o->has_layer = true;
        } else if (!strcmp(a, "--band")) {
            char tail;
            if (sscanf(v, "%lf,%lf%c", &o->band[0], &o->band[1], &tail) != 2 || !isfinite(o->band[0]) ||
                !isfinite(o->band[1]) || !(o->band[0] <= o->band[1]))
                return cli_error(EXIT_USAGE, "--band needs Y0,Y1 with Y0 <= Y1");
            o->has_band = true;
        } else if (!strcmp(a, "--to")) {
            if (!cli_parse_vec3(v, o->to)) return cli_error(EXIT_USAGE, "--to needs X,Y,Z");
            o->has_to = true;
        } else if (!strcmp(a, "--radius")) {
            if (!cli_parse_double(v, &o->radius) || o->radius < 0 || o->radius > 1e9)
                return cli_error(EXIT_USAGE, "--radius needs a number in 0..1e9");
        }
    }
    if (!o->nav) return cli_error(EXIT_USAGE, "missing NAV.ptl (portolan draw --help)");
    if (!o->out) return cli_error(EXIT_USAGE, "missing -o OUT.png");
    if (o->has_from != o->has_to) return cli_error(EXIT_USAGE, "give both --from and --to");
    if (o->has_layer && o->has_band) return cli_error(EXIT_USAGE, "give --layer or --band, not both");
    return EXIT_OK;
}

/* Cells in the order they are filled (lowest first, into `order`) and whether each is drawn
   (`shown`, by --layer or --band). Returns how many are shown; with --layer, o->band becomes the
   shown cells' heights, so that the path legs outside them are dimmed like a band's. */
static uint32_t pick_cells(const ptl_navmesh* nm, uint32_t cell_count, draw_opts* o, cell_height* order, bool* shown) {
    double ylo = INFINITY, yhi = -INFINITY; /* heights of the shown cells */
    uint32_t shown_count = 0;
    for (uint32_t i = 0; i < cell_count; ++i) {
        ptl_cell_view cv;
        ptl_navmesh_get_cell(nm, i, &cv);
        cell_height h = {INFINITY, -INFINITY, 0, i};
        for (uint32_t k = 0; k < cv.vert_count; ++k) {
            float y = ptl_navmesh_vert(nm, cv.verts[k])[1];
            h.lo = fminf(h.lo, y), h.hi = fmaxf(h.hi, y), h.mean += y / (float)cv.vert_count;
        }
        order[i] = h;
        shown[i] = o->has_layer ? cv.layer == o->layer : o->has_band ? h.hi >= o->band[0] && h.lo <= o->band[1] : true;
        if (!shown[i]) continue;
        shown_count++;
        ylo = fmin(ylo, h.lo), yhi = fmax(yhi, h.hi);
    }
    qsort(order, cell_count, sizeof *order, by_mean_height);
    if ((o->has_layer || o->has_band) && shown_count == 0) {
        if (o->has_layer) fprintf(stderr, "portolan: draw: layer %u has no cell\n", o->layer);
        else fprintf(stderr, "portolan: draw: no cell meets the band %g..%g\n", o->band[0], o->band[1]);
    }
    if (o->has_layer && shown_count) o->band[0] = ylo, o->band[1] = yhi;
    return shown_count;
}

/* The picture shows the mesh's bounds (the same for every layer or band, so that pictures of two
   storeys line up), or the --window rectangle of the x-z plane. Sets up `c` without pixels; false
   when the bounds cannot be drawn (reported). */
static bool frame_canvas(const ptl_navmesh_info* in, const draw_opts* o, canvas* c) {
    double bx0 = in->bmin[0], bz0 = in->bmin[2], bx1 = in->bmax[0], bz1 = in->bmax[2];
    if (o->has_window) bx0 = o->win[0], bz0 = o->win[1], bx1 = o->win[2], bz1 = o->win[3];
    double ww = fmax(bx1 - bx0, WINDOW_MIN), wh = fmax(bz1 - bz0, WINDOW_MIN);
    c->scale = (o->size - 8) / fmax(ww, wh);
    c->w = clamp_px(ceil(ww * c->scale), 1, (int)o->size) + 8;
    c->h = clamp_px(ceil(wh * c->scale), 1, (int)o->size) + 8;
    c->x0 = bx0 - 4 / c->scale;
    c->z0 = bz0 - 4 / c->scale;
    c->px = NULL;
    if (!isfinite(c->scale) || !(c->scale > 0) || !isfinite(c->x0) || !isfinite(c->z0)) {
        cli_error(EXIT_FAIL, "%s: bounds (%g, %g)..(%g, %g) cannot be drawn", o->nav, bx0, bz0, bx1, bz1);
        return false;
    }
    return true;
}

/* The shown cells filled (lowest first), then their walls dark and their portals light. */
static void draw_cells(canvas* c, const ptl_navmesh* nm, uint32_t cell_count, const cell_height* order,
                       const bool* shown) {
    for (uint32_t j = 0; j < cell_count; ++j) {
        uint32_t i = order[j].index;
        if (!shown[i]) continue;
        ptl_cell_view cv;
        ptl_navmesh_get_cell(nm, i, &cv);
        uint32_t hsh = i * 2654435761u;
        unsigned char rgb[3] = {(unsigned char)(120 + (hsh & 63)), (unsigned char)(160 + ((hsh >> 8) & 63)),
                                (unsigned char)(150 + ((hsh >> 16) & 63))};
        fill_cell(c, nm, &cv, rgb);
    }
    const unsigned char portal[3] = {235, 235, 220}, wall[3] = {10, 10, 10};
    int thick = c->scale >= 6 ? 2 : 1;
    for (uint32_t j = 0; j < cell_count; ++j) {
        uint32_t i = order[j].index;
        if (!shown[i]) continue;
        ptl_cell_view cv;
        ptl_navmesh_get_cell(nm, i, &cv);
        for (uint32_t k = 0; k < cv.vert_count; ++k) {
            const float* a = ptl_navmesh_vert(nm, cv.verts[k]);
            const float* b = ptl_navmesh_vert(nm, cv.verts[(k + 1) % cv.vert_count]);
            bool is_wall = cv.neighbors[k] == PTL_NONE;
            /* each portal once; one to a cell not drawn is drawn from this side */
            if (!is_wall && cv.neighbors[k] < i && shown[cv.neighbors[k]]) continue;
            line(c, a[0], a[2], b[0], b[2], is_wall ? wall : portal, is_wall ? thick + 1 : 1);
        }
    }
}

/* The path from --from to --to, start and goal marked. With `dim` (--band, or --layer with cells
   shown), the legs outside o->band are drawn dim: they run on storeys not shown. */
static void draw_path(canvas* c, const ptl_navmesh* nm, const draw_opts* o, bool dim) {
    ptl_query* q;
    if (ptl_query_create(nm, NULL, &q) < 0) return;
    static float pts[3 * 4096];
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.start, o->from, sizeof o->from);
    memcpy(req.goal, o->to, sizeof o->to);
    req.follow_surface = true; /* a leg's band is the height of the ground under it */
    req.radius = (float)o->radius;
    ptl_path_result res;
    memset(&res, 0, sizeof res);
    res.points = pts;
    res.point_capacity = 4096;
    ptl_query_find_path(q, &req, &res);
    const unsigned char path_rgb[3] = {220, 30, 30}, dim_rgb[3] = {120, 60, 60};
    int thick = c->scale >= 6 ? 2 : 1;
    for (uint32_t k = 0; k + 1 < res.point_count; ++k) {
        bool in_band = !dim || (fmax(pts[3 * k + 1], pts[3 * k + 4]) >= o->band[0] &&
                                fmin(pts[3 * k + 1], pts[3 * k + 4]) <= o->band[1]);
        line(c, pts[3 * k], pts[3 * k + 2], pts[3 * k + 3], pts[3 * k + 5], in_band ? path_rgb : dim_rgb,
             in_band ? thick + 2 : thick);
    }
    if (res.found && o->radius > 0) {
        /* the band the agent's disc sweeps: each segment's sides, and the disc at both ends */
        const unsigned char band_rgb[3] = {40, 170, 230};
        const double r = o->radius;
        for (uint32_t k = 0; k + 1 < res.point_count; ++k) {
            double dx = pts[3 * k + 3] - pts[3 * k], dz = pts[3 * k + 5] - pts[3 * k + 2], len = sqrt(dx * dx + dz * dz);
            if (!(len > 0)) continue;
            double nx = -dz / len * r, nz = dx / len * r;
            for (int side = -1; side <= 1; side += 2)
                line(c, pts[3 * k] + side * nx, pts[3 * k + 2] + side * nz, pts[3 * k + 3] + side * nx, pts[3 * k + 5] + side * nz,
                     band_rgb, 1);
        }
        for (int e = 0; e < 2; ++e) {
            const float* p = &pts[e ? 3 * (res.point_count - 1) : 0];
            for (int k = 0; k < 48; ++k) {
                double a0 = k * 6.283185307179586 / 48, a1 = (k + 1) * 6.283185307179586 / 48;
                line(c, p[0] + r * cos(a0), p[2] + r * sin(a0), p[0] + r * cos(a1), p[2] + r * sin(a1), band_rgb, 1);
            }
        }
    }
    if (!res.found) fprintf(stderr, "portolan: draw: no path between the given points\n");
    /* start and goal: where the path begins and ends (the snapped points), else as given */
    const float* s0 = res.found && res.point_count ? &pts[0] : o->from;
    const float* g0 = res.found && res.point_count ? &pts[3 * (res.point_count - 1)] : o->to;
    int radius = (int)fmax(6, fmin(c->w, c->h) / 80);
    const unsigned char start_rgb[3] = {40, 200, 60}, goal_rgb[3] = {40, 90, 230};
    marker(c, s0[0], s0[2], radius, start_rgb);
    marker(c, g0[0], g0[2], radius, goal_rgb);
    ptl_query_destroy(q);
}

/* Encoded in memory and written here: stbi_write_png reports a failed open but not a failed write
   (a full disk, /dev/full). */
static int write_png(const canvas* c, const char* out) {
    stbi_flip_vertically_on_write(1); /* z grows upwards in the picture, like the math plane */
    int png_size = 0;
    unsigned char* png = stbi_write_png_to_mem(c->px, c->w * 3, c->w, c->h, 3, &png_size);
    int wr = png ? cli_write_file(out, png, (size_t)png_size) : cli_error(EXIT_FAIL, "%s: out of memory encoding the PNG", out);
    STBIW_FREE(png);
    return wr;
}

int cli_draw(int argc, char** argv) {
    draw_opts o;
    int code = parse_draw(argc, argv, &o);
    if (code) return code;
    ptl_navmesh* nm;
    ptl_error err;
    if (ptl_navmesh_load_file(o.nav, NULL, &nm, &err) < 0) return cli_error(EXIT_FAIL, "%s", err.message);
    ptl_navmesh_info in;
    ptl_navmesh_get_info(nm, &in);
    if (o.has_layer && o.layer >= in.layer_count) {
        ptl_navmesh_destroy(nm);
        return cli_error(EXIT_USAGE, "--layer %u: %s has layers 0..%u", o.layer, o.nav, in.layer_count ? in.layer_count - 1 : 0);
    }
    cell_height* order = malloc(((size_t)in.cell_count + 1) * sizeof *order);
    bool* shown = malloc((size_t)in.cell_count + 1);
    canvas c = {0};
    if (!order || !shown) code = cli_error(EXIT_FAIL, "out of memory");
    uint32_t shown_count = code ? 0 : pick_cells(nm, in.cell_count, &o, order, shown);
    if (!code && !frame_canvas(&in, &o, &c)) code = EXIT_FAIL;
    if (!code && !(c.px = malloc((size_t)c.w * c.h * 3))) code = cli_error(EXIT_FAIL, "out of memory");
    if (!code) {
        memset(c.px, 40, (size_t)c.w * c.h * 3);
        draw_cells(&c, nm, in.cell_count, order, shown);
        if (o.has_from) draw_path(&c, nm, &o, o.has_band || (o.has_layer && shown_count));
        code = write_png(&c, o.out);
    }
    free(c.px);
    free(order), free(shown);
    ptl_navmesh_destroy(nm);
    return code;
}
