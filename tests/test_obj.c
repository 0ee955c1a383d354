/* Tests of the OBJ reader (ptl_obj_load / ptl_obj_parse), the generated 3D scenes
   (ptl_scene_generate) and ptl_trimesh_save_obj.

   The shared meshes (../shared/data/meshes, or $PTL_DATA/meshes) are checked against a second,
   deliberately simple reader written here with strtod and strtol; tests that need them skip loudly
   when they are absent. The generated scenes are checked for the properties an agent of height
   2.0, radius 0.6, max climb 0.9 and max slope 45° needs: a floor at every storey, risers of at
   most 0.2 m, a ramp of at most 25°, 2.1 m of headroom above stairs and ramps. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <portolan/bake.h>
#include <portolan/gen.h>

#include "test_util.h"

#define PI 3.14159265358979323846

/* ---- Helpers -------------------------------------------------------------------------------------*/

static void parse_ok(const char* text, ptl_trimesh* m) {
    ptl_error err;
    ptl_status st = ptl_obj_parse(text, strlen(text), "inline.obj", NULL, m, &err);
    cr_assert_eq(st, PTL_OK, "parse failed: %s\n%s", err.message, text);
}

/* Parses text that must fail with PTL_ERR_PARSE and a message containing `want`. */
static void parse_fails(const char* text, size_t len, const char* want) {
    ptl_trimesh m;
    ptl_error err;
    memset(&err, 0, sizeof err);
    ptl_status st = ptl_obj_parse(text, len, "bad.obj", NULL, &m, &err);
    cr_assert_eq(st, PTL_ERR_PARSE, "expected a parse error for:\n%s\n(got status %d: %s)", text, st, err.message);
    cr_assert(strstr(err.message, "bad.obj:") == err.message, "message must start with the name: %s", err.message);
    cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
    cr_assert_eq(m.verts, NULL, "a failed parse leaves no arrays");
    cr_assert_eq(m.tri_count, 0);
}

static const uint32_t* tri(const ptl_trimesh* m, uint32_t t) { return m->tris + (size_t)t * 3; }

static void expect_tri(const ptl_trimesh* m, uint32_t t, uint32_t a, uint32_t b, uint32_t c) {
    const uint32_t* v = tri(m, t);
    cr_assert(v[0] == a && v[1] == b && v[2] == c, "triangle %u is (%u %u %u), expected (%u %u %u)", t, v[0], v[1], v[2],
              a, b, c);
}

static const char* tag_of(const ptl_trimesh* m, uint32_t t) { return m->tag_names[m->tri_tag[t]]; }

static char* slurp(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    buf[got] = '\0';
    if (len) *len = got;
    return buf;
}

/* A fresh temporary file name (the file exists, empty). */
static void temp_path(char path[64]) {
    snprintf(path, 64, "/tmp/ptl_test_obj_XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp failed");
    close(fd);
}

/* ---- An independent reader for the shared meshes ------------------------------------------------
   Lines "v x y z ..." and "f a b c ..." (a = i, i/t, i//n or i/t/n, negative = relative), read with
   strtod and strtol; no continuation lines (the shared files have none). */
typedef struct ref_mesh {
    float* v;
    size_t nv, capv;
    uint32_t* t;
    size_t nt, capt; /* triangles */
} ref_mesh;

static void ref_read(const char* path, ref_mesh* r) {
    memset(r, 0, sizeof *r);
    char* text = slurp(path, NULL);
    cr_assert(text, "cannot read %s", path);
    char* save = NULL;
    for (char* line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == 'v' && (line[1] == ' ' || line[1] == '\t')) {
            if (r->nv + 3 > r->capv) r->v = realloc(r->v, (r->capv = 2 * r->capv + 48) * sizeof *r->v);
            char* p = line + 2;
            for (int c = 0; c < 3; ++c) r->v[r->nv++] = (float)strtod(p, &p);
        } else if (line[0] == 'f' && (line[1] == ' ' || line[1] == '\t')) {
            long idx[64];
            int k = 0;
            char* p = line + 2;
            for (;;) {
                while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
                if (!*p) break;
                long i = strtol(p, &p, 10);
                while (*p && *p != ' ' && *p != '\t' && *p != '\r') ++p; /* /t/n */
                long count = (long)(r->nv / 3);
                idx[k++] = i < 0 ? count + i : i - 1;
            }
            for (int j = 2; j < k; ++j) {
                if (r->nt * 3 + 3 > r->capt) r->t = realloc(r->t, (r->capt = 2 * r->capt + 48) * sizeof *r->t);
                r->t[r->nt * 3] = (uint32_t)idx[0];
                r->t[r->nt * 3 + 1] = (uint32_t)idx[j - 1];
                r->t[r->nt * 3 + 2] = (uint32_t)idx[j];
                r->nt++;
            }
        }
    }
    free(text);
}

static void ref_free(ref_mesh* r) {
    free(r->v);
    free(r->t);
}

/* Triangles counted from the text alone: corners of each face line minus two. */
static long count_fan_triangles(const char* path) {
    char* text = slurp(path, NULL);
    if (!text) return -1;
    long n = 0;
    for (char* p = text; *p;) {
        char* e = strchr(p, '\n');
        if (!e) e = p + strlen(p);
        if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
            long tokens = 0;
            bool in = false;
            for (char* q = p + 1; q < e; ++q) {
                bool blank = *q == ' ' || *q == '\t' || *q == '\r';
                if (!blank && !in) ++tokens;
                in = !blank;
            }
            n += tokens - 2;
        }
        p = *e ? e + 1 : e;
    }
    free(text);
    return n;
}

/* ---- The shared meshes ---------------------------------------------------------------------------*/

Test(obj, all_shared_meshes_load_with_the_triangle_counts_of_an_independent_count) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** files = test_list_files(dir, ".obj");
    size_t n = 0;
    for (char** p = files; *p; ++p, ++n) {
        ptl_trimesh m;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(*p, NULL, &m, &err), PTL_OK, "%s: %s", *p, err.message);
        long want = count_fan_triangles(*p);
        cr_assert_eq((long)m.tri_count, want, "%s: %u triangles, the text has %ld", *p, m.tri_count, want);
        cr_assert_eq(m.tag_count >= 1, 1);
        cr_assert_str_eq(m.tag_names[0], "");
        for (uint32_t t = 0; t < m.tri_count; ++t) cr_assert_lt(m.tri_tag[t], m.tag_count);
        /* The README's counts. */
        static const struct { const char* file; uint32_t tris; } known[] = {
            {"/dungeon.obj", 10133}, {"/nav_test.obj", 1612}, {"/undulating.obj", 5202}, {"/house.obj", 4494}};
        for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k) {
            size_t fl = strlen(*p), kl = strlen(known[k].file);
            if (fl > kl && !strcmp(*p + fl - kl, known[k].file))
                cr_assert_eq(m.tri_count, known[k].tris, "%s: %u triangles, the data README says %u", *p, m.tri_count,
                             known[k].tris);
        }
        ptl_trimesh_free(&m);
    }
    test_free_list(files);
    cr_assert_eq(n, 13, "expected the 13 OBJ files of %s, found %zu", dir, n);
}

