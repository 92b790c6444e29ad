"""A small grid maze router for the generated boards (two signal layers, ground planes).

Why our own: KiCad 6 has no scriptable autorouter, and the boards are regular enough
that an A* search on a 0.5 mm grid finds every connection. The clearance rules are
built into the grid so the result passes KiCad's DRC by construction:

- tracks are 0.25 mm wide and run on grid lines only (no diagonals): two tracks of
  different nets on neighbouring lines are 0.25 mm apart (rule: 0.2 mm);
- a cell or a grid edge closer than 0.125 + 0.2 mm (+ margin) to another net's pad is
  blocked, computed exactly for the segment, not only its end points;
- a via (0.6 mm, drill 0.3 mm) claims its cell and the four neighbours on both outer
  layers; vias keep 1 mm from every other hole; none sits in or beside a pad;
- nets named in `planes` are not routed as tracks: each of their SMD pads gets a short
  track to a via into the inner ground planes (through-hole pads reach them directly).

Pure Python on purpose (heapq + numpy for the pad halos): runs under KiCad's Python.
"""

import heapq

import numpy as np

GRID = 0.5  # mm
TRACK = 0.25
CLEAR = 0.2
VIA_D = 0.6
VIA_DRILL = 0.3
EDGE = 0.5  # copper to board edge
MARGIN = 0.02
FREE = -1
ALL = -2  # blocked for every net
COST_STEP = 2
COST_WRONG_DIR = 3  # F.Cu prefers horizontal runs, B.Cu vertical
COST_VIA = 24


class RouteError(Exception):
    pass


