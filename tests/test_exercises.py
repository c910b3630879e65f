"""The exercise machinery: the generator, and every exercise notebook against its solution.

The lessons (notebooks/) and solutions (solutions/) themselves are run by nbval in strict
mode from pyproject's pytest settings. Here: every lesson has a solution and an exercise
notebook of the same name; in the exercise made from every solution, each cell with a blank
is followed by a check cell; and for every exercise notebook:

- it is exactly what ``tools/nbtools.make_exercise`` makes from its solution, unless it
  holds a learner's work (run, or blanks filled in: ``build.learner_work``), in which case
  this instructor check is skipped with a message saying so;
- made afresh from its solution into the learners' release of the course (made and installed
  once, tests/conftest.py) and run as a learner runs it with the blanks left in
  (``pytest --nbval-lax exercises/``), every check cell
  fails, with a check's AssertionError (grading's CheckFailed) or a NotImplementedError, and
  every other cell passes (a NameError or a failing set-up cell means a broken notebook). A
  learner's answers in ``exercises/`` therefore never turn the test command red.

A check cell is a code cell that calls ``grading.<helper>(...)`` or is tagged ``check``
(``nbtools.is_check_cell``).
"""

from __future__ import annotations

import ast
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build  # noqa: E402  (tools/ is a folder of scripts, not a package)
import nbtools  # noqa: E402
from tinyad.course.score_table import BLANK_ERRORS  # noqa: E402

LESSONS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
SOLUTIONS = sorted(p.name for p in (ROOT / "solutions").glob("*.ipynb"))
# A learner's copy (JupyterLab's Duplicate makes 01_value-Copy1.ipynb) is not a stale exercise:
# it is the learner's, and left alone.
EXERCISES = sorted(p.name for p in (ROOT / "exercises").glob("*.ipynb") if nbtools.is_lesson(p.name))
EXECUTED = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "solutions").glob("*.ipynb"))
LEARNER_FAILURES = {"AssertionError", "CheckFailed", "NotImplementedError",
                    "NotStarted"}  # CheckFailed: a grading check


# -- the generator, on a notebook made here -----------------------------------------


def solution_notebook() -> nbformat.NotebookNode:
    """A small solution notebook with a solution block, hidden tests and outputs."""
    v4 = nbformat.v4
    function = v4.new_code_cell(
        "def double(x):\n"
        '    """Twice x."""\n'
        "    ### BEGIN SOLUTION\n"
        "    y = 2 * x\n"
        "    return y\n"
        "    ### END SOLUTION\n"
        "\n"
        "print('defined')",
        execution_count=3,
        outputs=[v4.new_output("stream", name="stdout", text="defined\n")],
        metadata={"tags": ["keep-me"], "execution": {"iopub.status.busy": "2026-01-01T00:00"}},
    )
    check = v4.new_code_cell(
        "grading.check_close(double(2), 4, 'double', 'double(2)', 'twice')\n"
        "### BEGIN HIDDEN TESTS\n"
        "assert double(5) == 10\n"
        "### END HIDDEN TESTS\n"
        "print('ok')",
        execution_count=4,
    )
    answer = v4.new_markdown_cell("Why?\n\n### BEGIN SOLUTION\nBecause.\n### END SOLUTION")
    nb = v4.new_notebook(cells=[function, check, answer])
    for k, cell in enumerate(nb.cells):
        cell.id = f"cell-{k}"  # nbformat draws random ids
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                   "language_info": {"name": "python", "version": "3.11.7"}}
    return nb


def test_a_solution_block_becomes_the_stub_at_its_indentation():
    exercise = nbtools.make_exercise(solution_notebook())
    assert exercise.cells[0].source == (
        "def double(x):\n"
        '    """Twice x."""\n'
        "    # YOUR CODE HERE\n"
        "    raise NotImplementedError(\"This exercise is not started: in its answer cell, replace the lines "
        "'# YOUR CODE HERE' and 'raise NotImplementedError(...)' with your code\")\n"
        "\n"
        "print('defined')"
    )
    assert exercise.cells[2].source == "Why?\n\nYOUR ANSWER HERE"


