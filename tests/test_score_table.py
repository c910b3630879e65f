"""tinyad.course.score_table: the table that ends ``pytest --nbval-lax exercises/``.

One row per ``## Exercise N: title`` heading, with exactly ``passed``, ``failed`` (and the
first line of the check's hint, or the error) or ``not started`` (the blank's
NotImplementedError). Seen here on a blank, a half-done and a finished copy of lesson 01's
exercises, graded by a real pytest run in a copy of the course, and on a small exercise notebook
graded from the course's root, from ``exercises/`` and from a folder outside the course, and
outside the course as an instructor grades a notebook a learner sent (README: the plugin named).
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterator

import nbformat
import pytest

from test_exercises import ROOT, course_copy, fresh_exercises, nbtools  # the learner's layout, made in tmp_path
from tinyad import score_table

v4 = nbformat.v4
# What the table asks of pytest and nbval as they run (the folder pytest started in, a plugin named
# with -p, nbval's xfail after a dead kernel, a skip, -x): CI runs these again under the oldest
# pytest that pyproject.toml allows (.ci/run, step 2).
PYTEST_INTERFACE = pytest.mark.pytest_interface


def test_exercises_are_the_sections_under_exercise_headings():
    cells = [
        v4.new_markdown_cell("# Title\n\nIntro"),
        v4.new_code_cell("import x"),
        v4.new_markdown_cell("## Exercise 1:  first   one"),
        v4.new_code_cell("a"),
        v4.new_code_cell("grading.check(...)"),
        v4.new_markdown_cell("Some words\n\n## Exercise 2: second"),
        v4.new_code_cell("b"),
        v4.new_markdown_cell("## Notes"),
        v4.new_code_cell("not an exercise"),
    ]
    found = score_table.exercises_of(v4.new_notebook(cells=cells))
    assert [e.heading for e in found] == ["Exercise 1: first one", "Exercise 2: second"]
    assert [len(e.cells) for e in found] == [2, 1]


@pytest.mark.parametrize("heading", ["## ✅ Exercise 2: second", "## Exercise 2 - second", "### Exercise 2: second",
                                     "# Exercise 2: second", "## exercise 2:   second", "## [x] Exercise 2: second",
                                     "## DONE Exercise 2: second", "## ❌ TODO Exercise 2: second",
                                     "## ✅ **Exercise 2:** second", "#### Exercise 2: second"])
def test_an_exercise_heading_a_learner_edited_keeps_its_row(heading):
    # Each dropped exercise 2's row, its cells joining exercise 1 (whose row then read exercise 2's failure).
    cells = [v4.new_markdown_cell("## Exercise 1: first"), v4.new_code_cell("a"),
             v4.new_markdown_cell(heading), v4.new_code_cell("b"), v4.new_markdown_cell("## Notes"),
             v4.new_code_cell("not an exercise")]
    found = score_table.exercises_of(v4.new_notebook(cells=cells))
    assert [e.heading for e in found] == ["Exercise 1: first", "Exercise 2: second"]
    assert [[c.source for c in e.cells] for e in found] == [["a"], ["b"]]


@pytest.mark.parametrize("heading", ["## My go at the second one", "## Exercise 5: renumbered", "## Notes",
                                     "**Exercise 2**", "## Exercise 2: second\n\n## More notes"])
def test_an_exercise_notebook_keeps_a_row_whatever_its_heading_became(heading):
    # The exercise notebook records each heading's row in the cell's metadata: a heading rewritten
    # beyond reading dropped its row (its cells joined the exercise before it), or started a wrong one.
    exercise = small_exercise()
    exercise.cells[4].source = heading  # exercise 2's heading cell
    found = score_table.exercises_of(exercise)
    assert [e.heading for e in found] == ["Exercise 1: right", "Exercise 2: wrong", "Exercise 3: blank",
                                          "Exercise 4: two failures"]
    assert [len(e.cells) for e in found] == [2, 2, 2, 4]


def test_a_heading_cell_split_or_copied_starts_no_second_row():
    exercise = small_exercise()
    first, second = copy.deepcopy(exercise.cells[4]), copy.deepcopy(exercise.cells[4])
    first.source, second.source = "## Exercise 2: wrong", "Its instructions, split off."
    exercise.cells[4:5] = [first, second, copy.deepcopy(first)]  # split, then the heading copied below
    found = score_table.exercises_of(exercise)
    assert [e.heading for e in found][:3] == ["Exercise 1: right", "Exercise 2: wrong", "Exercise 3: blank"]
    assert len(found) == 4 and len(found[1].cells) == 2


def test_a_heading_of_dashes_is_read_at_once():
    # The reading of edited headings backtracked exponentially: 24 dashes took 2 s, 40 for ever.
    started = time.perf_counter()
    found = score_table.exercises_of(v4.new_notebook(cells=[v4.new_markdown_cell("## " + "-" * 2000 + "x"),
                                                                     v4.new_code_cell("a")]))
    assert found == [] and time.perf_counter() - started < 1.0


@pytest.mark.parametrize("heading", ["## Notes on Exercise 2", "## My notes", "### Hints"])
def test_a_heading_that_only_mentions_an_exercise_starts_none(heading):
    cells = [v4.new_markdown_cell("## Exercise 1: first"), v4.new_code_cell("a"), v4.new_markdown_cell(heading),
             v4.new_code_cell("b")]
    found = score_table.exercises_of(v4.new_notebook(cells=cells))
    assert [e.heading for e in found] == ["Exercise 1: first"]
    assert [c.source for c in found[0].cells] == (["a", "b"] if heading.startswith("###") else ["a"])


@pytest.mark.parametrize(
    "ran, failure, status",
    [
        (2, None, ("not started", "")),  # every cell ran, the blank still there: its check calls no answer
        (0, None, ("not run", "pytest stopped before its cells (-x, --maxfail, or Ctrl-C)")),
        (2, ("NotImplementedError", ""), ("not started", "")),
        (2, ("AssertionError", "the slope\n  tried:    s\n  expected: 1\n  got:      2\n  hint:     use h\nmore"),
         ("failed", "use h")),
        (2, ("CheckFailed", "the slope\n  tried:    s\n  expected: 1\n  got:      2\n  hint:     use h"),
         ("failed", "use h")),
        (2, ("AssertionError", "plain assert"), ("failed", "AssertionError: plain assert")),
        (2, ("NameError", "name 'x' is not defined"), ("failed", "NameError: name 'x' is not defined")),
    ],
)
def test_an_exercise_is_passed_failed_or_not_started(ran, failure, status):
    cells = [v4.new_code_cell("def f():\n    # YOUR CODE HERE\n    raise NotImplementedError()",
                              metadata={"tinyad": {"blanks": 1}}), v4.new_code_cell("check(f())")]
    exercise = score_table.Exercise("Exercise 1: x", cells=cells, ran=ran, failure=failure)
    assert exercise.status() == status


SKIPPED = ("its check cell was skipped or marked to raise: remove its NBVAL_SKIP, NBVAL_RAISES_EXCEPTION or "
           "raises-exception")


def test_an_exercise_passes_only_with_its_blanks_filled_in_and_its_check_run():
    # A blank left under a check cell the learner deleted, or a check moved out of the exercise by a
    # heading of their own, read "passed": every cell that remained had run without an error.
    answer = "def f():\n    return 1"
    given = {"tinyad": {"blanks": 2}}
    blank = "# YOUR CODE HERE\nraise NotImplementedError()"
    check = v4.new_code_cell("grading.check_close(f(), 1, 'w', 'f()', 'h')")

    def exercise(source: str, **outcome: int) -> score_table.Exercise:
        return score_table.Exercise("Exercise 1: x", cells=[v4.new_code_cell(source, metadata=given), check],
                                    **outcome)

    assert exercise(answer, ran=2, checked=1).status() == ("passed", "")
    assert exercise(answer + "\n" + blank, ran=2).status() == (
        "in progress", "1 of 2 blanks filled in, and no check failed on the rest")
    assert exercise(answer, not_run=2).status() == (
        "not run", "an earlier cell stopped the kernel (a timeout, or a crash)")
    assert exercise(answer, ran=2).status() == ("not checked", SKIPPED)
    alone = score_table.Exercise("Exercise 1: x", cells=[v4.new_code_cell(answer, metadata=given)], ran=1)
    assert alone.status() == (
        "not checked", "it has no check cell: deleted, turned into a Markdown cell, or cut off by a ## heading "
                       "written above it")
    # The answer written in a cell of its own, under the blank: the check passes.
    answered_below = exercise(blank + "\n" + blank, ran=2, checked=1)
    assert answered_below.status() == ("in progress", "its check passes, but a blank's raise NotImplementedError"
                                                      "(...) line is still there: write your answer in its place, "
                                                      "and delete it")


def test_the_table_reads_the_hint_of_a_failed_grading_check():
    from tinyad.course import grading

    with pytest.raises(AssertionError) as error:
        grading.fail("w", "t", "e", "g", "the hint\nits second line")
    name = type(error.value).__name__  # the ename nbval records
    assert name in score_table.CHECK_FAILURES
    assert score_table.Exercise("Exercise 1: x", cells=[], ran=1, failure=(name, str(error.value))).status() == (
        "failed", "the hint")


@pytest.mark.parametrize("line", [score_table.blank_line("4"), "raise NotImplementedError()"],
                         ids=["the course's blank", "nbgrader's blank"])
def test_an_exercise_with_some_of_its_blanks_filled_is_in_progress(line):
    blank = f"    # YOUR CODE HERE\n    {line}"
    answer = v4.new_code_cell(f"def f():\n    return 1\n\ndef g():\n{blank}\n\ndef h():\n{blank}",
                              metadata={"tinyad": {"blanks": 3}})
    exercise = score_table.Exercise("Exercise 4: three rules", cells=[answer, v4.new_code_cell("check()")],
                                    ran=2, failure=("NotImplementedError", ""))
    assert exercise.status() == ("in progress", "1 of 3 blanks filled in")
    answer.source = answer.source.replace(blank, "    return 2")
    assert exercise.status() == (  # no blank left: the learner's own (a check calls it NotStarted)
        "failed", "your code raised NotImplementedError, and no blank is left: is the raise yours?")
    answer.metadata = {}  # a notebook made before answer cells counted their blanks
    assert exercise.status() == ("not started", "")


@pytest.mark.parametrize("edited", ["x", None, 3, [1, 2], {"blanks": "3"}, {"blanks": -1}, {"blanks": True},
                                    {"exercise": 7}, {"exercise": "Exercise"}, {"exercise": "Exercise two"}])
def test_course_metadata_a_learner_edited_by_hand_is_read_as_absent(edited):
    # JupyterLab's cell metadata editor lets a learner write anything there: each of these crashed the
    # table (AttributeError, TypeError, IndexError) or counted a string as blanks.
    exercise = small_exercise()
    exercise.cells[4].metadata["tinyad"] = edited  # exercise 2's heading cell
    found = score_table.exercises_of(exercise)
    assert [e.heading for e in found] == ["Exercise 1: right", "Exercise 2: wrong", "Exercise 3: blank",
                                          "Exercise 4: two failures"]
    blank = "    # YOUR CODE HERE\n    raise NotImplementedError()"
    answer = v4.new_code_cell(f"def f():\n{blank}", metadata={"tinyad": edited})
    one = score_table.Exercise("Exercise 1: x", cells=[answer, v4.new_code_cell("check()")], ran=2,
                               failure=("NotImplementedError", ""))
    assert one.blanks() == (0, 0) and one.status() == ("not started", "")  # as in a notebook without it


def test_an_answer_number_edited_by_hand_still_counts_the_cells_blanks():
    blank = "    # YOUR CODE HERE\n    raise NotImplementedError()"
    answer = v4.new_code_cell(f"def f():\n    return 1\n\ndef g():\n{blank}",
                              metadata={"tinyad": {"blanks": 2, "answer": [4]}})  # a list: a TypeError in a set
    one = score_table.Exercise("Exercise 1: x", cells=[answer, v4.new_code_cell("check()")], ran=2,
                               failure=("NotImplementedError", ""))
    assert one.status() == ("in progress", "1 of 2 blanks filled in")


def test_a_blank_names_its_exercise_and_is_counted_as_a_blank():
    line = score_table.blank_line("2")
    assert line == ('raise NotImplementedError("Exercise 2 is not started: in its answer cell, replace the lines '
                    "'# YOUR CODE HERE' and 'raise NotImplementedError(...)' with your code\")")
    with pytest.raises(NotImplementedError, match="^Exercise 2 is not started: in its answer cell, replace"):
        exec(line)
    two = f"def f():\n    # YOUR CODE HERE\n    {line}\n\ndef g():\n    # YOUR CODE HERE\n    {line}"
    assert score_table.blanks_in(two) == 2
    assert score_table.blanks_in("    # YOUR CODE HERE\n    raise NotImplementedError()") == 1  # nbgrader's
    assert score_table.blanks_in("    if x is None:\n        raise NotImplementedError()") == 0  # a learner's own
    assert score_table.blanks_in("    raise NotImplementedError('my own')\n    # raise NotImplementedError()") == 0


def test_an_answer_cell_split_or_copied_gives_its_blanks_once():
    # JupyterLab's split copies the cell's metadata into each part: lesson 02's three-blank cell
    # split in three read "in progress: 6 of 9 blanks filled in", not started.
    blank = "    # YOUR CODE HERE\n    raise NotImplementedError()"
    given = {"tinyad": {"blanks": 3, "answer": 4}}
    parts = [v4.new_code_cell(f"def {f}():\n{blank}", metadata=given) for f in "fgh"]
    check = v4.new_code_cell("grading.check_close(f(), 1, 'w', 't', 'h')")
    split = score_table.Exercise("Exercise 4: three rules", cells=[*parts, check], ran=4,
                                 failure=("NotImplementedError", ""))
    assert split.blanks() == (3, 3) and split.status() == ("not started", "")
    parts[0].source = "def f():\n    return 1"
    assert split.status() == ("in progress", "1 of 3 blanks filled in")


def test_an_answer_in_a_cell_of_its_own_above_its_blank_is_told_to_move():
    # The blank runs after it and raises: the row read "not started", with no word why.
    blank = "    # YOUR CODE HERE\n    raise NotImplementedError()"
    answer = v4.new_code_cell(f"def f():\n{blank}", metadata={"tinyad": {"blanks": 1, "answer": 1}})
    check = v4.new_code_cell("grading.check_close(f(), 1, 'w', 't', 'h')")
    given = frozenset({answer.id, check.id})
    as_given = score_table.Exercise("Exercise 1: x", cells=[answer, check], ran=2,
                                    failure=("NotImplementedError", ""), given=given)
    assert as_given.status() == ("not started", "")
    part = v4.new_code_cell("# a part split off", metadata=answer.metadata)  # JupyterLab's split: a new id
    split = score_table.Exercise("Exercise 1: x", cells=[part, answer, check], ran=3,
                                 failure=("NotImplementedError", ""), given=given)
    assert split.status() == ("not started", "")
    own = v4.new_code_cell("def f():\n    return 1")  # a new cell, above the blank
    added = score_table.Exercise("Exercise 1: x", cells=[own, answer, check], ran=3,
                                 failure=("NotImplementedError", ""), given=given)
    assert added.status() == ("not started", "a blank's raise NotImplementedError(...) line still runs: write "
                                             "your answer in its place, not in a cell you added")
    added.given = None  # a notebook that did not record its cells: no word, rather than a wrong one
    assert added.status() == ("not started", "")


def test_a_check_changed_from_the_one_handed_out_checks_nothing():
    # A check wrapped in try/except, or with its expected value made the wrong answer's, read "passed".
    handed_out = "grading.check_close(f(2.0), 4.0, 'the answer', 'f(2.0)', 'double x')"
    check = v4.new_code_cell(handed_out, metadata={"tinyad": {"check": score_table.fingerprint(handed_out)}})
    exercise = score_table.Exercise("Exercise 1: x", cells=[v4.new_code_cell("def f(x):\n    return 2 * x"), check],
                                    ran=2, checked=1)
    assert exercise.status() == ("passed", "")
    check.source = "\n" + handed_out + "  \n\n"  # spaces and blank lines at its ends change nothing
    assert exercise.status() == ("passed", "")
    changed = ("not checked", "its check cell was changed from the one handed out: put it back as it was")
    for rewritten in [f"try:\n    {handed_out}\nexcept AssertionError:\n    pass", handed_out.replace("4.0", "3.0"),
                      "print('checked')"]:  # the last no longer calls grading: still the exercise's check
        check.source = rewritten
        assert score_table.is_check_cell(check) and exercise.status() == changed, rewritten


def test_a_check_cell_with_a_blank_in_it_has_no_fingerprint():
    # The learner writes in it: a fingerprint would read the answer as a changed check.
    cells = [v4.new_markdown_cell("## Exercise 1: x"),
             v4.new_code_cell("got = 2 * 2\n### BEGIN SOLUTION\nx = 4\n### END SOLUTION\n"
                              "grading.check_close(x, 4.0, 'x', 'x', 'four')")]
    cell = nbtools.make_exercise(v4.new_notebook(cells=cells)).cells[1]
    assert score_table.is_check_cell(cell) and cell.metadata["tinyad"] == {"blanks": 1, "answer": 1}


def test_exercise_notebooks_record_each_answer_cells_blanks():
    # Made afresh from the solutions: exercises/ may hold a learner's work, blanks filled in.
    counted, numbered = {}, {}
    fresh = fresh_exercises()
    for name, notebook in fresh.items():
        for exercise in score_table.exercises_of(notebook):
            for cell in exercise.cells:
                blanks = score_table.blanks_in(cell.source)
                if blanks:
                    assert cell.metadata["tinyad"]["blanks"] == blanks, name
                    numbered.setdefault(name, []).append(cell.metadata["tinyad"]["answer"])
                    assert cell.source.count(score_table.blank_line(exercise.number)) == blanks, name
                    counted[name] = counted.get(name, 0) + blanks
    assert counted["02_backward.ipynb"] > len(list(score_table.exercises_of(
        fresh["02_backward.ipynb"])))  # lesson 02 has a cell of three
    assert all(answers == list(range(1, len(answers) + 1)) for answers in numbered.values()), numbered


def test_exercise_notebooks_record_the_code_cells_each_exercise_was_given():
    for name, notebook in fresh_exercises().items():
        starts = dict.fromkeys(h[0] for h in score_table.exercise_headings(notebook.cells) if h)
        for start, exercise in zip(starts, score_table.exercises_of(notebook), strict=True):
            heading = notebook.cells[start]
            assert heading.metadata["tinyad"]["cells"] == [c.id for c in exercise.cells], (name, exercise.heading)
            assert exercise.given == {c.id for c in exercise.cells} and exercise.not_started() == ("not started", "")
            for cell in exercise.cells:
                if score_table.is_check_cell(cell):
                    assert cell.metadata["tinyad"]["check"] == score_table.fingerprint(cell.source), name
                    assert score_table.as_handed_out([cell])
                else:
                    assert "check" not in cell.metadata.get("tinyad", {}), name


def copies_of_lesson_01() -> dict[str, nbformat.NotebookNode]:
    """Lesson 01's exercises blank, half done (1 right, 2 wrong, 3 blank) and finished."""
    solution = nbtools.read(ROOT / "solutions" / "01_value.ipynb")
    blank = nbtools.make_exercise(solution, "01_value.ipynb")
    answers = [k for k, c in enumerate(solution.cells) if nbtools.has_solution(c)]
    half = nbtools.make_exercise(solution, "01_value.ipynb")
    half.cells[answers[0]].source = solution.cells[answers[0]].source
    half.cells[answers[1]].source = half.cells[answers[1]].source.replace(
        f"# YOUR CODE HERE\n    {score_table.blank_line('2')}", "return (f(x + h) - f(x)) / h")
    assert half.cells[answers[1]].source != blank.cells[answers[1]].source
    done = nbtools.make_exercise(solution, "01_value.ipynb")
    for k in answers:
        done.cells[k].source = solution.cells[k].source
    return {"01_blank.ipynb": blank, "01_half.ipynb": half, "01_done.ipynb": done}


