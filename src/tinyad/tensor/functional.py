"""Stable building blocks for networks: softmax, log-softmax, losses, layers.

Each function here is one node with its own backward rule, instead of a chain of
``exp``, ``sum`` and ``/`` nodes: fewer nodes is faster, and a direct rule can be
written in the stable form.

The numerical care, in one place:

- ``softmax(x) = exp(x - max) / sum(exp(x - max))``: subtracting the maximum
  changes nothing mathematically, but every exponent is then <= 0, so ``exp``
  cannot overflow, and the largest term is exactly 1, so the sum is >= 1 and the
  division never meets 0. ``[1000, 1001, 1002]`` is as easy as ``[0, 1, 2]``.
- ``logsumexp(x) = max + log(sum(exp(x - max)))``: the same shift; the log's
  argument is >= 1, never 0.
- ``log_softmax(x) = x - logsumexp(x)``: computed directly, never as
  ``log(softmax(x))``, whose tiny probabilities round to 0 and give ``-inf``.
- ``cross_entropy`` takes logits, not probabilities, and uses ``log_softmax``.
- ``log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))``: the log of the sigmoid without
  taking a log of it (``sigmoid(-800.)`` rounds to 0, whose log is ``-inf``); ``exp``
  only ever sees numbers <= 0. ``binary_cross_entropy_with_logits`` is built on the
  same form, and takes logits, not probabilities, for the same reason.
- Nothing representable is thrown away: a term far below the maximum is a tiny
  number, not 0 (``softmax([0, -400])[1]`` is about 1.9e-174), and only what is too
  small for the float type rounds to 0, as IEEE arithmetic says.
- Gradients are computed from the shifted ``x`` too, never from a large output
  such as ``logsumexp(x)``, whose rounding would carry into every gradient.

None of them overflows, divides by zero or makes a nan, forward or backward, on
finite inputs as extreme as ``1e10`` or ``-1e300``: they run without a NumPy warning
even under ``np.errstate(all="raise", under="ignore")``. (Underflow, a result too
small to represent rounding toward 0, is the correct answer there; NumPy ignores it
by default.) The one limit: along the axis, ``max - x`` must itself be a float (below about
``1.8e308``, or ``3.4e38`` in float32); ``[1e308, -1e308]`` overflows in the shift.
"""

from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np

from tinyad.tensor.elementwise import stable_sigmoid
from tinyad.tensor.gradients import sum_to_shape
from tinyad.tensor.reductions import axes
from tinyad.tensor.tensor import Tensor

Labels = Union[Sequence[int], np.ndarray, Tensor]


def _tensor(x: Any) -> Tensor:
    """``x`` itself if it is a Tensor, else a new constant Tensor of it."""
    return x if isinstance(x, Tensor) else Tensor(x)


def _constant_like(x: Any, weight: Tensor) -> Tensor:
    """``x`` itself if it is a Tensor, else a constant in the weight's dtype (float32 stays float32)."""
    return x if isinstance(x, Tensor) else Tensor(x, dtype=weight.dtype)


def _one_axis(axis: int, x: Tensor) -> int:
    """``axis`` as a non-negative int, or an error: the softmax family works along one axis."""
    if x.ndim == 0:
        raise ValueError("softmax-like functions need a tensor with at least one axis, got shape ()")
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"softmax-like functions work along one axis, an int; got axis={axis!r}")
    axis = axes(axis, x.shape)[0]
    if x.shape[axis] == 0:
        raise ValueError(
            f"softmax-like functions need entries along their axis, but axis {axis} of shape "
            f"{x.shape} is empty: there is no largest entry to subtract and nothing to normalise"
        )
    return axis


