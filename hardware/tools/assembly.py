"""The physical model of the whole assembly: one value for every dimension.

The magnetic model (host_tools/nardy_host/magnet.py) owns the playing field (points, slots,
bar, middle gap, trays) and the hall element's depth under the surface; everything
below the surface is here: the wooden board, the stack-up under it, where each
circuit board lies and which face is up, how tall each part is, the holes in the top
board, the cables. The PCB generator (pcblib/layout.py), the drawings (gen.py) and
the checks (tests/host/test_assembly.py) read these numbers; none keeps its own copy.

Conventions: field mm as in magnet.py (origin bottom-left of the playing field seen
from white's seat, x right, y away from white); z is the DEPTH below the playing
surface (positive down). A board's "up" face (KiCad's front, F) faces the top board;
its "down" face (KiCad's back, B) faces the box floor.

Sources: figures marked "datasheet" cite the document; "estimate" means a typical or
measured-by-hand figure that a maker should check on the parts in hand.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for _d in ("firmware", "host_tools"):      # nardy (the engine), nardy_host (the model)
    if os.path.join(ROOT, _d) not in sys.path:
        sys.path.insert(0, os.path.join(ROOT, _d))

from nardy_host import magnet  # noqa: E402

MODEL = magnet.MagnetModel()
FIELD_W, FIELD_H = MODEL.field_size_mm()  # bar included, trays excluded
BAR_X0 = 6 * MODEL.point_width_mm  # left edge of the bar
BAR_X1 = BAR_X0 + MODEL.bar_width_mm
TRAY_X0 = FIELD_W  # the trays' column, right of the field
TRAY_X1 = FIELD_W + MODEL.tray_width_mm
TRAY_SPLIT = 2 * 2 * MODEL.slot_pitch_mm  # white's tray y 0..144, black's from H - 144

# -- wood ----------------------------------------------------------------------------

TOP_BOARD_MM = 8.0  # plywood or MDF: the ONE top-board thickness (the playing surface)
FRAME_MM = 28.0  # rim of the top board around the field and the trays
WALL_MM = 6.0  # the box's side walls (plywood), under the rim's outer edge
BOX_DEPTH_MM = 45.0  # surface to the outside of the box floor
FLOOR_MM = 4.0
OUTER = (-FRAME_MM, -FRAME_MM, TRAY_X1 + FRAME_MM, FIELD_H + FRAME_MM)  # x0 y0 x1 y1

# -- stack-up under the top board -----------------------------------------------------

PCB_MM = 1.6
# Every board hangs from the top board's underside on M3 screws through a spacer stack:
# a 2 mm M3 nylon round spacer and a DIN 125 M3 washer (0.5 mm). The screw is a 3.0 x
# 10 mm pan-head wood screw: 10 - 2.5 - 1.6 = 5.9 mm into the 8 mm wood, 2.1 mm of
# wood left above its tip (screw_bite_mm, checked).
STANDOFF_MM = 2.5
SCREW_LEN_MM = 10.0
MOUNT_HOLE_MM = 3.2  # NPTH, in every board's drill file
MOUNT_KEEPOUT_MM = 3.5  # radius kept free of copper and parts around a mounting hole
BOARD_UP_Z = TOP_BOARD_MM + STANDOFF_MM  # depth of every board's up face
# DRV5055 in SOT-23 (DBZ): body 0.89-1.12 mm tall (SBAS640, package drawing DBZ0003A);
# the hall element sits on the die near the package's mid-height: 0.6 mm above the
# seating plane is an ESTIMATE (SBAS640 sec. 6.3.8 shows the element's place in the
# package, not this height to 0.1 mm); the calibration measures what is left.
HALL_ELEMENT_UP_MM = 0.6
DEPTH_TOLERANCE_MM = 0.3  # magnet.SPREAD's board-wide element depth (estimate)


def sensor_depth_mm():
    """Depth of the hall element under the playing surface, as built."""
    return BOARD_UP_Z - HALL_ELEMENT_UP_MM


# DRV5055A3 at VCC = 3.3 V: linear range +-88 mT (BL, SBAS640 sec. 6.6, A3 option).
LINEAR_RANGE_MT = 88.0
LINEAR_MARGIN = 0.10  # the tallest stack stays at least 10 % inside the linear range
# A point's 15 checkers lie in its 5 slots: 3 high on a slot at most (the magnetic
# model's worst case too). Fifteen on one slot must still not leave the linear range.
TALLEST_STACK = 3
ALL_ON_ONE_SLOT = 15

# -- parts: height above their face (mm) and source ------------------------------------

HEIGHTS = {  # footprint name (KiCad library item) -> (height mm, source)
    "SOT-23": (1.12, "datasheet: SOT-23 (DBZ/SOT-23-3) max body height"),
    "SOT-23-5": (1.45, "datasheet: SOT-23-5 (DBV) max height, TI DBV0005A"),
    "SOT-23-6": (1.45, "datasheet: SOT-23-6 (DBV) max height, TI DBV0006A"),
    "SOIC-8-1EP_3.9x4.9mm_P1.27mm_EP2.41x3.3mm": (1.7, "datasheet: TI DDA (HSOIC-8) 1.7"),
    "SOIC-16_3.9x9.9mm_P1.27mm": (1.75, "datasheet: JEDEC MS-012 max"),
    "SOIC-24W_7.5x15.4mm_P1.27mm": (2.65, "datasheet: JEDEC MS-013 max"),
    "SOIC-14_3.9x8.7mm_P1.27mm": (1.75, "datasheet: JEDEC MS-012 max"),
    "R_0603_1608Metric": (0.55, "datasheet: Yageo RC0603 0.45 +- 0.1"),
    "C_0603_1608Metric": (0.9, "datasheet: Samsung CL10 0.8 +- 0.1"),
    "C_0805_2012Metric": (1.45, "datasheet: Samsung CL21 10 uF 1.25 +- 0.2"),
    "LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm": (1.6, "datasheet: Worldsemi WS2812B 5.0x5.0x1.6"),
    "D_SOD-323": (1.1, "datasheet: Nexperia SOD323 max"),
    "D_SOD-123F": (1.08, "datasheet: Littelfuse SMF (SOD-123FL) max"),
    "Fuse_1812_4532Metric": (1.6, "estimate: Bourns MF-MSMF050-2 (1812) 1.3 typ"),
    "CP_Radial_D8.0mm_P3.50mm": (11.5, "datasheet: Panasonic EEU-FR1A471 8x11.5"),
    "SW_SPST_B3S-1000": (3.1, "estimate: Omron B3S-1000 (6x6 SMD) 3.1"),
    "TestPoint_Pad_D1.5mm": (0.0, "copper pad"),
    "MountingHole_3.2mm_M3": (0.0, "hole"),
    "IDC-Header_2x10_P2.54mm_Vertical": (8.9, "datasheet: Amphenol T821 shrouded header"),
    "JST_XH_B3B-XH-A_1x03_P2.50mm_Vertical": (7.0, "datasheet: JST XH B3B-XH-A"),
    "USB_C_Receptacle_GCT_USB4135-GF-A_6P_TopMnt_Horizontal":
        (3.31, "datasheet: GCT USB4135 3.31 above the board"),
    # The OLED module's own 4-pin header soldered straight into the board: header
    # plastic 2.5 + module PCB 1.6 + glass 1.5 (estimate, generic 0.96 in modules).
    "PinSocket_1x04_P2.54mm_Vertical": (5.6, "estimate: module on its own header"),
    # The DevKit on two 1x22 female headers: socket 8.5 + DevKit 1.6 + module 3.2 +
    # its USB-C receptacles (estimate; ESP32-S3-DevKitC-1 v1.1).
    "DevKitC-1_socket": (16.5, "estimate: sockets 8.5 + DevKit with module"),
}

# Parts on the up face (facing the top board): only those that must sense or be seen
# through the wood. Everything else is on the down face, where height is free. A
# through-hole part on the down face leaves its pin tails on the up face: cut flush to
# THT_TAIL_MM (estimate, side cutters) before the board is mounted.
UP_PARTS = {  # design -> roles (the main board's roles are its references)
    "quarter": lambda r: r.startswith(("H_", "CH_", "D_", "CD_")),  # sensors, LEDs
    "spot": lambda r: r in ("H", "CH"),
    "bar": lambda r: r.startswith(("D", "CD")),
    "main": lambda r: r in ("DS1", "SW1", "SW2", "SW3", "D25", "D26", "C153", "C154"),
}
THT_TAIL_MM = 1.5
GAP_CLEARANCE_MM = 0.3  # least air between an up-face part and the wood


def up_face(design, role):
    """True when a part of this role sits on the board's up face (towards the wood)."""
    return UP_PARTS[design](role)


