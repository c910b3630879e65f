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

    The engine never changes a gradient in place, so a rule may pass one array
    on unchanged (``+`` hands ``out.grad`` itself to both operands) and interior
    nodes may share it. A leaf's gradient is the learner's to modify
    (``p.grad *= 0.5`` to clip it), so a leaf's first gradient is always copied:
    it never shares memory with another node's.
    """
    if grad.shape != node.data.shape:
        raise RuntimeError(f"a backward rule gave a gradient of shape {grad.shape} to a tensor of "
                           f"shape {node.data.shape}: a gradient must have its tensor's shape "
                           "(sum_to_shape sums a broadcast gradient back)")
    if grad.dtype != node.data.dtype:
        grad = grad.astype(node.data.dtype)  # a new array
    elif node.grad is None and not node.parents:
        grad = grad.copy()
    if node.grad is None:
        node.grad = grad
    else:
        node.grad = node.grad + grad
