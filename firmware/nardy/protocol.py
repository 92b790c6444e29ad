"""USB protocol: one JSON object per line, both ways (docs/PROTOCOL.md). Pure.

``parse(line)`` returns the command object or raises ValueError with a reason that
the app sends back in an ``error`` line. Nothing in a line can do more than its
command allows: unknown commands, fields of the wrong type and oversized lines are
refused before the app sees them.
"""

import json

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import drop_module
from nardy.lines import MAX_LINE

MAX_GAME = const(999999999)      # the highest game id (nardy.journal: g00001 .. g999999999)
_MAX_NESTING = const(32)         # brackets in a line: no command needs more than a few
INDEX_LIMIT = 8          # games in one ``index`` reply: a line of ~600 bytes, which a
                         # fragmented 56wK heap still finds room for
COMMANDS = ("hello", "dump", "index", "log", "confirm", "new", "set", "sense", "button",
            "roll", "ping", "oled", "mem", "radio")
# the values two settings may take, for the menu and the checks (nardy.setcheck gets them
# from here: it never imports its owner back)
BOT_SIDES = ("none", "white", "black", "both")   # who the board plays (nardy.botplay)
LANGS = ("en", "ru")     # the OLED's languages (nardy.oled.T)
# the fields each state-changing command may have: anything else is refused
_FIELDS = {"new": ("cmd", "variant", "match", "options", "bot"),
           "set": ("cmd", "brightness", "dice", "oled", "leds", "bot", "auto_end", "lang",
                   "mqtt", "radio"),
           "index": ("cmd", "after", "limit")}
_BUTTONS = const(("ok", "back", "menu"))
_PRESSES = const(("short", "long"))


