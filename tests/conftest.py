"""Shared pytest configuration.

Tests that need real hardware run only when an option names the device:
``--robot URL`` (a robot transport URL such as ``serial:///dev/ttyUSB0``) and
``--camera N`` (a camera index).  Without them those tests are skipped.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--robot", default=None, metavar="URL", help="run hardware tests against this robot URL")
    parser.addoption("--camera", default=None, metavar="N", help="run live-camera tests with this camera index")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    robot = config.getoption("--robot")
    camera = config.getoption("--camera")
    for item in items:
        # the marker itself, not ``"hardware" in item.keywords``: keywords also hold directory
        # names, so every test under a directory called "hardware" would be skipped
        needs = item.get_closest_marker("hardware")
        if needs is not None:
            device = needs.kwargs.get("device") or "robot"
            if device == "robot" and not robot:
                item.add_marker(pytest.mark.skip(reason="needs --robot URL"))
            if device == "camera" and not camera:
                item.add_marker(pytest.mark.skip(reason="needs --camera N"))
