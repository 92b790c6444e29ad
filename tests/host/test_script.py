"""``nardy script``: the example scripts pass, a failing expect and a malformed line
give their exit status and line number, the OLED font matches MicroPython's."""

import glob
import json
import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vboard import ROOT, micropython

from nardy_host import cli, oledtext

EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.nardy")))


def _run(capsys, path, *extra):
    rc = cli.main(["script", *extra, str(path)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_there_are_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_scripts_pass(capsys, path):
    rc, out, err = _run(capsys, path)
    assert rc == 0, err
    evs = [json.loads(ln) for ln in out.splitlines()]
    kinds = {e["ev"] for e in evs}
    assert {"hello", "game", "roll", "step", "turn", "warn", "leds", "oled"} <= kinds
    assert sum(1 for e in evs if e["ev"] == "hello") == 2          # booted twice
    assert not [e for e in evs if e["ev"] == "error"]
    assert not [e for e in evs if e["ev"] in ("pong", "dump")]     # internal replies


def test_failing_expect_exits_1_with_line(tmp_path, capsys):
    p = tmp_path / "bad.nardy"
    p.write_text("new long\n# a comment\nopening 5 3\npress ok\nexpect roll rolls=3/5\n")
    rc, out, err = _run(capsys, p, "--no-display")
    assert rc == 1
    assert "bad.nardy:5: expect failed" in err
    assert '"rolls": [[5, 3]]' in out


def test_negative_expect_and_oled(tmp_path, capsys):
    p = tmp_path / "neg.nardy"
    p.write_text("new short\nexpect no warn\nexpect oled contains OK: one die\n"
                 "expect oled contains Opening roll\n")
    rc, _, err = _run(capsys, p, "--quiet")
    assert rc == 0, err
    p.write_text("new short\nexpect oled lacks Opening roll\n")
    rc, _, err = _run(capsys, p, "--quiet")
    assert rc == 1 and ":2: expect failed" in err and "Opening roll" in err


@pytest.mark.parametrize("line", ["jump P3", "lift P25x", "dice 7 1", "opening 3 3",
                                  "press start", "new medium", "expect leds P3=purple",
                                  "place P3", "wait soon", "send {nope"])
def test_malformed_lines_exit_2(tmp_path, capsys, line):
    p = tmp_path / "m.nardy"
    p.write_text("new long\n\n%s\n" % line)
    rc, _, err = _run(capsys, p, "--quiet")
    assert rc == 2, err
    assert "m.nardy:3:" in err


def test_kill_twice_is_an_error(tmp_path, capsys):
    p = tmp_path / "k.nardy"
    p.write_text("kill\nkill\n")
    rc, _, err = _run(capsys, p, "--quiet")
    assert rc == 2 and "k.nardy:2:" in err


def test_font_is_micropythons(tmp_path):
    src = tmp_path / "font.py"
    src.write_text(
        "import framebuf\n"
        "for c in range(32, 127):\n"
        "    b = bytearray(8)\n"
        "    framebuf.FrameBuffer(b, 8, 8, framebuf.MONO_VLSB).text(chr(c), 0, 0, 1)\n"
        "    print(bytes(b).hex())\n")
    out = subprocess.run([micropython(), str(src)], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == oledtext.FONT_HEX.split()


@settings(max_examples=200, deadline=None)
@given(keep=st.integers(1, 20), n=st.integers(0, 120), a=st.integers(-130, 130),
       b=st.integers(-130, 130))
def test_event_log_is_a_bounded_window_on_a_numbered_list(keep, n, a, b):
    """EventLog answers like the list of every event for the numbers it retains,
    never holds more than keep + keep // 4, and says so for a number it dropped."""
    from nardy_host.session import EventLog
    log, every = EventLog(keep), []
    for i in range(n):
        log.append(i)
        every.append(i)
        assert len(log._evs) <= keep + keep // 4
    assert len(log) == n and log.first + len(log._evs) == n
    assert n - log.first >= min(n, keep)                # at least keep retained
    assert log[a:b] == [x for x in every[a:b] if x >= log.first]
    assert log[a:] == [x for x in every[a:] if x >= log.first]
    if -n <= a < n:
        j = a % n
        if j >= log.first:
            assert log[a] == every[a]
        else:
            with pytest.raises(IndexError):
                log[a]


def test_send_takes_the_documented_unquoted_json(tmp_path, capsys):
    # issue 22: shlex took the quotes out of `send {"cmd": "set", "brightness": 8}`
    # (docs/SCRIPT.md), which was then refused as not JSON
    p = tmp_path / "send.nardy"
    p.write_text('send {"cmd": "set", "brightness": 8}   # the documented form\n'
                 "send '{\"cmd\": \"set\", \"brightness\": 9}'\n"
                 "expect no error\n")
    rc, out, err = _run(capsys, p, "--no-display")
    assert rc == 0, err
    sets = [json.loads(ln) for ln in out.splitlines() if '"ev": "set"' in ln]
    assert [e["settings"]["brightness"] for e in sets] == [8, 9]
    # the JSON is read as written: a " #" or two spaces inside a string stay
    from nardy_host.script import _send_json
    assert _send_json('{"cmd": "ping", "id": "a # b  c"}  # note', 1)["id"] == "a # b  c"


@pytest.mark.parametrize("line", ['send {"cmd": "hello"} extra', "send [1, 2]", "send",
                                  'send {"cmd": "hello"'])
def test_send_refuses_anything_but_one_object(tmp_path, capsys, line):
    p = tmp_path / "s.nardy"
    p.write_text("\n%s\n" % line)
    rc, _, err = _run(capsys, p, "--quiet")
    assert rc == 2 and "s.nardy:2: send needs one JSON object" in err, err


def test_an_over_long_line_is_refused_before_it_is_split(tmp_path, capsys, monkeypatch):
    # a 3 MB send line ran for minutes in shlex.split: refused whole, unread
    import shlex

    from nardy_host import script

    def no_split(*a, **k):
        raise AssertionError("an over-long line reached shlex")

    monkeypatch.setattr(shlex, "split", no_split)
    p = tmp_path / "big.nardy"
    p.write_text('send "{\\"cmd\\": \\"ping\\", \\"id\\": \\"%s\\"}"\n'
                 % ("x" * 3_000_000))
    rc, _, err = _run(capsys, p, "--quiet")
    assert rc == 2 and "big.nardy:1: longer than %d characters" % script.MAX_LINE in err
