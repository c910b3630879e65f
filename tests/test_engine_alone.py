"""The engine stands alone: importing it needs none of the course's drawing, widget or plot packages,
and of the packages outside Python's standard library it imports numpy and array_api_compat only
(the other array libraries it can compute with, PyTorch, array_api_strict, CuPy, are optional)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
COURSE_PACKAGES = ("graphviz", "ipywidgets", "matplotlib", "tqdm", "IPython")
ARRAY_LIBRARIES = ("torch", "array_api_strict", "cupy", "jax")
BLOCKED = COURSE_PACKAGES + ARRAY_LIBRARIES

# Put before the test's own code in a fresh interpreter: importing any of the course's
# packages (or a module inside one) fails as it would where it is not installed.
BLOCKER = textwrap.dedent(
    f"""
    import sys

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            top = name.partition(".")[0]
            if top in {BLOCKED!r}:
                raise ModuleNotFoundError(f"No module named {{top!r}}", name=top)
            return None

    sys.meta_path.insert(0, Blocker())
    sys.path.insert(0, {str(SRC)!r})
    """
)


def run_blocked(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_engine_imports_and_runs_without_the_course_packages():
    result = run_blocked(
        """
        before = set(sys.modules)
        from tinyad import Value, Tensor
        import tinyad.graph, tinyad.scalar, tinyad.tensor, tinyad.optim, tinyad.gradcheck
        y = (Value(2.0) * Value(3.0)).tanh()
        y.backward()
        t = (Tensor([1.0, 2.0], requires_grad=True) ** 2).sum()
        t.backward()
        for name in sys.modules:
            assert name.partition(".")[0] not in {"graphviz", "ipywidgets", "matplotlib", "tqdm", "IPython"}, name
        course = [name for name in sys.modules if name == "tinyad.course" or name.startswith(
            ("tinyad.course.", "tinyad.viz", "tinyad.grading", "tinyad.data", "tinyad.score_table"))]
        assert not course, course
        imported = {name.partition(".")[0] for name in set(sys.modules) - before}
        outside = imported - set(sys.stdlib_module_names) - {"tinyad"}
        assert outside == {"numpy", "array_api_compat"}, sorted(outside)
        print("engine ok")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "engine ok"


def test_the_blocker_really_blocks():
    result = run_blocked("import graphviz")
    assert result.returncode != 0 and "No module named 'graphviz'" in result.stderr


def test_draw_names_the_missing_package():
    result = run_blocked(
        """
        import tinyad
        try:
            tinyad.draw
        except ImportError as error:
            print(error)
        else:
            raise SystemExit("tinyad.draw imported without graphviz")
        """
    )
    assert result.returncode == 0, result.stderr
    assert "tinyad.draw needs the package 'graphviz'" in result.stdout
    assert "pip install" in result.stdout


def test_draw_from_the_top_level_is_the_drawing_function():
    import tinyad
    from tinyad.course.viz.drawing import draw

    assert tinyad.draw is draw
    from tinyad import draw as imported

    assert imported is draw
