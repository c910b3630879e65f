"""Stable building blocks for networks: softmax, log-softmax, losses, layers.

Each function here is one node with its own backward rule, instead of a chain of
``exp``, ``sum`` and ``/`` nodes: fewer nodes is faster, and a direct rule can be
written in the stable form. The node is made as every op makes its output, from its input
(``x.new_node(data, parents=(x,), op="softmax", backward_rule=softmax_backward)``).

The numerical care, in one place:

- ``softmax(x) = exp(x - max) / sum(exp(x - max))``: subtracting the maximum
  changes nothing mathematically, but every exponent is then <= 0, so ``exp``
  cannot overflow, and the largest term is exactly 1, so the sum is >= 1 and the
  division never meets 0. ``[1000, 1001, 1002]`` is as easy as ``[0, 1, 2]``.
- ``logsumexp(x) = max + log(sum(exp(x - max)))``: the same shift; the log's
  argument is >= 1, never 0.
- ``log_softmax(x) = x - logsumexp(x)``: computed directly, never as
  ``log(softmax(x))``, whose tiny probabilities round to 0 and give ``-inf``.
- ``cross_entropy`` takes logits, not probabilities, and computes each row's
  ``-log_softmax`` at its label itself, in the same shifted form: ``log(s) - (x[label] - m)``,
  with ``m`` the row's maximum and ``s = sum(exp(x - m)) >= 1``. Given the output of
  ``softmax`` or ``sigmoid`` instead, it warns: those probabilities would be squashed twice.
- ``log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))``: the log of the sigmoid without
  taking a log of it (``sigmoid(-800.)`` rounds to 0, whose log is ``-inf``); ``exp``
  only ever sees numbers <= 0. ``binary_cross_entropy_with_logits`` is built on the
  same form, and takes logits, not probabilities, for the same reason.
- Nothing representable is thrown away: a term far below the maximum is a tiny
  number, not 0 (``softmax([0, -400])[1]`` is about 1.9e-174), and only what is too
  small for the float type rounds to 0, as IEEE arithmetic says.
- Gradients are computed from the shifted ``x`` too, never from a large output
  such as ``logsumexp(x)``, whose rounding would carry into every gradient.

The softmax family (``softmax``, ``log_softmax``, ``logsumexp``), ``log_sigmoid`` and the
cross-entropy losses (``cross_entropy``, ``binary_cross_entropy_with_logits``) never overflow,
divide by zero or make a nan, forward or backward, on finite inputs as extreme as ``1e10`` or
``-1e300``: they run without a NumPy warning even under
``np.errstate(all="raise", under="ignore")``. (Underflow, a result too small to represent
rounding toward 0, is the correct answer there; NumPy ignores it by default.) The one limit:
along the axis, ``max - x`` must itself be a float (below about ``1.8e308``, or ``3.4e38`` in
float32); ``[1e308, -1e308]`` overflows in the shift. ``mse``, ``linear`` and ``rnn_step``
promise no such thing: they square, multiply and add their inputs, so where the true result
(for ``rnn_step``, the sum inside its tanh) is beyond the float range, it overflows, as it
must: ``mse([1e200], [-1e200])``, ``linear`` of ``1e300`` by a weight of ``1e10``. Each
function computes with the namespace of its inputs' library (``x.xp``), as every op does.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence, Union

import numpy as np

from tinyad.tensor.backend import (
    cannot_combine, check_data_set_by_hand, dtype_name, held_by_no_tensor, is_array, library, namespace,
    one_dtype_for_products, same_device, same_place, set_by_hand, to_numpy,
)
from tinyad.tensor.elementwise import stable_sigmoid
from tinyad.tensor.reductions import axes
from tinyad.tensor.tensor import Tensor, constant
from tinyad.validation import a_type_name, check_flag, type_name

Labels = Union[Sequence[int], np.ndarray, Tensor]


def _tensor(x: Any) -> Tensor:
    """``x`` itself if it is a Tensor, else a new constant Tensor of it."""
    return x if isinstance(x, Tensor) else Tensor(x)


def _constant_like(x: Any, weight: Tensor) -> Tensor:
    """A layer's input: a constant in the weight's dtype (float32 stays float32) and, for numbers
    and lists, in its library and on its device; a Tensor that requires a gradient as it is.

    A constant Tensor (a batch of data) takes the weight's dtype as an array does: a float32
    network given ``Tensor(x)`` of float64 data would otherwise compute in float64 throughout.
    """
    if isinstance(x, Tensor) and (x.requires_grad or not isinstance(weight, Tensor)
                                  or x.xp is not weight.xp or x.dtype == weight.dtype):
        return x  # (two libraries: the layer names both)
    if not isinstance(weight, Tensor):
        raise TypeError(
            f"a layer's weight must be a Tensor, got {a_type_name(weight)}: pass the Tensor "
            "itself (a parameter, not its .data), so that its gradient is filled"
        )
    try:
        if isinstance(x, Tensor):
            return Tensor(x.data, dtype=weight.dtype)  # a value beyond float32 is named as such
        return constant(x, weight, weight.dtype)
    except TypeError:  # a constant takes the weight's dtype, which is no float's: .data set by hand
        check_data_set_by_hand(weight)
        raise


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


def _shifted_exp(x: Any, axis: int) -> tuple[Any, Any, Any]:
    """``(m, e, s)``: the max over ``axis``, ``exp(x - m)`` and its sum (>= 1), all keepdims."""
    xp = namespace(x)  # names a Tensor as x: a .data set by hand to one
    try:
        m = xp.max(x, axis=axis, keepdims=True)
        e = xp.exp(x - m)
        s = xp.sum(e, axis=axis, keepdims=True)
    except Exception:  # x is a Tensor's .data: ints set by hand are named, not in the library's words
        what = held_by_no_tensor(x)
        if what:
            raise set_by_hand(what) from None
        raise
    return m, e, s


# -- softmax family --------------------------------------------------------------


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis``, computed with the max subtracted first."""
    x = _tensor(x)
    axis = _one_axis(axis, x)
    _, e, s = _shifted_exp(x.data, axis)
    return x.new_node(e / s, parents=(x,), op="softmax", backward_rule=softmax_backward, saved=axis)


