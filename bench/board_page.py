"""The board's own page (nardy.webserve) on the virtual board at 512wK: how long a
USB event takes to reach a page watching it (the page's transport, Server-Sent
Events, read here by a plain HTTP client on loopback), and what the server costs
in heap. Run by ``make bench``; the Chromium test that shows the same figure is
tests/host/test_board_page_web.py::test_a_spectator_page_follows_the_board_live."""

import os
import random
import statistics
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "host"))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))

import sse  # noqa: E402  (bench/, beside this script)
from test_board_page_web import HEAP, _mem, new_game, start_board  # noqa: E402
from test_vboard import play_turn  # noqa: E402
from vboard import VBoard  # noqa: E402

TURNS = 30


def watch(url, seen, stop):
    """Each ``played`` line of the event stream with the time it arrived."""
    for it in sse.data(url, "/api/events?since=0", stop):
        if " played " in it.get("text", ""):
            seen.append(time.time())


def main():
    tmp = tempfile.mkdtemp(prefix="nardy-bench-page-")
    plain = VBoard(os.path.join(tmp, "plain"), heap=HEAP)
    free_plain = _mem(plain)
    plain.p.kill()
    b = start_board(os.path.join(tmp, "web"))
    free_boot = _mem(b)
    seen, stop = [], threading.Event()
    threading.Thread(target=watch, args=(b.url, seen, stop), daemon=True).start()
    turns = []
    read = b.read

    def timed():
        ev = read()
        if ev["ev"] == "turn":
            turns.append(time.time())
        return ev
    b.read = timed
    rng = random.Random(3)
    new_game(b)
    while len(turns) < TURNS:
        if play_turn(b, rng) is None:
            new_game(b)
    deadline = time.time() + 10
    while len(seen) < len(turns) and time.time() < deadline:
        time.sleep(0.05)
    stop.set()
    free_served = _mem(b)
    b.p.kill()
    lat = [(s - t) * 1000 for t, s in zip(turns, seen)]
    print("## The board's own page (virtual board, %s, loopback)" % HEAP)
    print("$ .venv/bin/python bench/board_page.py")
    print("USB turn event -> the page's event stream: median %.0f ms, max %.0f ms over %d "
          "turns (goal <= 200 ms)" % (statistics.median(lat), max(lat), len(lat)))
    print("free heap after boot: %d without the page, %d with it (the server: %d); %d "
          "after %d turns watched" % (free_plain, free_boot, free_plain - free_boot,
                                      free_served, len(turns)))


if __name__ == "__main__":
    main()
