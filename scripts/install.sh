#!/usr/bin/env bash
# Installs Portolan into PREFIX for programs built outside this tree:
#   PREFIX/include/portolan/*.h            the public headers
#   PREFIX/lib/libportolan_{runtime,bake,gen,gpu,debugdraw,debugdraw_gl}.a   static libraries (release build)
#   PREFIX/lib/pkgconfig/portolan-{runtime,bake,gen,gpu,debugdraw,debugdraw-gl}.pc
# Builds the release libraries first when they are missing or out of date (make decides).
# usage: bash scripts/install.sh PREFIX
#   then: gcc prog.c $(PKG_CONFIG_PATH=PREFIX/lib/pkgconfig pkg-config --cflags --libs --static portolan-bake)
set -euo pipefail
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: bash scripts/install.sh PREFIX" >&2; exit 2; }
prefix=$(realpath -m -- "$1")
# pkg-config's flags are split on blanks by every shell and build tool that reads them
case "$prefix" in *[[:space:]]*)
    echo "install.sh: $prefix: a prefix with blanks cannot be used through pkg-config; choose another" >&2
    exit 2 ;;
esac
cd "$(dirname "$0")/.."

[ -f build/Makefile ] || premake4 --file=premake5.lua gmake >/dev/null
make -s -C build config=release -j"$(nproc 2>/dev/null || echo 2)" \
    portolan_runtime portolan_bake portolan_gen portolan_gpu portolan_debugdraw portolan_debugdraw_gl

version=0.1.0
install -d "$prefix/include/portolan" "$prefix/lib/pkgconfig"
install -m 644 include/portolan/*.h "$prefix/include/portolan/"
for lib in runtime bake gen gpu debugdraw debugdraw_gl; do
    install -m 644 "build/bin/release/libportolan_$lib.a" "$prefix/lib/"
done

# pc NAME DESCRIPTION REQUIRES LIBS: one pkg-config file. Only static libraries are installed, so
# each library's own system libraries sit in Libs (not Libs.private): `pkg-config --libs` then links
# with or without --static. Requires lists what a library calls into, so the order pkg-config
# prints (a library before those it requires, -lm last) is the link order.
pc() {
    cat >"$prefix/lib/pkgconfig/$1.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: $1
Description: $2
Version: $version
Requires: $3
Cflags: -I\${includedir}
Libs: -L\${libdir} $4
PC
}
pc portolan-runtime "Portolan runtime: navmesh loading, point location and path queries (C11, libc only)" \
    "" "-lportolan_runtime -lm"
pc portolan-bake "Portolan bake: readers, voxel pipeline, convex decomposition, navmesh blobs" \
    "portolan-runtime = $version" "-lportolan_bake"
# The scene generators (grids, buildings, copies, extrusions) for tools, demos and tests; a game
# does not need them.
pc portolan-gen "Portolan gen: generated grid maps and 3D scenes for tools, demos and tests" \
    "portolan-bake = $version, portolan-runtime = $version" "-lportolan_gen"
# The decomposition's closest-element search on OpenGL 4.3 (bake --gpu): glad loads libGL and libEGL
# itself (dlopen): -ldl, no -lGL.
pc portolan-gpu "Portolan GPU: the decomposition's closest-element search in OpenGL 4.3 compute shaders" \
    "portolan-bake = $version, portolan-runtime = $version" "-lportolan_gpu -ldl"
pc portolan-debugdraw "Portolan debugdraw: bake stages and queries as primitives into a caller's sink" \
    "portolan-bake = $version, portolan-runtime = $version" "-lportolan_debugdraw"
# The GL 3.3 sink loads OpenGL itself through glad (dlopen of libGL): -ldl, no -lGL.
pc portolan-debugdraw-gl "Portolan debugdraw OpenGL 3.3 core sink (glad loader built in)" \
    "portolan-debugdraw = $version" "-lportolan_debugdraw_gl -ldl"
echo "installed Portolan $version into $prefix (headers, 6 static libraries, 6 pkg-config files)"