def test_a_blank_names_the_exercise_it_is_in():
    v4 = nbformat.v4
    block = "### BEGIN SOLUTION\nx = 1\n### END SOLUTION"
    nb = v4.new_notebook(cells=[v4.new_markdown_cell("## Exercise 3: first"), v4.new_code_cell(block),
                                v4.new_markdown_cell("Words.\n\n## Exercise 12: second"),
                                v4.new_code_cell(f"def f():\n    {block.replace(chr(10), chr(10) + '    ')}")])
    exercise = nbtools.make_exercise(nb)
    assert exercise.cells[1].source.splitlines()[1].startswith('raise NotImplementedError("Exercise 3 is not')
    assert exercise.cells[3].source.splitlines()[2].startswith(
        '    raise NotImplementedError("Exercise 12 is not started: in its answer cell, replace the lines')


def test_hidden_tests_are_dropped_and_the_rest_kept():
    exercise = nbtools.make_exercise(solution_notebook())
    assert exercise.cells[1].source == (
        "grading.check_close(double(2), 4, 'double', 'double(2)', 'twice')\nprint('ok')"
    )


def test_outputs_counts_and_metadata_are_cleared_and_the_solution_untouched():
    solution = solution_notebook()
    before = nbformat.writes(solution)
    exercise = nbtools.make_exercise(solution)
    for cell in exercise.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    # The tags stay; the answer cell counts its blanks and is numbered (for the score table), any other
    # code cell records its fingerprint (the table tells it changed); the rest goes.
    assert exercise.cells[0].metadata == {"tags": ["keep-me"], "tinyad": {"blanks": 1, "answer": 1}}
    assert exercise.cells[1].metadata == {"tinyad": {"given": nbtools.fingerprint(exercise.cells[1].source)}}
    # It tells cells apart, and not by the spaces at their lines' ends (an editor's trimming).
    assert nbtools.fingerprint("x = 1") != nbtools.fingerprint("x = 2")
    assert nbtools.fingerprint("x = 1  \ny = 2\n") == nbtools.fingerprint("\nx = 1\ny = 2")
    assert exercise.metadata["tinyad"] == {"given": "every code cell"}
    assert exercise.metadata["language_info"] == {"name": "python"}
    assert nbformat.writes(solution) == before


def test_generation_is_byte_for_byte_deterministic():
    first = nbtools.dumps(nbtools.make_exercise(solution_notebook()))
    again = nbtools.dumps(nbtools.make_exercise(nbformat.reads(first, as_version=4)))
    assert first == nbtools.dumps(nbtools.make_exercise(solution_notebook()))
    assert again == first  # an exercise is a fixed point


@pytest.mark.parametrize(
    "source, complaint",
    [
        ("### BEGIN SOLUTION\nx = 1", ": BEGIN SOLUTION is never closed by END SOLUTION"),
        ("x = 1\n### END SOLUTION", ", line 2: END SOLUTION without BEGIN SOLUTION"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION",
         ", line 2: BEGIN SOLUTION inside a SOLUTION block"),
        ("### BEGIN HIDDEN TESTS\nassert True", ": BEGIN HIDDEN TESTS is never closed by END HIDDEN TESTS"),
    ],
)
def test_unbalanced_markers_are_refused_with_the_cell_and_line(source, complaint):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    with pytest.raises(ValueError) as error:
        nbtools.make_exercise(nb, "07_x.ipynb")
    assert str(error.value) == "07_x.ipynb, cell 0" + complaint


def test_check_cells_are_those_that_call_grading_or_are_tagged():
    v4 = nbformat.v4
    assert nbtools.is_check_cell(v4.new_code_cell("grading.check(True, 'w', 't', 'e', 'g', 'h')"))
    assert nbtools.is_check_cell(v4.new_code_cell("assert f(1) == 2", metadata={"tags": ["check"]}))
    assert not nbtools.is_check_cell(v4.new_code_cell("from tinyad import grading"))
    assert not nbtools.is_check_cell(v4.new_markdown_cell("grading.check(...)"))


# -- the notebooks in the repository ------------------------------------------------


def lesson(name: str) -> str:
    return name[:2]


