"""The examples in the firmware's docstrings are tests too."""

import doctest
import importlib

import pytest

MODULES = ["nardy.rules", "nardy.longnardy", "nardy.shortnardy", "nardy.notation",
           "nardy.scoring", "nardy.variants", "nardy.buttons", "nardy.protocol", "nardy.zonefit"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod)
    assert result.attempted > 0 and result.failed == 0
