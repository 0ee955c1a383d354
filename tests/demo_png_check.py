#!/usr/bin/env python3
"""Checks a portolan-demo screenshot is not blank: the navmesh's cell colours and the path colour are
present, and the path lies where the navmesh is.

usage: demo_png_check.py FILE.png LOG
  LOG: the demo's output, whose line "portolan-demo: wrote FILE (WxH); colours: path=#rrggbb
  cells=#rrggbb,..." names the colours it drew with (exact: cells are opaque and unlit, the path is
  drawn on top). Exit 0 when the picture passes, 1 with the reason otherwise.
Only the standard library: a small PNG decoder for the 8-bit RGB/RGBA non-interlaced files
stb_image_write produces."""
import re
import struct
import sys
import zlib

BACKGROUND = (41, 46, 56)  # glClearColor(0.16, 0.18, 0.22) in demo_main.c


def fail(msg):
    print("demo_png_check: FAIL: " + msg)
    sys.exit(1)


def read_png(path):
    try:
        data = open(path, "rb").read()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG file" % path)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail("unexpected PNG format (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if not w:
        fail("%s has no IHDR" % path)
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def hexcol(s):
    return (int(s[1:3], 16), int(s[3:5], 16), int(s[5:7], 16))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    png, log = sys.argv[1], sys.argv[2]
    m = None
    for line in open(log, errors="replace"):
        m = re.search(r"wrote (.*) \((\d+)x(\d+)\); colours: path=(#[0-9a-f]{6}) cells=([#0-9a-f,]+)", line) or m
    if not m:
        fail("the demo's log %s has no 'wrote ... colours:' line (no screenshot written)" % log)
    path_col = hexcol(m.group(4))
    cell_cols = set(hexcol(c) for c in m.group(5).split(","))
    w, h, bpp, rows = read_png(png)
    if (w, h) != (int(m.group(2)), int(m.group(3))):
        fail("size %dx%d, the demo said %sx%s" % (w, h, m.group(2), m.group(3)))
    n_bg = n_cell = n_path = 0
    cx0, cy0, cx1, cy1 = w, h, -1, -1
    path_px = []
    for y, row in enumerate(rows):
        for x in range(w):
            p = (row[x * bpp], row[x * bpp + 1], row[x * bpp + 2])
            if p == BACKGROUND:
                n_bg += 1
            elif p in cell_cols:
                n_cell += 1
                cx0, cy0, cx1, cy1 = min(cx0, x), min(cy0, y), max(cx1, x), max(cy1, y)
            elif p == path_col:
                n_path += 1
                path_px.append((x, y))
    total = w * h
    print("demo_png_check: %s: %dx%d, background %.1f%%, navmesh cells %.2f%%, path %d px"
          % (png, w, h, 100.0 * n_bg / total, 100.0 * n_cell / total, n_path))
    if n_bg > 0.97 * total:
        fail("the picture is blank (%.1f%% background)" % (100.0 * n_bg / total))
    if n_cell < 0.004 * total:
        fail("the navmesh's cell colours cover only %d pixels (< 0.4%% of the picture)" % n_cell)
    if n_path < 100:
        fail("the path colour covers only %d pixels (< 100)" % n_path)
    pad = 0.05 * max(w, h)
    inside = sum(1 for (x, y) in path_px if cx0 - pad <= x <= cx1 + pad and cy0 - pad <= y <= cy1 + pad)
    if inside < 0.9 * n_path:
        fail("only %d of %d path pixels lie where the navmesh is (its box %d,%d..%d,%d)"
             % (inside, n_path, cx0, cy0, cx1, cy1))
    print("demo_png_check: ok")


main()
