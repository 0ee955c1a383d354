#!/usr/bin/env bash
# Runs portolan-demo headless and checks its screenshots are not blank (tests/demo_png_check.py:
# the navmesh's cell colours and the path colour are present, the path where the navmesh is):
#   - under Xvfb (X11) and under SDL's offscreen driver (EGL, no X at all),
#   - on the built-in scene, on ../shared/data/meshes/dungeon.obj (skipped loudly when absent),
#     and on a generated 2D grid map (offscreen only);
#   - the path tool through --click (offscreen), and the interactive demo driven by xdotool (Xvfb).
# usage: tests/demo_headless.sh [build/bin/release/portolan-demo] [build/bin/release/portolan]
set -uo pipefail
cd "$(dirname "$0")/.."
demo=${1:-build/bin/release/portolan-demo}
cli=${2:-build/bin/release/portolan}
out=build/test-demo
mkdir -p "$out"
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
fails=0 runs=0

if [ ! -x "$demo" ]; then
    echo "demo_headless: FAIL: $demo is missing (build it: bash scripts/setup.sh)"
    exit 1
fi

# run NAME MODE [SCENE [EXTRA ARGS...]] : MODE is xvfb or offscreen
run() {
    local name=$1 mode=$2 scene=${3:-}
    shift 3 2>/dev/null || shift $#
    local png="$out/$name.png" log="$out/$name.log"
    rm -f "$png" "$log"
    local args=(--screenshot "$png" --frames 3 "$@")
    [ -n "$scene" ] && args=("$scene" "${args[@]}")
    runs=$((runs + 1))
    if [ "$mode" = xvfb ]; then
        env -u SDL_VIDEODRIVER -u WAYLAND_DISPLAY timeout 120 \
            xvfb-run -a -s "-screen 0 1280x720x24" "$demo" "${args[@]}" >"$log" 2>&1
    else
        env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=offscreen timeout 120 "$demo" "${args[@]}" >"$log" 2>&1
    fi
    local rc=$?
    if [ $rc -ne 0 ]; then
        echo "demo_headless: FAIL: $name: portolan-demo exited $rc; its output:"
        sed 's/^/    /' "$log"
        fails=$((fails + 1))
        return
    fi
    if [ ! -s "$png" ]; then
        echo "demo_headless: FAIL: $name: no screenshot at $png"
        fails=$((fails + 1))
        return
    fi
    local res
    res=$("$py" tests/demo_png_check.py "$png" "$log")
    local crc=$?
    echo "$res" | sed "s/^/[$name] /"
    if [ $crc -ne 0 ]; then
        echo "demo_headless: FAIL: $name: $png is blank or wrong (see above)"
        fails=$((fails + 1))
    fi
}

dungeon=../shared/data/meshes/dungeon.obj
if command -v xvfb-run >/dev/null; then
    run builtin-xvfb xvfb
    if [ -f "$dungeon" ]; then run dungeon-xvfb xvfb "$dungeon"; fi
else
    echo "demo_headless: FAIL: xvfb-run is not installed (scripts/setup.sh installs xvfb and xauth)"
    fails=$((fails + 1))
fi
run builtin-offscreen offscreen
# the default path spread over slices of a few expansions (the panel's "sliced" line) is the same path
if ! grep -q "path from .*: found.*sliced in [1-9][0-9]* steps .*: the same path" "$out/builtin-offscreen.log"; then
    echo "demo_headless: FAIL: builtin-offscreen: the sliced path is not the same path:"
    sed 's/^/    /' "$out/builtin-offscreen.log"
    fails=$((fails + 1))
fi
# same_bytes CPU_LOG GPU_LOG NAME: the GPU bake (--gpu, key U) wrote the CPU bake's bytes (the blob's
# FNV-1a in the "baked in" line) and says where it ran
same_bytes() {
    local cpu gpu
    cpu=$(grep -o "fnv1a [0-9a-f]*), decomposed on the CPU" "$1" | head -1 | sed 's/fnv1a \([0-9a-f]*\).*/\1/')
    gpu=$(grep -o "fnv1a [0-9a-f]*), decomposed on the GPU" "$2" | head -1 | sed 's/fnv1a \([0-9a-f]*\).*/\1/')
    if [ -z "$gpu" ] || [ "$cpu" != "${gpu}" ]; then
        echo "demo_headless: FAIL: $3: the GPU bake's blob (${gpu:-none}) is not the CPU's (${cpu:-none})"
        fails=$((fails + 1))
    else
        echo "[$3] the GPU decomposition wrote the CPU's bytes (fnv1a $gpu)"
    fi
}
# the decomposition's search on the GPU (llvmpipe here): the same navmesh, the backend on the panel
run builtin-gpu-offscreen offscreen "" --gpu
same_bytes "$out/builtin-offscreen.log" "$out/builtin-gpu-offscreen.log" builtin-gpu-offscreen
if command -v xvfb-run >/dev/null; then
    run builtin-gpu-xvfb xvfb "" --gpu
    same_bytes "$out/builtin-xvfb.log" "$out/builtin-gpu-xvfb.log" builtin-gpu-xvfb
