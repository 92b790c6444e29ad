"""Where each part sits on its board (mm, KiCad axes: x right, y down), per design.

The quarter board's sensors are placed from the magnetic model's slot centres, so
the copper matches mechanical.svg and the firmware's model by construction; the test
checks it independently. A quarter board covers one quarter of the playing field
(six points), its inner edge at the middle gap; all four quarters use one design:
quarter 1 is quarter 0 moved left by the bar and six points; quarters 2 and 3 are
quarters 0 and 1 turned by 180 degrees about the field's centre.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
if os.path.join(ROOT, "firmware") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "firmware"))

sys.path.insert(0, os.path.dirname(HERE))
import assembly  # noqa: E402  (the physical model: every dimension below the surface)

MODEL = assembly.MODEL

DESIGNS = ("main", "quarter", "spot", "bar")
# The board instance (in the part -> board table) whose parts define each design.
DESIGN_INSTANCE = {"main": "main", "quarter": "quarter0", "spot": "spot-off_white.1",
                   "bar": "bar"}
DESIGN_COUNT = {"main": 1, "quarter": 4, "spot": 8, "bar": 1}  # boards per set

# -- quarter board --------------------------------------------------------------------

W, H = MODEL.field_size_mm()
QUARTER_X0 = 6 * MODEL.point_width_mm + MODEL.bar_width_mm  # field x of its left edge
QUARTER_W = 6 * MODEL.point_width_mm
QUARTER_H = MODEL.point_length_mm() + MODEL.middle_gap_mm / 2.0
QUARTER_SIZE = (QUARTER_W - 1.0, QUARTER_H - 1.0)  # 0.5 mm gap to each neighbour


def quarter_to_field(x, y, q=0):
    """Board mm of the quarter design -> playing-field mm for quarter q (0..3)."""
    fx = x + 0.5 + QUARTER_X0
    fy = QUARTER_H - (y + 0.5)
    if q in (1, 3):
        fx -= QUARTER_X0  # quarter 1 is quarter 0 moved left; quarter 3 is quarter 1 turned
    if q in (2, 3):  # turned: mirror both axes about the field centre
        fx, fy = W - fx, H - fy
    return fx, fy


def field_to_quarter(fx, fy):
    """Inverse of quarter_to_field for quarter 0."""
    return fx - QUARTER_X0 - 0.5, QUARTER_H - fy - 0.5


def quarter_places(roles):
    """role -> (x, y, rotation deg) for the quarter design."""
    out = {}
    for role in roles:
        if role.startswith("H_") or role.startswith("CH_"):
            k, slot = (int(v) for v in role.split("_")[-2:])
            x, y = field_to_quarter(*MODEL.slot_xy(k + 1, slot))
            if role.startswith("H_"):
                out[role] = (x, y, 0)
            else:
                out[role] = (x + 4.0, y, 90)
    for k in range(6):
        # Each point's LED at its tip, in the middle gap (no checker covers it), under
        # a light pipe through the top board; on the up face beside the sensors.
        x, _ = field_to_quarter(*MODEL.slot_xy(k + 1, 1))
        out["D_%d" % k] = (x, LED_Y, 0)
        out["CD_%d" % k] = (x + 6.0, LED_Y, 90)
    # Top strip (inner edge, at the middle gap), on the down face: muxes, switches,
    # ribbon, spot headers, bulk capacitors, the LED line's series resistor.
    mid = QUARTER_SIZE[0] / 2.0
    out["J_RIBBON"] = (mid + 11.43, 9.0, 270)  # pin 1 right, pins run left
    for k, xm in ((1, mid + 38.0), (2, mid - 38.0)):
        out["U%d" % k] = (xm, 13.0, 0)
        out["C_MUX%d" % k] = (xm + 10.0, 6.0, 0)
        out["Q%d" % k] = (xm + 12.0, 16.0, 0)
        out["R%d" % k] = (xm + 16.0, 16.0, 0)
        out["TP%d" % k] = (xm + 15.0, 20.5, 0)
        out["J_SPOT%d" % k] = (xm - 2.5 + (25.0 if k == 1 else -25.0), 22.0, 0)
    out["C_BULK"] = (mid + 17.0, 17.0, 0)
    out["C_BULK5"] = (mid + 17.0, 21.5, 0)
    out["R_LEDOUT"] = (mid - 17.0, 17.0, 0)
    return out


LED_Y = 5.0  # design y of the quarter's LEDs: 5.5 mm into the 12 mm half-gap


def quarter_holes():
    """Mounting holes (design mm): between the point columns and between slots, clear
    of every sensor, on wood (no LED hole near)."""
    xs = [6 * MODEL.point_width_mm / 6.0 * k - 0.5 for k in (1, 3, 5)]
    ys = [QUARTER_H - 0.5 - j * MODEL.slot_pitch_mm for j in (1, 4)]  # between slots
    return [(x, y) for x in xs for y in ys]


# -- spot board (one bar or tray sensor) ------------------------------------------------

SPOT_SIZE = assembly.SPOT_SIZE
SPOT_SENSOR = assembly.SPOT_SENSOR  # the sensor (hall element) is the board's reference point


def spot_places(roles):
    sx, sy = SPOT_SENSOR
    return {"H": (sx, sy, 0), "CH": (sx + 4.0, sy, 90), "J": (sx - 2.5, sy + 9.0, 0)}


def spot_holes():
    return [(3.5, 3.5), (SPOT_SIZE[0] - 3.5, SPOT_SIZE[1] - 3.5)]


# -- bar-LED board (the bar's two LEDs, in the middle of the bar) -------------------------

BAR_SIZE = assembly.BAR_SIZE


def bar_places(roles):
    w, h = BAR_SIZE
    return {"D28": (w / 2.0, 8.0, 0), "CD28": (w / 2.0 + 6.0, 8.0, 90),
            "D27": (w / 2.0, h - 8.0, 0), "CD27": (w / 2.0 + 6.0, h - 8.0, 90),
            "J": (w / 2.0 - 2.5, h / 2.0, 0), "TP11": (w / 2.0, h / 2.0 + 10.0, 0)}


def bar_holes():
    w, h = BAR_SIZE
    return [(4.0, h / 2.0 - 8.0), (w - 4.0, h / 2.0 + 8.0)]


# -- main board (between the trays) --------------------------------------------------------

MAIN_SIZE = assembly.MAIN_SIZE


def main_places(refs):
    """ref -> (x, y, rot) on the main board (70 x 140 mm, x towards the right-hand
    wall, y from black's tray to white's). It lies in the trays' column between the
    two trays (assembly.MAIN_ORIGIN): both USB ports at its right edge meet cut-outs in
    the wall; the OLED and the buttons face the top board under its window and holes;
    the trays' LEDs at its two ends; the ribbons leave on the left, towards the field."""
    w, h = MAIN_SIZE
    p = {}
    p["U1"] = (w - 31.7, 108.0, 90)  # DevKit: its USB end (pin 22 end) at the right edge
    # Power (top right): USB-C at the right edge, TVS, input cap, CC resistors, load
    # switch with CT, fuse, reservoir, LDO with its capacitors.
    p["J5"] = (w - 4.5, 28.0, 90)
    p["D29"] = (57.0, 22.0, 90)
    p["C162"] = (57.0, 34.0, 90)
    p["R14"] = (53.0, 22.0, 90)
    p["R15"] = (53.0, 34.0, 90)
    # The eFuse, turned so IN faces the connector and OUT the fuse; its DVDT and EN
    # parts on the connector's side, ILM and OVCSEL on the fuse's.
    p["U3"] = (47.0, 28.0, 180)
    p["C163"] = (52.0, 25.5, 90)
    p["R38"] = (54.5, 25.5, 90)
    p["R37"] = (52.0, 31.0, 90)
    p["R40"] = (45.0, 23.5, 0)
    p["R39"] = (45.0, 33.0, 0)
    p["F1"] = (40.0, 28.0, 90)
    p["C157"] = (60.0, 46.0, 0)
    p["U2"] = (48.0, 44.0, 0)
    p["C164"] = (43.0, 44.0, 90)
    p["C165"] = (53.0, 44.0, 90)
    p["TP2"] = (40.0, 36.0, 0)
    p["TP1"] = (48.0, 50.0, 0)
    p["TP12"] = (42.0, 50.0, 0)
    p["R36"] = (64.0, 39.0, 0)  # GND_LED meets GND here, by the power input
    # ADC with its caps and SPI resistors, the decoder, beside the ribbon headers;
    # the LED buffer.
    p["U4"] = (37.0, 64.0, 0)
    p["C166"] = (43.0, 60.0, 90)
    p["C167"] = (43.0, 66.0, 90)
    for i in range(4):  # SPI series resistors
        p["R%d" % (16 + i)] = (48.0, 59.0 + 3.0 * i, 0)
    p["U18"] = (37.0, 80.0, 0)
    p["C168"] = (43.0, 78.0, 90)
    p["R9"] = (58.0, 113.0, 90)
    p["U19"] = (32.0, 42.0, 0)  # near J1, where the LED data leaves
    p["C169"] = (32.0, 37.5, 0)
    p["R13"] = (28.5, 46.0, 90)
    p["R12"] = (35.5, 46.0, 90)
    # The three input buffers between the DevKit's socket rows (on the down face, under
    # the DevKit), their pull-downs below them.
    for i in range(3):
        x = 22.0 + 15.0 * i
        p["U%d" % (20 + i)] = (x, 104.0, 90)
        p["C%d" % (182 + i)] = (x + 7.0, 100.0, 90)
    for i in range(10):
        p["R%d" % (20 + i)] = (16.0 + 4.0 * i, 113.0, 90)
    p["R34"] = (28.0, 88.0, 0)  # I2C pull-ups
    p["R35"] = (28.0, 91.0, 0)
    # Tray LEDs, up face: black's tray at y = 0 end, white's at y = h end.
    p["D25"] = (35.0, 7.0, 0)
    p["C153"] = (41.0, 7.0, 90)
    p["D26"] = (43.0, h - 9.0, 0)  # inside the tray's column (x < 48.5)
    p["C154"] = (49.0, h - 9.0, 90)
    # Ribbons to the quarter boards (down face), on the left half, pins along y.
    for ref, x, y in (("J1", 5.0, 42.0), ("J2", 17.0, 42.0), ("J3", 5.0, 82.0),
                      ("J4", 17.0, 82.0)):  # flipped: the pins run from here to -y
        p[ref] = (x, y, 0)
    for ref, x, y in (("D30", 27.0, 20.0), ("D31", 27.0, 28.0), ("D32", 27.0, 60.0),
                      ("D33", 27.0, 68.0)):
        p[ref] = (x, y, 0)
    p["J26"] = (4.0, 112.0, 90)  # 3-pin cable to the bar-LED board
    # OLED (up face): the module's header row along x; the module hangs towards +y.
    p["DS1"] = (OLED_HEADER[0], OLED_HEADER[1], 90)
    for i in range(3):  # buttons (up face), a column under the rim; ESD diodes (down face)
        y = BUTTON_Y0 + BUTTON_PITCH * i
        p["SW%d" % (i + 1)] = (BUTTON_X, y, 0)
        p["D%d" % (34 + i)] = (54.0, (56.0, 65.0, 80.0)[i], 90)
    missing = sorted(set(refs) - set(p))
    if missing:
        raise ValueError("main board: no place for %s" % missing)
    return p


OLED_HEADER = (14.0, 92.0)  # design mm of pin 1's row; the module is 27 x 27 mm below it
OLED_CENTRE = (OLED_HEADER[0] + 3.81, OLED_HEADER[1] + 11.5)  # module centre (estimate)
BUTTON_X = 62.0  # under the rim beside the trays' column: no checker lands on a button
BUTTON_Y0 = 56.0
BUTTON_PITCH = 12.0


def main_holes():
    w, h = MAIN_SIZE
    return [(4.0, 4.0), (w - 4.0, 4.0), (4.0, h - 4.0), (w - 4.0, h - 4.0), (46.0, 89.0)]


def holes(design):
    return {"main": main_holes, "quarter": quarter_holes, "spot": spot_holes,
            "bar": bar_holes}[design]()


def sizes():
    return {"main": MAIN_SIZE, "quarter": QUARTER_SIZE, "spot": SPOT_SIZE, "bar": BAR_SIZE}
