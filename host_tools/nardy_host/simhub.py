"""The session behind the simulator's page (``nardy sim``, ``nardy live``): the
player's actions, the state the page draws, and the page's event feed.

The feed is what the page's log shows, one line of text per board event, kept
bounded (``FEED_KEEP``): a reload draws the current state (board, LEDs, OLED and
the last ``SNAPSHOT`` lines), never a replay of the session. LED and OLED frames are
not kept at all, only the latest of each (``frames``).

Positions on the board are written as P-numbers (P1..P24, bar, trays) and moves in
the same printed labels (``white 24/18``, ``13/8*``, ``6/off``): one numbering at the
table for both sides (docs/RULES.md); only the exports and ``nardy moves`` keep the
mover's own numbers.
"""

import threading
import time

from nardy.notation import format_turn, parse_position_id, point_label
from nardy.rules import BLACK, WHITE
from nardy.variants import find_variant
from nardy_host.analyse import board_zones
from nardy_host.session import EventLog, LinkError, parse_zone, zone_label

FEED_KEEP = 1000       # page log lines kept on the server
SNAPSHOT = 200         # of which a (re)loaded page gets the newest
TICK_S = 0.1           # idle: the virtual board's clock advanced this often (real time)
TICK_MAX_MS = 500      # ... by at most this much at once (a stalled host is not a jump)
QUIET = ("pong", "log", "log_end", "dump", "mem", "set", "leds", "oled")
COLOURS = {"white": WHITE, "black": BLACK, "w": WHITE, "b": BLACK}
MAX_DEPTH = 8          # JSON nesting an action may have (actions are flat objects)
GAMES_KEEP = 100       # games of the session the page offers for analysis
LANGS = ("en", "ru")   # the page's languages, also sent to the board as a setting


class ActionError(Exception):
    """A request the page may not make now: ``code`` is its HTTP status."""

    def __init__(self, code, text):
        super().__init__(text)
        self.code = code


def depth(obj, limit=MAX_DEPTH):
    """Nesting depth of parsed JSON, counted only up to ``limit + 1``."""
    if limit < 0 or not isinstance(obj, (dict, list)):
        return 0
    items = obj.values() if isinstance(obj, dict) else obj
    return 1 + max((depth(x, limit - 1) for x in items), default=0)


def _moves(variant, side, steps):
    """Steps of ``side`` (WHITE/BLACK; None: unknown, the mover's own numbers) in the
    board's printed labels."""
    return " ".join("%s/%s" % (point_label(variant, f, True, side),
                               point_label(variant, t, False, side)) for f, t in steps)


def _side(name):
    return COLOURS.get(name) if isinstance(name, str) else None