Test(obj, shared_meshes_match_a_strtod_reader_vertex_for_vertex_and_bounds_cover_the_used_vertices) {
    TEST_REQUIRE_DATA(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/meshes", data);
    char** files = test_list_files(dir, ".obj");
    for (char** p = files; *p; ++p) {
        ptl_trimesh m;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(*p, NULL, &m, &err), PTL_OK, "%s: %s", *p, err.message);
        ref_mesh r;
        ref_read(*p, &r);
        cr_assert_eq((size_t)m.vert_count * 3, r.nv, "%s: vertex count", *p);
        cr_assert_eq((size_t)m.tri_count, r.nt, "%s: triangle count", *p);
        for (size_t i = 0; i < r.nv; ++i)
            cr_assert(m.verts[i] == r.v[i], "%s: coordinate %zu is %.9g, strtod says %.9g", *p, i, m.verts[i], r.v[i]);
        cr_assert(!memcmp(m.tris, r.t, r.nt * 3 * sizeof *r.t), "%s: triangles differ from the fans of the text", *p);
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t i = 0; i < r.nt * 3; ++i)
            for (int c = 0; c < 3; ++c) {
                lo[c] = fminf(lo[c], r.v[(size_t)r.t[i] * 3 + c]);
                hi[c] = fmaxf(hi[c], r.v[(size_t)r.t[i] * 3 + c]);
            }
        for (int c = 0; c < 3; ++c) {
            cr_assert(m.bmin[c] == lo[c] && m.bmax[c] == hi[c], "%s: bounds axis %d [%g, %g], expected [%g, %g]", *p, c,
                      m.bmin[c], m.bmax[c], lo[c], hi[c]);
        }
        ref_free(&r);
        ptl_trimesh_free(&m);
    }
    test_free_list(files);
}

Test(obj, shared_meshes_survive_a_save_and_reload_unchanged) {
    TEST_REQUIRE_DATA(data);
    const char* names[] = {"dungeon.obj", "nav_test.obj", "go-detour-develer.obj"};
    for (size_t k = 0; k < 3; ++k) {
        char path[1024], tmp[64];
        snprintf(path, sizeof path, "%s/meshes/%s", data, names[k]);
        ptl_trimesh a, b;
        ptl_error err;
        cr_assert_eq(ptl_obj_load(path, NULL, &a, &err), PTL_OK, "%s", err.message);
        temp_path(tmp);
        cr_assert_eq(ptl_trimesh_save_obj(&a, tmp, &err), PTL_OK, "%s", err.message);
        cr_assert_eq(ptl_obj_load(tmp, NULL, &b, &err), PTL_OK, "%s", err.message);
        unlink(tmp);
        cr_assert_eq(a.vert_count, b.vert_count);
        cr_assert_eq(a.tri_count, b.tri_count);
        cr_assert(!memcmp(a.verts, b.verts, (size_t)a.vert_count * 3 * sizeof(float)), "%s: vertices changed", names[k]);
        cr_assert(!memcmp(a.tris, b.tris, (size_t)a.tri_count * 3 * sizeof(uint32_t)), "%s: triangles changed", names[k]);
        for (uint32_t t = 0; t < a.tri_count; ++t) cr_assert_str_eq(tag_of(&a, t), tag_of(&b, t), "%s: tag of %u", names[k], t);
        ptl_trimesh_free(&a);
        ptl_trimesh_free(&b);
    }
}

/* ---- Syntax ---------------------------------------------------------------------------------------*/

Test(obj, polygons_are_fan_triangulated_from_their_first_corner) {
    ptl_trimesh m;
    parse_ok("v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nv 0.5 0 1.5\n"
             "f 1 2 3 4\n"
             "f 1 2 3 4 5\n"
             "f 5 4 3\n",
             &m);
    cr_assert_eq(m.tri_count, 2 + 3 + 1);
    expect_tri(&m, 0, 0, 1, 2);
    expect_tri(&m, 1, 0, 2, 3);
    expect_tri(&m, 2, 0, 1, 2);
    expect_tri(&m, 3, 0, 2, 3);
    expect_tri(&m, 4, 0, 3, 4);
    expect_tri(&m, 5, 4, 3, 2);
    ptl_trimesh_free(&m);
}

Test(obj, negative_indices_count_back_from_the_last_vertex_read) {
    ptl_trimesh m;
    parse_ok("v 0 0 0\nv 1 0 0\nv 1 0 1\n"
             "f -3 -2 -1\n"
             "v 0 0 1\n"
             "f -4 -2 -1\n"
             "f 1 -2 4\n",
             &m);
    cr_assert_eq(m.tri_count, 3);
    expect_tri(&m, 0, 0, 1, 2);
    expect_tri(&m, 1, 0, 2, 3);
    expect_tri(&m, 2, 0, 2, 3);
    ptl_trimesh_free(&m);
}

Test(obj, face_corners_may_name_texture_and_normal_indices) {
    ptl_trimesh m;
    parse_ok("v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\n"
             "vt 0 0\nvt 1 0\nvt 1 1\nvn 0 1 0\n"
             "f 1/1 2/2 3/3\n"
             "f 1//1 3//1 4//1\n"
             "f 1/1/1 2/2/1 3/3/1 4/3/1\n"
             "f -4/-3/-1 -3/-2/-1 -2/-1/-1\n",
             &m);
    cr_assert_eq(m.tri_count, 1 + 1 + 2 + 1);
    expect_tri(&m, 0, 0, 1, 2);
    expect_tri(&m, 1, 0, 2, 3);
    expect_tri(&m, 2, 0, 1, 2);
    expect_tri(&m, 3, 0, 2, 3);
    expect_tri(&m, 4, 0, 1, 2);
    ptl_trimesh_free(&m);
}

Test(obj, tags_follow_the_latest_g_o_or_usemtl_and_repeat_names_share_an_id) {
    ptl_trimesh m;
    parse_ok("v 0 0 0\nv 1 0 0\nv 1 0 1\n"
             "f 1 2 3\n"                 /* tag 0 */
             "o House\nf 1 2 3\n"        /* o House */
             "g walls  outer\nf 1 2 3\n" /* g walls outer (blanks collapse) */
             "usemtl stone\nf 1 2 3\n"   /* usemtl stone: no combination with the group */
             "g\nf 1 2 3\n"              /* a bare g: back to tag 0 */
             "g walls outer\nf 1 2 3\n"  /* the same id as before */
             "g House\nf 1 2 3\n",       /* g House is not o House */
             &m);
    cr_assert_eq(m.tri_count, 7);
    cr_assert_eq(m.tag_count, 5);
    cr_assert_str_eq(tag_of(&m, 0), "");
    cr_assert_str_eq(tag_of(&m, 1), "o House");
    cr_assert_str_eq(tag_of(&m, 2), "g walls outer");
    cr_assert_str_eq(tag_of(&m, 3), "usemtl stone");
    cr_assert_eq(m.tri_tag[4], 0);
    cr_assert_eq(m.tri_tag[5], m.tri_tag[2]);
    cr_assert_str_eq(tag_of(&m, 6), "g House");
    cr_assert_eq(m.tri_tag[1], 1);
    cr_assert_eq(m.tri_tag[2], 2);
    cr_assert_eq(m.tri_tag[3], 3);
    cr_assert_eq(m.tri_tag[6], 4);
    ptl_trimesh_free(&m);
}

