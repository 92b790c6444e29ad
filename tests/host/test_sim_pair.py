"""``nardy sim --pair`` (``make sim-pair``, README "Play over Wi-Fi"): the command a
newcomer runs starts the embedded broker, two virtual boards set as each other's
peer and a page for each. In real Chromium, a whole turn played on white's page
through the page's own controls reaches black's board: its log shows the remote
move, its LEDs light the move's source and target, its player carries the move out
and the turn passes. Ctrl-C (SIGINT) then leaves no board and no broker behind."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.request

from mqttutil import free_port
from test_sim_web import WAIT, browser, click_zone, led_rgb, wait_log  # noqa: F401
from vboard import ROOT

from nardy.rules import WHITE
from nardy.variants import find_variant
from nardy_host import oledtext, umqttlib

WATCHDOG_S = 600        # a hung command fails the test (never a timed assertion)
ADDRESS = re.compile(r"(white|black) plays here: (http://127\.0\.0\.1:\d+/)")
BROKER = re.compile(r"nardy room --broker 127\.0\.0\.1:(\d+)")


def children(pid):
    """The pids whose parent is ``pid`` (from /proc)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": the name may hold spaces, not a ")"
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(d))
    return out


def cmdline(pid):
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        return f.read().replace(b"\0", b" ").decode()


def post(url, action):
    req = urllib.request.Request(url + "api/action", data=json.dumps(action).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        assert r.status == 200


def state(url):
    with urllib.request.urlopen(url + "api/state", timeout=60) as r:
        return json.loads(r.read())


def broker_listens(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        return True
    except OSError:
        return False


def start_pair(tmp_path, umqtt_dir, flags=()):
    """The command as a user starts it (no browser); the lines it printed up to the
    addresses. The user's cache holds umqtt already (the session's download): the
    command finds it there and fetches nothing."""
    cache = tmp_path / "cache"
    shutil.copytree(umqtt_dir, os.path.join(cache, "nardy",
                                            os.path.basename(umqttlib.default_dir())))
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "nardy_host.cli", "sim", "--pair",
                          "--no-browser", *flags], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_as_from_a_terminal)
    watchdog = threading.Timer(WATCHDOG_S, p.kill)
    watchdog.daemon = True
    watchdog.start()
    lines = []
    for ln in p.stdout:
        lines.append(ln)
        if "Ctrl-C" in ln:
            break
    # from here on the command's output is read as it comes, as a terminal would:
    # a pipe nobody reads fills up (64 KB) and blocks the command in a write, which
    # would hang it at Ctrl-C (its exit flushes what it printed)
    p.err_lines = []
    p.drains = [threading.Thread(target=_drain, args=(f, into), daemon=True)
                for f, into in ((p.stdout, []), (p.stderr, p.err_lines))]
    for t in p.drains:
        t.start()
    return p, watchdog, "".join(lines)


def _as_from_a_terminal():
    """Ctrl-C reaches the command as it does from a terminal. A suite started in the
    background of a non-interactive shell (``make test &``) inherits SIGINT ignored,
    and Python then installs no KeyboardInterrupt handler: the SIGINT this test sends
    would do nothing and the command would run on to the watchdog."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _drain(f, into):
    for ln in f:
        into.append(ln)


def the_turn(dice):
    """White's one turn in long nardy's start position for ``dice`` (the rules
    engine's), as (from, to) P-numbers of the table."""
    v = find_variant("long", {})
    turns = list(v.turns(v.start_position(turn=WHITE), dice))
    assert len(turns) == 1, turns       # off the head, one checker (L3)
    return [(v.physical(WHITE, a), v.physical(WHITE, b)) for a, b in turns[0][0]]


def open_page(browser, url):  # noqa: F811
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    return page, errors


def lit(page, zone):
    page.wait_for_function(
        "z => { const e = document.querySelector('#leds circle[data-zone=\"' + z + '\"]');"
        " return e && e.dataset.rgb.split(',').some(x => Number(x) > 0); }",
        arg=zone, timeout=WAIT)
    return led_rgb(page, zone)


def test_two_pages_play_a_turn_through_the_embedded_broker(browser, tmp_path,  # noqa: F811
                                                           umqtt_dir):
    ports = [free_port() for _ in range(3)]         # white's page, black's, the broker
    p, watchdog, said = start_pair(tmp_path, umqtt_dir, [
        "--port", str(ports[0]), "--black-port", str(ports[1]),
        "--broker-port", str(ports[2])])
    boards = []
    try:
        pages = dict(ADDRESS.findall(said))
        assert pages == {"white": "http://127.0.0.1:%d/" % ports[0],
                         "black": "http://127.0.0.1:%d/" % ports[1]}, said
        port = int(BROKER.search(said).group(1))
        assert port == ports[2]
        assert broker_listens(port)
        boards = [c for c in children(p.pid) if "micropython" in cmdline(c)]
        assert len(boards) == 2, [cmdline(c) for c in children(p.pid)]
        assert all("heapsize=" + umqttlib.NET_HEAP in cmdline(c) for c in boards)

        white, w_err = open_page(browser, pages["white"])
        black, b_err = open_page(browser, pages["black"])
        for page in (white, black):
            wait_log(page, "remote play: playing table-")
            wait_log(page, "game 1: long nardy")
        # the opening roll on white's page (table-a rolls it, C2): white 6, black 1
        post(pages["white"], {"action": "dice", "dice": [6, 1]})
        white.click('button[data-button="ok"]')
        for page in (white, black):
            wait_log(page, "opening roll: white 6, black 1")
        post(pages["white"], {"action": "dice", "dice": [6, 5]})
        white.click('button[data-button="ok"]')
        for page in (white, black):
            wait_log(page, "white rolls 6-5")

        # white's player moves on white's page (a click lifts, a click places), OK
        steps = the_turn((6, 5))
        for a, b in steps:
            click_zone(white, a)
            click_zone(white, b)
            wait_log(white, "white %d/%d" % (a, b))
        white.click('button[data-button="ok"]')
        wait_log(white, "white played")

        # black's board shows it as the remote player's move: the log, the OLED, and
        # the LEDs light the first step's source and target (and nothing else)
        (a, b) = steps[0]
        wait_log(black, "table-a (white) played")
        wait_log(black, "steps: P%d to P%d" % (a, b))
        assert lit(black, a) != (0, 0, 0) and lit(black, b) != (0, 0, 0)
        assert lit(black, a) != lit(black, b)            # which is which
        others = [z for z in range(1, 25) if z not in (a, b)]
        assert all(led_rgb(black, z) == (0, 0, 0) for z in others)
        assert "table-a" in oledtext.text(state(pages["black"])["oled"])
        # ... and black's player carries it out there: black's board takes the turn
        for a, b in steps:
            click_zone(black, a)
            click_zone(black, b)
        wait_log(black, "white played")
        # the turn passed: black rolls on black's board, white's board takes the roll
        post(pages["black"], {"action": "dice", "dice": [3, 2]})
        black.click('button[data-button="ok"]')
        for page in (black, white):
            wait_log(page, "black rolls 3-2")
        assert not w_err and not b_err, (w_err, b_err)
        for page in (white, black):
            page.close()

        # Ctrl-C: the command ends, and so do both boards and the broker
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=120) == 0
        gone = [c for c in boards if not os.path.exists("/proc/%d" % c)]
        assert gone == boards, [cmdline(c) for c in boards if c not in gone]
        assert not broker_listens(port)
        for t in p.drains:
            t.join(30)
        err = "".join(p.err_lines)
        assert "Traceback" not in err and "PUBACK" not in err, err
    finally:
        watchdog.cancel()
        if p.poll() is None:
            p.kill()
            p.wait()
        for c in boards:                     # (a board left behind: gone now)
            if os.path.exists("/proc/%d" % c):
                os.kill(c, signal.SIGKILL)


