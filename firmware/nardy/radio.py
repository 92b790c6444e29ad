"""The board's Wi-Fi (docs/NETWORK.md): its own access point, or a home network.

(The task is ``nardy.radio`` and its settings ``radio``: names the board already
knows, because each new name a board loads at boot is interned for good, and the
56wK bot-both soak fails with a few more of them.)

Layer: app (an asyncio task beside scan, UI and USB). Drives the HAL's radio
(``nardy.hal.Board.radio``: ``network.WLAN`` on the ESP32, ``nardy.vradio`` on a
virtual board started with ``--radio``, which this module gives it). Started at
boot on a board with a radio whose settings do not switch it off (``"radio":
false``); a board without one never imports this module.

- No home network set (the first boot): the board opens its own WPA2 network
  ``nardy-XXXX`` with its own password (``nardy.apcred``: made once per board from
  its random numbers, kept on flash) and the OLED shows how to join it: the name and
  the password, and their QR code (``nardy.qr``), which phones join by scanning.
- A home network set (``set``'s ``radio``): the board joins it as a station, under
  the host name ``nardy-XXXX`` (mDNS: ``nardy-XXXX.local``), and the OLED shows the
  network, the board's address and that name. When the network is gone (or never
  answers) the board opens its own again, and tries the home one every
  ``_RETRY_MS``.

Each change is also a USB event ``{"ev": "wifi", "state": "ap" | "station" |
"off", ...}``. The screens stay until the game changes (the UI task then draws
the game: ``app.drawn``).
"""

import asyncio

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import drop_module

_POLL_MS = const(250)          # between two looks at the radio while joining
_JOIN_POLLS = const(60)        # 15 s "connecting": the home network does not answer
_WATCH_MS = const(1000)        # between two looks while on a network
_RETRY_MS = const(20000)       # on its own network: the home network tried this often

_running = None     # the Wifi whose task runs


def start(app):
    """Start the task unless it runs (a running one follows the settings) or the
    settings switch the radio off (``"radio": false``). A virtual board started
    with ``--radio`` gets its radio here (``nardy.vradio``)."""
    global _running
    b = app.board
    if b.radio is None:
        from nardy import vradio
        vradio.start(b)
    if _running is None and app.settings.get("radio") is not False:
        _running = Wifi(app)
        asyncio.create_task(_running.run())


def draw_join(fb, ssid, password):
    """The OLED's "join the board's network" screen: its name and password, and
    their QR code (``nardy.qr``, on the heap only while it draws)."""
    from nardy import qr
    try:
        qr.draw_join(fb, ssid, password)
    finally:
        qr = None
        drop_module("nardy.qr")


def draw_address(fb, network, address, name):
    """The OLED when the board is on a home network: where to find it."""
    fb.fill(0)
    fb.text("Wi-Fi", 0, 0, 1)
    y = 14
    for t in (network, address, name + ".local"):
        fb.text(t[:16], 0, y, 1)
        y += 12


class Wifi:
    def __init__(self, app):
        self.app = app
        self.name = None        # the board's own network's name, its mDNS host name

    def _own(self):
        """(ssid, password) of the board's own network (made on the first boot)."""
        from nardy import apcred
        try:
            ssid, pw, problem = apcred.credentials(self.app.dir, self.app.board.urandom)
        finally:
            apcred = None
            drop_module("nardy.apcred")
        if problem:
            self.app.report(problem)
        self.name = ssid
        return ssid, pw

    def _say(self, ev):
        ev["ev"] = "wifi"
        self.app.emit(ev)

    def _show(self, draw, *args):
        """``draw(fb, *args)`` on the OLED until the game changes (``App.redraw``)."""
        app = self.app
        app.display = (app.game.revision, lambda fb: draw(fb, *args))
        app.redraw(force=True)

    def _open_own(self, why):
        ssid, pw = self._own()
        addr = self.app.board.radio.start_ap(ssid, pw)
        self._show(draw_join, ssid, pw)
        ev = {"state": "ap", "ssid": ssid, "address": addr}
        if why:
            ev["why"] = why
        self._say(ev)

    async def _wait(self, cfg, ms):
        """Wait ``ms``; False as soon as the settings change."""
        settings = self.app.settings
        while ms > 0:
            if settings.get("radio") is not cfg:
                return False
            await asyncio.sleep_ms(_WATCH_MS if ms > _WATCH_MS else ms)
            ms -= _WATCH_MS
        return settings.get("radio") is cfg

    async def _join(self, cfg):
        """Join the home network and stay on it. Returns why it is left: "no
        network", "wrong password", "timeout", ...; None when the settings
        changed."""
        app = self.app
        radio = app.board.radio
        if self.name is None:
            self._own()
        radio.join(cfg["ssid"], cfg.get("password"), self.name)
        polls = 0
        up = False
        while app.settings.get("radio") is cfg:
            st = radio.status()
            if st == "connected":
                if not up:
                    up = True
                    addr = radio.address() or "?"
                    self._show(draw_address, cfg["ssid"], addr, self.name)
                    self._say({"state": "station", "ssid": cfg["ssid"], "address": addr,
                               "name": self.name + ".local"})
                await asyncio.sleep_ms(_WATCH_MS)
                continue
            if up:
                return "lost: " + st        # the network went away
            if st != "connecting" or polls >= _JOIN_POLLS:
                return st if st != "connecting" else "timeout"
            polls += 1
            await asyncio.sleep_ms(_POLL_MS)
        return None

    async def run(self):
        global _running
        app = self.app
        radio = app.board.radio
        try:
            while True:
                cfg = app.settings.get("radio")
                if cfg is False:
                    radio.off()
                    self._say({"state": "off"})
                    return
                if not cfg:
                    self._open_own(None)
                    while app.settings.get("radio") is cfg:
                        await asyncio.sleep_ms(_WATCH_MS)   # until the settings change
                    continue
                why = await self._join(cfg)
                if why is None:
                    continue                            # new settings: follow them
                self._open_own(why)                     # fall back to its own
                await self._wait(cfg, _RETRY_MS)
        finally:
            _running = None
            drop_module("nardy.radio")
