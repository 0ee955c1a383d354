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
# The "portolan: " line is the first line of stderr (the usage, where printed, after it); an
# unknown option is named as such whatever the command, even where every option takes a value.
first_line() { # first_line REGEX: the first line of stderr matches
    head -n 1 "$tmp/err" | grep -Eq "^portolan: .*$1" && ok || bad "first stderr line: $(head -n 1 "$tmp/err") (want /$1/)"
}
expect 2 "$bin" && first_line 'missing command'
expect 2 "$bin" frobnicate && first_line "unknown command 'frobnicate'"
for c in "bake x.map" "info x.ptl" "path x.ptl" "draw x.ptl" "merge x.ptl" "decompose x.map" "gen grid" \
    "gen building" "gen copy x.obj" "gen extrude x.map"; do
    # shellcheck disable=SC2086
    expect 2 "$bin" $c --frobnicate && first_line "unknown option '--frobnicate'"
done

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
expect 0 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/rooms_r.png" --from 3,0,3 --to 90,0,75 --radius 1 && [ -s "$tmp/rooms_r.png" ] && ok || bad "draw --radius"
expect 2 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/rooms_r.png" --from 3,0,3 --to 90,0,75 --radius -1
# query: one row out per row in, the contract's columns, and the JSON summary
printf 'px,py,pz,max_radius,note\n1.5,0,1.5,10,a\n40,0,30,0.5,b\n500,0,500,1,off\n' >"$tmp/wall.csv"
expect 0 "$bin" query "$tmp/rooms.ptl" wall --in "$tmp/wall.csv" --out "$tmp/wall_out.csv" --json && json_has queries found us
head -1 "$tmp/wall_out.csv" | grep -qx 'idx,found,dist,x,y,z,nx,nz,us' && ok || bad "query wall header"
[ "$(wc -l <"$tmp/wall_out.csv")" -eq 4 ] && ok || bad "query wall rows"
sed -n 4p "$tmp/wall_out.csv" | grep -q '^2,0,' && ok || bad "query wall: a point off the mesh is not found"
expect 0 "$bin" query "$tmp/rooms.ptl" nearest --in "$tmp/wall.csv" --out "$tmp/near_out.csv" --json && json_has queries found us
head -1 "$tmp/near_out.csv" | grep -qx 'idx,found,x,y,z,cell,dist,us' && ok || bad "query nearest header"
expect 0 "$bin" query "$tmp/rooms.ptl" clear --radius 0.5 --in "$tmp/wall.csv" --out "$tmp/clear_out.csv"
[ "$(wc -l <"$tmp/clear_out.csv")" -eq 4 ] && ok || bad "query clear rows"
expect 2 "$bin" query "$tmp/rooms.ptl" clear --in "$tmp/wall.csv" --out "$tmp/clear_out.csv"
expect 2 "$bin" query "$tmp/rooms.ptl" frobnicate --in "$tmp/wall.csv" --out "$tmp/x.csv"
expect 1 "$bin" query "$tmp/rooms.ptl" random --in "$tmp/wall.csv" --out "$tmp/x.csv"
printf 'sx,sy,sz,ex,ey,ez\n1.5,0,1.5,90,0,75\n1.5,0,1.5,1.5,0,1.5\n' >"$tmp/ray.csv"
# query move: idx,x,y,z,cell,us; a move to its own start stays there; a start off the mesh: cell 4294967295
printf 'sx,sy,sz,ex,ey,ez\n1.5,0,1.5,90,0,75\n1.5,0,1.5,1.5,0,1.5\n500,0,500,1,0,1\n' >"$tmp/move.csv"
expect 0 "$bin" query "$tmp/rooms.ptl" move --in "$tmp/move.csv" --out "$tmp/move_out.csv" --json && json_has queries found us
head -1 "$tmp/move_out.csv" | grep -qx 'idx,x,y,z,cell,us' && ok || bad "query move header"
[ "$(wc -l <"$tmp/move_out.csv")" -eq 4 ] && ok || bad "query move rows"
sed -n 3p "$tmp/move_out.csv" | grep -q '^1,1.5,0,1.5,' && ok || bad "query move: a move to its start stays there"
sed -n 4p "$tmp/move_out.csv" | grep -q '^2,0,0,0,4294967295,' && ok || bad "query move: a start off the mesh is not found"
expect 1 "$bin" query "$tmp/rooms.ptl" move --in "$tmp/wall.csv" --out "$tmp/x.csv" && first_line "no column 'sx'"
expect 0 "$bin" query "$tmp/rooms.ptl" raycast --in "$tmp/ray.csv" --out "$tmp/ray_out.csv" --json && json_has queries found us
head -1 "$tmp/ray_out.csv" | grep -qx 'idx,hit,t,x,y,z,nx,nz,cells,us' && ok || bad "query raycast header"
sed -n 3p "$tmp/ray_out.csv" | grep -q '^1,0,1,' && ok || bad "query raycast: a zero-length ray does not hit"
# query random: n points (column n) or one per circle row; the same --seed gives the same points
printf 'n\n5\n3\n' >"$tmp/rand_n.csv"
expect 0 "$bin" query "$tmp/rooms.ptl" random --in "$tmp/rand_n.csv" --out "$tmp/rand1.csv" --seed 42 --json && json_has queries found us
head -1 "$tmp/rand1.csv" | grep -qx 'idx,x,y,z,cell,us' && ok || bad "query random header"
[ "$(wc -l <"$tmp/rand1.csv")" -eq 9 ] && ok || bad "query random: 8 points, one row each"
expect 0 "$bin" query "$tmp/rooms.ptl" random --in "$tmp/rand_n.csv" --out "$tmp/rand2.csv" --seed 42
expect 0 "$bin" query "$tmp/rooms.ptl" random --in "$tmp/rand_n.csv" --out "$tmp/rand3.csv" --seed 43
[ "$(cut -d, -f1-5 "$tmp/rand1.csv")" = "$(cut -d, -f1-5 "$tmp/rand2.csv")" ] && ok || bad "query random: --seed is not deterministic"
[ "$(cut -d, -f1-5 "$tmp/rand1.csv")" != "$(cut -d, -f1-5 "$tmp/rand3.csv")" ] && ok || bad "query random: another seed gives the same points"
printf 'cx,cy,cz,r\n2,0,2,3\n-50,0,-50,1\n' >"$tmp/rand_c.csv"
expect 0 "$bin" query "$tmp/rooms.ptl" random --in "$tmp/rand_c.csv" --out "$tmp/rand_c_out.csv"
python3 - "$tmp/rand_c_out.csv" <<'PY' && ok || bad "query random: circle rows"
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2
assert math.hypot(float(rows[0]["x"]) - 2, float(rows[0]["z"]) - 2) <= 3 + 1e-5 and rows[0]["cell"] != "4294967295"
assert rows[1]["cell"] == "4294967295"  # a centre off the mesh: no point
PY
printf 'n\n-1\n' >"$tmp/rand_bad.csv"
expect 1 "$bin" query "$tmp/rooms.ptl" random --in "$tmp/rand_bad.csv" --out "$tmp/x.csv" && first_line 'whole number'
expect 2 "$bin" query "$tmp/rooms.ptl" random --in "$tmp/rand_n.csv" --out "$tmp/x.csv" --seed x
expect 2 "$bin" query "$tmp/rooms.ptl" wall --in "$tmp/rand_n.csv" --out "$tmp/x.csv" --seed 1
# path --json lists the cells the path crosses, from the start's to the goal's
expect 0 "$bin" path "$tmp/rooms.ptl" --from 1,0,1 --to 90,0,75 --json && json_has found complete length radius points cells
python3 -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['found'] and len(o['cells'])>=1 and all(isinstance(c,int) for c in o['cells'])" "$tmp/out" \
    && ok || bad "path --json cells"
