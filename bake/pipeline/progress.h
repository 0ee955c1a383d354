/* Progress reports of a bake (ptl_bake_desc.progress): each stage covers a share [lo, hi] of the
   whole, and a stage that knows how far it is (the voxel tiles) reports a fraction of its share.
   Reports come only from the thread that called the bake, never from a job. Private. */
#ifndef PTL_BAKE_PROGRESS_H
#define PTL_BAKE_PROGRESS_H

#include <portolan/bake.h>

typedef struct ptl_bake_progress {
    void (*fn)(void* user, const char* stage, float fraction); /* NULL: no reports */
    void* user;
    const char* stage;
    float lo, hi; /* the current stage's share of the bake, in [0, 1] */
} ptl_bake_progress;

static inline void ptl_progress_init(ptl_bake_progress* p, const ptl_bake_desc* d) {
    p->fn = d ? d->progress : NULL;
    p->user = d ? d->progress_user : NULL;
    p->stage = "start";
    p->lo = p->hi = 0;
}

/* `f` of the current stage is done (clamped to [0, 1]). */
static inline void ptl_progress_at(const ptl_bake_progress* p, float f) {
    if (!p || !p->fn) return;
    f = f > 0 ? (f < 1 ? f : 1) : 0;
    p->fn(p->user, p->stage, p->lo + (p->hi - p->lo) * f);
}

/* A stage begins that covers [lo, hi] of the bake; reports its start. */
static inline void ptl_progress_stage(ptl_bake_progress* p, const char* stage, float lo, float hi) {
    p->stage = stage, p->lo = lo, p->hi = hi;
    ptl_progress_at(p, 0);
}

#endif
