"""The firmware's import graph keeps the layers of docs/ARCHITECTURE.md (issue 24).

Static (``ast``): every module of firmware/nardy (and firmware/main.py) is in exactly
one layer of the document's table; an import, at load time, inside a function or by
name (``__import__``), goes only to the same or a lower layer; the imports that may
break this, the lazy hooks, are the document's second table, each inside a function
and each up a layer (a module that loads a part of itself lazily, in its own layer,
needs no hook); the graph has no circle, through an import at load time or inside
a function: a part never imports its owner back. Both tables are read from the document, so the
document and the tree cannot drift apart. The check runs on a copy with a planted
back-import too, and must fail there.

Private names stay in their module (``private_uses``): no module imports another's
``_name``, reads it off the module, or off an object of another module's class
(unless it subclasses a class of that module); planted uses of each kind must fail.
"""

import ast
import os
import re
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
FIRMWARE = os.path.join(ROOT, "firmware")

_NAME = re.compile(r"`([a-z0-9_]+)\.py`")


def _table(text, header):
    """The rows (lists of cells) of the markdown table whose header row starts with
    ``header``."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("| " + header + " |"):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip("|").split(" | ")])
            return rows
    raise AssertionError("no table %r in the document" % header)


def read_doc(path=DOC):
    """({layer: index, lowest first}, {module: layer}, {(importer, imported)}, problems)"""
    with open(path) as f:
        text = f.read()
    order, layer_of, problems = {}, {}, []
    for row in _table(text, "layer"):
        order[row[0]] = len(order)
        for m in _NAME.findall(row[1]):
            if m in layer_of:
                problems.append("%s is in two layers: %s and %s" % (m, layer_of[m], row[0]))
            layer_of[m] = row[0]
    hooks = set()
    for row in _table(text, "lazy hook"):
        names = _NAME.findall(row[0])
        if len(names) != 2:
            problems.append("a lazy hook names two modules: %r" % row[0])
            continue
        hooks.add(tuple(names))
    return order, layer_of, hooks, problems


def _modules(firmware):
    pkg = os.path.join(firmware, "nardy")
    mods = {n[:-3]: os.path.join(pkg, n) for n in os.listdir(pkg)
            if n.endswith(".py") and n != "__init__.py"}
    mods["main"] = os.path.join(firmware, "main.py")
    return mods


def _targets(node, mods):
    """The firmware modules one node imports (nothing for other nodes)."""
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        parts = node.module.split(".")
        if parts[0] != "nardy":
            return []
        if len(parts) == 1:          # from nardy import x, y: the modules among them
            return [a.name for a in node.names if a.name in mods]
        return [parts[1]]
    if isinstance(node, ast.Import):
        return [a.name.split(".")[1] for a in node.names
                if a.name.startswith("nardy.") and a.name.count(".") >= 1]
    if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__"
            and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.startswith("nardy.")):
        return [node.args[0].value.split(".")[1]]
    return []


def import_graph(firmware=FIRMWARE):
    """{importer: {imported: "load" | "lazy"}} over the firmware's modules ("lazy":
    inside a function only)."""
    mods = _modules(firmware)
    graph = {}
    for name, path in mods.items():
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        lazy_nodes = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                lazy_nodes.update(id(n) for n in ast.walk(fn) if n is not fn)
        out = {}
        for node in ast.walk(tree):
            for t in _targets(node, mods):
                if t == name:
                    continue
                kind = "lazy" if id(node) in lazy_nodes else "load"
                if out.get(t) != "load":
                    out[t] = kind
        graph[name] = out
    return graph


def _circle(graph, skip):
    """One circle of ``graph`` without the edges in ``skip``, as a list, or None."""
    state = {}

    def visit(m, path):
        state[m] = 1
        for t in sorted(graph.get(m, ())):
            if (m, t) in skip or t not in graph:
                continue
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state:
                found = visit(t, path + [t])
                if found:
                    return found
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m, [m])
            if found:
                return found
    return None


def check(firmware=FIRMWARE, doc=DOC):
    """Every way the tree breaks the document's layers, as sentences (none: it keeps them)."""
    order, layer_of, hooks, problems = read_doc(doc)
    graph = import_graph(firmware)
    for m in sorted(set(graph) - set(layer_of)):
        problems.append("%s.py is in no layer of the document" % m)
    for m in sorted(set(layer_of) - set(graph)):
        problems.append("%s.py is in the document but not in the tree" % m)
    for a in sorted(graph):
        for b, kind in sorted(graph[a].items()):
            if a not in layer_of or b not in layer_of:
                continue
            if (a, b) in hooks:
                if kind != "lazy":
                    problems.append("lazy hook %s -> %s is imported at load time" % (a, b))
                continue
            if order[layer_of[b]] > order[layer_of[a]]:
                problems.append("%s (%s) imports %s (%s), a higher layer%s" % (
                    a, layer_of[a], b, layer_of[b], " (in a function)" if kind == "lazy" else ""))
    for a, b in sorted(hooks):
        if b not in graph.get(a, {}):
            problems.append("lazy hook %s -> %s: no such import" % (a, b))
        elif (a in layer_of and b in layer_of
              and order[layer_of[b]] <= order[layer_of[a]]):
            problems.append("lazy hook %s -> %s is not up a layer: it needs no hook, "
                            "and its part may not import it back" % (a, b))
    circle = _circle(graph, ())     # none, not even through a hook
    if circle:
        problems.append("circle: " + " -> ".join(circle))
    return problems


