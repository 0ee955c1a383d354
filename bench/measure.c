/* Clocks, medians, the machine line and a peak-tracking allocator for the benchmarks (bench.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

double bench_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_d(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

double bench_median(double* v, size_t n) {
    qsort(v, n, sizeof *v, cmp_d);
    return n ? v[n / 2] : 0;
}

double bench_cpu_ms(bool whole_process) {
    struct timespec ts;
    clock_gettime(whole_process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void bench_med_p99(const double* v, size_t n, double* med, double* p99) {
    double* s = malloc((n ? n : 1) * sizeof *s);
    *med = *p99 = 0;
    if (!s) return;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_d);
    if (n) *med = s[n / 2], *p99 = s[(size_t)((double)(n - 1) * 0.99)];
    free(s);
}

void bench_print_machine(void) {
    char model[256] = "unknown";
    FILE* f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char* c = strchr(line, ':');
                if (c) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = 0;
                }
                break;
            }
        }
        fclose(f);
    }
    struct utsname u;
    uname(&u);
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    printf("Machine: %s, %ld cores online, %s %s; compiler gcc %d.%d; run %s.\n\n", model, sysconf(_SC_NPROCESSORS_ONLN),
           u.sysname, u.release, __GNUC__, __GNUC_MINOR__, date);
}

/* ---- Peak-tracking allocator --------------------------------------------------------------------
   16 bytes in front of each block keep its size and keep the payload aligned for any type. */
enum { HEADER = 16 };

static void* track_alloc(size_t size, void* user) {
    bench_tracker* t = user;
    unsigned char* p = malloc(size + HEADER);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    t->live += size;
    if (t->live > t->peak) t->peak = t->live;
    ++t->allocations;
    return p + HEADER;
}

static void track_free(void* ptr, size_t size, void* user) {
    if (!ptr) return;
    bench_tracker* t = user;
    unsigned char* p = (unsigned char*)ptr - HEADER;
    size_t real;
    memcpy(&real, p, sizeof real);
    if (real != size) ++t->mismatches;
    t->live -= real;
    free(p);
}

static void* track_realloc(void* ptr, size_t old_size, size_t new_size, void* user) {
    bench_tracker* t = user;
    if (!ptr) return track_alloc(new_size, user);
    unsigned char* p = (unsigned char*)ptr - HEADER;
    size_t real;
    memcpy(&real, p, sizeof real);
    if (real != old_size) ++t->mismatches;
    unsigned char* q = realloc(p, new_size + HEADER);
    if (!q) return NULL;
    memcpy(q, &new_size, sizeof new_size);
    t->live = t->live - real + new_size;
    if (t->live > t->peak) t->peak = t->live;
    ++t->allocations;
    return q + HEADER;
}

ptl_allocator bench_tracker_allocator(bench_tracker* t) {
    ptl_allocator a = {track_alloc, track_realloc, track_free, t};
    return a;
}

void bench_tracker_reset_peak(bench_tracker* t) { t->peak = t->live; }

/* ---- Mesh list ----------------------------------------------------------------------------------*/
static int cmp_s(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

char** bench_list_meshes(const char* data) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    size_t n = 0, cap = 16;
    char** out = calloc(cap, sizeof *out);
    DIR* d = opendir(dir);
    if (!d || !out) {
        if (d) closedir(d);
        return out;
    }
    struct dirent* e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 4 || strcmp(e->d_name + l - 4, ".obj") != 0) continue;
        if (n + 2 > cap) {
            char** grown = realloc(out, (cap *= 2) * sizeof *out);
            if (!grown) break;
            out = grown;
        }
        out[n++] = strdup(e->d_name);
        out[n] = NULL;
    }
    closedir(d);
    qsort(out, n, sizeof *out, cmp_s);
    return out;
}

void bench_free_list(char** list) {
    for (char** p = list; p && *p; ++p) free(*p);
    free(list);
}