printf 'px,py\n1,2\n' >"$tmp/short.csv"
expect 1 "$bin" query "$tmp/rooms.ptl" wall --in "$tmp/short.csv" --out "$tmp/x.csv" && first_line "no column 'pz'"
printf 'px,py,pz,max_radius\n1,0,nan,1\n' >"$tmp/nan.csv"
expect 1 "$bin" query "$tmp/rooms.ptl" wall --in "$tmp/nan.csv" --out "$tmp/x.csv" && first_line 'nan.csv:2'
printf 'px,py,pz,max_radius\n1,0,1,-1\n' >"$tmp/neg.csv"
expect 1 "$bin" query "$tmp/rooms.ptl" wall --in "$tmp/neg.csv" --out "$tmp/x.csv" && first_line 'negative'
expect 0 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/zoom.png" --size 200 --window 10,10,20,20 --from 1,0,1 --to 90,0,75
python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); assert d[:8]==b'\x89PNG\r\n\x1a\n' and struct.unpack('>II',d[16:24])==(200,200)" "$tmp/zoom.png" \
    && ok || bad "draw --window: not a 200x200 PNG"
expect 2 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/zoom.png" --window 20,10,10,20
expect 2 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/zoom.png" --window 1,2,3
expect 0 "$bin" path "$tmp/rooms.ptl" --from 1,0,1 --to 9,0,9 --radius 0.5 --json && json_has found complete length radius points
grep -q '"radius":0.5' "$tmp/out" && ok || bad "path --radius: the JSON names the radius"
expect 0 "$bin" path "$tmp/rooms.ptl" --pairs "$tmp/pairs.csv" --radius 0.5 --out "$tmp/res.csv" --json && json_has queries found complete mean_length us
expect 1 "$bin" bake "$tmp/missing.map" -o "$tmp/x.ptl"
expect 0 "$bin" bake "$tmp/rooms.map" -o "$tmp/x.ptl" --gpu --json && json_has gpu
python3 -c "import json,sys; g=json.load(open(sys.argv[1]))['gpu']; assert all(k in g for k in ('renderer','version','ms'))" "$tmp/out" \
    && ok || bad "bake --gpu --json: gpu has renderer, version, ms"
