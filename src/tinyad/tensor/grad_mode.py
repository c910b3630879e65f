"""Whether operations record a graph: on by default, off inside ``no_grad()``.

An op records its parents and backward rule only when recording is on and one of
its inputs requires a gradient. Evaluating a model, or updating parameters by
hand, needs no graph: ``with no_grad():`` makes every op inside it a plain NumPy
computation whose result is a leaf.

The setting belongs to the thread that changes it, as in PyTorch: a ``no_grad()``
in one thread leaves every other thread recording.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Iterator


class _ThreadState(threading.local):
    """Per-thread: whether ops record, and where ``checkpoint`` collects what they record."""

    enabled: bool = True
    # While ``checkpoint`` recomputes a block during backward, every node recorded is
    # also appended here, so that it can tell the block's own nodes from tensors made
    # outside the block. ``None`` the rest of the time.
    recorded: list[Any] | None = None


# Read by the Tensor constructor for every op: ``state.enabled`` and ``state.recorded``.
state = _ThreadState()


class _GradMode:
    """A context manager that sets recording on or off and restores the previous setting on exit.

    The previous settings are kept on a stack, so one object may be entered again
    while it is active (``ng = no_grad()``, then ``with ng:`` inside ``with ng:``)
    and every exit still restores what its own entry found. An exception leaving
    the block restores the setting too.
    """

    def __init__(self, mode: bool) -> None:
        self.mode = mode
        self.previous: list[bool] = []

    def __enter__(self) -> None:
        self.previous.append(state.enabled)
        state.enabled = self.mode

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        state.enabled = self.previous.pop()


def no_grad() -> _GradMode:
    """A context manager inside which no op records a graph: ``with no_grad(): ...``."""
    return _GradMode(False)


def enable_grad() -> _GradMode:
    """A context manager inside which ops record a graph again (used by ``checkpoint``)."""
    return _GradMode(True)


@contextmanager
def recording_into(nodes: list[Any]) -> Iterator[list[Any]]:
    """Inside this block every node recorded in this thread is also appended to ``nodes``."""
    previous, state.recorded = state.recorded, nodes
    try:
        yield nodes
    finally:
        state.recorded = previous
