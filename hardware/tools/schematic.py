"""Schematic as code: the whole board as a SKiDL circuit built from a pin map.

    python hardware/tools/schematic.py esp32s3 hardware/netlist/nardy-esp32s3.net

Parts are defined here (pins, types, footprints), so no KiCad library is needed. The
script runs SKiDL's ERC, writes a KiCad netlist with fixed tags and date so it is
reproducible, prints "ERC errors: N, warnings: M" and exits 1 if ERC found an error.
Connectors and cables are left out: the netlist is the electrical circuit; the
wiring tables give the connector pinouts.
"""

import builtins
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hwlib  # noqa: E402
import skidl  # noqa: E402
from skidl import POWER, SKIDL, TEMPLATE, Net, Part, Pin  # noqa: E402

T = Pin.types


def _template(name, fp, pins, prefix="U"):
    return Part(tool=SKIDL, name=name, ref_prefix=prefix, dest=TEMPLATE, footprint=fp,
                pins=[Pin(num=n, name=nm, func=f) for n, nm, f in pins])


def _part(tmpl, ref, value=None):
    p = tmpl(ref=ref)
    p.tag = ref  # fixed tag: the netlist's tstamps stay the same run to run
    if value:
        p.value = value
    return p


def build(pm):
    """Create every part and net for pin map `pm` in SKiDL's default circuit."""
    # Which MCU pins exist and what they do, from the pin map.
    dir_types = {"out": T.OUTPUT, "analog in": T.INPUT, "open drain": T.BIDIR,
                 "in, pull-up": T.INPUT, "in": T.INPUT}
    rows = hwlib.wiring_rows(pm)
    mcu_pins = [(1, "5V", T.PWROUT), (2, "3V3", T.PWROUT), (3, "GND", T.PWROUT)]
    seen = set()
    for _sig, g, d, _to in rows:
        if g not in seen:
            seen.add(g)
            mcu_pins.append((100 + g, "GPIO%d" % g, dir_types[d]))
    devkit = _template("DEVKIT_" + pm["mcu"].upper(), "nardy:DevKit_socket", mcu_pins)
    ldo = _template("AP2112K-3.3", "Package_TO_SOT_SMD:SOT-23-5",
                    [(1, "VIN", T.PWRIN), (2, "GND", T.PWRIN), (3, "EN", T.INPUT),
                     (5, "VOUT", T.PWROUT)])
    adc = _template("MCP3208", "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm",
                    [(1 + i, "CH%d" % i, T.INPUT) for i in range(8)]
                    + [(9, "DGND", T.PWRIN), (10, "~CS", T.INPUT), (11, "DIN", T.INPUT),
                       (12, "DOUT", T.OUTPUT), (13, "CLK", T.INPUT), (14, "AGND", T.PWRIN),
                       (15, "VREF", T.PWRIN), (16, "VDD", T.PWRIN)])
    hall = _template("DRV5055A3", "Package_TO_SOT_SMD:SOT-23",
                     [(1, "VCC", T.PWRIN), (2, "GND", T.PWRIN), (3, "OUT", T.OUTPUT)], "H")
    mux = _template("CD74HC4067", "Package_SO:SOIC-24W_7.5x15.4mm",
                    [(1, "COM", T.PASSIVE)]
                    + [(9 - i if i < 8 else 31 - i, "I%d" % i, T.PASSIVE) for i in range(16)]
                    + [(10, "S0", T.INPUT), (11, "S1", T.INPUT), (14, "S2", T.INPUT),
                       (13, "S3", T.INPUT), (15, "~E", T.INPUT), (12, "GND", T.PWRIN),
                       (24, "VCC", T.PWRIN)])
    dec = _template("74HC138", "Package_DIP:DIP-16_W7.62mm",
                    [(1, "A0", T.INPUT), (2, "A1", T.INPUT), (3, "A2", T.INPUT),
                     (4, "~E1", T.INPUT), (5, "~E2", T.INPUT), (6, "E3", T.INPUT),
                     (8, "GND", T.PWRIN), (16, "VCC", T.PWRIN)]
                    + [(15 - i if i < 7 else 7, "Y%d" % i, T.OUTPUT) for i in range(8)])
    pfet = _template("AO3401A", "Package_TO_SOT_SMD:SOT-23",
                     [(1, "G", T.PASSIVE), (2, "S", T.PASSIVE), (3, "D", T.PASSIVE)], "Q")
    res = _template("R", "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
                    [(1, "1", T.PASSIVE), (2, "2", T.PASSIVE)], "R")
    cap = _template("C", "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P2.50mm",
                    [(1, "1", T.PASSIVE), (2, "2", T.PASSIVE)], "C")
    fuse = _template("PTC", "Fuse:Fuse_1812_4532Metric",
                     [(1, "1", T.PASSIVE), (2, "2", T.PASSIVE)], "F")
    led = _template("WS2812B", "LED_SMD:LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm",
                    [(1, "VDD", T.PWRIN), (2, "DOUT", T.OUTPUT), (3, "VSS", T.PWRIN),
                     (4, "DIN", T.INPUT)], "D")
    buf = _template("74AHCT1G125", "Package_TO_SOT_SMD:SOT-23-5",
                    [(1, "~OE", T.INPUT), (2, "A", T.INPUT), (3, "GND", T.PWRIN),
                     (4, "Y", T.OUTPUT), (5, "VCC", T.PWRIN)])
    oled = _template("SSD1306_MODULE", "nardy:OLED_4pin",
                     [(1, "GND", T.PWRIN), (2, "VCC", T.PWRIN), (3, "SCL", T.INPUT),
                      (4, "SDA", T.BIDIR)], "DS")
    sw = _template("SW_PUSH", "Button_Switch_THT:SW_PUSH-12mm",
                   [(1, "1", T.PASSIVE), (2, "2", T.PASSIVE)], "SW")
    tp = _template("TESTPOINT", "TestPoint:TestPoint_Pad_D1.5mm", [(1, "1", T.PASSIVE)], "TP")

    v5 = Net("5V")
    v3 = Net("3V3")
    gnd = Net("GND")
    v5f = Net("5V_F")
    v3s = Net("3V3S")
    v5f.drive = POWER  # through the fuse: still the supply
    u1 = _part(devkit, "U1", pm["board"].split(" ")[0])
    u1["5V"] += v5
    u1["3V3"] += v3
    u1["GND"] += gnd

    def gpio(g):
        return u1["GPIO%d" % g]

    f1 = _part(fuse, "F1", "MF-MSMF050-2")
    f1[1] += v5
    f1[2] += v5f
    u2 = _part(ldo, "U2", "AP2112K-3.3")
    u2["VIN"] += v5f
    u2["EN"] += v5f
    u2["GND"] += gnd
    u2["VOUT"] += v3s

    # Select lines, shared by all eight multiplexers.
    sel = [Net("MUX_S%d" % i) for i in range(4)]
    for i, g in enumerate(pm["mux"]["select"]):
        sel[i] += gpio(g)

    # Sensor power groups: the decoder's one low output turns on a P-FET and enables
    # the mux of that group; R pull-ups keep every gate high while the MCU boots.
    u18 = _part(dec, "U18", "SN74HC138N")
    u18["VCC"] += v3
    u18["GND"] += gnd
    u18["~E1"] += gnd
    u18["~E2"] += gnd
    for i, g in enumerate(pm["sensor_power"]["decoder"]):
        n = Net("SPWR_A%d" % i)
        n += gpio(g)
        u18["A%d" % i] += n
    en = Net("SPWR_EN")
    en += gpio(pm["sensor_power"]["enable"])
    u18["E3"] += en
    r9 = _part(res, "R9", "10k")
    r9[1] += en
    r9[2] += gnd

    ext = hwlib.adc_kind(pm) == "mcp3208"
    shared = not ext and len(pm["mux"]["out"]) == 1
    mux_out_shared = Net("MUX_OUT") if shared else None
    if shared:
        mux_out_shared += gpio(pm["mux"]["out"][0])
    if ext:
        # the reference front end: VREF and VDD on the sensor rail, so a reading is
        # Vout / VCC of the sensors (ratiometric)
        u20 = _part(adc, "U20", "MCP3208-CI/SL")
        u20["VDD"] += v3s
        u20["VREF"] += v3s
        u20["AGND"] += gnd
        u20["DGND"] += gnd
        for key, pin in (("sck", "CLK"), ("mosi", "DIN"), ("miso", "DOUT"), ("cs", "~CS")):
            n = Net("ADC_" + key.upper())
            n += gpio(pm["adc"]["spi"][key])
            u20[pin] += n
        c = _part(cap, "C162", "1u")      # at VREF/VDD
        c[1] += v3s
        c[2] += gnd
    hcount = 0
    for m in range(pm["mux"]["count"]):
        grp_n = Net("GRP%d_N" % m)
        grp = Net("GRP%d" % m)
        grp.drive = POWER  # switched sensor supply
        u18["Y%d" % m] += grp_n
        q = _part(pfet, "Q%d" % (m + 1), "AO3401A")
        q["G"] += grp_n
        q["S"] += v3s
        q["D"] += grp
        r = _part(res, "R%d" % (m + 1), "10k")
        r[1] += grp_n
        r[2] += v3s
        t = _part(tp, "TP%d" % (m + 3), "GRP%d" % m)
        t[1] += grp
        u = _part(mux, "U%d" % (10 + m), "CD74HC4067M96")
        u["VCC"] += v3s
        u["GND"] += gnd
        u["~E"] += grp_n
        for i in range(4):
            u["S%d" % i] += sel[i]
        if ext:
            n = Net("MUX_OUT%d" % m)
            u20["CH%d" % pm["mux"].get("adc_channel", list(range(8)))[m]] += n
            u["COM"] += n
        elif shared:
            u["COM"] += mux_out_shared
        else:
            n = Net("MUX_OUT%d" % m)
            n += gpio(pm["mux"]["out"][m])
            u["COM"] += n
        for ch, label in enumerate(pm["channels"][m]):
            if not label:
                continue
            hcount += 1
            h = _part(hall, "H%d" % hcount, "DRV5055A3 " + label)
            c = _part(cap, "C%d" % hcount, "100n")
            sig = Net("S_" + label.replace(".", "_"))
            h["VCC"] += grp
            h["GND"] += gnd
            h["OUT"] += sig
            u["I%d" % ch] += sig
            c[1] += grp
            c[2] += gnd
    for ref in ("C158", "C159", "C160", "C161"):
        c = _part(cap, ref, "10u")  # bulk at each quarter board
        c[1] += v3s
        c[2] += gnd

    if "vsense" in pm:
        vs = Net("VSENSE")
        vs += gpio(pm["vsense"]["pin"])
        r10 = _part(res, "R10", "10k")
        r11 = _part(res, "R11", "10k")
        r10[1] += v3s
        r10[2] += vs
        r11[1] += vs
        r11[2] += gnd

    # LEDs: 3.3 V data buffered to 5 V levels, then the chain in pin-map order.
    u19 = _part(buf, "U19", "SN74AHCT1G125")
    u19["VCC"] += v5f
    u19["GND"] += gnd
    u19["~OE"] += gnd
    d0 = Net("LED_DATA")
    d0 += gpio(pm["led"]["pin"])
    u19["A"] += d0
    r12 = _part(res, "R12", "330")
    d1 = Net("LED_DIN1")
    ybuf = Net("LED_BUF")
    u19["Y"] += ybuf
    r12[1] += ybuf
    r12[2] += d1
    prev = d1
    for i, name in enumerate(pm["led"]["chain"]):
        d = _part(led, "D%d" % (i + 1), "WS2812B " + name)
        c = _part(cap, "C%d" % (129 + i), "100n")
        d["VDD"] += v5f
        d["VSS"] += gnd
        d["DIN"] += prev
        c[1] += v5f
        c[2] += gnd
        prev = Net("LED_DIN%d" % (i + 2)) if i + 1 < len(pm["led"]["chain"]) else Net(
            "LED_END")
        d["DOUT"] += prev
    t = _part(tp, "TP11", "LED_END")  # scope here: data must come out of the last LED
    t[1] += prev
    c157 = _part(cap, "C157", "470u")
    c157[1] += v5f
    c157[2] += gnd

    ds1 = _part(oled, "DS1", "SSD1306 128x64")
    ds1["VCC"] += v3
    ds1["GND"] += gnd
    sda = Net("I2C_SDA")
    scl = Net("I2C_SCL")
    sda += gpio(pm["i2c"]["sda"])
    scl += gpio(pm["i2c"]["scl"])
    ds1["SDA"] += sda
    ds1["SCL"] += scl

    for i, key in enumerate(("ok", "back", "menu")):
        s = _part(sw, "SW%d" % (i + 1), key)
        n = Net("BTN_" + key.upper())
        n += gpio(pm["buttons"][key])
        s[1] += n
        s[2] += gnd

    t1 = _part(tp, "TP1", "3V3S")
    t1[1] += v3s
    t2 = _part(tp, "TP2", "5V_F")
    t2[1] += v5f
    for ref, net in (("TP12", gnd),):
        t = _part(tp, ref, "GND")
        t[1] += net


def _normalise(text):
    # The date and the script path would change the file on every run.
    text = re.sub(r'\(date "[^"]*"\)', '(date "generated")', text)
    text = re.sub(r'\(source "[^"]*"\)', '(source "hardware/tools/schematic.py")', text)
    return text


def main(argv):
    name, out = argv[0], argv[1]
    if name.endswith(".json"):  # a pin map file (tests feed broken ones)
        import json
        with open(name) as f:
            pm = json.load(f)
    else:
        pm = hwlib.load_pinmap(name)
    builtins.default_circuit.no_files = True  # SKiDL keeps its circuit there; no .erc/.log
    build(pm)
    skidl.erc_logger.error.reset()
    skidl.erc_logger.warning.reset()
    skidl.ERC()
    errors = skidl.erc_logger.error.count
    warnings = skidl.erc_logger.warning.count
    text = _normalise(str(skidl.generate_netlist(do_backup=False, track_src=False)))
    with open(out, "w") as f:
        f.write(text)
    print("ERC errors: %d, warnings: %d" % (errors, warnings))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
