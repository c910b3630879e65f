"""The scalar engine: every op against finite differences and PyTorch, the walk's semantics, errors."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinyad import Value, gradcheck, topo_sort
from tinyad.scalar.value import _as_float
from torch_reference import needs_torch, torch  # tests/torch_reference.py

finite = st.floats(min_value=-3.0, max_value=3.0, allow_nan=False, allow_infinity=False)
positive = st.floats(min_value=0.1, max_value=5.0)
away_from_zero = st.one_of(st.floats(min_value=0.2, max_value=4.0), st.floats(min_value=-4.0, max_value=-0.2))

# Each op: how tinyad computes it, how torch does, and the inputs it is defined on.
UNARY = {
    "neg": (lambda a: -a, lambda t: -t, finite),
    "tanh": (lambda a: a.tanh(), lambda t: t.tanh(), finite),
    "exp": (lambda a: a.exp(), lambda t: t.exp(), finite),
    "log": (lambda a: a.log(), lambda t: t.log(), positive),
    "sigmoid": (lambda a: a.sigmoid(), lambda t: t.sigmoid(), finite),
    "relu": (lambda a: a.relu(), lambda t: t.relu(), away_from_zero),
    "square": (lambda a: a**2, lambda t: t**2, finite),
    "cube": (lambda a: a**3, lambda t: t**3, finite),
    "sqrt": (lambda a: a**0.5, lambda t: t**0.5, positive),
    "inverse": (lambda a: a**-1, lambda t: t**-1, away_from_zero),
    "number plus": (lambda a: 2 + a, lambda t: 2 + t, finite),
    "number minus": (lambda a: 1 - a, lambda t: 1 - t, finite),
    "number times": (lambda a: 3 * a, lambda t: 3 * t, finite),
    "number over": (lambda a: 1 / a, lambda t: 1 / t, away_from_zero),
    "minus number": (lambda a: a - 1.5, lambda t: t - 1.5, finite),
    "over number": (lambda a: a / 4, lambda t: t / 4, finite),
}
BINARY = {
    "add": (lambda a, b: a + b, finite),
    "sub": (lambda a, b: a - b, finite),
    "mul": (lambda a, b: a * b, finite),
    "div": (lambda a, b: a / b, away_from_zero),
}


@pytest.mark.parametrize("name", UNARY)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_unary_op_matches_finite_differences(name, data):
    f, _, inputs = UNARY[name]
    a = Value(data.draw(inputs))
    assert gradcheck(f, a)


@pytest.mark.parametrize("name", BINARY)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_binary_op_matches_finite_differences(name, data):
    f, inputs = BINARY[name]
    a, b = Value(data.draw(finite)), Value(data.draw(inputs))
    assert gradcheck(f, a, b)


@needs_torch
@pytest.mark.parametrize("name", UNARY)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_unary_op_matches_torch(name, data):
    f, f_torch, inputs = UNARY[name]
    x = data.draw(inputs)
    a = Value(x)
    out = f(a)
    out.backward()
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    out_t = f_torch(t)
    out_t.backward()
    assert out.data == pytest.approx(out_t.item(), rel=1e-12, abs=1e-12)
    assert a.grad == pytest.approx(t.grad.item(), rel=1e-12, abs=1e-12)


@needs_torch
@pytest.mark.parametrize("name", BINARY)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_binary_op_matches_torch(name, data):
    f, inputs = BINARY[name]
    x, y = data.draw(finite), data.draw(inputs)
    a, b = Value(x), Value(y)
    f(a, b).backward()
    ta = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    f(ta, tb).backward()
    assert a.grad == pytest.approx(ta.grad.item(), rel=1e-12, abs=1e-12)
    assert b.grad == pytest.approx(tb.grad.item(), rel=1e-12, abs=1e-12)


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
    [("3", "str"), (None, "NoneType"), (1 + 2j, "complex"), ([1.0], "list"), (np.ones(3), "size 3")],
)
def test_value_rejects_what_is_not_a_real_number(bad, words):
    with pytest.raises(TypeError, match=words):
        Value(bad)


def test_value_of_a_value_says_to_detach():
    with pytest.raises(TypeError, match="detach"):
        Value(Value(1.0))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_value_rejects_non_finite_numbers(bad):
    with pytest.raises(ValueError, match="finite"):
        _as_float(bad)


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
    (d * a).backward()
    assert a.grad == 6.0  # only through the second factor
    assert h.grad == 0.0


def test_topo_sort_puts_parents_first_and_each_node_once():
    a, b = Value(1.0), Value(2.0)
    c = a * b
    d = c + a
    e = d * c
    order = topo_sort(e)
    assert len(order) == len({id(n) for n in order}) == 5
    position = {id(n): i for i, n in enumerate(order)}
    for node in order:
        for p in node.parents:
            assert position[id(p)] < position[id(node)]
    assert order[-1] is e


def test_topo_sort_is_depth_first_post_order_in_parent_order():
    # The order lesson 02 derives by hand: follow parents left to right, place a
    # node once its parents are placed.
    a, b, c = Value(1.0, "a"), Value(2.0, "b"), Value(3.0, "c")
    ab = a * b
    abc = ab + c
    out = abc * a
    assert topo_sort(out) == [a, b, ab, c, abc, out]


def test_graph_nodes_hash_by_identity():
    # topo_sort keeps the nodes it has seen in a set of the nodes themselves.
    from tinyad import Tensor

    for node_type in (Value, Tensor):
        assert node_type.__hash__ is object.__hash__, node_type
    assert Value.__eq__ is object.__eq__
    a, b = Tensor([1.0]), Tensor([1.0])
    assert len({a, b, a}) == 2
    with pytest.raises(TypeError, match=r"t.data == other.data"):
        a == b  # noqa: B015 (the comparison is the point)
    with pytest.raises(TypeError, match=r"no == or !="):
        a != 1.0  # noqa: B015


def test_a_million_node_chain_sorts_and_backpropagates():
    x = Value(0.3)
    h = x
    for _ in range(1_000_000):
        h = h + 1.0  # each step: one + node and one constant leaf
    assert len(topo_sort(h)) == 2_000_001
    h.backward()
    assert x.grad == 1.0
    assert sys.getrecursionlimit() < 1_000_000  # the walk did not need a bigger stack


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


def test_unsupported_operand_is_a_type_error():
    with pytest.raises(TypeError):
        Value(1.0) + "2"
    with pytest.raises(TypeError):
        [1.0] * Value(2.0)


# -- gradcheck itself ------------------------------------------------------------


def test_gradcheck_reports_a_wrong_rule():
    def wrong_square(a):
        out = a * a
        out.backward_rule = lambda node: None  # forgets to pass anything on
        return out

    with pytest.raises(AssertionError, match=r"input 0 \('x'\).*backward gave 0.*finite differences give 3"):
        gradcheck(wrong_square, Value(1.5, "x"))


def test_gradcheck_leaves_inputs_as_they_were():
    a = Value(2.0)
    a.grad = 0.25
    gradcheck(lambda v: v * v, a)
    assert (a.data, a.grad) == (2.0, 0.25)


def test_overflow_in_add_mul_and_pow_names_the_operands():
    with pytest.raises(OverflowError, match=r"1e\+200 \* 1e\+200 overflows a float"):
        Value(1e200) * Value(1e200)
    with pytest.raises(OverflowError, match=r"1\.7e\+308 \+ 1\.7e\+308 overflows a float"):
        Value(1.7e308) + 1.7e308
    with pytest.raises(OverflowError, match=r"\(1e\+200\) \*\* 2 overflows a float"):
        Value(1e200) ** 2


def test_the_power_zero_has_gradient_zero_even_at_zero():
    for x in (0.0, 2.0, -3.0):
        v = Value(x)
        (v**0).backward()
        assert v.grad == 0.0


def test_a_number_on_the_left_is_the_first_parent():
    v = Value(3.0)
    for expr, op, first in [(2 * v, "*", 2.0), (5 + v, "+", 5.0), (1 - v, "+", 1.0), (6 / v, "*", 6.0)]:
        assert expr.op == op and expr.parents[0].data == first
        assert expr.parents[0].parents == ()  # the number is a constant leaf
    assert (1 - v).parents[1].op == "neg" and (6 / v).parents[1].op == "**-1"
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
    with pytest.raises(TypeError, match=r"Value\(\) got a Tensor; use Value\(t.item\(\)\)"):
        Value(Tensor([2.0]))
    with pytest.raises(TypeError, match=r"Tensor\(\) got a Value; use Tensor\(v.data\)"):
        Tensor(v)


def test_gradcheck_refuses_inputs_and_outputs_that_are_not_nodes():
    with pytest.raises(TypeError, match="input 0 is a float"):
        gradcheck(lambda x: x, 2.0)
    with pytest.raises(TypeError, match="input 1 is a ndarray"):
        gradcheck(lambda x, y: x, Value(1.0), np.ones(2))
    with pytest.raises(TypeError, match="return a Value or a Tensor, got float"):
        gradcheck(lambda x: 3.0, Value(1.0))
    with pytest.raises(TypeError, match="got list"):
        gradcheck(lambda x: [x], Value(1.0))


def test_check_close_accepts_numpy_numbers_and_refuses_nodes():
    from tinyad import grading

    grading.check_close(np.float64(0.5), 0.5, "what", "tried", "hint")
    grading.check_close(np.sum(np.ones(3)), 3.0, "what", "tried", "hint")
    with pytest.raises(AssertionError, match="return a plain number"):
        grading.check_close(Value(0.5), 0.5, "what", "tried", "hint")


@needs_torch
def test_check_close_refuses_a_torch_tensor_with_the_course_message():
    from tinyad import grading

    loss = (torch.tensor([2.0], dtype=torch.float64, requires_grad=True) * 3).sum()
    with pytest.raises(AssertionError, match=r"return a plain number, not a node"):
        grading.check_close(loss, 6.0, "the loss", "torch_grads()", "hint")


def test_a_derivative_that_overflows_is_named_not_silent():
    # 1/x and log x have finite values at x = 1e-200 and 1e-320, but derivatives beyond a float.
    x = Value(1e-200)
    y = 1 / x
    with pytest.raises(OverflowError, match=r"derivative of x \*\* -1 at x = 1e-200 overflows"):
        y.backward()
    x = Value(1e-320)
    y = x.log()
    with pytest.raises(OverflowError, match=r"derivative of log\(x\) at x = 9.99989e-321 overflows"):
        y.backward()
    assert x.grad == 0.0  # nothing was added: no inf left behind


def test_mlp_sizes_may_come_from_any_iterable():
    from tinyad.scalar.nn import MLP

    from_generator = MLP(2, (n for n in [4, 1]), seed=0)
    from_list = MLP(2, [4, 1], seed=0)
    assert [p.data for p in from_generator.parameters()] == [p.data for p in from_list.parameters()]
    assert [layer.neurons[0].nonlin for layer in from_generator.layers] == [True, False]
