"""Checks of the assembly model (assembly.py) against the generated boards.

Plain Python: each check reads a board's .kicad_pcb text (as generated, or as it was
at an older commit), places it in the field with assembly.py's transforms and returns
a list of problems (empty: the check passes). tests/host/test_assembly.py runs them.

    python hardware/tools/assemblycheck.py    # every check on hardware/pcb/, exit 1 on any problem
"""

import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import assembly as A  # noqa: E402
from pcblib import layout  # noqa: E402

MODEL = A.MODEL


def read_text(path):
    with open(path) as f:
        return f.read()


def footprints(pcb_text):
    """ref -> {fp, x, y, rot, side ('up'|'down'), tht} from a .kicad_pcb text."""
    out = {}
    for block in pcb_text.split("\n  (footprint ")[1:]:
        name = block.split('"')[1].split(":")[-1]
        layer = re.search(r'\(layer "([FB])\.Cu"\)', block).group(1)
        at = re.search(r"\n    \(at ([-\d.]+) ([-\d.]+)(?: ([-\d.]+))?\)", block)
        ref = re.search(r'\(fp_text reference "([^"]+)"', block).group(1)
        out[ref] = {"fp": name, "x": float(at.group(1)), "y": float(at.group(2)),
                    "rot": float(at.group(3) or 0), "side": "up" if layer == "F" else "down",
                    "tht": "thru_hole" in block}
    return out


def board_file(design, base=None):
    return os.path.join(base or os.path.join(HW, "pcb"), design, design + ".kicad_pcb")


def boards_table(path=None):
    with open(path or os.path.join(HW, "netlist", "nardy-esp32s3.boards.json")) as f:
        return json.load(f)


def role_of(table, design, ref):
    inst = layout.DESIGN_INSTANCE[design]
    v = table.get(ref)
    return v[2] if v and v[0] == inst else ref


# -- where things are in the field --------------------------------------------------

def instances(table):
    """[(design, instance name, to_field(x, y))] for every board of a set."""
    out = []
    for q in range(4):
        out.append(("quarter", "quarter%d" % q,
                    lambda x, y, q=q: layout.quarter_to_field(x, y, q)))
    for inst in sorted(set(v[0] for v in table.values() if v[0].startswith("spot-"))):
        label = inst[len("spot-"):]
        out.append(("spot", inst, lambda x, y, lb=label: A.spot_to_field(x, y, lb)))
    out.append(("main", "main", A.main_to_field))
    out.append(("bar", "bar", A.bar_to_field))
    return out


def top_board_holes(fps_by_design, table):
    """Every hole and window the top board has: (kind, field x, y, w, h), from where
    the boards put the LEDs, the OLED and the buttons (the drawing uses the same)."""
    holes = []
    for design, _inst, to_field in instances(table):
        fps = fps_by_design[design]
        for ref, f in sorted(fps.items()):
            if f["fp"].startswith("LED_WS2812B") and f["side"] == "up":
                x, y = to_field(f["x"], f["y"])
                holes.append(("led", x, y, A.LED_HOLE_MM, A.LED_HOLE_MM))
            if design == "main" and ref.startswith("SW"):
                x, y = to_field(f["x"], f["y"])
                holes.append(("button", x, y, A.BUTTON_HOLE_MM, A.BUTTON_HOLE_MM))
        if design == "main" and "DS1" in fps:
            x, y = to_field(*layout.OLED_CENTRE)
            holes.append(("oled", x, y) + A.OLED_WINDOW)
    return holes


def _inside(px, py, hole, grow=0.0):
    _k, x, y, w, h = hole
    return abs(px - x) <= w / 2.0 + grow and abs(py - y) <= h / 2.0 + grow


# -- the checks ------------------------------------------------------------------------

def check_heights(fps_by_design, table):
    """Nothing on a board's up face is taller than the gap to the wood, unless it
    stands in a hole of the top board; through-hole tails are cut to THT_TAIL_MM."""
    gap = A.STANDOFF_MM - A.GAP_CLEARANCE_MM
    holes = top_board_holes(fps_by_design, table)
    bad = []
    for design, inst, to_field in instances(table):
        for ref, f in fps_by_design[design].items():
            if f["fp"] not in A.HEIGHTS:
                bad.append("%s %s: no height for %s" % (design, ref, f["fp"]))
                continue
            h = A.HEIGHTS[f["fp"]][0] if f["side"] == "up" else (
                A.THT_TAIL_MM if f["tht"] else 0.0)
            if h <= gap:
                continue
            x, y = to_field(f["x"], f["y"])
            if f["side"] == "up" and any(_inside(x, y, hh) for hh in holes
                                         if hh[0] in ("oled", "button")):
                continue
            bad.append("%s %s (%s): %.2f mm on the up face, gap %.2f" % (
                inst, ref, f["fp"], h, gap))
    return bad


