"""tinyad.course.grading: every helper fails on a wrong sign, a wrong shape and a nan, and passes a right answer.

A check that cannot fail is a defect, so each helper is given the wrong answers a learner
is likely to write (the gradient with its sign flipped, an answer of the wrong shape, a nan)
and must raise the course's four-part AssertionError for each.
"""

from __future__ import annotations

import math
import re
import sys
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest

from tinyad import Tensor, Value
from tinyad.course import grading

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


@pytest.mark.parametrize("condition", [False, np.False_], ids=["False", "NumPy False"])
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
        (10**400, 2.0),  # beyond any float: it failed inside NumPy's conversion
    ],
    ids=["wrong sign", "one wrong sign", "too short", "extra axis", "nan", "nan inside",
         "nan expected", "None", "text", "huge int"],
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
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (the torch extra)")
    with pytest.raises(AssertionError, match="not a node or a tensor"):
        grading.check_close([torch.tensor(2.0, dtype=torch.float64)], [2.0], "what", "tried", HINT)
    with pytest.raises(AssertionError, match="not a node or a tensor"):  # its class is in torch.nn
        grading.check_close(torch.nn.Parameter(torch.ones(2, dtype=torch.float64)), [1.0, 1.0], "what", "tried",
                            HINT)


def test_check_close_refuses_nodes_inside_an_object_array():
    # A check cell wraps the answer in np.array; Values made it an object array, which the
    # search for nodes skipped, so the message gave the exercise's hint about another bug.
    for got in (np.array([0.5, Value(1.0)]), np.array([[Value(0.5)], [Value(1.0)]], dtype=object)):
        with pytest.raises(AssertionError) as error:
            grading.check_close(got, np.array([0.5, 1.0]).reshape(got.shape), "what", "tried", HINT)
        text = message(error)
        assert "got:      Value(" in text and "not a node or a tensor" in text and HINT not in text


def test_check_close_passes_within_tolerance():
    grading.check_close(2.0 + 1e-12, 2.0, "what", "tried", HINT)
    grading.check_close(np.array([1.0, 2.0]), [1.0, 2.0], "what", "tried", HINT)
    grading.check_close(None, None, "what", "tried", HINT)
    grading.check_close(2.05, 2.0, "what", "tried", HINT, atol=0.1)


def test_check_close_allows_1e_9_plus_1e_7_of_the_expected_value_by_default():
    grading.check_close(1.0 + 1e-7, 1.0, "what", "tried", HINT)
    grading.check_close(5e-10, 0.0, "what", "tried", HINT)
    for got, expected in [(1.0 + 2e-7, 1.0), (2e-9, 0.0)]:
        with pytest.raises(AssertionError):
            grading.check_close(got, expected, "what", "tried", HINT)


def test_check_close_measures_the_relative_tolerance_against_the_expected_value_not_the_answer():
    # 3.6 is within 0.25 + 0.5 * 3.6 of 2.0, but not within 0.25 + 0.5 * 2.0.
    with pytest.raises(AssertionError, match=r"\(off by 1.6, where 1.25 is allowed\)"):
        grading.check_close(3.6, 2.0, "what", "tried", HINT, atol=0.25, rtol=0.5)


def test_check_close_fails_an_answer_where_none_is_expected():
    text = failure_of(lambda: grading.check_close(1.0, None, "w", "t", HINT))
    assert "expected: None\n  got:      1.0\n" in text


def test_check_close_names_an_int_beyond_any_float_by_its_digits():
    text = failure_of(lambda: grading.check_close(10**400, 2.0, "w", "t", HINT))
    assert "got:      an int of 401 digits (of type int)\n" in text


def test_check_close_shows_a_number_to_10_digits_and_an_array_to_6():
    text = failure_of(lambda: grading.check_close(1 / 3, 0.5, "w", "t", HINT))
    assert "expected: 0.5\n  got:      0.3333333333\n" in text
    text = failure_of(lambda: grading.check_close(np.array([1 / 3, 2 / 3]), np.array([0.5, 0.5]), "w", "t", HINT))
    assert "got:      [0.333333 0.666667]\n" in text
    text = failure_of(lambda: grading.check_close(list(np.arange(100) / 3), np.zeros(100), "w", "t", HINT))
    assert "got:      a list of shape (100,): [ 0.        0.333333  0.666667 ... 32.333333 32.666667 33.      ]" in text


def test_check_close_reads_an_object_array_of_numbers_and_refuses_one_holding_text():
    grading.check_close(np.array([1.0, 2], dtype=object), [1.0, 2.0], "w", "t", HINT)
    with pytest.raises(AssertionError):
        grading.check_close(np.array([1.0, "2"], dtype=object), [1.0, 2.0], "w", "t", HINT)


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
        lambda a, b, c, d: [n.label for n in (a, b, c, d)],  # labels, not nodes
    ],
    ids=["reversed", "child first", "missing", "repeated", "nested", "tuple", "stranger", "nan", "labels"],
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


def test_call_without_recursion_fails_a_recursion_that_stays_under_pythons_limit():
    text = failure_of(lambda: grading.call_without_recursion(depth, chain(300), what="w", tried="t"))
    assert re.search(r"got:      an answer, from \d{3} nested calls: a recursion as deep as the graph", text), text


