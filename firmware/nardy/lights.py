"""What each LED colour means (issue 21): the one table the board's legend (the
menu's "LED colours") and the host (the ``hello`` reply's ``lights``,
docs/PROTOCOL.md) both read. The colours themselves are ``nardy.ui.DEFAULT_COLOURS``,
which the LED frames use; a test checks every one of them has its line here. Imported
only for the legend and ``hello``: the meanings stay off the heap in play.

Each line: (key in DEFAULT_COLOURS, the colour's name, what it means), short enough
for one compact OLED line ("name: meaning", 21 characters) in English; the Russian is
in ``nardy.lang_ru``, like every other OLED text.
"""

LIGHTS = (
    ("target", "green", "legal target"),
    ("off", "cyan", "bear off here"),
    ("lifted", "amber", "lifted here"),
    ("nomove", "rose", "no legal step"),     # the lifted checker cannot move
    ("illegal", "red", "rule broken"),        # blinking
    ("last", "blue", "opponent's move"),
    ("from", "yellow", "take this one"),      # the board's own move
    ("to", "violet", "put it here"),
    ("sync", "magenta", "wrong here"),        # blinking
    ("need", "white", "place checkers"),
)


def legend():
    """The table with each colour as "#rrggbb": [[key, colour, name, meaning], ...]."""
    from nardy.ui import DEFAULT_COLOURS
    return [[k, "#%02x%02x%02x" % DEFAULT_COLOURS[k], name, meaning]
            for k, name, meaning in LIGHTS]