def grade(folder: Path, *args: str) -> str:
    run = subprocess.run([sys.executable, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider", *args],
                         cwd=folder, capture_output=True, text=True, timeout=300)
    return run.stdout


# -- the gradings: real pytest runs, as many at once as there are cores ---------------------------
#
# A grading is a function that writes its notebooks in an empty folder and returns its pytest runs
# there, each (the folder pytest starts in, its arguments). A test that asserts on one carries
# ``@mark_grading(function)`` and takes the ``graded`` fixture: what each run printed. A run keeps
# one core busy (a Python importing pytest and nbval, then a kernel for each notebook), and one by
# one they were a third of the test command's time: the module starts every grading its selected
# tests ask for at once, as many running together as this process may use cores (CI pins it to one
# where the lessons run beside it, whose timings a busy core would slow), and at most four: the
# slips' one run takes as long as the others together on two cores, so more would not shorten the
# module, only hold more kernels in memory at once.

Run = tuple[Path, tuple[str, ...]]
Grading = Callable[[Path], list[Run]]
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
AT_ONCE = min(CORES, 4)


def mark_grading(grading: Grading) -> pytest.MarkDecorator:
    """The mark of a test that asserts on ``grading``'s runs (given a function alone, a mark would
    take it for the test it marks: hence ``with_args``)."""
    return pytest.mark.grading.with_args(grading)


@pytest.fixture(scope="module")
def started(request, tmp_path_factory) -> Iterator[dict[Grading, list[Future]]]:
    """Each grading that a test of this module selected in this session asks for (the slips by taking
    the ``slips`` fixture), with its runs started."""
    wanted: list[Grading] = []
    for item in request.session.items:
        if getattr(item, "module", None) is not request.module:
            continue
        asked = [mark.args[0] for mark in item.iter_markers("grading")]
        asked += [slips_graded] if "slips" in item.fixturenames else []
        wanted += [grading for grading in asked if grading not in wanted]
    wanted.sort(key=lambda grading: grading is not slips_graded)  # first: its one run takes longest
    with ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
        yield {grading: [pool.submit(grade, folder, *args) for folder, args in grading(tmp_path_factory.mktemp("run"))]
               for grading in wanted}
        pool.shutdown(cancel_futures=True)  # a run no test waited for: the session was stopped


@pytest.fixture
def graded(request, started) -> list[str]:
    """What each run of the test's grading printed."""
    marker = request.node.get_closest_marker("grading")
    assert marker is not None, "a test that takes graded carries @mark_grading(its grading)"
    return [run.result() for run in started[marker.args[0]]]


def lesson_01_copies(folder: Path) -> list[Run]:
    return [(course_copy(folder, copies_of_lesson_01()), ("exercises/",))]


@mark_grading(lesson_01_copies)
def test_the_table_on_blank_half_done_and_finished_exercises(graded):
    [out] = graded
    table = out[out.index("= score ="):].splitlines()[1:]
    assert table == [
        "exercises/01_blank.ipynb  (0 of 3 passed)",
        "  Exercise 1: multiplication on a Value of your own  not started",
        "  Exercise 2: a slope by central differences         not started",
        "  Exercise 3: how many nodes?                        not started",
        "exercises/01_done.ipynb  (3 of 3 passed)",
        "  Exercise 1: multiplication on a Value of your own  passed",
        "  Exercise 2: a slope by central differences         passed",
        "  Exercise 3: how many nodes?                        passed",
        "exercises/01_half.ipynb  (1 of 3 passed)",
        "  Exercise 1: multiplication on a Value of your own  passed",
        "  Exercise 2: a slope by central differences         failed: the central difference is "
        "(f(x + h) - f(x - h)) / (2 * h): f on both sides of x, and 2 * h in parentheses "
        "(a / 2 * h means (a / 2) * h)",
        "  Exercise 3: how many nodes?                        not started",
        "9 exercises: 4 passed, 1 failed, 4 not started",
    ], out


def a_plain_lesson(folder: Path) -> list[Run]:
    lesson = v4.new_notebook(cells=[v4.new_markdown_cell("## Exercise-free"), v4.new_code_cell("1 + 1")])
    return [(course_copy(folder, {"99_plain.ipynb": lesson}), ("exercises/",))]


@mark_grading(a_plain_lesson)
def test_no_table_where_nothing_is_an_exercise(graded):
    [out] = graded
    assert "1 passed" in out and "= score =" not in out


# -- one small exercise notebook, graded from three folders -------------------------------------

SMALL = "99_small.ipynb"
FIRST_HINT, LAST_HINT = "the first check's hint", "the last check's hint"


def small_exercise() -> nbformat.NotebookNode:
    """The generator's notebook from a four-exercise solution, answered as a learner might:
    exercise 1 right, 2 wrong, 3 not started, and 4 with its first and last check cells failing,
    each with its own hint (the table must report the first)."""
    def check(call: str, hint: str) -> str:
        return f"grading.check_close({call}, 4.0, 'the answer', '{call}', \"{hint}\")"

    def answer(name: str, body: str) -> str:
        return f"def {name}(x):\n    ### BEGIN SOLUTION\n    {body}\n    ### END SOLUTION"

    cells = [
        v4.new_code_cell("from tinyad import grading"),
        v4.new_markdown_cell("## Exercise 1: right"),
        v4.new_code_cell(answer("one", "return 2 * x")),
        v4.new_code_cell(check("one(2.0)", "double x")),
        v4.new_markdown_cell("## Exercise 2: wrong"),
        v4.new_code_cell(answer("two", "return 2 * x")),
        v4.new_code_cell(check("two(2.0)", "double x")),
        v4.new_markdown_cell("## Exercise 3: blank"),
        v4.new_code_cell(answer("three", "return 2 * x")),
        v4.new_code_cell(check("three(2.0)", "double x")),
        v4.new_markdown_cell("## Exercise 4: two failures"),
        v4.new_code_cell(answer("four", "return 2 * x")),
        v4.new_code_cell(check("four(2.0)", FIRST_HINT)),
        v4.new_code_cell("print('a cell between the checks, which passes')"),
        v4.new_code_cell(check("four(2.0) + 1", LAST_HINT)),
    ]
    exercise = nbtools.make_exercise(v4.new_notebook(cells=cells), SMALL)
    for k, body in [(2, "return 2 * x"), (5, "return x + 1"), (11, "return x")]:
        exercise.cells[k].source = exercise.cells[k].source.split("    #")[0] + f"    {body}"
    return exercise


SMALL_TABLE = [
    "  Exercise 1: right         passed",
    "  Exercise 2: wrong         failed: double x",
    "  Exercise 3: blank         not started",
    f"  Exercise 4: two failures  failed: {FIRST_HINT}",
    "4 exercises: 1 passed, 2 failed, 1 not started",
]


def table_of(out: str) -> list[str]:
    assert "= score =" in out, out
    return out[out.index("= score ="):].splitlines()[1:]


def small_graded_from(where: str) -> Grading:
    """The small exercise in a copy of the course, graded from ``where``: its root, its
    ``exercises/``, or a folder beside the course."""
    def grading(folder: Path) -> list[Run]:
        course = course_copy(folder / "course", {SMALL: small_exercise()})
        notebook = course / "exercises" / SMALL
        started, argument = {"root": (course, f"exercises/{SMALL}"), "exercises": (course / "exercises", SMALL),
                             "elsewhere": (folder / "elsewhere", str(notebook))}[where]
        started.mkdir(exist_ok=True)
        return [(started, (argument,))]
    return grading


FROM_ROOT, FROM_EXERCISES, FROM_ELSEWHERE = (small_graded_from(where) for where in ("root", "exercises", "elsewhere"))


# The folder pytest started in is pytest's to say (one case asks it under the oldest pytest).
@pytest.mark.parametrize("shown", [
    pytest.param(f"exercises/{SMALL}", marks=[PYTEST_INTERFACE, mark_grading(FROM_ROOT)], id="root"),
    pytest.param(SMALL, marks=mark_grading(FROM_EXERCISES), id="exercises"),
    pytest.param(f"../course/exercises/{SMALL}", marks=mark_grading(FROM_ELSEWHERE), id="elsewhere"),
])
def test_the_table_from_the_root_from_exercises_and_from_elsewhere(graded, shown):
    [out] = graded
    assert "INTERNALERROR" not in out, out
    assert table_of(out) == [f"{shown}  (1 of 4 passed)", *SMALL_TABLE], out
    # Above the table, each failed check shows its message, and nothing of the grading code.
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)  # IPython colours the tracebacks it makes
    assert "CheckFailed: the answer\n  tried:    two(2.0)" in plain and "grading.py" not in plain, out
    assert "NotImplementedError: Exercise 3 is not started" in plain, out


