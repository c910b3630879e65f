"""Shape ops, such as ``reshape``, ``transpose`` and indexing.

They move numbers around without changing them, so their backward moves the
gradient back: ``reshape`` reshapes it to the input's shape, ``transpose`` applies
the inverse permutation, and indexing scatters it into zeros of the input's shape.
Integer-array indexing may pick the same entry twice (``x[[0, 0]]``); each pick
passes on its own gradient, so the scatter adds (``np.add.at``) instead of
assigning, and repeated indices accumulate.

Each op is one block, the forward function then its rule. The Tensor methods of the
same names, ``t.T`` and ``t[...]`` call these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinyad.tensor.tensor import Tensor


def reshape(x: Tensor, *shape: Any) -> Tensor:
    """The same numbers in a new shape: ``reshape(2, 3)`` or ``reshape((2, 3))``, one -1 allowed."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    try:
        data = x.data.reshape(shape)
    except (ValueError, TypeError):
        raise ValueError(f"cannot reshape a tensor of shape {x.shape} into shape {shape}") from None
    return Tensor(data, parents=(x,), op="reshape", backward_rule=reshape_backward)


def reshape_backward(out: Tensor) -> None:
    (x,) = out.parents
    x.accumulate(out.grad.reshape(x.shape))


def transpose(x: Tensor, *axes: Any) -> Tensor:
    """The axes permuted: all reversed by default, else ``axes`` is the new order."""
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    ndim = x.ndim
    if not axes:
        axes = tuple(reversed(range(ndim)))
    in_range = all(isinstance(a, (int, np.integer)) and -ndim <= a < ndim for a in axes)
    if not in_range or sorted(int(a) % ndim for a in axes) != list(range(ndim)):
        raise ValueError(f"transpose axes {axes} are not a permutation of the axes of shape {x.shape}")
    axes = tuple(int(a) % ndim for a in axes)
    return Tensor(x.data.transpose(axes), parents=(x,), op="transpose",
                  backward_rule=transpose_backward, saved=axes)


def transpose_backward(out: Tensor) -> None:
    (x,) = out.parents
    x.accumulate(out.grad.transpose(np.argsort(out.saved)))


def getitem(x: Tensor, index: Any) -> Tensor:
    """``x[index]``: basic, integer-array and boolean-mask indexing, as in NumPy."""
    index = own_index(index)
    try:
        data = x.data[index]
    except IndexError as error:
        raise IndexError(f"cannot index a tensor of shape {x.shape} with {index!r}: {error}") from None
    return Tensor(data, parents=(x,), op="index", backward_rule=getitem_backward, saved=index)


def getitem_backward(out: Tensor) -> None:
    (x,) = out.parents
    index = out.saved
    grad = np.zeros_like(x.data)
    if is_basic(index):
        grad[index] = out.grad  # each entry picked at most once: assigning is adding to 0
    else:
        np.add.at(grad, index, out.grad)
    x.accumulate(grad)


def own_index(index: Any) -> Any:
    """The index with every array in it copied, so changing the caller's array later moves nothing.

    Lists become arrays (a list of bools is a mask, as in NumPy). A Tensor is refused:
    its data is float, so a mask and a list of indices would look the same.
    """
    if isinstance(index, tuple):
        return tuple(own_index(part) for part in index)
    if isinstance(index, Tensor):
        raise IndexError(
            "a Tensor cannot be an index: its data is float, so a mask and a list of positions "
            "would look the same. Index with a NumPy array or a list: integers pick positions, "
            "bools are a mask (t[mask.data > 0] or t[idx.data.astype(int)])"
        )
    if isinstance(index, (list, np.ndarray)):
        array = np.array(index)  # a copy
        if array.size == 0:
            return array.astype(np.intp)  # an empty list selects nothing (NumPy reads it as float)
        if array.dtype.kind not in "biu":
            raise IndexError(f"an index array must hold integers or bools, got dtype {array.dtype}")
        return array
    return index


def is_basic(index: Any) -> bool:
    """True for basic indexing (ints, slices, None, ...), which picks each entry at most once."""
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if part is None or part is Ellipsis or isinstance(part, slice):
            continue
        if isinstance(part, (int, np.integer)) and not isinstance(part, (bool, np.bool_)):
            continue
        return False
    return True
