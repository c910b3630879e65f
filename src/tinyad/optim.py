"""Optimisers: SGD (with momentum and weight decay) and Adam.

They read and write only ``p.data`` and ``p.grad``, so the same classes drive
``Value`` parameters (floats) and ``Tensor`` parameters (NumPy arrays). The
update rules are ``torch.optim.SGD``'s and ``torch.optim.Adam``'s, in the same
order of operations, so the same run gives the same numbers in both.
"""

from __future__ import annotations

import numbers
from typing import Any, Iterable


class Optimizer:
    """Holds the parameters; ``step()`` updates them, ``zero_grad()`` clears their gradients."""

    def __init__(self, params: Iterable[Any], lr: float) -> None:
        self.params = _parameter_list(params)
        _check_setting("lr", lr, low=0.0, low_allowed=False)
        self.lr = lr

    def zero_grad(self) -> None:
        # A Value's grad is a float and starts at 0.0; a Tensor's is an array or
        # None, and None means "nothing accumulated yet", as in PyTorch.
        for p in self.params:
            p.grad = None if hasattr(p.data, "shape") else 0.0

    def step(self) -> None:
        for i, p in enumerate(self.params):
            if p.grad is not None:
                self._update(i, p)

    def _update(self, i: int, p: Any) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    """``p -= lr * g``, where ``g`` is the gradient plus weight decay, through momentum if any.

    The momentum buffer starts as the first gradient, then ``buf = momentum * buf + g``.
    """

    def __init__(
        self, params: Iterable[Any], lr: float, momentum: float = 0.0, weight_decay: float = 0.0
    ) -> None:
        super().__init__(params, lr)
        _check_setting("momentum", momentum, low=0.0)
        _check_setting("weight_decay", weight_decay, low=0.0)
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.buffers: dict[int, Any] = {}

    def _update(self, i: int, p: Any) -> None:
        g = p.grad
        if self.weight_decay:
            g = g + self.weight_decay * p.data
        if self.momentum:
            buf = self.buffers.get(i)
            buf = g * 1.0 if buf is None else self.momentum * buf + g  # g * 1.0: a copy
            self.buffers[i] = buf
            g = buf
        p.data = p.data - self.lr * g


class Adam(Optimizer):
    """Adam with bias correction; ``eps`` is added outside the square root."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        if not (isinstance(betas, (tuple, list)) and len(betas) == 2):
            raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
        for name, beta in zip(("betas[0]", "betas[1]"), betas):
            _check_setting(name, beta, low=0.0, high=1.0)
        _check_setting("eps", eps, low=0.0)
        _check_setting("weight_decay", weight_decay, low=0.0)
        self.betas = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self.t: dict[int, int] = {}
        self.m: dict[int, Any] = {}
        self.v: dict[int, Any] = {}

    def _update(self, i: int, p: Any) -> None:
        beta1, beta2 = self.betas
        g = p.grad
        if self.weight_decay:
            g = g + self.weight_decay * p.data
        t = self.t.get(i, 0) + 1
        m = beta1 * self.m.get(i, 0.0) + (1 - beta1) * g
        v = beta2 * self.v.get(i, 0.0) + (1 - beta2) * g * g
        self.t[i], self.m[i], self.v[i] = t, m, v
        step_size = self.lr / (1 - beta1**t)
        denom = v**0.5 / (1 - beta2**t) ** 0.5 + self.eps
        p.data = p.data - step_size * m / denom


def _parameter_list(params: Any) -> list:
    """``params`` as a list of parameters, or a TypeError that says what to pass instead."""
    what = type(params).__name__
    if callable(getattr(params, "parameters", None)):
        raise TypeError(f"the optimiser got a {what}; pass its parameters: model.parameters()")
    if hasattr(params, "grad"):  # one Value or Tensor: iterating a Tensor would give its rows
        raise TypeError(f"the optimiser got one {what}; pass a list of parameters: [p]")
    try:
        params = list(params)
    except TypeError:
        raise TypeError(f"the optimiser needs a list of parameters, got {params!r}") from None
    if not params:
        raise ValueError("the optimiser got an empty list of parameters")
    for k, p in enumerate(params):
        if not (hasattr(p, "data") and hasattr(p, "grad")):
            raise TypeError(
                f"parameter {k} is a {type(p).__name__}: parameters are Values or Tensors "
                "(the leaves whose .data the optimiser updates from their .grad)"
            )
    return params


def _check_setting(
    name: str, value: Any, low: float, high: float | None = None, low_allowed: bool = True
) -> None:
    """A number in range: ``low <= value`` (``<`` if not ``low_allowed``), ``value < high``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    too_low = value < low if low_allowed else value <= low
    if too_low or (high is not None and value >= high):
        bounds = f"{'>=' if low_allowed else '>'} {low:g}" + (f" and < {high:g}" if high is not None else "")
        raise ValueError(f"{name} must be {bounds}, got {value}")
