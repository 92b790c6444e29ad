"""``nardy script FILE``: drive the virtual board with physical actions, one per line.

The real firmware runs on unix MicroPython; hands' actions (lift, place, slide) move
checkers on an emulated board of magnets and hall sensors (``nardy_host.physical``,
the self-play model) whose readings go to the firmware as ``sense`` lines. Every
protocol event the board sends is printed as one JSON line; ``expect`` lines check
them. The language is documented in docs/SCRIPT.md.

Exit status: 0 all went well, 1 an ``expect`` failed, 2 a malformed line, a bad
action (e.g. lifting from an empty point) or the board went away.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time

from nardy.rules import BLACK, WHITE
from nardy.ui import DEFAULT_COLOURS
from nardy_host import oledtext
from nardy_host.errors import UserError
from nardy_host.session import ZONE_WORDS, LinkError, Session, VirtualLink, parse_zone

_CHOICE_WAIT_S = 60    # s: the longest a board may take to choose its turn, loaded

# A script line: a ``send`` carries one protocol line (at most lines.MAX_LINE
# bytes) and its word; nothing else comes near. Longer lines are refused unread.
MAX_LINE = 4200


def flash_size_arg(text):
    """``--flash-size``: the virtual board's flash in bytes, ``K``/``M`` allowed
    (``48K``: 49152), so a full flash can be tried (docs/PROTOCOL.md "Limits")."""
    t = text.strip().upper()
    unit = {"K": 1024, "M": 1024 * 1024}.get(t[-1:], 1)
    if unit > 1:
        t = t[:-1]
    if not t.isdigit() or int(t) * unit < 1 or int(t) * unit > 1 << 31:
        raise argparse.ArgumentTypeError(
            "%r is no flash size: bytes (1 to 2G), or a number with K or M" % text)
    return int(t) * unit


def add_flash_size(p):
    p.add_argument("--flash-size", type=flash_size_arg, default=None, metavar="BYTES",
                   help="give the virtual board's flash this size (e.g. 24K) to see "
                        "what a full flash does (default: the directory's filesystem)")


def _send_json(text, n):
    """The object of ``send {JSON}``, read from the line as written (shlex would take
    the quotes out of the JSON): the object, then nothing but a ``# comment``. Quoted
    whole (``send '{"cmd": "hello"}'``) is accepted too."""
    text = text.strip()
    if text[:1] in ("'", '"'):
        try:
            words = shlex.split(text, comments=True)
        except ValueError as e:
            raise ScriptError("line %d: %s" % (n, e)) from None
        text = " ".join(words)
    try:
        obj, end = json.JSONDecoder().raw_decode(text)
    except ValueError:
        obj, end = None, 0
    rest = text[end:].strip()
    if not isinstance(obj, dict) or (rest and not rest.startswith("#")):
        raise ScriptError("line %d: send needs one JSON object" % n)
    return obj


def register(sub):
    p = sub.add_parser("script", help="drive the virtual board with a script of actions",
                       description=__doc__,
                       formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="the script ('-' for stdin)")
    p.add_argument("--data", metavar="DIR",
                   help="the virtual board's flash directory (default: a fresh temporary "
                        "one, removed afterwards)")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="do not print the events (only failures)")
    p.add_argument("--no-display", action="store_true",
                   help="leave out the (large) oled and leds events when printing")
    p.add_argument("--seed", type=int, default=0, help="noise seed (default 0)")
    p.add_argument("--hold", type=int, default=300, metavar="MS",
                   help="virtual time each hand action holds still (default 300 ms)")
    add_flash_size(p)
    p.set_defaults(func=run)


class ScriptError(Exception):
    """A malformed line or an action that cannot be done (exit 2)."""


class ExpectFailed(Exception):
    """An ``expect`` did not hold (exit 1)."""


# -- expect ---------------------------------------------------------------------------



def _norm_token(t):
    t = t.strip()
    m = re.fullmatch(r"[Pp](\d+)", t)
    if m:
        return m.group(1)
    z = ZONE_WORDS.get(t.lower())
    return t if z is None else str(z)


def fmt(v):
    """An event value as the script writes it: lists comma-separated, inner lists
    with '/', true/false/null as in JSON."""
    if isinstance(v, list):
        return ",".join("/".join(fmt(y) for y in x) if isinstance(x, list) else fmt(x)
                        for x in v)
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    return str(v)


def _norm_value(text):
    return ",".join("/".join(_norm_token(p) for p in part.split("/"))
                    for part in text.split(","))


def _field(ev, key):
    if key in ev:
        return True, ev[key]
    rec = ev.get("rec")
    if isinstance(rec, dict) and key in rec:
        return True, rec[key]
    return False, None


def match_event(ev, kind, conds):
    if ev.get("ev") != kind:
        return False
    for key, op, want in conds:
        ok, val = _field(ev, key)
        if not ok:
            return False
        if op == "=":
            if fmt(val) != _norm_value(want):
                return False
        else:  # ~ : a list holds the item, a text holds the words
            if isinstance(val, list):
                if _norm_value(want) not in [fmt(x) for x in val]:
                    return False
            elif want not in fmt(val):
                return False
    return True


def parse_conds(words, lineno):
    out = []
    for w in words:
        m = re.fullmatch(r"([A-Za-z_]+)([=~])(.*)", w)
        if not m:
            raise ScriptError("line %d: expected key=value or key~value, got %r" % (lineno, w))
        out.append((m.group(1), m.group(2), m.group(3)))
    return out


def led_kind(rgb):
    """The LED's meaning from its colour (ui.DEFAULT_COLOURS at any brightness)."""
    r, g, b = rgb
    if not (r or g or b):
        return "dark"
    best, err = None, None
    m = max(r, g, b)
    for name, (cr, cg, cb) in DEFAULT_COLOURS.items():
        cm = max(cr, cg, cb)
        e = abs(r / m - cr / cm) + abs(g / m - cg / cm) + abs(b / m - cb / cm)
        if err is None or e < err:
            best, err = name, e
    return best


