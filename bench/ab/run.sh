#!/bin/bash
# A/B of query times: the runtime of commit BASE (A) against the working tree's (B), in one process
# (bench/ab/ab.c). usage, from the project root:
#   bash bench/ab/run.sh BASE NAV.ptl PAIRS.csv [RUNS]
# prints each run's line (exact, then corridor: median, p99, mean of the 30 slowest per runtime)
# and, at the end, the medians over the runs of new / base.
set -e
base=$1; nav=$2; csv=$3; runs=${4:-5}
[ -n "$base" ] && [ -f "$nav" ] && [ -f "$csv" ] || { echo "usage: bash bench/ab/run.sh BASE NAV.ptl PAIRS.csv [RUNS]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib() { # lib SRC_DIR PREFIX OUT: the runtime of SRC_DIR as one object, its global symbols prefixed
    local src=$1 pre=$2 out=$3 d=$tmp/obj_$2
    mkdir -p "$d"
    for f in "$src"/runtime/*.c; do
        gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$src/include" -I"$src/runtime" -c "$f" -o "$d/$(basename "$f" .c).o"
    done
    ld -r "$d"/*.o -o "$d/all.o"
    nm --defined-only -g "$d/all.o" | awk -v p="$pre" '{print $3, p $3}' > "$d/map"
    objcopy --redefine-syms="$d/map" "$d/all.o" "$out"
}
mkdir -p "$tmp/base"
git archive "$base" runtime include | tar -x -C "$tmp/base"
lib "$tmp/base" A_ "$tmp/a.o"
lib . B_ "$tmp/b.o"
gcc -O2 -std=c11 -Iinclude bench/ab/ab.c "$tmp/a.o" "$tmp/b.o" -lm -o "$tmp/ab"
for i in $(seq "$runs"); do "$tmp/ab" "$nav" "$csv" 7 | paste -sd' '; done | tee "$tmp/runs.txt"
awk '{e1[NR]=$12/$4; e2[NR]=$14/$6; e3[NR]=$16/$8; c1[NR]=$28/$20; c2[NR]=$30/$22}
     END {n=asort(e1); asort(e2); asort(e3); asort(c1); asort(c2); h=int((n+1)/2);
          printf "new / base, median of %d runs: exact median %.3f p99 %.3f slowest30 %.3f | corridor median %.3f p99 %.3f\n", n, e1[h], e2[h], e3[h], c1[h], c2[h]}' "$tmp/runs.txt"
