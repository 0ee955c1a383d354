#!/usr/bin/env bash
# The main job: set up, build, then bake the built-in default scene (a generated rooms-and-doors
# map), validate it, answer a path query and draw both as a top-view PNG.
# (The interactive SDL demo arrives with issue 4; until then this is its headless fallback.)
set -euo pipefail
cd "$(dirname "$0")/.."
PTL_CONFIGS=release bash scripts/setup.sh
bin=build/bin/release/portolan
out=build/scene
mkdir -p "$out"
"$bin" gen grid --scene rooms --width 256 --height 256 --seed 1 -o "$out/rooms.map"
"$bin" bake "$out/rooms.map" -o "$out/rooms.ptl"
"$bin" info "$out/rooms.ptl" --validate
"$bin" path "$out/rooms.ptl" --from 3,0,3 --to 250,0,250
"$bin" draw "$out/rooms.ptl" -o "$out/rooms.png" --from 3,0,3 --to 250,0,250
echo "wrote $out/rooms.png (cells filled, portals light, walls dark, the path in red)"
