"""ngspice simulations of the reference hardware (hardware/tools/spice.py): decks
generated from the schematic's netlist, each figure held to its limit, and each deck
run once on a variant it must reject (the design as it was), so the limits can fail.
"""

import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HW = os.path.join(ROOT, "hardware")
sys.path.insert(0, os.path.join(HW, "tools"))

import spice  # noqa: E402

LIMIT_V = spice.PFET_VTH_MIN / 2.0


@pytest.fixture(scope="module")
def seq():
    return spice.sequencing()


def test_power_input_alone_switches_no_group_on(seq):
    p = seq["power_only"]
    assert p["v3v3s_max"] > 3.2  # the sensor rail came up
    assert p["vsg_max"] < LIMIT_V
    assert p["v3v3_max"] < 0.5  # nothing feeds the unplugged DevKit
    assert p["iclamp_max"] * 1e3 < spice.CLAMP_LIMIT_MA


def test_devkit_alone_feeds_nothing_backwards(seq):
    k = seq["devkit_only"]
    assert k["v3v3s_max"] < LIMIT_V
    assert k["vsg_max"] < LIMIT_V
    assert k["iclamp_max"] * 1e3 < spice.CLAMP_LIMIT_MA


def test_sequencing_rejects_the_old_wiring():
    # U18 on the DevKit's 3V3, the select lines and E3 straight from the GPIOs.
    t = spice.topology()
    t["u18_rail"] = "3V3"
    t["e3"] = {"via": "direct", "rail": None, "pulldown": t["e3"]["pulldown"]}
    t["s0"] = {"via": "direct", "rail": None, "pulldown": None}
    old = spice.sequencing(t)
    assert old["power_only"]["vsg_max"] > spice.PFET_VTH_MIN  # every group switched on
    assert old["devkit_only"]["v3v3s_max"] > 1.0  # 3V3S fed through the input clamps


def test_topology_is_read_from_the_netlist():
    t = spice.topology()
    assert t["u18_rail"] == "3V3S" and t["gate_rail"] == "3V3S"
    assert t["e3"]["via"] == "ioff buffer" and t["s0"]["via"] == "ioff buffer"
    assert t["led_series"] > 0


def test_sensing_chain_settles_within_half_an_lsb():
    r = spice.sensing()
    assert r["settling_error_lsb"] < 0.5
    # With a 100x slower chain (e.g. a 20k series resistor) it would not.
    old = spice.MUX_RON
    try:
        spice.MUX_RON = 20e3
        assert spice.sensing()["settling_error_lsb"] > 0.5
    finally:
        spice.MUX_RON = old


def test_led_line_is_clean_over_the_ribbon():
    r = spice.led_line()
    assert r["overshoot_v"] < spice.LED_ABS_MARGIN
    assert r["undershoot_v"] > -spice.LED_ABS_MARGIN
    assert r["false_low_v"] > spice.LED_VIH
    assert r["false_high_v"] < spice.LED_VIL
    bare = spice.led_line(series_ohms=0.0)  # unterminated, as it was
    assert bare["overshoot_v"] > spice.LED_ABS_MARGIN


def test_the_power_input_survives_the_claimed_surge():
    """The TVS's rated pulse and a hot plug: the part behind the TVS (read from the
    netlist) stays below its absolute maximum, its EN pin below its own, and the 5 V
    rail below what its parts are rated for."""
    r = spice.surge()
    assert r["switch"] == spice.topology()["input_switch"] == "TPS259621DDAR"
    assert r["vin_surge"] > spice.TVS_VC * 0.95  # the pulse reached the TVS's clamp
    assert r["vin_max"] < r["abs_max"]
    assert r["en_max"] < spice.EN_ABS_MAX
    assert r["rail_5v_max"] < spice.RAIL_5V_LIMIT


def test_surge_check_rejects_the_old_load_switch():
    # The design as it was: a TPS22918 (6 V absolute maximum) straight behind the TVS.
    old = spice.surge("TPS22918")
    assert old["vin_max"] > old["abs_max"]
    assert old["vin_hot_plug"] > old["abs_max"]  # a plain hot plug was already too much
    assert old["rail_5v_max"] > spice.RAIL_5V_LIMIT  # and the rail followed the TVS


def test_readme_quotes_the_simulated_figures():
    with open(os.path.join(HW, "README.md")) as f:
        text = f.read()
    m = re.search(r"<!-- BEGIN spice -->\n(.*?)\n<!-- END spice -->", text, re.S)
    assert m and m.group(1) == spice.markdown()
