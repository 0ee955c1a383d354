#!/usr/bin/env bash
# Builds the release configuration and runs the benchmarks, keeping their output in bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PTL_CONFIGS=release bash scripts/setup.sh
build/bin/release/portolan-bench "$@" | tee bench/RESULTS.md.new
mv bench/RESULTS.md.new bench/RESULTS.md