def screw_bite_mm():
    """How far each mounting screw reaches into the top board, and the wood left."""
    bite = SCREW_LEN_MM - STANDOFF_MM - PCB_MM
    return bite, TOP_BOARD_MM - bite


# -- where each board lies ----------------------------------------------------------

# Quarter boards: one design, the field's quarters (pcblib/layout.py places parts in
# design mm; quarter_to_field maps them). Spot boards: sensor on the slot mark, the
# board's long axis along y, its header away from the main board and the field's middle.
SPOT_SIZE = (18.0, 28.0)
SPOT_SENSOR = (9.0, 7.0)
# The main board: in the trays' column between the two trays, reaching under the
# frame's rim to the right-hand wall, where both USB ports meet cut-outs in the wall.
MAIN_SIZE = (70.0, 140.0)
# field xy of design (0, 0): the right edge 0.5 mm from the wall's inner face
MAIN_ORIGIN = (OUTER[2] - WALL_MM - 0.5 - MAIN_SIZE[0], FIELD_H / 2.0 + MAIN_SIZE[1] / 2.0)
# The bar-LED board: the two bar LEDs in the middle of the bar, either side of the gap.
BAR_SIZE = (20.0, 60.0)
BAR_ORIGIN = (BAR_X0 + MODEL.bar_width_mm / 2.0 - BAR_SIZE[0] / 2.0,
              FIELD_H / 2.0 + BAR_SIZE[1] / 2.0)


