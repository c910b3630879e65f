"""Small graphs made of the rows of tests/op_families.py, their gradients against PyTorch and finite differences.

test_op_families.py checks each op alone, its output weighted once. A graph of several asks more
of the engine: a value that feeds two ops takes the sum of their gradients, a gradient broadcast
back by one rule arrives at another's, a reduction's or an index's gradient reaches an input
through ops after it, a fused node (a layer, a loss, checkpoint) hands its several gradients to
values other ops share, or takes one value twice. Here each seed makes a graph of six steps over
three inputs, every step a row of the op table (its ``f`` for tinyad, its ``torch`` for PyTorch)
on values made before it, and the gradients of every input are compared: with PyTorch's, with finite
differences, with float64's in float32, and with NumPy's where the engine computes on another
array library's arrays. Graphs of one number per input run on the scalar engine too, against the
array engine. The graphs are the same on every run: a failure names its seed and prints the
graph, step by step.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tinyad import Tensor, Value, checkpoint, gradcheck
from tinyad.tensor.backend import to_numpy
from array_libraries import (  # tests/array_libraries.py
    LIBRARIES, TOLERANCE as SAME, array_api_strict, kind, namespace, to,
)
from op_families import DOMAINS, FAMILIES, TOLERANCE, Op, draw  # tests/op_families.py
from torch_reference import needs_torch, torch  # tests/torch_reference.py

STEPS, INPUTS = 6, 3
TORCH_SEEDS, FINITE_DIFFERENCE_SEEDS, VALUE_SEEDS, CHECKPOINT_SEEDS = range(120), range(40), range(40), range(40)
OTHER_LIBRARY_SEEDS, FLOAT32_SEEDS = range(30), range(40)

# The rows a graph is made of, by family (every row of the op table), and how often a step is of
# each family: binary ops most, where values meet and broadcast.
FAMILY_ROWS = {family: sorted(table.rows) for family, table in FAMILIES.items()}
FAMILY_WEIGHTS = {"elementwise": 0.22, "binary": 0.30, "reductions": 0.14, "shapes": 0.14, "fused": 0.20}
# Within a family rows are equally likely, but for those whose inputs seldom fit: the layers take
# a weight of a shape only some graphs have (``graph``'s square input), and binary cross-entropy
# targets in (0, 1) of its logits' shape.
ROW_WEIGHTS = {"linear": 5, "rnn_step": 5, "binary_cross_entropy_with_logits": 3}
ROWS = {name: (family, name) for family, names in FAMILY_ROWS.items() for name in names}
# A graph of Values: one number per input, and the rows the scalar engine has (``on_values``).
VALUE_FAMILY_ROWS = {family: [name for name in FAMILY_ROWS[family] if FAMILIES[family].rows[name].on_values]
                     for family in ("elementwise", "binary")}
VALUE_FAMILY_WEIGHTS = {"elementwise": 0.4, "binary": 0.6}


@dataclass(frozen=True)
class Step:
    """``values[len(inputs) + k] = row(values[i] for i in operands, **kwargs)``."""

    row: str
    operands: tuple[int, ...]
    kwargs: dict[str, Any]

    @property
    def op(self) -> Op:
        family, name = ROWS[self.row]
        return FAMILIES[family].rows[name]


def run(steps: list[Step], inputs: list[Any], engine: str) -> list[Any]:
    """Every value of the graph, the inputs first: tinyad's (``engine="f"``) or PyTorch's (``"torch"``)."""
    values = list(inputs)
    for step in steps:
        values.append(getattr(step.op, engine)(*(values[i] for i in step.operands), **step.kwargs))
    return values


def ends(steps: list[Step], values: list[Any]) -> list[Any]:
    """The values of the graph that no step uses (an input's too)."""
    used = {i for step in steps for i in step.operands}
    return [v for i, v in enumerate(values) if i not in used]


def loss(steps: list[Step], inputs: list[Any], weights: list[Any], engine: str,
         total: Any = lambda x: x.sum()) -> Any:
    """One number from the whole graph, which every input reaches: its ends, each times weights of
    its shape, summed (``total``: a Value is its own)."""
    return sum(total(v * w) for v, w in zip(ends(steps, run(steps, inputs, engine)), weights))


def loss_weights(steps: list[Step], inputs: list[np.ndarray], seed: int) -> list[np.ndarray]:
    """The weights ``loss`` multiplies the graph's ends by, drawn for their shapes."""
    rng = np.random.default_rng(seed)
    return [rng.normal(size=v.shape) for v in ends(steps, run(steps, [Tensor(x) for x in inputs], "f"))]


def describe(steps: list[Step], shapes: list[tuple[int, ...]]) -> str:
    lines = [f"v{i}: an input of shape {shape}" for i, shape in enumerate(shapes)]
    for k, step in enumerate(steps, start=len(shapes)):
        arguments = [f"v{i}" for i in step.operands] + [f"{key}={value!r}" for key, value in step.kwargs.items()]
        lines.append(f"v{k} = {step.row}({', '.join(arguments)})")
    return "\n".join(lines)


# -- making a graph ----------------------------------------------------------------------------


def in_domain(domain: str, x: np.ndarray) -> bool:
    """Whether ``x`` lies where the row asks its input to (op_families.DOMAINS), with a margin that
    keeps a finite difference of 1e-6 off a kink (relu at 0), a pole (1 / x) or a bound (log)."""
    if domain == "any":
        return True
    if domain == "positive":
        return bool(np.all(x > 0.05))
    if domain == "nonzero":
        return bool(np.all(np.abs(x) > 0.01))
    if domain == "unit":
        return bool(np.all((x > 0.05) & (x < 0.95)))
    if domain == "distinct":  # max and min: no two entries so close that a nudge would swap them
        gaps = np.diff(np.sort(x, axis=None))
        return bool(np.all((gaps == 0) | (gaps > 1e-4)))  # an entry picked twice ties exactly, on both sides
    raise ValueError(f"op_families.DOMAINS has {domain!r}, which in_domain does not know: give it its margin")


def arguments(row: str, shape: tuple[int, ...], rng: np.random.Generator) -> dict[str, Any] | None:
    """The keyword arguments of a one-input row for an input of ``shape``, drawn at random, or
    None where the row takes no input of that shape."""
    ndim = len(shape)
    if row in ("sum", "mean", "max", "min"):
        axes = [None, *range(-ndim, ndim)] + ([(0, ndim - 1)] if ndim >= 2 else [])
        return dict(axis=axes[rng.integers(len(axes))], keepdims=bool(rng.integers(2)))
    if row in ("softmax", "log_softmax", "logsumexp"):
        if ndim == 0:
            return None
        axis = int(rng.integers(-ndim, ndim))
        return dict(axis=axis, keepdims=bool(rng.integers(2))) if row == "logsumexp" else dict(axis=axis)
    if row == "reshape":
        return dict(shape=(-1,) if rng.integers(2) else (*shape, 1))
    if row == "transpose":
        return dict(axes=tuple(int(a) for a in rng.permutation(ndim))) if ndim >= 2 else None
    if row == "T":
        return {} if ndim >= 2 else None
    if row == "getitem":
        return index(shape, rng)
    if row == "cross_entropy":  # logits (batch, classes) and a label per row
        return dict(labels=rng.integers(0, shape[1], size=shape[0])) if ndim == 2 else None
    return {}


def takes(row: str, shapes: list[tuple[int, ...]]) -> bool:
    """Whether a fused row's inputs so far have shapes that fit each other: linear's x (..., nin),
    weight (nin, nout) and bias (nout,); an RNN step's x (batch, nin), h (batch, nhidden), w_x
    (nin, nhidden), w_h (nhidden, nhidden) and b (nhidden,); a loss's target its input's shape.
    Drawn at random, such inputs would seldom meet; the other rows broadcast, or refuse."""
    first, last, k = shapes[0], shapes[-1], len(shapes) - 1
    if row == "linear":
        if k == 0:
            return len(last) >= 1
        if k == 1:
            return len(last) == 2 and last[0] == first[-1]
        return last == shapes[1][1:]
    if row == "rnn_step":
        if k <= 1:  # x, then h of x's batch
            return len(last) == 2 and last[0] == first[0]
        batch, nin = first
        nhidden = shapes[1][1]
        return last == [(nin, nhidden), (nhidden, nhidden), (nhidden,)][k - 2]
    if row in ("mse", "binary_cross_entropy_with_logits"):
        return last == first
    return True


def choose_operands(row: str, arity: int, values: list[Tensor], rng: np.random.Generator) -> tuple[int, ...] | None:
    """The indices of ``arity`` values a step takes, later values likelier (a graph grows deep as
    well as wide), each one whose shape fits the ones before (``takes``); None where none does."""
    chosen: list[int] = []
    for _ in range(arity):
        fit = [i for i in range(len(values)) if takes(row, [values[j].shape for j in chosen] + [values[i].shape])]
        if not fit:
            return None
        weights = np.array(fit, dtype=float) + 1
        chosen.append(int(rng.choice(fit, p=weights / weights.sum())))
    return tuple(chosen)


def index(shape: tuple[int, ...], rng: np.random.Generator) -> dict[str, Any] | None:
    """An index for ``shape``: integers along its first or second axis, which may pick one more than
    once; a slice; or a mask."""
    if not shape:
        return None
    kind = rng.integers(3)
    if kind == 0:  # along the first axis, or the second
        axis = int(rng.integers(min(len(shape), 2)))
        picked = [int(i) for i in rng.integers(0, shape[axis], size=4)]
        return dict(index=picked if axis == 0 else (slice(None), picked))
    if kind == 1:
        return dict(index=slice(int(rng.integers(shape[0])), None, int(rng.integers(1, 3))))
    mask = rng.random(shape) < 0.6
    return dict(index=mask) if mask.any() else None


def fits(value: Tensor) -> bool:
    """Whether a step's result can go on: not empty, and of a size finite differences still resolve."""
    return value.size > 0 and bool(np.all(np.abs(value.data) < 1e3))


def graph(seed: int, of_values: bool = False) -> tuple[list[np.ndarray], list[Step]]:
    """The inputs and the steps of graph ``seed``: shapes that broadcast against each other, and
    each step a row whose inputs lie in its domains, on values a later step may use again.
    ``of_values``: inputs of shape () and the rows the scalar engine has."""
    rows, family_weights = (VALUE_FAMILY_ROWS, VALUE_FAMILY_WEIGHTS) if of_values else (FAMILY_ROWS, FAMILY_WEIGHTS)
    rng = np.random.default_rng(seed)
    base = () if of_values else tuple(int(n) for n in rng.integers(2, 5, size=rng.integers(1, 4)))
    shapes = [base]
    for _ in range(INPUTS - 1):  # each the base shape with some axes of 1, some leading axes gone
        stretched = tuple(1 if rng.random() < 0.4 else n for n in base)
        shapes.append(stretched[rng.integers(len(base) + 1):])
    if base and rng.random() < 0.3:  # or the last a square weight, for linear and rnn_step
        shapes[-1] = (base[-1], base[-1])
    inputs = [rng.normal(size=shape) * (1 if rng.integers(2) else 0.5) + (0 if rng.integers(2) else 2)
              for shape in shapes]
    values = [Tensor(x) for x in inputs]
    steps: list[Step] = []
    families = list(family_weights)
    for _ in range(60):
        if len(steps) == STEPS:
            break
        family = families[rng.choice(len(families), p=list(family_weights.values()))]
        row_weights = np.array([ROW_WEIGHTS.get(name, 1) for name in rows[family]], dtype=float)
        row = rows[family][rng.choice(len(rows[family]), p=row_weights / row_weights.sum())]
        op = FAMILIES[family].rows[row]
        arity = len(next(iter(FAMILIES[family].cases_of(row).values())).shapes)
        if row == "linear":
            arity -= int(rng.integers(2))  # with its bias or without
        operands = choose_operands(row, arity, values, rng)
        if operands is None or not all(in_domain(op.domain(k), values[i].data) for k, i in enumerate(operands)):
            continue
        kwargs = arguments(row, values[operands[0]].shape, rng) if arity == 1 else {}
        if kwargs is None:
            continue
        try:
            made = op.f(*(values[i] for i in operands), **kwargs)
        except ValueError:  # shapes that do not broadcast, or do not meet in a product
            continue
        if fits(made):
            steps.append(Step(row, operands, kwargs))
            values.append(made)
    return inputs, steps


# -- the tests ----------------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("seed", TORCH_SEEDS)
def test_a_graph_of_the_ops_gives_pytorchs_numbers_and_gradients(seed):
    inputs, steps = graph(seed)
    shown = f"graph {seed}:\n{describe(steps, [x.shape for x in inputs])}"
    weights = loss_weights(steps, inputs, seed)
    ours = [Tensor(x, requires_grad=True) for x in inputs]
    theirs = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in inputs]
    out = loss(steps, ours, [Tensor(w) for w in weights], "f")
    expected = loss(steps, theirs, [torch.tensor(w, dtype=torch.float64) for w in weights], "torch")
    np.testing.assert_allclose(out.item(), expected.item(), **TOLERANCE[np.float64], err_msg=shown)
    out.backward()
    expected.backward()
    for i, (x, reference) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(x.grad, reference.grad.numpy(), **TOLERANCE[np.float64],
                                   err_msg=f"v{i}'s gradient, {shown}")


