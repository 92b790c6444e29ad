"""The boards go together: the assembly model (hardware/tools/assembly.py) checked
against the generated boards, the netlist and the fabrication files.

Each check is a function of hardware/tools/assemblycheck.py returning its problems;
every test here also feeds the check a broken input, so it is known to fail.
"""

import copy
import math
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HW = os.path.join(ROOT, "hardware")
TOOLS = os.path.join(HW, "tools")
sys.path.insert(0, TOOLS)

import assembly as A  # noqa: E402
import assemblycheck as C  # noqa: E402
from pcblib import fab, layout  # noqa: E402

from nardy_host import magnet  # noqa: E402


@pytest.fixture(scope="module")
def design():
    return C.load_all()


def test_up_face_parts_fit_under_the_top_board(design):
    fps, table, _drills = design
    assert C.check_heights(fps, table) == []
    # A quarter board with its ribbon header on the up face (as it was) cannot lie flat.
    bad = copy.deepcopy(fps)
    ribbon = [r for r, f in bad["quarter"].items() if f["fp"].startswith("IDC")][0]
    bad["quarter"][ribbon]["side"] = "up"
    assert any("IDC" in p for p in C.check_heights(bad, table))


def test_controls_and_usb_ports_are_reachable(design):
    fps, table, _drills = design
    assert C.check_reach(fps, table) == []
    # The main board as it was: under the quarter boards, centred on the bar.
    old = A.MAIN_ORIGIN
    try:
        A.MAIN_ORIGIN = (A.BAR_X0 + A.MODEL.bar_width_mm / 2 - 50.0, 250.0)
        assert len(C.check_reach(fps, table)) >= 4
    finally:
        A.MAIN_ORIGIN = old


def test_every_led_lights_what_it_marks(design):
    fps, table, _drills = design
    assert C.check_leds(fps, table) == []
    bad = copy.deepcopy(fps)
    led = [r for r, f in bad["quarter"].items() if f["fp"].startswith("LED_")][0]
    bad["quarter"][led]["y"] = layout.QUARTER_SIZE[1] - 6.0  # under slot 1, as it was
    assert any("under a checker slot" in p for p in C.check_leds(bad, table))


def test_mounting_holes_are_drilled_and_land_on_wood(design):
    fps, table, drills = design
    assert C.check_mounting(fps, table, drills) == []
    for d in layout.DESIGNS:  # the drill file holds the layout's holes
        assert sorted(drills[d]) == sorted(layout.holes(d)), d
    assert C.check_mounting(fps, table, dict((d, []) for d in drills))
    moved = dict(drills)
    moved["main"] = drills["main"] + [(layout.OLED_CENTRE[0], layout.OLED_CENTRE[1])]
    assert any("hole of the top board" in p for p in C.check_mounting(fps, table, moved))


def test_cables_reach_with_slack(design):
    fps, table, _drills = design
    assert C.check_cables(fps, table) == []
    cables = C.connectors(fps, table)
    assert len(cables) == 4 + 8 + 1
    old = A.RIBBON_MM
    try:
        A.RIBBON_MM = 500.0
        assert C.check_cables(fps, table)
    finally:
        A.RIBBON_MM = old


def test_sensor_depth_is_the_model_depth_and_stacks_stay_linear():
    assert C.check_depth() == []
    assert abs(A.sensor_depth_mm() - magnet.MagnetModel().depth_mm) <= A.DEPTH_TOLERANCE_MM / 2
    # As it was: an 8 mm top board with the sensor pressed against it, 8.5 mm deep.
    old = C.check_depth(depth_mm=A.TOP_BOARD_MM + 1.12 - A.HALL_ELEMENT_UP_MM)
    assert any("model says" in p for p in old) and any("linear range" in p for p in old)


def test_power_domains_are_crossed_only_through_resistors_or_ioff_inputs():
    assert C.check_power_domains() == []
    assert C.check_groups_off() == []


