"""The pin map (``firmware/pinmap/*.json``): loaded once, turned into tables.

Pure: no ``machine`` here, so the tables the scanner and the LED driver use are
checked under CPython and unix MicroPython. The JSON is the single source (see
hardware/README.md); this module only reads it.

Only the tables stay: ``PinMap`` has no methods, so ``load`` (once, at boot) lets
this module leave the heap (``nardy.drop_module``) while the pin map lives on.

>>> pm = from_dict({"slots_per_point": 1, "mux": {"count": 2, "channels": 16,
...     "select": [1, 2, 3, 4], "out": [5], "settle_us": 10}, "adc": {"kind": "internal"},
...     "channels": [["P%d.1" % (i + 1) for i in range(16)],
...                  ["P%d.1" % (i + 17) for i in range(8)] + ["bar.1", "bar.2",
...                  "bar.3", "bar.4", "off_white.1", "off_white.2", "off_black.1",
...                  "off_black.2"]],
...     "led": {"pin": 1, "count": 2, "chain": ["P1", "bar_top"]}})
>>> pm.order[0], pm.order[16 + 8], pm.shared_adc
(0, 24, True)
>>> list(pm.led_zones)
[1, 25]
"""

# PinMap's attributes are set by from_dict, not by a method (see above): pyright
# cannot see them.
# pyright: reportAttributeAccessIssue=false

import json
from array import array

from micropython import const

from nardy import drop_module
from nardy.zones import ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W, Layout

NONE = const(0xFFFF)   # a multiplexer input that reads nothing

_LED_ZONES = {"bar_bottom": ZONE_BAR, "bar_top": ZONE_BAR, "off_white": ZONE_OFF_W,
              "off_black": ZONE_OFF_B}


def _int_list(v, what):
    if not isinstance(v, list):
        raise ValueError("pin map: %s must be a list" % what)
    for x in v:
        if not isinstance(x, int):
            raise ValueError("pin map: %s must hold integers" % what)
    return v


class PinMap:
    """The tables (attributes only: see ``from_dict``)."""


def from_dict(d):
    """The PinMap of a parsed pin map file (ValueError when it is wrong)."""
    if not isinstance(d, dict):
        raise ValueError("pin map must be a JSON object")
    # Nothing keeps ``d``: the parsed JSON (128 channel labels) is about 11 KB of
    # heap the board needs for the game.
    pm = PinMap()
    pm.name = d.get("name", "?")
    pm.slots = int(d.get("slots_per_point", 5))
    mux = d.get("mux") or {}
    pm.select = _int_list(mux.get("select", []), "mux.select")
    if len(pm.select) != 4:
        raise ValueError("pin map: four select lines expected")
    pm.nmux = int(mux.get("count", 0))
    pm.nch = int(mux.get("channels", 16))
    adc = d.get("adc") or {}
    # "mcp3208": the reference build, one external SPI ADC whose reference is the
    # sensor supply (ratiometric); "internal": the fallback, the ESP32's own ADC1
    # (one pin per mux, or one shared pin on the classic ESP32).
    pm.adc_kind = adc.get("kind", "internal" if mux.get("out") else "mcp3208")
    pm.samples = max(1, int(adc.get("samples", 1)))
    pm.atten_db = int(adc.get("atten_db", 11))
    pm.full_scale_mV = int(adc.get("full_scale_mV", 3300))
    pm.spi = adc.get("spi") or {}
    pm.outs = []
    pm.adc_channel = []
    if pm.adc_kind == "mcp3208":
        for k in ("sck", "mosi", "miso", "cs"):
            if not isinstance(pm.spi.get(k), int):
                raise ValueError("pin map: adc.spi.%s must be a GPIO number" % k)
        pm.adc_channel = _int_list(mux.get("adc_channel", list(range(pm.nmux))),
                                     "mux.adc_channel")
        if len(pm.adc_channel) != pm.nmux or not pm.nmux:
            raise ValueError("pin map: mux.adc_channel needs one ADC input per mux")
        for c in pm.adc_channel:
            if not 0 <= c <= 7:
                raise ValueError("pin map: the MCP3208 has inputs 0..7")
    elif pm.adc_kind == "internal":
        pm.outs = _int_list(mux.get("out", []), "mux.out")
        if not pm.nmux:
            pm.nmux = len(pm.outs)
        if not pm.outs or (len(pm.outs) != 1 and len(pm.outs) != pm.nmux):
            raise ValueError("pin map: mux.out needs one ADC pin per mux, or one shared")
    else:
        raise ValueError("pin map: adc.kind must be mcp3208 or internal")
    # Classic ESP32 fallback: every mux output joined on one ADC pin; the decoder
    # enables one mux at a time, so the others are high impedance.
    pm.shared_adc = len(pm.outs) == 1 and pm.nmux > 1
    pm.settle_us = int(mux.get("settle_us", 10))
    pw = d.get("sensor_power") or {}
    pm.decoder = _int_list(pw.get("decoder", []), "sensor_power.decoder")
    pm.enable = pw.get("enable")
    pm.on_us = int(pw.get("on_us", 0))
    led = d.get("led") or {}
    pm.led_pin = led.get("pin")
    chain = led.get("chain") or []
    pm.led_count = int(led.get("count", len(chain)))
    pm.led_max = int(d.get("led_max_brightness", 255))
    if not 0 <= pm.led_max <= 255:
        raise ValueError("pin map: led_max_brightness must be 0..255")
    pm.i2c = d.get("i2c") or {}
    pm.oled = d.get("oled") or {}
    pm.buttons = d.get("buttons") or {}
    pm.layout = Layout(pm.slots)
    pm.order = _order(pm, d.get("channels") or [])
    pm.led_zones = _led_zones(chain)
    return pm


