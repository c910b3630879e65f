"""Finite differences as the referee: does the engine's gradient match the slope?

For each input element ``x``, the central difference
``(f(x + eps) - f(x - eps)) / (2 eps)`` approximates df/dx with an error of
order ``eps**2``. ``gradcheck`` compares it with what ``backward`` computed.

``eps`` must be small (below 1) but not lost in rounding (``x + eps != x`` for every
input entry); a step that leaves the domain of ``f`` (``log`` nudged below 0) is
reported as such, with a smaller ``eps`` suggested.

A Tensor of any array library is checked the same way: the differences are taken in NumPy,
in float64, and each nudged point goes back into the input's library and onto its device
(``new_leaf``).
"""

from __future__ import annotations

import math
import numbers
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import numpy as np

from tinyad import graph
from tinyad.tensor.backend import (
    NUMPY, check_holds_float64, describe, dtype_name, is_array, library, namespace, to_numpy,
)
from tinyad.validation import a_type_name, check_function, check_setting, type_name


def _scalar(out: Any) -> float:
    """The float that ``f`` returned, which must be a single number."""
    if not graph.is_node(out):
        raise TypeError(
            f"gradcheck needs f to return a Value or a Tensor, got {type_name(out)}: compute "
            "the result with the inputs' own operations, so that it has a graph to walk"
        )
    data = out.data
    if isinstance(data, float):
        return data
    data = to_numpy(data)
    if np.size(data) != 1:
        raise ValueError(
            f"gradcheck needs f to return a single number, got shape {np.shape(data)}: "
            "reduce it first, for example with .sum()"
        )
    return float(data.reshape(()))


def _name(i: int, x: Any) -> str:
    label = getattr(x, "label", "")
    return f"input {i}" + (f" ({label!r})" if label else "")


