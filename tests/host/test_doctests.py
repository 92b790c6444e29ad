"""The examples in the firmware's docstrings are tests too."""

import doctest
import importlib
import sys

import pytest

MODULES = ["nardy.rules", "nardy.longnardy", "nardy.shortnardy", "nardy.notation",
           "nardy.scoring", "nardy.variants", "nardy.buttons", "nardy.zonefit",
           "nardy.calibration", "nardy.pinmap", "nardy.dice", "nardy.hal_virtual"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    made = False
    if name == "nardy.hal_virtual":
        import fakemachine  # tests/firmware: CPython has no framebuf
        made = fakemachine.install_framebuf()
    try:
        mod = importlib.import_module(name)
        result = doctest.testmod(mod)
    finally:
        if made:
            fakemachine.remove_framebuf()
            sys.modules.pop(name, None)
    assert result.attempted > 0 and result.failed == 0


def test_every_module_with_examples_runs_them():
    # a module given examples later is not left out of the list above
    import os

    import nardy
    here = os.path.dirname(nardy.__file__)
    with_examples = set()
    for name in os.listdir(here):
        if name.endswith(".py"):
            with open(os.path.join(here, name)) as f:
                if "\n>>> " in f.read().replace("    >>> ", ">>> "):
                    with_examples.add("nardy." + name[:-3])
    assert with_examples == set(MODULES), with_examples ^ set(MODULES)
