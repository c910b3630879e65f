"""Neural networks made of ``Value``s: neurons, layers, MLPs and an RNN cell.

Parameters are leaves of the graph. Their initial values come from
``random.Random(seed)``: the same seed gives the same network.
"""

from __future__ import annotations

import math
import random
from typing import Sequence, Union

from tinyad.validation import check_count, check_flag, check_seed, layer_sizes, no_call
from tinyad.scalar.value import Value

Input = Sequence[Union[Value, float]]


def _child_seed(rng: random.Random) -> int:
    """A seed for a sub-module, drawn from its parent's generator."""
    return rng.getrandbits(32)


def _check_length(x: Input, expected: int, who: str) -> None:
    if not hasattr(x, "__len__"):
        raise TypeError(f"{who} takes a list of {expected} inputs, got {type(x).__name__}: {x!r}")
    if len(x) != expected:
        batch = (f" (a batch of {len(x)} examples? The network takes one example at a time: "
                 "[model(x) for x in X])") if len(x) and hasattr(x[0], "__len__") else ""
        raise ValueError(f"{who} takes {expected} inputs, got {len(x)}{batch}")


class Module:
    """Something with parameters: a neuron, a layer, a network. Each subclass says which."""

    def parameters(self) -> list[Value]:
        """The leaves that training changes. A subclass must say: an empty list here would make
        zero_grad() and every update silently do nothing."""
        raise NotImplementedError(
            f"{type(self).__name__} does not define parameters(): give it a method "
            "parameters(self) that returns the list of its Values that training changes (its "
            "weights and biases, and those of its parts, e.g. [p for n in self.neurons for p in "
            "n.parameters()])"
        )

    def zero_grad(self) -> None:
        """Clear the gradients of every parameter (they accumulate otherwise)."""
        for p in self.parameters():
            p.zero_grad()

    def __call__(self, *args: object) -> object:
        """A module's output: each subclass computes it here (PyTorch's modules, in ``forward``)."""
        raise no_call(self)


class Neuron(Module):
    """``tanh(w . x + b)``, or ``w . x + b`` with ``nonlin=False``: one weight per input."""

    def __init__(self, nin: int, nonlin: bool = True, seed: int | None = None) -> None:
        check_count(nin, "Neuron's nin")
        rng = random.Random(check_seed(seed, "Neuron"))
        scale = 1.0 / math.sqrt(nin)  # keeps w . x of order 1, so tanh does not saturate
        self.w = [Value(rng.uniform(-scale, scale)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = check_flag(nonlin, "Neuron's nonlin (tanh or not)")

    def __call__(self, x: Input) -> Value:
        _check_length(x, len(self.w), "this neuron")
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act.tanh() if self.nonlin else act

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        kind = "tanh" if self.nonlin else "linear"
        return f"Neuron({len(self.w)}, {kind})"


class Layer(Module):
    """``nout`` neurons that all read the same ``nin`` inputs."""

    def __init__(self, nin: int, nout: int, seed: int | None = None, **kw) -> None:
        check_count(nout, "Layer's nout")
        rng = random.Random(check_seed(seed, "Layer"))
        self.neurons = [Neuron(nin, seed=_child_seed(rng), **kw) for _ in range(nout)]

    def __call__(self, x: Input) -> list[Value]:
        return [n(x) for n in self.neurons]

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self) -> str:
        return f"Layer([{', '.join(repr(n) for n in self.neurons)}])"


class MLP(Module):
    """Layers in sequence: tanh in every layer but the last, which is linear."""

    def __init__(self, nin: int, nouts: Sequence[int], seed: int | None = None) -> None:
        rng = random.Random(check_seed(seed, "MLP"))
        sizes = [nin] + layer_sizes(nouts, "MLP")
        last = len(sizes) - 2  # the index of the last layer
        self.layers = [
            Layer(sizes[i], sizes[i + 1], seed=_child_seed(rng), nonlin=i != last)
            for i in range(last + 1)
        ]

    def __call__(self, x: Input) -> list[Value]:
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        sizes = [len(self.layers[0].neurons[0].w)] + [len(layer.neurons) for layer in self.layers]
        return f"MLP({'-'.join(str(s) for s in sizes)})"


class RNNCell(Module):
    """One step of a recurrent network: ``h_t = tanh(W_x x_t + W_h h_{t-1} + b)``.

    ``cell(x, h)`` takes ``x`` of length ``nin`` and ``h`` of length ``nhidden``
    and returns the new hidden state, a list of ``nhidden`` Values. Unrolled over a
    sequence, the same weights are used at every step.
    """

    def __init__(self, nin: int, nhidden: int, seed: int | None = None) -> None:
        check_count(nin, "RNNCell's nin")
        check_count(nhidden, "RNNCell's nhidden")
        rng = random.Random(check_seed(seed, "RNNCell"))
        sx, sh = 1.0 / math.sqrt(nin), 1.0 / math.sqrt(nhidden)
        self.wx = [[Value(rng.uniform(-sx, sx)) for _ in range(nin)] for _ in range(nhidden)]
        self.wh = [[Value(rng.uniform(-sh, sh)) for _ in range(nhidden)] for _ in range(nhidden)]
        self.b = [Value(0.0) for _ in range(nhidden)]
        self.nin, self.nhidden = nin, nhidden

    def __call__(self, x: Input, h: Input) -> list[Value]:
        _check_length(x, self.nin, "this RNN cell's x")
        _check_length(h, self.nhidden, "this RNN cell's h")
        new_h = []
        for wx_row, wh_row, b in zip(self.wx, self.wh, self.b):
            act = b
            for w, xi in zip(wx_row, x):
                act = act + w * xi
            for w, hi in zip(wh_row, h):
                act = act + w * hi
            new_h.append(act.tanh())
        return new_h

    def parameters(self) -> list[Value]:
        return [p for row in self.wx for p in row] + [p for row in self.wh for p in row] + self.b

    def __repr__(self) -> str:
        return f"RNNCell(nin={self.nin}, nhidden={self.nhidden})"
