"""The score table: a pytest plugin that ends ``pytest --nbval-lax exercises/`` with one row per exercise.

The repository's ``conftest.py`` loads it (``pytest_plugins``), so it is active from the
repository root, from ``exercises/`` and in a learner's copy of the course. It only speaks
when notebooks are graded lax (``--nbval-lax``, the learner's command) and they hold exercises.
It uses only pytest's documented interface (a hook wrapper, ``item.path``,
``config.invocation_params``), so that it runs alike under pytest 8 and later (pyproject.toml
asks for ``pytest>=8``, with no upper bound; CI runs its tests under the oldest allowed too).
Each notebook is named as the learner would type it from the folder pytest was started in.
For a notebook outside the course, where no ``conftest.py`` of the course is read, name the
plugin: ``python -m pytest -p tinyad.course.score_table --nbval-lax path/to/NN_name.ipynb``.

Each notebook has a line, ``path  (2 of 3 passed)``, with the count of code cells the learner
added where there are any (the cells its rows find added, and those outside its exercises), and of
the code cells handed out (a set-up cell, say) that the learner changed, told as the rows tell a
check changed: they run in the kernel the checks run in, so whoever grades a notebook reads them (an
exercise notebook records each code cell it hands out beside the answers and checks, with its
``fingerprint``, in ``metadata["tinyad"]["given"]``). A notebook that cannot be read (a file
cut short, not JSON, a cell's tags left null) is left out of the run, and its line says so, and
where it is wrong (``what_is_wrong``): pytest would otherwise stop at it before any notebook ran
(it fails, on its own).

An exercise is a level-2 markdown heading ``## Exercise N: title`` and every cell after it
up to the next level-2 heading; its check cells are the code cells that call a ``grading.``
helper (outside a comment), carry the tag ``check``, or were handed out as check cells (their
fingerprint in their metadata, whatever they were rewritten to: ``is_check_cell``). Its row says

- ``passed``: every code cell of the exercise ran without an error, its check cells among
  them, and none of its blanks is left;
- ``not started``: the first cell that failed raised the blank's ``NotImplementedError``, or
  every cell ran with every blank still there (where the learner added a cell of code to the
  exercise, the row says to write the answer in the blank's place: the heading cell records the
  ids of the code cells handed out, ``metadata["tinyad"]["cells"]``, and each code cell handed out
  carries a mark of its own, which tells the cells added under a heading the learner wrote again:
  ``added_by_learner``);
- ``in progress``: the same, but some of the exercise's blanks are filled in (an answer
  cell records how many blanks it was given, in ``metadata["tinyad"]["blanks"]``); or every
  check passed with a blank still there, on an answer written in a cell of its own (the row
  says to write it in the blank's place);
- ``not checked``: every cell that is left ran without an error and no blank is left, but no
  check cell ran as a check: it was deleted, skipped (``# NBVAL_SKIP``), marked to raise (nbval
  passes such a cell when it raises), cut off from the exercise by a level-2 heading
  written above it, or changed from the check handed out (wrapped in a ``try``, its expected
  value edited: an exercise notebook records each check cell's ``fingerprint``, in
  ``metadata["tinyad"]["check"]``; split into parts that still hold its lines, or pasted again
  beside itself, it is unchanged: ``as_handed_out``); or a check cell said what it left unchecked
  (``grading.not_checked``, as lesson 03's does for its PyTorch half where PyTorch is missing);
- ``not run``: nbval did not run its cells, because an earlier cell stopped the kernel (a
  crash, or a timeout), or pytest stopped before them (``-x``, ``--maxfail``, Ctrl-C): every
  notebook pytest collected has its rows;
- ``failed``: the first cell that failed raised anything else; the row gives the first line
  of the check's hint (for a ``tinyad.course.grading`` check), what the learner's code raised
  (where the check says so: it expected ``NO_ERROR``), a timeout, or the error's name and message.

A code blank is two lines, defined here once for the exercise maker and the table: nbgrader's
``# YOUR CODE HERE``, then a ``raise NotImplementedError(...)`` whose message names the exercise
and says where to write (``blank_line``). The table counts a blank by that second line, and
also counts nbgrader's bare ``raise NotImplementedError()`` under its ``# YOUR CODE HERE``.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import pytest

# The checks' own words, read back from their messages and printed lines: NO_ERROR, what a check
# expects where the learner's code raised; NOT_CHECKED_PREFIX, how grading.not_checked begins a line.
from tinyad.course.grading import NO_ERROR, NOT_CHECKED_PREFIX

PASSED, FAILED, IN_PROGRESS, NOT_STARTED, NOT_CHECKED, NOT_RUN = (
    "passed", "failed", "in progress", "not started", "not checked", "not run")
STUB_COMMENT = "# YOUR CODE HERE"  # the first line of a code blank (nbgrader's)
# The course's own cell metadata (``course_metadata`` reads it; any other code cell handed out:
# {"given": its fingerprint}): an answer cell's {"blanks": code blanks it
# was given, "answer": its number}; an exercise heading cell's {"exercise": "Exercise N: title", "cells":
# [the ids of its code cells]}, its row whatever the learner made of the heading; a check cell's
# {"check": its fingerprint}; and in the nbgrader course a heading cell's {"points": ...}.
COURSE_KEY = "tinyad"
EXERCISE = re.compile(r"^##\s+(Exercise\s+\d+\s*:.*?)\s*$", re.MULTILINE)  # as the solutions write it
SECTION = re.compile(r"^##\s", re.MULTILINE)
RECORDED_EXERCISE = re.compile(r"^Exercise \d+(: .*)?$")  # a heading cell's recorded row, as make_exercise writes it
# An exercise's heading as a learner may have edited it: marks before it ("## ✅ Exercise 2: ...",
# "## [x] DONE Exercise 2: ..."), a dash for its colon, its level changed to 1, 3 or 4, in bold (read
# with its **s taken out). Read so, its row stays (it was dropped, and its cells joined the exercise
# before it).
# (Each step of the prefix takes one character or one mark, never a run: runs of runs would backtrack
# exponentially on a heading of dashes.)
EDITED_EXERCISE = re.compile(r"^#{1,4}\s+(?:[^\w\n]|\[[ x]\]|done\b|todo\b)*Exercise\s+(\d+)\s*"
                             r"[:.\-\u2013\u2014]?\s*(.*?)\s*$", re.IGNORECASE)
HINT = re.compile(r"^\s*hint:\s*(.*)$", re.MULTILINE)
CHECK_CALL = re.compile(r"^[^#\n]*\bgrading\.\w+\(", re.MULTILINE)  # calls a tinyad.course.grading helper
CHECK_TAG = "check"  # ... or carries this tag
# Marks under which nbval passes a cell that raises: a check cell so marked checks nothing.
MAY_RAISE_TAG, MAY_RAISE_COMMENT = "raises-exception", "NBVAL_RAISES_EXCEPTION"
# Where a check says the learner's code raised (it expected NO_ERROR), the row says what was raised,
# not the check's hint, which is about a right answer's form.
EXPECTED_NO_ERROR = re.compile(rf"^\s*expected:\s*{NO_ERROR}$", re.MULTILINE)
GOT = re.compile(r"^\s*got:\s*(.*)$", re.MULTILINE)
BLANK_ERRORS = ("NotImplementedError", "NotStarted")  # grading.NotStarted is a NotImplementedError
CHECK_FAILURES = ("AssertionError", "CheckFailed")  # tinyad.course.grading.CheckFailed is an AssertionError
# A code blank's last line: blank_line's, or nbgrader's bare ``raise NotImplementedError()`` under
# its ``# YOUR CODE HERE`` (a learner's own bare raise in an answer is no blank).
BLANK = re.compile(r'^[ \t]*raise NotImplementedError\("[^"\n]* is not started: [^"\n]*"\)[ \t]*$'
                   r'|^[ \t]*# YOUR CODE HERE[ \t]*\n[ \t]*raise NotImplementedError\(\)[ \t]*$', re.MULTILINE)


CHANGED_CHECK = "its check cell was changed from the one handed out: put it back as it was"


def blank_line(number: str | None = None) -> str:
    """The line that ends a code blank of exercise ``number``: it raises a NotImplementedError
    that names the exercise and says where the answer goes, in words that read as well in the answer
    cell as in the check cell that meets it (which shows the message alone)."""
    exercise = f"Exercise {number}" if number else "This exercise"
    return (f'raise NotImplementedError("{exercise} is not started: in its answer cell, replace the lines '
            f"'{STUB_COMMENT}' and 'raise NotImplementedError(...)' with your code\")")


def blanks_in(source: str) -> int:
    """How many code blanks ``source`` still holds."""
    return len(BLANK.findall(source))


def is_check_cell(cell: Any) -> bool:
    """A code cell that calls ``grading.<helper>(...)`` (not in a comment), is tagged ``check``, or
    was handed out as a check (its fingerprint in its metadata), whatever it was rewritten to."""
    if cell.cell_type != "code":
        return False
    tags = cell.metadata.get("tags")  # a list; null or text where an editor left it so
    return (isinstance(tags, list) and CHECK_TAG in tags or bool(CHECK_CALL.search(cell.source))
            or "check" in course_metadata(cell))


def fingerprint(source: str) -> str:
    """A check cell's source, summed up: the same for the same lines, whatever the spaces at their ends."""
    lines = "\n".join(line.rstrip() for line in source.strip("\n").splitlines())
    return hashlib.sha256(lines.encode()).hexdigest()[:16]


