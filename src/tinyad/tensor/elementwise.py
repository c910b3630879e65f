"""Elementwise functions: ``exp``, ``log``, ``tanh``, ``relu``, ``sigmoid``.

Each maps every entry on its own, so its backward multiplies the output's
gradient entry by entry with the local derivative; no broadcasting is involved
and the gradient has the input's shape already.

Where a function can leave the real numbers it raises at once, naming how many
entries are at fault: ``exp`` where the result would overflow to inf, ``log``
where an entry is <= 0. ``sigmoid`` uses a form that never overflows.

``Tensor.exp`` and the other methods call these functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinyad.tensor.gradients import accumulate
from tinyad.tensor.numerics import exp_nonpositive

# exp(x) is finite for x up to log(largest float) and inf beyond.
_EXP_LIMIT = {
    np.dtype(dtype): float(np.log(np.finfo(dtype).max)) for dtype in (np.float32, np.float64)
}


def exp(x: Any) -> Any:
    """``e ** x``; OverflowError naming how many entries would be inf."""
    data = x.data
    limit = _EXP_LIMIT[data.dtype]
    if data.size and data.max() > limit:
        raise OverflowError(
            f"exp overflows {data.dtype} at {int((data > limit).sum())} entries (the largest "
            f"input is {data.max():.6g}; exp of more than {limit:.2f} is inf)"
        )
    return x._make(np.exp(data), (x,), "exp", _exp_backward)


def log(x: Any) -> Any:
    """The natural log; ValueError naming how many entries are <= 0 and the smallest."""
    data = x.data
    if data.size and data.min() <= 0:
        raise ValueError(
            f"log needs positive entries: {int((data <= 0).sum())} of the {data.size} entries "
            f"are <= 0 (the smallest is {data.min():.6g})"
        )
    return x._make(np.log(data), (x,), "log", _log_backward)


def tanh(x: Any) -> Any:
    """``tanh(x)``."""
    return x._make(np.tanh(x.data), (x,), "tanh", _tanh_backward)


def relu(x: Any) -> Any:
    """``max(x, 0)``."""
    return x._make(np.maximum(x.data, 0), (x,), "relu", _relu_backward)


def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))``, as ``1 / (1 + z)`` or ``z / (1 + z)`` with ``z = exp(-|x|)``."""
    data = x.data
    z = exp_nonpositive(-np.abs(data))  # in (0, 1]: exp only ever sees numbers <= 0
    y = np.where(data >= 0, 1 / (1 + z), z / (1 + z))
    return x._make(y, (x,), "sigmoid", _sigmoid_backward)


# -- backward rules: out.grad times the local derivative ------------------------------


def _exp_backward(out: Any) -> None:
    accumulate(out.parents[0], out.grad * out.data)  # d e^x / dx = e^x, the output itself


def _log_backward(out: Any) -> None:
    x = out.parents[0]
    accumulate(x, out.grad / x.data)


def _tanh_backward(out: Any) -> None:
    y = out.data
    accumulate(out.parents[0], out.grad * (1 - y * y))


def _relu_backward(out: Any) -> None:
    accumulate(out.parents[0], out.grad * (out.data > 0))


def _sigmoid_backward(out: Any) -> None:
    y = out.data
    accumulate(out.parents[0], out.grad * (y * (1 - y)))
