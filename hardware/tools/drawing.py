"""Assembly drawings from the assembly model: a top view with every board in place
under the playing surface, and a side section through a point, the bar and a tray.

Drawn with PIL from the same numbers the checks use (assembly.py, the generated
boards through assemblycheck.py), so the drawing cannot disagree with them.
"""

import hashlib
import io
import os
import sys

from PIL import Image, ImageDraw, ImageFont, PngImagePlugin

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import assembly as A  # noqa: E402
import assemblycheck as C  # noqa: E402

MODEL = A.MODEL
WOOD = (236, 214, 170)
WOOD_EDGE = (150, 110, 50)
PCB = (40, 120, 60)
PCB_EDGE = (10, 60, 20)
PART = (60, 60, 60)
LED = (230, 40, 40)
HOLE = (255, 255, 255)
CABLE = (40, 70, 200)
TEXT = (0, 0, 0)


def _font(size=12):
    return ImageFont.load_default(size=size)


DIGEST_KEY = "nardy-drawing-digest"


class _Recorder:
    """ImageDraw that also records every call: the digest of what was drawn, stored in
    the PNG, tells a stale drawing from a current one whatever Pillow rasterises."""

    def __init__(self, img):
        self.draw = ImageDraw.Draw(img)
        self.calls = []

    def __getattr__(self, name):
        fn = getattr(self.draw, name)

        def call(*args, **kw):
            kw_rec = dict((k, v) for k, v in kw.items() if k != "font")
            self.calls.append(repr((name, _rounded(args), sorted(_rounded(kw_rec).items()))))
            return fn(*args, **kw)
        return call

    def digest(self):
        return hashlib.sha256("\n".join(self.calls).encode()).hexdigest()


def _rounded(v):
    if isinstance(v, float):
        return round(v, 2)
    if isinstance(v, (list, tuple)):
        return type(v)(_rounded(x) for x in v)
    if isinstance(v, dict):
        return dict((k, _rounded(x)) for k, x in v.items())
    return v


def _png(img, rec):
    info = PngImagePlugin.PngInfo()
    info.add_text(DIGEST_KEY, rec.digest())
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, pnginfo=info)
    return buf.getvalue()


def digest_of(png_bytes):
    """The drawing digest stored in a PNG written here (None if there is none)."""
    return Image.open(io.BytesIO(png_bytes)).text.get(DIGEST_KEY)


