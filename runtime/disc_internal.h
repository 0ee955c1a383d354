/* What the exact disc search (disc_path.c) shares with the corridor of a disc (disc_funnel.c): the
   search state, the tangents, the checks against the walls and the output. Private to the runtime. */
#ifndef PTL_DISC_INTERNAL_H
#define PTL_DISC_INTERNAL_H

#include "clearance.h"

typedef struct dstate {
    double ax, az;   /* arrival: the tangent point on the corner's circle (the start: the start point) */
    double dx, dz;   /* where the segment into this state leaves the parent's circle (or point) */
    double g;        /* [Units: wu] length from the start to the arrival point */
    float ay, dy;    /* heights of the arrival and the departure points on the mesh, once checked */
    uint32_t parent; /* PTL_NONE: the start */
    uint32_t vert;   /* the corner whose circle the state arrives on; PTL_NONE: the start or the goal */
    uint32_t cell;   /* a cell holding the arrival point, once checked */
    int8_t side;     /* +1: around the corner counter-clockwise (the corner on the left), -1: clockwise */
    uint8_t goal;    /* the state is the goal */
    uint8_t checked; /* its segment (and the arc before it) kept r */
} dstate;

_Static_assert(sizeof(dstate) <= sizeof(ptl_snode), "a disc state fits a node of the pool");

typedef struct disc_search {
    ptl_query* q;
    const ptl_qpoint* s;
    const ptl_qpoint* t;
    const ptl_disc_ends* ends; /* may be NULL */
    dstate* st;
    uint32_t count, cap;
    uint32_t stamp;  /* of disc_rec */
    double r, tol;
    bool alt;           /* landmark bounds in h (the navmesh has landmarks) */
    uint32_t expanding; /* the state being expanded */
    double expanding_a; /* the angle of its arrival point around its corner (atan2), when it has one */
    ptl_status error;
} disc_search;

/* The tangent from circle (c1, side o1) to circle (c2, side o2) (a side of 0: a point) of radius r:
   its touch points; false when there is none (the circles overlap for an inner tangent). */
bool ptl_disc_tangent(double c1x, double c1z, int o1, double c2x, double c2z, int o2, double r, double* t1x,
                      double* t1z, double* t2x, double* t2z);
/* Can a path touch the circle around corner v at (x, z) and keep r from v's own walls? */
bool ptl_disc_in_cone(const ptl_query* q, uint32_t v, double x, double z);
/* 0 where ptl_disc_in_cone holds; else which of v's walls (x, z) lies nearer than r to: 1 the one
   arriving at v (from q->wall[2 v]), 2 the one leaving it (to q->wall[2 v + 1]). */
int ptl_disc_cone_miss(const ptl_query* q, uint32_t v, double x, double z);
/* Checks the segment into state i and the arc before it on its parent's circle against the walls;
   sets the state's cell and heights. */
bool ptl_disc_check_state(disc_search* ds, uint32_t i);
/* Writes the path of the checked chain of states ending at `goal` (states ds->count and after are
   scratch). */
ptl_status ptl_disc_write_path(disc_search* ds, uint32_t goal, double tol, ptl_path_turn* turns, uint32_t turn_cap,
                               ptl_path_result* res);

#endif