def gradcheck(
    f: Callable[..., Any],
    *inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
) -> bool:
    """Check ``f``'s gradients with respect to every element of every input.

    ``inputs`` are ``Value``s or ``Tensor``s; ``f(*inputs)`` must return a single
    number (a ``Value``, or a ``Tensor`` of size 1). Tensor data is compared in
    float64. Returns ``True``, or raises ``AssertionError`` naming the input, the
    element with the worst mismatch, both numbers and the relative error. ``f`` is
    called on new leaves holding the inputs' data (``new_leaf``), so it must compute
    from its arguments (a result that depends on none of them is a ValueError: its check would
    compare 0 with 0); the inputs themselves are left as they were, and so are the gradients of
    the Values or Tensors ``f`` reads from outside (a model's parameters) and the graphs they belong
    to. (Not those of parameters read only inside a ``checkpoint`` block in ``f``: the block's
    recomputation during backward is the first to find them, and fills their gradients.)
    """
    check_function(f, "gradcheck")
    if not inputs:
        raise ValueError("gradcheck needs at least one input")
    eps = check_setting("gradcheck's eps", eps, low=0.0, high=1.0, low_allowed=False)  # the step
    atol = check_setting("gradcheck's atol", atol, low=0.0)
    rtol = check_setting("gradcheck's rtol", rtol, low=0.0)
    for i, x in enumerate(inputs):
        if not graph.is_node(x):
            labels = i > 0 and isinstance(x, (list, tuple, np.ndarray))  # beside the input: labels?
            raise TypeError(
                f"gradcheck's input {i} is {a_type_name(x)}: pass the Values or Tensors that "
                "f reads, for example gradcheck(f, Value(2.0)) or gradcheck(f, Tensor([1.0, 2.0]))"
                + (". gradcheck nudges every input it is given; what needs no gradient (labels, targets) "
                   "goes inside f: gradcheck(lambda z: F.cross_entropy(z, labels), logits)" if labels else "")
            )
        if x.parents:  # backward would go on into the graph behind it, and change its leaves
            raise ValueError(
                f"gradcheck's input {i} is not a leaf: it is the output of {x.op!r}. Pass a leaf, "
                "for example x.detach()"
            )
        _check_step(eps, i, x)
    # The engine's answer: one backward through new leaves holding the inputs' data (a
    # Tensor's in float64), so the inputs themselves are never touched.
    why_float64 = "gradcheck computes in float64, as finite differences need"
    on_the_cpu = "check f on the CPU, with copies of its inputs and of the tensors it reads (Tensor(t.numpy()))"
    try:
        leaves = [x.new_leaf(x.data if isinstance(x.data, float) else to_numpy(x.data).astype(np.float64))
                  for x in inputs]
    except (TypeError, ValueError, RuntimeError):  # the library's words for a dtype its device has not
        elsewhere = next((x for x in inputs if getattr(x, "xp", NUMPY) is not NUMPY), None)
        if elsewhere is not None:  # (NumPy's arrays all hold float64: their error goes on)
            check_holds_float64(elsewhere.xp, elsewhere.device, why_float64, on_the_cpu)
        raise
    for i, (x, leaf) in enumerate(zip(inputs, leaves)):
        # JAX without its float64 turned on makes float32 copies, and says nothing: finite
        # differences in float32 would fail a right gradient, so the check stops here.
        if getattr(x, "xp", NUMPY) is not NUMPY and dtype_name(leaf.dtype) != "float64":
            check_holds_float64(x.xp, x.device, why_float64, on_the_cpu)
            raise TypeError(f"{why_float64}, but {library(x.xp)} made {dtype_name(leaf.dtype)} copies of "
                            f"input {i}: {on_the_cpu}")
    try:
        out = f(*leaves)
    except TypeError as error:
        # (add_note is Python 3.11's: on 3.10 the error goes on as it is.)
        if any(getattr(x, "xp", NUMPY) is not NUMPY for x in inputs) and hasattr(error, "add_note"):
            error.add_note(
                "gradcheck called f at float64 copies of its inputs (finite differences need float64): "
                "where f's own tensors (a model's parameters) are float32, in a library whose products "
                "do not mix dtypes (PyTorch), make them float64 for the check"
            )
        raise
    first = _scalar(out)
    own, order = set(leaves), graph.topo_sort(out)
    if (out not in own and (out.parents or getattr(out, "requires_grad", True))
            and not own.intersection(order)):
        # Computed from values f reads from outside, or one of them: every slope would be 0 = 0,
        # a check of nothing, and backward would fill those values' gradients.
        what = repr(out.op) if out.op else "a leaf"
        raise ValueError(
            f"gradcheck: f's result ({what}) depends on none of its {len(inputs)} input(s): f must "
            "compute from its arguments, as in gradcheck(lambda w: loss(w), w), not from the "
            "Values or Tensors it finds outside, nor from a node made anew from their data "
            "(Tensor(x.data * 2, requires_grad=True) is a leaf of a graph of its own)"
        )
    if getattr(out, "requires_grad", True):
        with _gradients_kept(order, own):
            # f may reach into a graph of its caller's (an interior tensor it reads): not its to free.
            # (A Value's graph is never freed.)
            out.backward(**({"retain_graph": True} if hasattr(out, "requires_grad") else {}))
    # else: a Tensor that depends on no input (a constant): every gradient is 0,
    # and the finite differences below must agree.
    analytic = [_real_gradient(leaf, i, x) if leaf.has_grad() else np.zeros(np.shape(to_numpy(leaf.data)))
                for i, (leaf, x) in enumerate(zip(leaves, inputs))]

    for i, x in enumerate(inputs):
        original = leaves[i].data if isinstance(leaves[i].data, float) else to_numpy(leaves[i].data)

        def f_at(point: Any, i: int = i, x: Any = x, original: Any = original) -> float:
            """f with input ``i`` replaced by a leaf holding ``point``: what finite differences nudge."""
            nudged = [*leaves[:i], x.new_leaf(point), *leaves[i + 1:]]
            try:
                return _scalar(f(*nudged))
            except (ArithmeticError, ValueError) as error:  # f ran at x itself: the step did this
                raise _stepped_outside(error, eps, i, x, original, point) from error

        numeric = numeric_gradient(f_at, original, eps)
        if analytic[i].shape != numeric.shape:
            raise AssertionError(
                f"gradcheck: the gradient of {_name(i, x)} has shape {analytic[i].shape}, "
                f"but the input has shape {numeric.shape}"
            )
        error = np.abs(analytic[i] - numeric)
        allowed = atol + rtol * np.abs(numeric)
        # A nan anywhere fails: `error > allowed` is False for nan, so ask the opposite.
        bad = ~(error <= allowed)
        if np.any(bad):
            _check_same_each_time(first, [_scalar(f(*leaves)) for _ in range(5)])
            worst = furthest_outside(error, allowed)
            a, n = analytic[i][worst], numeric[worst]
            where = "" if numeric.shape == () else f" at index {worst}"
            raise AssertionError(
                f"gradcheck: the gradient of {_name(i, x)}{where} does not match: "
                f"backward gave {a:.10g}, finite differences give {n:.10g} "
                f"({f'relative error {abs(a - n) / abs(n):.3g}' if n else f'off by {abs(a - n):.3g}'}, "
                f"atol={atol}, rtol={rtol})" + ("" if leaves[i].has_grad() else _never_reached(i, x))
            )
    return True


