/* The module boundaries of DESIGN.md, checked on the sources: runtime/, bake/ (its stage folders)
   and gen/ include no OpenGL, EGL, glad or SDL header (bake/'s GPU path, files whose name contains
   "gpu" or in bake/decompose/gpu/, may include OpenGL, EGL and glad, never SDL); debugdraw/ outside its GL sink
   (debugdraw/gl/) includes none either; the public headers that a game without OpenGL includes
   (runtime.h, bake.h, bake_debug.h, gen.h, debugdraw.h and the umbrella portolan.h) include none;
   the umbrella includes every public header but the GL sink's; bake/ and gen/ include nothing of
   runtime/ but runtime/internal.h. Run from the project root (as scripts/test.sh does) or a folder
   below. */
#include "test_util.h"

#include <ctype.h>

/* The project root: the first of ., .., ../.. holding runtime/ and bake/. */
static const char* project_root(void) {
    static const char* const cands[] = {".", "..", "../.."};
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; ++i) {
        char p[256];
        struct stat st;
        snprintf(p, sizeof p, "%s/runtime/navmesh.c", cands[i]);
        if (stat(p, &st) == 0) return cands[i];
    }
    return NULL;
}

/* Is `name` (what follows #include, without the delimiters) a graphics or windowing header? */
static bool graphics_header(const char* name, bool allow_gl) {
    char low[256];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof low; ++n) low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = '\0';
    bool sdl = strncmp(low, "sdl", 3) == 0 || strstr(low, "/sdl") != NULL;
    bool gl = strncmp(low, "gl/", 3) == 0 || strncmp(low, "gles", 4) == 0 || strncmp(low, "egl", 3) == 0 ||
              strncmp(low, "glad", 4) == 0 || strncmp(low, "khr/", 4) == 0 || strncmp(low, "glfw", 4) == 0 ||
              strncmp(low, "epoxy", 5) == 0 || strncmp(low, "glew", 4) == 0 || strstr(low, "debugdraw_gl") != NULL ||
              strcmp(low, "gl.h") == 0;
    return sdl || (gl && !allow_gl);
}

/* Number of graphics includes in file `path`, each reported. */
static int scan_file(const char* path, bool allow_gl) {
    FILE* f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    char line[1024];
    int bad = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        const char* p = line;
        while (*p == ' ' || *p == '\t') ++p;
        if (*p != '#') continue;
        ++p;
        while (*p == ' ' || *p == '\t') ++p;
        if (strncmp(p, "include", 7) != 0) continue;
        p += 7;
        while (*p == ' ' || *p == '\t') ++p;
        if (*p != '<' && *p != '"') continue;
        char close = *p == '<' ? '>' : '"';
        const char* e = strchr(p + 1, close);
        if (!e) continue;
        char name[256];
        size_t n = (size_t)(e - p - 1) < sizeof name - 1 ? (size_t)(e - p - 1) : sizeof name - 1;
        memcpy(name, p + 1, n);
        name[n] = '\0';
        if (graphics_header(name, allow_gl)) {
            fprintf(stderr, "%s:%d: includes <%s>\n", path, lineno, name);
            ++bad;
        }
    }
    fclose(f);
    return bad;
}

static bool ends_with(const char* s, const char* ext) {
    size_t l = strlen(s), e = strlen(ext);
    return l >= e && strcmp(s + l - e, ext) == 0;
}

/* Scans every .c and .h of `dir` (not its subfolders); returns the files scanned. */
static int scan_dir(const char* dir, int* bad, bool gpu_files_may_use_gl) {
    DIR* d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    struct dirent* e;
    int files = 0;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, ".c") && !ends_with(e->d_name, ".h")) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        bool allow_gl = gpu_files_may_use_gl && (strstr(e->d_name, "gpu") != NULL || ends_with(dir, "/gpu"));
        *bad += scan_file(path, allow_gl);
        ++files;
    }
    closedir(d);
    return files;
}

