"""What the checks of the small MLP's step cost: the step timed with one more family of them left out each time.

    python benchmarks/check_costs.py          # about 10 s

One SGD step of the MLP 64-128-10 at batch 64 (float64), as in ``tensor_bench.py`` and
``bare_graph.py``: hand-written NumPy, then tinyad as it is, then tinyad with the checks that
name a learner's slips left out, one family more on each line (each line leaves out its own
family and every family above it). A family is left out by putting a function that checks
nothing in place of the engine's, for the time of that line's runs only; the engine's files
are not changed. The lines are timed as ``tensor_bench.measure`` times its contenders, taking
turns in every repetition, and each ratio is the median, over the repetitions, of a line's time
over NumPy's in the same repetition (``tensor_bench.median_ratio``).

What is left on the last line is the graph itself (nodes, rules, the walk), the array API's
generality (the labels made one-hot, where NumPy alone would index), and the checks too woven
into the code to leave out this way (``accumulate``'s, ``linear``'s shapes). benchmarks/README.md
says what the figures mean for the 1.25x aim.
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # before NumPy is imported, as in tensor_bench.py

import argparse  # noqa: E402
import contextlib  # noqa: E402
import functools  # noqa: E402
import statistics  # noqa: E402
from typing import Any, Callable, Iterator  # noqa: E402

import numpy as np  # noqa: E402

import tinyad.optim  # noqa: E402
import tinyad.tensor.conversion  # noqa: E402
import tinyad.tensor.functional  # noqa: E402
from tensor_bench import (  # noqa: E402  (beside this script)
    measure, median_ratio, mlp_data, numpy_mlp, steps_within, tinyad_mlp)


def labels_one_hot_unchecked(targets: Any, logits: Any) -> Any:
    """``functional._one_hot`` without its checks (library, dtype, shape, range): the one-hot rows alone."""
    xp = logits.xp
    return xp.astype(xp.asarray(targets)[:, None] == xp.arange(logits.shape[1]), logits.dtype)


def step_unguarded(optimiser: Any) -> None:
    """``Optimizer.step`` without its guards: each parameter with a gradient updated, nothing kept to put back."""
    for p, state in zip(optimiser.params, optimiser.state):
        if p.has_grad():
            optimiser.update(p, state)


def nothing(*args: Any) -> None:
    return None


def everything_finite(*args: Any) -> bool:
    return True


# Each family: what it checks, and the engine's functions put aside while it is left out.
FAMILIES: list[tuple[str, list[tuple[Any, str, Callable]]]] = [
    ("the batch's finiteness (Tensor(x))", [(tinyad.tensor.conversion, "all_finite", everything_finite)]),
    ("the optimiser's finiteness test of each new parameter", [(tinyad.optim, "_finite", everything_finite)]),
    ("the optimiser's check of each gradient", [(tinyad.optim, "_check_grad", nothing)]),
    ("the optimiser's all-or-nothing step", [(tinyad.optim.Optimizer, "step", step_unguarded)]),
    ("linear's library and dtype checks", [(tinyad.tensor.functional, "same_place", nothing),
                                           (tinyad.tensor.functional, "one_dtype_for_products", nothing)]),
    ("cross_entropy's label checks", [(tinyad.tensor.functional, "_one_hot", labels_one_hot_unchecked)]),
]


@contextlib.contextmanager
def left_out(families: int) -> Iterator[None]:
    """The first ``families`` families of checks left out (their functions replaced), then put back."""
    kept = []
    try:
        for _, replacements in FAMILIES[:families]:
            for module, name, stand_in in replacements:
                kept.append((module, name, getattr(module, name)))
                setattr(module, name, stand_in)
        yield
    finally:
        for module, name, original in reversed(kept):
            setattr(module, name, original)


STEPS = 100  # training steps per timed call: a line's checks are left out around them all, not around each


def main() -> None:
    sizes, batch = [64, 128, 10], 64
    x, labels = mlp_data(sizes[0], batch, sizes[-1], np.float64)
    lines = [("numpy (by hand)", numpy_mlp(sizes, np.float64), 0),
             ("tinyad as it is", tinyad_mlp(sizes, np.float64), 0)]
    for k, (family, _) in enumerate(FAMILIES, start=1):
        lines.append((f"  without {family}", tinyad_mlp(sizes, np.float64), k))
    losses = []
    for _, step, families in lines:
        with left_out(families):
            losses.append(step(x, labels))
    assert max(losses) - min(losses) < 1e-9, f"the lines disagree: {losses}"

    # tensor_bench's timing: the lines take turns in every repetition, a different one first each time.
    times = measure({name: steps_within(step, functools.partial(left_out, families), x, labels, STEPS)
                     for name, step, families in lines}, repeats=31, inner=1)
    print(f"MLP {'-'.join(map(str, sizes))}, batch {batch}, float64: one SGD step, median of 31 x {STEPS}; "
          "each line leaves out the checks above it too")
    for name, _, _ in lines:
        microseconds = statistics.median(times[name]) / STEPS * 1e6
        print(f"{name:<66} {microseconds:7.1f} us   {median_ratio(times, name, floor=lines[0][0]):.2f}x numpy")


if __name__ == "__main__":
    # No options: --help says what the script measures, and runs nothing.
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    main()
