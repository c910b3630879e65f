"""Helpers that the exercise check cells call.

A failed check raises ``CheckFailed``, an ``AssertionError`` with a message in four parts:
what was tried, what was expected, what came back, and a hint. A learner reading it should
know what to look at next without reading this file, so this file stays out of sight:

- in a notebook, a ``CheckFailed`` shows as its message alone (IPython asks an exception for
  its own lines through ``_render_traceback_``), never as a traceback through these helpers;
- every check and call a check cell makes (``check``, ``check_close``, ``call_checked``, ...)
  sets ``__tracebackhide__ = True``, which pytest and IPython read to leave its frame out of a
  traceback (a blank's ``NotImplementedError`` that a helper lets through);
- an error raised inside the learner's code, when a helper calls it (``call_checked``,
  ``call_strictly``, ...), fails the check with the input tried, the error, and the learner's
  own line that raised it (``learner_line``).
"""

from __future__ import annotations

import site
import sys
import sysconfig
import traceback
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from tinyad.gradcheck import furthest_outside, gradcheck, numeric_gradient
from tinyad.graph import is_node, topo_sort
from tinyad.validation import a_type_name

INDENT = " " * 12  # where the text of each part of a message starts: "  expected: ..."
# What a check expects where the learner's code raised: the score table then shows the error.
NO_ERROR = "an answer, with no error"
# How a check cell's output begins where part of an answer goes unchecked (``not_checked``).
NOT_CHECKED_PREFIX = "not checked: "


class CheckFailed(AssertionError):
    """A failed check. Its message says what was tried, expected and got, and gives a hint;
    a notebook shows that message and nothing else (no traceback through the grading code)."""

    def _render_traceback_(self) -> list[str]:
        """The lines IPython shows for this error in place of a traceback."""
        return f"{type(self).__name__}: {self}".splitlines()


class NotStarted(NotImplementedError):
    """A blank still in place: a notebook shows only its message (which exercise, where to
    write), not the traceback through the check that called it."""

    def _render_traceback_(self) -> list[str]:
        """The lines IPython shows for this error in place of a traceback."""
        return f"{type(self).__name__}: {self}".splitlines()


def not_started(error: NotImplementedError) -> NotStarted:
    """A blank's NotImplementedError as the short error a check lets through."""
    if isinstance(error, NotStarted):
        return error
    return NotStarted(str(error) or "this exercise is not started: a blank is still in place")


def fail(what: str, tried: Any, expected: Any, got: Any, hint: str) -> None:
    """Raise the course's CheckFailed: what was checked, the input, both answers, a hint.

    A part that runs over several lines has its later lines indented under its first.
    """
    __tracebackhide__ = True
    parts = [("tried", tried), ("expected", expected), ("got", got), ("hint", hint)]
    lines = [str(what)]
    for label, text in parts:
        first, *rest = [line.rstrip() for line in str(text).splitlines()] or [""]
        lines.append(f"  {label + ':':<10}{first}")
        lines.extend(INDENT + line if line else "" for line in rest)
    raise CheckFailed("\n".join(lines))


# -- errors raised in the learner's code --