def test_call_without_recursion_counts_the_depth_after_many_calls_made_one_after_another():
    def busy_then_recursive(root):
        for _ in range(1000):  # calls of Python and of C functions that each return before the next
            abs(-1.0)
            (lambda: None)()
        return depth(root)

    text = failure_of(lambda: grading.call_without_recursion(busy_then_recursive, chain(300), what="w", tried="t"))
    assert re.search(r"got:      an answer, from \d{3} nested calls", text), text


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
        # Counted (from 3001 nested calls), or, where Python stops the recursion itself while calls
        # are counted (3.12.0 and 3.12.1 limit the C stack apart), the RecursionError reported.
        with pytest.raises(AssertionError, match=r"from \d{4,} nested calls|got: +RecursionError") as error:
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

    # What the walk asks of a node (tinyad.graph.Node).
    def zero_grad(self):
        self.grad = 0.0

    def has_grad(self):
        return True

    def accumulate(self, grad):
        self.grad += grad

    def release(self):
        pass

    def new_leaf(self, data):
        return type(self)(data)

    def backward(self):
        from tinyad import graph

        for _node in graph.walk(self, 1.0):
            pass


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
        lambda a, out: 2 * a.data * out.grad + 5j,  # complex: passed, with only NumPy's ComplexWarning
    ],
    ids=["wrong sign", "wrong shape", "nan", "nan added", "complex"],
)
def test_check_finite_differences_fails(local):
    with pytest.raises(AssertionError) as error:
        grading.check_finite_differences(square_with(local), [Node(1.5)], "what", "tried", HINT)
    assert message(error).endswith(HINT)


@pytest.mark.parametrize("grad, named", [(None, "NoneType (None)"), ("3", "str ('3')"), (True, "bool (True)")])
def test_check_finite_differences_names_a_gradient_that_is_no_number(grad, named):
    # None was reported as "backward gave nan", "3" and True as "backward gave 3" and "gave 1".
    def rule(out):
        (a,) = out.parents
        a.grad = grad

    text = failure_of(lambda: grading.check_finite_differences(lambda a: Node(a.data * a.data, (a,), rule),
                                                               [Node(1.5)], "what", "tried", HINT))
    assert f"backward gave input 0 a gradient of {named}: a gradient is a real number" in text, text


# -- the helpers lesson 06's checks call: shapes and the learner's errors --


def failure_of(call) -> str:
    """The four-part message of the check that ``call`` fails."""
    with pytest.raises(AssertionError) as error:
        call()
    return message(error)


def test_stretched_axes_names_added_and_stretched_axes():
    assert grading.stretched_axes((3, 1), (2, 3, 4)) == (0, 2)
    assert grading.stretched_axes((3,), (2, 3)) == (0,)
    assert grading.stretched_axes((2, 3), (2, 3)) == ()
    assert grading.stretched_axes((), (2, 3)) == (0, 1)
    with pytest.raises(ValueError, match=r"\(3,\) does not broadcast to shape \(4,\)"):
        grading.stretched_axes((3,), (4,))
    with pytest.raises(ValueError):
        grading.stretched_axes((2, 3), (3,))


def test_check_shape_passes_a_right_shape_from_an_array_a_tensor_or_a_tuple():
    grading.check_shape(np.zeros((3, 1)), (3, 1), "w", "t", "h")
    grading.check_shape(Tensor(np.ones((2, 3))), (2, 3), "w", "t", "h")
    grading.check_shape((5, 4), (5, 4), "w", "t", "h")
    grading.check_shape(np.float64(2.0), (), "w", "t", "h")
    grading.check_shape(np.zeros((3, 1)), [3, 1], "w", "t", "h")  # the expected shape as a list
    grading.check_shape((0, 3), (0, 3), "w", "t", "h")  # an axis of size 0


def test_a_tensor_where_an_array_belongs_is_named_by_its_library():
    # A torch tensor that requires grad was a bare RuntimeError from inside the helpers.
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (the torch extra)")
    square = lambda x: float((x * x).sum())  # noqa: E731
    for got, named in [(torch.ones(3, requires_grad=True), "a torch Tensor"), (Tensor(np.ones(3)), "a tinyad Tensor")]:
        text = failure_of(lambda: grading.check_array_gradient(square, np.ones(3), got, "w", "t", "h"))
        assert f"got:      {named}" in text and ".detach().numpy()" in text, text
    text = failure_of(lambda: grading.check_shape(torch.ones(3, requires_grad=True), (3,), "w", "t", "h"))
    assert "got:      a torch Tensor of shape (3,)" in text and ".detach().numpy()" in text, text


def test_check_shape_names_the_axis_left_unsummed():
    text = failure_of(lambda: grading.check_shape(np.zeros((3, 4)), (3, 1), "w", "t", "h"))
    assert "expected: shape (3, 1)" in text
    assert "got:      shape (3, 4): the stretched axis 1 was not summed" in text
    text = failure_of(lambda: grading.check_shape((2, 5, 4), (1, 4), "w", "t", "h"))
    assert "the added axis 0 was not summed and the stretched axis 1 was not summed" in text


