/* tests/live_stress.sh's program: the live navmesh under load (tests/live_stress.c) for the seconds
   given, built with ThreadSanitizer (which fails the run itself on a data race). */
#include <stdio.h>
#include <stdlib.h>

#include "../live_stress.h"

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? atof(argv[1]) : 10;
    const int threads = argc > 2 ? atoi(argv[2]) : 4;
    live_stress_result r;
    if (live_stress_run(threads, seconds, &r) != 0) {
        fprintf(stderr, "live_stress: cannot set up: %s\n", r.first_error);
        return 1;
    }
    printf("live_stress: %d query threads and an obstacle thread for %.0f s: %llu answers checked, %llu invalid, "
           "%llu versions published, %llu pinned by the query threads, %llu stale references reported\n",
           threads, seconds, (unsigned long long)r.answers, (unsigned long long)r.invalid, (unsigned long long)r.publishes,
           (unsigned long long)r.versions_seen, (unsigned long long)r.stale_ok);
    if (r.invalid) fprintf(stderr, "live_stress: first invalid answer: %s\n", r.first_error);
    return r.invalid || r.publishes < 2 ? 1 : 0;
}
