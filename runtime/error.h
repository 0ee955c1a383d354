/* Filling a ptl_error. Private to the library. */
#ifndef PTL_ERROR_H
#define PTL_ERROR_H

#include <portolan/runtime.h>

#if defined(__GNUC__)
#define PTL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PTL_PRINTF(a, b)
#endif

/* Sets err (when not NULL) and returns s, so callers can `return ptl_error_set(...)`. */
ptl_status ptl_error_set(ptl_error* err, ptl_status s, const char* fmt, ...) PTL_PRINTF(3, 4);
ptl_status ptl_error_ok(ptl_error* err);

#endif
