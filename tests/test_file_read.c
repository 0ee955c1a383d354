/* Every reader that takes a file name refuses a directory or a device with a message naming it,
   instead of sizing an allocation by what ftell says of it (2^63 - 1 for a directory on Linux). */
#include <criterion/criterion.h>
#include <portolan/bake.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void assert_refused(ptl_status st, const ptl_error* err, const char* path, const char* what) {
    cr_assert_lt(st, 0, "%s accepted %s", what, path);
    cr_assert_neq(st, PTL_ERR_NO_MEMORY, "%s: %s", what, err->message);
    cr_assert(strstr(err->message, path) != NULL, "%s: the message does not name the file: %s", what, err->message);
}

Test(file_read, every_reader_refuses_a_directory_naming_it) {
    char dir[] = "/tmp/ptl_dir_XXXXXX";
    cr_assert(mkdtemp(dir));
    ptl_error err;
    ptl_navmesh* nm = NULL;
    ptl_status st = ptl_navmesh_load_file(dir, NULL, &nm, &err);
    assert_refused(st, &err, dir, "ptl_navmesh_load_file");
    cr_assert(strstr(err.message, "directory"), "%s", err.message);
    ptl_grid g;
    assert_refused(ptl_grid_load(dir, NULL, &g, &err), &err, dir, "ptl_grid_load");
    ptl_trimesh m;
    assert_refused(ptl_obj_load(dir, NULL, &m, &err), &err, dir, "ptl_obj_load");
    ptl_trimesh_free(&m);
    ptl_shape s;
    char mapdir[64];
    snprintf(mapdir, sizeof mapdir, "%s/x.map", dir);
    cr_assert_eq(mkdir(mapdir, 0700), 0);
    assert_refused(ptl_shape_load(mapdir, NULL, &s, &err), &err, mapdir, "ptl_shape_load");
    rmdir(mapdir);
    rmdir(dir);
}

Test(file_read, a_device_that_never_ends_is_refused_not_read) {
    if (access("/dev/zero", R_OK) != 0) cr_skip_test("no /dev/zero");
    ptl_error err;
    ptl_navmesh* nm = NULL;
    assert_refused(ptl_navmesh_load_file("/dev/zero", NULL, &nm, &err), &err, "/dev/zero", "ptl_navmesh_load_file");
    ptl_grid g;
    assert_refused(ptl_grid_load("/dev/zero", NULL, &g, &err), &err, "/dev/zero", "ptl_grid_load");
    ptl_trimesh m;
    assert_refused(ptl_obj_load("/dev/zero", NULL, &m, &err), &err, "/dev/zero", "ptl_obj_load");
    ptl_trimesh_free(&m);
}
