"""How a gradient reaches a parent: summed back to the parent's shape (then the parent's
``accumulate`` adds it in).

Broadcasting stretches an operand along axes where its shape has a 1, or where it
has no axis at all: ``(3,) + (2, 3)`` uses the same three numbers in both rows.
Each number was used several times, so its gradient is the *sum* of the gradients
of all its copies. ``sum_to_shape`` undoes the stretch: it sums the gradient over
the axes that broadcasting added or stretched. Every broadcasting op's backward
rule passes its gradients through it, so after any backward
``x.grad.shape == x.shape``.
"""

from __future__ import annotations

import numbers
from typing import Any

from tinyad import graph
from tinyad.tensor.backend import namespace


def sum_to_shape(grad: Any, shape: tuple[int, ...]) -> Any:
    """Sum ``grad`` over the axes that broadcasting stretched, so it has ``shape``.

    Example: a gradient of shape ``(4, 2, 3)`` for an operand of shape ``(2, 1)``
    is summed over axis 0 (added in front) and axis 2 (stretched from 1 to 3).
    """
    if not isinstance(shape, tuple):  # a list, or the operand itself where its shape was meant
        shape = _as_shape(shape)
    if grad.shape == shape:
        return grad
    if graph.is_node(grad):
        raise TypeError(
            "sum_to_shape sums an array, got a Tensor: a rule computes its gradients from arrays, "
            "out.grad and the parents' .data (out.grad * b.data, not out.grad * b)"
        )
    original, xp = grad.shape, namespace(grad)
    extra = grad.ndim - len(shape)
    if extra < 0:
        raise ValueError(f"sum_to_shape: a gradient of shape {grad.shape} cannot have come "
                         f"from broadcasting shape {shape}")
    if extra:
        # Axes that broadcasting added in front of the operand's shape.
        grad = xp.sum(grad, axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = xp.sum(grad, axis=stretched, keepdims=True)
    if grad.shape != shape:
        raise ValueError(f"sum_to_shape: a gradient of shape {original} cannot have come "
                         f"from broadcasting shape {shape}")
    return grad


def _as_shape(shape: Any) -> tuple[int, ...]:
    """``shape`` as a tuple of ints (from a list), or a TypeError naming what came instead."""
    if hasattr(shape, "shape"):
        what = "a Tensor" if graph.is_node(shape) else "an array"
        raise TypeError(f"sum_to_shape takes a shape, got {what} of shape {tuple(shape.shape)}: "
                        "pass its .shape (sum_to_shape(grad, b.shape))")
    if isinstance(shape, list) and all(isinstance(n, numbers.Integral) for n in shape):
        return tuple(shape)
    raise TypeError(f"sum_to_shape takes a shape, a tuple of ints such as (2, 3), got {shape!r}")