expect 0 "$bin" bake "$tmp/rooms.map" -o "$tmp/y.ptl" && cmp -s "$tmp/x.ptl" "$tmp/y.ptl" && ok || bad "bake --gpu: the CPU's bytes"
expect 0 "$bin" decompose "$tmp/rooms.map" --gpu --json && json_has vertices notches cells portals ms gpu
MESA_GL_VERSION_OVERRIDE=3.3 expect 1 "$bin" bake "$tmp/rooms.map" -o "$tmp/x.ptl" --gpu
grep -q "4.3" "$tmp/err" && ok || bad "bake --gpu without OpenGL 4.3: the message names it"

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
# Off-mesh links (bake --links): the crack of --max-gap 0 jumped by a link; bad rows named by line.
printf 'sx,sy,sz,ex,ey,ez,radius,bidir,cost,area\n3.5,2,2,5,2,2,0.5,1\n' >"$tmp/links.csv"
expect 0 "$bin" bake "$tmp/crack.obj" -o "$tmp/crackl.ptl" --max-gap 0 --links "$tmp/links.csv"
expect 0 "$bin" info "$tmp/crackl.ptl" --json && json_has offmesh && grep -q '"offmesh":1' "$tmp/out" && ok || bad "info: no offmesh 1"
expect 0 "$bin" path "$tmp/crackl.ptl" --from 1.5,2,2 --to 7,2,2 --json && json_has offmesh &&
    grep -q '"found":true' "$tmp/out" && grep -q '"offmesh":\[1\]' "$tmp/out" && ok || bad "no path over the link: $(cat "$tmp/out")"
