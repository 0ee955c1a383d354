#!/usr/bin/env bash
# A longer fuzzing campaign: every target (or those named) for SECONDS each (default 600) with
# JOBS worker processes (default 2), going on after findings (-fork, -ignore_*), then each finding
# replayed and grouped by its sanitizer summary or oracle message. Writes the table for FUZZING.md
# to build/fuzz/campaign/table.md and the distinct findings (one input each) to
# build/fuzz/campaign/findings.md. The corpus in build/fuzz/corpus/<target>/ grows from run to run.
# Usage: tests/fuzz/campaign.sh [SECONDS_PER_TARGET] [JOBS] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-600}
jobs=${2:-2}
shift 2 2>/dev/null || shift $#
fuzz=build/fuzz
camp=$fuzz/campaign
mkdir -p "$camp"
make -s -f tests/fuzz/Makefile -j2 >"$fuzz/build.log" 2>&1 || { cat "$fuzz/build.log"; exit 1; }
bash tests/fuzz/seeds.sh "$camp/seeds" || exit 1
if [ $# -gt 0 ]; then targets=("$@"); else
    targets=()
    for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c | sed 's/^fuzz_//')"); done
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
limits=(-rss_limit_mb=2048 -timeout=10)

# signature FILE: the first oracle message (numbers dropped) or sanitizer summary (paths shortened)
# of a replay, so that one bug gives one line; then the first frame in the library.
signature() {
    local log=$1 sig frame
    sig=$(grep -m1 -E 'fuzz oracle:|^SUMMARY:|ERROR: libFuzzer' "$log" | sed -E 's#/[^ ]*/(runtime|bake|tests)/#\1/#g; s/0x[0-9a-f]+//g')
    case $sig in "fuzz oracle:"*) sig=$(echo "$sig" | sed -E 's/[-+]?[0-9][0-9.e+-]*/N/g') ;; esac
    frame=$(grep -m1 -E '#[0-9]+ .* in ptl_|#[0-9]+ .* (runtime|bake)/' "$log" | sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ in //; s#/[^ ]*/(runtime|bake)/#\1/#')
    echo "${sig:-no report} | ${frame:-?}"
}

{
    echo "| target | seconds | workers | executions | findings (crash/oom/timeout) | distinct | corpus files | corpus KB |"
    echo "|---|---|---|---|---|---|---|---|"
} >"$camp/table.md"
: >"$camp/findings.md"
for t in "${targets[@]}"; do
    bin=$fuzz/fuzz_$t
    corpus=$fuzz/corpus/$t
    findings=$camp/findings/$t
    rm -rf "$findings"
    mkdir -p "$corpus" "$findings"
    opts=("${limits[@]}" -max_total_time="$secs" -fork="$jobs" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1
          -artifact_prefix="$findings/")
    [ -f "tests/fuzz/dict/$t.dict" ] && opts+=(-dict="tests/fuzz/dict/$t.dict")
    [ -f "tests/fuzz/options/$t" ] && read -r -a extra <"tests/fuzz/options/$t" && opts+=("${extra[@]}")
    log=$camp/$t.log
    echo "campaign: $t for ${secs}s with $jobs workers"
    "$bin" "${opts[@]}" "$corpus" "$camp/seeds/$t" >"$log" 2>&1
    last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
    execs=$(echo "$last" | sed -E 's/^#([0-9]+):.*/\1/')
    cot=$(echo "$last" | grep -oE 'oom/timeout/crash: [0-9]+/[0-9]+/[0-9]+' | awk '{print $2}')
    IFS=/ read -r oom tmo crash <<<"${cot:-0/0/0}"
    # Distinct findings: replay each saved input once.
    : >"$camp/$t.sigs"
    for f in "$findings"/*; do
        [ -f "$f" ] || continue
        "$bin" "${limits[@]}" "$f" >"$camp/replay.log" 2>&1 && continue
        echo "$(signature "$camp/replay.log")	$f" >>"$camp/$t.sigs"
    done
    distinct=$(cut -f1 "$camp/$t.sigs" | sort -u | grep -c . || true)
    files=$(find "$corpus" -type f | wc -l)
    kb=$(du -sk --apparent-size "$corpus" | cut -f1)
    echo "| $t | $secs | $jobs | ${execs:-?} | $((crash + oom + tmo)) ($crash/$oom/$tmo) | $distinct | $files | $kb |" >>"$camp/table.md"
    sort -t'	' -k1,1 -u "$camp/$t.sigs" | while IFS='	' read -r sig f; do
        echo "- $t: $sig — \`$f\`" >>"$camp/findings.md"
    done
done
cat "$camp/table.md"
echo
cat "$camp/findings.md"