@pytest.mark.parametrize("seed", FINITE_DIFFERENCE_SEEDS)
def test_a_graph_of_the_ops_has_the_gradients_of_finite_differences(seed):
    inputs, steps = graph(seed)
    weights = [Tensor(w) for w in loss_weights(steps, inputs, seed)]
    try:
        assert gradcheck(lambda *xs: loss(steps, list(xs), weights, "f"), *[Tensor(x) for x in inputs])
    except AssertionError as error:  # gradcheck's own message names the input and the entry; add the graph
        raise AssertionError(f"{error}\ngraph {seed}:\n{describe(steps, [x.shape for x in inputs])}") from None


@pytest.mark.parametrize("seed", FLOAT32_SEEDS)
def test_a_graph_in_float32_stays_float32_and_agrees_with_float64(seed):
    # Each op keeps float32 alone (test_op_families.py); a graph asks it of every value on the way.
    inputs, steps = graph(seed)
    shown = f"graph {seed}:\n{describe(steps, [x.shape for x in inputs])}"
    weights = loss_weights(steps, inputs, seed)
    ran = {}
    for dtype in (np.float64, np.float32):
        xs = [Tensor(x, requires_grad=True, dtype=dtype) for x in inputs]
        values = run(steps, xs, "f")
        made_in = [f"v{i}: {v.dtype}" for i, v in enumerate(values) if v.dtype != dtype]
        assert not made_in, f"in {np.dtype(dtype)}, {', '.join(made_in)}\n{shown}"
        out = loss(steps, xs, [Tensor(w, dtype=dtype) for w in weights], "f")
        out.backward()
        assert all(x.grad.dtype == dtype for x in xs), f"a gradient is not {np.dtype(dtype)}\n{shown}"
        ran[dtype] = out, xs
    (out64, xs64), (out32, xs32) = ran[np.float64], ran[np.float32]
    np.testing.assert_allclose(out32.item(), out64.item(), **TOLERANCE[np.float32], err_msg=shown)
    for i, (x32, x64) in enumerate(zip(xs32, xs64)):
        np.testing.assert_allclose(x32.grad, x64.grad, **TOLERANCE[np.float32], err_msg=f"v{i}'s gradient, {shown}")


