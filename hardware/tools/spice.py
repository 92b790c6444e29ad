"""Circuit simulations with ngspice, decks generated from the schematic's netlist.

    python hardware/tools/spice.py [NETLIST]   # run all four, print the figures

(a) power sequencing: the power input alone (DevKit unplugged) and the DevKit alone
    (power input unplugged): the group switches' gate-source voltage, the sensor rail
    fed backwards, the current into any input clamp;
(b) the sensing chain: a sensor through the multiplexer, the ribbon and the ESD diode
    into the MCP3208's sample capacitor, after a channel switch: the settling error
    in LSB at the end of the sample window;
(c) the LED data line: a quarter board's last LED driving the ribbon back to the
    main board and on to the next quarter: overshoot, undershoot, false edges;
(d) the power input at the surge the design claims (the TVS's rated pulse) and at a
    hot plug: the voltage on the input part the TVS protects, against its absolute
    maximum, and on the 5 V rail behind it.

What the decks take from the netlist: which rail the decoder (U18) and the input
buffers run on, whether a GPIO reaches a 3V3S part directly, through a resistor or
through a buffer rated for a powered-down supply (Ioff), the pull resistors' values,
the LED line's series resistor. The parts' own figures are below, each with its
source; those marked "estimate" are not datasheet values.
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)
NETLIST = os.path.join(HW, "netlist", "nardy-esp32s3.net")
sys.path.insert(0, HERE)

import assembly  # noqa: E402

NGSPICE = "ngspice"

# -- part figures -------------------------------------------------------------------

PFET_VTH_MIN = 0.5  # AO3401A |VGS(th)| min (Alpha & Omega AO3401A datasheet)
CLAMP_LIMIT_MA = 1.0  # our limit per input clamp: 74HC/LVC absolute max is 20 mA
IOFF_UA = 10.0  # SN74LVC125A / SN74LV1T125 Ioff max with VCC = 0 (TI datasheets)
GPIO_ROUT = 30.0  # ESP32-S3 GPIO at drive strength 2 (~20 mA): estimate
DEVKIT_OFF_LOAD = 1e3  # the DevKit's 3V3 rail unpowered, as a load: estimate
RAIL_OFF_LOAD = 2e3  # 3V3S unpowered (LDO off, CMOS parts below their supply): estimate
LDO_OUT = 3.3  # AP2112K-3.3
SOFT_START_S = 10e-3  # the eFuse's output ramp with 10 nF on DVDT: estimate (power.py)

SENSOR_ROUT = 50.0  # DRV5055 output stage: estimate (SBAS640 gives no figure)
MUX_RON = 200.0  # CD74HC4067 at 3.3 V: 70 typ / 160 max at 4.5 V (SCHS209): estimate
MUX_C_COM = 70.0e-12  # CD74HC4067 common terminal, all switches: estimate from SCHS209
ESD_C = 200.0e-12  # PESD3V3S2UT line capacitance at 0 V: estimate from Nexperia data
RIBBON_C_PER_M = 50.0e-12  # 1.27 mm flat cable, signal to the grounds beside it: estimate
ADC_RSS = 1.0e3  # MCP3208 sampling switch (DS21298 fig. 4-1)
ADC_CSAMPLE = 20.0e-12  # MCP3208 sample capacitor (DS21298 fig. 4-1)
SPI_HZ = 1.0e6  # pin map adc.spi.baud
SAMPLE_CLOCKS = 1.5  # DS21298 sec. 5.0: the sample window is 1.5 clocks
CHANNEL_GAP_S = 0.0  # select change to the start of the transfer: worst, none
VREF = 3.3

LED_VDD = 5.0
LED_ROUT = 40.0  # WS2812B DOUT output: estimate (no datasheet figure)
LED_RISE_S = 10e-9  # estimate
LED_C_IN = 5e-12  # WS2812B DIN: estimate
RIBBON_Z0 = 110.0  # a signal wire between ground wires, 1.27 mm pitch: estimate
RIBBON_S_PER_M = 4.8e-9  # PVC flat cable, velocity ~0.7 c: estimate
LED_VIH = 0.7 * LED_VDD  # WS2812B datasheet: VIH 0.7 VDD, VIL 0.3 VDD
LED_VIL = 0.3 * LED_VDD
LED_ABS_MARGIN = 0.5  # WS2812B inputs: -0.5 V .. VDD + 0.5 V absolute maximum

# (d) the power input at a surge. The surge the design claims: the TVS's own rated
# pulse (10/1000 us at its IPP), on a USB source at its 5.25 V maximum, the board
# running; and a hot plug of that source through its cable onto the input capacitor.
VBUS_MAX = 5.25  # USB 2.0 sec. 7.2.1
TVS_VBR_MAX = 7.37  # SMF6.0A VBR at 10 mA, max (Littelfuse SMF; EIC and Kexin SMF sheets)
TVS_VC = 10.3  # SMF6.0A clamping voltage at IPP, max (same sheets)
TVS_IPP = 19.4  # SMF6.0A peak pulse current, 10/1000 us (same sheets)
VBUS_C = 4.7e-6  # C162
CABLE_L = 1.0e-6  # a 1 m USB cable's loop inductance: estimate
CABLE_R = 0.1  # its VBUS and GND wires together: estimate
FUSE_R = 0.15  # MF-MSMF050-2 resistance, minimum (Bourns MF-MSMF datasheet)
BULK_ESR = 0.05  # C157 (Panasonic FR 470 uF): estimate
SURGE_LOAD_OHMS = 10.0  # 0.5 A on 5V_F, the power input's budget (power.py)
# The part behind the TVS, by the value the netlist gives U3: its input's absolute
# maximum, on-resistance and, for an eFuse, its output clamp and response time.
SWITCHES = {
    "TPS22918": {"abs_max": 6.0, "ron": 0.052, "clamp": None, "t_clamp": None,
                 "source": "TI TPS22918: VIN 6 V absolute maximum, RON 52 mOhm typ"},
    "TPS259621DDAR": {"abs_max": 21.0, "ron": 0.089, "clamp": 5.7, "t_clamp": 10e-6,
                      "source": "TI SLVSET8A: IN 21 V absolute maximum, RON 89 mOhm typ,"
                                " output clamp 5.7 V (OVCSEL 400k) within 5 us typ;"
                                " 10 us here (estimate: no maximum is given)"},
}
# What the 5 V rail (5V_F) may reach during the surge: 6.0 V, the highest input the
# AP2112K (on 5V_F) is rated to work at (Diodes AP2112: 2.5-6.0 V). Without a clamp
# the 470 uF charges towards the TVS's voltage. The WS2812B's electrical
# characteristics stop at VDD 5.5 V: the README says what the eFuse's 5.7 V clamp
# means for them.
RAIL_5V_LIMIT = 6.0
EN_ABS_MAX = 7.0  # TPS259621 EN/UVLO absolute maximum (TI SLVSET8A)
EN_DIVIDER = 47.0 / (100.0 + 47.0)  # R38 / (R37 + R38)

# -- netlist -----------------------------------------------------------------------


def read_netlist(path=NETLIST):
    with open(path) as f:
        text = f.read()
    values = dict(re.findall(r'\(comp\s*\(ref "([^"]+)"\)\s*\(value "([^"]*)"\)', text))
    nets = {}
    for block in re.split(r"\(net\s*\(code", text)[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block).group(1)
        nets[name] = re.findall(r'\(ref "([^"]+)"\)\s*\(pin "([^"]+)"\)', block)
    return values, nets


def _net_of(nets, ref, pin):
    for name, nodes in nets.items():
        if (ref, pin) in nodes:
            return name
    raise KeyError((ref, pin))


def _ohms(v):
    m = re.match(r"([\d.]+)([kM]?)", v)
    return float(m.group(1)) * {"": 1.0, "k": 1e3, "M": 1e6}[m.group(2)]


def _resistor_between(values, nets, a, b=None):
    """(ref, ohms, other net) of a resistor with one pin on net a (and one on b)."""
    for ref, _pin in nets[a]:
        if not ref.startswith("R"):
            continue
        other = [n for n, nodes in nets.items() if n != a and any(r == ref for r, _ in nodes)]
        if other and (b is None or other[0] == b):
            return ref, _ohms(values[ref]), other[0]
    return None


def topology(path=NETLIST):
    """What the power-sequencing deck needs to know, read from the netlist."""
    values, nets = read_netlist(path)
    t = {"u18_rail": _net_of(nets, "U18", "16")}
    gate = "GRP0_N"
    _r, t["gate_pull"], t["gate_rail"] = _resistor_between(values, nets, gate)
    e3 = _net_of(nets, "U18", "6")
    s0 = _net_of(nets, "U10", "10")  # a mux's S0
    for key, net in (("e3", e3), ("s0", s0)):
        refs = [r for r, _ in nets[net]]
        if "U1" in refs:
            t[key] = {"via": "direct", "rail": None}
            src = net
        else:
            bufs = [(r, p) for r, p in nets[net] if r.startswith("U") and r != "U18"
                    and not r.startswith("U1" if key == "e3" else "U9")]
            bufs = [(r, p) for r, p in bufs if values[r].startswith("SN74LVC125")]
            if bufs:
                ref, pin = bufs[0]
                a_pin = {"3": "2", "6": "5", "8": "9", "11": "12"}[pin]
                src = _net_of(nets, ref, a_pin)
                t[key] = {"via": "ioff buffer", "rail": _net_of(nets, ref, "14")}
            else:
                r = [x for x in refs if x.startswith("R")]
                other = _resistor_between(values, nets, net)
                t[key] = {"via": "resistor %g" % other[1], "rail": None}
                src = other[2]
        pull = [x for x in (_resistor_between(values, nets, src, "GND"),
                            _resistor_between(values, nets, net, "GND")) if x]
        t[key]["pulldown"] = pull[0][1] if pull else None
    led = _net_of(nets, "D6", "2")  # quarter 0's sixth LED, DOUT
    r = _resistor_between(values, nets, led)
    t["led_series"] = r[1] if r and r[0] != "R12" else 0.0
    t["input_switch"] = values[_power_input_switch(nets)]
    return t


def _power_input_switch(nets):
    """The part whose supply pin sits on the TVS's node (5V_IN) and that feeds 5V_SW:
    the one the TVS protects."""
    on_vin = set(r for r, _ in nets["5V_IN"])
    on_sw = set(r for r, _ in nets["5V_SW"])
    (ref,) = sorted(r for r in on_vin & on_sw if r.startswith("U"))
    return ref


# -- running ---------------------------------------------------------------------------

def run_deck(text):
    """Run one deck in batch mode; {measure name: value}."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "deck.cir")
        with open(path, "w") as f:
            f.write(text)
        r = subprocess.run([NGSPICE, "-b", path], capture_output=True, text=True, cwd=tmp,
                           timeout=120)
    out = {}
    for m in re.finditer(r"^\s*(\w+)\s*=\s*([-+0-9.eE]+)", r.stdout, re.M):
        out[m.group(1).lower()] = float(m.group(2))
    if r.returncode != 0 or not out:
        raise RuntimeError("ngspice failed:\n" + r.stdout[-2000:] + r.stderr[-2000:])
    return out


