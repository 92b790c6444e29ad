"""Generate every PCB and its fabrication files from the schematic's netlist.

    /usr/bin/python3 hardware/tools/pcb.py [--out DIR] [--board NAME] [--no-fab]

Runs under KiCad 6's Python (the `pcbnew` module of Debian's kicad package; not the
project's venv). Reads hardware/netlist/nardy-esp32s3.net and the part -> board table
beside it (both written by hardware/tools/schematic.py through gen.py), places every
part from hardware/tools/pcblib/layout.py, routes with hardware/tools/pcblib/route.py,
pours the inner ground planes, runs KiCad's DRC and writes, per board design, into
DIR/<board>/ (default hardware/pcb/): the .kicad_pcb, the DRC report, Gerbers and
drill files (with each board's mounting holes), bom.csv and cpl.csv (JLCPCB columns and
rotations, tools/pcblib/fab.py), hand.csv (the parts soldered by hand), top.png and
bottom.png. Parts that do not face the top board (tools/assembly.py) are on the back.
Prints a JSON summary (DRC violations and unconnected pads per board) and exits 1 if any
board has either.

Deterministic: fixed UUIDs, no timestamps (Gerber and drill dates are stripped), so
regenerating changes nothing.
"""

import json
import os
import re
import sys

import pcbnew

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import assembly  # noqa: E402
from pcblib import fab, layout, render, route  # noqa: E402

FP_DIR = "/usr/share/kicad/footprints"
NETLIST = os.path.join(HW, "netlist", "nardy-esp32s3.net")
BOARDS_JSON = os.path.join(HW, "netlist", "nardy-esp32s3.boards.json")
DESIGNS = layout.DESIGNS
DESIGN_INSTANCE = layout.DESIGN_INSTANCE
DESIGN_COUNT = layout.DESIGN_COUNT
PLANES = ("GND",)  # the inner planes' net; a board without GND (the bar-LED board) uses
PLANE_FALLBACK = "GND_LED"  # its LEDs' return there
# Silkscreen overlapping silkscreen or pads is cosmetic (the Gerbers subtract the mask
# openings from the silk): those two checks are off; every electrical and mechanical
# check stays at KiCad's default severity.
PROJECT = """{
  "board": {
    "design_settings": {
      "rule_severities": {
        "silk_over_copper": "ignore",
        "silk_overlap": "ignore"
      }
    }
  },
  "meta": {
    "filename": "%s.kicad_pro",
    "version": 1
  }
}
"""


def mm(v):
    return pcbnew.FromMM(v)


def to_mm(v):
    return v / 1e6


# -- netlist --------------------------------------------------------------------------

def parse_netlist(path):
    """(components {ref: (value, footprint)}, nets {name: [(ref, pin)]})."""
    with open(path) as f:
        text = f.read()
    comps = {}
    for m in re.finditer(r'\(comp\s*\(ref "([^"]+)"\)\s*\(value "([^"]*)"\)\s*'
                         r'(?:\(description "[^"]*"\)\s*)?\(footprint "([^"]*)"\)', text):
        comps[m.group(1)] = (m.group(2), m.group(3))
    nets = {}
    for block in re.split(r"\(net\s*\(code", text)[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block).group(1)
        nets[name] = re.findall(r'\(ref "([^"]+)"\)\s*\(pin "([^"]+)"\)', block)
    return comps, nets


def design_parts(design, comps, nets, boards):
    """refs on the design board, role of each, and {net: [(ref, pin)]} on it."""
    inst = DESIGN_INSTANCE[design]
    refs = sorted(r for r, v in boards.items() if v[0] == inst)
    on = set(refs)
    bnets = {}
    for name, nodes in sorted(nets.items()):
        mine = [(r, p) for r, p in nodes if r in on]
        if mine:
            bnets[name] = mine
    return refs, dict((r, boards[r][2]) for r in refs), bnets


# -- footprints -----------------------------------------------------------------------