def test_check_shape_names_several_axes_left_unsummed_or_kept():
    text = failure_of(lambda: grading.check_shape(np.zeros((2, 3, 4)), (1, 1), "w", "t", "h"))
    assert text.splitlines()[3] == ("  got:      shape (2, 3, 4): the added axis 0 was not summed and the "
                                    "stretched axes 1, 2 were not summed")
    text = failure_of(lambda: grading.check_shape(np.zeros((1, 1, 4)), (4,), "w", "t", "h"))
    assert "got:      shape (1, 1, 4): the added axes 0, 1 are still there, of size 1 (summed with" in text


def test_check_shape_says_when_a_summed_axis_was_kept_with_size_1():
    # A bias's gradient summed with keepdims=True: before, "the added axis 0 was not summed".
    text = failure_of(lambda: grading.check_shape(np.zeros((1, 4)), (4,), "w", "t", "h"))
    assert "got:      shape (1, 4): the added axis 0 is still there, of size 1 (summed with keepdims=True?" in text


def test_check_shape_says_when_too_much_was_summed():
    assert "size-1 axes were dropped" in failure_of(
        lambda: grading.check_shape(np.zeros(3), (3, 1), "w", "t", "h"))
    assert "axis 0 was summed away" in failure_of(
        lambda: grading.check_shape(np.zeros(4), (3, 4), "w", "t", "h"))
    assert "axes 0 to 1 were summed away" in failure_of(
        lambda: grading.check_shape(np.zeros(4), (2, 3, 4), "w", "t", "h"))
    text = failure_of(lambda: grading.check_shape(np.zeros(5), (3, 4), "w", "t", "h"))  # not summed: wrong
    assert text.splitlines()[3] == "  got:      shape (5,)"


def test_check_shape_fails_a_wrong_shape_none_a_non_shape_and_a_nan():
    text = failure_of(lambda: grading.check_shape(np.zeros((3, 5)), (3, 4), "w", "t", "h"))
    assert text.splitlines()[3].strip() == "got:      shape (3, 5)"
    assert "got:      None\n" in failure_of(lambda: grading.check_shape(None, (3,), "w", "t", "h"))
    failure_of(lambda: grading.check_shape("(3,)", (3,), "w", "t", "h"))
    for not_a_shape in [(3.5,), (3, 4.0), (-1, 4)]:
        assert "which is not a shape" in failure_of(lambda: grading.check_shape(not_a_shape, (3, 4), "w", "t", "h"))
    grad = np.zeros((3, 1))
    grad[1, 0] = np.nan
    assert "1 nan or inf entries" in failure_of(lambda: grading.check_shape(grad, (3, 1), "w", "t", "h"))


def test_call_checked_returns_the_answer_and_reports_an_error():
    assert grading.call_checked(lambda a, b: a @ b, np.eye(2), np.ones(2), what="w", tried="t",
                                hint="h").tolist() == [1.0, 1.0]
    text = failure_of(lambda: grading.call_checked(lambda a, b: a @ b, np.eye(2), np.ones(3),
                                                what="w", tried="t", hint="h"))
    assert "got:      ValueError: matmul" in text
    text = failure_of(lambda: grading.call_checked(lambda: np.zeros(2)[5], what="w", tried="t",
                                                hint="h"))
    assert "got:      IndexError: index 5 is out of bounds" in text


def test_call_checked_and_call_strictly_pass_keywords_on():
    def scaled(x, scale=1.0):
        return np.exp(x) * scale

    assert grading.call_checked(scaled, 0.0, scale=3.0, what="w", tried="t", hint="h") == 3.0
    assert grading.call_strictly(scaled, 0.0, scale=2.0, what="w", tried="t", hint="h") == 2.0


def test_call_checked_lets_a_blank_through():
    def blank():
        raise NotImplementedError()

    with pytest.raises(grading.NotStarted):
        grading.call_checked(blank, what="w", tried="t", hint="h")


# -- the helpers lesson 07's checks call: NumPy's warnings, gradients of NumPy functions --


def naive_logsumexp(x):
    return np.log(np.sum(np.exp(x)))


def stable_logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def test_call_strictly_returns_the_result_of_a_stable_function():
    x = np.array([1000.0, 1001.0])
    assert grading.call_strictly(stable_logsumexp, x, what="w", tried="t", hint="h") == pytest.approx(
        1001.0 + np.log1p(np.exp(-1.0)))


def test_call_strictly_lets_a_tiny_result_round_to_zero():
    assert grading.call_strictly(np.exp, -1e4, what="w", tried="t", hint="h") == 0.0


@pytest.mark.parametrize("fn,arg,reported", [
    (naive_logsumexp, np.array([1000.0, 1001.0]), "overflow encountered in exp"),
    (lambda x: x / np.sum(x), np.zeros(2), "invalid value"),
    (np.log, np.zeros(1), "divide by zero"),
    (lambda x: np.nan * x, np.ones(1), None),  # a nan made without a warning is the caller's check
])
def test_call_strictly_fails_on_what_numpy_warns_about(fn, arg, reported):
    if reported is None:
        assert np.isnan(grading.call_strictly(fn, arg, what="w", tried="t", hint="h")).all()
        return
    with pytest.raises(AssertionError, match=reported) as caught:
        grading.call_strictly(fn, arg, what="the sum", tried="f([1000, 1001])", hint="subtract the max")
    message = str(caught.value)
    for part in ("the sum", "tried:    f([1000, 1001])", "expected: ", "got:      NumPy reported",
                 "hint:     subtract the max"):
        assert part in message