DIODE = ".model dclamp d(is=1e-14 n=1.05 rs=5)\n"


def _input(name, node, rail, ioff):
    """An input pin on `rail`: clamp diodes (through a 0 V probe to measure their
    current), or, rated for a powered-down supply, only its Ioff leakage."""
    if ioff:
        return "R%s %s %s %g\n" % (name, node, rail, 3.3 / (IOFF_UA * 1e-6))
    return ("V%sp %s %s_c 0\nD%sh %s_c %s dclamp\nD%sl 0 %s dclamp\n"
            % (name, node, name, name, name, rail, name, node))


def _logic(name, out, vin, rail, invert=False):
    """A CMOS output on `rail` following input node vin (threshold half the rail),
    driving through 50 ohm only above 1.5 V of supply (below: high impedance); its
    output diodes clamp it to the rail."""
    cond = "(v(%s) > v(%s)/2)" % (vin, rail)
    if invert:
        cond = "(v(%s) < v(%s)/2)" % (vin, rail)
    return ("B%s %s 0 I = (v(%s) > 1.5) ? (v(%s) - (%s ? v(%s) : 0)) / 50 : 0\n"
            "D%sh %s %s dclamp\nD%sl 0 %s dclamp\n"
            % (name, out, rail, out, cond, rail, name, out, rail, name, out))


