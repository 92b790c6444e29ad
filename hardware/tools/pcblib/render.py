"""top.png and bottom.png of a board, drawn with PIL from the board's own geometry
(outline, pads, tracks, vias): no SVG renderer needed, and the pictures are
deterministic. The bottom view is mirrored, as you see the board turned over."""

import os

import pcbnew
from PIL import Image, ImageDraw

PX_PER_MM = 4.0
MAX_PX = 1600


def _mm(v):
    return v / 1e6


def render(board, size, outdir):
    w, h = size
    k = min(PX_PER_MM, MAX_PX / max(w, h))
    for side in ("top", "bottom"):
        img = Image.new("RGB", (int(w * k) + 1, int(h * k) + 1), (20, 70, 35))
        d = ImageDraw.Draw(img)
        mirror = side == "bottom"
        layer = pcbnew.F_Cu if side == "top" else pcbnew.B_Cu

        def pt(x, y, mirror=mirror):
            x = w - x if mirror else x
            return (x * k, y * k)

        for t in board.GetTracks():
            if t.GetClass() == "PCB_VIA":
                continue
            if t.GetLayer() != layer:
                continue
            a, b = t.GetStart(), t.GetEnd()
            d.line([pt(_mm(a.x), _mm(a.y)), pt(_mm(b.x), _mm(b.y))], fill=(90, 170, 90),
                   width=max(1, int(_mm(t.GetWidth()) * k)))
        for pad in board.GetPads():
            if not pad.IsOnLayer(layer):
                continue
            bb = pad.GetBoundingBox()
            (x0, y0), (x1, y1) = pt(_mm(bb.GetX()), _mm(bb.GetY())), pt(
                _mm(bb.GetRight()), _mm(bb.GetBottom()))
            d.rectangle([min(x0, x1), y0, max(x0, x1), y1], fill=(200, 170, 80))
            if pad.GetDrillSize().x:
                c = pt(_mm(pad.GetPosition().x), _mm(pad.GetPosition().y))
                r = _mm(pad.GetDrillSize().x) / 2 * k
                d.ellipse([c[0] - r, c[1] - r, c[0] + r, c[1] + r], fill=(10, 10, 10))
        for t in board.GetTracks():
            if t.GetClass() != "PCB_VIA":
                continue
            c = pt(_mm(t.GetPosition().x), _mm(t.GetPosition().y))
            r = 0.3 * k
            d.ellipse([c[0] - r, c[1] - r, c[0] + r, c[1] + r], fill=(200, 170, 80))
        if side == "top":
            for fp in board.GetFootprints():
                bb = fp.GetBoundingBox(False, False)
                (x0, y0), (x1, y1) = pt(_mm(bb.GetX()), _mm(bb.GetY())), pt(
                    _mm(bb.GetRight()), _mm(bb.GetBottom()))
                d.rectangle([x0, y0, x1, y1], outline=(230, 230, 230))
        img.save(os.path.join(outdir, side + ".png"), optimize=True)
