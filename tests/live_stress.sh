#!/usr/bin/env bash
# The live navmesh under ThreadSanitizer: the runtime, bake and gen sources and tests/live_stress.c
# built with -fsanitize=thread, then 4 query threads (locates, paths, raycasts, each answer checked
# on the version it ran on) while a fifth adds, moves and removes obstacles through a tile cache and
# publishes every update (tests/live_stress.h). A data race or an invalid answer fails it.
# usage: bash tests/live_stress.sh [SECONDS]   (default 10; the issue's minute: 60)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
out=build/tsan
mkdir -p "$out"
srcs=$(ls runtime/*.c gen/*.c tests/live_stress.c tests/tsan/live_stress_main.c; find bake -name '*.c' -not -path 'bake/decompose/gpu/*')
# one compiler call per source, two at a time (make-free: the objects land in build/tsan)
objs=()
for s in $srcs; do objs+=("$out/$(echo "$s" | tr '/' '_').o"); done
printf '%s\n' $srcs | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} sh -c \
    'o='"$out"'/$(echo "{}" | tr / _).o; [ "$o" -nt "{}" ] || gcc -std=c11 -O1 -g -fsanitize=thread -fno-math-errno -D_POSIX_C_SOURCE=200809L -Iinclude -c "{}" -o "$o"'
gcc -fsanitize=thread -o "$out/live_stress" "${objs[@]}" -lpthread -lm
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$out/live_stress" "$secs" 4