def test_the_firmware_keeps_the_documented_layers():
    assert check() == []


def unreached(firmware=FIRMWARE):
    """Firmware modules the board never imports: not reached from main.py through any
    import (at load time, in a function, by name)."""
    graph = import_graph(firmware)
    seen, todo = {"main"}, ["main"]
    while todo:
        for t in graph[todo.pop()]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return sorted(set(graph) - seen)


def _firmware_copy(tmp_path, name):
    """The firmware's code (no weights, no stubs) copied to plant a defect in."""
    fw = tmp_path / name
    shutil.copytree(FIRMWARE, fw, ignore=shutil.ignore_patterns("weights", "typings",
                                                                "__pycache__"))
    return fw


def test_no_module_of_the_firmware_package_is_host_only():
    # what the board never imports lives with the host tools (host_tools/nardy_host):
    # deploy copies firmware/nardy as it is
    assert unreached() == []


def test_a_module_nothing_on_the_board_imports_is_found(tmp_path):
    fw = _firmware_copy(tmp_path, "fw")
    (fw / "nardy" / "hostonly.py").write_text("from nardy import rules\n")
    assert unreached(str(fw)) == ["hostonly"]


def test_the_document_names_every_layer_and_hook_it_checks():
    # the tables are really read: the layers in order, the hooks by name
    order, layer_of, hooks, problems = read_doc()
    assert problems == []
    assert list(order)[:2] == ["rules", "board"] and list(order)[-1] == "app"
    assert layer_of["zones"] == "board" and layer_of["main"] == "app"
    assert ("game", "botplay") in hooks
    assert all(layer_of[a] != layer_of[b] for a, b in hooks), hooks


def test_the_graph_sees_every_kind_of_import():
    g = import_graph()
    assert g["tracker"]["zonefit"] == "load"         # from nardy.zonefit import ...
    assert g["app"]["protocol"] == "load"            # from nardy import ..., protocol
    assert g["game"]["botplay"] == "lazy"            # inside a method
    assert g["evaluate"]["netfile"] == "lazy"
    assert "nardy_host" not in str(g)                # the board imports no host code


def _planted(tmp_path, module, code):
    """A copy of firmware/ and the document with ``code`` appended to ``module``."""
    fw = _firmware_copy(tmp_path, "firmware")
    path = fw / ("main.py" if module == "main" else "nardy/%s.py" % module)
    with open(path, "a") as f:
        f.write("\n" + code + "\n")
    return str(fw)


def _only(problems, want):
    """``want`` is the first problem; the others, if any, are the circles it closes."""
    assert problems and problems[0] == want, problems
    assert all(p.startswith("circle: ") for p in problems[1:]), problems


def test_a_planted_back_import_fails_the_check(tmp_path):
    fw = _planted(tmp_path, "rules", "from nardy.app import App  # noqa")
    _only(check(fw), "rules (rules) imports app (app), a higher layer")


def test_a_planted_lazy_back_import_fails_the_check(tmp_path):
    fw = _planted(tmp_path, "sensing",
                  "def f():\n    from nardy import journal\n    return journal")
    _only(check(fw), "sensing (sensing) imports journal (store), a higher layer (in a function)")


def test_a_planted_import_by_name_fails_the_check(tmp_path):
    fw = _planted(tmp_path, "zones", "def f():\n    return __import__('nardy.tracker')")
    _only(check(fw), "zones (board) imports tracker (tracker), a higher layer (in a function)")


