"""Mutation test of the exercise checks: plausible wrong answers are caught, a right one passes.

A check that lets a wrong answer through teaches the learner that it is right. So for every
exercise of every solution notebook, ``tests/mutants/NN_name.py`` (named like the notebook)
holds a table::

    MUTANTS = {
        1: {                                   # the N of "## Exercise N: title"
            "wrong": {                         # at least four; each must fail a check
                "one-sided": "return (f(x + h) - f(x)) / h",
                "= for the first factor": [("self.grad += ...", "self.grad = ...")],
            },
            "right": "...",                    # one correct alternative; every check must pass
            "wrong with torch": {...},         # optional: answers only PyTorch can catch
        },
    }

PyTorch is optional, so the checks must catch every ``"wrong"`` answer without it; a part of
an exercise that is written with PyTorch (lesson 03's ``torch_grads``) can only be checked
where it is installed, and its wrong answers go under ``"wrong with torch"``, skipped
without torch with a reason that says so.

An answer is either a string, the learner's code that replaces the exercise's one
``### BEGIN SOLUTION`` block (indentation is taken from the block), or a list of
``(old, new)`` edits of the solution's cells, each ``old`` found exactly once in the
exercise's cells with a solution block. A wrong answer must fail with a check's own
message (an AssertionError from ``tinyad.course.grading`` with its hint), not by crashing. To add
a lesson's table, write ``tests/mutants/NN_name.py`` beside the others; the test below that
every exercise has one fails, naming the file, until it is there.

Each answer runs in-process, in a fresh namespace: the notebook's set-up cells (code cells
before the first exercise, and cells of earlier exercises that are neither answers nor
checks), then the exercise's own cells with the answer in place. No kernel per answer.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import textwrap
import warnings
from pathlib import Path

import nbformat
import pytest

from test_exercises import ROOT, SOLUTIONS, nbtools
from torch_reference import needs_torch
from tinyad.course.score_table import exercises_of

MUTANTS_DIR = Path(__file__).parent / "mutants"
MIN_WRONG = 4


def table(name: str) -> dict:
    """The MUTANTS table of solutions/``name``, or {} when it has none."""
    path = MUTANTS_DIR / (Path(name).stem + ".py")
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location(f"mutants_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MUTANTS


def number(heading: str) -> int:
    return int(heading.split()[1].rstrip(":"))


def cases() -> list:
    found = []
    for name in SOLUTIONS:
        for n, entry in table(name).items():
            for label, answer in entry.get("wrong", {}).items():
                found.append(pytest.param(name, n, answer, False, id=f"{name[:2]}-ex{n}-wrong-{label}"))
            for label, answer in entry.get("wrong with torch", {}).items():
                found.append(pytest.param(name, n, answer, False, id=f"{name[:2]}-ex{n}-wrong-{label}",
                                          marks=needs_torch))
            if "right" in entry:
                found.append(pytest.param(name, n, entry["right"], True, id=f"{name[:2]}-ex{n}-right"))
    return found


def with_answer(cells: list, answer, where: str) -> list[str]:
    """The sources of an exercise's cells with ``answer`` in place of the solution."""
    sources = [c.source for c in cells]
    answered = [k for k, c in enumerate(cells) if nbtools.has_solution(c)]
    if isinstance(answer, str):
        blocks = sum(nbtools.solution_blocks(cells[k]) for k in answered)
        assert blocks == 1, f"{where}: a string answer needs exactly one solution block, found {blocks}"
        k = answered[0]
        lines = textwrap.dedent(answer).strip("\n").splitlines()
        sources[k] = nbtools.clear_solutions(sources[k], lines, where)
        return sources
    for old, new in answer:
        hits = [k for k in answered if sources[k].count(old) == 1]
        total = sum(sources[k].count(old) for k in answered)
        assert total == 1 and hits, f"{where}: {old!r} occurs {total} times in the answer cells"
        sources[hits[0]] = sources[hits[0]].replace(old, new)
    return sources


def run(name: str, n: int, answer) -> BaseException | None:
    """Run exercise ``n`` of solutions/``name`` with ``answer``; the exception its cells raised."""
    nb = nbtools.read(ROOT / "solutions" / name)
    exercises = exercises_of(nb)
    target = next((e for e in exercises if number(e.heading) == n), None)
    assert target is not None, f"solutions/{name} has no '## Exercise {n}: ...' heading"
    in_exercise = {id(c) for e in exercises for c in e.cells}
    setup = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if any(cell is c for c in target.cells):
            break
        answer_or_check = nbtools.has_solution(cell) or nbtools.is_check_cell(cell)
        if id(cell) not in in_exercise or not answer_or_check:
            setup.append(cell.source)
    sources = with_answer(target.cells, answer, f"tests/mutants/{Path(name).stem}.py, exercise {n}")
    namespace: dict = {"__name__": "__main__"}
    limit = sys.getrecursionlimit()  # an answer may raise it; the rest of the tests get it back
    with contextlib.redirect_stdout(io.StringIO()), _recursion_limit_kept(limit):
        for source in setup:
            exec(compile(source, f"solutions/{name} set-up", "exec"), namespace)
        try:
            for source in sources:
                exec(compile(source, f"solutions/{name} exercise {n}", "exec"), namespace)
        except Exception as error:  # noqa: BLE001 (any failure is the check catching it)
            return error
    return None