Test(obj, crlf_comments_continuations_and_other_statements_are_accepted) {
    ptl_trimesh m;
    parse_ok("# a comment\r\n"
             "mtllib level.mtl\r\n"
             "\r\n"
             "   \t\r\n"
             "v 0 0 0 # trailing comment\r\n"
             "v 1 \\\r\n 0 0\r\n"
             "v 1 0 1\\\n"
             "\r\n"
             "vt 0 0\r\nvn 0 1 0\r\nvp 0.5\r\ns off\r\nl 1 2\r\np 1\r\n"
             "f 1 2 \\\n 3\r\n"
             "f 1\\\r\n 2 3 # the last face\r\n"
             "# no newline at the end",
             &m);
    cr_assert_eq(m.vert_count, 3);
    cr_assert_eq(m.tri_count, 2);
    expect_tri(&m, 0, 0, 1, 2);
    expect_tri(&m, 1, 0, 1, 2);
    cr_assert_eq(m.verts[3], 1.0f);
    cr_assert_eq(m.verts[8], 1.0f);
    ptl_trimesh_free(&m);
}

Test(obj, a_utf8_byte_order_mark_and_utf8_names_are_accepted) {
    ptl_trimesh m;
    parse_ok("\xef\xbb\xbfv 0 0 0\nv 1 0 0\nv 0 0 1\nusemtl pi\xc3\xa8tra\nf 1 2 3\n", &m);
    cr_assert_eq(m.tri_count, 1);
    cr_assert_str_eq(tag_of(&m, 0), "usemtl pi\xc3\xa8tra");
    ptl_trimesh_free(&m);
}

Test(obj, vertex_lines_may_carry_w_or_colours) {
    ptl_trimesh m;
    parse_ok("v 0 0 0 1.0\nv 1 0 0 0.5 0.25 1\nv 1 2 3 1 0 0 1\nf 1 2 3\n", &m);
    cr_assert_eq(m.vert_count, 3);
    cr_assert(m.verts[6] == 1 && m.verts[7] == 2 && m.verts[8] == 3);
    ptl_trimesh_free(&m);
}

Test(obj, bounds_ignore_vertices_no_triangle_uses) {
    ptl_trimesh m;
    parse_ok("v -100 -100 -100\nv 0 0 0\nv 1 2 0\nv 0 0 3\nv 500 500 500\nf 2 3 4\n", &m);
    cr_assert_eq(m.vert_count, 5, "unused vertices stay, indices unchanged");
    cr_assert(m.bmin[0] == 0 && m.bmin[1] == 0 && m.bmin[2] == 0);
    cr_assert(m.bmax[0] == 1 && m.bmax[1] == 2 && m.bmax[2] == 3);
    ptl_trimesh_free(&m);
}

Test(obj, huge_finite_coordinates_are_accepted) {
    ptl_trimesh m;
    parse_ok("v 1e7 0 -10000000.5\nv 3.4e38 -3.4e38 1e-40\nv 12345678901234567890 0 0\nf 1 2 3\n", &m);
    cr_assert_eq(m.verts[0], 1e7f);
    cr_assert_eq(m.verts[2], (float)-10000000.5);
    cr_assert_eq(m.verts[3], 3.4e38f);
    cr_assert_eq(m.verts[5], (float)1e-40);
    cr_assert_eq(m.verts[6], 12345678901234567890.0f);
    ptl_trimesh_free(&m);
}

/* Random decimal spellings read back exactly as (float)strtod, fast path or not. */
Test(obj, numbers_read_exactly_as_strtod_reads_them) {
    uint64_t s = 0x1234567ull;
    char* text = malloc(1 << 20);
    char (*num)[64] = malloc(3000 * sizeof *num);
    size_t len = 0;
    int count = 0;
    static const char* const fixed[] = {"0", "-0", "+1", ".5", "5.", "-.25", "0.1", "0.30000000000000004",
                                        "1e-45", "1.17549435e-38", "3.40282346e38", "9007199254740993",
                                        "123456789012345678901234567890", "0.000000000000000000000000001",
                                        "1E5", "2.5e+3", "-7.125E-2", "00012.50", "4.9406564584124654e-324"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i) snprintf(num[count++], 64, "%s", fixed[i]);
    /* Halfway between two floats, to 17 digits: the double must be the correctly rounded one or
       the float can land on the wrong side. */
    while (count < 1500) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        float f = (float)((double)(s >> 11) / 9007199254740992.0 * 2e5);
        double mid = 0.5 * ((double)f + (double)nextafterf(f, INFINITY));
        snprintf(num[count++], 64, "%.17g", (s >> 5) & 1 ? mid : -mid);
    }
    while (count < 3000) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = s >> 11;
        char* p = num[count];
        int n = 0;
        if (r & 1) p[n++] = (r & 2) ? '-' : '+';
        int id = 1 + (int)((r >> 2) % 12), fd = (int)((r >> 6) % 12);
        if ((r >> 10) % 8 == 0) id = 15 + (int)((r >> 13) % 10); /* past the fast path's 19 digits */
        for (int k = 0; k < id; ++k) p[n++] = (char)('0' + (s >> (17 + k % 40)) % 10);
        if (fd) {
            p[n++] = '.';
            for (int k = 0; k < fd; ++k) p[n++] = (char)('0' + (s >> (7 + k * 3 % 50)) % 10);
        }
        if ((r >> 20) % 3 == 0) n += snprintf(p + n, 64 - (size_t)n, "e%d", (int)((r >> 24) % 50) - 30);
        p[n] = '\0';
        if (!isfinite((float)strtod(p, NULL))) continue;
        ++count;
    }
    for (int i = 0; i < count; i += 3)
        len += (size_t)snprintf(text + len, (1 << 20) - len, "v %s %s %s\n", num[i], num[i + 1 < count ? i + 1 : 0],
                                num[i + 2 < count ? i + 2 : 0]);
    len += (size_t)snprintf(text + len, (1 << 20) - len, "f 1 2 3\n");
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_obj_parse(text, len, "nums.obj", NULL, &m, &err), PTL_OK, "%s", err.message);
    for (int i = 0; i < count; ++i) {
        float want = (float)strtod(num[i], NULL);
        cr_assert(m.verts[i] == want && signbit(m.verts[i]) == signbit(want), "'%s' read as %.9g, strtod gives %.9g",
                  num[i], m.verts[i], want);
    }
    ptl_trimesh_free(&m);
    free(num);
    free(text);
}