def _int(obj, key, lo, hi, default=None):
    v = obj.get(key, default)
    if v is None and default is None and key not in obj:
        raise ValueError("%s is required" % key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ValueError("%s must be an integer %d..%d" % (key, lo, hi))
    return v


def check_settings(d):
    """The saved settings (settings.json, the menu, ``new``/``set``): returns a list
    of problems, empty when every field has the right type and range. The checks
    are nardy.setcheck's, on the heap only while they run (boot reads the settings
    once)."""
    from nardy import setcheck
    try:
        return setcheck.check_settings(d, BOT_SIDES, LANGS)
    finally:
        setcheck = None
        drop_module("nardy.setcheck")


def _plain_id(v):
    """A ping id the reply can carry as valid JSON: a number (finite), a short text,
    true/false or null."""
    if v is None or isinstance(v, (bool, int)):
        return isinstance(v, bool) or v is None or -(2 ** 53) <= v <= 2 ** 53
    if isinstance(v, float):
        return v == v and v not in (float("inf"), float("-inf"))
    return isinstance(v, str) and len(v) <= 64


def bad_bytes(b, n, controls=True):
    """Why the first ``n`` bytes of ``b`` are no protocol text, or None: "not UTF-8"
    (strictly: no overlong form such as C0 B3, no surrogate, nothing past U+10FFFF;
    MicroPython's own decode lets those through) or "control byte" (a NUL, DEL or
    any C0 byte but tab, CR, LF). Allocates nothing."""
    i = 0
    while i < n:
        c = b[i]
        i += 1
        if c < 0x80:
            if controls and ((c < 32 and c != 9 and c != 10 and c != 13) or c == 127):
                return "control byte"
            continue
        # the sequence's length and its second byte's range (Unicode table 3-7)
        lo = 0x80
        hi = 0xBF
        if 0xC2 <= c <= 0xDF:
            k = 1
        elif 0xE0 <= c <= 0xEF:
            k = 2
            if c == 0xE0:
                lo = 0xA0
            elif c == 0xED:
                hi = 0x9F
        elif 0xF0 <= c <= 0xF4:
            k = 3
            if c == 0xF0:
                lo = 0x90
            elif c == 0xF4:
                hi = 0x8F
        else:
            return "not UTF-8"
        if i + k > n or not lo <= b[i] <= hi:
            return "not UTF-8"
        for j in range(i + 1, i + k):
            if b[j] & 0xC0 != 0x80:
                return "not UTF-8"
        i += k
    return None


def parse(line):
    if isinstance(line, (bytes, bytearray)):
        if len(line) > MAX_LINE:
            raise ValueError("line too long")
        bad = bad_bytes(line, len(line))
        if bad:
            raise ValueError(bad)
        line = line.decode()
    elif len(line) > MAX_LINE:
        raise ValueError("line too long")
    else:
        # its bytes, not its characters: MicroPython makes each character iterated a
        # qstr, for good (a line of new characters would grow the qstr pool each time)
        for o in line.encode("utf-8", "surrogatepass"):
            if (o < 32 and o not in (9, 10, 13)) or o == 127:
                raise ValueError("control byte")
    # refused before it is parsed: a deeply nested value would cost heap (and
    # CPython's parser a RecursionError)
    if line.count("[") + line.count("{") > _MAX_NESTING:
        raise ValueError("too deeply nested")
    try:
        obj = json.loads(line)
    except (ValueError, TypeError, RuntimeError):
        raise ValueError("not JSON") from None
    if not isinstance(obj, dict):
        raise ValueError("a command must be a JSON object")
    cmd = obj.get("cmd")
    if cmd not in COMMANDS:
        raise ValueError("unknown cmd")
    fields = _FIELDS.get(cmd)
    if fields is not None:
        for k in obj:
            if k not in fields:
                raise ValueError("%s: unknown field %s" % (cmd, str(k)[:24]))
    if cmd in ("log", "confirm"):
        _int(obj, "game", 1, MAX_GAME)
    elif cmd == "index":
        _int(obj, "after", 0, MAX_GAME, 0)
        _int(obj, "limit", 1, INDEX_LIMIT, INDEX_LIMIT)
    elif cmd == "new" or cmd == "set":
        # the settings' checks (nardy.setcheck): on the heap only while they run
        from nardy import setcheck
        try:
            setcheck.check_command(obj, _int, BOT_SIDES, LANGS)
        finally:
            setcheck = None
            drop_module("nardy.setcheck")
        if "mqtt" in obj or "radio" in obj:
            # the network's settings (nardy.netcfg): loaded only for a command naming one
            from nardy import netcfg
            try:
                netcfg.check_settings(obj)
            finally:
                netcfg = None
                drop_module("nardy.netcfg")
    elif cmd == "sense":
        if not isinstance(obj.get("raw"), list):
            raise ValueError("sense needs raw: a list of readings")
        _int(obj, "ms", 0, 600000, 20)
    elif cmd == "button":
        if obj.get("name") not in _BUTTONS:
            raise ValueError("button name must be ok, back or menu")
        if obj.get("press", "short") not in _PRESSES:
            raise ValueError('press must be "short" or "long"')
    elif cmd == "ping":
        if not _plain_id(obj.get("id")):
            raise ValueError("id must be a number, a short text, true/false or null")
    elif cmd == "roll":
        d = obj.get("dice")
        if not isinstance(d, list) or len(d) != 2:
            raise ValueError("dice must be two integers 1..6")
        for x in d:
            if not isinstance(x, int) or isinstance(x, bool) or not 1 <= x <= 6:
                raise ValueError("dice must be two integers 1..6")
    return obj


def error(reason, line=None):
    """An ``error`` reply, with the start of the line that caused it: echoed only
    when it is strict UTF-8 (``bad_bytes``), so every line the board sends is."""
    e = {"ev": "error", "error": reason}
    if line is not None:
        if isinstance(line, (bytes, bytearray)):
            n = min(len(line), 60)
            while 0 < n < len(line) and line[n] & 0xC0 == 0x80:
                n -= 1          # not inside a character
            if bad_bytes(line, n, False):
                line = "<binary>"
            else:
                line = bytes(line[:n]).decode()
        k = line.find('"password"')
        if k >= 0:      # a refused broker setting never sends its password back
            line = line[:k] + '"password": ...'
        e["line"] = line[:60].strip()
    return e
