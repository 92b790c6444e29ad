"""Regenerate every derived file in hardware/ from the pin maps, the BOM and the model.

    python hardware/tools/gen.py          # write the files
    python hardware/tools/gen.py --check  # exit 1 if any committed file is stale

The netlists come from hardware/tools/schematic.py (SKiDL); this script renders the
wiring tables, the wiring diagrams, the mechanical drawing and the README's
generated blocks.
"""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hwlib  # noqa: E402
from hwlib import HW, magnet  # noqa: E402


def _esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Svg:
    """Tiny deterministic SVG writer: fixed number formatting so output is stable."""

    def __init__(self, w, h):
        self.w = w
        self.h = h
        self.items = []

    def rect(self, x, y, w, h, fill="none", stroke="#000", sw=1.0, rx=0):
        self.items.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="%g" '
                          'fill="%s" stroke="%s" stroke-width="%.2f"/>'
                          % (x, y, w, h, rx, fill, stroke, sw))

    def line(self, x1, y1, x2, y2, stroke="#000", sw=1.0, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.items.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                          'stroke-width="%.2f"%s/>' % (x1, y1, x2, y2, stroke, sw, d))

    def circle(self, x, y, r, fill="none", stroke="#000", sw=1.0):
        self.items.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="%s" '
                          'stroke-width="%.2f"/>' % (x, y, r, fill, stroke, sw))

    def text(self, x, y, s, size=11, anchor="start", weight="normal"):
        self.items.append('<text x="%.1f" y="%.1f" font-family="monospace" font-size="%g" '
                          'text-anchor="%s" font-weight="%s">%s</text>'
                          % (x, y, size, anchor, weight, _esc(s)))

    def render(self):
        head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                'viewBox="0 0 %d %d">' % (self.w, self.h, self.w, self.h))
        return "\n".join([head, '<rect width="100%" height="100%" fill="#fff"/>']
                         + self.items + ["</svg>", ""])


def wiring_svg(pm):
    rows = hwlib.wiring_rows(pm)
    row_h = 18
    top = 60
    h = max(top + row_h * len(rows) + 60, 640)
    s = Svg(1100, h)
    s.text(20, 25, "Wiring: %s (generated from firmware/pinmap/%s.json)"
           % (pm["board"], pm["name"]), size=13, weight="bold")
    mcu_x, mcu_w = 20, 300
    s.rect(mcu_x, top - 20, mcu_w, row_h * len(rows) + 30, fill="#eef")
    s.text(mcu_x + 8, top - 6, pm["mcu"].upper(), weight="bold")
    # Destination blocks, right column; each signal's row gets a wire to its block.
    blocks = [
        ("MUX", "Quarter boards 0-3 (ribbons J1-J4): U10-U17 CD74HC4067, 30 sensors each;"
                " bar/tray spot boards"),
        ("ADC", "U4 MCP3208 (SPI): CH0-CH7 = COM of U10-U17, VREF = VDD = 3V3S"
                " (ratiometric)") if hwlib.adc_kind(pm) == "mcp3208"
        else ("ADC1", "mux COM outputs on ADC1 pins (fallback build, no MCP3208)"),
        ("SPWR", "U20-U22 SN74LVC125A -> U18 74HC138 (3V3S) -> Q1-Q8 AO3401A (one"
                 " 16-sensor group on at a time)"),
        ("LED", "U19 SN74LV1T125 -> R12 -> D1..D%d WS2812B" % pm["led"]["count"]),
        ("I2C", "DS1 SSD1306 128x64 @0x%02X" % pm["oled"]["addr"]),
        ("BTN", "SW1 roll/ok, SW2 back, SW3 menu (to GND)"),
    ]
    bx, bw = 640, 440
    n = len(blocks)
    span = (h - 120) / n
    centre = {}
    for i, (key, label) in enumerate(blocks):
        by = 60 + i * span
        s.rect(bx, by, bw, span - 20, fill="#efe")
        words = label.split(" ")
        line_txt = ""
        ty = by + 18
        for wd in words:  # wrap at ~52 characters
            if len(line_txt) + len(wd) > 52:
                s.text(bx + 8, ty, line_txt)
                ty += 14
                line_txt = ""
            line_txt = (line_txt + " " + wd).strip()
        s.text(bx + 8, ty, line_txt)
        centre[key] = (bx, by + (span - 20) / 2.0)
    for i, (sig, g, d, _to) in enumerate(rows):
        y = top + 10 + i * row_h
        s.text(mcu_x + 8, y + 4, "GPIO%-3d %-9s %s" % (g, sig, d), size=10)
        dest = centre[sig.split("_")[0]]
        s.line(mcu_x + mcu_w, y, dest[0], dest[1], stroke="#447", sw=0.8)
    s.text(20, h - 30, "Power: USB data port -> DevKit (MCU, DS1); USB-C J5 -> U3 soft"
           " start -> F1 -> LEDs, U19, U2 (3V3S: sensors, muxes, MCP3208, U18, U20-U22)."
           " See wiring-%s.md for every pin." % pm["name"], size=10)
    return s.render()


