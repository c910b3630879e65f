"""The course as an nbgrader course, for a class on a JupyterHub: ``python tools/build.py --nbgrader DIR``.

``write_course(root, target)`` writes into ``target`` (a new or empty folder)::

    nbgrader_config.py                    the course's nbgrader settings (run nbgrader from here)
    source/NN_name/NN_name.ipynb          the assignment: the solution with nbgrader's cell metadata
    source/NN_name/lesson/NN_name.ipynb   the lesson, with its outputs, every cell read-only,
                                          its exercises named as the assignment's notebook

one ``NN_name`` for every notebook in ``solutions/``. ``assignment(solution)`` makes the
assignment notebook; its cells, in nbgrader 0.9's metadata (``metadata["nbgrader"]``,
schema 3), are:

- an answer cell (one holding ``### BEGIN SOLUTION``): a solution cell. nbgrader's
  ``generate_assignment`` puts the course's own blank in place of each block (the
  settings name it), so the released notebook is the course's exercise notebook (its blanks
  say "This exercise is not started", and it is checked with Validate, not a terminal command).
- a check cell (``nbtools.is_check_cell``): an autograded test, locked, with points. Its
  source is the solution's, ``### BEGIN HIDDEN TESTS`` blocks included: nbgrader drops
  them from the release and grades with them.
- every other cell (instructions, set-up and given code): read-only (locked), so the
  autograder runs the course's set-up, whatever a student did to it.
- a markdown answer (the course has none today): a manually graded answer worth one
  point, graded by hand in nbgrader's formgrader.

Every cell's source is the solution's, as read on a hub (``on_the_hub``): the sentence that
says how to grade the notebook from a terminal (``python -m pytest --nbval-lax exercises/...``,
a path the hub does not have) says to use Validate instead, and nbval's ``# NBVAL_...``
comments are left out of the code. Outputs are cleared. Each grade id names the cell's exercise
and role (``ex2-answer``, ``ex2-check``, ``ex2-text``, ``ex2-code-2``; ``notebook-...`` outside
the exercises).

**Points.** An exercise (``## Exercise N: title`` and the cells up to the next ``## ``
heading, as the score table reads it) is worth one point, or what its heading cell's
metadata says (``{"tinyad": {"points": 2}}``). Its check cells share the points evenly
(to the hundredth, the last check taking what rounding leaves): each check earns its share
when it passes, and the exercise's points come with all of them.

**The lesson.** nbgrader releases the notebooks at the top of an assignment folder and
copies no other notebook, so the settings add a hook to ``generate_assignment`` that
copies ``source/NN_name/lesson/`` into ``release/NN_name/lesson/``: it goes out with the
assignment, and the autograder never runs it.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from pathlib import Path

from nbformat import NotebookNode

import nbtools
from tinyad.course.score_table import COURSE_KEY, exercise_headings

POINTS = "points"
SCHEMA_VERSION = 3  # nbgrader 0.9's cell metadata
LESSON_FOLDER = "lesson"
MANUAL_POINTS = 1  # a markdown answer, graded by hand

CONFIG = '''\
"""nbgrader settings for the tinyad course, written by tools/build.py --nbgrader.

