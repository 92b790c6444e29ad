"""Fabrication tables for the assembly service (JLCPCB): part numbers, packages,
placement rotations, which parts are soldered by hand. Plain Python (no pcbnew), so
the tests read the same tables the generator uses.

Rotation offsets: JLCPCB's parts library draws some packages at another zero
orientation than KiCad's library. The offsets below are the ones the KiCad community
keeps for JLCPCB (KiBot's JLCPCB rotation table, which grew out of Matthew Lai's
JLCKicadTools rotation database): SOT-23 family +180, SOIC +270, WS2812B (PLCC4 5050)
+180, Omron B3S +90. A part not matched keeps KiCad's rotation.

Bottom-side parts (JLCPCB's convention, as the KiCad community's JLCPCB exporters
apply it): the position is the part's centre seen from the top (X not mirrored, Y up),
and the rotation is KiCad's mirrored about the Y axis before the package offset is
added: (180 - KiCad rotation + offset) mod 360. Sources: Bouni/kicad-jlcpcb-tools,
fabrication.py (`rotation = (180 - rotation) % 360` for a footprint not on F.Cu, then
the correction added; the correction's sign on the bottom fixed in its PR #395), and
the same rule as KiBot's author states it after checking it in JLCPCB's placement
viewer (bennymeg/Fabrication-Toolkit issue #101: "(180 - KiCad_Angle) +
JLCPCB_Rotation", not "180 - (KiCad_Angle + JLCPCB_Rotation)").
"""

import re

JLC_ROTATION = (  # (footprint name regex, degrees added), first match wins
    (r"^SOT-23", 180.0),  # SOT-23, SOT-23-5, SOT-23-6
    (r"^SOIC-", 270.0),
    (r"^LED_WS2812B_PLCC4", 180.0),
    (r"^SW_SPST_B3", 90.0),
    (r"^CP_Elec_", 180.0),
)

# Through-hole parts and modules: soldered by hand, never in the machine placement file.
HAND_SOLDERED = (
    r"^DevKitC-1_socket", r"^IDC-Header_", r"^JST_XH_", r"^PinSocket_", r"^CP_Radial_",
    r"^USB_C_Receptacle_GCT_USB4135",  # the shell's THT legs: hand-fitted
)
NOT_PLACED = (r"^TestPoint_", r"^MountingHole_")  # copper or a hole: nothing to place

# LCSC numbers (the service's own catalogue) of the parts it places. Where each of the
# numbers added for issue 23 comes from (no catalogue is reachable from the build):
# SN74LV1T125DBVR C473338: two public BOMs that link it as that part (LCSC product
# page, and a parts index "SN74LV1T125DBVR | LED data level shift | C473338");
# SN74LVC125ADR C7661: a design's parts list checked against JLCPCB's parts API
# ("SN74LVC125ADR C7661 ... SOIC-14"; the same list gives AP2112K-3.3TRG1 C51118,
# as here); DRV5055A3QDBZR C266128: JLCPCB's part page
# (jlcpcb.com/partdetail/TexasInstruments-DRV5055A3QDBZR/C266128) and two BOMs;
# SMF6.0A C19077499: JLCPCB's catalogue as audited by a public parts index (SMF6.0A,
# actual package SOD-123FL) and a board's JLC BOM (VBUS TVS). Its maker is not named
# by either source: SMF_NOTE says what any SMF6.0A there must meet. TPS259621DDAR
# C2155774: a design note's LCSC search for the TPS2596 family (with TPS259631DDAR
# C2155778).
LCSC = {
    "CD74HC4067M96": "C98457", "AO3401A": "C15127", "MCP3208-CI/SL": "C626503",
    "SN74HC138D": "C5605", "SN74LV1T125DBVR": "C473338", "AP2112K-3.3": "C51118",
    "WS2812B": "C2761795", "PESD3V3S2UT": "C85393",
    "SMF6.0A": "C19077499", "PESD3V3L1BA": "C85397", "MF-MSMF050-2": "C70119",
    "DRV5055": "C266128", "SN74LVC125ADR": "C7661", "TPS259621DDAR": "C2155774",
}
SMF_NOTE = ("SMF6.0A in SOD-123FL, 200 W (10/1000 us): VBR 6.67-7.37 V at 10 mA, VC 10.3 V"
            " max at IPP 19.4 A (the series' datasheets: Littelfuse SMF, EIC, Kexin)")
NOTES = {"DRV5055": "DRV5055A3QDBZR (SOT-23, DBZ): A3 sensitivity per hardware/README.md",
         "SMF6.0A": SMF_NOTE}

