#!/usr/bin/env bash
# Command-line contract (../shared/DESIGN.md): exit codes, "portolan: <message>" on stderr, one JSON
# object on stdout with --json, and every malformed file of tests/data/bad refused with exit 1 and a
# message naming the problem. Usage: tests/cli_contract.sh path/to/portolan
set -uo pipefail
bin=${1:?usage: cli_contract.sh PORTOLAN}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect CODE CMD...: runs CMD, checks the exit code, keeps stdout/stderr in $tmp/out, $tmp/err
expect() {
    local want=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then bad "exit $got (want $want): $*"; sed 's/^/    /' "$tmp/err" | head -3; return 1; fi
    if [ "$want" -ne 0 ] && ! grep -q '^portolan: ' "$tmp/err"; then bad "no 'portolan: ' message: $*"; return 1; fi
    ok
}
json_has() { # json_has KEY...: stdout is exactly one JSON object with these keys
    python3 - "$tmp/out" "$@" <<'PY' || { bad "JSON check failed for keys: $*"; return 1; }
import json, sys
text = open(sys.argv[1]).read()
obj = json.loads(text)
assert isinstance(obj, dict), "not an object"
assert text.strip().count("\n") == 0, "more than one line"
missing = [k for k in sys.argv[2:] if k not in obj]
assert not missing, "missing keys %s" % missing
PY
    ok
}

# Usage errors: exit 2.
expect 2 "$bin"
expect 2 "$bin" frobnicate
expect 2 "$bin" bake
expect 2 "$bin" bake x.map
expect 2 "$bin" path x.ptl --from 1,2 --to 1,2,3
expect 2 "$bin" path x.ptl --from nan,0,0 --to 1,2,3
expect 2 "$bin" bake x.map -o y.ptl --relax -1
expect 2 "$bin" info

# A generated scene through every command.
expect 0 "$bin" gen grid --scene rooms --width 96 --height 80 --seed 7 -o "$tmp/rooms.map"
expect 0 "$bin" bake "$tmp/rooms.map" -o "$tmp/rooms.ptl" --json && json_has input triangles tiles layers cells portals links vertices notches walkable_area bytes threads ms
expect 0 "$bin" info "$tmp/rooms.ptl" --validate --json && json_has cells portals vertices walkable_area valid
grep -q '"valid":true' "$tmp/out" && ok || bad "info --validate did not report valid"
expect 0 "$bin" decompose "$tmp/rooms.map" --json && json_has vertices notches cells portals ms
expect 0 "$bin" path "$tmp/rooms.ptl" --from 1,0,1 --to 90,0,75 --json && json_has found complete length points
printf 'sx,sy,sz,ex,ey,ez,extra\n1,0,1,90,0,75,x\n2,0,2,3,0,3,y\n' >"$tmp/pairs.csv"
expect 0 "$bin" path "$tmp/rooms.ptl" --pairs "$tmp/pairs.csv" --out "$tmp/res.csv" --json && json_has queries found complete mean_length sum_length us
head -1 "$tmp/res.csv" | grep -qx 'idx,found,complete,length,points,us' && ok || bad "--out header"
[ "$(wc -l <"$tmp/res.csv")" -eq 3 ] && ok || bad "--out rows"
expect 0 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/rooms.png" --from 1,0,1 --to 90,0,75
expect 0 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/zoom.png" --size 200 --window 10,10,20,20 --from 1,0,1 --to 90,0,75
python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); assert d[:8]==b'\x89PNG\r\n\x1a\n' and struct.unpack('>II',d[16:24])==(200,200)" "$tmp/zoom.png" \
    && ok || bad "draw --window: not a 200x200 PNG"
expect 2 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/zoom.png" --window 20,10,10,20
expect 2 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/zoom.png" --window 1,2,3
expect 1 "$bin" path "$tmp/rooms.ptl" --from 1,0,1 --to 9,0,9 --radius 0.5
expect 1 "$bin" bake "$tmp/missing.map" -o "$tmp/x.ptl"
expect 1 "$bin" bake "$tmp/rooms.map" -o "$tmp/x.ptl" --gpu

