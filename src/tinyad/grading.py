"""Helpers that the exercise check cells call.

A failed check raises ``AssertionError`` with a message in four parts: what was
tried, what was expected, what came back, and a hint. A learner reading it
should know what to look at next without reading this file.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import numpy as np

from tinyad.graph import topo_sort


def fail(what: str, tried: Any, expected: Any, got: Any, hint: str) -> None:
    """Raise the course's AssertionError: what was checked, the input, both answers, a hint."""
    raise AssertionError(
        f"{what}\n"
        f"  tried:    {tried}\n"
        f"  expected: {expected}\n"
        f"  got:      {got}\n"
        f"  hint:     {hint}"
    )


def check(condition: bool, what: str, tried: Any, expected: Any, got: Any, hint: str) -> None:
    """Pass silently if ``condition`` holds, else fail with the four-part message."""
    if not condition:
        fail(what, tried, expected, got, hint)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.number)) and not isinstance(x, bool)


def check_close(
    got: Any,
    expected: Any,
    what: str,
    tried: Any,
    hint: str,
    atol: float = 1e-9,
    rtol: float = 1e-7,
) -> None:
    """``got`` equals ``expected`` (a number or an array) to within ``atol + rtol * |expected|``."""
    # A Value, a tinyad Tensor or a torch tensor (NumPy numbers have .data too).
    if hasattr(got, "parents") or hasattr(got, "grad_fn"):
        fail(what, tried, expected, f"{got!r} (of type {type(got).__name__})", "return a plain number, "
             "not a node: .data of a Value, .item() of a one-element tensor")
    if expected is None or got is None:
        check(got is expected, what, tried, expected, got, hint)
        return
    expected_arr = np.asarray(expected, dtype=np.float64)
    try:
        got_arr = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        fail(what, tried, expected, f"{got!r} (of type {type(got).__name__})", hint)
    if got_arr.shape != expected_arr.shape:
        fail(what, tried, f"shape {expected_arr.shape}", f"shape {got_arr.shape}", hint)
    if not np.allclose(got_arr, expected_arr, atol=atol, rtol=rtol, equal_nan=False):
        fail(what, tried, _show(expected), _show(got), hint)


def _show(x: Any) -> str:
    if _is_number(x):
        return f"{float(x):.10g}"
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=6)
    return repr(x)


def check_gradients(
    f: Callable[..., Any],
    points: Iterable[Sequence[float]],
    what: str,
    hint: str,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-4,
) -> None:
    """At each point, ``f`` on fresh ``Value`` leaves has gradients that match finite differences.

    ``f`` takes as many Values as a point has numbers and returns a Value.
    Its gradients (from ``backward``) are compared with central differences of
    the same ``f`` evaluated on plain Values.
    """
    from tinyad.scalar import Value

    for point in points:
        leaves = [Value(x) for x in point]
        out = f(*leaves)
        tried = f"{getattr(f, '__name__', 'f')}({', '.join(repr(v) for v in point)})"
        check(
            isinstance(out, Value), what, tried, "a Value", f"{out!r} (of type {type(out).__name__})",
            "build the result from the Value inputs with Value operations",
        )
        out.backward()
        for i, x in enumerate(point):
            up = f(*[Value(p + eps if j == i else p) for j, p in enumerate(point)]).data
            down = f(*[Value(p - eps if j == i else p) for j, p in enumerate(point)]).data
            slope = (up - down) / (2 * eps)
            got = leaves[i].grad
            check(
                abs(got - slope) <= atol + rtol * abs(slope),
                what,
                tried,
                f"d/d(input {i}) = {slope:.8g} (finite differences)",
                f"{got:.8g} (from backward)",
                hint,
            )


