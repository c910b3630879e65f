"""tinyad.grading: every helper fails on a wrong sign, a wrong shape and a nan, and passes a right answer.

A check that cannot fail is a defect, so each helper is given the wrong answers a learner
is likely to write (the gradient with its sign flipped, an answer of the wrong shape, a nan)
and must raise the course's four-part AssertionError for each.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from tinyad import Tensor, Value, grading

HINT = "the hint"


def message(error: pytest.ExceptionInfo) -> str:
    text = str(error.value)
    for part in ("tried:", "expected:", "got:", "hint:"):
        assert part in text, f"the message lacks {part!r}:\n{text}"
    return text


# -- fail and check -----------------------------------------------------------------


def test_fail_says_what_was_tried_expected_got_and_a_hint():
    with pytest.raises(AssertionError) as error:
        grading.fail("the slope", "slope(f, 1.0)", 2.0, 3.0, "use 2 * h")
    assert str(error.value) == (
        "the slope\n  tried:    slope(f, 1.0)\n  expected: 2.0\n  got:      3.0\n  hint:     use 2 * h"
    )


@pytest.mark.parametrize(
    "condition",
    [-1.0 > 0, len([1, 2]) == 3, math.nan > 0, np.float64(math.nan) == np.float64(math.nan)],
    ids=["wrong sign", "wrong shape", "nan", "numpy nan"],
)
def test_check_fails_on_a_false_condition(condition):
    with pytest.raises(AssertionError) as error:
        grading.check(condition, "what", "tried", "expected", "got", HINT)
    assert message(error).endswith(HINT)


def test_check_passes_on_true_and_refuses_a_condition_that_is_not_a_bool():
    grading.check(True, "w", "t", "e", "g", HINT)
    grading.check(np.bool_(True), "w", "t", "e", "g", HINT)
    with pytest.raises(TypeError, match="needs a bool condition, got nan"):
        grading.check(math.nan, "w", "t", "e", "g", HINT)
    with pytest.raises(TypeError, match="got \\[1\\]"):
        grading.check([1], "w", "t", "e", "g", HINT)


# -- check_close --------------------------------------------------------------------


@pytest.mark.parametrize(
    "got, expected",
    [
        (-2.0, 2.0),
        ([1.0, -2.0, 3.0], [1.0, 2.0, 3.0]),
        ([1.0, 2.0], [1.0, 2.0, 3.0]),
        ([[1.0, 2.0]], [1.0, 2.0]),
        (math.nan, 1.0),
        ([1.0, math.nan], [1.0, 2.0]),
        (math.nan, math.nan),
        (None, 1.0),
        ("2.0 or so", 2.0),
    ],
    ids=["wrong sign", "one wrong sign", "too short", "extra axis", "nan", "nan inside",
         "nan expected", "None", "text"],
)
def test_check_close_fails(got, expected):
    with pytest.raises(AssertionError) as error:
        grading.check_close(got, expected, "what", "tried", HINT)
    message(error)


def test_check_close_names_the_shapes():
    with pytest.raises(AssertionError, match=r"expected: shape \(3,\)\n  got:      shape \(2,\)"):
        grading.check_close([1.0, 2.0], [1.0, 2.0, 3.0], "what", "tried", HINT)


def test_check_close_refuses_nodes_and_tensors_even_inside_lists():
    for got in (Value(2.0), [Value(2.0)], (1.0, [Tensor([2.0])])):
        with pytest.raises(AssertionError, match="not a node or a tensor"):
            grading.check_close(got, [2.0] if isinstance(got, list) else 2.0, "what", "tried", HINT)
    torch = pytest.importorskip("torch")
    with pytest.raises(AssertionError, match="not a node or a tensor"):
        grading.check_close([torch.tensor(2.0, dtype=torch.float64)], [2.0], "what", "tried", HINT)


def test_check_close_passes_within_tolerance():
    grading.check_close(2.0 + 1e-12, 2.0, "what", "tried", HINT)
    grading.check_close(np.array([1.0, 2.0]), [1.0, 2.0], "what", "tried", HINT)
    grading.check_close(None, None, "what", "tried", HINT)
    grading.check_close(2.05, 2.0, "what", "tried", HINT, atol=0.1)


# -- check_topo_order ---------------------------------------------------------------


def diamond():
    a = Value(2.0, "a")
    b = a * a
    c = b + a
    return a, b, c, b * c


def test_check_topo_order_accepts_any_valid_order():
    a, b, c, d = diamond()
    grading.check_topo_order([a, b, c, d], d, HINT)
    x, y = Value(1.0), Value(2.0)
    z = x * y
    grading.check_topo_order([y, x, z], z, HINT)  # not the engine's order, and right


@pytest.mark.parametrize(
    "make",
    [
        lambda a, b, c, d: [d, c, b, a],  # the wrong sign: root first
        lambda a, b, c, d: [a, c, b, d],  # a child before its parent
        lambda a, b, c, d: [a, b, d],  # too short: a node missing
        lambda a, b, c, d: [a, b, b, c, d],  # a node twice
        lambda a, b, c, d: [[a, b], [c, d]],  # nested
        lambda a, b, c, d: (a, b, c, d),  # a tuple
        lambda a, b, c, d: [a, b, c, d, Value(1.0)],  # a node not in the graph
        lambda a, b, c, d: [math.nan, a, b, c, d],  # not a node at all
    ],
    ids=["reversed", "child first", "missing", "repeated", "nested", "tuple", "stranger", "nan"],
)
def test_check_topo_order_fails(make):
    nodes = diamond()
    with pytest.raises(AssertionError) as error:
        grading.check_topo_order(make(*nodes), nodes[-1], HINT)
    message(error)


# -- call_without_recursion ---------------------------------------------------------


def chain(depth: int) -> Value:
    node = Value(1.0)
    for _ in range(depth):
        node = node * 1.0
    return node


def depth(node) -> int:
    """The length of the longest path from a leaf to ``node``, by plain recursion."""
    return 1 + max((depth(parent) for parent in node.parents), default=0)


def test_call_without_recursion_returns_what_an_iterative_answer_returns():
    deep = chain(3000)
    from tinyad import topo_sort

    order = grading.call_without_recursion(topo_sort, deep, what="w", tried="t")
    assert len(order) == 6001 and order[-1] is deep
    assert math.isnan(grading.call_without_recursion(lambda: math.nan, what="w", tried="t"))


def test_call_without_recursion_fails_a_recursion_error():
    with pytest.raises(AssertionError, match="RecursionError") as error:
        grading.call_without_recursion(depth, chain(3000), what="w", tried="t")
    message(error)


def test_call_without_recursion_fails_a_recursion_that_raised_the_limit_itself():
    def raise_limit_then_recurse(root):  # the recursion survives, and is still caught
        sys.setrecursionlimit(100_000)
        return depth(root)

    limit = sys.getrecursionlimit()
    try:
        with pytest.raises(AssertionError, match=r"from \d{4,} nested calls") as error:
            grading.call_without_recursion(raise_limit_then_recurse, chain(3000), what="w", tried="t")
    finally:
        sys.setrecursionlimit(limit)
    message(error)
    assert sys.getprofile() is None  # the call counter is removed


# -- check_finite_differences -------------------------------------------------------


class Node:
    """A scalar node whose rule a test chooses, as lesson 02's exercise has learners write."""

    def __init__(self, data, parents=(), rule=None):
        self.data, self.grad, self.parents, self.op, self.backward_rule = float(data), 0.0, parents, "", rule

    def backward(self):
        from tinyad import graph

        graph.backward(self, seed=1.0, interior_grad=0.0)


