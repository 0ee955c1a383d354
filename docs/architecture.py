#!/usr/bin/env python3
"""Draws docs/architecture.svg, the data flow from input to blob to queries, from the tree itself:
each box is a folder and lists the .c files it holds now, so the picture follows the code when files
move (rerun it after adding, moving or removing a source file; tests do not run it).

usage: python3 docs/architecture.py [OUT.svg]     (from anywhere; default docs/architecture.svg)
"""
import os
import sys
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Box geometry: columns of the flow, left to right.
COL_W, GAP_X, LINE_H, TITLE_H, PAD = 150, 36, 14, 34, 8
X0, Y_TOP = 20, 96


def sources(folder):
    """The .c files of a folder of the tree (sorted), or its .h files when it has no .c."""
    path = os.path.join(ROOT, folder)
    names = sorted(n for n in os.listdir(path) if n.endswith(".c"))
    return names or sorted(n for n in os.listdir(path) if n.endswith(".h"))


class Svg:
    def __init__(self):
        self.parts = []

    def box(self, x, y, w, h, title, note, files, fill):
        self.parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="{fill}" '
                          f'stroke="#333" stroke-width="1.2"/>')
        self.text(x + PAD, y + 15, title, size=13, weight="bold")
        self.text(x + PAD, y + 28, note, size=10, style="italic", fill="#333")
        for i, f in enumerate(files):
            self.text(x + PAD, y + TITLE_H + 10 + i * LINE_H, f, size=11, family="monospace")

    def text(self, x, y, s, size=12, weight="normal", style="normal", fill="#000", family="sans-serif",
             anchor="start"):
        self.parts.append(f'<text x="{x}" y="{y}" font-family="{family}" font-size="{size}" '
                          f'font-weight="{weight}" font-style="{style}" fill="{fill}" '
                          f'text-anchor="{anchor}">{escape(s)}</text>')

    def arrow(self, *pts, label=None, at=None, dashed=False):
        """A polyline through pts (x, y, x, y, ...) ending in an arrow head; `label` at `at` (x, y)."""
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        xy = " ".join(f"{pts[i]},{pts[i + 1]}" for i in range(0, len(pts), 2))
        self.parts.append(f'<polyline points="{xy}" fill="none" stroke="#333" stroke-width="1.5" '
                          f'marker-end="url(#head)"{dash}/>')
        if label:
            self.text(at[0], at[1], label, size=10, anchor="middle", fill="#333")

    def write(self, path, w, h):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
                f'viewBox="0 0 {w} {h}">\n'
                '<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" '
                'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#333"/></marker></defs>\n'
                f'<rect width="{w}" height="{h}" fill="#fff"/>\n')
        with open(path, "w") as f:
            f.write(head + "\n".join(self.parts) + "\n</svg>\n")