@pytest.mark.parametrize("seed", CHECKPOINT_SEEDS)
def test_a_graph_whose_later_steps_are_checkpointed_has_the_same_gradients(seed):
    # Every value made before the split is passed to checkpoint, leaves and interior nodes alike;
    # the block recomputes the rest and the loss, and its gradients flow back through both.
    inputs, steps = graph(seed)
    shown = f"graph {seed}:\n{describe(steps, [x.shape for x in inputs])}"
    weights = [Tensor(w) for w in loss_weights(steps, inputs, seed)]
    split = int(np.random.default_rng(seed).integers(len(steps) + 1))
    plain = [Tensor(x, requires_grad=True) for x in inputs]
    expected = loss(steps, plain, weights, "f")
    expected.backward()

    def rest(*made: Tensor) -> Tensor:
        values = run(steps[split:], list(made), "f")
        return sum((v * w).sum() for v, w in zip(ends(steps, values), weights))

    ours = [Tensor(x, requires_grad=True) for x in inputs]
    out = checkpoint(rest, *run(steps[:split], ours, "f"))
    out.backward()
    shown = f"split after step {split} of {shown}"
    np.testing.assert_allclose(out.item(), expected.item(), **SAME, err_msg=shown)
    for i, (x, e) in enumerate(zip(ours, plain)):
        np.testing.assert_allclose(x.grad, e.grad, **SAME, err_msg=f"v{i}'s gradient, {shown}")