/* scan_dir on `dir` and on each of its subfolders (one level: bake/'s stage folders). */
static int scan_tree(const char* dir, int* bad, bool gpu_files_may_use_gl) {
    int files = scan_dir(dir, bad, gpu_files_may_use_gl);
    DIR* d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    struct dirent* e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) files += scan_dir(path, bad, gpu_files_may_use_gl);
    }
    closedir(d);
    return files;
}

Test(includes, runtime_and_bake_include_no_gl_or_sdl_header) {
    const char* root = project_root();
    cr_assert_not_null(root, "run the tests from the project root (runtime/navmesh.c not found)");
    char dir[512];
    int bad = 0, files = 0;
    snprintf(dir, sizeof dir, "%s/runtime", root);
    files += scan_dir(dir, &bad, false);
    snprintf(dir, sizeof dir, "%s/bake", root);
    int bake_files = scan_tree(dir, &bad, true);
    snprintf(dir, sizeof dir, "%s/bake/decompose/gpu", root); /* the GPU library (OpenGL allowed) */
    bake_files += scan_dir(dir, &bad, true);
    snprintf(dir, sizeof dir, "%s/gen", root);
    files += bake_files + scan_dir(dir, &bad, false);
    cr_assert_gt(bake_files, 40, "only %d sources found under %s/bake and its stage folders", bake_files, root);
    cr_assert_gt(files, 60, "only %d sources found under %s/runtime, %s/bake and %s/gen", files, root, root, root);
    cr_assert_eq(bad, 0, "%d OpenGL/SDL includes in runtime/, bake/ or gen/ (listed above)", bad);
}

Test(includes, debugdraw_core_and_public_headers_include_no_gl_or_sdl_header) {
    const char* root = project_root();
    cr_assert_not_null(root);
    char dir[512];
    int bad = 0;
    snprintf(dir, sizeof dir, "%s/debugdraw", root);
    int files = scan_dir(dir, &bad, false);
    cr_assert_geq(files, 4, "debugdraw sources not found");
    static const char* const hdrs[] = {"runtime.h", "bake.h", "bake_debug.h", "gen.h", "debugdraw.h", "portolan.h"};
    for (size_t i = 0; i < sizeof hdrs / sizeof hdrs[0]; ++i) {
        char path[512];
        snprintf(path, sizeof path, "%s/include/portolan/%s", root, hdrs[i]);
        bad += scan_file(path, false);
    }
    cr_assert_eq(bad, 0, "%d OpenGL/SDL includes in debugdraw/ (outside gl/) or the public headers", bad);
    /* and the check itself sees what it must */
    cr_assert(graphics_header("SDL2/SDL.h", true));
    cr_assert(graphics_header("glad/gl.h", false));
    cr_assert(graphics_header("GL/gl.h", false));
    cr_assert(graphics_header("EGL/egl.h", false));
    cr_assert(!graphics_header("glad/gl.h", true));
    cr_assert(!graphics_header("geom2.h", false));
    cr_assert(!graphics_header("portolan/debugdraw.h", false));
}

/* Number of includes in file `path` that reach into runtime/ for anything but runtime/internal.h,
   each reported. */
static int scan_runtime_includes(const char* path) {
    FILE* f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    char line[1024];
    int bad = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        const char* p = line;
        while (*p == ' ' || *p == '\t') ++p;
        if (strncmp(p, "#include \"", 10) != 0) continue;
        const char* r = strstr(p, "runtime/");
        if (r && strncmp(r, "runtime/internal.h\"", 19) != 0) {
            fprintf(stderr, "%s:%d: %s", path, lineno, p);
            ++bad;
        }
    }
    fclose(f);
    return bad;
}

/* scan_runtime_includes on every .c and .h of `dir` and its subfolders (one level). */
static int scan_runtime_tree(const char* dir, int* files) {
    DIR* d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    struct dirent* e;
    int bad = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            DIR* sub = opendir(path);
            cr_assert_not_null(sub, "cannot open %s", path);
            struct dirent* s;
            while ((s = readdir(sub))) {
                if (!ends_with(s->d_name, ".c") && !ends_with(s->d_name, ".h")) continue;
                char file[2048];
                snprintf(file, sizeof file, "%s/%s", path, s->d_name);
                bad += scan_runtime_includes(file);
                ++*files;
            }
            closedir(sub);
        } else if (ends_with(e->d_name, ".c") || ends_with(e->d_name, ".h")) {
            bad += scan_runtime_includes(path);
            ++*files;
        }
    }
    closedir(d);
    return bad;
}

