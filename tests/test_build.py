"""tools/build.py: executing a notebook in place, and refusing a broken one."""

from __future__ import annotations

import copy
import os
import re
import sys
import time
from pathlib import Path

from shutil import which as shutil_which

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build  # noqa: E402  (tools/ is a folder of scripts, not a package)
import nbtools  # noqa: E402
import textforms  # noqa: E402


def write_notebook(path: Path, *sources: str) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    for k, cell in enumerate(nb.cells):
        cell.id = f"cell-{k}"
    nbtools.write(nb, path)


ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")
ENGINE_FRAME = re.compile(r"File (\S*?)src/(tinyad/[\w/]+\.py):(\d+)")
ENGINE_FILE = re.compile(r"src/(tinyad/[\w/]+\.py)")  # IPython 7 writes "src/tinyad/x.py in f(...)"
ARROW_LINE = re.compile(r"^-+> ?(\d+) (.*)$", re.MULTILINE)


def test_a_stored_traceback_into_the_engine_shows_the_engines_line_as_it_is():
    # nbval does not compare a raising cell's traceback, so one through the engine's files kept the
    # line numbers and code of an older engine: lesson 08 showed Tensor.backward at a line 7 off.
    frames, stale = 0, []
    for path in nbtools.lessons_in(ROOT / "notebooks") + nbtools.lessons_in(ROOT / "solutions"):
        for cell in nbtools.read(path).cells:
            for output in cell.get("outputs", []):
                for frame in (ANSI_CODE.sub("", entry) for entry in output.get("traceback", [])):
                    engine, arrow = ENGINE_FRAME.search(frame), ARROW_LINE.search(frame)
                    if not engine or not arrow:
                        continue
                    frames += 1
                    if engine.group(1):  # the build machine's own folders, in a file learners download
                        stale.append(f"{path.parent.name}/{path.name}: the path {engine.group(1)}src/... "
                                     "(build.py stores it from the clone's top: src/...)")
                    file, line = ROOT / "src" / engine.group(2), int(engine.group(3))
                    source = file.read_text(encoding="utf-8").splitlines() if file.exists() else []
                    now = source[line - 1].strip() if line <= len(source) else None
                    if int(arrow.group(1)) != line or now != arrow.group(2).strip():
                        stale.append(f"{path.parent.name}/{path.name}: {engine.group(2)}:{line} shows "
                                     f"{arrow.group(2).strip()!r}")
    assert frames, "no stored traceback reaches the engine's files: this test has nothing left to check"
    assert not stale, f"rebuild these lessons (python tools/build.py NN): {stale}"


def test_a_traceback_names_the_engines_files_from_the_clones_top():
    for folders in ("/work/main/", "~/rD/", "/home/a b/", ""):  # IPython shortens a home to ~
        line = f"\x1b[36mFile \x1b[39m\x1b[32m{folders}src/tinyad/tensor/tensor.py:566\x1b[39m, in backward"
        assert build.FOLDERS_ABOVE_THE_ENGINE.sub("", line) == (
            "\x1b[36mFile \x1b[39m\x1b[32msrc/tinyad/tensor/tensor.py:566"
            "\x1b[39m, in backward")


def test_execute_stores_a_traceback_through_the_engine_from_src(tmp_path):
    # The folders above src/tinyad/ (the machine's, where the clone lies) were only ever taken out of
    # lines written in the test above, never out of a traceback the kernel stored.
    path = tmp_path / "93_raises.ipynb"
    write_notebook(path, "# NBVAL_RAISES_EXCEPTION\nfrom tinyad import Tensor\nTensor([1.0, 2.0]).backward()")
    build.execute(path, timeout=60)
    (error,) = nbtools.read(path).cells[0].outputs
    text = "\n".join(ANSI_CODE.sub("", line) for line in error.traceback)
    assert error.ename == "RuntimeError" and ENGINE_FILE.search(text).group(1) == "tinyad/tensor/tensor.py", text
    assert set(re.findall(r"\S*src/tinyad/", text)) == {"src/tinyad/"}, text


