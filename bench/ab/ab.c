/* Two builds of the runtime in one process, for comparing query times on a loaded machine
   (bench/ab/run.sh builds it; bench/NOTES.md, "3D path queries: undulating p99").

   The runtimes of two source trees are compiled apart and their global symbols renamed A_ptl_...
   and B_ptl_... (objcopy --redefine-syms), so this program can call both on the same navmesh file
   and pairs. Each round runs the exact queries of every pair with one runtime, then with the
   other, then the corridor queries likewise; which runtime goes first alternates by round, so a
   change in the machine's load falls on both alike. A pair's time is the median of its rounds;
   printed per runtime and mode: the median and p99 over the pairs and the mean of the 30 slowest.

   usage: ab NAV.ptl PAIRS.csv ROUNDS   (PAIRS.csv: a header, then sx,sy,sz,ex,ey,ez,... per line;
                                          tests/data/detour/<mesh>.csv has this form; at most 1000) */
#define _POSIX_C_SOURCE 200809L
#include <portolan/runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DECLARE(p)                                                                                       \
    ptl_status p##ptl_navmesh_load_file(const char*, const ptl_navmesh_desc*, ptl_navmesh**, ptl_error*); \
    ptl_status p##ptl_query_create(const ptl_navmesh*, const ptl_query_desc*, ptl_query**);              \
    ptl_status p##ptl_query_find_path(ptl_query*, const ptl_path_request*, ptl_path_result*);
DECLARE(A_)
DECLARE(B_)

typedef ptl_status (*find_fn)(ptl_query*, const ptl_path_request*, ptl_path_result*);
enum { MAX_PAIRS = 1000, MAX_ROUNDS = 64, TAIL = 30 };

static float pairs[MAX_PAIRS][6];
static int pair_count;
static float points[3 * 4096];
static double times[2][2][MAX_PAIRS][MAX_ROUNDS]; /* runtime, mode, pair, round [Units: us] */

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static void run(find_fn find, ptl_query* q, int mode, int runtime, int round) {
    for (int i = 0; i < pair_count; ++i) {
        ptl_path_request req;
        memset(&req, 0, sizeof req);
        memcpy(req.start, pairs[i], sizeof req.start);
        memcpy(req.goal, pairs[i] + 3, sizeof req.goal);
        req.extents[0] = 2, req.extents[1] = 4, req.extents[2] = 2;
        req.mode = mode ? PTL_PATH_CORRIDOR : PTL_PATH_EXACT;
        ptl_path_result res;
        memset(&res, 0, sizeof res);
        res.points = points;
        res.point_capacity = 4096;
        double a = now_us();
        find(q, &req, &res);
        times[runtime][mode][i][round] = now_us() - a;
    }
}

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: ab NAV.ptl PAIRS.csv ROUNDS\n");
        return 2;
    }
    ptl_navmesh *na, *nb;
    ptl_query *qa, *qb;
    ptl_error err;
    if (A_ptl_navmesh_load_file(argv[1], NULL, &na, &err) < 0 || B_ptl_navmesh_load_file(argv[1], NULL, &nb, &err) < 0) {
        fprintf(stderr, "ab: %s\n", err.message);
        return 1;
    }
    if (A_ptl_query_create(na, NULL, &qa) < 0 || B_ptl_query_create(nb, NULL, &qb) < 0) return 1;
    FILE* f = fopen(argv[2], "r");
    char line[512];
    if (!f || !fgets(line, sizeof line, f)) {
        fprintf(stderr, "ab: cannot read %s\n", argv[2]);
        return 1;
    }
    while (pair_count < MAX_PAIRS && fgets(line, sizeof line, f)) {
        float* p = pairs[pair_count];
        if (sscanf(line, "%f,%f,%f,%f,%f,%f", &p[0], &p[1], &p[2], &p[3], &p[4], &p[5]) == 6) ++pair_count;
    }
    fclose(f);
    int rounds = atoi(argv[3]);
    rounds = rounds < 1 ? 1 : rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;
    for (int r = 0; r < rounds; ++r)
        for (int mode = 0; mode < 2; ++mode)
            for (int o = 0; o < 2; ++o) {
                int rt = (r + o) & 1;
                run(rt ? B_ptl_query_find_path : A_ptl_query_find_path, rt ? qb : qa, mode, rt, r);
            }
    static double per[MAX_PAIRS];
    for (int mode = 0; mode < 2; ++mode) {
        for (int rt = 0; rt < 2; ++rt) {
            for (int i = 0; i < pair_count; ++i) {
                qsort(times[rt][mode][i], rounds, sizeof(double), cmp_double);
                per[i] = times[rt][mode][i][rounds / 2];
            }
            qsort(per, pair_count, sizeof(double), cmp_double);
            int tail = pair_count < TAIL ? pair_count : TAIL;
            double t = 0;
            for (int i = pair_count - tail; i < pair_count; ++i) t += per[i] / tail;
            printf("%s %s median %.3f p99 %.3f tail30 %.3f   ", rt ? "new" : "base", mode ? "corridor" : "exact",
                   per[pair_count / 2], per[(int)((pair_count - 1) * 0.99)], t);
        }
        printf("\n");
    }
    return 0;
}