def test_a_planted_circle_in_one_layer_fails_the_check(tmp_path):
    # notation and scoring are both rules; scoring does not import notation
    fw = _planted(tmp_path, "scoring", "def f():\n    from nardy import notation\n")
    fw2 = _planted(tmp_path / "b", "notation", "")
    assert check(fw2) == []
    with open(os.path.join(fw, "nardy", "notation.py"), "a") as f:
        f.write("\nfrom nardy import scoring  # noqa\n")
    problems = check(fw)
    assert len(problems) == 1 and problems[0].startswith("circle: "), problems
    assert "notation" in problems[0] and "scoring" in problems[0]


def test_a_hook_imported_at_load_time_or_gone_fails_the_check(tmp_path):
    fw = _planted(tmp_path, "game", "from nardy import botplay  # noqa")
    assert "lazy hook game -> botplay is imported at load time" in check(fw)
    doc = tmp_path / "ARCHITECTURE.md"
    with open(DOC) as f:
        text = f.read()
    doc.write_text(text.replace("| `game.py` loads `botplay.py` |",
                                "| `dice.py` loads `rules.py` |"))
    problems = check(doc=str(doc))
    assert "lazy hook dice -> rules: no such import" in problems, problems
    assert "game (game) imports botplay (engine), a higher layer (in a function)" in problems


def test_a_part_that_imports_its_owner_back_fails_the_check(tmp_path):
    # oled loads cyrillic lazily (same layer, no hook); cyrillic importing oled back,
    # even inside a function, closes a circle through the lazy import
    assert check() == []
    assert import_graph()["oled"]["cyrillic"] == "lazy"
    fw = _planted(tmp_path, "cyrillic", "def f():\n    from nardy.oled import GLYPHS\n")
    problems = check(fw)
    assert len(problems) == 1 and problems[0].startswith("circle: "), problems
    assert "oled" in problems[0] and "cyrillic" in problems[0]


def test_a_hook_inside_its_own_layer_fails_the_check(tmp_path):
    # a hook may only go up a layer: one in the same layer would hide the circle
    # its part closes by importing its owner back
    fw = _planted(tmp_path, "cyrillic", "def f():\n    from nardy.oled import GLYPHS\n")
    doc = tmp_path / "ARCHITECTURE.md"
    with open(DOC) as f:
        text = f.read()
    doc.write_text(text.replace("| `game.py` loads `botplay.py` |",
                                "| `oled.py` loads `cyrillic.py` | a font |\n"
                                "| `game.py` loads `botplay.py` |"))
    problems = check(fw, str(doc))
    assert ("lazy hook oled -> cyrillic is not up a layer: it needs no hook, "
            "and its part may not import it back") in problems, problems


def test_a_module_in_no_layer_or_two_fails_the_check(tmp_path):
    fw = _firmware_copy(tmp_path, "fw")
    (fw / "nardy" / "stray.py").write_text("X = 1\n")
    assert check(str(fw)) == ["stray.py is in no layer of the document"]
    doc = tmp_path / "ARCHITECTURE.md"
    with open(DOC) as f:
        doc.write_text(f.read().replace("| `game.py`, `dice.py`,",
                                        "| `game.py`, `dice.py`, `bot.py`,"))
    assert "bot is in two layers: game and engine" in check(doc=str(doc))


def test_a_circle_through_the_hook_up_a_layer_fails_the_check(tmp_path):
    # game loads botplay (the one hook); botplay importing the game back, as it did
    # for the phases, closes a circle the hook does not excuse
    assert "game" not in import_graph()["botplay"]
    fw = _planted(tmp_path, "botplay", "from nardy.game import MOVE  # noqa")
    problems = check(fw)
    assert len(problems) == 1 and problems[0].startswith("circle: "), problems
    assert "game" in problems[0] and "botplay" in problems[0]


# -- private names stay in their module ------------------------------------------------
# A module's ``_name`` is its own: another module that reads it (``from nardy.x import
# _y``, ``x._y``, ``obj._y`` on an object of another module's class) ties itself to
# code that says it may change without notice (issue 24). The exception is a class's
# family: a module that subclasses a class of another module may use that module's
# private names on its objects (the tracker's steps on its ZoneFit base).

def _private(name):
    return name.startswith("_") and not name.endswith("__")