def check_stored_exercise(solution: Path, exercise: Path) -> None:
    """The stored exercise is what its solution generates; a learner's work in it is skipped."""
    name = solution.name
    rebuild = f"run python tools/build.py {lesson(name)}"
    assert solution.exists(), f"exercises/{name} has no solutions/{name}"
    assert exercise.exists(), f"exercises/{name} is missing: {rebuild}"
    fresh = nbtools.make_exercise(nbtools.read(solution), name)
    work = build.learner_work(exercise, fresh)
    if work:
        pytest.skip(
            f"exercises/{name} holds a learner's work ({work}): its instructor checks are skipped "
            f"(the blanks are checked on a fresh copy). Grade it with "
            f"python -m pytest --nbval-lax exercises/{name}"
        )
    stored = nbtools.dumps(nbtools.read(exercise))
    assert stored == nbtools.dumps(fresh), f"exercises/{name} is not what solutions/{name} generates: {rebuild}"


@pytest.mark.parametrize("name", sorted(set(SOLUTIONS) | set(EXERCISES)))
def test_exercise_is_generated_from_its_solution(name):
    check_stored_exercise(ROOT / "solutions" / name, ROOT / "exercises" / name)


def test_a_learners_work_in_exercises_is_skipped_and_a_stale_blank_fails(tmp_path):
    solution = ROOT / "solutions" / SOLUTIONS[0]
    exercise = tmp_path / solution.name
    filled = nbtools.read(solution)  # every blank filled in with the answer
    for cell in filled.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbtools.write(filled, exercise)
    with pytest.raises(pytest.skip.Exception, match="holds a learner's work .*instructor checks are skipped"):
        check_stored_exercise(solution, exercise)
    ran = nbtools.make_exercise(nbtools.read(solution), solution.name)
    next(c for c in ran.cells if c.cell_type == "code").execution_count = 1
    nbtools.write(ran, exercise)
    with pytest.raises(pytest.skip.Exception, match=r"cells \[\d+\] have been run"):
        check_stored_exercise(solution, exercise)
    older = nbtools.read(solution)  # made from the solution as it was: its cells record themselves as they were
    older.cells[-1].source += "\n# an older version"
    nbtools.write(nbtools.make_exercise(older, solution.name), exercise)
    with pytest.raises(AssertionError, match="is not what solutions/.* generates"):
        check_stored_exercise(solution, exercise)


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lessons_and_solutions_are_stored_executed_and_normalised(path):
    rebuild = f"run python tools/build.py {lesson(path.name)}"
    nb = nbtools.read(path)
    unexecuted = [k for k, c in enumerate(nb.cells) if c.cell_type == "code" and c.execution_count is None]
    assert not unexecuted, f"{path.parent.name}/{path.name}: cells {unexecuted} never ran: {rebuild}"
    text = nbtools.dumps(nb)
    assert nbtools.dumps(nbtools.normalise(nb)) == text, (
        f"{path.parent.name}/{path.name} has metadata the course does not keep: {rebuild}"
    )


STORED = EXECUTED + sorted((ROOT / "exercises").glob("*.ipynb"))


