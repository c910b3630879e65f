"""The Graphviz ``dot`` program, where it is installed.

Without it a drawing lists its values and its DOT text (the course's fallback); the tests that
look at the rendered SVG and PNG are skipped, with this reason. The ``no_dot`` fixture
(tests/conftest.py) gives a test a machine without it, in a session that has shown no drawing yet.
"""

import shutil

import pytest

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="the Graphviz dot program is not installed")