def _shifted_exp(x: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(m, e, s)``: the max over ``axis``, ``exp(x - m)`` and its sum (>= 1), all keepdims."""
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    s = np.sum(e, axis=axis, keepdims=True)
    return m, e, s


# -- softmax family --------------------------------------------------------------


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis``, computed with the max subtracted first."""
    x = _tensor(x)
    axis = _one_axis(axis, x)
    _, e, s = _shifted_exp(x.data, axis)
    return Tensor(e / s, parents=(x,), op="softmax", backward_rule=softmax_backward, saved=axis)


def softmax_backward(out: Tensor) -> None:
    # dy_i/dx_j = y_i (delta_ij - y_j), so dx = y * (g - sum(g * y)).
    (x,) = out.parents
    y, g = out.data, out.grad
    x.accumulate(y * (g - np.sum(g * y, axis=out.saved, keepdims=True)))


def logsumexp(x: Tensor, axis: int = -1, keepdims: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` along ``axis``, as ``max + log(sum(exp(x - max)))``."""
    x = _tensor(x)
    axis = _one_axis(axis, x)
    m, _, s = _shifted_exp(x.data, axis)
    data = m + np.log(s)
    if not keepdims:
        data = np.squeeze(data, axis=axis)
    return Tensor(data, parents=(x,), op="logsumexp", backward_rule=logsumexp_backward,
                  saved=(axis, keepdims))


def logsumexp_backward(out: Tensor) -> None:
    # d logsumexp / dx = softmax(x). It is recomputed from the shifted x, not as
    # exp(x - logsumexp(x)): logsumexp is as large as x, so for x near 1000 in
    # float32 it is rounded to the nearest 6e-5, and so would every gradient be.
    (x,) = out.parents
    axis, keepdims = out.saved
    g = out.grad if keepdims else np.expand_dims(out.grad, axis)
    _, e, s = _shifted_exp(x.data, axis)
    x.accumulate(g * (e / s))


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``x - logsumexp(x)`` along ``axis``: the log of softmax without taking a log of it."""
    x = _tensor(x)
    axis = _one_axis(axis, x)
    m, _, s = _shifted_exp(x.data, axis)
    return Tensor(x.data - m - np.log(s), parents=(x,), op="log_softmax",
                  backward_rule=log_softmax_backward, saved=axis)


def log_softmax_backward(out: Tensor) -> None:
    # d(x_i - lse)/dx_j = delta_ij - softmax_j, so dx = g - softmax * sum(g).
    (x,) = out.parents
    axis, g = out.saved, out.grad
    probabilities = np.exp(np.minimum(out.data, 0))
    x.accumulate(g - probabilities * np.sum(g, axis=axis, keepdims=True))


# -- losses ---------------------------------------------------------------------


def _labels(targets: Labels, logits: Tensor) -> np.ndarray:
    """The class labels as an integer array, checked against the logits' shape."""
    if isinstance(targets, Tensor):
        # A Tensor holds floats; labels stored in one must be whole numbers.
        if not np.all(targets.data == np.round(targets.data)):
            raise TypeError("cross_entropy needs integer class labels, got a Tensor of fractions")
        labels = targets.data.astype(np.intp)
    else:
        labels = np.asarray(targets)
        if labels.size == 0:
            labels = labels.astype(np.intp)  # an empty list has no dtype of its own
    if labels.dtype.kind not in "iu":
        raise TypeError(f"cross_entropy needs integer class labels, got dtype {labels.dtype}")
    if logits.ndim != 2:
        raise ValueError(
            f"cross_entropy needs logits of shape (batch, classes), got shape {logits.shape}"
        )
    batch, classes = logits.shape
    if labels.shape != (batch,):
        raise ValueError(
            f"cross_entropy needs one label per row: logits of shape {logits.shape} "
            f"need labels of shape ({batch},), got shape {labels.shape}"
        )
    bad = (labels < 0) | (labels >= classes)
    if bad.any():
        raise ValueError(
            f"cross_entropy got label {int(labels[bad][0])}, but there are {classes} classes "
            f"(labels must be in 0..{classes - 1})"
        )
    return labels


def cross_entropy(logits: Tensor, targets: Labels) -> Tensor:
    """Mean over the batch of ``-log_softmax(logits)[i, targets[i]]``; logits (batch, classes)."""
    logits = _tensor(logits)
    labels = _labels(targets, logits)
    batch = logits.shape[0]
    if batch == 0:
        raise ValueError("cross_entropy got an empty batch: logits of shape (0, classes)")
    m, e, s = _shifted_exp(logits.data, 1)
    rows = np.arange(batch)
    # -log p[label] = log(s) - (x[label] - m), with s >= 1.
    losses = np.log(s[:, 0]) - (logits.data[rows, labels] - m[:, 0])
    probabilities = e / s
    data = np.sum(losses) / batch
    return Tensor(data, parents=(logits,), op="cross_entropy",
                  backward_rule=cross_entropy_backward, saved=(labels, probabilities))


def cross_entropy_backward(out: Tensor) -> None:
    # d loss / d logits = (softmax - one_hot(labels)) / batch.
    (logits,) = out.parents
    labels, probabilities = out.saved
    batch = logits.shape[0]
    grad = probabilities.copy()
    grad[np.arange(batch), labels] -= 1
    grad *= out.grad / batch
    logits.accumulate(grad)


def log_sigmoid(x: Tensor) -> Tensor:
    """``log(sigmoid(x))`` elementwise, as ``min(x, 0) - log1p(exp(-|x|))``: finite for any finite x."""
    x = _tensor(x)
    data = np.minimum(x.data, 0) - np.log1p(np.exp(-np.abs(x.data)))
    return Tensor(data, parents=(x,), op="log_sigmoid", backward_rule=log_sigmoid_backward)


def log_sigmoid_backward(out: Tensor) -> None:
    # d log(sigmoid(x)) / dx = 1 - sigmoid(x) = sigmoid(-x), computed in the stable form.
    (x,) = out.parents
    x.accumulate(out.grad * stable_sigmoid(-x.data))


def binary_cross_entropy_with_logits(logits: Tensor, targets: Any) -> Tensor:
    """Mean of ``-(t log(sigmoid(x)) + (1 - t) log(1 - sigmoid(x)))``; targets in [0, 1], same shape.

    Computed as ``max(x, 0) - x t + log1p(exp(-|x|))``, which never takes the log of 0.
    """
    logits = _tensor(logits)
    targets = _constant_like(targets, logits)
    if logits.shape != targets.shape:
        raise ValueError(
            f"binary_cross_entropy_with_logits needs logits and targets of the same shape, "
            f"got {logits.shape} and {targets.shape}"
        )
    if logits.size == 0:
        raise ValueError(f"binary_cross_entropy_with_logits of empty tensors (shape {logits.shape})")
    t = targets.data
    outside = ~((t >= 0) & (t <= 1))
    if outside.any():
        raise ValueError(
            f"binary_cross_entropy_with_logits needs targets in [0, 1] (probabilities of the "
            f"positive class): {int(outside.sum())} entries are outside, the first is "
            f"{t[outside][0]:.6g}"
        )
    x = logits.data
    losses = np.maximum(x, 0) - x * t + np.log1p(np.exp(-np.abs(x)))
    return Tensor(np.sum(losses) / x.size, parents=(logits, targets), op="bce_with_logits",
                  backward_rule=binary_cross_entropy_with_logits_backward)


def binary_cross_entropy_with_logits_backward(out: Tensor) -> None:
    # d loss / dx = (sigmoid(x) - t) / n, and d loss / dt = -x / n.
    logits, targets = out.parents
    scale = out.grad / logits.size
    if logits.requires_grad:
        logits.accumulate((stable_sigmoid(logits.data) - targets.data) * scale)
    if targets.requires_grad:
        targets.accumulate(logits.data * -scale)


def mse(pred: Tensor, target: Any) -> Tensor:
    """Mean of ``(pred - target) ** 2``; both must have the same shape (no broadcasting)."""
    pred = _tensor(pred)
    # An array target is a constant in pred's dtype, so float32 predictions give a float32 loss.
    target = target if isinstance(target, Tensor) else Tensor(target, dtype=pred.dtype)
    if pred.shape != target.shape:
        raise ValueError(
            f"mse needs pred and target of the same shape, got {pred.shape} and {target.shape}"
        )
    if pred.size == 0:
        raise ValueError(f"mse of empty tensors (shape {pred.shape})")
    diff = pred.data - target.data
    data = np.sum(diff * diff) / diff.size
    return Tensor(data, parents=(pred, target), op="mse", backward_rule=mse_backward, saved=diff)


def mse_backward(out: Tensor) -> None:
    pred, target = out.parents
    grad = out.saved * (2 * out.grad / out.saved.size)
    if pred.requires_grad:
        pred.accumulate(grad)
    if target.requires_grad:
        target.accumulate(-grad)


# -- layers as single nodes ------------------------------------------------------


def _add_into(fresh: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``fresh + other``, in place when the dtypes allow: ``fresh`` was just made, so no copy."""
    if np.result_type(fresh, other) == fresh.dtype:
        fresh += other
        return fresh
    return fresh + other


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight + bias`` as one node: x (..., nin), weight (nin, nout), bias (nout,)."""
    x = _constant_like(x, weight)
    if weight.ndim != 2 or x.ndim == 0 or x.shape[-1] != weight.shape[0]:
        raise ValueError(
            f"linear cannot multiply shapes {x.shape} and {weight.shape}: it needs x of shape "
            f"(..., {weight.shape[0] if weight.ndim else '?'}) and a 2-D weight"
        )
    data = x.data @ weight.data
    parents: tuple[Tensor, ...] = (x, weight)
    if bias is not None:
        if bias.shape != (weight.shape[1],):
            raise ValueError(f"linear needs a bias of shape ({weight.shape[1]},), got {bias.shape}")
        data = _add_into(data, bias.data)
        parents = (x, weight, bias)
    return Tensor(data, parents=parents, op="linear", backward_rule=linear_backward)


def linear_backward(out: Tensor) -> None:
    x, weight = out.parents[0], out.parents[1]
    g = out.grad
    if x.requires_grad:
        x.accumulate(g @ weight.data.T)
    if weight.requires_grad:
        g2 = g.reshape(-1, g.shape[-1])
        weight.accumulate(x.data.reshape(-1, x.shape[-1]).T @ g2)
    if len(out.parents) == 3 and out.parents[2].requires_grad:
        out.parents[2].accumulate(sum_to_shape(g, out.parents[2].shape))


def rnn_step(x: Tensor, h: Tensor, w_x: Tensor, w_h: Tensor, b: Tensor) -> Tensor:
    """One tanh RNN step as one node: ``tanh(x @ w_x + h @ w_h + b)``.

    Shapes: x (batch, nin), h (batch, nhidden), w_x (nin, nhidden),
    w_h (nhidden, nhidden), b (nhidden,); the result is (batch, nhidden).
    """
    x, h = _constant_like(x, w_x), _constant_like(h, w_x)
    if x.ndim != 2 or h.ndim != 2 or x.shape[1] != w_x.shape[0] or h.shape[1] != w_h.shape[0]:
        raise ValueError(
            f"rnn_step got x {x.shape} and h {h.shape} for weights {w_x.shape} and {w_h.shape}"
        )
    a = _add_into(x.data @ w_x.data, h.data @ w_h.data)
    a = _add_into(a, b.data)
    return Tensor(np.tanh(a, out=a), parents=(x, h, w_x, w_h, b), op="rnn_step",
                  backward_rule=rnn_step_backward)


def rnn_step_backward(out: Tensor) -> None:
    x, h, w_x, w_h, b = out.parents
    y = out.data
    da = out.grad * (1 - y * y)  # back through tanh: da is d loss / d(pre-activation)
    if x.requires_grad:
        x.accumulate(da @ w_x.data.T)
    if h.requires_grad:
        h.accumulate(da @ w_h.data.T)
    if w_x.requires_grad:
        w_x.accumulate(x.data.T @ da)
    if w_h.requires_grad:
        w_h.accumulate(h.data.T @ da)
    if b.requires_grad:
        b.accumulate(da.sum(axis=0))