def sequencing_deck(t, case):
    """case 'power_only': USB-C in, DevKit out; 'devkit_only': the reverse."""
    power = case == "power_only"
    d = ["* power sequencing: %s\n" % case, DIODE]
    if power:
        d.append("V5 n5v 0 PWL(0 0 %g 5)\n" % SOFT_START_S)
        d.append("B3v3s n3v3s_i 0 V = min(%g, max(0, v(n5v) - 0.25))\nR3v3s n3v3s_i n3v3s 0.5\n"
                 % LDO_OUT)
        d.append("R3v3 n3v3 0 %g\n" % DEVKIT_OFF_LOAD)
        d.append("Rgpio ngpio n3v3 1e9\n")  # an unpowered MCU's pin: its clamps only
        d.append("Dgh ngpio n3v3 dclamp\nDgl 0 ngpio dclamp\n")
    else:
        d.append("R3v3s n3v3s 0 %g\n" % RAIL_OFF_LOAD)
        d.append("V3v3 n3v3 0 3.3\n")
        d.append("Vgpio ngpio_i 0 3.3\nRgpio ngpio_i ngpio %g\n" % GPIO_ROUT)  # every line high
    d.append("C3v3s n3v3s 0 20u\nC3v3 n3v3 0 10u\n")
    rails = {"3V3": "n3v3", "3V3S": "n3v3s"}
    # The line into the decoder's E3 and a select line, as the netlist wires them.
    for key in ("e3", "s0"):
        info = t[key]
        src = "ngpio"
        if info["pulldown"]:
            d.append("R%spd %s 0 %g\n" % (key, src, info["pulldown"]))
        if info["via"] == "direct":
            node = src
        elif info["via"].startswith("resistor"):
            d.append("R%sser %s n%s %g\n" % (key, src, key, float(info["via"].split()[1])))
            node = "n%s" % key
        else:  # an Ioff buffer on its rail, then its output drives the part
            rail = rails[info["rail"]]
            d.append(_input(key + "b", src, rail, True))
            d.append(_logic(key + "buf", "n%s" % key, src, rail))
            node = "n%s" % key
        if key == "e3":
            u18 = rails[t["u18_rail"]]
            if not info["via"].startswith("ioff") or t["u18_rail"] != info["rail"]:
                d.append(_input("e3u", node, u18, False))
            # Y0 of U18 (A = 000 with E3 high): low when enabled, else high
            d.append(_logic("y0", "ngate", node, u18, invert=True))
        else:
            for m in range(8):  # the eight muxes' S0 inputs on 3V3S
                if not (info["via"].startswith("ioff") and info["rail"] == "3V3S"):
                    d.append(_input("s0m%d" % m, node, "n3v3s", False))
    d.append("Rgate ngate %s %g\n" % (rails[t["gate_rail"]], t["gate_pull"]))
    d.append("Cgate ngate 0 100p\n")
    stop = 2 * SOFT_START_S if power else 5e-3
    d.append(".tran 10u %g\n" % stop)
    d.append(".control\nrun\n")
    d.append("let vsg = v(n3v3s) - v(ngate)\n")
    d.append("meas tran vsg_max max vsg from=%g to=%g\n" % (stop / 20, stop))
    d.append("meas tran v3v3s_max max v(n3v3s)\n")
    d.append("meas tran v3v3_max max v(n3v3)\n")
    probes = [ln.split()[0] for ln in "".join(d).splitlines() if re.match(r"V\w+p ", ln)]
    if probes:
        d.append("let iclamp = abs(i(%s))\n" % probes[0])
        for p in probes[1:]:
            d.append("let iclamp = max(iclamp, abs(i(%s)))\n" % p)
        d.append("meas tran iclamp_max max iclamp\n")
    else:
        d.append("let iclamp = 0*time\nmeas tran iclamp_max max iclamp\n")
    d.append("quit\n.endc\n.end\n")
    return "".join(d)