def check_reach(fps_by_design, table):
    """Buttons under their holes, the OLED under its window, both USB ports (the
    power input J5 and the DevKit's) at the right-hand wall's cut-outs."""
    bad = []
    main = fps_by_design["main"]
    holes = top_board_holes(fps_by_design, table)
    wall = A.OUTER[2] - A.WALL_MM
    for ref in ("SW1", "SW2", "SW3"):
        x, y = A.main_to_field(main[ref]["x"], main[ref]["y"])
        if main[ref]["side"] != "up" or not any(
                h[0] == "button" and _inside(x, y, h) for h in holes):
            bad.append("%s: not under a hole of the top board" % ref)
        if _over_field(x, y) or _in_tray(x, y):
            bad.append("%s: under the playing field or a tray, where checkers stand" % ref)
    ds = main["DS1"]
    x, y = A.main_to_field(*layout.OLED_CENTRE)
    if ds["side"] != "up" or _over_field(x, y) or _in_tray(x, y) or \
            not _on_top_board(x, y, 14.0):
        bad.append("DS1: its window is not clear of the field and the rim")
    # USB ports: the power input's mouth and the DevKit's USB end at the wall.
    j5 = main["J5"]
    mouth = A.main_to_field(j5["x"] + 4.0, j5["y"])  # USB4135: mouth 4.0 mm before its origin
    devkit_end = A.main_to_field(main["U1"]["x"] + 26.67 + 5.0, main["U1"]["y"])
    for what, (x, _y) in (("J5 (power input)", mouth), ("U1 (DevKit USB)", devkit_end)):
        if not (wall - 1.5 <= x <= wall + 0.5):
            bad.append("%s: mouth at x %.1f, the wall's inner face at %.1f" % (what, x, wall))
    if A.WALL_CUTOUT[0] < A.USB_C_OVERMOLD[0] + 1.0 or \
            A.WALL_CUTOUT[1] < A.USB_C_OVERMOLD[1] + 1.0:
        bad.append("wall cut-out smaller than a USB-C plug's overmold")
    return bad


def _in_tray(x, y):
    return A.TRAY_X0 <= x <= A.TRAY_X1 and (y < A.TRAY_SPLIT or y > A.FIELD_H - A.TRAY_SPLIT)


def _over_field(x, y):
    return 0.0 <= x <= A.FIELD_W and 0.0 <= y <= A.FIELD_H


def _on_top_board(x, y, r=0.0):
    x0, y0, x1, y1 = A.OUTER
    return x0 + A.WALL_MM + r <= x <= x1 - A.WALL_MM - r and \
        y0 + A.WALL_MM + r <= y <= y1 - A.WALL_MM - r


def led_targets():
    """LED designator -> (kind, where it must be) from the pin map's chain."""
    pm = json.loads(read_text(os.path.join(A.ROOT, "firmware", "pinmap", "esp32s3.json")))
    return dict(("D%d" % (i + 1), loc) for i, loc in enumerate(pm["led"]["chain"]))


