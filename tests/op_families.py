"""The ops of both engines, one table per family; tests/test_op_families.py runs every row, and
tests/test_compositions.py chains rows into small graphs.

A row is an ``Op``: ``f``, how tinyad computes it, and ``torch``, how PyTorch does (any
callable: most are the same text as ``f``, since both spell these ops alike). Both are called
with one input per shape of a ``Case`` (Tensors, or Values, or torch tensors) and the case's
keyword arguments. ``domains`` says where each input is drawn from (``DOMAINS``; "any" for an
input it does not name). A row runs on every case of its family, or on its own ``cases``;
``on_values`` rows run on the scalar engine too, one number per input.

Adding an op to the engines adds one row here, named after the op (its method, or its function
in ``tensor.functional``). test_op_families.py fails naming any op without a row, and any
``*_backward`` rule in src/ that no row exercises. A row checks the gradients, by finite
differences and against PyTorch, at points drawn away from kinks and bounds. What a row cannot
referee gets a test of its own: an op's choice at a kink or a bound, where finite differences give
the average of the two sides (relu's slope at 0, in test_op_families.py beside the rows), and its
numerical care at the ends of its domain (softplus of 1000, exp near overflow), beside the
engine's other tests of it (test_scalar.py, test_tensor_ops.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

from tinyad import checkpoint
from tinyad.tensor import functional as F
from torch_reference import torch  # tests/torch_reference.py; None without PyTorch


def _round_to_float32(a: np.ndarray) -> np.ndarray:
    """``a`` in float64, holding numbers float32 holds too: both float types get the same inputs."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def _spread(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Distinct numbers a quarter apart: no ties, and no near-ties a finite difference could cross."""
    size = int(np.prod(shape))
    return ((rng.permutation(size) - size / 2) / 4).reshape(shape)


# Where an input comes from. "nonzero" stays away from the kink of relu and from division by 0.
# None holds an exact 0: a rule that divides by its input (a product's, out / x) needs a domain
# that does, beside these, or its slip at 0 goes unseen.
DOMAINS: dict[str, Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]] = {
    "any": lambda rng, shape: rng.normal(size=shape),
    "positive": lambda rng, shape: rng.uniform(0.5, 2.0, size=shape),
    "nonzero": lambda rng, shape: rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape),
    "distinct": _spread,
    "unit": lambda rng, shape: rng.uniform(0.05, 0.95, size=shape),  # a probability, off 0 and 1
}


# How closely each float type must agree: float64 with PyTorch's float64, float32 with float64.
TOLERANCE = {np.float64: dict(rtol=1e-9, atol=1e-12), np.float32: dict(rtol=1e-4, atol=1e-5)}


def draw(rng: np.random.Generator, domain: str, shape: tuple[int, ...]) -> np.ndarray:
    """One input of ``shape`` from ``domain``, in float64 and exact in float32."""
    return _round_to_float32(DOMAINS[domain](rng, shape))


@dataclass(frozen=True)
class Case:
    """The inputs' shapes (one per input) and the keyword arguments ``f`` and ``torch`` get."""

    shapes: tuple[tuple[int, ...], ...]
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Op:
    """One row: tinyad's computation, PyTorch's, the inputs' domains, and where it runs."""

    f: Callable[..., Any]
    torch: Callable[..., Any]
    domains: tuple[str, ...] = ()
    cases: dict[str, Case] | None = None  # None: the family's cases
    on_values: bool = False  # also run on the scalar engine

    def domain(self, i: int) -> str:
        return self.domains[i] if i < len(self.domains) else "any"


@dataclass(frozen=True)
class Family:
    rows: dict[str, Op]
    cases: dict[str, Case] = field(default_factory=dict)

    def cases_of(self, name: str) -> dict[str, Case]:
        own = self.rows[name].cases
        return self.cases if own is None else own


def _all_axes(axis: Any, t: Any) -> Any:
    """PyTorch's ``dim`` for tinyad's ``axis``: None (every axis) as the tuple of all axes."""
    return tuple(range(t.ndim)) if axis is None else axis


def _reversed_axes(t: Any) -> tuple[int, ...]:
    return tuple(reversed(range(t.ndim)))


def _torch_index(index: Any) -> Any:
    """A NumPy index for PyTorch: lists and arrays as torch tensors, the rest as they are."""
    if isinstance(index, tuple):
        return tuple(_torch_index(part) for part in index)
    if isinstance(index, (list, np.ndarray)):
        return torch.tensor(np.asarray(index))
    return index