def test_call_strictly_catches_a_warning_numpy_issues_through_the_warnings_module():
    import warnings

    def warns(x):
        warnings.warn("Mean of empty slice", RuntimeWarning)
        return x

    with pytest.raises(AssertionError, match="RuntimeWarning: Mean of empty slice"):
        grading.call_strictly(warns, 1.0, what="w", tried="t", hint="h")


def cube_sum(x):
    return np.sum(x ** 3)


X = np.array([[0.5, -1.0], [2.0, 0.25]])


def test_check_array_gradient_passes_the_right_gradient():
    grading.check_array_gradient(cube_sum, X, 3 * X ** 2, "w", "t", "h")


def test_check_array_gradient_passes_a_steep_functions_gradient():
    # Differences 1e-3 apart would be off by 1.3e-3 here, beyond the 2e-4 allowed.
    grading.check_array_gradient(lambda x: np.sum(np.exp(20 * x)), np.zeros(3), np.full(3, 20.0), "w", "t", "h")


def test_check_array_gradient_allows_a_tolerance_relative_to_the_gradient():
    # At x = 100 the differences are off by about 1e-4 from rounding, within 1e-5 of 30000.
    grading.check_array_gradient(cube_sum, np.full(2, 100.0), np.full(2, 30000.0), "w", "t", "h")
    text = failure_of(lambda: grading.check_array_gradient(lambda x: np.sum(1e-3 * x), np.ones(2), np.full(2, 2e-3),
                                                           "w", "t", "h"))
    assert "expected: 0.001 at index (0,) (finite differences)" in text


def test_check_array_gradient_with_no_tolerance_passes_a_gradient_equal_to_the_differences():
    # atol=0 and rtol=0 leave no room but equality: a flat function's gradient of zeros, exactly.
    grading.check_array_gradient(lambda x: np.sum(0.0 * x), X, np.zeros_like(X), "w", "t", "h", atol=0, rtol=0)


def test_check_array_gradient_given_none_says_to_return_the_gradient():
    text = failure_of(lambda: grading.check_array_gradient(cube_sum, X, None, "w", "t", "3 x^2"))
    assert text.endswith("hint:     return the gradient: an array of real numbers in the input's shape")
    text = failure_of(lambda: grading.check_array_gradient(cube_sum, X, "3 x^2", "w", "t", "3 x^2"))
    assert text.endswith("hint:     3 x^2")


@pytest.mark.parametrize("grad,expected", [
    (-3 * X ** 2, "finite differences"),         # a wrong sign
    (3 * X ** 2 + np.eye(2) * 1e-3, "index (0, 0)"),  # one wrong entry among several
    ((3 * X ** 2).ravel(), "shape (2, 2)"),      # a wrong shape
    (np.where(X > 1, np.nan, 3 * X ** 2), "nan"),  # a nan
    ("not an array", "array of shape"),
])
def test_check_array_gradient_fails_a_wrong_gradient(grad, expected):
    with pytest.raises(AssertionError, match=re.escape(expected)) as caught:
        grading.check_array_gradient(cube_sum, X, grad, "the gradient", "cube_sum(X)", "3 x^2")
    assert "tried:    cube_sum(X)" in str(caught.value) and "hint:" in str(caught.value)


# -- what a learner sees: the message, not the grading code --------------------------------


def test_a_failed_check_is_an_assertion_error_that_shows_as_its_message_alone():
    with pytest.raises(AssertionError) as error:
        grading.fail("the slope", "slope(f, 1.0)", 2.0, 3.0, "use 2 * h")
    assert isinstance(error.value, grading.CheckFailed)
    assert error.value._render_traceback_() == [  # what IPython shows in place of a traceback
        "CheckFailed: the slope", "  tried:    slope(f, 1.0)", "  expected: 2.0", "  got:      3.0",
        "  hint:     use 2 * h"]


def test_a_part_over_several_lines_is_indented_under_its_first():
    with pytest.raises(AssertionError) as error:
        grading.fail("w", "t", "e", "first line  \nsecond line\n\nfourth", "h")
    assert str(error.value).splitlines()[3:] == [
        "  got:      first line", "            second line", "", "            fourth", "  hint:     h"]


def test_an_empty_part_is_left_empty():
    with pytest.raises(AssertionError) as error:
        grading.fail("w", "", "e", "g", "h")
    assert str(error.value).splitlines()[1].rstrip() == "  tried:"


def test_pytest_hides_the_grading_frames():
    with pytest.raises(AssertionError) as error:
        grading.check_close(3.0, 2.0, "what", "tried", HINT)
    every = [Path(entry.path).name for entry in error.traceback]
    shown = [Path(entry.path).name for entry in error.traceback.filter(error)]
    assert "grading.py" in every and shown == ["test_grading.py"], (every, shown)


