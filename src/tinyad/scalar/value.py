"""``Value``: one number that remembers how it was computed.

Every operation has the same three beats, and its local backward rule sits right
below it:

1. compute the forward number;
2. make the output node: ``Value(number, "", parents, op, backward_rule)``;
3. the rule, ``rule(out)``, adds ``out.grad`` times the local derivative into each
   parent's ``grad``. It runs later, when ``backward()`` walks the graph.

Nothing is computed backward until ``backward()`` runs: the forward pass only
records the graph. The walk itself lives in ``tinyad.graph``.

``Value.__init__`` is the one constructor: every Value, leaf or output, is made there and
nowhere else sets its fields. A learner's ``Value(2.0)`` is a leaf, and its number is
checked (a finite real number). An op passes its output's number, an empty label, the
``parents``, ``op``, ``backward_rule`` (and ``saved``, what the rule needs beyond the
parents), in that order, and the constructor checks that the result is still finite (an
overflow is an error that names the operation, never a silent inf). A plain number on
either side of an operator becomes a constant leaf. NumPy's functions of a Value (``np.tanh(v)``)
see only its number, so each is an error naming the Value's op to write instead (``v.tanh()``).

Two choices here are for speed, and benchmarks/README.md measures both: the ops pass their
arguments by position (Python passes keywords through a dict, which an op would build for
every node), and a node keeps its one or two parents in two fields, ``first`` and
``second``, with ``parents`` the tuple made from them when asked (a stored tuple would be a
second object per node for Python's garbage collector to scan).

Contents: the operators ``+ * / **`` and unary ``-`` (``a - b`` is ``a + (-b)``), then the
functions (``tanh``, ``exp`` and the others), each op followed by its ``*_backward`` rule;
``detach``; ``backward``.
"""

from __future__ import annotations

import math
import numbers
import sys
from math import isfinite
from typing import Any, Callable, Union

from tinyad import graph
from tinyad.validation import (
    a_type_name, as_real, instead_of_numpy, numpy_operator, numpy_refused, too_large_for_float, type_name, ufunc_name,
)

Number = Union[int, float]
Rule = Callable[["Value"], None]

EXP_LIMIT = math.log(1.7976931348623157e308)  # about 709.78: exp of more is beyond a float


