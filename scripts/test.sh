#!/usr/bin/env bash
# Sets everything up and runs the tests: the Criterion suite under AddressSanitizer + UBSan
# (real data from ../shared/data when present; those tests skip loudly otherwise), then the
# command-line contract checks on the release binary, then the demo rendered headless.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
LSAN_OPTIONS=suppressions=tests/lsan.supp ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    build/bin/asan/portolan-tests --jobs "$(nproc 2>/dev/null || echo 2)"
bash tests/cli_contract.sh build/bin/release/portolan
# The tile cache's acceptance on the release build: 1000 random adds, moves and removes per world and
# tile size (tests/test_tilecache_ops.c; the sanitizer suite above runs 60 of them), about 40 s of CPU.
PTL_TILECACHE_OPS=1000 build/bin/release/portolan-tests --filter 'tilecache_ops/*' --jobs "$(nproc 2>/dev/null || echo 2)"
# bake --gpu (the closest-element search on OpenGL 4.3: llvmpipe here) writes the CPU's bytes on every
# shared map and mesh, tiled too (relaxed on the smaller maps: --quick); no GL context fails it.
bash tests/gpu_identical.sh build/bin/release/portolan --quick
# A few of the pinned bake outputs (tests/test_pinned.c) again through the command line.
bash tests/pinned_cli.sh build/bin/release/portolan
# Installed into a temporary prefix, used from outside the tree through pkg-config (C11 and C++17).
bash tests/install_check.sh
# The bad-input catalogue: exit codes, messages, no crash, bounded time and memory on ~320 cases.
bash tests/bad_inputs.sh build/bin/release/portolan
# The demo headless (Xvfb and SDL's offscreen driver) on the built-in scene, dungeon.obj and a grid
# map: fails when a screenshot is missing or blank.
bash tests/demo_headless.sh build/bin/release/portolan-demo build/bin/release/portolan
# The live navmesh under ThreadSanitizer: 4 query threads and an obstacle thread publishing updates
# for 10 s (tests/live_stress.sh; a data race or an answer invalid on its version fails it).
bash tests/live_stress.sh 10
# The libFuzzer targets (tests/fuzz/, clang): every saved finding replayed, then 20 s of fuzzing
# per target under ASan+UBSan; any finding fails the run and names its input.
bash tests/fuzz/run.sh 20