def sequencing(t=None):
    t = t or topology()
    out = {}
    for case in ("power_only", "devkit_only"):
        out[case] = run_deck(sequencing_deck(t, case))
    return out


def sensing_deck(gap_s=CHANNEL_GAP_S):
    """The new channel is at the top of the sensor's swing, the line still holds the
    previous channel at the bottom, the sample capacitor the one before (bottom)."""
    c_line = MUX_C_COM + ESD_C + RIBBON_C_PER_M * assembly.RIBBON_MM / 1000.0
    t_sample0 = gap_s + 3.0 / SPI_HZ  # start bit, SGL/DIFF, D2..D0: the window opens
    t_sample1 = t_sample0 + SAMPLE_CLOCKS / SPI_HZ
    lo, hi = 0.2, VREF - 0.2  # DRV5055 output swing (SBAS640: 0.2 V from each rail)
    return "".join([
        "* sensing chain settling\n",
        "Vs ns 0 %g\nRs ns nmux %g\n" % (hi, SENSOR_ROUT),
        # the mux switch: closed from t = 0 (the select change)
        "Sw nmux nline nsw 0 swmod\nVsw nsw 0 PWL(0 0 1n 1)\n",
        ".model swmod sw(vt=0.5 ron=%g roff=1e12)\n" % MUX_RON,
        "Cline nline 0 %g ic=%g\n" % (c_line, lo),
        # the ADC's sampling switch closes for the sample window
        "Ss nline nsamp nss 0 sampmod\nVss nss 0 PWL(0 0 %g 0 %g 1 %g 1 %g 0)\n"
        % (t_sample0, t_sample0 + 1e-9, t_sample1, t_sample1 + 1e-9),
        ".model sampmod sw(vt=0.5 ron=%g roff=1e12)\n" % ADC_RSS,
        "Csamp nsamp 0 %g ic=%g\n" % (ADC_CSAMPLE, lo),
        ".tran 1n %g uic\n" % (t_sample1 + 1e-7),
        ".control\nrun\n",
        "let err = (%g - v(nsamp)) * 4096 / %g\n" % (hi, VREF),
        "meas tran err_lsb find err at=%g\n" % t_sample1,
        "quit\n.endc\n.end\n"])


