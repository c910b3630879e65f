"""The grading helpers that lesson 06's exercise checks call: each passes a right answer and
fails a wrong one, a wrong shape and a nan, with the four-part message."""

from __future__ import annotations

import numpy as np
import pytest

from tinyad import Tensor, grading


def message(call) -> str:
    with pytest.raises(AssertionError) as error:
        call()
    text = str(error.value)
    for part in ("tried:", "expected:", "got:", "hint:"):
        assert part in text
    return text


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


def test_check_shape_names_the_axis_left_unsummed():
    text = message(lambda: grading.check_shape(np.zeros((3, 4)), (3, 1), "w", "t", "h"))
    assert "expected: shape (3, 1)" in text
    assert "got:      shape (3, 4): the stretched axis 1 was not summed" in text
    text = message(lambda: grading.check_shape((2, 5, 4), (1, 4), "w", "t", "h"))
    assert "the added axis 0 was not summed and the stretched axis 1 was not summed" in text


def test_check_shape_says_when_too_much_was_summed():
    assert "size-1 axes were dropped" in message(
        lambda: grading.check_shape(np.zeros(3), (3, 1), "w", "t", "h"))
    assert "axis 0 was summed away" in message(
        lambda: grading.check_shape(np.zeros(4), (3, 4), "w", "t", "h"))


def test_check_shape_fails_a_wrong_shape_none_a_non_shape_and_a_nan():
    text = message(lambda: grading.check_shape(np.zeros((3, 5)), (3, 4), "w", "t", "h"))
    assert text.splitlines()[3].strip() == "got:      shape (3, 5)"
    message(lambda: grading.check_shape(None, (3,), "w", "t", "h"))
    message(lambda: grading.check_shape("(3,)", (3,), "w", "t", "h"))
    message(lambda: grading.check_shape((3.5,), (3,), "w", "t", "h"))
    grad = np.zeros((3, 1))
    grad[1, 0] = np.nan
    assert "1 nan or inf entries" in message(lambda: grading.check_shape(grad, (3, 1), "w", "t", "h"))


def test_call_checked_returns_the_answer_and_reports_an_error():
    assert grading.call_checked(lambda a, b: a @ b, np.eye(2), np.ones(2), what="w", tried="t",
                                hint="h").tolist() == [1.0, 1.0]
    text = message(lambda: grading.call_checked(lambda a, b: a @ b, np.eye(2), np.ones(3),
                                                what="w", tried="t", hint="h"))
    assert "got:      ValueError: matmul" in text
    text = message(lambda: grading.call_checked(lambda: np.zeros(2)[5], what="w", tried="t",
                                                hint="h"))
    assert "got:      IndexError: index 5 is out of bounds" in text


def test_call_checked_lets_a_blank_through():
    def blank():
        raise NotImplementedError()

    with pytest.raises(NotImplementedError):
        grading.call_checked(blank, what="w", tried="t", hint="h")
