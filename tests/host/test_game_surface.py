"""The board's own player (nardy.botplay) drives the game through Game's public
surface only (issue 24): no private method of Game called from outside, no Game
attribute written from outside (``shown`` is the game's to set, ``setup`` is kept by
``Game.set_up``). Read from the source: MicroPython has no ``ast``."""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FW = os.path.join(ROOT, "firmware", "nardy")


def _game_uses(path):
    """(private names read, attributes written) on a name ``game`` or ``g``."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    private, written = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in ("game", "g"):
            if node.attr.startswith("_"):
                private.add(node.attr)
            if isinstance(node.ctx, ast.Store):
                written.add(node.attr)
    return private, written


def test_botplay_uses_only_the_games_public_surface():
    private, written = _game_uses(os.path.join(FW, "botplay.py"))
    assert private == set(), private
    assert written == set(), written


def test_the_check_sees_a_private_call_and_a_write(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("def f(game):\n    game._drain(1)\n    game.shown = None\n"
                   "    game.say(None, 'x')\n")
    assert _game_uses(str(src)) == ({"_drain"}, {"shown"})


def _private_on_tracker(path):
    """Private names used on a tracker (a name ``t`` or ``tracker``, or ``X.tracker``)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    used = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            continue
        owner = node.value
        if (isinstance(owner, ast.Name) and owner.id in ("t", "tracker")) or (
                isinstance(owner, ast.Attribute) and owner.attr == "tracker"):
            used.add(node.attr)
    return used


def test_no_module_but_the_tracker_uses_the_trackers_private_names():
    # the game, its resume and the board's player ask the tracker through its public
    # methods (next_steps, fit_hidden, watch_stack): its cache and fitting are its own
    for name in sorted(os.listdir(FW)):
        if name.endswith(".py") and name != "tracker.py":
            assert _private_on_tracker(os.path.join(FW, name)) == set(), name


def test_the_tracker_check_sees_a_private_use(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("def f(self, t):\n    t._next(())\n    self.tracker._miss\n"
                   "    t.next_steps(())\n")
    assert _private_on_tracker(str(src)) == {"_next", "_miss"}
