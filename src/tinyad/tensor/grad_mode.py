"""Whether operations record a graph: on by default, off inside ``no_grad()``.

An op records its parents and backward rule only when recording is on and one of
its inputs requires a gradient. Evaluating a model, or updating parameters by
hand, needs no graph: ``with no_grad():`` makes every op inside it a plain NumPy
computation whose result is a leaf.
"""

from __future__ import annotations

from types import TracebackType

enabled: bool = True  # read by every op; changed only by the context managers below


class _GradMode:
    """A context manager that sets ``enabled`` and restores the previous setting on exit."""

    def __init__(self, mode: bool) -> None:
        self.mode = mode
        self.previous = True

    def __enter__(self) -> None:
        global enabled
        self.previous = enabled
        enabled = self.mode

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        global enabled
        enabled = self.previous


def no_grad() -> _GradMode:
    """A context manager inside which no op records a graph: ``with no_grad(): ...``."""
    return _GradMode(False)


def enable_grad() -> _GradMode:
    """A context manager inside which ops record a graph again (used by ``checkpoint``)."""
    return _GradMode(True)
