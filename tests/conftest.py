"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import tinyad.graph

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def walk_calls(monkeypatch: pytest.MonkeyPatch) -> list:
    """The roots that ``tinyad.graph.walk`` is called with during the test, in order: a test
    that something back-propagates through the one shared walk (and replays no walk of its
    own) asserts on this list."""
    calls: list = []
    original = tinyad.graph.walk

    def spy(root, seed):
        calls.append(root)
        return original(root, seed)

    monkeypatch.setattr(tinyad.graph, "walk", spy)
    return calls


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    """No dot program on the PATH (an empty folder), and no install hint shown yet this session."""
    from tinyad.course.viz import drawing

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(drawing, "_hint_shown", False)


@dataclass
class Release:
    """The learners' release of the course, installed in a new virtual environment, and what its
    learners' command printed on its blank exercises (tests/test_build.py checks the release,
    tests/test_exercises.py every check cell of the blanks)."""

    folder: Path
    python: str  # the new environment's interpreter
    installed: str  # what pip printed installing the release, without its dependencies
    grading: str  # what ``python -m pytest --nbval-lax exercises/`` printed in ``folder``
    junit: Path  # that run's report, cell by cell

    def run(self, *command: str) -> str:
        """The new environment's Python run in the release's folder: what it printed."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        done = subprocess.run([self.python, *command], cwd=self.folder, env=env, capture_output=True, text=True,
                              timeout=600)
        return done.stdout + done.stderr


def isolated_venv_with_these_packages(venv: Path) -> str:
    """A new virtual environment that sees the packages of the environment running the tests
    (so nothing downloads) and nothing of the interpreter's own site-packages, whose older or
    stray packages (a second nbval, say) would otherwise be imported instead; its Python.

    The running environment's site-packages folders are listed in a ``.pth`` file: their
    packages import, but their own ``.pth`` files (the course's editable install among
    them) are not read, so the new environment installs and imports its own tinyad."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (new_site,) = [*venv.glob("lib/python*/site-packages"), *venv.glob("Lib/site-packages")]  # Windows: Lib
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (new_site / "test-environment.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    return str(venv / "Scripts" / "python.exe" if os.name == "nt" else venv / "bin" / "python")


@pytest.fixture(scope="session")
def release(tmp_path_factory) -> Release:
    """The release made by tools/build.py, installed, and its blank exercises graded once."""
    sys.path.insert(0, str(ROOT / "tools"))
    import build  # tools/ is a folder of scripts, not a package

    folder = tmp_path_factory.mktemp("release") / "course"
    build.release(folder)
    made = Release(folder, isolated_venv_with_these_packages(folder.parent / "venv"), "", "",
                   folder.parent / "junit.xml")
    made.installed = made.run("-m", "pip", "install", "--no-deps", "--no-build-isolation", "-e", ".")
    made.grading = made.run("-m", "pytest", "--nbval-lax", "exercises/", "-p", "no:cacheprovider",
                            f"--junitxml={made.junit}")
    return made
