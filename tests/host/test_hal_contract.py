"""The board interface is written once (nardy.hal.Board): both boards provide every
method of it, callable the way the app calls it."""

import ast
import inspect
import os

import pytest

from nardy import hal

FW = os.path.dirname(hal.__file__)
# methods with a default in the contract a board may leave out
OPTIONAL = {"commands"}


def _board_methods(module):
    """{name: FunctionDef} of class Board in firmware/nardy/MODULE.py (read, not
    imported: the virtual board needs MicroPython's framebuf)."""
    with open(os.path.join(FW, module + ".py")) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Board":
            return {n.name: n for n in node.body
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    raise AssertionError("no class Board in " + module)


def _set_in_init(methods):
    init = methods.get("__init__")
    return {t.attr for node in ast.walk(init) if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Attribute)} if init else set()


def _binds(fn, n):
    """Can ``fn`` (an ast function, a method) be called with ``n`` positional
    arguments after self?"""
    a = fn.args
    pos = [x.arg for x in a.posonlyargs + a.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                 for d in fn.decorator_list)
    if not static:
        pos = pos[1:]
    required = len(pos) - len(a.defaults)
    return required <= n and (n <= len(pos) or a.vararg is not None)


@pytest.mark.parametrize("module", ["hal_esp32", "hal_virtual"])
def test_each_board_provides_the_contract(module):
    have = _board_methods(module)
    for name, f in vars(hal.Board).items():
        if name.startswith("_") or not inspect.isfunction(f):
            continue
        if name in OPTIONAL and name not in have:
            continue
        if name in _set_in_init(have):
            continue        # a callable given to the constructor (the virtual ``out``)
        assert name in have, "%s.Board has no %s" % (module, name)
        n = len(inspect.signature(f).parameters) - 1
        assert _binds(have[name], n), "%s.Board.%s" % (module, name)
        assert isinstance(have[name], ast.AsyncFunctionDef) == \
            inspect.iscoroutinefunction(f), name


def test_the_contract_lists_what_the_app_uses():
    with open(os.path.join(FW, "app.py")) as f:
        src = f.read()
    used = set()
    for node in ast.walk(ast.parse(src)):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                and node.value.attr == "board"):
            used.add(node.attr)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "b":
            used.add(node.attr)
    contract = set(vars(hal.Board)) | {"sense", "press", "send_oled", "send_leds"}
    # b.* also names other objects in app.py (not boards) in a few helpers
    assert used - contract <= {"json", "none"}, used - contract


def test_a_board_without_its_own_commands_gets_the_apps_and_not_the_virtual_ones():
    from nardy import app, vcommands
    assert app._board_commands(type("B", (hal.Board,), {})()) is None
    assert app._board_commands(type("V", (), {"virtual": True})()) is vcommands.COMMANDS
    own = type("O", (hal.Board,), {"commands": lambda s: {"x": 1}})()
    assert app._board_commands(own) == {"x": 1}
    assert set(vcommands.COMMANDS) == {"sense", "button", "set"}
    from nardy import appcmds
    assert not set(vcommands.COMMANDS) & (set(appcmds.COMMANDS) - {"set"})
