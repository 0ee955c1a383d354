/* The demo's camera (cglm): orbit around a target, or fly from an eye; y up. */
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "demo.h"

/* The unit vector the camera looks along. */
static void forward(const demo_camera* c, vec3 f) {
    f[0] = cosf(c->pitch) * sinf(c->yaw);
    f[1] = -sinf(c->pitch);
    f[2] = -cosf(c->pitch) * cosf(c->yaw);
}

static void eye_of(const demo_camera* c, vec3 eye) {
    if (c->fly) {
        glm_vec3_copy((float*)c->eye, eye);
        return;
    }
    vec3 f;
    forward(c, f);
    for (int k = 0; k < 3; ++k) eye[k] = c->target[k] - f[k] * c->distance;
}

void demo_camera_frame(demo_camera* c, const float bmin[3], const float bmax[3]) {
    memset(c, 0, sizeof *c);
    float ext[3];
    for (int k = 0; k < 3; ++k) c->target[k] = 0.5f * (bmin[k] + bmax[k]), ext[k] = bmax[k] - bmin[k];
    float diag = sqrtf(ext[0] * ext[0] + ext[1] * ext[1] + ext[2] * ext[2]);
    if (!(diag > 0)) diag = 10;
    c->fov = glm_rad(45.0f);
    c->yaw = glm_rad(-30.0f);
    c->pitch = glm_rad(52.0f);
    /* the bounding sphere fits the vertical field of view */
    c->distance = 0.5f * diag / sinf(0.5f * c->fov);
    eye_of(c, c->eye);
}

void demo_camera_update(demo_camera* c, int width, int height) {
    vec3 eye, f, center;
    eye_of(c, eye);
    forward(c, f);
    glm_vec3_add(eye, f, center);
    mat4 view, proj, vp;
    glm_lookat(eye, center, (vec3){0, 1, 0}, view);
    /* near and far from the distance: a deep range keeps the depth test sharp on large scenes */
    float d = c->fly ? 10.0f : c->distance;
    c->near_z = fmaxf(0.01f, d * 0.01f);
    c->far_z = d * 20.0f + 1000.0f;
    glm_perspective(c->fov, height > 0 ? (float)width / (float)height : 1.0f, c->near_z, c->far_z, proj);
    glm_mat4_mul(proj, view, vp);
    memcpy(c->view, view, sizeof c->view);
    memcpy(c->proj, proj, sizeof c->proj);
    memcpy(c->view_proj, vp, sizeof c->view_proj);
}

void demo_camera_orbit(demo_camera* c, float dx, float dy) {
    c->yaw += dx * 0.006f;
    c->pitch += dy * 0.006f;
    float lim = glm_rad(89.0f);
    if (c->pitch > lim) c->pitch = lim;
    if (c->pitch < -lim) c->pitch = -lim;
}

void demo_camera_pan(demo_camera* c, float dx, float dy, int height) {
    /* a pixel at the target's distance spans this many world units */
    float d = c->fly ? 10.0f : c->distance;
    float k = 2.0f * d * tanf(0.5f * c->fov) / (float)(height > 0 ? height : 1);
    demo_camera_move(c, 0, -dx * k, dy * k);
}

void demo_camera_zoom(demo_camera* c, float steps) {
    if (c->fly) {
        demo_camera_move(c, steps * 2.0f, 0, 0);
        return;
    }
    c->distance *= powf(0.88f, steps);
    if (c->distance < 0.5f) c->distance = 0.5f;
}

void demo_camera_move(demo_camera* c, float fwd, float right, float up) {
    vec3 f, r, u;
    forward(c, f);
    glm_vec3_cross(f, (vec3){0, 1, 0}, r);
    glm_vec3_normalize(r);
    glm_vec3_cross(r, f, u);
    float* p = c->fly ? c->eye : c->target;
    for (int k = 0; k < 3; ++k) p[k] += f[k] * fwd + r[k] * right + u[k] * up;
}

void demo_camera_toggle_fly(demo_camera* c) {
    if (!c->fly) {
        eye_of(c, c->eye);
        c->fly = true;
    } else {
        /* orbit around the point the eye looks at, at the same distance as before */
        vec3 f;
        forward(c, f);
        for (int k = 0; k < 3; ++k) c->target[k] = c->eye[k] + f[k] * c->distance;
        c->fly = false;
    }
}

void demo_camera_ray(const demo_camera* c, float x, float y, int width, int height, float o[3], float d[3]) {
    mat4 vp;
    memcpy(vp, c->view_proj, sizeof vp);
    vec4 viewport = {0, 0, (float)width, (float)height};
    vec3 pn, pf;
    /* cglm's viewport has y up */
    glm_unproject((vec3){x, (float)height - y, 0.0f}, vp, viewport, pn);
    glm_unproject((vec3){x, (float)height - y, 1.0f}, vp, viewport, pf);
    vec3 dir;
    glm_vec3_sub(pf, pn, dir);
    glm_vec3_normalize(dir);
    memcpy(o, pn, sizeof(float) * 3);
    memcpy(d, dir, sizeof(float) * 3);
}
