"""Every row of tests/op_families.py, on every case, checked four ways.

- By finite differences, without PyTorch: Tensors in float64 (every element of every input,
  the output weighted at random so the whole vector-Jacobian product counts), and Values
  (one number per input) for the rows that say ``on_values``.
- In float32: the same inputs, the same upstream gradient; the output and the gradients,
  float32 arrays of the inputs' shapes, agree with float64's to float32's precision.
- Against PyTorch in float64, where it is installed (skipped, with the reason, where not).
- On the arrays of another library (tests/array_libraries.py: array_api_strict, which refuses
  anything outside the array API standard, PyTorch's CPU tensors, and JAX's arrays, which cannot
  change once made): NumPy's numbers to 1e-12 in float64, and the output and every gradient
  arrays of that library. And on array_api_strict's other devices, which refuse the default
  device's arrays as a GPU's refuse the CPU's: the output and every gradient on the inputs'
  device, with NumPy's numbers (in float32 on the device that holds no float64).

And for each input of a row with several: made a constant, it gets no gradient, and the other
inputs the gradients they get when every input needs one.

Inputs are drawn from each row's domains, seeded by the row's and the case's names. Last, a
``*_backward`` rule in src/ that no row's graph uses fails the test that looks for them.
"""

from __future__ import annotations

import ast
import inspect
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tinyad
from tinyad import Tensor, Value, gradcheck, topo_sort
from tinyad.tensor import functional
from tinyad.tensor.backend import to_numpy
from array_libraries import (  # tests/array_libraries.py
    LIBRARIES, OTHER_DEVICES, TOLERANCE as SAME, array_api_strict, kind, namespace, strict_device, to,
)
from op_families import FAMILIES, TOLERANCE, Case, Op, draw, each_input_of_each_op  # tests/op_families.py
from torch_reference import needs_torch, torch  # tests/torch_reference.py

POINTS_PER_VALUE_ROW = 4

TENSOR_CASES = [
    pytest.param(family, name, label, id=f"{family}-{name}-{label}")
    for family, table in FAMILIES.items()
    for name in table.rows
    for label in table.cases_of(name)
]
VALUE_ROWS = [
    pytest.param(family, name, id=f"{family}-{name}")
    for family, table in FAMILIES.items()
    for name, op in table.rows.items()
    if op.on_values
]


def _rng(*names: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("/".join(names).encode()))


def tensor_case(family: str, name: str, label: str) -> tuple[Op, Case, list[np.ndarray], np.ndarray]:
    """The row, its case, the inputs (float64 arrays) and an upstream gradient of the output's shape."""
    op = FAMILIES[family].rows[name]
    case = FAMILIES[family].cases_of(name)[label]
    rng = _rng(family, name, label)
    arrays = [draw(rng, op.domain(i), shape) for i, shape in enumerate(case.shapes)]
    out = op.f(*[Tensor(a) for a in arrays], **case.kwargs)
    upstream = draw(rng, "any", out.shape)
    return op, case, arrays, upstream


def run_tensors(op: Op, case: Case, arrays: list[np.ndarray], upstream: np.ndarray,
                dtype: Any) -> tuple[Tensor, list[Tensor]]:
    """``op.f`` on Tensors of ``dtype``, backward from ``upstream``: the output and the inputs."""
    inputs = [Tensor(a, requires_grad=True, dtype=dtype) for a in arrays]
    out = op.f(*inputs, **case.kwargs)
    out.backward(upstream)
    assert out.dtype == np.dtype(dtype)
    for x in inputs:
        assert x.grad is not None and x.grad.shape == x.shape, "a gradient has its tensor's shape"
        assert x.grad.dtype == np.dtype(dtype), "a gradient has its tensor's dtype"
    return out, inputs


def value_points(family: str, name: str) -> list[list[float]]:
    """A few points for a scalar row, one number per input, drawn from the row's domains."""
    op = FAMILIES[family].rows[name]
    rng = _rng(family, name, "Value")
    arity = len(next(iter(FAMILIES[family].cases_of(name).values())).shapes)
    return [[float(draw(rng, op.domain(i), ())) for i in range(arity)] for _ in range(POINTS_PER_VALUE_ROW)]


# -- finite differences: no PyTorch needed ------------------------------------------------------