def check_topo_order(order: Any, root: Any, hint: str) -> None:
    """``order`` holds every node reachable from ``root`` once, parents before children, root last.

    Any order with these properties passes, not only the one the engine makes.
    """
    what = "a topological order of the graph"
    tried = f"the graph behind {root!r}"
    check(
        isinstance(order, list), what, tried, "a list of nodes", f"a {type(order).__name__}",
        "return a list",
    )
    reachable = topo_sort(root)
    ids = [id(n) for n in order]
    check(
        len(ids) == len(set(ids)), what, tried, "each node once",
        f"{len(ids) - len(set(ids))} repeated entries",
        "remember the nodes you have visited and skip them the second time",
    )
    check(
        set(ids) == {id(n) for n in reachable}, what, tried, f"the {len(reachable)} reachable nodes",
        f"{len(ids)} nodes, of which {len(set(ids) & {id(n) for n in reachable})} are reachable",
        hint,
    )
    position = {id(n): k for k, n in enumerate(order)}
    for node in order:
        for parent in node.parents:
            check(
                position[id(parent)] < position[id(node)], what, tried,
                "every parent before its child",
                f"{parent!r} (position {position[id(parent)]}) after its child "
                f"{node!r} (position {position[id(node)]})",
                hint,
            )
    check(
        order[-1] is root, what, tried, "the root last", f"{order[-1]!r} last",
        "the root depends on everything, so it is appended after all the others",
    )


def call_without_recursion(fn: Callable[..., Any], *args: Any, what: str, tried: str) -> Any:
    """``fn(*args)``; a ``RecursionError`` fails the check with a hint to keep an explicit stack."""
    import sys

    try:
        return fn(*args)
    except RecursionError:
        pass  # fail outside the except block, so the message is not buried under the traceback
    fail(
        what,
        tried,
        "an answer: the graph is deep, not hard",
        "RecursionError: maximum recursion depth exceeded",
        "a recursive depth-first search makes one Python call per level of the graph, and "
        f"Python stops at sys.getrecursionlimit() = {sys.getrecursionlimit()} calls. Keep your "
        "own stack (a list of nodes still to finish) and loop instead of recursing",
    )


def check_finite_differences(
    f: Callable[..., Any], inputs: Sequence[Any], what: str, tried: str, hint: str
) -> None:
    """``gradcheck(f, *inputs)`` passes: backward's gradients match finite differences."""
    from tinyad.gradcheck import gradcheck

    try:
        gradcheck(f, *inputs)
        return
    except AssertionError as error:
        finding = str(error)
    fail(what, tried, "backward's gradients equal to the finite-difference slopes", finding, hint)


# -- helpers for lesson 07 --


def call_strictly(fn: Callable[..., Any], *args: Any, what: str, tried: str, hint: str) -> Any:
    """``fn(*args)`` with NumPy's overflow, divide-by-zero and invalid-value warnings as failures.

    Runs under ``np.errstate(all="raise", under="ignore")``: a tiny result rounding to 0 is
    correct, anything else NumPy would warn about fails the check, naming what NumPy reported.
    """
    import warnings

    try:
        with np.errstate(all="raise", under="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            return fn(*args)
    except (FloatingPointError, RuntimeWarning) as error:
        reported = f"{type(error).__name__}: {error}"
    fail(what, tried, "a result with no overflow, division by zero or invalid value",
         f"NumPy reported {reported}", hint)


def check_array_gradient(
    f: Callable[[np.ndarray], Any],
    x: Any,
    grad: Any,
    what: str,
    tried: str,
    hint: str,
    eps: float = 1e-6,
    atol: float = 1e-6,
    rtol: float = 1e-5,
) -> None:
    """``grad`` is the gradient of the scalar NumPy function ``f`` at ``x``, by central differences.

    The differences are taken in float64 (``f`` is called on float64 copies of ``x``).
    """
    point = np.array(x, dtype=np.float64)
    numeric = np.zeros_like(point)
    for index in np.ndindex(point.shape):
        up, down = point.copy(), point.copy()
        up[index] += eps
        down[index] -= eps
        numeric[index] = (float(f(up)) - float(f(down))) / (2 * eps)
    try:
        got = np.asarray(grad, dtype=np.float64)
    except (TypeError, ValueError):
        fail(what, tried, f"an array of shape {point.shape}", f"{grad!r} (of type {type(grad).__name__})",
             hint)
    check(got.shape == point.shape, what, tried, f"a gradient of shape {point.shape}",
          f"shape {got.shape}", "the gradient has one entry per input entry, in the input's shape")
    close = np.abs(got - numeric) <= atol + rtol * np.abs(numeric)  # False wherever got is nan
    if not close.all():
        worst = tuple(int(i) for i in np.argwhere(~close)[0])
        fail(what, tried, f"{numeric[worst]:.10g} at index {worst} (finite differences)",
             f"{got[worst]:.10g} at index {worst}", hint)