def sensing(gap_s=CHANNEL_GAP_S):
    r = run_deck(sensing_deck(gap_s))
    return {"settling_error_lsb": abs(r["err_lsb"]),
            "line_pf": round((MUX_C_COM + ESD_C + RIBBON_C_PER_M * assembly.RIBBON_MM
                              / 1000.0) * 1e12, 1)}


def led_deck(series_ohms, length_m):
    """A 0.4 us high pulse (a WS2812 '0' bit's high time) down the line."""
    td = RIBBON_S_PER_M * length_m
    return "".join([
        "* LED data line over %.2f m of ribbon, %g ohm series\n" % (length_m, series_ohms),
        DIODE,
        "Vdrv nd 0 PULSE(0 %g 20n %g %g 0.4u 1.25u)\n" % (LED_VDD, LED_RISE_S, LED_RISE_S),
        "Rdrv nd nr %g\n" % LED_ROUT,
        "Rser nr na %g\n" % max(series_ohms, 1e-3),
        "T1 na 0 nb 0 Z0=%g TD=%g\n" % (RIBBON_Z0, td),
        "Cin nb 0 %g\n" % LED_C_IN,
        "Vvdd nvdd 0 %g\nDh nb nvdd dclamp\nDl 0 nb dclamp\n" % LED_VDD,
        ".tran 0.2n 1.2u\n",
        ".control\nrun\n",
        "meas tran vmax max v(nb)\nmeas tran vmin min v(nb)\n",
        # after the first rise through VIH, does it fall back below VIH before the
        # falling edge (0.42 us)? and after the fall through VIL, back above VIL?
        "meas tran t_rise when v(nb)=%g rise=1\n" % LED_VIH,
        "meas tran vlow_after_rise min v(nb) from=%g to=0.4u\n" % (20e-9 + 2 * td + 30e-9),
        "meas tran vhigh_after_fall max v(nb) from=%g to=1.2u\n" % (0.45e-6 + 2 * td + 30e-9),
        "quit\n.endc\n.end\n"])


