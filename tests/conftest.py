"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest

import tinyad.graph


@pytest.fixture
def walk_calls(monkeypatch: pytest.MonkeyPatch) -> list:
    """The roots that ``tinyad.graph.walk`` is called with during the test, in order: a test
    that something back-propagates through the one shared walk (and replays no walk of its
    own) asserts on this list."""
    calls: list = []
    original = tinyad.graph.walk

    def spy(root, seed):
        calls.append(root)
        return original(root, seed)

    monkeypatch.setattr(tinyad.graph, "walk", spy)
    return calls


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    """No dot program on the PATH (an empty folder), and no install hint shown yet this session."""
    from tinyad.course.viz import drawing

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(drawing, "_hint_shown", False)