nbgrader reads it from the course folder: run nbgrader there (or set CourseDirectory.root to it).
"""

from pathlib import Path
import shutil

c = get_config()

c.CourseDirectory.course_id = "tinyad"

# Where release_assignment puts what students fetch, and collect finds what they submit: the
# hub's shared exchange folder. nbgrader's default, /usr/local/share/nbgrader/exchange, is made
# world-writable on first use; set it where the hub's nbgrader set-up puts it.
# c.Exchange.root = "/srv/nbgrader/exchange"

# The blanks are the course's own, so a released notebook is the course's exercise notebook.
c.ClearSolutions.code_stub = dict(python={code_stub!r})
c.ClearSolutions.text_stub = {text_stub!r}

# Notebooks run on the python3 kernel that Jupyter finds: in an environment with ipykernel,
# that environment's Python, unless a user's own python3 kernel comes first (`jupyter
# kernelspec list` shows which). tinyad must be installed there. Every check takes seconds;
# a cell still running after this many seconds (a student's endless loop) is stopped and fails.
c.Execute.timeout = 120

COURSE = Path(__file__).resolve().parent


def release_lessons(assignment, student, notebooks):
    """Copy the lesson folder of the assignment just generated into its release folder, with the
    file mode nbgrader gave the released notebooks (it copies no other notebook itself)."""
    for name in sorted(set(Path(notebook).parent.name for notebook in notebooks)):
        lesson = COURSE / "source" / name / {lesson_folder!r}
        released = COURSE / "release" / name
        given = sorted(released.glob("*.ipynb"))
        if not given:
            continue
        mode = given[0].stat().st_mode & 0o777
        (released / lesson.name).mkdir(exist_ok=True)
        for path in sorted(lesson.glob("*.ipynb")):
            copied = released / lesson.name / path.name
            copied.unlink(missing_ok=True)
            shutil.copyfile(path, copied)
            copied.chmod(mode)
            print("released the lesson", copied.relative_to(COURSE))


c.GenerateAssignment.post_convert_hook = release_lessons
'''


def sections(cells: list) -> list[int | None]:
    """For each cell, the number N of the exercise it belongs to (its ``## Exercise N: title``
    heading and the cells up to the next ``## `` heading), or None outside the exercises."""
    return [None if section is None else int(re.search(r"\d+", section[1]).group())
            for section in exercise_headings(cells)]


def role(cell: NotebookNode, where: str) -> str:
    """``answer``, ``check``, ``text`` (markdown) or ``code`` (set-up and given code)."""
    answer, check = nbtools.has_solution(cell), nbtools.is_check_cell(cell)
    if answer and check:
        raise ValueError(f"{where}: a cell is an answer or a check, not both; split it in two")
    if answer:
        return "answer"
    if check:
        return "check"
    return "text" if cell.cell_type == "markdown" else "code"


def exercise_points(heading: NotebookNode, where: str) -> float:
    """What an exercise is worth: its heading cell's ``{"tinyad": {"points": P}}``, else 1."""
    points = heading.metadata.get(COURSE_KEY, {}).get(POINTS, 1)
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not points > 0:
        raise ValueError(f"{where}: an exercise's points are a number above 0, got {points!r}")
    return points


def shares(points: float, n: int) -> list[float]:
    """``points`` split over ``n`` check cells, to the hundredth; the last takes what is left."""
    each = round(points / n, 2)
    return [each] * (n - 1) + [round(points - each * (n - 1), 2)]


def check_points(cells: list, numbers: list[int | None], name: str) -> dict[int, float]:
    """The points of each check cell, by cell index; ``numbers`` is ``sections(cells)``."""
    checks: dict[int, list[int]] = {}
    answered: set[int] = set()
    headings: dict[int, int] = {}
    for index, (cell, n) in enumerate(zip(cells, numbers)):
        if n is None:
            if nbtools.is_check_cell(cell):
                raise ValueError(f"{name}, cell {index}: a check cell outside any "
                                 "'## Exercise N: title' section belongs to no exercise")
            continue
        headings.setdefault(n, index)  # an exercise's first cell is its heading
        if nbtools.is_check_cell(cell):
            checks.setdefault(n, []).append(index)
        elif cell.cell_type == "code" and nbtools.has_solution(cell):
            answered.add(n)
    unchecked = sorted(answered - set(checks))
    if unchecked:
        raise ValueError(f"{name}, exercise {unchecked[0]}: an answer without a check cell "
                         "cannot be autograded")
    points: dict[int, float] = {}
    for n, indices in checks.items():
        worth = exercise_points(cells[headings[n]], f"{name}, exercise {n}")
        points.update(zip(indices, shares(worth, len(indices))))
    return points


def nbgrader_metadata(kind: str, cell_type: str, grade_id: str, points: float | None) -> dict:
    """The ``metadata["nbgrader"]`` of a cell of the given role."""
    grade = kind == "check" or (kind == "answer" and cell_type == "markdown")
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": kind != "answer",
        "schema_version": SCHEMA_VERSION,
        "solution": kind == "answer",
        "task": False,
    }
    if grade:
        meta[POINTS] = points
    return meta


# "To grade the whole notebook from a terminal, in the repository root:" and its command.
TERMINAL_GRADING = re.compile(
    r"To (?:grade|check) the whole notebook[^:\n]*:\s*`?python -m pytest --nbval-lax \S+?\.ipynb`?")