@pytest.mark.parametrize("path", STORED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_cell_that_raises_on_purpose_is_tagged_so_run_all_goes_on(path):
    # JupyterLab's Run All stops at the first error unless the cell carries the tag;
    # nbval reads the comment marker. Both, or the lesson's later cells never run.
    nb = nbtools.read(path)
    untagged = [k for k, c in enumerate(nb.cells) if c.cell_type == "code"
                and nbtools.RAISES_MARKER in c.source
                and nbtools.RAISES_TAG not in c.metadata.get("tags", [])]
    assert not untagged, f"{path.parent.name}/{path.name}: cells {untagged} raise without the tag"


@pytest.mark.parametrize("path", STORED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_widget_state_or_widget_view_is_stored(path):
    # Opened trusted but not run, JupyterLab draws stored widgets dead; their text form reads well.
    nb = nbtools.read(path)
    assert "widgets" not in nb.metadata, f"{path.parent.name}/{path.name} stores widget state"
    views = [k for k, c in enumerate(nb.cells) for o in c.get("outputs", [])
             if nbtools.WIDGET_VIEW in o.get("data", {})]
    assert not views, f"{path.parent.name}/{path.name}: cells {views} store a widget view"


def test_normalise_tags_the_marked_cell_and_drops_widget_views():
    v4 = nbformat.v4
    raising = v4.new_code_cell("# NBVAL_RAISES_EXCEPTION\n1 / 0")
    widget = v4.new_code_cell("stepper", outputs=[v4.new_output(
        "display_data", data={nbtools.WIDGET_VIEW: {"model_id": "abc"}, "text/plain": "run this cell"})])
    nb = v4.new_notebook(cells=[raising, widget], metadata={"widgets": {"state": {}}})
    nbtools.normalise(nb)
    assert raising.metadata.tags == [nbtools.RAISES_TAG]
    assert widget.outputs[0].data == {"text/plain": "run this cell"}
    assert "widgets" not in nb.metadata
    words = v4.new_markdown_cell("A cell that raises on purpose starts with `# NBVAL_RAISES_EXCEPTION`.")
    assert "tags" not in nbtools.normalise(v4.new_notebook(cells=[words])).cells[0].metadata, "only code raises"
    nbtools.normalise(nb)
    assert raising.metadata.tags == [nbtools.RAISES_TAG], "the tag is added once"


def test_every_lesson_has_a_solution_and_an_exercise():
    assert LESSONS, "notebooks/ holds no lesson"
    for folder, names in (("solutions", SOLUTIONS), ("exercises", EXERCISES)):
        missing, extra = sorted(set(LESSONS) - set(names)), sorted(set(names) - set(LESSONS))
        assert not missing, f"lessons with no {folder}/ notebook of the same name: {missing}"
        assert not extra, f"{folder}/ notebooks with no lesson of the same name: {extra}"


def first_line(cell: nbformat.NotebookNode) -> str:
    """A cell's first non-blank line, to name the cell in a message."""
    return cell.source.strip().splitlines()[0] if cell.source.strip() else "(empty)"


@pytest.mark.parametrize("name", SOLUTIONS)
def test_every_solution_has_blanks_and_check_cells(name):
    nb = nbtools.read(ROOT / "solutions" / name)
    assert any(nbtools.has_solution(c) for c in nb.cells), f"solutions/{name} has no BEGIN SOLUTION"
    assert any(nbtools.is_check_cell(c) for c in nb.cells), f"solutions/{name} has no check cell"
    # Each exercise is checked right below it, in the notebook the learner gets: a code cell
    # with a blank is a check cell itself or the next code cell is one. Judged on the
    # generated exercise, so a check moved wholly into a hidden-tests block (dropped there)
    # or emptied to `pass` leaves its exercise visibly unchecked.
    code = [c for c in nb.cells if c.cell_type == "code"]
    given = [c for c in nbtools.make_exercise(nb, name).cells if c.cell_type == "code"]
    for k, cell in enumerate(code):
        if nbtools.has_solution(cell) and not nbtools.is_check_cell(given[k]):
            checked = k + 1 < len(given) and nbtools.is_check_cell(given[k + 1])
            assert checked, (
                f"solutions/{name}: the exercise cell starting {first_line(cell)!r} is not followed, "
                "in the exercise notebook, by a check cell (a code cell calling grading.<helper>(...) "
                "or tagged check)"
            )


# The helpers that call a learner's function and report an error raised in it (what was tried,
# the error, the learner's line); a check cell calls the learner's functions only through them.
CALLING_HELPERS = {"call_checked", "call_strictly", "call_without_recursion", "check_finite_differences",
                   "check_array_gradient"}


def learners_functions(nb: nbformat.NotebookNode) -> set[str]:
    """The names of the top-level functions whose body holds a solution block."""
    names = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and nbtools.has_solution(cell):
            lines = cell.source.splitlines()
            for node in ast.parse(cell.source).body:
                body = lines[node.lineno - 1:node.end_lineno]
                if isinstance(node, ast.FunctionDef) and any(nbtools.BEGIN_SOLUTION.match(x) for x in body):
                    names.add(node.name)
    return names


def bare_calls(source: str, names: set[str]) -> list[str]:
    """Calls of ``names`` in ``source`` made outside every ``grading.<calling helper>(...)``."""
    tree = ast.parse(source)
    through_helper = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "grading"
                and node.func.attr in CALLING_HELPERS):
            through_helper.update(id(inner) for inner in ast.walk(node) if inner is not node)
    return [ast.get_source_segment(source, node) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
            and id(node) not in through_helper]


def test_bare_calls_are_found():
    source = ("grading.check_close(f(1), 2, 'w', 't', 'h')\n"
              "got = grading.call_checked(f, 1, what='w', tried='t', hint='h')\n"
              "grading.check_finite_differences(lambda a: f(a), [x], 'w', 't', 'h')\n"
              "g(2)")
    assert bare_calls(source, {"f", "h"}) == ["f(1)"]


@pytest.mark.parametrize("name", SOLUTIONS)
def test_check_cells_call_the_learners_functions_through_grading(name):
    # An error raised in the learner's function then fails the check with the input tried, the
    # error and the learner's own line, instead of a traceback.
    nb = nbtools.read(ROOT / "solutions" / name)
    names = learners_functions(nb)
    bare = {first_line(c): calls for c in nb.cells if nbtools.is_check_cell(c)
            for calls in [bare_calls(c.source, names)] if calls}
    assert not bare, (
        f"solutions/{name}: check cells call the learner's functions directly (call them through "
        f"grading.call_checked or call_strictly): {bare}"
    )


# Colour codes; junit XML writes the escape character as "#x1B".
ANSI = re.compile(r"(?:\x1b|#x1B)\[[0-9;]*m")
EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Failed)"
                            r"|(?:[\w.]*\.)?NotStarted)(?::|$)", re.M)


