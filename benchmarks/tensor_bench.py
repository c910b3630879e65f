"""The array engine against hand-written NumPy and PyTorch, side by side in one process.

    python benchmarks/tensor_bench.py            # longer than --quick
    python benchmarks/tensor_bench.py --quick    # fewer repetitions

``--quick`` took about 10 s on 2 idle CPU cores; the full run takes longer.

Each MLP case times one training step of the same network (forward, cross-entropy, backward,
SGD update), and the RNN case forward and backward only (loss ``mean(h_T ** 2)``, no
optimiser), three to five ways:

- ``numpy``: forward and backward written out by hand with NumPy, the floor that
  any NumPy-based engine can at best reach (same ops, no graph);
- ``tinyad``: the engine as a learner uses it (``tensor.nn`` modules, whose
  ``Linear`` and ``RNN`` step are single nodes in ``tensor.functional``);
- ``tinyad (ops)``: the same network written from the engine's primitive ops
  (``x @ W + b``, ``.relu()``, ``.tanh()``), one node per op;
- ``torch``: PyTorch on the CPU, when it is installed; for the RNN also
  ``torch (by hand)``, the NumPy loop written with PyTorch's kernels and no autograd,
  so that each engine's autograd can be set over its own library's floor.

Cases: an MLP 784-256-10 at batch 256 (float32 and float64), an MLP 64-128-10
at batch 64 (where the per-op overhead dominates), a tanh RNN with T = 100,
batch 32, 32 inputs and 128 hidden units (forward and backward), and the peak
memory (tracemalloc) of one step of the first MLP. After the table: the RNN's page
faults per step, where the system has them counted.

All contenders use one BLAS thread: ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``
and ``MKL_NUM_THREADS`` are set to 1 before NumPy is imported, and PyTorch gets
``torch.set_num_threads(1)``. The contenders take turns within every repetition,
so a busy moment on a shared machine hits all of them; the table shows medians.
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # a script that imports this one for its steps sets its own threads
    for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_name] = "1"  # before NumPy is imported: BLAS reads it once, at load time

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from contextlib import AbstractContextManager  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

from tinyad import Tensor  # noqa: E402
from tinyad.optim import SGD  # noqa: E402
from tinyad.tensor import functional as F  # noqa: E402
from tinyad.tensor import nn  # noqa: E402

from machine import cpu_model  # noqa: E402  (benchmarks/machine.py, beside this script)

try:
    import resource  # page fault counts; not on Windows
except ImportError:
    resource = None

try:
    import torch
except ImportError:  # PyTorch is optional
    torch = None

LR = 0.01


# -- the MLP, four ways --------------------------------------------------------------


def mlp_data(nin: int, batch: int, classes: int, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(batch, nin)).astype(dtype), rng.integers(0, classes, size=batch)


def numpy_mlp(sizes: list[int], dtype: type, seed: int = 1) -> Callable[[np.ndarray, np.ndarray], float]:
    """One SGD step of a ReLU MLP with softmax cross-entropy, forward and backward by hand."""
    model = nn.MLP(sizes[0], sizes[1:], seed=seed, dtype=dtype)  # the same initial weights
    params = [p.data.copy() for p in model.parameters()]

    def step(x: np.ndarray, labels: np.ndarray) -> float:
        weights, biases = params[0::2], params[1::2]
        activations, pre = [x], []
        for i, (w, b) in enumerate(zip(weights, biases)):
            z = activations[-1] @ w + b
            pre.append(z)
            activations.append(np.maximum(z, 0) if i < len(weights) - 1 else z)
        logits = activations[-1]
        batch, rows = len(labels), np.arange(len(labels))
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(s[:, 0]) - shifted[rows, labels]))
        grad = e / s
        grad[rows, labels] -= 1
        grad /= batch
        for i in reversed(range(len(weights))):
            if i < len(weights) - 1:
                grad = grad * (pre[i] > 0)
            dw, db = activations[i].T @ grad, grad.sum(axis=0)
            if i:
                grad = grad @ weights[i].T
            weights[i] -= LR * dw
            biases[i] -= LR * db
        return loss

    return step


def tinyad_mlp(sizes: list[int], dtype: type) -> Callable[[np.ndarray, np.ndarray], float]:
    """The same step with ``tensor.nn.MLP``, ``functional.cross_entropy`` and ``optim.SGD``."""
    model = nn.MLP(sizes[0], sizes[1:], seed=1, dtype=dtype)
    optimiser = SGD(model.parameters(), lr=LR)

    def step(x: np.ndarray, labels: np.ndarray) -> float:
        optimiser.zero_grad()
        loss = F.cross_entropy(model(Tensor(x)), labels)
        loss.backward()
        optimiser.step()
        return loss.item()

    return step


def tinyad_ops_mlp(sizes: list[int], dtype: type) -> Callable[[np.ndarray, np.ndarray], float]:
    """The same step written from primitive ops: ``x @ W + b`` and ``.relu()``."""
    model = nn.MLP(sizes[0], sizes[1:], seed=1, dtype=dtype)
    layers = [(layer.W, layer.b) for layer in model.layers]
    optimiser = SGD(model.parameters(), lr=LR)

    def step(x: np.ndarray, labels: np.ndarray) -> float:
        optimiser.zero_grad()
        h = Tensor(x)
        for i, (w, b) in enumerate(layers):
            h = h @ w + b
            if i < len(layers) - 1:
                h = h.relu()
        loss = F.cross_entropy(h, labels)
        loss.backward()
        optimiser.step()
        return loss.item()

    return step


def torch_mlp(sizes: list[int], dtype: type) -> Callable[[np.ndarray, np.ndarray], float]:
    """The same step in PyTorch (``nn.Linear`` stores W transposed; the weights are the same)."""
    model = nn.MLP(sizes[0], sizes[1:], seed=1, dtype=dtype)
    modules: list = []
    for i, layer in enumerate(model.layers):
        linear = torch.nn.Linear(*layer.W.shape, dtype=getattr(torch, np.dtype(dtype).name))
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(layer.W.data.T.copy()))
            linear.bias.copy_(torch.from_numpy(layer.b.data))
        modules += [linear, torch.nn.ReLU()] if i < len(model.layers) - 1 else [linear]
    net = torch.nn.Sequential(*modules)
    optimiser = torch.optim.SGD(net.parameters(), lr=LR)

    def step(x: np.ndarray, labels: np.ndarray) -> float:
        optimiser.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(torch.from_numpy(x)), torch.from_numpy(labels))
        loss.backward()
        optimiser.step()
        return loss.item()

    return step


# -- the RNN, five ways ----------------------------------------------------------------


def rnn_data(steps: int, batch: int, nin: int) -> np.ndarray:
    return np.random.default_rng(2).normal(size=(steps, batch, nin))


def rnn_by_hand(xs: Any, w_x: Any, w_h: Any, b: Any, h0: Any, xp: Any) -> float:
    """Forward over T steps, loss mean(h_T ** 2), backward through time by hand.

    ``xp`` is NumPy, or PyTorch (the arrays its tensors, autograd off): the same loop
    with each library's kernels. Returns the loss; the gradients are computed, not kept.
    """
    hs = [h0]
    for t in range(len(xs)):
        hs.append(xp.tanh(xs[t] @ w_x + hs[-1] @ w_h + b))
    h_last = hs[-1]
    loss = float(xp.mean(h_last * h_last))
    dh = 2 * h_last / (h_last.shape[0] * h_last.shape[1])
    dw_x, dw_h, db = xp.zeros_like(w_x), xp.zeros_like(w_h), xp.zeros_like(b)
    for t in reversed(range(len(xs))):
        da = dh * (1 - hs[t + 1] * hs[t + 1])
        dw_x += xs[t].T @ da
        dw_h += hs[t].T @ da
        db += da.sum(0)
        dh = da @ w_h.T
    return loss


def numpy_rnn(nin: int, nhidden: int) -> Callable[[np.ndarray], float]:
    """The RNN's step by hand with NumPy (``rnn_by_hand``)."""
    rnn = nn.RNN(nin, nhidden, seed=3)
    w_x, w_h, b = (p.data for p in rnn.parameters())

    def step(x: np.ndarray) -> float:
        return rnn_by_hand(x, w_x, w_h, b, np.zeros((x.shape[1], nhidden)), np)

    return step


