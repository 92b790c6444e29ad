"""What the code itself keeps on the heap with the code in flash (a ROMFS image), module
by module: the figure behind every 56wK budget.

    .venv/bin/python bench/heap_modules.py

Bytecode runs in place from the image, but each import still makes, in RAM, the
module's dict, a function object per ``def`` (a class: its dict and a function per
method) and the constants' objects, and interns every name and short string it uses
as a qstr. Qstrs are never freed, so a module the board drops after use (the boot
code, the pin map's parser, the menu) keeps its names on the heap.

MicroPython's own modules the firmware uses come first (asyncio is Python code
frozen into the firmware: its functions are made in RAM too). Then the modules are
imported leaf first (the order is worked out from their imports), one
at a time, with a collection before each figure, so each row is that module's own
cost. Figures are for this 64-bit unix port (a pointer is 8 bytes); an ESP32 needs a
little over half.
"""

import ast
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))

# What a long game of the board against itself keeps loaded (the virtual board's
# sys.modules during such a game; longnardy's module is dropped but its class lives
# on in the game's variant), and what boot and the commands import and drop.
RESIDENT = ("app", "dice", "game", "hal", "hal_virtual", "journal", "longnardy",
            "notation", "oled", "protocol", "record", "rules", "scoring", "sensing",
            "tracker", "ui", "vcommands", "xtalk", "zonefit", "zones")
BOT = ("evaluate", "bot", "botplay")
DROPPED = ("appboot", "journalboot", "pinmap", "lines", "calibration", "calibfile", "menu",
           "posjson", "variants", "netfile")

_PROBE = r'''
import gc, os, sys, micropython
a, n = os.getenv("NARDY_ROMFS").split(":")
import uctypes, vfs
vfs.mount(vfs.VfsRom(uctypes.bytearray_at(int(a), int(n))), "/rom")
sys.path.insert(0, "/rom")
def mark(name, drop):
    gc.collect()
    print("@", name, gc.mem_alloc(), 1 if drop else 0)
    micropython.qstr_info()
mark("-", 0)
for m in ("os", "json", "array", "binascii", "framebuf", "time", "select", "math", "asyncio"):
    try:
        __import__(m)
    except ImportError:
        pass
    mark("lib." + m, 0)
from nardy import drop_module
mark("nardy", 0)
for m in os.getenv("MODS").split(","):
    drop = m.startswith("-")
    name = "nardy." + m.lstrip("-")
    __import__(name)
    if drop:
        drop_module(name)
    mark(name, drop)
'''


def _parse(path):
    with open(path) as f:
        return ast.parse(f.read())


def _top_level_imports(path):
    """Only the imports made when the module loads (not inside a function)."""
    out = set()
    for node in _parse(path).body:
        sub = node.body if isinstance(node, (ast.Try, ast.If)) else [node]
        for n in sub:
            if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("nardy"):
                if n.module == "nardy":
                    out.update(a.name for a in n.names)
                else:
                    out.add(n.module.split(".", 1)[1])
            elif isinstance(n, ast.Import):
                out.update(a.name.split(".", 1)[1] for a in n.names
                           if a.name.startswith("nardy."))
    return out


def order(names, src):
    """``names`` and what they import when loaded, leaf first."""
    seen, out = set(), []

    def visit(m):
        if m in seen:
            return
        seen.add(m)
        path = os.path.join(src, m + ".py")
        if os.path.exists(path):
            for d in sorted(_top_level_imports(path)):
                if os.path.exists(os.path.join(src, d + ".py")):
                    visit(d)
        out.append(m)

    for m in names:
        visit(m)
    return out


def defs(path):
    """Functions and methods defined in ``path`` (each a function object on import)."""
    return sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               for n in ast.walk(_parse(path)))


def measure(heap="112wK"):
    """[(module, object bytes, qstrs, dropped)] and the qstr pools' (names, bytes).
    A module's object bytes leave out the qstr pools, which grow in steps (a new
    pool twice the last) charged to whichever import happens to fill the last."""
    import soak
    out = tempfile.mkdtemp()
    soak.compile_firmware(out, True)
    src = os.path.join(ROOT, "firmware", "nardy")
    kept = order(RESIDENT + BOT, src)
    mods = kept + ["-" + m for m in DROPPED if m not in kept]
    probe = os.path.join(out, "probe.py")
    with open(probe, "w") as f:
        f.write(_PROBE)
    env = dict(os.environ, MODS=",".join(mods))
    r = subprocess.run([sys.executable, "-m", "nardy_host.romfs", "run",
                        os.path.join(out, "firmware.romfs"), "-X", "heapsize=" + heap, probe],
                       capture_output=True, text=True, env=env, cwd=out)
    if r.returncode:
        raise SystemExit("probe failed:\n" + r.stdout + r.stderr)
    rows, last, q_last = [], None, None
    lines = r.stdout.splitlines()
    for i, ln in enumerate(lines):
        if not ln.startswith("@ "):
            continue
        _, name, alloc, drop = ln.split()
        q = dict(kv.split("=") for kv in lines[i + 1].split(":", 1)[1].replace(",", "").split())
        qn, qb = int(q["n_qstr"]), int(q["n_total_bytes"])
        if last is not None:
            rows.append((name, int(alloc) - last - (qb - q_last[1]), qn - q_last[0],
                         drop == "1"))
        last, q_last = int(alloc), (qn, qb)
    return rows, q_last


def main():
    rows, (nq, qbytes) = measure()
    src = os.path.join(ROOT, "firmware", "nardy")
    print("## Heap kept by the code itself (code in a ROMFS image, 64-bit unix port)")
    print("$ .venv/bin/python bench/heap_modules.py")
    print("%-18s %7s %6s %6s  %s" % ("module", "objects", "qstrs", "defs", "B/def"))
    total = {"game": 0, "bot": 0, "lib": 0}
    names = {"game": 0, "bot": 0, "dropped": 0}
    for name, b, q, drop in rows:
        short = name.split(".", 1)[1] if "." in name else "__init__"
        if name.startswith("lib."):
            total["lib"] += b
            print("%-18s %7d %6d" % (short, b, q))
            continue
        role = "dropped" if drop else ("bot" if short in BOT else "game")
        names[role] += q
        if drop:
            print("%-18s %7s %6d %6s  dropped after use; its names stay" % (name, "-", q, "-"))
            continue
        total[role] += b
        n = defs(os.path.join(src, short + ".py"))
        print("%-18s %7d %6d %6d  %5d%s" % (name, b, q, n, b // max(n, 1),
                                           "  (the board's player)" if role == "bot" else ""))
    per = qbytes // max(nq, 1)
    print("objects: MicroPython's own modules %d bytes, the game's %d, the board's player %d"
          % (total["lib"], total["game"], total["bot"]))
    print("qstr pools: %d names in %d bytes (~%d a name, never freed): the game's %d, "
          "the player's %d, dropped modules' %d" % (nq, qbytes, per, names["game"],
                                                    names["bot"], names["dropped"]))
    print("the board's player in all: ~%d bytes before its first move" % (
        total["bot"] + per * names["bot"]))


if __name__ == "__main__":
    main()