def test_execute_runs_the_notebook_on_this_clones_engine(tmp_path, monkeypatch):
    # The kernel starts in the notebook's folder, where PYTHONPATH=src (how a clone is built) names
    # another folder: the lessons ran, and stored the tracebacks of, the engine installed from another
    # clone. Here the notebook's folder holds a src/tinyad of its own, to show which one is imported.
    (tmp_path / "src" / "tinyad").mkdir(parents=True)
    (tmp_path / "src" / "tinyad" / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", "src")
    path = tmp_path / "92_engine.ipynb"
    write_notebook(path, "import tinyad\nprint(tinyad.__file__)")
    build.execute(path, timeout=60)
    assert nbtools.read(path).cells[0].outputs[0].text == f"{ROOT / 'src' / 'tinyad' / '__init__.py'}\n"


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
    # The tag stays beside the marker: JupyterLab's Run All reads the tag, nbval the marker.
    assert raising.metadata == {"tags": [nbtools.RAISES_TAG]}
    assert last.outputs[0].data["text/plain"] == "42"
    assert [c.execution_count for c in nb.cells] == [1, 2, 3]
    assert nbtools.dumps(nbtools.normalise(nb)) == path.read_text(encoding="utf-8")


def test_a_cells_printed_output_is_stored_as_one_output_per_stream():
    # The kernel cuts prints where it flushed, differently from run to run: stored as they came, an
    # unchanged lesson rebuilt to a different file.
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('a'); print('b', file=sys.stderr); print('c')")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="a\n"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
        nbformat.v4.new_output("stream", name="stderr", text="warning\n"),
        nbformat.v4.new_output("stream", name="stdout", text="c\n"),
        nbformat.v4.new_output("stream", name="stdout", text="d\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "42"}, execution_count=1),
    ]
    nb.cells = [cell]
    outputs = nbtools.normalise(nb).cells[0].outputs
    assert [(o.output_type, o.get("name"), o.get("text")) for o in outputs] == [
        ("stream", "stdout", "a\nb\n"), ("stream", "stderr", "warning\n"), ("stream", "stdout", "c\nd\n"),
        ("execute_result", None, None),
    ]


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
    assert build.lessons(["1", "02"]) == ["01", "02"]  # as given, each written with two digits
    assert build.lessons([]) == [f"{n:02d}" for n in range(1, len(build.lessons([])) + 1)]  # none given: all


def test_a_lesson_is_built_whole_from_its_text_forms(tmp_path, monkeypatch, capsys):
    # Its lesson and solution run on kernels that end with them, then its exercise is written.
    psutil = pytest.importorskip("psutil")  # ipykernel's own dependency
    monkeypatch.setattr(build, "ROOT", tmp_path)
    monkeypatch.setattr(textforms, "ROOT", tmp_path)
    lesson = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("6 * 7")])
    solution = solution_of("f")
    solution.cells.insert(0, nbformat.v4.new_code_cell("from tinyad.course import grading"))
    for folder, nb in (("notebooks", lesson), ("solutions", solution)):
        (tmp_path / folder).mkdir()
        (tmp_path / "text" / folder).mkdir(parents=True)
        textforms.text_path(tmp_path / folder / "99_demo.ipynb").write_text(textforms.to_text(nb), encoding="utf-8")
    kernels = {child.pid for child in psutil.Process().children(recursive=True)}

    build.build("99", timeout=60)
    out = capsys.readouterr().out.splitlines()
    assert [line.split("  (")[0] for line in out] == ["executed  notebooks/99_demo.ipynb",
                                                      "executed  solutions/99_demo.ipynb",
                                                      "generated exercises/99_demo.ipynb"], out
    assert re.fullmatch(r"executed  notebooks/99_demo.ipynb  \(\d+\.\d s\)", out[0])
    (cell,) = nbtools.read(tmp_path / "notebooks" / "99_demo.ipynb").cells
    assert cell.outputs[0].data["text/plain"] == "42"
    ran = nbtools.read(tmp_path / "solutions" / "99_demo.ipynb")
    assert [cell.execution_count for cell in ran.cells if cell.cell_type == "code"] == [1, 2, 3]
    exercise = nbtools.read(tmp_path / "exercises" / "99_demo.ipynb")
    assert nbtools.dumps(exercise) == nbtools.dumps(nbtools.checked_exercise(ran, "99_demo.ipynb"))
    assert "### BEGIN SOLUTION" not in nbtools.dumps(exercise)
    left = [child for child in psutil.Process().children(recursive=True) if child.pid not in kernels]
    assert not [child for child in left if "ipykernel" in " ".join(child.cmdline())], "a kernel left running"