@pytest.mark.parametrize("family,name,label", TENSOR_CASES)
def test_tensor_gradients_match_finite_differences(family, name, label):
    op, case, arrays, upstream = tensor_case(family, name, label)
    weights = Tensor(upstream)
    assert gradcheck(lambda *xs: (op.f(*xs, **case.kwargs) * weights).sum(), *[Tensor(a) for a in arrays])


@pytest.mark.parametrize("family,name", VALUE_ROWS)
def test_value_gradients_match_finite_differences(family, name):
    # The op's output is used twice, with weights other than 1: a rule that forgets to multiply
    # by out.grad, or that sets a parent's grad (=) where it must add (+=), fails. (Called alone,
    # with backward's seed of 1 and each input used once, both passed.)
    op = FAMILIES[family].rows[name]
    for point in value_points(family, name):
        assert gradcheck(lambda *vs: op.f(*vs) * 1.7 + op.f(*vs) * -0.6, *[Value(x) for x in point])


@pytest.mark.parametrize("family,name,label", TENSOR_CASES)
def test_float32_agrees_with_float64(family, name, label):
    op, case, arrays, upstream = tensor_case(family, name, label)
    out64, inputs64 = run_tensors(op, case, arrays, upstream, np.float64)
    out32, inputs32 = run_tensors(op, case, arrays, upstream, np.float32)
    np.testing.assert_allclose(out32.data, out64.data, **TOLERANCE[np.float32])
    for x32, x64 in zip(inputs32, inputs64):
        np.testing.assert_allclose(x32.grad, x64.grad, **TOLERANCE[np.float32])


# -- PyTorch as a second referee ------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("family,name,label", TENSOR_CASES)
def test_tensor_matches_torch(family, name, label):
    op, case, arrays, upstream = tensor_case(family, name, label)
    out, inputs = run_tensors(op, case, arrays, upstream, np.float64)
    references = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    expected = op.torch(*references, **case.kwargs)
    expected.backward(torch.tensor(upstream, dtype=torch.float64))
    assert out.shape == tuple(expected.shape)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), **TOLERANCE[np.float64])
    for x, r in zip(inputs, references):
        np.testing.assert_allclose(x.grad, r.grad.numpy(), **TOLERANCE[np.float64])


@needs_torch
@pytest.mark.parametrize("family,name", VALUE_ROWS)
def test_value_matches_torch(family, name):
    op = FAMILIES[family].rows[name]
    for point in value_points(family, name):
        values = [Value(x) for x in point]
        out = op.f(*values)
        out.backward()
        references = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in point]
        expected = op.torch(*references)
        expected.backward()
        np.testing.assert_allclose(out.data, expected.item(), **TOLERANCE[np.float64])
        for v, r in zip(values, references):
            np.testing.assert_allclose(v.grad, r.grad.item(), **TOLERANCE[np.float64])


# -- on other array libraries -------------------------------------------------------------------

# The cases array_api_strict refuses, and why: the standard has no unbuffered scatter-add, which
# the gradient of an integer-array index needs (an entry may be picked twice), so the engine
# refuses such an index of a tensor that needs a gradient at once, naming the library
# (tensor/backend.py). (Nor does the standard define one integer array for a 2-D array, or
# integer arrays beside slices: without a gradient, the library itself refuses those.)
OUTSIDE_THE_STANDARD = {
    # Any integer array that picks something: the engine does not read its entries for a repeat.
    ("shapes", "getitem", "[2] one entry"): (TypeError, "scatter-add.*array_api_strict"),
    ("shapes", "getitem", "[0, 2, 0, 0] repeated"): (TypeError, "scatter-add.*array_api_strict"),
    ("shapes", "getitem", ":, [[0, 0], [1, 3]]"): (TypeError, "scatter-add.*array_api_strict"),
    ("shapes", "getitem", "[0, 1, 1], [3, 3, 3] repeated"): (TypeError, "scatter-add.*array_api_strict"),
    # A mask picks each entry once, so no scatter-add is asked for: the standard's own words refuse
    # a mask beside another index, and a bool.
    ("shapes", "getitem", ":, mask of columns"): (IndexError, "masking is only specified .* sole index"),
    ("shapes", "getitem", "2, mask of columns"): (IndexError, "masking is only specified .* sole index"),
    ("shapes", "getitem", "True"): (IndexError, "only integers, slices"),
}