Test(obj, malformed_numbers_indices_and_statements_are_parse_errors_naming_the_line) {
    static const struct { const char* text; const char* want; } cases[] = {
        {"v 0 0 0\nv 1e 0 0\n", ":2: coordinate '1e' is not a number"},
        {"v 0 0 0\nv 1.2.3 0 0\n", ":2: coordinate '1.2.3' is not a number"},
        {"v 0x10 0 0\n", ":1: coordinate '0x10' is not a number"},
        {"v 1 - 0\n", "coordinate '-' is not a number"},
        {"v 1 .e5 0\n", "coordinate '.e5' is not a number"},
        {"v 1 2 3e+\n", "coordinate '3e+' is not a number"},
        {"\n\nv NaN 0 0\n", ":3: coordinate 'NaN' is not a finite number"},
        {"v 0 -infinity 0\n", "coordinate '-infinity' is not a finite number"},
        {"v 0 0 1e999\n", "coordinate '1e999' is not a finite number"},
        {"v 0 0 1e39\n", "coordinate '1e39' is beyond the range of a float"},
        {"v 1 2\n", ":1: vertex has 2 coordinates, expected 3"},
        {"v\n", "vertex has 0 coordinates"},
        {"v 1 2 3 w\n", "'w' after the vertex position is not a number"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 0\n", ":4: vertex index 0 is invalid"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4\n", ":4: vertex index 4 is out of range (3 vertices so far)"},
        {"f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 0 1\n", ":1: vertex index 1 is out of range (0 vertices so far)"},
        {"v 0 0 0\nv 1 0 0\nf -1 -2 -3\n", "relative vertex index -3 reaches before the first vertex (2 vertices so far)"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2\n", ":4: face has 2 vertices, at least 3 needed"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf\n", "face has 0 vertices"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1/ 2 3\n", "face vertex '1/' is not an index"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1/1/1/1 2 3\n", "face vertex '1/1/1/1' is not an index"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1// 2 3\n", "face vertex '1//' is not an index"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf a b c\n", "face vertex 'a' is not an index"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1.0 2 3\n", "face vertex '1.0' is not an index"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 99999999999999999999 2 3\n", "is not an index"},
        {"hello world\n", ":1: unknown statement 'hello'"},
        {"v 0 0 0\nV 1 0 0\n", ":2: unknown statement 'V'"},
        {"v 0 0 0\nv 1 \\\n 0 0\nv 0 x 1\n", ":4: coordinate 'x' is not a number"},
        {"", ":1: empty file"},
        {"# only\n\n# comments\n", "empty file"},
        {"v 0 0 0\nv 1 0 0\n\n", ":2: no faces: 2 vertices but not one triangle"},
        {"v 0 0 0\ng empty\n", "no faces"},
        {"v 0 0 0\nv 1 0\x01 0\n", ":2: unexpected byte 0x01"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        parse_fails(cases[i].text, strlen(cases[i].text), cases[i].want);
    static const char nul[] = "v 0 0 0\n\0\0\0";
    parse_fails(nul, sizeof nul - 1, ":2: unexpected byte 0x00");
}

Test(obj, bad_arguments_are_invalid_arg) {
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_obj_parse("v", 1, "x", NULL, NULL, &err), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_obj_parse(NULL, 5, "x", NULL, &m, &err), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_obj_load(NULL, NULL, &m, &err), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_obj_load("/nonexistent/dir/level.obj", NULL, &m, &err), PTL_ERR_IO);
    cr_assert(strstr(err.message, "/nonexistent/dir/level.obj"), "%s", err.message);
    ptl_trimesh_free(NULL);
    ptl_trimesh_free(&m); /* a failed load leaves a mesh that frees */
}

/* ---- Allocation failures --------------------------------------------------------------------------*/
typedef struct tracker {
    long live, calls, fail_at, mismatches;
} tracker;
#define HDR 16
static void* t_alloc(size_t size, void* user) {
    tracker* t = user;
    if (t->fail_at >= 0 && t->calls >= t->fail_at) return NULL;
    unsigned char* p = malloc(size + HDR);
    t->calls++;
    memcpy(p, &size, sizeof size);
    t->live += (long)size;
    return p + HDR;
}
static void* t_realloc(void* ptr, size_t old, size_t size, void* user) {
    tracker* t = user;
    if (t->fail_at >= 0 && t->calls >= t->fail_at) return NULL;
    unsigned char* p = (unsigned char*)ptr - HDR;
    size_t stored;
    memcpy(&stored, p, sizeof stored);
    t->mismatches += stored != old;
    unsigned char* q = realloc(p, size + HDR);
    t->calls++;
    memcpy(q, &size, sizeof size);
    t->live += (long)size - (long)stored;
    return q + HDR;
}
static void t_free(void* ptr, size_t size, void* user) {
    tracker* t = user;
    unsigned char* p = (unsigned char*)ptr - HDR;
    size_t stored;
    memcpy(&stored, p, sizeof stored);
    t->mismatches += stored != size;
    t->live -= (long)stored;
    free(p);
}

static ptl_status run_tracked(int which, tracker* t) {
    static const char text[] = "o a\nv 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 2 3 4\nusemtl b\nf -1 -2 -3\ng c\nf 1 3 4\n";
    ptl_allocator a = {t_alloc, t_realloc, t_free, t};
    ptl_trimesh m;
    ptl_error err;
    ptl_scene_desc d = {.kind = PTL_SCENE_BRIDGE, .size = 24, .seed = 1, .alloc = &a};
    ptl_status st = which == 0 ? ptl_obj_parse(text, sizeof text - 1, "t.obj", &(ptl_input_desc){.alloc = &a}, &m, &err)
                               : ptl_scene_generate(&d, &m, &err);
    if (st >= 0) {
        cr_assert_eq(m.alloc.user, t, "the mesh keeps the caller's allocator");
        ptl_trimesh_free(&m);
    }
    return st;
}

Test(obj, every_failed_allocation_is_reported_and_nothing_leaks) {
    for (int which = 0; which < 2; ++which) {
        tracker t = {0, 0, -1, 0};
        cr_assert_eq(run_tracked(which, &t), PTL_OK);
        cr_assert_eq(t.live, 0, "leaks %ld bytes", t.live);
        cr_assert_eq(t.mismatches, 0, "frees with wrong sizes");
        cr_assert_gt(t.calls, 0);
        for (long n = 0; n < t.calls; ++n) {
            tracker f = {0, 0, n, 0};
            cr_assert_eq(run_tracked(which, &f), PTL_ERR_NO_MEMORY, "%s, failing call %ld", which ? "scene" : "parse", n);
            cr_assert_eq(f.live, 0, "failing call %ld leaks %ld bytes", n, f.live);
            cr_assert_eq(f.mismatches, 0, "failing call %ld: size mismatch", n);
        }
    }
}

/* ---- Generated scenes -----------------------------------------------------------------------------*/

static void generate(ptl_scene_kind kind, float size, uint32_t storeys, uint32_t seed, ptl_trimesh* m) {
    ptl_scene_desc d = {.kind = kind, .size = size, .storeys = storeys, .seed = seed};
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(&d, m, &err), PTL_OK, "kind %d size %g storeys %u: %s", kind, size, storeys,
                 err.message);
}

typedef struct vec3 {
    double x, y, z;
} vec3;

static vec3 vtx(const ptl_trimesh* m, uint32_t v) {
    return (vec3){m->verts[(size_t)v * 3], m->verts[(size_t)v * 3 + 1], m->verts[(size_t)v * 3 + 2]};
}

/* Unnormalised normal (b - a) x (c - a) of triangle t. */
static vec3 normal(const ptl_trimesh* m, uint32_t t) {
    vec3 a = vtx(m, tri(m, t)[0]), b = vtx(m, tri(m, t)[1]), c = vtx(m, tri(m, t)[2]);
    vec3 u = {b.x - a.x, b.y - a.y, b.z - a.z}, v = {c.x - a.x, c.y - a.y, c.z - a.z};
    return (vec3){u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x};
}
static double len3(vec3 v) { return sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

static bool has_tag(const ptl_trimesh* m, uint32_t t, const char* name) { return !strcmp(tag_of(m, t), name); }

/* Triangle t is walkable (normal within 45° of +y) and lies at height y. */
static bool floor_at(const ptl_trimesh* m, uint32_t t, double y) {
    vec3 n = normal(m, t);
    if (!(n.y > cos(PI / 4) * len3(n))) return false;
    for (int k = 0; k < 3; ++k)
        if (fabs(vtx(m, tri(m, t)[k]).y - y) > 1e-4) return false;
    return true;
}

/* Lowest surface strictly above point p (any triangle whose x-z projection holds p), minus p.y. */
static double headroom(const ptl_trimesh* m, vec3 p) {
    double best = INFINITY;
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        vec3 a = vtx(m, tri(m, t)[0]), b = vtx(m, tri(m, t)[1]), c = vtx(m, tri(m, t)[2]);
        double d = (b.x - a.x) * (c.z - a.z) - (c.x - a.x) * (b.z - a.z);
        if (fabs(d) < 1e-9) continue; /* vertical */
        double u = ((p.x - a.x) * (c.z - a.z) - (c.x - a.x) * (p.z - a.z)) / d;
        double v = ((b.x - a.x) * (p.z - a.z) - (p.x - a.x) * (b.z - a.z)) / d;
        if (u < -1e-9 || v < -1e-9 || u + v > 1 + 1e-9) continue;
        double y = a.y + u * (b.y - a.y) + v * (c.y - a.y);
        if (y > p.y + 0.05 && y - p.y < best) best = y - p.y;
    }
    return best;
}

/* Every up-facing triangle tagged `name` has headroom >= 2.1 m at its centroid and near its corners. */
static void check_headroom(const ptl_trimesh* m, const char* name, double need) {
    int checked = 0;
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        if (!has_tag(m, t, name) || normal(m, t).y <= 0.5 * len3(normal(m, t))) continue;
        vec3 c[3] = {vtx(m, tri(m, t)[0]), vtx(m, tri(m, t)[1]), vtx(m, tri(m, t)[2])};
        static const double w[4][3] = {{1 / 3.0, 1 / 3.0, 1 / 3.0}, {0.8, 0.1, 0.1}, {0.1, 0.8, 0.1}, {0.1, 0.1, 0.8}};
        for (int k = 0; k < 4; ++k) {
            vec3 p = {w[k][0] * c[0].x + w[k][1] * c[1].x + w[k][2] * c[2].x,
                      w[k][0] * c[0].y + w[k][1] * c[1].y + w[k][2] * c[2].y,
                      w[k][0] * c[0].z + w[k][1] * c[1].z + w[k][2] * c[2].z};
            double h = headroom(m, p);
            cr_assert_geq(h, need, "%s at (%.2f, %.2f, %.2f): %.2f m of headroom", name, p.x, p.y, p.z, h);
            ++checked;
        }
    }
    cr_assert_gt(checked, 0, "no up-facing '%s' triangles", name);
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* The heights of the horizontal tops tagged "g stairs", with the `nf` floor heights they join,
   climb in risers of at most 0.2 m, and each tread is at least 0.28 m deep. Returns the number of
   risers (distinct heights less one). */
static int check_stairs(const ptl_trimesh* m, const double* floors, int nf) {
    double* h = malloc(((size_t)m->tri_count + (size_t)nf) * sizeof *h);
    int n = 0;
    for (int i = 0; i < nf; ++i) h[n++] = floors[i];
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        if (!has_tag(m, t, "g stairs")) continue;
        vec3 nm = normal(m, t);
        if (nm.y < 0.999 * len3(nm)) continue;
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int k = 0; k < 3; ++k) {
            vec3 p = vtx(m, tri(m, t)[k]);
            lo[0] = fmin(lo[0], p.x), hi[0] = fmax(hi[0], p.x), lo[1] = fmin(lo[1], p.z), hi[1] = fmax(hi[1], p.z);
        }
        cr_assert_geq(fmin(hi[0] - lo[0], hi[1] - lo[1]), 0.28, "a stair tread is %.3f m deep",
                      fmin(hi[0] - lo[0], hi[1] - lo[1]));
        h[n++] = vtx(m, tri(m, t)[0]).y;
    }
    qsort(h, (size_t)n, sizeof *h, cmp_double);
    int distinct = 0;
    for (int i = 1; i < n; ++i) {
        if (h[i] - h[i - 1] < 1e-4) continue;
        cr_assert_leq(h[i] - h[i - 1], 0.2 + 1e-4, "a riser of %.3f m between %.3f and %.3f", h[i] - h[i - 1],
                      h[i - 1], h[i]);
        ++distinct;
    }
    free(h);
    return distinct;
}

