"""Cost estimate of one board set at typical prototype-service prices.

An estimate, not a quote: the model below is a simple linear fit of what the common
low-cost services (JLCPCB-style) charged for small 4-layer orders and economic SMT
assembly in 2024-2025; every figure is a named constant so the README states it.
Runs under any Python (no pcbnew): the part and joint counts come from the netlist
and the part -> board table.
"""

import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(os.path.dirname(HERE))

MIN_ORDER = 5  # boards per design a service makes at least
PCB_SETUP_USD = 8.0  # per design: engineering fee of a 4-layer order
PCB_USD_PER_CM2 = 0.045  # 4 layers, 1.6 mm FR-4, HASL, green mask
ASM_SETUP_USD = 8.0  # per design: assembly setup
STENCIL_USD = 7.0  # per design
ASM_USD_PER_JOINT = 0.0017
EXTENDED_PART_FEE_USD = 3.0  # per distinct part outside the service's basic library
EXTENDED = {"CD74HC4067M96", "MCP3208-CI/SL", "TPS259621DDAR", "DRV5055", "WS2812B",
            "PESD3V3S2UT", "PESD3V3L1BA", "SMF6.0A", "MF-MSMF050-2", "SN74LV1T125DBVR",
            "SN74LVC125ADR"}
HAND_FITTED = ("U1", "DS1", "J", "C157")  # sockets, headers, connectors, the radial cap
SHIPPING_USD = 20.0  # one parcel for the whole set


def _counts(design_instance, design=None):
    with open(os.path.join(HW, "netlist", "nardy-esp32s3.boards.json")) as f:
        boards = json.load(f)
    with open(os.path.join(HW, "netlist", "nardy-esp32s3.net")) as f:
        text = f.read()
    refs = [r for r, v in boards.items() if v[0] == design_instance]
    values = dict(re.findall(r'\(comp\s*\(ref "([^"]+)"\)\s*\(value "([^"]*)"\)', text))
    pins = {}
    for ref in re.findall(r'\(node\s*\(ref "([^"]+)"\)', text):
        pins[ref] = pins.get(ref, 0) + 1
    smt = [r for r in refs if not r.startswith(HAND_FITTED) and not r.startswith("TP")]
    joints = sum(pins.get(r, 0) for r in smt)
    kinds = set(values[r].split(" ")[0] for r in smt)
    sides = 1
    if design is not None:
        import sys
        sys.path.insert(0, os.path.dirname(HERE))
        import assembly
        faces = set(assembly.up_face(design, r if design == "main" else boards[r][2])
                    for r in smt)
        sides = len(faces)
    return len(smt), joints, len(kinds & EXTENDED), sides


def estimate(sizes, copies, instances):
    """sizes: design -> (w, h) mm; copies: design -> boards per set; instances:
    design -> the board instance whose parts define it. Returns rows and the total."""
    rows = []
    total = 0.0
    for design in sorted(sizes):
        w, h = sizes[design]
        n = copies[design]
        order = max(n, MIN_ORDER)
        pcb = PCB_SETUP_USD + order * (w * h / 100.0) * PCB_USD_PER_CM2
        parts, joints, extended, sides = _counts(instances[design], design)
        asm = sides * (ASM_SETUP_USD + STENCIL_USD) + n * joints * ASM_USD_PER_JOINT \
            + extended * EXTENDED_PART_FEE_USD
        rows.append({"board": design, "size_mm": "%g x %g" % (w, h), "per_set": n,
                     "ordered": order, "pcb_usd": round(pcb, 2),
                     "smt_parts_each": parts, "joints_each": joints,
                     "assembly_usd": round(asm, 2)})
        total += pcb + asm
    total += SHIPPING_USD
    return rows, round(total, 2)


def markdown(sizes, copies, instances):
    rows, total = estimate(sizes, copies, instances)
    out = ["| board | size mm | per set | ordered | PCBs USD | SMT parts each | joints each"
           " | assembly USD |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append("| %s | %s | %d | %d | %.2f | %d | %d | %.2f |" % (
            r["board"], r["size_mm"], r["per_set"], r["ordered"], r["pcb_usd"],
            r["smt_parts_each"], r["joints_each"], r["assembly_usd"]))
    out += ["", "Estimated total for one board set, PCBs and assembly labour, shipping"
            " included, parts excluded (see the BOM): **USD %.2f**." % total, "",
            "Assumptions: 4-layer FR-4 1.6 mm, HASL; USD %.1f setup + %.3f per cm2 per"
            " board, at least %d boards per design; SMT assembly on both sides where a"
            " board has parts on both: USD %.0f setup + %.0f stencil per side and design,"
            " %.4f per joint, %.0f per distinct"
            " extended-library part; sockets, headers, connectors, the DevKit, the OLED"
            " and the radial capacitor soldered by hand; USD %.0f shipping."
            % (PCB_SETUP_USD, PCB_USD_PER_CM2, MIN_ORDER,
                                              ASM_SETUP_USD, STENCIL_USD, ASM_USD_PER_JOINT,
                                              EXTENDED_PART_FEE_USD, SHIPPING_USD)]
    return "\n".join(out)