def softmax_backward(out: Tensor) -> None:
    # dy_i/dx_j = y_i (delta_ij - y_j), so dx = y * (g - sum(g * y)).
    (x,) = out.parents
    y, g = out.data, out.grad
    x.accumulate(y * (g - out.xp.sum(g * y, axis=out.saved, keepdims=True)))


def logsumexp(x: Tensor, axis: int = -1, keepdims: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` along ``axis``, as ``max + log(sum(exp(x - max)))``."""
    x = _tensor(x)
    axis, keepdims = _one_axis(axis, x), check_flag(keepdims, "keepdims")
    m, _, s = _shifted_exp(x.data, axis)
    data = m + x.xp.log(s)
    if not keepdims:
        data = x.xp.squeeze(data, axis=axis)
    return x.new_node(data, parents=(x,), op="logsumexp", backward_rule=logsumexp_backward,
                      saved=(axis, keepdims))


def logsumexp_backward(out: Tensor) -> None:
    # d logsumexp / dx = softmax(x). It is recomputed from the shifted x, not as
    # exp(x - logsumexp(x)): logsumexp is as large as x, so for x near 1000 in
    # float32 it is rounded to the nearest 6e-5, and so would every gradient be.
    (x,) = out.parents
    axis, keepdims = out.saved
    g = out.grad if keepdims else out.xp.expand_dims(out.grad, axis=axis)
    _, e, s = _shifted_exp(x.data, axis)
    x.accumulate(g * (e / s))


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``x - logsumexp(x)`` along ``axis``: the log of softmax without taking a log of it."""
    x = _tensor(x)
    axis = _one_axis(axis, x)
    m, _, s = _shifted_exp(x.data, axis)
    return x.new_node(x.data - m - x.xp.log(s), parents=(x,), op="log_softmax",
                      backward_rule=log_softmax_backward, saved=axis)


def log_softmax_backward(out: Tensor) -> None:
    # d(x_i - lse)/dx_j = delta_ij - softmax_j, so dx = g - softmax * sum(g).
    (x,) = out.parents
    axis, g = out.saved, out.grad
    probabilities = out.xp.exp(out.xp.minimum(out.data, 0.0))
    x.accumulate(g - probabilities * out.xp.sum(g, axis=axis, keepdims=True))


# -- losses ---------------------------------------------------------------------


def _one_hot(targets: Labels, logits: Tensor) -> Any:
    """The class labels as one-hot rows in the logits' library and dtype: ``one_hot[i, j]`` is 1
    where ``j`` is row ``i``'s label, else 0. Checked against the logits' shape.

    Labels given as a list or a NumPy array join the logits' library, as indices do; labels
    in a Tensor or an array of a library must be of the logits' library and device.
    """
    xp = logits.xp
    if isinstance(targets, Tensor):
        same_place("cross_entropy", logits, targets)
        if targets.ndim == 2 and logits.ndim == 1:
            raise TypeError(
                f"cross_entropy(logits, labels) takes the logits first: it got labels of shape "
                f"{targets.shape}{' that require grad' if targets.requires_grad else ''} and logits of "
                f"shape {logits.shape}; are the two swapped?"
            )
        if targets.requires_grad:  # labels need no gradient
            raise TypeError(
                f"cross_entropy got labels of shape {targets.shape} that require grad: labels need none. "
                "Given to gradcheck beside the logits, they get one (gradcheck nudges every input it is "
                "given): pass them inside f, gradcheck(lambda z: F.cross_entropy(z, labels), logits)"
            )
        # A Tensor holds floats; labels stored in one must be whole numbers, and within the
        # classes before they become ints (1e30 as an int64 is a large negative number).
        if not xp.all(targets.data == xp.round(targets.data)):
            raise TypeError("cross_entropy needs integer class labels, got a Tensor of fractions")
        if logits.ndim == 2 and not xp.all((targets.data >= 0) & (targets.data < logits.shape[1])):
            raise _label_out_of_range(targets.data, logits.shape[1])
        labels = xp.astype(targets.data, xp.int64)
    elif isinstance(targets, (list, tuple, np.ndarray, np.generic)) or not is_array(targets):
        try:
            labels = np.asarray(targets)
        except ValueError:  # NumPy's words for nested lists of different lengths
            raise ValueError("cross_entropy needs one integer label per row, got a ragged list") from None
        if labels.dtype == object:  # None, a generator, a set: no numbers NumPy could see
            raise TypeError(f"cross_entropy needs integer class labels (a list or an array of ints), got "
                            f"{type_name(targets)}")
        if labels.size == 0:
            labels = labels.astype(np.intp)  # an empty list has no dtype of its own
    else:
        own = namespace(targets)
        if own is not xp or not same_device(targets, logits.data, xp):
            raise cannot_combine(logits.data, xp, targets, own, "cross_entropy")
        labels = targets
    own = namespace(labels)
    if not own.isdtype(labels.dtype, "integral"):
        raise TypeError(f"cross_entropy needs integer class labels, got {dtype_name(labels.dtype)} labels of "
                        f"shape {tuple(labels.shape)}{_what_the_labels_look_like(labels, logits, targets)}")
    shape = logits.shape  # read once: this runs on every training step
    if len(shape) != 2 or shape[1] == 0:
        raise ValueError(
            f"cross_entropy needs logits of shape (batch, classes) with at least one class, got shape "
            f"{shape}"
        )
    batch, classes = shape
    if tuple(labels.shape) != (batch,):
        raise ValueError(
            f"cross_entropy needs one label per row: logits of shape {logits.shape} "
            f"need labels of shape ({batch},), got shape {tuple(labels.shape)}"
            f"{_what_the_labels_look_like(labels, logits, targets)}"
        )
    device = logits.device
    if own is not xp:
        labels = xp.asarray(labels, device=device)
    matches = labels[:, None] == xp.arange(classes, device=device)
    # A label outside 0..classes-1 matches no class. (Counted on the booleans: cheaper than a
    # float sum of the one-hot rows, and this runs on every training step.)
    if xp.count_nonzero(matches) != batch:
        raise _label_out_of_range(labels, classes)
    return xp.astype(matches, logits.dtype)


def _what_the_labels_look_like(labels: Any, logits: Tensor, targets: Labels) -> str:
    """For the error that refuses ``labels`` (the array of ``targets``): what they most likely are,
    and how to pass them.

    One-hot rows (the logits' shape), a column of labels (batch, 1), or classes stored as floats
    (whole numbers of a float dtype); nothing, for anything else.
    """
    shape, plain = tuple(labels.shape), to_numpy(labels)
    name = "labels.data" if isinstance(targets, Tensor) else "labels"
    floats = plain.dtype.kind == "f"
    # What to write, in the labels' own library: PyTorch's tensors have methods of other names,
    # and the standard's arrays none (its functions take the array).
    own = library(namespace(labels))
    if own in ("numpy", "jax"):  # JAX's arrays have NumPy's methods
        argmax, flat, as_ints = f"{name}.argmax(axis=1)", f"{name}.reshape(-1)", f"{name}.astype(int)"
    elif own == "torch":
        argmax, flat, as_ints = f"{name}.argmax(dim=1)", f"{name}.reshape(-1)", f"{name}.long()"
    else:
        argmax, flat = f"{own}.argmax({name}, axis=1)", f"{own}.reshape({name}, (-1,))"
        as_ints = f"{own}.astype({name}, {own}.int64)"
    if logits.ndim == 2 and shape == logits.shape:
        return f": one-hot rows? cross_entropy takes each row's class, {argmax}"
    if logits.ndim == 2 and shape == (logits.shape[0], 1):
        flat_ints = as_ints.replace(name, flat, 1) if floats else flat
        return f": a column of labels? cross_entropy takes a flat array, {flat_ints}"
    if floats and np.all(np.isfinite(plain)) and np.all(plain == np.round(plain)):
        return f": whole numbers stored as floats? make them ints, {as_ints}"
    return ""


def _label_out_of_range(labels: Any, classes: int) -> ValueError:
    """The error for labels (ints, or whole floats in a Tensor) of which one is not a class."""
    plain = to_numpy(labels)
    wrong = plain[(plain < 0) | (plain >= classes)][0]
    return ValueError(
        f"cross_entropy got label {int(wrong) if abs(wrong) < 2**63 else f'{wrong:.6g}'}, but there are "
        f"{classes} classes (labels must be in 0..{classes - 1})"
    )


# The ops whose outputs are probabilities: given to a loss that takes logits, they are the
# classic slip of a model that ends in softmax (or sigmoid) feeding a loss that applies it again.
PROBABILITIES = ("softmax", "sigmoid")


def _warn_if_probabilities(loss: str, applies: str, logits: Tensor) -> None:
    """A warning where ``logits`` are the output of ``softmax`` or ``sigmoid``: probabilities.

    Not an error: the loss is defined for any real numbers. But it applies ``applies`` itself, so
    the probabilities are squashed a second time, and numbers in [0, 1] keep the loss above a
    floor however right the model is: the loss of exact one-hot probabilities (``log(e + classes
    - 1) - 1`` after softmax, ``log(1 + 1/e)`` after sigmoid).
    """
    if logits.op not in PROBABILITIES:
        return
    if applies == "softmax":
        classes = logits.shape[-1]
        floor, where = math.log(math.e + classes - 1) - 1, f" (with {classes} classes)"
    else:
        floor, where = math.log1p(math.exp(-1)), ""
    warnings.warn(
        f"{loss} got the output of {logits.op} as its logits: it applies {applies} itself, so these "
        f"probabilities are squashed a second time, and the loss cannot fall below {floor:.3g}{where} "
        f"however right the model is; pass the scores from before {logits.op}",
        stacklevel=3,
    )


def cross_entropy(logits: Tensor, targets: Labels) -> Tensor:
    """Mean over the batch of ``-log_softmax(logits)[i, targets[i]]``; logits (batch, classes)."""
    logits = _tensor(logits)
    one_hot = _one_hot(targets, logits)
    _warn_if_probabilities("cross_entropy", "softmax", logits)
    batch = logits.shape[0]
    if batch == 0:
        raise ValueError("cross_entropy got an empty batch: logits of shape (0, classes)")
    xp = logits.xp
    m, e, s = _shifted_exp(logits.data, 1)
    # -log p[label] = log(s) - (x[label] - m), with s >= 1; x[label] is sum(one_hot * x) in a row.
    # (Not one_hot * (x - m): where x - m overflows to -inf, 0 * -inf would be nan.)
    losses = xp.log(s) - (xp.sum(one_hot * logits.data, axis=1, keepdims=True) - m)
    probabilities = e / s
    data = xp.sum(losses / batch)  # divided first: a sum of large losses may overflow, their mean not
    return logits.new_node(data, parents=(logits,), op="cross_entropy",
                           backward_rule=cross_entropy_backward, saved=(one_hot, probabilities))


def cross_entropy_backward(out: Tensor) -> None:
    # d loss / d logits = (softmax - one_hot(labels)) / batch.
    (logits,) = out.parents
    one_hot, probabilities = out.saved
    batch = logits.shape[0]
    logits.accumulate((probabilities - one_hot) * (out.grad / batch))


def log_sigmoid(x: Tensor) -> Tensor:
    """``log(sigmoid(x))`` elementwise, as ``min(x, 0) - log1p(exp(-|x|))``: finite for any finite x."""
    x = _tensor(x)
    xp = x.xp
    data = xp.minimum(x.data, 0.0) - xp.log1p(xp.exp(-xp.abs(x.data)))
    return x.new_node(data, parents=(x,), op="log_sigmoid", backward_rule=log_sigmoid_backward)


def log_sigmoid_backward(out: Tensor) -> None:
    # d log(sigmoid(x)) / dx = 1 - sigmoid(x) = sigmoid(-x), computed in the stable form.
    (x,) = out.parents
    x.accumulate(out.grad * stable_sigmoid(-x.data))


def _entry_by_entry(loss: str, names: str, x: Any, target: Any) -> tuple[Tensor, Tensor]:
    """A loss's two operands, compared entry by entry: Tensors of one library and device, of one
    shape (no broadcasting), not empty. An array target becomes a constant in ``x``'s dtype, so
    float32 predictions give a float32 loss."""
    x = _tensor(x)
    target = _constant_like(target, x)
    same_place(loss, x, target)
    if x.shape != target.shape:
        raise ValueError(f"{loss} needs {names} of the same shape, got {x.shape} and {target.shape}")
    if x.size == 0:
        raise ValueError(f"{loss} of empty tensors (shape {x.shape})")
    return x, target


def binary_cross_entropy_with_logits(logits: Tensor, targets: Any) -> Tensor:
    """Mean of ``-(t log(sigmoid(x)) + (1 - t) log(1 - sigmoid(x)))``; targets in [0, 1], same shape.

    Computed as ``max(x, 0) - x t + log1p(exp(-|x|))``, which never takes the log of 0.
    """
    logits, targets = _entry_by_entry("binary_cross_entropy_with_logits", "logits and targets",
                                      logits, targets)
    _warn_if_probabilities("binary_cross_entropy_with_logits", "sigmoid", logits)
    xp, t = logits.xp, targets.data
    try:
        inside = xp.all((t >= 0) & (t <= 1))
    except TypeError:  # a Tensor has no >=: the targets' .data was set by hand to one
        check_data_set_by_hand(targets)
        raise
    if not inside:
        plain = to_numpy(t)
        outside = ~((plain >= 0) & (plain <= 1))
        raise ValueError(
            f"binary_cross_entropy_with_logits needs targets in [0, 1] (probabilities of the "
            f"positive class): {int(outside.sum())} entries are outside, the first is "
            f"{plain[outside][0]:.6g}"
        )
    x = logits.data
    losses = xp.maximum(x, 0.0) - x * t + xp.log1p(xp.exp(-xp.abs(x)))
    data = xp.sum(losses / logits.size)  # divided first, as in cross_entropy
    return logits.new_node(data, parents=(logits, targets), op="bce_with_logits",
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
    pred, target = _entry_by_entry("mse", "pred and target", pred, target)
    diff = pred.data - target.data
    data = pred.xp.sum(diff * (diff / pred.size))  # divided before the square: (2e154)**2 overflows
    return pred.new_node(data, parents=(pred, target), op="mse", backward_rule=mse_backward, saved=diff)


def mse_backward(out: Tensor) -> None:
    pred, target = out.parents
    grad = out.saved * (2 * out.grad / pred.size)
    if pred.requires_grad:
        pred.accumulate(grad)
    if target.requires_grad:
        target.accumulate(-grad)


# -- layers as single nodes ------------------------------------------------------


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight + bias`` as one node: x (..., nin), weight (nin, nout), bias (nout,)."""
    x = _constant_like(x, weight)
    parents = (x, weight) if bias is None else (x, weight, bias)
    same_place("linear", *parents)  # first: it names an argument that is not a Tensor
    one_dtype_for_products("linear", x, weight)  # the bias is added, which PyTorch promotes as NumPy does
    # The shapes are read once (shape names a .data set by hand): a layer runs on every step of every batch.
    x_shape, w_shape = x.shape, weight.shape
    if len(w_shape) != 2 or not x_shape or x_shape[-1] != w_shape[0]:
        pytorch_layout = len(w_shape) == 2 and x_shape and x_shape[-1] == w_shape[1]
        raise ValueError(
            f"linear cannot multiply shapes {x.shape} and {weight.shape}: it needs x of shape "
            f"(..., {weight.shape[0] if weight.ndim else '?'}) and a 2-D weight"
            + (f"; here a weight is (nin, nout): for one of shape (nout, nin) = {weight.shape}, as PyTorch's "
               "nn.Linear keeps it, pass weight.T" if pytorch_layout else "")
        )
    if bias is None:
        return x.new_node(x.data @ weight.data, parents=parents, op="linear",
                          backward_rule=linear_backward)
    b_shape = bias.shape  # shape names a .data set by hand
    if len(b_shape) != 1 or b_shape[0] != w_shape[1]:
        raise ValueError(f"linear needs a bias of shape ({w_shape[1]},), got {b_shape}")
    # One expression: NumPy adds the bias into the product's own array (a temporary nothing
    # else holds) where the array is large enough to be worth it.
    return x.new_node(x.data @ weight.data + bias.data, parents=parents, op="linear",
                      backward_rule=linear_backward)


def linear_backward(out: Tensor) -> None:
    x, weight = out.parents[0], out.parents[1]
    xp, g = out.xp, out.grad
    if x.requires_grad:
        x.accumulate(g @ weight.data.T, fresh=True)
    # The weight's and the bias's gradients sum over every row of every batch axis: x and g
    # seen as 2-D, (rows, nin) and (rows, nout). Each product and sum is a new array, which
    # a leaf may keep as its gradient without a copy (fresh=True).
    # The number of rows is given, not -1, which cannot be read off an axis of size 0.
    rows = g if g.ndim == 2 else xp.reshape(g, (math.prod(g.shape[:-1]), g.shape[-1]))
    if weight.requires_grad:
        inputs = x.data if x.ndim == 2 else xp.reshape(x.data, (rows.shape[0], x.shape[-1]))
        weight.accumulate(inputs.T @ rows, fresh=True)
    if len(out.parents) == 3 and out.parents[2].requires_grad:
        out.parents[2].accumulate(xp.sum(rows, axis=0), fresh=True)


def rnn_step(x: Tensor, h: Tensor, w_x: Tensor, w_h: Tensor, b: Tensor) -> Tensor:
    """One tanh RNN step as one node: ``tanh(x @ w_x + h @ w_h + b)``.

    Shapes: x (batch, nin), h (batch, nhidden), w_x (nin, nhidden),
    w_h (nhidden, nhidden), b (nhidden,); the result is (batch, nhidden).
    """
    x, h = _constant_like(x, w_x), _constant_like(h, w_x)
    same_place("rnn_step", x, h, w_x, w_h, b)  # first: it names an argument that is not a Tensor
    _check_rnn_arguments(x, h, w_x, w_h, b)
    a = x.data @ w_x.data + h.data @ w_h.data + b.data  # one expression, as in linear
    return x.new_node(x.xp.tanh(a), parents=(x, h, w_x, w_h, b), op="rnn_step",
                      backward_rule=rnn_step_backward)


def _check_rnn_arguments(x: Tensor, h: Tensor, w_x: Tensor, w_h: Tensor, b: Tensor) -> None:
    """A ValueError naming all five shapes unless they fit one RNN step (anything else would
    broadcast in forward, a bias of shape (batch, nhidden) or an h of batch 1, and fail in
    backward); a TypeError for PyTorch's tensors of two dtypes, which its products do not mix (the
    bias is added, which PyTorch promotes as NumPy does)."""
    one_dtype_for_products("rnn_step", x, h, w_x, w_h)
    batch, nin = x.shape if x.ndim == 2 else (None, None)
    nhidden = w_h.shape[0] if w_h.ndim == 2 else None
    if (x.ndim != 2 or w_h.shape != (nhidden, nhidden) or w_x.shape != (nin, nhidden)
            or h.shape != (batch, nhidden) or b.shape != (nhidden,)):
        raise ValueError(
            f"rnn_step needs x (batch, nin), h (batch, nhidden), w_x (nin, nhidden), w_h (nhidden, "
            f"nhidden) and b (nhidden,), got x {x.shape}, h {h.shape}, w_x {w_x.shape}, w_h "
            f"{w_h.shape} and b {b.shape}"
        )


def rnn_step_backward(out: Tensor) -> None:
    x, h, w_x, w_h, b = out.parents
    y = out.data
    da = out.grad * (1 - y * y)  # back through tanh: da is d loss / d(pre-activation)
    # Each gradient below is a new array: a leaf may keep it without a copy (fresh=True).
    if x.requires_grad:
        x.accumulate(da @ w_x.data.T, fresh=True)
    if h.requires_grad:
        h.accumulate(da @ w_h.data.T, fresh=True)
    if w_x.requires_grad:
        w_x.accumulate(x.data.T @ da, fresh=True)
    if w_h.requires_grad:
        w_h.accumulate(h.data.T @ da, fresh=True)
    if b.requires_grad:
        b.accumulate(out.xp.sum(da, axis=0), fresh=True)
