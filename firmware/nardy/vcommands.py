"""The virtual board's own protocol commands: its sensors (``sense``), its buttons
(``button``) and the switches of its screen and LED events in ``set``. The app adds
them to its own for a virtual board (``nardy.hal``: a board's ``commands``); the
ESP32 never imports this module.
"""


def _sense(app, cmd):
    app.board.sense(cmd["raw"], cmd.get("ms", 20))


def _button(app, cmd):
    app.board.press(cmd["name"], cmd.get("press", "short"))


def _set(app, cmd):
    """``set`` with the virtual board's switches: its screen and LED events."""
    b = app.board
    if "oled" in cmd:
        b.send_oled = cmd["oled"]
    if "leds" in cmd:
        b.send_leds = cmd["leds"]
    app.set_settings(cmd)


# (+ "radio" on a board started with a radio: nardy.vradio.start)
COMMANDS = {"sense": _sense, "button": _button, "set": _set}
