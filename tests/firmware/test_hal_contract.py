"""The board interface is written once (nardy.hal.Board) and both boards are made of
it: each is a subclass, overrides every method the contract leaves abstract, and
takes each contract method's arguments, no more and no fewer (asyncness included).

Runs under CPython and MicroPython. MicroPython has no ``inspect``: a method's
arity is found by calling it with too few and too many arguments (a TypeError comes
before the body runs); under CPython ``inspect`` compares the signatures by name too.
"""

import sys

import fakemachine

from nardy import hal
from nardy.pinmap import load

_here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
PINMAP = _here + "/../../firmware/pinmap/esp32s3.json"
_MAX_ARGS = 4


def _call(fn, n):
    """Call ``fn`` with n arguments (running a coroutine to its first wait): "args"
    when it refuses that many, "abstract" when it raises NotImplementedError."""
    try:
        r = fn(*([1] * n))
        if _is_coroutine(r):
            try:
                r.send(None)
            except StopIteration:
                pass
            finally:
                r.close()
    except TypeError:
        return "args"
    except NotImplementedError:
        return "abstract"
    return "ok"


def _contract():
    """{name: (positional arguments after self, abstract?, async?)} of
    nardy.hal.Board's methods, found by calling them."""
    base = hal.Board()
    out = {}
    for name in dir(hal.Board):
        if name.startswith("_") or not callable(getattr(hal.Board, name)):
            continue
        found = None
        for n in range(_MAX_ARGS + 1):
            r = _call(getattr(base, name), n)
            if r == "args":
                continue
            assert found is None, "%s takes %d and %d arguments" % (name, found[0], n)
            found = (n, r == "abstract", _is_async(getattr(hal.Board, name)))
        assert found is not None, name
        out[name] = found
    return out


def _is_coroutine(r):
    return hasattr(r, "send") and hasattr(r, "close")


def _is_async(fn):
    if type(fn).__name__ == "generator":   # MicroPython: an ``async def`` function
        return True
    code = getattr(fn, "__code__", None)    # CPython: CO_COROUTINE
    return bool(code is not None and code.co_flags & 0x80)


def _takes_exactly(method, n):
    """Does the bound ``method`` refuse n - 1 and n + 1 arguments?"""
    for k in (n - 1, n + 1):
        if k < 0:
            continue
        try:
            r = method(*([1] * k))
        except TypeError:
            continue
        if _is_coroutine(r):
            r.close()
        return False
    return True


def _signature(fn):
    try:
        import inspect
    except ImportError:       # MicroPython: the arity probe is the check
        return None
    return [p.name for p in inspect.signature(fn).parameters.values()]


def _check(board):
    cls = type(board)
    assert isinstance(board, hal.Board), cls
    contract = _contract()
    assert {"out", "read_line", "scan", "show_leds", "commands"} <= set(contract)
    own = getattr(board, "__dict__", {})     # attributes set on the instance
    for name in contract:
        n, abstract, is_async = contract[name]
        mine = getattr(cls, name, None)
        base = getattr(hal.Board, name)
        if abstract and name not in own:
            assert mine is not base, "%s does not implement %s" % (cls.__name__, name)
        assert _takes_exactly(getattr(board, name), n), "%s.%s takes other arguments" % (
            cls.__name__, name)
        if name not in own:
            assert _is_async(mine) == is_async, "%s.%s: async or not" % (cls.__name__, name)
            sig = _signature(mine)
            if sig is not None:
                assert sig == _signature(base), (name, sig, _signature(base))


def test_the_esp32_board_is_the_contract():
    fakemachine.install()
    try:
        from nardy.hal_esp32 import Board
        board = Board.from_pinmap(load(PINMAP), usb=False)
    finally:
        fakemachine.remove()
    _check(board)
    assert board.commands() is None       # the ESP32 answers no commands of its own
    assert board.idle() and not board.virtual


def test_the_virtual_board_is_the_contract():
    made = fakemachine.install_framebuf()   # CPython: a stand-in for MicroPython's
    try:
        from nardy.hal_virtual import Board
        board = Board(PINMAP, "/tmp")
        _check(board)
        from nardy.vcommands import COMMANDS
        assert board.commands() is COMMANDS and board.virtual
        assert sorted(COMMANDS) == ["button", "sense", "set"]
    finally:
        if made:
            fakemachine.remove_framebuf()
            sys.modules.pop("nardy.hal_virtual", None)


def test_the_probe_sees_a_wrong_signature():
    # the check above can fail: a board whose read_line takes an argument, or whose
    # scan is missing, is refused
    class Budget(hal.Board):
        async def read_line(self, budget=64):
            return None

    class NoScan(hal.Board):
        pass

    contract = _contract()
    assert not _takes_exactly(Budget().read_line, contract["read_line"][0])
    try:
        _check(NoScan())
    except AssertionError as e:
        assert "does not implement" in str(e), e
    else:
        raise AssertionError("a board without scan passed")
