"""The seeded toy data sets."""

from __future__ import annotations

import numpy as np
import pytest

from tinyad import data


def test_xor_is_the_truth_table():
    points, labels = data.xor()
    expected = np.where(points[:, 0] != points[:, 1], 1.0, -1.0)
    np.testing.assert_array_equal(labels, expected)


def test_moons_shapes_labels_and_seed():
    points, labels = data.moons(61, noise=0.1, seed=3)
    assert points.shape == (61, 2) and labels.shape == (61,)
    assert (labels == -1).sum() == 30 and (labels == 1).sum() == 31
    again, _ = data.moons(61, noise=0.1, seed=3)
    other, _ = data.moons(61, noise=0.1, seed=4)
    np.testing.assert_array_equal(points, again)
    assert not np.allclose(points, other)
    assert np.abs(points.mean(axis=0)).max() < 0.3  # centred


def test_moons_without_noise_lie_on_their_half_circles():
    points, labels = data.moons(40, noise=0.0, seed=0)
    x, y = points[:, 0] * 1.0 + 0.5, points[:, 1] * 0.5 + 0.25  # undo the centring
    top = labels < 0
    np.testing.assert_allclose(x[top] ** 2 + y[top] ** 2, 1.0)
    np.testing.assert_allclose((x[~top] - 1.0) ** 2 + (y[~top] - 0.5) ** 2, 1.0)


def test_spirals_classes_and_radius():
    points, labels = data.spirals(300, classes=3, noise=0.0, seed=1)
    assert points.shape == (300, 2)
    assert sorted(np.bincount(labels)) == [100, 100, 100]
    assert np.linalg.norm(points, axis=1).max() <= 1.0


def test_sine_sequences_follow_their_sine():
    seqs = data.sine_sequences(5, 20, seed=2)
    assert seqs.shape == (5, 20)
    # A sine satisfies s[t+1] + s[t-1] = 2 cos(w) s[t]: the ratio is the same at every t.
    ratio = (seqs[:, 2:] + seqs[:, :-2]) / (2 * seqs[:, 1:-1])
    np.testing.assert_allclose(ratio, ratio[:, :1] * np.ones_like(ratio), rtol=1e-6, atol=1e-6)
    assert np.all((np.cos(0.9) - 1e-6 <= ratio) & (ratio <= np.cos(0.3) + 1e-6))


def test_parity_is_the_running_parity():
    bits, parity = data.parity_sequences(4, 12, seed=0)
    for row_bits, row_parity in zip(bits, parity):
        ones = 0
        for b, p in zip(row_bits, row_parity):
            ones += int(b)
            assert p == ones % 2


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: data.moons(1), "n must be an int >= 2"),
        (lambda: data.moons(10, noise=-1), "noise must be >= 0"),
        (lambda: data.spirals(10, classes=1), "classes must be an int >= 2"),
        (lambda: data.sine_sequences(3, 1), "length must be an int >= 2"),
        (lambda: data.sine_sequences(3, 5, frequencies=(0.9, 0.3)), "0 < low <= high"),
        (lambda: data.parity_sequences(2.5, 3), "count must be an int"),
    ],
)
def test_bad_arguments_are_named(call, words):
    with pytest.raises(ValueError, match=words):
        call()