class Value:
    """A number with a gradient, its parents and the rule that feeds them.

    ``Value(2.0)`` or ``Value(2.0, "x")`` is a leaf; an op makes its output with the
    ``parents`` it was computed from (one or two values), its ``op`` and its rule.
    """

    # No per-node __dict__: a node is these eight slots and nothing more.
    __slots__ = ("data", "grad", "first", "second", "op", "label", "backward_rule", "saved")

    def __init__(
        self,
        data: Number,
        label: str = "",
        parents: tuple[Value, ...] = (),
        op: str = "",
        backward_rule: Rule | None = None,
        saved: object = None,
    ) -> None:
        if not parents:
            data = as_float(data)  # a leaf: a finite real number, or a clear error
        elif not isfinite(data) or backward_rule is None or len(parents) > 2:
            raise op_error(op, parents, backward_rule)  # what is wrong, by name
        self.data = data
        self.grad = 0.0
        # The parents (none, one, or two) in two fields rather than the tuple itself: one
        # object per node instead of two for Python's garbage collector to scan.
        self.first = parents[0] if parents else None
        self.second = parents[1] if len(parents) == 2 else None
        self.op = op
        self.label = label
        self.backward_rule = backward_rule
        self.saved = saved

    @property
    def parents(self) -> tuple[Value, ...]:
        """The values this one was computed from, in operand order: ``()`` for a leaf."""
        if self.first is None:
            return ()
        if self.second is None:
            return (self.first,)
        return (self.first, self.second)

    # -- what the walk asks of a node (tinyad.graph.Node) ------------------------

    def zero_grad(self) -> None:
        """Forget the gradient: a Value's empty gradient is 0.0."""
        self.grad = 0.0

    def has_grad(self) -> bool:
        """Always: a Value's gradient is a number from its creation (0.0 is a gradient of zero)."""
        return True

    def accumulate(self, grad: float) -> None:
        """Add ``grad`` into this node's gradient."""
        self.grad += grad

    def release(self) -> None:
        """Nothing to let go of: the scalar engine keeps its graph after backward."""

    def new_leaf(self, data: Number) -> Value:
        """A leaf holding ``data``, with this one's label (gradcheck's nudged inputs)."""
        return Value(data, self.label)

    def __repr__(self) -> str:
        label = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data:.6g}, grad={self.grad:.6g}{label})"

    def __format__(self, spec: str) -> str:
        """``f"{loss:.4f}"`` formats the number, as for a float; ``f"{v}"`` is the repr."""
        return format(self.data, spec) if spec else repr(self)

    # -- what a Value is not: a float, or something with an order -----------------
    # Python's own words ("must be real number, not Value") do not say what to write instead.

    def __float__(self) -> float:
        raise TypeError(
            "float() of a Value: use v.data for its number (no gradient flows through it), and "
            "v.exp(), v.tanh(), v.log() rather than math's functions, which see only a number; for a "
            "list of Values given to NumPy or matplotlib (losses kept as Values), [v.data for v in values]. "
            "Raised by an op, it means an operand's .data is itself a Value: p.data = p - lr * p.grad "
            "makes one (write p.data = p.data - lr * p.grad)"
        )

    def __lt__(self, other: object) -> bool:
        raise TypeError(
            "Values have no order: compare their numbers, a.data < b.data (no gradient flows "
            "through a comparison); max(0, v) is v.relu()"
        )

    __le__ = __gt__ = __ge__ = __lt__

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy's functions see numbers, not a Value's graph: ``np.tanh(v)`` is refused by name. An
        operator with a Value on the right goes on to the Value, as for a number: ``x * v`` with
        ``x`` a NumPy number is ``v.__rmul__(x)``, and ``array + v`` is refused there by name
        instead of becoming an array of Values."""
        reflected = numpy_operator(self, ufunc, method, inputs, kwargs)
        if reflected:
            return getattr(self, reflected)(inputs[0])
        if ufunc.__name__ in ("equal", "not_equal"):  # no == of its own: Python's, by identity
            return ufunc.__name__ == "not_equal"  # an array or a NumPy number is not this Value
        name = ufunc_name(ufunc, method)
        raise numpy_refused("Value", f"np.{name} of a Value", instead_of_numpy(Value, name, "v"),
                            "v.data for its number, a constant")

    # -- arithmetic -------------------------------------------------------------

    def __add__(self, other: Value | Number) -> Value:
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, "", (self, other), "+", Value.add_backward)

    @staticmethod
    def add_backward(out: Value) -> None:
        a, b = out.first, out.second
        a.grad += out.grad  # d(a + b)/da = 1
        b.grad += out.grad  # d(a + b)/db = 1

    def __mul__(self, other: Value | Number) -> Value:
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, "", (self, other), "*", Value.mul_backward)

    @staticmethod
    def mul_backward(out: Value) -> None:
        a, b = out.first, out.second
        a.grad += b.data * out.grad  # d(a * b)/da = b
        b.grad += a.data * out.grad  # d(a * b)/db = a

    def __pow__(self, exponent: Number) -> Value:
        """``self ** n`` for a constant number ``n``."""
        n = check_exponent(self.data, exponent)
        return Value(power(self.data, n), "", (self,), f"**{n}", Value.pow_backward, n)

    @staticmethod
    def pow_backward(out: Value) -> None:
        a = out.first
        n = out.saved
        if out.grad:  # where no gradient arrives, the slope (infinite for a ** 0.5 at 0) does not matter
            a.grad += power_slope(a.data, n) * out.grad  # d(a ** n)/da = n * a ** (n - 1)

    def __neg__(self) -> Value:
        return Value(-self.data, "", (self,), "neg", Value.neg_backward)

    @staticmethod
    def neg_backward(out: Value) -> None:
        a = out.first
        a.grad -= out.grad  # d(-a)/da = -1

    def __sub__(self, other: Value | Number) -> Value:
        # A number is negated as a number: v - 1 is v + (-1), a constant leaf, not a neg node.
        return self + (-other if isinstance(other, Value) else -as_float(other))

    def __truediv__(self, other: Value | Number) -> Value:
        # An op of its own, not a * b**-1: 3 / 10 is then 0.3, as in Python, not 0.30000000000000004,
        # and a quotient that fits a float is computed even where 1 / b would not (1e-100 / 1e-310).
        # A number divisor is kept with the node, as **'s exponent is: a constant leaf would take
        # the gradient -out / b, which may overflow where no one asked for it.
        if not isinstance(other, Value):
            divisor = as_float(other)
            if divisor == 0.0:
                raise ZeroDivisionError(f"{self!r} / {other!r}: the divisor is zero")
            return Value(self.data / divisor, "", (self,), f"/{divisor:g}", Value.div_backward, divisor)
        if other.data == 0.0:
            raise ZeroDivisionError(f"{self!r} / {other!r}: the divisor is zero")
        return Value(self.data / other.data, "", (self, other), "/", Value.div_backward)

    @staticmethod
    def div_backward(out: Value) -> None:
        a, b = out.first, out.second
        if b is None:  # a number divisor, kept in saved
            a.grad += out.grad / out.saved
            return
        if _is_zero(b.data):  # its data set to 0 by hand since the forward pass
            raise ZeroDivisionError(f"the derivative of a / b at b = 0.0 is infinite ({b!r} was set to 0 after "
                                    "a / b)")
        a.grad += out.grad / b.data  # d(a / b)/da = 1 / b
        b.grad -= divisor_slope(out.grad, out.data, b.data)  # d(a / b)/db = -a / b**2 = -out / b

    # ``p -= lr * p.grad`` on a parameter would make a new node named p and leave the parameter's
    # number as it was, silently: with a number on the right, a leaf refuses. (``total += loss``,
    # a Value on the right, sums losses as a new node, as it should.)
    def __iadd__(self, other: Value | Number) -> Value:
        refuse_rebinding(self, other, "+=")
        return self + other

    def __isub__(self, other: Value | Number) -> Value:
        refuse_rebinding(self, other, "-=")
        return self - other

    def __imul__(self, other: Value | Number) -> Value:
        refuse_rebinding(self, other, "*=")
        return self * other

    def __itruediv__(self, other: Value | Number) -> Value:
        refuse_rebinding(self, other, "/=")
        return self / other

    # A plain number on the left (2 * v, 1 - v, 1 / v) becomes the first parent,
    # so the parents keep the order written.
    def __radd__(self, other: Number) -> Value:
        return Value(other) + self

    def __rmul__(self, other: Number) -> Value:
        return Value(other) * self

    def __rsub__(self, other: Number) -> Value:
        return Value(other) - self

    def __rtruediv__(self, other: Number) -> Value:
        return Value(other) / self

    def __rpow__(self, base: Number) -> Value:
        raise TypeError(
            f"{base!r} ** a Value: a Value is raised to a number's power (v ** 2), not the other way; "
            f"for a base > 0, base ** v is (v * math.log(base)).exp(), which has a gradient"
        )

    # -- functions --------------------------------------------------------------

    def tanh(self) -> Value:
        return Value(math.tanh(self.data), "", (self,), "tanh", Value.tanh_backward)

    @staticmethod
    def tanh_backward(out: Value) -> None:
        a = out.first
        a.grad += (1.0 - out.data**2) * out.grad  # d tanh(a)/da = 1 - tanh(a)**2

    def exp(self) -> Value:
        if self.data > EXP_LIMIT:
            raise OverflowError(
                f"exp({self.data}) overflows a float (exp of more than about 709.78 does)"
                + (f" at the node labelled {self.label!r}" if self.label else "")
            )
        return Value(math.exp(self.data), "", (self,), "exp", Value.exp_backward)

    @staticmethod
    def exp_backward(out: Value) -> None:
        a = out.first
        a.grad += out.data * out.grad  # d exp(a)/da = exp(a), the output itself

    def log(self) -> Value:
        if self.data <= 0.0:
            stable = (": sigmoid rounds to 0 below x = -745, and log(sigmoid(x)) is -(-x).softplus(), "
                      "finite for every x") if self.op == "sigmoid" else ""
            raise ValueError(f"log({self.data}): log needs a positive number{stable}")
        return Value(math.log(self.data), "", (self,), "log", Value.log_backward)

    @staticmethod
    def log_backward(out: Value) -> None:
        a = out.first
        if _is_zero(a.data):  # its data set to 0 by hand since the forward pass
            raise ZeroDivisionError(f"the derivative of log(a) at a = 0.0 is infinite ({a!r} was set to 0 after "
                                    "log)")
        a.grad += out.grad / a.data  # d log(a)/da = 1 / a

    def relu(self) -> Value:
        y = self.data if self.data > 0.0 else 0.0
        return Value(y, "", (self,), "relu", Value.relu_backward)

    @staticmethod
    def relu_backward(out: Value) -> None:
        a = out.first
        if out.data > 0.0:  # slope 1 where a > 0, else 0
            a.grad += out.grad

    def sigmoid(self) -> Value:
        return Value(stable_sigmoid(self.data), "", (self,), "sigmoid", Value.sigmoid_backward)

    @staticmethod
    def sigmoid_backward(out: Value) -> None:
        a = out.first
        a.grad += out.data * (1.0 - out.data) * out.grad  # d sigmoid(a)/da = s (1 - s)

    def softplus(self) -> Value:
        """``log(1 + e**x)``, as ``max(x, 0) + log1p(e**-|x|)``: exp never sees a positive number."""
        x = self.data
        y = max(x, 0.0) + math.log1p(math.exp(-abs(x)))
        return Value(y, "", (self,), "softplus", Value.softplus_backward)

    @staticmethod
    def softplus_backward(out: Value) -> None:
        a = out.first
        a.grad += stable_sigmoid(a.data) * out.grad  # d softplus(a)/da = sigmoid(a)

    def sin(self) -> Value:
        return Value(periodic(math.sin, self), "", (self,), "sin", Value.sin_backward)

    @staticmethod
    def sin_backward(out: Value) -> None:
        a = out.first
        a.grad += periodic(math.cos, a) * out.grad  # d sin(a)/da = cos(a)

    def cos(self) -> Value:
        return Value(periodic(math.cos, self), "", (self,), "cos", Value.cos_backward)

    @staticmethod
    def cos_backward(out: Value) -> None:
        a = out.first
        a.grad += -periodic(math.sin, a) * out.grad  # d cos(a)/da = -sin(a)

    def detach(self) -> Value:
        """A new leaf with the same data: the graph behind ``self`` is cut off."""
        return Value(self.data, self.label)

    # -- backward -----------------------------------------------------------------

    def backward(self) -> None:
        """Fill ``grad`` of every node this one depends on, by the chain rule.

        Interior gradients are reset to 0 first; leaf gradients accumulate across
        calls, as in PyTorch, until something clears them. That holds for a leaf
        calling backward on itself too: its own gradient, 1, is added.
        """
        try:
            leaves = [node for node in graph.walk(self, 1.0) if node.backward_rule is None]
        except (AttributeError, TypeError):  # a node made by hand, or a gradient set by hand?
            check_parents(self)  # if so, an error that names it
            check_gradients(self)
            raise
        check_finite(leaves)


# -- what the ops need, out of their way ------------------------------------------------


# ``node(...)``: the name the course's API notes give the one constructor. It is ``Value`` itself.
node = Value


def as_float(data: object) -> float:
    """A real number (any ``numbers.Real``, or a size-1 array) as a finite float, or a clear error.

    ``Tensor`` takes its entries the same way (``validation.as_real``).
    """
    if isinstance(data, (float, int)):  # the common case first: it is on every constant's path
        try:
            number = float(data)
        except OverflowError:  # an int beyond any float
            raise too_large_for_float(data, "Value()") from None
    elif isinstance(data, Value):
        raise TypeError(
            f"Value() got a Value ({data!r}); use v.detach() for a new leaf with the same data"
        )
    elif graph.is_node(data):  # a node of the array engine
        raise TypeError(
            f"a Value and {a_type_name(data)} cannot be combined, and Value() cannot hold one: "
            "use Value(t.item()) for the number in a one-element tensor, or make both Tensors"
        )
    elif isinstance(data, (list, tuple)) and data and all(isinstance(v, Value) for v in data):
        raise TypeError(
            f"{a_type_name(data)} of {len(data)} Value(s) where one number or Value belongs: a "
            "network's output is a list, one Value per output (model(x)[0] for the first)"
        )
    elif (getattr(data, "size", None) == 1 and hasattr(data, "item")
          and not isinstance(data, numbers.Real)):  # a size-1 NumPy array
        return as_float(data.item())
    elif isinstance(data, (list, tuple)) or len(getattr(data, "shape", ())) >= 1:  # several numbers
        what = (f"{a_type_name(data)} of {len(data)} entries" if isinstance(data, (list, tuple))
                else f"an array of shape {tuple(data.shape)}")
        raise TypeError(
            f"Value() needs one number, got {what}: a Value "
            "holds one number. A row of a batch? The scalar engine's network takes one example at a "
            "time: [model(x) for x in X]"
        )
    else:
        number = as_real(data, "Value()")  # a Fraction, a NumPy number; anything else is refused
    if not isfinite(number):
        raise ValueError(f"Value() needs a finite number, got {number}")
    return number


def op_error(op: str, parents: tuple[Value, ...], backward_rule: Rule | None) -> Exception:
    """Why an op's output cannot be made, by name: parents that are not a tuple (micrograd's order
    of arguments), no rule to feed its parents, more parents than a scalar op has operands (one or
    two), an operand set by hand to nan or inf, or a result beyond a float."""
    if not isinstance(parents, tuple):  # micrograd's order, Value(data, (x,), "tanh"), puts the op here
        return TypeError(
            f"Value(...) got parents={parents!r:.60}, {a_type_name(parents)}: an op's parents are a "
            "tuple of one or two Values, given in the order Value(data, label, parents, op, "
            "backward_rule), the label second"
        )
    if backward_rule is None:
        return TypeError(
            f"Value(...) got parents but no backward_rule for op {op!r}: an op's output needs the "
            "rule that feeds its parents (a leaf is made without parents)"
        )
    if len(parents) > 2:
        return ValueError(f"a Value has one parent or two, got {len(parents)} for op {op!r}")
    if len(parents) == 1 and op.startswith("/"):  # a number divisor, kept in the op's name: "/4"
        operation = f"{parents[0].data:.6g} / {op[1:]}"
    elif len(parents) == 1:
        operation = f"{op}({parents[0].data:.6g})"
    else:
        operation = f" {op} ".join(f"{p.data:.6g}" for p in parents)
    held = [p.data for p in parents if not isfinite(p.data)]
    if held:  # Value() and every op give finite numbers: this one was written into .data by hand
        return ValueError(f"{operation}: an operand holds {held[0]}, which only v.data = ... puts in a Value "
                          "(Value() and every op take and give finite numbers only)")
    return OverflowError(f"{operation} overflows a float (more than about 1.8e308)")


def check_exponent(x: float, exponent: object) -> Number:
    """The exponent of ``x ** exponent`` as a number, or an error saying why it cannot be."""
    if isinstance(exponent, Value) or isinstance(exponent, bool) or not isinstance(
        exponent, numbers.Real
    ):
        raise TypeError(
            f"Value ** exponent needs an int or float constant, got {type(exponent).__name__}"
        )
    n = exponent if isinstance(exponent, int) else float(exponent)
    if isinstance(n, int) and abs(n) > 2**1023:  # beyond any float: x ** n cannot be one
        raise ValueError(f"Value ** n: the exponent is an int of {len(str(abs(n)))} digits, beyond a float")
    if not isfinite(n):
        raise ValueError(f"Value ** {n}: the exponent must be a finite number")
    if x == 0.0 and n < 0:
        raise ZeroDivisionError(f"0.0 ** {n}: a negative power of zero is infinite")
    if x < 0.0 and n != int(n):
        raise ValueError(f"({x}) ** {n}: a negative number to a fractional power is not real")
    return n


def power(x: float, n: Number) -> float:
    """``x ** n``, with Python's bare overflow message replaced by one that names the operation."""
    try:
        return x**n
    except OverflowError:
        raise OverflowError(f"({x}) ** {n} overflows a float (more than about 1.8e308)") from None