def handed_out_mark(cell: Any) -> str | None:
    """The fingerprint ``cell`` was handed out with (a check cell's, or any other code cell's but an
    answer's), or None."""
    recorded = course_metadata(cell)
    return recorded.get("given") or recorded.get("check")


def marked_runs(cells: list) -> list[list]:
    """``cells`` (code cells of one exercise, or of one stretch outside them) in runs: consecutive
    cells carrying one fingerprint together (the parts of a cell JupyterLab split, which keep its
    metadata, or copies pasted beside it), every other cell alone."""
    runs: list[list] = []
    for cell in cells:
        mark = handed_out_mark(cell)
        if runs and mark and handed_out_mark(runs[-1][0]) == mark:
            runs[-1].append(cell)
        else:
            runs.append([cell])
    return runs


# JupyterLab's split drops the blank lines at each cut, and a cell handed out has at most two in a row:
# the parts are rejoined with none, one or two put back at each cut. That is 3 ** cuts joins to try, so
# beyond a few cuts (more than a learner splits one cell into) they are rejoined at line ends alone.
CUTS, MOST_CUTS_REJOINED = ("\n", "\n\n", "\n\n\n"), 4


def as_handed_out(run: list) -> bool:
    """Whether a run of ``marked_runs`` is the cell handed out, unchanged: pasted again beside itself,
    split into parts that hold its lines in order (so it still runs every line of a check), or both:
    read in order, the run is one or more whole copies of it, each one cell or parts rejoined. Empty
    parts (a split at a cell's end, or of a selected line end) run nothing and are passed over. A check
    wrapped in a ``try``, its expected value edited, is not. The rows ask it of check cells, a
    notebook's line of every code cell handed out."""
    mark = handed_out_mark(run[0])
    parts = [cell.source.strip("\n") for cell in run if cell.source.strip()]
    # whole[start]: parts[start:] are whole copies, one after another (none left is the end of them)
    whole = [False] * len(parts) + [True]
    for start in reversed(range(len(parts))):
        whole[start] = any(whole[end] and _rejoins(parts[start:end], mark) for end in range(start + 1, len(parts) + 1))
    return bool(parts) and whole[0]


