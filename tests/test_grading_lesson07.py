"""The grading helpers that lesson 07's exercise checks call: each passes a right answer and
fails a wrong one, a wrong shape and a nan, with the course's four-part message."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tinyad import grading


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
