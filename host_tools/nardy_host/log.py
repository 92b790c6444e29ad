"""``nardy log``: pull every game the board holds, keep each safely, then confirm it.

For each game in the board's journal index (``dump``), the tool asks for the game
(``log``), checks what came (every line numbered, none missing, every line a journal
record), writes it to ``DIR/gNNNNN-HASH.jsonl`` through a temporary file that is
flushed, synced and renamed into place, and only then tells the board it has it
(``confirm``), after which the board deletes a finished game. A game still being
played is saved too but never confirmed (the board keeps it); pulling it again later
replaces the copy with the longer one. If the line breaks at any point nothing is
lost: an incomplete transfer is never written, and a game written but not yet
confirmed is simply pulled (and found identical) next time.

HASH is the start of the SHA-1 of the game's first line, because the board numbers
games from 1 again once its journal is empty.

With ``--follow`` the tool stays connected after pulling, prints every event as a
JSON line on stdout, pulls each game as soon as it ends, and when the board goes
away (unplugged, reset) waits for it and carries on. Stop it with Ctrl-C.

PORT: a serial device (``/dev/ttyACM0``, a pty) or ``vboard:DIR`` (the virtual
board on flash directory DIR); see ``nardy_host.link``.
"""

import argparse
import hashlib
import json
import os
import sys

from nardy import journal
from nardy_host.link import Disconnected, connect


def register(sub):
    p = sub.add_parser("log", help="pull the games off a board (and follow it live)",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", required=True, metavar="PORT",
                   help="serial device, pty, or vboard:DIR")
    p.add_argument("--out", required=True, metavar="DIR", help="where to keep the games")
    p.add_argument("--follow", action="store_true",
                   help="stay connected: print live events, pull games as they end, "
                        "reconnect when the board comes back")
    p.add_argument("--no-confirm", action="store_true",
                   help="copy the games but leave them on the board")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    # tests: leave --follow after this many games were saved
    p.add_argument("--stop-after", type=int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


class TransferError(Exception):
    """What came over the line is not a whole, valid game."""


def _say(msg):
    print("nardy log: " + msg, file=sys.stderr, flush=True)


def fetch(link, gid, on_event=None):
    """The raw lines of game ``gid``, checked: numbered 0..n-1, n as announced."""
    link.send({"cmd": "log", "game": gid})
    lines = []
    while True:
        ev = link.read(15.0)
        if ev is None:
            raise Disconnected("the board stopped sending game %d" % gid)
        kind = ev["ev"]
        if kind == "log" and ev.get("game") == gid:
            if ev.get("seq") != len(lines) or not isinstance(ev.get("line"), str):
                raise TransferError("game %d: line %s out of order" % (gid, ev.get("seq")))
            lines.append(ev["line"])
        elif kind == "log_end" and ev.get("game") == gid:
            if ev.get("lines") != len(lines):
                raise TransferError("game %d: %d lines announced, %d received"
                                    % (gid, ev.get("lines"), len(lines)))
            return lines
        elif kind == "error" and str(ev.get("error", "")).startswith("log "):
            raise TransferError("game %d: %s" % (gid, ev["error"]))
        elif on_event is not None:
            on_event(ev)


def check(lines):
    """(finished, problem): every line must be a journal record, the first a game."""
    if not lines:
        return False, "empty"
    finished = False
    for i, ln in enumerate(lines):
        try:
            rec = journal.loads(ln)
        except ValueError as e:
            return True, "line %d: %s" % (i + 1, e)
        if i == 0 and rec.get("r") != "game":
            return True, "no game line"
        if rec.get("r") == "end":
            finished = True
    return finished, None


def _fsync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save(out, gid, lines, broken=False):
    """Write a game into ``out`` atomically; returns its path. The same game pulled
    again (identical, or grown while unfinished) lands on the same file."""
    data = "".join(ln + "\n" for ln in lines)
    tag = hashlib.sha1(lines[0].encode()).hexdigest()[:10]
    base = "g%05d-%s%s" % (gid, tag, ".broken" if broken else "")
    n = 1
    while True:
        path = os.path.join(out, base + ("" if n == 1 else "-%d" % n) + ".jsonl")
        try:
            with open(path) as f:
                old = f.read()
        except FileNotFoundError:
            break
        if old == data:
            return path
        if data.startswith(old):
            break       # the same game, longer now
        n += 1
    tmp = os.path.join(out, ".%s.%d.tmp" % (os.path.basename(path), os.getpid()))
    with open(tmp, "w") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(out)
    return path


def pull(link, out, confirm=True, progress=True, on_event=None):
    """Pull every game the board lists; returns [(gid, path, deleted)]."""
    dump = link.request({"cmd": "dump"}, "dump", on_event=on_event)
    games = dump.get("journal") or []
    done = []
    bar = None
    if progress and games:
        from tqdm import tqdm
        bar = tqdm(total=len(games), unit="game", desc="pulling", file=sys.stderr)
    try:
        for g in games:
            done.append(pull_one(link, g["game"], out, confirm, on_event))
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return done


def pull_one(link, gid, out, confirm=True, on_event=None):
    lines = fetch(link, gid, on_event)
    finished, problem = check(lines)
    if not lines:
        return gid, None, False
    path = save(out, gid, lines, broken=problem is not None)
    deleted = False
    if confirm and finished:
        ev = link.request({"cmd": "confirm", "game": gid}, "confirm",
                          match=lambda e: e.get("game") == gid and "deleted" in e,
                          on_event=on_event)
        deleted = bool(ev["deleted"])
    return gid, path, deleted


def run(args):
    from nardy_host.cli import UserError
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise UserError("cannot create %s: %s" % (args.out, e.strerror)) from None
    confirm = not args.no_confirm
    progress = not args.quiet
    if not args.follow:
        try:
            link = connect(args.port)
        except Disconnected as e:
            raise UserError(str(e)) from None
        try:
            done = pull(link, args.out, confirm, progress)
        except (Disconnected, TransferError, RuntimeError) as e:
            raise UserError("%s (games already saved are kept; run again)" % e) from None
        finally:
            link.close()
        for gid, path, deleted in done:
            if path:
                _say("game %d -> %s%s" % (gid, path, " (deleted on the board)"
                                           if deleted else " (kept on the board)"))
        _say("%d game(s) pulled" % sum(1 for d in done if d[1]))
        return 0
    return follow(args, confirm, progress)


def follow(args, confirm, progress):
    saved = set()

    def emit(ev):
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()

    def note(done):
        for gid, path, _ in done:
            if path:
                saved.add(path)
                _say("game %d -> %s" % (gid, path))

    def enough():
        return args.stop_after is not None and len(saved) >= args.stop_after

    while True:
        link = connect(args.port, retry=True, say=_say)
        try:
            note(pull(link, args.out, confirm, progress, on_event=emit))
            _say("following %s (Ctrl-C to stop)" % args.port)
            while not enough():
                ev = link.read(1.0)
                if ev is None:
                    continue
                emit(ev)
                if ev["ev"] == "game_end" and isinstance(ev.get("game"), int):
                    note([pull_one(link, ev["game"], args.out, confirm, emit)])
        except (Disconnected, TransferError, RuntimeError) as e:
            _say("line lost (%s); waiting for the board" % e)
            continue
        finally:
            link.close()
        return 0