def _rejoins(parts: list[str], mark: str | None) -> bool:
    """Whether ``parts``, rejoined with the blank lines a split dropped at each cut, have the fingerprint ``mark``."""
    cuts = CUTS if len(parts) - 1 <= MOST_CUTS_REJOINED else CUTS[:1]
    for chosen in itertools.product(cuts, repeat=len(parts) - 1):
        joined = parts[0] + "".join(cut + part for cut, part in zip(chosen, parts[1:]))
        if fingerprint(joined) == mark:
            return True
    return False


def added_by_learner(cell: Any, handed_out_ids: frozenset | None, marked: bool) -> bool:
    """Whether ``cell`` is a code cell with code in it that the learner added: it carries no mark of a
    cell handed out (an answer's blanks, a fingerprint; the parts of a cell JupyterLab split, and
    copies, keep the metadata of the cell they came from), and its id is not among ``handed_out_ids``,
    the ids its exercise's heading recorded (None where none are: outside the exercises, or under a
    heading cell the learner wrote again). Such a cell is the learner's where every code cell the
    notebook handed out carries a mark (``marked``: ``EVERY_CELL``). In a notebook made before that, a
    set-up cell carried none: only an id the heading did not record tells a cell added, and a cell
    without an id (the notebook saved as nbformat 4.4) is not counted."""
    if (cell.cell_type != "code" or not cell.source.strip()
            or {"blanks", "check", "given"} & course_metadata(cell).keys()
            or cell.get("id") in (handed_out_ids or ())):
        return False
    return marked or (handed_out_ids is not None and bool(cell.get("id")))


