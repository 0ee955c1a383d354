/* `portolan merge PART.ptl... -o OUT.ptl`: the navmesh of a bake spread over machines, from parts
   written by `portolan bake ... --tile-size N --tiles X0:X1,Z0:Z1` (ptl_bake_merge_parts): the same
   bytes a one-machine bake with that tile size writes. */
#include <stdlib.h>
#include <string.h>

#include "../runtime/alloc.h"
#include "../runtime/file_read.h"
#include "cli.h"
#include "jobs.h"

int cli_merge(int argc, char** argv) {
    const char* out = NULL;
    bool json = false;
    unsigned threads = 1;
    const char** inputs = calloc((size_t)argc + 1, sizeof *inputs);
    uint32_t n = 0;
    if (!inputs) return cli_error(EXIT_FAIL, "out of memory");
    for (int i = 0; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "-o")) {
            if (!v) return free(inputs), cli_error(EXIT_USAGE, "-o needs a file");
            out = v, ++i;
        } else if (!strcmp(a, "--threads")) {
            if (!cli_parse_uint(v, &threads) || threads == 0 || threads > 256)
                return free(inputs), cli_error(EXIT_USAGE, "--threads needs 1..256");
            ++i;
        } else if (a[0] == '-' && a[1] != '\0') {
            return free(inputs), cli_error(EXIT_USAGE, "unknown option '%s'", a);
        } else {
            inputs[n++] = a;
        }
    }
    if (!n) return free(inputs), cli_error(EXIT_USAGE, "usage: portolan merge PART.ptl... -o OUT.ptl [--threads N] [--json]");
    if (!out) return free(inputs), cli_error(EXIT_USAGE, "missing -o OUT.ptl");
    double t0 = cli_now_ms();
    void** parts = calloc(n, sizeof *parts);
    size_t* sizes = calloc(n, sizeof *sizes);
    int rc = EXIT_OK;
    if (!parts || !sizes) rc = cli_error(EXIT_FAIL, "out of memory");
    size_t* caps = calloc(n, sizeof *caps);
    ptl_allocator heap = ptl_allocator_resolve(NULL);
    if (!caps && rc == EXIT_OK) rc = cli_error(EXIT_FAIL, "out of memory");
    for (uint32_t k = 0; k < n && rc == EXIT_OK; ++k) {
        ptl_error err;
        char* data;
        if (ptl_file_read_all(inputs[k], PTL_BLOB_FILE_MAX, &heap, &data, &sizes[k], &caps[k], &err) < 0)
            rc = cli_error(EXIT_FAIL, "%s", err.message);
        parts[k] = data;
    }
    double t1 = cli_now_ms();
    void* blob = NULL;
    size_t size = 0;
    ptl_bake_stats st;
    memset(&st, 0, sizeof st);
    ptl_thread_jobs jobs;
    ptl_thread_jobs_init(&jobs, threads);
    if (rc == EXIT_OK) {
        ptl_error err;
        ptl_merge_desc md = {.jobs = threads > 1 ? &jobs.sys : NULL};
        if (ptl_bake_merge_parts((const void* const*)parts, sizes, n, &md, &blob, &size, &st, &err) < 0) {
            /* the library names parts by their place in the list ("part K: ..."): name the file */
            unsigned k;
            int used = 0;
            if (sscanf(err.message, "part %u: %n", &k, &used) == 1 && used > 0 && k < n)
                rc = cli_error(EXIT_FAIL, "%s: %s", inputs[k], err.message + used);
            else
                rc = cli_error(EXIT_FAIL, "%s", err.message); /* the library's message names its stage */
        }
    }
    for (uint32_t k = 0; parts && caps && k < n; ++k) ptl_mem_free(&heap, parts[k], caps[k]);
    free(parts);
    free(caps);
    free(sizes);
    double t2 = cli_now_ms();
    if (rc == EXIT_OK) rc = cli_write_file(out, blob, size);
    ptl_blob_free(blob, size, NULL);
    double t3 = cli_now_ms();
    if (rc == EXIT_OK) {
        if (json) {
            printf("{\"parts\":%u,\"tiles\":%u,\"layers\":%u,\"cells\":%u,\"portals\":%u,\"links\":%u,\"vertices\":%u,"
                   "\"walkable_area\":",
                   n, st.tiles, st.layers, st.cells, st.portals, st.links, st.vertices);
            cli_json_number(stdout, st.walkable_area);
            printf(",\"bytes\":%zu,\"threads\":%u,\"ms\":{\"total\":", size, jobs.threads);
            const char* names[] = {"read", "assemble", "layers", "contours", "decompose", "merge", "landmarks", "write"};
            const double vals[] = {t1 - t0,         st.ms_filter,    st.ms_layers,    st.ms_contours,
                                   st.ms_decompose, st.ms_merge,     st.ms_landmarks, t3 - t2};
            cli_json_number(stdout, t3 - t0);
            for (int k = 0; k < 8; ++k) {
                printf(",\"%s\":", names[k]);
                cli_json_number(stdout, vals[k]);
            }
            printf("}}\n");
        } else {
            printf("%u parts -> %s: %u tiles, %u cells, %u portals, %u vertices, %u layers, walkable area %.6g, %zu bytes, "
                   "%.2f ms\n",
                   n, out, st.tiles, st.cells, st.portals, st.vertices, st.layers, st.walkable_area, size, t3 - t0);
        }
    }
    free(inputs);
    return rc;
}