def top_view(data=None):
    fps, table, drills = data or C.load_all()
    k = 2.0  # px per mm
    x0, y0, x1, y1 = A.OUTER
    margin = 40
    w = int((x1 - x0) * k) + 2 * margin
    h = int((y1 - y0) * k) + 2 * margin + 60
    img = Image.new("RGB", (w, h), (255, 255, 255))
    d = _Recorder(img)
    f = _font(13)

    def px(x, y):
        return margin + (x - x0) * k, margin + (y1 - y) * k

    def rect(xa, ya, xb, yb, **kw):
        (ax, ay), (bx, by) = px(xa, ya), px(xb, yb)
        d.rectangle((min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)), **kw)

    rect(x0, y0, x1, y1, fill=WOOD, outline=WOOD_EDGE, width=2)
    rect(x0 + A.WALL_MM, y0 + A.WALL_MM, x1 - A.WALL_MM, y1 - A.WALL_MM, outline=WOOD_EDGE)
    # the playing field's points, bar and trays, thin, as seen through the wood
    for p in range(1, 25):
        cx = MODEL.point_x(p)
        ya, yb = (0, MODEL.point_length_mm()) if p <= 12 else (
            A.FIELD_H - MODEL.point_length_mm(), A.FIELD_H)
        rect(cx - MODEL.point_width_mm / 2, ya, cx + MODEL.point_width_mm / 2, yb,
             outline=(200, 170, 120))
    rect(A.BAR_X0, 0, A.BAR_X1, A.FIELD_H, outline=WOOD_EDGE)
    rect(A.TRAY_X0, 0, A.TRAY_X1, A.TRAY_SPLIT, outline=WOOD_EDGE)
    rect(A.TRAY_X0, A.FIELD_H - A.TRAY_SPLIT, A.TRAY_X1, A.FIELD_H, outline=WOOD_EDGE)
    # every board, its mounting holes, its parts (up face solid, down face outlined)
    sizes = dict((dsg, s) for dsg, s in C.layout.sizes().items())
    for design, _inst, to_field in C.instances(table):
        bw, bh = sizes[design]
        corners = [to_field(0, 0), to_field(bw, bh)]
        rect(corners[0][0], corners[0][1], corners[1][0], corners[1][1], fill=PCB,
             outline=PCB_EDGE, width=2)
        for fp in fps[design].values():
            x, y = to_field(fp["x"], fp["y"])
            if fp["fp"].startswith("MountingHole"):
                a, b = px(x, y)
                d.ellipse((a - 3, b - 3, a + 3, b + 3), fill=(0, 0, 0))
            elif fp["fp"].startswith("LED_WS2812B"):
                rect(x - 2.5, y - 2.5, x + 2.5, y + 2.5, fill=LED)
            elif fp["side"] == "up":
                a, b = px(x, y)
                d.rectangle((a - 1.5, b - 1.5, a + 1.5, b + 1.5), fill=(220, 220, 220))
    for kind, x, y, hw, hh in C.top_board_holes(fps, table):
        if kind == "led":
            a, b = px(x, y)
            d.ellipse((a - hw * k / 2, b - hh * k / 2, a + hw * k / 2, b + hh * k / 2),
                      outline=(120, 0, 0), width=2)
        else:
            rect(x - hw / 2, y - hh / 2, x + hw / 2, y + hh / 2, outline=(0, 0, 0), width=2)
    for _name, _length, a, b in C.connectors(fps, table):
        pa, pb = px(*a), px(*b)
        mid = (pb[0], pa[1])
        d.line((pa, mid, pb), fill=CABLE, width=2)
    # USB cut-outs in the right-hand wall
    main = fps["main"]
    for ref, dx in (("J5", 4.0), ("U1", 31.67)):
        _x, y = A.main_to_field(main[ref]["x"] + dx, main[ref]["y"])
        rect(x1 - A.WALL_MM, y - A.WALL_CUTOUT[0] / 2, x1, y + A.WALL_CUTOUT[0] / 2,
             fill=(255, 255, 255), outline=(0, 0, 0), width=2)
        a, b = px(x1 - A.WALL_MM, y)
        d.text((a - 100, b - 22), "USB (DevKit)" if ref == "U1" else "USB-C power",
               fill=TEXT, font=f)
    labels = (("quarter boards x4 (P1-P6 .. P19-P24)", (350, 90)),
              ("bar-LED board", (A.BAR_X0 - 20, A.FIELD_H / 2 + 40)),
              ("main board: OLED window, buttons", (A.TRAY_X0 - 60, A.FIELD_H / 2 + 80)),
              ("spot boards x8 (bar, trays)", (A.BAR_X0 - 30, 20)))
    for text, (x, y) in labels:
        d.text(px(x, y), text, fill=TEXT, font=f)
    d.text((margin, h - 66), "Assembly, top view (generated from hardware/tools/assembly.py):"
           " boards (green) under the %.0f mm top board; red: LEDs under light pipes;"
           % A.TOP_BOARD_MM, fill=TEXT, font=f)
    d.text((margin, h - 48), "black squares: OLED window and button holes; black dots: mounting"
           " screws; blue: cables (ribbons, 3-pin), drawn along x then y.", fill=TEXT, font=f)
    d.text((margin, h - 30), "White sits at the bottom edge; P1 bottom right, the trays right"
           " of the field; scale %.0f px/mm." % k, fill=TEXT, font=f)
    return _png(img, d)


# Two sections, parts within WINDOW of each line drawn: (1) through white's tray LED on
# the main board, 4 mm beside slot 4 of the bottom points and the bar's sensor bar.2;
# (2) through the middle gap by the bottom quarter boards' LEDs, ribbon headers and
# multiplexers, the bar-LED board and the main board's OLED.
SECTION_Y = MODEL.slot_xy(1, 4)[1] + 4.0
GAP_Y = A.FIELD_H / 2.0 - 8.0
WINDOW = (6.0, 12.0)


