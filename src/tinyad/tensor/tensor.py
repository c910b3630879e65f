"""``Tensor``: a whole NumPy array as one node of the graph.

A ``Tensor`` is to an array what ``Value`` is to a number: ``data`` (a float32 or
float64 ``ndarray``), ``grad`` (``None`` until a gradient arrives, then an array of
the same shape and dtype), its ``parents`` and a local backward rule. Every op has
the scalar engine's three beats:

1. compute the forward array with NumPy;
2. make the output node with its parents (in operand order) and its op name;
3. attach the backward rule: a module-level function ``rule(out)`` that adds
   ``out.grad`` times the local derivative into each parent that needs it,
   through ``sum_to_shape`` wherever broadcasting may have stretched a parent.

An op records a graph only when one of its inputs requires a gradient and
recording is on (it is off inside ``no_grad()``). ``backward`` hands the output to
``tinyad.graph.backward``, the same walk ``Value`` uses.

Elementwise functions (``exp``, ``log``, ``tanh``, ``relu``, ``sigmoid``) live in
``elementwise.py``, reductions (``sum``, ``mean``, ``max``) in ``reductions.py`` and
shape ops (``reshape``, ``transpose``, indexing) in ``shapes.py``; the methods here
call them.

Decisions worth knowing:

- Integer and boolean data becomes float64 (or the ``dtype`` asked for); object,
  string and complex data raise ``TypeError`` naming the dtype. A float32 or
  float64 array is used as it is, without a copy.
- Data given to ``Tensor(...)`` must be finite: nan or inf raise ``ValueError``.
  ``exp`` that would overflow raises ``OverflowError``; ``log`` of entries <= 0
  raises ``ValueError``; dividing by an array with zeros raises
  ``ZeroDivisionError``. Other overflow (``1e200 * 1e200``) follows IEEE as in NumPy.
- A leaf's ``grad`` is an array of its own, never shared with another node, so
  it may be changed in place (``p.grad *= 0.5``). A leaf that requires grad may
  call ``backward`` itself; its gradient accumulates like any leaf's.
- A Python number or an integer array next to a Tensor takes the Tensor's dtype,
  so ``2 * t`` stays float32 when ``t`` is; a float array keeps its own dtype and
  NumPy's promotion decides the result's.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Iterator, NoReturn, Sequence, Union

import numpy as np

from tinyad import graph
from tinyad.tensor import elementwise, grad_mode, reductions, shapes
from tinyad.tensor.gradients import accumulate, sum_to_shape

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
ArrayLike = Union["Tensor", np.ndarray, float, int, Sequence]
Rule = Callable[["Tensor"], None]


def _as_float_array(data: Any, dtype: Any = None) -> np.ndarray:
    """``data`` as a finite float32/float64 array, or a TypeError/ValueError naming the problem."""
    if isinstance(data, Tensor):
        raise TypeError("Tensor() got a Tensor; use t.detach() for a new leaf with the same data")
    if hasattr(data, "parents"):  # a Value: the scalar engine's node
        raise TypeError(
            f"Tensor() got a {type(data).__name__}; use Tensor(v.data) for its number (the graph "
            "behind it is cut off)"
        )
    if dtype is not None:
        dtype = np.dtype(dtype)
        if dtype not in FLOAT_DTYPES:
            raise TypeError(f"Tensor dtype must be float32 or float64, got {dtype}")
    if isinstance(data, (list, tuple)) and any(isinstance(item, Tensor) for item in data):
        raise TypeError(
            "Tensor() got a list of Tensors; a new Tensor cannot carry their graphs. Build it "
            "from their arrays ([t.data for t in ts]) to get a constant"
        )
    try:
        array = np.asarray(data)
    except ValueError:  # NumPy's complaint about nested lists of different lengths
        raise ValueError(
            "Tensor data must be rectangular: the nested lists have different lengths"
        ) from None
    kind = array.dtype.kind
    if kind in "biu":  # bool, signed and unsigned integers: friendly conversion
        target = dtype or np.dtype(np.float64)
    elif kind == "f":
        target = dtype or (array.dtype if array.dtype in FLOAT_DTYPES else np.dtype(np.float64))
    else:
        raise TypeError(
            f"Tensor needs real numbers (a float or integer array), got dtype {array.dtype}"
        )
    if not np.isfinite(array).all():
        _refuse_non_finite(array, "nan or inf")
    if array.dtype != target:
        with np.errstate(over="ignore"):  # an overflow is reported just below, by index
            array = array.astype(target)
        if not np.isfinite(array).all():  # finite before the cast: too large for float32
            _refuse_non_finite(array, f"too large for {target} (beyond about {np.finfo(target).max:.3g})")
    return array


def _refuse_non_finite(array: np.ndarray, why: str) -> NoReturn:
    bad = ~np.isfinite(array)
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    raise ValueError(
        f"Tensor data must be finite: {int(bad.sum())} entries are {why}, the first at index {first}"
    )


class Tensor:
    """An array with a gradient, its parents and the rule that feeds them."""

    __slots__ = (
        "data", "grad", "requires_grad", "parents", "op", "label", "backward_rule", "saved",
        "__weakref__",
    )
    # NumPy defers to Tensor's reflected operators: ``array + t`` calls ``t.__radd__``.
    __array_ufunc__ = None

    def __init__(
        self, data: Any, requires_grad: bool = False, dtype: Any = None, label: str = ""
    ) -> None:
        self.data: np.ndarray = _as_float_array(data, dtype)
        self.grad: np.ndarray | None = None
        self.requires_grad: bool = bool(requires_grad)
        self.parents: tuple[Tensor, ...] = ()
        self.op: str = ""
        self.label: str = label
        self.backward_rule: Rule | None = None
        self.saved: Any = None

    @staticmethod
    def _make(data: Any, parents: tuple, op: str, rule: Rule, saved: Any = None) -> Tensor:
        """The output node of an op: a graph node if a parent requires grad, else a leaf."""
        out = object.__new__(Tensor)
        out.data = data if type(data) is np.ndarray else np.asarray(data)
        out.grad = None
        out.label = ""
        record = False
        if grad_mode.enabled:
            for parent in parents:
                if parent.requires_grad:
                    record = True
                    break
        if record:
            out.requires_grad = True
            out.parents, out.op, out.backward_rule, out.saved = parents, op, rule, saved
            if grad_mode.recorded is not None:
                grad_mode.recorded.append(out)
        else:
            out.requires_grad = False
            out.parents, out.op, out.backward_rule, out.saved = (), "", None, None
        return out

    # -- what it is -----------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor: it has no axis to count or iterate; use item()")
        return len(self.data)

    def __bool__(self) -> bool:
        """The truth of a one-element tensor, as in NumPy; any other size is ambiguous."""
        if self.data.size != 1:
            raise ValueError(
                f"the truth value of a Tensor of shape {self.shape} is ambiguous: compare "
                "its item() for one element, or use t.data.any() / t.data.all()"
            )
        return bool(self.data)

    # A node hashes and compares by identity: tinyad.graph keeps nodes in sets.
    # So == cannot be NumPy's elementwise comparison; it refuses rather than
    # answer a silent False to ``t == 1``.
    __hash__ = object.__hash__

    def __eq__(self, other: Any) -> bool:
        raise TypeError(
            "tinyad Tensors have no == or !=: compare their arrays, t.data == other.data (no gradient "
            "flows through a comparison); `a is b` asks whether two tensors are the same node"
        )

    __ne__ = __eq__

    def __iter__(self) -> Iterator[Tensor]:
        """The tensors along the first axis, each a node: ``for row in t``."""
        for i in range(len(self)):  # len() of a 0-d tensor raises TypeError
            yield self[i]

    def __repr__(self) -> str:
        body = np.array2string(self.data, precision=4, separator=", ", prefix="Tensor(")
        extra = ", requires_grad=True" if self.requires_grad else ""
        if self.data.dtype != np.float64:
            extra += f", dtype={self.data.dtype}"
        return f"Tensor({body}{extra})"

    def item(self) -> float:
        """The single number in a one-element tensor, as a Python float."""
        if self.data.size != 1:
            raise ValueError(f"item() needs a tensor with one element, got shape {self.shape}")
        return float(self.data.reshape(()))

    def numpy(self) -> np.ndarray:
        """The data array itself (not a copy)."""
        return self.data

    def detach(self) -> Tensor:
        """A new leaf sharing the same data: the graph behind ``self`` is cut off."""
        return _leaf(self.data)

    # -- arithmetic: NumPy broadcasting on both sides -------------------------

    def __add__(self, other: ArrayLike) -> Tensor:
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _add(self, other)

    def __radd__(self, other: ArrayLike) -> Tensor:
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _add(other, self)

    def __sub__(self, other: ArrayLike) -> Tensor:
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _sub(self, other)

    def __rsub__(self, other: ArrayLike) -> Tensor:
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _sub(other, self)

    def __mul__(self, other: ArrayLike) -> Tensor:
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _mul(self, other)

    def __rmul__(self, other: ArrayLike) -> Tensor:
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _mul(other, self)

    def __truediv__(self, other: ArrayLike) -> Tensor:
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _div(self, other)

    def __rtruediv__(self, other: ArrayLike) -> Tensor:
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _div(other, self)

    def __matmul__(self, other: ArrayLike) -> Tensor:
        """``self @ other`` with NumPy's matmul rules (1-D, 2-D, batched)."""
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _matmul(self, other)

    def __rmatmul__(self, other: ArrayLike) -> Tensor:
        other = _lift(other, self)
        return NotImplemented if other is NotImplemented else _matmul(other, self)

    def __neg__(self) -> Tensor:
        return self._make(-self.data, (self,), "neg", _neg_backward)

    def __pow__(self, exponent: float) -> Tensor:
        """``x ** n`` for a constant number ``n``."""
        if isinstance(exponent, Tensor) or not isinstance(exponent, numbers.Real):
            raise TypeError(
                f"Tensor ** exponent needs an int or float constant, got {type(exponent).__name__}"
            )
        if isinstance(exponent, np.generic):
            exponent = exponent.item()  # a NumPy float64 exponent would promote float32 data
        n = float(exponent)
        if not np.isfinite(n):
            raise ValueError(f"x ** {exponent}: the exponent must be finite")
        x = self.data
        if n < 0 and not x.all():
            raise ZeroDivisionError(
                f"x ** {exponent}: {x.size - np.count_nonzero(x)} entries of x are 0, "
                "and a negative power of 0 is infinite"
            )
        if n != int(n) and (x < 0).any():
            raise ValueError(
                f"x ** {exponent}: {int((x < 0).sum())} entries of x are negative, "
                "and a negative number to a fractional power is not real"
            )
        return self._make(x**exponent, (self,), f"**{exponent}", _pow_backward, exponent)

    # -- elementwise functions (see elementwise.py) -----------------------------

    def exp(self) -> Tensor:
        """``e ** x`` elementwise; OverflowError where it would be inf."""
        return elementwise.exp(self)

    def log(self) -> Tensor:
        """The natural log elementwise; ValueError if any entry is <= 0."""
        return elementwise.log(self)

    def tanh(self) -> Tensor:
        """``tanh(x)`` elementwise; its derivative is ``1 - tanh(x) ** 2``."""
        return elementwise.tanh(self)

    def relu(self) -> Tensor:
        """``max(x, 0)`` elementwise; the gradient passes where ``x > 0``."""
        return elementwise.relu(self)

    def sigmoid(self) -> Tensor:
        """``1 / (1 + e ** -x)`` elementwise, in a form that never overflows."""
        return elementwise.sigmoid(self)

    # -- reductions and shapes (see reductions.py and shapes.py) --------------

    def sum(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """The sum over ``axis`` (all axes when None)."""
        return reductions.sum(self, axis, keepdims)

    def mean(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """The mean over ``axis`` (all axes when None)."""
        return reductions.mean(self, axis, keepdims)

    def max(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """The maximum over ``axis``; tied entries share the gradient evenly."""
        return reductions.max(self, axis, keepdims)

    def reshape(self, *shape: Any) -> Tensor:
        """The same numbers in a new shape: ``t.reshape(2, 3)`` or ``t.reshape((2, 3))``."""
        return shapes.reshape(self, *shape)

    def transpose(self, *axes: Any) -> Tensor:
        """The axes permuted (reversed when none are given)."""
        return shapes.transpose(self, *axes)

    @property
    def T(self) -> Tensor:
        """The transpose: all axes reversed."""
        return shapes.transpose(self)

    def __getitem__(self, index: Any) -> Tensor:
        """``t[index]``: basic and integer-array indexing; repeated indices accumulate."""
        return shapes.getitem(self, index)

    # -- backward -------------------------------------------------------------

    def backward(self, grad: ArrayLike | None = None, retain_graph: bool = False) -> None:
        """Fill ``grad`` of every leaf this tensor depends on, by the chain rule.

        A single-number output seeds itself with 1; any other needs ``grad``, an
        array of its own shape. Leaf gradients accumulate across calls. Unless
        ``retain_graph=True``, every interior node lets go of its parents, saved
        buffers and gradient as soon as its rule has run, so the graph's memory is
        freed during the walk, and walking it again raises ``RuntimeError``.
        """
        if not self.requires_grad:
            raise RuntimeError(
                "backward() on a tensor that does not require grad: no input of the "
                "computation had requires_grad=True, or it ran inside no_grad()"
            )
        if grad is None:
            if self.data.size != 1:
                raise RuntimeError(
                    f"backward() on an output of shape {self.shape} needs grad=, an array of "
                    "that shape: only a single-number output can seed itself with 1"
                )
            seed = np.ones_like(self.data)
        else:
            seed = _seed(grad, self)
        if self.backward_rule is None:
            # A leaf that requires grad: it is its own output, and its gradient accumulates.
            accumulate(self, seed)
            return
        graph.backward(self, seed, interior_grad=None, release=not retain_graph)

    def _release(self) -> None:
        """Drop parents, saved buffers and gradient; a later walk through here raises."""
        self.parents = ()
        self.saved = None
        self.grad = None
        self.backward_rule = _freed_backward


def _leaf(data: np.ndarray, requires_grad: bool = False) -> Tensor:
    """A leaf around an array that is known to be valid already (no checks, no copy)."""
    out = object.__new__(Tensor)
    out.data, out.grad, out.requires_grad = data, None, requires_grad
    out.parents, out.op, out.label, out.backward_rule, out.saved = (), "", "", None, None
    return out


def _seed(grad: ArrayLike, out: Tensor) -> np.ndarray:
    """The ``grad`` given to ``out.backward``: a finite array of ``out``'s shape, in its dtype."""
    given = grad.data if isinstance(grad, Tensor) else grad
    try:
        seed = np.array(given, dtype=out.dtype)
    except (TypeError, ValueError):
        raise TypeError(
            f"backward(grad=...) needs an array of numbers, got {type(given).__name__}"
        ) from None
    if seed.shape != out.shape:
        raise ValueError(
            f"backward(grad=...) needs a grad of the output's shape {out.shape}, "
            f"got shape {seed.shape}"
        )
    if not np.isfinite(seed).all():
        raise ValueError("backward(grad=...) needs a finite grad: it has nan or inf entries")
    return seed


def _lift(other: Any, like: Tensor) -> Tensor:
    """The other operand as a Tensor: numbers and integer arrays take ``like``'s dtype."""
    if isinstance(other, Tensor):
        return other
    if isinstance(other, numbers.Real):
        number = float(other)
        if not np.isfinite(number):
            raise ValueError(f"an operand of a Tensor op must be finite, got {number}")
        return _leaf(np.asarray(number, dtype=like.data.dtype))
    if isinstance(other, (np.ndarray, list, tuple)):
        array = np.asarray(other)
        if array.dtype.kind in "biu":
            array = array.astype(like.data.dtype)
        return Tensor(array)
    if hasattr(other, "parents"):  # a Value: the two engines' graphs do not join
        raise TypeError(
            f"a Tensor and a {type(other).__name__} cannot be combined: use Tensor(v.data) for "
            "a constant, or make both Values"
        )
    return NotImplemented


def _freed_backward(out: Tensor) -> None:
    raise RuntimeError(
        f"backward through a graph that was already freed (at a {out.op!r} node): an earlier "
        "backward() released its buffers; pass retain_graph=True to that backward() to walk "
        "the graph again"
    )


def _broadcast_error(a: Tensor, b: Tensor, op: str) -> ValueError:
    return ValueError(f"cannot broadcast shapes {a.shape} and {b.shape} for '{op}'")


# -- binary ops: forward -------------------------------------------------------


def _add(a: Tensor, b: Tensor) -> Tensor:
    try:
        data = a.data + b.data
    except ValueError:
        raise _broadcast_error(a, b, "+") from None
    return a._make(data, (a, b), "+", _add_backward)


def _sub(a: Tensor, b: Tensor) -> Tensor:
    try:
        data = a.data - b.data
    except ValueError:
        raise _broadcast_error(a, b, "-") from None
    return a._make(data, (a, b), "-", _sub_backward)


def _mul(a: Tensor, b: Tensor) -> Tensor:
    try:
        data = a.data * b.data
    except ValueError:
        raise _broadcast_error(a, b, "*") from None
    return a._make(data, (a, b), "*", _mul_backward)


def _div(a: Tensor, b: Tensor) -> Tensor:
    if not b.data.all():
        zeros = b.data.size - np.count_nonzero(b.data)
        raise ZeroDivisionError(
            f"division by zero: the divisor of shape {b.shape} has {zeros} zero entries"
        )
    try:
        data = a.data / b.data
    except ValueError:
        raise _broadcast_error(a, b, "/") from None
    return a._make(data, (a, b), "/", _div_backward)


def _matmul(a: Tensor, b: Tensor) -> Tensor:
    if a.data.ndim == 0 or b.data.ndim == 0:
        raise ValueError(f"@ needs operands with at least one axis, got shapes {a.shape} and {b.shape}")
    try:
        data = a.data @ b.data
    except ValueError:
        k_a, k_b = a.shape[-1], b.shape[-2] if b.data.ndim > 1 else b.shape[0]
        if k_a != k_b:
            why = f"the inner dimensions {k_a} and {k_b} differ"
        else:
            why = f"the batch dimensions {a.shape[:-2]} and {b.shape[:-2]} do not broadcast"
        raise ValueError(f"@ cannot multiply shapes {a.shape} and {b.shape}: {why}") from None
    return a._make(data, (a, b), "@", _matmul_backward)


# -- backward rules: each adds out.grad * d(out)/d(parent) into the parent ------


def _add_backward(out: Tensor) -> None:
    a, b = out.parents
    g = out.grad
    if a.requires_grad:
        accumulate(a, sum_to_shape(g, a.shape))
    if b.requires_grad:
        accumulate(b, sum_to_shape(g, b.shape))


def _sub_backward(out: Tensor) -> None:
    a, b = out.parents
    g = out.grad
    if a.requires_grad:
        accumulate(a, sum_to_shape(g, a.shape))
    if b.requires_grad:
        accumulate(b, sum_to_shape(-g, b.shape))


def _mul_backward(out: Tensor) -> None:
    a, b = out.parents
    g = out.grad
    if a.requires_grad:
        accumulate(a, sum_to_shape(g * b.data, a.shape))
    if b.requires_grad:
        accumulate(b, sum_to_shape(g * a.data, b.shape))


def _div_backward(out: Tensor) -> None:
    # out = a / b: d/da = 1 / b, d/db = -a / b**2 = -out / b.
    a, b = out.parents
    g_over_b = out.grad / b.data
    if a.requires_grad:
        accumulate(a, sum_to_shape(g_over_b, a.shape))
    if b.requires_grad:
        accumulate(b, sum_to_shape(-g_over_b * out.data, b.shape))


def _matmul_backward(out: Tensor) -> None:
    # For C = A @ B with A (..., n, k) and B (..., k, m): dA = dC @ B^T, dB = A^T @ dC,
    # each summed over the batch axes that broadcasting stretched. A 1-D operand is
    # a row (A) or a column (B) whose extra axis the product dropped; put it back.
    a, b = out.parents
    g = out.grad
    A = a.data if a.data.ndim > 1 else a.data[np.newaxis, :]
    B = b.data if b.data.ndim > 1 else b.data[:, np.newaxis]
    if b.data.ndim == 1:
        g = np.expand_dims(g, -1)
    if a.data.ndim == 1:
        g = np.expand_dims(g, -2)
    if a.requires_grad:
        ga = g @ np.swapaxes(B, -1, -2)
        accumulate(a, sum_to_shape(ga, A.shape).reshape(a.shape))
    if b.requires_grad:
        if B.ndim == 2 and A.ndim > 2:
            # Fold the batch axes into the rows: one 2-D product instead of a batch of them.
            gb = A.reshape(-1, A.shape[-1]).T @ g.reshape(-1, g.shape[-1])
        else:
            gb = sum_to_shape(np.swapaxes(A, -1, -2) @ g, B.shape)
        accumulate(b, gb.reshape(b.shape))


def _neg_backward(out: Tensor) -> None:
    accumulate(out.parents[0], -out.grad)


def _pow_backward(out: Tensor) -> None:
    (a,) = out.parents
    n = out.saved
    if n == 0:
        accumulate(a, np.zeros_like(a.data))
        return
    if n < 1 and not a.data.all():
        raise ZeroDivisionError(f"the derivative of x ** {n} at x = 0 is infinite")
    accumulate(a, n * a.data ** (n - 1) * out.grad)