def check_leds(fps_by_design, table):
    """Every LED is in the area it marks (its point's column in the middle gap, its
    tray, its half of the bar) and no checker on any slot covers it."""
    bad = []
    r_free = MODEL.checker_diameter_mm / 2.0 + A.LED_HOLE_MM / 2.0
    slots = [MODEL.slot_xy(p, s) for p in range(1, 25) for s in range(1, MODEL.slots + 1)]
    slots += [MODEL.slot_xy("bar", s) for s in range(1, 5)]
    slots += [MODEL.slot_xy(t, s) for t in ("off_white", "off_black") for s in (1, 2)]
    targets = led_targets()
    seen = 0
    for design, inst, to_field in instances(table):
        for dref, f in fps_by_design[design].items():
            if not f["fp"].startswith("LED_WS2812B"):
                continue
            role = role_of(table, design, dref)
            refs = [r for r, v in table.items() if v[0] == inst and v[2] == role]
            if not refs:
                continue
            ref = refs[0]
            seen += 1
            x, y = to_field(f["x"], f["y"])
            loc = targets[ref]
            if f["side"] != "up":
                bad.append("%s: faces away from the top board" % ref)
            if any(math.hypot(x - sx, y - sy) < r_free for sx, sy in slots):
                bad.append("%s (%s): under a checker slot" % (ref, loc))
            if loc.startswith("P"):
                p = int(loc[1:])
                ok = abs(x - MODEL.point_x(p)) <= MODEL.point_width_mm / 2.0 and \
                    MODEL.point_length_mm() < y < A.FIELD_H - MODEL.point_length_mm()
            elif loc.startswith("off_"):
                white = loc == "off_white"
                ok = A.TRAY_X0 < x < A.TRAY_X1 and (
                    y < A.TRAY_SPLIT if white else y > A.FIELD_H - A.TRAY_SPLIT)
            else:
                ok = A.BAR_X0 < x < A.BAR_X1 and (
                    y < A.FIELD_H / 2.0 if loc == "bar_bottom" else y > A.FIELD_H / 2.0)
            if not ok:
                bad.append("%s (%s): at (%.0f, %.0f), not where it marks" % (ref, loc, x, y))
    if seen != len(targets):
        bad.append("%d LEDs placed, the chain has %d" % (seen, len(targets)))
    return bad


def drill_holes(drl_text):
    """NPTH hole positions (mm, KiCad axes) from an Excellon file."""
    return [(float(a), -float(b)) for a, b in re.findall(r"^X([-\d.]+)Y([-\d.]+)$",
                                                         drl_text, re.M)]


def check_mounting(fps_by_design, table, drills):
    """Every board has at least two mounting holes, in its drill file, each landing on
    wood (inside the top board's walls, in no hole of it), the screw biting the wood
    and not coming through."""
    bad = []
    holes = top_board_holes(fps_by_design, table)
    for design in layout.DESIGNS:
        pts = drills.get(design, [])
        if len(pts) < 2:
            bad.append("%s: %d mounting holes in its drill file" % (design, len(pts)))
    for design, inst, to_field in instances(table):
        for (x, y) in drills.get(design, []):
            fx, fy = to_field(x, y)
            if not _on_top_board(fx, fy, A.MOUNT_KEEPOUT_MM):
                bad.append("%s hole at (%.1f, %.1f): not under the top board" % (inst, fx, fy))
            if any(_inside(fx, fy, h, A.MOUNT_KEEPOUT_MM) for h in holes):
                bad.append("%s hole at (%.1f, %.1f): under a hole of the top board"
                           % (inst, fx, fy))
    bite, left = A.screw_bite_mm()
    if bite < 4.0 or left < 1.5:
        bad.append("screw: %.1f mm into the wood, %.1f mm left" % (bite, left))
    return bad


def connectors(fps_by_design, table):
    """Cable ends in the field: [(cable, length mm, end a xy, end b xy)]."""
    out = []
    by_inst = dict((inst, tf) for _d, inst, tf in instances(table))

    def at(ref):
        inst, design, role = table[ref]
        dref = [r for r, v in table.items() if v[0] == layout.DESIGN_INSTANCE[design]
                and v[2] == role][0]
        f = fps_by_design[design][dref]
        return by_inst[inst](f["x"], f["y"])

    for q in range(4):
        out.append(("ribbon J%d-J%d" % (1 + q, 6 + q), A.RIBBON_MM, at("J%d" % (1 + q)),
                    at("J%d" % (6 + q))))
    for k in range(8):
        out.append(("XH J%d-J%d" % (10 + k, 18 + k), A.XH_CABLE_MM, at("J%d" % (10 + k)),
                    at("J%d" % (18 + k))))
    if "J26" in table and "J27" in table:
        out.append(("XH J26-J27 (bar LEDs)", A.BAR_CABLE_MM, at("J26"), at("J27")))
    return out


def check_cables(fps_by_design, table):
    bad = []
    for name, length, a, b in connectors(fps_by_design, table):
        need = A.cable_path_mm(a, b) * (1.0 + A.CABLE_SLACK)
        if need > length:
            bad.append("%s: needs %.0f mm with slack, is %.0f" % (name, need, length))
    return bad


