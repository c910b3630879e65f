"""tinyad.gradcheck: finite differences as the referee, and the referee itself checked."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from tinyad import Tensor, Value, gradcheck
from tinyad.gradcheck import central_difference, numeric_gradient


def test_a_right_gradient_passes_for_both_engines():
    assert gradcheck(lambda x, y: (x * y).tanh() + x.exp(), Value(0.3), Value(-1.2))
    assert gradcheck(lambda t: (t * t).sin().sum(), Tensor(np.linspace(-1.0, 1.0, 7)))


def test_the_central_difference_is_second_order_in_eps():
    # For exp at 0 the central difference is 1 + eps**2 / 6 + ...: halving eps quarters
    # the error. A one-sided difference, 1 + eps / 2, would only halve it.
    errors = [abs(central_difference(math.exp, 0.0, (), eps) - 1.0) for eps in (1e-2, 5e-3)]
    assert errors[0] == pytest.approx(1e-4 / 6, rel=1e-2)
    assert errors[0] / errors[1] == pytest.approx(4.0, rel=1e-2)


def test_a_single_wrong_element_among_many_is_caught_and_named():
    x = Tensor(np.linspace(0.1, 2.0, 20))

    def almost_square(t):
        out = (t * t).sum()
        square = out.parents[0]

        def rule(node):  # right everywhere but at index 13
            from tinyad.tensor.binary import mul_backward
            mul_backward(node)
            node.parents[0].grad[13] += 0.5

        square.backward_rule = rule
        return out

    with pytest.raises(AssertionError, match=r"at index \(13,\)"):
        gradcheck(almost_square, x)


def _nan_rule(node):
    node.parents[0].grad = node.parents[0].grad + math.nan


def test_the_entry_named_is_the_one_furthest_outside_its_tolerance():
    # Entry 0 has slope 100 and backward is 0.05 off, within rtol * 100; entry 1 has slope 1 and
    # is 0.01 off, outside rtol * 1. Entry 0's error is the larger, but entry 1 is the wrong one.
    scale, given = np.array([100.0, 1.0]), np.array([100.05, 1.01])

    def f(t):
        rule = lambda out: out.parents[0].accumulate(out.grad * given)  # noqa: E731
        return t.new_node(t.data * scale, parents=(t,), op="scaled", backward_rule=rule).sum()

    with pytest.raises(AssertionError, match=r"at index \(1,\) does not match: backward gave 1\.01, "):
        gradcheck(f, Tensor([1.0, 1.0]))


def test_a_nan_gradient_never_passes():
    def nan_rule(node):
        node.parents[0].accumulate(np.full(node.parents[0].shape, math.nan))

    def f(t):  # t * 2 with a rule that writes nan
        return Tensor(t.data * 2.0, parents=(t,), op="*2", backward_rule=nan_rule).sum()

    with pytest.raises(AssertionError, match="backward gave nan"):
        gradcheck(f, Tensor([1.0, 2.0]))


@pytest.mark.filterwarnings("ignore:overflow encountered", "ignore:invalid value encountered")
def test_a_nan_value_never_passes():
    # inf - inf: the function itself is nan, so are its finite differences.
    with pytest.raises(AssertionError, match="nan"):
        gradcheck(lambda t: ((t * 1e300) * 1e300 - (t * 1e300) * 1e300).sum(), Tensor([1.0]))


def test_the_scalar_engine_names_a_nan_gradient():
    def f(a):
        return Value(a.data * 2.0, parents=(a,), op="*2", backward_rule=_nan_rule)

    with pytest.raises(ArithmeticError, match="is not a number"):
        gradcheck(f, Value(1.0))


def test_a_constant_function_passes_with_zero_gradients():
    assert gradcheck(lambda t: Tensor(3.0) * 2, Tensor([1.0, 2.0]))  # no graph: nothing requires grad
    assert gradcheck(lambda v: v, Value(1.0))  # the identity: gradient 1
    # A Value has no requires_grad: a graph of constants is one of weights found outside, to gradcheck.
    with pytest.raises(ValueError, match="depends on none of its 1 input"):
        gradcheck(lambda v: Value(3.0) * 2, Value(1.0))


@pytest.mark.parametrize("settings, words", [
    (dict(eps=0.0), "eps must be > 0"),
    (dict(eps=-1e-6), "eps must be > 0"),
    (dict(eps=float("nan")), "eps must be a finite number"),
    (dict(atol=float("inf")), "atol must be a finite number"),
    (dict(rtol=-1.0), "rtol must be >= 0"),
    (dict(eps=10**400), "eps must be a finite number"),
    (dict(eps=1e10), r"eps must be > 0 and < 1, got 10000000000.0"),  # it would reject a right gradient
    (dict(eps=1.0), r"eps must be > 0 and < 1, got 1.0"),
])
def test_settings_that_make_no_sense_are_refused(settings, words):
    with pytest.raises(ValueError, match=words):
        gradcheck(lambda v: v * v, Value(1.0), **settings)


def _slope_given_by_backward(slope, given):
    """f(v) = slope * v, whose backward rule gives the slope ``given`` instead: finite differences
    give ``slope`` to the last digit at v = 2 (the difference is divided by the step really taken)."""
    def rule(out):
        out.first.grad += given * out.grad

    return lambda v: Value(slope * v.data, "", (v,), "scaled", rule)


@pytest.mark.parametrize("slope, given, settings, passes", [
    (1.0, 1.0, dict(atol=0.0, rtol=0.0), True),  # exact: error 0 is within a tolerance of 0
    (1.0, 1.0015, dict(atol=1e-3, rtol=1e-3), True),  # within atol + rtol, not within either alone
    (1.0, 1.0015, dict(atol=1e-3, rtol=0.0), False),
    (1.0, 3.0, dict(atol=0.0, rtol=1.0), False),  # rtol of the referee's 1, not of backward's 3
    (1.0, 1.01, {}, False),  # off by 1%: the defaults refuse it
    (0.0, 5e-4, {}, False),  # where the slope is 0, atol alone decides
], ids=["exact", "atol plus rtol", "atol alone", "relative to finite differences", "1% off", "0 slope"])
def test_the_tolerance_is_atol_plus_rtol_times_the_finite_difference(slope, given, settings, passes):
    # |backward - numeric| <= atol + rtol * |numeric|, as in torch.autograd.gradcheck. The limits
    # themselves, max(atol, rtol * ...) for the sum, a tolerance relative to backward's own answer (which
    # lets any answer too large pass at rtol=1), and default tolerances ten or a hundred times wider
    # each passed every other test.
    f = _slope_given_by_backward(slope, given)
    if passes:
        assert gradcheck(f, Value(2.0), **settings)
    else:
        with pytest.raises(AssertionError, match=rf"backward gave {given:g}, finite differences give {slope:g}"):
            gradcheck(f, Value(2.0), **settings)


def test_a_right_slope_of_0_passes_where_finite_differences_give_eps_squared():
    # x ** 3 at 0: the central difference is eps**2, not 0, and atol lets it pass.
    assert gradcheck(lambda v: v**3, Value(0.0))


def test_gradcheck_reports_a_wrong_rule():
    def wrong_square(a):
        out = a * a
        out.backward_rule = lambda node: None  # forgets to pass anything on
        return out

    with pytest.raises(AssertionError, match=r"input 0 \('x'\).*backward gave 0.*finite differences give 3"):
        gradcheck(wrong_square, Value(1.5, "x"))


def test_the_relative_error_named_is_how_far_off_over_the_finite_difference():
    def half_again_too_steep(a):
        def rule(out):
            a.accumulate(1.5 * 2 * a.data * out.grad)

        return Value(a.data * a.data, parents=(a,), op="square", backward_rule=rule)

    # At 1.5 the slope is 3 and the rule gives 4.5: off by 1.5, half of 3.
    with pytest.raises(AssertionError, match=r"backward gave 4.5, finite differences give 3 \(relative error 0.5, "):
        gradcheck(half_again_too_steep, Value(1.5))


def test_gradcheck_leaves_inputs_as_they_were():
    a = Value(2.0)
    a.grad = 0.25
    gradcheck(lambda v: v * v, a)
    assert (a.data, a.grad) == (2.0, 0.25)


def test_f_gets_leaves_that_keep_the_inputs_labels():
    # f runs on new leaves (new_leaf), not on the inputs: an error f raises at one names it by the
    # label it was given, as it would outside gradcheck.
    with pytest.raises(OverflowError, match=r"exp\(800\.0\) overflows a float .* at the node labelled 'big'"):
        gradcheck(lambda v: v.exp(), Value(800.0, "big"))


def test_gradcheck_refuses_inputs_and_outputs_that_are_not_nodes():
    with pytest.raises(TypeError, match="input 0 is a float"):
        gradcheck(lambda x: x, 2.0)
    with pytest.raises(TypeError, match="input 1 is an ndarray"):
        gradcheck(lambda x, y: x, Value(1.0), np.ones(2))
    with pytest.raises(TypeError, match="input 0 is a type"):  # the class, not a Value made from it
        gradcheck(lambda x: x, Value)
    with pytest.raises(TypeError, match="return a Value or a Tensor, got float"):
        gradcheck(lambda x: 3.0, Value(1.0))
    with pytest.raises(TypeError, match="got list"):
        gradcheck(lambda x: [x], Value(1.0))


def test_gradcheck_given_a_result_where_the_function_belongs_says_so():
    # gradcheck(f(x), x) failed inside gradcheck with "'Value' object is not callable".
    x, t = Value(1.5), Tensor([1.5], requires_grad=True)
    with pytest.raises(TypeError, match=r"gradcheck needs a function first, got a Value \(Value\(data=3.*"
                                        r"not its result: gradcheck\(f, x\), not gradcheck\(f\(x\), x\)"):
        gradcheck(x * 2, x)
    with pytest.raises(TypeError, match="gradcheck needs a function first, got a Tensor"):
        gradcheck((t * 2).sum(), t)


def test_gradcheck_catches_a_wrong_gradient_and_names_the_element():
    x = Tensor(np.array([[0.5, -1.0], [2.0, 0.3]]), requires_grad=True)

    def wrong(t):
        out = t.tanh().sum()
        out.parents[0].backward_rule = lambda node: None  # a rule that passes nothing on
        return out

    with pytest.raises(AssertionError, match=r"index \(\d, \d\).*backward gave 0.*relative error"):
        gradcheck(wrong, x)


def test_an_input_that_is_not_a_leaf_is_refused_before_anything_changes():
    x = Value(3.0)
    y = x * 2
    with pytest.raises(ValueError, match=r"input 0 is not a leaf: it is the output of '\*'.*detach"):
        gradcheck(lambda v: v * v, y)
    assert x.grad == 0.0
    t = Tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ValueError, match="not a leaf"):
        gradcheck(lambda v: (v * v).sum(), t * 2)
    assert t.grad is None


@pytest.mark.parametrize("make, where", [
    (lambda: Tensor([1.0, 2.0]), r"input 0 at index \(0,\): x = 1"),
    (lambda: Value(2.0, "w"), r"input 0 \('w'\): x = 2"),
])
def test_an_eps_lost_in_rounding_is_refused_before_f_runs(make, where):
    # x + 1e-300 == x: every finite difference would be 0, and a right gradient rejected.
    calls = []

    def square(t):
        calls.append(t)
        return (t * t).sum() if isinstance(t, Tensor) else t * t

    with pytest.raises(ValueError, match=rf"eps = 1e-300 is too small for {where}, and x \+ eps == x"):
        gradcheck(square, make(), eps=1e-300)
    assert calls == []
    with pytest.raises(ValueError, match=r"index \(1,\): x = 1e\+12.*spacing of floats there is 0.000122"):
        gradcheck(square, Tensor([1.0, 1e12]))  # the default eps, 1e-6, on a large input
    assert gradcheck(square, Tensor([1e12]), eps=1e-2, rtol=1e-2)


@pytest.mark.parametrize("x, f", [
    (Tensor([1.0, 1e-7]), lambda t: t.log().sum()),
    (Value(1e-7), lambda v: v.log()),
])
def test_a_step_outside_the_domain_is_named_and_a_smaller_eps_suggested(x, f):
    index = r" at index \(1,\)" if isinstance(x, Tensor) else ""
    with pytest.raises(ValueError, match=(
        rf"finite difference stepped input 0{index} from x = 1e-07 to x - eps = -9e-07 "
        r"\(eps = 1e-06\), outside where f is defined: there f raised ValueError: log.*"
        r"Pass a smaller eps \(for example eps=1e-08\)"
    )):
        gradcheck(f, x)
    assert gradcheck(f, x, eps=1e-9, rtol=1e-2)


def test_a_rule_wrong_only_for_the_second_input_is_caught_and_names_that_input():
    # d(a * b)/db is a; these rules give b, which is right at b == a only.
    def value_rule(out):
        a, b = out.parents
        a.grad += b.data * out.grad
        b.grad += b.data * out.grad

    def tensor_rule(out):
        a, b = out.parents
        a.accumulate(out.grad * b.data)
        b.accumulate(out.grad * b.data)

    def value_product(a, b):
        return Value(a.data * b.data, parents=(a, b), op="*", backward_rule=value_rule)

    def tensor_product(a, b):
        return Tensor(a.data * b.data, parents=(a, b), op="*", backward_rule=tensor_rule).sum()

    with pytest.raises(AssertionError, match=r"input 1 \('b'\) does not match: backward gave 3, "
                                             r"finite differences give 2\b"):
        gradcheck(value_product, Value(2.0, "a"), Value(3.0, "b"))
    with pytest.raises(AssertionError, match=r"input 1 at index \(1,\) does not match: backward gave 3, "
                                             r"finite differences give 2\b"):
        gradcheck(tensor_product, Tensor([1.0, 2.0]), Tensor([1.0, 3.0]))


def double_without_parents(x):
    return x.new_node(x.data * 2, parents=(), op="double", backward_rule=lambda out: None)


def double_into_itself(x):
    return x.new_node(x.data * 2, parents=(x,), op="double", backward_rule=lambda out: out.accumulate(out.grad))


@pytest.mark.parametrize("double", [double_without_parents, double_into_itself])
def test_an_input_that_backward_never_reached_is_named(double):
    # A learner's fused node (lesson 10) made with parents=(), or whose rule adds into its own output:
    # before, only "backward gave 0, finite differences give 2", as for a rule that computes 0.
    with pytest.raises(AssertionError, match=r"backward gave 0, finite differences give 2 .*; backward "
                                             r"gave input 0 no gradient at all: no backward rule added into it"):
        gradcheck(lambda x: double(x).sum(), Tensor([1.0, 2.0]))


def test_an_f_whose_result_is_made_anew_from_its_inputs_data_names_that():
    # A node made as a new leaf: before, "not from the Values or Tensors it finds outside", which it was not.
    with pytest.raises(ValueError, match=r"depends on none of its 1 input\(s\)"
                                         r".*nor from a node made anew from their data"):
        gradcheck(lambda x: Tensor(x.data * 2, requires_grad=True).sum(), Tensor([1.0, 2.0]))


@pytest.mark.parametrize("make", [Value, lambda x: Tensor([x, -x], requires_grad=True)])
@pytest.mark.parametrize("x", [1e8, 1e10])
def test_a_right_gradient_passes_where_floats_are_far_apart(make, x):
    # Near 1e10, floats are 2e-6 apart: x + 1e-6 and x - 1e-6 are not 2e-6 apart, and dividing
    # by 2 eps gave a slope of 3.8 for 2 * x. The difference is divided by the step really taken.
    assert gradcheck(lambda v: (v * 2).sum() if isinstance(v, Tensor) else v * 2, make(x))


def test_numeric_gradient_nudges_in_float64_whatever_the_input():
    square_sum = lambda x: float((np.asarray(x) ** 2).sum())  # noqa: E731
    for x in (np.array([1, 2, 3]), np.array([1.0, 2.0, 3.0], dtype=np.float32), [1.0, 2.0, 3.0]):
        assert np.allclose(numeric_gradient(square_sum, x, 1e-6), [2.0, 4.0, 6.0], rtol=1e-8), x
    assert central_difference(lambda x: x * x, 2, (), 1e-6) == pytest.approx(4.0, rel=1e-9)


def test_numeric_gradient_names_a_node_given_for_its_numbers():
    # A Tensor was "NumPy cannot follow a Tensor's graph", from inside; a Value, a float's error.
    for x in (Tensor([1.0, 2.0], requires_grad=True), Value(2.0)):
        with pytest.raises(TypeError, match=r"numeric_gradient takes a number or a NumPy array.*gradcheck\(f, x\)"):
            numeric_gradient(lambda a: float(np.sum(a)), x, 1e-6)


@pytest.mark.parametrize("eps", [0, -1e-6, math.nan, 1.0, 2.0])
def test_numeric_gradient_refuses_an_eps_that_makes_no_step(eps):
    # eps = 0 was a ZeroDivisionError from inside central_difference.
    with pytest.raises(ValueError, match="numeric_gradient's eps must be"):
        numeric_gradient(lambda x: float(np.sum(x)), np.ones(2), eps)


def test_an_f_that_reads_none_of_its_inputs_is_refused_before_backward_touches_anything():
    # f computed from the model it found outside: every slope was 0 = 0, gradcheck said True, and
    # backward filled the outside weights' gradients.
    w, x = Value(2.0), Value(3.0)
    with pytest.raises(ValueError, match=r"depends on none of its 2 input\(s\): f must compute from its arguments"):
        gradcheck(lambda a, b: (w * x).tanh(), w, x)
    assert (w.grad, x.grad) == (0.0, 0.0)
    W = Tensor(np.ones((2, 2)), requires_grad=True)
    with pytest.raises(ValueError, match="depends on none of its 1 input"):
        gradcheck(lambda V: (W * 2).sum(), W)
    assert W.grad is None
    assert gradcheck(lambda a, b: a * 2, w, x)  # an input f does not read has slope 0: that is right


def test_the_gradients_of_what_f_reads_from_outside_are_left_as_they_were():
    # A model's parameters read by f: gradcheck's backward filled their gradients, and the next
    # optimiser step moved the model by them.
    from tinyad.scalar import nn as scalar_nn
    from tinyad.tensor import nn as tensor_nn

    layer = tensor_nn.Linear(3, 2, seed=0)
    layer.b.accumulate(np.array([0.5, -0.25]))  # a gradient from before, which must survive intact
    before = layer.b.grad
    assert gradcheck(lambda x: layer(x).tanh().sum(), Tensor(np.ones((1, 3))))
    assert layer.W.grad is None
    assert layer.b.grad is not before  # put back as a copy: ``grad += ...`` never reached it
    assert np.array_equal(layer.b.grad, [0.5, -0.25]) and np.array_equal(before, [0.5, -0.25])

    neuron = scalar_nn.Neuron(2, seed=0)
    neuron.b.accumulate(0.75)
    assert gradcheck(lambda a: neuron([a, 1.0]), Value(0.5))
    assert [p.grad for p in neuron.parameters()] == [0.0, 0.0, 0.75]


def test_gradcheck_leaves_a_graph_of_the_callers_that_f_reads_as_it_was():
    # gradcheck's backward went on into the caller's graph through an interior tensor f read,
    # released it, and reset its gradient: the caller's own backward then failed.
    w = Tensor([1.0, 2.0], requires_grad=True)
    h = w * 2
    assert gradcheck(lambda t: (t * h).sum(), Tensor([3.0, 4.0]))
    assert w.grad is None and h.grad is None
    h.sum().backward()
    np.testing.assert_array_equal(w.grad, [2.0, 2.0])
    a = Value(2.0)
    b = a * 3
    b.grad = 1.0
    assert gradcheck(lambda v: v * b, Value(1.5))
    assert (a.grad, b.grad) == (0.0, 1.0)


@pytest.mark.parametrize("outside", [Tensor(2.0, requires_grad=True), Value(3.0)], ids=["Tensor", "Value"])
def test_gradcheck_refuses_an_f_that_returns_a_leaf_from_outside(outside):
    inputs = Tensor([1.0]) if isinstance(outside, Tensor) else Value(1.0)
    with pytest.raises(ValueError, match=r"f's result \(a leaf\) depends on none of its 1 input"):
        gradcheck(lambda x: outside, inputs)  # every slope 0 = 0: it passed
    assert gradcheck(lambda x: x, inputs)  # f returning its own input is checked as any f


def test_gradcheck_names_float64_copies_where_a_float32_torch_model_refuses_them():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (the torch extra)")
    import array_api_compat.torch as xp

    from tinyad.tensor import nn

    model = nn.MLP(3, [4, 1], xp=xp, dtype="float32", seed=0)
    with pytest.raises(TypeError, match="dtypes float64, float32") as error:
        gradcheck(lambda x: model(x).sum(), Tensor(torch.ones(2, 3)))
    if sys.version_info >= (3, 11):  # notes are Python 3.11's; on 3.10 the TypeError is PyTorch's alone
        assert "gradcheck called f at float64 copies of its inputs" in "".join(error.value.__notes__)


def test_an_eps_lost_below_x_is_named_as_x_minus_eps():
    # Both sides of x are asked: below -2**53 it is x - eps that rounds back to x (floats are twice
    # as far apart there), and the message named x + eps.
    with pytest.raises(ValueError, match=r"x = -9\.0072e\+15, and x - eps == x in float64"):
        gradcheck(lambda v: v * 1.0, Value(-2.0 ** 53), eps=0.75)
    with pytest.raises(ValueError, match=r"x = 9\.0072e\+15, and x \+ eps == x in float64"):
        gradcheck(lambda v: v * 1.0, Value(2.0 ** 53), eps=0.75)


def test_an_f_that_returns_more_than_one_number_is_named():
    with pytest.raises(ValueError, match=r"gradcheck needs f to return a single number, got shape \(2,\): "
                                         r"reduce it first"):
        gradcheck(lambda t: t * 2.0, Tensor([1.0, 2.0], requires_grad=True))


def test_a_wrong_gradient_where_the_slope_is_0_is_given_by_how_far_off():
    # It read "relative error 1e+300": backward's 1 over a slope of 0, divided by 1e-300.
    def rule(out):
        (a,) = out.parents
        a.accumulate(np.ones_like(a.data))

    def zero(t):
        return t.new_node(t.data * 0, parents=(t,), op="zero", backward_rule=rule).sum()

    with pytest.raises(AssertionError, match=r"backward gave 1, finite differences give 0 \(off by 1, atol"):
        gradcheck(zero, Tensor([-1.0], requires_grad=True))


def test_central_difference_nudges_one_entry_or_says_what_index_it_needs():
    # An index with fewer integers than x has axes nudged a whole row: [[1, 2], [3, 4]] gave
    # "slopes" [6, 6] for a sum of squares, whose slopes there are 2 and 4.
    square_sum = lambda v: float((v * v).sum())  # noqa: E731
    with pytest.raises(TypeError, match=r"one integer for each axis of x \(shape \(2, 2\)\), "
                                        r"such as \(0, 0\); got \(0,\)"):
        central_difference(square_sum, np.array([[1.0, 2.0], [3.0, 4.0]]), (0,), 1e-6)
    with pytest.raises(TypeError, match="got 0$"):
        central_difference(square_sum, np.array([1.0, 2.0]), 0, 1e-6)
    assert central_difference(square_sum, np.array([[1.0, 2.0], [3.0, 4.0]]), (0, 1), 1e-6) == pytest.approx(4.0)


@pytest.mark.parametrize("x, index", [(np.array([1.0, 2.0]), (0,)), (1e10, ())])
def test_central_difference_refuses_an_eps_lost_in_rounding(x, index):
    # An array gave nan (0 / 0) with a RuntimeWarning, a number a bare ZeroDivisionError: lesson
    # 02's own experiment near 1e10 with eps = 1e-7.
    eps = 1e-20 if index else 1e-7
    with pytest.raises(ValueError, match=r"eps = 1e-(20|07) is too small.*== x in float64"):
        central_difference(lambda v: float(np.sum(2 * v)), x, index, eps)
    with pytest.raises(ValueError, match=r"central_difference's eps must be > 0, got 0"):
        central_difference(lambda v: float(np.sum(2 * v)), x, index, 0.0)


def test_an_f_that_is_random_is_named_before_its_noise_is_read_as_a_slope():
    # Dropout inside f: "backward gave 1.87, finite differences give 737795.7", and no word of why.
    rng = np.random.default_rng(0)

    def dropout_then_tanh(t):
        return (t * Tensor((rng.random(t.shape) > 0.5) * 2.0)).tanh().sum()

    with pytest.raises(ValueError, match=r"f gave two different results at the same inputs.*Seed what is random"):
        gradcheck(dropout_then_tanh, Tensor(np.linspace(-1, 1, 5), requires_grad=True))
    # The same f, seeded inside, passes.
    assert gradcheck(lambda t: (t * Tensor((np.random.default_rng(1).random(t.shape) > 0.5) * 2.0)).tanh().sum(),
                     Tensor(np.linspace(-1, 1, 5), requires_grad=True))


def test_an_f_whose_noise_is_one_part_in_a_million_is_named_random_too():
    # f moves by 1e-6 from call to call, which a central difference over 2e-6 reads as a slope
    # of order 1: f's randomness, named as such, not a gradient named wrong.
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"f gave two different results at the same inputs"):
        gradcheck(lambda v: v * (1.0 + 1e-6 * rng.random()), Value(1.0))


def test_labels_given_to_gradcheck_are_told_to_go_inside_f():
    # gradcheck makes every input require grad: labels given beside the logits were refused by
    # cross_entropy as "swapped?", and a list of labels as a list, with no word of a closure.
    from tinyad.tensor import functional as F

    logits = Tensor([[0.1, 0.2], [0.3, -0.1]])
    with pytest.raises(TypeError, match=r"labels, targets\) goes inside f: "
                                        r"gradcheck\(lambda z: F\.cross_entropy\(z, labels\), logits\)"):
        gradcheck(F.cross_entropy, logits, [0, 1])
    with pytest.raises(TypeError, match=r"^cross_entropy got labels of shape \(2,\) that require grad: labels need "
                                        r"none\. Given to gradcheck beside the logits, they get one"):
        gradcheck(F.cross_entropy, logits, Tensor([0.0, 1.0]))
    with pytest.raises(TypeError, match=r"is a float: pass the Values or Tensors that f reads, for example "
                                        r"gradcheck\(f, Value\(2\.0\)\) or gradcheck\(f, Tensor\(\[1\.0, 2\.0\]\)\)$"):
        gradcheck(lambda v: v * 2, 2.0)  # a number for the input itself: no word of labels


def test_gradcheck_needs_an_input_and_hints_at_labels_only_beside_one():
    with pytest.raises(ValueError, match=r"^gradcheck needs at least one input$"):
        gradcheck(lambda: Value(1.0))
    # The hint that labels go inside f is for a list or array after the first input, not before.
    for inputs, hinted in (([1.0, 2.0],), False), ((Value(1.0), [0, 1]), True), ((Value(1.0), "labels"), False):
        with pytest.raises(TypeError) as raised:
            gradcheck(lambda *xs: xs[0], *inputs)
        assert ("what needs no gradient (labels, targets) goes inside f" in str(raised.value)) is hinted, inputs


def test_an_error_of_f_on_numpy_inputs_gets_no_note_of_other_libraries():
    # The note on float64 copies is for f's own tensors of another library (PyTorch's float32).
    def f(t):
        return t + "one"

    with pytest.raises(TypeError) as raised:
        gradcheck(f, Tensor([1.0, 2.0], requires_grad=True))
    assert not getattr(raised.value, "__notes__", None)


def test_f_is_the_same_each_time_within_rounding_and_nan_once_is_not():
    # A wrong rule, so that gradcheck asks whether f is random before it names the gradient.
    def twice_wrong(x, results):  # 2x plus this call's offset, whose rule passes the gradient on once
        return x.new_node(2.0 * x.data + next(results), parents=(x,), op="twice",
                          backward_rule=lambda out: out.parents[0].accumulate(out.grad))

    def calls(*values):
        return iter([*values, *[values[-1]] * 100])

    x = Tensor(1.5, requires_grad=True)
    # 1 part in 2e12 apart: rounding, the same result.
    results = calls(1.0, 1.0, 1.0, 1.0 + 5e-13)
    with pytest.raises(AssertionError, match="does not match"):
        gradcheck(lambda t: twice_wrong(t, results), x)
    results = calls(1.0, 1.0, 1.0, math.nan)  # nan where f gave a number: not the same
    with pytest.raises(ValueError, match=r"f gave two different results at the same inputs \(4, then nan\)"):
        gradcheck(lambda t: twice_wrong(t, results), x)


@pytest.mark.parametrize("x, words", [
    (3, "an int"), (2.5, "a float"), (np.ones(2), "an ndarray"), ("x", "a str"), (None, "a NoneType"),
])
def test_what_gradcheck_is_given_in_place_of_a_node_is_named_with_its_article(x, words):
    with pytest.raises(TypeError, match=f"gradcheck's input 0 is {words}: pass the Values or Tensors"):
        gradcheck(lambda v: v * v, x)


@pytest.mark.parametrize("name, words", [
    ("int", "an int"), ("ndarray", "an ndarray"), ("object", "an object"), ("float", "a float"),
    ("uint8", "a uint8"), ("NoneType", "a NoneType"), ("MLP", "an MLP"), ("SGD", "an SGD"),
    ("RNN", "an RNN"), ("Linear", "a Linear"), ("torch.Tensor", "a torch.Tensor"),
])
def test_a_type_is_named_with_the_article_it_is_read_with(name, words):
    from tinyad.validation import with_article

    assert with_article(name) == words
