"""The circuit boards: generated from the schematic, clean by KiCad's DRC, reproducible,
sensors where the magnetic model and mechanical.svg put the slots, every net on a board.

The generator runs under the system python3 (KiCad's pcbnew module), once per session
into a temporary directory; the comparisons against the committed files in
hardware/pcb/ read text, so they run in the venv.
"""

import csv
import hashlib
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HW = os.path.join(ROOT, "hardware")
TOOLS = os.path.join(HW, "tools")
PCB = os.path.join(HW, "pcb")
KICAD_PY = "/usr/bin/python3"  # Debian's kicad installs pcbnew for the system Python
sys.path.insert(0, TOOLS)

import gen  # noqa: E402
from pcblib import fab, layout  # noqa: E402

from nardy_host import magnet  # noqa: E402

DESIGNS = ("main", "quarter", "spot", "bar")


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("pcb")
    r = subprocess.run([KICAD_PY, os.path.join(TOOLS, "pcb.py"), "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT)
    return out, r


def _files(base):
    out = {}
    for d, _dirs, files in os.walk(base):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, base)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def test_every_board_passes_kicad_drc(generated):
    out, r = generated
    assert r.returncode == 0, r.stdout + r.stderr
    summary = json.loads(r.stdout)
    assert sorted(s["board"] for s in summary) == sorted(DESIGNS)
    for s in summary:
        assert s["drc_violations"] == 0 and s["unconnected_pads"] == 0, s
    for d in DESIGNS:  # the committed reports say the same
        with open(os.path.join(PCB, d, "drc.txt")) as f:
            text = f.read()
        assert "** Found 0 DRC violations **" in text
        assert "** Found 0 unconnected pads **" in text


def test_regenerating_changes_nothing(generated):
    out, r = generated
    assert r.returncode == 0, r.stderr
    new, old = _files(str(out)), _files(PCB)
    assert sorted(new) == sorted(old)
    changed = [k for k in new if new[k] != old[k]]
    assert not changed, "run /usr/bin/python3 hardware/tools/pcb.py: %s" % changed


def test_drc_sees_a_short(tmp_path):
    # The check is real: a track joining two nets of the spot board must be reported.
    src = os.path.join(PCB, "spot", "spot.kicad_pcb")
    code = (
        "import sys, pcbnew; sys.path.insert(0, %r)\n"
        "import pcb\n"
        "b = pcbnew.LoadBoard(%r)\n"
        "pads = [p for p in b.GetPads() if p.GetParent().GetReference().startswith('H')]\n"
        "t = pcbnew.PCB_TRACK(b); t.SetLayer(pcbnew.F_Cu); t.SetWidth(pcbnew.FromMM(0.25))\n"
        "t.SetStart(pads[0].GetPosition()); t.SetEnd(pads[1].GetPosition())\n"
        "t.SetNet(pads[0].GetNet()); b.Add(t)\n"
        "print('drc', *pcb.drc(b, %r)[:2])\n" % (TOOLS, src, str(tmp_path / "drc.txt")))
    r = subprocess.run([KICAD_PY, "-c", code], capture_output=True, text=True)
    m = re.search(r"drc (\d+) (\d+)", r.stdout)
    assert m, r.stdout + r.stderr
    assert int(m.group(1)) > 0


def test_bad_arguments_give_one_clean_error():
    r = subprocess.run([KICAD_PY, os.path.join(TOOLS, "pcb.py"), "--board", "nope"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "unknown board" in r.stderr


# -- what is on the boards ----------------------------------------------------------------

def footprints(design):
    """ref -> (x, y, rotation, {pad: net}) parsed from the committed .kicad_pcb."""
    with open(os.path.join(PCB, design, design + ".kicad_pcb")) as f:
        text = f.read()
    out = {}
    for block in text.split("\n  (footprint ")[1:]:
        at = re.search(r"\n    \(at ([-\d.]+) ([-\d.]+)(?: ([-\d.]+))?\)", block)
        ref = re.search(r'\(fp_text reference "([^"]+)"', block).group(1)
        pads = {}
        for chunk in block.split('(pad "')[1:]:
            net = re.search(r'\(net \d+ "([^"]*)"\)', chunk)
            if net:
                pads[chunk.split('"', 1)[0]] = net.group(1)
        out[ref] = (float(at.group(1)), float(at.group(2)), float(at.group(3) or 0), pads)
    return out


def footprint_names(design):
    """ref -> footprint name (library item) from the committed .kicad_pcb."""
    with open(os.path.join(PCB, design, design + ".kicad_pcb")) as f:
        text = f.read()
    out = {}
    for block in text.split("\n  (footprint ")[1:]:
        ref = re.search(r'\(fp_text reference "([^"]+)"', block).group(1)
        out[ref] = block.split('"')[1].split(":")[-1]
    return out


def netlist():
    with open(os.path.join(HW, "netlist", "nardy-esp32s3.net")) as f:
        text = f.read()
    nets = {}
    for block in re.split(r"\(net\s*\(code", text)[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block).group(1)
        nets[name] = re.findall(r'\(ref "([^"]+)"\)\s*\(pin "([^"]+)"\)', block)
    values = dict(re.findall(r'\(comp\s*\(ref "([^"]+)"\)\s*\(value "([^"]*)"\)', text))
    return nets, values


def boards():
    with open(os.path.join(HW, "netlist", "nardy-esp32s3.boards.json")) as f:
        return json.load(f)


def design_ref(table, ref):
    """The part of the design board that stands for `ref` (same role, design instance)."""
    inst, design, role = table[ref]
    want = layout.DESIGN_INSTANCE[design]
    for r, (i, _d, ro) in table.items():
        if i == want and ro == role:
            return design, r
    raise AssertionError("no %s part with role %s" % (design, role))


def test_every_schematic_net_is_on_a_board():
    nets, _values = netlist()
    table = boards()
    fps = dict((d, footprints(d)) for d in DESIGNS)
    for name, nodes in nets.items():
        assert nodes, name
        by_instance = {}
        for ref, pin in nodes:
            assert ref in table, "%s (net %s) is on no board" % (ref, name)
            design, dref = design_ref(table, ref)
            x, y, rot, pads = fps[design][dref]
            assert pin in pads, (name, ref, pin)
            by_instance.setdefault(table[ref][0], set()).add(pads[pin])
        for inst, names in by_instance.items():
            # Every pin of this net on one board is on one copper net there.
            assert len(names) == 1, (name, inst, names)
    # And the reverse: each design board holds exactly its instance's parts (and its
    # mounting holes, which are no part of the schematic).
    for d in DESIGNS:
        refs = sorted(r for r, v in table.items() if v[0] == layout.DESIGN_INSTANCE[d])
        assert sorted(r for r in fps[d] if not r.startswith("MH")) == refs


def test_cross_board_nets_leave_through_connectors():
    nets, _values = netlist()
    table = boards()
    for name, nodes in nets.items():
        insts = set(table[r][0] for r, _ in nodes)
        if len(insts) < 2:
            continue
        for inst in insts:
            refs = [r for r, _ in nodes if table[r][0] == inst]
            assert any(r.startswith("J") for r in refs), (name, inst)


def _field_points(mech):
    """Slot marks of mechanical.svg's top view (P1..P6, then bar and tray), in mm."""
    with open(os.path.join(HW, "mechanical.svg")) as f:
        text = f.read()
    pts = [(float(a), float(b)) for a, b in re.findall(
        r'<circle cx="([\d.]+)" cy="([\d.]+)" r="2.5" fill="#c00"', text)]
    return [gen.mech_mm(mech, x, y) for x, y in pts]


def test_sensors_sit_at_the_slot_centres():
    model = magnet.MagnetModel()
    _nets, values = netlist()
    table = boards()
    fps = dict((d, footprints(d)) for d in DESIGNS)
    seen = 0
    for ref, (inst, design, _role) in sorted(table.items()):
        if not ref.startswith("H"):
            continue
        label = values[ref].split(" ")[1]
        loc, slot = label.rsplit(".", 1)
        want = model.slot_xy(int(loc[1:]) if loc.startswith("P") else loc, int(slot))
        _d, dref = design_ref(table, ref)
        x, y, rot, _pads = fps[design][dref]
        if design == "quarter":
            q = int(inst[len("quarter"):])
            got = layout.quarter_to_field(x, y, q)
            assert abs(got[0] - want[0]) < 1e-6 and abs(got[1] - want[1]) < 1e-6, (ref, label)
        else:  # a spot board is mounted with its sensor on the slot mark
            assert (x, y) == layout.SPOT_SENSOR, ref
        seen += 1
    assert seen == 128
    # The drawing: its 30 slot marks of P1..P6 are the quarter board's sensors.
    marks = _field_points(model)[:30]
    board = sorted(layout.quarter_to_field(v[0], v[1], 0)
                   for r, v in fps["quarter"].items() if r.startswith("H"))
    assert len(board) == 30
    for (mx, my), (bx, by) in zip(sorted(marks), board):
        assert abs(mx - bx) < 0.07 and abs(my - by) < 0.07, ((mx, my), (bx, by))


def test_fabrication_files_are_complete():
    for d in DESIGNS:
        g = os.path.join(PCB, d, "gerber")
        names = sorted(os.listdir(g))
        for layer in ("F_Cu", "In1_Cu", "In2_Cu", "B_Cu", "F_Mask", "B_Mask", "F_Paste",
                      "Edge_Cuts"):
            assert any(layer in n for n in names), (d, layer)
        assert any(n.endswith("PTH.drl") for n in names), d
        fps = footprints(d)
        kinds = dict((r, n) for r, n in footprint_names(d).items())
        machine = sorted(r for r in fps if not fab.hand_soldered(kinds[r])
                         and not r.startswith(("MH", "TP")))
        with open(os.path.join(PCB, d, "cpl.csv"), newline="") as f:
            cpl = list(csv.DictReader(f))
        assert sorted(r["Designator"] for r in cpl) == machine
        with open(os.path.join(PCB, d, "bom.csv"), newline="") as f:
            bom = list(csv.DictReader(f))
        placed = sorted(x for r in bom for x in r["Designator"].split(","))
        assert placed == machine
        assert list(bom[0])[:4] == ["Comment", "Designator", "Footprint", "LCSC Part #"]
        for side in ("top", "bottom"):
            with open(os.path.join(PCB, d, side + ".png"), "rb") as f:
                assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_every_placed_semiconductor_has_an_lcsc_number():
    """The service matches a BOM row to its catalogue by the LCSC number: every
    integrated circuit, sensor, transistor, diode, LED and fuse it places has one (a
    passive may be left to the service's basic library), and the number is an LCSC
    code."""
    missing = []
    for d in DESIGNS:
        with open(os.path.join(PCB, d, "bom.csv"), newline="") as f:
            for row in csv.DictReader(f):
                refs = row["Designator"].split(",")
                lcsc = row["LCSC Part #"]
                assert lcsc == "" or re.match(r"^C\d+$", lcsc), (d, row)
                if refs[0].startswith(("U", "Q", "D", "H", "F")) and not lcsc:
                    missing.append((d, row["Comment"], refs[0]))
    assert missing == []


def test_readme_shows_the_renders_and_the_cost():
    with open(os.path.join(HW, "README.md")) as f:
        text = f.read()
    for d in DESIGNS:
        assert "(pcb/%s/top.png)" % d in text and "(pcb/%s/bottom.png)" % d in text
    assert re.search(r"board set.*\*\*USD [0-9.]+\*\*", text)


# -- the schematic fixes ----------------------------------------------------------------

def _farads(v):
    m = re.match(r"([\d.]+)([pnu])", v)
    return float(m.group(1)) * {"p": 1e-12, "n": 1e-9, "u": 1e-6}[m.group(2)]


def _caps_between(nets, values, a, b="GND"):
    on_b = set(r for r, _ in nets[b])
    return [r for r, _ in nets[a] if r.startswith("C") and r in on_b]


def test_schematic_fixes():
    nets, values = netlist()
    table = boards()

    def net_of(ref, pin):
        return [n for n, nodes in nets.items() if (ref, pin) in nodes][0]

    # AP2112K: a local capacitor on its input and its output, on its own board.
    for pin in ("1", "5"):
        caps = _caps_between(nets, values, net_of("U2", pin))
        assert any(table[c][0] == "main" and _farads(values[c]) >= 1e-6 for c in caps), pin
    # U18 and U19: a bypass capacitor on their supply.
    for ref, pin in (("U18", "16"), ("U19", "5"), ("U4", "16")):
        caps = _caps_between(nets, values, net_of(ref, pin))
        assert any(table[c][0] == "main" and abs(_farads(values[c]) - 100e-9) < 1e-12
                   for c in caps), ref
    # LED_DATA pulled down.
    on_gnd = set(r for r, _ in nets["GND"])
    assert any(r.startswith("R") and r in on_gnd for r, _ in nets["LED_DATA"])
    # Soft start: at most 10 uF on the USB-C VBUS, the reservoir behind the switch.
    vbus = sum(_farads(values[c]) for c in _caps_between(nets, values, "5V_IN"))
    assert 0 < vbus <= 10e-6
    assert ("U3", "4") in nets["5V_IN"] and ("U3", "5") in nets["5V_SW"]  # eFuse IN, OUT
    assert net_of("C157", "1") != "5V_IN"
    # Ground returns: the ribbon carries several ground wires and no analog output
    # runs beside a non-ground wire.
    import hwlib
    rib = hwlib.RIBBON
    assert rib.count("GND") >= 5 and rib.count("GND_LED") == 1
    for i, sig in enumerate(rib):
        if sig.startswith("OUT_"):
            assert rib[i - 1] == "GND" and rib[i + 1] == "GND", sig
    # The SPI lines reach the MCP3208 through series resistors only, and no MCU pin
    # touches it (the buffers in between are rated for a powered-down supply).
    for pin in ("10", "11", "12", "13"):
        refs = [r for r, _ in nets[net_of("U4", pin)]]
        assert "U1" not in refs and any(values[r] == "1k" for r in refs), pin
    # ESD at every button and on every analog ribbon line.
    for key in ("OK", "BACK", "MENU"):
        assert any(values[r] == "PESD3V3L1BA" for r, _ in nets["BTN_" + key])
    for m in range(8):
        assert any(values[r] == "PESD3V3S2UT" for r, _ in nets["MUX_OUT%d" % m])
