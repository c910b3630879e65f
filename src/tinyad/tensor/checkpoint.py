"""Checkpointing: trade compute for memory by recomputing a block during backward.

A graph keeps every intermediate array alive until backward has used it. For a
deep stack of layers that is most of the memory. ``checkpoint(fn, *tensors)``
runs ``fn`` without recording a graph, keeps only its output, and records a
single node whose backward rule runs ``fn`` again (this time recording), walks
that short graph, and passes the gradients on to ``tensors``. The gradients are
the same; the intermediates of ``fn`` exist only while its own backward runs.

What ``fn`` may use:

- the ``tensors`` passed to ``checkpoint``, interior or leaf: their gradients flow on;
- leaves it reaches directly (parameters captured in a closure or held by a
  module): the recomputation adds into their gradients;
- constants (tensors that need no gradient), from anywhere.

What it may not use: an interior tensor of the surrounding graph that needs a
gradient, captured instead of passed (``h = x * 2; checkpoint(lambda t: t * h, z)``).
The checkpoint node does not list it as a parent, so the surrounding walk could
finish with it before the recomputation adds its share. The backward rule
detects this and raises ``RuntimeError`` saying to pass the tensor as an argument.

``fn`` must be deterministic (no fresh random numbers), and what it reads must not change
between the forward pass and backward (no ``opt.step()`` in between): the rule compares the
recomputed output with the forward one and raises ``RuntimeError`` where they differ, since its
gradients would be another function's. The output may be used any number of times: all uses
add into the checkpoint node's gradient before its rule runs.

A block that nothing needing a gradient goes into (frozen parameters, inputs that need none)
passes no gradient on, as the same block without checkpoint would; since its output was
recorded all the same, the rule warns, in case a ``requires_grad=True`` was forgotten. It warns
too where inputs need a gradient but the recomputed output does not (``no_grad()`` inside
``fn``, or inputs detached): they get 0.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Callable

from tinyad.tensor import grad_mode
from tinyad.tensor.backend import describe, share_place
from tinyad.tensor.tensor import Tensor
from tinyad.validation import check_function, type_name


def checkpoint(fn: Callable[..., Tensor], *tensors: Tensor) -> Tensor:
    """``fn(*tensors)``, but its intermediates are recomputed in backward instead of kept."""
    check_function(fn, "checkpoint")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"checkpoint: argument {i} must be a Tensor, got {type_name(t)}")
    with grad_mode.no_grad():
        result = fn(*tensors)
    if not isinstance(result, Tensor):
        raise TypeError(f"checkpoint: fn must return a Tensor, got {type_name(result)}")
    _refuse_another_place(tensors, result)
    # The parameters fn uses need not be among ``tensors``, so the node asks to be recorded
    # (requires_grad=True) whenever recording is on: the recomputation in backward finds
    # out what needs a gradient.
    return Tensor(result.data, requires_grad=True, parents=tensors, op="checkpoint",
                  backward_rule=checkpoint_backward, saved=fn)


def checkpoint_backward(out: Tensor) -> None:
    fn = out.saved
    inputs = [Tensor(t.data, requires_grad=t.requires_grad) for t in out.parents]
    block: list[Tensor] = []
    with grad_mode.enable_grad(), grad_mode.recording_into(block):
        recomputed = fn(*inputs)
    _refuse_captured_interior(block, recomputed)
    block.clear()  # hold no extra references: the inner walk frees the block as it goes
    _refuse_another_place(out.parents, recomputed)
    _refuse_another_output(out, recomputed)
    if recomputed.requires_grad:
        # The inner walk fills the parameters' grads directly and the inputs' copies here.
        recomputed.backward(out.grad)
    elif not any(t.requires_grad for t in out.parents):
        # Nothing fn reads needs a gradient: a frozen block, which passes none on, or a forgotten
        # requires_grad=True, which the walk cannot tell from it. Said, not refused.
        warnings.warn(_needs_no_gradient(out), stacklevel=_first_line_outside_tinyad())
    else:
        # Inputs that need a gradient went in, and none came out: fn cut them off on purpose
        # (x.detach()) or by a slip (no_grad() inside fn). Without checkpoint, backward() from
        # this output alone would refuse; here the walk goes on, so it is said.
        warnings.warn(_cut_off(out), stacklevel=_first_line_outside_tinyad())
    for t, x in zip(out.parents, inputs):
        if t.requires_grad:
            # An input fn cut itself off from (x.detach() inside fn) gets 0, as a cut input would
            # without checkpoint; the walk then goes on through the nodes behind it.
            t.accumulate(x.grad if x.has_grad() else t.xp.zeros_like(t.data))


def _needs_no_gradient(out: Tensor) -> str:
    """The warning for a checkpointed block that nothing needing a gradient went into: a frozen
    block is right to pass none on, but without checkpoint a forgotten requires_grad=True would
    have made backward refuse, and here the walk would fill nothing in silence."""
    return (
        f"checkpoint: the block's output (shape {out.shape}) needs no gradient: neither the tensors "
        "passed to checkpoint nor the ones fn reads (its parameters) require grad, so it passes no "
        "gradient on. Right for a frozen block; to train its parameters, give them requires_grad=True"
    )


def _cut_off(out: Tensor) -> str:
    """The warning for a block whose inputs need a gradient while its recomputed output does not."""
    return (
        f"checkpoint: the block's output (shape {out.shape}) needs no gradient, though tensors passed "
        "to checkpoint do: fn computed it without recording (no_grad() inside fn?) or from detached "
        "inputs, so they get a gradient of 0. Take no_grad() out of fn to train through the block"
    )


def _refuse_another_place(tensors: tuple[Tensor, ...], result: Tensor) -> None:
    """TypeError unless fn's output is in its inputs' library and on their device: the checkpoint
    node takes its inputs' library, and would hold another's array under that name."""
    if not tensors:
        return
    first = tensors[0]
    if not share_place(first, result):
        where = result.xp is first.xp  # the same library, so another device: name both
        instead = ("move it to their device inside fn, or pass inputs on its device" if where
                   else "convert inside fn, or pass inputs of the output's library")
        raise TypeError(
            f"checkpoint: fn returned {describe(result.data, result.xp, where)} from inputs held in "
            f"{describe(first.data, first.xp, where)}: the block's output must be in its inputs' "
            f"library and on their device ({instead})"
        )


def _refuse_another_output(out: Tensor, recomputed: Tensor) -> None:
    """RuntimeError unless recomputing ``fn`` gave the forward pass's output (to rounding): else the
    gradients it passes on are those of another function, in silence."""
    xp = out.xp
    if recomputed.shape == out.shape:
        if out.size == 0:
            return
        difference = float(xp.max(xp.abs(recomputed.data - out.data)))
        if difference <= 1e-6 * (1.0 + float(xp.max(xp.abs(out.data)))):
            return
        what = f"largest difference {difference:.3g}"
    else:
        what = f"shape {recomputed.shape}, where the forward pass gave {out.shape}"
    raise RuntimeError(
        f"checkpoint: recomputing fn in backward gave another output than the forward pass ({what}), "
        "so its gradients would be another function's. fn must give the same output each time: no "
        "fresh random numbers inside it (draw a dropout mask outside fn and pass it in), and nothing "
        "it reads may change between the forward pass and backward() (opt.step() before backward?)"
    )


def _refuse_captured_interior(block: list[Tensor], recomputed: Tensor) -> None:
    """RuntimeError if the recomputed block reaches an interior tensor made outside it."""
    inside = {id(node) for node in block}
    outside = [parent for node in block for parent in node.parents] + [recomputed]
    for t in outside:
        if t.requires_grad and t.backward_rule is not None and id(t) not in inside:
            raise RuntimeError(
                f"checkpoint: fn uses a tensor of shape {t.shape} (the output of {t.op!r}) that "
                "was computed outside fn and needs a gradient; pass it to checkpoint as an "
                "argument, checkpoint(fn, x, that_tensor), so its gradient reaches the graph "
                "behind it"
            )


TINYAD = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _first_line_outside_tinyad() -> int:
    """The ``stacklevel`` that makes a warning of this rule name the first line outside tinyad,
    the caller's ``backward()``: the rule is run by the walk, from inside ``Tensor.backward``, and
    from inside another checkpoint's rule when they nest."""
    frame, level = sys._getframe(2), 2  # the rule that warns is level 1
    while frame is not None and frame.f_code.co_filename.startswith(TINYAD):
        frame, level = frame.f_back, level + 1
    return level
