"""The scalar engine: the graph it records, the walk's semantics, edge values and errors.

Each op's gradient, against finite differences and PyTorch, is a row of tests/op_families.py.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinyad import Value, gradcheck, topo_sort
from tinyad.scalar.value import as_float

from op_families import DIVISOR_GRADIENTS  # tests/op_families.py

finite = st.floats(min_value=-3.0, max_value=3.0, allow_nan=False, allow_infinity=False)
positive = st.floats(min_value=0.1, max_value=5.0)


@settings(max_examples=30, deadline=None)
@given(x=finite, y=finite, z=positive)
def test_composite_expression_matches_finite_differences(x, y, z):
    def f(a, b, c):
        h = (a * b + c.log()).tanh()
        return h * h + (b - a).sigmoid() / c + (a * 0.5).exp()

    assert gradcheck(f, Value(x), Value(y), Value(z))


def test_the_seed_example_by_hand():
    # tanh(w . x) with w = [0.5, -0.5], x = [1, 2]: z = -0.5, dL/dw_i = (1 - tanh(z)^2) x_i.
    w = [Value(0.5), Value(-0.5)]
    x = [1.0, 2.0]
    loss = (w[0] * x[0] + w[1] * x[1]).tanh()
    loss.backward()
    slope = 1 - math.tanh(-0.5) ** 2
    assert loss.data == math.tanh(-0.5)
    assert w[0].grad == pytest.approx(slope * 1.0, rel=1e-15)
    assert w[1].grad == pytest.approx(slope * 2.0, rel=1e-15)


# -- the graph each op records ------------------------------------------------


def test_parents_are_an_ordered_tuple_and_leaves_have_none():
    a, b = Value(2.0, "a"), Value(3.0, "b")
    c = a * b
    assert c.parents == (a, b) and c.op == "*"
    assert (b * a).parents == (b, a)
    assert a.parents == () and a.op == "" and a.grad == 0.0
    assert (a + a).parents == (a, a)
    assert a.tanh().parents == (a,) and (a**2).parents == (a,) and (-a).parents == (a,)


def test_a_value_is_made_with_one_parent_or_two():
    a = Value(2.0)
    made = Value(4.0, "", (a, a), "+", Value.add_backward)  # as the ops make their outputs
    assert made.parents == (a, a) and made.op == "+"
    with pytest.raises(ValueError, match="one parent or two, got 3 for op 'sum3'"):
        Value(6.0, "", (a, a, a), "sum3", Value.add_backward)
    # Without a rule the node would be taken for a leaf, and the gradient would stop there.
    with pytest.raises(TypeError, match="got parents but no backward_rule for op 'double'"):
        Value(4.0, parents=(a,), op="double")
    # micrograd's order, Value(data, children, op): the op's name was counted as four parents.
    with pytest.raises(TypeError, match=r"got parents='tanh', a str: .* the label second"):
        Value(0.9, (a,), "tanh", backward_rule=Value.tanh_backward)


@pytest.mark.parametrize("make_parents, words", [
    (lambda a: (a, 2.0), r"has parent 1 = 2.0, a float: a node's parents are Values"),
    (lambda a: ("b", a), r"has parent 0 = 'b', a str"),
    (lambda a: (None, a), r"its first parent is None"),
    (lambda a: (a, np.array([1.0])), r"has parent 1 = array\(\[1\.\]\), an ndarray"),  # unhashable
])
def test_backward_names_a_parent_that_is_not_a_value(make_parents, words):
    # A node made by hand, with the constructor lesson 01 prints, from a number: the walk
    # would stop at "'float' object has no attribute ..." inside the engine.
    a = Value(3.0, "a")
    made = Value(6.0, "", make_parents(a), "*", Value.mul_backward)
    with pytest.raises(TypeError, match=words):
        made.tanh().backward()


def test_backward_names_a_rule_without_parents():
    lonely = Value(1.0, "x", (), "exp", Value.exp_backward)
    with pytest.raises(TypeError, match="has a backward_rule but its first parent is missing"):
        (lonely * 2.0).backward()


@pytest.mark.parametrize("grad, words", [
    (None, r"the leaf labelled 'w' has grad = None, a NoneType: .*v\.grad = 0\.0"),
    ("0", r"the leaf labelled 'w' has grad = '0', a str"),
])
def test_backward_names_a_leaf_whose_gradient_was_set_to_what_is_not_a_number(grad, words):
    # PyTorch's way of clearing a gradient, p.grad = None: before, the rule's += failed in Python's words.
    w, x = Value(2.0, "w"), Value(3.0, "x")
    w.grad = grad
    with pytest.raises(TypeError, match=words):
        (w * x).tanh().backward()
    w.grad = 0.0  # cleared as the message says, the same graph back-propagates
    (w * x).tanh().backward()
    assert w.grad == pytest.approx(3.0 * (1.0 - math.tanh(6.0) ** 2))


def test_backward_keeps_an_error_of_a_rule_that_is_not_about_parents():
    def broken_rule(out):
        out.first.gard += out.grad  # a typo in a hand-written rule
    a = Value(2.0)
    with pytest.raises(AttributeError, match="gard"):
        Value(2.0, "", (a,), "id", broken_rule).backward()


def test_forward_computes_no_gradient():
    a, b = Value(2.0), Value(-3.0)
    d = (a * b + a).tanh()
    assert all(node.grad == 0.0 for node in topo_sort(d))


def test_value_coerces_real_numbers_to_float():
    assert isinstance(Value(3).data, float)
    assert Value(np.float32(0.5)).data == 0.5
    assert Value(np.int64(7)).data == 7.0
    assert Value(np.array([2.5])).data == 2.5


@pytest.mark.parametrize(
    "bad, words",
    [("3", "str"), (None, "NoneType"), (1 + 2j, "complex"), ([1.0], "list"), (np.ones(3), r"shape \(3,\)")],
)
def test_value_rejects_what_is_not_a_real_number(bad, words):
    with pytest.raises(TypeError, match=words):
        Value(bad)


def test_a_batch_given_to_the_scalar_network_is_told_to_go_one_example_at_a_time():
    # A batch of 4 read "this neuron takes 2 inputs, got 4"; a batch of 2 (as many rows as inputs)
    # reached Value() with a row: "needs a real number, got ndarray: an array of size 2".
    from tinyad.scalar.nn import MLP

    model = MLP(2, [3, 1], seed=0)
    with pytest.raises(ValueError, match=r"takes 2 inputs, got 4 \(a batch of 4 examples\?.*\[model\(x\) for x in X\]"):
        model(np.zeros((4, 2)))
    with pytest.raises(TypeError, match=r"got an array of shape \(2,\).*one example at a time"):
        model(np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"takes 2 inputs, got 3$"):  # one example, too long: no batch hint
        model([1.0, 2.0, 3.0])


def test_value_of_a_value_says_to_detach():
    with pytest.raises(TypeError, match="detach"):
        Value(Value(1.0))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_value_rejects_non_finite_numbers(bad):
    with pytest.raises(ValueError, match="finite"):
        as_float(bad)


# -- backward's semantics ------------------------------------------------------


def test_a_plus_a_accumulates():
    a = Value(3.0)
    (a + a).backward()
    assert a.grad == 2.0


def test_shared_nodes_twice_over():
    a = Value(3.0)
    b = a + a
    c = b + b
    c.backward()
    assert (a.grad, b.grad) == (4.0, 2.0)


def test_a_value_used_three_times():
    a = Value(1.5)
    y = a * a * a  # d/da a^3 = 3 a^2
    y.backward()
    assert a.grad == pytest.approx(3 * 1.5**2, rel=1e-15)
    b = Value(2.0)
    z = b * 3 + b.tanh() + b * b
    z.backward()
    assert b.grad == pytest.approx(3 + (1 - math.tanh(2.0) ** 2) + 4.0, rel=1e-15)


def test_backward_twice_accumulates_leaves_and_resets_interior():
    a, b = Value(2.0), Value(-1.0)
    h = a * b
    out = h.tanh()
    out.backward()
    first = (a.grad, b.grad, h.grad)
    out.backward()
    assert (a.grad, b.grad) == (2 * first[0], 2 * first[1])
    assert h.grad == first[2]  # interior: recomputed, not doubled
    assert out.grad == 1.0


def test_backward_of_a_leaf_seeds_it_and_accumulates_like_any_leaf():
    a = Value(4.0)
    a.backward()
    assert a.grad == 1.0
    a.backward()
    assert a.grad == 2.0  # torch: a leaf's x.backward() adds 1 each time


def test_detach_cuts_the_graph():
    a = Value(2.0)
    h = a * 3
    d = h.detach()
    assert d.data == h.data and d.parents == () and d.op == ""
    assert Value(0.5, "h").detach().label == "h"  # a detached hidden state keeps its name in a drawing
    (d * a).backward()
    assert a.grad == 6.0  # only through the second factor
    assert h.grad == 0.0


def test_a_long_tanh_chain_has_the_product_gradient():
    x = Value(0.5)
    h, expected = x, 1.0
    for _ in range(10_000):
        h = h.tanh()
        expected *= 1 - h.data**2
    h.backward()
    assert x.grad == pytest.approx(expected, rel=1e-9)


# -- errors on bad input ----------------------------------------------------


def test_division_by_zero_names_the_numbers():
    with pytest.raises(ZeroDivisionError, match="divisor is zero"):
        Value(1.0) / Value(0.0)
    with pytest.raises(ZeroDivisionError, match="divisor is zero"):
        Value(1.0) / 0
    with pytest.raises(ZeroDivisionError, match="divisor is zero"):
        1 / Value(0.0)


@pytest.mark.parametrize("x", [0.0, -2.5])
def test_log_of_a_non_positive_number(x):
    with pytest.raises(ValueError, match=rf"log\({x}\)"):
        Value(x).log()


def test_exp_overflow_names_the_node():
    with pytest.raises(OverflowError, match=r"exp\(1000.0\).*'big'"):
        Value(1000.0, "big").exp()


def test_exp_refuses_the_first_number_whose_exp_is_inf():
    # As the array engine's exp (tests/test_tensor_ops.py): the largest float whose exp is finite
    # gets its exp and slope, the next one up is refused. A limit of 709, or >= for >, refused both.
    edge = 709.782712893384
    x = Value(edge)
    out = x.exp()
    out.backward()
    assert out.data == math.exp(edge) and x.grad == math.exp(edge)
    with pytest.raises(OverflowError, match=r"exp\(709\.7827128933841\) overflows a float"):
        Value(math.nextafter(edge, math.inf)).exp()


def test_power_errors():
    with pytest.raises(TypeError, match="constant"):
        Value(2.0) ** Value(2.0)
    with pytest.raises(ValueError, match="fractional power"):
        Value(-8.0) ** (1 / 3)
    with pytest.raises(ZeroDivisionError, match="negative power of zero"):
        Value(0.0) ** -1
    root = Value(0.0) ** 0.5
    with pytest.raises(ZeroDivisionError, match="infinite"):
        root.backward()


def test_sigmoid_is_stable_at_both_ends():
    assert Value(-1000.0).sigmoid().data == 0.0
    assert Value(1000.0).sigmoid().data == 1.0
    assert Value(-30.0).sigmoid().data == pytest.approx(math.exp(-30) / (1 + math.exp(-30)), rel=1e-15)


def test_softplus_is_finite_and_exact_at_both_ends():
    # log(1 + e**x) is x + e**-x for large x and e**x for very negative x (to float precision),
    # 0 once e**x is below the smallest float; its slope is sigmoid(x).
    cases = [(1000.0, 1000.0, 1.0), (30.0, 30.0 + math.exp(-30.0), 1 / (1 + math.exp(-30.0))),
             (0.0, math.log(2.0), 0.5), (-40.0, math.exp(-40.0), math.exp(-40.0)),
             (-700.0, math.exp(-700.0), math.exp(-700.0)), (-1000.0, 0.0, 0.0)]
    for x, value, slope in cases:
        v = Value(x)
        y = v.softplus()
        y.backward()
        assert y.data == pytest.approx(value, rel=1e-15, abs=0.0), x
        assert v.grad == pytest.approx(slope, rel=1e-15, abs=0.0), x


@pytest.mark.parametrize("x", [0.7, -1.3])
def test_each_function_gives_maths_number(x):
    # Finite differences check a rule against its op's own forward number, never the number
    # itself: an exp that gave 2 * e**x passed them, its rule (out.data * out.grad) agreeing. The
    # rows against PyTorch check the numbers only where PyTorch is installed.
    v = Value(x)
    for name, out, expected in [
        ("exp", v.exp(), math.exp(x)),
        ("log", (v * v).log(), math.log(x * x)),
        ("tanh", v.tanh(), math.tanh(x)),
        ("sigmoid", v.sigmoid(), 1.0 / (1.0 + math.exp(-x))),
        ("softplus", v.softplus(), math.log1p(math.exp(x))),
        ("sin", v.sin(), math.sin(x)),
        ("cos", v.cos(), math.cos(x)),
        ("relu", v.relu(), max(x, 0.0)),
        ("cube", v**3, x * x * x),
        ("sqrt", (v * v) ** 0.5, abs(x)),
    ]:
        assert out.data == pytest.approx(expected, rel=1e-15, abs=0.0), name


def test_unsupported_operand_is_a_type_error():
    with pytest.raises(TypeError):
        Value(1.0) + "2"
    with pytest.raises(TypeError):
        [1.0] * Value(2.0)


def test_overflow_in_add_mul_and_pow_names_the_operands():
    with pytest.raises(OverflowError, match=r"1e\+200 \* 1e\+200 overflows a float"):
        Value(1e200) * Value(1e200)
    with pytest.raises(OverflowError, match=r"1\.7e\+308 \+ 1\.7e\+308 overflows a float"):
        Value(1.7e308) + 1.7e308
    with pytest.raises(OverflowError, match=r"\(1e\+200\) \*\* 2 overflows a float"):
        Value(1e200) ** 2


def test_an_op_on_data_set_by_hand_to_nan_or_inf_says_so_rather_than_overflow():
    # It read "nan * 2 overflows a float": no Value() or op makes nan or inf, but v.data = ... may.
    v = Value(1.0, "w")
    v.data = float("nan")
    with pytest.raises(ValueError, match=r"nan \* 2: an operand holds nan, "
                                         r"which only v\.data = \.\.\. puts in a Value"):
        v * 2
    v.data = float("inf")
    with pytest.raises(ValueError, match=r"inf \+ 1: an operand holds inf"):
        v + 1


def test_division_is_python_s_own_to_the_last_digit():
    # Built as a * b**-1 it gave 0.30000000000000004 for 3 / 10, and refused 1e-100 / 1e-310
    # (the reciprocal overflows, the quotient does not) and that quotient's gradients.
    for a, b in [(3.0, 10.0), (0.7, 0.1), (1.0, 3.0), (1e-100, 1e-310), (-2.5, 7.0)]:
        assert (Value(a) / b).data == a / b and (Value(a) / Value(b)).data == a / b
        assert (a / Value(b)).data == a / b
    a, b = Value(1e-100), Value(1e-160)
    out = a / b
    out.backward()
    assert out.op == "/" and out.parents == (a, b)
    assert a.grad == 1.0 / 1e-160  # d(a / b)/da = 1 / b
    assert b.grad == -(out.data / 1e-160) == pytest.approx(-1e220, rel=1e-15)  # -a / b**2, as -out / b
    with pytest.raises(OverflowError, match=r"1e\+300 / 1e-10 overflows a float"):
        Value(1e300) / Value(1e-10)
    # A number divisor is kept with the node: as a constant leaf, its gradient -out / b overflowed
    # and refused the whole backward (1e100 / 1e-150, whose gradient is 1e150).
    x = Value(1e100, "x")
    quotient = x / 1e-150
    quotient.backward()
    assert x.grad == 1e150 and quotient.parents == (x,) and quotient.op == "/1e-150"
    # The divisor's gradient, -out.grad * out / b, in whichever order stays within the floats (where
    # the dividend's, out.grad / b, is a float too: a Value's leaf refuses one beyond them).
    for a, b, scale, expected in [row for row in DIVISOR_GRADIENTS if math.isfinite(row[2] / row[1])]:
        divisor = Value(b)
        (Value(a) / divisor * scale).backward()
        assert divisor.grad == pytest.approx(expected, rel=1e-15, abs=0.0), (a, b, scale)


@pytest.mark.parametrize("zero", [0.0, -0.0, 0, np.float64(0.0), np.float32(0.0)], ids=repr)
def test_a_divisor_set_to_zero_after_the_forward_pass_is_named_by_backward(zero):
    # It was Python's bare "float division by zero", from inside the rule; a NumPy zero divided to
    # inf with a warning, and the leaf's gradient was then refused as an overflow.
    a, b = Value(1.0), Value(2.0)
    quotient = a / b
    b.data = zero
    with pytest.raises(ZeroDivisionError, match=r"the derivative of a / b at b = 0\.0 is infinite"):
        quotient.backward()
    assert (a.grad, b.grad) == (0.0, 0.0)
    x = Value(2.0)
    logged = x.log()
    x.data = zero
    with pytest.raises(ZeroDivisionError, match=r"the derivative of log\(a\) at a = 0\.0 is infinite"):
        logged.backward()
    assert x.grad == 0.0


def test_a_divisor_set_to_an_array_after_the_forward_pass_is_named_by_backward():
    c = Value(2.0)  # set to an array instead: "truth value of an array is ambiguous", from inside the rule
    ratio = Value(1.0) / c
    c.data = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match=r"a Value's gradient is a number"):
        ratio.backward()


def test_a_power_whose_slope_is_infinite_passes_on_no_gradient_where_none_arrives():
    # d(0 * sqrt(x))/dx at x = 0 is 0: nothing of sqrt's infinite slope reaches x.
    x = Value(0.0)
    ((x**0.5) * 0).backward()
    assert x.grad == 0.0
    root = Value(0.0) ** 0.5  # where a gradient arrives, the infinite slope is refused
    with pytest.raises(ZeroDivisionError, match="infinite"):
        root.backward()


def test_a_power_of_at_least_1_has_a_finite_slope_at_zero():
    # n * x ** (n - 1) at x = 0 is infinite only for n < 1 (but 0): x ** 1 has slope 1 there,
    # higher powers 0. A test of n <= 1 refused x ** 1.
    for n, slope in [(1, 1.0), (1.0, 1.0), (1.5, 0.0), (2, 0.0), (3, 0.0)]:
        x = Value(0.0)
        (x**n).backward()
        assert x.grad == slope, n


def test_the_power_zero_has_gradient_zero_even_at_zero():
    for x in (0.0, 2.0, -3.0):
        v = Value(x)
        (v**0).backward()
        assert v.grad == 0.0


def test_a_number_on_the_left_is_the_first_parent():
    v = Value(3.0)
    for expr, op, first in [(2 * v, "*", 2.0), (5 + v, "+", 5.0), (1 - v, "+", 1.0), (6 / v, "/", 6.0)]:
        assert expr.op == op and expr.parents[0].data == first
        assert expr.parents[0].parents == ()  # the number is a constant leaf
    assert (1 - v).parents[1].op == "neg" and (6 / v).parents[1] is v
    assert (1 - v).data == -2.0 and (6 / v).data == 2.0
    with pytest.raises(ZeroDivisionError, match="divisor is zero"):
        1 / Value(0.0)


def test_a_value_and_a_tensor_do_not_mix():
    from tinyad import Tensor

    v, t = Value(2.0), Tensor([1.0, 2.0], requires_grad=True)
    for combine in (lambda: v + t, lambda: t + v, lambda: v * t, lambda: t - v, lambda: v / t,
                    lambda: t / v, lambda: 1 - v + t):
        with pytest.raises(TypeError, match=r"a (Value|Tensor) and a (Tensor|Value) cannot be combined"):
            combine()
    with pytest.raises(TypeError, match=r"Value\(\) cannot hold one: use Value\(t.item\(\)\)"):
        Value(Tensor([2.0]))
    with pytest.raises(TypeError, match=r"Tensor\(\) got a Value; a new Tensor cannot carry its graph: "
                                        r"use Tensor\(v.data\)"):
        Tensor(v)


def test_a_derivative_that_overflows_is_named_not_silent():
    # 1/x and log x have finite values at x = 1e-200 and 1e-320, but derivatives beyond a float.
    x = Value(1e-200)
    y = 1 / x
    with pytest.raises(OverflowError, match=r"gradient at a leaf with data 1e-200 overflows"):
        y.backward()
    x = Value(1e-320, label="x")
    y = x.log()
    with pytest.raises(OverflowError, match=r"gradient at the leaf labelled 'x' overflows"):
        y.backward()


def test_a_gradient_that_overflows_in_a_product_is_named():
    tiny = Value(1e-300)
    big = (tiny * 1e200) * 1e200  # 1e100: every value is finite, d big / d tiny = 1e400 is not
    with pytest.raises(OverflowError, match=r"gradient at a leaf with data 1e-300 overflows"):
        big.backward()


def test_exponents_that_are_not_finite_are_refused():
    for n in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match="exponent must be a finite number"):
            Value(1.0) ** n
        with pytest.raises(ValueError, match="exponent must be a finite number"):
            Value(2.0) ** n


def test_mlp_sizes_may_come_from_any_iterable():
    from tinyad.scalar.nn import MLP

    from_generator = MLP(2, (n for n in [4, 1]), seed=0)
    from_list = MLP(2, [4, 1], seed=0)
    assert [p.data for p in from_generator.parameters()] == [p.data for p in from_list.parameters()]
    assert [layer.neurons[0].nonlin for layer in from_generator.layers] == [True, False]


def test_operands_that_are_not_numbers_are_named_whatever_the_operator():
    with pytest.raises(TypeError, match="got str: 'a'"):
        Value(2.0) - "a"
    with pytest.raises(TypeError, match=r"got an array of shape \(2,\): a Value holds one number"):
        np.array([1.0, 2.0]) + Value(2.0)  # not an array of Values
    assert (np.float64(3.0) * Value(2.0)).data == 6.0
    assert (Value(2.0) / np.int64(4)).data == 0.5  # NumPy ints to negative powers are refused
    with pytest.raises(OverflowError, match=r"1 / 9\.99989e-321 overflows a float"):  # 1e-320 held as a subnormal
        Value(1.0) / 1e-320
    for make in (lambda: Value(10**400), lambda: Value(2.0) * 10**400, lambda: Value(2.0) ** 10**400):
        with pytest.raises(ValueError, match="an int of 401 digits"):
            make()
    # An int exponent in the thousands is no int too large: 1 and -1 to it, and the slope there.
    for x, n, expected, slope in [(1.0, 5000, 1.0, 5000.0), (-1.0, 5001, -1.0, 5001.0)]:
        y = Value(x) ** n
        y.backward()
        assert (y.data, y.first.grad) == (expected, slope)


def test_a_value_formats_as_its_number_and_refuses_to_be_a_float_or_ordered():
    # A training loop's f"{loss:.4f}" failed with "unsupported format string"; float(v), math.exp(v),
    # np.array(values, dtype=float) and v > 0 failed in Python's words, which say nothing of v.data.
    v = Value(0.123456, "loss")
    assert f"{v:.4f}" == "0.1235" and f"{v}" == repr(v)
    for use in (lambda: float(v), lambda: math.exp(v), lambda: np.array([v, v], dtype=float)):
        with pytest.raises(TypeError, match=r"float\(\) of a Value: use v\.data"):
            use()
    # The training loop's slip: losses.append(loss), then plt.plot(losses).
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with pytest.raises(TypeError, match=r"list of Values given to NumPy or matplotlib.*\[v\.data for v in values\]"):
        plt.plot([v, v * 2])
    plt.close("all")
    for compare in (lambda: v > 0, lambda: 0 <= v, lambda: v < Value(1.0), lambda: max([v, Value(1.0)])):
        with pytest.raises(TypeError, match=r"Values have no order: compare their numbers.*v\.relu\(\)"):
            compare()


@pytest.mark.parametrize("call, instead", [
    # Before: "operand 'Value' does not support ufuncs (__array_ufunc__=None)".
    ("np.tanh(v)", r"v\.tanh\(\)"),
    ("np.exp(v)", r"v\.exp\(\)"),
    ("np.maximum(v, 0)", r"v\.relu\(\) for np\.maximum\(v, 0\)"),
    ("np.maximum(0, v)", r"v\.relu\(\) for np\.maximum\(v, 0\)"),  # a function, with the Value second
    ("np.sqrt(v)", r"v \*\* 0\.5"),
    ("np.absolute(v)", r"its own ops \(v\.exp\(\), v\.tanh\(\), v \*\* 2\)"),
    ("np.sign(v)", r"np\.sign\(v\.data\) \(its result has no gradient to follow\)"),
    # A Value has no @: NumPy's matmul is refused without advising one (where the array came first,
    # it was an AttributeError from inside the engine).
    ("np.matmul(v, 2.0)", r"its own ops \(v\.exp\(\), v\.tanh\(\), v \*\* 2\)"),
    ("np.matmul(np.ones(2), v)", r"its own ops \(v\.exp\(\), v\.tanh\(\), v \*\* 2\)"),
])
def test_a_numpy_function_of_a_value_is_refused_with_what_to_write_instead(call, instead):
    v = Value(0.5)
    with pytest.raises(TypeError, match=rf"NumPy cannot follow a Value's graph \({re.escape(call[:call.index('(')])} "
                                        rf"of a Value\): use {instead}, or v\.data for its number"):
        eval(call)


def test_numpys_numbers_and_arrays_meet_a_value_as_before():
    # NumPy's operators go on to the Value's reflected ones, as Python's numbers do.
    v = Value(2.0)
    for got, expected in [(np.float64(3.0) * v, 6.0), (np.float64(3.0) - v, 1.0),
                          (np.float64(3.0) / v, 1.5), (np.float64(3.0) + v, 5.0)]:
        assert isinstance(got, Value) and got.data == expected
    with pytest.raises(TypeError, match=r"Value\(\) needs one number, got an array of shape \(2,\)"):
        np.array([1.0, 2.0]) + v  # not an array of Values, made in silence
    with pytest.raises(TypeError, match="Values have no order"):
        np.float64(1.0) < v
    # No == of its own: compared by identity, as before (an array of Values is NumPy's to compare).
    assert (np.float64(2.0) == v, np.array([2.0]) == v, np.float64(2.0) != v) == (False, False, True)
    # Arrays of Values are arrays of objects: NumPy calls each Value's own ops.
    assert [u.data for u in np.tanh(np.array([v, v]))] == [math.tanh(2.0)] * 2
    assert np.sum([v, v]).data == 4.0


def test_a_number_to_the_power_of_a_value_says_how_to_write_it():
    # Python's words were "unsupported operand type(s) for ** or pow(): 'int' and 'Value'".
    with pytest.raises(TypeError, match=r"2 \*\* a Value: .*base \*\* v is \(v \* math\.log\(base\)\)\.exp\(\)"):
        2 ** Value(3.0)


def test_backward_names_a_leaf_whose_gradient_a_rule_made_a_value():
    # A rule written by hand with b for b.data: before, "must be real number, not Value" from isfinite.
    a, b = Value(2.0, "a"), Value(3.0, "b")

    def mul_rule(out):
        out.first.grad += out.second * out.grad
        out.second.grad += out.first.data * out.grad

    with pytest.raises(TypeError, match=r"the gradient at the leaf labelled 'a' is a Value .*b instead of b\.data"):
        Value(6.0, "", (a, b), "*", mul_rule).backward()


def test_a_networks_output_list_used_as_a_value_is_named():
    # Before: "Value() needs a real number, got list", from a Value() the learner never wrote.
    from tinyad.scalar.nn import MLP
    out = MLP(2, [3, 1], seed=0)([1.0, 2.0])
    for use in (lambda: out - Value(1.0), lambda: Value(2.0) * out):
        with pytest.raises(TypeError, match=r"a list of 1 Value\(s\) .*model\(x\)\[0\]"):
            use()


def test_an_update_written_p_minus_equals_on_a_value_is_refused_not_lost():
    # p -= lr * p.grad bound the loop's name to a new node and left every parameter as it was,
    # silently: three steps later the model had not moved.
    from tinyad.scalar.nn import MLP

    model = MLP(2, [3, 1], seed=0)
    (model([1.0, 2.0])[0] ** 2).backward()
    for op in ("-=", "+=", "*=", "/="):
        p = model.parameters()[0]
        with pytest.raises(TypeError, match=rf"v {re.escape(op)} <a number> on a Value that is a leaf "
                                            rf".* v\.data {re.escape(op)}"):
            exec(f"p {op} 0.1", {"p": p})
        with pytest.raises(TypeError, match=rf"v {re.escape(op)} <a number>"):  # NumPy's number: it rebound p
            exec(f"p {op} np.array(0.1)", {"p": p, "np": np})
    with pytest.raises(TypeError, match=r"a list of 1 Value"):  # not a number: the op's own words
        total = Value(0.0)
        total += model([1.0, 2.0])
    total = Value(0.0)  # a sum of losses, a Value on the right: a new node, as it should be
    for k in range(3):
        total += Value(float(k)) * 2
    assert total.data == 6.0 and total.op == "+"
    node = Value(1.0) * 3  # not a leaf: a number on the right makes a new node too
    node -= 1
    assert node.data == 2.0
    for op, expected in (("+=", 6.0), ("-=", -2.0), ("*=", 8.0), ("/=", 0.5)):  # each the op it says
        scope = {"v": Value(2.0), "Value": Value}
        exec(f"v {op} Value(4.0)", scope)
        assert scope["v"].data == expected, (op, scope["v"])


def test_a_value_whose_data_was_set_to_a_value_is_named_at_its_next_op():
    p = Value(1.0)
    (p * p).backward()
    p.data = p - 0.1 * p.grad  # .data forgotten on the right
    with pytest.raises(TypeError, match=r"an operand's \.data is itself a Value: p\.data = p - lr \* p\.grad"):
        p * 2


def test_an_op_on_a_number_set_by_hand_to_inf_names_the_op_and_its_operand():
    v = Value(1.0)
    v.data = math.inf  # only a hand can put it there
    with pytest.raises(ValueError, match=r"^relu\(inf\): an operand holds inf, "
                                         r"which only v\.data = \.\.\. puts in a Value"):
        v.relu()


@pytest.mark.parametrize("op", ["sin", "cos"])
@pytest.mark.parametrize("bad", [math.inf, -math.inf])
def test_sin_and_cos_of_an_inf_set_by_hand_name_the_op_not_a_math_domain_error(op, bad):
    v = Value(1.0)
    v.data = bad
    with pytest.raises(ValueError, match=rf"^{op}\({bad}\): an operand holds {bad}, which only v\.data = \.\.\."):
        getattr(v, op)()
    # Set after the forward pass, the inf meets the derivative's cos or sin in backward.
    w = Value(1.0)
    out = getattr(w, op)()
    w.data = bad
    derivative = {"sin": "cos", "cos": "sin"}[op]
    with pytest.raises(ValueError, match=rf"^{derivative}\({bad}\): an operand holds {bad}"):
        out.backward()


def test_an_exponent_of_true_or_false_is_refused_as_a_bool():
    # True is an int to Python: let through, v ** True would be v ** 1, by accident.
    with pytest.raises(TypeError, match=r"Value \*\* exponent needs an int or float constant, got bool"):
        Value(2.0) ** True


def test_node_is_the_constructor_the_api_notes_name():
    from tinyad.scalar.value import node

    assert node is Value


def test_a_hand_written_rule_that_adds_a_value_into_a_gradient_is_named_and_one_that_adds_numpy_floats_is_not():
    # b instead of b.data in a rule: the leaf's gradient becomes a Value, named once the walk ends.
    # A NumPy float (a rule computed with np.tanh, say) is a number, and is kept.
    def by_value(out):
        (a,) = out.parents
        a.grad += out * 2

    def by_numpy(out):
        (a,) = out.parents
        a.grad += np.float64(2.0) * out.grad

    x = Value(1.5)
    with pytest.raises(TypeError, match=r"the gradient at a leaf with data 1\.5 is a Value \(Value\(data=6, "
                                        r"grad=0\)\): a backward rule added a Value into it, where a number belongs"):
        Value(3.0, "y", (x,), "double", by_value).backward()
    x = Value(1.5)
    Value(3.0, "y", (x,), "double", by_numpy).backward()
    assert x.grad == 2.0