# -- elementwise: one input, entry by entry; numbers on either side of an operator --------

ELEMENTWISE = Family(
    cases={"(2, 3)": Case(((2, 3),)), "0-d": Case(((),))},
    rows={
        "neg": Op(lambda x: -x, lambda t: -t, on_values=True),
        "exp": Op(lambda x: x.exp(), lambda t: t.exp(), on_values=True),
        "log": Op(lambda x: x.log(), lambda t: t.log(), ("positive",), on_values=True),
        "tanh": Op(lambda x: x.tanh(), lambda t: t.tanh(), on_values=True),
        "relu": Op(lambda x: x.relu(), lambda t: t.relu(), ("nonzero",), on_values=True),
        "sigmoid": Op(lambda x: x.sigmoid(), lambda t: t.sigmoid(), on_values=True),
        "softplus": Op(lambda x: x.softplus(), lambda t: torch.nn.functional.softplus(t), on_values=True),
        "sin": Op(lambda x: x.sin(), lambda t: t.sin(), on_values=True),
        "cos": Op(lambda x: x.cos(), lambda t: t.cos(), on_values=True),
        "square": Op(lambda x: x**2, lambda t: t**2, on_values=True),
        "cube": Op(lambda x: x**3, lambda t: t**3, on_values=True),
        "sqrt": Op(lambda x: x**0.5, lambda t: t**0.5, ("positive",), on_values=True),
        "reciprocal": Op(lambda x: x**-1, lambda t: t**-1, ("nonzero",), on_values=True),
        "number plus": Op(lambda x: 2 + x, lambda t: 2 + t, on_values=True),
        "number minus": Op(lambda x: 1 - x, lambda t: 1 - t, on_values=True),
        "number times": Op(lambda x: 3 * x, lambda t: 3 * t, on_values=True),
        "number over": Op(lambda x: 1 / x, lambda t: 1 / t, ("nonzero",), on_values=True),
        "minus number": Op(lambda x: x - 1.5, lambda t: t - 1.5, on_values=True),
        "over number": Op(lambda x: x / 4, lambda t: t / 4, on_values=True),
        "number power": Op(lambda x: 2**x, lambda t: 2**t),
    },
)

# -- binary, with broadcasting -----------------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((6, 6, 5, 4), (4, 3)),
    ((5, 4), (6, 6, 4, 3)),
    ((2, 1, 5, 4), (3, 4, 2)),
    ((7, 3, 4), (7, 4, 2)),
    ((4,), (4, 3)),
    ((5, 4), (4,)),
    ((4,), (4,)),
    ((4,), (2, 4, 3)),
    ((2, 5, 4), (4,)),
]

BINARY = Family(
    cases={
        "same shape": Case(((2, 3), (2, 3))),
        "scalar right": Case(((2, 3), ())),
        "scalar left": Case(((), (2, 3))),
        "stretched (3, 1) (1, 4)": Case(((3, 1), (1, 4))),
        "leading axis (4,) (2, 3, 4)": Case(((4,), (2, 3, 4))),
        "stretched to none (1, 3) (0, 3)": Case(((1, 3), (0, 3))),  # used no times: a gradient of 0
    },
    rows={
        "add": Op(lambda a, b: a + b, lambda a, b: a + b, on_values=True),
        "sub": Op(lambda a, b: a - b, lambda a, b: a - b, on_values=True),
        "mul": Op(lambda a, b: a * b, lambda a, b: a * b, on_values=True),
        "div": Op(lambda a, b: a / b, lambda a, b: a / b, ("any", "nonzero"), on_values=True),
        "pow": Op(lambda a, b: a**b, lambda a, b: a**b, ("positive", "any")),
        "matmul": Op(lambda a, b: a @ b, lambda a, b: a @ b,
                     cases={f"{a} @ {b}": Case((a, b)) for a, b in MATMUL_SHAPES}),
    },
)

# -- reductions over axes ------------------------------------------------------------------

