"""Crosstalk compensation of the sensing (``nardy.sensing.Sensing``).

A checker beside a sensor moves its reading a little the other way (the field of a
disc magnet turns negative beside it). Each point channel's reading is corrected by
what its neighbours' debounced classes put on it; the correction is recomputed only
when a neighbour's class changes (``neighbour_changed``, called by ``Sensing.scan``).
A module of its own so that the boot compiles it after the app's big modules.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.zones import C_BLACK1, C_EMPTY, C_UNKNOWN, C_WHITE1, C_WHITE2

_LO_INF = const(-32768)
_HI_INF = const(32767)

# Crosstalk: a checker on a neighbouring slot moves a sensor's reading too (the field
# of a disc magnet turns negative beside it). Per mille of a channel's one-checker
# step, for one and for two or more checkers at that offset; from
# magnet.MagnetModel() (a test checks this table against the model). Offsets: A the
# next slot of the same point, B two slots along, C the next point's same slot, D
# the next point's next slot, E across the middle gap (last slot facing last slot),
# F across the gap, one point over, G the next point, two slots along, H and I a tray
# sensor and the slots of P1 (white's tray) or P24 (black's) beside it.
_XT = (-24, -29, -4, -8, -21, -28, -10, -16, -7, -12, -4, -8, -3, -6, -13, -19, -5, -8)
XT_A = const(0)
XT_B = const(1)
XT_C = const(2)
XT_D = const(3)
XT_E = const(4)
XT_F = const(5)
XT_G = const(6)
XT_H = const(7)   # a tray sensor and P1/P24: 44 mm across, 18 mm along
XT_I = const(8)   # ... 44 mm across, 54 mm along


def _beside(p, d):
    """The point beside P`p` in its row (d = +1 or -1), or 0: the bar parts P6|P7 and
    P18|P19, and the rows end at P1/P12 and P13/P24."""
    q = p + d
    if p <= 12:
        if not 1 <= q <= 12 or (p == 6 and q == 7) or (p == 7 and q == 6):
            return 0
    elif not 13 <= q <= 24 or (p == 18 and q == 19) or (p == 19 and q == 18):
        return 0
    return q


def _bar_slot(bs):
    """The point slot a bar sensor is level with: bar 1 and 3 with slot 2, bar 2 and
    4 with slot 4 (magnet.MagnetModel.slot_xy)."""
    return 2 if bs == 1 or bs == 3 else 4


def _bar_neighbours(lay, bs, nb, nt):
    """Neighbours of bar sensor bs: the points either side of its half of the bar and
    the other sensor of that half (two pitches along)."""
    if lay.bar != 4:
        return 0
    e = _bar_slot(bs)
    k = 0
    for q in ((6, 7) if bs <= 2 else (18, 19)):
        for d in (-2, -1, 0, 1, 2):
            if 1 <= e + d <= lay.slots:
                nb[k] = lay.start[q] + e + d - 1
                nt[k] = XT_C if d == 0 else (XT_D if d == 1 or d == -1 else XT_G)
                k += 1
    other = bs + 1 if bs == 1 or bs == 3 else bs - 1
    nb[k] = lay.start[25] + other - 1
    nt[k] = XT_B
    return k + 1


def _tray_dist(ts, s):
    """Offset kind between tray sensor ts (level with slot 1.5 or 3.5 of P1/P24) and
    slot s of that point: XT_H (18 mm along), XT_I (54 mm), or 0 (farther)."""
    d = 2 * s - (4 * ts - 1)      # in half pitches
    if d == 1 or d == -1:
        return XT_H
    if d == 3 or d == -3:
        return XT_I
    return 0


def _tray_neighbours(lay, z, ts, nb, nt):
    """Neighbours of a tray sensor: the slots of P1 (white's tray) or P24 (black's)
    beside it, and the tray's other sensor (two pitches along)."""
    if lay.tray != 2:
        return 0
    p = 1 if z == 26 else 24
    k = 0
    for s in range(1, lay.slots + 1):
        d = _tray_dist(ts, s)
        if d:
            nb[k] = lay.start[p] + s - 1
            nt[k] = d
            k += 1
    nb[k] = lay.start[z] + (2 if ts == 1 else 1) - 1
    nt[k] = XT_B
    return k + 1


def neighbours(sens, ch, nb, nt):
    """Fill nb/nt with the neighbours of point channel ch and their offset
    kinds; returns how many (0 for the bar and the trays)."""
    lay = sens.layout
    z = lay.zone[ch]
    slots = lay.slots
    s = ch - lay.start[z] + 1
    if z == 25:
        return _bar_neighbours(lay, s, nb, nt)
    if z > 25:
        return _tray_neighbours(lay, z, s, nb, nt)
    k = 0
    for d in (-2, -1, 1, 2):
        if 1 <= s + d <= slots:
            nb[k] = ch + d
            nt[k] = XT_A if d == 1 or d == -1 else XT_B
            k += 1
    for side in (-1, 1):
        q = _beside(z, side)
        if not q:
            continue
        base = lay.start[q] - 1
        for d in (-2, -1, 0, 1, 2):
            if 1 <= s + d <= slots:
                nb[k] = base + s + d
                nt[k] = XT_C if d == 0 else (XT_D if d == 1 or d == -1 else XT_G)
                k += 1
    if z in (6, 7, 18, 19) and lay.bar == 4:
        # the bar's sensors sit beside these points (39 mm, like a next point)
        for bs in ((1, 2) if z <= 12 else (3, 4)):
            d = s - _bar_slot(bs)
            if -2 <= d <= 2:
                nb[k] = lay.start[25] + bs - 1
                nt[k] = XT_C if d == 0 else (XT_D if d == 1 or d == -1 else XT_G)
                k += 1
    if (z == 1 or z == 24) and lay.tray == 2:
        tz = 26 if z == 1 else 27
        for ts in (1, 2):
            d = _tray_dist(ts, s)
            if d:
                nb[k] = lay.start[tz] + ts - 1
                nt[k] = d
                k += 1
    if s == slots:
        q = 25 - z
        nb[k] = lay.start[q] + slots - 1
        nt[k] = XT_E
        k += 1
        for side in (-1, 1):
            r = _beside(q, side)
            if r:
                nb[k] = lay.start[r] + slots - 1
                nt[k] = XT_F
                k += 1
    return k


def xt_of(sens, ch):
    """Counts the neighbours' debounced classes add to channel ch's reading."""
    k = neighbours(sens, ch, sens.xt_nb, sens.xt_nt)
    stab = sens.stab
    acc = 0
    for j in range(k):
        c = stab[sens.xt_nb[j]]
        if c == C_EMPTY or c >= C_UNKNOWN:
            continue
        t = 2 * sens.xt_nt[j]
        if c == C_WHITE1:
            acc += _XT[t]
        elif c == C_WHITE2:
            acc += _XT[t + 1]
        elif c == C_BLACK1:
            acc -= _XT[t]
        else:
            acc -= _XT[t + 1]
    return (acc * sens.xt_step[ch]) // 1000


def neighbour_changed(sens, ch):
    """Channel ch's debounced class changed: recompute its neighbours' corrections
    and have each one that moved reclassified at its next reading."""
    nb = sens.xt_nb2
    k = neighbours(sens, ch, nb, sens.xt_nt2)
    for j in range(k):
        i = nb[j]
        v = xt_of(sens, i)
        if v != sens.xt[i]:
            sens.xt[i] = v
            sens.lo[i] = _HI_INF    # reclassify it at the next reading
            sens.hi[i] = _LO_INF