fi
# A run with obstacles (its name, how many, what they are) against the built-in run without: the
# navmesh was rebuilt with them and the default path is longer (it goes around them).
path_length() { grep -o "path from .*: found, length [0-9.]*" "$1" | head -1 | sed 's/.*length //'; }
goes_around() {
    local name=$1 count=$2 what=$3 log=$out/$1.log
    local len0 len1
    len0=$(path_length "$out/builtin-offscreen.log")
    len1=$(path_length "$log")
    if ! grep -q "obstacles $count: navmesh rebuilt" "$log" || [ -z "$len1" ] || [ -z "$len0" ] ||
        ! awk -v a="$len0" -v b="$len1" 'BEGIN { exit !(b > a) }'; then
        echo "demo_headless: FAIL: $name: no rebuilt navmesh, or the path (${len1:-none} m) not longer than without $what (${len0:-none} m):"
        sed 's/^/    /' "$log"
        fails=$((fails + 1))
    else
        echo "[$name] $what: the path goes around ($len0 m -> $len1 m)"
    fi
}
# dynamic obstacles through the scene's tile cache (--obstacle: a cylinder on the street, a turned
# box further on)
run builtin-obstacles-offscreen offscreen "" --obstacle 20,0.2,37.9 --obstacle-box 12,0.2,38
goes_around builtin-obstacles-offscreen 2 "two obstacles"
# an area volume (--obstacle-area: a 5 x 5 m box whose floor becomes area 7, no geometry change) on
# the street, with that area excluded
run builtin-area-volume-offscreen offscreen "" --obstacle-area 20,0.2,37.9 --area-filter exclude
goes_around builtin-area-volume-offscreen 1 "an area volume, its area excluded"
# an agent of radius 0.6 on the built-in scene: the path keeps it, planned from the same navmesh
run builtin-radius-offscreen offscreen "" --radius 0.6
if ! grep -q "path from .*: found" "$out/builtin-radius-offscreen.log"; then
    echo "demo_headless: FAIL: builtin-radius-offscreen: no path for radius 0.6:"
    sed 's/^/    /' "$out/builtin-radius-offscreen.log"
    fails=$((fails + 1))
fi
# the same agent in the corridor mode (the funnel with circles)
run builtin-radius-corridor-offscreen offscreen "" --radius 0.6 --mode corridor
if ! grep -q "path from .*: found" "$out/builtin-radius-corridor-offscreen.log"; then
    echo "demo_headless: FAIL: builtin-radius-corridor-offscreen: no path for radius 0.6:"
    sed 's/^/    /' "$out/builtin-radius-corridor-offscreen.log"
    fails=$((fails + 1))
fi
if [ -f "$dungeon" ]; then
    run dungeon-offscreen offscreen "$dungeon"
    # the path tool: two clicks on the floor (window pixels of the default view) give a path
    run dungeon-clicks-offscreen offscreen "$dungeon" --click 420,440 --click 680,590
    if ! grep -q "path from .*: found" "$out/dungeon-clicks-offscreen.log"; then
        echo "demo_headless: FAIL: dungeon-clicks-offscreen: two clicks on the floor gave no path:"
        sed 's/^/    /' "$out/dungeon-clicks-offscreen.log"
        fails=$((fails + 1))
    fi
else
    echo "demo_headless: SKIPPED the dungeon.obj runs: $dungeon is absent (the shared data is not there)"