def tinyad_rnn(nin: int, nhidden: int) -> Callable[[np.ndarray], float]:
    """``tensor.nn.RNN`` (one ``rnn_step`` node per time step)."""
    rnn = nn.RNN(nin, nhidden, seed=3)

    def step(x: np.ndarray) -> float:
        rnn.zero_grad()
        h_last = rnn(x)[-1]
        loss = (h_last * h_last).mean()
        loss.backward()
        return loss.item()

    return step


def tinyad_ops_rnn(nin: int, nhidden: int) -> Callable[[np.ndarray], float]:
    """The same RNN from primitive ops: ``(x_t @ W_x + h @ W_h + b).tanh()``."""
    rnn = nn.RNN(nin, nhidden, seed=3)
    w_x, w_h, b = rnn.parameters()

    def step(x: np.ndarray) -> float:
        rnn.zero_grad()
        xs = Tensor(x)
        h = Tensor(np.zeros((x.shape[1], nhidden)))
        for t in range(x.shape[0]):
            h = (xs[t] @ w_x + h @ w_h + b).tanh()
        loss = (h * h).mean()
        loss.backward()
        return loss.item()

    return step


def torch_rnn(nin: int, nhidden: int) -> Callable[[np.ndarray], float]:
    """The same unrolled loop in PyTorch (a Python loop, as in the others, not ``nn.RNN``)."""
    rnn = nn.RNN(nin, nhidden, seed=3)
    w_x, w_h, b = (torch.tensor(p.data, requires_grad=True) for p in rnn.parameters())

    def step(x: np.ndarray) -> float:
        for p in (w_x, w_h, b):
            p.grad = None
        xs = torch.from_numpy(x)
        h = torch.zeros(x.shape[1], nhidden, dtype=torch.float64)
        for t in range(x.shape[0]):
            h = torch.tanh(xs[t] @ w_x + h @ w_h + b)
        loss = (h * h).mean()
        loss.backward()
        return loss.item()

    return step