def run_elsewhere(xp: Any, family: str, name: str, label: str, device: Any = None,
                  dtype: type = np.float64) -> tuple[Tensor, list[Tensor]] | None:
    """A row of the op table on arrays of ``xp`` on ``device`` in ``dtype``, forward and backward: its
    output and inputs, their numbers checked against NumPy's (to 1e-12 in float64, 1e-6 in float32).
    None for a row array_api_strict refuses, once its forward op has refused it as expected (not
    after the whole forward pass)."""
    op, case, arrays, upstream = tensor_case(family, name, label)
    expected, expected_inputs = run_tensors(op, case, arrays, upstream, dtype)
    inputs = [Tensor(to(xp, a.astype(dtype), device), requires_grad=True) for a in arrays]
    refused = OUTSIDE_THE_STANDARD.get((family, name, label)) if xp is array_api_strict else None
    if refused:
        with pytest.raises(refused[0], match=refused[1]):
            op.f(*inputs, **case.kwargs)
        return None
    out = op.f(*inputs, **case.kwargs)
    out.backward(to(xp, upstream.astype(dtype), device))
    close = SAME if dtype == np.float64 else dict(rtol=1e-6, atol=1e-6)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected.data, **close)
    for x, e in zip(inputs, expected_inputs):
        assert x.grad.dtype == x.dtype and tuple(x.grad.shape) == x.shape
        np.testing.assert_allclose(to_numpy(x.grad), e.grad, **close)
    return out, inputs


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("family,name,label", TENSOR_CASES)
def test_tensor_in_another_library_gives_numpys_numbers(library, family, name, label):
    xp = namespace(library)
    ran = run_elsewhere(xp, family, name, label)
    if ran:
        out, inputs = ran
        assert type(out.data) is kind(xp)
        assert all(type(x.grad) is kind(xp) for x in inputs), "a gradient stays in its tensor's library"


@pytest.mark.parametrize("place", list(OTHER_DEVICES))
@pytest.mark.parametrize("family,name,label", TENSOR_CASES)
def test_tensor_on_another_device_of_array_api_strict_keeps_every_array_there(place, family, name, label):
    # A GPU's arrays refuse the CPU's; so do these devices' the default one's. An op or a rule that
    # made an array without device= (zeros for a gradient, an index, a constant) fails here.
    device, dtype = strict_device(place), OTHER_DEVICES[place]
    ran = run_elsewhere(array_api_strict, family, name, label, device, dtype)
    if ran:
        out, inputs = ran
        assert out.device == device and out.dtype == getattr(array_api_strict, np.dtype(dtype).name)
        assert all(x.grad.device == device for x in inputs), "a gradient stays on its tensor's device"


# -- an input that needs no gradient -------------------------------------------------------------

INPUTS_OF_OPS_OF_SEVERAL = [p for p in each_input_of_each_op() if len(p.values[1].shapes) > 1]


@pytest.mark.parametrize("op, case, i", INPUTS_OF_OPS_OF_SEVERAL)
def test_an_input_that_needs_no_gradient_gets_none_and_the_others_theirs(op, case, i):
    # A rule that fed a parent without asking whether it requires grad filled a constant's grad (a
    # batch's, a target's); one that asked another parent (the weight's flag for the bias) left a
    # gradient out. The rows give every input a gradient, so neither showed there.
    rng = np.random.default_rng(i)
    arrays = [draw(rng, op.domain(j), shape) for j, shape in enumerate(case.shapes)]
    every = [Tensor(a, requires_grad=True) for a in arrays]
    op.f(*every, **case.kwargs).sum().backward()
    some = [Tensor(a, requires_grad=j != i) for j, a in enumerate(arrays)]
    op.f(*some, **case.kwargs).sum().backward()
    assert some[i].grad is None
    for j in range(len(arrays)):
        if j != i:
            np.testing.assert_array_equal(some[j].grad, every[j].grad)


# -- every backward rule has a row ----------------------------------------------------------

# Rules that compute no derivative, and where they are tested instead.
NOT_DERIVATIVES = {
    "tinyad.tensor.tensor.freed_backward": "the rule of a released node, which raises "
                                           "(tests/test_tensor_graph.py)",
}