@pytest.mark.parametrize("call", [
    lambda: grading.check(False, "w", "t", "e", "g", "h"),
    lambda: grading.call_checked(lambda: 1 / 0, what="w", tried="t", hint="h"),
    lambda: grading.call_strictly(np.log, np.zeros(1), what="w", tried="t", hint="h"),
    lambda: grading.check_topo_order([], Value(1.0), "h"),
    lambda: grading.call_without_recursion(lambda: 1 / 0, what="w", tried="t"),
    lambda: grading.check_finite_differences(square_with(lambda a, out: -2 * a.data * out.grad), [Node(1.5)],
                                             "w", "t", "h"),
    lambda: grading.check_shape(None, (3,), "w", "t", "h"),
    lambda: grading.check_array_gradient(cube_sum, X, -X, "w", "t", "h"),
], ids=["check", "call_checked", "call_strictly", "check_topo_order", "call_without_recursion",
        "check_finite_differences", "check_shape", "check_array_gradient"])
def test_pytest_hides_the_frames_of_every_check(call):
    with pytest.raises(AssertionError) as error:
        call()
    shown = [Path(entry.path).name for entry in error.traceback.filter(error)]
    assert "grading.py" not in shown, shown


def blank(*args):
    raise NotImplementedError("Exercise 1 is not started")


@pytest.mark.parametrize("call", [
    lambda: grading.call_checked(blank, what="w", tried="t", hint="h"),
    lambda: grading.call_strictly(blank, what="w", tried="t", hint="h"),
    lambda: grading.check_started(blank),
    lambda: grading.call_without_recursion(blank, what="w", tried="t"),
    lambda: grading.check_finite_differences(blank, [Value(1.0)], "w", "t", "h"),
    lambda: grading.check_array_gradient(blank, X, X, "w", "t", "h"),
], ids=["call_checked", "call_strictly", "check_started", "call_without_recursion", "check_finite_differences",
        "check_array_gradient"])
def test_every_helper_that_runs_the_learners_code_lets_a_blank_through_without_its_own_frames(call):
    with pytest.raises(grading.NotStarted, match="Exercise 1 is not started") as error:
        call()
    shown = [Path(entry.path).name for entry in error.traceback.filter(error)]
    assert "grading.py" not in shown, shown


def test_check_started_says_whether_an_answer_runs():
    assert grading.check_started(lambda x, scale: x * scale, 1.0, scale=2.0) is True
    assert grading.check_started(lambda: 1 / 0) is False  # as an answer that needs a missing package


def test_not_checked_prints_what_goes_unchecked_in_the_words_the_score_table_reads(capsys):
    grading.not_checked("torch_grads, as PyTorch is not installed")
    assert capsys.readouterr().out == "not checked: torch_grads, as PyTorch is not installed\n"


def the_learners_lse(x, axis):
    m = np.max(x, axis=axis)  # keepdims forgotten: x - m does not broadcast along axis 1
    return m + np.log(np.sum(np.exp(x - m), axis=axis))


@pytest.mark.parametrize("helper", [grading.call_checked, grading.call_strictly])
def test_an_error_in_the_learners_code_names_the_input_the_error_and_the_learners_line(helper):
    text = failure_of(lambda: helper(the_learners_lse, np.ones((2, 3)), 1, what="lse",
                                     tried="lse(np.ones((2, 3)), axis=1)", hint="keepdims=True"))
    lines = text.splitlines()
    assert lines[1] == "  tried:    lse(np.ones((2, 3)), axis=1)"
    assert lines[3] == "  got:      ValueError: operands could not be broadcast together with shapes (2,3) (2,)"
    line = the_learners_lse.__code__.co_firstlineno + 2
    assert lines[4] == f"            in your code: {__file__}, line {line}, in the_learners_lse"
    assert lines[5] == "                return m + np.log(np.sum(np.exp(x - m), axis=axis))"
    assert lines[6] == "  hint:     keepdims=True"


def test_the_learners_line_is_the_deepest_of_their_frames_not_the_engines():
    def forward(a, b):
        return (Tensor(a) @ Tensor(b)).sum()  # the engine raises, on the learner's shapes

    text = failure_of(lambda: grading.call_checked(forward, np.ones((2, 3)), np.ones((2, 3)),
                                                   what="w", tried="forward(...)", hint="h"))
    assert "got:      ValueError: " in text
    assert f"in your code: {__file__}, line {forward.__code__.co_firstlineno + 1}, in forward" in text
    assert "return (Tensor(a) @ Tensor(b)).sum()" in text and "tensor" + "/binary.py" not in text


def test_a_write_into_a_read_only_array_in_the_learners_code_says_what_the_array_most_likely_is():
    def rule_in_place(g, mask):
        g[mask] = 0  # out.grad changed in place, where g * ~mask was meant

    g = np.ones(3)
    g.setflags(write=False)  # as the engine keeps a gradient it may have handed to two nodes
    text = failure_of(lambda: grading.call_checked(rule_in_place, g, np.array([True, False, True]),
                                                   what="w", tried="t", hint="h"))
    assert "ValueError: assignment destination is read-only" in text
    assert "such as a rule's out.grad, which may be another node's gradient too: make a new array" in text
    assert f"in your code: {__file__}, line {rule_in_place.__code__.co_firstlineno + 1}, in rule_in_place" in text
    text = failure_of(lambda: grading.call_checked(lambda: np.linalg.inv(np.ones((2, 3))), what="w",
                                                   tried="t", hint="h"))
    assert "out.grad" not in text  # another error of the learner's line says nothing of it