def main_to_field(x, y):
    return MAIN_ORIGIN[0] + x, MAIN_ORIGIN[1] - y


def field_to_main(fx, fy):
    return fx - MAIN_ORIGIN[0], MAIN_ORIGIN[1] - fy


def bar_to_field(x, y):
    return BAR_ORIGIN[0] + x, BAR_ORIGIN[1] - y


def field_to_bar(fx, fy):
    return fx - BAR_ORIGIN[0], BAR_ORIGIN[1] - fy


def spot_to_field(x, y, label):
    """A spot board's design mm -> field mm: its sensor on the slot mark of `label`
    ('bar.2', 'off_white.1', ...); boards in the top half are turned by 180 degrees."""
    loc, slot = label.rsplit(".", 1)
    mx, my = MODEL.slot_xy(loc, int(slot))
    if my > FIELD_H / 2.0:
        return mx - (x - SPOT_SENSOR[0]), my - (SPOT_SENSOR[1] - y)
    return mx + (x - SPOT_SENSOR[0]), my + (SPOT_SENSOR[1] - y)


# -- the top board's holes -------------------------------------------------------------

LED_HOLE_MM = 5.0  # over every LED: a 5 mm clear acrylic rod (light pipe), flush
LIGHT_PIPE_MM = TOP_BOARD_MM  # cut to the top board's thickness, its foot 0.9 mm above the LED
BUTTON_HOLE_MM = 8.0  # a 7.5 mm printed or turned plunger (estimate) rides in it
OLED_WINDOW = (28.0, 28.0)  # the module (27 x 27.3 mm, estimate: generic 0.96 in) sinks in
WALL_CUTOUT = (13.5, 8.0)  # in the right-hand wall at each USB port: fits any USB-C
USB_C_OVERMOLD = (12.35, 6.5)  # USB Type-C spec rev 2.0 sec. 3.2: plug overmold max

# -- cables -------------------------------------------------------------------------