def devkit_footprint():
    """ESP32-S3-DevKitC-1 on two 1x22 female headers, 25.4 mm apart, origin centred."""
    fp = pcbnew.FOOTPRINT(None)
    fp.SetFPID(pcbnew.LIB_ID("nardy", "DevKitC-1_socket"))
    pitch = 2.54
    for row, x in ((0, -12.7), (1, 12.7)):
        for i in range(22):
            pad = pcbnew.PAD(fp)
            pad.SetNumber(str(row * 22 + i + 1))
            pad.SetShape(pcbnew.PAD_SHAPE_RECT if i == 0 else pcbnew.PAD_SHAPE_CIRCLE)
            pad.SetAttribute(pcbnew.PAD_ATTRIB_PTH)
            pad.SetLayerSet(pad.PTHMask())
            pad.SetSize(pcbnew.wxSizeMM(1.7, 1.7))
            pad.SetDrillSize(pcbnew.wxSizeMM(1.0, 1.0))
            pad.SetPos0(pcbnew.wxPointMM(x, -26.67 + i * pitch))
            pad.SetPosition(pcbnew.wxPointMM(x, -26.67 + i * pitch))
            fp.Add(pad)
    for x0, x1, y0, y1 in ((-14.0, -11.4, -28.0, 28.0), (11.4, 14.0, -28.0, 28.0)):
        for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)),
                     ((x0, y1), (x0, y0))):
            for layer, w in ((pcbnew.F_CrtYd, 0.05), (pcbnew.F_SilkS, 0.12)):
                seg = pcbnew.FP_SHAPE(fp)
                seg.SetShape(pcbnew.SHAPE_T_SEGMENT)
                seg.SetLayer(layer)
                seg.SetWidth(mm(w))
                seg.SetStart0(pcbnew.wxPointMM(*a))
                seg.SetEnd0(pcbnew.wxPointMM(*b))
                fp.Add(seg)
    fp.SetReference("U1")
    return fp


def load_footprint(name):
    if name.startswith("nardy:"):
        return devkit_footprint()
    lib, item = name.split(":")
    fp = pcbnew.FootprintLoad(os.path.join(FP_DIR, lib + ".pretty"), item)
    if fp is None:
        raise ValueError("footprint %s not found" % name)
    return fp


# -- board ----------------------------------------------------------------------------

def new_board(size):
    b = pcbnew.BOARD()
    b.SetCopperLayerCount(4)
    ds = b.GetDesignSettings()
    ds.SetCopperLayerCount(4)
    ds.m_MinClearance = mm(route.CLEAR)
    ds.m_TrackMinWidth = mm(0.2)
    ds.m_ViasMinSize = mm(0.5)
    ds.m_MinThroughDrill = mm(0.3)
    ds.m_HoleToHoleMin = mm(0.25)
    ds.m_CopperEdgeClearance = mm(route.EDGE)
    nc = b.GetNetClasses().GetDefault()
    nc.SetClearance(mm(route.CLEAR))
    nc.SetTrackWidth(mm(route.TRACK))
    nc.SetViaDiameter(mm(route.VIA_D))
    nc.SetViaDrill(mm(route.VIA_DRILL))
    w, h = size
    pts = ((0, 0), (w, 0), (w, h), (0, h))
    for i in range(4):
        s = pcbnew.PCB_SHAPE(b)
        s.SetShape(pcbnew.SHAPE_T_SEGMENT)
        s.SetLayer(pcbnew.Edge_Cuts)
        s.SetWidth(mm(0.1))
        s.SetStart(pcbnew.wxPointMM(*pts[i]))
        s.SetEnd(pcbnew.wxPointMM(*pts[(i + 1) % 4]))
        b.Add(s)
    return b


def place(board, comps, refs, roles, places, bnets, design):
    """Add every footprint at its place with its pads on their nets; parts that do
    not face the top board (assembly.up_face) go to the back (down) face."""
    codes = {}
    for i, name in enumerate(sorted(bnets)):
        ni = pcbnew.NETINFO_ITEM(board, name, i + 1)
        board.Add(ni)
        codes[name] = ni
    pin_net = {}
    for name, nodes in bnets.items():
        for r, p in nodes:
            pin_net[(r, p)] = name
    fps = {}
    for ref in refs:
        value, fpname = comps[ref]
        fp = load_footprint(fpname)
        x, y, rot = places[roles[ref]] if roles[ref] in places else places[ref]
        if not ref.startswith("H"):  # sensors sit exactly at their slot centres
            x, y = (round(v / route.GRID) * route.GRID for v in (x, y))
        fp.SetReference(ref)
        fp.SetValue(value)
        fp.Reference().SetVisible(False)
        fp.Value().SetVisible(False)
        fp.SetPosition(pcbnew.wxPointMM(x, y))
        fp.SetOrientationDegrees(rot)
        board.Add(fp)
        if not assembly.up_face(design, ref if design == "main" else roles[ref]):
            fp.Flip(fp.GetPosition(), False)
        for pad in fp.Pads():
            net = pin_net.get((ref, pad.GetNumber()))
            if net:
                pad.SetNet(codes[net])
        fps[ref] = fp
    for i, (x, y) in enumerate(layout.holes(design)):
        fp = load_footprint("MountingHole:MountingHole_3.2mm_M3")
        fp.SetReference("MH%d" % (i + 1))
        fp.SetValue("M3")
        fp.Reference().SetVisible(False)
        fp.Value().SetVisible(False)
        fp.SetPosition(pcbnew.wxPointMM(x, y))
        board.Add(fp)
    return fps, codes


