"""Shared by the hardware generators and tests: pin maps, BOM, power budget, tables.

Everything a maker reads in hardware/ that has a number in it comes from here, from
the pin maps in firmware/pinmap/ and from the magnetic model in host_tools/nardy_host/magnet.py,
so a test can regenerate it and compare.
"""

import csv
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)
ROOT = os.path.dirname(HW)
PINMAP_DIR = os.path.join(ROOT, "firmware", "pinmap")
PINMAPS = ("esp32s3", "esp32")

for _d in ("firmware", "host_tools"):      # nardy (the engine), nardy_host (the model)
    if os.path.join(ROOT, _d) not in sys.path:
        sys.path.insert(0, os.path.join(ROOT, _d))

from nardy_host import magnet  # noqa: E402  (path set just above)

BOARD_CHECKER_DIAMETERS = (30, 33, 36, 40)


def load_pinmap(name):
    with open(os.path.join(PINMAP_DIR, name + ".json")) as f:
        return json.load(f)


def parse_label(label):
    """'P3.2' -> (3, 2); 'bar.1' -> ('bar', 1); 'off_white.2' -> ('off_white', 2)."""
    loc, slot = label.rsplit(".", 1)
    if loc.startswith("P"):
        return int(loc[1:]), int(slot)
    return loc, int(slot)


def channel_labels(slots=5):
    """The channel layout every pin map uses: mux m serves three neighbouring points
    (slots 1..n each, slot 1 at the board edge) and its last channel one bar or tray
    sensor. Only the 5-slot layout fills exactly eight 16-channel muxes."""
    extra = ["off_white.1", "off_white.2", "bar.1", "bar.2", "bar.3", "bar.4",
             "off_black.1", "off_black.2"]
    out = []
    for m in range(8):
        row = []
        for k in range(3):
            p = 3 * m + k + 1
            row += ["P%d.%d" % (p, s) for s in range(1, slots + 1)]
        row.append(extra[m])
        out.append(row)
    return out


def adc_kind(pm):
    """"mcp3208" (the reference: an SPI ADC on the main board reads the mux outputs,
    ratiometric to 3V3S) or "internal" (the fallback: the ESP32's own ADC1)."""
    return pm.get("adc", {}).get("kind", "internal" if pm["mux"].get("out") else "mcp3208")


def mux_out_pin(pm, m):
    """ADC pin of mux m (internal ADC only): one per mux, or one shared by all."""
    outs = pm["mux"]["out"]
    return outs[m] if len(outs) > 1 else outs[0]


def quarter_of_mux(m):
    return m // 2


QUARTER_POINTS = ("P1-P6", "P7-P12", "P13-P18", "P19-P24")


def external_adc(pm):
    """True when the mux outputs go to an SPI ADC (MCP3208) instead of ADC1 pins."""
    return pm["adc"].get("kind") == "mcp3208"


# ESP32-S3-DevKitC-1 header pins (J1 and J3, 22 each, pin 1 at the USB end's far side
# as Espressif's pin layout numbers them): pad n of the board footprint is J1 pin n,
# pad 22 + n is J3 pin n. Strings are power pins, ints GPIOs.
DEVKITC1_S3_J1 = ("3V3", "3V3", "RST", 4, 5, 6, 7, 15, 16, 17, 18, 8, 3, 46, 9, 10, 11,
                  12, 13, 14, "5V", "GND")
DEVKITC1_S3_J3 = ("GND", 43, 44, 1, 2, 42, 41, 40, 39, 38, 37, 36, 35, 0, 45, 48, 47, 21,
                  20, 19, "GND", "GND")
DEVKIT_ROW_PITCH_MM = 25.4  # J1 to J3 centre distance (check your DevKit revision)


def devkit_pads(pm):
    """{pad number: pin name} of the DevKit footprint, or None if the MCU has no board
    footprint here (the classic ESP32 is wired by hand from its wiring table)."""
    if pm["mcu"] != "esp32s3":
        return None
    out = {}
    for i, name in enumerate(DEVKITC1_S3_J1 + DEVKITC1_S3_J3):
        out[i + 1] = name if isinstance(name, str) else "GPIO%d" % name
    return out