def a_notebook_sent(folder: Path) -> list[Run]:
    """The small exercise outside the course, graded from the course's root as it is, then with the plugin
    named; and one in the course with the plugin named."""
    course = course_copy(folder / "course", {SMALL: small_exercise()})
    (folder / "sent").mkdir()
    nbtools.write(small_exercise(), folder / "sent" / SMALL)
    named = ("-p", "tinyad.course.score_table", "--nbval-current-env")
    return [(course, (str(folder / "sent" / SMALL),)), (course, (*named, str(folder / "sent" / SMALL))),
            (course, (*named, f"exercises/{SMALL}"))]


@PYTEST_INTERFACE
@mark_grading(a_notebook_sent)
def test_a_notebook_outside_the_course_is_graded_with_the_plugin_named(graded):
    """Outside the course pytest reads neither its settings nor its conftest.py, so README's
    command for a notebook a learner sent names the plugin and the kernel; inside the course,
    where conftest.py loads the plugin too, naming it again prints the table once."""
    unnamed, named, inside = graded
    assert "= score =" not in unnamed
    assert "INTERNALERROR" not in named, named
    assert table_of(named) == [f"../sent/{SMALL}  (1 of 4 passed)", *SMALL_TABLE], named
    assert inside.count("= score =") == 1, inside
    assert table_of(inside) == [f"exercises/{SMALL}  (1 of 4 passed)", *SMALL_TABLE], inside


