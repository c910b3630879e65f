"""Small seeded data sets for the lessons: nothing is downloaded at run time.

Each random set takes a ``seed``: the same seed gives the same numbers on every run
and every machine (``xor``'s four points need none). Points come as a float64 array of shape ``(n, 2)``; labels of a
two-class set as ``-1.0`` / ``+1.0`` (the target a tanh output or a squared error
wants), of a many-class set as integers ``0 .. k-1`` (what ``cross_entropy`` wants).

The toy sets are generated; ``digits`` reads real handwritten digits from a small
file installed with the package (``tinyad/course/datasets/``, whose README names the source
and the licence).
"""

from __future__ import annotations

import math
from importlib import resources

import numpy as np

from tinyad.validation import check_count, check_setting


def _generator(seed: int) -> np.random.Generator:
    """``numpy.random.default_rng(seed)`` for a whole-number seed, or a ValueError naming it."""
    check_count(seed, "seed", least=0)
    return np.random.default_rng(seed)


def xor() -> tuple[np.ndarray, np.ndarray]:
    """The four corners of the unit square and their XOR: labels +1 where exactly one input is 1."""
    points = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    labels = np.array([-1.0, 1.0, 1.0, -1.0])
    return points, labels


def moons(n: int = 100, noise: float = 0.1, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved half circles: ``n`` points (first half labelled -1, the rest +1).

    The points are centred on 0 with both axes of similar size, so a small network
    needs no further scaling.
    """
    check_count(n, "n", least=2)
    noise = check_setting("noise", noise, low=0.0)
    rng = _generator(seed)
    n_top = n // 2
    angle = rng.uniform(0.0, np.pi, size=n)
    top = np.column_stack([np.cos(angle[:n_top]), np.sin(angle[:n_top])])
    bottom = np.column_stack([1.0 - np.cos(angle[n_top:]), 0.5 - np.sin(angle[n_top:])])
    points = np.vstack([top, bottom]) + rng.normal(0.0, noise, size=(n, 2))
    points = (points - [0.5, 0.25]) / [1.0, 0.5]
    labels = np.array([-1.0] * n_top + [1.0] * (n - n_top))
    return points, labels


def spirals(
    n: int = 300, classes: int = 3, turns: float = 1.0, noise: float = 0.2, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``classes`` spiral arms winding out from the origin, ``n`` points in all.

    Labels are the arm, ``0 .. classes - 1``. Points lie within the unit disc (plus
    noise). ``noise`` is the spread of the angle, in radians.
    """
    check_count(classes, "classes", least=2)
    check_count(n, "n", least=classes)
    turns = check_setting("turns", turns, low=0.0)
    noise = check_setting("noise", noise, low=0.0)
    rng = _generator(seed)
    labels = np.arange(n) % classes
    radius = rng.uniform(0.05, 1.0, size=n)
    angle = (
        2 * np.pi * turns * radius
        + 2 * np.pi * labels / classes
        + rng.normal(0.0, noise, size=n)
    )
    points = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    return points, labels


def sine_sequences(
    count: int, length: int, seed: int = 0, frequencies: tuple[float, float] = (0.3, 0.9)
) -> np.ndarray:
    """``count`` sequences ``sin(w t + phase)``, ``t = 0 .. length - 1``: shape ``(count, length)``.

    Each has its own frequency ``w`` drawn from ``frequencies`` (radians per step)
    and its own phase, so predicting the next value needs more than the current one.
    """
    check_count(count, "count")
    check_count(length, "length", least=2)
    if (not isinstance(frequencies, (tuple, list)) or len(frequencies) != 2
            or not all(isinstance(f, (int, float, np.integer, np.floating)) and not isinstance(f, bool)
                       for f in frequencies)):
        raise ValueError(f"frequencies must be a pair (low, high) of numbers, got {frequencies!r}")
    low, high = frequencies
    if not 0 < low <= high < np.inf:
        raise ValueError(f"frequencies must satisfy 0 < low <= high, both finite, got {frequencies}")
    rng = _generator(seed)
    w = rng.uniform(low, high, size=(count, 1))
    phase = rng.uniform(0.0, 2 * np.pi, size=(count, 1))
    return np.sin(w * np.arange(length) + phase)


def parity_sequences(count: int, length: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Random bit sequences and their running parity: both of shape ``(count, length)``.

    ``parity[:, t]`` is 1.0 where ``bits[:, :t + 1]`` holds an odd number of ones: a
    task a recurrent network can only solve by carrying state from step to step.
    """
    check_count(count, "count")
    check_count(length, "length")
    rng = _generator(seed)
    bits = rng.integers(0, 2, size=(count, length)).astype(np.float64)
    parity = np.cumsum(bits, axis=1) % 2
    return bits, parity


def digits(
    test_fraction: float = 0.25, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The UCI handwritten digits, split into ``(x_train, y_train, x_test, y_test)``.

    1,797 images of 8 x 8 pixels: ``x`` is float64 of shape ``(n, 64)`` in [0, 1] (the
    pixels row by row, 0..16 ink counts divided by 16), ``y`` the digit as an int64
    ``0 .. 9``. The split is stratified: of each digit's images, ``test_fraction`` (rounded)
    go to the test set, chosen by ``numpy.random.default_rng(seed)``; both sets then come
    in a seeded random order. The same seed gives the same split.

    Data: E. Alpaydin and C. Kaynak, "Optical Recognition of Handwritten Digits", UCI
    Machine Learning Repository (CC BY 4.0); shipped in ``tinyad/course/datasets/digits.npz``.
    """
    test_fraction = check_setting("test_fraction", test_fraction, low=0.0,
                                  high=1.0, low_allowed=False)
    pixels, labels = _digits_file()
    rng = _generator(seed)
    test_parts, train_parts = [], []
    for digit in range(10):
        mine = rng.permutation(np.flatnonzero(labels == digit))
        n_test = int(math.floor(test_fraction * len(mine) + 0.5))
        test_parts.append(mine[:n_test])
        train_parts.append(mine[n_test:])
    test = rng.permutation(np.concatenate(test_parts))
    train = rng.permutation(np.concatenate(train_parts))
    if len(test) == 0 or len(train) == 0:
        raise ValueError(
            f"test_fraction={test_fraction} leaves the {'test' if len(test) == 0 else 'training'} "
            f"set empty ({len(labels)} images, about 180 of each digit)"
        )
    x = pixels.astype(np.float64) / 16.0
    y = labels.astype(np.int64)
    return x[train], y[train], x[test], y[test]


def _digits_file() -> tuple[np.ndarray, np.ndarray]:
    """The shipped pixels (uint8, 0..16, shape (1797, 64)) and labels (uint8, shape (1797,))."""
    with resources.files("tinyad.course").joinpath("datasets").joinpath("digits.npz").open("rb") as f:
        with np.load(f) as npz:
            return npz["pixels"], npz["labels"]