/* Every sloped triangle tagged "g ramp" is walkable and at most `deg` steep. */
static void check_ramp(const ptl_trimesh* m, double deg) {
    int sloped = 0;
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        if (!has_tag(m, t, "g ramp")) continue;
        vec3 n = normal(m, t);
        double c = n.y / len3(n);
        if (c <= 0.5 || c > 0.9999) continue; /* sides, bottom, end; flat tops */
        double angle = acos(c) * 180 / PI;
        cr_assert_leq(angle, deg, "ramp slope %.1f°", angle);
        cr_assert_geq(angle, 10.0, "ramp slope %.1f°", angle);
        ++sloped;
    }
    cr_assert_geq(sloped, 2, "no sloped ramp surface");
}

static uint32_t find_root(uint32_t* parent, uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* Each piece (triangles connected through shared vertex ids: one box, wedge or railing, or the
   terrain's surface with its skirts) encloses a positive signed volume, so its triangles are
   counter-clockwise seen from outside. Volumes are taken from the mesh's lowest corner, so an
   open piece whose missing face lies in the plane y = bmin.y (the terrain without its separate
   bottom quad) is measured as if closed; flat pieces (that bottom quad) are skipped. */
static void check_solids_face_outward(const ptl_trimesh* m) {
    uint32_t* parent = malloc((size_t)m->vert_count * sizeof *parent);
    for (uint32_t v = 0; v < m->vert_count; ++v) parent[v] = v;
    for (uint32_t t = 0; t < m->tri_count; ++t)
        for (int k = 1; k < 3; ++k) {
            uint32_t a = find_root(parent, tri(m, t)[0]), b = find_root(parent, tri(m, t)[k]);
            if (a != b) parent[a] = b;
        }
    double* vol = calloc(m->vert_count, sizeof *vol);
    double* ylo = malloc((size_t)m->vert_count * sizeof *ylo);
    double* yhi = malloc((size_t)m->vert_count * sizeof *yhi);
    for (uint32_t v = 0; v < m->vert_count; ++v) ylo[v] = INFINITY, yhi[v] = -INFINITY;
    vec3 o = {m->bmin[0], m->bmin[1], m->bmin[2]};
    for (uint32_t t = 0; t < m->tri_count; ++t) {
        vec3 p[3];
        for (int k = 0; k < 3; ++k) {
            vec3 q = vtx(m, tri(m, t)[k]);
            p[k] = (vec3){q.x - o.x, q.y - o.y, q.z - o.z};
        }
        uint32_t r = find_root(parent, tri(m, t)[0]);
        vol[r] += (p[0].x * (p[1].y * p[2].z - p[1].z * p[2].y) - p[0].y * (p[1].x * p[2].z - p[1].z * p[2].x) +
                   p[0].z * (p[1].x * p[2].y - p[1].y * p[2].x)) / 6.0;
        for (int k = 0; k < 3; ++k) ylo[r] = fmin(ylo[r], p[k].y), yhi[r] = fmax(yhi[r], p[k].y);
    }
    int pieces = 0;
    for (uint32_t v = 0; v < m->vert_count; ++v) {
        if (find_root(parent, v) != v || yhi[v] < ylo[v] || yhi[v] - ylo[v] < 1e-6) continue;
        cr_assert_gt(vol[v], 1e-6, "the piece holding vertex %u encloses a volume of %g: inside out?", v, vol[v]);
        ++pieces;
    }
    cr_assert_gt(pieces, 0);
    free(parent);
    free(vol);
    free(ylo);
    free(yhi);
}

Test(obj, generated_scenes_are_byte_identical_for_the_same_desc) {
    static const struct { ptl_scene_kind k; float size; uint32_t storeys; } descs[] = {
        {PTL_SCENE_BUILDING, 40, 3}, {PTL_SCENE_BUILDING, 61.5f, 2}, {PTL_SCENE_BRIDGE, 40, 0}, {PTL_SCENE_TERRAIN, 40, 0}};
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; ++i) {
        char p[3][64];
        size_t n[3];
        char* text[3];
        for (int r = 0; r < 3; ++r) {
            ptl_trimesh m;
            ptl_error err;
            generate(descs[i].k, descs[i].size, descs[i].storeys, r == 2 ? 8 : 7, &m);
            temp_path(p[r]);
            cr_assert_eq(ptl_trimesh_save_obj(&m, p[r], &err), PTL_OK, "%s", err.message);
            ptl_trimesh_free(&m);
            text[r] = slurp(p[r], &n[r]);
            unlink(p[r]);
        }
        cr_assert(n[0] == n[1] && !memcmp(text[0], text[1], n[0]), "desc %zu: two runs give different OBJ text", i);
        cr_assert(n[0] != n[2] || memcmp(text[0], text[2], n[0]), "desc %zu: seeds 7 and 8 give the same scene", i);
        for (int r = 0; r < 3; ++r) free(text[r]);
    }
}

Test(obj, generated_scenes_have_no_degenerate_triangle_and_face_the_right_way) {
    static const struct { ptl_scene_kind k; float size; uint32_t storeys; } descs[] = {
        {PTL_SCENE_BUILDING, 24, 1}, {PTL_SCENE_BUILDING, 40, 3}, {PTL_SCENE_BUILDING, 97, 4},
        {PTL_SCENE_BRIDGE, 24, 0},   {PTL_SCENE_BRIDGE, 150, 0},  {PTL_SCENE_TERRAIN, 8, 0},
        {PTL_SCENE_TERRAIN, 33.3f, 0}};
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; ++i) {
        ptl_trimesh m;
        generate(descs[i].k, descs[i].size, descs[i].storeys, 3, &m);
        double up = 0, down = 0;
        for (uint32_t t = 0; t < m.tri_count; ++t) {
            vec3 n = normal(&m, t);
            cr_assert_gt(0.5 * len3(n), 1e-4, "desc %zu: triangle %u (%s) has area %g", i, t, tag_of(&m, t),
                         0.5 * len3(n));
            if (n.y > 0) up += n.y;
            else down -= n.y;
        }
        /* Closed surfaces: up- and down-facing projected areas balance (the terrain's bottom is
           one quad under its surface and skirts: it balances too). */
        cr_assert_lt(fabs(up - down), 1e-3 * up, "desc %zu: up-facing area %g, down-facing %g", i, up / 2, down / 2);
        check_solids_face_outward(&m);
        cr_assert_eq(m.bmin[0], 0.0f);
        cr_assert_eq(m.bmin[2], 0.0f);
        cr_assert_eq(m.bmax[0], descs[i].size);
        cr_assert_eq(m.bmax[2], descs[i].size);
        ptl_trimesh_free(&m);
    }
}