printf '3.5,2,2,5,2,2,0.5,2\n' >"$tmp/links_bad.csv"
expect 2 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --links "$tmp/links_bad.csv" && first_line 'links_bad.csv:1: bidir'
printf '3.5,2,2\n' >"$tmp/links_bad.csv"
expect 2 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --links "$tmp/links_bad.csv" && first_line 'fewer than 8 fields'
printf '3.5,2,2,50,2,2,0.5,1\n' >"$tmp/links_bad.csv"
expect 1 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --links "$tmp/links_bad.csv" && first_line 'off-mesh link 0.*end'
expect 1 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --links "$tmp/none.csv" && first_line 'none.csv'
# An explicit 0 is never silently the desc's default: --max-climb 0 climbs no step (0.4 m here, 0.9
# by default), --extents 0,0,0 snaps nothing (2,4,2 by default); an agent height or a slope of 0
# cannot be expressed and is refused, naming the option and its range.
{ slab -1 9.5 1 0; slab 4 8 1.4 8; } >"$tmp/step.obj"
expect 0 "$bin" bake "$tmp/step.obj" -o "$tmp/step.ptl"
expect 0 "$bin" path "$tmp/step.ptl" --from 1,1,2 --to 6,1.4,2 --json && grep -q '"found":true' "$tmp/out" && ok || bad "no path up a 0.4 m step"
# The path's points: the corners (here the two ends) by default; --surface adds those where the
# ground bends (the step), the same length in plan.
npoints() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["points"]))' "$tmp/out"; }
[ "$(npoints)" = 2 ] && ok || bad "path up a step without --surface: $(npoints) points, not its 2 ends"
expect 0 "$bin" path "$tmp/step.ptl" --from 1,1,2 --to 6,1.4,2 --surface --json && [ "$(npoints)" -gt 2 ] && ok ||
    bad "path up a step with --surface: no point where the ground bends"
expect 0 "$bin" bake "$tmp/step.obj" -o "$tmp/step0.ptl" --max-climb 0
expect 0 "$bin" path "$tmp/step0.ptl" --from 1,1,2 --to 6,1.4,2 --json && grep -q '"found":false' "$tmp/out" && ok || bad "--max-climb 0 climbs a 0.4 m step"
expect 2 "$bin" bake "$tmp/step.obj" -o "$tmp/x.ptl" --agent-height 0 && first_line 'agent-height.*> 0'
expect 2 "$bin" bake "$tmp/step.obj" -o "$tmp/x.ptl" --max-slope 0 && first_line 'max-slope.*> 0 and <= 90'
expect 2 "$bin" gen grid --scene random --density 0 -o "$tmp/x.map" && first_line 'density'
expect 0 "$bin" path "$tmp/step.ptl" --from 1,1.5,2 --to 2,1,2 --json && grep -q '"found":true' "$tmp/out" && ok || bad "no snap at the default extents"
expect 0 "$bin" path "$tmp/step.ptl" --from 1,1.5,2 --to 2,1,2 --extents 0,0,0 --json && grep -q '"found":false' "$tmp/out" && ok || bad "--extents 0,0,0 snapped a point 0.5 m above the floor"
# draw: windows of a micrometre to float range are drawn, a narrower one is refused.
expect 0 "$bin" draw "$tmp/step.ptl" -o "$tmp/w.png" --window 3,1,3.000001,1.000001 --from 1,1,2 --to 6,1.4,2
expect 0 "$bin" draw "$tmp/step.ptl" -o "$tmp/w.png" --window -3e38,-3e38,3e38,3e38 --from 1,1,2 --to 6,1.4,2
expect 2 "$bin" draw "$tmp/step.ptl" -o "$tmp/w.png" --window 0,0,1e-30,1e-30 && first_line 'window'
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

