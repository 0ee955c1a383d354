#!/usr/bin/env bash
# Installs Portolan into a temporary prefix (scripts/install.sh) and uses it as a studio would, from
# outside the tree through pkg-config: every public header (the umbrella portolan.h too) compiles
# alone as C11 and as C++17 with -pedantic -Werror; the README's Library example (bake a map, save
# the blob, find a path) builds against portolan-bake as C and as C++ and runs; a runtime-only
# program built against portolan-runtime loads the saved blob and finds the same path; the
# debugdraw libraries link.
# usage: bash tests/install_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# run LOG CMD...: runs CMD, keeping its output in LOG; prints it on failure
run() {
    local log=$1; shift
    if "$@" >"$log" 2>&1; then ok; return 0; fi
    bad "$*"; sed 's/^/    /' "$log" | head -20; return 1
}

bash scripts/install.sh "$tmp/with space" >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "a prefix with a blank is not refused"
prefix="$tmp/prefix"
run "$tmp/install.log" bash scripts/install.sh "$prefix" || { echo "install check: install failed"; exit 1; }
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
for f in include/portolan/{portolan,runtime,bake,bake_debug,gen,gpu,tilecache,debugdraw,debugdraw_gl}.h; do
    [ -f "$prefix/$f" ] && ok || bad "not installed: $f"
done
for l in runtime bake gen gpu debugdraw debugdraw_gl; do
    [ -f "$prefix/lib/libportolan_$l.a" ] && ok || bad "not installed: lib/libportolan_$l.a"
done
for p in runtime bake gen gpu debugdraw debugdraw-gl; do
    run "$tmp/pc.log" pkg-config --exists --print-errors "portolan-$p"
done

# Everything below builds in a folder outside the tree, with only what pkg-config says.
work="$tmp/outside"
mkdir -p "$work"
cd "$work"
cflags() { pkg-config --cflags "$@"; }
libs() { pkg-config --libs --static "$@"; }
STRICT_C=(-std=c11 -Wall -Wextra -pedantic -Werror)
STRICT_CXX=(-std=c++17 -Wall -Wextra -pedantic -Werror)

# Each public header alone, first thing in its file, as C11 and C++17 (gcc, and clang when present).
for h in portolan runtime bake bake_debug gen gpu tilecache debugdraw debugdraw_gl; do
    printf '#include <portolan/%s.h>\nint main(void) { return 0; }\n' "$h" >"h_$h.c"
    cp "h_$h.c" "h_$h.cpp"
    # shellcheck disable=SC2046
    run "$tmp/h.log" gcc "${STRICT_C[@]}" $(cflags portolan-runtime) -c "h_$h.c" -o /dev/null
    # shellcheck disable=SC2046
    run "$tmp/h.log" g++ "${STRICT_CXX[@]}" $(cflags portolan-runtime) -c "h_$h.cpp" -o /dev/null
    if command -v clang >/dev/null && command -v clang++ >/dev/null; then
        # shellcheck disable=SC2046
        run "$tmp/h.log" clang "${STRICT_C[@]}" $(cflags portolan-runtime) -c "h_$h.c" -o /dev/null
        # shellcheck disable=SC2046
        run "$tmp/h.log" clang++ "${STRICT_CXX[@]}" $(cflags portolan-runtime) -c "h_$h.cpp" -o /dev/null
    fi
done

# The README's Library example, as written there.
python3 - "$root/README.md" readme_example.c <<'PY' || bad "README: no C example after '## Library'"
import sys
text = open(sys.argv[1]).read()
lib = text.split("\n## Library\n", 1)[1]
code = lib.split("```c\n", 1)[1].split("```", 1)[0]
assert "int main" in code, "the example is not a whole program"
open(sys.argv[2], "w").write(code)
PY
cp readme_example.c readme_example.cpp
# arena.map: 16 x 16, open but for a wall with a door
{
    printf 'type octile\nheight 16\nwidth 16\nmap\n'
    for y in $(seq 0 15); do
        if [ "$y" -eq 8 ]; then echo "@@@@@@@@@@@@..@@"; else echo "................"; fi
    done
} >arena.map
# shellcheck disable=SC2046
run "$tmp/c.log" gcc "${STRICT_C[@]}" readme_example.c -o example_c $(cflags portolan-bake) $(libs portolan-bake)
# shellcheck disable=SC2046
run "$tmp/cxx.log" g++ "${STRICT_CXX[@]}" readme_example.cpp -o example_cxx $(cflags portolan-bake) $(libs portolan-bake)
for e in example_c example_cxx; do
    [ -x "$e" ] || continue
    run "$tmp/run.log" "./$e" && grep -q '^found 1, length 1,' "$tmp/run.log" && ok || bad "$e: $(cat "$tmp/run.log")"
