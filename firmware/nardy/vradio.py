"""The virtual board's radio (``main.py DIR PINMAP --radio``): the HAL's radio
(``nardy.hal.Board.radio``) for the unix port, which reaches the network through the
host's sockets and so is always "connected" there. What the air would decide, which
home networks are in range and with which password, the host says with ``radio``
lines (``nardy.vcommands``): ``{"cmd": "radio", "networks": {"home": "pass"}}``; a
bare ``{"cmd": "radio"}`` asks what the radio does now (a ``radio`` event: what a
phone nearby would see). Loaded only by a virtual board started with ``--radio``.
"""

def start(board):
    """Give the virtual board a radio, and the host its ``radio`` line."""
    from nardy.vcommands import COMMANDS
    board.radio = VirtualRadio()
    COMMANDS["radio"] = _radio


def _radio(app, cmd):
    app.emit(app.board.radio.command(cmd))


_AP_ADDRESS = "192.168.4.1"       # the ESP32's own access point's address
_STA_ADDRESS = "192.168.1.%d"     # an address the home network's router gives


class VirtualRadio:
    def __init__(self):
        self.mode = None          # None: off; "ap": the board's own network; "sta"
        self.ap_ssid = None
        self.ap_key = None
        self.sta = None           # (ssid, password) of the home network joined
        self.hostname = None
        self.networks = {}        # ssid -> password of the networks in range
        self.leases = 0

    # -- the contract (nardy.hal.Board.radio) ------------------------------------------
    def start_ap(self, ssid, password):
        self.mode = "ap"
        self.ap_ssid = ssid
        self.ap_key = password
        self.sta = None
        return _AP_ADDRESS

    def join(self, ssid, password, hostname):
        self.mode = "sta"
        self.sta = (ssid, password)
        self.hostname = hostname
        self.leases += 1

    def status(self):
        sta = self.sta
        if self.mode != "sta" or sta is None:
            return "off"
        key = self.networks.get(sta[0])
        if key is None:
            return "no network"
        return "connected" if key == sta[1] else "wrong password"

    def address(self):
        if self.mode == "ap":
            return _AP_ADDRESS
        return _STA_ADDRESS % (100 + self.leases % 100) if self.status() == "connected" else None

    def off(self):
        self.mode = None
        self.sta = None

    # -- the host's side -------------------------------------------------------------
    def command(self, cmd):
        """A ``radio`` line: the networks in range (when given); returns the event
        saying what the radio does."""
        nets = cmd.get("networks")
        if nets is not None:
            if not isinstance(nets, dict):
                raise ValueError("networks must be an object: ssid -> password")
            for k in nets:
                if not isinstance(k, str) or not isinstance(nets[k], str):
                    raise ValueError("networks: ssid and password must be texts")
            self.networks = nets
        ev = {"ev": "radio", "mode": self.mode, "address": self.address()}
        if self.mode == "ap":
            ev["ssid"] = self.ap_ssid
            ev["key"] = self.ap_key     # on the air: what a phone joining must type
        elif self.sta is not None:
            ev["ssid"] = self.sta[0]
            ev["hostname"] = self.hostname
            ev["status"] = self.status()
        return ev
