#!/usr/bin/env bash
# The demo's frame time on dungeon.obj under Mesa llvmpipe (no GPU on these machines), printed as a
# Markdown section for bench/RESULTS.md (bench/run.sh appends it). Each row: the release
# portolan-demo renders 200 frames after the bake (`--bench-frames 200`, glFinish before each
# frame's clock stops, vsync off) and reports the median; "everything" is `--all`, every debugdraw
# layer on (input, voxels, spans, contours, notches, cells, walls, portals, links, tiles, corridor,
# path, snaps) plus the stats and help panels.
# usage: bash bench/demo_frame.sh [SCENE.obj] [FRAMES]   (build first: PTL_CONFIGS=release bash scripts/setup.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
demo=build/bin/release/portolan-demo
scene=${1:-../shared/data/meshes/dungeon.obj}
frames=${2:-200}
if [ ! -x "$demo" ]; then echo "demo_frame: $demo is missing: build it first" >&2; exit 1; fi
if [ ! -f "$scene" ]; then echo "demo_frame: SKIPPED: $scene is absent" >&2; exit 0; fi

# row DISPLAY LAYERS: one table row
row() {
    local disp=$1 layers=$2 out
    local args=("$scene" --bench-frames "$frames" --size 1280x720)
    [ "$layers" = everything ] && args+=(--all)
    if [ "$disp" = "Xvfb (X11)" ]; then
        out=$(env -u SDL_VIDEODRIVER xvfb-run -a -s "-screen 0 1280x720x24" "$demo" "${args[@]}" 2>&1)
    else
        out=$(env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=offscreen "$demo" "${args[@]}" 2>&1)
    fi
    local line
    line=$(echo "$out" | grep "frame time over")
    if [ -z "$line" ]; then
        echo "| $disp | $layers | failed: $(echo "$out" | tail -1) | | | | |"
        return
    fi
    # portolan-demo: frame time over N frames at WxH, V vertices drawn: median M ms, p90 P ms, mean A ms,
    # min m ms; of which debugdraw calls into the sink (CPU): median E ms (renderer)
    echo "$line" | sed -E "s/.* at ([0-9x]+), ([0-9]+) vertices drawn: median ([0-9.]+) ms, p90 ([0-9.]+) ms, mean ([0-9.]+) ms, min [0-9.]+ ms; of which debugdraw calls into the sink \(CPU\): median ([0-9.]+) ms.*/| $disp | $layers | \1 | \2 | **\3** | \4 | \5 | \6 |/"
}

cpu=$(grep -m1 "model name" /proc/cpuinfo | sed 's/.*: //')
renderer=$(env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=offscreen "$demo" "$scene" --bench-frames 3 2>&1 |
           grep -m1 "OpenGL" | sed 's/portolan-demo: OpenGL //')
echo
echo "# Demo frame time"
echo
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "Machine: $cpu, $(nproc) cores online (load average $load at the start: llvmpipe shares these cores);"
echo "renderer: $renderer; run $(date -u '+%Y-%m-%d %H:%M') UTC."
echo "Scene: \`$scene\`, the default camera (whole level in view), 1280x720. Regenerate with"
echo "\`bash bench/demo_frame.sh\` (also run by \`bash bench/run.sh\`)."
echo
echo "Frame = events, debugdraw calls into the GL sink, one flush (upload + draw), UI, swap, glFinish."
echo "\"sink CPU\" is the part spent in the \`ptl_dd_*\` calls batching vertices, before any GL call."
echo
echo "| display | layers | size | vertices drawn | median ms | p90 ms | mean ms | sink CPU ms |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
row "Xvfb (X11)" everything
row "SDL offscreen (EGL)" everything
row "Xvfb (X11)" default
row "SDL offscreen (EGL)" default