def _owned(tree):
    """The private names a module defines: its functions, classes and globals, its
    classes' attributes and methods, what its code stores on ``self`` or ``cls``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            names.add(node.attr)
    return {n for n in names if _private(n)}


def _imported(tree, mods):
    """({local name: firmware module} of the modules a module imports by name,
    {local name: firmware module} of the names it takes from them)."""
    as_module, from_module = {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            parts = node.module.split(".")
            if parts[0] != "nardy":
                continue
            for a in node.names:
                if len(parts) == 1 and a.name in mods:
                    as_module[a.asname or a.name] = a.name
                elif len(parts) == 2:
                    from_module[a.asname or a.name] = parts[1]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("nardy.") and a.asname:
                    as_module[a.asname] = a.name.split(".")[1]
    return as_module, from_module


def private_uses(firmware=FIRMWARE):
    """Every use of another firmware module's private name, as sentences."""
    mods = _modules(firmware)
    trees = {}
    for name, path in mods.items():
        with open(path) as f:
            trees[name] = ast.parse(f.read(), path)
    owned = {m: _owned(t) for m, t in trees.items()}
    problems = []
    for m in sorted(trees):
        as_module, from_module = _imported(trees[m], mods)
        mine = set(owned[m])
        for node in ast.walk(trees[m]):       # a subclass's family: its base's module
            if isinstance(node, ast.ClassDef):
                for base in node.bases:
                    if isinstance(base, ast.Name) and base.id in from_module:
                        mine |= owned.get(from_module[base.id], set())
        for node in ast.walk(trees[m]):
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                parts = node.module.split(".")
                for a in node.names:
                    if parts[0] == "nardy" and len(parts) == 2 and _private(a.name):
                        problems.append("%s:%d imports %s's private %s" % (
                            m, line, parts[1], a.name))
            if not isinstance(node, ast.Attribute) or not _private(node.attr):
                continue
            obj = node.value.id if isinstance(node.value, ast.Name) else None
            if obj in ("self", "cls"):
                continue
            if obj in as_module:
                problems.append("%s:%d uses %s's private %s" % (
                    m, line, as_module[obj], node.attr))
                continue
            if node.attr in mine:
                continue
            others = sorted(o for o in owned if o != m and node.attr in owned[o])
            if others:
                problems.append("%s:%d uses %s's private %s (%s)" % (
                    m, line, " or ".join(others), node.attr, ast.unparse(node)))
    return problems


def test_no_module_uses_another_modules_private_names():
    assert private_uses() == []


def test_a_planted_private_import_fails_the_check(tmp_path):
    fw = _planted(tmp_path, "bot", "from nardy.rules import _hash  # noqa")
    assert private_uses(fw) == ["bot:%d imports rules's private _hash" % _last_line(fw, "bot")]


def test_a_planted_private_name_of_a_module_fails_the_check(tmp_path):
    fw = _planted(tmp_path, "game", "def f():\n    from nardy import rules\n"
                                    "    return rules._REASONS")
    assert private_uses(fw) == ["game:%d uses rules's private _REASONS"
                                % _last_line(fw, "game")]


def test_a_planted_private_attribute_of_an_object_fails_the_check(tmp_path):
    # the engine's search state, read off the variant by the board's player
    fw = _planted(tmp_path, "bot", "def f(v):\n    return v._canon")
    assert private_uses(fw) == ["bot:%d uses rules's private _canon (v._canon)"
                                % _last_line(fw, "bot")]


def test_a_subclass_may_use_its_bases_private_names(tmp_path):
    # Tracker(ZoneFit): the tracker's named steps call the base's _expect on it; the
    # same call from a module with no such subclass is refused
    with open(os.path.join(FIRMWARE, "nardy", "tracker.py")) as f:
        assert "t._expect(" in f.read()
    fw = _planted(tmp_path, "ui", "def f(t):\n    return t._expect")
    assert private_uses(fw) == ["ui:%d uses zonefit's private _expect (t._expect)"
                                % _last_line(fw, "ui")]
    fw = _planted(tmp_path / "b", "ui", "from nardy.zonefit import ZoneFit  # noqa\n"
                                        "class _T(ZoneFit):\n    pass\n"
                                        "def f(t):\n    return t._expect")
    assert private_uses(fw) == []


def _last_line(fw, module):
    with open(os.path.join(fw, "nardy", module + ".py")) as f:
        return len(f.read().splitlines())
