#!/usr/bin/env bash
# Bake outputs pinned through the command line: a few rows of tests/test_pinned.c's table baked by
# `portolan bake` / `portolan merge` and read back with `portolan info --json`, so that the options'
# translation into the bake desc (tools/cmd_bake.c, tools/cmd_merge.c) is pinned too, not only the
# library. A change that means to change output updates these rows and test_pinned.c's in the same
# commit. Skipped, loudly, when ../shared/data is absent. Usage: tests/pinned_cli.sh path/to/portolan
set -uo pipefail
bin=${1:?usage: pinned_cli.sh PORTOLAN}
cd "$(dirname "$0")/.." || exit 2
data=${PTL_DATA:-../shared/data}
if [ ! -d "$data" ]; then
    echo "pinned_cli: SKIPPED: $data is absent (set PTL_DATA to its location)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0

# check NAV.ptl WHAT CHECKSUM BYTES CELLS: the navmesh's own checksum, size and cell count
check() {
    local got
    got=$("$bin" info "$1" --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["checksum"], d["bytes"], d["cells"])')
    if [ "$got" = "$3 $4 $5" ]; then
        pass=$((pass + 1))
    else
        echo "FAIL: $2: expected checksum bytes cells $3 $4 $5, got ${got:-no navmesh}"
        fails=$((fails + 1))
    fi
}

# bake_check INPUT "OPTIONS" CHECKSUM BYTES CELLS
bake_check() {
    local in=$1 opts=$2
    # shellcheck disable=SC2086
    "$bin" bake "$data/$in" -o "$tmp/out.ptl" $opts --quiet >/dev/null
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: portolan bake $in $opts: exit $rc"
        fails=$((fails + 1))
        return
    fi
    check "$tmp/out.ptl" "portolan bake $in $opts" "$3" "$4" "$5"
    rm -f "$tmp/out.ptl"
}

bake_check meshes/dungeon.obj "" cef6230ca87128a2 43624 90
bake_check meshes/dungeon.obj "--cell-size 0.3 --cell-height 0.2 --agent-height 2 --agent-radius 0.6 --max-climb 0.9 --max-slope 45" \
    2d8d73ea82a4f144 19248 50
bake_check meshes/nav_test.obj "--agent-radius 0.6" 1b759bdeac696af8 37552 88
bake_check meshes/dungeon.obj "--agent-radius 0.6 --tile-size 64 --threads 2" de0e4c554481e2ec 19248 50
bake_check grids/dao/arena.map "" 408a1acffedaab16 6912 33
bake_check grids/gppc2023/rmtst01.map "--lids" c63a07964a00ee55 30240 211
bake_check grids/dao/den520d.map "--hubs --threads 2" 8c6613619fbcb627 437000 932
bake_check polyanya/meshes/arena.mesh "--hubs" ead0fff56ef8ddb6 23552 49

# A bake spread over three machines, merged (parts handed to the merge out of order).
parts=()
for r in 2:3,0:2 0:1,0:5 2:99,3:99; do
    "$bin" bake "$data/meshes/dungeon.obj" --agent-radius 0.6 --tile-size 64 --tiles "$r" -o "$tmp/part$r.ptl" --quiet \
        >/dev/null || { echo "FAIL: portolan bake --tiles $r: exit $?"; fails=$((fails + 1)); }
    parts+=("$tmp/part$r.ptl")
done
if "$bin" merge "${parts[@]}" -o "$tmp/merged.ptl" --threads 2 >/dev/null; then
    check "$tmp/merged.ptl" "portolan merge of dungeon.obj's parts (--agent-radius 0.6 --tile-size 64)" \
        de0e4c554481e2ec 19248 50
else
    echo "FAIL: portolan merge: exit $?"
    fails=$((fails + 1))
fi

echo "pinned_cli: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
