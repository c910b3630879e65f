"""How a gradient reaches a parent: summed back to the parent's shape, then added in.

Broadcasting stretches an operand along axes where its shape has a 1, or where it
has no axis at all: ``(3,) + (2, 3)`` uses the same three numbers in both rows.
Each number was used several times, so its gradient is the *sum* of the gradients
of all its copies. ``sum_to_shape`` undoes the stretch: it sums the gradient over
the axes that broadcasting added or stretched. Every broadcasting op's backward
rule passes its gradients through it, so after any backward
``x.grad.shape == x.shape``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def sum_to_shape(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes that broadcasting stretched, so it has ``shape``.

    Example: a gradient of shape ``(4, 2, 3)`` for an operand of shape ``(2, 1)``
    is summed over axis 0 (added in front) and axis 2 (stretched from 1 to 3).
    """
    if grad.shape == shape:
        return grad
    original = grad.shape
    extra = grad.ndim - len(shape)
    if extra < 0:
        raise ValueError(f"sum_to_shape: a gradient of shape {grad.shape} cannot have come "
                         f"from broadcasting shape {shape}")
    if extra:
        # Axes that broadcasting added in front of the operand's shape.
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    if grad.shape != shape:
        raise ValueError(f"sum_to_shape: a gradient of shape {original} cannot have come "
                         f"from broadcasting shape {shape}")
    return grad


def accumulate(node: Any, grad: np.ndarray) -> None:
    """Add ``grad`` into ``node.grad`` (``None`` means nothing yet), in ``node``'s dtype.

    Gradients are never changed in place: an op may hand the same array to two
    parents. A leaf's first gradient is copied when it is a view of another array,
    so ``x.grad`` is always an array of its own that the learner may modify.
    """
    if grad.shape != node.data.shape:
        raise RuntimeError(f"internal error: a gradient of shape {grad.shape} reached a tensor "
                           f"of shape {node.data.shape}")
    if grad.dtype != node.data.dtype:
        grad = grad.astype(node.data.dtype)
    if node.grad is None:
        if not node.parents and (grad.base is not None or not grad.flags.writeable):
            grad = grad.copy()
        node.grad = grad
    else:
        node.grad = node.grad + grad
