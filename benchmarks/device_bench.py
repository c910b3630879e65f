"""One training step of lesson 06's and lesson 09's MLPs on every array library and device present.

    python benchmarks/device_bench.py                   # longer than --quick
    python benchmarks/device_bench.py --quick           # fewer repetitions, batches up to 4,096
    python benchmarks/device_bench.py --dtype float32   # every contender in float32 (a Mac's GPU too)

``--quick`` took about 8 s on 2 idle CPU cores without a GPU (20 s with JAX); the full run takes longer.

The engine computes with the library its arrays come from (the Python array API standard), so the
same tinyad code runs on NumPy, on PyTorch's CPU tensors, on JAX's and, where there is a GPU, on
PyTorch's CUDA tensors, on CuPy, on JAX's GPU arrays, and on a Mac's GPU through PyTorch
(``"mps"``, which holds no float64: it is measured with ``--dtype float32``). Each row times one
training step, the engine unchanged:

- ``numpy (by hand)``: the same step written out with NumPy, forward and backward, no graph: the
  floor for any engine built on NumPy;
- ``tinyad on <library>``: zero the gradients, forward, loss, backward, SGD update, with the
  parameters in that library and on its device.

Two networks: lesson 06's MLP 2-8-1 (tanh; its forward pass as the lesson writes it, the loss
as one ``functional.mse`` node where the lesson writes ``((forward(...) - Y) ** 2).mean()``) and
lesson 09's MLP 64-128-10 (ReLU, cross-entropy), in float64 (or ``--dtype float32``), SGD with lr
0.01, at batch sizes 16 to 16,384 (powers of 4).
Every step starts from the batch as NumPy arrays in the host's memory, as a data loader hands it
over, and puts it in the library (for a GPU: copies it to the device) inside the timed step. The
parameters stay in their library and on their device throughout.

A GPU launches kernels without waiting for them to finish, and JAX returns before its arrays are
computed even on the CPU, so every timed group of steps ends by waiting for the last step's
result (``torch.cuda.synchronize()``, ``jax.block_until_ready``) before the clock is read. The CPU
libraries use one thread each (``--threads``; OMP/OPENBLAS/MKL_NUM_THREADS set before NumPy is
imported, ``torch.set_num_threads``, and for JAX, on Linux, the process kept to that many cores).
PyTorch, JAX and CuPy are optional: what is not installed, or finds no GPU, is left out and said
so in one line.
"""

from __future__ import annotations

import argparse
import os

PARSER = argparse.ArgumentParser(description=__doc__.split("\n")[0])
PARSER.add_argument("--quick", action="store_true", help="fewer repetitions, batch sizes up to 4,096")
PARSER.add_argument("--threads", type=int, default=1, help="threads of the CPU libraries (default 1)")
PARSER.add_argument("--dtype", choices=["float64", "float32"], default="float64",
                    help="the dtype of every contender (default float64; a Mac's GPU needs float32)")
ARGS = PARSER.parse_args() if __name__ == "__main__" else PARSER.parse_args([])
if ARGS.threads < 1:
    PARSER.error(f"--threads must be 1 or more, got {ARGS.threads}")

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = str(ARGS.threads)  # before NumPy is imported: BLAS reads it once, at load time
# JAX sizes its pool of threads from the cores the process may run on, and no setting of its own
# changes that (XLA's flags once did): on Linux the process is kept to --threads cores, before JAX
# is imported. Elsewhere JAX's column is measured on all cores, and the script says so.
PINNED = __name__ == "__main__" and hasattr(os, "sched_setaffinity")
if PINNED:
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:ARGS.threads])

import platform  # noqa: E402
import time  # noqa: E402
from typing import Any, Callable, NamedTuple  # noqa: E402

import numpy as np  # noqa: E402

from tinyad import Tensor  # noqa: E402
from tinyad.optim import SGD  # noqa: E402
from tinyad.tensor import functional as F  # noqa: E402
from tinyad.tensor import nn  # noqa: E402

from machine import cpu_model  # noqa: E402  (benchmarks/machine.py, beside this script)
from tensor_bench import LR, numpy_mlp  # noqa: E402  (beside this script; numpy_mlp steps with its LR)


class Library(NamedTuple):
    """An array library on one device: its array API namespace, and how to wait for a step's result
    (``synchronise(result)``, given what the step returned)."""

    name: str
    xp: Any
    device: Any
    synchronise: Callable[[Any], None]
    gpu: bool