# The package each part is made in (its datasheet), as a regex over KiCad footprint
# names: the footprint the generator gives a part must match it.
PART_PACKAGE = {
    "MF-MSMF050-2": r"_1812_",  # Bourns MF-MSMF: 1812 (4532 metric)
    "SMF6.0A": r"D_SOD-123F$",  # Littelfuse SMF: SOD-123FL
    "SMF5.0A": r"D_SOD-123F$",
    "EEU-FR1A471": r"CP_Radial_D8\.0mm_P3\.50mm",  # Panasonic FR, 8 x 11.5 radial
    "PESD3V3L1BA": r"D_SOD-323$",
    "PESD3V3S2UT": r"^SOT-23$",
    "AO3401A": r"^SOT-23$",
    "DRV5055A3QDBZR": r"^SOT-23$",
    "AP2112K-3.3TRG1": r"^SOT-23-5$",
    "TPS259621DDAR": r"^SOIC-8-1EP_3\.9x4\.9mm",  # TI DDA: SOIC-8 with exposed pad
    "SN74LV1T125DBVR": r"^SOT-23-5$",
    "MCP3208-CI/SL": r"^SOIC-16_3\.9x9\.9mm",
    "SN74HC138D": r"^SOIC-16_3\.9x9\.9mm",
    "CD74HC4067M96": r"^SOIC-24W_7\.5x15\.4mm",
    "WS2812B": r"^LED_WS2812B_PLCC4_5\.0x5\.0mm",
    "B3S-1000": r"^SW_SPST_B3S-1000",
    "USB4135-GF-A": r"USB4135-GF-A",
    "T821120A1S100CEU": r"^IDC-Header_2x10",
    "B3B-XH-A(LF)(SN)": r"^JST_XH_B3B-XH-A",
}
SIZE_CODES = {"0603": r"_0603_1608Metric", "0805": r"_0805_2012Metric"}


def _match(table, fpname):
    return any(re.search(p, fpname) for p in table)


def hand_soldered(fpname):
    return _match(HAND_SOLDERED, fpname)


def jlc_offset(fpname):
    """Degrees JLCPCB's library turns this package from KiCad's zero orientation."""
    for pattern, offset in JLC_ROTATION:
        if re.search(pattern, fpname):
            return offset
    return 0.0


def jlc_rotation(fpname, rot, bottom):
    """The rotation JLCPCB's placement file wants for a part KiCad has at `rot` (the
    footprint's orientation as KiCad stores it, flipped or not). On the bottom, KiCad's
    angle is mirrored about the Y axis first (module docstring, with its sources)."""
    base = (180.0 - rot) if bottom else rot
    return (base + jlc_offset(fpname)) % 360


def _lcsc(value):
    return LCSC.get(value.split(" ")[0], "")


def bom_cpl_text(parts):
    """parts: (ref, value, footprint, x mm, y mm, KiCad rotation, on bottom), x and y
    the part's centre (its pads' centre) seen from the top, y up, on either side.
    Returns {file name: text}: bom.csv and cpl.csv for the machine-placed parts,
    hand.csv for those soldered by hand."""
    rows = {}
    hand = {}
    cpl = ["Designator,Mid X,Mid Y,Layer,Rotation"]
    for ref, value, fpn, x, y, rot, bottom in sorted(parts):
        if _match(NOT_PLACED, fpn):
            continue
        base = value.split(" ")[0] if value.startswith(("DRV5055", "WS2812B")) else value
        if hand_soldered(fpn):
            hand.setdefault((base, fpn), []).append((ref, "Bottom" if bottom else "Top"))
            continue
        rows.setdefault((base, fpn), []).append(ref)
        cpl.append("%s,%.3fmm,%.3fmm,%s,%.1f" % (ref, x, y, "Bottom" if bottom else "Top",
                                                  jlc_rotation(fpn, rot, bottom)))
    bom = ["Comment,Designator,Footprint,LCSC Part #,Note"]
    for (value, fpn), refs in sorted(rows.items()):
        note = NOTES.get(value, "")
        bom.append('"%s","%s","%s","%s","%s"' % (value, ",".join(refs), fpn, _lcsc(value),
                                                 note))
    hl = ["Comment,Designator,Footprint,Side"]
    for (value, fpn), refs in sorted(hand.items()):
        hl.append('"%s","%s","%s","%s"' % (value, ",".join(r for r, _ in refs), fpn,
                                          refs[0][1]))
    return {"bom.csv": "\n".join(bom) + "\n", "cpl.csv": "\n".join(cpl) + "\n",
            "hand.csv": "\n".join(hl) + "\n"}