# Output that cannot be written is a failure naming the file, for every kind of output.
for c in "bake $tmp/rooms.map" "bake $tmp/step.obj" "draw $tmp/step.ptl" "gen grid" "gen building" "gen copy $tmp/step.obj --copies 2" \
    "gen extrude $tmp/rooms.map" "merge $tmp/part0.ptl $tmp/part1.ptl"; do
    # shellcheck disable=SC2086
    expect 1 "$bin" $c -o /dev/full && first_line '/dev/full'
done
expect 1 "$bin" path "$tmp/step.ptl" --pairs "$tmp/pairs.csv" --out /dev/full && first_line '/dev/full'
expect 1 bash -c '"$0" info "$1" --json >/dev/full' "$bin" "$tmp/step.ptl" && first_line 'standard output'

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

# Help: every command's --help and -h print its usage on stdout and exit 0.
for c in bake merge info path decompose draw gen; do
    for h in --help -h; do
        expect 0 "$bin" $c $h && grep -q "^usage: portolan $c" "$tmp/out" && ok || bad "$c $h: no usage on stdout"
    done
done
expect 0 "$bin" bake "$tmp/rooms.map" --help && grep -q 'max-slope' "$tmp/out" && ok || bad "bake --help lacks --max-slope"
# Every out-of-range number is a usage error naming its option.
for opt in "--max-slope 200" "--max-slope -1" "--cell-size 0" "--cell-height -0.1" "--agent-height 1e9" \
    "--agent-radius nan" "--max-climb inf" "--relax 1e300" "--landmarks 65" "--pair-slack 0.5" "--max-error 101"; do
    # shellcheck disable=SC2086
    expect 2 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" $opt && grep -q -- "${opt%% *}" "$tmp/err" && ok ||
        bad "bake $opt: message does not name the option"
done
for opt in "--width 0" "--height 0" "--width 7" "--width 65537" "--height 99999999999"; do
    # shellcheck disable=SC2086
    expect 2 "$bin" gen grid $opt -o "$tmp/x.map" && grep -q -- "${opt%% *}" "$tmp/err" && ok || bad "gen grid $opt"
done
[ ! -e "$tmp/x.map" ] && ok || bad "gen grid wrote a map with an absurd size"
expect 2 "$bin" gen building --storeys 65 -o "$tmp/x.obj"
expect 2 "$bin" gen building --size 1e9 -o "$tmp/x.obj"
expect 2 "$bin" draw "$tmp/rooms.ptl" -o "$tmp/x.png" --size 99999
expect 2 "$bin" path "$tmp/rooms.ptl" --from 1,0,1 --to 2,0,2 --extents -1,1,1
# Directories and devices are not files: a message, exit 1, no absurd allocation.
mkdir -p "$tmp/dir.ptl" "$tmp/dir.map" "$tmp/dir.obj"
for cmd in "info $tmp/dir.ptl" "path $tmp/dir.ptl --from 1,0,1 --to 2,0,2" "draw $tmp/dir.ptl -o $tmp/x.png" \
    "bake $tmp/dir.map -o $tmp/x.ptl" "bake $tmp/dir.obj -o $tmp/x.ptl" "decompose $tmp/dir.map" \
    "merge $tmp/dir.ptl -o $tmp/x.ptl" "gen extrude $tmp/dir.map -o $tmp/x.obj" "info /dev/zero" \
    "path $tmp/rooms.ptl --pairs $tmp --out $tmp/x.csv"; do
    # shellcheck disable=SC2086
    expect 1 "$bin" $cmd && grep -qE 'directory|not a regular file' "$tmp/err" && ! grep -q 'memory' "$tmp/err" && ok ||
        { bad "$cmd: no 'directory' message"; sed 's/^/    /' "$tmp/err"; }
done
# One prefix per message: no "merge: merge:" or "FILE: FILE:".
expect 1 "$bin" merge "$tmp/part0.ptl" "$tmp/part1.ptl" "$tmp/part1.ptl" -o "$tmp/x.ptl"
for f in "$tmp"/err; do
    grep -qE '(^|: )([^ :]+): \2: ' "$f" && bad "doubled prefix: $(cat "$f")" || ok