def test_an_error_raised_outside_the_learners_code_is_named_without_a_line():
    text = failure_of(lambda: grading.call_checked(np.linalg.inv, np.ones((2, 3)), what="w",
                                                   tried="inv", hint="h"))
    assert "got:      LinAlgError: " in text and "in your code" not in text
    with pytest.raises(np.linalg.LinAlgError) as error:
        np.linalg.inv(np.ones((2, 3)))
    assert text.splitlines()[3:5] == [f"  got:      LinAlgError: {error.value}", "  hint:     h"]


def test_in_ipython_a_cell_is_named_as_ipython_names_it_and_a_file_by_its_path(monkeypatch):
    # IPython 8 and later name a cell's code "Cell In[4]" and have no name for a file's.
    class Compiler:
        def format_code_name(self, filename):
            return ("Cell", "In[4]") if filename == "<cell 3>" else None

    shell = type("Shell", (), {"compile": Compiler()})()
    monkeypatch.setitem(sys.modules, "IPython", type(sys)("IPython"))
    monkeypatch.setattr(sys.modules["IPython"], "get_ipython", lambda: shell, raising=False)
    namespace = {}
    exec(compile("def halve(x):\n    return x / 0\n", "<cell 3>", "exec"), namespace)
    text = failure_of(lambda: grading.call_checked(namespace["halve"], 1.0, what="w", tried="t", hint="h"))
    assert "in your code: Cell In[4], line 2, in halve" in text

    def halve(x):
        return x / 0  # in a file of the learner's own, which a cell imported

    text = failure_of(lambda: grading.call_checked(halve, 1.0, what="w", tried="t", hint="h"))
    assert f"in your code: {__file__}, line {halve.__code__.co_firstlineno + 1}, in halve" in text


def test_an_error_without_a_message_is_named_by_its_type_alone():
    def fails():
        raise ValueError

    text = failure_of(lambda: grading.call_checked(fails, what="w", tried="t", hint="h"))
    assert text.splitlines()[3] == "  got:      ValueError"


def test_a_frame_in_one_of_pythons_frozen_modules_is_not_the_learners_line():
    import os

    def read_setting():
        return os.environ["TINYAD_NO_SUCH_SETTING"]  # raised in "<frozen os>" from Python 3.11 on

    text = failure_of(lambda: grading.call_checked(read_setting, what="w", tried="t", hint="h"))
    assert f"in your code: {__file__}, line {read_setting.__code__.co_firstlineno + 1}, in read_setting" in text


def test_code_run_by_exec_is_the_learners_though_its_source_is_not_on_disk():
    # As the tests run a cell: its frames' file is "<...>", and linecache has no line to show.
    namespace = {}
    exec(compile("def halve(x):\n    return x / 0\n", "<cell 3>", "exec"), namespace)
    text = failure_of(lambda: grading.call_checked(namespace["halve"], 1.0, what="w", tried="t", hint="h"))
    with pytest.raises(ZeroDivisionError) as pythons:  # its words: "float division by zero" before 3.14
        1.0 / 0
    assert text.splitlines()[3:] == [f"  got:      ZeroDivisionError: {pythons.value}",
                                     "            in your code: <cell 3>, line 2, in halve", "  hint:     h"]


def test_an_error_in_a_learners_rule_or_function_is_reported_by_the_other_helpers():
    def broken_rule(a, out):
        return undefined_name  # noqa: F821 - the learner's typo

    text = failure_of(lambda: grading.check_finite_differences(
        square_with(broken_rule), [Node(1.5)], "w", "t", HINT))
    assert "NameError: name 'undefined_name' is not defined" in text
    assert f"line {broken_rule.__code__.co_firstlineno + 1}, in broken_rule" in text
    text = failure_of(lambda: grading.call_without_recursion(lambda: 1 / 0, what="w", tried="t"))
    assert "got:      ZeroDivisionError: division by zero" in text and "in your code" in text
    text = failure_of(lambda: grading.check_array_gradient(lambda x: x.nope, X, X, "w", "t", HINT))
    assert "AttributeError" in text and "lambda x: x.nope" in text


def test_a_blank_and_a_failed_check_inside_a_checked_call_go_through():
    def blank():
        raise NotImplementedError("Exercise 2 is not started")

    for helper in (grading.call_checked, grading.call_strictly):
        with pytest.raises(NotImplementedError, match="Exercise 2 is not started"):
            helper(blank, what="w", tried="t", hint="h")
        inner = failure_of(lambda: helper(lambda: grading.fail("inner", "t", "e", "g", "h"),
                                          what="outer", tried="t", hint="h"))
        assert inner.startswith("inner\n")


# -- in a real kernel, as a learner's notebook runs --