# Code that is not the learner's: tinyad itself, Python's library and the installed packages.
NOT_LEARNERS = {Path(__file__).resolve().parent.parent} | {  # tinyad/, the engine and the course
    Path(folder).resolve()
    for folder in [*(sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")),
                   *site.getsitepackages(), site.getusersitepackages()]
}


def _is_learners(filename: str) -> bool:
    """Whether code from ``filename`` is the learner's: a notebook cell or a file of their own,
    not tinyad, nor Python's library or an installed package."""
    if filename.startswith("<frozen"):
        return False
    if filename.startswith("<"):  # code made by exec, as a test runs a cell
        return True
    path = Path(filename).resolve()
    return not any(path.is_relative_to(folder) for folder in NOT_LEARNERS)


def _place(filename: str) -> str:
    """How a traceback names ``filename``: ``Cell In[4]`` for a notebook cell, else the path."""
    ipython = sys.modules.get("IPython")  # imported by the kernel when there is one
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None and hasattr(shell.compile, "format_code_name"):  # IPython 8 and later
        name = shell.compile.format_code_name(filename)
        if name:
            return " ".join(name)
    return filename


def learner_line(error: BaseException) -> str:
    """Where ``error`` was raised in the learner's code: the deepest frame of its traceback in
    the learner's code, as ``Cell In[4], line 3, in lse`` and, below, that line's source.
    Empty when no frame of the traceback is the learner's."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if _is_learners(f.filename)]
    if not frames:
        return ""
    frame = frames[-1]
    source = (frame.line or "").strip()  # from linecache, which IPython fills with each cell
    where = f"{_place(frame.filename)}, line {frame.lineno}, in {frame.name}"
    return where + (f"\n    {source}" if source else "")


# NumPy's words for a write into a read-only array ("assignment destination is read-only",
# "output array is read-only"): in a learner's code, most often a rule changing out.grad in place.
READ_ONLY = "is read-only"


def raised(error: BaseException) -> str:
    """An error of the learner's code as a check reports it: ``ValueError: ...``, then the line."""
    name = type(error).__name__
    text = f"{name}: {error}" if str(error) else name
    where = learner_line(error)
    if where and isinstance(error, ValueError) and READ_ONLY in str(error):
        where += ("\n(an array the engine hands out to be read, such as a rule's out.grad, which may be "
                  "another node's gradient too: make a new array, out.grad * mask, rather than change it)")
    return text + (f"\nin your code: {where}" if where else "")


def call_checked(fn: Callable[..., Any], *args: Any, what: str, tried: Any, hint: str,
                 **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``; an exception other than a blank's ``NotImplementedError`` (or a
    check's own failure) fails the check, naming the error and the learner's line that raised it."""
    __tracebackhide__ = True
    try:
        return fn(*args, **kwargs)
    except NotImplementedError as blank:  # the score table says "not started"
        raise not_started(blank) from None
    except CheckFailed:
        raise
    except Exception as error:  # noqa: BLE001 - any error in the learner's code is reported
        finding = raised(error)
    fail(what, tried, NO_ERROR, finding, hint)


# -- checks --


def not_checked(what: str) -> None:
    """Say that a part of the answer goes unchecked on this machine (lesson 03's PyTorch half without
    PyTorch): printed, so the cell passes and Run All goes on, in words the score table reads
    (``NOT_CHECKED_PREFIX``), so the exercise is "not checked" there rather than "passed"."""
    print(f"{NOT_CHECKED_PREFIX}{what}")


def check_started(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """Whether ``fn`` runs, where its answer may need what this machine lacks (lesson 03's PyTorch
    half without PyTorch): a blank fails as not started; any other error it raises gives False,
    to leave it unchecked; a result gives True, for the checks to compare."""
    __tracebackhide__ = True
    try:
        fn(*args, **kwargs)
    except NotImplementedError as blank:  # the score table says "not started"
        raise not_started(blank) from None
    except Exception:  # noqa: BLE001 - the answer may need what is missing: not checked here
        return False
    return True


def check(condition: bool, what: str, tried: Any, expected: Any, got: Any, hint: str) -> None:
    """Pass silently if ``condition`` is True, else fail with the four-part message.

    ``condition`` must be a bool (NumPy's included): a number such as ``nan`` is refused with a
    ``TypeError``, since whether it counts as true is not what a check means to ask.
    """
    __tracebackhide__ = True
    if not isinstance(condition, (bool, np.bool_)):
        raise TypeError(
            f"grading.check needs a bool condition, got {condition!r} (of type "
            f"{type(condition).__name__}) while checking {what}"
        )
    if not condition:
        fail(what, tried, expected, got, hint)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.number)) and not isinstance(x, bool)


def check_close(got: Any, expected: Any, what: str, tried: Any, hint: str,
                atol: float = 1e-9, rtol: float = 1e-7) -> None:
    """``got`` equals ``expected`` (a number or an array) to within ``atol + rtol * |expected|``."""
    __tracebackhide__ = True
    node = _first_node(got)
    if node is not None:
        wanted = ("an array, not a node or a tensor: the .data of a Tensor" if np.ndim(expected) > 0
                  else "a plain number, not a node or a tensor (nor a list holding one): .data of a "
                  "Value, .item() of a one-element tensor")
        fail(what, tried, expected, f"{node!r} (of type {type(node).__name__})", f"return {wanted}")
    if expected is None or got is None:
        check(got is expected, what, tried, expected, got, hint)
        return
    expected_arr = _real_array(expected)
    if expected_arr is None:  # the check cell's own slip: "1.0" would have passed an answer of 1.0
        raise TypeError(f"check_close's expected must be a number or an array of numbers, got "
                        f"{type(expected).__name__} {expected!r:.60}")
    got_arr = _real_array(got)
    if got_arr is None:
        shown = (f"an int of {len(str(abs(got)))} digits" if isinstance(got, int) and not isinstance(got, bool)
                 else f"{got!r:.80}")
        fail(what, tried, expected, f"{shown} (of type {type(got).__name__})", hint)
    if got_arr.shape != expected_arr.shape:
        fail(what, tried, f"shape {expected_arr.shape}", f"shape {got_arr.shape}", hint)
    if not np.allclose(got_arr, expected_arr, atol=atol, rtol=rtol, equal_nan=False):
        fail(what, tried, _show(expected), _show(got) + _largest_difference(got, got_arr, expected_arr,
                                                                            atol, rtol), hint)


def _largest_difference(got: Any, got_arr: np.ndarray, expected_arr: np.ndarray, atol: float,
                        rtol: float) -> str:
    """Where ``got`` is furthest outside the tolerance, and by how much: the words a learner needs
    when both answers print the same digits (a float32 slip, a last-digit rounding)."""
    with np.errstate(invalid="ignore"):  # inf - inf, where an expected inf meets -inf: nan, the worst
        allowed = atol + rtol * np.abs(expected_arr)
        difference = np.abs(got_arr - expected_arr)
        worst = furthest_outside(difference, allowed)
    where = f" at index {worst}" if got_arr.ndim else ""
    if np.isinf(expected_arr[worst]):  # no tolerance to speak of: only inf itself is close to inf
        words = f"\n({got_arr[worst]:.10g}{where}, where only {expected_arr[worst]:g} is right"
    else:
        words = f"\n(off by {difference[worst]:.3g}{where}, where {allowed[worst]:.3g} is allowed"
    dtype = getattr(got, "dtype", None)
    if dtype is not None and np.dtype(dtype) == np.float32:
        words += "; your answer is float32"
    return words + ")"


def _real_array(x: Any) -> np.ndarray | None:
    """``x`` as a float64 array if it holds only real numbers (not bools, strings or complex)."""
    try:
        array = np.asarray(x)
    except (TypeError, ValueError, RuntimeError):  # ragged lists; a torch tensor that requires grad
        return None
    if array.dtype.kind == "O":  # a list that mixes kinds: each entry must be a real number
        if not all(_is_number(v) for v in array.ravel()):
            return None
    elif array.dtype.kind not in "iuf":
        return None
    try:
        return array.astype(np.float64)
    except OverflowError:  # an int beyond any float: not the number any check expects
        return None


def _kind(x: Any) -> str:
    """What ``x`` is, with its library: "a torch Tensor", "a tinyad Tensor", "a numpy ndarray"."""
    return f"a {type(x).__module__.split('.')[0]} {type(x).__name__}"


def _first_node(x: Any) -> Any:
    """A tinyad node or a torch tensor in ``x`` (itself, or inside lists, tuples and object
    arrays), else None."""
    if is_node(x) or type(x).__module__.split(".")[0] == "torch":
        return x
    if isinstance(x, np.ndarray) and x.dtype.kind == "O":  # a check's np.array([...]) of Values
        x = x.ravel().tolist()
    if isinstance(x, (list, tuple)):
        for item in x:
            found = _first_node(item)
            if found is not None:
                return found
    return None


# An answer with more entries than this is shown by its first and last three along each axis.
SHOWN_ENTRIES = 50


def _show(x: Any) -> str:
    """An answer as a message shows it: a number to 10 digits, an array (or a list of numbers) to 6,
    a long one as its first and last entries."""
    if _is_number(x):
        return f"{float(x):.10g}"
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=6, threshold=SHOWN_ENTRIES, edgeitems=3)
    array = _real_array(x) if isinstance(x, (list, tuple)) else None
    if array is not None and array.size > SHOWN_ENTRIES:
        entries = np.array2string(array, precision=6, threshold=SHOWN_ENTRIES, edgeitems=3)
        return f"{a_type_name(x)} of shape {array.shape}: {entries}"
    shown = repr(x)
    return shown if len(shown) <= 300 else f"{shown[:300]} ... ({len(shown)} characters)"


def check_topo_order(order: Any, root: Any, hint: str) -> None:
    """``order`` holds every node reachable from ``root`` once, parents before children, root last.

    Any order with these properties passes, not only the one the engine makes.
    """
    __tracebackhide__ = True
    what = "a topological order of the graph"
    tried = f"the graph behind {root!r}"
    check(
        isinstance(order, list), what, tried, "a list of nodes", a_type_name(order),
        "return a list",
    )
    for entry in order:
        check(
            is_node(entry), what, tried, "a list of nodes", f"an entry {entry!r:.60} ({a_type_name(entry)})",
            "append the nodes themselves, not their labels or their data",
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


DEEPEST_CALLS = 200  # nested Python calls an answer may make; a recursion on a deep graph makes thousands


def call_without_recursion(fn: Callable[..., Any], *args: Any, what: str, tried: str) -> Any:
    """``fn(*args)``, failing the check if it recursed: a ``RecursionError``, or more than
    ``DEEPEST_CALLS`` nested Python calls (a recursion that raised Python's limit itself)."""
    __tracebackhide__ = True
    depth = deepest = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal depth, deepest
        if event == "call":
            depth += 1
            deepest = max(deepest, depth)
        elif event == "return":
            depth -= 1

    previous = sys.getprofile()
    sys.setprofile(count)
    recursed = error = None
    try:
        result = fn(*args)
    except RecursionError:
        recursed = "RecursionError: maximum recursion depth exceeded"
    except NotImplementedError as blank:  # the score table says "not started"
        raise not_started(blank) from None
    except Exception as caught:  # noqa: BLE001 - any other error in the learner's code is reported
        error = caught
    finally:
        sys.setprofile(previous)
    # Fail outside the except block, so the message is not buried under the traceback.
    if error is not None:
        fail(what, tried, NO_ERROR, raised(error), "the error is from your own code, at the "
             "line shown")
    if recursed is None and deepest <= DEEPEST_CALLS:
        return result
    fail(
        what,
        tried,
        f"an answer with at most {DEEPEST_CALLS} nested calls: the graph is deep, not hard",
        recursed or f"an answer, from {deepest} nested calls: a recursion as deep as the graph",
        "a recursive depth-first search makes one Python call per level of the graph; Python "
        f"stops at sys.getrecursionlimit() = {sys.getrecursionlimit()} calls, and raising that "
        "limit only moves the crash to a deeper graph (or crashes the interpreter). Keep your "
        "own stack (a list of nodes still to finish) and loop instead of recursing",
    )


def check_finite_differences(
    f: Callable[..., Any], inputs: Sequence[Any], what: str, tried: str, hint: str
) -> None:
    """``gradcheck(f, *inputs)`` passes: backward's gradients are numbers that match finite
    differences. ``tinyad.gradcheck`` computes them and fails a ``nan`` or a wrong shape; the
    scalar engine itself refuses a gradient that is nan or beyond a float."""
    __tracebackhide__ = True
    try:
        gradcheck(f, *inputs)
        finding = None
    except NotImplementedError as blank:  # the score table says "not started"
        raise not_started(blank) from None
    except AssertionError as error:  # gradcheck's own finding: it names the input and index
        finding = str(error)
    except Exception as error:  # noqa: BLE001 - an error in the learner's rule is reported
        finding = raised(error)
    if finding is not None:  # failed outside the except block: no traceback within a traceback
        fail(what, tried, "backward's gradients equal to the finite-difference slopes", finding, hint)


# -- helpers for lesson 06 --


def stretched_axes(shape: Sequence[int], out_shape: Sequence[int]) -> tuple[int, ...]:
    """The axes of ``out_shape`` that broadcasting ``shape`` to it added in front or stretched.

    A gradient of shape ``out_shape`` is summed over these axes to get back to ``shape``.
    Example: ``stretched_axes((3, 1), (2, 3, 4)) == (0, 2)``.
    """
    shape, out_shape = tuple(shape), tuple(out_shape)
    extra = len(out_shape) - len(shape)
    if extra < 0 or any(n not in (m, 1) for n, m in zip(shape, out_shape[extra:])):
        raise ValueError(f"shape {shape} does not broadcast to shape {out_shape}")
    stretched = [extra + i for i, (n, m) in enumerate(zip(shape, out_shape[extra:])) if n == 1 != m]
    return tuple(range(extra)) + tuple(stretched)


def _unsummed(expected: tuple[int, ...], got: tuple[int, ...]) -> str:
    """Why ``got`` is not ``expected``, when ``expected`` broadcasts to ``got``: the axes left unsummed."""
    extra = len(got) - len(expected)
    added = [a for a in stretched_axes(expected, got) if a < extra]
    # An added axis of size 1 may have been summed with keepdims=True: it is still there.
    kept = [str(a) for a in added if got[a] == 1]
    added = [str(a) for a in added if got[a] != 1]
    stretched = [str(a) for a in stretched_axes(expected, got) if a >= extra]
    parts = []
    for kind, found in (("added", added), ("stretched", stretched)):
        if found:
            axis = "axis" if len(found) == 1 else "axes"
            verb = "was" if len(found) == 1 else "were"
            parts.append(f"the {kind} {axis} {', '.join(found)} {verb} not summed")
    if kept:
        axis, verb = ("axis", "is") if len(kept) == 1 else ("axes", "are")
        parts.append(f"the added {axis} {', '.join(kept)} {verb} still there, of size 1 (summed with "
                     "keepdims=True? the gradient has the operand's own shape)")
    return " and ".join(parts)


def check_shape(got: Any, expected: Sequence[int], what: str, tried: Any, hint: str) -> None:
    """``got`` (an array, a Tensor, or a shape tuple) has shape ``expected``; an array must be finite.

    When ``expected`` broadcasts to the shape that came back, the message names the axes
    that were not summed: "got (3, 4): the stretched axis 1 was not summed".
    """
    __tracebackhide__ = True
    expected = tuple(expected)
    if got is None:
        fail(what, tried, f"shape {expected}", "None", hint)
    if isinstance(got, tuple) and all(_is_number(n) for n in got):
        if not all(isinstance(n, (int, np.integer)) and n >= 0 for n in got):
            fail(what, tried, f"shape {expected}", f"{got}, which is not a shape", hint)
        shape = tuple(int(n) for n in got)
    elif hasattr(got, "shape"):
        shape = tuple(got.shape)
        array = _real_array(got.data if is_node(got) else got)
        if array is None:  # a torch tensor that requires grad, an array of strings: no numbers to read
            fail(what, tried, f"a NumPy array of shape {expected}", f"{_kind(got)} of shape {shape}",
                 "return a NumPy array of numbers (a torch tensor's .detach().numpy())")
        if not np.isfinite(array).all():
            fail(what, tried, f"a finite array of shape {expected}",
                 f"an array of shape {shape} with {int((~np.isfinite(array)).sum())} nan or inf "
                 "entries", hint)
    else:
        fail(what, tried, f"shape {expected}", f"{got!r} (of type {type(got).__name__})",
             "return a NumPy array (or a shape, as a tuple of ints)")
    if shape == expected:
        return
    try:
        why = _unsummed(expected, shape)
    except ValueError:  # not an unsummed broadcast: perhaps summed too far
        why = ""
        if shape == tuple(n for n in expected if n != 1):
            why = "its size-1 axes were dropped (keepdims=True keeps them)"
        elif len(shape) < len(expected) and expected[len(expected) - len(shape):] == shape:
            lost = len(expected) - len(shape)
            why = ("axis 0 was summed away, but the operand has it" if lost == 1 else
                   f"axes 0 to {lost - 1} were summed away, but the operand has them")
    fail(what, tried, f"shape {expected}", f"shape {shape}" + (f": {why}" if why else ""), hint)


# -- helpers for lesson 07 --


def call_strictly(fn: Callable[..., Any], *args: Any, what: str, tried: str, hint: str,
                  **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with NumPy's overflow, divide-by-zero and invalid-value warnings as
    failures.

    Runs under ``np.errstate(all="raise", under="ignore")``: a tiny result rounding to 0 is
    correct, anything else NumPy would warn about fails the check, naming what NumPy reported;
    any other error (but a blank's) fails it as in ``call_checked``. Each names the learner's line.
    """
    __tracebackhide__ = True
    try:
        with np.errstate(all="raise", under="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            return fn(*args, **kwargs)
    except NotImplementedError as blank:  # the score table says "not started"
        raise not_started(blank) from None
    except CheckFailed:
        raise
    except (FloatingPointError, RuntimeWarning) as error:
        expected, reported = "a result with no overflow, division by zero or invalid value", (
            f"NumPy reported {raised(error)}")
    except Exception as error:  # noqa: BLE001 - any error in the learner's code is reported
        expected, reported = NO_ERROR, raised(error)
    fail(what, tried, expected, reported, hint)


def check_array_gradient(f: Callable[[np.ndarray], Any], x: Any, grad: Any, what: str, tried: str,
                         hint: str, eps: float = 1e-6, atol: float = 1e-6, rtol: float = 1e-5) -> None:
    """``grad`` is the gradient of the scalar NumPy function ``f`` at ``x``, by central differences.

    The differences are taken in float64 (``f`` is called on float64 copies of ``x``).
    """
    __tracebackhide__ = True
    point = np.array(x, dtype=np.float64)
    numeric = call_checked(numeric_gradient, f, point, eps, what=what, tried=tried, hint=hint)
    node = _first_node(grad)
    if node is not None:
        fail(what, tried, f"a NumPy array of shape {point.shape}", _kind(node),
             "return the gradient as a NumPy array: the .data of a Tensor, a torch tensor's .detach().numpy()")
    got = _real_array(grad)
    if got is None:
        fail(what, tried, f"an array of shape {point.shape}", f"{grad!r} (of type {type(grad).__name__})",
             "return the gradient: an array of real numbers in the input's shape" if grad is None
             else hint)
    check(got.shape == point.shape, what, tried, f"a gradient of shape {point.shape}",
          f"shape {got.shape}", "the gradient has one entry per input entry, in the input's shape")
    close = np.abs(got - numeric) <= atol + rtol * np.abs(numeric)  # False wherever got is nan
    if not close.all():
        first = tuple(int(i) for i in np.argwhere(~close)[0])
        fail(what, tried, f"{numeric[first]:.10g} at index {first} (finite differences)",
             f"{got[first]:.10g} at index {first}", hint)