def failure_name(text: str) -> str:
    """The exception a failed nbval cell ended with, from its report text."""
    names = EXCEPTION_LINE.findall(ANSI.sub("", text))
    return names[-1].rsplit(".", 1)[-1] if names else "(no exception found)"


def course_copy(folder: Path, exercises: dict[str, nbformat.NotebookNode]) -> Path:
    """A learner's copy of the course in ``folder``: the pytest settings and plugin, and
    ``exercises/`` holding the given notebooks. Returns ``folder``."""
    (folder / "tests").mkdir(parents=True)
    (folder / "exercises").mkdir()
    for name in ("pyproject.toml", "conftest.py", "tests/nbval_sanitize.cfg"):
        (folder / name).write_bytes((ROOT / name).read_bytes())
    for name, nb in exercises.items():
        nbtools.write(nb, folder / "exercises" / name)
    return folder


def fresh_exercises() -> dict[str, nbformat.NotebookNode]:
    """Every exercise notebook made afresh from its solution, whatever exercises/ holds."""
    return {name: nbtools.make_exercise(nbtools.read(ROOT / "solutions" / name), name) for name in SOLUTIONS}


@pytest.fixture(scope="module")
def blank_run(release) -> dict[str, list[tuple[str, str]]]:
    """The learner's autograde command on every exercise made afresh from its solution (as the
    learners' release holds them, tests/conftest.py): per notebook, per code cell, ('passed', '')
    or ('failed', exception name)."""
    assert release.junit.exists(), f"the learners' command did not run:\n{release.grading}"
    results: dict[str, list[tuple[str, str]]] = {}
    for case in ET.parse(release.junit).iter("testcase"):
        notebook = case.get("classname", "").rsplit(".", 2)  # exercises.01_value.ipynb
        name = ".".join(notebook[-2:])
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is None and case.find("skipped") is not None:
            outcome = ("skipped", "")
        elif problem is None:
            outcome = ("passed", "")
        else:
            outcome = ("failed", failure_name((problem.get("message") or "") + (problem.text or "")))
        results.setdefault(name, []).append(outcome)  # cells come in notebook order
    return results