def test_power_domain_check_sees_a_direct_crossing(tmp_path):
    # The decoder back on the DevKit's 3V3 (as it was) joins the two supplies.
    with open(os.path.join(HW, "netlist", "nardy-esp32s3.net")) as f:
        text = f.read()
    node = ('\n      (node\n        (ref "U18")\n        (pin "16")\n'
            '        (pintype "POWER-IN"))')
    assert node in text
    text = text.replace(node, "", 1)
    head = '(name "3V3")\n      (class "Default")'
    assert head in text
    text = text.replace(head, head + node, 1)
    path = tmp_path / "bad.net"
    path.write_text(text)
    assert any("GRP0_N" in p for p in C.check_power_domains(str(path)))
    assert any("GRP0_N" in p for p in C.check_groups_off(str(path)))


def test_footprints_are_the_parts_packages(tmp_path):
    assert C.check_packages() == []
    with open(os.path.join(HW, "netlist", "nardy-esp32s3.net")) as f:
        text = f.read()
    path = tmp_path / "bad.net"
    path.write_text(text.replace("Fuse:Fuse_1812_4532Metric", "Fuse:Fuse_1206_3216Metric"))
    assert any(p.startswith("F1") for p in C.check_packages(str(path)))


def test_bom_rows_name_real_parts(tmp_path):
    assert C.check_bom_rows() == []
    with open(os.path.join(HW, "bom.csv")) as f:
        text = f.read()
    path = tmp_path / "bom.csv"
    path.write_text(text.replace("C1-C128,128,Samsung", "C1-C128,128,Murata"))
    assert C.check_bom_rows(str(path))


@pytest.mark.parametrize("d", layout.DESIGNS)
def test_placement_files_use_jlcpcb_rotations_and_leave_out_hand_parts(d):
    pcb = C.read_text(C.board_file(d))
    cpl = C.read_text(os.path.join(HW, "pcb", d, "cpl.csv"))
    assert C.check_placement(pcb, cpl) == []
    # The same file with KiCad's own rotations (as it was) is wrong for any SOT-23/SOIC.
    rows = C.read_csv_text(cpl)
    fps = C.footprints(pcb)
    raw = ["Designator,Mid X,Mid Y,Layer,Rotation"] + [
        "%s,%s,%s,%s,%.1f" % (r["Designator"], r["Mid X"], r["Mid Y"], r["Layer"],
                              fps[r["Designator"]]["rot"]) for r in rows]
    if any(fab.jlc_rotation(fps[r["Designator"]]["fp"], 0, False) for r in rows):
        assert C.check_placement(pcb, "\n".join(raw) + "\n")


def _pads_centre(block, rot):
    """The centre of a footprint's pads, (dx, dy) from its origin in board axes (mm,
    y down), read from the .kicad_pcb text: pad positions there are in the footprint's
    own axes, pad angles include the footprint's."""
    xs, ys = [], []
    for m in re.finditer(r'\(pad "[^"]*" \w+ \w+ \(at ([-\d.]+) ([-\d.]+)(?: ([-\d.]+))?\)'
                         r" \(size ([\d.]+) ([\d.]+)\)", block):
        px, py, w, h = (float(m.group(i)) for i in (1, 2, 4, 5))
        if abs((float(m.group(3) or 0) - rot) % 180 - 90) < 1:
            w, h = h, w
        xs += [px - w / 2, px + w / 2]
        ys += [py - h / 2, py + h / 2]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    a = math.radians(rot)  # KiCad turns counter-clockwise as seen, with y down
    return cx * math.cos(a) + cy * math.sin(a), -cx * math.sin(a) + cy * math.cos(a)


