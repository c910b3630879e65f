"""The array libraries other than NumPy that the tests run the array engine on, where installed.

``array_api_strict`` refuses anything outside the Python array API standard, so the engine
passing on it shows it asks for nothing more; PyTorch's CPU tensors are a library people use;
JAX's arrays cannot change once made (no item assignment, and ``+=`` makes a new array), so the
engine passing on them shows it never counts on changing an array in place. A test parametrized
with ``LIBRARIES`` is skipped, with the reason, for a library that is not installed;
``namespace(library)`` is the namespace the test makes its arrays with.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

try:
    import array_api_strict
except ImportError:  # the test extra installs it
    array_api_strict = None
try:
    import array_api_compat.torch as torch_namespace
except ImportError:  # PyTorch is optional
    torch_namespace = None
try:
    import jax

    jax.config.update("jax_enable_x64", True)  # float64, as NumPy's numbers are (JAX's default is float32)
    import jax.numpy as jax_namespace
except ImportError:  # JAX is optional (pip install jax)
    jax_namespace = None

needs_strict = pytest.mark.skipif(
    array_api_strict is None,
    reason="array_api_strict is not installed (pip install array-api-strict, in the test extra)",
)
needs_torch_tensors = pytest.mark.skipif(
    torch_namespace is None, reason="PyTorch is not installed (the torch extra)"
)
needs_jax = pytest.mark.skipif(jax_namespace is None, reason="JAX is not installed (pip install jax)")
LIBRARIES = [
    pytest.param("array_api_strict", marks=needs_strict),
    pytest.param("torch", marks=needs_torch_tensors),
    pytest.param("jax", marks=needs_jax),
]
# Each computes in float64 with NumPy's numbers to this, forward and backward.
TOLERANCE = dict(rtol=1e-12, atol=1e-12)

# Devices of array_api_strict's other than its default, with the float type each computes in.
# It refuses to combine arrays of two devices, as PyTorch and CuPy refuse a GPU's array beside
# the CPU's, so an array that an op or a rule makes without device= fails on these as it would
# on a GPU, on a machine without one. "no_float64" holds no float64, as Apple's GPU in PyTorch
# ("mps") cannot: there the engine computes in float32.
OTHER_DEVICES = {"device1": np.float64, "no_float64": np.float32}


def strict_device(name: str) -> Any:
    """array_api_strict's device ``name``; the test is skipped where this version has none of it
    ("no_float64" came in array_api_strict 2.6)."""
    if array_api_strict is None:
        pytest.skip("array_api_strict is not installed (pip install array-api-strict, in the test extra)")
    try:
        return array_api_strict.Device(name)
    except ValueError:
        pytest.skip(f"array_api_strict {array_api_strict.__version__} has no device {name!r}")


def namespace(library: str) -> Any:
    """The namespace of ``library`` (array_api_compat's for PyTorch)."""
    return {"array_api_strict": array_api_strict, "torch": torch_namespace, "jax": jax_namespace}[library]


def to(xp: Any, array: Any, device: Any = None) -> Any:
    """A NumPy array (or a list) as an array of ``xp``, on ``device`` (the library's default when None)."""
    return xp.asarray(np.asarray(array), device=device)


def kind(xp: Any) -> type:
    """The type of ``xp``'s arrays."""
    return type(xp.asarray(0.0))