def solution_of(*names: str, closed: bool = True) -> nbformat.NotebookNode:
    """A solution notebook of one exercise per name: ``## Exercise N: f``, a function ``f`` that
    returns N between the solution markers (the END left out where not ``closed``), a check."""
    cells = []
    for n, name in enumerate(names, start=1):
        end = "\n    ### END SOLUTION" if closed else ""
        cells += [nbformat.v4.new_markdown_cell(f"## Exercise {n}: {name}"),
                  nbformat.v4.new_code_cell(f"def {name}():\n    ### BEGIN SOLUTION\n    return {n}{end}"),
                  nbformat.v4.new_code_cell(f"grading.check({name}() == {n}, '{name}', '{name}()', {n}, {name}(), "
                                            f"'return {n}')")]
    return nbformat.v4.new_notebook(cells=cells)


def exercise_pair(tmp_path: Path) -> tuple[Path, nbformat.NotebookNode]:
    """An exercise notebook on disk and the blank one the generator would write."""
    solution = solution_of("f")
    fresh = nbtools.make_exercise(solution, "99_demo.ipynb")
    path = tmp_path / "99_demo.ipynb"
    nbtools.write(fresh, path)
    return path, fresh


def test_a_blank_or_stale_exercise_may_be_overwritten(tmp_path):
    path, fresh = exercise_pair(tmp_path)
    assert build.learner_work(path, fresh) is None
    assert build.learner_work(tmp_path / "absent.ipynb", fresh) is None
    older = solution_of("f")  # the exercise made from the solution as it was, before the instructor changed it
    older.cells[2].source += "\nprint('an older check')"
    nbtools.write(nbtools.make_exercise(older, "99_demo.ipynb"), path)
    assert build.learner_work(path, fresh) is None
    edited = nbtools.make_exercise(older, "99_demo.ipynb")  # the same check edited by the learner: their work
    edited.cells[2].source = "print('passed')"
    nbtools.write(edited, path)
    assert build.learner_work(path, fresh) == "1 handed-out code cell changed"
    # An answer cell that does not record its blanks (an exercise made before it did), left blank: it
    # read "1 of its 1 blanks is filled in", the blanks left counted in recorded cells alone.
    unrecorded = copy.deepcopy(fresh)
    del unrecorded.cells[1].metadata[nbtools.COURSE_KEY]["blanks"]
    nbtools.write(unrecorded, path)
    assert build.learner_work(path, fresh) is None
    unrecorded.cells[1].source = unrecorded.cells[1].source.replace("raise NotImplementedError", "return 1  #")
    nbtools.write(unrecorded, path)
    assert build.learner_work(path, fresh) == "1 of its 1 blanks is filled in"


def test_an_exercise_added_to_the_solution_is_not_taken_for_a_learners_work(tmp_path):
    # Counted against the new notebook's blanks, the old exercise read "1 of its 2 blanks is
    # filled in", and its stale copy in exercises/ was skipped as a learner's work, not failed.
    path, _ = exercise_pair(tmp_path)
    solution = solution_of("f", "g")
    two_exercises = nbtools.make_exercise(solution, "99_demo.ipynb")
    assert build.learner_work(path, two_exercises) is None
    filled = nbtools.read(path)  # the old notebook with its one blank filled in is a learner's work still
    filled.cells[1].source = "def f():\n    return 1"
    nbtools.write(filled, path)
    assert build.learner_work(path, two_exercises) == "1 of its 1 blanks is filled in"
    replaced = nbtools.make_exercise(solution, "99_demo.ipynb")  # an answer cell deleted, the answer
    replaced.cells[1] = nbformat.v4.new_code_cell("def f():\n    return 1")  # written in a new cell
    nbtools.write(replaced, path)
    assert build.learner_work(path, two_exercises) == "1 code cell added"
    added = nbtools.make_exercise(solution, "99_demo.ipynb")  # an answer in a cell of its own, not run,
    added.cells.insert(2, nbformat.v4.new_code_cell("def f():\n    return 1"))  # the blank left above
    nbtools.write(added, path)
    assert build.learner_work(path, two_exercises) == "1 code cell added"
    scratch = nbtools.make_exercise(solution, "99_demo.ipynb")  # a cell of the learner's above the exercises
    scratch.cells.insert(0, nbformat.v4.new_code_cell("print('trying something')"))
    nbtools.write(scratch, path)
    assert build.learner_work(path, two_exercises) == "1 code cell added"
    with_set_up = copy.deepcopy(solution)  # a set-up cell changed by the learner: it was lost in silence
    with_set_up.cells.insert(0, nbformat.v4.new_code_cell("import math"))
    edited = nbtools.make_exercise(with_set_up, "99_demo.ipynb")
    edited.cells[0].source += "\nx = 1"
    nbtools.write(edited, path)
    assert build.learner_work(path, nbtools.make_exercise(with_set_up, "99_demo.ipynb")) == (
        "1 handed-out code cell changed")
    deleted = nbtools.make_exercise(solution, "99_demo.ipynb")
    del deleted.cells[1]
    nbtools.write(deleted, path)
    assert build.learner_work(path, two_exercises) == (
        "1 of the cells handed out in its exercises is gone, deleted or replaced by a cell of the learner's")
    split = nbtools.make_exercise(solution, "99_demo.ipynb")  # an answer cell split in JupyterLab:
    halves = [copy.deepcopy(split.cells[1]) for _ in range(2)]  # both parts keep its metadata
    halves[1]["id"] = "second-half"
    halves[0].source, halves[1].source = split.cells[1].source.split("\n", 1)
    split.cells[1:2] = halves
    nbtools.write(split, path)
    assert build.learner_work(path, two_exercises) is None  # nothing filled in
    copied = nbformat.v4.new_notebook(cells=list(solution.cells))  # no blanks recorded
    nbtools.write(copied, path)
    assert build.learner_work(path, two_exercises) == "2 of its 2 blanks are filled in"


