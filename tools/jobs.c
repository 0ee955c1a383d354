/* ptl_job_system on POSIX threads: each run() starts threads - 1 workers that, with the caller, take
   job indices from a shared atomic counter until none is left, then joins them. Starting threads
   per run costs tens of microseconds, nothing beside a bake stage. */
#include "jobs.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct run_ctx {
    ptl_job_fn fn;
    void* data;
    uint32_t count;
    atomic_uint next;
} run_ctx;

static void* worker(void* arg) {
    run_ctx* r = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&r->next, 1u);
        if (i >= r->count) break;
        r->fn(r->data, i);
    }
    return NULL;
}

static void run(void* user, ptl_job_fn fn, void* data, uint32_t count) {
    unsigned threads = *(const unsigned*)user;
    run_ctx r = {fn, data, count, 0};
    atomic_init(&r.next, 0u);
    if (threads > count) threads = count;
    if (threads > 256) threads = 256;
    pthread_t t[256];
    unsigned started = 0;
    for (unsigned k = 1; k < threads; ++k, ++started)
        if (pthread_create(&t[started], NULL, worker, &r) != 0) break; /* fewer threads: still correct */
    worker(&r);
    for (unsigned k = 0; k < started; ++k) pthread_join(t[k], NULL);
}

void ptl_thread_jobs_init(ptl_thread_jobs* j, unsigned threads) {
    j->threads = threads < 1 ? 1 : threads;
    j->sys.run = run;
    j->sys.user = &j->threads;
}
