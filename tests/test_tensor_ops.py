"""Tensor ops beyond their gradients: operands of every kind, ties, indexing and shape edge
cases, sum_to_shape, and errors.

Each op's forward and gradient, on broadcast shapes, axes and indices, in float64 and float32,
against finite differences and PyTorch, is a row of tests/op_families.py.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from tinyad import Tensor, Value, gradcheck
from tinyad.tensor import reductions, sum_to_shape

from op_families import BINARY, DIVISOR_GRADIENTS, ELEMENTWISE, REDUCTIONS  # tests/op_families.py: the ops by family
from torch_reference import needs_torch, torch  # tests/torch_reference.py

SETTINGS = settings(max_examples=30, deadline=None)
pairs = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=1, max_side=4)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_numbers_and_arrays_on_either_side(op):
    fn = BINARY.rows[op].f
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


# min is max of the negated entries: the same ties, the same shares.
EXTREMA = {"max": 1.0, "min": -1.0}


@pytest.mark.parametrize("name", EXTREMA)
def test_max_and_min_split_the_gradient_evenly_among_ties(name):
    sign = EXTREMA[name]
    x = Tensor(sign * np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]), requires_grad=True)
    getattr(x, name)(axis=1).backward(np.array([1.0, 3.0]))
    np.testing.assert_allclose(x.grad, [[0.0, 0.5, 0.5], [1.0, 1.0, 1.0]])
    y = Tensor(sign * np.array([4.0, 1.0, 4.0, 4.0]), requires_grad=True)
    getattr(y, name)().backward()
    np.testing.assert_allclose(y.grad, [1 / 3, 0.0, 1 / 3, 1 / 3])


@needs_torch
@pytest.mark.parametrize("name", EXTREMA)
def test_max_and_min_ties_like_torch_amax_and_amin(name):
    data = EXTREMA[name] * np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    x = Tensor(data, requires_grad=True)
    getattr(x, name)(axis=1).backward(np.array([1.0, 3.0]))
    reference = torch.tensor(data, requires_grad=True)
    getattr(torch, f"a{name}")(reference, dim=1).backward(torch.tensor([1.0, 3.0], dtype=torch.float64))
    np.testing.assert_allclose(x.grad, reference.grad.numpy())


@pytest.mark.parametrize("a_shape,b_shape", [((2, 3, 4), (4, 2)), ((4,), (2, 4, 3)), ((3, 4), (4,))])
def test_arrays_on_either_side_of_matmul_keep_float32(a_shape, b_shape):
    rng = np.random.default_rng(6)
    a = rng.normal(size=a_shape).astype(np.float32)
    b = rng.normal(size=b_shape).astype(np.float32)
    for out in (a @ Tensor(b), Tensor(a) @ b):
        assert isinstance(out, Tensor) and out.dtype == np.float32
        np.testing.assert_allclose(out.data, a @ b, rtol=1e-6)


# Compositions: one input used by several ops, whose gradients add up.
COMPOSITES = {
    "index and transpose": (lambda a: (a[[0, 0, 1]].T @ a[:, 1:]).sum(), [(3, 3)]),
    "minus its mean": (lambda a: (a - a.mean(axis=0, keepdims=True)).tanh().sum(), [(3, 2)]),
    "sigmoid times relu": (lambda a: (a.sigmoid() * a.relu()).sum(), [(3, 2)]),
    "broadcast through matmul": (lambda a, b: ((a + b) @ b.T).tanh().sum(), [(2, 1, 3), (4, 3)]),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_compositions_match_finite_differences(name):
    fn, shapes = COMPOSITES[name]
    rng = np.random.default_rng(11)
    inputs = [Tensor(rng.normal(size=s) + 0.1, requires_grad=True) for s in shapes]
    assert gradcheck(fn, *inputs)


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
    # Taken again over the row's own entries only: the other row, -0.75 * big, is not in it.
    np.testing.assert_allclose(Tensor([[big, big], [-big, -big / 2]], dtype=dtype).mean(axis=1).data,
                               [big, -0.75 * big], rtol=1e-6)
    whole.backward()
    rows.backward(np.ones((2, 1)))
    np.testing.assert_array_equal(x.grad, np.full((2, 2), 0.25 + 0.5, dtype=dtype))


def test_sum_to_shape_takes_a_list_for_a_shape_and_names_an_operand_or_a_tensor_passed_instead():
    # A list [2, 3] for the shape (2, 3) was "cannot have come from broadcasting shape [2, 3]"; the
    # operand b for b.shape, "Tensors have no =="; a Tensor for the gradient, an error from
    # array_api_compat ("Tensor is not a supported array type").
    grad, b = np.ones((2, 3)), Tensor(np.ones(3))
    assert np.array_equal(sum_to_shape(grad, [1, 3]), [[2.0, 2.0, 2.0]])
    assert sum_to_shape(grad, [2, 3]) is grad
    with pytest.raises(TypeError, match=r"takes a shape, got a Tensor of shape \(3,\): pass its \.shape"):
        sum_to_shape(grad, b)
    with pytest.raises(TypeError, match=r"got an array of shape \(3,\): pass its \.shape"):
        sum_to_shape(grad, b.data)
    with pytest.raises(TypeError, match=r"a tuple of ints such as \(2, 3\), got 3"):
        sum_to_shape(grad, 3)
    with pytest.raises(TypeError, match=r"sums an array, got a Tensor.*out\.grad \* b\.data"):
        sum_to_shape(Tensor(grad), (3,))


def test_sum_to_shape_rejects_a_shape_that_could_not_broadcast():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        sum_to_shape(np.ones((2, 3)), (4,))


# -- edge cases of shapes, axes and exponents ---------------------------------------


@pytest.mark.parametrize("name", ELEMENTWISE.rows)
def test_an_empty_tensor_through_every_elementwise_op(name):
    # Nothing to check and nothing to compute: an op that looks at its entries first (log's
    # smallest, exp's largest) must not ask for the minimum of none.
    x = Tensor(np.zeros((0, 3)), requires_grad=True)
    out = ELEMENTWISE.rows[name].f(x)
    assert out.shape == (0, 3)
    out.backward(np.zeros((0, 3)))
    assert x.grad.shape == (0, 3)


def test_zero_dim_tensors_through_every_reduction():
    for name, op in REDUCTIONS.rows.items():
        x = Tensor(3.0, requires_grad=True)
        out = op.f(x, axis=None, keepdims=False)
        assert out.shape == () and out.item() == 3.0, name
        (out * 2).backward()
        assert x.grad.shape == () and x.grad == 2.0, name
        with pytest.raises(ValueError, match=r"axis 0 is out of range.*\(\)"):
            op.f(x, axis=0, keepdims=False)


def test_reductions_over_no_axes_and_bad_axis_types():
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    x.sum(axis=()).backward(np.full((2, 3), 2.0))  # reducing over no axes is the identity
    np.testing.assert_allclose(x.grad, 2.0)
    for bad in (1.0, "0", [0.5]):
        with pytest.raises(TypeError, match="axis must be None, an int or a tuple of ints"):
            x.sum(axis=bad)
    with pytest.raises(ValueError, match="repeats"):
        x.mean(axis=(1, -1))


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_the_reduction_module_s_functions_take_the_methods_defaults(name):
    # tensor.reductions is the op module a lesson reads; called alone, its functions reduce as
    # the methods do: over every axis, the reduced axes dropped.
    x = Tensor(np.arange(6.0).reshape(2, 3))
    assert getattr(reductions, name)(x).shape == getattr(x, name)().shape == ()
    assert getattr(reductions, name)(x, 0).shape == getattr(x, name)(0).shape == (3,)


def test_transpose_refuses_axes_out_of_range():
    x = Tensor(np.ones((2, 3)))
    for axes in ((0, 3), (0, 2), (1, 2), (-3, 0), (0,), (1, 1), (1.0, 0)):  # (1, 2) is (1, 0) mod 2
        with pytest.raises(ValueError, match=r"not a permutation of the axes of shape \(2, 3\)"):
            x.transpose(*axes)
    assert x.transpose(-1, 0).shape == (3, 2)
    assert x.transpose(1, -2).shape == (3, 2)  # -2, the first axis counted from the end


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
    for reduce in (lambda: x.max(axis=0), lambda: x.max(), lambda: x.mean(axis=0), lambda: x.min()):
        with pytest.raises(ValueError, match=r"over an empty axis of a tensor of shape \(0, 3\)"):
            reduce()
    with pytest.raises(ValueError, match="min over an empty axis .* the minimum of nothing"):
        x.min(axis=0)
    y = Tensor(np.arange(4.0), requires_grad=True)
    picked = y[[]]
    assert picked.shape == (0,)
    picked.sum().backward()
    assert np.array_equal(y.grad, np.zeros(4))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_softplus_is_finite_and_exact_at_both_ends(dtype):
    # log(1 + e**x) is x + e**-x for large x and e**x for very negative x (0 once that is
    # below what the float type holds): no overflow, no warning, no precision lost.
    x = np.array([-1000.0, -80.0, -40.0, 0.0, 30.0, 1000.0])
    exact = np.array([0.0, np.exp(-80.0), np.exp(-40.0), np.log(2.0), 30.0 + np.exp(-30.0), 1000.0])
    slope = np.array([0.0, np.exp(-80.0), np.exp(-40.0), 0.5, 1 / (1 + np.exp(-30.0)), 1.0])
    with np.errstate(all="raise", under="ignore"):
        t = Tensor(x, requires_grad=True, dtype=dtype)
        y = t.softplus()
        y.backward(np.ones(6))
    assert y.dtype == t.grad.dtype == np.dtype(dtype)
    rtol = 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(y.data, exact, rtol=rtol, atol=0)
    np.testing.assert_allclose(t.grad, slope, rtol=rtol, atol=0)


# -- ** with tensors on either side --------------------------------------------------


def test_an_array_base_with_a_tensor_exponent():
    e = np.array([[0.5, -1.0, 2.0]])
    array = np.array([[1.5], [3.0]])
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


@pytest.mark.parametrize("exponent_at_zero", [0.0, 1.0, 1.5])
def test_an_overflowing_slope_beside_a_zero_base_with_a_finite_slope_is_named_as_overflow(exponent_at_zero):
    # 0 ** e has a finite slope for e = 0 (a constant) and e >= 1: only the other entry's slope,
    # -(1e-200) ** -2, is beyond the floats (its output, 1e200, is not), and it is not blamed on x = 0.
    base = Tensor([0.0, 1e-200], requires_grad=True)
    with pytest.raises(OverflowError, match="overflows a float at 1 entries"):
        (base ** Tensor([exponent_at_zero, -1.0])).sum().backward()


def test_an_infinite_slope_of_power_where_no_gradient_arrives_passes_on_zero():
    # (x ** 0.5)[1] does not use x[0] = 0, where sqrt's slope is infinite: its gradient is 0
    # (PyTorch gives nan there). Where the gradient arrives, the slope is refused as before.
    x = Tensor([0.0, 4.0], requires_grad=True)
    (x**0.5)[1].backward()
    assert x.grad.tolist() == [0.0, 0.25]
    x = Tensor([1e-120, 2.0], requires_grad=True)
    (x**-2.0)[1].backward()  # the slope at 1e-120 overflows, and is not used
    assert x.grad.tolist() == [0.0, -0.25]
    with pytest.raises(ZeroDivisionError, match="infinite"):
        (Tensor([0.0, 4.0], requires_grad=True) ** 0.5).sum().backward()
    with pytest.raises(OverflowError, match="overflows a float at 1 entries"):
        (Tensor([1e-120, 2.0], requires_grad=True) ** -2.0).sum().backward()


@pytest.mark.parametrize("a, b, scale, expected", DIVISOR_GRADIENTS)
def test_the_divisor_s_gradient_is_found_where_an_intermediate_would_overflow_or_vanish(a, b, scale, expected):
    # d(a / b)/db = -out / b, times the incoming gradient: as PyTorch computes it.
    divisor = Tensor([b], requires_grad=True)
    ((Tensor([a]) / divisor) * scale).sum().backward()
    assert divisor.grad.tolist() == [pytest.approx(expected, rel=1e-15, abs=0.0)]


def test_a_divisor_s_gradient_beyond_the_floats_in_either_order_is_named():
    # Either order overflowed: -inf, silently (the scalar engine refuses it at the leaf).
    divisor = Tensor([1e-100], requires_grad=True)
    with pytest.raises(OverflowError, match=r"the gradient through / to the divisor overflows float64 at 1 entries"):
        (Tensor([1e200]) / divisor).sum().backward()
    divisor = Tensor([1e-2], requires_grad=True)  # the first order loses digits, the second overflows
    quotient = (Tensor([1e-322]) / divisor) * 1e307
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the order that overflows is not taken, and says nothing
        quotient.sum().backward()
    assert divisor.grad.tolist() == [pytest.approx(-1e307 * 1e-322 / 1e-4, rel=1e-2, abs=0.0)]  # 1e-322 is subnormal


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


def test_a_gradient_through_power_that_overflows_is_named_at_its_index_in_several_axes():
    # The index, the base and the exponent are read off the arrays broadcast to the output's shape.
    x = Tensor([[1.0, 10.0], [2.0, 3.0]], requires_grad=True)
    with pytest.raises(OverflowError, match=r"to the base overflows float64 at 1 entries: at index \(0, 1\), base 10 "
                                            r"and exponent 300, the incoming gradient 1e\+08 times the slope 3e\+301"):
        (x**300.0 * 1e8).sum().backward()


def test_power_is_named_by_its_exponent_where_that_is_one_constant_number():
    # The scalar engine names x ** 2 "**2": a drawn graph says which power. An exponent that needs
    # a gradient, or holds several numbers, is no one number to put in the name: plain **.
    x = Tensor([1.5, 2.0], requires_grad=True)
    assert [(x**2).op, (x**0.5).op, (x**-1).op] == ["**2", "**0.5", "**-1"]
    assert (x ** Tensor(2.0, requires_grad=True)).op == "**"
    assert (x ** Tensor([2.0, 3.0])).op == "**" and (2**x).op == "**"


def test_power_that_overflows_warns_as_numpy_does():
    with pytest.warns(RuntimeWarning, match="overflow"):
        assert np.isinf((2 ** Tensor([2000.0])).data[0])


@pytest.mark.parametrize("dtype, edge", [(np.float32, 88.72283172607422), (np.float64, 709.782712893384)])
def test_exp_refuses_the_first_number_whose_exp_is_inf(dtype, edge):
    # The largest number of the dtype whose exp is finite; the next one up gives inf. (float32's
    # nearest number to log(float32 max) is that next one: a limit compared in float32 let it by.)
    below = Tensor(np.array([edge], dtype=dtype)).exp()
    assert np.isfinite(below.data).all() and below.dtype == dtype
    above = np.nextafter(np.array([edge], dtype=dtype), np.inf)
    with pytest.raises(OverflowError, match=f"exp overflows {np.dtype(dtype)} at 1 entries"):
        Tensor(above).exp()


def test_a_ragged_list_operand_is_named_as_tensor_names_it():
    with pytest.raises(ValueError, match="must be rectangular: the nested lists have different lengths"):
        Tensor(np.ones((2, 2))) * [[1.0, 2.0], [3.0]]


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
def test_a_keepdims_that_is_not_true_or_false_is_refused(reduce):
    # "no" is truthy: PyTorch's sum kept the axes for it; NumPy's failed deep inside.
    with pytest.raises(TypeError, match="keepdims must be True or False, got 'no'"):
        getattr(Tensor(np.ones((2, 3))), reduce)(axis=0, keepdims="no")
    assert getattr(Tensor(np.ones((2, 3))), reduce)(axis=0, keepdims=np.True_).shape == (1, 3)


def test_logsumexps_keepdims_and_backwards_retain_graph_are_true_or_false():
    # Both took any truthy value as True: keepdims="no" kept the axis, retain_graph="no" kept the graph.
    from tinyad.tensor import functional as F
    x = Tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(TypeError, match="keepdims must be True or False, got 'no'"):
        F.logsumexp(x, axis=1, keepdims="no")
    with pytest.raises(TypeError, match="retain_graph must be True or False, got 'no'"):
        (x * 2).sum().backward(retain_graph="no")
    assert F.logsumexp(x, axis=1, keepdims=np.True_).shape == (2, 1)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 0, 1)])
def test_an_empty_boolean_mask_picks_nothing_as_in_numpy(shape):
    # A mask with no entries was taken for an empty list of positions: (0, 3) gave shape (0, 3, 3).
    x = Tensor(np.zeros(shape), requires_grad=True)
    picked = x[x.data > 0]
    assert picked.shape == np.zeros(shape)[np.zeros(shape) > 0].shape == (0,)
    picked.sum().backward()
    assert x.grad.shape == shape and not x.grad.any()


@pytest.mark.parametrize("x_shape, w_shape", [((2, 3, 0), (0, 4)), ((2, 3, 5), (5, 0)), ((0,), (0, 4))])
def test_linear_backward_with_an_axis_of_size_0(x_shape, w_shape):
    # Its backward reshaped with -1, which NumPy cannot resolve beside an axis of size 0.
    from tinyad.tensor import functional as F

    x, w = Tensor(np.ones(x_shape), requires_grad=True), Tensor(np.ones(w_shape), requires_grad=True)
    b = Tensor(np.ones(w_shape[1]), requires_grad=True)
    F.linear(x, w, b).sum().backward()
    assert x.grad.shape == x_shape and w.grad.shape == w_shape and b.grad.shape == (w_shape[1],)
    np.testing.assert_array_equal(x.grad, np.ones(x_shape[:-1] + w_shape[1:]) @ np.ones(w_shape).T)
    np.testing.assert_array_equal(w.grad, np.zeros(w_shape) + np.prod(x_shape[:-1], dtype=float))


def test_log_of_exactly_zero_is_refused():
    with pytest.raises(ValueError):
        Tensor([0.0, 1.0]).log()


@pytest.mark.parametrize("shape", [(True, 3), (0, -1), (-2, 3), (1.0, 3), ((3,), 1), (1, 1), (2, -1), (-1, -1),
                                   (-3, -1)])
def test_a_shape_that_is_not_whole_numbers_or_cannot_hold_the_entries_is_a_value_error(shape):
    with pytest.raises(ValueError, match="cannot reshape a tensor of shape"):
        Tensor([1.0, 2.0, 3.0]).reshape(*shape)


def test_sum_to_shape_refuses_a_gradient_with_fewer_axes_than_the_shape():
    with pytest.raises(ValueError, match=r"a gradient of shape \(3,\) cannot have come from broadcasting"):
        sum_to_shape(np.ones(3), (3, 1))


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "@"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_an_operand_that_needs_no_gradient_gets_none(op, side):
    # A rule that fed every parent (not only those that require grad) filled a constant's grad.
    x = Tensor(np.array([[1.5, -2.0], [0.5, 3.0]]), requires_grad=True)
    c = Tensor(np.array([[2.0, 4.0], [-1.0, 0.5]]))
    a, b = (x, c) if side == "left" else (c, x)
    {"+": a + b, "-": a - b, "*": a * b, "/": a / b, "@": a @ b}[op].sum().backward()
    assert c.grad is None and x.grad is not None


@pytest.mark.parametrize("call, error, words", [
    (lambda: Tensor([1.0, 2.0]).item(), ValueError, r"item\(\) needs a tensor with one element, got shape \(2,\)"),
    (lambda: Tensor([1.0, 2.0])[np.array([0.0])], IndexError,
     "an index array must hold integers or bools, got dtype float64"),
], ids=["item of two", "float index array"])
def test_the_engine_names_what_numpy_would_only_fail_on(call, error, words):
    # Without these guards NumPy's own words came through (a reshape's, an index's), which name
    # neither the tensor nor what to do.
    with pytest.raises(error, match=words):
        call()


def test_the_log_of_an_underflowed_softmax_or_sigmoid_names_the_op_that_gives_it():
    # It said only "log needs positive entries": the learner's log(softmax(x)) is right in exact
    # arithmetic, and log_softmax is what the course teaches for it.
    from tinyad.tensor import functional as F

    with pytest.raises(ValueError, match=r"2 of the 3 entries are <= 0.*softmax's output.*log_softmax\(scores\)"):
        F.softmax(Tensor([[0.0, 800.0, -5.0]], requires_grad=True)).log()
    with pytest.raises(ValueError, match=r"sigmoid's output, which rounds to 0 below x = -745.*log_sigmoid\(x\)"):
        Tensor([-800.0, 1.0], requires_grad=True).sigmoid().log()
    with pytest.raises(ValueError, match=r"log\(0\.0\).*log\(sigmoid\(x\)\) is -\(-x\)\.softplus\(\)"):
        Value(-800.0).sigmoid().log()
    assert (-(-Value(-800.0)).softplus()).data == -800.0  # the stable form the message gives
    with pytest.raises(ValueError, match=r"the smallest is 0\)$"):  # any other op: no hint
        (Tensor([0.0, 1.0], requires_grad=True) * 1.0).log()


@needs_torch
def test_what_lessons_03_and_06_say_pytorch_does_and_tinyad_does_not():
    # Lesson 06: PyTorch's engine sums a gradient that broadcasting stretched back to its input's
    # shape, whatever rule made it (a custom Function that forgot the sum); tinyad's accumulate
    # refuses one, so the missing sum is found.
    class AddForgettingTheSum(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, b):
            return x + b

        @staticmethod
        def backward(ctx, g):
            return g, g  # g has x's shape (2, 3), not b's (3,)

    x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    b = torch.ones(3, dtype=torch.float64, requires_grad=True)
    AddForgettingTheSum.apply(x, b).sum().backward()
    assert b.grad.shape == (3,) and b.grad.tolist() == [2.0, 2.0, 2.0]
    leaf = Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"gradient of shape \(2, 3\) to a tensor of shape \(3,\)"):
        leaf.accumulate(np.ones((2, 3)))
    # Lesson 03: a tensor kept with retain_grad() adds up across walks, as a leaf does; tinyad
    # resets its interior nodes at the start of each walk.
    a = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    s = (a * 3).tanh()
    s.retain_grad()
    loss = s * a
    loss.backward(retain_graph=True)
    once = s.grad.item()
    loss.backward()
    assert s.grad.item() == 2 * once
    va = Value(0.5)
    vs = (va * 3).tanh()
    vloss = vs * va
    vloss.backward()
    vloss.backward()
    assert vs.grad == once  # reset, then filled once