fi
# The interactive demo driven by xdotool under Xvfb: layer keys, all layers, radius keys and
# slider, storey cut, ceilings, fly camera and its moves, orbit, pan and zoom with the mouse, two
# clicks of the path tool, the obstacle tool (drop, drag, delete), a rebake, a bake on the GPU (U), and
# F12's screenshot; it must stay up, give a path and exit
# cleanly on SIGTERM (SDL turns it into a quit).
# SDL_VIDEODRIVER=x11: should the X server not answer yet, SDL must fail rather than fall back to
# its offscreen driver (no window for xdotool); such a start is tried again, up to three times.
interactive_once() {
    local dir=$1 log=$2 abs_demo=$3
    rm -f "$dir/portolan-demo.png" "$log"
    env -u WAYLAND_DISPLAY SDL_VIDEODRIVER=x11 timeout 120 xvfb-run -a -s "-screen 0 1280x720x24" bash -c '
        cd "$1" || exit 1
        "$2" "$3" > "$4" 2>&1 & pid=$!
        for i in $(seq 50); do w=$(xdotool search --name "Portolan demo" 2>/dev/null | head -1); [ -n "$w" ] && break; sleep 0.1; done
        [ -n "$w" ] || { echo "no demo window"; kill $pid; exit 1; }
        sleep 1
        for k in 2 3 4 5 6 l bracketright bracketright x Prior Next r Tab w a s d q e Tab f h h; do
            xdotool key --window "$w" $k; sleep 0.1
        done
        xdotool mousemove --window "$w" 420 440 click 1; sleep 0.3
        xdotool mousemove --window "$w" 680 590 click 1; sleep 0.3
        xdotool key --window "$w" i; sleep 1
        xdotool mousemove --window "$w" 420 440 click 1; sleep 1
        xdotool mousemove --window "$w" 420 440 mousedown 1 mousemove --window "$w" 440 450 mouseup 1; sleep 1
        xdotool key --window "$w" Delete; sleep 1
        xdotool key --window "$w" i; sleep 0.2
        xdotool mousemove --window "$w" 640 360 mousedown 1 mousemove --window "$w" 700 400 mouseup 1; sleep 0.2
        xdotool mousemove --window "$w" 640 360 mousedown 3 mousemove --window "$w" 600 300 mouseup 3; sleep 0.2
        xdotool click --repeat 3 4; sleep 0.2
        xdotool mousemove --window "$w" 60 210 mousedown 1 mousemove --window "$w" 160 210 mouseup 1; sleep 0.3
        xdotool key --window "$w" b; sleep 1
        xdotool key --window "$w" u; sleep 3
        xdotool key --window "$w" F12; sleep 0.5
        kill -0 $pid || { echo "the demo died"; exit 1; }
        kill $pid; wait $pid' _ "$dir" "$abs_demo" "$(cd "$(dirname "$dungeon")" && pwd)/dungeon.obj" "$log"
}
interactive() {
    local dir log abs_demo rc attempt
    dir=$(cd "$out" && pwd)
    log="$dir/interactive.log"
    abs_demo=$(cd "$(dirname "$demo")" && pwd)/$(basename "$demo")
    runs=$((runs + 1))
    for attempt in 1 2 3; do
        interactive_once "$dir" "$log" "$abs_demo"
        rc=$?
        [ $rc -eq 0 ] && break
        grep -q "baked in" "$log" 2>/dev/null && break # it started: a real failure, not a late X server
        echo "demo_headless: interactive: the demo found no X display (attempt $attempt), trying again"
    done
    if [ $rc -ne 0 ] || [ ! -s "$dir/portolan-demo.png" ] || ! grep -q "path from .*: found" "$log"; then
        echo "demo_headless: FAIL: interactive: exit $rc, screenshot $([ -s "$dir/portolan-demo.png" ] && echo written || echo missing); its output:"
        sed 's/^/    /' "$log" 2>/dev/null
        fails=$((fails + 1))
        return
    fi
    echo "[interactive] keys, mouse, path tool, rebake and F12 screenshot: ok ($(grep -c 'baked in' "$log") bakes)"
    if grep -q "obstacles 1: navmesh rebuilt" "$log" && grep -q "obstacles 0: navmesh rebuilt" "$log"; then
        echo "[interactive] obstacle tool (I): dropped, dragged and deleted ($(grep -c 'navmesh rebuilt' "$log") updates)"
    else
        echo "demo_headless: FAIL: interactive: the obstacle tool (I, click, drag, Del) did not rebuild the navmesh:"
        grep "obstacle\|tile cache" "$log" | sed 's/^/    /'
        fails=$((fails + 1))
    fi
    same_bytes "$log" "$log" "interactive (U: a bake on the GPU)"
}
if [ -f "$dungeon" ] && command -v xvfb-run >/dev/null; then
    if command -v xdotool >/dev/null; then
        interactive
    else
        echo "demo_headless: SKIPPED the interactive run: xdotool is not installed (scripts/setup.sh installs it)"
    fi
fi

if [ -x "$cli" ]; then
    "$cli" gen grid --scene rooms --width 128 --height 128 --seed 3 -o "$out/rooms.map"
    run rooms-map-offscreen offscreen "$out/rooms.map"
fi

if [ $fails -ne 0 ]; then
    echo "demo_headless: $fails of $runs runs failed (screenshots and logs in $out/)"
    exit 1
fi
echo "demo_headless: all $runs runs passed (screenshots in $out/)"
