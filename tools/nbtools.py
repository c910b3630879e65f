"""Exercise notebooks from solution notebooks, and the rules the tests share with the build.

- ``make_exercise(solution)``: the learner's notebook. Each ``### BEGIN SOLUTION`` ...
  ``### END SOLUTION`` block becomes ``# YOUR CODE HERE`` and a
  ``raise NotImplementedError("Exercise N is not started: ...")`` naming the exercise it
  is in, at the block's indentation (in a markdown cell: ``YOUR ANSWER HERE``); the lines
  from ``### BEGIN HIDDEN TESTS`` to ``### END HIDDEN TESTS`` are dropped; every output and
  execution count is cleared. These are nbgrader's ClearSolutions / ClearHiddenTests
  conventions (nbgrader's blank raises a bare ``NotImplementedError()``), written here so
  that nothing needs nbgrader.
  An answer cell also records how many blanks it holds and its place among the notebook's
  answer cells (``metadata["tinyad"] = {"blanks": 2, "answer": 5}``), so the score table can tell
  an exercise begun from one not started, even where JupyterLab split a cell (each part keeps
  the metadata). An exercise's heading cell records its row (``metadata["tinyad"]["exercise"]``),
  so the row stays whatever the learner writes over the heading, and the ids of the exercise's
  code cells (``metadata["tinyad"]["cells"]``), so the table can tell a cell the learner added.
  A check cell records its fingerprint (``metadata["tinyad"]["check"]``), so the table can tell
  a check the learner changed (wrapped in a ``try``, its expected value edited) from the one
  handed out; every other code cell handed out records its own (``metadata["tinyad"]["given"]``),
  so the table can tell a set-up cell changed, and a code cell added anywhere (the notebook's own
  ``metadata["tinyad"]`` says that it records every cell so).
- ``normalise(nb)``: the one notebook metadata the course keeps (the ``python3``
  kernelspec, the language name) and, per cell, only its tags and ``metadata["tinyad"]`` (an
  answer cell's blanks and number; an exercise heading cell's row and code cells, ``{"exercise":
  "Exercise 2: ...", "cells": [...]}``; a check cell's fingerprint, ``{"check": ...}``, any other
  code cell's, ``{"given": ...}``), so
  writing a notebook twice gives the same bytes; no cell's source ends in a blank line.
  No widget state and no widget views are
  stored: opened trusted but not run, JupyterLab would draw them as dead widgets, where the
  text form each widget output carries beside its view reads well (the stepper's sentence,
  the progress bar's last line). A cell marked ``# NBVAL_RAISES_EXCEPTION`` gets the
  ``raises-exception`` tag beside it, without which JupyterLab's Run All stops there.
- ``is_check_cell(cell)``: a check cell is a code cell that calls a ``grading.``
  helper (``grading.check_close(...)``), carries the tag ``check``, or was handed out as one
  (its fingerprint in its metadata): the score table's rule, imported from it.
- ``read(path)``: how every script here reads a notebook (the course's, a learner's, a student's
  submission): as nbformat 4, validated, and a file that is none (empty, cut short, a merge's markers,
  an nbformat 5, a cell whose source is null) raises ``NotebookReadError``, naming the file and what
  is wrong (``what_is_wrong``, the score table's words for it). The engine package reads a learner's
  notebooks on its own, in the score table (``src/tinyad/course/score_table.py``,
  ``pytest_collect_file``): an installed package cannot import ``tools/``.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from tinyad.course.score_table import (  # what the table reads
    COURSE_KEY, EDITED_EXERCISE, EVERY_CELL, EXERCISE, STUB_COMMENT, Exercise, blank_line, exercise_headings,
    fingerprint, is_check_cell, what_is_wrong,
)

BEGIN_SOLUTION = re.compile(r"^\s*#+\s*BEGIN SOLUTION\s*$")
END_SOLUTION = re.compile(r"^\s*#+\s*END SOLUTION\s*$")
BEGIN_HIDDEN = re.compile(r"^\s*#+\s*BEGIN HIDDEN TESTS\s*$")
END_HIDDEN = re.compile(r"^\s*#+\s*END HIDDEN TESTS\s*$")
MARKDOWN_STUB = ["YOUR ANSWER HERE"]

KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
RAISES_MARKER = "NBVAL_RAISES_EXCEPTION"  # nbval's marker for a cell that raises on purpose
RAISES_TAG = "raises-exception"  # the tag JupyterLab and nbclient read for the same thing
# A lesson's notebook is NN_words.ipynb; anything else beside the lessons (an Untitled.ipynb, a copy
# JupyterLab's Duplicate makes, 01_value-Copy1.ipynb) is a learner's, not the course's.
LESSON_NAME = re.compile(r"[0-9][0-9]_[a-z0-9_]+\.ipynb")


def is_lesson(name: str) -> bool:
    """Whether a notebook's file name is a lesson's (``01_value.ipynb``), not a copy or a stray."""
    return LESSON_NAME.fullmatch(name) is not None


def lessons_in(folder: Path) -> list[Path]:
    """The lessons' notebooks in ``folder`` (``notebooks/``, ``solutions/``), by name; copies and
    strays left beside them (``01_value-Copy1.ipynb``, ``Untitled.ipynb``) are not among them."""
    return sorted(path for path in folder.glob("*.ipynb") if is_lesson(path.name))


def solution_blocks(cell: NotebookNode) -> int:
    """How many ``### BEGIN SOLUTION`` blocks a cell holds (a marker spelt with any number of #)."""
    return sum(bool(BEGIN_SOLUTION.match(line)) for line in cell.source.splitlines())