@pytest.mark.parametrize("d", layout.DESIGNS)
def test_bottom_parts_follow_jlcpcbs_bottom_side_convention(d):
    """JLCPCB's bottom side, stated here on its own (the sources are in pcblib/fab.py):
    the part's centre as seen from the top, X not mirrored, Y up; the rotation is
    180 minus KiCad's angle, plus the package's offset. The offset is the one the same
    part gets on the top side, so only the bottom rule is under test here."""
    text = C.read_text(C.board_file(d))
    rows = dict((r["Designator"], r) for r in C.read_csv_text(
        C.read_text(os.path.join(HW, "pcb", d, "cpl.csv"))))
    checked = 0
    for block in text.split("\n  (footprint ")[1:]:
        ref = re.search(r'\(fp_text reference "([^"]+)"', block).group(1)
        if ref not in rows:
            continue
        fp = block.split('"')[1]
        at = re.search(r"\n    \(at ([-\d.]+) ([-\d.]+)(?: ([-\d.]+))?\)", block)
        x, y, rot = float(at.group(1)), float(at.group(2)), float(at.group(3) or 0)
        dx, dy = _pads_centre(block, rot)
        row = rows[ref]
        assert float(row["Mid X"].rstrip("m")) == pytest.approx(x + dx, abs=0.002), ref
        assert float(row["Mid Y"].rstrip("m")) == pytest.approx(-(y + dy), abs=0.002), ref
        if '(layer "B.Cu")' not in block.split("\n")[0]:
            continue
        assert row["Layer"] == "Bottom", ref
        offset = fab.jlc_rotation(fp, 0.0, False)  # the package's offset, top side
        want = (180.0 - rot + offset) % 360
        got = float(row["Rotation"])
        assert abs((got - want + 180) % 360 - 180) < 0.05, (ref, fp, rot, got, want)
        checked += 1
    assert checked or d in ("spot", "bar")  # main and quarter have bottom-side parts


def test_hand_soldered_parts_have_their_own_list():
    for d in layout.DESIGNS:
        fps = C.footprints(C.read_text(C.board_file(d)))
        hand = C.read_csv_text(C.read_text(os.path.join(HW, "pcb", d, "hand.csv")))
        listed = sorted(x for r in hand for x in r["Designator"].split(","))
        assert listed == sorted(r for r, f in fps.items() if fab.hand_soldered(f["fp"])), d
    assert fab.hand_soldered("IDC-Header_2x10_P2.54mm_Vertical")
    assert not fab.hand_soldered("SOT-23")


def test_one_top_board_thickness_everywhere():
    """The docs quote the model's numbers, not copies of them."""
    with open(os.path.join(HW, "README.md")) as f:
        text = f.read()
    import re
    quoted = set(float(x) for x in re.findall(r"([\d.]+) mm (?:thick )?top board", text))
    quoted |= set(float(x) for x in re.findall(r"top board (?:is )?([\d.]+) mm", text))
    with open(os.path.join(HW, "mechanical.svg")) as f:
        quoted |= set(float(x) for x in re.findall(r"top board ([\d.]+) mm", f.read()))
    assert quoted == {A.TOP_BOARD_MM}, quoted


def test_led_returns_stay_off_the_sensor_ground():
    values, nets = C.read_netlist()
    vss = set(n for n, nodes in nets.items() for r, p, _k in nodes
              if values[r].startswith("WS2812B") and p == "3")
    hall = set(n for n, nodes in nets.items() for r, p, _k in nodes
               if values[r].startswith("DRV5055") and p == "3")
    assert vss == {"GND_LED"} and hall == {"GND"}
    # exactly one DC path joins the two returns: the 0 ohm by the power input
    both = set(r for r, _p, _k in nets["GND_LED"]) & set(r for r, _p, _k in nets["GND"])
    assert set(r for r in both if r.startswith(("R", "L", "F"))) == {"R36"}
    assert values["R36"] == "0"


def test_drawings_are_drawn_from_the_model(design):
    import drawing
    import gen
    for name in ("assembly-top.png", "assembly-section.png"):
        with open(os.path.join(HW, name), "rb") as f:
            assert drawing.digest_of(f.read()), name
    before = drawing.digest_of(drawing.section(design))
    old = A.TOP_BOARD_MM
    try:
        A.TOP_BOARD_MM = 5.5  # another top board: the drawing is stale
        after = drawing.section(design)
    finally:
        A.TOP_BOARD_MM = old
    assert drawing.digest_of(after) != before
    assert not gen.same_output(os.path.join(HW, "assembly-section.png"), after)