def height(files):
    return TITLE_H + PAD + LINE_H * len(files)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "architecture.svg")
    s = Svg()
    s.text(X0, 24, "Portolan: input -> bake (bake/, one folder per stage) -> blob (.ptl) -> runtime queries",
           size=16, weight="bold")
    s.text(X0, 44, "Boxes list each folder's sources as they are in the tree (docs/architecture.py draws "
           "this from it). Solid: 3D path; dashed: 2D path.", size=11, fill="#333")

    col = lambda i: X0 + i * (COL_W + GAP_X)
    boxes = {}

    def put(key, i, y, folder, note, fill, width=COL_W, files=None, shift=0):
        files = sources(folder) if files is None else files
        h = height(files)
        s.box(col(i) + shift, y, width, h, folder + "/", note, files, fill)
        boxes[key] = (col(i) + shift, y, width, h)
        return y + h

    # Column 0: generators above the readers.
    bottom_gen = put("gen", 0, Y_TOP, "gen", "scenes for tools, tests", "#eeeeee")
    put("input", 0, bottom_gen + 40, "bake/input", "readers: text -> data", "#dbe9f6")
    # 3D row: voxel -> layers -> contours; 2D row below: shape.
    b_vox = put("voxel", 1, Y_TOP, "bake/voxel", "triangles -> open spans", "#fde9c9")
    b_lay = put("layers", 2, Y_TOP, "bake/layers", "spans -> layers, merge", "#fde9c9")
    b_con = put("contours", 3, Y_TOP, "bake/contours", "layer -> polygons", "#fde9c9")
    row2 = max(b_vox, b_lay, b_con) + 40
    b_shape = put("shape", 1, row2, "bake/shape", "2D free space", "#dff0d8")
    put("decompose", 4, Y_TOP, "bake/decompose", "polygons -> convex cells", "#e5dcf2")
    b_cpg = put("cpg", 5, Y_TOP, "bake/cpg", "cells -> blob sections", "#e5dcf2")
    put("runtime", 7, Y_TOP, "runtime", "blob -> queries", "#d9f2ef", shift=50)

    # pipeline/ drives the stages: a wide box under them.
    pipe_files = sources("bake/pipeline")
    py = max(b_shape, b_cpg) + 40
    pw = col(5) + COL_W - col(1)
    s.box(col(1), py, pw, height([pipe_files[0]]) + LINE_H, "bake/pipeline/",
          "drives the stages in order: 2D bake, 3D bake, parts (tiles baked apart, merged), debug "
          "captures, progress", [", ".join(pipe_files)], "#f6f6d8")

    # The blob between bake and runtime.
    bx, by = col(6) + 10, Y_TOP + 20
    s.parts.append(f'<ellipse cx="{bx + 65}" cy="{by + 25}" rx="70" ry="28" fill="#fff3f3" '
                   f'stroke="#333" stroke-width="1.2"/>')
    s.text(bx + 65, by + 22, "blob (.ptl)", size=13, weight="bold", anchor="middle")
    s.text(bx + 65, by + 37, "flat arrays, checksum", size=10, anchor="middle", fill="#333")

    def right(k, dy=0):
        x, y, w, h = boxes[k]
        return x + w, y + 20 + dy

    def left(k, dy=0):
        x, y, w, h = boxes[k]
        return x, y + 20 + dy

    gx, gy, gw, gh = boxes["gen"]
    ix, iy, iw, ih = boxes["input"]
    s.arrow(gx + gw / 2, gy + gh, ix + iw / 2, iy, label=".map .obj files", at=(gx + gw / 2 + 45, gy + gh + 24))
    vx, vy, vw, vh = boxes["voxel"]
    sx, sy, sw, sh = boxes["shape"]
    s.arrow(ix + iw, iy + 20, ix + iw + GAP_X / 2, iy + 20, ix + iw + GAP_X / 2, vy + vh - 20, vx, vy + vh - 20)
    s.arrow(ix + iw, sy + 30, sx, sy + 30, dashed=True)
    s.arrow(*right("voxel", 10), *left("layers", 10))
    s.arrow(*right("layers", 10), *left("contours", 10))
    s.arrow(*right("contours", 10), *left("decompose", 10))
    dx, dy, dw, dh = boxes["decompose"]
    s.arrow(sx + sw, sy + 30, dx + dw / 2, sy + 30, dx + dw / 2, dy + dh, dashed=True,
            label="free space as rings with holes", at=((sx + sw + dx + dw / 2) / 2, sy + 24))
    s.arrow(*right("decompose", 10), *left("cpg", 10))
    cx, cy, cw, ch = boxes["cpg"]
    s.arrow(cx + cw, cy + 45, bx, cy + 45)
    rx, ry, rw, rh = boxes["runtime"]
    s.arrow(bx + 140, cy + 45, rx, cy + 45, label="load, validate", at=((bx + 140 + rx) / 2, cy + 39))
    lx, ly, lw, lh = boxes["layers"]
    s.arrow(lx + lw - 25, ly, lx + lw - 25, Y_TOP - 14, cx + 25, Y_TOP - 14, cx + 25, cy,
            label="3D: the layer merge stitches the layers' cells and writes the blob",
            at=((lx + lw + cx) / 2, Y_TOP - 19))

    # What the queries give, beside the runtime.
    qy = ry + rh + 30
    s.text(rx, qy, "queries (include/portolan/runtime.h):", size=11, weight="bold")
    for i, q in enumerate(["locate a point", "exact shortest path", "A* + funnel corridor",
                           "hub labels, landmarks"]):
        s.text(rx + 8, qy + 16 + i * 14, "- " + q, size=11)

    w = rx + 260
    h = max(py + height([pipe_files[0]]) + LINE_H + 20, qy + 80)
    s.write(out, w, h)
    print(f"wrote {out} ({w} x {h})")


if __name__ == "__main__":
    main()