def router_pads(board):
    pads = []
    by_net = {}
    for pad in board.GetPads():
        bb = pad.GetBoundingBox()
        box = (to_mm(bb.GetX()), to_mm(bb.GetY()), to_mm(bb.GetRight()), to_mm(bb.GetBottom()))
        layers = tuple(i for i, lay in enumerate((pcbnew.F_Cu, pcbnew.B_Cu))
                       if pad.IsOnLayer(lay))
        hole = to_mm(pad.GetDrillSize().x) / 2.0 if pad.GetAttribute() == pcbnew.PAD_ATTRIB_PTH \
            or pad.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH else 0.0
        pos = pad.GetPosition()
        net = pad.GetNetCode() if pad.GetNetCode() > 0 else -3 - len(pads)
        rp = route.Pad(net, layers, box, hole, (to_mm(pos.x), to_mm(pos.y)))
        pads.append(rp)
        if pad.GetNetCode() > 0:
            by_net.setdefault(pad.GetNetCode(), []).append(rp)
    return pads, by_net


def route_board(board, size, codes):
    """Route every net; when one fails, start again with that net first (a few
    rounds): a simple rip-up-all that is enough for these regular boards."""
    pads, by_net = router_pads(board)
    plane_codes = [codes[plane_net(codes)].GetNetCode()]
    nets = dict((ni.GetNetCode(), ni) for ni in codes.values())

    def span(code):
        ps = by_net[code]
        xs = [p.centre[0] for p in ps]
        ys = [p.centre[1] for p in ps]
        return (code not in plane_codes, max(xs) - min(xs) + max(ys) - min(ys), code)

    order = [c for c in sorted(by_net, key=span) if len(by_net[c]) > 1 or c in plane_codes]
    first = []
    for _attempt in range(12):
        r = route.Router(size[0], size[1], pads, planes=plane_codes)
        seq = [c for c in plane_codes if c in order] + first + [
            c for c in order if c not in first and c not in plane_codes]
        failed = None
        for code in seq:
            try:
                r.route_net(code, by_net[code])
            except route.RouteError as e:
                failed = (code, e)
                break
        if failed is None:
            break
        if failed[0] in plane_codes:
            raise route.RouteError("%s (%s)" % (failed[1], nets[failed[0]].GetNetname()))
        sys.stderr.write("pcb.py: %s failed, routing it first\n" % nets[failed[0]].GetNetname())
        first = [failed[0]] + [c for c in first if c != failed[0]]
    else:
        raise route.RouteError("%s (%s)" % (failed[1], nets[failed[0]].GetNetname()))
    layer_ids = (pcbnew.F_Cu, pcbnew.B_Cu)
    for layer, code, a, b in r.tracks:
        t = pcbnew.PCB_TRACK(board)
        t.SetStart(pcbnew.wxPointMM(*a))
        t.SetEnd(pcbnew.wxPointMM(*b))
        t.SetWidth(mm(route.TRACK))
        t.SetLayer(layer_ids[layer])
        t.SetNet(nets[code])
        board.Add(t)
    seen = set()
    for code, xy in r.vias:
        key = (code, round(xy[0], 4), round(xy[1], 4))
        if key in seen:  # two pads of one net fanned out to the same ground via
            continue
        seen.add(key)
        v = pcbnew.PCB_VIA(board)
        v.SetPosition(pcbnew.wxPointMM(*xy))
        v.SetWidth(mm(route.VIA_D))
        v.SetDrill(mm(route.VIA_DRILL))
        v.SetLayerPair(pcbnew.F_Cu, pcbnew.B_Cu)
        v.SetNet(nets[code])
        board.Add(v)
    return r


