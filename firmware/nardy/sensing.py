"""Sensing: raw hall readings in, a per-point observation out.

Pure logic. The HAL fills an array of raw ADC counts (0..4095), one per channel in
the logical order of ``nardy.zones.Layout``, and calls ``Sensing.scan(raw, now_ms)``.
Nothing here touches hardware or allocates in steady state: every buffer is made in
``__init__`` and the scan loop only indexes arrays.

Per channel (slot):
1. classification into five classes with hysteresis: black2 | black1 | empty | white1
   | white2 (a class "2" means two or more stacked); a reading at a rail (open or
   shorted input) or a channel marked dead is "unknown";
2. debouncing in time: a new class counts once the reading stayed in it for
   ``stable_ms`` (slides across other points and ADC spikes never get that far).

Per zone (points P1..P24, the bar, white's and black's borne-off trays): how many
checkers of each colour the slots show (``vis_w``/``vis_b``) and whether the true
number may be higher (``open_``: a slot reads "two or more", or a slot is blind).
Conservation (15 per colour on points, bar and trays) turns one open zone per colour
into a count: the tracker's (``nardy.zonefit``, ``observed_position``), with the legal
moves.

Zones, class codes and the channel order are the board's terms, ``nardy.zones``.
"""

from array import array

from micropython import const  # CPython: the shim nardy/__init__.py installs

# nardy.zones' terms, folded into the code (the scan's inner loops would look each
# name up in a dict else); tests/firmware/test_zones.py checks them against nardy.zones
_NZONES = const(28)
_C_BLACK2 = const(0)
_C_BLACK1 = const(1)
_C_EMPTY = const(2)
_C_WHITE1 = const(3)
_C_WHITE2 = const(4)
_C_UNKNOWN = const(5)
_OPEN_W = const(1)
_OPEN_B = const(2)
_BLIND = const(4)

# ticks_ms() wraps at 2**30 on the ESP32; differences are taken modulo that so a wrap
# in the middle of a debounce does not freeze a channel.
_TICKS_MASK = const(0x3FFFFFFF)
_RAIL_LO = const(16)
_RAIL_HI = const(4079)
_LO_INF = const(-32768)
_HI_INF = const(32767)


