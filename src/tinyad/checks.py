"""Argument checks shared by both engines' networks and the data sets.

A size that is 0, negative or not a whole number would otherwise surface later as a
ZeroDivisionError in an initialiser or an empty network that returns its input.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def check_count(n: Any, name: str, least: int = 1) -> None:
    """``n`` is a whole number ``>= least``, or a ValueError naming ``name`` and ``n``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < least:
        raise ValueError(f"{name} must be an int >= {least}, got {n!r}")


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
