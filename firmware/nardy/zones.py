"""The board's terms, a leaf every layer may use: the zones, the class a slot's
reading falls in, and the channel order of the sensors (``Layout``).

Zones: 1..24 = P1..P24, ``ZONE_BAR`` = 25, ``ZONE_OFF_W`` = 26, ``ZONE_OFF_B`` = 27
(index 0 is unused so that a zone number is the physical point number). Where each
path point of a colour lies among them is ``nardy.zonefit``'s (``zone_of``).

Plain ints, not ``const()``: no module folds another's constants (a module that needs
them folded keeps its own ``_X = const(...)`` copies, checked by
tests/firmware/test_zones.py), and ``const`` and ``array`` would be two more names
in this module's dict, which stays resident: 16 names fit 17 slots, 18 take 23.
"""

ZONE_BAR = 25
ZONE_OFF_W = 26
ZONE_OFF_B = 27
NZONES = 28

# Class codes kept per channel (one byte each). Ordered like the readings so that a
# class is found by comparing against increasing thresholds.
C_BLACK2 = 0
C_BLACK1 = 1
C_EMPTY = 2
C_WHITE1 = 3
C_WHITE2 = 4
C_UNKNOWN = 5

# open_ bits per zone: some slot reads "two or more" of that colour; BLIND: a slot
# of the zone is unknown (dead or stuck channel), so it may hide any checkers.
OPEN_W = 1
OPEN_B = 2
BLIND = 4


class Layout:
    """Channel order: P1 slot 1..S, P2 slot 1..S, ..., P24, then the bar, then
    white's tray, then black's tray. Slot 1 is at the board edge. The HAL (pin map)
    owns the mapping from multiplexer inputs to this order."""

    def __init__(self, slots=5, bar=4, tray=2):
        if not 1 <= slots <= 6:
            raise ValueError("slots per point must be 1..6")
        self.slots = slots
        self.bar = bar
        self.tray = tray
        self.n = 24 * slots + bar + 2 * tray
        from array import array  # once, at boot: not a name in the module's dict
        self.start = array("H", [0] * (NZONES + 1))
        for z in range(1, 25):
            self.start[z] = (z - 1) * slots
        self.start[ZONE_BAR] = 24 * slots
        self.start[ZONE_OFF_W] = 24 * slots + bar
        self.start[ZONE_OFF_B] = 24 * slots + bar + tray
        self.start[NZONES] = self.n
        self.zone = bytearray(self.n)
        # How many checkers of one colour the slots of a zone can count: a slot tells
        # 0, 1 and "2 or more". Half of the bar belongs to each colour (hit checkers
        # are put on the half nearer their owner's side).
        self.cap = bytearray(NZONES)
        for z in range(1, 25):
            self.cap[z] = 2 * slots
        self.cap[ZONE_BAR] = max(1, bar)
        self.cap[ZONE_OFF_W] = 2 * tray
        self.cap[ZONE_OFF_B] = 2 * tray
        for z in range(1, NZONES):
            for ch in range(self.start[z], self.start[z + 1]):
                self.zone[ch] = z

    def channel(self, zone, slot):
        """Channel index of ``slot`` (1-based) of ``zone``."""
        return self.start[zone] + slot - 1

    def size(self, zone):
        return self.start[zone + 1] - self.start[zone]
