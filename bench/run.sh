#!/usr/bin/env bash
# Builds the release configuration and runs the benchmarks (default: every section of
# portolan-bench: 2d, 3d, tiles, radius, queries; see bench/bench.h; name some to run only those) and the demo's frame time (bench/demo_frame.sh), keeping their
# tables in bench/RESULTS.md.
# `bash bench/run.sh reference` regenerates Detour's reference data in tests/data/detour instead
# (RESULTS.md is left alone).
set -euo pipefail
cd "$(dirname "$0")/.."
PTL_CONFIGS=release bash scripts/setup.sh
for a in "$@"; do
    if [ "$a" = reference ]; then exec build/bin/release/portolan-bench "$@"; fi
done
build/bin/release/portolan-bench "$@" | tee bench/RESULTS.md.new
if [ $# -eq 0 ]; then build/bin/release/portolan-bench random | tee -a bench/RESULTS.md.new; fi
if [ $# -eq 0 ]; then build/bin/release/portolan-bench tilecache | tee -a bench/RESULTS.md.new; fi
if [ $# -eq 0 ]; then build/bin/release/portolan-bench obstacles-many | tee -a bench/RESULTS.md.new; fi
# The demo's frame time under llvmpipe: its own section, appended.
bash bench/demo_frame.sh | tee -a bench/RESULTS.md.new
mv bench/RESULTS.md.new bench/RESULTS.md
