"""Schematic as code: the whole board as a SKiDL circuit built from a pin map.

    python hardware/tools/schematic.py esp32s3 hardware/netlist/nardy-esp32s3.net [BOARDS.json]

Parts are defined here (pins, types, footprints), so no KiCad library is needed. The
script runs SKiDL's ERC, writes a KiCad netlist with fixed tags and date so it is
reproducible, prints "ERC errors: N, warnings: M" and exits 1 if ERC found an error.
Connectors are in: a cable joins the same-named pins of two connectors, so a net
that crosses boards is one net with a pin on each board's connector.
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


# ref -> (board instance, design board, role): filled by build(), written beside the
# netlist so the PCB generator (which runs under KiCad's Python, without SKiDL) knows
# which board each part sits on. The four quarter boards are one design, as are the
# eight spot boards: "role" names a part's place on its design board.
BOARDS = {}


def _part(tmpl, ref, value=None, board=("main", "main"), role=None):
    p = tmpl(ref=ref)
    p.tag = ref  # fixed tag: the netlist's tstamps stay the same run to run
    if value:
        p.value = value
    BOARDS[ref] = (board[0], board[1], role or ref)
    return p


def _templates(pm):
    dir_types = {"out": T.OUTPUT, "analog in": T.INPUT, "open drain": T.BIDIR,
                 "in, pull-up": T.INPUT, "in": T.INPUT}
    pads = hwlib.devkit_pads(pm)
    if pads is None:  # no board footprint: pins numbered 100 + GPIO
        mcu_pins = [(1, "5V", T.PWROUT), (2, "3V3", T.PWROUT), (3, "GND", T.PWROUT)]
        seen = set()
        for _sig, g, d, _to in hwlib.wiring_rows(pm):
            if g not in seen:
                seen.add(g)
                mcu_pins.append((100 + g, "GPIO%d" % g, dir_types[d]))
        fp = "nardy:DevKit_socket"
    else:
        used = dict((g, dir_types[d]) for _s, g, d, _t in hwlib.wiring_rows(pm))
        mcu_pins = []
        for n, name in sorted(pads.items()):
            if name == "3V3" and "3V3" not in [x[1] for x in mcu_pins]:
                mcu_pins.append((n, name, T.PWROUT))
            elif name == "GND":  # the first ground pin drives GND; the rest join it
                mcu_pins.append((n, "GND%d" % n, T.PASSIVE if any(
                    x[1].startswith("GND") for x in mcu_pins) else T.PWROUT))
            elif name.startswith("GPIO") and int(name[4:]) in used:
                mcu_pins.append((n, name, used[int(name[4:])]))
        fp = "nardy:DevKitC-1_socket"
    t = {}
    t["devkit"] = _template("DEVKIT_" + pm["mcu"].upper(), fp, mcu_pins)
    t["ldo"] = _template("AP2112K-3.3", "Package_TO_SOT_SMD:SOT-23-5",
                         [(1, "VIN", T.PWRIN), (2, "GND", T.PWRIN), (3, "EN", T.INPUT),
                          (5, "VOUT", T.PWROUT)])
    # TPS259621DDAR eFuse (TI SLVSET8A, TPS2596 family), SOIC-8 with exposed pad (DDA):
    # 1 GND, 2 DVDT, 3 EN/UVLO, 4 IN, 5 OUT, 6 FLT (open drain, unused here), 7 ILM,
    # 8 OVCSEL, 9 exposed pad (GND). The DDA's pad is 2.4 x 3.1 mm; KiCad's 2.41 x 3.3 mm
    # land covers it.
    t["efuse"] = _template("TPS259621DDAR",
                           "Package_SO:SOIC-8-1EP_3.9x4.9mm_P1.27mm_EP2.41x3.3mm",
                           [(1, "GND", T.PWRIN), (2, "DVDT", T.PASSIVE), (3, "EN", T.INPUT),
                            (4, "IN", T.PWRIN), (5, "OUT", T.PWROUT), (7, "ILM", T.PASSIVE),
                            (8, "OVCSEL", T.PASSIVE), (9, "EP", T.PASSIVE)])
    t["adc"] = _template("MCP3208", "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm",
                         [(i + 1, "CH%d" % i, T.INPUT) for i in range(8)]
                         + [(9, "DGND", T.PWRIN), (10, "~CS", T.INPUT), (11, "DIN", T.INPUT),
                            (12, "DOUT", T.OUTPUT), (13, "CLK", T.INPUT),
                            (14, "AGND", T.PWRIN), (15, "VREF", T.PWRIN),
                            (16, "VDD", T.PWRIN)])
    # DRV5055 in SOT-23 (DBZ): 1 VCC, 2 OUT, 3 GND; the hall element sits at the
    # package centre, which is the footprint origin.
    t["hall"] = _template("DRV5055", "Package_TO_SOT_SMD:SOT-23",
                          [(1, "VCC", T.PWRIN), (2, "OUT", T.OUTPUT), (3, "GND", T.PWRIN)],
                          "H")
    t["mux"] = _template("CD74HC4067", "Package_SO:SOIC-24W_7.5x15.4mm_P1.27mm",
                         [(1, "COM", T.PASSIVE)]
                         + [(9 - i if i < 8 else 31 - i, "I%d" % i, T.PASSIVE)
                            for i in range(16)]
                         + [(10, "S0", T.INPUT), (11, "S1", T.INPUT), (14, "S2", T.INPUT),
                            (13, "S3", T.INPUT), (15, "~E", T.INPUT), (12, "GND", T.PWRIN),
                            (24, "VCC", T.PWRIN)])
    t["dec"] = _template("74HC138", "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm",
                         [(1, "A0", T.INPUT), (2, "A1", T.INPUT), (3, "A2", T.INPUT),
                          (4, "~E1", T.INPUT), (5, "~E2", T.INPUT), (6, "E3", T.INPUT),
                          (8, "GND", T.PWRIN), (16, "VCC", T.PWRIN)]
                         + [(15 - i if i < 7 else 7, "Y%d" % i, T.OUTPUT) for i in range(8)])
    t["pfet"] = _template("AO3401A", "Package_TO_SOT_SMD:SOT-23",
                          [(1, "G", T.PASSIVE), (2, "S", T.PASSIVE), (3, "D", T.PASSIVE)], "Q")
    two = [(1, "1", T.PASSIVE), (2, "2", T.PASSIVE)]
    t["res"] = _template("R", "Resistor_SMD:R_0603_1608Metric", two, "R")
    t["cap"] = _template("C", "Capacitor_SMD:C_0603_1608Metric", two, "C")
    t["cap_bulk"] = _template("C", "Capacitor_SMD:C_0805_2012Metric", two, "C")
    t["cap_el"] = _template("CP", "Capacitor_THT:CP_Radial_D8.0mm_P3.50mm", two, "C")
    # MF-MSMF050-2 is an 1812 part (Bourns MF-MSMF datasheet), SMF6.0A a SOD-123FL
    # (Littelfuse SMF datasheet: KiCad's D_SOD-123F is that land pattern), EEU-FR1A471
    # a radial 8 x 11.5 mm can with 3.5 mm lead spacing (Panasonic FR datasheet).
    t["fuse"] = _template("PTC", "Fuse:Fuse_1812_4532Metric", two, "F")
    t["tvs"] = _template("TVS", "Diode_SMD:D_SOD-323",
                         [(1, "K", T.PASSIVE), (2, "A", T.PASSIVE)], "D")
    t["tvs_flat"] = _template("TVS", "Diode_SMD:D_SOD-123F",
                              [(1, "K", T.PASSIVE), (2, "A", T.PASSIVE)], "D")
    t["esd2"] = _template("ESD2", "Package_TO_SOT_SMD:SOT-23",
                          [(1, "L1", T.PASSIVE), (2, "L2", T.PASSIVE), (3, "GND", T.PASSIVE)],
                          "D")
    t["led"] = _template("WS2812B", "LED_SMD:LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm",
                         [(1, "VDD", T.PWRIN), (2, "DOUT", T.OUTPUT), (3, "VSS", T.PWRIN),
                          (4, "DIN", T.INPUT)], "D")
    t["buf4"] = _template("74LVC125A", "Package_SO:SOIC-14_3.9x8.7mm_P1.27mm",
                          [(1, "~1OE", T.INPUT), (2, "1A", T.INPUT), (3, "1Y", T.OUTPUT),
                           (4, "~2OE", T.INPUT), (5, "2A", T.INPUT), (6, "2Y", T.OUTPUT),
                           (7, "GND", T.PWRIN), (8, "3Y", T.OUTPUT), (9, "3A", T.INPUT),
                           (10, "~3OE", T.INPUT), (11, "4Y", T.OUTPUT), (12, "4A", T.INPUT),
                           (13, "~4OE", T.INPUT), (14, "VCC", T.PWRIN)])
    t["buf"] = _template("74LV1T125", "Package_TO_SOT_SMD:SOT-23-5",
                         [(1, "~OE", T.INPUT), (2, "A", T.INPUT), (3, "GND", T.PWRIN),
                          (4, "Y", T.OUTPUT), (5, "VCC", T.PWRIN)])
    t["oled"] = _template("SSD1306_MODULE",
                          "Connector_PinSocket_2.54mm:PinSocket_1x04_P2.54mm_Vertical",
                          [(1, "GND", T.PWRIN), (2, "VCC", T.PWRIN), (3, "SCL", T.INPUT),
                           (4, "SDA", T.BIDIR)], "DS")
    t["sw"] = _template("SW_PUSH", "Button_Switch_SMD:SW_SPST_B3S-1000", two, "SW")
    t["tp"] = _template("TESTPOINT", "TestPoint:TestPoint_Pad_D1.5mm", [(1, "1", T.PASSIVE)],
                        "TP")
    t["ribbon"] = _template("RIBBON_2x10", "Connector_IDC:IDC-Header_2x10_P2.54mm_Vertical",
                            [(i + 1, "P%d" % (i + 1), T.PASSIVE) for i in range(20)], "J")
    t["xh3"] = _template("XH_3", "Connector_JST:JST_XH_B3B-XH-A_1x03_P2.50mm_Vertical",
                         [(1, "1", T.PASSIVE), (2, "2", T.PASSIVE), (3, "3", T.PASSIVE)], "J")
    t["usbc"] = _template("USB_C_POWER",
                          "Connector_USB:USB_C_Receptacle_GCT_USB4135-GF-A_6P_TopMnt_Horizontal",
                          [("A9", "VBUS1", T.PASSIVE), ("B9", "VBUS2", T.PASSIVE),
                           ("A12", "GND1", T.PASSIVE), ("B12", "GND2", T.PASSIVE),
                           ("A5", "CC1", T.PASSIVE), ("B5", "CC2", T.PASSIVE),
                           ("S1", "SHIELD", T.PASSIVE)], "J")
    return t


class _Refs:
    """Next free number per prefix for parts added by this revision (C, R, D)."""

    def __init__(self, start):
        self.next = dict(start)

    def __call__(self, prefix):
        n = self.next[prefix]
        self.next[prefix] = n + 1
        return "%s%d" % (prefix, n)


def build(pm):
    """Create every part and net for pin map `pm` in SKiDL's default circuit."""
    BOARDS.clear()
    t = _templates(pm)
    new_ref = _Refs({"C": 162, "R": 14, "D": 29})
    v3 = Net("3V3")
    gnd = Net("GND")
    vin = Net("5V_IN")
    v5s = Net("5V_SW")
    v5f = Net("5V_F")
    v3s = Net("3V3S")
    # The LEDs' return has its own wire in each ribbon and its own copper on the
    # boards, joined to GND at one point, a 0 ohm resistor at the power input: the
    # LEDs' PWM current pulses do not flow in the sensors' ground.
    gnd_led = Net("GND_LED")
    gnd_led.drive = POWER  # reaches GND through R36
    for n in (vin, v5s, v5f):
        n.drive = POWER  # from the USB-C power input, through the switch and the fuse
    u1 = _part(t["devkit"], "U1", pm["board"].split(" ")[0])
    u1["3V3"] += v3
    for p in u1.pins:
        if p.name.startswith("GND"):
            p += gnd

    def gpio(g):
        return u1["GPIO%d" % g]

    def cap(ref, value, a, b, tmpl="cap", board=("main", "main"), role=None):
        c = _part(t[tmpl], ref, value, board, role)
        c[1] += a
        c[2] += b
        return c

    def res(ref, value, a, b, board=("main", "main"), role=None):
        r = _part(t["res"], ref, value, board, role)
        r[1] += a
        r[2] += b
        return r

    # Power input: USB-C (5 V only: 5.1k on CC1/CC2 asks for default USB power), TVS,
    # at most 4.7 uF on VBUS, then an eFuse: rated 21 V on its input, above anything
    # the TVS lets through (README, "The TVS and the eFuse"), it clamps its output at
    # 5.7 V, limits the current, and its DVDT capacitor ramps the 470 uF behind it up
    # slowly; then the PTC fuse.
    j5 = _part(t["usbc"], "J5", "USB-C power")
    for pin in ("VBUS1", "VBUS2"):
        j5[pin] += vin
    for pin in ("GND1", "GND2", "SHIELD"):
        j5[pin] += gnd
    for pin in ("CC1", "CC2"):
        cc = Net(pin)
        j5[pin] += cc
        res(new_ref("R"), "5.1k", cc, gnd)
    # SMF6.0A: stand-off 6.0 V, above USB's 5.25 V (USB 2.0 sec. 7.2.1), so it does
    # not conduct at a high-end charger; see the README for its clamp and U3's 6 V.
    d = _part(t["tvs_flat"], new_ref("D"), "SMF6.0A")
    d["K"] += vin
    d["A"] += gnd
    cap(new_ref("C"), "4.7u", vin, gnd, "cap_bulk")
    u3 = _part(t["efuse"], "U3", "TPS259621DDAR")
    u3["IN"] += vin
    u3["OUT"] += v5s
    u3["GND"] += gnd
    u3["EP"] += gnd
    dvdt = Net("EF_DVDT")
    u3["DVDT"] += dvdt
    cap(new_ref("C"), "10n", dvdt, gnd)
    # EN/UVLO (absolute maximum 7 V) from VBUS through a divider: 0.32 x VBUS, 6.7 V at
    # the input's own 21 V rating. With the TPS2595's 1.2 V EN threshold (its sister
    # part; an estimate here) it switches on near 3.8 V of VBUS.
    en = Net("EF_EN")
    u3["EN"] += en
    res("R37", "100k", vin, en)
    res("R38", "47k", en, gnd)
    # ILM: the current limit, 903 / R + 0.011 A (SLVSET8A eq. 7): 0.76 A with 1.21k,
    # above the board's power budget (power.py), so it bounds a fault or the inrush.
    ilm = Net("EF_ILM")
    u3["ILM"] += ilm
    res("R39", "1.21k", ilm, gnd)
    # OVCSEL through 400 kOhm to GND selects the 5.7 V output clamp (SLVSET8A table 1;
    # 402k is the E96 value).
    ovc = Net("EF_OVCSEL")
    u3["OVCSEL"] += ovc
    res("R40", "402k", ovc, gnd)
    f1 = _part(t["fuse"], "F1", "MF-MSMF050-2")
    f1[1] += v5s
    f1[2] += v5f
    cap("C157", "470u", v5f, gnd, "cap_el")
    u2 = _part(t["ldo"], "U2", "AP2112K-3.3")
    u2["VIN"] += v5f
    u2["EN"] += v5f
    u2["GND"] += gnd
    u2["VOUT"] += v3s
    cap(new_ref("C"), "1u", v5f, gnd)  # AP2112K input
    cap(new_ref("C"), "1u", v3s, gnd)  # AP2112K output

    # Power domains: the DevKit's 3V3 and the power input's 3V3S/5V_F come and go
    # apart (either USB cable may be in alone). Every MCU output into a part on 3V3S
    # passes one channel of an SN74LVC125A on 3V3S: its inputs are rated for a
    # powered-down supply (Ioff, SCAS290 sec. 1: at most 10 uA with VCC = 0), so a
    # high GPIO feeds nothing into an unplugged 3V3S. A 100k pull-down at each input
    # (10k, R9, at the decoder's enable) gives every buffer a low input while the MCU
    # is off: E3 low, so U18 (on 3V3S, the rail of the P-FET gates and the mux
    # enables it drives) holds every Y high and every group switch off.
    lines = []

    def buffered(n, name, pull="100k"):
        """The 3V3S-side copy of MCU output net `n`, through the next buffer channel."""
        k = len(lines)
        if k % 4 == 0:
            u = _part(t["buf4"], "U%d" % (20 + k // 4), "SN74LVC125ADR")
            u["VCC"] += v3s
            u["GND"] += gnd
            cap("C%d" % (182 + k // 4), "100n", v3s, gnd)
            lines.append(u)
        else:
            lines.append(lines[-1])
        u = lines[-1]
        ch = k % 4 + 1
        out = Net(name)
        u["%dA" % ch] += n
        u["~%dOE" % ch] += gnd
        u["%dY" % ch] += out
        if name == "SPWR_EN_B":
            res("R9", "10k", n, gnd)
        else:
            res(new_ref("R"), pull, n, gnd)
        return out

    # External ADC: ratiometric, VREF = VDD = the sensors' own 3V3S.
    u4 = _part(t["adc"], "U4", "MCP3208-CI/SL")
    u4["VDD"] += v3s
    u4["VREF"] += v3s
    u4["AGND"] += gnd
    u4["DGND"] += gnd
    cap(new_ref("C"), "100n", v3s, gnd)  # VDD
    cap(new_ref("C"), "1u", v3s, gnd)  # VREF
    # 1k in each SPI line (after the buffers for the three into the ADC): it damps the
    # edges and limits MISO's current into an unpowered MCU to ~3 mA.
    new_ref.next["R"] = max(new_ref.next["R"], 20)  # R16-R19 are the SPI resistors
    spi = pm["adc"]["spi"]
    spi_nets = {}
    for key in ("sck", "mosi", "miso", "cs"):
        n = Net("ADC_" + key.upper())
        n += gpio(spi[key])
        spi_nets[key] = n

    sel = [Net("MUX_S%d" % i) for i in range(4)]
    for i, g in enumerate(pm["mux"]["select"]):
        sel[i] += gpio(g)
    sel = [buffered(sel[i], "MUX_S%d_B" % i) for i in range(4)]

    u18 = _part(t["dec"], "U18", "SN74HC138D")
    u18["VCC"] += v3s
    u18["GND"] += gnd
    u18["~E1"] += gnd
    u18["~E2"] += gnd
    cap(new_ref("C"), "100n", v3s, gnd)
    for i, g in enumerate(pm["sensor_power"]["decoder"]):
        n = Net("SPWR_A%d" % i)
        n += gpio(g)
        u18["A%d" % i] += buffered(n, "SPWR_A%d_B" % i)
    en = Net("SPWR_EN")
    en += gpio(pm["sensor_power"]["enable"])
    u18["E3"] += buffered(en, "SPWR_EN_B")
    for i, (key, pin) in enumerate((("sck", "CLK"), ("mosi", "DIN"), ("miso", "DOUT"),
                                    ("cs", "~CS"))):
        n = spi_nets[key]
        if key != "miso":
            n = buffered(n, "ADC_%s_B" % key.upper())
        nr = Net("ADC_%s_R" % key.upper())
        u4[pin] += nr
        res("R%d" % (16 + i), "1k", n, nr)
    spare = lines[-1]  # the twelfth channel: input and output tied off
    spare["4A"] += gnd
    spare["~4OE"] += v3s

    if "vsense" in pm:
        # only a pin map with a VSENSE pin (none since the ADC's reference is the
        # sensor rail itself: a reading is already a fraction of 3V3S)
        vs = Net("VSENSE")
        vs += gpio(pm["vsense"]["pin"])
        res("R10", "10k", v3s, vs)
        res("R11", "10k", vs, gnd)

    # LED data: 3.3 V to 5 V buffer (bypassed), pulled down so the chain sees a
    # steady low while the MCU boots, 330R series, then through the quarter boards.
    # SN74LV1T125: TTL-level inputs at VCC = 5 V and Ioff (inputs and output rated
    # for a powered-down supply, its datasheet's features), so a high LED_DATA with the power
    # input unplugged feeds nothing into 5V_F.
    u19 = _part(t["buf"], "U19", "SN74LV1T125DBVR")
    u19["VCC"] += v5f
    u19["GND"] += gnd
    u19["~OE"] += gnd
    cap(new_ref("C"), "100n", v5f, gnd)
    d0 = Net("LED_DATA")
    d0 += gpio(pm["led"]["pin"])
    u19["A"] += d0
    res("R13", "10k", d0, gnd)
    ybuf = Net("LED_BUF")
    u19["Y"] += ybuf
    chain = pm["led"]["chain"]
    din = [Net("LED_DIN%d" % (i + 1)) for i in range(len(chain))] + [Net("LED_END")]
    res("R12", "330", ybuf, din[0])

    def led(i, board, role):
        dd = _part(t["led"], "D%d" % (i + 1), "WS2812B " + chain[i], board, role)
        dd["VDD"] += v5f
        dd["VSS"] += gnd_led
        dd["DIN"] += din[i]
        dd["DOUT"] += din[i + 1]
        cap("C%d" % (129 + i), "100n", v5f, gnd_led, board=board, role="C" + role)

    esd_pairs = []
    hcount = 0
    n_mux = pm["mux"]["count"]
    grp_n = [Net("GRP%d_N" % m) for m in range(n_mux)]
    grp = [Net("GRP%d" % m) for m in range(n_mux)]
    outs = [Net("MUX_OUT%d" % m) for m in range(n_mux)]
    for m in range(n_mux):
        grp[m].drive = POWER  # switched sensor supply
        u18["Y%d" % m] += grp_n[m]
        u4["CH%d" % m] += outs[m]
    for q in range(n_mux // 2):
        qb = ("quarter%d" % q, "quarter")
        jm = _part(t["ribbon"], "J%d" % (1 + q), "2x10 shrouded", role="J%d" % (1 + q))
        jq = _part(t["ribbon"], "J%d" % (6 + q), "2x10 shrouded", qb, "J_RIBBON")
        first = 6 * q  # LED index of this quarter's first LED
        # The quarter's sixth LED drives ~1 m of ribbon (back to the main board and
        # on to the next quarter): a series resistor at its output matches the line
        # (the simulation in hardware/tools/spice.py sizes it).
        led_out = Net("LED_OUT%d" % q)
        res(new_ref("R"), "68", din[first + 6], led_out, qb, "R_LEDOUT")
        sig = {"3V3S": v3s, "GND": gnd, "GND_LED": gnd_led, "5V_F": v5f, "LED_IN": din[first],
               "LED_OUT": led_out}
        for i in range(4):
            sig["MUX_S%d" % i] = sel[i]
        for k, side in enumerate("AB"):
            m = 2 * q + k
            sig["/GRP_" + side] = grp_n[m]
            sig["OUT_" + side] = outs[m]
        for i, name in enumerate(hwlib.RIBBON):
            jm["P%d" % (i + 1)] += sig[name]
            jq["P%d" % (i + 1)] += sig[name]
        esd_pairs.append((outs[2 * q], outs[2 * q + 1]))
        cap("C%d" % (158 + q), "10u", v3s, gnd, "cap_bulk", qb, "C_BULK")
        # bulk at the quarter's six LEDs: their PWM current pulses are drawn from here,
        # not through ~0.5 m of ribbon
        cap("C%d" % (178 + q), "22u", v5f, gnd_led, "cap_bulk", qb, "C_BULK5")
        for k in range(2):
            m = 2 * q + k
            q_fet = _part(t["pfet"], "Q%d" % (m + 1), "AO3401A", qb, "Q%d" % (k + 1))
            q_fet["G"] += grp_n[m]
            q_fet["S"] += v3s
            q_fet["D"] += grp[m]
            res("R%d" % (m + 1), "10k", grp_n[m], v3s, qb, "R%d" % (k + 1))
            tp = _part(t["tp"], "TP%d" % (m + 3), "GRP%d" % m, qb, "TP%d" % (k + 1))
            tp[1] += grp[m]
            u = _part(t["mux"], "U%d" % (10 + m), "CD74HC4067M96", qb, "U%d" % (k + 1))
            u["VCC"] += v3s
            u["GND"] += gnd
            u["~E"] += grp_n[m]
            cap(new_ref("C"), "100n", v3s, gnd, board=qb, role="C_MUX%d" % (k + 1))
            for i in range(4):
                u["S%d" % i] += sel[i]
            u["COM"] += outs[m]
            for ch, label in enumerate(pm["channels"][m]):
                if not label:
                    continue
                hcount += 1
                s = Net("S_" + label.replace(".", "_"))
                loc, slot = hwlib.parse_label(label)
                if isinstance(loc, int):
                    board, role = qb, "H_%d_%d" % ((loc - 1) % 6, slot)
                else:
                    board, role = ("spot-" + label, "spot"), "H"
                    jx = _part(t["xh3"], "J%d" % (10 + 2 * q + k), "XH 3-pin", qb,
                               "J_SPOT%d" % (k + 1))
                    js = _part(t["xh3"], "J%d" % (18 + 2 * q + k), "XH 3-pin", board, "J")
                    for jj in (jx, js):
                        jj[1] += grp[m]
                        jj[2] += gnd
                        jj[3] += s
                h = _part(t["hall"], "H%d" % hcount, "DRV5055 " + label, board, role)
                h["VCC"] += grp[m]
                h["GND"] += gnd
                h["OUT"] += s
                u["I%d" % ch] += s
                cap("C%d" % hcount, "100n", grp[m], gnd, board=board, role="C" + role)
        for i in range(6):
            led(first + i, qb, "D_%d" % i)
        din[first + 6] = led_out  # the next quarter (or the trays' LEDs) reads it here
    # The trays' LEDs sit on the main board, which lies between the trays; the bar's two
    # LEDs on the bar-LED board in the middle of the bar, reached by a 3-pin cable.
    bar_b = ("bar", "bar")
    for i in range(4 * 6, len(chain)):
        on_bar = chain[i].startswith("bar")
        led(i, bar_b if on_bar else ("main", "main"), "D%d" % (i + 1))
    first_bar = min(i for i in range(len(chain)) if chain[i].startswith("bar"))
    jm = _part(t["xh3"], "J26", "XH 3-pin", role="J26")
    jb = _part(t["xh3"], "J27", "XH 3-pin", bar_b, "J")
    for jj in (jm, jb):
        jj[1] += v5f
        jj[2] += gnd_led
        jj[3] += din[first_bar]
    tp = _part(t["tp"], "TP11", "LED_END", bar_b, "TP11")  # data must come out of the last LED
    tp[1] += din[-1]
    for a, b in esd_pairs:  # ESD on the analog ribbon lines, at the main board's headers
        dd = _part(t["esd2"], new_ref("D"), "PESD3V3S2UT")
        dd["L1"] += a
        dd["L2"] += b
        dd["GND"] += gnd

    ds1 = _part(t["oled"], "DS1", "SSD1306 128x64")
    ds1["VCC"] += v3
    ds1["GND"] += gnd
    sda = Net("I2C_SDA")
    scl = Net("I2C_SCL")
    sda += gpio(pm["i2c"]["sda"])
    scl += gpio(pm["i2c"]["scl"])
    ds1["SDA"] += sda
    ds1["SCL"] += scl
    # I2C pull-ups on the main board: the module's own are not to be relied on (some
    # modules have none); 4.7k to the OLED's 3V3 gives ~1 us rise at 400 kHz loads.
    for n in (sda, scl):
        res(new_ref("R"), "4.7k", n, v3)

    for i, key in enumerate(("ok", "back", "menu")):
        s = _part(t["sw"], "SW%d" % (i + 1), key)
        n = Net("BTN_" + key.upper())
        n += gpio(pm["buttons"][key])
        s[1] += n
        s[2] += gnd
        dd = _part(t["tvs"], new_ref("D"), "PESD3V3L1BA")  # ESD at the button
        dd["K"] += n
        dd["A"] += gnd

    res("R36", "0", gnd_led, gnd)  # the one point where the LEDs' return meets GND
    t1 = _part(t["tp"], "TP1", "3V3S")
    t1[1] += v3s
    t2 = _part(t["tp"], "TP2", "5V_F")
    t2[1] += v5f
    t12 = _part(t["tp"], "TP12", "GND")
    t12[1] += gnd


def boards_json():
    """The part -> board table as stable JSON text."""
    import json
    lines = ["  %s: %s" % (json.dumps(ref), json.dumps(list(BOARDS[ref])))
             for ref in sorted(BOARDS)]
    return "{\n" + ",\n".join(lines) + "\n}\n"


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
    if len(argv) > 2:  # the part -> board table for the PCB generator
        with open(argv[2], "w") as f:
            f.write(boards_json())
    print("ERC errors: %d, warnings: %d" % (errors, warnings))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
