"""The seeded toy data sets and the handwritten digits."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from tinyad.course import data

ROOT = Path(__file__).resolve().parent.parent


def test_xor_is_the_truth_table():
    points, labels = data.xor()
    expected = np.where(points[:, 0] != points[:, 1], 1.0, -1.0)
    np.testing.assert_array_equal(labels, expected)
    assert sorted(map(tuple, points.tolist())) == [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]


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
    # Each a whole half circle: the top one from x = 1 round to x = -1, above y = 0.
    assert x[top].min() < -0.9 and x[top].max() > 0.9 and y[top].min() >= 0.0


def test_each_data_set_called_bare_is_the_one_its_defaults_name():
    # API.md names digits' defaults, and every generator defaults to seed 0: a notebook that calls one
    # bare gets the same data from one version of the course to the next.
    same = np.testing.assert_array_equal
    for bare, named in zip(data.moons(), data.moons(100, noise=0.1, seed=0)):
        same(bare, named)
    for bare, named in zip(data.spirals(), data.spirals(300, classes=3, turns=1.0, noise=0.2, seed=0)):
        same(bare, named)
    same(data.sine_sequences(3, 5), data.sine_sequences(3, 5, seed=0, frequencies=(0.3, 0.9)))
    for bare, named in zip(data.parity_sequences(3, 5), data.parity_sequences(3, 5, seed=0)):
        same(bare, named)
    for bare, named in zip(data.digits(), data.digits(test_fraction=0.25, seed=0)):
        same(bare, named)


def test_spirals_classes_and_radius():
    points, labels = data.spirals(300, classes=3, noise=0.0, seed=1)
    assert points.shape == (300, 2)
    assert sorted(np.bincount(labels)) == [100, 100, 100]
    assert np.linalg.norm(points, axis=1).max() <= 1.0


def test_spirals_lie_on_their_arms_and_noise_spreads_the_angle():
    # The angle of a point is 2 pi turns r + 2 pi label / classes, plus the noise: found again
    # from the points, modulo a whole turn.
    for noise in (0.0, 0.2):
        points, labels = data.spirals(3000, classes=3, turns=1.5, noise=noise, seed=1)
        r = np.linalg.norm(points, axis=1)
        assert 0.05 <= r.min() and r.max() <= 1.0
        arm = 2 * np.pi * 1.5 * r + 2 * np.pi * labels / 3
        off = np.angle(np.exp(1j * (np.arctan2(points[:, 1], points[:, 0]) - arm)))  # in (-pi, pi]
        if noise == 0.0:
            np.testing.assert_allclose(off, 0.0, atol=1e-9)
        else:
            assert abs(off.mean()) < 0.02 and 0.18 < off.std() < 0.22


def test_sine_sequences_spread_their_frequencies_and_phases():
    seqs = data.sine_sequences(2000, 5, seed=3)
    w = np.arccos((seqs[:, 2] + seqs[:, 0]) / (2 * seqs[:, 1]))  # s[t+1] + s[t-1] = 2 cos(w) s[t]
    assert 0.3 - 1e-9 <= w.min() < 0.32 and 0.88 < w.max() <= 0.9 + 1e-9
    # s[0] = sin(phase), with the phase anywhere in a whole turn: as often below 0 as above.
    assert abs((seqs[:, 0] < 0).mean() - 0.5) < 0.05
    assert data.sine_sequences(2, 5, frequencies=(0.5, 0.5)).shape == (2, 5)  # one frequency


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
    bits, _ = data.parity_sequences(50, 40, seed=0)
    assert abs(bits.mean() - 0.5) < 0.05  # fair bits: half of them ones


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: data.moons(1), "n must be an int >= 2"),
        (lambda: data.moons(10, noise=-1), "noise must be >= 0"),
        (lambda: data.spirals(10, classes=1), "classes must be an int >= 2"),
        (lambda: data.sine_sequences(3, 1), "length must be an int >= 2"),
        (lambda: data.sine_sequences(3, 5, frequencies=(0.9, 0.3)), "0 < low <= high"),
        (lambda: data.parity_sequences(2.5, 3), "count must be an int"),
        (lambda: data.parity_sequences(2, 0), "length must be an int >= 1"),
        (lambda: data.sine_sequences(0, 5), "count must be an int >= 1"),
        (lambda: data.spirals(2, classes=3), "n must be an int >= 3"),
        (lambda: data.spirals(30, noise=-0.1), "noise must be >= 0"),
    ],
)
def test_bad_arguments_are_named(call, words):
    with pytest.raises(ValueError, match=words):
        call()


# -- the handwritten digits ------------------------------------------------------------

# Images of each digit in the UCI set, 0 to 9.
DIGIT_COUNTS = [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]


def test_digits_shapes_types_and_range():
    x_train, y_train, x_test, y_test = data.digits()
    assert x_train.shape == (1346, 64) and x_test.shape == (451, 64)
    assert y_train.shape == (1346,) and y_test.shape == (451,)
    assert x_train.dtype == np.float64 and y_train.dtype == np.int64
    x = np.vstack([x_train, x_test])
    assert x.min() == 0.0 and x.max() == 1.0
    np.testing.assert_array_equal(np.unique(x * 16), np.arange(17))  # ink counts 0..16, /16
    assert np.bincount(np.concatenate([y_train, y_test])).tolist() == DIGIT_COUNTS


def test_digits_are_the_known_images():
    # The first image of the UCI file is a 0: a ring of ink with an empty middle.
    pixels, labels = data._digits_file()
    assert labels[0] == 0 and labels[1] == 1
    zero = pixels[0].reshape(8, 8)
    assert zero[3:5, 3:5].sum() == 0 and zero[:, 1:3].sum() > 40
    assert int(pixels.sum()) == 561_718  # the sum of every ink count in the UCI file


def test_digits_split_is_seeded_and_covers_every_image_once():
    a, b = data.digits(seed=3), data.digits(seed=3)
    for left, right in zip(a, b):
        np.testing.assert_array_equal(left, right)
    other = data.digits(seed=4)
    assert not np.array_equal(a[2], other[2])
    x_train, _, x_test, _ = a
    rows = {row.tobytes() for row in np.vstack([x_train, x_test])}
    everything = {row.tobytes() for row in data._digits_file()[0].astype(np.float64) / 16}
    assert rows == everything  # (a few images repeat in the data; the sets agree as sets)
    assert len(x_train) + len(x_test) == 1797


@pytest.mark.parametrize("fraction", [0.1, 0.25, 0.5, 0.9])
def test_digits_split_is_stratified(fraction):
    _, y_train, _, y_test = data.digits(test_fraction=fraction, seed=1)
    test_counts = np.bincount(y_test, minlength=10)
    expected = np.floor(fraction * np.array(DIGIT_COUNTS) + 0.5)
    np.testing.assert_array_equal(test_counts, expected)
    np.testing.assert_array_equal(np.bincount(y_train, minlength=10) + test_counts, DIGIT_COUNTS)
    # Shuffled, not sorted by digit.
    assert (np.diff(y_test) != 0).sum() > len(y_test) // 3


@pytest.mark.parametrize(
    "fraction, error, words",
    [
        (0.0, ValueError, "test_fraction must be > 0 and < 1, got 0.0"),
        (1.0, ValueError, "test_fraction must be > 0 and < 1, got 1.0"),
        (10**400, ValueError, "an int of 401 digits"),
        (-0.2, ValueError, "got -0.2"),
        (float("nan"), ValueError, "got nan"),
        (float("inf"), ValueError, "got inf"),
        (0.001, ValueError, "leaves the test set empty"),
        (0.999, ValueError, "leaves the training set empty"),
        ("0.25", TypeError, "test_fraction must be a number"),
        (True, TypeError, "test_fraction must be a number"),
    ],
)
def test_digits_refuses_a_bad_test_fraction(fraction, error, words):
    with pytest.raises(error, match=words):
        data.digits(test_fraction=fraction)


def test_digits_file_is_found_as_package_data():
    found = resources.files("tinyad.course").joinpath("datasets").joinpath("digits.npz")
    assert found.is_file()
    readme = resources.files("tinyad.course").joinpath("datasets").joinpath("README.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in readme and "Alpaydin" in readme


def test_digits_load_from_an_installed_copy(tmp_path):
    # Lay the package out from a copy of the sources as an install does (setuptools' build_py,
    # the step that decides which files go into the wheel), and load the digits there: the
    # data file must travel with the package. build_py needs neither the `wheel` package nor a
    # network, so this works in a bare `python -m venv` with the setuptools it ships.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py", "--build-lib", str(site)],
        cwd=source, capture_output=True, text=True, timeout=120,
    )
    assert built.returncode == 0, built.stderr
    assert (site / "tinyad" / "course" / "datasets" / "digits.npz").is_file(), sorted(p.name for p in site.rglob("*"))
    script = (
        "import tinyad, tinyad.course.data as d; "
        "x, y, xt, yt = d.digits(); "
        "print(tinyad.__file__); print(len(x) + len(xt))"
    )
    # The environment as it is (Windows' Python needs its SYSTEMROOT), but with only the copy on PYTHONPATH.
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)}, timeout=60)
    assert ran.returncode == 0, ran.stderr
    where, count = ran.stdout.split()
    assert Path(where).is_relative_to(site) and count == "1797"


@pytest.mark.parametrize("seed", ["a", 1.5, -1, None, True])
def test_a_seed_must_be_a_whole_number(seed):
    for make in (lambda: data.moons(seed=seed), lambda: data.digits(seed=seed)):
        with pytest.raises(ValueError, match=r"seed must be an int >= 0, got"):
            make()


@pytest.mark.parametrize("make, words", [
    (lambda: data.moons(10, noise=float("nan")), "noise must be a finite number >= 0, got nan"),
    (lambda: data.moons(10, noise="a"), "noise must be a number, got 'a'"),
    (lambda: data.spirals(30, turns=float("nan")), "turns must be a finite number >= 0, got nan"),
    (lambda: data.spirals(30, classes="3"), "classes must be an int >= 2, got '3'"),
])
def test_toy_data_refuses_settings_that_would_make_nan_points(make, words):
    with pytest.raises((TypeError, ValueError), match=words):
        make()


@pytest.mark.parametrize("frequencies", [(0.1, float("inf")), (0.0, 0.5), (0.1, 0.2, 0.3), 0.5, None, ("a", "b")])
def test_sine_sequences_names_bad_frequencies(frequencies):
    # They failed in NumPy's or Python's words ("too many values to unpack", "range exceeds").
    with pytest.raises(ValueError, match="frequencies must"):
        data.sine_sequences(2, 5, frequencies=frequencies)
