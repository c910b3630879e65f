"""Each lesson and solution notebook is in step with its text form (tools/textforms.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build  # noqa: E402  (tools/ is a folder of scripts, not a package)
import textforms  # noqa: E402

PAIRED = [p for folder in textforms.FOLDERS for p in sorted((ROOT / folder).glob("*.ipynb"))]


@pytest.mark.parametrize("notebook", PAIRED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_notebook_is_in_step_with_its_text_form(notebook):
    differs = textforms.difference(notebook)
    assert differs is None, (
        f"{notebook.parent.name}/{notebook.name} and its text form part: {differs}. Edited the text? "
        f"Run python tools/build.py {notebook.name[:2]}. Edited the notebook? Run "
        f"python tools/textforms.py {notebook.name[:2]}, review the text's diff, then build."
    )


def test_every_text_form_has_its_notebook():
    texts = {p.relative_to(ROOT / "text").with_suffix(".ipynb") for p in (ROOT / "text").rglob("*.md")}
    assert texts == {p.relative_to(ROOT) for p in PAIRED}


def test_the_text_form_keeps_sources_and_tags_and_nothing_else():
    v4 = nbformat.v4
    nb = v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}}, cells=[
        v4.new_markdown_cell("# A lesson\n\nSome *words*."),
        v4.new_markdown_cell("A second paragraph cell."),
        v4.new_code_cell("# NBVAL_RAISES_EXCEPTION\n1 / 0\n", metadata={"tags": ["raises-exception"], "x": 1},
                         outputs=[v4.new_output("error", ename="ZeroDivisionError", evalue="", traceback=[])],
                         execution_count=3),
        v4.new_code_cell("print('```')", metadata={"tags": ["nbval-skip"]}),
    ])
    text = textforms.to_text(nb)
    assert text.startswith("# A lesson\n"), "no front matter: jupytext's settings and version are no lesson's"
    assert text.endswith("```\n") and not text.endswith("\n\n"), "one newline at the end, as git and editors keep it"
    assert nb.metadata["kernelspec"]["name"] == "python3", "the notebook itself is left as it was"
    # (The cell's other metadata would be written as a line ":x: 1"; the filter kept it, and the
    # test looked for '"x"', which the text never holds.)
    assert "ZeroDivisionError" not in text and "kernelspec" not in text and ":x:" not in text
    back = textforms.from_text(text)
    assert textforms.cells(back) == [
        ("markdown", "# A lesson\n\nSome *words*.", []),
        ("markdown", "A second paragraph cell.", []),
        ("code", "# NBVAL_RAISES_EXCEPTION\n1 / 0", ["raises-exception"]),
        ("code", "print('```')", ["nbval-skip"]),  # a tag the build does not add back
    ]
    assert all(c.outputs == [] and c.execution_count is None for c in back.cells if c.cell_type == "code")
    assert back.cells[2].metadata == {"tags": ["raises-exception"]}
    nbformat.validate(back)  # a markdown cell with outputs is no notebook nbformat reads back


def test_a_changed_text_form_is_seen(tmp_path, monkeypatch):
    monkeypatch.setattr(textforms, "ROOT", tmp_path)
    notebook = tmp_path / "notebooks" / "99_demo.ipynb"
    notebook.parent.mkdir()
    v4 = nbformat.v4
    nbformat.write(v4.new_notebook(cells=[v4.new_code_cell("x = 1"), v4.new_code_cell("x")]), notebook)
    assert textforms.difference(notebook) == "text/notebooks/99_demo.md is missing"
    twin = textforms.write_text(notebook)
    assert textforms.difference(notebook) is None
    os.utime(twin, (1, 1))
    assert textforms.edited_side(notebook) is None, "in step: neither side holds an edit, whichever was saved last"
    twin.write_text(twin.read_text(encoding="utf-8") + "\n```{code-cell}\ny = 3\n```\n", encoding="utf-8")
    assert textforms.difference(notebook) == "the notebook has 2 cells, the text form 3"
    twin.write_text(twin.read_text(encoding="utf-8").replace("\n```{code-cell}\ny = 3\n```\n", ""), encoding="utf-8")
    twin.write_text(twin.read_text(encoding="utf-8").replace("x = 1", "x = 2"), encoding="utf-8")
    assert textforms.difference(notebook) == ("cell 0 (code) differs at its line 1: the notebook has 'x = 1', "
                                              "the text form 'x = 2'")
    edited = twin.read_text(encoding="utf-8").replace("x = 2", "x = 1")
    edited = edited.replace("```{code-cell}\nx\n", "```{code-cell}\n:tags: [nbval-skip]\n\nx\n")
    twin.write_text(edited, encoding="utf-8")
    assert textforms.difference(notebook) == "cell 1's tags differ: the notebook has [], the text form ['nbval-skip']"
    # A cell one line longer on one side: the line it lacks is named as such; a long line is cut at 80.
    long = "total = " + " + ".join(["weight"] * 20)
    nbformat.write(v4.new_notebook(cells=[v4.new_code_cell(f"{long}\nx = 1"), v4.new_code_cell("x")]), notebook)
    textforms.write_text(notebook)
    twin.write_text(twin.read_text(encoding="utf-8").replace("x = 1", "x = 1\ny = 2"), encoding="utf-8")
    assert textforms.difference(notebook) == ("cell 0 (code) differs at its line 3: the notebook has '(no line)', "
                                              "the text form 'y = 2'")
    twin.write_text(twin.read_text(encoding="utf-8").replace("x = 1\ny = 2", ""), encoding="utf-8")
    assert textforms.difference(notebook) == ("cell 0 (code) differs at its line 2: the notebook has 'x = 1', "
                                              "the text form '(no line)'")
    twin.write_text(twin.read_text(encoding="utf-8").replace(long, long + "!\nx = 1"), encoding="utf-8")
    assert textforms.difference(notebook) == (f"cell 0 (code) differs at its line 1: the notebook has {long[:80]!r}, "
                                              f"the text form {long[:80]!r}")


def test_the_build_executes_what_the_text_form_says(tmp_path, monkeypatch):
    monkeypatch.setattr(textforms, "ROOT", tmp_path)
    notebook = tmp_path / "notebooks" / "99_demo.ipynb"
    twin = textforms.text_path(notebook)
    twin.parent.mkdir(parents=True)
    v4 = nbformat.v4
    twin.write_text(textforms.to_text(v4.new_notebook(cells=[v4.new_code_cell("6 * 7")])), encoding="utf-8")
    notebook.parent.mkdir()
    build.execute(notebook, timeout=60)  # a lesson written as text first: no notebook before
    (cell,) = nbformat.read(notebook, as_version=4).cells
    assert cell.source == "6 * 7" and cell.outputs[0].data["text/plain"] == "42"
    assert textforms.difference(notebook) is None


def test_a_rebuilt_cell_keeps_its_id_and_a_new_one_gets_one_from_its_source():
    v4 = nbformat.v4
    before = v4.new_notebook(cells=[v4.new_markdown_cell("# Title"), v4.new_code_cell("x = 1")])
    before.cells[0].id, before.cells[1].id = "keep-me", "and-me"
    edited = v4.new_notebook(cells=[v4.new_markdown_cell("# Title"), v4.new_code_cell("y = 2"),
                                    v4.new_code_cell("x = 1")])
    rebuilt = textforms.from_text(textforms.to_text(edited), previous=before)
    ids = [cell.id for cell in rebuilt.cells]
    assert ids[0] == "keep-me" and ids[2] == "and-me"
    again = textforms.from_text(textforms.to_text(edited))
    assert again.cells[1].id == ids[1] and len(set(ids)) == 3  # from the source: the same each time
    twins = v4.new_notebook(cells=[v4.new_code_cell("x = 1"), v4.new_code_cell("x = 1")])
    assert len({c.id for c in textforms.from_text(textforms.to_text(twins)).cells}) == 2, "one source, two new ids"


def test_a_new_cells_id_is_eight_hex_digits_of_its_sources_hash_each_start_in_turn():
    import hashlib

    digest = hashlib.sha1("x = 1".encode("utf-8")).hexdigest()
    taken: set[str] = set()
    for start in range(32):  # every start that leaves eight digits, then no more
        taken.add(textforms._id_from("x = 1", taken))
        assert digest[start:start + 8] in taken
    assert all(len(name) == 8 for name in taken) and len(taken) == 32
    with pytest.raises(ValueError, match="no free cell id"):
        textforms._id_from("x = 1", taken)


def test_writing_text_forms_refuses_to_overwrite_an_edit_not_built_yet(tmp_path, monkeypatch, capsys):
    # `python tools/textforms.py` with no lesson wrote every text form from its notebook, losing
    # any text edit not built yet.
    monkeypatch.setattr(textforms, "ROOT", tmp_path)
    notebook = tmp_path / "notebooks" / "99_demo.ipynb"
    notebook.parent.mkdir()
    (tmp_path / "solutions").mkdir()
    v4 = nbformat.v4
    nbformat.write(v4.new_notebook(cells=[v4.new_code_cell("x = 1")]), notebook)
    twin = textforms.write_text(notebook)
    os.utime(notebook, (1, 1))
    twin.write_text(twin.read_text(encoding="utf-8").replace("x = 1", "x = 2"), encoding="utf-8")  # edited, not built
    monkeypatch.setattr(sys, "argv", ["textforms.py"])
    with pytest.raises(SystemExit, match=r"text/notebooks/99_demo.md hold edits their notebooks lack .*"
                                         r"\(python tools/build.py 99\).*--force"):
        textforms.main()
    assert "x = 2" in twin.read_text(encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["textforms.py", "98"])
    with pytest.raises(SystemExit, match="no lesson '98': the lessons are 99"):
        textforms.main()
    monkeypatch.setattr(sys, "argv", ["textforms.py", "--force", "99"])
    textforms.main()
    assert "x = 1" in twin.read_text(encoding="utf-8")


def test_writing_the_text_forms_of_named_lessons_writes_theirs_alone(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(textforms, "ROOT", tmp_path)
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "solutions").mkdir()
    v4 = nbformat.v4
    for name in ("98_one", "99_two"):
        nbformat.write(v4.new_notebook(cells=[v4.new_code_cell(name)]), tmp_path / "notebooks" / f"{name}.ipynb")
    monkeypatch.setattr(sys, "argv", ["textforms.py", "99"])
    textforms.main()
    assert capsys.readouterr().out == "wrote text/notebooks/99_two.md\n"
    assert not (tmp_path / "text" / "notebooks" / "98_one.md").exists()


def test_textforms_py_runs_as_a_script():
    import subprocess

    run = subprocess.run([sys.executable, str(ROOT / "tools" / "textforms.py"), "00"], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=60)
    assert run.returncode == 1 and "textforms.py: no lesson '00'" in run.stderr, run.stderr
    usage = subprocess.run([sys.executable, str(ROOT / "tools" / "textforms.py"), "--help"], capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=60)
    assert textforms.__doc__.splitlines()[0] in " ".join(usage.stdout.split()), usage.stdout


NBVAL_MARKERS = {"NBVAL_IGNORE_OUTPUT", "NBVAL_CHECK_OUTPUT", "NBVAL_RAISES_EXCEPTION", "NBVAL_SKIP"}


@pytest.mark.parametrize("twin", sorted((build.ROOT / "text").glob("*/*.md")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_nbval_marker_is_spelled_as_nbval_reads_it(twin):
    # A misspelled marker (# NBVAL_IGNORE_OUPUT) is a plain comment: the build stores the cell's
    # output and nbval compares it, which fails only on the day the output changes.
    import re

    for number, line in enumerate(twin.read_text(encoding="utf-8").splitlines(), start=1):
        marker = re.match(r"\s*#\s*(NBVAL\S*)", line, re.IGNORECASE)
        if marker:
            assert marker.group(1) in NBVAL_MARKERS and line.strip() == f"# {marker.group(1)}", (
                f"text/{twin.parent.name}/{twin.name}, line {number}: {line.strip()!r} is not one of nbval's markers "
                f"({', '.join(sorted(NBVAL_MARKERS))}), written alone on its line as # NAME")