def backward_rules_in_src() -> dict[str, str]:
    """Every function named ``*_backward`` in the engine, as ``module.qualname`` -> ``file:line``."""
    src = Path(tinyad.__file__).resolve().parent
    rules = {}
    for path in sorted(src.rglob("*.py")):
        module = ".".join(path.relative_to(src.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for top in tree.body:
            inside = top.body if isinstance(top, ast.ClassDef) else [top]
            prefix = f"{top.name}." if isinstance(top, ast.ClassDef) else ""
            for node in inside:
                if isinstance(node, ast.FunctionDef) and node.name.endswith("_backward"):
                    rules[f"{module}.{prefix}{node.name}"] = f"{path.relative_to(src.parent.parent)}:{node.lineno}"
    return rules


def rules_in_graph(out: Any) -> set[str]:
    """The rules of the nodes of the graph behind ``out``, as ``module.qualname``."""
    return {f"{n.backward_rule.__module__}.{n.backward_rule.__qualname__}"
            for n in topo_sort(out) if n.backward_rule is not None}


def rows_by_rule() -> dict[str, list[str]]:
    """Which rows use each rule, from the graphs their forward passes record."""
    used: dict[str, list[str]] = {}
    for family, table in FAMILIES.items():
        for name, op in table.rows.items():
            for label, case in table.cases_of(name).items():
                rng = _rng(family, name, label)
                inputs = [Tensor(draw(rng, op.domain(i), s), requires_grad=True) for i, s in enumerate(case.shapes)]
                for rule in rules_in_graph(op.f(*inputs, **case.kwargs)):
                    used.setdefault(rule, []).append(f"{family}/{name}")
            if op.on_values:
                for rule in rules_in_graph(op.f(*[Value(x) for x in value_points(family, name)[0]])):
                    used.setdefault(rule, []).append(f"{family}/{name} on Values")
    return used


def test_every_backward_rule_in_src_has_a_row():
    in_src = backward_rules_in_src()
    used = rows_by_rule()
    missing = sorted(set(in_src) - set(used) - set(NOT_DERIVATIVES))
    assert not missing, "no row of tests/op_families.py uses these backward rules: " + "; ".join(
        f"{rule} ({in_src[rule]})" for rule in missing)
    # The search finds every rule the rows run, so it cannot miss one named otherwise.
    unnamed = sorted(set(used) - set(in_src))
    assert not unnamed, f"rules not named *_backward, which this test cannot look for: {unnamed}"
    assert set(NOT_DERIVATIVES) <= set(in_src), "an exempted rule is no longer in src/"


def test_relu_has_slope_0_at_0_in_both_engines():
    # PyTorch's choice at the kink, which finite differences cannot referee (they give 1/2), and
    # which no row reaches: the rows draw relu's inputs away from 0.
    v = Value(0.0)
    v.relu().backward()
    t = Tensor([0.0, -0.0, 1e-300, -1e-300], requires_grad=True)
    t.relu().sum().backward()
    assert v.grad == 0.0 and t.grad.tolist() == [0.0, 0.0, 1.0, 0.0]


# What a node is asked to do, and what reads it: no ops.
NOT_OPS = {"accumulate", "backward", "detach", "has_grad", "item", "new_leaf", "new_node", "numpy",
           "operand", "release", "zero_grad"}


def test_every_op_has_a_row_named_after_it():
    # The rule check below misses an op that reuses another op's rule (min runs on max_backward):
    # here every op method of both engines, and every function of functional, needs its row.
    rows = {name for family in FAMILIES.values() for name in family.rows}
    methods = {name for cls in (Tensor, Value) for name in dir(cls)
               if not name.startswith("_") and callable(getattr(cls, name)) and not name.endswith("_backward")
               and not hasattr(getattr(cls, name), "instead")}  # a NumPy or PyTorch name, refused with words
    functions = {name for name, f in vars(functional).items()
                 if inspect.isfunction(f) and f.__module__ == functional.__name__
                 and not name.startswith("_") and not name.endswith("_backward")}
    missing = sorted(((methods - NOT_OPS) | functions) - rows)
    assert not missing, f"ops with no row in tests/op_families.py: {missing}"