# 3D: two slabs 2 m up with a 0.5 m crack between them: one link by default, none with --max-gap 0.
slab() { # slab X0 X1 Y N: a 4 m deep box [X0, X1] x [Y - 0.2, Y] x [0, 4], its vertices after the first N
    local x0=$1 x1=$2 y=$3 n=$4 y0
    y0=$(python3 -c "print($y - 0.2)")
    for x in $x0 $x1; do for yy in $y0 $y; do for z in 0 4; do echo "v $x $yy $z"; done; done; done
    echo "f $((n+2)) $((n+4)) $((n+8)) $((n+6))"; echo "f $((n+1)) $((n+5)) $((n+7)) $((n+3))"
    echo "f $((n+1)) $((n+2)) $((n+6)) $((n+5))"; echo "f $((n+3)) $((n+7)) $((n+8)) $((n+4))"
    echo "f $((n+1)) $((n+3)) $((n+4)) $((n+2))"; echo "f $((n+5)) $((n+6)) $((n+8)) $((n+7))"
}
{ slab -1 9.5 0 0; slab 0 4 2 8; slab 4.5 8.5 2 16; } >"$tmp/crack.obj"
expect 0 "$bin" bake "$tmp/crack.obj" -o "$tmp/crack.ptl" --json && json_has links
grep -q '"links":1' "$tmp/out" && ok || bad "a 0.5 m crack: want 1 link: $(cat "$tmp/out")"
expect 0 "$bin" path "$tmp/crack.ptl" --from 1.5,2,2 --to 7,2,2 --json && grep -q '"found":true' "$tmp/out" && ok || bad "no path over the crack"
expect 0 "$bin" bake "$tmp/crack.obj" -o "$tmp/crack0.ptl" --max-gap 0 --json && grep -q '"links":0' "$tmp/out" && ok || bad "--max-gap 0 still links"
expect 0 "$bin" path "$tmp/crack0.ptl" --from 1.5,2,2 --to 7,2,2 --json && grep -q '"found":false' "$tmp/out" && ok || bad "a path over the crack with --max-gap 0"
expect 2 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --max-gap -1
expect 2 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --max-gap nan
# Tiles and threads: the same navmesh (byte for byte past the header) in tiles on 2 threads.
expect 0 "$bin" bake "$tmp/crack.obj" -o "$tmp/crackt.ptl" --tile-size 16 --threads 2 --json
grep -q '"threads":2' "$tmp/out" && grep -q '"tiles":3' "$tmp/out" && ok || bad "tiled bake JSON: $(cat "$tmp/out")"
cmp -s <(tail -c +257 "$tmp/crack.ptl") <(tail -c +257 "$tmp/crackt.ptl") && ok || bad "tiled bake differs from the one-piece bake"
expect 0 "$bin" info "$tmp/crackt.ptl" --validate --json && grep -q '"tiles":3' "$tmp/out" && ok || bad "info: tiles"
expect 2 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --tile-size 8
expect 2 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --threads 0
expect 2 "$bin" bake "$tmp/rooms.map" -o "$tmp/x.ptl" --tile-size 32
# A bake spread over machines: parts by tile ranges, merged, are the one-machine tiled bake.
expect 0 "$bin" bake "$tmp/crack.obj" -o "$tmp/part0.ptl" --tile-size 16 --tiles 0:0,0:9 --json && json_has part tiles tiles_x tiles_z bytes
expect 0 "$bin" bake "$tmp/crack.obj" -o "$tmp/part1.ptl" --tile-size 16 --tiles 1:99,0:99
expect 0 "$bin" bake "$tmp/crack.obj" -o "$tmp/part2.ptl" --tile-size 16 --tiles 50:60,0:0
expect 0 "$bin" merge "$tmp/part1.ptl" "$tmp/part2.ptl" "$tmp/part0.ptl" -o "$tmp/merged.ptl" --threads 2 --json && json_has parts tiles cells portals links vertices walkable_area bytes threads ms
cmp -s "$tmp/merged.ptl" "$tmp/crackt.ptl" && ok || bad "merged parts differ from the tiled bake"
expect 1 "$bin" merge "$tmp/part1.ptl" -o "$tmp/x.ptl" && grep -q 'missing' "$tmp/err" && ok || bad "merge: missing tile message"
expect 1 "$bin" merge "$tmp/part0.ptl" "$tmp/part1.ptl" "$tmp/part1.ptl" -o "$tmp/x.ptl"
expect 1 "$bin" merge "$tmp/crack.ptl" -o "$tmp/x.ptl" && grep -q "crack.ptl: bad magic" "$tmp/err" && ok || bad "merge: a navmesh is no part"
expect 2 "$bin" merge "$tmp/part0.ptl"
expect 2 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --tiles 0:1,0:1
expect 2 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --tile-size 16 --tiles 1:0,0:1