# Main board to quarter board ribbon (2x10 IDC, keyed shrouded headers). Every signal
# wire has a ground wire beside it or a neighbour of the same kind; the analog outputs
# sit between ground wires, away from the select lines and the LED data; five ground
# wires carry the sensor return (160 mA at most), one (GND_LED, between the LED data
# wires) the LEDs' return.
RIBBON = ("3V3S", "GND", "3V3S", "GND", "MUX_S0", "MUX_S1", "MUX_S2", "MUX_S3",
          "/GRP_A", "/GRP_B", "GND", "OUT_A", "GND", "OUT_B", "GND", "LED_IN", "GND_LED",
          "LED_OUT", "5V_F", "5V_F")


def wiring_rows(pm):
    """(signal, gpio, direction, goes to) for every MCU pin the pin map uses."""
    rows = []
    sel = pm["mux"]["select"]
    for i, g in enumerate(sel):
        rows.append(("MUX_S%d" % i, g, "out",
                     "U20-U22 buffer (Ioff, on 3V3S) -> S%d of U10-U17 (ribbon pin %d on"
                     " every quarter board)" % (i, RIBBON.index("MUX_S%d" % i) + 1)))
    if external_adc(pm):
        spi = pm["adc"]["spi"]
        for key, d, to in (("sck", "out", "CLK (pin 13)"), ("mosi", "out", "DIN (pin 11)"),
                           ("miso", "in", "DOUT (pin 12)"),
                           ("cs", "out", "/CS (pin 10)")):
            via = "R16-R19 1k" if key == "miso" else "U20-U22 buffer -> R16-R19 1k"
            rows.append(("ADC_" + key.upper(), spi[key], d,
                         "%s -> U4 MCP3208 %s; CH0-CH7 = COM of U10-U17" % (via, to)))
    else:
        outs = pm["mux"]["out"]
        if len(outs) > 1:
            for m, g in enumerate(outs):
                rows.append(("MUX_OUT%d" % m, g, "analog in",
                             "COM of U%d, quarter board %d (%s)"
                             % (10 + m, quarter_of_mux(m), QUARTER_POINTS[quarter_of_mux(m)])))
        else:
            rows.append(("MUX_OUT", outs[0], "analog in",
                         "COM of U10-U17 joined; only the enabled mux drives it"))
    for i, g in enumerate(pm["sensor_power"]["decoder"]):
        rows.append(("SPWR_A%d" % i, g, "out", "U20-U22 buffer -> A%d of U18 (74HC138)" % i))
    rows.append(("SPWR_EN", pm["sensor_power"]["enable"], "out",
                 "U20-U22 buffer -> E3 of U18; R9 10k to GND keeps every sensor group off"
                 " while the MCU boots or is unplugged"))
    if "vsense" in pm:
        rows.append(("VSENSE", pm["vsense"]["pin"], "analog in",
                     "R10/R11 divider (1:%g) from the 3V3S sensor rail"
                     % pm["vsense"]["ratio"]))
    rows.append(("LED_DATA", pm["led"]["pin"], "out",
                 "A of U19 (SN74LV1T125, 5 V, Ioff; R13 10k pull-down) -> R12 330R -> DIN of D1"
                 " (%s)" % pm["led"]["chain"][0]))
    rows.append(("I2C_SDA", pm["i2c"]["sda"], "open drain",
                 "SDA of DS1 (SSD1306 at 0x%02X)" % pm["oled"]["addr"]))
    rows.append(("I2C_SCL", pm["i2c"]["scl"], "open drain", "SCL of DS1"))
    names = {"ok": "SW1 roll/ok", "back": "SW2 back", "menu": "SW3 menu"}
    for key in ("ok", "back", "menu"):
        rows.append(("BTN_" + key.upper(), pm["buttons"][key], "in, pull-up",
                     names[key] + " to GND"))
    return rows


def used_pins(pm):
    """gpio -> list of signals (a correct map has one signal per gpio)."""
    out = {}
    for sig, g, _, _ in wiring_rows(pm):
        out.setdefault(g, []).append(sig)
    return out