def test_a_cell_added_under_a_heading_written_again_is_a_learners_work(tmp_path):
    # The heading cell deleted and written again records no ids: the answer written in a cell added under
    # it went uncounted, and the notebook was overwritten.
    path, fresh = exercise_pair(tmp_path)
    work = nbtools.read(path)
    work.cells[0] = nbformat.v4.new_markdown_cell(work.cells[0].source)
    work.cells.insert(1, nbformat.v4.new_code_cell("def f():\n    return 1"))
    nbtools.write(work, path)
    assert build.learner_work(path, fresh) == "1 code cell added"


def test_an_exercise_with_a_learners_work_is_recognised(tmp_path):
    path, fresh = exercise_pair(tmp_path)
    filled = nbtools.read(path)
    filled.cells[1].source = "def f():\n    return 1"
    nbtools.write(filled, path)
    assert build.learner_work(path, fresh) == "1 of its 1 blanks is filled in"
    run = nbtools.read(path)
    run.cells[2].execution_count = 3
    nbtools.write(run, path)
    assert build.learner_work(path, fresh) == "cells [2] have been run"


def test_the_build_names_what_the_machine_lacks_for_the_lessons_it_builds(monkeypatch):
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
    monkeypatch.setattr(build.importlib.util, "find_spec", lambda name: None)
    assert build.missing_references(["01", "02", "03", "04"]) == [
        "the Graphviz dot program (lessons 01, 02 would store graphs listed as text)",
        "torch (lesson 03 would store the cells' no-torch fallbacks)",
    ]
    # Lesson 04 neither draws nor compares with PyTorch: it was refused all the same.
    assert build.missing_references(["04"]) == []


def test_the_command_line_builds_what_it_is_asked_with_what_it_is_given(monkeypatch, capsys):
    built = []
    monkeypatch.setattr(build, "build", lambda number, timeout, force: built.append((number, timeout, force)))
    monkeypatch.setattr(build, "missing_references", lambda numbers: [])
    for argv, wanted in [(["1"], ("01", 300, False)),  # the default the help gives
                         (["--timeout", "30", "--force", "02"], ("02", 30, True))]:
        monkeypatch.setattr(sys, "argv", ["build.py", *argv])
        build.main()
        assert built.pop() == wanted
    monkeypatch.setattr(build, "missing_references", lambda numbers: ["torch"])
    monkeypatch.setattr(sys, "argv", ["build.py", "--allow-missing", "03"])
    build.main()
    assert built == [("03", 300, False)]  # the fallbacks stored, as asked
    for argv, complaint in [(["--timeout", "0", "01"], "--timeout is seconds per cell, a number above 0, got 0"),
                            (["--release", "elsewhere", "01"], "copy every lesson as it is built: give no lesson"),
                            (["--release", "a", "--nbgrader", "b"], "two different copies of the course")]:
        monkeypatch.setattr(sys, "argv", ["build.py", *argv])
        with pytest.raises(SystemExit):
            build.main()
        assert complaint in capsys.readouterr().err
    assert built == [("03", 300, False)]


def test_the_nbgrader_course_is_written_and_says_what_comes_next(tmp_path, monkeypatch, capsys):
    course = tmp_path / "classes" / "course"  # its folder made too
    monkeypatch.setattr(sys, "argv", ["build.py", "--nbgrader", str(course)])
    build.main()
    names = [path.stem for path in nbtools.lessons_in(ROOT / "solutions")]
    assert capsys.readouterr().out == (f"wrote the nbgrader course into {course}: {len(names)} assignments, "
                                       f"{names[0]} to {names[-1]}; next, from there: nbgrader generate_assignment "
                                       "NN_name\n")
    assert sorted(path.name for path in (course / "source").iterdir()) == names