MECH_K = 1.6  # px per mm in the top view of mechanical.svg
MECH_ORIGIN = (30, 80)  # px of the top view's corner


def mech_mm(model, cx, cy):
    """A point of the top view (px) back to playing-field mm: the tests read the
    drawing's slot marks with it and compare them with the boards."""
    x0 = 6 * model.point_width_mm
    view_h = model.point_length_mm() + 10
    return (cx - MECH_ORIGIN[0]) / MECH_K + x0, view_h - (cy - MECH_ORIGIN[1]) / MECH_K


def mechanical_svg(model=None):
    if model is None:
        model = magnet.MagnetModel()
    k = MECH_K  # px per mm
    s = Svg(1100, 900)
    s.text(20, 25, "Sensor strips and magnets (generated from host_tools/nardy_host/magnet.py)",
           size=13, weight="bold")
    # Top view: bottom-right quarter P6..P1, the bar's lower half and white's tray.
    w, hh = model.field_size_mm()
    x0 = 6 * model.point_width_mm  # left edge of the bar
    ox, oy = MECH_ORIGIN
    view_w = (w - x0) + model.tray_width_mm
    view_h = model.point_length_mm() + 10
    s.text(ox, oy - 10, "Top view, bottom-right quarter (P6..P1), bar half and white's tray;"
           " checker %g mm" % model.checker_diameter_mm)
    s.rect(ox, oy, view_w * k, view_h * k, stroke="#888")

    def px(x, y):
        return ox + (x - x0) * k, oy + (view_h - y) * k

    for p in range(1, 7):
        cx = model.point_x(p)
        xa, ya = px(cx - model.point_width_mm / 2.0, model.point_length_mm())
        s.rect(xa, ya, model.point_width_mm * k, model.point_length_mm() * k, stroke="#bbb")
        s.text(px(cx, 0)[0], px(cx, 0)[1] + 14, "P%d" % p, anchor="middle")
        for slot in range(1, model.slots + 1):
            x, y = model.slot_xy(p, slot)
            a, b = px(x, y)
            s.circle(a, b, model.checker_diameter_mm / 2.0 * k, stroke="#ccc")
            s.circle(a, b, 2.5, fill="#c00", stroke="#c00")
    for slot in (1, 2):
        a, b = px(*model.slot_xy("bar", slot))
        s.circle(a, b, 2.5, fill="#c00", stroke="#c00")
        s.text(a + 5, b - 4, "bar.%d" % slot, size=9)
        a, b = px(*model.slot_xy("off_white", slot))
        s.circle(a, b, 2.5, fill="#c00", stroke="#c00")
        s.text(a + 5, b - 4, "off_white.%d" % slot, size=9)
    a, b = px(model.point_x(1) + model.point_width_mm / 2.0, 0)
    s.text(a - 4, b + 28, "board edge (slot 1) - white sits here", anchor="end", size=10)
    # Section through one slot: surface, sensor, two stacked checkers.
    sx, sy = 30, 520
    kk = 6.0
    s.text(sx, sy - 20, "Section through a slot (scale %.0f:1 vs. the top view)" % (kk / k))
    surf = sy + 150
    s.line(sx, surf, sx + 420, surf, stroke="#000", sw=1.5)
    s.text(sx + 425, surf + 4, "playing surface", size=10)
    import assembly  # the stack-up below the surface: one value per dimension
    top_board = assembly.TOP_BOARD_MM
    s.rect(sx, surf, 420, top_board * kk, fill="#f3e6d0", stroke="#a80")
    s.text(sx + 425, surf + top_board * kk / 2 + 4, "top board %.1f mm" % top_board, size=10)
    up = assembly.BOARD_UP_Z * kk  # the board's up face, after the spacers
    s.rect(sx + 130, surf + up, 160, assembly.PCB_MM * kk, fill="#9c9", stroke="#363")
    s.text(sx + 425, surf + up + assembly.PCB_MM * kk / 2 + 4,
           "quarter board, up face %.1f mm below the wood (M3 spacers)" % assembly.STANDOFF_MM,
           size=10)
    body = assembly.HEIGHTS["SOT-23"][0]
    s.rect(sx + 200, surf + up - body * kk, 20, body * kk, fill="#333", stroke="#333")
    el_y = surf + assembly.sensor_depth_mm() * kk
    s.line(sx + 150, el_y, sx + 270, el_y, stroke="#c00", dash="4,3")
    s.text(sx + 425, el_y + 4, "hall element %.2f mm below the surface (DRV5055, SOT-23, on"
           " the up face; model %.1f mm)" % (assembly.sensor_depth_mm(), model.depth_mm),
           size=10)
    cd = model.checker_diameter_mm * kk / 4.0  # checker drawn quarter width to fit
    for level in range(2):
        cy = surf - (level + 1) * model.checker_thickness_mm * kk
        s.rect(sx + 210 - cd, cy, 2 * cd, model.checker_thickness_mm * kk, fill="#eee")
        mz = surf - (model.magnet_lift_mm + model.magnet_thickness_mm
                     + level * model.checker_thickness_mm) * kk
        mw = model.magnet_diameter_mm * kk / 2.0
        s.rect(sx + 210 - mw / 2, mz, mw, model.magnet_thickness_mm * kk, fill="#55f")
    s.text(sx + 425, surf - model.checker_thickness_mm * kk + 14,
           "checker %g mm thick; magnet %gx%g mm N35, lower face %g mm above the"
           " checker's bottom" % (model.checker_thickness_mm, model.magnet_diameter_mm,
                                  model.magnet_thickness_mm, model.magnet_lift_mm), size=10)
    s.text(sx + 425, surf - 2 * model.checker_thickness_mm * kk + 14,
           "stacked checker: its magnet %.1f mm further away"
           % model.checker_thickness_mm, size=10)
    s.text(sx + 425, surf - 2 * model.checker_thickness_mm * kk + 30,
           "white: north up (reads above baseline); black: south up", size=10)
    # Slot table for common sizes.
    ty = 760
    s.text(sx, ty, "Slot centres from the board edge (pitch = checker diameter), mm:",
           weight="bold")
    for i, d in enumerate(hwlib.BOARD_CHECKER_DIAMETERS):
        m = magnet.MagnetModel(checker_diameter_mm=d)
        ys = " ".join("%5.1f" % m.slot_xy(1, sl)[1] for sl in range(1, m.slots + 1))
        s.text(sx, ty + 18 * (i + 1), "checker %2d mm, point width %4.1f mm: %s"
               % (d, m.point_width_mm, ys))
    return s.render()