def wiring_markdown(pm):
    lines = ["# Wiring: %s" % pm["board"], "",
             "Generated by `python hardware/tools/gen.py` from `firmware/pinmap/%s.json`;"
             " do not edit." % pm["name"], "",
             "| signal | GPIO | direction | goes to |", "| --- | --- | --- | --- |"]
    for sig, g, d, to in wiring_rows(pm):
        lines.append("| %s | %d | %s | %s |" % (sig, g, d, to))
    lines += ["", "## Power", "",
              "| rail | from | feeds |", "| --- | --- | --- |",
              "| USB data port | DevKit USB (the ESP32's own) | ESP32, DevKit 3V3 |",
              "| 3V3 | DevKit 3V3 pin | DS1, R34/R35 (I2C pull-ups) |",
              "| 5V_IN | J5 USB-C power input (5 V only, CC 5.1k) | U3 TPS259621 eFuse"
              " (21 V input, 5.7 V clamp) |",
              "| 5V_F | U3 (soft start) -> F1 | LEDs, U19, U2 |",
              "| 3V3S | U2 AP2112K-3.3 | Q1-Q8 sources, U10-U17, U4 MCP3208 VDD/VREF, U18,"
              " U20-U22 |",
              "| GRPn | Qn drain (on when U18 Yn is low) | the 16 sensors of mux n |",
              "", "## Quarter-board ribbon (2x10 IDC, keyed, one per quarter board)", "",
              "| pin | signal |", "| --- | --- |"]
    what = {"/GRP_A": "/GRP_A (U18 Y of the first mux: P-MOSFET gate and mux /E)",
            "/GRP_B": "/GRP_B (U18 Y of the second mux)",
            "OUT_A": "OUT_A (COM of the first mux -> MCP3208 CH 2q)",
            "OUT_B": "OUT_B (COM of the second mux -> MCP3208 CH 2q+1)",
            "LED_IN": "LED_IN (LED data into the quarter's first LED)",
            "GND_LED": "GND_LED (the LEDs' return, beside their data; joined to GND only at"
                       " R36 by the power input)",
            "LED_OUT": "LED_OUT (data out of its sixth LED through 68R, back to the main"
                       " board)"}
    for i, sig in enumerate(RIBBON):
        lines.append("| %d | %s |" % (i + 1, what.get(sig, sig)))
    lines += ["", "## Bar and tray sensors (JST XH 3-pin, spot boards)", "",
              "| pin | signal |", "| --- | --- |", "| 1 | GRPn (switched 3.3 V) |",
              "| 2 | GND |", "| 3 | OUT |",
              "", "## Multiplexer channels", "",
              "| mux | quarter | ADC input | select 0..15 |", "| --- | --- | --- | --- |"]
    for m, row in enumerate(pm["channels"]):
        adc_in = ("MCP3208 CH%d" % m if external_adc(pm)
                  else "GPIO%d" % mux_out_pin(pm, m))
        lines.append("| U%d | %d (%s) | %s | %s |" % (
            10 + m, quarter_of_mux(m), QUARTER_POINTS[quarter_of_mux(m)],
            adc_in, " ".join(lbl if lbl else "-" for lbl in row)))
    lines += ["", "## LED chain", "", "D1 .. D%d in data order: %s." % (
        pm["led"]["count"], ", ".join(pm["led"]["chain"])), ""]
    return "\n".join(lines)


# -- BOM and power --------------------------------------------------------------------

def load_bom():
    with open(os.path.join(HW, "bom.csv"), newline="") as f:
        return list(csv.DictReader(f))


def bom_total(rows):
    """Sum of qty x unit price (alternatives have qty 0), in cents to avoid float drift."""
    cents = 0
    for r in rows:
        cents += int(r["qty"]) * int(round(float(r["unit_usd"]) * 100))
    return cents / 100.0


def led_mA(row, brightness):
    """One WS2812 at full white scaled to the brightness cap (0..255): the PWM duty
    scales each colour's current; the controller's idle current stays."""
    idle = float(row["idle_mA"])
    return idle + (float(row["max_mA"]) - idle) * brightness / 255.0