def test_the_build_refuses_before_it_runs_anything(monkeypatch, capsys):
    ran = []
    monkeypatch.setattr(build, "execute", lambda path, timeout: ran.append(path))
    # A machine without dot or torch: stop, and name both.
    monkeypatch.setattr(build, "missing_references", lambda numbers: ["the dot program", "torch"])
    monkeypatch.setattr(sys, "argv", ["build.py", "01"])
    with pytest.raises(SystemExit, match="lacks the dot program and torch.*--allow-missing"):
        build.main()
    # A solution block left open: one line naming it (it was a traceback), before anything runs.
    open_block = solution_of("f", closed=False)
    with monkeypatch.context() as patched:
        patched.setattr(build, "source_of", lambda path: open_block)
        with pytest.raises(SystemExit, match=r"^build\.py: .*BEGIN SOLUTION is never closed"):
            build.build("01", timeout=60)
    # An exercise holding a learner's work: stop before executing the lesson.
    monkeypatch.setattr(build, "learner_work", lambda exercise, fresh: "1 of its 3 blanks is filled in")
    with pytest.raises(SystemExit, match=r"01_value.ipynb looks like a learner's work .*--force"):
        build.build("01", timeout=60)
    assert ran == []


# -- the learners' release ----------------------------------------------------------