def check_depth(depth_mm=None):
    """The hall element's depth as built is the magnetic model's, within the depth
    tolerance's half; the tallest stack at the shallowest depth stays inside the
    DRV5055A3's linear range by LINEAR_MARGIN, fifteen on one slot inside it at all."""
    depth = A.sensor_depth_mm() if depth_mm is None else depth_mm
    bad = []
    if abs(depth - MODEL.depth_mm) > A.DEPTH_TOLERANCE_MM / 2.0:
        bad.append("element %.2f mm deep, the model says %.2f" % (depth, MODEL.depth_mm))
    m = type(MODEL)(depth_mm=depth - A.DEPTH_TOLERANCE_MM)
    b3 = m.stack_field_mT(A.TALLEST_STACK)
    b15 = m.stack_field_mT(A.ALL_ON_ONE_SLOT)
    if b3 > A.LINEAR_RANGE_MT * (1.0 - A.LINEAR_MARGIN):
        bad.append("%d stacked: %.1f mT, over %.0f %% of the +-%g mT linear range" % (
            A.TALLEST_STACK, b3, 100 * (1 - A.LINEAR_MARGIN), A.LINEAR_RANGE_MT))
    if b15 > A.LINEAR_RANGE_MT:
        bad.append("%d stacked: %.1f mT, beyond the linear range" % (A.ALL_ON_ONE_SLOT, b15))
    return bad


# -- the netlist: power domains, group switches ------------------------------------------

IOFF_PARTS = ("SN74LVC125A", "SN74LV1T125")  # inputs rated for a powered-down supply
ACTIVE = ("INPUT", "OUTPUT", "BIDIRECTIONAL", "TRI-STATE", "OPEN-COLLECTOR")
MCU_RAILS = ("3V3",)
POWER_RAILS = ("5V_IN", "5V_SW", "5V_F", "3V3S")


def read_netlist(path=None):
    """(values {ref: value}, nets {name: [(ref, pin, pintype)]})."""
    text = read_text(path or os.path.join(HW, "netlist", "nardy-esp32s3.net"))
    values = dict(re.findall(r'\(comp\s*\(ref "([^"]+)"\)\s*\(value "([^"]*)"\)', text))
    nets = {}
    for block in re.split(r"\(net\s*\(code", text)[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block).group(1)
        nets[name] = re.findall(r'\(ref "([^"]+)"\)\s*\(pin "([^"]+)"\)\s*'
                                r'\(pintype "([^"]+)"\)', block)
    return values, nets


def domain_of_rail(net):
    if net in MCU_RAILS:
        return "mcu"
    if net in POWER_RAILS or re.match(r"GRP\d+$", net):
        return "power input"
    return None


def part_domains(nets):
    """ref -> the domain of the rail its supply pin is on (the DevKit: its 3V3)."""
    out = {}
    for name, nodes in nets.items():
        d = domain_of_rail(name)
        if d is None:
            continue
        for ref, _pin, kind in nodes:
            if kind in ("POWER-IN", "POWER-OUT"):
                out.setdefault(ref, d)
    return out


def check_power_domains(path=None):
    """No signal joins active pins of parts on different supplies directly: between
    them a series resistor (the net splits), or the far side's pins are inputs of a
    part rated for a powered-down supply (Ioff)."""
    values, nets = read_netlist(path)
    dom = part_domains(nets)
    bad = []
    for name, nodes in sorted(nets.items()):
        if domain_of_rail(name) or name == "GND":
            continue
        by = {}
        for ref, pin, kind in nodes:
            if kind in ACTIVE and ref in dom:
                by.setdefault(dom[ref], []).append((ref, pin, kind))
        if len(by) < 2:
            continue

        def tolerant(pins):
            return all(k == "INPUT" and values[r].startswith(IOFF_PARTS) for r, _p, k in pins)
        if not any(all(tolerant(p) for d, p in by.items() if d != home) for home in by):
            bad.append("%s joins %s" % (name, "; ".join(
                "%s: %s" % (d, ",".join(r for r, _p, _k in p)) for d, p in sorted(by.items()))))
    return bad


def _net_of(nets, ref, pin):
    for name, nodes in nets.items():
        if any(r == ref and p == pin for r, p, _k in nodes):
            return name
    return None


def _pulled_to(nets, values, net, rail):
    """True when a resistor joins `net` to `rail`."""
    for ref, _p, _k in nets.get(net, []):
        if ref.startswith("R") and any(r == ref for r, _p2, _k2 in nets.get(rail, [])):
            return True
    return False


