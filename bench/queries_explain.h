/* Kinds of disagreement between ours and Detour's everyday queries (queries_explain.c). */
#ifndef PTL_BENCH_QUERIES_EXPLAIN_H
#define PTL_BENCH_QUERIES_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <portolan/runtime.h>

#include "peer_recast.h"

typedef enum qx_query { QX_NEAREST, QX_RAYCAST, QX_WALL, QX_MOVE, QX_QUERIES } qx_query;

enum { QX_KINDS = 6, QX_MAX_VALUES = 1000 };

typedef struct qx_kind {
    uint32_t n;
    double values[QX_MAX_VALUES]; /* the kind's measured distance per row [m] */
} qx_kind;

typedef struct qx_counts {
    qx_kind kinds[QX_KINDS];
} qx_counts;

/* Our answer to a row: its point, hit / found (raycast, wall) or slid (move), the wall distance. */
typedef struct qx_answer {
    float point[3];
    bool flag;
    double dist;
} qx_answer;

/* Puts a disagreeing row in its kind (row: the query's inputs as the bench reads them). */
void qx_explain(ptl_query* q, peer_mesh* pm, qx_query kind, const float* row, const qx_answer* ours,
                const peer_query_out* det, qx_counts* c);
/* One table row naming each kind seen, its count and the median of its distances. */
void qx_print(qx_query kind, qx_counts* c);

#endif