done
expect 1 "$bin" info "$tmp/trunc.ptl" && ! grep -qE '(^|: )([^ :]+): \2: ' "$tmp/err" && ok || bad "doubled prefix: $(cat "$tmp/err")"
# Progress: a bake's stages on stderr once it runs past a second (--progress: from the start);
# nothing with --quiet, nor with --json unless asked.
expect 0 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --progress
grep -qE '^portolan: bake: voxelize +[0-9]+%' "$tmp/err" && grep -q 'done 100%' "$tmp/err" && ok ||
    bad "bake --progress: no stages on stderr: $(cat "$tmp/err")"
expect 0 "$bin" bake "$tmp/rooms.map" -o "$tmp/x.ptl" --progress --json && json_has cells
grep -qE '^portolan: bake: decompose +0%' "$tmp/err" && ok || bad "2D bake --progress: $(cat "$tmp/err")"
expect 0 "$bin" bake "$tmp/crack.obj" -o "$tmp/x.ptl" --progress --quiet
[ ! -s "$tmp/err" ] && ok || bad "bake --quiet wrote to stderr: $(head -2 "$tmp/err")"
"$bin" gen building --size 64 --storeys 3 -o "$tmp/slow.obj" >/dev/null
# The progress clock starts with the command (the OBJ read included) and shows at the next stage
# report past a second: so a process under 0.9 s of wall time shows none, and a bake of over 1.5 s
# (the bake alone, as printed) shows its stages; between the two either may happen on a loaded
# machine, and nothing is asserted there.
python3 - "$bin" "$tmp/slow.obj" "$tmp/slow.ptl" <<'PY' && ok || bad "bake past a second: progress on stderr"
import re, subprocess, sys, time
t = time.monotonic()
r = subprocess.run([sys.argv[1], "bake", sys.argv[2], "-o", sys.argv[3], "--cell-size", "0.05"],
                   capture_output=True, text=True)
wall = (time.monotonic() - t) * 1000
assert r.returncode == 0, r.stderr
ms = float(re.search(r"([0-9.]+) ms$", r.stdout.strip()).group(1))
err = r.stderr
assert ms < 1500 or (re.search(r"bake: [a-z]+ +[0-9]+%", err) and "done 100%" in err), "no progress: %.0f ms: %s" % (ms, err)
assert wall > 900 or "%" not in err, "progress within the first second (%.0f ms): %s" % (wall, err)
PY
expect 0 "$bin" bake "$tmp/slow.obj" -o "$tmp/slow.ptl" --cell-size 0.08 --json && json_has cells
[ ! -s "$tmp/err" ] && ok || bad "bake --json wrote progress to stderr: $(head -2 "$tmp/err")"
# draw: one storey of a building (--layer, --band), start and goal marked.
expect 0 "$bin" gen building --size 40 --storeys 3 --seed 1 -o "$tmp/bld.obj"
expect 0 "$bin" bake "$tmp/bld.obj" -o "$tmp/bld.ptl" --quiet
expect 0 "$bin" draw "$tmp/bld.ptl" -o "$tmp/all.png" --size 300 --from 23.8,0.2,37.9 --to 34.5,6.2,20.2
expect 0 "$bin" draw "$tmp/bld.ptl" -o "$tmp/top.png" --size 300 --band 5.5,7 --from 23.8,0.2,37.9 --to 34.5,6.2,20.2
expect 0 "$bin" draw "$tmp/bld.ptl" -o "$tmp/l0.png" --size 300 --layer 0
expect 2 "$bin" draw "$tmp/bld.ptl" -o "$tmp/x.png" --layer 99
expect 2 "$bin" draw "$tmp/bld.ptl" -o "$tmp/x.png" --band 3,1
expect 2 "$bin" draw "$tmp/bld.ptl" -o "$tmp/x.png" --band 1,2 --layer 0
python3 - "$tmp/all.png" "$tmp/top.png" "$tmp/l0.png" <<'PY' && ok || bad "draw: markers missing or --band/--layer drew everything"
import sys
# the PNG decoder of demo_png_check.py (standard library only), without running its checks
exec(open("tests/demo_png_check.py").read().split("\ndef main")[0])
def pixels(p):
    w, h, bpp, rows = read_png(p)
    return {tuple(r[i:i + 3]) for r in rows for i in range(0, w * bpp, bpp)}, rows
