/* `bake --areas AREAS.csv` (areas_csv.c): the name -> area table of ptl_bake_desc. */
#ifndef PTL_AREAS_CSV_H
#define PTL_AREAS_CSV_H

#include <portolan/bake.h>

typedef struct cli_areas {
    ptl_area_name* names;
    uint32_t count;
    char* text; /* the file, its names NUL-terminated in place */
} cli_areas;

/* Reads AREAS.csv: a header `name,area` (in either order, nothing else), then one row per name,
   area in 1..PTL_AREA_MAX. EXIT_OK, or EXIT_FAIL after a message naming the file and the line. */
int cli_areas_load(const char* path, cli_areas* out);
void cli_areas_free(cli_areas* a);

#endif