def may_raise(cell: Any) -> bool:
    """Whether nbval passes ``cell`` when it raises (``raises-exception``, ``# NBVAL_RAISES_EXCEPTION``)."""
    return MAY_RAISE_TAG in cell.metadata.get("tags", []) or MAY_RAISE_COMMENT in cell.source


@dataclass
class Exercise:
    """One row: the heading, the code cells under it, and the first failure among them."""

    heading: str
    cells: list = field(default_factory=list)
    ran: int = 0
    not_run: int = 0  # cells nbval passed over (xfail) after an earlier cell stopped the kernel
    failure: tuple[str, str] | None = None  # (exception name, message) of the first failed cell
    checked: int = 0  # check cells that ran and passed
    unchecked: str = ""  # what a check cell that passed said it did not check
    given: frozenset | None = None  # the ids of the code cells it was handed out with, where recorded
    marked: bool = False  # its notebook marks every code cell it handed out (EVERY_CELL)

    @property
    def number(self) -> str:
        """The N of ``Exercise N: title``."""
        return self.heading.split()[1].rstrip(":")

    def status(self) -> tuple[str, str]:
        """(word, detail): ``passed``, ``failed`` with the hint's first line, ``in progress`` with
        how many blanks are filled in, ``not started``, ``not checked`` or ``not run``, with why."""
        checks = sum(map(is_check_cell, self.cells))
        if self.failure is None:
            if self.not_run:
                return NOT_RUN, "an earlier cell stopped the kernel (a timeout, or a crash)"
            if self.ran < len(self.cells):
                return NOT_RUN, "pytest stopped before its cells (-x, --maxfail, or Ctrl-C)"
            changed = any(not as_handed_out(run) for run in marked_runs(self.cells)
                          if "check" in course_metadata(run[0]))
            given, left = self.blanks()
            if left:
                if changed:  # a check made to pass over a blank checks nothing: no answer to move
                    return NOT_CHECKED, CHANGED_CHECK
                if checks and self.checked == checks:  # the answer is in a cell of its own
                    return IN_PROGRESS, ("its check passes, but a blank's raise NotImplementedError(...) line "
                                         "is still there: write your answer in its place, and delete it")
                if left == given:
                    return self.not_started()
                return IN_PROGRESS, f"{given - left} of {given} blanks filled in, and no check failed on the rest"
            if not checks:
                return NOT_CHECKED, ("it has no check cell: deleted, turned into a Markdown cell, or cut off "
                                     "by a ## heading written above it")
            if self.unchecked:  # the check itself said so: what it could not check here
                return NOT_CHECKED, self.unchecked
            if self.checked < checks:
                return NOT_CHECKED, ("its check cell was skipped or marked to raise: remove its NBVAL_SKIP, "
                                     "NBVAL_RAISES_EXCEPTION or raises-exception")
            if changed:
                return NOT_CHECKED, CHANGED_CHECK
            return PASSED, ""
        name, message = self.failure
        if name in BLANK_ERRORS:
            given, left = self.blanks()
            if left == given:  # every blank still there (or a notebook that did not count them)
                return self.not_started()
            if left:
                return IN_PROGRESS, f"{given - left} of {given} blanks filled in"
            # No blank is left: the learner's own code raised it (grading calls any a blank's).
            return FAILED, "your code raised NotImplementedError, and no blank is left: is the raise yours?"
        if name in CHECK_FAILURES and EXPECTED_NO_ERROR.search(message):  # the learner's code raised
            return FAILED, f"your code raised {GOT.search(message).group(1).strip()}"
        hint = HINT.search(message) if name in CHECK_FAILURES else None
        if hint:
            return FAILED, hint.group(1).strip()
        lines = message.strip().splitlines()
        if not name:  # the table's own words (a timeout, a cell nbval could not run)
            return FAILED, lines[0]
        return FAILED, f"{name}: {lines[0]}" if lines else name

    def not_started(self) -> tuple[str, str]:
        """``not started``, saying so where the learner added code to the exercise: an answer written
        in a cell of its own, above its blank, runs, and the blank then raises all the same."""
        if any(not is_check_cell(cell) for cell in self.added()):
            return NOT_STARTED, ("a blank's raise NotImplementedError(...) line still runs: write your answer "
                                 "in its place, not in a cell you added")
        return NOT_STARTED, ""

    def added(self) -> list:
        """The code cells the learner added to the exercise (``added_by_learner``), which its notebook's
        line counts too. None are found in a notebook that marks not every cell it handed out, where
        the heading did not record the ids of the cells it was handed out with."""
        return [cell for cell in self.cells if added_by_learner(cell, self.given, self.marked)]

    def blanks(self) -> tuple[int, int]:
        """(blanks the exercise was given, blanks still in it), from its answer cells. The parts of
        an answer cell JupyterLab split, or a copy of one, share its metadata: its blanks are
        given once, and the blanks left are counted in every part."""
        given = left = 0
        answers = set()
        for cell in self.cells:
            recorded = course_metadata(cell)
            count = recorded.get("blanks", 0)
            if count:
                answer = recorded.get("answer", id(cell))  # an older notebook's cells are not numbered
                if answer not in answers:
                    answers.add(answer)
                    given += count
                left += blanks_in(cell.source)
        return given, left


