/* A ptl_job_system on POSIX threads for the command-line program, the tests and the benchmarks
   (the library itself starts no thread: an engine hands it its own job system). */
#ifndef PTL_TOOLS_JOBS_H
#define PTL_TOOLS_JOBS_H

#include <portolan/bake.h>

/* Jobs run on `threads` threads (the caller's included) each time run() is called; threads <= 1:
   in turn on the caller's thread. */
typedef struct ptl_thread_jobs {
    ptl_job_system sys;
    unsigned threads;
} ptl_thread_jobs;

void ptl_thread_jobs_init(ptl_thread_jobs* j, unsigned threads);

#endif
