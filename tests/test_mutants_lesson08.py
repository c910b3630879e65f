"""Lesson 08's exercise checks against plausible answers (tests/mutants/lesson08.py).

In-process, without a kernel: the code cells of solutions/08_memory.ipynb before an exercise's
function cell run (set-up and given code; earlier check cells are skipped), then the exercise's
own cell, then the candidate answer in its place, then the exercise's check cell. A wrong answer
must fail the check with an AssertionError; a right one must pass.
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

SOLUTION = ROOT / "solutions" / "08_memory.ipynb"
_spec = importlib.util.spec_from_file_location("lesson08_mutants", ROOT / "tests" / "mutants" / "lesson08.py")
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
MUTANTS: dict = _module.MUTANTS


def exercise_cells() -> dict[str, tuple[list[str], str, str]]:
    """For each exercise function: the sources to run first, its own cell, and its check cell."""
    code = [c for c in nbformat.read(SOLUTION, as_version=4).cells if c.cell_type == "code"]
    found = {}
    for k, cell in enumerate(code):
        if not nbtools.has_solution(cell):
            continue
        check = code[k + 1]
        assert nbtools.is_check_cell(check), f"no check cell after: {cell.source[:60]}"
        before = [c.source for c in code[:k] if not nbtools.is_check_cell(c)]
        for name in MUTANTS:
            if f"def {name}(" in cell.source:
                found[name] = (before, cell.source, check.source)
    return found


EXERCISES = exercise_cells()
CASES = [(name, kind, k) for name, entry in MUTANTS.items()
         for kind in ("wrong", "right") for k in range(len(entry[kind]))]


def run_check(name: str, answer: str) -> None:
    before, cell, check = EXERCISES[name]
    namespace: dict = {"__name__": "__lesson08__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for source in [*before, cell, answer, check]:
            exec(source, namespace)


def test_every_exercise_has_its_answers():
    assert set(EXERCISES) == set(MUTANTS)
    for name, entry in MUTANTS.items():
        assert len(entry["wrong"]) >= 4 and len(entry["right"]) >= 1, name
        assert len(set(entry["wrong"])) == len(entry["wrong"]), f"{name}: a wrong answer twice"


@pytest.mark.parametrize("name, kind, k", CASES, ids=[f"{n}-{kind}{k}" for n, kind, k in CASES])
def test_the_check_tells_wrong_from_right(name, kind, k):
    answer = MUTANTS[name][kind][k]
    assert f"def {name}(" in answer
    if kind == "right":
        run_check(name, answer)
    else:
        with pytest.raises(AssertionError):
            run_check(name, answer)
