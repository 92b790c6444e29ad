"""An ideal observation for tracker tests: what the sensing layer reports for a
position (counts per zone, capped at what the slots can tell), without sensors."""

from nardy.sensing import BLIND, NZONES, ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W


class Obs:
    def __init__(self):
        self.vis_w = bytearray(NZONES)
        self.vis_b = bytearray(NZONES)
        self.open_ = bytearray(NZONES)
        self.raw = None


def zone_of(v, colour, k):
    if k == 0:
        return ZONE_BAR
    if k == 25:
        return ZONE_OFF_W if colour == 0 else ZONE_OFF_B
    return v.physical(colour, k)


def show(v, layout, pos, obs=None, lift=(), add=(), blind=(), raw=None):
    """Fill ``obs`` from ``pos``; ``lift``: (colour, zone) checkers in the hand;
    ``add``: (colour, zone) extra checkers seen; ``blind``: zones with a dead slot;
    ``raw``: the readings behind it (for the tracker's stack watch)."""
    if obs is None:
        obs = Obs()
    obs.raw = raw
    n = [bytearray(NZONES), bytearray(NZONES)]
    for c in (0, 1):
        for k in range(26):
            cnt = pos.board[26 * c + k]
            if cnt:
                n[c][zone_of(v, c, k)] += cnt
    for c, z in lift:
        n[c][z] -= 1
    for c, z in add:
        n[c][z] += 1
    for z in range(NZONES):
        cap = layout.cap[z]
        obs.vis_w[z] = min(n[0][z], cap)
        obs.vis_b[z] = min(n[1][z], cap)
        obs.open_[z] = BLIND if z in blind else 0
    return obs
