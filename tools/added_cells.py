"""What nbgrader does not flag in the students' submissions: cells a student added, and check
cells a submission lacks.

    python tools/added_cells.py submitted/*/01_value/*.ipynb    (in the nbgrader course folder)

Every cell of an assignment that ``tools/build.py --nbgrader`` makes carries nbgrader's metadata,
so a cell without it was added by the student: it runs in the kernel the checks run in, and may
change what they see (a new ``grading``, a call of the installed engine). A check cell that a
submission lacks scores its exercise 0, and nbgrader says nothing of it. The check cells a
submission should hold are read from the course's ``source/<assignment>/`` notebook of the same
name, found from the submission's place, ``submitted/<student>/<assignment>/<notebook>``.

Prints one line per finding, ``<student> <notebook>: ...``, and nothing for a clean submission;
exits with 1 where it found something, so a script can tell.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat


def check_ids(nb: nbformat.NotebookNode) -> list[str]:
    """The grade ids of the notebook's autograded check cells, in order."""
    return [cell.metadata.nbgrader["grade_id"] for cell in nb.cells
            if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code"]


def findings(submission: Path) -> list[str]:
    """The cells ``submission`` adds to its assignment, and the check cells it lacks."""
    nb = nbformat.read(submission, as_version=4)
    found = []
    for k, cell in enumerate(nb.cells, start=1):
        if "nbgrader" not in cell.metadata:
            first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "(empty)")
            found.append(f"added {cell.cell_type} cell at position {k}: {first[:70]}")
    # <course>/submitted/<student>/<assignment>/<notebook>: the course folder is parents[3].
    folders = submission.resolve().parents
    source = folders[3] / "source" / submission.parent.name / submission.name if len(folders) > 3 else None
    if source is None or not source.is_file():
        found.append(f"no {source} to compare with: only added cells are listed")
        return found
    have = set(check_ids(nb))
    found += [f"lacks check cell {grade_id}" for grade_id in check_ids(nbformat.read(source, as_version=4))
              if grade_id not in have]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="+", type=Path,
                        help="submitted notebooks: submitted/<student>/<assignment>/<notebook>.ipynb")
    args = parser.parse_args(argv)
    missing = [str(path) for path in args.submissions if not path.is_file()]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    any_found = False
    for submission in args.submissions:
        student = submission.parent.parent.name
        for finding in findings(submission):
            any_found = True
            print(f"{student} {submission.name}: {finding}")
    return 1 if any_found else 0


if __name__ == "__main__":
    sys.exit(main())
