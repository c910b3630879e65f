"""``Value``: one number that remembers how it was computed.

Every operation below has the same three beats:

1. compute the forward number;
2. make the output node with its parents (in operand order) and its op name;
3. attach the local backward rule: a module-level function ``rule(out)`` that
   adds ``out.grad`` times the local derivative into each parent's ``grad``.

Nothing is computed backward until ``backward()`` runs: the forward pass only
records the graph. The walk itself lives in ``tinyad.graph``.
"""

from __future__ import annotations

import math
import numbers
from math import isfinite  # a global name: one lookup per node in _result, not two
from typing import Callable, Union

from tinyad import graph

Number = Union[int, float]


def _as_float(data: object) -> float:
    """Coerce a real number (Python or NumPy, or a size-1 array) to float, or raise TypeError."""
    if isinstance(data, Value):
        raise TypeError(
            f"Value() got a Value ({data!r}); use v.detach() for a new leaf with the same data"
        )
    if hasattr(data, "parents"):  # a node of the array engine
        raise TypeError(
            f"Value() got a {type(data).__name__}; use Value(t.item()) for the number in a "
            "one-element tensor (the graph behind it is cut off)"
        )
    if isinstance(data, numbers.Real):
        number = float(data)
    elif getattr(data, "size", None) == 1 and hasattr(data, "item"):  # a size-1 NumPy array
        return _as_float(data.item())
    else:
        size = getattr(data, "size", None)
        what = f"an array of size {size}" if size is not None else repr(data)
        raise TypeError(f"Value() needs a real number, got {type(data).__name__}: {what}")
    if not math.isfinite(number):
        raise ValueError(f"Value() needs a finite number, got {number}")
    return number


class Value:
    """A scalar with a gradient, its parents and the rule that feeds them.

    An op has one or two operands, so a node keeps its parents in two fields,
    ``_first`` and ``_second`` (``None`` where there is none), and ``parents``
    puts them together as a tuple when asked. A tuple per node would double the
    objects Python's cyclic garbage collector has to look at, and on a graph of
    many thousands of nodes that collector is where the time goes
    (benchmarks/README.md).
    """

    # No per-node __dict__: a node is seven slots and nothing more.
    __slots__ = ("data", "grad", "_first", "_second", "op", "label", "backward_rule")

    def __init__(self, data: Number, label: str = "") -> None:
        self.data: float = _as_float(data)
        self.grad: float = 0.0
        self._first: Value | None = None
        self._second: Value | None = None
        self.op: str = ""
        self.label: str = label
        self.backward_rule: Callable[[Value], None] | None = None

    def __repr__(self) -> str:
        label = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data:.6g}, grad={self.grad:.6g}{label})"

    @property
    def parents(self) -> tuple[Value, ...]:
        """The values this one was computed from, in operand order (``()`` for a leaf)."""
        if self._first is None:
            return ()
        if self._second is None:
            return (self._first,)
        return (self._first, self._second)

    # -- arithmetic -------------------------------------------------------

    def __add__(self, other: Value | Number) -> Value:
        other = _lift(other)
        if other is NotImplemented:
            return NotImplemented
        return _result(self.data + other.data, self, other, "+", _add_backward)

    def __mul__(self, other: Value | Number) -> Value:
        other = _lift(other)
        if other is NotImplemented:
            return NotImplemented
        return _result(self.data * other.data, self, other, "*", _mul_backward)

    def __pow__(self, exponent: Number) -> Value:
        if isinstance(exponent, Value) or not isinstance(exponent, numbers.Real):
            raise TypeError(
                f"Value ** exponent needs an int or float constant, got {type(exponent).__name__}"
            )
        n = exponent if isinstance(exponent, int) else float(exponent)
        x = self.data
        if x == 0.0 and n < 0:
            raise ZeroDivisionError(f"0.0 ** {n}: a negative power of zero is infinite")
        if x < 0.0 and n != int(n):
            raise ValueError(f"({x}) ** {n}: a negative number to a fractional power is not real")
        try:
            y = x**n
        except OverflowError:
            raise OverflowError(f"({x}) ** {n} overflows a float (more than about 1.8e308)") from None
        return _result(y, self, None, f"**{n}", _power_rule(n))

    def __neg__(self) -> Value:
        return _result(-self.data, self, None, "neg", _neg_backward)

    def __sub__(self, other: Value | Number) -> Value:
        return self + (-other)

    def __truediv__(self, other: Value | Number) -> Value:
        if isinstance(other, Value):
            divisor = other.data
        elif isinstance(other, numbers.Real):
            divisor = other
        else:
            return _lift(other)  # NotImplemented, or the TypeError for a Tensor
        if divisor == 0:
            raise ZeroDivisionError(f"{self!r} / {other!r}: the divisor is zero")
        return self * other**-1

    # Reflected forms, for a plain number on the left: 2 * v, 1 - v, 1 / v. The
    # number becomes the first parent, so parents keep the order written.
    def __radd__(self, other: Number) -> Value:
        other = _lift(other)
        if other is NotImplemented:
            return NotImplemented
        return other + self

    def __rmul__(self, other: Number) -> Value:
        other = _lift(other)
        if other is NotImplemented:
            return NotImplemented
        return other * self

    def __rsub__(self, other: Number) -> Value:
        other = _lift(other)
        if other is NotImplemented:
            return NotImplemented
        return other + (-self)

    def __rtruediv__(self, other: Number) -> Value:
        other = _lift(other)
        if other is NotImplemented:
            return NotImplemented
        if self.data == 0.0:
            raise ZeroDivisionError(f"{other.data!r} / {self!r}: the divisor is zero")
        return other * self**-1

    # -- functions ----------------------------------------------------------

    def tanh(self) -> Value:
        return _result(math.tanh(self.data), self, None, "tanh", _tanh_backward)

    def exp(self) -> Value:
        try:
            y = math.exp(self.data)
        except OverflowError:
            raise OverflowError(
                f"exp({self.data}) overflows a float (exp of more than about 709.78 does)"
                + (f" at the node labelled {self.label!r}" if self.label else "")
            ) from None
        return _result(y, self, None, "exp", _exp_backward)

    def log(self) -> Value:
        if self.data <= 0.0:
            raise ValueError(f"log({self.data}): log needs a positive number")
        return _result(math.log(self.data), self, None, "log", _log_backward)

    def relu(self) -> Value:
        return _result(self.data if self.data > 0.0 else 0.0, self, None, "relu", _relu_backward)

    def sigmoid(self) -> Value:
        x = self.data
        # Two forms, so that exp never sees a large positive number.
        if x >= 0.0:
            y = 1.0 / (1.0 + math.exp(-x))
        else:
            z = math.exp(x)
            y = z / (1.0 + z)
        return _result(y, self, None, "sigmoid", _sigmoid_backward)

    def detach(self) -> Value:
        """A new leaf with the same data: the graph behind ``self`` is cut off."""
        return Value(self.data, self.label)

    # -- backward -----------------------------------------------------------

    def backward(self) -> None:
        """Fill ``grad`` of every node this one depends on, by the chain rule.

        Interior gradients are reset to 0 first; leaf gradients accumulate
        across calls, as in PyTorch, until something clears them. That holds for
        a leaf calling backward on itself too: its own gradient, 1, is added.
        """
        if self.backward_rule is None:
            self.grad += 1.0
            return
        graph.backward(self, seed=1.0, interior_grad=0.0)