def section(data=None):
    fps, table, _drills = data or C.load_all()
    kx, kz = 2.4, 9.0  # px per mm across, px per mm in depth (z drawn 3.75x)
    x0, _y0, x1, _y1 = A.OUTER
    margin = 40
    ztop, zbot = -30.0, A.BOX_DEPTH_MM + 4
    band_h = int((zbot - ztop) * kz) + 40
    w = int((x1 - x0) * kx) + 2 * margin
    h = 2 * band_h + 2 * margin + 60
    img = Image.new("RGB", (w, h), (255, 255, 255))
    d = _Recorder(img)
    f = _font(13)
    sizes = C.layout.sizes()
    z_up = A.BOARD_UP_Z
    holes = C.top_board_holes(fps, table)

    def band(sec_y, win, top, checkers, title):
        def px(x, z):
            return margin + (x - x0) * kx, top + (z - ztop) * kz

        def rect(xa, za, xb, zb, **kw):
            (ax, az), (bx, bz) = px(xa, za), px(xb, zb)
            d.rectangle((min(ax, bx), min(az, bz), max(ax, bx), max(az, bz)), **kw)

        d.text(px(x0, ztop + 1), title, fill=TEXT, font=f)
        rect(x0, 0, x1, A.TOP_BOARD_MM, fill=WOOD, outline=WOOD_EDGE)
        rect(x0, A.TOP_BOARD_MM, x0 + A.WALL_MM, A.BOX_DEPTH_MM, fill=WOOD, outline=WOOD_EDGE)
        rect(x1 - A.WALL_MM, A.TOP_BOARD_MM, x1, A.BOX_DEPTH_MM, fill=WOOD, outline=WOOD_EDGE)
        rect(x0, A.BOX_DEPTH_MM - A.FLOOR_MM, x1, A.BOX_DEPTH_MM, fill=WOOD,
             outline=WOOD_EDGE)
        for design, _inst, to_field in C.instances(table):
            bw, bh = sizes[design]
            (ax, ay), (bx, by) = to_field(0, 0), to_field(bw, bh)
            if not min(ay, by) - win <= sec_y <= max(ay, by) + win:
                continue
            rect(ax, z_up, bx, z_up + A.PCB_MM, fill=PCB, outline=PCB_EDGE)
            for fp in fps[design].values():
                x, y = to_field(fp["x"], fp["y"])
                if abs(y - sec_y) > win or fp["fp"] not in A.HEIGHTS:
                    continue
                hgt = A.HEIGHTS[fp["fp"]][0]
                colour = LED if fp["fp"].startswith("LED_") else PART
                if fp["side"] == "up":
                    rect(x - 1.5, z_up - hgt, x + 1.5, z_up, fill=colour)
                elif hgt:
                    rect(x - 1.5, z_up + A.PCB_MM, x + 1.5, z_up + A.PCB_MM + hgt,
                         fill=colour)
                if fp["fp"] == "SOT-23" and fp["side"] == "up":  # a sensor's element
                    a, b = px(x, A.sensor_depth_mm())
                    d.line((a - 6, b, a + 6, b), fill=(200, 0, 0), width=2)
        for _kind, x, y, hw, hh in holes:
            if abs(y - sec_y) <= hh / 2 + (win if hh > 20 else 0):
                rect(x - hw / 2, 0, x + hw / 2, A.TOP_BOARD_MM, fill=(235, 245, 255),
                     outline=(0, 0, 0))
        for cx, n in checkers:
            r = MODEL.checker_diameter_mm / 2
            for lvl in range(n):
                zt = -(lvl + 1) * MODEL.checker_thickness_mm
                rect(cx - r, zt, cx + r, zt + MODEL.checker_thickness_mm,
                     fill=(245, 245, 245), outline=(0, 0, 0))
                mz = zt + MODEL.checker_thickness_mm - MODEL.magnet_lift_mm
                rect(cx - MODEL.magnet_diameter_mm / 2, mz - MODEL.magnet_thickness_mm,
                     cx + MODEL.magnet_diameter_mm / 2, mz, fill=(80, 80, 230))

    # checkers: two stacked on P3 slot 4, one on the bar's sensor, one in white's tray
    band(SECTION_Y, WINDOW[0], margin,
         ((MODEL.point_x(3), 2), (MODEL.slot_xy("bar", 2)[0], 1),
          (A.TRAY_X0 + MODEL.tray_width_mm / 2, 1)),
         "1: y = %.0f mm, by slot 4 of P1-P12 and the bar's sensor bar.2, through white's"
         " tray LED on the main board (parts within %g mm)" % (SECTION_Y, WINDOW[0]))
    band(GAP_Y, WINDOW[1], margin + band_h, (),
         "2: y = %.0f mm, the middle gap: the points' LEDs under their light pipes, the"
         " ribbon headers and muxes below, the bar-LED board, the OLED in its window"
         " (parts within %g mm)" % (GAP_Y, WINDOW[1]))
    notes = [
        "Sections seen from white's side; depth drawn %.2gx. Top board %.1f mm; boards hang"
        " %.1f mm below it on M3 spacers; hall element %.2f mm below the surface (model:"
        " %.2f mm); red ticks: hall elements." % (kz / kx, A.TOP_BOARD_MM, A.STANDOFF_MM,
                                                  A.sensor_depth_mm(), MODEL.depth_mm),
        "Up face (towards the wood): sensors, LEDs, OLED, buttons; everything else on the"
        " down face. Blue: magnets; light blue: holes through the top board; red: LEDs.",
    ]
    for i, t in enumerate(notes):
        d.text((margin, h - 50 + 18 * i), t, fill=TEXT, font=f)
    return _png(img, d)
