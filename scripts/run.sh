#!/usr/bin/env bash
# The main job: set up, build, then bake the built-in default scene (a generated three-storey
# building with stairwells and a ramp), validate it, find a path from the street to the top floor,
# and draw both as top-view PNGs (all storeys, upper ones on top, and each storey alone: its height
# band); the same for a generated 2D rooms map.
# Then open the interactive demo (portolan-demo, SDL2 + OpenGL) on the built-in scene; with no display
# it renders headless (SDL's offscreen driver over EGL, else Xvfb) and writes build/scene/demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
PTL_CONFIGS=release bash scripts/setup.sh
bin=build/bin/release/portolan
out=build/scene
mkdir -p "$out"
"$bin" gen building --size 40 --storeys 3 --seed 1 -o "$out/building.obj"
"$bin" bake "$out/building.obj" -o "$out/building.ptl"
"$bin" info "$out/building.ptl" --validate
"$bin" path "$out/building.ptl" --from 23.8,0.2,37.9 --to 34.5,6.2,20.2
"$bin" draw "$out/building.ptl" -o "$out/building.png" --from 23.8,0.2,37.9 --to 34.5,6.2,20.2
for y in 0 3 6; do # the storeys' floors are 3 m apart
    "$bin" draw "$out/building.ptl" -o "$out/building-storey$y.png" --band $((y - 1)),$((y + 2)) \
        --from 23.8,0.2,37.9 --to 34.5,6.2,20.2
done
# The 2D slice: a generated rooms-and-doors grid map.
"$bin" gen grid --scene rooms --width 256 --height 256 --seed 1 -o "$out/rooms.map"
"$bin" bake "$out/rooms.map" -o "$out/rooms.ptl"
"$bin" path "$out/rooms.ptl" --from 3,0,3 --to 250,0,250
"$bin" draw "$out/rooms.ptl" -o "$out/rooms.png" --from 3,0,3 --to 250,0,250
echo "wrote $out/building.png, $out/building-storey{0,3,6}.png and $out/rooms.png (cells filled, portals light," \
    "walls dark, the path in red from the green start to the blue goal)"

# The demo on the built-in scene (the same generated building, baked again in the demo with every
# stage kept for drawing).
demo=build/bin/release/portolan-demo
headless() {
    if env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=offscreen "$demo" --screenshot "$out/demo.png" --frames 3; then
        echo "no display: rendered the demo headless (SDL offscreen, EGL) to $out/demo.png"
    elif command -v xvfb-run >/dev/null &&
        env -u SDL_VIDEODRIVER xvfb-run -a -s "-screen 0 1280x720x24" "$demo" --screenshot "$out/demo.png" --frames 3; then
        echo "no display: rendered the demo headless (Xvfb) to $out/demo.png"
    else
        echo "run.sh: the demo could not render headless" >&2
        exit 1
    fi
}
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${PTL_HEADLESS:-}" ]; then
    echo "opening the demo on the built-in scene (H: help, Esc: quit)"
    "$demo" || { echo "run.sh: the demo could not open a window; rendering headless instead"; headless; }
else
    headless
fi
