"""An ideal observation for tracker tests: what the sensing layer reports for a
position (counts per zone, capped at what the slots can tell), without sensors."""

from nardy.zonefit import zone_counts, zone_of  # noqa: F401 (the tests import it from here)
from nardy.zones import BLIND, NZONES


class Obs:
    def __init__(self):
        self.vis_w = bytearray(NZONES)
        self.vis_b = bytearray(NZONES)
        self.open_ = bytearray(NZONES)
        self.raw = None


def show(v, layout, pos, obs=None, lift=(), add=(), blind=(), raw=None):
    """Fill ``obs`` from ``pos``; ``lift``: (colour, zone) checkers in the hand;
    ``add``: (colour, zone) extra checkers seen; ``blind``: zones with a dead slot;
    ``raw``: the readings behind it (for the tracker's stack watch)."""
    if obs is None:
        obs = Obs()
    obs.raw = raw
    n = zone_counts(v, pos)
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