def torch_rnn_by_hand(nin: int, nhidden: int) -> Callable[[np.ndarray], float]:
    """``rnn_by_hand`` with PyTorch, autograd off: PyTorch's own floor for its loop above.

    PyTorch's kernels are not NumPy's (its float64 tanh takes about half of NumPy's time, its
    small products and elementwise ops longer), so ``torch / numpy`` mixes the kernels and the
    autograd. Over this floor, ``torch / torch (by hand)`` is what PyTorch's autograd alone
    costs, beside ``tinyad (ops) / numpy``.
    """
    rnn = nn.RNN(nin, nhidden, seed=3)
    w_x, w_h, b = (torch.tensor(p.data) for p in rnn.parameters())

    def step(x: np.ndarray) -> float:
        with torch.no_grad():
            h0 = torch.zeros(x.shape[1], nhidden, dtype=torch.float64)
            return rnn_by_hand(torch.from_numpy(x), w_x, w_h, b, h0, torch)

    return step


# -- measuring -----------------------------------------------------------------------------


def measure(steps: dict[str, Callable[[], object]], repeats: int, inner: int,
            faults: dict[str, float] | None = None) -> dict[str, list[float]]:
    """Seconds per call of each step, one entry per repetition.

    The contenders take turns within every repetition, starting from a different
    one each time, so a busy moment on a shared machine hits all of them alike.
    Given a dict ``faults``, it also fills in each one's minor page faults per call (memory
    the process gave back to the system and touches again), where the system counts them.
    """
    for step in steps.values():  # warm up: first calls allocate, fill caches
        step()
        step()
    names = list(steps)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            step = steps[name]
            faults_before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt if resource else 0
            start = time.perf_counter()
            for _ in range(inner):
                step()
            times[name].append((time.perf_counter() - start) / inner)
            if faults is not None and resource is not None:
                counted = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults_before
                faults[name] = faults.get(name, 0) + counted / (inner * repeats)
    return times