# The log in Russian (the page's language, "lang" action): each English template and
# its translation; a template missing here stays English.
RU = {
    "game %s: %s nardy%s": "партия %s: %s нарды%s",
    ", match to %s": ", матч до %s",
    "opening roll: white %s, black %s%s": "бросок на первенство: белые %s, чёрные %s%s",
    " - equal: roll again (C2)": " — поровну: бросайте снова (C2)",
    " - %s starts and plays %d-%d (C2; setting opening_dice_played on)":
        " — начинают %s и играют %d-%d (C2; настройка opening_dice_played включена)",
    " - %s starts: %s rolls both dice (C2; the opening dice are not played: "
    "setting opening_dice_played off)":
        " — начинают %s: обе кости бросает %s (C2; кости первенства не "
        "играются: настройка opening_dice_played выключена)",
    " - %s starts: press OK to roll both dice (C2; the opening dice are not played: "
    "setting opening_dice_played off)":
        " — начинают %s: нажмите OK, чтобы бросить обе кости (C2; кости первенства не "
        "играются: настройка opening_dice_played выключена)",
    "%s rolls %s": "%s: бросок %s",
    "%s takes back %s": "%s: отмена %s",
    "%s played %s": "%s сыграли %s",
    "nothing (no legal move)": "ничего (хода нет)",
    " - an illegal turn (%s) accepted as played":
        " — неправильный ход (%s) принят как сыгранный",
    "warning cleared": "предупреждение снято",
    "warning %s: %s%s": "предупреждение %s: %s%s",
    "lifted from %s%s": "взята с %s%s",
    ": may go to ": ": можно на ",
    "the board matches the game": "доска совпадает с игрой",
    "the board differs: ": "доска не совпадает: ",
    "%s %s expected %d, sees %d": "%s %s: ожидается %d, видно %d",
    "%d turns fit the board: BACK shows the next, OK takes it":
        "доске подходят ходы (%d): BACK — следующий, OK — принять",
    "game over: %s, nobody scores": "партия окончена: %s, очков нет",
    "game over: %s wins%s, +%s": "партия окончена: побеждают %s%s, +%s",
    "board: firmware %s, %s nardy, %s": "доска: прошивка %s, %s нарды, %s",
    "board error: %s": "ошибка доски: %s",
    "the board refuses: %s%s": "доска отказывает: %s%s",
    "the board keeps its own language (its firmware has no language setting); the page "
    "switched": "доска оставила свой язык (в её прошивке нет настройки языка); страница "
                "переключилась",
    "lifted from %s: no legal move for this checker": "взята с %s: этой шашке ходить некуда",
    "refused: %s": "отказано: %s",
    "%s resigns? OK: resign, BACK: play on": "%s сдаются? OK: сдаться, BACK: играть дальше",
    "resignation cancelled: play on": "сдача отменена: игра продолжается",
    "the turn ends by itself in %.1f s": "ход закончится сам через %.1f с",
    "the turn's end by itself is off again: the board moved":
        "автоконец хода отменён: доска изменилась",
    " (%s resigned)": " (%s сдались)",
    "remote play: %s%s": "игра по сети: %s%s",
    "%s (%s) played %s: carry it out here": "%s (%s) сыграли %s: повторите ход здесь",
    "the board plays %s for %s: carry it out": "доска играет %s за %s: выполните ход",
    "steps: ": "шаги: ", "%s to %s": "%s на %s",
    "white": "белые", "black": "чёрные", "long": "длинные", "short": "короткие",
}


def _zones(zs):
    return ", ".join(zone_label(z) for z in zs)


