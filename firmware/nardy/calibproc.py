"""The guided calibration: a state machine fed one scan at a time.

Pure (no hardware): the board runs it from the menu (``run``), ``nardy calibrate``
runs it on the board over USB, and the emulation (``nardy_host.physical``) runs the
very same code on emulated boards. Steps:

1. EMPTY: every checker off the board; ``empty_scans`` scans give each channel's
   offset (mean), its noise (peak to peak), dead channels (a rail) and offsets
   outside the sanity window.
2. SLOTS: one white checker, put on every slot in any order (the board finds the one
   slot that rose, waits until the reading is steady, records it, and waits for the
   lift). A channel's gain is its rise over the model's one-checker step. Black is not
   needed per slot: the sensor is linear through zero field (TI SBAS640 sec. 6.3.2)
   and the sensor-side differences are the same for both poles.
3. REFERENCE: every white checker, then every black checker, one after another on
   the reference slot (P1 slot 1). The checker used in step 2 is compared with the
   mean of its colour (so its own magnet's deviation does not become the board's), and
   black's step is measured against white's (the two colours' magnets may come from
   different batches).

Why not a checker of each colour on each slot: 256 placements; this scheme needs
128 + 2 x 15 and measures what the per-slot black placements would: the magnets'
mean strength per colour. A checker's own deviation from its colour's mean cannot be
calibrated on the board at all (it travels with the checker); the thresholds leave
room for it (hardware/README.md, "Tolerance budget").

``finish()`` (the OK button) ends the current step early: slots not visited get the
median gain and are listed as ``missing``; a skipped reference leaves the step-2
checker as the reference.
"""

from array import array

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.calibration import RAIL_HI, RAIL_LO, Calibration, model_defaults

EMPTY = const(0)
SLOTS = const(1)
REF_WHITE = const(2)
REF_BLACK = const(3)
DONE = const(4)
PHASES = ("empty", "slots", "ref_white", "ref_black", "done")

BASE_WINDOW = const(300)   # counts around mid-scale an empty slot may read (README)
NOISE_MAX = const(64)      # peak-to-peak counts over the empty scans (8 sd of selfplay "realistic")
GAIN_LO = const(600)       # per mille of the model's one-checker step
GAIN_HI = const(1600)
_STEADY = const(3)         # scans a placed checker must hold still


def add_scan(raw, n, acc, lo, hi):
    """One scan into each channel's sum, lowest and highest reading: the empty
    board's statistics (this procedure's first step, and ``nardy.selftest``)."""
    for ch in range(n):
        r = raw[ch]
        acc[ch] += r
        if r < lo[ch]:
            lo[ch] = r
        if r > hi[ch]:
            hi[ch] = r