REDUCTIONS = Family(
    cases={
        f"axis={axis}" + (" keepdims" if keepdims else ""): Case(((2, 3, 4),), dict(axis=axis, keepdims=keepdims))
        for axis in (None, 0, -1, (0, 2), (-1, 0))
        for keepdims in (False, True)
    },
    rows={
        "sum": Op(lambda x, axis, keepdims: x.sum(axis=axis, keepdims=keepdims),
                  lambda t, axis, keepdims: torch.sum(t, dim=_all_axes(axis, t), keepdim=keepdims)),
        "mean": Op(lambda x, axis, keepdims: x.mean(axis=axis, keepdims=keepdims),
                   lambda t, axis, keepdims: torch.mean(t, dim=_all_axes(axis, t), keepdim=keepdims)),
        "max": Op(lambda x, axis, keepdims: x.max(axis=axis, keepdims=keepdims),
                  lambda t, axis, keepdims: torch.amax(t, dim=_all_axes(axis, t), keepdim=keepdims),
                  ("distinct",)),
        "min": Op(lambda x, axis, keepdims: x.min(axis=axis, keepdims=keepdims),
                  lambda t, axis, keepdims: torch.amin(t, dim=_all_axes(axis, t), keepdim=keepdims),
                  ("distinct",)),
    },
)

# -- shapes and indexing ----------------------------------------------------------------------

INDEXES = {
    "1": 1,
    "-1": -1,
    "1:": slice(1, None),
    ":, 2": (slice(None), 2),
    "..., ::2": (Ellipsis, slice(None, None, 2)),
    "None, 0": (None, 0),
    ":, None, 0": (slice(None), None, 0),  # the gradient of shape (3, 1) goes back into a column of shape (3,)
    "[2] one entry": [2],
    "[0, 2, 0, 0] repeated": [0, 2, 0, 0],
    "[0, 1, 1], [3, 3, 3] repeated": (np.array([0, 1, 1]), np.array([3, 3, 3])),
    ":, [[0, 0], [1, 3]]": (slice(None), np.array([[0, 0], [1, 3]])),
    "mask of rows": np.array([True, False, True]),
    "mask of entries": np.array([[True, False, True, True], [False] * 4, [True, True, False, True]]),
    ":, mask of columns": (slice(None), np.array([True, False, True, True])),
    "2, mask of columns": (2, np.array([False, True, True, False])),
    "True": True,
}

# A mask beside Nones, ints and slices, on an input of shape (3, 4, 2): NumPy puts the mask's axis
# first where a None stands between it and another index, PyTorch otherwise, so the torch row's
# forward would not match; tests/test_tensor_graph.py and test_array_api.py gradcheck them instead.
MASK = np.array([True, False, True, False])
MASK_BESIDE_NONES = [
    (slice(None), MASK, None, 0),
    (slice(None), MASK, None, slice(None)),
    (None, slice(None), MASK, 1),
    (1, MASK, None),
    (slice(None), MASK, True, 0),
    (Ellipsis, MASK, 0),
]

SHAPES = Family(
    rows={
        "reshape": Op(
            lambda x, shape: x.reshape(shape), lambda t, shape: t.reshape(shape),
            cases={
                f"{before} to {after}": Case((before,), dict(shape=after))
                for before, after in [((3, 4), (2, 6)), ((3, 4), (-1,)), ((2, 3, 4), (4, -1)), ((), (1, 1))]
            },
        ),
        "transpose": Op(
            lambda x, axes: x.transpose(*axes),
            lambda t, axes: t.permute(*(axes or _reversed_axes(t))),
            cases={
                "(2, 3, 4) to (1, 2, 0)": Case(((2, 3, 4),), dict(axes=(1, 2, 0))),
                "(2, 3, 4) to (-1, 0, 1)": Case(((2, 3, 4),), dict(axes=(-1, 0, 1))),
                "(2, 3, 4) reversed": Case(((2, 3, 4),), dict(axes=())),
            },
        ),
        "T": Op(lambda x: x.T, lambda t: t.permute(*_reversed_axes(t)),
                cases={"(3, 4)": Case(((3, 4),)), "(2, 3, 4)": Case(((2, 3, 4),))}),
        "getitem": Op(
            lambda x, index: x[index], lambda t, index: t[_torch_index(index)],
            cases={label: Case(((3, 4),), dict(index=index)) for label, index in INDEXES.items()},
        ),
    },
)

# -- fused nodes: functional ops and checkpoint, one node each with its own rule -------------

LABELS = np.array([2, 0, 1, 1])


def _block(t: Any) -> Any:
    """What the checkpoint row recomputes; the same text in tinyad and torch."""
    return (t * t).tanh() * 2


SOFTMAX_CASES = {
    "axis -1": Case(((3, 4),), dict(axis=-1)),
    "axis 0": Case(((3, 4),), dict(axis=0)),
    "axis 1 of (2, 3, 4)": Case(((2, 3, 4),), dict(axis=1)),
}

