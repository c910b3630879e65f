"""How close the small MLP's step can come to hand-written NumPy in any Python graph engine.

    python benchmarks/bare_graph.py

One SGD step of the MLP 64-128-10 at batch 64 (float64), as in ``tensor_bench.py``, three ways
side by side in one process: hand-written NumPy (``tensor_bench.numpy_mlp``), tinyad, and a
*bare graph*: the least an engine that records a graph and walks it back can do. Its nodes are
a class with five fields, its ops (a fused linear layer, relu, a fused cross-entropy) call the
same NumPy functions as the hand-written step, its walk is an iterative depth-first sort, and
it checks nothing: no shapes, no finiteness, no libraries, no dtypes, no all-or-nothing step.
What it costs over NumPy is what recording and walking a graph costs in Python; what tinyad
costs over it is what tinyad's checks, its array API namespace and its general ops cost.

A fourth line runs tinyad with NumPy's own ``np.sum``, ``np.max``, ... in the place of
``tinyad.tensor.numpy_namespace``'s definitions, which call the compiled loop directly: the
difference is what those definitions save.
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # before NumPy is imported, as in tensor_bench.py

import argparse  # noqa: E402
import contextlib  # noqa: E402
import inspect  # noqa: E402
import statistics  # noqa: E402
from typing import Iterator  # noqa: E402

import numpy as np  # noqa: E402

from tinyad.tensor import nn, numpy_namespace  # noqa: E402
from tensor_bench import (  # noqa: E402  (beside this script)
    LR, measure, median_ratio, mlp_data, numpy_mlp, steps_within, tinyad_mlp)


class Node:
    """An array, its gradient, its parents, its rule and what the rule needs: nothing else."""

    __slots__ = ("data", "grad", "parents", "rule", "saved")

    def __init__(self, data, parents=(), rule=None, saved=None):
        self.data, self.grad, self.parents, self.rule, self.saved = data, None, parents, rule, saved

    def add(self, grad):
        self.grad = grad if self.grad is None else self.grad + grad


def linear(x, w, b):
    return Node(x.data @ w.data + b.data, (x, w, b), linear_rule)


def linear_rule(out):
    x, w, b = out.parents
    w.add(x.data.T @ out.grad)
    b.add(out.grad.sum(axis=0))
    if x.rule is not None:  # the batch itself needs no gradient
        x.add(out.grad @ w.data.T)


def relu(x):
    return Node(np.maximum(x.data, 0), (x,), relu_rule)


def relu_rule(out):
    (x,) = out.parents
    x.add(out.grad * (x.data > 0))


def cross_entropy(x, labels):
    rows = np.arange(len(labels))
    shifted = x.data - x.data.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    loss = np.mean(np.log(s[:, 0]) - shifted[rows, labels])
    return Node(loss, (x,), cross_entropy_rule, (e / s, rows, labels))


def cross_entropy_rule(out):
    (x,) = out.parents
    probabilities, rows, labels = out.saved
    probabilities[rows, labels] -= 1
    x.add(probabilities * (out.grad / len(labels)))


def backward(root):
    order, seen, stack = [], {root}, [(root, iter(root.parents))]
    while stack:
        for parent in stack[-1][1]:
            if parent not in seen:
                seen.add(parent)
                stack.append((parent, iter(parent.parents)))
                break
        else:
            order.append(stack.pop()[0])
    root.grad = 1.0
    for node in reversed(order):
        if node.rule is not None:
            node.rule(node)


def bare_mlp(sizes, dtype):
    model = nn.MLP(sizes[0], sizes[1:], seed=1, dtype=dtype)  # the same initial weights
    params = [Node(p.data.copy()) for p in model.parameters()]

    def step(x, labels):
        for p in params:
            p.grad = None
        h = Node(x)
        for k in range(0, len(params), 2):
            h = linear(h, params[k], params[k + 1])
            if k + 2 < len(params):
                h = relu(h)
        loss = cross_entropy(h, labels)
        backward(loss)
        for p in params:
            p.data -= LR * p.grad
        return float(loss.data)

    return step


@contextlib.contextmanager
def numpys_own_functions() -> Iterator[None]:
    """For a while, NumPy's own ``np.sum``, ``np.max``, ... in the place of the definitions of
    ``tinyad.tensor.numpy_namespace``, which call the compiled loop they end in directly."""
    own = {name: value for name, value in vars(numpy_namespace).items()
           if inspect.isfunction(value) and not name.startswith("_")}
    try:
        for name in own:
            setattr(numpy_namespace, name, getattr(np, name))
        yield
    finally:
        for name, value in own.items():
            setattr(numpy_namespace, name, value)


def main() -> None:
    sizes, batch = [64, 128, 10], 64
    x, labels = mlp_data(sizes[0], batch, sizes[-1], np.float64)
    contenders = {  # name: (step, what it runs within)
        "numpy": (numpy_mlp(sizes, np.float64), contextlib.nullcontext),
        "bare graph": (bare_mlp(sizes, np.float64), contextlib.nullcontext),
        "tinyad": (tinyad_mlp(sizes, np.float64), contextlib.nullcontext),
        "tinyad, NumPy's np.sum & co.": (tinyad_mlp(sizes, np.float64), numpys_own_functions),
    }
    losses = {}
    for name, (step, within) in contenders.items():
        with within():
            losses[name] = step(x, labels)
    assert max(losses.values()) - min(losses.values()) < 1e-9, f"the contenders disagree: {losses}"

    # A hundred steps a call, what each runs within entered once around them. Taking turns, each repetition
    # from another contender, so a busy moment hits them all.
    times = measure({name: steps_within(step, within, x, labels, 100) for name, (step, within) in contenders.items()},
                    repeats=31, inner=1)
    print(f"MLP {'-'.join(map(str, sizes))}, batch {batch}, float64: one SGD step, median of 31 x 100")
    for name, seconds in times.items():
        print(f"  {name:<28} {statistics.median(seconds) * 1e4:7.1f} us   {median_ratio(times, name):.2f}x numpy")


if __name__ == "__main__":
    # No options: --help says what the script measures, and runs nothing.
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    main()