Test(includes, bake_and_gen_include_nothing_from_the_runtime_but_its_internal_header) {
    const char* root = project_root();
    cr_assert_not_null(root);
    char dir[512];
    int bad = 0, files = 0;
    snprintf(dir, sizeof dir, "%s/bake", root);
    bad += scan_runtime_tree(dir, &files);
    snprintf(dir, sizeof dir, "%s/gen", root);
    bad += scan_runtime_tree(dir, &files);
    cr_assert_gt(files, 40, "only %d sources found under %s/bake and %s/gen", files, root, root);
    cr_assert_eq(bad, 0, "%d includes of runtime/ headers other than runtime/internal.h (listed above)", bad);
    /* and the check sees what it must */
    cr_assert(strncmp(strstr("#include \"../../runtime/alloc.h\"", "runtime/"), "runtime/internal.h\"", 19) != 0);
}

/* Does file `path` hold `needle`? */
static bool file_has(const char* path, const char* needle) {
    FILE* f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    static char text[1 << 18];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return strstr(text, needle) != NULL;
}

Test(layout, readme_and_architecture_tables_name_every_folder_of_the_bake) {
    const char* root = project_root();
    cr_assert_not_null(root);
    char dir[512], readme[512], arch[512];
    snprintf(dir, sizeof dir, "%s/bake", root);
    snprintf(readme, sizeof readme, "%s/README.md", root);
    snprintf(arch, sizeof arch, "%s/docs/ARCHITECTURE.md", root);
    DIR* d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    struct dirent* e;
    int folders = 0;
    while ((e = readdir(d))) {
        char path[1024], row[300];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        snprintf(row, sizeof row, "| `bake/%s/` |", e->d_name);
        cr_expect(file_has(readme, row), "README.md's layout table has no row %s", row);
        cr_expect(file_has(arch, row), "docs/ARCHITECTURE.md's folder table has no row %s", row);
        ++folders;
    }
    closedir(d);
    cr_assert_geq(folders, 8, "bake/ has %d stage folders", folders);
    cr_expect(file_has(readme, "| `gen/` |") && file_has(arch, "| `gen/` |"), "a table has no row for gen/");
}

/* Does the umbrella header portolan.h include `name` (as "name" or <portolan/name>)? */
static bool umbrella_includes(const char* root, const char* name) {
    char path[512], line[1024], quoted[300], angled[300];
    snprintf(path, sizeof path, "%s/include/portolan/portolan.h", root);
    snprintf(quoted, sizeof quoted, "#include \"%s\"", name);
    snprintf(angled, sizeof angled, "#include <portolan/%s>", name);
    FILE* f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, quoted) == line || strstr(line, angled) == line;
    fclose(f);
    return found;
}

Test(includes, the_umbrella_header_includes_every_public_header_but_the_gl_libraries) {
    const char* root = project_root();
    cr_assert_not_null(root);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/include/portolan", root);
    char** hdrs = test_list_files(dir, ".h");
    cr_assert_not_null(hdrs, "no public header under %s", dir);
    int checked = 0;
    for (char** h = hdrs; *h; ++h) {
        const char* name = strrchr(*h, '/') ? strrchr(*h, '/') + 1 : *h;
        if (!strcmp(name, "portolan.h")) continue;
        bool want = strcmp(name, "debugdraw_gl.h") != 0 && strcmp(name, "gpu.h") != 0;
        cr_expect_eq(umbrella_includes(root, name), want, "portolan.h %s %s", want ? "misses" : "must not include", name);
        ++checked;
    }
    test_free_list(hdrs);
    cr_assert_geq(checked, 5, "only %d public headers found", checked);
}
