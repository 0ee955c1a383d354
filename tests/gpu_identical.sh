#!/usr/bin/env bash
# `portolan bake --gpu` writes the CPU's bytes (the GPU closest-element search, <portolan/gpu.h>) on
# every grid map and polygon input of ../shared/data (grids/, polyanya/; also relaxed, --relax 1,
# where the notch-by-notch pass is answered from a batch too) and every mesh of
# ../shared/data/meshes, the meshes also tiled (--tile-size 64) on two threads. Needs an OpenGL 4.3
# context (Mesa's llvmpipe in CI): without one every --gpu bake fails, and so does this script.
# usage: bash tests/gpu_identical.sh [path/to/portolan] [--quick]   (PTL_DATA: the shared data, default ../shared/data)
# --quick (the test command's): relaxed bakes only of inputs under 100 KB (a relaxed bake of a 512 x
# 512 map takes the CPU path tens of seconds); every input still once at the default settings.
set -uo pipefail
bin=${1:-build/bin/release/portolan}
quick=0
[ "${2:-}" = --quick ] && quick=1
data=${PTL_DATA:-../shared/data}
[ -d "$data" ] || { echo "gpu_identical: $data is absent (set PTL_DATA)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # check INPUT [OPTIONS...]
    local in=$1
    shift
    if ! "$bin" bake "$in" -o "$tmp/cpu.ptl" --quiet "$@" >/dev/null 2>"$tmp/err"; then
        # an input the CPU refuses (no free space) must be refused with --gpu too
        if "$bin" bake "$in" -o "$tmp/gpu.ptl" --quiet --gpu "$@" >/dev/null 2>&1; then
            echo "FAIL: $in $*: the CPU refuses it, --gpu bakes it"; fail=$((fail + 1))
        else pass=$((pass + 1)); fi
        return
    fi
    if ! "$bin" bake "$in" -o "$tmp/gpu.ptl" --quiet --gpu "$@" >/dev/null 2>"$tmp/err"; then
        echo "FAIL: $in $* --gpu: $(head -1 "$tmp/err")"; fail=$((fail + 1)); return
    fi
    if cmp -s "$tmp/cpu.ptl" "$tmp/gpu.ptl"; then pass=$((pass + 1))
    else echo "FAIL: $in $*: --gpu wrote other bytes"; fail=$((fail + 1)); fi
}
while IFS= read -r f; do
    check "$f"
    [ $quick -eq 1 ] && [ "$(stat -c %s "$f")" -ge 100000 ] && continue
    check "$f" --relax 1
done < <(find "$data/grids" "$data/polyanya" -type f \( -name '*.map' -o -name '*.mesh' -o -name '*.poly' \) | sort)
for f in "$data"/meshes/*.obj; do
    check "$f"
    check "$f" --agent-radius 0.6 --tile-size 64 --threads 2
done
echo "gpu identical: $pass bakes the same, $fail failed"
[ "$fail" -eq 0 ]
