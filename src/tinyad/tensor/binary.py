"""Binary ops with broadcasting: ``+ - * / **`` and matrix multiplication ``@``.

Each op is one block: the forward function, which computes the array and makes the output
node from its first operand (``a.new_node(data, parents=(a, b), op="+", backward_rule=...)``),
then its backward rule.

Broadcasting lines the two shapes up from the right and stretches an axis of size
1 (or a missing one) to match the other operand. A stretched operand was used
once per copy, so its gradient is the sum over the copies: every rule here passes
its parent's gradient through ``sum_to_shape`` before adding it in. Matrix
multiplication broadcasts only its batch axes, and sums them back the same way.

The ops take two Tensors. In ``t + 2`` or ``2 * t`` the other operand may be an array or a
Python number: the Tensor's operator makes it a constant first (``Tensor.operand``, a number
in the Tensor's library and dtype). Both must be of one library and on one device, else a
``TypeError`` names both (``one_place``); a shape that does not broadcast raises
``ValueError`` naming both shapes. The arithmetic is the arrays' own operators (``+``,
``@``, ...), which every library that follows the array API standard defines.

Contents: ``add``, ``mul``, ``div``, ``power``, ``matmul``, each with its ``*_backward``
rule (``power``'s checks the gradient it passes on, ``through_power``), and ``sub``, which
adds the negation.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from tinyad.tensor import elementwise
from tinyad.tensor.backend import NUMPY, dtype_name, errstate, one_dtype_for_products, same_place, to_numpy
from tinyad.tensor.gradients import sum_to_shape

if TYPE_CHECKING:  # for the type hints only: tensor.py imports this module
    from tinyad.tensor.tensor import Tensor


def one_place(a: Tensor, b: Tensor, op: str) -> None:
    """A TypeError naming both, unless ``a`` and ``b`` hold arrays of one library on one device."""
    if a.xp is not b.xp or a.xp is not NUMPY:  # two NumPy arrays are both on the CPU
        same_place(op, a, b)


def broadcast(function: Callable, a: Tensor, b: Tensor, op: str) -> Any:
    """``function(a.data, b.data)``, or a ValueError naming both shapes if they do not broadcast."""
    try:
        return function(a.data, b.data)
    except (ValueError, RuntimeError, TypeError):  # each library's words: PyTorch's RuntimeError, JAX's TypeError
        try:
            np.broadcast_shapes(a.shape, b.shape)  # shapes only: tuples of ints, whatever the library
        except ValueError:
            raise cannot_broadcast(a, b, op) from None
        raise


def cannot_broadcast(a: Tensor, b: Tensor, op: str) -> ValueError:
    """The error for operands of ``op`` whose shapes do not broadcast, naming both shapes."""
    return ValueError(f"cannot broadcast shapes {a.shape} and {b.shape} for '{op}'")


# -- a + b --------------------------------------------------------------------


def add(a: Tensor, b: Tensor) -> Tensor:
    one_place(a, b, "+")
    data = broadcast(operator.add, a, b, "+")
    return a.new_node(data, parents=(a, b), op="+", backward_rule=add_backward)


def add_backward(out: Tensor) -> None:
    # d(a+b)/da = d(a+b)/db = 1: each parent gets the gradient, summed back to its own shape.
    for parent in out.parents:
        if parent.requires_grad:
            parent.accumulate(sum_to_shape(out.grad, parent.shape))


# -- a - b --------------------------------------------------------------------


def sub(a: Tensor, b: Tensor) -> Tensor:
    """``a + (-b)``, as in the scalar engine: two nodes when ``b`` needs a gradient, one if not."""
    one_place(a, b, "-")
    try:
        np.broadcast_shapes(a.shape, b.shape)  # shapes only: tuples of ints, whatever the library
    except ValueError:  # say so now, naming the '-' that was written
        raise cannot_broadcast(a, b, "-") from None
    return add(a, elementwise.neg(b))


# -- a * b --------------------------------------------------------------------


def mul(a: Tensor, b: Tensor) -> Tensor:
    one_place(a, b, "*")
    data = broadcast(operator.mul, a, b, "*")
    return a.new_node(data, parents=(a, b), op="*", backward_rule=mul_backward)


def mul_backward(out: Tensor) -> None:
    # d(a*b)/da = b and d(a*b)/db = a, entry by entry.
    a, b = out.parents
    if a.requires_grad:
        a.accumulate(sum_to_shape(out.grad * b.data, a.shape))
    if b.requires_grad:
        b.accumulate(sum_to_shape(out.grad * a.data, b.shape))


# -- a / b --------------------------------------------------------------------


def div(a: Tensor, b: Tensor) -> Tensor:
    one_place(a, b, "/")
    if not b.xp.all(b.data):
        zeros = b.size - int(b.xp.count_nonzero(b.data))
        raise ZeroDivisionError(
            f"division by zero: the divisor of shape {b.shape} has {zeros} zero entries"
        )
    data = broadcast(operator.truediv, a, b, "/")
    return a.new_node(data, parents=(a, b), op="/", backward_rule=div_backward)


def div_backward(out: Tensor) -> None:
    # d(a/b)/da = 1/b and d(a/b)/db = -a/b**2 = -out/b.
    a, b = out.parents
    if a.requires_grad:
        a.accumulate(sum_to_shape(out.grad / b.data, a.shape))
    if b.requires_grad:
        b.accumulate(sum_to_shape(-divisor_slope(out.xp, out.grad, out.data, b.data), b.shape))


def divisor_slope(xp: Any, g: Any, out: Any, b: Any) -> Any:
    """``g * out / b`` (out = a / b), entry by entry, in whichever order keeps it within the floats.

    ``g * (out / b)`` overflows, or loses digits where ``out / b`` falls below the normal floats,
    where ``(g / b) * out`` may not, and the other way round (1e-20 * (1e300 / 1e-5),
    1e300 * (1e-310 / 1e10)): there the second is taken.
    """
    with errstate(over="ignore", under="ignore", invalid="ignore"):  # the other order is asked below
        ratio = out / b
        first = g * ratio
    below = (xp.abs(ratio) < xp.finfo(ratio.dtype).smallest_normal) & (out != 0)
    lost = ~xp.isfinite(first) | (below & (g != 0))
    if not xp.any(lost):
        return first
    with errstate(over="ignore", under="ignore", invalid="ignore"):  # kept only where it is finite
        second = (g / b) * out
    grad = xp.where(lost & xp.isfinite(second), second, first)
    if not xp.all(xp.isfinite(grad)):  # beyond the floats in either order: named, as ** does
        raise OverflowError(f"the gradient through / to the divisor overflows {dtype_name(grad.dtype)} at "
                            f"{int(xp.count_nonzero(~xp.isfinite(grad)))} entries (out.grad * out / b, in either "
                            "order)")
    return grad


# -- base ** exponent ---------------------------------------------------------


def power(base: Tensor, exponent: Tensor) -> Tensor:
    """``base ** exponent``, entry by entry: ``t ** 2``, ``2 ** t`` and ``t ** u`` all come here."""
    one_place(base, exponent, "**")
    xp = base.xp
    with errstate(divide="ignore", invalid="ignore"):  # those entries are refused below
        data = broadcast(operator.pow, base, exponent, "**")
    b = xp.broadcast_to(base.data, data.shape)
    e = xp.broadcast_to(exponent.data, data.shape)
    fractional_of_negative = (b < 0) & (e != xp.round(e))
    if xp.any(fractional_of_negative):
        raise ValueError(
            f"base ** exponent: {int(xp.count_nonzero(fractional_of_negative))} entries raise a "
            "negative base to a fractional power, which is not a real number"
        )
    zero_to_negative = (b == 0) & (e < 0)
    if xp.any(zero_to_negative):
        raise ZeroDivisionError(f"base ** exponent: {int(xp.count_nonzero(zero_to_negative))} "
                                "entries raise 0 to a negative power, which is infinite")
    op = "**" if exponent.requires_grad or exponent.size != 1 else f"**{exponent.item():g}"
    return base.new_node(data, parents=(base, exponent), op=op, backward_rule=power_backward)


def power_backward(out: Tensor) -> None:
    # d(b**e)/db = e * b**(e-1) and d(b**e)/de = b**e * log(b).
    base, exponent = out.parents
    xp = out.xp
    b, e = base.data, exponent.data
    if base.requires_grad:
        with errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope = xp.where(e == 0, 0.0, e * b ** (e - 1))  # b**0 is constant: slope 0
        if not xp.all(xp.isfinite(slope)):
            # Where no gradient arrives (an entry the output does not use), the slope does not
            # matter: the gradient there is 0. Elsewhere an infinite slope is refused by name.
            used = out.grad != 0
            if xp.any((b == 0) & (e != 0) & (e < 1) & used):
                raise ZeroDivisionError("the derivative of x ** n at x = 0 is infinite for n < 1")
            if not xp.all(xp.isfinite(slope) | ~used):
                raise OverflowError(f"the derivative of base ** exponent overflows a float at "
                                    f"{int(xp.count_nonzero(~xp.isfinite(slope) & used))} entries")
            slope = xp.where(used, slope, 0.0)
        base.accumulate(sum_to_shape(through_power(out, slope, "base"), base.shape))
    if exponent.requires_grad:
        # 0 ** e is 0 for every e > 0 (the only exponents allowed at 0), so its slope in e is 0;
        # a negative base has no real log.
        if xp.any(b < 0):
            raise ValueError(
                f"the gradient of base ** exponent for the exponent needs log(base), but "
                f"{int(xp.count_nonzero(b < 0))} entries of the base are < 0"
            )
        # The entries at 0 are replaced; an overflow is refused by through_power.
        with errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope = xp.where(b == 0, 0.0, out.data * xp.log(b))
        exponent.accumulate(sum_to_shape(through_power(out, slope, "exponent"), exponent.shape))


def through_power(out: Tensor, slope: Any, to: str) -> Any:
    """``out.grad * slope``, what ``**`` passes to its ``to`` (base or exponent), entry by entry.

    A product beyond the float type is an OverflowError naming the first such entry's
    numbers, never a silent inf: the forward result fits, but its gradient need not.
    """
    xp = out.xp
    with errstate(over="ignore", invalid="ignore"):  # refused just below, with the numbers
        grad = out.grad * slope
    if not xp.all(xp.isfinite(grad)):
        bad = ~np.isfinite(to_numpy(grad))
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        b, e = (np.broadcast_to(to_numpy(parent.data), bad.shape)[first] for parent in out.parents)
        incoming, local = to_numpy(out.grad)[first], np.broadcast_to(to_numpy(slope), bad.shape)[first]
        raise OverflowError(
            f"the gradient through base ** exponent to the {to} overflows {dtype_name(grad.dtype)} "
            f"at {int(bad.sum())} entries: at index {first}, base {b:.6g} and exponent {e:.6g}, the "
            f"incoming gradient {incoming:.6g} times the slope {local:.6g} is beyond "
            f"about {float(xp.finfo(grad.dtype).max):.2g}"
        )
    return grad


# -- a @ b --------------------------------------------------------------------


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """NumPy's matmul rules: 1-D, 2-D, and batches of matrices whose batch axes broadcast."""
    one_place(a, b, "@")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"@ needs operands with at least one axis, got shapes {a.shape} and {b.shape}")
    try:
        data = a.data @ b.data
    except (ValueError, RuntimeError, TypeError):  # each library's words: PyTorch's RuntimeError, JAX's TypeError
        one_dtype_for_products("@", a, b)
        k_a, k_b = a.shape[-1], b.shape[-2] if b.ndim > 1 else b.shape[0]
        if k_a != k_b:
            why = f"the inner dimensions {k_a} and {k_b} differ"
        else:
            try:
                np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
            except ValueError:
                why = f"the batch dimensions {a.shape[:-2]} and {b.shape[:-2]} do not broadcast"
            else:
                raise  # not the shapes
        raise ValueError(f"@ cannot multiply shapes {a.shape} and {b.shape}: {why}") from None
    return a.new_node(data, parents=(a, b), op="@", backward_rule=matmul_backward)


def matmul_backward(out: Tensor) -> None:
    # For C = A @ B with A (..., n, k) and B (..., k, m): dA = dC @ B^T and dB = A^T @ dC,
    # each summed over the batch axes that broadcasting stretched. A 1-D operand is a
    # row (A) or a column (B) whose extra axis the product dropped: put it back first.
    a, b = out.parents
    A = a.data if a.ndim > 1 else a.data[None, :]
    B = b.data if b.ndim > 1 else b.data[:, None]
    grad = out.grad
    if b.ndim == 1:
        grad = grad[..., None]
    if a.ndim == 1:
        grad = grad[..., None, :]
    if a.requires_grad:
        grad_a = grad @ B.mT  # .mT: the transpose of the last two axes
        a.accumulate(out.xp.reshape(sum_to_shape(grad_a, A.shape), a.shape))
    if b.requires_grad:
        grad_b = A.mT @ grad
        b.accumulate(out.xp.reshape(sum_to_shape(grad_b, B.shape), b.shape))