FUSED = Family(
    rows={
        "softmax": Op(lambda x, axis: F.softmax(x, axis=axis), lambda t, axis: torch.softmax(t, dim=axis),
                      cases=SOFTMAX_CASES),
        "log_softmax": Op(lambda x, axis: F.log_softmax(x, axis=axis),
                          lambda t, axis: torch.log_softmax(t, dim=axis), cases=SOFTMAX_CASES),
        "logsumexp": Op(
            lambda x, axis, keepdims: F.logsumexp(x, axis=axis, keepdims=keepdims),
            lambda t, axis, keepdims: torch.logsumexp(t, dim=axis, keepdim=keepdims),
            cases={
                "axis -1": Case(((3, 4),), dict(axis=-1, keepdims=False)),
                "axis 0 keepdims": Case(((3, 4),), dict(axis=0, keepdims=True)),
                "axis 1 of (2, 3, 4)": Case(((2, 3, 4),), dict(axis=1, keepdims=False)),
            },
        ),
        "cross_entropy": Op(
            lambda x, labels: F.cross_entropy(x, labels),
            lambda t, labels: torch.nn.functional.cross_entropy(t, torch.tensor(labels)),
            cases={"(4, 3)": Case(((4, 3),), dict(labels=LABELS))},
        ),
        "mse": Op(F.mse, lambda p, t: torch.nn.functional.mse_loss(p, t),
                  cases={"(3, 2)": Case(((3, 2), (3, 2)))}),
        "log_sigmoid": Op(F.log_sigmoid, lambda t: torch.nn.functional.logsigmoid(t),
                          cases={"(2, 3)": Case(((2, 3),))}),
        "binary_cross_entropy_with_logits": Op(
            F.binary_cross_entropy_with_logits,
            lambda x, t: torch.nn.functional.binary_cross_entropy_with_logits(x, t),
            ("any", "unit"), cases={"(2, 3)": Case(((2, 3), (2, 3)))},
        ),
        "linear": Op(
            lambda x, w, *b: F.linear(x, w, *b), lambda x, w, *b: x @ w + b[0] if b else x @ w,
            cases={
                "(4, 3) (3, 2) (2,)": Case(((4, 3), (3, 2), (2,))),
                "batch axes (2, 4, 3) (3, 2) (2,)": Case(((2, 4, 3), (3, 2), (2,))),
                "no bias": Case(((4, 3), (3, 2))),
            },
        ),
        "rnn_step": Op(F.rnn_step, lambda x, h, w_x, w_h, b: torch.tanh(x @ w_x + h @ w_h + b),
                       cases={"batch 3": Case(((3, 2), (3, 4), (2, 4), (4, 4), (4,)))}),
        "checkpoint": Op(lambda x: checkpoint(_block, x), _block, cases={"(2, 3)": Case(((2, 3),))}),
    },
)

FAMILIES: dict[str, Family] = {
    "elementwise": ELEMENTWISE,
    "binary": BINARY,
    "reductions": REDUCTIONS,
    "shapes": SHAPES,
    "fused": FUSED,
}


# The divisor's gradient, -out.grad * out / b, where one order of the product would leave the
# floats: (a, b, the gradient arriving at a / b, the divisor's gradient). Both engines take each.
DIVISOR_GRADIENTS = [
    (0.0, 1e-310, 1.0, -0.0),  # out.grad / b overflows; out / b is 0
    (1e-300, 1e-200, 1e200, -1e300),  # out.grad / b overflows; the gradient fits
    (1e300, 1e100, 1e-300, -1e-200),  # out.grad / b vanishes to 0; the gradient is not 0
    (1e300, 1e-5, 1e-20, -1e290),  # out / b overflows; out.grad / b first does not
    (1e-290, 1e10, 1e300, -1e-10),  # out / b falls below the normal floats; out.grad / b first does not
    (-1e15, 1e10, 1e-300, 1e-305),  # out.grad / b falls below the normal floats; out / b, negative, does not
]


def each_input_of_each_op() -> list[Any]:
    """pytest params ``(op, case, i)``: every row on its first case, once for each of its inputs
    (named "family-row-input i"), for the tests of what one input's data can do to any op."""
    params = []
    for family, table in FAMILIES.items():
        for name, op in table.rows.items():
            case = next(iter(table.cases_of(name).values()))
            params += [pytest.param(op, case, i, id=f"{family}-{name}-input {i}") for i in range(len(case.shapes))]
    return params
