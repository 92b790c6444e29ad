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

from nardy import magnet  # noqa: E402

MODEL = magnet.MagnetModel()

DESIGNS = ("main", "quarter", "spot")
# The board instance (in the part -> board table) whose parts define each design.
DESIGN_INSTANCE = {"main": "main", "quarter": "quarter0", "spot": "spot-off_white.1"}
DESIGN_COUNT = {"main": 1, "quarter": 4, "spot": 8}  # boards of each design per set

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
        x, _ = field_to_quarter(*MODEL.slot_xy(k + 1, 1))
        y = QUARTER_SIZE[1] - 6.0
        out["D_%d" % k] = (x, y, 0)
        out["CD_%d" % k] = (x + 6.0, y, 90)
    # Top strip (inner edge, at the middle gap): muxes, switches, ribbon, spot headers.
    mid = QUARTER_SIZE[0] / 2.0
    out["J_RIBBON"] = (mid + 11.43, 6.0, 270)  # pin 1 right, pins run left
    for k, xm in ((1, mid + 38.0), (2, mid - 38.0)):
        out["U%d" % k] = (xm, 13.0, 0)
        out["C_MUX%d" % k] = (xm + 10.0, 6.0, 0)
        out["Q%d" % k] = (xm + 12.0, 16.0, 0)
        out["R%d" % k] = (xm + 16.0, 16.0, 0)
        out["TP%d" % k] = (xm + 15.0, 20.5, 0)
        out["J_SPOT%d" % k] = (xm - 2.5 + (25.0 if k == 1 else -25.0), 5.0, 0)
    out["C_BULK"] = (mid + 17.0, 17.0, 0)
    return out


# -- spot board (one bar or tray sensor) ------------------------------------------------

SPOT_SIZE = (16.0, 22.0)
SPOT_SENSOR = (8.0, 7.0)  # the sensor (hall element) is the board's reference point


def spot_places(roles):
    return {"H": (SPOT_SENSOR[0], SPOT_SENSOR[1], 0), "CH": (12.0, 7.0, 90),
            "J": (5.5, 16.0, 0)}


# -- main board (under the bar) ----------------------------------------------------------

MAIN_SIZE = (100.0, 110.0)


def main_places(refs):
    """ref -> (x, y, rot) on the main board (100 x 110 mm). It mounts under the quarter
    boards, centred on the bar; its four ribbon headers along the lower edge face the
    middle gap. DevKit top left, power input and supply on the right, ADC, decoder and
    LED buffer in the middle, buttons and OLED header bottom right."""
    p = {}
    p["U1"] = (34.0, 24.0, 90)  # DevKit sockets: two rows of 22 along x
    # Power: USB-C at the top edge, TVS, input cap, CC resistors, load switch with CT,
    # fuse, reservoir, LDO with its capacitors.
    px = 90.0
    p["J5"] = (px, 4.0, 180)
    p["D29"] = (px - 7.0, 11.0, 90)
    p["C162"] = (px + 7.0, 11.0, 90)
    p["R14"] = (px - 7.0, 17.0, 90)
    p["R15"] = (px + 7.0, 17.0, 90)
    p["U3"] = (px, 15.0, 0)
    p["C163"] = (px, 20.0, 0)
    p["F1"] = (px, 25.0, 0)
    p["C157"] = (px, 35.0, 90)
    p["U2"] = (px, 46.0, 0)
    p["C164"] = (px - 5.5, 46.0, 90)
    p["C165"] = (px + 5.5, 46.0, 90)
    p["TP2"] = (px + 7.0, 27.0, 0)
    p["TP1"] = (px + 7.0, 52.0, 0)
    p["TP12"] = (px - 7.0, 52.0, 0)
    # ADC with its caps (and a VSENSE divider, for a pin map that has one); decoder;
    # LED buffer.
    p["U4"] = (16.0, 58.0, 0)
    p["C166"] = (9.0, 53.0, 90)
    p["C167"] = (9.0, 58.0, 90)
    p["R10"] = (23.0, 53.0, 90)
    p["R11"] = (23.0, 58.0, 90)
    for i in range(4):  # SPI series resistors
        p["R%d" % (16 + i)] = (26.5, 53.0 + 3.0 * i, 0)
    p["U18"] = (36.0, 58.0, 0)
    p["C168"] = (29.5, 53.0, 90)
    p["R9"] = (42.5, 53.0, 90)
    p["U19"] = (54.0, 56.0, 0)
    p["C169"] = (49.5, 56.0, 90)
    p["R13"] = (58.5, 53.0, 90)
    p["R12"] = (58.5, 59.0, 90)
    # The last four LEDs of the chain (trays, bar) with their capacitors, and TP11.
    for i, ref in enumerate(("D25", "D26", "D27", "D28")):
        x = 10.0 + 15.0 * i
        p[ref] = (x, 72.0, 0)
        p["C%d" % (153 + i)] = (x + 5.0, 72.0, 90)
    p["TP11"] = (68.0, 72.0, 0)
    # Ribbons: rotated so the pins run along x; two rows of two.
    for ref, x, y in (("J1", 6.5, 86.0), ("J2", 41.0, 86.0), ("J3", 6.5, 104.0),
                      ("J4", 41.0, 104.0)):
        p[ref] = (x, y, 90)
    for ref, x in (("D30", 20.0), ("D31", 55.0), ("D32", 27.0), ("D33", 62.0)):
        p[ref] = (x, 93.5, 90)
    # OLED header and the buttons with their ESD diodes.
    p["DS1"] = (84.0, 62.0, 0)
    for i in range(3):
        p["SW%d" % (i + 1)] = (89.0, 78.0 + 10.0 * i, 0)
        p["D%d" % (34 + i)] = (80.0, 84.0 + 10.0 * i, 0)
    missing = sorted(set(refs) - set(p))
    if missing:
        raise ValueError("main board: no place for %s" % missing)
    return p


def sizes():
    return {"main": MAIN_SIZE, "quarter": QUARTER_SIZE, "spot": SPOT_SIZE}