def course_metadata(cell: Any) -> dict:
    """What the exercise notebook recorded on ``cell`` (``metadata["tinyad"]``), each field only if it
    still has the form the course wrote: ``blanks`` a whole number >= 0, ``answer`` a whole number,
    ``exercise`` a row's name, ``Exercise N: title``, ``cells`` the ids of the code cells the
    exercise was handed out with (a list of strings), ``check`` a check cell's ``fingerprint``
    as handed out, and ``given`` that of any other code cell handed out. JupyterLab's metadata editor lets a learner
    write anything there; a field edited into another form is read as absent, as in a notebook
    made before the course recorded it."""
    recorded = cell.metadata.get(COURSE_KEY)
    if not isinstance(recorded, dict):
        return {}
    kept = {}
    for key, wanted in (("blanks", int), ("answer", int), ("exercise", str), ("cells", list), ("check", str),
                        ("given", str)):
        value = recorded.get(key)
        if type(value) is wanted:  # not isinstance: True is an int, and counts no blank
            kept[key] = value
    if kept.get("blanks", 0) < 0:
        del kept["blanks"]
    if "exercise" in kept and not RECORDED_EXERCISE.match(kept["exercise"]):
        del kept["exercise"]
    if "cells" in kept and not all(type(cell_id) is str for cell_id in kept["cells"]):
        del kept["cells"]
    return kept