def nothing(result: Any) -> None:
    """A CPU library's synchronisation: its calls return when they have finished."""


def wait_for_device(wait: Callable[[], None]) -> Callable[[Any], None]:
    """The synchronisation of a library that waits for its whole device (PyTorch's GPUs, CuPy)."""
    return lambda result: wait()


def block_until_ready(result: Any) -> None:
    """JAX's synchronisation: wait until the array a step returned (its loss) is computed."""
    import jax

    jax.block_until_ready(result.data if isinstance(result, Tensor) else result)


def libraries() -> tuple[list[Library], list[str]]:
    """Every library and device present, and a line for each one that is not (or finds no GPU)."""
    found = [Library("numpy", np, None, nothing, False)]
    missing = []
    try:
        import torch

        import array_api_compat.torch as torch_xp

        torch.set_num_threads(ARGS.threads)
        found.append(Library("torch cpu", torch_xp, "cpu", nothing, False))
        if torch.cuda.is_available():
            found.append(Library("torch cuda", torch_xp, "cuda", wait_for_device(torch.cuda.synchronize), True))
        else:
            missing.append("torch.cuda.is_available() is False")
        if torch.backends.mps.is_available():  # a Mac's GPU, which holds no float64
            if ARGS.dtype == "float32":
                found.append(Library("torch mps", torch_xp, "mps", wait_for_device(torch.mps.synchronize), True))
            else:
                missing.append("a Mac's GPU (torch mps) holds no float64: measure it with --dtype float32")
    except ImportError:
        missing.append("PyTorch is not installed")
    try:
        import jax

        jax.config.update("jax_enable_x64", ARGS.dtype == "float64")  # JAX keeps float32 unless told
        import jax.numpy as jax_xp

        found.append(Library("jax cpu", jax_xp, jax.devices("cpu")[0], block_until_ready, False))
        try:
            found.append(Library("jax gpu", jax_xp, jax.devices("gpu")[0], block_until_ready, True))
        except RuntimeError:  # JAX's answer where it has no GPU backend
            missing.append("JAX finds no GPU")
    except ImportError:
        missing.append("JAX is not installed")
    try:
        import cupy

        import array_api_compat.cupy as cupy_xp

        if cupy.cuda.runtime.getDeviceCount() > 0:
            found.append(Library("cupy", cupy_xp, None, wait_for_device(cupy.cuda.Device().synchronize), True))
        else:
            missing.append("CuPy finds no GPU")
    except ImportError:
        missing.append("CuPy is not installed")
    except Exception as error:  # CuPy installed without a driver or a GPU
        missing.append(f"CuPy finds no GPU ({type(error).__name__})")
    return found, missing


# -- the two networks --------------------------------------------------------------------------


class Case(NamedTuple):
    """A network: its sizes, how to make a batch, and the tinyad and hand-written steps."""

    name: str
    sizes: list[int]
    batch_data: Callable[[int], tuple[np.ndarray, np.ndarray]]
    tinyad_step: Callable[[Library], Callable[[np.ndarray, np.ndarray], Any]]
    numpy_step: Callable[[], Callable[[np.ndarray, np.ndarray], float]]


def moons_like(batch: int) -> tuple[np.ndarray, np.ndarray]:
    """Points in the plane and a target 0 or 1 each, of shape (batch, 2) and (batch, 1), seeded."""
    rng = np.random.default_rng(batch)
    return rng.normal(size=(batch, 2)), rng.integers(0, 2, size=(batch, 1)).astype(np.float64)


def digits_like(batch: int) -> tuple[np.ndarray, np.ndarray]:
    """Random 8 x 8 "images" (batch, 64) and labels 0-9 (batch,), seeded."""
    rng = np.random.default_rng(batch)
    return rng.normal(size=(batch, 64)), rng.integers(0, 10, size=batch)


# A tinyad step returns its loss as a Tensor, not a float: reading the number (item()) would make a
# GPU wait for the step to finish inside every call, and the timing synchronises once per group.


