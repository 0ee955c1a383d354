/* Shared pieces of the `portolan` command-line program (tools/). */
#ifndef PTL_CLI_H
#define PTL_CLI_H

#include <portolan/bake.h>
#include <portolan/gen.h>
#include <portolan/tilecache.h>
#include <stdbool.h>
#include <stdio.h>

/* Exit codes of the command-line contract (DESIGN.md). */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* Prints "portolan: <message>" to stderr and returns `code`. */
int cli_error(int code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* cli_error(code, "<subject>: <message>"), where a message that already names its subject (a
   library message that starts with the file name) is not prefixed twice. */
int cli_error_about(int code, const char* subject, const char* message);

/* Off-mesh links of `bake --links` (links_csv.c): *out malloc'd (free it), EXIT_USAGE naming the
   line of a bad row. */
int cli_read_links(const char* path, ptl_offmesh_desc** out, uint32_t* count);
double cli_now_ms(void);

/* Parses a finite number / "X,Y,Z" / a non-negative integer; false on anything else. */
bool cli_parse_double(const char* s, double* out);
bool cli_parse_vec3(const char* s, float out[3]);
bool cli_parse_uint(const char* s, unsigned* out);
/* --extents X,Y,Z (each >= 0) as a query's half-extents; all three 0 asks for no snapping (a point
   on the mesh), which a request would read as its default (2, 4, 2): then a zero box in plan with
   the smallest positive float of height, where heights on the mesh are exact. */
bool cli_parse_extents(const char* s, float out[3]);

/* The query filter options of `path` and `query`: --cost AREA=C (AREA 0..63, C finite and > 0)
   and --exclude AREA. For option `a` with value `v`: 1 when `a` is one of them (applied to f),
   0 when it is not, or EXIT_USAGE (negated: -2) after a message when its value is bad. */
int cli_filter_option(const char* a, const char* v, ptl_query_filter* f);

/* One row of an obstacles OPS.csv (op,id,shape,x,y,z,sx,sy,sz,yaw[,points]; cmd_obstacles.c). */
typedef struct cli_obstacle_op {
    int op; /* 0 add, 1 remove, 2 move */
    unsigned id;
    ptl_obstacle_desc d; /* add, move; d.xz points at xz */
    float xz[2 * PTL_OBSTACLE_MAX_VERTS];
} cli_obstacle_op;
typedef int (*cli_obstacle_op_fn)(void* user, const cli_obstacle_op* op, unsigned line);
/* Reads OPS.csv and calls fn for each row in order (its line number given), until fn returns
   other than EXIT_OK; a bad header or row exits 1 naming path:line. */
int cli_read_obstacle_ops(const char* path, cli_obstacle_op_fn fn, void* user);

/* Whether `name` is one of the NULL-terminated `names`: an option parser asks this before it asks
   for the option's value, so that a misspelt option is named as unknown, not as missing a value. */
bool cli_is_one_of(const char* name, const char* const* names);

/* Output files. Both return EXIT_OK, or EXIT_FAIL after a message that names `path`: a write that
   fails at any step (open, a write, the flush at close, a full disk, /dev/full) is an error, never
   a short file with exit 0. cli_file_close closes `f` (opened for `path`) in every case. */
int cli_write_file(const char* path, const void* data, size_t size);
int cli_file_close(FILE* f, const char* path);

/* JSON string with escapes. */
void cli_json_string(FILE* f, const char* s);
/* A double as JSON (finite: %.17g trimmed to the shortest form that round-trips; else null). */
void cli_json_number(FILE* f, double v);

int cli_bake(int argc, char** argv);
int cli_info(int argc, char** argv);
int cli_merge(int argc, char** argv);
int cli_obstacles(int argc, char** argv);
int cli_path(int argc, char** argv);
int cli_query(int argc, char** argv);
int cli_decompose(int argc, char** argv);
int cli_draw(int argc, char** argv);
int cli_gen(int argc, char** argv);

#endif