def exercise_headings(cells: list) -> list[tuple[int, str] | None]:
    """For each cell, the exercise it is in, as (the index of its ``## Exercise N: title``
    cell, ``Exercise N: title``), or None outside the exercises. An exercise runs from its
    heading to the next level-2 heading. An exercise notebook's heading cells say which
    exercise they head (their metadata), whatever the learner wrote over the heading; in a
    notebook without that, ``EDITED_EXERCISE`` reads a heading a learner changed."""
    found: list[tuple[int, str] | None] = []
    current = None
    for k, cell in enumerate(cells):
        recorded = course_metadata(cell).get("exercise") if cell.cell_type == "markdown" else None
        if recorded:
            if current is None or current[1] != recorded:  # a part split off, or a copy, starts no new row
                current = (k, recorded)
        elif cell.cell_type == "markdown" and "#" in cell.source:
            for line in cell.source.splitlines():
                heading = EDITED_EXERCISE.match(line.replace("**", ""))
                if heading:
                    number, title = heading.group(1), " ".join(heading.group(2).split())
                    current = (k, f"Exercise {number}: {title}" if title else f"Exercise {number}")
                elif SECTION.match(line):
                    current = None
        found.append(current)
    return found


# An exercise notebook says so in its own metadata where every code cell it hands out records what
# it is (an answer its blanks, a check or any other cell its fingerprint): ``{"tinyad": EVERY_CELL}``.
EVERY_CELL = {"given": "every code cell"}


def edits(notebook: Any) -> tuple[int, int]:
    """(code cells with code the learner added, code cells handed out that the learner changed) in
    ``notebook``. Those added to its exercises are the ones their rows find (``Exercise.added``). The
    rest need a notebook where every code cell handed out records itself (``EVERY_CELL``): the cells
    added outside the exercises, and the cells changed, told as the rows tell a check changed
    (``as_handed_out``)."""
    added = sum(len(exercise.added()) for exercise in exercises_of(notebook))
    if not marks_every_cell(notebook):
        return added, 0
    changed = 0
    code = [(cell, section) for cell, section in zip(notebook.cells, exercise_headings(notebook.cells))
            if cell.cell_type == "code"]
    for section, stretch in itertools.groupby(code, key=lambda pair: pair[1]):
        for run in marked_runs([cell for cell, _ in stretch]):
            if handed_out_mark(run[0]):
                changed += not as_handed_out(run)
            elif section is None:  # outside the exercises no heading records ids, and every cell handed
                # out there carries its mark; an answer cell copied there is checked by no exercise
                added += added_by_learner(run[0], None, marked=True) or "blanks" in course_metadata(run[0])
    return added, changed


def marks_every_cell(notebook: Any) -> bool:
    """Whether ``notebook`` marks every code cell it hands out (``EVERY_CELL``)."""
    return notebook.metadata.get(COURSE_KEY) == EVERY_CELL


def exercises_of(notebook: Any) -> list[Exercise]:
    """The exercises of a notebook, each with the code cells of its section, and whether the notebook
    marks every code cell it hands out (``marks_every_cell``), which tells the cells added to them."""
    cells, marked = notebook.cells, marks_every_cell(notebook)
    found: dict[int, Exercise] = {}
    for cell, section in zip(cells, exercise_headings(cells)):
        if section is not None:
            if section[0] not in found:
                given = course_metadata(cells[section[0]]).get("cells")
                found[section[0]] = Exercise(section[1], given=None if given is None else frozenset(given),
                                             marked=marked)
            exercise = found[section[0]]
            if cell.cell_type == "code":
                exercise.cells.append(cell)
    return list(found.values())


