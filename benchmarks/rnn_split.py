"""The RNN from primitive ops taken apart: where its time over NumPy by hand goes.

    python benchmarks/rnn_split.py    # about 10 s

The RNN of ``tensor_bench.py`` (T = 100, batch 32, 32 inputs, 128 hidden, float64, one thread),
three ways: NumPy by hand, tinyad from primitive ops (``(x_t @ W_x + h @ W_h + b).tanh()``, five
nodes a step) and PyTorch's same loop. Printed: the forward pass alone (with the graph each engine
records), forward and backward (``tensor_bench.rnn_steps``), and each op of one step timed alone,
its arrays in cache, tinyad's against NumPy's. benchmarks/README.md ("Why the RNN from primitive
ops is not ahead of PyTorch's loop") reads these figures.
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # before NumPy is imported: BLAS reads it once, at load time

import statistics  # noqa: E402
import timeit  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

from tinyad import Tensor  # noqa: E402
from tinyad.tensor import nn  # noqa: E402

from machine import cpu_model  # noqa: E402  (beside this script)
from tensor_bench import measure, rnn_data, rnn_steps, torch  # noqa: E402

T, BATCH, NIN, NHIDDEN = 100, 32, 32, 128


def forward_passes(x: np.ndarray) -> dict[str, Callable[[], Any]]:
    """The forward pass alone, each way, keeping what its backward would read."""
    w_x, w_h, b = nn.RNN(NIN, NHIDDEN, seed=3).parameters()

    def numpy() -> list:
        hs = [np.zeros((BATCH, NHIDDEN))]  # the states, as rnn_by_hand keeps them
        for t in range(T):
            hs.append(np.tanh(x[t] @ w_x.data + hs[-1] @ w_h.data + b.data))
        return hs

    def tinyad() -> Tensor:
        xs, h = Tensor(x), Tensor(np.zeros((BATCH, NHIDDEN)))
        for t in range(T):
            h = (xs[t] @ w_x + h @ w_h + b).tanh()
        return (h * h).mean()  # the graph, alive until the result is dropped

    passes = {"numpy": numpy, "tinyad (ops)": tinyad}
    if torch is not None:
        tw_x, tw_h, tb = (torch.tensor(p.data, requires_grad=True) for p in (w_x, w_h, b))

        def torch_loop() -> Any:
            xs, h = torch.from_numpy(x), torch.zeros(BATCH, NHIDDEN, dtype=torch.float64)
            for t in range(T):
                h = torch.tanh(xs[t] @ tw_x + h @ tw_h + tb)
            return (h * h).mean()

        passes["torch"] = torch_loop
    return passes


def one_step_op_by_op(x: np.ndarray) -> dict[str, tuple[float, float]]:
    """Each op of one step timed alone (the best of 5 runs of many calls): (tinyad, NumPy) in us."""
    w_x, w_h, b = nn.RNN(NIN, NHIDDEN, seed=3).parameters()
    xs, h = Tensor(x), Tensor(np.random.default_rng(1).normal(size=(BATCH, NHIDDEN)))
    p, q = xs[0] @ w_x, h @ w_h
    ops = {
        "x[t] @ W_x": (lambda: xs[5] @ w_x, lambda: x[5] @ w_x.data),
        "h @ W_h": (lambda: h @ w_h, lambda: h.data @ w_h.data),
        "+": (lambda: p + q, lambda: p.data + q.data),
        "+ b": (lambda: p + b, lambda: p.data + b.data),
        "tanh": (lambda: p.tanh(), lambda: np.tanh(p.data)),
    }
    number = 5000
    return {name: tuple(min(timeit.repeat(call, number=number, repeat=5)) / number * 1e6 for call in pair)
            for name, pair in ops.items()}


def main() -> None:
    if torch is not None:
        torch.set_num_threads(1)
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}; NumPy {np.__version__}, "
          f"PyTorch {torch.__version__ if torch else 'not installed'}; one thread")
    x = rnn_data(T, BATCH, NIN)
    print(f"\nRNN T={T}, batch {BATCH}, {NIN}->{NHIDDEN}, float64: median ms of 40 calls, taking turns")
    for label, steps in [("forward only", forward_passes(x)),
                         ("forward and backward", rnn_steps(T, BATCH, NIN, NHIDDEN))]:
        times = measure({name: steps[name] for name in steps if name in ("numpy", "tinyad (ops)", "torch")}, 40, 1)
        print(f"  {label:<21}" + "".join(f"{name} {statistics.median(t) * 1e3:6.2f}   "
                                         for name, t in times.items()))
    ops = one_step_op_by_op(x)
    print("\none step's ops, each alone, its arrays in cache (us): tinyad against NumPy")
    for name, (ours, numpys) in ops.items():
        print(f"  {name:<11} {ours:6.2f}  {numpys:6.2f}  (+{ours - numpys:.2f})")
    ours, numpys = (sum(pair[k] for pair in ops.values()) for k in (0, 1))
    print(f"  {'a step':<11} {ours:6.2f}  {numpys:6.2f}  (+{ours - numpys:.2f}: "
          f"{(ours - numpys) * T / 1e3:.2f} ms over T = {T} steps)")


if __name__ == "__main__":
    main()