Test(obj, building_has_a_wide_floor_at_every_storey_and_stairs_and_ramp_an_agent_can_climb) {
    static const struct { float size; uint32_t storeys; uint32_t seed; } descs[] = {
        {40, 3, 0}, {24, 2, 1}, {40, 5, 2}, {77, 4, 3}, {0, 0, 4} /* defaults: 40, 3 */};
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; ++i) {
        ptl_trimesh m;
        generate(PTL_SCENE_BUILDING, descs[i].size, descs[i].storeys, descs[i].seed, &m);
        double size = descs[i].size ? descs[i].size : 40;
        uint32_t storeys = descs[i].storeys ? descs[i].storeys : 3;
        double inner = (size - 6) * (size - 6); /* the building's footprint */
        for (uint32_t k = 0; k < storeys; ++k) {
            double area = 0;
            for (uint32_t t = 0; t < m.tri_count; ++t)
                if (floor_at(&m, t, 3.0 * k)) area += 0.5 * normal(&m, t).y;
            cr_assert_gt(area, 0.6 * inner, "desc %zu storey %u: %.0f m2 of floor at y = %g (footprint %.0f)", i, k,
                         area, 3.0 * k, inner);
        }
        cr_assert_eq(m.bmax[1], 3.0f * storeys, "desc %zu: the roof is at %g", i, m.bmax[1]);
        double floors[64];
        for (uint32_t k = 0; k < storeys; ++k) floors[k] = 3.0 * k;
        int steps = check_stairs(&m, floors, (int)storeys);
        cr_assert_eq(steps, 16 * ((int)storeys - 1), "desc %zu: %d risers", i, steps);
        check_ramp(&m, 25.0);
        check_headroom(&m, "g stairs", 2.1);
        check_headroom(&m, "g ramp", 2.1);
        ptl_trimesh_free(&m);
    }
}

