"""A small grid maze router for the generated boards (two signal layers, ground planes).

Why our own: KiCad 6 has no scriptable autorouter, and the boards are regular enough
that an A* search on a 0.5 mm grid finds every connection. The clearance rules are
built into the grid so the result passes KiCad's DRC by construction:

- tracks are 0.25 mm wide and run on a 0.635 mm grid only (no diagonals): two tracks
  of different nets on neighbouring lines are 0.385 mm apart (rule: 0.2 mm); the grid
  is a quarter of 2.54 mm so a track passes between two header pins;
- a cell or a grid edge closer than 0.125 + 0.2 mm (+ margin) to another net's pad is
  blocked, computed exactly for the segment, not only its end points;
- a via (0.6 mm, drill 0.3 mm) claims its cell on both outer layers (a track on the
  next grid line keeps 0.21 mm); vias keep two cells from every other hole; none sits
  in or beside a pad;
- nets named in `planes` are not routed as tracks: each of their SMD pads gets a short
  track to a via into the inner ground planes (through-hole pads reach them directly).

Pure Python on purpose (heapq + numpy for the pad halos): runs under KiCad's Python.
"""

import heapq

import numpy as np

GRID = 0.635  # mm: a quarter of 2.54, so header and socket pins sit on the grid
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
        self.interior = np.full(shape, FREE, dtype=np.int32)  # inside a pad's own copper
        self.tracks = []  # (layer, net, (x0, y0), (x1, y1)) in mm
        self.vias = []  # (net, (x, y))
        xs = np.arange(self.nx) * GRID
        ys = np.arange(self.ny) * GRID
        self.X, self.Y = np.meshgrid(xs, ys)
        edge = (self.X < EDGE + TRACK / 2 + MARGIN) | (self.Y < EDGE + TRACK / 2 + MARGIN) | (
            width - EDGE - TRACK / 2 - MARGIN < self.X) | (
            height - EDGE - TRACK / 2 - MARGIN < self.Y)
        for layer in (0, 1):
            self.occ[layer][edge] = ALL
        vedge = (self.X < EDGE + VIA_D / 2 + MARGIN) | (self.Y < EDGE + VIA_D / 2 + MARGIN) | (
            width - EDGE - VIA_D / 2 - MARGIN < self.X) | (
            height - EDGE - VIA_D / 2 - MARGIN < self.Y)
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
        inner = ((bx[0] + TRACK / 2 <= X) & (bx[2] - TRACK / 2 >= X)
                 & (bx[1] + TRACK / 2 <= Y) & (bx[3] - TRACK / 2 >= Y))
        for layer in p.layers:
            self.interior[layer][sy, sx][inner] = p.net

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
        # No grid point inside the copper: the nearest free cells, each joined to the
        # pad centre by a short stub that keeps clear of every other net's pad.
        cx, cy = p.centre
        ix0, iy0 = int(round(cx / GRID)), int(round(cy / GRID))
        cands = []
        for iy in range(iy0 - 2, iy0 + 3):
            for ix in range(ix0 - 2, ix0 + 3):
                d = ((ix * GRID - cx) ** 2 + (iy * GRID - cy) ** 2) ** 0.5
                if d <= 1.0:
                    cands.append((d, iy, ix))
        for _d, iy, ix in sorted(cands):
            if not self._stub_ok(p, (ix * GRID, iy * GRID)):
                continue
            for layer in p.layers:
                if self._cell_ok(layer, iy, ix, p.net):
                    out.append(((layer, iy, ix), p.centre))
            if len(out) >= 2:
                break
        return out

    def _stub_ok(self, p, xy):
        cx, cy = p.centre
        need = TRACK / 2 + CLEAR + MARGIN
        for q in self.pads:
            if q.net == p.net:
                continue
            b = q.box
            if b[0] > max(cx, xy[0]) + 2 or b[2] < min(cx, xy[0]) - 2 or \
                    b[1] > max(cy, xy[1]) + 2 or b[3] < min(cy, xy[1]) - 2:
                continue
            for k in range(11):
                x = cx + (xy[0] - cx) * k / 10.0
                y = cy + (xy[1] - cy) * k / 10.0
                dx = max(b[0] - x, 0, x - b[2])
                dy = max(b[1] - y, 0, y - b[3])
                if (dx * dx + dy * dy) ** 0.5 < need:
                    return False
        return True

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
        if self.interior[layer, iy, ix] == net:
            return True
        return self.padblk[layer, iy, ix] in (FREE, net)

    def _via_ok(self, iy, ix, net):
        if not (2 <= ix < self.nx - 2 and 2 <= iy < self.ny - 2):
            return False
        v = self.viablk[iy, ix]
        if v != FREE and v != net:
            return False
        for layer in (0, 1):
            o = self.occ[layer, iy, ix]
            if o != FREE and o != net:
                return False
        return not self.holes[iy - 1:iy + 2, ix - 1:ix + 2].any()

    # -- search -----------------------------------------------------------------------

    def _masks(self, net):
        """Flat Python lists of what `net` may use, for the search's inner loop."""
        def ok(a):
            return (a == FREE) | (a == net)

        inside = self.interior == net
        cell = ok(self.occ) & (ok(self.padblk) | inside)
        h = ok(self.hblk)
        h[:, :, :-1] |= inside[:, :, :-1] & inside[:, :, 1:]
        v = ok(self.vblk)
        v[:, :-1, :] |= inside[:, :-1, :] & inside[:, 1:, :]
        hole_near = self.holes.copy()
        hole_near[1:, :] |= self.holes[:-1, :]
        hole_near[:-1, :] |= self.holes[1:, :]
        hole_near[:, 1:] |= self.holes[:, :-1]
        hole_near[:, :-1] |= self.holes[:, 1:]
        hole_near[1:, 1:] |= self.holes[:-1, :-1]
        hole_near[1:, :-1] |= self.holes[:-1, 1:]
        hole_near[:-1, 1:] |= self.holes[1:, :-1]
        hole_near[:-1, :-1] |= self.holes[1:, 1:]
        via = ok(self.viablk) & ok(self.occ[0]) & ok(self.occ[1]) & ~hole_near
        via[:2, :] = False
        via[-2:, :] = False
        via[:, :2] = False
        via[:, -2:] = False
        return (cell.ravel().tolist(), h.ravel().tolist(), v.ravel().tolist(),
                via.ravel().tolist())

    def _search(self, net, sources, goal, target_xy):
        """A* from `sources` (cells) until goal(cell) is true. Returns the cell path
        with via steps as consecutive cells on different layers."""
        nx, ny = self.nx, self.ny
        plane = nx * ny
        cell, hok, vok, via = self._masks(net)
        tx, ty = target_xy

        def h(i):
            if tx is None:
                return 0
            r = i % plane
            return (abs(r % nx - tx) + abs(r // nx - ty)) * COST_STEP

        def flat(c):
            return c[0] * plane + c[1] * nx + c[2]

        best = {}
        prev = {}
        heap = []
        for c in sources:
            i = flat(c)
            best[i] = 0
            prev[i] = -1
            heapq.heappush(heap, (h(i), 0, i))
        limit = 600000
        while heap:
            f, g, i = heapq.heappop(heap)
            if g > best.get(i, 1 << 30):
                continue
            layer = i // plane
            r = i - layer * plane
            c = (layer, r // nx, r % nx)
            if goal(c):
                path = [c]
                j = prev[i]
                while j >= 0:
                    lj = j // plane
                    rj = j - lj * plane
                    path.append((lj, rj // nx, rj % nx))
                    j = prev[j]
                return path[::-1]
            limit -= 1
            if limit < 0:
                break
            horiz_cost = COST_STEP if layer == 0 else COST_WRONG_DIR
            vert_cost = COST_WRONG_DIR if layer == 0 else COST_STEP
            for n, edge_ok, step in ((i + 1, hok[i], horiz_cost), (i - 1, hok[i - 1], horiz_cost),
                                     (i + nx, vok[i], vert_cost), (i - nx, vok[i - nx], vert_cost)):
                if not edge_ok or not cell[n]:
                    continue
                ng = g + step
                if ng < best.get(n, 1 << 30):
                    best[n] = ng
                    prev[n] = i
                    heapq.heappush(heap, (ng + h(n), ng, n))
            n = i + plane if layer == 0 else i - plane
            if via[r] and cell[n]:
                ng = g + COST_VIA
                if ng < best.get(n, 1 << 30):
                    best[n] = ng
                    prev[n] = i
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
            self.occ[layer, iy, ix] = net

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
        tree = set(c for c, _ in first)
        stubs = dict((c, xy) for c, xy in first if xy is not None)  # emitted when used
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
            path = self._search(net, sorted(tree), goals.__contains__, (tx, ty))
            if path is None:
                raise RouteError("net %d: cannot reach pad at %s" % (net, p.centre))
            self._commit(net, path, stub=stubs.pop(path[0], None),
                         stub_end=goals[path[-1]])
            tree.update(path)
            for c, xy in acc:
                tree.add(c)
                if xy is not None and c != path[-1]:
                    stubs[c] = xy
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