def bom_markdown():
    rows = load_bom()
    used = [r for r in rows if int(r["qty"])]
    return ("%d line items, %d parts, total **USD %.2f** at typical small-quantity prices"
            " (alternatives excluded)." % (len(used), sum(int(r["qty"]) for r in used),
                                           bom_total(rows)))


# -- magnet table -----------------------------------------------------------------------

def magnet_table_text(model=None):
    if model is None:
        model = magnet.MagnetModel()
    cal = magnet.default_calibration(model)
    rows = magnet.table(model)
    cpm = model.counts_per_mT()
    out = []
    out.append("Model: N35 disc %gx%g mm (Br %.0f mT), lower face %g mm above the checker's"
               " bottom; checker %gx%g mm; hall element %g mm below the surface;"
               % (model.magnet_diameter_mm, model.magnet_thickness_mm, model.br_mT,
                  model.magnet_lift_mm, model.checker_diameter_mm,
                  model.checker_thickness_mm, model.depth_mm))
    out.append("DRV5055A3 %g mV/mT at %g V; ADC 12 bit %s (%.1f counts/mT)."
               % (model.sensitivity_mV_per_mT, model.vcc_V,
                  "ratiometric (MCP3208, VREF = sensor supply)" if model.ratiometric
                  else "%g mV full scale" % model.adc_full_scale_mV, cpm))
    out.append("Worst case: every neighbouring slot (own point two either side, the two"
               " neighbouring points, across the middle) filled adversarially, up to 3"
               " high, at most 15 per colour, as left by the sensing's crosstalk"
               " compensation; checker up to %g mm off centre. A nominal build: the"
               " spread of real parts is the Monte Carlo's (buildspread)."
               % model.placement_tol_mm)
    out.append("")
    out.append("state      field mT  nominal  worst low  worst high")
    for h, (name, lo, nom, hi) in zip((-2, -1, 0, 1, 2), rows):
        out.append("%-9s  %8.1f  %7d  %9d  %10d" % (name, model.stack_field_mT(h), nom, lo, hi))
    out.append("three white stacked, centred: %d counts (%.1f mT); sensor clamps at %d"
               % (model.counts(model.stack_field_mT(3)), model.stack_field_mT(3),
                  model.counts(1e9)))
    out.append("")
    out.append("boundary   counts  margin below  margin above")
    by = dict((n, (lo, hi)) for n, lo, _nom, hi in rows)
    pairs = (("black2", "black x2", "black x1"), ("black1", "black x1", "empty"),
             ("white1", "empty", "white x1"), ("white2", "white x1", "white x2"))
    for i, (key, below, above) in enumerate(pairs):
        t = cal["thresholds"][i]
        out.append("%-9s  %6d  %12d  %12d" % (key, t, t - by[below][1], by[above][0] - t))
    out.append("default levels (midpoints = boundaries): black2 %d, black1 %d, baseline %d,"
               " white1 %d, white2 %d" % (cal["black2"], cal["black1"], cal["baseline"],
                                          cal["white1"], cal["white2"]))
    out.append("hysteresis %d; noise assumed %d counts"
               % (cal["hysteresis"], model.noise_counts))
    return "\n".join(out)


def threshold_margins(model=None):
    """Smallest distance (counts) from any threshold to a worst-case level range."""
    if model is None:
        model = magnet.MagnetModel()
    cal = magnet.default_calibration(model)
    rows = dict((n, (lo, hi)) for n, lo, _nom, hi in magnet.table(model))
    t = cal["thresholds"]
    return {
        "black2": (t[0] - rows["black x2"][1], rows["black x1"][0] - t[0]),
        "black1": (t[1] - rows["black x1"][1], rows["empty"][0] - t[1]),
        "white1": (t[2] - rows["empty"][1], rows["white x1"][0] - t[2]),
        "white2": (t[3] - rows["white x1"][1], rows["white x2"][0] - t[3]),
    }