class Describer:
    """One line of text per board event, for the page's log (None: not shown)."""

    def __init__(self):
        self.variant = None        # the game's variant object (for move notation)
        self.options = {}          # its options, as the game record names them
        self.mover = None
        self.pos = None            # the position before the turn being played
        self.lang = "en"           # the page's language (LANGS)
        self.peer = None           # the other board's id, when this one plays it
        self.side = None           # ... and the colour this board's player has

    def _(self, text):
        """``text`` (a template or a word) in the log's language."""
        if self.lang == "ru" and isinstance(text, str):
            return RU.get(text, text)
        return text

    def _turn(self, steps, side):
        """The turn in the board's printed labels (hits marked), from the position
        before it, played by ``side``; step by step when that position is unknown or
        the turn was an accepted illegal one the notation cannot replay."""
        steps = [tuple(x) for x in steps]
        if self.pos is not None:
            pos = self.pos
            if side is not None and pos.turn != side:
                # a game's start position names white to move, whoever won the
                # opening roll: the labels are the mover's side's
                pos = pos.copy()
                pos.turn = side
            try:
                return "" if not steps else format_turn(self.variant, pos, steps,
                                                        table=True)
            except (ValueError, IndexError, KeyError, TypeError):
                pass
        return _moves(self.variant, side, steps)

    def _opening(self, w, b):
        """What follows the opening roll, and why (C2 and the setting that decides)."""
        if not isinstance(w, int) or not isinstance(b, int) or w == b:
            return self._(" - equal: roll again (C2)")
        first_en = "white" if w > b else "black"
        first = self._(first_en)
        if self.options.get("opening_dice_played"):
            return self._(" - %s starts and plays %d-%d (C2; setting opening_dice_played on)") % (
                first, max(w, b), min(w, b))
        if self.peer and self.side and first_en != self.side:
            # remote play: that side rolls on its own board, OK here rolls nothing
            return self._(" - %s starts: %s rolls both dice (C2; the opening dice are not "
                          "played: setting opening_dice_played off)") % (first, self.peer)
        return self._(" - %s starts: press OK to roll both dice (C2; the opening dice are "
                      "not played: setting opening_dice_played off)") % first

    def _shown(self, ev):
        """A turn the hands here carry out (the ``bot`` event): the remote player's
        (with a peer: ``nardy sim --pair``) or the board's own engine's, with where
        its steps go on the board (the LEDs light each in turn)."""
        side = self._(ev.get("side"))
        zones = ev.get("zones") or []
        where = ", ".join(self._("%s to %s") % (zone_label(a), zone_label(b))
                          for a, b in zones if isinstance(a, int) and isinstance(b, int))
        if self.peer:
            text = self._("%s (%s) played %s: carry it out here") % (
                self.peer, side, ev.get("text"))
        else:
            text = self._("the board plays %s for %s: carry it out") % (ev.get("text"), side)
        return text + (" (%s%s)" % (self._("steps: "), where) if where else "")

    def _kind(self, kind):
        """A win's kind as the end screen says it: short nardy in backgammon's words
        (S5: single game, gammon, backgammon), long nardy in the seeds' (L6)."""
        from nardy.scoring import kind_name
        name = self.variant.name if self.variant is not None else "long"
        return self._(kind_name(name, kind))

    def __call__(self, ev):
        k = ev.get("ev")
        r = ev.get("rec") or {}
        if k in QUIET:
            return None
        if k == "game":
            self.variant = self.pos = None
            self.options = r.get("options") or {}
            try:
                self.variant = find_variant(r["variant"], self.options)
                self.pos = parse_position_id(r["start"])[1]
            except (KeyError, ValueError, TypeError):
                pass
            m = (r.get("meta") or {}).get("match")
            length = m.get("length") if isinstance(m, dict) else m
            return self._("game %s: %s nardy%s") % (
                ev.get("game"), self._(r.get("variant")),
                self._(", match to %s") % length if length else "")
        if k == "roll":
            if r.get("r") == "open":
                w, b = (r.get("rolls") or [[0, 0]])[-1]
                return self._("opening roll: white %s, black %s%s") % (w, b, self._opening(w, b))
            self.mover = r.get("side")
            return self._("%s rolls %s") % (self._(r.get("side")),
                                            "-".join(str(d) for d in r.get("dice", ())))
        if k == "step" and self.variant is not None:
            move = _moves(self.variant, _side(self.mover), [(r.get("from"), r.get("to"))])
            who = self._(self.mover) or "step"           # a resumed game: no roll seen yet
            if r.get("r") == "undo":
                return self._("%s takes back %s") % (who, move)
            return "%s %s" % (who, move)
        if k == "turn" and self.variant is not None:
            text = self._("%s played %s") % (
                self._(r.get("side")), self._turn(r.get("steps") or [], _side(r.get("side")))
                or self._("nothing (no legal move)"))
            try:
                self.pos = parse_position_id(r["pos"])[1]
            except (KeyError, ValueError, TypeError):
                self.pos = None
            if r.get("accepted"):
                text += self._(" - an illegal turn (%s) accepted as played") % r.get("rule")
            return text
        if k == "warn":
            if ev.get("clear"):
                return self._("warning cleared")
            pts = r.get("points") or []
            return self._("warning %s: %s%s") % (r.get("rule"), r.get("text"),
                                         " (%s)" % _zones(pts) if pts else "")
        if k == "lift":
            t = ev.get("targets") or []
            if ev.get("no_move"):
                return self._("lifted from %s: no legal move for this checker") % _zones(
                    ev.get("zones") or [])
            return self._("lifted from %s%s") % (
                _zones(ev.get("zones") or []), self._(": may go to ") + _zones(t) if t else "")
        if k == "refused":
            return self._("refused: %s") % ev.get("text")
        if k == "bot":
            return self._shown(ev)
        if k == "peer":
            return self._("remote play: %s%s") % (
                ev.get("state"), " (%s)" % ev["rule"] if ev.get("rule") else "")
        if k == "resign":
            return (self._("%s resigns? OK: resign, BACK: play on") % self._(ev.get("side"))
                    if ev.get("ask") else self._("resignation cancelled: play on"))
        if k == "auto_end":
            ms = ev.get("ms")
            return (self._("the turn ends by itself in %.1f s") % (ms / 1000.0)
                    if ms is not None
                    else self._("the turn's end by itself is off again: the board moved"))
        if k == "sync":
            d = ev.get("diffs") or []
            if not d:
                return self._("the board matches the game")
            return self._("the board differs: ") + "; ".join(
                self._("%s %s expected %d, sees %d") % (
                    zone_label(z), self._(("white", "black")[c]), want, got)
                for z, c, want, got in d[:6]) + (" ..." if len(d) > 6 else "")
        if k == "confirm" and "candidates" in ev:
            return self._("%d turns fit the board: BACK shows the next, OK takes it") % (
                ev["candidates"])
        if k == "game_end":
            if r.get("winner") is None:
                return self._("game over: %s, nobody scores") % (r.get("kind") or "no winner")
            return self._("game over: %s wins%s, +%s") % (
                self._(r.get("winner")), " (%s)" % self._kind(r["kind"])
                if r.get("kind") else "",
                r.get("points")) + (self._(" (%s resigned)") % self._(r["resigned"])
                                    if r.get("resigned") else "")
        if k == "hello":
            return self._("board: firmware %s, %s nardy, %s") % (
                ev.get("fw"), self._(ev.get("variant")), ev.get("phase"))
        if k == "error":
            return self._("board error: %s") % ev.get("error")
        if k == "text":
            return ev.get("text")
        return None