def led_line(series_ohms=None, length_m=None):
    if series_ohms is None:
        series_ohms = topology()["led_series"]
    if length_m is None:
        length_m = 2 * assembly.RIBBON_MM / 1000.0  # back to the main board, on again
    r = run_deck(led_deck(series_ohms, length_m))
    return {"series_ohms": series_ohms, "length_m": length_m,
            "overshoot_v": round(r["vmax"] - LED_VDD, 3), "undershoot_v": round(r["vmin"], 3),
            "false_low_v": round(r["vlow_after_rise"], 3),
            "false_high_v": round(r["vhigh_after_fall"], 3)}


def surge_deck(switch, case):
    """case 'surge': the TVS's rated 10/1000 us pulse into VBUS with the board running
    (every capacitor at 5.25 V); 'surge_off': the same with the input part off (nothing
    but the TVS takes the pulse); 'hot_plug': a 5.25 V source switched onto the input
    through its cable, the input part still off."""
    sw = SWITCHES[switch]
    rs = (TVS_VC - TVS_VBR_MAX) / TVS_IPP  # the TVS's slope, from its datasheet points
    d = ["* power input: %s, %s\n" % (case, switch),
         ".model dtvs d(is=1e-12 n=1 bv=%g ibv=10m rs=%g)\n" % (TVS_VBR_MAX, rs),
         "Dtvs 0 nin dtvs\n",
         "Cin nin 0 %g ic=%g\n" % (VBUS_C, 0 if case == "hot_plug" else VBUS_MAX)]
    if case == "hot_plug":
        d.append("Vbus nsrc 0 PWL(0 0 50n %g)\n" % VBUS_MAX)
        d.append("Rcab nsrc ncab %g\nLcab ncab nin %g\n" % (CABLE_R, CABLE_L))
        stop = 200e-6
    else:
        # the source through its cable, sourcing only: a USB supply takes no current
        # back, so the whole pulse goes into the board
        d.append("Bbus 0 ncab I = max(0, (%g - v(ncab)) / %g)\nLcab ncab nin %g ic=0\n"
                 % (VBUS_MAX, CABLE_R, CABLE_L))
        # 10/1000 us: front ~ 2.2 tau1, half value at ~1 ms; scaled so the peak is IPP
        d.append("Isurge 0 nin EXP(0 %g 0 4.5u 15u 1.44m)\n" % (TVS_IPP / 0.964))
        stop = 3e-3
    if case == "surge":
        # the input part, on: through its on-resistance, or an eFuse's clamp once it
        # has responded (a delayed copy of "input above the clamp")
        if sw["clamp"]:
            d.append("Btrip ntrip 0 V = v(nin) > %g ? 1 : 0\n" % sw["clamp"])
            d.append("Rtd ntrip ntd 50\nTdel ntd 0 ndel 0 Z0=50 TD=%g\nRtl ndel 0 50\n"
                     % sw["t_clamp"])
            d.append("Bsw nin nsw I = v(ndel) > 0.25 ? max(0, (min(v(nin), %g) - v(nsw)))"
                     " / %g : (v(nin) - v(nsw)) / %g\n" % (sw["clamp"], sw["ron"],
                                                          sw["ron"]))
        else:
            d.append("Rsw nin nsw %g\n" % sw["ron"])
        d.append("Csw nsw 0 1n ic=%g\n" % VBUS_MAX)
        d.append("Rfuse nsw n5f %g\n" % FUSE_R)
        d.append("Resr n5f nbulk %g\nCbulk nbulk 0 470u ic=%g\n" % (BULK_ESR, VBUS_MAX))
        d.append("Rload n5f 0 %g\n" % SURGE_LOAD_OHMS)
    d.append(".tran 50n %g uic\n.control\nrun\n" % stop)
    d.append("meas tran vin_max max v(nin)\n")
    d.append("meas tran v5f_max max v(n5f)\n" if case == "surge"
             else "let z = 0*time\nmeas tran v5f_max max z\n")
    d.append("quit\n.endc\n.end\n")
    return "".join(d)


