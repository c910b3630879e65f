"""Checkpointing: trade compute for memory by recomputing a block during backward.

A graph keeps every intermediate array alive until backward has used it. For a
deep stack of layers that is most of the memory. ``checkpoint(fn, *tensors)``
runs ``fn`` without recording a graph, keeps only its output, and records a
single node whose backward rule runs ``fn`` again (this time recording), walks
that short graph, and passes the gradients on to ``tensors``. The gradients are
the same; the intermediates of ``fn`` exist only while its own backward runs.

``fn`` must be deterministic. Tensors that need a gradient must either be
passed in ``tensors`` or be leaves (parameters) that ``fn`` uses directly; an
interior tensor of the surrounding graph must be passed in ``tensors``.
"""

from __future__ import annotations

from typing import Callable

from tinyad.tensor import grad_mode
from tinyad.tensor.gradients import accumulate
from tinyad.tensor.tensor import Tensor


def checkpoint(fn: Callable[..., Tensor], *tensors: Tensor) -> Tensor:
    """``fn(*tensors)``, but its intermediates are recomputed in backward instead of kept."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"checkpoint: argument {i} must be a Tensor, got {type(t).__name__}")
    with grad_mode.no_grad():
        result = fn(*tensors)
    if not isinstance(result, Tensor):
        raise TypeError(f"checkpoint: fn must return a Tensor, got {type(result).__name__}")
    out = result.detach()
    # The parameters fn uses are not among ``tensors``, so record the node whenever
    # recording is on: the recomputation in backward finds out what needs a gradient.
    if grad_mode.enabled:
        out.requires_grad = True
        out.parents, out.op, out._backward, out._saved = tensors, "checkpoint", _checkpoint_backward, fn
    return out


def _checkpoint_backward(out: Tensor) -> None:
    fn = out._saved
    inputs = []
    for t in out.parents:
        x = t.detach()
        x.requires_grad = t.requires_grad
        inputs.append(x)
    with grad_mode.enable_grad():
        recomputed = fn(*inputs)
    if recomputed.requires_grad:
        # The inner walk fills the parameters' grads directly and the inputs' copies here.
        recomputed.backward(out.grad)
    for t, x in zip(out.parents, inputs):
        if t.requires_grad and x.grad is not None:
            accumulate(t, x.grad)