class Sensing:
    def __init__(self, layout, calibration, stable_ms=120, stuck_scans=0, crosstalk=True):
        n = layout.n
        self.layout = layout
        self.n = n
        self.stable_ms = stable_ms
        # A channel whose reading does not move by a single count for this many scans
        # is stuck (a real ADC always shows some noise); 0 disables the check.
        self.stuck_scans = stuck_scans
        self._t = calibration.thresholds()
        self._h = calibration.hysteresis
        self._dead = bytearray(n)
        for ch in calibration.dead:
            if 0 <= ch < n:
                self._dead[ch] = 1
        self._pend = bytearray(n)      # class of the latest reading
        self.stab = bytearray(n)      # debounced class
        self._since = array("i", [0] * n)
        # Band of readings that keep the pending class (thresholds widened by the
        # hysteresis); the common case, a reading inside its band, costs two compares.
        self.lo = array("h", [0] * n)
        self.hi = array("h", [0] * n)
        # the stuck-channel watch's state, only when it is on (576 bytes of a
        # 56 KB heap otherwise)
        self._last = self._same = None
        if stuck_scans:
            self._last = array("h", [0] * n)
            self._same = array("H", [0] * n)
        self._zdirty = bytearray(_NZONES)
        # Crosstalk compensation: each point channel's reading is corrected by what
        # its neighbours' debounced classes put on it (recomputed only when a
        # neighbour's class changes). Public, like ``stab``, ``lo`` and ``hi``:
        # nardy.xtalk reads the debounced classes, writes the corrections and empties
        # a corrected channel's band (allocated here, once: xtalk's neighbour lists
        # ``xt_nb``/``xt_nt`` and its second pair for a change's neighbours).
        self.crosstalk = crosstalk
        self.xt = array("h", [0] * n)
        self.xt_step = array("h", [0] * n)
        for ch in range(n):
            lv = calibration.levels(ch)
            self.xt_step[ch] = lv[1] - lv[0]
        self.xt_nb = array("H", [0] * 24)
        self.xt_nt = bytearray(24)
        self.xt_nb2 = array("H", [0] * 24)
        self.xt_nt2 = bytearray(24)
        # imported here, not at the top: compiled after the app's big modules, so
        # the boot's heap peak does not grow (nardy.xtalk)
        self._xtc = None
        if crosstalk:
            from nardy.xtalk import neighbour_changed
            self._xtc = neighbour_changed
        self.vis_w = bytearray(_NZONES)
        self.vis_b = bytearray(_NZONES)
        self.open_ = bytearray(_NZONES)
        self.raw = None         # the last scan's raw readings (not copied)
        self.seq = 0            # bumps whenever the observation changes
        self.pending = 0        # channels whose latest class is not debounced yet
        self.max_wait_ms = 4 * stable_ms
        self._news = False
        self._news_t = 0
        self.moved = 0          # ticks of the last change of any pending class
        # A lift before its debounce (``early_zone``, ``early_col``): a slot whose
        # latest reading shows one checker fewer than its debounced class, on the
        # first scan that shows it. The LEDs may show its targets at once (issue 21:
        # within 60 ms of the hand); a reading that comes back (a spike, a hand
        # passing) or the debounce itself clears it.
        self.early_zone = 0
        self.early_col = 0
        self._early_ch = -1
        self.reset()

    def reset(self):
        """Forget all classes: the next scans classify every channel afresh."""
        self.pending = 0
        self.early_zone = 0
        self._early_ch = -1
        for i in range(self.n):
            self.xt[i] = 0
            self._pend[i] = _C_UNKNOWN
            self.stab[i] = _C_UNKNOWN
            self.lo[i] = _HI_INF     # empty band: the first reading reclassifies
            self.hi[i] = _LO_INF
        if self._same is not None:
            for i in range(self.n):
                self._same[i] = 0
        for z in range(_NZONES):
            self._zdirty[z] = 1
        self._aggregate()

    def scan(self, raw, now):
        """Process one full scan; returns how many zones changed (0 when still)."""
        now &= _TICKS_MASK
        self.raw = raw          # the readings behind this observation (stack watch)
        lim = self.stuck_scans
        last = self._last
        same = self._same
        t = self._t
        h = self._h
        lo = self.lo
        hi = self.hi
        pend = self._pend
        stab = self.stab
        since = self._since
        hold = self.stable_ms
        zone = self.layout.zone
        zdirty = self._zdirty
        changed = 0
        xt = self.xt
        for i in range(self.n):
            r = raw[i] - xt[i]
            # Stuck-channel watch, in the same pass (one loop over 128 channels costs
            # the ESP32 about as much as the classification itself).
            if lim:
                if r == last[i]:
                    s = same[i]
                    if s < lim:
                        s += 1
                        same[i] = s
                        if s == lim:
                            # Frozen: blind the slot until the reading moves again
                            # (lo = hi = r keeps the band check below from firing).
                            if pend[i] == stab[i]:
                                self.pending += 1
                            elif stab[i] == _C_UNKNOWN:
                                self.pending -= 1
                            pend[i] = _C_UNKNOWN
                            since[i] = now
                            lo[i] = r
                            hi[i] = r
                            self.moved = now
                else:
                    last[i] = r
                    if same[i]:
                        if same[i] >= lim:
                            lo[i] = _HI_INF
                            hi[i] = _LO_INF
                        same[i] = 0
            if r < lo[i] or r > hi[i]:
                k = 4 * i
                if self._dead[i] or r <= _RAIL_LO or r >= _RAIL_HI:
                    c = _C_UNKNOWN
                    lo[i] = r
                    hi[i] = r
                else:
                    if r < t[k + 2]:
                        if r >= t[k + 1]:
                            c = _C_EMPTY
                        elif r >= t[k]:
                            c = _C_BLACK1
                        else:
                            c = _C_BLACK2
                    elif r < t[k + 3]:
                        c = _C_WHITE1
                    else:
                        c = _C_WHITE2
                    lo[i] = t[k + c - 1] - h if c else _LO_INF
                    hi[i] = t[k + c] + h if c < _C_WHITE2 else _HI_INF
                if c != pend[i]:
                    if pend[i] == stab[i]:
                        self.pending += 1
                    elif c == stab[i]:
                        self.pending -= 1    # a spike that went away
                    pend[i] = c
                    since[i] = now
                    self.moved = now
                    _early(self, i, c, stab[i])
            if pend[i] != stab[i] and ((now - since[i]) & _TICKS_MASK) >= hold:
                stab[i] = pend[i]
                self.pending -= 1
                zdirty[zone[i]] = 1
                if i == self._early_ch:
                    self.early_zone = 0      # debounced: the observation tells it
                    self._early_ch = -1
                changed = 1
                if self._xtc is not None:
                    self._xtc(self, i)
        if changed:
            n = self._aggregate()
            if n:
                self._news = True
                self._news_t = now
            return n
        return 0

    def ready(self, now):
        """True once per new observation, when it is whole: every channel settled
        (slots debounce one by one, so a checker moved between two points shows up
        at both within a few scans), or the news waited ``max_wait_ms`` (a slot
        flickering at a threshold must not hold the tracker back)."""
        if not self._news:
            return False
        if self.pending > 0 and (((now & _TICKS_MASK) - self._news_t) & _TICKS_MASK
                                 < self.max_wait_ms):
            return False
        self._news = False
        return True

    def _aggregate(self):
        st = self.layout.start
        stab = self.stab
        zd = self._zdirty
        nz = 0
        for z in range(1, _NZONES):
            if not zd[z]:
                continue
            zd[z] = 0
            w = 0
            b = 0
            o = 0
            for ch in range(st[z], st[z + 1]):
                c = stab[ch]
                if c == _C_EMPTY:
                    continue
                if c >= _C_UNKNOWN:
                    o |= _BLIND
                elif c > _C_EMPTY:
                    w += c - _C_EMPTY
                    if c == _C_WHITE2:
                        o |= _OPEN_W
                else:
                    b += _C_EMPTY - c
                    if c == _C_BLACK2:
                        o |= _OPEN_B
            if w != self.vis_w[z] or b != self.vis_b[z] or o != self.open_[z]:
                self.vis_w[z] = w
                self.vis_b[z] = b
                self.open_[z] = o
                nz += 1
        if nz:
            self.seq += 1
        return nz

    def still_ms(self, now):
        """How long no slot has changed class (debounce included)."""
        return ((now & _TICKS_MASK) - self.moved) & _TICKS_MASK

    def settled(self):
        """True when every channel's debounced class equals its latest class."""
        for i in range(self.n):
            if self._pend[i] != self.stab[i]:
                return False
        return True

    def slot_class(self, ch):
        """Debounced class of one channel: -2..2 (black2..white2), None if unknown."""
        c = self.stab[ch]
        return None if c >= _C_UNKNOWN else c - _C_EMPTY


def _early(s, i, c, st):
    """Channel ``i``'s latest class became ``c`` (debounced: ``st``): one
    checker fewer of the same colour is an early lift; another change of that
    channel ends it. (A module function: one more method would grow the class's
    dict from 11 to 17 slots.)"""
    if _C_EMPTY <= c < st <= _C_WHITE2 or st < c <= _C_EMPTY:
        s._early_ch = i
        s.early_zone = s.layout.zone[i]
        s.early_col = 0 if st > _C_EMPTY else 1
    elif i == s._early_ch:
        s.early_zone = 0
        s._early_ch = -1