def check_groups_off(path=None):
    """Every group switch is off while the MCU is unpowered, by construction: its gate
    is pulled up to its own source rail; the decoder driving it runs on that rail;
    the decoder's enable comes from a buffer on that rail whose input is pulled to
    ground (or is itself pulled to ground, with no MCU pin on it)."""
    values, nets = read_netlist(path)
    bad = []
    gates = sorted(set(_net_of(nets, r, "1") for n in nets.values() for r, _p, _k in n
                       if values.get(r) == "AO3401A"))
    for g in gates:
        q = [r for r, p, _k in nets[g] if values.get(r) == "AO3401A" and p == "1"][0]
        src = _net_of(nets, q, "2")
        if not _pulled_to(nets, values, g, src):
            bad.append("%s: gate not pulled up to its source %s" % (g, src))
        drivers = [r for r, _p, k in nets[g] if k == "OUTPUT"]
        for d in drivers:
            if _net_of(nets, d, "16") != src:
                bad.append("%s: driven by %s on %s, the switch's source is %s"
                           % (g, d, _net_of(nets, d, "16"), src))
            e3 = _net_of(nets, d, "6")
            on_e3 = nets[e3]
            if any(r == "U1" for r, _p, _k in on_e3):
                bad.append("%s: %s's enable comes straight from the MCU" % (g, d))
                continue
            for b, pin, k in on_e3:
                if k != "OUTPUT":
                    continue
                a_pin = {"3": "2", "6": "5", "8": "9", "11": "12"}.get(pin)
                a_net = _net_of(nets, b, a_pin) if a_pin else None
                if _net_of(nets, b, "14") != src or not a_net or \
                        not _pulled_to(nets, values, a_net, "GND"):
                    bad.append("%s: %s's enable buffer %s is not held low" % (g, d, b))
    return bad


# -- fabrication files -------------------------------------------------------------

def expand_refs(spec):
    """'C164-C165' -> ['C164', 'C165']; 'J1-J4,J6-J9' -> eight refs."""
    out = []
    for part in spec.split(","):
        m = re.match(r"([A-Z]+)(\d+)-([A-Z]+)(\d+)$", part)
        if m:
            out += ["%s%d" % (m.group(1), i) for i in range(int(m.group(2)), int(m.group(4)) + 1)]
        else:
            out.append(part)
    return out


def read_bom(path=None):
    import csv
    with open(path or os.path.join(HW, "bom.csv"), newline="") as f:
        return list(csv.DictReader(f))


def comps(path=None):
    text = read_text(path or os.path.join(HW, "netlist", "nardy-esp32s3.net"))
    return dict((r, (v, fp.split(":")[-1])) for r, v, fp in re.findall(
        r'\(comp\s*\(ref "([^"]+)"\)\s*\(value "([^"]*)"\)\s*'
        r'(?:\(description "[^"]*"\)\s*)?\(footprint "([^"]*)"\)', text))


def check_packages(netlist_path=None, bom_path=None):
    """Each part's footprint is its BOM part's package (the datasheet's, fab.PART_PACKAGE;
    for chip resistors and capacitors the size code in the description)."""
    from pcblib import fab
    parts = comps(netlist_path)
    row_of = {}
    for r in read_bom(bom_path):
        if int(r["qty"]):
            for ref in expand_refs(r["ref"]):
                row_of[ref] = r
    bad = []
    for ref, (_value, fp) in sorted(parts.items()):
        if ref == "U1" or ref.startswith("TP"):  # the DevKit's sockets; copper pads
            continue
        row = row_of.get(ref)
        if row is None:
            bad.append("%s: in no BOM row" % ref)
            continue
        mpn = row["mpn"]
        pat = fab.PART_PACKAGE.get(mpn)
        if pat is None:
            codes = [c for c in fab.SIZE_CODES if re.search(r"\b%s\b" % c, row["description"])]
            if ref.startswith(("R", "C")) and codes:
                pat = fab.SIZE_CODES[codes[0]]
        if pat is None:
            continue
        if not re.search(pat, fp):
            bad.append("%s (%s): footprint %s, the part's package is %s" % (ref, mpn, fp, pat))
    return bad