def test_a_release_refuses_a_folder_that_is_not_empty_or_inside_the_course(tmp_path):
    (tmp_path / "old.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(SystemExit, match="is not empty"):
        build.release(tmp_path)
    with pytest.raises(SystemExit, match="inside the course"):
        build.release(build.ROOT / "release-here")
    assert not (build.ROOT / "release-here").exists()


def test_the_learners_readme_is_the_marked_parts_of_the_readme_in_order():
    begin, end = build.LEARNERS_BEGIN, build.LEARNERS_END
    readme = f"{begin}\n# course\n\nfor all\n{end}\n\nfor instructors\n\n{begin}\n## more\n{end}\nthe rest\n"
    assert build.learners_readme(readme) == "# course\n\nfor all\n\n## more\n"
    for broken in ["no markers", f"{begin}\nopen", f"{end}\n{begin}\nx\n{end}", f"{begin}\n{begin}\n{end}",
                   f"{begin}\nx\n{end}\n{end}"]:
        with pytest.raises(SystemExit, match="markers"):
            build.learners_readme(broken)


def test_a_release_without_git_is_a_plain_folder_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(build.shutil, "which", lambda name: None if name == "git" else shutil_which(name))
    (tmp_path / "course").mkdir()  # an empty folder is as good as a new one
    real_copytree = build.shutil.copytree

    def copytree_with_strays(source, target, *args, **kwargs):  # JupyterLab's Duplicate and New Notebook
        real_copytree(source, target, *args, **kwargs)
        if Path(source) == ROOT / "notebooks":
            for stray in ("01_value-Copy1.ipynb", "Untitled.ipynb"):
                (Path(target) / stray).write_text("{}", encoding="utf-8")

    monkeypatch.setattr(build.shutil, "copytree", copytree_with_strays)
    build.release(tmp_path / "course")
    released = sorted(path.name for path in (tmp_path / "course" / "notebooks").glob("*.ipynb"))
    assert released == [path.name for path in nbtools.lessons_in(ROOT / "notebooks")]  # the strays left behind
    out = capsys.readouterr().out
    assert "git is not installed" in out
    assert out.endswith(f"released the course into {tmp_path / 'course'}: no solutions/, exercises blank\n")
    assert not (tmp_path / "course" / ".git").exists() and (tmp_path / "course" / "README.md").exists()


def test_the_nbgrader_course_refuses_a_folder_that_is_not_empty_or_inside_the_course(tmp_path, monkeypatch):
    (tmp_path / "old.txt").write_text("keep me", encoding="utf-8")
    for target, complaint in [(tmp_path, "is not empty"), (build.ROOT / "nbgrader-here", "inside the course")]:
        monkeypatch.setattr(sys, "argv", ["build.py", "--nbgrader", str(target)])
        with pytest.raises(SystemExit, match=complaint):
            build.main()
    assert not (build.ROOT / "nbgrader-here").exists() and not (tmp_path / "source").exists()


def test_the_lessons_on_the_hub_point_at_the_assignment_and_validate(tmp_path):
    # Each lesson sent students to exercises/NN_name.ipynb, and five to a pytest command: on the
    # hub the exercises are the assignment's notebook, one folder up, checked with Validate.
    import nbgrader_course

    names = nbgrader_course.write_course(build.ROOT, tmp_path / "course")
    assert len(names) == 10
    for name in names:
        lesson = nbtools.read(tmp_path / "course" / "source" / name / "lesson" / f"{name}.ipynb")
        text = "\n".join(c.source for c in lesson.cells if c.cell_type == "markdown")
        assert "exercises/" not in text and "--nbval-lax" not in text, name
        assert f"The exercises (the assignment's notebook, `{name}.ipynb`)" in text, name
        grading = nbtools.read(build.ROOT / "notebooks" / f"{name}.ipynb")
        if "--nbval-lax" in "\n".join(c.source for c in grading.cells if c.cell_type == "markdown"):
            assert nbgrader_course.CHECK_THEM in text, name


def test_the_release_installs_in_a_clean_environment_and_grades_its_blank_exercises(release):
    """No solutions and no tests in it; installed into a new virtual environment, it imports
    its own tinyad and grades its blanks."""
    copy = release.folder
    files = {p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert not any(f.startswith("solutions/") for f in files)
    assert [f for f in files if f.startswith("tests/")] == ["tests/nbval_sanitize.cfg"]
    for name in ("README.md", "pyproject.toml", "environment.yml", "conftest.py",
                 "src/tinyad/course/score_table.py", "src/tinyad/course/grading.py",
                 "benchmarks/README.md", "benchmarks/device_bench.py"):  # lessons 09 and 10 point to them
        assert name in files
    lessons = sorted(p.name for p in (build.ROOT / "notebooks").glob("*.ipynb"))
    assert sorted(f.split("/")[1] for f in files if f.startswith("notebooks/")) == lessons
    assert sorted(f.split("/")[1] for f in files if f.startswith("exercises/")) == lessons
    for name in lessons:  # blank: what the generator makes, whatever the course's exercises/ holds
        solution = nbtools.read(build.ROOT / "solutions" / name)
        blank = nbtools.dumps(nbtools.make_exercise(solution, name))
        assert (copy / "exercises" / name).read_text(encoding="utf-8") == blank
    assert 'testpaths = ["notebooks"]' in (copy / "pyproject.toml").read_text(encoding="utf-8")
    # Its README is the course's parts for learners: the lesson table and both commands, and nothing
    # (no link, no command, no path) of what the release does not hold.
    readme = (copy / "README.md").read_text(encoding="utf-8")
    assert readme == build.learners_readme((build.ROOT / "README.md").read_text(encoding="utf-8"))
    for lacking in ("tools/", "build.py", "solutions/", "text/", ".ci", "tests/", "nbgrader",
                    "## For instructors", "<!--"):
        assert lacking not in readme, f"the release's README mentions {lacking!r}, which the release lacks"
    assert all(f"](notebooks/{name})" in readme for name in lessons), "the lesson table is missing"
    for command in ('python -m pip install -e . && python -m jupyter lab --notebook-dir=. notebooks/01_value.ipynb',
                    'python -m pip install -e ".[test]" && python -m pytest',
                    "python -m pytest --nbval-lax exercises/"):
        assert command in readme, command
    for link in re.findall(r"\]\(([^)#]+)\)", readme):
        assert link.startswith("https://") or (copy / link).exists(), f"the release's README links to {link}"
    # Its settings, benchmarks and engine name no file of the course's tests or tools that it lacks.
    texts = [f for f in files if f.startswith(("benchmarks/", "src/")) and f.endswith((".py", ".md"))]
    for name in ["pyproject.toml", *texts]:
        for path in re.findall(r"\b(?:tests|tools)/[\w./-]*\w", (copy / name).read_text(encoding="utf-8")):
            assert path in files, f"the release's {name} names {path}, which the release lacks"

    run = release.run
    if sys.prefix != sys.base_prefix:  # the tests run in a virtual environment, as the README's do
        seen = run("-c", "import sys; print([p for p in sys.path if 'site-packages' in p "
                         "and p.startswith(sys.base_prefix)])").strip()
        assert seen == "[]", f"the new environment sees the interpreter's own site-packages: {seen}"
    assert "Successfully installed tinyad" in release.installed, release.installed
    imported = run("-c", "import tinyad; print(tinyad.__file__)").strip()
    own = copy / "src" / "tinyad" / "__init__.py"
    assert Path(imported).is_file() and os.path.samefile(imported, own), imported  # however Windows spells it
    out = release.grading
    last = out.rstrip().splitlines()[-1]
    exercises = sum(1 for line in out.splitlines() if line.startswith("  Exercise ") and line.endswith("not started"))
    assert exercises >= 17 and last == f"{exercises} exercises: 0 passed, 0 failed, {exercises} not started", out
    # The release's own test command finds the lessons, and only them.
    out = run("-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider")
    assert "error" not in out.lower() and "notebooks/01_" in out and "solutions" not in out, out


def test_a_cell_marked_to_raise_that_runs_without_an_error_stops_the_build(tmp_path):
    # nbval only tolerates an error in such a cell: a demonstration that stopped raising was
    # stored, and passed, under words about the error it no longer shows.
    path = tmp_path / "97_quiet.ipynb"
    write_notebook(path, "# NBVAL_RAISES_EXCEPTION\nx = 1")
    before = path.read_text(encoding="utf-8")
    with pytest.raises(SystemExit, match="97_quiet.ipynb's cell 0 is marked to raise .* but ran without an "
                                         "error, left unchanged"):
        build.execute(path, timeout=60)
    assert path.read_text(encoding="utf-8") == before


def test_a_cell_that_runs_longer_than_the_timeout_stops_the_build(tmp_path):
    # With the synchronous kernel manager, nbclient never enforced --timeout: a hung cell hung the build.
    path = tmp_path / "96_slow.ipynb"
    write_notebook(path, "import time\ntime.sleep(30)")
    start = time.perf_counter()
    with pytest.raises(SystemExit, match="96_slow.ipynb ran longer than 2 s"):
        build.execute(path, timeout=2)
    assert time.perf_counter() - start < 25


def test_the_build_refuses_to_drop_a_notebooks_edits_its_text_form_lacks(tmp_path, monkeypatch):
    # A change made in JupyterLab and never carried into the text form was silently built over.
    monkeypatch.setattr(textforms, "ROOT", tmp_path)
    monkeypatch.setattr(build, "ROOT", tmp_path)
    notebook = tmp_path / "notebooks" / "95_demo.ipynb"
    notebook.parent.mkdir()
    (tmp_path / "solutions").mkdir()
    write_notebook(notebook, "x = 1")
    twin = textforms.write_text(notebook)
    write_notebook(notebook, "x = 2")  # edited in JupyterLab, after the text form
    os.utime(twin, (1, 1))
    assert textforms.edited_side(notebook) == "notebook"
    monkeypatch.setattr(build, "execute", lambda path, timeout: pytest.fail("built over the edit"))
    with pytest.raises(SystemExit, match=r"notebooks/95_demo.ipynb saved after its text form, with cells it "
                                         r"lacks \(cell 0 \(code\) differs.*python tools/textforms.py 95"):
        build.build("95", timeout=60)
    os.utime(notebook, (1, 1))
    os.utime(twin, None)  # the text form saved last: an edit to build
    assert textforms.edited_side(notebook) == "text"


def test_the_tests_and_the_build_refuse_an_engine_from_another_folder(tmp_path, monkeypatch):
    # A second clone or a worktree sharing this environment tested and built this clone's engine,
    # in silence, where the package installed in editable mode points here.
    import subprocess

    import shutil

    other = tmp_path / "elsewhere" / "tinyad"  # another clone's engine
    shutil.copytree(ROOT / "src" / "tinyad", other, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(other.parent)}
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "tests/test_graph.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert f"this Python imports tinyad from {other}, not from {ROOT / 'src'}" in done.stdout + done.stderr
    monkeypatch.setitem(sys.modules, "tinyad", type(sys)("tinyad"))
    sys.modules["tinyad"].__file__ = str(other / "__init__.py")
    assert build.foreign_engine() == str(other)


def test_the_kernels_and_pythons_the_tests_start_import_this_folders_engine(tmp_path):
    # Run with PYTHONPATH=src, the tests checked this folder's engine, but nbval's kernels (started in
    # each notebook's folder) and the pytest runs in a copy of the course imported the installed one.
    import subprocess

    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT / "src")
    done = subprocess.run([sys.executable, "-c", "import tinyad; print(tinyad.__file__)"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=True)
    assert Path(done.stdout.strip()).resolve() == (ROOT / "src" / "tinyad" / "__init__.py").resolve()


NULL_SOURCE = ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"id": "a", "cell_type": "code", '
               '"source": null, "metadata": {}, "outputs": [], "execution_count": null}]}')


def test_reading_a_file_that_is_no_notebook_names_the_file_and_what_is_wrong(tmp_path):
    # build.py and added_cells.py each caught a list of nbformat's errors, and a cell whose source is
    # null read as a notebook, to fail later in whatever read that cell.
    for text, why in [("", "NotJSONError: Notebook does not appear to be JSON"),
                      ("<<<<<<< HEAD\n{}", "NotJSONError: Notebook does not appear to be JSON"),
                      ("[]", "AttributeError: "),
                      ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": null}', "TypeError: "),
                      ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
                       "ValidationError: The notebook is invalid and is missing an expected key: cells"),
                      ('{"nbformat": 5, "nbformat_minor": 0, "metadata": {}, "cells": []}',
                       "NBFormatError: Unsupported nbformat version 5"),
                      (NULL_SOURCE, "NotebookValidationError: None is not valid under any of the given schemas, "
                                    "at cells/0/source")]:
        path = tmp_path / "broken.ipynb"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(nbtools.NotebookReadError) as raised:
            nbtools.read(path)
        assert raised.value.why.startswith(why), (text, raised.value.why)
        assert str(raised.value) == f"{path} is not a notebook that can be read ({raised.value.why})"
        assert "\n" not in raised.value.why and len(raised.value.why) < 160
    with pytest.raises(nbtools.NotebookReadError, match=r"absent.ipynb is not a notebook .*\(FileNotFoundError"):
        nbtools.read(tmp_path / "absent.ipynb")