def power_slope(x: float, n: Number) -> float:
    """``n * x ** (n - 1)``, the derivative of ``x ** n``; 0 for ``n == 0`` (a constant)."""
    if n == 0:
        return 0.0
    if x == 0.0 and n < 1:
        raise ZeroDivisionError(f"the derivative of x ** {n} at x = 0.0 is infinite")
    try:
        return n * x ** (n - 1)
    except OverflowError:
        raise OverflowError(
            f"the derivative of x ** {n} at x = {x:.6g} overflows a float (more than about 1.8e308)"
        ) from None


def periodic(function: Callable[[float], float], v: Value) -> float:
    """``math.sin`` or ``math.cos`` of ``v``'s number. Of an infinity, which only ``v.data = ...`` puts
    in a Value, math says no more than "math domain error"; this names the op and its operand."""
    try:
        return function(v.data)
    except ValueError:  # op_error names an operand that is not finite once it has a rule: any, here
        raise op_error(function.__name__, (v,), backward_rule=function) from None


def stable_sigmoid(x: float) -> float:
    """``1 / (1 + exp(-x))`` in the form whose exp never sees a large positive number."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def divisor_slope(g: float, out: float, b: float) -> float:
    """``g * out / b`` (out = a / b) in whichever order keeps it within the floats: ``g * (out / b)``
    overflows, or loses digits where ``out / b`` falls below the normal floats, where ``(g / b) * out``
    may not, and the other way round."""
    ratio = out / b
    first = g * ratio
    if isfinite(first) and (abs(ratio) >= sys.float_info.min or g == 0.0 or out == 0.0):
        return first
    second = (g / b) * out
    return second if isfinite(second) else first


def refuse_rebinding(v: Value, other: object, op: str) -> None:
    """A TypeError for ``p -= number`` (and ``+= *= /=``) on a leaf: it would bind the name to a new
    node and leave the leaf's number, a parameter's, as it was. A Value on the right (``total +=
    loss``) makes the new node it should; anything that is no number goes on to the op, and its
    own words."""
    if v.first is None and not isinstance(other, Value) and _is_a_number(other):
        raise TypeError(
            f"v {op} <a number> on a Value that is a leaf (a parameter, say) makes a new Value and "
            f"leaves the leaf's number as it was: to change its number, as an update does, write "
            f"v.data {op} ... (lr * v.grad is a number); for a new node, v = v {op[0]} ..."
        )


def _is_a_number(x: object) -> bool:
    """Whether ``x`` is a number as ``Value`` takes one (a NumPy scalar or 0-d array too)."""
    try:
        as_float(x)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def check_parents(root: Value, who: str = "backward") -> None:
    """A TypeError naming the first node, from ``root`` back, made with a parent that is not a
    Value (a number, None, an array) or with a rule but no parent: ``backward`` meets one only
    in a node made by hand, since every op makes a number a constant leaf first. It runs only
    after the walk has failed on such a graph, so it walks the two parent fields itself
    (``parents`` leaves out a missing first parent, and ``topo_sort`` stops at a bad one).
    ``who`` is what met the graph: ``backward``, or the course's drawing and stepper."""
    for node in graph.each_node_once(root, lambda n: [p for p in (n.first, n.second) if p is not None]):
        if node.backward_rule is not None and node.first is None:
            raise TypeError(
                f"{who}: the {node.op!r} node {node!r} has a backward_rule but its first parent "
                f"is {'None' if node.second is not None else 'missing'}: an op's output is made from "
                "one Value or two, Value(data, '', (a, b), op, rule)"
            ) from None
        for k, parent in enumerate((node.first, node.second)):
            if parent is None:
                continue
            if not isinstance(parent, Value):
                raise TypeError(
                    f"{who}: the {node.op!r} node {node!r} has parent {k} = {parent!r}, "
                    f"{a_type_name(parent)}: a node's parents are Values (make a number a "
                    "constant leaf first, Value(number), as the operators do)"
                ) from None


