"""Elementwise functions, such as ``neg``, ``exp`` and ``tanh``.

Each maps every entry on its own, so its backward multiplies the output's gradient
entry by entry with the local derivative: the rules of lesson 01, applied to a
whole array at once. No broadcasting is involved; the gradient has the input's
shape already. Each op is one block: the forward function, which computes the array and makes
the output node from its input (``x.new_node(data, parents=(x,), op="tanh",
backward_rule=tanh_backward)``), then its rule.

Where a function would leave the real numbers it raises at once, naming how many
entries are at fault: ``exp`` where the result would overflow to inf, ``log``
where an entry is <= 0. ``sigmoid`` uses a form that never overflows, ``stable_sigmoid``
(an array function, which the fused losses in ``functional.py`` use too).

``-t``, ``t.exp()`` and the other methods call these functions.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from tinyad.tensor.backend import check_data_set_by_hand, dtype_name, namespace

if TYPE_CHECKING:  # for the type hints only: tensor.py imports this module
    from tinyad.tensor.tensor import Tensor

# exp(x) is finite for x up to log(largest float) and inf beyond: the limit for each dtype
# met so far (NumPy's, torch's, ...), worked out once from the library's finfo.
EXP_LIMITS: dict[tuple[Any, Any], float] = {}


def exp_limit(x: Tensor) -> float:
    """The largest number of ``x``'s dtype whose exp is finite in that dtype.

    It is a number of the dtype itself, because ``x.data > limit`` compares in the array's
    dtype: float32's nearest number to log(3.4e38) = 88.7228390... is 88.7228394, just above
    it, and its exp is inf. The number below that is the limit.
    """
    key = (x.xp, x.dtype)  # libraries' dtypes are not compared with each other
    limit = EXP_LIMITS.get(key)
    if limit is None:
        check_data_set_by_hand(x)  # asked once per dtype: finfo refuses ints, which only a .data set by hand holds
        exact = math.log(float(x.xp.finfo(x.dtype).max))
        nearest = np.dtype(dtype_name(x.dtype)).type(exact)  # float32 or float64, as NumPy's
        if float(nearest) > exact:  # compared as Python floats: exactly
            nearest = np.nextafter(nearest, -np.inf, dtype=nearest.dtype)
        limit = EXP_LIMITS[key] = float(nearest)
    return limit


def neg(x: Tensor) -> Tensor:
    return x.new_node(-x.data, parents=(x,), op="neg", backward_rule=neg_backward)


def neg_backward(out: Tensor) -> None:
    out.parents[0].accumulate(-out.grad)


def exp(x: Tensor) -> Tensor:
    """``e ** x``; OverflowError naming how many entries would be inf."""
    xp, limit = x.xp, exp_limit(x)
    if x.size and xp.max(x.data) > limit:
        raise OverflowError(
            f"exp overflows {dtype_name(x.dtype)} at {int(xp.count_nonzero(x.data > limit))} entries "
            f"(the largest input is {float(xp.max(x.data)):.6g}; exp of more than {limit:.2f} is inf)"
        )
    return x.new_node(xp.exp(x.data), parents=(x,), op="exp", backward_rule=exp_backward)


def exp_backward(out: Tensor) -> None:
    out.parents[0].accumulate(out.grad * out.data)  # d e^x / dx = e^x, the output itself


# The ops whose outputs round to 0, where, and the op that gives their log without taking the log of 0.
LOG_OF = {"softmax": ("for scores far below the largest", "log_softmax(scores)"),
          "sigmoid": ("below x = -745", "log_sigmoid(x)")}


def log(x: Tensor) -> Tensor:
    """The natural log; ValueError naming how many entries are <= 0 and the smallest."""
    xp = x.xp
    if x.size and xp.min(x.data) <= 0:
        stable = (f": they are {x.op}'s output, which rounds to 0 {LOG_OF[x.op][0]}; "
                  f"tinyad.tensor.functional.{LOG_OF[x.op][1]} is its log, finite everywhere"
                  ) if x.op in LOG_OF else ""
        raise ValueError(
            f"log needs positive entries: {int(xp.count_nonzero(x.data <= 0))} of the {x.size} "
            f"entries are <= 0 (the smallest is {float(xp.min(x.data)):.6g}){stable}"
        )
    return x.new_node(xp.log(x.data), parents=(x,), op="log", backward_rule=log_backward)


def log_backward(out: Tensor) -> None:
    x = out.parents[0]
    x.accumulate(out.grad / x.data)  # d log(x) / dx = 1 / x


def tanh(x: Tensor) -> Tensor:
    return x.new_node(x.xp.tanh(x.data), parents=(x,), op="tanh", backward_rule=tanh_backward)


def tanh_backward(out: Tensor) -> None:
    y = out.data
    out.parents[0].accumulate(out.grad * (1 - y * y))  # d tanh(x) / dx = 1 - tanh(x)**2


def relu(x: Tensor) -> Tensor:
    return x.new_node(x.xp.maximum(x.data, 0.0), parents=(x,), op="relu", backward_rule=relu_backward)


def relu_backward(out: Tensor) -> None:
    slope = out.xp.astype(out.data > 0, out.dtype)  # 1 where x > 0, else 0
    out.parents[0].accumulate(out.grad * slope)


def stable_sigmoid(a: Any) -> Any:
    """``1 / (1 + exp(-a))`` of an array, as ``1 / (1 + z)`` or ``z / (1 + z)`` with ``z = exp(-|a|)``."""
    xp = namespace(a)
    z = xp.exp(-xp.abs(a))  # in [0, 1]: exp only ever sees numbers <= 0
    return xp.where(a >= 0, 1 / (1 + z), z / (1 + z))


def sigmoid(x: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))`` elementwise, in the form that never overflows (``stable_sigmoid``)."""
    return x.new_node(stable_sigmoid(x.data), parents=(x,), op="sigmoid", backward_rule=sigmoid_backward)


def sigmoid_backward(out: Tensor) -> None:
    y = out.data
    out.parents[0].accumulate(out.grad * (y * (1 - y)))  # d sigmoid / dx = y (1 - y)


def softplus(x: Tensor) -> Tensor:
    """``log(1 + e ** x)`` elementwise, as ``max(x, 0) + log1p(e ** -|x|)``: exp never sees x > 0."""
    xp = x.xp
    data = xp.maximum(x.data, 0.0) + xp.log1p(xp.exp(-xp.abs(x.data)))
    return x.new_node(data, parents=(x,), op="softplus", backward_rule=softplus_backward)


def softplus_backward(out: Tensor) -> None:
    x = out.parents[0]
    x.accumulate(out.grad * stable_sigmoid(x.data))  # d softplus(x) / dx = sigmoid(x)


def sin(x: Tensor) -> Tensor:
    return x.new_node(x.xp.sin(x.data), parents=(x,), op="sin", backward_rule=sin_backward)


def sin_backward(out: Tensor) -> None:
    x = out.parents[0]
    x.accumulate(out.grad * x.xp.cos(x.data))


def cos(x: Tensor) -> Tensor:
    return x.new_node(x.xp.cos(x.data), parents=(x,), op="cos", backward_rule=cos_backward)


def cos_backward(out: Tensor) -> None:
    x = out.parents[0]
    x.accumulate(out.grad * -x.xp.sin(x.data))