class Pad:
    """What the router needs of a pad: net code, outer layers, axis-aligned copper box
    (mm), a hole radius (0 for SMD)."""

    def __init__(self, net, layers, box, hole_r=0.0, centre=None):
        self.net = net
        self.layers = layers  # subset of (0, 1): 0 = F.Cu, 1 = B.Cu
        self.box = box  # (x0, y0, x1, y1)
        self.hole_r = hole_r
        self.centre = centre or ((box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0)


def _mark(arr, mask, net):
    """Claim the masked cells for `net`; cells claimed by another net become ALL."""
    cur = arr[mask]
    arr[mask] = np.where((cur == FREE) | (cur == net), net, ALL)


def _box_dist(xs, ys, box):
    dx = np.maximum(np.maximum(box[0] - xs, 0), xs - box[2])
    dy = np.maximum(np.maximum(box[1] - ys, 0), ys - box[3])
    return np.hypot(dx, dy)


class Router:
    def __init__(self, width, height, pads, planes=()):
        self.nx = int(width / GRID) + 1
        self.ny = int(height / GRID) + 1
        self.pads = pads
        self.planes = set(planes)
        shape = (2, self.ny, self.nx)
        self.occ = np.full(shape, FREE, dtype=np.int32)  # track cells
        self.padblk = np.full(shape, FREE, dtype=np.int32)
        self.hblk = np.full(shape, FREE, dtype=np.int32)  # edge (x, y)-(x+1, y)
        self.vblk = np.full(shape, FREE, dtype=np.int32)  # edge (x, y)-(x, y+1)
        self.viablk = np.full((self.ny, self.nx), FREE, dtype=np.int32)
        self.holes = np.zeros((self.ny, self.nx), dtype=bool)  # via or drilled hole
        self.interior = {}  # (layer, iy, ix) -> net: cells inside a pad's own copper
        self.tracks = []  # (layer, net, (x0, y0), (x1, y1)) in mm
        self.vias = []  # (net, (x, y))
        xs = np.arange(self.nx) * GRID
        ys = np.arange(self.ny) * GRID
        self.X, self.Y = np.meshgrid(xs, ys)
        edge = (self.X < EDGE + TRACK / 2 + MARGIN) | (self.Y < EDGE + TRACK / 2 + MARGIN) | (
            self.X > width - EDGE - TRACK / 2 - MARGIN) | (
            self.Y > height - EDGE - TRACK / 2 - MARGIN)
        for layer in (0, 1):
            self.occ[layer][edge] = ALL
        vedge = (self.X < EDGE + VIA_D / 2 + MARGIN) | (self.Y < EDGE + VIA_D / 2 + MARGIN) | (
            self.X > width - EDGE - VIA_D / 2 - MARGIN) | (
            self.Y > height - EDGE - VIA_D / 2 - MARGIN)
        self.viablk[vedge] = ALL
        for p in pads:
            self._add_pad(p)

    def _window(self, box, r):
        x0 = max(int((box[0] - r) / GRID) - 1, 0)
        y0 = max(int((box[1] - r) / GRID) - 1, 0)
        x1 = min(int((box[2] + r) / GRID) + 2, self.nx)
        y1 = min(int((box[3] + r) / GRID) + 2, self.ny)
        return slice(y0, y1), slice(x0, x1)

    def _add_pad(self, p):
        r_track = TRACK / 2 + CLEAR + MARGIN
        r_via = VIA_D / 2 + CLEAR + MARGIN
        sy, sx = self._window(p.box, 1.5)
        X, Y = self.X[sy, sx], self.Y[sy, sx]
        d = _box_dist(X, Y, p.box)
        # Horizontal edges: segment from (x, y) to (x + GRID, y); vertical likewise.
        bx = p.box
        dxh = np.maximum(np.maximum(bx[0] - (X + GRID), 0), X - bx[2])
        dyh = np.maximum(np.maximum(bx[1] - Y, 0), Y - bx[3])
        dh = np.hypot(dxh, dyh)
        dxv = np.maximum(np.maximum(bx[0] - X, 0), X - bx[2])
        dyv = np.maximum(np.maximum(bx[1] - (Y + GRID), 0), Y - bx[3])
        dv = np.hypot(dxv, dyv)
        for layer in p.layers:
            _mark(self.padblk[layer][sy, sx], d < r_track, p.net)
            _mark(self.hblk[layer][sy, sx], dh < r_track, p.net)
            _mark(self.vblk[layer][sy, sx], dv < r_track, p.net)
        # A via keeps clear of other nets' pads and never sits in or beside its own.
        vb = self.viablk[sy, sx]
        _mark(vb, d < r_via, p.net)
        vb[d < VIA_D / 2 + 0.15] = ALL
        if p.hole_r:
            cx, cy = p.centre
            hd = np.hypot(X - cx, Y - cy)
            vb[hd < p.hole_r + VIA_DRILL / 2 + 0.5] = ALL
        # Cells whose track would lie inside the pad's own copper.
        inner = ((X >= bx[0] + TRACK / 2) & (X <= bx[2] - TRACK / 2)
                 & (Y >= bx[1] + TRACK / 2) & (Y <= bx[3] - TRACK / 2))
        iy, ix = np.nonzero(inner)
        for layer in p.layers:
            for a, b in zip(iy, ix):
                self.interior[(layer, a + sy.start, b + sx.start)] = p.net

    # -- access -----------------------------------------------------------------------

    def access(self, p):
        """Grid cells (layer, iy, ix) a track of the pad's net may start from, and for
        each a stub (from the pad centre) if the cell is outside the copper."""
        out = []
        for layer in p.layers:
            cells = [k for k, n in self._interior_of(p, layer)]
            if cells:
                out += [(c, None) for c in cells]
        if out:
            return out
        cx, cy = p.centre
        ix, iy = int(round(cx / GRID)), int(round(cy / GRID))
        for layer in p.layers:
            if self._cell_ok(layer, iy, ix, p.net):
                out.append(((layer, iy, ix), p.centre))
        return out

    def _interior_of(self, p, layer):
        bx = p.box
        x0, x1 = int(np.ceil((bx[0] + TRACK / 2) / GRID)), int(np.floor((bx[2] - TRACK / 2) / GRID))
        y0, y1 = int(np.ceil((bx[1] + TRACK / 2) / GRID)), int(np.floor((bx[3] - TRACK / 2) / GRID))
        for iy in range(max(y0, 0), min(y1, self.ny - 1) + 1):
            for ix in range(max(x0, 0), min(x1, self.nx - 1) + 1):
                if self.occ[layer, iy, ix] in (FREE, p.net):
                    yield (layer, iy, ix), p.net

    def _cell_ok(self, layer, iy, ix, net):
        if not (0 <= ix < self.nx and 0 <= iy < self.ny):
            return False
        o = self.occ[layer, iy, ix]
        if o != FREE and o != net:
            return False
        if self.interior.get((layer, iy, ix)) == net:
            return True
        b = self.padblk[layer, iy, ix]
        return b == FREE or b == net

    def _edge_ok(self, layer, iy, ix, jy, jx, net):
        if self.interior.get((layer, iy, ix)) == net and self.interior.get((layer, jy, jx)) == net:
            return True
        if iy == jy:
            b = self.hblk[layer, iy, min(ix, jx)]
        else:
            b = self.vblk[layer, min(iy, jy), ix]
        return b == FREE or b == net

    def _via_ok(self, iy, ix, net):
        if not (2 <= ix < self.nx - 2 and 2 <= iy < self.ny - 2):
            return False
        v = self.viablk[iy, ix]
        if v != FREE and v != net:
            return False
        for layer in (0, 1):
            for dy, dx in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
                o = self.occ[layer, iy + dy, ix + dx]
                if o != FREE and o != net:
                    return False
                b = self.padblk[layer, iy + dy, ix + dx]
                if b != FREE and b != net and dy == dx == 0:
                    return False
        if self.holes[iy - 2:iy + 3, ix - 2:ix + 3].any():
            return False
        return True

    # -- search -----------------------------------------------------------------------

    def _search(self, net, sources, goal, target_xy):
        """A* from `sources` (cells) until goal(cell) is true. Returns the cell path
        with via steps as consecutive cells on different layers."""
        tx, ty = target_xy
        h_scale = COST_STEP

        def h(c):
            return (abs(c[2] - tx) + abs(c[1] - ty)) * h_scale if tx is not None else 0

        best = {}
        prev = {}
        heap = []
        for c in sources:
            best[c] = 0
            prev[c] = None
            heapq.heappush(heap, (h(c), 0, c))
        limit = 400000
        while heap:
            f, g, c = heapq.heappop(heap)
            if g > best.get(c, 1 << 30):
                continue
            if goal(c):
                path = [c]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1]
            limit -= 1
            if limit < 0:
                break
            layer, iy, ix = c
            for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                jy, jx = iy + dy, ix + dx
                if not self._cell_ok(layer, jy, jx, net):
                    continue
                if not self._edge_ok(layer, iy, ix, jy, jx, net):
                    continue
                horizontal = dy == 0
                step = COST_STEP if horizontal == (layer == 0) else COST_WRONG_DIR
                n = (layer, jy, jx)
                ng = g + step
                if ng < best.get(n, 1 << 30):
                    best[n] = ng
                    prev[n] = c
                    heapq.heappush(heap, (ng + h(n), ng, n))
            n = (1 - layer, iy, ix)
            ng = g + COST_VIA
            if ng < best.get(n, 1 << 30) and self._cell_ok(1 - layer, iy, ix, net) \
                    and self._via_ok(iy, ix, net):
                best[n] = ng
                prev[n] = c
                heapq.heappush(heap, (ng + h(n), ng, n))
        return None

    def _commit(self, net, path, stub=None, stub_end=None):
        for i, c in enumerate(path):
            self.occ[c] = net
            if i and path[i - 1][0] != c[0]:
                self._add_via(net, c[1], c[2])
        # Merge straight runs into single segments.
        i = 0
        while i < len(path) - 1:
            a = path[i]
            j = i + 1
            if path[j][0] != a[0]:
                i = j
                continue
            d = (path[j][1] - a[1], path[j][2] - a[2])
            while j + 1 < len(path) and path[j + 1][0] == a[0] and (
                    path[j + 1][1] - path[j][1], path[j + 1][2] - path[j][2]) == d:
                j += 1
            self.tracks.append((a[0], net, (a[2] * GRID, a[1] * GRID),
                                (path[j][2] * GRID, path[j][1] * GRID)))
            i = j
        for xy, c in ((stub, path[0]), (stub_end, path[-1])):
            if xy is not None:
                self.tracks.append((c[0], net, xy, (c[2] * GRID, c[1] * GRID)))

    def _add_via(self, net, iy, ix):
        self.vias.append((net, (ix * GRID, iy * GRID)))
        self.holes[iy, ix] = True
        for layer in (0, 1):
            for dy, dx in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
                self.occ[layer, iy + dy, ix + dx] = net

    # -- nets -------------------------------------------------------------------------

    def route_net(self, net, pads):
        if net in self.planes:
            for p in pads:
                if p.hole_r:
                    continue  # through hole: the inner planes connect it
                self._fanout(net, p)
            return
        pads = sorted(pads, key=lambda p: (p.centre[0], p.centre[1]))
        first = self.access(pads[0])
        if not first:
            raise RouteError("net %d: no access to pad at %s" % (net, pads[0].centre))
        tree = set()
        c0, stub0 = first[0]
        if stub0 is not None:
            self._commit(net, [c0], stub=stub0)
        tree.update(c for c, _ in first)
        placed = [pads[0]]
        rest = pads[1:]
        while rest:
            rest.sort(key=lambda p: min(abs(p.centre[0] - q.centre[0])
                                        + abs(p.centre[1] - q.centre[1]) for q in placed))
            p = rest.pop(0)
            acc = self.access(p)
            if not acc:
                raise RouteError("net %d: no access to pad at %s" % (net, p.centre))
            goals = dict(acc)
            tx, ty = int(round(p.centre[0] / GRID)), int(round(p.centre[1] / GRID))
            path = self._search(net, sorted(tree), lambda c: c in goals, (tx, ty))
            if path is None:
                raise RouteError("net %d: cannot reach pad at %s" % (net, p.centre))
            self._commit(net, path, stub_end=goals[path[-1]])
            tree.update(path)
            tree.update(c for c, _ in acc)
            placed.append(p)

    def _fanout(self, net, p):
        acc = self.access(p)
        if not acc:
            raise RouteError("plane net %d: no access to pad at %s" % (net, p.centre))
        starts = dict(acc)

        def goal(c):
            return c[0] == 0 and self._via_ok(c[1], c[2], net)

        path = self._search(net, sorted(starts), goal, (None, None))
        if path is None:
            raise RouteError("plane net %d: no via near pad at %s" % (net, p.centre))
        self._commit(net, path, stub=starts[path[0]])
        self._add_via(net, path[-1][1], path[-1][2])
