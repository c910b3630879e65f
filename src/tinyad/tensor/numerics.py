"""Exponentials that neither overflow nor underflow, for the stable ops.

``exp(z)`` for ``z <= 0`` lies in ``(0, 1]``, so it cannot overflow; the stable
softmax and sigmoid only ever exponentiate such numbers. Far below zero it
underflows to a subnormal number or to 0, which NumPy reports as a floating
point error when errors are raised. Such a term is smaller than the precision of
the sum it goes into, so ``exp_nonpositive`` gives exactly 0 for it instead.
"""

from __future__ import annotations

import numpy as np

# Below these, exp(z) is negligible next to 1 and, squared, would underflow.
_FLOOR = {
    np.dtype(np.float32): float(np.log(np.finfo(np.float32).tiny)) / 2,  # about -43.7
    np.dtype(np.float64): float(np.log(np.finfo(np.float64).tiny)) / 2,  # about -354.2
}


def exp_nonpositive(z: np.ndarray) -> np.ndarray:
    """``exp(z)`` for an array with ``z <= 0``; entries below the floor give exactly 0."""
    floor = _FLOOR.get(z.dtype, _FLOOR[np.dtype(np.float64)])
    out = np.zeros_like(z)
    np.exp(z, out=out, where=z > floor)
    return out