def tolerance_text():
    """How the 1-vs-2 margin shrinks with an off-centre checker (README quotes it)."""
    out = ["placement tol mm  white x1 high  white x2 low  gap (counts)"]
    for tol in (0.0, 1.0, 2.0, 3.0, 5.0):
        m = magnet.MagnetModel(placement_tol_mm=tol)
        rows = dict((n, (lo, hi)) for n, lo, _nom, hi in magnet.table(m))
        out.append("%16.1f  %13d  %12d  %12d" % (tol, rows["white x1"][1], rows["white x2"][0],
                                                 rows["white x2"][0] - rows["white x1"][1]))
    m = magnet.MagnetModel()
    cal = magnet.default_calibration(m)
    r = 0.0
    while magnet.classify(m.counts(m.stack_field_mT(1, r + 0.5, 0.0)), cal) == 1:
        r += 0.5
    out.append("a single checker (no neighbours) still reads occupied up to %.1f mm off centre"
               % r)
    return "\n".join(out)


def slots_text():
    """Slot centres along a point for common checker sizes (slot pitch = diameter)."""
    out = ["| checker mm | point width mm | slot centres from the edge, mm | point length mm"
           " | field W x H mm |", "| --- | --- | --- | --- | --- |"]
    for d in BOARD_CHECKER_DIAMETERS:
        m = magnet.MagnetModel(checker_diameter_mm=d)
        ys = ", ".join("%g" % (m.slot_xy(1, s)[1]) for s in range(1, m.slots + 1))
        w, h = m.field_size_mm()
        out.append("| %d | %g | %s | %g | %g x %g |" % (d, m.point_width_mm, ys,
                                                       m.point_length_mm(), w, h))
    return "\n".join(out)


def fewer_slots_text():
    out = ["| slots per point | channels | 16-ch muxes | reads per point | what is lost |",
           "| --- | --- | --- | --- | --- |"]
    lost = {
        1: "only occupied/colour and 1 vs 2+ of the edge checker; counts come from"
           " conservation and move matching alone; a checker placed away from the edge"
           " is invisible",
        2: "counts above 4 and any checker beyond slot 2 inferred; lifting a checker off a"
           " long row is seen only if it came from slot 1-2",
        3: "rows of 4-5 and stacks beyond slot 3 inferred",
        4: "the fifth checker of a row inferred (level of slot 4 plus conservation)",
        5: "reference: rows up to 5 seen, stacks on every slot",
        6: "nothing; 6 x 36 mm rows need a deeper board, and 152 channels need 10 muxes"
           " and a 74HC154 decoder",
    }
    for n in range(1, 7):
        ch = 24 * n + 8
        out.append("| %d | %d | %d | %d | %s |" % (n, ch, int(math.ceil(ch / 16.0)), n, lost[n]))
    return "\n".join(out)


# -- README blocks -----------------------------------------------------------------------

def readme_blocks():
    import assembly
    import power  # noqa: F811  (power.py imports this module)
    import spice
    from pcblib import cost, fab, layout
    return {
        "assembly": assembly.markdown(),
        "spice": spice.markdown(),
        "jlc-rotations": "\n".join(["| KiCad footprint | added to KiCad's rotation |",
                                     "| --- | --- |"] + ["| `%s` | %+g |" % (p, d)
                                                        for p, d in fab.JLC_ROTATION]),
        "magnet-table": "```\n" + magnet_table_text() + "\n```",
        "tolerance-table": "```\n" + tolerance_text() + "\n```",
        "power-budget": power.markdown(),
        "pcb-cost": cost.markdown(layout.sizes(), layout.DESIGN_COUNT, layout.DESIGN_INSTANCE),
        "bom-total": bom_markdown(),
        "slot-table": slots_text(),
        "fewer-slots": fewer_slots_text(),
    }


def fill_blocks(text, blocks):
    """Replace the body between <!-- BEGIN name --> and <!-- END name --> markers."""
    for name, body in sorted(blocks.items()):
        begin = "<!-- BEGIN %s -->" % name
        end = "<!-- END %s -->" % name
        i = text.index(begin) + len(begin)
        j = text.index(end)
        text = text[:i] + "\n" + body + "\n" + text[j:]
    return text