class ScoreTable:
    """Collects each exercise cell's outcome while pytest runs, and prints the table at the end."""

    def __init__(self) -> None:
        self.notebooks: dict[str, list[Exercise]] = {}  # in the order they ran
        self.edits: dict[str, tuple[int, int]] = {}  # each notebook's cells added, and handed out and changed
        self.owner: dict[int, Exercise] = {}  # id(cell) -> its exercise
        self.unreadable: dict[str, str] = {}  # notebooks left out, and why

    @pytest.hookimpl(wrapper=True)
    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector):
        """A notebook that cannot be read is one failing item saying why, in the place of nbval's
        collector, whose error would stop pytest before every other notebook ran (a class's folder,
        one file cut short); the table notes it."""
        collectors = yield
        if file_path.suffix != ".ipynb" or not collectors:
            return collectors
        try:
            # Validated too: nbformat reads a cell whose source is null, where nbval's collector fails.
            nbformat.validate(nbformat.read(file_path, as_version=4))
        except Exception as error:  # noqa: BLE001 (not JSON, not a notebook, not readable: all alike)
            unreadable = UnreadableNotebook.from_parent(parent, path=file_path)
            unreadable.why = what_is_wrong(error)
            return [unreadable]
        return collectors

    def exercise(self, item: Any) -> Exercise | None:
        """The exercise that ``item`` (one of nbval's notebook cells) belongs to, if any."""
        cell, notebook = getattr(item, "cell", None), getattr(item.parent, "nb", None)
        if cell is None or notebook is None:
            return None
        name = shown_path(item.parent.path, item.config.invocation_params.dir)
        if name not in self.notebooks:
            self.notebooks[name] = exercises_of(notebook)
            self.edits[name] = edits(notebook)
            for exercise in self.notebooks[name]:
                self.owner.update((id(c), exercise) for c in exercise.cells)
        return self.owner.get(id(cell))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Take every notebook to be run, in order: one that pytest stops before (-x, --maxfail,
        Ctrl-C) then has its rows, each "not run", rather than none."""
        for item in session.items:
            if isinstance(item, NotebookNotRead):  # noted only when selected: pytest collects a folder's
                # every file on its way to the one asked for
                self.unreadable[shown_path(item.path, item.config.invocation_params.dir)] = item.parent.why
            else:
                self.exercise(item)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        """Note the outcome of each exercise cell's run, and pass pytest's report on unchanged."""
        report = yield
        exercise = self.exercise(item) if report.when == "call" else None
        if exercise is not None:
            # After a cell that stopped the kernel, nbval marks every later cell xfail: run on a
            # kernel started afresh, without the state they build on, or not at all. Neither counts.
            if hasattr(report, "wasxfail"):  # failed (xfailed) or passed (xpassed): not a skip of nbval's
                exercise.not_run += 1
                return report
            exercise.ran += 1
            if report.failed and exercise.failure is None:
                exercise.failure = _error(item, call)
            if report.passed and is_check_cell(item.cell) and not may_raise(item.cell):
                said = _not_checked(item)
                if said:
                    exercise.unchecked = exercise.unchecked or said
                else:
                    exercise.checked += 1
        return report

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Print the table last, after pytest's own summary line, so it is what a learner sees."""
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and not config.getoption("collectonly"):  # nothing ran: no scores
            self.write(reporter)

    def write(self, terminalreporter: Any) -> None:
        """The table: a line per notebook with how many of its exercises passed (and how many code
        cells were added to it, or handed out and changed: they run beside the checks), a row per
        exercise, and the counts."""
        rows = [(name, ex) for name, exercises in self.notebooks.items() for ex in exercises]
        if not rows and not self.unreadable:
            return
        write = terminalreporter.write_line
        terminalreporter.write_sep("=", "score")
        width = max((len(ex.heading) for _, ex in rows), default=0)
        counts = {PASSED: 0, FAILED: 0, IN_PROGRESS: 0, NOT_STARTED: 0, NOT_CHECKED: 0, NOT_RUN: 0}
        for name, exercises in self.notebooks.items():
            statuses = [exercise.status() for exercise in exercises]
            if exercises:
                passed = sum(word == PASSED for word, _ in statuses)
                added, changed = self.edits[name]
                cells = (f"; {added} code cell{'s' if added != 1 else ''} added" if added else "") + (
                    f"; {changed} handed-out code cell{'s' if changed != 1 else ''} changed" if changed else "")
                write(f"{name}  ({passed} of {len(exercises)} passed{cells})")
            for exercise, (word, detail) in zip(exercises, statuses):
                counts[word] += 1
                write(f"  {exercise.heading:<{width}}  {word}" + (f": {detail}" if detail else ""))
        for name, why in self.unreadable.items():
            write(f"{name}  (cannot be read, so not graded: {why})")
        shown = [f"{n} {word}" for word, n in counts.items() if n or word not in (IN_PROGRESS, NOT_CHECKED, NOT_RUN)]
        unread = len(self.unreadable)
        write(f"{len(rows)} exercises: " + ", ".join(shown)
              + (f"; {unread} notebook{'s' if unread != 1 else ''} could not be read" if unread else ""))