class Hub:
    """The session behind the page: one action at a time."""

    def __init__(self, session, mode, tick=True):
        self.s = session
        self.mode = mode              # "sim" or "live"
        self.lock = threading.Lock()
        self.stopping = False
        self.position = None          # live: the board's reported position
        self.gid = None
        self.variant = None           # the name of the game being played
        self.match = None             # its match length
        self.in_progress = False      # a game with a roll in it and no end yet
        self.dice = None              # the dice of the turn being played (the page shows
        #                               them whatever the OLED shows: a held checker...)
        self.said = None              # the board's last note on the OLED, logged once
        self.lang_sent = False        # a language setting went to the board
        self.games = []               # [game id, variant] of the games of this session
        self.describe = Describer()
        self.feed = EventLog(FEED_KEEP)
        self.frames = {"leds": None, "oled": None}
        self.frame_no = 0             # counts every LED/OLED frame
        self._want_dump = threading.Event()
        session.listeners.append(self._on_event)
        if mode == "live":
            threading.Thread(target=self._live_loop, daemon=True).start()
        elif tick and session.phys is not None:
            threading.Thread(target=self._clock, daemon=True).start()

    # -- events ------------------------------------------------------------------------------
    def _on_event(self, ev):
        if ev is None:
            return
        k = ev.get("ev")
        r = ev.get("rec") or {}
        if k in ("leds", "oled"):
            self.frames[k] = ev
            self.frame_no += 1
            return
        if k in ("hello", "game") and ev.get("game") is not None:
            self.gid = ev["game"]
            # the page offers them for analysis (hello: a game resumed from flash)
            name = r.get("variant") if k == "game" else ev.get("variant")
            if not any(g[0] == self.gid for g in self.games):
                self.games.append([self.gid, name])
                del self.games[:-GAMES_KEEP]
        if k == "hello" and ev.get("variant"):
            self.variant = ev["variant"]
        if k == "game":
            self.variant = r.get("variant", self.variant)
            m = (r.get("meta") or {}).get("match")
            self.match = m.get("length") if isinstance(m, dict) else m
            self.in_progress = False
            self.dice = None
        elif k == "roll":
            self.in_progress = True
            if r.get("r") != "open":
                self.dice = r.get("dice")
        elif k in ("turn", "game_end"):
            self.dice = None
            self.in_progress = self.in_progress and k == "turn"
        if k == "error" and self.lang_sent and "lang" in str(ev.get("error")):
            # a board without the language setting: the page still switches
            self.lang_sent = False
            ev = {"ev": "text", "text": self.describe._(
                "the board keeps its own language (its firmware has no language setting); "
                "the page switched")}
            k = "text"
        if k == "dump" and "position" in ev:
            self.position = (ev.get("variant"), ev.get("options") or {}, ev["position"])
        if self.mode == "live" and k in ("hello", "game", "roll", "step", "turn", "warn",
                                         "sync", "lift", "game_end", "confirm"):
            self._want_dump.set()
        text = self.describe(ev)
        if text is not None:
            self.feed.append({"id": len(self.feed), "ev": k, "text": text,
                              "warn": k == "warn" and not ev.get("clear")})

    def _clock(self):
        """While nobody acts, the virtual board's time runs on real time: the
        readings of the board as it lies are sent again every ``TICK_S`` with the
        time that passed, so blinking LEDs blink and timers run."""
        last = time.monotonic()
        while not self.stopping:
            time.sleep(TICK_S)
            if not self.lock.acquire(blocking=False):
                last = time.monotonic()       # an action is sending its own readings
                continue
            try:
                now = time.monotonic()
                ms = min(TICK_MAX_MS, int((now - last) * 1000))
                last = now
                if self.s.link is not None and self.s.alive:
                    self.s.sense(ms)
            except (LinkError, OSError, ValueError):
                pass
            finally:
                self.lock.release()

    def _live_loop(self):
        """A real board sends no frames by itself: after each change ask for its
        position and screen."""
        while not self.stopping:
            if not self._want_dump.wait(0.5):
                continue
            self._want_dump.clear()
            try:
                with self.lock:
                    self.s.dump()
                    self.s.refresh()
            except (LinkError, OSError):
                pass

    # -- state ------------------------------------------------------------------------------
    def board(self):
        if self.s.phys is not None:
            return self.s.board_state()
        if self.position is None:
            return {}
        from nardy.posjson import from_json
        name, opts, pj = self.position
        try:
            v = find_variant(name, opts)
            pos = from_json(v, pj, mixed=True)
        except (KeyError, ValueError, TypeError):
            return {}
        return board_zones(v, pos)

    def state(self):
        """Everything a (re)loaded page draws: a snapshot, never the history."""
        s = self.s
        with s.cond:
            leds, oled = self.frames["leds"], self.frames["oled"] or s.oled
            return {"mode": self.mode, "virtual": s.phys is not None,
                    "on": s.link is not None, "board": self.board(),
                    "hand": ["wb"[c] + ":" + zone_label(z) for c, z in s.hand],
                    "led_zones": list(s.pm.led_zones),
                    "leds": leds.get("rgb") if leds else s.leds,
                    "oled": oled.get("fb") if oled else None,
                    "game": self.gid, "variant": self.variant, "match": self.match,
                    "in_progress": self.in_progress, "games": list(self.games),
                    "dice": self.dice, "lights": lights(),
                    "log": self.feed[-SNAPSHOT:], "feed": len(self.feed)}

    def since(self, i):
        """Feed items from number ``i``; None when some of them are no longer kept
        (the page then reloads its snapshot)."""
        with self.s.cond:
            if i < self.feed.first:
                return None
            return self.feed[i:]

    # -- actions ----------------------------------------------------------------------------
    def action(self, a):
        if not isinstance(a, dict):
            raise ActionError(400, "the body must be a JSON object")
        if depth(a) > MAX_DEPTH:
            raise ActionError(400, "the action is nested too deeply")
        kind = a.get("action")
        handlers = {"lift": self._lift, "place": self._place, "move": self._move,
                    "press": self._press, "new": self._new, "setup": self._setup,
                    "dice": self._dice, "lang": self._lang}
        if not isinstance(kind, str) or kind not in handlers:
            raise ActionError(400, "unknown action %s (one of: %s)" % (
                _short(kind), ", ".join(sorted(handlers))))
        with self.lock:
            try:
                handlers[kind](a)
                self.s.sync()
                self.s.refresh()
                if self.mode == "live" or kind == "press":
                    self._note(self.s.dump())
            except ValueError as e:
                raise ActionError(409, str(e)) from None
            except LinkError as e:
                raise ActionError(503, str(e)) from None
        return {"ok": True, "feed": len(self.feed)}

    def _note(self, dump):
        """A press the board answers with a note on the OLED and nothing else (a
        refusal: "opponent: hold OK to accept", "set up the board first"): into the
        log once, so that it outlasts the screen. The dump's dice are the turn's."""
        if self.s.phys is not None:
            self.dice = dump.get("dice")
        msg = dump.get("message")
        said = tuple(msg) if isinstance(msg, list) and len(msg) == 2 else None
        if said is not None and said != self.said:
            rule, text = said
            self._on_event({"ev": "text", "text": self.describe._("the board refuses: %s%s") % (
                text, " (%s)" % rule if rule else "")})
        self.said = said

    def _lang(self, a):
        lang = a.get("lang")
        if lang not in LANGS:
            raise ActionError(400, "lang must be one of: %s" % ", ".join(LANGS))
        self.describe.lang = lang           # the log's new lines in that language
        self.lang_sent = True
        self.s.send({"cmd": "set", "lang": lang})

    def moves(self):
        """The legal turns for the dice being played, in the table's labels, from the
        position the turn started in: {"dice", "side", "played", "turns": [text...]}."""
        from nardy.notation import format_turn as fmt
        from nardy.posjson import from_json
        with self.lock:
            try:
                d = self.s.dump()
            except LinkError as e:
                raise ActionError(503, str(e)) from None
        dice = d.get("dice")
        if d.get("phase") != "move" or not dice or d.get("position") is None:
            raise ActionError(409, "no dice to play now: roll first (OK)")
        try:
            v = find_variant(d["variant"], d.get("options") or {})
            pos = from_json(v, d["position"], mixed=True)
        except (KeyError, ValueError, TypeError) as e:
            raise ActionError(409, "the board's position cannot be read: %s" % e) from None
        dice = tuple(dice)
        texts = sorted({fmt(v, pos, steps, table=True) for steps, _ in v.turns(pos, dice)})
        played = d.get("steps") or []
        return {"dice": list(dice), "side": ("white", "black")[pos.turn],
                "played": _moves(v, pos.turn, played) if played else "",
                "turns": texts or ["- (no legal move: the roll is lost, C5)"]}

    def _hands(self):
        if self.s.phys is None:
            raise ActionError(409, "hands on the board need the virtual board (nardy sim)")

    @staticmethod
    def _zone(a, key):
        v = a.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise ActionError(400, "%r must be a zone (1..27 or P1..P24, bar, off-white, "
                                   "off-black)" % key)
        try:
            return parse_zone(str(v))
        except ValueError as e:
            raise ActionError(400, str(e)) from None

    @staticmethod
    def _colour(a):
        """The colour of the checker to lift: the player's choice on a point or the bar
        holding both colours; None lets the session take the top one."""
        c = a.get("colour")
        if c is None:
            return None
        if not isinstance(c, str) or c not in COLOURS:
            raise ActionError(400, "colour must be white or black")
        return COLOURS[c]

    def _lift(self, a):
        self._hands()
        self.s.lift(self._zone(a, "zone"), self._colour(a))

    def _place(self, a):
        self._hands()
        self.s.place(self._zone(a, "zone"), top=a.get("top") is True)

    def _move(self, a):
        self._hands()
        zf, zt = self._zone(a, "from"), self._zone(a, "to")
        self.s.lift(zf, self._colour(a))
        self.s.sync()
        self.s.place(zt)

    def _press(self, a):
        if self.s.phys is None:
            raise ActionError(409, "a real board's buttons are on the board")
        name, kind = a.get("button"), a.get("kind", "short")
        if name not in ("ok", "back", "menu") or kind not in ("short", "long"):
            raise ActionError(400, "button must be ok, back or menu; kind short or long")
        self.s.send({"cmd": "button", "name": name, "press": kind})

    def _new(self, a):
        v, m = a.get("variant", "long"), a.get("match", 1)
        if v not in ("long", "short") or isinstance(m, bool) or not isinstance(m, int) \
                or not 1 <= m <= 99:
            raise ActionError(400, "variant must be long or short, match 1..99")
        self.s.send({"cmd": "new", "variant": v, "match": m})
        if self.s.phys is not None:
            self.s.sync()
            self.s.setup()

    def _setup(self, a):
        self._hands()
        self.s.setup()

    def _dice(self, a):
        self._hands()
        d = a.get("dice")
        if not isinstance(d, list) or not 1 <= len(d) <= 8 or any(
                isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= 6 for x in d):
            raise ActionError(400, "dice must be a list of integers 1..6")
        self.s.send({"cmd": "_dice", "dice": d})

    def game_log(self, gid):
        with self.lock:
            try:
                return self.s.game_log(gid)
            except LinkError as e:
                raise ActionError(503, str(e)) from None


def lights():
    """The LED colours as the firmware has them ({name: [r, g, b]}), for the page's
    legend: the firmware's table, never a copy."""
    try:
        from nardy import ui
    except ImportError:
        return {}
    table = getattr(ui, "COLOURS", None) or getattr(ui, "DEFAULT_COLOURS", {})
    return {k: list(v) for k, v in table.items()}


def _short(v):
    t = repr(v)
    return t if len(t) <= 40 else t[:37] + "..."
