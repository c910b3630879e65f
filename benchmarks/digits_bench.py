"""Time to 97% test accuracy on the handwritten digits: tinyad against PyTorch, side by side.

    python benchmarks/digits_bench.py            # about a minute on an idle machine
    python benchmarks/digits_bench.py --quick    # three seeds, one repetition each

The training of lesson 09: an MLP 64-128-10 (ReLU), Adam (lr 0.003), batches of 32 in a
seeded shuffle each epoch, inputs standardised with the training set's statistics, float64.
Both contenders start from the same initial weights (tinyad's, copied into PyTorch tensors)
and see the same batches in the same order, so they compute the same numbers and reach 97%
after the same epoch; the clock measures how long each takes to get there: the training
steps and the test-set evaluation after each epoch, until the first evaluation at 97% or more.

- ``tinyad``: ``tensor.nn.MLP``, ``functional.cross_entropy``, ``optim.Adam``;
- ``torch``: PyTorch on the CPU, the same network as ``torch.addmm`` (what ``nn.Linear``
  runs) and ``torch.relu``, ``nn.functional.cross_entropy``, ``torch.optim.Adam``.

One thread each: ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS`` are
set to 1 before NumPy is imported, and PyTorch gets ``torch.set_num_threads(1)``. For each
seed the two take turns, several times, starting from a different one each time; the table
shows medians, and the ratio is the median over runs of tinyad's time over PyTorch's in the
same turn.
"""

from __future__ import annotations

import os

# One BLAS thread, set before NumPy is imported: BLAS reads these once, at load time.
os.environ.update(dict.fromkeys(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"), "1"))

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from machine import cpu_model  # noqa: E402  (benchmarks/machine.py, beside this script)
from tinyad import Tensor, no_grad  # noqa: E402
from tinyad.course.data import digits  # noqa: E402
from tinyad.optim import Adam  # noqa: E402
from tinyad.tensor.functional import cross_entropy  # noqa: E402
from tinyad.tensor.nn import MLP  # noqa: E402

torch = None  # PyTorch is optional: without it the table has tinyad's column only
if importlib.util.find_spec("torch") is not None:
    import torch

    torch.set_num_threads(1)

TARGET, MAX_EPOCHS, LR, BATCH, HIDDEN = 0.97, 40, 0.003, 32, 128


def load() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x_train, y_train, x_test, y_test = digits(test_fraction=0.25, seed=0)
    centre, scale = x_train.mean(axis=0), x_train.std(axis=0) + 0.1
    return (x_train - centre) / scale, y_train, (x_test - centre) / scale, y_test


def epochs_of_batches(n: int, seed: int) -> list[list[np.ndarray]]:
    """The batches of every epoch, drawn in advance so both contenders get the same ones."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(MAX_EPOCHS):
        order = rng.permutation(n)
        out.append([order[s:s + BATCH] for s in range(0, n, BATCH)])
    return out


def run_tinyad(data, start, plan) -> tuple[float, int, float]:
    """Seconds to reach TARGET, the epoch it was reached after, and the accuracy then."""
    x, y, x_test, y_test = data
    model = MLP(64, [HIDDEN, 10])
    for p, a in zip(model.parameters(), start):
        p.data = a.copy()
    optimiser = Adam(model.parameters(), lr=LR)
    begin = time.perf_counter()
    for epoch, batches in enumerate(plan, start=1):
        for idx in batches:
            optimiser.zero_grad()
            cross_entropy(model(Tensor(x[idx])), y[idx]).backward()
            optimiser.step()
        with no_grad():
            accuracy = float(np.mean(model(Tensor(x_test)).data.argmax(axis=1) == y_test))
        if accuracy >= TARGET:
            return time.perf_counter() - begin, epoch, accuracy
    return float("nan"), MAX_EPOCHS, accuracy


def run_torch(data, start, plan) -> tuple[float, int, float]:
    x, y, x_test, y_test = (torch.from_numpy(a) for a in data)
    w1, b1, w2, b2 = (torch.tensor(a, requires_grad=True) for a in start)
    optimiser = torch.optim.Adam([w1, b1, w2, b2], lr=LR)
    plan = [[torch.from_numpy(idx) for idx in batches] for batches in plan]

    def forward(inputs):
        return torch.addmm(b2, torch.relu(torch.addmm(b1, inputs, w1)), w2)

    begin = time.perf_counter()
    for epoch, batches in enumerate(plan, start=1):
        for idx in batches:
            optimiser.zero_grad()
            torch.nn.functional.cross_entropy(forward(x[idx]), y[idx]).backward()
            optimiser.step()
        with torch.no_grad():
            accuracy = float((forward(x_test).argmax(dim=1) == y_test).double().mean())
        if accuracy >= TARGET:
            return time.perf_counter() - begin, epoch, accuracy
    return float("nan"), MAX_EPOCHS, accuracy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three seeds, one repetition each")
    args = parser.parse_args()
    seeds, repeats = (range(3), 1) if args.quick else (range(5), 5)
    data = load()
    contenders = {"tinyad": run_tinyad}
    if torch is not None:
        contenders["torch"] = run_torch
    rows = []
    for seed in seeds:
        start = [p.data.copy() for p in MLP(64, [HIDDEN, 10], seed=seed).parameters()]
        plan = epochs_of_batches(len(data[0]), seed)
        times = {name: [] for name in contenders}
        ratios = []
        for r in range(repeats):
            names = list(contenders)[r % len(contenders):] + list(contenders)[:r % len(contenders)]
            turn = {}
            for name in names:
                seconds, epoch, accuracy = contenders[name](data, start, plan)
                turn[name] = (seconds, epoch, accuracy)
                times[name].append(seconds)
            if "torch" in turn:
                assert turn["tinyad"][1:] == turn["torch"][1:], f"seed {seed}: the two diverged: {turn}"
                ratios.append(turn["tinyad"][0] / turn["torch"][0])
        rows.append((seed, turn["tinyad"][1], turn["tinyad"][2],
                     {name: statistics.median(ts) for name, ts in times.items()},
                     statistics.median(ratios) if ratios else None))

    print(f"Machine: {os.cpu_count()} cores, {cpu_model()}; Python {platform.python_version()}, "
          f"NumPy {np.__version__}" + (f", PyTorch {torch.__version__}" if torch else ""))
    print(f"MLP 64-{HIDDEN}-10, Adam lr {LR}, batch {BATCH}, float64, one thread; "
          f"medians of {repeats} run(s) per seed\n")
    header = "| seed | epochs to 97% | test accuracy then | tinyad (s) |"
    line = "|---|---|---|---|"
    if torch is not None:
        header += " torch (s) | tinyad / torch |"
        line += "---|---|"
    print(header)
    print(line)
    for seed, epoch, accuracy, medians, ratio in rows:
        row = f"| {seed} | {epoch} | {accuracy:.2%} | {medians['tinyad']:.3f} |"
        if torch is not None:
            row += f" {medians['torch']:.3f} | {ratio:.2f}x |"
        print(row)
    if torch is not None:
        overall = statistics.median(r[4] for r in rows)
        print(f"\nmedian over seeds of tinyad / torch: {overall:.2f}x "
              f"({'tinyad no slower' if overall <= 1 else 'tinyad slower'})")


if __name__ == "__main__":
    main()