# Scale scenes: gen copy (K x K copies of an OBJ) and gen extrude (a .map in 3D); counts from the inputs.
expect 0 "$bin" gen building --size 24 --storeys 1 -o "$tmp/b.obj"
expect 0 "$bin" gen copy "$tmp/b.obj" --copies 3 --json -o "$tmp/b3.obj" && json_has vertices triangles bmin bmax ms
python3 - "$tmp/b.obj" "$tmp/out" <<'PY' && ok || bad "gen copy: not 9 x the triangles"
import json, sys
n = sum(1 for l in open(sys.argv[1]) if l.startswith("f "))
assert json.load(open(sys.argv[2]))["triangles"] == 9 * n
PY
expect 0 "$bin" gen copy "$tmp/b.obj" --copies 2 --gap 1.5 -o "$tmp/b2.obj"
expect 0 "$bin" gen copy "$tmp/b.obj" --copies 2 --spacing 30 -o "$tmp/b2.obj"
expect 0 "$bin" gen extrude "$tmp/rooms.map" --cell 0.5 --wall-height 3 --json -o "$tmp/rooms3d.obj" && json_has vertices triangles bmin bmax ms
python3 - "$tmp/rooms.map" "$tmp/out" <<'PY' && ok || bad "gen extrude: not 2 x free cells + 2 x wall sides"
import json, sys
rows = open(sys.argv[1]).read().split("\nmap\n", 1)[1].split()
free = lambda x, y: 0 <= y < len(rows) and 0 <= x < len(rows[y]) and rows[y][x] in ".GS"
cells = [(x, y) for y in range(len(rows)) for x in range(len(rows[y])) if free(x, y)]
walls = sum(not free(x + dx, y + dy) for x, y in cells for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
assert json.load(open(sys.argv[2]))["triangles"] == 2 * len(cells) + 2 * walls
PY
expect 0 "$bin" bake "$tmp/rooms3d.obj" -o "$tmp/rooms3d.ptl"
expect 0 "$bin" info "$tmp/rooms3d.ptl" --validate
for args in "" "-o $tmp/x.obj" "$tmp/b.obj -o $tmp/x.obj" "$tmp/b.obj --copies 0 -o $tmp/x.obj" \
    "$tmp/b.obj --copies 4097 -o $tmp/x.obj" "$tmp/b.obj --copies two -o $tmp/x.obj" "$tmp/b.obj --copies 2" \
    "$tmp/b.obj --copies 2 --spacing nan -o $tmp/x.obj" "$tmp/b.obj --copies 2 --spacing -1 -o $tmp/x.obj" \
    "$tmp/b.obj --copies 2 --gap -1 -o $tmp/x.obj" "$tmp/b.obj --copies 2 --spacing 9 --gap 1 -o $tmp/x.obj" \
    "$tmp/b.obj --copies 2 --frob 1 -o $tmp/x.obj"; do
    # shellcheck disable=SC2086
    expect 2 "$bin" gen copy $args
done
for args in "" "-o $tmp/x.obj" "$tmp/rooms.map" "$tmp/rooms.map --cell 0 -o $tmp/x.obj" \
    "$tmp/rooms.map --cell inf -o $tmp/x.obj" "$tmp/rooms.map --wall-height -2 -o $tmp/x.obj" \
    "$tmp/rooms.map --height 2 -o $tmp/x.obj"; do
    # shellcheck disable=SC2086
    expect 2 "$bin" gen extrude $args
done
expect 1 "$bin" gen copy "$tmp/missing.obj" --copies 2 -o "$tmp/x.obj"
expect 1 "$bin" gen copy "$tmp/b.obj" --copies 4096 -o "$tmp/x.obj" && grep -q '2^31' "$tmp/err" && ok || bad "gen copy: no 2^31 message"
expect 1 "$bin" gen extrude "$tmp/missing.map" -o "$tmp/x.obj"
printf 'type octile\nheight 2\nwidth 3\nmap\n@@@\nTTT\n' >"$tmp/walls.map"
expect 1 "$bin" gen extrude "$tmp/walls.map" -o "$tmp/x.obj" && grep -q 'no free cell' "$tmp/err" && ok || bad "gen extrude: no 'no free cell' message"
expect 1 "$bin" gen extrude "$tmp/rooms.map" -o "$tmp/no/such/dir/x.obj"

# Damaged navmeshes: exit 1 naming the problem, never a crash.
size=$(stat -c %s "$tmp/rooms.ptl")
head -c $((size / 2)) "$tmp/rooms.ptl" >"$tmp/trunc.ptl"
expect 1 "$bin" info "$tmp/trunc.ptl" && grep -q 'truncated' "$tmp/err" && ok || bad "truncated blob message"
cp "$tmp/rooms.ptl" "$tmp/flip.ptl"
printf '\x5a' | dd of="$tmp/flip.ptl" bs=1 seek=$((size - 40)) conv=notrunc status=none
expect 1 "$bin" info "$tmp/flip.ptl" && grep -q 'checksum' "$tmp/err" && ok || bad "corrupted blob message"
printf 'not a navmesh at all, just text that is long enough to fill a header........................................................................................................................................................................' >"$tmp/text.ptl"
expect 1 "$bin" info "$tmp/text.ptl" && grep -q 'magic' "$tmp/err" && ok || bad "wrong magic message"
: >"$tmp/empty.ptl"
expect 1 "$bin" path "$tmp/empty.ptl" --from 1,0,1 --to 2,0,2

# Malformed inputs: tests/data/bad/README.md lists "file<TAB>expected substring".
list=tests/data/bad/README.md
if [ -f "$list" ]; then
    while IFS=$'\t' read -r file want; do
        [ -n "$file" ] && [ -n "$want" ] || continue
        case "$file" in \#*|'|'*) continue ;; esac
        f=tests/data/bad/$file
        [ -f "$f" ] || { bad "listed file missing: $f"; continue; }
        case "$file" in
            *.scen) expect 1 "$bin" path "$tmp/rooms.ptl" --scen "$f" || continue ;;
            *.csv) expect 1 "$bin" path "$tmp/rooms.ptl" --pairs "$f" || continue ;;
            *) expect 1 "$bin" bake "$f" -o "$tmp/bad.ptl" || continue ;;
        esac
        grep -qF -- "$want" "$tmp/err" && ok || { bad "$file: message lacks '$want':"; sed 's/^/    /' "$tmp/err"; }
    done <"$list"
else
    bad "missing $list"
fi

echo "cli contract: $pass checks passed, $fails failed"
[ "$fails" -eq 0 ]
