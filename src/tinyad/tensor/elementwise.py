"""Elementwise functions, such as ``neg``, ``exp`` and ``tanh``.

Each maps every entry on its own, so its backward multiplies the output's gradient
entry by entry with the local derivative: the rules of lesson 01, applied to a
whole array at once. No broadcasting is involved; the gradient has the input's
shape already. Each op is one block: the forward function, then its rule.

Where a function would leave the real numbers it raises at once, naming how many
entries are at fault: ``exp`` where the result would overflow to inf, ``log``
where an entry is <= 0. ``sigmoid`` uses a form that never overflows, ``stable_sigmoid``
(an array function, which the fused losses in ``functional.py`` use too).

``-t``, ``t.exp()`` and the other methods call these functions.
"""

from __future__ import annotations

import numpy as np

from tinyad.tensor.tensor import Tensor

# exp(x) is finite for x up to log(largest float) and inf beyond.
EXP_LIMIT = {
    np.dtype(dtype): float(np.log(np.finfo(dtype).max)) for dtype in (np.float32, np.float64)
}


def neg(x: Tensor) -> Tensor:
    return Tensor(-x.data, parents=(x,), op="neg", backward_rule=neg_backward)


def neg_backward(out: Tensor) -> None:
    out.parents[0].accumulate(-out.grad)


def exp(x: Tensor) -> Tensor:
    """``e ** x``; OverflowError naming how many entries would be inf."""
    limit = EXP_LIMIT[x.dtype]
    if x.size and x.data.max() > limit:
        raise OverflowError(
            f"exp overflows {x.dtype} at {int((x.data > limit).sum())} entries (the largest "
            f"input is {x.data.max():.6g}; exp of more than {limit:.2f} is inf)"
        )
    return Tensor(np.exp(x.data), parents=(x,), op="exp", backward_rule=exp_backward)


def exp_backward(out: Tensor) -> None:
    out.parents[0].accumulate(out.grad * out.data)  # d e^x / dx = e^x, the output itself


def log(x: Tensor) -> Tensor:
    """The natural log; ValueError naming how many entries are <= 0 and the smallest."""
    if x.size and x.data.min() <= 0:
        raise ValueError(
            f"log needs positive entries: {int((x.data <= 0).sum())} of the {x.size} entries "
            f"are <= 0 (the smallest is {x.data.min():.6g})"
        )
    return Tensor(np.log(x.data), parents=(x,), op="log", backward_rule=log_backward)


def log_backward(out: Tensor) -> None:
    x = out.parents[0]
    x.accumulate(out.grad / x.data)  # d log(x) / dx = 1 / x


def tanh(x: Tensor) -> Tensor:
    return Tensor(np.tanh(x.data), parents=(x,), op="tanh", backward_rule=tanh_backward)


def tanh_backward(out: Tensor) -> None:
    y = out.data
    out.parents[0].accumulate(out.grad * (1 - y * y))  # d tanh(x) / dx = 1 - tanh(x)**2


def relu(x: Tensor) -> Tensor:
    return Tensor(np.maximum(x.data, 0), parents=(x,), op="relu", backward_rule=relu_backward)


def relu_backward(out: Tensor) -> None:
    out.parents[0].accumulate(out.grad * (out.data > 0))  # slope 1 where x > 0, else 0


def stable_sigmoid(a: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-a))`` of an array, as ``1 / (1 + z)`` or ``z / (1 + z)`` with ``z = exp(-|a|)``."""
    z = np.exp(-np.abs(a))  # in [0, 1]: exp only ever sees numbers <= 0
    return np.where(a >= 0, 1 / (1 + z), z / (1 + z))


def sigmoid(x: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))`` elementwise, in the form that never overflows (``stable_sigmoid``)."""
    return Tensor(stable_sigmoid(x.data), parents=(x,), op="sigmoid", backward_rule=sigmoid_backward)


def sigmoid_backward(out: Tensor) -> None:
    y = out.data
    out.parents[0].accumulate(out.grad * (y * (1 - y)))  # d sigmoid / dx = y (1 - y)


def softplus(x: Tensor) -> Tensor:
    """``log(1 + e ** x)`` elementwise, as ``max(x, 0) + log1p(e ** -|x|)``: exp never sees x > 0."""
    data = np.maximum(x.data, 0) + np.log1p(np.exp(-np.abs(x.data)))
    return Tensor(data, parents=(x,), op="softplus", backward_rule=softplus_backward)


def softplus_backward(out: Tensor) -> None:
    x = out.parents[0]
    x.accumulate(out.grad * stable_sigmoid(x.data))  # d softplus(x) / dx = sigmoid(x)


def sin(x: Tensor) -> Tensor:
    return Tensor(np.sin(x.data), parents=(x,), op="sin", backward_rule=sin_backward)


def sin_backward(out: Tensor) -> None:
    x = out.parents[0]
    x.accumulate(out.grad * np.cos(x.data))


def cos(x: Tensor) -> Tensor:
    return Tensor(np.cos(x.data), parents=(x,), op="cos", backward_rule=cos_backward)


def cos_backward(out: Tensor) -> None:
    x = out.parents[0]
    x.accumulate(out.grad * -np.sin(x.data))