Test(obj, building_of_one_storey_has_no_stairs_or_ramp) {
    ptl_trimesh m;
    generate(PTL_SCENE_BUILDING, 30, 1, 0, &m);
    for (uint32_t t = 0; t < m.tri_count; ++t)
        cr_assert(!has_tag(&m, t, "g stairs") && !has_tag(&m, t, "g ramp"), "triangle %u is %s", t, tag_of(&m, t));
    ptl_trimesh_free(&m);
}

Test(obj, bigger_buildings_get_more_rooms_in_a_sensible_triangle_budget) {
    ptl_trimesh a, b;
    generate(PTL_SCENE_BUILDING, 40, 3, 0, &a);
    generate(PTL_SCENE_BUILDING, 120, 3, 0, &b);
    cr_assert(a.tri_count > 1500 && a.tri_count < 8000, "40 m, 3 storeys: %u triangles", a.tri_count);
    cr_assert_gt(b.tri_count, 5 * a.tri_count, "120 m: %u triangles, 40 m: %u", b.tri_count, a.tri_count);
    ptl_trimesh_free(&a);
    ptl_trimesh_free(&b);
}

Test(obj, bridge_deck_clears_the_floor_and_is_reached_by_a_ramp_and_stairs) {
    for (uint32_t seed = 0; seed < 4; ++seed) {
        ptl_trimesh m;
        generate(PTL_SCENE_BRIDGE, seed ? 24 + 20.0f * seed : 0, 0, seed, &m);
        double deck_top = -INFINITY, deck_bottom = INFINITY, floor_area = 0;
        for (uint32_t t = 0; t < m.tri_count; ++t) {
            if (has_tag(&m, t, "g bridge"))
                for (int k = 0; k < 3; ++k) {
                    deck_top = fmax(deck_top, vtx(&m, tri(&m, t)[k]).y);
                    deck_bottom = fmin(deck_bottom, vtx(&m, tri(&m, t)[k]).y);
                }
            if (floor_at(&m, t, 0.0) && has_tag(&m, t, "g floor")) floor_area += 0.5 * normal(&m, t).y;
        }
        double size = seed ? 24 + 20.0 * seed : 40;
        cr_assert(deck_top >= 3.0 && deck_top <= 4.0, "deck at %.2f m", deck_top);
        cr_assert_gt(deck_bottom, 2.5, "%.2f m under the deck", deck_bottom);
        cr_assert_eq(floor_area, size * size, "the floor covers the footprint, under the deck too");
        double floors[2] = {0.0, deck_top};
        int steps = check_stairs(&m, floors, 2);
        cr_assert_eq(steps, 19, "%d risers", steps);
        check_ramp(&m, 25.0);
        check_headroom(&m, "g bridge", 1e9); /* open sky above the deck */
        ptl_trimesh_free(&m);
    }
}

Test(obj, terrain_is_mostly_gentle_with_a_few_steep_ridges) {
    ptl_trimesh m;
    generate(PTL_SCENE_TERRAIN, 120, 0, 5, &m);
    double total = 0, gentle = 0, steep = 0;
    for (uint32_t t = 0; t < m.tri_count; ++t) {
        if (!has_tag(&m, t, "g terrain")) continue;
        vec3 n = normal(&m, t);
        if (n.y <= 1e-9) continue; /* skirts and bottom */
        double area = 0.5 * len3(n), deg = acos(n.y / len3(n)) * 180 / PI;
        total += area;
        if (deg < 30) gentle += area;
        if (deg > 45) steep += area;
    }
    cr_assert_gt(gentle, 0.85 * total, "%.0f%% of the terrain is under 30°", 100 * gentle / total);
    cr_assert_gt(steep, 0.002 * total, "%.2f%% of the terrain is steeper than 45°", 100 * steep / total);
    cr_assert_lt(steep, 0.1 * total, "%.0f%% of the terrain is steeper than 45°", 100 * steep / total);
    ptl_trimesh_free(&m);
}

Test(obj, saving_then_parsing_a_generated_scene_gives_the_same_triangles) {
    for (int k = 0; k < 3; ++k) {
        ptl_trimesh a, b;
        ptl_error err;
        char tmp[64];
        generate((ptl_scene_kind)k, 0, 0, 11, &a);
        temp_path(tmp);
        cr_assert_eq(ptl_trimesh_save_obj(&a, tmp, &err), PTL_OK, "%s", err.message);
        cr_assert_eq(ptl_obj_load(tmp, NULL, &b, &err), PTL_OK, "%s", err.message);
        unlink(tmp);
        cr_assert_eq(a.vert_count, b.vert_count);
        cr_assert_eq(a.tri_count, b.tri_count);
        cr_assert(!memcmp(a.verts, b.verts, (size_t)a.vert_count * 3 * sizeof(float)), "kind %d: vertices differ", k);
        cr_assert(!memcmp(a.tris, b.tris, (size_t)a.tri_count * 3 * sizeof(uint32_t)), "kind %d: triangles differ", k);
        cr_assert(!memcmp(a.tri_tag, b.tri_tag, (size_t)a.tri_count * sizeof(uint16_t)), "kind %d: tag ids differ", k);
        cr_assert_eq(a.tag_count, b.tag_count);
        for (uint32_t t = 0; t < a.tag_count; ++t) cr_assert_str_eq(a.tag_names[t], b.tag_names[t]);
        cr_assert(!memcmp(a.bmin, b.bmin, sizeof a.bmin) && !memcmp(a.bmax, b.bmax, sizeof a.bmax));
        ptl_trimesh_free(&a);
        ptl_trimesh_free(&b);
    }
}

