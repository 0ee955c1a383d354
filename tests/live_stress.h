/* A live navmesh under load (tests/live_stress.c): query threads pinning versions while another
   thread adds, moves and removes obstacles through a tile cache and publishes each update. Used by
   tests/test_live.c (a few seconds) and by tests/tsan/live_stress_main.c under ThreadSanitizer
   (tests/live_stress.sh). */
#ifndef PTL_TEST_LIVE_STRESS_H
#define PTL_TEST_LIVE_STRESS_H

#include <stdint.h>

typedef struct live_stress_result {
    uint64_t answers;   /* queries checked: locates, paths, raycasts */
    uint64_t invalid;   /* answers not valid on the version they ran on */
    uint64_t publishes; /* versions published by the obstacle thread */
    uint64_t versions_seen; /* distinct versions the query threads pinned, summed over threads */
    uint64_t stale_ok;  /* references from an older version reported stale */
    char first_error[256];
} live_stress_result;

/* Runs `threads` query threads and one obstacle thread on a generated 3-storey building for
   `seconds`; 0 when it could run (see result), -1 when it could not set up (message in result). */
int live_stress_run(int threads, double seconds, live_stress_result* out);

#endif