done
[ -s arena.ptl ] && ok || bad "the README example saved no arena.ptl"

# A game that links only the runtime: loads the blob, crosses the wall through its door.
cat >game.c <<'C'
#include <portolan/runtime.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
    ptl_navmesh* nm;
    ptl_query* q;
    ptl_error err;
    if (argc != 2 || ptl_navmesh_load_file(argv[1], NULL, &nm, &err) < 0) {
        fprintf(stderr, "%s\n", argc == 2 ? err.message : "usage: game NAV.ptl");
        return 1;
    }
    if (ptl_query_create(nm, NULL, &q) < 0) return 1;
    float pts[3 * 64];
    ptl_path_request req;
    memset(&req, 0, sizeof req);
    req.start[0] = 2, req.start[2] = 2, req.goal[0] = 2, req.goal[2] = 14;
    ptl_path_result res;
    memset(&res, 0, sizeof res);
    res.points = pts, res.point_capacity = 64;
    ptl_status st = ptl_query_find_path(q, &req, &res);
    printf("%s found %d length %.3f\n", ptl_status_name(st), (int)res.found, res.length);
    ptl_query_destroy(q);
    ptl_navmesh_destroy(nm);
    return res.found && res.length > 12 ? 0 : 1;
}
C
# shellcheck disable=SC2046
run "$tmp/game.log" gcc "${STRICT_C[@]}" game.c -o game $(cflags portolan-runtime) $(libs portolan-runtime) &&
    run "$tmp/game_run.log" ./game arena.ptl
# A tool that generates a scene links portolan-gen: the rooms map, generated and baked.
cat >gen.c <<'C'
#include <portolan/gen.h>
#include <stdio.h>

int main(void) {
    ptl_grid g;
    ptl_shape s;
    ptl_error err;
    ptl_grid_gen_desc gd = ptl_grid_gen_desc_defaults();
    void* blob;
    size_t size;
    gd.scene = PTL_GRID_SCENE_ROOMS, gd.width = 64, gd.height = 64, gd.seed = 1, gd.density = 0;
    if (ptl_grid_generate(&gd, &g, &err) < 0 || ptl_shape_from_grid(&g, NULL, &s, &err) < 0 ||
        ptl_bake_shape(&s, NULL, &blob, &size, NULL, &err) < 0) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    printf("baked %u bytes\n", (unsigned)size);
    ptl_blob_free(blob, size, NULL);
    ptl_shape_free(&s);
    ptl_grid_free(&g);
    return 0;
}
C
# shellcheck disable=SC2046
run "$tmp/gen.log" gcc "${STRICT_C[@]}" gen.c -o gen $(cflags portolan-gen) $(libs portolan-gen) &&
    run "$tmp/gen_run.log" ./gen
# The debugdraw libraries resolve (the GL sink's loader included) in the order pkg-config gives.
cat >dd.c <<'C'
#include <portolan/debugdraw_gl.h>
#include <stdio.h>

int main(int argc, char** argv) {
    (void)argv;
    /* never run (no GL context here), but linked: both libraries and what they call must resolve */
    if (argc > 100) {
        ptl_dd_gl* gl;
        ptl_dd_gl_create(NULL, &gl, NULL);
        ptl_dd_layers(NULL, NULL, NULL);
        ptl_dd_trimesh(NULL, NULL, NULL, 45.0f);
    }
    puts("linked");
    return 0;
}
C
# shellcheck disable=SC2046
run "$tmp/dd.log" gcc "${STRICT_C[@]}" dd.c -o dd $(cflags portolan-debugdraw-gl) $(libs portolan-debugdraw-gl) &&
    run "$tmp/dd_run.log" ./dd

# The GPU backend resolves (glad's EGL and GL loaders included) in the order pkg-config gives.
cat >gpu.c <<'C'
#include <portolan/gpu.h>
#include <stdio.h>

int main(int argc, char** argv) {
    (void)argv;
    /* never run (a GL context is not assumed here), but linked */
    if (argc > 100) {
        ptl_gpu* gpu;
        if (ptl_gpu_create(NULL, &gpu, NULL) == PTL_OK) {
            ptl_bake_desc d = ptl_bake_desc_defaults();
            d.closest_backend = ptl_gpu_backend(gpu);
            printf("%s\n", d.closest_backend ? ptl_gpu_renderer(gpu) : "");
            ptl_gpu_destroy(gpu);
        }
    }
    puts("linked");
    return 0;
}
C
# shellcheck disable=SC2046
run "$tmp/gpu.log" gcc "${STRICT_C[@]}" gpu.c -o gpu $(cflags portolan-gpu) $(libs portolan-gpu) &&
    run "$tmp/gpu_run.log" ./gpu

echo "install check: $pass checks passed, $fails failed"
[ "$fails" -eq 0 ]
