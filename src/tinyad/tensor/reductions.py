"""Reductions, such as ``sum``, ``mean`` and ``max``, over some axes or all of them.

A reduction maps many numbers to one, so its backward goes the other way: the
output's gradient is spread back over the axes that were reduced. ``sum`` gives
every input the full gradient, ``mean`` gives each ``1/n`` of it, and ``max`` gives
it to the entries that were the maximum. Ties: when several entries share the
maximum, the gradient is split evenly among them (as ``torch.amax`` does), so the
total is preserved and the rule does not depend on the order of the entries. ``min``
is ``max`` with the library's ``min``: one forward, ``extremum``, makes both, and
``max_backward`` is the rule of both.

Each op is one block, the forward function then its rule; the forward computes the array and
makes the output node from its input (``x.new_node(data, parents=(x,), op="sum", ...)``), with
what the rule needs from it as ``saved``. ``axes``, ``unreduce`` and ``reduced_count``, the helpers they
share, come first. The Tensor methods of the same
names call these functions.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from tinyad.tensor.backend import errstate, namespace
from tinyad.validation import check_flag

if TYPE_CHECKING:  # for the type hints only: tensor.py imports this module
    from tinyad.tensor.tensor import Tensor

Axis = Any  # None, an int, or a tuple of ints


def axes(axis: Axis, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """``axis`` as a tuple of non-negative axes (``None`` for all), or an error naming it."""
    if axis is None:
        return None
    ndim = len(shape)
    chosen = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if not isinstance(chosen, (tuple, list)) or not all(
        isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in chosen
    ):
        raise TypeError(f"axis must be None, an int or a tuple of ints, got {axis!r}")
    normal = []
    for a in chosen:
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for a tensor of shape {shape}")
        normal.append(int(a) % ndim)
    if len(set(normal)) != len(normal):
        raise ValueError(f"axis {axis} repeats an axis")
    return tuple(normal)


def unreduce(grad: Any, shape: tuple[int, ...], axes: tuple[int, ...] | None, keepdims: bool) -> Any:
    """Put back the reduced axes as size-1 axes (if dropped), so ``grad`` broadcasts to ``shape``."""
    if keepdims:
        return grad
    kept = tuple(1 if axes is None or i in axes else n for i, n in enumerate(shape))
    return namespace(grad).reshape(grad, kept)


def reduced_count(shape: tuple[int, ...], axes: tuple[int, ...] | None) -> int:
    """How many elements each result of a reduction over ``axes`` combines."""
    return math.prod(shape if axes is None else [shape[a] for a in axes])


def sum(x: Tensor, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The sum over ``axis`` (all axes when None)."""
    over, keepdims = axes(axis, x.shape), check_flag(keepdims, "keepdims")
    data = x.xp.sum(x.data, axis=over, keepdims=keepdims)
    return x.new_node(data, parents=(x,), op="sum", backward_rule=sum_backward, saved=(over, keepdims))


def sum_backward(out: Tensor) -> None:
    # Every entry counted once in the sum: each gets the full gradient of its sum.
    (x,) = out.parents
    over, keepdims = out.saved
    grad = unreduce(out.grad, x.shape, over, keepdims)
    x.accumulate(x.xp.broadcast_to(grad, x.shape))


def mean(x: Tensor, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The mean over ``axis`` (all axes when None)."""
    over, keepdims = axes(axis, x.shape), check_flag(keepdims, "keepdims")
    count = reduced_count(x.shape, over)
    if count == 0:
        raise ValueError(f"mean over an empty axis of a tensor of shape {x.shape}: there is "
                         "nothing to average")
    xp = x.xp
    with errstate(over="ignore"):  # a sum beyond the float type is taken again below
        data = xp.sum(x.data, axis=over, keepdims=keepdims) / count
    if not xp.all(xp.isfinite(data)):
        # The sum overflowed, though the mean of finite numbers cannot: where it did, add the
        # entries divided by count instead. (An entry of x that is itself inf stays inf.)
        with errstate(over="ignore"):
            scaled = xp.sum(x.data / count, axis=over, keepdims=keepdims)
        data = xp.where(xp.isfinite(data), data, scaled)
    return x.new_node(data, parents=(x,), op="mean", backward_rule=mean_backward,
                      saved=(over, keepdims, count))


def mean_backward(out: Tensor) -> None:
    # Each entry is 1/count of its mean.
    (x,) = out.parents
    over, keepdims, count = out.saved
    grad = unreduce(out.grad, x.shape, over, keepdims) / count
    x.accumulate(x.xp.broadcast_to(grad, x.shape))


def max(x: Tensor, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The maximum over ``axis`` (all axes when None); ties share the gradient evenly."""
    return extremum(x, axis, keepdims, "max")


def max_backward(out: Tensor) -> None:
    # Only the entries equal to their slice's maximum moved it; tied ones share.
    (x,) = out.parents
    over, keepdims = out.saved
    xp = x.xp
    winners = xp.astype(x.data == unreduce(out.data, x.shape, over, keepdims), x.dtype)  # 1 or 0
    ties = xp.sum(winners, axis=over, keepdims=True)
    grad = unreduce(out.grad, x.shape, over, keepdims) / ties
    x.accumulate(winners * grad)


def min(x: Tensor, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The minimum over ``axis`` (all axes when None); ties share the gradient evenly."""
    return extremum(x, axis, keepdims, "min")


EXTREMA = {"max": "maximum", "min": "minimum"}


def extremum(x: Tensor, axis: Axis, keepdims: bool, op: str) -> Tensor:
    """The ``"max"`` or ``"min"`` node of ``x`` over ``axis``; either's rule is ``max_backward``.

    That rule gives the gradient to the entries equal to the result, so it serves the
    minimum as it serves the maximum, ties included.
    """
    over, keepdims = axes(axis, x.shape), check_flag(keepdims, "keepdims")
    if reduced_count(x.shape, over) == 0:
        raise ValueError(f"{op} over an empty axis of a tensor of shape {x.shape}: the {EXTREMA[op]} "
                         "of nothing has no value")
    extreme = x.xp.max if op == "max" else x.xp.min
    data = extreme(x.data, axis=over, keepdims=keepdims)
    return x.new_node(data, parents=(x,), op=op, backward_rule=max_backward, saved=(over, keepdims))