def plane_net(codes):
    return PLANES[0] if PLANES[0] in codes else PLANE_FALLBACK


def add_planes(board, size, codes):
    w, h = size
    for layer in (pcbnew.In1_Cu, pcbnew.In2_Cu):
        z = pcbnew.ZONE(board)
        z.SetLayer(layer)
        z.SetNet(codes[plane_net(codes)])
        z.SetLocalClearance(mm(0.3))
        z.SetMinThickness(mm(0.25))
        z.SetPadConnection(pcbnew.ZONE_CONNECTION_THERMAL)
        ol = z.Outline()
        ol.NewOutline()
        for x, y in ((0.6, 0.6), (w - 0.6, 0.6), (w - 0.6, h - 0.6), (0.6, h - 0.6)):
            ol.Append(mm(x), mm(y))
        board.Add(z)


# -- DRC, files -----------------------------------------------------------------------

def drc(board, path):
    pcbnew.WriteDRCReport(board, path, pcbnew.EDA_UNITS_MILLIMETRES, True)
    with open(path) as f:
        text = f.read()
    viol = re.search(r"\*\* Found (\d+) DRC violations \*\*", text)
    unconn = re.search(r"\*\* Found (\d+) unconnected pads \*\*", text)
    return int(viol.group(1)), int(unconn.group(1)), text


def _strip_report(text):
    """No date and no output directory in the committed report."""
    text = re.sub(r"\*\* Created on [^*]*\*\*", "** Created on (date stripped) **", text)
    return re.sub(r"\*\* Drc report for .*?([^/]+\.kicad_pcb) \*\*", r"** Drc report for \1 **",
                  text)


def _fix_uuids(path):
    """KiCad writes a random UUID per item: number them in file order instead."""
    with open(path) as f:
        text = f.read()
    counter = [0]

    def repl(m):
        counter[0] += 1
        return "%s%08x-0000-4000-8000-%012x)" % (m.group(1), counter[0], counter[0])

    text = re.sub(r"(\((?:tstamp|uuid) )[0-9a-f-]{36}\)", repl, text)
    with open(path, "w") as f:
        f.write(text)


def _strip_dates(path):
    with open(path) as f:
        lines = f.read().splitlines(True)
    keep = [ln for ln in lines if not re.match(
        r"(%TF\.CreationDate|G04 Created by KiCad.*date|; DRILL file .* date|"
        r"; FORMAT=.*date|G04 #@! TF\.CreationDate|; #@! TF\.CreationDate)", ln)]
    keep = [re.sub(r" date \d.*$", "", ln) if ln.startswith(("G04", ";")) else ln
            for ln in keep]
    with open(path, "w") as f:
        f.write("".join(keep))


GERBER_LAYERS = (("F_Cu", pcbnew.F_Cu), ("In1_Cu", pcbnew.In1_Cu), ("In2_Cu", pcbnew.In2_Cu),
                 ("B_Cu", pcbnew.B_Cu), ("F_Mask", pcbnew.F_Mask), ("B_Mask", pcbnew.B_Mask),
                 ("F_Silkscreen", pcbnew.F_SilkS), ("B_Silkscreen", pcbnew.B_SilkS),
                 ("F_Paste", pcbnew.F_Paste), ("Edge_Cuts", pcbnew.Edge_Cuts))


def plot_gerbers(board, outdir, name):
    gdir = os.path.join(outdir, "gerber")
    os.makedirs(gdir, exist_ok=True)
    pc = pcbnew.PLOT_CONTROLLER(board)
    po = pc.GetPlotOptions()
    po.SetOutputDirectory(gdir)
    po.SetPlotFrameRef(False)
    po.SetUseGerberProtelExtensions(True)
    po.SetUseGerberX2format(True)
    po.SetIncludeGerberNetlistInfo(False)
    po.SetCreateGerberJobFile(False)
    po.SetSubtractMaskFromSilk(True)
    po.SetUseAuxOrigin(False)
    for suffix, layer in GERBER_LAYERS:
        pc.SetLayer(layer)
        pc.OpenPlotfile(suffix, pcbnew.PLOT_FORMAT_GERBER, suffix)
        pc.PlotLayer()
    pc.ClosePlot()
    w = pcbnew.EXCELLON_WRITER(board)
    w.SetOptions(False, False, pcbnew.wxPoint(0, 0), False)
    w.SetFormat(True)
    w.CreateDrillandMapFilesSet(gdir, True, False)
    for f in sorted(os.listdir(gdir)):
        _strip_dates(os.path.join(gdir, f))


