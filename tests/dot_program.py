"""The Graphviz ``dot`` program, where it is installed.

Without it a drawing still returns its DOT text (the course's fallback); the tests that
look at the rendered SVG and PNG are skipped, with this reason.
"""

import shutil

import pytest

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="the Graphviz dot program is not installed")
