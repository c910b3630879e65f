"""Lesson 07's checks tell right answers from plausible wrong ones, run in-process (no kernel).

For each exercise function in ``tests/mutants/lesson07.py``: the solution notebook's set-up
cells run into a fresh namespace, then the mutant's source, then the exercise's check cell.
Every wrong answer must fail the check with an AssertionError; every right one must pass.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nbtools  # noqa: E402

SOLUTION = ROOT / "solutions" / "07_numerics.ipynb"
_spec = importlib.util.spec_from_file_location("lesson07_mutants", ROOT / "tests" / "mutants" / "lesson07.py")
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
MUTANTS = _module.MUTANTS


def _cells():
    """(set-up sources, {function name: its check cell's source}) from the solution notebook.

    The set-up is every code cell before the first exercise; an exercise is a cell with a
    solution block, and its check is the code cell right after it.
    """
    code = [c.source for c in nbformat.read(SOLUTION, as_version=4).cells if c.cell_type == "code"]
    answers = [k for k, source in enumerate(code) if "### BEGIN SOLUTION" in source]
    checks = {code[k].split("def ", 1)[1].split("(", 1)[0]: code[k + 1] for k in answers}
    for source in checks.values():
        assert nbtools.is_check_cell(nbformat.v4.new_code_cell(source))
    return code[:answers[0]], checks


SETUP, CHECKS = _cells()
CASES = [(name, kind, k) for name, entry in MUTANTS.items()
         for kind in ("wrong", "right") for k in range(len(entry[kind]))]


def _run(name: str, source: str) -> None:
    namespace: dict = {}
    for cell in SETUP:
        exec(compile(cell, "<set-up>", "exec"), namespace)
    exec(compile(source, f"<{name}>", "exec"), namespace)
    exec(compile(CHECKS[name], f"<check of {name}>", "exec"), namespace)


def test_every_exercise_has_mutants():
    assert set(CHECKS) == set(MUTANTS)
    for entry in MUTANTS.values():
        assert len(entry["wrong"]) >= 4 and len(entry["right"]) >= 1


@pytest.mark.parametrize("name,kind,k", CASES, ids=[f"{n}-{kind}{k}" for n, kind, k in CASES])
def test_the_check_fails_every_wrong_answer_and_passes_every_right_one(name, kind, k, capsys):
    source = MUTANTS[name][kind][k]
    if kind == "right":
        _run(name, source)
    else:
        with pytest.raises(AssertionError):
            _run(name, source)
