"""Neural networks made of Tensors: ``Linear``, ``MLP`` and a tanh ``RNN``.

Parameters are leaf Tensors with ``requires_grad=True``. Their initial values
come from ``numpy.random.default_rng(seed)``: the same seed gives the same
network. Weights are drawn uniformly from ``[-1/sqrt(nin), 1/sqrt(nin)]``, biases
start at 0. ``dtype`` (float64 by default, or float32) sets the parameters' dtype;
``xp`` and ``device`` put them in another array library and on a device (``xp`` the
library's array API namespace, such as ``array_api_compat.torch``; NumPy when None), with
the same numbers.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Sequence

import numpy as np

from tinyad.validation import check_count, check_seed, layer_sizes, no_call, type_name
from tinyad.tensor import functional as F
from tinyad.tensor.backend import NUMPY, check_holds_float64, library
from tinyad.tensor.tensor import Tensor, constant


def _parameter(values: np.ndarray, dtype: Any, xp: ModuleType | None, device: Any) -> Tensor:
    """A leaf that requires a gradient, holding ``values`` in ``dtype``, in ``xp`` on ``device``."""
    array = Tensor(values, dtype=dtype).data
    if (xp is None or xp is NUMPY) and device not in (None, "cpu"):
        raise ValueError(
            f"device={device!r} needs xp=, the array library whose arrays live there (such as "
            "array_api_compat.torch or cupy): NumPy's arrays are in the CPU's memory"
        )
    if xp is not None and xp is not NUMPY:
        if not callable(getattr(xp, "asarray", None)):
            raise TypeError(
                f"xp must be an array library's namespace, a module such as array_api_compat.torch or "
                f"array_api_strict (NumPy's when None); got {type_name(xp)} {xp!r:.40}"
            )
        try:
            array = xp.asarray(array, device=device)
        except (TypeError, ValueError, RuntimeError) as error:  # the library's words for a device it has not
            if array.dtype == np.float64:  # or for float64, on a device that has none (Apple's GPU, "mps")
                check_holds_float64(xp, device, "the parameters are float64 (a layer's default dtype)",
                                    "give dtype='float32' to the layer or network")
            raise ValueError(f"device={device!r} is not a device of {library(xp)}'s arrays ({error})") from None
    return Tensor(array, requires_grad=True)


def _uniform(rng: np.random.Generator, shape: tuple[int, ...], fan_in: int, dtype: Any,
             xp: ModuleType | None = None, device: Any = None) -> Tensor:
    bound = 1.0 / np.sqrt(fan_in)
    return _parameter(rng.uniform(-bound, bound, size=shape), dtype, xp, device)


def _zeros(shape: tuple[int, ...], dtype: Any, xp: ModuleType | None = None, device: Any = None) -> Tensor:
    return _parameter(np.zeros(shape), dtype, xp, device)


class Module:
    """Something with parameters: a layer, a network."""

    def parameters(self) -> list[Tensor]:
        """Every parameter of the module: each module lists its own (a network, its layers')."""
        raise NotImplementedError(
            f"{type(self).__name__} must define parameters(), the list of its parameters and its "
            "layers' (as MLP does: [p for layer in self.layers for p in layer.parameters()])"
        )

    def zero_grad(self) -> None:
        """Clear the gradients of every parameter (they accumulate otherwise)."""
        for p in self.parameters():
            p.zero_grad()

    def __call__(self, *args: Any) -> Tensor:
        """A module's output: each subclass computes it here (PyTorch's modules, in ``forward``)."""
        raise no_call(self)


class Linear(Module):
    """``x @ W + b`` with ``W`` of shape (nin, nout) and ``b`` of shape (nout,); x is (..., nin)."""

    def __init__(self, nin: int, nout: int, seed: int | None = None, dtype: Any = np.float64,
                 xp: ModuleType | None = None, device: Any = None) -> None:
        check_count(nin, "Linear's nin")
        check_count(nout, "Linear's nout")
        rng = np.random.default_rng(check_seed(seed, "Linear"))
        self.W = _uniform(rng, (nin, nout), nin, dtype, xp, device)
        self.b = _zeros((nout,), dtype, xp, device)

    def __call__(self, x: Any) -> Tensor:
        return F.linear(x, self.W, self.b)

    def parameters(self) -> list[Tensor]:
        return [self.W, self.b]

    def __repr__(self) -> str:
        return f"Linear({self.W.shape[0]}, {self.W.shape[1]})"


class MLP(Module):
    """Linear layers in sequence with ReLU between them; the last layer is linear (logits)."""

    def __init__(
        self, nin: int, nouts: Sequence[int], seed: int | None = None, dtype: Any = np.float64,
        xp: ModuleType | None = None, device: Any = None,
    ) -> None:
        rng = np.random.default_rng(check_seed(seed, "MLP"))
        sizes = [nin] + layer_sizes(nouts, "MLP")
        self.layers = [
            Linear(sizes[i], sizes[i + 1], seed=int(rng.integers(2**32)), dtype=dtype, xp=xp, device=device)
            for i in range(len(sizes) - 1)
        ]

    def __call__(self, x: Any) -> Tensor:
        for layer in self.layers[:-1]:
            x = layer(x).relu()
        return self.layers[-1](x)

    def parameters(self) -> list[Tensor]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        sizes = [self.layers[0].W.shape[0]] + [layer.W.shape[1] for layer in self.layers]
        return f"MLP({'-'.join(str(s) for s in sizes)})"


class RNN(Module):
    """A tanh RNN unrolled over time: ``h_t = tanh(x_t @ W_x + h_{t-1} @ W_h + b)``.

    ``rnn(x, h0=None)`` takes ``x`` of shape (T, batch, nin) and an optional initial
    state ``h0`` of shape (batch, nhidden) (zeros by default), and returns the list
    of the T hidden states, each of shape (batch, nhidden); the last is ``[-1]``.
    The same weights are used at every step; the graph has one node per step.
    """

    def __init__(self, nin: int, nhidden: int, seed: int | None = None, dtype: Any = np.float64,
                 xp: ModuleType | None = None, device: Any = None) -> None:
        check_count(nin, "RNN's nin")
        check_count(nhidden, "RNN's nhidden")
        rng = np.random.default_rng(check_seed(seed, "RNN"))
        self.W_x = _uniform(rng, (nin, nhidden), nin, dtype, xp, device)
        self.W_h = _uniform(rng, (nhidden, nhidden), nhidden, dtype, xp, device)
        self.b = _zeros((nhidden,), dtype, xp, device)
        self.nin, self.nhidden = nin, nhidden

    def __call__(self, x: Any, h0: Any = None) -> list[Tensor]:
        W_x = self.W_x
        x = x if isinstance(x, Tensor) else constant(x, W_x, W_x.dtype)
        if x.ndim != 3 or x.shape[2] != self.nin or x.shape[0] == 0:
            raise ValueError(f"RNN({self.nin}, {self.nhidden}) needs x of shape (T, batch, {self.nin}) with "
                             f"T >= 1 time steps, got {x.shape}")
        if h0 is None:
            h = Tensor(W_x.xp.zeros((x.shape[1], self.nhidden), dtype=W_x.dtype, device=W_x.device))
        else:
            h = h0 if isinstance(h0, Tensor) else constant(h0, W_x, W_x.dtype)
            if h.shape != (x.shape[1], self.nhidden):
                raise ValueError(f"RNN needs h0 of shape {(x.shape[1], self.nhidden)}, got {h.shape}")
        states = []
        for t in range(x.shape[0]):
            h = F.rnn_step(x[t], h, self.W_x, self.W_h, self.b)
            states.append(h)
        return states

    def parameters(self) -> list[Tensor]:
        return [self.W_x, self.W_h, self.b]

    def __repr__(self) -> str:
        return f"RNN(nin={self.nin}, nhidden={self.nhidden})"
