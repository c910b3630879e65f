"""PyTorch as the tests' reference, where it is installed.

The course runs without PyTorch, and so does the test command: the tests that
compare with it are skipped, with this reason, and every other test still runs.
"""

import pytest

try:
    import torch
except ImportError:  # not installed: the comparisons are skipped
    torch = None

needs_torch = pytest.mark.skipif(
    torch is None, reason="PyTorch is the reference these tests compare with; not installed"
)