@pytest.fixture(scope="module")
def notebook_errors() -> dict[str, dict]:
    """A small exercise notebook run on a kernel of this Python: each failing cell's error output
    (ename, evalue, and the traceback lines with colour codes removed), by the cell's first line."""
    from test_exercises import build, nbtools

    v4 = nbformat.v4
    solution = v4.new_notebook(cells=[
        v4.new_code_cell("# set-up\nimport numpy as np\nfrom tinyad import grading"),
        v4.new_markdown_cell("## Exercise 1: a stable log-sum-exp"),
        v4.new_code_cell("def lse(x, axis):\n    ### BEGIN SOLUTION\n    m = np.max(x, axis=axis)\n"
                         "    return m + np.log(np.sum(np.exp(x - m), axis=axis))\n    ### END SOLUTION"),
        v4.new_code_cell("# a learner's error\ngrading.call_strictly(lse, np.ones((2, 3)), 1, what='lse', "
                         "tried='lse(np.ones((2, 3)), axis=1)', hint='keepdims=True')"),
        v4.new_code_cell("# a wrong answer\ngrading.check_close(lse(np.zeros(2), 0), 1.0, 'lse of two zeros',\n"
                         "                    'lse(np.zeros(2), 0)', 'log(2) is not 1')"),
        v4.new_markdown_cell("## Exercise 2: a blank"),
        v4.new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
        v4.new_code_cell("# a blank\ngrading.call_checked(double, 2, what='double', tried='double(2)', hint='2 * x')"),
    ])
    exercise = nbtools.make_exercise(solution, "99_demo.ipynb")
    exercise.cells[2].source = ("def lse(x, axis):\n    m = np.max(x, axis=axis)\n"  # answered;
                                "    return m + np.log(np.sum(np.exp(x - m), axis=axis))")  # 2 is blank
    build.run(exercise, build.ROOT, timeout=60, allow_errors=True)
    errors = {}
    for cell in exercise.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                lines = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(output.traceback)).splitlines()
                errors[cell.source.splitlines()[0]] = dict(output, traceback=lines)
    return errors


def test_in_a_notebook_a_failed_check_shows_its_message_and_no_grading_code(notebook_errors):
    error = notebook_errors["# a wrong answer"]
    assert error["ename"] == "CheckFailed"
    assert error["traceback"] == f"CheckFailed: {error['evalue']}".splitlines()
    assert error["traceback"][-1] == "  hint:     log(2) is not 1"


def test_in_a_notebook_an_error_in_the_learners_code_names_the_input_and_their_line(notebook_errors):
    error = notebook_errors["# a learner's error"]
    assert error["ename"] == "CheckFailed" and "hint:" in error["evalue"]
    lines = error["traceback"]
    # IPython 8 and later name a cell "Cell In[2]"; IPython 7 (which ipykernel 6 allows) by its file.
    import IPython

    place = r"Cell In\[2\]" if IPython.version_info >= (8,) else r"/\S+\.py"
    assert re.fullmatch(rf"            in your code: {place}, line 3, in lse", lines[4]), lines[4]
    assert lines[:4] + lines[5:] == [
        "CheckFailed: lse",
        "  tried:    lse(np.ones((2, 3)), axis=1)",
        "  expected: an answer, with no error",
        "  got:      ValueError: operands could not be broadcast together with shapes (2,3) (2,)",
        "                return m + np.log(np.sum(np.exp(x - m), axis=axis))",
        "  hint:     keepdims=True",
    ]


def test_in_a_notebook_a_blank_names_its_exercise_and_where_to_write(notebook_errors):
    error = notebook_errors["# a blank"]
    assert error["ename"] == "NotStarted"  # a NotImplementedError: the score table's "not started"
    # Shown in the check cell, the message reads without its line: no "this line" (it said so).
    assert error["evalue"] == ("Exercise 2 is not started: in its answer cell, replace the lines "
                               "'# YOUR CODE HERE' and 'raise NotImplementedError(...)' with your code")
    # The message alone: no traceback through the check or the blank.
    assert error["traceback"] == [f"NotStarted: {error['evalue']}"]


def test_a_blank_met_by_a_check_is_shown_as_its_message_alone():
    def blank(x):
        raise NotImplementedError("Exercise 2 is not started: in its answer cell, replace the lines "
                                  "'# YOUR CODE HERE' and 'raise NotImplementedError(...)' with your code")

    with pytest.raises(grading.NotStarted) as caught:
        grading.call_checked(blank, 1.0, what="f", tried="f(1.0)", hint="h")
    assert isinstance(caught.value, NotImplementedError)  # the score table's "not started"
    assert caught.value._render_traceback_() == [
        "NotStarted: Exercise 2 is not started: in its answer cell, replace the lines '# YOUR CODE HERE' and "
        "'raise NotImplementedError(...)' with your code"]


def test_check_topo_order_counts_the_repeated_entries():
    a, b, c, d = diamond()
    text = failure_of(lambda: grading.check_topo_order([a, b, b, c, c, d], d, HINT))
    assert "got:      2 repeated entries" in text


def test_check_topo_order_names_an_entry_that_is_not_a_node():
    a, b, c, d = diamond()
    with pytest.raises(AssertionError, match=r"expected: a list of nodes\n  got:      an entry 'a' \(a str\)"):
        grading.check_topo_order(["a", "b", "c", "d"], d, HINT)