def square_with(local):
    """f(a) = a * a, with the rule adding ``local(a, out)`` into a.grad."""

    def rule(out):
        (a,) = out.parents
        a.grad = a.grad + local(a, out)

    return lambda a: Node(a.data * a.data, (a,), rule)


def test_check_finite_differences_passes_a_right_rule():
    grading.check_finite_differences(square_with(lambda a, out: 2 * a.data * out.grad), [Node(1.5)],
                                     "what", "tried", HINT)
    grading.check_finite_differences(lambda t: (t * t).sum(), [Tensor([1.0, -2.0])], "w", "t", HINT)


@pytest.mark.parametrize(
    "local",
    [
        lambda a, out: -2 * a.data * out.grad,  # wrong sign
        lambda a, out: np.array([2 * a.data, 2 * a.data]) * out.grad,  # wrong shape, right values
        lambda a, out: math.nan,  # nan
        lambda a, out: 2 * a.data * out.grad + math.nan,  # nan
    ],
    ids=["wrong sign", "wrong shape", "nan", "nan added"],
)
def test_check_finite_differences_fails(local):
    with pytest.raises(AssertionError) as error:
        grading.check_finite_differences(square_with(local), [Node(1.5)], "what", "tried", HINT)
    assert message(error).endswith(HINT)
