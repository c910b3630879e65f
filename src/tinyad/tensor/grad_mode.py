"""Whether operations record a graph: on by default, off inside ``no_grad()``.

An op records its parents and backward rule only when recording is on and one of
its inputs requires a gradient. Evaluating a model, or updating parameters by
hand, needs no graph: ``with no_grad():`` makes every op inside it a plain array
computation whose result is a leaf. As in PyTorch, ``no_grad()`` also decorates a
function (``@no_grad()`` or ``@no_grad``): each call runs inside its own ``with no_grad():``,
and each step of a generator function's generator does.

The setting belongs to the thread that changes it, as in PyTorch: a ``no_grad()``
in one thread leaves every other thread recording.

The same per-thread state says whether a backward walk is running (``walking()``): while one
is, a Tensor's gradient refuses ``t.grad = ...`` where it holds another node's share already.
"""

from __future__ import annotations

import functools
import inspect
import threading
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Callable, Iterator, TypeVar

Function = TypeVar("Function", bound=Callable[..., Any])


class _ThreadState(threading.local):
    """Per-thread: whether ops record, where ``checkpoint`` collects what they record, and how
    many backward walks are running."""

    enabled: bool = True
    # While ``checkpoint`` recomputes a block during backward, every node recorded is
    # also appended here, so that it can tell the block's own nodes from tensors made
    # outside the block. ``None`` the rest of the time.
    recorded: list[Any] | None = None
    # How many backward walks are running (checkpoint's rule runs one inside another): while
    # one is, a Tensor's gradient takes shares by accumulate, and refuses to be replaced.
    walking: int = 0


# Read by the Tensor constructor for every op: ``state.enabled`` and ``state.recorded``.
state = _ThreadState()


class _GradMode:
    """A context manager that sets recording on or off and restores the previous setting on exit;
    called on a function, it decorates it (``__call__``).

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

    def __call__(self, function: Function) -> Function:
        """``function`` with every call run inside this setting, restored when the call ends."""
        if not callable(function):
            name = "enable_grad" if self.mode else "no_grad"
            raise TypeError(f"{name} takes a function to decorate, got {type(function).__name__}")
        mode = self.mode
        if inspect.isgeneratorfunction(function):
            return _each_step_in(mode, function)

        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            with _GradMode(mode):  # one per call: calls in other threads keep their own stack
                return function(*args, **kwargs)

        return run  # type: ignore[return-value]


def _each_step_in(mode: bool, function: Function) -> Function:
    """A generator function decorated: calling it only makes the generator, so the setting is
    applied to each step of it instead, and the caller's own setting holds between steps."""

    @functools.wraps(function)
    def steps(*args: Any, **kwargs: Any) -> Any:
        generator = function(*args, **kwargs)
        resume, argument = generator.send, None  # what the caller passed in: a value, or an error
        try:
            while True:
                with _GradMode(mode):
                    try:
                        value = resume(argument)
                    except StopIteration as end:
                        return end.value
                try:
                    resume, argument = generator.send, (yield value)
                except GeneratorExit:  # closed early (a break in the caller's loop): see finally
                    raise
                except BaseException as error:  # thrown in (generator.throw, a with-block's error):
                    resume, argument = generator.throw, error  # the function's own generator gets it
        finally:  # close the function's own generator, in the mode
            with _GradMode(mode):
                generator.close()

    return steps  # type: ignore[return-value]


def no_grad(function: Function | None = None) -> _GradMode | Function:
    """No op records a graph inside ``with no_grad(): ...``, nor in a function decorated
    ``@no_grad()`` (or ``@no_grad``)."""
    if function is None:
        return _GradMode(False)
    return _GradMode(False)(function)


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


class _Walking:
    """Inside ``with walking():`` a backward walk runs in this thread (``Tensor.backward``'s), so a
    gradient takes its shares by ``accumulate`` and refuses ``t.grad = ...``. (A class rather
    than a generator: entered on every backward, and contextlib's costs a microsecond.)"""

    def __enter__(self) -> None:
        state.walking += 1

    def __exit__(self, *exception: object) -> None:
        state.walking -= 1


_WALKING = _Walking()


def walking() -> _Walking:
    """The context manager of a backward walk in this thread (one object: walks may nest)."""
    return _WALKING
