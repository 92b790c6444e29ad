"""Fixtures shared by the network tests (tests/host/test_mqtt*.py, test_room.py,
test_remote.py): micropython-lib's umqtt.simple, fetched once a session and put on
the virtual boards' path as ``mip`` puts it in a board's /lib."""

import pytest
from mqttutil import umqtt_lib


@pytest.fixture(scope="session")
def umqtt_dir(tmp_path_factory):
    return umqtt_lib(str(tmp_path_factory.mktemp("umqtt")))


@pytest.fixture
def board_path(umqtt_dir, monkeypatch):
    # the unix port's own path (.frozen: asyncio) and umqtt.simple
    monkeypatch.setenv("MICROPYPATH", ".frozen:" + umqtt_dir)
