"""tools/nbgrader_course.py, checked with nbgrader itself: the course as a class on JupyterHub gets it.

The course is built into a temporary folder with ``tools/build.py --nbgrader``, and nbgrader
runs there as an instructor runs it (``python -m nbgrader ...`` in the course folder, on this
test's Python, the notebooks on a ``python3`` kernel of this Python):

- ``generate_assignment`` on every assignment: each released notebook is, cell for cell, the
  exercise notebook the course makes from the solution, its lesson beside it (and a student's
  ``fetch_assignment`` gets both, through ``release_assignment``'s exchange); each source
  notebook's check cells are the solution's own, hidden tests included (a small made-up
  assignment, ``99_demo``, holds hidden tests, a markdown answer and set points);
- three students' submissions of lesson 02: the solution typed in, the blank release, and the
  solution with one wrong answer from ``tests/mutants/``. ``validate`` passes the first and
  fails the blank on every check and the wrong one on one check; ``autograde`` gives the
  solution every point, the blank none, the wrong answer all but its exercise's point;
- ``generate_feedback``: a page per submission with its score;
- a fourth student split an answer cell in JupyterLab (both parts keep nbgrader's grade id):
  ``autograde`` stops at such a submission, and after ``tools/added_cells.py --mend`` grades it
  as the solution.

Skipped, saying so, where nbgrader is not installed: ``python -m pip install -e ".[nbgrader]"``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytest.importorskip(
    "nbgrader",
    reason='nbgrader is not installed; python -m pip install -e ".[nbgrader]" to check the nbgrader course',
)
from nbgrader.api import Gradebook  # noqa: E402

from test_exercise_mutants import table, with_answer  # noqa: E402
from test_exercises import ROOT, SOLUTIONS, nbtools  # noqa: E402
from test_added_cells import split_answer  # noqa: E402
import added_cells  # noqa: E402  (tools/, on the path test_exercises gives)
import nbgrader_course  # noqa: E402  (tools/)
from tinyad.course.score_table import exercises_of  # noqa: E402

GRADED = "02_backward"  # the assignment autograded: four exercises, given code inside two of them
WRONG = (3, "= for the first parent")  # the wrong answer: the a + a bug
DEMO = "99_demo"
STUDENTS = ("solution", "blank", "wrong", "split")
VERDICT = re.compile(r"^(Success! Your notebook passes all the tests\.|VALIDATION FAILED ON (\d+) CELL\(S\)!)",
                     re.MULTILINE)


# -- the rules, on notebooks made here -------------------------------------------------


def notebook(*cells: tuple[str, str], heading_points: float | None = None) -> nbformat.NotebookNode:
    """A notebook of (cell type, source) pairs; the first '## Exercise' heading gets the points."""
    made = []
    for kind, source in cells:
        cell = nbformat.v4.new_markdown_cell(source) if kind == "md" else nbformat.v4.new_code_cell(source)
        if heading_points is not None and kind == "md" and source.startswith("## Exercise"):
            cell.metadata["tinyad"] = {"points": heading_points}
            heading_points = None
        made.append(cell)
    nb = nbformat.v4.new_notebook(cells=made)
    for k, cell in enumerate(nb.cells):
        cell.id = f"cell-{k}"
    nb.metadata = {"kernelspec": dict(nbtools.KERNELSPEC), "language_info": {"name": "python"}}
    return nb


def demo_solution() -> nbformat.NotebookNode:
    """Two exercises: one worth 2 points with two checks, one hidden test and a markdown answer."""
    return notebook(
        ("md", "# 99 · Exercises: a demonstration"),
        ("code", "from tinyad import grading"),
        ("md", "## Exercise 1: double"),
        ("code", "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
        ("code", "grading.check(double(2) == 4, 'double', 'double(2)', 4, double(2), 'twice x')"),
        ("code", "grading.check(double(0) == 0, 'double', 'double(0)', 0, double(0), 'twice x')\n"
                 "### BEGIN HIDDEN TESTS\nassert double(5) == 10\n### END HIDDEN TESTS"),
        ("md", "## Exercise 2: why?\n\n### BEGIN SOLUTION\nBecause.\n### END SOLUTION"),
        heading_points=2,
    )


def test_each_cell_gets_its_role_grade_id_and_points():
    nb = nbgrader_course.assignment(demo_solution(), "99_demo.ipynb")
    meta = [cell.metadata["nbgrader"] for cell in nb.cells]
    assert [m["grade_id"] for m in meta] == [
        "notebook-text", "notebook-code", "ex1-text", "ex1-answer", "ex1-check", "ex1-check-2", "ex2-answer"]
    assert [(m["solution"], m["grade"], m["locked"]) for m in meta] == [
        (False, False, True), (False, False, True), (False, False, True), (True, False, False),
        (False, True, True), (False, True, True), (True, True, False)]
    assert [m.get("points") for m in meta] == [None, None, None, None, 1.0, 1.0, 1]
    assert all(m["schema_version"] == 3 and m["task"] is False for m in meta)
    assert "### BEGIN HIDDEN TESTS" in nb.cells[5].source  # nbgrader drops them on release


def test_an_exercise_is_worth_one_point_shared_by_its_checks():
    assert nbgrader_course.shares(1, 1) == [1]
    assert nbgrader_course.shares(1, 3) == [0.33, 0.33, 0.34]
    assert nbgrader_course.shares(2, 2) == [1.0, 1.0]
    solution = nbtools.read(ROOT / "solutions" / SOLUTIONS[0])
    nb = nbgrader_course.assignment(solution, SOLUTIONS[0])
    points = [c.metadata["nbgrader"]["points"] for c in nb.cells if c.metadata["nbgrader"]["grade"]]
    assert sum(points) == len(exercises_of(solution))


@pytest.mark.parametrize(
    "cells, complaint",
    [
        ([("code", "grading.check(True, 'w', 't', 'e', 'g', 'h')")], "outside any"),
        ([("md", "## Exercise 1: x"), ("code", "### BEGIN SOLUTION\nx = 1\n### END SOLUTION")], "without a check"),
        ([("md", "## Exercise 1: x"), ("code", "### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n"
                                                "grading.check(x == 1, 'w', 't', 'e', 'g', 'h')")], "not both"),
    ],
)
def test_a_cell_nbgrader_could_not_grade_is_refused_with_its_place(cells, complaint):
    with pytest.raises(ValueError, match=complaint) as error:
        nbgrader_course.assignment(notebook(*cells), "98_x.ipynb")
    assert "98_x.ipynb" in str(error.value)


@pytest.mark.parametrize("points", [0, -1, "2", True])
def test_an_exercise_worth_no_number_above_zero_is_refused(points):
    nb = notebook(("md", "## Exercise 1: x"), ("code", "grading.check(True, 'w', 't', 'e', 'g', 'h')"),
                  heading_points=points)
    with pytest.raises(ValueError, match="exercise 1.*above 0"):
        nbgrader_course.assignment(nb, "98_x.ipynb")


# -- the course, through nbgrader ------------------------------------------------------


def run_nbgrader(course: Path, *args: str, cwd: Path | None = None, check: bool = True) -> str:
    """``python -m nbgrader ARGS`` in the course folder (or ``cwd``), on this test's Python; its
    output (stdout, then the log), or a failure that shows both (with ``check=False``, a run
    that fails is asserted to fail)."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd or course, env=course_env(course),
                          capture_output=True, text=True, timeout=900)
    assert (done.returncode == 0) is check, f"nbgrader {' '.join(args)} exited with {done.returncode}:\n" \
                                             f"{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def course_env(course: Path) -> dict[str, str]:
    """nbgrader's environment: this Python's folder on PATH (nbgrader runs ``alembic`` by name when
    it makes the gradebook), a ``python3`` kernel that is this Python, no user's Jupyter settings."""
    jupyter = course.parent / "jupyter"
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["JUPYTER_PATH"] = str(jupyter / "data")
    env["JUPYTER_CONFIG_DIR"] = str(jupyter / "config")
    env["JUPYTER_RUNTIME_DIR"] = str(jupyter / "runtime")
    env.pop("MPLBACKEND", None)
    return env


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """The course built with ``build.py --nbgrader``, the demo assignment beside its lessons, and
    every assignment generated by nbgrader."""
    course = tmp_path_factory.mktemp("nbgrader") / "course"
    kernel = course.parent / "jupyter" / "data" / "kernels" / "python3"
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3", "language": "python"}), encoding="utf-8")
    built = subprocess.run([sys.executable, str(ROOT / "tools" / "build.py"), "--nbgrader", str(course)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    (course / "source" / DEMO).mkdir()
    nbtools.write(nbgrader_course.assignment(demo_solution(), f"{DEMO}.ipynb"),
                  course / "source" / DEMO / f"{DEMO}.ipynb")
    run_nbgrader(course, "generate_assignment", "*")
    return course


def names() -> list[str]:
    return [Path(name).stem for name in SOLUTIONS]


def notebook_of(course: Path, step: str, name: str) -> nbformat.NotebookNode:
    return nbtools.read(course / step / name / f"{name}.ipynb")


def test_every_solution_is_an_assignment_and_its_lesson_goes_out_with_it(course):
    # The lesson as it is, but for its pointer to the exercises (the assignment's notebook, Validate).
    assert sorted(p.name for p in (course / "source").iterdir()) == sorted(names() + [DEMO])
    for name in names():
        source = notebook_of(course, "source", name)
        assert all(not c.outputs and c.execution_count is None for c in source.cells if c.cell_type == "code")
        lesson = nbtools.read(ROOT / "notebooks" / f"{name}.ipynb")
        released = nbtools.read(course / "release" / name / "lesson" / f"{name}.ipynb")
        assert [(c.source, c.get("outputs")) for c in released.cells] == [
            (nbgrader_course.lesson_on_the_hub(c.source) if c.cell_type == "markdown"
             else nbgrader_course.on_the_hub(c.source, c.cell_type), c.get("outputs")) for c in lesson.cells], (
            f"release/{name}/lesson is not the lesson")
        assert "NBVAL_" not in "\n".join(c.source for c in released.cells), name
        assert all(c.metadata["editable"] is False and c.metadata["deletable"] is False for c in released.cells)


def test_a_student_fetches_the_lesson_with_the_exercises(course):
    exchange, student = course.parent / "exchange", course.parent / "student"
    student.mkdir()
    run_nbgrader(course, "release_assignment", GRADED, f"--Exchange.root={exchange}")
    run_nbgrader(course, "fetch_assignment", GRADED, f"--Exchange.root={exchange}",
                 "--CourseDirectory.course_id=tinyad", cwd=student)
    assert sorted(str(p.relative_to(student)) for p in student.rglob("*.ipynb")) == [
        f"{GRADED}/{GRADED}.ipynb", f"{GRADED}/lesson/{GRADED}.ipynb"]


def test_the_checks_are_the_solutions_own_and_the_release_is_the_exercise(course):
    for name in names():
        solution = nbtools.read(ROOT / "solutions" / f"{name}.ipynb")
        source, released = notebook_of(course, "source", name), notebook_of(course, "release", name)
        graded = [c.source for c in source.cells if c.metadata["nbgrader"]["grade"]]
        assert graded == [nbgrader_course.on_the_hub(c.source, c.cell_type)
                          for c in solution.cells if nbtools.is_check_cell(c)], name
        exercise = nbtools.make_exercise(solution, f"{name}.ipynb")
        # The same cells, read on the hub, but nbgrader's one stub for every blank cannot name
        # the exercise.
        unnamed = [re.sub(r"Exercise \d+ is not started", "This exercise is not started",
                          nbgrader_course.on_the_hub(c.source, c.cell_type)) for c in exercise.cells]
        released_text = "\n".join(c.source for c in released.cells)
        assert "--nbval-lax" not in released_text and "NBVAL_" not in released_text, name
        assert [c.source for c in released.cells] == unnamed, (
            f"release/{name} differs from the exercise notebook the course makes from its solution")
        # Only the answers are editable: the autograder puts back every other cell as the source has it.
        for cell, given in zip(released.cells, solution.cells):
            assert cell.metadata["nbgrader"]["locked"] is not nbtools.has_solution(given), (name, cell.source)


def test_hidden_tests_stay_in_source_and_nbgrader_drops_them_on_release(course):
    source, released = notebook_of(course, "source", DEMO), notebook_of(course, "release", DEMO)
    assert "assert double(5) == 10" in source.cells[5].source
    assert released.cells[5].source == nbtools.drop_hidden_tests(source.cells[5].source, DEMO)
    assert "double(5)" not in released.cells[5].source


def test_points_per_assignment(course):
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for name in names():
            assert gradebook.find_assignment(name).max_score == points_of(name), name
        assert gradebook.find_assignment(DEMO).max_score == 3  # 2 set on exercise 1, 1 by hand


def typed(source: str) -> str:
    """An answer as a student types it: the solution's lines without the markers around them."""
    markers = (nbtools.BEGIN_SOLUTION, nbtools.END_SOLUTION)
    return "\n".join(line for line in source.splitlines() if not any(m.match(line) for m in markers))


def submission(course: Path, wrong: tuple[int, str] | None = None) -> nbformat.NotebookNode:
    """The released notebook of GRADED with the solution's answers typed in, one of them
    replaced by a wrong answer from tests/mutants/ when asked."""
    solution = nbtools.read(ROOT / "solutions" / f"{GRADED}.ipynb")
    answers = {k: c.source for k, c in enumerate(solution.cells) if nbtools.has_solution(c)}
    if wrong:
        n, label = wrong
        exercise = next(e for e in exercises_of(solution) if e.heading.startswith(f"Exercise {n}:"))
        sources = with_answer(exercise.cells, table(f"{GRADED}.ipynb")[n]["wrong"][label], label)
        for cell, source in zip(exercise.cells, sources):
            index = next(k for k, c in enumerate(solution.cells) if c is cell)
            if index in answers:
                answers[index] = source
    nb = notebook_of(course, "release", GRADED)
    for index, source in answers.items():
        nb.cells[index].source = typed(source)
    return nb


@pytest.fixture(scope="module")
def submitted(course) -> dict[str, Path]:
    """Four students' submissions of GRADED: the solution typed in, the blank, one wrong answer,
    and the solution with an answer cell split in two."""
    released = notebook_of(course, "release", GRADED)
    paths = {}
    split = submission(course)
    split_answer(split.cells)
    made = (submission(course), released, submission(course, WRONG), split)
    for student, nb in zip(STUDENTS, made):
        paths[student] = course / "submitted" / student / GRADED / f"{GRADED}.ipynb"
        paths[student].parent.mkdir(parents=True)
        nbtools.write(nb, paths[student])
    return paths


@pytest.fixture(scope="module")
def graded(course, submitted) -> dict[str, dict[str, float]]:
    """The submissions autograded, with feedback: student -> {grade id: score, "total": score}.
    The split answer cell is mended first, as the README says to, else autograde stops at it."""
    assert added_cells.main(["--mend", str(submitted["split"])]) == 1
    run_nbgrader(course, "autograde", GRADED)
    run_nbgrader(course, "generate_feedback", GRADED)
    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in STUDENTS:
            graded_notebook = gradebook.find_submission_notebook(GRADED, GRADED, student)
            scores[student] = {grade.name: grade.score for grade in graded_notebook.grades}
            scores[student]["total"] = gradebook.find_submission(GRADED, student).score
    return scores


def test_validate_passes_the_solution_and_fails_the_blank_on_every_check(course, submitted):
    """What a student sees on pressing Validate: ``Success!``, or on how many checks it fails."""
    output = run_nbgrader(course, "validate", *(str(submitted[s].relative_to(course)) for s in STUDENTS[:3]))
    failed = [int(v[1] or 0) for v in VERDICT.findall(output)]
    checks = sum(map(nbtools.is_check_cell, nbtools.read(ROOT / "solutions" / f"{GRADED}.ipynb").cells))
    assert failed == [0, checks, 1], output  # solution, blank, one wrong answer


def points_of(name: str) -> int:
    """What an assignment is worth: a point per exercise (no solution sets its points)."""
    return len(exercises_of(nbtools.read(ROOT / "solutions" / f"{name}.ipynb")))


def test_autograde_gives_the_solution_every_point_the_blank_none_a_wrong_answer_all_but_one(graded):
    points = points_of(GRADED)
    assert graded["solution"]["total"] == points
    assert graded["blank"]["total"] == 0  # every check fails on its blank
    assert graded["wrong"]["total"] == points - 1
    assert graded["split"]["total"] == points  # mended by added_cells.py --mend
    lost = sorted(cell for cell, score in graded["wrong"].items() if score < graded["solution"][cell])
    assert lost == [f"ex{WRONG[0]}-check", "total"]


def test_feedback_shows_each_student_their_score(course, graded):
    for student in STUDENTS:
        page = (course / "feedback" / student / GRADED / f"{GRADED}.html").read_text(encoding="utf-8")
        assert f"{GRADED} (Score: {graded[student]['total']:.1f} / {points_of(GRADED):.1f})" in page, student


def test_autograde_stops_at_an_answer_cell_split_in_two_and_added_cells_names_it(course, graded, capsys):
    # What the README warns of: nbgrader's words speak of an old metadata format, and a whole run
    # (every student) stops at the first such submission.
    path = course / "submitted" / "unmended" / GRADED / f"{GRADED}.ipynb"
    path.parent.mkdir(parents=True)
    unmended = submission(course)
    split_answer(unmended.cells)
    nbtools.write(unmended, path)
    output = run_nbgrader(course, "autograde", GRADED, "--student", "unmended", check=False)
    assert "exists multiple times" in output, output
    # The student's own Validate button fails on it too, in these words.
    output = run_nbgrader(course, "validate", str(path.relative_to(course)), check=False)
    assert "the nbgrader metadata may be corrupted" in output, output
    assert added_cells.main([str(path)]) == 1
    assert "is in 2 cells" in capsys.readouterr().out