def check_gradients(root: Value, who: str = "backward") -> None:
    """A TypeError naming the first node, from ``root`` back, whose gradient is not a number.

    Only a gradient set by hand is one: ``p.grad = None`` is how PyTorch clears a gradient, and
    a rule's ``a.grad += ...`` then fails with Python's words. Like ``check_parents``, backward
    runs it only after the walk has failed (by then the walk has reset every interior node's
    gradient, so it names a leaf); the course's stepper runs it first, as it puts every
    gradient back after its walk. ``who`` is what met the graph."""
    for node in graph.topo_sort(root):
        if not _is_number(node.grad):
            raise TypeError(
                f"{who}: {_node_name(node)} has grad = {node.grad!r:.60}, {a_type_name(node.grad)}: a "
                "Value's gradient is a number, and backward adds into it; clear it with v.grad = 0.0 "
                "or the model's zero_grad() (None is how PyTorch's tensors clear theirs)"
            ) from None


def check_finite(leaves: list[Value]) -> None:
    """An error naming the first leaf whose gradient is not a finite float.

    The rules add products of finite numbers, and a product of two floats below
    1.8e308 can still exceed it: that is an OverflowError, not a silent inf. A nan
    comes from a rule that is wrong, or from an interior gradient that overflowed to
    inf and was then multiplied by 0: that is a FloatingPointError.
    """
    for leaf in leaves:
        if type(leaf.grad) is not float and not _is_number(leaf.grad):  # a float, quickly, first
            raise TypeError(
                f"backward: the gradient at {_node_name(leaf)} is {a_type_name(leaf.grad)} "
                f"({leaf.grad!r:.60}): a backward rule added {a_type_name(leaf.grad)} into it, where "
                "a number belongs (b instead of b.data, in a rule written by hand?)"
            )
        if not isfinite(leaf.grad):
            where = _node_name(leaf)
            if leaf.grad != leaf.grad:  # nan is the one float not equal to itself
                raise FloatingPointError(
                    f"backward: the gradient at {where} is not a number (nan): a backward rule "
                    "computed something undefined, or a gradient on the way overflowed to inf "
                    "and was multiplied by 0"
                )
            raise OverflowError(
                f"backward: the gradient at {where} overflows a float (more than about "
                "1.8e308): the output changes too fast with respect to it to be represented"
            )


def _is_zero(x: object) -> bool:
    """Whether ``x``, a node's data, is a number equal to 0. Asked, not left to the division to raise:
    a NumPy float set by hand divides to inf with a warning, where Python's raises."""
    return (type(x) is float or isinstance(x, numbers.Real)) and x == 0.0


def _is_number(x: object) -> bool:
    """Whether ``x`` can be a Value's gradient: an int or a float (a NumPy float is one), not a bool."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _node_name(node: Value) -> str:
    """How an error names a node: a leaf by its label or its number, an op's output by its op too."""
    kind = "leaf" if node.backward_rule is None else f"{node.op!r} node"
    return f"the {kind} labelled {node.label!r}" if node.label else f"a {kind} with data {node.data:.6g}"