def has_solution(cell: NotebookNode) -> bool:
    """Whether a cell holds a ``### BEGIN SOLUTION`` block."""
    return solution_blocks(cell) > 0


def _replace_blocks(
    source: str, begin: re.Pattern, end: re.Pattern, stub: list[str], name: str, where: str
) -> str:
    """Replace each block from a ``begin`` line to an ``end`` line, markers included, by
    ``stub`` indented like the ``begin`` line; unbalanced markers raise ``ValueError``."""
    out: list[str] = []
    inside = False
    for number, line in enumerate(source.splitlines(), start=1):
        if begin.match(line):
            if inside:
                raise ValueError(f"{where}, line {number}: BEGIN {name} inside a {name} block")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + s for s in stub)
        elif end.match(line):
            if not inside:
                raise ValueError(f"{where}, line {number}: END {name} without BEGIN {name}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{where}: BEGIN {name} is never closed by END {name}")
    return "\n".join(out)


def clear_solutions(source: str, stub: list[str], where: str) -> str:
    """Replace each BEGIN/END SOLUTION block with ``stub``, indented like the BEGIN line."""
    return _replace_blocks(source, BEGIN_SOLUTION, END_SOLUTION, stub, "SOLUTION", where)


def drop_hidden_tests(source: str, where: str) -> str:
    """Remove the lines from BEGIN HIDDEN TESTS to END HIDDEN TESTS, markers included."""
    return _replace_blocks(source, BEGIN_HIDDEN, END_HIDDEN, [], "HIDDEN TESTS", where)


def normalise(nb: NotebookNode) -> NotebookNode:
    """Keep only the metadata the course needs, in place; returns ``nb``."""
    metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    if COURSE_KEY in nb.metadata:  # an exercise notebook's word that every cell it hands out records itself
        metadata[COURSE_KEY] = dict(nb.metadata[COURSE_KEY])
    nb.metadata = nbformat.from_dict(metadata)
    for cell in nb.cells:
        cell.source = cell.source.rstrip("\n")  # as a text form gives it back (tools/textforms.py)
        kept = {}
        tags = list(cell.metadata.get("tags", []))
        if cell.cell_type == "code" and RAISES_MARKER in cell.source and RAISES_TAG not in tags:
            tags.append(RAISES_TAG)
        if tags:
            kept["tags"] = tags
        if COURSE_KEY in cell.metadata:
            kept[COURSE_KEY] = dict(cell.metadata[COURSE_KEY])
        cell.metadata = nbformat.from_dict(kept)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
        if "outputs" in cell:
            cell.outputs = coalesce_streams(cell.outputs)
    return nb


def coalesce_streams(outputs: list) -> list:
    """Consecutive printed outputs of one stream as one: the kernel cuts a cell's prints where it
    happened to flush, which differs from run to run (nbval joins them the same way)."""
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
            previous["text"] = previous["text"] + output["text"]
        else:
            merged.append(output)
    return merged


def code_stub(exercise: str | None = None) -> list[str]:
    """The lines that replace a solution block in exercise ``exercise`` (its number)."""
    return [STUB_COMMENT, blank_line(exercise)]


# A line that reads like a solution marker or an exercise heading, spelled in any way: each must
# be spelled exactly as the build and the score table read it.
LIKE_A_MARKER = re.compile(r"^\s*#+\s*(BEGIN|END)[\s_-]*SOLU", re.IGNORECASE)
LIKE_A_HEADING = re.compile(r"^##(?!#)\s*Exercise\b", re.IGNORECASE)  # level 2, where exercises begin