def _never_reached(i: int, x: Any) -> str:
    """Why backward gave input ``i`` no gradient at all (its 0 above): f's graph does not feed it."""
    return (
        f"; backward gave {_name(i, x)} no gradient at all: no backward rule added into it. Its graph "
        "is cut: a node made by hand leaves it out of its parents (new_node(..., parents=...)), a "
        "rule adds its share into another tensor, or a Tensor made anew from its .data starts a "
        "graph of its own"
    )


def _check_same_each_time(first: float, again: list[float]) -> None:
    """A ValueError unless ``f`` gave ``first`` each time ``again`` at the same inputs: finite
    differences read a random ``f``'s noise as its slope (dropout inside ``f`` gave 700,000)."""
    for value in again:
        if value == first or math.isclose(value, first, rel_tol=1e-12) or (math.isnan(value) and math.isnan(first)):
            continue
        raise ValueError(
            f"gradcheck: f gave two different results at the same inputs ({first:.10g}, then "
            f"{value:.10g}): finite differences compare f at nearby points, so f must give the same "
            "number each time. Seed what is random inside f (dropout, a batch drawn at random) inside "
            "f, or leave it out for the check"
        )


@contextmanager
def _gradients_kept(order: list, mine: set) -> Iterator[None]:
    """Leave the gradients of every node of ``order`` (``f``'s graph) but ``f``'s own leaves ``mine``
    as they were: of what ``f`` reads from outside (a model's parameters, an interior tensor of the
    caller's graph), and of the nodes ``f`` made. gradcheck's backward fills only its own leaves',
    as a check must change nothing.

    Each gradient is taken off its node before the backward and put back after, so an in-place
    sum (a Tensor leaf's ``grad += ...``) never reaches the array it had.
    """
    others = [node for node in order if node not in mine]
    kept = [node.grad if node.has_grad() else None for node in others]
    for node in others:
        node.zero_grad()
    try:
        yield
    finally:
        for node, grad in zip(others, kept):
            node.zero_grad()
            if grad is not None:
                node.accumulate(grad)


def _real_gradient(leaf: Any, i: int, x: Any) -> np.ndarray:
    """The gradient backward gave input ``i`` as a float64 array, or an AssertionError naming what it
    is where it is no real number (a rule that set ``None``, a string, a bool or a complex number)."""
    grad = to_numpy(leaf.grad)
    if grad.dtype.kind not in "iuf":
        raise AssertionError(
            f"gradcheck: backward gave {_name(i, x)} a gradient of {type(leaf.grad).__name__} "
            f"({leaf.grad!r:.60}): a gradient is a real number (for a Tensor, an array of them), "
            "added into by the backward rules"
        )
    return np.array(grad, dtype=np.float64)


def furthest_outside(error: np.ndarray, allowed: np.ndarray) -> tuple[int, ...]:
    """The index of the entry whose ``error`` exceeds what is ``allowed`` there by the most (a nan
    error the most of all): where a mismatch is worth showing."""
    with np.errstate(invalid="ignore"):  # inf - inf: an error of inf where inf is allowed
        excess = np.where(np.isnan(error), np.inf, error - allowed)
    return tuple(int(k) for k in np.unravel_index(np.argmax(excess), excess.shape))


def _first(mask: np.ndarray) -> tuple[tuple[int, ...], str]:
    """The index of the first True entry of ``mask``, and the words " at index ..." ("" if 0-d)."""
    index = tuple(int(k) for k in np.argwhere(mask)[0])
    return index, (f" at index {index}" if mask.ndim else "")


def _check_step(eps: float, i: int, x: Any) -> None:
    """A ValueError unless ``x + eps`` and ``x - eps`` differ from every entry ``x`` of input ``i``.

    Where they do not, both sides of the central difference are ``f(x)`` and it gives 0,
    whatever the gradient is.
    """
    data = np.asarray(to_numpy(x.data), dtype=np.float64)
    lost = (data + eps == data) | (data - eps == data)
    if lost.any():
        index, where = _first(lost)
        value = float(data[index])
        raise ValueError(f"gradcheck's eps = {eps:g} is too small for {_name(i, x)}{where}: "
                         + _lost_in_rounding(eps, value))


