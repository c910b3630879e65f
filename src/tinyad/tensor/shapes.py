"""Shape ops, such as ``reshape``, ``transpose`` and indexing.

They move numbers around without changing them, so their backward moves the
gradient back: ``reshape`` reshapes it to the input's shape, ``transpose`` applies
the inverse permutation, and indexing scatters it into zeros of the input's shape.
Integer-array indexing may pick the same entry twice (``x[[0, 0]]``); each pick
passes on its own gradient, so the scatter adds (``backend.scatter_add``, NumPy's
``np.add.at``) instead of assigning, and repeated indices accumulate. A library whose
scatter-add tinyad does not know (the standard has none) refuses such an index of a tensor
that needs a gradient when the index is taken, not when backward reaches it.

Each op is one block, the forward function then its rule; the forward computes the array and
makes the output node from its input (``x.new_node(data, parents=(x,), op="reshape", ...)``).
The Tensor methods of the same names, ``t.T`` and ``t[...]`` call these.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from tinyad.tensor.backend import (
    NUMPY, assign, can_scatter_add, describe, is_array, library, namespace, no_scatter_add, scatter_add, to_numpy,
)

if TYPE_CHECKING:  # for the type hints only: tensor.py imports this module
    from tinyad.tensor.tensor import Tensor


# What basic indexing is made of, with None: integers and slices.
BASIC = (int, np.integer, slice)


def reshape(x: Tensor, *shape: Any) -> Tensor:
    """The same numbers in a new shape: ``reshape(2, 3)`` or ``reshape((2, 3))``, one -1 allowed."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if not fits(shape, x.size):
        raise ValueError(f"cannot reshape a tensor of shape {x.shape} into shape {shape}")
    data = x.xp.reshape(x.data, tuple(int(n) for n in shape))
    return x.new_node(data, parents=(x,), op="reshape", backward_rule=reshape_backward)


def reshape_backward(out: Tensor) -> None:
    (x,) = out.parents
    x.accumulate(out.xp.reshape(out.grad, x.shape))


def fits(shape: tuple, size: int) -> bool:
    """Whether ``size`` numbers fill ``shape``: whole numbers >= 0, and at most one -1 for the rest."""
    if not all(isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) for n in shape):
        return False
    if any(n < -1 for n in shape) or list(shape).count(-1) > 1:
        return False
    known = math.prod(n for n in shape if n != -1)
    if -1 in shape:
        return known != 0 and size % known == 0
    return known == size


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
    return x.new_node(x.xp.permute_dims(x.data, axes), parents=(x,), op="transpose",
                      backward_rule=transpose_backward, saved=axes)


def transpose_backward(out: Tensor) -> None:
    (x,) = out.parents
    inverse = tuple(sorted(range(len(out.saved)), key=out.saved.__getitem__))  # undoes the permutation
    x.accumulate(out.xp.permute_dims(out.grad, inverse))


def getitem(x: Tensor, index: Any) -> Tensor:
    """``x[index]``: basic, integer-array and boolean-mask indexing, as in NumPy."""
    picked = every_axis(own_index(index, x))
    if x.requires_grad and not can_scatter_add(x.xp) and not picks_once(picked):
        raise no_scatter_add(library(x.xp))  # now, not after the whole forward pass
    try:
        data = x.data[picked]
    except (IndexError, ValueError, TypeError) as error:  # PyTorch's words for some: t[::-1], t["a"]
        raise IndexError(f"cannot index a tensor of shape {x.shape} with {index!r}: {error}"
                         f"{_negative_step(picked, x, error)}") from None
    return x.new_node(data, parents=(x,), op="index", backward_rule=getitem_backward, saved=picked)


