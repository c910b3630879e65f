"""The scalar engine against micrograd, measured side by side in one process.

    python -m pip install -e ".[benchmark]"
    python benchmarks/scalar_bench.py            # --repeats 7 unless given

1. One training step (zero grads, forward, loss, backward, SGD update) of an MLP
   2-16-16-1 with tanh on 100 points of a 2-D data set, in tinyad and in micrograd.
   Both run the very same sequence of operations (the network is written once
   below, over whichever Value class it is given); micrograd has no tanh, so it
   gets one written the way its own ops are written.
2. A chain of 1,000,000 tanh nodes: forward and backward seconds.
3. An RNN cell (1 input, 16 hidden) unrolled over T = 1,000 steps.

Medians of several repetitions; lower is better.
"""

from __future__ import annotations

import argparse
import gc
import math
import platform
import random
import statistics
import sys
import time
from typing import Callable

from tinyad import Value, topo_sort
from tinyad.scalar.nn import RNNCell

from machine import cpu_model  # benchmarks/machine.py, beside this script

try:
    from micrograd.engine import Value as MicroValue
except ImportError:  # the benchmark extra is not installed
    MicroValue = None


def micrograd_tanh(v):
    """tanh for micrograd's Value, in micrograd's own style (a closure over the output)."""
    t = math.tanh(v.data)
    out = MicroValue(t, (v,), "tanh")

    def _backward():
        v.grad += (1 - t * t) * out.grad

    out._backward = _backward
    return out


def make_network(value_class, sizes: list[int], seed: int) -> list:
    """Weights and biases of an MLP, as lists of ``value_class`` leaves: [layer][neuron] = (w, b)."""
    rng = random.Random(seed)
    return [
        [
            ([value_class(rng.uniform(-1, 1) / math.sqrt(nin)) for _ in range(nin)], value_class(0.0))
            for _ in range(nout)
        ]
        for nin, nout in zip(sizes[:-1], sizes[1:])
    ]


def forward(network: list, x: list, tanh: Callable) -> list:
    """tanh in every layer but the last."""
    for k, layer in enumerate(network):
        outs = []
        for w, b in layer:
            act = b
            for wi, xi in zip(w, x):
                act = act + wi * xi
            outs.append(tanh(act) if k < len(network) - 1 else act)
        x = outs
    return x


def training_step(network: list, data: list, tanh: Callable, lr: float = 0.05) -> float:
    params = [p for layer in network for w, b in layer for p in (*w, b)]
    for p in params:
        p.grad = 0.0
    loss = 0.0
    for x, y in data:
        d = forward(network, x, tanh)[0] - y
        loss = loss + d * d
    loss = loss * (1.0 / len(data))
    loss.backward()
    for p in params:
        p.data -= lr * p.grad
    return loss.data


def two_moons(n: int, seed: int) -> list:
    rng = random.Random(seed)
    points = []
    for i in range(n):
        t = rng.uniform(0, math.pi)
        if i % 2 == 0:
            x, y = math.cos(t), math.sin(t)
        else:
            x, y = 1 - math.cos(t), 0.5 - math.sin(t)
        points.append(([x + rng.gauss(0, 0.1), y + rng.gauss(0, 0.1)], 1.0 if i % 2 == 0 else -1.0))
    return points


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_mlp_step(repeats: int) -> None:
    data = two_moons(100, seed=0)
    sizes = [2, 16, 16, 1]
    tiny_net = make_network(Value, sizes, seed=1)
    tiny = median_seconds(lambda: training_step(tiny_net, data, Value.tanh), repeats)
    nodes = len(topo_sort(_loss_graph(tiny_net, data)))
    print(f"MLP 2-16-16-1 tanh, 100 points, one step ({nodes:,} nodes):")
    print(f"  tinyad     {tiny * 1e3:9.1f} ms")
    if MicroValue is None:
        print("  micrograd  not installed (pip install -e '.[benchmark]')")
        return
    micro_net = make_network(MicroValue, sizes, seed=1)
    micro = median_seconds(lambda: training_step(micro_net, data, micrograd_tanh), repeats)
    print(f"  micrograd  {micro * 1e3:9.1f} ms")
    print(f"  micrograd / tinyad = {micro / tiny:.1f}x")
    # Where micrograd's time goes: its closures make reference cycles, so its
    # graphs wait for the cyclic garbage collector. With the collector off:
    gc.disable()
    try:
        micro_nogc = median_seconds(lambda: training_step(micro_net, data, micrograd_tanh), repeats)
        tiny_nogc = median_seconds(lambda: training_step(tiny_net, data, Value.tanh), repeats)
    finally:
        gc.enable()
        gc.collect()
    print(
        f"  with gc disabled: tinyad {tiny_nogc * 1e3:.1f} ms, micrograd {micro_nogc * 1e3:.1f} ms "
        f"({micro_nogc / tiny_nogc:.1f}x)"
    )


def _loss_graph(network: list, data: list):
    loss = 0.0
    for x, y in data:
        d = forward(network, x, Value.tanh)[0] - y
        loss = loss + d * d
    return loss * (1.0 / len(data))


def bench_tanh_chain(n: int) -> None:
    x = Value(0.5)
    start = time.perf_counter()
    h = x
    for _ in range(n):
        h = h.tanh()
    mid = time.perf_counter()
    h.backward()
    end = time.perf_counter()
    print(f"tanh chain of {n:,} nodes: forward {mid - start:.2f} s, backward {end - mid:.2f} s")
    print(f"  (micrograd's recursive sort stops near {sys.getrecursionlimit():,} nodes deep)")


def bench_rnn(steps: int, nhidden: int) -> None:
    cell = RNNCell(1, nhidden, seed=0)
    xs = [math.sin(0.1 * t) for t in range(steps)]
    start = time.perf_counter()
    h = [0.0] * nhidden
    loss = 0.0
    for t in range(steps - 1):
        h = cell([xs[t]], h)
        d = h[0] - xs[t + 1]
        loss = loss + d * d
    mid = time.perf_counter()
    loss.backward()
    end = time.perf_counter()
    nodes = len(topo_sort(loss))
    print(
        f"RNN cell 1-{nhidden} unrolled over T = {steps:,} ({nodes:,} nodes): "
        f"forward {mid - start:.2f} s, backward {end - mid:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="repetitions per timing (median)")
    parser.add_argument("--chain", type=int, default=1_000_000, help="length of the tanh chain")
    parser.add_argument("--steps", type=int, default=1_000, help="RNN time steps")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()} ({cpu_model()})")
    bench_mlp_step(args.repeats)
    bench_tanh_chain(args.chain)
    bench_rnn(args.steps, nhidden=16)


if __name__ == "__main__":
    main()