def steps_within(step: Callable[[Any, Any], object], within: Callable[[], AbstractContextManager], x: Any,
                 labels: Any, number: int) -> Callable[[], None]:
    """A call that runs ``step(x, labels)`` ``number`` times inside one ``within()`` (bare_graph.py's and
    check_costs.py's timed calls): entered once around them all, so what entering it costs is not charged
    to every step."""
    def run() -> None:
        with within():
            for _ in range(number):
                step(x, labels)
    return run


def median_ratio(times: dict[str, list[float]], name: str, floor: str = "numpy") -> float:
    """The median over repetitions of ``name``'s time over the floor's time in the same repetition."""
    return statistics.median(t / f for t, f in zip(times[name], times[floor]))


def peak_bytes(step: Callable[[], object], repeats: int = 5) -> int:
    """The smallest, over a few runs, of the peak memory one step allocates beyond what it started with."""
    step()
    peaks = []
    for _ in range(repeats):
        gc.collect()
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        step()
        peaks.append(tracemalloc.get_traced_memory()[1] - start)
        tracemalloc.stop()
    return min(peaks)


def mlp_case(sizes: list[int], batch: int, dtype: type, repeats: int, inner: int) -> dict[str, list[float]]:
    x, labels = mlp_data(sizes[0], batch, sizes[-1], dtype)
    makers = {"numpy": numpy_mlp, "tinyad": tinyad_mlp, "tinyad (ops)": tinyad_ops_mlp}
    if torch is not None:
        makers["torch"] = torch_mlp
    steps = {}
    for name, make in makers.items():
        step = make(sizes, dtype)
        steps[name] = lambda step=step: step(x, labels)
    losses = {name: float(step()) for name, step in steps.items()}
    assert max(losses.values()) - min(losses.values()) < 1e-3, f"the contenders disagree: {losses}"
    return measure(steps, repeats, inner)


def rnn_steps(steps_t: int, batch: int, nin: int, nhidden: int) -> dict[str, Callable[[], float]]:
    """One training step of the RNN each way, on one batch; they are checked to agree."""
    x = rnn_data(steps_t, batch, nin)
    makers = {"numpy": numpy_rnn, "tinyad": tinyad_rnn, "tinyad (ops)": tinyad_ops_rnn}
    if torch is not None:
        makers["torch"] = torch_rnn
        makers["torch (by hand)"] = torch_rnn_by_hand
    steps = {}
    for name, make in makers.items():
        step = make(nin, nhidden)
        steps[name] = lambda step=step: step(x)
    losses = {name: float(step()) for name, step in steps.items()}
    assert max(losses.values()) - min(losses.values()) < 1e-9, f"the contenders disagree: {losses}"
    return steps


def rnn_case(steps_t: int, batch: int, nin: int, nhidden: int, repeats: int, inner: int,
             faults: dict[str, float] | None = None) -> dict[str, list[float]]:
    return measure(rnn_steps(steps_t, batch, nin, nhidden), repeats, inner, faults)