def test_an_exercise_notebook_build_py_cannot_read_is_named_and_replaced_with_force(monkeypatch, tmp_path):
    # It stopped with nbformat's NotJSONError traceback, --force or not: the flag meant to replace
    # the file could not.
    monkeypatch.setattr(build, "ROOT", tmp_path)
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "01_value.ipynb").write_text("<<<<<<< HEAD\n{}", encoding="utf-8")
    monkeypatch.setattr(build, "notebooks_of", lambda number, folder: (
        [build.nbtools.lessons_in(build.Path(__file__).parent.parent / "solutions")[0]]
        if folder == "solutions" else []))
    monkeypatch.setattr(build.textforms, "edited_side", lambda path: None)
    ran = []
    monkeypatch.setattr(build, "execute", lambda path, timeout: ran.append(path))
    with pytest.raises(SystemExit, match=r"exercises/01_value.ipynb is not a notebook build.py can read "
                                         r"\(NotJSONError.*pass --force to replace it"):
        build.build("01", timeout=60)
    assert ran == []  # refused before anything ran
    (tmp_path / "exercises" / "01_value.ipynb").write_text(  # nbformat 5: a traceback of NBFormatError
        '{"nbformat": 5, "nbformat_minor": 0, "metadata": {}, "cells": []}', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"is not a notebook build.py can read \(NBFormatError"):
        build.build("01", timeout=60)
    # A cell whose source an editor left null: nbformat reads it, and learner_work stopped in a traceback.
    (tmp_path / "exercises" / "01_value.ipynb").write_text(NULL_SOURCE, encoding="utf-8")
    with pytest.raises(SystemExit, match=r"is not a notebook build.py can read \(NotebookValidationError: None is "
                                         r"not valid .*, at cells/0/source\); pass --force"):
        build.build("01", timeout=60)
    written = []
    monkeypatch.setattr(build.nbtools, "write", lambda nb, path: written.append(path))
    build.build("01", timeout=60, force=True)
    assert written == [tmp_path / "exercises" / "01_value.ipynb"]


def test_the_nbgrader_course_refuses_a_solution_it_would_misread_before_writing(tmp_path, monkeypatch):
    # It wrote the assignment with the answer of a misspelt block in plain view, in a locked cell.
    broken = build.nbtools.read(build.ROOT / "solutions" / "01_value.ipynb")
    cell = next(c for c in broken.cells if build.nbtools.has_solution(c))
    cell.source = cell.source.replace("### BEGIN SOLUTION", "### BEGIN SOLUTON", 1)
    real_read = build.nbtools.read
    monkeypatch.setattr(build.nbtools, "read",
                        lambda path: broken if path.name == "01_value.ipynb" else real_read(path))
    monkeypatch.setattr(sys, "argv", ["build.py", "--nbgrader", str(tmp_path / "course")])
    with pytest.raises(SystemExit, match=r"no nbgrader course written: 01_value.ipynb, cell \d+: "
                                         r".* reads like a solution marker"):
        build.main()
    assert not (tmp_path / "course").exists()