def test_a_notebook_is_named_as_typed_from_where_pytest_started():
    course = Path("/home/learner/course")
    notebook = course / "exercises" / "01_value.ipynb"
    assert score_table.shown_path(notebook, course) == "exercises/01_value.ipynb"
    assert score_table.shown_path(notebook, course / "exercises") == "01_value.ipynb"
    assert score_table.shown_path(notebook, course / "notebooks") == "../exercises/01_value.ipynb"
    assert score_table.shown_path(notebook, Path("/tmp")) == "/home/learner/course/exercises/01_value.ipynb"


# -- learners' slips, each a notebook of its own, graded in one pytest run ------------------------


def split_as_jupyterlab(cell: nbformat.NotebookNode, *cursors: int) -> list[nbformat.NotebookNode]:
    """The parts Edit > Split Cell makes of ``cell`` at the ``cursors`` (offsets in its source): each
    keeps the cell's metadata, gets an id of its own, and loses the newlines at its ends."""
    offsets = [0, *cursors, len(cell.source)]
    return [v4.new_code_cell(cell.source[start:end].strip("\n"), metadata=copy.deepcopy(cell.metadata))
            for start, end in zip(offsets, offsets[1:])]


def pasted_copy(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``cell`` copied and pasted in JupyterLab: its source and metadata, an id of its own."""
    return v4.new_code_cell(cell.source, metadata=copy.deepcopy(cell.metadata))


def hanging() -> nbformat.NotebookNode:
    exercise = small_exercise()
    exercise.cells[2].source = "import time\ntime.sleep(60)\n" + exercise.cells[2].source  # exercise 1 hangs
    return exercise


def crashing() -> nbformat.NotebookNode:
    exercise = small_exercise()
    exercise.cells[2].source = "import os\nos._exit(1)\n" + exercise.cells[2].source  # the kernel dies
    return exercise


def check_skipped() -> nbformat.NotebookNode:
    exercise = small_exercise()
    exercise.cells[3].source = "# NBVAL_SKIP\n" + exercise.cells[3].source  # exercise 1's check, skipped
    return exercise


def checks_that_did_not_run() -> nbformat.NotebookNode:
    exercise = small_exercise()
    exercise.cells[3].source = exercise.cells[3].source.replace("one(2.0)", "one(2.0) + 1")  # now fails
    exercise.cells.insert(3, v4.new_markdown_cell("## My notes\n\nI think this is right."))  # cuts it off
    del exercise.cells[7]  # exercise 2's (failing) check, deleted
    exercise.cells.insert(9, v4.new_code_cell("def three(x):\n    return 2 * x"))  # under the untouched blank
    return exercise


def blank_under_a_deleted_check() -> nbformat.NotebookNode:
    exercise = small_exercise()
    del exercise.cells[9]  # exercise 3's check, under its blank: every cell left ran without an error
    return exercise


def more_slips() -> nbformat.NotebookNode:
    exercise = small_exercise()
    exercise.cells[3].metadata["tags"] = ["raises-exception"]  # exercise 1 (right): Run All goes on past it
    exercise.cells[6].source = "# NBVAL_RAISES_EXCEPTION\n" + exercise.cells[6].source  # exercise 2 (wrong)
    exercise.cells[8].source = "def three(x):\n    return double(x)"  # a helper defined nowhere
    exercise.cells[9].source = ("grading.check_close(grading.call_checked(three, 2.0, what='the answer', "
                                "tried='three(2.0)', hint='double x'), 4.0, 'the answer', 'three(2.0)', 'double x')")
    exercise.cells[11].source = exercise.cells[11].source.replace("return x", "return 2 * x")  # now right
    exercise.cells[12].outputs = [v4.new_output("stream", name="stdout", text="saved while running\n")]
    return exercise  # and cell 12, exercise 4's first check, has that output but no run number


def answer_above_its_blank() -> nbformat.NotebookNode:
    exercise = small_exercise()
    exercise.cells.insert(8, v4.new_code_cell("def three(x):\n    return 2 * x"))  # above exercise 3's blank
    return exercise


def grading_replaced() -> nbformat.NotebookNode:
    exercise = small_exercise()  # a cell replaces the check's helper: every check after it passes
    exercise.cells.insert(6, v4.new_code_cell("grading.check_close = lambda *args, **kwargs: None"))
    exercise.cells.insert(3, v4.new_code_cell("x = 1"))  # in exercise 1: a learner's scratch cell
    return exercise


def checks_changed() -> nbformat.NotebookNode:
    exercise = small_exercise()
    exercise.cells[3].source = f"try:\n    {exercise.cells[3].source}\nexcept AssertionError:\n    pass"
    exercise.cells[6].source = exercise.cells[6].source.replace("4.0", "3.0")  # exercise 2's wrong answer gives 3.0
    return exercise


def grading_replaced_above_the_exercises() -> nbformat.NotebookNode:
    exercise = small_exercise()  # not counted: the line counted the cells added to its exercises only
    exercise.cells.insert(1, v4.new_code_cell("grading.check_close = lambda *args, **kwargs: None"))
    return exercise


def grading_replaced_in_the_set_up() -> nbformat.NotebookNode:
    exercise = small_exercise()  # nothing said so: the set-up cell was handed out, and nbgrader locks it
    exercise.cells[0].source += "\ngrading.check_close = lambda *args, **kwargs: None"
    return exercise


def blank_under_a_changed_check() -> nbformat.NotebookNode:
    exercise = small_exercise()  # exercise 3: its blank left, its check made to pass (it read "in progress")
    exercise.cells[9].source = "print('Exercise 3 passed')"
    return exercise


def checks_split_and_pasted() -> nbformat.NotebookNode:
    exercise = small_exercise()  # unchanged: exercise 1's row read "not checked: ... changed"
    exercise.cells[6:7] = [exercise.cells[6], pasted_copy(exercise.cells[6])]  # exercise 2's check, pasted again
    exercise.cells[3:4] = split_as_jupyterlab(exercise.cells[3], len(exercise.cells[3].source))  # and an empty part
    return exercise


def heading_written_again() -> nbformat.NotebookNode:
    exercise = small_exercise()  # exercise 3's heading cell deleted and written again: it records no ids
    exercise.cells[7] = v4.new_markdown_cell(exercise.cells[7].source)
    exercise.cells[8:8] = [v4.new_code_cell("def three(x):\n    return 2 * x")]  # the answer above its blank
    return exercise


def partly_unchecked() -> nbformat.NotebookNode:
    exercise = small_exercise()  # exercise 1's check passes, but says a part of it went unchecked
    exercise.cells[3].source += "\ngrading.not_checked('the torch half: PyTorch is not installed')"
    return exercise


SLIPS = {"91_as_given.ipynb": small_exercise, "92_hanging.ipynb": hanging, "93_check_skipped.ipynb": check_skipped,
         "94_checks_that_did_not_run.ipynb": checks_that_did_not_run,
         "95_blank_under_a_deleted_check.ipynb": blank_under_a_deleted_check, "96_more_slips.ipynb": more_slips,
         "97_partly_unchecked.ipynb": partly_unchecked, "98_crashing.ipynb": crashing,
         "99_answer_above_its_blank.ipynb": answer_above_its_blank, "90_checks_changed.ipynb": checks_changed,
         "89_grading_replaced.ipynb": grading_replaced,
         "88_grading_replaced_above_the_exercises.ipynb": grading_replaced_above_the_exercises,
         "87_grading_replaced_in_the_set_up.ipynb": grading_replaced_in_the_set_up,
         "86_blank_under_a_changed_check.ipynb": blank_under_a_changed_check,
         "83_checks_split_and_pasted.ipynb": checks_split_and_pasted,
         "82_heading_written_again.ipynb": heading_written_again,
         "85_cut_short.ipynb": None}  # not a notebook: a file cut short (written below)


def slips_graded(folder: Path) -> list[Run]:
    """The notebooks of ``SLIPS``, graded in one run (a kernel each; a cell gets 3 s, so the hanging
    one stops soon)."""
    for name, make in SLIPS.items():
        if make is not None:
            nbtools.write(make(), folder / name)
    (folder / "85_cut_short.ipynb").write_text(nbtools.dumps(small_exercise())[:2000], encoding="utf-8")
    return [(folder, ("-p", "tinyad.course.score_table", "--nbval-cell-timeout=3", *SLIPS))]


@pytest.fixture(scope="module")
def slips(started) -> tuple[str, dict[str, list[str]]]:
    """pytest's output for the notebooks of ``SLIPS``, and each notebook's rows of the table."""
    [out] = [run.result() for run in started[slips_graded]]
    rows: dict[str, list[str]] = {}
    for line in table_of(out)[:-1]:  # the last line counts them all
        if line.startswith("  "):
            rows[name].append(line)
        else:
            name = line.rsplit("  (", 1)[0]  # the notebook, then how many of its exercises passed
            rows[name] = []
    assert list(rows) == list(SLIPS), out  # the notebook that cannot be read last
    return out, rows


@PYTEST_INTERFACE
def test_the_table_reports_the_first_failing_cell_of_an_exercise(slips):
    out, rows = slips
    assert rows["91_as_given.ipynb"] == SMALL_TABLE[:-1], out
    assert LAST_HINT in out[:out.index("= score =")], "the last check must fail too, above the table"


@PYTEST_INTERFACE
def test_exercises_after_a_cell_that_stops_the_kernel_are_not_run(slips):
    # After a timeout nbval marks the later cells xfail (run on a fresh kernel, or not at all), and
    # the table counted them as run: every later exercise read "passed".
    out, rows = slips
    stopped = "not run: an earlier cell stopped the kernel (a timeout, or a crash)"
    assert rows["92_hanging.ipynb"][0] == ("  Exercise 1: right         failed: Timeout of 3 seconds "
                                           "exceeded executing cell (a cell gets --nbval-cell-timeout seconds)"), out
    assert rows["92_hanging.ipynb"][1:] == [
        f"  Exercise 2: wrong         {stopped}",
        f"  Exercise 3: blank         {stopped}",
        f"  Exercise 4: two failures  {stopped}",
    ], out


@PYTEST_INTERFACE
def test_a_kernel_that_died_is_told_from_a_cell_that_took_too_long(slips):
    # nbval gives both as a timeout; a dead kernel read "Timeout of 3 seconds exceeded while executing
    # cell. Failed to interrupt kernel in 3 seconds, so failing without traceback."
    out, rows = slips
    assert rows["98_crashing.ipynb"][0] == (
        "  Exercise 1: right         failed: the kernel stopped answering while this cell ran: it crashed or "
        "ran out of memory (nbval waits --nbval-cell-timeout seconds before it says so)"), out
    assert all("not run: an earlier cell stopped the kernel" in row for row in rows["98_crashing.ipynb"][1:]), out


@PYTEST_INTERFACE
def test_a_skipped_check_is_no_sign_of_a_stopped_kernel_and_no_pass(slips):
    out, rows = slips
    assert rows["93_check_skipped.ipynb"][0] == f"  Exercise 1: right         not checked: {SKIPPED}", out


def test_an_exercise_whose_check_did_not_run_is_not_passed(slips):
    # Each of these read "passed" (the third "not started", with no word why): no cell of the
    # exercise had failed.
    out, rows = slips
    assert rows["94_checks_that_did_not_run.ipynb"] == [
        "  Exercise 1: right         not checked: it has no check cell: deleted, turned into a Markdown "
        "cell, or cut off by a ## heading written above it",
        "  Exercise 2: wrong         not checked: it has no check cell: deleted, turned into a Markdown "
        "cell, or cut off by a ## heading written above it",
        "  Exercise 3: blank         in progress: its check passes, but a blank's raise "
        "NotImplementedError(...) line is still there: write your answer in its place, and delete it",
        f"  Exercise 4: two failures  failed: {FIRST_HINT}",
    ], out


def test_a_blank_left_under_a_deleted_check_is_not_passed(slips):
    out, rows = slips
    assert rows["95_blank_under_a_deleted_check.ipynb"][2] == "  Exercise 3: blank         not started", out


@PYTEST_INTERFACE
def test_a_check_marked_to_raise_checks_nothing_and_the_learners_own_error_is_named(slips):
    # The first two read "passed" (nbval passes a marked cell that raises); the third gave the
    # check's hint about the formula, the fourth "failed without an error output".
    out, rows = slips
    assert rows["96_more_slips.ipynb"] == [
        f"  Exercise 1: right         not checked: {SKIPPED}",
        f"  Exercise 2: wrong         not checked: {SKIPPED}",
        "  Exercise 3: blank         failed: your code raised NameError: name 'double' is not defined",
        "  Exercise 4: two failures  failed: the cell holds outputs but no run number (saved while running?): "
        "run it again and save",
    ], out


def test_a_check_a_learner_changed_is_no_pass(slips):
    out, rows = slips
    changed = "not checked: its check cell was changed from the one handed out: put it back as it was"
    assert rows["90_checks_changed.ipynb"][:2] == [f"  Exercise 1: right         {changed}",
                                                  f"  Exercise 2: wrong         {changed}"], out
    # Its blank still there, the row said "in progress: its check passes", and to write the answer in place.
    assert rows["86_blank_under_a_changed_check.ipynb"][2] == f"  Exercise 3: blank         {changed}", out


def test_a_check_split_or_pasted_again_in_jupyterlab_is_still_checked(slips):
    out, rows = slips
    assert "83_checks_split_and_pasted.ipynb  (1 of 4 passed)" in table_of(out), out
    assert rows["83_checks_split_and_pasted.ipynb"] == SMALL_TABLE[:-1], out


@PYTEST_INTERFACE  # a hook wrapper around nbval's collection
def test_a_notebook_that_cannot_be_read_is_named_and_the_others_are_graded(slips):
    # pytest stopped at nbval's error in collecting it: every other notebook's rows read "not run".
    out, rows = slips
    lines = [line for line in table_of(out) if ".ipynb  (" in line]
    assert lines[-1].startswith("85_cut_short.ipynb  (cannot be read, so not graded: "), out
    assert "NBFormatError" in lines[-1] or "JSON" in lines[-1] or "Unterminated" in lines[-1], out
    assert rows["85_cut_short.ipynb"] == [] and rows["91_as_given.ipynb"] == SMALL_TABLE[:-1], out
    assert "error during collection" not in out and "Interrupted" not in out, out


def unreadable_neighbours(folder: Path) -> list[Run]:
    """The small exercise beside three notebooks that cannot be read: graded alone (with a test file of
    Python's, as an instructor's folder may hold), with two of them, and one of them alone."""
    nbtools.write(small_exercise(), folder / "91_as_given.ipynb")
    (folder / "test_beside.py").write_text("def test_beside():\n    pass\n", encoding="utf-8")
    (folder / "85_cut_short.ipynb").write_text(nbtools.dumps(small_exercise())[:2000], encoding="utf-8")
    null_source = json.loads(nbtools.dumps(small_exercise()))
    null_source["cells"][1]["source"] = None
    (folder / "84_null_source.ipynb").write_text(json.dumps(null_source), encoding="utf-8")
    null_tags = json.loads(nbtools.dumps(small_exercise()))  # as JupyterLab's metadata editor lets one write
    null_tags["cells"][3]["metadata"]["tags"] = None
    (folder / "83_null_tags.ipynb").write_text(json.dumps(null_tags), encoding="utf-8")
    plugin = ("-p", "tinyad.course.score_table")
    return [(folder, (*plugin, "91_as_given.ipynb", "test_beside.py")),
            (folder, (*plugin, "91_as_given.ipynb", "84_null_source.ipynb", "83_null_tags.ipynb")),
            (folder, (*plugin, "85_cut_short.ipynb"))]


@PYTEST_INTERFACE
@mark_grading(unreadable_neighbours)
def test_only_the_notebooks_asked_for_are_named_unreadable_and_a_null_source_is_one(graded):
    # pytest collects every file of a folder on its way to the one asked for: grading 91 alone
    # named its unreadable neighbours. A cell whose source is null passed nbformat's reading and
    # stopped nbval's collection, and with it every notebook ("not run").
    alone_out, out, nothing_read = graded
    alone = table_of(alone_out)
    assert not any("cannot be read" in line for line in alone) and "could not be read" not in alone[-1], alone
    assert "test_beside.py ." in alone_out, alone_out  # a test file is no notebook, and runs as itself
    lines = table_of(out)
    # Each says where the notebook is wrong, for the learner to find it (it said only what).
    assert "84_null_source.ipynb  (cannot be read, so not graded: NotebookValidationError: None is not valid " \
           "under any of the given schemas, at cells/1/source)" in lines, out
    assert "83_null_tags.ipynb  (cannot be read, so not graded: NotebookValidationError: None is not of type " \
           "'array', at cells/3/metadata/tags)" in lines, out
    assert "Interrupted" not in out and "91_as_given.ipynb  (1 of 4 passed" in out, out
    # Above the table, each fails as an item of its own, saying why in one line and no traceback.
    assert re.search(r"84_null_source\.ipynb: cannot be read _+\n84_null_source\.ipynb cannot be read as a notebook, "
                     r"so it was not graded \(NotebookValidationError: ", out), out
    # A table of no rows.
    assert "INTERNALERROR" not in nothing_read and "1 notebook could not be read" in table_of(nothing_read)[-1]


def test_what_is_wrong_with_a_notebook_fits_its_line():
    # A notebook's line says why it cannot be read in the first 100 characters of its error's first line.
    assert score_table.what_is_wrong(ValueError("x" * 300 + "\nmore")) == "ValueError: " + "x" * 100
    assert score_table.what_is_wrong(ValueError()) == "ValueError"


def test_is_check_cell_reads_a_cell_whose_tags_are_null_or_text():
    # It raised "argument of type 'NoneType' is not iterable". A learner's notebook holding such a cell
    # is not graded (it fails validation: its line says where); the build asks it of cells read unvalidated,
    # from the text forms.
    cell, other = v4.new_code_cell("grading.check(True, 'x', 'x', 1, 1, 'x')"), v4.new_code_cell("x = 1")
    cell.metadata["tags"], other.metadata["tags"] = None, "check"
    assert score_table.is_check_cell(cell) and not score_table.is_check_cell(other)


def test_an_answer_above_its_blank_is_told_to_move_into_it(slips):
    out, rows = slips
    assert rows["99_answer_above_its_blank.ipynb"][2] == (
        "  Exercise 3: blank         not started: a blank's raise NotImplementedError(...) line still runs: "
        "write your answer in its place, not in a cell you added"), out


def test_a_cell_added_under_a_heading_written_again_is_counted_on_the_line_and_the_row(slips):
    # A heading cell written again records no ids; in a notebook whose every code cell handed out carries
    # a mark, the marks tell the cell the learner added: neither the line nor the row counted it.
    out, rows = slips
    assert "82_heading_written_again.ipynb  (1 of 4 passed; 1 code cell added)" in table_of(out), out
    assert rows["82_heading_written_again.ipynb"][2] == (
        "  Exercise 3: blank         not started: a blank's raise NotImplementedError(...) line still runs: "
        "write your answer in its place, not in a cell you added"), out


def test_a_notebooks_line_counts_its_passes_and_the_code_cells_added_or_changed(slips):
    # An added cell runs beside the checks (one that replaces grading passes them all): the line
    # says how many there are, for whoever grades the notebook to read them. None in a notebook as given.
    out, rows = slips
    lines = [line for line in table_of(out) if line.endswith(".ipynb") or ".ipynb  (" in line]
    assert "99_answer_above_its_blank.ipynb  (1 of 4 passed; 1 code cell added)" in lines, out
    assert "91_as_given.ipynb  (1 of 4 passed)" in lines, out
    # The rows cannot tell: the wrong answers of exercises 2 and 4 pass the check put in its place.
    assert "89_grading_replaced.ipynb  (3 of 4 passed; 2 code cells added)" in lines, out
    assert rows["89_grading_replaced.ipynb"][1] == "  Exercise 2: wrong         passed", out
    # Above the exercises, or in a cell handed out: the line said nothing of either.
    assert "88_grading_replaced_above_the_exercises.ipynb  (3 of 4 passed; 1 code cell added)" in lines, out
    assert "87_grading_replaced_in_the_set_up.ipynb  (3 of 4 passed; 1 handed-out code cell changed)" in lines, out


def test_copies_and_splits_of_cells_handed_out_are_told_from_cells_changed():
    def counted(change) -> tuple[int, int]:
        exercise = small_exercise()
        change(exercise.cells)
        return score_table.edits(exercise)

    hack = "grading.check_close = lambda *args, **kwargs: None"

    def rewritten_copy(index: int):  # a check (3) or an answer (2) copied above exercise 1, rewritten
        def change(cells):
            copied = copy.deepcopy(cells[index])
            copied.source = hack
            cells.insert(1, copied)
        return change

    def split(cells):  # the set-up cell split in two by JupyterLab: both parts keep its metadata
        first, second = copy.deepcopy(cells[0]), copy.deepcopy(cells[0])
        first.source, second.source = "from tinyad import grading", "x = 1"
        cells[0:1] = [first, second]

    assert counted(lambda cells: None) == (0, 0)
    assert counted(rewritten_copy(3)) == (0, 1)  # a check that is not the one handed out: it passed unseen
    assert counted(rewritten_copy(2)) == (1, 0)  # an answer cell out of every exercise
    assert counted(split) == (0, 1)  # x = 1 was added to it
    assert counted(lambda cells: cells.__setitem__(slice(0, 1), [
        copy.deepcopy(cells[0]), copy.deepcopy(cells[0])])) == (0, 0)  # pasted again beside itself
    # A two-line set-up cell split in two, nothing added: it counted as two cells changed.
    two_lines = nbtools.make_exercise(v4.new_notebook(cells=[
        v4.new_code_cell("import math\nfrom tinyad import grading"), v4.new_markdown_cell("## Exercise 1: one"),
        v4.new_code_cell("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION")]), "x")
    first, second = copy.deepcopy(two_lines.cells[0]), copy.deepcopy(two_lines.cells[0])
    first.source, second.source = "import math", "from tinyad import grading"
    two_lines.cells[0:1] = [first, second]
    assert score_table.edits(two_lines) == (0, 0)


def test_a_check_split_at_as_many_blank_lines_as_are_rejoined_reads_as_handed_out():
    # Every part rejoined with the blank line the split dropped, at each of MOST_CUTS_REJOINED cuts; at one
    # cut more, only at line ends (a split of more parts than a learner makes reads as changed).
    lines = [f"x{k} = {k}" for k in range(score_table.MOST_CUTS_REJOINED + 2)]
    source = "\n\n".join(lines)
    given = {"tinyad": {"check": score_table.fingerprint(source)}}

    def split_at_the_first(cuts: int) -> list[nbformat.NotebookNode]:
        parts = [*lines[:cuts], "\n\n".join(lines[cuts:])]
        return [v4.new_code_cell(part, metadata=copy.deepcopy(given)) for part in parts]

    assert score_table.as_handed_out(split_at_the_first(score_table.MOST_CUTS_REJOINED))
    assert not score_table.as_handed_out(split_at_the_first(score_table.MOST_CUTS_REJOINED + 1))


def test_a_fingerprint_is_what_the_notebooks_handed_out_carry():
    # Exercises already handed out carry fingerprints made by the course as it was then: a change to
    # how one is made would read every cell of them as changed (its checks "not checked").
    assert score_table.fingerprint("grading.check(True, 'w', 't', 'e', 'g', 'h')\n") == "82ef6b3ce26f0a65"


def test_a_check_split_or_pasted_again_unchanged_is_checked_on_its_row_and_its_line():
    # Its row read "not checked: its check cell was changed" for a part alone, where the notebook's
    # line read nothing changed; split at its blank line (JupyterLab drops it), both read it changed.
    check = "got = one(2.0)\n\ngrading.check_close(got, 4.0, 'the answer', 'one(2.0)', 'double x')"
    handed_out = nbtools.make_exercise(v4.new_notebook(cells=[
        v4.new_code_cell("from tinyad import grading"), v4.new_markdown_cell("## Exercise 1: one"),
        v4.new_code_cell("def one(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
        v4.new_code_cell(check)]), "x")
    handed_out.cells[2].source = "def one(x):\n    return 2 * x"  # answered

    def read(change) -> tuple[tuple[str, str], tuple[int, int]]:
        """(the exercise's row, every cell of it run and passed; the notebook's edits) after ``change``."""
        notebook = copy.deepcopy(handed_out)
        notebook.cells[3:4] = change(notebook.cells[3])
        exercise, = score_table.exercises_of(notebook)
        exercise.ran = len(exercise.cells)
        exercise.checked = sum(map(score_table.is_check_cell, exercise.cells))
        return exercise.status(), score_table.edits(notebook)

    unchanged, changed = (("passed", ""), (0, 0)), (("not checked", score_table.CHANGED_CHECK), (0, 1))
    blank_line = check.index("\n\n") + 1
    assert read(lambda cell: [cell]) == unchanged
    assert read(lambda cell: split_as_jupyterlab(cell, blank_line)) == unchanged
    assert read(lambda cell: split_as_jupyterlab(cell, len(cell.source))) == unchanged  # an empty part
    assert read(lambda cell: split_as_jupyterlab(cell, check.index("\n"), blank_line)) == unchanged
    assert read(lambda cell: [cell, pasted_copy(cell)]) == unchanged  # pasted again beside itself

    def edited(parts: list) -> list:
        parts[-1].source = parts[-1].source.replace("4.0", "3.0")
        return parts

    assert read(lambda cell: edited(split_as_jupyterlab(cell, blank_line))) == changed
    assert read(lambda cell: edited([cell, pasted_copy(cell)])) == changed
    assert read(lambda cell: split_as_jupyterlab(cell, blank_line)[1:]) == changed  # a part deleted


def test_a_check_both_pasted_again_and_split_or_with_an_empty_part_is_as_handed_out():
    # Each of these runs every line of the check, in order: a copy split, a split at the end of a copy,
    # and an empty part between two lines with no blank line at the cut (its newline read as one). Each
    # read as the check changed, on its row and its notebook's line.
    check, = [cell for cell in nbtools.make_exercise(v4.new_notebook(cells=[
        v4.new_markdown_cell("## Exercise 1: one"),
        v4.new_code_cell("def one(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
        v4.new_code_cell("got = one(2.0)\ngrading.check_close(got, 4.0, 'the answer', 'one(2.0)', 'double x')")]),
        "x").cells if "check" in cell.metadata.get("tinyad", {})]
    line_end = check.source.index("\n")
    assert score_table.as_handed_out([check, *split_as_jupyterlab(check, line_end)])
    assert score_table.as_handed_out([*split_as_jupyterlab(check, line_end), check])
    assert score_table.as_handed_out([check, *split_as_jupyterlab(check, len(check.source))])
    assert score_table.as_handed_out(split_as_jupyterlab(check, line_end, line_end + 1))
    # Still changed: a part left out of one copy, the parts swapped, nothing but empty parts.
    first, second = split_as_jupyterlab(check, line_end)
    assert not score_table.as_handed_out([check, second])
    assert not score_table.as_handed_out([check, second, first])
    assert not score_table.as_handed_out(split_as_jupyterlab(v4.new_code_cell("", metadata=check.metadata), 0))


def test_the_cells_a_notebooks_line_counts_added_in_its_exercises_are_those_its_rows_find():
    # The line found them by the course's metadata alone, the rows by it and the ids the headings
    # record: a cell handed out whose metadata the learner deleted was added on the line, on no row.
    # One rule now: its id says it was handed out (read as in a notebook made before such cells
    # carried a mark of their own).
    exercise = small_exercise()
    own, empty = v4.new_code_cell("x = 1"), v4.new_code_cell("  \n")
    exercise.cells[13].metadata = {}  # exercise 4's cell between its checks, handed out
    exercise.cells[12:13] = [exercise.cells[12], pasted_copy(exercise.cells[12])]  # a check pasted again
    exercise.cells[8:9] = split_as_jupyterlab(exercise.cells[8], 13)  # exercise 3's answer cell, split
    exercise.cells[2:2] = [own, empty]  # in exercise 1, above its answer
    exercises = score_table.exercises_of(exercise)
    assert [[cell.source for cell in e.added()] for e in exercises] == [["x = 1"], [], [], []]
    assert score_table.edits(exercise) == (1, 0)


def test_a_notebook_made_before_every_cell_recorded_itself_counts_what_its_exercises_record():
    old = grading_replaced()
    del old.metadata["tinyad"]  # as exercise notebooks were handed out before
    for cell in old.cells:
        cell.metadata.get("tinyad", {}).pop("given", None)
    assert score_table.edits(old) == (2, 0)
    old.cells[0].source += "\nx = 1"  # a set-up cell changed: such a notebook cannot tell
    assert score_table.edits(old) == (2, 0)
    for cell in old.cells:  # saved as nbformat 4.4, without cell ids: exercise 4's cell between its checks,
        del cell["id"]  # handed out, read as added; an added cell cannot be told from it
    old.nbformat_minor = 4
    assert score_table.edits(old) == (0, 0)


def test_a_check_that_says_it_left_a_part_unchecked_is_not_a_pass(slips):
    # Lesson 03 without PyTorch: its check passed an answer it could not run, and the row read "passed".
    out, rows = slips
    assert rows["97_partly_unchecked.ipynb"][0] == (
        "  Exercise 1: right         not checked: the torch half: PyTorch is not installed"), out


def test_a_commented_out_check_is_no_check_cell():
    assert not score_table.is_check_cell(v4.new_code_cell("# grading.check_close(one(2.0), 4.0, 'w', 't', 'h')"))
    assert score_table.is_check_cell(v4.new_code_cell("got = grading.call_checked(f, what='w')  # a comment"))


def test_the_last_line_counts_every_notebooks_exercises(slips):
    out, _ = slips
    assert table_of(out)[-1] == (
        "64 exercises: 15 passed, 22 failed, 1 in progress, 11 not started, 9 not checked, 6 not run; "
        "1 notebook could not be read"), out


def stopped_at_the_first_failure(folder: Path) -> list[Run]:
    for name in (SMALL, "99_then_this.ipynb"):
        nbtools.write(small_exercise(), folder / name)
    return [(folder, ("-p", "tinyad.course.score_table", "-x", "."))]  # stops at exercise 2's check


@PYTEST_INTERFACE
@mark_grading(stopped_at_the_first_failure)
def test_exercises_pytest_stopped_before_are_not_run(graded):
    # They read "not started", and a notebook pytest never reached was missing from the table.
    [out] = graded
    stopped = "not run: pytest stopped before its cells (-x, --maxfail, or Ctrl-C)"
    assert table_of(out) == [
        f"{SMALL}  (1 of 4 passed)",
        "  Exercise 1: right         passed",
        "  Exercise 2: wrong         failed: double x",
        f"  Exercise 3: blank         {stopped}",
        f"  Exercise 4: two failures  {stopped}",
        "99_then_this.ipynb  (0 of 4 passed)",
        f"  Exercise 1: right         {stopped}",
        f"  Exercise 2: wrong         {stopped}",
        f"  Exercise 3: blank         {stopped}",
        f"  Exercise 4: two failures  {stopped}",
        "8 exercises: 1 passed, 1 failed, 0 not started, 6 not run",
    ], out


def only_collected(folder: Path) -> list[Run]:
    nbtools.write(small_exercise(), folder / SMALL)
    return [(folder, ("-p", "tinyad.course.score_table", "--collect-only", SMALL))]


@mark_grading(only_collected)
def test_no_table_when_pytest_only_collects(graded):
    # Every row would have read "not run": the notebooks are taken at collection.
    [out] = graded
    assert "collected" in out and "= score =" not in out, out
