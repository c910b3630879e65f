"""What nbgrader does not flag in the students' submissions: cells a student added, and check
cells a submission lacks.

    python tools/added_cells.py submitted/*/01_value/*.ipynb    (in the nbgrader course folder)

Every cell of an assignment that ``tools/build.py --nbgrader`` makes carries nbgrader's metadata,
so a cell without it was added by the student: it runs in the kernel the checks run in, and may
change what they see (a new ``grading``, a call of the installed engine). A check cell that a
submission lacks scores its exercise 0, and nbgrader says nothing of it. The check cells a
submission should hold are read from the course's ``source/<assignment>/`` notebook of the same
name, found from the submission's place, ``submitted/<student>/<assignment>/<notebook>``.

It also names what stops ``nbgrader autograde`` itself: a grade id in two cells (an answer cell
JupyterLab split in two, or a check cell pasted again) halts the whole run at that submission,
every student after it ungraded, with nbgrader's words of an old metadata format; and a
notebook renamed from the assignment's (nbgrader grades the submission 0). Run it after
``nbgrader collect`` and before ``nbgrader autograde``. ``--mend`` mends the first in place:
nbgrader's metadata stays on the last cell of each such grade id (the part, or the copy, that
comes after the rest) and leaves the others, which then run as cells the student added. (The
last is the one nbgrader's own ``DeduplicateIds`` keeps; it leaves an empty record on the others,
which its metadata check then refuses.)

Prints one line per finding, ``<student> <notebook>: ...``, and nothing for a clean submission;
exits with 1 where it found something, so a script can tell.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

import nbtools


def nbgrader_of(cell: nbformat.NotebookNode) -> dict:
    """The cell's nbgrader metadata; {} for none, or for one a student's editor left as null or text."""
    record = cell.metadata.get("nbgrader")
    return record if isinstance(record, dict) else {}


def check_ids(nb: nbformat.NotebookNode) -> list[str]:
    """The grade ids of the notebook's autograded check cells, in order."""
    return [grade_id(cell) for cell in nb.cells
            if nbgrader_of(cell).get("grade") and grade_id(cell) and cell.cell_type == "code"]


def grade_id(cell: nbformat.NotebookNode) -> str | None:
    """The cell's nbgrader grade id (as text), or None for a cell without nbgrader's metadata."""
    gid = nbgrader_of(cell).get("grade_id")
    return None if gid is None else str(gid)


def repeated_ids(nb: nbformat.NotebookNode) -> dict[str, list[int]]:
    """Each grade id that more than one cell carries, with those cells' positions (from 1)."""
    positions: dict[str, list[int]] = {}
    for k, cell in enumerate(nb.cells, start=1):
        if grade_id(cell):
            positions.setdefault(grade_id(cell), []).append(k)
    return {gid: where for gid, where in positions.items() if len(where) > 1}


def mend(submission: Path) -> list[str]:
    """Keep nbgrader's metadata on the last cell of each repeated grade id only; what was done."""
    nb = nbtools.read(submission)
    done = []
    for gid, positions in repeated_ids(nb).items():
        for k in positions[:-1]:
            del nb.cells[k - 1].metadata["nbgrader"]
        done.append(f"mended: grade id {gid} kept on the cell at position {positions[-1]} only")
    if done:
        nbformat.write(nb, submission)
    return done


def findings(submission: Path) -> list[str]:
    """The cells ``submission`` adds to its assignment, the check cells it lacks, and what stops
    nbgrader's autograde (a grade id in two cells, a renamed notebook)."""
    nb = nbtools.read(submission)
    if not any(nbgrader_of(cell) for cell in nb.cells):  # every cell would read as added
        return ["no cell carries nbgrader's metadata: not a notebook of the nbgrader course (a notebook "
                "from exercises/ is graded with the score table: README, An instructor handing the course out)"]
    found = []
    for gid, positions in repeated_ids(nb).items():
        where = ", ".join(map(str, positions))
        found.append(f"grade id {gid} is in {len(positions)} cells, at positions {where} (a cell split in "
                     "two, or pasted again): nbgrader autograde stops at this submission, and grades no "
                     "student after it; mend it first (added_cells.py --mend)")
    for k, cell in enumerate(nb.cells, start=1):
        if not nbgrader_of(cell):
            first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "(empty)")
            found.append(f"added {cell.cell_type} cell at position {k}: {first[:70]}")
    # <course>/submitted/<student>/<assignment>/<notebook>: the course folder is parents[3].
    folders = submission.resolve().parents
    source = folders[3] / "source" / submission.parent.name / submission.name if len(folders) > 3 else None
    if source is not None and not source.is_file() and source.parent.is_dir():
        names = sorted(path.name for path in source.parent.glob("*.ipynb"))
        if any((submission.parent / name).is_file() for name in names):  # a copy beside the notebook
            found.append(f"the assignment has no notebook named {submission.name}: nbgrader skips it, and "
                         f"grades {' and '.join(names)} beside it")
            return found
        assignment, student = submission.parent.name, submission.parent.parent.name
        found.append(f"the assignment has no notebook named {submission.name} (renamed?), so nbgrader grades "
                     f"the submission 0: rename it to {' or '.join(names) or 'the assignment notebook'} and "
                     f"autograde this student again (nbgrader autograde {assignment} --student {student})")
        return found
    if source is None:  # too near the file system's root for <course>/submitted/<student>/<assignment>/
        found.append(f"{submission.resolve()} is in no course's submitted/<student>/<assignment>/ folder, so there "
                     "is no source notebook to compare with: only added cells are listed")
        return found
    if not source.is_file():
        found.append(f"no {source} to compare with: only added cells are listed")
        return found
    try:
        handed_out = nbtools.read(source)
    except nbtools.NotebookReadError as error:
        found.append(f"the course's {source} is not a notebook this can read ({error.why}): only "
                     "added cells are listed")
        return found
    have = set(check_ids(nb))
    found += [f"lacks check cell {gid}" for gid in check_ids(handed_out) if gid not in have]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="+", type=Path,
                        help="submitted notebooks: submitted/<student>/<assignment>/<notebook>.ipynb")
    parser.add_argument("--mend", action="store_true",
                        help="keep nbgrader's metadata on the last cell of each grade id that several cells "
                             "carry, in place, so that nbgrader autograde runs")
    args = parser.parse_args(argv)
    missing = [str(path) for path in args.submissions if not path.is_file()]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    any_found = False
    for submission in args.submissions:
        student = submission.parent.parent.name
        try:
            found = (mend(submission) if args.mend else []) + findings(submission)
        except nbtools.NotebookReadError as error:  # one broken submission must not stop the others' checks
            found = [f"not a notebook this can read ({error.why}): nbgrader cannot grade it either; look at it "
                     "by hand"]
        for finding in found:
            any_found = True
            print(f"{student} {submission.name}: {finding}")
    return 1 if any_found else 0


if __name__ == "__main__":
    sys.exit(main())