ON_THE_HUB = ("To check the whole notebook, use Validate (in the Assignments list, or the button above "
              "the notebook): it runs every check, as the grading will.")


# A lesson's pointer to its exercises, and to grading them from a terminal (a lesson copy on the hub
# sits in lesson/, one folder below the assignment's notebook, and a student checks with Validate).
EXERCISES_PATH = re.compile(r"`exercises/(\d\d_\w+\.ipynb)`")
GRADE_THEM = re.compile(r"Grade\s+them\s+with\s+`python -m pytest --nbval-lax exercises/\d\d_\w+\.ipynb`\.")
CHECK_THEM = "Check them with Validate (in the Assignments list, or the button above the notebook)."


def lesson_on_the_hub(source: str) -> str:
    """A lesson's markdown as a student on the hub reads it: its exercises are the assignment's
    notebook, checked with Validate."""
    return EXERCISES_PATH.sub(r"the assignment's notebook, `\1`", GRADE_THEM.sub(CHECK_THEM, source))


def on_the_hub(source: str, cell_type: str) -> str:
    """A cell's source as a student on the hub reads it: no terminal command into a repository
    the hub does not have, no comment addressed to nbval."""
    if cell_type == "markdown":
        return TERMINAL_GRADING.sub(ON_THE_HUB, source)
    return "\n".join(line for line in source.split("\n") if not line.lstrip().startswith("# NBVAL_"))


def assignment(solution: NotebookNode, name: str = "notebook") -> NotebookNode:
    """The nbgrader source notebook made from a solution notebook (which is left unchanged)."""
    nb = copy.deepcopy(solution)
    numbers = sections(nb.cells)
    points = check_points(nb.cells, numbers, name)
    seen: Counter = Counter()
    for index, (cell, n) in enumerate(zip(nb.cells, numbers)):
        kind = role(cell, f"{name}, cell {index}")
        prefix = f"ex{n}" if n is not None else "notebook"
        seen[prefix, kind] += 1
        grade_id = f"{prefix}-{kind}" + (f"-{seen[prefix, kind]}" if seen[prefix, kind] > 1 else "")
        worth = points.get(index) if kind == "check" else MANUAL_POINTS
        cell.metadata["nbgrader"] = nbgrader_metadata(kind, cell.cell_type, grade_id, worth)
        cell.source = on_the_hub(cell.source, cell.cell_type)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nb


def read_only(lesson: NotebookNode) -> NotebookNode:
    """A copy of a lesson whose cells cannot be edited or deleted (they still run), pointing
    at the assignment's notebook for its exercises, without the comments addressed to nbval."""
    nb = copy.deepcopy(lesson)
    for cell in nb.cells:
        cell.metadata["editable"] = False
        cell.metadata["deletable"] = False
        if cell.cell_type == "markdown":
            cell.source = lesson_on_the_hub(cell.source)
        else:
            cell.source = on_the_hub(cell.source, cell.cell_type)
    return nb


def config() -> str:
    """The text of the course's ``nbgrader_config.py``."""
    # nbgrader puts one stub in every blank, so it cannot name the exercise as the course's do.
    return CONFIG.format(code_stub="\n".join(nbtools.code_stub()), text_stub="\n".join(nbtools.MARKDOWN_STUB),
                         lesson_folder=LESSON_FOLDER)


def write_course(root: Path, target: Path) -> list[str]:
    """Write the nbgrader course made from ``root``'s solutions and lessons into ``target``;
    returns the assignment names."""
    names = []
    for solution in nbtools.lessons_in(root / "solutions"):  # not a copy left beside them
        folder = target / "source" / solution.stem
        folder.mkdir(parents=True)
        nbtools.write(assignment(nbtools.read(solution), solution.name), folder / solution.name)
        lesson = root / "notebooks" / solution.name
        if lesson.exists():
            (folder / LESSON_FOLDER).mkdir()
            nbtools.write(read_only(nbtools.read(lesson)), folder / LESSON_FOLDER / solution.name)
        names.append(solution.stem)
    (target / "nbgrader_config.py").write_text(config(), encoding="utf-8")
    return names