@pytest.mark.parametrize("seed", VALUE_SEEDS)
def test_a_graph_of_values_gives_the_array_engines_numbers_and_gradients(seed):
    # The same graph, one number per input, in both engines (the array engine's is checked above).
    inputs, steps = graph(seed, of_values=True)
    shown = f"graph {seed} of Values:\n{describe(steps, [x.shape for x in inputs])}"
    weights = loss_weights(steps, inputs, seed)
    tensors = [Tensor(x, requires_grad=True) for x in inputs]
    expected = loss(steps, tensors, [Tensor(w) for w in weights], "f")
    expected.backward()
    values = [Value(float(x)) for x in inputs]
    out = loss(steps, values, [float(w) for w in weights], "f", total=lambda v: v)
    out.backward()
    assert isinstance(out, Value), shown
    np.testing.assert_allclose(out.data, expected.item(), **SAME, err_msg=shown)
    for i, (v, t) in enumerate(zip(values, tensors)):
        np.testing.assert_allclose(v.grad, float(t.grad), **SAME, err_msg=f"v{i}'s gradient, {shown}")


def in_the_standard(step: Step) -> bool:
    """Whether array_api_strict takes the step with a gradient: not an index of integers, whose
    gradient needs a scatter-add the standard does not have (test_op_families.py's OUTSIDE_THE_STANDARD)."""
    index = step.kwargs.get("index")
    return not any(isinstance(part, list) for part in (index if isinstance(index, tuple) else (index,)))


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("seed", OTHER_LIBRARY_SEEDS)
def test_a_graph_of_the_ops_in_another_library_gives_numpys_numbers(library, seed):
    # Each op alone does (test_op_families.py); here gradients of that library meet and add up.
    xp = namespace(library)
    inputs, steps = graph(seed)
    if xp is array_api_strict:  # the graph up to the first step it refuses
        steps = list(itertools.takewhile(in_the_standard, steps))
    shown = f"graph {seed}:\n{describe(steps, [x.shape for x in inputs])}"
    weights = loss_weights(steps, inputs, seed)
    expected_inputs = [Tensor(x, requires_grad=True) for x in inputs]
    expected = loss(steps, expected_inputs, [Tensor(w) for w in weights], "f")
    expected.backward()
    ours = [Tensor(to(xp, x), requires_grad=True) for x in inputs]
    out = loss(steps, ours, [Tensor(to(xp, w)) for w in weights], "f")
    out.backward()
    assert type(out.data) is kind(xp), shown
    np.testing.assert_allclose(to_numpy(out.data), expected.data, **SAME, err_msg=shown)
    for i, (x, e) in enumerate(zip(ours, expected_inputs)):
        assert type(x.grad) is kind(xp), f"v{i}'s gradient left its tensor's library\n{shown}"
        np.testing.assert_allclose(to_numpy(x.grad), e.grad, **SAME, err_msg=f"v{i}'s gradient, {shown}")