def _lost_in_rounding(eps: float, value: float) -> str:
    """Why ``eps`` cannot nudge ``value``, and what to pass instead."""
    side = "x + eps" if value + eps == value else "x - eps"  # the spacing below a power of 2 halves
    return (
        f"x = {value:.6g}, and {side} == x in float64 (the spacing of floats there is "
        f"{np.spacing(abs(value)):.3g}), so every finite difference there would be 0. Pass an eps "
        "well above that spacing (1e-6 suits inputs of size about 1)"
    )


def _stepped_outside(error: Exception, eps: float, i: int, x: Any, original: Any,
                     point: Any) -> ValueError:
    """The error for ``f`` failing where the finite difference nudged input ``i`` to ``point``."""
    data, nudged = np.asarray(original), np.asarray(point)
    index, where = _first(nudged != data)  # the one entry nudged
    at, to = float(data[index]), float(nudged[index])
    return ValueError(
        f"gradcheck: the finite difference stepped {_name(i, x)}{where} from x = {at:.6g} to "
        f"x {'+' if to > at else '-'} eps = {to:.6g} (eps = {eps:g}), outside where f is defined: "
        f"there f raised {type(error).__name__}: {error}. Pass a smaller eps (for example "
        f"eps={eps / 100:g}), or check a point farther from the edge"
    )


def numeric_gradient(f: Callable[[Any], float], x: Any, eps: float) -> np.ndarray:
    """The gradient of ``f`` at ``x`` (a float or a NumPy array), one central difference per element.

    ``f`` is given float64 NumPy arrays (or floats): ``gradcheck`` checks a Tensor of any library.
    """
    if graph.is_node(x) or (is_array(x) and not isinstance(x, (np.ndarray, np.generic))):
        what = a_type_name(x) if graph.is_node(x) else describe(x, namespace(x))
        raise TypeError(
            f"numeric_gradient takes a number or a NumPy array, and gives f float64 NumPy arrays; got "
            f"{what}. Pass its numbers (x.data for a node's, a NumPy copy of another library's array), "
            "or gradcheck(f, x), which nudges Tensors of any library"
        )
    eps = check_setting("numeric_gradient's eps", eps, low=0.0, high=1.0, low_allowed=False)
    numeric = np.zeros(np.shape(x))
    for index in np.ndindex(numeric.shape):
        numeric[index] = central_difference(f, x, index, eps)
    return numeric


def central_difference(f: Callable[[Any], float], x: Any, index: tuple, eps: float) -> float:
    """``(f(x + eps) - f(x - eps)) / step``, nudging only ``x[index]`` (all of ``x`` for a number).

    The nudged points are float64, and ``step`` is how far apart they really are: ``2 eps`` only
    where floats lie close enough together (near 1e10 they are 2e-6 apart).
    """
    if isinstance(x, numbers.Real):
        up, down = float(x) + eps, float(x) - eps
        step = up - down
    else:
        up, down = np.array(x, dtype=np.float64), np.array(x, dtype=np.float64)
        _check_index(index, up)  # one entry: an integer for each axis
        up[index] += eps
        down[index] -= eps
        step = up[index] - down[index]
    if not step > 0:  # eps <= 0, or lost in rounding: both points would be x itself
        raise _no_step(eps, x, index)
    return (float(f(up)) - float(f(down))) / step


def _check_index(index: Any, x: np.ndarray) -> None:
    """A TypeError unless ``index`` names one entry of ``x``: a tuple of one integer per axis."""
    if (not isinstance(index, tuple) or len(index) != x.ndim
            or not all(isinstance(k, numbers.Integral) for k in index)):
        raise TypeError(
            f"central_difference nudges one entry of x: index must be a tuple of one integer for "
            f"each axis of x (shape {x.shape}), such as {(0,) * x.ndim}; got {index!r}"
        )


def _no_step(eps: Any, x: Any, index: tuple) -> ValueError:
    """The error for an ``eps`` that does not move ``x[index]``."""
    if not eps > 0:
        return ValueError(f"central_difference's eps must be > 0, got {eps!r}")
    value = float(x) if isinstance(x, numbers.Real) else float(np.asarray(x, dtype=np.float64)[index])
    where = f" at index {index}" if index else ""
    return ValueError(f"central_difference: eps = {eps:g} is too small{where}: " + _lost_in_rounding(eps, value))
