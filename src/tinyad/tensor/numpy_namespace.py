"""NumPy's array API namespace as the array engine computes with it: NumPy itself, with the few
functions that every training step calls bound to NumPy's compiled code directly.

NumPy 2.1 and later follow the array API standard in their own namespace, so every name of
this module is NumPy's (``__getattr__``), and the ``xp`` of a Tensor that holds a NumPy array
is this module. Some of
NumPy's functions (``np.sum``, ``np.max``, ``np.all``, ``np.reshape``, ``np.astype``, ...) are
Python code that checks its arguments and hands them on (through ``__array_function__``)
before the compiled loop runs: 1 to 3 us a call, as long as the arithmetic itself on the small
arrays of a small network. Those the engine calls on every step are defined again below as
the compiled call they end in (``np.sum`` is ``np.add.reduce``), with the standard's signature
and NumPy's results. benchmarks/README.md (Array engine, "NumPy's namespace as the engine calls it")
measures what this saves: about 15 us of the small MLP's step.
"""

from __future__ import annotations

from typing import Any

import numpy as _np

__array_api_version__ = _np.__array_api_version__


def __getattr__(name: str) -> Any:
    """Any other name (``exp``, ``where``, ``float64``, ...) is NumPy's own: looked up there once,
    then kept here, so that later lookups find it directly."""
    value = getattr(_np, name)
    globals()[name] = value
    return value


def sum(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    return _np.add.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)


def max(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
    return _np.maximum.reduce(x, axis=axis, keepdims=keepdims)


def min(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
    return _np.minimum.reduce(x, axis=axis, keepdims=keepdims)


def all(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
    return _np.logical_and.reduce(x, axis=axis, keepdims=keepdims)


def any(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
    return _np.logical_or.reduce(x, axis=axis, keepdims=keepdims)


def reshape(x: Any, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Any:
    if copy is None:
        return x.reshape(shape)
    return _np.reshape(x, shape, copy=copy)


def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    return x.astype(dtype, copy=copy)


def permute_dims(x: Any, /, axes: tuple[int, ...]) -> Any:
    return x.transpose(axes)


def zeros_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
    return _np.zeros(x.shape, dtype=x.dtype if dtype is None else dtype)


def ones_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
    ones = _np.empty(x.shape, dtype=x.dtype if dtype is None else dtype)
    ones.fill(1)
    return ones


# What each kind of isdtype is in NumPy's one-letter dtype kinds.
_KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype: Any, kind: Any) -> bool:
    if isinstance(kind, str):
        return _np.dtype(dtype).kind in _KINDS[kind]
    if isinstance(kind, tuple):
        for one in kind:
            if isdtype(dtype, one):
                return True
        return False
    return _np.isdtype(dtype, kind)  # a dtype itself
