"""The functional ops: stable on extreme inputs, exact where it matters, and their bad input.

Each op's gradient on ordinary inputs, in float64 and float32, against finite differences and
PyTorch, is a row of tests/op_families.py.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from tinyad import Tensor
from tinyad.tensor import functional as F

from torch_reference import needs_torch, torch  # tests/torch_reference.py

EXTREME_ROWS = [[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 0.0], [1e10, 0.0, -1e10], [0.0, 0.0, 0.0]]


def _torch_grads(torch_fn, arrays, upstream):
    refs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out = torch_fn(*refs)
    out.backward(torch.tensor(upstream, dtype=torch.float64))
    return out.detach().numpy(), [r.grad.numpy() for r in refs]


def _check(fn, torch_fn, arrays, dtype=np.float64, rtol=1e-7, atol=1e-12, seed=0):
    tensors = [Tensor(a, requires_grad=True, dtype=dtype) for a in arrays]
    # No overflow, division by zero or invalid value; a tiny result rounding to 0 is correct.
    with np.errstate(all="raise", under="ignore"):
        out = fn(*tensors)
        upstream = np.random.default_rng(seed).normal(size=out.shape)
        out.backward(upstream)
    expected, grads = _torch_grads(torch_fn, arrays, upstream)
    assert out.dtype == np.dtype(dtype)
    assert np.all(np.isfinite(out.data))
    np.testing.assert_allclose(out.data, expected, rtol=rtol, atol=atol)
    for t, g in zip(tensors, grads):
        assert t.grad.dtype == np.dtype(dtype) and t.grad.shape == t.shape
        np.testing.assert_allclose(t.grad, g, rtol=rtol, atol=atol)


# tinyad's function, and the name of PyTorch's (looked up only where torch is installed).
SOFTMAX_FAMILY = {
    "softmax": (F.softmax, "softmax"),
    "log_softmax": (F.log_softmax, "log_softmax"),
    "logsumexp": (F.logsumexp, "logsumexp"),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(SOFTMAX_FAMILY))
@pytest.mark.parametrize("row", EXTREME_ROWS, ids=["1000..1002", "-1000,0", "1e10", "zeros"])
def test_softmax_family_is_stable_on_extreme_inputs(name, row):
    fn, torch_name = SOFTMAX_FAMILY[name]
    torch_fn = getattr(torch, torch_name)
    _check(lambda x: fn(x, axis=-1), lambda x: torch_fn(x, dim=-1), [np.array([row, row[::-1]])])


def test_softmax_of_1000_1001_is_exact():
    y = F.softmax(Tensor([1000.0, 1001.0]))
    np.testing.assert_allclose(y.data, [1 / (1 + np.e), np.e / (1 + np.e)], rtol=1e-15)


@needs_torch
@pytest.mark.parametrize("name", sorted(SOFTMAX_FAMILY))
def test_softmax_family_float32_stays_float32_and_stable(name):
    fn, torch_name = SOFTMAX_FAMILY[name]
    torch_fn = getattr(torch, torch_name)
    array = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 50.0]], dtype=np.float32)
    _check(lambda x: fn(x), lambda x: torch_fn(x, dim=-1), [array], dtype=np.float32,
           rtol=1e-5, atol=1e-5)


@needs_torch
@pytest.mark.parametrize("scale", [1000.0, 1e10])
def test_cross_entropy_like_torch(scale):
    rng = np.random.default_rng(4)
    logits = rng.normal(size=(6, 5)) * scale
    labels = np.array([0, 4, 2, 2, 1, 3])
    _check(lambda x: F.cross_entropy(x, labels),
           lambda x: torch.nn.functional.cross_entropy(x, torch.tensor(labels)), [logits],
           rtol=1e-7, atol=1e-12)


@needs_torch
def test_cross_entropy_float32_and_list_labels():
    logits = np.random.default_rng(5).normal(size=(4, 3)).astype(np.float32) * 100
    _check(lambda x: F.cross_entropy(x, [2, 0, 1, 1]),
           lambda x: torch.nn.functional.cross_entropy(x, torch.tensor([2, 0, 1, 1])), [logits],
           dtype=np.float32, rtol=1e-5, atol=1e-5)


# -- bad input ------------------------------------------------------------------


def test_cross_entropy_bad_labels_name_the_label_and_the_classes():
    logits = Tensor(np.zeros((3, 5)))
    with pytest.raises(ValueError, match=r"label 7.*5 classes"):
        F.cross_entropy(logits, [0, 7, 1])
    with pytest.raises(ValueError, match=r"label -1.*5 classes"):
        F.cross_entropy(logits, [0, -1, 1])
    with pytest.raises(TypeError, match=r"integer class labels.*float64"):
        F.cross_entropy(logits, [0.0, 1.0, 2.0])
    with pytest.raises(TypeError, match=r"integer class labels.*fractions"):
        F.cross_entropy(logits, Tensor([0.5, 1.0, 2.0]))
    assert F.cross_entropy(logits, Tensor([0, 1, 2])).item() == pytest.approx(np.log(5))
    with pytest.raises(ValueError, match=r"\(3, 5\).*\(3,\).*\(2,\)"):
        F.cross_entropy(logits, [0, 1])
    with pytest.raises(ValueError, match=r"\(batch, classes\).*\(5,\)"):
        F.cross_entropy(Tensor(np.zeros(5)), [1])


def test_mse_needs_matching_shapes_and_entries():
    with pytest.raises(ValueError, match=r"mse needs pred and target of the same shape.*\(3, 1\).*\(3,\)"):
        F.mse(Tensor(np.zeros((3, 1))), np.zeros(3))
    with pytest.raises(ValueError, match=r"mse of empty tensors \(shape \(0, 2\)\)"):
        F.mse(Tensor(np.zeros((0, 2))), np.zeros((0, 2)))


@pytest.mark.parametrize("x_shape, w_shape, pytorch_layout", [
    ((4, 3), (2, 5), False),
    ((4, 3), (3,), False),  # a weight of one axis, though its length fits
    ((4, 3), (5,), False),
    ((), (3, 2), False),
    ((4, 3), (2, 3), True),  # (nout, nin): the weight as PyTorch's nn.Linear keeps it
    ((2, 4, 3), (5, 3), True),
])
def test_linear_names_both_shapes(x_shape, w_shape, pytorch_layout):
    with pytest.raises(ValueError) as caught:
        F.linear(Tensor(np.zeros(x_shape)), Tensor(np.zeros(w_shape)))
    said = str(caught.value)
    assert said.startswith(f"linear cannot multiply shapes {x_shape} and {w_shape}: it needs x of shape (..., ")
    assert ("as PyTorch's nn.Linear keeps it, pass weight.T" in said) == pytorch_layout, said


@needs_torch
def test_sigmoid_is_stable_on_extreme_inputs():
    row = np.array([1e10, -1e10, 0.0, 1000.0, -1000.0, 30.0, -30.0])
    _check(lambda x: x.sigmoid(), torch.sigmoid, [row])
    _check(lambda x: x.sigmoid(), torch.sigmoid, [row], dtype=np.float32, rtol=1e-6, atol=1e-7)


def test_softmax_family_needs_one_int_axis():
    x = Tensor(np.zeros((2, 3)))
    for fn in (F.softmax, F.log_softmax, F.logsumexp):
        for bad in ((0, 1), None, 1.0):
            with pytest.raises(TypeError, match=r"one axis, an int; got axis="):
                fn(x, axis=bad)
        with pytest.raises(ValueError, match=r"need a tensor with at least one axis, got shape \(\)"):
            fn(Tensor(1.0))


def test_array_arguments_take_the_dtype_of_float32_parameters():
    from tinyad.tensor import nn

    pred = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    loss = F.mse(pred, np.zeros(3))  # a float64 array target
    loss.backward()
    assert loss.dtype == np.float32 and pred.grad.dtype == np.float32
    model = nn.MLP(5, [4, 2], seed=0, dtype=np.float32)
    assert model(np.ones((3, 5))).dtype == np.float32  # a float64 array input
    w = Tensor(np.ones((3, 2), dtype=np.float32))
    b = Tensor(np.zeros(2, dtype=np.float32))
    h = np.zeros((4, 2))
    wh = Tensor(np.ones((2, 2), dtype=np.float32))
    assert F.rnn_step(np.ones((4, 3)), h, w, wh, b).dtype == np.float32


def test_a_float64_tensor_too_large_for_float32_parameters_is_named_as_such():
    # Cast to the parameters' float32 first, then checked, it read "1 entries are nan or inf":
    # the learner's data held 1e39, a finite number, as an array or a list gets told.
    w = Tensor(np.zeros((2, 2), dtype=np.float32), requires_grad=True)
    pred = Tensor(np.zeros(2, dtype=np.float32), requires_grad=True)
    for use in (lambda big: F.linear(big, w), lambda big: F.mse(pred, big[0])):
        for big in (Tensor([[1e39, 0.0]]), np.array([[1e39, 0.0]])):
            with pytest.raises(ValueError, match=r"1 entries are too large for float32 \(beyond about 3.4e\+38\)"):
                use(big)


def _reference_softmax(row: np.ndarray) -> np.ndarray:
    """Softmax of a row whose spread is small enough for the naive formula after the shift."""
    shifted = np.exp(row - row.max())
    return shifted / shifted.sum()


@pytest.mark.parametrize("row", EXTREME_ROWS + [[-1e300, 0.0, 5.0]],
                         ids=["1000..1002", "-1000,0", "1e10", "zeros", "-1e300"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_softmax_family_is_stable_without_a_reference_library(row, dtype):
    # Forward and backward under errstate(all="raise"): any overflow,
    # 0/0 or inf - inf inside the engine raises FloatingPointError.
    if dtype == np.float32 and abs(row[0]) > 1e30:
        row = [-1e30, 0.0, 5.0]  # within float32's range
    data = np.array(row, dtype=dtype)
    p = _reference_softmax(data.astype(np.float64))
    upstream = np.array([0.3, -1.2, 2.0])
    with np.errstate(under="ignore"):  # the reference's own tiny terms may underflow
        log_p = np.log(np.maximum(p, 1e-300))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-300)
    with np.errstate(all="raise", under="ignore"):
        x = Tensor(data, requires_grad=True)
        y = F.softmax(x)
        y.backward(upstream)
        assert y.dtype == np.dtype(dtype) and x.grad.dtype == np.dtype(dtype)
        np.testing.assert_allclose(y.data, p, **tol)
        np.testing.assert_allclose(x.grad, p * (upstream - (upstream * p).sum()), **tol)
        x.grad = None
        lse = F.logsumexp(x)
        lse.backward()
        assert np.isfinite(lse.item()) and lse.item() >= data.max()
        np.testing.assert_allclose(x.grad, p, **tol)
        x.grad = None
        ls = F.log_softmax(x)
        ls.backward(upstream)
        assert np.all(np.isfinite(ls.data)) and np.all(ls.data <= 0)
        keep = p > 1e-200  # where log p is representable, it must match
        np.testing.assert_allclose(ls.data[keep], log_p[keep], **tol)
        np.testing.assert_allclose(x.grad, upstream - p * upstream.sum(), **tol)
        x.grad = None
        logits = Tensor(np.stack([data, data[::-1]]), requires_grad=True)
        loss = F.cross_entropy(logits, [2, 0])
        loss.backward()
        assert np.isfinite(loss.item())
        assert logits.grad.dtype == np.dtype(dtype)
        np.testing.assert_allclose(logits.grad.sum(axis=1), 0.0, atol=1e-6)


@pytest.mark.parametrize("dtype,offset", [(np.float32, 1e6), (np.float64, 1e10)])
def test_logsumexp_gradient_keeps_full_precision_far_from_zero(dtype, offset):
    # The gradient is softmax(x), which depends only on the differences [0, 1, -3].
    # Computing it as exp(x - logsumexp(x)) would round logsumexp to the spacing of
    # floats near the offset (0.06 in float32 at 1e6) and the gradient with it.
    x = Tensor(np.array([offset, offset + 1, offset - 3], dtype=dtype), requires_grad=True)
    F.logsumexp(x).backward()
    expected = _reference_softmax(np.array([0.0, 1.0, -3.0]))
    rtol = 10 * np.finfo(dtype).eps
    np.testing.assert_allclose(x.grad, expected, rtol=rtol)


# -- log_sigmoid and binary cross-entropy on logits --------------------------------

SIGMOID_ROW = np.array([-1e4, -800.0, -50.0, -1.0, 0.0, 0.5, 30.0, 1e4])
BCE_TARGETS = np.array([0.0, 1.0, 1.0, 0.3, 1.0, 0.0, 0.0, 1.0])


@needs_torch
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_log_sigmoid_like_torch_on_extreme_inputs(dtype):
    tol = dict(rtol=1e-6, atol=1e-7) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-300)
    _check(F.log_sigmoid, torch.nn.functional.logsigmoid, [SIGMOID_ROW], dtype=dtype, **tol)


@needs_torch
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binary_cross_entropy_with_logits_like_torch(dtype):
    tol = dict(rtol=1e-6, atol=1e-7) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-300)
    # Gradients for both the logits and the targets, as PyTorch gives them.
    _check(F.binary_cross_entropy_with_logits,
           torch.nn.functional.binary_cross_entropy_with_logits,
           [SIGMOID_ROW, BCE_TARGETS], dtype=dtype, **tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_log_sigmoid_and_bce_need_no_reference_library_and_raise_no_warning(dtype):
    # log(sigmoid(x)) = -log(1 + exp(-x)); its slope is sigmoid(-x).
    data = np.array([-1e4, -50.0, -1.0, 0.0, 2.0, 50.0, 1e4], dtype=dtype)
    with np.errstate(over="ignore"):  # the reference's own exp(1e4) is inf, and so is its log
        expected = -np.logaddexp(0.0, -data.astype(np.float64))
        slope = 1 / (1 + np.exp(data.astype(np.float64)))
    tol = dict(rtol=1e-6, atol=1e-30) if dtype == np.float32 else dict(rtol=1e-14, atol=1e-300)
    with np.errstate(all="raise", under="ignore"):
        x = Tensor(data, requires_grad=True)
        y = F.log_sigmoid(x)
        y.backward(np.ones_like(data))
        assert y.dtype == np.dtype(dtype) and x.grad.dtype == np.dtype(dtype)
        np.testing.assert_allclose(y.data, expected, **tol)
        np.testing.assert_allclose(x.grad, slope, **tol)
        x.grad = None
        t = np.array([0.0, 1.0, 0.5, 1.0, 0.0, 1.0, 0.0])
        loss = F.binary_cross_entropy_with_logits(x, t)
        loss.backward()
        assert loss.dtype == np.dtype(dtype) and x.grad.dtype == np.dtype(dtype)
        # -t log(s) - (1 - t) log(1 - s), with log(s) = log_sigmoid(x), log(1 - s) = log_sigmoid(-x)
        reference = -(t * expected + (1 - t) * (-np.logaddexp(0.0, data.astype(np.float64))))
        np.testing.assert_allclose(loss.item(), reference.mean(), rtol=1e-6 if dtype == np.float32 else 1e-14)
        np.testing.assert_allclose(x.grad, (1 - slope - t) / len(t), **tol)
    assert y.data[0] == -1e4 and loss.item() > 1e4 / 7 - 1  # x = -1e4 with target 0 costs 1e4


def test_log_sigmoid_of_minus_50_in_float32_is_minus_50():
    # sigmoid(-50) is 1.9e-22 and log(sigmoid(-50.)) works too, but a few hundred further down
    # sigmoid rounds to 0 and its log is -inf: log_sigmoid never takes that log.
    y = F.log_sigmoid(Tensor([-50.0], dtype=np.float32))
    assert y.dtype == np.float32 and y.item() == pytest.approx(-50.0, rel=1e-7)
    assert F.log_sigmoid(Tensor([-800.0], dtype=np.float64)).item() == pytest.approx(-800.0)
    assert F.log_sigmoid(Tensor([-1e4], dtype=np.float32)).item() == -1e4


def test_binary_cross_entropy_with_logits_refuses_bad_input():
    x = Tensor(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"same shape.*\(2, 3\).*\(3,\)"):
        F.binary_cross_entropy_with_logits(x, np.zeros(3))
    with pytest.raises(ValueError, match=r"in \[0, 1\].*2 entries are outside, the first is 1\.5"):
        F.binary_cross_entropy_with_logits(x, [[0.0, 1.5, 0.0], [-0.5, 0.0, 1.0]])
    with pytest.raises(ValueError, match=r"empty.*\(0, 3\)"):
        F.binary_cross_entropy_with_logits(Tensor(np.zeros((0, 3))), np.zeros((0, 3)))
    with pytest.raises(ValueError, match=r"finite"):  # a nan target never gets in
        F.binary_cross_entropy_with_logits(x, [[0.0, np.nan, 0.0], [0.0, 0.0, 1.0]])
    assert F.binary_cross_entropy_with_logits(x, np.full((2, 3), 0.5)).item() == pytest.approx(np.log(2))


def test_nothing_representable_is_flushed_to_zero():
    p = F.softmax(Tensor([0.0, -400.0]))
    assert p.data[1] == pytest.approx(np.exp(-400.0), rel=1e-12)  # about 1.9e-174, not 0
    s = Tensor([-50.0], dtype=np.float32).sigmoid()
    assert s.data[0] == pytest.approx(np.exp(-50.0), rel=1e-5)  # about 1.9e-22, not 0


@pytest.mark.parametrize("shapes", [
    dict(b=(2, 4)),  # broadcast in forward, then a gradient of shape (4,) for a bias of (2, 4)
    dict(h=(1, 4)),  # the same for a state of batch 1
    dict(w_h=(4, 5)),
    dict(b=(3,)),
    dict(h=(2, 5)),
    dict(x=(3,)),
    dict(w_h=(4,)),
])
def test_rnn_step_names_every_shape_that_does_not_fit(shapes):
    given = dict(x=(2, 3), h=(2, 4), w_x=(3, 4), w_h=(4, 4), b=(4,)) | shapes
    args = [Tensor(np.ones(given[k]), requires_grad=True) for k in ("x", "h", "w_x", "w_h", "b")]
    shown = ", ".join(f"{k} {re.escape(str(given[k]))}" for k in ("x", "h", "w_x", "w_h"))
    with pytest.raises(ValueError, match=rf"rnn_step needs x \(batch, nin\).*got {shown} "
                                         rf"and b {re.escape(str(given['b']))}"):
        F.rnn_step(*args)


def test_cross_entropy_with_its_arguments_swapped_says_so():
    # Before: "needs integer class labels, got a Tensor of fractions", for labels that were integers.
    logits = Tensor(np.random.default_rng(0).normal(size=(4, 3)), requires_grad=True)
    with pytest.raises(TypeError, match=r"takes the logits first: it got labels of shape \(4, 3\) that require "
                                        r"grad and logits of shape \(4,\); are the two swapped"):
        F.cross_entropy(np.array([0, 1, 2, 1]), logits)
    with pytest.raises(TypeError, match="are the two swapped"):
        F.cross_entropy(np.array([0, 1, 2, 1]), Tensor(np.ones((4, 3))))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_loss_whose_terms_are_finite_has_a_finite_mean(dtype):
    # The mean was the sum over the count: two terms near the float type's limit summed to inf.
    big = float(np.finfo(dtype).max) * 0.6
    with np.errstate(all="raise", under="ignore"):
        logits = Tensor(np.array([[-big, 0.0], [-big, 0.0]], dtype=dtype))
        assert F.cross_entropy(logits, [0, 0]).item() == pytest.approx(big, rel=1e-6)
        # -log(sigmoid(-big)) is about big for a target of 1
        assert F.binary_cross_entropy_with_logits(Tensor(np.full(2, -big, dtype)), [1.0, 1.0]).item() \
            == pytest.approx(big, rel=1e-6)
    root = np.sqrt(big)  # each squared error is big
    assert F.mse(Tensor(np.full(2, root, dtype)), np.zeros(2, dtype)).item() == pytest.approx(big, rel=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cross_entropy_of_logits_whose_spread_is_beyond_the_float_type_is_finite(dtype):
    # x - max(x) overflows to -inf at the far entry: its probability is 0, its loss term is not
    # used. Picked from x - max(x) rather than from x, the loss was 0 * -inf = nan.
    big = float(np.finfo(dtype).max) * 0.9
    logits = Tensor(np.array([[big, -big], [-big, big]], dtype=dtype), requires_grad=True)
    with np.errstate(over="ignore"):
        loss = F.cross_entropy(logits, [0, 1])
        loss.backward()
    assert loss.item() == 0.0 and logits.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("labels, error, words", [
    ([[0], [1, 2]], ValueError, "one integer label per row, got a ragged list"),
    (None, TypeError, r"integer class labels \(a list or an array of ints\), got NoneType"),
    ((k for k in range(2)), TypeError, "got generator"),
    # 1e30 as an int64 was -9223372036854775808, and named as such
    (Tensor([0.0, 1e30]), ValueError, r"got label 1e\+30, but there are 3 classes"),
    (Tensor([0.0, -3.0]), ValueError, "got label -3, but there are 3 classes"),
    ([0, 5], ValueError, "got label 5, but there are 3 classes"),
])
def test_cross_entropy_names_labels_that_are_not_classes(labels, error, words):
    with pytest.raises(error, match=words):
        F.cross_entropy(Tensor(np.zeros((2, 3)), requires_grad=True), labels)
    with pytest.raises(ValueError, match=r"with at least one class, got shape \(2, 0\)"):
        F.cross_entropy(Tensor(np.zeros((2, 0))), [0, 0])  # was "labels must be in 0..-1"


def test_mse_of_a_mean_within_range_is_finite():
    # The square was taken before the division: (2e154)**2 overflows, though the mean, 1e308,
    # is a float.
    pred = Tensor([2e154, 0.0, 0.0, 0.0], requires_grad=True)
    with np.errstate(all="raise", under="ignore"):
        loss = F.mse(pred, np.zeros(4))
        loss.backward()
    assert loss.item() == pytest.approx(1e308, rel=1e-12)
    np.testing.assert_allclose(pred.grad, [1e154, 0.0, 0.0, 0.0], rtol=1e-12)


def test_linear_refuses_a_bias_of_another_length():
    # Broadcast in forward, it failed in backward with the engine's words about accumulate.
    x, w = Tensor(np.ones((2, 3))), Tensor(np.ones((3, 4)), requires_grad=True)
    with pytest.raises(ValueError, match=r"linear needs a bias of shape \(4,\), got \(1,\)"):
        F.linear(x, w, Tensor([0.5], requires_grad=True))


@pytest.mark.parametrize("probabilities", ["softmax", "sigmoid"])
def test_a_loss_given_probabilities_for_logits_warns_with_the_floor_it_cannot_pass(probabilities):
    # A model ending in softmax fed to cross_entropy, which applies softmax again: the loss is
    # defined, so a warning, not an error, at the learner's line, with the floor it stays above.
    x = Tensor(np.eye(10) * 100.0 - 50.0, requires_grad=True)  # squashed to one-hot rows, either way
    squashed = F.softmax(x) if probabilities == "softmax" else x.sigmoid()
    with pytest.warns(UserWarning, match=rf"cross_entropy got the output of {probabilities} .* cannot fall "
                                         r"below 1\.46 \(with 10 classes\)") as caught:
        loss = F.cross_entropy(squashed, list(range(10)))
    assert caught[0].filename == __file__
    # The floor is the loss of exact one-hot probabilities: log(e + 9) - 1 for 10 classes.
    assert loss.item() == pytest.approx(np.log(np.e + 9) - 1, rel=1e-9)
    x4 = Tensor((np.eye(10) * 100.0 - 50.0)[:4], requires_grad=True)
    with pytest.warns(UserWarning, match=r"below 1\.46 \(with 10 classes\)"):  # the classes, not the batch's 4
        F.cross_entropy(F.softmax(x4) if probabilities == "softmax" else x4.sigmoid(), [0, 1, 2, 3])
    with pytest.warns(UserWarning, match=r"binary_cross_entropy_with_logits got the output of sigmoid .* "
                                         r"below 0\.313 "):
        loss = F.binary_cross_entropy_with_logits(Tensor([[50.0, 50.0]], requires_grad=True).sigmoid(), [[1.0, 1.0]])
    # Its floor: a probability of exactly 1 at target 1, squashed again, is log(1 + 1/e) away.
    assert loss.item() == pytest.approx(np.log1p(np.exp(-1.0)), rel=1e-9)


def test_a_loss_given_logits_or_log_probabilities_does_not_warn():
    x = Tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.cross_entropy(x, [0, 2])
        F.cross_entropy(F.log_softmax(x), [0, 2])  # the same loss: log_softmax of log_softmax is itself
        F.cross_entropy(x.tanh(), [0, 2])
        F.binary_cross_entropy_with_logits(x, np.ones((2, 3)) * 0.5)


@pytest.mark.parametrize("labels, error, words", [
    # Before, each said only "got dtype float64" or "got shape (4, 3)".
    (np.eye(3)[[0, 1, 2, 0]], TypeError, r"got float64 labels of shape \(4, 3\): one-hot rows\? cross_entropy "
                                         r"takes each row's class, labels\.argmax\(axis=1\)$"),
    (np.eye(3, dtype=int)[[0, 1, 2, 0]], ValueError, r"got shape \(4, 3\): one-hot rows\? .*labels\.argmax\(axis=1\)$"),
    (Tensor(np.eye(3)[[0, 1, 2, 0]]), ValueError, r"got shape \(4, 3\): one-hot rows\? "
                                                  r".*labels\.data\.argmax\(axis=1\)$"),
    (np.array([[0], [1], [2], [0]]), ValueError, r"got shape \(4, 1\): a column of labels\? cross_entropy takes a "
                                                 r"flat array, labels\.reshape\(-1\)$"),
    (np.array([[0.0], [1.0], [2.0], [0.0]]), TypeError, r"got float64 labels of shape \(4, 1\): a column of "
                                                        r"labels\? .*labels\.reshape\(-1\)\.astype\(int\)$"),
    (np.array([0.0, 1.0, 2.0, 0.0]), TypeError, r"got float64 labels of shape \(4,\): whole numbers stored as "
                                                r"floats\? make them ints, labels\.astype\(int\)$"),
    # Nothing they look like: no guess.
    (np.array([0.5, 1.0, 2.0, 0.0]), TypeError, r"got float64 labels of shape \(4,\)$"),
    (np.array([0, 1, 2]), ValueError, r"need labels of shape \(4,\), got shape \(3,\)$"),
])
def test_cross_entropy_says_what_refused_labels_look_like(labels, error, words):
    logits = Tensor(np.zeros((4, 3)), requires_grad=True)
    with pytest.raises(error, match=words):
        F.cross_entropy(logits, labels)


def test_the_softmax_family_and_the_losses_take_a_list_or_an_array_as_a_constant():
    # Numbers that need no gradient, computed on as a constant Tensor.
    rows = [[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]]

    def mse_to_ones(x):
        return F.mse(x, np.ones((2, 3)))

    for function in (F.softmax, F.log_softmax, F.logsumexp, F.log_sigmoid, mse_to_ones):
        expected = function(Tensor(rows))
        for given in (rows, np.array(rows)):
            got = function(given)
            assert isinstance(got, Tensor) and not got.requires_grad, function.__name__
            np.testing.assert_array_equal(got.data, expected.data)


def test_an_empty_batch_and_two_shapes_are_named_in_full():
    with pytest.raises(ValueError, match=r"^cross_entropy got an empty batch: logits of shape \(0, classes\)$"):
        F.cross_entropy(Tensor(np.zeros((0, 3)), requires_grad=True), [])
    with pytest.raises(ValueError, match=r"^mse needs pred and target of the same shape, got \(2,\) and \(3,\)$"):
        F.mse(Tensor([1.0, 2.0], requires_grad=True), [1.0, 2.0, 3.0])
