"""Lesson 06's exercise checks against plausible answers (tests/mutants/lesson06.py).

For each exercise function, in-process and without a kernel: the set-up cells of
solutions/06_arrays.ipynb run, then the exercise's own cell (which defines the function and
anything beside it), then the candidate answer in its place, then the exercise's check cell.
Every wrong answer must fail the check with an AssertionError; every right one must pass.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nbtools  # noqa: E402  (tools/ is a folder of scripts, not a package)

SOLUTION = ROOT / "solutions" / "06_arrays.ipynb"
spec = importlib.util.spec_from_file_location("lesson06_mutants", ROOT / "tests" / "mutants" / "lesson06.py")
mutants = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutants)
MUTANTS = mutants.MUTANTS


def notebook_parts() -> tuple[list[str], dict[str, tuple[str, str]]]:
    """The set-up cells' sources, and for each exercise function its cell and its check cell."""
    code = [c for c in nbformat.read(SOLUTION, as_version=4).cells if c.cell_type == "code"]
    setup, exercises = [], {}
    for k, cell in enumerate(code):
        if "### BEGIN SOLUTION" in cell.source:
            check = code[k + 1]
            assert nbtools.is_check_cell(check), f"no check cell after: {cell.source[:60]}"
            for name in MUTANTS:
                if f"def {name}(" in cell.source:
                    exercises[name] = (cell.source, check.source)
        elif not nbtools.is_check_cell(cell):
            setup.append(cell.source)
    return setup, exercises


SETUP, EXERCISES = notebook_parts()
CASES = [(name, kind, k) for name, entry in MUTANTS.items()
         for kind in ("wrong", "right") for k in range(len(entry[kind]))]


def run_check(name: str, answer: str) -> None:
    namespace: dict = {"__name__": "__lesson06__"}
    cell, check = EXERCISES[name]
    with contextlib.redirect_stdout(io.StringIO()):
        for source in SETUP:
            exec(source, namespace)
        exec(cell, namespace)
        exec(answer, namespace)
        exec(check, namespace)


def test_every_exercise_has_mutants():
    assert set(EXERCISES) == set(MUTANTS)
    for name, entry in MUTANTS.items():
        assert len(entry["wrong"]) >= 4 and len(entry["right"]) >= 1, name


@pytest.mark.parametrize("name, kind, k", CASES, ids=[f"{n}-{kind}{k}" for n, kind, k in CASES])
def test_the_check_tells_wrong_from_right(name, kind, k):
    answer = MUTANTS[name][kind][k]
    if kind == "right":
        run_check(name, answer)
    else:
        with pytest.raises(AssertionError):
            run_check(name, answer)