def test_pair_refuses_what_it_cannot_do(tmp_path, capsys):
    from nardy_host.cli import main
    assert main(["sim", "--pair", "--text"]) == 2
    assert "not with --text" in capsys.readouterr().err
    # a --umqtt folder without the client: said before anything starts
    assert main(["sim", "--pair", "--no-browser", "--umqtt", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "has no umqtt/simple.py" in err and str(tmp_path) in err
    assert main(["sim", "--pair", "--match", "0"]) == 2
    assert "--match must be 1..99" in capsys.readouterr().err


def test_the_log_says_whose_move_the_hands_carry_out():
    """The ``bot`` event in the page's log: with a peer, the remote player's move;
    without, the board's own engine's; ``peer`` events with the rule they cite."""
    from nardy_host.simhub import Describer
    d = Describer()
    ev = {"ev": "bot", "side": "black", "text": "13/7 8/5",
          "steps": [[1, 7], [4, 9]], "zones": [[12, 18], [9, 4]]}
    assert d(ev) == "the board plays 13/7 8/5 for black: carry it out " \
                    "(steps: P12 to P18, P9 to P4)"
    d.peer = "table-b"
    assert d(ev) == "table-b (black) played 13/7 8/5: carry it out here " \
                    "(steps: P12 to P18, P9 to P4)"
    d.lang = "ru"
    assert d(ev) == "table-b (чёрные) сыграли 13/7 8/5: повторите ход здесь " \
                    "(шаги: P12 на P18, P9 на P4)"
    d.lang = "en"
    assert d({"ev": "peer", "state": "sync: table-b's turn breaks C3 here: x",
              "rule": "C3"}) == "remote play: sync: table-b's turn breaks C3 here: x (C3)"
    assert d({"ev": "peer", "state": "paused: table-b is offline"}) == \
        "remote play: paused: table-b is offline"
    # the opening: OK rolls both dice only on the board of the side that starts
    opening = {"ev": "roll", "rec": {"r": "open", "rolls": [[2, 5]], "first": "black"}}
    d.peer, d.side = "table-b", "white"
    assert "black starts: table-b rolls both dice (C2" in d(opening), d(opening)
    d.side = "black"
    assert "black starts: press OK to roll both dice (C2" in d(opening), d(opening)


def test_amqtts_quiet_complaints_are_hidden_and_nothing_else():
    """A board acknowledges its peer's record once its player carried the move out,
    seconds later than amqtt's fixed 5 s: amqtt's warning and its task's traceback
    for that are not shown on the terminal; its other messages are."""
    import logging

    from nardy_host.simpair import _quiet

    def record(msg, exc=None):
        return logging.LogRecord("amqtt.broker", logging.ERROR, __file__, 1, msg, None,
                                 (type(exc), exc, None) if exc else None)

    assert not _quiet(record("Timeout waiting for PUBACK for packet ID 3"))
    assert not _quiet(record("Received PUBACK for unknown pending message Id: '3'"))
    assert not _quiet(record("Task failed and will be skipped: <Task>",
                                   TimeoutError("Timeout waiting for PUBACK for packet ID 4")))
    assert _quiet(record("Task failed and will be skipped: <Task>",
                               ValueError("another failure")))
    assert _quiet(record("Invalid client ID"))
    # and what is said otherwise (the broker's port taken: start() says it)
    assert not _quiet(record("Broker startup failed", OSError(98, "address in use")))
