"""Every Tensor op, forward and gradient, against PyTorch (float64) and finite differences.

Shapes are drawn by Hypothesis: broadcastable pairs up to 4-D, with size-1 axes,
missing leading axes and 0-d scalars. Each backward is seeded with a random
upstream gradient, so the whole vector-Jacobian product is compared, not only
its sum.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from tinyad import Tensor, gradcheck
from tinyad.tensor import sum_to_shape

from op_table import BINARY, UNARY  # tests/op_table.py: the ops of both engines
from torch_reference import needs_torch, torch  # tests/torch_reference.py

SETTINGS = settings(max_examples=30, deadline=None)
pairs = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=1, max_side=4)


def _array(rng: np.random.Generator, shape: tuple, kind: str = "any") -> np.ndarray:
    """Random test data: any sign, positive, or bounded away from 0."""
    if kind == "positive":
        return rng.uniform(0.5, 2.0, size=shape)
    if kind == "nonzero":
        return rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return rng.normal(size=shape)


def _compare(fn, torch_fn, arrays, seed=0, dtype=np.float64, rtol=1e-7, atol=1e-9):
    """Run ``fn`` on Tensors and ``torch_fn`` on float64 torch tensors; compare outputs and grads."""
    rng = np.random.default_rng(seed)
    tensors = [Tensor(a, requires_grad=True, dtype=dtype) for a in arrays]
    out = fn(*tensors)
    upstream = rng.normal(size=out.shape)
    out.backward(upstream)
    references = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    expected = torch_fn(*references)
    expected.backward(torch.tensor(upstream, dtype=torch.float64))
    assert out.shape == tuple(expected.shape)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=rtol, atol=atol)
    for t, r in zip(tensors, references):
        assert t.grad.shape == t.shape, "a gradient must have its tensor's shape"
        assert t.grad.dtype == np.dtype(dtype), "a gradient must have its tensor's dtype"
        np.testing.assert_allclose(t.grad, r.grad.numpy(), rtol=rtol, atol=atol)


# Each float type and how closely it must agree with torch's float64.
PRECISIONS = {"float64": dict(dtype=np.float64, rtol=1e-7, atol=1e-9),
              "float32": dict(dtype=np.float32, rtol=1e-4, atol=1e-5)}


@pytest.fixture(scope="module", params=sorted(PRECISIONS))
def precision(request) -> dict:
    """A float type and its tolerance, as keyword arguments of ``_compare``.

    Module-scoped, so Hypothesis may run many examples under one value of it.
    """
    return PRECISIONS[request.param]


@needs_torch
@pytest.mark.parametrize("op", sorted(BINARY))
@SETTINGS
@given(shapes=pairs, seed=st.integers(0, 2**32 - 1))
def test_binary_ops_broadcast_like_torch(op, precision, shapes, seed):
    fn, domain = BINARY[op]
    rng = np.random.default_rng(seed)
    a_shape, b_shape = shapes.input_shapes
    arrays = [_array(rng, a_shape), _array(rng, b_shape, domain)]
    _compare(fn, fn, arrays, seed=seed, **precision)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_numbers_and_arrays_on_either_side(op):
    fn, _ = BINARY[op]
    x = Tensor([[1.5, -2.0, 3.0]], requires_grad=True)
    array = np.array([[2.0], [-4.0]])
    for other in (2, 2.5, np.float64(3.0), array):
        for left, right in ((x, other), (other, x)):
            out = fn(left, right)
            assert isinstance(out, Tensor), f"{type(left).__name__} {op} {type(right).__name__}"
            expected = fn(left.data if left is x else left, right.data if right is x else right)
            np.testing.assert_allclose(out.data, expected)
            out.backward(np.ones(out.shape))
            assert x.grad.shape == x.shape
            x.grad = None


def test_python_numbers_and_int_arrays_keep_float32():
    x = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    for out in (2 * x, x + 1, 1 - x, x / 4, x * np.arange(3)):
        assert out.dtype == np.float32


shapes_up_to_4d = st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple)


@needs_torch
@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(shape=shapes_up_to_4d, seed=st.integers(0, 2**32 - 1))
def test_unary_ops_like_torch(name, precision, shape, seed):
    fn, torch_fn, domain = UNARY[name]
    array = _array(np.random.default_rng(seed), shape, domain)
    _compare(fn, torch_fn, [array], seed=seed, **precision)


@st.composite
def shape_and_axis(draw):
    """A shape up to 4-D and an axis argument for it: None, an int (maybe negative) or a tuple."""
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple))
    ndim = len(shape)
    axis = draw(
        st.one_of(
            st.none(),
            st.integers(-ndim, ndim - 1),
            st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple),
        )
    )
    return shape, axis


def _torch_axis(axis, ndim):
    return tuple(range(ndim)) if axis is None else axis


@needs_torch
@pytest.mark.parametrize("name", ["sum", "mean", "max"])
@SETTINGS
@given(case=shape_and_axis(), keepdims=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_reductions_like_torch(name, case, keepdims, seed):
    shape, axis = case
    # Distinct values, so max has no ties (ties are tested on their own below).
    array = np.random.default_rng(seed).permutation(np.prod(shape)).reshape(shape) / 7.0
    torch_fns = {"sum": torch.sum, "mean": torch.mean, "max": torch.amax}

    def reference(x):
        return torch_fns[name](x, dim=_torch_axis(axis, len(shape)), keepdim=keepdims)

    _compare(lambda x: getattr(x, name)(axis=axis, keepdims=keepdims), reference, [array], seed=seed)


def test_max_splits_the_gradient_evenly_among_ties():
    x = Tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], requires_grad=True)
    x.max(axis=1).backward(np.array([1.0, 3.0]))
    np.testing.assert_allclose(x.grad, [[0.0, 0.5, 0.5], [1.0, 1.0, 1.0]])
    y = Tensor([4.0, 1.0, 4.0, 4.0], requires_grad=True)
    y.max().backward()
    np.testing.assert_allclose(y.grad, [1 / 3, 0.0, 1 / 3, 1 / 3])


@needs_torch
def test_max_ties_like_torch_amax():
    x = Tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], requires_grad=True)
    x.max(axis=1).backward(np.array([1.0, 3.0]))
    reference = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], requires_grad=True)
    torch.amax(reference, dim=1).backward(torch.tensor([1.0, 3.0]))
    np.testing.assert_allclose(x.grad, reference.grad.numpy())


@needs_torch
@SETTINGS
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple), data=st.data())
def test_reshape_and_transpose_like_torch(shape, data):
    array = np.random.default_rng(0).normal(size=shape)
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    _compare(lambda x: x.transpose(*perm), lambda x: x.permute(*perm), [array])
    _compare(lambda x: x.T, lambda x: x.permute(*reversed(range(len(shape)))), [array])
    _compare(lambda x: x.reshape(-1, 1), lambda x: x.reshape(-1, 1), [array])
    _compare(lambda x: x.reshape((shape[-1], -1)), lambda x: x.reshape(shape[-1], -1), [array])


INDEXES = [
    1,
    -1,
    slice(1, None),
    (slice(None), 2),
    (Ellipsis, slice(None, None, 2)),
    (None, 0),
    [0, 2, 0, 0],  # repeated indices: their gradients must add up
    (np.array([0, 1, 1]), np.array([3, 3, 3])),
    (slice(None), np.array([[0, 0], [1, 3]])),
    np.array([True, False, True]),
]


@needs_torch
@pytest.mark.parametrize("index", INDEXES, ids=[repr(i) for i in INDEXES])
def test_indexing_like_torch(index):
    array = np.random.default_rng(3).normal(size=(3, 4))
    torch_index = tuple(torch.tensor(i) if isinstance(i, (list, np.ndarray)) else i
                        for i in (index if isinstance(index, tuple) else (index,)))
    _compare(lambda x: x[index], lambda x: x[torch_index], [array])


def test_repeated_indices_accumulate():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    np.testing.assert_allclose(x.grad, [3.0, 0.0, 1.0])


MATMUL_SHAPES = [
    ((6, 6, 5, 4), (4, 3)),
    ((5, 4), (6, 6, 4, 3)),
    ((2, 1, 5, 4), (3, 4, 2)),
    ((7, 3, 4), (7, 4, 2)),
    ((4,), (4, 3)),
    ((5, 4), (4,)),
    ((4,), (4,)),
    ((4,), (2, 4, 3)),
    ((2, 5, 4), (4,)),
    ((3, 4), (4, 5)),
]


@needs_torch
@pytest.mark.parametrize("a_shape,b_shape", MATMUL_SHAPES, ids=[f"{a}@{b}" for a, b in MATMUL_SHAPES])
def test_matmul_like_torch(a_shape, b_shape):
    rng = np.random.default_rng(5)
    _compare(lambda a, b: a @ b, lambda a, b: a @ b, [rng.normal(size=a_shape), rng.normal(size=b_shape)])


@needs_torch
@pytest.mark.parametrize("a_shape,b_shape", MATMUL_SHAPES, ids=[f"{a}@{b}" for a, b in MATMUL_SHAPES])
def test_matmul_float32_and_arrays_on_either_side(a_shape, b_shape):
    rng = np.random.default_rng(6)
    a = rng.normal(size=a_shape).astype(np.float32)
    b = rng.normal(size=b_shape).astype(np.float32)
    _compare(lambda a, b: a @ b, lambda a, b: a @ b, [a, b], **PRECISIONS["float32"])
    np.testing.assert_allclose((a @ Tensor(b)).data, a @ b, rtol=1e-6)
    np.testing.assert_allclose((Tensor(a) @ b).data, a @ b, rtol=1e-6)


# -- finite differences, every element --------------------------------------------

_RAMP = Tensor(np.arange(24.0).reshape(3, 4, 2))  # a different weight for every entry
FD_CASES = {
    "add broadcast": (lambda a, b: (a + b).tanh().sum(), [(2, 1, 3), (4, 1)]),
    "sub broadcast": (lambda a, b: ((a - b) ** 2).mean(), [(3,), (2, 3)]),
    "mul broadcast": (lambda a, b: (a * b).sum(), [(2, 3), (1,)]),
    "div broadcast": (lambda a, b: (a / (b * b + 1)).sum(), [(2, 3), (3,)]),
    "exp log": (lambda a: (a.exp() + 1).log().sum(), [(2, 3)]),
    "sigmoid relu": (lambda a: (a.sigmoid() * a.relu()).sum(), [(3, 2)]),
    "batched matmul": (lambda a, b: (a @ b).tanh().sum(), [(2, 3, 2, 4), (4, 3)]),
    "vector matmul": (lambda a, b: (a @ b).sum(), [(4,), (2, 4, 3)]),
    "max axis": (lambda a: a.max(axis=1).sum(), [(3, 4)]),
    "mean keepdims": (lambda a: (a - a.mean(axis=0, keepdims=True)).tanh().sum(), [(3, 2)]),
    "index and transpose": (lambda a: (a[[0, 0, 1]].T @ a[:, 1:]).sum(), [(3, 3)]),
    "reshape": (lambda a: (a.reshape(3, 2) ** 3).sum(), [(2, 3)]),
    "neg and sqrt": (lambda a: (-((a * a + 1) ** 0.5)).sum(), [(2, 2)]),
    "vector @ vector": (lambda a, b: (a @ b).tanh(), [(3,), (3,)]),
    "matrix @ vector": (lambda a, b: (a @ b).exp().sum(), [(2, 3), (3,)]),
    "sum axes": (lambda a: (a.sum(axis=(0, 2)) ** 2).sum(), [(2, 3, 2)]),
    "3-D @ matrix": (lambda a, b: (a @ b).tanh().sum(), [(3, 2, 4), (4, 3)]),
    "3-D @ vector": (lambda a, b: (a @ b).tanh().sum(), [(3, 2, 4), (4,)]),
    "transpose 3-D": (lambda a: (a.transpose(1, 2, 0) * _RAMP).sum(), [(2, 3, 4)]),
}


@pytest.mark.parametrize("name", sorted(FD_CASES))
def test_gradients_match_finite_differences(name):
    fn, shapes = FD_CASES[name]
    rng = np.random.default_rng(11)
    inputs = [Tensor(rng.normal(size=s) + 0.1, requires_grad=True) for s in shapes]
    assert gradcheck(fn, *inputs)


@pytest.mark.parametrize("op", sorted(BINARY))
@settings(max_examples=15, deadline=None)
@given(shapes=pairs, seed=st.integers(0, 2**32 - 1))
def test_binary_ops_match_finite_differences_on_broadcast_shapes(op, shapes, seed):
    fn, domain = BINARY[op]
    rng = np.random.default_rng(seed)
    a_shape, b_shape = shapes.input_shapes
    a, b = Tensor(_array(rng, a_shape)), Tensor(_array(rng, b_shape, domain))
    weights = Tensor(_array(rng, shapes.result_shape))  # so every output element matters differently
    assert gradcheck(lambda a, b: (fn(a, b) * weights).sum(), a, b)


# -- sum_to_shape, the reduction over stretched axes --------------------------------


@SETTINGS
@given(shapes=pairs)
def test_sum_to_shape_undoes_broadcasting(shapes):
    a_shape, b_shape = shapes.input_shapes
    ones = np.ones(shapes.result_shape)
    for shape in (a_shape, b_shape):
        reduced = sum_to_shape(ones, shape)
        assert reduced.shape == shape
        # Each entry was used once per copy broadcasting made of it.
        np.testing.assert_allclose(reduced, np.prod(shapes.result_shape) / max(np.prod(shape), 1))


@pytest.mark.parametrize("dtype, big", [(np.float64, 1e308), (np.float32, 3e38)])
def test_a_mean_is_finite_where_only_its_sum_would_overflow(dtype, big):
    x = Tensor([[big, big], [1.0, 3.0]], requires_grad=True, dtype=dtype)
    with np.errstate(all="raise"):  # nor does it warn
        whole, rows = x.mean(), x.mean(axis=1, keepdims=True)
    assert whole.item() == pytest.approx((big + 2.0) / 2, rel=1e-6)
    assert rows.dtype == dtype  # and the finite row is the plain sum over 2, unchanged
    np.testing.assert_array_equal(rows.data, np.array([[big], [2.0]], dtype=dtype))
    assert Tensor([big, big], dtype=dtype).mean().data == np.array(big, dtype=dtype)
    whole.backward()
    rows.backward(np.ones((2, 1)))
    np.testing.assert_array_equal(x.grad, np.full((2, 2), 0.25 + 0.5, dtype=dtype))


def test_sum_to_shape_rejects_a_shape_that_could_not_broadcast():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        sum_to_shape(np.ones((2, 3)), (4,))


# -- edge cases of shapes, axes and exponents ---------------------------------------


def test_zero_dim_tensors_through_every_reduction():
    for name in ("sum", "mean", "max"):
        x = Tensor(3.0, requires_grad=True)
        out = getattr(x, name)()
        assert out.shape == () and out.item() == 3.0
        (out * 2).backward()
        assert x.grad.shape == () and x.grad == 2.0
        with pytest.raises(ValueError, match=r"axis 0 is out of range.*\(\)"):
            getattr(x, name)(axis=0)


def test_reductions_over_no_axes_and_bad_axis_types():
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    x.sum(axis=()).backward(np.full((2, 3), 2.0))  # reducing over no axes is the identity
    np.testing.assert_allclose(x.grad, 2.0)
    for bad in (1.0, "0", [0.5]):
        with pytest.raises(TypeError, match="axis must be None, an int or a tuple of ints"):
            x.sum(axis=bad)
    with pytest.raises(ValueError, match="repeats"):
        x.mean(axis=(1, -1))


def test_transpose_refuses_axes_out_of_range():
    x = Tensor(np.ones((2, 3)))
    for axes in ((0, 3), (0, 2), (0,), (1, 1)):
        with pytest.raises(ValueError, match=r"not a permutation of the axes of shape \(2, 3\)"):
            x.transpose(*axes)
    assert x.transpose(-1, 0).shape == (3, 2)


def test_indexing_with_negative_repeated_indices_and_negative_steps():
    x = Tensor(np.arange(5.0), requires_grad=True)
    picked = x[[-1, 4, -5, 0, 0]]  # entry 4 twice, entry 0 three times
    np.testing.assert_array_equal(picked.data, [4.0, 4.0, 0.0, 0.0, 0.0])
    (picked * Tensor([1.0, 2.0, 3.0, 4.0, 5.0])).sum().backward()
    np.testing.assert_allclose(x.grad, [12.0, 0.0, 0.0, 0.0, 3.0])
    x.grad = None
    stepped = x[::-2]  # entries 4, 2, 0
    (stepped * Tensor([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_allclose(x.grad, [100.0, 0.0, 10.0, 0.0, 1.0])


def test_boolean_masks_are_supported():
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    picked = x[x.data > 2]
    np.testing.assert_array_equal(picked.data, [3.0, 4.0, 5.0])
    (picked * picked).sum().backward()
    np.testing.assert_allclose(x.grad, [[0.0, 0.0, 0.0], [6.0, 8.0, 10.0]])


def test_a_numpy_exponent_keeps_float32_and_odd_exponents_are_named():
    x = Tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = x ** np.float64(2.0)
    y.sum().backward()
    assert y.dtype == np.float32 and x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad, [2.0, 4.0])
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="operand of a Tensor op must be finite, got (nan|inf)"):
            x**bad


def test_empty_selections_and_reductions_over_non_empty_axes():
    x = Tensor(np.zeros((0, 3)), requires_grad=True)
    m = x.max(axis=1)  # each of the 0 rows has 3 entries: a (0,) result, as in NumPy
    assert m.shape == (0,)
    m.sum().backward()
    assert x.grad.shape == (0, 3)
    for reduce in (lambda: x.max(axis=0), lambda: x.max(), lambda: x.mean(axis=0)):
        with pytest.raises(ValueError, match=r"over an empty axis of a tensor of shape \(0, 3\)"):
            reduce()
    y = Tensor(np.arange(4.0), requires_grad=True)
    picked = y[[]]
    assert picked.shape == (0,)
    picked.sum().backward()
    assert np.array_equal(y.grad, np.zeros(4))


# -- ** with tensors on either side --------------------------------------------------


@needs_torch
@pytest.mark.parametrize("a_shape,b_shape", [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 4)), ((), (2, 2))])
def test_power_of_two_tensors_like_torch(a_shape, b_shape):
    rng = np.random.default_rng(3)
    base = _array(rng, a_shape, "positive")
    exponent = rng.normal(size=b_shape)
    _compare(lambda b, e: b**e, lambda b, e: b**e, [base, exponent])


@needs_torch
def test_number_and_array_bases_with_a_tensor_exponent_like_torch():
    e = np.array([[0.5, -1.0, 2.0]])
    array = np.array([[1.5], [3.0]])
    _compare(lambda t: 2**t, lambda t: 2**t, [e])
    _compare(lambda t: array**t, lambda t: torch.tensor(array) ** t, [e])
    x = Tensor(e, requires_grad=True)
    (array**x).sum().backward()
    np.testing.assert_allclose(x.grad, ((array**e) * np.log(array)).sum(axis=0, keepdims=True))


def test_power_refuses_what_is_not_real_and_a_gradient_that_needs_log_of_a_non_positive_base():
    with pytest.raises(ValueError, match="1 entries raise a negative base to a fractional power"):
        Tensor([-2.0, 2.0]) ** Tensor([0.5, 0.5])
    negative_base = Tensor([-2.0, 3.0]) ** Tensor([2.0, 2.0], requires_grad=True)
    np.testing.assert_allclose(negative_base.data, [4.0, 9.0])  # the forward is real
    with pytest.raises(ValueError, match=r"needs log\(base\), but 1 entries of the base are < 0"):
        negative_base.sum().backward()
    # A base of exactly 0: 0 ** e is 0 for every allowed e, so the exponent's slope is 0 (as torch).
    zero_base, e = Tensor([0.0, 1.0], requires_grad=True), Tensor(2.0, requires_grad=True)
    (zero_base**e).sum().backward()
    assert e.grad == 0.0 and zero_base.grad.tolist() == [0.0, 2.0]
    # A slope that overflows is named as such, not blamed on x = 0.
    with pytest.raises(OverflowError, match="overflows a float at 1 entries"):
        (Tensor([1e-200], requires_grad=True) ** -1.0).sum().backward()
    with pytest.raises(ZeroDivisionError, match="infinite"):
        (Tensor([0.0], requires_grad=True) ** 0.5).sum().backward()
    x = Tensor([0.0, 2.0], requires_grad=True)
    (x**0).sum().backward()  # a constant: no gradient, even at 0
    np.testing.assert_array_equal(x.grad, [0.0, 0.0])


@pytest.mark.parametrize("dtype, power, scale, largest", [
    (np.float64, 300.0, 1e8, "1.8e+308"), (np.float32, 37.0, 20.0, "3.4e+38"),
])
def test_a_gradient_through_power_that_overflows_is_named_with_its_numbers(dtype, power, scale, largest):
    # The forward, 10 ** power * scale, is a float; the gradient, scale times the slope, is not.
    x = Tensor([10.0], requires_grad=True, dtype=dtype)
    y = x**power * scale
    assert np.isfinite(y.data).all()
    with pytest.raises(OverflowError, match=(
        rf"gradient through base \*\* exponent to the base overflows {np.dtype(dtype)} at 1 entries: "
        rf"at index \(0,\), base 10 and exponent {power:g}, the incoming gradient {re.escape(f'{scale:g}')} "
        rf"times the slope {re.escape(f'{power * 10.0 ** (power - 1):.6g}')} is beyond about {re.escape(largest)}"
    )):
        y.sum().backward()
    n = Tensor(power, requires_grad=True, dtype=dtype)  # the exponent's: scale * 10 ** n * log(10)
    y = Tensor([10.0], dtype=dtype) ** n * scale
    assert np.isfinite(y.data).all()
    with pytest.raises(OverflowError, match=r"gradient through base \*\* exponent to the exponent overflows"):
        y.sum().backward()


def test_power_that_overflows_warns_as_numpy_does():
    with pytest.warns(RuntimeWarning, match="overflow"):
        assert np.isinf((2 ** Tensor([2000.0])).data[0])
