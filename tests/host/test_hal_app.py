"""The app uses nothing of a board but the contract (nardy.hal.Board); that both
boards provide it is tests/firmware/test_hal_contract.py (both runtimes)."""

import ast
import os

from nardy import hal

FW = os.path.dirname(hal.__file__)


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
    contract = set(vars(hal.Board))
    # b.* also names other objects in app.py (not boards) in a few helpers
    assert used - contract <= {"json", "none"}, used - contract


def test_a_board_answers_only_its_own_commands():
    from nardy import app, appcmds, vcommands
    assert app._board_commands(type("B", (hal.Board,), {})()) is None
    # a board that only says it is virtual gets no virtual commands: the virtual
    # board's commands() returns them (tests/firmware/test_hal_contract.py)
    assert app._board_commands(type("V", (hal.Board,), {"virtual": True})()) is None
    own = type("O", (hal.Board,), {"commands": lambda s: {"x": 1}})()
    assert app._board_commands(own) == {"x": 1}
    assert not set(vcommands.COMMANDS) & (set(appcmds.COMMANDS) - {"set"})
