/* Whole-file input reads (file_read.h). */
#include "file_read.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"

#if defined(_WIN32)
#define PTL_FSTAT _fstat64
#define PTL_FILENO _fileno
typedef struct _stat64 ptl_stat_buf;
#define PTL_IS_REG(m) (((m) & _S_IFMT) == _S_IFREG)
#define PTL_IS_DIR(m) (((m) & _S_IFMT) == _S_IFDIR)
#define PTL_IS_FIFO(m) (((m) & _S_IFMT) == _S_IFIFO)
#else
#define PTL_FSTAT fstat
#define PTL_FILENO fileno
typedef struct stat ptl_stat_buf;
#define PTL_IS_REG(m) S_ISREG(m)
#define PTL_IS_DIR(m) S_ISDIR(m)
#define PTL_IS_FIFO(m) S_ISFIFO(m)
#endif

ptl_status ptl_file_open_read(const char* path, uint64_t max_bytes, FILE** out, uint64_t* known_size, ptl_error* err) {
    *out = NULL;
    if (known_size) *known_size = UINT64_MAX;
    if (!path) return ptl_error_set(err, PTL_ERR_INVALID_ARG, "path is NULL");
    FILE* f = fopen(path, "rb");
    if (!f) return ptl_error_set(err, PTL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    /* Decide on the opened file, not on the name, so nothing can swap it in between. */
    ptl_stat_buf sb;
    ptl_status st = PTL_OK;
    if (PTL_FSTAT(PTL_FILENO(f), &sb) != 0)
        st = ptl_error_set(err, PTL_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    else if (PTL_IS_DIR(sb.st_mode))
        st = ptl_error_set(err, PTL_ERR_IO, "%s: is a directory, not a file", path);
    else if (!PTL_IS_REG(sb.st_mode) && !PTL_IS_FIFO(sb.st_mode))
        st = ptl_error_set(err, PTL_ERR_IO, "%s: not a regular file (a device or a socket)", path);
    else if (PTL_IS_REG(sb.st_mode) && sb.st_size >= 0 && (uint64_t)sb.st_size > max_bytes)
        st = ptl_error_set(err, PTL_ERR_IO, "%s: file too large (%llu bytes; this reader takes at most %llu)", path,
                           (unsigned long long)sb.st_size, (unsigned long long)max_bytes);
    if (st < 0) {
        fclose(f);
        return st;
    }
    if (known_size && PTL_IS_REG(sb.st_mode) && sb.st_size >= 0) *known_size = (uint64_t)sb.st_size;
    *out = f;
    return PTL_OK;
}

ptl_status ptl_file_read_all(const char* path, uint64_t max_bytes, const ptl_allocator* a, char** data, size_t* size,
                             size_t* cap, ptl_error* err) {
    *data = NULL, *size = 0, *cap = 0;
    FILE* f;
    uint64_t known;
    ptl_status st = ptl_file_open_read(path, max_bytes, &f, &known, err);
    if (st < 0) return st;
    size_t c = 0, n = 0;
    /* A regular file's size is a good first guess (one allocation, one spare byte); it is not
       trusted: the loop still reads to the end. */
    size_t first = known < SIZE_MAX - 1 ? (size_t)known + 1 : 65536;
    char* d = NULL;
    for (;;) {
        if (n == c) {
            size_t nc = c ? c * 2 : first;
            if (nc < c) nc = SIZE_MAX;
            if (n == nc) { /* size_t is full: no file this large fits in memory anyway */
                st = ptl_error_set(err, PTL_ERR_IO, "%s: file too large", path);
                break;
            }
            char* nd = ptl_mem_realloc(a, d, c, nc);
            if (!nd) {
                st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory reading the file (%zu bytes read)", path, n);
                break;
            }
            d = nd, c = nc;
        }
        size_t got = fread(d + n, 1, c - n, f);
        n += got;
        if ((uint64_t)n > max_bytes) { /* a pipe, or a file that grew while it was read */
            st = ptl_error_set(err, PTL_ERR_IO, "%s: file too large (more than the %llu bytes this reader takes)", path,
                               (unsigned long long)max_bytes);
            break;
        }
        if (got == 0) {
            if (ferror(f)) st = ptl_error_set(err, PTL_ERR_IO, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (st >= 0 && n == c) { /* keep the promised spare byte */
        char* nd = ptl_mem_realloc(a, d, c, c + 1);
        if (!nd) st = ptl_error_set(err, PTL_ERR_NO_MEMORY, "%s: out of memory reading the file", path);
        else d = nd, c = c + 1;
    }
    if (st < 0) {
        ptl_mem_free(a, d, c);
        return st;
    }
    *data = d, *size = n, *cap = c;
    return PTL_OK;
}