def memory_case(dtype: type) -> dict[str, int]:
    sizes, batch = [784, 256, 10], 256
    x, labels = mlp_data(sizes[0], batch, sizes[-1], dtype)
    out = {}
    for name, make in {"numpy": numpy_mlp, "tinyad": tinyad_mlp, "tinyad (ops)": tinyad_ops_mlp}.items():
        step = make(sizes, dtype)
        out[name] = peak_bytes(lambda step=step: step(x, labels))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    scale = 0.3 if args.quick else 1.0
    if torch is not None:
        torch.set_num_threads(1)

    def reps(n: int) -> int:
        return max(3, int(n * scale))

    print(f"machine: {os.cpu_count()} cores, {cpu_model()}; Python {platform.python_version()}, "
          f"NumPy {np.__version__}, PyTorch {torch.__version__ if torch else 'not installed'}")
    print("threads: OMP/OPENBLAS/MKL_NUM_THREADS=1 set before importing NumPy"
          + (f"; torch.get_num_threads() = {torch.get_num_threads()}" if torch else ""))
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    if coretype:
        print(f"note: OPENBLAS_CORETYPE={coretype} is set; it pins NumPy's OpenBLAS kernel "
              "(numpy and tinyad alike; PyTorch has its own BLAS)")
    print()

    rows: list[tuple[str, dict[str, list[float]], str]] = []
    for dtype in (np.float32, np.float64):
        result = mlp_case([784, 256, 10], 256, dtype, reps(60), 1)
        rows.append((f"MLP 784-256-10, batch 256, {np.dtype(dtype).name}", result, "1.15"))
    rows.append(("MLP 64-128-10, batch 64, float64",
                 mlp_case([64, 128, 10], 64, np.float64, reps(100), 10), "1.25"))
    rnn_faults: dict[str, float] = {}
    rows.append(("tanh RNN T=100, batch 32, 32->128, float64",
                 rnn_case(100, 32, 32, 128, reps(40), 1, rnn_faults), "1.5"))

    names = ["numpy", "tinyad", "tinyad (ops)"] + (["torch"] if torch else [])
    header = "| case | " + " | ".join(f"{n} (ms)" for n in names) + " | " + \
        " | ".join(f"{n} / numpy" for n in names[1:]) + " | target for tinyad |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for label, times, target in rows:
        cells = " | ".join(f"{statistics.median(times[n]) * 1e3:.3f}" for n in names)
        ratios = " | ".join(f"{median_ratio(times, n):.2f}x" for n in names[1:])
        print(f"| {label} | {cells} | {ratios} | <= {target}x |")
    print()
    rnn_times = rows[-1][1]
    if torch is not None:
        print("Autograd's own cost on the RNN loop, each engine over the same loop written by hand "
              f"with its own library: tinyad (ops) / numpy {median_ratio(rnn_times, 'tinyad (ops)'):.2f}x, "
              f"torch / torch (by hand) {median_ratio(rnn_times, 'torch', 'torch (by hand)'):.2f}x")
    if rnn_faults:
        print("Page faults per RNN step, in the timed runs (memory given back to the system and "
              "touched afresh): " + ", ".join(f"{name} {count:.0f}" for name, count in rnn_faults.items()))
    print()
    print("| peak memory of one step, MLP 784-256-10, batch 256 | numpy (KiB) | tinyad (KiB) | "
          "tinyad (ops) (KiB) | tinyad / numpy | tinyad (ops) / numpy | target |")
    print("|---|---|---|---|---|---|---|")
    for dtype in (np.float32, np.float64):
        mem = memory_case(dtype)
        print(f"| {np.dtype(dtype).name} | {mem['numpy'] / 1024:.0f} | {mem['tinyad'] / 1024:.0f} | "
              f"{mem['tinyad (ops)'] / 1024:.0f} | {mem['tinyad'] / mem['numpy']:.2f}x | "
              f"{mem['tinyad (ops)'] / mem['numpy']:.2f}x | <= 1.3x |")
    print("\nTimes: median milliseconds per training step. Ratios: median over repetitions of the "
          "contender's time over numpy's time in the same repetition. Memory: peak bytes that "
          "tracemalloc sees one step allocate (PyTorch's allocations are not visible to it).")


if __name__ == "__main__":
    main()
