"""Optimisers: SGD (with momentum and weight decay) and Adam.

They read and write only ``p.data`` and ``p.grad``, so the same classes drive
``Value`` parameters (floats) and ``Tensor`` parameters (NumPy arrays). The
update rules are ``torch.optim.SGD``'s and ``torch.optim.Adam``'s, in the same
order of operations, so the same run gives the same numbers in both.
"""

from __future__ import annotations

from typing import Any, Iterable


class Optimizer:
    """Holds the parameters; ``step()`` updates them, ``zero_grad()`` clears their gradients."""

    def __init__(self, params: Iterable[Any], lr: float) -> None:
        self.params = list(params)
        if not self.params:
            raise ValueError("the optimiser got an empty list of parameters")
        if lr <= 0:
            raise ValueError(f"the learning rate must be positive, got lr={lr}")
        self.lr = lr

    def zero_grad(self) -> None:
        # A Value's grad is a float and starts at 0.0; a Tensor's is an array or
        # None, and None means "nothing accumulated yet", as in PyTorch.
        for p in self.params:
            p.grad = 0.0 if isinstance(p.grad, float) else None

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
        if momentum < 0 or weight_decay < 0:
            raise ValueError(
                f"momentum and weight_decay must be >= 0, got {momentum} and {weight_decay}"
            )
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
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"both betas must be in [0, 1), got {betas}")
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