allpx, allrows = pixels(sys.argv[1])
toppx, toprows = pixels(sys.argv[2])
_, l0rows = pixels(sys.argv[3])
for px in (allpx, toppx):
    assert (40, 200, 60) in px and (40, 90, 230) in px, "no start or goal marker"
assert allrows != toprows and allrows != l0rows, "a band or a layer drew the same picture as all storeys"
PY
for l in $(seq 0 9); do "$bin" draw "$tmp/bld.ptl" -o "$tmp/l.png" --size 64 --layer "$l" 2>/dev/null || break; done
[ "$l" -ge 2 ] && ok || bad "draw --layer: fewer than 2 layers in a 3-storey building"

# Areas (bake --areas, path --cost / --exclude, info's "areas"): a floor with a wall and two doors,
# the direct door's floor in group "mud"; bad area tables exit 1 naming the problem.
python3 - "$tmp/doors.obj" <<'PY'
import sys
V, F = [], []
def quad(a, b, c, d, g):
    V.extend([a, b, c, d]); n = len(V); F.append((g, (n - 3, n - 2, n - 1, n)))
for x in range(20):
    for z in range(20):
        quad((x, 0, z), (x, 0, z + 1), (x + 1, 0, z + 1), (x + 1, 0, z), "mud" if 9 <= x < 11 and 9 <= z < 11 else "floor")
for x0, x1 in ((0, 9), (11, 16), (18, 20)):
    z0, z1, h = 9.6, 10.4, 3
    quad((x0, h, z0), (x0, h, z1), (x1, h, z1), (x1, h, z0), "wall")
    quad((x0, 0, z0), (x1, 0, z0), (x1, h, z0), (x0, h, z0), "wall")
    quad((x1, 0, z1), (x0, 0, z1), (x0, h, z1), (x1, h, z1), "wall")
with open(sys.argv[1], "w") as f:
    f.writelines("v %g %g %g\n" % v for v in V)
    for g, q in F:
        f.write("g %s\nf %d %d %d %d\n" % ((g,) + q))
PY
printf 'name,area\nmud,5\n' >"$tmp/areas.csv"
expect 0 "$bin" bake "$tmp/doors.obj" --areas "$tmp/areas.csv" -o "$tmp/doors.ptl" --quiet
expect 0 "$bin" info "$tmp/doors.ptl" --json && json_has areas
python3 -c 'import json, sys; a = json.load(open(sys.argv[1]))["areas"]; assert set(a) == {"0", "5"}, a' "$tmp/out" &&
    ok || bad "info --json areas: $(cat "$tmp/out")"
cells_of() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["found"], "%.3f" % d["length"])' "$tmp/out"; }
expect 0 "$bin" path "$tmp/doors.ptl" --from 10,0,5 --to 10,0,15 --json
direct=$(cells_of)
expect 0 "$bin" path "$tmp/doors.ptl" --from 10,0,5 --to 10,0,15 --cost 5=100 --json
costly=$(cells_of)
expect 0 "$bin" path "$tmp/doors.ptl" --from 10,0,5 --to 10,0,15 --exclude 5 --json
excluded=$(cells_of)
[ "$direct" = "True 10.000" ] && [ "${costly%% *}" = True ] && [ "$costly" = "$excluded" ] && [ "$costly" != "$direct" ] &&
    ok || bad "path --cost / --exclude: direct '$direct', costly '$costly', excluded '$excluded'"
