"""tools/build.py: executing a notebook in place, and refusing a broken one."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build  # noqa: E402  (tools/ is a folder of scripts, not a package)
import nbtools  # noqa: E402


def write_notebook(path: Path, *sources: str) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    for k, cell in enumerate(nb.cells):
        cell.id = f"cell-{k}"
    nbtools.write(nb, path)


def test_execute_stores_outputs_in_the_notebooks_folder_without_timings(tmp_path):
    path = tmp_path / "lesson" / "99_demo.ipynb"
    path.parent.mkdir()
    write_notebook(
        path,
        "import os\nprint(os.path.basename(os.getcwd()))",
        "# NBVAL_RAISES_EXCEPTION\nraise ValueError('on purpose')",
        "6 * 7",
    )
    build.execute(path, timeout=60)
    nb = nbtools.read(path)
    first, raising, last = nb.cells
    assert first.outputs[0].text == "lesson\n"
    assert raising.outputs[0].output_type == "error" and raising.outputs[0].ename == "ValueError"
    assert raising.metadata == {}  # the tag used to let it raise is not left behind
    assert last.outputs[0].data["text/plain"] == "42"
    assert [c.execution_count for c in nb.cells] == [1, 2, 3]
    assert nbtools.dumps(nbtools.normalise(nb)) == path.read_text(encoding="utf-8")


def test_a_failing_notebook_stops_the_build_and_is_left_unchanged(tmp_path):
    path = tmp_path / "98_broken.ipynb"
    write_notebook(path, "print('fine')", "1 / 0")
    before = path.read_text(encoding="utf-8")
    with pytest.raises(SystemExit, match="98_broken.ipynb failed, left unchanged"):
        build.execute(path, timeout=60)
    assert path.read_text(encoding="utf-8") == before


def test_lesson_numbers_are_checked():
    with pytest.raises(SystemExit, match="a lesson is a number"):
        build.lessons(["value"])
    with pytest.raises(SystemExit, match="no notebooks/77_"):
        build.lessons(["77"])
