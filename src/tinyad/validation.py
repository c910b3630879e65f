"""Argument checks shared by the networks, the optimisers, gradcheck, checkpoint, the data sets and
the two engines' constructors (``as_real``: which numbers ``Value`` and ``Tensor`` take).

A size that is 0, negative or not a whole number would otherwise surface later as a
ZeroDivisionError in an initialiser or an empty network that returns its input; a
setting (a learning rate, a step, a noise level) that is nan or out of range would
silently corrupt every number computed from it.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np


def type_name(x: Any) -> str:
    """The name of ``x``'s type for an error message. A type of another library named as one of
    tinyad's is named with its library: PyTorch's tensor is ``torch.Tensor``, never a bare
    ``Tensor`` that reads as tinyad's own ("must be a Tensor, got Tensor")."""
    cls = type(x)
    library = cls.__module__.partition(".")[0]
    if library != "tinyad" and cls.__name__ in ("Tensor", "Value"):
        return f"{library}.{cls.__name__}"
    return cls.__name__


def check_function(f: Any, who: str) -> None:
    """A TypeError unless ``f`` can be called: where a function belongs, its result (``gradcheck(f(x),
    x)``) would otherwise fail inside ``who``, in Python's words ("'Value' object is not callable")."""
    if not callable(f):
        raise TypeError(
            f"{who} needs a function first, got a {type_name(f)} ({f!r:.60}): pass the function itself, "
            f"not its result: {who}(f, x), not {who}(f(x), x) (an expression becomes a function with "
            f"lambda: {who}(lambda x: x * 2, x))"
        )


def check_flag(value: Any, name: str) -> bool:
    """``value`` as a bool, or a TypeError naming ``name``: anything but True or False (or a NumPy
    bool) is refused, where Python would take any truthy value ("relu", 0.5) as True."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")


def check_count(n: Any, name: str, least: int = 1) -> None:
    """``n`` is a whole number ``>= least``, or a ValueError naming ``name`` and ``n``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < least:
        raise ValueError(f"{name} must be an int >= {least}, got {n!r}")


def check_seed(seed: Any, who: str) -> int | None:
    """A network's ``seed``: None, or a whole number >= 0 as a Python int (a NumPy integer too),
    or a TypeError or ValueError naming ``who``'s seed (a float passed where an argument before it
    belongs lands here, as in ``MLP(2, [4, 1], 0.01)``)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{who}'s seed must be None or an int >= 0, got {type_name(seed)} {seed!r:.60}")
    if seed < 0:
        raise ValueError(f"{who}'s seed must be None or an int >= 0, got {seed}")
    return int(seed)


def layer_sizes(nouts: Any, who: str) -> list[int]:
    """The output sizes of an MLP's layers as a list: at least one, each an int >= 1."""
    if isinstance(nouts, (int, np.integer)) or not hasattr(nouts, "__iter__"):
        raise TypeError(f"{who}'s nouts must be a list of layer sizes, like [16, 1], got {nouts!r}")
    sizes = list(nouts)
    if not sizes:
        raise ValueError(f"{who} needs at least one layer: nouts is empty")
    for k, n in enumerate(sizes):
        check_count(n, f"{who}'s nouts[{k}]")
    return sizes


def check_setting(name: str, value: Any, low: float, high: float | None = None,
                  low_allowed: bool = True) -> float:
    """``value`` as a float, if it is a finite real number with ``low <= value < high``.

    ``low < value`` when not ``low_allowed``; no upper bound when ``high`` is None. Anything
    else is a TypeError or ValueError naming ``name`` and ``value``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    bounds = f"{'>=' if low_allowed else '>'} {low:g}" + (f" and < {high:g}" if high is not None else "")
    try:
        number = float(value)
    except OverflowError:  # an int beyond any float
        raise ValueError(f"{name} must be a finite number {bounds}, got an int of "
                         f"{len(str(abs(value)))} digits") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number {bounds}, got {value}")
    too_low = number < low if low_allowed else number <= low
    if too_low or (high is not None and number >= high):
        raise ValueError(f"{name} must be {bounds}, got {value}")
    return number


def as_real(x: Any, who: str) -> float:
    """``x`` as a float if it is a real number (a ``numbers.Real``: int, float, Fraction, NumPy's).

    Both engines take numbers this way. Anything else is a TypeError (a Decimal too: it is
    not a ``numbers.Real``), and a number beyond any float a ValueError, each naming ``who``.
    """
    if not isinstance(x, numbers.Real):
        shape = getattr(x, "shape", None)  # not .size: PyTorch's is a method
        what = f"an array of size {math.prod(shape)}" if shape is not None else repr(x)
        raise TypeError(f"{who} needs a real number, got {type_name(x)}: {what}")
    try:
        return float(x)
    except OverflowError:
        raise too_large_for_float(x, who) from None


def too_large_for_float(x: numbers.Real, who: str) -> ValueError:
    """The error for a real number (a huge int or Fraction) that no float can hold."""
    shown = f"an int of {len(str(abs(x)))} digits" if isinstance(x, int) else f"{x!r:.40}..."
    return ValueError(f"{who} needs a finite number, got {shown}, too large for a float (beyond "
                      "about 1.8e+308)")
