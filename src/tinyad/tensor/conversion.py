"""What a Tensor holds, and how numbers and arrays become it.

A leaf's data is a finite float32 or float64 array: Python's numbers and nested lists and NumPy's
arrays become a NumPy array, an array of another library stays in that library and on its
device. Integers and bools become float64 (or the dtype asked for; on a device that holds no
float64, such as Apple's GPU in PyTorch, a TypeError says to ask for float32); nan, inf, a number
too large for the dtype, a string, a ragged list or a node (whose graph a new leaf cannot carry)
is a TypeError or ValueError naming what was wrong and where.
"""

from __future__ import annotations

import numbers
from types import ModuleType
from typing import Any, NoReturn

import numpy as np

from tinyad import graph
from tinyad.validation import a_type_name, as_real, type_name
from tinyad.tensor.backend import (
    NUMPY, NUMPY_FLOAT_DTYPES, all_finite, check_holds_float64, device, dtype_name, float_dtype, is_array,
    is_float_dtype, namespace, refuse_torch_graph, to_numpy,
)

# The entries of a list that are surely not nodes, told at a glance (asking each entry whether it
# is a node costs ten times more than converting a long list of numbers): Python's numbers and
# lists; NumPy's scalars (which have a .data of their own) are told by np.generic.
PLAIN = (float, int, bool, list, tuple)
# What to write instead of Tensor(node), for a node of either engine.
NODE_DATA = {"Tensor": "t.detach() for a new leaf with the same numbers", "Value": "Tensor(v.data) for its number"}


def as_float_array(data: Any, dtype: Any = None) -> Any:
    """``data`` as a finite float32/float64 array, or a TypeError/ValueError naming the problem.

    Lists, numbers and NumPy arrays give a NumPy array; an array of another library stays in
    it (``library_array``).
    """
    if type(data) is np.ndarray and dtype is None and data.dtype in NUMPY_FLOAT_DTYPES:
        # A batch of floats, as a training loop passes on every step: asked first, as it needs
        # no conversion, only the finiteness test that the general path below ends with.
        if not all_finite(data, NUMPY):
            _refuse_non_finite(np.isfinite(data), "nan or inf")
        return data
    if not isinstance(data, (np.ndarray, numbers.Real, list, tuple)):
        if is_array(data) and namespace(data) is not NUMPY:
            return library_array(data, dtype)
        if graph.is_node(data):
            instead = NODE_DATA.get(type_name(data), "its numbers, .data")
            raise TypeError(
                f"Tensor() got {a_type_name(data)}; a new Tensor cannot carry its graph: use {instead}"
            )
    if dtype is not None:
        dtype = np.dtype(float_dtype(dtype, np))
    if data is None:
        raise TypeError("Tensor() needs numbers (a number, a nested list or an array), got None")
    if isinstance(data, (list, tuple)) and any(
        type(item) not in PLAIN and not isinstance(item, np.generic) and graph.is_node(item) for item in data
    ):
        raise TypeError(
            "Tensor() got a list of Tensors (or Values); a new Tensor cannot carry their graphs. Build "
            "it from their numbers ([t.data for t in ts]) to get a constant"
        )
    try:
        array = np.asarray(data)
    except ValueError:  # NumPy's complaint about nested lists of different lengths
        raise ValueError(
            "Tensor data must be rectangular: the nested lists have different lengths"
        ) from None
    if array.dtype.kind == "O":  # Python objects: ints beyond int64, Fractions, or not numbers
        array = _reals(array)
    kind = array.dtype.kind
    if kind in "biu":  # bool, signed and unsigned integers: friendly conversion
        target = dtype or np.dtype(np.float64)
    elif kind == "f":
        target = dtype or (array.dtype if array.dtype in NUMPY_FLOAT_DTYPES else np.dtype(np.float64))
        if not all_finite(array, NUMPY):
            _refuse_non_finite(np.isfinite(array), "nan or inf")
    else:
        raise TypeError(f"Tensor needs real numbers (a float or integer array), got dtype {array.dtype}")
    if array.dtype != target:
        with np.errstate(over="ignore"):  # an overflow is reported just below, by index
            array = array.astype(target)
        if not all_finite(array, NUMPY):  # finite before the cast: too large for float32
            _refuse_non_finite(np.isfinite(array), too_large(target, np))
    return array


def library_array(array: Any, dtype: Any = None) -> Any:
    """An array of a library other than NumPy as a finite float32/float64 array of that library,
    on its own device: the same checks and conversions as ``as_float_array``'s, in its namespace."""
    refuse_torch_graph(array, "Tensor()", "every op tinyad computes with it (requires_grad=True to tinyad's "
                       "Tensor gives a gradient)")
    xp = namespace(array)
    if xp.isdtype(array.dtype, ("bool", "integral")):
        target = float_dtype(dtype or "float64", xp)
    elif xp.isdtype(array.dtype, "real floating"):
        if dtype is not None:
            target = float_dtype(dtype, xp)
        else:
            target = array.dtype if is_float_dtype(array.dtype) else xp.float64
        if not all_finite(array, xp):
            _refuse_non_finite(to_numpy(xp.isfinite(array)), "nan or inf")
    else:
        raise TypeError(
            f"Tensor needs real numbers (a float or integer array), got dtype {dtype_name(array.dtype)}"
        )
    if array.dtype != target:
        try:
            with np.errstate(over="ignore"):  # array_api_strict casts with NumPy; too large is named below
                array = xp.astype(array, target)
        except (TypeError, ValueError, RuntimeError):  # the library's words for a dtype its device has not
            if dtype_name(target) == "float64":
                asked = f"Tensor() was asked for dtype {dtype!r}"
                made = "Tensor() makes integers float64" if dtype is None else asked
                check_holds_float64(xp, device(array, xp), made, "ask for float32, Tensor(data, dtype='float32')")
            raise
        if not all_finite(array, xp):  # finite before the cast: too large for float32
            _refuse_non_finite(to_numpy(xp.isfinite(array)), too_large(target, xp))
    return array


def too_large(dtype: Any, xp: ModuleType) -> str:
    return f"too large for {dtype_name(dtype)} (beyond about {float(xp.finfo(dtype).max):.3g})"


def _reals(array: np.ndarray) -> np.ndarray:
    """An object array's entries as float64, each taken as ``Value`` takes a number (``as_real``)."""
    floats = np.empty(array.shape)
    for index, item in np.ndenumerate(array):
        floats[index] = as_real(item, f"Tensor()'s entry at index {index}" if array.ndim else "Tensor()")
    return floats


def kind_of_list(entries: list | tuple) -> str:
    """The dtype kind NumPy gives a list of numbers ("i" for ints, "f" for floats); "f" for a ragged
    list, which ``Tensor()`` then refuses by name."""
    try:
        return np.asarray(entries).dtype.kind
    except ValueError:  # the nested lists have different lengths
        return "f"


def _refuse_non_finite(finite: np.ndarray, why: str) -> NoReturn:
    """The ValueError for data whose entries are not all finite (``finite`` is False there)."""
    bad = ~finite
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    raise ValueError(
        f"Tensor data must be finite: {int(bad.sum())} entries are {why}, the first at index {first}"
    )