def netlist(name, with_boards=False):
    """(netlist text, ERC summary line[, part -> board JSON]) from schematic.py, run in
    a fresh process so SKiDL's global circuit starts empty."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.net")
        boards = os.path.join(tmp, "boards.json")
        r = subprocess.run([sys.executable, os.path.join(hwlib.HERE, "schematic.py"), name, out,
                            boards], capture_output=True, text=True, cwd=tmp)
        summary = [ln for ln in r.stdout.splitlines() if ln.startswith("ERC errors")]
        if r.returncode != 0 or not summary:
            raise RuntimeError("schematic.py %s failed:\n%s%s" % (name, r.stdout, r.stderr))
        with open(out) as f:
            text = f.read()
        if with_boards:
            with open(boards) as f:
                return text, summary[0], f.read()
        return text, summary[0]


def outputs():
    """relative path under hardware/ -> generated text."""
    out = {}
    for name in hwlib.PINMAPS:
        pm = hwlib.load_pinmap(name)
        out["wiring-%s.md" % name] = hwlib.wiring_markdown(pm)
        out["wiring-%s.svg" % name] = wiring_svg(pm)
    out["mechanical.svg"] = mechanical_svg()
    for name in hwlib.PINMAPS:
        res = netlist(name, with_boards=True)
        out["netlist/nardy-%s.net" % name] = res[0]
        if hwlib.devkit_pads(hwlib.load_pinmap(name)) is not None:  # has a main board
            out["netlist/nardy-%s.boards.json" % name] = res[2]
    import drawing
    data = drawing.C.load_all()
    out["assembly-top.png"] = drawing.top_view(data)
    out["assembly-section.png"] = drawing.section(data)
    with open(os.path.join(HW, "README.md")) as f:
        out["README.md"] = hwlib.fill_blocks(f.read(), hwlib.readme_blocks())
    return out


def same_output(path, text):
    """True when the file at path is what the generator makes now. A drawing (PNG) is
    compared by the digest of what was drawn, not by its bytes, which depend on the
    Pillow version that rasterised it."""
    if not os.path.exists(path):
        return False
    binary = isinstance(text, bytes)
    with open(path, "rb" if binary else "r") as f:
        old = f.read()
    if binary and path.endswith(".png"):
        import drawing
        return drawing.digest_of(old) == drawing.digest_of(text) is not None
    return old == text


def main(argv):
    check = "--check" in argv
    stale = []
    for rel, text in sorted(outputs().items()):
        path = os.path.join(HW, rel)
        if same_output(path, text):
            continue
        stale.append(rel)
        if not check:
            with open(path, "wb" if isinstance(text, bytes) else "w") as f:
                f.write(text)
    for rel in stale:
        print(("stale: " if check else "wrote: ") + rel)
    return 1 if (check and stale) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
