"""Shape ops: ``reshape``, ``transpose`` and indexing.

They move numbers around without changing them, so their backward moves the
gradient back: ``reshape`` reshapes it to the input's shape, ``transpose`` applies
the inverse permutation, and indexing scatters it into zeros of the input's shape.
Integer-array indexing may pick the same entry twice (``x[[0, 0]]``); each pick
passes on its own gradient, so the scatter adds (``np.add.at``) instead of
assigning, and repeated indices accumulate.

``Tensor.reshape``, ``Tensor.transpose``, ``Tensor.T`` and ``t[...]`` call these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinyad.tensor.gradients import accumulate


def reshape(x: Any, *shape: Any) -> Any:
    """The same numbers in a new shape: ``reshape(2, 3)`` or ``reshape((2, 3))``, one -1 allowed."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    try:
        data = x.data.reshape(shape)
    except (ValueError, TypeError):
        raise ValueError(f"cannot reshape a tensor of shape {x.shape} into shape {shape}") from None
    return x._make(data, (x,), "reshape", _reshape_backward)


def transpose(x: Any, *axes: Any) -> Any:
    """The axes permuted: all reversed by default, else ``axes`` is the new order."""
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    ndim = x.data.ndim
    if not axes:
        axes = tuple(reversed(range(ndim)))
    in_range = all(isinstance(a, (int, np.integer)) and -ndim <= a < ndim for a in axes)
    if not in_range or sorted(int(a) % ndim for a in axes) != list(range(ndim)):
        raise ValueError(f"transpose axes {axes} are not a permutation of the axes of shape {x.shape}")
    axes = tuple(int(a) % ndim for a in axes)
    return x._make(x.data.transpose(axes), (x,), "transpose", _transpose_backward, axes)


def _is_basic(index: Any) -> bool:
    """True for basic indexing (ints, slices, None, ...), which picks each entry at most once."""
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if part is None or part is Ellipsis or isinstance(part, slice):
            continue
        if isinstance(part, (int, np.integer)) and not isinstance(part, (bool, np.bool_)):
            continue
        return False
    return True


def _plain_index(index: Any) -> Any:
    """The index with Tensors replaced by integer arrays and lists by arrays."""
    if isinstance(index, tuple):
        return tuple(_plain_index(part) for part in index)
    if hasattr(index, "data") and isinstance(getattr(index, "data"), np.ndarray):
        index = index.data  # a Tensor used as an index: its (float) data as integers
        if not np.all(index == np.round(index)):
            raise IndexError("a Tensor used as an index must hold whole numbers")
        return index.astype(np.intp)
    if isinstance(index, list):
        array = np.asarray(index)
        # An empty list selects nothing; NumPy would read it as a float array.
        return array.astype(np.intp) if array.size == 0 else array
    return index


def getitem(x: Any, index: Any) -> Any:
    """``x[index]`` for basic and integer-array (or boolean-mask) indexing."""
    index = _plain_index(index)
    data = x.data[index]
    return x._make(data, (x,), "index", _getitem_backward, index)


def _reshape_backward(out: Any) -> None:
    (x,) = out.parents
    accumulate(x, out.grad.reshape(x.shape))


def _transpose_backward(out: Any) -> None:
    (x,) = out.parents
    accumulate(x, out.grad.transpose(np.argsort(out.saved)))


def _getitem_backward(out: Any) -> None:
    (x,) = out.parents
    index = out.saved
    grad = np.zeros_like(x.data)
    if _is_basic(index):
        grad[index] = out.grad  # each entry picked at most once: assigning is adding to 0
    else:
        np.add.at(grad, index, out.grad)
    accumulate(x, grad)