def lesson06_tinyad(library: Library) -> Callable[[np.ndarray, np.ndarray], Any]:
    """Lesson 06's step: the lesson's forward ``(X @ W1 + b1).tanh() @ W2 + b2``, the loss as one
    ``F.mse`` node (the lesson writes ``((forward(...) - Y) ** 2).mean()``), SGD."""
    W1, b1, W2, b2 = params = nn.MLP(2, [8, 1], seed=0, dtype=ARGS.dtype, xp=library.xp,
                                     device=library.device).parameters()
    optimiser = SGD(params, lr=LR)
    xp, device = library.xp, library.device

    def step(points: np.ndarray, targets: np.ndarray) -> float:
        X, Y = Tensor(xp.asarray(points, device=device)), Tensor(xp.asarray(targets, device=device))
        optimiser.zero_grad()
        loss = F.mse((X @ W1 + b1).tanh() @ W2 + b2, Y)
        loss.backward()
        optimiser.step()
        return loss

    return step


def lesson06_numpy() -> Callable[[np.ndarray, np.ndarray], float]:
    """Lesson 06's step by hand with NumPy (the same initial weights)."""
    params = [p.data.copy() for p in nn.MLP(2, [8, 1], seed=0, dtype=ARGS.dtype).parameters()]

    def step(points: np.ndarray, targets: np.ndarray) -> float:
        W1, b1, W2, b2 = params
        hidden = np.tanh(points @ W1 + b1)
        error = hidden @ W2 + b2 - targets
        loss = np.mean(error * error)
        d_out = 2 * error / error.size
        d_hidden = (d_out @ W2.T) * (1 - hidden * hidden)
        grads = [points.T @ d_hidden, d_hidden.sum(axis=0), hidden.T @ d_out, d_out.sum(axis=0)]
        for p, g in zip(params, grads):
            p -= LR * g
        return loss

    return step


def lesson09_tinyad(library: Library) -> Callable[[np.ndarray, np.ndarray], Any]:
    """Lesson 09's step: ``tensor.nn.MLP`` 64-128-10, ``functional.cross_entropy``, SGD."""
    model = nn.MLP(64, [128, 10], seed=0, dtype=ARGS.dtype, xp=library.xp, device=library.device)
    optimiser = SGD(model.parameters(), lr=LR)
    xp, device = library.xp, library.device

    def step(images: np.ndarray, labels: np.ndarray) -> float:
        x, y = Tensor(xp.asarray(images, device=device)), xp.asarray(labels, device=device)
        optimiser.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimiser.step()
        return loss

    return step


def lesson09_numpy() -> Callable[[np.ndarray, np.ndarray], float]:
    """Lesson 09's step by hand with NumPy: ``tensor_bench.numpy_mlp`` from the same initial weights."""
    return numpy_mlp([64, 128, 10], np.dtype(ARGS.dtype).type, seed=0)


CASES = [
    Case("lesson 06: MLP 2-8-1, tanh, mean squared error", [2, 8, 1], moons_like, lesson06_tinyad, lesson06_numpy),
    Case("lesson 09: MLP 64-128-10, ReLU, cross-entropy", [64, 128, 10], digits_like, lesson09_tinyad,
         lesson09_numpy),
]


# -- measuring ------------------------------------------------------------------------------------


def group_size(step: Callable[[], object], synchronise: Callable[[Any], None], budget: float) -> int:
    """How many calls of ``step`` fill about ``budget`` seconds (at least one), from the fastest of
    three calls: the first calls are slow (memory and caches new to them; on a GPU, loading its
    kernels), and groups sized from them alone would stay short."""
    once = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        synchronise(step())
        once = min(once, time.perf_counter() - start)
    return max(1, min(4 ** 8, round(budget / max(once, 1e-9))))  # a clock too coarse to see one call: 0 s


def measure(steps: dict[str, tuple[Callable[[], object], Callable[[Any], None]]], repeats: int,
            budget: float) -> dict[str, float]:
    """Seconds per step of each ``(step, synchronise)``, from its fastest group of calls: groups that
    fill about ``budget`` seconds, the contenders taking turns in every repetition, starting from a
    different one each time. Work beside the script only ever slows a group down, so the fastest
    is the one least disturbed (lesson 10 times its steps the same way)."""
    numbers = {name: group_size(step, sync, budget) for name, (step, sync) in steps.items()}
    names = list(steps)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            step, synchronise = steps[name]
            start = time.perf_counter()  # each group ended waiting for its last result: nothing runs now
            for _ in range(numbers[name]):
                result = step()
            synchronise(result)
            times[name].append((time.perf_counter() - start) / numbers[name])
    return {name: min(t) for name, t in times.items()}


