"""Reductions: ``sum``, ``mean`` and ``max`` over some axes or all of them.

A reduction maps many numbers to one, so its backward goes the other way: the
output's gradient is spread back over the axes that were reduced. ``sum`` gives
every input the full gradient, ``mean`` gives each ``1/n`` of it, and ``max`` gives
it to the entries that were the maximum. Ties: when several entries share the
maximum, the gradient is split evenly among them (as ``torch.amax`` does), so the
total is preserved and the rule does not depend on the order of the entries.

``Tensor.sum``, ``Tensor.mean`` and ``Tensor.max`` call these functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinyad.tensor.gradients import accumulate

Axis = Any  # None, an int, or a tuple of ints


def _axes(axis: Axis, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """``axis`` as a tuple of non-negative axes (``None`` for all), or ValueError naming it."""
    if axis is None:
        return None
    ndim = len(shape)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if not isinstance(axes, (tuple, list)) or not all(isinstance(a, (int, np.integer)) for a in axes):
        raise TypeError(f"axis must be None, an int or a tuple of ints, got {axis!r}")
    normal = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for a tensor of shape {shape}")
        normal.append(int(a) % ndim)
    if len(set(normal)) != len(normal):
        raise ValueError(f"axis {axis} repeats an axis")
    return tuple(normal)


def _unreduce(grad: np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...] | None,
              keepdims: bool) -> np.ndarray:
    """Put back the reduced axes as size-1 axes (if dropped), so ``grad`` broadcasts to ``shape``."""
    if keepdims:
        return grad
    if axes is None:
        return grad.reshape((1,) * len(shape))
    return np.expand_dims(grad, axes)


def sum(x: Any, axis: Axis = None, keepdims: bool = False) -> Any:
    """The sum over ``axis`` (all axes when None)."""
    axes = _axes(axis, x.shape)
    data = np.sum(x.data, axis=axes, keepdims=keepdims)
    return x._make(data, (x,), "sum", _sum_backward, (axes, keepdims))


def mean(x: Any, axis: Axis = None, keepdims: bool = False) -> Any:
    """The mean over ``axis`` (all axes when None)."""
    axes = _axes(axis, x.shape)
    count = _reduced_count(x.shape, axes)
    if count == 0:
        raise ValueError(f"mean over an empty axis of a tensor of shape {x.shape}")
    data = np.sum(x.data, axis=axes, keepdims=keepdims) / count
    return x._make(data, (x,), "mean", _mean_backward, (axes, keepdims, count))


def max(x: Any, axis: Axis = None, keepdims: bool = False) -> Any:
    """The maximum over ``axis`` (all axes when None); ties share the gradient evenly."""
    axes = _axes(axis, x.shape)
    if _reduced_count(x.shape, axes) == 0:  # max of nothing has no value (mean neither)
        raise ValueError(f"max over an empty axis of a tensor of shape {x.shape}")
    data = np.max(x.data, axis=axes, keepdims=keepdims)
    return x._make(data, (x,), "max", _max_backward, (axes, keepdims))


def _reduced_count(shape: tuple[int, ...], axes: tuple[int, ...] | None) -> int:
    """How many elements each result of a reduction over ``axes`` combines."""
    return int(np.prod(shape if axes is None else [shape[a] for a in axes]))


def _sum_backward(out: Any) -> None:
    (x,) = out.parents
    axes, keepdims = out.saved
    grad = _unreduce(out.grad, x.shape, axes, keepdims)
    accumulate(x, np.broadcast_to(grad, x.shape))


def _mean_backward(out: Any) -> None:
    (x,) = out.parents
    axes, keepdims, count = out.saved
    grad = _unreduce(out.grad, x.shape, axes, keepdims) / count
    accumulate(x, np.broadcast_to(grad, x.shape))


def _max_backward(out: Any) -> None:
    (x,) = out.parents
    axes, keepdims = out.saved
    top = _unreduce(out.data, x.shape, axes, keepdims)
    winners = x.data == top  # True where an entry equals the maximum of its slice
    ties = winners.sum(axis=axes, keepdims=True)
    grad = _unreduce(out.grad, x.shape, axes, keepdims) / ties
    accumulate(x, winners * grad)
