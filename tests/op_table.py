"""The one table of ops, run over both engines: tests/test_scalar.py runs it on Values,
tests/test_tensor_ops.py on Tensors in float64 and float32, each against PyTorch and
finite differences.

Each row: how tinyad computes it, how torch does, and where its inputs come from:
"any" (any sign), "positive" (log, sqrt) or "nonzero" (a divisor, relu away from its kink).
The expressions are written once for both engines, and for torch, since all three spell
these operations the same way. Adding an op to both engines adds one row here.
"""

from __future__ import annotations

UNARY = {
    "neg": (lambda x: -x, lambda t: -t, "any"),
    "exp": (lambda x: x.exp(), lambda t: t.exp(), "any"),
    "log": (lambda x: x.log(), lambda t: t.log(), "positive"),
    "tanh": (lambda x: x.tanh(), lambda t: t.tanh(), "any"),
    "relu": (lambda x: x.relu(), lambda t: t.relu(), "nonzero"),
    "sigmoid": (lambda x: x.sigmoid(), lambda t: t.sigmoid(), "any"),
    "sin": (lambda x: x.sin(), lambda t: t.sin(), "any"),
    "cos": (lambda x: x.cos(), lambda t: t.cos(), "any"),
    "square": (lambda x: x**2, lambda t: t**2, "any"),
    "cube": (lambda x: x**3, lambda t: t**3, "any"),
    "sqrt": (lambda x: x**0.5, lambda t: t**0.5, "positive"),
    "reciprocal": (lambda x: x**-1, lambda t: t**-1, "nonzero"),
    "number plus": (lambda x: 2 + x, lambda t: 2 + t, "any"),
    "number minus": (lambda x: 1 - x, lambda t: 1 - t, "any"),
    "number times": (lambda x: 3 * x, lambda t: 3 * t, "any"),
    "number over": (lambda x: 1 / x, lambda t: 1 / t, "nonzero"),
    "minus number": (lambda x: x - 1.5, lambda t: t - 1.5, "any"),
    "over number": (lambda x: x / 4, lambda t: t / 4, "any"),
}

# Each row: the op, and where its second operand comes from (the first is "any").
BINARY = {
    "add": (lambda a, b: a + b, "any"),
    "sub": (lambda a, b: a - b, "any"),
    "mul": (lambda a, b: a * b, "any"),
    "div": (lambda a, b: a / b, "nonzero"),
}