def _pads_centre(fp):
    """The centre of a part's pads (mm, KiCad's y down): where the assembly service
    centres the part, on either side (pcblib/fab.py); the footprint origin when the
    part has no pads."""
    pads = list(fp.Pads())
    if not pads:
        return to_mm(fp.GetPosition().x), to_mm(fp.GetPosition().y)
    box = pads[0].GetBoundingBox()
    for pad in pads[1:]:
        box.Merge(pad.GetBoundingBox())
    c = box.GetCenter()
    return to_mm(c.x), to_mm(c.y)


def write_bom_cpl(fps, outdir, design):
    parts = []
    for ref, fp in sorted(fps.items()):
        if ref.startswith("MH"):
            continue  # mounting holes: drilled, not placed
        x, y = _pads_centre(fp)
        parts.append((ref, fp.GetValue(), str(fp.GetFPID().GetLibItemName()), x, -y,
                      fp.GetOrientationDegrees(), fp.IsFlipped()))
    files = fab.bom_cpl_text(parts)
    for name, text in files.items():
        with open(os.path.join(outdir, name), "w") as f:
            f.write(text)


# -- driver ---------------------------------------------------------------------------

def sizes():
    return layout.sizes()


def places_for(design, refs, roles):
    if design == "main":
        return layout.main_places(refs)
    if design == "quarter":
        return layout.quarter_places(roles.values())
    if design == "bar":
        return layout.bar_places(roles.values())
    return layout.spot_places(roles.values())


def build(design, outdir, fab=True):
    pcbnew.KIID.SeedGenerator(1)
    comps, nets = parse_netlist(NETLIST)
    with open(BOARDS_JSON) as f:
        boards = json.load(f)
    refs, roles, bnets = design_parts(design, comps, nets, boards)
    size = sizes()[design]
    board = new_board(size)
    fps, codes = place(board, comps, refs, roles, places_for(design, refs, roles), bnets,
                       design)
    route_board(board, size, codes)
    add_planes(board, size, codes)
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, design + ".kicad_pcb")
    board.Save(path)
    with open(os.path.join(outdir, design + ".kicad_pro"), "w") as f:
        f.write(PROJECT % design)
    # A board loaded from its file has the project context (the zone filler needs it;
    # the DRC takes its severities from the project file written just above).
    board = pcbnew.LoadBoard(path)
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    board.Save(path)
    _fix_uuids(path)
    for name in os.listdir(outdir):
        if name.endswith(".kicad_prl"):
            os.remove(os.path.join(outdir, name))
    fps = dict((fp.GetReference(), fp) for fp in board.GetFootprints())
    report = os.path.join(outdir, "drc.txt")
    viol, unconn, text = drc(board, report)
    with open(report, "w") as f:
        f.write(_strip_report(text))
    if fab:
        plot_gerbers(board, outdir, design)
        write_bom_cpl(fps, outdir, design)
        render.render(board, size, outdir)
    return {"board": design, "size_mm": list(size), "parts": len(refs),
            "nets": len(bnets), "drc_violations": viol, "unconnected_pads": unconn,
            "copies": DESIGN_COUNT[design]}


def main(argv):
    out = os.path.join(HW, "pcb")
    only = None
    fab = True
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--out" and args:
            out = args.pop(0)
        elif a == "--board" and args:
            only = args.pop(0)
        elif a == "--no-fab":
            fab = False
        else:
            sys.stderr.write("usage: pcb.py [--out DIR] [--board main|quarter|spot|bar] "
                             "[--no-fab]\n")
            return 2
    if only and only not in DESIGNS:
        sys.stderr.write("pcb.py: unknown board %r (main, quarter, spot, bar)\n" % only)
        return 2
    summary = []
    for design in DESIGNS:
        if only and design != only:
            continue
        try:
            summary.append(build(design, os.path.join(out, design), fab))
        except route.RouteError as e:
            sys.stderr.write("pcb.py: %s: routing failed: %s\n" % (design, e))
            return 1
    print(json.dumps(summary, indent=1, sort_keys=True))
    bad = [s for s in summary if s["drc_violations"] or s["unconnected_pads"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