def checked_exercise(solution: NotebookNode, name: str) -> NotebookNode:
    """The exercise notebook made from ``solution``, once its exercises are checked: a ValueError unless
    they are as the build and the score table read them: headings ``## Exercise N: title`` numbered
    1, 2, ... in order, solution markers spelled exactly, and a solution block in every exercise and in
    no cell outside one. A misspelled marker would hand the answer out; a heading without its colon
    would leave its blanks outside every exercise."""
    numbers = []
    for index, cell in enumerate(solution.cells):
        for line in cell.source.splitlines():
            where = f"{name}, cell {index}: {line.strip()!r}"
            if LIKE_A_MARKER.match(line) and not (BEGIN_SOLUTION.match(line) or END_SOLUTION.match(line)):
                raise ValueError(f"{where} reads like a solution marker: write ### BEGIN SOLUTION or "
                                 "### END SOLUTION exactly, or the answer is handed out")
            if cell.cell_type == "markdown" and (LIKE_A_HEADING.match(line) or EDITED_EXERCISE.match(line)):
                if not EXERCISE.match(line):
                    raise ValueError(f"{where} reads like an exercise heading: write ## Exercise N: title")
                numbers.append(int(re.search(r"\d+", line).group()))
    if numbers != list(range(1, len(numbers) + 1)):
        raise ValueError(f"{name}: the exercises are numbered {numbers}: number them 1, 2, ... in order")
    sections = exercise_headings(solution.cells)
    answered = set()
    for index, (cell, section) in enumerate(zip(solution.cells, sections)):
        if has_solution(cell):
            if section is None:
                raise ValueError(f"{name}, cell {index}: a solution block outside every exercise (its blank "
                                 "would count for none): put it under a ## Exercise N: title heading")
            answered.add(section)
    for section in dict.fromkeys(s for s in sections if s is not None):  # each once, in order
        if section not in answered:
            raise ValueError(f"{name}: {section[1]} has no ### BEGIN SOLUTION block: its answer would be "
                             "handed out")
    return make_exercise(solution, name)  # a block left open, or closed twice, is refused there by name


def make_exercise(solution: NotebookNode, name: str = "notebook") -> NotebookNode:
    """The learner's notebook made from a solution notebook (which is left unchanged)."""
    nb = copy.deepcopy(solution)
    headings = exercise_headings(nb.cells)  # (index of the heading cell, its row) for each cell
    answers = 0  # answer cells so far: each is numbered, so the table knows a split one's parts
    for index, cell in enumerate(nb.cells):
        where = f"{name}, cell {index}"
        if cell.cell_type == "code":
            number = Exercise(headings[index][1]).number if headings[index] else None  # None: outside them
            answer = has_solution(cell)
            if answer:
                answers += 1
                cell.metadata[COURSE_KEY] = {"blanks": solution_blocks(cell), "answer": answers}
            cell.source = clear_solutions(cell.source, code_stub(number), where)
            cell.source = drop_hidden_tests(cell.source, where)
            cell.outputs = []
            cell.execution_count = None
            # A check as handed out, to tell one changed (not one with a blank: the learner writes in it);
            # any other code cell handed out too (a set-up cell), to tell one changed from one added.
            if number and is_check_cell(cell) and not answer:
                cell.metadata[COURSE_KEY] = {**cell.metadata.get(COURSE_KEY, {}), "check": fingerprint(cell.source)}
            elif not answer and "blanks" not in cell.metadata.get(COURSE_KEY, {}):  # an answer cell of an
                # exercise notebook made again (make_exercise is a fixed point on its own output)
                cell.metadata[COURSE_KEY] = {**cell.metadata.get(COURSE_KEY, {}), "given": fingerprint(cell.source)}
        elif cell.cell_type == "markdown":
            cell.source = clear_solutions(cell.source, MARKDOWN_STUB, where)
            if headings[index] and headings[index][0] == index:  # an exercise's heading cell: its row,
                # as the table names it, kept there in case the learner rewrites the heading, and the
                # code cells handed out with it, so the table can tell a cell the learner added
                handed_out = [c.id for c, h in zip(nb.cells, headings)
                              if h == headings[index] and c.cell_type == "code"]
                cell.metadata[COURSE_KEY] = {**cell.metadata.get(COURSE_KEY, {}), "exercise": headings[index][1],
                                             "cells": handed_out}
    nb.metadata[COURSE_KEY] = dict(EVERY_CELL)
    return normalise(nb)


class NotebookReadError(ValueError):
    """A file that is not a notebook ``read`` can read: ``path``, and ``why`` (the error, its first line)."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path} is not a notebook that can be read ({why})")
        self.path, self.why = path, why


# What nbformat raises for a file that is no notebook: OSError (none there, a folder), ValueError (not
# UTF-8, not JSON, an nbformat 5), AttributeError or TypeError (JSON of another shape: a list, null
# cells), ValidationError (a notebook without its cells).
READING_FAILS = (OSError, ValueError, TypeError, AttributeError, nbformat.ValidationError)


def read(path: Path) -> NotebookNode:
    """Read a notebook as nbformat 4, validated; ``NotebookReadError`` for a file that is none.
    nbformat only logs what its validation finds (a cell whose source is null), and the notebook
    would fail later, in whatever reads that cell."""
    invalid: dict = {}
    try:
        nb = nbformat.read(str(path), as_version=4, capture_validation_error=invalid)
    except READING_FAILS as error:
        raise NotebookReadError(path, what_is_wrong(error)) from error
    if invalid:
        raise NotebookReadError(path, what_is_wrong(invalid["ValidationError"])) from invalid["ValidationError"]
    return nb


def dumps(nb: NotebookNode) -> str:
    """The exact text the course stores for a notebook (nbformat's JSON, newline at the end)."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def write(nb: NotebookNode, path: Path) -> None:
    """Write a notebook as ``dumps`` gives it, with Unix line endings."""
    Path(path).write_text(dumps(nb), encoding="utf-8", newline="\n")
