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


def _with_examples(package):
    """The modules of ``package`` whose docstrings hold examples."""
    import os
    here = os.path.dirname(package.__file__)
    found = set()
    for name in os.listdir(here):
        if name.endswith(".py"):
            with open(os.path.join(here, name)) as f:
                if "\n>>> " in f.read().replace("    >>> ", ">>> "):
                    found.add(package.__name__ + "." + name[:-3])
    return found


def test_every_module_with_examples_runs_them():
    # a module given examples later is not left out of the list above
    import nardy
    found = _with_examples(nardy)
    assert found == set(MODULES), found ^ set(MODULES)


# The host's modules with examples (numpy and gnubg-nn: the host's own packages).
HOST_MODULES = ["nardy_host.distill", "nardy_host.judge", "nardy_host.train"]


@pytest.mark.parametrize("name", HOST_MODULES)
def test_host_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_every_host_module_with_examples_runs_them():
    import nardy_host
    found = _with_examples(nardy_host)
    assert found == set(HOST_MODULES), found ^ set(HOST_MODULES)