def test_every_domain_of_the_op_table_has_a_margin_its_own_inputs_keep():
    # A domain added to op_families.DOMAINS without a margin here would be refused, not let through.
    rng = np.random.default_rng(0)
    for domain in DOMAINS:
        assert in_domain(domain, draw(rng, domain, (3, 4))), domain
    assert not in_domain("positive", np.array([1.0, 0.0])) and not in_domain("nonzero", np.array([1.0, -1e-3]))
    assert not in_domain("distinct", np.array([1.0, 1.0 + 1e-6])) and in_domain("distinct", np.array([1.0, 1.0]))
    with pytest.raises(ValueError, match="'integer', which in_domain does not know"):
        in_domain("integer", np.ones(2))


def test_the_graphs_share_values_broadcast_pick_twice_and_use_every_row():
    # What the graphs are for: were the generator to make only chains, or no broadcasting, the two
    # tests above would pass on an engine whose gradients go wrong where those meet.
    shared = broadcast = picked_twice = 0
    used = set()
    for seed in TORCH_SEEDS:  # the finite differences' among them
        inputs, steps = graph(seed)
        assert len(steps) == STEPS, f"graph {seed}: {len(steps)} steps\n{describe(steps, [x.shape for x in inputs])}"
        values = run(steps, [Tensor(x) for x in inputs], "f")
        uses = [i for step in steps for i in step.operands]
        shared += any(uses.count(i) > 1 for i in uses)
        for step in steps:
            used.add(step.row)
            if len(step.operands) == 2:
                broadcast += values[step.operands[0]].shape != values[step.operands[1]].shape
            picked = step.kwargs.get("index")
            picked = picked[-1] if isinstance(picked, tuple) else picked
            picked_twice += isinstance(picked, list) and len(set(picked)) < len(picked)
    n = len(TORCH_SEEDS)
    assert used == set(ROWS), (f"rows in no graph: {sorted(set(ROWS) - used)}; a row whose inputs must fit each "
                               "other's shapes needs a rule in takes(), and may need a weight in ROW_WEIGHTS")
    assert shared >= n // 2 and broadcast >= n // 4 and picked_twice >= n // 20, (shared, broadcast, picked_twice)