class Procedure:
    def __init__(self, n, slots=5, empty_scans=16, ref_channel=0, ref_count=15,
                 defaults=None):
        d = defaults if defaults is not None else model_defaults(slots)
        self.n = n
        self.slots = slots
        self.defaults = d
        self.step1 = d["white1"] - d["baseline"]
        self.mid = d["baseline"]
        self.empty_scans = empty_scans
        self.ref_channel = ref_channel
        self.ref_count = ref_count
        self.phase = EMPTY
        self.scans = 0
        self._sum = array("i", [0] * n)
        self._lo = array("H", [4095] * n)
        self._hi = array("H", [0] * n)
        self.base = array("h", [0] * n)
        self.rise = array("h", [0] * n)      # SLOTS: the white checker's rise per slot
        self.done = bytearray(n)
        self.dead = bytearray(n)
        self.todo = 0
        self.ref = ([], [])                  # rises of each white / black checker
        self.last = -1                       # the channel recorded last
        self._cand = -1
        self._hold = 0
        self._acc = 0
        self._lifted = True
        self.faults = {"dead": [], "noisy": [], "offset": [], "gain": [], "missing": []}
        self.hint = None

    # -- feeding ------------------------------------------------------------------------
    def feed(self, raw):
        """One scan (12-bit counts per channel, logical order)."""
        self.scans += 1
        if self.phase == EMPTY:
            self._empty(raw)
        elif self.phase == SLOTS:
            self._slots(raw)
        elif self.phase == REF_WHITE or self.phase == REF_BLACK:
            self._reference(raw)

    def finish(self):
        """End the current step early (the user pressed OK)."""
        if self.phase == SLOTS:
            for ch in range(self.n):
                if not self.done[ch] and not self.dead[ch]:
                    self.faults["missing"].append(ch)
            self._next_phase()
        elif self.phase == REF_WHITE or self.phase == REF_BLACK:
            self._next_phase()

    def _next_phase(self):
        self.phase += 1
        if self.phase == REF_WHITE and not self.ref_count:
            self.phase = DONE
        self._cand = -1
        self._hold = 0
        self._lifted = False

    def _empty(self, raw):
        s = self._sum
        lo = self._lo
        hi = self._hi
        add_scan(raw, self.n, s, lo, hi)
        if self.scans < self.empty_scans:
            return
        f = self.faults
        for ch in range(self.n):
            b = (s[ch] + self.scans // 2) // self.scans
            self.base[ch] = b
            if b <= RAIL_LO or b >= RAIL_HI or lo[ch] <= RAIL_LO or hi[ch] >= RAIL_HI:
                self.dead[ch] = 1
                f["dead"].append(ch)
                continue
            if hi[ch] - lo[ch] > NOISE_MAX:
                f["noisy"].append(ch)
            if b < self.mid - BASE_WINDOW or b > self.mid + BASE_WINDOW:
                f["offset"].append(ch)
            self.todo += 1
        self._next_phase()
        self._lifted = True

    def _strongest(self, raw, sign):
        """(channel, rise) of the channel that moved most in direction `sign`, and
        the second largest rise (another checker on the board)."""
        best = -1
        top = 0
        second = 0
        base = self.base
        dead = self.dead
        for ch in range(self.n):
            if dead[ch]:
                continue
            d = sign * (raw[ch] - base[ch])
            if d > top:
                second = top
                top = d
                best = ch
            elif d > second:
                second = d
        return best, top, second

    def _steady(self, raw, sign, only=-1):
        """The rise of a checker that has held still for _STEADY scans, or None.
        Waits for a lift (nothing above a quarter step) between two checkers."""
        ch, top, second = self._strongest(raw, sign)
        quarter = self.step1 // 4
        if not self._lifted:
            if top < quarter:
                self._lifted = True
            return None
        if top < self.step1 // 2 or second > quarter or (only >= 0 and ch != only):
            if sign > 0 and self.phase == SLOTS:
                _, neg, _ = self._strongest(raw, -1)
                if neg > self.step1 // 2:
                    self.hint = "reversed"   # the "white" checker reads like black
            self._cand = -1
            self._hold = 0
            return None
        if ch != self._cand or abs(raw[ch] * self._hold - self._acc) > self._hold * (
                NOISE_MAX // 2):
            # another slot, or still moving: start over from this reading
            self._cand = ch
            self._hold = 1
            self._acc = raw[ch]
            return None
        self._hold += 1
        self._acc += raw[ch]
        if self._hold < _STEADY:
            return None
        rise = sign * ((self._acc + _STEADY // 2) // _STEADY - self.base[ch])
        self._cand = -1
        self._hold = 0
        self._lifted = False
        self.last = ch
        return rise

    def _slots(self, raw):
        rise = self._steady(raw, 1)
        if rise is None:
            return
        ch = self.last
        if self.done[ch]:
            return
        self.done[ch] = 1
        self.rise[ch] = rise
        self.todo -= 1
        if self.todo <= 0:
            self._next_phase()

    def _reference(self, raw):
        sign = 1 if self.phase == REF_WHITE else -1
        rise = self._steady(raw, sign, self.ref_channel)
        if rise is None:
            return
        lst = self.ref[0 if sign > 0 else 1]
        lst.append(rise)
        if len(lst) >= self.ref_count:
            self._next_phase()

    # -- the result ------------------------------------------------------------------------
    def prompt(self):
        """(phase name, done, total) for the OLED and the USB progress lines."""
        if self.phase == EMPTY:
            return PHASES[EMPTY], self.scans, self.empty_scans
        if self.phase == SLOTS:
            total = self.n - len(self.faults["dead"])
            return PHASES[SLOTS], total - self.todo, total
        if self.phase == REF_WHITE:
            return PHASES[REF_WHITE], len(self.ref[0]), self.ref_count
        if self.phase == REF_BLACK:
            return PHASES[REF_BLACK], len(self.ref[1]), self.ref_count
        return PHASES[DONE], 0, 0

    def result(self):
        """(Calibration, faults): offsets and gains per channel, the board's level
        steps, and every channel that failed a sanity window, by kind."""
        d = self.defaults
        cal = Calibration(self.n, d, d.get("hysteresis"), self.slots)
        cal.measured = True
        st = cal.steps
        # the step-2 checker against its colour's mean; black's mean against white's
        ref_ch = self.ref_channel
        r0 = self.rise[ref_ch] if self.done[ref_ch] else 0
        white = self.ref[0]
        black = self.ref[1]
        norm = 1000
        if white and r0 > 0:
            norm = (r0 * 1000 * len(white)) // sum(white)
        if white and black:
            bscale = (sum(black) * 1000 * len(white)) // (sum(white) * len(black))
            st[2] = -((-st[2] * bscale + 500) // 1000)
            st[3] = -((-st[3] * bscale + 500) // 1000)
        f = self.faults
        gains = []
        for ch in range(self.n):
            if self.dead[ch]:
                cal.dead.add(ch)
                continue
            cal.base[ch] = self.base[ch]
            if not self.done[ch]:
                continue
            g = (self.rise[ch] * 1000 * 1000) // (self.step1 * norm)
            if g < GAIN_LO or g > GAIN_HI:
                f["gain"].append(ch)
                cal.dead.add(ch)
                continue
            cal.gain[ch] = g
            gains.append(g)
        if gains:
            gains.sort()
            med = gains[len(gains) // 2]
            for ch in f["missing"]:
                cal.gain[ch] = med
        return cal, f


def report_lines(faults, hint=None):
    """Short lines naming each fault, for the OLED and the host."""
    out = []
    names = (("dead", "dead (rail)"), ("noisy", "noisy"), ("offset", "offset out of window"),
             ("gain", "gain out of window"), ("missing", "not calibrated"))
    for key, text in names:
        chans = faults.get(key) or []
        if chans:
            out.append("%s: %s" % (text, " ".join(str(c) for c in chans[:12])
                                   + (" ..." if len(chans) > 12 else "")))
    if hint == "reversed":
        out.append("white reads like black: magnets reversed?")
    return out


def run_board(board, path, slots=5, ref_count=15, out=None):
    """The guided calibration on the board itself (from the menu, or ``nardy
    calibrate`` over mpremote): scans until done, OK ends a step early, a long BACK
    gives up. Progress goes to the OLED and as ``{"ev": "calib", ...}`` lines; the
    result is written to ``path`` (through a temporary file, so a reset in between
    leaves the old calibration) and reported as ``{"ev": "calibrated", ...}``."""
    import os
    n = board.pinmap.layout.n
    proc = Procedure(n, slots, ref_count=ref_count)
    buf = array("H", [0] * n)
    say = out or board.out
    shown = None
    texts = {"empty": "clear the board", "slots": "white on each slot",
             "ref_white": "each white on P1.1", "ref_black": "each black on P1.1"}
    while proc.phase != DONE:
        if not board.scan(buf):
            continue
        proc.feed(buf)
        for name, kind in board.poll_buttons(board.ticks_ms()):
            if name == "ok":
                proc.finish()
            elif name == "back" and kind == "long":
                say({"ev": "calibrated", "ok": False, "error": "given up"})
                return None
        p = proc.prompt()
        if p != shown:
            shown = p
            say({"ev": "calib", "phase": p[0], "done": p[1], "total": p[2],
                 "last": proc.last})
            d = board.display
            if d is not None:
                d.fill(0)
                d.text("CALIBRATION", 0, 0, 1)
                d.text(texts.get(p[0], p[0])[:16], 0, 16, 1)
                d.text("%d / %d" % (p[1], p[2]), 0, 32, 1)
                d.text("OK: next step", 0, 48, 1)
                board.show_display()
    cal, faults = proc.result()
    tmp = path + ".tmp"
    cal.save(tmp)
    os.rename(tmp, path)
    lines = report_lines(faults, proc.hint)
    say({"ev": "calibrated", "ok": not lines, "faults": lines, "path": path})
    return cal