def surge(switch=None):
    """The power input at the claimed surge and at a hot plug, for the part the netlist
    puts behind the TVS (or `switch`): the highest voltage on that part's input (and
    its absolute maximum), on its EN pin, and on the 5 V rail."""
    switch = switch or topology()["input_switch"]
    r = dict((case, run_deck(surge_deck(switch, case)))
             for case in ("surge", "surge_off", "hot_plug"))
    vin = max(r[case]["vin_max"] for case in r)
    return {"switch": switch, "abs_max": SWITCHES[switch]["abs_max"],
            "vin_surge": round(max(r["surge"]["vin_max"], r["surge_off"]["vin_max"]), 2),
            "vin_hot_plug": round(r["hot_plug"]["vin_max"], 2), "vin_max": round(vin, 2),
            "en_max": round(vin * EN_DIVIDER, 2) if SWITCHES[switch]["clamp"] else None,
            "rail_5v_max": round(r["surge"]["v5f_max"], 2)}


def markdown():
    seq = sequencing()
    sen = sensing()
    led = led_line()
    sg = surge()
    p, k = seq["power_only"], seq["devkit_only"]
    return "\n".join([
        "| simulation | figure | limit |", "| --- | --- | --- |",
        "| (a) power input alone: group switch gate-source, worst | %.3f V | < %.2f V"
        " (AO3401A VGS(th) min) |" % (p["vsg_max"], PFET_VTH_MIN / 2),
        "| (a) power input alone: DevKit 3V3 fed backwards | %.3f V | < 0.5 V |"
        % p["v3v3_max"],
        "| (a) DevKit alone: 3V3S fed backwards | %.3f V | < %.2f V |"
        % (k["v3v3s_max"], PFET_VTH_MIN / 2),
        "| (a) DevKit alone: group switch gate-source, worst | %.3f V | < %.2f V |"
        % (k["vsg_max"], PFET_VTH_MIN / 2),
        "| (a) either: current into an input clamp | %.3f mA | < %.1f mA |"
        % (1e3 * max(p["iclamp_max"], k["iclamp_max"]), CLAMP_LIMIT_MA),
        "| (b) settling error at the end of the sample window, channel switched at the"
        " transfer's start, full-swing step, %.0f pF on the line | %.4f LSB | < 0.5 LSB |"
        % (sen["line_pf"], sen["settling_error_lsb"]),
        "| (c) LED data over %.1f m of ribbon, %g ohm series: overshoot above VDD |"
        " %.2f V | < %.1f V |" % (led["length_m"], led["series_ohms"], led["overshoot_v"],
                                  LED_ABS_MARGIN),
        "| (c) undershoot below GND | %.2f V | > -%.1f V |" % (led["undershoot_v"],
                                                          LED_ABS_MARGIN),
        "| (c) lowest level while high (no false low) | %.2f V | > VIH %.1f V |"
        % (led["false_low_v"], LED_VIH),
        "| (c) highest level after the fall (no false high) | %.2f V | < VIL %.1f V |"
        % (led["false_high_v"], LED_VIL),
        "| (d) the SMF6.0A's rated pulse (%g A, 10/1000 us) on a 5.25 V source: %s input |"
        " %.2f V | < %g V (its absolute maximum) |" % (TVS_IPP, sg["switch"], sg["vin_surge"],
                                                      sg["abs_max"]),
        "| (d) hot plug of a 5.25 V source through 1 m of cable: %s input | %.2f V | < %g V |"
        % (sg["switch"], sg["vin_hot_plug"], sg["abs_max"]),
        "| (d) eFuse EN/UVLO pin at the highest input | %.2f V | < %g V |"
        % (sg["en_max"], EN_ABS_MAX),
        "| (d) 5 V rail (5V_F) during the rated pulse | %.2f V | < %.1f V (AP2112K input)"
        " |" % (sg["rail_5v_max"], RAIL_5V_LIMIT),
    ])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        NETLIST = sys.argv[1]
    print(markdown())
