/* The one table of status names and messages (STYLE: libuv-style error table). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct status_entry {
    ptl_status status;
    const char* name;
    const char* message;
} status_entry;

static const status_entry STATUS_TABLE[] = {
    {PTL_OK, "PTL_OK", "success"},
    {PTL_PARTIAL, "PTL_PARTIAL", "partial result: the goal is not reachable"},
    {PTL_TRUNCATED, "PTL_TRUNCATED", "the output did not fit the caller's buffer"},
    {PTL_IN_PROGRESS, "PTL_IN_PROGRESS", "the sliced search goes on"},
    {PTL_ERR_INVALID_ARG, "PTL_ERR_INVALID_ARG", "invalid argument"},
    {PTL_ERR_NO_MEMORY, "PTL_ERR_NO_MEMORY", "out of memory"},
    {PTL_ERR_IO, "PTL_ERR_IO", "input/output error"},
    {PTL_ERR_PARSE, "PTL_ERR_PARSE", "malformed input file"},
    {PTL_ERR_BAD_INPUT, "PTL_ERR_BAD_INPUT", "unusable input"},
    {PTL_ERR_BAD_BLOB, "PTL_ERR_BAD_BLOB", "invalid navmesh blob"},
    {PTL_ERR_INVALID_MESH, "PTL_ERR_INVALID_MESH", "navmesh invariant violated"},
    {PTL_ERR_NOT_FOUND, "PTL_ERR_NOT_FOUND", "no mesh near the query point"},
    {PTL_ERR_OUT_OF_NODES, "PTL_ERR_OUT_OF_NODES", "search ran out of nodes"},
    {PTL_ERR_UNSUPPORTED, "PTL_ERR_UNSUPPORTED", "not supported by this version"},
    {PTL_ERR_INTERNAL, "PTL_ERR_INTERNAL", "internal error"},
    {PTL_ERR_STALE, "PTL_ERR_STALE", "a reference from another version of the navmesh"},
};

static const status_entry* find(ptl_status s) {
    for (size_t i = 0; i < sizeof STATUS_TABLE / sizeof STATUS_TABLE[0]; ++i)
        if (STATUS_TABLE[i].status == s) return &STATUS_TABLE[i];
    return NULL;
}

const char* ptl_status_name(ptl_status s) {
    const status_entry* e = find(s);
    return e ? e->name : "PTL_UNKNOWN_STATUS";
}

const char* ptl_status_message(ptl_status s) {
    const status_entry* e = find(s);
    return e ? e->message : "unknown status";
}

ptl_status ptl_error_set(ptl_error* err, ptl_status s, const char* fmt, ...) {
    if (err) {
        err->status = s;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return s;
}

ptl_status ptl_error_ok(ptl_error* err) {
    if (err) {
        err->status = PTL_OK;
        err->message[0] = '\0';
    }
    return PTL_OK;
}