class UnreadableNotebook(pytest.File):
    """A notebook that cannot be read, collected as one item that fails saying why."""

    why = ""

    def collect(self):
        yield NotebookNotRead.from_parent(self, name="cannot be read")


class NotebookNotRead(pytest.Item):
    def runtest(self) -> None:
        pytest.fail(f"{self.path.name} cannot be read as a notebook, so it was not graded ({self.parent.why})",
                    pytrace=False)

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"{self.path.name}: cannot be read"


def what_is_wrong(error: Exception) -> str:
    """An error in reading a notebook, in one line: its type, its message's first line, and for a
    validation error where in the notebook (``cells/3/metadata/tags``), which a learner can look up
    in JupyterLab's metadata editor."""
    lines = str(error).strip().splitlines()
    why = f"{type(error).__name__}: {lines[0][:100]}" if lines else type(error).__name__
    where = "/".join(map(str, getattr(error, "absolute_path", ())))
    return f"{why}, at {where}" if where else why


def shown_path(path: Path, start: Path) -> str:
    """``path`` as a learner would type it in ``start``, the folder pytest was started in.

    Relative to ``start`` (``exercises/01_value.ipynb`` from the repository root,
    ``01_value.ipynb`` from ``exercises/``, ``../course/exercises/01_value.ipynb`` from a folder
    beside the course), but absolute when the two share no folder but the root of the file
    system (started in ``/tmp``) or lie on different drives.
    """
    path, start = Path(path), Path(start)
    try:
        shared = Path(os.path.commonpath([path, start]))
    except ValueError:  # different drives: no relative path exists
        return path.as_posix()
    if shared == Path(shared.anchor):
        return path.as_posix()
    return Path(os.path.relpath(path, start)).as_posix()


def _not_checked(item: Any) -> str:
    """What a check cell that passed printed of a part it did not check (``grading.not_checked``), or ""."""
    for output in getattr(item, "test_outputs", None) or []:
        if output.get("output_type") != "stream":
            continue
        for line in str(output.get("text", "")).splitlines():
            if line.startswith(NOT_CHECKED_PREFIX):
                return line[len(NOT_CHECKED_PREFIX):]
    return ""


def _error(item: Any, call: pytest.CallInfo) -> tuple[str, str]:
    """(exception name, message) of a failed cell: the error output nbval recorded, or (no name)
    the table's words where the cell timed out or raised nothing (a stored output, no run number)."""
    said = str(call.excinfo.value) if call.excinfo is not None else ""
    if said.startswith("Timeout of") and "Failed to interrupt kernel" in said:  # no answer at all
        return "", ("the kernel stopped answering while this cell ran: it crashed or ran out of memory "
                    "(nbval waits --nbval-cell-timeout seconds before it says so)")
    if said.startswith("Timeout of"):  # nbval interrupted the kernel: a KeyboardInterrupt no one pressed
        return "", f"{said.splitlines()[0]} (a cell gets --nbval-cell-timeout seconds)"
    for output in getattr(item, "test_outputs", None) or []:
        if output.get("output_type") == "error":
            return output.get("ename", "Error"), output.get("evalue", "")
    if said.startswith("Unrun reference cell has outputs"):
        return "", "the cell holds outputs but no run number (saved while running?): run it again and save"
    return "", "the cell failed without an error output (a dead kernel?)"


def pytest_configure(config: pytest.Config) -> None:
    """Register the table when notebooks are graded lax (the learner's command)."""
    if config.getoption("nbval_lax", default=False):
        config.pluginmanager.register(ScoreTable(), "tinyad-score-table")
