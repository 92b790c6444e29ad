"""Run every tests/firmware module again inside the real unix MicroPython port,
with the heap capped like an ESP32's, on the firmware as a board runs it: compiled
by mpy-cross (``mpunix.compiled_firmware``, what ``nardy deploy`` puts on a board).
Compiling firmware/ from source on the capped heap measured the compiler instead:
the 112wK runs failed on its garbage as the modules grew, not on the firmware's."""

import ast
import os
import re
import subprocess

import pytest

from nardy_host.mpunix import compiled_firmware, micropython

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FW_TESTS = sorted(
    n[:-3] for n in os.listdir(os.path.join(ROOT, "tests", "firmware"))
    if n.startswith("test_") and n.endswith(".py")
)
HEAP = os.environ.get("NARDY_MP_HEAP", "112wK")


def defined_tests(path):
    """The test functions a module defines at its top level, also those defined under a
    module-level ``if``/``try`` (a runtime check that MicroPython might skip)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    names = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name.startswith("test_"):
                names.add(node.name)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                todo.extend(getattr(node, field, ()))
        elif isinstance(node, ast.ExceptHandler):
            todo.extend(node.body)
    return names


def ran_counts(out):
    """(passed, failed) from the runner's closing line, "N passed, N failed"."""
    m = re.search(r"^(\d+) passed, (\d+) failed$", out.strip().splitlines()[-1])
    assert m, out
    return int(m.group(1)), int(m.group(2))


def test_defined_tests_sees_tests_behind_runtime_checks(tmp_path):
    src = tmp_path / "test_m.py"
    src.write_text("import sys\n"
                   "def test_a():\n    pass\n"
                   "if sys.implementation.name == 'cpython':\n"
                   "    def test_b():\n        pass\n"
                   "try:\n    import x\nexcept ImportError:\n"
                   "    def test_c():\n        pass\n"
                   "def helper():\n    def test_inner():\n        pass\n")
    assert defined_tests(src) == {"test_a", "test_b", "test_c"}
    assert ran_counts("x\n3 passed, 0 failed\n") == (3, 0)


def mp_command(module):
    """The unix port's command line for one test module, run from ROOT. The runner's
    path is relative: the module search path it builds is then the same strings in
    every checkout, so the capped heap is laid out alike in CI and here. (An absolute
    path made it depend on where the checkout lies: a test that ran out of heap from
    /check/work/main every time passed from /work/main every time.)"""
    return [micropython(), "-X", "heapsize=" + HEAP, "tests/mprun.py", module]


def test_the_micropython_runs_do_not_depend_on_the_checkouts_path():
    cmd = mp_command("test_rules")
    assert not [a for a in cmd[1:] if ROOT in a], cmd


@pytest.mark.parametrize("module", FW_TESTS)
def test_firmware_module_under_micropython(module):
    lib = compiled_firmware()
    r = subprocess.run(
        mp_command(module), cwd=ROOT,
        capture_output=True, text=True, timeout=900,
        env=dict(os.environ, NARDY_MP_LIB=lib),
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "nardy.rules from %s/nardy/rules.mpy" % lib in out, out    # not the source
    passed, failed = ran_counts(out)
    defined = defined_tests(os.path.join(ROOT, "tests", "firmware", module + ".py"))
    assert failed == 0, out
    # every test the module defines must have run: one hidden behind a runtime check
    # (or missing from MicroPython's dir()) would otherwise vanish unnoticed
    assert passed == len(defined), "ran %d of %d tests defined in %s:\n%s" % (
        passed, len(defined), module, out)