RIBBON_MM = 650.0  # four 20-way ribbons, main J1-J4 to the quarter boards
XH_CABLE_MM = 500.0  # pre-crimped 3-pin cables: quarter boards to spot boards
BAR_CABLE_MM = 400.0  # main board to the bar-LED board
CABLE_SLACK = 0.15  # every cable at least 15 % longer than its path
CABLE_DROP_MM = 25.0  # a cable runs under the quarter boards' down-face parts: drop and rise


def cable_path_mm(a, b):
    """Path of a cable between two connectors (field xy): along x then y under the
    boards (no diagonal runs between standoffs), plus the drop below the boards'
    down-face parts and back."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) + 2 * CABLE_DROP_MM


def markdown():
    """The stack-up and the wooden board, for hardware/README.md."""
    bite, left = screw_bite_mm()
    rows = [
        ("top board (plywood or MDF), the playing surface", "%.1f mm" % TOP_BOARD_MM, "chosen"),
        ("spacer stack under it (M3 nylon spacer 2 mm + DIN 125 washer 0.5 mm)",
         "%.1f mm" % STANDOFF_MM, "parts"),
        ("circuit boards", "%.1f mm FR-4, up face towards the wood" % PCB_MM, "order"),
        ("hall element above the board (DRV5055 in SOT-23)", "%.1f mm" % HALL_ELEMENT_UP_MM,
         "estimate"),
        ("hall element below the surface, as built", "%.2f mm" % sensor_depth_mm(),
         "derived"),
        ("hall element below the surface, the magnetic model", "%.2f mm" % MODEL.depth_mm,
         "magnet.py"),
        ("tallest part on an up face (WS2812B)", "1.6 mm in a %.1f mm gap" % STANDOFF_MM,
         "datasheet"),
        ("through-hole tails on an up face, cut to", "%.1f mm" % THT_TAIL_MM, "estimate"),
        ("mounting screws", "3.0 x %.0f mm pan-head wood screws: %.1f mm into the wood,"
         " %.1f mm left" % (SCREW_LEN_MM, bite, left), "derived"),
        ("frame rim around the field and trays / side walls / box depth",
         "%.0f / %.0f / %.0f mm" % (FRAME_MM, WALL_MM, BOX_DEPTH_MM), "chosen"),
        ("LED holes (5 mm clear acrylic rod, cut to the board's thickness)",
         "%.0f mm" % LED_HOLE_MM, "chosen"),
        ("OLED window / button holes", "%.0f x %.0f mm / %.0f mm" % (
            OLED_WINDOW[0], OLED_WINDOW[1], BUTTON_HOLE_MM), "estimate"),
        ("USB cut-outs in the right-hand wall", "%.1f x %.1f mm (a USB-C overmold is at most"
         " %.2f x %.1f)" % (WALL_CUTOUT + USB_C_OVERMOLD), "USB-C spec"),
        ("ribbons / spot cables / bar-LED cable", "%.0f / %.0f / %.0f mm" % (
            RIBBON_MM, XH_CABLE_MM, BAR_CABLE_MM), "checked: 15 % slack"),
    ]
    out = ["| what | value | source |", "| --- | --- | --- |"]
    out += ["| %s | %s | %s |" % r for r in rows]
    m = type(MODEL)(depth_mm=sensor_depth_mm() - DEPTH_TOLERANCE_MM)
    out += ["", "At the shallowest element depth (%.2f mm, the board-wide tolerance %.1f mm"
            " taken off) three stacked checkers give %.1f mT, %.0f %% of the DRV5055A3's"
            " +-%g mT linear range (limit %.0f %%); fifteen on one slot %.1f mT."
            % (sensor_depth_mm() - DEPTH_TOLERANCE_MM, DEPTH_TOLERANCE_MM,
               m.stack_field_mT(TALLEST_STACK),
               100 * m.stack_field_mT(TALLEST_STACK) / LINEAR_RANGE_MT, LINEAR_RANGE_MT,
               100 * (1 - LINEAR_MARGIN), m.stack_field_mT(ALL_ON_ONE_SLOT))]
    return "\n".join(out)
