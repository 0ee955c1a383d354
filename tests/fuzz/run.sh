#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.c) into build/fuzz/, replays every saved finding
# of tests/fuzz/regress/<target>/ (except those listed in tests/fuzz/regress/PENDING, findings not
# fixed yet), then fuzzes each target for SECONDS (default 20) from its seeds (tests/fuzz/seeds.sh)
# and the corpus kept in build/fuzz/corpus/<target>/. Exits non-zero on any finding and prints the
# path of each crashing input. Usage: tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#   Reproduce a finding: build/fuzz/fuzz_<target> FILE     Minimise it: add -minimize_crash=1 -runs=10000
# FUZZ_SEED picks libFuzzer's random seed (printed with each run; drawn anew when unset). .ci/run fixes
# it, so that a red CI run is the same sequence of inputs on any machine: the same seed, run longer,
# reaches a finding that a faster machine reached in its 20 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-20}
shift || true
fuzz=build/fuzz
mkdir -p "$fuzz"

command -v clang-14 >/dev/null || command -v clang >/dev/null || { echo "fuzz: clang is missing (apt-get install -y clang-14 libclang-rt-14-dev)"; exit 1; }
make -s -f tests/fuzz/Makefile -j"${FUZZ_MAKE_JOBS:-2}" >"$fuzz/build.log" 2>&1 || { cat "$fuzz/build.log"; echo "fuzz: build failed (clang and libFuzzer's runtime: apt-get install -y clang-14 libclang-rt-14-dev)"; exit 1; }
bash tests/fuzz/seeds.sh "$fuzz/seeds" || exit 1

if [ $# -gt 0 ]; then targets=("$@"); else
    targets=()
    for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c | sed 's/^fuzz_//')"); done
fi

# What each run may use: a finding is a crash, a sanitizer report, a leak, an input taking over 10 s
# or a process over 2 GB.
limits=(-rss_limit_mb=2048 -timeout=10)
if [ -z "${FUZZ_SEED:-}" ]; then
    FUZZ_SEED=$(( (RANDOM << 15 | RANDOM) + 1 ))
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0

# Finding classes known and not fixed yet (tests/fuzz/OPEN): reported, not failed.
open=tests/fuzz/OPEN

# Regression inputs: each must run clean, except the pending ones (one "target/file" per line).
pending=tests/fuzz/regress/PENDING
skipped=0
for dir in tests/fuzz/regress/*/; do
    [ -d "$dir" ] || continue
    t=$(basename "$dir")
    for f in "$dir"*; do
        [ -f "$f" ] || continue
        if [ -f "$pending" ] && grep -qxF "$t/$(basename "$f")" "$pending"; then
            skipped=$((skipped + 1))
            continue
        fi
        if ! "$fuzz/fuzz_$t" "${limits[@]}" "$f" >"$fuzz/replay.log" 2>&1; then
            echo "fuzz: REGRESSION: $f"
            grep -m1 -E '^SUMMARY|fuzz oracle' "$fuzz/replay.log"
            failed=1
        fi
    done
done
[ $skipped -eq 0 ] || echo "fuzz: $skipped saved findings not replayed (listed in $pending: not fixed yet)"

for t in "${targets[@]}"; do
    bin=$fuzz/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz: no target $t"; failed=1; continue; }
    corpus=$fuzz/corpus/$t
    findings=$fuzz/findings/$t
    mkdir -p "$corpus" "$findings" "$fuzz/logs"
    opts=("${limits[@]}" -seed="$FUZZ_SEED" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$findings/")
    [ -f "tests/fuzz/dict/$t.dict" ] && opts+=(-dict="tests/fuzz/dict/$t.dict")
    [ -f "tests/fuzz/options/$t" ] && read -r -a extra <"tests/fuzz/options/$t" && opts+=("${extra[@]}")
    log=$fuzz/logs/$t.log
    "$bin" "${opts[@]}" "$corpus" "$fuzz/seeds/$t" >"$log" 2>&1
    rc=$?
    runs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    first=$(grep -m1 -E '^SUMMARY|fuzz oracle|ERROR: libFuzzer' "$log")
    if [ $rc -ne 0 ] && [ -n "$first" ] && [ -f "$open" ] && grep -qE -f <(grep -vE '^(#|$)' "$open") <<<"$first"; then
        echo "fuzz: $t: known open finding after ${runs:-?} runs (tests/fuzz/OPEN), log $log"
        echo "    $first"
    elif [ $rc -ne 0 ]; then
        failed=1
        echo "fuzz: $t: FINDING after ${runs:-?} runs (exit $rc, FUZZ_SEED=$FUZZ_SEED), log $log"
        grep -m1 -E '^SUMMARY|fuzz oracle|ERROR: libFuzzer' "$log" | sed 's/^/    /'
        grep -o 'Test unit written to .*' "$log" | sort -u | sed 's/^Test unit written to /    input: /'
        # A CI machine's files are gone after its run: small inputs go into the log as base64
        # (`base64 -d > input` gives the file back).
        grep -o 'Test unit written to .*' "$log" | sort -u | sed 's/^Test unit written to //' | while read -r f; do
            [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 8192 ] && echo "    base64: $(base64 -w0 "$f")"
        done
    else
        echo "fuzz: $t: ${runs:-?} runs (FUZZ_SEED=$FUZZ_SEED), no finding"
    fi
done
exit $failed
