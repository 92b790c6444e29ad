"""Power budget per supply, worst case, from the same figures the README shows.

    python hardware/tools/power.py          # table
    python hardware/tools/power.py --json   # JSON: usb_data_port_worst_ma, rails, limits,
                                            # radio (the data port with Wi-Fi on)

Two USB inputs: the ESP32's own USB data port (DevKit) feeds only the MCU and the
3V3 logic on its regulator; the USB-C power input (J5) feeds the LEDs, the sensors
and the logic that drives them through the TPS259621 eFuse (soft start, current limit). Figures are
datasheet maxima at the LED cap of the pin map.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hwlib  # noqa: E402

DATA_PORT_LIMIT_MA = 250  # bMaxPower the stock MicroPython build declares
POWER_PORT_LIMIT_MA = 500  # USB-C sink with 5.1k Rd, default USB 2.0 power
BULK_UF = 470.0  # C157, behind the switch
SOFT_START_MS = 10.0  # estimate: the eFuse's output ramp with 10 nF on DVDT
EFUSE_LIMIT_MA = 903.0 / 1.21 + 11.2  # TPS259621 ILIM with 1.21k (TI SLVSET8A eq. 7)

# (rail, ref, part, drawing at once, mA each, port)
LOADS = (
    ("5V (USB data)", "U1", "ESP32-S3-DevKitC-1, radio off", 1, 120.0, "data"),
    ("3V3 (DevKit)", "DS1", "SSD1306 OLED", 1, 20.0, "data"),
    ("3V3S", "U18", "74HC138", 1, 0.08, "power"),
    ("3V3S", "U20-U22", "SN74LVC125A", 3, 0.01, "power"),
    ("3V3S", "H", "DRV5055 (one group of 16)", 16, 10.0, "power"),
    ("3V3S", "U10-U17", "CD74HC4067", 8, 0.16, "power"),
    ("3V3S", "U4", "MCP3208", 1, 0.5, "power"),
    ("3V3S", "U2", "AP2112K quiescent", 1, 0.08, "power"),
    ("5V_F", "U19", "SN74LV1T125", 1, 1.5, "power"),
    ("5V_F", "U3", "TPS259621 quiescent (estimate: the TPS2595's 0.25 max)", 1, 0.25,
     "power"),
    ("5V_IN", "R37-R38", "eFuse EN divider (147k)", 1, 0.04, "power"),
)


# The ESP32-S3's Wi-Fi, from Espressif's "ESP32-S3 Series Datasheet", section
# "Current Consumption", table "Wi-Fi Current Consumption Depending on RF Modes":
# peak current of the chip at the RF port, 3.3 V supply, 25 C, TX at 100 % duty
# cycle, RX with the peripherals off and the CPU idle. The board's radio sends
# small MQTT packets and beacons as an access point, so its average is far
# lower; a budget takes the peak, which a port must deliver while it lasts.
# All six rows agree with the same table as reprinted in RAKwireless's RAK3112
# (an ESP32-S3 module) datasheet; the ESP32-C3's table differs (335/84/87 mA).
WIFI_MA = (
    ("TX 802.11b 1 Mbps @ 21 dBm", 340.0),
    ("TX 802.11g 54 Mbps @ 19 dBm", 291.0),
    ("TX 802.11n HT20 MCS7 @ 18.5 dBm", 283.0),
    ("TX 802.11n HT40 MCS7 @ 18 dBm", 286.0),
    ("RX 802.11b/g/n HT20", 88.0),
    ("RX 802.11n HT40", 91.0),
)
# USB 2.0 (section 7.2.1): a configured high-power device may draw 500 mA
USB2_PORT_MA = 500


def radio_budget(b):
    """The USB data port with the radio on: the radio-off loads plus the chip's
    worst Wi-Fi peak on top (the datasheet's TX figure is the chip's, the DevKit's
    row is the chip and its board with the radio off: counting both is the
    conservative sum)."""
    tx = max(ma for _, ma in WIFI_MA)
    rx = max(ma for mode, ma in WIFI_MA if mode.startswith("RX"))
    return {
        "radio_tx_peak_ma": tx,
        "radio_rx_ma": rx,
        "usb_data_port_radio_worst_ma": round(b["usb_data_port_worst_ma"] + tx, 1),
        "usb_data_port_radio_rx_ma": round(b["usb_data_port_worst_ma"] + rx, 1),
        "usb2_port_ma": USB2_PORT_MA,
        "wifi_ma": [{"mode": m, "ma": ma} for m, ma in WIFI_MA],
    }


def budget(pm=None):
    if pm is None:
        pm = hwlib.load_pinmap("esp32s3")
    rows = list(LOADS)
    led = [r for r in hwlib.load_bom() if r["mpn"] == "WS2812B"][0]
    each = hwlib.led_mA(led, pm["led_max_brightness"])
    rows.append(("5V_F", "D1-D%d" % pm["led"]["count"],
                 "WS2812B at cap %d/255" % pm["led_max_brightness"],
                 pm["led"]["count"], round(each, 2), "power"))
    rails = {}
    ports = {"data": 0.0, "power": 0.0}
    for rail, _ref, _part, n, ma, port in rows:
        rails[rail] = rails.get(rail, 0.0) + n * ma
        ports[port] += n * ma
    out = {
        "usb_data_port_worst_ma": round(ports["data"], 1),
        "usb_data_port_limit_ma": DATA_PORT_LIMIT_MA,
        "usb_power_port_worst_ma": round(ports["power"], 1),
        "usb_power_port_limit_ma": POWER_PORT_LIMIT_MA,
        "rails_ma": dict((k, round(v, 1)) for k, v in sorted(rails.items())),
        "inrush_ma": round(min(BULK_UF * 5.0 / SOFT_START_MS, EFUSE_LIMIT_MA), 1),
        "efuse_limit_ma": round(EFUSE_LIMIT_MA, 1),
        "vbus_capacitance_uf": 4.7,
        "loads": [{"rail": r[0], "ref": r[1], "part": r[2], "qty": r[3], "ma_each": r[4],
                   "port": r[5]} for r in rows],
    }
    out["radio"] = radio_budget(out)
    return out


def markdown(b=None):
    if b is None:
        b = budget()
    lines = ["| port | rail | ref | part | drawing at once | mA each | mA |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for ld in b["loads"]:
        lines.append("| %s | %s | %s | %s | %d | %.2f | %.1f |" % (
            ld["port"], ld["rail"], ld["ref"], ld["part"], ld["qty"], ld["ma_each"],
            ld["qty"] * ld["ma_each"]))
    lines += ["", "USB data port (ESP32): **%.1f mA** worst case, limit %d mA (bMaxPower of"
              " the stock MicroPython build)." % (b["usb_data_port_worst_ma"],
                                                   b["usb_data_port_limit_ma"]),
              "USB-C power input: **%.1f mA** worst case, limit %d mA (default USB power"
              " with 5.1k CC pull-downs)." % (b["usb_power_port_worst_ma"],
                                              b["usb_power_port_limit_ma"]),
              "With the radio on (Wi-Fi, docs/NETWORK.md): the ESP32-S3 peaks at %.0f mA"
              " transmitting (802.11b at 21 dBm) and draws %.0f mA receiving (datasheet),"
              " so the data port's worst case is **%.1f mA** (%.1f mA receiving): over the"
              " %d mA MicroPython declares (a strict host or hub may cut the port off),"
              " below the %d mA of a USB 2.0 port; plug it into a computer or a powered"
              " hub, not a bus-powered one." % (b["radio"]["radio_tx_peak_ma"],
                                       b["radio"]["radio_rx_ma"],
                                       b["radio"]["usb_data_port_radio_worst_ma"],
                                       b["radio"]["usb_data_port_radio_rx_ma"],
                                       b["usb_data_port_limit_ma"],
                                       b["radio"]["usb2_port_ma"]),
              "Soft start: %.1f uF on VBUS at attach; the %g uF reservoir charges through"
              " the eFuse in ~%g ms (estimate): ~%.0f mA inrush, and never more than its"
              " %.0f mA current limit." % (b["vbus_capacitance_uf"], BULK_UF, SOFT_START_MS,
                                          b["inrush_ma"], b["efuse_limit_ma"])]
    return "\n".join(lines)


def main(argv):
    if argv and argv != ["--json"]:
        sys.stderr.write("usage: power.py [--json]\n")
        return 2
    b = budget()
    if argv == ["--json"]:
        print(json.dumps(b, indent=1, sort_keys=True))
    else:
        print(markdown(b))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