MAKERS = (("CL10", "Samsung"), ("CL21", "Samsung"), ("RC0603", "Yageo"), ("CC0603", "Yageo"),
          ("SN74", "Texas Instruments"), ("CD74", "Texas Instruments"),
          ("TPS", "Texas Instruments"), ("DRV", "Texas Instruments"),
          ("AP2112", "Diodes Inc."), ("PESD", "Nexperia"), ("MCP", "Microchip"),
          ("MF-", "Bourns"), ("B3S", "Omron"), ("B3B-XH", "JST"), ("SMF", "Littelfuse"),
          ("AO3", "Alpha & Omega"), ("EEU-", "Panasonic"))


def check_bom_rows(bom_path=None):
    """Each row: the maker that makes that part number; as many parts as references;
    one part per row; connector and cable rows consistent with what they join."""
    bad = []
    for r in read_bom(bom_path):
        mpn, maker, qty = r["mpn"], r["manufacturer"], int(r["qty"])
        for prefix, who in MAKERS:
            if mpn.startswith(prefix) and maker != who:
                bad.append("%s: %s is made by %s, not %s" % (r["ref"], mpn, who, maker))
        if qty and re.match(r"^[A-Z]+\d", r["ref"]) and not r["ref"].startswith(("M", "W")):
            n = len(expand_refs(r["ref"]))
            if n != qty:
                bad.append("%s: %d references, quantity %d" % (r["ref"], n, qty))
        if " / " in r["description"]:
            bad.append("%s: two parts in one row (%s)" % (r["ref"], r["description"]))
        if maker == "JST" and not re.match(r"^B\d+B-XH-A", mpn):
            bad.append("%s: %s is no JST XH part number" % (r["ref"], mpn))
        if "IDC" in r["description"] and "2x10" not in r["description"]:
            bad.append("%s: the ribbons are 20-way (2x10)" % r["ref"])
        if re.search(r"\d+SF$", mpn):
            bad.append("%s: %s is a spool's order code" % (r["ref"], mpn))
    return bad


def read_csv_text(text):
    import csv
    import io
    return list(csv.DictReader(io.StringIO(text)))


def check_placement(pcb_text, cpl_text):
    """Every machine-placed part in the placement file with JLCPCB's rotation for its
    package and its side; no hand-soldered part (connectors, sockets, modules) in it."""
    from pcblib import fab
    fps = footprints(pcb_text)
    rows = dict((r["Designator"], r) for r in read_csv_text(cpl_text))
    bad = []
    for ref, f in sorted(fps.items()):
        placed = not (fab.hand_soldered(f["fp"]) or re.search("|".join(fab.NOT_PLACED),
                                                                f["fp"]))
        if not placed:
            if ref in rows:
                bad.append("%s (%s): soldered by hand, but in the placement file"
                           % (ref, f["fp"]))
            continue
        if ref not in rows:
            bad.append("%s: missing from the placement file" % ref)
            continue
        bottom = f["side"] == "down"
        want = fab.jlc_rotation(f["fp"], f["rot"], bottom)
        got = float(rows[ref]["Rotation"])
        if abs((got - want + 180) % 360 - 180) > 0.05:
            bad.append("%s (%s): rotation %g, JLCPCB wants %g" % (ref, f["fp"], got, want))
        if rows[ref]["Layer"] != ("Bottom" if bottom else "Top"):
            bad.append("%s: on the wrong layer in the placement file" % ref)
    return bad


def load_all(base=None, table_path=None):
    table = boards_table(table_path)
    fps = {}
    drills = {}
    for d in layout.DESIGNS:
        path = board_file(d, base)
        if not os.path.exists(path):
            fps[d] = {}
            continue
        fps[d] = footprints(read_text(path))
        drl = os.path.join(os.path.dirname(path), "gerber", "%s-NPTH.drl" % d)
        drills[d] = drill_holes(read_text(drl)) if os.path.exists(drl) else []
    return fps, table, drills


def all_checks(base=None):
    fps, table, drills = load_all(base)
    return {"heights": check_heights(fps, table), "reach": check_reach(fps, table),
            "leds": check_leds(fps, table), "mounting": check_mounting(fps, table, drills),
            "cables": check_cables(fps, table), "depth": check_depth()}


if __name__ == "__main__":
    res = all_checks(sys.argv[1] if len(sys.argv) > 1 else None)
    for k, v in res.items():
        print("%-9s %s" % (k, "ok" if not v else "; ".join(v)))
    sys.exit(1 if any(res.values()) else 0)
