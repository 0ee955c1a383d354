#!/usr/bin/env bash
# After campaign.sh: minimises one input per distinct finding (-minimize_crash, kept only when the
# minimised input still gives the same finding) and saves it as tests/fuzz/regress/<target>/<name>,
# listed in tests/fuzz/regress/PENDING so that run.sh skips it until the bug is fixed (then delete
# its line: from then on run.sh replays it on every run). Already saved findings are left alone.
# Usage: tests/fuzz/save_findings.sh [SECONDS_PER_MINIMISATION] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-30}
shift 2>/dev/null || true
camp=build/fuzz/campaign
regress=tests/fuzz/regress
mkdir -p "$regress"
touch "$regress/PENDING"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
limits=(-rss_limit_mb=2048 -timeout=10)
sig_of() { # the first oracle line (numbers dropped) or sanitizer summary (file and line kept) of a replay
    "$1" "${limits[@]}" "$2" 2>&1 | grep -m1 -E 'fuzz oracle:|^SUMMARY:|ERROR: libFuzzer' |
        sed -E 's#/[^ ]*/(runtime|bake|tests)/#\1/#g; s/0x[0-9a-f]+//g; /^fuzz oracle/ s/[-+]?[0-9][0-9.e+-]*/N/g'
}
if [ $# -gt 0 ]; then targets=("$@"); else
    targets=()
    for f in "$camp"/*.sigs; do [ -f "$f" ] && targets+=("$(basename "$f" .sigs)"); done
fi
for t in "${targets[@]}"; do
    bin=build/fuzz/fuzz_$t
    [ -f "$camp/$t.sigs" ] || continue
    mkdir -p "$regress/$t"
    sort -t'	' -k1,1 -u "$camp/$t.sigs" | while IFS='	' read -r sig f; do
        [ -f "$f" ] || continue
        want=$(sig_of "$bin" "$f")
        [ -n "$want" ] || { echo "save: $t: $f no longer gives a finding"; continue; }
        # Skip a finding already saved (same signature on a saved input).
        dup=
        for old in "$regress/$t"/*; do
            [ -f "$old" ] && [ "$(sig_of "$bin" "$old")" = "$want" ] && dup=$old && break
        done
        [ -n "$dup" ] && { echo "save: $t: already saved as $dup"; continue; }
        name=$(echo "$want" | sed -E 's/^(fuzz oracle|SUMMARY): //; s/UndefinedBehaviorSanitizer: undefined-behavior/ubsan/;
            s/AddressSanitizer/asan/; s/[^A-Za-z0-9]+/-/g; s/(^|-)(N-)+/\1/g; s/^-+//' | cut -c1-60 | sed 's/-*$//')
        name="$name-$(echo "$want" | sha1sum | cut -c1-6)"
        out=$regress/$t/$name
        # libFuzzer's minimisation goes round until nothing shrinks; its best input so far is in
        # $out.min when the time is up.
        timeout -k 5 -s INT "$((secs + 5))" "$bin" "${limits[@]}" -minimize_crash=1 -max_total_time="$secs" \
            -exact_artifact_path="$out.min" "$f" >/dev/null 2>&1
        if [ -f "$out.min" ] && [ "$(sig_of "$bin" "$out.min")" = "$want" ]; then mv "$out.min" "$out"; else rm -f "$out.min"; cp "$f" "$out"; fi
        echo "$t/$name" >>"$regress/PENDING"
        echo "save: $t: $out ($(stat -c %s "$out") bytes): $want"
    done
done
