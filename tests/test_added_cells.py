"""tools/added_cells.py: what nbgrader does not flag in a submission (an added cell, a deleted
check cell), found in submissions made from the nbgrader course the build writes (no nbgrader
needed: the course is written by tools/nbgrader_course.py)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest

from test_exercises import ROOT  # puts tools/ on the path
import added_cells  # noqa: E402  (tools/)
import nbgrader_course  # noqa: E402  (tools/)

ASSIGNMENT = "01_value"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    nbgrader_course.write_course(ROOT, root)
    return root


def submit(course, student: str, change=None):
    """The source notebook as a student submits it, after ``change`` to its cells."""
    source = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    target = course / "submitted" / student / ASSIGNMENT / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(source, as_version=4)
    if change:
        change(nb.cells)
    nbformat.write(nb, target)
    return target


def test_a_clean_submission_gives_nothing(course, capsys):
    assert added_cells.main([str(submit(course, "clean"))]) == 0
    assert capsys.readouterr().out == ""


def test_an_added_cell_and_a_deleted_check_are_named(course, capsys):
    def tamper(cells):
        checks = [k for k, c in enumerate(cells) if c.metadata.nbgrader.get("grade")]
        del cells[checks[-1]]
        cells.insert(3, nbformat.v4.new_code_cell("\n\ngrading.check = lambda *args: None"))

    submission = submit(course, "mallory", tamper)
    assert added_cells.main([str(submission)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "mallory 01_value.ipynb: added code cell at position 4: grading.check = lambda *args: None"
    assert out[1].startswith("mallory 01_value.ipynb: lacks check cell ex") and len(out) == 2


def test_a_deleted_cell_that_is_no_check_is_not_a_lacking_check(course, capsys):
    # Only an autograded code cell is a check: a locked markdown cell or an answer cell has a grade id too.
    def tamper(cells):
        answer = next(k for k, c in enumerate(cells) if c.metadata.nbgrader.get("solution"))
        del cells[answer]
        del cells[next(k for k, c in enumerate(cells) if c.cell_type == "markdown")]
        cells.append(nbformat.v4.new_markdown_cell(note))

    note = "A note of mine, " + "much longer than one line of a finding, " * 3
    submission = submit(course, "grace", tamper)
    assert added_cells.main([str(submission)]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    last = len(nbformat.read(submission, as_version=4).cells)
    assert line == f"grace 01_value.ipynb: added markdown cell at position {last}: {note[:70]}"  # cut at 70
    assert len(note) > 70


def test_without_the_course_source_it_says_what_it_can_not_compare(tmp_path, course, capsys):
    elsewhere = tmp_path / "a" / "b" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    elsewhere.parent.mkdir(parents=True)
    shutil.copy(submit(course, "clean"), elsewhere)
    assert added_cells.main([str(elsewhere)]) == 1
    source = tmp_path / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"  # the course is the folder above a/
    assert capsys.readouterr().out == (f"b {ASSIGNMENT}.ipynb: no {source} to compare with: "
                                       "only added cells are listed\n")


@pytest.mark.skipif(os.name != "posix" or Path("/tmp").resolve() != Path("/tmp") or not os.access("/tmp", os.W_OK),
                    reason="needs a folder of its own just under the file system's root: /tmp/<folder>/")
def test_a_notebook_too_near_the_root_for_a_course_says_so(capsys):
    # Too few folders above it for <course>/submitted/<student>/<assignment>/: it said "no None to compare with".
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        submission = folder / f"{ASSIGNMENT}.ipynb"
        given = nbformat.v4.new_code_cell("import math", metadata={"nbgrader": {"grade_id": "setup", "locked": True}})
        nbformat.write(nbformat.v4.new_notebook(cells=[given]), submission)
        assert added_cells.main([str(submission)]) == 1
        assert capsys.readouterr().out == (
            f"tmp {ASSIGNMENT}.ipynb: {submission} is in no course's submitted/<student>/<assignment>/ folder, so "
            "there is no source notebook to compare with: only added cells are listed\n")
    finally:
        shutil.rmtree(folder)


def test_a_notebook_outside_the_course_layout_or_none_at_all_is_named(tmp_path, monkeypatch, capsys):
    # Named as x.ipynb, from its own folder, it had too few folders above it for the course's: an
    # IndexError from pathlib. A name that is no file was nbformat's FileNotFoundError.
    monkeypatch.chdir(tmp_path)
    given = nbformat.v4.new_code_cell("import math", metadata={"nbgrader": {"grade_id": "setup", "locked": True}})
    nbformat.write(nbformat.v4.new_notebook(cells=[given, nbformat.v4.new_code_cell("1 + 1")]), tmp_path / "x.ipynb")
    assert added_cells.main(["x.ipynb"]) == 1
    out = capsys.readouterr().out
    assert "added code cell at position 2: 1 + 1" in out and "only added cells are listed" in out
    with pytest.raises(SystemExit):
        added_cells.main(["missing.ipynb"])
    assert "no such notebook: missing.ipynb" in capsys.readouterr().err


def test_added_cells_py_says_what_it_does(capsys):
    with pytest.raises(SystemExit):
        added_cells.main(["--help"])
    assert " ".join(added_cells.__doc__.split("\n\n")[0].split()) in " ".join(capsys.readouterr().out.split())


def test_a_notebook_without_nbgrader_metadata_is_named_as_such(tmp_path, capsys):
    # An exercise notebook from exercises/: every one of its cells was listed as added by the student.
    shutil.copy(ROOT / "exercises" / f"{ASSIGNMENT}.ipynb", tmp_path / f"{ASSIGNMENT}.ipynb")
    assert added_cells.main([str(tmp_path / f"{ASSIGNMENT}.ipynb")]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "no cell carries nbgrader's metadata" in out and "score table" in out


def test_a_copy_left_beside_the_solutions_is_no_assignment(tmp_path):
    # JupyterLab's Duplicate in solutions/ made 01_value-Copy1.ipynb, and the course got an
    # assignment "01_value-Copy1" (the release, an exercise of it), by a glob of every notebook.
    (tmp_path / "solutions").mkdir()
    for name in (f"{ASSIGNMENT}.ipynb", f"{ASSIGNMENT}-Copy1.ipynb", "Untitled.ipynb"):
        shutil.copyfile(ROOT / "solutions" / f"{ASSIGNMENT}.ipynb", tmp_path / "solutions" / name)
    assert nbgrader_course.write_course(tmp_path, tmp_path / "course") == [ASSIGNMENT]
    assert [p.name for p in nbgrader_course.nbtools.lessons_in(tmp_path / "solutions")] == [f"{ASSIGNMENT}.ipynb"]


def split_answer(cells: list, above: str = "") -> None:
    """JupyterLab's Split Cell in the first answer cell, ``above`` the cursor: both parts keep the
    cell's metadata, nbgrader's grade id with it."""
    k = next(k for k, c in enumerate(cells) if c.cell_type == "code" and c.metadata["nbgrader"]["solution"])
    part = nbformat.from_dict(cells[k])
    part.source, part.id = above, "split-above"
    cells.insert(k, part)


def test_a_grade_id_in_two_cells_is_named_and_mended(course, capsys):
    # nbgrader autograde stopped the whole run at such a submission ("old version of the nbgrader
    # metadata format"), and graded no student after it.
    submission = submit(course, "frank", lambda cells: split_answer(cells, above="x = 1"))
    assert added_cells.main([str(submission)]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"frank 01_value.ipynb: grade id \S+ is in 2 cells, at positions (\d+), (\d+) \(a cell split "
                        r"in two, or pasted again\): nbgrader autograde stops at this submission.*--mend\)", line), line
    first = int(re.search(r"positions (\d+)", line).group(1))
    assert added_cells.main(["--mend", str(submission)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert (out[0].startswith("frank 01_value.ipynb: mended: grade id ")
            and out[0].endswith(f"at position {first + 1} only"))
    assert out[1:] == [f"frank 01_value.ipynb: added code cell at position {first}: x = 1"]
    assert added_cells.repeated_ids(nbformat.read(submission, as_version=4)) == {}


def test_a_renamed_notebook_is_named_with_the_assignments_name(course, capsys):
    renamed = submit(course, "dave").rename(course / "submitted" / "dave" / ASSIGNMENT / f"{ASSIGNMENT}-Copy1.ipynb")
    assert added_cells.main([str(renamed)]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line == (f"dave {ASSIGNMENT}-Copy1.ipynb: the assignment has no notebook named {ASSIGNMENT}-Copy1.ipynb "
                    f"(renamed?), so nbgrader grades the submission 0: rename it to {ASSIGNMENT}.ipynb and autograde "
                    f"this student again (nbgrader autograde {ASSIGNMENT} --student dave)")
    # A copy left beside the notebook (JupyterLab's Duplicate) is skipped, and the notebook graded:
    # renaming the copy over it would lose the student's work.
    shutil.copy(renamed, submit(course, "dave"))
    assert added_cells.main([str(renamed)]) == 1
    assert capsys.readouterr().out == (f"dave {ASSIGNMENT}-Copy1.ipynb: the assignment has no notebook named "
                                       f"{ASSIGNMENT}-Copy1.ipynb: nbgrader skips it, and grades "
                                       f"{ASSIGNMENT}.ipynb beside it\n")


def test_a_submission_that_is_no_notebook_is_named_and_the_others_still_checked(course, capsys):
    # One empty or corrupt submission, or metadata a student's editor changed, stopped the run
    # with a traceback: every student after it went unchecked.
    broken = course / "submitted" / "broken" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("<<<<<<< HEAD\n", encoding="utf-8")

    def odd_metadata(cells):
        checks = [k for k, c in enumerate(cells) if c.metadata.nbgrader.get("grade")]
        cells[checks[0]].metadata["nbgrader"] = None  # the check cell now reads as one they added
        cells[checks[1]].metadata.nbgrader["grade_id"] = ["a", "list"]

    odd = submit(course, "odd", odd_metadata)
    null = submit(course, "null", lambda cells: cells[0].update(source=None))  # nbformat reads it, and
    # writes it: it was read too, to fail in the check of the cell (AttributeError: 'NoneType' ...)
    assert added_cells.main([str(broken), str(null), str(odd), str(submit(course, "clean"))]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("broken 01_value.ipynb: not a notebook this can read (NotJSONError")
    assert out[1] == ("null 01_value.ipynb: not a notebook this can read (NotebookValidationError: None is not valid "
                      "under any of the given schemas, at cells/0/source): nbgrader cannot grade it either; look at "
                      "it by hand")
    assert any(line.startswith("odd 01_value.ipynb: added code cell at position") for line in out)
    assert any(line.startswith("odd 01_value.ipynb: lacks check cell ex") for line in out)
    assert not any(line.startswith("clean") for line in out)


def test_a_course_source_that_is_no_notebook_is_named_with_what_is_wrong(tmp_path, course, capsys):
    # It said only the error's type: (NotJSONError).
    (tmp_path / "source" / ASSIGNMENT).mkdir(parents=True)
    (tmp_path / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").write_text("<<<<<<< HEAD\n", encoding="utf-8")
    submission = tmp_path / "submitted" / "erin" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    submission.parent.mkdir(parents=True)
    shutil.copy(submit(course, "clean"), submission)
    assert added_cells.main([str(submission)]) == 1
    assert capsys.readouterr().out == (
        f"erin {ASSIGNMENT}.ipynb: the course's {tmp_path / 'source' / ASSIGNMENT / ASSIGNMENT}.ipynb is not a "
        "notebook this can read (NotJSONError: Notebook does not appear to be JSON: '<<<<<<< HEAD\\n'): only "
        "added cells are listed\n")