@contextlib.contextmanager
def _recursion_limit_kept(limit: int):
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("name, n, answer, right", cases())
def test_a_wrong_answer_is_caught_and_a_right_one_passes(name, n, answer, right):
    with warnings.catch_warnings(record=True) as warned:  # a wrong answer's are its own
        warnings.simplefilter("always")
        error = run(name, n, answer)
    if right:
        assert error is None, f"solutions/{name}, exercise {n}: a right answer fails: {error!r}"
        # The engine warns of slips (a step with no gradient, a loss given probabilities): a right
        # answer that sets one off would teach the learner to ignore them. (Warnings raised at the
        # notebook's lines only: the collector may finalise an earlier test's socket meanwhile.)
        own = [w for w in warned if w.filename.startswith("solutions/")]
        assert not own, f"solutions/{name}, exercise {n}: a right answer warns: {own[0].message}"
    else:
        assert error is not None, f"solutions/{name}, exercise {n}: the checks let this wrong answer through"
        # Caught by a check, with its message (what was tried, expected, got, a hint), not by a crash.
        assert isinstance(error, AssertionError) and "hint:" in str(error), (
            f"solutions/{name}, exercise {n}: this wrong answer fails with {error!r}, not a check's message"
        )


@pytest.mark.parametrize("name", SOLUTIONS)
def test_every_exercise_has_wrong_answers_and_a_right_one(name):
    headings = [number(e.heading) for e in exercises_of(nbtools.read(ROOT / "solutions" / name))]
    assert headings, f"solutions/{name} has no '## Exercise N: title' heading"
    mutants = table(name)
    for n in headings:
        entry = mutants.get(n, {})
        assert len(entry.get("wrong", {})) >= MIN_WRONG and "right" in entry, (
            f"solutions/{name}, exercise {n}: tests/mutants/{Path(name).stem}.py needs at least "
            f"{MIN_WRONG} wrong answers and one right one for it (see this file's docstring)"
        )
    assert set(mutants) <= set(headings), f"tests/mutants/{Path(name).stem}.py names exercises not in the notebook"


def test_lesson_03_without_pytorch_fails_a_blank_torch_grads(monkeypatch):
    # Without PyTorch the check skipped torch_grads: a blank there earned the point in nbgrader.
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    blank = [("    ta, tb, tc = (torch.tensor(", "    raise NotImplementedError('Exercise 1 is not started')\n"
                                                "    ta, tb, tc = (torch.tensor(")]
    error = run("03_pytorch.ipynb", 1, blank)
    assert isinstance(error, NotImplementedError) and "not started" in str(error), repr(error)
    # A written answer goes unchecked: with torch None its first use of torch raises, and passes.
    assert run("03_pytorch.ipynb", 1, [("ta.grad.item(), tb", "ta.grad.item(), tb")]) is None
    # An answer that runs without PyTorch is checked all the same.
    wrong = [("    ta, tb, tc = (torch.tensor(", "    return 'I have no torch'\n    ta, tb, tc = (torch.tensor(")]
    error = run("03_pytorch.ipynb", 1, wrong)
    assert isinstance(error, AssertionError) and "torch_grads: what it returns" in str(error), repr(error)


def test_lesson_10_says_new_node_is_a_method_of_the_input_where_it_is_called_on_the_class():
    # Tensor.new_node(data, ...) fails in Python's words, "missing 1 required positional argument:
    # 'data'", for a call that gave data: the hint said only to compute from the arrays.
    on_the_class = [("return x.new_node(x.xp.maximum(a, 0.0)", "return Tensor.new_node(x.xp.maximum(a, 0.0)")]
    error = run("10_fusion_devices.ipynb", 1, on_the_class)
    assert isinstance(error, AssertionError), repr(error)
    got, hint = str(error).split("hint:")
    assert "Tensor.new_node() missing 1 required positional argument: 'data'" in got
    assert "new_node is a method of the tensor x" in " ".join(hint.split()), hint


def test_a_string_answer_finds_a_solution_block_however_many_hashes_its_markers_have():
    # The build reads "# BEGIN SOLUTION" as "### BEGIN SOLUTION"; this file counted only the
    # latter, and refused every string answer to such an exercise, the right one too.
    cells = [nbformat.v4.new_code_cell("def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION")]
    (answered,) = with_answer(cells, "return 2", "99_demo.ipynb, exercise 1")
    assert answered.splitlines() == ["def f():", "    return 2"]