def _lift(other: object) -> Value:
    """A Value for the other operand: itself, a constant leaf for a number, or NotImplemented."""
    if isinstance(other, Value):
        return other
    if isinstance(other, numbers.Real):
        return Value(other)
    if hasattr(other, "parents"):  # a Tensor: the two engines' graphs do not join
        raise TypeError(
            f"a Value and a {type(other).__name__} cannot be combined: use Value(t.item()) for "
            "a one-element tensor, or make both Tensors"
        )
    return NotImplemented


def _result(
    data: float, first: Value, second: Value | None, op: str, rule: Callable[[Value], None]
) -> Value:
    """The output node of an op on ``first`` (and ``second``, for a binary op).

    Skips ``__init__``: ``data`` is a float already.
    """
    if not isfinite(data):  # the unary ops guard themselves; this catches + and *
        if second is None:
            operation = f"{op}({first.data:.6g})"
        else:
            operation = f"{first.data:.6g} {op} {second.data:.6g}"
        raise OverflowError(f"{operation} overflows a float (more than about 1.8e308)")
    out = object.__new__(Value)
    out.data = data
    out.grad = 0.0
    out._first = first
    out._second = second
    out.op = op
    out.label = ""
    out.backward_rule = rule
    return out


# -- local backward rules: each adds out.grad * d(out)/d(parent) into the parent ----


def _add_backward(out: Value) -> None:
    a, b = out._first, out._second
    a.grad += out.grad
    b.grad += out.grad


def _mul_backward(out: Value) -> None:
    a, b = out._first, out._second
    a.grad += b.data * out.grad
    b.grad += a.data * out.grad


def _neg_backward(out: Value) -> None:
    out._first.grad -= out.grad


def _power_rule(n: Number) -> Callable[[Value], None]:
    # The rule needs the exponent; the closure holds the number, never the node,
    # so the graph stays free of reference cycles.
    def _pow_backward(out: Value) -> None:
        a = out._first
        if n == 0:
            return  # x ** 0 is constant: no gradient, even at x = 0
        if a.data == 0.0 and n < 1:
            raise ZeroDivisionError(f"the derivative of x ** {n} at x = 0.0 is infinite")
        try:
            slope = n * a.data ** (n - 1)
        except OverflowError:
            raise _derivative_overflow(f"x ** {n}", a.data) from None
        a.grad += slope * out.grad

    return _pow_backward


def _derivative_overflow(function: str, x: float) -> OverflowError:
    # Only x ** n and log have derivatives that grow without bound on finite inputs.
    return OverflowError(
        f"the derivative of {function} at x = {x:.6g} overflows a float (more than about 1.8e308)"
    )


def _tanh_backward(out: Value) -> None:
    out._first.grad += (1.0 - out.data * out.data) * out.grad


def _exp_backward(out: Value) -> None:
    out._first.grad += out.data * out.grad


def _log_backward(out: Value) -> None:
    a = out._first
    share = out.grad / a.data
    if not isfinite(share):  # a.data so close to 0 that 1 / a.data is beyond a float
        raise _derivative_overflow("log(x)", a.data)
    a.grad += share


def _relu_backward(out: Value) -> None:
    if out.data > 0.0:
        out._first.grad += out.grad


def _sigmoid_backward(out: Value) -> None:
    out._first.grad += out.data * (1.0 - out.data) * out.grad