LED_KINDS = tuple(DEFAULT_COLOURS) + ("dark", "lit")
_BLINKING = ("illegal", "sync")


class Runner:
    def __init__(self, session, out, quiet=False, no_display=False, name="script"):
        self.s = session
        self.out = out
        self.quiet = quiet
        self.no_display = no_display
        self.name = name
        self.printed = 0
        self.window = 0            # events an expect looks at start here
        self.last_expect = True
        self.led_zones = list(session.pm.led_zones)

    def flush(self):
        s = self.s
        with s.cond:
            start = max(self.printed, s.events.first)
            evs = s.events[start:]
            self.printed = len(s.events)
        if self.quiet:
            return
        for i, ev in enumerate(evs, start):
            if i in s.hidden:
                continue
            if self.no_display and ev.get("ev") in ("oled", "leds"):
                continue
            self.out.write(json.dumps(ev) + "\n")
        self.out.flush()

    # -- lines ---------------------------------------------------------------------------
    def run_lines(self, lines):
        for n, raw in enumerate(lines, 1):
            if len(raw) > MAX_LINE:
                # refused before it is split: shlex takes minutes over 3 MB
                raise ScriptError("line %d: longer than %d characters" % (n, MAX_LINE))
            head = raw.split(None, 1)
            if head and head[0].lower() == "send":
                words = ["send", _send_json(head[1] if len(head) > 1 else "", n)]
            else:
                line = re.sub(r"(^|\s)#.*$", "", raw).strip()
                if not line:
                    continue
                try:
                    words = shlex.split(line)
                except ValueError as e:
                    raise ScriptError("line %d: %s" % (n, e)) from None
            cmd, args = words[0].lower(), words[1:]
            if cmd == "expect":
                self.last_expect = True
                self.flush()
                self.expect(args, n)
                continue
            if self.last_expect:
                self.window = len(self.s.events)
                self.last_expect = False
            fn = getattr(self, "do_" + cmd, None)
            if fn is None:
                raise ScriptError("line %d: unknown action %r" % (n, cmd))
            try:
                fn(args, n)
            except ValueError as e:
                raise ScriptError("line %d: %s" % (n, e)) from None
            if self.s.link is not None:
                self.s.sync()
            self.flush()

    @staticmethod
    def _nargs(args, lo, hi, n, usage):
        if not lo <= len(args) <= hi:
            raise ScriptError("line %d: usage: %s" % (n, usage))

    @staticmethod
    def _dice(args, n, usage):
        try:
            vals = [int(a) for a in args]
        except ValueError:
            raise ScriptError("line %d: usage: %s" % (n, usage)) from None
        if not vals or len(vals) % 2 or any(not 1 <= v <= 6 for v in vals):
            raise ScriptError("line %d: usage: %s (dice 1..6)" % (n, usage))
        return vals

    # -- actions -----------------------------------------------------------------------------
    def do_new(self, args, n):
        usage = "new long|short [match N] [bot white|black|both]"
        opts = dict(zip(args[1::2], args[2::2]))
        if not args or args[0] not in ("long", "short") or len(args) % 2 != 1 or \
                len(opts) != len(args) // 2 or not set(opts) <= {"match", "bot"} or \
                not opts.get("match", "1").isdigit() or \
                opts.get("bot", "none") not in ("none", "white", "black", "both"):
            raise ScriptError("line %d: usage: %s" % (n, usage))
        cmd = {"cmd": "new", "variant": args[0], "match": int(opts.get("match", 1)),
               "bot": opts.get("bot", "none")}
        self.s.send(cmd)
        self.s.sync()
        self.s.setup()

    def do_play(self, args, n):
        """``play shown``: the hands carry out the turn the board shows (its own
        turn), step by step from the next one it lights: a hit checker (short
        nardy) goes to the bar first, then the checker is lifted and put down."""
        self._nargs(args, 1, 1, n, "play shown")
        if args[0] != "shown":
            raise ScriptError("line %d: usage: play shown" % n)
        d = self.s.dump()
        shown = d.get("bot")
        give_up = time.monotonic() + _CHOICE_WAIT_S
        while not (shown and shown["next"] < len(shown["zones"])) and \
                time.monotonic() < give_up:
            # the board chooses its turn after the roll in its own time (its first
            # search of a game also loads the net): wait for a move with steps to play
            time.sleep(0.05)
            self.s.sense(100)
            d = self.s.dump()
            shown = d.get("bot")
        if not shown:
            raise ScriptError("line %d: the board shows no move of its own (phase %s)"
                              % (n, d.get("phase")))
        me = WHITE if shown["side"] == "white" else BLACK
        for zf, zt in shown["zones"][shown["next"]:]:
            if 1 <= zt <= 24 and self.s.phys.count(zt, 1 - me) == 1:
                self.s.lift(zt, 1 - me)          # a hit: the blot goes to the bar
                self.s.place(25)
            self.s.lift(zf, me)
            self.s.place(zt)
        self.s.sync()
        if self.s.dump().get("turn_no") == d.get("turn_no"):
            # a checker went where no sensor sees it (a full tray or stack): the
            # board takes that once it has lain still for 3 s, as a person waits
            self.s.sense(3500)

    def do_setup(self, args, n):
        self._nargs(args, 0, 0, n, "setup")
        self.s.setup()

    def do_opening(self, args, n):
        vals = self._dice(args, n, "opening W B [W B ...]")
        for i in range(0, len(vals) - 2, 2):
            if vals[i] != vals[i + 1]:
                raise ScriptError("line %d: only the last opening try may differ" % n)
        if vals[-1] == vals[-2]:
            raise ScriptError("line %d: the last opening try must differ" % n)
        self.s.send({"cmd": "_dice", "dice": vals})

    def do_dice(self, args, n):
        vals = self._dice(args, n, "dice A B")
        if len(vals) != 2:
            raise ScriptError("line %d: usage: dice A B" % n)
        self.s.send({"cmd": "_dice", "dice": vals})

    def do_lift(self, args, n):
        self._nargs(args, 1, 2, n, "lift ZONE [white|black]")
        colour = None
        if len(args) == 2:
            if args[1] not in ("white", "black"):
                raise ScriptError("line %d: usage: lift ZONE [white|black]" % n)
            colour = WHITE if args[1] == "white" else BLACK
        self.s.lift(parse_zone(args[0]), colour)

    def do_place(self, args, n):
        self._nargs(args, 1, 2, n, "place ZONE [top]")
        if len(args) == 2 and args[1] != "top":
            raise ScriptError("line %d: usage: place ZONE [top]" % n)
        self.s.place(parse_zone(args[0]), top=len(args) == 2)

    def do_slide(self, args, n):
        self._nargs(args, 2, 2, n, "slide FROM TO")
        self.s.slide(parse_zone(args[0]), parse_zone(args[1]))

    def _button(self, args, n, kind):
        self._nargs(args, 1, 1, n, "press|hold ok|back|menu")
        if args[0] not in ("ok", "back", "menu"):
            raise ScriptError("line %d: buttons are ok, back, menu" % n)
        self.s.send({"cmd": "button", "name": args[0], "press": kind})

    def do_press(self, args, n):
        self._button(args, n, "short")

    def do_hold(self, args, n):
        self._button(args, n, "long")

    def do_wait(self, args, n):
        self._nargs(args, 1, 1, n, "wait MS")
        if not args[0].isdigit():
            raise ScriptError("line %d: usage: wait MS" % n)
        self.s.sense(int(args[0]))

    def do_noise(self, args, n):
        self._nargs(args, 1, 1, n, "noise none|low|realistic|high|COUNTS")
        self.s.set_noise(args[0])

    def do_kill(self, args, n):
        self._nargs(args, 0, 0, n, "kill")
        if self.s.link is None:
            raise ScriptError("line %d: the board is already off" % n)
        self.s.kill()

    def do_boot(self, args, n):
        self._nargs(args, 0, 0, n, "boot")
        if self.s.link is not None:
            raise ScriptError("line %d: the board is on (kill it first)" % n)
        self.s.boot()

    def do_send(self, args, n):
        self._nargs(args, 1, 1, n, "send {JSON}")
        self.s.send(args[0])

    # -- expect ---------------------------------------------------------------------------
    def fail(self, n, text):
        raise ExpectFailed("%s:%d: expect failed: %s" % (self.name, n, text))

    def window_events(self):
        with self.s.cond:
            start = max(self.window, self.s.events.first)
            return [(i, e) for i, e in enumerate(self.s.events[start:], start)
                    if i not in self.s.hidden]

    def expect(self, args, n):
        if not args:
            raise ScriptError("line %d: expect what?" % n)
        what = args[0]
        if what == "oled":
            return self.expect_oled(args[1:], n)
        if what == "leds":
            return self.expect_leds(args[1:], n)
        if what == "dump":
            d = self.s.dump()
            self.flush()
            for key, op, want in parse_conds(args[1:], n):
                if not match_event(d, "dump", [(key, op, want)]):
                    self.fail(n, "dump %s is %s, not %s" % (
                        key, fmt(_field(d, key)[1]), want))
            return None
        negate = what == "no"
        if negate:
            args = args[1:]
            if not args:
                raise ScriptError("line %d: expect no EVENT ..." % n)
        kind, conds = args[0], parse_conds(args[1:], n)
        evs = [e for _, e in self.window_events()]
        hits = [e for e in evs if match_event(e, kind, conds)]
        if negate and hits:
            self.fail(n, "unexpected %s" % json.dumps(hits[0]))
        if not negate and not hits:
            same = [json.dumps(e) for e in evs if e.get("ev") == kind]
            self.fail(n, "no %s event matching %s; %s" % (
                kind, " ".join(args[1:]) or "(any)",
                ("seen: " + "; ".join(same[-3:])) if same else "none since the last expect"))
        return None

    def expect_oled(self, args, n):
        if len(args) < 2 or args[0] not in ("contains", "lacks"):
            raise ScriptError("line %d: expect oled contains|lacks TEXT" % n)
        want = " ".join(args[1:])
        self.s.refresh()
        self.flush()
        screen = oledtext.text(self.s.oled["fb"])
        has = want in screen
        if has != (args[0] == "contains"):
            self.fail(n, "OLED %s %r; it shows: %s" % (
                "lacks" if args[0] == "contains" else "contains", want,
                " | ".join(screen.splitlines())))

    def led_frames(self):
        """The LED frames since the window opened, the frame current then first."""
        frames = []
        with self.s.cond:
            before = [e for e in self.s.events[:self.window] if e.get("ev") == "leds"]
            inside = [e for e in self.s.events[self.window:] if e.get("ev") == "leds"]
        if before:
            frames.append(before[-1]["rgb"])
        frames.extend(e["rgb"] for e in inside)
        return frames

    def zone_kinds(self, rgb_hex, z):
        b = bytes.fromhex(rgb_hex)
        out = set()
        for i, lz in enumerate(self.led_zones):
            if lz == z:
                out.add(led_kind(tuple(b[3 * i:3 * i + 3])))
        return out

    def expect_leds(self, args, n):
        if not args:
            raise ScriptError("line %d: expect leds ZONE=KIND ..." % n)
        self.s.refresh()
        self.flush()
        frames = self.led_frames()
        blink_checked = False
        for a in args:
            m = re.fullmatch(r"([^=]+)=([a-z]+)", a)
            if not m or m.group(2) not in LED_KINDS:
                raise ScriptError("line %d: expect leds ZONE=KIND (KIND: %s)"
                                  % (n, ", ".join(LED_KINDS)))
            try:
                z = parse_zone(m.group(1))
            except ValueError as e:
                raise ScriptError("line %d: %s" % (n, e)) from None
            kind = m.group(2)
            # steady colours: the frame now; blinking ones: any frame since the window
            look = frames if kind in _BLINKING else frames[-1:]
            seen = [self.zone_kinds(f, z) for f in look]
            ok = any((kind in k) or (kind == "lit" and k - {"dark"}) for k in seen)
            if not ok and kind in _BLINKING and not blink_checked:
                # the other half of the blink: 300 ms more of board time
                blink_checked = True
                self.s.sense(300)
                self.s.sync()
                self.s.refresh()
                self.flush()
                frames = self.led_frames()
                seen = [self.zone_kinds(f, z) for f in frames]
                ok = any(kind in k for k in seen)
            if not ok:
                self.fail(n, "LED %s is %s, not %s" % (
                    m.group(1), "/".join(sorted(seen[-1])) or "absent", kind))


def run(args):
    if args.file == "-":
        lines = sys.stdin.read().splitlines()
        name = "<stdin>"
    else:
        try:
            with open(args.file, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise UserError("cannot read %s: %s" % (args.file, e)) from None
        name = args.file
    tmp = None
    data = args.data
    if data is None:
        tmp = tempfile.mkdtemp(prefix="nardy-script-")
        data = os.path.join(tmp, "flash")
    s = Session(lambda cb: VirtualLink(data, cb, flash_size=args.flash_size),
                seed=args.seed, hold_ms=args.hold)
    r = Runner(s, sys.stdout, quiet=args.quiet, no_display=args.no_display, name=name)
    try:
        s.start()
        r.flush()
        r.run_lines(lines)
        return 0
    except ExpectFailed as e:
        r.flush()
        print(str(e), file=sys.stderr)
        return 1
    except ScriptError as e:
        r.flush()
        print("%s:%s" % (name, str(e)[len("line "):]) if str(e).startswith("line ")
              else "%s: %s" % (name, e), file=sys.stderr)
        return 2
    except LinkError as e:
        print("%s: %s" % (name, e), file=sys.stderr)
        return 2
    finally:
        s.close()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
