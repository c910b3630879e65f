"""Lessons as text: each lesson and solution notebook has a twin in MyST Markdown under ``text/``.

    text/notebooks/NN_name.md   <->  notebooks/NN_name.ipynb
    text/solutions/NN_name.md   <->  solutions/NN_name.ipynb

The text form is what a maintainer edits and reviews: every cell's source and tags, no
outputs, no notebook metadata (the course keeps none worth reviewing). ``tools/build.py``
builds each ``.ipynb`` from its text form and runs it, so the two stay in step;
``tests/test_textforms.py`` checks that they are.

    python tools/textforms.py             # write every text form from its notebook
    python tools/textforms.py 06 07       # only these lessons

A text form saved after its notebook, and differing from it, holds an edit not built yet: it
is not overwritten (``--force`` does). ``tools/build.py`` likewise refuses to build over a
notebook saved after its text form with cells the text form lacks.

Writing from the notebook is for a change made in JupyterLab: save the notebook, write its
text form, review the text's diff, then build.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
from pathlib import Path

import jupytext
from nbformat import NotebookNode

import nbtools

ROOT = Path(__file__).resolve().parent.parent
FORMAT = "md:myst"
FOLDERS = ("notebooks", "solutions")  # the notebooks with a text form (exercises are generated)
# What the text keeps: no notebook metadata; of a cell's metadata, only its tags.
FILTERS = {"notebook_metadata_filter": "-all", "cell_metadata_filter": "tags,-all"}


def text_path(notebook: Path) -> Path:
    """Where the text form of ``notebooks/NN_name.ipynb`` (or ``solutions/...``) lives."""
    return ROOT / "text" / notebook.parent.name / f"{notebook.stem}.md"


def to_text(nb: NotebookNode) -> str:
    """The text form of a notebook: its cells' sources and tags, in MyST Markdown."""
    nb = copy.deepcopy(nb)
    nb.metadata = {"jupytext": dict(FILTERS)}
    text = jupytext.writes(nb, fmt=FORMAT).lstrip("\n")  # jupytext 1.16.0 leaves a blank line first
    return text if text.endswith("\n") else text + "\n"


def from_text(text: str, previous: NotebookNode | None = None) -> NotebookNode:
    """The notebook a text form describes: its cells, no outputs, the course's metadata.

    A cell keeps the id it had in ``previous`` (the notebook built before) where that had a
    cell of the same kind and source; any other cell's id comes from its source. So
    rebuilding an unchanged lesson gives the same file, and an edit changes only its cells.
    """
    nb = jupytext.reads(text, fmt=FORMAT)
    unused: dict[tuple[str, str], list[str]] = {}
    for cell in previous.cells if previous is not None else []:
        unused.setdefault((cell.cell_type, cell.source), []).append(cell.id)
    taken: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        kept = unused.get((cell.cell_type, cell.source.rstrip("\n")))
        cell.id = kept.pop(0) if kept else _id_from(cell.source, taken)
        taken.add(cell.id)
    return nbtools.normalise(nb)


def _id_from(source: str, taken: set[str]) -> str:
    """An id for a new cell: the first eight hex digits of its source's hash, not yet taken."""
    digest = hashlib.sha1(source.encode("utf-8")).hexdigest()
    for start in range(0, len(digest) - 8):
        if digest[start:start + 8] not in taken:
            return digest[start:start + 8]
    raise ValueError("no free cell id")  # 32 identical cells: not a lesson


def cells(nb: NotebookNode) -> list[tuple[str, str, list[str]]]:
    """What a notebook and its text form must share: each cell's kind, source and tags."""
    return [(c.cell_type, c.source, list(c.metadata.get("tags", []))) for c in nb.cells]


def difference(notebook: Path) -> str | None:
    """Where ``notebook`` and its text form part, in words; None when they are in step."""
    twin = text_path(notebook)
    if not twin.exists():
        return f"{twin.relative_to(ROOT)} is missing"
    ours, theirs = cells(nbtools.read(notebook)), cells(from_text(twin.read_text(encoding="utf-8")))
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if a[:2] == b[:2] and a != b:
            return f"cell {k}'s tags differ: the notebook has {a[2]}, the text form {b[2]}"
        if a != b:
            # The first line where they part: the start of a long cell is often the same on both sides.
            mine, yours = a[1].splitlines(), b[1].splitlines()
            line = next((n for n, (x, y) in enumerate(zip(mine, yours)) if x != y), min(len(mine), len(yours)))
            here, there = (mine[line] if line < len(mine) else "(no line)"), (yours[line] if line < len(yours)
                                                                               else "(no line)")
            return (f"cell {k} ({a[0]}) differs at its line {line + 1}: the notebook has {here[:80]!r}, "
                    f"the text form {there[:80]!r}")
    if len(ours) != len(theirs):
        return f"the notebook has {len(ours)} cells, the text form {len(theirs)}"
    return None


def edited_side(notebook: Path) -> str | None:
    """Which of ``notebook`` and its text form holds an edit the other lacks: "notebook" where
    their cells differ and the notebook was saved last (a change made in JupyterLab), "text" where
    the text form was (an edit not built yet); None where they are in step or one is missing."""
    twin = text_path(notebook)
    if not (notebook.exists() and twin.exists()) or difference(notebook) is None:
        return None
    return "notebook" if notebook.stat().st_mtime > twin.stat().st_mtime else "text"


def write_text(notebook: Path) -> Path:
    """Write ``notebook``'s text form from the notebook; return its path."""
    twin = text_path(notebook)
    twin.parent.mkdir(parents=True, exist_ok=True)
    twin.write_text(to_text(nbtools.read(notebook)), encoding="utf-8", newline="\n")
    return twin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", metavar="NN", help="lesson numbers (default: all)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite a text form that holds edits its notebook lacks")
    args = parser.parse_args()
    every = [notebook for folder in FOLDERS for notebook in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))]
    found = {notebook.name[:2] for notebook in every}
    wanted = set()
    for n in args.lessons:
        if not (n.isdigit() and len(n) <= 2 and n.zfill(2) in found):
            raise SystemExit(f"textforms.py: no lesson {n!r}: the lessons are {', '.join(sorted(found))}")
        wanted.add(n.zfill(2))
    notebooks = [notebook for notebook in every if not wanted or notebook.name[:2] in wanted]
    # Refuse before writing anything: a text form saved after its notebook holds an edit not built yet.
    unbuilt = [notebook for notebook in notebooks if edited_side(notebook) == "text"]
    if unbuilt and not args.force:
        names = ", ".join(str(text_path(n).relative_to(ROOT)) for n in unbuilt)
        lessons = " ".join(sorted({n.name[:2] for n in unbuilt}))
        raise SystemExit(
            f"textforms.py: {names} hold edits their notebooks lack (saved after them): writing them from "
            f"the notebooks would lose those edits. Build them instead (python tools/build.py {lessons}), "
            "or pass --force to overwrite them from the notebooks"
        )
    for notebook in notebooks:
        print(f"wrote {write_text(notebook).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