def test_check_close_given_a_tensor_where_an_array_belongs_says_to_return_its_data():
    # Before, the hint for a number: ".data of a Value, .item() of a one-element tensor".
    text = failure_of(lambda: grading.check_close(Tensor([1.0, 2.0]), np.array([1.0, 2.0]), "w", "t", HINT))
    assert "hint:     return an array, not a node or a tensor: the .data of a Tensor" in text
    text = failure_of(lambda: grading.check_close(Value(2.0), 2.0, "w", "t", HINT))
    assert ".item() of a one-element tensor" in text


def test_check_close_says_where_and_by_how_much_when_both_print_alike():
    # A float32 answer, or one off in its last digits, printed the same digits as the expected one,
    # and the learner could not see what was wrong.
    with pytest.raises(AssertionError) as failed:
        grading.check_close(np.float32([1.0000001, 2.0]), np.array([1.0, 2.0]), "what", "tried", "hint",
                            atol=1e-12, rtol=1e-12)
    assert "(off by 1.19e-07 at index (0,), where 2e-12 is allowed; your answer is float32)" in str(failed.value)
    with pytest.raises(AssertionError, match=r"\(off by 1e-11, where 2e-12 is allowed\)"):
        grading.check_close(1.00000000001, 1.0, "what", "tried", "hint", atol=1e-12, rtol=1e-12)
    # Said of float32 only: a float64 array off in its last digits is not told its dtype.
    with pytest.raises(AssertionError, match=r"\(off by 1e-11 at index \(0,\), where 2e-12 is allowed\)\n"):
        grading.check_close(np.array([1.00000000001, 2.0]), np.array([1.0, 2.0]), "what", "tried", "hint",
                            atol=1e-12, rtol=1e-12)


def test_check_close_shows_a_bool_answer_as_itself():
    # It read "an int of 1 digits (of type bool)".
    with pytest.raises(AssertionError, match=r"got:\s+True \(of type bool\)"):
        grading.check_close(True, 1.0, "the slope", "slope(f, 1.0)", "return a number")


def test_check_close_shows_a_long_answer_by_its_ends():
    # A list of a thousand numbers was printed whole, twice over (the expected and the answer).
    text = failure_of(lambda: grading.check_close(list(range(1000)), np.arange(1000.0) + 1, "w", "t", HINT))
    assert "a list of shape (1000,): [  0.   1.   2. ... 997. 998. 999.]" in text
    assert "[   1.    2.    3. ...  998.  999. 1000.]" in text
    assert len(text) < 1000
    short = failure_of(lambda: grading.check_close([1.5, 2], [1.0, 2.0], "w", "t", HINT))
    assert "got:      [1.5, 2]\n" in short  # a short list as the learner wrote it, whole
    many = [1 / 3] * 40  # few enough entries to be shown as written, too many characters
    text = failure_of(lambda: grading.check_close(many, [0.0] * 40, "w", "t", HINT))
    assert f"got:      {repr(many)[:300]} ... ({len(repr(many))} characters)\n" in text


def test_an_expected_inf_is_named_without_a_warning_or_an_infinite_tolerance():
    # check_close(-inf, inf) warned "invalid value encountered" and said "where inf is allowed".
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = failure_of(lambda: grading.check_close(-math.inf, math.inf, "w", "t", "h"))
        assert "(-inf, where only inf is right)" in text, text
        text = failure_of(lambda: grading.check_close([1.0, 3.0], [1.0, math.inf], "w", "t", "h"))
        assert "(3 at index (1,), where only inf is right)" in text, text


@pytest.mark.parametrize("expected", ["1.0", [1.0, "2"], True, 1 + 0j])
def test_check_close_refuses_an_expected_value_that_is_no_number(expected):
    # A check cell's own slip: expected "1.0" was read as 1.0, and passed an answer of 1.0.
    with pytest.raises(TypeError, match="check_close's expected must be a number or an array of numbers"):
        grading.check_close(1.0, expected, "w", "t", "h")


def test_the_display_limits_hold_at_their_numbers():
    # Each limit is a number a message promises; a limit moved by one went unseen.
    def shown(x):
        return failure_of(lambda: grading.check_close(x, [9.0] * len(x), "w", "t", HINT)).split("got:")[1]

    entries = grading.SHOWN_ENTRIES
    assert entries == 50
    assert shown([0.5] * entries).strip().startswith("[0.5, 0.5,")  # a list as written, whole
    assert "..." not in shown(np.ones(entries))
    assert f"a list of shape ({entries + 1},): " in shown([1.0] * (entries + 1))
    assert "..." in shown(np.ones(entries + 1))
    for length, cut in ((300, False), (301, True)):  # a repr of exactly 300 characters is shown whole
        text = "x" * (length - 2)  # repr adds the two quotes
        message = failure_of(lambda: grading.check(False, "w", "t", "e", grading._show(text), HINT))
        assert (f"... ({length} characters)" in message) is cut, (length, message)

    def nested(levels):  # a chain of `levels` Python calls, the first of them the answer itself
        return 0 if levels == 1 else nested(levels - 1)

    assert grading.DEEPEST_CALLS == 200
    assert grading.call_without_recursion(nested, 200, what="w", tried="t") == 0
    with pytest.raises(AssertionError, match="from 201 nested calls"):
        grading.call_without_recursion(nested, 201, what="w", tried="t")
