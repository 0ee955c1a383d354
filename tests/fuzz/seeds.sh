#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets into OUT_DIR/<target>/ (default build/fuzz/seeds):
# small files of ../shared/data (never copied into the repository, see its README), the malformed
# files of tests/data/bad, a few hand-written inputs, and what build/fuzz/seedgen writes (blobs,
# parts, grid encodings). Usage: tests/fuzz/seeds.sh [OUT_DIR]   (after the Makefile has run)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/fuzz/seeds}
data=../shared/data
rm -rf "$out"
mkdir -p "$out"/{map,scen,pairs,poly,mesh,obj,blob,merge,pipeline_grid,pipeline_poly}

# cp_small DIR MAX_BYTES FILE...: copies the files no larger than MAX_BYTES (missing ones skipped)
cp_small() {
    local dir=$1 max=$2; shift 2
    local f
    for f in "$@"; do
        [ -f "$f" ] || continue
        [ "$(stat -c %s "$f")" -le "$max" ] || continue
        cp "$f" "$out/$dir/$(echo "${f#"$data"/}" | tr '/' '_')"
    done
}

cp_small map 16384 tests/data/bad/map_* "$data"/polyanya/gridmaps/*.map "$data"/grids/*/*.map
cp_small scen 8192 tests/data/bad/scen_* "$data"/polyanya/scenarios/test/*.scen "$data"/grids/*/*.scen
cp_small pairs 4096 tests/data/bad/pairs_*
cp_small poly 4096 tests/data/bad/poly_*
cp_small mesh 8192 tests/data/bad/mesh_* "$data"/polyanya/meshes/tests/*.mesh "$data"/polyanya/meshes/*.mesh
cp_small obj 8192 tests/data/bad/obj_* "$data"/meshes/*.obj
# The head of the Detour query files: real pairs CSVs, kept small.
for f in "$data"/expected/detour_queries/*_findpath.csv "$data"/expected/detour_queries/*_raycast.csv; do
    [ -f "$f" ] && head -n 12 "$f" >"$out/pairs/$(basename "$f")"
done
cat >"$out/pairs/minimal.csv" <<'CSV'
sx,sy,sz,ex,ey,ez
1,0,1,40,0,12
-3.5,0.25,7e1,0,0,0
CSV
cat >"$out/poly/square_hole.poly" <<'POLY'
poly
1
2
4 0 0 10 0 10 10 0 10
4 3 3 3 6 6 6 6 3
POLY
cat >"$out/poly/two_pieces.poly" <<'POLY'
poly
1
3
5 0 0 8 0 8 4 4 6 0 4
4 10 0 14 0 14 3 10 3
3 1 1 2 1 1.5 2.5
POLY
cat >"$out/poly/fractions.poly" <<'POLY'
poly
1
1
6 0.125 0 7.75 0.0001 7.75 3.5 3.999999 3.5 3.999999 6.25 0.125 6.25
POLY
build/fuzz/seedgen "$out" "$data" >/dev/null
echo "seeds: $(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1) in $out"