@pytest.mark.parametrize("name", SOLUTIONS)
def test_with_the_blanks_left_in_every_check_fails(name, blank_run):
    cells = [c for c in fresh_exercises()[name].cells if c.cell_type == "code"]
    outcomes = blank_run.get(name, [])
    assert len(outcomes) == len(cells), (
        f"exercises/{name}: nbval reported {len(outcomes)} cells, the notebook has {len(cells)}"
    )
    checks = 0
    for cell, (outcome, exception) in zip(cells, outcomes):
        start = first_line(cell)
        if nbtools.is_check_cell(cell):
            checks += 1
            assert outcome == "failed", (
                f"exercises/{name}: the check cell starting {start!r} passes with the blanks "
                "left in: it cannot fail"
            )
            assert exception in LEARNER_FAILURES, (
                f"exercises/{name}: the check cell starting {start!r} fails with {exception}, "
                f"not with the blank's NotImplementedError or a check's CheckFailed (an AssertionError)"
            )
        else:
            assert outcome == "passed", (
                f"exercises/{name}: the cell starting {start!r} is not a check cell but "
                f"{outcome} ({exception}) with the blanks left in: the notebook is broken there"
                + (". A blank that runs when its cell runs fails the cell: put the learner's code "
                   "inside a function, and call it from the check cell" if exception in BLANK_ERRORS else "")
            )
    assert checks > 0, f"exercises/{name} has no check cell (a cell calling grading.<helper>(...))"


@pytest.mark.parametrize("name", SOLUTIONS)
def test_every_solutions_exercises_are_as_the_build_reads_them(name):
    nbtools.checked_exercise(nbtools.read(ROOT / "solutions" / name), name)


def _solution(*cells: tuple[str, str]) -> nbformat.NotebookNode:
    v4 = nbformat.v4
    return v4.new_notebook(cells=[v4.new_markdown_cell(text) if kind == "md" else v4.new_code_cell(text)
                                  for kind, text in cells])


ANSWER = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"


@pytest.mark.parametrize("cells, words", [
    # A marker spelled otherwise on both ends was not a block: the exercise handed out the answer.
    ([("md", "## Exercise 1: f"), ("code", ANSWER.replace("SOLUTION", "SOLUTON"))],
     r"^99_demo.ipynb, cell 1: '### BEGIN SOLUTON' reads like a solution marker: write ### BEGIN SOLUTION"),
    ([("md", "## Exercise 1: f"), ("code", "def f():\n    return 1")],
     r"Exercise 1: f has no ### BEGIN SOLUTION block: its answer would be handed out"),
    # Without its colon a heading is no exercise: its blank counted for none in the score table.
    ([("md", "## Exercise 1 f"), ("code", ANSWER)], r"reads like an exercise heading: write ## Exercise N: title"),
    ([("md", "### Exercise 1: f"), ("code", ANSWER)], r"reads like an exercise heading: write ## Exercise N: title"),
    # Without its space it is no section: its blank would count for the exercise above it.
    ([("md", "## Exercise 1: f"), ("code", ANSWER), ("md", "##Exercise 2: g"), ("code", ANSWER)],
     r"cell 2: '##Exercise 2: g' reads like an exercise heading"),
    ([("md", "## Exercise 1: f"), ("code", ANSWER), ("md", "## Exercise 3: g"), ("code", ANSWER)],
     r"the exercises are numbered \[1, 3\]: number them 1, 2, \.\.\. in order"),
    ([("md", "## Exercise 1: f"), ("code", ANSWER), ("md", "## Exercise 1: g"), ("code", ANSWER)],
     r"the exercises are numbered \[1, 1\]"),
    ([("code", ANSWER), ("md", "## Exercise 1: f"), ("code", ANSWER)],
     r"cell 0: a solution block outside every exercise"),
])
def test_exercises_the_build_would_misread_are_refused(cells, words):
    with pytest.raises(ValueError, match=words):
        nbtools.checked_exercise(_solution(*cells), "99_demo.ipynb")


def test_a_comment_in_code_that_reads_like_a_heading_is_no_heading():
    nbtools.checked_exercise(_solution(("md", "## Exercise 1: f"), ("code", "## Exercise 1 helper\n" + ANSWER)),
                             "99_demo.ipynb")


def test_a_learners_copy_in_exercises_is_left_alone():
    # JupyterLab's Duplicate made exercises/01_value-Copy1.ipynb, and the tests failed on it as an
    # exercise without a solution.
    assert all(nbtools.is_lesson(name) for name in SOLUTIONS)
    for copy in ("01_value-Copy1.ipynb", "01_value (1).ipynb", "Untitled.ipynb", "mine.ipynb"):
        assert not nbtools.is_lesson(copy), copy