Test(obj, scene_desc_limits_are_checked) {
    static const struct { ptl_scene_kind k; float size; uint32_t storeys; ptl_status want; } cases[] = {
        {PTL_SCENE_BUILDING, 23.9f, 3, PTL_ERR_INVALID_ARG}, {PTL_SCENE_BUILDING, 256.5f, 1, PTL_ERR_INVALID_ARG},
        {PTL_SCENE_BUILDING, 40, 65, PTL_ERR_INVALID_ARG},   {PTL_SCENE_BUILDING, -40, 3, PTL_ERR_INVALID_ARG},
        {PTL_SCENE_BUILDING, NAN, 3, PTL_ERR_INVALID_ARG},   {PTL_SCENE_BUILDING, INFINITY, 3, PTL_ERR_INVALID_ARG},
        {PTL_SCENE_BRIDGE, 20, 0, PTL_ERR_INVALID_ARG},      {PTL_SCENE_BRIDGE, 5000, 0, PTL_ERR_INVALID_ARG},
        {PTL_SCENE_TERRAIN, 7, 0, PTL_ERR_INVALID_ARG},      {PTL_SCENE_TERRAIN, 1025, 0, PTL_ERR_INVALID_ARG},
        {(ptl_scene_kind)3, 40, 0, PTL_ERR_INVALID_ARG},     {(ptl_scene_kind)-1, 40, 0, PTL_ERR_INVALID_ARG},
        {PTL_SCENE_BUILDING, 24, 64, PTL_OK},                {PTL_SCENE_BRIDGE, 24, 999, PTL_OK},
        {PTL_SCENE_TERRAIN, 8, 0, PTL_OK},                   {PTL_SCENE_BUILDING, 0, 0, PTL_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        ptl_scene_desc d = {.kind = cases[i].k, .size = cases[i].size, .storeys = cases[i].storeys, .seed = 0};
        ptl_trimesh m;
        ptl_error err;
        ptl_status st = ptl_scene_generate(&d, &m, &err);
        cr_assert_eq(st, cases[i].want, "case %zu: status %d (%s)", i, st, st < 0 ? err.message : "ok");
        if (st < 0) cr_assert(strstr(err.message, "scene:"), "case %zu: %s", i, err.message);
        ptl_trimesh_free(&m);
    }
    ptl_trimesh m;
    ptl_error err;
    cr_assert_eq(ptl_scene_generate(NULL, &m, &err), PTL_OK, "a NULL desc is the default building");
    cr_assert_eq(m.bmax[0], 40.0f);
    cr_assert_eq(m.bmax[1], 9.0f);
    ptl_trimesh_free(&m);
    cr_assert_eq(ptl_scene_generate(NULL, NULL, &err), PTL_ERR_INVALID_ARG);
    cr_assert_eq(ptl_trimesh_save_obj(NULL, "/tmp/x.obj", &err), PTL_ERR_INVALID_ARG);
}

Test(obj, save_reports_an_unwritable_path_and_a_bad_index) {
    ptl_trimesh m;
    ptl_error err;
    generate(PTL_SCENE_BRIDGE, 30, 0, 0, &m);
    cr_assert_eq(ptl_trimesh_save_obj(&m, "/nonexistent/dir/x.obj", &err), PTL_ERR_IO);
    cr_assert(strstr(err.message, "/nonexistent/dir/x.obj"), "%s", err.message);
    m.tris[4] = m.vert_count;
    cr_assert_eq(ptl_trimesh_save_obj(&m, "/tmp/never_written.obj", &err), PTL_ERR_INVALID_ARG);
    m.tris[4] = 0;
    ptl_trimesh_free(&m);
}

/* ptl_obj_load reads the file a chunk of whole lines at a time (1 MiB): a 3 MiB file whose
   statements run over line continuations, CRLF ends, comments ending in a backslash, tags and a
   line longer than a chunk, placed all along so that chunk ends fall on every kind of line, loads
   into the same mesh as ptl_obj_parse over the whole text, and the errors name the same line. */
Test(obj, a_file_read_in_chunks_is_the_text_parsed_whole) {
    const size_t target = 3u << 20;
    size_t cap = target + 2 * (2u << 20), n = 0;
    char* text = malloc(cap);
    uint32_t nv = 0, seed = 7;
    n += (size_t)sprintf(text + n, "\xef\xbb\xbf# a BOM first\n");
    while (n < target) {
        seed = seed * 1664525u + 1013904223u;
        const uint32_t kind = (seed >> 8) % 9;
        const float x = (float)((seed >> 4) % 1000) * 0.01f, z = (float)((seed >> 12) % 1000) * 0.01f;
        if (kind == 0) n += (size_t)sprintf(text + n, "v %g \\\n 0.5 %g\n", x, z), ++nv;          /* a continuation */
        else if (kind == 1) n += (size_t)sprintf(text + n, "v %g 0 %g\r\n", x, z), ++nv;          /* CRLF */
        else if (kind == 2) n += (size_t)sprintf(text + n, "# a comment ending in a backslash \\\n");
        else if (kind == 3) n += (size_t)sprintf(text + n, "g group%u\n", (seed >> 20) % 5);
        else if (kind == 4 && nv >= 3) n += (size_t)sprintf(text + n, "f -1 -2 \\\r\n -3\n");     /* CRLF continuation */
        else if (nv >= 3) n += (size_t)sprintf(text + n, "f %u %u %u\n", nv, nv - 1, nv - 2);
        else n += (size_t)sprintf(text + n, "v %g 1 %g\n", x, z), ++nv;
        if (n > target / 2 && n < target / 2 + 64) { /* one statement longer than a chunk */
            n += (size_t)sprintf(text + n, "f %u %u %u", nv, nv - 1, nv - 2);
            while (n < target / 2 + (1u << 20) + 4096) text[n++] = ' ';
            text[n++] = '\n';
        }
    }
    char path[64];
    temp_path(path);
    FILE* f = fopen(path, "wb");
    cr_assert(f && fwrite(text, 1, n, f) == n);
    fclose(f);
    ptl_trimesh a, b;
    ptl_error err;
    cr_assert_eq(ptl_obj_parse(text, n, path, NULL, &a, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(ptl_obj_load(path, NULL, &b, &err), PTL_OK, "%s", err.message);
    cr_assert_eq(a.vert_count, b.vert_count);
    cr_assert_eq(a.tri_count, b.tri_count);
    cr_assert_gt(a.tri_count, 50000u, "%u triangles", a.tri_count);
    cr_expect_eq(memcmp(a.verts, b.verts, (size_t)a.vert_count * 3 * sizeof(float)), 0);
    cr_expect_eq(memcmp(a.tris, b.tris, (size_t)a.tri_count * 3 * sizeof(uint32_t)), 0);
    cr_expect_eq(memcmp(a.tri_tag, b.tri_tag, (size_t)a.tri_count * sizeof(uint16_t)), 0);
    ptl_trimesh_free(&a);
    ptl_trimesh_free(&b);
    /* an error past the first chunks: the same message, line number included */
    memcpy(text + n, "f 1 2 oops\n", 11);
    n += 11;
    f = fopen(path, "wb");
    cr_assert(f && fwrite(text, 1, n, f) == n);
    fclose(f);
    ptl_error ea, eb;
    cr_assert_eq(ptl_obj_parse(text, n, path, NULL, &a, &ea), PTL_ERR_PARSE);
    cr_assert_eq(ptl_obj_load(path, NULL, &b, &eb), PTL_ERR_PARSE);
    cr_expect_str_eq(ea.message, eb.message);
    unlink(path);
    free(text);
}