expect 2 "$bin" path "$tmp/doors.ptl" --from 10,0,5 --to 10,0,15 --cost 5=0
expect 2 "$bin" path "$tmp/doors.ptl" --from 10,0,5 --to 10,0,15 --cost 64=2
expect 2 "$bin" path "$tmp/doors.ptl" --from 10,0,5 --to 10,0,15 --exclude x
# query takes the same filter: a ray across the mud (x 9..11 at z 9..11, the direct door) passes it
# without a filter and stops at its edge with --exclude 5; a point in the mud is not found in it
printf 'sx,sy,sz,ex,ey,ez
10,0,8,10,0,12
' >"$tmp/ray_in.csv"
ray_hit() { python3 -c 'import csv, sys; r = list(csv.DictReader(open(sys.argv[1])))[0]; print(r["hit"], "%.2f" % float(r["z"]))' "$tmp/ray_out.csv"; }
expect 0 "$bin" query "$tmp/doors.ptl" raycast --in "$tmp/ray_in.csv" --out "$tmp/ray_out.csv"
free_ray=$(ray_hit)
expect 0 "$bin" query "$tmp/doors.ptl" raycast --in "$tmp/ray_in.csv" --out "$tmp/ray_out.csv" --exclude 5
stopped_ray=$(ray_hit)
# (the mud's cells reach a voxel or so past its triangles: the hit within 8.4..9)
[ "$free_ray" = "0 12.00" ] && [ "${stopped_ray%% *}" = 1 ] && python3 -c 'import sys; assert 8.4 <= float(sys.argv[1]) <= 9' "${stopped_ray#* }" &&
    ok || bad "query raycast --exclude: free '$free_ray', excluded '$stopped_ray' (want a hit at z 8.4..9)"
printf 'px,py,pz
10,0,10
' >"$tmp/near_in.csv"
expect 0 "$bin" query "$tmp/doors.ptl" nearest --in "$tmp/near_in.csv" --out "$tmp/near_out.csv" --exclude 5 --extents 4,1,4
python3 -c 'import csv, sys; r = list(csv.DictReader(open(sys.argv[1])))[0]; assert r["found"] == "1" and not (9 < float(r["x"]) < 11 and 9 < float(r["z"]) < 11), r' "$tmp/near_out.csv" &&
    ok || bad "query nearest --exclude: $(cat "$tmp/near_out.csv")"
expect 2 "$bin" query "$tmp/doors.ptl" nearest --in "$tmp/near_in.csv" --out "$tmp/near_out.csv" --cost 5=-1
expect 2 "$bin" query "$tmp/doors.ptl" nearest --in "$tmp/near_in.csv" --out "$tmp/near_out.csv" --exclude 99
expect 2 "$bin" bake "$tmp/doors.obj" -o "$tmp/x.ptl" --areas
bad_areas() { # bad_areas CONTENT SUBSTRING: that table is refused with exit 1 and the message says so
    printf "$1" >"$tmp/bad_areas.csv"
    expect 1 "$bin" bake "$tmp/doors.obj" --areas "$tmp/bad_areas.csv" -o "$tmp/x.ptl" --quiet || return
    grep -qF -- "$2" "$tmp/err" && ok || { bad "--areas '$1': message lacks '$2':"; sed 's/^/    /' "$tmp/err"; }
}
bad_areas 'name,area\nmud,64\n' 'area must be an integer in 1..63'
bad_areas 'name,area\nmud,0\n' 'area must be an integer in 1..63'
bad_areas 'name,area\nmud,x\n' 'area must be an integer in 1..63'
bad_areas 'name,cost\nmud,5\n' "unknown column 'cost'"
bad_areas 'name,area\nmud\n' 'needs two columns'
bad_areas 'name,area\nmud,5,6\n' 'needs two columns'
bad_areas 'name,area\n,5\n' 'empty name'
bad_areas '' 'no header'
expect 1 "$bin" bake "$tmp/doors.obj" --areas "$tmp/absent.csv" -o "$tmp/x.ptl" --quiet

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