def _index(lay, label):
    name, _, slot = label.partition(".")
    try:
        s = int(slot)
    except ValueError:
        raise ValueError("pin map: bad channel label %r" % label) from None
    if name.startswith("P"):
        z = int(name[1:])
        if not 1 <= z <= 24:
            raise ValueError("pin map: no point %r" % label)
    elif name == "bar":
        z = ZONE_BAR
    elif name == "off_white":
        z = ZONE_OFF_W
    elif name == "off_black":
        z = ZONE_OFF_B
    else:
        raise ValueError("pin map: bad channel label %r" % label)
    if not 1 <= s <= lay.size(z):
        raise ValueError("pin map: slot out of range in %r" % label)
    return lay.channel(z, s)


def _order(pm, channels):
    """order[mux * nch + select] = logical channel (``Layout`` order) or NONE."""
    order = array("H", [NONE] * (pm.nmux * pm.nch))
    seen = bytearray(pm.layout.n)
    if len(channels) != pm.nmux:
        raise ValueError("pin map: channels must list every mux")
    for m in range(pm.nmux):
        row = channels[m]
        if len(row) != pm.nch:
            raise ValueError("pin map: mux %d must list %d inputs" % (m, pm.nch))
        for c in range(pm.nch):
            if row[c] is None:
                continue
            i = _index(pm.layout, row[c])
            if seen[i]:
                raise ValueError("pin map: %s wired twice" % row[c])
            seen[i] = 1
            order[m * pm.nch + c] = i
    for i in range(pm.layout.n):
        if not seen[i]:
            raise ValueError("pin map: logical channel %d is not wired" % i)
    return order


def _led_zones(chain):
    z = bytearray(len(chain))
    for i in range(len(chain)):
        name = chain[i]
        if name in _LED_ZONES:
            z[i] = _LED_ZONES[name]
        elif isinstance(name, str) and name.startswith("P") and name[1:].isdigit():
            z[i] = int(name[1:])
        else:
            raise ValueError("pin map: bad LED location %r" % name)
    return z


def load(path):
    """The PinMap of a pin map file. The parser is needed once: this module is
    dropped (imported again if asked for), which frees it unless the caller keeps a
    function of it."""
    with open(path) as f:
        pm = from_dict(json.loads(f.read()))
    drop_module(__name__)
    return pm
