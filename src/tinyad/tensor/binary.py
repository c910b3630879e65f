"""Binary ops with broadcasting: ``+ - * / **`` and matrix multiplication ``@``.

Each op is one block: the forward function, then its backward rule.

Broadcasting lines the two shapes up from the right and stretches an axis of size
1 (or a missing one) to match the other operand. A stretched operand was used
once per copy, so its gradient is the sum over the copies: every rule here passes
its parent's gradient through ``sum_to_shape`` before adding it in. Matrix
multiplication broadcasts only its batch axes, and sums them back the same way.

Either operand may be a Tensor, a NumPy array or a Python number
(``tensor.as_tensor`` makes the constant). A shape that does not broadcast raises
``ValueError`` naming both shapes.

Contents: ``add``, ``mul``, ``div``, ``power``, ``matmul``, each with its ``*_backward``
rule (``power``'s checks the gradient it passes on, ``through_power``), and ``sub``, which
adds the negation.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tinyad.tensor import elementwise
from tinyad.tensor.gradients import sum_to_shape
from tinyad.tensor.tensor import Tensor, as_tensor


def operands(a: Any, b: Any) -> tuple[Tensor, Tensor]:
    """Both operands as Tensors; a number or an array takes the other operand's dtype."""
    if isinstance(a, Tensor):
        return a, as_tensor(b, like=a)
    return as_tensor(a, like=b), b


def broadcast(function: Callable, a: Tensor, b: Tensor, op: str) -> np.ndarray:
    """``function(a.data, b.data)``, or a ValueError naming both shapes if they do not broadcast."""
    try:
        return function(a.data, b.data)
    except ValueError:
        raise cannot_broadcast(a, b, op) from None


def cannot_broadcast(a: Tensor, b: Tensor, op: str) -> ValueError:
    """The error for operands of ``op`` whose shapes do not broadcast, naming both shapes."""
    return ValueError(f"cannot broadcast shapes {a.shape} and {b.shape} for '{op}'")


# -- a + b --------------------------------------------------------------------


def add(a: Any, b: Any) -> Tensor:
    a, b = operands(a, b)
    data = broadcast(np.add, a, b, "+")
    return Tensor(data, parents=(a, b), op="+", backward_rule=add_backward)


def add_backward(out: Tensor) -> None:
    # d(a+b)/da = d(a+b)/db = 1: each parent gets the gradient, summed back to its own shape.
    for parent in out.parents:
        if parent.requires_grad:
            parent.accumulate(sum_to_shape(out.grad, parent.shape))


# -- a - b --------------------------------------------------------------------


def sub(a: Any, b: Any) -> Tensor:
    """``a + (-b)``, as in the scalar engine: two nodes when ``b`` needs a gradient, one if not."""
    a, b = operands(a, b)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:  # say so now, naming the '-' that was written
        raise cannot_broadcast(a, b, "-") from None
    return add(a, elementwise.neg(b))


# -- a * b --------------------------------------------------------------------


def mul(a: Any, b: Any) -> Tensor:
    a, b = operands(a, b)
    data = broadcast(np.multiply, a, b, "*")
    return Tensor(data, parents=(a, b), op="*", backward_rule=mul_backward)


def mul_backward(out: Tensor) -> None:
    # d(a*b)/da = b and d(a*b)/db = a, entry by entry.
    a, b = out.parents
    if a.requires_grad:
        a.accumulate(sum_to_shape(out.grad * b.data, a.shape))
    if b.requires_grad:
        b.accumulate(sum_to_shape(out.grad * a.data, b.shape))


# -- a / b --------------------------------------------------------------------


def div(a: Any, b: Any) -> Tensor:
    a, b = operands(a, b)
    if not b.data.all():
        zeros = b.data.size - np.count_nonzero(b.data)
        raise ZeroDivisionError(
            f"division by zero: the divisor of shape {b.shape} has {zeros} zero entries"
        )
    data = broadcast(np.divide, a, b, "/")
    return Tensor(data, parents=(a, b), op="/", backward_rule=div_backward)


def div_backward(out: Tensor) -> None:
    # d(a/b)/da = 1/b and d(a/b)/db = -a/b**2 = -out/b.
    a, b = out.parents
    grad_over_b = out.grad / b.data
    if a.requires_grad:
        a.accumulate(sum_to_shape(grad_over_b, a.shape))
    if b.requires_grad:
        b.accumulate(sum_to_shape(-grad_over_b * out.data, b.shape))


# -- base ** exponent ---------------------------------------------------------