def getitem_backward(out: Tensor) -> None:
    (x,) = out.parents
    index = out.saved
    grad = x.xp.zeros_like(x.data)
    if out.size == 0:
        pass  # nothing picked: zeros (array_api_strict would not assign through an empty integer array)
    elif picks_once(index):
        # Each entry picked at most once: assigning is adding to 0. A basic index drops its Nones
        # (the standard's assignment takes none; the picked entries come without those axes). One
        # with a mask keeps them: a None between the mask and another index moves the mask's axis
        # to the front in NumPy, and the same index, Nones and all, puts the gradient back.
        basic = isinstance(index, tuple) and not any(is_array(part) for part in index)
        at = tuple(part for part in index if part is not None) if basic else index
        grad = assign(grad, at, x.xp.reshape(out.grad, grad[at].shape))
    else:
        grad = scatter_add(grad, index, out.grad)
    x.accumulate(grad)


def own_index(index: Any, x: Tensor) -> Any:
    """The index with every array in it copied, into ``x``'s library and onto its device, so
    changing the caller's array later moves nothing.

    Lists become arrays (a list of bools is a mask, as in NumPy); a list or a NumPy array
    indexes a tensor of any library. A Tensor is refused: its data is float, so a mask and a
    list of indices would look the same.
    """
    if isinstance(index, tuple):
        return tuple(own_index(part, x) for part in index)
    if index is None or isinstance(index, BASIC):
        return index
    if isinstance(index, type(x)):  # a Tensor, as x is
        raise IndexError(
            "a Tensor cannot be an index: its data is float, so a mask and a list of positions "
            "would look the same. Index with a NumPy array or a list: integers pick positions, "
            "bools are a mask (t[mask.data > 0] or t[idx.data.astype(int)])"
        )
    if isinstance(index, np.generic) or not (isinstance(index, list) or is_array(index)):
        return index  # an int, a slice, None, ...
    if not isinstance(index, (list, np.ndarray)) and namespace(index) is not x.xp:
        raise IndexError(
            f"cannot index {describe(x.data, x.xp)} with {describe(index, namespace(index))}: "
            "index with a list, a NumPy array or an array of the tensor's own library"
        )
    array = np.array(index if isinstance(index, list) else to_numpy(index))  # a copy
    if array.size == 0 and array.dtype.kind == "f":
        array = array.astype(np.intp)  # an empty list selects nothing (NumPy reads it as float)
    elif array.dtype.kind not in "biu":
        raise IndexError(f"an index array must hold integers or bools, got dtype {array.dtype}")
    return array if x.xp is NUMPY else x.xp.asarray(array, device=x.device)


def every_axis(index: Any) -> Any:
    """Basic indexing with a trailing ``...``: the standard asks an index to name every axis
    (NumPy fills in the rest itself), and ``...`` stands for those not named. An index with
    arrays in it is left as it is."""
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if not (part is None or isinstance(part, BASIC)):
            return index  # a ``...`` already, or an array
    return (*parts, Ellipsis)


def picks_once(index: Any) -> bool:
    """True for an index that picks each entry at most once: basic indexing (ints, bools, slices,
    None, ...) with at most one boolean mask or empty array among them. Integer arrays may pick
    an entry twice."""
    parts = index if isinstance(index, tuple) else (index,)
    masks = 0
    for part in parts:
        if part is None or part is Ellipsis or isinstance(part, (slice, int, np.integer, np.bool_)):
            continue
        if is_array(part):
            if namespace(part).isdtype(part.dtype, "bool"):
                masks += 1
                continue
            if math.prod(part.shape) == 0:  # picks nothing
                continue
        return False
    return masks <= 1


def _negative_step(index: Any, x: Tensor, error: Exception) -> str:
    """A hint where the library refused a slice's negative step (PyTorch: "step must be greater
    than zero"), which NumPy takes."""
    parts = index if isinstance(index, tuple) else (index,)
    negative = any(isinstance(p, slice) and p.step is not None and p.step < 0 for p in parts)
    if x.xp is NUMPY or not negative or "step" not in str(error):
        return ""
    return (f" ({library(x.xp)} takes no negative step in a slice, where NumPy does: reverse with an "
            "index array, t[list(range(t.shape[0] - 1, -1, -1))] for the first axis)")