def first_loss(loss: Any) -> float:
    """A step's loss as a float: a tinyad Tensor's ``item()`` or a NumPy number."""
    return loss.item() if isinstance(loss, Tensor) else float(loss)


def run_case(case: Case, found: list[Library], batches: list[int], repeats: int) -> dict[int, dict[str, float]]:
    """Seconds per step of every contender at every batch size, after checking they agree."""
    results = {}
    for batch in batches:
        data = tuple(array.astype(ARGS.dtype) if array.dtype.kind == "f" else array  # labels stay ints
                     for array in case.batch_data(batch))
        makers = {"numpy (by hand)": (case.numpy_step, nothing)}
        makers.update({f"tinyad on {lib.name}": (lambda lib=lib: case.tinyad_step(lib), lib.synchronise)
                       for lib in found})
        steps = {}
        for name, (make, synchronise) in makers.items():
            step = make()
            steps[name] = ((lambda step=step: step(*data)), synchronise)
        losses = {name: first_loss(step()) for name, (step, _) in steps.items()}
        reference = losses["numpy (by hand)"]
        within = 1e-9 if ARGS.dtype == "float64" else 1e-4  # float32 keeps about 7 digits
        assert all(abs(loss - reference) < within for loss in losses.values()), f"the contenders disagree: {losses}"
        results[batch] = measure(steps, repeats, budget=0.02)
    return results


def overtaking(results: dict[int, dict[str, float]], gpu: str, cpu: str) -> int | None:
    """The smallest batch from which ``gpu`` is faster than ``cpu`` at that and every larger batch."""
    batches = sorted(results)
    for k, batch in enumerate(batches):
        if all(results[b][gpu] < results[b][cpu] for b in batches[k:]):
            return batch
    return None


def show(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} us" if seconds < 1e-2 else f"{seconds * 1e3:,.1f} ms"


def main() -> None:
    found, missing = libraries()
    batches = [4 ** k for k in range(2, 7 if ARGS.quick else 8)]  # 16 to 4,096 or 16,384
    repeats = 3 if ARGS.quick else 7
    versions = {name: __import__(module).__version__ if any(lib.name.startswith(module) for lib in found)
                else "not installed" for name, module in (("PyTorch", "torch"), ("JAX", "jax"))}
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}; Python {platform.python_version()}, "
          f"NumPy {np.__version__}, " + ", ".join(f"{name} {version}" for name, version in versions.items()))
    print(f"CPU threads: {ARGS.threads} (OMP/OPENBLAS/MKL_NUM_THREADS before NumPy is imported"
          + ("; torch.set_num_threads" if versions["PyTorch"] != "not installed" else "")
          + ("; the process kept to as many cores" if PINNED else
             "; JAX's threads are not limited here (no sched_setaffinity)" if versions["JAX"] != "not installed"
             else "") + ")")
    gpus = [lib for lib in found if lib.gpu]
    if gpus:
        print("GPU: " + ", ".join(lib.name for lib in gpus))
    else:
        print(f"No GPU here ({'; '.join(missing)}): measuring the CPU libraries only.")
    print()

    for case in CASES:
        results = run_case(case, found, batches, repeats)
        names = list(results[batches[0]])
        print(f"{case.name}, {ARGS.dtype}, SGD: time per training step (the fastest of {repeats} groups)")
        print()
        print("| batch | " + " | ".join(names) + " |")
        print("|---:|" + "---:|" * len(names))
        for batch in batches:
            print(f"| {batch:,} | " + " | ".join(show(results[batch][name]) for name in names) + " |")
        print()
        for gpu in gpus:
            for cpu in [name for name in names if not any(other.gpu and name == f"tinyad on {other.name}"
                                                          for other in gpus)]:
                at = overtaking(results, f"tinyad on {gpu.name}", cpu)
                where = f"from batch {at:,} on" if at else f"at none of the batch sizes up to {batches[-1]:,}"
                print(f"tinyad on {gpu.name} is faster than {cpu} {where}")
        if gpus:
            print()
    print("Every step starts from the batch in the host's memory as NumPy arrays and puts it in the "
          "library (copies it to a GPU) inside the timed step; each group waits for its last result "
          "(a GPU, JAX) before the clock is read.")


if __name__ == "__main__":
    main()
