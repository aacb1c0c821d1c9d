"""Fixtures of the users'-bots tests: the example plugin installed for a test, bots
registered for a test."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.userbots import install_plugin


@pytest.fixture
def plugin_paths(tmp_path: Path) -> list[str]:
    return install_plugin(tmp_path / "site")


@pytest.fixture
def installed_plugin(plugin_paths: list[str], monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The example plugin on this process's sys.path for the test."""
    for path in reversed(plugin_paths):
        monkeypatch.syspath_prepend(path)
    yield plugin_paths
    sys.modules.pop("glory_example_plugin", None)


@pytest.fixture
def registered() -> Iterator[list[str]]:
    """Names to register during a test (removed afterwards)."""
    from glory_ai.bots import plugins

    names: list[str] = []
    yield names
    for name in names:
        plugins._REGISTERED.pop(name, None)