def power(base: Any, exponent: Any) -> Tensor:
    """``base ** exponent``: either may be a Tensor, an array or a number."""
    base, exponent = operands(base, exponent)
    with np.errstate(divide="ignore", invalid="ignore"):  # those entries are refused below
        data = broadcast(np.power, base, exponent, "**")
    b = np.broadcast_to(base.data, data.shape)
    e = np.broadcast_to(exponent.data, data.shape)
    fractional_of_negative = (b < 0) & (e != np.round(e))
    if fractional_of_negative.any():
        raise ValueError(
            f"base ** exponent: {int(fractional_of_negative.sum())} entries raise a negative base "
            "to a fractional power, which is not a real number"
        )
    if ((b == 0) & (e < 0)).any():
        raise ZeroDivisionError(f"base ** exponent: {int(((b == 0) & (e < 0)).sum())} entries "
                                "raise 0 to a negative power, which is infinite")
    op = "**" if exponent.requires_grad or exponent.size != 1 else f"**{exponent.item():g}"
    return Tensor(data, parents=(base, exponent), op=op, backward_rule=power_backward)


def power_backward(out: Tensor) -> None:
    # d(b**e)/db = e * b**(e-1) and d(b**e)/de = b**e * log(b).
    base, exponent = out.parents
    b, e = base.data, exponent.data
    if base.requires_grad:
        if ((b == 0) & (e != 0) & (e < 1)).any():
            raise ZeroDivisionError("the derivative of x ** n at x = 0 is infinite for n < 1")
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope = np.where(e == 0, 0.0, e * b ** (e - 1))  # b**0 is constant: slope 0
        if not np.isfinite(slope).all():
            raise OverflowError(f"the derivative of base ** exponent overflows a float at "
                                f"{int((~np.isfinite(slope)).sum())} entries")
        base.accumulate(sum_to_shape(through_power(out, slope, "base"), base.shape))
    if exponent.requires_grad:
        # 0 ** e is 0 for every e > 0 (the only exponents allowed at 0), so its slope in e is 0;
        # a negative base has no real log.
        if (b < 0).any():
            raise ValueError(
                f"the gradient of base ** exponent for the exponent needs log(base), but "
                f"{int((b < 0).sum())} entries of the base are < 0"
            )
        # The entries at 0 are replaced; an overflow is refused by through_power.
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope = np.where(b == 0, 0.0, out.data * np.log(b))
        exponent.accumulate(sum_to_shape(through_power(out, slope, "exponent"), exponent.shape))


def through_power(out: Tensor, slope: np.ndarray, to: str) -> np.ndarray:
    """``out.grad * slope``, what ``**`` passes to its ``to`` (base or exponent), entry by entry.

    A product beyond the float type is an OverflowError naming the first such entry's
    numbers, never a silent inf: the forward result fits, but its gradient need not.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # refused just below, with the numbers
        grad = out.grad * slope
    bad = ~np.isfinite(grad)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        b, e = (np.broadcast_to(parent.data, grad.shape)[first] for parent in out.parents)
        raise OverflowError(
            f"the gradient through base ** exponent to the {to} overflows {grad.dtype} at "
            f"{int(bad.sum())} entries: at index {first}, base {b:.6g} and exponent {e:.6g}, the "
            f"incoming gradient {out.grad[first]:.6g} times the slope {slope[first]:.6g} is beyond "
            f"about {np.finfo(grad.dtype).max:.2g}"
        )
    return grad


# -- a @ b --------------------------------------------------------------------


def matmul(a: Any, b: Any) -> Tensor:
    """NumPy's matmul rules: 1-D, 2-D, and batches of matrices whose batch axes broadcast."""
    a, b = operands(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"@ needs operands with at least one axis, got shapes {a.shape} and {b.shape}")
    try:
        data = a.data @ b.data
    except ValueError:
        k_a, k_b = a.shape[-1], b.shape[-2] if b.ndim > 1 else b.shape[0]
        if k_a != k_b:
            why = f"the inner dimensions {k_a} and {k_b} differ"
        else:
            why = f"the batch dimensions {a.shape[:-2]} and {b.shape[:-2]} do not broadcast"
        raise ValueError(f"@ cannot multiply shapes {a.shape} and {b.shape}: {why}") from None
    return Tensor(data, parents=(a, b), op="@", backward_rule=matmul_backward)


def matmul_backward(out: Tensor) -> None:
    # For C = A @ B with A (..., n, k) and B (..., k, m): dA = dC @ B^T and dB = A^T @ dC,
    # each summed over the batch axes that broadcasting stretched. A 1-D operand is a
    # row (A) or a column (B) whose extra axis the product dropped: put it back first.
    a, b = out.parents
    A = a.data if a.ndim > 1 else a.data[np.newaxis, :]
    B = b.data if b.ndim > 1 else b.data[:, np.newaxis]
    grad = out.grad
    if b.ndim == 1:
        grad = np.expand_dims(grad, -1)
    if a.ndim == 1:
        grad = np.expand_dims(grad, -2)
    if a.requires_grad:
        grad_a = grad @ np.swapaxes(B, -1, -2)
        a.accumulate(sum_to_shape(grad_a, A.shape).reshape(a.shape))
    if b.requires_grad:
        grad_b = np.swapaxes(A, -1, -2) @ grad
        b.accumulate(sum_to_shape(grad_b, B.shape).reshape(b.shape))
