"""Zone geometry, in one place: where each (colour, path point) of a variant is on
the board, the checkers a position puts in each zone, and where an observation
differs from a position.

Zones are ``nardy.sensing``'s: 1..24 = P1..P24, 25 the bar, 26/27 white's/black's
tray (0 is unused). A path point is the rules engine's: 0 the bar, 1..24 the
mover's path, 25 borne off. The game (set-up differences), the tracker (its zone
tables and out-of-sync differences), the host's session and the tests all ask here.

>>> from nardy.longnardy import LongNardy
>>> v = LongNardy()
>>> zone_of(v, 0, 1), zone_of(v, 1, 1), zone_of(v, 0, 0), zone_of(v, 1, 25)
(24, 12, 25, 27)
>>> w, b = zone_counts(v, v.start_position())
>>> w[24], b[12], sum(w), sum(b)
(15, 15, 15, 15)
"""

from nardy.rules import BLACK, WHITE
from nardy.sensing import BLIND, NZONES, ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W


def zone_of(variant, colour, k):
    """Sensing zone of ``colour``'s path point ``k`` (0 bar, 25 off)."""
    if k == 0:
        return ZONE_BAR
    if k == 25:
        return ZONE_OFF_W if colour == WHITE else ZONE_OFF_B
    return variant.physical(colour, k)


def zone_table(variant, colour):
    """bytearray(26): the zone of each of ``colour``'s path points."""
    return bytearray([zone_of(variant, colour, k) for k in range(26)])


def zone_counts(variant, pos, hand=None):
    """(white, black): bytearray(NZONES) each, the checkers ``pos`` puts in each
    zone; ``hand``: (colour, path point) of one checker lifted off it."""
    out = (bytearray(NZONES), bytearray(NZONES))
    for c in (WHITE, BLACK):
        side = pos.side(c)
        e = out[c]
        for k in range(26):
            n = side[k]
            if hand is not None and hand[0] == c and hand[1] == k:
                n -= 1
            if n > 0:
                e[zone_of(variant, c, k)] += n
    return out


def differences(expected, obs, cap):
    """Where observation ``obs`` differs from the counts ``expected`` ((white,
    black) per zone, as ``zone_counts``): a sorted list of (zone, colour, expected,
    seen). More seen than expected is always a difference; fewer only where the
    zone can show that many (``cap``) and no slot of it is blind."""
    diffs = []
    op = obs.open_
    for c in (WHITE, BLACK):
        e = expected[c]
        vis = obs.vis_w if c == WHITE else obs.vis_b
        for z in range(1, NZONES):
            n = e[z]
            s = vis[z]
            k = cap[z]
            shown = n if n <= k else k
            if s > n or (s < shown and not op[z] & BLIND):
                diffs.append((z, c, n, s))
    diffs.sort()
    return diffs
